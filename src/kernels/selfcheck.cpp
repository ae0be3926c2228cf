#include "kernels/selfcheck.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/conv.h"
#include "kernels/conv_winograd.h"
#include "kernels/gemm.h"
#include "kernels/pool.h"
#include "core/half.h"

namespace tir {

namespace {

std::vector<float> random_values(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

// |got - want| within float32 accumulation error of `terms` products whose
// absolute values sum to `magnitude`.
bool close(double got, double want, double magnitude, int64_t terms) {
  const double tol = 1e-6 + 2.0 * double(terms + 2) * 6e-8 * (magnitude + std::fabs(want));
  return std::fabs(got - want) <= tol;  // false for NaN
}

void fail(SelfcheckResult& r, const std::string& what) {
  if (r.failures++ < 20) r.report += what + "\n";
}

double apply_act(double v, GemmAct act, float lo, float hi) {
  if (act == GemmAct::Relu) return v < 0 ? 0 : v;
  if (act == GemmAct::Clamp) return std::min(std::max(v, double(lo)), double(hi));
  return v;
}

struct GemmCase {
  int64_t M, N, K;
  bool ta, tb, packed_a, packed_b;
  int64_t pad;
  int form;  // 0 plain, 1 row bias + relu, 2 column bias + residual + clamp, 3 alpha/beta,
             // 4 column bias + residual + gelu's row kernel (act_row)
  // B packed as halves (pack_b_half) instead: checked bit for bit against the
  // f32 packed path on the widened weights, which the checks below then use.
  PackedHalf half = PackedHalf::None;
};

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// Rounds op(B) (K x N, stride ldb) to halves packed in `h` and writes the
// widened values back into B, so every later check sees the weights the
// kernel multiplies by.
void round_b_to_half(const GemmCase& c, std::vector<float>& B, int64_t ldb, std::vector<uint16_t>& h) {
  h.resize(size_t(packed_b_size(c.K, c.N)));
  pack_b_half(c.K, c.N, B.data(), ldb, c.tb, c.half, h.data());
  std::vector<float> w(size_t(c.K * c.N));
  unpack_b_half(c.K, c.N, h.data(), c.half, w.data(), c.N);
  for (int64_t k = 0; k < c.K; ++k)
    for (int64_t j = 0; j < c.N; ++j) B[size_t(c.tb ? j * ldb + k : k * ldb + j)] = w[size_t(k * c.N + j)];
}

void check_gemm(SelfcheckResult& r, const GemmCase& c, uint32_t seed) {
  ++r.cases;
  const int64_t lda = (c.ta ? c.M : c.K) + c.pad, ldb = (c.tb ? c.K : c.N) + c.pad, ldc = c.N + c.pad;
  const auto A = random_values(size_t((c.ta ? c.K : c.M) * lda + 1), seed);
  auto B = random_values(size_t((c.tb ? c.N : c.K) * ldb + 1), seed + 1);
  std::vector<uint16_t> h;
  if (c.half != PackedHalf::None) {
    for (size_t i = 0; i < B.size(); i += 13) B[i] *= 1e-5f;  // f16 subnormals
    for (size_t i = 5; i < B.size(); i += 17) B[i] = 0.0f;
    round_b_to_half(c, B, ldb, h);
  }
  const auto bias = random_values(size_t(std::max(c.M, c.N) + 1), seed + 2);
  const auto res = random_values(size_t(c.M * ldc + 1), seed + 3);
  const auto C0 = random_values(size_t(c.M * ldc + 1), seed + 4);
  GemmEpilogue e;
  float alpha = 1, beta = 0;
  if (c.form == 1) {
    e.bias = bias.data();
    e.bias_per_row = true;
    e.act = GemmAct::Relu;
  } else if (c.form == 2) {
    e.bias = bias.data();
    e.residual = res.data();
    e.ldr = ldc;
    e.act = GemmAct::Clamp;
    e.lo = -0.3f;
    e.hi = 0.4f;
  } else if (c.form == 3) {
    alpha = 0.75f;
    beta = -1.5f;
  } else if (c.form == 4) {
    e.bias = bias.data();
    e.residual = res.data();
    e.ldr = ldc;
  }
  // Form 4's row activation (none on targets without a gelu row kernel): applied by the gemm
  // block by block, it must give the bits of the same row kernel run over the finished output.
  const UnaryRowF32 act_row = c.form == 4 ? unary_row_f32(UnaryOp::Gelu) : nullptr;
  std::vector<float> pa, pb;
  GemmOperandA ga;
  GemmOperandB gb;
  if (c.packed_a) {
    pa.resize(size_t(packed_a_size(c.M, c.K)));
    pack_a_f32(c.M, c.K, A.data(), lda, c.ta, pa.data());
    ga.packed = pa.data();
  } else {
    ga.data = A.data();
    ga.ld = lda;
    ga.trans = c.ta;
  }
  if (c.packed_b || c.half != PackedHalf::None) {
    pb.resize(size_t(packed_b_size(c.K, c.N)));
    pack_b_f32(c.K, c.N, B.data(), ldb, c.tb, pb.data());
    gb.packed = pb.data();
  } else {
    gb.data = B.data();
    gb.ld = ldb;
    gb.trans = c.tb;
  }
  std::vector<float> C = C0, R = C0;
  if (act_row) {
    std::vector<float> F = C0;
    GemmEpilogue fused = e;
    fused.act_row = act_row;
    gemm_f32_ex(c.M, c.N, c.K, ga, gb, F.data(), ldc, alpha, beta, fused);
    gemm_f32_ex(c.M, c.N, c.K, ga, gb, C.data(), ldc, alpha, beta, e);
    std::vector<float> U = C;
    for (int64_t i = 0; i < c.M; ++i) act_row(U.data() + i * ldc, U.data() + i * ldc, c.N, RowParams{});
    if (!same_bits(F, U)) {
      fail(r, "gemm M=" + std::to_string(c.M) + " N=" + std::to_string(c.N) + " K=" + std::to_string(c.K) +
                  ": the fused row activation differs from the same kernel over the finished output");
      return;
    }
  } else {
    gemm_f32_ex(c.M, c.N, c.K, ga, gb, C.data(), ldc, alpha, beta, e);
  }
  if (c.half != PackedHalf::None) {
    GemmOperandB gh;
    gh.packed_half = h.data();
    gh.half = c.half;
    gh.half_finite = halves_finite(int64_t(h.size()), h.data(), c.half);
    std::vector<float> H = C0;
    gemm_f32_ex(c.M, c.N, c.K, ga, gh, H.data(), ldc, alpha, beta, e);
    if (!same_bits(H, C)) {
      fail(r, std::string(c.half == PackedHalf::F16 ? "f16" : "bf16") + " gemm M=" + std::to_string(c.M) +
                  " N=" + std::to_string(c.N) + " K=" + std::to_string(c.K) + " form=" + std::to_string(c.form) +
                  ": differs from the f32 gemm on the widened weights");
      return;
    }
  }
  gemm_ref_f32(c.M, c.N, c.K, A.data(), lda, c.ta, B.data(), ldb, c.tb, R.data(), ldc, alpha, beta, e);
  int bad = 0;
  for (int64_t i = 0; i < c.M && !bad; ++i)
    for (int64_t j = 0; j < c.N && !bad; ++j) {
      double s = 0, mag = 0;
      for (int64_t k = 0; k < c.K; ++k) {
        const double p = double(c.ta ? A[size_t(k * lda + i)] : A[size_t(i * lda + k)]) *
                         double(c.tb ? B[size_t(j * ldb + k)] : B[size_t(k * ldb + j)]);
        s += p;
        mag += std::fabs(p);
      }
      double want = alpha * s + beta * C0[size_t(i * ldc + j)];
      if (e.bias) want += e.bias_per_row ? e.bias[i] : e.bias[j];
      if (e.residual) want += e.residual[i * ldc + j];
      want = apply_act(want, e.act, e.lo, e.hi);
      const double got = C[size_t(i * ldc + j)], ref = R[size_t(i * ldc + j)];
      if (!close(got, want, mag + 4, c.K) || !close(ref, want, mag + 4, c.K)) {
        fail(r, "gemm M=" + std::to_string(c.M) + " N=" + std::to_string(c.N) + " K=" + std::to_string(c.K) +
                    " ta=" + std::to_string(c.ta) + " tb=" + std::to_string(c.tb) + " pa=" +
                    std::to_string(c.packed_a) + " pb=" + std::to_string(c.packed_b) + " form=" +
                    std::to_string(c.form) + " at (" + std::to_string(i) + "," + std::to_string(j) +
                    "): simd " + std::to_string(got) + " ref " + std::to_string(ref) + " want " +
                    std::to_string(want));
        bad = 1;
      }
    }
  if (c.pad)  // C's padding columns are never written
    for (int64_t i = 0; i < c.M; ++i)
      for (int64_t j = c.N; j < ldc; ++j)
        if (C[size_t(i * ldc + j)] != C0[size_t(i * ldc + j)]) {
          fail(r, "gemm wrote a padding column of C");
          return;
        }
}

// Every half bit pattern as a 1 x N row of B (K = 1: the packed panels hold
// the halves in order) times an M x 1 column of `a`, through the GEMV (M = 1)
// or the blocked path, bit for bit against the f32 gemm on the scalar
// conversions. finite_only: only the finite patterns, promised to the kernel
// (f16: the scaled widening, unless |a| >= 2^16 or a is not finite).
void check_half_patterns(SelfcheckResult& r, PackedHalf kind, bool finite_only, int64_t M, float a) {
  ++r.cases;
  const uint16_t exp = kind == PackedHalf::BF16 ? 0x7F80 : 0x7C00;
  std::vector<uint16_t> h;
  for (uint32_t v = 0; v < 65536; ++v)
    if (!finite_only || (v & exp) != exp) h.push_back(uint16_t(v));
  const int64_t N = int64_t(h.size());
  h.resize(size_t(packed_b_size(1, N)), 0);
  std::vector<float> w(h.size());
  for (size_t i = 0; i < h.size(); ++i) w[i] = kind == PackedHalf::BF16 ? bf16_to_float(h[i]) : half_to_float(h[i]);
  const std::vector<float> A(size_t(M), a);
  GemmOperandA ga;
  ga.data = A.data();
  ga.ld = 1;
  GemmOperandB gh, gf;
  gh.packed_half = h.data();
  gh.half = kind;
  gh.half_finite = finite_only;
  gf.packed = w.data();
  std::vector<float> H(size_t(M * N)), F(size_t(M * N));
  gemm_f32_ex(M, N, 1, ga, gh, H.data(), N);
  gemm_f32_ex(M, N, 1, ga, gf, F.data(), N);
  for (size_t i = 0; i < H.size(); ++i)
    if (std::memcmp(&H[i], &F[i], sizeof(float)) != 0) {
      fail(r, std::string(kind == PackedHalf::F16 ? "f16" : "bf16") + " pattern " +
                  std::to_string(h[i % size_t(N)]) + " times " + std::to_string(a) + " (M=" + std::to_string(M) +
                  "): " + std::to_string(H[i]) + ", f32 path " + std::to_string(F[i]));
      return;
    }
}

}  // namespace

SelfcheckResult selfcheck_gemm() {
  SelfcheckResult r;
  const int64_t mr = gemm_mr(), nr = gemm_nr();
  const std::vector<int64_t> ms = {1, 2, mr - 1, mr, mr + 1, 2 * mr + 1, 25};
  const std::vector<int64_t> ns = {1, 3, nr - 1, nr, nr + 1, 2 * nr + 3, 4 * nr + 1};
  const std::vector<int64_t> ks = {1, 2, 7, 255, 256, 257};
  uint32_t seed = 1;
  int variant = 0;
  for (int64_t m : ms)
    for (int64_t n : ns)
      for (int64_t k : ks) {
        // Rotate transposes, packing and epilogues through the sweep.
        const int v = variant++;
        check_gemm(r, {m, n, k, (v & 1) != 0, (v & 2) != 0, (v % 3) == 0, (v % 5) == 0, v % 7 == 0 ? 3 : 0, v % 5},
                   seed += 7);
      }
  for (int form = 0; form < 5; ++form) {
    check_gemm(r, {1, 1000, 1024, false, false, false, true, 0, form}, seed += 7);  // GEMV
    check_gemm(r, {150, 530, 300, false, false, false, form % 2 == 1, 0, form}, seed += 7);  // MC/NC blocks
  }
  // Half-precision packed B: bit-identical to the f32 path on the widened weights.
  for (PackedHalf kind : {PackedHalf::F16, PackedHalf::BF16}) {
    for (int64_t m : {int64_t(1), int64_t(2), mr - 1, mr + 1})
      for (int64_t n : {int64_t(1), nr - 1, nr + 1, 2 * nr + 3, 4 * nr + 1})
        for (int64_t k : {1, 7, 255, 256, 257}) {
          const int v = variant++;
          check_gemm(r, {m, n, k, (v & 1) != 0, (v & 2) != 0, (v % 3) == 0, true, v % 7 == 0 ? 3 : 0, v % 4, kind},
                     seed += 7);
        }
    check_gemm(r, {1, 1000, 1024, false, false, false, true, 0, 0, kind}, seed += 7);  // GEMV
    check_gemm(r, {1, 1000, 1024, false, true, false, true, 0, 2, kind}, seed += 7);
    check_gemm(r, {150, 530, 300, false, false, false, true, 0, 1, kind}, seed += 7);  // MC/NC blocks
    for (int64_t m : {1, 2}) {
      check_half_patterns(r, kind, false, m, 0.75f);
      check_half_patterns(r, kind, true, m, -1.5f);
      check_half_patterns(r, kind, true, m, 1e5f);  // |a| >= 2^16
      check_half_patterns(r, kind, true, m, INFINITY);
    }
  }
  return r;
}

namespace {

struct ConvCase {
  ConvGeom g;
  bool bias, residual, prepared;
  GemmAct act;
  bool scaled = false;    // prepared with a per-oc scale (folded batch norm)
  bool winograd = false;  // call the Winograd kernel directly, whatever conv_winograd_applies says
};

// Fills the output sizes from the input/kernel geometry.
ConvGeom geom(int64_t N, int64_t C, int64_t OC, int64_t G, std::vector<int64_t> in, std::vector<int64_t> k,
              int64_t s, int64_t p, int64_t dil) {
  ConvGeom g;
  g.N = N;
  g.C = C;
  g.OC = OC;
  g.G = G;
  const size_t rank = in.size();  // stride/padding/dilation apply to the real spatial dims only
  while (in.size() < 3) in.insert(in.begin(), 1), k.insert(k.begin(), 1);
  g.D = in[0], g.H = in[1], g.W = in[2], g.KD = k[0], g.KH = k[1], g.KW = k[2];
  g.SW = s, g.PW = p, g.DW = dil;
  if (rank >= 2) g.SH = s, g.PH = p, g.DH = dil;
  if (rank >= 3) g.SD = s, g.PD = p, g.DD = dil;
  g.OD = (g.D + 2 * g.PD - g.DD * (g.KD - 1) - 1) / g.SD + 1;
  g.OH = (g.H + 2 * g.PH - g.DH * (g.KH - 1) - 1) / g.SH + 1;
  g.OW = (g.W + 2 * g.PW - g.DW * (g.KW - 1) - 1) / g.SW + 1;
  return g;
}

void check_conv(SelfcheckResult& r, const ConvCase& c, uint32_t seed) {
  ++r.cases;
  const ConvGeom& g = c.g;
  const int64_t cg = g.C / g.G, ocg = g.OC / g.G, taps = g.taps(), P = g.out_plane();
  const auto x = random_values(size_t(g.N * g.C * g.in_plane()), seed);
  const auto w = random_values(size_t(g.OC * cg * taps), seed + 1);
  const auto b = random_values(size_t(g.OC), seed + 2);
  const auto res = random_values(size_t(g.N * g.OC * P), seed + 3);
  const auto scale = random_values(size_t(g.OC), seed + 4);
  std::vector<float> y(size_t(g.N * g.OC * P), NAN), prepared;
  const float* sc = c.prepared && c.scaled ? scale.data() : nullptr;
  if (c.prepared) {
    prepared.resize(size_t(c.winograd ? conv_winograd_weights_size(g) : conv_prepared_weights_size(g)));
    if (c.winograd)
      conv_winograd_prepare_f32(g, w.data(), sc, prepared.data());
    else
      prepare_conv_weights_f32(g, w.data(), sc, prepared.data());
  }
  GemmEpilogue e;
  e.residual = c.residual ? res.data() : nullptr;
  e.act = c.act;
  e.lo = -0.5f;
  e.hi = 0.5f;
  if (c.winograd)
    conv_winograd_f32(g, x.data(), w.data(), c.prepared ? prepared.data() : nullptr, c.bias ? b.data() : nullptr,
                      y.data(), e);
  else
    conv_nd_f32(g, x.data(), w.data(), c.prepared ? prepared.data() : nullptr, c.bias ? b.data() : nullptr,
                y.data(), e);
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t oc = 0; oc < g.OC; ++oc)
      for (int64_t o = 0; o < P; ++o) {
        const int64_t od = o / (g.OH * g.OW), oh = (o / g.OW) % g.OH, ow = o % g.OW;
        double s = 0, mag = 0;
        const int64_t gi = oc / ocg;
        for (int64_t ci = 0; ci < cg; ++ci)
          for (int64_t t = 0; t < taps; ++t) {
            const int64_t kd = t / (g.KH * g.KW), kh = (t / g.KW) % g.KH, kw = t % g.KW;
            const int64_t id = od * g.SD - g.PD + kd * g.DD, ih = oh * g.SH - g.PH + kh * g.DH,
                          iw = ow * g.SW - g.PW + kw * g.DW;
            if (id < 0 || id >= g.D || ih < 0 || ih >= g.H || iw < 0 || iw >= g.W) continue;
            const float wv = w[size_t((oc * cg + ci) * taps + t)] * (sc ? sc[oc] : 1.0f);
            const double p = double(x[size_t((((n * g.C + gi * cg + ci) * g.D + id) * g.H + ih) * g.W + iw)]) *
                             double(wv);
            s += p;
            mag += std::fabs(p);
          }
        const size_t at = size_t((n * g.OC + oc) * P + o);
        if (c.bias) s += b[size_t(oc)];
        if (c.residual) s += res[at];
        s = apply_act(s, c.act, e.lo, e.hi);
        if (!close(y[at], s, mag + 4, cg * taps)) {
          fail(r, std::string(c.winograd ? "winograd " : "") + "conv N=" + std::to_string(g.N) + " C=" + std::to_string(g.C) + " OC=" + std::to_string(g.OC) +
                      " G=" + std::to_string(g.G) + " in=" + std::to_string(g.D) + "x" + std::to_string(g.H) + "x" +
                      std::to_string(g.W) + " k=" + std::to_string(g.KD) + "x" + std::to_string(g.KH) + "x" +
                      std::to_string(g.KW) + " s=" + std::to_string(g.SW) + " p=" + std::to_string(g.PW) +
                      " d=" + std::to_string(g.DW) + " at " + std::to_string(at) + ": got " +
                      std::to_string(y[at]) + " want " + std::to_string(s));
          return;
        }
      }
}

}  // namespace

SelfcheckResult selfcheck_conv() {
  SelfcheckResult r;
  uint32_t seed = 100;
  const int64_t nr = gemm_nr();
  int v = 0;
  auto add = [&](const ConvGeom& g) {
    if (g.OD <= 0 || g.OH <= 0 || g.OW <= 0) return;  // input smaller than the dilated kernel
    const GemmAct acts[3] = {GemmAct::None, GemmAct::Relu, GemmAct::Clamp};
    check_conv(r, {g, v % 2 == 0, v % 3 == 0, v % 4 != 1, acts[v % 3]}, seed += 11);
    ++v;
  };
  for (int64_t hw : {int64_t(1), int64_t(5), nr - 1, nr + 3, int64_t(17)}) {
    add(geom(1, 3, 8, 1, {hw, hw}, {3, 3}, 1, 1, 1));       // 3x3 same
    add(geom(2, 4, 7, 1, {hw, hw + 2}, {3, 3}, 2, 1, 1));   // strided, odd OC
    add(geom(1, 5, 13, 1, {hw, hw}, {1, 1}, 1, 0, 1));      // pointwise (gemm on the planes)
    add(geom(1, 6, 6, 6, {hw, hw + 1}, {3, 3}, 1, 1, 1));   // depthwise
    add(geom(1, 6, 12, 6, {hw + 2, hw}, {3, 3}, 2, 1, 1));  // depthwise stride 2, multiplier 2
    add(geom(1, 4, 4, 4, {hw, hw}, {5, 5}, 1, 2, 1));       // depthwise 5x5
    add(geom(2, 3, 3, 3, {hw + 1, hw}, {3, 3}, 3, 1, 1));   // depthwise stride 3, batch 2
    add(geom(1, 3, 3, 3, {hw, hw + 3}, {3, 3}, 1, 0, 2));   // depthwise dilated, no padding
    add(geom(1, 2, 2, 2, {hw, hw}, {2, 4}, 2, 0, 1));       // depthwise generic taps, stride 2
    add(geom(2, 2, 2, 2, {hw + 1, hw}, {5, 5}, 2, 2, 1));   // depthwise 5x5 stride 2, odd height
    add(geom(1, 8, 8, 2, {hw, hw}, {3, 3}, 1, 2, 2));       // grouped, dilated
    add(geom(1, 3, 5, 1, {hw + 4}, {4}, 3, 1, 1));          // 1-D
  }
  add(geom(1, 2, 3, 1, {3, 5, 4}, {2, 3, 3}, 1, 1, 1));     // 3-D
  add(geom(1, 4, 4, 4, {3, 6, 6}, {3, 3, 3}, 1, 1, 1));     // 3-D depthwise
  add(geom(1, 70, 20, 1, {9, 9}, {3, 3}, 1, 1, 1));         // K = 630 crosses KC
  add(geom(1, 1, 1, 1, {1, 1}, {1, 1}, 1, 0, 1));           // 1x1x1
  // Winograd F(2x2, 3x3): called directly on tiny and ragged planes (odd
  // OH/OW), and through conv_nd_f32 where it applies; per-oc scales folded.
  const int64_t chans[4][2] = {{8, 16}, {16, 16}, {17, 33}, {33, 17}};
  for (int64_t hw : {1, 2, 3, 4, 5, 7, 8, 13})
    for (int64_t pad : {0, 1}) {
      if (hw + 2 * pad < 3) continue;
      const int64_t* ch = chans[v % 4];
      const ConvGeom g = geom(1 + v % 2, ch[0], ch[1], 1, {hw, hw + (v / 2) % 2}, {3, 3}, 1, pad, 1);
      const GemmAct acts[3] = {GemmAct::None, GemmAct::Relu, GemmAct::Clamp};
      for (bool direct : {true, false}) {
        ConvCase c{g, v % 2 == 0, v % 3 != 1, v % 4 != 3, acts[v % 3]};
        c.scaled = v % 5 < 3;
        c.winograd = direct;
        check_conv(r, c, seed += 11);
        ++v;
      }
    }
  // Several tile blocks, one crossing from image 0 to image 1.
  add(geom(2, 64, 64, 1, {24, 19}, {3, 3}, 1, 1, 1));
  return r;
}

SelfcheckResult selfcheck_pool() {
  SelfcheckResult r;
  uint32_t seed = 500;
  for (int64_t hw : {int64_t(1), int64_t(6), int64_t(13), int64_t(20)})
    for (int64_t k : {int64_t(2), int64_t(3)})
      for (int64_t s : {int64_t(1), int64_t(2), int64_t(3)})
        for (int64_t dil : {int64_t(1), int64_t(2)}) {
          PoolGeom g;
          g.planes = 3;
          g.H = hw;
          g.W = hw + 3;
          g.KH = g.KW = k;
          g.SH = g.SW = s;
          g.PH = g.PW = k / 2;
          g.DH = g.DW = dil;
          g.OH = (g.H + 2 * g.PH - dil * (k - 1) - 1) / s + 1;
          g.OW = (g.W + 2 * g.PW - dil * (k - 1) - 1) / s + 1;
          if (g.OH <= 0 || g.OW <= 0) continue;
          ++r.cases;
          auto x = random_values(size_t(g.planes * g.H * g.W), seed += 3);
          x[size_t(seed % x.size())] = NAN;
          std::vector<float> y(size_t(g.planes * g.OH * g.OW));
          max_pool<float>(g, x.data(), y.data(), nullptr);
          for (int64_t p = 0; p < g.planes; ++p)
            for (int64_t oh = 0; oh < g.OH; ++oh)
              for (int64_t ow = 0; ow < g.OW; ++ow) {
                float best = -INFINITY;
                for (int64_t kh = 0; kh < k; ++kh)
                  for (int64_t kw = 0; kw < k; ++kw) {
                    const int64_t ih = oh * s - g.PH + kh * dil, iw = ow * s - g.PW + kw * dil;
                    if (ih < 0 || ih >= g.H || iw < 0 || iw >= g.W) continue;
                    const float v = x[size_t((p * g.H + ih) * g.W + iw)];
                    if (v > best || std::isnan(v)) best = v;
                  }
                const float got = y[size_t((p * g.OH + oh) * g.OW + ow)];
                if (!(got == best || (std::isnan(got) && std::isnan(best)))) {
                  fail(r, "max_pool hw=" + std::to_string(hw) + " k=" + std::to_string(k) + " s=" +
                              std::to_string(s) + " d=" + std::to_string(dil) + ": got " + std::to_string(got) +
                              " want " + std::to_string(best));
                  p = g.planes;
                  oh = g.OH;
                  break;
                }
              }
        }
  return r;
}

}  // namespace tir
