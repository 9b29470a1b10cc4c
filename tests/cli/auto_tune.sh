#!/usr/bin/env bash
# --auto-tune on blast-bloom and facs: the plan respects the device and the targets, explicit parameters stay fixed,
# the run's measured FPR agrees with the prediction, HSPs do not depend on the tuning, bad targets are usage errors;
# the model/calibrate subcommands answer like bloomseq-model. Usage: auto_tune.sh BIN_DIR SRC_DIR
set -uo pipefail
bin="$1"; src="$2"; bb="$bin/blast-bloom"; facs="$bin/facs"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache"  # no calibrated profile: built-in defaults, announced on one line
q="$src/data/lambda_virus.fa"; db="$src/data/ecoli_536_200k.fa"
fail=0
check() {  # description expected_status command...
  local what="$1" want="$2"; shift 2
  "$@" > "$tmp/stdout" 2> "$tmp/stderr"; local got=$?
  if [[ "$got" != "$want" ]]; then echo "FAIL $what: exit $got, expected $want"; cat "$tmp/stderr"; fail=1; else echo "ok   $what"; fi
}
bad() { echo "FAIL $*"; fail=1; }
# jget FILE PATH: a number or string from pretty-printed JSON, PATH = object names and key joined by '.'
jget() {
  awk -v want="$2" '
    /^[[:space:]]*"[^"]*": *\{/ { match($0, /"[^"]*"/); stack[++n] = substr($0, RSTART + 1, RLENGTH - 2); next }
    NR > 1 && /^[[:space:]]*\{/ { stack[++n] = "#"; next }  # an object inside an array
    /^[[:space:]]*\}/ { if (n > 0) n--; next }
    /^[[:space:]]*"[^"]*": / {
      match($0, /"[^"]*"/); key = substr($0, RSTART + 1, RLENGTH - 2)
      path = ""; for (i = 1; i <= n; i++) path = path stack[i] "."; path = path key
      if (path == want) { v = $0; sub(/^[^:]*: */, "", v); sub(/,$/, "", v); gsub(/"/, "", v); print v; exit }
    }' "$1"
}
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 <= b + 0) }'; }

# 1. Minimum time under an FPR target: plan printed before the run, within the device, target met. (--every-wmer:
# the Bloom plan itself, not the short-word scan that section 1b shows auto-tune taking for this short query.)
check "auto-tune --target-fpr" 0 "$bb" --auto-tune --every-wmer --target-fpr 1e-3 "$q" "$db" -o "$tmp/auto.tsv" --stats "$tmp/auto.json"
grep -q '^# plan (min time under FPR target).*target met' "$tmp/stderr" || bad "plan not printed"
grep -q 'built-in defaults' "$tmp/stderr" || bad "missing profile not announced"
s="$tmp/auto.json"
pfpr=$(jget "$s" auto_tune.predicted.fpr); mfpr=$(jget "$s" auto_tune.measured.fpr)
[[ -n "$pfpr" && -n "$mfpr" ]] || bad "stats lack predicted/measured FPR"
le "$pfpr" 1e-3 || bad "predicted FPR $pfpr above the target"
printed=$(sed -n 's/.*predicted: FPR=\([^ ]*\).*/\1/p' "$tmp/stderr")
[[ -n "$printed" ]] && le "$printed" 1e-3 || bad "printed FPR '$printed' above the target"
# Eq. 2 with n_e = n_sub - w + 1 bounds the distinct w-mers from above; the measured rate must agree within 50 %.
awk -v m="$mfpr" -v p="$pfpr" 'BEGIN { exit !(m >= 0.5 * p && m <= 1.5 * p) }' || bad "measured FPR $mfpr vs predicted $pfpr"
for k in stage1a_seconds tests_per_second wmers_per_second; do
  [[ -n "$(jget "$s" auto_tune.predicted.$k)" && -n "$(jget "$s" auto_tune.measured.$k)" ]] || bad "stats lack $k"
done
n_sub=$(jget "$s" parameters.sub_query); k=$(jget "$s" parameters.hashes); m=$(jget "$s" parameters.bloom_bits)
threads=$(jget "$s" threads); layout=$(jget "$s" parameters.layout)
[[ "$n_sub" == "$(jget "$s" auto_tune.plan.sub_query)" && "$k" == "$(jget "$s" auto_tune.plan.hashes)" &&
   "$m" == "$(jget "$s" auto_tune.plan.bloom_bits)" ]] || bad "plan not applied ($n_sub $k $m)"
