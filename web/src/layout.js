// Layered layout (top to bottom) with dagre, nested: every expanded module box is
// laid out on its own (its members plus an in-port at the top and an out-port at
// the bottom), then placed as one fixed-size node in its parent's layout. dagre's
// own compound mode is far slower (superlinear in the whole graph); this keeps
// each dagre run small, so expanding one block costs about that block's layout.
// Edges that cross box borders are routed through the ports.
// Shared by the page (small graphs) and layout-worker.js (large ones).
//
// spec: {nodes: [{id, w, h, parent}], edges: [{id, from, to, lw, lh, dashed}], boxes: [{id, parent}]}
// result: {nodes: {id: {x, y, w, h}}, edges: {id: {points: [x0, y0, x1, y1...], lx, ly}},
//          boxes: {id: {x, y, w, h}}, width, height}   (x, y: centers)

export const BOX_PAD = 12;
export const BOX_HEADER = 28;

// Per-container results, keyed by what the container's layout depends on: expanding
// one block re-runs dagre only for that block and its ancestors.
const cache = new Map();
const LABEL_LIMIT = 60; // levels with more members get no edge-label dummies (2x faster)
export let RANKER = 'tight-tree';
export function setRanker(r) {
  RANKER = r;
}

export function runLayout(dagre, spec) {
  const parentOf = new Map();
  const size = new Map();
  const isBox = new Set();
  const children = new Map([[null, []]]);
  for (const b of spec.boxes) {
    isBox.add(b.id);
    children.set(b.id, []);
  }
  const minW = new Map();
  for (const b of spec.boxes) {
    minW.set(b.id, b.minW || 0);
    parentOf.set(b.id, b.parent || null);
    children.get(b.parent || null).push(b.id);
  }
  for (const n of spec.nodes) {
    parentOf.set(n.id, n.parent || null);
    size.set(n.id, [n.w, n.h]);
    children.get(n.parent || null).push(n.id);
  }
  const depth = new Map([[null, 0]]);
  const depthOf = (c) => {
    if (depth.has(c)) return depth.get(c);
    const d = depthOf(parentOf.get(c)) + 1;
    depth.set(c, d);
    return d;
  };
  // Per container: level edges between its children, and port edges.
  const level = new Map();
  const lv = (c) => {
    let l = level.get(c);
    if (!l) level.set(c, (l = { edges: new Map(), ins: new Set(), outs: new Set() }));
    return l;
  };
  const plans = [];
  for (const e of spec.edges) {
    if (!parentOf.has(e.from) || !parentOf.has(e.to)) continue;
    // climb to the lowest common container
    let a = e.from;
    let b = e.to;
    const outHops = []; // [container, child] from the source side, innermost first
    const inHops = [];
    while (parentOf.get(a) !== parentOf.get(b)) {
      const pa = parentOf.get(a);
      const pb = parentOf.get(b);
      if (depthOf(pa) >= depthOf(pb)) {
        outHops.push([pa, a]);
        lv(pa).outs.add(a);
        a = pa;
      } else {
        inHops.push([pb, b]);
        lv(pb).ins.add(b);
        b = pb;
      }
    }
    const c = parentOf.get(a);
    const key = a + '\u0000' + b;
    const l = lv(c);
    const le = l.edges.get(key);
    if (le) le.n++;
    else l.edges.set(key, { from: a, to: b, n: 1, lw: e.lw, lh: e.lh, dashed: e.dashed, id: 'l' + l.edges.size });
    plans.push({ e, c, a, b, outHops, inHops: inHops.reverse() });
  }
  // Lay out containers deepest first. Members are renamed to their index in the
  // container, so structurally equal blocks (resnet bottlenecks, decoder layers)
  // share one cached dagre run.
  const containers = [...children.keys()].sort((x, y) => depthOf(y) - depthOf(x));
  const local = new Map(); // container -> {pos: [[x, y]] by member index, routes: Map 'i>j' -> route, portIn/portOut: Map index -> pts, w, h, gw}
  const index = new Map(); // member id -> index in its container
  for (const c of containers) {
    const kids = children.get(c);
    kids.forEach((k, i) => index.set(k, i));
    const l = level.get(c) || { edges: new Map(), ins: new Set(), outs: new Set() };
    const sizeOf = (k) => (isBox.has(k) ? [local.get(k).w, local.get(k).h] : size.get(k));
    const edges = [...l.edges.values()];
    const labels = kids.length <= LABEL_LIMIT && edges.some((e) => e.n === 1 && e.lw);
    const sig = [c === null ? 'root' : 'box' + minW.get(c), labels, kids.map((k) => sizeOf(k).join(',')).join(';'),
      edges.map((e) => `${index.get(e.from)}>${index.get(e.to)}:${e.n === 1 ? e.lw : 0}:${e.dashed ? 1 : 0}`).join(';')].join('|');
    let res = cache.get(sig);
    if (!res) {
      res = layoutLevel(dagre, c === null ? -1 : minW.get(c), kids.map(sizeOf), edges.map((e) => ({ from: index.get(e.from), to: index.get(e.to), n: e.n, lw: e.lw, lh: e.lh, dashed: e.dashed })), labels);
      if (cache.size > 5000) cache.clear();
      cache.set(sig, res);
    }
    local.set(c, res);
  }
  // Absolute placement, top down. origin = top-left of the container's inner area.
  const out = { nodes: {}, edges: {}, boxes: {}, width: 0, height: 0 };
  const origin = new Map();
  const root = local.get(null);
  const M = 24;
  origin.set(null, [M, M]);
  out.width = root.w + 2 * M;
  out.height = root.h + 2 * M;
  for (const c of [...containers].reverse()) {
    const [ox, oy] = origin.get(c);
    const L = local.get(c);
    for (const k of children.get(c)) {
      const [x, y] = L.pos[index.get(k)];
      const ax = ox + x;
      const ay = oy + y;
      if (isBox.has(k)) {
        const B = local.get(k);
        out.boxes[k] = { x: ax, y: ay, w: B.w, h: B.h };
        origin.set(k, [ax - B.w / 2 + (B.w - B.gw) / 2, ay - B.h / 2 + BOX_HEADER]);
      } else {
        const s = size.get(k);
        out.nodes[k] = { x: ax, y: ay, w: s[0], h: s[1] };
      }
    }
  }
  const shift = (c, arr) => {
    const [ox, oy] = origin.get(c);
    const r = new Array(arr.length);
    for (let i = 0; i < arr.length; i += 2) {
      r[i] = arr[i] + ox;
      r[i + 1] = arr[i + 1] + oy;
    }
    return r;
  };
  // A crossing edge leaves its source node's bottom and enters its target's top,
  // following the bend points of the route between the two outermost boxes.
  for (const p of plans) {
    const r = local.get(p.c).routes.get(index.get(p.a) + '>' + index.get(p.b));
    const routed = shift(p.c, r.pts);
    let pts = routed;
    // Deep inside a box, a straight line would cut through the box's members:
    // run along the box's inner margin instead (a lane on the side nearer the node).
    if (p.outHops.length) {
      const s0 = out.nodes[p.e.from];
      const A = out.boxes[p.outHops[p.outHops.length - 1][0]];
      const bottom = A.y + A.h / 2;
      if (bottom - (s0.y + s0.h / 2) > 90) {
        const right = s0.x > A.x;
        const lane = right ? A.x + A.w / 2 - 5 : A.x - A.w / 2 + 5;
        pts = [s0.x + (right ? s0.w / 2 : -s0.w / 2), s0.y, lane, s0.y, lane, bottom, ...pts.slice(2)];
      } else pts = [s0.x, s0.y + s0.h / 2, ...pts.slice(2)];
    }
    if (p.inHops.length) {
      const t = out.nodes[p.e.to];
      const B = out.boxes[p.inHops[0][0]];
      const top = B.y - B.h / 2;
      if (t.y - t.h / 2 - top > 90) {
        const right = t.x > B.x;
        const lane = right ? B.x + B.w / 2 - 5 : B.x - B.w / 2 + 5;
        pts = [...pts.slice(0, pts.length - 2), lane, top, lane, t.y, t.x + (right ? t.w / 2 : -t.w / 2), t.y];
      } else pts = [...pts.slice(0, pts.length - 2), t.x, t.y - t.h / 2];
    }
    const [ox, oy] = origin.get(p.c);
    out.edges[p.e.id] = { points: pts, free: r.free, lx: r.lx === undefined || p.outHops.length || p.inHops.length ? undefined : r.lx + ox, ly: r.ly + oy };
  }
  return out;
}

