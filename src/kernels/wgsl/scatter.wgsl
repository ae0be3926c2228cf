// scatter / scatter_add in gather form, so no two invocations write one element: each output
// element o starts from X[o] (self), then walks the index positions that can write it (o's
// coordinates, with t along `dim`, inside Idx's shape) in order, so the last write wins as in
// the CPU's row-major loop, and additions happen in the CPU's order. MODE 0: out = Src[q];
// 1: out = value; 2: out += Src[q]. An index outside [-dim_size, dim_size) matches nothing
// (the GPU cannot raise; docs/webgpu.md, Limits). Y contiguous; X (self), Idx and Src strided.
// Workgroups: grid(ceil(numel / 64)).
const MODE: u32 = {{MODE}}u;
{{DECLS}}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = wg_linear(wid, nwg) * WG + lid;
  if (i >= mu(M_NUMEL)) { return; }
  let dim = mu(M_DIM);
  var rem = i;
  var os = mu(M_SELF_OFF);
  var oi = mu(M_IDX_OFF);
  var oq = mu(M_SRC_OFF);
  var qd = 0u;
  var inside = true;  // o's coordinates (but dim) lie inside Idx's shape
  for (var d = i32(mu(M_RANK)) - 1; d >= 0; d--) {
    let du = u32(d);
    let s = mu(M_SHAPE + du);
    let q = rem % s;
    rem = rem / s;
    os += q * mu(M_SELF_STRIDES + du);
    if (du == dim) { qd = q; continue; }
    inside = inside && q < mu(M_IDX_SHAPE + du);
    oi += q * mu(M_IDX_STRIDES + du);
    oq += q * mu(M_SRC_STRIDES + du);
  }
  var v = X[os];
  if (inside) {
    let n = i32(mu(M_DIM_SIZE));
    for (var t = 0u; t < mu(M_IDX_SHAPE + dim); t++) {
      var j = Idx[oi + t * mu(M_IDX_STRIDES + dim)];
      if (j < 0) { j += n; }
      if (j != i32(qd)) { continue; }
      let q = oq + t * mu(M_SRC_STRIDES + dim);
      if (MODE == 0u) { v = Src[q]; } else if (MODE == 1u) { v = Y_T(mf(M_VALUE)); } else { v += Src[q]; }
    }
  }
  Y[i] = v;
}
