#include "core/json.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <limits>

namespace tir {
namespace json {

ParseError::ParseError(Kind k, std::string d, size_t l, size_t c, std::string p)
    : std::runtime_error(d), kind(k), detail(std::move(d)), line(l), column(c), path(std::move(p)) {}

std::string ParseError::message() const {
  const std::string at = "line " + std::to_string(line) + ", column " + std::to_string(column);
  if (kind == Kind::Syntax) return "JSON parse error at " + at + ": " + detail;
  return (path.empty() ? "" : path + ": ") + detail + " (" + at + ")";
}

// ------------------------------------------------------------------ parser

namespace {

// Correctly rounded text -> double for a validated JSON number in [begin, end).
// libstdc++'s from_chars (GCC 12: Eisel-Lemire) is several times faster than
// strtod, which Emscripten's libc++ build falls back to.
double to_double(const char* begin, const char* end) {
#if defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L
  double v = 0;
  const auto r = std::from_chars(begin, end, v);
  if (r.ec == std::errc() && r.ptr == end) return v;
  // out_of_range: underflow (strtod gives 0 / a denormal) or overflow (inf).
#endif
  char buf[64];
  const size_t n = size_t(end - begin);
  if (n < sizeof buf) {
    std::memcpy(buf, begin, n);
    buf[n] = '\0';
    return std::strtod(buf, nullptr);
  }
  return std::strtod(std::string(begin, n).c_str(), nullptr);
}

}  // namespace

class Parser {
 public:
  Parser(std::string_view text, const Limits& limits, Document* doc)
      : text_(text), p_(text.data()), end_(text.data() + text.size()), limits_(limits), doc_(doc) {}

  void run();

 private:
  using Node = Document::Node;
  static constexpr uint32_t kNoKey = UINT32_MAX;  // Frame::key_off while a member name is being read
  struct Frame {
    uint32_t node;
    uint32_t count = 0;
    uint32_t key_off = 0, key_len = 0;  // name of the member being parsed (objects)
  };

  [[noreturn]] void syntax(const char* msg, const char* at) const { raise(ParseError::Kind::Syntax, msg, at); }
  [[noreturn]] void limit(const std::string& msg) const { raise(ParseError::Kind::Limit, msg, p_); }
  [[noreturn]] void raise(ParseError::Kind kind, const std::string& msg, const char* at) const;
  std::string path() const;

  void skip_ws() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }
  Node& add(Type t);
  bool literal(const char* word) {
    const size_t n = std::strlen(word);
    if (size_t(end_ - p_) < n || std::memcmp(p_, word, n) != 0) return false;
    p_ += n;
    return true;
  }
  // Unescapes the string at p_ (on its opening quote) into strings_; returns its offset and length.
  void string(uint32_t* off, uint32_t* len);
  // `"name" :` of the next object member into f's key, leaving p_ at its value.
  void member_name(Frame& f);
  void number();

