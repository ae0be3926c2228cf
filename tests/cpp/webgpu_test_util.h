// Shared by the WebGPU plan and streaming tests.
#pragma once
#include "runtime/session.h"

namespace tir::test {

// The options the bindings compile a WebGPU model's session with (bindings/embind.cpp): no
// fusion (the GPU kernels take no fused epilogues) and no in-place donation.
inline SessionOptions webgpu_session_options() {
  SessionOptions o;
  o.fusion = false;
  o.update_in_place = false;
  return o;
}

}  // namespace tir::test
