// JSON IR loader: accepted variations of real exports, and error messages.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/errors.h"
#include "ir/json_loader.h"
#include "test_util.h"

namespace tir {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string seed_path(const std::string& name) { return test::fixtures_dir() + "/seeds/" + name + ".json"; }

const char* const kIn = R"({"name": "x", "shape": [2], "dtype": "float32", "producer_node": "x"})";
const char* const kOut = R"({"name": "n", "shape": [2], "dtype": "float32"})";

// A minimal valid file with one node; extra JSON members and tensors spliced in.
std::string one_node(const std::string& node_extra, const std::string& top_extra = "",
                     const std::string& in = kIn, const std::string& out = kOut) {
  return R"({"model_name": "m", "graph_inputs": [{"name": "x", "shape": [2], "dtype": "float32"}],
    "graph_outputs": [{"name": "n", "shape": [2], "dtype": "float32"}], "weights": [],
    "weight_name_mapping": {}, )" + top_extra + R"(
    "nodes": [{"name": "n", "op_type": "aten.relu.default", "inputs": [)" + in + R"(],
      "outputs": [)" + out + "]" + node_extra + "}]}";
}

std::string load_error(const std::string& text, const std::string& origin = "model.json") {
  try {
    load_model_json(text, origin);
  } catch (const IRFormatError& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(IrLoader, LoadsSimpleMlpSeed) {
  Model m = load_model_file(seed_path("SimpleMLP"));
  EXPECT_EQ(m.model_name, "SimpleMLP");
  EXPECT_EQ(m.pytorch_version, "2.x.x");
  ASSERT_EQ(m.graph_inputs.size(), 1u);
  EXPECT_EQ(m.graph_inputs[0].name, "x");
  EXPECT_EQ(m.graph_inputs[0].shape, (Shape{1, 4}));
  EXPECT_EQ(m.graph_inputs[0].dtype, DType::F32);
  ASSERT_EQ(m.graph_outputs.size(), 1u);
  EXPECT_EQ(m.graph_outputs[0].name, "linear_1");
  ASSERT_EQ(m.weights.size(), 4u);
  EXPECT_EQ(m.weights[2].name, "fc2.weight");
  EXPECT_EQ(m.weights[2].shape, (Shape{2, 8}));
  ASSERT_EQ(m.weight_name_mapping.size(), 4u);  // file order kept
  EXPECT_EQ(m.weight_name_mapping[0], std::make_pair(std::string("p_fc1_weight"), std::string("fc1.weight")));
  EXPECT_EQ(m.weight_name_mapping[3].first, "p_fc2_bias");
  ASSERT_EQ(m.nodes.size(), 3u);
  const OpNode& lin = m.nodes[0];
  EXPECT_EQ(lin.name, "linear");
  EXPECT_EQ(lin.op_type, "aten.linear.default");
  ASSERT_EQ(lin.inputs.size(), 3u);
  EXPECT_EQ(lin.inputs[0].producer_node, "x");
  EXPECT_TRUE(lin.inputs[0].has_producer());
  EXPECT_FALSE(lin.inputs[1].has_producer());
  EXPECT_EQ(lin.inputs[1].name, "p_fc1_weight");
  EXPECT_TRUE(lin.attrs.empty());
  EXPECT_EQ(m.nodes[1].inputs[0].producer_node, "linear");
  EXPECT_EQ(ModelIndex(m).find_weight("p_fc2_bias"), &m.weights[3]);
  EXPECT_TRUE(m.constants.empty());
}

TEST(IrLoader, FloatAndIntConstantsFromSeeds) {
  Model b = load_model_file(seed_path("BufferVsConstant"));
  EXPECT_EQ(b.pytorch_version, "");  // absent in this file
  ASSERT_EQ(b.constants.size(), 1u);
  EXPECT_EQ(b.constants[0].first, "offset");
  const ConstantValue& off = b.constants[0].second;
  EXPECT_EQ(off.dtype, DType::F32);
  EXPECT_EQ(off.shape, (Shape{4}));
  EXPECT_EQ(off.values, (std::vector<double>{0.1, 0.2, 0.3, 0.4}));
  EXPECT_TRUE(off.ints.empty());

  Model g = load_model_file(seed_path("GatherWithIndex"));
  ASSERT_EQ(g.constants.size(), 1u);
  EXPECT_EQ(g.constants[0].first, "indices");
  const ConstantValue& idx = g.constants[0].second;
  EXPECT_EQ(idx.dtype, DType::I64);
  EXPECT_EQ(idx.shape, (Shape{4}));
  EXPECT_EQ(idx.ints, (std::vector<int64_t>{0, 2, 4, 6}));
  EXPECT_EQ(idx.values, (std::vector<double>{0, 2, 4, 6}));
}

TEST(IrLoader, NestedScalarEmptyAndBoolConstants) {
  Model m = load_model_json(one_node("", R"("constants": {
      "grid": {"data": [[1, 2, 3], [4, 5, 9223372036854775807]], "dtype": "torch.int64"},
      "scalar": {"data": 0.10000000149011612, "dtype": "float32"},
      "empty": {"data": [], "dtype": "float32"},
      "empty2": {"data": [[], []], "dtype": "int32"},
      "flags": {"data": [true, false, 1, 0.0], "dtype": "bool"},
      "trunc": {"data": [1.7, -2.9], "dtype": "int64"},
      "special": {"data": [NaN, -Infinity], "dtype": 6}},)"));
  ASSERT_EQ(m.constants.size(), 7u);
  const ConstantValue& grid = m.constants[0].second;
  EXPECT_EQ(grid.dtype, DType::I64);
  EXPECT_EQ(grid.shape, (Shape{2, 3}));
  EXPECT_EQ(grid.ints, (std::vector<int64_t>{1, 2, 3, 4, 5, std::numeric_limits<int64_t>::max()}));
  const ConstantValue& scalar = m.constants[1].second;
  EXPECT_EQ(scalar.shape, Shape{});
  ASSERT_EQ(scalar.values.size(), 1u);
  EXPECT_EQ(scalar.values[0], 0.10000000149011612);
  EXPECT_EQ(m.constants[2].second.shape, (Shape{0}));
  EXPECT_TRUE(m.constants[2].second.values.empty());
  EXPECT_EQ(m.constants[3].second.shape, (Shape{2, 0}));
  const ConstantValue& flags = m.constants[4].second;
  EXPECT_EQ(flags.dtype, DType::Bool);
  EXPECT_EQ(flags.ints, (std::vector<int64_t>{1, 0, 1, 0}));
  EXPECT_EQ(m.constants[5].second.ints, (std::vector<int64_t>{1, -2}));
  const ConstantValue& special = m.constants[6].second;
  EXPECT_EQ(special.dtype, DType::F32);
  EXPECT_TRUE(std::isnan(special.values[0]));
  EXPECT_EQ(special.values[1], -INFINITY);
}

TEST(IrLoader, NonFiniteAndLargeIntAttrs) {
  Model m = load_model_json(one_node(R"(, "attrs": {"value": NaN, "min": -Infinity, "max": Infinity,
      "end": 9223372036854775807, "start": -9223372036854775808, "huge": 9223372036854775808,
      "two": 2, "two_f": 2.0, "eps": 1e-05})"));
  const AttrMap& a = m.nodes[0].attrs;
  EXPECT_EQ(a.at("value").kind, Attr::Kind::Float);
  EXPECT_TRUE(std::isnan(a.at("value").f));
  EXPECT_EQ(a.at("min").f, -INFINITY);
  EXPECT_EQ(a.at("max").f, INFINITY);
  EXPECT_EQ(a.at("end").kind, Attr::Kind::Int);
  EXPECT_EQ(a.at("end").i, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(a.at("start").i, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(a.at("huge").kind, Attr::Kind::Int);  // beyond int64: clamped
  EXPECT_EQ(a.at("huge").i, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(a.at("two").kind, Attr::Kind::Int);
  EXPECT_EQ(a.at("two").i, 2);
  EXPECT_EQ(a.at("two_f").kind, Attr::Kind::Float);  // 2.0 is a Python float
  EXPECT_EQ(a.at("two_f").f, 2.0);
  EXPECT_EQ(a.at("eps").f, 1e-05);
}

TEST(IrLoader, NullNestedAndStringAttrs) {
  Model m = load_model_json(one_node(R"(, "attrs": {"output_size": null, "scale_factors": [2.0, 2.0],
      "_tensor_list_none_masks": [[true, false], [false]], "dtype": "torch.float32", "device": "meta",
      "keepdim": true, "weird": {"k": [1, NaN]}})"));
  const AttrMap& a = m.nodes[0].attrs;
  ASSERT_EQ(a.count("output_size"), 1u);
  EXPECT_TRUE(a.at("output_size").is_none());
  const Attr& masks = a.at("_tensor_list_none_masks");
  ASSERT_EQ(masks.kind, Attr::Kind::List);
  ASSERT_EQ(masks.list.size(), 2u);
  ASSERT_EQ(masks.list[0].list.size(), 2u);
  EXPECT_EQ(masks.list[0].list[0].kind, Attr::Kind::Bool);
  EXPECT_TRUE(masks.list[0].list[0].b);
  EXPECT_FALSE(masks.list[1].list[0].b);
  EXPECT_EQ(a.at("scale_factors").list[1].f, 2.0);
  EXPECT_EQ(a.at("dtype").s, "torch.float32");
  EXPECT_EQ(a.at("device").s, "meta");
  EXPECT_TRUE(a.at("keepdim").b);
  EXPECT_EQ(a.at("weird").kind, Attr::Kind::String);  // dicts are kept as JSON text
  EXPECT_EQ(a.at("weird").s, R"({"k":[1,NaN]})");
}

TEST(IrLoader, AbsentOrNullAttrsAreEmpty) {
  EXPECT_TRUE(load_model_json(one_node("")).nodes[0].attrs.empty());
  EXPECT_TRUE(load_model_json(one_node(R"(, "attrs": null)")).nodes[0].attrs.empty());
}

TEST(IrLoader, DtypeSpellings) {
  const std::string text = R"({"graph_inputs": [
      {"name": "a", "shape": [1], "dtype": "torch.int64"},
      {"name": "b", "shape": [1], "dtype": 4},
      {"name": "c", "shape": [1], "dtype": "long"},
      {"name": "d", "shape": [1], "dtype": 11},
      {"name": "e", "shape": [], "dtype": "bfloat16"},
      {"name": "f", "shape": [1], "dtype": "torch.float16"}],
    "graph_outputs": [], "weights": [], "nodes": []})";
  Model m = load_model_json(text);
  ASSERT_EQ(m.graph_inputs.size(), 6u);
  EXPECT_EQ(m.graph_inputs[0].dtype, DType::I64);
  EXPECT_EQ(m.graph_inputs[1].dtype, DType::I64);
  EXPECT_EQ(m.graph_inputs[2].dtype, DType::I64);
  EXPECT_EQ(m.graph_inputs[3].dtype, DType::Bool);
  EXPECT_EQ(m.graph_inputs[4].dtype, DType::BF16);
  EXPECT_EQ(m.graph_inputs[4].shape, Shape{});
  EXPECT_EQ(m.graph_inputs[5].dtype, DType::F16);
  EXPECT_EQ(m.model_name, "");
  EXPECT_TRUE(m.weight_name_mapping.empty());
}

TEST(IrLoader, UnknownKeysIgnoredAndDefaults) {
  const std::string text = R"({"format_version": 7, "extra": {"a": [1, 2]},
    "graph_inputs": [{"name": "x", "shape": [3], "dtype": "float32", "requires_grad": false}],
    "graph_outputs": [{"name": "relu", "shape": [3], "dtype": "float32"}],
    "nodes": [{"name": "relu", "op_type": "aten.relu.default", "stack_trace": "...",
      "inputs": [{"name": "x", "shape": [3], "dtype": "float32", "producer_node": "x"}],
      "outputs": [{"name": "relu", "shape": [3], "dtype": "float32", "producer_node": null}]}]})";
  Model m = load_model_json(text);
  EXPECT_TRUE(m.weights.empty());  // absent `weights` tolerated
  ASSERT_EQ(m.nodes.size(), 1u);
  EXPECT_EQ(m.nodes[0].inputs[0].producer_output_idx, 0);  // absent: 0
  EXPECT_FALSE(m.nodes[0].outputs[0].has_producer());
}

