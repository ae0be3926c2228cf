#include "op_test_util.h"

#include <cstring>
#include <stdexcept>

#include "runtime/session_impl.h"

namespace tir::test {

Attr ints(const std::vector<int64_t>& v) {
  std::vector<Attr> l;
  for (auto x : v) l.push_back(Attr::of_int(x));
  return Attr::of_list(l);
}

Tensor tensor_of(DType d, const Shape& shape, const std::vector<double>& v) {
  Tensor f = make_owned(DType::F64, shape);
  if (!v.empty()) std::memcpy(f.raw(), v.data(), v.size() * sizeof(double));  // data() may be null
  return to_dtype_owned(f, d);
}

Tensor transposed(const Tensor& t) {
  return t.view_as({t.shape[1], t.shape[0]}, {t.strides[1], t.strides[0]}, t.offset);
}

OpRun run_op(const std::string& op_type, const std::vector<Tensor>& inputs, AttrMap attrs, size_t num_outputs,
             const std::vector<std::string>& names, const std::vector<Shape>& out_shapes) {
  OpRun r;
  r.node.name = "n1";
  r.node.op_type = op_type;
  r.node.attrs = std::move(attrs);
  for (size_t i = 0; i < inputs.size(); ++i)
    r.node.inputs.push_back({i < names.size() ? names[i] : "x" + std::to_string(i), inputs[i].shape, inputs[i].dtype});
  for (size_t i = 0; i < num_outputs; ++i)
    r.node.outputs.push_back({num_outputs == 1 ? "n1" : "n1_" + std::to_string(i),
                              i < out_shapes.size() ? out_shapes[i] : Shape{}, DType::F32});
  const OpDef* def = OpRegistry::instance().find(op_type);
  if (!def) throw std::runtime_error("op not registered: " + op_type);
  OpCall call(r.node);
  call.in = inputs;
  plan_naming_node(*def, call, r.node);  // as a session plans it
  for (auto& t : call.out) {
    if (t.buffer && !t.buffer->data) {
      t.buffer->owned.assign(t.buffer->nbytes ? t.buffer->nbytes : 1, 0xAB);
      t.buffer->data = t.buffer->owned.data();
    }
  }
  call.own_unplanned_memory();  // the op's workspace
  if (def->run) def->run(call);
  r.out = call.out;
  return r;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace tir::test
