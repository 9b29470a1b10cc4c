#!/usr/bin/env bash
# --strand plus|minus against blastn -strand: only that query strand's words seed and its alignments are reported,
# and blastn's ungapped pre-screen reads a concatenated query without the other strand. Gapped, ungapped and
# megablast, with DUST and without, a multi-record query and 2,000 reads as subjects. Skipped (77) when blastn is
# not installed.
# Usage: blast_strand_vs_blastn.sh BIN_DIR SRC_DIR
set -euo pipefail
command -v blastn >/dev/null 2>&1 || { echo "blastn not installed: skipped"; exit 77; }
source "$(dirname "$0")/common/lib.bash"
e="$src/data/ecoli_536_200k.fa"
l="$src/data/lambda_virus.fa"
awk 'NR % 4 == 1 { print ">" substr($1, 2) } NR % 4 == 2 { print }' "$src/data/lambda_reads_1.fq" > reads.fa
for st in plus minus; do
  compare_with_blastn "E. coli 200k self, $st" "$e" "$e" "$e" 100 no -strand "$st" -- --strand "$st"
  compare_with_blastn "E. coli 200k self, $st, ungapped" "$e" "$e" "$e" 100 no -strand "$st" -ungapped -sum_stats false \
    -- --strand "$st" --ungapped
  compare_with_blastn "lambda vs 2,000 reads, $st" "$l" reads.fa reads.fa 400 no -strand "$st" -- --strand "$st"
done
blastn -task megablast -dust no -strand plus -query "$e" -subject "$e" -outfmt 6 > want
"$bin/blast-bloom" --no-header --no-progress --dust no --task megablast --strand plus "$e" "$e" > got
same_as_blastn "E. coli 200k self, plus, megablast" 10 want got
# With DUST, as plain blastn -task blastn.
blastn -task blastn -strand minus -query "$e" -subject "$e" -outfmt 6 > want
"$bin/blast-bloom" --no-header --no-progress --strand minus "$e" "$e" > got
same_as_blastn "E. coli 200k self, minus, DUST" 100 want got
check "no plus-strand line with --strand minus" "! awk -F'\t' '\$9 < \$10' got | grep -q ."
[[ $fails -eq 0 ]]
