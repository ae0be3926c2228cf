// torch.save (zip format, torch >= 1.6): <prefix>/data.pkl is a pickle whose
// tensors are `_rebuild_tensor_v2(storage, offset, size, stride, ...)` calls
// and whose storages are persistent ids ('storage', torch.FloatStorage, key,
// location, numel) naming raw little-endian bytes in <prefix>/data/<key>.
#include "weights/torch_save.h"

#include <unordered_map>

#include "core/errors.h"
#include "core/file_io.h"
#include "weights/byte_util.h"
#include "weights/pickle.h"
#include "weights/safetensors.h"
#include "weights/zip_reader.h"

namespace tir {

using namespace weights_internal;

namespace {

using Kind = PyObj::Kind;

struct StorageType { const char* name; DType dtype; };
constexpr StorageType kStorageTypes[] = {
    {"FloatStorage", DType::F32},  {"DoubleStorage", DType::F64}, {"HalfStorage", DType::F16},
    {"BFloat16Storage", DType::BF16}, {"LongStorage", DType::I64}, {"IntStorage", DType::I32},
    {"ShortStorage", DType::I16},  {"CharStorage", DType::I8},    {"ByteStorage", DType::U8},
    {"BoolStorage", DType::Bool},  {"ComplexFloatStorage", DType::C64},
    {"ComplexDoubleStorage", DType::C128},
    {"UntypedStorage", DType::U8},  // raw storages saved on their own (torch >= 2.0)
};

// Callables REDUCE may invoke (by name only; they are interpreted, not run).
const char* const kCallables[] = {
    "collections.OrderedDict",
    "torch._utils._rebuild_tensor",
    "torch._utils._rebuild_tensor_v2",
    "torch._utils._rebuild_parameter",
    "torch._utils._rebuild_parameter_with_state",
    "torch.device",
};

[[noreturn]] void refuse(const std::string& msg) { throw PickleFailure(msg); }

bool is_int(const PyObj* o) { return o->kind == Kind::Int; }

// No real tensor has more dims; bounds the per-tensor copies of size/stride tuples.
constexpr size_t kMaxRank = 64;

std::vector<int64_t> int_tuple(const PyObj* o, const char* what) {
  if (o->kind != Kind::Tuple && o->kind != Kind::List)
    refuse(std::string("tensor ") + what + " is " + describe(o) + ", not a tuple of ints");
  if (o->items.size() > kMaxRank)
    refuse(std::string("tensor ") + what + " has " + std::to_string(o->items.size()) + " dimensions (at most " +
           std::to_string(kMaxRank) + ")");
  std::vector<int64_t> v;
  for (const PyObj* x : o->items) {
    if (!is_int(x)) refuse(std::string("tensor ") + what + " holds " + describe(x) + ", not an int");
    v.push_back(x->i);
  }
  return v;
}

class TorchUnpickler : public Unpickler {
 public:
  TorchUnpickler(const ZipArchive& zip, std::string prefix,
                 std::shared_ptr<const std::vector<uint8_t>> bytes)
      : zip_(zip), prefix_(std::move(prefix)), bytes_(std::move(bytes)) {}

 protected:
  PyObj* find_class(const std::string& module, const std::string& name) override {
    const std::string full = module + "." + name;
    PyObj* g = nullptr;
    for (const char* c : kCallables)
      if (full == c) g = make(Kind::Global);
    if (module == "torch" || (module == "torch.storage" && name == "UntypedStorage")) {
      for (const auto& st : kStorageTypes) {
        if (name == st.name) {
          g = make(Kind::Global);
          g->b = true;  // a storage class
          g->dtype = st.dtype;
        }
      }
    }
    if (!g)
      refuse("refusing to load " + quote(full) +
             ": only tensors and containers are allowed (weights_only)");
    g->s = full;
    return g;
  }

