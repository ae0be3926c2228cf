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

// ========================= scatter / scatter_add ===========================
namespace {

TEST(ScatterParity, SrcAndValue) {
  for (const char* op : {"aten.scatter.src", "aten.scatter_.src"}) {
    // Per column the dim-0 indices are distinct (plain writes of duplicates are unspecified).
    EXPECT_TRUE(node_parity(op, {in({4, 3}), ids({2, 3}, {0, 3, 0, 2, 1, 3}), in({2, 3})}, R"({"dim":0})"));
    EXPECT_TRUE(node_parity(op, {in({4, 5}), ids({2, 2}, {4, 0, 1, 2}), in({3, 4})}, R"({"dim":-1})"));  // src larger
    EXPECT_TRUE(node_parity(op, {tr({3, 4}), ids({3, 1}, {1, 0, 3}), tr({3, 2})}, R"({"dim":1})"));
    EXPECT_TRUE(node_parity(op, {in({2, 3, 4}), ids({1, 3, 2}, {2, 0, 1, 1, 0, 2}), in({1, 3, 2})}, R"({"dim":1})"));
    EXPECT_TRUE(node_parity(op, {in({5}), ids({0}, {}), in({0})}, R"({"dim":0})"));  // empty index
    EXPECT_TRUE(node_parity(op, {in({0, 3}), ids({0, 3}, {}), in({0, 3})}, R"({"dim":1})"));
    EXPECT_TRUE(node_parity(op, {in({}), ids({}, {0}), in({})}, R"({"dim":0})"));  // 0-d
    EXPECT_TRUE(node_parity(op, {in({1, 1}), ids({1, 1}, {0}), in({1, 1})}, R"({"dim":-2})"));
    EXPECT_TRUE(node_parity(op, {in({3, 2}, DType::I64, -9, 9), ids({1, 2}, {2, 0}), in({1, 2}, DType::I64, -9, 9)},
                            R"({"dim":0})"));
    EXPECT_TRUE(node_parity(op, {in({3, 2}, DType::F64), ids({2, 1}, {1, 0}), in({2, 2}, DType::F64)}, R"({"dim":1})"));
    EXPECT_TRUE(node_parity(op, {in({2, 3}, DType::Bool), ids({2, 2}, {2, 1, 0, 2}), in({2, 2}, DType::Bool)},
                            R"({"dim":1})"));
  }
  for (const char* op : {"aten.scatter.value", "aten.scatter_.value"}) {
    EXPECT_TRUE(node_parity(op, {in({4, 3}), ids({2, 3}, {0, 3, 1, 2, 1, 3})}, R"({"dim":0,"value":1.5})"));
    EXPECT_TRUE(node_parity(op, {tr({3, 5}), idx({3, 4}, 0, 5)}, R"({"dim":-1,"value":-2})"));  // duplicates: same value
    EXPECT_TRUE(node_parity(op, {in({3, 4}, DType::I64, -9, 9), idx({2, 4}, 0, 3)}, R"({"dim":0,"value":7})"));
    EXPECT_TRUE(node_parity(op, {in({3, 4}, DType::I64, -9, 9), idx({2, 4}, 0, 3)}, R"({"dim":0,"value":2.7})"));
    EXPECT_TRUE(node_parity(op, {in({3, 4}, DType::F64), idx({3, 2}, 0, 4)}, R"({"dim":1,"value":0.25})"));
    EXPECT_TRUE(node_parity(op, {in({3, 4}, DType::Bool), idx({3, 2}, 0, 4)}, R"({"dim":1,"value":true})"));
    EXPECT_TRUE(node_parity(op, {in({2, 0}), ids({2, 0}, {})}, R"({"dim":0,"value":1.0})"));
  }
}

TEST(ScatterParity, AddWithDuplicates) {
  for (const char* op : {"aten.scatter_add.default", "aten.scatter_add_.default"}) {
    EXPECT_TRUE(node_parity(op, {in({4, 3}), idx({6, 3}, 0, 4), in({6, 3})}, R"({"dim":0})"));
    EXPECT_TRUE(node_parity(op, {tr({3, 5}), idx({3, 7}, 0, 5), in({3, 8})}, R"({"dim":-1})"));
    EXPECT_TRUE(node_parity(op, {in({2, 3, 4}), idx({2, 5, 4}, 0, 3), in({2, 5, 4})},
                            R"({"dim":1})"));
    EXPECT_TRUE(node_parity(op, {in({5}), idx({1}, 0, 5), in({1})}, R"({"dim":0})"));
    EXPECT_TRUE(node_parity(op, {in({4, 3}), tr({2, 3}, DType::I64, 0, 4), tr({2, 3})}, R"({"dim":0})"));  // strided index
    EXPECT_TRUE(node_parity(op, {in({5}, DType::I64, -9, 9), idx({9}, 0, 5), in({9}, DType::I64, -9, 9)}, R"({"dim":0})"));
    EXPECT_TRUE(node_parity(op, {in({3, 3}, DType::F64), idx({4, 3}, 0, 3), in({4, 3}, DType::F64)}, R"({"dim":0})"));
    EXPECT_TRUE(node_parity(op, {in({0, 2}), idx({0, 2}, 0, 1), in({0, 2})}, R"({"dim":0})"));
  }
}

// ================================ index_fill ===============================
TEST(IndexFillParity, ScalarAndTensorValues) {
  for (const char* op : {"aten.index_fill.int_Scalar", "aten.index_fill_.int_Scalar"}) {
    EXPECT_TRUE(node_parity(op, {in({4, 3}), ids({2}, {3, -4})}, R"({"dim":0,"value":2.5})"));
    EXPECT_TRUE(node_parity(op, {tr({3, 5}), ids({3}, {4, 0, 4})}, R"({"dim":-1,"value":-1})"));
    EXPECT_TRUE(node_parity(op, {in({2, 3, 4}), ids({}, {-1})}, R"({"dim":1,"value":0})"));  // 0-d index
    EXPECT_TRUE(node_parity(op, {in({3}), ids({0}, {})}, R"({"dim":0,"value":3})"));
    EXPECT_TRUE(node_parity(op, {in({}), ids({1}, {0})}, R"({"dim":0,"value":3})"));
    EXPECT_TRUE(node_parity(op, {in({3, 0}), ids({1}, {2})}, R"({"dim":0,"value":3})"));
    EXPECT_TRUE(node_parity(op, {in({3, 4}, DType::I64, -9, 9), ids({2}, {1, 2})}, R"({"dim":1,"value":5})"));
    EXPECT_TRUE(node_parity(op, {in({3, 4}, DType::F64), ids({1}, {1})}, R"({"dim":0,"value":0.1})"));
    EXPECT_TRUE(node_parity(op, {in({3, 4}, DType::Bool), ids({1}, {-2})}, R"({"dim":1,"value":true})"));
  }
  const std::string op = "aten.index_fill.int_Tensor";
  EXPECT_TRUE(node_parity(op, {in({4, 3}), ids({2}, {1, -1}), in({})}, R"({"dim":0})"));
  EXPECT_TRUE(node_parity(op, {tr({4, 3}), ids({2}, {1, 0}), in({})}, R"({"dim":-1})"));
  EXPECT_TRUE(node_parity(op, {in({3, 4}, DType::I64, -9, 9), ids({1}, {3}), in({}, DType::I64, -9, 9)}, R"({"dim":1})"));
}

// ================================= one_hot =================================
TEST(OneHotParity, ExplicitAndInferredClasses) {
  const std::string op = "aten.one_hot.default";
  EXPECT_TRUE(node_parity(op, {idx({5}, 0, 4)}, R"({"num_classes":4})"));
  EXPECT_TRUE(node_parity(op, {tr({3, 2}, DType::I64, 0, 6)}, R"({"num_classes":7})"));
  EXPECT_TRUE(node_parity(op, {ids({2, 3}, {0, 5, 2, 1, 1, 3})}, "{}"));  // -1: max + 1 from the IR shape
  EXPECT_TRUE(node_parity(op, {ids({}, {2})}, R"({"num_classes":3})"));
  EXPECT_TRUE(node_parity(op, {ids({0}, {})}, R"({"num_classes":3})"));
}

// ============================ repeat_interleave ============================
TEST(RepeatInterleaveParity, SelfIntAndTensor) {
  const std::string op = "aten.repeat_interleave.self_int";
  EXPECT_TRUE(node_parity(op, {in({2, 3})}, R"({"repeats":2})"));  // dim None: flattened
  EXPECT_TRUE(node_parity(op, {tr({2, 3})}, R"({"repeats":3})"));
  EXPECT_TRUE(node_parity(op, {in({2, 3})}, R"({"repeats":2,"dim":0})"));
  EXPECT_TRUE(node_parity(op, {tr({4, 3})}, R"({"repeats":3,"dim":-1,"output_size":9})"));
  EXPECT_TRUE(node_parity(op, {in({2, 5, 3}, DType::I64, -9, 9)}, R"({"repeats":1,"dim":1})"));
  EXPECT_TRUE(node_parity(op, {in({2, 3}, DType::Bool)}, R"({"repeats":0,"dim":1})"));
  EXPECT_TRUE(node_parity(op, {in({0, 3}, DType::F64)}, R"({"repeats":2,"dim":0})"));
  EXPECT_TRUE(node_parity(op, {in({})}, R"({"repeats":4})"));
  const std::string opt = "aten.repeat_interleave.Tensor";
  EXPECT_TRUE(node_parity(opt, {ids({4}, {2, 0, 3, 1})}, "{}"));
  EXPECT_TRUE(node_parity(opt, {ids({3}, {1, 1, 2})}, R"({"output_size":4})"));
  EXPECT_TRUE(node_parity(opt, {ids({3}, {2, 2, 1}, DType::I32)}, "{}"));
  EXPECT_TRUE(node_parity(opt, {ids({0}, {})}, "{}"));
}

// ============================== embedding_bag ==============================
// indices 1-d with offsets; extra outputs follow LibTorch 1.13 (shapes from the IR).
// The .padding_idx form has no defaults: every attr is written; padding -1 means
// none for _embedding_bag but wraps for .padding_idx (null means none there).
std::string bag_attrs(const std::string& op, int mode, bool last, int64_t padding) {
  const bool pform = op == "aten.embedding_bag.padding_idx";
  const std::string pad = padding < 0 && pform ? "null" : std::to_string(padding);
  return R"({"scale_grad_by_freq":false,"sparse":false,"mode":)" + std::to_string(mode) +
         R"(,"include_last_offset":)" + (last ? "true" : "false") + R"(,"padding_idx":)" + pad + "}";
}

TEST(EmbeddingBagParity, ModesOffsetsAndWeights) {
  for (const std::string op : {"aten._embedding_bag.default", "aten.embedding_bag.padding_idx"}) {
    for (int mode : {0, 1, 2}) {
      EXPECT_TRUE(node_parity(op, {in({10, 3}), idx({8}, 0, 10), ids({3}, {0, 3, 3})}, bag_attrs(op, mode, false, -1)));
      EXPECT_TRUE(node_parity(op, {tr({10, 4}), idx({7}, 0, 10), ids({2}, {0, 5})}, bag_attrs(op, mode, false, 2)));
      EXPECT_TRUE(node_parity(op, {in({6, 2}, DType::F64), idx({5}, 0, 6), ids({1}, {0})},
                              bag_attrs(op, mode, false, -1)));
      EXPECT_TRUE(node_parity(op, {in({6, 2}), idx({5}, 0, 6, DType::I32), ids({2}, {0, 2}, DType::I32)},
                              bag_attrs(op, mode, false, -1)));
      EXPECT_TRUE(node_parity(op, {in({6, 2}), idx({0}, 0, 6), ids({2}, {0, 0})}, bag_attrs(op, mode, false, -1)));
      if (mode != 2 || op == "aten._embedding_bag.default")  // LibTorch 1.13 corrupts its heap on this one
        EXPECT_TRUE(node_parity(op, {in({6, 3}), idx({6}, 0, 6), ids({3}, {0, 2, 6})}, bag_attrs(op, mode, true, -1)));
    }
    EXPECT_TRUE(node_parity(op, {in({10, 2}), ids({4}, {9, 1, 9, 2}), ids({2}, {0, 2})}, bag_attrs(op, 1, false, -1)));
    // per_sample_weights (sum only)
    EXPECT_TRUE(node_parity(op, {in({10, 3}), idx({8}, 0, 10), ids({3}, {0, 1, 4}), in({8})},
                            bag_attrs(op, 0, false, -1)));
    EXPECT_TRUE(node_parity(op, {in({10, 3}, DType::F64), idx({4}, 0, 10), ids({2}, {0, 4}), in({4}, DType::F64)},
                            bag_attrs(op, 0, false, 3)));
  }
}

// ====================== index.Tensor: masks and layouts ======================
TEST(IndexTensorParity, SeveralIndicesAndNoneMasks) {
  const std::string op = "aten.index.Tensor";
  EXPECT_TRUE(node_parity(op, {in({4, 5}), idx({3}, -4, 4)}));
  EXPECT_TRUE(node_parity(op, {tr({4, 5}), idx({2, 3}, -4, 4), idx({3}, -5, 5)}));  // broadcast [2,3]x[3]
  EXPECT_TRUE(node_parity(op, {in({2, 3, 4}), idx({5}, 0, 3), idx({5}, 0, 4)},
                          R"({"_tensor_list_none_masks":[[true,false,false]]})"));  // adjacent: in place
  EXPECT_TRUE(node_parity(op, {in({2, 3, 4}), idx({5}, 0, 2), idx({5}, 0, 4)},
                          R"({"_tensor_list_none_masks":[[false,true,false]]})"));  // separated: first
  EXPECT_TRUE(node_parity(op, {in({2, 3, 4, 5}), idx({2, 1}, 0, 3), idx({4}, -5, 5)},
                          R"({"_tensor_list_none_masks":[[true,false,true,false]]})"));
  EXPECT_TRUE(node_parity(op, {tr({3, 4}), idx({}, 0, 4)}, R"({"_tensor_list_none_masks":[[true,false]]})"));
  EXPECT_TRUE(node_parity(op, {in({3, 4}, DType::I64, -9, 9), idx({0}, 0, 3)}));
  EXPECT_TRUE(node_parity(op, {in({3, 4}, DType::Bool), idx({2}, -3, 3)}));  // 1.13 rejects int32 here
  EXPECT_TRUE(node_parity(op, {in({3, 0, 2}, DType::F64), idx({4}, 0, 3)}));
}

TEST(IndexTensorParity, BooleanMasks) {
  const std::string op = "aten.index.Tensor";
  EXPECT_TRUE(node_parity(op, {in({3, 4}), in({3, 4}, DType::Bool)}));
  EXPECT_TRUE(node_parity(op, {tr({3, 4}), tr({3, 4}, DType::Bool)}));
  EXPECT_TRUE(node_parity(op, {in({5, 3}), in({5}, DType::Bool)}));
  EXPECT_TRUE(node_parity(op, {in({2, 5}), in({5}, DType::Bool)}, R"({"_tensor_list_none_masks":[[true,false]]})"));
  EXPECT_TRUE(node_parity(op, {in({2, 3, 4}, DType::I64, -9, 9), in({2, 3}, DType::Bool)}));
  // mask + int index: x[mask, idx] with a 3-true mask broadcasting against [3]
  EXPECT_TRUE(node_parity(op, {in({4, 5}), ids({4}, {1, 0, 1, 1}, DType::Bool), ids({3}, {4, -1, 0})}));
  EXPECT_TRUE(node_parity(op, {in({4, 5}), ids({4}, {0, 0, 0, 0}, DType::Bool)}));  // none selected
}

}  // namespace
