#!/usr/bin/env bash
# gzip input speed of `facs classify`: the same reads as plain FASTQ, gzip (one member, `gzip -6`) and bgzip,
# single-end and paired, side by side in alternating rounds; the median wall time of REPEAT runs of each.
# Prints a table and writes facs_gzip.csv in WORKDIR. Reads: NREADS 100-bp reads, half drawn from a 2-Mbase
# random reference with 1% substitutions, half random (fixed seed), against a filter of that reference.
#
# Usage: bench/facs_gzip.sh [BIN_DIR] [WORKDIR]      (defaults: build/bin, build/facs-gzip-bench)
# Env:   THREADS (default 2), REPEAT (default 3), NREADS (default 1000000),
#        FACS_BASELINE (optional: another facs binary, e.g. an older build: its plain and gzip runs join the rounds)
# Needs: python3, gzip, bgzip (tabix), GNU time (/usr/bin/time)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
bin=$(cd "${1:-$src/build/bin}" && pwd)
work=${2:-$src/build/facs-gzip-bench}
threads=${THREADS:-2}
repeat=${REPEAT:-3}
nreads=${NREADS:-1000000}
for t in python3 gzip bgzip /usr/bin/time; do
  command -v "$t" >/dev/null || { echo "facs_gzip.sh: needs $t (apt-get install python3 gzip tabix time)" >&2; exit 69; }
done
mkdir -p "$work"
cd "$work"
if [ ! -f reads_1.fq ] || [ "$(( $(wc -l < reads_1.fq) / 4 ))" != "$nreads" ]; then
  python3 - "$nreads" "$src/bench" <<'PY'
import random, sys
sys.dont_write_bytecode = True  # nothing written into bench/
sys.path.insert(0, sys.argv[2])
from facs_bench_reads import mutate
n = int(sys.argv[1]); rnd = random.Random(17)
ref = ''.join(rnd.choice('ACGT') for _ in range(2_000_000))
with open('ref.fa', 'w') as f:
    f.write('>ref\n')
    for i in range(0, len(ref), 80): f.write(ref[i:i + 80] + '\n')
comp = str.maketrans('ACGT', 'TGCA')
q = 'I' * 100
with open('reads_1.fq', 'w') as f1, open('reads_2.fq', 'w') as f2:
    for r in range(n):
        if r % 2 == 0:
            p = rnd.randrange(len(ref) - 300)
            a = mutate(ref[p:p + 100], rnd); b = mutate(ref[p + 200:p + 300], rnd).translate(comp)[::-1]
        else:
            a = ''.join(rnd.choice('ACGT') for _ in range(100)); b = ''.join(rnd.choice('ACGT') for _ in range(100))
        f1.write(f'@r{r}/1\n{a}\n+\n{q}\n'); f2.write(f'@r{r}/2\n{b}\n+\n{q}\n')
PY
  for m in 1 2; do gzip -6 -c reads_$m.fq > reads_$m.fq.gz; bgzip -c reads_$m.fq > reads_$m.bgz.fq.gz; done
  "$bin/facs" build-filter -o ref.bf ref.fa 2> /dev/null
fi

# the median wall and CPU (user + sys) seconds of the runs recorded for a label
declare -A times cpus
run() {  # label cmd...
  local label=$1
  shift
  /usr/bin/time -f "%e %U %S" -o time.txt "$@" > /dev/null 2> stderr.txt || { cat stderr.txt >&2; exit 1; }
  read -r wall user sys < time.txt
  times[$label]+="$wall "
  cpus[$label]+="$(awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}') "
}
labels=("plain" "gzip" "bgzip" "plain pairs" "gzip pairs")
baseline=${FACS_BASELINE:-}
[ -n "$baseline" ] && labels+=("base plain" "base gzip" "base gz pairs")
for _ in $(seq "$repeat"); do
  if [ -n "$baseline" ]; then
    run "base plain" "$baseline" classify reads_1.fq ref.bf -t "$threads" --summary /dev/null
    run "base gzip" "$baseline" classify reads_1.fq.gz ref.bf -t "$threads" --summary /dev/null
    run "base gz pairs" "$baseline" classify reads_1.fq.gz --mate reads_2.fq.gz ref.bf -t "$threads" --summary /dev/null
  fi
  run "plain" "$bin/facs" classify reads_1.fq ref.bf -t "$threads" --summary /dev/null
  run "gzip" "$bin/facs" classify reads_1.fq.gz ref.bf -t "$threads" --summary /dev/null
  run "bgzip" "$bin/facs" classify reads_1.bgz.fq.gz ref.bf -t "$threads" --summary /dev/null
  run "plain pairs" "$bin/facs" classify reads_1.fq --mate reads_2.fq ref.bf -t "$threads" --summary /dev/null
  run "gzip pairs" "$bin/facs" classify reads_1.fq.gz --mate reads_2.fq.gz ref.bf -t "$threads" --summary /dev/null
done
median() { printf '%s\n' $1 | sort -g | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}'; }
# vs_plain: plain seconds / these seconds (reads/s relative to the same reads uncompressed), wall and CPU.
echo "input,reads,threads,wall_s_median,reads_per_s,wall_ratio_to_plain,cpu_s_median,cpu_ratio_to_plain" > facs_gzip.csv
printf '%-12s %9s %7s %8s %11s %9s %8s %9s\n' input reads threads wall_s reads/s vs_plain cpu_s vs_plain
for l in "${labels[@]}"; do
  s=$(median "${times[$l]}")
  c=$(median "${cpus[$l]}")
  base=plain
  [[ $l == *pairs ]] && base="plain pairs"
  [[ $l == base* && $l != *pairs ]] && base="base plain"  # the baseline's gzip pairs: against this build's plain pairs
  ratio=$(awk -v b="$(median "${times[$base]}")" -v s="$s" 'BEGIN {printf "%.2f", b / s}')
  cratio=$(awk -v b="$(median "${cpus[$base]}")" -v s="$c" 'BEGIN {printf "%.2f", b / s}')
  rps=$(awk -v n="$nreads" -v s="$s" 'BEGIN {printf "%.0f", n / s}')
  printf '%-12s %9s %7s %8s %11s %9s %8s %9s\n' "$l" "$nreads" "$threads" "$s" "$rps" "$ratio" "$c" "$cratio"
  echo "$l,$nreads,$threads,$s,$rps,$ratio,$c,$cratio" >> facs_gzip.csv
done
echo "runs (seconds): $(for l in "${labels[@]}"; do printf '%s: %s; ' "$l" "${times[$l]}"; done)"
