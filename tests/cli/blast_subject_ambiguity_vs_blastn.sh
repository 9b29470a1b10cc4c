#!/usr/bin/env bash
# Subjects with ambiguity codes, against blastn: blastn seeds and extends a -subject sequence on pseudo-random bases
# at its N and other IUPAC codes (subject_bases.hpp) and reads the true codes only for the final alignments, so a
# seed next to an N or inside a run of N is blastn's only if blast-bloom draws the same bases, and an alignment
# through an IUPAC code scores as blastn's only with BLAST's matrix for it (nucleotide_score.hpp). Gapped output line for line; ungapped
# output (blastn -ungapped -sum_stats false) after sorting, as in blast_vs_blastn.sh. FASTA and .2bit subjects, one
# batch and windows of a record longer than --batch. Skipped (77) when blastn is not installed.
# Usage: blast_subject_ambiguity_vs_blastn.sh BIN_DIR SRC_DIR
set -euo pipefail
command -v blastn >/dev/null 2>&1 || { echo "blastn not installed: skipped"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "python3 not installed: skipped"; exit 77; }
source "$(dirname "$0")/common/lib.bash"
# lambda with a 300-base gap of N, a run of 12 n, and single N every 37 bases over 10 kbases; queries around them.
python3 - "$src/data/lambda_virus.fa" "$tmp" <<'PY'
import sys
seq = ''.join(open(sys.argv[1]).read().split('\n')[1:]).upper()
s = list(seq)
for i in range(5000, 5300): s[i] = 'N'
for i in range(20000, 20012): s[i] = 'n'
for i in range(30000, 40000, 37): s[i] = 'N'
for i in range(10000, 10500): s[i] = s[i].lower()
def fasta(name, t): return '>' + name + '\n' + '\n'.join(t[i:i + 70] for i in range(0, len(t), 70)) + '\n'
open(sys.argv[2] + '/subject.fa', 'w').write(fasta('lambda_gaps', ''.join(s)))
# The same with other IUPAC codes as well: some allowing the true base (scored as BLAST's matrix scores a partly
# matching code), some not (the penalty).
allowing = {'A': 'RMWVHD', 'C': 'YMSBVH', 'G': 'RKSBVD', 'T': 'YKWBHD'}
for k, i in enumerate(range(41000, 43000, 37)): s[i] = allowing[s[i].upper()][k % 6]
for k, i in enumerate(range(43001, 44000, 53)): s[i] = 'RYKM'[k % 4]
open(sys.argv[2] + '/subject_iupac.fa', 'w').write(fasta('lambda_codes', ''.join(s)))
open(sys.argv[2] + '/query.fa', 'w').write(fasta('around_gaps', seq[4000:7000] + seq[19000:21000]) +
                                           fasta('around_ns', seq[29000:45000]))
PY
"$bin/blast-bloom" encode "$tmp/subject.fa" -o "$tmp/subject.2bit"
compare() { compare_with_blastn "$@"; }  # name query subject(blastn) subject(blast-bloom) min sorted blastn_opts -- ours
# The first 200 kbases of E. coli against DWV (69 scattered N): a seed at DWV 1,135 extends over the N at 1,134.
# Read as an ambiguity code there, its ungapped extension reached the gap trigger and gave a line of E 0.14 that
# blastn does not print.
compare "E. coli 200k vs DWV"  "$src/data/ecoli_536_200k.fa" "$src/data/bee-viruses/dwv.fa" \
  "$src/data/bee-viruses/dwv.fa" 8 no --
s="$tmp/subject.fa"; b="$tmp/subject.2bit"; q="$tmp/query.fa"
compare "gapped, FASTA"                 "$q" "$s" "$s" 30 no --
compare "gapped, FASTA, 2 threads"      "$q" "$s" "$s" 30 no -- -t 2
compare "gapped, .2bit"                 "$q" "$s" "$b" 30 no --
compare "gapped, windows of 4 kbases"   "$q" "$s" "$s" 30 no -- -t 2 --batch 4096
compare "gapped, .2bit windows"         "$q" "$s" "$b" 30 no -- --batch 4096
compare "ungapped, FASTA"               "$q" "$s" "$s" 30 yes -ungapped -sum_stats false -- --ungapped
compare "ungapped, windows of 4 kbases" "$q" "$s" "$b" 30 yes -ungapped -sum_stats false -- --ungapped --batch 4096
i="$tmp/subject_iupac.fa"
compare "IUPAC codes, gapped"                 "$q" "$i" "$i" 30 no --
compare "IUPAC codes, gapped, windows, 1/-2"  "$q" "$i" "$i" 25 no -reward 1 -penalty -2 -- --reward 1 --penalty=-2 \
  --batch 4096 -t 2
compare "IUPAC codes, ungapped"               "$q" "$i" "$i" 30 yes -ungapped -sum_stats false -- --ungapped
[[ $fails -eq 0 ]]
