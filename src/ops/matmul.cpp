// Matrix products: mm, bmm, matmul, addmm(_), baddbmm(_), addmv, addbmm,
// linear, dot, mv, outer. Two paths:
// - batched_matmul (ops/matmul_util.h), used by every op here but outer (a
//   plain loop): reads operands through their strides (a transposed view costs
//   nothing: gemm takes transA/transB), folds a batch that shares its right
//   operand into one tall gemm; any dtype but bool.
// - the packed path (ops/packed_gemm.h): linear, addmm (beta = alpha = 1),
//   mm and matmul whose right operand is a constant 2-D f32 matrix pack it once
//   at prepare (as f16/bf16 halves with SessionOptions::weight_dtype) and run
//   gemm_f32_ex with the fused epilogue. They fall back to batched_matmul when
//   nothing was packed (another dtype, a bias that is not a row vector) or,
//   with an f32 pack, when A's rows do not stack (a half pack copies A).
#include <algorithm>
#include <optional>

#include "core/dispatch.h"
#include "kernels/gemm.h"
#include "kernels/parallel.h"
#include "core/strided.h"
#include "ops/common.h"
#include "ops/epilogue.h"
#include "ops/elementwise_util.h"
#include "ops/quantized_forms.h"
#include "ops/matmul_util.h"
#include "ops/op.h"
#include "ops/packed_gemm.h"

namespace tir {

std::optional<MatArg> gemm_operand(int64_t rows, int64_t cols, int64_t sr, int64_t sc) {
  if (sc == 1 || cols == 1) {
    const int64_t ld = rows == 1 ? cols : sr;
    if (ld >= cols) return MatArg{ld, false};
  }
  if (sr == 1 || rows == 1) {
    const int64_t ld = cols == 1 ? rows : sc;
    if (ld >= rows) return MatArg{ld, true};
  }
  return std::nullopt;
}

bool rows_collapse(const Tensor& t, int64_t ld) {
  int64_t step = ld;
  return t.dim() < 2 || (even_stride(t.shape.data(), t.strides.data(), size_t(t.dim() - 1), &step) && step == ld);
}

namespace {

template <typename T>
void gemm_typed(int64_t M, int64_t N, int64_t K, const T* A, MatArg a, const T* B, MatArg b, T* C,
                int64_t ldc, T alpha, T beta) {
  if constexpr (std::is_same_v<T, float>)
    gemm_f32(M, N, K, A, a.ld, a.trans, B, b.ld, b.trans, C, ldc, alpha, beta);
  else if constexpr (std::is_same_v<T, double>)
    gemm_f64(M, N, K, A, a.ld, a.trans, B, b.ld, b.trans, C, ldc, alpha, beta);
  else
    gemm_int<T>(M, N, K, A, a.ld, a.trans, B, b.ld, b.trans, C, ldc, alpha, beta);
}

}  // namespace

void batched_matmul(const OpCall& call, const Tensor& a_in, const Tensor& b_in, const Tensor& out,
                    const Scalar& alpha, const Scalar& beta) {
  const int64_t nd = out.dim();
  const int64_t M = out.shape[nd - 2], N = out.shape[nd - 1], K = a_in.shape[nd - 1];
  if (out.numel() == 0) return;
  // An operand gemm cannot read through its strides is copied (contiguous).
  Tensor a_dense, b_dense;
  auto operand = [](const Tensor& t, Tensor& dense) {
    const int64_t n = t.dim();
    auto m = gemm_operand(t.shape[n - 2], t.shape[n - 1], t.strides[n - 2], t.strides[n - 1]);
    if (!m) {
      dense = contiguous_or_self(t);
      m = MatArg{t.shape[n - 1], false};
    }
    return *m;
  };
  const MatArg ma = operand(a_in, a_dense), mb = operand(b_in, b_dense);
  const Tensor& a = a_dense.defined() ? a_dense : a_in;
  const Tensor& b = b_dense.defined() ? b_dense : b_in;
  const DimVec batch(out.shape.data(), out.shape.data() + out.shape.size() - 2);
  bool b_shared = true;
  for (size_t d = 0; d < batch.size(); ++d) b_shared &= batch[d] == 1 || b.strides[d] == 0;
  // One tall gemm when b is the same matrix for every batch and a's rows stack.
  const bool fold = !batch.empty() && b_shared && !ma.trans && rows_collapse(a, ma.ld);
  dispatch_compute(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      call.fail("matmul of bool tensors is not supported");
    } else {
      const T al = is_floating(out.dtype) ? T(alpha.f) : T(alpha.i);
      const T be = is_floating(out.dtype) ? T(beta.f) : T(beta.i);
      const T* A = a.data<T>();
      const T* B = b.data<T>();
      T* C = out.data<T>();
      if (fold) {
        gemm_typed<T>(out.numel() / N, N, K, A, ma, B, mb, C, N, al, be);
        return;
      }
      const DimVec as(a.strides.data(), a.strides.data() + a.strides.size() - 2);
      const DimVec bs(b.strides.data(), b.strides.data() + b.strides.size() - 2);
      const DimVec cs(out.strides.data(), out.strides.data() + out.strides.size() - 2);
      // One row per product, each too small to thread inside gemm (attention at decode: a query
      // row per head against the cache): the batch is threaded instead, each product writing its
      // own output. B packs into the caller's per-thread slots: no worker allocates.
      const int64_t count = out.numel() / N;
      if constexpr (std::is_same_v<T, float>) {
        if (M == 1 && count > 1 && !ma.trans && num_threads() > 1 && N * K < 2 * kMinTaskWork) {
          const int64_t slot = packed_b_size(K, N);
          static thread_local std::vector<float> t_slots;
          float* slots = scratch(t_slots, slot * num_threads());
          const int64_t chunks = std::max<int64_t>(chunks_for(count, 2 * N * K), 2 * num_threads());
          parallel_for_chunks(count, chunks, [&](int64_t i0, int64_t i1) {
            GemmOperandA ga;
            ga.ld = ma.ld;
            GemmOperandB gb;
            gb.ld = mb.ld;
            gb.trans = mb.trans;
            gb.pack_scratch = slots + slot * thread_index();
            for (int64_t i = i0; i < i1; ++i) {
              int64_t r = i, oa = 0, ob = 0, oc = 0;
              for (size_t d = batch.size(); d-- > 0;) {
                const int64_t x = r % batch[d];
                r /= batch[d];
                oa += x * as[d];
                ob += x * bs[d];
                oc += x * cs[d];
              }
              ga.data = A + oa;
              gb.data = B + ob;
              gemm_f32_ex(1, N, K, ga, gb, C + oc, N, al, be);
            }
          });
          return;
        }
      }
      for_each_row<3>(batch, {as.data(), bs.data(), cs.data()}, {0, 0, 0},
                      [&](std::array<int64_t, 3> off, int64_t n, std::array<int64_t, 3> st) {
                        for (int64_t k = 0; k < n; ++k)
                          gemm_typed<T>(M, N, K, A + off[0] + k * st[0], ma, B + off[1] + k * st[1], mb,
                                        C + off[2] + k * st[2], N, al, be);
                      });
    }
  });
}

