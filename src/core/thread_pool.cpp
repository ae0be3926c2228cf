#include "core/thread_pool.h"

#include <algorithm>
#include <exception>
#include <stdexcept>

// Single-threaded WASM (no -pthread): std::thread creation fails at run time,
// so that build has no pool at all and everything runs inline.
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
#define TIR_NO_THREADS 1
#endif

#ifndef TIR_NO_THREADS
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>
#endif

namespace tir {

#ifdef TIR_NO_THREADS

void set_num_threads(int) {}
int num_threads() { return 1; }
int started_threads() { return 1; }
int thread_index() { return 0; }
int default_num_threads() { return 1; }

void parallel_for(int64_t n, int64_t /*grain*/, RangeFn fn) {
  if (n > 0) fn(0, n);
}

void parallel_for_chunks(int64_t n, int64_t /*chunks*/, RangeFn fn) {
  if (n > 0) fn(0, n);
}

#else

namespace {

// Chunk c of `chunks` near-equal parts of [0, n); no overflow for any n.
inline int64_t chunk_begin(int64_t n, int64_t chunks, int64_t c) { return c * (n / chunks) + std::min(c, n % chunks); }

int64_t chunk_count(int64_t n, int64_t grain, int threads) {
  grain = std::max<int64_t>(grain, 1);
  return std::max<int64_t>(1, std::min<int64_t>(threads, n / grain));
}

// Before blocking on a condition variable, a thread polls for this long: a
// model runs one parallel_for after another, and a sleeping thread takes tens
// of microseconds to wake (more on VMs). Idle threads still end up blocked.
// In WASM a sleeping worker (Atomics.wait) wakes far more slowly, so it polls
// longer: one model run's parallel_for calls then find the workers awake.
#ifdef __EMSCRIPTEN__
constexpr std::chrono::microseconds kSpin{1000};
#else
constexpr std::chrono::microseconds kSpin{50};
#endif

template <typename Pred>
bool spin_until(Pred pred) {
  const auto deadline = std::chrono::steady_clock::now() + kSpin;
  do {
    for (int i = 0; i < 64; ++i)
      if (pred()) return true;
  } while (std::chrono::steady_clock::now() < deadline);
  return pred();
}

// True on pool workers, and on a caller while it runs its share of a job:
// parallel_for from there runs inline instead of waiting on the busy pool.
thread_local bool t_in_parallel = false;
thread_local int t_index = 0;  // thread_index(): set once by each worker

// N-1 workers plus the calling thread. One job at a time: its chunks are
// claimed under the mutex (there are at most num_threads of them), so the
// caller alone can finish a job even if no worker ever wakes up.
class Pool {
 public:
  ~Pool() { stop_workers(); }

  int threads() const { return threads_.load(std::memory_order_relaxed); }
  int started() {
    std::lock_guard<std::mutex> lk(m_);
    int n = 1;
    for (size_t i = 1; i < started_.size(); ++i) n += started_[i] ? 1 : 0;
    return n;
  }

  void resize(int n) {
    if (t_in_parallel) throw std::logic_error("tir::set_num_threads called from inside parallel_for");
    std::lock_guard<std::mutex> job(job_mutex_);  // waits for a running job
    if (n == threads_) return;
    stop_workers();
    std::lock_guard<std::mutex> lk(m_);
    started_.assign(size_t(n), false);
    try {
      for (int i = 1; i < n; ++i) workers_.emplace_back([this, i, gen = gen_] { worker_loop(i, gen); });
    } catch (const std::system_error&) {
      // The platform gave fewer threads than asked: use the ones we got.
    }
    threads_ = int(workers_.size()) + 1;
  }

  // Returns false (nothing run) when another thread's job holds the pool.
  bool run(int64_t n, int64_t chunks, RangeFn fn) {
    std::unique_lock<std::mutex> job(job_mutex_, std::try_to_lock);
    if (!job.owns_lock()) return false;
    std::unique_lock<std::mutex> lk(m_);
    fn_ = &fn;
    n_ = n;
    chunks_ = chunks;
    next_ = 0;
    remaining_ = chunks;
    error_ = nullptr;
    ++posted_;
    work_cv_.notify_all();
    t_in_parallel = true;
    while (next_ < chunks_) run_one_chunk(lk);
    t_in_parallel = false;
    if (remaining_ > 0) {
      lk.unlock();
      spin_until([this] { return remaining_.load() == 0; });
      lk.lock();
      done_cv_.wait(lk, [this] { return remaining_ == 0; });
    }
    fn_ = nullptr;
    std::exception_ptr err = error_;
    error_ = nullptr;
    lk.unlock();
    if (err) std::rethrow_exception(err);
    return true;
  }

