// Scaled dot-product attention: scaled_dot_product_attention and the CPU flash
// form that core/decomposed exports use (docs/spec/OPS.md §3.6, §1.8). Both run the same
// per-(batch, head) kernel; batch dims broadcast, inputs may be strided views.
#include <cmath>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "core/thread_pool.h"
#include "kernels/attention.h"
#include "kernels/parallel.h"
#include "ops/attention_util.h"
#include "ops/common.h"
#include "ops/elementwise_util.h"
#include "ops/op.h"

namespace tir {
namespace {

enum Operand { kQ, kK, kV, kMask, kNumOperands };

// Where each (batch, head) slice of an operand starts: the operand's strides
// over the output batch dims (0 where broadcast) and, for GQA-repeated kv
// heads, a divisor on the head index (query head h reads kv head h / div).
struct BatchLayout {
  Shape batch;  // output batch dims
  int64_t L = 0, S = 0, E = 0, Ev = 0;
  Strides stride[kNumOperands];
  std::vector<int64_t> div[kNumOperands];
  int64_t mask_rs = 0, mask_cs = 0;  // mask strides over [L, S]
};

Shape leading(const Shape& s, size_t drop) { return Shape(s.begin(), s.end() - int64_t(drop)); }

// Strides of `t` (batch dims = all but the last two) over `batch`, right-aligned.
void align_batch(const Tensor& t, const Shape& batch, int64_t head_div, Strides* stride, std::vector<int64_t>* div) {
  const size_t nb = batch.size(), tb = size_t(t.dim()) - 2, lead = nb - tb;
  stride->assign(nb, 0);
  div->assign(nb, 1);
  for (size_t d = 0; d < tb; ++d)
    if (t.shape[d] != 1 || batch[lead + d] == 1) (*stride)[lead + d] = t.strides[d];
  if (head_div > 1) (*div)[nb - 1] = head_div;  // the head dim is the last batch dim
}

// Shapes and batch layout of q [..., L, E], k [..., S, E], v [..., S, Ev] and an
// optional mask broadcastable to [..., L, S]; fails with torch-like messages.
BatchLayout layout_of(const OpCall& call, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* mask,
                      bool gqa) {
  call.check(q.dim() >= 2 && k.dim() >= 2 && v.dim() >= 2,
             "expected query, key, and value to all be at least 2 dimensional, got query " + shape_to_string(q.shape) +
                 ", key " + shape_to_string(k.shape) + ", value " + shape_to_string(v.shape));
  BatchLayout lay;
  lay.L = q.size(-2);
  lay.E = q.size(-1);
  lay.S = k.size(-2);
  lay.Ev = v.size(-1);
  call.check(k.size(-1) == lay.E, "key's last dim " + std::to_string(k.size(-1)) + " must equal query's " +
                                      std::to_string(lay.E) + " (query " + shape_to_string(q.shape) + ", key " +
                                      shape_to_string(k.shape) + ")");
  call.check(v.size(-2) == lay.S, "value's sequence length " + std::to_string(v.size(-2)) + " must equal key's " +
                                      std::to_string(lay.S) + " (key " + shape_to_string(k.shape) + ", value " +
                                      shape_to_string(v.shape) + ")");
  const Shape qb = leading(q.shape, 2);
  Shape kvb[2] = {leading(k.shape, 2), leading(v.shape, 2)};
  int64_t head_div[2] = {1, 1};
  // enable_gqa: k/v heads (dim -3) repeat_interleave'd up to the query's.
  for (int i = 0; i < 2 && gqa && !qb.empty(); ++i) {
    Shape& b = kvb[i];
    if (b.empty() || b.back() == qb.back()) continue;
    const int64_t hq = qb.back(), hkv = b.back();
    call.check(hkv > 0 && hq % hkv == 0, "enable_gqa: the number of query heads (" + std::to_string(hq) +
                                             ") must be a multiple of the " + (i ? "value" : "key") +
                                             " heads (" + std::to_string(hkv) + ")");
    head_div[i] = hq / hkv;
    b.back() = hq;
  }
  auto b1 = broadcast_shapes(qb, kvb[0]);
  auto b2 = b1 ? broadcast_shapes(*b1, kvb[1]) : std::nullopt;
  if (!b2)
    call.fail("batch dims of query " + shape_to_string(q.shape) + ", key " + shape_to_string(k.shape) +
              " and value " + shape_to_string(v.shape) + " cannot be broadcast" +
              (gqa ? "" : " (different head counts need enable_gqa)"));
  lay.batch = *b2;
  align_batch(q, lay.batch, 1, &lay.stride[kQ], &lay.div[kQ]);
  align_batch(k, lay.batch, head_div[0], &lay.stride[kK], &lay.div[kK]);
  align_batch(v, lay.batch, head_div[1], &lay.stride[kV], &lay.div[kV]);
  if (mask) {
    Shape full = lay.batch;
    full.push_back(lay.L);
    full.push_back(lay.S);
    auto mb = broadcast_shapes(mask->shape, full);
    call.check(mb && *mb == full, "attn_mask of shape " + shape_to_string(mask->shape) +
                                      " does not broadcast to the attention scores' shape " + shape_to_string(full));
    const Strides st = broadcast_strides(*mask, full);
    lay.stride[kMask] = Strides(st.begin(), st.end() - 2);
    lay.div[kMask].assign(lay.batch.size(), 1);
    lay.mask_rs = st[st.size() - 2];
    lay.mask_cs = st[st.size() - 1];
  }
  return lay;
}

}  // namespace

// Checks shared by the attention ops; parses scale/causal into the state.
std::shared_ptr<AttnState> attn_plan_common(OpCall& call, int mask_idx, bool gqa) {
  const Tensor &q = call.in[0], &k = call.in[1], &v = call.in[2];
  auto st = std::make_shared<AttnState>();
  st->dtype = compute_dtype(q.dtype);
  call.check(is_floating(st->dtype), std::string("attention is not implemented for dtype ") + dtype_name(q.dtype));
  call.check(compute_dtype(k.dtype) == st->dtype && compute_dtype(v.dtype) == st->dtype,
             std::string("expected query, key, and value to have the same dtype, got query ") + dtype_name(q.dtype) +
                 ", key " + dtype_name(k.dtype) + ", value " + dtype_name(v.dtype));
  const double dropout = call.f("dropout_p", 0.0);
  call.check(dropout == 0.0, "dropout_p=" + std::to_string(dropout) +
                                 " is random and cannot be reproduced; export the model in eval mode (dropout_p=0)");
  st->causal = call.b("is_causal", false);
  st->gqa = gqa;
  const Tensor* mask = mask_idx >= 0 && size_t(mask_idx) < call.in.size() ? &call.in[size_t(mask_idx)] : nullptr;
  st->has_mask = mask != nullptr;
  if (mask)
    call.check(mask->dtype == DType::Bool || is_floating(mask->dtype),
               std::string("expected attn_mask dtype to be bool or float, got ") + dtype_name(mask->dtype));
  const BatchLayout lay = layout_of(call, q, k, v, mask, gqa);
  // torch: 1/sqrt(E) in double, then cast to the compute type.
  st->scale = call.has("scale") ? call.f("scale") : 1.0 / std::sqrt(double(lay.E));
  Shape out = lay.batch;
  out.push_back(lay.L);
  out.push_back(lay.Ev);
  call.fresh(0, st->dtype, out);
  return st;
}

namespace {

// Per-thread scores buffer (kept across runs, so run() does not allocate once warm). At
// namespace scope rather than a function-local `static thread_local`: LeakSanitizer reported
// the function-local one, filled on pool workers, as leaked after the workers were joined.
thread_local std::vector<float> t_work_f32;
thread_local std::vector<double> t_work_f64;
template <typename T>
std::vector<T>& attention_scratch() {
  if constexpr (std::is_same_v<T, float>) return t_work_f32;
  else return t_work_f64;
}

template <typename T>
void run_typed(OpCall& call, const AttnState& st) {
  const Tensor q = ew::as_dtype(call.in[0], st.dtype);
  const Tensor k = ew::as_dtype(call.in[1], st.dtype);
  const Tensor v = ew::as_dtype(call.in[2], st.dtype);
  Tensor mask;
  if (st.has_mask) mask = call.in[3].dtype == DType::Bool ? call.in[3] : ew::as_dtype(call.in[3], st.dtype);
  const BatchLayout lay = layout_of(call, q, k, v, st.has_mask ? &mask : nullptr, st.gqa);
  const Tensor* ops[kNumOperands] = {&q, &k, &v, st.has_mask ? &mask : nullptr};

  AttnHead<T> h;
  h.L = lay.L;
  h.S = lay.S;
  h.E = lay.E;
  h.Ev = lay.Ev;
  h.causal = st.causal;
  h.scale = T(st.scale);
  h.ldo = lay.Ev;
  h.q = {nullptr, q.strides[size_t(q.dim() - 2)], q.strides[size_t(q.dim() - 1)]};
  h.k = {nullptr, k.strides[size_t(k.dim() - 2)], k.strides[size_t(k.dim() - 1)]};
  h.v = {nullptr, v.strides[size_t(v.dim() - 2)], v.strides[size_t(v.dim() - 1)]};
  h.mask.row_stride = lay.mask_rs;
  h.mask.col_stride = lay.mask_cs;
  const bool lse = st.want_lse && call.out.size() > 1;

  const int64_t heads = shape_numel(lay.batch);
  const size_t nb = lay.batch.size();
  // One (batch, head) slice, start to end, on the calling thread.
  auto run_head = [&](int64_t b, std::vector<T>& work) {
    AttnHead<T> hb = h;
    // Element offset of this slice in each operand (batch index b, last dim fastest).
    int64_t off[kNumOperands] = {0, 0, 0, 0};
    for (size_t d = nb, rest = size_t(b); d-- > 0;) {
      const int64_t i = int64_t(rest % size_t(lay.batch[d]));
      rest /= size_t(lay.batch[d]);
      for (int o = 0; o < kNumOperands; ++o)
        if (ops[o]) off[o] += i / lay.div[o][d] * lay.stride[o][d];
    }
    hb.q.data = q.data<T>() + off[kQ];
    hb.k.data = k.data<T>() + off[kK];
    hb.v.data = v.data<T>() + off[kV];
    if (st.has_mask) {
      if (mask.dtype == DType::Bool) hb.mask.keep = mask.data<bool>() + off[kMask];
      else hb.mask.add = mask.data<T>() + off[kMask];
    }
    hb.out = call.out[0].data<T>() + b * lay.L * lay.Ev;
    hb.lse = lse ? call.out[1].data<T>() + b * (st.lse_stride > 0 ? st.lse_stride : lay.L) : nullptr;
    if constexpr (std::is_same_v<T, float>) attention_head_f32(hb, work);
    else attention_head_f64(hb, work);
  };
  // Heads split across threads when there are enough of them (each head then
  // runs its gemms and softmax inline, with its own scores buffer) and all of them
  // together carry a few tasks' work; otherwise each head's kernels split
  // internally. Results are the same either way. Counting the work of all heads,
  // not one: a short sequence's heads (MiniLM at 48 tokens: 12 heads of 48 x 48 x 32)
  // are each below a task, and their kernels too, so they ran on one thread.
  const int64_t head_work = lay.L * lay.S * (std::max<int64_t>(lay.E, 1) + std::max<int64_t>(lay.Ev, 1));
  if (heads >= num_threads() && num_threads() > 1 && heads * head_work >= 2 * kMinTaskWork) {
    parallel_for_chunks(heads, heads, [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) run_head(b, attention_scratch<T>());  // this worker's buffer
    });
  } else {
    for (int64_t b = 0; b < heads; ++b) run_head(b, attention_scratch<T>());
  }
}

}  // namespace

