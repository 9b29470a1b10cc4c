#!/usr/bin/env bash
# blast-bloom's HSPs must equal blastn's (ungapped, no DUST, no sum statistics) line for line, after sorting:
# coordinates, strands, identities, E-value and bit-score strings. Skipped (77) when blastn is not installed.
# Usage: blast_vs_blastn.sh BIN_DIR SRC_DIR
set -euo pipefail
bin="$1"; src="$2"
command -v blastn >/dev/null 2>&1 || { echo "blastn not installed: skipped"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
q="$src/data/lambda_virus.fa"
db="$src/data/ecoli_536_200k.fa"
"$bin/blast-bloom" encode "$db" -o "$tmp/db.2bit"
# A query with two records, one of them the reverse complement of a slice of the database, to exercise minus
# strands, several queries and subject coordinates far into the database.
{ cat "$q"; echo ">slice_rc"; awk 'NR>1' "$db" | tr -d '\n' | cut -c 50001-58000 | rev | tr ACGTacgt TGCAtgca | fold -w 70; } > "$tmp/q2.fa"
status=0
run() {  # name query db w reward penalty threads layout [blastn subject, when db is .2bit]
  local name="$1" query="$2" dbf="$3" w="$4" r="$5" p="$6" t="$7" layout="$8" subject="${9:-$3}"
  blastn -task blastn -ungapped -dust no -sum_stats false -word_size "$w" -reward "$r" -penalty "$p" \
    -query "$query" -subject "$subject" -outfmt 6 | sort > "$tmp/want"
  "$bin/blast-bloom" --ungapped --dust no --no-header -w "$w" --reward "$r" --penalty="$p" -t "$t" --layout "$layout" "$query" "$dbf" \
    | sort > "$tmp/got"
  if cmp -s "$tmp/want" "$tmp/got"; then
    echo "ok   $name: $(wc -l < "$tmp/want") HSPs identical"
  else
    echo "FAIL $name: blastn $(wc -l < "$tmp/want") HSPs, blast-bloom $(wc -l < "$tmp/got"); first differences:"
    diff "$tmp/want" "$tmp/got" | head -n 10 || true
    status=1
  fi
}
run "lambda vs E. coli 200k, w=11 1/-2"            "$q" "$db" 11 1 -2 1 auto
run "lambda vs E. coli 200k, w=11 2/-3, 2 threads" "$q" "$db" 11 2 -3 2 vector
run "2 queries vs E. coli 200k, w=28, .2bit db"   "$tmp/q2.fa" "$tmp/db.2bit" 28 1 -2 1 bitsliced "$db"
run "2 queries vs E. coli 200k, w=16"               "$tmp/q2.fa" "$db" 16 1 -2 2 auto
run "2 queries vs E. coli 200k, w=11 2/-3"          "$tmp/q2.fa" "$db" 11 2 -3 1 bitsliced
# A query with 69 scattered N (deformed wing virus) against a relative: N scores as BLAST's matrix scores it.
bee="$src/data/bee-viruses"
run "DWV (with N) vs VDV-1, w=11 1/-2"             "$bee/dwv.fa" "$bee/vdv1.fa" 11 1 -2 2 auto
run "DWV (with N) vs VDV-1, w=11 2/-3"             "$bee/dwv.fa" "$bee/vdv1.fa" 11 2 -3 1 vector
exit $status
