// Shared by the quantization ops (quantize.cpp, quantize_choose.cpp): the block
// layout of a granularity, where quantization parameters come from, and the
// argument checks PyTorch makes.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "core/small_vec.h"
#include "core/strided.h"
#include "core/tensor.h"
#include "ops/op.h"

namespace tir::quant {

// Which elements share one set of parameters, as torchao's block_size says it:
// dim d is cut into blocks of block[d] elements (block[d] == size: one block; 1:
// every index its own). Blocks that do not span a dim split it in two ((size /
// block, block)), so every dim of the split view either walks the parameters
// (param stride) or stays inside one block (param stride 0).
class BlockLayout {
 public:
  static BlockLayout per_tensor(const Shape& shape);
  static BlockLayout per_axis(const Shape& shape, int64_t axis);
  static BlockLayout per_token(const Shape& shape);  // one block per row of the last dim
  // torchao's rule: block[d] that is neither 1 nor the size must divide the size;
  // block[d] <= 0 (or the size) spans the dim.
  static BlockLayout affine(const OpCall& call, const Shape& shape, const std::vector<int64_t>& block);
  // quantize/dequantize_per_channel_group: 2-d, group_size > 1 divides the row
  // (a group larger than the row with one scale per row is the whole row).
  static BlockLayout channel_group(const OpCall& call, const Shape& shape, int64_t group_size,
                                   const struct ParamSource& scales);

  int64_t num_params() const { return params_; }
  // The parameters' shape: the dims that walk them, in order (torchao's keepdim=False).
  const Shape& param_shape() const { return param_shape_; }
  // Shape with every spanned dim kept as size / block (keepdim=True).
  Shape param_shape_keepdim() const { return keepdim_shape_; }
  // B when element i of a contiguous tensor of the layout's shape reads parameter i / B (blocks
  // of B consecutive elements: per row, or groups along the last dim), else 0.
  int64_t consecutive_block() const;

  // f(a_offset, a_stride, b_offset, b_stride, param_offset, param_stride, n) per innermost
  // row of the split view, for two tensors of the layout's shape (offsets in elements,
  // relative to each tensor's raw()).
  template <typename F> void for_each_row(const Tensor& a, const Tensor& b, F&& f) const {
    const SplitStrides as = split_strides(a), bs = split_strides(b);
    ::tir::for_each_row<3>(split_shape_, std::array<const int64_t*, 3>{as.data(), bs.data(), param_strides_.data()},
                    std::array<int64_t, 3>{0, 0, 0},
                    [&](const std::array<int64_t, 3>& off, int64_t n, const std::array<int64_t, 3>& st) {
                      f(off[0], st[0], off[1], st[1], off[2], st[2], n);
                    });
  }
  // The same for one tensor.
  template <typename F> void for_each_row(const Tensor& a, F&& f) const {
    for_each_row(a, a, [&](int64_t ao, int64_t as, int64_t, int64_t, int64_t po, int64_t ps, int64_t n) {
      f(ao, as, po, ps, n);
    });
  }

 private:
  // Inline up to 16 split dims (a rank-8 tensor with every dim split): a run allocates nothing.
  using SplitStrides = SmallVec<int64_t, 16>;
  static BlockLayout from_blocks(const Shape& shape, const std::vector<int64_t>& block);
  SplitStrides split_strides(const Tensor& t) const;
  Shape split_shape_;
  std::vector<int> source_dim_;   // per split dim: the tensor dim it comes from
  std::vector<int64_t> factor_;   // per split dim: its stride in units of the source dim's stride
  Strides param_strides_;
  Shape param_shape_, keepdim_shape_;
  int64_t params_ = 1;
};

// Where a parameter (scale or zero point) comes from.
struct ParamSource {
  enum class Kind : uint8_t {
    None,               // absent (a zero point of 0)
    Attr,               // a Python scalar in the node's attrs
    TensorAsF64Scalar,  // a one-element tensor read with .item() (a Python float)
    Tensor,             // one value per block (or one for all, where broadcast is allowed)
  };
  Kind kind = Kind::None;
  double attr_value = 0;
  size_t input = 0;           // Tensor kinds: the input index
  DType dtype = DType::F32;   // Tensor kinds: the IR dtype
  bool broadcast_one = false;
  const char* name = "";

  bool present() const { return kind != Kind::None; }
  static ParamSource attr(const OpCall& call, const char* name);
  static ParamSource scalar_tensor(const OpCall& call, size_t input, const char* name);
  static ParamSource tensor(const OpCall& call, size_t input, const char* name, bool broadcast_one = false);
  // Fails naming the argument unless it holds `count` values (or one, when it broadcasts).
  void check_count(const OpCall& call, int64_t count, const char* what) const;
};

// The parameter values as float64 (exact for every float32 and for integers below
// 2^53), `count` of them (a single value repeated when it broadcasts).
void load_params(const OpCall& call, const ParamSource& src, double* dst, int64_t count);

// A required dtype attr (fails naming it when absent).
DType dtype_attr(const OpCall& call, const char* name);
// An integer dtype the quantization ops produce or read (uint8, int8, int16, int32).
void check_quant_dtype(const OpCall& call, DType d, const char* attr);
// quant_min/quant_max inside the dtype's range (PyTorch's _quant_min_max_bounds_check).
void check_quant_range(const OpCall& call, DType d, int64_t qmin, int64_t qmax);
// torchao's _get_and_check_qmin_qmax: quant_min/quant_max attrs, defaulting to the
// dtype's range.
std::pair<int64_t, int64_t> affine_range(const OpCall& call, DType d);
// attrs.axis checked against the input's rank (PyTorch: axis < dim; negative wraps).
int64_t channel_axis(const OpCall& call, const Tensor& x);
// A one-element integer tensor's value at run time (quantize_per_tensor.tensor2's quant_min/max).
int64_t int_input_value(const OpCall& call, size_t input, const char* name);
// Rounds a float32 result to float16/bfloat16 precision when that is the IR dtype.
void round_output_to_half(const Tensor& y, DType ir_dtype);

}  // namespace tir::quant
