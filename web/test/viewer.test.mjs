// Browser tests of the viewer: headless Debian chromium driven by playwright-core.
// Screenshots and exports land in build/web-artifacts/ (WEB_ARTIFACTS overrides).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { launch, startServer, openViewer, ARTIFACTS, WEB, REPO } from './helpers.mjs';
import { parseSafetensors } from '../../npm/index.js';

const SAMPLES = JSON.parse(readFileSync(join(WEB, 'samples', 'samples.json'), 'utf8'));
const irOf = (id) => JSON.parse(readFileSync(join(WEB, 'samples', SAMPLES.find((s) => s.id === id).ir), 'utf8'));

// Counts straight from the IR JSON, independent of the viewer's code: one node per
// graph input, op node, distinct weight placeholder and graph output; one edge per
// node input plus one per graph output; one block per module path prefix of the
// weights the graph reads (p_layer1_0_conv1_weight -> layer1, layer1.0, layer1.0.conv1).
function expectedCounts(ir) {
  const inputs = new Set(ir.graph_inputs.map((g) => g.name));
  const weights = new Set();
  let edges = ir.graph_outputs.length;
  for (const n of ir.nodes) {
    for (const i of n.inputs || []) {
      edges++;
      if (i.producer_node == null && !inputs.has(i.name)) weights.add(i.name);
    }
  }
  const groups = new Set();
  for (const w of weights) {
    const key = (ir.weight_name_mapping || {})[w] ?? w.replace(/^[pbc]_/, '');
    const parts = key.split('.').slice(0, -1);
    for (let i = 1; i <= parts.length; ++i) groups.add(parts.slice(0, i).join('.'));
  }
  return { nodes: inputs.size + ir.nodes.length + weights.size + ir.graph_outputs.length, edges, groups: groups.size };
}

let server;
let url;
let browser;
let page;

before(async () => {
  ({ server, url } = await startServer());
  browser = await launch();
  page = await openViewer(browser.context, url);
});
after(async () => {
  await browser?.close();
  server?.close();
});

const shot = (name) => page.screenshot({ path: join(ARTIFACTS, name) });
const V = (fn, arg) => page.evaluate(fn, arg);
async function openSample(id) {
  await V((id) => window.__viewer.openSample(id), id);
  return V(() => window.__viewer.stats());
}
async function canvasPoint(id) {
  const p = await V((id) => window.__viewer.screenPos(id), id);
  assert.ok(p, `item ${id} is not on screen`);
  const box = await page.locator('#canvas').boundingBox();
  return [box.x + p[0], box.y + p[1]];
}
async function setTheme(t) {
  const cur = await V(() => document.documentElement.dataset.theme);
  if (cur !== t) await page.click('#btn-theme');
}

test('every bundled sample opens with the node / edge / block counts of its IR', async () => {
  for (const s of SAMPLES) {
    const st = await openSample(s.id);
    const exp = expectedCounts(irOf(s.id));
    assert.deepEqual({ nodes: st.nodes, edges: st.edges, groups: st.groups }, exp, s.id);
    const text = await page.textContent('#stats');
    assert.match(text, new RegExp(`${exp.nodes} nodes \u00b7 ${exp.edges} edges \u00b7 ${exp.groups} blocks`), s.id);
    if (st.nodes <= 300) assert.equal(st.visibleNodes, st.nodes, `${s.id}: small graphs open fully expanded`);
    else assert.ok(st.collapsed > 0 && st.visibleNodes < 300, `${s.id}: large graphs open with blocks collapsed (${st.visibleNodes} visible)`);
  }
  assert.deepEqual(page.errors, []);
});

