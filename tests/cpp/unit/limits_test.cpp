// Issue 10's resource limits: hostile sizes fail at Session construction with
// an ExecutionError naming the node, op, output, shape, bytes and the limit;
// size products are overflow-checked; every split-family dim is checked
// against 0-d inputs; the planner and name lookups stay fast at scale.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <ctime>
#include <random>

#include "core/checked.h"
#include "core/errors.h"
#include "ir/model.h"
#include "ir/validator.h"
#include "op_test_util.h"
#include "runtime/limits.h"
#include "runtime/memory_plan.h"
#include "runtime/session.h"
#include "test_util.h"

using namespace tir;
using namespace tir::test;
using ::testing::AllOf;
using ::testing::HasSubstr;

namespace {

constexpr int64_t k2_62 = int64_t(1) << 62;

TensorMeta meta(const std::string& name, const Shape& shape, const std::string& producer = "",
                DType dtype = DType::F32) {
  TensorMeta m;
  m.name = name;
  m.shape = shape;
  m.dtype = dtype;
  m.producer_node = producer;
  return m;
}

OpNode make_node(const std::string& name, const std::string& op, std::vector<TensorMeta> inputs,
                 std::vector<TensorMeta> outputs, AttrMap attrs = {}) {
  OpNode n;
  n.name = name;
  n.op_type = op;
  n.inputs = std::move(inputs);
  n.outputs = std::move(outputs);
  n.attrs = std::move(attrs);
  return n;
}

// A model of one creation node (no inputs) whose output is the graph output.
Model creation_model(const std::string& op, const Shape& out_shape, AttrMap attrs, DType dtype = DType::F32) {
  Model m;
  m.nodes.push_back(make_node("z", op, {}, {meta("z", out_shape, "", dtype)}, std::move(attrs)));
  m.graph_outputs.push_back(meta("z", out_shape, "z", dtype));
  return m;
}

// The ExecutionError message of compiling `m`, or "(no error)".
std::string compile_error(Model m, SessionOptions o = {}) {
  try {
    Session s(std::move(m), o);
  } catch (const ExecutionError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("wrong error class: ") + e.what();
  }
  return "(no error)";
}

// x[n] -> relu chain of `len` nodes.
Model relu_chain(int64_t n, int len) {
  Model m;
  m.graph_inputs.push_back(meta("x", {n}));
  std::string prev = "x";
  for (int i = 0; i < len; ++i) {
    const std::string name = "r" + std::to_string(i);
    m.nodes.push_back(make_node(name, "aten.relu.default", {meta(prev, {n}, prev)}, {meta(name, {n})}));
    prev = name;
  }
  m.graph_outputs.push_back(meta(prev, {n}, prev));
  return m;
}

TEST(Limits, ZerosOf2To62FailsAtLoadNamingTheNode) {
  const std::string err = compile_error(creation_model("aten.zeros.default", {k2_62}, {{"size", ints({k2_62})}}));
  EXPECT_THAT(err, AllOf(HasSubstr("node 'z' (aten.zeros.default) output 'z'"), HasSubstr("[4611686018427387904]"),
                         HasSubstr("max_tensor_bytes"), HasSubstr("SessionOptions::limits"),
                         HasSubstr("--max-tensor-bytes"), HasSubstr("maxTensorBytes")));
}

TEST(Limits, ByteSizeThatWraps64BitsIsRefused) {
  // 2^61 * 2 elements of 4 bytes = 2^64 bytes: wraps to 0 in size_t.
  const std::string err =
      compile_error(creation_model("aten.ones.default", {k2_62 / 2, 2}, {{"size", ints({k2_62 / 2, 2})}}));
  EXPECT_THAT(err, AllOf(HasSubstr("node 'z'"), HasSubstr("more than 2^64 bytes"), HasSubstr("max_tensor_bytes")));
}

TEST(Limits, ElementCountThatWrapsToZeroIsRefused) {
  const int64_t big = int64_t(1) << 32;  // 2^32 * 2^32 = 2^64: 0 when wrapped
  const std::string err =
      compile_error(creation_model("aten.empty.memory_format", {big, big}, {{"size", ints({big, big})}}));
  EXPECT_THAT(err, AllOf(HasSubstr("node 'z'"), HasSubstr("more elements than int64 holds")));
  EXPECT_THAT(error_of([] { checked_numel({int64_t(1) << 32, int64_t(1) << 32}, "t"); }),
              HasSubstr("more elements than int64 holds"));
}

TEST(Limits, FullAndArangeToHugeSizes) {
  EXPECT_THAT(compile_error(creation_model("aten.full.default", {k2_62},
                                           {{"size", ints({k2_62})}, {"fill_value", F(1.5)}})),
              HasSubstr("max_tensor_bytes"));
  EXPECT_THAT(compile_error(creation_model("aten.arange.default", {k2_62}, {{"end", I(k2_62)}}, DType::I64)),
              AllOf(HasSubstr("node 'z' (aten.arange.default)"), HasSubstr("max_tensor_bytes")));
  // A length that is not finite, or past int64, is refused before conversion.
  EXPECT_THAT(compile_error(creation_model("aten.arange.start_step", {1},
                                           {{"start", F(0)}, {"end", F(1e308)}, {"step", F(1e-308)}})),
              HasSubstr("not finite"));
  EXPECT_THAT(compile_error(creation_model("aten.arange.start_step", {1},
                                           {{"start", F(-9e18)}, {"end", F(9e18)}, {"step", F(0.5)}})),
              HasSubstr("does not fit int64"));
  EXPECT_THAT(compile_error(creation_model("aten.arange.start_step", {1},
                                           {{"start", I(INT64_MIN)}, {"end", I(INT64_MAX)}, {"step", I(1)}},
                                           DType::I64)),
              HasSubstr("does not fit int64"));
}

TEST(Limits, ExpandThenCloneOrSumIsRefusedAtLoad) {
  auto model = [](const std::string& op, const Shape& out_shape, AttrMap attrs) {
    Model m;
    m.graph_inputs.push_back(meta("x", {1}));
    m.nodes.push_back(make_node("e", "aten.expand.default", {meta("x", {1}, "x")}, {meta("e", {k2_62})},
                                {{"size", ints({k2_62})}}));
    m.nodes.push_back(make_node("r", op, {meta("e", {k2_62}, "e")}, {meta("r", out_shape)}, std::move(attrs)));
    m.graph_outputs.push_back(meta("r", out_shape, "r"));
    return m;
  };
  // The work cap (2^40 elements) stops the view already.
  EXPECT_THAT(compile_error(model("aten.sum.default", {}, {})),
              AllOf(HasSubstr("node 'e' (aten.expand.default)"), HasSubstr("max_run_work"),
                    HasSubstr("--max-run-work")));
  // With the work cap out of the way, clone's copy hits the tensor cap and
  // sum's 2^62-element reduction the work cap it was given.
  SessionOptions o;
  o.limits.max_run_work = INT64_MAX;
  EXPECT_THAT(compile_error(model("aten.clone.default", {k2_62}, {}), o),
              AllOf(HasSubstr("node 'r' (aten.clone.default) output 'r'"), HasSubstr("max_tensor_bytes")));
  o.limits.max_run_work = k2_62 + 10;
  EXPECT_THAT(compile_error(model("aten.sum.default", {}, {}), o),
              AllOf(HasSubstr("node 'r' (aten.sum.default)"), HasSubstr("max_run_work")));
}

TEST(Limits, TensorCapJustUnderAndOver) {
  SessionOptions o;
  o.limits.max_tensor_bytes = 1024 * 4;
  EXPECT_EQ(compile_error(relu_chain(1024, 3), o), "(no error)");
  o.limits.max_tensor_bytes = 1024 * 4 - 1;
  // The graph input is the first value over the cap.
  EXPECT_THAT(compile_error(relu_chain(1024, 3), o),
              AllOf(HasSubstr("graph input 'x'"), HasSubstr("4096 bytes"), HasSubstr("4095 bytes")));
}

TEST(Limits, ArenaAndWorkCapsFromOptions) {
  SessionOptions o;
  o.limits.max_arena_bytes = 2 * 4096;  // x plus one intermediate, but the plan needs a third slot
  EXPECT_THAT(compile_error(relu_chain(1024, 3), o),
              AllOf(HasSubstr("the memory plan"), HasSubstr("max_arena_bytes"), HasSubstr("--max-arena-bytes")));
  o.limits.max_arena_bytes = 4 * 4096;
  EXPECT_EQ(compile_error(relu_chain(1024, 3), o), "(no error)");
  o.limits.max_run_work = 3 * 1024 - 1;
  EXPECT_THAT(compile_error(relu_chain(1024, 3), o), AllOf(HasSubstr("node 'r2'"), HasSubstr("max_run_work")));
  o.limits.max_run_work = 3 * 1024;
  EXPECT_EQ(compile_error(relu_chain(1024, 3), o), "(no error)");
  o.limits.max_run_work = -1;
  EXPECT_THAT(compile_error(relu_chain(4, 1), o), HasSubstr("must not be negative"));
}

TEST(Limits, DefaultsFollowTheBuild) {
  const Limits d = default_limits();
  EXPECT_EQ(d.max_run_work, int64_t(1) << 40);
  if (sizeof(size_t) == 4) {
    EXPECT_EQ(d.max_tensor_bytes, size_t(1) << 31);
  } else {
    EXPECT_GT(d.max_tensor_bytes, size_t(1) << 24);  // physical memory
  }
  EXPECT_EQ(d.max_arena_bytes, d.max_tensor_bytes);
  Limits given;
  given.max_arena_bytes = 123;
  EXPECT_EQ(resolve_limits(given).max_arena_bytes, 123u);
  EXPECT_EQ(resolve_limits(given).max_tensor_bytes, d.max_tensor_bytes);
}

TEST(Limits, DeclaredWeightsAndConstantsAreChecked) {
  Model m = relu_chain(4, 1);
  m.weights.push_back(meta("w", {k2_62}));
  EXPECT_THAT(compile_error(m), AllOf(HasSubstr("weight 'w'"), HasSubstr("max_tensor_bytes")));
  Model c = relu_chain(4, 1);
  ConstantValue v;
  v.shape = {k2_62 / 2, 2};
  c.constants.push_back({"c", v});
  EXPECT_THAT(compile_error(c), AllOf(HasSubstr("constant 'c'"), HasSubstr("more than 2^64 bytes")));
}

TEST(Limits, ViewsOfExternalTensorsMustStayInTheirBuffer) {
  Tensor t = tensor_f32({4}, {1, 2, 3, 4});
  EXPECT_NO_THROW(check_view_in_buffer(t, "w"));
  EXPECT_THAT(error_of([&] { check_view_in_buffer(t.view_as({4}, {2}, 0), "w"); }),
              AllOf(HasSubstr("w: view with shape [4], strides [2]"), HasSubstr("reaches element 6")));
  EXPECT_THAT(error_of([&] { check_view_in_buffer(t.view_as({k2_62}, {1}, 0), "w"); }),
              HasSubstr("reaches element"));
  EXPECT_THAT(error_of([&] { check_view_in_buffer(t.view_as({4}, {k2_62}, 0), "w"); }), HasSubstr("overflows"));
  EXPECT_THAT(error_of([&] { check_view_in_buffer(t.view_as({2}, {1}, 3), "w"); }), HasSubstr("reaches element 4"));
  EXPECT_THAT(error_of([&] { check_view_in_buffer(t.view_as({2}, {1}, -1), "w"); }), HasSubstr("before"));
  // Stride 0 over one element is inside; the size is the tensor cap's business.
  EXPECT_NO_THROW(check_view_in_buffer(t.view_as({k2_62}, {0}, 3), "w"));
  EXPECT_NO_THROW(check_view_in_buffer(t.view_as({0}, {k2_62}, 4), "w"));
}

TEST(Limits, FedInputViewOutsideItsBufferIsRefused) {
  Session s(relu_chain(4, 1));
  Tensor big = tensor_f32({2}, {1, 2});
  EXPECT_THAT(error_of([&] { s.run({big.view_as({4}, {1}, 0)}); }),
              AllOf(HasSubstr("input 0 ('x')"), HasSubstr("reaches element 3")));
}

// --- dims of 0-d inputs ---------------------------------------------------------

TEST(Limits, SplitFamilyOn0dInputs) {
  const Tensor s = tensor_f32({}, {1});
  const struct {
    const char* op;
    AttrMap attrs;
  } cases[] = {
      {"aten.split.Tensor", {{"split_size", I(1)}, {"dim", I(0)}}},
      {"aten.unsafe_split.Tensor", {{"split_size", I(1)}}},
      {"aten.split.sizes", {{"split_size", ints({1})}}},
      {"aten.split_with_sizes.default", {{"split_sizes", ints({1})}, {"dim", I(-1)}}},
      {"aten.chunk.default", {{"chunks", I(1)}}},
      {"aten.unbind.int", {{"dim", I(0)}}},
      {"aten.narrow.default", {{"dim", I(0)}, {"start", I(0)}, {"length", I(1)}}},
      {"aten.unflatten.int", {{"dim", I(0)}, {"sizes", ints({1})}}},
  };
  for (const auto& c : cases) {
    const std::string err = error_of([&] { run_op(c.op, {s}, c.attrs, 1); });
    EXPECT_THAT(err, AllOf(HasSubstr(c.op), HasSubstr("has no dimensions (0-d)"))) << c.op;
  }
  // What torch allows on 0-d stays allowed: reductions and unsqueeze at dim 0/-1.
  EXPECT_EQ(error_of([&] { run_op("aten.sum.dim_IntList", {s}, {{"dim", ints({-1})}}); }), "(no error)");
  EXPECT_EQ(error_of([&] { run_op("aten.unsqueeze.default", {s}, {{"dim", I(0)}}); }), "(no error)");
  EXPECT_THAT(error_of([&] { run_op("aten.unsqueeze.default", {s}, {{"dim", I(2)}}); }), HasSubstr("out of range"));
}

// Every other dim-taking op on a 0-d input: torch's answer (dim 0 / -1 allowed
// where torch allows them) or a clear error, never a read of shape[0].
TEST(Limits, DimOpsOn0dInputsGiveResultsOrErrors) {
  const Tensor s = tensor_f32({}, {2});
  const Tensor idx = tensor_i64({}, {0});
  const Tensor idx1 = tensor_i64({1}, {0});
  const struct {
    const char* op;
    std::vector<Tensor> in;
    AttrMap attrs;
    size_t outs;
  } cases[] = {
      {"aten.cumsum.default", {s}, {{"dim", I(0)}}, 1},
      {"aten.cumprod.default", {s}, {{"dim", I(-1)}}, 1},
      {"aten.sort.default", {s}, {{"dim", I(0)}}, 2},
      {"aten.argsort.default", {s}, {{"dim", I(-1)}}, 1},
      {"aten.topk.default", {s}, {{"k", I(1)}, {"dim", I(0)}}, 2},
      {"aten._softmax.default", {s}, {{"dim", I(0)}, {"half_to_float", B(false)}}, 1},
      {"aten._log_softmax.default", {s}, {{"dim", I(-1)}, {"half_to_float", B(false)}}, 1},
      {"aten.logsumexp.default", {s}, {{"dim", ints({0})}}, 1},
      {"aten.max.dim", {s}, {{"dim", I(0)}}, 2},
      {"aten.argmax.default", {s}, {{"dim", I(0)}}, 1},
      {"aten.flip.default", {s}, {{"dims", ints({0})}}, 1},
      {"aten.roll.default", {s}, {{"shifts", ints({1})}, {"dims", ints({0})}}, 1},
      {"aten.gather.default", {s, idx}, {{"dim", I(0)}}, 1},
      {"aten.index_select.default", {s, idx1}, {{"dim", I(0)}}, 1},
      {"aten.index_add.default", {s, idx1, s}, {{"dim", I(0)}}, 1},
      {"aten.index_copy.default", {s, idx1, s}, {{"dim", I(0)}}, 1},
      {"aten.index_fill.int_Scalar", {s, idx1}, {{"dim", I(0)}, {"value", F(1)}}, 1},
      {"aten.scatter.src", {s, idx, s}, {{"dim", I(0)}}, 1},
      {"aten.scatter.value", {s, idx}, {{"dim", I(0)}, {"value", F(1)}}, 1},
      {"aten.select.int", {s}, {{"dim", I(0)}, {"index", I(0)}}, 1},
      {"aten.select_scatter.default", {s, s}, {{"dim", I(0)}, {"index", I(0)}}, 1},
      {"aten.slice_scatter.default", {s, s}, {{"dim", I(0)}}, 1},
      {"aten.repeat_interleave.self_int", {s}, {{"repeats", I(2)}, {"dim", I(0)}}, 1},
      {"aten.unfold.default", {s}, {{"dimension", I(0)}, {"size", I(1)}, {"step", I(1)}}, 1},
      {"aten.cat.default", {s, s}, {{"dim", I(0)}}, 1},
      {"aten.stack.default", {s, s}, {{"dim", I(0)}}, 1},
      {"aten.transpose.int", {s}, {{"dim0", I(0)}, {"dim1", I(-1)}}, 1},
      {"aten.squeeze.dim", {s}, {{"dim", I(0)}}, 1},
  };
  for (const auto& c : cases) {
    const std::string err = error_of([&] { run_op(c.op, c.in, c.attrs, c.outs); });
    // Either it ran, or the error is a clear one naming the node and op.
    if (err != "(no error)") EXPECT_THAT(err, HasSubstr(std::string("(") + c.op + ")")) << c.op;
  }
}

TEST(Limits, SplitSizesMustBeValid) {
  const Tensor x = tensor_f32({4}, {1, 2, 3, 4});
  EXPECT_THAT(error_of([&] { run_op("aten.split.Tensor", {x}, {{"split_size", I(-1)}}, 1); }),
              HasSubstr("split_size be non-negative, but got split_size=-1"));
  EXPECT_THAT(error_of([&] { run_op("aten.split.Tensor", {x}, {{"split_size", I(0)}}, 1); }),
              HasSubstr("split_size can only be 0 if dimension size is 0"));
  // A tiny split_size on a big dim: the piece count is compared, never looped.
  const Tensor wide = make_owned(DType::F32, {1 << 20});
  EXPECT_THAT(error_of([&] { run_op("aten.split.Tensor", {wide}, {{"split_size", I(1)}}, 2); }),
              HasSubstr("split gives 1048576 pieces but the IR lists 2"));
  EXPECT_THAT(error_of([&] { run_op("aten.split_with_sizes.default", {x}, {{"split_sizes", ints({-1, 5})}}, 2); }),
              HasSubstr("non-negative"));
  EXPECT_THAT(error_of([&] {
                run_op("aten.split_with_sizes.default", {x}, {{"split_sizes", ints({INT64_MAX, INT64_MAX})}}, 2);
              }),
              HasSubstr("do not add up"));
  EXPECT_THAT(error_of([&] { run_op("aten.chunk.default", {x}, {{"chunks", I(INT64_MAX)}}, 1); }),
              HasSubstr("split gives 4 pieces but the IR lists 1"));
  EXPECT_THAT(error_of([&] {
                run_op("aten.narrow.default", {x}, {{"dim", I(0)}, {"start", I(2)}, {"length", I(INT64_MAX)}});
              }),
              HasSubstr("exceeds dimension size"));
  auto pieces = run_op("aten.split.Tensor", {x}, {{"split_size", I(3)}}, 2).out;
  EXPECT_EQ(pieces[1].shape, Shape({1}));
}

TEST(Limits, ViewAndRepeatProductsAreOverflowChecked) {
  const Tensor x = tensor_f32({4}, {1, 2, 3, 4});
  EXPECT_THAT(error_of([&] { run_op("aten.view.default", {x}, {{"size", ints({k2_62, 4, 0, -1})}}); }),
              HasSubstr("is invalid for input of size 4"));
  EXPECT_THAT(error_of([&] { run_op("aten.view.default", {x}, {{"size", ints({k2_62, k2_62, -1})}}); }),
              HasSubstr("is invalid for input of size 4"));
  EXPECT_THAT(error_of([&] { run_op("aten.repeat.default", {x}, {{"repeats", ints({k2_62})}}); }),
              HasSubstr("overflows int64"));
  EXPECT_THAT(error_of([&] { run_op("aten.constant_pad_nd.default", {x}, {{"pad", ints({INT64_MAX, 1})}}); }),
              HasSubstr("overflows int64"));
}

// Kernels step one stride past the last window; huge strides, paddings and
// dilations must either not matter (one window) or be refused at plan time.
TEST(Limits, SlidingWindowGeometryIsBounded) {
  const Tensor x = tensor_f32({1, 1, 1, 3}, {1, 2, 3});
  const Tensor w = tensor_f32({1, 1, 1, 1}, {2});
  // One output column: the stride never steps, so any stride gives torch's answer.
  const Tensor y = run_op("aten.conv2d.default", {x, w}, {{"stride", ints({1, INT64_MAX - 1})}}).out[0];
  ASSERT_EQ(y.shape, Shape({1, 1, 1, 1}));
  EXPECT_EQ(y.data<float>()[0], 2.0f);
  // Two output columns reached only through a padding near 2^62: refused, naming the node.
  const std::string err = error_of([&] {
    run_op("aten.conv2d.default", {x, w}, {{"stride", ints({1, INT64_MAX - 1})}, {"padding", ints({0, (1LL << 62) - 2})}});
  });
  EXPECT_THAT(err, HasSubstr("(aten.conv2d.default): window geometry too large"));
  EXPECT_THAT(error_of([&] { run_op("aten.conv2d.default", {x, w}, {{"padding", ints({0, INT64_MAX / 2})}}); }),
              HasSubstr("(aten.conv2d.default): sliding window geometry: 3 + 9223372036854775806 overflows int64"));
  EXPECT_THAT(error_of([&] {
                run_op("aten.convolution.default", {x, w},
                       {{"stride", ints({1, 1LL << 41})}, {"padding", ints({0, 0})}, {"dilation", ints({1, 1})},
                        {"transposed", B(true)}, {"output_padding", ints({0, 0})}, {"groups", I(1)}});
              }),
              HasSubstr("window geometry too large"));
  const Tensor img = tensor_f32({1, 1, 2}, {1, 2});
  EXPECT_THAT(error_of([&] {
                run_op("aten.im2col.default", {img},
                       {{"kernel_size", ints({1, 1LL << 40})}, {"dilation", ints({1, 1})},
                        {"padding", ints({0, 1LL << 40})}, {"stride", ints({1, 1})}});
              }),
              HasSubstr("(aten.im2col.default): window geometry too large"));
}

// --- scale ---------------------------------------------------------------------

// Process CPU seconds: wall time on a loaded CI machine says little.
double cpu_seconds_since(std::clock_t t0) { return double(std::clock() - t0) / CLOCKS_PER_SEC; }

// The CPU budget of a scale test: what catches a quadratic pass natively (10-20 s when they
// were), 4x under ASan/TSan, whose instrumented build put the long chain at 5.01 s once.
double cpu_budget(double native_seconds) {
#ifdef TIR_TEST_SANITIZED
  return 4 * native_seconds;
#else
  return native_seconds;
#endif
}

TEST(Limits, LongChainCompilesInLinearishTime) {
  // 100k nodes: ~10 s of CPU with the quadratic planner, well under 2 s now.
  Model m = relu_chain(16, 100000);
  const std::clock_t t0 = std::clock();
  Session s(std::move(m));
  EXPECT_LT(cpu_seconds_since(t0), cpu_budget(5.0));
  EXPECT_EQ(s.arena_bytes(), 3u * 64);  // x, and two values taking turns
  auto y = s.run({tensor_f32({16}, std::vector<float>(16, -1.f))});
  EXPECT_EQ(values_f32(y[0])[0], 0.f);
}

TEST(Limits, ManyMappedWeightsAndInputsLookUpByHash) {
  Model m;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    const std::string k = std::to_string(i);
    m.graph_inputs.push_back(meta("x" + k, {1}));
    m.weights.push_back(meta("w.orig" + k, {1}));
    m.weight_name_mapping.push_back({"p_w" + k, "w.orig" + k});
    m.nodes.push_back(make_node("a" + k, "aten.add.Tensor", {meta("x" + k, {1}, "x" + k), meta("p_w" + k, {1})},
                                {meta("a" + k, {1})}));
    m.graph_outputs.push_back(meta("a" + k, {1}, "a" + k));
  }
  const ModelIndex index(m);
  EXPECT_EQ(index.find_weight("p_w7"), &m.weights[7]);
  EXPECT_EQ(index.original_name("p_w7"), "w.orig7");
  EXPECT_EQ(index.placeholders_of("w.orig7"), std::vector<std::string>{"p_w7"});
  EXPECT_EQ(index.find_graph_input("x9"), &m.graph_inputs[9]);
  EXPECT_EQ(index.find_weight("nope"), nullptr);
  TensorMap w;
  for (int i = 0; i < n; ++i) w.items.emplace_back("w.orig" + std::to_string(i), tensor_f32({1}, {float(i)}));
  const std::clock_t t0 = std::clock();
  Session s(std::move(m));
  s.bind(w);
  EXPECT_LT(cpu_seconds_since(t0), cpu_budget(5.0));  // ~20 s with linear lookups
}

