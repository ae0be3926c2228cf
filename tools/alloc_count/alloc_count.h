// Allocation counting between two markers (issue 21: a run allocates nothing).
// The counter (alloc_count.cpp) replaces malloc, calloc, realloc,
// aligned_alloc, posix_memalign, memalign, valloc and operator new, either in
// a process that links it (tests/cpp/alloc) or preloaded into any program:
//   LD_PRELOAD=build/native/libtir_alloc_count.so torchir run ... --repeat 5
// A program marks the region it wants counted with tir_alloc_window_begin /
// tir_alloc_window_end (torchir run marks each run); found through dlsym, so
// the program runs unchanged without the counter. At exit the preloaded
// counter prints one line per window to stderr:
//   tir-alloc-count: window 3: 0 allocations
// With TIR_ALLOC_COUNT_ALL=1 it counts the whole process instead (for programs
// without markers, e.g. an older torchir: the difference of two --repeat counts).
// With TIR_ALLOC_BACKTRACE=N it also prints the N call stacks that allocated
// most inside windows (backtrace_symbols_fd; build with -g for names).
#pragma once
#include <cstdint>

extern "C" {
// Starts counting (windows do not nest; a begin inside one restarts it).
void tir_alloc_window_begin();
// Stops counting; returns the allocations made since the begin, on any thread.
int64_t tir_alloc_window_end();
// Allocations counted in all windows so far.
int64_t tir_alloc_total();
}
