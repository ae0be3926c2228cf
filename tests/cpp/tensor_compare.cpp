#include "tensor_compare.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/dispatch.h"

namespace tir::test {
namespace {

std::string fmt(double v) {
  std::ostringstream os;
  os.precision(9);
  os << v;
  return os.str();
}

}  // namespace

::testing::AssertionResult compare_tensors(const Tensor& expected, const Tensor& actual, double rtol,
                                           double atol, const std::string& what) {
  if (expected.shape != actual.shape)
    return ::testing::AssertionFailure() << what << ": shape " << shape_to_string(actual.shape)
                                         << ", expected " << shape_to_string(expected.shape);
  if (compute_dtype(expected.dtype) != compute_dtype(actual.dtype))
    return ::testing::AssertionFailure() << what << ": dtype " << dtype_name(actual.dtype) << ", expected "
                                         << dtype_name(expected.dtype);
  if (is_complex(expected.dtype))  // compared as (real, imaginary) pairs
    return compare_tensors(complex_as_real(expected), complex_as_real(actual), rtol, atol, what);
  const bool exact = !is_floating(expected.dtype);
  const Tensor e = to_dtype_owned(expected, exact ? DType::I64 : DType::F64);
  const Tensor a = to_dtype_owned(actual, exact ? DType::I64 : DType::F64);
  int64_t bad = 0;
  double max_diff = 0;
  std::ostringstream first;
  for (int64_t k = 0; k < e.numel(); ++k) {
    bool ok;
    double ev, av;
    if (exact) {
      ok = e.data<int64_t>()[k] == a.data<int64_t>()[k];
      ev = double(e.data<int64_t>()[k]);
      av = double(a.data<int64_t>()[k]);
    } else {
      ev = e.data<double>()[k];
      av = a.data<double>()[k];
      if (std::isnan(ev) || std::isnan(av)) ok = std::isnan(ev) && std::isnan(av);
      else ok = ev == av || std::fabs(av - ev) <= atol + rtol * std::fabs(ev);
      if (!std::isnan(ev) && !std::isnan(av) && ev != av) max_diff = std::max(max_diff, std::fabs(av - ev));
    }
    if (!ok) {
      if (bad < 5) first << "\n    [" << k << "] got " << fmt(av) << ", expected " << fmt(ev);
      ++bad;
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": " << bad << " of " << e.numel()
                                       << " elements differ (max |diff| " << fmt(max_diff) << ", rtol "
                                       << rtol << ", atol " << atol << ")" << first.str();
}

}  // namespace tir::test
