#!/usr/bin/env bash
# facs classify with the filters copied into memory (--load copy) against borrowed from a mapping of the .bf
# (--load map), side by side: for each filter set and read count, REPEAT alternating rounds (copy first in even
# rounds, map first in odd ones), medians of wall, CPU (user + system) and the run's load seconds (--json), and
# the map/copy ratios (every run's times in facs_load_runs.csv). Every run's calls must be identical between the two (checked). The .bf files and reads come
# from bench/facs_refs_scale.sh's WORKDIR (run it first with the same REFS); the files stay in the page cache
# between runs (warm), which is what repeated classify runs see.
#
# Usage: bench/facs_load.sh [BIN_DIR] [WORKDIR]     (defaults: build/bin, build/facs-refs-scale)
# Env:   SETS ("interleaved_256 interleaved_1024 separate_256"), NREADS ("20000 100000"), THREADS (2), REPEAT (3)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
bin=$(cd "${1:-$src/build/bin}" && pwd)
work=${2:-$src/build/facs-refs-scale}
sets=${SETS:-interleaved_256 interleaved_1024 separate_256}
nreads_list=${NREADS:-20000 100000}
threads=${THREADS:-2}
repeat=${REPEAT:-3}
cd "$work"
# Reads as facs_refs_scale.sh makes them (same generator and seed: its reads.fq is reads_<its NREADS>.fq).
for n in $nreads_list; do
  [ -f reads_$n.fq ] && continue
  python3 "$src/bench/facs_bench_reads.py" "$n" reads_$n.fq.tmp
  mv reads_$n.fq.tmp reads_$n.fq
done

declare -A wall cpu loads
run() {  # set nreads load
  /usr/bin/time -f "%e %U %S" -o time.txt "$bin/facs" classify -t "$threads" --no-progress --load "$3" \
    -o calls_$3.tsv --json run_$3.json reads_$2.fq "$1.bf" > /dev/null 2> stderr_$3.txt || { cat stderr_$3.txt >&2; exit 1; }
  local e u s
  read -r e u s < time.txt
  wall[$1_$2_$3]+="$e "
  cpu[$1_$2_$3]+="$(echo "$u $s" | awk '{print $1 + $2}') "
  loads[$1_$2_$3]+="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"]["load_seconds"])' run_$3.json) "
  echo "$1,$2,$3,$e,$u,$s,$(cut -d' ' -f1 /proc/loadavg)" >> facs_load_runs.csv  # every run, in order
}
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
echo "set,reads,load,wall_s,user_s,sys_s,loadavg" > facs_load_runs.csv
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for s in $sets; do
  cat "$s.bf" > /dev/null  # into the page cache before the first round
  for n in $nreads_list; do
    for ((i = 0; i < repeat; i++)); do
      if ((i % 2)); then run "$s" "$n" map; run "$s" "$n" copy; else run "$s" "$n" copy; run "$s" "$n" map; fi
      cmp -s <(grep -v '^#' calls_copy.tsv) <(grep -v '^#' calls_map.tsv) || { echo "calls differ: $s $n" >&2; exit 1; }
    done
  done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
csv=facs_load.csv
echo "set,filter_bytes,reads,load,wall_s,cpu_s,load_s,wall_map_over_copy,cpu_map_over_copy,threads,loadavg_before,loadavg_after" > "$csv"
printf "%-18s %14s %8s %5s %8s %8s %8s %9s %9s\n" set filter_bytes reads load wall_s cpu_s load_s wall_ratio cpu_ratio
for s in $sets; do
  for n in $nreads_list; do
    wc=$(echo "${wall[${s}_${n}_copy]}" | median); cc=$(echo "${cpu[${s}_${n}_copy]}" | median)
    for l in copy map; do
      w=$(echo "${wall[${s}_${n}_$l]}" | median); c=$(echo "${cpu[${s}_${n}_$l]}" | median)
      ld=$(echo "${loads[${s}_${n}_$l]}" | median)
      rw=$(awk -v a="$w" -v b="$wc" 'BEGIN {printf "%.2f", a / b}'); rc=$(awk -v a="$c" -v b="$cc" 'BEGIN {printf "%.2f", a / b}')
      printf "%-18s %14s %8s %5s %8s %8s %8s %9s %9s\n" "$s" "$(stat -c %s "$s.bf")" "$n" "$l" "$w" "$c" "$ld" "$rw" "$rc"
      echo "$s,$(stat -c %s "$s.bf"),$n,$l,$w,$c,$ld,$rw,$rc,$threads,$load_before,$load_after" >> "$csv"
    done
  done
done
echo "load average before/after: $load_before / $load_after; medians of $repeat alternating rounds; $threads threads; CSV: $work/$csv"
