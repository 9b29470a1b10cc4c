#!/usr/bin/env bash
# facs classify --auto-tune's two predictions of the classification rate against the rate the same run measures:
# the model's (every k-mer of every read against every filter) and the timed sample's (the first reads of the
# input, read and classified on one thread). Prints a table and writes facs_auto_tune_check.csv into OUT_DIR.
#
# Usage: bench/facs_auto_tune_check.sh BIN_DIR OUT_DIR [FILTERS.bf:READS[:THREADS[:EXTRA]] ...]
#   Without cases: the bundled lambda reads against a filter of the bundled lambda genome, on 1 and 2 threads.
#   Typical cases: WORKDIR/refs.bf:WORKDIR/reads/mix.fq from bench/facs.sh (add .gz reads for gzip), the 1,024-reference
#   interleaved set of bench/facs_refs_scale.sh with EXTRA "--load map" (spaces as in one shell word).
#   PROFILE (default: the default profile file) is the calibration both predictions use; REPEAT (default 2).
set -euo pipefail
bin=$(cd "${1:?usage: bench/facs_auto_tune_check.sh BIN_DIR OUT_DIR [FILTERS.bf:READS[:THREADS[:EXTRA]] ...]}" && pwd)
out=${2:?usage: bench/facs_auto_tune_check.sh BIN_DIR OUT_DIR [cases...]}
shift 2
src=$(cd "$(dirname "$0")/.." && pwd)
repeat=${REPEAT:-2}
mkdir -p "$out"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
profile=(); [ -n "${PROFILE:-}" ] && profile=(--profile "$PROFILE")
cases=("$@")
if [ ${#cases[@]} -eq 0 ]; then
  "$bin/facs" build-filter -q -o "$tmp/lambda.bf" "$src/data/lambda_virus.fa"
  cases=("$tmp/lambda.bf:$src/data/lambda_reads_1.fq:1" "$tmp/lambda.bf:$src/data/lambda_reads_1.fq:2")
fi
csv="$out/facs_auto_tune_check.csv"
echo "filters,reads,threads,round,reads_classified,model_reads_per_s,sampled_reads_per_s,measured_reads_per_s,model_over_measured,sampled_over_measured" > "$csv"
printf "%-28s %-24s %3s %9s %12s %12s %12s %7s %7s\n" filters reads thr reads model sampled measured model/m sample/m
for r in $(seq "$repeat"); do
  for c in "${cases[@]}"; do
    IFS=: read -r bf reads threads extra <<< "$c"
    threads=${threads:-2}
    # shellcheck disable=SC2086  # EXTRA is options, split on purpose
    "$bin/facs" classify --auto-tune "${profile[@]}" -t "$threads" $extra "$reads" "$bf" --summary /dev/null \
      --json "$tmp/run.json" > /dev/null 2> "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
    python3 - "$tmp/run.json" "$bf" "$reads" "$threads" "$r" "$csv" <<'PY'
import json, os, sys
j = json.load(open(sys.argv[1])); a = j["auto_tune"]; p = a["predicted"]; m = a["measured"]
bf, reads, threads, rnd, csv = sys.argv[2:7]
model, meas = p["reads_per_second"], m["reads_per_second"]
sampled = p.get("sampled_reads_per_second", 0.0)
row = [os.path.basename(bf), os.path.basename(reads), threads, rnd, str(m["reads"]), "%.0f" % model, "%.0f" % sampled,
       "%.0f" % meas, "%.2f" % (model / meas), "%.2f" % (sampled / meas)]
open(csv, "a").write(",".join(row) + "\n")
print("%-28s %-24s %3s %9s %12s %12s %12s %7s %7s" % (row[0][:28], row[1][:24], threads, row[4], row[5], row[6], row[7], row[8], row[9]))
PY
  done
done
echo "CSV: $csv"
