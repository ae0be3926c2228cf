// topk along one dim of a strided view, in ops/sort.cpp's order: largest first with NaN first
// (or smallest first with NaN last), ties by the lower index, so the result equals the CPU's.
// One workgroup of 64 per row and k rounds: each is a workgroup arg-reduction over the elements
// that come after the one the last round took. Y (values) and I (int32 indices) are contiguous,
// k along the dim (y_strides: their strides over the kept dims). Workgroups: grid(rows).
const LARGEST: bool = {{LARGEST}};
const NONE: u32 = 0xffffffffu;
{{DECLS}}
var<workgroup> redv: array<f32, 64>;
var<workgroup> redi: array<u32, 64>;

// a's value strictly before b's (NaN counts as the largest value).
fn value_first(a: f32, b: f32) -> bool {
  if (LARGEST) { return select(a > b, !is_nan_f(b), is_nan_f(a)); }
  return select(a < b, !is_nan_f(a), is_nan_f(b));
}
// (va, ia) strictly before (vb, ib) in the output order; NONE comes after everything.
fn before(va: f32, ia: u32, vb: f32, ib: u32) -> bool {
  if (ia == NONE) { return false; }
  if (ib == NONE) { return true; }
  return value_first(va, vb) || (!value_first(vb, va) && ia < ib);
}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let row = wg_linear(wid, nwg);
  if (row >= mu(M_ROWS)) { return; }
  let base = row_offset(row, M_X_STRIDES, mu(M_X_OFF));
  let ybase = row_offset(row, M_Y_STRIDES, 0u);
  let R = mu(M_R);
  let rs = mu(M_R_STRIDE);
  var pv = 0.0;
  var pi = NONE;  // the element the last round took
  for (var t = 0u; t < mu(M_K); t++) {
    var bv = 0.0;
    var bi = NONE;
    for (var j = lid; j < R; j += 64u) {
      let v = f32(X[base + j * rs]);
      if ((pi == NONE || before(pv, pi, v, j)) && before(v, j, bv, bi)) { bv = v; bi = j; }
    }
    redv[lid] = bv;
    redi[lid] = bi;
    workgroupBarrier();
    for (var w = 32u; w > 0u; w >>= 1u) {
      if (lid < w && before(redv[lid + w], redi[lid + w], redv[lid], redi[lid])) {
        redv[lid] = redv[lid + w];
        redi[lid] = redi[lid + w];
      }
      workgroupBarrier();
    }
    pv = redv[0];
    pi = redi[0];
    workgroupBarrier();
    if (lid == 0u) {
      Y[ybase + t * mu(M_Y_K_STRIDE)] = pv;
      I[ybase + t * mu(M_Y_K_STRIDE)] = i32(pi);
    }
  }
}