namespace {

void check_same_dtype(const OpCall& call, const Tensor& a, const Tensor& b) {
  if (a.dtype != b.dtype)
    call.fail(std::string("expected both operands to have the same dtype, got ") + dtype_name(a.dtype) +
              " and " + dtype_name(b.dtype));
}

void check_inner(const OpCall& call, const Shape& a, const Shape& b, int64_t ka, int64_t kb) {
  if (ka != kb)
    call.fail("shapes " + shape_to_string(a) + " and " + shape_to_string(b) + " cannot be multiplied (" +
              std::to_string(ka) + " != " + std::to_string(kb) + ")");
}

// View of a 1-D vector as [1,K] (as_row) or [K,1].
Tensor promote_vector(const Tensor& v, bool as_row) {
  const int64_t n = v.shape[0], s = v.strides[0];
  return as_row ? v.view_as({1, n}, {n * s, s}, v.offset) : v.view_as({n, 1}, {s, 1}, v.offset);
}

const Scalar kOne = Scalar::of_int(1);
const Scalar kZero = Scalar::of_int(0);

// --- mm / bmm -------------------------------------------------------------
void plan_mm(OpCall& call) {
  call.expect_inputs(2, 2);
  const Tensor &a = call.in[0], &b = call.in[1];
  call.check(a.dim() == 2 && b.dim() == 2,
             "mm expects 2-D operands, got " + shape_to_string(a.shape) + " and " + shape_to_string(b.shape));
  check_same_dtype(call, a, b);
  check_inner(call, a.shape, b.shape, a.shape[1], b.shape[0]);
  call.fresh(0, a.dtype, {a.shape[0], b.shape[1]});
}
void run_mm(OpCall& call) { batched_matmul(call, call.in[0], call.in[1], call.out[0], kOne, kZero); }

void plan_bmm(OpCall& call) {
  call.expect_inputs(2, 2);
  const Tensor &a = call.in[0], &b = call.in[1];
  call.check(a.dim() == 3 && b.dim() == 3 && a.shape[0] == b.shape[0],
             "bmm expects [B,M,K] and [B,K,N], got " + shape_to_string(a.shape) + " and " +
                 shape_to_string(b.shape));
  check_same_dtype(call, a, b);
  check_inner(call, a.shape, b.shape, a.shape[2], b.shape[1]);
  call.fresh(0, a.dtype, {a.shape[0], a.shape[1], b.shape[2]});
}
void run_bmm(OpCall& call) { batched_matmul(call, call.in[0], call.in[1], call.out[0], kOne, kZero); }

// --- addmm / baddbmm: beta*self + alpha*(m1 @ m2) ---------------------------
// `inplace` (addmm_/baddbmm_): self must already have the product's shape and
// dtype; the result is written through self's view.
void plan_addmm_like(OpCall& call, int64_t rank, bool inplace = false) {
  call.expect_inputs(3, 3);
  const Tensor &self = call.in[0], &a = call.in[1], &b = call.in[2];
  call.check(a.dim() == rank && b.dim() == rank, "expected " + std::to_string(rank) + "-D operands, got " +
                                                     shape_to_string(a.shape) + " and " +
                                                     shape_to_string(b.shape));
  call.check(rank == 2 || a.shape[0] == b.shape[0],
             "batch sizes differ: " + shape_to_string(a.shape) + " and " + shape_to_string(b.shape));
  check_same_dtype(call, a, b);
  check_inner(call, a.shape, b.shape, a.shape[rank - 1], b.shape[rank - 2]);
  Shape out = a.shape;
  out[rank - 1] = b.shape[rank - 1];
  auto bs = broadcast_shapes(self.shape, out);
  call.check(bs && *bs == out, "self " + shape_to_string(self.shape) +
                                   " does not broadcast to the product shape " + shape_to_string(out));
  if (!inplace) {
    call.fresh(0, a.dtype, out);
    return;
  }
  call.check(self.shape == out, "in-place: self " + shape_to_string(self.shape) +
                                    " must have the product's shape " + shape_to_string(out));
  check_same_dtype(call, self, a);
  call.alias(0, self);
}
void run_addmm_like(OpCall& call) {
  const Tensor& out = call.out[0];
  const Scalar beta = call.scalar("beta", kOne), alpha = call.scalar("alpha", kOne);
  const bool use_self = beta.is_floating() ? beta.f != 0.0 : beta.i != 0;
  if (use_self) copy_into(out, broadcast_view(call.in[0], out.shape));
  batched_matmul(call, call.in[1], call.in[2], out, alpha, use_self ? beta : kZero);
}

void run_addmm_inplace(OpCall& call) {
  const Tensor& self = call.in[0];
  const Scalar beta = call.scalar("beta", kOne), alpha = call.scalar("alpha", kOne);
  const bool use_self = beta.is_floating() ? beta.f != 0.0 : beta.i != 0;
  // Operands that share self's memory are read from a snapshot (torch computes out of place).
  const Tensor a = ew::read_safe(call.in[1], self), b = ew::read_safe(call.in[2], self);
  if (self.is_contiguous()) {
    batched_matmul(call, a, b, self, alpha, use_self ? beta : kZero);
    return;
  }
  const Tensor tmp = to_dtype_owned(self, self.dtype);  // contiguous copy for gemm
  batched_matmul(call, a, b, tmp, alpha, use_self ? beta : kZero);
  copy_into(self, tmp);
}

// --- addmv: beta*self + alpha*(mat @ vec); addbmm: ... + alpha*sum_b(b1[b] @ b2[b]) ---
void plan_addmv(OpCall& call) {
  call.expect_inputs(3, 3);
  const Tensor &self = call.in[0], &m = call.in[1], &v = call.in[2];
  call.check(m.dim() == 2 && v.dim() == 1, "addmv expects a 2-D matrix and a 1-D vector, got " +
                                               shape_to_string(m.shape) + " and " + shape_to_string(v.shape));
  check_same_dtype(call, m, v);
  check_inner(call, m.shape, v.shape, m.shape[1], v.shape[0]);
  const Shape out{m.shape[0]};
  auto bs = broadcast_shapes(self.shape, out);
  call.check(bs && *bs == out, "self " + shape_to_string(self.shape) + " does not broadcast to " + shape_to_string(out));
  call.fresh(0, m.dtype, out);
}
void run_addmv(OpCall& call) {
  const Tensor& out = call.out[0];
  const Scalar beta = call.scalar("beta", kOne), alpha = call.scalar("alpha", kOne);
  const bool use_self = beta.is_floating() ? beta.f != 0.0 : beta.i != 0;
  if (use_self) copy_into(out, broadcast_view(call.in[0], out.shape));
  batched_matmul(call, call.in[1], promote_vector(call.in[2], false), promote_vector(out, false), alpha,
                 use_self ? beta : kZero);
}

void plan_addbmm(OpCall& call) {
  call.expect_inputs(3, 3);
  const Tensor &self = call.in[0], &a = call.in[1], &b = call.in[2];
  call.check(a.dim() == 3 && b.dim() == 3 && a.shape[0] == b.shape[0],
             "addbmm expects [B,N,M] and [B,M,P], got " + shape_to_string(a.shape) + " and " + shape_to_string(b.shape));
  check_same_dtype(call, a, b);
  check_inner(call, a.shape, b.shape, a.shape[2], b.shape[1]);
  const Shape out{a.shape[1], b.shape[2]};
  auto bs = broadcast_shapes(self.shape, out);
  call.check(bs && *bs == out, "self " + shape_to_string(self.shape) + " does not broadcast to " + shape_to_string(out));
  call.fresh(0, a.dtype, out);
}
void run_addbmm(OpCall& call) {
  const Tensor &out = call.out[0], &a = call.in[1], &b = call.in[2];
  const Scalar beta = call.scalar("beta", kOne), alpha = call.scalar("alpha", kOne);
  const bool use_self = beta.is_floating() ? beta.f != 0.0 : beta.i != 0;
  if (use_self) copy_into(out, broadcast_view(call.in[0], out.shape));
  // The first product applies beta (a K=0 product when the batch is empty), later ones accumulate.
  const int64_t nb = a.shape[0];
  for (int64_t i = 0; i < std::max<int64_t>(nb, 1); ++i) {
    const int64_t k = nb == 0 ? 0 : a.shape[2];
    const Tensor ai = a.view_as({a.shape[1], k}, {a.strides[1], a.strides[2]}, a.offset + i * a.strides[0]);
    const Tensor bi = b.view_as({k, b.shape[2]}, {b.strides[1], b.strides[2]}, b.offset + i * b.strides[0]);
    batched_matmul(call, ai, bi, out, alpha, i > 0 ? kOne : use_self ? beta : kZero);
  }
}

// --- dot / mv / outer -----------------------------------------------------------
void plan_dot(OpCall& call) {
  call.expect_inputs(2, 2);
  const Tensor &a = call.in[0], &b = call.in[1];
  call.check(a.dim() == 1 && b.dim() == 1, "1D tensors expected, but got " + std::to_string(a.dim()) + "D and " +
                                               std::to_string(b.dim()) + "D tensors");
  check_same_dtype(call, a, b);
  call.check(a.shape[0] == b.shape[0], "inconsistent tensor size, expected tensor [" + std::to_string(a.shape[0]) +
                                           "] and src [" + std::to_string(b.shape[0]) +
                                           "] to have the same number of elements, but got " +
                                           std::to_string(a.shape[0]) + " and " + std::to_string(b.shape[0]) +
                                           " elements respectively");
  call.fresh(0, a.dtype, {});
}
void run_dot(OpCall& call) {
  const Tensor& o = call.out[0];
  batched_matmul(call, promote_vector(call.in[0], true), promote_vector(call.in[1], false),
                 o.view_as({1, 1}, {1, 1}, o.offset), kOne, kZero);
}

void plan_mv(OpCall& call) {
  call.expect_inputs(2, 2);
  const Tensor &a = call.in[0], &v = call.in[1];
  call.check(a.dim() == 2 && v.dim() == 1, "vector + matrix @ vector expected, got " + std::to_string(a.dim()) +
                                               ", " + std::to_string(v.dim()));
  check_same_dtype(call, a, v);
  check_inner(call, a.shape, v.shape, a.shape[1], v.shape[0]);
  call.fresh(0, a.dtype, {a.shape[0]});
}
void run_mv(OpCall& call) {
  const Tensor& o = call.out[0];
  batched_matmul(call, call.in[0], promote_vector(call.in[1], false), promote_vector(o, false), kOne, kZero);
}

void plan_outer(OpCall& call) {
  call.expect_inputs(2, 2);
  const Tensor &a = call.in[0], &b = call.in[1];
  call.check(a.dim() == 1 && b.dim() == 1, "outer expects 1-D operands, got " + shape_to_string(a.shape) +
                                               " and " + shape_to_string(b.shape));
  // torch: self.reshape(-1, 1) * vec2, so mul's type promotion
  call.fresh(0, compute_dtype(result_type({PromotionOperand::of(a), PromotionOperand::of(b)})),
             {a.shape[0], b.shape[0]});
}
void run_outer(OpCall& call) {
  const Tensor& o = call.out[0];
  const Tensor a = ew::as_dtype(call.in[0], o.dtype), b = ew::as_dtype(call.in[1], o.dtype);
  const int64_t n = o.shape[0], m = o.shape[1];
  dispatch_compute(o.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    T* po = o.data<T>();
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < m; ++j) {
        const T x = pa[i * a.strides[0]], y = pb[j * b.strides[0]];
        if constexpr (std::is_same_v<T, bool>) po[i * m + j] = x && y;
        else if constexpr (std::is_integral_v<T>) po[i * m + j] = T(uint64_t(int64_t(x)) * uint64_t(int64_t(y)));
        else po[i * m + j] = x * y;
      }
  });
}

