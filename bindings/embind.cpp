// Embind glue between the engine and the JS package (contract: bindings/API.md).
// No engine logic here: every method forwards to the engine. C++ exceptions
// never reach JS: fallible methods return "" or an error JSON {kind, message};
// methods returning data throw a JS Error when called in the wrong state.
#include <emscripten/em_asm.h>
#include <emscripten/heap.h>

#include "core/thread_pool.h"
#include "glue.h"
#include "ir/info.h"
#include "ir/json_loader.h"
#include "ir/mermaid.h"
#include "ir/validator.h"
#include "runtime/session.h"
#include "verify/truth.h"
#include "verify/verify.h"
#include "weights/torch_save.h"

using namespace tir_glue;

namespace {

class WasmModel : public TensorSources {
 public:
  // origin: the file name or URL the text came from, for error messages.
  std::string loadIR(const std::string& text, const std::string& origin) {
    return guarded([&] {
      session_.reset();
      model_.reset();
      inputs_.clear();
      outputs_.clear();
      expected_.clear();
      reference64_.clear();
      tir::Model m = tir::load_model_json(text, origin.empty() ? "<string>" : origin);
      tir::validate_model_or_throw(m);
      model_ = std::move(m);
    });
  }

  // The weights and constants stay referenced after compile (the session
  // holds views of the same buffers), so a sibling model can share them.
  std::string compile(const std::string& weight_dtype) {
    return guarded([&] {
      session_.reset();
      tir::SessionOptions o = session_options(weight_dtype, limits_);
      // A WebGPU session runs node by node on either device: fused epilogues
      // run on both (a GPU producer applies them at its store), donated
      // input slots only on WASM so far.
      if (webgpu_) o.update_in_place = false;
      o.keep_intermediates = keep_intermediates_;
      o.float64 = float64_;
      if (shared_prepare_ && prepare_dtype_ != o.weight_dtype)
        throw tir::ExecutionError("weightDtype '" + weight_dtype + "' differs from the '" +
                                  tir::dtype_name(prepare_dtype_) +
                                  "' of the model whose weights this one shares (weightsFrom)");
      if (!shared_prepare_) {
        shared_prepare_ = tir::make_shared_prepare_cache(o.weight_dtype);
        prepare_dtype_ = o.weight_dtype;
      }
      o.shared_prepare = shared_prepare_;
      pending_ = std::make_unique<tir::Session>(model(), o);
      pending_->set_profiling(profiling_);
      // Streamed weights (its own, or shared through weightsFrom): place first; the ones the CPU
      // reads are given their bytes (streamedToRead, setStreamedBytes) before finishCompile binds.
      bind_or_wait(webgpu_ ? std::optional(pending_->place_for_webgpu(gpu_device(max_binding_))) : std::nullopt);
    });
  }

  // Binds the next compile() to other's weights, constants and packed copies
  // (another IR of the same model, e.g. one per sequence length): the bytes
  // and the derived layouts exist once, whichever model compiled first.
  std::string shareWeights(const WasmModel& other) {
    return guarded([&] {
      if (!other.session_) throw tir::ExecutionError("weightsFrom: that model is not compiled yet");
      weights_ = other.weights_;
      constants_ = other.constants_;
      shared_prepare_ = other.shared_prepare_;
      prepare_dtype_ = other.prepare_dtype_;
    });
  }

  // Caps for the next compile (doubles from JS; 0 = the build's default).
  std::string setLimits(double max_tensor_bytes, double max_arena_bytes, double max_run_work) {
    return guarded([&] { limits_ = limits_from_js(max_tensor_bytes, max_arena_bytes, max_run_work); });
  }

