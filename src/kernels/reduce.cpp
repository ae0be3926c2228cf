#include "kernels/reduce.h"

#include <cmath>
#include <type_traits>

#include "kernels/dispatch.h"
#include "kernels/elementwise.h"
#include "kernels/strided.h"

namespace tir {
namespace {

template <typename T> inline bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  else return false;
}

// f(offset) for every element of the (shape, strides) space from `base`, row-major.
template <typename F> void for_each_elem(const Shape& shape, const Strides& st, int64_t base, F&& f) {
  if (shape.empty()) {
    f(base);
  } else if (shape.size() == 1) {
    for (int64_t k = 0; k < shape[0]; ++k) f(base + k * st[0]);
  } else {
    for_each_row<1>(shape, {st.data()}, {base}, [&](std::array<int64_t, 1> off, int64_t n, std::array<int64_t, 1> s) {
      for (int64_t k = 0; k < n; ++k) f(off[0] + k * s[0]);
    });
  }
}

template <typename T>
void reduce_typed(ReduceOp op, const Tensor& in, const std::vector<bool>& rd, const Tensor& out, const Tensor* idx) {
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;
  Shape os, is;
  Strides ost, ist;
  for (size_t d = 0; d < in.shape.size(); ++d) {
    const bool r = d < rd.size() && rd[d];
    (r ? is : os).push_back(in.shape[d]);
    (r ? ist : ost).push_back(in.strides[d]);
  }
  const int64_t count = shape_numel(is);
  coalesce_dims(is, {&ist});
  coalesce_dims(os, {&ost});
  const T* p = in.data<T>();
  int64_t o = 0;
  for_each_elem(os, ost, 0, [&](int64_t base) {
    switch (op) {
      case ReduceOp::Sum:
      case ReduceOp::Mean: {
        Acc acc = 0;
        for_each_elem(is, ist, base, [&](int64_t off) { acc += Acc(p[off]); });
        if (op == ReduceOp::Mean) {
          if constexpr (std::is_floating_point_v<T>) acc = count ? acc / Acc(count) : Acc(NAN);
          else acc = count ? acc / Acc(count) : 0;
        }
        out.data<T>()[o] = T(acc);
        break;
      }
      case ReduceOp::Prod: {
        Acc acc = 1;
        if constexpr (std::is_floating_point_v<T>)
          for_each_elem(is, ist, base, [&](int64_t off) { acc *= Acc(p[off]); });
        else
          for_each_elem(is, ist, base, [&](int64_t off) { acc = Acc(uint64_t(acc) * uint64_t(Acc(p[off]))); });
        out.data<T>()[o] = T(acc);
        break;
      }
      case ReduceOp::Any:
      case ReduceOp::All: {
        bool any = false, all = true;
        for_each_elem(is, ist, base, [&](int64_t off) {
          const bool v = p[off] != T(0);
          any = any || v;
          all = all && v;
        });
        out.data<uint8_t>()[o] = op == ReduceOp::Any ? any : all;
        break;
      }
      default: {  // Max, Min, ArgMax, ArgMin
        const bool is_max = op == ReduceOp::Max || op == ReduceOp::ArgMax;
        T best{};
        int64_t bi = -1, k = 0;
        for_each_elem(is, ist, base, [&](int64_t off) {
          const T v = p[off];
          if (bi < 0 || (!is_nan(best) && (is_nan(v) || (is_max ? v > best : v < best)))) {
            best = v;
            bi = k;
          }
          ++k;
        });
        if (op == ReduceOp::ArgMax || op == ReduceOp::ArgMin) {
          out.data<int64_t>()[o] = bi < 0 ? 0 : bi;
        } else {
          out.data<T>()[o] = best;
          if (idx) idx->data<int64_t>()[o] = bi < 0 ? 0 : bi;
        }
        break;
      }
    }
    ++o;
  });
}

}  // namespace

void reduce_kernel(ReduceOp op, const Tensor& in, const std::vector<bool>& reduce_dims, const Tensor& out,
                   const Tensor* indices) {
  dispatch_compute(in.dtype, [&](auto tag) { reduce_typed<decltype(tag)>(op, in, reduce_dims, out, indices); });
}

}  // namespace tir
