#include "ops/webgpu.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "ops/epilogue.h"

namespace tir {

const char* gpu_dtype(DType dtype) {
  switch (dtype) {
    case DType::F32: return "float32";
    case DType::I32:
    case DType::I64: return "int32";
    case DType::Bool: return "bool";
    default: gpu_unsupported(std::string("no GPU storage for ") + dtype_name(dtype));
  }
}

namespace {
void append_u32(std::string& s, int64_t v) {
  gpu_need(v >= 0 && v <= int64_t(0xffffffffu), "a parameter outside u32");
  s += std::to_string(v);
}
}  // namespace

GpuMeta& GpuMeta::u(const char* field, int64_t value) {
  fields_ += (fields_.empty() ? "\"" : ", \"") + std::string(field) + "\": ";
  append_u32(fields_, value);
  return *this;
}

GpuMeta& GpuMeta::us(const char* field, const std::vector<int64_t>& values, size_t slots) {
  gpu_need(slots == 0 || values.size() <= slots, "a rank past the kernel's");
  fields_ += (fields_.empty() ? "\"" : ", \"") + std::string(field) + "\": [";
  const size_t n = slots ? slots : values.size();
  for (size_t i = 0; i < n; ++i) {
    if (i) fields_ += ", ";
    append_u32(fields_, i < values.size() ? values[i] : 0);
  }
  fields_ += "]";
  return *this;
}

GpuMeta& GpuMeta::f(const char* field, double value) {
  const float x = float(value);
  char buf[64];
  // JSON has no inf/nan: such parameters travel as their name ("inf", "-inf", "nan").
  if (std::isnan(x)) std::snprintf(buf, sizeof buf, "\"nan\"");
  else if (std::isinf(x)) std::snprintf(buf, sizeof buf, x > 0 ? "\"inf\"" : "\"-inf\"");
  else std::snprintf(buf, sizeof buf, "%.9g", double(x));
  fields_ += (fields_.empty() ? "\"" : ", \"") + std::string(field) + "\": {\"f32\": " + buf + "}";
  return *this;
}

Tensor gpu_complex_as_pairs(const Tensor& c) {
  gpu_need(c.dtype == DType::C64, "a complex value that is not complex64");
  Tensor v = c;
  v.dtype = DType::F32;
  for (int64_t& s : v.strides) s *= 2;
  v.shape.push_back(2);
  v.strides.push_back(1);
  v.offset = c.offset * 2;
  return v;
}

std::vector<std::pair<int64_t, int64_t>> gpu_weight_parts(const Tensor& w, uint64_t max_binding_bytes) {
  const int64_t rows = w.dim() ? w.shape[0] : 1;
  const uint64_t elems = w.buffer ? w.buffer->nbytes / dtype_size(w.dtype) : 0;
  if (elems * 4 <= max_binding_bytes || rows == 0) return {{0, rows}};
  const std::string past = "value '" + w.buffer->label + "' is larger than the device's largest storage binding (" +
                           std::to_string(max_binding_bytes) + " bytes)";
  if (w.buffer->kind != Buffer::Kind::Weight) gpu_unsupported(past);
  if (!gpu_dense_at_zero(w) || uint64_t(w.numel()) != elems) gpu_unsupported(past + ", and not read as whole rows");
  const uint64_t row_bytes = uint64_t(w.numel() / rows) * 4;
  if (row_bytes > max_binding_bytes) gpu_unsupported(past + ", even one row of it");
  const int64_t per_part = int64_t(max_binding_bytes / row_bytes);
  const int64_t n = (rows + per_part - 1) / per_part;
  std::vector<std::pair<int64_t, int64_t>> parts;
  for (int64_t p = 0, first = 0; p < n; ++p) {
    const int64_t count = rows / n + (p < rows % n ? 1 : 0);
    parts.emplace_back(first, count);
    first += count;
  }
  return parts;
}

void gpu_add_epilogue(GpuDispatch& d, const FusedEpilogue& e, const Shape& out_shape) {
  // Res and Affine follow the kernel's own bindings (kernels.json).
  gpu_need(d.takes_epilogue, "a fused epilogue its kernel does not take");
  if (e.has_bn) {
    const int64_t n = shape_numel(out_shape), channels = out_shape.at(1);
    d.meta.u("epi_bn", channels).u("epi_inner", n / std::max<int64_t>(out_shape[0] * channels, 1));
  }
  if (e.residual.defined()) d.meta.u("epi_res", 1).u("epi_res_off", e.residual.offset);
  if (e.act == FusedEpilogue::Act::Relu) d.meta.u("epi_act", 1);
  if (e.act == FusedEpilogue::Act::Clamp) d.meta.u("epi_act", 2).f("epi_lo", e.lo).f("epi_hi", e.hi);
  if (e.act == FusedEpilogue::Act::Unary) {
    // The elementwise table's op (elementwise_ops.json), whose expression the executor puts in
    // the kernel's {{EPI_ACT}}: the same one the unfused op runs.
    const char* op = epilogue_unary_name(e.unary);
    gpu_need(op != nullptr, "a fused activation without a GPU expression");
    d.subst.emplace_back("EPI_OP", op);
  }
  d.bindings.push_back(e.residual);
  d.bindings.push_back(e.has_bn ? e.bn_affine : Tensor{});
  if (!d.names.empty()) {
    d.names.push_back("Res");
    d.names.push_back("Affine");
  }
}

WebGpuRegistry& WebGpuRegistry::instance() {
  static WebGpuRegistry r;
  return r;
}

void WebGpuRegistry::add(const std::string& op_type, WebGpuLowerFn fn) { fns_.emplace_back(op_type, fn); }

WebGpuLowerFn WebGpuRegistry::find(const std::string& op_type) const {
  for (const auto& f : fns_)
    if (f.first == op_type) return f.second;
  return nullptr;
}

WebGpuRegistrar::WebGpuRegistrar(std::initializer_list<std::pair<const char*, WebGpuLowerFn>> fns) {
  for (const auto& f : fns) WebGpuRegistry::instance().add(f.first, f.second);
}

DType gpu_ir_input_dtype(const OpCall& call, size_t i) {
  const DType stored = call.in[i].dtype;
  if (i < call.node->inputs.size() && compute_dtype(call.node->inputs[i].dtype) == stored)
    return call.node->inputs[i].dtype;
  return stored;
}

const char* gpu_round_op(DType target, DType source) {
  if (target == source) return nullptr;
  return target == DType::F16 ? "round_f16" : target == DType::BF16 ? "round_bf16" : nullptr;
}

Strides gpu_broadcast_strides(const Tensor& x, const Shape& shape) {
  const size_t r = shape.size();
  Strides s(r, 0);
  for (size_t i = 0; i < r; ++i) {
    const int64_t j = int64_t(i) - int64_t(r - x.shape.size());
    if (j >= 0 && x.shape[size_t(j)] != 1) s[i] = x.strides[size_t(j)];
  }
  return s;
}

Tensor gpu_scratch(DType dtype, int64_t numel, const char* label) {
  auto buf = std::make_shared<Buffer>();
  buf->kind = Buffer::Kind::Arena;
  buf->nbytes = size_t(numel) * dtype_size(dtype);
  buf->label = label;
  Tensor t;
  t.buffer = std::move(buf);
  t.dtype = dtype;
  t.shape = {numel};
  t.strides = {1};
  return t;
}

GpuDispatch gpu_sum_partials(const Tensor& y, const Tensor& parts, int64_t chunks, int64_t m, int64_t n, double alpha,
                             const Tensor& bias) {
  GpuDispatch r;
  r.kernel = "split_k_sum";
  r.meta.u("numel", y.numel()).u("m", m).u("n", n).u("chunks", chunks).f("alpha", alpha);
  r.meta.u("has_bias", bias.defined() ? 1 : 0);
  r.bindings = {y, parts, Tensor{}, bias};
  r.names = {"Y", "P", "C", "Bias"};
  r.takes_epilogue = true;
  gpu_grid(r, (y.numel() + 63) / 64);
  return r;
}

GpuDispatch gpu_choose_rows(const Tensor& scale, const Tensor& zp, const Tensor& x, int64_t rows, int64_t block,
                            double qmin, double qmax, double eps) {
  GpuDispatch d;
  d.kernel = "choose_qparams_rows";
  d.meta.u("rows", rows).u("k", block).u("x_off", x.offset).f("qmin", qmin).f("qmax", qmax).f("eps", eps);
  d.meta.u("s_off", 0).u("z_kind", gpu_zero_point_kind(d, zp, 1)).u("z_off", 0);
  d.types = {{"Z", "u32"}};
  d.bindings = {scale, zp, x};
  d.written = {0, 1};
  gpu_grid(d, (rows + 3) / 4);
  return d;
}

GpuDispatch gpu_quantize_blocks(const Tensor& y, const Tensor& x, int64_t block, double qmin, double qmax,
                                const Tensor& scale, const Tensor& zp) {
  GpuDispatch d;
  d.kernel = "quantize_blocks";
  d.meta.u("numel", x.numel()).u("block", block).u("x_off", x.offset).f("qmin", qmin).f("qmax", qmax);
  d.meta.u("s_off", scale.defined() ? scale.offset : 0).u("z_kind", gpu_zero_point_kind(d, zp, 3));
  d.meta.u("z_off", zp.defined() ? zp.offset : 0);
  d.packed_bytes.push_back(0);
  d.types = {{"Y", "u32"}, {"Z", "u32"}};
  d.bindings = {y, x, scale, zp};
  gpu_grid(d, (x.numel() + 255) / 256);
  return d;
}

void gpu_qlinear(GpuLowering& g, GpuDispatch d, const Tensor& y, const Tensor& bias, bool fused, int64_t M, int64_t N) {
  const Tensor sums = fused ? gpu_scratch(DType::F32, y.numel(), "quantized linear sums") : y;
  const bool own_bias = bias.defined() && !fused;
  d.kernel = "qlinear";
  d.meta.u("m", M).u("n", N).u("has_bias", own_bias ? 1 : 0).u("bias_off", own_bias ? bias.offset : 0);
  d.types = {{"A", "u32"}, {"W", "u32"}, {"WZ", "u32"}, {"AZ", "u32"}};
  d.bindings.resize(8);
  d.bindings[0] = sums;
  d.bindings[7] = own_bias ? bias : Tensor{};
  constexpr int64_t kRowsPerWorkgroup = 4;  // qlinear.wgsl's RB
  gpu_grid(d, N * ((M + kRowsPerWorkgroup - 1) / kRowsPerWorkgroup));
  g.dispatches.push_back(std::move(d));
  if (!fused) return;
  // y = sums + bias (split_k_sum's C, broadcast over the rows), then the epilogue
  GpuDispatch e = gpu_sum_partials(y, sums, 1, M, N, 1.0, Tensor{});
  if (bias.defined()) {
    e.meta.f("beta", 1).u("has_c", 1).u("c_off", bias.offset).u("c_rs", 0).u("c_cs", 1);
    e.bindings[2] = bias;
  }
  g.dispatches.push_back(std::move(e));
}

int64_t gpu_zero_point_kind(GpuDispatch& d, const Tensor& z, int binding) {
  if (!z.defined()) return 0;
  if (z.dtype == DType::I8 || z.dtype == DType::U8) {
    d.packed_bytes.push_back(binding);
    return z.dtype == DType::I8 ? 1 : 2;
  }
  gpu_need(z.dtype == DType::I32 || z.dtype == DType::I64, "a zero point that is not an integer");
  return 3;
}

void gpu_grid(GpuDispatch& d, int64_t n) {
  if (n <= 65535) {
    d.workgroups[0] = std::max<int64_t>(n, 1);
    d.workgroups[1] = 1;
  } else {
    d.workgroups[0] = 65535;
    d.workgroups[1] = (n + 65534) / 65535;
    gpu_need(d.workgroups[1] <= 65535, "more than 65535^2 workgroups");
  }
  d.workgroups[2] = 1;
}


GpuDispatch gpu_elementwise(const std::string& op, const std::vector<Tensor>& inputs, const Tensor& out, double p0,
                            double p1) {
  GpuDispatch d;
  d.kernel = "elementwise";
  d.ew_op = op;
  d.ew_out = gpu_dtype(out.dtype);
  // int64 values are int32 on the GPU, range-checked on upload: ops that only move or select
  // values keep them in that range; arithmetic could leave it, so its int64 results stay on WASM.
  static const char* kMovesValues[] = {"copy", "where", "tril", "triu"};
  bool moves = false;
  for (const char* m : kMovesValues) moves = moves || op == m;
  gpu_need(out.dtype != DType::I64 || moves, "int64 arithmetic (WGSL has no int64)");
  const Shape& shape = out.shape;
  gpu_need(shape.size() <= 6, "rank > 6");
  const int64_t n = out.numel();
  d.meta.u("numel", n).u("rank", int64_t(shape.size())).f("p0", p0).f("p1", p1);
  d.meta.us("shape", shape, 6).u("y_off", out.offset).us("y_strides", out.strides, 6);
  d.bindings.push_back(out);
  static const char* kOff[] = {"a_off", "b_off", "c_off"};
  static const char* kStrides[] = {"a_strides", "b_strides", "c_strides"};
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& x = inputs[i];
    d.ew_in.push_back(gpu_dtype(x.dtype));
    const Strides st = gpu_broadcast_strides(x, shape);
    if (x.buffer == out.buffer) {
      // Pointwise in place: only the very same view can be read through Y.
      bool same_view = x.offset == out.offset && d.alias_input < 0;
      for (size_t k = 0; k < shape.size(); ++k) same_view = same_view && (shape[k] == 1 || st[k] == out.strides[k]);
      gpu_need(same_view, "an input overlapping the output");
      d.alias_input = int(i);
      d.bindings.push_back(Tensor{});
    } else {
      d.bindings.push_back(x);
    }
    d.meta.u(kOff[i], x.offset).us(kStrides[i], st, 6);
  }
  gpu_grid(d, (n + 63) / 64);
  return d;
}

}  // namespace tir
