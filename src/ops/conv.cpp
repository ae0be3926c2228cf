// Convolutions (1-D, 2-D and 3-D, normal and transposed, NC[D]HW). Every
// overload is parsed into one ConvArgs and run by the N-d kernels in
// kernels/conv.h; lower ranks fill the leading spatial dims with size 1.
#include "core/checked.h"
#include "kernels/conv.h"

#include <string>

#include "core/dispatch.h"
#include "kernels/conv_winograd.h"
#include "ops/epilogue.h"
#include "ops/elementwise_util.h"
#include "ops/op.h"
#include "ops/quantized_forms.h"
#include "ops/sliding_window.h"

namespace tir {
namespace {

struct ConvArgs {
  int64_t nsp = 2;  // spatial dims (1, 2 or 3)
  bool batched = true;
  bool transposed = false;
  ConvGeom g;
  Shape out_shape;
};

enum class Form { Conv, ConvPaddingStr, Convolution, ConvTranspose };

ConvArgs parse_conv(const OpCall& call, Form form, int64_t fixed_nsp) {
  call.expect_inputs(2, 3);
  const Tensor &x = call.in[0], &w = call.in[1];
  ConvArgs a;
  a.nsp = fixed_nsp ? fixed_nsp : w.dim() - 2;
  const size_t n = size_t(a.nsp);
  if (a.nsp < 1 || a.nsp > 3)
    call.fail("only 1-D, 2-D and 3-D convolutions are supported (weight " + shape_to_string(w.shape) + ")");
  call.check(w.dim() == a.nsp + 2,
             "weight must be " + std::to_string(a.nsp + 2) + "-D, got " + shape_to_string(w.shape));
  call.check(x.dim() == a.nsp + 2 || x.dim() == a.nsp + 1,
             "expected " + std::to_string(a.nsp + 1) + "-D (unbatched) or " + std::to_string(a.nsp + 2) +
                 "-D input, got " + shape_to_string(x.shape));
  call.check(x.dtype == w.dtype, std::string("input (") + dtype_name(x.dtype) + ") and weight (" +
                                     dtype_name(w.dtype) + ") must have the same dtype");
  call.check(x.dtype == DType::F32 || x.dtype == DType::F64,
             std::string("convolution supports float32/float64, got ") + dtype_name(x.dtype));
  a.batched = x.dim() == a.nsp + 2;
  const std::vector<int64_t> ones(n, 1), zeros(n, 0);
  std::vector<int64_t> stride = call.ints("stride", ones, n);
  std::vector<int64_t> dilation = call.ints("dilation", ones, n);
  std::vector<int64_t> padding = zeros, out_pad = zeros;
  std::string pad_mode;
  if (form == Form::ConvPaddingStr) {
    pad_mode = call.str("padding", std::string("valid"));
    call.check(pad_mode == "same" || pad_mode == "valid",
               "padding must be 'same' or 'valid', got '" + pad_mode + "'");
  } else {
    padding = call.ints("padding", zeros, n);
  }
  if (form == Form::Convolution) a.transposed = call.b("transposed", false);
  if (form == Form::ConvTranspose) a.transposed = true;
  if (a.transposed) out_pad = call.ints("output_padding", zeros, n);
  const int64_t groups = call.i("groups", 1);
  for (auto* v : {&stride, &dilation, &padding, &out_pad})
    call.check(v->size() == n, "expected " + std::to_string(n) + " values per spatial list");
  for (size_t d = 0; d < n; ++d) {
    call.check(stride[d] > 0, "stride must be positive");
    call.check(dilation[d] > 0, "dilation must be positive");
    call.check(padding[d] >= 0, "negative padding is not supported");
  }
  call.check(groups > 0, "groups must be positive");

  ConvGeom& g = a.g;
  const int64_t lead = a.batched ? 1 : 0;
  g.N = a.batched ? x.shape[0] : 1;
  g.C = x.shape[lead];
  g.G = groups;
  if (!a.transposed) {
    call.check(checked_mul(w.shape[1], groups, "conv geometry") == g.C && w.shape[0] % groups == 0,
               "weight " + shape_to_string(w.shape) + " with groups=" + std::to_string(groups) +
                   " does not fit input " + shape_to_string(x.shape));
    g.OC = w.shape[0];
  } else {
    call.check(w.shape[0] == g.C && g.C % groups == 0, "transposed weight " + shape_to_string(w.shape) +
                                                           " with groups=" + std::to_string(groups) +
                                                           " does not fit input " + shape_to_string(x.shape));
    g.OC = checked_mul(w.shape[1], groups, "conv geometry");
  }
  // Spatial geometry, right-aligned: a 2-D conv has D = 1, a 1-D conv also H = 1.
  int64_t* in_sz[3] = {&g.D, &g.H, &g.W};
  int64_t* out_sz[3] = {&g.OD, &g.OH, &g.OW};
  int64_t* k_sz[3] = {&g.KD, &g.KH, &g.KW};
  int64_t* s_sz[3] = {&g.SD, &g.SH, &g.SW};
  int64_t* p_sz[3] = {&g.PD, &g.PH, &g.PW};
  int64_t* d_sz[3] = {&g.DD, &g.DH, &g.DW};
  const size_t off = 3 - n;
  a.out_shape.clear();
  if (a.batched) a.out_shape.push_back(g.N);
  a.out_shape.push_back(g.OC);
  for (size_t d = 0; d < n; ++d) {
    const int64_t in = x.shape[lead + 1 + d], k = w.shape[2 + d];
    const int64_t eff_k = checked_add(checked_mul(dilation[d], k - 1, "conv geometry"), 1, "conv geometry");
    int64_t p = padding[d], out;
    if (pad_mode == "same") {
      call.check(stride[d] == 1, "padding='same' is not supported for strided convolutions");
      p = (eff_k - 1) / 2;  // the odd extra goes right/bottom: output size stays `in`
      window_positions(call, in, k, dilation[d], p, 1);  // only its size checks
      out = in;
    } else if (!a.transposed) {
      out = window_positions(call, in, k, dilation[d], padding[d], stride[d]);
    } else {
      call.check(out_pad[d] < stride[d] || out_pad[d] < dilation[d],
                 "output_padding must be smaller than stride or dilation");
      out = checked_add(checked_add(checked_mul(in - 1, stride[d], "conv geometry"), -checked_mul(2, padding[d], "conv geometry"), "conv geometry"),
                        checked_add(eff_k, out_pad[d], "conv geometry"), "conv geometry");
      window_positions(call, out, k, dilation[d], padding[d], stride[d]);  // the forward conv's sizes check
    }
    call.check(out > 0, "computed output size " + std::to_string(out) + " is too small (input " +
                            shape_to_string(x.shape) + ", kernel " + shape_to_string(w.shape) + ")");
    *in_sz[off + d] = in;
    *out_sz[off + d] = out;
    *k_sz[off + d] = k;
    // A stride that never steps (one output, or a transposed conv of one input)
    // is 1 to the kernels, which step one stride past the end.
    const bool steps = a.transposed ? in > 1 : out > 1;
    call.check(!steps || stride[d] < kMaxWindowExtent, "stride " + std::to_string(stride[d]) + " is too large");
    *s_sz[off + d] = steps ? stride[d] : 1;
    *p_sz[off + d] = p;
    *d_sz[off + d] = dilation[d];
    a.out_shape.push_back(out);
  }
  if (call.in.size() == 3) {
    const Tensor& b = call.in[2];
    call.check(b.dim() == 1 && b.shape[0] == g.OC,
               "bias must be [" + std::to_string(g.OC) + "], got " + shape_to_string(b.shape));
    call.check(b.dtype == x.dtype, "bias dtype must match the input");
  }
  return a;
}

struct ConvState {
  ConvArgs a;
  std::shared_ptr<const std::vector<float>> w_prepared;  // packed (and BN-scaled) f32 weights
  std::vector<float> bias;                               // f32 bias with the BN shift folded in
  bool bias_prepared = false;
};

bool fast_f32(const OpCall& call, const ConvArgs& a) { return call.in[0].dtype == DType::F32 && !a.transposed; }

void plan_conv(OpCall& call, Form form, int64_t nsp) {
  auto st = std::make_shared<ConvState>();
  st->a = parse_conv(call, form, nsp);
  call.fresh(0, call.in[0].dtype, st->a.out_shape);
  call.state = st;
}

// Packs constant f32 weights once, folding a fused batch norm into them.
void prepare_conv(OpCall& call) {
  auto& st = call.state_as<ConvState>();
  st.w_prepared.reset();
  st.bias_prepared = false;
  if (!fast_f32(call, st.a) || !call.is_constant(1)) return;
  const ConvGeom& g = st.a.g;
  const FusedEpilogue& e = call.epilogue;
  const bool has_bias = call.in.size() == 3;
  if (e.has_bn && has_bias && !call.is_constant(2)) return;  // cannot fold: run() applies it afterwards
  // The fused batch norm's scale and shift, made by prepare before this step's (e.bn_affine).
  const float* scale = e.has_bn ? e.bn_affine.data<float>() : nullptr;
  const float* shift = e.has_bn ? scale + g.OC : nullptr;
  const Tensor w = contiguous_or_self(call.in[1]);
  // The layout names the path: one weight may feed convs that pack it differently.
  const std::string layout = e.has_bn ? "conv+bn:" + call.node->name
                             : conv_winograd_applies(g) ? std::string("conv:winograd")
                                                        : "conv:G=" + std::to_string(g.G);
  st.w_prepared = call.prepare_ctx->derived(w, layout, [&](std::vector<float>& dst) {
    dst.resize(size_t(conv_prepared_weights_size(g)));
    prepare_conv_weights_f32(g, w.data<float>(), scale, dst.data());
  });
  if (e.has_bn) {
    st.bias.assign(shift, shift + g.OC);
    if (has_bias) {
      const Tensor& b = call.in[2];
      for (int64_t c = 0; c < g.OC; ++c) st.bias[size_t(c)] += b.data<float>()[c * b.strides[0]] * scale[c];
    }
    st.bias_prepared = true;
  }
}

void run_conv(OpCall& call) {
  const auto& st = call.state_as<ConvState>();
  const ConvArgs& a = st.a;
  const FusedEpilogue& e = call.epilogue;
  Tensor keep[3];  // contiguous copies of strided operands
  const Tensor& x = ew::dense_ref(call.in[0], call.in[0].dtype, keep[0]);
  const Tensor& b = call.in.size() == 3 ? ew::dense_ref(call.in[2], call.in[2].dtype, keep[2]) : keep[2];
  // The fast path applies the whole epilogue when the batch norm (if any) is folded.
  if (fast_f32(call, a) && (!e.has_bn || st.bias_prepared)) {
    const Tensor& w = st.w_prepared ? call.in[1] : ew::dense_ref(call.in[1], call.in[1].dtype, keep[1]);
    const float* bias = st.bias_prepared ? st.bias.data() : b.defined() ? b.data<float>() : nullptr;
    conv_nd_f32(a.g, x.data<float>(), w.data<float>(), st.w_prepared ? st.w_prepared->data() : nullptr, bias,
                call.out[0].data<float>(), gemm_epilogue(e, 0, 0));
    apply_unary_activation(e, call.out[0]);
    return;
  }
  const Tensor& w = ew::dense_ref(call.in[1], call.in[1].dtype, keep[1]);
  dispatch_compute(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      const T* bias = b.defined() ? b.data<T>() : nullptr;
      if (a.transposed)
        conv_transpose_nd<T>(a.g, x.data<T>(), w.data<T>(), bias, call.out[0].data<T>());
      else
        conv_nd<T>(a.g, x.data<T>(), w.data<T>(), bias, call.out[0].data<T>());
    } else {
      call.fail("convolution supports float32/float64 only");
    }
  });
  apply_epilogue(e, call.out[0]);
}