TEST(IrLoader, ProducerOutputIdxRead) {
  Model m = load_model_json(one_node("", "", R"({"name": "x", "shape": [2], "dtype": "float32",
      "producer_node": "x", "producer_output_idx": 3})"));
  EXPECT_EQ(m.nodes[0].inputs[0].producer_output_idx, 3);
}

TEST(IrLoader, PlaceholderNamedWeights) {
  const std::string text = R"({"graph_inputs": [{"name": "x", "shape": [1, 4], "dtype": "float32"}],
    "graph_outputs": [{"name": "linear", "shape": [1, 8], "dtype": "float32"}],
    "weights": [{"name": "p_fc1_weight", "shape": [8, 4], "dtype": "float32"}],
    "weight_name_mapping": {"p_fc1_weight": "fc1.weight"},
    "nodes": [{"name": "linear", "op_type": "aten.linear.default",
      "inputs": [{"name": "x", "shape": [1, 4], "dtype": "float32", "producer_node": "x"},
                 {"name": "p_fc1_weight", "shape": [8, 4], "dtype": "float32"}],
      "outputs": [{"name": "linear", "shape": [1, 8], "dtype": "float32"}], "attrs": {}}]})";
  Model m = load_model_json(text);
  ASSERT_EQ(m.weights.size(), 1u);
  const ModelIndex index(m);
  EXPECT_EQ(index.find_weight("p_fc1_weight"), &m.weights[0]);
  EXPECT_EQ(index.find_weight("fc1.weight"), &m.weights[0]);
  EXPECT_EQ(index.original_name("p_fc1_weight"), "fc1.weight");
}