(( k >= 1 && k <= 32 && m >= 64 && m <= 4194304 && n_sub >= 11 && n_sub <= 48502 )) || bad "plan outside limits"
cores=$(nproc 2>/dev/null || echo 1)
(( threads >= 1 && threads <= cores )) || bad "threads $threads outside 1..$cores"
# The tuning only changes the prefilter: the HSPs equal those of a run with the defaults.
"$bb" "$q" "$db" -o "$tmp/default.tsv" 2>/dev/null || bad "default run"
cmp -s "$tmp/auto.tsv" "$tmp/default.tsv" || bad "auto-tuned HSPs differ from the default run"
# With the on-line check (--tune-check): the plan and the defaults timed on a sample, the choice said on stderr and
# in the stats, the HSPs still those of the default run.
check "auto-tune with the on-line check" 0 "$bb" --auto-tune --tune-check --target-fpr 1e-3 "$q" "$db" -o "$tmp/checked.tsv" --stats "$tmp/checked.json"
if grep -q 'auto-tune check on' "$tmp/stderr"; then
  kept=$(jget "$tmp/checked.json" auto_tune.check.kept)
  [[ "$kept" == plan || "$kept" == defaults ]] || bad "check: kept '$kept'"
  grep -q "keeping the $kept" "$tmp/stderr" || bad "check: stderr does not say what was kept"
  le 1 "$(jget "$tmp/checked.json" auto_tune.check.sample_bases)" || bad "check: no sample"
fi
cmp -s "$tmp/checked.tsv" "$tmp/default.tsv" || bad "checked auto-tune HSPs differ from the default run"
# The check predicts the whole run (so far + stages 1a/1b + extensions + reading), says it, and its parts add up.
grep -q '^blast-bloom: predicted run [0-9.]* s: [0-9.]* s so far, stages 1a/1b ' "$tmp/stderr" || bad "check: no run prediction"
pr=auto_tune.check.predicted_run
awk -v t="$(jget "$tmp/checked.json" $pr.total_seconds)" -v a="$(jget "$tmp/checked.json" $pr.before_seconds)" \
    -v b="$(jget "$tmp/checked.json" $pr.stages_1a_1b_seconds)" -v c="$(jget "$tmp/checked.json" $pr.extensions_seconds)" \
    -v d="$(jget "$tmp/checked.json" $pr.reading_seconds)" \
    'BEGIN { s = a + b + c + d; exit !(t > 0 && a > 0 && b > 0 && c >= 0 && d >= 0 && (t - s) ^ 2 < 1e-12 + 1e-6 * t * t) }' ||
  bad "check: the run's prediction is not the sum of positive parts"
check "--tune-check needs --auto-tune" 64 "$bb" --tune-check "$q" "$db" -o /dev/null

# 1b. A short query against a database 1,000 times its size: the Bloom plan is priced against the short-word scan of
# the defaults (exact filters, no false positives); the scan is predicted cheaper, taken and said, and the HSPs
# stay those of the default run.
big="$tmp/big_db.fa"
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25; do
  awk -v i="$i" 'NR == 1 { print ">copy" i; next } { print }' "$db"
done > "$big"
check "auto-tune on a short query" 0 "$bb" --auto-tune -t 1 "$q" "$big" -o "$tmp/short_auto.tsv" --stats "$tmp/short.json"
grep -q 'auto-tune: short-word scan (p = [0-9]*, stride [0-9]*, exact filters) predicted .* taking the scan' "$tmp/stderr" ||
  bad "short query: the scan was not taken or not said"
[[ "$(jget "$tmp/short.json" parameters.exact_filter)" == true ]] || bad "short query: stats do not show the exact filters"
"$bb" -t 1 "$q" "$big" -o "$tmp/short_default.tsv" 2>/dev/null || bad "short query default run"
cmp -s "$tmp/short_auto.tsv" "$tmp/short_default.tsv" || bad "short query: auto-tuned HSPs differ from the default run"
# With Bloom parameters given, the scan is not considered.
check "auto-tune with -k on a short query" 0 "$bb" --auto-tune -k 3 -t 1 "$q" "$big" -o /dev/null --stats "$tmp/short_k.json"
grep -q 'short-word scan' "$tmp/stderr" && bad "short query with -k: the scan was considered"
[[ "$(jget "$tmp/short_k.json" parameters.exact_filter)" == false ]] || bad "short query with -k: exact filters"

