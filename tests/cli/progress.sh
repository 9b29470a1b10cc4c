#!/usr/bin/env bash
# Progress on stderr: blast-bloom redraws inside a single long record (reading, encoding, chunk by chunk) and facs
# build-filter while it reads and hashes; nothing at all when stderr is not a terminal; --progress forces it, and
# on a terminal (through script(1), where available) it is on by default.
# Usage: progress.sh BIN_DIR SRC_DIR
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common/lib.bash"

# One 12-Mbase record (searched in windows of the short-word scan's 2-Mbase batches; with --batch 64M one batch, more
# than one encoding slice, many 64-Kbase chunks).
table=$(printf 'ACGT%.0s' $(seq 64))
{ echo ">one_record"; head -c 12000000 /dev/urandom | tr '\000-\377' "$table" | fold -w 80; } > db.fa

"$bin/blast-bloom" -t 1 "$src/data/lambda_virus.fa" db.fa -o plain.tsv 2> quiet.txt
check "blast-bloom: nothing on stderr when it is not a terminal" "[ ! -s quiet.txt ]"
"$bin/blast-bloom" -t 1 --progress "$src/data/lambda_virus.fa" db.fa -o forced.tsv 2> forced.txt
tr '\r' '\n' < forced.txt > forced_lines.txt
# (A database of up to 64 Mbases is kept from the counting pass: no second reading phase.)
check "blast-bloom --progress: counting shown inside the one record" "grep -q 'counting database bases: 1048640, ' forced_lines.txt"
"$bin/blast-bloom" -t 1 --progress --batch 64M "$src/data/lambda_virus.fa" db.fa -o one_batch.tsv 2> one_batch.txt
tr '\r' '\n' < one_batch.txt > one_batch_lines.txt
check "blast-bloom --progress --batch 64M: encoding shown inside the one record" \
  "grep -q 'encoding database bases: 4194304 / ' one_batch_lines.txt && cmp -s plain.tsv one_batch.tsv"
# A phase's first update draws at once: the first chunk searched (65,536 w-mer starts) shows before the first window
# is done.
check "blast-bloom --progress: the search is shown chunk by chunk within the window" \
  "grep -q 'database bases searched: 65536 / 12000000 ' forced_lines.txt"
check "blast-bloom: the same HSPs with and without progress" "cmp -s plain.tsv forced.tsv"
check "blast-bloom --progress: the line is erased at the end (\\r ESC [K)" "[ \$(tail -c 4 forced.txt | od -An -tx1 | tr -d ' \\n') = 0d1b5b4b ]"

"$bin/facs" build-filter -o q.bf db.fa 2> bf_quiet.txt
check "facs build-filter: nothing on stderr but its table when it is not a terminal" \
  "! grep -q 'reading\\|k-mers of' bf_quiet.txt && ! grep -q \$'\\r' bf_quiet.txt"
"$bin/facs" build-filter --progress -o p.bf db.fa 2> bf_forced.txt
tr '\r' '\n' < bf_forced.txt > bf_lines.txt
check "facs build-filter --progress: reading the file, then its k-mers, sorting, inserting and writing shown" \
  "grep -q 'reading db.fa, bases: ' bf_lines.txt && grep -q 'reading k-mers of db: ' bf_lines.txt &&
   grep -q 'sorting k-mers of db: ' bf_lines.txt && grep -q 'inserting k-mers of db: ' bf_lines.txt &&
   grep -q 'writing p.bf, bytes: ' bf_lines.txt"
info() { "$bin/facs" info "$1" | grep -v '^# \(file\|command\)'; }
check "facs build-filter: the same filter with and without progress (k-mers, bits, fill)" "cmp -s <(info q.bf) <(info p.bf)"

if command -v script > /dev/null; then
  script -qc "\"$bin/blast-bloom\" -t 1 \"$src/data/lambda_virus.fa\" db.fa -o tty.tsv" /dev/null > tty.txt 2>&1 < /dev/null
  check "blast-bloom on a terminal: progress by default" "tr '\\r' '\\n' < tty.txt | grep -q 'database bases searched: '"
else
  echo "skip blast-bloom on a terminal (no script(1))"
fi

[ $fails -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
