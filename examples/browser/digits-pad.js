// The drawing pad of the example page: the user draws a digit with the mouse, a pen or a
// finger; while drawing, the digit is turned into the 8x8 image the model was trained on
// (examples/digits/digits.js: inkToDigit) and classified by the CNN of examples/digits
// through torch-ir-wasm. window.__digits exposes the state for tests.
// In your own page: import { loadIR } from 'torch-ir-wasm'.
import { loadIR } from '../../npm/index.js';
import { FILES, SIDE, inkToDigit, topK } from '../digits/digits.js';

const PEN_WIDTH = 24; // what the user sees on the 280 px pad
// The strokes are redrawn for the model with their longer side NORM_SPAN px long and a pen
// NORM_PEN px wide (about 1.3 of the 8 pixels), like the thick strokes of load_digits whatever
// size the digit was drawn at: read from the pad's pixels, small drawings turn into blobs (a 2
// drawn at 30% size was read as 8), and a thinner pen loses 7s to 3s.
const NORM_SPAN = 64;
const NORM_PEN = 12;
const NORM_SIZE = NORM_SPAN + 2 * NORM_PEN;

/**
 * Starts the pad. els: {pad, seen, pred, top, clear, status} (elements of the page).
 * Resolves to the state object that is also window.__digits.
 */
export async function startDigitsPad(els, { threads } = {}) {
  const base = new URL('../digits/', import.meta.url);
  const ctx = els.pad.getContext('2d', { willReadFrequently: true });
  const seenCtx = els.seen.getContext('2d');
  const norm = document.createElement('canvas');
  norm.width = norm.height = NORM_SIZE;
  const normCtx = norm.getContext('2d', { willReadFrequently: true });
  const strokes = []; // the user's strokes: lists of [x, y] in pad pixels
  let busy = null; // the classification running
  let again = false; // strokes came in meanwhile: classify once more
  let frame = 0; // a classification waiting for the next animation frame
  const state = {
    ready: false, loadError: null, runs: 0, last: null,
    classify: () => classify(), clear: () => clear(),
    get busy() { return busy !== null || frame !== 0; },
  };
  window.__digits = state;

  const clear = () => {
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, els.pad.width, els.pad.height);
    strokes.length = 0;
    seenCtx.clearRect(0, 0, SIDE, SIDE);
    els.pred.textContent = '?';
    els.top.textContent = '';
    state.last = null;
  };
  clear();

  let model;
  try {
    const t0 = performance.now();
    model = await loadIR(new URL(FILES.ir, base), { weights: new URL(FILES.weights, base), threads });
    const training = await (await fetch(new URL(FILES.training, base))).json();
    els.status.textContent = `CNN trained on ${training.train_images} digits of scikit-learn's load_digits, `
      + `${(100 * training.test_accuracy).toFixed(1)}% right on ${training.test_images} held-out ones; `
      + `loaded in ${(performance.now() - t0).toFixed(0)} ms (${model.backend.variant}). Draw a digit 0-9 (a 7 with a crossbar, as in the training data).`;
  } catch (e) {
    state.loadError = `${e.name}: ${e.message}`;
    els.status.textContent = state.loadError;
    return state;
  }

  // A canvas as darkness 0..1 per pixel (white paper, dark ink).
  function darkness(c2d, width, height) {
    const rgba = c2d.getImageData(0, 0, width, height).data;
    const out = new Float32Array(width * height);
    for (let i = 0; i < out.length; ++i) out[i] = 1 - (rgba[4 * i] + rgba[4 * i + 1] + rgba[4 * i + 2]) / (3 * 255);
    return out;
  }

  function drawPath(c2d, points, width, map = (p) => p) {
    c2d.strokeStyle = c2d.fillStyle = '#000';
    c2d.lineWidth = width;
    c2d.lineCap = c2d.lineJoin = 'round';
    c2d.beginPath();
    if (points.length === 1) { // canvas does not stroke zero-length lines: a dot
      c2d.arc(...map(points[0]), width / 2, 0, 2 * Math.PI);
      c2d.fill();
      return;
    }
    c2d.moveTo(...map(points[0]));
    for (const p of points.slice(1)) c2d.lineTo(...map(p));
    c2d.stroke();
  }

  // The model's view: the strokes redrawn at the normalized size, or, when there are none
  // (an image put on the pad by a script), the pad's pixels as they are.
  function ink() {
    if (!strokes.length) return { ink: darkness(ctx, els.pad.width, els.pad.height), width: els.pad.width, height: els.pad.height };
    const all = strokes.flat();
    const xs = all.map((p) => p[0]);
    const ys = all.map((p) => p[1]);
    const [x0, y0] = [Math.min(...xs), Math.min(...ys)];
    const span = Math.max(Math.max(...xs) - x0, Math.max(...ys) - y0, 1);
    const k = NORM_SPAN / span;
    normCtx.fillStyle = '#fff';
    normCtx.fillRect(0, 0, NORM_SIZE, NORM_SIZE);
    for (const s of strokes) drawPath(normCtx, s, NORM_PEN, ([x, y]) => [NORM_PEN + (x - x0) * k, NORM_PEN + (y - y0) * k]);
    return { ink: darkness(normCtx, NORM_SIZE, NORM_SIZE), width: NORM_SIZE, height: NORM_SIZE };
  }

  function showSeen(image) {
    const img = seenCtx.createImageData(SIDE, SIDE);
    for (let i = 0; i < image.length; ++i) {
      const v = 255 - Math.round(255 * image[i]);
      img.data.set([v, v, v, 255], 4 * i);
    }
    seenCtx.putImageData(img, 0, 0);
  }

  // One classification at a time; strokes drawn meanwhile trigger one more afterwards.
  async function classify() {
    if (busy) {
      again = true;
      return busy;
    }
    busy = (async () => {
      do {
        again = false;
        const view = ink();
        const image = inkToDigit(view.ink, view.width, view.height);
        if (!image) continue;
        showSeen(image);
        const s = performance.now();
        const [out] = await model.execute([image]);
        const ms = performance.now() - s;
        const top = topK(out.data, 3);
        els.pred.textContent = String(top[0].digit);
        els.top.replaceChildren(...top.map(({ digit, p }) => {
          const li = document.createElement('li');
          li.textContent = `${digit}: ${(100 * p).toFixed(1)}%`;
          return li;
        }));
        state.last = { digit: top[0].digit, top, input: Array.from(image), ms };
        state.runs += 1;
      } while (again);
    })();
    try {
      return await busy;
    } finally {
      busy = null;
    }
  }

  let drawing = false;
  const point = (e) => {
    const r = els.pad.getBoundingClientRect();
    return [(e.clientX - r.left) * (els.pad.width / r.width), (e.clientY - r.top) * (els.pad.height / r.height)];
  };
  const addPoint = (p) => {
    const s = strokes[strokes.length - 1];
    s.push(p);
    drawPath(ctx, s.slice(-2), PEN_WIDTH);
    // live: at most one classification per animation frame
    if (!frame) frame = requestAnimationFrame(() => { frame = 0; classify(); });
  };
  els.pad.addEventListener('pointerdown', (e) => {
    drawing = true;
    els.pad.setPointerCapture(e.pointerId);
    strokes.push([]);
    addPoint(point(e));
  });
  els.pad.addEventListener('pointermove', (e) => {
    if (drawing) addPoint(point(e));
  });
  const end = () => {
    if (!drawing) return;
    drawing = false;
    classify();
  };
  els.pad.addEventListener('pointerup', end);
  els.pad.addEventListener('pointercancel', end);
  els.clear.addEventListener('click', clear);
  state.ready = true;
  return state;
}
