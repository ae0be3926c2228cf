// Ops whose output sizes depend on the data: nonzero, where(condition),
// masked_select (sizes as the IR records them, see ops/datadep_util.h), plus
// masked_scatter (static size, data-dependent reads), and the scalar / assert
// / symbolic-size ops that torch.export writes around them: item,
// _local_scalar_dense, _assert_async, _functional_assert_async,
// _assert_scalar, sym_constrain_range_for_size, sym_size / sym_numel /
// sym_stride / sym_storage_offset. Scalars are not IR values (a node returning
// a Scalar/SymInt has no IR outputs), so those ops only check their operands.
#include <cstring>
#include <string>

#include "core/dispatch.h"
#include "ops/common.h"
#include "ops/datadep_util.h"
#include "ops/op.h"

namespace tir {
namespace {

using namespace datadep;

// Row-major positions (linear indices) of the nonzero elements of t seen with
// (shape, strides): NaN counts as nonzero, as in torch.
std::vector<int64_t> nonzero_positions(const Tensor& t, const Shape& shape, const Strides& strides) {
  const std::vector<int64_t> off = rowmajor_offsets(shape, strides, 0);
  std::vector<int64_t> pos;
  dispatch_compute(t.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* p = t.data<T>();
    for (size_t j = 0; j < off.size(); ++j)
      if (p[off[j]] != T(0)) pos.push_back(int64_t(j));
  });
  return pos;
}

// --- nonzero: int64 [n, ndim] coordinates, row-major ------------------------
void plan_nonzero(OpCall& call) {
  call.expect_inputs(1, 1);
  const Tensor& self = call.in[0];
  call.fresh(0, DType::I64, recorded_shape(call, 0, {kDataDependent, self.dim()}));
}

std::vector<Shape> infer_nonzero(const OpCall& call) {
  const Tensor& self = call.in[0];
  return {{int64_t(nonzero_positions(self, self.shape, self.strides).size()), self.dim()}};
}

void write_coords(const Shape& shape, const std::vector<int64_t>& pos, int64_t* dst, int64_t row_stride,
                  int64_t col_stride) {
  const int64_t nd = int64_t(shape.size());
  for (size_t r = 0; r < pos.size(); ++r) {
    int64_t rem = pos[r];
    for (int64_t d = nd - 1; d >= 0; --d) {
      const int64_t s = shape[size_t(d)];
      dst[int64_t(r) * row_stride + d * col_stride] = rem % s;
      rem /= s;
    }
  }
}

void run_nonzero(OpCall& call) {
  const Tensor& self = call.in[0];
  const auto pos = nonzero_positions(self, self.shape, self.strides);
  check_size(call, 0, 0, int64_t(pos.size()), "nonzero elements");
  write_coords(self.shape, pos, call.out[0].data<int64_t>(), self.dim(), 1);
}

// --- where(condition): nonzero(as_tuple=True), one int64 [n] per dim ---------
// A 0-d condition acts as a 1-element vector (one output).
void plan_where_cond(OpCall& call) {
  call.expect_inputs(1, 1);
  const int64_t nd = std::max<int64_t>(call.in[0].dim(), 1);
  call.check(int64_t(call.num_ir_outputs()) == nd, "the IR lists " + std::to_string(call.num_ir_outputs()) +
                                                       " outputs; where(condition) gives one per dim (" +
                                                       std::to_string(nd) + ")");
  const Shape first = recorded_shape(call, 0, {kDataDependent});
  for (size_t k = 0; k < size_t(nd); ++k) call.fresh(k, DType::I64, recorded_shape(call, k, {first[0]}));
}

std::vector<Shape> infer_where_cond(const OpCall& call) {
  const Tensor& cond = call.in[0];
  const Shape shape = cond.dim() == 0 ? Shape{1} : cond.shape;
  const Strides strides = cond.dim() == 0 ? Strides{1} : cond.strides;
  const int64_t n = int64_t(nonzero_positions(cond, shape, strides).size());
  return std::vector<Shape>(shape.size(), Shape{n});
}

void run_where_cond(OpCall& call) {
  const Tensor& cond = call.in[0];
  const Shape shape = cond.dim() == 0 ? Shape{1} : cond.shape;
  const Strides strides = cond.dim() == 0 ? Strides{1} : cond.strides;
  const auto pos = nonzero_positions(cond, shape, strides);
  check_size(call, 0, 0, int64_t(pos.size()), "nonzero elements");
  // Output d is column d of the [n, ndim] coordinate matrix: write each column
  // through a pointer offset so one pass fills all outputs.
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t* dst = call.out[d].data<int64_t>();
    for (size_t r = 0; r < pos.size(); ++r) {
      int64_t rem = pos[r];
      for (size_t e = shape.size() - 1; e > d; --e) rem /= shape[e];
      dst[r] = rem % shape[d];
    }
  }
}

