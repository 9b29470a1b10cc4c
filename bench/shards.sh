#!/usr/bin/env bash
# Scale-out: what cutting a run into shards costs, for both tools. Every row is measured in this run:
#   blast-bloom  a query against a >= 200-Mbase database of many records (.2bit and FASTA), single run vs N shards
#   facs         >= 5 M reads (plain FASTQ) against a filter set, single run vs N shards; and a held-out input,
#                150-base pairs (two plain FASTQ files), the same way
# Columns: wall and CPU of the single run (one thread); for N shards run one after the other (one thread each):
# total CPU, its ratio to the single run's (work inflation; the plan step included for blast-bloom), the largest
# shard's peak memory; the merge's wall time and its share of the single run's wall; and two shards side by side
# on two cores: wall relative to the single run's. Every merged output is compared byte for byte with the single
# run's (column "identical"). Prints a table, writes shards.csv into OUT_DIR.
#
# Usage: bench/shards.sh BUILD_BIN_DIR [OUT_DIR]
#   SHARDS_MBASES (default 200): database size; SHARDS_N (default "2 4 8"): shard counts;
#   SHARDS_READS (default 5000000): facs reads; SHARDS_DIR (default /tmp/bloomseq-shards): inputs, built once
#   (never committed); SHARDS_TOOLS (default "blast facs"); facs: SHARDS_PAIRS (default 1000000) pairs of the
#   held-out input, SHARDS_CUT (default "bytes"; "bytes records" adds the counting scheme) the --shard-by values,
#   SHARDS_REPEAT (default 3) runs of each measurement (medians), SHARDS_FACS_INPUTS (default "single pairs") the
#   facs rows to run. Pairs cut by bytes are measured twice, alternating: shards counting both files up to their
#   block, and shards started where a shard plan says (facs plan-shards; the plan's CPU in the total, row "plan").
# Needs: python3, GNU time; the Debian example genomes (scripts/fetch-data.sh).
set -euo pipefail
bin=$(cd "${1:?usage: bench/shards.sh BUILD_BIN_DIR [OUT_DIR]}" && pwd)
out="${2:-bench-results}"
here="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$out"
out=$(cd "$out" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mbases="${SHARDS_MBASES:-200}"
counts="${SHARDS_N:-2 4 8}"
nreads="${SHARDS_READS:-5000000}"
dir="${SHARDS_DIR:-/tmp/bloomseq-shards}"
tools="${SHARDS_TOOLS:-blast facs}"
npairs="${SHARDS_PAIRS:-1000000}"
cuts="${SHARDS_CUT:-bytes}"
repeat="${SHARDS_REPEAT:-3}"
facs_inputs="${SHARDS_FACS_INPUTS:-single pairs}"
mkdir -p "$dir"
declare -A path
while IFS=$'\t' read -r name p; do path[$name]="$p"; done < <("$here/scripts/fetch-data.sh")
ecoli="${path[ecoli_536.fa]}"; ssuis="${path[ssuis_sc84.fa]}"; klebs="${path[klebsiella_hs11286.fa]}"

# wall s, CPU s, peak MB of a command (stdout to /dev/null)
measure() {
  /usr/bin/time -f "%e %U %S %M" -o "$tmp/time" "$@" > /dev/null 2> "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
  awk '{printf "%.2f %.2f %.0f\n", $1, $2 + $3, $4 / 1024}' "$tmp/time"
}
csv="$out/shards.csv"
echo "tool,input,shards,single_wall_s,single_cpu_s,single_peak_mb,shards_cpu_s,cpu_ratio,max_shard_peak_mb,merge_wall_s,merge_share,two_side_by_side_wall_ratio,identical" > "$csv"
printf "\n%-6s %-18s %3s %8s %8s %7s %9s %6s %8s %8s %6s %9s %5s\n" tool input N wall_s cpu_s peakMB shardsCPU ratio maxpeak merge_s share 2x2cores ident
row() {  # tool input N single_wall single_cpu single_peak shards_cpu max_peak merge_wall two_wall identical
  local ratio share two
  ratio=$(awk -v a="$7" -v b="$5" 'BEGIN{printf "%.3f", a / b}')
  share=$(awk -v a="$9" -v b="$4" 'BEGIN{printf "%.3f", a / b}')
  two=$([ "${10}" = "-" ] && echo - || awk -v a="${10}" -v b="$4" 'BEGIN{printf "%.3f", a / b}')
  printf "%-6s %-18s %3s %8s %8s %7s %9s %6s %8s %8s %6s %9s %5s\n" "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$ratio" "$8" "$9" "$share" "$two" "${11}"
  echo "$1,$2,$3,$4,$5,$6,$7,$ratio,$8,$9,$share,$two,${11}" >> "$csv"
}
uptime

if [[ " $tools " == *" blast "* ]]; then
  db="$dir/repeats_${mbases}M"
  if [ ! -s "$db.2bit" ] || [ ! -s "$db.fa" ]; then
    echo "building $db ($mbases Mbases)"
    python3 "$here/bench/blast_small_query_db.py" repeats "$db.fa" "$mbases" 2 "$ecoli" "$ssuis" "$klebs"
    "$bin/blast-bloom" encode "$db.fa" -o "$db.2bit"
  fi
  # The query: 50 kbases of E. coli (held in the database's copies at several divergences), w = 11.
  { echo ">ecoli_50k"; (set +o pipefail; grep -v '^>' "$ecoli" | tr -d '\n' | tail -c +1500001 | head -c 50000 | fold -w 70); echo; } > "$tmp/query.fa"
  for ext in 2bit fa; do
    d="$db.$ext"
    read -r sw sc sp < <(measure "$bin/blast-bloom" --no-progress -t 1 "$tmp/query.fa" "$d" -o "$tmp/single.tsv")
    read -r pw pc pp < <(measure "$bin/blast-bloom" plan --no-progress "$tmp/query.fa" "$d" -o "$tmp/plan.json")
    for n in $counts; do
      total="$pc" peak=0
      for i in $(seq "$n"); do
        read -r w c p < <(measure "$bin/blast-bloom" --no-progress -t 1 --plan "$tmp/plan.json" --db-shard "$i/$n" \
                            "$tmp/query.fa" "$d" -o "$tmp/part$i.bbp")
        total=$(awk -v a="$total" -v b="$c" 'BEGIN{print a + b}')
        [ "$p" -gt "$peak" ] && peak=$p
      done
      sync
      read -r mw mc mp < <(measure "$bin/blast-bloom" merge -o "$tmp/merged.tsv" $(seq -f "$tmp/part%g.bbp" "$n"))
      ident=$(cmp -s "$tmp/single.tsv" "$tmp/merged.tsv" && echo yes || echo NO)
      two=-
      if [ "$n" = 2 ]; then  # both shards at once, one per core
        t0=$(date +%s.%N)
        for i in 1 2; do
          "$bin/blast-bloom" --no-progress -t 1 --plan "$tmp/plan.json" --db-shard "$i/2" "$tmp/query.fa" "$d" -o "$tmp/p2_$i.bbp" &
        done
        wait
        two=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f", b - a}')
      fi
      row blast "$(basename "$d")" "$n" "$sw" "$sc" "$sp" "$total" "$peak" "$mw" "$two" "$ident"
      rm -f "$tmp"/part*.bbp "$tmp"/p2_*.bbp
    done
  done
fi

if [[ " $tools " == *" facs "* ]]; then
  # Synthetic reads: half from E. coli 536, half random; ARGS: count, length, output, seed (mates: reverse
  # complement of the fragment's other end, so a pair holds 2 reads of a 3x-length fragment).
  gen_reads() {
    python3 - "$ecoli" "$@" <<'PY'
import random, sys
genome = "".join(l.strip() for l in open(sys.argv[1]) if not l.startswith(">")).upper()
n, length, out, seed = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
paired = len(sys.argv) > 6
rng = random.Random(seed)
comp = str.maketrans("ACGT", "TGCA")
f1 = open(out + ("_1.fq" if paired else ".fq"), "w")
f2 = open(out + "_2.fq", "w") if paired else None
qual = "".join(chr(33 + 2 + (i * 7) % 39) for i in range(length))
for i in range(n):
    if i % 2 == 0:
        p = rng.randrange(len(genome) - 3 * length)
        frag = genome[p:p + 3 * length]
    else:
        frag = "".join(rng.choice("ACGT") for _ in range(3 * length))
    f1.write(f"@r{i}/1\n{frag[:length]}\n+\n{qual}\n" if paired else f"@r{i}\n{frag[:length]}\n+\n{'I' * length}\n")
    if paired:
        f2.write(f"@r{i}/2\n{frag[-length:].translate(comp)[::-1]}\n+\n{qual}\n")
PY
  }
  reads="$dir/reads_${nreads}.fq"
  if [[ " $facs_inputs " == *" single "* ]] && [ ! -s "$reads" ]; then
    echo "generating $reads ($nreads reads of 100 bases: half from E. coli 536, half random)"
    gen_reads "$nreads" 100 "$dir/reads_${nreads}.tmp" 16 && mv "$dir/reads_${nreads}.tmp.fq" "$reads"
  fi
  pairs="$dir/pairs_${npairs}_150"
  if [ ! -s "${pairs}_2.fq" ]; then
    echo "generating ${pairs}_{1,2}.fq ($npairs pairs of 150 bases, the held-out input)"
    gen_reads "$npairs" 150 "$pairs" 17 paired
  fi
  [ -s "$dir/refs.bf" ] || "$bin/facs" build-filter -o "$dir/refs.bf" "$ecoli" "$ssuis" "$here/data/lambda_virus.fa" 2> /dev/null
  median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
  # facs_case LABEL PLANS CLASSIFY_INPUT_ARGS...: single run vs N shards (--shard-by $cut), each measured $repeat
  # times (medians), shards of one set one after the other; the merge; two shards side by side. PLANS: "no", or
  # "no yes" to measure the shards also with a shard plan (facs plan-shards, its CPU counted in the total), the two
  # ways alternating within each repeat; one row each.
  facs_case() {
    local label=$1 plans=$2
    shift 2
    local single=(--no-progress -t 1 "$@" "$dir/refs.bf") k sw sc sp w c p ws=() cs=() mode
    local pair_args=("$@")
    for k in $(seq "$repeat"); do
      read -r w c p < <(measure "$bin/facs" classify "${single[@]}" -o "$tmp/calls.tsv" --summary "$tmp/summary.tsv")
      ws+=("$w"); cs+=("$c"); sp=$p
    done
    sw=$(printf '%s\n' "${ws[@]}" | median); sc=$(printf '%s\n' "${cs[@]}" | median)
    for n in $counts; do
      local -A totals=() merges=() twos=() peak=() ident=()
      local total i plan_args
      for k in $(seq "$repeat"); do
        for mode in $plans; do
          total=0 plan_args=()
          [ -n "${peak[$mode]:-}" ] || peak[$mode]=0
          if [ "$mode" = yes ]; then
            read -r w c p < <(measure "$bin/facs" plan-shards -q "${pair_args[@]}" -n "$n" -o "$tmp/shards.plan")
            total=$c plan_args=(--shard-plan "$tmp/shards.plan")
          fi
          for i in $(seq "$n"); do
            read -r w c p < <(measure "$bin/facs" classify "${single[@]}" --shard "$i/$n" --shard-by "$cut" \
                                "${plan_args[@]}" -o "$tmp/calls.$i.part" --summary "$tmp/summary.$i.part")
            total=$(awk -v a="$total" -v b="$c" 'BEGIN{print a + b}')
            [ "$p" -gt "${peak[$mode]}" ] && peak[$mode]=$p
          done
          totals[$mode]+="$total "
          sync  # the parts' writeback belongs to the shards, not to the merge (in a workflow it is long done)
          read -r mw mc mp < <(measure "$bin/facs" merge -o "$tmp/merged.tsv" --summary "$tmp/msummary.tsv" \
                                 $(seq -f "$tmp/calls.%g.part" "$n") $(seq -f "$tmp/summary.%g.part" "$n"))
          merges[$mode]+="$mw "
          if cmp -s <(tail -n +2 "$tmp/calls.tsv") <(tail -n +2 "$tmp/merged.tsv") &&
             cmp -s "$tmp/summary.tsv" "$tmp/msummary.tsv"; then
            [ "${ident[$mode]:-yes}" = yes ] && ident[$mode]=yes
          else
            ident[$mode]=NO
          fi
          if [ "$n" = 2 ]; then
            local t0
            t0=$(date +%s.%N)
            for i in 1 2; do
              "$bin/facs" classify "${single[@]}" --shard "$i/2" --shard-by "$cut" "${plan_args[@]}" \
                -o "$tmp/p2.$i.part" --summary "$tmp/s2.$i.part" 2> /dev/null &
            done
            wait
            twos[$mode]+="$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f", b - a}') "
          fi
          rm -f "$tmp"/calls.*.part "$tmp"/summary.*.part "$tmp"/p2.*.part "$tmp"/s2.*.part "$tmp/merged.tsv"
        done
      done
      for mode in $plans; do
        two=-
        [ "$n" = 2 ] && two=$(printf '%s\n' ${twos[$mode]} | median)
        row facs "$label, $cut$([ "$mode" = yes ] && echo ", plan")" "$n" "$sw" "$sc" "$sp" \
          "$(printf '%s\n' ${totals[$mode]} | median)" "${peak[$mode]}" "$(printf '%s\n' ${merges[$mode]} | median)" \
          "$two" "${ident[$mode]}"
      done
      unset totals merges twos peak ident
    done
  }
  for cut in $cuts; do
    if [[ " $facs_inputs " == *" single "* ]]; then facs_case "$(basename "$reads")" no "$reads"; fi
    if [[ " $facs_inputs " == *" pairs "* ]]; then
      # Pairs cut by bytes: with and without the shard plan (a plan holds byte offsets: none for records).
      facs_case "$(basename "$pairs")_{1,2}" "$([ "$cut" = bytes ] && echo "no yes" || echo no)" \
        "${pairs}_1.fq" --mate "${pairs}_2.fq"
    fi
  done
fi
echo "CSV: $csv"
