// Inspector panel HTML for the selected node, weight, graph input/output or module block.
import { shortOp } from './graph.js';
import { esc, fmtMs, fmtNum, shapeText, numel, tensorStats, previewTensor, link, row, blockLink, attrText } from './format.js';

// `id` is a graph node id, or 'group:<path>' (a collapsed block) / 'box:<path>' (an open one).
export function inspectorHtml(S, id) {
  if (id.startsWith('group:') || id.startsWith('box:')) {
    return inspectGroup(S, S.graph.groups.get(id.slice(id.indexOf(':') + 1)), id.startsWith('group:'));
  }
  const n = S.graph.byId.get(id);
  return n.kind === 'op' ? inspectOp(S, n) : n.kind === 'weight' ? inspectWeight(S, n) : inspectIo(S, n);
}

function inspectOp(S, n) {
  const ir = n.ir;
  const t = S.profile?.byNode.get(n.name);
  let h = `<span class="kind">op \u00b7 ${esc(n.category)}</span><h2>${esc(shortOp(n.opType))}</h2><div class="mono muted">${esc(n.name)}</div>`;
  h += '<table>' + row('op type', `<code>${esc(n.opType)}</code>`) + row('block', blockLink(n.block)) + (t !== undefined ? row('time', `<b>${fmtMs(t)}</b> (${((100 * t) / S.profile.total).toFixed(1)}% of nodes)`) : '') + '</table>';
  const attrs = Object.entries(ir.attrs || {});
  h += `<h3>Attributes (${attrs.length})</h3>`;
  h += attrs.length ? '<table>' + attrs.map(([k, v]) => row(k, `<code>${esc(attrText(v))}</code>`)).join('') + '</table>' : '<div class="muted">none</div>';
  h += `<h3>Inputs (${(ir.inputs || []).length})</h3>`;
  (ir.inputs || []).forEach((inp, i) => {
    let src;
    if (inp.producer_node != null) {
      const p = S.graph.opByName.get(inp.producer_node);
      src = p ? `from ${link(p.id, p.name)}${inp.producer_output_idx ? ` [${inp.producer_output_idx}]` : ''}` : `graph input ${link('input_' + inp.producer_node, inp.producer_node)}`;
    } else if (S.graph.byId.has('w_' + inp.name)) {
      const w = S.graph.byId.get('w_' + inp.name);
      src = `${w.wkind} ${link(w.id, inp.name)} \u2192 <code>${esc(w.original)}</code>`;
    } else src = `graph input ${link('input_' + inp.name, inp.name)}`;
    h += `<div class="io"><div class="h"><span class="idx">#${i}</span><code>${esc(inp.name)}</code></div><div>${src}</div><div class="mono muted">${esc(shapeText(inp.shape))} ${esc(inp.dtype)}</div></div>`;
  });
  h += `<h3>Outputs (${(ir.outputs || []).length})</h3>`;
  (ir.outputs || []).forEach((o, i) => {
    const users = consumersOf(S, n, i);
    h += `<div class="io"><div class="h"><span class="idx">#${i}</span><code>${esc(o.name)}</code></div><div class="mono muted">${esc(shapeText(o.shape))} ${esc(o.dtype)}</div>` +
      `<div>${users.length ? '\u2192 ' + users.map((u) => link(u.id, u.kind === 'output' ? u.label : u.name)).join(', ') : '<span class="muted">no consumers</span>'}</div></div>`;
  });
  return h;
}
function consumersOf(S, n, outIdx) {
  const res = [];
  for (const e of S.graph.edges) {
    if (e.from !== n.id) continue;
    if ((e.meta.producer_output_idx || 0) !== outIdx && e.to.startsWith('op_')) continue;
    const t = S.graph.byId.get(e.to);
    if (!res.includes(t)) res.push(t);
  }
  return res;
}

