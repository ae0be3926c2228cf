// The HF rotary embedding that ops/higher_order.cpp recognizes in wrap_with_set_grad_enabled /
// wrap_with_autocast: a = position[b, s] * inv_freq[b?, j] (an f32 product, as HF computes
// freqs), then Cos and Sin [B, S, 2H] hold cos a and sin a at j and at H + j. Pos is read flat
// (contiguous, B*S values, i32 or f32); Inv through strides (batch stride 0 when shared).
// One invocation per (row, j). Workgroups: grid(ceil(B*S*H / 64)).
{{DECLS}}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = wg_linear(wid, nwg) * WG + lid;
  let h = mu(M_H);
  if (i >= mu(M_ROWS) * h) { return; }
  let row = i / h;
  let j = i % h;
  let b = row / mu(M_S);
  let a = f32(Pos[mu(M_POS_OFF) + row]) * Inv[mu(M_INV_OFF) + b * mu(M_INV_BS) + j * mu(M_INV_JS)];
  let sc = sincos_f(a);
  let o = row * 2u * h + j;
  Cos[o] = sc.y;
  Cos[o + h] = sc.y;
  Sin[o] = sc.x;
  Sin[o + h] = sc.x;
}
