#!/usr/bin/env bash
# --outfmt with blastn's column names: every supported column must print what blastn -outfmt "6 ..." prints for
# the same alignments (identifiers, lengths, qcovhsp's rounding, ppos, raw score, sstrand, btop), formats 7 (comment
# lines) and 10 (commas) as blastn's, and what blast-bloom cannot print must be refused. Skipped (77) when blastn
# is not installed.
# Usage: blast_outfmt.sh BIN_DIR SRC_DIR
set -uo pipefail
bin="$1"; src="$2"
command -v blastn >/dev/null 2>&1 || { echo "blastn not installed: skipped"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bee="$src/data/bee-viruses"
fails=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fails=$((fails + 1)); fi; }
# both QUERY SUBJECT OUTFMT [ungapped]: blastn -task blastn -dust no into $tmp/want, blast-bloom into $tmp/got.
both() {
  local bl=() bb=()
  [ "${4:-}" = ungapped ] && bl=(-ungapped -sum_stats false) && bb=(--ungapped)
  blastn -task blastn -dust no "${bl[@]}" -query "$1" -subject "$2" -outfmt "$3" 2>/dev/null > "$tmp/want"
  "$bin/blast-bloom" --no-header --no-progress --dust no "${bb[@]}" --outfmt "$3" "$1" "$2" > "$tmp/got"
}

cols="qseqid sseqid pident length mismatch gapopen qstart qend sstart send evalue bitscore qlen slen qcovhsp score
      nident gaps positive ppos sstrand qacc sacc qaccver saccver qcovs btop"
cols=$(echo $cols)
# Versioned accessions as plain identifiers, and a 3-kb query whose HSPs cover 33%, ~1% and <1% of it (qcovhsp's
# rounding), against a 4-kb subject that overlaps it by 1 kb.
seq=$(grep -v '>' "$src/data/lambda_virus.fa" | tr -d '\n')
{ echo ">NC_001416.1 lambda 1-3000"; echo "${seq:0:3000}" | fold -w 70; } > "$tmp/q.fa"
{ echo ">AB012345.2 lambda 2001-6000"; echo "${seq:2000:4000}" | fold -w 70; } > "$tmp/s.fa"
pairs=("$tmp/q.fa $tmp/s.fa" "$bee/vdv1.fa $bee/vdv1dwv5.fa" "$bee/vdv1dwv9.fa $bee/dwv.fa" "$tmp/q.fa $bee/vdv1.fa")
total=0
for pair in "${pairs[@]}"; do
  read -r q s <<< "$pair"
  both "$q" "$s" "6 $cols"
  n=$(wc -l < "$tmp/want"); total=$((total + n))
  check "$(basename "$q") vs $(basename "$s"): $n lines, all $(echo $cols | wc -w) columns as blastn" \
    "cmp -s $tmp/want $tmp/got || { diff $tmp/want $tmp/got | head -5; false; }"
done
check "the pairs give alignments to compare ($total)" "[ $total -ge 20 ]"
# qcovs: the union of a subject's alignments over the query, with many subjects and overlapping alignments.
awk 'NR % 4 == 1 { print ">" substr($1, 2) } NR % 4 == 2 { print }' "$src/data/lambda_reads_1.fq" > "$tmp/reads.fa"
for pair in "$src/data/lambda_virus.fa $tmp/reads.fa" "$src/data/ecoli_536_200k.fa $src/data/ecoli_536_200k.fa"; do
  read -r q s <<< "$pair"
  both "$q" "$s" "6 qseqid sseqid qstart qend qcovs qcovhsp"
  check "qcovs, $(basename "$q") vs $(basename "$s"): $(wc -l < "$tmp/want") lines as blastn" \
    "[ \$(wc -l < $tmp/want) -ge 100 ] && cmp -s $tmp/want $tmp/got"
