#!/usr/bin/env bash
# The everyday BLAST shape: a short query (1, 10, 50 kbases of real sequence) against a large database, blast-bloom
# with its defaults vs blastn on a makeblastdb database, side by side in one run: wall and CPU time (medians of
# alternated repeats), their ratios, and HSP agreement (the -outfmt 6 lines, sorted, identical). Prints a table and
# writes CSV into OUT_DIR.
#
# Usage: bench/blast_small_query.sh BUILD_BIN_DIR [OUT_DIR]
#   Databases (built once into BLAST_SQ_DIR, default /tmp/bloomseq-small-query; never committed): "random", uniform
#   random bases, and "repeats", 100-kbase pieces of the Debian example genomes (scripts/fetch-data.sh: E. coli 536,
#   S. suis, K. pneumoniae) copied with 0.5-20% substitutions and N runs (bench/blast_small_query_db.py); each
#   BLAST_SQ_MBASES (default 200) Mbases, as .2bit for blast-bloom and a makeblastdb database for blastn.
#   Queries: lambda phage (data/lambda_virus.fa, 48.5 kb), E. coli 536 [2,000,000, +10 kb) and [3,000,000, +1 kb);
#   held out (never used while tuning): S. suis [1,000,000, +10 kb).
#   BLAST_SQ_THREADS (default "1 2"), BLAST_SQ_REPEATS (default 3).
#   BLAST_BENCH_BASELINE=OTHER_BIN_DIR: also that build's blast-bloom (tool "baseline"), alternated with this one,
#   on the random database with one thread (its default plan is slow here; fewer rows keep the run short).
set -euo pipefail
bin="${1:?usage: bench/blast_small_query.sh BUILD_BIN_DIR [OUT_DIR]}"
out="${2:-bench-results}"
here="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$out"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
source "$here/bench/blast_inputs.sh"
klebs="${path[klebsiella_hs11286.fa]}"

mbases="${BLAST_SQ_MBASES:-200}"
dir="${BLAST_SQ_DIR:-/tmp/bloomseq-small-query}"
threads="${BLAST_SQ_THREADS:-1 2}"
repeats="${BLAST_SQ_REPEATS:-3}"
mkdir -p "$dir"
for db in random repeats; do
  name="$dir/${db}_${mbases}M"
  if [ ! -s "$name.2bit" ] || [ ! -s "$name.nsq" ] && [ ! -s "$name.00.nsq" ]; then
    echo "building $name ($mbases Mbases)"
    if [ "$db" = random ]; then python3 "$here/bench/blast_small_query_db.py" random "$name.fa" "$mbases" 1
    else python3 "$here/bench/blast_small_query_db.py" repeats "$name.fa" "$mbases" 2 "$ecoli" "$ssuis" "$klebs"; fi
    "$bin/blast-bloom" encode "$name.fa" -o "$name.2bit"
    makeblastdb -in "$name.fa" -dbtype nucl -out "$name" > /dev/null
    rm -f "$name.fa"
  fi
done
sync  # a fresh database's writeback would otherwise share the cores with the first rows

piece() {  # name genome start length -> FASTA file
  local f="$tmp/$1.fa"
  { echo ">$1"; (set +o pipefail; grep -v '^>' "$2" | tr -d '\n' | tail -c +"$(( $3 + 1 ))" | head -c "$4" | fold -w 70); echo; } > "$f"
  echo "$f"
}
declare -A query=([lambda_48k]="$lambda" [ecoli_10k]="$(piece ecoli_10k "$ecoli" 2000000 10000)"
                  [ecoli_1k]="$(piece ecoli_1k "$ecoli" 3000000 1000)" [ssuis_10k_heldout]="$(piece ssuis_10k "$ssuis" 1000000 10000)")

