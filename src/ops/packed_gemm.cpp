#include "ops/packed_gemm.h"

#include <algorithm>

#include "ops/common.h"
#include "ops/epilogue.h"
#include "ops/matmul_util.h"

namespace tir {

namespace {

bool is_row_vector(const Tensor& t, int64_t n) {
  return (t.dim() == 1 && t.shape[0] == n && (n == 1 || t.strides[0] == 1)) ||
         (t.dim() == 2 && t.shape[0] == 1 && t.shape[1] == n && (n == 1 || t.strides[1] == 1));
}

// True when the rows of A (K columns) stack into one matrix with unit column
// stride and row stride *ld.
bool rows_stack(const Tensor& a, int64_t K, int64_t* ld) {
  const int64_t nd = a.dim();
  if (nd < 1 || a.shape[nd - 1] != K || (a.strides[nd - 1] != 1 && K > 1)) return false;
  *ld = nd >= 2 ? a.strides[nd - 2] : K;
  if (nd >= 2 && !rows_collapse(a, *ld)) return false;
  return nd < 2 || *ld >= K || a.numel() / K <= 1;
}

}  // namespace

void prepare_packed_gemm(OpCall& call, PackedGemmState& st, const Tensor& b_view, size_t a_input,
                         size_t bias_input, bool has_bias) {
  st = PackedGemmState{};
  const Tensor b = contiguous_or_self(b_view);  // a transposed view stays a view (gemm_operand)
  auto mb = gemm_operand(b_view.shape[0], b_view.shape[1], b_view.strides[0], b_view.strides[1]);
  const Tensor& src = mb ? b_view : b;
  const MatArg m = mb ? *mb : MatArg{b.shape[1], false};
  st.K = b_view.shape[0];
  st.N = b_view.shape[1];
  st.a_input = a_input;
  st.bias_input = bias_input;
  st.bias_per_column = has_bias && is_row_vector(call.in[bias_input], st.N);
  if (has_bias && !st.bias_per_column) return;  // run_packed_gemm cannot take it: the general path
  const size_t size = size_t(packed_b_size(st.K, st.N));
  const DType wd = call.prepare_ctx->packed_weight_dtype();
  if (wd == DType::F32) {
    st.packed_b = call.prepare_ctx->derived(b_view, "gemm-B", [&](std::vector<float>& dst) {
      dst.resize(size);
      pack_b_f32(st.K, st.N, src.data<float>(), m.ld, m.trans, dst.data());
    });
    return;
  }
  st.half = wd == DType::F16 ? PackedHalf::F16 : PackedHalf::BF16;
  st.packed_half = call.prepare_ctx->derived_half(
      b_view, wd == DType::F16 ? "gemm-B-f16" : "gemm-B-bf16", [&](std::vector<uint16_t>& dst) {
        dst.resize(size);
        pack_b_half(st.K, st.N, src.data<float>(), m.ld, m.trans, st.half, dst.data());
      });
  st.half_finite = halves_finite(int64_t(size), st.packed_half->data(), st.half);
}

bool run_packed_gemm(OpCall& call, const PackedGemmState& st, const Tensor& a_in, bool has_bias) {
  if ((!st.packed_b && !st.packed_half) || (has_bias && !st.bias_per_column)) return false;
  const Tensor& out = call.out[0];
  Tensor a_dense;  // a contiguous copy of A when its rows do not stack
  int64_t ld = 0;
  if (!rows_stack(a_in, st.K, &ld)) {
    if (!st.packed_half) return false;
    a_dense = contiguous_or_self(a_in);
    ld = st.K;
  }
  const Tensor& a = a_dense.defined() ? a_dense : a_in;
  GemmOperandA A;
  A.data = a.data<float>();
  A.ld = std::max<int64_t>(ld, st.K);
  GemmOperandB B;
  if (st.packed_b) {
    B.packed = st.packed_b->data();
  } else {
    B.packed_half = st.packed_half->data();
    B.half = st.half;
    B.half_finite = st.half_finite;
  }
  GemmEpilogue epi = gemm_epilogue(call.epilogue, 0, st.N);
  if (has_bias) {
    const Tensor& bias = call.in[st.bias_input];
    epi.bias = bias.data<float>();
  }
  // A smooth activation runs inside the gemm, block by block, where it has a row kernel.
  epi.act_row = unary_activation_row(call.epilogue);
  gemm_f32_ex(out.numel() / std::max<int64_t>(st.N, 1), st.N, st.K, A, B, out.data<float>(), st.N, 1.0f, 0.0f,
              epi);
  if (!epi.act_row) apply_unary_activation(call.epilogue, out);
  return true;
}

}  // namespace tir