// --- masked_select: self and mask broadcast; the selected elements, 1-D -----
Shape masked_shape(const OpCall& call, const Tensor& self, const Tensor& mask) {
  call.check(mask.dtype == DType::Bool || mask.dtype == DType::U8,
             std::string("masked_select: expected BoolTensor for mask, got ") + dtype_name(mask.dtype));
  auto b = broadcast_shapes(self.shape, mask.shape);
  call.check(b.has_value(), "the mask " + shape_to_string(mask.shape) + " does not broadcast with self " +
                                shape_to_string(self.shape));
  return *b;
}

void plan_masked_select(OpCall& call) {
  call.expect_inputs(2, 2);
  masked_shape(call, call.in[0], call.in[1]);
  call.fresh(0, call.in[0].dtype, recorded_shape(call, 0, {kDataDependent}));
}

std::vector<Shape> infer_masked_select(const OpCall& call) {
  const Shape shape = masked_shape(call, call.in[0], call.in[1]);
  return {{int64_t(nonzero_positions(call.in[1], shape, broadcast_strides(call.in[1], shape)).size())}};
}

void run_masked_select(OpCall& call) {
  const Tensor &self = call.in[0], &mask = call.in[1], &out = call.out[0];
  const Shape shape = masked_shape(call, self, mask);
  const auto pos = nonzero_positions(mask, shape, broadcast_strides(mask, shape));
  check_size(call, 0, 0, int64_t(pos.size()), "true mask elements");
  const auto src = rowmajor_offsets(shape, broadcast_strides(self, shape), 0);
  const size_t es = dtype_size(self.dtype);
  for (size_t r = 0; r < pos.size(); ++r)
    std::memcpy(out.raw() + r * es, self.raw() + src[size_t(pos[r])] * int64_t(es), es);
}

// --- masked_scatter: self (broadcast with mask) with its masked elements taken
// in order from source's leading elements (row-major) ------------------------
void plan_masked_scatter(OpCall& call) {
  call.expect_inputs(3, 3);
  const Tensor &self = call.in[0], &mask = call.in[1], &source = call.in[2];
  call.check(mask.dtype == DType::Bool || mask.dtype == DType::U8,
             std::string("masked_scatter: expected BoolTensor for mask, got ") + dtype_name(mask.dtype));
  call.check(source.dtype == self.dtype, std::string("masked_scatter: expected self and source to have same "
                                                     "dtypes but got ") + dtype_name(self.dtype) + " and " +
                                             dtype_name(source.dtype));
  auto b = broadcast_shapes(self.shape, mask.shape);
  call.check(b.has_value(), "the mask " + shape_to_string(mask.shape) + " does not broadcast with self " +
                                shape_to_string(self.shape));
  call.fresh(0, self.dtype, *b);
}

void run_masked_scatter(OpCall& call) {
  const Tensor &self = call.in[0], &mask = call.in[1], &source = call.in[2], &out = call.out[0];
  const Shape& shape = out.shape;
  const auto pos = nonzero_positions(mask, shape, broadcast_strides(mask, shape));
  if (int64_t(pos.size()) > source.numel())
    call.fail("masked_scatter: the mask has " + std::to_string(pos.size()) + " true elements but source " +
              shape_to_string(source.shape) + " has only " + std::to_string(source.numel()) + " elements");
  // Read everything before writing: source or self may share out's memory.
  const Tensor src = to_dtype_owned(source, source.dtype);
  const Tensor base = to_dtype_owned(self.shape == shape ? self : self.view_as(shape, broadcast_strides(self, shape),
                                                                               self.offset),
                                     self.dtype);
  copy_into(out, base);
  const auto dst = rowmajor_offsets(shape, out.strides, 0);
  const size_t es = dtype_size(out.dtype);
  for (size_t r = 0; r < pos.size(); ++r)
    std::memcpy(out.raw() + dst[size_t(pos[r])] * int64_t(es), src.raw() + r * es, es);
}

// --- scalars: item / _local_scalar_dense (no IR output) ---------------------
void plan_item(OpCall& call) {
  call.expect_inputs(1, 1);
  call.check(call.in[0].numel() == 1, "a Tensor with " + std::to_string(call.in[0].numel()) +
                                          " elements cannot be converted to Scalar");
  call.check(call.num_ir_outputs() == 0, "a Scalar result is not an IR tensor; the IR lists " +
                                             std::to_string(call.num_ir_outputs()) + " outputs");
}

// --- asserts ------------------------------------------------------------------
bool truthy(const Tensor& t) {
  return dispatch_compute(t.dtype, [&](auto tag) {
    using T = decltype(tag);
    return *t.data<T>() != T(0);
  });
}

std::string assert_message(const OpCall& call) {
  const std::string msg = call.str("assert_msg", std::string());
  return "assertion failed" + (msg.empty() ? std::string() : ": " + msg);
}

