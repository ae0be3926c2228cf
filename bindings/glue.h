// Shared pieces of the Embind glue (embind.cpp: WasmModel and the module
// functions; embind_lm.cpp: WasmLM): error mapping, JS <-> tensor copies, and
// the weights/constants both classes bind from.
#pragma once
#include <emscripten/bind.h>
#include <emscripten/heap.h>
#include <emscripten/val.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "core/checked.h"
#include "core/dtype.h"
#include "core/errors.h"
#include "core/json.h"
#include "core/tensor.h"
#include "runtime/session.h"
#include "runtime/weight_keys.h"
#include "weights/tensor_map.h"
#include "weights/safetensors.h"
#include "weights/torch_save.h"

namespace tir_glue {

using emscripten::val;

// A JSON string literal for the JS side (core/json's writer).
inline std::string json_string(const std::string& s) {
  std::string out;
  tir::json::append_string(&out, s);
  return out;
}

inline std::string error_json(const char* kind, const std::string& message) {
  return "{\"kind\": " + json_string(kind) + ", \"message\": " + json_string(message) + "}";
}

struct Failure {
  std::string kind, message;
};

// Runs f, turning every C++ exception into a Failure.
template <class F>
std::optional<Failure> attempt(F&& f) {
  try {
    f();
    return std::nullopt;
  } catch (const tir::Error& e) {
    return Failure{e.kind(), e.what()};
  } catch (const std::bad_alloc&) {
    return Failure{"Error", "out of WASM memory (std::bad_alloc)"};
  } catch (const std::exception& e) {
    return Failure{"Error", e.what()};
  }
}

// "" on success, else the error JSON of the API contract.
template <class F>
std::string guarded(F&& f) {
  auto failure = attempt(std::forward<F>(f));
  return failure ? error_json(failure->kind.c_str(), failure->message) : std::string();
}

// For methods that return data: a failure (misuse: called in the wrong state)
// becomes a thrown JS Error whose name is the error kind. The C++ strings are
// gone before the throw, which skips C++ destructors.
template <class R, class F>
R or_throw(F&& f) {
  val error = val::undefined();
  {
    std::optional<R> result;
    auto failure = attempt([&] { result = f(); });
    if (!failure) return std::move(*result);
    error = val::global("Error").new_(val(failure->message));
    error.set("name", val(failure->kind));
  }
  error.throw_();
}

// An ArrayBuffer or any ArrayBufferView as a Uint8Array over the same bytes.
inline val as_u8(const val& bytes) {
  const val u8 = val::global("Uint8Array");
  if (bytes.instanceof(u8)) return bytes;
  if (bytes.instanceof(val::global("ArrayBuffer"))) return u8.new_(bytes);
  return u8.new_(bytes["buffer"], bytes["byteOffset"], bytes["byteLength"]);
}

// Copies JS bytes into WASM memory at dst (the one copy per tensor).
inline void copy_in(const val& u8, uint8_t* dst, size_t n) {
  if (n) val(emscripten::typed_memory_view(n, dst)).call<void>("set", u8);
}

inline val shape_to_js(const tir::Shape& shape) {
  val a = val::array();
  for (int64_t d : shape) a.call<void>("push", double(d));
  return a;
}

// A tensor owning a copy of JS bytes. Bad dtype/shape/size throw E.
template <class E>
tir::Tensor tensor_from_js(const std::string& what, const std::string& dtype, const val& shape, const val& bytes) {
  tir::DType dt;
  if (!tir::try_parse_dtype(dtype, &dt)) throw E(what + ": unknown dtype '" + dtype + "'");
  tir::Shape s;
  const unsigned rank = shape["length"].as<unsigned>();
  for (unsigned i = 0; i < rank; ++i) {
    const double d = shape[i].as<double>();
    if (!(d >= 0) || d != std::floor(d) || d > 9.007199254740992e15)
      throw E(what + ": invalid shape dimension " + std::to_string(d));
    s.push_back(int64_t(d));
  }
  const val u8 = as_u8(bytes);
  const size_t given = u8["length"].as<size_t>();
  // Size checked (overflow-safe) against the bytes given before allocating:
  // a lying shape must not make a multi-GiB buffer.
  size_t want = 0;
  try {
    want = tir::checked_nbytes(tir::checked_numel(s, what), tir::dtype_size(dt), what);
  } catch (const tir::Error& e) {
    throw E(e.what());
  }
  if (given != want)
    throw E(what + ": " + std::to_string(given) + " bytes given for " + tir::dtype_name(dt) + " " +
            tir::shape_to_string(s) + " (" + std::to_string(want) + " bytes expected)");
  tir::Tensor t = tir::make_owned(dt, s);
  copy_in(u8, t.raw(), given);
  return t;
}

inline std::shared_ptr<const std::vector<uint8_t>> bytes_from_js(const val& bytes) {
  const val u8 = as_u8(bytes);
  auto v = std::make_shared<std::vector<uint8_t>>(u8["length"].as<size_t>());
  copy_in(u8, v->data(), v->size());
  return v;
}

// A weights file's bytes, copied into WASM memory; one that cannot fit is refused by name
// (rather than by the allocator's bare "vector" or an abort).
inline std::shared_ptr<const std::vector<uint8_t>> file_bytes_from_js(const val& bytes, const std::string& origin) {
  const double n = as_u8(bytes)["length"].as<double>();
  const double cap = double(emscripten_get_heap_max());
  if (n >= cap)
    throw tir::WeightLoadError(origin + ": " + std::to_string(uint64_t(n)) + " bytes do not fit in WASM memory (at most " +
                               std::to_string(uint64_t(cap)) + " bytes); on the GPU (executionProviders: ['webgpu']) "
                               "the weights of a safetensors file are streamed there instead (docs/webgpu.md)");
  return bytes_from_js(bytes);
}

inline void merge(tir::TensorMap& into, tir::TensorMap from) {
  for (auto& kv : from.items) into.set(kv.first, std::move(kv.second));
}

// Weights and constants gathered from JS before a compile (WasmModel and
// WasmLM both bind from them), and the compile's second phase when streamed
// weights must be read first.
class TensorSources {
 public:
  virtual ~TensorSources() = default;
  std::string addWeightsFile(const val& bytes, const std::string& origin) {
    return guarded([&] { merge(weights_, tir::read_weights_bytes(file_bytes_from_js(bytes, origin), origin)); });
  }
  std::string addWeightTensor(const std::string& name, const std::string& dtype, const val& shape, const val& bytes) {
    return guarded([&] {
      weights_.set(name, tensor_from_js<tir::WeightLoadError>("weight '" + name + "'", dtype, shape, bytes));
    });
  }
  std::string addConstantsFile(const val& bytes, const std::string& origin) {
    return guarded([&] { merge(constants_, tir::read_weights_bytes(file_bytes_from_js(bytes, origin), origin)); });
  }
  std::string addConstantTensor(const std::string& name, const std::string& dtype, const val& shape, const val& bytes) {
    return guarded([&] {
      constants_.set(name, tensor_from_js<tir::WeightLoadError>("constant '" + name + "'", dtype, shape, bytes));
    });
  }

