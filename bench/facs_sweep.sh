#!/usr/bin/env bash
# How the facs defaults (k-mer size and threshold) were chosen: accuracy on the facs benchmark data for
# w in {19, 21, 25, 31} and FACS thresholds 0.3 .. 0.8 (calls recomputed from the per-filter scores), plus the
# share of absent-genome reads that exact k-mer sets call (the floor no Bloom filter can go below).
# Usage: bench/facs_sweep.sh [BIN_DIR] [WORKDIR]   (run bench/facs_data.sh WORKDIR first); writes facs_sweep.csv
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
bin=$(cd "${1:-$src/build/bin}" && pwd)
work=${2:-$src/build/facs-bench}
bash "$src/bench/facs_data.sh" "$work"
cd "$work"
refs="ecoli suis lambda dwv vdv1 vdv1dwv5 vdv1dwv9"
echo "w,threshold,ecoli_correct_pct,suis_correct_pct,lambda_correct_pct,bee_correct_pct,absent_called_pct,absent_exact_pct" > facs_sweep.csv
for w in 19 21 25 31; do
  "$bin/facs" build-filter -q -w "$w" -o "sweep_w$w.bf" $(for r in $refs; do printf 'refs/%s.fa ' "$r"; done)
  "$bin/facs" classify reads/mix.fq "sweep_w$w.bf" -t 2 -s 0.01 --error-rate 0 -o "sweep_w$w.tsv" --scores > /dev/null 2>&1
  for t in 0.3 0.4 0.5 0.55 0.6 0.7 0.8; do
    row=$(python3 "$src/bench/facs_eval.py" csv x reads/mix.fq facs "sweep_w$w.tsv" "$t" | cut -d, -f2-6)
    exact=$("$bin/facs_exact" "$w" "$t" 0 reads/kleb.fq $(for r in $refs; do printf '%s=refs/%s.fa ' "$r" "$r"; done) |
      awk 'NR == 2 { printf "%.3f", 100 * $3 / $2 }')
    echo "$w,$t,$row,$exact" >> facs_sweep.csv
  done
done
column -s, -t < facs_sweep.csv
