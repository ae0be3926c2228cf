// Higher-order ops whose body graph is NOT serialized in the IR
// (docs/spec/IR_FORMAT.md "What real exports contain", docs/spec/OPS.md §4):
//   torch.ops.higher_order.wrap_with_set_grad_enabled(bool enable_grad, GraphModule body, *Tensor operands)
//   torch.ops.higher_order.wrap_with_autocast(str device_type, ScalarType? dtype, bool enabled,
//       bool? cache_enabled, GraphModule body, *Tensor operands)
// Only the operands and outputs survive. In HF LLaMA/Qwen/Mistral exports the body is the rotary
// embedding; we recognize it by shapes and run it, and reject anything else at compile time.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "ops/elementwise_util.h"
#include "ops/op.h"
#include "ops/webgpu.h"

namespace tir {
namespace {

struct RopeState {
  int inv = 0, pos = 1;
  int64_t B = 0, S = 0, H = 0;  // outputs [B, S, 2H]
  bool inv_per_batch = false;   // inv_freq given expanded to [B, H, 1]
  DType out_dt[2];
};

std::string operand_list(const OpCall& call) {
  std::string s;
  for (size_t k = 0; k < call.in.size(); ++k)
    s += (k ? ", " : "") + std::string(dtype_name(call.in[k].dtype)) + shape_to_string(call.in[k].shape);
  return s.empty() ? "none" : s;
}

std::string output_list(const OpCall& call) {
  std::string s;
  for (size_t k = 0; k < call.node->outputs.size(); ++k)
    s += (k ? ", " : "") + std::string(dtype_name(call.node->outputs[k].dtype)) +
         shape_to_string(call.node->outputs[k].shape);
  return s.empty() ? "none" : s;
}

[[noreturn]] void unsupported(const OpCall& call, const std::string& why) {
  call.fail("the body of higher-order op '" + call.node->op_type +
            "' is not in the IR file, so only the HF rotary-embedding pattern can run (operands inv_freq [D/2] "
            "and position ids [B,S] or [B,1,S] -> outputs cos, sin [B,S,D]); " + why + ". Operands: " +
            operand_list(call) + "; outputs: " + output_list(call));
}

bool name_has(const OpCall& call, int k, const char* what) {
  return size_t(k) < call.node->inputs.size() && call.node->inputs[size_t(k)].name.find(what) != std::string::npos;
}

void plan_rope(OpCall& call) {
  if (call.in.size() != 2) unsupported(call, "expected 2 operands, got " + std::to_string(call.in.size()));
  const auto& outs = call.node->outputs;
  if (outs.size() != 2) unsupported(call, "expected 2 outputs, got " + std::to_string(outs.size()));
  const Shape& os = outs[0].shape;
  if (os.size() != 3 || outs[1].shape != os || os[2] % 2 != 0)
    unsupported(call, "the outputs are not two equal [B,S,D] shapes with even D");
  auto st = std::make_shared<RopeState>();
  st->B = os[0], st->S = os[1], st->H = os[2] / 2;
  for (int k = 0; k < 2; ++k) {
    st->out_dt[k] = compute_dtype(outs[size_t(k)].dtype);
    if (!is_floating(st->out_dt[k])) unsupported(call, "the outputs are not floating point");
  }
  // inv_freq: [H], or expanded [B,H,1] / [1,H,1]; positions: B*S values ([B,S], [B,1,S], ...).
  auto fits = [&](int inv, int pos) {
    const Tensor& f = call.in[size_t(inv)];
    const int64_t n = f.numel();
    return is_floating(compute_dtype(f.dtype)) && (n == st->H || n == st->B * st->H) &&
           call.in[size_t(pos)].numel() == st->B * st->S;
  };
  // When both orders fit by size (e.g. B=1, S=H), the name, then the layout decides:
  // inv_freq is [H] or [.., H, 1], positions end in S.
  auto layout = [&](int inv, int pos) {
    const Shape& f = call.in[size_t(inv)].shape;
    const Shape& p = call.in[size_t(pos)].shape;
    const bool f_ok = (f.size() == 1 && f[0] == st->H) || (f.size() == 3 && f[1] == st->H && f[2] == 1);
    return fits(inv, pos) && f_ok && !p.empty() && p.back() == st->S;
  };
  if (name_has(call, 1, "inv_freq") && fits(1, 0)) st->inv = 1;
  else if (name_has(call, 0, "inv_freq") && fits(0, 1)) st->inv = 0;
  else if (layout(0, 1)) st->inv = 0;
  else if (layout(1, 0)) st->inv = 1;
  else if (fits(0, 1)) st->inv = 0;
  else if (fits(1, 0)) st->inv = 1;
  else unsupported(call, "the operand shapes do not match inv_freq [D/2] and positions [B,S]");
  st->pos = 1 - st->inv;
  st->inv_per_batch = call.in[size_t(st->inv)].numel() != st->H;
  for (int k = 0; k < 2; ++k) call.fresh(size_t(k), st->out_dt[k], os);
  call.state = st;
}

// The angles (type A) in float32, as HF computes freqs; in float64 where inv_freq is float64 too
// and the output is (a float64 run, SessionOptions::float64, whose point is to be the more exact
// one). T: the output's type.
template <typename T, typename A> void write_rope(T* cos_out, T* sin_out, const A* f, int64_t B, int64_t S, int64_t H,
                                                  bool per_batch, const A* pos, bool want_cos, bool want_sin) {
  for (int64_t b = 0; b < B; ++b)
    for (int64_t s = 0; s < S; ++s) {
      const A p = pos[b * S + s];
      const int64_t row = (b * S + s) * 2 * H;
      for (int64_t j = 0; j < H; ++j) {
        const A a = p * f[(per_batch ? b * H : 0) + j];
        if (want_cos) cos_out[row + j] = cos_out[row + H + j] = T(std::cos(a));
        if (want_sin) sin_out[row + j] = sin_out[row + H + j] = T(std::sin(a));
      }
    }
}

void run_rope(OpCall& call) {
  auto& st = call.state_as<RopeState>();
  for (int k = 0; k < 2; ++k) {
    const Tensor& o = call.out[size_t(k)];
    const bool f64_angles = o.dtype == DType::F64 && call.in[size_t(st.inv)].dtype == DType::F64;
    const DType at = f64_angles ? DType::F64 : DType::F32;
    const Tensor f = contiguous_or_self(ew::as_dtype(call.in[size_t(st.inv)], at));
    const Tensor p = contiguous_or_self(ew::as_dtype(call.in[size_t(st.pos)], at));
    const bool c = k == 0, sn = k == 1;
    if (f64_angles)
      write_rope(o.data<double>(), o.data<double>(), f.data<double>(), st.B, st.S, st.H, st.inv_per_batch, p.data<double>(), c, sn);
    else if (o.dtype == DType::F64)
      write_rope(o.data<double>(), o.data<double>(), f.data<float>(), st.B, st.S, st.H, st.inv_per_batch, p.data<float>(), c, sn);
    else
      write_rope(o.data<float>(), o.data<float>(), f.data<float>(), st.B, st.S, st.H, st.inv_per_batch, p.data<float>(), c, sn);
  }
}

// On the GPU (rope.wgsl): one dispatch writes both outputs. inv_freq is read through its strides
// ([H], or [B|1, H, 1], batch stride 0 where it is shared); positions are read flat.
bool lower_rope(const OpCall& call, GpuLowering& g) {
  const auto& st = call.state_as<RopeState>();
  const Tensor& f = call.in[size_t(st.inv)];
  const Tensor& p = call.in[size_t(st.pos)];
  const Tensor &cos_out = call.out[0], &sin_out = call.out[1];
  if (cos_out.dtype != DType::F32 || sin_out.dtype != DType::F32 || f.dtype != DType::F32) return false;
  if (!gpu_dense_at_zero(cos_out) || !gpu_dense_at_zero(sin_out) || !p.is_contiguous()) return false;
  if (p.dtype != DType::F32 && p.dtype != DType::I64 && p.dtype != DType::I32) return false;
  if (cos_out.numel() == 0) return true;
  // inv_freq's strides along (batch, j): [H] or an expanded [B|1, H, 1].
  int64_t inv_bs = 0, inv_js = 0;
  if (f.dim() == 1) inv_js = f.strides[0];
  else if (f.dim() == 3) inv_bs = st.inv_per_batch ? f.strides[0] : 0, inv_js = f.strides[1];
  else return false;
  GpuDispatch d;
  d.kernel = "rope";
  d.types = {{"Cos", "f32"}, {"Sin", "f32"}, {"Inv", "f32"}, {"Pos", p.dtype == DType::F32 ? "f32" : "i32"}};
  d.meta.u("rows", st.B * st.S).u("h", st.H).u("s", st.S).u("pos_off", p.offset).u("inv_off", f.offset);
  d.meta.u("inv_bs", inv_bs).u("inv_js", inv_js);
  d.bindings = {cos_out, sin_out, f, p};
  d.written = {0, 1};
  gpu_grid(d, (st.B * st.S * st.H + 63) / 64);
  g.dispatches.push_back(std::move(d));
  return true;
}

}  // namespace

TIR_REGISTER_OPS({"wrap_with_set_grad_enabled", {plan_rope, run_rope}},
                 {"wrap_with_autocast", {plan_rope, run_rope}});
TIR_REGISTER_WEBGPU({"wrap_with_set_grad_enabled", lower_rope}, {"wrap_with_autocast", lower_rope});

}  // namespace tir
