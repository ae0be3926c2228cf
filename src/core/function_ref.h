// A non-owning reference to a callable (as C++26's std::function_ref): cheap
// to pass, never allocates, so a run's parallel_for calls allocate nothing.
// The callable must outlive the reference: bind a named lambda (or pass one
// straight to a function parameter), never a temporary kept past the call.
#pragma once
#include <type_traits>
#include <utility>

namespace tir {

template <typename Sig> class FunctionRef;

template <typename R, typename... Args>
class FunctionRef<R(Args...)> {
 public:
  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, FunctionRef> &&
                                                    std::is_invocable_r_v<R, F&, Args...>>>
  FunctionRef(F&& f) noexcept  // NOLINT: implicit, as std::function
      : obj_(const_cast<void*>(static_cast<const void*>(&f))),
        call_([](void* obj, Args... args) -> R {
          return (*static_cast<std::remove_reference_t<F>*>(obj))(std::forward<Args>(args)...);
        }) {}

  R operator()(Args... args) const { return call_(obj_, std::forward<Args>(args)...); }

 private:
  void* obj_;
  R (*call_)(void*, Args...);
};

}  // namespace tir
