#!/usr/bin/env bash
# CLI tests of facs on the bundled data: build-filter, info, classify (real SRR059298 reads against the four bee
# viruses, lambda reads, pairs, gz/stdin/threads equivalence, split outputs) and the error paths.
# Usage: facs_cli.sh BIN_DIR SRC_DIR
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common/lib.bash"
facs=$bin/facs
[ -x "$facs" ] || { echo "no $facs"; exit 1; }
data=$src/data
# column of the summary row for a filter
summary_field() { awk -F'\t' -v n="$2" -v c="$3" '$1 == n { print $c }' "$1"; }

bees="$data/bee-viruses/dwv.fa $data/bee-viruses/vdv1.fa $data/bee-viruses/vdv1dwv5.fa $data/bee-viruses/vdv1dwv9.fa"

# --- build-filter and info
"$facs" build-filter -o refs.bf $bees "$data/lambda_virus.fa" 2> build.txt
check "build-filter writes a container" "[ -s refs.bf ]"
check "build-filter prints what it built" "grep -q '^lambda_virus' build.txt && grep -q 'wrote 5 filter' build.txt"
"$facs" info refs.bf > info.txt
check "info lists 5 filters with k-mers, bits, FPR" "[ \$(grep -vc '^#' info.txt) -eq 5 ] && grep -q '^#name.*predicted_fpr' info.txt"
check "info: predicted FPR near the 5e-4 target" \
  "awk -F'\t' '!/^#/ && (\$9 > 6e-4 || \$9 < 3e-4) { bad = 1 } END { exit bad }' info.txt"
cp refs.bf add.bf
"$facs" build-filter -q -o add.bf --add --name ecoli200k "$data/ecoli_536_200k.fa"
check "build-filter --add appends" "[ \$(\"$facs\" info add.bf | grep -vc '^#') -eq 6 ]"
expect_exit 64 "build-filter --add refuses a duplicate name" "$facs" build-filter -q -o add.bf --add "$data/lambda_virus.fa"
expect_exit 64 "build-filter --add refuses another k-mer size" "$facs" build-filter -q -o add.bf --add -w 25 "$data/lambda_virus.fa"
for f in $bees; do cat "$f"; echo; done > allbees.fa  # the files lack a final newline
"$facs" build-filter -q -o per_record.bf --per-record allbees.fa
check "build-filter --per-record: one filter per record" "[ \$(\"$facs\" info per_record.bf | grep -vc '^#') -eq 4 ]"

# --- classify the real SRR059298 reads (72 bp, many N) against the bee viruses and lambda
"$facs" classify "$data/SRR059298_5k.fastq.gz" refs.bf -o calls.tsv --scores --summary summary.tsv --json run.json 2> log.txt
total=$(grep -vc '^#' calls.tsv)
check "one per-read line per read" "[ $total -eq 5000 ]"
bee_calls=$(awk -F'\t' '!/^#/ && ($2 ~ /^(dwv|vdv1|vdv1dwv5|vdv1dwv9)$/ || ($2 == "tie" && $4 !~ /lambda/)) { n++ } END { print n + 0 }' calls.tsv)
echo "     SRR059298 5k: $bee_calls of 5000 reads called to a bee virus"
check "most SRR059298 reads classify to the bee viruses (>= 75%)" "[ $bee_calls -ge 3750 ]"
check "no SRR059298 read is called lambda" "! awk -F'\t' '\$2 == \"lambda_virus\"' calls.tsv | grep -q ."
check "summary has the BioBloom columns and rows" \
  "head -1 summary.tsv | grep -q \$'^filter_id\thits\tmisses\tshared\trate_hit\trate_miss\trate_shared\tbest\trate_best\$' && grep -q '^multiMatch' summary.tsv && grep -q '^noMatch' summary.tsv"
check "summary rows add up (hits + misses = total)" \
  "awk -F'\t' 'NR > 1 && \$2 + \$3 != 5000 { bad = 1 } END { exit bad }' summary.tsv"
check "JSON has parameters and totals" "python3 -c 'import json,sys; j=json.load(open(\"run.json\")); sys.exit(0 if j[\"results\"][\"total\"] == 5000 and j[\"parameters\"][\"kmer_size\"] == 21 else 1)'"