  // The next compile() keeps every node's output (intermediate(); fusion off), and runs the graph
  // in float64 (SessionOptions::float64): the package's per-node provider comparison.
  void setKeepIntermediates(bool on) { keep_intermediates_ = on; }
  void setFloat64(bool on) { float64_ = on; }
  // A node output of the last run (keepIntermediates): {dtype, shape, bytes (a copy, contiguous)},
  // or null when the graph has no such value.
  val intermediate(const std::string& name) const {
    return or_throw<val>([&] {
      need_session();
      const tir::Tensor* t = session_->value(name);
      if (!t || !t->defined()) return val::null();
      const tir::Tensor c = tir::to_dtype_owned(*t, t->dtype);  // contiguous
      val o = val::object();
      o.set("dtype", std::string(tir::dtype_name(c.dtype)));
      o.set("shape", shape_to_js(c.shape));
      o.set("bytes", val::global("Uint8Array").new_(emscripten::typed_memory_view(c.nbytes(), c.raw())));
      return o;
    });
  }
  // The next compile() plans for WebGPU placement (webgpuPlan()).
  void setWebGpu(bool on) { webgpu_ = on; }
  // The device's largest storage binding, for the placement that decides which
  // streamed weights the CPU needs (compile).
  void setMaxBinding(double bytes) { max_binding_ = bytes; }
  // Whether the device has shader-f16: float16 weights are then held as f16 on the GPU.
  void setShaderF16(bool on) { shader_f16_ = on; }
  // Bytes of the weights in WASM memory and of those streamed to the GPU: {wasm, streamed}.
  val weightBytes() const {
    return or_throw<val>([&] {
      need_session();
      val o = val::object();
      o.set("wasm", double(session_->weight_bytes(false)));
      o.set("streamed", double(session_->weight_bytes(true)));
      return o;
    });
  }
  // The session's WebGPU program (JSON; runtime/webgpu_plan.cpp) for a device whose largest
  // storage binding is max_binding_bytes (shader-f16 as setShaderF16 said), or an error JSON
  // {kind, message}.
  std::string webgpuPlan(double max_binding_bytes) {
    std::string plan;
    std::string err = guarded([&] {
      need_session();
      plan = session_->webgpu_plan(gpu_device(max_binding_bytes));
    });
    return err.empty() ? plan : err;
  }
  // webgpuPlan() with GPU-resident graph I/O (Session::webgpu_plan), for GPU tensors: inputs
  // `gpu_inputs` (indices) start each run on the GPU only, where the caller copies them;
  // outputs `gpu_outputs` end the run there, not downloaded.
  std::string webgpuPlanIO(double max_binding_bytes, val gpu_inputs, val gpu_outputs) {
    std::string plan;
    std::string err = guarded([&] {
      need_session();
      auto indices = [](val list) {
        std::vector<size_t> out;
        for (int i : emscripten::vecFromJSArray<int>(list)) {
          if (i < 0) throw tir::ExecutionError("webgpuPlanIO: negative graph I/O index");
          out.push_back(size_t(i));
        }
        return out;
      };
      plan = session_->webgpu_plan(gpu_device(max_binding_bytes), indices(gpu_inputs), indices(gpu_outputs));
    });
    return err.empty() ? plan : err;
  }
  // The WebGPU executor's WASM parts: steps [first, last], inputs already in their slots.
  // setInput() values into the input slots (what run() does first), for the WebGPU executor.
  std::string stageInputs() {
    return guarded([&] {
      need_session();
      require_inputs();
      session_->set_inputs(inputs_);
    });
  }
  std::string runSteps(int first, int last) {
    return guarded([&] {
      need_session();
      if (first < 0 || last < first) throw tir::ExecutionError("runSteps: bad step range");
      session_->run_steps(size_t(first), size_t(last));
    });
  }
  // After a run driven by the WebGPU executor (graph outputs downloaded into
  // the session's memory): the outputs, as runSlots() leaves them.
  std::string collectOutputs() {
    return guarded([&] {
      need_session();
      collect_outputs();
    });
  }

  int numInputs() const { return model_ ? int(model_->graph_inputs.size()) : 0; }
  int numOutputs() const { return model_ ? int(model_->graph_outputs.size()) : 0; }

  val inputInfo(int i) const {
    return or_throw<val>([&] { return info_object(model().graph_inputs.at(index(i, numInputs(), "input"))); });
  }
  // Before run(): the IR's declared dtype/shape. After: the actual output's
  // (float16/bfloat16 outputs come back as float32, the engine's compute dtype).
  val outputInfo(int i) const {
    return or_throw<val>([&] {
      const size_t k = index(i, numOutputs(), "output");
      val o = info_object(model().graph_outputs[k]);
      if (k < outputs_.size()) {
        o.set("dtype", std::string(tir::dtype_name(outputs_[k].dtype)));
        o.set("shape", shape_to_js(outputs_[k].shape));
      }
      return o;
    });
  }

