#!/usr/bin/env bash
# A query of 5,000 records of 30 bases (primers, reads) against lambda: the records share sub-queries, so the
# number of sub-queries (and filters) follows the query's bases, not its record count, and the output is the same
# as with one sub-query per record (--sub-query 30), as with the records searched in separate groups, and, on a
# sample, as blastn's (ungapped, every line identical; that part is skipped when blastn is not installed).
# Usage: blast_many_short_records.sh BIN_DIR SRC_DIR
set -euo pipefail
bin="$1"; src="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
db="$src/data/lambda_virus.fa"
# 30-mers of lambda (either strand) with up to two substitutions; every third one random.
awk 'NR>1' "$db" | tr -d '\n' | awk 'BEGIN { srand(7); split("A C G T", b, " "); c["A"]="T"; c["C"]="G"; c["G"]="C"; c["T"]="A" }
  { L = length($0)
    for (n = 0; n < 5000; n++) {
      if (n % 3 == 2) { s = ""; for (i = 0; i < 30; i++) s = s b[int(rand() * 4) + 1] }
      else {
        s = substr($0, int(rand() * (L - 30)) + 1, 30)
        for (m = int(rand() * 3); m > 0; m--) { i = int(rand() * 30) + 1; s = substr(s, 1, i - 1) b[int(rand() * 4) + 1] substr(s, i + 1) }
        if (rand() < 0.5) { r = ""; for (i = 30; i >= 1; i--) r = r c[substr(s, i, 1)]; s = r }
      }
      print ">p" n; print s
    } }' > "$tmp/q.fa"
[[ $(grep -c '>' "$tmp/q.fa") -eq 5000 ]] || { echo "FAIL: expected 5000 query records"; exit 1; }
status=0
fail() { echo "FAIL $*"; status=1; }

"$bin/blast-bloom" --no-header "$tmp/q.fa" "$db" -o "$tmp/got" --stats "$tmp/stats.json"
n=$(wc -l < "$tmp/got")
[[ $n -ge 3000 ]] || fail "only $n HSPs (test data changed?)"
# The bound that fails when filters follow the record count: each sub-query of n_sub bases is at least half full.
subs=$(grep -o '"subqueries": *[0-9]*' "$tmp/stats.json" | grep -o '[0-9]*$')
n_sub=$(grep -o '"sub_query": *[0-9]*' "$tmp/stats.json" | grep -o '[0-9]*$')
bases=150000
if (( subs > 2 * bases / n_sub + 2 || subs > 5000 / 10 )); then
  fail "$subs sub-queries of $n_sub bases for 5000 records of $bases bases (not bounded by the bases)"
else
  echo "ok   5000 x 30 bases: $subs sub-queries of $n_sub bases, $n HSPs"
fi

# One sub-query per record (the Bloom path: --sub-query 30 turns the short-word plan off).
"$bin/blast-bloom" --no-header --sub-query 30 "$tmp/q.fa" "$db" -o "$tmp/per_record" --stats "$tmp/per_record.json"
subs1=$(grep -o '"subqueries": *[0-9]*' "$tmp/per_record.json" | grep -o '[0-9]*$')
[[ $subs1 -eq 5000 ]] || fail "--sub-query 30 gave $subs1 sub-queries, expected one per record"
cmp -s "$tmp/got" "$tmp/per_record" && echo "ok   identical to one sub-query per record" ||
  { fail "differs from one sub-query per record:"; diff "$tmp/got" "$tmp/per_record" | head -n 10 || true; }

# The records in five groups of 1,000, searched one group at a time (sub-queries grouped differently).
: > "$tmp/groups"
for g in 0 1 2 3 4; do
  awk -v g=$g 'NR > g * 2000 && NR <= (g + 1) * 2000' "$tmp/q.fa" > "$tmp/g.fa"
  "$bin/blast-bloom" --no-header "$tmp/g.fa" "$db" >> "$tmp/groups"
done
cmp -s "$tmp/got" "$tmp/groups" && echo "ok   identical to the records searched in five groups" ||
  { fail "differs from the records searched in groups:"; diff "$tmp/got" "$tmp/groups" | head -n 10 || true; }

# blastn on the first 600 records (ungapped, as blast_multi_record.sh).
if command -v blastn >/dev/null 2>&1; then
  head -n 1200 "$tmp/q.fa" > "$tmp/sample.fa"
  blastn -task blastn -ungapped -dust no -sum_stats false -word_size 11 -reward 1 -penalty -2 \
    -query "$tmp/sample.fa" -subject "$db" -outfmt 6 | sort > "$tmp/want"
  "$bin/blast-bloom" --ungapped --dust no --no-header -w 11 --reward 1 --penalty=-2 "$tmp/sample.fa" "$db" | sort > "$tmp/bb"
  m=$(wc -l < "$tmp/want")
  [[ $m -ge 200 ]] || fail "blastn found only $m HSPs on the sample"
  cmp -s "$tmp/want" "$tmp/bb" && echo "ok   600 records, ungapped: $m HSPs identical to blastn" ||
    { fail "600 records differ from blastn:"; diff "$tmp/want" "$tmp/bb" | head -n 10 || true; }
else
  echo "blastn not installed: blastn comparison skipped"
fi
exit $status