test('clicking an op node and a weight fills the inspector', async () => {
  await setTheme('light');
  await openSample('small_cnn');
  const [x, y] = await canvasPoint('op_conv2d');
  await page.mouse.click(x, y);
  const ins = page.locator('#inspector');
  assert.equal(await ins.getAttribute('data-selected'), 'op_conv2d');
  assert.equal(await ins.locator('h2').textContent(), 'conv2d');
  const text = await ins.textContent();
  for (const s of ['aten.conv2d.default', 'Inputs (2)', 'p_conv1_weight', 'conv1.weight', '[8, 3, 3, 3]', 'graph input x', 'Outputs (1)', 'batch_norm']) assert.ok(text.includes(s), `inspector lacks '${s}': ${text}`);
  // follow the producer link of input #1 (the weight): weight statistics from the loaded file
  await ins.locator('a', { hasText: 'p_conv1_weight' }).first().click();
  assert.equal(await ins.getAttribute('data-selected'), 'w_p_conv1_weight');
  const w = parseSafetensors(readFileSync(join(WEB, 'samples/small_cnn/weights.safetensors'))).get('conv1.weight');
  const min = Math.min(...w.data);
  const max = Math.max(...w.data);
  const stats = await ins.locator('table.stats').textContent();
  assert.ok(stats.includes('min' + min.toFixed(5)) && stats.includes('max' + max.toFixed(5)), `weight stats ${stats} vs min ${min} max ${max}`);
  assert.ok((await ins.locator('pre').textContent()).startsWith(w.data[0].toFixed(5)));
  await shot('inspector-light.png');
});

test('search finds a weight inside a collapsed block, expands it and centers the match', async () => {
  const st0 = await openSample('resnet50');
  assert.ok(st0.collapsed > 0);
  await page.fill('#search', 'layer3_2_bn2');
  await page.press('#search', 'Enter');
  await page.waitForFunction(() => document.querySelector('#inspector').dataset.selected === 'w_p_layer3_2_bn2_weight');
  assert.equal(await page.textContent('#search-count'), '1/4');
  const st = await V(() => window.__viewer.stats());
  assert.ok(st.visibleNodes > st0.visibleNodes, 'the block holding the match was expanded');
  const p = await V(() => window.__viewer.screenPos('w_p_layer3_2_bn2_weight'));
  const box = await page.locator('#canvas').boundingBox();
  assert.ok(Math.abs(p[0] - box.width / 2) < 2 && Math.abs(p[1] - box.height / 2) < 2, `match centered: ${p}`);
  assert.equal(await V(() => ['weight', 'bias', 'running_mean', 'running_var'].filter((k) => window.__viewer.canvas.matches.has(`w_${k === 'weight' || k === 'bias' ? 'p' : 'b'}_layer3_2_bn2_${k}`)).length), 4);
  await page.press('#search', 'Enter');
  await page.waitForFunction(() => document.querySelector('#search-count').textContent === '2/4');
  assert.equal(await page.getAttribute('#inspector', 'data-selected'), 'w_p_layer3_2_bn2_bias');
  await shot('search-light.png');
  await page.press('#search', 'Escape');
});

test('double-click expands a collapsed block, clicking its header collapses it again', async () => {
  await setTheme('dark');
  const st0 = await openSample('moe_decoder24');
  await shot('decoder-collapsed-dark.png');
  const [x, y] = await canvasPoint('group:model.layers.3');
  await page.mouse.dblclick(x, y);
  await page.waitForFunction(() => window.__viewer.S.scene.byId.has('box:model.layers.3'));
  const st1 = await V(() => window.__viewer.stats());
  assert.ok(st1.visibleNodes > st0.visibleNodes, `${st1.visibleNodes} > ${st0.visibleNodes}`);
  assert.equal(await V(() => window.__viewer.S.collapsed.has('model.layers.3')), false);
  assert.equal(await page.getAttribute('#inspector', 'data-selected'), 'box:model.layers.3');
  await shot('decoder-expanded-dark.png');
  // header of the box: top-left corner + a few px
  const b = await V(() => {
    const v = window.__viewer;
    const it = v.S.scene.byId.get('box:model.layers.3');
    return [(it.x - it.w / 2 + 30) * v.canvas.scale + v.canvas.tx, (it.y - it.h / 2 + 12) * v.canvas.scale + v.canvas.ty];
  });
  const cb = await page.locator('#canvas').boundingBox();
  await page.mouse.click(cb.x + b[0], cb.y + b[1]);
  await page.waitForFunction(() => window.__viewer.S.scene.byId.has('group:model.layers.3'));
  const st2 = await V(() => window.__viewer.stats());
  assert.equal(st2.visibleNodes, st0.visibleNodes);
});

