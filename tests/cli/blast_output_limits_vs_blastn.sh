#!/usr/bin/env bash
# blastn reports at most max_target_seqs subjects per query (500 by default), chosen in two steps: before its
# traceback it keeps the best min(2N, N + 50) subjects by their preliminary alignments, then the best N by the
# final ones. Before, blast-bloom printed every subject: 700 against blastn's 500 below. Against live blastn:
# 700 subjects (default and other N, gapped and ungapped), a subject whose preliminary alignments are short but
# whose final one bridges them (blastn does not trace it when N is small: the first step), megablast against
# 2,000 reads, two queries, and sharded runs merged. Then blastn's other limits: -perc_identity (in a gapped search
# applied right after each traceback, before the alignment can hide those it contains; without gaps before the
# subjects are ranked), -max_hsps and -qcov_hsp_perc (after the traceback, before the subjects are ranked and cut).
# Skipped (77) when blastn is not installed.
# Usage: blast_output_limits_vs_blastn.sh BIN_DIR SRC_DIR
set -euo pipefail
command -v blastn >/dev/null 2>&1 || { echo "blastn not installed: skipped"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "python3 not installed: skipped"; exit 77; }
source "$(dirname "$0")/common/lib.bash"
python3 - "$src/data/lambda_virus.fa" "$src/data/lambda_reads_1.fq" "$tmp" <<'PY'
import random, sys
rng = random.Random(3)
lam = ''.join(l.strip() for l in open(sys.argv[1]) if not l.startswith('>'))
out = sys.argv[3]
def rand(n): return ''.join(rng.choice('ACGT') for _ in range(n))
# 700 subjects: a 600-base piece of lambda, more and more mutated, behind a random prefix; two queries.
q = lam[1000:1600]
open(out + '/q600.fa', 'w').write('>q\n' + q + '\n')
open(out + '/q2.fa', 'w').write('>q\n' + q + '\n>r\n' + lam[1000:1300] + lam[5000:5300] + '\n')
with open(out + '/db700.fa', 'w') as o:
    for i in range(700):
        t = [rng.choice('ACGT') if rng.random() < 0.02 + 0.2 * i / 700 else c for c in q]
        o.write('>s%d\n%s%s\n' % (i, rand(rng.randint(0, 200)), ''.join(t)))
# A subject of 20 pieces of a random query, 100 bases each, 25 mismatches between them: its preliminary alignments
# stop at each stretch (X-drop 30 bits), its final one (100 bits) bridges them all and scores best of all. Twelve
# subjects hold a 300-base piece each: better preliminary alignments, worse final ones.
rng = random.Random(11)
Q = rand(9000)
comp = {'A': 'C', 'C': 'G', 'G': 'T', 'T': 'A'}
open(out + '/qpre.fa', 'w').write('>q\n' + Q + '\n')
a = ''.join(Q[i * 125:i * 125 + 100] + ''.join(comp[c] for c in Q[i * 125 + 100:i * 125 + 125]) for i in range(20))
recs = [('A_bridged', rand(50) + a + rand(50))]
recs += [('B%d' % j, rand(30) + Q[3000 + j * 400:3300 + j * 400] + rand(30)) for j in range(12)]
open(out + '/spre.fa', 'w').write(''.join('>%s\n%s\n' % r for r in recs))
# The reads as FASTA subjects.
with open(out + '/reads.fa', 'w') as o:
    lines = open(sys.argv[2]).read().split('\n')
    for i in range(0, len(lines) - 3, 4): o.write('>' + lines[i][1:].split()[0] + '\n' + lines[i + 1] + '\n')
PY
cmp_blastn() {  # name min query subject blastn-opts -- ours-opts
  local name=$1 min=$2 query=$3 subject=$4
  shift 4
  local bl=() bb=()
  while [[ $1 != -- ]]; do bl+=("$1"); shift; done
  shift
  bb=("$@")
  blastn -dust no "${bl[@]}" -query "$query" -subject "$subject" -outfmt 6 2>/dev/null > want
  "$bin/blast-bloom" --no-header --no-progress --dust no ${bb[@]+"${bb[@]}"} "$query" "$subject" > got
  same_as_blastn "$name" "$min" want got
}
subjects() { cut -f1,2 "$1" | sort -u | wc -l; }
cmp_blastn "700 subjects, default (500)" 500 "$tmp/q600.fa" "$tmp/db700.fa" -task blastn --
check "700 subjects: blastn printed 500 of them" "[[ \$(subjects want) -eq 500 ]]"
cmp_blastn "700 subjects, 37" 37 "$tmp/q600.fa" "$tmp/db700.fa" -task blastn -max_target_seqs 37 -- --max-target-seqs 37
cmp_blastn "700 subjects, ungapped, 100" 100 "$tmp/q600.fa" "$tmp/db700.fa" -task blastn -ungapped -sum_stats false \
  -max_target_seqs 100 -- --ungapped --max-target-seqs 100
