// Weight readers: safetensors (all dtypes, zero-copy, bounds checks, writer
// round-trip) and torch.save (zip + restricted pickle: views, shared storage,
// Parameters, ZIP64, refusal of code and malformed archives). Fixtures come
// from tools/make_weight_fixtures.py; expected values from its expected.json.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <map>

#include "core/json.h"
#include "core/errors.h"
#include "core/half.h"
#include "core/file_io.h"
#include "test_util.h"
#include "weight_builders.h"
#include "weights/pickle.h"
#include "weights/safetensors.h"
#include "weights/torch_save.h"
#include "weights/zip_reader.h"

using namespace tir;
using ::testing::HasSubstr;
using namespace std::string_literals;
using namespace tir::test_weights;

namespace {

using Bytes = std::shared_ptr<const std::vector<uint8_t>>;

std::string fixture(const std::string& name) { return test::fixtures_dir() + "/weights/" + name; }

Bytes make_bytes(const std::string& s) { return std::make_shared<std::vector<uint8_t>>(s.begin(), s.end()); }
Bytes make_bytes(std::vector<uint8_t> v) { return std::make_shared<std::vector<uint8_t>>(std::move(v)); }

// Message of the WeightLoadError `f` throws ("" and a test failure if none).
std::string load_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const WeightLoadError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a WeightLoadError";
  return "";
}

json::Value expected_json() {
  static const json::Document doc = json::Document::parse(test::read_text(fixture("expected.json")));
  return doc.root();
}

// Element at storage index `i` of t's buffer, as double / exact int64.
double elem_f(const Tensor& t, int64_t i) {
  const uint8_t* p = t.buffer->data + i * int64_t(dtype_size(t.dtype));
  auto rd = [&](auto v) { std::memcpy(&v, p, sizeof v); return v; };
  switch (t.dtype) {
    case DType::F32: return rd(float());
    case DType::F64: return rd(double());
    case DType::F16: return half_to_float(rd(uint16_t()));
    case DType::BF16: return bf16_to_float(rd(uint16_t()));
    default: ADD_FAILURE() << "not floating"; return 0;
  }
}
int64_t elem_i(const Tensor& t, int64_t i) {
  const uint8_t* p = t.buffer->data + i * int64_t(dtype_size(t.dtype));
  auto rd = [&](auto v) { std::memcpy(&v, p, sizeof v); return v; };
  switch (t.dtype) {
    case DType::I64: return rd(int64_t());
    case DType::I32: return rd(int32_t());
    case DType::I16: return rd(int16_t());
    case DType::I8: return rd(int8_t());
    case DType::U8: return rd(uint8_t());
    case DType::Bool: return rd(uint8_t());
    default: ADD_FAILURE() << "not integral"; return 0;
  }
}

// Storage indices of t's elements in row-major logical order.
std::vector<int64_t> element_indices(const Tensor& t) {
  std::vector<int64_t> out;
  if (t.numel() == 0) return out;
  std::vector<int64_t> idx(t.shape.size(), 0);
  for (;;) {
    int64_t off = t.offset;
    for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * t.strides[d];
    out.push_back(off);
    size_t d = idx.size();
    while (d > 0 && ++idx[d - 1] == t.shape[d - 1]) idx[--d] = 0;
    if (d == 0) return out;
  }
}

std::vector<int64_t> ints(json::Value a) {
  std::vector<int64_t> v;
  for (json::Value x : a) v.push_back(x.as_int64());
  return v;
}

