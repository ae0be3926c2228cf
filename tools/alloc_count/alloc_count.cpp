// The allocation counter (see alloc_count.h). Every replaced function forwards
// to glibc's __libc_* entry points; counting is one relaxed atomic add while a
// window is open. Stack capture (TIR_ALLOC_BACKTRACE) uses a fixed table, so
// the counter itself never allocates inside a window.
#include "alloc_count.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* __libc_memalign(size_t, size_t);
void __libc_free(void*);
}

namespace {

std::atomic<bool> g_open{false};
std::atomic<int64_t> g_count{0}, g_total{0};
constexpr int kMaxWindows = 4096;
int64_t g_window_counts[kMaxWindows];
std::atomic<int> g_windows{0};

// Call stacks seen inside windows (TIR_ALLOC_BACKTRACE): open addressing by hash.
constexpr int kDepth = 24, kStacks = 1024;
struct Stack {
  std::atomic<uint64_t> hash{0};
  std::atomic<int64_t> count{0};
  void* frames[kDepth];
  int depth = 0;
};
Stack g_stacks[kStacks];
int g_backtrace_top = -1;  // -1: not read yet; 0: off
thread_local bool t_inside = false;  // re-entry from backtrace() itself

int backtrace_top() {
  if (g_backtrace_top < 0) {
    const char* v = getenv("TIR_ALLOC_BACKTRACE");
    g_backtrace_top = v ? atoi(v) : 0;
  }
  return g_backtrace_top;
}

void record_stack() {
  void* frames[kDepth];
  const int depth = backtrace(frames, kDepth);
  uint64_t h = 1469598103934665603ull;
  for (int i = 0; i < depth; ++i) h = (h ^ uint64_t(uintptr_t(frames[i]))) * 1099511628211ull;
  if (h == 0) h = 1;
  for (int probe = 0; probe < kStacks; ++probe) {
    Stack& s = g_stacks[(h + uint64_t(probe)) % kStacks];
    uint64_t expected = 0;
    if (s.hash.load() == h || s.hash.compare_exchange_strong(expected, h)) {
      if (s.depth == 0) {
        memcpy(s.frames, frames, sizeof(frames));
        s.depth = depth;
      }
      s.count.fetch_add(1);
      return;
    }
    if (expected == h) {
      s.count.fetch_add(1);
      return;
    }
  }
}

inline void count() {
  if (!g_open.load(std::memory_order_relaxed)) return;
  g_count.fetch_add(1, std::memory_order_relaxed);
  if (t_inside || backtrace_top() == 0) return;
  t_inside = true;
  record_stack();
  t_inside = false;
}

#ifndef TIR_ALLOC_COUNT_LINKED  // linked into a test, the test reads the counts itself
void report() {
  if (getenv("TIR_ALLOC_COUNT_ALL"))
    fprintf(stderr, "tir-alloc-count: process total: %lld allocations\n", (long long)g_count.load());
  const int n = g_windows.load();
  for (int i = 0; i < n && i < kMaxWindows; ++i)
    fprintf(stderr, "tir-alloc-count: window %d: %lld allocations\n", i + 1, (long long)g_window_counts[i]);
  const int top = backtrace_top();
  for (int k = 0; k < top; ++k) {
    Stack* best = nullptr;
    for (auto& s : g_stacks)
      if (s.depth && s.count.load() > 0 && (!best || s.count.load() > best->count.load())) best = &s;
    if (!best) break;
    fprintf(stderr, "tir-alloc-count: stack %d: %lld allocations\n", k + 1, (long long)best->count.load());
    fflush(stderr);
    // The frames inside this library (the counting itself) are left out.
    int first = 0;
    Dl_info self{}, frame{};
    dladdr(reinterpret_cast<void*>(&report), &self);
    while (first < best->depth && dladdr(best->frames[first], &frame) && frame.dli_fbase == self.dli_fbase) ++first;
    backtrace_symbols_fd(best->frames + first, best->depth - first, STDERR_FILENO);
    best->count = 0;
  }
}

struct Reporter {
  // TIR_ALLOC_COUNT_ALL=1: one window over the whole process (programs without
  // markers: two runs' totals with different --repeat give the per-run count).
  Reporter() {
    if (getenv("TIR_ALLOC_COUNT_ALL")) g_open = true;
  }
  ~Reporter() { report(); }
} g_reporter;
#endif

}  // namespace

extern "C" {

void tir_alloc_window_begin() {
  g_count = 0;
  g_open = true;
}

int64_t tir_alloc_window_end() {
  g_open = false;
  const int64_t n = g_count.load();
  g_total += n;
  const int w = g_windows.fetch_add(1);
  if (w < kMaxWindows) g_window_counts[w] = n;
  return n;
}

int64_t tir_alloc_total() { return g_total.load(); }

void* malloc(size_t n) {
  count();
  return __libc_malloc(n);
}
void* calloc(size_t a, size_t b) {
  count();
  return __libc_calloc(a, b);
}
void* realloc(void* p, size_t n) {
  count();
  return __libc_realloc(p, n);
}
void free(void* p) { __libc_free(p); }
void* memalign(size_t align, size_t n) {
  count();
  return __libc_memalign(align, n);
}
void* aligned_alloc(size_t align, size_t n) {
  count();
  return __libc_memalign(align, n);
}
void* valloc(size_t n) {
  count();
  return __libc_memalign(size_t(sysconf(_SC_PAGESIZE)), n);
}
int posix_memalign(void** out, size_t align, size_t n) {
  count();
  if (align % sizeof(void*) != 0 || (align & (align - 1)) != 0) return EINVAL;
  void* p = __libc_memalign(align, n);
  if (!p && n) return ENOMEM;
  *out = p;
  return 0;
}

}  // extern "C"

// operator new: counted here (libstdc++'s would call our malloc as well, but a
// statically linked one might not).
namespace {
void* new_impl(size_t n) {
  count();
  for (;;) {
    if (void* p = __libc_malloc(n ? n : 1)) return p;
    std::new_handler h = std::get_new_handler();
    if (!h) throw std::bad_alloc();
    h();
  }
}
void* new_aligned(size_t n, std::align_val_t a) {
  count();
  void* p = __libc_memalign(size_t(a), n ? n : 1);
  if (!p) throw std::bad_alloc();
  return p;
}
}  // namespace

void* operator new(size_t n) { return new_impl(n); }
void* operator new[](size_t n) { return new_impl(n); }
void* operator new(size_t n, const std::nothrow_t&) noexcept {
  count();
  return __libc_malloc(n ? n : 1);
}
void* operator new[](size_t n, const std::nothrow_t&) noexcept {
  count();
  return __libc_malloc(n ? n : 1);
}
void* operator new(size_t n, std::align_val_t a) { return new_aligned(n, a); }
void* operator new[](size_t n, std::align_val_t a) { return new_aligned(n, a); }
void operator delete(void* p) noexcept { __libc_free(p); }
void operator delete[](void* p) noexcept { __libc_free(p); }
void operator delete(void* p, size_t) noexcept { __libc_free(p); }
void operator delete[](void* p, size_t) noexcept { __libc_free(p); }
void operator delete(void* p, std::align_val_t) noexcept { __libc_free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { __libc_free(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { __libc_free(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { __libc_free(p); }
