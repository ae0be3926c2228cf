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
#pragma once
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

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
  bool trivial() const { return !bias && !residual && act == GemmAct::None; }
};

// The epilogue's activation on one value (NaN stays NaN: torch's relu/clamp
// propagate it). The scalar paths of every kernel with an epilogue use it.
inline float apply_gemm_act(float v, const GemmEpilogue& e) {
  if (e.act == GemmAct::Relu) return v < 0.0f ? 0.0f : v;
  if (e.act == GemmAct::Clamp) return v < e.lo ? e.lo : (v > e.hi ? e.hi : v);
  return v;
}

// Micro-kernel tile of the compiled SIMD target (WASM128: 4 x 8, AVX2: 6 x 16,
// AVX-512: 6 x 32).
int64_t gemm_mr();
int64_t gemm_nr();

// Packed operands: zero-padded panels, A as [ceil(M/MR)][K][MR], B as
// [ceil(N/NR)][K][NR]. Sizes in floats.
int64_t packed_a_size(int64_t M, int64_t K);
int64_t packed_b_size(int64_t K, int64_t N);
void pack_a_f32(int64_t M, int64_t K, const float* A, int64_t lda, bool transA, float* dst);
void pack_b_f32(int64_t K, int64_t N, const float* B, int64_t ldb, bool transB, float* dst);

// B given block by block: fills dst with op(B)[k0:k0+kc, j0:j0+nc] in the
// packed-B layout of that block ([ceil(nc/NR)][kc][NR], zero-padded).
// Convolutions pass an im2col that writes packed blocks directly.
using PackBBlock = std::function<void(int64_t k0, int64_t kc, int64_t j0, int64_t nc, float* dst)>;

// The operands of one f32 gemm: A and B each packed (whole-matrix layout
// above), or as a strided matrix, or (B only) a block packer.
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

// Applies an epilogue to an M x N block already holding the product (used by
// the reference and by kernels that compute outside the gemm).
void apply_gemm_epilogue_ref(int64_t M, int64_t N, float* C, int64_t ldc, const GemmEpilogue& epi,
                             int64_t row0 = 0, int64_t col0 = 0);

// Integer matmul (rare; plain loops, wrapping arithmetic as torch).
template <typename T>
void gemm_int(int64_t M, int64_t N, int64_t K, const T* A, int64_t lda, bool transA, const T* B, int64_t ldb,
              bool transB, T* C, int64_t ldc, T alpha, T beta);

}  // namespace tir
