// Argument rebuilding for the LibTorch reference backend: an IR node's tensor
// inputs + attrs + schema defaults -> the boxed stack of its aten op, the way
// pytorch-ir's executor rebuilds torch.ops.aten.* calls (docs/spec/OPS.md §1).
#include <ATen/ops/scalar_tensor.h>

#include <algorithm>
#include <sstream>

#include "core/errors.h"
#include "torch_backend/reference_internal.h"

namespace tir::torch_ref {

std::string what_of(const std::exception& e) {
  if (auto* ce = dynamic_cast<const c10::Error*>(&e)) return ce->what_without_backtrace();
  return e.what();
}

const Attr* find_attr(const OpNode& node, const std::string& name) {
  auto it = node.attrs.find(name);
  return it == node.attrs.end() ? nullptr : &it->second;
}

namespace {

[[noreturn]] void bad_attr(const std::string& name, const Attr& v, const char* want) {
  throw ExecutionError("attr '" + name + "' = " + v.to_string() + " is not " + want);
}

}  // namespace

int64_t attr_int(const std::string& name, const Attr& v) {
  if (v.kind == Attr::Kind::Int) return v.i;
  if (v.kind == Attr::Kind::Bool) return v.b ? 1 : 0;
  if (v.kind == Attr::Kind::Float && v.f == double(int64_t(v.f))) return int64_t(v.f);
  bad_attr(name, v, "an int");
}

namespace {

double attr_double(const std::string& name, const Attr& v) {
  if (!v.is_number()) bad_attr(name, v, "a number");
  return v.as_double();
}

bool attr_bool(const std::string& name, const Attr& v) {
  if (v.kind == Attr::Kind::Bool) return v.b;
  if (v.kind == Attr::Kind::Int) return v.i != 0;
  bad_attr(name, v, "a bool");
}

at::Scalar attr_scalar(const std::string& name, const Attr& v) {
  switch (v.kind) {
    case Attr::Kind::Bool: return at::Scalar(v.b);
    case Attr::Kind::Int: return at::Scalar(v.i);
    case Attr::Kind::Float: return at::Scalar(v.f);
    default: bad_attr(name, v, "a number");
  }
}

c10::IValue scalar_ivalue(const std::string& name, const Attr& v) {
  switch (v.kind) {
    case Attr::Kind::Bool: return c10::IValue(v.b);
    case Attr::Kind::Int: return c10::IValue(v.i);
    case Attr::Kind::Float: return c10::IValue(v.f);
    default: bad_attr(name, v, "a number");
  }
}

c10::IValue memory_format(const std::string& name, const Attr& v) {
  if (v.kind != Attr::Kind::String) return c10::IValue(attr_int(name, v));
  std::string s = v.s.rfind("torch.", 0) == 0 ? v.s.substr(6) : v.s;
  c10::MemoryFormat f;
  if (s == "contiguous_format") f = c10::MemoryFormat::Contiguous;
  else if (s == "preserve_format") f = c10::MemoryFormat::Preserve;
  else if (s == "channels_last") f = c10::MemoryFormat::ChannelsLast;
  else if (s == "channels_last_3d") f = c10::MemoryFormat::ChannelsLast3d;
  else bad_attr(name, v, "a memory format");
  return c10::IValue(static_cast<int64_t>(f));
}

// A Python number in a Tensor slot: a 0-d "wrapped number" so type promotion
// treats it as weakly typed, exactly like eager PyTorch's argument parser.
at::Tensor wrapped_number(const at::Scalar& s) {
  const at::ScalarType st = s.isFloatingPoint() ? at::kDouble : s.isBoolean() ? at::kBool : at::kLong;
  at::Tensor t = at::scalar_tensor(s, at::TensorOptions().dtype(st));
  t.unsafeGetTensorImpl()->set_wrapped_number(true);
  return t;
}

std::vector<int64_t> attr_int_list(const OpNode& node, const char* name) {
  std::vector<int64_t> out;
  if (const Attr* v = find_attr(node, name))
    if (v->kind == Attr::Kind::List)
      for (const auto& e : v->list) out.push_back(attr_int(name, e));
  return out;
}

std::vector<std::vector<bool>> attr_masks(const OpNode& node) {
  std::vector<std::vector<bool>> out;
  const Attr* v = find_attr(node, "_tensor_list_none_masks");
  if (!v || v->kind != Attr::Kind::List) return out;
  for (const auto& m : v->list) {
    std::vector<bool> mask;
    if (m.kind == Attr::Kind::List)
      for (const auto& e : m.list) mask.push_back(attr_bool("_tensor_list_none_masks", e));
    out.push_back(mask);
  }
  return out;
}

// ---------------------------------------------------------------- schema binding

enum class Slot { Tensor, OptTensor, TensorList, OptTensorList, Other };

Slot classify(const c10::Argument& a) {
  const c10::TypePtr& t = a.type();
  if (t->kind() == c10::TypeKind::TensorType) return Slot::Tensor;
  if (auto o = t->cast<c10::OptionalType>())
    if (o->getElementType()->kind() == c10::TypeKind::TensorType) return Slot::OptTensor;
  if (auto l = t->cast<c10::ListType>()) {
    const c10::TypePtr& e = l->getElementType();
    if (e->kind() == c10::TypeKind::TensorType) return Slot::TensorList;
    if (auto oe = e->cast<c10::OptionalType>())
      if (oe->getElementType()->kind() == c10::TypeKind::TensorType) return Slot::OptTensorList;
  }
  return Slot::Other;
}

c10::TypePtr unwrap_optional(const c10::TypePtr& t) {
  if (auto o = t->cast<c10::OptionalType>()) return o->getElementType();
  return t;
}

struct Binder {
  const OpNode& node;
  const std::vector<at::Tensor>& in;
  const c10::Device& device;
  const Lookup& lookup;
  bool float64 = false;

