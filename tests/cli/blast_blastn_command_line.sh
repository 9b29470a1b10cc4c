#!/usr/bin/env bash
# blastn's own command line: blast-bloom run with exactly the arguments given to blastn must print blastn's output
# (blastn's default task megablast when -task is absent, no header line, -out, the query on stdin without -query,
# custom columns, format 7 but its program line), and blastn options it cannot honour must be refused (exit 64, one
# line naming the option, no output file). Skipped (77) when blastn is not installed.
# Usage: blast_blastn_command_line.sh BIN_DIR SRC_DIR
set -uo pipefail
command -v blastn >/dev/null 2>&1 || { echo "blastn not installed: skipped"; exit 77; }
source "$(dirname "$0")/common/lib.bash"
d="$src/data"
bees="$d/bee-viruses"
# Lambda pieces, one turned round, against the E. coli slice and lambda.
seq=$(grep -v '>' "$d/lambda_virus.fa" | tr -d '\n')
{ echo ">piece1 from lambda"; echo "${seq:1000:3000}"; echo ">piece2"; echo "${seq:20000:2000}" | rev | tr ACGT TGCA
  echo ">short"; echo "${seq:30000:40}"; } > q.fa
same() {  # name args...: blastn ARGS and blast-bloom ARGS print the same lines
  local name="$1"; shift
  blastn "$@" > want 2> /dev/null
  "$bin/blast-bloom" "$@" > got 2> err
  same_as_blastn "$name" 1 want got
}
same "default task (megablast), -outfmt 6"      -query q.fa -subject "$d/lambda_virus.fa" -outfmt 6
same "-task blastn, columns, -evalue"           -task blastn -query q.fa -subject "$d/lambda_virus.fa" \
  -outfmt "6 qseqid sseqid pident length qstart qend sstart send evalue bitscore qlen slen btop" -evalue 1e-20
same "-task blastn, -dust no, -strand minus"    -task blastn -dust no -strand minus -query q.fa -subject "$d/lambda_virus.fa" -outfmt 6
same "-task blastn-short, -max_target_seqs"     -task blastn-short -query q.fa -subject "$d/ecoli_536_200k.fa" \
  -outfmt "6 std qlen" -max_target_seqs 3 -max_hsps 2
same "scores, gap costs, -num_threads 2"        -task blastn -word_size 9 -reward 1 -penalty -2 -gapopen 2 -gapextend 1 \
  -num_threads 2 -query "$bees/vdv1.fa" -subject "$bees/dwv.fa" -outfmt 10
same "-ungapped -sum_stats false, -perc_identity" -task blastn -ungapped -sum_stats false -perc_identity 85 \
  -query "$bees/vdv1.fa" -subject "$bees/vdv1dwv5.fa" -outfmt 6
check "no note on stderr when -outfmt is given" "[ ! -s err ]"
awk 'NR % 4 == 1 { print ">" substr($1, 2) } NR % 4 == 2 { print }' "$d/lambda_reads_1.fq" | head -400 > reads.fa
same "-num_alignments (= -max_target_seqs for tabular output)" -task blastn -query "$d/lambda_virus.fa" -subject reads.fa \
  -outfmt 6 -num_alignments 3
check "-num_alignments 3: three subjects" "[ \$(cut -f2 got | sort -u | wc -l) -eq 3 ]"
same "-num_descriptions (ignored for tabular output, as blastn)" -task blastn -query "$d/lambda_virus.fa" -subject reads.fa \
  -outfmt 6 -num_descriptions 3
