// index.Tensor with two index tensors (CLIP's pooled token: x[arange(B), ids.argmax(-1)]): the
// index tensors broadcast together, and torch puts their broadcast dims in place of the indexed
// dims (adjacent) or first. Per output dim the lowering gives X's stride (a dim of X that is not
// indexed) and each index tensor's broadcast stride (a broadcast dim), so one walk over the
// output finds both: out[o] = X[x_off + sum_d o_d * x_strides[d] + I0[..] * s0 + I1[..] * s1].
// An index outside [-n, n) writes 0 (the GPU cannot raise); negative ones wrap.
// Workgroups: grid(ceil(numel / 64)).
{{DECLS}}

fn wrapped(j0: i32, n: u32) -> i32 {
  var j = j0;
  if (j < 0) { j += i32(n); }
  return select(j, -1, j < 0 || j >= i32(n));
}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = wg_linear(wid, nwg) * WG + lid;
  if (i >= mu(M_NUMEL)) { return; }
  var rem = i;
  var ox = mu(M_X_OFF);
  var o0 = mu(M_I0_OFF);
  var o1 = mu(M_I1_OFF);
  for (var d = i32(mu(M_RANK)) - 1; d >= 0; d--) {
    let du = u32(d);
    let s = mu(M_SHAPE + du);
    let q = rem % s;
    rem = rem / s;
    ox += q * mu(M_X_STRIDES + du);
    o0 += q * mu(M_I0_STRIDES + du);
    o1 += q * mu(M_I1_STRIDES + du);
  }
  let j0 = wrapped(I0[o0], mu(M_N0));
  let j1 = wrapped(I1[o1], mu(M_N1));
  if (j0 < 0 || j1 < 0) { Y[i] = Y_T(0); return; }
  Y[i] = Y_T(X[ox + u32(j0) * mu(M_S0) + u32(j1) * mu(M_S1)]);
}