  std::string_view text_;
  const char* p_;
  const char* end_;
  const Limits& limits_;
  Document* doc_;
  std::vector<Frame> stack_;
};

void Parser::raise(ParseError::Kind kind, const std::string& msg, const char* at) const {
  size_t line = 1;
  const char* line_start = text_.data();
  for (const char* q = text_.data(); q < at && q < end_; ++q)
    if (*q == '\n') { ++line; line_start = q + 1; }
  throw ParseError(kind, msg, line, size_t(at - line_start) + 1, kind == ParseError::Kind::Limit ? path() : "");
}

std::string Parser::path() const {
  // Deep paths keep their first and last steps: enough to find the spot.
  constexpr size_t kHead = 8, kTail = 4;
  std::string out;
  bool after_gap = false;
  const std::vector<Node>& nodes = doc_->nodes_;
  for (size_t k = 0; k < stack_.size(); ++k) {
    if (stack_.size() > kHead + kTail && k == kHead) {
      out += "...(" + std::to_string(stack_.size() - kHead - kTail) + " levels)...";
      k = stack_.size() - kTail - 1;
      after_gap = true;
      continue;
    }
    const Frame& f = stack_[k];
    if (nodes[f.node].type == Type::Object) {
      if (f.key_off == kNoKey) continue;  // the limit was hit reading this member's name
      if (!out.empty() && !after_gap) out += '.';
      after_gap = false;
      out.append(doc_->strings_, f.key_off, f.key_len);
    } else {
      out += "[" + std::to_string(f.count) + "]";
      after_gap = false;
    }
  }
  return out;
}

Parser::Node& Parser::add(Type t) {
  std::vector<Node>& nodes = doc_->nodes_;
  if (nodes.size() >= limits_.max_values)
    limit("JSON has more than " + std::to_string(limits_.max_values) + " values (limit max_values)");
  Node n{};
  n.type = t;
  n.end = uint32_t(nodes.size() + 1);
  if (!stack_.empty()) {
    const Frame& f = stack_.back();
    n.key_off = f.key_off;
    n.key_len = f.key_len;
  }
  nodes.push_back(n);
  return nodes.back();
}

void Parser::member_name(Frame& f) {
  if (p_ == end_ || *p_ != '"') syntax("Missing a name for object member.", p_);
  f.key_off = kNoKey;
  string(&f.key_off, &f.key_len);
  skip_ws();
  if (p_ == end_ || *p_ != ':') syntax("Missing a colon after a name of object member.", p_);
  ++p_;
  skip_ws();
}

void Parser::string(uint32_t* off, uint32_t* len) {
  const char* open = p_++;
  std::string& out = doc_->strings_;
  const size_t start = out.size();
  for (;;) {
    const char* run = p_;
    while (p_ < end_ && *p_ != '"' && *p_ != '\\' && static_cast<unsigned char>(*p_) >= 0x20) ++p_;
    out.append(run, size_t(p_ - run));
    if (out.size() - start > limits_.max_string_bytes) {
      p_ = open;
      limit("JSON string longer than " + std::to_string(limits_.max_string_bytes) +
            " bytes (limit max_string_bytes)");
    }
    if (p_ == end_) syntax("Missing a closing quotation mark in string.", p_);
    const char c = *p_;
    if (c == '"') { ++p_; break; }
    if (c != '\\') syntax("Invalid encoding in string.", p_);  // raw control character
    const char* esc = p_;
    if (end_ - p_ < 2) syntax("Missing a closing quotation mark in string.", end_);
    const char e = p_[1];
    p_ += 2;
    switch (e) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '/': out += '/'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        auto hex4 = [&](uint32_t* v) {
          if (end_ - p_ < 4) syntax("Incorrect hex digit after \\u escape in string.", p_);
          *v = 0;
          for (int k = 0; k < 4; ++k) {
            const char h = p_[k];
            uint32_t d;
            if (h >= '0' && h <= '9') d = uint32_t(h - '0');
            else if (h >= 'a' && h <= 'f') d = uint32_t(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F') d = uint32_t(h - 'A' + 10);
            else syntax("Incorrect hex digit after \\u escape in string.", p_);
            *v = *v * 16 + d;
          }
          p_ += 4;
        };
        uint32_t cp;
        hex4(&cp);
        if (cp >= 0xDC00 && cp <= 0xDFFF) syntax("The surrogate pair in string is invalid.", esc);
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          uint32_t lo;
          if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') syntax("The surrogate pair in string is invalid.", esc);
          p_ += 2;
          hex4(&lo);
          if (lo < 0xDC00 || lo > 0xDFFF) syntax("The surrogate pair in string is invalid.", esc);
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        }
        if (cp < 0x80) {
          out += char(cp);
        } else if (cp < 0x800) {
          out += char(0xC0 | (cp >> 6));
          out += char(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
          out += char(0xE0 | (cp >> 12));
          out += char(0x80 | ((cp >> 6) & 0x3F));
          out += char(0x80 | (cp & 0x3F));
        } else {
          out += char(0xF0 | (cp >> 18));
          out += char(0x80 | ((cp >> 12) & 0x3F));
          out += char(0x80 | ((cp >> 6) & 0x3F));
          out += char(0x80 | (cp & 0x3F));
        }
        break;
      }
      default: syntax("Invalid escape character in string.", esc);
    }
  }
  if (out.size() - start > limits_.max_string_bytes) {
    p_ = open;
    limit("JSON string longer than " + std::to_string(limits_.max_string_bytes) + " bytes (limit max_string_bytes)");
  }
  *off = uint32_t(start);
  *len = uint32_t(out.size() - start);
}

