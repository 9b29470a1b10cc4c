#!/usr/bin/env bash
# Builds with AddressSanitizer + UndefinedBehaviorSanitizer and runs the whole test suite, then builds with
# ThreadSanitizer and runs the tests of the threaded paths. CUDA is off in both (the emulated kernels still run).
#   scripts/sanitize.sh [address|thread|all]   (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
jobs=$(nproc)
if [[ $what == address || $what == all ]]; then
  echo "== ASan + UBSan: whole test suite"
  BUILD_DIR=build-asan bash scripts/build.sh -DBLOOMSEQ_CUDA=OFF -DBLOOMSEQ_BENCH=OFF -DBLOOMSEQ_SANITIZE=address \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-asan -j"$jobs" --output-on-failure
fi
if [[ $what == thread || $what == all ]]; then
  echo "== TSan: threaded paths"
  BUILD_DIR=build-tsan bash scripts/build.sh -DBLOOMSEQ_CUDA=OFF -DBLOOMSEQ_BENCH=OFF -DBLOOMSEQ_SANITIZE=thread \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo
  # Tests named for threads exercise the multi-threaded pipelines, "decompressing ahead" the reader's prefetch
  # thread; the CLI tests run the tools with -t 2 and 3 (and read gzip through the prefetch thread).
  TSAN_OPTIONS=halt_on_error=1 ctest --test-dir build-tsan -j"$jobs" --output-on-failure -R 'thread|cli|decompressing ahead'
fi