  // Shape/dtype are checked by Session::run (float16 inputs are widened there).
  std::string setInput(int i, const std::string& dtype, const val& shape, const val& bytes) {
    return guarded([&] {
      need_session();
      if (i < 0 || size_t(i) >= inputs_.size())
        throw tir::ExecutionError("expected " + std::to_string(inputs_.size()) + " input(s), got input index " +
                                  std::to_string(i));
      const std::string what = "input " + std::to_string(i) + " ('" + model_->graph_inputs[size_t(i)].name + "')";
      inputs_[size_t(i)] = tensor_from_js<tir::ExecutionError>(what, dtype, shape, bytes);
    });
  }

  std::string run() {
    return guarded([&] {
      need_session();
      outputs_.clear();
      require_inputs();
      outputs_ = session_->run(inputs_);
    });
  }

  // The fast path of execute(): the caller writes each input's bytes into the
  // view of its slot (same dtype/shape as inputSlotInfo), then runSlots(); no
  // tensor is allocated and nothing is converted on the way in.
  val inputSlot(int i) {
    return or_throw<val>([&] {
      need_session();
      const tir::Tensor& t = session_->input_slot(size_t(index(i, numInputs(), "input")));
      return val(emscripten::typed_memory_view(t.nbytes(), t.raw()));
    });
  }
  // "dtype shape..." of input slot i (e.g. "float32 1 3 224 224"): what the fast path accepts.
  std::string inputSlotInfo(int i) {
    return or_throw<std::string>([&] {
      need_session();
      const tir::Tensor& t = session_->input_slot(size_t(index(i, numInputs(), "input")));
      std::string s = tir::dtype_name(t.dtype);
      for (int64_t d : t.shape) s += " " + std::to_string(d);
      return s;
    });
  }
  std::string runSlots() {
    return guarded([&] {
      need_session();
      outputs_.clear();
      session_->run_slots();
      collect_outputs();
    });
  }

  // Input slot `input` takes output `output` of the last run (Session::carry):
  // returns the bytes copied, 0 when the graph updated that input in place.
  double carry(int output, int input) {
    return or_throw<double>([&] {
      need_session();
      return double(session_->carry(index(output, numOutputs(), "output"), index(input, numInputs(), "input")));
    });
  }

  val outputBytes(int i) const {
    return or_throw<val>([&] {
      if (outputs_.empty()) throw tir::ExecutionError("outputBytes(): no outputs, run() first");
      const tir::Tensor& t = outputs_[index(i, int(outputs_.size()), "output")];
      return val(emscripten::typed_memory_view(t.nbytes(), t.raw()));
    });
  }

  std::string setExpected(int i, const std::string& dtype, const val& shape, const val& bytes) {
    return guarded([&] {
      need_session();
      if (i < 0 || size_t(i) >= expected_.size())
        throw tir::VerificationError("expected output index " + std::to_string(i) + " out of range (" +
                                     std::to_string(expected_.size()) + " outputs)");
      expected_[size_t(i)] =
          tensor_from_js<tir::VerificationError>("expected output " + std::to_string(i), dtype, shape, bytes);
    });
  }

  // How many expected outputs the caller has (setExpected then fills them): another count than
  // the graph's makes verify() report the mismatch, as the native CLI does.
  void setExpectedCount(int n) {
    or_throw<bool>([&] {
      need_session();
      expected_.assign(size_t(std::max(n, 0)), tir::Tensor{});
      return true;
    });
  }

  // verify_outputs' report JSON (tir::report_to_json) plus "text": the native CLI's report lines
  // (format_report), so every front end prints the engine's words.
  std::string verify(double rtol, double atol) {
    std::string report;
    std::string err = guarded([&] {
      require_run_and_expected("verify()");
      const tir::VerifyReport r = tir::verify_outputs(outputs_, expected_, rtol, atol);
      report = tir::report_to_json(r);
      report.insert(report.size() - 1, ", \"text\": " + json_string(tir::format_report(r)));
    });
    return err.empty() ? report : err;
  }

