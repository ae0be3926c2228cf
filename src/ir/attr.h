// Non-tensor op arguments as the IR stores them (JSON values), keeping the
// int/float distinction the JSON had: `2` is not `2.0` for type promotion.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/scalar.h"

namespace tir {

struct Attr {
  enum class Kind { None, Bool, Int, Float, String, List };
  Kind kind = Kind::None;
  bool b = false;
  int64_t i = 0;
  double f = 0.0;
  std::string s;
  std::vector<Attr> list;

  static Attr none() { return Attr{}; }
  static Attr of_bool(bool v) { Attr a; a.kind = Kind::Bool; a.b = v; return a; }
  static Attr of_int(int64_t v) { Attr a; a.kind = Kind::Int; a.i = v; return a; }
  static Attr of_float(double v) { Attr a; a.kind = Kind::Float; a.f = v; return a; }
  static Attr of_string(std::string v) { Attr a; a.kind = Kind::String; a.s = std::move(v); return a; }
  static Attr of_list(std::vector<Attr> v) { Attr a; a.kind = Kind::List; a.list = std::move(v); return a; }

  bool is_none() const { return kind == Kind::None; }
  bool is_number() const { return kind == Kind::Int || kind == Kind::Float || kind == Kind::Bool; }
  double as_double() const { return kind == Kind::Float ? f : kind == Kind::Bool ? (b ? 1.0 : 0.0) : double(i); }
  // Compact JSON-like text, used in error messages and `info`.
  std::string to_string() const;
};

using AttrMap = std::map<std::string, Attr>;

}  // namespace tir
