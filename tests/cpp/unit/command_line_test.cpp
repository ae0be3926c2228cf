// The CLIs' shared grammar (src/command_line): the table, the checks, the JSON
// the npm CLI reads.
#include "command_line/command_line.h"

#include <gtest/gtest.h>

namespace tir::command_line {
namespace {

Args parse_native(std::vector<std::string> argv) { return parse(Front::Native, argv); }

std::string usage_error(Front front, std::vector<std::string> argv) {
  try {
    parse(front, argv);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no usage error)";
}

TEST(CommandLine, FillsDefaultsAndKeepsGivenValues) {
  const Args a = parse_native({"verify", "m.json", "--weights", "w", "--io", "io", "--rtol", "1e-3"});
  EXPECT_EQ(a.command, "verify");
  EXPECT_EQ(a.positional, std::vector<std::string>{"m.json"});
  EXPECT_DOUBLE_EQ(a.num("--rtol"), 1e-3);
  EXPECT_DOUBLE_EQ(a.num("--atol"), 1e-5);  // the table's default
  EXPECT_EQ(a.get("--backend"), "native");
  EXPECT_EQ(a.get("--weight-dtype"), "float32");
  EXPECT_FALSE(a.has("--threads"));  // no default: the front end's own
  // parity's tolerances default otherwise
  EXPECT_DOUBLE_EQ(parse_native({"parity", "m", "--weights", "w", "--io", "i"}).num("--rtol"), 1e-4);
}

TEST(CommandLine, ChecksEveryValueAtParseTime) {
  const Front n = Front::Native;
  EXPECT_EQ(usage_error(n, {"info", "m", "--weights", "x"}), "unknown option --weights");
  EXPECT_EQ(usage_error(n, {"info"}), "missing IR file argument");
  EXPECT_EQ(usage_error(n, {"run", "m", "--weights"}), "option --weights expects a value");
  EXPECT_EQ(usage_error(n, {"run", "m", "--weights", "w"}), "missing required option --inputs");
  EXPECT_EQ(usage_error(n, {"pie", "m", "--top", "x"}), "option --top expects a number, got 'x'");
  EXPECT_EQ(usage_error(n, {"run", "m", "--weights", "w", "--inputs", "i", "--repeat", "0"}), "--repeat must be at least 1");
  EXPECT_EQ(usage_error(n, {"run", "m", "--weights", "w", "--inputs", "i", "--repeat", "1.5"}),
            "option --repeat expects an integer, got '1.5'");
  EXPECT_EQ(usage_error(n, {"run", "m", "--weights", "w", "--inputs", "i", "--threads", "-1"}),
            "--threads must be positive");
  EXPECT_EQ(usage_error(n, {"verify", "m", "--weights", "w", "--io", "i", "--weight-dtype", "int4:6"}),
            "--weight-dtype must be float32, float16, bfloat16, int8, int4 or int4:G (G a positive multiple of 4), got 'int4:6'");
  EXPECT_EQ(usage_error(n, {"verify", "m", "--weights", "w", "--io", "i", "--weight-dtype", "int4:64"}), "(no usage error)");
  EXPECT_EQ(usage_error(n, {"run", "m", "--weights", "w", "--inputs", "i", "--max-run-work", "3X"}),
            "--max-run-work expects a non-negative integer with an optional K/M/G/T suffix, got '3X'");
  EXPECT_EQ(usage_error(n, {"generate", "p", "--weights", "w", "--kv-mapping", "k", "--prompt-ids", "1"}),
            "generate needs two IR files: PREFILL DECODE");
  EXPECT_EQ(usage_error(n, {"generate", "p", "d", "--weights", "w", "--kv-mapping", "k", "--prompt-ids", "1,,2"}),
            "--prompt-ids: '' is not an integer token id (expected e.g. 1,2,3)");
  EXPECT_EQ(usage_error(n, {"frob"}), "unknown command 'frob'");
  EXPECT_EQ(parse_native({"ops"}).command, "ops");
}

TEST(CommandLine, WasmFrontRefusesWhatNeedsTheNativeBuild) {
  try {
    parse(Front::Wasm, {"parity", "m", "--weights", "w", "--io", "i"});
    FAIL() << "parity parsed on the WASM front";
  } catch (const UsageError&) {
    FAIL() << "a usage error, not a refusal";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "'parity' needs the native build with LibTorch (torchir parity)");
  }
  EXPECT_THROW(parse(Front::Wasm, {"verify", "m", "--weights", "w", "--io", "i", "--backend", "libtorch"}), Error);
  EXPECT_THROW(parse(Front::Wasm, {"verify", "m", "--weights", "w", "--io", "i", "--device", "cuda"}), Error);
  EXPECT_NO_THROW(parse(Front::Native, {"verify", "m", "--weights", "w", "--io", "i", "--backend", "libtorch"}));
  // Sizes travel to JS as numbers: exact only up to 2^53.
  EXPECT_NO_THROW(parse(Front::Native, {"run", "m", "--weights", "w", "--inputs", "i", "--max-run-work", "16383T"}));
  EXPECT_EQ(usage_error(Front::Wasm, {"run", "m", "--weights", "w", "--inputs", "i", "--max-run-work", "16383T"}),
            "--max-run-work: '16383T' is too large");
}

TEST(CommandLine, UsageListsEachFrontsCommands) {
  const std::string native = usage(Front::Native), wasm = usage(Front::Wasm);
  EXPECT_EQ(native.rfind("usage: torchir <command> ...\n", 0), 0u);
  EXPECT_EQ(wasm.rfind("usage: torch-ir-wasm <command> ...\n", 0), 0u);
  EXPECT_NE(native.find("\n  parity IR"), std::string::npos);
  EXPECT_EQ(wasm.find("\n  parity IR"), std::string::npos);
  EXPECT_NE(wasm.find("\n  generate PREFILL DECODE"), std::string::npos);
  EXPECT_EQ(usage_hint(Front::Wasm, "pie"),
            "usage: torch-ir-wasm pie IR [--top N] [-o FILE]\n(torch-ir-wasm --help lists every command and option)\n");
}

TEST(CommandLine, JsonCarriesTypedValues) {
  const Args a = parse(Front::Wasm, {"generate", "p.json", "d\"q.json", "--weights", "w", "--kv-mapping", "k",
                                     "--prompt-ids", "1,-2,3", "--no-donate", "--max-arena-bytes", "2K",
                                     "--temperature", "nan"});
  const std::string j = args_to_json(a);
  EXPECT_NE(j.find("\"command\": \"generate\""), std::string::npos) << j;
  EXPECT_NE(j.find("\"positional\": [\"p.json\", \"d\\\"q.json\"]"), std::string::npos) << j;
  EXPECT_NE(j.find("\"--prompt-ids\": [1, -2, 3]"), std::string::npos) << j;
  EXPECT_NE(j.find("\"--no-donate\": true"), std::string::npos) << j;
  EXPECT_NE(j.find("\"--max-arena-bytes\": 2048"), std::string::npos) << j;
  EXPECT_NE(j.find("\"--max-new-tokens\": 32"), std::string::npos) << j;
  EXPECT_NE(j.find("\"--temperature\": NaN"), std::string::npos) << j;
  EXPECT_NE(j.find("\"--weights\": \"w\""), std::string::npos) << j;
}

}  // namespace
}  // namespace tir::command_line
