#pragma once
#include "cli/cli_common.h"

namespace tir::cli {
// torchir generate PREFILL DECODE --kv-mapping K --weights W ... (its usage: command_line.cpp).
int cmd_generate(const Args& a);
}  // namespace tir::cli
