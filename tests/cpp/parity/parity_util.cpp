#include "parity/parity_util.h"

#include <cmath>
#include <exception>
#include <random>
#include <sstream>

#include "core/errors.h"
#include "ir/json_loader.h"
#include "runtime/session.h"
#include "torch_backend/reference.h"
#include "verify/truth.h"

namespace tir {
namespace parity {

namespace {

Shape base_shape(const ParityInput& in) {
  Shape s = in.shape;
  if (in.transposed && s.size() >= 2) std::swap(s[s.size() - 1], s[s.size() - 2]);
  return s;
}

std::string shape_json(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
  return out + "]";
}

std::string meta_json(const std::string& name, const Shape& shape, DType dtype,
                      const std::string& producer = "") {
  std::string out = "{\"name\":\"" + name + "\",\"shape\":" + shape_json(shape) + ",\"dtype\":\"" +
                    dtype_name(dtype) + "\"";
  if (!producer.empty()) out += ",\"producer_node\":\"" + producer + "\",\"producer_output_idx\":0";
  return out + "}";
}

std::string describe(const std::string& op_type, const std::vector<ParityInput>& inputs,
                     const std::string& attrs_json) {
  std::string out = op_type + " " + attrs_json + " inputs:";
  for (const auto& in : inputs) {
    out += std::string(" ") + dtype_name(in.dtype) + shape_to_string(in.shape);
    if (in.transposed) out += "(T)";
    if (in.as_weight) out += "(w)";
  }
  return out;
}

}  // namespace

Tensor make_input(const ParityInput& spec, uint64_t seed) {
  if (is_complex(spec.dtype)) {
    // (re, im) pairs drawn as a real tensor with a trailing dim of 2 (explicit values in
    // the base layout, pairs interleaved), then viewed as complex.
    ParityInput r = spec;
    r.dtype = spec.dtype == DType::C128 ? DType::F64 : DType::F32;
    r.transposed = false;
    r.shape = base_shape(spec);
    r.shape.push_back(2);
    return real_as_complex(make_input(r, seed));
  }
  const Shape shape = base_shape(spec);
  Tensor d = make_owned(DType::F64, shape);
  double* p = d.data<double>();
  const int64_t n = d.numel();
  if (!spec.values.empty()) {
    if (int64_t(spec.values.size()) != n)
      throw std::invalid_argument("ParityInput: " + std::to_string(spec.values.size()) +
                                  " values for shape " + shape_to_string(spec.shape));
    // Explicit values are given in the view's row-major order.
    if (spec.transposed && shape.size() >= 2) {
      const int64_t r = spec.shape[spec.shape.size() - 2], c = spec.shape.back();
      for (int64_t b = 0; b < n / std::max<int64_t>(1, r * c); ++b)
        for (int64_t i = 0; i < r; ++i)
          for (int64_t j = 0; j < c; ++j) p[b * r * c + j * r + i] = spec.values[size_t(b * r * c + i * c + j)];
    } else {
      for (int64_t k = 0; k < n; ++k) p[k] = spec.values[size_t(k)];
    }
  } else {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> uni(spec.lo, spec.hi);
    for (int64_t k = 0; k < n; ++k) {
      if (spec.dtype == DType::Bool) p[k] = (rng() & 1) ? 1.0 : 0.0;
      else if (is_integral(spec.dtype)) p[k] = std::floor(uni(rng));
      else p[k] = uni(rng);
    }
  }
  return to_dtype_owned(d, spec.dtype);
}

}  // namespace parity

namespace {

// Runs the engine on `model` and compares every output with LibTorch's.
::testing::AssertionResult engine_matches(const std::string& desc, const Model& model, const TensorMap& weights,
                                          const TensorMap& constants, const std::vector<Tensor>& inputs,
                                          const std::vector<Tensor>& expected, double rtol, double atol,
                                          const std::vector<Tensor>* truth = nullptr) {
  std::vector<Tensor> actual;
  try {
    Session session(model);
    session.bind(weights, constants);
    actual = session.run(inputs);
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << desc << ": engine failed: " << e.what();
  }
  if (actual.size() != expected.size())
    return ::testing::AssertionFailure() << desc << ": engine gave " << actual.size() << " outputs, LibTorch "
                                         << expected.size();
  for (size_t k = 0; k < expected.size(); ++k) {
    const std::string what = "output " + std::to_string(k) +
                             (k < model.graph_outputs.size() ? " '" + model.graph_outputs[k].name + "'" : "");
    auto r = parity::compare_tensors(expected[k], actual[k], rtol, atol, what);
    if (r) continue;
    // Large activations: a miss that is only reassociation still has ours as close to float64
    // truth as LibTorch's float32 (src/verify/truth.h).
    if (truth && truth->size() == actual.size()) {
      const TruthReport t = compare_with_truth({actual[k]}, {expected[k]}, {(*truth)[k]});
      if (t.ok) continue;
      return ::testing::AssertionFailure() << desc << ": " << r.message() << "\n" << format_truth_report(t, true);
    }
    return ::testing::AssertionFailure() << desc << ": " << r.message();
  }
  return ::testing::AssertionSuccess();
}

}  // namespace

::testing::AssertionResult node_parity(const std::string& op_type, const std::vector<ParityInput>& inputs,
                                       const std::string& attrs_json, double rtol, double atol,
                                       uint64_t seed) {
  using namespace parity;
  const std::string desc = describe(op_type, inputs, attrs_json);
  // Graph: x<i> (or weight w<i> as placeholder p_w<i>), optional transpose_<i>, then `op`.
  std::vector<Tensor> graph_inputs, views;
  TensorMap weights;
  std::string g_inputs, w_metas, mapping, nodes, op_inputs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ParityInput& in = inputs[i];
    if (in.transposed && in.shape.size() < 2)
      return ::testing::AssertionFailure() << desc << ": a transposed input needs 2+ dims";
    Tensor base;
    try {
      base = parity::make_input(in, seed * 1000003u + i);
    } catch (const std::exception& e) {
      return ::testing::AssertionFailure() << desc << ": " << e.what();
    }
    const std::string idx = std::to_string(i);
    const Shape bshape = base_shape(in);
    std::string src = in.as_weight ? "p_w" + idx : "x" + idx;
    std::string src_meta;
    if (in.as_weight) {
      weights.set("w" + idx, base);
      w_metas += (w_metas.empty() ? "" : ",") + meta_json("w" + idx, bshape, in.dtype);
      mapping += (mapping.empty() ? "" : ",") + std::string("\"p_w") + idx + "\":\"w" + idx + "\"";
      src_meta = meta_json(src, bshape, in.dtype);
    } else {
      graph_inputs.push_back(base);
      g_inputs += (g_inputs.empty() ? "" : ",") + meta_json(src, bshape, in.dtype);
      src_meta = meta_json(src, bshape, in.dtype, src);
    }
    Tensor view = base;
    if (in.transposed) {
      const std::string t = "transpose_" + idx;
      nodes += "{\"name\":\"" + t + "\",\"op_type\":\"aten.transpose.int\",\"inputs\":[" + src_meta +
               "],\"outputs\":[" + meta_json(t, in.shape, in.dtype) +
               "],\"attrs\":{\"dim0\":-2,\"dim1\":-1}},";
      src_meta = meta_json(t, in.shape, in.dtype, t);
      Shape s = base.shape;
      Strides st = base.strides;
      std::swap(s[s.size() - 1], s[s.size() - 2]);
      std::swap(st[st.size() - 1], st[st.size() - 2]);
      view = base.view_as(s, st, base.offset);
    }
    views.push_back(view);
    op_inputs += (op_inputs.empty() ? "" : ",") + src_meta;
  }
  nodes += "{\"name\":\"op\",\"op_type\":\"" + op_type + "\",\"inputs\":[" + op_inputs +
           "],\"outputs\":[],\"attrs\":" + attrs_json + "}";
  const std::string json = "{\"model_name\":\"parity\",\"graph_inputs\":[" + g_inputs +
                           "],\"graph_outputs\":[],\"weights\":[" + w_metas + "],\"weight_name_mapping\":{" +
                           mapping + "},\"nodes\":[" + nodes + "]}";
  Model model;
  try {
    model = load_model_json(json, "node_parity");
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << desc << ": IR did not load: " << e.what();
  }

