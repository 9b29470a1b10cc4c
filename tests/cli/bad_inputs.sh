#!/usr/bin/env bash
# Every tool on every malformed or awkward input: a non-zero exit with the sysexits code, one line on stderr that
# names the file (and the record or line where the input has one), and no output left behind (an existing output
# file stays untouched). Usage: bad_inputs.sh BIN_DIR SRC_DIR
set -uo pipefail
bin=$1
src=$2
bad=$src/tests/corpus/bad
data=$src/data
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
failures=0
checks=0

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# expect NAME CODE NEEDLE OUT -- command...
# Runs the command with OUT pre-filled with a sentinel; checks the exit code, that stderr is one line containing
# NEEDLE, that OUT still holds the sentinel and that no temporary file was left beside it.
expect() {
  local name=$1 code=$2 needle=$3 out=$4
  shift 5
  checks=$((checks + 1))
  rm -rf "$tmp/outdir"
  mkdir -p "$tmp/outdir"
  [[ -n $out ]] && echo sentinel > "$out"
  "$@" > "$tmp/stdout" 2> "$tmp/stderr" < /dev/null
  local rc=$?
  if [[ $rc -ne $code ]]; then fail "$name: exit $rc, expected $code; stderr: $(head -c 300 "$tmp/stderr")"; return; fi
  if [[ $(grep -c . "$tmp/stderr") -ne 1 ]]; then fail "$name: stderr is not one line: $(head -c 500 "$tmp/stderr")"; return; fi
  if ! grep -qF -- "$needle" "$tmp/stderr"; then fail "$name: stderr lacks '$needle': $(cat "$tmp/stderr")"; return; fi
  if [[ -n $out && $(cat "$out" 2>/dev/null) != sentinel ]]; then fail "$name: existing output was modified"; fi
  local leftovers
  leftovers=$(find "$tmp/outdir" "$(dirname "${out:-$tmp/outdir/x}")" -maxdepth 1 -name '*.tmp*' 2>/dev/null | head -1)
  if [[ -n $leftovers ]]; then fail "$name: temporary file left behind: $leftovers"; fi
}

out=$tmp/outdir/result.tsv
bf=$tmp/refs.bf
"$bin/facs" build-filter -o "$bf" "$data/lambda_virus.fa" > /dev/null 2>&1 || { echo "cannot build a filter"; exit 1; }

# Malformed sequence files, as blast-bloom query, blast-bloom database, facs reference and facs reads.
for f in fastq_qual_short.fq fastq_qual_long.fq fastq_missing_plus.fq fastq_no_at.fq fastq_truncated.fq \
         gzip_truncated.fq.gz gzip_trailing_garbage.fq.gz binary_garbage.fa; do
  case $f in gzip*) code=74 ;; *) code=65 ;; esac
  expect "blast query $f" $code "$f" "$out" -- "$bin/blast-bloom" "$bad/$f" "$data/lambda_virus.fa" -o "$out"
  expect "blast db $f" $code "$f" "$out" -- "$bin/blast-bloom" "$data/lambda_virus.fa" "$bad/$f" -o "$out"
  expect "facs build $f" $code "$f" "$out" -- "$bin/facs" build-filter -o "$out" "$bad/$f"
  expect "facs classify $f" $code "$f" "$out" -- "$bin/facs" classify "$bad/$f" "$bf" -o "$out"
done
# Record-level errors name the record.
expect "record named" 65 "record 1 (line 4)" "$out" -- "$bin/facs" classify "$bad/fastq_missing_plus.fq" "$bf" -o "$out"
# A protein record among DNA ones (the insulin B chain): refused as a query, a database and a reference.
expect "blast query protein" 65 "record 2 (line 3): a protein sequence?" "$out" -- \
  "$bin/blast-bloom" "$bad/protein.fa" "$data/lambda_virus.fa" -o "$out"
expect "blast db protein" 65 "record 2 (line 3): a protein sequence?" "$out" -- \
  "$bin/blast-bloom" "$data/lambda_virus.fa" "$bad/protein.fa" -o "$out"
expect "blast db protein on stdin" 65 "record 2 (line 3): a protein sequence?" "$out" -- \
  sh -c "exec \"$bin/blast-bloom\" \"$data/lambda_virus.fa\" - -o \"$out\" < \"$bad/protein.fa\""
expect "facs build protein" 65 "record 2 (line 3): a protein sequence?" "$out" -- \
  "$bin/facs" build-filter -o "$out" "$bad/protein.fa"
expect "facs build protein, streamed" 65 "record 2 (line 3): a protein sequence?" "$out" -- \
  "$bin/facs" build-filter --count hll -o "$out" "$bad/protein.fa"
expect "facs build protein, interleaved" 65 "record 2 (line 3): a protein sequence?" "$out" -- \
  "$bin/facs" build-filter --layout interleaved -o "$out" "$data/lambda_virus.fa" "$bad/protein.fa"

