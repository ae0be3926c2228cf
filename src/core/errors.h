// Error classes shared by every layer; the JS bindings map them to Error subclasses
// of the same names, so keep the messages self-contained (they name node/tensor/file).
#pragma once
#include <stdexcept>
#include <string>

namespace tir {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
  virtual const char* kind() const { return "Error"; }
};
// Malformed or inconsistent IR (JSON syntax, schema, validation).
struct IRFormatError : Error {
  using Error::Error;
  const char* kind() const override { return "IRFormatError"; }
};
// Weight/constant files that cannot be read or do not fit the IR.
struct WeightLoadError : Error {
  using Error::Error;
  const char* kind() const override { return "WeightLoadError"; }
};
// Compile or run failures: unsupported ops, bad inputs, kernel argument checks.
struct ExecutionError : Error {
  using Error::Error;
  const char* kind() const override { return "ExecutionError"; }
};
struct VerificationError : Error {
  using Error::Error;
  const char* kind() const override { return "VerificationError"; }
};

}  // namespace tir
