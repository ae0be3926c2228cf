// Session::prepare: runs every op's prepare() once the weights are bound.
// Derived copies of constants (packed or folded weights) are cached per
// (tensor view, layout), so tied weights are packed once.
#include <map>
#include <tuple>

#include "runtime/session_impl.h"

namespace tir {

namespace {

class DerivedCache : public PrepareContext {
 public:
  std::shared_ptr<const std::vector<float>> derived(const Tensor& source, const std::string& layout,
                                                    const std::function<void(std::vector<float>&)>& make) override {
    Key key{source.buffer.get(), source.offset, source.shape, source.strides, layout};
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    auto v = std::make_shared<std::vector<float>>();
    make(*v);
    cache_.emplace(std::move(key), v);
    return v;
  }

 private:
  using Key = std::tuple<const Buffer*, int64_t, Shape, Strides, std::string>;
  std::map<Key, std::shared_ptr<const std::vector<float>>> cache_;
};

}  // namespace

void Session::Impl::prepare() {
  derived_cache = std::make_unique<DerivedCache>();
  for (auto& step : steps) {
    if (!step->def->prepare || step->covered) continue;
    step->call.prepare_ctx = derived_cache.get();
    step->def->prepare(step->call);
    step->call.prepare_ctx = nullptr;
  }
  prepared = true;
}

}  // namespace tir
