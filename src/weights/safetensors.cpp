// safetensors: [u64 LE header length N][N bytes of JSON header][data section].
// Header: {"name": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]},
//          "__metadata__": {...}}, offsets relative to the data section.
#include "weights/safetensors.h"

#include <algorithm>
#include <cstring>
#include <unordered_set>

#include "core/errors.h"
#include "core/json.h"
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
// No real tensor has more dims; keeps a hostile shape list from reaching the kernels.
constexpr int kMaxRank = 64;

// A header is {name: {dtype, shape: [..], data_offsets: [b, e]}, __metadata__: {str: str}}:
// three levels deep. The rest bounds what a hostile header can make us allocate.
json::Limits header_limits() {
  json::Limits l;
  l.max_text_bytes = kMaxHeader;
  l.max_depth = 8;
  return l;
}

class Reader {
 public:
  Reader(std::shared_ptr<const std::vector<uint8_t>> bytes, const std::string& origin)
      : bytes_(std::move(bytes)), origin_(origin) {}

  // Header-only mode: bytes_ holds the file's first bytes (at least the header),
  // `file_size` is the whole file's; tensors get no data, `file_offsets` their place.
  TensorMap read_header(uint64_t file_size, std::vector<uint64_t>* file_offsets) {
    file_size_ = file_size;
    offsets_ = file_offsets;
    return read();
  }

  TensorMap read() {
    if (!bytes_) fail("no data");
    const uint64_t size = offsets_ ? file_size_ : uint64_t(bytes_->size());
    if (offsets_ && file_size_ < bytes_->size()) fail("the header bytes are longer than the file");
    if (size < 8)
      fail("truncated: file has " + std::to_string(size) +
           " bytes, but a safetensors file starts with an 8-byte header length");
    const uint64_t n = load_le64(bytes_->data());
    const uint64_t avail = size - 8;
    if (n > kMaxHeader)
      fail("not a safetensors file: header length " + std::to_string(n) + " is over the " +
           std::to_string(kMaxHeader) + "-byte limit");
    if (n > avail) {
      fail("truncated: header says " + std::to_string(n) + " bytes but file has " +
           std::to_string(avail) + " after the 8-byte length");
    }
    if (8 + n > bytes_->size())
      fail("the header (" + std::to_string(n) + " bytes) was not given whole: only " +
           std::to_string(bytes_->size()) + " bytes of the file");
    const char* header = reinterpret_cast<const char*>(bytes_->data() + 8);
    if (n == 0 || header[0] != '{')
      fail("not a safetensors file: the header does not start with '{'");
    data_ = offsets_ ? nullptr : bytes_->data() + 8 + n;
    data_start_ = 8 + n;
    data_size_ = avail - n;

    json::Document parsed;
    try {
      parsed = json::Document::parse(std::string_view(header, size_t(n)), header_limits());
    } catch (const json::ParseError& e) {
      fail("invalid JSON header: " + e.message());
    }
    const json::Value doc = parsed.root();
    if (!doc.is_object()) fail("invalid header: expected a JSON object");

    TensorMap out;
    out.items.reserve(doc.size());
    std::unordered_set<std::string_view> seen;
    std::vector<std::pair<uint64_t, uint64_t>> ranges;  // (begin, end) of non-empty tensors
    std::vector<size_t> range_item;                     // their index in out.items
    for (json::Value entry : doc) {
      const std::string_view name = entry.key();
      if (!seen.insert(name).second) fail("duplicate tensor " + quote(std::string(name)) + " in header");
      if (name == "__metadata__") {
        check_metadata(entry);
        continue;
      }
      uint64_t begin = 0, end = 0;
      out.items.emplace_back(std::string(name), read_tensor(std::string(name), entry, &begin, &end));
      if (end > begin) {
        ranges.emplace_back(begin, end);
        range_item.push_back(out.items.size() - 1);
      }
    }
    check_overlaps(out, ranges, range_item);
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& msg) const { throw WeightLoadError(origin_ + ": " + msg); }
  [[noreturn]] void fail_tensor(const std::string& name, const std::string& msg) const {
    fail("tensor " + quote(name) + ": " + msg);
  }

  // The reference reader wants a str -> str map; anything else is refused
  // rather than silently ignored.
  void check_metadata(json::Value meta) const {
    if (!meta.is_object()) fail("invalid header: __metadata__ must be an object");
    for (json::Value v : meta)
      if (!v.is_string())
        fail("invalid header: __metadata__[" + quote(std::string(v.key())) + "] must be a string");
  }