test('run: vit_tiny runs on its io file, the verification report says PASSED, per-node times fill the table and the heat overlay', async () => {
  await setTheme('light');
  await openSample('vit_tiny');
  assert.equal(await page.isDisabled('#btn-run'), false);
  await page.click('#btn-run');
  await page.waitForSelector('#verify-report', { timeout: 120000 });
  const rep = await page.textContent('#verify-report');
  assert.match(rep, /Verification PASSED/);
  assert.match(rep, /close/);
  const rows = await page.locator('#timing-table tr').count();
  const ops = irOf('vit_tiny').nodes.length;
  // A row per profiled node; nodes fused into a producer's kernel (gelu after a linear) are
  // named in that row's op column ("linear + gelu") instead of rows of their own.
  const fused = await V(() => [...window.__viewer.S.profile.fused.values()].reduce((a, c) => a + c.length, 0));
  const joined = await page.locator('#timing-table td.mono', { hasText: ' + ' }).count();
  assert.ok(fused > 0 && joined > 0, `fused nodes ${fused}, joined op cells ${joined}`);
  assert.ok(rows - 1 + fused > ops / 2 && rows - 1 + fused <= ops, `timing rows ${rows - 1} (+ ${fused} fused) for ${ops} nodes`);
  const heat = await V(() => window.__viewer.canvas.heat?.size || 0);
  assert.ok(heat > ops / 2, `heat overlay on ${heat} nodes`);
  assert.match(await page.textContent('#run-total'), /ms$/);
  // the slowest node, from the timing table: selected, centered, inspector shows its time
  await page.click('[data-tab="timing"]');
  const first = page.locator('#timing-table a').first();
  const name = await first.textContent();
  await first.click();
  await page.waitForFunction((n) => document.querySelector('#inspector').dataset.selected === 'op_' + n, name);
  assert.match(await page.textContent('#inspector'), /time.*ms/);
  await shot('vit-run-timing-light.png');
  await page.click('[data-tab="summary"]');
  await shot('vit-run-heat-light.png');
  await setTheme('dark');
  await shot('vit-run-heat-dark.png');
  assert.deepEqual(page.errors, []);
});

test('run: the seed models and small_cnn verify PASSED', async () => {
  for (const id of ['SimpleMLP', 'MaskedLinear', 'GatherWithIndex', 'BufferVsConstant', 'small_cnn']) {
    await openSample(id);
    await page.click('#btn-run');
    await page.waitForSelector('#verify-report', { timeout: 60000 });
    assert.match(await page.textContent('#verify-report'), /Verification PASSED/, id);
  }
});

function cli(...args) {
  return execFileSync(process.execPath, [join(REPO, 'npm/bin/torch-ir-wasm.js'), ...args], { encoding: 'utf8' }).replace(/\n$/, '');
}

test('Mermaid and pie exports equal the CLI output (ir_to_mermaid / generate_op_distribution_pie)', async () => {
  await setTheme('light');
  for (const [id, maxNodes, weights] of [['SimpleMLP', 30, true], ['small_cnn', 30, true], ['vit_tiny', 200, true], ['resnet18', 20, false]]) {
    const s = SAMPLES.find((x) => x.id === id);
    await openSample(id);
    await V(([m, w]) => {
      document.getElementById('mermaid-max').value = String(m);
      document.getElementById('mermaid-weights').checked = w;
    }, [maxNodes, weights]);
    await page.selectOption('#export-select', 'mermaid');
    await page.waitForFunction(() => document.getElementById('export-dialog').open && document.getElementById('export-text').value.startsWith('flowchart'));
    const text = await page.inputValue('#export-text');
    const expected = cli('visualize', join(WEB, 'samples', s.ir), '--max-nodes', String(maxNodes), ...(weights ? [] : ['--no-weights']));
    assert.equal(text, expected, `${id} mermaid`);
    writeFileSync(join(ARTIFACTS, `${id}.mmd`), text + '\n');
    if (id === 'small_cnn') await shot('export-mermaid-light.png');
    await page.click('#export-dialog button[value="close"]');
    await page.selectOption('#export-select', 'pie');
    await page.waitForFunction(() => document.getElementById('export-dialog').open && document.getElementById('export-text').value.startsWith('pie'));
    assert.equal(await page.inputValue('#export-text'), cli('pie', join(WEB, 'samples', s.ir)), `${id} pie`);
    await page.click('#export-dialog button[value="close"]');
  }
});

