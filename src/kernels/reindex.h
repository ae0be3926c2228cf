// Separable re-indexing copy: every output coordinate maps to an input
// coordinate one dim at a time. Pads (constant/reflect/replicate/circular),
// flip and roll are all such maps, so they share this one kernel.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tir {

// out (contiguous, shape = the maps' lengths) gets
//   out[o_0, ..., o_k] = in[map_0[o_0], ..., map_k[o_k]]
// where `in` is strided (element strides). A map entry < 0 means "outside the
// input": that element gets the `esz` bytes at `fill`. Elements are copied as
// raw bytes of size `esz` (no dtype conversion).
void reindex_copy(const uint8_t* in, const std::vector<int64_t>& in_strides, size_t esz,
                  const std::vector<std::vector<int64_t>>& maps, uint8_t* out, const uint8_t* fill);

}  // namespace tir
