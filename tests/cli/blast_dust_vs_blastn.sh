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
compare() {  # label sort(0/1) "blastn options" "blast-bloom options" query db
  local label="$1" sorted="$2" bn="$3" bb="$4" q="$5" db="$6"
  # shellcheck disable=SC2086
  blastn -task blastn $bn -query "$q" -subject "$db" -outfmt 6 > want
  # shellcheck disable=SC2086
  "$bin/blast-bloom" --no-header --no-progress $bb "$q" "$db" > got
  if [[ $sorted == 1 ]]; then sort -o want want; sort -o got got; fi
  local n; n=$(wc -l < want)
  if [[ $n -lt 20 ]]; then echo "FAIL $label: blastn found only $n alignments (test data changed?)"; status=1; return; fi
  if cmp -s want got; then
    echo "ok   $label: $n lines identical"
  else
    echo "FAIL $label: blastn $n lines, blast-bloom $(wc -l < got); first differences:"
    diff want got | head -n 8
    status=1
  fi
}
compare "default (DUST) vs blastn -task blastn" 0 "" "" q.fa db.fa
compare "default (DUST) vs blastn, E. coli 200k database" 0 "" "" q.fa "$src/data/ecoli_536_200k.fa"
compare "w 16, 1/-2, DUST" 0 "-word_size 16 -reward 1 -penalty -2" "-w 16 --reward 1 --penalty=-2" q.fa db.fa
compare "--ungapped, DUST (sorted)" 1 "-ungapped -sum_stats false" "--ungapped" q.fa db.fa
# Without DUST the low-complexity stretches align everywhere: the masks are what makes the outputs above agree.
blastn -task blastn -dust no -query q.fa -subject db.fa -outfmt 6 > nodust
[[ $(wc -l < nodust) -gt 1000 ]] || { echo "FAIL: -dust no found only $(wc -l < nodust) alignments"; status=1; }
"$bin/blast-bloom" --no-header --dust no q.fa db.fa > nodust_bb
[[ $(wc -l < nodust_bb) -gt 1000 ]] || { echo "FAIL: --dust no found only $(wc -l < nodust_bb) alignments"; status=1; }
"$bin/blast-bloom" --no-header --dust maybe q.fa db.fa > /dev/null 2> err && { echo "FAIL: --dust maybe accepted"; status=1; }
grep -q "expected yes or no" err || { echo "FAIL: --dust maybe: no clear error"; status=1; }
exit $status