# 1c. At w = 28 the defaults test probe words at a stride, which the model does not price: under a target FPR that
# their filters meet, auto-tune keeps them (said on stderr); under one they miss, the plan tests every w-mer. The
# query is too long for a short word (15 copies of the 200-kb genome piece, 3 Mbases); the database its first 20 kb.
genome_q="$tmp/genome_q.fa"; piece_db="$tmp/piece_db.fa"
awk 'NR > 1' "$db" | tr -d '\n' > "$tmp/genome.txt"
{ echo ">copies"; for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do cat "$tmp/genome.txt"; done | fold -w 80; echo; } > "$genome_q"
{ echo ">piece"; head -c 20000 "$tmp/genome.txt" | fold -w 80; echo; } > "$piece_db"
check "auto-tune at w = 28" 0 "$bb" --auto-tune -w 28 -t 1 "$genome_q" "$piece_db" -o "$tmp/w28_auto.tsv" --stats "$tmp/w28.json"
grep -q 'auto-tune: probe words of 16 bases at a stride of 13 (the defaults; modelled FPR .*) kept over the plan' "$tmp/stderr" ||
  bad "w = 28: the defaults' probe words were not kept or not said"
[[ "$(jget "$tmp/w28.json" parameters.probe_word)" == 16 ]] || bad "w = 28: the run does not test probe words"
"$bb" -w 28 -t 1 "$genome_q" "$piece_db" -o "$tmp/w28_default.tsv" 2>/dev/null || bad "w = 28 default run"
[[ $(wc -l < "$tmp/w28_default.tsv") -ge 20 ]] || bad "w = 28: too few HSPs to compare (test data changed?)"
cmp -s "$tmp/w28_auto.tsv" "$tmp/w28_default.tsv" || bad "w = 28: auto-tuned HSPs differ from the default run"
check "auto-tune at w = 28, target FPR 1e-12" 0 "$bb" --auto-tune --target-fpr 1e-12 -w 28 -t 1 "$genome_q" "$piece_db" -o /dev/null \
  --stats "$tmp/w28_tight.json"
grep -q 'probe words of 16' "$tmp/stderr" && bad "w = 28: probe words kept under a target their filters miss"
[[ "$(jget "$tmp/w28_tight.json" parameters.probe_word)" == 0 ]] || bad "w = 28, 1e-12: not every w-mer tested"

# 2. Minimum FPR under a throughput target.
check "auto-tune --target-throughput" 0 "$bb" --auto-tune --target-throughput 1e6 "$q" "$db" -o "$tmp/tp.tsv" --stats "$tmp/tp.json"
grep -q '^# plan (min FPR under throughput target)' "$tmp/stderr" || bad "throughput plan not printed"
[[ "$(jget "$tmp/tp.json" auto_tune.objective)" == min-fpr ]] || bad "objective not recorded"
le 1e6 "$(jget "$tmp/tp.json" auto_tune.predicted.wmers_per_second)" || bad "predicted throughput below target"

# 3. Explicit parameters stay fixed.
check "auto-tune with fixed -k -m --sub-query -t --layout" 0 "$bb" --auto-tune -k 4 -m 64K --sub-query 2000 -t 1 \
  --layout bitsliced "$q" "$db" -o /dev/null --stats "$tmp/fixed.json"
f="$tmp/fixed.json"
[[ "$(jget "$f" parameters.hashes)" == 4 && "$(jget "$f" parameters.bloom_bits)" == 65536 &&
   "$(jget "$f" parameters.sub_query)" == 2000 && "$(jget "$f" threads)" == 1 &&
   "$(jget "$f" parameters.layout)" == bitsliced ]] || bad "fixed parameters changed"
check "auto-tune with fixed -k only" 0 "$bb" --auto-tune -k 2 "$q" "$db" -o /dev/null --stats "$tmp/k2.json"
[[ "$(jget "$tmp/k2.json" parameters.hashes)" == 2 ]] || bad "-k not kept"

# 4. Profiles: an explicit file is used and named; a missing one is an error.
"$bin/bloomseq-model" profile --device cpu > "$tmp/profile.json" 2>/dev/null || bad "profile export"
check "auto-tune --profile FILE" 0 "$bb" --auto-tune --profile "$tmp/profile.json" "$q" "$db" -o /dev/null
grep -q "profile.json" "$tmp/stderr" || bad "profile file not named"
check "auto-tune missing profile" 66 "$bb" --auto-tune --profile "$tmp/none.json" "$q" "$db"

