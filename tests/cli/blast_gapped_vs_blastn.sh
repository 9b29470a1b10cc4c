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
    case $1 in
      --num_threads) bb+=(-t "$2") ;;
      --word_size) bb+=(-w "$2") ;;
      *) bb+=("$1=$2") ;;
    esac
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
    diff "$tmp/want" "$tmp/got" | head -n 10 || true  # diff exits 1 here; every case still runs
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
# Short tandem repeats against themselves: the copies' alignments lie 61-112 diagonals off the self-match, and a
# neighbouring copy's final alignment runs on into the self-match and ends where it ends. blastn's interval tree
# does not keep an alignment sharing an end with a better one, so that one contains nothing and the copies are
# reported (two lines of E 1e-19 were missing while every traced alignment was kept).
run "E. coli 948k repeats vs themselves"        "$src/data/ecoli_536_948k.fa" "$src/data/ecoli_536_948k.fa" 25
# Subjects tied on their best E-value and score (two copies each of two lambda pieces): blastn prints the later
# record first (s_EvalueCompareHSPLists).
awk 'NR>1' "$lambda" | tr -d '\n' > "$tmp/lambda.txt"
{ for name in first second; do echo ">$name"; cut -c 1001-3000 "$tmp/lambda.txt"; done
  for name in third fourth; do echo ">$name"; cut -c 20001-21500 "$tmp/lambda.txt"; done; } > "$tmp/twins.fa"
run "lambda vs tied subjects (later record first)" "$lambda" "$tmp/twins.fa" 12
# A genome piece against itself: many alignments of equal score on both strands, printed in blastn's order
# (ScoreCompareHSPs: subject start up, subject end down, then the query offsets on the strand aligned).
run "E. coli 200k vs itself (ties of score)"     "$ecoli" "$ecoli" 200
# A query that fills the w-mer space (200 kbases at w = 9, 4^9 / 2 canonical keys): one exact filter of its
# w-mers replaces the Bloom filters by default (ShortWordPlan::dense).
run "E. coli 200k vs lambda at w 9 (dense query)" "$ecoli" "$lambda" 30 --word_size 9
# A preliminary alignment scoring exactly an odd cut-off (2/-3 E-values count an odd score as the even one below):
# blastn drops it between its two passes, so it is never traced. Traced, it ran on into a neighbouring alignment and
# came out as a 122-base line of E 4e-9 that blastn does not print (6 such lines of the K. pneumoniae chromosome
# against E. coli 536, the 8 extra lines of E. coli against itself); the windows around one of them, with the
# E-value that puts the cut-off on that alignment's score.
run "K. pneumoniae vs E. coli windows, odd cut-off" "$src/data/kpneumoniae_hs11286_145k.fa" \
  "$src/data/ecoli_536_846k.fa" 2 --evalue 1.78e-06
run "K. pneumoniae vs E. coli windows"              "$src/data/kpneumoniae_hs11286_145k.fa" \
  "$src/data/ecoli_536_846k.fa" 5
# One 16-kb alignment found from three triggers, each with its own start point: blastn keeps the first of the three
# identical preliminary alignments (its qsort is glibc's merge sort, stable), and the final alignment traced from
# that start point takes another path among equal-scoring ones (3,618 mismatches, 158 gap openings) than from the
# last one's (3,619 and 157).
run "454 contig 16 vs E. coli (equal preliminary alignments)" "$src/data/contig16_454_12k.fa" \
  "$src/data/ecoli_536_243k.fa" 30
run "454 contig 16 vs E. coli, 2 threads" "$src/data/contig16_454_12k.fa" "$src/data/ecoli_536_243k.fa" 30 \
  --num_threads 2
run "E. coli 948k repeats vs themselves, 2 threads" "$src/data/ecoli_536_948k.fa" "$src/data/ecoli_536_948k.fa" 25 \
  --num_threads 2
# Two copies of a random stretch, a short one A and a long one B, apart by random junk in query and subject
# (independent flanks and junk): the traceback from A crosses the junk into B and shares B's end (start when B
# comes first); blastn cuts it where B begins (ends) and reports the rescored rest, A, beside B.
two_copies() {  # name a_len junk b_len order(ab|ba) seed -> $tmp/name.q.fa, $tmp/name.s.fa
  awk -v out="$tmp/$1" -v a_len="$2" -v junk="$3" -v b_len="$4" -v order="$5" -v x="$6" '
    function rnd(n,   s, i) { s = ""; for (i = 0; i < n; i++) { x = (x * 69069 + 1) % 4294967296;
      s = s substr("ACGT", int(x / 65536) % 4 + 1, 1) } return s }
    BEGIN { A = rnd(a_len); B = rnd(b_len); first = order == "ab" ? A : B; second = order == "ab" ? B : A
      print ">query\n" rnd(200) first rnd(junk) second rnd(200) > (out ".q.fa")
      print ">subject\n" rnd(200) first rnd(junk) second rnd(200) > (out ".s.fa") }'
}
for c in "ab 90 1" "ba 90 1" "ab 110 7" "ba 110 7"; do
  read -r order junk seed <<< "$c"
  two_copies "copies_${order}_$junk" 40 "$junk" 300 "$order" "$seed"
  run "two copies ($order, junk $junk): common endpoint cut" "$tmp/copies_${order}_$junk.q.fa" \
    "$tmp/copies_${order}_$junk.s.fa" 2
done
exit $status
