#!/usr/bin/env bash
# CLI tests of sharded facs classify (--shard I/N) and facs merge: the merged calls, summary and JSON equal the
# single run's (the oracle), for single and paired reads, plain (cut by bytes) and gzip (cut by records), N in
# 1 2 3 7 16 and N > reads, FASTQ made to confuse the byte cut ('@' first in qualities, named '+' lines), CRLF,
# multi-line FASTA and FASTQ; split outputs concatenated in shard order equal the single run's; shards with other
# thread counts merge the same; merge refuses a missing, duplicate, foreign, truncated or non-part file, parts cut
# by different schemes and parts missing call lines (exit 65, nothing written).
# Usage: facs_shard_merge.sh BIN_DIR SRC_DIR
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common/lib.bash"
facs=$bin/facs
[ -x "$facs" ] || { echo "no $facs"; exit 1; }
data=$src/data
# The run-specific parts: the TSV's first line (the command line) and the JSON's command_line, threads and timings.
calls_body() { tail -n +2 "$1"; }
json_stable() {
  sed -E 's/"command_line": *"([^"\\]|\\.)*"//; s/"threads": *[0-9]+//; s/"(load_seconds|seconds|reads_per_second)": *[-0-9.eE+]+//g' "$1"
}

bees="$data/bee-viruses/dwv.fa $data/bee-viruses/vdv1.fa $data/bee-viruses/vdv1dwv5.fa $data/bee-viruses/vdv1dwv9.fa"
"$facs" build-filter -q -o refs.bf $bees "$data/lambda_virus.fa"
"$facs" build-filter -q -o lambda.bf "$data/lambda_virus.fa"
zcat "$data/SRR059298_5k.fastq.gz" > srr.fq
gzip -c "$data/lambda_reads_1.fq" > l1.fq.gz
gzip -c "$data/lambda_reads_2.fq" > l2.fq.gz

# run_case NAME N SPLIT_ARGS_PREFIX -- CLASSIFY_ARGS...: single run vs N shards merged.
run_case() {
  local name=$1 n=$2
  shift 2
  rm -rf single shards && mkdir -p single shards
  "$facs" classify "$@" --scores -o single/calls.tsv --summary single/summary.tsv --json single/run.json \
    --matched-out single/m/ --unmatched-out single/novel.fq --no-progress 2> /dev/null || { bad "$name: single run"; return; }
  local i ok_shards=1
  for ((i = 1; i <= n; i++)); do
    "$facs" classify "$@" ${SHARD_BY:+--shard-by $SHARD_BY} --scores --shard "$i/$n" -o shards/calls.$i.part --summary shards/summary.$i.part \
      --json shards/run.$i.part --matched-out shards/s$i/m/ --unmatched-out shards/s$i/novel.fq --no-progress \
      2> shards/err.$i || { ok_shards=0; bad "$name: shard $i/$n: $(head -1 shards/err.$i)"; }
  done
  [ $ok_shards -eq 1 ] || return
  # Parts in reverse order: the order given does not matter.
  "$facs" merge -o merged.tsv --summary merged_summary.tsv --json merged.json $(ls shards/calls.*.part | sort -r) \
    2> merge_err.txt || { bad "$name: merge: $(head -1 merge_err.txt)"; return; }
  check "$name N=$n: merged calls = single run's" "cmp -s <(calls_body merged.tsv) <(calls_body single/calls.tsv)"
  check "$name N=$n: merged summary = single run's (byte for byte)" "cmp -s merged_summary.tsv single/summary.tsv"
  check "$name N=$n: merged JSON = single run's (less command line, threads, timings)" \
    "cmp -s <(json_stable merged.json) <(json_stable single/run.json)"
  # Summary (or json) parts alone rebuild the summary and JSON too.
  "$facs" merge --summary s2.tsv --json j2.json shards/summary.*.part 2> /dev/null
  check "$name N=$n: summary parts alone merge to the same summary" "cmp -s s2.tsv single/summary.tsv"
  # Split outputs: every file of the single run is the concatenation of the shards' files in shard order.
  local f good=1
  for f in $(cd single && find . -type f \( -name '*.fq' -o -name '*.fa' \) | sort); do
    cat $(for ((i = 1; i <= n; i++)); do echo shards/s$i/$f; done) > cat.out 2> /dev/null || good=0
    cmp -s cat.out single/$f || good=0
  done
  check "$name N=$n: split outputs = the shards' concatenated in order" "[ $good -eq 1 ]"
  if [ -n "${CUT:-}" ]; then
    check "$name N=$n: the parts say the input was cut by $CUT" \
      "[ \"\$(grep -h '^#cut' shards/*.part | sort -u)\" = \"\$(printf '#cut\t$CUT')\" ]"
  fi
}

