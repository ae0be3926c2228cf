// Restricted unpickler: a stack machine over the pickle opcodes that
// torch.save(state_dict) emits (protocol 2, plus a few harmless later ones).
// It never imports or calls anything: GLOBAL, REDUCE, BINPERSID and BUILD are
// delegated to a subclass that allowlists what they may produce.
#pragma once
#include <cstdint>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/tensor.h"

namespace tir {
namespace weights_internal {

// A Python value. Objects live in the Unpickler's arena and refer to each other
// by raw pointer, so cyclic or deeply nested pickles cannot leak or recurse.
struct PyObj {
  enum class Kind { None, Bool, Int, Float, Str, Bytes, Tuple, List, Dict, Global, Storage, Tensor };
  Kind kind = Kind::None;
  bool b = false;
  int64_t i = 0;                 // Int; Storage: element count
  double f = 0;
  std::string s;                 // Str, Bytes; Global: "module.name"; Storage: archive key
  std::vector<PyObj*> items;     // Tuple, List
  std::vector<std::pair<PyObj*, PyObj*>> dict;  // Dict (insertion order)
  std::unordered_map<std::string, size_t> str_keys;  // Dict: index of Str keys in `dict`
  std::unordered_map<int64_t, size_t> int_keys;      // Dict: index of Int/Bool keys (1 == True)
  size_t none_key = SIZE_MAX;                        // Dict: index of the None key
  DType dtype = DType::U8;       // Storage element type
  Tensor tensor;                 // Tensor view (unchecked; see the torch reader); Storage: its buffer
  PyObj* storage = nullptr;      // Tensor: its Storage object
};

// Thrown by the machine and its hooks; load() rethrows it as a WeightLoadError
// prefixed with the pickle's location. WeightLoadErrors pass through as they are.
struct PickleFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// "an int", "a tuple", "'torch.FloatStorage'" for error messages.
std::string describe(const PyObj* o);

// Bounds on what one pickle may make us build. A torch.save state_dict needs
// about 15 objects per tensor; these leave room for 100k+ tensors while
// keeping a hostile pickle's memory and time small and linear in its size.
struct PickleLimits {
  size_t max_objects = size_t(1) << 22;  // Python values created (each ~0.3 KB)
  size_t max_stack = size_t(1) << 20;    // stack entries plus open MARKs
  size_t max_memo = size_t(1) << 22;     // memo entries
  uint64_t max_work = uint64_t(1) << 21; // items inserted by container-building calls (OrderedDict, ...)
};

class Unpickler {
 public:
  explicit Unpickler(PickleLimits limits = PickleLimits()) : limits_(limits) {}
  virtual ~Unpickler() = default;
  // Runs the pickle in `data` to STOP and returns the result (owned by this
  // Unpickler). Errors are WeightLoadErrors; its own are prefixed with `where`.
  PyObj* load(const uint8_t* data, size_t size, const std::string& where);

  PyObj* make(PyObj::Kind kind);
  PyObj* make_str(std::string s);
  // Accounts `n` items of work done outside the opcode loop; throws past max_work.
  void charge(uint64_t n);

 protected:
  // Hooks; they throw PickleFailure to refuse.
  virtual PyObj* find_class(const std::string& module, const std::string& name) = 0;
  virtual PyObj* reduce(PyObj* callable, PyObj* args) = 0;
  virtual PyObj* persistent_load(PyObj* pid) = 0;
  virtual void build(PyObj* obj, PyObj* state) = 0;

 private:
  PickleLimits limits_;
  uint64_t work_ = 0;
  std::vector<std::unique_ptr<PyObj>> arena_;
};

// dict[key] = value with Python semantics for str/int/bool/None keys.
void dict_set(PyObj* dict, PyObj* key, PyObj* value);

}  // namespace weights_internal
}  // namespace tir