// One container: members 0..n-1 with sizes, edges between members, in/out ports.
function layoutLevel(dagre, boxMinW, sizes, edges, labels) {
  const isBoxLevel = boxMinW >= 0;
  const chain = chainOrder(sizes.length, edges);
  if (chain) return stackLevel(isBoxLevel, boxMinW, sizes, edges, chain, labels);
  const g = new dagre.graphlib.Graph({ multigraph: true });
  g.setGraph({ rankdir: 'TB', nodesep: 24, ranksep: labels ? 20 : 36, edgesep: 10, marginx: 0, marginy: 0, ranker: RANKER });
  g.setDefaultEdgeLabel(() => ({}));
  sizes.forEach((s, i) => g.setNode(String(i), { width: s[0], height: s[1] }));
  // A source that feeds many members (rotary cos/sin into every decoder layer) would
  // make dagre thread a dummy chain through every rank: draw those edges straight.
  const fan = new Map();
  for (const e of edges) fan.set(e.from, (fan.get(e.from) || 0) + 1);
  const free = (e) => sizes.length > 30 && fan.get(e.from) > 6;
  edges.forEach((e, j) => {
    if (free(e)) return;
    const lab = { weight: e.dashed ? 1 : 2, minlen: 1 };
    if (labels && e.n === 1 && e.lw) Object.assign(lab, { width: e.lw, height: e.lh, labelpos: 'c' });
    g.setEdge(String(e.from), String(e.to), lab, 'e' + j);
  });
  dagre.layout(g);
  const gg = g.graph();
  const flat = (ps) => ps.flatMap((p) => [p.x, p.y]);
  const pos = sizes.map((_, i) => {
    const v = g.node(String(i));
    return [v.x, v.y];
  });
  const routes = new Map();
  edges.forEach((e, j) => {
    if (free(e)) {
      const [ax, ay] = pos[e.from];
      const [bx, by] = pos[e.to];
      routes.set(e.from + '>' + e.to, { pts: [ax, ay + sizes[e.from][1] / 2, bx, by - sizes[e.to][1] / 2], free: true });
      return;
    }
    const ed = g.edge({ v: String(e.from), w: String(e.to), name: 'e' + j });
    routes.set(e.from + '>' + e.to, { pts: flat(ed.points), lx: labels && e.n === 1 && e.lw ? ed.x : undefined, ly: ed.y });
  });
  let w = gg.width || 0;
  let h = gg.height || 0;
  if (isBoxLevel) {
    // room for the header; a box is never narrower than its title
    w = Math.max(w + 2 * BOX_PAD, 120, boxMinW);
    h = h + BOX_HEADER + BOX_PAD;
  }
  return { pos, routes, w, h, gw: gg.width || 0 };
}

