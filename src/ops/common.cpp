#include "ops/common.h"

#include <algorithm>

namespace tir {

namespace {
enum Category { kBool = 0, kInt = 1, kFloat = 2, kComplex = 3 };
Category category(DType d) {
  if (d == DType::Bool) return kBool;
  if (is_integral(d)) return kInt;
  if (is_complex(d)) return kComplex;
  return kFloat;
}
}  // namespace

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  const Category ca = category(a), cb = category(b);
  if (ca != cb) return ca > cb ? a : b;
  switch (ca) {
    case kBool: return DType::Bool;
    case kComplex: return DType::C128;
    case kFloat:
      if ((a == DType::F16 && b == DType::BF16) || (a == DType::BF16 && b == DType::F16)) return DType::F32;
      return dtype_size(a) >= dtype_size(b) ? a : b;
    case kInt: {
      const bool ua = a == DType::U8, ub = b == DType::U8;
      if (ua || ub) {
        const DType other = ua ? b : a;
        if (other == DType::I8) return DType::I16;
        return other;  // i16/i32/i64 hold all of u8
      }
      return dtype_size(a) >= dtype_size(b) ? a : b;
    }
  }
  return a;
}

PromotionOperand PromotionOperand::of(const Scalar& s) {
  PromotionOperand p;
  p.is_scalar = true;
  p.dtype = s.kind == Scalar::Kind::Float ? DType::F32 : s.kind == Scalar::Kind::Int ? DType::I64 : DType::Bool;
  return p;
}

DType result_type(const std::vector<PromotionOperand>& ops) {
  // Three priority levels; each level's promoted dtype only matters when its
  // category is higher than the levels above it (torch.result_type).
  std::optional<DType> dim_t, zero_t, scalar_t;
  auto merge = [](std::optional<DType>& acc, DType d) { acc = acc ? promote_types(*acc, d) : d; };
  for (const auto& o : ops) {
    if (o.is_scalar) merge(scalar_t, o.dtype);
    else if (o.is_zero_dim) merge(zero_t, o.dtype);
    else merge(dim_t, o.dtype);
  }
  std::optional<DType> result = dim_t;
  auto fold = [&](const std::optional<DType>& lower, bool is_scalar_level) {
    if (!lower) return;
    if (!result) {
      result = *lower;
      return;
    }
    if (category(*lower) > category(*result)) {
      // A Python float joins as the default float dtype, ints as int64.
      if (is_scalar_level) {
        const Category c = category(*lower);
        result = c == kFloat ? DType::F32 : c == kInt ? DType::I64 : *lower;
      } else {
        result = *lower;
      }
    }
  };
  fold(zero_t, false);
  fold(scalar_t, true);
  return result ? *result : DType::F32;
}

std::optional<Shape> broadcast_shapes(const Shape& a, const Shape& b) {
  const size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da == db || db == 1) out[i] = da;
    else if (da == 1) out[i] = db;
    else return std::nullopt;
  }
  return out;
}

}  // namespace tir
