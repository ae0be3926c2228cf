// Data movement for indexing ops (index.Tensor, index_select, embedding,
// gather, and the scatters index_put/index_copy/index_add): the op resolves and
// range-checks indices into element offsets; these loops only move (or add) elements.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ir/dtype.h"

namespace tir {

// For b in [0, count): copies one block of shape `block` from
// src + src_off[b] (walked with src_strides) to dst + dst_off[b] (walked with
// dst_strides). Offsets and strides are in elements of `elem_size` bytes
// (1, 2, 4, 8 or 16).
void copy_blocks(size_t elem_size, const std::vector<int64_t>& block, const uint8_t* src,
                 const std::vector<int64_t>& src_strides, const int64_t* src_off, uint8_t* dst,
                 const std::vector<int64_t>& dst_strides, const int64_t* dst_off, int64_t count);

// Like copy_blocks, but dst += alpha * src, blocks applied in order (so
// duplicate destinations accumulate). `dtype` is a compute dtype shared by src
// and dst; alpha is cast to it (bool: logical or).
void add_blocks(DType dtype, double alpha, const std::vector<int64_t>& block, const uint8_t* src,
                const std::vector<int64_t>& src_strides, const int64_t* src_off, uint8_t* dst,
                const std::vector<int64_t>& dst_strides, const int64_t* dst_off, int64_t count);

}  // namespace tir