// Checks every key of expected.json[file] (order, dtype, shape, strides,
// offset, storage sharing, exact values) against `m`.
void expect_matches_json(const TensorMap& m, const std::string& file) {
  SCOPED_TRACE(file);
  const json::Value exp = expected_json()[file];
  ASSERT_EQ(m.items.size(), exp.size());
  std::map<std::string, const Buffer*> storages;
  size_t k = 0;
  for (json::Value e : exp) {
    const std::string key(e.key());
    SCOPED_TRACE(key);
    ASSERT_EQ(m.items[k].first, key);
    const Tensor& t = m.items[k].second;
    ASSERT_TRUE(t.defined());
    EXPECT_EQ(dtype_name(t.dtype), e["dtype"].string());
    EXPECT_EQ(t.shape, ints(e["shape"]));
    EXPECT_EQ(t.strides, ints(e["strides"]));
    EXPECT_EQ(t.offset, e["offset"].as_int64());
    EXPECT_EQ(t.buffer->kind, Buffer::Kind::Weight);
    auto ins = storages.emplace(e["storage"].string(), t.buffer.get());
    EXPECT_EQ(ins.first->second, t.buffer.get()) << "tensors of one storage share a Buffer";
    for (const auto& other : storages) {
      if (other.first != e["storage"].string()) {
        EXPECT_NE(other.second, t.buffer.get()) << "distinct storages get distinct Buffers";
      }
    }
    const auto idx = element_indices(t);
    const json::Value vals = e["values"];
    ASSERT_EQ(idx.size(), vals.size());
    auto val = vals.begin();
    for (size_t i = 0; i < idx.size(); ++i, ++val) {
      ASSERT_GE(idx[i], 0);
      ASSERT_LT(uint64_t(idx[i]) * dtype_size(t.dtype), t.buffer->nbytes + 1);
      if (is_floating(t.dtype))
        EXPECT_EQ(elem_f(t, idx[i]), (*val).as_double()) << "element " << i;
      else
        EXPECT_EQ(elem_i(t, idx[i]), (*val).as_int64()) << "element " << i;
    }
    ++k;
  }
}

bool points_into(const Tensor& t, const std::vector<uint8_t>& bytes) {
  return t.buffer->data >= bytes.data() && t.buffer->data + t.buffer->nbytes <= bytes.data() + bytes.size();
}

// ---------------------------------------------------------------- safetensors

std::string le64(uint64_t n) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[size_t(i)] = char(n >> (8 * i));
  return s;
}
std::string st_file(const std::string& header, size_t data_bytes) {
  return le64(header.size()) + header + std::string(data_bytes, '\0');
}
std::string st_error(const std::string& contents, const std::string& origin = "weights.safetensors") {
  return load_error([&] { read_safetensors(make_bytes(contents), origin); });
}

TEST(Safetensors, ReadsEveryDtypeExactly) {
  const TensorMap m = read_safetensors_file(fixture("all_dtypes.safetensors"));
  expect_matches_json(m, "all_dtypes.safetensors");
}

TEST(Safetensors, ZeroCopyIntoFileBytes) {
  Bytes bytes = read_file_bytes(fixture("all_dtypes.safetensors"));
  const std::vector<uint8_t>* raw = bytes.get();
  TensorMap m = read_safetensors(bytes, "all_dtypes.safetensors");
  for (const auto& kv : m.items) {
    SCOPED_TRACE(kv.first);
    if (kv.first == "misaligned_f32") continue;
    EXPECT_TRUE(points_into(kv.second, *raw));
    EXPECT_EQ(kv.second.buffer->keepalive.get(), static_cast<const void*>(raw));
    EXPECT_EQ(kv.second.buffer->label, kv.first);
  }
  // The tensors keep the bytes alive after the caller lets go of them.
  bytes.reset();
  EXPECT_EQ(elem_f(*m.find("f32"), 1), -1.0);
}

TEST(Safetensors, MisalignedDataIsCopied) {
  Bytes bytes = read_file_bytes(fixture("all_dtypes.safetensors"));
  TensorMap m = read_safetensors(bytes, "x");
  const Tensor* t = m.find("misaligned_f32");
  ASSERT_NE(t, nullptr);
  EXPECT_FALSE(points_into(*t, *bytes));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t->buffer->data) % 4, 0u);
  EXPECT_EQ(elem_f(*t, 0), 1.25);
  EXPECT_EQ(elem_f(*t, 1), -2.5);
}

TEST(Safetensors, MetadataOnlyAndEmptyHeader) {
  EXPECT_TRUE(read_safetensors(make_bytes(st_file(R"({"__metadata__":{"a":"b"}})", 0)), "x").items.empty());
  EXPECT_TRUE(read_safetensors(make_bytes(st_file("{}      ", 0)), "x").items.empty());
}

