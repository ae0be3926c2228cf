// safetensors: [u64 LE header length N][N bytes of JSON header][data section].
// Header: {"name": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]},
//          "__metadata__": {...}}, offsets relative to the data section.
#include "weights/safetensors.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstring>
#include <unordered_set>

#include "core/errors.h"
#include "core/file_io.h"
#include "weights/byte_util.h"

namespace tir {

using namespace weights_internal;

namespace {

struct StDType { const char* name; DType dtype; };
constexpr StDType kStDTypes[] = {
    {"F64", DType::F64}, {"F32", DType::F32}, {"F16", DType::F16}, {"BF16", DType::BF16},
    {"I64", DType::I64}, {"I32", DType::I32}, {"I16", DType::I16}, {"I8", DType::I8},
    {"U8", DType::U8},   {"BOOL", DType::Bool},
};

const char* st_dtype_name(DType d) {
  for (const auto& e : kStDTypes) if (e.dtype == d) return e.name;
  return nullptr;
}

std::string supported_list() {
  std::string s;
  for (const auto& e : kStDTypes) s += std::string(s.empty() ? "" : " ") + e.name;
  return s;
}

// Headers beyond this are not safetensors files (the reference reader's limit).
constexpr uint64_t kMaxHeader = 100u << 20;

class Reader {
 public:
  Reader(std::shared_ptr<const std::vector<uint8_t>> bytes, const std::string& origin)
      : bytes_(std::move(bytes)), origin_(origin) {}

  TensorMap read() {
    if (!bytes_) fail("no data");
    const size_t size = bytes_->size();
    if (size < 8)
      fail("truncated: file has " + std::to_string(size) +
           " bytes, but a safetensors file starts with an 8-byte header length");
    const uint64_t n = load_le64(bytes_->data());
    const uint64_t avail = size - 8;
    if (n > avail) {
      if (n > kMaxHeader)
        fail("not a safetensors file: header length " + std::to_string(n) + " is implausible");
      fail("truncated: header says " + std::to_string(n) + " bytes but file has " +
           std::to_string(avail) + " after the 8-byte length");
    }
    const char* header = reinterpret_cast<const char*>(bytes_->data() + 8);
    if (n == 0 || header[0] != '{')
      fail("not a safetensors file: the header does not start with '{'");
    data_ = bytes_->data() + 8 + n;
    data_size_ = avail - n;

    rapidjson::Document doc;
    doc.Parse(header, size_t(n));
    if (doc.HasParseError())
      fail("invalid JSON header: " + std::string(rapidjson::GetParseError_En(doc.GetParseError())) +
           " at offset " + std::to_string(doc.GetErrorOffset()));
    if (!doc.IsObject()) fail("invalid header: expected a JSON object");

    TensorMap out;
    std::unordered_set<std::string> seen;
    for (auto it = doc.MemberBegin(); it != doc.MemberEnd(); ++it) {
      const std::string name(it->name.GetString(), it->name.GetStringLength());
      if (!seen.insert(name).second) fail("duplicate tensor " + quote(name) + " in header");
      if (name == "__metadata__") {
        if (!it->value.IsObject()) fail("invalid header: __metadata__ must be an object");
        continue;
      }
      out.items.emplace_back(name, read_tensor(name, it->value));
    }
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& msg) const { throw WeightLoadError(origin_ + ": " + msg); }
  [[noreturn]] void fail_tensor(const std::string& name, const std::string& msg) const {
    fail("tensor " + quote(name) + ": " + msg);
  }

