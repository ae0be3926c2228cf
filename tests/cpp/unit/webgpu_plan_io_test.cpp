// GPU-resident graph I/O in the WebGPU plan (Session::webgpu_plan with gpu_inputs /
// gpu_outputs), as the package's GPU tensors use it: a resident input is never uploaded (a WASM
// reader downloads it), a kept output whose GPU storage is its CPU layout is listed in
// "kept_outputs" and not downloaded, and any other kept output is downloaded too.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/errors.h"
#include "core/json.h"
#include "ir/json_loader.h"
#include "runtime/session.h"
#include "test_util.h"
#include "webgpu_test_util.h"

namespace tir {
namespace {

// x [4, 3] -> y = x * 2 (dense) and t = y^T (a view of y), both graph outputs.
std::string io_ir() {
  auto t = [](const char* name, const char* shape) {
    return std::string(R"({"name": ")") + name + R"(", "shape": )" + shape + R"(, "dtype": "float32", "producer_node": ")" +
           name + R"("})";
  };
  return std::string(R"({"model_name": "io", "graph_inputs": [{"name": "x", "shape": [4, 3], "dtype": "float32"}],)") +
         R"("graph_outputs": [{"name": "y", "shape": [4, 3], "dtype": "float32"},)" +
         R"({"name": "t", "shape": [3, 4], "dtype": "float32"}],)" +
         R"("weights": [], "weight_name_mapping": {}, "nodes": [)" +
         R"({"name": "y", "op_type": "aten.mul.Tensor", "inputs": [)" + t("x", "[4, 3]") +
         R"(], "outputs": [{"name": "y", "shape": [4, 3], "dtype": "float32"}], "attrs": {"other": 2.0}},)" +
         R"({"name": "t", "op_type": "aten.transpose.int", "inputs": [)" + t("y", "[4, 3]") +
         R"(], "outputs": [{"name": "t", "shape": [3, 4], "dtype": "float32"}], "attrs": {"dim0": 0, "dim1": 1}}]})";
}

std::vector<std::string> ops_of(const json::Value& plan) {
  std::vector<std::string> ops;
  for (const json::Value item : plan["program"]) ops.emplace_back(item["op"].str());
  return ops;
}

std::vector<int64_t> ints(const json::Value& list) {
  std::vector<int64_t> out;
  for (const json::Value v : list) out.push_back(v.as_int64());
  return out;
}

TEST(WebGpuPlanIO, ByDefaultInputsUploadAndOutputsDownload) {
  Session s(load_model_json(io_ir()), test::webgpu_session_options());
  s.bind({});
  const json::Document d = json::Document::parse(s.webgpu_plan());
  const std::vector<std::string> ops = ops_of(d.root());
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "upload"), 1);
  EXPECT_GE(std::count(ops.begin(), ops.end(), "download"), 1);
  EXPECT_TRUE(ints(d.root()["kept_outputs"]).empty());
}

TEST(WebGpuPlanIO, AResidentInputIsNeverUploadedAndADenseOutputIsKept) {
  Session s(load_model_json(io_ir()), test::webgpu_session_options());
  s.bind({});
  const json::Document d = json::Document::parse(s.webgpu_plan({}, {0}, {0, 1}));
  const json::Value plan = d.root();
  const std::vector<std::string> ops = ops_of(plan);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "upload"), 0);
  // y is kept as it is; t (y's transpose, a view) is not the GPU buffer's layout: listed out.
  EXPECT_EQ(ints(plan["kept_outputs"]), std::vector<int64_t>{0});
  const int64_t x = plan["inputs"].at(0).as_int64();
  EXPECT_TRUE(plan["values"].at(size_t(x))["resident"].as_bool());
  // t needs the CPU's copy of y: one download, and nothing else moves.
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "download"), 1);
  EXPECT_EQ(plan["placement"]["uploads"].as_int64(), 0);
}

TEST(WebGpuPlanIO, AGpuStepNamesItsOutputsValues) {
  Session s(load_model_json(io_ir()), test::webgpu_session_options());
  s.bind({});
  const json::Document d = json::Document::parse(s.webgpu_plan());
  int gpu_steps = 0;
  for (const json::Value item : d.root()["program"]) {
    if (item["op"].str() != "gpu") continue;
    ++gpu_steps;
    ASSERT_EQ(item["outputs"].size(), 1u) << item["node"].str();
    EXPECT_EQ(item["outputs"].at(0)["name"].str(), item["node"].str());
    EXPECT_GE(d.root()["values"].at(size_t(item["outputs"].at(0)["value"].as_int64()))["slot"].as_int64(), 0);
  }
  EXPECT_EQ(gpu_steps, 1);  // y; t is a view, listed as one
  ASSERT_EQ(d.root()["view_nodes"].size(), 1u);
  EXPECT_EQ(d.root()["view_nodes"].at(0).str(), "t");
}

TEST(WebGpuPlanIO, ABadIndexIsAnError) {
  Session s(load_model_json(io_ir()), test::webgpu_session_options());
  s.bind({});
  test::expect_throws_with<ExecutionError>([&] { s.webgpu_plan({}, {3}, {}); }, "no graph input 3");
  test::expect_throws_with<ExecutionError>([&] { s.webgpu_plan({}, {}, {2}); }, "no graph output 2");
}

}  // namespace
}  // namespace tir