function inspectWeight(S, w) {
  let h = `<span class="kind">${esc(w.wkind)}</span><h2>${esc(w.name)}</h2><div class="mono muted">${esc(w.original)}</div>`;
  h += '<table>' + row('shape', `<code>${esc(shapeText(w.shape))}</code>`) + row('dtype', esc(w.dtype)) + row('elements', numel(w.shape).toLocaleString()) + row('block', blockLink(w.block)) +
    row('used by', w.users.map((u) => link(u.id, u.name)).join(', ')) + '</table>';
  const t = S.weightTensors?.get(w.original) || S.weightTensors?.get(w.name);
  const c = !t && S.graph.ir.constants?.[w.original];
  h += '<h3>Values</h3>';
  if (t || c) {
    const data = t ? t.data : c.data.flat(Infinity);
    const st = tensorStats({ data });
    h += '<table class="stats">' + row('min', fmtNum(st.min)) + row('max', fmtNum(st.max)) + row('mean', fmtNum(st.mean)) + row('std', fmtNum(st.std)) + '</table>';
    h += `<h3>First values</h3><pre>${esc(Array.from(data.slice(0, 16), fmtNum).join(', '))}${data.length > 16 ? ', \u2026' : ''}</pre>`;
  } else h += `<div class="muted">${S.weights ? 'not in the weights file (constant or unused)' : 'load weights (.safetensors) to see statistics'}</div>`;
  return h;
}

function inspectIo(S, n) {
  let h = `<span class="kind">graph ${n.kind}</span><h2>${esc(n.kind === 'input' ? n.name : n.label)}</h2>`;
  h += '<table>' + row('name', `<code>${esc(n.name)}</code>`) + row('shape', `<code>${esc(shapeText(n.shape))}</code>`) + row('dtype', esc(n.dtype));
  if (n.kind === 'input') {
    const users = S.graph.edges.filter((e) => e.from === n.id).map((e) => S.graph.byId.get(e.to));
    h += row('consumers', [...new Set(users)].map((u) => link(u.id, u.name)).join(', '));
  } else {
    const e = S.graph.edges.find((x) => x.to === n.id);
    if (e) h += row('producer', link(e.from, S.graph.byId.get(e.from).name));
  }
  h += '</table>';
  const out = n.kind === 'output' && S.run?.outputs?.[Number(n.id.slice(7))];
  if (out) h += `<h3>Last run</h3><pre>${esc(previewTensor(out))}</pre>`;
  return h;
}

function inspectGroup(S, g, collapsed) {
  const members = [];
  const walk = (p) => {
    const gg = S.graph.groups.get(p);
    members.push(...gg.nodes);
    gg.children.forEach(walk);
  };
  walk(g.path);
  const ops = new Map();
  let params = 0;
  let ms = 0;
  for (const n of members) {
    if (n.kind === 'op') {
      ops.set(shortOp(n.opType), (ops.get(shortOp(n.opType)) || 0) + 1);
      ms += S.profile?.byNode.get(n.name) || 0;
    } else if (n.kind === 'weight') params += numel(n.shape);
  }
  let h = `<span class="kind">module block${collapsed ? ' \u00b7 collapsed' : ''}</span><h2>${esc(g.path)}</h2>`;
  h += '<table>' + row('parent', blockLink(g.parent)) + row('ops', g.opCount) + row('weight elements', params.toLocaleString()) + row('sub-blocks', g.children.length ? g.children.map((c) => blockLink(c)).join(', ') : 'none') + (S.profile ? row('time', `<b>${fmtMs(ms)}</b>`) : '') + '</table>';
  h += `<div class="actions"><button data-toggle="${esc(g.path)}">${collapsed ? 'Expand' : 'Collapse'}</button>${collapsed ? `<button data-expand-deep="${esc(g.path)}">Expand all inside</button>` : ''}</div>`;
  h += '<h3>Op types</h3><table>' + [...ops].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([k, v]) => row(k, v)).join('') + '</table>';
  return h;
}
