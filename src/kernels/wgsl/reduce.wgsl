// Reduction over one dim of a strided view: sum, mean, amax, amin, var/std (two passes, with
// correction), argmax/argmin (first index of the extreme, as torch; NaN the extreme), the 2-norm. One workgroup
// per output element; Y (and I for arg modes, int32) contiguous over the kept dims. Argmax alone
// binds a 4-byte dummy as Y: values are written only where Y has room. Workgroups: grid(rows).
const MODE: u32 = {{MODE}}u;  // 0 sum, 1 mean, 2 amax, 3 amin, 4 var, 5 std, 6 argmax, 7 argmin, 8 norm2
// The element type of X and Y: f32, or i32 for argmax/argmin (and max.dim/min.dim) of integers
// (compared as integers: exact); the other modes compute in f32.
alias TX = {{TX}};
const X_FLOAT: bool = {{X_FLOAT}};
{{DECLS}}
var<workgroup> redv: array<TX, 64>;
var<workgroup> redi: array<u32, 64>;

fn x_nan(v: TX) -> bool { return X_FLOAT && is_nan_f(bitcast<f32>(v)); }
// Arg modes: v strictly before best (a NaN is the extreme either way and stays once found: the
// first NaN's index, as torch).
fn arg_before(v: TX, best: TX) -> bool {
  if (x_nan(best)) { return false; }
  if (x_nan(v)) { return true; }
  return select((v < best), (v > best), MODE == 6u);  // parenthesized: else parsed as a template list
}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let row = wg_linear(wid, nwg);
  if (row >= mu(M_ROWS)) { return; }
  let base = row_offset(row, M_X_STRIDES, mu(M_X_OFF));
  let R = mu(M_R);
  let rs = mu(M_R_STRIDE);
  if (MODE == 6u || MODE == 7u) {
    var best = TX(0);
    var bi = 0xffffffffu;
    for (var k = lid; k < R; k += 64u) {
      let v = X[base + k * rs];
      if (bi == 0xffffffffu || arg_before(v, best)) { best = v; bi = k; }
    }
    redv[lid] = best;
    redi[lid] = bi;
    workgroupBarrier();
    for (var w = 32u; w > 0u; w >>= 1u) {
      if (lid < w) {
        let vb = redv[lid + w];
        let ib = redi[lid + w];
        let va = redv[lid];
        let ia = redi[lid];
        let same = select(vb == va, x_nan(va) && x_nan(vb), x_nan(va) || x_nan(vb));
        if (ib != 0xffffffffu && (ia == 0xffffffffu || arg_before(vb, va) || (same && ib < ia))) { redv[lid] = vb; redi[lid] = ib; }
      }
      workgroupBarrier();
    }
    if (lid == 0u) {
      if (row < arrayLength(&Y)) { Y[row] = redv[0]; }
      I[row] = i32(redi[0]);
    }
    return;
  }
  var init = 0.0;
  var op = 0u;
  if (MODE == 2u || MODE == 3u) { init = f32(X[base]); op = MODE - 1u; }
  var acc = init;
  for (var k = lid; k < R; k += 64u) {
    var v = f32(X[base + k * rs]);
    if (MODE == 8u) { v = v * v; }
    acc = select(select(acc + v, max_nan(acc, v), op == 1u), min_nan(acc, v), op == 2u);
  }
  var total = wg_reduce(acc, lid, op);
  if (MODE == 1u) { total = total / f32(R); }
  if (MODE == 8u) { total = sqrt(total); }
  if (MODE == 4u || MODE == 5u) {
    let mean = total / f32(R);
    var sq = 0.0;
    for (var k = lid; k < R; k += 64u) { let dv = f32(X[base + k * rs]) - mean; sq = fma(dv, dv, sq); }
    total = wg_reduce(sq, lid, 0u) / (f32(R) - bitcast<f32>(mu(M_CORRECTION)));
    if (MODE == 5u) { total = sqrt(total); }
  }
  if (lid == 0u) { Y[row] = TX(total); }
}
