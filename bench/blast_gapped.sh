#!/usr/bin/env bash
# blast-bloom's default (gapped) output vs blastn -task blastn -dust no -outfmt 6, side by side in one run: wall and
# CPU time, their ratio, and agreement: the share of blastn's lines that blast-bloom prints identically, blastn's
# alignments with E <= 1e-10 missing from blast-bloom (same line), blast-bloom's lines with E <= 1e-10 that
# blastn does not print, and whether the whole output is blastn's line for line in blastn's order (in_order).
# Prints a table and writes OUT_DIR/blast_gapped.csv.
#
# Usage: bench/blast_gapped.sh BUILD_BIN_DIR [OUT_DIR]
#   Genomes come from scripts/fetch-data.sh (cached). BLAST_BENCH_THREADS (default 1 2): blast-bloom thread counts;
#   blastn -subject runs on one thread. BLAST_BENCH_CASES (default all): a subset of lambda ecoli1m ecoli_ssuis bees.
#   BLAST_BENCH_DUST=yes: both tools with their default DUST (plain blastn -task blastn) instead of -dust no.
#   BLAST_BENCH_TASK=megablast: blastn -task megablast against blast-bloom --task megablast (default blastn);
#   blastn-short likewise (with the primer cases below).
#   Held-out cases (not in the default set): kp_ecoli (K. pneumoniae HS11286 vs E. coli 536), contigs_ecoli (the
#   152 454-contigs of abacas-examples vs E. coli 536), ssuis_self (S. suis against itself).
#   Primer cases (for blastn-short): primers_ecoli (300 primers of 18-30 bases cut from E. coli 536, some with a
#   substitution, every other one reverse-complemented, against E. coli 536), primers_kp (the same from K.
#   pneumoniae against it: held out).
set -euo pipefail
bin="${1:?usage: bench/blast_gapped.sh BUILD_BIN_DIR [OUT_DIR]}"
out="${2:-bench-results}"
here="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$out"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
source "$here/bench/blast_inputs.sh"
bees="$tmp/bees.fa"
for f in "$here"/data/bee-viruses/*.fa; do cat "$f"; echo; done | sed '/^$/d' > "$bees"

threads="${BLAST_BENCH_THREADS:-1 2}"
dust="${BLAST_BENCH_DUST:-no}"
task="${BLAST_BENCH_TASK:-blastn}"
cases="${BLAST_BENCH_CASES:-lambda ecoli1m ecoli_ssuis bees}"
csv="$out/blast_gapped.csv"
echo "# task=$task dust=$dust; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)" > "$csv"
echo "case,tool,threads,wall_s,cpu_s,lines,identical_pct,missing_e10,extra_e10,in_order,cpu_ratio_vs_blastn" >> "$csv"
printf "\n%-16s %-12s %3s %8s %8s %7s %10s %8s %8s %8s %7s\n" case tool thr wall_s cpu_s lines identical% miss_e10 \
  extra_e10 in_order cpu/bn
measure() {  # -> "wall cpu" of the command, its stdout into $tmp/out
  /usr/bin/time -f "%e %U %S" -o "$tmp/time" "$@" > "$tmp/out" 2> /dev/null
  awk '{printf "%.3f %.3f\n", $1, $2 + $3}' "$tmp/time"
}
agreement() {  # want got -> "identical_pct missing_e10 extra_e10 in_order"
  python3 - "$1" "$2" <<'PY'
import sys
from collections import Counter
want = [l.rstrip("\n") for l in open(sys.argv[1])]
got = [l.rstrip("\n") for l in open(sys.argv[2])]
cw, cg = Counter(want), Counter(got)
same = sum(min(n, cg[l]) for l, n in cw.items())
strong = lambda l: float(l.split("\t")[10]) <= 1e-10
miss = sum(max(0, n - cg[l]) for l, n in cw.items() if strong(l))
extra = sum(max(0, n - cw[l]) for l, n in cg.items() if strong(l))
print("%.2f %d %d %s" % (100.0 * same / max(len(want), 1), miss, extra, "yes" if want == got else "no"))
PY
}
run_case() {  # name query subject
  local name="$1" q="$2" db="$3"
  read -r bw bc < <(measure blastn -task "$task" -dust "$dust" -query "$q" -subject "$db" -outfmt 6)
  cp "$tmp/out" "$tmp/want"
  local n; n=$(wc -l < "$tmp/want")
  printf "%-16s %-12s %3s %8s %8s %7s %10s %8s %8s %8s %7s\n" "$name" blastn 1 "$bw" "$bc" "$n" - - - - 1.00
  echo "$name,blastn,1,$bw,$bc,$n,,,,,1" >> "$csv"
  for t in $threads; do
    read -r ow oc < <(measure "$bin/blast-bloom" --task "$task" --no-header --no-progress --dust "$dust" -t "$t" "$q" "$db")
    read -r pct miss extra order < <(agreement "$tmp/want" "$tmp/out")
    local m r; m=$(wc -l < "$tmp/out"); r=$(awk -v a="$oc" -v b="$bc" 'BEGIN{printf "%.2f", a / (b > 0 ? b : 1e-3)}')
    printf "%-16s %-12s %3s %8s %8s %7s %10s %8s %8s %8s %7s\n" "$name" blast-bloom "$t" "$ow" "$oc" "$m" "$pct" \
      "$miss" "$extra" "$order" "$r"
    echo "$name,blast-bloom,$t,$ow,$oc,$m,$pct,$miss,$extra,$order,$r" >> "$csv"
  done
}
primers() {  # genome.fa out.fa: 300 primer-like pieces, deterministic
  grep -v '>' "$1" | tr -d '\n' | awk 'BEGIN { srand(29) } {
    comp["A"] = "T"; comp["C"] = "G"; comp["G"] = "C"; comp["T"] = "A"; comp["N"] = "N"
    for (k = 0; k < 300; k++) {
      len = 18 + int(rand() * 13); at = 1 + int(rand() * (length($0) - len)); p = toupper(substr($0, at, len))
      if (k % 3 == 0) { i = 1 + int(rand() * len); p = substr(p, 1, i - 1) substr("ACGT", 1 + int(rand() * 4), 1) substr(p, i + 1) }
      if (k % 2) { r = ""; for (i = len; i >= 1; i--) r = r comp[substr(p, i, 1)]; p = r }
      print ">primer" k; print p
    }
  }' > "$2"
}
for c in $cases; do
  case "$c" in
    primers_ecoli) primers "$ecoli" "$tmp/primers_ecoli.fa"; run_case "primers-ecoli" "$tmp/primers_ecoli.fa" "$ecoli" ;;
    primers_kp) primers "${path[klebsiella_hs11286.fa]}" "$tmp/primers_kp.fa"
                run_case "primers-kpneu" "$tmp/primers_kp.fa" "${path[klebsiella_hs11286.fa]}" ;;
    lambda) run_case "lambda-ecoli" "$lambda" "$ecoli" ;;
    ecoli1m) run_case "ecoli1M-ecoli" "$ecoli_1m" "$ecoli" ;;
    ecoli_ssuis) run_case "ecoli-ssuis" "$ecoli" "$ssuis" ;;
    bees) run_case "bees-bees" "$bees" "$bees" ;;
    kp_ecoli) run_case "kpneu-ecoli" "${path[klebsiella_hs11286.fa]}" "$ecoli" ;;
    contigs_ecoli) run_case "contigs-ecoli" "${path[ecoli_454_contigs.fa]}" "$ecoli" ;;
    ssuis_self) run_case "ssuis-ssuis" "$ssuis" "$ssuis" ;;
  esac
done
echo "CSV: $csv"