// --- matmul: numpy rules ----------------------------------------------------
struct MatmulShapes {
  Shape a, b, batch;  // a/b as batch+[M,K] / batch+[K,N] (1-D promoted)
  Shape out;          // final result shape (promoted dims squeezed)
};
MatmulShapes matmul_shapes(const OpCall& call, const Tensor& x, const Tensor& y) {
  if (x.dim() < 1 || y.dim() < 1)
    call.fail("both arguments to matmul need at least 1 dimension, got " + shape_to_string(x.shape) + " and " +
              shape_to_string(y.shape));
  MatmulShapes s;
  s.a = x.dim() == 1 ? Shape{1, x.shape[0]} : x.shape;
  s.b = y.dim() == 1 ? Shape{y.shape[0], 1} : y.shape;
  const Shape ba(s.a.begin(), s.a.end() - 2), bb(s.b.begin(), s.b.end() - 2);
  auto batch = broadcast_shapes(ba, bb);
  if (!batch)
    call.fail("batch dims of " + shape_to_string(x.shape) + " and " + shape_to_string(y.shape) + " do not broadcast");
  check_inner(call, x.shape, y.shape, s.a.back(), s.b[s.b.size() - 2]);
  s.batch = *batch;
  s.out = s.batch;
  if (x.dim() > 1) s.out.push_back(s.a[s.a.size() - 2]);
  if (y.dim() > 1) s.out.push_back(s.b.back());
  return s;
}
void plan_matmul(OpCall& call) {
  call.expect_inputs(2, 2);
  check_same_dtype(call, call.in[0], call.in[1]);
  call.fresh(0, call.in[0].dtype, matmul_shapes(call, call.in[0], call.in[1]).out);
}
void run_matmul(OpCall& call) {
  const Tensor &x = call.in[0], &y = call.in[1];
  // Same rank and batch dims (attention's [B, H, S, D] @ [B, H, D, S]): batched_matmul reads the
  // operands as they are, with no broadcast views to build (the run allocates nothing).
  if (x.dim() >= 2 && x.dim() == y.dim() && std::equal(x.shape.begin(), x.shape.end() - 2, y.shape.begin())) {
    batched_matmul(call, x, y, call.out[0], kOne, kZero);
    return;
  }
  const MatmulShapes s = matmul_shapes(call, x, y);
  Tensor a = x.dim() == 1 ? promote_vector(x, true) : x;
  Tensor b = y.dim() == 1 ? promote_vector(y, false) : y;
  Shape at = s.batch, bt = s.batch, ot = s.batch;
  at.insert(at.end(), s.a.end() - 2, s.a.end());
  bt.insert(bt.end(), s.b.end() - 2, s.b.end());
  ot.push_back(s.a[s.a.size() - 2]);
  ot.push_back(s.b.back());
  const Tensor& o = call.out[0];
  batched_matmul(call, broadcast_view(a, at), broadcast_view(b, bt), o.view_as(ot, contiguous_strides(ot), o.offset),
                 kOne, kZero);
}