# plain vs gz vs stdin vs threads: identical calls
zcat "$data/SRR059298_5k.fastq.gz" > reads.fq
"$facs" classify reads.fq refs.bf -o plain.tsv --scores --summary /dev/null 2> /dev/null
zcat "$data/SRR059298_5k.fastq.gz" | "$facs" classify - refs.bf -o stdin.tsv --scores --summary /dev/null 2> /dev/null
"$facs" classify reads.fq refs.bf -o threads.tsv --scores -t 3 --batch-bases 5000 --summary /dev/null 2> /dev/null
body() { grep -v '^# ' "$1"; }
check "gz and plain input give identical calls" "cmp -s <(body calls.tsv) <(body plain.tsv)"
check "stdin gives identical calls" "cmp -s <(body calls.tsv) <(body stdin.tsv)"
check "1 and 3 threads give identical calls" "cmp -s <(body calls.tsv) <(body threads.tsv)"
# plain files are cut into chunks that the workers parse; gz input is parsed by the reader: same calls
"$facs" classify reads.fq refs.bf -o chunked.tsv --scores -t 2 --batch-bases 3000 --summary chunked_sum.tsv 2> /dev/null
"$facs" classify "$data/SRR059298_5k.fastq.gz" refs.bf -o gz2.tsv --scores -t 2 --batch-bases 3000 --summary gz2_sum.tsv 2> /dev/null
check "2 threads: chunked plain input, gz input and 1 thread give identical calls and summaries" \
  "cmp -s <(body calls.tsv) <(body chunked.tsv) && cmp -s <(body calls.tsv) <(body gz2.tsv) && cmp -s summary.tsv chunked_sum.tsv && cmp -s summary.tsv gz2_sum.tsv"

# lambda reads and pairs
"$facs" classify "$data/lambda_reads_1.fq" refs.bf -o lambda.tsv --summary /dev/null 2> /dev/null
lam=$(awk -F'\t' '$2 == "lambda_virus"' lambda.tsv | wc -l)
nlam=$(grep -vc '^#' lambda.tsv)
echo "     lambda reads: $lam of $nlam called lambda_virus"
# bowtie2 aligns 94.05% of its example reads; their errors (several per read, many N) are what the error model's
# threshold is for
check "lambda reads with sequencing errors classify to lambda (>= 94%)" "[ $((lam * 100)) -ge $((nlam * 94)) ]"
"$facs" classify "$data/lambda_reads_1.fq" refs.bf -s 0.55 --error-rate 0 -o lambda_fixed.tsv --summary /dev/null 2> /dev/null
lam_fixed=$(awk -F'\t' '$2 == "lambda_virus"' lambda_fixed.tsv | wc -l)
echo "     lambda reads, FACS's fixed threshold 0.55 and frames: $lam_fixed of $nlam"
check "-s 0.55 --error-rate 0 is FACS's fixed rule (fewer lambda reads: 85-93%)" \
  "[ $((lam_fixed * 100)) -ge $((nlam * 85)) ] && [ $((lam_fixed * 100)) -lt $((nlam * 93)) ]"
"$facs" classify "$data/lambda_reads_1.fq" --mate "$data/lambda_reads_2.fq" refs.bf --summary both.tsv 2> /dev/null
"$facs" classify "$data/lambda_reads_1.fq" --mate "$data/lambda_reads_2.fq" --pair-mode either refs.bf --summary either.tsv 2> /dev/null
b=$(summary_field both.tsv lambda_virus 2)
e=$(summary_field either.tsv lambda_virus 2)
echo "     lambda pairs: $b (both mates) <= $e (either mate)"
check "pairs: either-mate matches at least as many as both-mates" "[ $b -le $e ] && [ $b -gt 0 ]"
# --count hll streams a reference file from disk on threads; from stdin it is held in memory: the same filter
# (HyperLogLog registers merge exactly), hence the same calls.
"$facs" build-filter --count hll -t 3 -o hll_file.bf "$data/lambda_virus.fa" $bees 2> /dev/null
{ cat "$data/lambda_virus.fa"; } | "$facs" build-filter --count hll --name lambda_virus -o hll_stdin.bf - 2> /dev/null
"$facs" build-filter --count hll --add -o hll_stdin.bf $bees 2> /dev/null
"$facs" classify "$data/lambda_reads_1.fq" hll_file.bf -o hll_file.tsv --scores --summary /dev/null 2> /dev/null
"$facs" classify "$data/lambda_reads_1.fq" hll_stdin.bf -o hll_stdin.tsv --scores --summary /dev/null 2> /dev/null
check "build-filter --count hll: streamed from the file on 3 threads = held in memory from stdin" \
  "cmp -s <(\"$facs\" info hll_file.bf | grep -v '^#') <(\"$facs\" info hll_stdin.bf | grep -v '^#' | sed 's|^lambda_virus\t-\t|lambda_virus\t$data/lambda_virus.fa\t|') &&
   cmp -s <(body hll_file.tsv) <(body hll_stdin.tsv)"

