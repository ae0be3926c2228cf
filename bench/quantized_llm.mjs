#!/usr/bin/env node
// Decode of the GPT-2-small-sized decoder in int4 against float32, our engine on WASM, side by
// side in one process (bench/quantized_llm.sh makes the models; bench/README.md, "Quantized LLM
// decode"). Variants, all loaded with loadLM into one backend at the same thread count:
//   f32        the float32 model (DIR/f32)
//   8da4w      torchao's 8da4w export of it (DIR/8da4w): the int4 x int8 kernels run its linears
//   f32:int4   the float32 model with weightDtype 'int4' (load-time quantization, groups of 32)
// Each round generates --new-tokens greedy tokens after the same 7-token prompt with every
// variant, in an order that rotates from round to round; a variant's decode tokens/s is the
// median over rounds of its generate()'s decode rate (stats.decodeTokensPerSecond), and the
// speed-up is the median over rounds of that round's variant rate / f32 rate.
// Checks (every round): f32's tokens equal Hugging Face generate()'s (DIR/f32/expected.json);
// 8da4w's follow generate() of PyTorch's quantized module (DIR/8da4w/expected.json) up to the
// first step where PyTorch's top-1 / top-2 margin is below 0.05, or where its generate() and the
// wrappers part (per-token activation
// quantization is chaotic there: tests/cpp/unit/quantized_lm_test.cpp); f32:int4 has no
// PyTorch run: the steps it shares with f32 are reported.
// Memory: the weight files' bytes and, per variant in a fresh process on the test build
// (build/wasm-test), the WASM heap malloc holds once it is loaded (weights as bound plus packed
// copies, caches and activation arenas).
//
//   node bench/quantized_llm.mjs --dir build/bench/quantized_llm --threads 1 [--rounds 4]
//        [--new-tokens 48] [--variants f32,8da4w,f32:int4] [--memory 0] [--json FILE]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { REPO, list, median, parseArgs, reexecWithEagerWasm, testBuildHeap } from './lib/common.mjs';

const PINNED_MARGIN = 0.05;

function variantFiles(dir, v) {
  const [folder, weightDtype] = v.split(':');
  const d = path.join(dir, folder);
  return {
    files: { prefill: path.join(d, 'prefill.json'), decode: path.join(d, 'decode.json'),
      kvMapping: path.join(d, 'kv_mapping.json'), weights: path.join(d, 'weights.safetensors') },
    weightDtype, expected: JSON.parse(fs.readFileSync(path.join(d, 'expected.json'), 'utf8')).prompts,
  };
}

// --memory-probe VARIANT: a child that loads one variant on the test build and prints the heap
// malloc holds for it.
async function memoryProbe(dir, v) {
  const heap = await testBuildHeap();
  if (!heap) return { error: 'build/wasm-test not built (scripts/build_wasm.sh --tests)' };
  const { files, weightDtype } = variantFiles(dir, v);
  const before = heap.inUse();
  const lm = await heap.tir.loadLM({ ...files, threads: 1, ...(weightDtype ? { weightDtype } : {}) });
  return { loaded_bytes: heap.inUse() - before, heap_bytes: heap.backend.heapBytes(), weights_bound: lm.placement()?.weights ?? null };
}

function runMemoryProbe(dir, v) {
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--dir', dir, '--memory-probe', v],
    { encoding: 'utf8', maxBuffer: 1 << 20, timeout: 600e3 });
  const line = (r.stdout || '').split('\n').find((l) => l.startsWith('{'));
  if (!line) return { error: `memory probe: exit ${r.status}: ${(r.stderr || '').trim().split('\n').slice(-2).join(' | ')}` };
  return JSON.parse(line);
}

