// A run allocates nothing (issue 21): every listed static zoo model, after a
// warm-up run, runs with no heap allocation on any thread, counted by the
// allocation counter (tools/alloc_count) linked into this binary: it replaces
// malloc and operator new for the whole process.
#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "alloc_count.h"
#include "core/thread_pool.h"
#include "ir/json_loader.h"
#include "model_fixtures.h"
#include "test_util.h"
#include "runtime/session.h"
#include "verify/verify.h"
#include "weights/torch_save.h"

namespace tir {
namespace {

void* volatile g_sink = nullptr;

// The counter counts: without this a broken hook would pass every test below.
TEST(AllocCounter, CountsAllocationsInsideTheWindowOnly) {
  std::vector<int>* before = new std::vector<int>(10);
  tir_alloc_window_begin();
  std::vector<int>* inside = new std::vector<int>(10);  // two allocations: the vector and its data
  void* raw = std::malloc(16);
  g_sink = inside;  // escapes: the compiler may not elide the allocations
  g_sink = inside->data();
  g_sink = raw;
  const int64_t counted = tir_alloc_window_end();
  std::free(raw);
  delete inside;
  delete before;
  EXPECT_EQ(counted, 3);
}

struct Case {
  std::string model;
  int threads;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.model << " threads=" << c.threads; }

class AllocFreeRun : public ::testing::TestWithParam<Case> {};

std::vector<Tensor> inputs_of(const TensorMap& io, const Model& model) {
  std::vector<Tensor> out;
  for (const auto& gi : model.graph_inputs) {
    const Tensor* t = io.find("input." + gi.name);
    if (!t) throw std::runtime_error("io file lacks input." + gi.name);
    out.push_back(*t);
  }
  return out;
}

std::vector<Tensor> owned_outputs(const Session& s) {
  std::vector<Tensor> out;
  for (const auto& o : s.output_views()) out.push_back(to_dtype_owned(o, o.dtype));
  return out;
}

// Warm-up runs, then three counted runs that must allocate nothing and give the warm-up's outputs.
void expect_alloc_free_runs(const std::string& id, const std::string& ir, const std::string& weights,
                            const std::string& io, int threads) {
  set_num_threads(threads);
  Model model = load_model_file(ir);
  const auto inputs = inputs_of(read_weights_file(io), model);
  Session session(std::move(model));
  session.bind(read_weights_file(weights));
  // Warm-up: the kernels' per-thread scratch (thread_local, grow-only) takes
  // its size in the first runs; with 2 threads a worker may first meet a
  // kernel's largest chunk in a later run, hence several.
  for (int r = 0; r < 5; ++r) {
    session.set_inputs(inputs);
    session.run_slots();
  }
  const std::vector<Tensor> warm = owned_outputs(session);
  // Zeroed outputs: the counted runs must compute them again.
  for (const auto& o : session.output_views()) copy_into(o, make_owned(o.dtype, o.shape));
  for (int r = 0; r < 3; ++r) {
    tir_alloc_window_begin();
    session.set_inputs(inputs);
    session.run_slots();
    EXPECT_EQ(tir_alloc_window_end(), 0) << id << " at " << threads << " thread(s), counted run " << r;
  }
  const VerifyReport rep = verify_outputs(owned_outputs(session), warm, 0, 0);
  EXPECT_TRUE(rep.is_valid) << id << ": the counted runs' outputs differ from the warm-up's\n" << format_report(rep);
  set_num_threads(1);
}

TEST_P(AllocFreeRun, RunAllocatesNothing) {
  const Case& c = GetParam();
  const std::string id = c.model + "/torch1.13-decomposed";
  const test::ModelFixture* f = nullptr;
  const auto fixtures = test::model_fixtures();
  for (const auto& fx : fixtures)
    if (fx.id == id) f = &fx;
  ASSERT_NE(f, nullptr) << id << " is not a committed fixture";
  if (f->weights.empty() || f->io.empty()) GTEST_SKIP() << id << ": weights/io not generated (run tools/make_fixtures.sh)";
  expect_alloc_free_runs(id, f->ir, f->weights, f->io, c.threads);
}

// PyTorch's quantized models (tests/fixtures/quantized, committed with their weights): the
// quantization ops' reference kernels and the integer linears allocate nothing per run either.
class AllocFreeQuantizedRun : public ::testing::TestWithParam<Case> {};

TEST_P(AllocFreeQuantizedRun, RunAllocatesNothing) {
  const Case& c = GetParam();
  const std::string dir = test::fixtures_dir() + "/quantized/" + c.model + "/";
  expect_alloc_free_runs("quantized/" + c.model, dir + "model.json", dir + "weights.safetensors",
                         dir + "io.safetensors", c.threads);
}

// resnet18 runs at 1 thread only: with 2, a worker's thread_local kernel
// scratch (gemm's B blocks, Winograd's tiles) may still grow in a later run,
// the first time that worker takes a kernel's largest chunk (not yet arena
// workspace; issue 21).
std::vector<Case> cases() {
  std::vector<Case> out;
  for (const char* m : {"small_cnn", "resnet18", "bert_encoder", "vit_tiny", "gpt2_decoder", "llama_decoder"})
    for (int t : {1, 2})
      if (t == 1 || std::string(m) != "resnet18") out.push_back({m, t});
  return out;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return info.param.model + "_t" + std::to_string(info.param.threads);
}

INSTANTIATE_TEST_SUITE_P(StaticZoo, AllocFreeRun, ::testing::ValuesIn(cases()), case_name);

std::vector<Case> quantized_cases() {
  std::vector<Case> out;
  // Not the llama fixtures yet: their torch 2.14 graphs' scaled_dot_product_attention works out its
  // batch layout and reshape copies their views on every run (float ops, not the quantization).
  for (const char* m : {"mlp_pt2e_static", "mlp_pt2e_dynamic", "mlp_int4_weight_only", "mlp_8da4w", "cnn_pt2e_static",
                        "resnet_pt2e_static", "bert_pt2e_dynamic", "bert_8da4w"})
    for (int t : {1, 2}) out.push_back({m, t});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Quantized, AllocFreeQuantizedRun, ::testing::ValuesIn(quantized_cases()), case_name);

}  // namespace
}  // namespace tir
