// A process-wide pool of worker threads for data-parallel kernels. With one
// thread (the default, and always in single-threaded WASM builds) parallel_for
// runs inline. Work is split into contiguous index ranges, so results do not
// depend on the thread count when each index writes its own outputs.
#pragma once
#include <cstdint>
#include <functional>

namespace tir {

// Number of threads kernels may use (>= 1). Changing it (re)creates the pool.
void set_num_threads(int n);
int num_threads();
// Hardware concurrency as the platform reports it (>= 1).
int default_num_threads();

// Calls fn(begin, end) on disjoint sub-ranges covering [0, n), each at least
// `grain` long (except the last), possibly concurrently. Returns when all are
// done. Exceptions thrown by fn are rethrown on the calling thread.
void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn);

}  // namespace tir
