// Helpers shared by the digits examples (examples/node/digits.mjs, the canvas in
// examples/browser/) and their tests. Plain ESM with no Node imports: it runs in
// browsers too. The model and data next to this file come from tools/train_digits.py.

/** The files of the trained model, relative to this folder. */
export const FILES = {
  ir: 'model.json', // input x [1, 1, 8, 8]: one image
  irBatch: 'model_batch.json', // input x [N, 1, 8, 8]: the whole held-out set at once
  weights: 'weights.safetensors',
  testSet: 'digits_test.safetensors',
  training: 'training.json',
};

export const SIDE = 8; // images are 8x8, values 0..16 in load_digits, divided by 16 for the model
export const PIXELS = SIDE * SIDE;

/**
 * The held-out digits from parseSafetensors(digits_test.safetensors):
 * {n, images: Float32Array(n*64) (0..1), labels: number[], torchLogits: Float32Array(n*10),
 *  torchPred: number[], image(i): Float32Array(64)}.
 */
export function readTestSet(tensors) {
  const get = (name) => {
    const t = tensors.get(name);
    if (!t) throw new Error(`digits test set: no tensor '${name}'`);
    return t;
  };
  const images = get('images');
  const n = images.shape[0];
  if (images.shape.join() !== [n, 1, SIDE, SIDE].join()) throw new Error(`digits test set: images are [${images.shape}], expected [N, 1, 8, 8]`);
  const labels = Array.from(get('labels').data, Number);
  const torchPred = Array.from(get('torch_pred').data, Number);
  const torchLogits = get('torch_logits').data;
  if (labels.length !== n || torchPred.length !== n || torchLogits.length !== n * 10) throw new Error('digits test set: tensor sizes disagree');
  return {
    n, images: images.data, labels, torchLogits, torchPred,
    image: (i) => images.data.subarray(i * PIXELS, (i + 1) * PIXELS),
  };
}

/** Index of the largest of values[offset .. offset+count). */
export function argmax(values, offset = 0, count = values.length - offset) {
  let best = 0;
  for (let k = 1; k < count; ++k) if (values[offset + k] > values[offset + best]) best = k;
  return best;
}

/** Softmax of logits (any array-like) as a Float64Array. */
export function softmax(logits) {
  const m = Math.max(...logits);
  const e = Float64Array.from(logits, (v) => Math.exp(v - m));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / sum);
}

/** The k most likely classes as [{digit, p}], most likely first. */
export function topK(logits, k = 3) {
  const p = softmax(logits);
  return Array.from(p, (v, digit) => ({ digit, p: v })).sort((a, b) => b.p - a.p).slice(0, k);
}

const RAMP = ' .:-=+*#%@';

/** An image (64 values, 0..1) as 8 lines of ASCII art, two characters per pixel. */
export function asciiDigit(image) {
  const lines = [];
  for (let y = 0; y < SIDE; ++y) {
    let s = '';
    for (let x = 0; x < SIDE; ++x) {
      const v = Math.min(1, Math.max(0, image[y * SIDE + x]));
      const c = RAMP[Math.round(v * (RAMP.length - 1))];
      s += c + c;
    }
    lines.push(s);
  }
  return lines;
}

/**
 * Turns a drawing into the model's 8x8 input, the way load_digits images were made (UCI
 * optdigits: the digit scaled to fill a 32x32 box with its aspect ratio kept, then the "on"
 * pixels counted in each 4x4 block, giving 0..16): here the ink's bounding box is scaled so its
 * longer side spans the 8 cells, centred, and each cell gets the ink area it covers (exact box
 * filter), divided by the cell's area (0..1 = count / 16).
 *
 * ink: darkness per pixel, 0 (paper) .. 1 (full ink), row-major width x height.
 * Returns Float32Array(64) in 0..1, or null when nothing is drawn.
 */
export function inkToDigit(ink, width, height, threshold = 0.05) {
  let x0 = width;
  let y0 = height;
  let x1 = -1;
  let y1 = -1;
  for (let y = 0; y < height; ++y) {
    for (let x = 0; x < width; ++x) {
      if (ink[y * width + x] > threshold) {
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        if (y > y1) y1 = y;
      }
    }
  }
  if (x1 < 0) return null;
  const bw = x1 - x0 + 1;
  const bh = y1 - y0 + 1;
  const k = SIDE / Math.max(bw, bh); // cells per source pixel
  const ox = SIDE / 2 - (bw * k) / 2; // cell coordinate of the box's left edge
  const oy = SIDE / 2 - (bh * k) / 2;
  const sum = new Float64Array(PIXELS);
  // Overlap of the source pixel interval [a, a+k) with each cell [c, c+1).
  const spans = (a) => {
    const list = [];
    for (let c = Math.max(0, Math.floor(a)); c < SIDE && c < a + k; ++c) {
      const len = Math.min(a + k, c + 1) - Math.max(a, c);
      if (len > 0) list.push([c, len]);
    }
    return list;
  };
  const colSpans = [];
  for (let x = 0; x < bw; ++x) colSpans.push(spans(ox + x * k));
  for (let y = 0; y < bh; ++y) {
    const rows = spans(oy + y * k);
    for (let x = 0; x < bw; ++x) {
      const v = ink[(y0 + y) * width + x0 + x];
      if (v <= 0) continue;
      for (const [cy, ly] of rows) for (const [cx, lx] of colSpans[x]) sum[cy * SIDE + cx] += v * ly * lx;
    }
  }
  return Float32Array.from(sum, (v) => Math.min(1, v));
}
