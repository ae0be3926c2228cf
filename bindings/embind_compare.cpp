// judgeNode: the per-node float64 criterion (verify/truth.h, judge_node) for the package's
// provider comparison (npm/src/lib/compare.ts): one node output as the device under test (WebGPU)
// and the yardstick (WASM, float32) computed it, against the float64 run's.
#include <emscripten/bind.h>

#include "glue.h"
#include "verify/truth.h"

namespace {

using emscripten::val;

// Each argument {dtype, shape, bytes}; returns {judged, device, yardstick, scale, bound, ok, note}.
val judge_node(const val& device, const val& yardstick, const val& truth) {
  return tir_glue::or_throw<val>([&] {
    auto tensor = [](const char* what, const val& v) {
      return tir_glue::tensor_from_js<tir::ExecutionError>(what, v["dtype"].as<std::string>(), v["shape"], v["bytes"]);
    };
    const tir::Tensor y = tensor("yardstick", yardstick);
    const tir::NodeTruth r = tir::judge_node(y, tensor("device", device), y, tensor("truth", truth));
    val o = val::object();
    o.set("judged", r.judged);
    o.set("device", r.device);
    o.set("yardstick", r.yardstick);
    o.set("scale", r.scale);
    o.set("bound", r.bound);
    o.set("ok", r.ok);
    o.set("note", r.note);
    return o;
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(torch_ir_wasm_compare) { emscripten::function("judgeNode", &judge_node); }
