#include "runtime/session.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <new>
#include <set>

#include "core/checked.h"
#include "core/errors.h"
#include "core/weight_spec.h"
#include "ir/float64.h"
#include "ir/validator.h"
#include "runtime/limits.h"
#include "runtime/memory_plan.h"
#include "runtime/session_impl.h"

namespace tir {

bool is_inplace_op(const std::string& op_type) {
  if (op_type.rfind("aten.", 0) != 0) return false;
  const size_t dot = op_type.find('.', 5);
  const std::string name = op_type.substr(5, dot == std::string::npos ? std::string::npos : dot - 5);
  return name.size() > 1 && name.back() == '_' && name[name.size() - 2] != '_';
}

namespace {

std::string meta_text(const Shape& shape, DType dtype) {
  return shape_to_string(shape) + " (" + dtype_name(dtype) + ")";
}

// Every op type without an implementation, with the nodes using it, in one error.
void check_supported(const Model& model) {
  std::vector<std::pair<std::string, std::vector<std::string>>> missing;
  for (const auto& node : model.nodes) {
    if (OpRegistry::instance().find(node.op_type)) continue;
    auto it = std::find_if(missing.begin(), missing.end(),
                           [&](const auto& m) { return m.first == node.op_type; });
    if (it == missing.end()) missing.push_back({node.op_type, {node.name}});
    else it->second.push_back(node.name);
  }
  if (missing.empty()) return;
  std::string msg = "Unsupported op type(s) (" + std::to_string(missing.size()) + "):";
  for (const auto& m : missing) {
    msg += "\n  - " + m.first + " (node";
    msg += m.second.size() > 1 ? "s " : " ";
    for (size_t i = 0; i < m.second.size() && i < 5; ++i) msg += (i ? ", '" : "'") + m.second[i] + "'";
    if (m.second.size() > 5) msg += ", ... " + std::to_string(m.second.size() - 5) + " more";
    msg += ")";
  }
  throw ExecutionError(msg);
}

}  // namespace

bool parse_weight_dtype(const std::string& s, SessionOptions* o) {
  WeightSpec w;
  if (!parse_weight_spec(s, &w)) return false;
  using K = WeightSpec::Kind;
  using WQ = SessionOptions::WeightQuantization;
  if (w.kind == K::Int8 || w.kind == K::Int4) {
    o->weight_quantization = w.kind == K::Int8 ? WQ::Int8 : WQ::Int4;
    o->weight_group_size = w.group;
  } else {
    o->weight_dtype = w.kind == K::F16 ? DType::F16 : w.kind == K::BF16 ? DType::BF16 : DType::F32;
  }
  return true;
}

Session::Session(Model model, SessionOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->model = options.float64 ? promote_to_float64(model) : std::move(model);
  if (options.weight_dtype != DType::F32 && options.weight_dtype != DType::F16 &&
      options.weight_dtype != DType::BF16)
    throw ExecutionError(std::string("SessionOptions::weight_dtype must be float32, float16 or bfloat16, got ") +
                         dtype_name(options.weight_dtype));
  if (options.weight_group_size <= 0 || options.weight_group_size % 4 != 0)
    throw ExecutionError("SessionOptions::weight_group_size must be a positive multiple of 4, got " +
                         std::to_string(options.weight_group_size));
  impl_->options = options;
  impl_->limits = resolve_limits(options.limits);
  impl_->compile();
}

Session::~Session() = default;

void rethrow_naming_node(const ExecutionError& e, const OpNode& node) {
  if (std::string(e.what()).rfind("node '", 0) == 0) throw e;
  throw ExecutionError("node '" + node.name + "' (" + node.op_type + "): " + e.what());
}

void plan_naming_node(const OpDef& def, OpCall& call, const OpNode& node) {
  try {
    def.plan(call);
  } catch (const std::bad_alloc&) {
    throw ExecutionError("node '" + node.name + "' (" + node.op_type + "): out of memory while planning; " +
                         kRaiseLimitsHint + " only if the machine has the memory");
  } catch (const ExecutionError& e) {
    rethrow_naming_node(e, node);
  }
}

void Session::Impl::compile() {
  model_index = ModelIndex(model);
  validate_model_or_throw(model, model_index);
  check_supported(model);
  check_declared_limits();
  graph = Graph(model, model_index);
  for (size_t k = 0; k < model.graph_inputs.size(); ++k) {
    const auto& gi = model.graph_inputs[k];
    Tensor t = make_unplanned(compute_dtype(gi.dtype), gi.shape, gi.name);
    t.buffer->kind = Buffer::Kind::Input;
    inputs.push_back(t);
    graph.tensor(graph.graph_inputs()[k]) = t;
  }
  for (size_t s = 0; s < model.nodes.size(); ++s) {
    const OpNode& node = model.nodes[s];
    auto step = std::make_unique<Step>(node);
    step->def = OpRegistry::instance().find(node.op_type);
    for (size_t i = 0; i < node.inputs.size(); ++i) step->call.in.push_back(resolve_input(s, node, i));
    step->call.check_fresh = [this](const std::string& what, const Shape& shape, DType dtype) {
      check_value_limits(limits, what, shape, dtype, true);
    };
    step->call.rewrites_self = step->def->traits.rewrites_self;
    plan_naming_node(*step->def, step->call, node);
    check_outputs(*step);
    check_step_limits(*step);
    mark_mutations(*step);
    for (size_t k = 0; k < node.outputs.size(); ++k) graph.tensor(graph.outputs(s)[k]) = step->call.out[k];
    steps.push_back(std::move(step));
  }
  for (size_t k = 0; k < model.graph_outputs.size(); ++k) {
    const ValueId id = graph.graph_outputs()[k];
    if (id == kNoValue)
      throw IRFormatError("graph output '" + model.graph_outputs[k].name + "' is not produced by any node");
    outputs.push_back(graph.tensor(id));
  }
  mark_dynamic_region();
  lower_quantized();
  quantize_float_linears();
  fold_constants();
  mark_constant_inputs();
  fuse_epilogues();
  update_in_place();
  plan_arena();
  static_outputs = outputs;
}

void Session::Impl::mark_constant_inputs() {
  std::set<const Buffer*> mutated;
  for (const auto& kv : weights)
    if (kv.second.mutated) mutated.insert(kv.second.tensor.buffer.get());
  for (auto& step : steps) {
    auto& c = step->call;
    c.const_in.assign(c.in.size(), false);
    for (size_t i = 0; i < c.in.size(); ++i)
      c.const_in[i] = c.in[i].defined() && c.in[i].buffer->kind == Buffer::Kind::Weight &&
                      !mutated.count(c.in[i].buffer.get());
  }
}

Tensor Session::Impl::resolve_input(size_t step, const OpNode& node, size_t index) {
  const TensorMeta& meta = node.inputs[index];
  const ValueId id = graph.input(step, index);
  if (id == kNoValue)
    throw ExecutionError("Weight/input '" + graph.unresolved_name(step, index) + "' not found in registry for node '" +
                         node.name + "'.");
  Tensor& t = graph.tensor(id);
  if (graph.value(id).kind == GraphValue::Kind::Weight && !t.defined()) t = weight_tensor(meta.name, node);
  if (t.shape != meta.shape || t.dtype != compute_dtype(meta.dtype))
    throw ExecutionError("node '" + node.name + "' input " + std::to_string(index) + " ('" + meta.name +
                         "'): IR says " + meta_text(meta.shape, meta.dtype) + " but the value is " +
                         meta_text(t.shape, t.dtype));
  return t;
}

Tensor& Session::Impl::weight_tensor(const std::string& placeholder, const OpNode& reader) {
  const TensorMeta* meta = model_index.find_weight(placeholder);
  std::string key = model_index.original_name(placeholder);
  auto it = weights.find(key);
  if (it != weights.end()) return it->second.tensor;
  WeightSlot slot;
  slot.key = key;
  slot.first_placeholder = placeholder;
  slot.first_reader = reader.name;
  slot.ir_dtype = meta->dtype;
  slot.tensor = make_unplanned(compute_dtype(meta->dtype), meta->shape, key);
  slot.tensor.buffer->kind = Buffer::Kind::Weight;
  WeightSlot& placed = weights.emplace(key, std::move(slot)).first->second;
  weight_by_buffer[placed.tensor.buffer.get()] = &placed;
  return placed.tensor;
}

void Session::Impl::check_outputs(const Step& step) const {
  const OpNode& node = *step.node;
  const auto& out = step.call.out;
  if (out.size() != node.outputs.size())
    throw ExecutionError("node '" + node.name + "' (" + node.op_type + "): op produced " +
                         std::to_string(out.size()) + " outputs but the IR lists " +
                         std::to_string(node.outputs.size()));
  for (size_t k = 0; k < out.size(); ++k) {
    const TensorMeta& meta = node.outputs[k];
    if (!out[k].defined() || out[k].shape != meta.shape || out[k].dtype != compute_dtype(meta.dtype))
      throw ExecutionError("node '" + node.name + "' (" + node.op_type + "): output " + std::to_string(k) +
                           " is " + (out[k].defined() ? meta_text(out[k].shape, out[k].dtype) : "undefined") +
                           " but the IR says " + meta_text(meta.shape, meta.dtype));
  }
}

// Graph inputs, weights and constants the IR declares: the same checks as node
// outputs, before any of them gets memory.
void Session::Impl::check_declared_limits() {
  for (const auto& gi : model.graph_inputs)
    check_value_limits(limits, "graph input '" + gi.name + "'", gi.shape, compute_dtype(gi.dtype), true);
  for (const auto& w : model.weights)
    check_value_limits(limits, "weight '" + w.name + "'", w.shape, compute_dtype(w.dtype), true);
  for (const auto& c : model.constants)
    check_value_limits(limits, "constant '" + c.first + "'", c.second.shape, c.second.dtype, true);
}

// A node's outputs against the tensor cap (fresh values by their bytes, views
// by their element count) and its largest operand against the work cap.
void Session::Impl::check_step_limits(const Step& step) {
  const OpNode& node = *step.node;
  const std::string where = "node '" + node.name + "' (" + node.op_type + ")";
  int64_t largest = 0;
  for (size_t i = 0; i < step.call.in.size(); ++i) {
    const Tensor& t = step.call.in[i];
    if (!t.defined()) continue;
    largest = std::max(largest, checked_numel(t.shape, where + " input " + std::to_string(i)));
  }
  for (size_t k = 0; k < step.call.out.size(); ++k) {
    const Tensor& t = step.call.out[k];
    bool fresh = true;  // a view shares an input's buffer
    for (const auto& in : step.call.in)
      if (in.defined() && in.buffer == t.buffer) fresh = false;
    const std::string what = where + " output '" + node.outputs[k].name + "'";
    largest = std::max(largest, check_value_limits(limits, what, t.shape, t.dtype, fresh));
  }
  add_run_work(limits, &run_work, largest, where);
}

void Session::Impl::mark_mutations(const Step& step) {
  if (!is_inplace_op(step.node->op_type) || step.call.in.empty()) return;
  auto it = weight_by_buffer.find(step.call.in[0].buffer.get());
  if (it != weight_by_buffer.end()) it->second->mutated = true;
}

void Session::Impl::plan_arena() {
  // Each arena buffer lives from its defining step to its last reader/writer.
  // Buffers merged by the fusion and in-place passes are planned as their class's root.
  const AliasClasses& aliases = graph.aliases();
  auto root = [&](Buffer* b) { return aliases.root(b); };
  std::vector<Buffer*> buffers;
  std::vector<LiveRange> ranges;
  std::unordered_map<Buffer*, size_t> index;
  const int64_t end = int64_t(steps.size());
  auto touch = [&](const Tensor& t, int64_t step) {
    Buffer* b = root(t.buffer.get());
    if (b->kind != Buffer::Kind::Arena && b->kind != Buffer::Kind::Input) return;
    auto it = index.find(b);
    if (it == index.end()) {
      index[b] = buffers.size();
      buffers.push_back(b);
      ranges.push_back({b->nbytes, step, step});
    } else {
      ranges[it->second].last = std::max(ranges[it->second].last, step);
    }
  };
  for (const auto& t : inputs) touch(t, -1);
  for (int64_t s = 0; s < end; ++s) {
    if (steps[size_t(s)]->taken_over) continue;  // never runs; nothing reads its outputs
    for (const auto& t : steps[size_t(s)]->call.in) touch(t, s);
    for (const auto& t : steps[size_t(s)]->call.out) touch(t, s);
    for (const auto& t : steps[size_t(s)]->call.workspace) touch(t, s);
    if (steps[size_t(s)]->call.epilogue.residual.defined()) touch(steps[size_t(s)]->call.epilogue.residual, s);
  }
  for (const auto& t : outputs) touch(t, end);
  // Input slots keep their values across runs (callers may rewrite only part
  // of them, e.g. one mask entry per decode step, and Session::carry writes
  // into them after a run), so no value may reuse their memory.
  for (const auto& t : inputs) touch(t, end);
  if (options.keep_intermediates)
    for (auto& r : ranges) r.last = end;
  const MemoryPlan plan = plan_memory(ranges);
  check_arena_bytes(limits, plan.total_bytes + kArenaAlignment,
                    "the memory plan (" + std::to_string(buffers.size()) + " values, " +
                        std::to_string(steps.size()) + " steps)");
  if (plan.total_bytes > std::numeric_limits<size_t>::max() - kArenaAlignment)
    throw ExecutionError("the memory plan does not fit the address space");
  arena_size = size_t(plan.total_bytes);
  try {
    arena_storage.reset(new uint8_t[arena_size + kArenaAlignment]);
  } catch (const std::bad_alloc&) {
    throw ExecutionError("could not allocate the " + std::to_string(arena_size) + "-byte arena: out of memory");
  }
  uint8_t* base = arena_storage.get();
  base += (kArenaAlignment - reinterpret_cast<uintptr_t>(base) % kArenaAlignment) % kArenaAlignment;
  for (size_t i = 0; i < buffers.size(); ++i) buffers[i]->data = base + size_t(plan.offsets[i]);
  for (Buffer* b : aliases.merged()) b->data = root(b)->data;
}

void Session::bind(const TensorMap& weights, const TensorMap& constants) { impl_->bind(weights, constants); }

void Session::set_inputs(const std::vector<Tensor>& inputs) {
  Impl& s = *impl_;
  const auto& metas = s.model.graph_inputs;
  if (inputs.size() != metas.size()) {
    std::string names;
    for (size_t i = 0; i < metas.size() && i < 8; ++i) names += (i ? ", '" : "'") + metas[i].name + "'";
    if (metas.size() > 8) names += ", ...";
    throw ExecutionError("expected " + std::to_string(metas.size()) + " input(s) (" + names + "), got " +
                         std::to_string(inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& given = inputs[i];
    const bool dtype_ok = compute_dtype(given.dtype) == compute_dtype(metas[i].dtype) ||
                          (s.options.float64 && given.dtype == DType::F32 && metas[i].dtype == DType::F64);
    if (given.shape != metas[i].shape || !dtype_ok)
      throw ExecutionError("input " + std::to_string(i) + " ('" + metas[i].name + "'): expected " +
                           meta_text(metas[i].shape, metas[i].dtype) + ", got " +
                           meta_text(given.shape, given.dtype));
    // The input's name is spelled out only when the check fails: a run allocates nothing.
    bool in_buffer = true;
    try {
      check_view_in_buffer(given, "input");
    } catch (const ExecutionError&) {
      in_buffer = false;
    }
    if (!in_buffer) check_view_in_buffer(given, "input " + std::to_string(i) + " ('" + metas[i].name + "')");
    copy_into(s.inputs[i], given);
  }
}

std::vector<Tensor> Session::run(const std::vector<Tensor>& inputs) {
  Impl& s = *impl_;
  if (!s.bound && !s.weights.empty()) throw ExecutionError("run() called before bind(): weights are not loaded");
  set_inputs(inputs);
  run_slots();
  std::vector<Tensor> result;
  for (const auto& o : s.outputs) result.push_back(to_dtype_owned(o, o.dtype));
  return result;
}

const Tensor& Session::input_slot(size_t i) const {
  if (i >= impl_->inputs.size())
    throw ExecutionError("input index " + std::to_string(i) + " out of range (" +
                         std::to_string(impl_->inputs.size()) + " inputs)");
  return impl_->inputs[i];
}

const std::vector<Tensor>& Session::output_views() const { return impl_->outputs; }

size_t Session::carry(size_t output, size_t input) {
  const Impl& s = *impl_;
  if (output >= s.outputs.size() || input >= s.inputs.size())
    throw ExecutionError("carry(output " + std::to_string(output) + ", input " + std::to_string(input) +
                         "): the model has " + std::to_string(s.outputs.size()) + " outputs and " +
                         std::to_string(s.inputs.size()) + " inputs");
  const Tensor& from = s.outputs[output];
  const Tensor& to = s.inputs[input];
  if (from.shape != to.shape || from.dtype != to.dtype)
    throw ExecutionError("carry: output " + std::to_string(output) + " ('" + s.model.graph_outputs[output].name +
                         "') is " + meta_text(from.shape, from.dtype) + " but input " + std::to_string(input) +
                         " ('" + s.model.graph_inputs[input].name + "') is " + meta_text(to.shape, to.dtype));
  if (from.raw() == to.raw() && from.strides == to.strides) return 0;
  copy_into(to, from);
  return to.nbytes();
}

void Session::run_slots() {
  Impl& s = *impl_;
  if (!s.bound && !s.weights.empty()) throw ExecutionError("run() called before bind(): weights are not loaded");
  if (!s.prepared) s.prepare();  // models without weights never call bind()
  s.profile.clear();
  s.running = nullptr;
  try {  // one handler for the whole run: kernels that throw without a node name get the running node's
    if (s.has_dynamic) {  // data-dependent sizes: runtime/dynamic.cpp
      s.run_dynamic();
      return;
    }
    for (auto& step : s.steps) {
      if (!step->def->run || step->covered || step->folded) {
        if (step->folded && s.profiling) s.profile.push_back({step->node->name, step->node->op_type, 0.0, {}, true});
        continue;
      }
      if (step->gpu_only) s.fail_gpu_only(*step);
      s.running = step->node;
      if (s.profiling) s.run_step(step->call, *step);
      else step->def->run(step->call);
    }
  } catch (const ExecutionError& e) {
    if (!s.running) throw;
    rethrow_naming_node(e, *s.running);
  }
}

void Session::run_steps(size_t first, size_t last) {
  Impl& s = *impl_;
  if (!s.bound && !s.weights.empty()) throw ExecutionError("run() called before bind(): weights are not loaded");
  if (s.has_dynamic) throw ExecutionError("run_steps(): the graph has data-dependent shapes; run it whole");
  if (first > last || last >= s.steps.size())
    throw ExecutionError("run_steps(" + std::to_string(first) + ", " + std::to_string(last) + "): the graph has " +
                         std::to_string(s.steps.size()) + " steps");
  if (!s.prepared) s.prepare();
  s.running = nullptr;
  try {
    for (size_t i = first; i <= last; ++i) {
      Step& step = *s.steps[i];
      if (!step.def->run || step.covered || step.folded) continue;
      if (step.gpu_only) s.fail_gpu_only(step);
      s.running = step.node;
      step.def->run(step.call);
    }
  } catch (const ExecutionError& e) {
    if (!s.running) throw;
    rethrow_naming_node(e, *s.running);
  }
}

void Session::set_profiling(bool on) { impl_->profiling = on; }
const std::vector<NodeTiming>& Session::last_profile() const { return impl_->profile; }

std::vector<std::string> Session::mutated_buffers() const {
  std::vector<std::string> keys;
  for (const auto& kv : impl_->weights)
    if (kv.second.mutated) keys.push_back(kv.first);
  return keys;
}

Tensor Session::buffer_value(const std::string& key) const {
  auto it = impl_->weights.find(key);
  if (it == impl_->weights.end()) throw ExecutionError("no weight/buffer '" + key + "' in this model");
  if (!impl_->bound) throw ExecutionError("buffer '" + key + "' has no value: bind() was not called");
  return to_dtype_owned(it->second.tensor, it->second.tensor.dtype);
}

void Session::reset_buffers() {
  for (auto& kv : impl_->weights)
    if (kv.second.mutated && kv.second.bound_value.defined()) copy_into(kv.second.tensor, kv.second.bound_value);
}

const Tensor* Session::value(const std::string& name) const {
  if (!impl_->options.keep_intermediates) return nullptr;
  auto resized = impl_->run_values.find(name);  // re-planned for the last run's data sizes
  if (resized != impl_->run_values.end()) return &resized->second;
  const ValueId id = impl_->graph.find(name);
  return id == kNoValue ? nullptr : &impl_->graph.tensor(id);
}

const Model& Session::model() const { return impl_->model; }
const Graph& Session::graph() const { return impl_->graph; }
size_t Session::arena_bytes() const { return impl_->arena_size; }
size_t Session::prepared_bytes() const {
  return impl_->derived_cache ? impl_->derived_cache->derived_bytes() : 0;
}

}  // namespace tir
