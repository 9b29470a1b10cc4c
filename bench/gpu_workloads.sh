#!/usr/bin/env bash
# Real workloads on a GPU machine: each run with --backend cuda and with --backend cpu on all cores, side by side on
# the same machine, outputs compared (sorted lines identical), wall time and the run's own stage times. Prints a table
# and writes gpu_workloads.csv into OUT_DIR. Complements gpu_bench (synthetic kernel throughput).
#
#   bench/gpu_workloads.sh BIN_DIR GENOME_DIR [OUT_DIR]
#
# GENOME_DIR holds ecoli_536.fa, ssuis_sc84.fa and klebsiella_hs11286.fa (scripts/fetch-data.sh puts them in
# ~/.cache/bloomseq/data). Everything else is made from fixed seeds in a scratch folder:
#   blast  genome against genome (E. coli 536 vs S. suis and the reverse, default gapped search; again with
#          --layout bitsliced --sub-query 8000: the device's bit-sliced kernel), and the everyday
#          shape: lambda (48.5 kb) and a 10-kb piece of E. coli against a random database of GPU_WL_MBASES
#          (default 200) Mbases (.2bit), also with --scan-word 10 (the short-word scan on the device), and the
#          10-kb piece against K. pneumoniae (held out).
#   facs   GPU_WL_REFS (default 256) synthetic references of 500 kb and GPU_WL_READS (default 1000000) 100-bp
#          reads (half from the references with 1% errors, half random), per-reference filters and an interleaved
#          set; held out: 64 references and reads from other seeds.
# GPU_WL_REPEATS (default 2): runs per backend, alternated; the table gives the median.
set -euo pipefail
bin="${1:?usage: bench/gpu_workloads.sh BIN_DIR GENOME_DIR [OUT_DIR]}"
genomes="${2:?usage: bench/gpu_workloads.sh BIN_DIR GENOME_DIR [OUT_DIR]}"
out="${3:-bench-results}"
src="$(cd "$(dirname "$0")/.." && pwd)"
mbases="${GPU_WL_MBASES:-200}"
nrefs="${GPU_WL_REFS:-256}"
nreads="${GPU_WL_READS:-1000000}"
repeats="${GPU_WL_REPEATS:-2}"
threads="$(nproc)"
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for g in ecoli_536 ssuis_sc84 klebsiella_hs11286; do
  [[ -s $genomes/$g.fa ]] || { echo "gpu_workloads: $genomes/$g.fa is missing (scripts/fetch-data.sh)" >&2; exit 66; }
done

echo "== inputs ($(date -u +%H:%M:%S))" >&2
python3 "$src/bench/blast_small_query_db.py" random "$tmp/random.fa" "$mbases" 1
"$bin/blast-bloom" encode "$tmp/random.fa" -o "$tmp/random.2bit"
rm -f "$tmp/random.fa"
{ echo ">ecoli_10k"; (set +o pipefail; grep -v '^>' "$genomes/ecoli_536.fa" | tr -d '\n' | tail -c +2000001 | head -c 10000 |
  fold -w 70); echo; } >"$tmp/ecoli_10k.fa"
python3 "$src/bench/facs_scale_data.py" refs "$tmp/refs" "$nrefs" --seed 1 --size-bp 500000 >/dev/null
python3 "$src/bench/facs_scale_data.py" reads "$tmp/refs" "$nrefs" "$tmp/reads.fq" --reads "$nreads" --seed 2 >/dev/null
python3 "$src/bench/facs_scale_data.py" refs "$tmp/held" 64 --seed 3 --size-bp 500000 >/dev/null
python3 "$src/bench/facs_scale_data.py" reads "$tmp/held" 64 "$tmp/held.fq" --reads "$nreads" --seed 4 >/dev/null
"$bin/facs" build-filter -q -t "$threads" --layout blocked -o "$tmp/refs.bf" "$tmp"/refs/ref*.fa
"$bin/facs" build-filter -q -t "$threads" --layout interleaved -o "$tmp/refs-ibf.bf" "$tmp"/refs/ref*.fa
"$bin/facs" build-filter -q -t "$threads" --layout interleaved -o "$tmp/held-ibf.bf" "$tmp"/held/ref*.fa

csv="$out/gpu_workloads.csv"
echo "workload,backend,threads,wall_s,lines,identical_to_cpu,stats" >"$csv"
printf "%-44s %-5s %3s %8s %9s %9s %7s  %s\n" workload back thr wall_s lines same cuda/cpu stats
median() { sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }

