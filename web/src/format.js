// Formatting and small HTML builders shared by the inspector and the run panel.

export const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
export const fmtMs = (ms) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms >= 1 ? ms.toFixed(2) : ms.toFixed(3)) + ' ms';
export const fmtNum = (v) => (typeof v === 'bigint' ? v.toString() : Number.isInteger(v) ? String(v) : Math.abs(v) >= 1e4 || (Math.abs(v) < 1e-3 && v !== 0) ? v.toExponential(3) : v.toFixed(5));
export const shapeText = (s) => '[' + (s || []).join(', ') + ']';
export const numel = (s) => (s || []).reduce((a, b) => a * b, 1);
export const link = (id, text) => `<a data-goto="${esc(id)}">${esc(text)}</a>`;
export const row = (k, v) => `<tr><td>${esc(k)}</td><td>${v}</td></tr>`;
export const blockLink = (path) => (path ? `<a data-block="${esc(path)}">${esc(path)}</a>` : '<span class="muted">(top level)</span>');
export function attrText(v) {
  if (v === null) return 'None';
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  return typeof v === 'string' ? v : JSON.stringify(v);
}

export function tensorStats(t) {
  const d = t.data;
  let mn = Infinity;
  let mx = -Infinity;
  let sum = 0;
  let sq = 0;
  const n = d.length;
  for (let i = 0; i < n; ++i) {
    const v = Number(d[i]);
    if (v < mn) mn = v;
    if (v > mx) mx = v;
    sum += v;
    sq += v * v;
  }
  const mean = n ? sum / n : NaN;
  const std = n > 1 ? Math.sqrt(Math.max(0, (sq - n * mean * mean) / (n - 1))) : 0;
  return { min: mn, max: mx, mean, std, n };
}

export function previewTensor(t) {
  const st = tensorStats(t);
  const first = Array.from(t.data.slice(0, 8), fmtNum).join(', ');
  return `${shapeText(t.shape)} ${t.dtype}\nmin ${fmtNum(st.min)}  max ${fmtNum(st.max)}  mean ${fmtNum(st.mean)}\n[${first}${t.data.length > 8 ? ', \u2026' : ''}]`;
}