void Parser::number() {
  const char* start = p_;
  const bool neg = *p_ == '-';
  if (neg) {
    ++p_;
    if (literal("Infinity")) { add(Type::Float).f = -std::numeric_limits<double>::infinity(); return; }
  }
  auto digit = [&]() { return p_ < end_ && *p_ >= '0' && *p_ <= '9'; };
  if (!digit()) syntax("Invalid value.", start);
  // Significant digits accumulate into `mant` while it stays exact.
  uint64_t mant = 0;
  int digits = 0;      // digits folded into mant (leading zeros excluded)
  bool exact = true;   // every nonzero digit made it into mant
  int64_t exp10 = 0;   // value = mant * 10^exp10 while exact
  auto take = [&](bool fraction) {
    const int d = *p_ - '0';
    if (digits < 19) {
      mant = mant * 10 + uint64_t(d);
      if (mant) ++digits;
      if (fraction) --exp10;
    } else {
      if (d) exact = false;
      if (!fraction) ++exp10;
    }
    ++p_;
  };
  if (*p_ == '0') ++p_;
  else while (digit()) take(false);
  bool integer = true;
  if (p_ < end_ && *p_ == '.') {
    integer = false;
    ++p_;
    if (!digit()) syntax("Miss fraction part in number.", p_);
    while (digit()) take(true);
  }
  if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
    integer = false;
    ++p_;
    bool eneg = false;
    if (p_ < end_ && (*p_ == '+' || *p_ == '-')) eneg = *p_++ == '-';
    if (!digit()) syntax("Miss exponent in number.", p_);
    int64_t e = 0;
    while (digit()) {
      if (e < 100000) e = e * 10 + (*p_ - '0');  // saturates: far beyond double's range
      ++p_;
    }
    exp10 += eneg ? -e : e;
  }
  if (integer && exact && exp10 == 0) {
    if (!neg && mant <= uint64_t(INT64_MAX)) { add(Type::Int).i = int64_t(mant); return; }
    if (!neg) { add(Type::Uint).u = mant; return; }
    if (mant <= uint64_t(INT64_MAX)) { add(Type::Int).i = -int64_t(mant); return; }
    if (mant == uint64_t(INT64_MAX) + 1) { add(Type::Int).i = INT64_MIN; return; }
  }
  if (integer) {  // more than 19 digits: may still fit 64 bits
    const std::string copy(start, size_t(p_ - start));
    errno = 0;
    if (neg) {
      const long long v = std::strtoll(copy.c_str(), nullptr, 10);
      if (errno == 0) { add(Type::Int).i = v; return; }
    } else {
      const unsigned long long v = std::strtoull(copy.c_str(), nullptr, 10);
      if (errno == 0) {
        if (v <= uint64_t(INT64_MAX)) add(Type::Int).i = int64_t(v);
        else add(Type::Uint).u = v;
        return;
      }
    }
  }
  double v;
  static const double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  if (exact && mant <= (uint64_t(1) << 53) && exp10 >= -22 && exp10 <= 22) {
    // Both operands exact, one rounding: the correctly rounded result (Clinger's fast path).
    v = exp10 >= 0 ? double(mant) * kPow10[exp10] : double(mant) / kPow10[-exp10];
    if (neg) v = -v;
  } else {
    v = to_double(start, p_);
    if (std::isinf(v)) syntax("Number too big to be stored in double.", start);
  }
  add(Type::Float).f = v;
}

