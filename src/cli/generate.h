#pragma once
#include "cli/cli_common.h"

namespace tir::cli {
// torchir generate PREFILL DECODE --kv-mapping K --weights W ... (see kGenerateUsage).
extern const char* kGenerateUsage;
int cmd_generate(const Args& a);
}  // namespace tir::cli
