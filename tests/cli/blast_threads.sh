#!/usr/bin/env bash
# Stages 2 and 3 run on -t threads (stage 3 extends later candidates while earlier ones are still being extended
# and decides them in order): the output must be byte-identical at -t 1, 2, 3 and 5, gapped and --ungapped, for a
# multi-record query against a multi-record database (both strands), for a genome slice against itself (long
# alignments that contain many others: the case where work done ahead is thrown away), and for a database shard.
# Usage: blast_threads.sh BIN_DIR SRC_DIR
set -euo pipefail
bin="$1"; src="$2"
bb="$bin/blast-bloom"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
status=0
fail() { echo "FAIL $*"; status=1; }

# Query: lambda cut into 12 records, half of them reverse-complemented; database: the four bee viruses, lambda and
# 200 kbases of E. coli, as 6 records.
awk 'NR>1' "$src/data/lambda_virus.fa" | tr -d '\n' |
  awk '{L = length($0); for (n = 0; n < 12; n++) { piece = substr($0, 1 + int(n * L / 12), int(L / 12) + 300);
        if (n % 2) { cmd = "rev | tr ACGT TGCA"; print piece | cmd; close(cmd) } else print piece } }' |
  awk '{print ">lambda_piece" NR; print}' > q.fa
for f in "$src"/data/bee-viruses/*.fa "$src/data/lambda_virus.fa" "$src/data/ecoli_536_200k.fa"; do cat "$f"; echo; done | sed "/^$/d" > db.fa
[[ $(grep -c '>' q.fa) -eq 12 && $(grep -c '>' db.fa) -ge 6 ]] || { echo "FAIL: test inputs not as expected"; exit 1; }
# A 60-kbase slice of E. coli with a few copies of pieces of itself: the self-alignment contains the repeats.
awk 'NR>1' "$src/data/ecoli_536_200k.fa" | tr -d '\n' |
  awk '{s = substr($0, 1, 60000); print ">slice"; print s substr(s, 5001, 3000) substr(s, 20001, 2000) substr(s, 5001, 3000)}' \
  > slice.fa

check() {  # label query db options...
  local label="$1" q="$2" db="$3"; shift 3
  "$bb" --no-header --no-progress -t 1 "$@" "$q" "$db" > t1.tsv
  local n; n=$(wc -l < t1.tsv)
  [[ $n -ge 20 ]] || { fail "$label: only $n lines at -t 1 (test data changed?)"; return; }
  for t in 2 3 5; do
    "$bb" --no-header --no-progress -t "$t" "$@" "$q" "$db" > "t$t.tsv"
    if ! cmp -s t1.tsv "t$t.tsv"; then fail "$label: -t $t differs from -t 1"; diff t1.tsv "t$t.tsv" | head -n 6 || true; return; fi
  done
  echo "ok   $label: $n lines identical at -t 1, 2, 3, 5"
}
check "12 records vs 6 records, gapped" q.fa db.fa
check "12 records vs 6 records, --ungapped" q.fa db.fa --ungapped
check "12 records vs 6 records, gapped, w 16, 1/-2" q.fa db.fa -w 16 --reward 1 --penalty=-2
check "slice with repeats vs itself, gapped" slice.fa slice.fa
check "slice with repeats vs itself, --ungapped" slice.fa slice.fa --ungapped

# Whole batches on each thread (BlastSearch::search_batches): a database of many records no longer than a batch.
# The database above cut into 8-kbase records, read in batches of 12 kbases: 24 or more batches, enough for 5 threads.
awk '/^>/{next} {printf "%s", $0} END {print ""}' db.fa |
  awk '{for (i = 1; i <= length($0); i += 8000) { print ">piece" (i - 1) / 8000; print substr($0, i, 8000) } }' > many.fa
check "12 records vs 8-kb records in 12-kb batches, gapped" q.fa many.fa --batch 12k
check "12 records vs 8-kb records in 12-kb batches, --ungapped" q.fa many.fa --batch 12k --ungapped
check "12 records vs 8-kb records in 12-kb batches, --ungapped, w 11, 1/-2" q.fa many.fa --batch 12k --ungapped -w 11 --reward 1 --penalty=-2
split_of() { grep -o '"thread_split": *"[a-z]*"' "$1" | grep -o '"[a-z]*"$'; }
counts_of() { grep -oE '"(seeds|extensions|stage1a_hits|true_positives|gap_triggers|hsps)": *[0-9]+' "$1" | tr -d ' '; }
for t in 1 2 5; do
  "$bb" --no-header --no-progress -t "$t" --batch 12k --stats "st$t.json" q.fa many.fa > /dev/null
done
[[ $(split_of st1.json) == '"chunks"' && $(split_of st2.json) == '"batches"' && $(split_of st5.json) == '"batches"' ]] ||
  fail "thread_split: -t 1 $(split_of st1.json), -t 2 $(split_of st2.json), -t 5 $(split_of st5.json) (expected chunks, batches, batches)"
for t in 2 5; do
  [[ "$(counts_of st1.json)" == "$(counts_of "st$t.json")" && -n "$(counts_of st1.json)" ]] ||
    fail "batches on -t $t threads: counts differ from -t 1: $(counts_of "st$t.json" | tr '\n' ' ')"
done
[[ $status -eq 0 ]] && echo "ok   whole batches per thread at -t 2 and 5: --stats says so, and its counts equal -t 1's"

# Database shards: each part the same at any thread count.
for t in 1 2 5; do
  for i in 1 2 3; do "$bb" --no-header -t "$t" --db-shard "$i/3" q.fa db.fa -o "s${t}_$i.part"; done
done
for t in 2 5; do
  for i in 1 2 3; do cmp -s "s1_$i.part" "s${t}_$i.part" || fail "--db-shard $i/3: -t $t part differs from -t 1"; done
done
"$bb" merge -o merged.tsv s5_*.part
"$bb" --no-header -t 1 q.fa db.fa > single.tsv
cmp -s single.tsv merged.tsv || fail "3 database shards at -t 5, merged, differ from the single run at -t 1"
[[ $status -eq 0 ]] && echo "ok   --db-shard 1..3/3: parts identical at -t 1, 2, 5; merged = single run"
exit $status