# 5. Bad targets: exit 64 with one line.
for args in "--auto-tune --target-fpr 1e-3 --target-throughput 1e6" "--auto-tune --target-fpr 0" \
            "--auto-tune --target-fpr 1" "--auto-tune --target-fpr -0.5" "--auto-tune --target-throughput 0" \
            "--target-fpr 1e-3"; do
  check "bad: $args" 64 "$bb" $args "$q" "$db"
  [[ $(wc -l < "$tmp/stderr") -eq 1 ]] || bad "'$args' error is not one line"
done

# 6. Subcommands share bloomseq-model's code.
check "blast-bloom model tradeoff" 0 "$bb" model tradeoff --device cpu --steps 5 -o "$tmp/t1.csv"
grep -q '^# n_sub,n_e,subqueries,fpr' "$tmp/t1.csv" || bad "tradeoff CSV header"
[[ $(grep -vc '^#' "$tmp/t1.csv") -eq 5 ]] || bad "tradeoff rows"
"$bin/bloomseq-model" tradeoff --device cpu --steps 5 -o "$tmp/t2.csv" 2>/dev/null
cmp -s "$tmp/t1.csv" "$tmp/t2.csv" || bad "blast-bloom model and bloomseq-model differ"
check "facs model tradeoff" 0 "$facs" model tradeoff --device cpu --steps 5 -o "$tmp/t3.csv"
cmp -s "$tmp/t1.csv" "$tmp/t3.csv" || bad "facs model and bloomseq-model differ"
check "blast-bloom model --help" 0 "$bb" model --help
grep -q "blast-bloom model COMMAND" "$tmp/stdout" || bad "model help names the tool"
check "blast-bloom model bad command" 64 "$bb" model nonsense
check "blast-bloom calibrate --help" 0 "$bb" calibrate --help
check "blast-bloom calibrate --show" 0 "$bb" calibrate --show
grep -q '"format"' "$tmp/stdout" || bad "calibrate --show prints no profile"

# 7. facs build-filter --auto-tune: m and k from the plan meet the FPR target; explicit -k stays.
# The model sizes classic filters (k probes anywhere in m bits); blocked filters (the default layout) are sized by the
# builder's blocked formula and only have to meet the target.
reads="$src/data/lambda_reads_1.fq"
check "facs build-filter --auto-tune blocked" 0 "$facs" build-filter --auto-tune --target-fpr 1e-4 -o "$tmp/blocked.bf" \
  -q --json "$tmp/blocked.json" "$q" "$db"
for x in $(grep -o '"predicted_fpr": [^,]*' "$tmp/blocked.json" | sed 's/.*: //'); do
  le "$x" 1e-4 || bad "facs blocked predicted FPR $x above the target"
done
check "facs build-filter --auto-tune" 0 "$facs" build-filter --auto-tune --target-fpr 1e-4 --layout classic \
  -o "$tmp/refs.bf" -q --json "$tmp/build.json" "$q" "$db"
grep -q '^# plan (facs build-filter, FPR target 0.0001) on .*: target met' "$tmp/stderr" || bad "facs plan not printed"
fprs=$(grep -o '"predicted_fpr": [^,]*' "$tmp/build.json" | sed 's/.*: //')
[[ $(echo "$fprs" | wc -l) -eq 4 ]] || bad "facs JSON lacks per-filter predictions"
for x in $fprs; do le "$x" 1e-4 || bad "facs predicted FPR $x above the target"; awk -v x="$x" 'BEGIN { exit !(x > 5e-5) }' || bad "facs filter oversized ($x)"; done
check "facs build-filter --auto-tune -k 5" 0 "$facs" build-filter --auto-tune -k 5 -o "$tmp/k5.bf" -q --json "$tmp/k5.json" "$q"
[[ $(grep -c '"hashes": 5' "$tmp/k5.json") -ge 2 ]] || bad "facs -k not kept"

