// The fused epilogue of a producer kernel (runtime/fusion.cpp; on the CPU, ops/epilogue.cpp),
// applied to the output element at flat index i of the producer's contiguous output, in order:
//   batch norm (epi_bn = the channel count C, 0: none): y * Affine[c] + Affine[C + c],
//     c = (i / epi_inner) % C
//   residual (epi_res != 0): + Res[epi_res_off + i]
//   activation (epi_act): 1 relu, 2 clamp to [epi_lo, epi_hi]; NaN stays NaN (torch), hence
//   the comparisons rather than WGSL's max/min/clamp, whose NaN results are implementation-defined;
//   or a smooth activation: {{EPI_ACT}}, the expression in `a` of an elementwise_ops.json op (the
//   dispatch's subst EPI_OP; kernels.ts), identity without one.
// The including kernel declares the bindings Res and Affine and the epi_* parameters.
fn epilogue_act(a: f32) -> f32 { return {{EPI_ACT}}; }

fn epilogue(v: f32, i: u32) -> f32 {
  var y = v;
  let channels = mu(M_EPI_BN);
  if (channels != 0u) {
    let c = (i / mu(M_EPI_INNER)) % channels;
    y = y * f32(Affine[c]) + f32(Affine[channels + c]);
  }
  if (mu(M_EPI_RES) != 0u) { y += f32(Res[mu(M_EPI_RES_OFF) + i]); }
  let act = mu(M_EPI_ACT);
  if (act == 1u) {
    y = select(y, 0.0, y < 0.0);
  } else if (act == 2u) {
    y = select(y, mf(M_EPI_LO), y < mf(M_EPI_LO));
    y = select(y, mf(M_EPI_HI), y > mf(M_EPI_HI));
  }
  return epilogue_act(y);
}