// _assert_async(.msg): a one-element tensor that must be nonzero. With
// dep_token (_functional_assert_async), the output is the token.
void plan_assert_async(OpCall& call, bool functional) {
  call.expect_inputs(functional ? 2 : 1, functional ? 2 : 1);
  const Tensor& cond = call.in[0];
  call.check(cond.numel() == 1, cond.numel() == 0
                                    ? "Boolean value of Tensor with no values is ambiguous"
                                    : "Boolean value of Tensor with more than one value is ambiguous");
  if (functional) call.alias(0, call.in[1]);
}

void run_assert_async(OpCall& call) {
  if (!truthy(call.in[0])) call.fail(assert_message(call));
}

// _assert_scalar(Scalar self, str assert_msg): the condition is an attribute
// when it is a constant; a symbolic one (a SymBool of the export) is not in
// the IR: the size checks of the data-dependent ops stand for it.
void plan_assert_scalar(OpCall& call) {
  call.expect_inputs(0, 0);
  call.check(call.num_ir_outputs() == 0, "_assert_scalar has no outputs");
}

void run_assert_scalar(OpCall& call) {
  if (const auto s = call.opt_scalar("self"))
    if (s->f == 0 && s->i == 0) call.fail(assert_message(call));
}

// sym_constrain_range_for_size(Scalar size, *, int? min, int? max): checked
// when the size is a constant.
void plan_constrain_range(OpCall& call) {
  call.expect_inputs(0, 0);
  if (const auto s = call.opt_scalar("size")) {
    const int64_t v = s->i;
    const int64_t lo = call.i("min", 0);
    call.check(v >= lo, "sym_constrain_range_for_size: " + std::to_string(v) + " is below min " +
                            std::to_string(lo));
    if (call.has("max"))
      call.check(v <= call.i("max"), "sym_constrain_range_for_size: " + std::to_string(v) + " is above max " +
                                         std::to_string(call.i("max")));
  }
}

// sym_size.int / sym_stride.int / sym_numel / sym_storage_offset: SymInt
// results (no IR output); the dim is checked.
void plan_sym_query(OpCall& call, bool has_dim) {
  call.expect_inputs(1, 1);
  if (has_dim) call.wrap_dim(call.i("dim"), call.in[0].dim());
  call.check(call.num_ir_outputs() == 0, "a SymInt result is not an IR tensor");
}

}  // namespace

TIR_REGISTER_OPS(
    // aten::nonzero(Tensor self) -> Tensor
    {"aten.nonzero.default", {plan_nonzero, run_nonzero, nullptr, {}, infer_nonzero}},
    // aten::where(Tensor condition) -> Tensor[]
    {"aten.where.default", {plan_where_cond, run_where_cond, nullptr, {}, infer_where_cond}},
    // aten::masked_select(Tensor self, Tensor mask) -> Tensor
    {"aten.masked_select.default", {plan_masked_select, run_masked_select, nullptr, {}, infer_masked_select}},
    // aten::masked_scatter(Tensor self, Tensor mask, Tensor source) -> Tensor
    {"aten.masked_scatter.default", {plan_masked_scatter, run_masked_scatter}},
    // aten::item(Tensor self) -> Scalar
    {"aten.item.default", {plan_item, nullptr}},
    // aten::_local_scalar_dense(Tensor self) -> Scalar
    {"aten._local_scalar_dense.default", {plan_item, nullptr}},
    // aten::_assert_async(Tensor self) -> ()
    {"aten._assert_async.default", {[](OpCall& c) { plan_assert_async(c, false); }, run_assert_async}},
    // aten::_assert_async.msg(Tensor self, str assert_msg) -> ()
    {"aten._assert_async.msg", {[](OpCall& c) { plan_assert_async(c, false); }, run_assert_async}},
    // aten::_functional_assert_async.msg(Tensor self, str assert_msg, Tensor dep_token) -> Tensor
    {"aten._functional_assert_async.msg", {[](OpCall& c) { plan_assert_async(c, true); }, run_assert_async}},
    // aten::_assert_scalar(Scalar self, str assert_msg) -> ()
    {"aten._assert_scalar.default", {plan_assert_scalar, run_assert_scalar}},
    // aten::sym_constrain_range_for_size(Scalar size, *, int? min=None, int? max=None) -> ()
    {"aten.sym_constrain_range_for_size.default", {plan_constrain_range, nullptr}},
    // aten::sym_size.int(Tensor self, int dim) -> SymInt
    {"aten.sym_size.int", {[](OpCall& c) { plan_sym_query(c, true); }, nullptr}},
    // aten::sym_stride.int(Tensor self, int dim) -> SymInt
    {"aten.sym_stride.int", {[](OpCall& c) { plan_sym_query(c, true); }, nullptr}},
    // aten::sym_numel(Tensor self) -> SymInt
    {"aten.sym_numel.default", {[](OpCall& c) { plan_sym_query(c, false); }, nullptr}},
    // aten::sym_storage_offset(Tensor self) -> SymInt
    {"aten.sym_storage_offset.default", {[](OpCall& c) { plan_sym_query(c, false); }, nullptr}});

}  // namespace tir
