// Pooling: max/avg (fixed windows) and adaptive avg/max, 1-D, 2-D and 3-D (lower
// ranks run as 3-D with leading sizes 1). Batched (N,C,...) and unbatched
// (C,...) inputs; NC[D]HW layout.
#include "core/checked.h"
#include "kernels/pool.h"

#include <memory>
#include <string>

#include "core/dispatch.h"
#include "ops/elementwise_util.h"
#include "ops/op.h"

namespace tir {
namespace {

enum class Kind { Max, MaxIdx, Avg, AdaptiveAvg, AdaptiveMax };

struct PoolArgs {
  PoolGeom g;
  Shape out_shape;
  bool count_include_pad = true;
  int64_t divisor_override = 0;
};

// torch's pooling_output_shape: floor or ceil division, and with ceil_mode the
// last window must start inside the input or left padding.
int64_t pool_out_size(const OpCall& call, int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil,
                      bool ceil_mode) {
  // parse_pool checked k, stride, dil >= 1 and 0 <= pad <= k / 2; sizes may still be huge.
  const std::string what = "pool geometry";
  const int64_t span = checked_add(checked_mul(dil, k - 1, what), 1, what);  // the window's extent
  int64_t num = checked_add(checked_add(in, checked_mul(2, pad, what), what), -span, what);
  if (ceil_mode) num = checked_add(num, stride - 1, what);
  int64_t out = num / stride;  // floor division (num may be negative)
  if (num % stride != 0 && num < 0) --out;
  ++out;
  if (ceil_mode && checked_mul(out - 1, stride, what) >= checked_add(in, pad, what)) --out;
  call.check(out >= 1, "output size " + std::to_string(out) + " is too small (input " + std::to_string(in) +
                           ", kernel " + std::to_string(k) + ", padding " + std::to_string(pad) + ")");
  return out;
}

PoolArgs parse_pool(const OpCall& call, Kind kind, size_t nsp) {
  call.expect_inputs(1, 1);
  const Tensor& x = call.in[0];
  const int64_t n = int64_t(nsp);
  call.check(x.dim() == n + 1 || x.dim() == n + 2, "expected " + std::to_string(n + 1) + "-D or " +
                                                       std::to_string(n + 2) + "-D input, got " +
                                                       shape_to_string(x.shape));
  call.check(x.dtype == DType::F32 || x.dtype == DType::F64,
             std::string("pooling supports float32/float64, got ") + dtype_name(x.dtype));
  PoolArgs a;
  PoolGeom& g = a.g;
  const int64_t sp0 = x.dim() - n;  // first spatial dim
  g.planes = 1;
  for (int64_t d = 0; d < sp0; ++d) g.planes *= x.shape[d];
  a.out_shape.assign(x.shape.begin(), x.shape.begin() + sp0);
  int64_t* in_sz[3] = {&g.D, &g.H, &g.W};
  int64_t* out_sz[3] = {&g.OD, &g.OH, &g.OW};
  const size_t off = 3 - nsp;
  if (kind == Kind::AdaptiveAvg || kind == Kind::AdaptiveMax) {
    const auto os = call.ints("output_size", std::nullopt, nsp);
    call.check(os.size() == nsp, "output_size must have " + std::to_string(nsp) + " values");
    for (size_t d = 0; d < nsp; ++d) {
      const int64_t in = x.shape[size_t(sp0) + d];
      call.check(os[d] >= 0, "output_size must be non-negative");
      call.check(in > 0 || os[d] == 0, "adaptive pooling of an empty spatial dim");
      *in_sz[off + d] = in;
      *out_sz[off + d] = os[d];
      a.out_shape.push_back(os[d]);
    }
    return a;
  }
  auto k = call.ints("kernel_size", std::nullopt, nsp);
  auto stride = call.ints("stride", std::vector<int64_t>{}, nsp);
  if (stride.empty()) stride = k;  // [] means stride = kernel size
  auto pad = call.ints("padding", std::vector<int64_t>(nsp, 0), nsp);
  const bool is_max = kind == Kind::Max || kind == Kind::MaxIdx;
  auto dil = is_max ? call.ints("dilation", std::vector<int64_t>(nsp, 1), nsp) : std::vector<int64_t>(nsp, 1);
  const bool ceil_mode = call.b("ceil_mode", false);
  for (auto* v : {&k, &stride, &pad, &dil})
    call.check(v->size() == nsp,
               "kernel_size/stride/padding/dilation must have " + std::to_string(nsp) + " values");
  int64_t* k_sz[3] = {&g.KD, &g.KH, &g.KW};
  int64_t* s_sz[3] = {&g.SD, &g.SH, &g.SW};
  int64_t* p_sz[3] = {&g.PD, &g.PH, &g.PW};
  int64_t* d_sz[3] = {&g.DD, &g.DH, &g.DW};
  for (size_t d = 0; d < nsp; ++d) {
    call.check(k[d] > 0 && stride[d] > 0 && dil[d] > 0, "kernel_size, stride and dilation must be positive");
    call.check(pad[d] >= 0 && pad[d] <= k[d] / 2, "padding " + std::to_string(pad[d]) +
                                                      " must be at most half the kernel size " +
                                                      std::to_string(k[d]));
    const int64_t in = x.shape[size_t(sp0) + d];
    const int64_t out = pool_out_size(call, in, k[d], pad[d], stride[d], dil[d], ceil_mode);
    *in_sz[off + d] = in;
    *out_sz[off + d] = out;
    *k_sz[off + d] = k[d];
    *s_sz[off + d] = stride[d];
    *p_sz[off + d] = pad[d];
    *d_sz[off + d] = dil[d];
    a.out_shape.push_back(out);
  }
  if (kind == Kind::Avg) {
    a.count_include_pad = call.b("count_include_pad", true);
    if (call.has("divisor_override")) {
      a.divisor_override = call.i("divisor_override");
      call.check(a.divisor_override != 0, "divisor_override must be non-zero");
    }
  }
  return a;
}

bool has_indices(Kind k) { return k == Kind::MaxIdx || k == Kind::AdaptiveMax; }

void plan_pool(OpCall& call, Kind kind, size_t nsp) {
  auto a = std::make_shared<PoolArgs>(parse_pool(call, kind, nsp));
  call.fresh(0, call.in[0].dtype, a->out_shape);
  if (has_indices(kind)) call.fresh(1, DType::I64, a->out_shape);
  call.state = a;
}

void run_pool(OpCall& call, Kind kind, size_t nsp) {
  const PoolArgs& a = call.state_as<PoolArgs>();
  Tensor keep;  // a contiguous copy of a strided input
  const Tensor& x = ew::dense_ref(call.in[0], call.in[0].dtype, keep);
  int64_t* idx = has_indices(kind) && call.out.size() > 1 ? call.out[1].data<int64_t>() : nullptr;
  dispatch_compute(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      const T* in = x.data<T>();
      T* out = call.out[0].data<T>();
      switch (kind) {
        case Kind::Max:
        case Kind::MaxIdx:
          max_pool<T>(a.g, in, out, idx);
          break;
        case Kind::Avg:
          avg_pool<T>(a.g, a.count_include_pad, a.divisor_override, in, out);
          break;
        case Kind::AdaptiveAvg:
          adaptive_avg_pool<T>(a.g, in, out);
          break;
        case Kind::AdaptiveMax:
          adaptive_max_pool<T>(a.g, in, out, idx);
          break;
      }
    } else {
      call.fail("pooling supports float32/float64 only");
    }
  });
}

