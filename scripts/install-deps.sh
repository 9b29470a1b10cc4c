#!/usr/bin/env bash
# Installs what bloomseq needs from Debian 12 packages (run as root). Idempotent: skips what is already there.
#   scripts/install-deps.sh          build dependencies
#   scripts/install-deps.sh --test   build dependencies + the peers and tools the tests use (blastn, multiqc, snakemake)
#   scripts/install-deps.sh --bench  build dependencies + the peers, simulators and tools the benchmarks use
set -euo pipefail

pkgs=(cmake g++ make pkg-config git ca-certificates libhts-dev zlib1g-dev libisal-dev libcxxopts-dev catch2)
case "${1:-}" in
  --test) pkgs+=(ncbi-blast+ multiqc snakemake dpkg-dev file lintian) ;;  # dpkg-dev, file, lintian: the .deb check; snakemake: workflow/
  --bench) pkgs+=(ncbi-blast+ multiqc tabix art-nextgen-simulation-tools kraken2 bbmap mash minimap2 python3 time xz-utils linux-perf) ;;
esac

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
