// Fidelity against a float64 reference (verify's { reference64 }), the same rules as the
// native src/verify/truth.cpp: per floating output,
//   error(x) = max_i |x_i - truth_i|  (equal infinities count 0; NaN or a mismatched infinity: Infinity)
//   scale    = max_i |truth_i| over finite truth values
//   withinBound = error(ours) <= 2 * error(reference) + 1e-6 * scale
// where "reference" is the `expected` outputs (PyTorch float32). Non-floating outputs are not
// judged here (verify compares them exactly).

import type { Reference64Output } from './model_types.js';
import type { TypedArray } from './tensor_types.js';

/** A tensor as compared here: its shape, dtype and data. */
export interface TruthTensor {
  shape: readonly number[];
  dtype: string;
  data: TypedArray;
}

/** compareWithTruth's result (verify's reference64 without reassociationOnly). */
export interface TruthComparison {
  withinBound: boolean;
  outputs: Reference64Output[];
  errorMessage: string | null;
}

export const TRUTH_FACTOR = 2;
export const TRUTH_SCALE_TOL = 1e-6;

const FLOATING = new Set(['float32', 'float64', 'float16', 'bfloat16']);

function halfToNumber(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const f = h & 0x3ff;
  if (e === 0) return s * f * 2 ** -24;
  if (e === 31) return f ? NaN : s * Infinity;
  return s * (1 + f / 1024) * 2 ** (e - 15);
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
function bf16ToNumber(h: number): number {
  u32[0] = h << 16;
  return f32[0];
}

// {data, dtype} -> element i as a number.
function reader({ data, dtype }: TruthTensor): (i: number) => number {
  if (dtype === 'float16') return (i) => halfToNumber(data[i] as number);
  if (dtype === 'bfloat16') return (i) => bf16ToNumber(data[i] as number);
  return (i) => Number(data[i]);
}

function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((d, i) => Number(d) === Number(b[i]));
}

export function maxErrorVsTruth(x: TruthTensor, truth: TruthTensor): number {
  const a = reader(x);
  const t = reader(truth);
  let m = 0;
  for (let i = 0; i < truth.data.length; ++i) {
    const p = a(i);
    const q = t(i);
    if (p === q) continue;
    const d = Math.abs(p - q);
    if (!Number.isFinite(d)) return Infinity;
    if (d > m) m = d;
  }
  return m;
}

/**
 * actual, expected, truth: [{shape, dtype, data}] in graph_outputs order.
 * -> {withinBound, outputs: [{index, judged, ours, reference, scale, bound, withinBound}], errorMessage}
 */
export function compareWithTruth(actual: readonly TruthTensor[], expected: readonly TruthTensor[], truth: readonly TruthTensor[]): TruthComparison {
  if (actual.length !== truth.length || expected.length !== truth.length) {
    return {
      withinBound: false, outputs: [],
      errorMessage: `output count mismatch: ${actual.length} outputs, ${expected.length} reference, ${truth.length} float64 reference`,
    };
  }
  let all = true;
  let errorMessage: string | null = null;
  const outputs = truth.map((t, index) => {
    const o: Reference64Output = { index, judged: false, ours: 0, reference: 0, scale: 0, bound: 0, withinBound: true };
    if (!sameShape(actual[index].shape, t.shape) || !sameShape(expected[index].shape, t.shape)) {
      errorMessage = `output ${index}: shape [${actual[index].shape.join(', ')}] (reference [${expected[index].shape.join(', ')}]) but the float64 reference is [${t.shape.join(', ')}]`;
      Object.assign(o, { ours: Infinity, reference: Infinity, withinBound: false });
    } else if (FLOATING.has(actual[index].dtype) && FLOATING.has(t.dtype)) {
      const q = reader(t);
      let scale = 0;
      for (let i = 0; i < t.data.length; ++i) {
        const v = Math.abs(q(i));
        if (Number.isFinite(v) && v > scale) scale = v;
      }
      o.judged = true;
      o.scale = scale;
      o.ours = maxErrorVsTruth(actual[index], t);
      o.reference = maxErrorVsTruth(expected[index], t);
      o.bound = TRUTH_FACTOR * o.reference + TRUTH_SCALE_TOL * scale;
      o.withinBound = o.ours <= o.bound;
    }
    all = all && o.withinBound;
    return o;
  });
  return { withinBound: all, outputs, errorMessage };
}

// The native CLI's lines (format_truth_report, "%.3e").
function e3(v: number): string {
  if (Number.isNaN(v)) return 'nan';
  if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
  return v.toExponential(3).replace(/e([+-])(\d)$/, 'e$10$2');
}

export function formatTruthReport(t: TruthComparison, rtolFailed: boolean): string {
  let s = 'Float64 reference (error = max |x - float64|, bound = 2 x PyTorch\'s + 1e-6 x max|float64|):\n';
  for (const o of t.outputs) {
    s += `  output ${o.index}: `;
    if (!o.judged && Number.isFinite(o.ours)) {
      s += 'not floating (compared exactly above)\n';
      continue;
    }
    const ratio = o.reference > 0 ? o.ours / o.reference : (o.ours > 0 ? Infinity : 1);
    s += `ours ${e3(o.ours)}, PyTorch ${e3(o.reference)}, ratio ${e3(ratio)}, scale ${e3(o.scale)}: ` +
      `${o.withinBound ? 'within' : 'OUTSIDE'} bound ${e3(o.bound)}\n`;
  }
  if (t.errorMessage) s += `  error: ${t.errorMessage}\n`;
  if (rtolFailed) {
    s += t.withinBound
      ? '  => the rtol/atol failure is only reassociation: our error vs float64 is within 2x PyTorch\'s\n'
      : '  => not only reassociation: our error vs float64 exceeds 2x PyTorch\'s\n';
  }
  return s;
}
