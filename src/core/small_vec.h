// A vector that keeps up to N elements inline (no heap), spilling to a heap
// buffer only past N: kernels' per-call dim/stride copies (DimVec) then
// allocate nothing for tensors of up to 8 dims, so a run allocates nothing.
#pragma once
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tir {

template <typename T, size_t N>
class SmallVec {
 public:
  SmallVec() = default;
  explicit SmallVec(size_t n, T v = T()) { assign(n, v); }
  template <typename C, typename = decltype(std::declval<const C&>().data())>
  SmallVec(const C& c) { assign(c.begin(), c.end()); }  // NOLINT: from Shape/Strides
  SmallVec(const T* b, const T* e) { assign(b, e); }
  SmallVec(const SmallVec& o) { assign(o.begin(), o.end()); }
  SmallVec& operator=(const SmallVec& o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }

  template <typename It> void assign(It b, It e) {
    resize(size_t(std::distance(b, e)));
    std::copy(b, e, data());
  }
  void assign(size_t n, T v) {
    resize(n);
    std::fill(begin(), end(), v);
  }
  void resize(size_t n) {
    if (n > N && heap_.size() < n) {
      heap_.resize(n);
      std::copy(inline_.begin(), inline_.begin() + std::min(n_, N), heap_.begin());
      on_heap_ = true;
    }
    for (size_t i = n_; i < n; ++i) data()[i] = T();
    n_ = n;
  }
  void push_back(T v) {
    resize(n_ + 1);
    data()[n_ - 1] = v;
  }
  void clear() { n_ = 0; }

  T* data() { return on_heap_ ? heap_.data() : inline_.data(); }
  const T* data() const { return on_heap_ ? heap_.data() : inline_.data(); }
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }
  T& back() { return data()[n_ - 1]; }
  const T& back() const { return data()[n_ - 1]; }
  T* begin() { return data(); }
  T* end() { return data() + n_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + n_; }

 private:
  std::array<T, N> inline_{};
  std::vector<T> heap_;  // used once more than N elements were asked for
  bool on_heap_ = false;
  size_t n_ = 0;
};

// Dims or strides of one tensor, inline up to 8 dims.
using DimVec = SmallVec<int64_t, 8>;

// Merges adjacent dims that are contiguous with each other in every operand
// and drops size-1 dims (in place), so strided loops run over as few, long
// rows as possible. `strides` point at one stride list per operand.
template <typename V, size_t K>
void coalesce_in_place(V& shape, const std::array<V*, K>& strides) {
  size_t w = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    bool merge = w > 0;
    for (size_t k = 0; merge && k < K; ++k) merge = (*strides[k])[w - 1] == (*strides[k])[d] * shape[d];
    if (merge) {
      shape[w - 1] *= shape[d];
      for (size_t k = 0; k < K; ++k) (*strides[k])[w - 1] = (*strides[k])[d];
      continue;
    }
    shape[w] = shape[d];
    for (size_t k = 0; k < K; ++k) (*strides[k])[w] = (*strides[k])[d];
    ++w;
  }
  shape.resize(w);
  for (size_t k = 0; k < K; ++k) strides[k]->resize(w);
}

}  // namespace tir
