// The same graph in float64: a reference run of the same module in this engine, for judging a
// float32 run (the JS package's per-node provider comparison; docs/webgpu.md).
#pragma once
#include "ir/model.h"

namespace tir {

// Every float32 (complex64) value the graph computes becomes float64 (complex128): graph inputs,
// weights, constants, and each node output that a promoted value flows into or whose dtype the
// node's attrs name (torch.float32 -> torch.float64; a creation op with a device and no dtype gets
// dtype float64). A float32 value made from integers only (true_divide of int64, ...) stays
// float32, and the nodes reading only it too: PyTorch's promotion makes float64 wherever it meets
// a promoted value. float16 / bfloat16 stay as they are.
// A view.dtype (a bit view) reads its input cast back to float32 (an inserted _to_copy node).
Model promote_to_float64(const Model& model);
// Node outputs still float32 / complex64 in a promoted model (made from integers only): where a
// float64 run is no closer to the truth than a float32 one.
size_t float32_values_left(const Model& promoted);

}  // namespace tir
