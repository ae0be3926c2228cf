// Parity against LibTorch 1.13 for the ops whose output sizes depend on the
// data (nonzero, where(condition), masked_select, _unique2,
// unique_consecutive; the IR records the example's sizes, node_parity takes
// them from LibTorch's outputs), masked_scatter, searchsorted / bucketize and
// scatter_reduce.two. Awkward cases: 0-size, all-false / all-true masks,
// broadcast masks, transposed (non-contiguous) inputs, ties and NaN,
// duplicate scatter indices.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "parity/parity_util.h"

namespace {

using tir::DType;
using tir::Shape;
using tir::parity::in;
using tir::parity::tr;

ParityInput vals(Shape s, std::vector<double> v, DType d = DType::F32) {
  ParityInput p = in(std::move(s), d);
  p.values = std::move(v);
  return p;
}
ParityInput mask(Shape s) { return in(std::move(s), DType::Bool); }
ParityInput mask_of(Shape s, bool value) {
  ParityInput p = in(std::move(s), DType::Bool);
  p.values.assign(size_t(tir::shape_numel(p.shape)), value ? 1.0 : 0.0);
  return p;
}
ParityInput trmask(Shape s) { return tr(std::move(s), DType::Bool); }

// ================================ nonzero / where ================================
TEST(Tier3DatadepParity, Nonzero) {
  for (const char* op : {"aten.nonzero.default", "aten.where.default"}) {
    EXPECT_TRUE(node_parity(op, {mask({4, 5})}));
    EXPECT_TRUE(node_parity(op, {trmask({3, 6})}));
    EXPECT_TRUE(node_parity(op, {mask_of({3, 4}, false)}));
    EXPECT_TRUE(node_parity(op, {mask_of({2, 3, 2}, true)}));
    EXPECT_TRUE(node_parity(op, {mask({0, 3})}));
    EXPECT_TRUE(node_parity(op, {mask({7})}));
    EXPECT_TRUE(node_parity(op, {in({3, 4}, DType::I64, -1, 2)}));
    EXPECT_TRUE(node_parity(op, {vals({5}, {0, NAN, -0.0, 1e-30, INFINITY})}));  // NaN is nonzero, -0 is not
    EXPECT_TRUE(node_parity(op, {tr({2, 4}, DType::I32, 0, 2)}));
  }
  EXPECT_TRUE(node_parity("aten.nonzero.default", {vals({}, {3})}));  // 0-d: [1, 0]
  EXPECT_TRUE(node_parity("aten.nonzero.default", {vals({}, {0})}));  // 0-d: [0, 0]
}

// ================================ masked_select ================================
TEST(Tier3DatadepParity, MaskedSelect) {
  const char* op = "aten.masked_select.default";
  EXPECT_TRUE(node_parity(op, {in({4, 5}), mask({4, 5})}));
  EXPECT_TRUE(node_parity(op, {tr({4, 5}), trmask({4, 5})}));
  EXPECT_TRUE(node_parity(op, {in({4, 5}), mask({5})}));         // mask broadcast over rows
  EXPECT_TRUE(node_parity(op, {in({5}), mask({3, 5})}));         // self broadcast to the mask
  EXPECT_TRUE(node_parity(op, {in({3, 1}), mask({1, 4})}));      // both broadcast
  EXPECT_TRUE(node_parity(op, {in({3, 4}), mask_of({3, 4}, false)}));
  EXPECT_TRUE(node_parity(op, {in({3, 4}), mask_of({3, 4}, true)}));
  EXPECT_TRUE(node_parity(op, {in({0, 4}), mask({4})}));
  EXPECT_TRUE(node_parity(op, {in({}), mask_of({}, true)}));
  EXPECT_TRUE(node_parity(op, {in({3, 4}, DType::I64, -9, 9), mask({3, 4})}));
}

// ================================ masked_scatter ================================
TEST(Tier3DatadepParity, MaskedScatter) {
  const char* op = "aten.masked_scatter.default";
  EXPECT_TRUE(node_parity(op, {in({4, 5}), mask({4, 5}), in({4, 5})}));
  EXPECT_TRUE(node_parity(op, {tr({4, 5}), trmask({4, 5}), tr({5, 6})}));   // source larger, transposed
  EXPECT_TRUE(node_parity(op, {in({4, 5}), mask({5}), in({30})}));          // mask broadcast
  EXPECT_TRUE(node_parity(op, {in({5}), mask({3, 5}), in({3, 5})}));        // self broadcast to the mask
  EXPECT_TRUE(node_parity(op, {in({3, 4}), mask_of({3, 4}, false), in({0})}));
  EXPECT_TRUE(node_parity(op, {in({3, 4}), mask_of({3, 4}, true), in({12})}));
  EXPECT_TRUE(node_parity(op, {in({0, 4}), mask({4}), in({2})}));
  EXPECT_TRUE(node_parity(op, {in({2, 3}, DType::I64, -9, 9), mask({2, 3}), in({6}, DType::I64, -9, 9)}));
}

// ================================ unique ================================
TEST(Tier3DatadepParity, Unique2) {
  const char* op = "aten._unique2.default";
  const std::vector<const char*> flags = {R"({})", R"({"return_inverse":true})", R"({"return_counts":true})",
                                          R"({"return_inverse":true,"return_counts":true})",
                                          R"({"sorted":true,"return_inverse":true,"return_counts":true})"};
  for (const char* f : flags) {
    EXPECT_TRUE(node_parity(op, {in({4, 5}, DType::I64, -3, 3)}, f));  // many ties
    EXPECT_TRUE(node_parity(op, {tr({3, 4}, DType::I64, 0, 4)}, f));
    EXPECT_TRUE(node_parity(op, {vals({7}, {2.5, -1, 2.5, 0, -0.0, 7, -1})}, f));
    EXPECT_TRUE(node_parity(op, {in({0, 3})}, f));
    EXPECT_TRUE(node_parity(op, {vals({}, {4})}, f));
    EXPECT_TRUE(node_parity(op, {mask({3, 3})}, f));
    EXPECT_TRUE(node_parity(op, {in({6}, DType::I32, 0, 3)}, f));
  }
}

// NaN in unique: LibTorch 1.13's hash-map kernel gives NaN elements inverse
// index 0 (a lookup miss, also returned when return_inverse is false); torch
// 2.x's sorted kernel gives each NaN its own index, as the engine does: checked
// against torch 2.14 in tests/cpp/unit/ops_datadep_test.cpp.

TEST(Tier3DatadepParity, UniqueConsecutive) {
  const char* op = "aten.unique_consecutive.default";
  const std::vector<std::string> flags = {R"("return_inverse":false)", R"("return_inverse":true)",
                                          R"("return_counts":true)", R"("return_inverse":true,"return_counts":true)"};
  for (const std::string& f : flags) {
    const std::string a = "{" + f + "}";
    EXPECT_TRUE(node_parity(op, {vals({8}, {1, 1, 2, 2, 2, 1, 3, 3}, DType::I64)}, a));
    EXPECT_TRUE(node_parity(op, {in({4, 5}, DType::I64, 0, 2)}, a));
    EXPECT_TRUE(node_parity(op, {tr({3, 4}, DType::I64, 0, 2)}, a));
    EXPECT_TRUE(node_parity(op, {vals({6}, {NAN, NAN, 1, 1, INFINITY, INFINITY})}, a));
    EXPECT_TRUE(node_parity(op, {in({0})}, a));
    EXPECT_TRUE(node_parity(op, {vals({}, {2})}, a));
    for (int dim : {0, 1, -1}) {
      const std::string d = "{" + f + ",\"dim\":" + std::to_string(dim) + "}";
      EXPECT_TRUE(node_parity(op, {vals({4, 3}, {1, 2, 1, 1, 2, 1, 0, 0, 0, 0, 0, 0}, DType::I64)}, d));
      EXPECT_TRUE(node_parity(op, {vals({3, 4}, {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 5})}, d));
      EXPECT_TRUE(node_parity(op, {tr({3, 4}, DType::I64, 0, 2)}, d));
      EXPECT_TRUE(node_parity(op, {in({2, 3, 2}, DType::I64, 0, 2)}, d));
    }
  }
}

// ================================ searchsorted / bucketize ================================
TEST(Tier3DatadepParity, Searchsorted) {
  const char* op = "aten.searchsorted.Tensor";
  const ParityInput bd = vals({6}, {-1, 0, 0, 0.5, 2, 2});  // ties
  for (const char* a : {R"({})", R"({"right":true})", R"({"side":"right"})", R"({"side":"left"})",
                        R"({"out_int32":true})", R"({"right":true,"side":"right","out_int32":true})"}) {
    EXPECT_TRUE(node_parity(op, {bd, in({3, 4}, DType::F32, -2, 3)}, a));
    EXPECT_TRUE(node_parity(op, {bd, vals({6}, {-1, 0, 2, NAN, -INFINITY, INFINITY})}, a));  // ties and NaN
    EXPECT_TRUE(node_parity(op, {bd, tr({4, 3})}, a));
    EXPECT_TRUE(node_parity(op, {bd, in({})}, a));
    EXPECT_TRUE(node_parity(op, {bd, in({0, 2})}, a));
    EXPECT_TRUE(node_parity(op, {vals({0}, {}), in({3})}, a));                              // no boundaries
    EXPECT_TRUE(node_parity(op, {vals({4}, {0, 1, NAN, NAN}), vals({4}, {-1, 0.5, 2, NAN})}, a));  // NaN boundaries
    // N-d: one boundary row per leading index
    EXPECT_TRUE(node_parity(op, {vals({2, 3}, {0, 1, 2, -5, -5, 5}), in({2, 4}, DType::F32, -6, 6)}, a));
    EXPECT_TRUE(node_parity(op, {vals({3}, {1, 5, 9}, DType::I64), in({5}, DType::I64, 0, 11)}, a));
    // sorter: the boundaries unsorted, sorter gives their sorted order
    EXPECT_TRUE(node_parity(op, {vals({4}, {3, -1, 2, 0}), in({5}, DType::F32, -2, 4),
                                 vals({4}, {1, 3, 2, 0}, DType::I64)}, a));
    EXPECT_TRUE(node_parity(op, {vals({2, 3}, {2, 0, 1, 5, 3, 4}), in({2, 2}, DType::F32, -1, 6),
                                 vals({2, 3}, {1, 2, 0, 1, 2, 0}, DType::I64)}, a));
  }
}

TEST(Tier3DatadepParity, Bucketize) {
  const char* op = "aten.bucketize.Tensor";
  const ParityInput bd = vals({5}, {-1, 0, 0, 1, 3});
  for (const char* a : {R"({})", R"({"right":true})", R"({"out_int32":true})", R"({"right":true,"out_int32":true})"}) {
    EXPECT_TRUE(node_parity(op, {in({3, 4}, DType::F32, -2, 4), bd}, a));
    EXPECT_TRUE(node_parity(op, {tr({4, 3}), bd}, a));
    EXPECT_TRUE(node_parity(op, {vals({5}, {-1, 0, 3, NAN, INFINITY}), bd}, a));
    EXPECT_TRUE(node_parity(op, {in({}), bd}, a));
    EXPECT_TRUE(node_parity(op, {in({0, 3}), bd}, a));
    EXPECT_TRUE(node_parity(op, {in({4}), vals({0}, {})}, a));
    EXPECT_TRUE(node_parity(op, {in({2, 3}, DType::I64, -2, 4), vals({3}, {-1, 0, 2}, DType::I64)}, a));
  }
}

// ================================ scatter_reduce ================================
TEST(Tier3DatadepParity, ScatterReduce) {
  const char* op = "aten.scatter_reduce.two";
  for (const char* r : {"sum", "prod", "mean", "amax", "amin"}) {
    for (const char* self : {"true", "false"}) {
      const std::string a0 = std::string(R"({"dim":0,"reduce":")") + r + R"(","include_self":)" + self + "}";
      const std::string a1 = std::string(R"({"dim":1,"reduce":")") + r + R"(","include_self":)" + self + "}";
      const std::string am = std::string(R"({"dim":-1,"reduce":")") + r + R"(","include_self":)" + self + "}";
      // duplicates (indices in [0, 3) over 6 rows), untouched rows 3..4
      EXPECT_TRUE(node_parity(op, {in({5, 4}), in({6, 4}, DType::I64, 0, 3), in({6, 4})}, a0));
      EXPECT_TRUE(node_parity(op, {in({4, 5}), in({4, 7}, DType::I64, 0, 5), in({4, 8})}, a1));  // src larger
      EXPECT_TRUE(node_parity(op, {tr({4, 5}), in({2, 3}, DType::I64, 0, 5), tr({3, 4})}, am));   // transposed
      EXPECT_TRUE(node_parity(op, {in({6}), in({10}, DType::I64, 0, 6), in({10})}, a0));
      EXPECT_TRUE(node_parity(op, {in({4, 3}), in({0, 3}, DType::I64, 0, 4), in({2, 3})}, a0));  // empty index
      EXPECT_TRUE(node_parity(op, {in({}), vals({}, {0}, DType::I64), in({})}, a0));               // 0-d
      EXPECT_TRUE(node_parity(op, {in({4, 3}, DType::I64, -5, 6), in({5, 3}, DType::I64, 0, 4),
                                   in({5, 3}, DType::I64, -5, 6)},
                              a0));  // integer: floor mean, integer identities
      EXPECT_TRUE(node_parity(op, {vals({3}, {1, NAN, 2}), vals({4}, {0, 0, 1, 2}, DType::I64),
                                   vals({4}, {NAN, 5, 7, -1})},
                              a0));  // NaN wins amax/amin
    }
  }
}

}  // namespace
