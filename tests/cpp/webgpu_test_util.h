// Shared by the WebGPU plan and streaming tests.
#pragma once
#include <string>

#include "runtime/session.h"

namespace tir::test {

// The options the bindings compile a WebGPU model's session with (bindings/embind.cpp): fusion
// on (fused epilogues run in the GPU producer's store), no in-place donation.
inline SessionOptions webgpu_session_options() {
  SessionOptions o;
  o.update_in_place = false;
  return o;
}

// IR JSON pieces for inline graphs.
inline std::string ir_meta(const std::string& name, const std::string& shape, const std::string& dtype,
                           const std::string& producer = "") {
  return R"({"name": ")" + name + R"(", "shape": )" + shape + R"(, "dtype": ")" + dtype + "\"" +
         (producer.empty() ? "" : R"(, "producer_node": ")" + producer + "\"") + "}";
}
inline std::string ir_node(const std::string& name, const std::string& op, const std::string& in,
                           const std::string& out, const std::string& attrs = "{}") {
  return R"({"name": ")" + name + R"(", "op_type": ")" + op + R"(", "inputs": [)" + in + R"(], "outputs": [)" + out +
         R"(], "attrs": )" + attrs + "}";
}

// IR of a graph whose GPU-capable node reads an int64 constant past int32, known only once
// folded at prepare: out = where(x > 0, table, full(2^40)), table an int64 buffer (weight
// "table" [5]), x float32 [5]. The GPU holds int64 as int32, so the where must run on WASM.
inline std::string int64_past_int32_ir() {
  const std::string nodes =
      ir_node("gt", "aten.gt.Scalar", ir_meta("x", "[5]", "float32", "x"), ir_meta("gt", "[5]", "bool"),
              R"({"other": 0})") + "," +
      ir_node("full", "aten.full.default", "", ir_meta("full", "[5]", "int64"),
              R"({"size": [5], "fill_value": 1099511627776, "dtype": "torch.int64"})") + "," +
      ir_node("where", "aten.where.self",
              ir_meta("gt", "[5]", "bool", "gt") + "," + ir_meta("b_table", "[5]", "int64") + "," +
                  ir_meta("full", "[5]", "int64", "full"),
              ir_meta("where", "[5]", "int64"));
  return R"({"model_name": "int64_past_int32", "graph_inputs": [)" + ir_meta("x", "[5]", "float32") +
         R"(], "graph_outputs": [)" + ir_meta("where", "[5]", "int64", "where") + R"(], "weights": [)" +
         ir_meta("table", "[5]", "int64") + R"(], "weight_name_mapping": {"b_table": "table"}, "nodes": [)" + nodes +
         "]}";
}

}  // namespace tir::test