  // A safetensors weights file whose data stays with the caller, to be
  // streamed to the GPU (docs/webgpu.md): `head` holds its first bytes (the
  // whole header at least), `file_size` its length. Its tensors have no data
  // until fillStreamed() gives the ones the CPU reads.
  std::string addWeightsFileStreamed(const val& head, double file_size, const std::string& origin) {
    return guarded([&] {
      std::vector<uint64_t> offsets;
      tir::TensorMap m = tir::read_safetensors_header(bytes_from_js(head), uint64_t(file_size), origin, &offsets);
      const int file = streamed_files_++;
      for (size_t i = 0; i < m.items.size(); ++i)
        streamed_[m.items[i].first] = {file, offsets[i], m.items[i].second.buffer->nbytes};
      merge(weights_, std::move(m));
    });
  }
  // JSON [{name, dtype, file, offset, bytes}]: the streamed tensors still without data
  // (file: the addWeightsFileStreamed call's index, offset: bytes into that file).
  std::string streamedWeights() const {
    std::string out = "[";
    for (const auto& kv : weights_.items)
      if (streamed_.count(kv.first) && !kv.second.buffer->data && kv.second.buffer->nbytes) append_source(out, kv.first);
    return out + "]";
  }
  // Between a compile() that placed streamed weights and finishCompile(): the streamed tensors
  // the CPU reads, as streamedWeights() lists them. JS reads each from its file (in any order)
  // and hands the bytes to setStreamedBytes(); finishCompile() then binds.
  std::string streamedToRead() const {
    std::string out = "[";
    for (const auto& name : to_read_) append_source(out, name);
    return out + "]";
  }
  // Whether compile() waits for streamed bytes (then finishCompile()).
  bool compilePending() const { return compile_pending(); }
  std::string finishCompile() {
    return guarded([&] {
      if (!compile_pending()) throw tir::ExecutionError("finishCompile(): no compile() is waiting for streamed weights");
      require_streamed_reads();
      bind_pending();
    });
  }
  std::string setStreamedBytes(const std::string& name, const val& bytes) {
    return guarded([&] {
      auto it = streamed_.find(name);
      const tir::Tensor* t = weights_.find(name);
      if (it == streamed_.end() || !t || std::find(to_read_.begin(), to_read_.end(), name) == to_read_.end())
        throw tir::WeightLoadError("setStreamedBytes: '" + name + "' is not a streamed weight the CPU reads");
      const val u8 = as_u8(bytes);
      const uint64_t n = it->second.nbytes;
      if (u8["length"].as<double>() != double(n))
        throw tir::WeightLoadError("weight '" + name + "': " + std::to_string(uint64_t(u8["length"].as<double>())) +
                                   " bytes were given for its " + std::to_string(n));
      tir::Buffer& b = *t->buffer;
      b.owned.resize(n);
      copy_in(u8, b.owned.data(), n);
      b.data = b.owned.data();
    });
  }

