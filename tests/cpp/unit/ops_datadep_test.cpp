// Data-dependent sizes end to end (runtime/dynamic.cpp): graphs whose
// nonzero / masked_select / bool-mask index / unique sizes differ from the
// IR's recorded ones are re-planned per run; static graphs keep their plan.
// Also the ops LibTorch 1.13 lacks (asserts, sym_constrain_range_for_size) and
// unique with NaN, replayed from torch 2.14 cases (tools/ops2_datadep.py ->
// tests/fixtures/ops2/datadep/cases.json), and the error messages.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/errors.h"
#include "core/json.h"
#include "ir/json_loader.h"
#include "op_test_util.h"
#include "runtime/session.h"
#include "test_util.h"
#include "verify/verify.h"
#include "weights/torch_save.h"

using namespace tir;
using namespace tir::test;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

// x [5, 4] f32, m [5] bool -> sel = x[m] (index.Tensor, recorded [2, 4]),
// s = sel.sum(0) [4], nz = nonzero(m) (recorded [2, 1]), ms = masked_select(x, m[:, None]) (recorded [8]),
// n = ms.sum() []; outputs sel, s, nz, n.
const char* kGraph = R"({"model_name": "dd", "graph_inputs": [
  {"name": "x", "shape": [5, 4], "dtype": "float32"}, {"name": "m", "shape": [5], "dtype": "bool"}],
 "graph_outputs": [{"name": "sel", "shape": [2, 4], "dtype": "float32"}, {"name": "s", "shape": [4], "dtype": "float32"},
                   {"name": "nz", "shape": [2, 1], "dtype": "int64"}, {"name": "n", "shape": [], "dtype": "float32"}],
 "weights": [], "weight_name_mapping": {}, "nodes": [
  {"name": "sel", "op_type": "aten.index.Tensor", "inputs": [
     {"name": "x", "shape": [5, 4], "dtype": "float32", "producer_node": "x"},
     {"name": "m", "shape": [5], "dtype": "bool", "producer_node": "m"}],
   "outputs": [{"name": "sel", "shape": [2, 4], "dtype": "float32"}], "attrs": {"_tensor_list_sizes": [1]}},
  {"name": "s", "op_type": "aten.sum.dim_IntList", "inputs": [
     {"name": "sel", "shape": [2, 4], "dtype": "float32", "producer_node": "sel"}],
   "outputs": [{"name": "s", "shape": [4], "dtype": "float32"}], "attrs": {"dim": [0]}},
  {"name": "nz", "op_type": "aten.nonzero.default", "inputs": [
     {"name": "m", "shape": [5], "dtype": "bool", "producer_node": "m"}],
   "outputs": [{"name": "nz", "shape": [2, 1], "dtype": "int64"}], "attrs": {}},
  {"name": "m2", "op_type": "aten.unsqueeze.default", "inputs": [
     {"name": "m", "shape": [5], "dtype": "bool", "producer_node": "m"}],
   "outputs": [{"name": "m2", "shape": [5, 1], "dtype": "bool"}], "attrs": {"dim": 1}},
  {"name": "ms", "op_type": "aten.masked_select.default", "inputs": [
     {"name": "x", "shape": [5, 4], "dtype": "float32", "producer_node": "x"},
     {"name": "m2", "shape": [5, 1], "dtype": "bool", "producer_node": "m2"}],
   "outputs": [{"name": "ms", "shape": [8], "dtype": "float32"}], "attrs": {}},
  {"name": "n", "op_type": "aten.sum.default", "inputs": [
     {"name": "ms", "shape": [8], "dtype": "float32", "producer_node": "ms"}],
   "outputs": [{"name": "n", "shape": [], "dtype": "float32"}], "attrs": {}}]})";

void check_run(Session& s, const std::vector<bool>& mask) {
  std::vector<float> xv(20);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = float(i) * 0.5f - 3;
  std::vector<double> mv(mask.begin(), mask.end());
  const auto out = s.run({tensor_f32({5, 4}, xv), tensor_b({5}, mv)});
  int64_t n = 0;
  std::vector<float> sel, sum(4, 0.f);
  std::vector<int64_t> nz;
  float total = 0;
  for (int64_t r = 0; r < 5; ++r) {
    if (!mask[size_t(r)]) continue;
    ++n;
    nz.push_back(r);
    for (int64_t c = 0; c < 4; ++c) {
      sel.push_back(xv[size_t(r * 4 + c)]);
      sum[size_t(c)] += xv[size_t(r * 4 + c)];
      total += xv[size_t(r * 4 + c)];
    }
  }
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].shape, (Shape{n, 4}));
  EXPECT_EQ(values_f32(out[0]), sel);
  EXPECT_EQ(values_f32(out[1]), sum);
  EXPECT_EQ(out[2].shape, (Shape{n, 1}));
  EXPECT_EQ(values_i64(out[2]), nz);
  EXPECT_FLOAT_EQ(values_f32(out[3])[0], total);
  // output_views follow the run's sizes (what the WASM bindings read)
  EXPECT_EQ(s.output_views()[0].shape, (Shape{n, 4}));
}

