// The npm CLI's grammar (npm/src/bin/torch-ir-wasm.ts): the same command table
// and parser as the native torchir (command_line/command_line.h), so both
// programs accept, default and refuse the same command lines.
#include <emscripten/bind.h>

#include "glue.h"
#include "command_line/command_line.h"

namespace {

using emscripten::val;
using tir::command_line::Front;

// argv (a JS array of strings: the command, then its arguments) -> the checked
// arguments as JSON (command_line::args_to_json), or the error JSON {kind, message}
// with kind "UsageError" for a bad line (the front end prints usageHint and exits 2).
std::string cliParse(const val& argv) {
  std::string out;
  const std::string err = tir_glue::guarded([&] {
    out = tir::command_line::args_to_json(
        tir::command_line::parse(Front::Wasm, emscripten::vecFromJSArray<std::string>(argv)));
  });
  return err.empty() ? out : err;
}

std::string cliUsage() { return tir::command_line::usage(Front::Wasm); }
std::string cliUsageHint(const std::string& command) { return tir::command_line::usage_hint(Front::Wasm, command); }
bool cliKnowsCommand(const std::string& command) { return tir::command_line::find_command(command) != nullptr; }

}  // namespace

EMSCRIPTEN_BINDINGS(torch_ir_wasm_cli) {
  emscripten::function("cliParse", &cliParse);
  emscripten::function("cliUsage", &cliUsage);
  emscripten::function("cliUsageHint", &cliUsageHint);
  emscripten::function("cliKnowsCommand", &cliKnowsCommand);
}
