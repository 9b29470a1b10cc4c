#!/usr/bin/env bash
# Fetches the larger benchmark sequences from Debian example packages into a cache directory (never committed):
#   apt-get download <package>  +  dpkg -x  +  decompress to plain FASTA/FASTQ.
# Idempotent: files already present are kept. Prints "name<TAB>path" for every file at the end.
#
# Usage: scripts/fetch-data.sh [CACHE_DIR]
#   CACHE_DIR defaults to ${BLOOMSEQ_DATA_CACHE:-$HOME/.cache/bloomseq/data}.
#   BLOOMSEQ_DEB_DIR=dir  use .deb files already in dir instead of downloading (offline machines).
# Needs: apt-get (with Debian 12 sources), dpkg, gzip, xz-utils. See data/README.md for what each file is.
set -euo pipefail

cache="${1:-${BLOOMSEQ_DATA_CACHE:-$HOME/.cache/bloomseq/data}}"
mkdir -p "$cache/debs"

# output name | package | path inside the package (compressed)
files=(
  "ecoli_536.fa|bowtie-examples|usr/share/doc/bowtie/examples/genomes/NC_008253.fna.gz"
  "ssuis_sc84.fa|abacas-examples|usr/share/doc/abacas-examples/SS_SC84.dna.gz"
  "ecoli_454_contigs.fa|abacas-examples|usr/share/doc/abacas-examples/454AllContigs.fna.gz"
  "klebsiella_hs11286.fa|kleborate-examples|usr/share/doc/kleborate/examples/data/Klebs_HS11286.fna.xz"
  "SRR059298_100k.fastq|gasic-examples|usr/share/doc/gasic/examples/reads/SRR059298_subset.fastq.gz"
  "lambda_virus.fa|bowtie2-examples|usr/share/doc/bowtie2/examples/reference/lambda_virus.fa.gz"
  "lambda_reads_1_10k.fq|bowtie2-examples|usr/share/doc/bowtie2/examples/reads/reads_1.fq.gz"
  "lambda_reads_2_10k.fq|bowtie2-examples|usr/share/doc/bowtie2/examples/reads/reads_2.fq.gz"
  "lambda_longreads.fq|bowtie2-examples|usr/share/doc/bowtie2/examples/reads/longreads.fq.gz"
)

# Extracts a package once into $cache/pkg/<package>.
extract() {
  local pkg="$1" root="$cache/pkg/$1"
  [[ -f "$root/.done" ]] && return 0
  local deb
  deb=$(ls "${BLOOMSEQ_DEB_DIR:-/nonexistent}"/"${pkg}"_*.deb 2>/dev/null | head -n1 || true)
  if [[ -z "$deb" ]]; then
    deb=$(ls "$cache/debs/${pkg}"_*.deb 2>/dev/null | head -n1 || true)
  fi
  if [[ -z "$deb" ]]; then
    (cd "$cache/debs" && apt-get download "$pkg" >&2) || {
      echo "fetch-data: cannot download $pkg (run 'apt-get update' first, or set BLOOMSEQ_DEB_DIR)" >&2
      exit 69
    }
    deb=$(ls "$cache/debs/${pkg}"_*.deb | head -n1)
  fi
  rm -rf "$root"
  mkdir -p "$root"
  dpkg -x "$deb" "$root"
  basename "$deb" > "$root/.done"
}

for entry in "${files[@]}"; do
  IFS='|' read -r name pkg inner <<< "$entry"
  out="$cache/$name"
  [[ -s "$out" ]] && continue
  extract "$pkg"
  src="$cache/pkg/$pkg/$inner"
  [[ -f "$src" ]] || { echo "fetch-data: $pkg has no $inner" >&2; exit 65; }
  tmp="$out.tmp.$$"
  case "$src" in
    *.gz) gzip -dc "$src" > "$tmp" ;;
    *.xz) xz -dc "$src" > "$tmp" ;;
    *) cp "$src" "$tmp" ;;
  esac
  mv "$tmp" "$out"
done

for entry in "${files[@]}"; do
  IFS='|' read -r name _ _ <<< "$entry"
  printf '%s\t%s\n' "$name" "$cache/$name"
done