  c10::IValue dtype_value(DType d) const {
    const int64_t t = int64_t(d);
    return c10::IValue(float64 ? int64_t(widened(static_cast<c10::ScalarType>(t))) : t);
  }

  // A Tensor slot filled from attrs: a Python scalar, or (docs/spec/OPS.md §1.8) the name of a value.
  bool attr_tensor(const std::string& name, at::Tensor* out) const {
    const Attr* v = find_attr(node, name);
    if (!v || v->is_none()) return false;
    if (v->is_number()) {
      *out = wrapped_number(attr_scalar(name, *v));
      return true;
    }
    if (v->kind == Attr::Kind::String) {
      const at::Tensor* t = lookup ? lookup(v->s) : nullptr;
      if (!t)
        throw ExecutionError("attr '" + name + "' names tensor '" + v->s +
                             "', which is not a computed value");
      *out = *t;
      return true;
    }
    bad_attr(name, *v, "a number or a tensor name");
  }

  c10::IValue list_value(const c10::Argument& a, const c10::TypePtr& elem, const Attr& v) const {
    const std::string& name = a.name();
    std::vector<const Attr*> items;
    if (v.kind == Attr::Kind::List) {
      for (const auto& e : v.list) items.push_back(&e);
    } else {  // a single value stands for int[N] filled with it
      const int n = a.N() ? *a.N() : 1;
      for (int k = 0; k < n; ++k) items.push_back(&v);
    }
    switch (elem->kind()) {
      case c10::TypeKind::IntType:
      case c10::TypeKind::SymIntType: {
        c10::List<int64_t> l;
        for (auto* e : items) l.push_back(attr_int(name, *e));
        return c10::IValue(std::move(l));
      }
      case c10::TypeKind::FloatType: {
        c10::List<double> l;
        for (auto* e : items) l.push_back(attr_double(name, *e));
        return c10::IValue(std::move(l));
      }
      case c10::TypeKind::BoolType: {
        c10::List<bool> l;
        for (auto* e : items) l.push_back(attr_bool(name, *e));
        return c10::IValue(std::move(l));
      }
      case c10::TypeKind::NumberType: {
        c10::impl::GenericList l(c10::NumberType::get());
        for (auto* e : items) l.push_back(scalar_ivalue(name, *e));
        return c10::IValue(std::move(l));
      }
      case c10::TypeKind::StringType: {
        c10::List<std::string> l;
        for (auto* e : items) {
          if (e->kind != Attr::Kind::String) bad_attr(name, *e, "a string");
          l.push_back(e->s);
        }
        return c10::IValue(std::move(l));
      }
      default:
        throw ExecutionError("argument '" + name + "' has unsupported list type " + a.type()->str());
    }
  }

  c10::IValue absent(const c10::Argument& a, bool optional) const {
    if (a.default_value()) return *a.default_value();
    if (optional) return c10::IValue();
    throw ExecutionError("missing required argument '" + a.name() + "'");
  }

