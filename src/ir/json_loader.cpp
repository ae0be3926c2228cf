// Reads pytorch-ir JSON into tir::Model. Lenient where real exports vary
// (see docs/spec/IR_FORMAT.md), strict and path-naming where a file is plainly broken.
#include "ir/json_loader.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <sys/stat.h>

#include "core/errors.h"
#include "core/json.h"

namespace tir {

namespace {

using json::Value;

// Attr lists and constants are read recursively (and Attr nests), so their
// depth stays well under what the C++ and WASM stacks hold; the JSON reader
// itself is iterative and caps all nesting at json::Limits::max_depth.
constexpr int kMaxDepth = 200;

// Location in the document ("nodes[3] ('relu').outputs[0].shape") as a chain of
// stack frames, turned into text only when an error is reported: building
// strings for every field would dominate load time on large graphs.
struct Path {
  enum class Kind { Root, Field, Index, Key, Label };
  const Path* up = nullptr;
  Kind kind = Kind::Root;
  const char* field = nullptr;
  const std::string* text = nullptr;
  size_t index = 0;

  Path operator/(const char* f) const { return {this, Kind::Field, f, nullptr, 0}; }
  Path operator[](size_t i) const { return {this, Kind::Index, nullptr, nullptr, i}; }
  Path key(const std::string& k) const { return {this, Kind::Key, nullptr, &k, 0}; }
  Path dot(const std::string& k) const { return {this, Kind::Field, nullptr, &k, 0}; }
  Path label(const std::string& name) const { return {this, Kind::Label, nullptr, &name, 0}; }

  std::string str() const {
    std::string out = up ? up->str() : "";
    switch (kind) {
      case Kind::Root: break;
      case Kind::Field:
        if (!out.empty()) out += ".";
        out += field ? std::string(field) : *text;
        break;
      case Kind::Index: out += "[" + std::to_string(index) + "]"; break;
      case Kind::Key: out += "['" + *text + "']"; break;
      case Kind::Label: out += " ('" + *text + "')"; break;
    }
    return out;
  }
};

const char* type_desc(Value v) {
  if (v.is_null()) return "null";
  if (v.is_bool()) return "a bool";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "a list";
  return "an object";
}

std::string str_of(Value v) { return v.string(); }

std::string number_text(Value v) {
  char buf[40];
  if (v.is_int64()) std::snprintf(buf, sizeof buf, "%lld", (long long)v.as_int64());
  else if (v.is_uint64()) std::snprintf(buf, sizeof buf, "%llu", (unsigned long long)v.as_uint64());
  else if (std::isnan(v.as_double())) return "NaN";
  else if (std::isinf(v.as_double())) return v.as_double() > 0 ? "Infinity" : "-Infinity";
  else std::snprintf(buf, sizeof buf, "%.17g", v.as_double());
  return buf;
}

class Loader {
 public:
  explicit Loader(std::string origin) : origin_(std::move(origin)) {}

  [[noreturn]] void fail(const Path& path, const std::string& msg) const {
    const std::string where = path.str();
    throw IRFormatError(origin_ + ": " + (where.empty() ? "" : where + ": ") + msg);
  }

  // Python's json keeps the LAST of duplicated keys; so do we.
  static std::optional<Value> member(Value obj, const char* key) {
    Value v;
    if (!obj.find(key, &v)) return std::nullopt;
    return v;
  }

  Value required(Value obj, const Path& path, const char* key) const {
    Value v;
    if (!obj.find(key, &v)) fail(path, std::string("missing required field '") + key + "'");
    return v;
  }

  std::string get_string(Value v, const Path& path) const {
    if (!v.is_string()) fail(path, std::string("expected a string, got ") + type_desc(v));
    return str_of(v);
  }

  // Optional string field: absent or null reads as "".
  std::string opt_string(Value obj, const Path& path, const char* key) const {
    const std::optional<Value> v = member(obj, key);
    if (!v || v->is_null()) return "";
    return get_string(*v, path / key);
  }

  DType get_dtype(Value v, const Path& path) const {
    DType d;
    if (v.is_string()) {
      if (!try_parse_dtype(str_of(v), &d)) fail(path, "unknown dtype '" + str_of(v) + "'");
      return d;
    }
    if (v.is_int64()) {
      if (!dtype_from_scalar_type(v.as_int64(), &d))
        fail(path, "unknown dtype " + number_text(v) + " (not a supported ScalarType number)");
      return d;
    }
    fail(path, std::string("expected a dtype name or ScalarType int, got ") + type_desc(v));
  }

  Shape get_shape(Value v, const Path& path) const {
    if (!v.is_array()) fail(path, "expected a list of ints");
    Shape shape;
    shape.reserve(v.size());
    size_t k = 0;
    for (Value d : v) {
      if (d.is_bool() || !d.is_int64()) {
        std::string got = d.is_number() ? number_text(d) : type_desc(d);
        if (d.is_string()) got += " \"" + str_of(d) + "\"";
        fail(path[k], "expected an int dim, got " + got + " (dynamic or non-integer dims are not supported)");
      }
      if (d.as_int64() < 0) fail(path[k], "negative dim " + number_text(d));
      shape.push_back(d.as_int64());
      ++k;
    }
    return shape;
  }