TEST(IrLoader, DuplicateKeysKeepLastLikePython) {
  Model m = load_model_json(one_node(R"(, "attrs": {"dim": 0, "dim": 1})",
                                     R"("weight_name_mapping": {"p_a": "a", "p_b": "b", "p_a": "c"},)"));
  EXPECT_EQ(m.nodes[0].attrs.at("dim").i, 1);
  ASSERT_EQ(m.weight_name_mapping.size(), 2u);
  EXPECT_EQ(m.weight_name_mapping[0], std::make_pair(std::string("p_a"), std::string("c")));
}

// ---- errors ----

TEST(IrLoaderErrors, SyntaxErrorHasLineAndColumn) {
  EXPECT_EQ(load_error("{\n  \"a\": 1,\n  \"b\": ]\n}"),
            "model.json: JSON parse error at line 3, column 8: Invalid value.");
  EXPECT_THAT(load_error("{\"nodes\": [1, 2,]}"), HasSubstr("JSON parse error at line 1, column 17"));
  EXPECT_THAT(load_error(""), HasSubstr("line 1, column 1: The document is empty."));
  EXPECT_THAT(load_error("{} x"), HasSubstr("root must not be followed by other values"));
  EXPECT_THAT(load_error("{\"a\": \"unterminated}"), StartsWith("model.json: JSON parse error at line 1"));
}

