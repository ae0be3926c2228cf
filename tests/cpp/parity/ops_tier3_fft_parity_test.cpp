// FFTs and complex tensors against LibTorch 1.13 (pocketfft): _fft_r2c / _fft_c2r /
// _fft_c2c on prime, odd, power-of-2 and Bluestein lengths (257, 1009), length 1, 0-size
// batches, several dims, every normalization, onesided both ways, transposed inputs;
// stft.default; abs / mul on complex; view_as_real / view_as_complex; complex through
// view ops and copies. Our transforms run in double, so the tolerances are pocketfft's
// float error (about 1e-6 of the output scale, larger for long transforms). Dims are
// given wrapped (LibTorch's _fft_* reject negative dims; the IR always has them wrapped).
#include <gtest/gtest.h>

#include <string>

#include "parity/parity_util.h"

namespace {

using tir::DType;
using tir::parity::in;
using tir::parity::tr;

std::string r2c(const std::string& dims, int norm, bool onesided) {
  return R"({"dim": )" + dims + R"(, "normalization": )" + std::to_string(norm) + R"(, "onesided": )" +
         (onesided ? "true" : "false") + "}";
}
std::string c2c(const std::string& dims, int norm, bool forward) {
  return R"({"dim": )" + dims + R"(, "normalization": )" + std::to_string(norm) + R"(, "forward": )" +
         (forward ? "true" : "false") + "}";
}
std::string c2r(const std::string& dims, int norm, int64_t last) {
  return R"({"dim": )" + dims + R"(, "normalization": )" + std::to_string(norm) + R"(, "last_dim_size": )" +
         std::to_string(last) + "}";
}

// |error| of an unnormalized transform grows with sqrt(n) * |x|: atol scaled to it.
double tol(int64_t n) { return 2e-6 * std::max<double>(1.0, std::sqrt(double(n))); }

TEST(Tier3FftParity, R2COneDimAllLengths) {
  for (int64_t n : {1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 16, 17, 25, 30, 31, 32, 37, 60, 64, 97, 100, 128, 257,
                    400, 512, 1000, 1009})
    for (bool onesided : {true, false})
      EXPECT_TRUE(node_parity("aten._fft_r2c.default", {in({3, n})}, r2c("[1]", 0, onesided), 1e-5, tol(n)))
          << "n=" << n << " onesided=" << onesided;
}

TEST(Tier3FftParity, R2CNormsDimsLayouts) {
  for (int norm : {0, 1, 2}) {
    EXPECT_TRUE(node_parity("aten._fft_r2c.default", {in({2, 15})}, r2c("[1]", norm, true), 1e-5, tol(15)));
    EXPECT_TRUE(node_parity("aten._fft_r2c.default", {in({6, 10})}, r2c("[0, 1]", norm, true), 1e-5, tol(60)));
    EXPECT_TRUE(node_parity("aten._fft_r2c.default", {in({4, 6, 5})}, r2c("[2, 0]", norm, false), 1e-5, tol(20)));
    EXPECT_TRUE(node_parity("aten._fft_r2c.default", {tr({7, 9})}, r2c("[1]", norm, true), 1e-5, tol(9)));
    EXPECT_TRUE(node_parity("aten._fft_r2c.default", {tr({2, 12, 5})}, r2c("[1, 2]", norm, true), 1e-5, tol(60)));
  }
  // dim in the middle, 0-size batch, float64
  EXPECT_TRUE(node_parity("aten._fft_r2c.default", {in({3, 8, 2})}, r2c("[1]", 0, true), 1e-5, tol(8)));
  EXPECT_TRUE(node_parity("aten._fft_r2c.default", {in({0, 8})}, r2c("[1]", 0, true)));
  EXPECT_TRUE(node_parity("aten._fft_r2c.default", {in({4, 0, 6})}, r2c("[2]", 2, false)));
  EXPECT_TRUE(node_parity("aten._fft_r2c.default", {in({2, 21}, DType::F64)}, r2c("[1]", 1, true), 1e-12, 1e-12));
}

TEST(Tier3FftParity, C2C) {
  for (int64_t n : {1, 2, 3, 5, 7, 8, 10, 16, 27, 49, 64, 257, 400})
    for (bool fwd : {true, false})
      EXPECT_TRUE(node_parity("aten._fft_c2c.default", {in({2, n}, DType::C64)}, c2c("[1]", 0, fwd), 1e-5, tol(n)))
          << "n=" << n << " forward=" << fwd;
  for (int norm : {0, 1, 2})
    for (bool fwd : {true, false}) {
      EXPECT_TRUE(node_parity("aten._fft_c2c.default", {in({3, 4, 5}, DType::C64)}, c2c("[0, 2]", norm, fwd), 1e-5,
                              tol(15)));
      EXPECT_TRUE(node_parity("aten._fft_c2c.default", {tr({6, 9}, DType::C64)}, c2c("[1, 0]", norm, fwd), 1e-5,
                              tol(54)));
    }
  EXPECT_TRUE(node_parity("aten._fft_c2c.default", {in({0, 5}, DType::C64)}, c2c("[1]", 0, true)));
  EXPECT_TRUE(node_parity("aten._fft_c2c.default", {in({4, 11}, DType::C128)}, c2c("[1]", 2, false), 1e-12, 1e-12));
}

TEST(Tier3FftParity, C2R) {
  for (int64_t n : {1, 2, 3, 4, 5, 8, 9, 16, 17, 31, 64, 100, 257, 512, 1000})
    EXPECT_TRUE(node_parity("aten._fft_c2r.default", {in({3, n / 2 + 1}, DType::C64)}, c2r("[1]", 2, n), 1e-5,
                            tol(n)))
        << "n=" << n;
  for (int norm : {0, 1, 2}) {
    EXPECT_TRUE(node_parity("aten._fft_c2r.default", {in({5, 4}, DType::C64)}, c2r("[0, 1]", norm, 6), 1e-5, tol(30)));
    EXPECT_TRUE(node_parity("aten._fft_c2r.default", {in({2, 7, 3}, DType::C64)}, c2r("[1, 2]", norm, 5), 1e-5,
                            tol(35)));
    EXPECT_TRUE(node_parity("aten._fft_c2r.default", {tr({6, 4}, DType::C64)}, c2r("[1]", norm, 7), 1e-5, tol(7)));
  }
  EXPECT_TRUE(node_parity("aten._fft_c2r.default", {in({0, 5}, DType::C64)}, c2r("[1]", 0, 8)));
  EXPECT_TRUE(node_parity("aten._fft_c2r.default", {in({2, 9}, DType::C128)}, c2r("[1]", 0, 16), 1e-12, 1e-11));
}

TEST(Tier3FftParity, Stft) {
  const std::string a = R"({"n_fft": 16, "hop_length": 4, "normalized": false, "return_complex": true})";
  EXPECT_TRUE(node_parity("aten.stft.default", {in({2, 100}), in({16}, DType::F32, 0, 1)}, a, 1e-5, tol(16)));
  EXPECT_TRUE(node_parity("aten.stft.default", {in({100}), in({16}, DType::F32, 0, 1)}, a, 1e-5, tol(16)));
  // win_length < n_fft (window centered), normalized, two-sided, no window, real output
  EXPECT_TRUE(node_parity("aten.stft.default", {in({1, 61}), in({9}, DType::F32, 0, 1)},
                          R"({"n_fft": 12, "hop_length": 5, "win_length": 9, "normalized": true,
                              "onesided": false, "return_complex": true})", 1e-5, tol(12)));
  EXPECT_TRUE(node_parity("aten.stft.default", {in({3, 40})},
                          R"({"n_fft": 10, "hop_length": 3, "return_complex": true})", 1e-5, tol(10)));
  EXPECT_TRUE(node_parity("aten.stft.default", {in({40})}, R"({"n_fft": 7, "return_complex": false})", 1e-5, tol(7)));
  EXPECT_TRUE(node_parity("aten.stft.default", {tr({2, 30}), in({8}, DType::F32, 0, 1)},
                          R"({"n_fft": 8, "hop_length": 2, "return_complex": true})", 1e-5, tol(8)));
}

TEST(Tier3ComplexParity, AbsMul) {
  EXPECT_TRUE(node_parity("aten.abs.default", {in({3, 7}, DType::C64)}));
  EXPECT_TRUE(node_parity("aten.abs.default", {tr({4, 5}, DType::C64, -1e3, 1e3)}));
  EXPECT_TRUE(node_parity("aten.abs.default", {in({0, 2}, DType::C64)}));
  EXPECT_TRUE(node_parity("aten.abs.default", {in({5}, DType::C128)}, "{}", 1e-14, 1e-14));
  EXPECT_TRUE(node_parity("aten.abs.default", {in({2, 3})}));  // the real path is untouched
  EXPECT_TRUE(node_parity("aten.mul.Tensor", {in({3, 4}, DType::C64), in({3, 4}, DType::C64)}));
  EXPECT_TRUE(node_parity("aten.mul.Tensor", {tr({3, 4}, DType::C64), in({4})}));
  EXPECT_TRUE(node_parity("aten.mul.Tensor", {in({2, 1, 3}), in({5, 1}, DType::C64)}));
  EXPECT_TRUE(node_parity("aten.mul.Tensor", {in({2, 3}, DType::C128), in({2, 3}, DType::C128)}, "{}", 1e-14, 1e-14));
  EXPECT_TRUE(node_parity("aten.mul.Tensor", {in({0, 3}, DType::C64), in({3}, DType::C64)}));
}

TEST(Tier3ComplexParity, ViewsAndCopies) {
  EXPECT_TRUE(node_parity("aten.view_as_real.default", {in({3, 4}, DType::C64)}));
  EXPECT_TRUE(node_parity("aten.view_as_real.default", {tr({3, 4}, DType::C64)}));
  EXPECT_TRUE(node_parity("aten.view_as_real.default", {in({}, DType::C128)}));
  EXPECT_TRUE(node_parity("aten.view_as_complex.default", {in({3, 4, 2})}));
  EXPECT_TRUE(node_parity("aten.view_as_complex.default", {in({0, 2}, DType::F64)}));
  EXPECT_TRUE(node_parity("aten.permute.default", {in({2, 3, 4}, DType::C64)}, R"({"dims": [2, 0, 1]})"));
  EXPECT_TRUE(node_parity("aten.slice.Tensor", {tr({5, 6}, DType::C64)}, R"({"dim": 1, "start": 1, "end": -1, "step": 2})"));
  EXPECT_TRUE(node_parity("aten.select.int", {in({4, 3}, DType::C64)}, R"({"dim": 1, "index": -1})"));
  EXPECT_TRUE(node_parity("aten.unsqueeze.default", {in({2, 3}, DType::C64)}, R"({"dim": 1})"));
  EXPECT_TRUE(node_parity("aten.expand.default", {in({3, 1}, DType::C64)}, R"({"size": [2, 3, 4]})"));
  EXPECT_TRUE(node_parity("aten.reshape.default", {tr({3, 4}, DType::C64)}, R"({"shape": [12]})"));
  EXPECT_TRUE(node_parity("aten.clone.default", {tr({3, 4}, DType::C64)}));
  EXPECT_TRUE(node_parity("aten.cat.default", {in({2, 3}, DType::C64), tr({2, 3}, DType::C64)}, R"({"dim": 0})"));
}

}  // namespace
