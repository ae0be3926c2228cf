// Run results as HTML: the per-node time heat values, the legend, the summary with the
// verification report, the sorted timing table and the output previews.
import { formatReport } from '../../npm/index.js';
import { shortOp } from './graph.js';
import { themeColors } from './render.js';
import { esc, fmtMs, fmtNum, shapeText, previewTensor, link } from './format.js';
import { compareHtml } from './compare-panel.js';

// Heat per visible scene item (ops, collapsed blocks, open block boxes), on a sqrt scale of the
// largest op or collapsed-block time; open boxes get a tint but no label.
export function nodeHeat(S) {
  const heat = new Map();
  const val = new Map();
  for (const n of S.scene.nodes) {
    if (n.kind === 'op') val.set(n.id, S.profile.byNode.get(n.ref.name) || 0);
    else if (n.kind === 'group') val.set(n.id, n.members.reduce((a, m) => a + (m.kind === 'op' ? S.profile.byNode.get(m.name) || 0 : 0), 0));
  }
  for (const b of S.scene.boxes) {
    let ms = 0;
    for (const n of S.graph.nodes) if (n.kind === 'op' && (n.block === b.path || n.block.startsWith(b.path + '.'))) ms += S.profile.byNode.get(n.name) || 0;
    val.set(b.id, ms);
  }
  let max = 0;
  for (const [id, v] of val) if (!id.startsWith('box:')) max = Math.max(max, v);
  for (const [id, v] of val) heat.set(id, { t: max > 0 ? Math.min(1, Math.sqrt(v / max)) : 0, text: v > 0 && !id.startsWith('box:') ? fmtMs(v) : '' });
  return { heat, max };
}

export function legendHtml(heat, max = 0) {
  if (heat) {
    const c = themeColors();
    return `<span>node time</span><span>0<span class="ramp" style="background:linear-gradient(90deg,${c.heat.join(',')})"></span>${fmtMs(max)}</span><span class="muted">(sqrt scale)</span>`;
  }
  const items = [['compute', 'conv / linear / matmul'], ['attention', 'attention / softmax'], ['norm', 'norm'], ['activation', 'activation'], ['pool', 'pool / reduce'], ['elementwise', 'elementwise'], ['shape', 'view / shape']];
  const cs = getComputedStyle(document.documentElement);
  const sw = (f, s) => `<i style="background:${cs.getPropertyValue(f)};border-color:${cs.getPropertyValue(s)}"></i>`;
  return items.map(([k, t]) => `<span>${sw('--cat-' + k, '--cat-' + k + '-stroke')}${t}</span>`).join('') +
    `<span>${sw('--io-fill', '--io-stroke')}input / output</span><span>${sw('--weight-fill', '--weight-stroke')}weight (dashed)</span><span>${sw('--group-fill', '--group-stroke')}collapsed block</span>`;
}

// WASM: the build and its threads; WebGPU: where the compute nodes ran.
function backendText(r) {
  const wasm = `${esc(r.backend.variant)} \u00b7 ${r.backend.threads} thread${r.backend.threads > 1 ? 's' : ''}${r.backend.proxy ? ' \u00b7 worker' : ''}`;
  if (!r.placement) return wasm;
  const n = r.placement.nodes;
  return `WebGPU \u00b7 ${n.webgpu} of ${n.webgpu + n.wasm} nodes on the GPU${n.wasm ? ` (rest: ${wasm})` : ''}`;
}

