#!/usr/bin/env bash
# One-command check of the CUDA backend on this machine's GPU (meant to take under 8 minutes on an H100 from a
# clean checkout):
#   1. builds with CUDA for the GPU that is present only (CMAKE_CUDA_ARCHITECTURES=native),
#   2. runs the CUDA tests, then the hidden device tests on device 0 (slot reuse with at least 3 x more chunks
#      than streams, overflow reruns, vectors in global memory, the largest filter set the classify kernel admits),
#   3. runs blast-bloom and facs classify with --backend cuda and --backend cpu on the bundled data and compares
#      their outputs byte for byte (small chunks: slots reused; saturated vectors: hit-buffer overflow reruns;
#      4 Mbit vectors: the global-memory path; --layout bitsliced: the bit-sliced kernel; --scan-word: the
#      short-word scan and w = 28's probe words, both at a stride; every bundled reference as a filter, then as the
#      bins of an
#      interleaved set, single reads and pairs),
#   4. prints membership tests/s and reads/s next to the performance model's prediction (gpu_bench).
# Any failure or difference ends it with "GPU CHECK FAILED" and a non-zero exit.
#
#   scripts/gpu-check.sh [--fake | --prebuilt] [BUILD_DIR]
#
# --prebuilt skips the build: BUILD_DIR already holds bin/{blast-bloom,facs,gpu_bench} and tests/test_cuda, built
# with CUDA for this GPU elsewhere (a login node, or a machine with nvcc but no GPU:
# -DBLOOMSEQ_CUDA=ON -DBLOOMSEQ_BENCH=ON -DCMAKE_CUDA_ARCHITECTURES=90 for an H100/H200). Shared libraries the GPU
# node lacks (htslib and its codecs) can be put beside them in BUILD_DIR/lib, which is added to LD_LIBRARY_PATH.
# --fake needs no GPU and no nvcc: a build without CUDA, the same steps on the fake device
# (BLOOMSEQ_FAKE_CUDA_DEVICE=1: the backend's real host side, kernels run by the host emulator), smaller inputs
# and no throughput step. CI runs it.
set -eEuo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
fake=0
prebuilt=0
if [[ ${1:-} == --fake ]]; then
  fake=1
  shift
elif [[ ${1:-} == --prebuilt ]]; then
  prebuilt=1
  shift
  [[ -n ${1:-} ]] || { echo "gpu-check: --prebuilt needs the BUILD_DIR that holds the binaries" >&2; exit 64; }
fi
build=$(realpath -m "${1:-$src/build-gpu-check$([[ $fake == 1 ]] && echo -fake)}")
data=$src/data
step="start"
trap 'echo "GPU CHECK FAILED at: $step" >&2; trap - ERR' ERR
start=$SECONDS
say() { echo "== $* ($((SECONDS - start)) s)"; }

step="build"
if [[ $fake == 1 ]]; then
  say "build without CUDA (fake device)"
  export BLOOMSEQ_FAKE_CUDA_DEVICE=1
  cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DBLOOMSEQ_CUDA=OFF >/dev/null
  cmake --build "$build" -j"$(nproc)" --target test_cuda blast-bloom facs >/dev/null
elif [[ $prebuilt == 1 ]]; then
  say "prebuilt binaries in $build"
  if command -v nvidia-smi >/dev/null 2>&1; then nvidia-smi -L; else echo "nvidia-smi not found" >&2; fi
  if [[ -d $build/lib ]]; then export LD_LIBRARY_PATH="$build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"; fi
  for f in bin/blast-bloom bin/facs bin/gpu_bench tests/test_cuda; do
    [[ -x $build/$f ]] || { echo "gpu-check: $build/$f is missing (--prebuilt)" >&2; false; }
  done
else
  say "build with CUDA for this GPU"
  if command -v nvidia-smi >/dev/null 2>&1; then nvidia-smi -L; else echo "nvidia-smi not found" >&2; fi
  if ! command -v nvcc >/dev/null 2>&1 && [[ -x /usr/local/cuda/bin/nvcc ]]; then export PATH="/usr/local/cuda/bin:$PATH"; fi
  cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DBLOOMSEQ_CUDA=ON -DBLOOMSEQ_BENCH=ON \
    -DCMAKE_CUDA_ARCHITECTURES=native >/dev/null
  cmake --build "$build" -j"$(nproc)" --target test_cuda blast-bloom facs gpu_bench >/dev/null
fi
bin=$build/bin
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

step="CUDA tests"
say "CUDA tests (kernel bodies, host side on the fake device)"
"$build/tests/test_cuda" "[cuda]" | tail -2
step="device tests"
say "device tests ($([[ $fake == 1 ]] && echo fake device || echo device 0))"
"$build/tests/test_cuda" "[device]" | tail -2

