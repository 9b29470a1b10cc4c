#!/usr/bin/env bash
# Sequences in the RNA alphabet against blastn: blastn reads U as T, so an RNA query (an rRNA from a database
# written in U) finds its gene with the same lines as the DNA query. Before, blast-bloom read U as N: 76.5% identity
# where blastn printed 100%. Queries and subjects in U (upper and lower case), gapped and ungapped, both strands,
# FASTA and .2bit subjects. Skipped (77) when blastn is not installed.
# Usage: blast_rna_vs_blastn.sh BIN_DIR SRC_DIR
set -euo pipefail
command -v blastn >/dev/null 2>&1 || { echo "blastn not installed: skipped"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "python3 not installed: skipped"; exit 77; }
source "$(dirname "$0")/common/lib.bash"
python3 - "$src/data/lambda_virus.fa" "$src/data/ecoli_536_200k.fa" "$tmp" <<'PY'
import sys
def read(path):
    return ''.join(l.strip() for l in open(path) if not l.startswith('>')).upper()
def fasta(name, t): return '>' + name + '\n' + '\n'.join(t[i:i + 70] for i in range(0, len(t), 70)) + '\n'
def rc(t): return t[::-1].translate(str.maketrans('ACGT', 'TGCA'))
lam, ecoli, out = read(sys.argv[1]), read(sys.argv[2]), sys.argv[3]
def rna(t): return t.replace('T', 'U')
# Pieces of lambda, one reverse-complemented (a minus-strand hit), one in lower case, one with a few changes.
pieces = [('plus_upper', rna(lam[1000:4000])), ('minus', rna(rc(lam[20000:23000]))),
          ('lower', rna(lam[30000:32000]).lower()),
          ('changed', rna(''.join('C' if i % 97 == 0 and c != 'C' else c for i, c in enumerate(lam[40000:44000]))))]
open(out + '/q_rna.fa', 'w').write(''.join(fasta(n, t) for n, t in pieces))
open(out + '/q_dna.fa', 'w').write(''.join(fasta(n, t.replace('U', 'T').replace('u', 't')) for n, t in pieces))
# A subject in U: E. coli's first 200 kbases, its second half in lower case.
s = rna(ecoli)
open(out + '/s_rna.fa', 'w').write(fasta('ecoli_rna', s[:100000] + s[100000:].lower()))
open(out + '/q_ecoli_piece.fa', 'w').write(fasta('piece', ecoli[50000:60000] + rc(ecoli[150000:156000])))
PY
l="$src/data/lambda_virus.fa"
compare_with_blastn "RNA query vs lambda, gapped"          "$tmp/q_rna.fa" "$l" "$l" 4 no --
compare_with_blastn "RNA query vs lambda, ungapped, 1/-2"  "$tmp/q_rna.fa" "$l" "$l" 4 no \
  -ungapped -sum_stats false -reward 1 -penalty -2 -- --ungapped --reward 1 --penalty=-2
compare_with_blastn "DNA query vs RNA subject, gapped"     "$tmp/q_ecoli_piece.fa" "$tmp/s_rna.fa" "$tmp/s_rna.fa" 2 no --
# The RNA query's lines are the DNA query's (blastn agrees: the same lines for both).
blastn -task blastn -dust no -query "$tmp/q_dna.fa" -subject "$l" -outfmt 6 2>/dev/null > want_dna
"$bin/blast-bloom" --no-header --no-progress --dust no "$tmp/q_rna.fa" "$l" > got_rna
same_as_blastn "RNA query as its DNA" 4 want_dna got_rna
# A .2bit made from the RNA subject holds T (the format has no U): the same output as the FASTA.
"$bin/blast-bloom" encode "$tmp/s_rna.fa" -o "$tmp/s_rna.2bit" 2> err.txt || bad "encode an RNA FASTA to .2bit: $(cat err.txt)"
compare_with_blastn "DNA query vs RNA subject as .2bit"    "$tmp/q_ecoli_piece.fa" "$tmp/s_rna.fa" "$tmp/s_rna.2bit" 2 no --
[[ $fails -eq 0 ]]
