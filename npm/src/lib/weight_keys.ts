// Weight/constant keys that match nothing in the IR. The engine binds by the
// IR's names and never looks at the rest, so a typo ('conv1.wieght') or a
// state_dict of another model would pass unnoticed. The engine finds such keys
// and words the message (src/runtime/weight_keys.cpp, the same as the native
// CLI's) from the IR it has parsed; JS only adds strictWeights' wording and
// warns or throws.
import { WeightLoadError } from './errors.js';
import { warn } from './warn.js';
import type { EmbindObject } from './backend.js';

/**
 * Warns about (or, strict, throws WeightLoadError for) keys of the weights and
 * constants given to `handle` (a WasmModel after loadIR, or a WasmLM after load)
 * that match no name in its IR(s).
 */
export function checkTensorKeys(handle: EmbindObject, strict: boolean | undefined): void {
  for (const kind of ['weights', 'constants']) {
    const message = String(handle.unknownKeysMessage(kind));
    if (!message) continue;
    if (strict) throw new WeightLoadError(`${message} (strictWeights)`);
    warn(`${message}; ignored (strictWeights: true or the CLI's --strict-weights makes this an error)`);
  }
}