void attn_run(OpCall& call) {
  const auto& st = call.state_as<AttnState>();
  if (call.out[0].numel() == 0 && !(st.want_lse && call.out.size() > 1)) return;
  if (st.dtype == DType::F32) run_typed<float>(call, st);
  else if (st.dtype == DType::F64) run_typed<double>(call, st);
  else call.fail(std::string("attention is not implemented for dtype ") + dtype_name(st.dtype));
}

namespace {

void plan_sdpa(OpCall& call) {
  call.expect_inputs(3, 4);
  auto st = attn_plan_common(call, 3, call.b("enable_gqa", false));
  call.check(!(st->causal && st->has_mask), "explicit attn_mask should not be set when is_causal=True");
  call.state = st;
}

void plan_flash_cpu(OpCall& call) {
  call.expect_inputs(3, 4);
  // attn_mask is keyword-only (docs/spec/OPS.md §1.8): a 4th input when present; a string attr
  // naming a value must have been resolved into that input by the loader.
  if (const Attr* a = call.attr("attn_mask"); a && call.in.size() < 4) {
    if (a->kind == Attr::Kind::String)
      call.fail("attn_mask names tensor '" + a->s + "', but the node has no 4th input carrying it");
    call.fail("attn_mask attribute " + a->to_string() + " is not a tensor");
  }
  for (size_t i = 0; i < 3; ++i)
    call.check(call.in[i].dim() == 4, "expects 4-D [B, H, L, E] query, key and value, got " +
                                          shape_to_string(call.in[i].shape));
  // The CPU flash kernel maps query head h to kv head h / (Hq / Hkv).
  auto st = attn_plan_common(call, 3, true);
  st->want_lse = call.num_ir_outputs() != 1;
  if (st->want_lse) {
    const Shape& o = call.out[0].shape;
    call.fresh(1, st->dtype, {o[0], o[1], o[2]});
  }
  call.state = st;
}

// The 2.1-era flash form: no mask, no GQA. Tensor outputs follow the schema
// (SymInts dropped): output, logsumexp, then cum_seq_q, cum_seq_k, rng_state,
// unused, debug_attn_mask, which torch's CPU kernel leaves empty; they come
// out as empty [0] tensors of the IR's dtype (nothing reads them).
void plan_flash(OpCall& call) {
  call.expect_inputs(3, 3);
  for (size_t i = 0; i < 3; ++i)
    call.check(call.in[i].dim() == 4, "expects 4-D [B, H, L, E] query, key and value, got " +
                                          shape_to_string(call.in[i].shape));
  call.check(!call.b("return_debug_mask", false), "return_debug_mask=True is not supported (CUDA-only debug output)");
  auto st = attn_plan_common(call, -1, false);
  const size_t n_out = call.num_ir_outputs();
  st->want_lse = n_out > 1;
  if (st->want_lse) {
    const Shape& o = call.out[0].shape;
    call.fresh(1, st->dtype, {o[0], o[1], o[2]});
  }
  for (size_t i = 2; i < n_out; ++i) call.fresh(i, call.node->outputs[i].dtype, {0});
  call.state = st;
}

}  // namespace

TIR_REGISTER_OPS(
    // scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None,
    //   float dropout_p=0., bool is_causal=False, *, float? scale=None, bool enable_gqa=False) -> Tensor
    {"aten.scaled_dot_product_attention.default", {plan_sdpa, attn_run}},
    // _scaled_dot_product_flash_attention_for_cpu(Tensor query, Tensor key, Tensor value,
    //   float dropout_p=0., bool is_causal=False, *, Tensor? attn_mask=None, float? scale=None)
    //   -> (Tensor output, Tensor logsumexp)
    {"aten._scaled_dot_product_flash_attention_for_cpu.default", {plan_flash_cpu, attn_run}},
    // _scaled_dot_product_flash_attention(Tensor query, Tensor key, Tensor value, float dropout_p=0.,
    //   bool is_causal=False, bool return_debug_mask=False, *, float? scale=None)
    //   -> (Tensor output, Tensor logsumexp, Tensor cum_seq_q, Tensor cum_seq_k, SymInt max_q,
    //       SymInt max_k, Tensor rng_state, Tensor unused, Tensor debug_attn_mask)
    {"aten._scaled_dot_product_flash_attention.default", {plan_flash, attn_run}});

}  // namespace tir
