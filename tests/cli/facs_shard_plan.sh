#!/usr/bin/env bash
# CLI tests of facs plan-shards and classify --shard-plan: for pairs whose records vary in length (so that the two
# files' byte cuts differ), N in 1 2 3 7, the plan's offsets are where an awk count of the files puts the records
# (the oracle), the shards run with the plan write the same parts as shards without one, and their merge equals the
# single run byte for byte; FASTA pairs and single reads likewise. Refused: a plan for other files, for single
# reads, for another N, files changed since (same size or not), a damaged plan (exit 65), and gzip, --shard-plan
# without --shard or with --shard-by records (exit 64); one line each, nothing written.
# Usage: facs_shard_plan.sh BIN_DIR SRC_DIR
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common/lib.bash"
facs=$bin/facs
[ -x "$facs" ] || { echo "no $facs"; exit 1; }
data=$src/data
calls_body() { tail -n +2 "$1"; }
# A part less its counters line (timings).
part_stable() { grep -v '^#bloomseq-facs-counters' "$1"; }

"$facs" build-filter -q -o refs.bf "$data/lambda_virus.fa" "$data/bee-viruses/dwv.fa"
# Pairs of varying lengths, differently in the two files: mate 1 keeps 40..139 bases, mate 2 20..149.
awk 'NR % 4 == 1 { n = int(NR / 4); len = 40 + (n * 37) % 100 } NR % 2 == 0 { $0 = substr($0, 1, len) } { print }' \
  "$data/lambda_reads_1.fq" > v1.fq
awk 'NR % 4 == 1 { n = int(NR / 4); len = 20 + (n * 53) % 130 } NR % 2 == 0 { $0 = substr($0, 1, len) } { print }' \
  "$data/lambda_reads_2.fq" > v2.fq
# FASTA pairs, wrapped at 30 bases (several lines a record, varying).
for m in 1 2; do
  awk 'NR % 4 == 1 { print ">" substr($0, 2) } NR % 4 == 2 { for (i = 1; i <= length($0); i += 30) print substr($0, i, 30) }' \
    v$m.fq > v$m.fa
done

# Byte offset of every record start (awk counts lines and bytes), then the file's size: the oracle of the plan.
record_offsets() {
  awk -v fmt="$2" '(fmt == "@" && NR % 4 == 1) || (fmt == ">" && substr($0, 1, 1) == ">") { print off + 0 }
                   { off += length($0) + 1 } END { print off + 0 }' "$1"
}

# plan_case NAME N READS MATES FORMAT: plan, oracle, shards with and without the plan, merge vs single run.
plan_case() {
  local name=$1 n=$2 reads=$3 mates=$4 fmt=$5
  local mate_args=()
  [ -n "$mates" ] && mate_args=(--mate "$mates")
  rm -rf single planned counted && mkdir -p single planned counted
  "$facs" classify "$reads" "${mate_args[@]}" refs.bf --scores -o single/calls.tsv --summary single/summary.tsv \
    --unmatched-out single/novel.fq --no-progress 2> /dev/null || { bad "$name: single run"; return; }
  "$facs" plan-shards "$reads" "${mate_args[@]}" -n "$n" -o plan.txt 2> plan_err.txt ||
    { bad "$name N=$n: plan-shards: $(head -1 plan_err.txt)"; return; }
  # Oracle: shard I's reads offset is a record start; its record count is that record's index; the mates' offset is
  # the start of the mate record of the same index (byte 0 for a block at byte 0).
  record_offsets "$reads" "$fmt" > reads_offsets.txt
  [ -n "$mates" ] && record_offsets "$mates" "$fmt" > mate_offsets.txt
  local good=1 i begin lines records mate_begin mate_lines
  while IFS=$'\t' read -r _ i begin lines records mate_begin mate_lines; do
    [ "$(sed -n "$((records + 1))p" reads_offsets.txt)" = "$begin" ] || good=0
    [ "$fmt" = "@" ] && [ "$lines" != $((4 * records)) ] && good=0
    if [ -n "$mates" ] && [ "$begin" != 0 ]; then
      [ "$(sed -n "$((records + 1))p" mate_offsets.txt)" = "$mate_begin" ] || good=0
      [ "$fmt" = "@" ] && [ "$mate_lines" != $((4 * records)) ] && good=0
    fi
  done < <(grep '^#shard' plan.txt)
  check "$name N=$n: the plan's offsets and counts are the records' (awk oracle)" \
    "[ $good -eq 1 ] && [ \$(grep -c '^#shard' plan.txt) -eq $n ]"
  local ok_shards=1
  for ((i = 1; i <= n; i++)); do
    "$facs" classify "$reads" "${mate_args[@]}" refs.bf --scores --shard "$i/$n" --shard-plan plan.txt \
      -o planned/calls.$i.part --summary planned/summary.$i.part --unmatched-out planned/s$i/novel.fq \
      --no-progress 2> planned/err.$i || { ok_shards=0; bad "$name: shard $i/$n with the plan: $(head -1 planned/err.$i)"; }
    "$facs" classify "$reads" "${mate_args[@]}" refs.bf --scores --shard "$i/$n" \
      -o counted/calls.$i.part --summary counted/summary.$i.part --no-progress 2> /dev/null || ok_shards=0
  done
  [ $ok_shards -eq 1 ] || return
  good=1
  for ((i = 1; i <= n; i++)); do
    cmp -s <(part_stable planned/calls.$i.part) <(part_stable counted/calls.$i.part) || good=0
    cmp -s <(part_stable planned/summary.$i.part) <(part_stable counted/summary.$i.part) || good=0
  done
  check "$name N=$n: parts with the plan = parts without (less timings)" "[ $good -eq 1 ]"
  "$facs" merge -o merged.tsv --summary merged_summary.tsv planned/calls.*.part 2> merge_err.txt ||
    { bad "$name N=$n: merge: $(head -1 merge_err.txt)"; return; }
  check "$name N=$n: merged calls = single run's" "cmp -s <(calls_body merged.tsv) <(calls_body single/calls.tsv)"
  check "$name N=$n: merged summary = single run's" "cmp -s merged_summary.tsv single/summary.tsv"
  local f
  good=1
  for f in $(cd single && find . -type f -name '*.fq' | sort); do
    cat $(for ((i = 1; i <= n; i++)); do echo planned/s$i/$f; done) | cmp -s - single/$f || good=0
  done
  check "$name N=$n: split outputs concatenated = single run's" "[ $good -eq 1 ]"
}

