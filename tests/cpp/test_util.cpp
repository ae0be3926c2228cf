#include "test_util.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace tir::test {

std::string fixtures_dir() {
  if (const char* e = std::getenv("TIR_FIXTURES")) return e;
  std::string here = __FILE__;
  return here.substr(0, here.rfind("/cpp/")) + "/fixtures";
}

std::string generated_fixtures_dir() {
  if (const char* e = std::getenv("TIR_GENERATED_FIXTURES")) return e;
  std::string here = __FILE__;
  return here.substr(0, here.rfind("/tests/")) + "/build/fixtures";
}

bool file_exists(const std::string& path) { return std::ifstream(path).good(); }

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

Tensor tensor_f32(const Shape& shape, const std::vector<float>& values) {
  Tensor t = make_owned(DType::F32, shape);
  if (!values.empty()) std::memcpy(t.raw(), values.data(), values.size() * sizeof(float));  // data() may be null
  return t;
}

Tensor tensor_i64(const Shape& shape, const std::vector<int64_t>& values) {
  Tensor t = make_owned(DType::I64, shape);
  if (!values.empty()) std::memcpy(t.raw(), values.data(), values.size() * sizeof(int64_t));
  return t;
}

std::vector<float> values_f32(const Tensor& t) {
  Tensor c = to_dtype_owned(t, DType::F32);
  return std::vector<float>(c.data<float>(), c.data<float>() + c.numel());
}

std::vector<int64_t> values_i64(const Tensor& t) {
  Tensor c = to_dtype_owned(t, DType::I64);
  return std::vector<int64_t>(c.data<int64_t>(), c.data<int64_t>() + c.numel());
}

Tensor iota_f32(const Shape& shape) {
  std::vector<float> v(size_t(shape_numel(shape)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = float(i);
  return tensor_f32(shape, v);
}

}  // namespace tir::test
