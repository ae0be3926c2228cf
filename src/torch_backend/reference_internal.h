// Internal to the LibTorch reference backend (reference*.cpp): LibTorch headers.
#pragma once
#include <ATen/core/Tensor.h>
#include <ATen/core/function_schema.h>
#include <ATen/core/ivalue.h>
#include <c10/core/Device.h>

#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "ir/model.h"

namespace tir::torch_ref {

// A value computed earlier in the graph, by name (docs/spec/OPS.md §1.8); null if unknown.
using Lookup = std::function<const at::Tensor*(const std::string&)>;

// Message of an exception; c10::Error without its C++ backtrace.
std::string what_of(const std::exception& e);
const Attr* find_attr(const OpNode& node, const std::string& name);
int64_t attr_int(const std::string& name, const Attr& v);

// The boxed argument stack of `schema` rebuilt from the node's tensor inputs
// (`in`, IR order), attrs and schema defaults. Throws ExecutionError. float64: floating
// dtype arguments (dtype=torch.float32, ...) become float64 (complex: complex128).
std::vector<c10::IValue> build_stack(const OpNode& node, const c10::FunctionSchema& schema,
                                     const std::vector<at::Tensor>& in, const c10::Device& device,
                                     const Lookup& lookup, bool float64 = false);

// The float64 run's dtype for `d`: floating -> Double, complex -> ComplexDouble, else `d`.
c10::ScalarType widened(c10::ScalarType d);

}  // namespace tir::torch_ref
