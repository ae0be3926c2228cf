// Fourier transforms: _fft_r2c / _fft_c2r / _fft_c2c (what torch.fft.* and the
// decomposed torch.stft lower to) and stft.default (training-flavor IR keeps
// torch.stft whole). Any length (kernels/fft.h: mixed radix + Bluestein,
// computed in double). normalization: 0 none, 1 by 1/sqrt(n), 2 by 1/n, n being
// the product of the signal sizes. Plans (twiddles: they depend on the shapes
// only) and line buffers are made once at plan time; run allocates nothing but
// the line iteration.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "core/checked.h"
#include "kernels/fft.h"
#include "ops/op.h"

namespace tir {
namespace {

enum class Kind { R2C, C2R, C2C, Stft };

struct FftState {
  Kind kind;
  std::vector<int64_t> dims;       // signal dims; the last one is the r2c/c2r dim
  std::vector<int64_t> sizes;      // transform length per dim (full, logical)
  bool forward = true;
  double scale = 1;
  int64_t hop = 1;                 // stft
  bool squeeze_batch = false;      // stft of a 1-d signal
  std::vector<FftPlan> plans;      // one per dim
  std::vector<cd> buf;             // line buffer
  Tensor tmp;                      // c2r: the input after the c2c passes
};

DType complex_of(DType d) { return d == DType::F64 ? DType::C128 : DType::C64; }
DType real_of(DType d) { return d == DType::C128 ? DType::F64 : DType::F32; }

double norm_scale(OpCall& call, int64_t mode, int64_t n) {
  call.check(mode >= 0 && mode <= 2, "normalization must be 0 (none), 1 (by sqrt(n)) or 2 (by n), got " +
                                         std::to_string(mode));
  if (mode == 0 || n == 0) return 1;
  return mode == 1 ? 1.0 / std::sqrt(double(n)) : 1.0 / double(n);
}

// Wraps and checks the dim list: non-empty, distinct, every signal size > 0.
std::vector<int64_t> signal_dims(OpCall& call, const Tensor& self) {
  std::vector<int64_t> dims = call.ints("dim");
  call.check(!dims.empty(), "needs at least one dim to transform");
  call.check(self.dim() > 0, "cannot transform a 0-d tensor");
  for (int64_t& d : dims) d = call.wrap_dim(d, self.dim());
  std::vector<int64_t> sorted = dims;
  std::sort(sorted.begin(), sorted.end());
  call.check(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end(), "dims must be distinct");
  return dims;
}

void check_sizes(OpCall& call, const std::vector<int64_t>& sizes) {
  for (int64_t n : sizes)
    call.check(n > 0, "Invalid number of data points (" + std::to_string(n) + ") specified");
}

// The twiddles and buffers of every transform length (after the plan_* checks).
void make_plans(OpCall& call, FftState& st) {
  st.plans.clear();
  int64_t buf = 0;
  for (int64_t n : st.sizes) {
    st.plans.push_back(make_fft_plan(n, !st.forward));
    buf = std::max(buf, fft_line_buffer(st.plans.back()));
  }
  st.buf.assign(size_t(buf), cd(0, 0));
  if (st.kind == Kind::C2R && st.dims.size() > 1) st.tmp = make_owned(call.in[0].dtype, call.in[0].shape);
}

void plan_r2c(OpCall& call) {
  call.expect_inputs(1, 1);
  const Tensor& self = call.in[0];
  call.check(self.dtype == DType::F32 || self.dtype == DType::F64,
             std::string("expects a float32 or float64 input, got ") + dtype_name(self.dtype));
  auto st = std::make_shared<FftState>();
  st->kind = Kind::R2C;
  st->dims = signal_dims(call, self);
  int64_t total = 1;
  for (int64_t d : st->dims) st->sizes.push_back(self.shape[size_t(d)]), total *= self.shape[size_t(d)];
  check_sizes(call, st->sizes);
  st->scale = norm_scale(call, call.i("normalization"), total);
  Shape out = self.shape;
  const int64_t last = st->dims.back();
  if (call.b("onesided")) out[size_t(last)] = out[size_t(last)] / 2 + 1;
  call.fresh(0, complex_of(self.dtype), out);
  make_plans(call, *st);
  call.state = st;
}

void plan_c2c(OpCall& call) {
  call.expect_inputs(1, 1);
  const Tensor& self = call.in[0];
  call.check(is_complex(self.dtype), std::string("expects a complex input, got ") + dtype_name(self.dtype));
  auto st = std::make_shared<FftState>();
  st->kind = Kind::C2C;
  st->dims = signal_dims(call, self);
  int64_t total = 1;
  for (int64_t d : st->dims) st->sizes.push_back(self.shape[size_t(d)]), total *= self.shape[size_t(d)];
  check_sizes(call, st->sizes);
  st->scale = norm_scale(call, call.i("normalization"), total);
  st->forward = call.b("forward");
  call.fresh(0, self.dtype, self.shape);
  make_plans(call, *st);
  call.state = st;
}

void plan_c2r(OpCall& call) {
  call.expect_inputs(1, 1);
  const Tensor& self = call.in[0];
  call.check(is_complex(self.dtype), std::string("expects a complex input, got ") + dtype_name(self.dtype));
  auto st = std::make_shared<FftState>();
  st->kind = Kind::C2R;
  st->forward = false;
  st->dims = signal_dims(call, self);
  const int64_t last = st->dims.back(), n = call.i("last_dim_size");
  call.check(n >= 1, "Invalid number of data points (" + std::to_string(n) + ") specified");
  int64_t total = 1;
  for (int64_t d : st->dims) {
    const int64_t s = d == last ? n : self.shape[size_t(d)];
    st->sizes.push_back(s);
    total = checked_mul(total, s, "fft signal size");
  }
  check_sizes(call, st->sizes);
  call.check(self.shape[size_t(last)] >= 1, "needs at least one input bin along the last dim");
  st->scale = norm_scale(call, call.i("normalization"), total);
  Shape out = self.shape;
  out[size_t(last)] = n;
  call.fresh(0, real_of(self.dtype), out);
  make_plans(call, *st);
  call.state = st;
}

// stft(Tensor self, int n_fft, int? hop_length, int? win_length, Tensor? window,
//      bool normalized=False, bool? onesided=None, bool? return_complex=None)
void plan_stft(OpCall& call) {
  call.expect_inputs(1, 2);
  const Tensor& self = call.in[0];
  call.check(self.dtype == DType::F32 || self.dtype == DType::F64,
             std::string("stft of a ") + dtype_name(self.dtype) + " signal is not supported (float32/float64 only)");
  call.check(self.dim() == 1 || self.dim() == 2, "expected a 1D or 2D tensor, got " + std::to_string(self.dim()) + "D");
  auto st = std::make_shared<FftState>();
  st->kind = Kind::Stft;
  const int64_t n_fft = call.i("n_fft");
  st->hop = call.i("hop_length", n_fft / 4);
  const int64_t win_length = call.i("win_length", n_fft);
  const int64_t len = self.shape.back();
  call.check(n_fft > 0 && n_fft <= len, "expected 0 < n_fft <= " + std::to_string(len) + ", got n_fft=" +
                                            std::to_string(n_fft));
  call.check(st->hop > 0, "expected hop_length > 0, got " + std::to_string(st->hop));
  call.check(win_length > 0 && win_length <= n_fft,
             "expected 0 < win_length <= n_fft, got win_length=" + std::to_string(win_length));
  if (call.in.size() == 2 && call.in[1].defined()) {
    const Tensor& w = call.in[1];
    call.check(w.dtype == DType::F32 || w.dtype == DType::F64,
               std::string("a ") + dtype_name(w.dtype) + " window is not supported (float32/float64 only)");
    call.check(w.dim() == 1 && w.shape[0] == win_length,
               "expected a 1D window tensor of size equal to win_length=" + std::to_string(win_length) +
                   ", got window with size " + shape_to_string(w.shape));
  }
  const bool onesided = call.b("onesided", true);
  const bool ret_complex = call.b("return_complex", false);
  st->scale = call.b("normalized", false) ? 1.0 / std::sqrt(double(n_fft)) : 1.0;
  st->sizes = {n_fft};
  st->squeeze_batch = self.dim() == 1;
  Shape out;
  if (!st->squeeze_batch) out.push_back(self.shape[0]);
  out.push_back(onesided ? n_fft / 2 + 1 : n_fft);
  out.push_back(1 + (len - n_fft) / st->hop);
  if (ret_complex) {
    call.fresh(0, complex_of(self.dtype), out);
  } else {
    out.push_back(2);
    call.fresh(0, self.dtype, out);
  }
  make_plans(call, *st);
  call.state = st;
}

void run_fft(OpCall& call) {
  auto& st = call.state_as<FftState>();
  const Tensor& in = call.in[0];
  const Tensor& out = call.out[0];
  if (out.numel() == 0) return;
  cd* buf = st.buf.data();
  const size_t nd = st.dims.size();
  switch (st.kind) {
    case Kind::R2C:
      // r2c along the last dim, then c2c in place along the others.
      fft_r2c_lines(in, out, st.dims[nd - 1], st.plans[nd - 1], st.scale, buf);
      for (size_t k = 0; k + 1 < nd; ++k) fft_c2c_lines(out, out, st.dims[k], st.plans[k], 1.0, buf);
      break;
    case Kind::C2C:
      for (size_t k = 0; k < nd; ++k)
        fft_c2c_lines(k == 0 ? in : out, out, st.dims[k], st.plans[k], k == 0 ? st.scale : 1.0, buf);
      break;
    case Kind::C2R: {
      // c2c along every dim but the last (into a copy: the input stays as it is), then c2r.
      Tensor src = in;
      for (size_t k = 0; k + 1 < nd; ++k) {
        fft_c2c_lines(src, st.tmp, st.dims[k], st.plans[k], 1.0, buf);
        src = st.tmp;
      }
      fft_c2r_lines(src, out, st.dims[nd - 1], st.plans[nd - 1], st.scale, buf);
      break;
    }
    case Kind::Stft: {
      Tensor x = in, o = is_complex(out.dtype) ? out : real_as_complex(out);
      if (st.squeeze_batch) {
        x = x.view_as({1, x.shape[0]}, {0, x.strides[0]}, x.offset);
        o = o.view_as({1, o.shape[0], o.shape[1]}, {0, o.strides[0], o.strides[1]}, o.offset);
      }
      const Tensor window = call.in.size() == 2 ? call.in[1] : Tensor();
      stft_lines(x, window, o, st.hop, st.plans[0], st.scale, buf);
      break;
    }
  }
}

OpDef fft_def(void (*plan)(OpCall&)) { return {plan, run_fft, nullptr}; }

}  // namespace

TIR_REGISTER_OPS(
    // _fft_r2c(Tensor self, int[] dim, int normalization, bool onesided) -> Tensor
    {"aten._fft_r2c.default", fft_def(plan_r2c)},
    // _fft_c2r(Tensor self, int[] dim, int normalization, SymInt last_dim_size) -> Tensor
    {"aten._fft_c2r.default", fft_def(plan_c2r)},
    // _fft_c2c(Tensor self, SymInt[] dim, int normalization, bool forward) -> Tensor
    {"aten._fft_c2c.default", fft_def(plan_c2c)},
    // stft(Tensor self, int n_fft, int? hop_length=None, int? win_length=None, Tensor? window=None,
    //      bool normalized=False, bool? onesided=None, bool? return_complex=None) -> Tensor
    {"aten.stft.default", fft_def(plan_stft)});

}  // namespace tir
