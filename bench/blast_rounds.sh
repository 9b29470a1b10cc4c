#!/usr/bin/env bash
# Repeated side-by-side rounds of blastn, a baseline blast-bloom and this blast-bloom on the six cases of
# bench/blast.sh, one thread each. The order of the three programs rotates from round to round (so none always
# runs first on a cold cache), CPU seconds (user + sys) come from /usr/bin/time, every run goes to a CSV, and the
# end prints, per case, the median per-round CPU ratio vs blastn with its range, and whether the HSPs of the two
# blast-bloom builds are byte-identical to each other in every round.
#
# Usage: bench/blast_rounds.sh BUILD_BIN_DIR BASELINE_BIN_DIR [ROUNDS] [OUT_DIR]
#   Genomes come from scripts/fetch-data.sh; ROUNDS defaults to 5, OUT_DIR to bench-results.
set -euo pipefail
bin="${1:?usage: bench/blast_rounds.sh BUILD_BIN_DIR BASELINE_BIN_DIR [ROUNDS] [OUT_DIR]}"
base="${2:?usage: bench/blast_rounds.sh BUILD_BIN_DIR BASELINE_BIN_DIR [ROUNDS] [OUT_DIR]}"
rounds="${3:-5}"
out="${4:-bench-results}"
here="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$out"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
source "$here/bench/blast_inputs.sh"

cases=("lambda|$lambda|$ecoli" "1M|$ecoli_1m|$ecoli" "ecoli-ssuis|$ecoli|$ssuis")
tools=(blastn baseline blast-bloom)
csv="$out/blast_rounds.csv"
echo "round,case,w,tool,cpu_s,wall_s,load1" > "$csv"
run_tool() {  # tool query db w -> appends "cpu wall" to stdout; output into $tmp/out.<tool>
  local tool="$1" q="$2" db="$3" w="$4"
  local cmd
  case "$tool" in
    blastn) cmd=(blastn -task blastn -ungapped -dust no -sum_stats false -word_size "$w" -reward 1 -penalty -2
                 -query "$q" -subject "$db" -outfmt 6) ;;
    baseline) cmd=("$base/blast-bloom" --ungapped --reward 1 --penalty=-2 --no-header --no-progress -w "$w" -t 1 "$q" "$db") ;;
    *) cmd=("$bin/blast-bloom" --ungapped --dust no --reward 1 --penalty=-2 --no-header --no-progress -w "$w" -t 1 "$q" "$db") ;;
  esac
  /usr/bin/time -f "%e %U %S" -o "$tmp/time" "${cmd[@]}" > "$tmp/out.$tool"
  awk '{printf "%.3f %.3f\n", $2 + $3, $1}' "$tmp/time"
}
uptime
same_all=1
for ((r = 0; r < rounds; ++r)); do
  for c in "${cases[@]}"; do
    IFS='|' read -r name q db <<< "$c"
    for w in 11 28; do
      for ((i = 0; i < 3; ++i)); do
        tool="${tools[$(((i + r) % 3))]}"
        read -r cpu wall < <(run_tool "$tool" "$q" "$db" "$w")
        load=$(cut -d' ' -f1 /proc/loadavg)
        echo "$r,$name,$w,$tool,$cpu,$wall,$load" >> "$csv"
      done
      cmp -s "$tmp/out.baseline" "$tmp/out.blast-bloom" || { same_all=0; echo "round $r $name w=$w: HSPs differ"; }
    done
  done
  echo "round $((r + 1))/$rounds done ($(cut -d' ' -f1-3 /proc/loadavg))"
done
uptime
echo
python3 - "$csv" <<'PY'
import csv, statistics, sys
cpu, cases, rounds = {}, [], set()
for r in csv.DictReader(open(sys.argv[1])):
    key = (r["case"], r["w"])
    if key not in cases: cases.append(key)
    rounds.add(r["round"])
    cpu[(r["round"],) + key + (r["tool"],)] = float(r["cpu_s"])
print("%-12s %3s %10s %10s %10s %24s %24s" % ("case", "w", "blastn_cpu", "base_cpu", "this_cpu",
                                              "base/blastn med [range]", "this/blastn med [range]"))
for key in cases:
    got = {t: [cpu[(r,) + key + (t,)] for r in sorted(rounds)] for t in ("blastn", "baseline", "blast-bloom")}
    rb = [o / max(b, 1e-3) for o, b in zip(got["baseline"], got["blastn"])]
    rt = [o / max(b, 1e-3) for o, b in zip(got["blast-bloom"], got["blastn"])]
    med = statistics.median
    print("%-12s %3s %10.2f %10.2f %10.2f %9.2f [%.2f-%.2f] %11.2f [%.2f-%.2f]" % (
        key[0], key[1], med(got["blastn"]), med(got["baseline"]), med(got["blast-bloom"]),
        med(rb), min(rb), max(rb), med(rt), min(rt), max(rt)))
PY
[ "$same_all" = 1 ] && echo "HSPs of the two builds byte-identical in every run" || echo "HSPs DIFFER in some runs"
echo "CSV: $csv"
