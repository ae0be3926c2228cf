// The WebGPU placement pass and plan (docs/webgpu.md). Over the compiled
// steps, in order:
//  1. placement: a node runs on the GPU when its op has a WebGPU lowering
//     (ops/webgpu.h) that accepts its dtypes and shapes; pure views cost
//     nothing on either device (they share their input's buffer); every other
//     node runs on WASM.
//  2. transfers: each value (a buffer: an arena value, an input slot, a
//     weight) is tracked as valid on the CPU, the GPU or both; a reader on the
//     other device gets an upload or a download first, graph outputs end on the
//     CPU. Constant weights read on the GPU upload once, at prepare.
//  3. GPU memory: values resident on the GPU get storage buffers ("slots"),
//     reused between values whose GPU lifetimes do not overlap (the arena's
//     idea with whole buffers, so that a dispatch never binds one buffer twice
//     with a write).
// The result is a JSON program that the JS executor replays (npm/src/lib/webgpu).
#include <algorithm>
#include <cstdint>
#include <map>
#include <tuple>
#include <memory>
#include <unordered_map>

#include "core/json.h"
#include "ops/webgpu.h"
#include "runtime/session_impl.h"

namespace tir {

namespace {
bool int64_fits_int32(const Buffer& b) {
  const auto* v = reinterpret_cast<const int64_t*>(b.data);
  for (size_t i = 0; i < b.nbytes / sizeof(int64_t); ++i)
    if (v[i] < INT32_MIN || v[i] > INT32_MAX) return false;
  return true;
}
}  // namespace
namespace {

struct Value {
  Buffer* buffer = nullptr;
  // Keeps a buffer that only a lowering holds (a split-K GEMM's partial sums) alive while the
  // plan is made, so that no later buffer reuses its address (values are keyed by address).
  std::shared_ptr<Buffer> hold;
  DType dtype = DType::F32;  // CPU storage dtype (of the first tensor seen; complex64 as float32)
  bool constant_weight = false;
  bool resident = false;  // a GPU-resident graph input: its own slot, never uploaded
  bool cpu_valid = false, gpu_valid = false, defined = false;
  int64_t gpu_first = -1, gpu_last = -1;  // program positions touching it on the GPU
  int slot = -1;
  // A float16 weight of the IR (float32 in this memory, exactly) on a device with shader-f16:
  // held as f16 on the GPU (half the bytes) when every GPU reader converts it on load
  // (f16_readable); any other reader keeps it f32 there. With weight_dtype float16
  // (SessionOptions, the package's weightDtype), also a float32 weight that every GPU reader
  // binds as a GEMM's weight operand (GpuDispatch::gemm_weight), the weights the CPU's GEMMs
  // pack as halves: rounded to f16 on upload, as the CPU rounds its packed copy.
  bool half_source = false, f32_reader = false;
  bool half_by_weight_dtype = false;
  bool gemm_reader = false;  // half_by_weight_dtype: some GPU reader binds it as a GEMM weight
  // A part of a constant weight larger than the device's largest binding (GpuDispatch::parts):
  // elements [part_first, part_first + part_count) of `buffer`, a GPU buffer of its own.
  int64_t part_first = -1, part_count = 0;
  bool gpu_half() const { return half_source && !f32_reader; }
  // int8 / uint8: bytes on the GPU too, four to a word (GpuDispatch::packed_bytes); a constant
  // 4-bit weight that every GPU reader reads as nibbles (GpuDispatch::nibbles): eight to a word.
  bool gpu_bytes() const { return dtype == DType::I8 || dtype == DType::U8; }
  bool nibble_reader = false, byte_reader = false;
  bool gpu_int4() const { return constant_weight && dtype == DType::I8 && nibble_reader && !byte_reader; }
  uint64_t numel() const { return part_first >= 0 ? uint64_t(part_count) : buffer->nbytes / dtype_size(dtype); }
  uint64_t gpu_storage_bytes() const {
    return gpu_int4() ? (numel() + 1) / 2 : numel() * (gpu_bytes() ? 1 : gpu_half() ? 2 : 4);
  }
};

std::string quoted(const std::string& s) {
  std::string out;
  json::append_string(&out, s);
  return out;
}

}  // namespace

std::string Session::Impl::webgpu_plan_json(const WebGpuDevice& device, const std::vector<size_t>& gpu_inputs,
                                            const std::vector<size_t>& gpu_outputs, GpuPlacement* placement) {
  Impl& s = *this;
  const uint64_t max_binding_bytes = device.max_binding_bytes;
  const DType weight_dtype = s.options.weight_dtype;
  if (placement) placement->on_gpu.assign(s.steps.size(), 0);
  // What the CPU reads of the weights (place_for_webgpu: those stay in memory).
  auto cpu_reads = [&](const Tensor& t) {
    if (placement && t.defined() && t.buffer->kind == Buffer::Kind::Weight)
      placement->cpu_read_weights.insert(s.graph.aliases().root(t.buffer.get()));
  };
  std::vector<Value> values;
  std::unordered_map<const Buffer*, int> id_of;
  std::unordered_map<const Buffer*, bool> mutated_weight;
  for (const auto& kv : s.weights)
    if (kv.second.mutated) mutated_weight[kv.second.tensor.buffer.get()] = true;
  // A value is a memory: buffers merged by the in-place pass (an index_copy
  // output planned in its cache input's slot) are one value, one GPU slot.
  const AliasClasses& aliases = s.graph.aliases();
  auto root = [&](const Tensor& t) { return aliases.root(t.buffer.get()); };
  auto value_of = [&](const Tensor& t) -> int {
    Buffer* b = root(t);
    auto it = id_of.find(b);
    if (it != id_of.end()) return it->second;
    Value v;
    v.buffer = b;
    if (t.buffer.get() == b) v.hold = t.buffer;
    // complex64: float32 pairs, as the kernels bind it (gpu_complex_as_pairs).
    v.dtype = t.dtype == DType::C64 ? DType::F32 : t.dtype;
    v.constant_weight = b->kind == Buffer::Kind::Weight && !mutated_weight.count(b);
    v.cpu_valid = v.defined = b->kind == Buffer::Kind::Weight || b->kind == Buffer::Kind::Input;
    auto w = s.weight_by_buffer.find(b);
    v.half_source = device.shader_f16 && v.constant_weight && v.dtype == DType::F32 && w != s.weight_by_buffer.end() &&
                    w->second->ir_dtype == DType::F16;
    v.half_by_weight_dtype = device.shader_f16 && weight_dtype == DType::F16 && !v.half_source && v.constant_weight &&
                             v.dtype == DType::F32 && w != s.weight_by_buffer.end();
    v.half_source = v.half_source || v.half_by_weight_dtype;
    values.push_back(v);
    return id_of[b] = int(values.size() - 1);
  };
  // The value binding b of dispatch d binds: its buffer's, or the part of a large weight it names
  // (one value per part, shared by every dispatch that names the same rows).
  std::map<std::tuple<const Buffer*, int64_t, int64_t>, int> part_ids;
  auto bind_value = [&](const GpuDispatch& d, size_t b) -> int {
    const Tensor& t = d.bindings[b];
    const int whole = value_of(t);
    for (const GpuDispatch::Part& p : d.parts) {
      if (size_t(p.binding) != b) continue;
      auto key = std::make_tuple(values[size_t(whole)].buffer, p.first, p.count);
      auto it = part_ids.find(key);
      if (it != part_ids.end()) return it->second;
      gpu_need(values[size_t(whole)].constant_weight && p.first >= 0 && p.count > 0 &&
                   uint64_t(p.first + p.count) <= values[size_t(whole)].numel(),
               "a part of a value that is not a constant weight");
      Value v = values[size_t(whole)];
      v.hold = nullptr;
      v.part_first = p.first;
      v.part_count = p.count;
      values.push_back(v);
      return part_ids[key] = int(values.size() - 1);
    }
    return whole;
  };

  std::vector<std::string> program;  // items; a GPU step's is rendered after the loop (gpu_steps)
  struct GpuStep {
    size_t item;  // its index in program
    size_t step;
    GpuLowering lowered;
  };
  std::vector<GpuStep> gpu_steps;
  std::string fallbacks, view_nodes;
  int64_t pos = 0;  // program position, for GPU lifetimes
  int gpu_nodes = 0, wasm_nodes = 0, views = 0, uploads = 0, downloads = 0;
  std::vector<int> prepare_uploads;
  auto emit = [&](const std::string& item) {
    program.push_back(item);
    ++pos;
  };
  auto gpu_touch = [&](Value& v) {
    if (v.gpu_first < 0) v.gpu_first = pos;
    v.gpu_last = pos;
  };
  auto make_gpu_valid = [&](int id) {
    Value& v = values[size_t(id)];
    if (v.gpu_valid) return;
    if (v.constant_weight) {
      prepare_uploads.push_back(id);
      v.gpu_first = 0;  // alive for the whole program
    } else {
      gpu_touch(v);
      emit("{\"op\": \"upload\", \"value\": " + std::to_string(id) + "}");
      ++uploads;
    }
    v.gpu_valid = true;
  };
  auto make_cpu_valid = [&](int id) {
    Value& v = values[size_t(id)];
    if (v.cpu_valid || !v.defined) return;
    gpu_touch(v);
    emit("{\"op\": \"download\", \"value\": " + std::to_string(id) + "}");
    ++downloads;
    v.cpu_valid = true;
  };

  // Resident inputs hold last run's state on the GPU (the caller's copies put
  // it there); their CPU copies are stale, so a WASM reader gets a download.
  for (size_t i : gpu_inputs) {
    if (i >= s.inputs.size()) throw ExecutionError("webgpu_plan: no graph input " + std::to_string(i));
    Value& v = values[size_t(value_of(s.inputs[i]))];
    v.resident = v.gpu_valid = v.defined = true;
    v.cpu_valid = false;
    v.gpu_first = 0;
  }
  // A kept output's slot lives to the end of the run. Its GPU buffer is the output itself only
  // where the GPU storage is the CPU layout: float32 / int32, dense from the start of its
  // buffer, covering all of it ("kept_outputs", which a GPU tensor copies). Any other (a view of
  // part of a value, int64 narrowed to i32 on the GPU) is downloaded too, for the CPU's copy.
  auto whole_value = [&](const Tensor& t) {
    return t.defined() && (t.dtype == DType::F32 || t.dtype == DType::I32) && t.offset == 0 && t.is_contiguous() &&
           uint64_t(t.numel()) * dtype_size(t.dtype) == root(t)->nbytes;
  };
  std::vector<bool> kept(s.outputs.size(), false), gpu_layout(s.outputs.size(), false);
  for (size_t k : gpu_outputs) {
    if (k >= s.outputs.size()) throw ExecutionError("webgpu_plan: no graph output " + std::to_string(k));
    kept[k] = true;
    gpu_layout[k] = whole_value(s.outputs[k]);
  }
  const bool dynamic = s.has_dynamic;
  int64_t wasm_first = -1, wasm_last = -1;
  std::string wasm_nodes_list;
  auto flush_wasm = [&]() {
    if (wasm_first < 0) return;
    emit("{\"op\": \"wasm\", \"first\": " + std::to_string(wasm_first) + ", \"last\": " + std::to_string(wasm_last) +
         ", \"nodes\": [" + wasm_nodes_list + "]}");
    wasm_first = wasm_last = -1;
    wasm_nodes_list.clear();
  };

  // Whether binding b of d may bind a float16 weight held as f16: the kernel converts it to f32
  // on load. Elementwise: a copy (cast to the output's type), or an op that another float32
  // operand promotes to f32 compute (kernels.ts: float16 operands alone would give an f16 result).
  auto f16_readable = [&](const GpuDispatch& d, size_t b) {
    if (d.kernel != "elementwise") return b < d.names.size() && !d.names[b].empty();
    if (d.ew_op == "copy") return true;
    for (size_t j = 1; j < d.bindings.size(); ++j) {
      const Tensor& o = d.bindings[j];
      if (j != b && o.defined() && o.dtype == DType::F32 && !values[size_t(bind_value(d, j))].half_source) return true;
    }
    return false;
  };
  std::unordered_map<int, int> half_twin;  // value -> its f16 twin (below)
  // One GPU step's JSON: its dispatches with their bindings (value ids) and types; a binding of a
  // weight held as f16 on the GPU is typed f16 there.
  auto render_gpu_step = [&](size_t si, const GpuLowering& lowered) {
    const Step& st = *s.steps[si];
    std::string dispatches;
    for (const auto& d : lowered.dispatches) {
      std::string bind;
      auto types = d.types;
      auto ew_in = d.ew_in;
      for (size_t b = 0; b < d.bindings.size(); ++b) {
        const Tensor& t = d.bindings[b];
        int id = t.defined() ? bind_value(d, b) : -1;
        if (id >= 0 && int(b) == d.gemm_weight) {
          auto twin = half_twin.find(id);
          if (twin != half_twin.end()) id = twin->second;
        }
        bind += std::string(bind.empty() ? "" : ", ") + std::to_string(id);
        if (id < 0 || !values[size_t(id)].gpu_half()) continue;
        if (d.kernel == "elementwise") {  // binding b reads input b - 1
          ew_in[b - 1] = "float16";
          continue;
        }
        types.erase(std::remove_if(types.begin(), types.end(), [&](const auto& p) { return p.first == d.names[b]; }),
                    types.end());
        types.emplace_back(d.names[b], "f16");
      }
      std::string item = "{\"kernel\": " + quoted(d.kernel);
      if (!d.ew_op.empty()) {
        std::string in;
        for (const auto& x : ew_in) in += (in.empty() ? "" : ", ") + quoted(x);
        item += ", \"ew\": {\"op\": " + quoted(d.ew_op) + ", \"in\": [" + in + "], \"out\": " + quoted(d.ew_out) +
                ", \"alias\": " + std::to_string(d.alias_input) + "}";
      }
      auto pairs = [&](const char* name, const std::vector<std::pair<std::string, std::string>>& kv) {
        std::string o;
        for (const auto& p : kv) o += (o.empty() ? "" : ", ") + quoted(p.first) + ": " + quoted(p.second);
        item += std::string(", \"") + name + "\": {" + o + "}";
      };
      pairs("types", types);
      pairs("subst", d.subst);
      std::string written;
      for (int b : d.written) written += (written.empty() ? "" : ", ") + std::to_string(b);
      GpuMeta meta = d.meta;
      for (const auto& [b, field] : d.nibbles)
        if (values[size_t(bind_value(d, size_t(b)))].gpu_int4()) meta.u(field.c_str(), 1);
      item += ", \"meta\": {" + meta.json_fields() + "}, \"bind\": [" + bind + "], \"written\": [" + written +
              "], \"wg\": [" + std::to_string(d.workgroups[0]) + ", " + std::to_string(d.workgroups[1]) + ", " +
              std::to_string(d.workgroups[2]) + "]}";
      dispatches += (dispatches.empty() ? "" : ", ") + item;
    }
    std::string covers;
    for (const auto& name : st.call.epilogue.covers) covers += (covers.empty() ? "" : ", ") + quoted(name);
    // The node's outputs by IR name, where the GPU buffer is the output itself (a node that
    // covers none: its outputs are its own), for reading a node's values back (intermediates).
    std::string outs;
    for (size_t k = 0; covers.empty() && k < st.call.out.size() && k < st.node->outputs.size(); ++k) {
      const Tensor& t = st.call.out[k];
      if (!whole_value(t) || !id_of.count(root(t))) continue;
      outs += (outs.empty() ? "" : ", ") + std::string("{\"name\": ") + quoted(st.node->outputs[k].name) +
              ", \"value\": " + std::to_string(id_of[root(t)]) + "}";
    }
    return "{\"op\": \"gpu\", \"step\": " + std::to_string(si) + ", \"node\": " + quoted(st.node->name) +
           ", \"op_type\": " + quoted(st.node->op_type) + ", \"covers\": [" + covers + "], \"outputs\": [" + outs +
           "], \"dispatches\": [" + dispatches + "]}";
  };

  for (size_t si = 0; si < s.steps.size(); ++si) {
    Step& st = *s.steps[si];
    if (st.covered) continue;  // fused into its producer's epilogue: runs where the producer does
    const FusedEpilogue& epi = st.call.epilogue;
    const int fused = int(epi.covers.size());
    // The batch norm's params stay in memory: prepare makes the scale and shift both devices read.
    if (epi.has_bn)
      for (const Tensor* t : {&epi.bn_weight, &epi.bn_bias, &epi.bn_mean, &epi.bn_var}) cpu_reads(*t);
    // Views, and constants folded at prepare (weights from here on); never fused.
    if (!st.def->run || st.folded) {
      if (st.folded)
        for (const Tensor& t : st.call.in) cpu_reads(t);
      else  // its values are its input's, on whichever device holds them
        view_nodes += (view_nodes.empty() ? "" : ", ") + quoted(st.node->name);
      ++views;
      continue;
    }
    // 1. placement
    GpuLowering lowered;
    lowered.max_binding_bytes = max_binding_bytes;
    std::string why;
    bool on_gpu = false;
    bool unchecked_int64 = false;  // an int64 constant not computed yet (before bind): checked at the plan
    // An integer form (a lowered step) has no op type of its own: its def carries its lowering.
    const WebGpuLowerFn lower = dynamic                 ? nullptr
                                : st.def->traits.webgpu ? st.def->traits.webgpu
                                : st.lowered            ? nullptr
                                                        : WebGpuRegistry::instance().find(st.node->op_type);
    if (dynamic) why = "the graph has data-dependent shapes";
    else if (!lower && st.lowered) why = "its integer (quantized) kernel runs on WASM only";
    else if (!lower) why = "no WebGPU kernel for this op";
    else {
      try {
        on_gpu = lower(st.call, lowered);
        if (!on_gpu) why = "its dtypes or shapes have no WebGPU kernel";
        // A producer's fused epilogue (runtime/fusion.cpp) runs in the store of the dispatch
        // that writes its output (of each, where parts of a split weight write its windows).
        if (on_gpu && !epi.empty() && !lowered.dispatches.empty()) {
          int writers = 0;
          for (GpuDispatch& d : lowered.dispatches) {
            if (d.bindings.empty() || !d.bindings[0].defined() || root(d.bindings[0]) != root(st.call.out[0])) continue;
            gpu_need(d.takes_epilogue, "a fused epilogue its kernel does not take");
            gpu_add_epilogue(d, epi, st.call.out[0].shape);
            ++writers;
          }
          gpu_need(writers > 0 && root(lowered.dispatches.back().bindings.at(0)) == root(st.call.out[0]),
                   "a fused epilogue its kernel does not take");
        }
        for (const auto& d : lowered.dispatches) {
          for (size_t b = 0; b < d.bindings.size() && on_gpu; ++b) {
            const Tensor& t = d.bindings[b];
            if (!t.defined()) continue;
            if (std::count(d.packed_bytes.begin(), d.packed_bytes.end(), int(b)))
              gpu_need(t.dtype == DType::I8 || t.dtype == DType::U8, "a byte binding of a value that is not 8-bit");
            else
              gpu_dtype(t.dtype);
            const int id = bind_value(d, b);
            gpu_need(values[size_t(id)].dtype == t.dtype, "a value read as another dtype");
            Buffer* tb = root(t);
            if (values[size_t(id)].numel() * (values[size_t(id)].gpu_bytes() ? 1 : 4) > max_binding_bytes)
              gpu_unsupported("value '" + tb->label + "' is larger than the device's largest storage binding (" +
                              std::to_string(max_binding_bytes) + " bytes)");
            // int64 is held as int32 on the GPU: a constant that does not fit keeps its readers
            // on WASM here, where a run-time value would fail its upload (executor.js).
            if (t.dtype == DType::I64 && values[size_t(id)].constant_weight && t.buffer->data)
              gpu_need(int64_fits_int32(*t.buffer), "an int64 constant outside the int32 range the GPU holds");
            else if (t.dtype == DType::I64 && values[size_t(id)].constant_weight)
              unchecked_int64 = true;
            const bool writes = std::count(d.written.begin(), d.written.end(), int(b)) > 0;
            // A resident input is the caller's GPU state: written in place (donated KV caches).
            gpu_need(!writes || tb->kind == Buffer::Kind::Arena || values[size_t(id)].resident ||
                         (tb->kind == Buffer::Kind::Weight && mutated_weight.count(tb)),
                     "a write into a constant weight or an input");
            for (size_t o = 0; o < d.bindings.size(); ++o)
              if (o != b && d.bindings[o].defined() && root(d.bindings[o]) == tb)
                gpu_need(!writes && !std::count(d.written.begin(), d.written.end(), int(o)),
                         "an input in its output's memory");
          }
        }
        // Every output must come from a dispatch (or be a view of an input).
        const auto& out_ids = s.graph.outputs(si);
        for (size_t k = 0; k < st.call.out.size(); ++k) {
          const Tensor& o = st.call.out[k];
          if (!on_gpu || !o.defined() || lowered.dispatches.empty() || o.numel() == 0) continue;
          // An output nothing reads (native_layer_norm's mean/rstd) need not be made.
          if (k < out_ids.size() && out_ids[k] != kNoValue && s.graph.value(out_ids[k]).uses.empty() &&
              !s.graph.value(out_ids[k]).graph_output)
            continue;
          bool made = false;
          for (const auto& d : lowered.dispatches)
            for (int b : d.written) made = made || (size_t(b) < d.bindings.size() && root(d.bindings[size_t(b)]) == root(o));
          for (const Tensor& x : st.call.in) made = made || (x.defined() && root(x) == root(o));
          gpu_need(made, "an output no GPU kernel writes");
        }
      } catch (const GpuUnsupported& e) {
        on_gpu = false;
        why = e.why;
      }
    }
    if (!on_gpu) {
      // 2. a WASM step: its inputs must be on the CPU.
      if (st.gpu_only) prepare_after_placement(st);
      std::vector<Tensor> reads = st.call.in;
      reads.push_back(epi.residual);  // its fused epilogue's (the batch norm's params: above)
      if (st.call.quantized) {  // a lowered step's weight scales and zero points (quant_lowering.cpp)
        reads.push_back(st.call.quantized->weight_scale);
        reads.push_back(st.call.quantized->weight_zero_point);
      }
      for (const Tensor& t : reads) {
        if (!t.defined()) continue;
        cpu_reads(t);
        if (!placement && t.defined() && t.buffer->kind == Buffer::Kind::Weight && t.numel() > 0 && !root(t)->data)
          throw ExecutionError("node '" + st.node->name + "' (" + st.node->op_type + ") runs on WASM (" + why +
                               ") but reads weight '" + root(t)->label + "', which was streamed to the GPU");
      }
      bool pending_transfer = false;
      for (const Tensor& t : reads) {
        if (!t.defined()) continue;
        const int id = value_of(t);
        if (!values[size_t(id)].cpu_valid && values[size_t(id)].defined) pending_transfer = true;
      }
      if (pending_transfer) flush_wasm();
      for (const Tensor& t : reads)
        if (t.defined()) make_cpu_valid(value_of(t));
      for (const Tensor& t : st.call.out) {
        if (!t.defined()) continue;
        Value& v = values[size_t(value_of(t))];
        v.cpu_valid = v.defined = true;
        v.gpu_valid = false;
      }
      if (wasm_first < 0) wasm_first = int64_t(si);
      wasm_last = int64_t(si);
      wasm_nodes_list += (wasm_nodes_list.empty() ? "" : ", ") + quoted(st.node->name);
      for (const auto& name : epi.covers) wasm_nodes_list += ", " + quoted(name);
      wasm_nodes += 1 + fused;
      fallbacks += std::string(fallbacks.empty() ? "" : ",\n    ") + "{\"node\": " + quoted(st.node->name) +
                   ", \"op_type\": " + quoted(st.node->op_type) + ", \"why\": " + quoted(why) + "}";
      continue;
    }
    if (lowered.dispatches.empty()) {
      // Planned as a view (or an empty output): nothing runs on either device.
      for (const Tensor& t : st.call.out) {
        if (!t.defined()) continue;
        Value& v = values[size_t(value_of(t))];
        if (!v.defined) v.cpu_valid = v.gpu_valid = v.defined = true;
      }
      view_nodes += (view_nodes.empty() ? "" : ", ") + quoted(st.node->name);
      ++views;
      continue;
    }
    flush_wasm();
    gpu_nodes += 1 + fused;
    if (placement) placement->on_gpu[si] = 1;
    // Placed before its int64 constants exist (folded at prepare): the plan may yet put it on
    // WASM, so its weights stay in memory.
    if (unchecked_int64)
      for (const Tensor& t : st.call.in) cpu_reads(t);
    for (const auto& d : lowered.dispatches) {
      for (size_t b = 0; b < d.bindings.size(); ++b) {
        const Tensor& t = d.bindings[b];
        if (!t.defined()) continue;
        const int id = bind_value(d, b);
        const bool writes = std::count(d.written.begin(), d.written.end(), int(b)) > 0;
        // A written value keeps what it held (in-place ops, partial writes).
        if (!writes || values[size_t(id)].defined || d.alias_input >= 0) make_gpu_valid(id);
        Value& rv = values[size_t(id)];
        if (std::count(d.packed_bytes.begin(), d.packed_bytes.end(), int(b)))
          (std::any_of(d.nibbles.begin(), d.nibbles.end(), [&](const auto& p) { return p.first == int(b); })
               ? rv.nibble_reader
               : rv.byte_reader) = true;
        if (writes || !f16_readable(d, b)) rv.f32_reader = true;
        else if (rv.half_by_weight_dtype) (int(b) == d.gemm_weight ? rv.gemm_reader : rv.f32_reader) = true;
      }
      // What this dispatch writes, a later one of the step reads as it is (a split-K GEMM's
      // partial sums): no upload.
      for (size_t b : d.written) {
        if (b >= d.bindings.size() || !d.bindings[b].defined()) continue;
        Value& v = values[size_t(value_of(d.bindings[b]))];
        v.gpu_valid = v.defined = true;
        v.cpu_valid = false;
      }
    }
    // After every upload of the step: all its bindings live at its position.
    for (const auto& d : lowered.dispatches)
      for (size_t b = 0; b < d.bindings.size(); ++b)
        if (d.bindings[b].defined()) gpu_touch(values[size_t(bind_value(d, b))]);
    // Rendered once every reader of every weight is known (a float16 weight's binding types).
    gpu_steps.push_back({program.size(), si, std::move(lowered)});
    emit("");
  }
  flush_wasm();
  for (size_t k = 0; k < s.outputs.size(); ++k)
    if (s.outputs[k].defined() && !gpu_layout[k]) make_cpu_valid(value_of(s.outputs[k]));
  // Kept outputs: made on the GPU (an upload when WASM made one), and their
  // slots live to the end, where the caller copies them.
  for (size_t k = 0; k < s.outputs.size(); ++k)
    if (s.outputs[k].defined() && kept[k]) {
      const int id = value_of(s.outputs[k]);
      make_gpu_valid(id);
      gpu_touch(values[size_t(id)]);
    }
  // Buffers the graph writes in place (KV caches) end every run valid on the
  // CPU: the session's memory stays the one source of truth between runs
  // (bufferValue, resetBuffers, a second session sharing the buffers), at the
  // cost of an upload and a download of each written buffer per run.
  for (size_t i = 0; i < values.size(); ++i)
    if (mutated_weight.count(values[i].buffer)) make_cpu_valid(int(i));
  if (placement) {
    for (const Tensor& t : s.outputs) cpu_reads(t);
    for (const auto& kv : s.weights)
      if (kv.second.mutated) cpu_reads(kv.second.tensor);
  }

  // A weight_dtype-half weight that other GPU kernels read as f32 too (a tied embedding and
  // lm_head): its GEMM readers bind an f16 twin of it, uploaded once from the same source, as
  // the CPU's GEMM reads a packed half copy beside the float32 original.
  for (size_t i = 0, n = values.size(); i < n; ++i) {
    if (!values[i].half_by_weight_dtype || !values[i].f32_reader || !values[i].gemm_reader) continue;
    Value twin = values[i];
    twin.f32_reader = false;
    values.push_back(twin);
    half_twin[int(i)] = int(values.size() - 1);
    prepare_uploads.push_back(int(values.size() - 1));
  }
  for (const GpuStep& g : gpu_steps) program[g.item] = render_gpu_step(g.step, g.lowered);

  // 3. GPU slots: weights get their own; other values share by lifetime.
  std::vector<uint64_t> slot_bytes;
  std::vector<int64_t> slot_free_at;  // program position after which the slot is free
  std::vector<int> order;
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i].gpu_first >= 0) order.push_back(int(i));
  std::sort(order.begin(), order.end(), [&](int a, int b) { return values[size_t(a)].gpu_first < values[size_t(b)].gpu_first; });
  for (int id : order) {
    Value& v = values[size_t(id)];
    // Whole 4-byte words: WebGPU copies and writes buffers in multiples of 4 (f16: 2 bytes per element, int8: 1).
    const uint64_t bytes = std::max<uint64_t>(4, (v.gpu_storage_bytes() + 3) / 4 * 4);
    int best = -1;
    if (!v.constant_weight && !v.resident) {
      for (size_t k = 0; k < slot_bytes.size(); ++k)
        if (slot_free_at[k] < v.gpu_first && slot_bytes[k] >= bytes &&
            (best < 0 || slot_bytes[k] < slot_bytes[size_t(best)]))
          best = int(k);
    }
    if (best < 0) {
      best = int(slot_bytes.size());
      slot_bytes.push_back(bytes);
      slot_free_at.push_back(0);
    }
    v.slot = best;
    slot_free_at[size_t(best)] = v.constant_weight || v.resident ? INT64_MAX : v.gpu_last;
  }

  // A streamed weight: the name of the source tensor the caller holds its bytes under.
  // A part of one: its first element in that tensor.
  auto streamed_source = [&](const Value& v) -> std::string {
    auto it = s.weight_by_buffer.find(v.buffer);
    if (it == s.weight_by_buffer.end() || !it->second->streamed) return "";
    return ", \"streamed\": " + quoted(it->second->streamed_source) +
           (v.part_first >= 0 ? ", \"part_first\": " + std::to_string(v.part_first) : "");
  };
  std::string out = "{\n  \"values\": [";
  for (size_t i = 0; i < values.size(); ++i) {
    const Value& v = values[i];
    const char* kind = v.buffer->kind == Buffer::Kind::Weight ? "weight" : v.buffer->kind == Buffer::Kind::Input ? "input" : "arena";
    const char* gdt = "";
    try {
      gdt = v.gpu_half() && v.gpu_first >= 0 ? "float16"
            : v.gpu_int4()                    ? "int4"
            : v.gpu_bytes()                   ? dtype_name(v.dtype)
                                              : gpu_dtype(v.dtype);
    } catch (const GpuUnsupported&) {
    }
    const std::string label =
        v.part_first < 0 ? v.buffer->label
                         : v.buffer->label + "[" + std::to_string(v.part_first) + ":" + std::to_string(v.part_first + v.part_count) + "]";
    const uint8_t* ptr = v.buffer->data && v.part_first > 0 ? v.buffer->data + v.part_first * dtype_size(v.dtype) : v.buffer->data;
    out += std::string(i ? ",\n    " : "\n    ") + "{\"label\": " + quoted(label) + ", \"kind\": \"" + kind +
           "\", \"dtype\": \"" + dtype_name(v.dtype) + "\", \"gpu_dtype\": \"" + gdt +
           "\", \"numel\": " + std::to_string(v.numel()) +
           ", \"ptr\": " + std::to_string(reinterpret_cast<uintptr_t>(ptr)) +
           ", \"slot\": " + std::to_string(v.slot) + (v.resident ? ", \"resident\": true" : "") +
           streamed_source(v) +
           "}";
  }
  out += "],\n  \"slots\": [";
  for (size_t k = 0; k < slot_bytes.size(); ++k) out += (k ? ", " : "") + std::to_string(slot_bytes[k]);
  // Graph I/O -> value ids (views of a value: offset and strides in the caller's tensors).
  auto io_ids = [&](const std::vector<Tensor>& list) {
    std::string o;
    for (size_t k = 0; k < list.size(); ++k)
      o += (k ? ", " : "") + (list[k].defined() && id_of.count(root(list[k]))
                                  ? std::to_string(id_of[root(list[k])]) : std::string("-1"));
    return o;
  };
  std::string kept_list;
  for (size_t k = 0; k < kept.size(); ++k)
    if (gpu_layout[k]) kept_list += (kept_list.empty() ? "" : ", ") + std::to_string(k);
  out += "],\n  \"inputs\": [" + io_ids(s.inputs) + "],\n  \"outputs\": [" + io_ids(s.outputs);
  out += "],\n  \"kept_outputs\": [" + kept_list;
  out += "],\n  \"prepare\": [";
  for (size_t k = 0; k < prepare_uploads.size(); ++k) out += (k ? ", " : "") + std::to_string(prepare_uploads[k]);
  std::string items;
  for (const std::string& item : program) items += (items.empty() ? "" : ",\n    ") + item;
  out += "],\n  \"program\": [\n    " + items + "],\n  \"fallbacks\": [\n    " + fallbacks + "],\n";
  out += "  \"view_nodes\": [" + view_nodes + "],\n";
  out += "  \"placement\": {\"webgpu\": " + std::to_string(gpu_nodes) + ", \"wasm\": " + std::to_string(wasm_nodes) +
         ", \"views\": " + std::to_string(views) + ", \"uploads\": " + std::to_string(uploads) +
         ", \"downloads\": " + std::to_string(downloads) + "}\n}\n";
  return out;
}

}  // namespace tir
