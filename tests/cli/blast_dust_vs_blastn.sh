#!/usr/bin/env bash
# blast-bloom's default DUST against blastn's: queries with low-complexity stretches (poly-A, (AT)n, (CAG)n,
# telomere-like repeats, runs with a point change) inserted into lambda phage, against a database that holds such
# stretches too, must give blastn -task blastn's default output (-dust 20 64 1) line for line; without DUST the
# stretches give thousands of alignments, so the masks must be right for the outputs to agree. Also w 16 with 1/-2,
# and --ungapped (compared after sorting). Skipped (77) when blastn is not installed.
# Usage: blast_dust_vs_blastn.sh BIN_DIR SRC_DIR
set -euo pipefail
bin="$1"; src="$2"
command -v blastn >/dev/null 2>&1 || { echo "blastn not installed: skipped"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "python3 not installed: skipped"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
python3 - "$src" <<'PY'
import random, sys
random.seed(11)
def read(p):
    return ''.join(l.strip() for l in open(p) if not l.startswith('>'))
src = sys.argv[1]
lam = read(src + '/data/lambda_virus.fa')
runs = ['A' * 40, 'AT' * 30, 'CAG' * 25, 'TTAGGG' * 12, 'A' * 15 + 'C' + 'A' * 20, 'GT' * 8 + 'GA' * 9 + 'G' * 30,
        'AAAT' * 16, 'T' * 90, 'CA' * 45]
def salt(s, every, offset):  # a run inserted every `every` bases
    out, pos, k = [], 0, 0
    for cut in range(offset, len(s), every):
        out += [s[pos:cut], runs[k % len(runs)]]
        pos, k = cut, k + 1
    return ''.join(out + [s[pos:]])
def fasta(name, s):
    return '>' + name + '\n' + '\n'.join(s[i:i + 70] for i in range(0, len(s), 70)) + '\n'
with open('q.fa', 'w') as f:
    f.write(fasta('lambda_lc', salt(lam[:30000], 2000, 700)))
    f.write(fasta('lambda_tail_lc', salt(lam[30000:], 3000, 1500)))
with open('db.fa', 'w') as f:
    f.write(fasta('lambda_part_lc', salt(lam[5000:40000], 2500, 1200)))
    f.write(fasta('runs_only', ''.join(random.choice(runs) + ''.join(random.choice('ACGT') for _ in range(30))
                                       for _ in range(60))))
    for p in ['dwv', 'vdv1']:
        f.write(fasta(p, read(src + '/data/bee-viruses/' + p + '.fa')))
PY
status=0
compare() {  # label sort(0/1) "blastn options" "blast-bloom options" query db [fewest lines blastn must find]
  local label="$1" sorted="$2" bn="$3" bb="$4" q="$5" db="$6"
  # shellcheck disable=SC2086
  blastn -task blastn $bn -query "$q" -subject "$db" -outfmt 6 > want
  # shellcheck disable=SC2086
  "$bin/blast-bloom" --no-header --no-progress $bb "$q" "$db" > got
  if [[ $sorted == 1 ]]; then sort -o want want; sort -o got got; fi
  local n; n=$(wc -l < want)
  if [[ $n -lt ${7:-20} ]]; then echo "FAIL $label: blastn found only $n alignments (test data changed?)"; status=1; return; fi
  if cmp -s want got; then
    echo "ok   $label: $n lines identical"
  else
    echo "FAIL $label: blastn $n lines, blast-bloom $(wc -l < got); first differences:"
    diff want got | head -n 8 || true
    status=1
  fi
}
compare "default (DUST) vs blastn -task blastn" 0 "" "" q.fa db.fa
compare "default (DUST) vs blastn, E. coli 200k database" 0 "" "" q.fa "$src/data/ecoli_536_200k.fa"
compare "w 16, 1/-2, DUST" 0 "-word_size 16 -reward 1 -penalty -2" "-w 16 --reward 1 --penalty=-2" q.fa db.fa
compare "--ungapped, DUST (sorted)" 1 "-ungapped -sum_stats false" "--ungapped" q.fa db.fa

# Ns and other ambiguity codes inside low-complexity stretches. BLAST+ reads an N as a base drawn from its fixed-seed
# generator each time it reads the letter (and R, Y, ... as A), so the masks are compared with blastn's own: the
# query masks in its archive output (-outfmt 11) give the number of masked w-mer starts, which must equal
# --stats dust_masked_wmers (a stretch ended one base apart in one record changes it). Records of runs, repeats, N
# runs of 1-300 and runs with N or IUPAC letters inside, and runs that start with NN (the first two letters' draws
# in BLAST+'s order). Then the case that was missed: a 38-base copy of DWV 1,108-1,145 (Ns at 1,022, 1,090 and
# 1,133 lie in a low-complexity stretch) placed in a random subject.
python3 - "$src" <<'PY'
import random, sys
rng = random.Random(29)
src = sys.argv[1]
def read(p):
    return ''.join(l.strip() for l in open(p) if not l.startswith('>'))
recs = ['NN' + 'A' * 31 + 'CGTTGCAAGTCCTGATGCAATCGGATCCAGTAGCTAGG', 'NN' + 'CA' * 16 + 'CGTTGCAAGTCCTGATGCAATCGG',
        'NN' + 'AC' * 16 + 'CGTTGCAAGTCCTGATGCAATCGG', 'N' * 100, 'N' * 70 + 'T' * 40 + 'N' * 3 + 'GATTACA' * 3]
for r in range(150):
    s = ''
    while len(s) < rng.randint(100, 1500):
        k = rng.random()
        if k < 0.3: s += ''.join(rng.choice('ACGT') for _ in range(rng.randint(5, 80)))
        elif k < 0.45: s += rng.choice('ACGT') * rng.randint(3, 70)
        elif k < 0.6: s += ''.join(rng.choice('ACGT') for _ in range(2)) * rng.randint(2, 40)
        elif k < 0.72: s += ''.join(rng.choice('ACGT') for _ in range(3)) * rng.randint(2, 30)
        elif k < 0.85: s += 'N' * rng.randint(1, 300 if r % 5 == 0 else 20)
        else:
            u = list(rng.choice('ACGT') * rng.randint(10, 60))
            for _ in range(rng.randint(1, 4)): u[rng.randrange(len(u))] = rng.choice('NNNRYKMSWBDHV')
            s += ''.join(u)
    # A random tail: blastn's archive lists no masks for a query masked whole (nor does it search it).
    recs.append(s + ''.join(rng.choice('ACGT') for _ in range(40)))
with open('nq.fa', 'w') as f:
    for i, s in enumerate(recs): f.write('>n%d\n%s\n' % (i, s))
with open('lens', 'w') as f: f.write(' '.join(str(len(s)) for s in recs))
with open('nsub.fa', 'w') as f: f.write('>lambda_2k\n' + read(src + '/data/lambda_virus.fa')[:2000] + '\n')
dwv = read(src + '/data/bee-viruses/dwv.fa')
rnd = ''.join(rng.choice('ACGT') for _ in range(3000))
with open('dwv_piece.fa', 'w') as f: f.write('>random_with_dwv_1108_1145\n' + rnd[:1500] + dwv[1107:1145] + rnd[1500:] + '\n')
PY
blastn -task blastn -query nq.fa -subject nsub.fa -outfmt 11 > masks.asn
want=$(python3 - <<'PY'
import re
w = 11
lens = [int(x) for x in open('lens').read().split()]
asn = open('masks.asn').read()
cover = {}
for m in re.finditer(r'from (\d+),\s*to (\d+),\s*id local str "Query_(\d+)"', asn[asn.find('masks {'):]):
    r, a, b = int(m.group(3)) - 1, int(m.group(1)), int(m.group(2))
    if lens[r] >= w: cover.setdefault(r, set()).update(range(max(0, a - w + 1), min(b, lens[r] - w) + 1))
print(sum(len(c) for c in cover.values()))
PY
)
"$bin/blast-bloom" --no-header --no-progress --stats nstats.json nq.fa nsub.fa > /dev/null
got=$(python3 -c "import json; print(json.load(open('nstats.json'))['dust_masked_wmers'])")
if [[ $want -gt 10000 && $want == "$got" ]]; then
  echo "ok   masks with N and IUPAC letters: $got masked w-mers, as blastn's masks"
else
  echo "FAIL masks with N and IUPAC letters: blastn's masks cover $want w-mers, blast-bloom masked $got"; status=1
fi
compare "DUST with Ns: DWV against a random subject holding a piece of it" 0 "" "" "$src/data/bee-viruses/dwv.fa" dwv_piece.fa 1

# A query that blastn splits into chunks (2.05 Mbases: two chunks of 1,025,050): each chunk's masks end a base later
# (query_chunks.hpp), so a w-mer right after a masked stretch is no seed. 40 pieces planted in a random query: a
# poly-G run, then the only 11-mer the subject shares with it, then 80 bases at 5/6 identity. blastn finds none of
# them with DUST (the 11-mer touches the shifted mask), all of them without DUST or unsplit.
python3 - <<'PY'
import random
rng = random.Random(47)
def rnd(n): return ''.join(rng.choice('ACGT') for _ in range(n))
def fasta(name, s): return '>' + name + '\n' + '\n'.join(s[i:i + 70] for i in range(0, len(s), 70)) + '\n'
q = list(rnd(2050000))
subject = []
for k in range(40):
    p = 150000 + k * 48000
    word, tail = 'A' + rnd(9) + rng.choice('ACT'), rnd(80)
    piece = 'G' * 14 + word + tail
    q[p:p + len(piece)] = piece
    changed = list(tail)
    for i in range(0, len(changed), 6):
        changed[i] = rng.choice([b for b in 'ACGT' if b != changed[i]])
    subject.append(rnd(29) + 'T' + word + ''.join(changed) + rnd(30))
open('split_query.fa', 'w').write(fasta('split_query', ''.join(q)))
open('planted.fa', 'w').write(fasta('planted', ''.join(subject)))
PY
blastn -task blastn -dust no -query split_query.fa -subject planted.fa -outfmt 6 > planted_nodust
if [[ $(wc -l < planted_nodust) -lt 40 ]]; then
  echo "FAIL split query: blastn -dust no found only $(wc -l < planted_nodust) of the 40 planted pieces"; status=1
fi
compare "DUST, a query blastn splits into chunks (masks end a base later)" 0 "" "" split_query.fa planted.fa 0
"$bin/blast-bloom" --no-header --no-progress --stats split.json split_query.fa planted.fa > /dev/null
grep -q '"query_chunks": 2' split.json || { echo "FAIL split query: --stats does not say 2 chunks"; status=1; }
[[ $(wc -l < want) -le 5 ]] || { echo "FAIL split query: blastn found $(wc -l < want) lines, the planted pieces?"; status=1; }
compare "--ungapped is never split" 1 "-ungapped -sum_stats false" "--ungapped" split_query.fa planted.fa 40

# Without DUST the low-complexity stretches align everywhere: the masks are what makes the outputs above agree.
blastn -task blastn -dust no -query q.fa -subject db.fa -outfmt 6 > nodust
[[ $(wc -l < nodust) -gt 1000 ]] || { echo "FAIL: -dust no found only $(wc -l < nodust) alignments"; status=1; }
"$bin/blast-bloom" --no-header --dust no q.fa db.fa > nodust_bb
[[ $(wc -l < nodust_bb) -gt 1000 ]] || { echo "FAIL: --dust no found only $(wc -l < nodust_bb) alignments"; status=1; }
"$bin/blast-bloom" --no-header --dust maybe q.fa db.fa > /dev/null 2> err && { echo "FAIL: --dust maybe accepted"; status=1; }
grep -q "expected yes or no" err || { echo "FAIL: --dust maybe: no clear error"; status=1; }
exit $status
