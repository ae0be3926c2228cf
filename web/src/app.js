// The viewer page: open, layout, explore, run, export. Everything runs in the
// page (static files only); models run on the torch-ir-wasm package.
import * as dagre from '../vendor/dagre.esm.js';
import { env, loadIR, parseIRJson, parseSafetensors, splitIo } from '../../npm/index.js';
import { buildGraph, graphStats, parentPath } from './graph.js';
import { defaultCollapse, visibleGraph, collapsedAncestor } from './view.js';
import { runLayout } from './layout.js';
import { GraphCanvas, nodeSize, textWidth, EDGE_FONT, FONT, SUB_FONT, themeColors } from './render.js';
import { sceneToSvg } from './svg.js';
import { inspectorHtml } from './inspector.js';
import { nodeHeat, legendHtml, runSummaryHtml, timingHtml, outputsHtml } from './run-panel.js';
import { esc, fmtMs } from './format.js';
import { deviceOptions, profiledRuns, randomInputs } from './run.js';
import { GeneratePanel } from './generate-panel.js';
import { wireCompare } from './compare-panel.js';

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const WORKER_MIN_NODES = Number(params.get('workerMin') || 150); // larger views lay out in a Web Worker
if (params.get('proxy') === '1') env.proxy = true;

const S = {
  graph: null, irText: null, name: '', collapsed: new Set(), showWeights: true, scene: null, view: null,
  weights: null, weightsName: '', weightTensors: null, io: null, ioName: '', model: null, infoModel: null,
  profile: null, run: null, heatOn: true, matches: [], matchIdx: -1, layoutMs: 0, layoutSeq: 0, openMs: 0, busy: 0,
};

const canvas = new GraphCanvas($('canvas'), {
  onClick: (h) => {
    if (!h) return select(null);
    if (h.type === 'box' && h.header) return toggle(h.item.path);
    select(h.item.id);
  },
  onDoubleClick: (h) => {
    if (!h) return;
    if (h.type === 'node' && h.item.kind === 'group') toggle(h.item.ref.path);
    else if (h.type === 'box') toggle(h.item.path);
  },
});

// ---------------------------------------------------------------- helpers
function message(text, error = false) {
  const m = $('message');
  m.textContent = text;
  m.className = error ? 'error' : 'muted';
  if (error) console.error(text);
}
function busy(on, text = 'Laying out\u2026') {
  S.busy += on ? 1 : -1;
  $('busy').hidden = S.busy <= 0;
  $('busy-text').textContent = text;
}
async function readSource(src, kind) {
  if (src instanceof Blob) return kind === 'text' ? src.text() : src.arrayBuffer();
  const res = await fetch(src);
  if (!res.ok) throw new Error(`${src}: HTTP ${res.status}`);
  return kind === 'text' ? res.text() : res.arrayBuffer();
}
const baseName = (src) => (src instanceof Blob ? src.name : String(src).split('/').pop());

// ---------------------------------------------------------------- open
/** Opens an IR (URL or File) with optional weights and io (URL, File or ArrayBuffer). */
async function open(irSrc, { weights = null, io = null, name = null } = {}) {
  const t0 = performance.now();
  busy(true, 'Opening\u2026');
  S.opening = (S.opening || 0) + 1; // Run stays disabled until weights and io are attached
  try {
    const text = await readSource(irSrc, 'text');
    const ir = parseIRJson(text);
    if (!ir || !Array.isArray(ir.nodes)) throw new Error(`${baseName(irSrc)}: not a pytorch-ir file (no "nodes" list)`);
    disposeModels();
    gen.onOpen(); // another model closes the Generate panel
    S.irText = text;
    S.name = name || ir.model_name || baseName(irSrc);
    S.graph = buildGraph(ir);
    S.collapsed = params.get('collapse') === 'none' ? new Set() : defaultCollapse(S.graph);
    S.profile = null;
    S.run = null;
    S.weights = S.weightTensors = S.io = null;
    S.weightsName = S.ioName = '';
    $('panel').hidden = true;
    for (const t of ['summary', 'timing', 'outputs']) $('tab-' + t).innerHTML = '';
    $('empty').hidden = true;
    $('legend').hidden = false;
    clearSearch();
    select(null);
    await relayout({ fit: true });
    S.openMs = performance.now() - t0;
    if (weights) await attachWeights(weights);
    if (io) await attachIo(io);
    document.title = `${S.name} \u2014 torch-ir viewer`;
    message(`opened ${S.name} in ${fmtMs(S.openMs)}`);
  } catch (e) {
    message(String(e.message || e), true);
    throw e;
  } finally {
    S.opening--;
    updateRunButton();
    busy(false);
  }
}