for n in 1 2 3 7 16; do
  CUT=bytes run_case "single-end plain" $n srr.fq refs.bf
done
CUT=records run_case "single-end gzip" 3 "$data/SRR059298_5k.fastq.gz" refs.bf
for n in 1 2 3 7 16; do
  CUT=bytes run_case "pairs plain" $n "$data/lambda_reads_1.fq" --mate "$data/lambda_reads_2.fq" refs.bf
done
CUT=records run_case "pairs gzip" 3 l1.fq.gz --mate l2.fq.gz refs.bf --pair-mode either
for n in 2 7; do
  run_case "pairs interleaved" $n "$data/lambda_reads_1.fq" --mate "$data/lambda_reads_2.fq" refs.bf --interleaved
done
head -12 "$data/lambda_reads_1.fq" > p1.fq
head -12 "$data/lambda_reads_2.fq" > p2.fq
CUT=bytes run_case "3 pairs, N=5 (empty shards)" 5 p1.fq --mate p2.fq lambda.bf
head -20 srr.fq > five.fq
CUT=bytes run_case "5 reads, N=16 (empty shards)" 16 five.fq refs.bf
run_case "biobloom score" 3 srr.fq refs.bf --score biobloom -s 0.2
CUT=records SHARD_BY=records run_case "plain cut by records (--shard-by records)" 3 srr.fq refs.bf
# A byte cut looks for a line starting with '@' whose next line is a sequence and whose third starts with '+':
# qualities starting with '@' (and '+') and '+' lines repeating the name must not be taken for records.
awk 'NR % 4 == 1 { name = substr($1, 2) } NR % 4 == 3 { $0 = "+" name } NR % 4 == 0 { $0 = "@" substr($0, 2) }
     NR % 8 == 0 { $0 = substr($0, 1, 1) "+" substr($0, 3) } { print }' srr.fq > tricky.fq
for n in 2 3 7 16; do
  CUT=bytes run_case "FASTQ with '@' first in every quality, named '+' lines" $n tricky.fq refs.bf
done
awk 'NR % 4 == 1 { name = substr($1, 2) } NR % 4 == 3 { $0 = "+" name } NR % 4 == 0 { $0 = "@" substr($0, 2) } { print }' \
  "$data/lambda_reads_2.fq" > tricky_2.fq
CUT=bytes run_case "pairs, '@' first in the mates' qualities" 7 "$data/lambda_reads_1.fq" --mate tricky_2.fq refs.bf
sed 's/$/\r/' srr.fq > crlf.fq
CUT=bytes run_case "CRLF line ends" 7 crlf.fq refs.bf
awk 'NR % 4 == 1 { print ">" substr($0, 2) } NR % 4 == 2 { for (i = 1; i <= length($0); i += 30) print substr($0, i, 30) }' \
  srr.fq > wrapped.fa
for n in 3 16; do
  CUT=bytes run_case "multi-line FASTA" $n wrapped.fa refs.bf
done
# Multi-line FASTQ cannot be cut by bytes safely: shards count records instead, with a note.
awk 'NR % 2 == 1 { print } NR % 2 == 0 { for (i = 1; i <= length($0); i += 30) print substr($0, i, 30) }' srr.fq > wrapped.fq
CUT=records run_case "multi-line FASTQ" 3 wrapped.fq refs.bf
"$facs" classify wrapped.fq refs.bf --shard 1/2 -o /dev/null --summary /dev/null --no-progress 2> err.txt
check "multi-line FASTQ: a note says the shards count records" "grep -q 'multi-line FASTQ' err.txt"
expect_exit 64 "--shard-by bytes refuses multi-line FASTQ" \
  "$facs" classify wrapped.fq refs.bf --shard 1/2 --shard-by bytes --summary /dev/null
expect_exit 64 "--shard-by bytes refuses gzip" \
  "$facs" classify "$data/SRR059298_5k.fastq.gz" refs.bf --shard 1/2 --shard-by bytes --summary /dev/null
expect_exit 64 "--shard-by without --shard is refused" "$facs" classify srr.fq refs.bf --shard-by bytes

# --- threads and --auto-tune choose threads only: shards with other thread counts merge to the same output
"$facs" classify srr.fq refs.bf -o single.tsv --summary single_summary.tsv --no-progress 2> /dev/null
"$facs" classify srr.fq refs.bf --shard 1/3 -o t.1.part --summary /dev/null -t 1 --no-progress 2> /dev/null
"$facs" classify srr.fq refs.bf --shard 2/3 -o t.2.part --summary /dev/null -t 3 --no-progress 2> /dev/null
"$facs" classify srr.fq refs.bf --shard 3/3 -o t.3.part --summary /dev/null --auto-tune --no-progress 2> /dev/null
"$facs" merge -o t.tsv --summary t_summary.tsv t.1.part t.2.part t.3.part 2> /dev/null
check "shards with -t 1, -t 3 and --auto-tune merge to the single run's calls" "cmp -s <(calls_body t.tsv) <(calls_body single.tsv)"
check "... and summary" "cmp -s t_summary.tsv single_summary.tsv"