void Parser::run() {
  if (text_.size() > limits_.max_text_bytes || text_.size() > size_t(UINT32_MAX))
    limit("JSON text is " + std::to_string(text_.size()) + " bytes, over the limit of " +
          std::to_string(std::min<size_t>(limits_.max_text_bytes, UINT32_MAX)) + " (limit max_text_bytes)");
  if (text_.size() >= 3 && std::memcmp(p_, "\xEF\xBB\xBF", 3) == 0) p_ += 3;
  std::vector<Node>& nodes = doc_->nodes_;
  // Real files hold about one value per 8-16 bytes; reserving saves the
  // copies of repeated growth (capped: a reservation is not a limit).
  nodes.reserve(std::min({text_.size() / 8 + 16, limits_.max_values, size_t(1) << 20}));
  doc_->strings_.reserve(std::min(text_.size() / 4, size_t(8) << 20));
  skip_ws();
  if (p_ == end_) syntax("The document is empty.", p_);
  for (;;) {
    // A value starts at p_.
    if (p_ == end_) syntax("Invalid value.", p_);
    bool closed_now = false;
    switch (*p_) {
      case '{':
      case '[': {
        if (stack_.size() >= limits_.max_depth)
          limit("JSON nesting deeper than " + std::to_string(limits_.max_depth) + " levels (limit max_depth)");
        const bool obj = *p_ == '{';
        add(obj ? Type::Object : Type::Array);
        stack_.push_back(Frame{uint32_t(nodes.size() - 1)});
        ++p_;
        skip_ws();
        if (p_ < end_ && *p_ == (obj ? '}' : ']')) {
          closed_now = true;
          break;
        }
        if (!obj) continue;
        member_name(stack_.back());
        continue;
      }
      case '"': {
        uint32_t off, len;
        string(&off, &len);
        Node& n = add(Type::String);
        n.s.off = off;
        n.s.len = len;
        break;
      }
      case 't': if (!literal("true")) syntax("Invalid value.", p_); add(Type::Bool).b = true; break;
      case 'f': if (!literal("false")) syntax("Invalid value.", p_); add(Type::Bool).b = false; break;
      case 'n': if (!literal("null")) syntax("Invalid value.", p_); add(Type::Null); break;
      case 'N':
        if (!literal("NaN")) syntax("Invalid value.", p_);
        add(Type::Float).f = std::numeric_limits<double>::quiet_NaN();
        break;
      case 'I':
        if (!literal("Infinity")) syntax("Invalid value.", p_);
        add(Type::Float).f = std::numeric_limits<double>::infinity();
        break;
      default: number(); break;
    }
    // A value ended (or a container closed right after opening); close
    // containers and find where the next value starts.
    for (;;) {
      if (closed_now) {
        Frame& f = stack_.back();
        nodes[f.node].count = f.count;
        nodes[f.node].end = uint32_t(nodes.size());
        stack_.pop_back();
        ++p_;
        closed_now = false;
      }
      if (stack_.empty()) {
        skip_ws();
        if (p_ != end_) syntax("The document root must not be followed by other values.", p_);
        return;
      }
      Frame& f = stack_.back();
      ++f.count;
      skip_ws();
      const bool obj = nodes[f.node].type == Type::Object;
      if (p_ < end_ && *p_ == (obj ? '}' : ']')) { closed_now = true; continue; }
      if (p_ == end_ || *p_ != ',')
        syntax(obj ? "Missing a comma or '}' after an object member." : "Missing a comma or ']' after an array element.", p_);
      ++p_;
      skip_ws();
      if (obj) member_name(f);
      break;
    }
  }
}

