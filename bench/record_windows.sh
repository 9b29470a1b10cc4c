#!/usr/bin/env bash
# One database record far longer than --batch (docs/blast-bloom.md, "database"): peak RSS and wall time of a 10-kb
# query against a single-record FASTA database (plain and gzip), gapped and --ungapped, for a baseline build and
# this one, alternated run by run; medians of REPEAT runs (wall and CPU = user + system seconds). The record is random bases with 40 mutated copies of
# pieces of the query (every third with indels), so that stages 2 and 3 have work all along it. Prints a table.
#
# Usage: bench/record_windows.sh BASELINE_BIN_DIR NEW_BIN_DIR [MBASES (200)] [REPEAT (3)] [THREADS (2)]
#   The database is built once into RECORD_WINDOWS_DIR (default /tmp/bloomseq-record-windows; never committed).
set -euo pipefail
base="${1:?usage: bench/record_windows.sh BASELINE_BIN_DIR NEW_BIN_DIR [MBASES] [REPEAT] [THREADS]}"
new="${2:?usage: bench/record_windows.sh BASELINE_BIN_DIR NEW_BIN_DIR [MBASES] [REPEAT] [THREADS]}"
mbases="${3:-200}"; repeat="${4:-3}"; threads="${5:-2}"
(( repeat >= 1 )) || { echo "REPEAT must be at least 1" >&2; exit 64; }
[[ -x /usr/bin/time ]] || { echo "needs GNU time (/usr/bin/time)" >&2; exit 1; }
here="$(cd "$(dirname "$0")/.." && pwd)"
dir="${RECORD_WINDOWS_DIR:-/tmp/bloomseq-record-windows}"
mkdir -p "$dir"
db="$dir/one_record_${mbases}M.fa"
if [[ ! -s "$db" || ! -s "$db.gz" || ! -s "$dir/query_10k.fa" ]]; then
  echo "building $db"
  python3 - "$here/data/ecoli_536_200k.fa" "$db" "$mbases" "$dir/query_10k.fa" <<'PY'
import os, random, sys
random.seed(1)
genome = "".join(l.strip() for l in open(sys.argv[1]) if not l.startswith(">")).upper()
query = genome[100000:110000]
open(sys.argv[4], "w").write(">ecoli536_100k_10k\n%s\n" % query)
n = int(sys.argv[3]) * 1000000
table = bytes.maketrans(bytes(range(256)), b"ACGT" * 64)
seq = bytearray(os.urandom(n).translate(table))
def mutate(s, rate): return "".join(random.choice("ACGT") if random.random() < rate else c for c in s)
for k in range(40):
    lo = random.randint(0, 8000); piece = mutate(query[lo:lo + random.randint(1000, 10000 - lo)], 0.05)
    if k % 3 == 0:  # an indel every ~300 bases
        piece = "".join(piece[i:i + 300] + ("" if random.random() < 0.5 else "GA") for i in range(0, len(piece), 300))
    at = random.randint(0, n - len(piece)); seq[at:at + len(piece)] = piece.encode()
with open(sys.argv[2], "w") as f:
    f.write(">one_record\n")
    for i in range(0, n, 80): f.write(seq[i:i + 80].decode() + "\n")
PY
  gzip -1 -c "$db" > "$db.gz"
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "load: $(uptime)"
printf '%-8s %-9s %-9s %12s %8s %8s\n' input mode build peak_MB wall_s cpu_s
for input in "$db" "$db.gz"; do
  for mode in gapped ungapped; do
    opt=(); [[ $mode == ungapped ]] && opt=(--ungapped)
    : > "$tmp/base.rss"; : > "$tmp/new.rss"; : > "$tmp/base.wall"; : > "$tmp/new.wall"; : > "$tmp/base.cpu"; : > "$tmp/new.cpu"
    for ((r = 0; r < repeat; ++r)); do
      for which in base new; do
        bin=$base; [[ $which == new ]] && bin=$new
        /usr/bin/time -f '%M %e %U %S' -o "$tmp/t" "$bin/blast-bloom" --no-progress -t "$threads" "${opt[@]}" \
          "$dir/query_10k.fa" "$input" -o "$tmp/$which.$mode.out"
        read -r kb wall user sys < <(tail -n 1 "$tmp/t")
        echo "$kb" >> "$tmp/$which.rss"; echo "$wall" >> "$tmp/$which.wall"
        echo "$user $sys" | awk '{ print $1 + $2 }' >> "$tmp/$which.cpu"
      done
    done
    cmp -s "$tmp/base.$mode.out" "$tmp/new.$mode.out" || { echo "outputs differ ($input, $mode)" >&2; exit 1; }
    name=plain; [[ $input == *.gz ]] && name=gzip
    for which in base new; do
      printf '%-8s %-9s %-9s %12.0f %8.2f %8.2f\n' "$name" "$mode" "$which" \
        "$(median < "$tmp/$which.rss" | awk '{ print $1 / 1024 }')" "$(median < "$tmp/$which.wall")" "$(median < "$tmp/$which.cpu")"
    done
    echo "         ($(grep -vc '^#' "$tmp/new.$mode.out") HSPs, outputs identical)"
  done
done
