#include "verify/truth.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/dispatch.h"

namespace tir {

namespace {

Tensor as_f64(const Tensor& t) { return to_dtype_owned(t, DType::F64); }

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3e", v);
  return buf;
}

}  // namespace

double max_error_vs_truth(const Tensor& a, const Tensor& truth) {
  const Tensor x = as_f64(a), t = as_f64(truth);
  const double* p = x.data<double>();
  const double* q = t.data<double>();
  double m = 0;
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (p[i] == q[i]) continue;  // equal infinities too
    const double d = std::fabs(p[i] - q[i]);
    if (std::isnan(d) || std::isinf(d)) return std::numeric_limits<double>::infinity();
    m = std::max(m, d);
  }
  return m;
}

double max_abs_finite(const Tensor& t) {
  const Tensor x = as_f64(t);
  const double* q = x.data<double>();
  double m = 0;
  for (int64_t k = 0; k < x.numel(); ++k)
    if (std::isfinite(q[k])) m = std::max(m, std::fabs(q[k]));
  return m;
}

NodeTruth judge_node(const Tensor& ours, const Tensor& device, const Tensor& yardstick, const Tensor& truth) {
  NodeTruth n;
  if (!is_floating(ours.dtype) || !is_floating(truth.dtype)) {
    n.note = "not floating";
    return n;
  }
  if (ours.shape != truth.shape || device.shape != truth.shape || yardstick.shape != truth.shape) {
    n.note = "shapes differ: ours " + shape_to_string(ours.shape) + ", device " + shape_to_string(device.shape) +
             ", yardstick " + shape_to_string(yardstick.shape) + ", float64 " + shape_to_string(truth.shape);
    return n;
  }
  n.judged = true;
  const Tensor t = as_f64(truth);
  n.scale = max_abs_finite(t);
  n.ours = max_error_vs_truth(ours, t);
  n.device = max_error_vs_truth(device, t);
  n.yardstick = max_error_vs_truth(yardstick, t);
  n.bound = kTruthFactor * n.yardstick + kTruthScaleTol * n.scale;
  n.ok = n.ours <= n.bound && n.device <= n.bound;
  n.device_only = !n.ok && n.ours <= n.bound;
  return n;
}

TruthReport compare_with_truth(const std::vector<Tensor>& actual, const std::vector<Tensor>& expected,
                               const std::vector<Tensor>& truth) {
  TruthReport rep;
  if (actual.size() != truth.size() || expected.size() != truth.size()) {
    rep.error_message = "output count mismatch: " + std::to_string(actual.size()) + " outputs, " +
                        std::to_string(expected.size()) + " reference, " + std::to_string(truth.size()) +
                        " float64 reference";
    return rep;
  }
  rep.ok = true;
  for (size_t i = 0; i < truth.size(); ++i) {
    TruthOutput o;
    o.index = i;
    if (actual[i].shape != truth[i].shape || expected[i].shape != truth[i].shape) {
      rep.ok = false;
      rep.error_message = "output " + std::to_string(i) + ": shape " + shape_to_string(actual[i].shape) +
                          " (reference " + shape_to_string(expected[i].shape) + ") but the float64 reference is " +
                          shape_to_string(truth[i].shape);
      o.ours = o.torch = std::numeric_limits<double>::infinity();
      rep.outputs.push_back(o);
      continue;
    }
    o.judged = is_floating(actual[i].dtype) && is_floating(truth[i].dtype);
    if (o.judged) {
      const Tensor t = as_f64(truth[i]);
      o.scale = max_abs_finite(t);
      o.ours = max_error_vs_truth(actual[i], t);
      o.torch = max_error_vs_truth(expected[i], t);
      o.bound = kTruthFactor * o.torch + kTruthScaleTol * o.scale;
      o.ok = o.ours <= o.bound;
    } else {
      o.ok = true;
    }
    rep.ok = rep.ok && o.ok;
    rep.outputs.push_back(o);
  }
  return rep;
}

std::string format_truth_report(const TruthReport& r, bool rtol_failed) {
  std::string s = "Float64 reference (error = max |x - float64|, bound = 2 x PyTorch's + 1e-6 x max|float64|):\n";
  for (const auto& o : r.outputs) {
    s += "  output " + std::to_string(o.index) + ": ";
    if (!o.judged && std::isfinite(o.ours)) {
      s += "not floating (compared exactly above)\n";
      continue;
    }
    const double ratio = o.torch > 0 ? o.ours / o.torch : (o.ours > 0 ? std::numeric_limits<double>::infinity() : 1.0);
    s += "ours " + num(o.ours) + ", PyTorch " + num(o.torch) + ", ratio " + num(ratio) + ", scale " + num(o.scale) +
         ": " + (o.ok ? "within" : "OUTSIDE") + " bound " + num(o.bound) + "\n";
  }
  if (!r.error_message.empty()) s += "  error: " + r.error_message + "\n";
  if (rtol_failed)
    s += r.ok ? "  => the rtol/atol failure is only reassociation: our error vs float64 is within 2x PyTorch's\n"
              : "  => not only reassociation: our error vs float64 exceeds 2x PyTorch's\n";
  return s;
}

}  // namespace tir
