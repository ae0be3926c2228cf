#!/usr/bin/env node
// Viewer timings in headless chromium (the same setup as the web tests):
//   node bench/viewer_bench.mjs [--reps 3]
// - open the 24-layer MoE decoder (5,304 nodes): fetch + parse + blocks + layout of
//   the collapsed view + first frame; page reloaded before each rep (cold caches)
// - expand one decoder layer (its sub-blocks collapsed) and one layer fully, cold and
//   when a structurally equal layer was laid out before (layout cache)
// - ResNet-50-sized graph (444 nodes) opened fully expanded, cold
// - frame time while panning the fully expanded decoder and ResNet-50
// Needs `node web/tools/build.mjs` (scripts/test_web.sh or scripts/serve_web.sh run it).
import { launch, startServer } from '../web/test/helpers.mjs';
import { cpus, loadavg } from 'node:os';

const args = process.argv.slice(2);
const REPS = Number(args.includes('--reps') ? args[args.indexOf('--reps') + 1] : 3);
const { server, url } = await startServer();
const browser = await launch();
const page = await browser.context.newPage();
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const fmt = (a) => `${median(a).toFixed(0)} ms (runs: ${a.map((x) => x.toFixed(0)).join(', ')})`;

async function fresh(query = '') {
  await page.goto(url + query);
  await page.waitForFunction(() => window.__viewer?.ready === true);
}
// time of fn() in the page until the next frame is painted
const timed = (body, arg) => page.evaluate(async ([body, arg]) => {
  const v = window.__viewer;
  const f = new Function('v', 'arg', `return (async () => { ${body} })()`);
  const t0 = performance.now();
  await f(v, arg);
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  return performance.now() - t0;
}, [body, arg]);

const results = {};
const open = [];
const expand1 = [];
const expand1Cached = [];
const expandDeep = [];
const r50 = [];
let decoderStats;
for (let i = 0; i < REPS; ++i) {
  await fresh();
  open.push(await timed("await v.openSample('moe_decoder24');"));
  decoderStats = await page.evaluate(() => window.__viewer.stats());
  expand1.push(await timed("await v.expand('model.layers.5');"));
  expand1Cached.push(await timed("await v.expand('model.layers.9');"));
  await fresh();
  await page.evaluate(() => window.__viewer.openSample('moe_decoder24'));
  expandDeep.push(await timed("await v.expand('model.layers.7', { deep: true });"));
  await fresh('?collapse=none');
  r50.push(await timed("await v.openSample('resnet50');"));
}
const r50Stats = await page.evaluate(() => window.__viewer.stats());

// Panning: draw frames along a path over the fully expanded graph, text visible.
async function panFrames(sample) {
  await fresh('?collapse=none');
  const tOpen = await timed(`await v.openSample('${sample}');`);
  return page.evaluate(({ tOpen }) => {
    const c = window.__viewer.canvas;
    c.scale = 0.6;
    const times = [];
    for (let i = 0; i < 120; ++i) {
      c.tx = -((i * 37) % 1500);
      c.ty = -((i * 211) % Math.max(1, c.scene.height * c.scale - c.vh));
      const t = performance.now();
      c.draw();
      times.push(performance.now() - t);
    }
    c.scale = 0.1; // zoomed far out: everything on screen, no text
    c.tx = 0;
    c.ty = 0;
    const far = [];
    for (let i = 0; i < 30; ++i) {
      const t = performance.now();
      c.draw();
      far.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    far.sort((a, b) => a - b);
    return { nodes: c.scene.nodes.length, openExpandedMs: tOpen, medianMs: times[60], p95Ms: times[114], farMedianMs: far[15] };
  }, { tOpen });
}
const panDecoder = await panFrames('moe_decoder24');
const panR50 = await panFrames('resnet50');

console.log(`viewer bench: headless chromium, ${cpus().length} x ${cpus()[0].model}, load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
console.log(`MoE decoder 24 layers: ${decoderStats.nodes} nodes, ${decoderStats.edges} edges, ${decoderStats.groups} blocks; collapsed view ${decoderStats.visibleNodes} nodes`);
console.log(`  open (collapsed blocks, first frame):   ${fmt(open)}`);
console.log(`  expand one layer (sub-blocks closed):   ${fmt(expand1)}`);
console.log(`  expand a second, equal layer (cached):  ${fmt(expand1Cached)}`);
console.log(`  expand one layer fully (all inside):    ${fmt(expandDeep)}`);
console.log(`ResNet-50-sized: ${r50Stats.nodes} nodes, ${r50Stats.edges} edges, ${r50Stats.boxes} open blocks`);
console.log(`  open fully expanded (first frame):      ${fmt(r50)}`);
for (const [name, p] of [['decoder, all 5,304 nodes', panDecoder], ['ResNet-50, all 444 nodes', panR50]]) {
  console.log(`  pan frame, ${name}: median ${p.medianMs.toFixed(1)} ms, p95 ${p.p95Ms.toFixed(1)} ms; zoomed out ${p.farMedianMs.toFixed(1)} ms (opened expanded in ${p.openExpandedMs.toFixed(0)} ms)`);
}
Object.assign(results, { open, expand1, expand1Cached, expandDeep, r50, panDecoder, panR50 });
if (args.includes('--json')) console.log(JSON.stringify(results));
await browser.close();
server.close();
