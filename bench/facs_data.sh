#!/usr/bin/env bash
# Prepares the facs benchmark data set from Debian packages only (fixed seeds, so it is the same every time):
#   references  lambda (bowtie2-examples), E. coli 536 (bowtie-examples), S. suis SC84 (abacas-examples),
#               four bee viruses (gasic-examples)
#   reads       art_illumina HiSeq 2500 150 bp from E. coli and S. suis; Klebsiella pneumoniae HS11286
#               (kleborate-examples) as the absent genome; the bowtie2 lambda reads; the real SRR059298 subset
#               (gasic-examples). The truth is the first part of every read name (ecoli., suis., kleb., lambda., bee.).
# Usage: bench/facs_data.sh WORKDIR
# Set BENCH_PKG_ROOT to a folder where the packages are already extracted (dpkg -x) to skip apt-get download.
set -euo pipefail
work=${1:?usage: facs_data.sh WORKDIR}
mkdir -p "$work"
cd "$work"
if [ -f data.done ]; then exit 0; fi

pkgs="bowtie-examples bowtie2-examples abacas-examples gasic-examples kleborate-examples"
root=${BENCH_PKG_ROOT:-}
if [ -z "$root" ]; then
  mkdir -p pkgs && (cd pkgs && apt-get download $pkgs >/dev/null)
  for d in pkgs/*.deb; do dpkg -x "$d" pkgs/x; done
  root=$PWD/pkgs/x
fi
doc=$root/usr/share/doc
for t in art_illumina xz; do command -v $t >/dev/null || { echo "facs_data.sh: needs $t (apt-get install art-nextgen-simulation-tools xz-utils)" >&2; exit 69; }; done

mkdir -p refs reads
zcat "$doc/bowtie2/examples/reference/lambda_virus.fa.gz" > refs/lambda.fa
zcat "$doc/bowtie/examples/genomes/NC_008253.fna.gz" > refs/ecoli.fa
zcat "$doc/abacas-examples/SS_SC84.dna.gz" > refs/suis.fa
for v in dwv vdv1 vdv1dwv5 vdv1dwv9; do zcat "$doc/gasic/examples/genomes/$v.fasta.gz" > refs/$v.fa; echo >> refs/$v.fa; done
xzcat "$doc/kleborate/examples/data/Klebs_HS11286.fna.xz" > refs/kleb_absent.fa

# Renames reads to TRUTH.N (keeps the sequences and qualities).
rename() { awk -v t="$1" 'NR % 4 == 1 { print "@" t "." (NR + 3) / 4; next } NR % 4 == 3 { print "+"; next } { print }'; }
simulate() {  # name reference fold seed
  art_illumina -q -ss HS25 -l 150 -f "$3" -rs "$4" -na -i "$2" -o "reads/art_$1" >/dev/null
  rename "$1" < "reads/art_$1.fq" > "reads/$1.fq"
  rm -f "reads/art_$1.fq"
}
simulate ecoli refs/ecoli.fa 4 11
simulate suis refs/suis.fa 6 12
simulate kleb refs/kleb_absent.fa 3 13
zcat "$doc/bowtie2/examples/reads/reads_1.fq.gz" | rename lambda > reads/lambda.fq
zcat "$doc/gasic/examples/reads/SRR059298_subset.fastq.gz" | rename bee > reads/bee.fq

# One mixed, shuffled file (fixed seed) is what the tools classify; per-truth accuracy comes from the read names.
cat reads/{ecoli,suis,kleb,lambda,bee}.fq | paste - - - - | shuf --random-source=<(yes 42) | tr '\t' '\n' > reads/mix.fq
gzip -1 -c reads/mix.fq > reads/mix.fq.gz
touch data.done
