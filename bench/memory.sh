#!/usr/bin/env bash
# Peak memory (max RSS) against input size: a database and a read file 10x larger must not need 10x the memory,
# because both are streamed in bounded batches. Prints a table and writes memory.csv.
#   bench/memory.sh [BIN_DIR] [OUT_DIR]
set -euo pipefail
bin=${1:-build/bin}
out=${2:-bench-results}
src=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[[ -x /usr/bin/time ]] || { echo "needs /usr/bin/time (apt-get install time)"; exit 1; }

table=$(printf 'ACGT%.0s' $(seq 64))
random_fasta() {  # random_fasta BASES > file: one record per 10 Mbases
  local left=$1 i=0
  while ((left > 0)); do
    local n=$((left < 10000000 ? left : 10000000))
    echo ">rec$i"
    head -c "$n" /dev/urandom | tr '\000-\377' "$table" | fold -w 80
    echo  # fold leaves the last line without its newline
    left=$((left - n)); i=$((i + 1))
  done
}
reads_fastq() {  # reads_fastq COPIES: the bundled lambda reads repeated
  for _ in $(seq "$1"); do cat "$src/data/lambda_reads_1.fq"; done
}
peak_kb() {
  if ! /usr/bin/time -f '%M' -o "$tmp/rss" "$@" > /dev/null 2> "$tmp/err"; then
    echo "failed: $* ($(cat "$tmp/err"))" >&2
    exit 1
  fi
  cat "$tmp/rss"
}

"$bin/facs" build-filter -o "$tmp/refs.bf" "$src/data/lambda_virus.fa" "$src/data/ecoli_536_200k.fa" > /dev/null 2>&1
echo "tool,input,size,peak_rss_kb" > "$out/memory.csv"
printf '%-12s %-28s %14s %14s\n' tool input size "peak RSS (MB)"
for mb in 20 200; do
  random_fasta $((mb * 1000000)) > "$tmp/db.fa"
  # --batch bounds the database bases in memory (default 64M); a small one shows the plateau at these sizes.
  kb=$(peak_kb "$bin/blast-bloom" -t 2 --batch 8M "$src/data/lambda_virus.fa" "$tmp/db.fa")
  printf '%-12s %-28s %14s %14.1f\n' blast-bloom "random db (--batch 8M)" "${mb} Mbases" "$(awk -v k="$kb" 'BEGIN { print k / 1024 }')"
  echo "blast-bloom,random database,${mb}Mbases,$kb" >> "$out/memory.csv"
done
for copies in 50 500; do
  reads_fastq "$copies" > "$tmp/reads.fq"
  n=$((copies * 2000))
  kb=$(peak_kb "$bin/facs" classify -t 2 "$tmp/reads.fq" "$tmp/refs.bf" -o "$tmp/calls.tsv")
  printf '%-12s %-28s %14s %14.1f\n' facs "lambda reads (FASTQ)" "$n reads" "$(awk -v k="$kb" 'BEGIN { print k / 1024 }')"
  echo "facs,lambda reads,${n}reads,$kb" >> "$out/memory.csv"
done
echo "written: $out/memory.csv"
