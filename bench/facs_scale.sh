#!/usr/bin/env bash
# facs against many references, side by side with kraken2 on the same references and the same reads.
#
# For each number of references R: synthetic genomes from a seed (bench/facs_scale_data.py; reference i is the same
# for every R), 100-bp reads (half from the R references with 1% substitutions, half random) and a held-out read
# set of the same size drawn with another seed. facs gets one filter per reference (`facs build-filter`, or
# --per-record on one multi-FASTA); kraken2 a database with a minimal taxonomy (one species per reference under the
# root). Builds are timed once; classification alternates the tools run by run for --rounds rounds (medians; the
# facs / kraken2 ratio is the median of the per-round ratios), every run writing its per-read calls to a file that
# is then scored: accuracy = reference reads called to their own reference, novel = random reads called to none.
# Wall times include loading the filter or database; `proc s` is the tool's own report of its processing time.
# If `facs build-filter --help` offers an interleaved layout, that layout is measured too, as its own rows.
#
# Usage: bench/facs_scale.sh [options]
#   --bin DIR              facs binaries (default: build/bin)
#   --out DIR              work folder, CSV and table (default: build/facs-scale)
#   --refs "R1 R2 ..."     reference counts (default: "8 64 256 1024")
#   --reads N              reads per read set (default: 200000)
#   --size-kb N            size of each synthetic reference (default: 500)
#   --sizes uniform|mix    mix: the real Debian genomes of ~/.cache/bloomseq/data (scripts/fetch-data.sh) first,
#                          then synthetic ones of 0.5-5 Mbases (the mean is 2.75 Mbases: builds take ~5x longer)
#   --per-record           facs: one multi-FASTA per R, one filter per record (--per-record)
#   --layouts "L ..."      facs layouts to measure: blocked (separate filters), interleaved, or both (default:
#                          "blocked interleaved"; blocked filters of 1,024 references cost ~100 CPU s a run)
#   --facs-build-opts "."  extra `facs build-filter` options (also from the FACS_BUILD_OPTS environment variable)
#   --threads N            threads of kraken2-build and both classifiers (default: 2)
#   --rounds N             timed rounds per R (default: 3)
#   --seed S               seed of the references and reads (default: 1; the held-out reads use S-heldout)
#   --deterministic-kraken build kraken2 databases without --fast-build (same database every time, ~10x slower
#                          to build on random genomes; classification unchanged)
#   --quick                R = 8 and 64, 20,000 reads (about a minute on an idle 2-core machine)
#   -h, --help             this help
# Time on a shared 2-core machine (load 5-10): --quick ~2 min (116 s at load 6-9); the default run ~55 min,
# ~45 of them at R = 1024 (kraken2-build 13 min, facs build-filter 2.5 min, each facs classify run 100 CPU s,
# 3-8 min wall); --refs "8 64 256" ~9 min. Disk: ~3.5 GB at R = 1024; memory: ~2.5 GB.
# Writes OUT/facs_scale.csv (one row per R and tool), OUT/facs_scale_runs.csv (every timed run),
# OUT/facs_scale_builds.csv and OUT/facs_scale.txt (the table; bench/facs_scale_report.py OUT READS redoes both).
# Needs: kraken2 (scripts/install-deps.sh --bench), python3, GNU time.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
bin=$src/build/bin
out=$src/build/facs-scale
refs_list="8 64 256 1024"
nreads=200000
size_kb=500
sizes=uniform
per_record=0
layouts="blocked interleaved"
facs_opts=${FACS_BUILD_OPTS:-}
threads=2
rounds=3
seed=1
kraken_fast=--fast-build
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
die() { echo "facs_scale.sh: $*" >&2; exit 64; }
while (($#)); do
  case $1 in
    --bin) bin=$2; shift ;;
    --out) out=$2; shift ;;
    --refs) refs_list=$2; shift ;;
    --reads) nreads=$2; shift ;;
    --size-kb) size_kb=$2; shift ;;
    --sizes) sizes=$2; shift ;;
    --per-record) per_record=1 ;;
    --layouts) layouts=$2; shift ;;
    --facs-build-opts) facs_opts=$2; shift ;;
    --threads) threads=$2; shift ;;
    --rounds) rounds=$2; shift ;;
    --seed) seed=$2; shift ;;
    --deterministic-kraken) kraken_fast= ;;
    --quick) refs_list="8 64"; nreads=20000 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
  shift
