// Hostile inputs to the parsers (issue 10): the JSON reader's limits and
// non-recursive paths, safetensors header checks, pickle bounds and
// non-quadratic dicts, zip lookups and consistency, torch.save view extents.
// Each case asserts the error class and its message.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>

#include "core/errors.h"
#include "core/file_io.h"
#include "core/json.h"
#include "ir/json_loader.h"
#include "test_util.h"
#include "weight_builders.h"
#include "weights/pickle.h"
#include "weights/safetensors.h"
#include "weights/torch_save.h"

using namespace tir;
using namespace tir::test_weights;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using namespace std::string_literals;

namespace {

using Bytes = std::shared_ptr<const std::vector<uint8_t>>;
Bytes make_bytes(const std::string& s) { return std::make_shared<std::vector<uint8_t>>(s.begin(), s.end()); }

std::string weight_error(const std::string& contents, const std::string& origin) {
  try {
    read_weights_bytes(make_bytes(contents), origin);
  } catch (const WeightLoadError& e) {
    return e.what();
  }
  return "<no error>";
}

std::string json_error(const std::string& text, const json::Limits& limits = json::Limits()) {
  try {
    json::Document::parse(text, limits);
  } catch (const json::ParseError& e) {
    return e.message();
  }
  return "<no error>";
}

std::string nested(const std::string& open, const std::string& inner, const std::string& close, size_t n) {
  std::string s;
  s.reserve((open.size() + close.size()) * n + inner.size());
  for (size_t k = 0; k < n; ++k) s += open;
  s += inner;
  for (size_t k = 0; k < n; ++k) s += close;
  return s;
}

double seconds_of(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// ---------------------------------------------------------------- JSON reader

TEST(JsonReader, ValuesAsPythonWritesThem) {
  const auto doc = json::Document::parse(
      "\xEF\xBB\xBF{\"i\": -9223372036854775808, \"u\": 18446744073709551615, \"big\": 123456789012345678901234,"
      " \"f\": 2.0, \"n\": [NaN, Infinity, -Infinity], \"s\": \"\\u00e9\\ud83d\\ude00\", \"i\": 7}");
  const json::Value r = doc.root();
  ASSERT_EQ(r.size(), 7u);
  EXPECT_EQ(r["i"].as_int64(), 7);  // the last of duplicated keys
  EXPECT_EQ(r.begin().operator*().key(), "i");  // ... in the first one's position
  EXPECT_EQ((*r.begin()).as_int64(), INT64_MIN);
  EXPECT_TRUE(r["u"].is_uint64());
  EXPECT_FALSE(r["u"].is_int64());
  EXPECT_EQ(r["u"].as_uint64(), UINT64_MAX);
  EXPECT_EQ(r["big"].type(), json::Type::Float);
  EXPECT_EQ(r["big"].as_double(), 123456789012345678901234.0);
  EXPECT_EQ(r["f"].type(), json::Type::Float);  // 2.0 stays a float
  EXPECT_TRUE(std::isnan(r["n"].at(0).as_double()));
  EXPECT_EQ(r["n"].at(2).as_double(), -INFINITY);
  EXPECT_EQ(r["s"].str(), "\xC3\xA9\xF0\x9F\x98\x80");
  EXPECT_EQ(json::Document::parse("[0.1, 5e-324, 1.7976931348623157e308]").root().at(1).as_double(), 5e-324);
}

TEST(JsonReader, SyntaxErrorsHaveLineAndColumn) {
  EXPECT_EQ(json_error("[1,\n 2,]"), "JSON parse error at line 2, column 4: Invalid value.");
  EXPECT_EQ(json_error("[\"\\ud800\"]"), "JSON parse error at line 1, column 3: The surrogate pair in string is invalid.");
  EXPECT_EQ(json_error("[\"a\x01\"]"), "JSON parse error at line 1, column 4: Invalid encoding in string.");
  EXPECT_EQ(json_error("[1e999]"), "JSON parse error at line 1, column 2: Number too big to be stored in double.");
  EXPECT_EQ(json_error("{\"a\" 1}"), "JSON parse error at line 1, column 6: Missing a colon after a name of object member.");
  EXPECT_EQ(json_error("[1."), "JSON parse error at line 1, column 4: Miss fraction part in number.");
  EXPECT_EQ(json_error("[\"\\x\"]"), "JSON parse error at line 1, column 3: Invalid escape character in string.");
  EXPECT_EQ(json_error(std::string("[1, 2") + '\0' + "]"),
            "JSON parse error at line 1, column 6: Missing a comma or ']' after an array element.");
}

TEST(JsonReader, LimitsNameTheJsonPath) {
  EXPECT_EQ(json_error(nested("[", "", "]", 100000)),
            "[0][0][0][0][0][0][0][0]...(244 levels)...[0][0][0][0]: JSON nesting deeper than 256 levels "
            "(limit max_depth) (line 1, column 257)");
  json::Limits small;
  small.max_string_bytes = 4;
  EXPECT_EQ(json_error("{\"a\": {\"key\": \"12345\"}}", small),
            "a.key: JSON string longer than 4 bytes (limit max_string_bytes) (line 1, column 15)");
  EXPECT_EQ(json_error("{\"a\": {\"12345\": 1}}", small),
            "a: JSON string longer than 4 bytes (limit max_string_bytes) (line 1, column 8)");
  small = json::Limits();
  small.max_values = 3;
  EXPECT_EQ(json_error("{\"x\": [1, 2]}", small),
            "x[1]: JSON has more than 3 values (limit max_values) (line 1, column 12)");
  small = json::Limits();
  small.max_text_bytes = 4;
  EXPECT_EQ(json_error("[1, 2]", small), "JSON text is 6 bytes, over the limit of 4 (limit max_text_bytes) (line 1, column 1)");
}

TEST(JsonReader, DeepValuesSerializeWithoutRecursion) {
  // 200 levels (under the default depth) through to_json, then destroyed: a flat walk.
  const std::string text = nested("{\"k\":[", "1.5", "]}", 120);
  const auto doc = json::Document::parse(text);
  EXPECT_EQ(doc.root().to_json(), text);
  EXPECT_EQ(json::Document::parse("{\"a\":\"q\\\"\\n\\u0001\",\"b\":[1e21,-0.0,0.1,NaN]}").root().to_json(),
            "{\"a\":\"q\\\"\\n\\u0001\",\"b\":[1e+21,-0.0,0.1,NaN]}");
}

// ---------------------------------------------------------------- IR loader

std::string ir_error(const std::string& text, const json::Limits& limits = json::Limits()) {
  try {
    load_model_json(text, "model.json", limits);
  } catch (const IRFormatError& e) {
    return e.what();
  }
  return "<no error>";
}

const char* const kIrHead = R"({"graph_inputs": [], "graph_outputs": [], "nodes": [{"name": "n", "op_type": "aten.relu.default",
  "inputs": [], "outputs": [], "attrs": {"deep": )";

TEST(HostileIr, DictAttrNested100kIsRefusedWithItsPath) {
  const std::string text = kIrHead + nested("{\"a\":", "1", "}", 100000) + "}}]}";
  EXPECT_THAT(ir_error(text), StartsWith("model.json: nodes[0].attrs.deep.a.a.a.a...(244 levels)...a.a.a.a: "
                                         "JSON nesting deeper than 256 levels (limit max_depth) (line 2, column "));
  // Under the limit, a deep dict attr is kept as its JSON text (no recursion writing it).
  const Model m = load_model_json(kIrHead + nested("{\"a\":", "1", "}", 250) + "}}]}");
  EXPECT_EQ(m.nodes[0].attrs.at("deep").s, nested("{\"a\":", "1", "}", 250));
}

TEST(HostileIr, ListAttrDepthAndSizeLimits) {
  EXPECT_THAT(ir_error(kIrHead + nested("[", "1", "]", 230) + "}}]}"),
              HasSubstr("model.json: nodes[0] ('n').attrs.deep[0][0]"));
  EXPECT_THAT(ir_error(kIrHead + nested("[", "1", "]", 230) + "}}]}"), HasSubstr("nesting too deep"));
  json::Limits small;
  small.max_text_bytes = 64;
  EXPECT_EQ(ir_error(std::string(kIrHead) + "1}}]}", small),
            "model.json: JSON text is 152 bytes, over the limit of 64 (limit max_text_bytes) (line 1, column 1)");
}

TEST(HostileIr, OversizedFileIsRefusedBeforeReading) {
  const std::string path = ::testing::TempDir() + "hostile_big_ir.json";
  const std::string text = std::string(kIrHead) + "1}}]}";
  write_file_bytes(path, std::vector<uint8_t>(text.begin(), text.end()));
  json::Limits small;
  small.max_text_bytes = 100;
  try {
    load_model_file(path, small);
    FAIL() << "expected IRFormatError";
  } catch (const IRFormatError& e) {
    EXPECT_EQ(std::string(e.what()), path + ": JSON text is 152 bytes, over the limit of 100 (limit max_text_bytes)");
  }
  std::remove(path.c_str());
}

// ---------------------------------------------------------------- safetensors

std::string le64(uint64_t n) { return ZipBuilder::le(n, 8); }
std::string st(const std::string& header, size_t data_bytes) {
  return le64(header.size()) + header + std::string(data_bytes, '\0');
}

TEST(HostileSafetensors, HeaderLengthCapAndNesting) {
  EXPECT_EQ(weight_error(le64(100u << 20 | 1) + "{}", "w.safetensors"),
            "w.safetensors: not a safetensors file: header length 104857601 is over the 104857600-byte limit");
  EXPECT_EQ(weight_error(st("{\"__metadata__\":" + nested("{\"a\":", "\"x\"", "}", 200000) + "}", 0), "w.safetensors"),
            "w.safetensors: invalid JSON header: __metadata__.a.a.a.a.a.a.a: JSON nesting deeper than 8 levels "
            "(limit max_depth) (line 1, column 52)");
  EXPECT_THAT(weight_error(st("{\"t\":{\"shape\":" + nested("[", "", "]", 200000) + "}}", 0), "w.safetensors"),
              HasSubstr("w.safetensors: invalid JSON header: t.shape[0][0][0][0][0][0]: JSON nesting deeper than 8 levels"));
}

TEST(HostileSafetensors, OffsetsMetadataAndShapes) {
  const std::string ab = R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},)"
                         R"( "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}})";
  EXPECT_EQ(weight_error(st(ab, 12), "w.safetensors"),
            "w.safetensors: tensors 'a' (bytes [0, 8)) and 'b' (bytes [4, 12)) overlap");
  // Empty tensors may sit anywhere in range, and adjacent ranges are fine.
  EXPECT_EQ(read_safetensors(make_bytes(st(R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},)"
                                           R"( "e": {"dtype": "F32", "shape": [0], "data_offsets": [4, 4]},)"
                                           R"( "b": {"dtype": "F32", "shape": [1], "data_offsets": [8, 12]}})", 12)),
                             "w").items.size(), 3u);
  EXPECT_EQ(weight_error(st(R"({"__metadata__": {"format": "pt", "n": 3}})", 0), "w.safetensors"),
            "w.safetensors: invalid header: __metadata__['n'] must be a string");
  EXPECT_EQ(weight_error(st(R"({"__metadata__": {}, "__metadata__": {}})", 0), "w.safetensors"),
            "w.safetensors: duplicate tensor '__metadata__' in header");
  EXPECT_EQ(weight_error(st(R"({"a": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]},)"
                            R"( "a": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]}})", 1), "w.safetensors"),
            "w.safetensors: duplicate tensor 'a' in header");
  std::string dims = "[";
  for (int k = 0; k < 65; ++k) dims += k ? ",1" : "1";
  EXPECT_EQ(weight_error(st(R"({"a": {"dtype": "U8", "shape": )" + dims + R"(], "data_offsets": [0, 1]}})", 1), "w"),
            "w: tensor 'a': shape has 65 dimensions");
  EXPECT_EQ(weight_error(st(R"({"a": {"dtype": "F64", "shape": [1152921504606846976, 2], "data_offsets": [0, 8]}})", 8), "w"),
            "w: tensor 'a': shape [1152921504606846976, 2] is too large");
  EXPECT_EQ(weight_error(st(R"({"a": {"dtype": "U8", "shape": [1], "data_offsets": [18446744073709551615, 1]}})", 1), "w"),
            "w: tensor 'a': data_offsets [18446744073709551615, 1]: begin is after end");
  EXPECT_EQ(weight_error(st(R"({"a": {"dtype": "U8", "shape": [1], "data_offsets": [0, 18446744073709551616]}})", 1), "w"),
            "w: tensor 'a': 'data_offsets' must be two non-negative integers");
}

