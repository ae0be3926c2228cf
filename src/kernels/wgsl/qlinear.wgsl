// Linear layer on quantized operands, summed exactly in integers (the lowered steps of
// ops/linear_8da4w.cpp, torchao's 8da4w with int4 weights in int8 storage, and of
// ops/linear_int8.cpp, PT2E's int8 linear after quantize_blocks.wgsl quantized its input):
//   Y[m, n] = as(m) * sum_g ws(n, g) * sum_{k in g} (A[m, k] - az(m)) * (W[n, k] - wz(n, g)) + Bias[n]
// A [M, K] and W [N, K] are int8 / uint8 bytes, four to a word (a_off counts words, w_off
// elements); with w_int4, W is 4-bit, eight to a word (K a multiple of 8: rows start at whole
// words). Groups of g k along each row (K = groups * g, g a multiple of 4: four consecutive k
// never straddle a group).
// Parameters: as(m) = AS[as_off + m * as_rs] (as_rs 0: per tensor), or a_scale where as_meta;
// ws(n, g) = WS[ws_off + n * ws_n + g] (ws_n: groups, 1 per channel). Zero points: *_kind 0 none,
// 1 int8 bytes, 2 uint8 bytes, 3 int32 words (AZ, WZ bound as u32; ops/webgpu.h
// gpu_zero_point_kind), 4 the a_zero parameter; indexed as their scales (az_rs, wz_n).
// One workgroup per output column n and block of RB rows: its 64 invocations stride over the words
// of W's row n (coalesced), each word's four products summed in i32 and scaled by its group's
// weight scale; the RB rows reuse each weight word. Then a workgroup sum per row. Workgroups:
// grid(N * ceil(M / RB)). Eight storage bindings, WebGPU's guaranteed most per stage: a fused
// epilogue runs in a second dispatch (ops/webgpu.cpp gpu_qlinear).
{{DECLS}}

const RB: u32 = 4u;
var<workgroup> part: array<f32, 256>;  // RB * 64

fn az_at(m: u32) -> i32 {
  let kind = mu(M_AZ_KIND);
  if (kind == 0u) { return 0; }
  if (kind == 4u) { return i32(mf(M_A_ZERO)); }
  let e = mu(M_AZ_OFF) + m * mu(M_AZ_RS);
  return zero_point_in(kind, AZ[zero_point_word(kind, e)], e);
}
fn wz_at(n: u32, g: u32) -> i32 {
  let kind = mu(M_WZ_KIND);
  if (kind == 0u) { return 0; }
  let e = mu(M_WZ_OFF) + n * mu(M_WZ_N) + g;
  return zero_point_in(kind, WZ[zero_point_word(kind, e)], e);
}
// W[n, k .. k + 3] (k a multiple of 4) as integers.
fn weights4(n: u32, k: u32, K: u32) -> vec4<i32> {
  let e = mu(M_W_OFF) + n * K + k;
  if (mu(M_W_INT4) != 0u) {
    let word = bitcast<i32>(W[e >> 3u]);
    let b = (e & 7u) * 4u;
    return vec4<i32>(extractBits(word, b, 4u), extractBits(word, b + 4u, 4u), extractBits(word, b + 8u, 4u),
                     extractBits(word, b + 12u, 4u));
  }
  return bytes4(W[e >> 2u], mu(M_W_SIGNED) != 0u);
}
fn bytes4(word: u32, signed: bool) -> vec4<i32> {
  if (signed) { return vec4<i32>(byte_s8(word, 0u), byte_s8(word, 1u), byte_s8(word, 2u), byte_s8(word, 3u)); }
  return vec4<i32>(byte_u8(word, 0u), byte_u8(word, 1u), byte_u8(word, 2u), byte_u8(word, 3u));
}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let M = mu(M_M);
  let N = mu(M_N);
  let K = mu(M_K);
  let G = mu(M_G);
  let id = wg_linear(wid, nwg);
  let blocks = (M + RB - 1u) / RB;
  if (id >= N * blocks) { return; }
  let n = id % N;
  let m0 = (id / N) * RB;
  let rows = min(RB, M - m0);
  var az: array<i32, 4>;
  for (var r = 0u; r < rows; r++) { az[r] = az_at(m0 + r); }
  var acc = array<f32, 4>(0.0, 0.0, 0.0, 0.0);
  let words = K / 4u;
  let a_signed = mu(M_A_SIGNED) != 0u;
  for (var w = lid; w < words; w += 64u) {
    let k = w * 4u;
    let g = k / G;
    let wv = weights4(n, k, K) - vec4<i32>(wz_at(n, g));
    let s = WS[mu(M_WS_OFF) + n * mu(M_WS_N) + g];
    for (var r = 0u; r < rows; r++) {
      let av = bytes4(A[mu(M_A_OFF) + (m0 + r) * words + w], a_signed) - vec4<i32>(az[r]);
      acc[r] = fma(s, f32(dot(av, wv)), acc[r]);
    }
  }
  for (var r = 0u; r < RB; r++) { part[r * 64u + lid] = acc[r]; }
  workgroupBarrier();
  for (var h = 32u; h > 0u; h >>= 1u) {
    if (lid < h) {
      for (var r = 0u; r < RB; r++) { part[r * 64u + lid] += part[r * 64u + lid + h]; }
    }
    workgroupBarrier();
  }
  if (lid < rows) {
    let m = m0 + lid;
    let a_scale = select(AS[mu(M_AS_OFF) + m * mu(M_AS_RS)], mf(M_A_SCALE), mu(M_AS_META) != 0u);
    var y = part[lid * 64u] * a_scale;
    if (mu(M_HAS_BIAS) != 0u) { y += Bias[mu(M_BIAS_OFF) + n]; }
    Y[m * N + n] = y;
  }
}
