#include "ops/op.h"

#include <algorithm>
#include <cmath>

#include "core/checked.h"

namespace tir {

namespace {
std::string where(const OpNode& n) { return "node '" + n.name + "' (" + n.op_type + "): "; }
}  // namespace

void OpCall::fail(const std::string& msg) const { throw ExecutionError(where(*node) + msg); }

const Attr* OpCall::attr(const std::string& name) const {
  auto it = node->attrs.find(name);
  if (it == node->attrs.end() || it->second.is_none()) return nullptr;
  return &it->second;
}

int64_t OpCall::i(const std::string& name, std::optional<int64_t> def) const {
  const Attr* a = attr(name);
  if (!a) {
    if (!def) fail("missing required argument '" + name + "'");
    return *def;
  }
  if (a->kind == Attr::Kind::Int) return a->i;
  if (a->kind == Attr::Kind::Bool) return a->b;
  // A float that holds an exact int64 (range checked first: casting an
  // out-of-range or non-finite double is undefined behaviour).
  if (a->kind == Attr::Kind::Float && a->f >= -9223372036854775808.0 && a->f < 9223372036854775808.0 &&
      a->f == std::trunc(a->f))
    return int64_t(a->f);
  fail("argument '" + name + "' must be an int, got " + a->to_string());
}

double OpCall::f(const std::string& name, std::optional<double> def) const {
  const Attr* a = attr(name);
  if (!a) {
    if (!def) fail("missing required argument '" + name + "'");
    return *def;
  }
  if (!a->is_number()) fail("argument '" + name + "' must be a number, got " + a->to_string());
  return a->as_double();
}

bool OpCall::b(const std::string& name, std::optional<bool> def) const {
  const Attr* a = attr(name);
  if (!a) {
    if (!def) fail("missing required argument '" + name + "'");
    return *def;
  }
  if (a->kind == Attr::Kind::Bool) return a->b;
  if (a->kind == Attr::Kind::Int) return a->i != 0;
  fail("argument '" + name + "' must be a bool, got " + a->to_string());
}

std::string OpCall::str(const std::string& name, std::optional<std::string> def) const {
  const Attr* a = attr(name);
  if (!a) {
    if (!def) fail("missing required argument '" + name + "'");
    return *def;
  }
  if (a->kind != Attr::Kind::String) fail("argument '" + name + "' must be a string, got " + a->to_string());
  return a->s;
}

std::optional<std::vector<int64_t>> OpCall::opt_ints(const std::string& name) const {
  const Attr* a = attr(name);
  if (!a) return std::nullopt;
  std::vector<int64_t> v;
  if (a->kind == Attr::Kind::Int) {
    v.push_back(a->i);
    return v;
  }
  if (a->kind != Attr::Kind::List) fail("argument '" + name + "' must be a list of ints, got " + a->to_string());
  for (const auto& e : a->list) {
    if (e.kind != Attr::Kind::Int) fail("argument '" + name + "' must be a list of ints, got " + a->to_string());
    v.push_back(e.i);
  }
  return v;
}

std::vector<int64_t> OpCall::ints(const std::string& name, std::optional<std::vector<int64_t>> def,
                                  size_t expand) const {
  auto v = opt_ints(name);
  if (!v) {
    if (!def) fail("missing required argument '" + name + "'");
    v = def;
  }
  if (v->size() == 1 && expand > 1) v->assign(expand, (*v)[0]);
  return *v;
}

std::optional<DType> OpCall::dtype(const std::string& name) const {
  const Attr* a = attr(name);
  if (!a) return std::nullopt;
  DType d;
  if (a->kind == Attr::Kind::String && try_parse_dtype(a->s, &d)) return d;
  if (a->kind == Attr::Kind::Int && dtype_from_scalar_type(a->i, &d)) return d;
  fail("argument '" + name + "' is not a dtype: " + a->to_string());
}

std::optional<Scalar> OpCall::opt_scalar(const std::string& name) const {
  const Attr* a = attr(name);
  if (!a) return std::nullopt;
  switch (a->kind) {
    case Attr::Kind::Bool: return Scalar::of_bool(a->b);
    case Attr::Kind::Int: return Scalar::of_int(a->i);
    case Attr::Kind::Float: return Scalar::of_double(a->f);
    default: fail("argument '" + name + "' must be a number, got " + a->to_string());
  }
}

Scalar OpCall::scalar(const std::string& name, std::optional<Scalar> def) const {
  auto s = opt_scalar(name);
  if (s) return *s;
  if (!def) fail("missing required argument '" + name + "'");
  return *def;
}

std::vector<int64_t> OpCall::tensor_list_sizes() const {
  auto v = opt_ints("_tensor_list_sizes");
  return v ? *v : std::vector<int64_t>{};
}

std::vector<std::vector<bool>> OpCall::tensor_list_none_masks() const {
  std::vector<std::vector<bool>> out;
  const Attr* a = attr("_tensor_list_none_masks");
  if (!a) return out;
  if (a->kind != Attr::Kind::List) fail("_tensor_list_none_masks must be a list of lists");
  for (const auto& l : a->list) {
    std::vector<bool> m;
    if (l.kind != Attr::Kind::List) fail("_tensor_list_none_masks must be a list of lists");
    for (const auto& e : l.list) m.push_back(e.kind == Attr::Kind::Bool ? e.b : e.i != 0);
    out.push_back(std::move(m));
  }
  return out;
}

void OpCall::expect_inputs(size_t min, size_t max) const {
  if (in.size() < min || in.size() > max) {
    std::string want = min == max ? std::to_string(min) : std::to_string(min) + ".." + std::to_string(max);
    fail("expected " + want + " tensor inputs, got " + std::to_string(in.size()));
  }
}

int64_t OpCall::wrap_dim(int64_t dim, int64_t ndim) const {
  const int64_t n = ndim > 0 ? ndim : 1;
  if (dim < -n || dim >= n)
    fail("dimension " + std::to_string(dim) + " out of range for a " + std::to_string(ndim) + "-d tensor");
  return dim < 0 ? dim + n : dim;
}

int64_t OpCall::wrap_sized_dim(int64_t dim, int64_t ndim, const std::string& op) const {
  if (ndim <= 0)
    fail(op + ": dimension specified as " + std::to_string(dim) + " but the tensor has no dimensions (0-d)");
  return wrap_dim(dim, ndim);
}

void OpCall::ensure_out(size_t idx) {
  if (out.size() <= idx) out.resize(idx + 1);
}

Tensor& OpCall::fresh(size_t idx, DType dtype, const Shape& shape) {
  ensure_out(idx);
  const std::string label = idx < node->outputs.size() ? node->outputs[idx].name : node->name;
  // Before anything sizes memory from it: the element count and bytes must fit.
  const std::string what = "node '" + node->name + "' (" + node->op_type + ") output '" + label + "'";
  if (check_fresh) check_fresh(what, shape, dtype);
  checked_nbytes(checked_numel(shape, what), dtype_size(dtype), what);
  out[idx] = make_unplanned(dtype, shape, label);
  return out[idx];
}

size_t OpCall::add_workspace(DType dtype, const Shape& shape) {
  const std::string what = "node '" + node->name + "' (" + node->op_type + ") workspace " +
                           std::to_string(workspace.size());
  if (check_fresh) check_fresh(what, shape, dtype);
  checked_nbytes(checked_numel(shape, what), dtype_size(dtype), what);
  workspace.push_back(make_unplanned(dtype, shape, node->name + ".workspace"));
  return workspace.size() - 1;
}

namespace {
void own_memory(const Tensor& t) {
  if (!t.defined()) return;
  Buffer& b = *t.buffer;
  if (b.data) return;  // a view of an input, or already placed
  b.kind = Buffer::Kind::Scratch;
  constexpr size_t kAlign = 64;
  b.owned.assign(b.nbytes + kAlign, 0);
  uint8_t* p = b.owned.data();
  b.data = p + (kAlign - reinterpret_cast<uintptr_t>(p) % kAlign) % kAlign;
}
}  // namespace

void OpCall::own_unplanned_memory() {
  for (const auto& t : out) own_memory(t);
  for (const auto& t : workspace) own_memory(t);
}

OpRegistry& OpRegistry::instance() {
  static OpRegistry r;
  return r;
}

void OpRegistry::add(const std::string& op_type, OpDef def) {
  auto it = index_.find(op_type);
  if (it != index_.end()) {
    defs_[it->second]->second = std::move(def);
    return;
  }
  index_.emplace(op_type, defs_.size());
  defs_.push_back(std::make_unique<std::pair<std::string, OpDef>>(op_type, std::move(def)));
}

const OpDef* OpRegistry::find(const std::string& op_type) const {
  auto it = index_.find(op_type);
  return it == index_.end() ? nullptr : &defs_[it->second]->second;
}

std::vector<std::string> OpRegistry::op_types() const {
  std::vector<std::string> v;
  for (const auto& kv : defs_) v.push_back(kv->first);
  std::sort(v.begin(), v.end());
  return v;
}

OpRegistrar::OpRegistrar(std::initializer_list<std::pair<const char*, OpDef>> defs) {
  for (const auto& d : defs) OpRegistry::instance().add(d.first, d.second);
}

}  // namespace tir
