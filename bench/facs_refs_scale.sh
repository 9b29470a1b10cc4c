#!/usr/bin/env bash
# How `facs classify` scales with the number of references: separate filters (blocked, build-filter's default below 64 references)
# against one interleaved set (build-filter --layout interleaved), on the same reads, side by side in alternating
# rounds. References: REFS_MAX random genomes of GENOME_BASES each (fixed seed); the sets of 8, 64, ... hold the
# first R of them. Reads: NREADS 100-bp reads, half drawn from the first 8 references (present in every set) with
# 1% substitutions, half random, so every set is measured on the same reads.
# Prints a table and writes facs_refs_scale.csv in WORKDIR: per set size and layout the median classify time
# (wall, and the run's own seconds without loading the filters, from --json), filter file size, build time, and
# accuracy (reads from a reference called to it; random reads called novel); then time(largest)/time(8) per layout.
#
# Usage: bench/facs_refs_scale.sh [BIN_DIR] [WORKDIR]     (defaults: build/bin, build/facs-refs-scale)
# Env:   REFS ("8 64 256 1024"), GENOME_BASES (500000), NREADS (20000), THREADS (2), REPEAT (3)
# Needs: python3, GNU time (/usr/bin/time); disk: GENOME_BASES x max(REFS) bytes of FASTA plus the filters
#        (about 2 bytes per base per layout at the default FPR); memory: twice the largest filter.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
bin=$(cd "${1:-$src/build/bin}" && pwd)
work=${2:-$src/build/facs-refs-scale}
refs_list=${REFS:-8 64 256 1024}
genome=${GENOME_BASES:-500000}
nreads=${NREADS:-20000}
threads=${THREADS:-2}
repeat=${REPEAT:-3}
[[ $repeat =~ ^[1-9][0-9]*$ ]] || { echo "facs_refs_scale.sh: REPEAT must be a whole number >= 1 (every row is a median of classify runs), got '$repeat'" >&2; exit 64; }
for t in python3 /usr/bin/time; do
  command -v "$t" >/dev/null || { echo "facs_refs_scale.sh: needs $t (apt-get install python3 time)" >&2; exit 69; }
done
max=0
for r in $refs_list; do [ "$r" -gt "$max" ] && max=$r; done
mkdir -p "$work/refs"
cd "$work"
# References (kept, with their filters, while REFS' largest count and GENOME_BASES stay the same), then reads.
if [ "$(cat refs.stamp 2>/dev/null)" != "$max $genome" ]; then
  rm -f refs/*.fa ./*.bf reads.stamp
  python3 - "$max" "$genome" <<'PY'
import random, sys
nref, size = int(sys.argv[1]), int(sys.argv[2])
rnd = random.Random(20)
acgt = bytes.maketrans(bytes(range(256)), b'ACGT' * 64)  # a random byte is a uniform base
for g in range(nref):
    seq = rnd.randbytes(size).translate(acgt).decode()
    with open(f'refs/g{g:04d}.fa', 'w') as f:
        f.write(f'>g{g:04d}\n')
        for i in range(0, size, 80): f.write(seq[i:i + 80] + '\n')
PY
  echo "$max $genome" > refs.stamp
fi
if [ "$(cat reads.stamp 2>/dev/null)" != "$nreads" ]; then
  python3 "$src/bench/facs_bench_reads.py" "$nreads" reads.fq
  echo "$nreads" > reads.stamp
fi

# Filters: built once per set size and layout (build wall seconds kept in build_<set>.s).
for r in $refs_list; do
  all_refs=(refs/*.fa)
  printf '%s\n' "${all_refs[@]:0:$r}" > list_$r.txt
  for layout in separate interleaved; do
    bf=${layout}_$r.bf
    [ -f "$bf" ] && continue
    extra=(--layout blocked)
    [ "$layout" = interleaved ] && extra=(--layout interleaved)
    /usr/bin/time -f "%e" -o build_${layout}_$r.s "$bin/facs" build-filter "${extra[@]}" -o "$bf" -t "$threads" \
      $(cat list_$r.txt) > /dev/null 2> build.err || { cat build.err >&2; exit 1; }
  done
done

declare -A walls runs
classify() {  # layout refs
  local bf=$1_$2.bf
  /usr/bin/time -f "%e" -o time.txt "$bin/facs" classify -t "$threads" --no-progress -o calls_$1_$2.tsv \
    --json run.json reads.fq "$bf" > /dev/null 2> stderr.txt || { cat stderr.txt >&2; exit 1; }
  walls[$1_$2]+="$(cat time.txt) "
  runs[$1_$2]+="$(python3 -c 'import json; print(json.load(open("run.json"))["results"]["seconds"])') "
}
for ((i = 0; i < repeat; i++)); do
  for r in $refs_list; do
    if ((i % 2)); then classify interleaved "$r"; classify separate "$r"; else classify separate "$r"; classify interleaved "$r"; fi
  done
done

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
accuracy() {  # calls.tsv -> "from_ref_ok random_ok" as fractions
  python3 - "$1" <<'PY'
import sys
ok = {'g': [0, 0], 'random': [0, 0]}
for line in open(sys.argv[1]):
    if line.startswith('#'): continue
    f = line.rstrip('\n').split('\t')
    truth = f[0].split('_', 1)[1]
    kind = 'random' if truth == 'random' else 'g'
    ok[kind][1] += 1
    if (kind == 'random' and f[1] == 'novel') or (kind == 'g' and f[1] == truth): ok[kind][0] += 1
print(f"{ok['g'][0] / max(ok['g'][1], 1):.5f} {ok['random'][0] / max(ok['random'][1], 1):.5f}")
PY
}
load=$(cut -d' ' -f1-3 /proc/loadavg)
csv=facs_refs_scale.csv
echo "refs,layout,classify_wall_s,classify_run_s,filter_bytes,build_s,from_ref_called_ok,random_novel_ok,reads,threads,load_avg" > "$csv"
printf "%6s %-12s %10s %10s %14s %9s %9s %9s\n" refs layout wall_s run_s filter_bytes build_s ref_ok random_ok
first=$(echo $refs_list | cut -d' ' -f1)
declare -A w0
for r in $refs_list; do
  for layout in separate interleaved; do
    wall=$(echo "${walls[${layout}_$r]}" | median)
    run=$(echo "${runs[${layout}_$r]}" | median)
    bytes=$(stat -c %s ${layout}_$r.bf)
    build=$(cat build_${layout}_$r.s)
    read -r okg okr < <(accuracy calls_${layout}_$r.tsv)
    printf "%6s %-12s %10s %10s %14s %9s %9s %9s\n" "$r" "$layout" "$wall" "$run" "$bytes" "$build" "$okg" "$okr"
    echo "$r,$layout,$wall,$run,$bytes,$build,$okg,$okr,$nreads,$threads,$load" >> "$csv"
    [ "$r" = "$first" ] && w0[$layout]=$wall
  done
done
for layout in separate interleaved; do
  wl=$(grep "^$max,$layout," "$csv" | cut -d, -f3)
  awk -v a="$wl" -v b="${w0[$layout]}" -v l="$layout" -v m="$max" -v f="$first" \
    'BEGIN {printf "%s: time(%s refs) / time(%s refs) = %.2f (wall)\n", l, m, f, a / b}'
done
echo "load average at the end: $load; medians of $repeat alternating rounds; $threads threads; CSV: $work/$csv"
