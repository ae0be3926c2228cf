// Tensor element types, numbered like torch's ScalarType so IR files that
// write dtypes as integers map directly.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace tir {

enum class DType : int8_t {
  U8 = 0, I8 = 1, I16 = 2, I32 = 3, I64 = 4, F16 = 5, F32 = 6, F64 = 7,
  C64 = 9, C128 = 10, Bool = 11, BF16 = 15,
};

// Parses "float32", "torch.float32", "long", "6" ... ; throws IRError on unknown names.
DType parse_dtype(const std::string& s);
bool try_parse_dtype(const std::string& s, DType* out);
bool dtype_from_scalar_type(int64_t v, DType* out);
// IR spelling: "float32", "int64", "bool", ...
const char* dtype_name(DType d);
size_t dtype_size(DType d);
bool is_floating(DType d);   // f16 bf16 f32 f64
bool is_integral(DType d);   // u8 i8 i16 i32 i64 (not bool)
bool is_complex(DType d);
// What the engine computes in: f16/bf16 are widened to f32; everything else is kept.
inline DType compute_dtype(DType d) {
  return (d == DType::F16 || d == DType::BF16) ? DType::F32 : d;
}

}  // namespace tir
