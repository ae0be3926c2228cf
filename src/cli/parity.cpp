#include "cli/parity.h"

#include <cmath>
#include <cstdio>

#include "core/errors.h"
#include "runtime/session.h"
#include "verify/verify.h"
#ifdef TIR_HAVE_LIBTORCH
#include "torch_backend/reference.h"
#endif

namespace tir::cli {

#ifndef TIR_HAVE_LIBTORCH
std::vector<Tensor> run_reference(const Model&, const TensorMap&, const TensorMap&, const std::vector<Tensor>&,
                                  const std::string&) {
  throw Error("this torchir was built without the LibTorch backend");
}
int run_parity(const Model&, const TensorMap&, const TensorMap&, const std::vector<Tensor>&, const ParityOptions&,
               std::ostream&) {
  throw Error("this torchir was built without the LibTorch backend");
}
#else
std::vector<Tensor> run_reference(const Model& model, const TensorMap& weights, const TensorMap& constants,
                                  const std::vector<Tensor>& inputs, const std::string& device) {
  ReferenceRunner ref(model, weights, constants, device);
  return ref.run(inputs);
}

namespace {
// empty / empty_like / new_empty / empty_strided leave their values unspecified (whatever
// the allocator hands out): both backends are right whatever they hold, and a consumer such
// as diffusers' baddbmm(empty(...), q, k, beta=0) never reads them. Not compared.
bool unspecified_values(const std::string& op_type) {
  for (const char* p : {"aten.empty.", "aten.empty_like.", "aten.new_empty.", "aten.empty_strided."})
    if (op_type.rfind(p, 0) == 0) return true;
  return false;
}
}  // namespace

int run_parity(const Model& model, const TensorMap& weights, const TensorMap& constants,
               const std::vector<Tensor>& inputs, const ParityOptions& o, std::ostream& out) {
  SessionOptions so;
  so.limits = o.limits;
  so.keep_intermediates = true;
  Session native(model, so);
  native.bind(weights, constants);
  native.run(inputs);
  ReferenceRunner ref(model, weights, constants, o.device);
  ref.set_keep_intermediates(true);
  ref.run(inputs);
  out << "LibTorch " << libtorch_version() << " on " << o.device << " vs native, rtol=" << o.rtol
      << " atol=" << o.atol << "\n";
  std::string first_divergent;
  size_t compared = 0;
  char line[512];
  for (const auto& node : model.nodes) {
    for (const auto& meta : node.outputs) {
      const Tensor* a = native.value(meta.name);
      const Tensor* b = ref.value(meta.name);
      if (!a || !b) continue;
      if (unspecified_values(node.op_type)) {
        std::snprintf(line, sizeof line, "  %-36s %-44s not compared (values unspecified)\n", meta.name.c_str(),
                      node.op_type.c_str());
        out << line;
        continue;
      }
      VerifyReport r = verify_outputs({*a}, {*b}, o.rtol, o.atol);
      ++compared;
      std::snprintf(line, sizeof line, "  %-36s %-44s max_diff %.3e %s\n", meta.name.c_str(), node.op_type.c_str(),
                    r.max_diff, r.is_valid ? "" : "DIVERGES");
      out << line;
      if (!r.is_valid && first_divergent.empty()) first_divergent = node.name + " (" + node.op_type + ")";
    }
  }
  out << compared << " node outputs compared\n";
  if (first_divergent.empty()) {
    out << "parity: no divergence\n";
    return 0;
  }
  out << "parity: first divergent node: " << first_divergent << "\n";
  return 1;
}
#endif

}  // namespace tir::cli