  Tensor read_tensor(const std::string& name, const rapidjson::Value& v) const {
    if (!v.IsObject()) fail_tensor(name, "header entry must be an object");
    auto dt = v.FindMember("dtype");
    auto sh = v.FindMember("shape");
    auto off = v.FindMember("data_offsets");
    if (dt == v.MemberEnd() || !dt->value.IsString()) fail_tensor(name, "missing string 'dtype'");
    if (sh == v.MemberEnd() || !sh->value.IsArray()) fail_tensor(name, "missing array 'shape'");
    if (off == v.MemberEnd() || !off->value.IsArray() || off->value.Size() != 2 ||
        !off->value[0].IsUint64() || !off->value[1].IsUint64())
      fail_tensor(name, "'data_offsets' must be two non-negative integers");

    const std::string dname = dt->value.GetString();
    DType dtype = DType::F32;
    bool known = false;
    for (const auto& e : kStDTypes)
      if (dname == e.name) { dtype = e.dtype; known = true; }
    if (!known)
      fail_tensor(name, "dtype " + dname + " is not supported (supported: " + supported_list() + ")");

    Shape shape;
    for (const auto& d : sh->value.GetArray()) {
      if (d.IsInt64() && d.GetInt64() < 0)
        fail_tensor(name, "negative dimension " + std::to_string(d.GetInt64()) + " in shape");
      if (!d.IsInt64()) fail_tensor(name, "shape entries must be integers (int64)");
      shape.push_back(d.GetInt64());
    }
    uint64_t expect = 0;
    if (!checked_nbytes(shape, dtype_size(dtype), &expect))
      fail_tensor(name, "shape " + shape_to_string(shape) + " is too large");

    const uint64_t b = off->value[0].GetUint64(), e = off->value[1].GetUint64();
    const std::string offs = "data_offsets [" + std::to_string(b) + ", " + std::to_string(e) + "]";
    if (b > e) fail_tensor(name, offs + ": begin is after end");
    if (e > data_size_)
      fail_tensor(name, offs + " extend past the end of the data section (" +
                            std::to_string(data_size_) + " bytes; file truncated?)");
    if (e - b != expect)
      fail_tensor(name, offs + " do not match shape " + shape_to_string(shape) + " of " + dname +
                            " (" + std::to_string(expect) + " bytes)");

    Tensor t;
    t.buffer = make_weight_buffer(data_ + b, size_t(expect), dtype_size(dtype), bytes_, name);
    t.dtype = dtype;
    t.shape = shape;
    t.strides = contiguous_strides(shape);
    return t;
  }

  std::shared_ptr<const std::vector<uint8_t>> bytes_;
  std::string origin_;
  const uint8_t* data_ = nullptr;
  uint64_t data_size_ = 0;
};

}  // namespace

TensorMap read_safetensors(std::shared_ptr<const std::vector<uint8_t>> bytes,
                           const std::string& origin) {
  return Reader(std::move(bytes), origin).read();
}

TensorMap read_safetensors_file(const std::string& path) {
  return read_safetensors(read_file_bytes(path), path);
}

std::vector<uint8_t> write_safetensors(const TensorMap& tensors) {
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  std::unordered_set<std::string> seen;
  std::vector<Tensor> contiguous;
  uint64_t offset = 0;
  w.StartObject();
  for (const auto& kv : tensors.items) {
    const std::string& name = kv.first;
    const Tensor& t = kv.second;
    auto fail = [&](const std::string& msg) {
      throw WeightLoadError("cannot write tensor " + quote(name) + " to safetensors: " + msg);
    };
    if (name == "__metadata__") fail("the name is reserved");
    if (!seen.insert(name).second) fail("duplicate name");
    if (!t.defined() || (t.numel() > 0 && !t.buffer->data)) fail("it has no data");
    const char* dname = st_dtype_name(t.dtype);
    if (!dname) fail(std::string("dtype ") + dtype_name(t.dtype) + " has no safetensors name");
    contiguous.push_back(t.numel() > 0 ? contiguous_or_self(t) : t);
    const uint64_t n = t.nbytes();
    w.Key(name.data(), rapidjson::SizeType(name.size()));
    w.StartObject();
    w.Key("dtype");
    w.String(dname);
    w.Key("shape");
    w.StartArray();
    for (int64_t d : t.shape) w.Int64(d);
    w.EndArray();
    w.Key("data_offsets");
    w.StartArray();
    w.Uint64(offset);
    w.Uint64(offset + n);
    w.EndArray();
    w.EndObject();
    offset += n;
  }
  w.EndObject();

  std::string header(sb.GetString(), sb.GetSize());
  header.append((8 - header.size() % 8) % 8, ' ');  // data section 8-byte aligned
  std::vector<uint8_t> out(8 + header.size() + offset);
  const uint64_t hn = header.size();
  for (int i = 0; i < 8; ++i) out[size_t(i)] = uint8_t(hn >> (8 * i));
  std::memcpy(out.data() + 8, header.data(), header.size());
  uint8_t* p = out.data() + 8 + header.size();
  for (const Tensor& c : contiguous) {
    if (c.nbytes()) std::memcpy(p, c.raw(), c.nbytes());
    p += c.nbytes();
  }
  return out;
}

void write_safetensors_file(const std::string& path, const TensorMap& tensors) {
  write_file_bytes(path, write_safetensors(tensors));
}

}  // namespace tir