done
[[ $sizes == uniform || $sizes == mix ]] || die "--sizes is uniform or mix, not $sizes"
for t in kraken2 kraken2-build python3 /usr/bin/time "$bin/facs"; do
  command -v "$t" >/dev/null || die "needs $t (scripts/install-deps.sh --bench; build facs first)"
done
bin=$(cd "$bin" && pwd)
facs=$bin/facs
data_py=$src/bench/facs_scale_data.py
mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$out"
max_r=$(printf '%s\n' $refs_list | sort -n | tail -1)
refdir=refs_${sizes}_${size_kb}kb_seed$seed

# The facs variants: blocked filters with the extra options, and the interleaved layout where facs has one.
variants=()
declare -A variant_opts=()
for l in $layouts; do [[ $l == blocked || $l == interleaved ]] || die "--layouts takes blocked and/or interleaved, not $l"; done
if [[ " $layouts " == *" blocked "* ]]; then
  variants+=(facs)
  variant_opts[facs]="--layout blocked $facs_opts"
fi
if [[ " $layouts " == *" interleaved "* ]] && "$facs" build-filter --help 2>&1 | grep -qi interleaved; then
  variants+=(facs-interleaved)
  variant_opts[facs-interleaved]="--layout interleaved $facs_opts"
fi
echo "== $(date -u '+%F %H:%M UTC'), R = $refs_list, $nreads reads, $threads threads, facs variants: ${variants[*]}," \
     "load $(cut -d' ' -f1-3 /proc/loadavg)" >&2

echo "== references ($max_r, $sizes)" >&2
python3 "$data_py" refs "$refdir" "$max_r" --seed "$seed" --size-bp $((size_kb * 1000)) --sizes "$sizes"

# timed LOG CMD...: runs CMD under GNU time; sets wall, cpu, peak_kb, load1 (1-minute load average at the start)
timed() {
  local log=$1
  shift
  load1=$(cut -d' ' -f1 /proc/loadavg)
  /usr/bin/time -f "%e %U %S %M" -o time.txt "$@" > /dev/null 2> "$log" || { cat "$log" >&2; exit 1; }
  read -r wall u s peak_kb < time.txt
  cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')
}
echo "refs,tool,build_s,build_cpu_s,build_peak_kb,db_bytes,load1" > facs_scale_builds.csv
echo "refs,tool,reads,round,wall_s,cpu_s,peak_kb,proc_s,load1,correct,ref_reads,novel,random_reads" \
  > facs_scale_runs.csv

