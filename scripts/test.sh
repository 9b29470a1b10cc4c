#!/usr/bin/env bash
# Installs the dependencies, builds (CUDA backend too when nvcc is present) and runs every test with CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --test
BUILD_DIR=${BUILD_DIR:-build} bash scripts/build.sh "$@"
ctest --test-dir "${BUILD_DIR:-build}" -j"$(nproc)" --output-on-failure