async function attachWeights(src) {
  const bytes = src instanceof ArrayBuffer ? src : await readSource(src, 'bytes');
  S.weights = bytes;
  S.weightsName = src instanceof ArrayBuffer ? 'weights' : baseName(src);
  S.weightTensors = null;
  try {
    if (/\.safetensors$/i.test(S.weightsName) || new Uint8Array(bytes, 0, 2)[1] === 0) S.weightTensors = parseSafetensors(bytes.slice(0), S.weightsName);
  } catch {
    S.weightTensors = null; // .pt: the engine reads it; no statistics in the inspector
  }
  disposeModel();
  updateRunButton();
  message(`weights: ${S.weightsName} (${(bytes.byteLength / 1024).toFixed(1)} KiB)`);
}

async function attachIo(src) {
  const bytes = src instanceof ArrayBuffer ? src : await readSource(src, 'bytes');
  S.io = splitIo(parseSafetensors(bytes, baseName(src)));
  S.ioName = src instanceof ArrayBuffer ? 'io' : baseName(src);
  updateRunButton();
}

function updateRunButton() {
  const b = $('btn-run');
  b.disabled = !S.graph || !S.weights || S.opening > 0;
  b.title = S.weights ? `Run ${S.name} with ${S.weightsName}${S.io ? ' on ' + S.ioName : ' on random inputs'}` : 'Load weights (.safetensors / .pt) to run the model';
}

async function openFiles(files) {
  if (await gen.openFiles(files)) return; // prefill + decode IR + KV mapping: the Generate panel
  let ir = null;
  let weights = null;
  let io = null;
  for (const f of files) {
    if (/\.json$/i.test(f.name)) ir = f;
    else if (/\.safetensors$/i.test(f.name) && /(^|[_.-])io([_.-]|$)|input|output/i.test(f.name)) io = f;
    else if (/\.(safetensors|pt|pth|bin)$/i.test(f.name)) weights = f;
  }
  if (ir) await open(ir, { weights, io });
  else if (S.graph) {
    if (weights) await attachWeights(weights);
    if (io) await attachIo(io);
  } else message('drop an IR .json file (and optionally weights / io .safetensors)', true);
}

// ---------------------------------------------------------------- layout
async function layoutSpec(spec) {
  if (spec.nodes.length < WORKER_MIN_NODES) return runLayout(dagre, spec);
  S.worker ??= new Worker(new URL('./layout-worker.js', import.meta.url), { type: 'module' });
  const id = ++S.layoutSeq;
  return new Promise((resolve, reject) => {
    const onMsg = (ev) => {
      if (ev.data.id !== id) return;
      S.worker.removeEventListener('message', onMsg);
      if (ev.data.error) reject(new Error(ev.data.error));
      else resolve(ev.data.result);
    };
    S.worker.addEventListener('message', onMsg);
    S.worker.postMessage({ id, spec });
  });
}

