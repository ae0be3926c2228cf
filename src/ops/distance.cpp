// Pairwise p-norm distances: cdist / _cdist_forward (batched, batch dims
// broadcast), _pdist_forward and pdist. The kernel (kernels/distance.h) always sums
// the coordinate differences directly, also where torch's compute_mode would
// take the |x|^2 + |y|^2 - 2 x.y matrix-multiplication path for p = 2: the
// direct sum has no cancellation, so it is at least as accurate (compute_mode
// is checked, then changes nothing but that accuracy).
#include <cmath>
#include <memory>
#include <string>

#include "kernels/distance.h"
#include "kernels/elementwise.h"
#include "ops/common.h"
#include "ops/float_compute.h"
#include "ops/op.h"

namespace tir {
namespace {

double norm_p(const OpCall& call, const std::string& op) {
  const double p = call.f("p", 2.0);
  call.check(p >= 0.0, op + " only supports non-negative p values, got " + std::to_string(p));
  return p;
}

struct CdistState {
  double p = 2;
  DType cd = DType::F32;
  Shape batch;
  int64_t P = 0, R = 0, M = 0;
};

// aten::cdist(Tensor x1, Tensor x2, float p=2., int? compute_mode=None)
// aten::_cdist_forward(Tensor x1, Tensor x2, float p, int? compute_mode)
void plan_cdist(OpCall& call) {
  call.expect_inputs(2, 2);
  const Tensor &a = call.in[0], &b = call.in[1];
  auto st = std::make_shared<CdistState>();
  st->cd = fc::float_compute(call, a.dtype, "cdist x1");
  fc::float_compute(call, b.dtype, "cdist x2");
  call.check(a.dtype == b.dtype, std::string("cdist: x1 and x2 must have the same dtype, got ") + dtype_name(a.dtype) +
                                     " and " + dtype_name(b.dtype));
  call.check(a.dim() >= 2 && b.dim() >= 2, "cdist only supports at least 2-D tensors, got x1 " +
                                               shape_to_string(a.shape) + " and x2 " + shape_to_string(b.shape));
  call.check(a.shape.back() == b.shape.back(), "cdist: x1 and x2 must have the same number of columns, got x1 " +
                                                   shape_to_string(a.shape) + " and x2 " + shape_to_string(b.shape));
  st->p = norm_p(call, "cdist");
  if (call.has("compute_mode")) {
    const int64_t m = call.i("compute_mode");
    call.check(m >= 0 && m <= 2, "cdist: compute_mode must be None, 0, 1 or 2, got " + std::to_string(m));
  }
  const Shape ba(a.shape.begin(), a.shape.end() - 2), bb(b.shape.begin(), b.shape.end() - 2);
  const auto batch = broadcast_shapes(ba, bb);
  call.check(batch.has_value(), "cdist: batch dimensions " + shape_to_string(ba) + " and " + shape_to_string(bb) +
                                    " cannot be broadcast");
  st->batch = *batch;
  st->P = a.shape[a.shape.size() - 2], st->R = b.shape[b.shape.size() - 2], st->M = a.shape.back();
  Shape os = st->batch;
  os.push_back(st->P);
  os.push_back(st->R);
  call.fresh(0, a.dtype, os);
  call.state = st;
}

void run_cdist(OpCall& call) {
  const auto& st = call.state_as<CdistState>();
  Shape sa = st.batch, sb = st.batch;
  sa.insert(sa.end(), {st.P, st.M});
  sb.insert(sb.end(), {st.R, st.M});
  const Tensor a = fc::dense(broadcast_view(fc::dense(call.in[0], st.cd), sa), st.cd);
  const Tensor b = fc::dense(broadcast_view(fc::dense(call.in[1], st.cd), sb), st.cd);
  const int64_t nb = shape_numel(st.batch);
  fc::dispatch_fd(st.cd, [&](auto tag) {
    using T = decltype(tag);
    fc::into<T>(call.out[0], st.cd, [&](T* o) {
      for (int64_t k = 0; k < nb; ++k)
        cdist_rows<T>(st.P, st.R, st.M, st.p, a.data<T>() + k * st.P * st.M, b.data<T>() + k * st.R * st.M,
                      o + k * st.P * st.R);
    });
  });
}

struct PdistState {
  double p = 2;
  DType cd = DType::F32;
  int64_t N = 0, M = 0;
};

// aten::_pdist_forward(Tensor self, float p=2.), aten::pdist(Tensor input, float p=2.)
void plan_pdist(OpCall& call) {
  call.expect_inputs(1, 1);
  const Tensor& x = call.in[0];
  auto st = std::make_shared<PdistState>();
  st->cd = fc::float_compute(call, x.dtype, "pdist input");
  call.check(x.dim() == 2, "pdist only supports 2-D tensors, got " + shape_to_string(x.shape));
  st->p = norm_p(call, "pdist");
  st->N = x.shape[0], st->M = x.shape[1];
  call.fresh(0, x.dtype, {st->N > 1 ? st->N * (st->N - 1) / 2 : 0});
  call.state = st;
}

void run_pdist(OpCall& call) {
  const auto& st = call.state_as<PdistState>();
  const Tensor x = fc::dense(call.in[0], st.cd);
  fc::dispatch_fd(st.cd, [&](auto tag) {
    using T = decltype(tag);
    fc::into<T>(call.out[0], st.cd, [&](T* o) { pdist_rows<T>(st.N, st.M, st.p, x.data<T>(), o); });
  });
}

}  // namespace

TIR_REGISTER_OPS({"aten.cdist.default", {plan_cdist, run_cdist}},
                 {"aten._cdist_forward.default", {plan_cdist, run_cdist}},
                 {"aten._pdist_forward.default", {plan_pdist, run_pdist}},
                 {"aten.pdist.default", {plan_pdist, run_pdist}});  // F.pdist in the training IR

}  // namespace tir
