#!/usr/bin/env bash
# Genome-scale facs filters: builds a synthetic human-sized reference (random sequence from a seeded AES-CTR
# stream, 80-column FASTA, chromosomes of at most 250 Mbases; generated here, never shipped), then times
# `facs build-filter --count hll` on it (wall, CPU and peak resident memory from GNU time -v, the filter's size)
# and `facs classify` of NREADS 100-bp reads (half drawn from the genome, half random) against it.
# Random sequence is the worst case for the filter: every k-mer distinct. Prints a table, writes
# facs_genome_scale.csv in WORKDIR.
#
# Usage: bench/facs_genome_scale.sh [BIN_DIR] [WORKDIR]     (defaults: build/bin, build/facs-genome-scale)
# Env:   GENOME_MB (default 3100), THREADS (default 2), NREADS (default 1000000; 0 = no classify),
#        FPR (default 5e-4), KEEP (1: keep the genome and the filter)
# Needs: openssl, python3, GNU time (/usr/bin/time); disk: ~1 GB per 1000 MB of genome + the filter (~2.3 bytes
#        per base at FPR 5e-4).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
bin=$(cd "${1:-$src/build/bin}" && pwd)
work=${2:-$src/build/facs-genome-scale}
mb=${GENOME_MB:-3100}
threads=${THREADS:-2}
nreads=${NREADS:-1000000}
fpr=${FPR:-5e-4}
for t in openssl python3 /usr/bin/time; do
  command -v "$t" >/dev/null || { echo "facs_genome_scale.sh: needs $t (apt-get install openssl python3 time)" >&2; exit 69; }
done
mkdir -p "$work"
cd "$work"
genome=genome_${mb}M.fa
if [ ! -s "$genome" ]; then
  echo "== generating $genome ($mb Mbases)" >&2
  left=$(( mb * 1000000 )); chr=1
  : > "$genome.tmp"
  while [ "$left" -gt 0 ]; do
    n=$(( left < 250000000 ? left : 250000000 ))
    printf '>chr%d synthetic\n' "$chr" >> "$genome.tmp"
    # (openssl dies of SIGPIPE once head has its bytes: not a failure)
    { openssl enc -aes-128-ctr -nosalt -pass "pass:bloomseq-chr$chr" -pbkdf2 < /dev/zero 2> /dev/null || true; } |
      head -c "$n" | LC_ALL=C tr '\000-\377' "$(printf 'ACGT%.0s' $(seq 64))" | fold -w 80 >> "$genome.tmp"
    echo >> "$genome.tmp"
    left=$(( left - n )); chr=$(( chr + 1 ))
  done
  mv "$genome.tmp" "$genome"
fi

# seconds, CPU seconds and peak KB of a command from GNU time -v
measure() {
  /usr/bin/time -v -o time.txt "$@" > /dev/null 2> stderr.txt || { cat stderr.txt time.txt >&2; exit 1; }
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s }' time.txt)
  cpu=$(awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { print u + s }' time.txt)
  peak_kb=$(awk -F': ' '/Maximum resident/ { print $2 }' time.txt)
}
echo "== build-filter ($threads threads)" >&2
measure "$bin/facs" build-filter --count hll -t "$threads" --fpr "$fpr" -o genome.bf "$genome"
bf_bytes=$(stat -c %s genome.bf)
filter_bits=$("$bin/facs" info genome.bf | awk -F'\t' '!/^#/ { print $6 }')
kmers=$("$bin/facs" info genome.bf | awk -F'\t' '!/^#/ { print $4 }')
rows=("build-filter,$mb,$threads,$wall,$cpu,$(( peak_kb / 1024 )),$(( bf_bytes / 1048576 )),$kmers,$filter_bits,-")
if [ "$nreads" -gt 0 ]; then
  echo "== $nreads reads" >&2
  python3 - "$genome" "$nreads" <<'PY'
import random, sys
path, n = sys.argv[1], int(sys.argv[2]); rnd = random.Random(31)
with open(path) as f:  # the first 20 Mbases of chr1 as the source of the genome's reads
    f.readline(); seq = ''.join(line.strip() for _, line in zip(range(250000), f))
q = 'I' * 100
with open('reads.fq', 'w') as out:
    for r in range(n):
        if r % 2 == 0:
            p = rnd.randrange(len(seq) - 100); s = list(seq[p:p + 100])
            for i in range(100):
                if rnd.random() < 0.01: s[i] = rnd.choice('ACGT')
            s = ''.join(s)
        else:
            s = ''.join(rnd.choices('ACGT', k=100))
        out.write(f'@r{r}\n{s}\n+\n{q}\n')
PY
  echo "== classify ($threads threads)" >&2
  measure "$bin/facs" classify reads.fq genome.bf -t "$threads" -o calls.tsv --summary summary.tsv
  called=$(awk -F'\t' '!/^#/ && $2 != "novel"' calls.tsv | wc -l)
  rows+=("classify,$mb,$threads,$wall,$cpu,$(( peak_kb / 1024 )),-,-,-,$(awk -v n="$nreads" -v s="$wall" 'BEGIN {printf "%.0f", n / s}')")
  echo "   reads called to the genome: $called of $nreads (half are from it)" >&2
fi
echo "step,genome_mbases,threads,wall_s,cpu_s,peak_rss_mb,filter_file_mb,kmers_estimated,filter_bits,reads_per_s" > facs_genome_scale.csv
printf '%s\n' "${rows[@]}" >> facs_genome_scale.csv
column -s, -t < facs_genome_scale.csv
[ "${KEEP:-0}" = 1 ] || rm -f genome.bf
