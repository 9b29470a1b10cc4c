#!/usr/bin/env bash
# GPU benchmark and check: builds with CUDA, runs the emulation tests, then the real kernels against the CPU
# reference (stage 1a and classify), printing membership tests/s and reads/s (table + CSV).
#
#   bench/gpu.sh [BUILD_DIR] [gpu_bench options...]      e.g. bench/gpu.sh build-gpu --subqueries 5000
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build-gpu}
shift || true
if command -v nvidia-smi >/dev/null 2>&1; then nvidia-smi -L || true; else echo "gpu.sh: nvidia-smi not found" >&2; fi
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DBLOOMSEQ_CUDA=ON >/dev/null
cmake --build "$build" -j"$(nproc)" --target gpu_bench test_cuda
"$build/tests/test_cuda" "[cuda]"
echo "== quick check of the real kernels against the CPU reference"
"$build/bin/gpu_bench" --backend cuda --quick --csv "$build/gpu_bench_quick.csv"
echo "== full run"
"$build/bin/gpu_bench" --backend cuda --vectors-per-block 1,2,4,6 --csv "$build/gpu_bench.csv" "$@"
echo "CSV: $build/gpu_bench.csv"