cmp_blastn "700 subjects, all (blast-bloom 0 = blastn 1000)" 700 "$tmp/q600.fa" "$tmp/db700.fa" -task blastn \
  -max_target_seqs 1000 -- --max-target-seqs 0
cmp_blastn "two queries, 5 each" 10 "$tmp/q2.fa" "$tmp/db700.fa" -task blastn -max_target_seqs 5 -- --max-target-seqs 5
for n in 1 5 11; do
  cmp_blastn "bridged subject, $n" "$n" "$tmp/qpre.fa" "$tmp/spre.fa" -task blastn -max_target_seqs "$n" -- \
    --max-target-seqs "$n"
done
blastn -task blastn -dust no -query "$tmp/qpre.fa" -subject "$tmp/spre.fa" -outfmt 6 -max_target_seqs 1 > want
check "bridged subject, 1: blastn leaves out the best final alignment (not traced)" "! grep -q A_bridged want"
cmp_blastn "megablast, 2,000 reads, 7" 7 "$src/data/lambda_virus.fa" "$tmp/reads.fa" -task megablast \
  -max_target_seqs 7 -- --task megablast --max-target-seqs 7
# Shards of the database, merged: the single run's output here.
"$bin/blast-bloom" --no-header --no-progress --dust no "$tmp/q600.fa" "$tmp/db700.fa" -o single.tsv
for i in 1 2 3; do
  "$bin/blast-bloom" --no-header --no-progress --dust no --db-shard "$i/3" "$tmp/q600.fa" "$tmp/db700.fa" -o "part$i" \
    2> /dev/null
done
"$bin/blast-bloom" merge -o merged.tsv part1 part2 part3
check "3 database shards merged: the single run (500 subjects)" "cmp -s single.tsv merged.tsv && [[ \$(subjects merged.tsv) -eq 500 ]]"
e="$src/data/ecoli_536_200k.fa"
cmp_blastn "E. coli 200k self, perc_identity 90" 100 "$e" "$e" -task blastn -perc_identity 90 -- --perc-identity 90
cmp_blastn "E. coli 200k self, perc_identity 75" 200 "$e" "$e" -task blastn -perc_identity 75 -- --perc-identity 75
cmp_blastn "E. coli 200k self, ungapped, perc_identity 90" 100 "$e" "$e" -task blastn -ungapped -sum_stats false \
  -perc_identity 90 -- --ungapped --perc-identity 90
cmp_blastn "E. coli 200k self, megablast, perc_identity 85" 10 "$e" "$e" -task megablast -perc_identity 85 -- \
  --task megablast --perc-identity 85
for pid in 98 99; do
  cmp_blastn "700 subjects, perc_identity $pid, 50" 3 "$tmp/q600.fa" "$tmp/db700.fa" -task blastn -perc_identity "$pid" \
    -max_target_seqs 50 -- --perc-identity "$pid" --max-target-seqs 50
  cmp_blastn "700 subjects, ungapped, perc_identity $pid, 50" 6 "$tmp/q600.fa" "$tmp/db700.fa" -task blastn -ungapped \
    -sum_stats false -perc_identity "$pid" -max_target_seqs 50 -- --ungapped --perc-identity "$pid" --max-target-seqs 50
done
cmp_blastn "E. coli 200k self, max_hsps 3" 3 "$e" "$e" -task blastn -max_hsps 3 -- --max-hsps 3
cmp_blastn "700 subjects, max_hsps 1" 500 "$tmp/q600.fa" "$tmp/db700.fa" -task blastn -max_hsps 1 -- --max-hsps 1
cmp_blastn "E. coli 200k self, qcov_hsp_perc 0.1" 100 "$e" "$e" -task blastn -qcov_hsp_perc 0.1 -- --qcov-hsp-perc 0.1
cmp_blastn "700 subjects, qcov_hsp_perc 99, 20" 20 "$tmp/q600.fa" "$tmp/db700.fa" -task blastn -qcov_hsp_perc 99 \
  -max_target_seqs 20 -- --qcov-hsp-perc 99 --max-target-seqs 20
cmp_blastn "2,000 reads, qcov_hsp_perc 0.2, max_hsps 2" 500 "$src/data/lambda_virus.fa" "$tmp/reads.fa" -task blastn \
  -qcov_hsp_perc 0.2 -max_hsps 2 -- --qcov-hsp-perc 0.2 --max-hsps 2
[[ $fails -eq 0 ]]
