#include "verify/verify.h"

#include <cmath>
#include <cstdio>
#include <limits>

#include "core/dispatch.h"

namespace tir {

namespace {

// Complex tensors compare as their (real, imaginary) pairs.
std::vector<double> as_doubles(const Tensor& t) {
  Tensor c = to_dtype_owned(is_complex(t.dtype) ? complex_as_real(t) : t, DType::F64);
  const double* p = c.data<double>();
  return std::vector<double>(p, p + c.numel());
}

OutputReport compare_one(size_t index, const Tensor& actual, const Tensor& expected, double rtol, double atol) {
  OutputReport r;
  r.index = index;
  r.shape = actual.shape;
  if (actual.shape != expected.shape) {
    r.max_diff = r.mean_diff = std::numeric_limits<double>::infinity();
    return r;
  }
  const std::vector<double> a = as_doubles(actual), e = as_doubles(expected);
  bool close = true;
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = std::fabs(a[i] - e[i]);
    // torch.allclose: NaN never equals NaN (equal_nan=False); +-inf equal to itself.
    const bool ok = (a[i] == e[i]) || (!std::isnan(d) && d <= atol + rtol * std::fabs(e[i]));
    close = close && ok;
    if (!(a[i] == e[i])) {
      r.max_diff = std::isnan(d) || std::isnan(r.max_diff) ? std::nan("") : std::max(r.max_diff, d);
      sum += d;
    }
  }
  r.mean_diff = a.empty() ? 0.0 : sum / double(a.size());
  r.is_close = close;
  return r;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6e", v);
  return buf;
}

std::string json_num(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

}  // namespace

VerifyReport verify_outputs(const std::vector<Tensor>& actual, const std::vector<Tensor>& expected,
                            double rtol, double atol) {
  VerifyReport rep;
  rep.num_outputs = actual.size();
  if (actual.size() != expected.size()) {
    rep.error_message = "Output count mismatch: expected " + std::to_string(expected.size()) + ", got " +
                        std::to_string(actual.size());
    return rep;
  }
  bool all_close = true;
  for (size_t i = 0; i < actual.size(); ++i) {
    OutputReport o = compare_one(i, actual[i], expected[i], rtol, atol);
    all_close = all_close && o.is_close;
    rep.max_diff = std::isnan(o.max_diff) ? o.max_diff : std::max(rep.max_diff, o.max_diff);
    rep.mean_diff = std::max(rep.mean_diff, o.mean_diff);
    rep.outputs.push_back(o);
  }
  rep.is_valid = all_close;
  if (!all_close) rep.error_message = "Output tensors do not match within tolerance";
  return rep;
}

std::string format_report(const VerifyReport& r) {
  std::string s = std::string("Verification ") + (r.is_valid ? "PASSED" : "FAILED") + "\n";
  s += "  outputs: " + std::to_string(r.num_outputs) + "\n";
  s += "  max_diff: " + num(r.max_diff) + "\n";
  s += "  mean_diff: " + num(r.mean_diff) + "\n";
  for (const auto& o : r.outputs)
    s += "  output " + std::to_string(o.index) + " " + shape_to_string(o.shape) + ": " +
         (o.is_close ? "close" : "NOT close") + ", max_diff " + num(o.max_diff) + ", mean_diff " + num(o.mean_diff) +
         "\n";
  if (!r.error_message.empty()) s += "  error: " + r.error_message + "\n";
  return s;
}

std::string report_to_json(const VerifyReport& r) {
  std::string s = "{\"is_valid\": " + std::string(r.is_valid ? "true" : "false") + ", \"max_diff\": " +
                  json_num(r.max_diff) + ", \"mean_diff\": " + json_num(r.mean_diff) +
                  ", \"num_outputs\": " + std::to_string(r.num_outputs) + ", \"output_details\": [";
  for (size_t i = 0; i < r.outputs.size(); ++i) {
    const auto& o = r.outputs[i];
    std::string shape = shape_to_string(o.shape);
    s += (i ? ", " : "") + std::string("{\"index\": ") + std::to_string(o.index) + ", \"shape\": " + shape +
         ", \"is_close\": " + (o.is_close ? "true" : "false") + ", \"max_diff\": " + json_num(o.max_diff) +
         ", \"mean_diff\": " + json_num(o.mean_diff) + "}";
  }
  s += "], \"error_message\": ";
  s += r.error_message.empty() ? "null" : "\"" + r.error_message + "\"";
  return s + "}";
}

}  // namespace tir