done
# qseq and sseq: the aligned letters with '-' for gaps, a minus-strand alignment turned to the query's plus strand,
# IUPAC codes as they are; gapped and ungapped, over reads (indels) and E. coli's repeats.
seq=$(grep -v '>' "$src/data/lambda_virus.fa" | tr -d '\n')
rc=$(echo "${seq:1000:60}" | rev | tr ACGT TGCA)
{ echo ">q"; echo "${seq:1000:30}R${seq:1031:29}"; } > "$tmp/qs.fa"
{ echo ">s"; echo "${seq:500:500}${rc:0:20}GG${rc:20}${seq:2000:500}"; } > "$tmp/ss.fa"
cols="6 qseqid sseqid qstart qend sstart send qseq sseq btop"
for pair in "$tmp/qs.fa $tmp/ss.fa" "$src/data/lambda_virus.fa $tmp/reads.fa" "$src/data/ecoli_536_200k.fa $src/data/ecoli_536_200k.fa"; do
  read -r q s <<< "$pair"
  for mode in gapped ungapped; do
    both "$q" "$s" "$cols" "$mode"
    check "qseq/sseq, $(basename "$q") vs $(basename "$s"), $mode: $(wc -l < "$tmp/want") lines as blastn" \
      "[ \$(wc -l < $tmp/want) -ge 1 ] && cmp -s $tmp/want $tmp/got"
  done
done
"$bin/blast-bloom" --no-header --no-progress --dust no --outfmt "$cols" "$tmp/qs.fa" "$tmp/ss.fa" > "$tmp/got"
check "qseq/sseq: the designed pair is a minus-strand alignment with a gap and an R" \
  "awk -F'\t' '\$5 > \$6 && \$7 ~ /R/ && \$7 ~ /--/' $tmp/got | grep -q ."
check "btop: the designed pair's has a gap and the R against the subject's base" \
  "awk -F'\t' '\$5 > \$6 && \$9 ~ /-[ACGT]/ && \$9 ~ /R[ACGT]/' $tmp/got | grep -q ."

# Format 7: blastn's comment lines for every query (one without sequence, one without hits, titles with runs of
# blanks, a tab and a trailing blank), gapped, ungapped and megablast; only the program line differs, by design.
{ echo ">q1  first  two   spaces "; echo "${seq:100:300}"; echo ">e1 empty"; echo ">q2 no hits"
  echo "ACGTACGTAGCTAGCTAGCATCGATCGACTAGCATCGACTAGCAT"; echo ">q3 third$(printf '\t')after a tab"; echo "${seq:5000:400}"
} > "$tmp/q7.fa"
{ echo ">s1 subject one"; echo "${seq:0:6000}"; echo ">s2"; echo "${seq:4000:2000}"; } > "$tmp/s7.fa"
for mode in "gapped" "ungapped" "megablast"; do
  bl=(-task blastn); bb=()
  [ "$mode" = ungapped ] && bl=(-task blastn -ungapped -sum_stats false) && bb=(--ungapped)
  [ "$mode" = megablast ] && bl=(-task megablast) && bb=(--task megablast)
  for fmt in "7" "7 qseqid sseqid evalue qcovs btop length"; do
    blastn "${bl[@]}" -dust no -query "$tmp/q7.fa" -subject "$tmp/s7.fa" -outfmt "$fmt" 2>/dev/null > "$tmp/want"
    "$bin/blast-bloom" --no-progress --dust no "${bb[@]}" --outfmt "$fmt" "$tmp/q7.fa" "$tmp/s7.fa" 2>/dev/null > "$tmp/got"
    check "--outfmt '$fmt', $mode: blastn's $(wc -l < "$tmp/want") lines but the program's" \
      "[ \$(grep -c '^# 0 hits found' $tmp/want) -eq 2 ] && [ \$(grep -c '^# BLASTN blast-bloom ' $tmp/got) -eq 4 ] &&
       diff <(grep -v '^# BLASTN' $tmp/want) <(grep -v '^# BLASTN' $tmp/got) > /dev/null"
  done
