#!/usr/bin/env bash
# --auto-tune against the defaults on real pairs, side by side in one run: the defaults, --auto-tune --tune-check
# (the on-line check: defaults and plan timed on a database sample, the faster kept) and --auto-tune (the model's
# plan as it is). Wall times are medians of alternated repeats; the check's prediction of build + stages 1a/1b is
# set against what the run measured for the same stages, and its prediction of the whole run (what the run cost up to
# the check, stages 1a/1b, the extensions, reading the database) against the run's total. Prints a table and writes
# CSV.
#
# Usage: bench/auto_tune_check.sh BUILD_BIN_DIR [OUT_DIR]
#   The first four rows are the pairs auto-tune was found to mispredict on; the rest are held out (never used
#   while building the check). AUTO_REPEATS (default 3), AUTO_THREADS (default 1), AUTO_GAPPED=1 for gapped runs
#   (the default is --ungapped: stage 3 costs the same whatever the plan and would hide the difference).
#   AUTO_CASES=REGEX runs only the matching cases. Uses the calibration profile as it is (blast-bloom calibrate); without one, the built-in figures.
#   AUTO_PROFILE=FILE: the --auto-tune runs use that profile. AUTO_PROFILE_B=FILE (a calibration taken at another
#   time): a fourth variant, --auto-tune with it (no check), whose plan and time are set against AUTO_PROFILE's.
set -euo pipefail
bin="${1:?usage: bench/auto_tune_check.sh BUILD_BIN_DIR [OUT_DIR]}"
out="${2:-bench-results}"
here="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$out"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
source "$here/bench/blast_inputs.sh"
klebs="${path[klebsiella_hs11286.fa]}"; contigs="${path[ecoli_454_contigs.fa]}"
repeats="${AUTO_REPEATS:-3}"; threads="${AUTO_THREADS:-1}"
mode=(--ungapped); [ "${AUTO_GAPPED:-0}" = 1 ] && mode=()
klebs_100k="$tmp/klebs_100k.fa"
{ echo ">klebs_100k"; (set +o pipefail; grep -v '^>' "$klebs" | tr -d '\n' | head -c 1100000 | tail -c 100000 | fold -w 70); echo; } \
  > "$klebs_100k"

# name|query|db|w|set
cases=(
  "ecoli1M_vs_ecoli|$ecoli_1m|$ecoli|11|tuned"
  "contigs_vs_ecoli|$contigs|$ecoli|11|tuned"
  "ssuis_vs_ecoli|$ssuis|$ecoli|11|tuned"
  "lambda_vs_ssuis|$lambda|$ssuis|11|tuned"
  "klebs100k_vs_ecoli_w16|$klebs_100k|$ecoli|16|held-out"
  "ecoli_vs_klebs_w28|$ecoli|$klebs|28|held-out"
  "ssuis_self|$ssuis|$ssuis|11|held-out"
  "contigs_vs_klebs_w16|$contigs|$klebs|16|held-out"
  "klebs_vs_ssuis|$klebs|$ssuis|11|held-out"
  "lambda_vs_ecoli_w28|$lambda|$ecoli|28|held-out"
  "contigs_vs_ssuis_w28|$contigs|$ssuis|28|held-out"
)
# The short-query shape, when bench/blast_small_query.sh has made its databases (never committed).
sq="${BLAST_SQ_DIR:-/tmp/bloomseq-small-query}"
if [ -f "$sq/random_200M.2bit" ] && [ -f "$sq/repeats_200M.2bit" ]; then
  ssuis_10k="$tmp/ssuis_10k.fa"
  { echo ">ssuis_10k"; (set +o pipefail; grep -v '^>' "$ssuis" | tr -d '\n' | tail -c +1000001 | head -c 10000 | fold -w 70); echo; } \
    > "$ssuis_10k"
  cases+=("lambda_vs_random200M|$lambda|$sq/random_200M.2bit|11|held-out"
          "ssuis10k_vs_repeats200M|$ssuis_10k|$sq/repeats_200M.2bit|11|held-out"
          "ssuis10k_vs_random200M_w28|$ssuis_10k|$sq/random_200M.2bit|28|held-out")
fi
csv="$out/auto_tune_check.csv"
echo "case,set,w,variant,round,wall_s,kept,predicted_s,measured_s,plan_built,check_s,run_predicted_s,run_measured_s,plan" > "$csv"
run() {  # case set w variant round query db
  local name=$1 set=$2 w=$3 variant=$4 round=$5 q=$6 db=$7 extra=()
  case $variant in
    auto) extra=(--auto-tune --tune-check ${AUTO_PROFILE:+--profile "$AUTO_PROFILE"}) ;;
    auto_nocheck) extra=(--auto-tune ${AUTO_PROFILE:+--profile "$AUTO_PROFILE"}) ;;
    auto_b) extra=(--auto-tune --profile "$AUTO_PROFILE_B") ;;
  esac
  local t0 t1
  t0=$(date +%s.%N)
  "$bin/blast-bloom" "${mode[@]}" -w "$w" -t "$threads" "${extra[@]}" "$q" "$db" -o "$tmp/$variant.tsv" \
    --stats "$tmp/$variant.json" --no-progress 2> "$tmp/err" || { cat "$tmp/err"; exit 1; }
  t1=$(date +%s.%N)
  python3 - "$tmp/$variant.json" "$name" "$set" "$w" "$variant" "$round" "$t0" "$t1" >> "$csv" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); name, set_, w, variant, rnd, t0, t1 = sys.argv[2:]
