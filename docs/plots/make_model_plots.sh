#!/usr/bin/env bash
# Regenerates the model plots in docs/plots from a build: the papers' GPUs (predictions only) and, when given,
# the CSVs of bloomseq-calibrate --csv DIR and bench model_validation --out DIR.
# usage: docs/plots/make_model_plots.sh BUILD_BIN_DIR [CALIBRATION_CSV_DIR] [VALIDATION_CSV_DIR] [BLAST_VALIDATION_DIR]
# (a directory given as "-" is skipped)
set -euo pipefail
bin=${1:?usage: make_model_plots.sh BUILD_BIN_DIR [CALIB_DIR] [VALIDATION_DIR]}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
m="$bin/bloomseq-model"
# The first Python that has matplotlib (Debian's python3-matplotlib lives in /usr/bin/python3).
py=""
for c in "${PYTHON:-}" /usr/bin/python3 python3; do
  if [ -n "$c" ] && "$c" -c "import matplotlib" 2>/dev/null; then py=$c; break; fi
done
[ -n "$py" ] || { echo "make_model_plots.sh: needs matplotlib (apt-get install python3-matplotlib)" >&2; exit 69; }
plot="$py $here/plot_model.py"
# Fig. 18: FPR-time trade-off, k = 6, m = 256 Kbit, chr1 (250 Mbases) vs chr22 (50 Mbases), GTX 480 and C1060
# (C1060 cannot hold 256 Kbit in 16 KB of shared memory: 64 Kbit there).
"$m" tradeoff --device gtx480 -k 6 -m 262144 -o "$tmp/tradeoff_gtx480.csv" 2>/dev/null
"$m" tradeoff --device a100 -k 6 -m 262144 -o "$tmp/tradeoff_a100.csv" 2>/dev/null
"$m" tradeoff --device h100 -k 6 -m 262144 -o "$tmp/tradeoff_h100.csv" 2>/dev/null
$plot tradeoff "$here/model_tradeoff.png" "$tmp"/tradeoff_gtx480.csv "$tmp"/tradeoff_a100.csv "$tmp"/tradeoff_h100.csv
# Figs. 9-12 (GTX 480, m = 256/128/64/32 Kbit) and 13-14 (C1060, m = 64/32 Kbit).
for mb in 256 128 64 32; do
  "$m" blocks --device gtx480 -m $((mb * 1024)) --threads 128,256,512,1024 --max-blocks 150 -o "$tmp/b_gtx480_$mb.csv" 2>/dev/null
  $plot blocks "$here/model_blocks_gtx480_${mb}k.png" "$tmp/b_gtx480_$mb.csv"
done
for mb in 64 32; do
  "$m" blocks --device c1060 -m $((mb * 1024)) --threads 128,256,512 --max-blocks 150 -o "$tmp/b_c1060_$mb.csv" 2>/dev/null
  $plot blocks "$here/model_blocks_c1060_${mb}k.png" "$tmp/b_c1060_$mb.csv"
done
# "-" for a directory skips its plots.
if [ $# -ge 2 ] && [ "$2" != "-" ]; then
  $plot units "$here/calib_work_units.png" "$2/work_units.csv"
  $plot pchase "$here/calib_memory.png" "$2/pchase.csv" "$2/random_read.csv"
fi
if [ $# -ge 3 ] && [ "$3" != "-" ]; then
  $plot fit "$here/validation_fit.png" "$3/validation_grid.csv"
  $plot fpr "$here/validation_fpr.png" "$3/validation_fpr.csv" $(ls "$3"/validation_fpr_w16.csv 2>/dev/null || true)
fi
# Part D: a directory of bench model_validation_blast --out DIR.
if [ $# -ge 4 ] && [ "$4" != "-" ]; then
  $plot blastfit "$here/validation_blast_fit.png" "$4/validation_blast_grid.csv"
  $plot blastprofile "$here/validation_blast_profile.png" "$4/validation_blast_grid.csv"
fi
echo "plots written to $here"
