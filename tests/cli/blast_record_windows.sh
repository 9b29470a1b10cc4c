#!/usr/bin/env bash
# A database record far longer than --batch is searched in overlapping windows (docs/blast-bloom.md, "database"): the
# output must be byte-identical to the whole record in one batch (--batch larger than the database), gapped and
# --ungapped, at -t 1 and 2, plain, gzip and .2bit, for the default plan (short-word scan at a stride), every w-mer, and
# the stage-1b seeds. The record holds lambda pieces (mutated, some reverse-complemented, some with indels every
# ~250 bases: long gapped alignments across many window edges), N runs on and next to window edges, between
# two short records. --batch 2000 gives windows of 2048 owned bases: about 300 of them.
# Usage: blast_record_windows.sh BIN_DIR SRC_DIR
set -euo pipefail
command -v python3 >/dev/null 2>&1 || { echo "python3 not installed: skipped"; exit 77; }
source "$(dirname "$0")/common/lib.bash"
python3 - "$src/data/lambda_virus.fa" <<'PY'
import random, sys
random.seed(5)
lam = "".join(l.strip() for l in open(sys.argv[1]) if not l.startswith(">")).upper()
def rc(s): return s[::-1].translate(str.maketrans("ACGTN", "TGCAN"))
def mutate(s, rate): return "".join(random.choice("ACGT") if random.random() < rate else c for c in s)
def indels(s):
    out, i = [], 0
    while i < len(s):
        out.append(s[i:i + 250]); i += 250
        if random.random() < 0.5: out.append("".join(random.choice("ACGT") for _ in range(random.randint(1, 3))))
        else: i += random.randint(1, 3)
    return "".join(out)
with open("q.fa", "w") as f:
    f.write(">q1\n%s\n>q2\n%s\n" % (lam[5000:8000], lam[30000:31500]))
big = [random.choice("ACGT") for _ in range(620000)]
at, n = 4000, 0
while at + 6000 < len(big):
    piece = lam[5000:8000] if n % 2 == 0 else lam[30000:31500]
    lo = random.randint(0, len(piece) // 3); piece = piece[lo:lo + random.randint(600, len(piece) - lo)]
    piece = mutate(piece, 0.04)
    if n % 3 == 1: piece = indels(piece)
    if n % 4 == 2: piece = rc(piece)
    big[at:at + len(piece)] = piece
    edge = (at + len(piece)) // 2048 * 2048  # an N run on or next to a window edge
    run = random.randint(1, 40); start = edge - random.choice([0, run, random.randint(0, 60)])
    big[start:start + run] = "N" * run
    at += len(piece) + random.randint(3000, 12000); n += 1
big = "".join(big[:620000])
with open("db.fa", "w") as f:
    f.write(">short1\n%s\n>big one\n" % mutate(lam[5500:7000], 0.05))
    for i in range(0, len(big), 61): f.write(big[i:i + 61] + "\n")
    f.write(">short2\n%s\n" % mutate(lam[30100:31000], 0.05))
PY
gzip -c db.fa > db.fa.gz
"$bin/blast-bloom" encode db.fa -o db.2bit

bb() { "$bin/blast-bloom" --no-progress "$@"; }
for mode in gapped ungapped; do
  opt=(); [[ $mode == ungapped ]] && opt=(--ungapped)
  bb "${opt[@]}" -t 2 --batch 10M q.fa db.fa -o "whole.$mode"
  n=$(grep -vc '^#' "whole.$mode" || true)
  check "$mode: the planted pieces are found whole ($n HSPs)" "[[ $n -ge 40 ]]"
  for t in 1 2; do
    bb "${opt[@]}" -t $t --batch 2000 q.fa db.fa -o "win.$mode.$t"
    check "$mode -t $t: windows of 2 kbases = the whole record" "cmp -s whole.$mode win.$mode.$t"
  done
  bb "${opt[@]}" -t 2 --batch 2000 q.fa db.fa.gz -o "gz.$mode"
  check "$mode: gzip in windows = the whole record" "cmp -s whole.$mode gz.$mode"
  bb "${opt[@]}" -t 2 --batch 2000 q.fa db.2bit -o "twobit.$mode"
  check "$mode: .2bit in windows (decoded a slice at a time) = the whole record" "cmp -s whole.$mode twobit.$mode"
  bb "${opt[@]}" -t 2 --batch 10M --every-wmer q.fa db.fa -o "every.$mode"
  bb "${opt[@]}" -t 2 --batch 5000 --every-wmer q.fa db.fa -o "every_win.$mode"
  check "$mode --every-wmer: windows = the whole record" "cmp -s every.$mode every_win.$mode"
  check "$mode --every-wmer finds what the default plan finds" "cmp -s every.$mode whole.$mode"
done
bb -t 2 --batch 10M --stage 1b q.fa db.fa -o seeds.whole
bb -t 2 --batch 3000 --stage 1b q.fa db.fa -o seeds.win
check "stage 1b: the seeds of windows (record coordinates) = the whole record's" \
  "cmp -s seeds.whole seeds.win && [[ \$(wc -l < seeds.whole) -gt 1000 ]]"
[[ $fails -eq 0 ]] || { diff whole.gapped win.gapped.2 | head -n 10 || true; exit 1; }
