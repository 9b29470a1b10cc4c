# Sourced by the blast benchmarks: the genomes of the six cases (scripts/fetch-data.sh, cached) and the first
# 1,000,000 bases of E. coli 536 as a query. Needs $here (the repository) and $tmp (a scratch directory).
# Sets: ecoli, ssuis, lambda, ecoli_1m.
command -v blastn >/dev/null || { echo "blastn not found (apt-get install ncbi-blast+)"; exit 69; }
declare -A path
while IFS=$'\t' read -r name p; do path[$name]="$p"; done < <("$here/scripts/fetch-data.sh")
ecoli="${path[ecoli_536.fa]}"; ssuis="${path[ssuis_sc84.fa]}"; lambda="$here/data/lambda_virus.fa"
ecoli_1m="$tmp/ecoli_1M.fa"
{ echo ">ecoli_536_1M"; (set +o pipefail; grep -v '^>' "$ecoli" | tr -d '\n' | head -c 1000000 | fold -w 70); echo; } \
  > "$ecoli_1m"