TEST(DatadepRuntime, SizesFollowTheDataPerRun) {
  Session s(load_model_json(kGraph));
  const size_t arena = s.arena_bytes();
  check_run(s, {true, false, false, true, false});   // the recorded sizes: static plan
  check_run(s, {true, true, false, true, true});     // more
  check_run(s, {false, false, false, false, false});  // none (0-size values downstream)
  check_run(s, {true, true, true, true, true});      // all
  check_run(s, {false, true, true, false, false});   // back to the recorded sizes
  EXPECT_EQ(s.arena_bytes(), arena);
}

TEST(DatadepRuntime, WithoutFusionOrInPlaceToo) {
  SessionOptions o;
  o.fusion = false;
  o.update_in_place = false;
  o.keep_intermediates = true;
  Session s(load_model_json(kGraph), o);
  check_run(s, {true, true, true, false, true});
  ASSERT_NE(s.value("ms"), nullptr);
  EXPECT_EQ(s.value("ms")->shape, (Shape{16}));  // intermediates follow the run's sizes too
  check_run(s, {true, false, false, true, false});
  EXPECT_EQ(s.value("ms")->shape, (Shape{8}));
}

TEST(DatadepRuntime, ResizedValueAgainstAFixedAttributeFailsClearly) {
  // view(sel, [8]) bakes the example's size into an attribute: another size cannot fit it.
  std::string g = kGraph;
  const std::string tail = R"(  {"name": "n", "op_type")";
  const std::string view = R"(  {"name": "v", "op_type": "aten.view.default", "inputs": [
     {"name": "sel", "shape": [2, 4], "dtype": "float32", "producer_node": "sel"}],
   "outputs": [{"name": "v", "shape": [8], "dtype": "float32"}], "attrs": {"size": [8]}},
)";
  g.insert(g.find(tail), view);
  Session s(load_model_json(g));
  const auto x = tensor_f32({5, 4}, std::vector<float>(20, 1.f));
  EXPECT_NO_THROW(s.run({x, tensor_b({5}, {1, 0, 1, 0, 0})}));
  const std::string err = error_of([&] { s.run({x, tensor_b({5}, {1, 1, 1, 0, 0})}); });
  EXPECT_THAT(err, HasSubstr("node 'v'"));
}

TEST(DatadepRuntime, RepeatInterleaveLengthFollowsTheData) {
  // r int64 [3] -> ri = repeat_interleave(r) (recorded [4]) -> ri * 2
  const char* g = R"({"model_name": "ri", "graph_inputs": [{"name": "r", "shape": [3], "dtype": "int64"}],
   "graph_outputs": [{"name": "y", "shape": [4], "dtype": "int64"}], "weights": [], "weight_name_mapping": {},
   "nodes": [
    {"name": "ri", "op_type": "aten.repeat_interleave.Tensor", "inputs": [
       {"name": "r", "shape": [3], "dtype": "int64", "producer_node": "r"}],
     "outputs": [{"name": "ri", "shape": [4], "dtype": "int64"}], "attrs": {}},
    {"name": "y", "op_type": "aten.mul.Tensor", "inputs": [
       {"name": "ri", "shape": [4], "dtype": "int64", "producer_node": "ri"}],
     "outputs": [{"name": "y", "shape": [4], "dtype": "int64"}], "attrs": {"other": 2}}]})";
  Session s(load_model_json(g));
  EXPECT_EQ(values_i64(s.run({tensor_i64({3}, {1, 2, 1})})[0]), (std::vector<int64_t>{0, 2, 2, 4}));
  EXPECT_EQ(values_i64(s.run({tensor_i64({3}, {0, 1, 3})})[0]), (std::vector<int64_t>{2, 4, 4, 4}));
  EXPECT_EQ(values_i64(s.run({tensor_i64({3}, {2, 0, 4})})[0]), (std::vector<int64_t>{0, 0, 4, 4, 4, 4}));
  EXPECT_EQ(s.run({tensor_i64({3}, {0, 0, 0})})[0].shape, (Shape{0}));
  EXPECT_THAT(error_of([&] { s.run({tensor_i64({3}, {1, -1, 1})}); }), HasSubstr("repeats can not be negative"));
}