TEST(Safetensors, ErrorsNameFileAndTensor) {
  EXPECT_THAT(st_error("abcde"), HasSubstr("weights.safetensors: truncated: file has 5 bytes"));
  EXPECT_THAT(st_error(le64(1234) + std::string(56, ' ')),
              HasSubstr("weights.safetensors: truncated: header says 1234 bytes but file has 56"));
  EXPECT_THAT(st_error(le64(uint64_t(1) << 40) + "{}"), HasSubstr("not a safetensors file"));
  EXPECT_THAT(st_error(st_file("[1, 2]", 0)), HasSubstr("does not start with '{'"));
  EXPECT_THAT(st_error(st_file(R"({"a": )", 0)), HasSubstr("weights.safetensors: invalid JSON header"));
  EXPECT_THAT(st_error(st_file(R"({"a": 3})", 0)), HasSubstr("tensor 'a': header entry must be an object"));
  EXPECT_THAT(st_error(st_file(R"({"a": {"shape": [], "data_offsets": [0, 4]}})", 4)),
              HasSubstr("tensor 'a': missing string 'dtype'"));
  EXPECT_THAT(st_error(st_file(R"({"a": {"dtype": "F32", "data_offsets": [0, 4]}})", 4)),
              HasSubstr("tensor 'a': missing array 'shape'"));
  EXPECT_THAT(st_error(st_file(R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0]}})", 4)),
              HasSubstr("'data_offsets' must be two non-negative integers"));
  EXPECT_THAT(st_error(st_file(R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [-4, 0]}})", 4)),
              HasSubstr("'data_offsets' must be two non-negative integers"));
  EXPECT_THAT(st_error(st_file(R"({"q": {"dtype": "F8_E4M3", "shape": [1], "data_offsets": [0, 1]}})", 1)),
              HasSubstr("weights.safetensors: tensor 'q': dtype F8_E4M3 is not supported"));
  EXPECT_THAT(st_error(st_file(R"({"a": {"dtype": "F32", "shape": [2, -3], "data_offsets": [0, 4]}})", 4)),
              HasSubstr("tensor 'a': negative dimension -3 in shape"));
  EXPECT_THAT(st_error(st_file(R"({"a": {"dtype": "F32", "shape": [2.5], "data_offsets": [0, 4]}})", 4)),
              HasSubstr("shape entries must be integers"));
  EXPECT_THAT(st_error(st_file(R"({"a": {"dtype": "F32", "shape": [4611686018427387904, 4], "data_offsets": [0, 4]}})", 4)),
              HasSubstr("is too large"));
  EXPECT_THAT(st_error(st_file(R"({"a": {"dtype": "F32", "shape": [4], "data_offsets": [8, 24]}})", 16)),
              HasSubstr("tensor 'a': data_offsets [8, 24] extend past the end of the data section (16 bytes"));
  EXPECT_THAT(st_error(st_file(R"({"a": {"dtype": "F32", "shape": [0], "data_offsets": [8, 4]}})", 16)),
              HasSubstr("tensor 'a': data_offsets [8, 4]: begin is after end"));
  EXPECT_EQ(st_error(st_file(R"({"fc.weight": {"dtype": "F32", "shape": [8, 4], "data_offsets": [0, 100]}})", 128)),
            "weights.safetensors: tensor 'fc.weight': data_offsets [0, 100] do not match shape [8, 4] of "
            "F32 (128 bytes)");
  EXPECT_THAT(st_error(st_file(R"({"a": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]},)"
                               R"( "a": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]}})", 1)),
              HasSubstr("duplicate tensor 'a'"));
  // Overlapping ranges are refused, as the reference reader does (a forged or corrupt header).
  EXPECT_EQ(st_error(st_file(R"({"a": {"dtype": "U8", "shape": [2], "data_offsets": [0, 2]},)"
                             R"( "b": {"dtype": "U8", "shape": [1], "data_offsets": [1, 2]}})", 2), "x"),
            "x: tensors 'a' (bytes [0, 2)) and 'b' (bytes [1, 2)) overlap");
}

