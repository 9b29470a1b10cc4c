#!/usr/bin/env bash
# Sharded searches: --db-shard I/N and --query-shard J/M parts merged by 'blast-bloom merge' must be byte-identical
# to the single run (the oracle) for N in 1, 2, 3, 7, 16 and more shards than records (empty shards), database and
# query shards and both combined, gapped and --ungapped, FASTA and .2bit, parts given in any order. The data give
# HSPs in many subjects spread over several shards (checked), so the shards' E-values, which use the whole
# database's totals, are compared too. merge refuses a missing, duplicate, foreign or truncated part with exit 65
# and writes nothing.
# Usage: blast_shards.sh BIN_DIR SRC_DIR
set -euo pipefail
bin="$1"; src="$2"
bb="$bin/blast-bloom"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
# Database: 4 bee viruses, lambda and the E. coli 200-kb slice cut into 26 records of 5-12 kb (31 records).
{ for f in "$src"/data/bee-viruses/*.fa "$src/data/lambda_virus.fa"; do cat "$f"; echo; done | grep -v '^$'
  awk 'NR>1' "$src/data/ecoli_536_200k.fa" | tr -d '\n' |
    awk '{L = length($0); n = 0; for (i = 1; i <= L; i += len) { len = 5000 + (n * 1777) % 7000; print ">ecoli_" n; print substr($0, i, len); n++ }}'
} > db.fa
# Query: 8 E. coli pieces, a piece of DWV and one of lambda (10 records).
{ awk 'NR>1' "$src/data/ecoli_536_200k.fa" | tr -d '\n' |
    awk '{for (k = 0; k < 8; k++) { print ">q" k; print substr($0, 1 + k * 23000, 1500 + k * 300) }}'
  awk 'NR>1' "$src/data/bee-viruses/dwv.fa" | tr -d '\n' | awk '{print ">dwv_part"; print substr($0, 2000, 3000)}'
  awk 'NR>1' "$src/data/lambda_virus.fa" | tr -d '\n' | awk '{print ">lambda_part"; print substr($0, 10000, 2500)}'
} > q.fa
[[ $(grep -c '>' db.fa) -eq 31 && $(grep -c '>' q.fa) -eq 10 ]] || { echo "FAIL: test data"; exit 1; }
"$bb" encode db.fa -o db.2bit

status=0
fail() { echo "FAIL $*"; status=1; }
# A fixed shuffle of the arguments (the merge must not depend on their order).
shuffled() { printf '%s\n' "$@" | awk '{print ((NR * 7919) % 101) "\t" $0}' | sort -n | cut -f2-; }

# run_grid LABEL N M DB OPTS...: every (I, J) shard, merged; compared with the single run.
run_grid() {
  local label="$1" n="$2" m="$3" db="$4"; shift 4
  rm -rf parts; mkdir parts
  "$bb" "$@" q.fa "$db" -o single.tsv
  for ((i = 1; i <= n; i++)); do for ((j = 1; j <= m; j++)); do
    "$bb" "$@" --db-shard "$i/$n" --query-shard "$j/$m" q.fa "$db" -o "parts/p${i}_$j.part"
  done; done
  # shellcheck disable=SC2046
  "$bb" merge -o merged.tsv $(shuffled parts/*.part)
  if cmp -s single.tsv merged.tsv; then
    echo "ok   $label: db $n x query $m shards, $(grep -vc '^#' single.tsv) HSPs identical"
  else
    fail "$label: db $n x query $m shards differ from the single run:"; diff single.tsv merged.tsv | head -n 6 || true
  fi
}

for n in 1 2 3 7 16 40; do run_grid "gapped, FASTA" "$n" 1 db.fa; done
# shellcheck disable=SC2046
"$bb" merge -o - $(shuffled parts/*.part) > stdout.tsv
cmp -s single.tsv stdout.tsv || fail "merge -o - (stdout) differs from the single run"
for m in 2 3 7 16; do run_grid "gapped, FASTA" 1 "$m" db.fa; done
run_grid "gapped, .2bit" 2 3 db.2bit
run_grid "ungapped, .2bit" 3 2 db.2bit --ungapped
run_grid "ungapped, FASTA, no header, 2 threads" 7 2 db.fa --ungapped --no-header -t 2
run_grid "gapped, FASTA, --outfmt 10 with columns" 3 2 db.fa --outfmt "10 qseqid sseqid evalue qcovs btop"
grep -q '^q0,' single.tsv || fail "--outfmt 10: no comma-separated line"
run_grid "gapped, .2bit, --dbsize" 2 2 db.2bit --dbsize 100000000
run_grid "gapped, FASTA, --searchsp" 3 1 db.fa --searchsp 1000000
# Format 7's comment blocks need every query: refused for a part (exit 64, no part written).
set +e; "$bb" --outfmt 7 --db-shard 1/2 q.fa db.fa -o seven.part 2> err.txt; rc=$?; set -e
[[ $rc -eq 64 && ! -e seven.part ]] && grep -q -- '--outfmt 7' err.txt && echo "ok   --outfmt 7 refused with shards" ||
  fail "--outfmt 7 with --db-shard: exit $rc"

# The data exercise what they should: many subjects, HSPs in several shards (N = 3, database shards).
run_grid "gapped, FASTA" 3 1 db.fa
subjects=$(grep -v '^#' single.tsv | cut -f2 | sort -u | wc -l)
[[ $subjects -ge 3 ]] || fail "only $subjects subjects with HSPs"
nonempty=0
for f in parts/*.part; do [[ $(grep -vc '^#' "$f") -gt 0 ]] && nonempty=$((nonempty + 1)); done
[[ $nonempty -ge 2 ]] || fail "only $nonempty of 3 database shards have HSPs"
echo "ok   HSPs in $subjects subjects, $nonempty of 3 database shards non-empty"
# More shards than records: empty shards are valid parts.
run_grid "gapped, FASTA, empty query shards" 1 12 db.fa
empty=0
for f in parts/*.part; do [[ $(grep -vc '^#' "$f") -eq 0 ]] && empty=$((empty + 1)); done
[[ $empty -ge 2 ]] || fail "expected empty query shards, found $empty"

# Refusals: exit 65, one line naming the file (or the missing shard), no output file.
refuse() {
  local what="$1"; shift
  rm -f out.tsv
  set +e; "$bb" merge -o out.tsv "$@" 2> err.txt; local rc=$?; set -e
  if [[ $rc -ne 65 || -e out.tsv || $(wc -l < err.txt) -ne 1 ]]; then
    fail "merge with $what: exit $rc (want 65), output $( [[ -e out.tsv ]] && echo written || echo absent)"; cat err.txt
  else
    echo "ok   merge refuses $what: $(cat err.txt)"
  fi
}
run_grid "gapped, FASTA" 3 1 db.fa
refuse "a missing part" parts/p1_1.part parts/p3_1.part
refuse "a duplicate part" parts/p1_1.part parts/p2_1.part parts/p2_1.part parts/p3_1.part
"$bb" --evalue 1 --db-shard 2/3 q.fa db.fa -o other_e.part
refuse "a part with another -e" parts/p1_1.part other_e.part parts/p3_1.part
"$bb" --db-shard 2/4 q.fa db.fa -o other_n.part
refuse "a part of another N" parts/p1_1.part other_n.part parts/p3_1.part
head -c 300 parts/p2_1.part > truncated.part
refuse "a truncated part" parts/p1_1.part truncated.part parts/p3_1.part
grep -v '^#end' parts/p2_1.part > no_end.part
refuse "a part without its end line" parts/p1_1.part no_end.part parts/p3_1.part
refuse "a file that is not a part" parts/p1_1.part q.fa parts/p3_1.part

# --auto-tune decided once: 'plan' writes the parameters, shards run them with --plan; merged = the single run.
"$bb" plan --auto-tune q.fa db.2bit -o plan.json 2>/dev/null
"$bb" --auto-tune q.fa db.2bit -o single.tsv 2>/dev/null
rm -rf parts; mkdir parts
for i in 1 2 3; do "$bb" --plan plan.json --db-shard "$i/3" --query-shard 2/2 q.fa db.2bit -o "parts/p$i.part"
                   "$bb" --plan plan.json --db-shard "$i/3" --query-shard 1/2 q.fa db.2bit -o "parts/q$i.part"; done
"$bb" merge -o merged.tsv parts/*.part
if cmp -s single.tsv merged.tsv; then echo "ok   --auto-tune plan, 3 x 2 shards with --plan: identical"
else fail "--auto-tune plan: merged shards differ from the single --auto-tune run"; fi
"$bb" --plan plan.json q.fa db.2bit -o plain.tsv
cmp -s single.tsv plain.tsv || fail "--plan without shards differs from the --auto-tune run"
# A plan of a plain FASTA database says where its records start: shards skip the counting pass and start at their
# first record; merged = the single run. A file of the same size whose records moved is refused (exit 65).
"$bb" plan q.fa db.fa -o plan_fa.json
grep -q '"db_index"' plan_fa.json || fail "the plan of a FASTA database has no record index"
"$bb" q.fa db.fa -o single.tsv
rm -rf parts; mkdir parts
for i in 1 2 3; do for j in 1 2; do
  "$bb" --plan plan_fa.json --db-shard "$i/3" --query-shard "$j/2" q.fa db.fa -o "parts/p${i}_$j.part"; done; done
"$bb" merge -o merged.tsv parts/*.part
if cmp -s single.tsv merged.tsv; then echo "ok   FASTA plan, 3 x 2 shards starting at their records: identical"
else fail "FASTA plan: merged shards differ from the single run"; fi
# One base moved from the first record to the second: same size, other record lengths.
awk '/^>/ {n++; first = 1; print; next}
     first && n == 1 {print substr($0, 2); first = 0; next}
     first && n == 2 {print "A" $0; first = 0; next} {first = 0; print}' db.fa > moved.fa
[[ $(wc -c < moved.fa) -eq $(wc -c < db.fa) ]] || fail "test data: moved.fa has another size"
set +e; "$bb" --plan plan_fa.json --db-shard 1/3 q.fa moved.fa -o x.part 2> err.txt; rc=$?; set -e
[[ $rc -eq 65 && ! -e x.part ]] || { fail "FASTA plan on a changed file: exit $rc (want 65)"; cat err.txt; }
# A .2bit database's plan holds the lengths (a shard reads only the index and its records); other lengths: refused.
grep -q '"db_lengths"' plan.json || fail "the plan of a .2bit database has no record lengths"
"$bb" encode moved.fa -o moved.2bit
set +e; "$bb" --plan plan.json --db-shard 1/3 q.fa moved.2bit -o x.part 2> err.txt; rc=$?; set -e
[[ $rc -eq 65 && ! -e x.part ]] || { fail ".2bit plan on a changed file: exit $rc (want 65)"; cat err.txt; }

# A plan refuses other inputs (exit 65) and options that it fixes (exit 64).
head -n 20 db.fa > small_db.fa
set +e
"$bb" --plan plan.json --db-shard 1/2 q.fa small_db.fa -o x.part 2>/dev/null; rc1=$?
"$bb" --plan plan.json --db-shard 1/2 db.fa db.2bit -o x.part 2>/dev/null; rc2=$?
"$bb" --plan plan.json --evalue 1 --db-shard 1/2 q.fa db.2bit -o x.part 2>/dev/null; rc3=$?
"$bb" --plan q.fa --db-shard 1/2 q.fa db.2bit -o x.part 2>/dev/null; rc4=$?
set -e
[[ $rc1 -eq 65 && $rc2 -eq 65 && $rc3 -eq 64 && $rc4 -eq 65 && ! -e x.part ]] ||
  fail "--plan refusals: exits $rc1 $rc2 $rc3 $rc4 (want 65 65 64 65)"

# Options that cannot be sharded are usage errors.
set +e
"$bb" --auto-tune --db-shard 1/2 q.fa db.fa -o x.part 2>/dev/null; rc1=$?
"$bb" --stage 1b --query-shard 1/2 q.fa db.fa -o x.part 2>/dev/null; rc2=$?
"$bb" --db-shard 3/2 q.fa db.fa -o x.part 2>/dev/null; rc3=$?
set -e
[[ $rc1 -eq 64 && $rc2 -eq 64 && $rc3 -eq 64 && ! -e x.part ]] || fail "usage errors: exits $rc1 $rc2 $rc3"
exit $status