// The datadep_probe fixture (tools/zoo_datadep.py) run on one session with
// masks whose true counts differ from the export's, against torch's outputs
// (io_mask<k>.safetensors), both flavors, fused and unfused.
TEST(DatadepRuntime, ProbeFixtureMatchesTorchForOtherMasks) {
  for (const char* flavor : {"torch1.13-decomposed", "torch2.14-training"}) {
    const std::string dir = fixtures_dir() + "/models/datadep_probe/" + flavor;
    const Model model = load_model_file(dir + "/model.json");
    const TensorMap weights = read_weights_file(dir + "/weights.safetensors");
    for (bool fusion : {true, false}) {
      SessionOptions o;
      o.fusion = fusion;
      Session s(model, o);
      s.bind(weights);
      for (const char* io_name : {"io_mask2", "io", "io_mask3", "io_mask4", "io_mask2"}) {
        SCOPED_TRACE(std::string(flavor) + " " + io_name + (fusion ? "" : " unfused"));
        const TensorMap io = read_weights_file(dir + "/" + io_name + ".safetensors");
        std::vector<Tensor> inputs, expected;
        for (const auto& gi : model.graph_inputs) inputs.push_back(*io.find("input." + gi.name));
        for (size_t k = 0; k < model.graph_outputs.size(); ++k) expected.push_back(*io.find("output." + std::to_string(k)));
        const auto out = s.run(inputs);
        ASSERT_EQ(out.size(), expected.size());
        for (size_t k = 0; k < out.size(); ++k) EXPECT_EQ(out[k].shape, expected[k].shape) << "output " << k;
        const VerifyReport r = verify_outputs(out, expected, 1e-5, 1e-5);
        EXPECT_TRUE(r.is_valid) << format_report(r);
      }
    }
  }
}

// --- single ops: recorded sizes checked when run outside a session ------------
TEST(DatadepOps, RecordedSizeMismatchNamesNodeAndSizes) {
  const auto m = tensor_b({4}, {1, 1, 1, 0});
  const std::string err = error_of([&] { run_op("aten.nonzero.default", {m}, {}, 1, {}, {{2, 1}}); });
  EXPECT_THAT(err, HasSubstr("'n1'"));
  EXPECT_THAT(err, HasSubstr("3 nonzero elements but the IR records 2"));
  EXPECT_THAT(error_of([&] { run_op("aten.nonzero.default", {m}, {}, 1, {}, {{3, 2}}); }),
              HasSubstr("has a data-dependent size; the IR records shape [3, 2] but the op gives [n, 1]"));
}

TEST(DatadepOps, MaskedScatterNeedsEnoughSource) {
  const auto x = tensor_f32({3}, {1, 2, 3});
  EXPECT_THAT(error_of([&] {
                run_op("aten.masked_scatter.default", {x, tensor_b({3}, {1, 1, 1}), tensor_f32({2}, {5, 6})}, {}, 1,
                       {}, {{3}});
              }),
              HasSubstr("the mask has 3 true elements but source [2] has only 2 elements"));
}

TEST(DatadepOps, ItemAndSymQueries) {
  EXPECT_NO_THROW(run_op("aten.item.default", {tensor_f32({1, 1}, {2})}, {}, 0));
  EXPECT_NO_THROW(run_op("aten._local_scalar_dense.default", {tensor_f32({}, {2})}, {}, 0));
  EXPECT_THAT(error_of([&] { run_op("aten.item.default", {tensor_f32({2}, {1, 2})}, {}, 0); }),
              HasSubstr("a Tensor with 2 elements cannot be converted to Scalar"));
  EXPECT_NO_THROW(run_op("aten.sym_size.int", {tensor_f32({2, 3}, std::vector<float>(6))}, {{"dim", I(-1)}}, 0));
  EXPECT_THAT(error_of([&] { run_op("aten.sym_size.int", {tensor_f32({2}, {1, 2})}, {{"dim", I(3)}}, 0); }),
              HasSubstr("out of range"));
  // a symbolic condition (not in the IR): nothing to check
  EXPECT_NO_THROW(run_op("aten._assert_scalar.default", {}, {{"assert_msg", S("u0 >= 0")}}, 0));
}