  // LibTorch first: its outputs are the expected values and give the output metas.
  OpNode& op = model.nodes.back();
  std::vector<Tensor> expected;
  try {
    expected = run_node_reference(op, views);
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << desc << ": LibTorch failed: " << e.what();
  }
  for (size_t k = 0; k < expected.size(); ++k) {
    TensorMeta m;
    m.name = expected.size() == 1 ? "op" : "op_" + std::to_string(k);
    m.shape = expected[k].shape;
    m.dtype = expected[k].dtype;
    op.outputs.push_back(m);
    m.producer_node = "op";
    m.producer_output_idx = int64_t(k);
    model.graph_outputs.push_back(m);
  }

  return engine_matches(desc, model, weights, {}, graph_inputs, expected, rtol, atol);
}

::testing::AssertionResult model_parity(const Model& model, const TensorMap& weights, const TensorMap& constants,
                                        const std::vector<Tensor>& inputs, double rtol, double atol,
                                        const std::vector<Tensor>* truth) {
  const std::string desc = "model '" + model.model_name + "'";
  std::vector<Tensor> expected;
  try {
    ReferenceRunner ref(model, weights, constants);
    expected = ref.run(inputs);
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << desc << ": LibTorch failed: " << e.what();
  }
  return engine_matches(desc, model, weights, constants, inputs, expected, rtol, atol, truth);
}

namespace parity {

ParityInput in(Shape s, DType d, double lo, double hi) {
  ParityInput p;
  p.shape = std::move(s);
  p.dtype = d;
  p.lo = lo;
  p.hi = hi;
  return p;
}

ParityInput tr(Shape s, DType d, double lo, double hi) {
  ParityInput p = in(std::move(s), d, lo, hi);
  p.transposed = true;
  return p;
}

std::string append_rnn_weights(std::vector<ParityInput>& ins, bool lstm, int64_t G, int64_t I, int64_t H,
                               int64_t P, int64_t layers, bool bidir, bool bias, DType dt) {
  const int64_t D = bidir ? 2 : 1, O = P ? P : H;
  int64_t nw = 0;
  for (int64_t l = 0; l < layers; ++l)
    for (int64_t d = 0; d < D; ++d) {
      std::vector<Shape> ws{{G * H, l ? D * O : I}, {G * H, O}};
      if (bias) ws.insert(ws.end(), {{G * H}, {G * H}});
      if (P) ws.push_back({P, H});
      for (const Shape& s : ws) ins.push_back(in(s, dt, -0.5, 0.5));
      nw += int64_t(ws.size());
    }
  return lstm ? "[2," + std::to_string(nw) + "]" : "[" + std::to_string(nw) + "]";
}

ParityInput wt(Shape s, double lo, double hi) {
  ParityInput p = in(std::move(s), DType::F32, lo, hi);
  p.as_weight = true;
  return p;
}

}  // namespace parity

}  // namespace tir
