#!/usr/bin/env bash
# blast-bloom's default output (gapped, blastn -task blastn scoring) must equal blastn -task blastn -dust no
# -outfmt 6 line for line, in blastn's order: coordinates, pident, length, mismatches, gap opens, E-value and
# bit-score strings. Skipped (77) when blastn is not installed.
# Usage: blast_gapped_vs_blastn.sh BIN_DIR SRC_DIR
set -euo pipefail
bin="$1"; src="$2"
command -v blastn >/dev/null 2>&1 || { echo "blastn not installed: skipped"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
lambda="$src/data/lambda_virus.fa"
ecoli="$src/data/ecoli_536_200k.fa"
bee="$src/data/bee-viruses"
status=0
run() {  # name query subject min_lines [extra options for both]
  local name="$1" query="$2" subject="$3" min="$4"; shift 4
  local bl=() bb=()
  while [[ $# -gt 0 ]]; do
    bl+=("-${1#--}" "$2")
    if [[ $1 == --num_threads ]]; then bb+=(-t "$2"); else bb+=("$1=$2"); fi
    shift 2
  done
  blastn -task blastn -dust no ${bl[@]+"${bl[@]}"} -query "$query" -subject "$subject" -outfmt 6 2>/dev/null > "$tmp/want"
  "$bin/blast-bloom" --no-header --dust no ${bb[@]+"${bb[@]}"} "$query" "$subject" > "$tmp/got"
  local n; n=$(wc -l < "$tmp/want")
  if [[ $n -lt $min ]]; then echo "FAIL $name: blastn found only $n alignments (expected >= $min)"; status=1; return; fi
  if cmp -s "$tmp/want" "$tmp/got"; then
    echo "ok   $name: $n alignments identical, same order"
  else
    echo "FAIL $name: blastn $n, blast-bloom $(wc -l < "$tmp/got"); first differences:"
    diff "$tmp/want" "$tmp/got" | head -n 10
    status=1
  fi
}
# A slice of the database, reverse-complemented, with a 3-base insertion and a 2-base deletion: minus strand,
# gaps and gap opens in the columns.
awk 'NR>1' "$ecoli" | tr -d '\n' > "$tmp/ecoli.txt"
{ echo ">indels_rc"; { cut -c 30001-31000 "$tmp/ecoli.txt"; echo -n "GAT"; cut -c 31001-32000 "$tmp/ecoli.txt";
    cut -c 32003-33000 "$tmp/ecoli.txt"; } | tr -d '\n' | rev | tr ACGTacgt TGCAtgca | fold -w 70; } > "$tmp/indels.fa"
run "lambda vs E. coli 200k"                    "$lambda" "$ecoli" 20
run "slice with indels (minus) vs E. coli 200k" "$tmp/indels.fa" "$ecoli" 1
run "VDV-1 vs DWV (N in the subject)"           "$bee/vdv1.fa" "$bee/dwv.fa" 10
run "recombinants vs VDV-1, 2 threads"          "$bee/vdv1dwv5.fa" "$bee/vdv1.fa" 5 --num_threads 2
run "lambda vs E. coli 200k, 1/-2 gaps 2/2"     "$lambda" "$ecoli" 10 --reward 1 --penalty -2 --gapopen 2 --gapextend 2
exit $status
