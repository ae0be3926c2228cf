// Data movement for indexing ops (index.Tensor, index_select, embedding,
// gather, and the scatters index_put/index_copy/index_add): the op resolves and
// range-checks indices into element offsets; these loops only move (or add) elements.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/dtype.h"

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

// EmbeddingBag reduction (`dtype` F32 or F64, the weight's). Bag b covers
// positions [bag_start[b], bag_start[b+1]); rows[i] is the weight row of
// position i, or -1 to skip it (padding_idx). Weight row r, column d is at
// weight[r * w_row + d * w_col]. mode 0 sum (each row times psw[i] when psw is
// non-null), 1 mean over the non-skipped rows, 2 max (ties keep the first;
// max_idx [B, D] gets the winning row). Empty bags give zeros. out is [B, D] contiguous.
void embedding_bag_reduce(DType dtype, int mode, const uint8_t* weight, int64_t w_row, int64_t w_col, int64_t D,
                          const int64_t* rows, const int64_t* bag_start, int64_t B, const uint8_t* psw,
                          uint8_t* out, int64_t* max_idx);

}  // namespace tir