/** Re-computes the visible graph and its layout; focus: an item id to center afterwards. */
async function relayout({ fit = false, focus = null } = {}) {
  const t0 = performance.now();
  const seq = ++S.relayoutSeq || (S.relayoutSeq = 1);
  const view = visibleGraph(S.graph, S.collapsed, { showWeights: S.showWeights });
  const spec = {
    nodes: view.nodes.map((n) => {
      const [w, h] = nodeSize(n);
      return { id: n.id, w, h, parent: n.parent };
    }),
    edges: view.edges.map((e) => {
      const lw = e.label ? Math.ceil((textWidth(e.label, EDGE_FONT) + 8) / 16) * 16 : 0;
      return { id: e.id, from: e.from, to: e.to, lw, lh: lw ? 14 : 0, dashed: e.dashed };
    }),
    boxes: view.boxes.map((b) => ({ id: b.id, parent: b.parent, minW: Math.ceil(textWidth('\u2212  ' + b.label, FONT) + textWidth(`${b.ref.opCount} ops`, SUB_FONT) + 40) })),
  };
  const showBusy = spec.nodes.length >= WORKER_MIN_NODES;
  if (showBusy) busy(true);
  let L;
  try {
    L = await layoutSpec(spec);
  } finally {
    if (showBusy) busy(false);
  }
  if (seq !== S.relayoutSeq) return; // a newer layout is on its way
  const byId = new Map();
  const nodes = view.nodes.map((n) => {
    const p = L.nodes[n.id];
    const s = { ...n, x: p.x, y: p.y, w: p.w, h: p.h, category: n.ref.category };
    byId.set(n.id, s);
    return s;
  });
  const depthOf = (b) => b.path.split('.').length;
  const boxes = view.boxes
    .filter((b) => L.boxes[b.id])
    .map((b) => {
      const s = { ...b, ...L.boxes[b.id], depth: depthOf(b), note: `${b.ref.opCount} ops` };
      byId.set(b.id, s);
      return s;
    })
    .sort((a, b) => a.depth - b.depth);
  const edges = view.edges.filter((e) => L.edges[e.id]).map((e) => ({ ...e, ...L.edges[e.id] }));
  S.view = view;
  S.scene = { nodes, edges, boxes, byId, width: L.width, height: L.height };
  applyHeat();
  applyMatches();
  canvas.setScene(S.scene, { keepView: !fit });
  if (focus) canvas.centerOn(focus, canvas.scale);
  S.layoutMs = performance.now() - t0;
  updateStats();
  S.layoutDone = (S.layoutDone || 0) + 1;
}

function updateStats() {
  const st = graphStats(S.graph);
  const el = $('stats');
  el.textContent = `${S.name} \u00b7 ${st.nodes} nodes \u00b7 ${st.edges} edges \u00b7 ${st.groups} blocks \u00b7 showing ${S.scene.nodes.length} nodes, ${S.scene.boxes.length} open blocks \u00b7 layout ${fmtMs(S.layoutMs)}`;
  Object.assign(el.dataset, { nodes: st.nodes, edges: st.edges, groups: st.groups, visible: S.scene.nodes.length });
}

// ---------------------------------------------------------------- collapse / expand
function toggle(path) {
  if (S.collapsed.has(path)) return expand(path);
  return collapse(path);
}
async function expand(path, { deep = false } = {}) {
  S.collapsed.delete(path);
  if (deep) for (const p of [...S.collapsed]) if (p.startsWith(path + '.')) S.collapsed.delete(p);
  // children open collapsed, so a big block does not explode
  const g = S.graph.groups.get(path);
  if (!deep && g) for (const c of g.children) if (S.graph.groups.get(c).children.length && S.graph.groups.get(c).count > 40) S.collapsed.add(c);
  await relayout({ focus: 'box:' + path });
  select('box:' + path, { center: false });
}
async function collapse(path) {
  S.collapsed.add(path);
  await relayout({ focus: 'group:' + path });
  select('group:' + path, { center: false });
}
async function expandAll() {
  S.collapsed.clear();
  await relayout({ fit: true });
}
async function collapseAll() {
  S.collapsed = new Set([...S.graph.groups.values()].filter((g) => !g.parent).map((g) => g.path));
  for (const g of S.graph.groups.values()) if (g.parent) S.collapsed.add(g.path);
  await relayout({ fit: true });
}
/** Makes graph node `id` visible (expanding the blocks around it); returns its visible id. */
async function reveal(id) {
  const n = S.graph.byId.get(id);
  if (!n) return S.scene.byId.has(id) ? id : null;
  if (n.kind === 'weight' && !S.showWeights) {
    S.showWeights = true;
    $('chk-weights').checked = true;
  }
  let changed = n.kind === 'weight' && !S.scene.byId.has(id);
  for (let c = collapsedAncestor(n.block, S.collapsed); c !== null; c = collapsedAncestor(n.block, S.collapsed)) {
    S.collapsed.delete(c);
    changed = true;
  }
  if (changed) await relayout({});
  return id;
}

