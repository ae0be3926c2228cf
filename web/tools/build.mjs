#!/usr/bin/env node
// Builds the viewer: copies the runtime dependencies the page loads from
// node_modules into web/vendor/ (no CDN, no bundler), and writes the
// synthetic scale-test IRs into web/samples/generated/ (not committed).
import { copyFileSync, mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { decoder, resnet50 } from './gen_ir.mjs';

const WEB = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(WEB, 'package.json'));
const dagreDir = dirname(require.resolve('@dagrejs/dagre/package.json'));
mkdirSync(join(WEB, 'vendor'), { recursive: true });
for (const f of ['dagre.esm.js', 'dagre.esm.js.LEGAL.txt']) copyFileSync(join(dagreDir, 'dist', f), join(WEB, 'vendor', f));
copyFileSync(join(dagreDir, 'LICENSE'), join(WEB, 'vendor', 'dagre.LICENSE'));
const gen = join(WEB, 'samples', 'generated');
mkdirSync(gen, { recursive: true });
writeFileSync(join(gen, 'resnet50.json'), JSON.stringify(resnet50()));
writeFileSync(join(gen, 'moe_decoder24.json'), JSON.stringify(decoder({ layers: 24, experts: 10 })));
if (!existsSync(join(WEB, '..', 'npm', 'dist', 'torch-ir-wasm-simd.wasm'))) {
  console.warn('warning: npm/dist is missing: run scripts/build_wasm.sh (the viewer cannot run models without it)');
}
console.log('built web/vendor/ and web/samples/generated/');
