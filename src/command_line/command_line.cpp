#include "command_line/command_line.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "core/json.h"
#include "core/weight_spec.h"

namespace tir::command_line {

namespace {

OptionSpec flag(const char* name) { return {name, Kind::Flag}; }
OptionSpec text(const char* name, bool required = false) { return {name, Kind::Text, "", required}; }
OptionSpec number(const char* name, const char* def = "") { return {name, Kind::Number, def}; }
OptionSpec count(const char* name, const char* def, int64_t min, const char* range_error) {
  OptionSpec o{name, Kind::Count, def};
  o.min = min;
  o.range_error = range_error;
  return o;
}
OptionSpec choice(const char* name, const char* def, std::vector<std::string> choices) {
  OptionSpec o{name, Kind::Choice, def};
  o.choices = std::move(choices);
  return o;
}
OptionSpec ids(const char* name, bool required = false) { return {name, Kind::Ids, "", required}; }

std::vector<OptionSpec> cat(std::vector<OptionSpec> a, const std::vector<OptionSpec>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// What every command that loads weights takes: the sources, the threads, the
// weight storage dtype, the session limits.
std::vector<OptionSpec> loading(bool threads = true) {
  std::vector<OptionSpec> v = {
      text("--weights", true), text("--constants"), flag("--strict-weights"),
      OptionSpec("--weight-dtype", Kind::WeightDtype, "float32"),
      OptionSpec("--max-tensor-bytes", Kind::Size), OptionSpec("--max-arena-bytes", Kind::Size),
      OptionSpec("--max-run-work", Kind::Size)};
  if (threads) v.push_back(count("--threads", "", 0, "--threads must be positive"));
  return v;
}

std::vector<CommandSpec> make_commands() {
  std::vector<CommandSpec> list;
  list.push_back(CommandSpec("info", "  info IR [--json] [-o FILE]\n", {flag("--json"), text("-o")}));
  list.push_back({"visualize", "  visualize IR [--max-nodes N] [--no-weights] [-o FILE]\n",
                  {number("--max-nodes", "30"), flag("--no-weights"), text("-o")}});
  list.push_back({"pie", "  pie IR [--top N] [-o FILE]\n", {number("--top", "10"), text("-o")}});
  list.push_back({"run",
                  "  run IR --weights W [--constants C] --inputs IO [-o OUT.safetensors] [--profile] [--repeat N]\n"
                  "      [--threads N] [--weight-dtype D] [--strict-weights] [LIMITS]   (--repeat: N runs, median time and\n"
                  "      per-node median profile)\n",
                  cat(loading(), {text("--inputs", true), text("-o"), flag("--profile"),
                                  count("--repeat", "1", 1, "--repeat must be at least 1")})});
  list.push_back(
      {"verify",
       "  verify IR --weights W [--constants C] --io IO [--rtol R] [--atol A] [--backend native|libtorch]\n"
       "      [--device cpu|cuda (libtorch)] [--threads N] [--weight-dtype D] [--strict-weights] [--reference64 T] [LIMITS]\n"
       "      (--reference64: float64 outputs output.<i>; also reports, per output, our max error and the\n"
       "      reference's max error against them, and whether an rtol/atol failure is only reassociation;\n"
       "      the exit status still follows rtol/atol)\n",
       cat(loading(), {text("--io", true), number("--rtol", "1e-5"), number("--atol", "1e-5"),
                       choice("--backend", "native", {"native", "libtorch"}), text("--device"),
                       text("--reference64")})});
  CommandSpec parity{
      "parity",
      "  parity IR --weights W [--constants C] --io IO [--rtol R] [--atol A] [--device cpu|cuda]\n"
      "      [--criterion rtol|truth64] [--strict-weights] [LIMITS]   (per node, ours vs LibTorch on the device;\n"
      "      truth64, the default off cpu: ours and the device both within 2x LibTorch-cpu's error vs a\n"
      "      float64 run of the graph + 1e-6 x scale; see docs/gpu-parity.md)\n",
      cat(loading(false), {text("--io", true), number("--rtol", "1e-4"), number("--atol", "1e-4"),
                           text("--device"), choice("--criterion", "", {"rtol", "truth64"})})};
  parity.native_only = true;
  list.push_back(parity);
  CommandSpec generate{
      "generate",
      "  generate PREFILL DECODE --kv-mapping K --weights W [--constants C] --prompt-ids 1,2,3\n"
      "      | --tokenizer tokenizer.json --prompt TEXT (torch-ir-wasm only: it tokenizes in JavaScript)\n"
      "      [--max-new-tokens N] [--min-new-tokens N] [--temperature T] [--top-k K] [--top-p P] [--seed S]\n"
      "      [--repetition-penalty R] [--frequency-penalty F] [--presence-penalty P] [--stop 2,3]\n"
      "      [--threads N] [--weight-dtype D] [--no-donate] [--strict-weights] [LIMITS]\n"
      "      (new ids on the last stdout line, or the text streamed; timing on stderr)\n",
      cat(loading(), {text("--kv-mapping", true), ids("--prompt-ids"), text("--prompt"), text("--tokenizer"), ids("--stop"),
                      count("--max-new-tokens", "32", 0, "--max-new-tokens must be at least 0"),
                      number("--temperature", "0"), count("--top-k", "0", 0, "--top-k must be at least 0"),
                      number("--top-p", "1"), count("--seed", "0", 0, "--seed must be at least 0"),
                      count("--min-new-tokens", "0", 0, "--min-new-tokens must be at least 0"),
                      number("--repetition-penalty", "1"), number("--frequency-penalty", "0"),
                      number("--presence-penalty", "0"), flag("--no-donate")})};
  generate.min_positional = 2;
  generate.exact_positional = true;
  generate.positional_error = "generate needs two IR files: PREFILL DECODE";
  list.push_back(generate);
  CommandSpec ops{"ops", "  ops                       (lists the supported op types)\n", {}};
  ops.min_positional = 0;
  ops.native_only = true;
  list.push_back(ops);
  return list;
}

const OptionSpec* find_option(const CommandSpec& c, const std::string& name) {
  for (const auto& o : c.options)
    if (o.name == name) return &o;
  return nullptr;
}

double parse_number(const std::string& v, const std::string& k) {
  char* end = nullptr;
  const double d = std::strtod(v.c_str(), &end);
  if (v.empty() || *end) throw UsageError("option " + k + " expects a number, got '" + v + "'");
  return d;
}

std::vector<int64_t> parse_ids(const std::string& text, const std::string& opt) {
  std::vector<int64_t> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (item.empty() || used != item.size())
      throw UsageError(opt + ": '" + item + "' is not an integer token id (expected e.g. 1,2,3)");
    out.push_back(v);
  }
  return out;
}

// Checks one value against its option's kind (the value itself is kept as text).
void check_value(const OptionSpec& o, const std::string& v, Front front) {
  switch (o.kind) {
    case Kind::Flag:
    case Kind::Text: return;
    case Kind::Number: parse_number(v, o.name); return;
    case Kind::Count: {
      const double d = parse_number(v, o.name);
      if (d != std::floor(d)) throw UsageError("option " + o.name + " expects an integer, got '" + v + "'");
      if (d < double(o.min)) throw UsageError(o.range_error);
      return;
    }
    case Kind::Size: {
      const uint64_t n = parse_size(v, o.name);
      // torch-ir-wasm hands sizes to JavaScript as numbers: exact only below 2^53.
      if (front == Front::Wasm && n > (uint64_t(1) << 53)) throw UsageError(o.name + ": '" + v + "' is too large");
      return;
    }
    case Kind::Ids: parse_ids(v, o.name); return;
    case Kind::WeightDtype: {
      WeightSpec w;
      if (parse_weight_spec(v, &w)) return;
      throw UsageError(o.name + " must be float32, float16, bfloat16, int8, int4 or int4:G (G a positive multiple of 4), got '" +
                       v + "'");
    }
    case Kind::Choice: {
      if (std::find(o.choices.begin(), o.choices.end(), v) != o.choices.end()) return;
      std::string list;
      for (size_t i = 0; i < o.choices.size(); ++i)
        list += (i == 0 ? "" : i + 1 == o.choices.size() ? " or " : ", ") + o.choices[i];
      throw UsageError(o.name + " must be " + list + ", got '" + v + "'");
    }
  }
}

std::string json_string(const std::string& s) {
  std::string out;
  json::append_string(&out, s);
  return out;
}

// NaN and infinities as Python writes them (the npm side reads them with parseJsonLoose).
std::string json_number(double d) {
  std::string out;
  json::append_double(&out, d);
  return out;
}

}  // namespace

std::string Args::get(const std::string& k, const std::string& def) const {
  auto it = options.find(k);
  return it == options.end() ? def : it->second;
}

double Args::num(const std::string& k, double def) const {
  return has(k) ? parse_number(get(k), k) : def;
}

std::vector<int64_t> Args::ids(const std::string& k) const {
  return has(k) ? parse_ids(get(k), k) : std::vector<int64_t>{};
}

const std::vector<CommandSpec>& commands() {
  static const std::vector<CommandSpec> list = make_commands();
  return list;
}

const CommandSpec* find_command(const std::string& name) {
  for (const auto& c : commands())
    if (c.name == name) return &c;
  return nullptr;
}

Args parse(Front front, const std::vector<std::string>& argv) {
  const CommandSpec* c = argv.empty() ? nullptr : find_command(argv[0]);
  if (!c) throw UsageError("unknown command '" + (argv.empty() ? std::string() : argv[0]) + "'");
  if (front == Front::Wasm && c->native_only)
    throw Error("'" + c->name + "' needs the native build" + (c->name == "parity" ? " with LibTorch" : "") +
                " (torchir " + c->name + ")");
  Args a;
  a.command = c->name;
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string& s = argv[i];
    if (s.size() > 1 && s[0] == '-') {
      const OptionSpec* o = find_option(*c, s);
      if (!o) throw UsageError("unknown option " + s);
      if (o->kind == Kind::Flag) {
        a.options[s] = "";
        continue;
      }
      if (i + 1 >= argv.size()) throw UsageError("option " + s + " expects a value");
      a.options[s] = argv[++i];
      check_value(*o, a.options[s], front);
    } else {
      a.positional.push_back(s);
    }
  }
  if (a.positional.size() < c->min_positional || (c->exact_positional && a.positional.size() != c->min_positional))
    throw UsageError(c->positional_error);
  for (const auto& o : c->options) {
    if (o.required && !a.has(o.name)) throw UsageError("missing required option " + o.name);
    if (!o.default_value.empty() && !a.has(o.name)) a.options[o.name] = o.default_value;
  }
  // The LibTorch reference backend exists only in the native build.
  if (front == Front::Wasm && a.get("--backend") == "libtorch")
    throw Error("backend 'libtorch' needs the native build (torchir " + c->name + " --backend libtorch)");
  if (front == Front::Wasm && a.has("--device") && a.get("--device") != "cpu")
    throw Error("--device " + a.get("--device") + " needs the native build with LibTorch (torchir " + c->name +
                " --backend libtorch --device ...)");
  return a;
}