TEST(DatadepOps, ArgumentErrors) {
  const auto x = tensor_f32({2, 3}, {1, 2, 3, 4, 5, 6});
  const auto idx = tensor_i64({2, 3}, {0, 1, 0, 1, 0, 1});
  EXPECT_THAT(error_of([&] { run_op("aten.scatter_reduce.two", {x, idx, x}, {{"dim", I(0)}, {"reduce", S("max")}}, 1, {}, {{2, 3}}); }),
              HasSubstr("reduce argument must be either sum, prod, mean, amax or amin, got max"));
  const auto bad = tensor_i64({2, 3}, {0, 1, 2, 0, 0, 0});
  EXPECT_THAT(error_of([&] { run_op("aten.scatter_reduce.two", {x, bad, x}, {{"dim", I(0)}, {"reduce", S("sum")}}, 1, {}, {{2, 3}}); }),
              HasSubstr("'n1'"));
  const auto bd = tensor_f32({3}, {0, 1, 2});
  const auto v = tensor_f32({2}, {0.5, 1.5});
  EXPECT_THAT(error_of([&] { run_op("aten.searchsorted.Tensor", {bd, v}, {{"right", B(true)}, {"side", S("left")}}, 1, {}, {{2}}); }),
              HasSubstr("side and right can't be set to opposites"));
  EXPECT_THAT(error_of([&] { run_op("aten.searchsorted.Tensor", {bd, v, tensor_i64({3}, {0, 3, 1})}, {}, 1, {}, {{2}}); }),
              HasSubstr("sorter index out of range"));
  EXPECT_THAT(error_of([&] { run_op("aten.searchsorted.Tensor", {x, v}, {}, 1, {}, {{2}}); }),
              HasSubstr("first N-1 dimensions of boundaries tensor and input value tensor must match"));
  EXPECT_THAT(error_of([&] { run_op("aten.bucketize.Tensor", {v, x}, {}, 1, {}, {{2}}); }),
              HasSubstr("boundaries tensor must be 1 dimension"));
  EXPECT_THAT(error_of([&] { run_op("aten.masked_select.default", {x, tensor_b({2}, {1, 0})}, {}, 1, {}, {{1}}); }),
              HasSubstr("does not broadcast"));
}

// --- torch 2.14 cases ------------------------------------------------------
double decode(const json::Value& v) {
  if (!v.is_string()) return v.as_double();
  const std::string s = v.string();
  if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
  return s == "inf" ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
}

Tensor decode_tensor(const json::Value& t) {
  Shape shape;
  for (auto d : t["shape"]) shape.push_back(d.as_int64());
  std::vector<double> v;
  for (auto e : t["values"]) v.push_back(decode(e));
  return tensor_of(parse_dtype(t["dtype"].string()), shape, v);
}

Attr decode_attr(const json::Value& v) {
  switch (v.type()) {
    case json::Type::Bool: return B(v.as_bool());
    case json::Type::Int:
    case json::Type::Uint: return I(v.as_int64());
    case json::Type::Float: return F(v.as_double());
    case json::Type::String: return S(v.string());
    default: return Attr::none();
  }
}

size_t ir_outputs(const std::string& op) {
  if (op == "aten._unique2.default" || op == "aten.unique_consecutive.default") return 3;
  return op == "aten._functional_assert_async.msg" ? 1 : 0;
}

TEST(DatadepOps, Torch214Cases) {
  const std::string path = fixtures_dir() + "/ops2/datadep/cases.json";
  const json::Document doc = json::Document::parse(read_text(path));
  size_t n = 0, errors = 0;
  for (auto c : doc.root()["cases"]) {
    const std::string name = c["name"].string(), op = c["op"].string();
    SCOPED_TRACE(name);
    std::vector<Tensor> inputs;
    for (auto t : c["inputs"]) inputs.push_back(decode_tensor(t));
    AttrMap attrs;
    for (auto a : c["attrs"]) attrs[std::string(a.key())] = decode_attr(a);
    json::Value expected_error;
    if (c.find("error", &expected_error)) {
      ++errors;
      const std::string err = error_of([&] { run_op(op, inputs, attrs, ir_outputs(op), {}, {{0}}); });
      EXPECT_NE(err, "(no error)");
      if (op != "aten.sym_constrain_range_for_size.default" && name != "assert_async_two")
        EXPECT_THAT(err, HasSubstr("assertion failed: " + attrs["assert_msg"].s));
      EXPECT_THAT(err, HasSubstr("'n1'"));
      ++n;
      continue;
    }
    std::vector<Tensor> expected;
    std::vector<Shape> shapes;
    for (auto t : c["outputs"]) {
      expected.push_back(decode_tensor(t));
      shapes.push_back(expected.back().shape);
    }
    const OpRun r = run_op(op, inputs, attrs, expected.size(), {}, shapes);
    ASSERT_EQ(r.out.size(), expected.size());
    for (size_t k = 0; k < expected.size(); ++k) {
      EXPECT_EQ(r.out[k].shape, expected[k].shape) << "output " << k;
      const auto got = values_f32(r.out[k]), want = values_f32(expected[k]);
      ASSERT_EQ(got.size(), want.size());
      for (size_t j = 0; j < got.size(); ++j)
        EXPECT_TRUE(got[j] == want[j] || (std::isnan(got[j]) && std::isnan(want[j])))
            << "output " << k << " [" << j << "] got " << got[j] << " want " << want[j];
    }
    ++n;
  }
  EXPECT_EQ(n, 28u);
  EXPECT_GT(errors, 5u);
}

}  // namespace