for n in 1 2 3 7; do
  plan_case "FASTQ pairs of varying length" $n v1.fq v2.fq @
done
for n in 3 7; do
  plan_case "multi-line FASTA pairs" $n v1.fa v2.fa ">"
done
plan_case "single reads" 3 v1.fq "" @
head -12 v1.fq > p1.fq
head -12 v2.fq > p2.fq
plan_case "3 pairs, N=7 (empty shards)" 7 p1.fq p2.fq @
check "the two files' cuts differ (the test means something)" \
  "\"$facs\" plan-shards v1.fq --mate v2.fq -n 7 -o d.plan -q && awk -F '\t' '/^#shard/ && \$3 != \$6 { d = 1 } END { exit !d }' d.plan"

# --- refusals
"$facs" plan-shards v1.fq --mate v2.fq -n 3 -o p3.plan -q
run_shard() { "$facs" classify "$@" refs.bf --shard 2/3 -o r.part --summary r_summary.part --no-progress; }
expect_exit 65 "a plan for other files is refused" run_shard p1.fq --mate p2.fq --shard-plan p3.plan
check "... naming the file and the plan" "grep -q 'p1.fq' err.txt && grep -q 'p3.plan' err.txt"
expect_exit 65 "a plan for pairs is refused for single reads" run_shard v1.fq --shard-plan p3.plan
"$facs" plan-shards v1.fq --mate v2.fq -n 4 -o p4.plan -q
expect_exit 65 "a plan for another N is refused" run_shard v1.fq --mate v2.fq --shard-plan p4.plan
check "... saying which N" "grep -q '4 shards, not 3' err.txt"
# Same size, one base changed next to a cut of the mate file.
cut2=$(awk -F '\t' '$1 == "#shard" && $2 == 2 { print $6 }' p3.plan)
cp v2.fq m2.fq
at=$((cut2 + $(tail -c +$((cut2 + 1)) v2.fq | head -1 | wc -c) + 1))  # the second base of the record at the cut
base=$(tail -c +$((at + 1)) v2.fq | head -c 1)
printf '%s' "$([ "$base" = A ] && echo C || echo A)" | dd of=m2.fq bs=1 seek=$at conv=notrunc status=none
[ "$(stat -c %s m2.fq)" = "$(stat -c %s v2.fq)" ] && ! cmp -s m2.fq v2.fq || bad "setup: m2.fq"
expect_exit 65 "a plan is refused for a mate file changed near a cut (same size)" \
  run_shard v1.fq --mate m2.fq --shard-plan p3.plan
cp v1.fq g1.fq
head -4 v1.fq >> g1.fq
expect_exit 65 "a plan is refused for a reads file that grew" run_shard g1.fq --mate v2.fq --shard-plan p3.plan
check "... saying the sizes" "grep -q 'bytes' err.txt"
awk -F '\t' 'BEGIN { OFS = "\t" } $1 == "#shard" && $2 == 2 { $3 = $3 + 1 } { print }' p3.plan > damaged.plan
expect_exit 65 "a damaged plan is refused" run_shard v1.fq --mate v2.fq --shard-plan damaged.plan
check "... naming the plan" "grep -q 'damaged.plan' err.txt"
head -n 3 p3.plan > truncated.plan
expect_exit 65 "a truncated plan is refused" run_shard v1.fq --mate v2.fq --shard-plan truncated.plan
gzip -c v1.fq > v1.fq.gz
gzip -c v2.fq > v2.fq.gz
rm -f gz.plan
expect_exit 64 "plan-shards refuses gzip" "$facs" plan-shards v1.fq.gz --mate v2.fq.gz -n 3 -o gz.plan
check "... saying why, and writes no plan" "grep -q 'compressed' err.txt && [ ! -e gz.plan ] && ! ls .*tmp* 2> /dev/null | grep -q ."
expect_exit 64 "classify --shard-plan refuses gzip" run_shard v1.fq.gz --mate v2.fq.gz --shard-plan p3.plan
expect_exit 64 "--shard-plan without --shard is refused" "$facs" classify v1.fq --mate v2.fq refs.bf --shard-plan p3.plan
expect_exit 64 "--shard-plan with --shard-by records is refused" \
  "$facs" classify v1.fq --mate v2.fq refs.bf --shard 1/3 --shard-by records --shard-plan p3.plan
expect_exit 66 "a missing plan is refused" run_shard v1.fq --mate v2.fq --shard-plan nothing.plan
expect_exit 64 "plan-shards needs -n" "$facs" plan-shards v1.fq -o x.plan
check "no part written by the refused shards" "[ ! -e r.part ] && [ ! -e r_summary.part ]"
"$facs" plan-shards --help > help.txt
check "plan-shards --help shows an example and says what gzip does" "grep -q 'Example' help.txt && grep -q 'gzip' help.txt"

[ $fails -eq 0 ] && echo "all passed" || echo "$fails failed"
exit $((fails > 0))
