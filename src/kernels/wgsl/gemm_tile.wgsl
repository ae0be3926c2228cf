// The tiled GEMM core of matmul.wgsl and conv2d_gemm.wgsl: T x T outputs per workgroup of S x S
// invocations, R x R outputs each (T, S = {{TILE}}, {{THREADS}}), K in steps of TK through
// workgroup memory. Per step the kernel fills As[k][m] and Bs[k][n] (LOADS elements of each per
// invocation, zeros past the edges), then calls tile_mac. Each row of As and Bs is padded by one
// element: a load that walks k fastest (A row-major, a linear's W^T) stores TK consecutive
// invocations' values T + 1 apart, in different banks, where T apart would be one bank.
const T: u32 = {{TILE}}u;
const S: u32 = {{THREADS}}u;
const R: u32 = T / S;
const TK: u32 = 16u;
const LOADS: u32 = T * TK / (S * S);
const TP: u32 = T + 1u;
var<workgroup> As: array<array<f32, TP>, 16>;  // [k][row]
var<workgroup> Bs: array<array<f32, TP>, 16>;  // [k][column]

// acc[i][j] += sum over the step's TK of As[k][lid.y + S*i] * Bs[k][lid.x + S*j].
fn tile_mac(lid: vec3<u32>, acc: ptr<function, array<array<f32, R>, R>>) {
  for (var kk = 0u; kk < TK; kk++) {
    var a: array<f32, R>;
    var b: array<f32, R>;
    for (var i = 0u; i < R; i++) { a[i] = As[kk][lid.y + S * i]; b[i] = Bs[kk][lid.x + S * i]; }
    for (var i = 0u; i < R; i++) {
      for (var j = 0u; j < R; j++) { (*acc)[i][j] = fma(a[i], b[j], (*acc)[i][j]); }
    }
  }
}