  // verify's {reference64}: the float64 outputs, cleared and then added one by one (any count:
  // compareWithTruth reports a count mismatch).
  void clearReference64() { reference64_.clear(); }
  std::string addReference64(const std::string& dtype, const val& shape, const val& bytes) {
    return guarded([&] {
      reference64_.push_back(tensor_from_js<tir::VerificationError>(
          "reference64 output " + std::to_string(reference64_.size()), dtype, shape, bytes));
    });
  }
  // compare_with_truth (verify/truth.h) of the last run's outputs and the expected outputs
  // against reference64: {withinBound, outputs: [{index, judged, ours, reference, scale, bound,
  // withinBound}], errorMessage (null when none), text}. Doubles go as JS numbers (Infinity too).
  // text: the native CLI's float64 lines (format_truth_report), whose last line says whether an
  // rtol/atol failure (rtolFailed: verify's result was not valid) is only reassociation.
  val compareWithTruth(bool rtol_failed) const {
    return or_throw<val>([&] {
      require_run_and_expected("compareWithTruth()");
      const tir::TruthReport r = tir::compare_with_truth(outputs_, expected_, reference64_);
      val outputs = val::array();
      for (const auto& o : r.outputs) {
        val v = val::object();
        v.set("index", double(o.index));
        v.set("judged", o.judged);
        v.set("ours", o.ours);
        v.set("reference", o.torch);
        v.set("scale", o.scale);
        v.set("bound", o.bound);
        v.set("withinBound", o.ok);
        outputs.call<void>("push", v);
      }
      val report = val::object();
      report.set("withinBound", r.ok);
      report.set("outputs", outputs);
      report.set("errorMessage", r.error_message.empty() ? val::null() : val(r.error_message));
      report.set("text", tir::format_truth_report(r, rtol_failed));
      return report;
    });
  }

  // Keys of the weights or constants given that bind to nothing in this IR: the message, or "".
  std::string unknownKeysMessage(const std::string& kind) const {
    return or_throw<std::string>([&] { return unknown_keys_message({&model()}, kind); });
  }

  std::string info(bool as_json) const {
    return or_throw<std::string>(
        [&] { return as_json ? tir::model_info_json(model()) : tir::model_info_text(model()); });
  }
  std::string mermaid(int max_nodes, bool include_weights) const {
    return or_throw<std::string>([&] { return tir::ir_to_mermaid(model(), max_nodes, include_weights); });
  }
  std::string pie(int top_n) const {
    return or_throw<std::string>([&] { return tir::op_distribution_pie(model(), top_n); });
  }

  void setProfiling(bool on) {
    profiling_ = on;
    if (session_) session_->set_profiling(on);
  }
  std::string profile() const {
    std::string s = "[";
    if (session_) {
      for (const auto& t : session_->last_profile()) {
        char ms[32];
        std::snprintf(ms, sizeof ms, "%.6f", t.ms);
        std::string covers;
        for (const auto& c : t.covers) covers += (covers.empty() ? "" : ", ") + json_string(c);
        s += (s.size() > 1 ? ", " : "") + std::string("{\"node\": ") + json_string(t.node) +
             ", \"op_type\": " + json_string(t.op_type) + ", \"ms\": " + ms + ", \"covers\": [" + covers + "], \"folded\": " +
             (t.folded ? "true" : "false") + "}";
      }
    }
    return s + "]";
  }

  std::string mutatedBuffers() const {
    std::string s = "[";
    if (session_)
      for (const auto& k : session_->mutated_buffers()) s += (s.size() > 1 ? ", " : "") + json_string(k);
    return s + "]";
  }
  val bufferBytes(const std::string& name) {
    return or_throw<val>([&] {
      need_session();
      buffer_copy_ = session_->buffer_value(name);
      return val(emscripten::typed_memory_view(buffer_copy_.nbytes(), buffer_copy_.raw()));
    });
  }
  void resetBuffers() {
    if (session_) session_->reset_buffers();
  }
  double arenaBytes() const { return session_ ? double(session_->arena_bytes()) : 0.0; }

