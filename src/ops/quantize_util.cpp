#include "ops/quantize_util.h"

#include <cmath>
#include <string>

#include "kernels/elementwise.h"
#include "kernels/quantize.h"

namespace tir::quant {

BlockLayout BlockLayout::from_blocks(const Shape& shape, const std::vector<int64_t>& block) {
  BlockLayout l;
  std::vector<bool> walks;  // per split dim: walks the parameters
  for (size_t d = 0; d < shape.size(); ++d) {
    const int64_t s = shape[d], b = block[d];
    if (b > 1 && b != s && s > 0) {  // (s / b, b): the outer part walks, the inner stays
      l.split_shape_.push_back(s / b);
      l.source_dim_.push_back(int(d));
      l.factor_.push_back(b);
      walks.push_back(true);
      l.split_shape_.push_back(b);
      l.source_dim_.push_back(int(d));
      l.factor_.push_back(1);
      walks.push_back(false);
      l.keepdim_shape_.push_back(s / b);
    } else {
      l.split_shape_.push_back(s);
      l.source_dim_.push_back(int(d));
      l.factor_.push_back(1);
      walks.push_back(b == 1);
      l.keepdim_shape_.push_back(b == 1 ? s : 1);
    }
  }
  l.param_strides_.assign(l.split_shape_.size(), 0);
  int64_t stride = 1;
  for (size_t k = l.split_shape_.size(); k-- > 0;) {
    if (!walks[k]) continue;
    l.param_strides_[k] = stride;
    stride *= l.split_shape_[k];
  }
  for (size_t k = 0; k < l.split_shape_.size(); ++k)
    if (walks[k]) l.param_shape_.push_back(l.split_shape_[k]);
  l.params_ = stride;
  return l;
}

int64_t BlockLayout::consecutive_block() const {
  int64_t block = 1;
  size_t k = split_shape_.size();
  for (; k > 0 && param_strides_[k - 1] == 0; --k) block *= split_shape_[k - 1];
  for (; k > 0; --k)
    if (param_strides_[k - 1] == 0 && split_shape_[k - 1] != 1) return 0;
  return block;
}

BlockLayout BlockLayout::per_tensor(const Shape& shape) { return from_blocks(shape, shape); }

BlockLayout BlockLayout::per_axis(const Shape& shape, int64_t axis) {
  std::vector<int64_t> block(shape.begin(), shape.end());
  block[size_t(axis)] = 1;
  return from_blocks(shape, block);
}

BlockLayout BlockLayout::per_token(const Shape& shape) {
  std::vector<int64_t> block(shape.size(), 1);
  if (!shape.empty()) block.back() = shape.back();
  return from_blocks(shape, block);
}

BlockLayout BlockLayout::affine(const OpCall& call, const Shape& shape, const std::vector<int64_t>& block) {
  call.check(block.size() == shape.size(), "block_size has " + std::to_string(block.size()) +
                                               " entries but the input has " + std::to_string(shape.size()) + " dims");
  for (size_t d = 0; d < shape.size(); ++d)
    if (block[d] > 1 && block[d] != shape[d])
      call.check(shape[d] % block[d] == 0, "input size " + std::to_string(shape[d]) + " at dim " +
                                               std::to_string(d) + " is not divisible by block_size " +
                                               std::to_string(block[d]));
  return from_blocks(shape, block);
}

BlockLayout BlockLayout::channel_group(const OpCall& call, const Shape& shape, int64_t group_size,
                                       const ParamSource& scales) {
  call.check(group_size > 1, "group_size must be > 1, got " + std::to_string(group_size));
  call.check(shape.size() == 2, "input must be 2-dimensional, got shape " + shape_to_string(shape));
  const Tensor& s = call.in[scales.input];
  // GPTQ's single-column case: one scale per row and a group wider than the row.
  if (group_size > shape[1] && !s.shape.empty() && s.shape.back() == 1) group_size = shape[1];
  call.check(group_size > 0 && shape[1] % group_size == 0,
             "the row length " + std::to_string(shape[1]) + " is not divisible by group_size " +
                 std::to_string(group_size));
  return from_blocks(shape, {1, group_size});
}

BlockLayout::SplitStrides BlockLayout::split_strides(const Tensor& t) const {
  SplitStrides s(split_shape_.size());
  for (size_t k = 0; k < s.size(); ++k) s[k] = t.strides[size_t(source_dim_[k])] * factor_[k];
  return s;
}

// ---- parameters ----

ParamSource ParamSource::attr(const OpCall& call, const char* name) {
  ParamSource p;
  p.kind = Kind::Attr;
  p.name = name;
  p.attr_value = call.scalar(name).f;
  return p;
}

ParamSource ParamSource::scalar_tensor(const OpCall& call, size_t input, const char* name) {
  ParamSource p = tensor(call, input, name);
  p.kind = Kind::TensorAsF64Scalar;
  call.check(call.in[input].numel() == 1, std::string("expects ") + name + " to have one element, got shape " +
                                              shape_to_string(call.in[input].shape));
  return p;
}

ParamSource ParamSource::tensor(const OpCall& call, size_t input, const char* name, bool broadcast_one) {
  call.check(input < call.in.size(), std::string("missing tensor argument '") + name + "'");
  const Tensor& t = call.in[input];
  call.check(t.dtype != DType::Bool && !is_complex(t.dtype),
             std::string(name) + " must be a real number tensor, got " + dtype_name(t.dtype));
  ParamSource p;
  p.kind = Kind::Tensor;
  p.input = input;
  p.name = name;
  p.dtype = input < call.node->inputs.size() ? call.node->inputs[input].dtype : t.dtype;
  p.broadcast_one = broadcast_one;
  return p;
}

void ParamSource::check_count(const OpCall& call, int64_t count, const char* what) const {
  if (kind != Kind::Tensor) return;
  const int64_t n = call.in[input].numel();
  if (n == count || (broadcast_one && n == 1)) return;
  call.fail(std::string(what) + " has " + std::to_string(n) + " values (shape " +
            shape_to_string(call.in[input].shape) + ") but the input has " + std::to_string(count) +
            " quantization blocks");
}

void load_params(const OpCall& call, const ParamSource& src, double* dst, int64_t count) {
  if (src.kind == ParamSource::Kind::Attr) {
    for (int64_t k = 0; k < count; ++k) dst[k] = src.attr_value;
    return;
  }
  const Tensor& t = call.in[src.input];
  const int64_t n = t.numel();
  // Any strides: walk the tensor in row-major order.
  int64_t k = 0;
  for_each_row<1>(t.shape, std::array<const int64_t*, 1>{t.strides.data()}, std::array<int64_t, 1>{0},
                  [&](const std::array<int64_t, 1>& off, int64_t len, const std::array<int64_t, 1>& st) {
                    for (int64_t i = 0; i < len && k < count; ++i, ++k) {
                      // a real-number dtype: ParamSource::tensor refuses the others
                      dst[k] = load_as_double(t.raw(), t.dtype, off[0] + i * st[0]);
                    }
                  });
  if (n == 1)
    for (int64_t j = 1; j < count; ++j) dst[j] = dst[0];
}

// ---- checks ----

namespace {
bool dtype_range(DType d, int64_t* lo, int64_t* hi) {
  switch (d) {
    case DType::U8: *lo = 0; *hi = 255; return true;
    case DType::I8: *lo = -128; *hi = 127; return true;
    case DType::I16: *lo = -32768; *hi = 32767; return true;
    case DType::I32: *lo = -2147483648LL; *hi = 2147483647LL; return true;
    default: return false;
  }
}
}  // namespace

DType dtype_attr(const OpCall& call, const char* name) {
  const auto d = call.dtype(name);
  call.check(d.has_value(), std::string("missing required argument '") + name + "'");
  return *d;
}

void check_quant_dtype(const OpCall& call, DType d, const char* attr) {
  int64_t lo, hi;
  call.check(dtype_range(d, &lo, &hi), std::string("unsupported quantized dtype ") + dtype_name(d) + " (" + attr +
                                           "): expected uint8, int8, int16 or int32");
}

void check_quant_range(const OpCall& call, DType d, int64_t qmin, int64_t qmax) {
  int64_t lo = 0, hi = 0;
  check_quant_dtype(call, d, "dtype");
  dtype_range(d, &lo, &hi);
  call.check(qmin >= lo, "quant_min " + std::to_string(qmin) + " is below " + dtype_name(d) + "'s minimum " +
                             std::to_string(lo));
  call.check(qmax <= hi, "quant_max " + std::to_string(qmax) + " is above " + dtype_name(d) + "'s maximum " +
                             std::to_string(hi));
}

std::pair<int64_t, int64_t> affine_range(const OpCall& call, DType d) {
  int64_t lo = 0, hi = 0;
  check_quant_dtype(call, d, "dtype");
  dtype_range(d, &lo, &hi);
  const int64_t qmin = call.has("quant_min") ? call.i("quant_min") : lo;
  const int64_t qmax = call.has("quant_max") ? call.i("quant_max") : hi;
  check_quant_range(call, d, qmin, qmax);
  return {qmin, qmax};
}

int64_t channel_axis(const OpCall& call, const Tensor& x) {
  const int64_t axis = call.i("axis");
  // PyTorch swaps `axis` with dim 0 by list index: -dim + 1 .. dim - 1 work
  call.check(axis < x.dim() && axis > -x.dim(), "axis " + std::to_string(axis) +
                                                    " is out of range for an input of " + std::to_string(x.dim()) + " dims");
  return call.wrap_sized_dim(axis, x.dim(), "per-channel quantization");
}

int64_t int_input_value(const OpCall& call, size_t input, const char* name) {
  const Tensor& t = call.in[input];
  call.check(t.numel() == 1 && is_integral(t.dtype),
             std::string(name) + " must be a one-element integer tensor, got " + dtype_name(t.dtype) + " " +
                 shape_to_string(t.shape));
  switch (t.dtype) {
    case DType::I64: return t.data<int64_t>()[0];
    case DType::I32: return t.data<int32_t>()[0];
    case DType::I16: return t.data<int16_t>()[0];
    case DType::I8: return t.data<int8_t>()[0];
    default: return t.data<uint8_t>()[0];
  }
}

void round_output_to_half(const Tensor& y, DType ir_dtype) {
  if (ir_dtype == DType::F16 || ir_dtype == DType::BF16) round_to_half_inplace(y, ir_dtype);
}

}  // namespace tir::quant