# Missing inputs, directories, unreadable files.
expect "missing query" 66 "no_such.fa" "$out" -- "$bin/blast-bloom" "$tmp/no_such.fa" "$data/lambda_virus.fa" -o "$out"
expect "directory as reads" 66 "$tmp" "$out" -- "$bin/facs" classify "$tmp" "$bf" -o "$out"
expect "missing filter" 66 "none.bf" "$out" -- "$bin/facs" classify "$data/lambda_reads_1.fq" "$tmp/none.bf" -o "$out"

# Corrupt filter containers.
expect "bf wrong magic" 65 "bad_magic.bf" "$out" -- "$bin/facs" classify "$data/lambda_reads_1.fq" "$bad/bad_magic.bf" -o "$out"
size=$(stat -c %s "$bf")
head -c $((size / 2)) "$bf" > "$tmp/truncated.bf"
expect "bf truncated" 65 "truncated.bf" "$out" -- "$bin/facs" classify "$data/lambda_reads_1.fq" "$tmp/truncated.bf" -o "$out"
cp "$bf" "$tmp/flipped.bf"
printf '\xff' | dd of="$tmp/flipped.bf" bs=1 seek=$((size - 100)) conv=notrunc status=none
expect "bf flipped byte" 65 "flipped.bf" "$out" -- "$bin/facs" classify "$data/lambda_reads_1.fq" "$tmp/flipped.bf" -o "$out"
cp "$bf" "$tmp/future.bf"
printf '\x63' | dd of="$tmp/future.bf" bs=1 seek=8 conv=notrunc status=none
expect "bf future version" 65 "future.bf" "$out" -- "$bin/facs" info "$tmp/future.bf"
expect "2bit bad signature" 65 "bad_signature.2bit" "$out" -- "$bin/blast-bloom" "$data/lambda_virus.fa" "$bad/bad_signature.2bit" -o "$out"

# Impossible parameters.
expect "w > 32" 64 "word" "$out" -- "$bin/blast-bloom" -w 33 "$data/lambda_virus.fa" "$data/lambda_virus.fa" -o "$out"
expect "k = 0" 64 "hash" "$out" -- "$bin/blast-bloom" -k 0 "$data/lambda_virus.fa" "$data/lambda_virus.fa" -o "$out"
expect "n_sub < w" 64 "sub-query" "$out" -- "$bin/blast-bloom" --sub-query 5 "$data/lambda_virus.fa" "$data/lambda_virus.fa" -o "$out"
expect "facs w mismatch" 64 "refs.bf" "$out" -- "$bin/facs" classify -w 25 "$data/lambda_reads_1.fq" "$bf" -o "$out"

# Outputs that cannot be written.
expect "output to a missing directory" 74 "$tmp/nodir" "" -- "$bin/facs" classify "$data/lambda_reads_1.fq" "$bf" -o "$tmp/nodir/calls.tsv"
expect "output to /dev/full" 74 "/dev/full" "" -- "$bin/blast-bloom" "$data/lambda_virus.fa" "$data/lambda_virus.fa" -o /dev/full

# SIGINT during a run leaves no partial output: classify a slow stream, interrupt it, look for leftovers.
checks=$((checks + 1))
mkdir -p "$tmp/sig"
( for i in $(seq 1 200); do cat "$data/lambda_reads_1.fq"; sleep 0.05; done ) |
  "$bin/facs" classify - "$bf" -o "$tmp/sig/calls.tsv" --summary "$tmp/sig/summary.tsv" 2> /dev/null &
pid=$!
sleep 1
kill -INT $pid 2> /dev/null
wait $pid
rc=$?
if [[ $rc -eq 0 ]]; then fail "SIGINT: exit status 0"; fi
if [[ -n $(ls -A "$tmp/sig") ]]; then fail "SIGINT: files left behind: $(ls -A "$tmp/sig")"; fi

# A mapped .bf truncated by someone else during the run (after its checks): one line, exit 74, no output. The
# reads come slowly on stdin, so the filter is mapped before the truncation and its pages are read after it.
checks=$((checks + 1))
mkdir -p "$tmp/shrink"
cp "$bf" "$tmp/shrink/refs.bf"
( sleep 1; for i in $(seq 1 20); do cat "$data/lambda_reads_1.fq"; sleep 0.05; done ) |
  "$bin/facs" classify - "$tmp/shrink/refs.bf" --load map -o "$tmp/shrink/calls.tsv" --summary "$tmp/shrink/summary.tsv" \
  2> "$tmp/shrink.err" &
pid=$!
sleep 0.5
truncate -s 4096 "$tmp/shrink/refs.bf"
wait $pid
rc=$?
if [[ $rc -ne 74 || $(grep -c . "$tmp/shrink.err") -ne 1 ]] || ! grep -q 'refs.bf: the file shrank' "$tmp/shrink.err"; then
  fail "mapped .bf truncated during the run: exit $rc, stderr: $(head -c 300 "$tmp/shrink.err")"
fi
if [[ -n $(ls -A "$tmp/shrink" | grep -v '^refs.bf$') ]]; then fail "mapped .bf truncated: files left behind: $(ls -A "$tmp/shrink")"; fi

echo "$((checks - failures)) passed, $failures failed"
[[ $failures -eq 0 ]]