Document Document::parse(std::string_view text, const Limits& limits) {
  Document doc;
  Parser(text, limits, &doc).run();
  return doc;
}

// ------------------------------------------------------------------ values

std::string_view Value::str() const {
  const auto& n = doc_->nodes_[index_];
  return std::string_view(doc_->strings_).substr(n.s.off, n.s.len);
}
std::string_view Value::key() const {
  const auto& n = doc_->nodes_[index_];
  return std::string_view(doc_->strings_).substr(n.key_off, n.key_len);
}

bool Value::find(std::string_view name, Value* out) const {
  if (!is_object()) return false;
  bool found = false;
  for (Value v : *this)
    if (v.key() == name) { *out = v; found = true; }
  return found;
}
Value Value::operator[](std::string_view name) const {
  Value v;
  if (!find(name, &v)) throw std::out_of_range("JSON member '" + std::string(name) + "' is missing");
  return v;
}
Value Value::at(size_t k) const {
  if (k >= size()) throw std::out_of_range("JSON index " + std::to_string(k) + " is out of range");
  Iterator it = begin();
  while (k--) ++it;
  return *it;
}

// ------------------------------------------------------------------ writing

void append_string(std::string* out, std::string_view s) {
  static const char kHex[] = "0123456789abcdef";
  *out += '"';
  for (char c : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    switch (c) {
      case '"': *out += "\\\""; break;
      case '\\': *out += "\\\\"; break;
      case '\n': *out += "\\n"; break;
      case '\r': *out += "\\r"; break;
      case '\t': *out += "\\t"; break;
      case '\b': *out += "\\b"; break;
      case '\f': *out += "\\f"; break;
      default:
        if (u < 0x20) {
          *out += "\\u00";
          *out += kHex[u >> 4];
          *out += kHex[u & 15];
        } else {
          *out += c;
        }
    }
  }
  *out += '"';
}

void append_double(std::string* out, double d) {
  if (std::isnan(d)) { *out += "NaN"; return; }
  if (std::isinf(d)) { *out += d > 0 ? "Infinity" : "-Infinity"; return; }
  char buf[40];
  for (int prec = 1; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  *out += buf;
  if (!std::strpbrk(buf, ".e")) *out += ".0";  // stays a float when read back
}

std::string Value::to_json() const {
  // A flat walk over the subtree; `open` holds the end index of each open container.
  std::string out;
  std::vector<std::pair<uint32_t, bool>> open;  // (end, is_object)
  const auto& nodes = doc_->nodes_;
  const uint32_t last = nodes[index_].end;
  bool first = true;
  for (uint32_t i = index_; i < last; ++i) {
    while (!open.empty() && open.back().first == i) {
      out += open.back().second ? '}' : ']';
      open.pop_back();
      first = false;
    }
    if (!first) out += ',';
    first = false;
    const auto& n = nodes[i];
    if (!open.empty() && open.back().second) {
      append_string(&out, std::string_view(doc_->strings_).substr(n.key_off, n.key_len));
      out += ':';
    }
    char buf[32];
    switch (n.type) {
      case Type::Null: out += "null"; break;
      case Type::Bool: out += n.b ? "true" : "false"; break;
      case Type::Int: std::snprintf(buf, sizeof buf, "%lld", (long long)n.i); out += buf; break;
      case Type::Uint: std::snprintf(buf, sizeof buf, "%llu", (unsigned long long)n.u); out += buf; break;
      case Type::Float: append_double(&out, n.f); break;
      case Type::String: append_string(&out, std::string_view(doc_->strings_).substr(n.s.off, n.s.len)); break;
      case Type::Array:
      case Type::Object:
        out += n.type == Type::Object ? '{' : '[';
        open.emplace_back(n.end, n.type == Type::Object);
        first = true;
        break;
    }
  }
  while (!open.empty()) {
    out += open.back().second ? '}' : ']';
    open.pop_back();
  }
  return out;
}

}  // namespace json
}  // namespace tir