TEST(Safetensors, TruncatedFixtures) {
  EXPECT_THAT(load_error([] { read_safetensors_file(fixture("truncated.safetensors")); }),
              HasSubstr("extend past the end of the data section"));
  EXPECT_THAT(load_error([] { read_safetensors_file(fixture("truncated_header.safetensors")); }),
              HasSubstr("truncated_header.safetensors: truncated: header says"));
  EXPECT_THAT(load_error([] { read_safetensors_file(fixture("missing.safetensors")); }),
              HasSubstr("cannot open '" + fixture("missing.safetensors") + "'"));
}

Tensor filled(DType dtype, const Shape& shape) {
  Tensor t = make_owned(dtype, shape);
  for (size_t i = 0; i < t.nbytes(); ++i) t.buffer->data[i] = uint8_t(i * 37 + 11);
  if (dtype == DType::Bool)
    for (size_t i = 0; i < t.nbytes(); ++i) t.buffer->data[i] &= 1;
  return t;
}

TEST(Safetensors, WriterRoundTrip) {
  TensorMap in;
  for (DType d : {DType::F64, DType::F32, DType::F16, DType::BF16, DType::I64, DType::I32, DType::I16,
                  DType::I8, DType::U8, DType::Bool})
    in.set(std::string("t_") + dtype_name(d), filled(d, {2, 3}));
  Tensor base = filled(DType::F32, {3, 4});
  in.set("permuted", base.view_as({4, 3}, {1, 4}, 0));      // written contiguous
  in.set("offset_view", base.view_as({2, 2}, {4, 1}, 5));
  in.set("scalar", filled(DType::I64, {}));
  in.set("empty", make_owned(DType::F16, {0, 7}));
  in.set("z_first_in_order", filled(DType::U8, {1}));

  const std::vector<uint8_t> bytes = write_safetensors(in);
  uint64_t hlen = 0;
  std::memcpy(&hlen, bytes.data(), 8);
  EXPECT_EQ(hlen % 8, 0u);
  EXPECT_EQ(bytes[8], '{');
  EXPECT_EQ(bytes[8 + hlen - 1] == ' ' || bytes[8 + hlen - 1] == '}', true);

  const TensorMap out = read_safetensors(make_bytes(bytes), "roundtrip");
  ASSERT_EQ(out.items.size(), in.items.size());
  for (size_t k = 0; k < in.items.size(); ++k) {
    SCOPED_TRACE(in.items[k].first);
    const Tensor& a = in.items[k].second;
    const Tensor& b = out.items[k].second;
    EXPECT_EQ(out.items[k].first, in.items[k].first);
    EXPECT_EQ(b.dtype, a.dtype);
    EXPECT_EQ(b.shape, a.shape);
    EXPECT_TRUE(b.is_contiguous());
    const auto ia = element_indices(a), ib = element_indices(b);
    ASSERT_EQ(ia.size(), ib.size());
    const size_t item = dtype_size(a.dtype);
    for (size_t i = 0; i < ia.size(); ++i)
      EXPECT_EQ(std::memcmp(a.buffer->data + ia[i] * int64_t(item), b.buffer->data + ib[i] * int64_t(item), item), 0);
  }
  EXPECT_EQ(write_safetensors(out), bytes);  // stable
}

TEST(Safetensors, WriterExactBytes) {
  TensorMap m;
  Tensor t = make_owned(DType::F32, {2});
  t.data<float>()[0] = 1.0f;
  t.data<float>()[1] = -2.0f;
  m.set("a\"b", t);
  const std::vector<uint8_t> bytes = write_safetensors(m);
  const std::string header = R"({"a\"b":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  const size_t padded = (header.size() + 7) / 8 * 8;
  std::string want = le64(padded) + header + std::string(padded - header.size(), ' ');
  want += std::string("\x00\x00\x80\x3f\x00\x00\x00\xc0", 8);
  EXPECT_EQ(std::string(bytes.begin(), bytes.end()), want);
}