# run NAME TOOL ARGS... : both backends, alternated GPU_WL_REPEATS times; output in $tmp/NAME.BACKEND.out
run() {
  local name=$1 b r t0 t1
  shift
  for ((r = 0; r < repeats; r++)); do
    for b in cuda cpu; do
      local extra=()
      if [[ $(basename "$1") == blast-bloom ]]; then extra=(--stats "$tmp/$name.$b.json"); else extra=(--summary "$tmp/$name.$b.summary"); fi
      t0=$(date +%s.%N)
      "$@" --backend "$b" -t "$threads" -o "$tmp/$name.$b.out" "${extra[@]}" 2>"$tmp/$name.$b.err" ||
        { echo "gpu_workloads: $name --backend $b failed:" >&2; tail -5 "$tmp/$name.$b.err" >&2; exit 1; }
      t1=$(date +%s.%N)
      awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f\n", b - a}' >>"$tmp/$name.$b.times"
    done
  done
  local same=yes
  if ! cmp -s <(grep -v '^#' "$tmp/$name.cuda.out" | sort) <(grep -v '^#' "$tmp/$name.cpu.out" | sort); then same=NO; fi
  local wcuda wcpu
  wcuda=$(median <"$tmp/$name.cuda.times")
  wcpu=$(median <"$tmp/$name.cpu.times")
  for b in cuda cpu; do
    local w lines stat
    w=$(median <"$tmp/$name.$b.times")
    lines=$(grep -vc '^#' "$tmp/$name.$b.out" || true)
    # blast-bloom: the stage times of the last run (--stats); facs: its summary line on stderr (reads/s)
    if [[ -s $tmp/$name.$b.json ]]; then
      stat=$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); s = d["seconds"]
print(d["backend"], d["parameters"]["layout"], "n_sub", d["parameters"]["sub_query"], " ".join(
    "%s %.3f" % (k, v) for k, v in s.items()))' "$tmp/$name.$b.json")
    else
      stat=$( (grep -v '^\s*$' "$tmp/$name.$b.err" || true) | tail -1 | tr ',' ';' | cut -c1-150)
    fi
    printf "%-44s %-5s %3s %8.2f %9s %9s %7s  %s\n" "$name" "$b" "$threads" "$w" "$lines" "$same" \
      "$(awk -v a="$wcuda" -v c="$wcpu" 'BEGIN{printf "%.2f", a / c}')" "$stat"
    echo "$name,$b,$threads,$w,$lines,$same,\"$stat\"" >>"$csv"
  done
}

echo "== runs ($(date -u +%H:%M:%S))" >&2
run blast_ecoli_vs_ssuis "$bin/blast-bloom" "$genomes/ecoli_536.fa" "$genomes/ssuis_sc84.fa"
run blast_ssuis_vs_ecoli "$bin/blast-bloom" "$genomes/ssuis_sc84.fa" "$genomes/ecoli_536.fa"
# The bit-sliced kernel on the device, with the CPU's sub-query length on both backends.
run blast_ecoli_vs_ssuis_bitsliced "$bin/blast-bloom" --layout bitsliced --sub-query 8000 "$genomes/ecoli_536.fa" "$genomes/ssuis_sc84.fa"
run blast_ssuis_vs_ecoli_bitsliced "$bin/blast-bloom" --layout bitsliced --sub-query 8000 "$genomes/ssuis_sc84.fa" "$genomes/ecoli_536.fa"
run "blast_lambda_vs_random_${mbases}M" "$bin/blast-bloom" "$src/data/lambda_virus.fa" "$tmp/random.2bit"
run "blast_ecoli10k_vs_random_${mbases}M" "$bin/blast-bloom" "$tmp/ecoli_10k.fa" "$tmp/random.2bit"
# The short-word scan (the CPU's default here) asked for on both backends.
run "blast_lambda_vs_random_${mbases}M_scan" "$bin/blast-bloom" --scan-word 10 "$src/data/lambda_virus.fa" "$tmp/random.2bit"
run "blast_ecoli10k_vs_random_${mbases}M_scan" "$bin/blast-bloom" --scan-word 10 "$tmp/ecoli_10k.fa" "$tmp/random.2bit"
run blast_ecoli10k_vs_klebsiella_heldout "$bin/blast-bloom" "$tmp/ecoli_10k.fa" "$genomes/klebsiella_hs11286.fa"
run "facs_${nrefs}refs_per_reference" "$bin/facs" classify "$tmp/reads.fq" "$tmp/refs.bf"
run "facs_${nrefs}refs_interleaved" "$bin/facs" classify "$tmp/reads.fq" "$tmp/refs-ibf.bf"
run facs_64refs_interleaved_heldout "$bin/facs" classify "$tmp/held.fq" "$tmp/held-ibf.bf"
echo "CSV: $csv ($(date -u +%H:%M:%S))" >&2