TEST(IrLoaderErrors, TopLevelAndMissingFields) {
  EXPECT_THAT(load_error("[1, 2]"), HasSubstr("model.json: expected a JSON object at the top level, got a list"));
  EXPECT_EQ(load_error(R"({"graph_inputs": [], "graph_outputs": [], "weights": []})"),
            "model.json: missing required field 'nodes'");
  EXPECT_THAT(load_error(R"({"graph_inputs": [], "graph_outputs": [], "nodes": {}})"),
              HasSubstr("model.json: nodes: expected a list of nodes, got an object"));
  EXPECT_THAT(load_error(one_node("", "", kIn, R"({"name": "n", "shape": [2]})")),
              HasSubstr("model.json: nodes[0] ('n').outputs[0]: missing required field 'dtype'"));
  EXPECT_THAT(load_error(R"({"graph_inputs": [], "graph_outputs": [],
                             "nodes": [{"name": "n", "inputs": [], "outputs": []}]})"),
              HasSubstr("model.json: nodes[0] ('n'): missing required field 'op_type'"));
  EXPECT_THAT(load_error(one_node("", "", R"({"shape": [2], "dtype": "float32"})")),
              HasSubstr("nodes[0] ('n').inputs[0]: missing required field 'name'"));
}

TEST(IrLoaderErrors, IllTypedFieldsNameTheirPath) {
  EXPECT_EQ(load_error(one_node("", "", kIn, R"({"name": "n", "shape": "2", "dtype": "float32"})")), "model.json: nodes[0] ('n').outputs[0].shape: expected a list of ints");
  EXPECT_THAT(load_error(R"({"graph_inputs": [], "graph_outputs": [], "nodes": [{"name": 5}]})"),
              HasSubstr("nodes[0].name: expected a string, got a number"));
  EXPECT_THAT(load_error(one_node(R"(, "attrs": [1])")), HasSubstr("nodes[0] ('n').attrs: expected an object, got a list"));
  EXPECT_THAT(load_error(one_node("", R"("weight_name_mapping": {"p_a": 3},)")),
              HasSubstr("weight_name_mapping['p_a']: expected a string, got a number"));
  EXPECT_THAT(load_error(R"({"graph_inputs": [{"name": "x", "shape": [1], "dtype": "float32", "producer_output_idx": -1}],
                             "graph_outputs": [], "nodes": []})"),
              HasSubstr("graph_inputs[0].producer_output_idx: expected a non-negative int"));
  EXPECT_THAT(load_error(R"({"graph_inputs": [7], "graph_outputs": [], "nodes": []})"),
              HasSubstr("graph_inputs[0]: expected a tensor object, got a number"));
}

