// Replays tests/fuzz-regressions/<target>/* (inputs the fuzzers once found
// crashing, hanging or leaking an exception) through the same entry points the
// libFuzzer targets run (fuzz/entry_points.cpp): each must end in success or a
// tir::Error. A crash ends the test process; the file being replayed is
// printed first so the output names it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include <sys/resource.h>

#include "entry_points.h"
#include "test_util.h"

namespace fs = std::filesystem;

namespace {

std::vector<uint8_t> read_bytes(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// Caps the address space while replaying (unsanitized builds only: the
// sanitizers reserve terabytes of shadow memory): a reproducer whose size
// check is still missing then gets bad_alloc (a test failure) instead of
// taking the machine's memory, as libFuzzer's -rss_limit_mb did.
class AddressSpaceCap {
 public:
  AddressSpaceCap() {
#ifndef TIR_TEST_SANITIZED
    if (getrlimit(RLIMIT_AS, &saved_) == 0) {
      rlimit capped = saved_;
      const rlim_t cap = rlim_t(8) << 30;
      if (capped.rlim_cur == RLIM_INFINITY || capped.rlim_cur > cap) capped.rlim_cur = cap;
      active_ = setrlimit(RLIMIT_AS, &capped) == 0;
    }
#endif
  }
  ~AddressSpaceCap() {
    if (active_) setrlimit(RLIMIT_AS, &saved_);
  }

 private:
  rlimit saved_{};
  bool active_ = false;
};

class FuzzRegressions : public ::testing::TestWithParam<tir::fuzz::Target> {};

TEST_P(FuzzRegressions, EveryReproducerEndsInSuccessOrTirError) {
  const tir::fuzz::Target target = GetParam();
  const fs::path dir = fs::path(TIR_FUZZ_REGRESSIONS_DIR) / target.name;
  ASSERT_TRUE(fs::is_directory(dir)) << dir;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && e.path().filename() != "README.md") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  // Each folder holds at least one file, so this cannot pass by finding nothing.
  ASSERT_FALSE(files.empty()) << dir << " has no reproducers";
  AddressSpaceCap cap;
  for (const auto& f : files) {
    std::cerr << "[fuzz replay] " << target.name << ": " << f.filename().string() << "\n";
    const std::vector<uint8_t> bytes = read_bytes(f);
    try {
      target.fn(bytes.data(), bytes.size());
    } catch (const std::exception& e) {
      ADD_FAILURE() << f << ": escaped with a non-tir exception: " << e.what();
    } catch (...) {
      ADD_FAILURE() << f << ": escaped with a non-std exception";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, FuzzRegressions, ::testing::ValuesIn(tir::fuzz::targets()),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