  TensorMeta tensor_meta(Value v, const Path& path) const {
    if (!v.is_object()) fail(path, std::string("expected a tensor object, got ") + type_desc(v));
    TensorMeta t;
    t.name = get_string(required(v, path, "name"), path / "name");
    t.shape = get_shape(required(v, path, "shape"), path / "shape");
    t.dtype = get_dtype(required(v, path, "dtype"), path / "dtype");
    t.producer_node = opt_string(v, path, "producer_node");
    if (const std::optional<Value> idx = member(v, "producer_output_idx")) {
      if (!idx->is_null()) {
        if (idx->is_bool() || !idx->is_int64() || idx->as_int64() < 0)
          fail(path / "producer_output_idx", "expected a non-negative int");
        t.producer_output_idx = idx->as_int64();
      }
    }
    return t;
  }

  std::vector<TensorMeta> tensor_list(Value v, const Path& path) const {
    if (!v.is_array()) fail(path, std::string("expected a list of tensors, got ") + type_desc(v));
    std::vector<TensorMeta> out;
    out.reserve(v.size());
    size_t k = 0;
    for (Value t : v) out.push_back(tensor_meta(t, path[k++]));
    return out;
  }

  Attr attr(Value v, const Path& path, int depth) const {
    if (depth > kMaxDepth) fail(path, "nesting too deep");
    if (v.is_null()) return Attr::none();
    if (v.is_bool()) return Attr::of_bool(v.as_bool());
    if (v.is_int64()) return Attr::of_int(v.as_int64());
    // Integers above INT64_MAX only occur as "to the end" slice bounds: clamp.
    if (v.is_uint64()) return Attr::of_int(std::numeric_limits<int64_t>::max());
    if (v.is_number()) return Attr::of_float(v.as_double());
    if (v.is_string()) return Attr::of_string(str_of(v));
    if (v.is_array()) {
      std::vector<Attr> items;
      items.reserve(v.size());
      size_t k = 0;
      for (Value item : v) items.push_back(attr(item, path[k++], depth + 1));
      return Attr::of_list(std::move(items));
    }
    // No op takes a dict argument; keep its JSON text so a reader can report it
    // (to_json walks the value without recursion, however deep it nests).
    return Attr::of_string(v.to_json());
  }

  OpNode node(Value v, const Path& index_path) const {
    if (!v.is_object()) fail(index_path, std::string("expected a node object, got ") + type_desc(v));
    OpNode n;
    n.name = get_string(required(v, index_path, "name"), index_path / "name");
    const Path path = index_path.label(n.name);
    n.op_type = get_string(required(v, path, "op_type"), path / "op_type");
    n.inputs = tensor_list(required(v, path, "inputs"), path / "inputs");
    n.outputs = tensor_list(required(v, path, "outputs"), path / "outputs");
    if (const std::optional<Value> a = member(v, "attrs")) {
      if (!a->is_null()) {
        const Path attrs_path = path / "attrs";
        if (!a->is_object()) fail(attrs_path, std::string("expected an object, got ") + type_desc(*a));
        for (Value member_value : *a) {
          std::string key(member_value.key());
          n.attrs[key] = attr(member_value, attrs_path.dot(key), 0);
        }
      }
    }
    return n;
  }

  // Shape of a rectangular nested list, from its first elements.
  static Shape nested_shape(const Value& data) {
    Shape shape;
    Value cur = data;
    while (cur.is_array() && shape.size() <= size_t(kMaxDepth)) {
      shape.push_back(int64_t(cur.size()));
      if (cur.size() == 0) break;
      cur = *cur.begin();
    }
    return shape;
  }

  // Appends the leaves of `v` (row-major), checking the nesting matches `shape`.
  void leaves(Value v, const Shape& shape, size_t depth, const Path& path, ConstantValue* out,
              bool integral) const {
    if (depth > size_t(kMaxDepth)) fail(path, "nesting too deep");
    if (depth < shape.size()) {
      if (!v.is_array()) fail(path, std::string("ragged nested list: expected a list, got ") + type_desc(v));
      if (int64_t(v.size()) != shape[depth])
        fail(path, "ragged nested list: expected " + std::to_string(shape[depth]) + " elements, got " +
                       std::to_string(v.size()));
      size_t k = 0;
      for (Value item : v) leaves(item, shape, depth + 1, path[k++], out, integral);
      return;
    }
    double d = 0.0;
    int64_t i = 0;
    if (v.is_bool() || v.is_int64()) {
      i = v.is_bool() ? int64_t(v.as_bool()) : v.as_int64();
      d = double(i);
    } else if (v.is_uint64()) {
      fail(path, "integer " + number_text(v) + " is out of int64 range");
    } else if (v.is_number()) {
      d = v.as_double();
      if (out->dtype == DType::Bool) {
        i = d != 0.0;  // NaN is truthy, as in torch
      } else if (integral) {
        if (!std::isfinite(d) || std::fabs(d) >= 9.2233720368547758e18)
          fail(path, "value " + number_text(v) + " does not fit an integer dtype");
        i = int64_t(d);  // torch truncates toward zero
      }
    } else {
      fail(path, std::string("expected a number, got ") + type_desc(v));
    }
    if (out->dtype == DType::Bool) i = i != 0;
    if (integral) {
      out->ints.push_back(i);
      out->values.push_back(double(i));
    } else {
      out->values.push_back(d);
    }
  }

