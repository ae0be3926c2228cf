// IR JSON -> display graph: nodes (graph inputs, op nodes, weight placeholders,
// graph outputs), data-flow edges, and module blocks derived from the weight
// placeholders each op reads (p_layer1_0_conv1_weight -> layer1.0.conv1).
// Pure (no DOM): the tests and the bench import it too.

export const shapeStr = (shape) => (shape && shape.length ? shape.join('x') : 'scalar');

/** `aten.conv2d.default` -> `conv2d`, `aten.add.Tensor` -> `add.Tensor` (as ir_to_mermaid). */
export function shortOp(op) {
  let s = String(op);
  if (s.startsWith('aten.')) s = s.slice(5);
  if (s.endsWith('.default')) s = s.slice(0, -8);
  return s;
}

/** Coarse op family, used for node colors. */
export function opCategory(op) {
  const s = shortOp(op).replace(/_?\..*$/, '').replace(/_$/, '');
  if (/conv|linear|matmul|^mm$|bmm|addmm|baddbmm|einsum|embedding/.test(s)) return 'compute';
  if (/attention|softmax/.test(s)) return 'attention';
  if (/norm/.test(s)) return 'norm';
  if (/relu|gelu|silu|sigmoid|tanh|hardswish|hardtanh|hardsigmoid|elu|mish|leaky|softplus|clamp/.test(s)) return 'activation';
  if (/pool|upsample|interpolate|mean|sum|amax|amin|max$|min$/.test(s)) return 'pool';
  if (/view|reshape|permute|transpose|flatten|unflatten|squeeze|unsqueeze|expand|contiguous|slice|select|cat|stack|split|chunk|unbind|getitem|clone|alias|to$|_to_copy|copy|t$|index|gather|narrow|repeat|_assert|dropout|detach/.test(s)) return 'shape';
  return 'elementwise';
}

const parentPath = (p) => {
  const i = p.lastIndexOf('.');
  return i < 0 ? '' : p.slice(0, i);
};
const isUnder = (p, anc) => anc === '' || p === anc || p.startsWith(anc + '.');
function lca(a, b) {
  if (a === b) return a;
  const x = a.split('.');
  const y = b.split('.');
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) ++i;
  return x.slice(0, i).join('.');
}

/** Module path of a weight placeholder: its original state_dict key without the last part. */
export function weightModule(placeholder, mapping) {
  const key = mapping[placeholder] ?? placeholder.replace(/^[pbc]_/, '');
  return key.includes('.') ? parentPath(key) : '';
}

/**
 * Builds the display graph.
 * Node ids follow ir_to_mermaid: input_<name>, op_<node>, w_<placeholder>, output_<i>.
 */
export function buildGraph(ir) {
  const mapping = ir.weight_name_mapping || {};
  const nodes = [];
  const edges = [];
  const byId = new Map();
  const add = (n) => {
    n.index = nodes.length;
    nodes.push(n);
    byId.set(n.id, n);
    return n;
  };
  const weightMeta = new Map();
  for (const w of ir.weights || []) weightMeta.set(w.name, w);
  const inputNames = new Set();
  for (const g of ir.graph_inputs || []) {
    inputNames.add(g.name);
    add({ id: 'input_' + g.name, kind: 'input', name: g.name, label: g.name, sub: shapeStr(g.shape), shape: g.shape, dtype: g.dtype, block: '' });
  }
  const opByName = new Map();
  for (const n of ir.nodes || []) {
    const out0 = n.outputs && n.outputs[0];
    const node = add({
      id: 'op_' + n.name, kind: 'op', name: n.name, opType: n.op_type, label: shortOp(n.op_type),
      sub: out0 ? shapeStr(out0.shape) : '', category: opCategory(n.op_type), ir: n, block: '',
      weights: [], preds: [], succs: [],
    });
    opByName.set(n.name, node);
    for (let i = 0; i < (n.outputs || []).length; ++i) opByName.set(n.outputs[i].name, node);
  }
  // Edges, in node order; weights get one node per distinct placeholder.
  for (const n of ir.nodes || []) {
    const dst = opByName.get(n.name);
    (n.inputs || []).forEach((inp, k) => {
      let src = null;
      let dashed = false;
      const prod = inp.producer_node;
      if (prod != null) {
        if (inputNames.has(prod) && !opByName.has(prod)) src = byId.get('input_' + prod);
        else src = opByName.get(prod) || (inputNames.has(prod) ? byId.get('input_' + prod) : null);
      } else if (inputNames.has(inp.name)) {
        src = byId.get('input_' + inp.name);
      } else {
        const wid = 'w_' + inp.name;
        src = byId.get(wid);
        if (!src) {
          const orig = mapping[inp.name] ?? inp.name;
          const meta = weightMeta.get(orig) || weightMeta.get(inp.name) || inp;
          const prefix = inp.name.slice(0, 2);
          // long placeholders: keep the p_/b_/c_ prefix and the part below the module
          const leaf = orig.split('.').slice(-2).join('_');
          const label = inp.name.length > 30 && /^[pbc]_/.test(inp.name) ? prefix + '\u2026' + leaf : inp.name;
          src = add({
            id: wid, kind: 'weight', name: inp.name, original: orig, label, sub: shapeStr(inp.shape),
            shape: meta.shape || inp.shape, dtype: meta.dtype || inp.dtype,
            wkind: prefix === 'b_' ? 'buffer' : prefix === 'c_' ? 'constant' : 'parameter',
            block: weightModule(inp.name, mapping), users: [],
          });
        }
        src.users.push(dst);
        dst.weights.push(src);
        dashed = true;
      }
      if (!src) return; // dangling reference: nothing to draw
      if (src.kind === 'op') {
        src.succs.push(dst);
        dst.preds.push(src);
      }
      edges.push({ from: src.id, to: dst.id, label: shapeStr(inp.shape), dashed, inIdx: k, meta: inp });
    });
  }
  (ir.graph_outputs || []).forEach((o, i) => {
    const out = add({ id: 'output_' + i, kind: 'output', name: o.name, label: 'Output ' + i, sub: shapeStr(o.shape), shape: o.shape, dtype: o.dtype, block: '' });
    const src = opByName.get(o.producer_node ?? o.name) || byId.get('input_' + o.name);
    if (src) {
      edges.push({ from: src.id, to: out.id, label: shapeStr(o.shape), dashed: false, inIdx: 0, meta: o });
      if (src.kind === 'op') src.toOutput = true;
    }
  });
  assignBlocks(nodes);
  const groups = buildGroups(nodes);
  return { ir, nodes, edges, byId, groups, opByName };
}