// ---------------------------------------------------------------- selection / inspector
async function select(id, { center = false } = {}) {
  canvas.selected = id;
  canvas.redraw();
  const el = $('inspector');
  if (!id || !S.graph) {
    el.innerHTML = '<div class="placeholder muted">Click a node, weight or block to inspect it.<br><br><kbd>drag</kbd> pan &middot; <kbd>wheel</kbd> zoom &middot; <kbd>dbl-click</kbd> expand / collapse a block &middot; <kbd>F</kbd> fit &middot; <kbd>/</kbd> search</div>';
    return;
  }
  if (center) canvas.centerOn(id, canvas.scale);
  el.innerHTML = inspectorHtml(S, id);
  el.dataset.selected = id;
}

async function goTo(id) {
  const v = await reveal(id);
  if (!v) return;
  await select(v, { center: true });
}

$('inspector').addEventListener('click', (ev) => {
  const a = ev.target.closest('[data-goto],[data-block],[data-toggle],[data-expand-deep]');
  if (!a) return;
  if (a.dataset.goto) goTo(a.dataset.goto);
  else if (a.dataset.block) goToBlock(a.dataset.block);
  else if (a.dataset.toggle) toggle(a.dataset.toggle);
  else if (a.dataset.expandDeep) expand(a.dataset.expandDeep, { deep: true });
});
async function goToBlock(path) {
  let changed = false;
  for (let p = parentPath(path); p; p = parentPath(p)) if (S.collapsed.delete(p)) changed = true;
  if (changed) await relayout({});
  const id = S.collapsed.has(path) ? 'group:' + path : 'box:' + path;
  await select(id, { center: true });
}

// ---------------------------------------------------------------- search
function clearSearch() {
  S.matches = [];
  S.matchIdx = -1;
  $('search').value = '';
  $('search-count').textContent = '';
  canvas.matches = new Set();
}
function computeMatches(q) {
  q = q.trim().toLowerCase();
  if (!q || !S.graph) return [];
  return S.graph.nodes.filter((n) => n.name.toLowerCase().includes(q) || (n.opType && n.opType.toLowerCase().includes(q)) || (n.original && n.original.toLowerCase().includes(q)) || (n.kind === 'output' && n.label.toLowerCase().includes(q)));
}
function applyMatches() {
  const set = new Set();
  for (const n of S.matches) {
    const c = collapsedAncestor(n.block, S.collapsed);
    set.add(c === null ? n.id : 'group:' + c);
  }
  canvas.matches = set;
}
async function searchStep(dir = 1) {
  const q = $('search').value;
  if (q !== S.lastQuery) {
    S.lastQuery = q;
    S.matches = computeMatches(q);
    S.matchIdx = -1;
  }
  if (!S.matches.length) {
    $('search-count').textContent = q.trim() ? '0' : '';
    applyMatches();
    canvas.redraw();
    return;
  }
  S.matchIdx = (S.matchIdx + dir + S.matches.length) % S.matches.length;
  const n = S.matches[S.matchIdx];
  $('search-count').textContent = `${S.matchIdx + 1}/${S.matches.length}`;
  await reveal(n.id);
  applyMatches();
  await select(n.id, { center: true });
}
let searchTimer = 0;
$('search').addEventListener('input', () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(() => {
    S.lastQuery = $('search').value;
    S.matches = computeMatches(S.lastQuery);
    S.matchIdx = -1;
    $('search-count').textContent = S.lastQuery.trim() ? String(S.matches.length) : '';
    applyMatches();
    canvas.redraw();
  }, 120);
});
$('search').addEventListener('keydown', (ev) => {
  if (ev.key === 'Enter') {
    ev.preventDefault();
    clearTimeout(searchTimer);
    searchStep(ev.shiftKey ? -1 : 1);
  } else if (ev.key === 'Escape') {
    clearSearch();
    canvas.redraw();
  }
});
$('search-next').onclick = () => searchStep(1);
$('search-prev').onclick = () => searchStep(-1);

