#include "kernels/gather.h"

#include <cstring>

#include "core/errors.h"
#include "core/dispatch.h"
#include "core/strided.h"

namespace tir {

namespace {

struct Bytes16 {
  uint64_t lo, hi;
};

// True when `strides` walk `block` densely in row-major order.
bool dense(const std::vector<int64_t>& block, const std::vector<int64_t>& strides) {
  int64_t expected = 1;
  for (size_t i = block.size(); i-- > 0;) {
    if (block[i] == 1) continue;
    if (strides[i] != expected) return false;
    expected *= block[i];
  }
  return true;
}

template <typename E>
void copy_typed(const std::vector<int64_t>& block, const E* src, const std::vector<int64_t>& ss,
                const int64_t* src_off, E* dst, const std::vector<int64_t>& ds, const int64_t* dst_off,
                int64_t count) {
  int64_t numel = 1;
  for (int64_t s : block) numel *= s;
  if (numel == 0) return;
  if (numel == 1) {
    for (int64_t b = 0; b < count; ++b) dst[dst_off[b]] = src[src_off[b]];
    return;
  }
  if (dense(block, ss) && dense(block, ds)) {
    for (int64_t b = 0; b < count; ++b)
      std::memcpy(dst + dst_off[b], src + src_off[b], size_t(numel) * sizeof(E));
    return;
  }
  for (int64_t b = 0; b < count; ++b)
    for_each_row<2>(block, {ds.data(), ss.data()}, {dst_off[b], src_off[b]},
                    [&](std::array<int64_t, 2> off, int64_t n, std::array<int64_t, 2> st) {
                      for (int64_t k = 0; k < n; ++k) dst[off[0] + k * st[0]] = src[off[1] + k * st[1]];
                    });
}

}  // namespace

void copy_blocks(size_t elem_size, const std::vector<int64_t>& block, const uint8_t* src,
                 const std::vector<int64_t>& src_strides, const int64_t* src_off, uint8_t* dst,
                 const std::vector<int64_t>& dst_strides, const int64_t* dst_off, int64_t count) {
  switch (elem_size) {
#define TIR_COPY_CASE(N, E)                                                                                \
  case N:                                                                                                  \
    copy_typed<E>(block, reinterpret_cast<const E*>(src), src_strides, src_off, reinterpret_cast<E*>(dst), \
                  dst_strides, dst_off, count);                                                            \
    return;
    TIR_COPY_CASE(1, uint8_t)
    TIR_COPY_CASE(2, uint16_t)
    TIR_COPY_CASE(4, uint32_t)
    TIR_COPY_CASE(8, uint64_t)
    TIR_COPY_CASE(16, Bytes16)
#undef TIR_COPY_CASE
    default:
      throw ExecutionError("copy_blocks: unsupported element size");
  }
}

void add_blocks(DType dtype, double alpha, const std::vector<int64_t>& block, const uint8_t* src,
                const std::vector<int64_t>& src_strides, const int64_t* src_off, uint8_t* dst,
                const std::vector<int64_t>& dst_strides, const int64_t* dst_off, int64_t count) {
  dispatch_compute(dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* s = reinterpret_cast<const T*>(src);
    T* d = reinterpret_cast<T*>(dst);
    const T a = convert<T>(alpha);
    auto add = [a](T& x, T y) {
      if constexpr (std::is_same_v<T, bool>) x = x || (a && y);
      else x = T(x + a * y);
    };
    for (int64_t b = 0; b < count; ++b)
      for_each_row<2>(block, {dst_strides.data(), src_strides.data()}, {dst_off[b], src_off[b]},
                      [&](std::array<int64_t, 2> off, int64_t n, std::array<int64_t, 2> st) {
                        for (int64_t k = 0; k < n; ++k) add(d[off[0] + k * st[0]], s[off[1] + k * st[1]]);
                      });
  });
}

void embedding_bag_reduce(DType dtype, int mode, const uint8_t* weight, int64_t w_row, int64_t w_col, int64_t D,
                          const int64_t* rows, const int64_t* bag_start, int64_t B, const uint8_t* psw,
                          uint8_t* out, int64_t* max_idx) {
  auto reduce = [&](auto tag) {
    using T = decltype(tag);
    const T* w = reinterpret_cast<const T*>(weight);
    const T* ps = reinterpret_cast<const T*>(psw);
    T* o = reinterpret_cast<T*>(out);
    for (int64_t b = 0; b < B; ++b) {
      T* ob = o + b * D;
      int64_t* mb = max_idx ? max_idx + b * D : nullptr;
      for (int64_t d = 0; d < D; ++d) ob[d] = T(0);
      if (mb)
        for (int64_t d = 0; d < D; ++d) mb[d] = 0;
      int64_t count = 0;
      for (int64_t i = bag_start[b]; i < bag_start[b + 1]; ++i) {
        const int64_t r = rows[i];
        if (r < 0) continue;
        const T* wr = w + r * w_row;
        if (mode == 2) {
          for (int64_t d = 0; d < D; ++d)
            if (count == 0 || wr[d * w_col] > ob[d]) {
              ob[d] = wr[d * w_col];
              if (mb) mb[d] = r;
            }
        } else {
          const T scale = ps ? ps[i] : T(1);
          for (int64_t d = 0; d < D; ++d) ob[d] += ps ? T(wr[d * w_col] * scale) : wr[d * w_col];
        }
        ++count;
      }
      if (mode == 1 && count > 0)
        for (int64_t d = 0; d < D; ++d) ob[d] /= T(count);
    }
  };
  if (dtype == DType::F32) reduce(float{});
  else if (dtype == DType::F64) reduce(double{});
  else throw ExecutionError(std::string("embedding_bag: unsupported weight dtype ") + dtype_name(dtype));
}

}  // namespace tir
