// The SIMD f32 gemm and conv against scalar references and a float64 truth,
// XNNPACK style: sizes swept around every tile and cache-block edge (the
// shared selfcheck sweeps), prepacked operands with every epilogue, NaN,
// empty and K = 0 cases, and the thread-count independence of the result.
// Packed f16/bf16 B: rounding, and bit-identity with the f32 path on the
// widened weights at 1 and 2 threads.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/half.h"
#include "core/thread_pool.h"
#include "test_util.h"
#include "kernels/gemm.h"
#include "kernels/selfcheck.h"

namespace tir {
namespace {

struct Case {
  int64_t M, N, K;
  bool ta = false, tb = false;
  int64_t pad = 0;  // extra leading-dimension elements
};

using test::random_vec;

std::string name(const Case& c) {
  return "M=" + std::to_string(c.M) + " N=" + std::to_string(c.N) + " K=" + std::to_string(c.K) +
         (c.ta ? " A^T" : "") + (c.tb ? " B^T" : "") + (c.pad ? " padded" : "");
}

// Operands laid out as the case says; truth = sum in double; bound = sum |a*b|.
struct Problem {
  Case c;
  int64_t lda, ldb, ldc;
  std::vector<float> A, B, bias_row, bias_col, residual;
  std::vector<double> truth, bound;

