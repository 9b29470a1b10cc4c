#!/usr/bin/env bash
# The pairwise report (--outfmt 0, blastn's default output) against blastn's, byte for byte but the first line
# (the program's name and version): gapped, ungapped, megablast and blastn-short; several subjects with titles that
# BLAST tidies (doubled blanks, trailing dots, a semicolon), minus-strand alignments with gaps, N and R in both,
# DUST-masked query bases and, with -lcase_masking, soft-masked bases of both shown in lower case, a query record without sequence and one without hits, long titles
# wrapped, -max_target_seqs, -num_descriptions and -num_alignments, two threads; and real genomes (the E. coli slice against K. pneumoniae's piece).
# Skipped (77) when blastn is not installed.
# Usage: blast_pairwise_vs_blastn.sh BIN_DIR SRC_DIR
set -uo pipefail
command -v blastn >/dev/null 2>&1 || { echo "blastn not installed: skipped"; exit 77; }
source "$(dirname "$0")/common/lib.bash"
d="$src/data"
# A subject of lambda's first 6 kbases with a dinucleotide repeat and a poly-A run put in, a copy with N and R in
# it; queries: a piece turned round with substitutions, an N, an R, an insertion and a deletion, the same piece
# unturned, a record without sequence, one without hits, one under a very long title.
seq=$(grep -v '>' "$d/lambda_virus.fa" | tr -d '\n')
subject="${seq:0:1500}CACACACACACACACACACACACACACACACACACACACA${seq:1500:1500}AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA${seq:3000:800}"
piece="${subject:1200:2200}"
edited=$(echo "$piece" | awk '{ s = $0; out = ""; for (i = 1; i <= length(s); i++) { c = substr(s, i, 1)
  if (i % 97 == 0) c = (c == "A" ? "C" : "A"); if (i == 301) c = "N"; if (i == 501) c = "R"
  if (i == 701) out = out "GTA"; if (i == 1001 || i == 1002) continue; out = out c } print out }')
turned=$(echo "$edited" | rev | tr ACGTNR TGCANY)
{ echo ">subj1 synthetic subject, with repeats;  and  spaces .."; echo "${subject:0:2000}NNNNRY${subject:2000}"
  echo ">subj2 second copy (the plus strand)"; echo "$subject"; } > subjects.fa
{ echo ">qrc reverse complement with edits"; echo "$turned"; echo ">qplus the same piece"; echo "$edited"
  echo ">empty a record without sequence"; echo ">nohits"; echo "ACGTTGCAACGTTGCAGGCCTTAAGGCCTTAA"
  echo ">long title $(printf 'word%.0s ' $(seq 1 30))end"; echo "${subject:100:400}"; } > queries.fa
same_report() {  # name min_lines args...: the report but its first line (BLASTN and the version)
  local name="$1" min="$2"
  shift 2
  same_output_but_version "$name" "$min" '^BLASTN ' "$@"
}
same_report "gapped (-task blastn)"           700 -task blastn -query queries.fa -subject subjects.fa
check "masked query bases in lower case" "grep -q '^Query .*cacacacaca' got"
check "minus-strand alignments" "grep -q 'Strand=Plus/Minus' got"
check "the record without sequence and the one without hits" \
  "[ \$(grep -c '^\*\*\*\*\* No hits found' got) -eq 2 ] && grep -q '^Length=0$' got"
same_report "-dust no, two threads"           700 -task blastn -dust no -num_threads 2 -query queries.fa -subject subjects.fa
same_report "ungapped"                        300 -task blastn -ungapped -sum_stats false -query queries.fa -subject subjects.fa
same_report "megablast (blastn's default task)" 300 -query queries.fa -subject subjects.fa
same_report "blastn-short, -evalue"           300 -task blastn-short -evalue 1e-5 -query queries.fa -subject subjects.fa
# Soft-masked copies (lower case in both): -lcase_masking shows the query's and the subjects' lower case, also when
# the subjects come in windows (--batch) or from stdin.
awk '/^>/ { print; next } { print tolower(substr($0, 1, 150)) substr($0, 151, 650) tolower(substr($0, 801, 5)) substr($0, 806) }' \
  queries.fa > soft_queries.fa
awk '/^>/ { print; next } { print substr($0, 1, 1300) tolower(substr($0, 1301, 60)) substr($0, 1361, 1640) tolower(substr($0, 3001, 100)) substr($0, 3101) }' \
  subjects.fa > soft_subjects.fa
same_report "-lcase_masking: lower case shown in both" 500 -task blastn -lcase_masking -query soft_queries.fa -subject soft_subjects.fa
check "subjects' lower case in the alignments" "grep -q '^Sbjct .*[acgt]' got"
"$bin/blast-bloom" -task blastn -lcase_masking -query soft_queries.fa -subject - --batch 1K < soft_subjects.fa > windows 2> err
check "-lcase_masking: subjects in windows from stdin: the same report" \
  "diff <(grep -v -e '^Database: User' -e '^  Database: User' -e '^soft_subjects' -e '^/' got) <(grep -v -e '^Database: User' -e '^  Database: User' -e '^-)' windows) > /dev/null"
same_report "-max_target_seqs 1"              200 -task blastn -max_target_seqs 1 -query queries.fa -subject subjects.fa
# 300 lambda reads as subjects: the table's and the alignments' counts.
awk 'NR % 4 == 1 { print ">" substr($1, 2) } NR % 4 == 2 { print }' "$d/lambda_reads_1.fq" | head -600 > reads.fa
same_report "300 subjects, blastn's 250 alignments"  4000 -task blastn -query "$d/lambda_virus.fa" -subject reads.fa
same_report "-num_descriptions 4 -num_alignments 7" 250 -task blastn -num_descriptions 4 -num_alignments 7 \
  -query "$d/lambda_virus.fa" -subject reads.fa
same_report "-num_descriptions 0"             4000 -task blastn -num_descriptions 0 -query "$d/lambda_virus.fa" -subject reads.fa
same_report "-num_alignments 0"               300 -task blastn -num_alignments 0 -query "$d/lambda_virus.fa" -subject reads.fa
same_report "--outfmt 0 with our own options" 200 -task blastn -query queries.fa -subject subjects.fa -outfmt 0 -evalue 1e-50
same_report "lambda against the E. coli slice (E-values over 0.01)" 60 -task blastn -evalue 1 \
  -query "$d/lambda_virus.fa" -subject "$d/ecoli_536_200k.fa"
same_report "the K. pneumoniae piece against the E. coli slice" 150 -task blastn \
  -query "$d/kpneumoniae_hs11286_145k.fa" -subject "$d/ecoli_536_200k.fa"
same_report "bee viruses against each other (long alignments)" 700 -task blastn -evalue 1e-30 \
  -query "$d/bee-viruses/vdv1.fa" -subject "$d/bee-viruses/dwv.fa"
# Our own command line: the same report under --outfmt 0.
"$bin/blast-bloom" --outfmt 0 --dust no queries.fa subjects.fa > ours 2> err
blastn -task blastn -dust no -query queries.fa -subject subjects.fa > want 2> /dev/null
check "blast-bloom --outfmt 0 QUERY DB = blastn -task blastn -dust no" "diff <(tail -n +2 want) <(tail -n +2 ours) > /dev/null"
expect_exit 64 "--outfmt 0 with columns refused" "$bin/blast-bloom" --outfmt "0 qseqid" queries.fa subjects.fa
expect_exit 64 "--outfmt 0 with shards refused" "$bin/blast-bloom" --outfmt 0 --db-shard 1/2 queries.fa subjects.fa -o part
[ "$fails" -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "all checks passed"
