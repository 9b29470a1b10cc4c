#!/usr/bin/env bash
# facs benchmark: accuracy and speed of `facs classify` next to kraken2, BBDuk and mash screen, side by side on
# the same reads with the same number of threads. Data: bench/facs_data.sh (Debian example packages, fixed seeds).
# Prints two tables and writes facs_accuracy.csv and facs_speed.csv in WORKDIR.
#
# Usage: bench/facs.sh [BIN_DIR] [WORKDIR]        (defaults: build/bin, build/facs-bench)
# Env:   THREADS (default 2), REPEAT (speed runs per tool, median reported; default 3),
#        FACS_BASELINE (optional: another facs binary, e.g. an older build, run in the same alternating rounds)
# Needs: art_illumina (art-nextgen-simulation-tools), kraken2, bbmap, mash, python3, GNU time (/usr/bin/time);
#        minimap2 optional (alignment-based count of absent-genome reads that really share sequence).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
bin=$(cd "${1:-$src/build/bin}" && pwd)
work=${2:-$src/build/facs-bench}
threads=${THREADS:-2}
repeat=${REPEAT:-3}
baseline=${FACS_BASELINE:-}
for t in kraken2 kraken2-build bbduk.sh mash python3 /usr/bin/time; do
  command -v "$t" >/dev/null || { echo "facs.sh: needs $t (apt-get install kraken2 bbmap mash python3 time)" >&2; exit 69; }
done
bash "$src/bench/facs_data.sh" "$work"
cd "$work"
refs="ecoli suis lambda dwv vdv1 vdv1dwv5 vdv1dwv9"
ref_files=$(for r in $refs; do printf 'refs/%s.fa ' "$r"; done)
nreads=$(( $(wc -l < reads/mix.fq) / 4 ))
eval_py="$src/bench/facs_eval.py"

# run LABEL CMD...: runs CMD, records wall seconds and peak resident KB in $secs / $peak_kb
run() {
  /usr/bin/time -f "%e %M" -o time.txt "$@" > /dev/null 2> stderr.txt || { cat stderr.txt >&2; return 1; }
  read -r secs peak_kb < time.txt
}
# median of the wall times of REPEAT runs of CMD; peak memory of the last
median_run() {
  local times=()
  for _ in $(seq "$repeat"); do run "$@"; times+=("$secs"); done
  secs=$(printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}')
}
speed_rows=()
speed() {  # tool task
  speed_rows+=("$1,$2,$nreads,$threads,$secs,$(awk -v n="$nreads" -v s="$secs" 'BEGIN {printf "%.0f", n / s}'),$(( peak_kb / 1024 ))")
}

echo "== building filters and databases" >&2
run "$bin/facs" build-filter -o refs.bf $ref_files
speed_rows+=("facs,build-filter (7 references),-,1,$secs,-,$(( peak_kb / 1024 ))")
mkdir -p kraken/taxonomy
# A hand-made taxonomy: root > Bacteria > {ecoli, suis}; root > Viruses > {lambda, bee viruses > 4 viruses}.
{
  printf '1\t|\t1\t|\tno rank\t|\n10\t|\t1\t|\tsuperkingdom\t|\n11\t|\t1\t|\tsuperkingdom\t|\n'
  printf '100\t|\t10\t|\tspecies\t|\n101\t|\t10\t|\tspecies\t|\n102\t|\t11\t|\tspecies\t|\n103\t|\t11\t|\tgenus\t|\n'
  for t in 1031 1032 1033 1034; do printf '%s\t|\t103\t|\tspecies\t|\n' $t; done
} > kraken/taxonomy/nodes.dmp
{
  for x in 1:root 10:Bacteria 11:Viruses 100:ecoli 101:suis 102:lambda 103:bee 1031:dwv 1032:vdv1 1033:vdv1dwv5 1034:vdv1dwv9; do
    printf '%s\t|\t%s\t|\t\t|\tscientific name\t|\n' "${x%%:*}" "${x#*:}"
  done
} > kraken/taxonomy/names.dmp
if [ ! -f kraken/hash.k2d ]; then
  for x in ecoli:100 suis:101 lambda:102 dwv:1031 vdv1:1032 vdv1dwv5:1033 vdv1dwv9:1034; do
    awk -v t="${x#*:}" -v n="${x%%:*}" '/^>/ { c++; print ">" n "_" c "|kraken:taxid|" t; next } { print }' \
      "refs/${x%%:*}.fa" > "kraken/lib_${x%%:*}.fa"
    kraken2-build --db kraken --add-to-library "kraken/lib_${x%%:*}.fa" --no-masking > /dev/null 2>&1
  done
  run kraken2-build --db kraken --build --threads "$threads"
  speed_rows+=("kraken2,kraken2-build (7 references),-,$threads,$secs,-,$(( peak_kb / 1024 ))")
