// Helpers shared by op definitions: torch type promotion and broadcasting.
#pragma once
#include <optional>
#include <vector>

#include "ir/attr.h"
#include "core/dtype.h"
#include "core/tensor.h"

namespace tir {

// torch.promote_types for two dtypes (f16+bf16 -> f32, u8+i8 -> i16, ...).
DType promote_types(DType a, DType b);

// One operand of torch.result_type: a tensor (0-d tensors rank below
// dimensioned ones) or a Python scalar (wrapped number, lowest priority).
struct PromotionOperand {
  DType dtype;
  bool is_zero_dim = false;
  bool is_scalar = false;
  static PromotionOperand of(const Tensor& t) { return {t.dtype, t.dim() == 0, false}; }
  static PromotionOperand of(const Scalar& s);
};
DType result_type(const std::vector<PromotionOperand>& ops);

// Right-aligned numpy broadcasting; nullopt when incompatible.
std::optional<Shape> broadcast_shapes(const Shape& a, const Shape& b);

// An input given either as tensor input `idx` or as scalar attribute `name`
// (a Python scalar in a Tensor slot, docs/spec/IR_FORMAT.md).
struct TensorOrScalar {
  std::optional<Tensor> tensor;
  Scalar scalar;
  bool is_tensor() const { return tensor.has_value(); }
  PromotionOperand operand() const {
    return tensor ? PromotionOperand::of(*tensor) : PromotionOperand::of(scalar);
  }
};

}  // namespace tir
