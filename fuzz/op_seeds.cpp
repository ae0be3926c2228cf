// Writes the op target's seed corpus (format: op_input.h) into a folder:
// a few generic one-node graphs for every registered op (2-d, two inputs, 0-d
// with a `dim`), and every node of the IR files given, with its real attrs
// and its input shapes clipped to the format's small dims.
// Usage: fuzz_op_seeds OUT_DIR [model.json...]
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "core/errors.h"
#include "ir/json_loader.h"
#include "op_input.h"
#include "ops/op.h"

using namespace tir;
using namespace tir::fuzz;

namespace {

void write_attr(OpInputWriter& w, const Attr& a, int depth) {
  switch (a.kind) {
    case Attr::Kind::None: w.u8(kAttrNone); break;
    case Attr::Kind::Bool: w.u8(kAttrBool); w.u8(a.b); break;
    case Attr::Kind::Int:
      if (a.i >= -128 && a.i <= 127) { w.u8(kAttrSmallInt); w.u8(uint8_t(int8_t(a.i))); }
      else { w.u8(kAttrInt64); w.i64(a.i); }
      break;
    case Attr::Kind::Float: w.u8(kAttrFloat); w.f64(a.f); break;
    case Attr::Kind::String: w.u8(kAttrString); w.cstr(a.s); break;
    case Attr::Kind::List: {
      const size_t len = depth < 4 ? std::min<size_t>(a.list.size(), 5) : 0;
      w.u8(kAttrList);
      w.u8(uint8_t(len));
      for (size_t k = 0; k < len; ++k) write_attr(w, a.list[k], depth + 1);
      break;
    }
  }
}

uint8_t dtype_code(DType d) {
  const auto& v = op_input_dtypes();
  auto it = std::find(v.begin(), v.end(), d);
  return it == v.end() ? 0 : uint8_t(it - v.begin());
}

void write_input(OpInputWriter& w, DType dt, const Shape& shape) {
  w.u8(dtype_code(dt));
  const size_t rank = std::min<size_t>(shape.size(), 4);
  w.u8(uint8_t(rank));
  for (size_t k = 0; k < rank; ++k) w.u8(uint8_t(std::clamp<int64_t>(shape[k], 0, 16)));
}

void write_data(OpInputWriter& w) {
  for (int k = 0; k < 32; ++k) w.u8(uint8_t(k * 37 + 11));
}

void save(const std::string& dir, size_t index, const std::vector<uint8_t>& bytes) {
  char name[32];
  std::snprintf(name, sizeof name, "/seed-%05zu", index);
  std::ofstream(dir + name, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                     std::streamsize(bytes.size()));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: fuzz_op_seeds OUT_DIR [model.json...]\n";
    return 2;
  }
  const std::string dir = argv[1];
  size_t count = 0;
  for (const std::string& op : OpRegistry::instance().op_types()) {
    OpInputWriter two_d, binary, zero_d;
    two_d.cstr(op); two_d.u8(0); two_d.u8(1); write_input(two_d, DType::F32, {2, 3}); two_d.u8(0);
    write_data(two_d);
    binary.cstr(op); binary.u8(0); binary.u8(2);
    write_input(binary, DType::F32, {2, 3}); write_input(binary, DType::F32, {2, 3}); binary.u8(0);
    write_data(binary);
    zero_d.cstr(op); zero_d.u8(0); zero_d.u8(1); write_input(zero_d, DType::F32, {}); zero_d.u8(1);
    zero_d.cstr("dim"); write_attr(zero_d, Attr::of_int(0), 0);
    write_data(zero_d);
    for (auto* w : {&two_d, &binary, &zero_d}) save(dir, count++, w->bytes);
  }
  for (int i = 2; i < argc; ++i) {
    Model m;
    try {
      m = load_model_file(argv[i]);
    } catch (const Error& e) {
      continue;  // the bad-IR fixtures
    }
    for (const OpNode& node : m.nodes) {
      OpInputWriter w;
      w.cstr(node.op_type);
      w.u8(uint8_t(std::max<size_t>(node.outputs.size(), 1) - 1));
      const size_t n_in = std::min<size_t>(node.inputs.size(), 4);
      w.u8(uint8_t(n_in));
      for (size_t k = 0; k < n_in; ++k) write_input(w, node.inputs[k].dtype, node.inputs[k].shape);
      const size_t n_attrs = std::min<size_t>(node.attrs.size(), 7);
      w.u8(uint8_t(n_attrs));
      size_t k = 0;
      for (const auto& kv : node.attrs) {
        if (k++ == n_attrs) break;
        w.cstr(kv.first);
        write_attr(w, kv.second, 0);
      }
      write_data(w);
      save(dir, count++, w.bytes);
    }
  }
  std::cout << "fuzz_op_seeds: " << count << " seeds in " << dir << "\n";
  return 0;
}
