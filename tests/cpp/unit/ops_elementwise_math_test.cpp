// Tier-3 elementwise math (kernels/elementwise_math.h, ops/elementwise_math.cpp,
// ops/elementwise_composite.cpp): float32 error sweeps of the SIMD and scalar
// paths against float64 truth, erfinv near +-1, the shifts at counts where
// torch 1.13 and >= 2.1 differ (cases recorded from torch 2.14), argument errors,
// in-place aliasing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/json.h"
#include "kernels/elementwise_math.h"
#include "op_test_util.h"
#include "test_util.h"
#include "ulp.h"

namespace tir {
namespace {

using test::B;
using test::error_of;
using test::F;
using test::I;
using test::run1;
using test::run_op;
using test::sweep;
using test::tensor_of;
using test::ulp_error;
using ::testing::HasSubstr;

struct Sweep {
  MathUnaryOp op;
  const char* name;
  float lo, hi;
  double (*truth)(double);
  float (*libm)(float);  // the float libm function (PyTorch's scalar path for acosh/asinh/atanh)
  double torch_ulp;      // PyTorch's documented bound: Sleef u10 = 1; 0 = measure libm
};

double max_ulp(const std::vector<float>& x, const std::vector<float>& y, double (*truth)(double)) {
  double m = 0;
  for (size_t i = 0; i < x.size(); ++i) m = std::max(m, ulp_error(y[i], truth(double(x[i]))));
  return m;
}

std::vector<float> run_path(MathUnaryOp op, const std::vector<float>& x, MathPath path) {
  Tensor in = make_owned(DType::F32, {int64_t(x.size())});
  std::memcpy(in.data<float>(), x.data(), x.size() * 4);
  Tensor out = make_owned(DType::F32, in.shape);
  math_unary_kernel(op, out, in, {}, path);
  return std::vector<float>(out.data<float>(), out.data<float>() + x.size());
}

TEST(EwMath, SimdUlpSweep) {
  const Sweep sweeps[] = {
      {MathUnaryOp::Acos, "acos", -1, 1, [](double x) { return std::acos(x); }, [](float x) { return std::acos(x); }, 1},
      {MathUnaryOp::Asin, "asin", -1, 1, [](double x) { return std::asin(x); }, [](float x) { return std::asin(x); }, 1},
      {MathUnaryOp::Atan, "atan", -1e30f, 1e30f, [](double x) { return std::atan(x); }, [](float x) { return std::atan(x); }, 1},
      {MathUnaryOp::Sinh, "sinh", -100, 100, [](double x) { return std::sinh(x); }, [](float x) { return std::sinh(x); }, 1},
      {MathUnaryOp::Log10, "log10", 1e-37f, 3e38f, [](double x) { return std::log10(x); }, [](float x) { return std::log10(x); }, 1},
      {MathUnaryOp::Acosh, "acosh", 1, 3e38f, [](double x) { return std::acosh(x); }, [](float x) { return std::acosh(x); }, 0},
      {MathUnaryOp::Asinh, "asinh", -3e38f, 3e38f, [](double x) { return std::asinh(x); }, [](float x) { return std::asinh(x); }, 0},
      {MathUnaryOp::Atanh, "atanh", -0.9999999f, 0.9999999f, [](double x) { return std::atanh(x); }, [](float x) { return std::atanh(x); }, 0},
  };
  for (const auto& s : sweeps) {
    const std::vector<float> x = sweep(s.lo, s.hi);
    ASSERT_GT(x.size(), 1000u) << s.name;
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<float> ys = run_path(s.op, x, MathPath::Simd);
    const auto t1 = std::chrono::steady_clock::now();
    const std::vector<float> yr = run_path(s.op, x, MathPath::Scalar);
    const auto t2 = std::chrono::steady_clock::now();
    const double simd = max_ulp(x, ys, s.truth), scalar = max_ulp(x, yr, s.truth);
    const double ms_simd = std::chrono::duration<double, std::milli>(t1 - t0).count();
    const double ms_scalar = std::chrono::duration<double, std::milli>(t2 - t1).count();
    double torch = s.torch_ulp;
    if (torch == 0) {
      std::vector<float> y(x.size());
      for (size_t i = 0; i < x.size(); ++i) y[i] = s.libm(x[i]);
      torch = max_ulp(x, y, s.truth);
    }
    std::printf("  %-6s %zu inputs: max ulp simd %.3f (%.0f ms) scalar %.3f (%.0f ms) pytorch-bound %.3f -> %s\n", s.name,
                x.size(), simd, ms_simd, scalar, ms_scalar, torch, math_unary_uses_simd(s.op) ? "simd" : "scalar");
    // Both round a float64 evaluation once.
    EXPECT_LE(scalar, 0.5 + 1e-3) << s.name;
    EXPECT_LE(simd, 0.5 + 1e-3) << s.name;
    // Auto uses SIMD only where it is no worse than PyTorch.
    if (math_unary_uses_simd(s.op)) EXPECT_LE(simd, torch) << s.name;
  }
}

TEST(EwMath, ScalarPathUlpSweep) {
  // Ops without a SIMD path: float32 through double, rounded once.
  struct S { MathUnaryOp op; const char* name; float lo, hi; double (*truth)(double); };
  const S sweeps[] = {
      {MathUnaryOp::Cosh, "cosh", -89, 89, [](double x) { return std::cosh(x); }},
      {MathUnaryOp::Tan, "tan", -1e4f, 1e4f, [](double x) { return std::tan(x); }},
      {MathUnaryOp::Erfc, "erfc", -10, 10, [](double x) { return std::erfc(x); }},
      {MathUnaryOp::Exp2, "exp2", -149, 127, [](double x) { return std::exp2(x); }},
  };
  for (const auto& s : sweeps) {
    const std::vector<float> x = sweep(s.lo, s.hi);
    const double e = max_ulp(x, run_path(s.op, x, MathPath::Auto), s.truth);
    std::printf("  %-6s %zu inputs: max ulp %.3f\n", s.name, x.size(), e);
    EXPECT_LE(e, 0.5 + 1e-3) << s.name;
  }
}

TEST(EwMath, ErfinvNearOne) {
  // torch 1.13's float32 erfinv gives 3.8325372 at 0.99999994 (its Newton steps run in
  // float, where erf saturates); the float64 truth is 3.83250685690071.
  Tensor y = run1("aten.erfinv.default", {tensor_of(DType::F32, {3}, {0.99999994, -0.99999994, 0.9999})});
  EXPECT_LE(ulp_error(y.data<float>()[0], 3.83250685690071090945826117221), 0.5);
  EXPECT_LE(ulp_error(y.data<float>()[1], -3.83250685690071090945826117221), 0.5);
  EXPECT_LE(ulp_error(y.data<float>()[2], 2.75103543790328740055961708099), 0.5);  // float(0.9999)
  // float64: torch's algorithm in double, the same formula
  Tensor d = run1("aten.erfinv.default", {tensor_of(DType::F64, {2}, {0.5, -0.999})});
  EXPECT_NEAR(d.data<double>()[0], 0.476936276204469873, 1e-15);
  EXPECT_NEAR(d.data<double>()[1], -2.32675376551352449, 1e-14);
}

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(EwMath, ShiftCasesFromTorch2) {
  // Counts outside [0, bits): 1.13's results were x86 undefined behaviour; these are
  // torch 2.14's (tools/gen_ops2_elem.py, run in the chroot).
  const std::string text = read_text(test::fixtures_dir() + "/ops2/elem/shifts.json");
  ASSERT_FALSE(text.empty());
  const json::Document doc = json::Document::parse(text);
  size_t n = 0;
  for (const json::Value c : doc.root()["cases"]) {
    const DType d = parse_dtype(c["dtype"].string());
    std::vector<double> v, want;
    for (const json::Value x : c["values"]) v.push_back(x.as_double());
    Tensor in = tensor_of(d, {int64_t(v.size())}, std::vector<double>(v.size(), 0.0));
    for (size_t i = 0; i < v.size(); ++i) {
      const int64_t x = c["values"].at(i).as_int64();
      std::memcpy(in.raw() + i * dtype_size(d), &x, dtype_size(d));  // little-endian
    }
    const std::string op = c["op"].string();
    const int64_t other = c["other"].as_int64();
    Tensor y = run1(op, {in}, {{"other", I(other)}});
    ASSERT_EQ(y.dtype, d);
    for (size_t i = 0; i < v.size(); ++i) {
      int64_t got = 0;
      std::memcpy(&got, y.raw() + i * dtype_size(d), dtype_size(d));
      if (d != DType::U8 && dtype_size(d) < 8) got = (got << (64 - 8 * dtype_size(d))) >> (64 - 8 * dtype_size(d));
      EXPECT_EQ(got, c["expected"].at(i).as_int64()) << op << " " << c["dtype"].string() << " " << c["values"].at(i).as_int64()
                                                    << " by " << other;
    }
    ++n;
  }
  EXPECT_GT(n, 100u);
}

TEST(EwMath, Errors) {
  const Tensor f = tensor_of(DType::F32, {3}, {1, 2, 3});
  const Tensor i = tensor_of(DType::I64, {3}, {1, 2, 3});
  EXPECT_THAT(error_of([&] { run1("aten.frac.default", {i}); }), HasSubstr("int64"));
  EXPECT_THAT(error_of([&] { run1("aten.hardshrink.default", {i}); }), HasSubstr("not implemented"));
  EXPECT_THAT(error_of([&] { run1("aten.softshrink.default", {f}, {{"lambd", F(-1)}}); }),
              HasSubstr("lambda must be greater or equal to 0"));
  EXPECT_THAT(error_of([&] { run1("aten.threshold.default", {tensor_of(DType::Bool, {2}, {1, 0})},
                                  {{"threshold", I(0)}, {"value", I(1)}}); }), HasSubstr("bool"));
  EXPECT_THAT(error_of([&] { run1("aten.hypot.default", {i, i}); }), HasSubstr("hypot"));
  EXPECT_THAT(error_of([&] { run1("aten.__lshift__.Scalar", {f}, {{"other", I(1)}}); }), HasSubstr("integer"));
  EXPECT_THAT(error_of([&] { run1("aten.bitwise_right_shift.Tensor_Scalar", {i}, {{"other", F(1.5)}}); }),
              HasSubstr("integer"));
  EXPECT_THAT(error_of([&] { run1("aten.addcdiv.default", {f, i, i}); }), HasSubstr("Integer division with addcdiv"));
  EXPECT_THAT(error_of([&] { run1("aten.addcmul.default", {tensor_of(DType::Bool, {1}, {1}), tensor_of(DType::Bool, {1}, {1}),
                                                             tensor_of(DType::Bool, {1}, {1})}); }), HasSubstr("bool"));
  EXPECT_THAT(error_of([&] { run1("aten.lerp.Scalar", {f, tensor_of(DType::F64, {3}, {1, 2, 3})}, {{"weight", F(0.5)}}); }),
              HasSubstr("expected dtype float32 for `end` but got dtype float64"));
  EXPECT_THAT(error_of([&] { run1("aten.lerp.Tensor", {f, f, tensor_of(DType::F64, {}, {0.5})}); }),
              HasSubstr("for `weight`"));
  EXPECT_THAT(error_of([&] { run1("aten.lerp.Scalar", {i, i}, {{"weight", F(0.5)}}); }), HasSubstr("not implemented"));
  EXPECT_THAT(error_of([&] { run1("aten.rrelu.default", {f}, {{"training", B(true)}}); }), HasSubstr("eval mode"));
  EXPECT_THAT(error_of([&] { run1("aten.rrelu.default", {i}); }), HasSubstr("not implemented"));
  EXPECT_THAT(error_of([&] { run_op("aten.native_dropout.default", {f}, {{"p", F(0.5)}, {"train", B(true)}}, 2); }),
              HasSubstr("eval mode"));
  EXPECT_THAT(error_of([&] { run_op("aten.native_dropout.default", {f}, {{"p", F(0.5)}}, 2); }), HasSubstr("None"));
  EXPECT_THAT(error_of([&] { run1("aten.feature_alpha_dropout.default", {f}, {{"p", F(0.5)}, {"train", B(true)}}); }),
              HasSubstr("eval mode"));
  EXPECT_THAT(error_of([&] { run1("aten.atan2.out", {f, f, make_owned(DType::F32, {4})}); }), HasSubstr("out="));
  EXPECT_THAT(error_of([&] { run1("aten.atan2.out", {f, f, make_owned(DType::I64, {3})}); }),
              HasSubstr("can't be cast"));
  const Tensor c = make_owned(DType::C64, {3});
  for (const char* op : {"aten.acos.default", "aten.tan.default", "aten.sgn.default"})
    EXPECT_THAT(error_of([&] { run1(op, {c}); }), HasSubstr("complex")) << op;
  EXPECT_THAT(error_of([&] { run1("aten.atan2.default", {c, f}); }), HasSubstr("complex"));
  EXPECT_THAT(error_of([&] { run1("aten.addcmul.default", {c, f, f}); }), HasSubstr("complex"));
}

// Integer addcmul wraps in its own width like torch (int16: -140 * -140 * 2 + 7 = 39207 -> -26329),
// with no signed-overflow UB on the way (uint16 products promote to int).
TEST(EwMath, IntegerAddcmulWraps) {
  const Tensor s = tensor_of(DType::I16, {2}, {7, 1});
  const Tensor x = tensor_of(DType::I16, {2}, {-140, 32767});
  const Tensor y = run1("aten.addcmul.default", {s, x, x}, {{"value", I(2)}});
  EXPECT_EQ(y.data<int16_t>()[0], int16_t(-26329));
  EXPECT_EQ(y.data<int16_t>()[1], int16_t(uint16_t(1 + 2u * 32767u * 32767u)));
}

TEST(EwMath, RreluWithNoiseFunctional) {
  // torch 2.0-2.6 core IR (not in LibTorch 1.13): eval = leaky_relu with slope (lower+upper)/2,
  // noise returned unchanged.
  const Tensor x = tensor_of(DType::F32, {4}, {-2, -0.5, 0, 3});
  const Tensor noise = tensor_of(DType::F32, {4}, {7, 8, 9, 10});
  auto r = run_op("aten.rrelu_with_noise_functional.default", {x, noise}, {{"lower", F(0.1)}, {"upper", F(0.3)}}, 2);
  const std::vector<float> want = {-0.4f, -0.1f, 0.f, 3.f};
  for (int k = 0; k < 4; ++k) {
    EXPECT_FLOAT_EQ(r.out[0].data<float>()[k], want[k]);
    EXPECT_EQ(r.out[1].data<float>()[k], noise.data<float>()[k]);
  }
  EXPECT_THAT(error_of([&] { run_op("aten.rrelu_with_noise_functional.default", {x, noise}, {{"training", B(true)}}, 2); }),
              HasSubstr("eval mode"));
}

TEST(EwMath, SimdPathInPlaceEqualsOutOfPlace) {
  // The SIMD rows recompute out-of-range lanes (NaN, outside the domain) from
  // the inputs: in place they must still see the inputs, not the results
  // (log10(0.5) < 0 and sinh(20) > 709 are outside the ranges themselves).
  const std::vector<float> v = {0.5f, 2.0f, -3.0f, NAN, 0.1f, 20.0f, 0.3f, 5.0f, 1e-3f, -0.7f, 1.0f};
  for (MathUnaryOp op : {MathUnaryOp::Acos, MathUnaryOp::Asin, MathUnaryOp::Acosh, MathUnaryOp::Asinh,
                         MathUnaryOp::Atan, MathUnaryOp::Atanh, MathUnaryOp::Sinh, MathUnaryOp::Log10})
    for (MathPath path : {MathPath::Simd, MathPath::Auto, MathPath::Scalar}) {
      const std::vector<float> want = run_path(op, v, path);
      Tensor t = make_owned(DType::F32, {int64_t(v.size())});
      std::memcpy(t.data<float>(), v.data(), v.size() * 4);
      math_unary_kernel(op, t, t, {}, path);
      for (size_t i = 0; i < v.size(); ++i) {
        const float got = t.data<float>()[i];
        EXPECT_TRUE(got == want[i] || (std::isnan(got) && std::isnan(want[i])))
            << int(op) << " x=" << v[i] << ": in place " << got << ", out of place " << want[i];
      }
    }
}

TEST(EwMath, InplaceAndOutAlias) {
  const Tensor self = tensor_of(DType::F32, {3}, {1, 2, 3});
  const Tensor t = tensor_of(DType::F32, {3}, {2, 4, 8});
  Tensor y = run1("aten.addcmul_.default", {self, t, t}, {{"value", F(0.5)}});
  EXPECT_TRUE(y.same_storage(self));
  EXPECT_EQ(self.data<float>()[2], 35.f);
  y = run1("aten.addcdiv_.default", {self, t, t});
  EXPECT_TRUE(y.same_storage(self));
  EXPECT_EQ(self.data<float>()[0], 4.f);
  y = run1("aten.lerp_.Scalar", {self, t}, {{"weight", F(1)}});
  EXPECT_TRUE(y.same_storage(self));
  EXPECT_EQ(self.data<float>()[1], 4.f);
  const Tensor out = make_owned(DType::F64, {3});
  y = run1("aten.atan2.out", {t, self, out});
  EXPECT_TRUE(y.same_storage(out));
  EXPECT_DOUBLE_EQ(out.data<double>()[0], double(float(std::atan2(2.0, 2.0))));
  // addcmul_ whose operand is self itself (same view): reads see the old values
  const Tensor s2 = tensor_of(DType::F32, {2}, {2, 3});
  run1("aten.addcmul_.default", {s2, s2, s2});
  EXPECT_EQ(s2.data<float>()[0], 6.f);
  EXPECT_EQ(s2.data<float>()[1], 12.f);
}

}  // namespace
}  // namespace tir
