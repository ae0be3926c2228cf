// General matrix multiply, the one entry point every matmul/linear/conv op
// goes through:  C = act(alpha * op(A) * op(B) + beta * C + bias + residual)
// op(A) is M x K: A(i,k) = A[i*lda + k], or A[k*lda + i] when transA.
// op(B) is K x N: B(k,j) = B[k*ldb + j], or B[j*ldb + k] when transB.
// C is M x N row-major with row stride ldc. beta == 0 overwrites C without
// reading it (NaN/garbage in C does not leak, as BLAS and torch's addmm).
//
// f32 runs on Highway SIMD (BLIS-style: A packed into MR-row panels, B into
// NR-column panels, a register-blocked MR x NR micro-kernel, KC/MC/NC cache
// blocks, threads over column or row blocks). Constant operands can be packed
// once (pack_a_f32 / pack_b_f32, done by ops at prepare) and passed as packed.
// Every element sums its K products in the same order whatever the thread
// count or blocking, so results do not depend on the number of threads.
// gemm_ref is the scalar reference the SIMD path is tested against.
//
// Half-precision weights (LLM decode): a packed B may hold IEEE binary16 or
// bfloat16 halves instead of floats (pack_b_half, same panel layout). The
// kernel widens them in registers (M == 1) or per KC x NC block into thread
// scratch (M > 1) and accumulates in f32: the result is bit-identical to the
// f32 gemm on the widened weights, for every thread count.
#pragma once
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "core/function_ref.h"
#include "kernels/elementwise_simd.h"  // UnaryRowF32

