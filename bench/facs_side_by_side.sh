#!/usr/bin/env bash
# Two facs builds and kraken2 side by side on the same reads: runs alternate tool by tool within each round (so a
# busy, shared machine slows all alike), for 1 and 2 threads, plain and gzip input; every tool writes its per-read
# output to /dev/null. Prints medians and the medians of the per-round ratios; writes facs_side_by_side.csv.
#
# Usage: bench/facs_side_by_side.sh NEW_FACS OLD_FACS WORKDIR [ROUNDS]
#   WORKDIR as made by bench/facs.sh (reads/mix.fq, reads/mix.fq.gz, refs.bf, kraken/).
set -euo pipefail
new=$1 old=$2 work=$3 rounds=${4:-5}
for t in kraken2 python3 /usr/bin/time; do
  command -v "$t" >/dev/null || { echo "facs_side_by_side.sh: needs $t" >&2; exit 69; }
done
cd "$work"
[ -f reads/mix.fq.gz ] || gzip -kf reads/mix.fq
csv=facs_side_by_side.csv
echo "round,tool,threads,input,wall_s,cpu_s,peak_kb" > "$csv"
one() {  # tool threads input command...
  local tool=$1 t=$2 in=$3
  shift 3
  /usr/bin/time -f "%e %U %S %M" -o side_time.txt "$@" > /dev/null 2> side_err.txt || { cat side_err.txt >&2; exit 1; }
  read -r e u s m < side_time.txt
  echo "$round,$tool,$t,$in,$e,$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }'),$m" >> "$csv"
}
for round in $(seq "$rounds"); do
  for t in 1 2; do
    for in in mix.fq mix.fq.gz; do
      one facs_new "$t" "$in" "$new" classify -t "$t" "reads/$in" refs.bf -o /dev/null --summary /dev/null
      one facs_old "$t" "$in" "$old" classify -t "$t" "reads/$in" refs.bf -o /dev/null --summary /dev/null
      one kraken2 "$t" "$in" kraken2 --db kraken --threads "$t" --output /dev/null "reads/$in"
    done
  done
done
nreads=$(( $(wc -l < reads/mix.fq) / 4 ))
python3 - "$csv" "$nreads" <<'EOF'
import collections, csv, statistics as st, sys
rows = list(csv.DictReader(open(sys.argv[1])))
n = int(sys.argv[2])
groups = collections.defaultdict(list)
for r in rows:
    groups[(r['threads'], r['input'], r['tool'])].append(r)
print(f"{'threads':>7} {'input':>10} {'tool':>9} {'wall s':>7} {'reads/s':>9} {'CPU us/read':>11} {'peak MB':>7}")
for (t, i, tool), rs in sorted(groups.items()):
    wall = st.median(float(r['wall_s']) for r in rs)
    cpu = st.median(float(r['cpu_s']) for r in rs)
    peak = max(int(r['peak_kb']) for r in rs) / 1024
    print(f"{t:>7} {i:>10} {tool:>9} {wall:7.2f} {n / wall:9.0f} {cpu / n * 1e6:11.2f} {peak:7.0f}")
by_round = collections.defaultdict(dict)
for r in rows:
    by_round[(r['round'], r['threads'], r['input'])][r['tool']] = float(r['wall_s'])
ratios = collections.defaultdict(list)
for (_, t, i), d in by_round.items():
    if len(d) == 3:
        ratios[(t, i, 'facs_old / facs_new')].append(d['facs_old'] / d['facs_new'])
        ratios[(t, i, 'kraken2 / facs_new')].append(d['kraken2'] / d['facs_new'])
for (t, i, what), v in sorted(ratios.items()):
    print(f"{t} thread(s), {i}: {what} = {st.median(v):.2f} (rounds: {', '.join(f'{x:.2f}' for x in v)})")
EOF
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); wrote $work/$csv"
