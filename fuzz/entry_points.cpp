#include "entry_points.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "core/checked.h"
#include "core/errors.h"
#include "core/tensor.h"
#include "ir/json_loader.h"
#include "ir/validator.h"
#include "op_input.h"
#include "ops/op.h"
#include "runtime/limits.h"
#include "runtime/session_impl.h"
#include "weights/safetensors.h"
#include "weights/torch_save.h"

namespace tir::fuzz {

const char kWeightsMarker[] = "\0TIRWEIGHTS\0";

namespace {

constexpr size_t kMiB = size_t(1) << 20;
// Tensors the harness itself materializes (weights read back, zero weights
// for an IR, inputs) stay below this; bigger ones are skipped, not findings.
constexpr size_t kMaxHarnessBytes = 16 * kMiB;

// Runs `body`; a tir::Error is the engine refusing the input cleanly.
// TIR_FUZZ_VERBOSE=1 prints the refusal (to see why a reproducer stops early).
template <typename F> void guarded(F&& body) {
  try {
    body();
  } catch (const Error& e) {
    static const bool verbose = std::getenv("TIR_FUZZ_VERBOSE") != nullptr;
    if (verbose) std::fprintf(stderr, "refused: %s\n", e.what());
  }
}

// Bytes of t, or SIZE_MAX when its size does not fit (the engine refuses those itself).
size_t nbytes_or_max(const Shape& shape, DType dtype) {
  int64_t n = 1;
  for (int64_t d : shape)
    if (d < 0 || !mul_ok(n, d, &n)) return SIZE_MAX;
  int64_t b = 0;
  if (!mul_ok(n, int64_t(dtype_size(dtype)), &b)) return SIZE_MAX;
  return size_t(b);
}

// Reads every element of every tensor through its strides (a lying offset,
// stride or extent shows up as an ASan report here, as it would in a kernel).
void read_all(const TensorMap& tensors) {
  for (const auto& kv : tensors.items) {
    const Tensor& t = kv.second;
    if (nbytes_or_max(t.shape, t.dtype) > kMaxHarnessBytes) continue;
    Tensor copy = to_dtype_owned(t, compute_dtype(t.dtype));
    volatile uint8_t sink = 0;
    for (size_t i = 0; i < copy.buffer->nbytes; ++i) sink = sink ^ copy.buffer->data[i];
    (void)sink;
  }
}

void read_outputs(const Session& s) {
  for (const Tensor& t : s.output_views()) {
    if (nbytes_or_max(t.shape, t.dtype) > kMaxHarnessBytes) continue;
    to_dtype_owned(t, t.dtype);
  }
}

// Fills a contiguous tensor from `pattern` (cycled; zeros when empty). Bools
// get 0/1 only: other byte values in a bool are not a valid bool in C++, and
// the engine's inputs come through typed arrays that cannot hold them.
void fill(const Tensor& t, const std::vector<uint8_t>& pattern) {
  uint8_t* p = t.raw();
  const size_t n = t.nbytes();
  if (pattern.empty()) {
    std::memset(p, 0, n);
  } else {
    for (size_t i = 0; i < n; ++i) p[i] = pattern[i % pattern.size()];
  }
  if (t.dtype == DType::Bool)
    for (size_t i = 0; i < n; ++i) p[i] &= 1;
}

// Zero weights of the declared shapes, when all are small enough to make.
bool zero_weights(const Model& m, TensorMap* out) {
  for (const auto& w : m.weights)
    if (nbytes_or_max(w.shape, w.dtype) > kMaxHarnessBytes) return false;
  const ModelIndex index(m);
  for (const auto& w : m.weights) {
    const std::string key = index.original_name(w.name);
    if (!out->find(key)) out->set(key, make_owned(w.dtype, w.shape));
  }
  return true;
}

// Runs the compiled session once on inputs filled from `pattern`.
void run_once(Session& s, const std::vector<uint8_t>& pattern) {
  const Model& m = s.model();
  for (const auto& gi : m.graph_inputs)
    if (nbytes_or_max(gi.shape, compute_dtype(gi.dtype)) > kMaxHarnessBytes) return;
  for (size_t i = 0; i < m.graph_inputs.size(); ++i) fill(s.input_slot(i), pattern);
  s.run_slots();
  read_outputs(s);
}

std::shared_ptr<const std::vector<uint8_t>> copy_bytes(const uint8_t* data, size_t size) {
  return std::make_shared<const std::vector<uint8_t>>(data, data + size);
}

// --- op_entry's reader (format: op_input.h) ---
class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : p_(data), n_(size) {}
  uint8_t u8() { return n_ ? (--n_, *p_++) : 0; }
  std::string cstr(size_t max) {
    std::string s;
    while (n_) {
      char c = char(u8());
      if (c == 0) break;
      if (s.size() < max) s += c;
    }
    return s;
  }
  uint64_t u64() {
    uint64_t v = 0;
    for (int k = 0; k < 8; ++k) v |= uint64_t(u8()) << (8 * k);
    return v;
  }
  std::vector<uint8_t> rest() { return std::vector<uint8_t>(p_, p_ + n_); }