// --- linear: x[..., in] @ W[out, in]^T + bias --------------------------------
// A 1-D weight [in] gives x @ w (the last dim dropped), as torch.
void plan_linear(OpCall& call) {
  call.expect_inputs(2, 3);
  const Tensor &x = call.in[0], &w = call.in[1];
  call.check(w.dim() == 1 || w.dim() == 2,
             "weight must be [out, in] or [in], got " + shape_to_string(w.shape));
  call.check(x.dim() >= 1, "input must have at least 1 dimension");
  check_same_dtype(call, x, w);
  check_inner(call, x.shape, w.shape, x.shape.back(), w.shape.back());
  Shape out = x.shape;
  out.pop_back();
  if (w.dim() == 2) out.push_back(w.shape[0]);
  if (call.in.size() == 3) {
    auto bs = broadcast_shapes(call.in[2].shape, out);
    call.check(bs && *bs == out, "bias " + shape_to_string(call.in[2].shape) + " does not broadcast to " +
                                     shape_to_string(out));
  }
  call.fresh(0, x.dtype, out);
}
void run_linear_reference(OpCall& call) {
  const Tensor &x = call.in[0], &out = call.out[0];
  const Tensor w = call.in[1].dim() == 1 ? promote_vector(call.in[1], true) : call.in[1];
  const int64_t nin = w.shape[1], nout = w.shape[0];
  const bool has_bias = call.in.size() == 3;
  if (has_bias) copy_into(out, broadcast_view(call.in[2], out.shape));
  // W^T as an [in, out] view: gemm reads it transposed, never copied.
  const Tensor wt = w.view_as({nin, nout}, {w.strides[1], w.strides[0]}, w.offset);
  const Tensor a = x.dim() == 1 ? promote_vector(x, true) : x;
  Shape ot(a.shape.begin(), a.shape.end() - 1);
  ot.push_back(nout);
  Shape wshape = ot;
  wshape[wshape.size() - 2] = nin;
  Strides wst(a.dim() - 2, 0);  // the same W for every leading index
  wst.push_back(wt.strides[0]);
  wst.push_back(wt.strides[1]);
  batched_matmul(call, a, wt.view_as(wshape, wst, wt.offset),
                 out.view_as(ot, contiguous_strides(ot), out.offset), kOne, has_bias ? kOne : kZero);
  apply_epilogue(call.epilogue, out);
}