// ---------------------------------------------------------------- run
function disposeModel() {
  try {
    S.model?.dispose();
  } catch {}
  S.model = null;
}
function disposeModels() {
  disposeModel();
  try {
    S.infoModel?.dispose();
  } catch {}
  S.infoModel = null;
}

async function runModel() {
  if (!S.graph || !S.weights) return;
  const btn = $('btn-run');
  btn.disabled = true;
  busy(true, 'Running\u2026');
  try {
    if (!S.model) {
      const t0 = performance.now();
      S.model = await loadIR(S.irText, { weights: S.weights.slice(0), profile: true, ...deviceOptions($('sel-device').value) });
      S.loadMs = performance.now() - t0;
    }
    const m = S.model;
    const inputs = S.io ? S.io.inputs : randomInputs(S.graph);
    const { outputs, totalMs, byNode, total, runs, devices, fused } = await profiledRuns(m, inputs);
    let report = null;
    if (S.io && S.io.outputs.length) report = await m.verify(inputs, S.io.outputs);
    S.profile = { byNode, total, runs, devices, fused };
    S.run = { outputs, inputs, totalMs, report, backend: m.backend, random: !S.io, loadMs: S.loadMs, placement: (m.executionProviders ?? []).includes('webgpu') ? m.placement() : null };
    $('chk-heat').disabled = false;
    applyHeat();
    canvas.redraw();
    showPanel();
    message(`ran ${S.name}: ${fmtMs(totalMs)}${report ? ' \u00b7 verification ' + (report.isValid ? 'PASSED' : 'FAILED') : ''}`, report ? !report.isValid : false);
  } catch (e) {
    message(`run failed: ${e.message || e}`, true);
    S.run = { error: String(e.message || e) };
    showPanel();
  } finally {
    busy(false);
    updateRunButton();
  }
}

function applyHeat() {
  if (!S.profile || !S.heatOn || !S.scene) {
    canvas.heat = null;
    $('legend').innerHTML = legendHtml(false);
    return;
  }
  const { heat, max } = nodeHeat(S);
  canvas.heat = heat;
  $('legend').innerHTML = legendHtml(true, max);
}

