#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each for SECONDS (default 60), seeded from
# data/ and tests/corpus/. New crashes land in fuzz-findings/<target>/; copy a minimised one into
# tests/corpus/<target>/ to keep it as a regression test (CTest replays that folder in every build).
#   scripts/fuzz.sh [SECONDS] [TARGET...]     targets: sequence_reader twobit filter_file cli_options
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(sequence_reader twobit filter_file cli_options)

command -v clang++ >/dev/null || { apt-get update -qq && apt-get install -y -qq clang libclang-rt-14-dev >/dev/null; }
bash scripts/install-deps.sh
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBLOOMSEQ_CUDA=OFF \
  -DBLOOMSEQ_FUZZ=ON -DBLOOMSEQ_TESTS=OFF -DBLOOMSEQ_BENCH=OFF >/dev/null
cmake --build build-fuzz -j"$(nproc)" --target $(printf 'fuzz_%s ' "${targets[@]}")

for t in "${targets[@]}"; do
  work=build-fuzz/corpus/$t
  mkdir -p "$work" "fuzz-findings/$t"
  cp -n tests/corpus/"$t"/* "$work"/ 2>/dev/null || true
  case $t in
    sequence_reader) for f in data/*.fa data/*.fq data/*.fastq.gz data/bee-viruses/*; do head -c 4096 "$f" > "$work/seed-$(basename "$f")"; done ;;
  esac
  max_len=65536
  [[ $t == cli_options ]] && max_len=8192  # command lines: one argument may pass the 4096-character bound
  echo "== fuzzing $t for ${secs}s"
  ./build-fuzz/fuzz/fuzz_"$t" -max_total_time="$secs" -max_len="$max_len" -rss_limit_mb=2048 -malloc_limit_mb=1024 \
    -artifact_prefix="fuzz-findings/$t/" "$work" 2>&1 | grep -E '^#[0-9]+.*(DONE|pulse)|ERROR|SUMMARY|Done' | tail -3
done
echo "findings (empty = none):"; find fuzz-findings -type f | head