// --- f32 products with a constant right operand packed once at prepare ---
// (ops/packed_gemm.h): linear, addmm with beta = alpha = 1, mm and matmul.
void plan_linear_packed(OpCall& call) {
  plan_linear(call);
  call.state = std::make_shared<PackedGemmState>();
}

void prepare_linear(OpCall& call) {
  auto& st = call.state_as<PackedGemmState>();
  st = PackedGemmState{};
  const Tensor& w = call.in[1];
  if (call.out[0].dtype != DType::F32 || w.dim() != 2 || !call.is_constant(1)) return;
  const Tensor wt = w.view_as({w.shape[1], w.shape[0]}, {w.strides[1], w.strides[0]}, w.offset);
  prepare_packed_gemm(call, st, wt, 0, 2, call.in.size() == 3);
}

void run_linear(OpCall& call) {
  const auto& st = call.state_as<PackedGemmState>();
  if (!run_packed_gemm(call, st, call.in[0], call.in.size() == 3)) run_linear_reference(call);
}

void plan_addmm_packed(OpCall& call) {
  plan_addmm_like(call, 2);
  call.state = std::make_shared<PackedGemmState>();
}

bool unit_scalars(const OpCall& call) {
  const Scalar beta = call.scalar("beta", kOne), alpha = call.scalar("alpha", kOne);
  return beta.f == 1.0 && alpha.f == 1.0;
}

