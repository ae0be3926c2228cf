#include "model_fixtures.h"

#include <algorithm>
#include <filesystem>

#include "test_util.h"
#include "verify/truth.h"
#include "weights/torch_save.h"

namespace fs = std::filesystem;

namespace tir::test {

std::vector<ModelFixture> model_fixtures() {
  std::vector<ModelFixture> out;
  const fs::path root = fs::path(fixtures_dir()) / "models";
  const fs::path generated = fs::path(generated_fixtures_dir());
  if (!fs::exists(root)) return out;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.path().filename() != "model.json") continue;
    const fs::path dir = entry.path().parent_path();
    const fs::path rel = fs::relative(dir, root);
    ModelFixture f;
    f.id = rel.generic_string();
    f.ir = entry.path().string();
    for (const fs::path& base : {dir, generated / rel}) {
      if (f.weights.empty() && fs::exists(base / "weights.safetensors")) f.weights = (base / "weights.safetensors").string();
      if (f.io.empty() && fs::exists(base / "io.safetensors")) f.io = (base / "io.safetensors").string();
    }
    f.truth = fs::exists(dir / "truth64.safetensors") ? (dir / "truth64.safetensors").string() : truth_path(f.id);
    out.push_back(f);
  }
  std::sort(out.begin(), out.end(), [](const ModelFixture& a, const ModelFixture& b) { return a.id < b.id; });
  return out;
}

std::string truth_path(const std::string& rel) {
  return (fs::path(generated_fixtures_dir()) / rel / "truth64.safetensors").string();
}

std::string fixture_test_name(const ModelFixture& f) {
  std::string s = f.id;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

::testing::AssertionResult within_truth(const std::string& truth_file, const std::vector<Tensor>& ours,
                                        const std::vector<Tensor>& torch_f32) {
  if (!fs::exists(truth_file))
    return ::testing::AssertionFailure() << "no float64 truth " << truth_file
                                         << " (run tools/make_fixtures.sh build/fixtures)";
  const TensorMap tm = read_weights_file(truth_file);
  std::vector<Tensor> truth;
  for (size_t i = 0; i < ours.size(); ++i) {
    const Tensor* t = tm.find("output." + std::to_string(i));
    if (!t) return ::testing::AssertionFailure() << truth_file << " lacks output." << i;
    truth.push_back(*t);
  }
  const TruthReport r = compare_with_truth(ours, torch_f32, truth);
  if (r.ok) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << format_truth_report(r, true);
}

}  // namespace tir::test