  explicit Problem(const Case& cs, uint32_t seed = 1) : c(cs) {
    lda = (c.ta ? c.M : c.K) + c.pad;
    ldb = (c.tb ? c.K : c.N) + c.pad;
    ldc = c.N + c.pad;
    A = random_vec(size_t((c.ta ? c.K : c.M) * lda + 1), seed);
    B = random_vec(size_t((c.tb ? c.N : c.K) * ldb + 1), seed + 1);
    bias_row = random_vec(size_t(c.M + 1), seed + 2);
    bias_col = random_vec(size_t(c.N + 1), seed + 3);
    residual = random_vec(size_t(c.M * ldc + 1), seed + 4);
    compute_truth();
  }
  // Rounds op(B) to halves (packed into h) and keeps the widened values in B.
  void round_b(PackedHalf kind, std::vector<uint16_t>& h) {
    h.assign(size_t(packed_b_size(c.K, c.N)), 0xFFFF);
    pack_b_half(c.K, c.N, B.data(), ldb, c.tb, kind, h.data());
    std::vector<float> w(size_t(c.K * c.N));
    unpack_b_half(c.K, c.N, h.data(), kind, w.data(), c.N);
    for (int64_t k = 0; k < c.K; ++k)
      for (int64_t j = 0; j < c.N; ++j) B[size_t(c.tb ? j * ldb + k : k * ldb + j)] = w[size_t(k * c.N + j)];
    compute_truth();
  }
  void compute_truth() {
    truth.assign(size_t(c.M * c.N), 0.0);
    bound.assign(size_t(c.M * c.N), 0.0);
    for (int64_t i = 0; i < c.M; ++i)
      for (int64_t j = 0; j < c.N; ++j) {
        double s = 0, b = 0;
        for (int64_t k = 0; k < c.K; ++k) {
          const double p = double(a(i, k)) * double(bb(k, j));
          s += p;
          b += std::fabs(p);
        }
        truth[size_t(i * c.N + j)] = s;
        bound[size_t(i * c.N + j)] = b;
      }
  }
  float a(int64_t i, int64_t k) const { return c.ta ? A[size_t(k * lda + i)] : A[size_t(i * lda + k)]; }
  float bb(int64_t k, int64_t j) const { return c.tb ? B[size_t(j * ldb + k)] : B[size_t(k * ldb + j)]; }
};

// |got - want| within float32 accumulation error of a K-term sum.
void expect_close(const Problem& p, const std::vector<float>& C, const std::vector<double>& want,
                  const std::vector<double>& bound, const std::string& what) {
  int bad = 0;
  for (int64_t i = 0; i < p.c.M && bad < 5; ++i)
    for (int64_t j = 0; j < p.c.N && bad < 5; ++j) {
      const double w = want[size_t(i * p.c.N + j)];
      const double tol = 1e-6 + 2.0 * double(p.c.K + 2) * 6e-8 * (bound[size_t(i * p.c.N + j)] + std::fabs(w));
      const double g = C[size_t(i * p.ldc + j)];
      if (!(std::fabs(g - w) <= tol)) {
        ADD_FAILURE() << what << " " << name(p.c) << " at (" << i << "," << j << "): got " << g << ", want " << w
                      << " (tol " << tol << ")";
        ++bad;
      }
    }
}

// The tile-edge sweeps themselves live in kernels/selfcheck.cpp, so the WASM
// build runs the very same cases (npm/test/kernels.test.mjs).
TEST(GemmKernel, SelfcheckSweepAroundTileEdges) {
  const SelfcheckResult r = selfcheck_gemm();
  EXPECT_GT(r.cases, 250);
  EXPECT_EQ(r.failures, 0) << r.report;
}

TEST(ConvKernel, SelfcheckSweepAgainstDirectLoops) {
  const SelfcheckResult r = selfcheck_conv();
  EXPECT_GT(r.cases, 40);
  EXPECT_EQ(r.failures, 0) << r.report;
}

TEST(PoolKernel, SelfcheckMaxPoolAgainstDirectLoops) {
  const SelfcheckResult r = selfcheck_pool();
  EXPECT_GT(r.cases, 40);
  EXPECT_EQ(r.failures, 0) << r.report;
}

TEST(GemmKernel, PackedOperandsEpiloguesAndBeta) {
  const int64_t mr = gemm_mr(), nr = gemm_nr();
  for (const Case& c : {Case{1, 2 * nr + 5, 300}, Case{mr + 2, nr + 1, 19}, Case{2 * mr, 3 * nr, 257},
                        Case{1, nr, 5, true, false}, Case{7, 9, 300, true, true}}) {
    Problem p(c, 7);
    std::vector<float> pa(size_t(packed_a_size(c.M, c.K))), pb(size_t(packed_b_size(c.K, c.N)));
    pack_a_f32(c.M, c.K, p.A.data(), p.lda, c.ta, pa.data());
    pack_b_f32(c.K, c.N, p.B.data(), p.ldb, c.tb, pb.data());
    for (int form = 0; form < 4; ++form) {
      GemmEpilogue e;
      const float alpha = form == 3 ? 0.5f : 1.0f, beta = form == 3 ? 2.0f : 0.0f;
      if (form == 1) {
        e.bias = p.bias_row.data();
        e.bias_per_row = true;
        e.act = GemmAct::Relu;
      } else if (form == 2) {
        e.bias = p.bias_col.data();
        e.residual = p.residual.data();
        e.ldr = p.ldc;
        e.act = GemmAct::Clamp;
        e.lo = -0.25f;
        e.hi = 0.5f;
      }
      std::vector<double> want(p.truth.size());
      std::vector<float> C0 = random_vec(size_t(c.M * p.ldc + 1), 99);
      for (int64_t i = 0; i < c.M; ++i)
        for (int64_t j = 0; j < c.N; ++j) {
          double v = alpha * p.truth[size_t(i * c.N + j)] + beta * C0[size_t(i * p.ldc + j)];
          if (e.bias) v += e.bias_per_row ? e.bias[i] : e.bias[j];
          if (e.residual) v += e.residual[i * e.ldr + j];
          if (e.act == GemmAct::Relu) v = std::max(v, 0.0);
          if (e.act == GemmAct::Clamp) v = std::min(std::max(v, double(e.lo)), double(e.hi));
          want[size_t(i * c.N + j)] = v;
        }
      std::vector<double> bound(p.bound);
      for (size_t i = 0; i < bound.size(); ++i) bound[i] = bound[i] + 4.0;
      for (int variant = 0; variant < 4; ++variant) {  // A packed?, B packed?
        GemmOperandA A;
        GemmOperandB B;
        if (variant & 1) A.packed = pa.data(); else { A.data = p.A.data(); A.ld = p.lda; A.trans = c.ta; }
        if (variant & 2) B.packed = pb.data(); else { B.data = p.B.data(); B.ld = p.ldb; B.trans = c.tb; }
        std::vector<float> C = C0;
        gemm_f32_ex(c.M, c.N, c.K, A, B, C.data(), p.ldc, alpha, beta, e);
        expect_close(p, C, want, bound, "form " + std::to_string(form) + " variant " + std::to_string(variant));
      }
      std::vector<float> R = C0;
      gemm_ref_f32(c.M, c.N, c.K, p.A.data(), p.lda, c.ta, p.B.data(), p.ldb, c.tb, R.data(), p.ldc, alpha, beta, e);
      expect_close(p, R, want, bound, "reference form " + std::to_string(form));
    }
  }
}

TEST(GemmKernel, EmptyAndZeroK) {
  float C[6] = {1, 2, 3, 4, 5, 6};
  const float bias[3] = {10, 20, 30};
  gemm_f32(0, 3, 4, nullptr, 4, false, nullptr, 3, false, C, 3, 1, 0);  // M = 0: untouched
  EXPECT_EQ(C[0], 1.0f);
  GemmEpilogue e;
  e.bias = bias;
  GemmOperandA A;
  GemmOperandB B;
  gemm_f32_ex(2, 3, 0, A, B, C, 3, 1.0f, 0.0f, e);  // K = 0: C = bias
  for (int i = 0; i < 6; ++i) EXPECT_EQ(C[i], bias[i % 3]);
}

TEST(GemmKernel, ReluAndClampPropagateNaN) {
  const int64_t M = 3, N = gemm_nr() + 1, K = 4;
  std::vector<float> A(size_t(M * K), 1.0f), B(size_t(K * N), 1.0f), C(size_t(M * N));
  A[0] = NAN;  // row 0 all NaN
  for (GemmAct act : {GemmAct::Relu, GemmAct::Clamp}) {
    GemmEpilogue e;
    e.act = act;
    e.lo = 0;
    e.hi = 1;
    GemmOperandA a;
    a.data = A.data();
    a.ld = K;
    GemmOperandB b;
    b.data = B.data();
    b.ld = N;
    gemm_f32_ex(M, N, K, a, b, C.data(), N, 1.0f, 0.0f, e);
    for (int64_t j = 0; j < N; ++j) EXPECT_TRUE(std::isnan(C[size_t(j)])) << j;
    EXPECT_EQ(C[size_t(N)], act == GemmAct::Relu ? 4.0f : 1.0f);
  }
}

TEST(GemmKernel, ResultDoesNotDependOnThreadCount) {
  const int64_t nr = gemm_nr();
  for (const Case& c : {Case{64, 8 * nr + 3, 300}, Case{200, 7, 64}, Case{1, 64 * nr, 512}}) {
    Problem p(c, 3);
    std::vector<float> pb(size_t(packed_b_size(c.K, c.N)));
    pack_b_f32(c.K, c.N, p.B.data(), p.ldb, false, pb.data());
    std::vector<std::vector<float>> outs;
    for (int t : {1, 2, 3}) {
      set_num_threads(t);
      std::vector<float> C(size_t(c.M * p.ldc));
      GemmOperandA A;
      A.data = p.A.data();
      A.ld = p.lda;
      GemmOperandB B;
      B.packed = pb.data();
      gemm_f32_ex(c.M, c.N, c.K, A, B, C.data(), p.ldc);
      outs.push_back(C);
    }
    set_num_threads(1);
    EXPECT_EQ(outs[0], outs[1]) << name(c);
    EXPECT_EQ(outs[0], outs[2]) << name(c);
  }
}

// A row activation (GemmEpilogue::act_row: gelu's row kernel, after a column bias) runs over
// each block as the gemm finishes it, on whichever thread computed the block: at 1, 2 and 3
// threads, on the blocked path past the NC and KC blocks and on the GEMV, the result is the
// bits of the same gemm without it followed by the row kernel over the whole output.
TEST(GemmKernel, RowActivationGivesTheSecondPassBitsAtAnyThreadCount) {
  const UnaryRowF32 gelu = unary_row_f32(UnaryOp::Gelu);
  if (!gelu) GTEST_SKIP() << "no gelu row kernel on this SIMD target";
  const int64_t nr = gemm_nr();
  for (const Case& c : {Case{64, 40 * nr + 3, 300}, Case{7, 3 * nr + 1, 9}, Case{1, 64 * nr + 5, 512}}) {
    Problem p(c, 11);
    std::vector<float> pb(size_t(packed_b_size(c.K, c.N))), bias(size_t(c.N));
    pack_b_f32(c.K, c.N, p.B.data(), p.ldb, false, pb.data());
    for (int64_t j = 0; j < c.N; ++j) bias[size_t(j)] = 0.25f * float(j % 7) - 0.75f;
    GemmOperandA A;
    A.data = p.A.data();
    A.ld = p.lda;
    GemmOperandB B;
    B.packed = pb.data();
    GemmEpilogue e;
    e.bias = bias.data();
    std::vector<float> want(size_t(c.M * p.ldc), 0.0f);
    gemm_f32_ex(c.M, c.N, c.K, A, B, want.data(), p.ldc, 1.0f, 0.0f, e);
    for (int64_t i = 0; i < c.M; ++i) gelu(want.data() + i * p.ldc, want.data() + i * p.ldc, c.N, RowParams{});
    e.act_row = gelu;
    for (int t : {1, 2, 3}) {
      set_num_threads(t);
      std::vector<float> C(size_t(c.M * p.ldc), 0.0f);
      gemm_f32_ex(c.M, c.N, c.K, A, B, C.data(), p.ldc, 1.0f, 0.0f, e);
      EXPECT_EQ(C, want) << name(c) << " threads " << t;
    }
    set_num_threads(1);
  }
}

// Blocked accumulation (micro_kernel sums each 64-long run of k from zero, then adds it to C):
// a row [1, d, d, ..., d] with d = 2^-25 (a quarter ulp of 1) loses every d in one float chain
// (1 + d rounds back to 1), but only the first block's 63 here: the later blocks sum their 64
// d exactly (2^-19) before adding it. This is what keeps Winograd / im2col convolutions within
// PyTorch's error against float64 (tests/cpp/unit/models_test.cpp). M = 1 takes the GEMV path,
// which blocks the same way (one chain over K left decode-step linears less accurate than
// PyTorch's: docs/gpu-parity.md).
TEST(GemmKernel, LongSumsAccumulateInBlocks) {
  const float d = std::ldexp(1.0f, -25);
  for (const int64_t M : {int64_t(1), int64_t(4), int64_t(8), int64_t(13)}) {
    const int64_t N = 2 * gemm_nr() + 1, K = 256;
    std::vector<float> A(size_t(M * K), d), B(size_t(K * N), 1.0f), C(size_t(M * N));
    for (int64_t i = 0; i < M; ++i) A[size_t(i * K)] = 1.0f;
    gemm_f32(M, N, K, A.data(), K, false, B.data(), N, false, C.data(), N, 1.0f, 0.0f);
    const double truth = 1.0 + 255.0 * d;
    for (int64_t i = 0; i < M * N; ++i) {
      ASSERT_LE(std::fabs(double(C[size_t(i)]) - truth), 63.0 * d) << "M=" << M << " element " << i << ": " << C[size_t(i)];
      ASSERT_GT(C[size_t(i)], 1.0f) << "M=" << M << " element " << i << ": every small term lost (one float chain)";
    }
  }
}

// The GEMV (M = 1) sums in the blocked path's order: a row alone gives the bits it gets as one
// row of a larger M, at K across several blocks and KC blocks, with B packed or not.
TEST(GemmKernel, GemvGivesTheBlockedPathsBits) {
  const int64_t nr = gemm_nr();
  for (const Case& c : {Case{5, 4 * nr + 3, 700}, Case{3, nr - 1, 65}, Case{2, 9 * nr, 1}}) {
    Problem p(c, 7);
    std::vector<float> full(size_t(c.M * c.N)), row(size_t(c.N));
    gemm_f32(c.M, c.N, c.K, p.A.data(), p.lda, false, p.B.data(), p.ldb, false, full.data(), c.N, 1.0f, 0.0f);
    for (int64_t i = 0; i < c.M; ++i) {
      gemm_f32(1, c.N, c.K, p.A.data() + i * p.lda, p.lda, false, p.B.data(), p.ldb, false, row.data(), c.N, 1.0f, 0.0f);
      for (int64_t j = 0; j < c.N; ++j) ASSERT_EQ(row[size_t(j)], full[size_t(i * c.N + j)]) << name(c) << " row " << i << " col " << j;
    }
  }
}

TEST(GemmKernel, PackBHalfRoundsToNearestEvenInPanelLayout) {
  const int64_t nr = gemm_nr();
  for (bool tb : {false, true}) {
    const Case c{1, 2 * nr + 3, 5, false, tb, 2};
    Problem p(c, 11);
    for (PackedHalf kind : {PackedHalf::F16, PackedHalf::BF16}) {
      std::vector<uint16_t> h(size_t(packed_b_size(c.K, c.N)), 0xFFFF);
      pack_b_half(c.K, c.N, p.B.data(), p.ldb, tb, kind, h.data());
      for (int64_t q = 0; q * nr < c.N; ++q)
        for (int64_t k = 0; k < c.K; ++k)
          for (int64_t j = 0; j < nr; ++j) {
            const int64_t col = q * nr + j;
            const uint16_t want = col >= c.N ? 0
                                  : kind == PackedHalf::F16 ? float_to_half(p.bb(k, col))
                                                            : float_to_bf16(p.bb(k, col));
            ASSERT_EQ(h[size_t((q * c.K + k) * nr + j)], want) << "k " << k << " col " << col;
          }
    }
  }
  const float big[3] = {65520.0f, -1e6f, 1e-9f};  // f16: inf, -inf, 0
  uint16_t h[64] = {};
  pack_b_half(1, 3, big, 3, false, PackedHalf::F16, h);
  EXPECT_EQ(h[0], 0x7C00);
  EXPECT_EQ(h[1], 0xFC00);
  EXPECT_EQ(h[2], 0);
  EXPECT_FALSE(halves_finite(3, h, PackedHalf::F16));
  EXPECT_TRUE(halves_finite(1, h + 2, PackedHalf::F16));
}

// GEMV and blocked gemm over packed halves: bit-identical to the f32 gemm on
// the widened weights (packed), whatever the thread count, with every
// epilogue; and within f32 accumulation error of the float64 truth on the
// widened weights, as the scalar reference (gemm_ref_f32 on them).
TEST(GemmKernel, HalfPackedBBitIdenticalToF32OnWidenedWeights) {
  const int64_t mr = gemm_mr(), nr = gemm_nr();
  for (PackedHalf kind : {PackedHalf::F16, PackedHalf::BF16})
    for (const Case& c : {Case{1, 2 * nr + 5, 300}, Case{1, 1000, 1024, false, true}, Case{1, 7, 1, true},
                          Case{2, nr + 1, 19}, Case{mr + 1, 3 * nr + 1, 257, true, true, 3},
                          Case{37, 5 * nr + 3, 300, false, true}}) {
      Problem p(c, 5);
      std::vector<uint16_t> h;
      p.round_b(kind, h);
      std::vector<float> pw(size_t(packed_b_size(c.K, c.N)));
      pack_b_f32(c.K, c.N, p.B.data(), p.ldb, c.tb, pw.data());
      GemmOperandA A;
      A.data = p.A.data();
      A.ld = p.lda;
      A.trans = c.ta;
      GemmOperandB H, F;
      H.packed_half = h.data();
      H.half = kind;
      F.packed = pw.data();
      const std::string what = std::string(kind == PackedHalf::F16 ? "f16 " : "bf16 ") + name(c);
      for (int form = 0; form < 2; ++form) {
        GemmEpilogue e;
        if (form == 1) {
          e.bias = p.bias_col.data();
          e.residual = p.residual.data();
          e.ldr = p.ldc;
          e.act = GemmAct::Relu;
        }
        std::vector<float> want(size_t(c.M * p.ldc));
        gemm_f32_ex(c.M, c.N, c.K, A, F, want.data(), p.ldc, 1.0f, 0.0f, e);
        for (int threads : {1, 2})
          for (bool finite : {false, true}) {
            set_num_threads(threads);
            H.half_finite = finite;
            std::vector<float> got(want.size());
            gemm_f32_ex(c.M, c.N, c.K, A, H, got.data(), p.ldc, 1.0f, 0.0f, e);
            EXPECT_EQ(got, want) << what << " form " << form << " threads " << threads << " finite " << finite;
          }
        set_num_threads(1);
      }
      std::vector<double> bound(p.bound);
      for (auto& b : bound) b += 4.0;
      std::vector<float> C(size_t(c.M * p.ldc)), R(C.size());
      gemm_f32_ex(c.M, c.N, c.K, A, H, C.data(), p.ldc);
      expect_close(p, C, p.truth, bound, what + " simd");
      gemm_ref_f32(c.M, c.N, c.K, p.A.data(), p.lda, c.ta, p.B.data(), p.ldb, c.tb, R.data(), p.ldc, 1.0f, 0.0f);
      expect_close(p, R, p.truth, bound, what + " reference");
    }
}

}  // namespace
}  // namespace tir