 protected:
  // The derived model's compiled-but-unbound state, and its bind.
  virtual bool compile_pending() const = 0;
  virtual void bind_pending() = 0;
  // The end of a compile(): binds now, or, when the weights were placed for WebGPU (cpu_reads:
  // the streamed ones the CPU reads), once those (and any of dtypes the uploader lacks) are read.
  void bind_or_wait(std::optional<std::vector<std::string>> cpu_reads) {
    to_read_.clear();
    if (cpu_reads) plan_streamed_reads(std::move(*cpu_reads));
    if (to_read_.empty()) bind_pending();
  }
  bool has_streamed() const { return !streamed_.empty(); }

 private:
  // After placement: the streamed tensors named in `names` (the ones the CPU reads), and those of
  // dtypes the uploader lacks (converted on the CPU), that have no data yet: streamedToRead().
  void plan_streamed_reads(std::vector<std::string> names) {
    // The uploader takes these dtypes (executor.ts); the others are converted here, on the CPU.
    for (const auto& kv : weights_.items)
      if (streamed_.count(kv.first) && kv.second.dtype != tir::DType::F32 && kv.second.dtype != tir::DType::F16 &&
          kv.second.dtype != tir::DType::BF16 && kv.second.dtype != tir::DType::I32 &&
          kv.second.dtype != tir::DType::I64 && kv.second.dtype != tir::DType::Bool &&
          kv.second.dtype != tir::DType::I8 && kv.second.dtype != tir::DType::U8)
        names.push_back(kv.first);
    to_read_.clear();
    for (const std::string& name : names) {
      const tir::Tensor* t = weights_.find(name);
      if (!streamed_.count(name) || !t || t->buffer->data || !t->buffer->nbytes) continue;
      if (std::find(to_read_.begin(), to_read_.end(), name) == to_read_.end()) to_read_.push_back(name);
    }
  }
  // Before bind: every planned read was given (a WeightLoadError names the first that was not).
  void require_streamed_reads() {
    for (const std::string& name : to_read_)
      if (!weights_.find(name)->buffer->data)
        throw tir::WeightLoadError("weight '" + name + "' is streamed and the CPU reads it, but its bytes were not " +
                                   "given (streamedToRead, setStreamedBytes)");
    to_read_.clear();
  }
  std::vector<std::string> to_read_;  // streamed weights the CPU reads, until finishCompile

