#include "cli/parity.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>

#include "cli/cli_common.h"
#include "core/errors.h"
#include "runtime/session.h"
#include "verify/truth.h"
#include "verify/verify.h"
#ifdef TIR_HAVE_LIBTORCH
#include "torch_backend/reference.h"
#endif

namespace tir::cli {

std::string parity_criterion(const ParityOptions& o) {
  const std::string c = o.criterion.empty() ? (o.device == "cpu" ? "rtol" : "truth64") : o.criterion;
  if (c != "rtol" && c != "truth64") throw UsageError("--criterion must be rtol or truth64, got '" + c + "'");
  return c;
}

#ifndef TIR_HAVE_LIBTORCH
[[noreturn]] void no_backend() { throw Error("this torchir was built without the LibTorch backend"); }
void require_device(const std::string& device) {
  if (device != "cpu") no_backend();
}
std::vector<Tensor> run_reference(const Model&, const TensorMap&, const TensorMap&, const std::vector<Tensor>&,
                                  const std::string&) {
  no_backend();
}
int run_parity(const Model&, const TensorMap&, const TensorMap&, const std::vector<Tensor>&, const ParityOptions&,
               std::ostream&) {
  no_backend();
}
#else
void require_device(const std::string& device) {
  if (device.rfind("cpu", 0) != 0 && device.rfind("cuda", 0) != 0)
    throw UsageError("--device must be cpu, cuda or cuda:N, got '" + device + "'");
  std::string why;
  try {
    why = device_unavailable_reason(device);
  } catch (const ExecutionError& e) {  // not a device name at all
    throw UsageError(std::string("--device: ") + e.what());
  }
  if (!why.empty()) throw DeviceUnavailableError(why);
}

std::vector<Tensor> run_reference(const Model& model, const TensorMap& weights, const TensorMap& constants,
                                  const std::vector<Tensor>& inputs, const std::string& device) {
  ReferenceRunner ref(model, weights, constants, device);
  return ref.run(inputs);
}

namespace {
// empty / empty_like / new_empty / empty_strided leave their values unspecified (whatever
// the allocator hands out): both backends are right whatever they hold, and a consumer such
// as diffusers' baddbmm(empty(...), q, k, beta=0) never reads them. Not compared.
// Batch norm's save_mean / save_invstd outputs (1, 2) outside training are unspecified too:
// LibTorch's CPU kernel returns them empty, its CUDA kernel of size C.
bool unspecified_values(const OpNode& node, size_t output_index) {
  for (const char* p : {"aten.empty.", "aten.empty_like.", "aten.new_empty.", "aten.empty_strided."})
    if (node.op_type.rfind(p, 0) == 0) return true;
  if (output_index == 1 || output_index == 2) {
    if (node.op_type == "aten._native_batch_norm_legit_no_training.default") return true;
    if (node.op_type == "aten.native_batch_norm.default") {
      const auto it = node.attrs.find("training");
      return it != node.attrs.end() && it->second.kind == Attr::Kind::Bool && !it->second.b;
    }
  }
  return false;
}

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// One LibTorch run with every node output kept; null (and *why set) when LibTorch cannot run
// the graph there (an op this LibTorch lacks, a dtype its CPU kernels lack, ...).
std::unique_ptr<ReferenceRunner> try_reference(const Model& model, const TensorMap& weights,
                                               const TensorMap& constants, const std::vector<Tensor>& inputs,
                                               const std::string& device, bool float64, std::string* why,
                                               double* ms) {
  const auto t0 = Clock::now();
  try {
    auto r = std::make_unique<ReferenceRunner>(model, weights, constants, device, float64);
    r->set_keep_intermediates(true);
    r->run(inputs);
    *ms = ms_since(t0);
    return r;
  } catch (const Error& e) {
    *why = e.what();
    return nullptr;
  }
}

std::string sci(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2e", v);
  return b;
}
}  // namespace

int run_parity(const Model& model, const TensorMap& weights, const TensorMap& constants,
               const std::vector<Tensor>& inputs, const ParityOptions& o, std::ostream& out) {
  const std::string criterion = parity_criterion(o);
  require_device(o.device);

  SessionOptions so;
  so.limits = o.limits;
  so.keep_intermediates = true;
  auto t0 = Clock::now();
  Session native(model, so);
  native.bind(weights, constants);
  native.run(inputs);
  const double native_ms = ms_since(t0);

  // The device run throws on failure (it is what is under test); the others fall back.
  t0 = Clock::now();
  ReferenceRunner dev(model, weights, constants, o.device);
  dev.set_keep_intermediates(true);
  dev.run(inputs);
  const double dev_ms = ms_since(t0);
  out << "LibTorch " << libtorch_version() << " on " << o.device << " (" << device_settings(o.device)
      << ") vs native (cpu)\n";

  std::unique_ptr<ReferenceRunner> yard, truth;
  const ReferenceRunner* yardstick = &dev;
  std::string yard_why, truth_why;
  double yard_ms = 0, truth_ms = 0;
  if (criterion == "truth64") {
    if (o.device != "cpu") {
      yard = try_reference(model, weights, constants, inputs, "cpu", false, &yard_why, &yard_ms);
      if (yard) yardstick = yard.get();
    }
    truth = try_reference(model, weights, constants, inputs, "cpu", true, &truth_why, &truth_ms);
    out << "criterion: truth64: a floating node output passes when ours and LibTorch-" << o.device
        << "'s max |x - float64| are both <= 2 x LibTorch-"
        << (yardstick == &dev ? o.device : std::string("cpu")) << "'s + 1e-6 x max|float64|; other outputs: rtol="
        << o.rtol << " atol=" << o.atol << "\n";
    if (!yard_why.empty())
      out << "yardstick: LibTorch " << o.device << " itself (LibTorch cannot run this graph on cpu: " << yard_why
          << ")\n";
    if (!truth)
      out << "float64 run: FAILED, every node falls back to rtol/atol (" << truth_why << ")\n";
  } else {
    out << "criterion: rtol=" << o.rtol << " atol=" << o.atol << " vs LibTorch-" << o.device << "\n";
  }
  char times[200];
  std::snprintf(times, sizeof times, "times: native %.1f ms, LibTorch-%s %.1f ms, yardstick %.1f ms, float64 %.1f ms\n",
                native_ms, o.device.c_str(), dev_ms, yard_ms, truth_ms);
  out << times;

  std::string first_divergent, first_device_only;
  size_t judged = 0, by_rtol = 0, skipped = 0;
  char line[640];
  for (const auto& node : model.nodes) {
    for (size_t k = 0; k < node.outputs.size(); ++k) {
      const TensorMeta& meta = node.outputs[k];
      const Tensor* a = native.value(meta.name);
      const Tensor* d = dev.value(meta.name);
      if (!a || !d) continue;
      const char* name = meta.name.c_str();
      const char* op = node.op_type.c_str();
      if (unspecified_values(node, k)) {
        std::snprintf(line, sizeof line, "  %-36s %-44s not compared (values unspecified)\n", name, op);
        out << line;
        ++skipped;
        continue;
      }
      bool ok = false;
      const Tensor* y = yardstick->value(meta.name);
      const Tensor* t = truth ? truth->value(meta.name) : nullptr;
      NodeTruth n;
      if (t && y) n = judge_node(*a, *d, *y, *t);
      if (n.judged) {
        ++judged;
        ok = n.ok;
        // Ours within the bound and the device outside it: the device is less accurate than
        // LibTorch's CPU there (cuDNN's RNNs, half-precision epilogues): reported, not ours.
        const bool device_only = n.device_only;
        if (device_only) {
          ok = true;
          if (first_device_only.empty()) first_device_only = node.name + " (" + node.op_type + ")";
        }
        std::snprintf(line, sizeof line, "  %-36s %-44s ours %s %s %s yardstick %s bound %s %s\n", name, op,
                      sci(n.ours).c_str(), o.device.c_str(), sci(n.device).c_str(), sci(n.yardstick).c_str(),
                      sci(n.bound).c_str(), !ok ? "DIVERGES" : device_only ? ("DEVICE-OUTSIDE-BOUND (" + o.device + ")").c_str() : "");
      } else {
        ++by_rtol;
        VerifyReport r = verify_outputs({*a}, {*d}, o.rtol, o.atol);
        ok = r.is_valid;
        const std::string why = criterion == "rtol" || n.note.empty() ? "" : " (rtol/atol: " + n.note + ")";
        std::snprintf(line, sizeof line, "  %-36s %-44s max_diff %.3e%s %s\n", name, op, r.max_diff, why.c_str(),
                      ok ? "" : "DIVERGES");
      }
      out << line;
      if (!ok && first_divergent.empty()) first_divergent = node.name + " (" + node.op_type + ")";
    }
  }
  out << judged + by_rtol << " node outputs compared (" << judged << " against float64, " << by_rtol
      << " with rtol/atol), " << skipped << " not compared\n";
  if (!first_device_only.empty())
    out << "parity: LibTorch-" << o.device << " outside the float64 bound (ours within) first at: " << first_device_only
        << "\n";
  if (first_divergent.empty()) {
    out << "parity: no divergence\n";
    return 0;
  }
  out << "parity: first divergent node: " << first_divergent << "\n";
  return 1;
}
#endif

}  // namespace tir::cli
