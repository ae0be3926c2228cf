// Error classes mirroring the native engine's (src/core/errors.h). The WASM
// glue returns {"kind", "message"} JSON; the message is the native one.

export class TorchIrError extends Error {
  constructor(message, options) {
    super(message, options);
    this.name = new.target.name;
  }
  get kind() {
    return this.name;
  }
}
export class IRFormatError extends TorchIrError {}
export class WeightLoadError extends TorchIrError {}
export class ExecutionError extends TorchIrError {}
export class VerificationError extends TorchIrError {}
/**
 * The engine trapped (out-of-bounds access, unreachable, abort, stack
 * overflow, a crashed pthread) or was called after such a trap: its WASM
 * instance was discarded and the next load builds a fresh one (lib/trap.js).
 */
export class EngineTrapError extends ExecutionError {}

const KINDS = { IRFormatError, WeightLoadError, ExecutionError, VerificationError };

// Parses the glue's error string ("" = success) into an Error, or null.
export function errorFromGlue(result, fallbackKind = 'Error') {
  if (result === '' || result === undefined || result === null) return null;
  let kind = fallbackKind;
  let message = String(result);
  try {
    const o = JSON.parse(result);
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
export function errorFromThrow(e) {
  if (!(e instanceof Error) || Object.getPrototypeOf(e) !== Error.prototype) return null;
  if (e.name === 'Error' || e.name === 'TorchIrError') return new TorchIrError(e.message, { cause: e });
  const Cls = KINDS[e.name];
  return Cls ? new Cls(e.message, { cause: e }) : null;
}

// Throws if the glue call failed.
export function check(result, fallbackKind) {
  const err = errorFromGlue(result, fallbackKind);
  if (err) throw err;
}
