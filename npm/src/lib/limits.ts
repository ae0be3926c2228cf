// The `limits` load option: caps the engine checks when it compiles a model,
// before any allocation or loop (bindings/API.md, setLimits). 0 or absent =
// the build's default.
import { ExecutionError, check } from './errors.js';
import type { EmbindObject } from './backend.js';

/**
 * Caps the engine checks when it compiles a model. Each is a non-negative
 * integer; 0 or absent = the build's default. Unknown keys are refused (ExecutionError).
 */
export interface Limits {
  /** Bytes of any one tensor (a view counts its logical size). */
  maxTensorBytes?: number;
  /** Bytes of the planned activation arena plus prepared weight copies. */
  maxArenaBytes?: number;
  /** Work of one run: the sum over nodes of their largest tensor's element count. */
  maxRunWork?: number;
}

export const LIMIT_KEYS: readonly (keyof Limits)[] = ['maxTensorBytes', 'maxArenaBytes', 'maxRunWork'];

/** Validates options.limits: undefined, or an object of non-negative integers with known keys. */
export function validateLimits(limits: unknown, where: string): Limits | null {
  if (limits === undefined || limits === null) return null;
  if (typeof limits !== 'object' || Array.isArray(limits)) {
    throw new ExecutionError(`${where}: limits must be an object {${LIMIT_KEYS.join(', ')}}`);
  }
  const out: Limits = {};
  for (const [k, v] of Object.entries(limits)) {
    if (!(LIMIT_KEYS as readonly string[]).includes(k)) throw new ExecutionError(`${where}: unknown limit '${k}' (limits: ${LIMIT_KEYS.join(', ')})`);
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
      throw new ExecutionError(`${where}: limits.${k} must be a non-negative integer (0 = the build's default), got ${String(v)}`);
    }
    out[k as keyof Limits] = v;
  }
  return out;
}

/** Hands validated limits to a WasmModel / WasmLM before it compiles. */
export function applyLimits(handle: EmbindObject, limits: Limits | null, where: string): void {
  if (!limits) return;
  if (typeof handle.setLimits !== 'function') {
    throw new ExecutionError(`${where}: this WASM build has no setLimits(): rebuild npm/dist (scripts/build_wasm.sh)`);
  }
  const r = handle.setLimits(limits.maxTensorBytes ?? 0, limits.maxArenaBytes ?? 0, limits.maxRunWork ?? 0);
  if (typeof r === 'string') check(r, 'ExecutionError');
}
