#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each for SECONDS (default 60), seeded from
# data/ and tests/corpus/. New crashes land in fuzz-findings/<target>/; copy a minimised one into
# tests/corpus/<target>/ to keep it as a regression test (CTest replays that folder in every build). Exits 1 when
# any target found something, so CI can run a short smoke of every target.
#   scripts/fuzz.sh [SECONDS] [TARGET...]     targets: sequence_reader twobit filter_file cli_options
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(sequence_reader twobit filter_file cli_options)

# clang and its sanitizer/libFuzzer runtimes (a separate package from clang itself on Debian 12).
if ! command -v clang++ >/dev/null || ! dpkg-query -W -f='${Status}' libclang-rt-14-dev 2>/dev/null | grep -q "ok installed"; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq --no-install-recommends clang libclang-rt-14-dev >/dev/null
fi
bash scripts/install-deps.sh
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBLOOMSEQ_CUDA=OFF \
  -DBLOOMSEQ_FUZZ=ON -DBLOOMSEQ_TESTS=OFF -DBLOOMSEQ_BENCH=OFF >/dev/null
cmake --build build-fuzz -j"$(nproc)" --target $(printf 'fuzz_%s ' "${targets[@]}")

failed=()
for t in "${targets[@]}"; do
  work=build-fuzz/corpus/$t
  rm -rf "fuzz-findings/$t"
  mkdir -p "$work" "fuzz-findings/$t"
  cp -n tests/corpus/"$t"/* "$work"/ 2>/dev/null || true
  case $t in
    sequence_reader) for f in data/*.fa data/*.fq data/*.fastq.gz data/bee-viruses/*; do head -c 4096 "$f" > "$work/seed-$(basename "$f")"; done ;;
  esac
  max_len=65536
  [[ $t == cli_options ]] && max_len=8192  # command lines: one argument may pass the 4096-character bound
  echo "== fuzzing $t for ${secs}s"
  status=0
  ./build-fuzz/fuzz/fuzz_"$t" -max_total_time="$secs" -max_len="$max_len" -rss_limit_mb=2048 -malloc_limit_mb=1024 \
    -artifact_prefix="fuzz-findings/$t/" "$work" > "build-fuzz/$t.log" 2>&1 || status=$?
  grep -E '^#[0-9]+.*(DONE|pulse)|ERROR|SUMMARY|Done' "build-fuzz/$t.log" | tail -3
  # libFuzzer exits non-zero on a crash, a leak, a timeout or an out-of-memory input, and saves the input.
  if ((status)) || [[ -n $(find "fuzz-findings/$t" -type f) ]]; then
    failed+=("$t")
    echo "== $t: FINDING (exit $status); the fuzzer's report:"
    grep -A30 -m1 -E '^==[0-9]+==|runtime error|deadly signal' "build-fuzz/$t.log" | head -40
  fi
done
echo "findings (empty = none):"; find fuzz-findings -type f | head
if ((${#failed[@]})); then
  echo "fuzz.sh: findings in ${failed[*]}: minimise them (fuzz_TARGET -minimize_crash=1 FILE), fix, and keep the input in tests/corpus/TARGET/" >&2
  exit 1
fi