TEST(Limits, ModelIndexResolvesOlderFilesTies) {
  // Older files: weights listed under placeholder names. The first mapping of
  // a placeholder wins; a weight named by the key or the name itself comes
  // first (file order), then the first placeholder of `name` naming a weight.
  Model m;
  m.weights = {meta("p_b", {1}), meta("a", {2}), meta("p_a", {3})};
  m.weight_name_mapping = {{"p_a", "a"}, {"p_a2", "a"}, {"p_b", "b"}, {"p_a", "other"}};
  m.graph_inputs = {meta("x", {1}), meta("x", {2})};
  const ModelIndex index(m);
  const std::vector<std::pair<std::string, const TensorMeta*>> weight_of = {
      {"p_a", &m.weights[1]}, {"p_a2", &m.weights[1]}, {"a", &m.weights[1]}, {"b", &m.weights[0]},
      {"p_b", &m.weights[0]}, {"other", &m.weights[2]}, {"zz", nullptr}};
  for (const auto& [name, w] : weight_of) EXPECT_EQ(index.find_weight(name), w) << name;
  EXPECT_EQ(index.original_name("p_a"), "a");
  EXPECT_EQ(index.original_name("p_b"), "b");
  EXPECT_EQ(index.original_name("zz"), "zz");
  EXPECT_EQ(index.placeholders_of("a"), (std::vector<std::string>{"p_a", "p_a2"}));
  EXPECT_EQ(index.placeholders_of("other"), std::vector<std::string>{"p_a"});
  EXPECT_TRUE(index.placeholders_of("p_a").empty());
  EXPECT_EQ(index.find_graph_input("x"), &m.graph_inputs[0]);
}

TEST(MemoryPlan, LargeRandomPlansNeverOverlapLiveRanges) {
  std::mt19937 rng(7);
  std::vector<LiveRange> r;
  for (int i = 0; i < 3000; ++i) {
    const int64_t first = int64_t(rng() % 500) - 1;
    r.push_back({size_t(rng() % 5000), first, first + int64_t(rng() % 40)});
  }
  r.push_back({100, -1, 539});  // whole span
  const MemoryPlan p = plan_memory(r);
  for (size_t a = 0; a < r.size(); ++a) {
    EXPECT_LE(p.offsets[a] + std::max<size_t>(r[a].nbytes, 1), p.total_bytes);
    for (size_t b = a + 1; b < r.size(); ++b) {
      if (r[a].first > r[b].last || r[b].first > r[a].last) continue;
      const bool apart = p.offsets[a] + std::max<size_t>(r[a].nbytes, 1) <= p.offsets[b] ||
                         p.offsets[b] + std::max<size_t>(r[b].nbytes, 1) <= p.offsets[a];
      ASSERT_TRUE(apart) << a << " and " << b << " share bytes while both alive";
    }
  }
}

}  // namespace