  PyObj* reduce(PyObj* callable, PyObj* args) override {
    const std::string& f = callable->s;
    const std::vector<PyObj*>& a = args->items;
    auto arity = [&](size_t lo, size_t hi) {
      if (a.size() < lo || a.size() > hi)
        refuse(quote(f) + " called with " + std::to_string(a.size()) + " arguments");
    };
    if (f == "collections.OrderedDict") {
      PyObj* d = make(Kind::Dict);
      arity(0, 1);
      if (a.size() == 1) {  // OrderedDict([(k, v), ...])
        if (a[0]->kind != Kind::List && a[0]->kind != Kind::Tuple) refuse("OrderedDict of " + describe(a[0]));
        charge(a[0]->items.size());  // the same memoized list may be passed many times
        for (PyObj* kv : a[0]->items) {
          if ((kv->kind != Kind::Tuple && kv->kind != Kind::List) || kv->items.size() != 2)
            refuse("OrderedDict item is not a (key, value) pair");
          dict_set(d, kv->items[0], kv->items[1]);
        }
      }
      return d;
    }
    if (f == "torch._utils._rebuild_tensor_v2" || f == "torch._utils._rebuild_tensor") {
      // v2: (storage, storage_offset, size, stride, requires_grad, backward_hooks[, metadata])
      if (f == "torch._utils._rebuild_tensor") arity(4, 4); else arity(6, 7);
      return rebuild_tensor(a[0], a[1], a[2], a[3]);
    }
    if (f == "torch._utils._rebuild_parameter" || f == "torch._utils._rebuild_parameter_with_state") {
      // (data, requires_grad, backward_hooks[, state]): the parameter is its data.
      if (f == "torch._utils._rebuild_parameter") arity(3, 3); else arity(4, 4);
      if (a[0]->kind != Kind::Tensor) refuse("parameter data is " + describe(a[0]) + ", not a tensor");
      return a[0];
    }
    if (f == "torch.device") {  // device('cpu') / device('cuda', 0): kept as its type name
      arity(1, 2);
      if (a[0]->kind != Kind::Str) refuse("torch.device of " + describe(a[0]));
      return make_str(a[0]->s);
    }
    refuse(quote(f) + " cannot be called: storages only come from persistent ids");
  }

  PyObj* persistent_load(PyObj* pid) override {
    const auto& t = pid->items;
    if (pid->kind != Kind::Tuple || t.size() != 5 || t[0]->kind != Kind::Str || t[0]->s != "storage" ||
        t[1]->kind != Kind::Global || !t[1]->b || t[2]->kind != Kind::Str || !is_int(t[4]))
      refuse("unsupported persistent id: expected ('storage', <storage type>, key, location, numel)");
    const std::string& key = t[2]->s;
    const DType dtype = t[1]->dtype;
    const int64_t numel = t[4]->i;
    const std::string entry_name = prefix_ + "/data/" + key;
    const std::string who = "storage " + quote(key) + " (" + t[1]->s.substr(6) + ")";
    uint64_t need = 0;
    if (numel < 0 || !checked_nbytes({numel}, dtype_size(dtype), &need))
      refuse(who + " has an invalid element count " + std::to_string(numel));

    auto it = buffers_.find(key);
    if (it == buffers_.end()) {
      const ZipEntry* e = zip_.find(entry_name);
      if (!e) refuse(who + " is missing from the archive (no " + quote(entry_name) + ")");
      const uint8_t* p = zip_.stored_data(*e);  // throws a complete WeightLoadError
      it = buffers_.emplace(key, std::make_pair(make_weight_buffer(p, size_t(e->size), dtype_size(dtype),
                                                                   bytes_, entry_name),
                                                e->size)).first;
    }
    if (it->second.second < need)
      refuse(who + " holds " + std::to_string(numel) + " elements (" + std::to_string(need) +
             " bytes) but " + quote(entry_name) + " has " + std::to_string(it->second.second) + " bytes");
    PyObj* s = make(Kind::Storage);
    s->s = key;
    s->dtype = dtype;
    s->i = numel;
    s->tensor.buffer = it->second.first;
    return s;
  }

