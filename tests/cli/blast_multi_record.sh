#!/usr/bin/env bash
# A query of many short records against blastn (ungapped, no DUST, no sum statistics): every line identical.
# blastn screens seeds with a 4-base approximate extension over its concatenated query (each record's plus strand,
# a sentinel, its reverse complement, ...), so near a record's ends the screen reads the other strand; a screen
# that stops at the record's end rejects a few borderline HSPs that blastn reports. Short records put many seeds
# near ends. Skipped (77) when blastn is not installed.
# Usage: blast_multi_record.sh BIN_DIR SRC_DIR
set -euo pipefail
bin="$1"; src="$2"
command -v blastn >/dev/null 2>&1 || { echo "blastn not installed: skipped"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
db="$src/data/ecoli_536_200k.fa"
# Lambda phage cut into 160 records of 200-410 bases.
awk 'NR>1' "$src/data/lambda_virus.fa" | tr -d '\n' |
  awk '{n = 0; i = 1; L = length($0); while (i <= L) { len = 200 + (n * 37) % 211; print ">piece" n; print substr($0, i, len); i += len; n++ }}' \
  > "$tmp/pieces.fa"
[[ $(grep -c '>' "$tmp/pieces.fa") -eq 160 ]] || { echo "FAIL: expected 160 query records"; exit 1; }
status=0
for rp in "1 -2" "2 -3"; do
  set -- $rp
  blastn -task blastn -ungapped -dust no -sum_stats false -word_size 11 -reward "$1" -penalty "$2" \
    -query "$tmp/pieces.fa" -subject "$db" -outfmt 6 | sort > "$tmp/want"
  "$bin/blast-bloom" --ungapped --dust no --no-header -w 11 --reward "$1" --penalty="$2" "$tmp/pieces.fa" "$db" | sort > "$tmp/got"
  n=$(wc -l < "$tmp/want")
  if [[ $n -lt 1000 ]]; then echo "FAIL $1/$2: blastn found only $n HSPs (test data changed?)"; status=1; continue; fi
  if cmp -s "$tmp/want" "$tmp/got"; then
    echo "ok   160 short records vs E. coli 200k, w=11 $1/$2: $n HSPs identical"
  else
    echo "FAIL 160 short records, $1/$2: blastn $n HSPs, blast-bloom $(wc -l < "$tmp/got"); first differences:"
    diff "$tmp/want" "$tmp/got" | head -n 10 || true
    status=1
  fi
done
exit $status
