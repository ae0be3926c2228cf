// The weight storage spellings of the package's weightDtype and the CLI's --weight-dtype, one
// grammar for both: float32, float16, bfloat16 (how packed weights are stored), int8, int4 or
// int4:G (load-time quantization; G, the int4 group size, a positive multiple of 4).
#pragma once
#include <cstdint>
#include <string>

namespace tir {

struct WeightSpec {
  enum class Kind : uint8_t { F32, F16, BF16, Int8, Int4 };
  Kind kind = Kind::F32;
  int64_t group = 32;  // Int4
};

// False for anything outside the grammar.
inline bool parse_weight_spec(const std::string& s, WeightSpec* out) {
  using K = WeightSpec::Kind;
  if (s == "float32" || s == "float16" || s == "bfloat16" || s == "int8" || s == "int4") {
    out->kind = s == "float32" ? K::F32 : s == "float16" ? K::F16 : s == "bfloat16" ? K::BF16 : s == "int8" ? K::Int8 : K::Int4;
    out->group = 32;
    return true;
  }
  if (s.rfind("int4:", 0) != 0) return false;
  const std::string digits = s.substr(5);
  if (digits.empty() || digits.size() > 6 || digits.find_first_not_of("0123456789") != std::string::npos) return false;
  const int64_t g = std::stoll(digits);
  if (g <= 0 || g % 4 != 0) return false;
  out->kind = K::Int4;
  out->group = g;
  return true;
}

}  // namespace tir
