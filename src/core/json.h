// Small JSON reader shared by the IR loader, the KV mapping and the
// safetensors header. Files come from anywhere, so nothing here recurses
// (parse, traversal, serialization and destruction all walk a flat array),
// every size is bounded by Limits, and numbers use strtod (correctly rounded).
// Accepts what Python's json writes: NaN, Infinity, -Infinity; a UTF-8 BOM.
#pragma once
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tir {
namespace json {

// Caps checked while parsing, before the memory they guard is allocated.
struct Limits {
  size_t max_text_bytes = size_t(256) << 20;   // whole document (256 MiB; at most 4 GiB)
  size_t max_depth = 256;                      // nested arrays/objects
  size_t max_string_bytes = size_t(16) << 20;  // one string or key, unescaped (16 MiB)
  size_t max_values = size_t(16) << 20;        // values in the document (each costs 32 bytes)
};

// Syntax errors carry RapidJSON's English messages (callers and tests match
// them); limit errors name the JSON path of the value where the cap was hit.
struct ParseError : std::runtime_error {
  enum class Kind { Syntax, Limit };
  ParseError(Kind kind, std::string detail, size_t line, size_t column, std::string path);
  Kind kind;
  std::string detail;
  size_t line, column;  // 1-based, counted in bytes over the whole text (BOM included)
  std::string path;     // "nodes[3].attrs.x[0]"; empty at the root
  // "JSON parse error at line L, column C: <detail>" (syntax) or
  // "<path>: <detail> (line L, column C)" (limits).
  std::string message() const;
};

enum class Type : uint8_t { Null, Bool, Int, Uint, Float, String, Array, Object };

class Document;

// A view of one value in a Document (which must outlive it).
class Value {
 public:
  Value() = default;
  Value(const Document* doc, uint32_t index) : doc_(doc), index_(index) {}

  Type type() const;
  bool is_null() const { return type() == Type::Null; }
  bool is_bool() const { return type() == Type::Bool; }
  // Integers: Int holds every integer literal in int64 range, Uint those in
  // (INT64_MAX, UINT64_MAX]; other integer literals become Float, as in RapidJSON.
  bool is_int64() const { return type() == Type::Int; }
  bool is_uint64() const;  // a non-negative Int, or a Uint
  bool is_number() const { Type t = type(); return t == Type::Int || t == Type::Uint || t == Type::Float; }
  bool is_string() const { return type() == Type::String; }
  bool is_array() const { return type() == Type::Array; }
  bool is_object() const { return type() == Type::Object; }

  bool as_bool() const;
  int64_t as_int64() const;
  uint64_t as_uint64() const;
  double as_double() const;  // any number
  std::string_view str() const;
  std::string string() const { return std::string(str()); }
  std::string_view key() const;  // member name, when this value sits in an object

  // Arrays and objects: child count, children in order (object members are
  // the values; key() names them).
  size_t size() const;
  class Iterator {
   public:
    Iterator(const Document* d, uint32_t i, size_t left) : doc_(d), index_(i), left_(left) {}
    Value operator*() const { return Value(doc_, index_); }
    Iterator& operator++();
    bool operator!=(const Iterator& o) const { return left_ != o.left_; }
   private:
    const Document* doc_;
    uint32_t index_;
    size_t left_;
  };
  Iterator begin() const;
  Iterator end() const;

  // The LAST member named `name` (Python keeps the last of duplicated keys);
  // false when absent or this is not an object.
  bool find(std::string_view name, Value* out) const;
  // Conveniences for trusted data (tests, expected-output files): throw
  // std::out_of_range when absent.
  Value operator[](std::string_view name) const;
  Value at(size_t k) const;

  // Compact JSON text of this value (NaN/Infinity as Python writes them).
  std::string to_json() const;

 private:
  friend class Document;
  const Document* doc_ = nullptr;
  uint32_t index_ = 0;
};

class Document {
 public:
  // Throws ParseError.
  static Document parse(std::string_view text, const Limits& limits = Limits());
  Value root() const { return Value(this, 0); }

  struct Node {
    Type type;
    bool b;
    uint32_t count;   // children (Array, Object)
    uint32_t end;     // index one past this value's last descendant
    uint32_t key_off, key_len;
    union {
      int64_t i;
      uint64_t u;
      double f;
      struct { uint32_t off, len; } s;
    };
  };

 private:
  friend class Value;
  friend class Parser;
  std::vector<Node> nodes_;
  std::string strings_;  // unescaped strings and keys, back to back
};

// Hot accessors, inline: the loaders call them per value.
inline Type Value::type() const { return doc_->nodes_[index_].type; }
inline bool Value::is_uint64() const {
  const auto& n = doc_->nodes_[index_];
  return n.type == Type::Uint || (n.type == Type::Int && n.i >= 0);
}
inline bool Value::as_bool() const { return doc_->nodes_[index_].b; }
inline int64_t Value::as_int64() const { return doc_->nodes_[index_].i; }
inline uint64_t Value::as_uint64() const { return doc_->nodes_[index_].u; }
inline double Value::as_double() const {
  const auto& n = doc_->nodes_[index_];
  if (n.type == Type::Int) return double(n.i);
  if (n.type == Type::Uint) return double(n.u);
  return n.f;
}
inline size_t Value::size() const {
  const auto& n = doc_->nodes_[index_];
  return (n.type == Type::Array || n.type == Type::Object) ? n.count : 0;
}
inline Value::Iterator& Value::Iterator::operator++() {
  index_ = doc_->nodes_[index_].end;
  --left_;
  return *this;
}
inline Value::Iterator Value::begin() const { return Iterator(doc_, index_ + 1, size()); }
inline Value::Iterator Value::end() const { return Iterator(doc_, 0, 0); }

// Appends `s` as a JSON string literal (quoted, escaped) to `out`.
void append_string(std::string* out, std::string_view s);
// Appends the shortest text that reads back as `d` (NaN/Infinity/-Infinity as Python).
void append_double(std::string* out, double d);

}  // namespace json
}  // namespace tir