TEST(IrLoaderErrors, BadDims) {
  const auto with_shape = [](const std::string& shape) {
    return R"({"graph_inputs": [{"name": "x", "shape": )" + shape +
           R"(, "dtype": "float32"}], "graph_outputs": [], "nodes": []})";
  };
  EXPECT_EQ(load_error(with_shape("[1, -1]")), "model.json: graph_inputs[0].shape[1]: negative dim -1");
  EXPECT_THAT(load_error(with_shape("[2.5]")), HasSubstr("graph_inputs[0].shape[0]: expected an int dim, got 2.5"));
  EXPECT_THAT(load_error(with_shape("[1, \"s0\"]")), HasSubstr("shape[1]: expected an int dim, got a string \"s0\""));
  EXPECT_THAT(load_error(with_shape("[true]")), HasSubstr("shape[0]: expected an int dim, got a bool"));
  EXPECT_THAT(load_error(with_shape("[9223372036854775808]")), HasSubstr("shape[0]: expected an int dim"));
}

TEST(IrLoaderErrors, UnknownDtypes) {
  const auto with_dtype = [](const std::string& dtype) {
    return R"({"graph_inputs": [{"name": "x", "shape": [1], "dtype": )" + dtype +
           R"(}], "graph_outputs": [], "nodes": []})";
  };
  EXPECT_EQ(load_error(with_dtype("\"qint8\"")), "model.json: graph_inputs[0].dtype: unknown dtype 'qint8'");
  EXPECT_THAT(load_error(with_dtype("99")), HasSubstr("graph_inputs[0].dtype: unknown dtype 99"));
  EXPECT_THAT(load_error(with_dtype("null")), HasSubstr("dtype: expected a dtype name or ScalarType int, got null"));
}

TEST(IrLoaderErrors, BadConstants) {
  EXPECT_THAT(load_error(one_node("", R"("constants": {"m": {"data": [[1, 2], [3]], "dtype": "int64"}},)")),
              HasSubstr("constants['m'].data[1]: ragged nested list: expected 2 elements, got 1"));
  EXPECT_THAT(load_error(one_node("", R"("constants": {"m": {"data": [[1, 2], 3], "dtype": "int64"}},)")),
              HasSubstr("constants['m'].data[1]: ragged nested list: expected a list, got a number"));
  EXPECT_THAT(load_error(one_node("", R"("constants": {"m": {"data": [1, [2]], "dtype": "float32"}},)")),
              HasSubstr("constants['m'].data[1]: expected a number, got a list"));
  EXPECT_THAT(load_error(one_node("", R"("constants": {"m": {"data": ["a"], "dtype": "float32"}},)")),
              HasSubstr("constants['m'].data[0]: expected a number, got a string"));
  EXPECT_THAT(load_error(one_node("", R"("constants": {"m": {"data": [1]}},)")),
              HasSubstr("constants['m']: missing required field 'dtype'"));
  EXPECT_THAT(load_error(one_node("", R"("constants": {"m": {"data": [1], "dtype": "float8"}},)")),
              HasSubstr("constants['m'].dtype: unknown dtype 'float8'"));
  EXPECT_THAT(load_error(one_node("", R"("constants": {"m": [1, 2]},)")),
              HasSubstr("constants['m']: expected an object with 'data' and 'dtype', got a list"));
  EXPECT_THAT(load_error(one_node("", R"("constants": {"m": {"data": [NaN], "dtype": "int64"}},)")),
              HasSubstr("constants['m'].data[0]: value NaN does not fit an integer dtype"));
}

TEST(IrLoaderErrors, FileErrorsNameTheFile) {
  const std::string missing = test::fixtures_dir() + "/ir_bad/does_not_exist.json";
  try {
    load_model_file(missing);
    FAIL() << "expected IRFormatError";
  } catch (const IRFormatError& e) {
    EXPECT_THAT(e.what(), HasSubstr(missing + ": cannot open IR file"));
  }
  const std::string bad = test::fixtures_dir() + "/ir_bad/syntax_error.json";
  ASSERT_TRUE(test::file_exists(bad));
  try {
    load_model_file(bad);
    FAIL() << "expected IRFormatError";
  } catch (const IRFormatError& e) {
    EXPECT_EQ(std::string(e.what()), bad + ": JSON parse error at line 4, column 5: Missing a comma or '}' after an object member.");
  }
}

}  // namespace
}  // namespace tir
