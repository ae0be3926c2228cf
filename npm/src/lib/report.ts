// Text formatting shared by the CLI and the examples, matching the native
// CLI (src/verify/verify.cpp format_report, printf "%.6e").

import { formatTruthReport } from './truth.js';
import type { VerifyReport } from './model_types.js';

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
