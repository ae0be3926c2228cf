// runtime/inplace.cpp: out-of-place "rewrite a region of self" ops run in
// self's memory when nothing reads self afterwards; a graph input's slot is
// then donated, and Session::carry feeds the output back for free.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/errors.h"
#include "ir/json_loader.h"
#include "runtime/session.h"
#include "test_util.h"

using namespace tir;
using namespace tir::test;

namespace {

// cache [1,2,5,3] (input 0), pos [1] int64 (input 1), new [1,2,1,3] (input 2):
//   upd = index_copy(cache, 2, pos, new); y = upd * 2 (+ `extra` nodes); outputs [upd, y, ...].
std::string cache_ir(const std::string& extra_nodes = "", const std::string& extra_outputs = "") {
  auto t = [](const char* name, const char* shape, const char* dtype, const char* producer) {
    return std::string(R"({"name": ")") + name + R"(", "shape": )" + shape + R"(, "dtype": ")" + dtype +
           R"(", "producer_node": ")" + producer + R"("})";
  };
  const std::string cache = t("cache", "[1, 2, 5, 3]", "float32", "cache");
  return std::string(R"({"model_name": "t", "graph_inputs": [)") +
         R"({"name": "cache", "shape": [1, 2, 5, 3], "dtype": "float32"},)" +
         R"({"name": "pos", "shape": [1], "dtype": "int64"},)" +
         R"({"name": "new", "shape": [1, 2, 1, 3], "dtype": "float32"}],)" +
         R"("graph_outputs": [{"name": "upd", "shape": [1, 2, 5, 3], "dtype": "float32"},)" +
         R"({"name": "y", "shape": [1, 2, 5, 3], "dtype": "float32"})" + extra_outputs + "]," +
         R"("weights": [], "weight_name_mapping": {}, "nodes": [)" +
         R"({"name": "upd", "op_type": "aten.index_copy.default", "inputs": [)" + cache + "," +
         t("pos", "[1]", "int64", "pos") + "," + t("new", "[1, 2, 1, 3]", "float32", "new") +
         R"(], "outputs": [{"name": "upd", "shape": [1, 2, 5, 3], "dtype": "float32"}], "attrs": {"dim": 2}},)" +
         R"({"name": "y", "op_type": "aten.mul.Tensor", "inputs": [)" + t("upd", "[1, 2, 5, 3]", "float32", "upd") +
         R"(], "outputs": [{"name": "y", "shape": [1, 2, 5, 3], "dtype": "float32"}], "attrs": {"other": 2.0}})" +
         extra_nodes + "]}";
}

std::vector<float> iota(size_t n, float start) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = start + float(i);
  return v;
}

// Expected index_copy result: cache with slot `pos` of dim 2 replaced by `new`.
std::vector<float> expected_update(const std::vector<float>& cache, const std::vector<float>& fresh, int64_t pos) {
  std::vector<float> r = cache;
  for (int h = 0; h < 2; ++h)
    for (int d = 0; d < 3; ++d) r[size_t(h * 15 + pos * 3 + d)] = fresh[size_t(h * 3 + d)];
  return r;
}

// Writes a tensor's values into a session input slot.
void fill(const Tensor& slot, const Tensor& value) { copy_into(slot, value); }

}  // namespace

TEST(InPlace, DonatedInputSlotIsUpdatedAndCarriedForFree) {
  for (bool in_place : {true, false}) {
    SessionOptions o;
    o.update_in_place = in_place;
    Session s(load_model_json(cache_ir()), o);
    s.bind({});
    std::vector<float> cache = iota(30, 0);
    fill(s.input_slot(0), tensor_f32({1, 2, 5, 3}, cache));
    for (int64_t step = 0; step < 5; ++step) {
      const std::vector<float> fresh = iota(6, 100.0f * float(step + 1));
      fill(s.input_slot(1), tensor_i64({1}, {step}));
      fill(s.input_slot(2), tensor_f32({1, 2, 1, 3}, fresh));
      s.run_slots();
      cache = expected_update(cache, fresh, step);
      EXPECT_EQ(values_f32(s.output_views()[0]), cache) << "step " << step;
      std::vector<float> twice = cache;
      for (float& v : twice) v *= 2;
      EXPECT_EQ(values_f32(s.output_views()[1]), twice);
      // Donated: the output lives in the input slot, so carrying copies nothing.
      EXPECT_EQ(s.carry(0, 0), in_place ? 0u : 30 * sizeof(float));
      EXPECT_EQ(values_f32(s.input_slot(0)), cache);
    }
  }
}