fi
run mash sketch -o refs_mash $ref_files
speed_rows+=("mash,sketch (7 references),-,1,$secs,-,$(( peak_kb / 1024 ))")

echo "== accuracy runs" >&2
"$bin/facs" classify reads/mix.fq refs.bf -t "$threads" -o facs_calls.tsv --scores --summary facs_summary.tsv \
  --json facs_run.json > /dev/null 2>&1
"$bin/facs" classify reads/mix.fq refs.bf -t "$threads" --score biobloom -o facs_bbt_calls.tsv --scores > /dev/null 2>&1
kraken2 --db kraken --threads "$threads" --output kraken_calls.txt reads/mix.fq > /dev/null 2>&1
bbduk.sh -Xmx4g in=reads/mix.fq ref="$(echo $ref_files | tr ' ' ',')" k=31 rename=t outm=bbduk_matched.fq \
  threads="$threads" > /dev/null 2>&1
bbmap_labels=$(for r in $refs; do printf '%s=%s ' "$(head -1 "refs/$r.fa" | cut -c2- | cut -d' ' -f1)" "$r"; done)

echo "== speed runs (median of $repeat)" >&2
# The headline comparison alternates facs and kraken2 run by run (both writing per-read lines), so that a shared,
# busy machine slows both alike; the ratio is the median of the per-round ratios.
ratios=()
ft=()
kt=()
bt=()
bratios=()
for _ in $(seq "$repeat"); do
  run "$bin/facs" classify reads/mix.fq refs.bf -t "$threads" -o /dev/null; ft+=("$secs"); fpk=$peak_kb
  if [ -n "$baseline" ]; then
    run "$baseline" classify reads/mix.fq refs.bf -t "$threads" -o /dev/null; bt+=("$secs"); bpk=$peak_kb
    bratios+=("$(awk -v a="${ft[-1]}" -v b="${bt[-1]}" 'BEGIN { printf "%.3f", b / a }')")
  fi
  run kraken2 --db kraken --threads "$threads" --output /dev/null reads/mix.fq; kt+=("$secs"); kpk=$peak_kb
  ratios+=("$(awk -v a="${ft[-1]}" -v b="${kt[-1]}" 'BEGIN { printf "%.3f", b / a }')")
done
med() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
secs=$(med "${ft[@]}"); peak_kb=$fpk; speed facs "classify FASTQ + per-read TSV"
secs=$(med "${kt[@]}"); peak_kb=$kpk; speed kraken2 "classify FASTQ + per-read output"
ratio=$(med "${ratios[@]}")
if [ -n "$baseline" ]; then secs=$(med "${bt[@]}"); peak_kb=$bpk; speed "facs baseline" "classify FASTQ + per-read TSV"; fi
median_run "$bin/facs" classify reads/mix.fq refs.bf -t "$threads"; speed facs "classify FASTQ (summary only)"
median_run "$bin/facs" classify reads/mix.fq.gz refs.bf -t "$threads"; speed facs "classify FASTQ.gz (summary only)"
median_run kraken2 --db kraken --threads "$threads" --output /dev/null reads/mix.fq.gz; speed kraken2 "classify FASTQ.gz"
median_run "$bin/facs" classify reads/mix.fq refs.bf -t 1; threads_saved=$threads; threads=1
speed facs "classify FASTQ (summary only)"; threads=$threads_saved
run "$bin/facs" classify reads/mix.fq refs.bf -t "$threads" --score biobloom; speed facs "classify --score biobloom (1 run)"
run bbduk.sh -Xmx4g in=reads/mix.fq ref="$(echo $ref_files | tr ' ' ',')" k=31 threads="$threads" stats=/dev/null
speed bbduk "match any reference (stats)"
run mash screen -p "$threads" refs_mash.msh reads/mix.fq; speed mash "screen (whole read set)"
mash screen -p "$threads" refs_mash.msh reads/kleb.fq > mash_kleb.tsv 2>/dev/null