OpDef conv_def(Form form, int64_t nsp) {
  OpDef def{[form, nsp](OpCall& c) { plan_conv(c, form, nsp); }, run_conv, prepare_conv};
  def.traits.epilogue = EpilogueRole::Producer;
  def.traits.folds_batch_norm = true;
  // PyTorch's quantized pattern around a 2-D conv runs in integers (ops/conv_int8.cpp)
  if (form == Form::Conv && nsp == 2) def.traits.quantized_form = conv2d_int8_def;
  return def;
}

}  // namespace

TIR_REGISTER_OPS(
    // aten::conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=[1, 1],
    //   SymInt[2] padding=[0, 0], SymInt[2] dilation=[1, 1], SymInt groups=1) -> Tensor
    {"aten.conv2d.default", conv_def(Form::Conv, 2)},
    // aten::conv2d.padding(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=[1, 1],
    //   str padding="valid", SymInt[2] dilation=[1, 1], SymInt groups=1) -> Tensor
    {"aten.conv2d.padding", conv_def(Form::ConvPaddingStr, 2)},
    // aten::conv1d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=[1],
    //   SymInt[1] padding=[0], SymInt[1] dilation=[1], SymInt groups=1) -> Tensor
    {"aten.conv1d.default", conv_def(Form::Conv, 1)},
    // aten::conv1d.padding(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=[1],
    //   str padding="valid", SymInt[1] dilation=[1], SymInt groups=1) -> Tensor
    {"aten.conv1d.padding", conv_def(Form::ConvPaddingStr, 1)},
    // aten::convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding,
    //   SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups) -> Tensor
    {"aten.convolution.default", conv_def(Form::Convolution, 0)},
    // aten::conv_transpose2d.input(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=[1, 1],
    //   SymInt[2] padding=[0, 0], SymInt[2] output_padding=[0, 0], SymInt groups=1,
    //   SymInt[2] dilation=[1, 1]) -> Tensor
    {"aten.conv_transpose2d.input", conv_def(Form::ConvTranspose, 2)},
    // aten::conv_transpose1d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=[1],
    //   SymInt[1] padding=[0], SymInt[1] output_padding=[0], SymInt groups=1,
    //   SymInt[1] dilation=[1]) -> Tensor
    {"aten.conv_transpose1d.default", conv_def(Form::ConvTranspose, 1)},
    // aten::conv3d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[3] stride=[1, 1, 1],
    //   SymInt[3] padding=[0, 0, 0], SymInt[3] dilation=[1, 1, 1], SymInt groups=1) -> Tensor
    {"aten.conv3d.default", conv_def(Form::Conv, 3)},
    // aten::conv3d.padding(Tensor input, Tensor weight, Tensor? bias=None, SymInt[3] stride=[1, 1, 1],
    //   str padding="valid", SymInt[3] dilation=[1, 1, 1], SymInt groups=1) -> Tensor
    {"aten.conv3d.padding", conv_def(Form::ConvPaddingStr, 3)},
    // aten::conv_transpose3d.input(Tensor input, Tensor weight, Tensor? bias=None,
    //   SymInt[3] stride=[1, 1, 1], SymInt[3] padding=[0, 0, 0], SymInt[3] output_padding=[0, 0, 0],
    //   SymInt groups=1, SymInt[3] dilation=[1, 1, 1]) -> Tensor
    {"aten.conv_transpose3d.input", conv_def(Form::ConvTranspose, 3)});

}  // namespace tir
