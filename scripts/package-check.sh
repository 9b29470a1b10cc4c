#!/usr/bin/env bash
# Proves that bloomseq installs and packages for a real consumer:
#   1. `cmake --install` of a build into a temporary prefix;
#   2. examples/ configured and built against that prefix with find_package(bloomseq), and kmer_screen once more
#      with pkg-config, then run on bundled data (lambda reads must be found in the lambda genome, not in E. coli;
#      seed_counts must count the HSPs blast-bloom prints);
#   3. `cpack -G DEB`: both packages pass `dpkg-deb --info`, lintian reports no error, and the tools package,
#      extracted into a temporary root, runs `blast-bloom --version` and `facs --help` with nothing but the
#      shared libraries of the packages its Depends line names.
#   scripts/package-check.sh [BUILD_DIR]      (default build; built here in Release without CUDA when absent)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=${1:-build}
fail() { echo "package-check: $*" >&2; exit 1; }

if [[ ! -f "$build/CMakeCache.txt" ]]; then
  BUILD_DIR=$build bash scripts/build.sh -DBLOOMSEQ_CUDA=OFF
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== install into a temporary prefix"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
for f in bin/blast-bloom bin/facs include/bloomseq/bloomseq.hpp include/bloomseq/version.hpp \
         lib/cmake/bloomseq/bloomseqConfig.cmake lib/pkgconfig/bloomseq.pc; do
  [[ -e "$work/prefix/$f" ]] || fail "the install lacks $f"
done
# Only the public API: the umbrella header and what it includes; the tools' internals stay private.
for f in include/bloomseq/cli/blast_options.hpp include/bloomseq/app/progress.hpp include/bloomseq/blast/part_file.hpp; do
  [[ ! -e "$work/prefix/$f" ]] || fail "the install has the private header $f"
done
# Every installed header compiles on its own against the install (no include of an uninstalled header); a template
# body (*_impl.hpp) only inside the header that includes it.
for h in $(cd "$work/prefix/include" && find bloomseq -name '*.hpp' ! -name '*_impl.hpp' | sort); do
  echo "#include <$h>" | g++ -std=c++17 -fsyntax-only -I"$work/prefix/include" $(pkg-config --cflags htslib 2>/dev/null) \
    -x c++ - || fail "installed header $h does not compile on its own"
done
echo "   $(cd "$work/prefix/include" && find bloomseq -name '*.hpp' | wc -l) public headers, each compiles on its own"

# Known biology as the oracle: lambda reads share most k-mers with the lambda genome and almost none with E. coli.
check_screen() {  # check_screen BINARY
  local own other
  own=$("$1" data/lambda_virus.fa data/lambda_reads_1.fq 2>/dev/null | awk 'NR > 1 { s += $4; n++ } END { print (n ? s / n : 0) }')
  other=$("$1" data/ecoli_536_200k.fa data/lambda_reads_1.fq 2>/dev/null | awk 'NR > 1 { s += $4; n++ } END { print (n ? s / n : 1) }')
  echo "   lambda reads: mean k-mer fraction found $own in lambda, $other in E. coli"
  awk -v a="$own" -v b="$other" 'BEGIN { exit !(a > 0.5 && b < 0.05) }' || fail "$1 screens lambda reads wrongly"
}

echo "== examples/ against the installed package (find_package)"
cmake -S examples -B "$work/examples" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/examples" -j"$(nproc)" >/dev/null
check_screen "$work/examples/kmer_screen"
# run_search through the library gives the HSPs the tool prints.
hsps_lib=$("$work/examples/seed_counts" data/lambda_virus.fa data/ecoli_536_200k.fa 2>/dev/null | awk 'NR > 1 { s += $3 } END { print s + 0 }')
hsps_tool=$("$build/bin/blast-bloom" --no-header data/lambda_virus.fa data/ecoli_536_200k.fa | wc -l)
echo "   lambda vs E. coli: $hsps_lib HSPs through the library, $hsps_tool from blast-bloom"
[[ "$hsps_lib" -gt 0 && "$hsps_lib" -eq "$hsps_tool" ]] || fail "seed_counts and blast-bloom disagree"

echo "== examples/ against the installed package (pkg-config)"
# The .pc file names the prefix it was installed for; point pkg-config at the temporary one.
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
g++ -O2 examples/kmer_screen.cpp -o "$work/kmer_screen_pc" \
  $(pkg-config --define-variable=prefix="$work/prefix" --cflags --libs bloomseq)
check_screen "$work/kmer_screen_pc"

echo "== Debian packages"
(cd "$build" && rm -f ./*.deb && cpack -G DEB >/dev/null)
tools_deb=$(ls "$build"/bloomseq_*.deb)
dev_deb=$(ls "$build"/bloomseq-dev_*.deb)
for d in "$tools_deb" "$dev_deb"; do
  dpkg-deb --info "$d" >/dev/null || fail "dpkg-deb cannot read $d"
  dpkg-deb --field "$d" Package Version Architecture Maintainer Description | sed 's/^/   /' | head -5
done
if command -v lintian >/dev/null; then
  # Errors fail; warnings (e.g. no manual pages yet) are printed.
  lintian --tag-display-limit 0 "$tools_deb" "$dev_deb" 2>/dev/null | tee "$work/lintian.txt" | sed 's/^/   lintian: /' || true
  if grep -q '^E:' "$work/lintian.txt"; then fail "lintian reports errors"; fi
else
  echo "   lintian not installed (scripts/install-deps.sh --test installs it): skipped"
fi

echo "== the tools package runs with the shared libraries of its declared dependencies only"
dpkg-deb -x "$tools_deb" "$work/root"
depends=$(dpkg-deb --field "$tools_deb" Depends)
for bin in "$work"/root/usr/bin/*; do
  # Every shared library the binary names (NEEDED) must belong to a package its Depends line names; what those
  # libraries load in turn is their packages' business.
  while read -r soname; do
    lib=$(ldd "$bin" | awk -v n="$soname" '$1 == n && $3 ~ /^\// { print $3 } $1 ~ ("/" n "$") { print $1 }')
    [[ -n "$lib" ]] || fail "$(basename "$bin") needs $soname, which is not installed"
    pkg=$(dpkg -S "$(readlink -f "$lib")" 2>/dev/null | head -1 | cut -d: -f1) || true
    [[ -n "$pkg" ]] || pkg=$(dpkg -S "$lib" 2>/dev/null | head -1 | cut -d: -f1) || true
    [[ -n "$pkg" ]] || fail "$(basename "$bin") needs $lib, which no installed package provides"
    tr ',' '\n' <<<"$depends" | awk -v p="$pkg" '$1 == p { found = 1 } END { exit !found }' ||
      fail "$(basename "$bin") needs $lib from $pkg, not in Depends: $depends"
  done < <(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
done
echo "   Depends: $depends"
"$work/root/usr/bin/blast-bloom" --version
"$work/root/usr/bin/facs" --help >/dev/null || fail "facs --help failed"
"$work/root/usr/bin/blast-bloom" data/lambda_virus.fa data/lambda_virus.fa -o "$work/self.tsv" 2>/dev/null
[[ -s "$work/self.tsv" ]] || fail "the packaged blast-bloom found nothing in lambda vs itself"
echo "== package check passed"
