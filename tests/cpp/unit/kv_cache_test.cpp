// The kv_cache fixture (tools/export_fixture.py KVCache): forward does
// `k_cache.index_copy_(2, pos, proj(x))` on a registered buffer and returns
// `(k_cache * 1.0).sum(-1)`. The training IR writes into b_k_cache in place, so
// the cache must persist across Session::run calls (io.safetensors = step 1,
// io_step2.safetensors = step 2 recorded from the same nn.Module afterwards).
// The decomposed IR clones the buffer first: the update is dropped.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/json_loader.h"
#include "runtime/session.h"
#include "test_util.h"
#include "verify/verify.h"
#include "weights/torch_save.h"

namespace tir {
namespace {

using test::values_f32;
using ::testing::ElementsAre;

struct Step {
  std::vector<Tensor> inputs;
  Tensor expected;
};

struct KvFixture {
  Model model;
  TensorMap weights;
  Step step1, step2;
};

KvFixture load_fixture(const std::string& flavor) {
  const std::string dir = test::fixtures_dir() + "/models/kv_cache/" + flavor + "/";
  KvFixture f;
  f.model = load_model_file(dir + "model.json");
  f.weights = read_weights_file(dir + "weights.safetensors");
  auto step = [&](const std::string& file) {
    const TensorMap io = read_weights_file(dir + file);
    Step s;
    for (const char* name : {"input.x", "input.pos"}) {
      const Tensor* t = io.find(name);
      if (!t) throw std::runtime_error(file + " lacks " + name);
      s.inputs.push_back(*t);
    }
    s.expected = *io.find("output.0");
    return s;
  };
  f.step1 = step("io.safetensors");
  f.step2 = step("io_step2.safetensors");
  return f;
}

::testing::AssertionResult matches(const Tensor& actual, const Tensor& expected) {
  const VerifyReport r = verify_outputs({actual}, {expected}, 1e-5, 1e-5);
  if (r.is_valid) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << format_report(r);
}

// proj(x)[h][o] = sum_i x[h][i] * W[o][i] + b[o], from the fixture's weights.
std::vector<float> projection(const KvFixture& f, const Tensor& x) {
  const auto w = values_f32(*f.weights.find("proj.weight")), b = values_f32(*f.weights.find("proj.bias"));
  const auto xv = values_f32(x);  // [1, 2, 1, 4]
  std::vector<float> out(8);
  for (int h = 0; h < 2; ++h)
    for (int o = 0; o < 4; ++o) {
      float acc = b[size_t(o)];
      for (int i = 0; i < 4; ++i) acc += xv[size_t(h * 4 + i)] * w[size_t(o * 4 + i)];
      out[size_t(h * 4 + o)] = acc;
    }
  return out;
}

// cache [1, 2, 8, 4]: the 4 values at (head h, position p).
std::vector<float> cache_row(const Tensor& cache, int h, int p) {
  const auto v = values_f32(cache);
  const size_t at = size_t((h * 8 + p) * 4);
  return {v.begin() + std::ptrdiff_t(at), v.begin() + std::ptrdiff_t(at + 4)};
}

TEST(KvCache, TrainingIrPersistsTheCacheAcrossRuns) {
  const KvFixture f = load_fixture("torch2.14-training");
  bool writes_buffer = false;
  for (const auto& n : f.model.nodes)
    writes_buffer |= n.op_type == "aten.index_copy_.default" && n.inputs[0].name == "b_k_cache";
  ASSERT_TRUE(writes_buffer) << "the training IR should write into b_k_cache in place";

  Session s(f.model);
  s.bind(f.weights);
  EXPECT_THAT(s.mutated_buffers(), ElementsAre("k_cache"));
  EXPECT_TRUE(matches(s.run(f.step1.inputs)[0], f.step1.expected));
  const Tensor after1 = s.buffer_value("k_cache");
  EXPECT_TRUE(matches(s.run(f.step2.inputs)[0], f.step2.expected));  // needs step 1's write
  const Tensor after2 = s.buffer_value("k_cache");

  // Step 1 (pos 3) then step 2 (pos 5) wrote proj(x) rows; everything else stays zero.
  const auto p1 = projection(f, f.step1.inputs[0]), p2 = projection(f, f.step2.inputs[0]);
  for (int h = 0; h < 2; ++h) {
    for (int p = 0; p < 8; ++p) {
      const auto r1 = cache_row(after1, h, p), r2 = cache_row(after2, h, p);
      for (int o = 0; o < 4; ++o) {
        const float want1 = p == 3 ? p1[size_t(h * 4 + o)] : 0.0f;
        const float want2 = p == 3 ? want1 : p == 5 ? p2[size_t(h * 4 + o)] : 0.0f;
        EXPECT_NEAR(r1[size_t(o)], want1, 1e-5) << "after step 1, head " << h << " pos " << p;
        EXPECT_NEAR(r2[size_t(o)], want2, 1e-5) << "after step 2, head " << h << " pos " << p;
      }
    }
  }
}

TEST(KvCache, ResetBuffersForgetsEarlierSteps) {
  const KvFixture f = load_fixture("torch2.14-training");
  Session s(f.model);
  s.bind(f.weights);
  s.run(f.step1.inputs);
  const Tensor persisted = s.run(f.step2.inputs)[0];
  s.reset_buffers();
  for (float v : values_f32(s.buffer_value("k_cache"))) ASSERT_EQ(v, 0.0f);
  const Tensor alone = s.run(f.step2.inputs)[0];
  EXPECT_FALSE(matches(alone, persisted));
  // Same as step 2 on a fresh session, and position 3 (step 1's) is empty again.
  Session fresh(f.model);
  fresh.bind(f.weights);
  EXPECT_TRUE(matches(alone, fresh.run(f.step2.inputs)[0]));
  const auto a = values_f32(alone), p = values_f32(persisted);  // [1, 2, 8]
  for (int h = 0; h < 2; ++h) {
    EXPECT_EQ(a[size_t(h * 8 + 3)], 0.0f);
    EXPECT_NE(p[size_t(h * 8 + 3)], 0.0f);
    EXPECT_EQ(a[size_t(h * 8 + 5)], p[size_t(h * 8 + 5)]);
  }
}

TEST(KvCache, DecomposedIrDropsTheBufferUpdate) {
  // make_fx + functionalize (torch 1.13) turned the write into clone + index_copy_
  // on the clone: no buffer is mutated, so step 2 sees an empty cache and does
  // not reproduce the real module's second output.
  const KvFixture f = load_fixture("torch1.13-decomposed");
  Session s(f.model);
  s.bind(f.weights);
  EXPECT_TRUE(s.mutated_buffers().empty());
  EXPECT_TRUE(matches(s.run(f.step1.inputs)[0], f.step1.expected));
  const Tensor step2 = s.run(f.step2.inputs)[0];
  EXPECT_FALSE(matches(step2, f.step2.expected));
  Session fresh(f.model);
  fresh.bind(f.weights);
  EXPECT_TRUE(matches(step2, fresh.run(f.step2.inputs)[0]));
}

}  // namespace
}  // namespace tir
