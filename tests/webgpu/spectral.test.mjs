// Whisper's audio front end on WebGPU: pad in reflect / replicate / circular mode (pad.wgsl),
// stft (stft.wgsl: a direct DFT with exact phase indices) and the magnitude of its complex64
// output (abs: hypot over the float32 pairs), each through the engine's lowering against the
// CPU (whose FFT runs in double, so its float32 results are the truth rounded once).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gpuTest } from './gpu.mjs';
import { rng, hostTensor, assertClose } from './ref.mjs';
import { getEngine, checkLowered, lowered, runBoth } from './engine.mjs';

test('pad in reflect, replicate and circular modes; reflection/replication_padNd (WebGPU provider vs CPU, exact)', gpuTest(async (t, gpu) => {
  const eng = await getEngine();
  if (!eng) { t.skip('npm/dist not built'); return; }
  const rand = rng(130);
  const padded = (shape, pad) => shape.map((s, d) => {
    const k = shape.length - 1 - d;
    return 2 * k < pad.length ? s + pad[2 * k] + pad[2 * k + 1] : s;
  });
  const cases = [
    [[1, 1, 1600], [32, 32]], [[2, 3, 7], [6, 1]], [[1, 5], [4, 0]], [[2, 3, 5, 4], [3, 2, 1, 4]],
    [[1, 2, 3, 4, 5], [1, 2, 0, 2, 2, 1]], [[3, 1], [0, 0]],
  ];
  for (const [shape, pad] of cases) {
    const x = hostTensor(rand, 'float32', shape);
    for (const mode of ['reflect', 'replicate', 'circular']) {
      const npad = pad.length / 2;
      if (mode === 'reflect' && pad.some((p, i) => p >= shape[shape.length - 1 - Math.floor(i / 2)])) continue;
      if (mode === 'circular' && pad.some((p, i) => p > shape[shape.length - 1 - Math.floor(i / 2)])) continue;
      if (shape.length !== npad + 1 && shape.length !== npad + 2) continue;
      const out = [{ shape: padded(shape, pad), dtype: 'float32' }];
      await checkLowered(eng, gpu, 'aten.pad.default', [x], out, { pad, mode });
      if (shape.length >= 2) await checkLowered(eng, gpu, 'aten.pad.default', [x], out, { pad, mode }, { transposed: [0] });
      if (mode !== 'circular' && npad <= 3) {
        const op = `aten.${mode === 'reflect' ? 'reflection' : 'replication'}_pad${npad}d.default`;
        await checkLowered(eng, gpu, op, [x], out, { padding: pad });
      }
    }
  }
  // int64 and bool inputs move as they are
  const ids = hostTensor(rand, 'int32', [2, 9], 'contiguous', { lo: -5, hi: 50 });
  await checkLowered(eng, gpu, 'aten.pad.default', [ids], [{ shape: [2, 14], dtype: 'int32' }], { pad: [3, 2], mode: 'reflect' });
  const mask = hostTensor(rand, 'bool', [3, 4]);
  await checkLowered(eng, gpu, 'aten.pad.default', [mask], [{ shape: [3, 6], dtype: 'bool' }], { pad: [1, 1], mode: 'replicate' });
}));

// The largest |value| of a host tensor's data.
const peak = (h) => Math.max(...Array.from(h.storage, (v) => Math.abs(v)));

