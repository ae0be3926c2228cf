// Session::prepare: runs every op's prepare() once the weights are bound.
// Derived copies of constants (packed or folded weights) are cached per
// (tensor view, layout), so tied weights are packed once.
#include <map>
#include <tuple>

#include "runtime/session_impl.h"

namespace tir {

namespace {

// One map per element type; the key is the source view plus the layout name.
template <typename T>
class TypedCache {
 public:
  std::shared_ptr<const std::vector<T>> get(const Tensor& source, const std::string& layout,
                                            const std::function<void(std::vector<T>&)>& make) {
    Key key{source.buffer.get(), source.offset, source.shape, source.strides, layout};
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    auto v = std::make_shared<std::vector<T>>();
    make(*v);
    cache_.emplace(std::move(key), v);
    return v;
  }

 private:
  using Key = std::tuple<const Buffer*, int64_t, Shape, Strides, std::string>;
  std::map<Key, std::shared_ptr<const std::vector<T>>> cache_;
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

 private:
  DType weight_dtype_;
  TypedCache<float> floats_;
  TypedCache<uint16_t> halves_;
};

}  // namespace

void Session::Impl::prepare() {
  derived_cache = std::make_unique<DerivedCache>(options.weight_dtype);
  for (auto& step : steps) {
    if (!step->def->prepare || step->covered) continue;
    step->call.prepare_ctx = derived_cache.get();
    step->def->prepare(step->call);
    step->call.prepare_ctx = nullptr;
  }
  prepared = true;
}

}  // namespace tir
