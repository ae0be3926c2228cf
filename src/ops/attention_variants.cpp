// The CUDA scaled dot-product attention forms that core graphs exported on a
// GPU machine carry, run with the shared SDPA kernel (attention.cpp):
//   _scaled_dot_product_efficient_attention(q, k, v, attn_bias?, compute_log_sumexp,
//     dropout_p, is_causal, *, scale) -> (output, log_sumexp, philox_seed, philox_offset)
//     log_sumexp is [B, H, ceil(L/32)*32] (the kernel's padded rows; the padding
//     holds +inf, as the CUDA kernel writes) when compute_log_sumexp, else [B, H, 0].
//   _scaled_dot_product_cudnn_attention(q, k, v, attn_bias?, compute_log_sumexp,
//     dropout_p, is_causal, return_debug_mask, *, scale) -> (output, logsumexp
//     [B, H, L, 1], cum_seq_q, cum_seq_k, max_q, max_k, philox_seed, philox_offset,
//     debug_attn_mask); only tensor returns are IR outputs.
// philox seed/offset and the other bookkeeping outputs only matter to dropout
// (refused: dropout_p must be 0) and come out zero-filled with the IR's shapes.
#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include "ops/attention_util.h"
#include "ops/op.h"

namespace tir {
namespace {

void check_4d(const OpCall& call) {
  for (size_t i = 0; i < 3; ++i)
    call.check(call.in[i].dim() == 4, "expects 4-D [B, H, L, E] query, key and value, got " +
                                          shape_to_string(call.in[i].shape));
}

// Bookkeeping outputs from `first` on: the IR's shape and dtype (0-d int64 when absent).
void plan_extras(OpCall& call, size_t first, size_t count) {
  for (size_t i = first; i < count; ++i) {
    const bool known = i < call.num_ir_outputs();
    call.fresh(i, known ? compute_dtype(call.node->outputs[i].dtype) : DType::I64,
               known ? call.node->outputs[i].shape : Shape{});
  }
}

void plan_efficient(OpCall& call) {
  call.expect_inputs(3, 4);
  check_4d(call);
  auto st = attn_plan_common(call, 3, false);
  const Shape& o = call.out[0].shape;
  const bool lse = call.b("compute_log_sumexp");
  st->want_lse = lse;
  st->lse_stride = (o[2] + 31) / 32 * 32;
  call.fresh(1, st->dtype, {o[0], o[1], lse ? st->lse_stride : 0});
  plan_extras(call, 2, std::max<size_t>(call.num_ir_outputs(), 4));
  call.state = st;
}

void plan_cudnn(OpCall& call) {
  call.expect_inputs(3, 4);
  check_4d(call);
  call.check(!call.b("return_debug_mask", false), "return_debug_mask=True is not supported (CUDA-only debug output)");
  auto st = attn_plan_common(call, 3, false);
  const Shape& o = call.out[0].shape;
  st->want_lse = true;
  call.fresh(1, st->dtype, {o[0], o[1], o[2], 1});
  plan_extras(call, 2, std::max<size_t>(call.num_ir_outputs(), 2));
  call.state = st;
}

void run_variant(OpCall& call) {
  for (size_t i = 1; i < call.out.size(); ++i)
    if (call.out[i].numel() > 0) std::memset(call.out[i].raw(), 0, call.out[i].nbytes());
  const auto& st = call.state_as<AttnState>();
  if (st.lse_stride > 0 && call.out[1].numel() > 0) {  // efficient: padded rows hold +inf
    const Tensor& lse = call.out[1];
    if (lse.dtype == DType::F64) std::fill_n(lse.data<double>(), lse.numel(), std::numeric_limits<double>::infinity());
    else std::fill_n(lse.data<float>(), lse.numel(), std::numeric_limits<float>::infinity());
  }
  attn_run(call);
}

}  // namespace

TIR_REGISTER_OPS(
    // _scaled_dot_product_efficient_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_bias,
    //   bool compute_log_sumexp, float dropout_p=0., bool is_causal=False, *, float? scale=None)
    //   -> (Tensor output, Tensor log_sumexp, Tensor philox_seed, Tensor philox_offset)
    {"aten._scaled_dot_product_efficient_attention.default", {plan_efficient, run_variant}},
    // _scaled_dot_product_cudnn_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_bias,
    //   bool compute_log_sumexp, float dropout_p=0., bool is_causal=False, bool return_debug_mask=False, *,
    //   float? scale=None) -> (Tensor output, Tensor logsumexp, Tensor cum_seq_q, Tensor cum_seq_k,
    //   SymInt max_q, SymInt max_k, Tensor philox_seed, Tensor philox_offset, Tensor debug_attn_mask)
    {"aten._scaled_dot_product_cudnn_attention.default", {plan_cudnn, run_variant}});

}  // namespace tir