echo "== absent genome: sequence really shared with the references" >&2
w=$(python3 -c 'import json; print(json.load(open("facs_run.json"))["parameters"]["kmer_size"])')
thr=$(python3 -c 'import json; print(json.load(open("facs_run.json"))["parameters"]["threshold"])')
err=$(python3 -c 'import json; print(json.load(open("facs_run.json"))["parameters"]["error_rate"])')
"$bin/facs_exact" "$w" "$thr" "$err" reads/kleb.fq $(for r in $refs; do printf '%s=refs/%s.fa ' "$r" "$r"; done) > kleb_exact.tsv
kleb_exact=$(awk 'NR == 2 { print $3 }' kleb_exact.tsv)
kleb_aligned=NA
if command -v minimap2 > /dev/null; then
  cat $ref_files > refs_all.fa
  # reads with an alignment covering >= half of the read, to any reference
  kleb_aligned=$(minimap2 -x sr -t "$threads" refs_all.fa reads/kleb.fq 2>/dev/null |
    awk '($4 - $3) * 2 >= $2 { print $1 }' | sort -u | wc -l)
fi

{
  echo "tool,ecoli_correct_pct,suis_correct_pct,lambda_correct_pct,bee_correct_pct,absent_called_pct,ecoli_n,suis_n,lambda_n,bee_n,absent_n"
  python3 "$eval_py" csv "facs w=$w error rate $err" reads/mix.fq facs facs_calls.tsv
  python3 "$eval_py" csv "facs --score biobloom" reads/mix.fq facs facs_bbt_calls.tsv
  python3 "$eval_py" csv kraken2 reads/mix.fq kraken2 kraken_calls.txt
  python3 "$eval_py" csv "bbduk (k=31)" reads/mix.fq bbduk bbduk_matched.fq $bbmap_labels
} > facs_accuracy.csv
{
  echo "tool,task,reads,threads,seconds,reads_per_s,peak_mb"
  printf '%s\n' "${speed_rows[@]}"
} > facs_speed.csv

kleb_n=$(awk -F, 'NR == 2 { print $11 }' facs_accuracy.csv)
echo
echo "Accuracy (% of each read class; absent = Klebsiella HS11286 reads called as any reference)"
column -s, -t < facs_accuracy.csv
echo
echo "Absent-genome reads that really share sequence with a reference:"
echo "  exact k-mer sets, same FACS rule (w=$w, threshold $thr, error rate $err): $kleb_exact of $kleb_n reads" \
     "($(awk -v a="$kleb_exact" -v n="$kleb_n" 'BEGIN { printf "%.2f", 100 * a / n }')%)"
echo "  minimap2 -x sr, >= half the read aligned: $kleb_aligned of $kleb_n reads"
echo "  mash screen on the absent-genome reads alone:"
sed 's/^/    /' mash_kleb.tsv
echo
echo "Speed ($nreads reads, median of $repeat runs; wall time including loading; peak resident memory)"
column -s, -t < facs_speed.csv
echo
echo "facs / kraken2 reads/s on $threads threads, both writing per-read lines, alternating runs:" \
     "median ratio ${ratio}x (rounds: ${ratios[*]}); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$ratio" > facs_vs_kraken2_ratio.txt
if [ -n "$baseline" ]; then
  echo "facs / baseline ($baseline) on $threads threads, alternating runs: median ratio $(med "${bratios[@]}")x" \
       "(rounds: ${bratios[*]})"
fi
echo "wrote $work/facs_accuracy.csv and $work/facs_speed.csv"
