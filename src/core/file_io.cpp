#include "core/file_io.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/errors.h"

namespace tir {

namespace {
std::string describe_errno(const char* what, const std::string& path, int err) {
  return std::string(what) + " '" + path + "': " + (err ? std::strerror(err) : "I/O error");
}
}  // namespace

bool try_read_file(const std::string& path, std::vector<uint8_t>* out, std::string* error) {
  errno = 0;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    *error = describe_errno("cannot open", path, errno);
    return false;
  }
  // Read a first chunk, then take a size hint from ftell so multi-GB files are
  // read without regrowing. Reading first keeps directories (whose ftell is
  // huge) from being sized; reading to EOF guards against wrong hints (pipes).
  out->assign(size_t(1) << 16, 0);
  size_t used = std::fread(out->data(), 1, out->size(), f);
  bool seek_failed = false;
  if (used == out->size()) {
    if (std::fseek(f, 0, SEEK_END) == 0) {
      const long size = std::ftell(f);
      if (size > long(used)) out->resize(size_t(size) + 1);  // +1: a short read signals EOF
      seek_failed = std::fseek(f, long(used), SEEK_SET) != 0;
    }
    while (!seek_failed) {
      if (used == out->size()) out->resize(out->size() * 2);
      const size_t n = std::fread(out->data() + used, 1, out->size() - used, f);
      used += n;
      if (used < out->size()) break;  // short read: EOF (or an error, checked below)
    }
  }
  out->resize(used);
  const bool failed = seek_failed || std::ferror(f) != 0;
  const int err = errno;
  std::fclose(f);
  if (failed) {
    *error = describe_errno("cannot read", path, err);
    return false;
  }
  return true;
}

std::shared_ptr<const std::vector<uint8_t>> read_file_bytes(const std::string& path) {
  auto bytes = std::make_shared<std::vector<uint8_t>>();
  std::string error;
  if (!try_read_file(path, bytes.get(), &error)) throw WeightLoadError(error);
  return bytes;
}

void write_file_bytes(const std::string& path, const uint8_t* data, size_t n) {
  errno = 0;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw Error(describe_errno("cannot write", path, errno));
  const bool ok = (n == 0 || std::fwrite(data, 1, n, f) == n);
  const int err = errno;
  const bool closed = std::fclose(f) == 0;
  if (!ok || !closed) throw Error(describe_errno("cannot write", path, err));
}

}  // namespace tir
