// The fuzz targets' bodies (issue 10), shared by the libFuzzer mains
// (fuzz/fuzz_main.cpp) and the replay test (tests/cpp/unit/fuzz_regressions_test.cpp),
// so a reproducer in tests/fuzz-regressions/<target>/ runs the same code in
// the normal suite as it did under the fuzzer.
//
// Contract: an entry point returns normally when the engine handled the input,
// by succeeding or by refusing it with a tir::Error (IRFormatError,
// WeightLoadError, ExecutionError): both are the intended outcomes for a
// hostile file. Anything else is a finding and escapes: another exception
// (std::bad_alloc included: with SessionOptions::limits set, an allocation
// that fails means a size went unchecked), a crash, a sanitizer report, a hang.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/session.h"

namespace tir::fuzz {

using EntryFn = void (*)(const uint8_t* data, size_t size);

// IR JSON: load_model_json + validate_model_or_throw + Session (compile); then
// bind zero weights of the declared shapes and run once on small inputs.
void ir_entry(const uint8_t* data, size_t size);
// .safetensors bytes: read_safetensors, then read every tensor through its strides.
void safetensors_entry(const uint8_t* data, size_t size);
// torch.save zip/pickle bytes: read_torch_save, then read every tensor.
void torch_save_entry(const uint8_t* data, size_t size);
// IR JSON, kWeightsMarker, weights bytes (either format): compile, bind, run.
void bind_entry(const uint8_t* data, size_t size);
// One node of any registered op with fuzzed attrs and small input shapes
// (format: op_input.h): plan, then compile, bind and run as a one-node graph.
void op_entry(const uint8_t* data, size_t size);

// Separates the IR from the weights in a bind_entry input.
extern const char kWeightsMarker[];   // "\0TIRWEIGHTS\0" (12 bytes)
constexpr size_t kWeightsMarkerSize = 12;

struct Target {
  const char* name;  // the fuzz binary is fuzz_<name>; reproducers live in tests/fuzz-regressions/<name>/
  EntryFn fn;
};
const std::vector<Target>& targets();

// The caps every target compiles with: legitimate refusals become tir errors
// instead of out-of-memory findings (libFuzzer runs with -rss_limit_mb=2048).
SessionOptions session_options();

}  // namespace tir::fuzz