// Members connected as one simple path (sequential layers, bottleneck blocks):
// the order, else null. Such levels are stacked without dagre.
function chainOrder(n, edges) {
  if (n < 2 || edges.length !== n - 1) return null;
  const next = new Array(n).fill(-1);
  const indeg = new Array(n).fill(0);
  for (const e of edges) {
    if (e.from === e.to || next[e.from] !== -1) return null;
    next[e.from] = e.to;
    if (++indeg[e.to] > 1) return null;
  }
  const start = indeg.indexOf(0);
  const order = [];
  for (let v = start; v !== -1 && order.length <= n; v = next[v]) order.push(v);
  return order.length === n ? order : null;
}

function stackLevel(isBoxLevel, boxMinW, sizes, edges, order, labels) {
  const gap = labels ? 40 : 36;
  const width = Math.max(...sizes.map((s) => s[0]));
  const pos = new Array(sizes.length);
  let y = 0;
  for (const k of order) {
    pos[k] = [width / 2, y + sizes[k][1] / 2];
    y += sizes[k][1] + gap;
  }
  const routes = new Map();
  for (const e of edges) {
    const y0 = pos[e.from][1] + sizes[e.from][1] / 2;
    const y1 = pos[e.to][1] - sizes[e.to][1] / 2;
    routes.set(e.from + '>' + e.to, { pts: [width / 2, y0, width / 2, y1], lx: labels && e.n === 1 && e.lw ? width / 2 + e.lw / 2 + 6 : undefined, ly: (y0 + y1) / 2 });
  }
  let w = width;
  let h = y - gap;
  const gw = w;
  if (isBoxLevel) {
    w = Math.max(w + 2 * BOX_PAD, 120, boxMinW);
    h = h + BOX_HEADER + BOX_PAD;
  }
  return { pos, routes, w, h, gw };
}
