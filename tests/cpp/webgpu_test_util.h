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

// IR of a graph whose GPU-capable node reads an int64 constant past int32, known only once
// folded at prepare: out = where(x > 0, table, full(2^40)), table an int64 buffer (weight
// "table" [5]), x float32 [5]. The GPU holds int64 as int32, so the where must run on WASM.
inline std::string int64_past_int32_ir() {
  auto meta = [](const std::string& name, const std::string& dtype, const std::string& producer = "") {
    return R"({"name": ")" + name + R"(", "shape": [5], "dtype": ")" + dtype + "\"" +
           (producer.empty() ? "" : R"(, "producer_node": ")" + producer + "\"") + "}";
  };
  return R"({"model_name": "int64_past_int32", "graph_inputs": [)" + meta("x", "float32") +
         R"(], "graph_outputs": [)" + meta("where", "int64", "where") + R"(], "weights": [)" + meta("table", "int64") +
         R"(], "weight_name_mapping": {"b_table": "table"}, "nodes": [
    {"name": "gt", "op_type": "aten.gt.Scalar", "inputs": [)" + meta("x", "float32") + R"(],
     "outputs": [)" + meta("gt", "bool") + R"(], "attrs": {"other": 0}},
    {"name": "full", "op_type": "aten.full.default", "inputs": [], "outputs": [)" + meta("full", "int64") + R"(],
     "attrs": {"size": [5], "fill_value": 1099511627776, "dtype": "torch.int64"}},
    {"name": "where", "op_type": "aten.where.self", "inputs": [)" + meta("gt", "bool", "gt") + "," +
         meta("b_table", "int64") + "," + meta("full", "int64", "full") + R"(],
     "outputs": [)" + meta("where", "int64") + R"(], "attrs": {}}]})";
}

}  // namespace tir::test
