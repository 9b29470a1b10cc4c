#!/usr/bin/env bash
# blastn's XML (--outfmt 5, blastn -outfmt 5) and JSON (--outfmt 15) against blastn's, line for line but the version
# line (the program's name and version): gapped, ungapped, megablast and blastn-short; titles BLAST tidies and escapes (&, <,
# >), records without sequence (blastn's message naming them twice) and without hits, minus strands with gaps, E-values
# under 1e-180 (0), the statistics of queries with IUPAC codes (fifteen digits), -max_target_seqs; real genomes (the
# K. pneumoniae piece against the E. coli slice). Skipped (77) when blastn is not installed.
# JSON: the query's masked bases in lower case where a mask starts inside the alignment (as blastn), with
# -lcase_masking too (the subjects' not, as blastn), and no gap costs when ungapped.
# Usage: blast_xml_json_vs_blastn.sh BIN_DIR SRC_DIR
set -uo pipefail
command -v blastn >/dev/null 2>&1 || { echo "blastn not installed: skipped"; exit 77; }
source "$(dirname "$0")/common/lib.bash"
d="$src/data"
seq=$(grep -v '>' "$d/lambda_virus.fa" | tr -d '\n')
piece="${seq:5000:1500}"
turned=$(echo "${seq:9000:1200}" | rev | tr ACGT TGCA)
{ echo ">q1  two  spaces.."; echo "${piece:0:700}A${piece:700}"; echo ">empty  record  "; echo ">q3 turned"; echo "$turned"
  echo ">q4 no hits"; echo "ACGTTGCAACGTTGCAGGCCTTAAGGCCTTAA"; echo ">q5 IUPAC RYKM"; echo "${seq:20000:300}RYKM${seq:20300:300}"; } > queries.fa
{ echo ">s1  sub  title ,x.."; echo "${seq:0:12000}"; echo ">s2"; echo "${seq:18000:4000}"; echo ">s3 a&b <c>"; echo "$piece"; } > subjects.fa
same_xml() {  # name min_lines args...: blastn's XML but its BlastOutput_version
  local name="$1" min="$2"
  shift 2
  same_output_but_version "$name" "$min" '<BlastOutput_version>' "$@" -outfmt 5
}
same_xml "gapped (-task blastn)"            300 -task blastn -query queries.fa -subject subjects.fa
check "escaped titles, the empty record's message" \
  "grep -q '<Hit_def>s3 a&amp;b &lt;c&gt;</Hit_def>' got && grep -q 'Sequence contains no data  No hits found' got"
same_xml "-dust no, two threads"            300 -task blastn -dust no -num_threads 2 -query queries.fa -subject subjects.fa
same_xml "ungapped"                         300 -task blastn -ungapped -sum_stats false -query queries.fa -subject subjects.fa
same_xml "megablast (blastn's default task)" 200 -query queries.fa -subject subjects.fa
same_xml "blastn-short, -evalue"            200 -task blastn-short -evalue 1e-5 -query queries.fa -subject subjects.fa
same_xml "-max_target_seqs 1"               100 -task blastn -max_target_seqs 1 -query queries.fa -subject subjects.fa
same_xml "the K. pneumoniae piece against the E. coli slice" 150 -task blastn \
  -query "$d/kpneumoniae_hs11286_145k.fa" -subject "$d/ecoli_536_200k.fa"
same_xml "bee viruses (E-values under 1e-180)" 50 -task blastn -query "$d/bee-viruses/vdv1.fa" -subject "$d/bee-viruses/dwv.fa"
check "an E-value under 1e-180 is 0" "grep -q '<Hsp_evalue>0</Hsp_evalue>' got"
same_json() {  # name min_lines args...: blastn's JSON but its version line
  local name="$1" min="$2"
  shift 2
  same_output_but_version "JSON: $name" "$min" '"version": "BLASTN ' "$@" -outfmt 15
}
same_json "gapped (-task blastn)"           300 -task blastn -query queries.fa -subject subjects.fa
check "JSON: masked query bases in lower case" "grep -q '\"qseq\": \"[A-Z-]*[acgt]' got && grep -q query_masking got"
same_json "ungapped"                        300 -task blastn -ungapped -sum_stats false -query queries.fa -subject subjects.fa
same_json "megablast, -lcase_masking"       200 -lcase_masking -query queries.fa -subject subjects.fa
same_json "blastn-short, two threads"       200 -task blastn-short -evalue 1e-5 -num_threads 2 -query queries.fa -subject subjects.fa
same_json "the K. pneumoniae piece against the E. coli slice" 150 -task blastn \
  -query "$d/kpneumoniae_hs11286_145k.fa" -subject "$d/ecoli_536_200k.fa"
same_json "bee viruses, ungapped (a mask that starts before the alignment)" 100 -task blastn -ungapped \
  -sum_stats false -query "$d/bee-viruses/vdv1.fa" -subject "$d/bee-viruses/dwv.fa"
expect_exit 64 "--outfmt 15 with columns refused" "$bin/blast-bloom" --outfmt "15 qseqid" queries.fa subjects.fa
expect_exit 64 "--outfmt 5 with shards refused" "$bin/blast-bloom" --outfmt 5 --db-shard 1/2 queries.fa subjects.fa -o part
[ "$fails" -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "all checks passed"
