#!/usr/bin/env node
// Does relaxed SIMD's fused multiply-add pay on this CPU? microkernel.c holds the 4 x 8 f32 tile of
// src/kernels/gemm.cpp's WASM micro-kernel twice: with SIMD128's multiply then add (what the engine
// runs) and with relaxed_madd. run.sh compiles it with the sid chroot's Emscripten (Debian's 3.1.6
// has only pre-standard relaxed opcodes); this times both in one process, alternating in rounds,
// under Node's --experimental-wasm-relaxed-simd (Node 20's V8 has it behind that flag; Chromium
// ships it). Prints GFLOP/s per round: the register-resident kernel's ceiling, no packing or stores.
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const js = process.argv[2] ?? path.join(process.cwd(), 'build/relaxed_simd/microkernel.mjs');
const m = await (await import(pathToFileURL(js).href)).default();
m._init();
const reps = 20000, flops = reps * 256 * 64;  // K = 256 steps of 4 x 8 multiply-adds (2 flops each)
for (const f of ['k_muladd', 'k_fma']) m[`_${f}`](200);
const res = { k_muladd: [], k_fma: [] };
for (let r = 0; r < 6; ++r) {
  for (const f of r % 2 ? ['k_fma', 'k_muladd'] : ['k_muladd', 'k_fma']) {
    const t0 = performance.now();
    m[`_${f}`](reps);
    res[f].push(flops / ((performance.now() - t0) * 1e6));
  }
}
const med = (v) => [...v].sort((a, b) => a - b)[v.length >> 1];
for (const [k, v] of Object.entries(res)) console.log(`${k}: ${v.map((x) => x.toFixed(1)).join(' ')} GFLOP/s per round`);
console.log(`relaxed_madd / mul+add: ${(med(res.k_fma) / med(res.k_muladd)).toFixed(2)}x`);
