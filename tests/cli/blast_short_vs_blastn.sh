#!/usr/bin/env bash
# --task blastn-short against blastn -task blastn-short (word 7, 1/-3, gaps 5/2; meant for queries under 50 bases),
# line for line in blastn's order: 60 primer-like queries of 18-35 bases cut from lambda (some with 1-3
# substitutions, every other one reverse-complemented, one of them all N) against E. coli's first 200 kbases and
# lambda, with DUST and without, gapped and ungapped, one and two threads; options given next to the task override
# its defaults as in blastn (-w 9, 2/-3). Skipped (77) when blastn is not installed.
# Usage: blast_short_vs_blastn.sh BIN_DIR SRC_DIR
set -uo pipefail
command -v blastn >/dev/null 2>&1 || { echo "blastn not installed: skipped"; exit 77; }
source "$(dirname "$0")/common/lib.bash"
# The primers: deterministic cuts of lambda (awk's own generator, seeded), mutated and turned round in turn.
grep -v '>' "$src/data/lambda_virus.fa" | tr -d '\n' | awk 'BEGIN { srand(17) } {
  comp["A"] = "T"; comp["C"] = "G"; comp["G"] = "C"; comp["T"] = "A"
  for (k = 0; k < 60; k++) {
    len = 18 + int(rand() * 18); at = 1 + int(rand() * (length($0) - len)); p = substr($0, at, len)
    for (m = int(rand() * 4); m > 0; m--) { i = 1 + int(rand() * len); p = substr(p, 1, i - 1) substr("ACGT", 1 + int(rand() * 4), 1) substr(p, i + 1) }
    if (k % 2) { r = ""; for (i = len; i >= 1; i--) r = r comp[substr(p, i, 1)]; p = r }
    if (k == 31) p = "NNNNNNNNNNNNNNNNNNNNNNNN"
    print ">primer" k " lambda " at; print p
  }
}' > primers.fa
check "60 primers of 18-35 bases" "[ \$(grep -c '>' primers.fa) -eq 60 ]"
compare() {  # name subject min_lines blastn_opts... -- ours...
  local name="$1" subject="$2" min="$3"
  shift 3
  local bl=() bb=()
  while [[ $# -gt 0 && $1 != -- ]]; do bl+=("$1"); shift; done
  shift
  bb=("$@")
  blastn -task blastn-short ${bl[@]+"${bl[@]}"} -query primers.fa -subject "$subject" -outfmt 6 2>/dev/null > want
  "$bin/blast-bloom" --task blastn-short --no-header --no-progress ${bb[@]+"${bb[@]}"} primers.fa "$subject" > got
  same_as_blastn "$name" "$min" want got
}
g="$src/data/ecoli_536_200k.fa"; l="$src/data/lambda_virus.fa"
compare "primers vs E. coli 200k"                 "$g" 100 --
compare "primers vs E. coli 200k, 2 threads"      "$g" 100 -- -t 2
compare "primers vs E. coli 200k, no DUST"        "$g" 100 -dust no -- --dust no
compare "primers vs E. coli 200k, ungapped"       "$g" 100 -ungapped -sum_stats false -- --ungapped
compare "primers vs lambda"                       "$l" 60 --
compare "primers vs lambda, no DUST, 2 threads"   "$l" 60 -dust no -- --dust no -t 2
compare "primers vs lambda, w 9"                  "$l" 60 -word_size 9 -- -w 9
compare "primers vs lambda, 2/-3"                 "$l" 60 -reward 2 -penalty -3 -- --reward 2 --penalty=-3
# The task's defaults are blastn's for it: not those of -task blastn (w 11 finds fewer of the primers' matches).
blastn -task blastn -query primers.fa -subject "$l" -outfmt 6 2>/dev/null > plain
blastn -task blastn-short -query primers.fa -subject "$l" -outfmt 6 2>/dev/null > want
check "the task differs from -task blastn ($(wc -l < plain) against $(wc -l < want) lines)" "[ \$(wc -l < plain) -lt \$(wc -l < want) ]"
expect_exit 64 "an unknown task" "$bin/blast-bloom" --task dc-megablast primers.fa "$l"
[ "$fails" -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "all checks passed"