c = d.get("auto_tune", {}).get("check")
kept = c["kept"] if c else ""
pred = c[kept]["predicted_seconds"] if c else ""
s = d["seconds"]; meas = s["build"] + s["stage1a"] + s["stage1b"]
built = (1 if c["plan_built"] else 0) if c else ""
chk = f'{c["seconds"]:.4f}' if c else ""
run_pred = f'{c["predicted_run"]["total_seconds"]:.4f}' if c and "predicted_run" in c else ""
p = d["parameters"]  # the parameters the run used: n_sub, k, m, layout, probe word, exact filter
plan = f'{p["sub_query"]}/{p["hashes"]}/{p["bloom_bits"]}/{p["layout"]}/{p["probe_word"]}/{int(p["exact_filter"])}'
print(f"{name},{set_},{w},{variant},{rnd},{float(t1) - float(t0):.4f},{kept},{pred},{meas:.4f},{built},{chk},"
      f"{run_pred},{s['total']:.4f},{plan}")
PY
}
for c in "${cases[@]}"; do
  IFS='|' read -r name q db w set <<< "$c"
  [[ "$name" =~ ${AUTO_CASES:-.} ]] || continue
  echo "$name ..." >&2
  for r in $(seq 1 "$repeats"); do
    # Alternated, the order rotating each round so no variant always runs first.
    variants=(defaults auto auto_nocheck); [ -n "${AUTO_PROFILE_B:-}" ] && variants+=(auto_b)
    for i in "${!variants[@]}"; do
      v=${variants[$(( (i + r) % ${#variants[@]} ))]}
      run "$name" "$set" "$w" "$v" "$r" "$q" "$db"
    done
    { [ -z "${AUTO_PROFILE_B:-}" ] || cmp -s "$tmp/defaults.tsv" "$tmp/auto_b.tsv"; } &&
      cmp -s "$tmp/defaults.tsv" "$tmp/auto.tsv" && cmp -s "$tmp/defaults.tsv" "$tmp/auto_nocheck.tsv" \
      || { echo "$name: HSPs differ between variants" >&2; exit 1; }
  done
done
python3 - "$csv" "$(cut -d' ' -f1-3 /proc/loadavg)" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cases = []
for r in rows:
    if r["case"] not in cases: cases.append(r["case"])
print(f"\n--auto-tune vs defaults, medians (load {sys.argv[2]})")
print(f"{'case':26} {'set':9} {'defaults':>9} {'auto':>8} {'no-check':>9} {'auto/def':>9} {'nochk/def':>10} {'kept':>9} {'built':>6} {'check s':>8} {'pred/meas':>10} {'run pred/meas':>14}")
for c in cases:
    rr = [r for r in rows if r["case"] == c]
    med = lambda v: statistics.median(float(r["wall_s"]) for r in rr if r["variant"] == v)
    d, a, n = med("defaults"), med("auto"), med("auto_nocheck")
    auto = [r for r in rr if r["variant"] == "auto"]
    kept = ",".join(sorted(set(r["kept"] for r in auto if r["kept"]))) or "-"
    pm = [float(r["predicted_s"]) / float(r["measured_s"]) for r in auto if r["predicted_s"]]
    pms = f"{statistics.median(pm):.2f}" if pm else "-"
    built = sum(int(r["plan_built"] or 0) for r in auto)
    chk = statistics.median(float(r["check_s"]) for r in auto) if all(r["check_s"] for r in auto) else 0.0
    rp = [float(r["run_predicted_s"]) / float(r["run_measured_s"]) for r in auto if r.get("run_predicted_s")]
    rps = f"{statistics.median(rp):.2f}" if rp else "-"
    print(f"{c:26} {rr[0]['set']:9} {d:9.2f} {a:8.2f} {n:9.2f} {a / d:9.2f} {n / d:10.2f} {kept:>9} {built:>3}/{len(auto)} {chk:8.2f} {pms:>10} {rps:>14}")
if any(r["variant"] == "auto_b" for r in rows):
    print("\nTwo calibrations (AUTO_PROFILE, AUTO_PROFILE_B): the plans --auto-tune made and their times")
    print(f"{'case':26} {'plan A (n_sub/k/m/layout/probe/exact)':44} {'plan B':44} {'B/A time':>9}")
    for c in cases:
        rr = [r for r in rows if r["case"] == c]
        a = [r for r in rr if r["variant"] == "auto_nocheck"]; b = [r for r in rr if r["variant"] == "auto_b"]
        ta = statistics.median(float(r["wall_s"]) for r in a); tb = statistics.median(float(r["wall_s"]) for r in b)
        print(f"{c:26} {a[0]['plan']:44} {b[0]['plan']:44} {tb / ta:9.2f}")
print(f"\nCSV: {sys.argv[1]}")
PY
