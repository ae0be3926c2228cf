// Helpers shared by the C++ test suites.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "ir/model.h"
#include "core/tensor.h"

// TIR_TEST_SANITIZED: built with ASan or TSan (scripts/test_sanitizers.sh, scripts/fuzz.sh):
// several times slower, with terabytes of shadow address space.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TIR_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define TIR_TEST_SANITIZED 1
#endif
#endif

namespace tir::test {

// tests/fixtures (env TIR_FIXTURES, else relative to this source file).
std::string fixtures_dir();
// Generated fixtures (env TIR_GENERATED_FIXTURES, else build-tree default); may not exist.
std::string generated_fixtures_dir();
bool file_exists(const std::string& path);
std::string read_text(const std::string& path);

Tensor tensor_f32(const Shape& shape, const std::vector<float>& values);
Tensor tensor_i64(const Shape& shape, const std::vector<int64_t>& values);
std::vector<float> values_f32(const Tensor& t);    // any dtype, row-major logical order
std::vector<int64_t> values_i64(const Tensor& t);
// float32 tensor of `shape` holding 0, 1, 2, ... in row-major order.
Tensor iota_f32(const Shape& shape);

// n uniform values in [-1, 1), reproducible from the seed (kernel tests).
inline std::vector<float> random_vec(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

// f() throws E with `part` in its message.
template <typename E, typename F>
void expect_throws_with(F f, const std::string& part) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected one saying: " << part;
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

}  // namespace tir::test
