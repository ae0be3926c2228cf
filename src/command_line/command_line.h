// The command-line grammar of both CLIs: the native `torchir` (src/cli) and
// the npm package's `torch-ir-wasm` (npm/src/bin, which calls this through
// bindings/embind_cli.cpp). One table holds each command's usage lines, its
// options with their kinds, defaults and required ones, and which front end
// runs it; one parser checks a command line against it. Each front end then
// only does its I/O: the values it reads here are already validated.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/errors.h"

namespace tir::command_line {

// A bad command line: the front end prints it with the command's usage and exits 2.
struct UsageError : Error {
  using Error::Error;
  const char* kind() const override { return "UsageError"; }
};

// Which CLI: the native torchir, or torch-ir-wasm on the WASM build.
enum class Front { Native, Wasm };

// How an option's value is read and checked at parse time.
enum class Kind {
  Flag,      // no value
  Text,      // any string (a path)
  Number,    // a double ("nan" allowed)
  Count,     // an integer >= the option's minimum
  Size,      // "4096", "512M", "2G": parse_size
  Ids,       // "1,2,3": integer token ids
  Choice,    // one of the option's choices
  WeightDtype,  // float32|float16|bfloat16|int8|int4|int4:G (core/weight_spec.h)
};

struct OptionSpec {
  OptionSpec(std::string name_, Kind kind_, std::string default_ = "", bool required_ = false)
      : name(std::move(name_)), kind(kind_), default_value(std::move(default_)), required(required_) {}
  std::string name;  // "--weights", "-o"
  Kind kind = Kind::Text;
  std::string default_value;  // filled in when absent ("" = none)
  bool required = false;
  int64_t min = 0;            // Count: the smallest value
  std::string range_error;    // Count: the message for a smaller one
  std::vector<std::string> choices;  // Choice
};

struct CommandSpec {
  CommandSpec(std::string name_, std::string usage_, std::vector<OptionSpec> options_)
      : name(std::move(name_)), usage(std::move(usage_)), options(std::move(options_)) {}
  std::string name;
  std::string usage;  // lines, each starting "  " and ending "\n"
  std::vector<OptionSpec> options;
  // Positional arguments: at least min_positional (else positional_error);
  // exact_positional: exactly that many.
  size_t min_positional = 1;
  bool exact_positional = false;
  std::string positional_error = "missing IR file argument";
  bool native_only = false;  // torch-ir-wasm refuses it (needs LibTorch or the op registry listing)
};

// A checked command line. Options hold their text ("" for flags); defaults are
// filled in, so has() is true for an option with a default.
struct Args {
  std::string command;
  std::vector<std::string> positional;
  std::map<std::string, std::string> options;
  bool has(const std::string& k) const { return options.count(k) > 0; }
  std::string get(const std::string& k, const std::string& def = "") const;
  // The value of a Number/Count option (checked at parse time); `def` when absent.
  double num(const std::string& k, double def = 0) const;
  std::vector<int64_t> ids(const std::string& k) const;  // an Ids option; empty when absent
};

// The commands `front` knows (torch-ir-wasm lists the native-only ones too, to refuse them clearly).
const std::vector<CommandSpec>& commands();
const CommandSpec* find_command(const std::string& name);

// argv: the command name, then its arguments. Throws UsageError for an
// unknown command or a bad line, or Error for a command or option value that
// only the native build runs (torch-ir-wasm's `parity`, `verify --backend libtorch`).
Args parse(Front front, const std::vector<std::string>& argv);

// The program's name ("torchir" / "torch-ir-wasm"), its whole usage text, and
// what a usage error prints after its message (the command's usage).
const char* program(Front front);
std::string usage(Front front);
std::string usage_hint(Front front, const std::string& command);

// Args as JSON for the npm CLI: {"command", "positional": [...], "options":
// {name: value}}, values typed by kind (flags true, numbers and sizes as
// numbers, ids as arrays of numbers, text as strings).
std::string args_to_json(const Args& a);

// "4096", "512M", "2G", "1T" (K/M/G/T = 2^10/2^20/2^30/2^40, case-insensitive,
// an optional trailing B) as a count; UsageError naming `option` otherwise.
uint64_t parse_size(const std::string& text, const std::string& option);

}  // namespace tir::command_line
