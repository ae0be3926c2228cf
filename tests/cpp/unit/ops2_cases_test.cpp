// Replays the single-op cases that tools/gen_ops2_cases.py computed with torch
// 2.x (tests/fixtures/ops2/<op>/<case>.json) for ops LibTorch 1.13 lacks: each
// case's one-node IR runs through a Session on the case's inputs, and every
// output must match torch's shape and dtype, and its values (allclose with the
// case's rtol/atol, NaN positions equal; exact for ints/bool) unless the case
// marks them uninitialized (data null).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "core/dispatch.h"
#include "core/json.h"
#include "ir/json_loader.h"
#include "runtime/session.h"
#include "tensor_compare.h"
#include "test_util.h"

namespace tir {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> case_files() {
  std::vector<std::string> files;
  const fs::path root = fs::path(test::fixtures_dir()) / "ops2";
  if (!fs::exists(root)) return files;
  // Only ops2/<namespace>.<op>/*.json (aten, and the quantization ops of torch.ao and torchao):
  // ops2/elem and ops2/datadep hold other formats, replayed by ops_elementwise_math_test.cpp and
  // ops_datadep_test.cpp.
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    const std::string dir = e.path().parent_path().filename().string();
    if (e.is_regular_file() && e.path().extension() == ".json" &&
        (dir.rfind("aten.", 0) == 0 || dir.rfind("quantized_decomposed.", 0) == 0 || dir.rfind("torchao.", 0) == 0))
      files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

Shape shape_of(const json::Value& v) {
  Shape s;
  for (const json::Value& d : v["shape"]) s.push_back(d.as_int64());
  return s;
}

// A tensor from {dtype, shape, data}: data holds row-major numbers (bools as 0/1).
Tensor tensor_of(const json::Value& v) {
  const DType dt = parse_dtype(v["dtype"].string());
  const Shape shape = shape_of(v);
  Tensor d = make_owned(DType::F64, shape);
  const json::Value data = v["data"];
  EXPECT_EQ(int64_t(data.size()), d.numel()) << "case data size";
  int64_t k = 0;
  for (const json::Value& x : data) {
    if (k < d.numel()) d.data<double>()[k] = x.as_double();
    ++k;
  }
  if (!is_floating(dt)) {  // exact for int64 beyond 2^53: re-read as integers
    Tensor i = make_owned(DType::I64, shape);
    k = 0;
    for (const json::Value& x : data) {
      if (k < i.numel()) i.data<int64_t>()[k] = x.is_number() && x.is_int64() ? x.as_int64() : int64_t(x.as_double());
      ++k;
    }
    return to_dtype_owned(i, dt);
  }
  return to_dtype_owned(d, compute_dtype(dt));
}

TEST(Ops2Cases, ReplayTorch2Cases) {
  const std::vector<std::string> files = case_files();
  ASSERT_FALSE(files.empty()) << "no cases under " << test::fixtures_dir() << "/ops2";
  std::set<std::string> ops;
  for (const std::string& path : files) {
    SCOPED_TRACE(path);
    const std::string text = test::read_text(path);
    const json::Document doc = json::Document::parse(text);
    const json::Value c = doc.root();
    ASSERT_EQ(c["format"].string(), "tir-ops2-case/1");
    ops.insert(c["op"].string());
    std::vector<Tensor> inputs;
    for (const json::Value& in : c["inputs"]) inputs.push_back(tensor_of(in));
    std::vector<Tensor> actual;
    try {
      Session session(load_model_json(c["ir"].to_json(), path));
      actual = session.run(inputs);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "engine failed: " << e.what();
      continue;
    }
    const json::Value outs = c["outputs"];
    ASSERT_EQ(actual.size(), outs.size());
    const double rtol = c["rtol"].as_double(), atol = c["atol"].as_double();
    size_t k = 0;
    for (const json::Value& o : outs) {
      SCOPED_TRACE("output " + std::to_string(k));
      const Tensor& got = actual[k++];
      EXPECT_EQ(shape_to_string(got.shape), shape_to_string(shape_of(o)));
      EXPECT_EQ(dtype_name(got.dtype), dtype_name(compute_dtype(parse_dtype(o["dtype"].string()))));
      if (o["data"].is_null() || got.shape != shape_of(o)) continue;
      EXPECT_TRUE(test::compare_tensors(tensor_of(o), got, rtol, atol, "output"));
    }
  }
  // The ops whose torch-2 cases are committed (a missing directory fails here).
  for (const char* op : {"aten._batch_norm_no_update.default", "aten._batch_norm_with_update.default",
                         "aten._scaled_dot_product_efficient_attention.default",
                         "aten._scaled_dot_product_cudnn_attention.default", "aten.empty_permuted.default",
                         "quantized_decomposed.quantize_per_tensor.default", "quantized_decomposed.quantize_per_tensor.tensor",
                         "quantized_decomposed.quantize_per_tensor.tensor2", "quantized_decomposed.dequantize_per_tensor.default",
                         "quantized_decomposed.dequantize_per_tensor.tensor", "quantized_decomposed.dequantize_per_tensor.tensor2",
                         "quantized_decomposed.choose_qparams.tensor", "quantized_decomposed.choose_qparams_symmetric.tensor",
                         "quantized_decomposed.quantize_per_channel.default", "quantized_decomposed.dequantize_per_channel.default",
                         "quantized_decomposed.choose_qparams_per_token.default",
                         "quantized_decomposed.choose_qparams_per_token_asymmetric.default",
                         "quantized_decomposed.quantize_per_token.default", "quantized_decomposed.dequantize_per_token.default",
                         "quantized_decomposed.quantize_per_channel_group.default",
                         "quantized_decomposed.dequantize_per_channel_group.default", "torchao.choose_qparams_affine.default",
                         "torchao.quantize_affine.default", "torchao.dequantize_affine.default"})
    EXPECT_TRUE(ops.count(op)) << "no cases for " << op;
}

// The replay itself can fail: a wrong expected value is reported.
TEST(Ops2Cases, ComparisonDetectsDifferences) {
  const Tensor a = test::tensor_f32({3}, {1.0f, 2.0f, NAN});
  EXPECT_TRUE(test::compare_tensors(a, test::tensor_f32({3}, {1.0f, 2.0f, NAN}), 1e-6, 1e-6, "a"));
  EXPECT_FALSE(test::compare_tensors(a, test::tensor_f32({3}, {1.0f, 2.1f, NAN}), 1e-6, 1e-6, "a"));
  EXPECT_FALSE(test::compare_tensors(a, test::tensor_f32({3}, {1.0f, 2.0f, 0.0f}), 1e-6, 1e-6, "a"));
}

}  // namespace
}  // namespace tir
