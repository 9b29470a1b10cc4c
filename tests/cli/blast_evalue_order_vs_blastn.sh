#!/usr/bin/env bash
# The order of lines that print alike, against blastn, line for line (gapped and ungapped, 2/-3 and 1/-2).
# blastn computes its ungapped Karlin-Altschul values per query strand from the strand's composition, so equal
# scores on the two strands get E-values that differ in the last bits, and it sorts by E-value first: weak lines of
# equal score and printed E-value come out by strand. The ungapped values are also the gapped ones at 1/-2 with gap
# costs 5/2 (beyond BLAST's table). E-values below 1e-180 count as equal (printed 0.0): such lines come by score and
# coordinates, whatever their last bits. Skipped (77) when blastn is not installed.
# Usage: blast_evalue_order_vs_blastn.sh BIN_DIR SRC_DIR
set -euo pipefail
command -v blastn >/dev/null 2>&1 || { echo "blastn not installed: skipped"; exit 77; }
source "$(dirname "$0")/common/lib.bash"
awk 'NR>1' "$src/data/lambda_virus.fa" | tr -d '\n' > "$tmp/lambda.txt"
# Two pieces of lambda as one query: weak hits of equal score on both strands against lambda and E. coli.
{ echo ">pieces"; { cut -c 4001-7000 "$tmp/lambda.txt"; cut -c 19001-21000 "$tmp/lambda.txt"; } | tr -d '\n' | fold -w 70; } \
  > "$tmp/pieces.fa"
# A 450-base piece, and a subject with two copies of it on each strand between other parts of lambda: equal scores
# on both strands with E-values near 1e-200.
rc() { rev | tr ACGT TGCA; }
piece=$(cut -c 10001-10450 "$tmp/lambda.txt")
{ echo ">piece"; echo "$piece"; echo ">lambda_part"; cut -c 1-15000 "$tmp/lambda.txt" | fold -w 70; } > "$tmp/copies_q.fa"
{ echo ">copies"; { cut -c 20001-21000 "$tmp/lambda.txt"; echo -n "$piece" | rc; cut -c 22001-23000 "$tmp/lambda.txt";
    echo -n "$piece"; cut -c 24001-25000 "$tmp/lambda.txt"; echo -n "$piece" | rc; cut -c 26001-26500 "$tmp/lambda.txt";
    echo -n "$piece"; cut -c 30001-31000 "$tmp/lambda.txt"; } | tr -d '\n' | fold -w 70; } > "$tmp/copies_s.fa"
compare() {  # name query subject reward penalty mode(gapped/ungapped) min_lines
  local name="$1" q="$2" s="$3" r="$4" p="$5" mode="$6" min="$7" bl=() bb=()
  if [[ $mode == ungapped ]]; then bl=(-ungapped -sum_stats false); bb=(--ungapped); fi
  blastn -task blastn -dust no "${bl[@]+"${bl[@]}"}" -reward "$r" -penalty "$p" -query "$q" -subject "$s" -outfmt 6 \
    2>/dev/null > want
  "$bin/blast-bloom" --no-header --no-progress --dust no "${bb[@]+"${bb[@]}"}" --reward "$r" --penalty="$p" "$q" "$s" \
    > got
  same_as_blastn "$name" "$min" want got
}
for sub in lambda_virus ecoli_536_200k; do
  for rp in "2 -3" "1 -2"; do
    set -- $rp
    for mode in gapped ungapped; do
      compare "pieces vs $sub, $1/$2, $mode" "$tmp/pieces.fa" "$src/data/$sub.fa" "$1" "$2" "$mode" 10
    done
  done
done
for rp in "2 -3" "1 -2"; do
  set -- $rp
  for mode in gapped ungapped; do
    compare "copies on both strands, $1/$2, $mode" "$tmp/copies_q.fa" "$tmp/copies_s.fa" "$1" "$2" "$mode" 8
  done
done
[[ $fails -eq 0 ]]
