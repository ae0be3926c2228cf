#include "kernels/reindex.h"

#include <cstring>

namespace tir {

void reindex_copy(const uint8_t* in, const std::vector<int64_t>& in_strides, size_t esz,
                  const std::vector<std::vector<int64_t>>& maps, uint8_t* out, const uint8_t* fill) {
  const size_t nd = maps.size();
  if (nd == 0) {
    std::memcpy(out, in, esz);
    return;
  }
  for (const auto& m : maps)
    if (m.empty()) return;
  // Byte offset of each output position along each dim; -1 marks fill.
  std::vector<std::vector<int64_t>> offs(nd);
  for (size_t d = 0; d < nd; ++d) {
    offs[d].resize(maps[d].size());
    for (size_t o = 0; o < maps[d].size(); ++o)
      offs[d][o] = maps[d][o] < 0 ? -1 : maps[d][o] * in_strides[d] * int64_t(esz);
  }
  // The fill marker can collide with a real offset only for negative strides,
  // which maps never need (flips are expressed in the map itself).
  const std::vector<int64_t>& inner = offs[nd - 1];
  const size_t n_inner = inner.size();
  std::vector<size_t> idx(nd, 0);
  while (true) {
    int64_t base = 0;
    bool outside = false;
    for (size_t d = 0; d + 1 < nd; ++d) {
      const int64_t o = offs[d][idx[d]];
      if (o < 0) outside = true;
      base += o;
    }
    for (size_t k = 0; k < n_inner; ++k, out += esz) {
      if (outside || inner[k] < 0) std::memcpy(out, fill, esz);
      else std::memcpy(out, in + base + inner[k], esz);
    }
    size_t d = nd - 1;
    while (d > 0) {
      --d;
      if (++idx[d] < offs[d].size()) break;
      idx[d] = 0;
      if (d == 0) return;
    }
    if (nd == 1) return;
  }
}

}  // namespace tir