# 8. facs classify --auto-tune: plan printed, threads within the cores, predicted next to measured in --json.
check "facs classify --auto-tune" 0 "$facs" classify --auto-tune "$reads" "$tmp/refs.bf" --json "$tmp/classify.json" --summary "$tmp/sum.tsv"
grep -q '^# plan (facs classify' "$tmp/stderr" || bad "classify plan not printed"
c="$tmp/classify.json"
t=$(jget "$c" auto_tune.threads); (( t >= 1 && t <= cores )) || bad "classify threads $t"
[[ "$(jget "$c" parameters.threads)" == "$t" ]] || bad "classify plan threads not applied"
le 1 "$(jget "$c" auto_tune.predicted.reads_per_second)" || bad "no predicted reads/s"
le 1 "$(jget "$c" auto_tune.measured.reads_per_second)" || bad "no measured reads/s"
[[ "$(jget "$c" results.called.lambda_virus)" -gt 1500 ]] || bad "lambda reads not called to lambda"
# The sample of the input: taken from a regular file, its lookups per read those the run counts (same reads, same
# classifier; the sample is the start of the file, so within a factor of 2), not taken from stdin (nothing consumed).
grep -q '^#   sample: [0-9]* reads from the start of the input' "$tmp/stderr" || bad "classify sample not printed"
le 1 "$(jget "$c" auto_tune.predicted.sampled_reads_per_second)" || bad "no sampled reads/s"
sl=$(jget "$c" auto_tune.predicted.sample_lookups_per_read); rl=$(jget "$c" results.lookups_per_read)
awk -v a="$sl" -v b="$rl" 'BEGIN { exit !(a > b / 2 && a < b * 2) }' || bad "sample lookups per read $sl against the run's $rl"
# A target the sample's rate reaches on one thread takes one thread (the model alone asked for every core).
check "facs classify --auto-tune --target-throughput 1000" 0 "$facs" classify --auto-tune --target-throughput 1000 \
  "$reads" "$tmp/refs.bf" --json "$tmp/c1000.json" --summary /dev/null
[[ "$(jget "$tmp/c1000.json" parameters.threads)" == 1 ]] || bad "a low throughput target did not take one thread"
[[ "$(jget "$tmp/c1000.json" auto_tune.threads)" == 1 ]] || bad "the plan's threads are not the run's"
check "facs classify --auto-tune from stdin" 0 "$facs" classify --auto-tune - "$tmp/refs.bf" --json "$tmp/stdin.json" \
  --summary /dev/null < "$reads"
grep -q '^#   sample: not taken (the reads are not a regular file' "$tmp/stderr" || bad "stdin sample not refused"
[[ "$(jget "$tmp/stdin.json" results.total)" == "$(jget "$c" results.total)" ]] || bad "stdin run lost reads to the sample"
echo "ok   facs classify sample: $sl lookups per read against the run's $rl"
# A larger input (the bundled reads eight times, ~1.3 Mbases): a first piece warms up, the pieces after it are timed
# (the reads counted by the sample are those after the first piece, never a second pass over the same reads).
for i in 1 2 3 4 5 6 7 8; do cat "$reads"; done > "$tmp/reads8.fq"
check "facs classify --auto-tune, sample in pieces" 0 "$facs" classify --auto-tune -t 1 "$tmp/reads8.fq" "$tmp/refs.bf" \
  --json "$tmp/c8.json" --summary /dev/null
sr=$(jget "$tmp/c8.json" auto_tune.predicted.sample_reads); total8=$(jget "$tmp/c8.json" results.total)
(( sr >= 1 && sr < total8 )) || bad "sample of $sr reads out of $total8"
sl8=$(jget "$tmp/c8.json" auto_tune.predicted.sample_lookups_per_read); rl8=$(jget "$tmp/c8.json" results.lookups_per_read)
awk -v a="$sl8" -v b="$rl8" 'BEGIN { exit !(a > b / 2 && a < b * 2) }' || bad "pieces: $sl8 lookups per read against $rl8"
check "facs classify --auto-tune -t 1 --target-throughput" 0 "$facs" classify --auto-tune -t 1 --target-throughput 1000 \
  "$reads" "$tmp/refs.bf" --json "$tmp/c1.json" --summary /dev/null
[[ "$(jget "$tmp/c1.json" parameters.threads)" == 1 ]] || bad "classify -t not kept"
for args in "build-filter --auto-tune --target-throughput 1e6 -o $tmp/x.bf $q" \
            "build-filter --auto-tune --target-fpr 1 -o $tmp/x.bf $q" "build-filter --target-fpr 1e-3 -o $tmp/x.bf $q" \
            "classify --auto-tune --target-fpr 1e-3 --target-throughput 1e6 $reads $tmp/refs.bf" \
            "classify --auto-tune --target-fpr 0 $reads $tmp/refs.bf"; do
  check "facs bad: $args" 64 "$facs" $args
  [[ $(wc -l < "$tmp/stderr") -eq 1 ]] || bad "'$args' error is not one line"
done
[[ ! -e "$tmp/x.bf" ]] || bad "a usage error left a filter file"

exit $fail
