#!/usr/bin/env bash
# A 100-Mbase single-line database with N runs, streamed through stdin: blast-bloom must search it (a planted copy of
# a lambda fragment must be found at the right place, on both strands) without holding more than a bounded amount
# of memory. Usage: long_sequence.sh BIN_DIR SRC_DIR
set -euo pipefail
bin=$1
src=$2
tmp=$(mktemp -d)
trap "rm -rf $tmp" EXIT

# Query: 2,000 bases of lambda phage.
awk 'NR > 1' "$src/data/lambda_virus.fa" | tr -d '\n' | head -c 12000 | tail -c 2000 > "$tmp/frag"
{ echo ">lambda_2k"; cat "$tmp/frag"; echo; } > "$tmp/query.fa"
frag=$(cat "$tmp/frag")
rc_frag=$(printf '%s' "$frag" | rev | tr ACGT TGCA)

# Database: one line of 100 Mbases: random ACGT (every byte value maps to a base), a run of 5,000 N, the fragment
# at a known offset, more random bases, its reverse complement, random bases to the end.
table=$(printf 'ACGT%.0s' $(seq 64))
gen() { head -c "$1" /dev/urandom | tr '\000-\377' "$table"; }
{
  echo ">chr_big"
  gen 40000000
  printf 'N%.0s' $(seq 5000)
  printf '%s' "$frag"
  gen 30000000
  printf '%s' "$rc_frag"
  gen $((100000000 - 70000000 - 5000 - 4000))
  echo
} > "$tmp/db.fa"
[[ $(wc -c < "$tmp/db.fa") -gt 100000000 ]]

"$bin/blast-bloom" -t 2 "$tmp/query.fa" - -o "$tmp/hsps.tsv" < "$tmp/db.fa"
# Plus strand at 0-based offset 40,005,000; the reverse complement 30,002,000 bases later (minus-strand HSPs have
# sstart > send).
plus=$(awk -F'\t' '!/^#/ && $7 == 1 && $8 == 2000 && $9 == 40005001 && $10 == 40007000' "$tmp/hsps.tsv" | wc -l)
minus=$(awk -F'\t' '!/^#/ && $7 == 1 && $8 == 2000 && $9 == 70009000 && $10 == 70007001' "$tmp/hsps.tsv" | wc -l)
echo "plus-strand copy found: $plus, minus-strand copy found: $minus"
[[ $plus -eq 1 && $minus -eq 1 ]]
echo "1 passed, 0 failed"