TEST(InPlace, NotWhenSelfIsReadAfterTheUpdate) {
  // z = cache + 1 after the index_copy still needs the old cache: no donation.
  const std::string z = R"(,{"name": "z", "op_type": "aten.add.Tensor", "inputs": [{"name": "cache", "shape": [1, 2, 5, 3], "dtype": "float32", "producer_node": "cache"}], "outputs": [{"name": "z", "shape": [1, 2, 5, 3], "dtype": "float32"}], "attrs": {"other": 1.0}})";
  Session s(load_model_json(cache_ir(z, R"(,{"name": "z", "shape": [1, 2, 5, 3], "dtype": "float32"})")));
  s.bind({});
  const std::vector<float> cache = iota(30, 0), fresh = iota(6, 50);
  auto out = s.run({tensor_f32({1, 2, 5, 3}, cache), tensor_i64({1}, {4}), tensor_f32({1, 2, 1, 3}, fresh)});
  EXPECT_EQ(values_f32(out[0]), expected_update(cache, fresh, 4));
  std::vector<float> plus1 = cache;
  for (float& v : plus1) v += 1;
  EXPECT_EQ(values_f32(out[2]), plus1);
  EXPECT_GT(s.carry(0, 0), 0u);
}

TEST(InPlace, CarryChecksShapes) {
  Session s(load_model_json(cache_ir()));
  s.bind({});
  EXPECT_THROW(s.carry(0, 1), ExecutionError);  // [1,2,5,3] float32 into pos [1] int64
  EXPECT_THROW(s.carry(5, 0), ExecutionError);
}

TEST(InPlace, InputSlotsKeepTheirValuesAcrossRuns) {
  // x is dead after the first node, so before slots were pinned its memory
  // was reused by z (same size); callers that rewrite only part of a slot
  // (one mask entry per decode step) then read garbage.
  const std::string ir = R"({"model_name": "t", "graph_inputs": [{"name": "x", "shape": [64], "dtype": "float32"}],
    "graph_outputs": [{"name": "z", "shape": [64], "dtype": "float32"}], "weights": [], "weight_name_mapping": {},
    "nodes": [{"name": "y", "op_type": "aten.mul.Tensor", "inputs": [{"name": "x", "shape": [64], "dtype": "float32", "producer_node": "x"}], "outputs": [{"name": "y", "shape": [64], "dtype": "float32"}], "attrs": {"other": 2.0}},
              {"name": "w", "op_type": "aten.add.Tensor", "inputs": [{"name": "y", "shape": [64], "dtype": "float32", "producer_node": "y"}], "outputs": [{"name": "w", "shape": [64], "dtype": "float32"}], "attrs": {"other": 1.0}},
              {"name": "z", "op_type": "aten.mul.Tensor", "inputs": [{"name": "w", "shape": [64], "dtype": "float32", "producer_node": "w"}], "outputs": [{"name": "z", "shape": [64], "dtype": "float32"}], "attrs": {"other": 3.0}}]})";
  Session s(load_model_json(ir));
  s.bind({});
  const std::vector<float> x = iota(64, 1);
  fill(s.input_slot(0), tensor_f32({64}, x));
  for (int run = 0; run < 2; ++run) {
    s.run_slots();
    EXPECT_EQ(values_f32(s.input_slot(0)), x) << "run " << run;
    EXPECT_EQ(s.output_views()[0].data<float>()[1], (2 * 2.0f + 1) * 3);
  }
}