  // Non-tensor argument from attrs by schema name; absent/null -> default or None.
  c10::IValue other(const c10::Argument& a) const {
    const std::string& name = a.name();
    const bool optional = a.type()->kind() == c10::TypeKind::OptionalType;
    const c10::TypePtr fake = unwrap_optional(a.type());
    const c10::TypePtr real = unwrap_optional(a.real_type());
    const Attr* v = find_attr(node, name);
    const bool given = v && !v->is_none();

    switch (real->kind()) {
      case c10::TypeKind::DeviceObjType:
        // The IR's device ("meta", "cpu", ...) means nothing: run where we run.
        if (!device.is_cpu() || given || !optional) return c10::IValue(device);
        return c10::IValue();
      case c10::TypeKind::LayoutType:
        return optional ? c10::IValue() : absent(a, false);
      case c10::TypeKind::MemoryFormatType:
        // Only strides, but LibTorch then refuses `view` on a non-contiguous
        // result (clone(memory_format=contiguous_format) before view).
        return given ? memory_format(name, *v) : absent(a, optional);
      case c10::TypeKind::GeneratorType:
        return c10::IValue();
      case c10::TypeKind::ScalarTypeType:
        if (!given) return absent(a, optional);
        if (v->kind == Attr::Kind::String) return dtype_value(parse_dtype(v->s));
        {
          DType d;
          if (!dtype_from_scalar_type(attr_int(name, *v), &d)) bad_attr(name, *v, "a dtype");
          return dtype_value(d);
        }
      default:
        break;
    }
    if (name == "pin_memory" && optional) return c10::IValue();
    if (!given) return (v && optional) ? c10::IValue() : absent(a, optional);

    switch (fake->kind()) {
      case c10::TypeKind::IntType:
      case c10::TypeKind::SymIntType:
        if (v->kind == Attr::Kind::String) {
          // Older registries may report enum-like types as plain int.
          DType d;
          if (try_parse_dtype(v->s, &d)) return dtype_value(d);
          if (name == "memory_format") return memory_format(name, *v);
          if (name == "layout") return absent(a, optional);
        }
        return c10::IValue(attr_int(name, *v));
      case c10::TypeKind::FloatType: return c10::IValue(attr_double(name, *v));
      case c10::TypeKind::BoolType: return c10::IValue(attr_bool(name, *v));
      case c10::TypeKind::NumberType: return scalar_ivalue(name, *v);
      case c10::TypeKind::StringType:
        if (v->kind != Attr::Kind::String) bad_attr(name, *v, "a string");
        return c10::IValue(v->s);
      case c10::TypeKind::ListType:
        return list_value(a, fake->cast<c10::ListType>()->getElementType(), *v);
      default:
        throw ExecutionError("argument '" + name + "' has unsupported type " + a.type()->str());
    }
  }

  // docs/spec/OPS.md §1.7: which optional Tensor slots receive the inputs left over after
  // the required slots and the lists.
  std::vector<bool> optional_takes_input(const c10::FunctionSchema& schema,
                                         const std::vector<Slot>& slots,
                                         const std::vector<int64_t>& list_sizes) const {
    const auto& args = schema.arguments();
    std::vector<size_t> open;  // optional slots that could take an input
    size_t required = 0;
    for (size_t i = 0; i < args.size(); ++i) {
      if (slots[i] == Slot::Tensor && !has_tensor_attr(args[i].name())) ++required;
      // Keyword-only ones too (pytorch-ir's executor fills them from leftover inputs).
      if (slots[i] == Slot::OptTensor && !has_tensor_attr(args[i].name())) open.push_back(i);
    }
    int64_t listed = 0;
    for (auto s : list_sizes) listed += s;
    const int64_t extra = int64_t(in.size()) - int64_t(required) - listed;
    if (extra < 0 || extra > int64_t(open.size()))
      throw ExecutionError("node has " + std::to_string(in.size()) +
                           " tensor inputs, which do not fit schema " + schema_string(schema));
    std::vector<bool> take(args.size(), false);
    for (int64_t k = 0; k < extra; ++k) take[open[size_t(k)]] = true;

    // batch_norm/instance_norm with one pair of optionals: the flag tells which pair.
    const std::string& op = schema.name();
    const char* flag = (op == "aten::batch_norm" || op == "aten::native_batch_norm") ? "training"
                       : op == "aten::instance_norm" ? "use_input_stats" : nullptr;
    if (flag && extra == 2 && open.size() == 4) {
      const Attr* f = find_attr(node, flag);
      const bool batch_stats = f && !f->is_none() && attr_bool(flag, *f);
      for (size_t k = 0; k < 4; ++k) take[open[k]] = batch_stats ? k < 2 : k >= 2;
    }
    return take;
  }