done
# The columns whose values blastn -subject fixes for FASTA: GIs 0, titles N/A, the query frame 1, the subject's the
# strand (blastn 2.12 prints an uninitialised query frame in `frames` unless qframe is asked for too: not compared).
cols="6 qseqid sseqid sallseqid sallacc sgi sallgi stitle salltitles qframe sframe frames sstart send"
for pair in "$tmp/qs.fa $tmp/ss.fa" "$src/data/lambda_virus.fa $tmp/reads.fa"; do
  read -r q s <<< "$pair"
  both "$q" "$s" "$cols"
  check "ids, GIs, titles and frames, $(basename "$q") vs $(basename "$s"): $(wc -l < "$tmp/want") lines as blastn" \
    "[ \$(wc -l < $tmp/want) -ge 1 ] && cmp -s $tmp/want $tmp/got && grep -q '1/-1' $tmp/got"
done
# Format 10 and repeated columns (printed once, where first named, as blastn does).
for fmt in "10" "10 qseqid sseqid btop evalue qseq pident" "6 qseqid qseqid length std qseqid" "10 std std"; do
  both "$bee/vdv1.fa" "$bee/dwv.fa" "$fmt"
  check "--outfmt '$fmt': $(wc -l < "$tmp/want") lines as blastn" "[ \$(wc -l < $tmp/want) -ge 5 ] && cmp -s $tmp/want $tmp/got"
done
"$bin/blast-bloom" --no-progress --outfmt "10 qseqid evalue" "$bee/vdv1.fa" "$bee/dwv.fa" > "$tmp/csv"
check "format 10's header line names the columns with commas" "[ \"\$(head -1 $tmp/csv)\" = '# qseqid,evalue' ]"
blastn -task blastn -dust no -query "$tmp/q.fa" -subject "$tmp/s.fa" -outfmt "6 qcovhsp" > "$tmp/cov"
check "qcovhsp: 33, 1 and 0 among blastn's values for the lambda pair" \
  "grep -qx 33 $tmp/cov && grep -qx 1 $tmp/cov && grep -qx 0 $tmp/cov"

# "6" alone and "6 std" are the default 12 columns.
"$bin/blast-bloom" --no-progress "$bee/vdv1.fa" "$bee/vdv1dwv5.fa" > "$tmp/default"
"$bin/blast-bloom" --no-progress --outfmt "6 std" "$bee/vdv1.fa" "$bee/vdv1dwv5.fa" > "$tmp/std"
"$bin/blast-bloom" --no-progress --outfmt 6 "$bee/vdv1.fa" "$bee/vdv1dwv5.fa" > "$tmp/six"
check "'6 std' and '6' equal the default output" "cmp -s $tmp/default $tmp/std && cmp -s $tmp/default $tmp/six"
"$bin/blast-bloom" --no-progress --outfmt "6 qseqid slen qcovhsp" "$bee/vdv1.fa" "$bee/vdv1dwv5.fa" > "$tmp/three"
check "the header names the chosen columns" "[ \"\$(head -1 $tmp/three)\" = \"# qseqid\$(printf '\t')slen\$(printf '\t')qcovhsp\" ]"

# Refused: other formats, unknown or unsupported columns, columns with --stage 1a/1b (usage error, no output).
for bad in "8" "5 qseqid" "7 qseqid qcovus" "6 qseqid staxids" "6 nonsense" "" "10 sscinames"; do
  "$bin/blast-bloom" --no-progress --outfmt "$bad" -o "$tmp/bad.tsv" "$bee/vdv1.fa" "$bee/vdv1dwv5.fa" 2> "$tmp/err"
  rc=$?
  check "--outfmt '$bad' refused (exit 64, one line, no output)" \
    "[ $rc -eq 64 ] && [ \$(wc -l < $tmp/err) -eq 1 ] && grep -q -- '--outfmt' $tmp/err && [ ! -e $tmp/bad.tsv ]"
done
"$bin/blast-bloom" --no-progress --stage 1b --outfmt "6 qseqid" "$bee/vdv1.fa" "$bee/vdv1dwv5.fa" > /dev/null 2> "$tmp/err"
check "--outfmt with --stage 1b refused" "[ $? -eq 64 ]"
"$bin/blast-bloom" --no-progress --no-header --outfmt 7 "$bee/vdv1.fa" "$bee/vdv1dwv5.fa" > /dev/null 2> "$tmp/err"
check "--outfmt 7 with --no-header refused" "[ $? -eq 64 ] && grep -q -- '--outfmt 7' $tmp/err"
[ "$fails" -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "all checks passed"
