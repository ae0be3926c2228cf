// Parity against LibTorch for the scatter ops (index_put, index_copy,
// index_add, select_scatter, slice_scatter) and for the KV-cache fixture over
// two steps. Duplicate indices appear only with accumulate=true or index_add:
// with plain writes the winner among duplicates is unspecified in torch.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/json_loader.h"
#include "parity/parity_util.h"
#include "runtime/session.h"
#include "test_util.h"
#include "torch_backend/reference.h"
#include "weights/torch_save.h"

namespace {

using tir::DType;
using tir::Shape;

using tir::parity::in;
using tir::parity::tr;

// Random indices in [lo, hi) (duplicates likely).
ParityInput idx(Shape s, int64_t lo, int64_t hi, DType d = DType::I64) {
  return in(std::move(s), d, double(lo), double(hi));
}
// Explicit index values (no duplicates unless given).
ParityInput ids(Shape s, std::vector<double> v, DType d = DType::I64) {
  ParityInput p = in(std::move(s), d);
  p.values = std::move(v);
  return p;
}

const char* kAcc = R"({"accumulate":true})";

// ================================ index_put ================================
TEST(IndexPutParity, PlainWritesUniqueIndices) {
  for (const char* op : {"aten.index_put.default", "aten.index_put_.default"}) {
    EXPECT_TRUE(node_parity(op, {in({4, 5}), ids({3}, {3, -4, 1}), in({3, 5})}));
    EXPECT_TRUE(node_parity(op, {in({4, 5}), ids({3}, {2, 0, -1}), in({5})}));       // values broadcast
    EXPECT_TRUE(node_parity(op, {in({4, 5}), ids({2}, {1, 3}), in({})}));            // 0-d values
    EXPECT_TRUE(node_parity(op, {tr({4, 5}), ids({2}, {-1, 0}), in({2, 1})}));       // transposed self
    EXPECT_TRUE(node_parity(op, {tr({3, 4}), ids({2}, {0, 2}), ids({2}, {3, -1}), in({2})}));
    // adjacent index tensors broadcast [2,1] x [3] -> [2,3], in place of dims 1,2
    EXPECT_TRUE(node_parity(op, {in({2, 3, 4}), ids({2, 1}, {0, 2}), ids({3}, {1, 3, 0}), in({2, 2, 3})},
                            R"({"_tensor_list_none_masks":[[true,false,false]]})"));
    // x[:, idx] and x[..., idx]
    EXPECT_TRUE(node_parity(op, {in({3, 4}), ids({2}, {3, 1}), in({3, 2})},
                            R"({"_tensor_list_none_masks":[[true,false]]})"));
    EXPECT_TRUE(node_parity(op, {tr({2, 3, 5}), ids({2, 2}, {4, 0, 1, -2}), in({2, 2})},
                            R"({"_tensor_list_none_masks":[[true,true,false]]})"));
    // separated by a None: broadcast dims go first
    EXPECT_TRUE(node_parity(op, {in({3, 2, 4}), ids({2}, {2, 0}), ids({2}, {1, 3}), in({2, 2})},
                            R"({"_tensor_list_none_masks":[[false,true,false]]})"));
    EXPECT_TRUE(node_parity(op, {in({3, 4}, DType::I64, -9, 9), ids({1}, {1}), in({4}, DType::I64, -9, 9)}));
    EXPECT_TRUE(node_parity(op, {in({0, 3}), ids({0}, {}), in({3})}));              // nothing indexed
  }
}

TEST(IndexPutParity, AccumulateWithDuplicates) {
  for (const char* op : {"aten.index_put.default", "aten.index_put_.default"}) {
    EXPECT_TRUE(node_parity(op, {in({4, 3}), idx({9}, -4, 4), in({9, 3})}, kAcc));
    EXPECT_TRUE(node_parity(op, {tr({4, 3}), idx({6}, 0, 4), in({3})}, kAcc));
    EXPECT_TRUE(node_parity(op, {in({5}), idx({3, 4}, -5, 5), in({4})}, kAcc));
    EXPECT_TRUE(node_parity(op, {in({2, 6}), idx({7}, 0, 6), in({2, 7})},
                            R"({"accumulate":true,"_tensor_list_none_masks":[[true,false]]})"));
    EXPECT_TRUE(node_parity(op, {in({3, 3}, DType::I64, -9, 9), idx({5}, 0, 3), idx({5}, 0, 3), in({5}, DType::I64, -9, 9)},
                            kAcc));
    EXPECT_TRUE(node_parity(op, {in({4, 2}, DType::F64), idx({8}, 0, 4), in({8, 2}, DType::F64)}, kAcc));
  }
}

TEST(IndexPutParity, BooleanMasks) {
  for (const char* op : {"aten.index_put.default", "aten.index_put_.default"}) {
    EXPECT_TRUE(node_parity(op, {in({3, 4}), in({3, 4}, DType::Bool), in({})}));
    EXPECT_TRUE(node_parity(op, {tr({3, 4}), tr({3, 4}, DType::Bool), in({})}));
    EXPECT_TRUE(node_parity(op, {in({5, 3}), in({5}, DType::Bool), in({3})}));      // rows
    EXPECT_TRUE(node_parity(op, {in({2, 5}), in({5}, DType::Bool), in({1})},
                            R"({"_tensor_list_none_masks":[[true,false]]})"));
    EXPECT_TRUE(node_parity(op, {in({4, 3}), in({4, 3}, DType::Bool), in({})}, kAcc));
  }
}

TEST(IndexPutParity, UnsafeIndexPut) {
  if (!tir::reference_supports("aten._unsafe_index_put.default"))
    GTEST_SKIP() << "LibTorch " << tir::libtorch_version() << " has no _unsafe_index_put";
  EXPECT_TRUE(node_parity("aten._unsafe_index_put.default", {in({4, 5}), ids({2}, {3, 0}), in({2, 5})}));
  EXPECT_TRUE(node_parity("aten._unsafe_index_put.default", {in({4}), idx({6}, 0, 4), in({6})}, kAcc));
}

// ========================= index_copy / index_add ==========================
TEST(IndexCopyParity, Slices) {
  for (const char* op : {"aten.index_copy.default", "aten.index_copy_.default"}) {
    EXPECT_TRUE(node_parity(op, {in({5, 3}), ids({2}, {4, 1}), in({2, 3})}, R"({"dim":0})"));
    EXPECT_TRUE(node_parity(op, {in({2, 5, 3}), ids({3}, {0, 4, 2}), in({2, 3, 3})}, R"({"dim":-2})"));
    EXPECT_TRUE(node_parity(op, {tr({4, 5}), ids({2}, {3, 0}), in({4, 2})}, R"({"dim":1})"));
    EXPECT_TRUE(node_parity(op, {in({4, 5}), ids({2}, {3, 0}), tr({4, 2})}, R"({"dim":-1})"));
    EXPECT_TRUE(node_parity(op, {in({1, 2, 8, 4}), ids({1}, {5}), in({1, 2, 1, 4})}, R"({"dim":2})"));  // KV cache
    EXPECT_TRUE(node_parity(op, {in({3, 2}, DType::I64, -9, 9), ids({}, {2}), in({1, 2}, DType::I64, -9, 9)},
                            R"({"dim":0})"));
  }
}

TEST(IndexAddParity, DuplicatesAndAlpha) {
  for (const char* op : {"aten.index_add.default", "aten.index_add_.default"}) {
    EXPECT_TRUE(node_parity(op, {in({5, 3}), idx({7}, 0, 5), in({7, 3})}, R"({"dim":0})"));
    EXPECT_TRUE(node_parity(op, {tr({4, 5}), idx({6}, 0, 5), in({4, 6})}, R"({"dim":-1,"alpha":-0.5})"));
    EXPECT_TRUE(node_parity(op, {in({2, 3, 4}), idx({5}, 0, 3, DType::I32), in({2, 5, 4})}, R"({"dim":1})"));
    EXPECT_TRUE(node_parity(op, {in({4}, DType::I64, -9, 9), idx({6}, 0, 4), in({6}, DType::I64, -9, 9)},
                            R"({"dim":0,"alpha":3})"));
  }
}

// ===================== select_scatter / slice_scatter ======================
TEST(ViewScatterParity, SelectScatter) {
  const std::string op = "aten.select_scatter.default";
  EXPECT_TRUE(node_parity(op, {in({3, 4}), in({4})}, R"({"dim":0,"index":1})"));
  EXPECT_TRUE(node_parity(op, {in({3, 4}), in({3})}, R"({"dim":-1,"index":-1})"));
  EXPECT_TRUE(node_parity(op, {tr({2, 3, 4}), tr({2, 4})}, R"({"dim":1,"index":-3})"));
  EXPECT_TRUE(node_parity(op, {in({5}), in({})}, R"({"dim":0,"index":2})"));
  EXPECT_TRUE(node_parity(op, {in({2, 3}, DType::I64, -9, 9), in({3}, DType::I64, -9, 9)}, R"({"dim":0,"index":0})"));
}

TEST(ViewScatterParity, SliceScatter) {
  const std::string op = "aten.slice_scatter.default";
  EXPECT_TRUE(node_parity(op, {in({6, 3}), in({2, 3})}, R"({"dim":0,"start":1,"end":3})"));
  EXPECT_TRUE(node_parity(op, {in({6, 3}), in({6, 3})}, "{}"));  // all defaults
  EXPECT_TRUE(node_parity(op, {in({3, 7}), in({3, 3})}, R"({"dim":1,"start":1,"end":9223372036854775807,"step":2})"));
  EXPECT_TRUE(node_parity(op, {tr({3, 7}), in({3, 2})}, R"({"dim":-1,"start":-3,"end":-1})"));
  EXPECT_TRUE(node_parity(op, {in({2, 5, 4}), tr({2, 2, 4})}, R"({"dim":1,"start":-100,"end":4,"step":3})"));
  EXPECT_TRUE(node_parity(op, {in({4, 3}), in({0, 3})}, R"({"dim":0,"start":3,"end":1})"));
}

// ============================= KV-cache model ==============================
// ReferenceRunner (LibTorch, buffers mutated in place) and the native Session
// agree over two consecutive steps on the same state.
TEST(KvCacheParity, ReferenceAndSessionAgreeOverTwoSteps) {
  for (const std::string flavor : {"torch2.14-training", "torch1.13-decomposed"}) {
    const std::string dir = tir::test::fixtures_dir() + "/models/kv_cache/" + flavor + "/";
    const tir::Model model = tir::load_model_file(dir + "model.json");
    const tir::TensorMap weights = tir::read_weights_file(dir + "weights.safetensors");
    tir::ReferenceRunner ref(model, weights, {});
    tir::Session session(model);
    session.bind(weights);
    for (const char* io_name : {"io.safetensors", "io_step2.safetensors"}) {
      const tir::TensorMap io = tir::read_weights_file(dir + io_name);
      const std::vector<tir::Tensor> inputs = {*io.find("input.x"), *io.find("input.pos")};
      const auto expected = ref.run(inputs);
      const auto actual = session.run(inputs);
      ASSERT_EQ(expected.size(), 1u);
      ASSERT_EQ(actual.size(), 1u);
      EXPECT_TRUE(tir::parity::compare_tensors(expected[0], actual[0], 1e-5, 1e-5, flavor + " " + io_name));
    }
  }
}

}  // namespace