// ---------------------------------------------------------------- pickle

struct Plain : weights_internal::Unpickler {
  using Unpickler::Unpickler;
  weights_internal::PyObj* find_class(const std::string&, const std::string&) override { throw weights_internal::PickleFailure("no"); }
  weights_internal::PyObj* reduce(weights_internal::PyObj*, weights_internal::PyObj*) override { throw weights_internal::PickleFailure("no"); }
  weights_internal::PyObj* persistent_load(weights_internal::PyObj*) override { throw weights_internal::PickleFailure("no"); }
  void build(weights_internal::PyObj*, weights_internal::PyObj*) override { throw weights_internal::PickleFailure("no"); }
};

std::string pickle_error(const std::string& p, weights_internal::PickleLimits limits) {
  Plain up(limits);
  try {
    up.load(reinterpret_cast<const uint8_t*>(p.data()), p.size(), "p.pkl");
  } catch (const WeightLoadError& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(HostilePickle, IntKeyedDictIsLinear) {
  // 300k int keys took minutes when each insert scanned the dict.
  std::string p = "\x80\x02}(";
  for (int k = 0; k < 300000; ++k) p += p_int(k) + "N";
  p += p_int(5) + "\x88" + "\x88" "K\x07" + "u.";  // True == 1 as a key, as in Python
  Plain up;
  const weights_internal::PyObj* root = nullptr;
  const double s = seconds_of([&] { root = up.load(reinterpret_cast<const uint8_t*>(p.data()), p.size(), "p"); });
  ASSERT_EQ(root->dict.size(), 300000u);
  EXPECT_EQ(root->dict[5].second->kind, weights_internal::PyObj::Kind::Bool);
  EXPECT_EQ(root->dict[1].second->i, 7);
  EXPECT_LT(s, 20.0);  // ~0.1 s; generous for sanitizer builds
}

TEST(HostilePickle, StackMemoObjectAndWorkBounds) {
  weights_internal::PickleLimits l;
  l.max_stack = 4;
  EXPECT_EQ(pickle_error("\x80\x02NNNNN.", l), "p.pkl, byte 6: pickle stack deeper than 4 entries (limit max_stack)");
  EXPECT_EQ(pickle_error("\x80\x02(((((.", l), "p.pkl, byte 6: pickle stack deeper than 4 entries (limit max_stack)");
  l = weights_internal::PickleLimits();
  l.max_memo = 2;
  EXPECT_EQ(pickle_error("\x80\x02Nq\x00q\x01q\x02."s, l), "p.pkl, byte 7: pickle memo holds more than 2 entries (limit max_memo)");
  EXPECT_EQ(pickle_error("\x80\x02Nq\x00q\x01q\x01q\x00."s, l), "<no error>");  // re-PUTs take no room
  l = weights_internal::PickleLimits();
  l.max_objects = 3;
  EXPECT_EQ(pickle_error("\x80\x02NNNN.", l), "p.pkl, byte 5: pickle creates more than 3 objects (limit max_objects)");
}

TEST(HostilePickle, ReusedOrderedDictListIsCharged) {
  // OrderedDict(<one memoized 1000-pair list>) 200k times: 2e8 insertions (minutes) from a 5 MB pickle.
  std::string pairs = "]q\x00("s;
  for (int k = 0; k < 1000; ++k) pairs += p_str("k" + std::to_string(k)) + "N\x86";
  pairs += "e0";
  std::string p = "\x80\x02" + pairs + "]q\x01(";
  for (int k = 0; k < 200000; ++k) p += "ccollections\nOrderedDict\nh\x00\x85R"s;
  p += "e.";
  EXPECT_THAT(weight_error(archive(p), "m.pt"), StartsWith("m.pt: archive/data.pkl, byte "));
  EXPECT_THAT(weight_error(archive(p), "m.pt"),
              HasSubstr("pickle needs more than 2097152 container items (limit max_work)"));
}

// ---------------------------------------------------------------- zip + torch.save views

TEST(HostileZip, DuplicateNamesAndLocalHeaderMismatch) {
  ZipBuilder z;
  z.add("archive/data.pkl", "\x80\x02}.");
  z.add("archive/data.pkl", "\x80\x02}.");
  EXPECT_EQ(weight_error(z.finish(), "m.pt"), "m.pt: corrupt zip archive: entry name 'archive/data.pkl' appears twice");
  std::string zip = archive("\x80\x02}.");
  const size_t local_name = zip.find("archive/data.pkl");
  zip[local_name + 8] = 'X';  // "archive/Xata.pkl" in the local header only
  EXPECT_EQ(weight_error(zip, "m.pt"), "m.pt: entry 'archive/data.pkl': the local header at offset 0 names a "
                                       "different entry than the central directory");
}

TEST(HostileZip, ManyStoragesLoadInLinearTime) {
  // 60k storages took 8 s when each lookup scanned the entry list.
  std::vector<std::pair<std::string, std::string>> items, data;
  for (int k = 0; k < 60000; ++k) {
    items.emplace_back("t" + std::to_string(k), p_tensor("FloatStorage", std::to_string(k), 1, 0, {1}, {1}));
    data.emplace_back(std::to_string(k), floats({float(k)}));
  }
  const std::string zip = archive(p_dict(items), data);
  TensorMap m;
  const double s = seconds_of([&] { m = read_weights_bytes(make_bytes(zip), "m.pt"); });
  ASSERT_EQ(m.items.size(), 60000u);
  EXPECT_EQ(test::values_f32(*m.find("t59999")), std::vector<float>{59999.f});
  EXPECT_LT(s, 20.0);  // ~0.3 s
}

std::string p_long(int64_t v) { return "\x8a\x08" + ZipBuilder::le(uint64_t(v), 8); }
std::string view(const std::vector<std::string>& size, const std::vector<std::string>& stride) {
  std::string s = "ctorch._utils\n_rebuild_tensor_v2\n((" + p_str("storage") + "ctorch\nFloatStorage\n" + p_str("0") +
                  p_str("cpu") + p_int(4) + "tQ" + p_int(0) + "(";
  for (const auto& x : size) s += x;
  s += "t(";
  for (const auto& x : stride) s += x;
  return s + "t\x89" "ccollections\nOrderedDict\n)RtR";
}

TEST(HostileTorchSave, ViewsMustBeAddressableAndInsideStorage) {
  const std::string f4 = floats({1, 2, 3, 4});
  EXPECT_EQ(weight_error(archive(p_dict({{"x", view({p_long(int64_t(1) << 62)}, {p_int(0)})}}), {{"0", f4}}), "m.pt"),
            "m.pt: tensor 'x': view (size [4611686018427387904], stride [0], offset 0) has 4611686018427387904 "
            "elements, more bytes than this build can address");
  EXPECT_EQ(weight_error(archive(p_dict({{"x", view({p_long(int64_t(1) << 61), p_int(2)}, {p_int(0), p_int(0)})}}), {{"0", f4}}), "m.pt"),
            "m.pt: tensor 'x': view (size [2305843009213693952, 2], stride [0, 0], offset 0) has 4611686018427387904 "
            "elements, more bytes than this build can address");
  EXPECT_EQ(weight_error(archive(p_dict({{"x", view({p_int(2), p_int(2)}, {p_long(int64_t(1) << 62), p_int(1)})}}), {{"0", f4}}), "m.pt"),
            "m.pt: tensor 'x': view (size [2, 2], stride [4611686018427387904, 1], offset 0) reaches element "
            "4611686018427387905 but storage '0' has 4 elements");
  EXPECT_EQ(weight_error(archive(p_dict({{"x", view({p_int(3), p_int(3)}, {p_long(INT64_MAX), p_int(1)})}}), {{"0", f4}}), "m.pt"),
            "m.pt: tensor 'x': view (size [3, 3], stride [9223372036854775807, 1], offset 0) is too large");
  std::vector<std::string> many(65, p_int(1));
  EXPECT_EQ(weight_error(archive(p_dict({{"x", view(many, many)}}), {{"0", f4}}), "m.pt"),
            "m.pt: archive/data.pkl, byte 786: tensor size has 65 dimensions (at most 64)");
  // A legal stride-0 view (an expanded tensor) still loads.
  const TensorMap m = read_weights_bytes(make_bytes(archive(p_dict({{"x", view({p_int(3)}, {p_int(0)})}}), {{"0", f4}})), "m.pt");
  EXPECT_EQ(test::values_f32(*m.find("x")), (std::vector<float>{1, 1, 1}));
}

TEST(TensorMapIndex, FindSeesAppendsRenamesAndFirstDuplicate) {
  TensorMap m;
  Tensor a, b;
  a.shape = {1};
  b.shape = {2};
  m.items.emplace_back("a", a);
  EXPECT_EQ(m.find("a")->shape, Shape{1});
  m.items.emplace_back("b", b);
  m.items.emplace_back("a", b);  // a duplicate: the first wins, as before
  EXPECT_EQ(m.find("b")->shape, Shape{2});
  EXPECT_EQ(m.find("a")->shape, Shape{1});
  m.items[0].first = "c";  // renamed in place: seen when the stale slot is hit
  EXPECT_EQ(m.find("a")->shape, Shape{2});
  EXPECT_EQ(m.find("c")->shape, Shape{1});
  TensorMap moved = std::move(m);
  EXPECT_EQ(moved.find("b")->shape, Shape{2});
  m.set("z", a);
  EXPECT_EQ(m.items.size(), 1u);
  EXPECT_EQ(m.find("z")->shape, Shape{1});
  EXPECT_EQ(m.find("b"), nullptr);
}

}  // namespace
