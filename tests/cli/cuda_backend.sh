#!/usr/bin/env bash
# Real CUDA kernels against the CPU reference on small inputs; skipped (77) where no CUDA device answers or
# the build has no CUDA backend.
set -u
bin=$1
[ -x "$bin/gpu_bench" ] || exit 77
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin/gpu_bench" --backend cuda --quick --csv "$tmp/quick.csv"
