// A process-wide pool of worker threads for data-parallel kernels. With one
// thread (the default, and always in single-threaded WASM builds) parallel_for
// runs inline. Work is split into contiguous index ranges, so results do not
// depend on the thread count when each index writes its own outputs.
#pragma once
#include <cstdint>
#include "core/function_ref.h"

namespace tir {

// The body of a parallel loop: fn(begin, end). Non-owning (core/function_ref.h).
using RangeFn = FunctionRef<void(int64_t, int64_t)>;

// Number of threads kernels may use (>= 1). Changing it (re)creates the pool.
void set_num_threads(int n);
int num_threads();
// Threads of the pool actually running (the caller plus workers that have
// entered their loop). In WASM a new worker may start only after the page's
// main thread yields to the event loop; until then parallel_for still works,
// with the caller doing every chunk. The JS loader waits for this to reach
// num_threads().
int started_threads();
// Inside a parallel_for body: 0 on the calling thread, 1 .. num_threads() - 1 on the pool's
// workers (outside one: 0). A slot for per-thread scratch the caller owns, so a worker's first
// chunk allocates nothing.
int thread_index();
// Hardware concurrency as the platform reports it (>= 1).
int default_num_threads();

// Calls fn(begin, end) on disjoint sub-ranges covering [0, n), each at least
// `grain` long (except the last), possibly concurrently. Returns when all are
// done. Exceptions thrown by fn are rethrown on the calling thread.
void parallel_for(int64_t n, int64_t grain, RangeFn fn);

// Like parallel_for, but in `chunks` near-equal parts (clamped to [1, n]) that
// free threads claim one at a time, so a worker that wakes late still takes a
// share (waking one costs ~1 ms in WASM). For kernels whose results do not
// depend on where the chunk boundaries fall. With one thread: fn(0, n).
void parallel_for_chunks(int64_t n, int64_t chunks, RangeFn fn);

}  // namespace tir
