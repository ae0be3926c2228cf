// Bilinear forms: bilinear (nn.Bilinear: y_k = x1^T W_k x2 + b_k) and
// _trilinear, the general product of three operands that torch builds it on
// (each operand unsqueezed at its expand dims, broadcast, multiplied, summed
// over sumdim; unroll_dim only picks torch's loop order and changes nothing
// here). Sums accumulate in double, so float results round once.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "ops/float_compute.h"
#include "ops/op.h"

namespace tir {
namespace {

// ---- bilinear ----

struct BilinearState {
  DType cd = DType::F32;
  int64_t rows = 0, I1 = 0, I2 = 0, O = 0;
  bool bias = false;
};

// aten::bilinear(Tensor input1, Tensor input2, Tensor weight, Tensor? bias=None)
void plan_bilinear(OpCall& call) {
  call.expect_inputs(3, 4);
  const Tensor &x1 = call.in[0], &x2 = call.in[1], &w = call.in[2];
  auto st = std::make_shared<BilinearState>();
  st->cd = fc::float_compute(call, x1.dtype, "bilinear input1");
  for (size_t k = 1; k < call.in.size(); ++k)
    call.check(call.in[k].dtype == x1.dtype, std::string("bilinear: expected all operands to have dtype ") +
                                                 dtype_name(x1.dtype) + ", operand " + std::to_string(k) + " is " +
                                                 dtype_name(call.in[k].dtype));
  call.check(x1.dim() >= 1 && x1.dim() == x2.dim(), "bilinear(): input dimensions do not match: got " +
                                                         shape_to_string(x1.shape) + " and " + shape_to_string(x2.shape));
  for (int64_t d = 0; d + 1 < x1.dim(); ++d)
    call.check(x1.shape[size_t(d)] == x2.shape[size_t(d)], "bilinear(): input batch dimensions do not match: got " +
                                                               shape_to_string(x1.shape) + " and " +
                                                               shape_to_string(x2.shape));
  call.check(w.dim() == 3 && w.shape[1] == x1.shape.back() && w.shape[2] == x2.shape.back(),
             "bilinear(): weight must be [out, " + std::to_string(x1.shape.back()) + ", " +
                 std::to_string(x2.shape.back()) + "] for inputs " + shape_to_string(x1.shape) + " and " +
                 shape_to_string(x2.shape) + ", got " + shape_to_string(w.shape));
  st->I1 = w.shape[1], st->I2 = w.shape[2], st->O = w.shape[0];
  st->bias = call.in.size() == 4;
  if (st->bias)
    call.check(call.in[3].dim() == 1 && call.in[3].shape[0] == st->O,
               "bilinear(): bias must be [" + std::to_string(st->O) + "], got " + shape_to_string(call.in[3].shape));
  Shape os(x1.shape.begin(), x1.shape.end() - 1);
  st->rows = shape_numel(os);
  os.push_back(st->O);
  call.fresh(0, x1.dtype, os);
  call.state = st;
}

void run_bilinear(OpCall& call) {
  const auto& st = call.state_as<BilinearState>();
  const Tensor x1 = fc::dense(call.in[0], st.cd), x2 = fc::dense(call.in[1], st.cd), w = fc::dense(call.in[2], st.cd);
  const Tensor b = st.bias ? fc::dense(call.in[3], st.cd) : Tensor();
  fc::dispatch_fd(st.cd, [&](auto tag) {
    using T = decltype(tag);
    fc::into<T>(call.out[0], st.cd, [&](T* o) {
      const T *a = x1.data<T>(), *c = x2.data<T>(), *W = w.data<T>();
      for (int64_t r = 0; r < st.rows; ++r)
        for (int64_t k = 0; k < st.O; ++k) {
          double acc = 0.0;
          for (int64_t i = 0; i < st.I1; ++i) {
            const T* wr = W + (k * st.I1 + i) * st.I2;
            const T* cr = c + r * st.I2;
            double inner = 0.0;
            for (int64_t j = 0; j < st.I2; ++j) inner += double(wr[j]) * double(cr[j]);
            acc += double(a[r * st.I1 + i]) * inner;
          }
          if (st.bias) acc += double(b.data<T>()[k]);
          o[r * st.O + k] = T(acc);
        }
    });
  });
}

// ---- _trilinear ----

struct TrilinearState {
  DType cd = DType::F32;
  Shape full;                       // broadcast shape of the unsqueezed operands
  std::vector<bool> sum;            // per full dim
  std::vector<Strides> strides;     // per operand, dense strides on `full` (0: broadcast)
};

// aten::_trilinear(Tensor i1, Tensor i2, Tensor i3, int[] expand1, int[] expand2, int[] expand3,
//     int[] sumdim, int unroll_dim=1)
void plan_trilinear(OpCall& call) {
  call.expect_inputs(3, 3);
  auto st = std::make_shared<TrilinearState>();
  st->cd = fc::float_compute(call, call.in[0].dtype, "_trilinear i1");
  const char* names[3] = {"expand1", "expand2", "expand3"};
  const int64_t total = call.in[0].dim() + int64_t(call.ints("expand1").size());
  std::vector<Shape> shapes;
  for (int k = 0; k < 3; ++k) {
    const Tensor& t = call.in[size_t(k)];
    call.check(t.dtype == call.in[0].dtype, std::string("_trilinear: expected all operands to have dtype ") +
                                                dtype_name(call.in[0].dtype) + ", i" + std::to_string(k + 1) + " is " +
                                                dtype_name(t.dtype));
    const auto ex = call.ints(names[k]);
    call.check(t.dim() + int64_t(ex.size()) == total,
               std::string("_trilinear: i") + std::to_string(k + 1) + " " + shape_to_string(t.shape) + " with " +
                   names[k] + " " + shape_to_string(ex) + " does not make " + std::to_string(total) + " dims");
    std::vector<bool> is_ex(size_t(total), false);
    for (int64_t e : ex) {
      const int64_t d = call.wrap_dim(e, total);
      call.check(!is_ex[size_t(d)], std::string(names[k]) + " repeats dim " + std::to_string(d));
      is_ex[size_t(d)] = true;
    }
    Shape s;
    size_t src = 0;
    for (int64_t d = 0; d < total; ++d) s.push_back(is_ex[size_t(d)] ? 1 : t.shape[src++]);
    shapes.push_back(s);
  }
  st->sum.assign(size_t(total), false);
  for (int64_t e : call.ints("sumdim")) {
    const int64_t d = call.wrap_dim(e, total);
    call.check(!st->sum[size_t(d)], "sumdim repeats dim " + std::to_string(d));
    st->sum[size_t(d)] = true;
  }
  st->full.assign(size_t(total), 1);
  for (int64_t d = 0; d < total; ++d) {
    for (const Shape& s : shapes)
      if (s[size_t(d)] != 1) st->full[size_t(d)] = s[size_t(d)];  // a size 0 wins over 1
    for (int k = 0; k < 3; ++k) {
      const int64_t n = shapes[size_t(k)][size_t(d)];
      call.check(n == 1 || n == st->full[size_t(d)],
                 "_trilinear: operand sizes " + shape_to_string(shapes[0]) + ", " + shape_to_string(shapes[1]) + ", " +
                     shape_to_string(shapes[2]) + " (after expand) do not broadcast at dim " + std::to_string(d));
    }
  }
  for (const Shape& s : shapes) {
    Strides str = contiguous_strides(s);
    for (size_t d = 0; d < s.size(); ++d)
      if (s[d] == 1) str[d] = 0;
    st->strides.push_back(str);
  }
  Shape os;
  for (int64_t d = 0; d < total; ++d)
    if (!st->sum[size_t(d)]) os.push_back(st->full[size_t(d)]);
  call.fresh(0, call.in[0].dtype, os);
  call.state = st;
}

void run_trilinear(OpCall& call) {
  const auto& st = call.state_as<TrilinearState>();
  const Tensor t[3] = {fc::dense(call.in[0], st.cd), fc::dense(call.in[1], st.cd), fc::dense(call.in[2], st.cd)};
  std::vector<size_t> od, sd;  // output dims, summed dims (innermost last)
  for (size_t d = 0; d < st.full.size(); ++d) (st.sum[d] ? sd : od).push_back(d);
  int64_t n_out = 1, n_sum = 1;
  for (size_t d : od) n_out *= st.full[d];
  for (size_t d : sd) n_sum *= st.full[d];
  fc::dispatch_fd(st.cd, [&](auto tag) {
    using T = decltype(tag);
    fc::into<T>(call.out[0], st.cd, [&](T* o) {
      const T* p[3] = {t[0].data<T>(), t[1].data<T>(), t[2].data<T>()};
      for (int64_t oi = 0; oi < n_out; ++oi) {
        int64_t base[3] = {0, 0, 0}, rem = oi;
        for (size_t q = od.size(); q-- > 0;) {
          const int64_t idx = rem % st.full[od[q]];
          rem /= st.full[od[q]];
          for (int k = 0; k < 3; ++k) base[k] += idx * st.strides[size_t(k)][od[q]];
        }
        double acc = 0.0;
        for (int64_t si = 0; si < n_sum; ++si) {
          int64_t off[3] = {base[0], base[1], base[2]};
          int64_t r = si;
          for (size_t q = sd.size(); q-- > 0;) {
            const int64_t idx = r % st.full[sd[q]];
            r /= st.full[sd[q]];
            for (int k = 0; k < 3; ++k) off[k] += idx * st.strides[size_t(k)][sd[q]];
          }
          acc += double(p[0][off[0]]) * double(p[1][off[1]]) * double(p[2][off[2]]);
        }
        o[oi] = T(acc);
      }
    });
  });
}

}  // namespace

TIR_REGISTER_OPS({"aten.bilinear.default", {plan_bilinear, run_bilinear}},
                 {"aten._trilinear.default", {plan_trilinear, run_trilinear}});

}  // namespace tir
