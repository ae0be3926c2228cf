// Copied into a fresh project that ran only `npm i TARBALL` (scripts/test_package.sh):
// CommonJS require() of the ESM package (Node ^20.19 / >=22.12) runs a fixture model.
// Usage: node app_cjs.cjs MODEL_DIR
const { loadIR, parseSafetensors, splitIo } = require('torch-ir-wasm');
const { version } = require('torch-ir-wasm/package.json');
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

async function main(dir) {
  const io = splitIo(parseSafetensors(readFileSync(join(dir, 'io.safetensors'))));
  const model = await loadIR(join(dir, 'model.json'), { weights: join(dir, 'weights.safetensors') });
  const report = await model.verify(io.inputs, io.outputs);
  if (!report.isValid) throw new Error(`CommonJS: outputs differ from PyTorch's: ${report.errorMessage}`);
  console.log(`CommonJS require (torch-ir-wasm ${version}): matches PyTorch (max diff ${report.maxDiff.toExponential(2)})`);
  model.dispose();
}
main(process.argv[2]).catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
