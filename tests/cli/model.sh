#!/usr/bin/env bash
# bloomseq-model and bloomseq-calibrate: outputs parse, exit codes follow sysexits, profiles round-trip.
set -euo pipefail
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
m="$bin/bloomseq-model"
c="$bin/bloomseq-calibrate"
fail() { echo "FAIL: $*" >&2; exit 1; }

# tradeoff: header + one line per step, FPR non-decreasing with n_sub
"$m" tradeoff --device gtx480 --steps 12 -o "$tmp/t.csv" 2>/dev/null
[ "$(grep -vc '^#' "$tmp/t.csv")" -eq 12 ] || fail "tradeoff rows"
grep -q '^# n_sub,n_e,subqueries,fpr' "$tmp/t.csv" || fail "tradeoff header"
awk -F, '!/^#/ { if (NR > 3 && $4 + 0 < prev) bad = 1; prev = $4 + 0 } END { exit bad }' "$tmp/t.csv" || fail "FPR not monotone"

# blocks on the GTX 480 at 256 Kbit: B_a = 1, peaks (f_sched = 1) exactly at multiples of 15
"$m" blocks --device gtx480 -m 262144 --threads 256 --max-blocks 90 -o "$tmp/b.csv" 2>/dev/null
peaks=$(awk -F, '!/^#/ && $5 == 1 { printf "%s ", $2 }' "$tmp/b.csv")
[ "$peaks" = "15 30 45 60 75 90 " ] || fail "peaks: $peaks"

# plan on every built-in GPU and the CPU; JSON form
for d in gtx480 c1060 a100 h100 h200; do
  "$m" plan --device "$d" --query-bases 1000000 --db-bases 5000000 --target-fpr 1e-3 > "$tmp/p.txt" 2>/dev/null
  grep -q "target met" "$tmp/p.txt" || fail "plan on $d"
done
"$m" plan --device gtx480 --query-bases 1000000 --db-bases 5000000 --target-throughput 1e5 --json 2>/dev/null | grep -q '"objective":"min-fpr"' || fail "plan json"

# usage errors -> 64
set +e
"$m" nonsense 2>/dev/null; [ $? -eq 64 ] || fail "unknown command exit code"
"$m" tradeoff -k 0 2>/dev/null; [ $? -eq 64 ] || fail "bad k exit code"
"$m" blocks --device cpu 2>/dev/null; [ $? -eq 64 ] || fail "blocks on cpu exit code"
"$m" plan --target-fpr 2 2>/dev/null; [ $? -eq 64 ] || fail "bad fpr exit code"
"$m" profile --device gtx480 --profile "$tmp/missing.json" 2>/dev/null; [ $? -eq 66 ] || fail "missing profile exit code"
echo '{"format": "bloomseq-profile", "a1": x}' > "$tmp/bad.json"
"$m" profile --profile "$tmp/bad.json" 2>/dev/null; [ $? -eq 65 ] || fail "malformed profile exit code"
set -e

# calibration (quick) writes a profile the other tools read back
XDG_CACHE_HOME="$tmp/cache" "$c" --quick > "$tmp/cal.txt" 2>"$tmp/cal.err"
[ -s "$tmp/cache/bloomseq/profile.json" ] || fail "no profile written"
grep -q '"calibrated": 1' "$tmp/cache/bloomseq/profile.json" || fail "profile not marked calibrated"
XDG_CACHE_HOME="$tmp/cache" "$m" profile --device cpu 2>&1 >/dev/null | grep -q "profile.json" || fail "profile not used"
# the kernel probe's coefficients are in the profile, and left out with --no-kernel-probe
grep -q '"kernel_vector_hash_ns"' "$tmp/cache/bloomseq/profile.json" || fail "no kernel_vector_* in the profile"
grep -q '"kernel_bitsliced_row_fixed_ns"' "$tmp/cache/bloomseq/profile.json" || fail "no kernel_bitsliced_* in the profile"
grep -q '^kernel,bitsliced,' "$tmp/cal.txt" || fail "kernel probe points not printed"
"$c" --quick --no-kernel-probe --profile "$tmp/noprobe.json" > /dev/null 2>&1
grep -q '"calibrated": 1' "$tmp/noprobe.json" || fail "--no-kernel-probe wrote no profile"
if grep -q 'kernel_' "$tmp/noprobe.json"; then fail "--no-kernel-probe still wrote kernel coefficients"; fi
# --csv makes its directory; one that cannot be made is refused at once (74) and no profile is written
"$c" --quick --no-kernel-probe --profile "$tmp/csv.json" --csv "$tmp/csv/sub" > /dev/null 2>&1
for f in pchase random_read work_units stage1a_fit; do [ -s "$tmp/csv/sub/$f.csv" ] || fail "--csv did not write $f.csv"; done
set +e
"$c" --quick --no-kernel-probe --profile "$tmp/nocsv.json" --csv "$tmp/noprobe.json/sub" > /dev/null 2> "$tmp/csv.err"
rc=$?
set -e
[ "$rc" -eq 74 ] || fail "--csv under a file: exit $rc, not 74"
[ "$(wc -l < "$tmp/csv.err")" -eq 1 ] && grep -q -- "--csv" "$tmp/csv.err" || fail "--csv error not one line naming the option"
[ ! -e "$tmp/nocsv.json" ] || fail "a profile was written although --csv failed"
XDG_CACHE_HOME="$tmp/nocache" "$m" profile --device cpu 2>&1 >/dev/null | grep -q "built-in defaults" || fail "defaults not announced"
echo ok
