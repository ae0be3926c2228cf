// Machine-dependent defaults (issue 20). The native default limits are the machine's physical
// memory and the default thread count its cores: these tests pin that relation, and CTest
// reruns the machine-sensitive suites under tests/fake_machine (an LD_PRELOAD shim that makes
// libc report another memory size and core count), where FakeMachine.* proves the shim took effect.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "core/thread_pool.h"
#include "runtime/limits.h"

#if defined(__unix__)
#include <unistd.h>
#endif

namespace tir {
namespace {

#if defined(__unix__) && !defined(__EMSCRIPTEN__)
uint64_t physical_bytes() { return uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGESIZE)); }

TEST(Limits, NativeDefaultsAreThePhysicalMemory) {
  const Limits d = default_limits();
  EXPECT_EQ(d.max_tensor_bytes, physical_bytes());
  EXPECT_EQ(d.max_arena_bytes, physical_bytes());
}

uint64_t env_u64(const char* name) {
  const char* e = std::getenv(name);
  return e ? std::strtoull(e, nullptr, 10) : 0;
}

TEST(FakeMachine, DefaultsFollowTheFakedMemoryAndCores) {
  const uint64_t bytes = env_u64("TIR_FAKE_PHYS_BYTES"), cores = env_u64("TIR_FAKE_NPROCS");
  if (!bytes && !cores) GTEST_SKIP() << "not under tests/fake_machine (CTest's fake_machine_* tests run it)";
  if (bytes) {
    const uint64_t page = uint64_t(sysconf(_SC_PAGESIZE));
    EXPECT_EQ(default_limits().max_tensor_bytes, bytes / page * page);
    EXPECT_EQ(bytes_text(default_limits().max_tensor_bytes), bytes_text(bytes / page * page));
  }
  if (cores) EXPECT_EQ(uint64_t(default_num_threads()), cores);
}
#endif

TEST(Limits, BytesTextGivesExactBytesAndAUnit) {
  EXPECT_EQ(bytes_text(512), "512 bytes");
  EXPECT_EQ(bytes_text(uint64_t(8) << 30), "8589934592 bytes (8.0 GiB)");
  EXPECT_EQ(bytes_text(uint64_t(3) << 39), "1649267441664 bytes (1.5 TiB)");
}

}  // namespace
}  // namespace tir
