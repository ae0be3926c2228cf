// Error classes mirroring the native engine's (src/ir/errors.h). The WASM
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

// Throws if the glue call failed.
export function check(result, fallbackKind) {
  const err = errorFromGlue(result, fallbackKind);
  if (err) throw err;
}