TEST(Safetensors, WriterRefusals) {
  TensorMap c;
  c.set("z", make_owned(DType::C64, {1}));
  EXPECT_THAT(load_error([&] { write_safetensors(c); }),
              HasSubstr("cannot write tensor 'z' to safetensors: dtype complex64 has no safetensors name"));
  TensorMap d;
  d.items.emplace_back("x", make_owned(DType::F32, {1}));
  d.items.emplace_back("x", make_owned(DType::F32, {1}));
  EXPECT_THAT(load_error([&] { write_safetensors(d); }), HasSubstr("'x' to safetensors: duplicate name"));
  TensorMap r;
  r.set("__metadata__", make_owned(DType::F32, {1}));
  EXPECT_THAT(load_error([&] { write_safetensors(r); }), HasSubstr("reserved"));
  TensorMap u;
  u.set("undef", Tensor());
  EXPECT_THAT(load_error([&] { write_safetensors(u); }), HasSubstr("'undef' to safetensors: it has no data"));
}

TEST(Safetensors, FileRoundTrip) {
  const std::string path = ::testing::TempDir() + "/tir_weights_roundtrip.safetensors";
  const TensorMap m = read_safetensors_file(fixture("all_dtypes.safetensors"));
  write_safetensors_file(path, m);
  expect_matches_json(read_weights_file(path), "all_dtypes.safetensors");
  std::remove(path.c_str());
}

// ---------------------------------------------------------------- torch.save

TEST(TorchSave, StateDictViewsDtypesSharedStorage) {
  Bytes bytes = read_file_bytes(fixture("state_dict.pt"));
  const TensorMap m = read_torch_save(bytes, "state_dict.pt");
  expect_matches_json(m, "state_dict.pt");
  for (const auto& kv : m.items) {
    SCOPED_TRACE(kv.first);
    EXPECT_TRUE(points_into(kv.second, *bytes));  // torch aligns storages: all zero-copy
    EXPECT_EQ(kv.second.buffer->keepalive.get(), static_cast<const void*>(bytes.get()));
  }
  EXPECT_TRUE(m.find("shared_a")->same_storage(*m.find("shared_b")));
  EXPECT_FALSE(m.find("transposed")->is_contiguous());
  EXPECT_EQ(m.find("sliced")->buffer->nbytes, 20u * 4);  // the whole saved storage
}

TEST(TorchSave, ParametersModulesCheckpointsAndLayouts) {
  for (const char* f : {"linear.pt", "module.pt", "checkpoint.pt", "zip64.pt", "torch2_layout.pt"})
    expect_matches_json(read_torch_save_file(fixture(f)), f);
  for (const char* f : {"state_dict.pt", "linear.pt", "module.pt", "all_dtypes.safetensors"})
    expect_matches_json(read_weights_file(fixture(f)), f);
}

TEST(TorchSave, RefusesCodeAndUnsupportedArchives) {
  std::remove("/tmp/tir_weights_pwned");
  const std::string evil = load_error([] { read_weights_file(fixture("malicious.pt")); });
  EXPECT_THAT(evil, HasSubstr("malicious.pt: archive/data.pkl, byte 13: refusing to load 'os.system': "
                              "only tensors and containers are allowed (weights_only)"));
  EXPECT_FALSE(test::file_exists("/tmp/tir_weights_pwned"));

  EXPECT_THAT(load_error([] { read_weights_file(fixture("compressed.pt")); }),
              HasSubstr("compressed.pt: entry 'archive/data.pkl' is compressed (method 8, deflate)"));
  EXPECT_THAT(load_error([] { read_weights_file(fixture("byteorder_big.pt")); }),
              HasSubstr("byteorder_big.pt: big-endian archive"));
  EXPECT_THAT(load_error([] { read_weights_file(fixture("legacy.pt")); }),
              HasSubstr("legacy.pt: legacy torch.save format"));
  EXPECT_THAT(load_error([] { read_weights_file(fixture("torchscript.pt")); }),
              HasSubstr("torchscript.pt: this is a TorchScript archive"));
  EXPECT_THAT(load_error([] { read_weights_file(fixture("truncated.pt")); }),
              HasSubstr("truncated.pt: truncated or not a zip archive"));
  EXPECT_THAT(load_error([] { read_weights_bytes(make_bytes(std::string()), "e.bin"); }),
              HasSubstr("e.bin: file is empty"));
  EXPECT_THAT(load_error([] { read_weights_file(fixture("nope.pt")); }),
              HasSubstr("cannot open '" + fixture("nope.pt") + "'"));
}

