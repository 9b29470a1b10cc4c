#!/usr/bin/env bash
# Installs the dependencies, builds in Release and runs both tools on the bundled data:
#   1. blast-bloom: the deformed wing virus genome against Varroa destructor virus 1 (a close relative):
#      BLAST tabular HSPs, with run statistics (stage-1a hits, modeled vs empirical FPR) in JSON;
#   2. facs: one Bloom filter per bee virus and lambda phage, then 5,000 real Illumina reads from a
#      honey bee sample (SRR059298) classified against them.
# Outputs go to demo-output/ (or $1).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-demo-output}
bash scripts/install-deps.sh
bash scripts/build.sh >/dev/null
bin=build/bin
mkdir -p "$out"

echo "== blast-bloom: DWV genome vs VDV-1 genome (w = 11, BLAST tabular)"
"$bin/blast-bloom" -t 2 data/bee-viruses/dwv.fa data/bee-viruses/vdv1.fa -o "$out/dwv_vs_vdv1.tsv" \
  --stats "$out/dwv_vs_vdv1.json"
head -n 6 "$out/dwv_vs_vdv1.tsv"
echo "... $(grep -vc '^#' "$out/dwv_vs_vdv1.tsv") HSPs in $out/dwv_vs_vdv1.tsv, statistics in $out/dwv_vs_vdv1.json"

echo
echo "== facs: filters for four bee viruses and lambda phage"
"$bin/facs" build-filter -o "$out/refs.bf" data/bee-viruses/*.fa data/lambda_virus.fa
echo
echo "== facs: 5,000 real reads from SRR059298 (bee-virus sample) classified"
"$bin/facs" classify -t 2 data/SRR059298_5k.fastq.gz "$out/refs.bf" -o "$out/calls.tsv" --summary "$out/summary.tsv"
column -t "$out/summary.tsv"
echo "per-read calls in $out/calls.tsv"
