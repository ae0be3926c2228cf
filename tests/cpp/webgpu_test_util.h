// Shared by the WebGPU plan and streaming tests.
#pragma once
#include "runtime/session.h"

namespace tir::test {

// The options the bindings compile a WebGPU model's session with (bindings/embind.cpp): fusion
// on (fused epilogues run in the GPU producer's store), no in-place donation.
inline SessionOptions webgpu_session_options() {
  SessionOptions o;
  o.update_in_place = false;
  return o;
}

}  // namespace tir::test
