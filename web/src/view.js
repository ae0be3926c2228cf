// What is on screen for a given collapse state: collapsed module blocks become
// single nodes, expanded blocks become compound boxes around their members.
import { parentPath } from './graph.js';

/** Deepest block depth at which collapsing everything keeps the view under `limit` nodes. */
export function defaultCollapse(graph, limit = 300) {
  const collapsed = new Set();
  if (graph.nodes.length <= limit || graph.groups.size === 0) return collapsed;
  let maxDepth = 0;
  for (const g of graph.groups.values()) maxDepth = Math.max(maxDepth, g.depth);
  let best = 1;
  const real = [...graph.groups.values()].filter((g) => !isTransparent(g));
  for (let d = 1; d <= maxDepth; ++d) {
    const set = new Set(real.filter((g) => g.depth >= d).map((g) => g.path));
    if (visibleCount(graph, set) <= limit) best = d;
    else break;
  }
  for (const g of real) if (g.depth >= best) collapsed.add(g.path);
  return collapsed;
}

export const isTransparent = (g) => g.children.length === 0 && g.opCount <= 1;

/** Outermost collapsed block containing `block`, or null. */
export function collapsedAncestor(block, collapsed) {
  if (!block || collapsed.size === 0) return null;
  for (const p of ancestors(block)) if (collapsed.has(p)) return p;
  return null;
}

// block path -> its prefixes, outermost first (cached: paths repeat a lot)
const ancestorCache = new Map();
function ancestors(block) {
  let a = ancestorCache.get(block);
  if (!a) {
    a = [];
    for (let p = block; p; p = parentPath(p)) a.unshift(p);
    if (ancestorCache.size > 100000) ancestorCache.clear();
    ancestorCache.set(block, a);
  }
  return a;
}

function visibleCount(graph, collapsed) {
  const seen = new Set();
  let n = 0;
  for (const node of graph.nodes) {
    const c = collapsedAncestor(node.block, collapsed);
    if (c === null) ++n;
    else if (!seen.has(c)) {
      seen.add(c);
      ++n;
    }
  }
  return n;
}

/**
 * Visible graph: {nodes, edges, boxes}. Nodes: {id, kind, label, sub, ref, parent}
 * (kind 'group' for a collapsed block, ref = graph node or group). Boxes: expanded
 * blocks that contain visible nodes, {id: 'box:'+path, parent}.
 */
export function visibleGraph(graph, collapsed, { showWeights = true } = {}) {
  const rep = new Map(); // graph node id -> visible node id
  const nodes = [];
  const vis = new Map();
  const usedBoxes = new Set();
  // A block with one op and no sub-blocks (a conv with its weight) gets no box.
  const boxOf = (path) => {
    while (path && isTransparent(graph.groups.get(path))) path = parentPath(path);
    if (!path) return null;
    for (let p = path; p; p = parentPath(p)) {
      if (usedBoxes.has(p)) break;
      usedBoxes.add(p);
    }
    return 'box:' + path;
  };
  for (const n of graph.nodes) {
    if (!showWeights && n.kind === 'weight') continue;
    const c = collapsedAncestor(n.block, collapsed);
    if (c !== null) {
      const id = 'group:' + c;
      rep.set(n.id, id);
      if (!vis.has(id)) {
        const g = graph.groups.get(c);
        const v = { id, kind: 'group', label: g.label, sub: `${g.opCount} ops`, ref: g, parent: boxOf(g.parent), members: [] };
        vis.set(id, v);
        nodes.push(v);
      }
      vis.get(id).members.push(n);
    } else {
      rep.set(n.id, n.id);
      const v = { id: n.id, kind: n.kind, label: n.label, sub: n.sub, ref: n, parent: boxOf(n.block) };
      vis.set(n.id, v);
      nodes.push(v);
    }
  }
  const edges = [];
  const groupEdges = new Map();
  for (const e of graph.edges) {
    const a = rep.get(e.from);
    const b = rep.get(e.to);
    if (a === undefined || b === undefined || a === b) continue;
    if (a.startsWith('group:') || b.startsWith('group:')) {
      const key = a + '\u0000' + b;
      const g = groupEdges.get(key);
      if (g) {
        g.count++;
        continue;
      }
      const ge = { id: 'e' + edges.length, from: a, to: b, label: e.dashed ? '' : e.label, dashed: e.dashed, count: 1, ref: e };
      groupEdges.set(key, ge);
      edges.push(ge);
    } else {
      edges.push({ id: 'e' + edges.length, from: a, to: b, label: e.label, dashed: e.dashed, count: 1, ref: e });
    }
  }
  const boxes = [...usedBoxes].map((p) => {
    const g = graph.groups.get(p);
    return { id: 'box:' + p, path: p, label: g.label, parent: boxOf(g.parent), ref: g };
  });
  return { nodes, edges, boxes };
}
