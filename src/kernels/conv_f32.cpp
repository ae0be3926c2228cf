// The fast f32 convolution: im2col written straight into packed gemm blocks
// (no K x P column matrix), 1x1 stride-1 convs read the input planes as B,
// weights packed once into gemm A panels, and bias/residual/activation applied
// by the gemm epilogue. Depthwise convs (one input channel per group) run a
// direct SIMD kernel over output rows (conv_depthwise_f32.cpp), and 3x3
// stride-1 convs with enough channels and pixels run Winograd F(2x2, 3x3)
// (conv_winograd_f32.cpp).
#include <algorithm>
#include <vector>

#include "kernels/conv.h"
#include "kernels/conv_depthwise.h"
#include "kernels/conv_winograd.h"
#include "kernels/parallel.h"

namespace tir {

namespace {

int64_t group_k(const ConvGeom& g) { return (g.C / g.G) * g.taps(); }

bool is_pointwise(const ConvGeom& g) {
  return g.taps() == 1 && g.SD == 1 && g.SH == 1 && g.SW == 1 && g.PD == 0 && g.PH == 0 && g.PW == 0 &&
         g.out_plane() == g.in_plane();
}

// Writes cols[k0:k0+kc, j0:j0+nc] of one (image, group) slice as packed gemm
// B panels ([ceil(nc/NR)][kc][NR]); xg points at the slice's first channel.
void im2col_packed(const ConvGeom& g, const float* xg, int64_t k0, int64_t kc, int64_t j0, int64_t nc,
                   float* dst) {
  const int64_t NR = gemm_nr(), taps = g.taps(), OHW = g.OH * g.OW, HW = g.H * g.W;
  for (int64_t kk = 0; kk < kc; ++kk) {
    const int64_t k = k0 + kk, c = k / taps, t = k % taps;
    const int64_t kd = t / (g.KH * g.KW), kh = (t / g.KW) % g.KH, kw = t % g.KW;
    const float* vol = xg + c * g.D * HW;
    // Walk the block's pixels in order: (panel, lane) advance without divisions.
    float* panel = dst + kk * NR;
    int64_t lane = 0;
    int64_t od = j0 / OHW, oh = (j0 % OHW) / g.OW, ow = j0 % g.OW;
    int64_t jj = 0;
    while (jj < nc) {
      // One output row segment: ow .. min(OW, ow + nc - jj).
      const int64_t id = od * g.SD - g.PD + kd * g.DD, ih = oh * g.SH - g.PH + kh * g.DH;
      const int64_t run = std::min(g.OW - ow, nc - jj);
      const bool row_in = id >= 0 && id < g.D && ih >= 0 && ih < g.H;
      const float* src = row_in ? vol + (id * g.H + ih) * g.W : vol;
      int64_t iw = ow * g.SW - g.PW + kw * g.DW;
      // Pieces that end at a panel's last lane or the segment's end; a piece
      // wholly inside the input row is a plain (strided) copy.
      for (int64_t r = 0; r < run;) {
        const int64_t n = std::min(NR - lane, run - r), last = iw + (n - 1) * g.SW;
        float* out = panel + lane;
        if (!row_in || last < 0 || iw >= g.W) {
          std::fill(out, out + n, 0.0f);
        } else if (iw >= 0 && last < g.W) {
          if (g.SW == 1) {
            std::copy(src + iw, src + iw + n, out);
          } else {
            for (int64_t j = 0; j < n; ++j) out[j] = src[iw + j * g.SW];
          }
        } else {
          for (int64_t j = 0, c = iw; j < n; ++j, c += g.SW) out[j] = c >= 0 && c < g.W ? src[c] : 0.0f;
        }
        r += n;
        iw += n * g.SW;
        lane += n;
        if (lane == NR) {
          lane = 0;
          panel += kc * NR;
        }
      }
      jj += run;
      ow += run;
      if (ow == g.OW) {
        ow = 0;
        if (++oh == g.OH) {
          oh = 0;
          ++od;
        }
      }
    }
    for (; lane != 0 && lane < NR; ++lane) panel[lane] = 0.0f;  // pad the last panel
  }
}

}  // namespace

bool conv_is_depthwise(const ConvGeom& g) { return g.C / g.G == 1 && g.G > 1; }

int64_t conv_prepared_weights_size(const ConvGeom& g) {
  if (conv_is_depthwise(g)) return g.OC * g.taps();
  if (conv_winograd_applies(g)) return conv_winograd_weights_size(g);
  return g.G * packed_a_size(g.OC / g.G, group_k(g));
}

void prepare_conv_weights_f32(const ConvGeom& g, const float* w, const float* oc_scale, float* dst) {
  if (conv_winograd_applies(g)) {  // scales while transforming
    conv_winograd_prepare_f32(g, w, oc_scale, dst);
    return;
  }
  const int64_t ocg = g.OC / g.G, K = group_k(g);
  std::vector<float> scaled;
  if (oc_scale) {
    scaled.assign(w, w + g.OC * K);
    for (int64_t oc = 0; oc < g.OC; ++oc)
      for (int64_t k = 0; k < K; ++k) scaled[size_t(oc * K + k)] *= oc_scale[oc];
    w = scaled.data();
  }
  if (conv_is_depthwise(g)) {
    std::copy(w, w + g.OC * K, dst);
    return;
  }
  const int64_t per_group = packed_a_size(ocg, K);
  for (int64_t gi = 0; gi < g.G; ++gi) pack_a_f32(ocg, K, w + gi * ocg * K, K, false, dst + gi * per_group);
}

void conv_nd_f32(const ConvGeom& g, const float* x, const float* w, const float* w_prepared, const float* bias,
                 float* y, const GemmEpilogue& epi) {
  const int64_t cg = g.C / g.G, ocg = g.OC / g.G, K = group_k(g), P = g.out_plane(), IP = g.in_plane();
  if (g.N * g.OC * P == 0) return;
  if (conv_is_depthwise(g)) {
    conv_depthwise_f32(g, x, w_prepared ? w_prepared : w, bias, y, epi);
    return;
  }
  if (conv_winograd_applies(g)) {
    conv_winograd_f32(g, x, w, w_prepared, bias, y, epi);
    return;
  }
  const bool pointwise = is_pointwise(g);
  const int64_t per_group = packed_a_size(ocg, K);
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t gi = 0; gi < g.G; ++gi) {
      const float* xg = x + (n * g.C + gi * cg) * IP;
      const int64_t c_off = (n * g.OC + gi * ocg) * P;
      GemmOperandA A;
      if (w_prepared) {
        A.packed = w_prepared + gi * per_group;
      } else {
        A.data = w + gi * ocg * K;
        A.ld = K;
      }
      const auto pack = [&](int64_t k0, int64_t kc, int64_t j0, int64_t nc, float* dst) {
        im2col_packed(g, xg, k0, kc, j0, nc, dst);
      };
      const PackBBlock packer = pack;
      GemmOperandB B;
      if (pointwise) {
        B.data = xg;
        B.ld = P;
      } else {
        B.pack_block = &packer;
      }
      GemmEpilogue e = epi;
      e.bias = bias ? bias + gi * ocg : nullptr;
      e.bias_per_row = true;
      if (epi.residual) {
        e.residual = epi.residual + c_off;
        e.ldr = P;
      }
      gemm_f32_ex(ocg, P, K, A, B, y + c_off, P, 1.0f, 0.0f, e);
    }
}

}  // namespace tir