// Steps up to the first thin margin, or to where PyTorch's own two paths (generate() and the
// exported wrappers' padded prompt and static cache) part.
function pinnedSteps(p) {
  let n = 0;
  while (n < p.top1_top2_margins.length && p.top1_top2_margins[n] >= PINNED_MARGIN &&
         p.generated_ids[n] === p.wrapper_ids[n]) n++;
  return n;
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  const dir = path.resolve(a.dir ?? path.join(REPO, 'build', 'bench', 'quantized_llm'));
  if (a.memory_probe) {
    process.stdout.write(JSON.stringify(await memoryProbe(dir, a.memory_probe)) + '\n');
    return;
  }
  reexecWithEagerWasm(import.meta.url, a.tiering ?? 'eager');
  const threads = Number(a.threads ?? 1);
  const rounds = Number(a.rounds ?? 4);
  const newTokens = Number(a.new_tokens ?? 48);
  const names = list(a.variants ?? 'f32,8da4w,f32:int4');
  if (names[0] !== 'f32') throw new Error('--variants must start with f32 (the baseline)');
  const memory = a.memory === '0' ? null : Object.fromEntries(names.map((v) => [v, runMemoryProbe(dir, v)]));

  const tir = await import(pathToFileURL(path.join(REPO, 'npm', 'index.js')).href);
  const vs = [];
  for (const name of names) {
    const { files, weightDtype, expected } = variantFiles(dir, name);
    const t0 = performance.now();
    const lm = await tir.loadLM({ ...files, threads, ...(weightDtype ? { weightDtype } : {}) });
    vs.push({ name, lm, expected, load_ms: performance.now() - t0, file_bytes: fs.statSync(files.weights).size,
      rates: [], prefill: [], tokens: null, weightDtype });
  }
  const prompt = vs[0].expected.find((p) => p.input_ids.length === 7) ?? vs[0].expected[0];
  const ids = prompt.input_ids;
  // warm-up: one short generation each (JIT, first-touch page faults)
  for (const v of vs) await v.lm.generate(ids, { maxNewTokens: 8 });

  const checks = {};
  for (let r = 0; r < rounds; r++) {
    const order = vs.map((_, i) => vs[(i + r) % vs.length]);
    for (const v of order) {
      const got = await v.lm.generate(ids, { maxNewTokens: newTokens });
      v.rates.push(v.lm.stats.decodeTokensPerSecond);
      v.prefill.push(v.lm.stats.prefillTokensPerSecond);
      if (v.tokens && v.tokens.join() !== got.join()) checks[v.name] = { pass: false, error: 'tokens changed between rounds' };
      v.tokens = got;
    }
  }
  for (const v of vs) {
    if (checks[v.name]) continue;
    const ref = v.expected.find((p) => p.input_ids.join() === ids.join());
    if (v.weightDtype) {
      const same = v.tokens.findIndex((x, i) => x !== vs[0].tokens[i]);
      checks[v.name] = { pass: true, note: 'no PyTorch run of load-time quantization', same_tokens_as_f32: same < 0 ? v.tokens.length : same };
    } else if (ref.top1_top2_margins) {
      const n = Math.min(pinnedSteps(ref), ref.generated_ids.length, v.tokens.length);
      const at = v.tokens.slice(0, n).findIndex((x, i) => x !== ref.generated_ids[i]);
      checks[v.name] = { pass: at < 0, pinned_steps: n, vs: 'PyTorch quantized generate()', ...(at >= 0 ? { first_diff: at } : {}) };
    } else {
      const n = Math.min(ref.generated_ids.length, v.tokens.length);
      const at = v.tokens.slice(0, n).findIndex((x, i) => x !== ref.generated_ids[i]);
      checks[v.name] = { pass: at < 0, compared: n, vs: 'Hugging Face generate()', ...(at >= 0 ? { first_diff: at } : {}) };
    }
  }
  const base = vs[0];
  const result = {
    threads, rounds, new_tokens: newTokens, prompt_len: ids.length,
    variants: Object.fromEntries(vs.map((v) => [v.name, {
      decode_tokens_per_s: median(v.rates), prefill_tokens_per_s: median(v.prefill),
      speedup_vs_f32: median(v.rates.map((x, r) => x / base.rates[r])),
      rates: v.rates, load_ms: v.load_ms, file_bytes: v.file_bytes,
      wasm_weight_bytes: v.lm.placement()?.weights?.wasm ?? null,
      heap_loaded_bytes: memory?.[v.name]?.loaded_bytes ?? null, check: checks[v.name],
    }])),
    ...(memory ? { memory_probe: memory } : {}),
    pass: Object.values(checks).every((c) => c.pass),
    variant: base.lm.backend.variant, engine_threads: base.lm.backend.threads,
    node: process.version, cpus: os.cpus().length, loadavg: os.loadavg(),
  };
  const json = JSON.stringify(result);
  if (a.json) fs.appendFileSync(a.json, json + '\n');
  process.stdout.write(json + '\n');
  const mb = (b) => (b == null ? '?' : (b / 1e6).toFixed(0));
  console.log(`\n| variant | threads | decode tok/s | x f32 | prefill tok/s | weights file MB | WASM heap after load MB | check |`);
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const [k, v] of Object.entries(result.variants)) {
    const c = v.check;
    const check = c.pass ? (c.pinned_steps !== undefined ? `PASS (${c.pinned_steps} pinned steps = ${c.vs})`
      : c.compared !== undefined ? `PASS (${c.compared} tokens = ${c.vs})` : `${c.same_tokens_as_f32} tokens = f32's`) : `FAIL ${JSON.stringify(c)}`;
    console.log(`| ${k} | ${threads} | ${v.decode_tokens_per_s.toFixed(1)} | ${v.speedup_vs_f32.toFixed(2)} | ${v.prefill_tokens_per_s.toFixed(0)} | ` +
      `${mb(v.file_bytes)} | ${mb(v.heap_loaded_bytes)} | ${check} |`);
  }
  for (const v of vs) v.lm.dispose();
}

main().then(
  () => process.exit(0), // the engine's worker threads would keep the process alive
  (e) => {
    process.stderr.write(`quantized_llm: ${e?.stack || e}\n`);
    process.exit(1);
  },
);
