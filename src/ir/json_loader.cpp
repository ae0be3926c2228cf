// Reads pytorch-ir JSON into tir::Model. Lenient where real exports vary
// (see IR_FORMAT.md), strict and path-naming where a file is plainly broken.
#include "ir/json_loader.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>

#include "core/errors.h"

namespace tir {

namespace {

using rapidjson::Value;

// Iterative parsing keeps the C++ stack flat however deep the file nests
// (the WASM stack is small); Python's json accepts NaN/Infinity tokens.
constexpr unsigned kParseFlags = rapidjson::kParseNanAndInfFlag |
                                 rapidjson::kParseFullPrecisionFlag |
                                 rapidjson::kParseIterativeFlag;
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

const char* type_desc(const Value& v) {
  if (v.IsNull()) return "null";
  if (v.IsBool()) return "a bool";
  if (v.IsNumber()) return "a number";
  if (v.IsString()) return "a string";
  if (v.IsArray()) return "a list";
  return "an object";
}

std::string str_of(const Value& v) { return std::string(v.GetString(), v.GetStringLength()); }

std::string number_text(const Value& v) {
  char buf[40];
  if (v.IsInt64()) std::snprintf(buf, sizeof buf, "%lld", (long long)v.GetInt64());
  else if (v.IsUint64()) std::snprintf(buf, sizeof buf, "%llu", (unsigned long long)v.GetUint64());
  else if (std::isnan(v.GetDouble())) return "NaN";
  else if (std::isinf(v.GetDouble())) return v.GetDouble() > 0 ? "Infinity" : "-Infinity";
  else std::snprintf(buf, sizeof buf, "%.17g", v.GetDouble());
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
  static const Value* member(const Value& obj, const char* key) {
    const Value* found = nullptr;
    const size_t len = std::strlen(key);
    for (auto it = obj.MemberBegin(); it != obj.MemberEnd(); ++it)
      if (it->name.GetStringLength() == len && std::memcmp(it->name.GetString(), key, len) == 0)
        found = &it->value;
    return found;
  }

  const Value& required(const Value& obj, const Path& path, const char* key) const {
    const Value* v = member(obj, key);
    if (!v) fail(path, std::string("missing required field '") + key + "'");
    return *v;
  }

  std::string get_string(const Value& v, const Path& path) const {
    if (!v.IsString()) fail(path, std::string("expected a string, got ") + type_desc(v));
    return str_of(v);
  }

  // Optional string field: absent or null reads as "".
  std::string opt_string(const Value& obj, const Path& path, const char* key) const {
    const Value* v = member(obj, key);
    if (!v || v->IsNull()) return "";
    return get_string(*v, path / key);
  }

  DType get_dtype(const Value& v, const Path& path) const {
    DType d;
    if (v.IsString()) {
      if (!try_parse_dtype(str_of(v), &d)) fail(path, "unknown dtype '" + str_of(v) + "'");
      return d;
    }
    if (v.IsInt64()) {
      if (!dtype_from_scalar_type(v.GetInt64(), &d))
        fail(path, "unknown dtype " + number_text(v) + " (not a supported ScalarType number)");
      return d;
    }
    fail(path, std::string("expected a dtype name or ScalarType int, got ") + type_desc(v));
  }

  Shape get_shape(const Value& v, const Path& path) const {
    if (!v.IsArray()) fail(path, "expected a list of ints");
    Shape shape;
    shape.reserve(v.Size());
    for (rapidjson::SizeType k = 0; k < v.Size(); ++k) {
      const Value& d = v[k];
      if (d.IsBool() || !d.IsInt64()) {
        std::string got = d.IsNumber() ? number_text(d) : type_desc(d);
        if (d.IsString()) got += " \"" + str_of(d) + "\"";
        fail(path[k], "expected an int dim, got " + got + " (dynamic or non-integer dims are not supported)");
      }
      if (d.GetInt64() < 0) fail(path[k], "negative dim " + number_text(d));
      shape.push_back(d.GetInt64());
    }
    return shape;
  }

  TensorMeta tensor_meta(const Value& v, const Path& path) const {
    if (!v.IsObject()) fail(path, std::string("expected a tensor object, got ") + type_desc(v));
    TensorMeta t;
    t.name = get_string(required(v, path, "name"), path / "name");
    t.shape = get_shape(required(v, path, "shape"), path / "shape");
    t.dtype = get_dtype(required(v, path, "dtype"), path / "dtype");
    t.producer_node = opt_string(v, path, "producer_node");
    if (const Value* idx = member(v, "producer_output_idx")) {
      if (!idx->IsNull()) {
        if (idx->IsBool() || !idx->IsInt64() || idx->GetInt64() < 0)
          fail(path / "producer_output_idx", "expected a non-negative int");
        t.producer_output_idx = idx->GetInt64();
      }
    }
    return t;
  }

  std::vector<TensorMeta> tensor_list(const Value& v, const Path& path) const {
    if (!v.IsArray()) fail(path, std::string("expected a list of tensors, got ") + type_desc(v));
    std::vector<TensorMeta> out;
    out.reserve(v.Size());
    for (rapidjson::SizeType k = 0; k < v.Size(); ++k) out.push_back(tensor_meta(v[k], path[k]));
    return out;
  }

  Attr attr(const Value& v, const Path& path, int depth) const {
    if (depth > kMaxDepth) fail(path, "nesting too deep");
    if (v.IsNull()) return Attr::none();
    if (v.IsBool()) return Attr::of_bool(v.GetBool());
    if (v.IsInt64()) return Attr::of_int(v.GetInt64());
    // Integers above INT64_MAX only occur as "to the end" slice bounds: clamp.
    if (v.IsUint64()) return Attr::of_int(std::numeric_limits<int64_t>::max());
    if (v.IsNumber()) return Attr::of_float(v.GetDouble());
    if (v.IsString()) return Attr::of_string(str_of(v));
    if (v.IsArray()) {
      std::vector<Attr> items;
      items.reserve(v.Size());
      for (rapidjson::SizeType k = 0; k < v.Size(); ++k) items.push_back(attr(v[k], path[k], depth + 1));
      return Attr::of_list(std::move(items));
    }
    // No op takes a dict argument; keep its JSON text so a reader can report it.
    rapidjson::StringBuffer sb;
    rapidjson::Writer<rapidjson::StringBuffer, rapidjson::UTF8<>, rapidjson::UTF8<>,
                      rapidjson::CrtAllocator, rapidjson::kWriteNanAndInfFlag> w(sb);
    v.Accept(w);
    return Attr::of_string(sb.GetString());
  }

  OpNode node(const Value& v, const Path& index_path) const {
    if (!v.IsObject()) fail(index_path, std::string("expected a node object, got ") + type_desc(v));
    OpNode n;
    n.name = get_string(required(v, index_path, "name"), index_path / "name");
    const Path path = index_path.label(n.name);
    n.op_type = get_string(required(v, path, "op_type"), path / "op_type");
    n.inputs = tensor_list(required(v, path, "inputs"), path / "inputs");
    n.outputs = tensor_list(required(v, path, "outputs"), path / "outputs");
    if (const Value* a = member(v, "attrs")) {
      if (!a->IsNull()) {
        const Path attrs_path = path / "attrs";
        if (!a->IsObject()) fail(attrs_path, std::string("expected an object, got ") + type_desc(*a));
        for (auto it = a->MemberBegin(); it != a->MemberEnd(); ++it) {
          std::string key = str_of(it->name);
          n.attrs[key] = attr(it->value, attrs_path.dot(key), 0);
        }
      }
    }
    return n;
  }

  // Shape of a rectangular nested list, from its first elements.
  static Shape nested_shape(const Value& data) {
    Shape shape;
    const Value* cur = &data;
    while (cur->IsArray() && shape.size() <= size_t(kMaxDepth)) {
      shape.push_back(cur->Size());
      if (cur->Size() == 0) break;
      cur = &(*cur)[0];
    }
    return shape;
  }

  // Appends the leaves of `v` (row-major), checking the nesting matches `shape`.
  void leaves(const Value& v, const Shape& shape, size_t depth, const Path& path, ConstantValue* out,
              bool integral) const {
    if (depth > size_t(kMaxDepth)) fail(path, "nesting too deep");
    if (depth < shape.size()) {
      if (!v.IsArray()) fail(path, std::string("ragged nested list: expected a list, got ") + type_desc(v));
      if (int64_t(v.Size()) != shape[depth])
        fail(path, "ragged nested list: expected " + std::to_string(shape[depth]) + " elements, got " +
                       std::to_string(v.Size()));
      for (rapidjson::SizeType k = 0; k < v.Size(); ++k) leaves(v[k], shape, depth + 1, path[k], out, integral);
      return;
    }
    double d = 0.0;
    int64_t i = 0;
    if (v.IsBool() || v.IsInt64()) {
      i = v.IsBool() ? int64_t(v.GetBool()) : v.GetInt64();
      d = double(i);
    } else if (v.IsUint64()) {
      fail(path, "integer " + number_text(v) + " is out of int64 range");
    } else if (v.IsNumber()) {
      d = v.GetDouble();
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

  ConstantValue constant(const Value& v, const Path& path) const {
    if (!v.IsObject()) fail(path, std::string("expected an object with 'data' and 'dtype', got ") + type_desc(v));
    ConstantValue c;
    c.dtype = get_dtype(required(v, path, "dtype"), path / "dtype");
    if (is_complex(c.dtype)) fail(path / "dtype", "complex constants are not supported");
    const Value& data = required(v, path, "data");
    c.shape = nested_shape(data);
    const bool integral = is_integral(c.dtype) || c.dtype == DType::Bool;
    leaves(data, c.shape, 0, path / "data", &c, integral);
    return c;
  }

  Model model(const Value& root) const {
    const Path top;
    if (!root.IsObject()) fail(top, std::string("expected a JSON object at the top level, got ") + type_desc(root));
    Model m;
    m.model_name = opt_string(root, top, "model_name");
    m.pytorch_version = opt_string(root, top, "pytorch_version");
    m.graph_inputs = tensor_list(required(root, top, "graph_inputs"), top / "graph_inputs");
    m.graph_outputs = tensor_list(required(root, top, "graph_outputs"), top / "graph_outputs");
    // pytorch-ir always writes `weights`; hand-written files without parameters may not.
    if (const Value* w = member(root, "weights"); w && !w->IsNull()) m.weights = tensor_list(*w, top / "weights");

    // Python dicts: a repeated key keeps its first position and its last value.
    std::map<std::string, size_t> mapping_slot, constant_slot;
    if (const Value* map = member(root, "weight_name_mapping"); map && !map->IsNull()) {
      const Path map_path = top / "weight_name_mapping";
      if (!map->IsObject()) fail(map_path, std::string("expected an object, got ") + type_desc(*map));
      for (auto it = map->MemberBegin(); it != map->MemberEnd(); ++it) {
        std::string key = str_of(it->name);
        std::string value = get_string(it->value, map_path.key(key));
        auto slot = mapping_slot.emplace(key, m.weight_name_mapping.size());
        if (slot.second) m.weight_name_mapping.emplace_back(key, value);
        else m.weight_name_mapping[slot.first->second].second = value;
      }
    }

    const Value& nodes = required(root, top, "nodes");
    const Path nodes_path = top / "nodes";
    if (!nodes.IsArray()) fail(nodes_path, std::string("expected a list of nodes, got ") + type_desc(nodes));
    m.nodes.reserve(nodes.Size());
    for (rapidjson::SizeType k = 0; k < nodes.Size(); ++k) m.nodes.push_back(node(nodes[k], nodes_path[k]));

    if (const Value* cs = member(root, "constants"); cs && !cs->IsNull()) {
      const Path cs_path = top / "constants";
      if (!cs->IsObject()) fail(cs_path, std::string("expected an object, got ") + type_desc(*cs));
      for (auto it = cs->MemberBegin(); it != cs->MemberEnd(); ++it) {
        std::string key = str_of(it->name);
        ConstantValue c = constant(it->value, cs_path.key(key));
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

Model load_model_json(const std::string& text, const std::string& origin) {
  Loader loader(origin);
  size_t start = 0;
  if (text.size() >= 3 && text.compare(0, 3, "\xEF\xBB\xBF") == 0) start = 3;  // UTF-8 BOM
  rapidjson::Document doc;
  doc.Parse<kParseFlags>(text.data() + start, text.size() - start);
  if (doc.HasParseError()) {
    const size_t offset = start + doc.GetErrorOffset();
    size_t line = 1, line_start = 0;
    for (size_t k = 0; k < offset && k < text.size(); ++k)
      if (text[k] == '\n') { ++line; line_start = k + 1; }
    const size_t column = offset - line_start + 1;
    throw IRFormatError(origin + ": JSON parse error at line " + std::to_string(line) + ", column " +
                        std::to_string(column) + ": " + rapidjson::GetParseError_En(doc.GetParseError()));
  }
  return loader.model(doc);
}

Model load_model_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw IRFormatError(path + ": cannot open IR file: " + std::strerror(errno));
  std::string text;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  const bool read_error = std::ferror(f) != 0;
  std::fclose(f);
  if (read_error) throw IRFormatError(path + ": cannot read IR file");
  return load_model_json(text, path);
}

}  // namespace tir
