// The scaled dot-product attention op shared by attention.cpp and
// attention_variants.cpp: plan checks q/k/v/mask and plans output 0 (the
// attention output); run fills it and, when want_lse, the logsumexp rows of
// output 1 (one row of L values per (batch, head), lse_stride apart).
#pragma once
#include <memory>

#include "ops/op.h"

namespace tir {

struct AttnState {
  DType dtype = DType::F32;  // compute and output dtype
  bool causal = false;
  double scale = 1.0;
  bool gqa = false;
  bool has_mask = false;
  bool want_lse = false;
  int64_t lse_stride = 0;    // elements between the lse rows of two heads; 0: L
};

// mask_idx: the input holding attn_mask (-1: none); gqa: kv heads repeat up to q's.
std::shared_ptr<AttnState> attn_plan_common(OpCall& call, int mask_idx, bool gqa);
void attn_run(OpCall& call);  // call.state holds the AttnState

}  // namespace tir