test('SVG and PNG exports of the current view', async () => {
  await openSample('small_cnn');
  const [svgDl] = await Promise.all([page.waitForEvent('download'), page.selectOption('#export-select', 'svg')]);
  const svgPath = join(ARTIFACTS, 'small_cnn-view.svg');
  await svgDl.saveAs(svgPath);
  const svg = readFileSync(svgPath, 'utf8');
  assert.ok(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"'));
  const visible = await V(() => window.__viewer.S.scene.nodes.filter((n) => {
    const c = window.__viewer.canvas;
    const [x, y] = [n.x * c.scale + c.tx, n.y * c.scale + c.ty];
    return x > 0 && y > 0 && x < c.vw && y < c.vh;
  }).length);
  const inSvg = (svg.match(/class="node"/g) || []).length;
  assert.ok(inSvg >= visible && visible > 0, `svg has ${inSvg} nodes, ${visible} centers on screen`);
  assert.ok(svg.includes('>conv2d</text>') && svg.includes('stroke-dasharray'));
  const [pngDl] = await Promise.all([page.waitForEvent('download'), page.selectOption('#export-select', 'png')]);
  const pngPath = join(ARTIFACTS, 'small_cnn-view.png');
  await pngDl.saveAs(pngPath);
  const png = readFileSync(pngPath);
  assert.deepEqual([...png.subarray(1, 4)], [0x50, 0x4e, 0x47]);
  assert.ok(png.length > 5000);
});

test('screenshots: samples in light and dark themes', async () => {
  for (const theme of ['light', 'dark']) {
    await setTheme(theme);
    for (const id of ['small_cnn', 'resnet18', 'resnet50']) {
      await openSample(id);
      await shot(`${id}-${theme}.png`);
    }
  }
  await setTheme('light');
  await openSample('resnet18');
  await V(() => window.__viewer.canvas.zoomBy(2.2));
  await shot('resnet18-zoom-light.png');
  await page.goto(url);
  await page.waitForFunction(() => window.__viewer?.ready);
  await shot('start-light.png');
});

test('open through the file picker (IR + weights + io) and through ?ir=&weights=&io= query parameters', async () => {
  const dir = join(WEB, 'samples', 'MaskedLinear');
  await page.setInputFiles('#file-input', ['model.json', 'weights.safetensors', 'io.safetensors'].map((f) => join(dir, f)));
  await page.waitForFunction(() => window.__viewer.S.name === 'MaskedLinear' && !document.getElementById('btn-run').disabled);
  assert.deepEqual(
    await V(() => ({ w: window.__viewer.S.weightsName, io: window.__viewer.S.ioName })),
    { w: 'weights.safetensors', io: 'io.safetensors' },
  );
  const st = await V(() => window.__viewer.stats());
  assert.equal(st.nodes, expectedCounts(irOf('MaskedLinear')).nodes);
  // query parameters, engine in a Web Worker (proxy=1)
  const q = new URLSearchParams({ ir: 'samples/small_cnn/model.json', weights: 'samples/small_cnn/weights.safetensors', io: 'samples/small_cnn/io.safetensors', proxy: '1' });
  const p2 = await openViewer(browser.context, url, '?' + q);
  try {
    await p2.waitForFunction(() => window.__viewer.S.graph && !document.getElementById('btn-run').disabled);
    assert.equal(await p2.evaluate(() => window.__viewer.stats().nodes), expectedCounts(irOf('small_cnn')).nodes);
    await p2.click('#btn-run');
    await p2.waitForSelector('#verify-report', { timeout: 60000 });
    assert.match(await p2.textContent('#verify-report'), /Verification PASSED/);
    assert.match(await p2.textContent('#tab-summary'), /worker/);
    assert.deepEqual(p2.errors, []);
  } finally {
    await p2.close();
  }
});