function showPanel() {
  $('panel').hidden = false;
  for (const b of $('panel').querySelectorAll('[data-tab]')) b.classList.toggle('active', b.dataset.tab === 'summary');
  for (const t of $('panel').querySelectorAll('.tab')) t.classList.toggle('active', t.id === 'tab-summary');
  const r = S.run;
  if (r.error) {
    $('tab-summary').innerHTML = `<span class="verdict bad">ERROR</span> <pre>${esc(r.error)}</pre>`;
    $('tab-timing').innerHTML = $('tab-outputs').innerHTML = '';
    return;
  }
  $('tab-summary').innerHTML = runSummaryHtml(S);
  $('tab-timing').innerHTML = timingHtml(S);
  $('tab-outputs').innerHTML = outputsHtml(r);
}
$('panel').addEventListener('click', (ev) => {
  const tab = ev.target.closest('[data-tab]');
  if (tab) {
    for (const b of $('panel').querySelectorAll('[data-tab]')) b.classList.toggle('active', b === tab);
    for (const t of $('panel').querySelectorAll('.tab')) t.classList.toggle('active', t.id === 'tab-' + tab.dataset.tab);
  }
  const a = ev.target.closest('[data-goto]');
  if (a) goTo(a.dataset.goto);
});
$('panel-close').onclick = () => ($('panel').hidden = true);
const gen = new GeneratePanel({ open, message, busy });
wireCompare($('panel'), S, { message, busy, goTo });