namespace tir {

// What the gemm does to each finished output element, in this order:
// + bias (per row or per column), + residual[i*ldr + j], then the activation.
enum class GemmAct : uint8_t { None, Relu, Clamp /* [lo, hi] */ };
struct GemmEpilogue {
  const float* bias = nullptr;
  bool bias_per_row = false;        // bias[i] (conv NCHW) or bias[j] (linear)
  const float* residual = nullptr;  // may alias C only element-for-element (same ld)
  int64_t ldr = 0;
  GemmAct act = GemmAct::None;
  float lo = -std::numeric_limits<float>::infinity();
  float hi = std::numeric_limits<float>::infinity();
  // After all of the above, when set: a float32 row kernel (unary_row_f32 of gelu, silu, ...)
  // over each finished block of rows while it is still in cache, on the thread that computed it.
  // It is the kernel unary_kernel runs, and its lanes are independent, so the bits equal those
  // of a second pass over the finished output. Not part of trivial(): the tile stores ignore it.
  UnaryRowF32 act_row = nullptr;
  bool trivial() const { return !bias && !residual && act == GemmAct::None; }
};

// epi.act_row over rows [0, M) x columns [0, N) of C (nothing when it is null).
void apply_gemm_act_rows(int64_t M, int64_t N, float* C, int64_t ldc, const GemmEpilogue& epi);

// The epilogue's activation on one value (NaN stays NaN: torch's relu/clamp
// propagate it). The scalar paths of every kernel with an epilogue use it.
inline float apply_gemm_act(float v, const GemmEpilogue& e) {
  if (e.act == GemmAct::Relu) return v < 0.0f ? 0.0f : v;
  if (e.act == GemmAct::Clamp) return v < e.lo ? e.lo : (v > e.hi ? e.hi : v);
  return v;
}

// Micro-kernel tile of the SIMD target in use (WASM128: 4 x 8, SSE4: 6 x 8,
// AVX2: 6 x 16, AVX-512: 6 x 32; natively chosen at run time, simd_dispatch.h).
// The packed layouts below follow it: pack and multiply under the same target.
int64_t gemm_mr();
int64_t gemm_nr();

// Whether the blocked f32 path runs its cache blocks on the relaxed-SIMD micro-kernel (WASM where
// the engine's JS found relaxed SIMD: kernels/wasm_relaxed/gemm_f32_relaxed.c, f32x4.relaxed_madd),
// and whether that multiply-add is fused there (one rounding; bits then differ from SIMD128's, by
// less error). Decided once per process; the module option { tirRelaxedSimd: false } turns it off.
bool gemm_f32_relaxed();
bool gemm_f32_relaxed_fused();

// Packed operands: zero-padded panels, A as [ceil(M/MR)][K][MR], B as
// [ceil(N/NR)][K][NR]. Sizes in floats.
int64_t packed_a_size(int64_t M, int64_t K);
int64_t packed_b_size(int64_t K, int64_t N);
void pack_a_f32(int64_t M, int64_t K, const float* A, int64_t lda, bool transA, float* dst);
void pack_b_f32(int64_t K, int64_t N, const float* B, int64_t ldb, bool transB, float* dst);

// Half-precision packed B: the layout of pack_b_f32 ([ceil(N/NR)][K][NR],
// zero-padded, packed_b_size(K, N) elements) holding uint16 halves, rounded
// from f32 to nearest even (core/half.h: overflow gives inf, NaN stays NaN).
enum class PackedHalf : uint8_t { None, F16, BF16 };
void pack_b_half(int64_t K, int64_t N, const float* B, int64_t ldb, bool transB, PackedHalf kind, uint16_t* dst);
// True when none of the n halves is inf or NaN (GemmOperandB::half_finite).
bool halves_finite(int64_t n, const uint16_t* halves, PackedHalf kind);
// The K x N matrix (row stride ldd) of a packed half B, widened to f32 with
// the scalar conversions: the reference the tests run gemm_ref_f32 on.
void unpack_b_half(int64_t K, int64_t N, const uint16_t* packed, PackedHalf kind, float* dst, int64_t ldd);

// B given block by block: fills dst with op(B)[k0:k0+kc, j0:j0+nc] in the
// packed-B layout of that block ([ceil(nc/NR)][kc][NR], zero-padded).
// Convolutions pass an im2col that writes packed blocks directly.
using PackBBlock = FunctionRef<void(int64_t k0, int64_t kc, int64_t j0, int64_t nc, float* dst)>;

// The operands of one f32 gemm: A and B each packed (whole-matrix layout
// above), or as a strided matrix, or (B only) a block packer or packed halves.
struct GemmOperandA {
  const float* packed = nullptr;
  const float* data = nullptr;
  int64_t ld = 0;
  bool trans = false;
};
struct GemmOperandB {
  const float* packed = nullptr;
  const float* data = nullptr;
  int64_t ld = 0;
  bool trans = false;
  const PackBBlock* pack_block = nullptr;
  // Packed halves (pack_b_half) of kind `half`, used when `packed` is null.
  const uint16_t* packed_half = nullptr;
  PackedHalf half = PackedHalf::None;
  // F16 only, a promise that no half is inf or NaN (halves_finite): targets
  // without a hardware f16 conversion (WASM, SSE4) then widen with 3 integer
  // ops instead of ~12. Results are the same either way.
  bool half_finite = false;
  // Where an M == 1 product packs an unpacked B (packed_b_size(K, N) floats), instead of the
  // calling thread's grow-only scratch: a caller that threads over many small products gives
  // each thread its own (thread_index()), so no pool worker allocates on its first product.
  float* pack_scratch = nullptr;
};

void gemm_f32_ex(int64_t M, int64_t N, int64_t K, const GemmOperandA& A, const GemmOperandB& B, float* C,
                 int64_t ldc, float alpha = 1.0f, float beta = 0.0f, const GemmEpilogue& epi = {});

void gemm_f32(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, bool transA, const float* B,
              int64_t ldb, bool transB, float* C, int64_t ldc, float alpha, float beta);

void gemm_f64(int64_t M, int64_t N, int64_t K, const double* A, int64_t lda, bool transA, const double* B,
              int64_t ldb, bool transB, double* C, int64_t ldc, double alpha, double beta);

// Scalar reference (cache-blocked loops), f32 with the same epilogue.
void gemm_ref_f32(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, bool transA, const float* B,
                  int64_t ldb, bool transB, float* C, int64_t ldc, float alpha, float beta,
                  const GemmEpilogue& epi = {});

// Applies an epilogue but its act_row to an M x N block already holding the product (used by
// the reference and by kernels that compute outside the gemm).
void apply_gemm_epilogue_ref(int64_t M, int64_t N, float* C, int64_t ldc, const GemmEpilogue& epi,
                             int64_t row0 = 0, int64_t col0 = 0);

// Integer matmul (rare; plain loops, wrapping arithmetic as torch).
template <typename T>
void gemm_int(int64_t M, int64_t N, int64_t K, const T* A, int64_t lda, bool transA, const T* B, int64_t ldb,
              bool transB, T* C, int64_t ldc, T alpha, T beta);

}  // namespace tir
