// The quantized kernels' self-check (kernels/selfcheck.h): the int8 GEMM (gemm_s8), the
// int8 x int4 group-wise GEMM (gemm_s8w4) and the dynamic activation rows (minmax_f32,
// quantize_f32_i16) against their scalar references, bit for bit (their sums are exact and
// their float steps have one order), on M, N, K of 1, odd, tile and panel edges, zero; symmetric
// and asymmetric weights; bias; a fused float epilogue (residual, clamp/relu, a row kernel).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/elementwise_simd.h"
#include "kernels/gemm_s8.h"
#include "kernels/gemm_s8w4.h"
#include "kernels/quantize.h"
#include "kernels/selfcheck.h"

namespace tir {
namespace {

void fail(SelfcheckResult& r, const std::string& what) {
  if (++r.failures <= 20) r.report += what + "\n";
}

template <typename T> std::vector<T> sized(int64_t n, T v = T(0)) { return std::vector<T>(size_t(std::max<int64_t>(n, 1)), v); }

struct Case {
  int64_t M, N, K, G;  // G > 0: the int4 GEMM with groups of G
  bool bias, weight_zero, post;
  std::string name() const {
    return std::string(G ? "gemm_s8w4" : "gemm_s8") + " M=" + std::to_string(M) + " N=" + std::to_string(N) +
           " K=" + std::to_string(K) + (G ? " G=" + std::to_string(G) : "") + (bias ? " bias" : "") +
           (weight_zero ? " weight-zero" : "") + (post ? " post" : "");
  }
};

void check_gemm(SelfcheckResult& r, const Case& c, std::mt19937& rng) {
  ++r.cases;
  const bool w4 = c.G > 0;
  std::uniform_int_distribution<int> q(-128, 127), w(w4 ? -8 : -127, w4 ? 7 : 127), z(-20, 20), wz(-3, 3);
  std::uniform_real_distribution<float> u(0.001f, 0.05f), b(-1, 1);
  const int64_t nr = gemm_s8_nr(), npad = (c.N + nr - 1) / nr * nr, groups = w4 ? c.K / c.G : 1;
  const int64_t lda = (c.K + 1) / 2 * 2 + 2;  // even, with slack past K
  auto A = sized<int16_t>(c.M * lda);
  auto W = sized<int8_t>(c.N * c.K);
  for (int64_t m = 0; m < c.M; ++m)
    for (int64_t k = 0; k < c.K; ++k) A[size_t(m * lda + k)] = int16_t(q(rng));
  for (auto& v : W) v = int8_t(w(rng));
  auto rs = sized<float>(c.M), cs = sized<float>(groups * npad), bias = sized<float>(npad);
  auto rz = sized<int32_t>(c.M), rsum = sized<int32_t>(c.M * groups), csum = sized<int32_t>(groups * npad),
       cz = sized<int32_t>(groups * npad);
  const int64_t G = w4 ? c.G : std::max<int64_t>(c.K, 1);
  for (int64_t m = 0; m < c.M; ++m) {
    rs[size_t(m)] = u(rng);
    rz[size_t(m)] = z(rng);
    for (int64_t k = 0; k < c.K; ++k) rsum[size_t(m * groups + k / G)] += A[size_t(m * lda + k)];
  }
  for (int64_t n = 0; n < c.N; ++n) {
    bias[size_t(n)] = b(rng);
    for (int64_t g = 0; g < groups; ++g) {
      cs[size_t(s4_param_index(g, n, groups, nr))] = u(rng);
      cz[size_t(s4_param_index(g, n, groups, nr))] = c.weight_zero ? (w4 ? wz(rng) : z(rng)) : 0;
    }
    for (int64_t k = 0; k < c.K; ++k) csum[size_t(s4_param_index(k / G, n, groups, nr))] += W[size_t(n * c.K + k)];
  }
  auto residual = sized<float>(c.M * c.N);
  for (auto& v : residual) v = b(rng);
  GemmEpilogue post;
  post.residual = residual.data();
  post.ldr = c.N;
  post.act = GemmAct::Clamp;
  post.lo = -0.5f;
  post.act_row = unary_row_f32(w4 ? UnaryOp::Silu : UnaryOp::Gelu);
  const int64_t ldc = c.N + 3;
  auto got = sized<float>(c.M * ldc, -7.0f), want = got;
  QGemmEpilogue e;
  e.row_scale = rs.data();
  e.row_zero = rz.data();
  e.row_sum = rsum.data();
  e.col_scale = cs.data();
  e.col_sum = csum.data();
  e.col_zero = c.weight_zero ? cz.data() : nullptr;
  e.bias = c.bias ? bias.data() : nullptr;
  e.post = c.post ? &post : nullptr;
  if (w4) {
    auto packed = sized<uint8_t>(packed_b_s4_size(c.K, c.N));
    pack_b_s4(c.K, c.N, W.data(), c.K, packed.data());
    gemm_s8w4(c.M, c.N, c.K, c.G, A.data(), lda, packed.data(), e, got.data(), ldc);
    gemm_s8w4_ref(c.M, c.N, c.K, c.G, A.data(), lda, W.data(), c.K, e, want.data(), ldc);
  } else {
    auto packed = sized<int16_t>(packed_b_s8_size(c.K, c.N));
    pack_b_s8(c.K, c.N, W.data(), c.K, packed.data());
    gemm_s8(c.M, c.N, c.K, A.data(), lda, packed.data(), e, got.data(), ldc);
    gemm_s8_ref(c.M, c.N, c.K, A.data(), lda, W.data(), c.K, e, want.data(), ldc);
  }
  // bit for bit, and the gaps between rows untouched
  if (std::memcmp(got.data(), want.data(), got.size() * sizeof(float)) != 0) fail(r, c.name() + ": differs from the reference");
}

void check_activation_rows(SelfcheckResult& r, std::mt19937& rng) {
  // ties at .5, values past the range, NaN, lengths around the vector width
  std::uniform_real_distribution<float> u(-300, 300);
  for (int64_t n : {0, 1, 3, 4, 5, 8, 15, 16, 17, 33, 100}) {
    std::vector<float> x(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) x[size_t(i)] = i % 3 == 0 ? float(i) + 0.5f : u(rng);
    if (n > 6) x[6] = NAN;
    for (float inv : {1.0f, 0.37f, 40.0f})
      for (float z : {0.0f, -3.0f, 12.0f}) {
        ++r.cases;
        std::vector<int16_t> got(size_t(n) + 1, 77), want(got);
        quantize_f32_i16(x.data(), n, inv, z, -128, 127, got.data());
        QuantizeRowSpec spec;
        spec.qmin = -128;
        spec.qmax = 127;
        spec.out = DType::I16;
        const double inv_d = inv, z_d = z;
        quantize_row(x.data(), false, 1, &inv_d, &z_d, 0, n, spec, want.data(), 1);
        if (got != want) fail(r, "quantize_f32_i16 n=" + std::to_string(n) + " inv=" + std::to_string(inv));
      }
    for (const DType dt : {DType::I8, DType::U8}) {  // the reference op's SIMD rows
      ++r.cases;
      const float qmin = dt == DType::I8 ? -128 : 0, qmax = dt == DType::I8 ? 127 : 255;
      std::vector<uint8_t> got(size_t(n) + 1, 77), want(got);
      quantize_f32_row(x.data(), n, 0.37f, 3.0f, qmin, qmax, dt, got.data());
      QuantizeRowSpec spec;
      spec.qmin = qmin;
      spec.qmax = qmax;
      spec.out = dt;
      const double inv_d = 0.37f, z_d = 3.0;
      quantize_row(x.data(), false, 1, &inv_d, &z_d, 0, n, spec, want.data(), 1);
      if (got != want) fail(r, std::string("quantize_f32_row ") + dtype_name(dt) + " n=" + std::to_string(n));
    }
    ++r.cases;
    double mn = -1, mx = 1, rmn = -1, rmx = 1;  // merged into a running pair, as the choose op does
    minmax_f32_into(x.data(), n, &mn, &mx);
    minmax_row(x.data(), false, 1, n, &rmn, &rmx, 0);
    if (!((mn == rmn || (std::isnan(mn) && std::isnan(rmn))) && (mx == rmx || (std::isnan(mx) && std::isnan(rmx)))))
      fail(r, "minmax_f32_into n=" + std::to_string(n));
    ++r.cases;
    float lo = 0, hi = 0;
    minmax_f32(x.data(), n, &lo, &hi);
    double rlo = INFINITY, rhi = -INFINITY;
    minmax_row(x.data(), false, 1, n, &rlo, &rhi, 0);
    const bool ok = n > 6 ? std::isnan(lo) && std::isnan(hi) : double(lo) == rlo && double(hi) == rhi;
    if (!ok) fail(r, "minmax_f32 n=" + std::to_string(n));
  }
}

}  // namespace

SelfcheckResult selfcheck_quantized() {
  SelfcheckResult r;
  std::mt19937 rng(7);
  for (int64_t M : {1, 3, 4, 5, 17})
    for (int64_t N : {1, 7, 8, 9, 33})
      for (int64_t K : {1, 2, 3, 64, 129})
        for (bool bias : {false, true}) check_gemm(r, {M, N, K, 0, bias, false, false}, rng);
  for (int64_t M : {2, 9})
    for (int64_t K : {5, 40}) check_gemm(r, {M, 13, K, 0, true, true, false}, rng);
  for (int64_t M : {1, 5, 67})
    for (int64_t N : {3, 64, 200}) check_gemm(r, {M, N, 37, 0, M == 5, M == 67, true}, rng);
  check_gemm(r, {0, 5, 3, 0, true, false, false}, rng);  // no rows
  check_gemm(r, {3, 0, 3, 0, true, false, false}, rng);  // no columns
  check_gemm(r, {3, 5, 0, 0, true, false, false}, rng);  // K = 0: the bias alone
  for (int64_t M : {1, 3, 4, 5, 9})
    for (int64_t N : {1, 7, 8, 9, 33})
      for (auto [K, G] : {std::pair<int64_t, int64_t>{4, 4}, {32, 32}, {96, 32}, {64, 8}})
        for (bool bias : {false, true}) check_gemm(r, {M, N, K, G, bias, false, false}, rng);
  for (int64_t M : {2, 6})
    for (int64_t N : {13, 70}) check_gemm(r, {M, N, 64, 16, true, true, false}, rng);
  for (int64_t M : {1, 7, 33})
    for (int64_t N : {5, 64, 130}) check_gemm(r, {M, N, 32, 32, M == 7, M == 33, true}, rng);
  check_gemm(r, {0, 5, 32, 32, true, false, false}, rng);
  check_gemm(r, {3, 0, 32, 32, true, false, false}, rng);
  check_activation_rows(r, rng);
  return r;
}

}  // namespace tir