// --- hand-built archives for the malformed cases (builders in weight_builders.h) ---

std::string pt_error(const std::string& zip) {
  return load_error([&] { read_weights_bytes(make_bytes(zip), "m.pt"); });
}

TEST(TorchSave, HandBuiltArchiveReads) {
  // Also exercises BINGET of a memoized storage type and a Parameter.
  const std::string pkl = p_dict({
      {"x", p_tensor("FloatStorage", "0", 6, 1, {2, 2}, {1, 2})},
      {"p", "ctorch._utils\n_rebuild_parameter\n(" + p_tensor("FloatStorage", "0", 6, 0, {3}, {2}) +
                "\x88" "ccollections\nOrderedDict\n)RtR"},
      {"d", "ctorch\ndevice\n(" + p_str("cuda") + "K\x00tR"s},
  });
  EXPECT_THAT(pt_error(archive(pkl, {{"0", floats({0, 1, 2, 3, 4, 5})}})),
              HasSubstr("key 'd' holds a str, not a tensor"));
  const std::string ok = p_dict({
      {"x", p_tensor("FloatStorage", "0", 6, 1, {2, 2}, {1, 2})},
      {"p", "ctorch._utils\n_rebuild_parameter\n(" + p_tensor("FloatStorage", "0", 6, 0, {3}, {2}) +
                "\x88" "ccollections\nOrderedDict\n)RtR"},
  });
  const TensorMap m = read_weights_bytes(make_bytes(archive(ok, {{"0", floats({0, 1, 2, 3, 4, 5})}})), "m.pt");
  ASSERT_EQ(m.items.size(), 2u);
  EXPECT_EQ(test::values_f32(*m.find("x")), (std::vector<float>{1, 3, 2, 4}));
  EXPECT_EQ(test::values_f32(*m.find("p")), (std::vector<float>{0, 2, 4}));
  EXPECT_TRUE(m.find("x")->same_storage(*m.find("p")));
}