export function runSummaryHtml(S) {
  const r = S.run;
  let h = `<div class="summary-grid"><span class="muted">total time</span><span class="muted">sum of node times</span><span class="muted">backend</span><span class="muted">inputs</span>` +
    `<b id="run-total" title="median of ${S.profile.runs} runs after a warm-up">${fmtMs(r.totalMs)}</b><b>${fmtMs(S.profile.total)}</b><b id="run-backend">${backendText(r)}</b><b>${r.random ? 'random' : esc(S.ioName)}</b></div>`;
  if (r.report) {
    const rep = r.report;
    h += `<div id="verify-report"><span class="verdict ${rep.isValid ? 'ok' : 'bad'}">Verification ${rep.isValid ? 'PASSED' : 'FAILED'}</span> <span class="muted">rtol = atol = 1e-5 \u00b7 max diff ${fmtNum(rep.maxDiff)} \u00b7 mean diff ${fmtNum(rep.meanDiff)}</span>`;
    h += '<table style="margin-top:8px"><tr><th>output</th><th>shape</th><th>close</th><th>max diff</th><th>mean diff</th></tr>' +
      rep.outputDetails.map((o) => `<tr><td>${o.index}</td><td class="mono">${esc(shapeText(o.shape))}</td><td>${o.isClose ? '\u2714 close' : '\u2718 NOT close'}</td><td class="num">${fmtNum(o.maxDiff)}</td><td class="num">${fmtNum(o.meanDiff)}</td></tr>`).join('') + '</table>';
    if (rep.errorMessage) h += `<div class="muted">${esc(rep.errorMessage)}</div>`;
    h += `<details style="margin-top:8px"><summary class="muted">CLI report</summary><pre>${esc(formatReport(rep))}</pre></details></div>`;
  } else h += '<div class="muted">No expected outputs: load an io.safetensors (output.&lt;i&gt; tensors) to verify.</div>';
  // On WebGPU: each node that stayed on WASM, and why (placement().wasmNodes).
  const kept = r.placement?.wasmNodes ?? [];
  if (kept.length) {
    h += `<details id="wasm-nodes" style="margin-top:8px"><summary class="muted">${kept.length} node${kept.length === 1 ? '' : 's'} kept on WASM, and why</summary>` +
      '<table><tr><th>node</th><th>op</th><th>why</th></tr>' +
      kept.map((w) => `<tr><td class="mono">${esc(w.node)}</td><td class="mono">${esc(w.opType)}</td><td>${esc(w.why)}</td></tr>`).join('') + '</table></details>';
  }
  return h + compareHtml(r);
}

export function timingHtml(S) {
  const rows = [...S.profile.byNode].sort((a, b) => b[1] - a[1]);
  const max = rows.length ? rows[0][1] : 1;
  // On WebGPU each row says where it ran (a WASM row is a segment of WASM nodes, named by its first).
  const dev = S.profile.devices?.size ? (name) => `<td class="muted">${esc(S.profile.devices.get(name) || '')}</td>` : null;
  return `<table id="timing-table"><tr><th>#</th><th>node</th><th>op</th><th>block</th>${dev ? '<th>device</th>' : ''}<th>time</th><th>%</th><th style="width:160px"></th></tr>` +
    rows.map(([name, ms], i) => {
      const n = S.graph.opByName.get(name);
      // A fused row: the producer's op and the ops its kernel also ran (batch norm, add, gelu...).
      const op = [n, ...(S.profile.fused?.get(name) || []).map((f) => S.graph.opByName.get(f))]
        .filter(Boolean).map((m) => shortOp(m.opType)).join(' + ');
      return `<tr><td class="num muted">${i + 1}</td><td>${n ? link(n.id, name) : esc(name)}</td><td class="mono">${esc(op)}</td><td class="muted">${esc(n?.block || '')}</td>${dev ? dev(name) : ''}<td class="num">${fmtMs(ms)}</td><td class="num">${((100 * ms) / (S.profile.total || 1)).toFixed(1)}</td><td><div class="bar" style="width:${Math.max(1, (150 * ms) / max).toFixed(0)}px"></div></td></tr>`;
    }).join('') + '</table>';
}

export function outputsHtml(run) {
  return run.outputs.map((o, i) => `<div><b>output ${i}</b> <code>${esc(o.name)}</code><pre>${esc(previewTensor(o))}</pre></div>`).join('');
}