# classify SET TOOL ROUND READS.fq: one timed run, its calls scored, a row of facs_scale_runs.csv
classify() {
  local set=$1 tool=$2 round=$3 reads=$4 proc
  if [[ $tool == kraken2 ]]; then
    timed run.log kraken2 --db "kraken_$r" --threads "$threads" --output calls.txt "$reads"
    # "200000 sequences (20.00 Mbp) processed in 0.849s (...)"
    proc=$(sed -n 's/.* processed in \([0-9.]*\)s.*/\1/p' run.log)
  else
    timed run.log "$facs" classify -t "$threads" "$reads" "${tool}_$r.bf" -o calls.txt --summary /dev/null
    # "facs classify: 200000 reads in 0.57 s (...)"
    proc=$(sed -n 's/^facs classify: [0-9]* reads in \([0-9.]*\) s.*/\1/p' run.log)
  fi
  echo "$r,$tool,$set,$round,$wall,$cpu,$peak_kb,${proc:-},$load1,$(python3 - "$tool" calls.txt <<'EOF'
import sys
tool, path = sys.argv[1], sys.argv[2]
correct = ref_reads = novel = random_reads = 0
for line in open(path):
    if line.startswith("#"):
        continue
    f = line.rstrip("\n").split("\t")
    if tool == "kraken2":  # C/U, read id, taxid: references are taxid 1000 + i
        rid, called = f[1], f[0] == "C"
        hit = called and f[2] == str(1000 + int(rid.split(".")[0][3:] or 0)) if rid.startswith("ref") else False
    else:  # read id, call (a filter name: refNNNN, or refNNNN_j with --per-record), score, matched
        rid, called = f[0], f[1] not in ("novel", "unscored")
        hit = called and f[1].split("_")[0] == rid.split(".")[0]
    if rid.startswith("random"):
        random_reads += 1
        novel += not called
    else:
        ref_reads += 1
        correct += hit
print(f"{correct},{ref_reads},{novel},{random_reads}")
EOF
)" >> facs_scale_runs.csv
}

for r in $(printf '%s\n' $refs_list | sort -n); do
  echo "== R = $r: reads" >&2
  for set in reads heldout; do
    f=${set}_${r}_${nreads}_$refdir.fq
    s=$seed; [[ $set == heldout ]] && s=$seed-heldout
    [ -s "$f" ] || python3 "$data_py" reads "$refdir" "$r" "$f" --reads "$nreads" --seed "$s"
  done
  ref_files=$(for i in $(seq "$r"); do printf '%s/ref%04d.fa ' "$refdir" "$i"; done)
  for v in "${variants[@]}"; do
    echo "== R = $r: facs build-filter (${v})" >&2
    rm -f "${v}_$r.bf"
    if ((per_record)); then
      cat $ref_files > "refs_$r.fa"
      # shellcheck disable=SC2086  # the options are words
      timed build.log "$facs" build-filter -q ${variant_opts[$v]} --per-record -o "${v}_$r.bf" "refs_$r.fa"
      rm -f "refs_$r.fa"
    else
      # shellcheck disable=SC2086
      timed build.log "$facs" build-filter -q ${variant_opts[$v]} -o "${v}_$r.bf" $ref_files
    fi
    echo "$r,$v,$wall,$cpu,$peak_kb,$(stat -c %s "${v}_$r.bf"),$load1" >> facs_scale_builds.csv
  done
  echo "== R = $r: kraken2-build --threads $threads $kraken_fast" >&2
  rm -rf "kraken_$r"
  mkdir -p "kraken_$r/taxonomy"
  python3 "$data_py" kraken "$refdir" "$r" "kraken_$r/lib.fa" "kraken_$r/taxonomy"
  timed build.log bash -c "kraken2-build --db kraken_$r --add-to-library kraken_$r/lib.fa --no-masking &&
    kraken2-build --db kraken_$r --build --threads $threads $kraken_fast"
  echo "$r,kraken2,$wall,$cpu,$peak_kb,$(stat -c %s "kraken_$r/hash.k2d"),$load1" >> facs_scale_builds.csv
  rm -rf "kraken_$r/lib.fa" "kraken_$r/library"

  echo "== R = $r: classify, $rounds alternating rounds + the held-out reads" >&2
  for round in $(seq "$rounds"); do
    for tool in "${variants[@]}" kraken2; do
      classify reads "$tool" "$round" "reads_${r}_${nreads}_$refdir.fq"
    done
  done
  for tool in "${variants[@]}" kraken2; do
    classify heldout "$tool" 1 "heldout_${r}_${nreads}_$refdir.fq"
  done
  rm -f calls.txt
done

python3 "$src/bench/facs_scale_report.py" "$out" "$nreads" | tee facs_scale.txt
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); wrote $out/facs_scale.csv, facs_scale_runs.csv," \
     "facs_scale_builds.csv, facs_scale.txt" >&2