 private:
  // Called with lk held and a chunk left to claim; returns with lk held.
  void run_one_chunk(std::unique_lock<std::mutex>& lk) {
    const int64_t c = next_++;
    const auto* fn = fn_;
    const int64_t b = chunk_begin(n_, chunks_, c), e = chunk_begin(n_, chunks_, c + 1);
    lk.unlock();
    std::exception_ptr err;
    try {
      (*fn)(b, e);
    } catch (...) {
      err = std::current_exception();
    }
    lk.lock();
    if (err && !error_) error_ = err;
    if (--remaining_ == 0) done_cv_.notify_all();
  }

  // Worker i of generation `gen`; a newer generation tells it to exit.
  void worker_loop(int i, uint64_t gen) {
    t_in_parallel = true;
    t_index = i;
    std::unique_lock<std::mutex> lk(m_);
    if (gen != gen_) return;
    started_[size_t(i)] = true;
    auto has_work = [&] { return gen != gen_ || (fn_ && next_ < chunks_); };
    for (;;) {
      if (!has_work()) {
        // Poll for the next job first; sleep only when none comes soon.
        const uint64_t seen = posted_;
        lk.unlock();
        const bool posted = spin_until([&] { return posted_.load() != seen; });
        lk.lock();
        if (!posted) work_cv_.wait(lk, has_work);
        continue;
      }
      if (gen != gen_) return;
      run_one_chunk(lk);
    }
  }

  void stop_workers() {
    std::vector<bool> started;
    {
      std::lock_guard<std::mutex> lk(m_);
      ++gen_;
      ++posted_;
      started = started_;
    }
    work_cv_.notify_all();
    for (size_t i = 0; i < workers_.size(); ++i) {
#ifdef __EMSCRIPTEN__
      // A pthread beyond Emscripten's prestarted pool only starts once the
      // main thread yields to the event loop: joining it would hang. Once
      // started it sees the new generation and exits.
      if (!started[i + 1]) {
        workers_[i].detach();
        continue;
      }
#endif
      workers_[i].join();
    }
    workers_.clear();
  }

  std::mutex job_mutex_;  // held by the thread whose job owns the pool
  std::mutex m_;          // guards everything below
  std::condition_variable work_cv_, done_cv_;
  std::vector<std::thread> workers_;
  std::atomic<int> threads_{1};
  uint64_t gen_ = 0;           // bumped to stop the current workers
  std::vector<bool> started_;  // [i]: worker i entered its loop (index 0 unused)
  const RangeFn* fn_ = nullptr;
  int64_t n_ = 0, chunks_ = 0, next_ = 0;
  // Written under m_; atomic so spinning threads can poll them unlocked.
  std::atomic<int64_t> remaining_{0};
  std::atomic<uint64_t> posted_{0};  // jobs posted (and stops)
  std::exception_ptr error_;
};

Pool& pool() {
  static Pool p;
  return p;
}

}  // namespace

void set_num_threads(int n) { pool().resize(std::max(n, 1)); }

int num_threads() { return pool().threads(); }

int started_threads() { return pool().started(); }

int thread_index() { return t_index; }

int default_num_threads() { return std::max(1, int(std::thread::hardware_concurrency())); }

void parallel_for(int64_t n, int64_t grain, RangeFn fn) {
  if (n <= 0) return;
  const int threads = t_in_parallel ? 1 : num_threads();
  const int64_t chunks = chunk_count(n, grain, threads);
  if (chunks > 1 && pool().run(n, chunks, fn)) return;
  fn(0, n);
}

void parallel_for_chunks(int64_t n, int64_t chunks, RangeFn fn) {
  if (n <= 0) return;
  chunks = std::max<int64_t>(1, std::min(chunks, n));
  if (!t_in_parallel && num_threads() > 1 && chunks > 1 && pool().run(n, chunks, fn)) return;
  fn(0, n);
}

#endif

}  // namespace tir