// Weighted op: the common module of its weights. Weightless op: if it only feeds
// (through other weightless ops) one weighted op, it prepares that op's input and
// joins that op's parent block (e.g. RMSNorm's pow/mean/rsqrt); otherwise it joins
// its latest producer's block (a weighted producer contributes its parent block:
// relu after layer1.0.bn1 -> layer1.0).
function assignBlocks(nodes) {
  const ops = nodes.filter((n) => n.kind === 'op');
  for (const n of ops) {
    if (n.weights.length) n.block = n.weights.map((w) => w.block).reduce(lca);
  }
  const contrib = (p) => (p.weights.length ? parentPath(p.block) : p.block);
  // The one weighted op a weightless op feeds through other weightless ops:
  // a node, null (none), or MANY (several, or a graph output). Reverse node order
  // is reverse topological order, so one pass suffices.
  const MANY = {};
  const wc = new Map();
  for (let i = ops.length - 1; i >= 0; --i) {
    const n = ops[i];
    if (n.weights.length) continue;
    let r = n.toOutput ? MANY : null;
    for (const s of n.succs) {
      if (r === MANY) break;
      const x = s.weights.length ? s : wc.get(s);
      if (x == null) continue;
      r = x === MANY || (r && r !== x) ? MANY : x;
    }
    wc.set(n, r);
  }
  const soleWeightedConsumer = (n) => {
    const r = wc.get(n);
    return r === MANY ? null : r;
  };
  const pending = [];
  for (const n of ops) {
    if (n.weights.length) continue;
    const c = n.toOutput ? null : soleWeightedConsumer(n);
    let fwd = null;
    if (n.preds.length) {
      let latest = n.preds[0];
      for (const p of n.preds) if (p.index > latest.index) latest = p;
      fwd = contrib(latest);
    }
    const cons = c ? parentPath(c.block) : null;
    if (cons === null && fwd === null) pending.push(n);
    else if (cons === null) n.block = fwd;
    else if (fwd === null) n.block = cons;
    else {
      // prefer the more specific block, except right below the consumer's
      // (a norm's pow/mean/rsqrt after a residual add belong to the layer)
      const dc = cons ? cons.split('.').length : 0;
      const df = fwd ? fwd.split('.').length : 0;
      n.block = isUnder(fwd, cons) && df - dc <= 1 ? cons : df >= dc ? fwd : cons;
    }
  }
  // Ops without op producers (arange, zeros...) join their first consumer's block.
  for (const n of pending.reverse()) {
    const s = n.succs[0];
    n.block = s ? contrib(s) : '';
  }
}

function buildGroups(nodes) {
  const groups = new Map();
  const ensure = (path) => {
    if (path === '' || groups.has(path)) return;
    const parent = parentPath(path);
    ensure(parent);
    let label = path.slice(parent ? parent.length + 1 : 0);
    // `layer1.0` reads better than `0`
    if (/^\d+$/.test(label) && parent) label = parent.slice(parent.lastIndexOf('.') + 1) + '.' + label;
    groups.set(path, { path, parent, depth: path.split('.').length, label, children: [], nodes: [], count: 0, opCount: 0 });
    if (parent) groups.get(parent).children.push(path);
  };
  for (const n of nodes) {
    if (n.block) ensure(n.block);
  }
  for (const n of nodes) {
    if (!n.block) continue;
    groups.get(n.block).nodes.push(n);
    for (let p = n.block; p; p = parentPath(p)) {
      const g = groups.get(p);
      g.count++;
      if (n.kind === 'op') g.opCount++;
    }
  }
  return groups;
}

export { parentPath, isUnder };

/** Graph statistics as the viewer shows them. */
export function graphStats(g) {
  return { nodes: g.nodes.length, edges: g.edges.length, groups: g.groups.size };
}