# Pairs are cut in chunks and parsed by the workers like single reads: gzip or plain, any batch size, any thread
# count, the same calls; mates out of step are one-line errors naming the record (counted by hand below).
gzip -c "$data/lambda_reads_1.fq" > lam_1.fq.gz
gzip -c "$data/lambda_reads_2.fq" > lam_2.fq.gz
"$facs" classify "$data/lambda_reads_1.fq" --mate "$data/lambda_reads_2.fq" refs.bf -o pairs_plain.tsv --scores --summary /dev/null 2> /dev/null
"$facs" classify lam_1.fq.gz --mate lam_2.fq.gz refs.bf -o pairs_gz.tsv --scores -t 3 --batch-bases 3000 --summary /dev/null 2> /dev/null
check "pairs: gzip, 3 threads, small batches give the plain single-batch calls" \
  "cmp -s <(body pairs_plain.tsv) <(body pairs_gz.tsv) && [ \$(body pairs_gz.tsv | wc -l) -eq 2001 ]"
head -n 4000 "$data/lambda_reads_2.fq" > short_2.fq  # 1000 mates
expect_exit 65 "pairs: the mate file ends first" "$facs" classify "$data/lambda_reads_1.fq" --mate short_2.fq refs.bf --batch-bases 3000 -t 2
check "  ...named: read 1001 (r1001) has no mate" "grep -q \"lambda_reads_1.fq: record 1001 ('r1001') has no mate: short_2.fq ended first\" err.txt"
{ cat "$data/lambda_reads_2.fq"; printf '@extra/2\nACGT\n+\nIIII\n'; } > long_2.fq
expect_exit 65 "pairs: the read file ends first" "$facs" classify "$data/lambda_reads_1.fq" --mate long_2.fq refs.bf --batch-bases 3000 -t 2
check "  ...named: mate 2001 has no read" "grep -q 'long_2.fq: record 2001 has no mate: .*lambda_reads_1.fq ended first' err.txt"
awk 'NR < 5997 || NR > 6000' "$data/lambda_reads_2.fq" > skip_2.fq  # mate 1500 (lines 5997-6000) left out
expect_exit 65 "pairs: mates out of step" "$facs" classify "$data/lambda_reads_1.fq" --mate skip_2.fq refs.bf --batch-bases 3000 -t 2
check "  ...named: mate record 1500 is r1501, not the mate of r1500" "grep -q \"skip_2.fq: record 1500 ('r1501') is not the mate of 'r1500'\" err.txt"

# split outputs
"$facs" classify reads.fq refs.bf --matched-out split_ --unmatched-out novel.fq.gz --summary split_summary.tsv 2> /dev/null
nov=$(( $(zcat novel.fq.gz | wc -l) / 4 ))
check "--unmatched-out holds the noMatch reads (gzip)" "[ $nov -eq $(summary_field split_summary.tsv noMatch 2) ]"
dwv=$(( $(wc -l < split_dwv.fq) / 4 ))
check "--matched-out PREFIX writes per-filter FASTQ with the reads called to it" \
  "[ $dwv -eq $(summary_field split_summary.tsv dwv 8) ] && [ -f split_multiMatch.fq ]"

# paired split outputs: mate 1 and mate 2 in two files per filter, in the same order, byte for byte as in the
# input; the folder is created. Oracle: the input records picked by the names in the mate-1 file, in input order.
"$facs" classify "$data/lambda_reads_1.fq" --mate "$data/lambda_reads_2.fq" refs.bf --matched-out pairs/sub/ \
  --unmatched-out pnovel#.fq --summary pairs_summary.tsv 2> pairs_err.txt
check "--matched-out creates missing folders and says so" \
  "[ -d pairs/sub ] && grep -q 'created folder pairs/$' pairs_err.txt && grep -q 'created folder pairs/sub/$' pairs_err.txt"
pick() { awk 'NR == FNR { if (FNR % 4 == 1) want[$1]; next } FNR % 4 == 1 { keep = ($1 in want) } keep' "$1" "$2"; }
check "pairs: no interleaved file, two per filter" \
  "[ ! -e pairs/sub/lambda_virus.fq ] && [ -s pairs/sub/lambda_virus_1.fq ] && [ -s pairs/sub/lambda_virus_2.fq ]"
