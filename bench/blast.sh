#!/usr/bin/env bash
# End-to-end blast-bloom vs blastn, side by side in one run, on real genomes: wall and CPU time, their ratios, and
# HSP agreement (lines of -outfmt 6 identical after sorting). Then the stage-1a layout benchmark. Prints tables and
# writes CSV into OUT_DIR.
#
# Usage: bench/blast.sh BUILD_BIN_DIR [OUT_DIR]
#   Genomes come from scripts/fetch-data.sh (cached; BLOOMSEQ_DEB_DIR=dir uses local .deb files).
#   BLAST_BENCH_THREADS (default 1 2): blast-bloom thread counts; blastn -subject runs on one thread.
#   BLAST_BENCH_BASELINE=OTHER_BIN_DIR: also run that build's blast-bloom (tool "baseline"), alternating with this
#   one, for before/after comparisons in the same run.
set -euo pipefail
bin="${1:?usage: bench/blast.sh BUILD_BIN_DIR [OUT_DIR]}"
out="${2:-bench-results}"
here="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$out"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
source "$here/bench/blast_inputs.sh"

threads="${BLAST_BENCH_THREADS:-1 2}"
csv="$out/blast_end_to_end.csv"
echo "case,w,tool,threads,wall_s,cpu_s,hsps,identical_hsps,wall_ratio_vs_blastn,cpu_ratio_vs_blastn" > "$csv"
printf "\n%-22s %3s %-12s %3s %8s %8s %7s %9s %7s %7s\n" case w tool thr wall_s cpu_s hsps identical wall/bn cpu/bn
measure() {  # -> "wall cpu" of the command, its stdout into $tmp/out
  /usr/bin/time -f "%e %U %S" -o "$tmp/time" "$@" > "$tmp/out"
  awk '{printf "%.3f %.3f\n", $1, $2 + $3}' "$tmp/time"
}
run_case() {  # name query db
  local name="$1" q="$2" db="$3" w
  for w in 11 28; do
    read -r bw bc < <(measure blastn -task blastn -ungapped -dust no -sum_stats false -word_size "$w" -reward 1 -penalty -2 \
      -query "$q" -subject "$db" -outfmt 6)
    sort "$tmp/out" > "$tmp/want"
    local n; n=$(wc -l < "$tmp/want")
    printf "%-22s %3s %-12s %3s %8s %8s %7s %9s %7s %7s\n" "$name" "$w" blastn 1 "$bw" "$bc" "$n" "-" 1.00 1.00
    echo "$name,$w,blastn,1,$bw,$bc,$n,,1,1" >> "$csv"
    for t in $threads; do
      local tool tool_bin
      for tool in ${BLAST_BENCH_BASELINE:+baseline} blast-bloom; do
        tool_bin="$bin"; [ "$tool" = baseline ] && tool_bin="$BLAST_BENCH_BASELINE"
        read -r ow oc < <(measure "$tool_bin/blast-bloom" --ungapped --dust no --reward 1 --penalty=-2 --no-header --no-progress -w "$w" -t "$t" "$q" "$db")
        sort "$tmp/out" > "$tmp/got"
        local m same rw rc
        m=$(wc -l < "$tmp/got"); same=$(comm -12 "$tmp/want" "$tmp/got" | wc -l)
        rw=$(awk -v a="$ow" -v b="$bw" 'BEGIN{printf "%.2f", a/b}'); rc=$(awk -v a="$oc" -v b="$bc" 'BEGIN{printf "%.2f", a/b}')
        printf "%-22s %3s %-12s %3s %8s %8s %7s %9s %7s %7s\n" "$name" "$w" "$tool" "$t" "$ow" "$oc" "$m" "$same" "$rw" "$rc"
        echo "$name,$w,$tool,$t,$ow,$oc,$m,$same,$rw,$rc" >> "$csv"
      done
    done
  done
}
uptime
run_case "lambda vs E.coli" "$lambda" "$ecoli"
run_case "E.coli 1M vs E.coli" "$ecoli_1m" "$ecoli"
run_case "E.coli vs S.suis" "$ecoli" "$ssuis"
echo "CSV: $csv"
echo
if [ -n "${BLAST_BENCH_BASELINE:-}" ]; then
  echo "baseline:"
  "$BLAST_BENCH_BASELINE/blast_stage1a" "$ecoli" "$ssuis" --n-sub 1000 -k 6 -m 262144 -w 11 --threads 2 \
    --csv "$out/blast_stage1a_baseline.csv"
  echo
fi
"$bin/blast_stage1a" "$ecoli" "$ssuis" --n-sub 1000 -k 6 -m 262144 -w 11 --threads 2 --csv "$out/blast_stage1a.csv"
uptime
