#include "kernels/reduce.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>

#include "core/dispatch.h"
#include "kernels/elementwise.h"
#include "kernels/lines.h"
#include "core/strided.h"

namespace tir {
namespace {

template <typename T> inline bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  else return false;
}

// f(offset) for every element of the (shape, strides) space from `base`, row-major.
template <typename F> void for_each_elem(const DimVec& shape, const DimVec& st, int64_t base, F&& f) {
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

// The kept (outer) and reduced (inner) dims of `in`, coalesced.
struct Split {
  DimVec os, is;
  DimVec ost, ist;
  int64_t count = 1;  // elements per reduced group
};
Split split_dims(const Tensor& in, const std::vector<bool>& rd) {
  Split s;
  for (size_t d = 0; d < in.shape.size(); ++d) {
    const bool r = d < rd.size() && rd[d];
    (r ? s.is : s.os).push_back(in.shape[d]);
    (r ? s.ist : s.ost).push_back(in.strides[d]);
  }
  s.count = 1;  // a planned value's dims: no overflow
  for (int64_t v : s.is) s.count *= v;
  coalesce_in_place<DimVec, 1>(s.is, {&s.ist});
  coalesce_in_place<DimVec, 1>(s.os, {&s.ost});
  return s;
}

template <typename T>
void reduce_typed(ReduceOp op, const Tensor& in, const std::vector<bool>& rd, const Tensor& out, const Tensor* idx) {
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;
  Split sp = split_dims(in, rd);
  const DimVec &os = sp.os, &is = sp.is;
  const DimVec &ost = sp.ost, &ist = sp.ist;
  const int64_t count = sp.count;
  const T* p = in.data<T>();
  int64_t o = 0;
  for_each_elem(os, ost, 0, [&](int64_t base) {
    switch (op) {
      case ReduceOp::Sum:
      case ReduceOp::Mean: {
        Acc acc = 0;
        // Integer sums wrap like torch's (two's complement), without signed-overflow UB.
        if constexpr (std::is_floating_point_v<T>)
          for_each_elem(is, ist, base, [&](int64_t off) { acc += Acc(p[off]); });
        else
          for_each_elem(is, ist, base, [&](int64_t off) { acc = Acc(uint64_t(acc) + uint64_t(Acc(p[off]))); });
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

namespace {

template <typename T>
void var_typed(const Tensor& in, const std::vector<bool>& rd, double correction, bool take_sqrt, const Tensor& out,
               const Tensor* mean) {
  const Split sp = split_dims(in, rd);
  const T* p = in.data<T>();
  const double n = double(sp.count), divisor = std::max(0.0, n - correction);
  int64_t o = 0;
  for_each_elem(sp.os, sp.ost, 0, [&](int64_t base) {
    double s = 0, ss = 0;
    for_each_elem(sp.is, sp.ist, base, [&](int64_t off) { s += double(p[off]); });
    const double m = s / n;  // NaN for an empty group
    for_each_elem(sp.is, sp.ist, base, [&](int64_t off) {
      const double d = double(p[off]) - m;
      ss += d * d;
    });
    const double v = ss / divisor;
    out.data<T>()[o] = T(take_sqrt ? std::sqrt(v) : v);
    if (mean) mean->data<T>()[o] = T(m);
    ++o;
  });
}

template <typename T>
void norm_typed(const Tensor& in, const std::vector<bool>& rd, double ord, const Tensor& out) {
  const Split sp = split_dims(in, rd);
  const T* p = in.data<T>();
  int64_t o = 0;
  for_each_elem(sp.os, sp.ost, 0, [&](int64_t base) {
    double acc;
    if (std::isinf(ord)) {
      const bool mx = ord > 0;
      acc = mx ? 0.0 : INFINITY;
      for_each_elem(sp.is, sp.ist, base, [&](int64_t off) {
        const double a = std::fabs(double(p[off]));
        if (std::isnan(a) || (mx ? a > acc : a < acc)) acc = a;  // once NaN, stays NaN
      });
    } else {
      acc = 0;
      if (ord == 0.0)
        for_each_elem(sp.is, sp.ist, base, [&](int64_t off) { acc += p[off] != T(0) ? 1.0 : 0.0; });
      else if (ord == 1.0)
        for_each_elem(sp.is, sp.ist, base, [&](int64_t off) { acc += std::fabs(double(p[off])); });
      else if (ord == 2.0)
        for_each_elem(sp.is, sp.ist, base, [&](int64_t off) { acc += double(p[off]) * double(p[off]); });
      else
        for_each_elem(sp.is, sp.ist, base, [&](int64_t off) { acc += std::pow(std::fabs(double(p[off])), ord); });
      if (ord == 2.0) acc = std::sqrt(acc);
      else if (ord != 0.0 && ord != 1.0) acc = std::pow(acc, 1.0 / ord);
    }
    out.data<T>()[o++] = T(acc);
  });
}

template <typename T>
void lse_typed(const Tensor& in, const std::vector<bool>& rd, const Tensor& out) {
  const Split sp = split_dims(in, rd);
  const T* p = in.data<T>();
  int64_t o = 0;
  for_each_elem(sp.os, sp.ost, 0, [&](int64_t base) {
    double mx = -INFINITY;
    for_each_elem(sp.is, sp.ist, base, [&](int64_t off) { mx = std::max(mx, double(p[off])); });
    if (std::isinf(mx)) mx = 0;
    double s = 0;
    for_each_elem(sp.is, sp.ist, base, [&](int64_t off) { s += std::exp(double(p[off]) - mx); });
    out.data<T>()[o++] = T(std::log(s) + mx);
  });
}

template <typename T, bool kProd>
void cumulative_typed(const Tensor& in, int64_t dim, const Tensor& out) {
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;
  const int64_t n = in.dim() == 0 ? 1 : in.shape[size_t(dim)];
  const int64_t si = in.dim() == 0 ? 0 : in.strides[size_t(dim)];
  const int64_t so = out.dim() == 0 ? 0 : out.strides[size_t(dim)];
  const T* p = in.data<T>();
  T* q = out.data<T>();
  for_each_line<2>(in.shape, dim, {in.strides, out.strides}, {0, 0}, [&](std::array<int64_t, 2> off) {
    Acc acc = kProd ? 1 : 0;
    for (int64_t k = 0; k < n; ++k) {
      const Acc v = Acc(p[off[0] + k * si]);
      if constexpr (std::is_same_v<Acc, int64_t>)
        acc = int64_t(kProd ? uint64_t(acc) * uint64_t(v) : uint64_t(acc) + uint64_t(v));
      else
        acc = kProd ? acc * v : acc + v;
      q[off[1] + k * so] = T(acc);
    }
  });
}

template <typename F> void dispatch_float(const Tensor& t, F&& f) {
  if (t.dtype == DType::F32) f(float{});
  else if (t.dtype == DType::F64) f(double{});
  else throw ExecutionError(std::string("expected a float32/float64 tensor, got ") + dtype_name(t.dtype));
}

}  // namespace

void var_kernel(const Tensor& in, const std::vector<bool>& reduce_dims, double correction, bool take_sqrt,
                const Tensor& out, const Tensor* mean) {
  dispatch_float(in, [&](auto tag) { var_typed<decltype(tag)>(in, reduce_dims, correction, take_sqrt, out, mean); });
}

void vector_norm_kernel(const Tensor& in, const std::vector<bool>& reduce_dims, double ord, const Tensor& out) {
  dispatch_float(in, [&](auto tag) { norm_typed<decltype(tag)>(in, reduce_dims, ord, out); });
}

template <bool kProd> void cumulative(const Tensor& in, int64_t dim, const Tensor& out) {
  dispatch_compute(in.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) throw ExecutionError("cumsum/cumprod of bool must be cast to int64 first");
    else cumulative_typed<T, kProd>(in, dim, out);
  });
}

void cumsum_kernel(const Tensor& in, int64_t dim, const Tensor& out) { cumulative<false>(in, dim, out); }
void cumprod_kernel(const Tensor& in, int64_t dim, const Tensor& out) { cumulative<true>(in, dim, out); }

void logsumexp_kernel(const Tensor& in, const std::vector<bool>& reduce_dims, const Tensor& out) {
  dispatch_float(in, [&](auto tag) { lse_typed<decltype(tag)>(in, reduce_dims, out); });
}

}  // namespace tir
