// aten.conv2d on PyTorch's quantized pattern, in integers (PT2E static or dynamic int8
// activations per tensor, int8 weights per output channel), groups = 1: the image is quantized
// with the quantize op's arithmetic into channels-last int16, its patches laid out as rows (one
// per output position, (kh, kw, C) order so each tap is one copy of C values; padding reads as
// the zero point, the quantized 0.0), multiplied with the weights (packed once in the same
// (kh, kw, C) order) by the int8 GEMM (ops/quantized_forms.h) into [positions, channels], and
// transposed into the NCHW output; relu / residual of the fusion pass follow. The lowering
// (runtime/quant_lowering.cpp) switches a conv2d step here; a conv whose plan fails here (groups,
// dtypes) stays on the reference ops.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "kernels/parallel.h"
#include "ops/epilogue.h"
#include "ops/quantized_forms.h"

namespace tir {
namespace {

struct ConvInt8State {
  QuantizedOperands q;
  int64_t N = 1, C = 0, H = 0, W = 0, OC = 0, kh = 1, kw = 1, oh = 0, ow = 0;
  int64_t sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
  int64_t K = 0, lda = 0;
  int ws_x = -1, ws_a = -1, ws_c = -1, ws_row_scale = -1, ws_row_zero = -1, ws_row_sum = -1;
  QuantizedWeights w;
};

void plan_conv2d_int8(OpCall& call) {
  call.check(call.quantized != nullptr, "the integer conv2d needs the quantization lowering's operands");
  call.expect_inputs(2, 3);
  const Tensor &x = call.in[0], &w = call.in[1];
  call.check(x.dtype == DType::F32 && x.is_contiguous() && x.dim() == 4, "expects a contiguous float32 NCHW input");
  call.check(w.dtype == DType::I8 && w.dim() == 4 && w.is_contiguous(), "expects a contiguous int8 OIHW weight");
  call.check(call.i("groups", 1) == 1, "grouped convolutions have no integer form");
  auto st = std::make_shared<ConvInt8State>();
  st->q = *call.quantized;
  const auto stride = call.ints("stride", std::vector<int64_t>{1, 1}, 2);
  const auto padding = call.ints("padding", std::vector<int64_t>{0, 0}, 2);
  const auto dilation = call.ints("dilation", std::vector<int64_t>{1, 1}, 2);
  call.check(stride.size() == 2 && padding.size() == 2 && dilation.size() == 2, "expects 2 values per spatial list");
  st->N = x.shape[0];
  st->C = x.shape[1];
  st->H = x.shape[2];
  st->W = x.shape[3];
  st->OC = w.shape[0];
  st->kh = w.shape[2];
  st->kw = w.shape[3];
  call.check(w.shape[1] == st->C, "weight has " + std::to_string(w.shape[1]) + " input channels, the input " +
                                      std::to_string(st->C));
  st->sh = stride[0], st->sw = stride[1], st->ph = padding[0], st->pw = padding[1];
  st->dh = dilation[0], st->dw = dilation[1];
  call.check(st->sh > 0 && st->sw > 0 && st->dh > 0 && st->dw > 0 && st->ph >= 0 && st->pw >= 0,
             "stride and dilation must be positive, padding not negative");
  st->oh = (st->H + 2 * st->ph - st->dh * (st->kh - 1) - 1) / st->sh + 1;
  st->ow = (st->W + 2 * st->pw - st->dw * (st->kw - 1) - 1) / st->sw + 1;
  call.check(st->oh > 0 && st->ow > 0, "the kernel does not fit the padded input");
  const Shape out_shape{st->N, st->OC, st->oh, st->ow};
  if (call.out.empty() || !call.out[0].defined()) call.fresh(0, DType::F32, out_shape);
  call.check(call.out[0].shape == out_shape && call.out[0].is_contiguous(), "unexpected output shape");
  if (call.in.size() == 3)
    call.check(call.in[2].dtype == DType::F32 && call.in[2].numel() == st->OC && call.in[2].is_contiguous(),
               "expects a contiguous float32 bias of " + std::to_string(st->OC) + " values");
  st->K = st->C * st->kh * st->kw;
  st->lda = (st->K + 1) / 2 * 2;
  check_quantized_gemm_range(call, st->K);
  const int64_t M = st->oh * st->ow;
  st->ws_x = int(call.add_workspace(DType::I16, {std::max<int64_t>(st->C * st->H * st->W, 1)}));
  st->ws_a = int(call.add_workspace(DType::I16, {std::max<int64_t>(M * st->lda, 1)}));
  st->ws_c = int(call.add_workspace(DType::F32, {std::max<int64_t>(M * st->OC, 1)}));
  st->ws_row_scale = int(call.add_workspace(DType::F32, {std::max<int64_t>(M, 1)}));
  st->ws_row_zero = int(call.add_workspace(DType::I32, {std::max<int64_t>(M, 1)}));
  st->ws_row_sum = int(call.add_workspace(DType::I32, {std::max<int64_t>(M, 1)}));
  call.state = std::move(st);
}

void prepare_conv2d_int8(OpCall& call) {
  auto& st = call.state_as<ConvInt8State>();
  // OIHW -> O(kh, kw, C): the patches' order
  const int8_t* w = call.in[1].data<int8_t>();
  std::vector<int8_t> hwc(size_t(st.OC * st.K));
  for (int64_t o = 0; o < st.OC; ++o)
    for (int64_t c = 0; c < st.C; ++c)
      for (int64_t t = 0; t < st.kh * st.kw; ++t) hwc[size_t(o * st.K + t * st.C + c)] = w[(o * st.C + c) * st.kh * st.kw + t];
  prepare_quantized_weights(call, st.q, call.in[1], "s8-panels-hwc-", hwc.data(), st.OC, st.K, st.K, &st.w);
}

// Output rows [y0, y1): row m = output position (y, x) holds its patch's K quantized values in
// (kh, kw, C) order, read from the channels-last image xq; outside the image, the zero point.
// Without dilation a patch row's kw pixels are consecutive in xq: one copy of kw * C values
// instead of kw copies of C (ResNet's 7 x 7 stem has C = 3: kw copies of 6 bytes each).
void patches(const ConvInt8State& s, const int16_t* xq, int16_t zero, int16_t* a, int64_t y0, int64_t y1) {
  const int64_t C = s.C;
  for (int64_t y = y0; y < y1; ++y)
    for (int64_t x = 0; x < s.ow; ++x) {
      int16_t* row = a + (y * s.ow + x) * s.lda;
      const int64_t ix0 = x * s.sw - s.pw;  // the patch's first column
      // columns j in [j0, j1) fall inside the image (dilation dw)
      const int64_t j0 = ix0 >= 0 ? 0 : std::min(s.kw, (-ix0 + s.dw - 1) / s.dw);
      const int64_t j1 = std::max(j0, std::min(s.kw, (s.W - ix0 + s.dw - 1) / s.dw));
      for (int64_t i = 0; i < s.kh; ++i) {
        const int64_t iy = y * s.sh - s.ph + i * s.dh;
        int16_t* dst = row + i * s.kw * C;
        if (iy < 0 || iy >= s.H) {
          std::fill(dst, dst + s.kw * C, zero);
          continue;
        }
        std::fill(dst, dst + j0 * C, zero);
        const int64_t src = (iy * s.W + ix0) * C;  // offset of column 0 (may lie before xq)
        if (s.dw == 1)
          std::copy_n(xq + src + j0 * C, (j1 - j0) * C, dst + j0 * C);
        else
          for (int64_t j = j0; j < j1; ++j) std::copy_n(xq + src + j * s.dw * C, C, dst + j * C);
        std::fill(dst + j1 * C, dst + s.kw * C, zero);
      }
      if (s.lda > s.K) row[s.K] = 0;
    }
}

void run_conv2d_int8(OpCall& call) {
  auto& st = call.state_as<ConvInt8State>();
  const float* x = call.in[0].data<float>();
  float* y = call.out[0].data<float>();
  const int64_t image = st.C * st.H * st.W, M = st.oh * st.ow;
  // One (scale, zero point) for the whole tensor, batch included (per-tensor quantization).
  double scale;
  int64_t zero;
  activation_qparams(call, st.q, x, st.N * image, &scale, &zero);
  int16_t* xq = call.workspace[size_t(st.ws_x)].data<int16_t>();
  int16_t* a = call.workspace[size_t(st.ws_a)].data<int16_t>();
  float* c = call.workspace[size_t(st.ws_c)].data<float>();
  const bool has_bias = call.in.size() == 3;
  if (has_bias) std::copy(call.in[2].data<float>(), call.in[2].data<float>() + st.OC, st.w.bias.begin());
  // The steps around the GEMM split across threads too (on one thread they held the second
  // thread back: ResNet-18 int8 at 2 threads in Chromium went 46.8 -> 37.9 ms): each thread
  // quantizes a band of positions, lays out a band of output rows and transposes a band of
  // positions.
  const int64_t hw = st.H * st.W;
  for (int64_t n = 0; n < st.N; ++n) {
    // NCHW -> channels-last while quantizing
    parallel_for(hw, grain_for(2 * st.C), [&](int64_t p0, int64_t p1) {
      for (int64_t c = 0; c < st.C; ++c)
        quantize_activation(st.q, scale, zero, x + n * image + c * hw + p0, p1 - p0, xq + p0 * st.C + c, st.C);
    });
    parallel_for(st.oh, grain_for(st.ow * st.K), [&](int64_t y0, int64_t y1) { patches(st, xq, int16_t(zero), a, y0, y1); });
    const QGemmEpilogue e = quantized_epilogue(
        st.w, M, scale, zero, call.workspace[size_t(st.ws_row_scale)].data<float>(),
        call.workspace[size_t(st.ws_row_zero)].data<int32_t>(), call.workspace[size_t(st.ws_row_sum)].data<int32_t>(),
        a, st.lda, st.K, has_bias ? st.w.bias.data() : nullptr);
    gemm_s8(M, st.OC, st.K, a, st.lda, reinterpret_cast<const int16_t*>(st.w.packed->data()), e, c, st.OC);
    float* out = y + n * st.OC * M;  // [positions, channels] -> [channels, positions], 16 positions at a time
    constexpr int64_t kBand = 16;
    parallel_for((M + kBand - 1) / kBand, grain_for(kBand * st.OC), [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) {
        const int64_t m0 = b * kBand, m1 = std::min(M, m0 + kBand);
        for (int64_t o = 0; o < st.OC; ++o)
          for (int64_t m = m0; m < m1; ++m) out[o * M + m] = c[m * st.OC + o];
      }
    });
  }
  apply_epilogue(call.epilogue, call.out[0]);
}

}  // namespace

const OpDef* conv2d_int8_def() {
  static const OpDef def = [] {
    OpDef d{plan_conv2d_int8, run_conv2d_int8, prepare_conv2d_int8};
    d.traits.epilogue = EpilogueRole::Producer;
    return d;
  }();
  return &def;
}

}  // namespace tir