const char* program(Front front) { return front == Front::Native ? "torchir" : "torch-ir-wasm"; }

std::string usage(Front front) {
  const std::string p = program(front);
  std::string u = "usage: " + p + " <command> ...\n";
  for (const auto& c : commands())
    if (front == Front::Native || !c.native_only) u += c.usage;
  u += "  " + p + " --version | --help\n";
  u += "IO files are .safetensors with input.<graph_input_name> and output.<i> tensors.\n"
       "--weight-dtype float32|float16|bfloat16: how linear/matmul/addmm/mm store the constant weights they\n"
       "pack (halves widened in the kernel, f32 accumulation; default float32); int8|int4|int4:G: linears\n"
       "quantize their float32 weights at load (int8 per channel, int4 in groups of G = 32) and run on the\n"
       "integer kernels, each input row quantized at run time.\n"
       "--strict-weights: weights/constants keys that match nothing in the IR are an error (default: a warning).\n";
  if (front == Front::Native)
    u += "--threads N: N threads (0 or absent: every core).\n"
         "TIR_SIMD_TARGET=SSE4|AVX2|...: caps the SIMD kernels' target (default: the best this CPU runs; run prints it).\n";
  else
    u += "--threads N: 1 runs the single-threaded build; otherwise the threaded build with N threads\n"
         "(0 or absent: min(4, cores)).\n"
         "--backend libtorch, --device and the parity and ops commands need the native torchir with LibTorch.\n";
  u += "LIMITS: --max-tensor-bytes N, --max-arena-bytes N, --max-run-work N (suffixes K/M/G/T; 0: default): the caps a\n"
       "session checks at load: bytes of one tensor and of the memory plan (default: physical memory; 2 GiB in\n"
       "WASM) and elements touched per run (default 2^40). Accepted by run, verify, parity and generate.\n";
  if (front == Front::Native)
    return u + "Exit status: 0 success, 1 error (verify: outputs differ; parity: a node diverges), 2 usage error,\n"
               "3 the --device is not available to LibTorch (e.g. \"CUDA is not available to LibTorch ...\").\n";
  return u + "Exit status: 0 success, 1 error (verify: outputs differ), 2 usage error.\n";
}

