// Copied into a fresh project that ran only `npm i TARBALL` (scripts/test_package.sh):
// the package's ESM entry runs a fixture model. Usage: node app_esm.mjs MODEL_DIR
import { loadIR, execute, verify, parseSafetensors, splitIo } from 'torch-ir-wasm';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2];
const io = splitIo(parseSafetensors(readFileSync(join(dir, 'io.safetensors'))));
const model = await loadIR(join(dir, 'model.json'), { weights: join(dir, 'weights.safetensors') });
const [out] = await execute(model, io.inputs);
const report = await verify(model, io.inputs, io.outputs);
if (!report.isValid) throw new Error(`ESM: outputs differ from PyTorch's: ${report.errorMessage}`);
console.log(`ESM import: ${out.name} [${out.shape}] matches PyTorch (max diff ${report.maxDiff.toExponential(2)})`);
model.dispose();
