#include "core/dtype.h"

#include <cstdlib>

#include "core/errors.h"

namespace tir {

namespace {
struct DTypeName { const char* name; DType dtype; };
// Canonical IR names first (used by dtype_name), then torch aliases.
constexpr DTypeName kNames[] = {
    {"float32", DType::F32}, {"float64", DType::F64}, {"float16", DType::F16},
    {"bfloat16", DType::BF16}, {"int8", DType::I8}, {"int16", DType::I16},
    {"int32", DType::I32}, {"int64", DType::I64}, {"uint8", DType::U8},
    {"bool", DType::Bool}, {"complex64", DType::C64}, {"complex128", DType::C128},
    {"float", DType::F32}, {"double", DType::F64}, {"half", DType::F16},
    {"long", DType::I64}, {"int", DType::I32}, {"short", DType::I16},
    {"cfloat", DType::C64}, {"cdouble", DType::C128},
};
}  // namespace

bool dtype_from_scalar_type(int64_t v, DType* out) {
  switch (v) {
    case 0: case 1: case 2: case 3: case 4: case 5: case 6: case 7:
    case 9: case 10: case 11: case 15:
      *out = static_cast<DType>(v);
      return true;
    default:
      return false;
  }
}

bool try_parse_dtype(const std::string& text, DType* out) {
  std::string s = text;
  if (s.rfind("torch.", 0) == 0) s = s.substr(6);
  for (const auto& n : kNames) {
    if (s == n.name) { *out = n.dtype; return true; }
  }
  if (!s.empty() && s.find_first_not_of("0123456789") == std::string::npos) {
    return dtype_from_scalar_type(std::atoll(s.c_str()), out);
  }
  return false;
}

DType parse_dtype(const std::string& s) {
  DType d;
  if (!try_parse_dtype(s, &d)) throw IRFormatError("unknown dtype '" + s + "'");
  return d;
}

const char* dtype_name(DType d) {
  for (const auto& n : kNames) if (n.dtype == d) return n.name;
  return "unknown";
}

size_t dtype_size(DType d) {
  switch (d) {
    case DType::U8: case DType::I8: case DType::Bool: return 1;
    case DType::I16: case DType::F16: case DType::BF16: return 2;
    case DType::I32: case DType::F32: return 4;
    case DType::I64: case DType::F64: case DType::C64: return 8;
    case DType::C128: return 16;
  }
  return 0;
}

bool is_floating(DType d) {
  return d == DType::F16 || d == DType::BF16 || d == DType::F32 || d == DType::F64;
}
bool is_integral(DType d) {
  return d == DType::U8 || d == DType::I8 || d == DType::I16 || d == DType::I32 || d == DType::I64;
}
bool is_complex(DType d) { return d == DType::C64 || d == DType::C128; }

}  // namespace tir