csv="$out/blast_small_query.csv"
echo "db,query,w,threads,tool,wall_s,cpu_s,hsps,identical_hsps,wall_ratio_vs_blastn,cpu_ratio_vs_blastn,read_fraction" > "$csv"
printf "\n%-8s %-18s %3s %3s %-12s %8s %8s %7s %9s %7s %7s %6s\n" db query w thr tool wall_s cpu_s hsps identical wall/bn cpu/bn read
measure() {  # -> "wall cpu" of the command, its stdout into $tmp/out
  # bash's own timer to the millisecond: /usr/bin/time rounds to 10 ms, as long as some whole runs at w = 28.
  local TIMEFORMAT='%3R %3U %3S'
  { time "$@" > "$tmp/out"; } 2> "$tmp/time"
  tail -n 1 "$tmp/time" | awk '{printf "%.3f %.3f\n", $1, $2 + $3}'
}
median() { sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
uptime
for db in random repeats; do
  name="$dir/${db}_${mbases}M"
  for q in lambda_48k ecoli_10k ecoli_1k ssuis_10k_heldout; do
    for w in 11 28; do
      for t in $threads; do
        tools="blastn blast-bloom"
        [ -n "${BLAST_BENCH_BASELINE:-}" ] && [ "$db" = random ] && [ "$t" = 1 ] && tools="blastn baseline blast-bloom"
        declare -A walls=() cpus=()
        for r in $(seq "$repeats"); do
          for tool in $tools; do
            case $tool in
              blastn) cmd=(blastn -task blastn -ungapped -dust no -sum_stats false -word_size "$w" -reward 1 -penalty -2
                           -num_threads "$t" -query "${query[$q]}" -db "$name" -outfmt 6) ;;
              baseline) cmd=("$BLAST_BENCH_BASELINE/blast-bloom" --ungapped --reward 1 --penalty=-2 --no-header --no-progress -w "$w" -t "$t" "${query[$q]}" "$name.2bit") ;;
              *) cmd=("$bin/blast-bloom" --ungapped --dust no --reward 1 --penalty=-2 --no-header --no-progress -w "$w" -t "$t" --stats "$tmp/stats.json" "${query[$q]}" "$name.2bit") ;;
            esac
            read -r ow oc < <(measure "${cmd[@]}")
            walls[$tool]+="$ow "; cpus[$tool]+="$oc "
            sort "$tmp/out" > "$tmp/$tool.sorted"
          done
        done
        n_bn=$(wc -l < "$tmp/blastn.sorted")
        bw=$(echo "${walls[blastn]}" | tr ' ' '\n' | grep . | median); bc=$(echo "${cpus[blastn]}" | tr ' ' '\n' | grep . | median)
        for tool in $tools; do
          wall=$(echo "${walls[$tool]}" | tr ' ' '\n' | grep . | median); cpu=$(echo "${cpus[$tool]}" | tr ' ' '\n' | grep . | median)
          n=$(wc -l < "$tmp/$tool.sorted"); same=$(comm -12 "$tmp/blastn.sorted" "$tmp/$tool.sorted" | wc -l)
          rw=$(awk -v a="$wall" -v b="$bw" 'BEGIN{printf "%.2f", a/b}'); rc=$(awk -v a="$cpu" -v b="$bc" 'BEGIN{printf "%.2f", a/b}')
          read_frac=""
          if [ "$tool" = blast-bloom ]; then  # time outside the stages: reading the database (and the query, output)
            read_frac=$(python3 -c "import json; s=json.load(open('$tmp/stats.json'))['seconds']; \
print('%.2f' % max(0.0, 1 - (s['build'] + s['stage1a'] + s['stage1b'] + s['stage2']) / s['total']))")
          fi
          [ "$tool" = blastn ] && same="-"
          printf "%-8s %-18s %3s %3s %-12s %8s %8s %7s %9s %7s %7s %6s\n" "$db" "$q" "$w" "$t" "$tool" "$wall" "$cpu" "$n" "$same" "$rw" "$rc" "$read_frac"
          echo "$db,$q,$w,$t,$tool,$wall,$cpu,$n,$same,$rw,$rc,$read_frac" >> "$csv"
        done
        unset walls cpus
      done
    done
  done
done
uptime
echo "CSV: $csv"