OpDef pool_def(Kind kind, size_t nsp) {
  return {[kind, nsp](OpCall& c) { plan_pool(c, kind, nsp); },
          [kind, nsp](OpCall& c) { run_pool(c, kind, nsp); }};
}

}  // namespace

TIR_REGISTER_OPS(
    // aten::max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0,
    //   int[2] dilation=1, bool ceil_mode=False) -> Tensor
    {"aten.max_pool2d.default", pool_def(Kind::Max, 2)},
    // aten::max_pool2d_with_indices(<same as max_pool2d>) -> (Tensor, Tensor)
    {"aten.max_pool2d_with_indices.default", pool_def(Kind::MaxIdx, 2)},
    // aten::avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0,
    //   bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor
    {"aten.avg_pool2d.default", pool_def(Kind::Avg, 2)},
    // aten::adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor
    {"aten.adaptive_avg_pool2d.default", pool_def(Kind::AdaptiveAvg, 2)},
    // aten::_adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor
    {"aten._adaptive_avg_pool2d.default", pool_def(Kind::AdaptiveAvg, 2)},
    // aten::adaptive_max_pool2d(Tensor self, int[2] output_size) -> (Tensor, Tensor)
    {"aten.adaptive_max_pool2d.default", pool_def(Kind::AdaptiveMax, 2)},
    // aten::max_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=[0],
    //   int[1] dilation=[1], bool ceil_mode=False) -> Tensor
    {"aten.max_pool1d.default", pool_def(Kind::Max, 1)},
    // aten::avg_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=[0],
    //   bool ceil_mode=False, bool count_include_pad=True) -> Tensor
    {"aten.avg_pool1d.default", pool_def(Kind::Avg, 1)},
    // aten::adaptive_avg_pool1d(Tensor self, int[1] output_size) -> Tensor
    {"aten.adaptive_avg_pool1d.default", pool_def(Kind::AdaptiveAvg, 1)},
    // aten::adaptive_max_pool1d(Tensor self, int[1] output_size) -> (Tensor, Tensor)
    {"aten.adaptive_max_pool1d.default", pool_def(Kind::AdaptiveMax, 1)},
    // aten::max_pool3d(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0,
    //   int[3] dilation=1, bool ceil_mode=False) -> Tensor
    {"aten.max_pool3d.default", pool_def(Kind::Max, 3)},
    // aten::max_pool3d_with_indices(<same as max_pool3d>) -> (Tensor, Tensor)
    {"aten.max_pool3d_with_indices.default", pool_def(Kind::MaxIdx, 3)},
    // aten::avg_pool3d(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0,
    //   bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor
    {"aten.avg_pool3d.default", pool_def(Kind::Avg, 3)},
    // aten::adaptive_avg_pool3d(Tensor self, SymInt[3] output_size) -> Tensor
    {"aten.adaptive_avg_pool3d.default", pool_def(Kind::AdaptiveAvg, 3)},
    // aten::_adaptive_avg_pool3d(Tensor self, SymInt[3] output_size) -> Tensor
    {"aten._adaptive_avg_pool3d.default", pool_def(Kind::AdaptiveAvg, 3)},
    // aten::adaptive_max_pool3d(Tensor self, int[3] output_size) -> (Tensor, Tensor)
    {"aten.adaptive_max_pool3d.default", pool_def(Kind::AdaptiveMax, 3)});

}  // namespace tir
