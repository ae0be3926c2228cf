// Session::prepare: runs every op's prepare() once the weights are bound.
// Derived copies of constants (packed or folded weights) are cached per
// (memory, view, layout), so tied weights are packed once, and sessions that
// share a cache (SessionOptions::shared_prepare: a LanguageModel's prefill and
// decode, bound to the same weight bytes) share one packed copy.
#include <map>
#include <tuple>

#include "ops/epilogue.h"
#include "runtime/limits.h"
#include "runtime/session_impl.h"

namespace tir {

namespace {

// One map per element type; the key is the source view plus the layout name.
template <typename T>
class TypedCache {
 public:
  std::shared_ptr<const std::vector<T>> get(const Tensor& source, const std::string& layout,
                                            const std::function<void(std::vector<T>&)>& make) {
    // By address: two sessions' weight slots over the same bytes meet here.
    // The entry pins the source buffer, so the address is never reused.
    Key key{source.raw(), source.dtype, source.shape, source.strides, layout};
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second.value;
    auto v = std::make_shared<std::vector<T>>();
    make(*v);
    bytes_ += v->size() * sizeof(T);
    cache_.emplace(std::move(key), Entry{v, source.buffer});
    return v;
  }
  size_t bytes() const { return bytes_; }

 private:
  using Key = std::tuple<const uint8_t*, DType, Shape, Strides, std::string>;
  struct Entry {
    std::shared_ptr<const std::vector<T>> value;
    std::shared_ptr<Buffer> pin;
  };
  std::map<Key, Entry> cache_;
  size_t bytes_ = 0;
};

class DerivedCache : public PrepareContext {
 public:
  explicit DerivedCache(DType weight_dtype) : weight_dtype_(weight_dtype) {}
  std::shared_ptr<const std::vector<float>> derived(const Tensor& source, const std::string& layout,
                                                    const std::function<void(std::vector<float>&)>& make) override {
    return floats_.get(source, layout, make);
  }
  std::shared_ptr<const std::vector<uint16_t>> derived_half(
      const Tensor& source, const std::string& layout,
      const std::function<void(std::vector<uint16_t>&)>& make) override {
    return halves_.get(source, layout, make);
  }
  DType packed_weight_dtype() const override { return weight_dtype_; }
  size_t derived_bytes() const override { return floats_.bytes() + halves_.bytes(); }

 private:
  DType weight_dtype_;
  TypedCache<float> floats_;
  TypedCache<uint16_t> halves_;
};

}  // namespace

std::shared_ptr<PrepareContext> make_shared_prepare_cache(DType weight_dtype) {
  return std::make_shared<DerivedCache>(weight_dtype);
}

void Session::Impl::prepare() {
  derived_cache = options.shared_prepare ? options.shared_prepare : make_shared_prepare_cache(options.weight_dtype);
  for (size_t i = 0; i < steps.size(); ++i) {
    auto& step = steps[i];
    if (step->call.epilogue.has_bn) prepare_bn_affine(step->call.epilogue);
    // A GPU node of a session with streamed weights is never prepared for WASM.
    step->gpu_only = has_streamed && placed && placed->on_gpu[i];
    if (step->gpu_only) continue;
    if (step->folded) {  // computed here, once: later steps may pack its value
      run_folded(*step);
      continue;
    }
    prepare_step(*step);
  }
  // Packed copies are only known once made; still refuse a session whose
  // memory ends up past the arena cap rather than let it grow further.
  check_arena_bytes(limits, uint64_t(arena_size) + folded_bytes + derived_cache->derived_bytes(),
                    "the arena plus folded constants and prepared weight copies");
  prepared = true;
}

// Both devices read a fused batch norm as scale and shift (its params stay in memory), made
// once per set of params in the prepare cache: sessions that share it (weightsFrom, a
// LanguageModel's pair) share the bytes, and so one GPU buffer.
void Session::Impl::prepare_bn_affine(FusedEpilogue& e) {
  const int64_t channels = e.bn_affine.shape[1];
  std::string layout = "bn_affine eps=" + std::to_string(e.bn_eps);
  for (const Tensor* t : {&e.bn_weight, &e.bn_bias, &e.bn_mean})
    layout += " " + (t->defined() ? std::to_string(reinterpret_cast<uintptr_t>(t->raw())) : std::string("-"));
  auto values = derived_cache->derived(e.bn_var, layout, [&](std::vector<float>& dst) {
    dst.resize(size_t(2 * channels));
    fill_batch_norm_affine(e, channels, dst.data());
  });
  Buffer& b = *e.bn_affine.buffer;
  b.data = reinterpret_cast<uint8_t*>(const_cast<float*>(values->data()));  // never written
  b.keepalive = values;
}

void Session::Impl::prepare_after_placement(Step& step) {
  for (const Tensor& t : step.call.in)
    if (t.defined() && t.buffer->kind == Buffer::Kind::Weight && t.numel() > 0 && !t.buffer->data)
      fail_gpu_only(step);
  step.gpu_only = false;
  prepare_step(step);
}

void Session::Impl::prepare_step(Step& step) {
  if (!step.def->prepare || step.covered) return;
  step.call.prepare_ctx = derived_cache.get();
  step.def->prepare(step.call);
  step.call.prepare_ctx = nullptr;
}

}  // namespace tir