  void build(PyObj* obj, PyObj* state) override {
    // OrderedDict state carries `_metadata` (module versions): not tensors, ignored.
    if (obj->kind == Kind::Dict || obj->kind == Kind::Tensor) return;
    refuse("BUILD on " + describe(obj) + " is not allowed");
  }

 private:
  PyObj* rebuild_tensor(PyObj* storage, PyObj* offset, PyObj* size, PyObj* stride) {
    if (storage->kind != Kind::Storage) refuse("tensor storage is " + describe(storage));
    if (!is_int(offset)) refuse("tensor storage offset is " + describe(offset) + ", not an int");
    PyObj* o = make(Kind::Tensor);
    o->storage = storage;
    o->tensor.buffer = storage->tensor.buffer;
    o->tensor.dtype = storage->dtype;
    o->tensor.shape = int_tuple(size, "size");
    o->tensor.strides = int_tuple(stride, "stride");
    o->tensor.offset = offset->i;
    if (o->tensor.shape.size() != o->tensor.strides.size())
      refuse("tensor size " + shape_to_string(o->tensor.shape) + " and stride " +
             shape_to_string(o->tensor.strides) + " differ in length");
    return o;
  }

  const ZipArchive& zip_;
  std::string prefix_;
  std::shared_ptr<const std::vector<uint8_t>> bytes_;
  std::unordered_map<std::string, std::pair<std::shared_ptr<Buffer>, uint64_t>> buffers_;
};

// Empty string when the view fits its storage, else what is wrong.
std::string check_view(const PyObj* t) {
  const Tensor& v = t->tensor;
  const uint64_t storage_numel = uint64_t(t->storage->i);
  const std::string desc = "view (size " + shape_to_string(v.shape) + ", stride " +
                           shape_to_string(v.strides) + ", offset " + std::to_string(v.offset) + ")";
  if (v.offset < 0) return desc + " has a negative offset";
  uint64_t numel = 1, last = uint64_t(v.offset);
  for (size_t d = 0; d < v.shape.size(); ++d) {
    if (v.shape[d] < 0 || v.strides[d] < 0) return desc + " has a negative size or stride";
    if (!mul_u64(numel, uint64_t(v.shape[d]), &numel)) return desc + " is too large";
  }
  if (numel == 0) {
    if (last > storage_numel) return desc + " starts past the end of its storage";
    return "";
  }
  // A stride-0 view can be far larger than its storage; the binder and the
  // inputs copy it to contiguous memory, so its logical bytes must be addressable.
  uint64_t logical_bytes = 0;
  if (numel > uint64_t(INT64_MAX) || !checked_nbytes({int64_t(numel)}, dtype_size(v.dtype), &logical_bytes))
    return desc + " has " + std::to_string(numel) + " elements, more bytes than this build can address";
  for (size_t d = 0; d < v.shape.size(); ++d) {
    uint64_t span = 0;
    if (!mul_u64(uint64_t(v.shape[d] - 1), uint64_t(v.strides[d]), &span) || !add_u64(last, span, &last))
      return desc + " is too large";
  }
  if (last >= storage_numel)
    return desc + " reaches element " + std::to_string(last) + " but storage " + quote(t->storage->s) +
           " has " + std::to_string(storage_numel) + " elements";
  return "";
}

TensorMap to_tensor_map(const PyObj* root, const std::string& origin) {
  auto fail = [&](const std::string& msg) { throw WeightLoadError(origin + ": " + msg); };
  const char* expected = "expected a state_dict (a dict of str -> tensor) or a checkpoint dict "
                         "with a 'state_dict' entry";
  if (root->kind != Kind::Dict) fail("the saved object is " + describe(root) + "; " + expected);
  const PyObj* d = root;
  for (const auto& kv : root->dict) {
    if (kv.second->kind == Kind::Tensor) continue;
    // Not a flat state_dict: accept {'state_dict': {...}, ...} one level deep.
    auto it = root->str_keys.find("state_dict");
    if (it != root->str_keys.end() && root->dict[it->second].second->kind == Kind::Dict)
      d = root->dict[it->second].second;
    break;
  }
  TensorMap out;
  for (const auto& kv : d->dict) {
    if (kv.first->kind != Kind::Str) fail("a key is " + describe(kv.first) + ", not a str; " + expected);
    const std::string& name = kv.first->s;
    if (kv.second->kind != Kind::Tensor)
      fail("key " + quote(name) + " holds " + describe(kv.second) + ", not a tensor; " + expected);
    const std::string err = check_view(kv.second);
    if (!err.empty()) fail("tensor " + quote(name) + ": " + err);
    out.items.emplace_back(name, kv.second->tensor);
  }
  return out;
}

}  // namespace

TensorMap read_torch_save(std::shared_ptr<const std::vector<uint8_t>> bytes, const std::string& origin) {
  auto fail = [&](const std::string& msg) { throw WeightLoadError(origin + ": " + msg); };
  if (!bytes) fail("no data");
  ZipArchive zip(bytes->data(), bytes->size(), origin);

  // The records live under one top-level folder (its name varies with how the
  // file was saved); prefer the folder of the first record, as torch does.
  std::string prefix;
  if (!zip.entries().empty()) {
    const std::string& first = zip.entries().front().name;
    prefix = first.substr(0, first.find('/'));
  }
  if (!zip.find(prefix + "/data.pkl")) {
    prefix.clear();
    for (const auto& e : zip.entries()) {
      const size_t slash = e.name.find('/');
      if (slash != std::string::npos && e.name.compare(slash, std::string::npos, "/data.pkl") == 0) {
        prefix = e.name.substr(0, slash);
        break;
      }
    }
  }
  if (prefix.empty()) fail("not a torch.save archive: no '<name>/data.pkl' entry");
  for (const auto& e : zip.entries()) {
    if (e.name == prefix + "/constants.pkl" || e.name.rfind(prefix + "/code/", 0) == 0)
      fail("this is a TorchScript archive (torch.jit.save), not a torch.save state_dict; "
           "save model.state_dict() with torch.save instead");
  }
  if (const ZipEntry* bo = zip.find(prefix + "/byteorder")) {
    const uint8_t* p = zip.stored_data(*bo);
    if (std::string(reinterpret_cast<const char*>(p), size_t(bo->size)).rfind("big", 0) == 0)
      fail("big-endian archive (byteorder 'big') is not supported");
  }
  const ZipEntry* pkl = zip.find(prefix + "/data.pkl");
  zip.check_crc(*pkl);
  TorchUnpickler unpickler(zip, prefix, bytes);
  const PyObj* root = unpickler.load(zip.stored_data(*pkl), size_t(pkl->size), origin + ": " + pkl->name);
  return to_tensor_map(root, origin);
}

TensorMap read_torch_save_file(const std::string& path) { return read_torch_save(read_file_bytes(path), path); }

TensorMap read_weights_bytes(std::shared_ptr<const std::vector<uint8_t>> bytes, const std::string& origin) {
  if (!bytes || bytes->empty()) throw WeightLoadError(origin + ": file is empty");
  const std::vector<uint8_t>& b = *bytes;
  if (b.size() >= 4 && b[0] == 'P' && b[1] == 'K' && ((b[2] == 3 && b[3] == 4) || (b[2] == 5 && b[3] == 6)))
    return read_torch_save(bytes, origin);
  // Pickle protocol 2 starting with LONG1 of torch's legacy magic number.
  if (b.size() >= 4 && b[0] == 0x80 && b[1] == 2 && b[2] == 0x8a && b[3] == 0x0a)
    throw WeightLoadError(origin + ": legacy torch.save format (torch < 1.6 or "
                          "_use_new_zipfile_serialization=False) is not supported; re-save it with "
                          "a current torch.save");
  return read_safetensors(bytes, origin);
}

TensorMap read_weights_file(const std::string& path) { return read_weights_bytes(read_file_bytes(path), path); }

}  // namespace tir