  // Tensors may not share bytes: overlapping ranges mean a forged or corrupt header.
  void check_overlaps(const TensorMap& out, const std::vector<std::pair<uint64_t, uint64_t>>& ranges,
                      const std::vector<size_t>& item) const {
    std::vector<size_t> order(ranges.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ranges[a] < ranges[b]; });
    for (size_t k = 1; k < order.size(); ++k) {
      const auto& prev = ranges[order[k - 1]];
      const auto& cur = ranges[order[k]];
      if (cur.first < prev.second)
        fail("tensors " + quote(out.items[item[order[k - 1]]].first) + " (bytes [" + std::to_string(prev.first) +
             ", " + std::to_string(prev.second) + ")) and " + quote(out.items[item[order[k]]].first) +
             " (bytes [" + std::to_string(cur.first) + ", " + std::to_string(cur.second) + ")) overlap");
    }
  }

  Tensor read_tensor(const std::string& name, json::Value v, uint64_t* begin, uint64_t* end) const {
    if (!v.is_object()) fail_tensor(name, "header entry must be an object");
    json::Value dt, sh, off;
    if (!v.find("dtype", &dt) || !dt.is_string()) fail_tensor(name, "missing string 'dtype'");
    if (!v.find("shape", &sh) || !sh.is_array()) fail_tensor(name, "missing array 'shape'");
    if (!v.find("data_offsets", &off) || !off.is_array() || off.size() != 2 || !off.at(0).is_uint64() ||
        !off.at(1).is_uint64())
      fail_tensor(name, "'data_offsets' must be two non-negative integers");

    const std::string dname = dt.string();
    DType dtype = DType::F32;
    bool known = false;
    for (const auto& e : kStDTypes)
      if (dname == e.name) { dtype = e.dtype; known = true; }
    if (!known)
      fail_tensor(name, "dtype " + dname + " is not supported (supported: " + supported_list() + ")");

    Shape shape;
    if (sh.size() > size_t(kMaxRank)) fail_tensor(name, "shape has " + std::to_string(sh.size()) + " dimensions");
    for (json::Value d : sh) {
      if (d.is_int64() && d.as_int64() < 0)
        fail_tensor(name, "negative dimension " + std::to_string(d.as_int64()) + " in shape");
      if (!d.is_int64()) fail_tensor(name, "shape entries must be integers (int64)");
      shape.push_back(d.as_int64());
    }
    uint64_t expect = 0;
    if (!checked_nbytes(shape, dtype_size(dtype), &expect))
      fail_tensor(name, "shape " + shape_to_string(shape) + " is too large");

    const uint64_t b = off.at(0).as_uint64(), e = off.at(1).as_uint64();
    *begin = b;
    *end = e;
    const std::string offs = "data_offsets [" + std::to_string(b) + ", " + std::to_string(e) + "]";
    if (b > e) fail_tensor(name, offs + ": begin is after end");
    if (e > data_size_)
      fail_tensor(name, offs + " extend past the end of the data section (" +
                            std::to_string(data_size_) + " bytes; file truncated?)");
    if (e - b != expect)
      fail_tensor(name, offs + " do not match shape " + shape_to_string(shape) + " of " + dname +
                            " (" + std::to_string(expect) + " bytes)");

    Tensor t;
    if (offsets_) {  // no data: the caller streams it from the file
      if (expect > SIZE_MAX) fail_tensor(name, "is larger than this build can address");
      t.buffer = std::make_shared<Buffer>();
      t.buffer->kind = Buffer::Kind::Weight;
      t.buffer->nbytes = size_t(expect);
      t.buffer->label = name;
      offsets_->push_back(data_start_ + b);
    } else {
      t.buffer = make_weight_buffer(data_ + b, size_t(expect), dtype_size(dtype), bytes_, name);
    }
    t.dtype = dtype;
    t.shape = shape;
    t.strides = contiguous_strides(shape);
    return t;
  }

  std::shared_ptr<const std::vector<uint8_t>> bytes_;
  std::string origin_;
  const uint8_t* data_ = nullptr;
  uint64_t data_start_ = 0;  // file offset of the data section
  uint64_t data_size_ = 0;
  uint64_t file_size_ = 0;
  std::vector<uint64_t>* offsets_ = nullptr;  // header-only mode
};

}  // namespace

TensorMap read_safetensors(std::shared_ptr<const std::vector<uint8_t>> bytes,
                           const std::string& origin) {
  return Reader(std::move(bytes), origin).read();
}

TensorMap read_safetensors_header(std::shared_ptr<const std::vector<uint8_t>> head, uint64_t file_size,
                                  const std::string& origin, std::vector<uint64_t>* file_offsets) {
  std::vector<uint64_t> offsets;
  TensorMap out = Reader(std::move(head), origin).read_header(file_size, &offsets);
  if (file_offsets) *file_offsets = std::move(offsets);
  return out;
}

TensorMap read_safetensors_file(const std::string& path) {
  return read_safetensors(read_file_bytes(path), path);
}

std::vector<uint8_t> write_safetensors(const TensorMap& tensors) {
  std::string header = "{";
  std::unordered_set<std::string> seen;
  std::vector<Tensor> contiguous;
  uint64_t offset = 0;
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
    if (header.size() > 1) header += ',';
    json::append_string(&header, name);
    header += ":{\"dtype\":\"";
    header += dname;
    header += "\",\"shape\":[";
    for (size_t k = 0; k < t.shape.size(); ++k) header += (k ? "," : "") + std::to_string(t.shape[k]);
    header += "],\"data_offsets\":[" + std::to_string(offset) + "," + std::to_string(offset + n) + "]}";
    offset += n;
  }
  header += '}';
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
