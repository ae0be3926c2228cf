// Weight/constant keys that match nothing in the IR. The engine binds by the
// IR's names and never looks at the rest, so a typo ('conv1.wieght') or a
// state_dict of another model would pass unnoticed: loadIR warns (or throws
// with strictWeights). Same accepted names as the engine's binder
// (src/runtime/binder.cpp): original keys, placeholders, constant names.
import { WeightLoadError } from './errors.js';
import { warn } from './warn.js';
import type { TensorOp } from './load_sources.js';

/** One key of a source: its name, and (to find tied copies) its shape and bytes. */
interface KeyEntry {
  name: string;
  shape: readonly number[];
  bytes: Uint8Array;
}

const SHOWN = 5;

// Keys a weights/constants source may carry without a warning: every name
// the binder can look up, from one or more parsed IRs.
export function acceptedKeys(irs: readonly any[]): { accepted: Set<string>; originals: string[] } {
  const accepted = new Set<string>();
  const originals = new Set<string>();
  for (const ir of irs) {
    if (!ir || typeof ir !== 'object') continue;
    for (const w of Array.isArray(ir.weights) ? ir.weights : []) {
      if (w && typeof w.name === 'string') originals.add(w.name);
    }
    const mapping = ir.weight_name_mapping && typeof ir.weight_name_mapping === 'object' ? ir.weight_name_mapping : {};
    for (const [placeholder, original] of Object.entries(mapping)) {
      accepted.add(placeholder);
      if (typeof original === 'string') originals.add(original);
    }
    if (ir.constants && typeof ir.constants === 'object') for (const name of Object.keys(ir.constants)) originals.add(name);
    // A node input with no producer binds by its own name when nothing maps it
    // (hand-written IRs).
    for (const node of Array.isArray(ir.nodes) ? ir.nodes : []) {
      for (const input of Array.isArray(node?.inputs) ? node.inputs : []) {
        if (input && typeof input.name === 'string' && !input.producer_node) accepted.add(input.name);
      }
    }
  }
  for (const name of originals) accepted.add(name);
  return { accepted, originals: [...originals] };
}

// {name, shape, bytes} of each tensor in a source, or null when the keys
// can't be read here (torch.save archives: only the engine unpickles them).
// Malformed safetensors are left to the engine, which explains them.
function safetensorsEntries(bytes: Uint8Array): KeyEntry[] | null {
  if (bytes.length < 10 || bytes[8] !== 0x7b) return null; // '{'
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLen = Number(dv.getBigUint64(0, true));
  if (headerLen > bytes.length - 8) return null;
  let header: any;
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLen)));
  } catch {
    return null;
  }
  if (!header || typeof header !== 'object') return null;
  const base = 8 + headerLen;
  const out: KeyEntry[] = [];
  for (const [name, info] of Object.entries<any>(header)) {
    if (name === '__metadata__') continue;
    const [begin, end] = Array.isArray(info?.data_offsets) ? info.data_offsets : [];
    const inRange = Number.isSafeInteger(begin) && Number.isSafeInteger(end) && begin <= end && base + end <= bytes.length;
    if (!inRange || !Array.isArray(info.shape)) return null;
    out.push({ name, shape: info.shape, bytes: bytes.subarray(base + begin, base + end) });
  }
  return out;
}

function entriesOf(op: TensorOp): KeyEntry[] | null {
  if (op.tensor) return [{ name: op.tensor.name, shape: op.tensor.shape, bytes: op.tensor.bytes }];
  return safetensorsEntries(op.file!);
}

function sameEntry(a: KeyEntry, b: KeyEntry): boolean {
  if (!a.bytes || !b.bytes || !a.shape || !b.shape || a.bytes.length !== b.bytes.length) return false;
  if (a.shape.length !== b.shape.length || a.shape.some((d, i) => Number(d) !== Number(b.shape[i]))) return false;
  for (let i = 0; i < a.bytes.length; ++i) if (a.bytes[i] !== b.bytes[i]) return false;
  return true;
}

// Levenshtein distance, or max + 1 once it must exceed max (banded early exit).
function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; ++i) {
    const row: number[] = [i];
    let best = i;
    for (let j = 1; j <= b.length; ++j) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      best = Math.min(best, row[j]!);
    }
    if (best > max) return max + 1;
    prev = row;
  }
  return prev[b.length]!;
}

/** The accepted name closest to `key` (a likely typo), or undefined. */
export function closestKey(key: string, candidates: Iterable<string>): string | undefined {
  const max = Math.max(2, Math.floor(key.length / 5));
  let best: string | undefined;
  let bestDistance = max + 1;
  for (const c of candidates) {
    const d = editDistance(key, c, bestDistance - 1);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

/**
 * Keys in `ops` (collectTensors' list) that bind to nothing: not an accepted
 * name, not a BatchNorm `num_batches_tracked` counter (never read by
 * inference), not a tied alias (a copy, same shape and bytes, of a key that
 * does bind: state_dicts keep both `lm_head.weight` and the embedding it ties).
 */
export function unknownKeys(ops: readonly TensorOp[], accepted: Set<string>): string[] {
  const lists = ops.map(entriesOf).filter((l): l is KeyEntry[] => Boolean(l));
  const bound = lists.flat().filter((e) => accepted.has(e.name));
  const unknown: string[] = [];
  for (const e of lists.flat()) {
    if (accepted.has(e.name) || e.name.endsWith('num_batches_tracked')) continue;
    if (bound.some((b) => sameEntry(e, b))) continue;
    unknown.push(e.name);
  }
  return unknown;
}

/** The message for unknown keys of one kind ('weights' or 'constants'). */
export function unknownKeysMessage(kind: string, unknown: readonly string[], originals: readonly string[]): string {
  const shown = unknown.slice(0, SHOWN).map((k) => {
    const near = closestKey(k, originals);
    return near === undefined ? `'${k}'` : `'${k}' (did you mean '${near}'?)`;
  });
  const more = unknown.length > SHOWN ? `, and ${unknown.length - SHOWN} more` : '';
  const what = unknown.length === 1 ? '1 key matches' : `${unknown.length} keys match`;
  return `${kind}: ${what} no weight, buffer or constant of the IR: ${shown.join(', ')}${more}`;
}

/**
 * Warns about (or, strict, throws WeightLoadError for) keys of the weights
 * and constants sources that match no name in the IR(s).
 */
export function checkTensorKeys(sources: Record<string, readonly TensorOp[]>, irs: readonly any[], strict: boolean | undefined): void {
  const todo = Object.entries(sources).filter(([, ops]) => ops.length);
  if (!todo.length) return;
  if (irs.some((ir) => !ir || typeof ir !== 'object')) return; // unparsable IR: the engine reports it
  const { accepted, originals } = acceptedKeys(irs);
  for (const [kind, ops] of todo) {
    const unknown = unknownKeys(ops, accepted);
    if (!unknown.length) continue;
    const message = unknownKeysMessage(kind, unknown, originals);
    if (strict) throw new WeightLoadError(`${message} (strictWeights)`);
    warn(`${message}; ignored (strictWeights: true or the CLI's --strict-weights makes this an error)`);
  }
}