# Runs the same command with --backend cuda and --backend cpu; their outputs (stdout and the files named by
# -o/--summary, written under the run's own folder) must be identical byte for byte.
same_output() {
  local name=$1
  shift
  local b
  for b in cuda cpu; do
    mkdir -p "$tmp/$name.$b"
    (cd "$tmp/$name.$b" && "$@" --backend "$b" >stdout)
  done
  # Only a header comment that repeats the command line may differ (it names the backend).
  if ! diff -r -I '^# .*--backend' "$tmp/$name.cuda" "$tmp/$name.cpu" >"$tmp/$name.diff"; then
    head -20 "$tmp/$name.diff" >&2
    false
  fi
  echo "   $name: identical ($(cat "$tmp/$name.cpu/"* | wc -l) lines)"
}

say "blast-bloom --backend cuda against --backend cpu"
query=$data/lambda_virus.fa
db=$data/ecoli_536_200k.fa
if [[ $fake == 1 ]]; then db=$data/lambda_virus.fa; fi  # the emulator is slow: a smaller database
step="blast-bloom, slots reused"
same_output blast-chunks "$bin/blast-bloom" --sub-query 1000 --chunk 8K --stage 1a "$query" "$db"
step="blast-bloom, overflow reruns"
same_output blast-overflow "$bin/blast-bloom" --sub-query 1000 -m 64 -k 1 --chunk 64K "$query" "$db"
step="blast-bloom, vectors in global memory"
same_output blast-global "$bin/blast-bloom" --sub-query 1000 -m 4M --chunk 16K "$query" "$db"
# The CPU's default on a short query, asked for on the device: exact filters of a 10-base probe word tested at a
# stride (the short-word scan); and Bloom probe words of 16 bases for w = 28.
step="blast-bloom, short-word scan at a stride"
same_output blast-scan "$bin/blast-bloom" --scan-word 10 "$query" "$db"
"$bin/blast-bloom" --backend cuda --scan-word 10 --stats "$tmp/scan.json" -o /dev/null "$query" "$db"
grep -q '"probe_stride": 2' "$tmp/scan.json" || { echo "blast-scan: the plan has no stride" >&2; false; }
# The bit-sliced kernel (--layout bitsliced): every stage-1a hit, then the HSPs with the CPU's sub-query length.
step="blast-bloom, bit-sliced kernel"
same_output blast-bitsliced "$bin/blast-bloom" --layout bitsliced --sub-query 1000 --chunk 64K --stage 1a "$query" "$db"
same_output blast-bitsliced-hsp "$bin/blast-bloom" --layout bitsliced --sub-query 8000 "$query" "$db"
step="blast-bloom, Bloom probe words at a stride"
same_output blast-probe16 "$bin/blast-bloom" -w 28 --scan-word 16 --ungapped "$query" "$db"

say "facs classify --backend cuda against --backend cpu"
step="facs build-filter"
"$bin/facs" build-filter -q -o "$tmp/refs.bf" "$data"/bee-viruses/*.fa "$data/lambda_virus.fa" \
  $([[ $fake == 1 ]] || echo "$data/ecoli_536_200k.fa")
step="facs classify, every bundled reference as a filter"
reads=$data/lambda_reads_1.fq
if [[ $fake == 1 ]]; then head -n 2000 "$reads" >"$tmp/reads.fq" && reads=$tmp/reads.fq; fi
same_output facs "$bin/facs" classify "$reads" "$tmp/refs.bf" --scores -o calls.tsv --summary summary.tsv
step="facs build-filter --layout interleaved"
"$bin/facs" build-filter -q --layout interleaved -o "$tmp/refs-ibf.bf" "$data"/bee-viruses/*.fa \
  "$data/lambda_virus.fa" $([[ $fake == 1 ]] || echo "$data/ecoli_536_200k.fa")
step="facs classify, the references as an interleaved set"
same_output facs-ibf "$bin/facs" classify "$reads" "$tmp/refs-ibf.bf" --scores -o calls.tsv --summary summary.tsv
step="facs classify, interleaved set, BioBloom score, pairs"
mates=$data/lambda_reads_2.fq
if [[ $fake == 1 ]]; then head -n 2000 "$mates" >"$tmp/mates.fq" && mates=$tmp/mates.fq; fi
same_output facs-ibf-pairs "$bin/facs" classify "$reads" --mate "$mates" "$tmp/refs-ibf.bf" --score biobloom \
  --scores -o calls.tsv --summary summary.tsv
if [[ $fake == 0 ]]; then
  step="facs classify, sequencing run"
  same_output facs-srr "$bin/facs" classify "$data/SRR059298_5k.fastq.gz" "$tmp/refs.bf" --scores -o calls.tsv \
    --summary summary.tsv

  step="throughput"
  say "throughput against the model (gpu_bench; also checked against the CPU)"
  "$bin/gpu_bench" --backend cuda --csv "$tmp/gpu_bench.csv"
fi
say "GPU CHECK PASSED$([[ $fake == 1 ]] && echo ' (fake device)')"