void prepare_addmm(OpCall& call) {
  auto& st = call.state_as<PackedGemmState>();
  st = PackedGemmState{};
  if (call.out[0].dtype != DType::F32 || !call.is_constant(2) || !unit_scalars(call)) return;
  prepare_packed_gemm(call, st, call.in[2], 1, 0, true);
}

void run_addmm(OpCall& call) {
  const auto& st = call.state_as<PackedGemmState>();
  if (run_packed_gemm(call, st, call.in[1], true)) return;
  run_addmm_like(call);
  apply_epilogue(call.epilogue, call.out[0]);
}

// mm(x, W) / matmul(x, W) with W a constant 2-D matrix: W packed once.
template <void (*Plan)(OpCall&)>
void plan_with_packed_state(OpCall& call) {
  Plan(call);
  call.state = std::make_shared<PackedGemmState>();
}

void prepare_right_constant(OpCall& call) {
  auto& st = call.state_as<PackedGemmState>();
  st = PackedGemmState{};
  const Tensor& w = call.in[1];
  if (call.out[0].dtype != DType::F32 || w.dim() != 2 || !call.is_constant(1)) return;
  prepare_packed_gemm(call, st, w, 0, 0, false);
}

template <void (*Run)(OpCall&)>
void run_right_constant(OpCall& call) {
  if (run_packed_gemm(call, call.state_as<PackedGemmState>(), call.in[0], false)) return;
  Run(call);
  apply_epilogue(call.epilogue, call.out[0]);
}

