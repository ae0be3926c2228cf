// Error classes mirroring the native engine's (src/core/errors.h). The WASM
// glue returns {"kind", "message"} JSON; the message is the native one.

/** Base class of the package's errors (also: a disposed model, WASM files that cannot be loaded). */
export class TorchIrError extends Error {
  constructor(message?: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
  /** The class name: 'IRFormatError', 'WeightLoadError', ... */
  get kind(): string {
    return this.name;
  }
}
/** The IR cannot be read (missing file, HTTP error), is malformed JSON (with line/column), or is not a valid IR. */
export class IRFormatError extends TorchIrError {}
/** Weights/constants cannot be read or parsed (truncated, hostile header), a given tensor does not fit, or a weight the graph needs is missing. */
export class WeightLoadError extends TorchIrError {}
/** Unsupported ops; bad inputs (missing, unknown, wrong shape/dtype/size); unknown outputs; invalid limits; kernel errors. */
export class ExecutionError extends TorchIrError {}
/** Expected values given to verify() that cannot be used (a mismatch is a report, not this error). */
export class VerificationError extends TorchIrError {}
/**
 * The engine trapped (out-of-bounds access, unreachable, abort, stack
 * overflow, a crashed pthread) or was called after such a trap: its WASM
 * instance was discarded and the next load builds a fresh one (lib/trap.js).
 * (Proxy mode: the worker died.)
 */
export class EngineTrapError extends ExecutionError {}

/** The engine's error kinds the glue names (`kind` of its JSON errors, `name` of its thrown ones). */
export type ErrorKind = 'IRFormatError' | 'WeightLoadError' | 'ExecutionError' | 'VerificationError';

const KINDS: Readonly<Record<string, typeof TorchIrError | undefined>> = { IRFormatError, WeightLoadError, ExecutionError, VerificationError };

// Parses the glue's error string ("" = success) into an Error, or null.
export function errorFromGlue(result: unknown, fallbackKind: string = 'Error'): TorchIrError | null {
  if (result === '' || result === undefined || result === null) return null;
  let kind = fallbackKind;
  let message = String(result);
  try {
    const o = JSON.parse(message);
    if (o && typeof o === 'object') {
      kind = o.kind || kind;
      message = o.message ?? message;
    }
  } catch {
    // not JSON: use the raw text as the message
  }
  const Cls = KINDS[kind] || TorchIrError;
  return new Cls(message);
}

// The glue's data-returning methods (or_throw in bindings/glue.h) throw a
// plain Error whose name is the engine's error kind: that error as its class,
// or null for anything else (a trap, an Embind error).
export function errorFromThrow(e: unknown): TorchIrError | null {
  if (!(e instanceof Error) || Object.getPrototypeOf(e) !== Error.prototype) return null;
  if (e.name === 'Error' || e.name === 'TorchIrError') return new TorchIrError(e.message, { cause: e });
  const Cls = KINDS[e.name];
  return Cls ? new Cls(e.message, { cause: e }) : null;
}

// Throws if the glue call failed.
export function check(result: unknown, fallbackKind?: ErrorKind): void {
  const err = errorFromGlue(result, fallbackKind);
  if (err) throw err;
}
