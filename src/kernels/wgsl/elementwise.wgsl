// Elementwise kernel template: one output element per invocation over an N-d (rank <= 6) output
// view (y_off, y_strides: writes into a slice of a larger buffer, e.g. cat); every input is a
// strided view broadcast to the output shape (stride 0 on broadcast dims). Generated per op and
// dtypes from elementwise_ops.json by npm/src/lib/webgpu/kernels.ts (T: compute type, TY: output type).
alias T = {{T}};
alias TY = {{TY}};
{{DECLS}}

// Whether v (of the compute type T) is NaN: on the bits (common.wgsl's is_nan_f); never for
// integer types.
fn nan_t(v: T) -> bool { return {{NAN_T}}; }

// col - row of output element idx within its last two dims (tril/triu; rank >= 2).
fn diagonal_of(idx: u32) -> i32 {
  let w = mu(M_SHAPE + mu(M_RANK) - 1u);
  let h = mu(M_SHAPE + mu(M_RANK) - 2u);
  return i32(idx % w) - i32((idx / w) % h);
}
// hypot without overflow or underflow of the squares (as std::hypot).
fn hypot_f(a: f32, b: f32) -> f32 {
  let m = max(abs(a), abs(b));
  if (m == 0.0 || m > 3.4e38) { return m; }
  let x = a / m;
  let y = b / m;
  return m * sqrt(x * x + y * y);
}

// A float32 rounded to float16 / bfloat16 precision and kept in f32, bit for bit as the CPU's
// casts to those dtypes (core/half.h: to nearest even, float16 overflow to inf, its subnormals
// in units of 2^-24, NaN kept): integer arithmetic on the bits, no shader-f16 needed.
fn round_f16_f(x: f32) -> f32 {
  let b = bitcast<u32>(x);
  let a = b & 0x7fffffffu;
  if (a > 0x7f800000u) { return x; }
  if (a >= 0x477ff000u) { return bitcast<f32>((b & 0x80000000u) | 0x7f800000u); }
  if (a < 0x38800000u) { return round(x * 16777216.0) / 16777216.0; }  // exact scalings
  return bitcast<f32>((b & 0x80000000u) | ((a + 0xfffu + ((a >> 13u) & 1u)) & 0xffffe000u));
}
fn round_bf16_f(x: f32) -> f32 {
  let b = bitcast<u32>(x);
  if ((b & 0x7fffffffu) > 0x7f800000u) { return bitcast<f32>((b & 0xffff0000u) | 0x400000u); }
  return bitcast<f32>((b + 0x7fffu + ((b >> 16u) & 1u)) & 0xffff0000u);
}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let idx = wg_linear(wid, nwg) * WG + lid;
  if (idx >= mu(M_NUMEL)) { return; }
  var rem = idx;
  var oy = mu(M_Y_OFF);
  {{OFFS}}
  for (var d = i32(mu(M_RANK)) - 1; d >= 0; d--) {
    let du = u32(d);
    let s = mu(M_SHAPE + du);
    let q = rem % s;
    rem = rem / s;
    oy += q * mu(M_Y_STRIDES + du);
    {{WALK}}
  }
  let p0 = mf(M_P0);
  let p1 = mf(M_P1);
  {{LOADS}}
  Y[oy] = {{RESULT}};
}
