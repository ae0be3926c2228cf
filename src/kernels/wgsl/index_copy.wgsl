// index_copy_ in place (KV caches): Dst[..., Idx[j], ...] = Src[..., j, ...] along `dim`. One
// invocation per Src element (Src strided, Dst with its strides: a cache slice); Idx int32,
// contiguous; negative indices wrap, others outside the dim write nothing.
// Workgroups: grid(ceil(numel / 64)).
{{DECLS}}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = wg_linear(wid, nwg) * WG + lid;
  if (i >= mu(M_NUMEL)) { return; }
  let dim = mu(M_DIM);
  var rem = i;
  var os = mu(M_SRC_OFF);
  var od = 0u;
  var j = 0i;
  for (var d = i32(mu(M_RANK)) - 1; d >= 0; d--) {
    let du = u32(d);
    let s = mu(M_SHAPE + du);
    let q = rem % s;
    rem = rem / s;
    os += q * mu(M_SRC_STRIDES + du);
    if (du == dim) { j = Idx[q]; } else { od += q * mu(M_DST_STRIDES + du); }
  }
  let n = i32(mu(M_DST_DIM_SIZE));
  if (j < 0) { j += n; }
  if (j < 0 || j >= n) { return; }
  Dst[od + u32(j) * mu(M_DST_STRIDES + dim)] = Src[os];
}
