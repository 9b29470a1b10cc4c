#!/usr/bin/env bash
# A 72-Mbase FASTA database (too large to keep from the counting pass, so parsed again, straight into codes) with
# a 70-Mbase multi-line record between short ones: the output is the same with a --batch far smaller than the record
# (the record then searched in windows as it is parsed: DbBatch::window) and with one that holds the whole database,
# from the FASTA file, from its .2bit (records decoded whole) and from stdin (held whole); and
# the search of the file holds at most 1.25 bytes per database base plus 96 MB (the query's structures, and up to
# 64 MB of text the counting pass keeps until the database proves too large to hold): the record's text is never
# kept beside its codes (that took about 3 bytes per base). The memory check is skipped without GNU time.
# Usage: blast_long_record_batches.sh BIN_DIR SRC_DIR
set -euo pipefail
bin="$1"; src="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
lambda=$(awk 'NR > 1' "$src/data/lambda_virus.fa" | tr -d '\n')
printf '>q1\n%s\n>q2\n%s\n' "${lambda:5000:1500}" "${lambda:30000:800}" > "$tmp/q.fa"
table=$(printf 'ACGT%.0s' $(seq 64))
gen() { head -c "$1" /dev/urandom | tr '\000-\377' "$table"; }
{
  printf '>short1\n%s\n' "${lambda:0:3000}"
  echo ">big one"
  { gen 30000000; printf 'N%.0s' $(seq 3000); printf '%s' "${lambda:4000:3000}"; gen 20000000 | tr ACGT acgt
    printf '%s' "${lambda:29000:3000}" | rev | tr ACGT TGCA; gen 20000000; } | fold -w 70; echo
  printf '>short2\n%s\n' "${lambda:30000:2000}"
  echo ">tail"; gen 2000000 | fold -w 60; echo
} > "$tmp/db.fa"
bases=$(awk '!/^>/ { n += length($0) } END { print n }' "$tmp/db.fa")
[[ $bases -gt 70000000 ]] || { echo "FAIL: database of only $bases bases"; exit 1; }
status=0
fail() { echo "FAIL $*"; status=1; }

run() { "$bin/blast-bloom" -t 2 "$@"; }
run --batch 1M "$tmp/q.fa" "$tmp/db.fa" -o "$tmp/small"
n=$(grep -vc '^#' "$tmp/small" || true)
[[ $n -ge 4 ]] || fail "only $n HSPs (the planted lambda pieces not found?)"
run --batch 200M "$tmp/q.fa" "$tmp/db.fa" -o "$tmp/whole"
cmp -s "$tmp/small" "$tmp/whole" && echo "ok   --batch 1M = --batch 200M on a 70-Mbase record ($n HSPs)" ||
  { fail "--batch 1M differs from --batch 200M:"; diff "$tmp/small" "$tmp/whole" | head -n 10 || true; }
"$bin/blast-bloom" encode "$tmp/db.fa" -o "$tmp/db.2bit"
run --batch 1M "$tmp/q.fa" "$tmp/db.2bit" -o "$tmp/twobit"
cmp -s "$tmp/small" "$tmp/twobit" && echo "ok   .2bit gives the same output" ||
  { fail ".2bit differs:"; diff "$tmp/small" "$tmp/twobit" | head -n 10 || true; }
run "$tmp/q.fa" - -o "$tmp/stdin" < "$tmp/db.fa"
cmp -s "$tmp/small" "$tmp/stdin" && echo "ok   stdin (held whole) gives the same output" ||
  { fail "stdin differs:"; diff "$tmp/small" "$tmp/stdin" | head -n 10 || true; }

if [[ -n "${ASAN_OPTIONS:-}${TSAN_OPTIONS:-}" ]] || grep -qa -e __asan_init -e __tsan_init "$bin/blast-bloom"; then
  echo "skip memory bound: a sanitizer build (its shadow memory is not the tool's)"
elif [[ -x /usr/bin/time ]]; then
  /usr/bin/time -f '%M' -o "$tmp/rss" "$bin/blast-bloom" -t 2 "$tmp/q.fa" "$tmp/db.fa" -o "$tmp/timed"
  kb=$(tail -n 1 "$tmp/rss")
  limit=$(( bases * 125 / 100 / 1024 + 96 * 1024 ))
  if (( kb > limit )); then fail "peak memory $kb KB for $bases bases (limit 1.25 bytes per base + 96 MB: $limit KB)"
  else echo "ok   peak memory $kb KB for $bases bases ($(( kb * 1024 * 100 / bases ))/100 bytes per base)"; fi
else
  echo "GNU time not installed: memory check skipped"
fi
exit $status