OpDef packed_gemm_def(void (*plan)(OpCall&), void (*run)(OpCall&), void (*prepare)(OpCall&)) {
  OpDef def{plan, run, prepare};
  def.traits.epilogue = EpilogueRole::Producer;
  return def;
}

OpDef with_quantized_forms(OpDef def, const OpDef* (*form)(), const OpDef* (*grouped_form)()) {
  def.traits.quantized_form = form;
  def.traits.grouped_quantized_form = grouped_form;
  return def;
}

}  // namespace

TIR_REGISTER_OPS(
    // aten::mm(Tensor self, Tensor mat2) -> Tensor
    {"aten.mm.default",
     packed_gemm_def(plan_with_packed_state<plan_mm>, run_right_constant<run_mm>, prepare_right_constant)},
    // aten::bmm(Tensor self, Tensor mat2) -> Tensor
    {"aten.bmm.default", {plan_bmm, run_bmm}},
    // aten::matmul(Tensor self, Tensor other) -> Tensor
    {"aten.matmul.default",
     packed_gemm_def(plan_with_packed_state<plan_matmul>, run_right_constant<run_matmul>, prepare_right_constant)},
    // aten::addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor
    {"aten.addmm.default", packed_gemm_def(plan_addmm_packed, run_addmm, prepare_addmm)},
    // aten::baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor
    {"aten.baddbmm.default", {[](OpCall& c) { plan_addmm_like(c, 3); }, run_addmm_like}},
    // aten::linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor
    // (PyTorch's quantized patterns DQ(Q(x)) @ DQ(W)^T run in integers: ops/linear_int8.cpp, and
    // torchao's 8da4w ops/linear_8da4w.cpp)
    {"aten.linear.default", with_quantized_forms(packed_gemm_def(plan_linear_packed, run_linear, prepare_linear),
                                                 linear_int8_def, linear_8da4w_def)},
    // aten::addmm_(Tensor(a!) self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor(a!)
    {"aten.addmm_.default", {[](OpCall& c) { plan_addmm_like(c, 2, true); }, run_addmm_inplace}},
    // aten::baddbmm_(Tensor(a!) self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1)
    //   -> Tensor(a!)
    {"aten.baddbmm_.default", {[](OpCall& c) { plan_addmm_like(c, 3, true); }, run_addmm_inplace}},
    // aten::addmv(Tensor self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1) -> Tensor
    {"aten.addmv.default", {plan_addmv, run_addmv}},
    // aten::addbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor
    {"aten.addbmm.default", {plan_addbmm, run_addbmm}},
    // aten::dot(Tensor self, Tensor tensor) -> Tensor
    {"aten.dot.default", {plan_dot, run_dot}},
    // aten::mv(Tensor self, Tensor vec) -> Tensor
    {"aten.mv.default", {plan_mv, run_mv}},
    // aten::outer(Tensor self, Tensor vec2) -> Tensor
    {"aten.outer.default", {plan_outer, run_outer}});

}  // namespace tir