TEST(TorchSave, HandBuiltArchiveErrors) {
  const std::string f6 = floats({0, 1, 2, 3, 4, 5});
  EXPECT_THAT(pt_error(archive(p_dict({{"x", p_tensor("FloatStorage", "0", 6, 4, {2, 3}, {3, 1})}}), {{"0", f6}})),
              HasSubstr("m.pt: tensor 'x': view (size [2, 3], stride [3, 1], offset 4) reaches element 9 "
                        "but storage '0' has 6 elements"));
  EXPECT_THAT(pt_error(archive(p_dict({{"x", p_tensor("FloatStorage", "0", 6, 0, {2, -3}, {3, 1})}}), {{"0", f6}})),
              HasSubstr("negative size or stride"));
  EXPECT_THAT(pt_error(archive(p_dict({{"x", p_tensor("FloatStorage", "0", 6, 0, {6}, {1})}}), {{"0", floats({1, 2})}})),
              HasSubstr("storage '0' (FloatStorage) holds 6 elements (24 bytes) but 'archive/data/0' has 8 bytes"));
  EXPECT_THAT(pt_error(archive(p_dict({{"x", p_tensor("FloatStorage", "7", 6, 0, {6}, {1})}}), {{"0", f6}})),
              HasSubstr("storage '7' (FloatStorage) is missing from the archive (no 'archive/data/7')"));
  EXPECT_THAT(pt_error(archive(p_dict({{"x", p_tensor("QInt8Storage", "0", 6, 0, {6}, {1})}}), {{"0", f6}})),
              HasSubstr("refusing to load 'torch.QInt8Storage'"));
  EXPECT_THAT(pt_error(archive(p_dict({{"x", p_tensor("FloatStorage", "0", 6, 0, {2}, {1, 1})}}), {{"0", f6}})),
              HasSubstr("differ in length"));
  // Top-level shapes.
  EXPECT_THAT(pt_error(archive("\x80\x02](K\x01K\x02" "e.")), HasSubstr("m.pt: the saved object is a list"));
  EXPECT_THAT(pt_error(archive(p_dict({{"epoch", p_int(3)}}))),
              HasSubstr("m.pt: key 'epoch' holds an int, not a tensor"));
  EXPECT_THAT(pt_error(archive("\x80\x02}K\x01" + p_tensor("FloatStorage", "0", 6, 0, {6}, {1}) + "s.", {{"0", f6}})),
              HasSubstr("a key is an int, not a str"));
  EXPECT_TRUE(read_weights_bytes(make_bytes(archive("\x80\x02}.")), "m.pt").items.empty());
  // Pickle machine errors.
  EXPECT_THAT(pt_error(archive("\x80\x02}(" + p_str("a"))), HasSubstr("m.pt: archive/data.pkl, byte 10: truncated pickle"));
  EXPECT_THAT(pt_error(archive("\x80\x02h\x05.")), HasSubstr("pickle memo key 5 is undefined"));
  EXPECT_THAT(pt_error(archive("\x80\x02" "cbuiltins\nobject\n)\x81.")), HasSubstr("refusing to load 'builtins.object'"));
  EXPECT_THAT(pt_error(archive("\x80\x02" "(o.")), HasSubstr("byte 3: unsupported pickle opcode 0x6f (OBJ)"));
  EXPECT_THAT(pt_error(archive("\x80\x04\x8c\x08" "builtins\x8c\x04" "eval\x93.")),
              HasSubstr("refusing to load 'builtins.eval'"));
  EXPECT_THAT(pt_error(archive("\x80\x02" "ccollections\nOrderedDict\n)R" "ccollections\nOrderedDict\n)R" "s.")),
              HasSubstr("pickle stack underflow"));
  EXPECT_THAT(pt_error(archive("\x80\x02K\x01" "K\x02" "R.")), HasSubstr("REDUCE of an int, not a callable"));
  EXPECT_THAT(pt_error(archive("\x80\x02]K\x01" "K\x02" "s.")), HasSubstr("SETITEM on a list, not a dict"));
  EXPECT_THAT(pt_error(archive("\x80\x02" "ctorch\nFloatStorage\n)R.")),
              HasSubstr("'torch.FloatStorage' cannot be called"));
  EXPECT_THAT(pt_error(archive("\x80\x02(" + p_str("storage") + "tQ.")), HasSubstr("unsupported persistent id"));
  EXPECT_THAT(pt_error(archive("\x80\x02]K\x01" "b.")), HasSubstr("BUILD on a list is not allowed"));
  EXPECT_THAT(pt_error(archive("\x80\x02\x8a\x09" + std::string("\x00\x00\x00\x00\x00\x00\x00\x00\x01", 9) + ".")),
              HasSubstr("does not fit in 64 bits"));
}

TEST(TorchSave, UnpicklerValues) {
  // LONG1 sign extension, BINFLOAT, strings, lists, MEMOIZE, FRAME, dict key replacement.
  struct Plain : weights_internal::Unpickler {
    weights_internal::PyObj* find_class(const std::string&, const std::string&) override { throw weights_internal::PickleFailure("no"); }
    weights_internal::PyObj* reduce(weights_internal::PyObj*, weights_internal::PyObj*) override { throw weights_internal::PickleFailure("no"); }
    weights_internal::PyObj* persistent_load(weights_internal::PyObj*) override { throw weights_internal::PickleFailure("no"); }
    void build(weights_internal::PyObj*, weights_internal::PyObj*) override { throw weights_internal::PickleFailure("no"); }
  } up;
  const std::string p = "\x80\x04\x95\x08\x00\x00\x00\x00\x00\x00\x00}\x94("s + "\x8c\x01k\x8a\x02\x00\xff"s +
                        "\x8c\x01kG\x3f\xf8\x00\x00\x00\x00\x00\x00"s + "U\x01s]\x94(K\x07h\x00"s + "eu.";
  using K = weights_internal::PyObj::Kind;
  const auto* root = up.load(reinterpret_cast<const uint8_t*>(p.data()), p.size(), "t");
  ASSERT_EQ(root->kind, K::Dict);
  ASSERT_EQ(root->dict.size(), 2u);
  EXPECT_EQ(root->dict[0].first->s, "k");
  EXPECT_EQ(root->dict[0].second->kind, K::Float);  // replaced: k = -256, then k = 1.5
  EXPECT_EQ(root->dict[0].second->f, 1.5);
  EXPECT_EQ(root->dict[1].first->s, "s");
  const auto* list = root->dict[1].second;
  ASSERT_EQ(list->kind, K::List);
  ASSERT_EQ(list->items.size(), 2u);
  EXPECT_EQ(list->items[0]->i, 7);
  EXPECT_EQ(list->items[1], root);  // a cycle through the memo: fine, no recursion anywhere
  const std::string neg = "\x80\x02\x8a\x02\x00\xff."s;
  EXPECT_EQ(up.load(reinterpret_cast<const uint8_t*>(neg.data()), neg.size(), "t")->i, -256);
}

