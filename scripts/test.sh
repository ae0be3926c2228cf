#!/usr/bin/env bash
# Runs every test: installs missing packages, builds, generates the large
# fixtures (weights and expected outputs of models whose IR is committed
# without them), then runs CTest (unit, LibTorch parity, CLI) .
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
bash tools/make_fixtures.sh build/fixtures
cd build/native
TIR_GENERATED_FIXTURES="$PWD/../fixtures" ctest --output-on-failure -j"$(nproc)"
