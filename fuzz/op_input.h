// Byte format of an op_entry input, written by fuzz/op_seeds.cpp and read by
// fuzz/entry_points.cpp. Strings (op type, attr names) are spelled out rather
// than indexed so a reproducer keeps its meaning when ops or attrs are added:
//   op_type '\0' | n_outputs-1 (u8 % 4) | n_inputs (u8 % 5)
//   per input: dtype code (u8, index into kOpInputDTypes) | rank (u8 % 5) | dims (u8 % 17 each)
//   n_attrs (u8 % 8) | per attr: name '\0' value
//   value: kind (u8 % 9) then its payload, see AttrKindCode
//   the remaining bytes fill the inputs' data (cycled; zeros when none).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/dtype.h"

namespace tir::fuzz {

inline const std::vector<DType>& op_input_dtypes() {
  static const std::vector<DType> v = {DType::F32, DType::I64, DType::Bool, DType::F16, DType::BF16, DType::F64,
                                       DType::I32, DType::I16, DType::I8,   DType::U8,  DType::C64};
  return v;
}

enum AttrKindCode : uint8_t {
  kAttrNone = 0,
  kAttrBool = 1,      // u8 & 1
  kAttrSmallInt = 2,  // int8
  kAttrInt64 = 3,     // 8 bytes little endian
  kAttrEdgeInt = 4,   // u8 index into edge_ints()
  kAttrFloat = 5,     // 8 bytes (IEEE double bits)
  kAttrEdgeFloat = 6, // u8 index into edge_floats()
  kAttrString = 7,    // '\0'-terminated
  kAttrList = 8,      // length (u8 % 6), then that many values (nesting depth capped at 4)
  kAttrKinds = 9,
};

inline const std::vector<int64_t>& edge_ints() {
  static const std::vector<int64_t> v = {0, 1, -1, 2, -2, 3, 4, 5, 6, 7, 8, 16, 255, 256, 1LL << 31, (1LL << 31) - 1,
                                         -(1LL << 31), 1LL << 32, 1LL << 62, -(1LL << 62), INT64_MAX, INT64_MIN,
                                         INT64_MAX - 1, INT64_MIN + 1};
  return v;
}
inline const std::vector<double>& edge_floats() {
  static const std::vector<double> v = {0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 1e-12, 1e300, -1e300, 1e308 * 10,
                                        -1e308 * 10, __builtin_nan(""), 9.2233720368547758e18, 4.9e-324};
  return v;
}

// Appends to an op_entry input (the seed writer's side of the format).
struct OpInputWriter {
  std::vector<uint8_t> bytes;
  void u8(uint8_t v) { bytes.push_back(v); }
  void cstr(const std::string& s) { bytes.insert(bytes.end(), s.begin(), s.end()); bytes.push_back(0); }
  void i64(int64_t v) { for (int k = 0; k < 8; ++k) bytes.push_back(uint8_t(uint64_t(v) >> (8 * k))); }
  void f64(double v) { uint64_t u; std::memcpy(&u, &v, 8); i64(int64_t(u)); }
};

}  // namespace tir::fuzz
