#!/usr/bin/env bash
# Configures and builds bloomseq in Release into BUILD_DIR (default: build). Extra arguments go to cmake, e.g.
#   scripts/build.sh -DBLOOMSEQ_CUDA=OFF
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
# nvcc lives outside PATH in the standard CUDA install; let CMake's AUTO detection find it.
if ! command -v nvcc >/dev/null 2>&1 && [[ -x /usr/local/cuda/bin/nvcc ]]; then export PATH="/usr/local/cuda/bin:$PATH"; fi
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$build_dir" -j"$(nproc)"