 private:
  const tir::Model& model() const {
    if (!model_) throw tir::ExecutionError("no model: loadIR() first");
    return *model_;
  }
  static size_t index(int i, int n, const char* what) {
    if (i < 0 || i >= n)
      throw tir::ExecutionError(std::string("no ") + what + " " + std::to_string(i) + " (the model has " +
                                std::to_string(n) + ")");
    return size_t(i);
  }
  void require_inputs() const {
    for (size_t i = 0; i < inputs_.size(); ++i)
      if (!inputs_[i].defined())
        throw tir::ExecutionError("input " + std::to_string(i) + " ('" + model_->graph_inputs[i].name + "') was not set");
  }
  bool compile_pending() const override { return pending_ != nullptr; }
  void bind_pending() override {
    std::unique_ptr<tir::Session> s = std::move(pending_);
    s->bind(weights_, constants_);
    session_ = std::move(s);
    inputs_.assign(model_->graph_inputs.size(), tir::Tensor{});
    expected_.assign(model_->graph_outputs.size(), tir::Tensor{});
    outputs_.clear();
  }
  // What verify() and compareWithTruth() compare: the last run's outputs and every expected output.
  void require_run_and_expected(const char* who) const {
    need_session();
    if (outputs_.empty() && !expected_.empty())
      throw tir::VerificationError(std::string(who) + " needs a successful run() first");
    if (expected_.size() != model_->graph_outputs.size()) return;  // verify_outputs reports the count
    for (size_t i = 0; i < expected_.size(); ++i)
      if (!expected_[i].defined())
        throw tir::VerificationError("expected output " + std::to_string(i) + " was not set");
  }
  // Contiguous outputs are read in place (valid until the next run).
  void collect_outputs() {
    outputs_.clear();
    for (const tir::Tensor& o : session_->output_views())
      outputs_.push_back(o.is_contiguous() ? o : tir::to_dtype_owned(o, o.dtype));
  }
  void need_session() const {
    if (!session_) throw tir::ExecutionError("the model is not compiled: compile() first");
  }
  static val info_object(const tir::TensorMeta& m) {
    val o = val::object();
    o.set("name", m.name);
    o.set("dtype", std::string(tir::dtype_name(m.dtype)));
    o.set("shape", shape_to_js(m.shape));
    return o;
  }

  std::optional<tir::Model> model_;
  std::unique_ptr<tir::Session> session_;
  tir::Limits limits_;  // setLimits, applied by compile
  bool profiling_ = false;
  bool webgpu_ = false;
  bool keep_intermediates_ = false, float64_ = false;
  double max_binding_ = double(uint64_t(128) << 20);
  std::unique_ptr<tir::Session> pending_;  // compiled and placed, waiting for streamed bytes
  bool shader_f16_ = false;
  tir::WebGpuDevice gpu_device(double max_binding) const { return {uint64_t(max_binding), shader_f16_}; }
  // Packed/derived weight copies, shared with every model bound through
  // shareWeights (one cache per weight dtype: it decides the packed layout).
  std::shared_ptr<tir::PrepareContext> shared_prepare_;
  tir::DType prepare_dtype_ = tir::DType::F32;
  std::vector<tir::Tensor> inputs_, outputs_, expected_, reference64_;
  tir::Tensor buffer_copy_;
};

// Threads beyond the pre-started Worker pool would only start once JS yields
// to the event loop, and the pool's join on resize would deadlock: refuse them.
void setNumThreads(int n) {
  or_throw<bool>([&] {
#ifdef __EMSCRIPTEN_PTHREADS__
    const int workers = EM_ASM_INT({ return PThread.unusedWorkers.length; }) + tir::num_threads() - 1;
    if (n - 1 > workers)
      throw tir::Error("setNumThreads(" + std::to_string(n) + "): the pthread pool has " + std::to_string(workers) +
                       " Worker(s), so at most " + std::to_string(workers + 1) +
                       " threads; create the module with pthreadPoolSize >= " + std::to_string(n - 1));
#endif
    tir::set_num_threads(n);
    return true;
  });
}
int numThreads() { return tir::num_threads(); }
int startedThreads() { return tir::started_threads(); }
bool hasThreads() {
#ifdef __EMSCRIPTEN_PTHREADS__
  return true;
#else
  return false;
#endif
}
double heapBytes() { return double(emscripten_get_heap_size()); }
// A view of `bytes` bytes of the module's memory at `ptr`: how the WebGPU
// executor moves values between a session's memory and the GPU (the addresses
// come from Session::webgpu_plan). JS can read the whole memory anyway; this
// only names the range.
val memoryView(double ptr, double bytes) {
  return val(emscripten::typed_memory_view(size_t(bytes), reinterpret_cast<uint8_t*>(uintptr_t(ptr))));
}

}  // namespace

