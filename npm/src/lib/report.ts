// Text helpers of the CLI and the examples. The verify report's words come
// from the engine (src/verify: format_report, format_truth_report), carried in
// the report as `text`, so they exist once and reach a thread with no engine
// (env.proxy) with the report itself.

import type { VerifyReport } from './model_types.js';

export function shapeText(shape: ArrayLike<number>): string {
  return '[' + Array.from(shape).join(', ') + ']';
}

/** The native CLI's verification report for a verify() result: its `text`. */
export function formatReport(r: VerifyReport): string {
  if (typeof r?.text !== 'string') throw new TypeError('formatReport: not a verify() result (it has no text)');
  return r.text;
}