# --- merge refuses bad part sets: exit 65, one line naming the file, no output created
rm -f out.tsv out_summary.tsv
expect_exit 65 "merge refuses a missing part" "$facs" merge -o out.tsv --summary out_summary.tsv t.1.part t.3.part
check "... naming the part set" "grep -q 'shard 2/3' err.txt"
expect_exit 65 "merge refuses a duplicate part" "$facs" merge -o out.tsv --summary out_summary.tsv t.1.part t.2.part t.3.part t.2.part
check "... naming the file" "grep -q 't.2.part' err.txt"
"$facs" classify srr.fq refs.bf --shard 2/3 -s 0.5 -o other_s.part --summary /dev/null --no-progress 2> /dev/null
expect_exit 65 "merge refuses a part made with another -s" "$facs" merge -o out.tsv --summary out_summary.tsv t.1.part other_s.part t.3.part
check "... naming the file" "grep -q 'other_s.part' err.txt"
"$facs" classify srr.fq lambda.bf --shard 2/3 -o other_bf.part --summary /dev/null --no-progress 2> /dev/null
expect_exit 65 "merge refuses a part made with another filter" "$facs" merge -o out.tsv --summary out_summary.tsv t.1.part other_bf.part t.3.part
"$facs" classify srr.fq refs.bf --shard 2/4 -o other_n.part --summary /dev/null --no-progress 2> /dev/null
expect_exit 65 "merge refuses a part of another shard count" "$facs" merge -o out.tsv --summary out_summary.tsv t.1.part other_n.part t.3.part
head -c 20000 t.2.part > trunc.part
expect_exit 65 "merge refuses a truncated part" "$facs" merge -o out.tsv --summary out_summary.tsv t.1.part trunc.part t.3.part
check "... naming the file" "grep -q 'trunc.part' err.txt"
head -n -1 t.2.part > noend.part
expect_exit 65 "merge refuses a part without its end line" "$facs" merge -o out.tsv --summary out_summary.tsv t.1.part noend.part t.3.part
sed '0,/^[^#]/{/^[^#]/d}' t.2.part > norow.part
expect_exit 65 "merge refuses a part missing a call line" "$facs" merge -o out.tsv --summary out_summary.tsv t.1.part norow.part t.3.part
check "... saying so" "grep -q 'call lines but the counters say' err.txt"
"$facs" classify srr.fq refs.bf --shard 2/3 --shard-by records -o rec.2.part --summary /dev/null --no-progress 2> /dev/null
expect_exit 65 "merge refuses parts cut by different schemes" "$facs" merge -o out.tsv --summary out_summary.tsv t.1.part rec.2.part t.3.part
check "... naming the schemes" "grep -q 'cut by records' err.txt"
# Pairs: a part missing a call line whose counters were lowered to match does not tile the pairs.
for i in 1 2 3; do
  "$facs" classify "$data/lambda_reads_1.fq" --mate "$data/lambda_reads_2.fq" refs.bf --shard $i/3 -o pp.$i.part \
    --summary /dev/null --no-progress 2> /dev/null
done
awk -F '\t' 'BEGIN { OFS = "\t" } /^#bloomseq-facs-counters/ { $2 = $2 - 1 } { print }' pp.2.part |
  sed '0,/^[^#]/{/^[^#]/d}' > pp_short.part
expect_exit 65 "merge refuses pairs whose blocks do not follow each other" "$facs" merge -o out.tsv --summary out_summary.tsv pp.1.part pp_short.part pp.3.part
check "... naming the pair" "grep -q 'starts at pair' err.txt"
expect_exit 65 "merge refuses a file that is no part" "$facs" merge -o out.tsv --summary out_summary.tsv t.1.part single.tsv t.3.part
check "... naming the file" "grep -q 'single.tsv' err.txt"
check "no output after the refused merges" "[ ! -e out.tsv ] && [ ! -e out_summary.tsv ] && ! ls .*tmp* 2> /dev/null | grep -q ."
expect_exit 64 "--shard refuses 0/3" "$facs" classify srr.fq refs.bf --shard 0/3
expect_exit 64 "--shard refuses 4/3" "$facs" classify srr.fq refs.bf --shard 4/3
expect_exit 64 "--shard refuses stdin" "$facs" classify - refs.bf --shard 1/2 < srr.fq

[ $fails -eq 0 ] && echo "all passed" || echo "$fails failed"
exit $((fails > 0))
