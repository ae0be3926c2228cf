// The malformed-input suite (issue 10 item 4): every case of tests/malformed/manifest.json must end in
// the recorded tir error class with the exact recorded message. Cases marked "pending" (they crash or
// succeed on the current code) are skipped until tools/hostile/update_malformed.py re-records them.
// With TIR_MALFORMED_RECORD=<file> the outcome of each case is appended to that file (JSON lines)
// instead of asserted: that is how update_malformed.py records the manifest.
// The native default limits are the machine's physical memory: the manifest writes them as
// {default_limit}, so that the expectations hold on a machine of any memory size.
#include <gtest/gtest.h>

#include "core/json.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "core/errors.h"
#include "ir/json_loader.h"
#include "runtime/limits.h"
#include "runtime/session.h"
#include "test_util.h"
#include "weights/torch_save.h"

namespace tir {
namespace {

std::string malformed_dir() {
  if (const char* e = std::getenv("TIR_MALFORMED_DIR")) return e;
  // Absolute and normalized, so that messages name the same path as the JS suite's (no "fixtures/..").
  // fixtures_dir() is relative to the build directory when TIR_FIXTURES is unset: then try the cwd.
  namespace fs = std::filesystem;
  fs::path p = fs::path(test::fixtures_dir()) / ".." / "malformed";
  if (!fs::exists(p / "manifest.json")) p = fs::path("tests") / "malformed";
  return fs::absolute(p).lexically_normal().string();
}

struct InputSpec {
  DType dtype = DType::F32;
  Shape shape;
  std::vector<double> data;
};

struct Case {
  std::string name, action, ir, weights, expect_class, expect_message, pending;
  std::vector<InputSpec> inputs;
};

// gtest prints a parameter in test listings and failures: the case name, not its bytes.
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

std::vector<Case> load_cases() {
  const std::string text = test::read_text(malformed_dir() + "/manifest.json");
  std::vector<Case> out;
  tir::json::Document d;
  try {
    d = tir::json::Document::parse(text);
  } catch (const tir::json::ParseError&) {
    return out;  // the Manifest test reports it
  }
  tir::json::Value cases;
  if (!d.root().is_object() || !d.root().find("cases", &cases)) return out;
  auto opt = [](const tir::json::Value& c, const char* key, std::string* dst) {
    tir::json::Value v;
    if (c.find(key, &v)) *dst = v.string();
  };
  for (const auto& c : cases) {
    Case k;
    k.name = c["name"].string();
    k.action = c["action"].string();
    k.ir = c["ir"].string();
    opt(c, "weights", &k.weights);
    opt(c, "pending", &k.pending);
    tir::json::Value expect;
    if (c.find("expect", &expect)) {
      k.expect_class = expect["class"].string();
      k.expect_message = expect["message"].string();
    }
    tir::json::Value inputs;
    if (c.find("inputs", &inputs)) {
      for (const auto& in : inputs) {
        InputSpec s;
        s.dtype = parse_dtype(in["dtype"].string());
        for (const auto& v : in["shape"]) s.shape.push_back(v.as_int64());
        for (const auto& v : in["data"]) s.data.push_back(v.as_double());
        k.inputs.push_back(s);
      }
    }
    out.push_back(k);
  }
  return out;
}

Tensor make_input(const InputSpec& s) {
  Tensor t = make_owned(s.dtype, s.shape);
  for (size_t i = 0; i < s.data.size() && int64_t(i) < t.numel(); ++i) {
    const double v = s.data[i];
    switch (s.dtype) {
      case DType::F32: t.data<float>()[i] = float(v); break;
      case DType::F64: t.data<double>()[i] = v; break;
      case DType::I64: t.data<int64_t>()[i] = int64_t(v); break;
      case DType::I32: t.data<int32_t>()[i] = int32_t(v); break;
      case DType::Bool: case DType::U8: t.data<uint8_t>()[i] = uint8_t(v); break;
      default: ADD_FAILURE() << "malformed manifest: unsupported inline input dtype";
    }
  }
  return t;
}

// Runs the case; returns {class, message} of what it threw ("ok" when nothing).
std::pair<std::string, std::string> run_case(const Case& c) {
  const std::string dir = malformed_dir() + "/";
  try {
    Model m = load_model_file(dir + c.ir);
    if (c.action == "load_ir") return {"ok", ""};
    Session s(std::move(m));
    if (c.action == "compile") return {"ok", ""};
    s.bind(c.weights.empty() ? TensorMap{} : read_weights_file(dir + c.weights));
    if (c.action == "bind") return {"ok", ""};
    std::vector<Tensor> inputs;
    for (const auto& in : c.inputs) inputs.push_back(make_input(in));
    s.run(inputs);
    return {"ok", ""};
  } catch (const Error& e) {
    return {e.kind(), e.what()};
  } catch (const std::exception& e) {
    return {"std::exception", e.what()};
  }
}

void replace_all(std::string* s, const std::string& from, const std::string& to) {
  for (size_t p = 0; (p = s->find(from, p)) != std::string::npos; p += to.size()) s->replace(p, from.size(), to);
}

// The default per-tensor / arena limit as messages write it ("25276502016 bytes (23.5 GiB)").
std::string default_limit_text() { return bytes_text(default_limits().max_tensor_bytes); }

// The manifest stores messages with {dir} for the malformed directory (absolute paths differ per
// checkout) and {default_limit} for the native default limits (physical memory differs per machine).
std::string expected_message(std::string msg) {
  replace_all(&msg, "{dir}", malformed_dir());
  replace_all(&msg, "{default_limit}", default_limit_text());
  return msg;
}

// What record mode writes: the machine-dependent number masked.
std::string recorded_message(std::string msg) {
  replace_all(&msg, default_limit_text(), "{default_limit}");
  return msg;
}

std::string json_escape(const std::string& s) {
  std::string o;
  for (unsigned char ch : s) {
    if (ch == '"' || ch == '\\') o += '\\', o += char(ch);
    else if (ch == '\n') o += "\\n";
    else if (ch < 0x20) { char b[8]; std::snprintf(b, sizeof b, "\\u%04x", ch); o += b; }
    else o += char(ch);
  }
  return o;
}

class MalformedTest : public ::testing::TestWithParam<Case> {};

TEST_P(MalformedTest, Case) {
  const Case& c = GetParam();
  if (const char* rec = std::getenv("TIR_MALFORMED_RECORD")) {
    auto [cls, msg] = run_case(c);
    std::ofstream(rec, std::ios::app) << "{\"name\":\"" << json_escape(c.name) << "\",\"class\":\"" << json_escape(cls)
                                      << "\",\"message\":\"" << json_escape(recorded_message(msg)) << "\"}\n";
    return;
  }
  if (!c.pending.empty()) GTEST_SKIP() << "pending: " << c.pending;
  ASSERT_FALSE(c.expect_class.empty()) << c.name << ": no recorded outcome (run tools/hostile/update_malformed.py)";
  auto [cls, msg] = run_case(c);
  EXPECT_EQ(cls, c.expect_class) << c.name << ": " << msg;
  EXPECT_EQ(msg, expected_message(c.expect_message)) << c.name;
}

INSTANTIATE_TEST_SUITE_P(Malformed, MalformedTest, ::testing::ValuesIn(load_cases()),
                         [](const ::testing::TestParamInfo<Case>& i) { return i.param.name; });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(MalformedTest);

TEST(Malformed, ManifestHasAtLeast60Cases) {
  EXPECT_GE(load_cases().size(), 60u) << "tests/malformed/manifest.json missing or short";
}

// After every case (in this process) a good model still compiles, binds and runs correctly.
TEST(Malformed, GoodModelStillRunsAfterTheCases) {
  for (const auto& c : load_cases())
    if (c.pending.empty()) (void)run_case(c);
  const std::string dir = malformed_dir() + "/";
  Session s(load_model_file(dir + "_good/w4.json"));
  s.bind(read_weights_file(dir + "safetensors/good_w.safetensors"));
  auto out = s.run({test::tensor_f32({4}, {1, -1, 2, 0.5f})});
  EXPECT_EQ(test::values_f32(out.at(0)), (std::vector<float>{1, -2, 6, 2}));
}

}  // namespace
}  // namespace tir
