#!/usr/bin/env bash
# --lcase-masking against blastn -lcase_masking: the query's lower-case runs (a soft-masked genome) give no seeds,
# merged with DUST's stretches when DUST is on; extensions still cross them. blastn -subject masks a FASTA
# subject's lower case too (seeding only): soft-masked queries and subjects, gapped with and without DUST, ungapped,
# megablast, and a subject record searched in windows (--batch below its length). Skipped (77) without blastn.
# Usage: blast_lcase_masking_vs_blastn.sh BIN_DIR SRC_DIR
set -euo pipefail
command -v blastn >/dev/null 2>&1 || { echo "blastn not installed: skipped"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "python3 not installed: skipped"; exit 77; }
source "$(dirname "$0")/common/lib.bash"
python3 - "$src/data/lambda_virus.fa" "$src/data/ecoli_536_200k.fa" "$tmp" <<'PY'
import random, sys
rng = random.Random(9)
def rd(p): return ''.join(l.strip() for l in open(p) if not l.startswith('>')).upper()
def soft(s, n, lo, hi):
    t = list(s)
    for _ in range(n):
        a = rng.randrange(len(t))
        for i in range(a, min(len(t), a + rng.randint(lo, hi))): t[i] = t[i].lower()
    return ''.join(t)
def fasta(name, t): return '>' + name + '\n' + '\n'.join(t[i:i + 80] for i in range(0, len(t), 80)) + '\n'
lam, e, out = rd(sys.argv[1]), rd(sys.argv[2]), sys.argv[3]
open(out + '/lam_soft.fa', 'w').write(fasta('lam_soft', soft(lam, 40, 5, 400)))
open(out + '/e_soft.fa', 'w').write(fasta('e_soft_a', soft(e[:120000], 150, 3, 600)) + fasta('e_soft_b', soft(e[120000:], 80, 1, 50)))
PY
e="$src/data/ecoli_536_200k.fa"
l="$src/data/lambda_virus.fa"
compare_with_blastn "soft-masked E. coli 200k vs itself, gapped" "$tmp/e_soft.fa" "$e" "$e" 150 no -lcase_masking -- --lcase-masking
compare_with_blastn "soft-masked E. coli 200k vs itself, ungapped" "$tmp/e_soft.fa" "$e" "$e" 150 no -lcase_masking \
  -ungapped -sum_stats false -- --lcase-masking --ungapped
compare_with_blastn "soft-masked lambda vs lambda" "$tmp/lam_soft.fa" "$l" "$l" 10 no -lcase_masking -- --lcase-masking
# With DUST (plain blastn -task blastn) and megablast.
blastn -task blastn -lcase_masking -query "$tmp/e_soft.fa" -subject "$e" -outfmt 6 > want
"$bin/blast-bloom" --no-header --no-progress --lcase-masking "$tmp/e_soft.fa" "$e" > got
same_as_blastn "soft-masked E. coli 200k vs itself, DUST" 150 want got
blastn -task megablast -lcase_masking -query "$tmp/e_soft.fa" -subject "$e" -outfmt 6 > want
"$bin/blast-bloom" --no-header --no-progress --task megablast --lcase-masking "$tmp/e_soft.fa" "$e" > got
same_as_blastn "soft-masked E. coli 200k vs itself, megablast" 10 want got
# Without the option the case means nothing, as in blastn.
blastn -task blastn -query "$tmp/e_soft.fa" -subject "$e" -outfmt 6 > want
"$bin/blast-bloom" --no-header --no-progress "$tmp/e_soft.fa" "$e" > got
same_as_blastn "soft-masked E. coli 200k vs itself, case ignored" 150 want got
check "the masks change the output" "! cmp -s got <(\"$bin/blast-bloom\" --no-header --no-progress --lcase-masking \"$tmp/e_soft.fa\" \"$e\")"
# Soft-masked subjects.
compare_with_blastn "E. coli 200k vs its soft-masked copy" "$e" "$tmp/e_soft.fa" "$tmp/e_soft.fa" 150 no -lcase_masking \
  -- --lcase-masking
compare_with_blastn "E. coli 200k vs its soft-masked copy, ungapped" "$e" "$tmp/e_soft.fa" "$tmp/e_soft.fa" 150 no \
  -lcase_masking -ungapped -sum_stats false -- --lcase-masking --ungapped
compare_with_blastn "E. coli 200k vs its soft-masked copy, in windows" "$e" "$tmp/e_soft.fa" "$tmp/e_soft.fa" 150 no \
  -lcase_masking -- --lcase-masking --batch 20000
compare_with_blastn "soft-masked against soft-masked" "$tmp/e_soft.fa" "$tmp/e_soft.fa" "$tmp/e_soft.fa" 150 no \
  -lcase_masking -- --lcase-masking
tr 'ACGT' 'acgt' < "$l" | sed 's/^>.*/>lambda_lower/' > lam_lower.fa
blastn -task blastn -lcase_masking -query "$tmp/lam_soft.fa" -subject lam_lower.fa -outfmt 6 > want
"$bin/blast-bloom" --no-header --no-progress --lcase-masking "$tmp/lam_soft.fa" lam_lower.fa > got
check "an all lower-case subject: no seeds, no lines (as blastn)" "[[ ! -s want && ! -s got ]]"
[[ $fails -eq 0 ]]