  ConstantValue constant(Value v, const Path& path) const {
    if (!v.is_object()) fail(path, std::string("expected an object with 'data' and 'dtype', got ") + type_desc(v));
    ConstantValue c;
    c.dtype = get_dtype(required(v, path, "dtype"), path / "dtype");
    if (is_complex(c.dtype)) fail(path / "dtype", "complex constants are not supported");
    const Value data = required(v, path, "data");
    c.shape = nested_shape(data);
    const bool integral = is_integral(c.dtype) || c.dtype == DType::Bool;
    leaves(data, c.shape, 0, path / "data", &c, integral);
    return c;
  }

  Model model(Value root) const {
    const Path top;
    if (!root.is_object()) fail(top, std::string("expected a JSON object at the top level, got ") + type_desc(root));
    Model m;
    m.model_name = opt_string(root, top, "model_name");
    m.pytorch_version = opt_string(root, top, "pytorch_version");
    m.graph_inputs = tensor_list(required(root, top, "graph_inputs"), top / "graph_inputs");
    m.graph_outputs = tensor_list(required(root, top, "graph_outputs"), top / "graph_outputs");
    // pytorch-ir always writes `weights`; hand-written files without parameters may not.
    if (const std::optional<Value> w = member(root, "weights"); w && !w->is_null()) m.weights = tensor_list(*w, top / "weights");

    // Python dicts: a repeated key keeps its first position and its last value.
    std::map<std::string, size_t> mapping_slot, constant_slot;
    if (const std::optional<Value> map = member(root, "weight_name_mapping"); map && !map->is_null()) {
      const Path map_path = top / "weight_name_mapping";
      if (!map->is_object()) fail(map_path, std::string("expected an object, got ") + type_desc(*map));
      for (Value entry : *map) {
        std::string key(entry.key());
        std::string value = get_string(entry, map_path.key(key));
        auto slot = mapping_slot.emplace(key, m.weight_name_mapping.size());
        if (slot.second) m.weight_name_mapping.emplace_back(key, value);
        else m.weight_name_mapping[slot.first->second].second = value;
      }
    }

    const Value nodes = required(root, top, "nodes");
    const Path nodes_path = top / "nodes";
    if (!nodes.is_array()) fail(nodes_path, std::string("expected a list of nodes, got ") + type_desc(nodes));
    m.nodes.reserve(nodes.size());
    size_t k = 0;
    for (Value n : nodes) m.nodes.push_back(node(n, nodes_path[k++]));

    if (const std::optional<Value> cs = member(root, "constants"); cs && !cs->is_null()) {
      const Path cs_path = top / "constants";
      if (!cs->is_object()) fail(cs_path, std::string("expected an object, got ") + type_desc(*cs));
      for (Value entry : *cs) {
        std::string key(entry.key());
        ConstantValue c = constant(entry, cs_path.key(key));
        auto slot = constant_slot.emplace(key, m.constants.size());
        if (slot.second) m.constants.emplace_back(key, std::move(c));
        else m.constants[slot.first->second].second = std::move(c);
      }
    }
    return m;
  }

 private:
  std::string origin_;
};

}  // namespace

Model load_model_json(const std::string& text, const std::string& origin, const json::Limits& limits) {
  Loader loader(origin);
  json::Document doc;
  try {
    doc = json::Document::parse(text, limits);
  } catch (const json::ParseError& e) {
    throw IRFormatError(origin + ": " + e.message());
  }
  return loader.model(doc.root());
}

Model load_model_file(const std::string& path, const json::Limits& limits) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw IRFormatError(path + ": cannot open IR file: " + std::strerror(errno));
  // fopen opens a directory on Linux; its "size" would be LONG_MAX.
  struct stat st;
  if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
    std::fclose(f);
    throw IRFormatError(path + ": cannot open IR file: " + std::strerror(EISDIR));
  }
  // Refuse an oversized file before reading it into memory.
  if (std::fseek(f, 0, SEEK_END) == 0) {
    const long size = std::ftell(f);
    if (size > 0 && uint64_t(size) > limits.max_text_bytes) {
      std::fclose(f);
      throw IRFormatError(path + ": JSON text is " + std::to_string(size) + " bytes, over the limit of " +
                          std::to_string(limits.max_text_bytes) + " (limit max_text_bytes)");
    }
    std::rewind(f);
  }
  std::string text;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  const int read_errno = std::ferror(f) ? errno : 0;
  std::fclose(f);
  if (read_errno) throw IRFormatError(path + ": cannot read IR file: " + std::strerror(read_errno));
  return load_model_json(text, path, limits);
}

}  // namespace tir
