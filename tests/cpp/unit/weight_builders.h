// Hand-built torch.save archives and pickle fragments for the weight-reader
// tests (weights_test.cpp, hostile_parsers_test.cpp).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "weights/zip_reader.h"

namespace tir {
namespace test_weights {

struct ZipBuilder {
  std::string out, central;
  int count = 0;
  static std::string le(uint64_t v, int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s += char(v >> (8 * i));
    return s;
  }
  void add(const std::string& name, const std::string& data, uint16_t method = 0) {
    const auto crc = weights_internal::crc32(reinterpret_cast<const uint8_t*>(data.data()), data.size());
    const size_t off = out.size();
    out += le(0x04034b50, 4) + le(20, 2) + le(0, 2) + le(method, 2) + le(0, 4) + le(crc, 4) +
           le(data.size(), 4) + le(data.size(), 4) + le(name.size(), 2) + le(0, 2) + name + data;
    central += le(0x02014b50, 4) + le(20, 2) + le(20, 2) + le(0, 2) + le(method, 2) + le(0, 4) + le(crc, 4) +
               le(data.size(), 4) + le(data.size(), 4) + le(name.size(), 2) + le(0, 6) + le(0, 2) +
               le(0, 4) + le(off, 4) + name;
    ++count;
  }
  std::string finish() const {
    return out + central + le(0x06054b50, 4) + le(0, 4) + le(count, 2) + le(count, 2) +
           le(central.size(), 4) + le(out.size(), 4) + le(0, 2);
  }
};

// Pickle fragments in torch.save's shape.
inline std::string p_str(const std::string& s) { return "X" + ZipBuilder::le(s.size(), 4) + s; }
inline std::string p_int(int64_t v) { return "J" + ZipBuilder::le(uint64_t(v), 4); }
inline std::string p_ints(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (auto x : v) s += p_int(x);
  return s + "t";
}
inline std::string p_tensor(const std::string& type, const std::string& key, int64_t numel, int64_t offset,
                     const std::vector<int64_t>& size, const std::vector<int64_t>& stride) {
  return "ctorch._utils\n_rebuild_tensor_v2\n((" + p_str("storage") + "ctorch\n" + type + "\n" + p_str(key) +
         p_str("cpu") + p_int(numel) + "tQ" + p_int(offset) + p_ints(size) + p_ints(stride) +
         "\x89" "ccollections\nOrderedDict\n)Rt" "R";
}
inline std::string p_dict(const std::vector<std::pair<std::string, std::string>>& items) {
  std::string s = "\x80\x02}(";
  for (const auto& kv : items) s += p_str(kv.first) + kv.second;
  return s + "u.";
}
inline std::string archive(const std::string& pkl, const std::vector<std::pair<std::string, std::string>>& data = {}) {
  ZipBuilder z;
  z.add("archive/data.pkl", pkl);
  for (const auto& kv : data) z.add("archive/data/" + kv.first, kv.second);
  z.add("archive/version", "3\n");
  return z.finish();
}
inline std::string floats(std::vector<float> v) { return std::string(reinterpret_cast<char*>(v.data()), v.size() * 4); }

}  // namespace test_weights
}  // namespace tir
