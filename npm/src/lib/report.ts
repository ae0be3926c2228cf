// Text formatting shared by the CLI and the examples, matching the native
// CLI (src/verify/verify.cpp format_report, printf "%.6e"; src/verify/truth.cpp
// format_truth_report, "%.3e"). It stays in JS: formatReport is a public pure
// function of a report object, which may come from a worker (env.proxy) into a
// thread with no engine instance to ask. npm/test/cli.test.mjs compares it with
// the native CLI's text.

import type { Reference64Report, VerifyReport } from './model_types.js';

// printf("%.6e", v) as glibc prints it.
export function formatE(v: number): string {
  if (Number.isNaN(v)) return 'nan';
  if (v === Infinity) return 'inf';
  if (v === -Infinity) return '-inf';
  return v.toExponential(6).replace(/e([+-])(\d)$/, 'e$10$2');
}

export function shapeText(shape: ArrayLike<number>): string {
  return '[' + Array.from(shape).join(', ') + ']';
}

// printf("%.3e", v), as format_truth_report prints its numbers.
function e3(v: number): string {
  if (Number.isNaN(v)) return 'nan';
  if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
  return v.toExponential(3).replace(/e([+-])(\d)$/, 'e$10$2');
}

// The float64 lines of verify's report (reference64: the engine's compareWithTruth result).
function formatTruthReport(t: Omit<Reference64Report, "reassociationOnly">, rtolFailed: boolean): string {
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

/** The native CLI's verification report for a verify() result. */
export function formatReport(r: VerifyReport): string {
  let s = `Verification ${r.isValid ? 'PASSED' : 'FAILED'}\n`;
  s += `  outputs: ${r.numOutputs}\n`;
  s += `  max_diff: ${formatE(r.maxDiff)}\n`;
  s += `  mean_diff: ${formatE(r.meanDiff)}\n`;
  for (const o of r.outputDetails) {
    s += `  output ${o.index} ${shapeText(o.shape)}: ${o.isClose ? 'close' : 'NOT close'}, ` +
      `max_diff ${formatE(o.maxDiff)}, mean_diff ${formatE(o.meanDiff)}\n`;
  }
  if (r.errorMessage) s += `  error: ${r.errorMessage}\n`;
  if (r.reference64) s += formatTruthReport(r.reference64, !r.isValid);
  return s;
}
