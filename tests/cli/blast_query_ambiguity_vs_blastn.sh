#!/usr/bin/env bash
# Queries with IUPAC codes other than N, against blastn: blastn keeps them in its query (BLASTNA letters), so they
# never seed, but its extensions score them with its nucleotide matrix (nucleotide_score.hpp), its ungapped
# pre-screen packs their raw letter values into its 4-base bytes, its per-strand statistics count them in the
# strand's composition (and the cut-offs and X-drop follow those statistics), and its identities count equal
# letters (R against R, N against N). Output line for line, in blastn's order, gapped and ungapped
# (-ungapped -sum_stats false), 2/-3 and 1/-2, one and two threads, subjects with and without codes of their own.
# Skipped (77) when blastn is not installed.
# Usage: blast_query_ambiguity_vs_blastn.sh BIN_DIR SRC_DIR
set -euo pipefail
command -v blastn >/dev/null 2>&1 || { echo "blastn not installed: skipped"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "python3 not installed: skipped"; exit 77; }
source "$(dirname "$0")/common/lib.bash"
python3 - "$src/data/lambda_virus.fa" "$src/data/ecoli_536_200k.fa" "$tmp" <<'PY'
import random, sys
def read(path):
    return ''.join(l.strip() for l in open(path) if not l.startswith('>')).upper()
def fasta(name, t): return '>' + name + '\n' + '\n'.join(t[i:i + 70] for i in range(0, len(t), 70)) + '\n'
lam, ecoli, out = read(sys.argv[1]), read(sys.argv[2]), sys.argv[3]
# lambda in two records: codes allowing the true base and codes that may not, a run of N, lower-case codes.
allowing = {'A': 'RMWVHD', 'C': 'YMSBVH', 'G': 'RKSBVD', 'T': 'YKWBHD'}
q = list(lam)
for k, i in enumerate(range(2000, 12000, 41)): q[i] = allowing[q[i]][k % 6]
for k, i in enumerate(range(12001, 16000, 59)): q[i] = 'RYKMSWBDHV'[k % 10]
for i in range(30000, 30100): q[i] = 'N'
for k, i in enumerate(range(20000, 21000, 7)): q[i] = 'ryk'[k % 3]
open(out + '/q_lambda.fa', 'w').write(fasta('lam_codes', ''.join(q[:25000])) + fasta('lam_tail', ''.join(q[25000:])))
# The subject with codes of its own, half of them where the query has one too (two codes against each other).
s = list(lam)
for k, i in enumerate(range(2000, 12000, 82)): s[i] = allowing[s[i]][(k + 3) % 6]
for k, i in enumerate(range(12001, 16000, 118)): s[i] = 'RYKMSWBDHV'[(k + 5) % 10]
open(out + '/s_lambda.fa', 'w').write(fasta('lam_subject_codes', ''.join(s)))
# N and R/Y at the same places in query and subject: equal letters count as identities.
q, s = list(lam), list(lam)
for i in range(30000, 40000, 37): q[i] = 'N'
for i in range(30000, 40000, 74): s[i] = 'N'
for i in range(10000, 12000, 53): q[i] = s[i] = 'R' if q[i] in 'AG' else 'Y'
open(out + '/q_equal.fa', 'w').write(fasta('equal_codes', ''.join(q[25000:45000]) + ''.join(q[5000:15000])))
open(out + '/s_equal.fa', 'w').write(fasta('equal_subject', ''.join(s)))
# E. coli 200 kbases with a random code every 20-600 bases against itself: its repeats put many seeds next to a
# code, where the pre-screen's packed bytes hold the codes' raw BLASTNA values.
rng = random.Random(5)
e, i = list(ecoli), 0
while i < len(e):
    e[i] = rng.choice('RYKMSWBDHV')
    i += rng.randint(20, 600)
open(out + '/q_ecoli.fa', 'w').write(fasta('ecoli_codes', ''.join(e)))
PY
compare() {  # name query subject min_lines blastn_opts... -- ours...
  local name="$1" query="$2" subject="$3" min="$4"
  shift 4
  compare_with_blastn "$name" "$query" "$subject" "$subject" "$min" no "$@"
}
q="$tmp/q_lambda.fa"; l="$src/data/lambda_virus.fa"; s="$tmp/s_lambda.fa"
compare "lambda with codes vs lambda, gapped"              "$q" "$l" 15 --
compare "lambda with codes vs lambda, gapped, 2 threads"   "$q" "$l" 15 -- -t 2
compare "lambda with codes vs lambda, gapped, 1/-2"        "$q" "$l" 40 -reward 1 -penalty -2 -- --reward 1 --penalty=-2
compare "lambda with codes vs lambda, ungapped"            "$q" "$l" 40 -ungapped -sum_stats false -- --ungapped
compare "codes against codes, gapped"                      "$q" "$s" 15 --
compare "codes against codes, ungapped, 1/-2"              "$q" "$s" 40 -ungapped -sum_stats false -reward 1 -penalty -2 \
  -- --ungapped --reward 1 --penalty=-2
compare "equal codes as identities, gapped"                "$tmp/q_equal.fa" "$tmp/s_equal.fa" 10 --
compare "equal codes as identities, ungapped"              "$tmp/q_equal.fa" "$tmp/s_equal.fa" 10 -ungapped -sum_stats false \
  -- --ungapped
compare "E. coli 200k with codes vs E. coli 200k, gapped"  "$tmp/q_ecoli.fa" "$src/data/ecoli_536_200k.fa" 100 -- -t 2
compare "E. coli 200k with codes vs E. coli 200k, ungapped" "$tmp/q_ecoli.fa" "$src/data/ecoli_536_200k.fa" 100 \
  -ungapped -sum_stats false -- --ungapped -t 2
[[ $fails -eq 0 ]]
