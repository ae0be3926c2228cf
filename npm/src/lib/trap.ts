// Dead-instance recovery. A hostile file can still make the engine trap
// (RuntimeError: memory access out of bounds / unreachable, an Emscripten
// abort, RangeError: Maximum call stack size exceeded) or a pthread crash;
// after that the module's memory may be corrupted (a later good model once
// failed with "Unsupported op type(s)" because the op registry was
// overwritten). So every call into the module goes through Backend.call():
// any exception that is not the engine's own error discards the instance
// (every Model / LanguageModel on it fails clearly from then on), the loader
// builds a fresh one for the next load, and the caller gets an EngineTrapError.
import { EngineTrapError, TorchIrError, errorFromThrow } from './errors.js';
import type { Backend, EmbindObject } from './backend.js';

export function describeThrow(e: unknown): string {
  if (e === 'unwind') return "'unwind' (a pthread of the module crashed while this thread waited for it)";
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  return String(e);
}

// The error thrown at the call that found the instance trapped.
export function trapError(variant: string, what: string, e: unknown): EngineTrapError {
  return new EngineTrapError(
    `the WASM engine (${variant}) trapped in ${what}: ${describeThrow(e)}. Its instance was discarded ` +
      '(the models and language models loaded on it can no longer be used) and a fresh one is built for ' +
      'the next load',
    { cause: e },
  );
}

// The error of every later call into a discarded instance.
export function deadError(variant: string, what: string, reason: string): EngineTrapError {
  return new EngineTrapError(
    `${what}: the WASM instance (${variant}) this object was loaded on was discarded after a trap (${reason}); ` +
      'load the model again',
  );
}

/**
 * Wraps an Embind handle so each method call goes through backend.call().
 * delete() on a discarded instance does nothing: its whole memory is dropped
 * with it, and calling in again could trap again.
 */
export function guardHandle(backend: Backend, handle: EmbindObject, owner: string): EmbindObject {
  const wrapped = new Map<string | symbol, (...args: unknown[]) => unknown>();
  return new Proxy(handle, {
    get(target, prop) {
      const v = target[prop];
      if (typeof v !== 'function') return v;
      let f = wrapped.get(prop);
      if (!f) {
        const what = `${owner}.${String(prop)}()`;
        f = prop === 'delete'
          ? () => { if (!backend.dead) backend.call(what, () => target.delete()); }
          : (...args: unknown[]) => backend.call(what, () => v.apply(target, args));
        wrapped.set(prop, f);
      }
      return f;
    },
  });
}

/** Turns an exception from the module into the engine's error or a trap (see Backend.call). */
export function classify(backend: Backend, what: string, e: unknown): TorchIrError {
  if (e instanceof TorchIrError) return e;
  const mapped = errorFromThrow(e); // the glue's data-returning methods throw Error{name: kind}
  if (mapped) return mapped;
  backend.kill(`${what}: ${describeThrow(e)}`);
  return trapError(backend.variant, what, e);
}
