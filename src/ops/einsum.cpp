// einsum: the equation is parsed at plan time; run takes diagonals of repeated
// labels as strided views, sums labels no later term needs, then contracts the
// operands left to right with one batched gemm each (as torch does without a
// path), and finally permutes into the output's label order.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "kernels/reduce.h"
#include "ops/common.h"
#include "ops/matmul_util.h"
#include "ops/op.h"

namespace tir {
namespace {

constexpr int kEllBase = 52;  // label ids: A-Z 0..25, a-z 26..51, ellipsis dims 52+

struct EinsumPlan {
  std::vector<std::vector<int>> terms;  // per operand, one label per dim (ellipsis expanded)
  std::vector<int> out;                 // output labels
  std::vector<int64_t> size;            // per label id (broadcast size)
};

int label_id(char c) { return c >= 'A' && c <= 'Z' ? c - 'A' : 26 + (c - 'a'); }

// A term's labels with -1 standing for "...".
std::vector<int> parse_term(const OpCall& call, const std::string& t) {
  std::vector<int> r;
  bool ell = false;
  for (size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (c == ' ') continue;
    if (c == '.') {
      call.check(!ell && t.compare(i, 3, "...") == 0, "einsum(): found '.' for a term that is not part of any ellipsis");
      ell = true;
      r.push_back(-1);
      i += 2;
    } else {
      call.check((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'),
                 std::string("einsum(): invalid subscript given at index ") + std::to_string(i) + " in the equation");
      r.push_back(label_id(c));
    }
  }
  return r;
}

void plan_einsum(OpCall& call) {
  const std::string eq = call.str("equation");
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms_s;
  for (size_t b = 0;;) {
    const size_t c = lhs.find(',', b);
    terms_s.push_back(lhs.substr(b, c == std::string::npos ? std::string::npos : c - b));
    if (c == std::string::npos) break;
    b = c + 1;
  }
  call.check(terms_s.size() == call.in.size(), "einsum(): the equation has " + std::to_string(terms_s.size()) +
                                                   " operand terms but " + std::to_string(call.in.size()) +
                                                   " operands were given");
  call.check(!call.in.empty() && call.in[0].dtype != DType::Bool, "einsum(): bool operands are not supported");
  auto st = std::make_shared<EinsumPlan>();
  st->size.assign(size_t(kEllBase), -1);
  int64_t max_ell = 0;
  std::vector<std::vector<int>> raw;
  for (size_t i = 0; i < terms_s.size(); ++i) {
    raw.push_back(parse_term(call, terms_s[i]));
    const Tensor& t = call.in[i];
    call.check(t.dtype == call.in[0].dtype, "einsum(): operands must have the same dtype, got " +
                                                std::string(dtype_name(call.in[0].dtype)) + " and " + dtype_name(t.dtype));
    const bool ell = std::count(raw[i].begin(), raw[i].end(), -1) > 0;
    const int64_t letters = int64_t(raw[i].size()) - (ell ? 1 : 0);
    call.check(ell ? t.dim() >= letters : t.dim() == letters,
               "einsum(): the number of subscripts in the equation (" + std::to_string(letters) +
                   ") does not match the number of dimensions (" + std::to_string(t.dim()) + ") for operand " +
                   std::to_string(i) + (ell ? "" : " and no ellipsis was given"));
    if (ell) max_ell = std::max(max_ell, t.dim() - letters);
  }
  st->size.resize(size_t(kEllBase + max_ell), -1);
  std::vector<int> count(st->size.size(), 0);
  for (size_t i = 0; i < raw.size(); ++i) {
    const Tensor& t = call.in[i];
    const int64_t n_ell = t.dim() - (int64_t(raw[i].size()) - 1);
    std::vector<int>& term = st->terms.emplace_back();
    for (int l : raw[i]) {
      if (l >= 0) term.push_back(l);
      else
        for (int64_t k = 0; k < n_ell; ++k) term.push_back(int(kEllBase + max_ell - n_ell + k));
    }
    for (size_t d = 0; d < term.size(); ++d) {
      const int l = term[d];
      const int64_t s = t.shape[d];
      int64_t& g = st->size[size_t(l)];
      ++count[size_t(l)];
      // repeated labels within a term (diagonals) must match exactly; across terms size 1 broadcasts
      const bool same_term = std::find(term.begin(), term.begin() + long(d), l) != term.begin() + long(d);
      if (same_term) {
        const int64_t first = t.shape[size_t(std::find(term.begin(), term.end(), l) - term.begin())];
        call.check(first == s, "einsum(): subscript " + std::to_string(l) +
                                   " is repeated for operand " + std::to_string(i) +
                                   " but the sizes don't match, " + std::to_string(first) + " != " + std::to_string(s));
      }
      if (g < 0 || g == 1) g = s;
      else call.check(s == g || s == 1, "einsum(): operands do not broadcast with remapped shapes (original->remapped): size " +
                                            std::to_string(s) + " vs " + std::to_string(g));
    }
  }
  if (arrow == std::string::npos) {  // implicit output: ellipsis dims, then labels used once, sorted
    for (int64_t k = 0; k < max_ell; ++k) st->out.push_back(int(kEllBase + k));
    for (int l = 0; l < kEllBase; ++l)
      if (count[size_t(l)] == 1) st->out.push_back(l);
  } else {
    for (int l : parse_term(call, eq.substr(arrow + 2))) {
      if (l < 0) {
        for (int64_t k = 0; k < max_ell; ++k) st->out.push_back(int(kEllBase + k));
        continue;
      }
      call.check(count[size_t(l)] > 0, "einsum(): output subscript " + std::string(1, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"[l]) +
                                          " does not appear in the equation for any input operand");
      call.check(std::count(st->out.begin(), st->out.end(), l) == 0, "einsum(): output subscript appears more than once in the output");
      st->out.push_back(l);
    }
  }
  Shape out_shape;
  for (int l : st->out) out_shape.push_back(st->size[size_t(l)]);
  call.fresh(0, compute_dtype(call.in[0].dtype), out_shape);
  call.state = st;
}

struct Labeled {
  Tensor t;
  std::vector<int> labels;  // unique
};

bool contains(const std::vector<int>& v, int l) { return std::find(v.begin(), v.end(), l) != v.end(); }

// Diagonals of repeated labels (stride sum) and broadcast size-1 dims (stride 0).
Labeled prepare(const Tensor& t, const std::vector<int>& term, const std::vector<int64_t>& size) {
  Labeled r;
  Shape sh;
  Strides st;
  for (size_t d = 0; d < term.size(); ++d) {
    auto it = std::find(r.labels.begin(), r.labels.end(), term[d]);
    if (it != r.labels.end()) {
      // a broadcast (size-1) dim stays at stride 0
      if (t.shape[d] == size[size_t(term[d])]) st[size_t(it - r.labels.begin())] += t.strides[d];
      continue;
    }
    r.labels.push_back(term[d]);
    const int64_t g = size[size_t(term[d])];
    sh.push_back(g);
    st.push_back(t.shape[d] == g ? t.strides[d] : 0);
  }
  r.t = t.view_as(sh, st, t.offset);
  return r;
}

// Sums the dims whose label is not in `keep`.
Labeled sum_out(const Labeled& x, const std::vector<int>& keep) {
  std::vector<bool> rd;
  Labeled r;
  Shape sh;
  for (size_t d = 0; d < x.labels.size(); ++d) {
    const bool drop = !contains(keep, x.labels[d]);
    rd.push_back(drop);
    if (!drop) {
      r.labels.push_back(x.labels[d]);
      sh.push_back(x.t.shape[d]);
    }
  }
  if (r.labels.size() == x.labels.size()) return x;
  r.t = make_owned(x.t.dtype, sh);
  reduce_kernel(ReduceOp::Sum, x.t, rd, r.t);
  return r;
}

// x's dims in `order` (labels), as a contiguous tensor of shape `shape`.
Tensor arranged(const Labeled& x, const std::vector<int>& order, const Shape& shape) {
  Shape sh;
  Strides st;
  for (int l : order) {
    const size_t d = size_t(std::find(x.labels.begin(), x.labels.end(), l) - x.labels.begin());
    sh.push_back(x.t.shape[d]);
    st.push_back(x.t.strides[d]);
  }
  const Tensor c = contiguous_or_self(x.t.view_as(sh, st, x.t.offset));
  return c.view_as(shape, contiguous_strides(shape), c.offset);
}

int64_t prod_sizes(const std::vector<int>& ls, const std::vector<int64_t>& size) {
  int64_t p = 1;
  for (int l : ls) p *= size[size_t(l)];
  return p;
}

Labeled contract(const OpCall& call, const Labeled& a, const Labeled& b, const std::vector<int>& needed,
                 const std::vector<int64_t>& size) {
  std::vector<int> batch, contr, akeep, bkeep;
  for (int l : a.labels) {
    if (!contains(b.labels, l)) akeep.push_back(l);
    else (contains(needed, l) ? batch : contr).push_back(l);
  }
  for (int l : b.labels)
    if (!contains(a.labels, l)) bkeep.push_back(l);
  const int64_t M = prod_sizes(akeep, size), K = prod_sizes(contr, size), N = prod_sizes(bkeep, size);
  Shape bs;
  for (int l : batch) bs.push_back(size[size_t(l)]);
  auto with = [&](std::initializer_list<int64_t> tail) {
    Shape s = bs;
    s.insert(s.end(), tail);
    return s;
  };
  std::vector<int> ao = batch, bo = batch;
  ao.insert(ao.end(), akeep.begin(), akeep.end());
  ao.insert(ao.end(), contr.begin(), contr.end());
  bo.insert(bo.end(), contr.begin(), contr.end());
  bo.insert(bo.end(), bkeep.begin(), bkeep.end());
  const Tensor am = arranged(a, ao, with({M, K})), bm = arranged(b, bo, with({K, N}));
  Labeled r;
  r.t = make_owned(a.t.dtype, with({M, N}));
  batched_matmul(call, am, bm, r.t, Scalar::of_int(1), Scalar::of_int(0));
  r.labels = batch;
  r.labels.insert(r.labels.end(), akeep.begin(), akeep.end());
  r.labels.insert(r.labels.end(), bkeep.begin(), bkeep.end());
  Shape rs;
  for (int l : r.labels) rs.push_back(size[size_t(l)]);
  r.t = r.t.view_as(rs, contiguous_strides(rs), r.t.offset);
  return r;
}

void run_einsum(OpCall& call) {
  auto& p = call.state_as<EinsumPlan>();
  const size_t n = p.terms.size();
  // needed_after[i]: labels of the output and of terms after i
  std::vector<std::vector<int>> needed_after(n, p.out);
  for (size_t i = n; i-- > 1;) {
    needed_after[i - 1] = needed_after[i];
    for (int l : p.terms[i]) needed_after[i - 1].push_back(l);
  }
  Labeled cur = prepare(call.in[0], p.terms[0], p.size);
  for (size_t i = 1; i < n; ++i) {
    Labeled b = prepare(call.in[i], p.terms[i], p.size);
    std::vector<int> keep_a = needed_after[i], keep_b = needed_after[i];
    keep_a.insert(keep_a.end(), b.labels.begin(), b.labels.end());
    keep_b.insert(keep_b.end(), cur.labels.begin(), cur.labels.end());
    cur = contract(call, sum_out(cur, keep_a), sum_out(b, keep_b), needed_after[i], p.size);
  }
  cur = sum_out(cur, p.out);
  const Tensor& out = call.out[0];
  Shape sh;
  Strides st;
  for (int l : p.out) {
    const size_t d = size_t(std::find(cur.labels.begin(), cur.labels.end(), l) - cur.labels.begin());
    sh.push_back(cur.t.shape[d]);
    st.push_back(cur.t.strides[d]);
  }
  copy_into(out, cur.t.view_as(sh, st, cur.t.offset));
}

}  // namespace

TIR_REGISTER_OPS(
    // einsum(str equation, Tensor[] tensors, *, int[]? path=None) -> Tensor
    // (`path` only reorders the contractions; left to right gives the same values)
    {"aten.einsum.default", {plan_einsum, run_einsum}});

}  // namespace tir
