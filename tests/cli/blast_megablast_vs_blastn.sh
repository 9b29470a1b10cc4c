#!/usr/bin/env bash
# --task megablast against blastn -task megablast (blastn's default task), line for line in blastn's order: word 28,
# 1/-2, linear gaps with the greedy extension (preliminary X-drop 25 bits, final 100; affine gap costs with BLAST's
# affine greedy aligner), the ungapped X-drop that
# megablast leaves unset (BLAST then takes the ungapped cut-off), containment within 6 diagonals, and every final
# alignment rescored with the nucleotide matrix. Inputs made here from the bundled genomes: pieces of an "evolved"
# copy of E. coli (substitutions, short insertions and deletions, a tandem duplication, every other piece reverse-
# complemented) against the original, with DUST and without, gapped and ungapped, one and two threads, 2/-3, w 20,
# two database shards merged;
# a query with IUPAC codes and a subject with codes and a run of N; the bee viruses against themselves.
# Skipped (77) when blastn is not installed.
# Usage: blast_megablast_vs_blastn.sh BIN_DIR SRC_DIR
set -euo pipefail
command -v blastn >/dev/null 2>&1 || { echo "blastn not installed: skipped"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "python3 not installed: skipped"; exit 77; }
source "$(dirname "$0")/common/lib.bash"
python3 - "$src/data/ecoli_536_200k.fa" "$tmp" <<'PY'
import random, sys
def read(path):
    return ''.join(l.strip() for l in open(path) if not l.startswith('>')).upper()
def fasta(name, t): return '>' + name + '\n' + '\n'.join(t[i:i + 70] for i in range(0, len(t), 70)) + '\n'
genome, out = read(sys.argv[1]), sys.argv[2]
rng = random.Random(11)
def evolve(t, sub, indel):
    r = []
    for c in t:
        x = rng.random()
        if x < indel / 2: continue
        if x < indel: r.append(''.join(rng.choice('ACGT') for _ in range(rng.randint(1, 4))))
        r.append(rng.choice('ACGT'.replace(c, '')) if rng.random() < sub and c in 'ACGT' else c)
    return ''.join(r)
comp = {'A': 'T', 'C': 'G', 'G': 'C', 'T': 'A', 'N': 'N'}
# 14 pieces of 10 kbases at 2-14% substitutions (a tenth of that in short indels), every other one reverse-
# complemented, and one with a tandem duplication.
pieces = []
for k in range(14):
    p = evolve(genome[k * 12000:k * 12000 + 10000], 0.02 + 0.01 * (k % 13), 0.002 + 0.001 * (k % 13))
    pieces.append(''.join(comp[c] for c in reversed(p)) if k % 2 else p)
dup = genome[170000:173000]
pieces.append(evolve(dup + dup[:1500] + genome[173000:195000], 0.02, 0.003))
open(out + '/q.fa', 'w').write(''.join(fasta('piece%d' % i, p) for i, p in enumerate(pieces)))
# IUPAC codes every 40-400 bases of the first six pieces; a subject with codes of its own and a run of N.
with open(out + '/q_codes.fa', 'w') as f:
    for k in range(6):
        q, i = list(pieces[k]), 0
        while i < len(q):
            q[i] = rng.choice('RYKMSWBDHVN')
            i += rng.randint(40, 400)
        f.write(fasta('piece_codes%d' % k, ''.join(q)))
s = list(genome)
for i in range(1000, len(s), 733): s[i] = rng.choice('RYKMSWBDHV')
s[20000:20300] = 'N' * 300
open(out + '/s_codes.fa', 'w').write(fasta('subject_codes', ''.join(s)))
PY
compare() {  # name query subject min_lines blastn_opts... -- ours...
  local name="$1" query="$2" subject="$3" min="$4"
  shift 4
  local bl=() bb=()
  while [[ $# -gt 0 && $1 != -- ]]; do bl+=("$1"); shift; done
  shift
  bb=("$@")
  blastn -task megablast ${bl[@]+"${bl[@]}"} -query "$query" -subject "$subject" -outfmt 6 2>/dev/null > want
  "$bin/blast-bloom" --task megablast --no-header --no-progress ${bb[@]+"${bb[@]}"} "$query" "$subject" > got
  same_as_blastn "$name" "$min" want got
}
g="$src/data/ecoli_536_200k.fa"; q="$tmp/q.fa"
compare "evolved pieces vs E. coli 200k"                   "$q" "$g" 20 --
compare "evolved pieces vs E. coli 200k, 2 threads"        "$q" "$g" 20 -- -t 2
compare "evolved pieces vs E. coli 200k, no DUST"          "$q" "$g" 20 -dust no -- --dust no
compare "evolved pieces vs E. coli 200k, ungapped"         "$q" "$g" 20 -ungapped -- --ungapped
compare "evolved pieces vs E. coli 200k, 2/-3"             "$q" "$g" 20 -reward 2 -penalty -3 -- --reward 2 --penalty=-3
compare "evolved pieces vs E. coli 200k, w 20"             "$q" "$g" 20 -word_size 20 -- -w 20
# Affine gap costs: BLAST's affine greedy aligner (distances that are costs).
compare "evolved pieces vs E. coli 200k, gaps 2/2"         "$q" "$g" 20 -gapopen 2 -gapextend 2 -- --gapopen 2 --gapextend 2
compare "evolved pieces vs E. coli 200k, gaps 1/1"         "$q" "$g" 20 -gapopen 1 -gapextend 1 -- --gapopen 1 --gapextend 1
compare "evolved pieces vs E. coli 200k, 2/-3, gaps 5/2"   "$q" "$g" 20 -reward 2 -penalty -3 -gapopen 5 -gapextend 2 \
  -- --reward 2 --penalty=-3 --gapopen 5 --gapextend 2
compare "piece with IUPAC codes vs E. coli 200k"           "$tmp/q_codes.fa" "$g" 5 --
compare "evolved pieces vs a subject with codes and N"     "$q" "$tmp/s_codes.fa" 5 --
compare "piece with codes vs subject with codes, ungapped" "$tmp/q_codes.fa" "$tmp/s_codes.fa" 5 -ungapped -- --ungapped
for f in "$src"/data/bee-viruses/*.fa; do cat "$f"; echo; done | grep -v '^$' > bees.fa
compare "bee viruses against themselves"                   bees.fa bees.fa 10 --
# Database shards carry the task: two shards of a two-record subject, merged, print the single run's lines.
cat "$g" "$tmp/s_codes.fa" > two.fa
"$bin/blast-bloom" --task megablast --no-header --no-progress "$q" two.fa > single.tsv
for i in 1 2; do "$bin/blast-bloom" --task megablast --no-progress --db-shard $i/2 "$q" two.fa -o part$i.bbp; done
"$bin/blast-bloom" merge -o merged.tsv part1.bbp part2.bbp
grep -v '^#' merged.tsv > merged_lines.tsv
check "two database shards merged = the single megablast run ($(wc -l < single.tsv) lines)" \
  "[ -s single.tsv ] && cmp -s single.tsv merged_lines.tsv"
# A gap extension of 0 with a gap opening cost, and an unknown task, are refused with one line.
set +e
expect_exit 64 "megablast with gaps 2/0 refused" "$bin/blast-bloom" --task megablast --gapopen 2 --gapextend 0 "$q" "$g"
expect_exit 64 "unknown task refused" "$bin/blast-bloom" --task dc-megablast "$q" "$g"
[[ $fails -eq 0 ]]
