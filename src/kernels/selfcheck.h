// Kernel self-check: the SIMD kernels against scalar references, swept over
// sizes around every tile edge (XNNPACK-tester style). Lives in the library so
// the same sweep runs natively (tests/cpp/unit) and inside the WASM build
// (npm/test through the bindings), where the SIMD target differs.
#pragma once
#include <string>

namespace tir {

struct SelfcheckResult {
  int cases = 0;
  int failures = 0;
  std::string report;  // one line per failure (the first 20)
};

// gemm: M/N/K around MR, NR and KC; transposed, padded and prepacked operands;
// every epilogue. Compared with gemm_ref_f32 and a float64 truth. Packed f16
// and bf16 B (same sweep, GEMV 1 x 1000 x 1024, every half bit pattern):
// bit-identical to the f32 gemm on the widened weights.
SelfcheckResult selfcheck_gemm();
// conv_nd_f32 (packed im2col gemm, 1x1, depthwise SIMD, Winograd 3x3) and
// the Winograd kernel called directly, against a direct float64 loop:
// 1-D/2-D/3-D, strides, padding, dilation, groups, odd sizes, bias, residual,
// activations and folded per-oc scales.
SelfcheckResult selfcheck_conv();
// SIMD max pooling (kernels/pool_f32.cpp) against a direct loop: strides 1-3,
// padding, dilation, odd sizes, NaN inputs.
SelfcheckResult selfcheck_pool();
// The transcendental float32 rows (exp, sigmoid, silu, gelu, gelu-tanh: float64
// lanes natively, float32 lanes on WASM) over a sweep of each sign's floats:
// max ulp error against float64 no worse than the scalar reference's (or 1 ulp),
// and the reference's results on NaN, +-inf and +-0. Then softmax_f32's rows
// (on that exp row) against float64 and the scalar reference.
SelfcheckResult selfcheck_transcendental();
// The quantized kernels (kernels/selfcheck_quantized.cpp): the int8 GEMM, the int8 x int4
// group-wise GEMM (every epilogue) and the dynamic activation rows, bit for bit against their
// scalar references.
SelfcheckResult selfcheck_quantized();

}  // namespace tir