check "-num_descriptions: one note on stderr" "[ \$(wc -l < err) -eq 1 ] && grep -q num_descriptions err"
# -dbsize and -searchsp: E-values and cut-offs of a larger (or smaller) search, gapped, ungapped and megablast,
# over the E. coli slice against itself and the four bee viruses against themselves (several subjects).
for f in "$bees"/*.fa; do cat "$f"; echo; done | grep -v '^$' > bees.fa
for pair in "$d/ecoli_536_200k.fa" "bees.fa"; do
  for extra in "-dbsize 1000000" "-dbsize 100000000" "-searchsp 100000000000" "-searchsp 1000000"; do
    read -r opt val <<< "$extra"
    same "$(basename "$pair") against itself, $extra"             -task blastn -query "$pair" -subject "$pair" -outfmt 6 "$opt" "$val"
    [ "$opt" = -dbsize ] && same "$(basename "$pair") against itself, $extra, ungapped" -task blastn -ungapped \
      -sum_stats false -query "$pair" -subject "$pair" -outfmt 6 "$opt" "$val"
    same "$(basename "$pair") against itself, $extra, megablast"  -query "$pair" -subject "$pair" -outfmt 6 "$opt" "$val"
  done
done
"$bin/blast-bloom" --no-header --no-progress --searchsp 1000000 bees.fa bees.fa > got
blastn -task blastn -query bees.fa -subject bees.fa -outfmt 6 -searchsp 1000000 > want 2> /dev/null
same_as_blastn "--searchsp, blast-bloom's own spelling" 100 want got
expect_exit 64 "-num_alignments with -max_target_seqs (as blastn)" "$bin/blast-bloom" -num_alignments 2 \
  -max_target_seqs 3 -query bees.fa -subject bees.fa
expect_exit 64 "--dbsize that is not a whole number" "$bin/blast-bloom" --dbsize 1e9 bees.fa bees.fa
expect_exit 64 "-searchsp with -ungapped (not reproduced)" "$bin/blast-bloom" -ungapped -sum_stats false -searchsp 1000 \
  -query bees.fa -subject bees.fa
# The query on stdin (no -query), -out.
blastn -subject "$d/lambda_virus.fa" -outfmt 6 -out want < q.fa 2> /dev/null
"$bin/blast-bloom" -subject "$d/lambda_virus.fa" -outfmt 6 -out got < q.fa
same_as_blastn "the query on stdin, -out FILE" 1 want got
# Format 7: blastn's lines but each block's program line.
blastn -task blastn -query q.fa -subject "$d/lambda_virus.fa" -outfmt 7 2> /dev/null > want
"$bin/blast-bloom" -task blastn -query q.fa -subject "$d/lambda_virus.fa" -outfmt 7 > got
check "-outfmt 7: blastn's $(wc -l < want) lines but the program's" \
  "diff <(grep -v '^# BLASTN' want) <(grep -v '^# BLASTN' got) > /dev/null && [ \$(grep -c '^# BLASTN blast-bloom' got) -eq 3 ]"
# Without -outfmt both write blastn's pairwise report (tests/cli/blast_pairwise_vs_blastn.sh checks it in depth).
blastn -query q.fa -subject "$d/lambda_virus.fa" > want 2> /dev/null
"$bin/blast-bloom" -query q.fa -subject "$d/lambda_virus.fa" > got 2> err
check "no -outfmt: blastn's pairwise report but its first line, nothing on stderr" \
  "diff <(tail -n +2 want) <(tail -n +2 got) > /dev/null && head -1 got | grep -q '^BLASTN blast-bloom [0-9]' && [ ! -s err ]"
# Refused: one line naming the option, exit 64, nothing written.
for bad in "-db nt" "-ungapped" "-sum_stats true" "-culling_limit 1" "-subject_besthit" "-query_loc 1-100" \
           "-window_size 40" "-dust 30 64 1" "-soft_masking false" "-outfmt 4"; do
  rm -f out.tsv
  read -r opt val <<< "$bad"
  args=("$opt"); [ -n "$val" ] && args+=("$val")
  expect_exit 64 "blastn's $bad refused" "$bin/blast-bloom" -query q.fa -subject "$d/lambda_virus.fa" "${args[@]}" -out out.tsv
  check "blastn's $bad: nothing written" "[ ! -e out.tsv ]"
done
[ "$fails" -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "all checks passed"