  bool has_tensor_attr(const std::string& name) const {
    const Attr* v = find_attr(node, name);
    return v && (v->is_number() || v->kind == Attr::Kind::String);
  }

  static std::string schema_string(const c10::FunctionSchema& s) {
    std::ostringstream os;
    os << s;
    return os.str();
  }

  std::vector<c10::IValue> build(const c10::FunctionSchema& schema) const {
    const auto& args = schema.arguments();
    std::vector<Slot> slots;
    size_t n_lists = 0, n_required = 0;
    for (const auto& a : args) {
      slots.push_back(classify(a));
      if (slots.back() == Slot::TensorList || slots.back() == Slot::OptTensorList) ++n_lists;
      if (slots.back() == Slot::Tensor && !has_tensor_attr(a.name())) ++n_required;
    }
    // List lengths: recorded sizes, else an even split of what is left (as pytorch-ir).
    std::vector<int64_t> list_sizes = attr_int_list(node, "_tensor_list_sizes");
    if (list_sizes.size() < n_lists) {
      int64_t left = int64_t(in.size()) - int64_t(n_required);
      for (auto s : list_sizes) left -= s;
      const size_t missing = n_lists - list_sizes.size();
      for (size_t k = 0; k < missing; ++k) list_sizes.push_back(std::max<int64_t>(0, left / int64_t(missing)));
    }
    list_sizes.resize(n_lists);
    const std::vector<bool> take = optional_takes_input(schema, slots, list_sizes);
    const auto masks = attr_masks(node);

    std::vector<c10::IValue> stack;
    size_t next = 0, list_k = 0, mask_k = 0;
    auto take_input = [&](const std::string& name) -> const at::Tensor& {
      if (next >= in.size()) throw ExecutionError("no tensor input left for argument '" + name + "'");
      return in[next++];
    };
    for (size_t i = 0; i < args.size(); ++i) {
      const c10::Argument& a = args[i];
      at::Tensor t;
      switch (slots[i]) {
        case Slot::Tensor:
          if (attr_tensor(a.name(), &t)) stack.emplace_back(t);
          else stack.emplace_back(take_input(a.name()));
          break;
        case Slot::OptTensor:
          if (take[i]) stack.emplace_back(take_input(a.name()));
          else if (attr_tensor(a.name(), &t)) stack.emplace_back(t);
          else stack.emplace_back();
          break;
        case Slot::TensorList: {
          const int64_t n = list_sizes[list_k++];
          c10::List<at::Tensor> l;
          for (int64_t k = 0; k < n; ++k) l.push_back(take_input(a.name()));
          stack.emplace_back(std::move(l));
          break;
        }
        case Slot::OptTensorList: {
          const int64_t n = list_sizes[list_k++];
          // A mask belongs to this list when its present entries match the count.
          std::vector<bool> mask(size_t(n), false);
          if (mask_k < masks.size()) {
            int64_t present = 0;
            for (bool none : masks[mask_k]) present += none ? 0 : 1;
            if (present == n) mask = masks[mask_k++];
          }
          c10::impl::GenericList l(c10::OptionalType::create(c10::TensorType::get()));
          for (bool none : mask) {
            if (none) l.push_back(c10::IValue());
            else l.push_back(take_input(a.name()));
          }
          stack.emplace_back(std::move(l));
          break;
        }
        case Slot::Other:
          stack.push_back(other(a));
          break;
      }
    }
    if (next != in.size())
      throw ExecutionError("only " + std::to_string(next) + " of " + std::to_string(in.size()) +
                           " tensor inputs fit schema " + schema_string(schema));
    return stack;
  }
};

}  // namespace

std::vector<c10::IValue> build_stack(const OpNode& node, const c10::FunctionSchema& schema,
                                     const std::vector<at::Tensor>& in, const c10::Device& device,
                                     const Lookup& lookup, bool float64) {
  return Binder{node, in, device, lookup, float64}.build(schema);
}

c10::ScalarType widened(c10::ScalarType d) {
  if (c10::isComplexType(d)) return c10::kComplexDouble;
  if (c10::isFloatingType(d)) return c10::kDouble;
  return d;
}

}  // namespace tir::torch_ref
