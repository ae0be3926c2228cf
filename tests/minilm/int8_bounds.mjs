// The bounds an int8 MiniLM embedding must meet (models/all-MiniLM-L6-v2-int8/reference.json;
// tests/minilm/embed_int8.test.mjs explains them), shared by the WASM and WebGPU checks:
// - against PyTorch's quantized module, per sentence: within twice (as an angle) what PyTorch's
//   own perturbed runs of that sentence moved: cosine >= 1 - 4 (1 - their min cosine), capped at
//   0.9999, and max |diff| <= 2x theirs;
// - against float32 PyTorch: the min and the mean cosine are at least the lowest min and mean of
//   PyTorch's perturbed draws minus 0.001.
export const MIN_COSINE = 0.9999;
export const F32_SLACK = 0.001;

export function int8Bounds(ref, s) {
  const p = ref.perturbed;
  const spread = s.perturbed_vs_unperturbed[String(s.seq)];
  return { cos: Math.min(MIN_COSINE, 1 - 4 * (1 - spread.min_cosine)), diff: 2 * spread.max_abs_diff,
    f32: p.min_cosine_vs_f32 - F32_SLACK, mean: p.min_mean_cosine_vs_f32 - F32_SLACK };
}