test('stft: windows narrower than n_fft, odd and even n_fft, hops, batches, normalized, two-sided (WebGPU provider vs CPU)', gpuTest(async (t, gpu) => {
  const eng = await getEngine();
  if (!eng) { t.skip('npm/dist not built'); return; }
  const rand = rng(131);
  // [signal shape, n_fft, hop, win_length (null: none), normalized, onesided]
  const cases = [
    [[1, 1664], 64, 16, 64, false, null], [[2, 300], 31, 7, 20, true, true], [[400], 400, 160, 400, false, null],
    [[3, 97], 16, 5, null, false, false], [[1, 17], 17, 1, 1, false, true], [[2, 1000], 400, 160, 400, false, null],
  ];
  for (const [shape, nFft, hop, win, normalized, onesided] of cases) {
    const x = hostTensor(rand, 'float32', shape);
    const frames = 1 + Math.floor((shape.at(-1) - nFft) / hop);
    const bins = onesided === false ? nFft : Math.floor(nFft / 2) + 1;
    const outShape = [...(shape.length === 2 ? [shape[0]] : []), bins, frames, 2];
    const inputs = [x];
    const attrs = { n_fft: nFft, hop_length: hop, win_length: win, normalized, onesided, return_complex: false };
    if (win !== null) inputs.push(hostTensor(rand, 'float32', [win], 'contiguous', { lo: 0, hi: 1 }));
    for (const transposed of shape.length === 2 ? [[], [0]] : [[]]) {
      const what = `stft ${JSON.stringify(shape)} n_fft ${nFft} hop ${hop} win ${win}${transposed.length ? ' transposed' : ''}`;
      const r = await lowered(eng, gpu.device, 'aten.stft.default', inputs, [{ shape: outShape, dtype: 'float32' }], attrs, { transposed });
      assert.equal(r.placement.nodes.wasm, 0, `${what}: ${JSON.stringify(r.placement.nodes)}`);
      // The CPU's FFT runs in double: its float32 result is the truth rounded once. Ours: terms
      // rounded once each, summed in blocks of 16; the scale is the terms' (|x| |w| <= peak).
      const scale = peak(x) * (normalized ? 1 / Math.sqrt(nFft) : 1);
      assertClose(r.gpu[0], r.cpu[0], { rtol: 1e-5, atol: 5e-7 * Math.sqrt(nFft) * scale, what });
    }
  }
}));

test('Whisper\'s front end: reflect pad, stft to complex64, a slice of it, abs, squared (WebGPU provider vs CPU)', gpuTest(async (t, gpu) => {
  const eng = await getEngine();
  if (!eng) { t.skip('npm/dist not built'); return; }
  const rand = rng(132);
  const T = (name, shape, dtype = 'float32', extra = {}) => ({ name, shape, dtype, ...extra });
  const ref = (name, shape, dtype = 'float32') => T(name, shape, dtype, { producer_node: name, producer_output_idx: 0 });
  const [L, nFft, hop] = [1200, 80, 20];
  const P = L + nFft;
  const frames = 1 + Math.floor((P - nFft) / hop);
  const bins = nFft / 2 + 1;
  const ir = { model_name: 'LogMel', weights: [], weight_name_mapping: {},
    graph_inputs: [T('audio', [1, 1, L]), T('window', [nFft])], graph_outputs: [T('power', [1, bins, frames - 1])],
    nodes: [
      { name: 'pad', op_type: 'aten.pad.default', attrs: { pad: [nFft / 2, nFft / 2], mode: 'reflect' }, inputs: [ref('audio', [1, 1, L])], outputs: [T('pad', [1, 1, P])] },
      { name: 'flat', op_type: 'aten.view.default', attrs: { size: [1, P] }, inputs: [ref('pad', [1, 1, P])], outputs: [T('flat', [1, P])] },
      { name: 'stft', op_type: 'aten.stft.default', attrs: { n_fft: nFft, hop_length: hop, win_length: null, normalized: false, onesided: null, return_complex: true },
        inputs: [ref('flat', [1, P]), ref('window', [nFft])], outputs: [T('stft', [1, bins, frames], 'complex64')] },
      { name: 'sl', op_type: 'aten.slice.Tensor', attrs: { dim: 2, start: 0, end: -1 }, inputs: [ref('stft', [1, bins, frames], 'complex64')], outputs: [T('sl', [1, bins, frames - 1], 'complex64')] },
      { name: 'mag', op_type: 'aten.abs.default', attrs: {}, inputs: [ref('sl', [1, bins, frames - 1], 'complex64')], outputs: [T('mag', [1, bins, frames - 1])] },
      { name: 'power', op_type: 'aten.pow.Tensor_Scalar', attrs: { exponent: 2 }, inputs: [ref('mag', [1, bins, frames - 1])], outputs: [T('power', [1, bins, frames - 1])] },
    ] };
  const audio = hostTensor(rand, 'float32', [1, 1, L], 'contiguous', { lo: -0.5, hi: 0.5 });
  const hann = { dtype: 'float32', shape: [nFft], strides: [1], offset: 0,
    storage: Float32Array.from({ length: nFft }, (_, n) => 0.5 - 0.5 * Math.cos((2 * Math.PI * n) / nFft)) };
  const r = await runBoth(eng, gpu.device, ir, [audio, hann]);
  assert.equal(r.placement.nodes.wasm, 0, JSON.stringify(r.placement));
  // |X|^2: relative error ~ 2 x the magnitude's, against a scale of the largest power.
  const top = Math.max(...r.cpu[0]);
  assertClose(r.gpu[0], r.cpu[0], { rtol: 2e-5, atol: 1e-6 * top, what: 'power spectrum' });
}));