std::string usage_hint(Front front, const std::string& command) {
  const CommandSpec* c = find_command(command);
  const std::string p = program(front);
  return "usage: " + p + " " + (c ? c->usage.substr(2) : std::string("<command> ...\n")) + "(" + p +
         " --help lists every command and option)\n";
}

std::string args_to_json(const Args& a) {
  const CommandSpec* c = find_command(a.command);
  std::string s = "{\"command\": " + json_string(a.command) + ", \"positional\": [";
  for (size_t i = 0; i < a.positional.size(); ++i) s += (i ? ", " : "") + json_string(a.positional[i]);
  s += "], \"options\": {";
  bool first = true;
  for (const auto& [name, value] : a.options) {
    const OptionSpec* o = c ? find_option(*c, name) : nullptr;
    const Kind kind = o ? o->kind : Kind::Text;
    s += (first ? "" : ", ") + json_string(name) + ": ";
    first = false;
    switch (kind) {
      case Kind::Flag: s += "true"; break;
      case Kind::Number:
      case Kind::Count: s += json_number(a.num(name)); break;
      case Kind::Size: s += json_number(double(parse_size(value, name))); break;
      case Kind::Ids: {
        s += "[";
        const auto v = a.ids(name);
        for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
        s += "]";
        break;
      }
      case Kind::Text:
      case Kind::WeightDtype:
      case Kind::Choice: s += json_string(value); break;
    }
  }
  return s + "}}";
}

uint64_t parse_size(const std::string& text, const std::string& option) {
  const std::string bad = option + " expects a non-negative integer with an optional K/M/G/T suffix, got '" + text + "'";
  size_t i = 0;
  uint64_t v = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    if (v > (UINT64_MAX - 9) / 10) throw UsageError(option + ": '" + text + "' is too large");
    v = v * 10 + uint64_t(text[i] - '0');
  }
  if (i == 0) throw UsageError(bad);
  int shift = 0;
  if (i < text.size()) {
    switch (text[i] | 0x20) {
      case 'k': shift = 10; break;
      case 'm': shift = 20; break;
      case 'g': shift = 30; break;
      case 't': shift = 40; break;
      default: throw UsageError(bad);
    }
    ++i;
    if (i < text.size() && (text[i] | 0x20) == 'b') ++i;
  }
  if (i != text.size()) throw UsageError(bad);
  if (shift && v > (UINT64_MAX >> shift)) throw UsageError(option + ": '" + text + "' is too large");
  return v << shift;
}

}  // namespace tir::command_line
