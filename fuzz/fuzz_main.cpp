// libFuzzer entry: one binary per target (fuzz/CMakeLists.txt sets TIR_FUZZ_ENTRY).
#include <cstddef>
#include <cstdint>

#include "entry_points.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tir::fuzz::TIR_FUZZ_ENTRY(data, size);
  return 0;
}
