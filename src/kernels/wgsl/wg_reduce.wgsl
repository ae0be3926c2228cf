// Shared workgroup reduction of the 64-invocation kernels (reduce, rowwise, sdpa).
var<workgroup> red: array<f32, 64>;

// Workgroup-wide sum (op 0), max (1) or min (2) of each invocation's v (NaN propagating, as
// torch); every invocation gets it.
fn wg_reduce(v: f32, lid: u32, op: u32) -> f32 {
  red[lid] = v;
  workgroupBarrier();
  for (var w = 32u; w > 0u; w >>= 1u) {
    if (lid < w) {
      let a = red[lid];
      let b = red[lid + w];
      red[lid] = select(select(a + b, max_nan(a, b), op == 1u), min_nan(a, b), op == 2u);
    }
    workgroupBarrier();
  }
  let r = red[0];
  workgroupBarrier();
  return r;
}