for d in pairs/sub/lambda_virus pairs/sub/multiMatch pnovel; do
  check "pairs: ${d}_1.fq holds input mate-1 records byte for byte, in input order" \
    "cmp -s ${d}_1.fq <(pick ${d}_1.fq \"$data/lambda_reads_1.fq\")"
  check "pairs: ${d}_2.fq holds their mates, in the same order" "cmp -s ${d}_2.fq <(pick ${d}_1.fq \"$data/lambda_reads_2.fq\")"
done
check "pairs: the lambda files hold the pairs the summary calls lambda; all 2000 pairs written once" \
  "[ \$(( \$(wc -l < pairs/sub/lambda_virus_1.fq) / 4 )) -eq $(summary_field pairs_summary.tsv lambda_virus 8) ] &&
   [ \$(cat pairs/sub/*_1.fq pnovel_1.fq | wc -l) -eq 8000 ] && [ \$(cat pairs/sub/*_2.fq pnovel_2.fq | wc -l) -eq 8000 ]"
"$facs" classify "$data/lambda_reads_1.fq" --mate "$data/lambda_reads_2.fq" refs.bf --matched-out inter_ --interleaved \
  --summary /dev/null 2> /dev/null
check "--interleaved: one file, mate 1 then mate 2, the same records" \
  "cmp -s <(paste - - - - - - - - < inter_lambda_virus.fq | cut -f 1-4 | tr '\t' '\n') pairs/sub/lambda_virus_1.fq &&
   cmp -s <(paste - - - - - - - - < inter_lambda_virus.fq | cut -f 5-8 | tr '\t' '\n') pairs/sub/lambda_virus_2.fq"
expect_exit 64 "--interleaved without --mate" "$facs" classify reads.fq refs.bf --matched-out x_ --interleaved
echo plain > a_file
expect_exit 74 "--matched-out below a file: one-line error" "$facs" classify reads.fq refs.bf --matched-out a_file/sorted/
check "the error names the folder" "grep -q 'a_file/sorted: cannot create output folder' err.txt"
{ head -12000 reads.fq; printf '@broken\nACGT1ACGT\n+\nIIIIIIIII\n'; } > broken_late.fq
expect_exit 65 "a data error after the folder was created" "$facs" classify broken_late.fq refs.bf --matched-out made/here/
check "a failed run removes the folders it created" "[ ! -e made ]"

# --- the default layout: interleaved from 64 reference files on (pieces of lambda, so every file has k-mers of
# its own), blocked below; reads from a piece are called to it either way
mkdir -p pieces
awk '!/^>/ { s = s $0 } END { for (i = 0; i < 64; ++i) printf ">p%d\n%s\n", i, substr(s, 1 + i * 700, 700) > ("pieces/p" i ".fa") }' \
  "$data/lambda_virus.fa"
"$facs" build-filter -q -o pieces64.bf pieces/p*.fa
"$facs" build-filter -q -o pieces63.bf $(ls pieces/p*.fa | head -63)
check "64 reference files: an interleaved set by default" "\"$facs\" info pieces64.bf | grep -q '^# format_version: 3' && \
  \"$facs\" info pieces64.bf | grep -q '^# group 1: interleaved'"
check "63 reference files: blocked filters by default" "\"$facs\" info pieces63.bf | grep -q '^# format_version: 2' && \
  ! \"$facs\" info pieces63.bf | grep -q 'interleaved'"
awk 'NR == 2 { print "@from_p5\n" substr($0, 101, 100) "\n+\n" sprintf("%100s", "") }' pieces/p5.fa | tr ' ' I > piece5.fq
for bf in pieces64.bf pieces63.bf; do
  "$facs" classify piece5.fq $bf -o piece5_$bf.tsv 2> /dev/null
  check "$bf: a read from piece 5 is called to it" "awk -F'\t' '!/^#/ && \$1 == \"from_p5\" { found = \$2 == \"p5\" } END { exit !found }' piece5_$bf.tsv"
done

# --- --load map against --load copy: the same calls and summary for separate filters (version 1: classic,
# version 2: blocked) and an interleaved set (version 3), single reads and pairs, 1 and 3 threads
"$facs" build-filter -q --layout classic -o classic.bf $bees "$data/lambda_virus.fa"
"$facs" build-filter -q --layout interleaved -o inter.bf $bees "$data/lambda_virus.fa"
"$facs" build-filter -q --layout interleaved --router yes --json routed.json -o routed.bf $bees "$data/lambda_virus.fa"
check "build-filter --json describes the group router" \
  "python3 -c 'import json, sys; r = json.load(open(\"routed.json\"))[\"group_router\"]; sys.exit(not (r[\"groups\"] == 1 and r[\"blocks\"] > 0 and r[\"bytes\"] == 64 * r[\"blocks\"]))'"
check "the four versions are built" "\"$facs\" info classic.bf | grep -q '^# format_version: 1' && \
  \"$facs\" info refs.bf | grep -q '^# format_version: 2' && \"$facs\" info inter.bf | grep -q '^# format_version: 3' && \
  \"$facs\" info routed.bf | grep -q '^# format_version: 4' && \"$facs\" info routed.bf | grep -q '^# group router: '"
expect_exit 64 "--router takes auto, yes or no" "$facs" build-filter -o never.bf --layout interleaved --router maybe \
  "$data/lambda_virus.fa"
expect_exit 64 "--router applies to interleaved sets" "$facs" build-filter -o never.bf --layout blocked --router yes \
  "$data/lambda_virus.fa"
check "... and says so" "grep -q 'router applies to interleaved sets' err.txt"
for bf in classic.bf refs.bf inter.bf routed.bf; do
  for t in 1 3; do
    for load in copy map; do
      "$facs" classify reads.fq "$bf" -t $t --batch-bases 20000 --load $load -o single_$load.tsv --scores \
        --summary single_$load.sum 2> load_$load.err
      "$facs" classify "$data/lambda_reads_1.fq" --mate "$data/lambda_reads_2.fq" --pair-mode either "$bf" -t $t \
        --load $load -o pairs_$load.tsv --summary pairs_$load.sum 2>> load_$load.err
    done
    check "--load map = copy: $bf, single reads, -t $t" \
      "cmp -s <(grep -v '^#' single_copy.tsv) <(grep -v '^#' single_map.tsv) && cmp -s single_copy.sum single_map.sum && [ \$(grep -vc '^#' single_map.tsv) -eq 5000 ]"
    check "--load map = copy: $bf, pairs, -t $t" \
      "cmp -s <(grep -v '^#' pairs_copy.tsv) <(grep -v '^#' pairs_map.tsv) && cmp -s pairs_copy.sum pairs_map.sum"
    check "--load map: no checksum notice for a small file" "! grep -q checksum load_map.err"
  done
done
# two routed sets classified together: each set's router serves its own groups, so every filter's points are
# those of its set classified alone (--scores: every filter's points exact)
"$facs" build-filter -q --layout interleaved --router yes -o pieces_routed.bf pieces/p*.fa
cat reads.fq "$data/lambda_reads_1.fq" > mixed_reads.fq
"$facs" classify mixed_reads.fq routed.bf pieces_routed.bf --scores -o both.tsv --summary /dev/null 2> /dev/null
"$facs" classify mixed_reads.fq routed.bf --scores -o first.tsv --summary /dev/null 2> /dev/null
"$facs" classify mixed_reads.fq pieces_routed.bf --scores -o second.tsv --summary /dev/null 2> /dev/null
check "two routed sets together: every filter scores as in its own set" "python3 - <<'PY'
import sys
def scores(path):
    rows, head = {}, None
    for line in open(path):
        if line.startswith('# '): continue
        f = line.rstrip('\n').split('\t')
        if line.startswith('#'): head = f; continue
        rows[f[0]] = {head[i][6:]: f[i] for i in range(len(f)) if head[i].startswith('score:')}
    return rows
both, first, second = scores('both.tsv'), scores('first.tsv'), scores('second.tsv')
hits = 0
for read, s in both.items():
    alone = dict(first[read]); alone.update(second[read])
    if s != alone: sys.exit('read %s: %s != %s' % (read, s, alone))
    hits += sum(float(v) != 0 for v in s.values())
sys.exit(0 if len(both) == 7000 and hits > 1000 else 'reads %d, nonzero scores %d' % (len(both), hits))
PY"
expect_exit 64 "--load takes auto, map or copy" "$facs" classify reads.fq refs.bf --load nosuch
# info: the checksum is verified for a small file, and --verify finds a flipped payload byte in any file
check "info says the checksum was verified" "\"$facs\" info --verify inter.bf | grep -q '^# checksum: verified'"
size=$(stat -c %s inter.bf)
cp inter.bf inter_flipped.bf
printf '\x5a' | dd of=inter_flipped.bf bs=1 seek=$((size / 2)) conv=notrunc status=none
expect_exit 65 "info --verify finds a flipped payload byte" "$facs" info --verify inter_flipped.bf
check "... as a checksum mismatch naming the file" "grep -q 'inter_flipped.bf: corrupt: checksum mismatch' err.txt"
for load in map copy; do
  expect_exit 65 "--load $load refuses a flipped payload byte (small file: checksummed)" \
    "$facs" classify reads.fq inter_flipped.bf --load $load -o never.tsv
  head -c $((size - 4096)) inter.bf > inter_truncated.bf
  expect_exit 65 "--load $load refuses a truncated interleaved set" "$facs" classify reads.fq inter_truncated.bf --load $load
  check "... naming the truncation" "grep -q 'inter_truncated.bf: truncated' err.txt"
done

# short reads, N only, empty input
printf '@short\nACGTACGT\n+\nIIIIIIII\n@n\nNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNN\n+\nIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIII\n@empty\n\n+\n\n' > odd.fq
"$facs" classify odd.fq refs.bf -o odd.tsv --summary odd_summary.tsv 2> /dev/null
check "short, all-N and empty reads are unscored and counted as noMatch" \
  "[ \$(grep -c \$'\tunscored\t' odd.tsv) -eq 3 ] && [ \$(summary_field odd_summary.tsv noMatch 2) -eq 3 ]"
: > empty.fq
"$facs" classify empty.fq refs.bf -o empty.tsv --summary empty_summary.tsv 2> /dev/null
check "empty input: exit 0, zero counts" "[ \$(summary_field empty_summary.tsv noMatch 2) -eq 0 ] && [ -f empty.tsv ]"

# --- errors: one line, sysexits code, nothing half-written
expect_exit 66 "missing reads file" "$facs" classify nosuch.fq refs.bf -o never.tsv
check "no output left behind on failure" "[ ! -e never.tsv ]"
expect_exit 66 "missing filter file" "$facs" classify reads.fq nosuch.bf
head -c 1000 /dev/urandom > garbage.bf
expect_exit 65 "corrupt filter file" "$facs" classify reads.fq garbage.bf
expect_exit 64 "k-mer size differing from the run request" "$facs" classify reads.fq refs.bf -w 25
"$facs" build-filter -q -w 25 -o w25.bf "$data/lambda_virus.fa"
expect_exit 64 "filters with different k-mer sizes in one run" "$facs" classify reads.fq refs.bf w25.bf
{ head -8 reads.fq; printf '@broken\nACGT\n+\nII\n'; } > broken.fq
expect_exit 65 "malformed FASTQ names the record" "$facs" classify broken.fq refs.bf -o never.tsv
check "the error names file and record" "grep -q 'broken.fq' err.txt && grep -q 'record 3' err.txt"
check "no per-read output after a data error" "[ ! -e never.tsv ]"
# a malformed record far into the file (a later chunk) and another after it: the first is reported, as when gz
# input is parsed record by record
{ head -12000 reads.fq; printf '@broken\nACGT1ACGT\n+\nIIIIIIIII\n'; tail -n +12001 reads.fq; printf '@r\nAC\n+\nI\n'; } > late.fq
gzip -c late.fq > late.fq.gz
expect_exit 65 "malformed record in a later chunk (2 threads)" "$facs" classify late.fq refs.bf -t 2 --batch-bases 2000 -o never.tsv
cp err.txt late_err.txt
expect_exit 65 "malformed record in gz input (2 threads)" "$facs" classify late.fq.gz refs.bf -t 2 --batch-bases 2000 -o never.tsv
check "chunked and gz input name the same record and line" \
  "grep -q 'late.fq: record 3001 (line 12002)' late_err.txt && [ \"\$(sed 's/late.fq.gz/late.fq/' err.txt)\" = \"\$(cat late_err.txt)\" ]"
check "no per-read output after a late data error" "[ ! -e never.tsv ]"
head -40 "$data/lambda_reads_2.fq" > short_mates.fq
expect_exit 65 "mate file ending early" "$facs" classify "$data/lambda_reads_1.fq" --mate short_mates.fq refs.bf
expect_exit 64 "bad option value" "$facs" classify reads.fq refs.bf --score nosuch
expect_exit 64 "unknown command" "$facs" nosuch
for c in build-filter classify info; do
  check "$c --help shows examples" "\"$facs\" $c --help | grep -q Example"
done

[ $fails -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