 private:
  const uint8_t* p_;
  size_t n_;
};

Attr read_attr(Reader& r, int depth) {
  switch (r.u8() % kAttrKinds) {
    case kAttrNone: return Attr::none();
    case kAttrBool: return Attr::of_bool(r.u8() & 1);
    case kAttrSmallInt: return Attr::of_int(int8_t(r.u8()));
    case kAttrInt64: return Attr::of_int(int64_t(r.u64()));
    case kAttrEdgeInt: return Attr::of_int(edge_ints()[r.u8() % edge_ints().size()]);
    case kAttrFloat: {
      uint64_t u = r.u64();
      double d;
      std::memcpy(&d, &u, 8);
      return Attr::of_float(d);
    }
    case kAttrEdgeFloat: return Attr::of_float(edge_floats()[r.u8() % edge_floats().size()]);
    case kAttrString: return Attr::of_string(r.cstr(64));
    default: {
      std::vector<Attr> items;
      const int len = r.u8() % 6;
      for (int k = 0; k < len && depth < 4; ++k) items.push_back(read_attr(r, depth + 1));
      return Attr::of_list(std::move(items));
    }
  }
}

TensorMeta meta(const std::string& name, DType dtype, const Shape& shape) {
  TensorMeta m;
  m.name = name;
  m.dtype = dtype;
  m.shape = shape;
  return m;
}

}  // namespace

SessionOptions session_options() {
  SessionOptions o;
  o.limits.max_tensor_bytes = 64 * kMiB;
  o.limits.max_arena_bytes = 64 * kMiB;
  o.limits.max_run_work = 100000000;
  return o;
}

void ir_entry(const uint8_t* data, size_t size) {
  guarded([&] {
    Model model = load_model_json(std::string(reinterpret_cast<const char*>(data), size), "fuzz.json");
    validate_model_or_throw(model);
    TensorMap weights;
    const bool bindable = zero_weights(model, &weights);
    Session s(std::move(model), session_options());
    if (!bindable) return;
    s.bind(weights);
    run_once(s, {});
  });
}

void safetensors_entry(const uint8_t* data, size_t size) {
  guarded([&] { read_all(read_safetensors(copy_bytes(data, size), "fuzz.safetensors")); });
}

void torch_save_entry(const uint8_t* data, size_t size) {
  guarded([&] { read_all(read_torch_save(copy_bytes(data, size), "fuzz.pt")); });
}

void bind_entry(const uint8_t* data, size_t size) {
  const uint8_t* end = data + size;
  const uint8_t* mark = std::search(data, end, kWeightsMarker, kWeightsMarker + kWeightsMarkerSize);
  if (mark == end) return;  // not a bind input: nothing to split
  guarded([&] {
    Model model = load_model_json(std::string(reinterpret_cast<const char*>(data), size_t(mark - data)), "fuzz.json");
    const uint8_t* w = mark + kWeightsMarkerSize;
    TensorMap weights = read_weights_bytes(copy_bytes(w, size_t(end - w)), "fuzz-weights");
    Session s(std::move(model), session_options());
    s.bind(weights);
    run_once(s, {});
  });
}

void op_entry(const uint8_t* data, size_t size) {
  Reader r(data, size);
  OpNode node;
  node.name = "fuzz_node";
  node.op_type = r.cstr(128);
  const OpDef* def = OpRegistry::instance().find(node.op_type);
  if (!def) return;
  const size_t n_out = 1 + r.u8() % 4;
  const size_t n_in = r.u8() % 5;
  std::vector<TensorMeta> inputs;
  size_t input_bytes = 0;
  for (size_t i = 0; i < n_in; ++i) {
    const DType dt = op_input_dtypes()[r.u8() % op_input_dtypes().size()];
    Shape shape(r.u8() % 5);
    for (auto& d : shape) d = r.u8() % 17;
    input_bytes += nbytes_or_max(shape, compute_dtype(dt));  // <= 16^4 * 8 each: no overflow
    inputs.push_back(meta("x" + std::to_string(i), dt, shape));
  }
  const size_t n_attrs = r.u8() % 8;
  for (size_t k = 0; k < n_attrs; ++k) {
    std::string name = r.cstr(64);
    node.attrs[name] = read_attr(r, 0);
  }
  const std::vector<uint8_t> pattern = r.rest();
  if (input_bytes > kMaxHarnessBytes) return;
  for (const auto& in : inputs) {
    TensorMeta m = in;
    m.producer_node = in.name;  // a graph input is its own producer
    node.inputs.push_back(m);
  }
  for (size_t k = 0; k < n_out; ++k) node.outputs.push_back(meta("y" + std::to_string(k), DType::F32, {}));

  guarded([&] {
    // Plan alone first: it tells the output shapes the graph must declare.
    OpCall probe(node);
    // The session's size limits, as Session gives every step: an op may size
    // plan-time state (pad's index maps) from an output that fresh() accepted.
    const Limits limits = resolve_limits(session_options().limits);
    probe.check_fresh = [&limits](const std::string& what, const Shape& shape, DType dtype) {
      check_value_limits(limits, what, shape, dtype, true);
    };
    for (const auto& in : inputs) probe.in.push_back(make_unplanned(compute_dtype(in.dtype), in.shape, in.name));
    plan_naming_node(*def, probe, node);  // as a session plans it
    if (probe.out.size() != n_out) node.outputs.resize(probe.out.size(), meta("", DType::F32, {}));
    for (size_t k = 0; k < probe.out.size(); ++k) {
      if (!probe.out[k].defined()) return;  // an output the op leaves unset: nothing to declare
      node.outputs[k] = meta("y" + std::to_string(k), probe.out[k].dtype, probe.out[k].shape);
      node.outputs[k].producer_node = node.name;
      node.outputs[k].producer_output_idx = int64_t(k);
    }
    Model model;
    model.model_name = "fuzz_op";
    model.graph_inputs = inputs;
    model.graph_outputs = node.outputs;
    model.nodes.push_back(node);
    Session s(std::move(model), session_options());
    s.bind({});
    run_once(s, pattern);
  });
}

const std::vector<Target>& targets() {
  static const std::vector<Target> t = {{"ir", ir_entry},
                                        {"safetensors", safetensors_entry},
                                        {"torch_save", torch_save_entry},
                                        {"bind", bind_entry},
                                        {"op", op_entry}};
  return t;
}

}  // namespace tir::fuzz
