// Tests of the LibTorch reference backend itself: how it rebuilds ATen calls
// from IR nodes (docs/spec/OPS.md §1), runs whole graphs, and reports errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>

#include "core/errors.h"
#include "parity/parity_util.h"
#include "test_util.h"
#include "torch_backend/reference.h"

namespace tir {
namespace {

using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::HasSubstr;
using test::tensor_f32;
using test::tensor_i64;
using test::values_f32;
using test::values_i64;

TensorMeta meta(const std::string& name, Shape shape, DType dtype = DType::F32,
                const std::string& producer = "", int64_t idx = 0) {
  TensorMeta m;
  m.name = name;
  m.shape = std::move(shape);
  m.dtype = dtype;
  m.producer_node = producer;
  m.producer_output_idx = idx;
  return m;
}

// A graph input (its own producer).
TensorMeta gin(const std::string& name, Shape shape, DType dtype = DType::F32) {
  return meta(name, std::move(shape), dtype, name);
}

OpNode node(const std::string& name, const std::string& op_type, std::vector<TensorMeta> inputs,
            AttrMap attrs = {}, std::vector<TensorMeta> outputs = {}) {
  OpNode n;
  n.name = name;
  n.op_type = op_type;
  n.inputs = std::move(inputs);
  n.attrs = std::move(attrs);
  n.outputs = std::move(outputs);
  return n;
}

Attr ints(std::vector<int64_t> v) {
  std::vector<Attr> out;
  for (auto x : v) out.push_back(Attr::of_int(x));
  return Attr::of_list(out);
}

Attr bools(std::vector<bool> v) {
  std::vector<Attr> out;
  for (bool x : v) out.push_back(Attr::of_bool(x));
  return Attr::of_list(out);
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ExecutionError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("wrong exception type: ") + e.what();
  }
  return "no error";
}

TEST(Reference, VersionLooksLikeARelease) {
  const std::string v = libtorch_version();
  EXPECT_TRUE(v.rfind("1.", 0) == 0 || v.rfind("2.", 0) == 0) << v;
}

TEST(Reference, PythonFloatInTensorSlotPromotesIntToFloat32) {
  auto n = node("mul", "aten.mul.Tensor", {gin("x", {3}, DType::I64)}, {{"other", Attr::of_float(0.5)}});
  auto out = run_node_reference(n, {tensor_i64({3}, {1, 2, -3})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].dtype, DType::F32);
  EXPECT_THAT(values_f32(out[0]), ElementsAre(0.5f, 1.0f, -1.5f));
}

TEST(Reference, PythonIntInTensorSlotKeepsIntDtype) {
  auto n = node("add", "aten.add.Tensor", {gin("x", {2}, DType::I64)}, {{"other", Attr::of_int(2)}});
  auto out = run_node_reference(n, {tensor_i64({2}, {1, 5})});
  EXPECT_EQ(out[0].dtype, DType::I64);
  EXPECT_THAT(values_i64(out[0]), ElementsAre(3, 7));
  // A Python float scalar is weak: f32 tensor stays f32 (a double tensor would give f64).
  auto n2 = node("add", "aten.add.Tensor", {gin("x", {2})}, {{"other", Attr::of_float(1e-6)}});
  EXPECT_EQ(run_node_reference(n2, {tensor_f32({2}, {1, 2})})[0].dtype, DType::F32);
}

TEST(Reference, AbsentArgumentsTakeSchemaDefaults) {
  // leaky_relu's negative_slope defaults to 0.01; add's alpha to 1.
  auto lr = node("lr", "aten.leaky_relu.default", {gin("x", {2})});
  EXPECT_THAT(values_f32(run_node_reference(lr, {tensor_f32({2}, {-1, 2})})[0]), ElementsAre(-0.01f, 2.0f));
  auto add = node("add", "aten.add.Tensor", {gin("x", {1}), gin("y", {1})}, {{"alpha", Attr::of_int(3)}});
  EXPECT_THAT(values_f32(run_node_reference(add, {tensor_f32({1}, {1}), tensor_f32({1}, {2})})[0]),
              ElementsAre(7.0f));
  // conv2d {}: stride 1, padding 0, dilation 1, groups 1; bias absent.
  auto conv = node("conv", "aten.conv2d.default", {gin("x", {1, 1, 3, 3}), meta("p_w", {1, 1, 2, 2})});
  auto out = run_node_reference(conv, {tensor_f32({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}),
                                       tensor_f32({1, 1, 2, 2}, {1, 0, 0, 1})});
  EXPECT_EQ(out[0].shape, (Shape{1, 1, 2, 2}));
  EXPECT_THAT(values_f32(out[0]), ElementsAre(6, 8, 12, 14));
}

TEST(Reference, SingleIntExpandsForFixedSizeIntList) {
  // max_pool2d kernel_size=2 means [2, 2]; stride [] means stride = kernel.
  auto n = node("mp", "aten.max_pool2d.default", {gin("x", {1, 1, 4, 4})}, {{"kernel_size", Attr::of_int(2)}});
  std::vector<float> v(16);
  for (int i = 0; i < 16; ++i) v[size_t(i)] = float(i);
  auto out = run_node_reference(n, {tensor_f32({1, 1, 4, 4}, v)});
  EXPECT_EQ(out[0].shape, (Shape{1, 1, 2, 2}));
  EXPECT_THAT(values_f32(out[0]), ElementsAre(5, 7, 13, 15));
}

TEST(Reference, TensorListForCat) {
  auto n = node("cat", "aten.cat.default", {gin("a", {1, 1}), gin("b", {1, 2}), gin("c", {1, 1})},
                {{"dim", Attr::of_int(1)}, {"_tensor_list_sizes", ints({3})}});
  auto out = run_node_reference(n, {tensor_f32({1, 1}, {1}), tensor_f32({1, 2}, {2, 3}), tensor_f32({1, 1}, {4})});
  EXPECT_EQ(out[0].shape, (Shape{1, 4}));
  EXPECT_THAT(values_f32(out[0]), ElementsAre(1, 2, 3, 4));
}

TEST(Reference, OptionalTensorListNoneMaskForIndex) {
  // x[:, idx] is index.Tensor(x, [None, idx]).
  auto n = node("index", "aten.index.Tensor", {gin("x", {2, 3}), gin("idx", {2}, DType::I64)},
                {{"_tensor_list_sizes", ints({1})}, {"_tensor_list_none_masks", Attr::of_list({bools({true, false})})}});
  auto out = run_node_reference(n, {tensor_f32({2, 3}, {0, 1, 2, 3, 4, 5}), tensor_i64({2}, {2, -3})});
  EXPECT_EQ(out[0].shape, (Shape{2, 2}));
  EXPECT_THAT(values_f32(out[0]), ElementsAre(2, 0, 5, 3));
  // Without a mask the same inputs index dim 0.
  auto n0 = node("index", "aten.index.Tensor", {gin("x", {2, 3}), gin("idx", {2}, DType::I64)},
                 {{"_tensor_list_sizes", ints({1})}});
  auto out0 = run_node_reference(n0, {tensor_f32({2, 3}, {0, 1, 2, 3, 4, 5}), tensor_i64({2}, {1, 0})});
  EXPECT_THAT(values_f32(out0[0]), ElementsAre(3, 4, 5, 0, 1, 2));
}

TEST(Reference, IndexPutMaskedListBetweenTensors) {
  // x[:, idx] = v as index_put_(x, [None, idx], v): the list sits between two tensors.
  auto n = node("ip", "aten.index_put_.default", {gin("x", {2, 3}), gin("idx", {1}, DType::I64), gin("v", {1})},
                {{"_tensor_list_sizes", ints({1})}, {"_tensor_list_none_masks", Attr::of_list({bools({true, false})})}});
  auto out = run_node_reference(n, {make_owned(DType::F32, {2, 3}), tensor_i64({1}, {1}), tensor_f32({1}, {7})});
  EXPECT_THAT(values_f32(out[0]), ElementsAre(0, 7, 0, 0, 7, 0));
}

TEST(Reference, LeftoverInputFillsKeywordOnlyOptionalTensor) {
  // searchsorted(sorted_sequence, self, *, ..., Tensor? sorter): a third input is the sorter,
  // as pytorch-ir's executor binds it (same path as SDPA-for-cpu's keyword-only attn_mask).
  auto n = node("ss", "aten.searchsorted.Tensor",
                {gin("seq", {3}), gin("x", {2}), gin("sorter", {3}, DType::I64)});
  auto out = run_node_reference(n, {tensor_f32({3}, {5, 1, 3}), tensor_f32({2}, {2, 4}), tensor_i64({3}, {1, 2, 0})});
  EXPECT_THAT(values_i64(out[0]), ElementsAre(1, 2));
}

TEST(Reference, LinearWithoutBias) {
  auto n = node("linear", "aten.linear.default", {gin("x", {1, 2}), meta("p_w", {3, 2})});
  auto out = run_node_reference(n, {tensor_f32({1, 2}, {1, 2}), tensor_f32({3, 2}, {1, 0, 0, 1, 1, 1})});
  EXPECT_THAT(values_f32(out[0]), ElementsAre(1, 2, 3));
}

TEST(Reference, DtypeAsStringOrScalarTypeIntAndDeviceIgnored) {
  for (Attr dtype : {Attr::of_string("torch.int64"), Attr::of_string("int64"), Attr::of_int(4)}) {
    auto n = node("to", "aten._to_copy.default", {gin("x", {2})},
                  {{"dtype", dtype}, {"device", Attr::of_string("meta")},
                   {"layout", Attr::of_string("torch.strided")}, {"pin_memory", Attr::of_bool(false)}});
    auto out = run_node_reference(n, {tensor_f32({2}, {2.7f, -2.7f})});
    EXPECT_EQ(out[0].dtype, DType::I64) << dtype.to_string();
    EXPECT_THAT(values_i64(out[0]), ElementsAre(2, -2));
  }
  // Creation op with "device": "meta" still runs on the CPU.
  auto z = node("full", "aten.full.default", {},
                {{"size", ints({2})}, {"fill_value", Attr::of_int(7)}, {"device", Attr::of_string("meta")}});
  auto out = run_node_reference(z, {});
  EXPECT_EQ(out[0].dtype, DType::I64);
  EXPECT_THAT(values_i64(out[0]), ElementsAre(7, 7));
}

TEST(Reference, SliceEndInt64Max) {
  auto n = node("slice", "aten.slice.Tensor", {gin("x", {4})},
                {{"dim", Attr::of_int(0)}, {"start", Attr::of_int(1)},
                 {"end", Attr::of_int(std::numeric_limits<int64_t>::max())}});
  auto out = run_node_reference(n, {tensor_f32({4}, {0, 1, 2, 3})});
  EXPECT_THAT(values_f32(out[0]), ElementsAre(1, 2, 3));
}

TEST(Reference, NonContiguousInputsAreReadThroughStrides) {
  Tensor base = tensor_f32({2, 3}, {0, 1, 2, 3, 4, 5});
  Tensor t = base.view_as({3, 2}, {1, 3}, 0);  // transpose
  auto n = node("c", "aten.clone.default", {gin("x", {3, 2})});
  EXPECT_THAT(values_f32(run_node_reference(n, {t})[0]), ElementsAre(0, 3, 1, 4, 2, 5));
}

TEST(Reference, HalfTensorsRoundTrip) {
  Tensor h = to_dtype_owned(tensor_f32({2}, {1.5f, -3.0f}), DType::F16);
  auto n = node("mul", "aten.mul.Tensor", {gin("x", {2}, DType::F16)}, {{"other", Attr::of_int(2)}});
  auto out = run_node_reference(n, {h});
  EXPECT_EQ(out[0].dtype, DType::F16);
  EXPECT_THAT(values_f32(out[0]), ElementsAre(3.0f, -6.0f));
}

TEST(Reference, MultiOutputMaxPoolWithIndices) {
  auto n = node("mp", "aten.max_pool2d_with_indices.default", {gin("x", {1, 1, 2, 2})},
                {{"kernel_size", ints({2, 2})}});
  auto out = run_node_reference(n, {tensor_f32({1, 1, 2, 2}, {1, 9, 3, 4})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_THAT(values_f32(out[0]), ElementsAre(9));
  EXPECT_EQ(out[1].dtype, DType::I64);
  EXPECT_THAT(values_i64(out[1]), ElementsAre(1));
}

TEST(Reference, BatchNormThreeInputsUseRunningStatsWhenNotTraining) {
  // BatchNorm(affine=False) in eval: inputs are x, running_mean, running_var.
  auto n = node("bn", "aten.batch_norm.default",
                {gin("x", {1, 2, 1, 1}), meta("b_rm", {2}), meta("b_rv", {2})},
                {{"training", Attr::of_bool(false)}, {"momentum", Attr::of_float(0.1)},
                 {"eps", Attr::of_float(0.0)}, {"cudnn_enabled", Attr::of_bool(false)}});
  auto out = run_node_reference(n, {tensor_f32({1, 2, 1, 1}, {3, 5}), tensor_f32({2}, {1, 1}),
                                    tensor_f32({2}, {4, 16})});
  EXPECT_THAT(values_f32(out[0]), ElementsAre(1.0f, 1.0f));
  // training=true: the two extras are weight and bias (batch stats of a single value -> 0).
  n.attrs["training"] = Attr::of_bool(true);
  n.attrs["eps"] = Attr::of_float(1e-5);
  auto out2 = run_node_reference(n, {tensor_f32({1, 2, 1, 1}, {3, 5}), tensor_f32({2}, {2, 2}),
                                     tensor_f32({2}, {10, 20})});
  // (x - mean is off by an ulp in LibTorch's CPU kernel, scaled by 1/sqrt(eps).)
  EXPECT_THAT(values_f32(out2[0]), ElementsAre(FloatNear(10.0f, 1e-3), FloatNear(20.0f, 1e-3)));
}

TEST(Reference, GetitemSelectsInput) {
  auto n = node("g", "<built-in function getitem>", {gin("a", {1}), gin("b", {1})}, {{"index", Attr::of_int(1)}});
  auto out = run_node_reference(n, {tensor_f32({1}, {1}), tensor_f32({1}, {2})});
  EXPECT_THAT(values_f32(out[0]), ElementsAre(2));
  n.attrs["index"] = Attr::of_int(2);
  EXPECT_THAT(error_of([&] { run_node_reference(n, {tensor_f32({1}, {1}), tensor_f32({1}, {2})}); }),
              HasSubstr("getitem index 2 out of range"));
}

TEST(Reference, RopeHigherOrderOp) {
  for (const char* op : {"wrap_with_set_grad_enabled", "wrap_with_autocast"}) {
    auto n = node("wrap", op, {meta("b_inv_freq", {2}), gin("pos", {1, 3}, DType::I64)}, {},
                  {meta("wrap_0", {1, 3, 4}), meta("wrap_1", {1, 3, 4})});
    auto out = run_node_reference(n, {tensor_f32({2}, {1.0f, 0.5f}), tensor_i64({1, 3}, {0, 1, 2})});
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].shape, (Shape{1, 3, 4}));
    std::vector<float> c, s;
    for (float p : {0.f, 1.f, 2.f})
      for (float f : {1.0f, 0.5f, 1.0f, 0.5f}) {
        c.push_back(std::cos(p * f));
        s.push_back(std::sin(p * f));
      }
    auto cv = values_f32(out[0]), sv = values_f32(out[1]);
    for (size_t k = 0; k < c.size(); ++k) {
      EXPECT_NEAR(cv[k], c[k], 1e-6) << op << " cos " << k;
      EXPECT_NEAR(sv[k], s[k], 1e-6) << op << " sin " << k;
    }
  }
}

TEST(Reference, OtherHigherOrderBodiesAreRejected) {
  auto n = node("wrap", "wrap_with_set_grad_enabled", {gin("x", {2, 3})}, {}, {meta("wrap", {2, 3})});
  EXPECT_THAT(error_of([&] { run_node_reference(n, {tensor_f32({2, 3}, {0, 1, 2, 3, 4, 5})}); }),
              HasSubstr("is not in the IR file"));
}

TEST(Reference, UnknownOpsFail) {
  auto n = node("bad", "aten.does_not_exist.default", {gin("x", {1})});
  const std::string msg = error_of([&] { run_node_reference(n, {tensor_f32({1}, {1})}); });
  EXPECT_THAT(msg, HasSubstr("Failed to execute node 'bad'"));
  EXPECT_THAT(msg, HasSubstr("aten::does_not_exist"));
  auto n2 = node("cond", "cond", {gin("x", {1})});
  EXPECT_THAT(error_of([&] { run_node_reference(n2, {tensor_f32({1}, {1})}); }),
              HasSubstr("No execution function registered for op_type 'cond'"));
  // LibTorch's own argument errors come through as ExecutionError naming the node.
  auto n3 = node("mm", "aten.mm.default", {gin("a", {2, 3}), gin("b", {2, 3})});
  EXPECT_THAT(error_of([&] { run_node_reference(n3, {make_owned(DType::F32, {2, 3}), make_owned(DType::F32, {2, 3})}); }),
              HasSubstr("Failed to execute node 'mm' (op: aten.mm.default)"));
  // Too many tensor inputs for the schema.
  auto n4 = node("relu", "aten.relu.default", {gin("a", {1}), gin("b", {1})});
  EXPECT_THAT(error_of([&] { run_node_reference(n4, {tensor_f32({1}, {1}), tensor_f32({1}, {1})}); }),
              HasSubstr("do not fit schema"));
}

TEST(Reference, SupportsQuery) {
  EXPECT_TRUE(reference_supports("aten.add.Tensor"));
  EXPECT_TRUE(reference_supports("aten.relu.default"));
  EXPECT_TRUE(reference_supports("<built-in function getitem>"));
  EXPECT_TRUE(reference_supports("wrap_with_set_grad_enabled"));
  EXPECT_FALSE(reference_supports("aten.add.NoSuchOverload"));
  EXPECT_FALSE(reference_supports("cond"));
}

TEST(Reference, MetaDeviceIsRejected) {
  auto n = node("r", "aten.relu.default", {gin("x", {1})});
  EXPECT_THAT(error_of([&] { run_node_reference(n, {tensor_f32({1}, {1})}, "meta"); }), HasSubstr("meta"));
}

// ---- whole graphs

// x -> mul(x, c_mask) -> graph output, with weights / constants under placeholders.
Model mask_model() {
  Model m;
  m.model_name = "masked";
  m.graph_inputs = {meta("x", {2})};
  m.weights = {meta("mask", {2})};
  m.weight_name_mapping = {{"c_mask", "mask"}};
  m.nodes = {node("mul", "aten.mul.Tensor", {gin("x", {2}), meta("c_mask", {2})}, {}, {meta("mul", {2})})};
  m.graph_outputs = {meta("mul", {2})};
  return m;
}

TEST(ReferenceRunner, MissingWeightMessage) {
  Model m = mask_model();
  ReferenceRunner r(m, {}, {});
  EXPECT_EQ(error_of([&] { r.run({tensor_f32({2}, {1, 2})}); }),
            "Weight/input 'c_mask' not found in registry for node 'mul'.");
}

TEST(ReferenceRunner, ConstantsFromIrAndCallerOverride) {
  Model m = mask_model();
  ConstantValue cv;
  cv.dtype = DType::F32;
  cv.shape = {2};
  cv.values = {2, 3};
  m.constants = {{"mask", cv}};
  EXPECT_THAT(values_f32(ReferenceRunner(m, {}, {}).run({tensor_f32({2}, {1, 2})})[0]), ElementsAre(2, 6));
  TensorMap consts;
  consts.set("mask", tensor_f32({2}, {-1, 1}));
  EXPECT_THAT(values_f32(ReferenceRunner(m, {}, consts).run({tensor_f32({2}, {1, 2})})[0]), ElementsAre(-1, 2));
  // Weights are found by original key too (mapping only via placeholders_of).
  TensorMap w;
  w.set("mask", tensor_f32({2}, {10, 10}));
  Model m2 = mask_model();
  EXPECT_THAT(values_f32(ReferenceRunner(m2, w, {}).run({tensor_f32({2}, {1, 2})})[0]), ElementsAre(10, 20));
  EXPECT_THAT(error_of([&] { ReferenceRunner(m2, w, {}).run({}); }), HasSubstr("Expected 1 inputs, got 0"));
}

TEST(ReferenceRunner, GetitemAndIntermediates) {
  Model m;
  m.graph_inputs = {meta("x", {1, 1, 2, 2})};
  m.nodes = {
      node("mp", "aten.max_pool2d_with_indices.default", {gin("x", {1, 1, 2, 2})}, {{"kernel_size", ints({2, 2})}},
           {meta("mp_0", {1, 1, 1, 1}), meta("mp_1", {1, 1, 1, 1}, DType::I64)}),
      node("getitem", "<built-in function getitem>",
           {meta("mp_0", {1, 1, 1, 1}, DType::F32, "mp", 0), meta("mp_1", {1, 1, 1, 1}, DType::I64, "mp", 1)},
           {{"index", Attr::of_int(1)}}, {meta("getitem", {1, 1, 1, 1}, DType::I64)}),
  };
  m.graph_outputs = {meta("getitem", {1, 1, 1, 1}, DType::I64)};
  ReferenceRunner r(m, {}, {});
  r.set_keep_intermediates(true);
  auto out = r.run({tensor_f32({1, 1, 2, 2}, {1, 2, 8, 4})});
  EXPECT_THAT(values_i64(out[0]), ElementsAre(2));
  ASSERT_NE(r.value("mp_0"), nullptr);
  EXPECT_THAT(values_f32(*r.value("mp_0")), ElementsAre(8));
  EXPECT_EQ(r.value("nope"), nullptr);
}

TEST(ReferenceRunner, InPlaceWritesThroughViewsAndBuffersPersist) {
  // z = zeros(2,2); select(z, 0, 1).fill_(5); buf.add_(1); out = z + buf
  Model m;
  m.graph_inputs = {};
  m.weights = {meta("buf", {2, 2})};
  m.weight_name_mapping = {{"b_buf", "buf"}};
  m.nodes = {
      node("z", "aten.zeros.default", {}, {{"size", ints({2, 2})}, {"device", Attr::of_string("meta")}},
           {meta("z", {2, 2})}),
      node("sel", "aten.select.int", {meta("z", {2, 2}, DType::F32, "z")},
           {{"dim", Attr::of_int(0)}, {"index", Attr::of_int(1)}}, {meta("sel", {2})}),
      node("fill_", "aten.fill_.Scalar", {meta("sel", {2}, DType::F32, "sel")}, {{"value", Attr::of_int(5)}},
           {meta("fill_", {2})}),
      node("add_", "aten.add_.Tensor", {meta("b_buf", {2, 2})}, {{"other", Attr::of_int(1)}}, {meta("add_", {2, 2})}),
      node("add", "aten.add.Tensor", {meta("z", {2, 2}, DType::F32, "z"), meta("add_", {2, 2}, DType::F32, "add_")},
           {}, {meta("add", {2, 2})}),
  };
  m.graph_outputs = {meta("add", {2, 2})};
  TensorMap w;
  w.set("buf", tensor_f32({2, 2}, {0, 0, 0, 0}));
  ReferenceRunner r(m, w, {});
  EXPECT_THAT(values_f32(r.run({})[0]), ElementsAre(1, 1, 6, 6));
  EXPECT_THAT(values_f32(r.run({})[0]), ElementsAre(2, 2, 7, 7));
  EXPECT_THAT(values_f32(*w.find("buf")), ElementsAre(0, 0, 0, 0));  // caller's tensor untouched
}

TEST(ReferenceRunner, MemoryFormatMakesCloneViewable) {
  // permute -> clone(memory_format=contiguous_format) -> view: needs the contiguous clone.
  Model m;
  m.graph_inputs = {meta("x", {2, 3})};
  m.nodes = {
      node("p", "aten.permute.default", {gin("x", {2, 3})}, {{"dims", ints({1, 0})}}, {meta("p", {3, 2})}),
      node("c", "aten.clone.default", {meta("p", {3, 2}, DType::F32, "p")},
           {{"memory_format", Attr::of_string("torch.contiguous_format")}}, {meta("c", {3, 2})}),
      node("v", "aten.view.default", {meta("c", {3, 2}, DType::F32, "c")}, {{"size", ints({6})}}, {meta("v", {6})}),
  };
  m.graph_outputs = {meta("v", {6})};
  EXPECT_THAT(values_f32(ReferenceRunner(m, {}, {}).run({tensor_f32({2, 3}, {0, 1, 2, 3, 4, 5})})[0]),
              ElementsAre(0, 3, 1, 4, 2, 5));
  m.nodes[1].attrs["memory_format"] = Attr::of_string("torch.preserve_format");
  EXPECT_THAT(error_of([&] { ReferenceRunner(m, {}, {}).run({tensor_f32({2, 3}, {0, 1, 2, 3, 4, 5})}); }),
              HasSubstr("Failed to execute node 'v'"));
}

TEST(ReferenceRunner, StringAttrNamesAComputedTensor) {
  // docs/spec/OPS.md §1.8: a keyword tensor written as the producing node's name.
  Model m;
  m.graph_inputs = {meta("x", {2})};
  m.nodes = {
      node("m", "aten.mul.Tensor", {gin("x", {2})}, {{"other", Attr::of_float(2.0)}}, {meta("m", {2})}),
      node("a", "aten.add.Tensor", {gin("x", {2})}, {{"other", Attr::of_string("m")}}, {meta("a", {2})}),
  };
  m.graph_outputs = {meta("a", {2})};
  EXPECT_THAT(values_f32(ReferenceRunner(m, {}, {}).run({tensor_f32({2}, {1, 2})})[0]), ElementsAre(3, 6));
  m.nodes[1].attrs["other"] = Attr::of_string("missing");
  EXPECT_THAT(error_of([&] { ReferenceRunner(m, {}, {}).run({tensor_f32({2}, {1, 2})}); }),
              HasSubstr("names tensor 'missing'"));
}

// ---- the harness itself (needs the engine to support the op).

TEST(ParityHarness, MakeInputTransposedExplicitValues) {
  ParityInput in;
  in.shape = {2, 3};
  in.transposed = true;
  in.values = {0, 1, 2, 3, 4, 5};
  Tensor base = parity::make_input(in, 1);
  EXPECT_EQ(base.shape, (Shape{3, 2}));
  EXPECT_THAT(values_f32(base), ElementsAre(0, 3, 1, 4, 2, 5));
  ParityInput r;
  r.dtype = DType::I64;
  r.shape = {100};
  r.lo = -3;
  r.hi = 3;
  for (int64_t v : values_i64(parity::make_input(r, 7))) {
    EXPECT_GE(v, -3);
    EXPECT_LT(v, 3);
  }
}

TEST(ParityHarness, CompareTensorsCatchesDifferences) {
  EXPECT_TRUE(parity::compare_tensors(tensor_f32({2}, {1, NAN}), tensor_f32({2}, {1, NAN}), 1e-5, 1e-5, "o"));
  EXPECT_FALSE(parity::compare_tensors(tensor_f32({2}, {1, NAN}), tensor_f32({2}, {1, 0}), 1e-5, 1e-5, "o"));
  EXPECT_FALSE(parity::compare_tensors(tensor_f32({2}, {1, 2}), tensor_f32({2}, {1, 2.001f}), 1e-5, 1e-5, "o"));
  EXPECT_TRUE(parity::compare_tensors(tensor_f32({1}, {INFINITY}), tensor_f32({1}, {INFINITY}), 0, 0, "o"));
  EXPECT_FALSE(parity::compare_tensors(tensor_f32({2}, {1, 2}), tensor_f32({1, 2}, {1, 2}), 1e-5, 1e-5, "o"));
  EXPECT_FALSE(parity::compare_tensors(tensor_f32({1}, {1}), tensor_i64({1}, {1}), 1e-5, 1e-5, "o"));
  auto r = parity::compare_tensors(tensor_i64({2}, {1, 2}), tensor_i64({2}, {1, 3}), 1, 1, "out");
  EXPECT_FALSE(r);
  EXPECT_THAT(std::string(r.message()), HasSubstr("[1] got 3, expected 2"));
}

TEST(ParityHarness, NodeParityRunsBothSides) {
  EXPECT_TRUE(node_parity("aten.add.Tensor", {{DType::F32, {2, 3}}, {DType::F32, {2, 3}, -1, 1, true}}));
  EXPECT_TRUE(node_parity("aten.mul.Tensor", {{DType::I64, {4}, -5, 5}}, R"({"other": 0.5})"));
  // An op LibTorch rejects fails on the reference side with its message.
  auto r = node_parity("aten.mm.default", {{DType::F32, {2, 3}}, {DType::F32, {2, 3}}});
  EXPECT_FALSE(r);
  EXPECT_THAT(std::string(r.message()), HasSubstr("LibTorch failed"));
}

}  // namespace
}  // namespace tir