EMSCRIPTEN_BINDINGS(torch_ir_wasm) {
  emscripten::class_<TensorSources>("TensorSources")
      .function("addWeightsFile", &TensorSources::addWeightsFile)
      .function("addWeightsFileStreamed", &TensorSources::addWeightsFileStreamed)
      .function("streamedWeights", &TensorSources::streamedWeights)
      .function("streamedToRead", &TensorSources::streamedToRead)
      .function("setStreamedBytes", &TensorSources::setStreamedBytes)
      .function("compilePending", &TensorSources::compilePending)
      .function("finishCompile", &TensorSources::finishCompile)
      .function("addWeightTensor", &TensorSources::addWeightTensor)
      .function("addConstantsFile", &TensorSources::addConstantsFile)
      .function("addConstantTensor", &TensorSources::addConstantTensor);
  emscripten::class_<WasmModel, emscripten::base<TensorSources>>("WasmModel")
      .constructor<>()
      .function("loadIR", &WasmModel::loadIR)
      .function("compile", &WasmModel::compile)
      .function("shareWeights", &WasmModel::shareWeights)
      .function("setLimits", &WasmModel::setLimits)
      .function("numInputs", &WasmModel::numInputs)
      .function("inputInfo", &WasmModel::inputInfo)
      .function("numOutputs", &WasmModel::numOutputs)
      .function("outputInfo", &WasmModel::outputInfo)
      .function("setInput", &WasmModel::setInput)
      .function("run", &WasmModel::run)
      .function("inputSlot", &WasmModel::inputSlot)
      .function("inputSlotInfo", &WasmModel::inputSlotInfo)
      .function("runSlots", &WasmModel::runSlots)
      .function("setWebGpu", &WasmModel::setWebGpu)
      .function("webgpuPlan", &WasmModel::webgpuPlan)
      .function("webgpuPlanIO", &WasmModel::webgpuPlanIO)
      .function("setKeepIntermediates", &WasmModel::setKeepIntermediates)
      .function("setFloat64", &WasmModel::setFloat64)
      .function("intermediate", &WasmModel::intermediate)
      .function("setMaxBinding", &WasmModel::setMaxBinding)
      .function("setShaderF16", &WasmModel::setShaderF16)
      .function("weightBytes", &WasmModel::weightBytes)

      .function("runSteps", &WasmModel::runSteps)
      .function("stageInputs", &WasmModel::stageInputs)
      .function("collectOutputs", &WasmModel::collectOutputs)
      .function("carry", &WasmModel::carry)
      .function("outputBytes", &WasmModel::outputBytes)
      .function("setExpectedCount", &WasmModel::setExpectedCount)
      .function("setExpected", &WasmModel::setExpected)
      .function("verify", &WasmModel::verify)
      .function("clearReference64", &WasmModel::clearReference64)
      .function("addReference64", &WasmModel::addReference64)
      .function("compareWithTruth", &WasmModel::compareWithTruth)
      .function("unknownKeysMessage", &WasmModel::unknownKeysMessage)
      .function("info", &WasmModel::info)
      .function("mermaid", &WasmModel::mermaid)
      .function("pie", &WasmModel::pie)
      .function("setProfiling", &WasmModel::setProfiling)
      .function("profile", &WasmModel::profile)
      .function("mutatedBuffers", &WasmModel::mutatedBuffers)
      .function("bufferBytes", &WasmModel::bufferBytes)
      .function("resetBuffers", &WasmModel::resetBuffers)
      .function("arenaBytes", &WasmModel::arenaBytes);
  emscripten::function("setNumThreads", &setNumThreads);
  emscripten::function("numThreads", &numThreads);
  emscripten::function("hasThreads", &hasThreads);
  emscripten::function("startedThreads", &startedThreads);
  emscripten::function("heapBytes", &heapBytes);
  emscripten::function("memoryView", &memoryView);
}
