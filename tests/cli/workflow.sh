#!/usr/bin/env bash
# workflow/Snakefile end to end with Debian's snakemake on the bundled data: blast-bloom as 3 database x 2 query
# shards and facs as 4 shards of paired reads (started where one shard plan says), each merged; the merged outputs must equal single runs of the
# tools (byte for byte; facs's JSON without its run-specific fields). Skipped (77) when snakemake is missing.
# Usage: workflow.sh BIN_DIR SRC_DIR
set -uo pipefail
bin=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
command -v snakemake > /dev/null || { echo "SKIP: snakemake is not installed (apt-get install snakemake)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fails=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fails=$((fails + 1)); fi; }
d=$src/data
cat > config.yaml <<YAML
bin: "$bin"
threads: 1
results: "$tmp/results"
blast:
  query: ["$d/bee-viruses/vdv1.fa", "$d/bee-viruses/vdv1dwv9.fa"]
  db: ["$d/bee-viruses/dwv.fa", "$d/bee-viruses/vdv1dwv5.fa", "$d/lambda_virus.fa", "$d/bee-viruses/vdv1.fa"]
  db_shards: 3
  query_shards: 2
  options: ""
  auto_tune: false
facs:
  references: ["$d/lambda_virus.fa", "$d/bee-viruses/dwv.fa", "$d/bee-viruses/vdv1.fa"]
  reads: "$d/lambda_reads_1.fq"
  mate: "$d/lambda_reads_2.fq"
  shards: 4
  build_options: ""
  options: ""
YAML
snakemake -s "$src/workflow/Snakefile" --configfile config.yaml --cores 2 > snakemake.log 2>&1
rc=$?
check "snakemake --cores 2 ran the workflow (exit 0)" "[ $rc -eq 0 ] || { tail -30 snakemake.log; false; }"
r=$tmp/results

# blast-bloom: the concatenated inputs the workflow made, searched by one process.
awk 1 "$d/bee-viruses/vdv1.fa" "$d/bee-viruses/vdv1dwv9.fa" > q.fa
awk 1 "$d/bee-viruses/dwv.fa" "$d/bee-viruses/vdv1dwv5.fa" "$d/lambda_virus.fa" "$d/bee-viruses/vdv1.fa" > db.fa
"$bin/blast-bloom" --no-progress q.fa db.fa -o single_hsps.tsv
check "blast-bloom: 6 merged parts equal the single run" "cmp -s single_hsps.tsv $r/blast/hsps.tsv"
check "blast-bloom: HSPs from several subjects" "[ \$(grep -v '^#' single_hsps.tsv | cut -f2 | sort -u | wc -l) -ge 3 ]"
check "blast-bloom: the parts were removed after the merge" "[ -z \"\$(ls $r/blast/parts 2> /dev/null)\" ]"

# facs: the same filters, one process over the pairs.
"$bin/facs" build-filter -o refs.bf "$d/lambda_virus.fa" "$d/bee-viruses/dwv.fa" "$d/bee-viruses/vdv1.fa" 2> /dev/null
# (the container also records its command line, which names the output: compare the filters as facs info lists them)
check "facs: the workflow's filters equal a direct build's" \
  "cmp -s <(\"$bin/facs\" info refs.bf | grep -v '^#') <(\"$bin/facs\" info $r/facs/refs.bf | grep -v '^#')"
"$bin/facs" classify --no-progress "$d/lambda_reads_1.fq" --mate "$d/lambda_reads_2.fq" refs.bf -o single_calls.tsv \
  --summary single_summary.tsv --json single.json 2> /dev/null
check "facs: merged calls equal the single run's (after the command-line line)" \
  "cmp -s <(tail -n +2 single_calls.tsv) <(tail -n +2 $r/facs/calls.tsv)"
check "facs: merged summary equals the single run's" "cmp -s single_summary.tsv $r/facs/summary.tsv"
check "facs: the plain pairs' shards started where a plan made once said" \
  "[ -s $r/facs/shards.plan ] && grep -q 'rule facs_plan_shards' snakemake.log"
check "facs: every read pair called" "[ \$(grep -vc '^#' single_calls.tsv) -ge 1000 ]"
# The JSON's results (counters and recomputed rates) must agree; times, threads and command lines are run-specific.
strip() { python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
j.pop("command_line", None)
j.get("parameters", {}).pop("threads", None)
for k in ("load_seconds", "seconds", "reads_per_second"): j.get("results", {}).pop(k, None)
print(json.dumps(j, sort_keys=True))' "$1"; }
check "facs: merged JSON equals the single run's but for times, threads and command line" \
  "[ \"\$(strip single.json)\" = \"\$(strip $r/facs/report.json)\" ]"

# Resume: a second run has nothing to do and changes nothing.
before=$(stat -c %Y "$r/blast/hsps.tsv")
snakemake -s "$src/workflow/Snakefile" --configfile config.yaml --cores 2 > again.log 2>&1
check "a second snakemake run is a no-op" "[ \$? -eq 0 ] && [ \$(stat -c %Y $r/blast/hsps.tsv) = $before ]"
[ "$fails" -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "all checks passed"
