#!/usr/bin/env bash
# Builds with clang, AddressSanitizer + UndefinedBehaviorSanitizer and runs the whole test suite, then builds with
# ThreadSanitizer and runs the tests of the threaded paths. CUDA and the benchmarks are off in both (the emulated
# kernels still run). Fails on a failing test and on any sanitizer report, also one from a tool that a CLI test
# runs and whose non-zero exit that test expected: every report is written to a file, and any file fails the run.
#   scripts/sanitize.sh [address|thread|all]   (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
jobs=$(nproc)
case $what in address | thread | all) ;; *) echo "usage: scripts/sanitize.sh [address|thread|all]" >&2; exit 64 ;; esac

# clang: GCC 12's UBSan, linked with ASan, ignores log_path and only writes to stderr, where a CLI test that
# expects a failing exit would swallow it. clang's runtimes honour log_path for ASan, UBSan and TSan alike.
if ! command -v clang++ >/dev/null || ! dpkg-query -W -f='${Status}' libclang-rt-14-dev 2>/dev/null | grep -q "ok installed"; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq --no-install-recommends clang libclang-rt-14-dev >/dev/null
fi
bash scripts/install-deps.sh --test
clang=(-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++)

# Runs ctest with the sanitizer's reports sent to files under BUILD/sanitizer-reports, then fails if a test
# failed or any report was written.
run_checked() {
  local build=$1 label=$2
  shift 2
  local reports=$PWD/$build/sanitizer-reports
  rm -rf "$reports" && mkdir -p "$reports"
  local start=$SECONDS status=0
  ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:log_path=$reports/asan \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:log_path=$reports/ubsan \
  TSAN_OPTIONS=halt_on_error=1:log_path=$reports/tsan \
    ctest --test-dir "$build" -j"$jobs" --output-on-failure "$@" || status=$?
  local found
  found=$(find "$reports" -type f -size +0 | wc -l)
  if ((found)); then
    echo "== $label: $found sanitizer report(s):"
    find "$reports" -type f -size +0 -print -exec head -40 {} \;
  fi
  echo "== $label: ctest exit $status, $found sanitizer report(s), tests $((SECONDS - start)) s"
  ((status == 0 && found == 0))
}

if [[ $what == address || $what == all ]]; then
  echo "== ASan + UBSan: whole test suite"
  start=$SECONDS
  BUILD_DIR=build-asan bash scripts/build.sh -DBLOOMSEQ_CUDA=OFF -DBLOOMSEQ_BENCH=OFF -DBLOOMSEQ_SANITIZE=address \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo "${clang[@]}"
  echo "== ASan + UBSan: build $((SECONDS - start)) s"
  run_checked build-asan "ASan + UBSan"
fi
if [[ $what == thread || $what == all ]]; then
  echo "== TSan: threaded paths"
  start=$SECONDS
  BUILD_DIR=build-tsan bash scripts/build.sh -DBLOOMSEQ_CUDA=OFF -DBLOOMSEQ_BENCH=OFF -DBLOOMSEQ_SANITIZE=thread \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo "${clang[@]}"
  echo "== TSan: build $((SECONDS - start)) s"
  # Tests named for threads exercise the multi-threaded pipelines, "decompressing ahead" the reader's prefetch
  # thread; the CLI tests run the tools with -t 2 and 3 (and read gzip through the prefetch thread). Not
  # `cli: model`: it runs no threaded tool and its calibration takes 8 minutes under TSan.
  run_checked build-tsan "TSan" -R 'thread|cli|decompressing ahead' -E '^cli: model$'
fi