// ---------------------------------------------------------------- export
async function getInfoModel() {
  S.infoModel ??= await loadIR(S.irText, { compile: false });
  return S.infoModel;
}
async function exportText(kind) {
  const m = await getInfoModel();
  if (kind === 'mermaid') return m.toMermaid({ maxNodes: Number($('mermaid-max').value), includeWeights: $('mermaid-weights').checked });
  return m.opDistributionPie({ topN: 10 });
}
function download(name, data, type) {
  const url = URL.createObjectURL(data instanceof Blob ? data : new Blob([data], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
const fileBase = () => (S.name || 'graph').replace(/[^\w.-]+/g, '_');
function currentViewSvg() {
  const [x0, y0] = canvas.toWorld(0, 0);
  const [x1, y1] = canvas.toWorld(canvas.vw, canvas.vh);
  return sceneToSvg(S.scene, themeColors(), { x: x0, y: y0, w: x1 - x0, h: y1 - y0, width: canvas.vw, height: canvas.vh, heat: canvas.heat, selected: canvas.selected, matches: canvas.matches });
}
async function doExport(kind) {
  if (!S.graph) return;
  try {
    if (kind === 'svg') return download(fileBase() + '.svg', currentViewSvg(), 'image/svg+xml');
    if (kind === 'png') {
      canvas.draw();
      const blob = await new Promise((r) => $('canvas').toBlob(r, 'image/png'));
      return download(fileBase() + '.png', blob);
    }
    S.exportKind = kind;
    $('export-title').textContent = kind === 'mermaid' ? 'Mermaid flowchart (ir_to_mermaid)' : 'Op distribution (generate_op_distribution_pie)';
    $('mermaid-opts').hidden = kind !== 'mermaid';
    $('export-text').value = await exportText(kind);
    if (!$('export-dialog').open) $('export-dialog').showModal();
  } catch (e) {
    message(`export failed: ${e.message || e}`, true);
  }
}
$('export-select').onchange = (ev) => {
  const k = ev.target.value;
  ev.target.value = '';
  if (k) doExport(k);
};
$('mermaid-max').onchange = $('mermaid-weights').onchange = () => doExport('mermaid');
$('export-copy').onclick = () => navigator.clipboard?.writeText($('export-text').value).then(() => message('copied'), () => {});
$('export-download').onclick = () => download(fileBase() + (S.exportKind === 'mermaid' ? '.mmd' : '.pie.mmd'), $('export-text').value + '\n', 'text/plain');

// ---------------------------------------------------------------- toolbar, theme, keys, drop
function setTheme(t) {
  document.documentElement.dataset.theme = t;
  try {
    localStorage.setItem('tir-theme', t);
  } catch {}
  canvas.setTheme(themeColors());
  if (S.graph) applyHeat();
}
$('btn-theme').onclick = () => setTheme(document.documentElement.dataset.theme === 'dark' ? 'light' : 'dark');
$('btn-fit').onclick = () => canvas.fit();
$('btn-zoom-in').onclick = () => canvas.zoomBy(1.25);
$('btn-zoom-out').onclick = () => canvas.zoomBy(0.8);
$('btn-expand-all').onclick = () => S.graph && expandAll();
$('btn-collapse-all').onclick = () => S.graph && collapseAll();
$('chk-weights').onchange = (ev) => {
  S.showWeights = ev.target.checked;
  if (S.graph) relayout({});
};
$('chk-heat').onchange = (ev) => {
  S.heatOn = ev.target.checked;
  applyHeat();
  canvas.redraw();
};
$('btn-run').onclick = runModel;
$('sel-device').onchange = disposeModel; // the next Run loads for the picked device
if (!navigator.gpu) $('sel-device').querySelector('[value=webgpu]').disabled = true;
$('btn-open').onclick = () => $('file-input').click();
$('file-input').onchange = (ev) => openFiles([...ev.target.files]).catch(() => {});
document.addEventListener('keydown', (ev) => {
  if (ev.target.closest('input,textarea,select,dialog')) return;
  if (ev.key === 'f' || ev.key === 'F') canvas.fit();
  else if (ev.key === '/') {
    ev.preventDefault();
    $('search').focus();
  } else if (ev.key === '+' || ev.key === '=') canvas.zoomBy(1.25);
  else if (ev.key === '-') canvas.zoomBy(0.8);
});
let dragDepth = 0;
document.addEventListener('dragenter', (ev) => {
  ev.preventDefault();
  dragDepth++;
  $('drop-hint').hidden = false;
});
document.addEventListener('dragleave', () => {
  if (--dragDepth <= 0) $('drop-hint').hidden = true;
});
document.addEventListener('dragover', (ev) => ev.preventDefault());
document.addEventListener('drop', (ev) => {
  ev.preventDefault();
  dragDepth = 0;
  $('drop-hint').hidden = true;
  openFiles([...ev.dataTransfer.files]).catch(() => {});
});

// ---------------------------------------------------------------- samples, startup
let samples = [];
async function openSample(id) {
  const s = samples.find((x) => x.id === id);
  if (!s) throw new Error(`no sample '${id}'`);
  const u = (p) => (p ? new URL('samples/' + p, location.href).href : null);
  await open(u(s.ir), { weights: u(s.weights), io: u(s.io), name: s.title });
  $('sample-select').value = '';
}
async function init() {
  canvas.setTheme(themeColors());
  $('legend').innerHTML = legendHtml(false);
  try {
    samples = await (await fetch('samples/samples.json')).json();
  } catch {
    samples = [];
  }
  for (const s of samples) {
    $('sample-select').append(new Option(s.title, s.id));
    const card = document.createElement('button');
    card.className = 'card';
    card.dataset.sample = s.id;
    card.innerHTML = `<b>${esc(s.title)}</b><span>${esc(s.note)}</span>`;
    card.onclick = () => openSample(s.id).catch(() => {});
    $('sample-cards').append(card);
  }
  $('sample-select').onchange = (ev) => ev.target.value && openSample(ev.target.value).catch(() => {});
  if (params.get('prefill')) await gen.openUrls(params).catch(() => {});
  else if (params.get('ir')) await open(params.get('ir'), { weights: params.get('weights'), io: params.get('io') }).catch(() => {});
  else if (params.get('sample')) await openSample(params.get('sample')).catch(() => {});
}

// Test / bench hooks (also handy from the console).
window.__viewer = {
  S, canvas, gen, open, openSample, expand, collapse, toggle, expandAll, collapseAll, select, goTo, runModel, exportText, currentViewSvg, relayout,
  stats: () => (S.graph ? { ...graphStats(S.graph), visibleNodes: S.scene.nodes.length, visibleEdges: S.scene.edges.length, boxes: S.scene.boxes.length, collapsed: S.collapsed.size, layoutMs: S.layoutMs, openMs: S.openMs } : null),
  screenPos: (id) => canvas.screenPos(id),
};
init().then(() => {
  window.__viewer.ready = true;
});
