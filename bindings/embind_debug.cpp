// INTERNAL TEST HOOKS, not part of the public API (bindings/API.md, "Internal").
// Linked only into the test-only modules (CMake target tir_wasm_test,
// scripts/build_wasm.sh --tests -> build/wasm-test/), never into npm/dist:
// - _debugFault(kind) makes the engine fail the way a hostile file could before
//   issue 10's limits, so the JS layer's dead-instance recovery (npm/src/lib/backend.ts)
//   can be tested without depending on a bug that the limits have since fixed.
//   It only ever harms the instance that calls it, which the JS layer discards.
// - _debugHeapInUse() for the soak test, kernelSelfcheck() for the kernel sweeps.
#include <emscripten/bind.h>
#include <emscripten/threading.h>
#include <malloc.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/thread_pool.h"
#include "glue.h"
#include "kernels/gemm.h"
#include "kernels/gemm_s8.h"
#include "kernels/selfcheck.h"

namespace {

volatile int g_sink = 0;

// Each frame does a volatile write, so the recursion has a side effect and may
// not be optimized into a loop or `unreachable`: it exhausts the wasm call stack
// (RangeError: Maximum call stack size exceeded).
__attribute__((noinline)) int recurse_forever(int depth) {
  g_sink = depth;
  return recurse_forever(depth + 1) + g_sink;
}

void fault_here(const std::string& kind) {
  if (kind == "unreachable") __builtin_trap();
  if (kind == "oob") {
    // Far beyond the 2 GiB maximum memory: "memory access out of bounds".
    volatile const uint8_t* p = reinterpret_cast<volatile const uint8_t*>(uintptr_t(0xFFFFFF00u));
    g_sink = *p;
  }
  if (kind == "stack") g_sink = recurse_forever(0);
  if (kind == "abort") std::abort();
}

std::atomic<bool> g_worker_claimed{false};

// kind, or "worker-" + kind to fault inside a pthread of the pool while the
// calling thread waits for it in parallel_for (threaded build, >= 2 threads).
std::string debug_fault(const std::string& kind) {
  static const char* kinds[] = {"unreachable", "oob", "stack", "abort"};
  const bool in_worker = kind.rfind("worker-", 0) == 0;
  const std::string base = in_worker ? kind.substr(7) : kind;
  bool known = false;
  for (const char* k : kinds) known = known || base == k;
  if (!known) return "_debugFault: unknown kind '" + kind + "' (unreachable|oob|stack|abort, optionally worker-*)";
  if (!in_worker) {
    fault_here(base);
    return "_debugFault: '" + kind + "' did not fault";
  }
  if (tir::num_threads() < 2) return "_debugFault: '" + kind + "' needs a thread pool of >= 2 threads";
  g_worker_claimed = false;
  const int64_t chunks = tir::num_threads();
  tir::parallel_for_chunks(chunks, chunks, [&](int64_t, int64_t) {
    if (!emscripten_is_main_runtime_thread()) {
      g_worker_claimed = true;
      fault_here(base);
      return;
    }
    // The calling thread holds its chunk until a worker has claimed another
    // (at most 5 s), so the fault happens in a worker, not inline.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!g_worker_claimed && std::chrono::steady_clock::now() < deadline) {
    }
  });
  return g_worker_claimed ? "_debugFault: '" + kind + "' did not fault" : "_debugFault: no worker claimed a chunk";
}

// Bytes malloc has handed out and not freed (dlmalloc's mallinfo): unlike
// heapBytes(), which only grows, this shows a leak in a soak test.
double debug_heap_in_use() { return double(mallinfo().uordblks); }

// The kernels' SIMD-vs-reference sweeps (kernels/selfcheck.h), run inside this
// build's SIMD target: {"gemm": {cases, failures, report}, "conv": {...}, ..., "relaxed_s8": whether
// the int8 GEMM ran on the relaxed-SIMD kernel, "relaxed_f32" / "relaxed_f32_fused": whether the
// blocked f32 GEMM did, and whether its relaxed_madd was fused}.
std::string kernel_selfcheck() {
  auto one = [](const tir::SelfcheckResult& r) {
    return "{\"cases\": " + std::to_string(r.cases) + ", \"failures\": " + std::to_string(r.failures) +
           ", \"report\": " + tir_glue::json_string(r.report) + "}";
  };
  return "{\"gemm\": " + one(tir::selfcheck_gemm()) + ", \"conv\": " + one(tir::selfcheck_conv()) +
         ", \"pool\": " + one(tir::selfcheck_pool()) + ", \"transcendental\": " + one(tir::selfcheck_transcendental()) +
         ", \"quantized\": " + one(tir::selfcheck_quantized()) +
         ", \"relaxed_s8\": " + (tir::gemm_s8_relaxed() ? "true" : "false") +
         ", \"relaxed_f32\": " + (tir::gemm_f32_relaxed() ? "true" : "false") +
         ", \"relaxed_f32_fused\": " + (tir::gemm_f32_relaxed_fused() ? "true" : "false") +
         ", \"mr\": " + std::to_string(tir::gemm_mr()) + ", \"nr\": " + std::to_string(tir::gemm_nr()) + "}";
}

}  // namespace

EMSCRIPTEN_BINDINGS(torch_ir_wasm_debug) {
  emscripten::function("_debugFault", &debug_fault);
  emscripten::function("_debugHeapInUse", &debug_heap_in_use);
  emscripten::function("kernelSelfcheck", &kernel_selfcheck);
}
