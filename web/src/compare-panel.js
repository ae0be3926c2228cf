// "Where does the GPU go wrong?": after a WebGPU run, the summary's Compare button runs the model
// on WebGPU, on WASM and in float64 with the same inputs (compareProviders) and shows the first
// node whose GPU output is outside its bound, with the values of each run, linked to the graph.
import { compareProviders } from '../../npm/index.js';
import { esc, fmtNum, link } from './format.js';

/** The Compare button and its result box, for a run on WebGPU (run-panel.js's summary). */
export function compareHtml(run) {
  if (!run.placement) return '';
  return '<div id="compare" style="margin-top:8px"><button id="btn-compare" data-compare title="Run every node on WebGPU, on WASM and in float64, and name the first GPU output outside its bound">' +
    'Compare each node with WASM and float64</button><div id="compare-result"></div></div>';
}

function resultHtml(r, S) {
  const m = r.firstMismatch;
  const name = (node) => {
    const n = S.graph?.opByName.get(node);
    return n ? link(n.id, node) : esc(node);
  };
  let h = m
    ? `<div><span class="verdict bad">first mismatch</span> node ${name(m.node)} <span class="mono">${esc(m.opType)}</span> on ${esc(m.device)}, output <code>${esc(m.output)}</code></div>` +
      '<table style="margin-top:6px"><tr><th>at</th><th>WebGPU</th><th>WASM</th>' + (m.float64 !== undefined ? '<th>float64</th>' : '') + '<th>error</th><th>bound</th></tr>' +
      `<tr id="compare-values"><td class="mono">[${m.position.join(', ')}]</td><td class="num">${fmtNum(m.webgpu)}</td><td class="num">${fmtNum(m.wasm)}</td>` +
      (m.float64 !== undefined ? `<td class="num">${fmtNum(m.float64)}</td>` : '') + `<td class="num">${fmtNum(m.error)}</td><td class="num">${fmtNum(m.bound)}</td></tr></table>`
    : '<div><span class="verdict ok">every node within its bound</span></div>';
  h += `<pre class="muted">${esc(r.text)}</pre>`;
  const judged = r.nodes.filter((c) => c.judged);
  h += `<details><summary class="muted">${judged.length} node outputs judged</summary><table><tr><th>node</th><th>device</th><th>error</th><th>bound</th><th></th></tr>` +
    judged.map((c) => `<tr><td>${name(c.node)}</td><td class="muted">${esc(c.device)}</td><td class="num">${fmtNum(c.error)}</td><td class="num">${fmtNum(c.bound)}</td><td>${c.ok ? '\u2714' : '\u2718'}</td></tr>`).join('') +
    '</table></details>';
  return h;
}

/** Wires the Compare button of the run panel: S is the viewer's state (irText, weights, run). */
export function wireCompare(panel, S, { message, busy, goTo }) {
  panel.addEventListener('click', async (ev) => {
    if (!ev.target.closest('[data-compare]')) return;
    const out = panel.querySelector('#compare-result');
    const btn = ev.target.closest('[data-compare]');
    btn.disabled = true;
    busy(true, 'Comparing\u2026');
    try {
      const r = await compareProviders(S.irText, { weights: S.weights.slice(0), inputs: S.run.inputs });
      out.innerHTML = resultHtml(r, S);
      if (r.firstMismatch) {
        const n = S.graph?.opByName.get(r.firstMismatch.node);
        if (n) goTo(n.id);
      }
      message(r.firstMismatch ? `first GPU mismatch: ${r.firstMismatch.node}` : 'every node within its bound', Boolean(r.firstMismatch));
    } catch (e) {
      out.innerHTML = `<span class="verdict bad">ERROR</span> <pre>${esc(e.message || e)}</pre>`;
    } finally {
      btn.disabled = false;
      busy(false);
    }
  });
}