  void append_source(std::string& out, const std::string& name) const {
    const auto& src = streamed_.at(name);
    const tir::Tensor& t = *weights_.find(name);
    out += std::string(out.size() > 1 ? ", " : "") + "{\"name\": ";
    tir::json::append_string(&out, name);
    out += ", \"dtype\": \"" + std::string(tir::dtype_name(t.dtype)) + "\"";
    out += ", \"file\": " + std::to_string(src.file) + ", \"offset\": " + std::to_string(src.offset) +
           ", \"bytes\": " + std::to_string(src.nbytes) + "}";
  }

 protected:
  // The engine's message for the keys of the weights or constants given so far that bind to
  // nothing in `models` (runtime/weight_keys.h), or "" when all do. JS adds strictWeights'
  // suffix and warns or throws.
  std::string unknown_keys_message(const std::vector<const tir::Model*>& models, const std::string& kind) const {
    if (kind != "weights" && kind != "constants")
      throw tir::Error("unknownKeysMessage: kind must be 'weights' or 'constants', got '" + kind + "'");
    return tir::unknown_keys_message(models, kind == "weights" ? weights_ : constants_, kind);
  }

  tir::TensorMap weights_, constants_;

 private:
  struct Streamed {
    int file;
    uint64_t offset;
    size_t nbytes;
  };
  std::map<std::string, Streamed> streamed_;  // by tensor name
  int streamed_files_ = 0;
};

// One cap from JS (a double): a non-negative integer, 0 meaning the default;
// anything else (negative, fractional, NaN, past what `max` holds) is refused.
inline uint64_t limit_from_js(double v, const char* name, uint64_t max) {
  if (!(v >= 0) || v != std::floor(v) || v > 9007199254740992.0)
    throw tir::ExecutionError(std::string("limits.") + name +
                              " must be a non-negative integer up to 2^53 (0: the default), got " + std::to_string(v));
  if (uint64_t(v) > max)
    throw tir::ExecutionError(std::string("limits.") + name + " = " + std::to_string(uint64_t(v)) +
                              " is more than this build can address (" + std::to_string(max) + ")");
  return uint64_t(v);
}

// SessionOptions::limits from loadIR's {limits: {maxTensorBytes, maxArenaBytes, maxRunWork}}.
inline tir::Limits limits_from_js(double max_tensor_bytes, double max_arena_bytes, double max_run_work) {
  tir::Limits l;
  l.max_tensor_bytes = size_t(limit_from_js(max_tensor_bytes, "maxTensorBytes", SIZE_MAX));
  l.max_arena_bytes = size_t(limit_from_js(max_arena_bytes, "maxArenaBytes", SIZE_MAX));
  l.max_run_work = int64_t(limit_from_js(max_run_work, "maxRunWork", INT64_MAX));
  return l;
}

// Session options from JS: weightDtype "float32" | "float16" | "bfloat16"
// (the Session constructor refuses the others with a clear message), and the
// caps set by setLimits.
inline tir::SessionOptions session_options(const std::string& weight_dtype, const tir::Limits& limits = {}) {
  tir::SessionOptions o;
  o.limits = limits;
  if (!tir::parse_weight_dtype(weight_dtype, &o))
    throw tir::ExecutionError("weightDtype must be 'float32', 'float16', 'bfloat16', 'int8' or 'int4' (weightGroupSize: "
                              "a positive multiple of 4), got '" + weight_dtype + "'");
  return o;
}

}  // namespace tir_glue