TEST(TorchSave, ZipDamage) {
  const std::string good = archive(p_dict({{"x", p_tensor("FloatStorage", "0", 6, 0, {6}, {1})}}),
                                   {{"0", floats({0, 1, 2, 3, 4, 5})}});
  ASSERT_EQ(read_weights_bytes(make_bytes(good), "m.pt").items.size(), 1u);
  // Every prefix is refused cleanly (never a crash or an out-of-bounds read).
  for (size_t n = 4; n < good.size(); ++n) {
    try {
      read_weights_bytes(make_bytes(good.substr(0, n)), "m.pt");
      ADD_FAILURE() << "prefix of " << n << " bytes accepted";
    } catch (const WeightLoadError&) {
    }
  }
  // Every single-byte corruption either loads or fails with a WeightLoadError.
  for (size_t i = 0; i < good.size(); ++i) {
    std::string bad = good;
    bad[i] = char(bad[i] ^ 0x5a);
    try {
      read_weights_bytes(make_bytes(bad), "m.pt");
    } catch (const WeightLoadError&) {
    }
  }
  std::string crc = good;
  crc[50] = char(crc[50] ^ 1);  // inside data.pkl (local header 30 + name 16)
  EXPECT_THAT(pt_error(crc), HasSubstr("m.pt: entry 'archive/data.pkl' is corrupt (CRC-32 mismatch)"));
  std::string cd = good;
  const size_t eocd = cd.size() - 22;
  cd[eocd + 16] = char(0xff);  // central directory offset
  cd[eocd + 19] = char(0x7f);
  EXPECT_THAT(pt_error(cd), HasSubstr("central directory"));
  ZipBuilder z;
  z.add("archive/data.pkl", "\x80\x02}.");
  z.add("archive/data/0", "");
  std::string loc = z.finish();
  loc[0] = 'X';  // first local header signature
  EXPECT_THAT(load_error([&] { read_torch_save(make_bytes(loc), "m.pt"); }),
              HasSubstr("m.pt: entry 'archive/data.pkl': local header at offset 0 is missing"));
  ZipBuilder nopkl;
  nopkl.add("weights/readme.txt", "hi");
  EXPECT_THAT(pt_error(nopkl.finish()), HasSubstr("not a torch.save archive: no '<name>/data.pkl' entry"));
}

// ---------------------------------------------------------------- file_io

TEST(FileIO, ReadWriteAndErrors) {
  const std::string path = ::testing::TempDir() + "/tir_file_io_test.bin";
  std::vector<uint8_t> big(200000);
  for (size_t i = 0; i < big.size(); ++i) big[i] = uint8_t(i * 7);
  write_file_bytes(path, big);
  EXPECT_EQ(*read_file_bytes(path), big);
  write_file_bytes(path, std::vector<uint8_t>{});
  EXPECT_TRUE(read_file_bytes(path)->empty());
  std::remove(path.c_str());
  EXPECT_THAT(load_error([&] { read_file_bytes(path); }),
              HasSubstr("cannot open '" + path + "': No such file or directory"));
  EXPECT_THAT(load_error([&] { read_file_bytes(::testing::TempDir()); }), HasSubstr("cannot read"));
  EXPECT_THROW(write_file_bytes("/nonexistent-dir/x.bin", big), Error);
}

}  // namespace
