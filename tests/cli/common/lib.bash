# The preamble the CLI test scripts share, sourced by them (it is not a test: tests/CMakeLists.txt registers
# only tests/cli/*.sh). From the script's arguments BIN_DIR SRC_DIR it sets $bin and $src (absolute), makes a
# scratch folder $tmp, removed on exit, the working folder, and gives the pass/fail helpers counting in $fails.
bin=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fails=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fails=$((fails + 1)); }
check() { if eval "$2"; then ok "$1"; else bad "$1"; fi; }
# expect_exit CODE NAME CMD...: the command fails with CODE and prints exactly one line on stderr
expect_exit() {
  local code=$1 name=$2
  shift 2
  "$@" > out.txt 2> err.txt
  local rc=$?
  if [ "$rc" -eq "$code" ] && [ "$(wc -l < err.txt)" -eq 1 ]; then ok "$name (exit $rc: $(cat err.txt))"
  else bad "$name: exit $rc, expected $code; stderr: $(head -3 err.txt)"; fi
}
# same_as_blastn NAME MIN WANT GOT: blast-bloom's output GOT equals blastn's WANT line for line, in order, and blastn
# found at least MIN lines (so that the case tests something); the first differences are shown otherwise.
same_as_blastn() {
  local name=$1 min=$2 want=$3 got=$4 n
  n=$(wc -l < "$want")
  if [ "$n" -lt "$min" ]; then bad "$name: blastn found only $n lines (expected >= $min)"; return; fi
  if cmp -s "$want" "$got"; then
    ok "$name: $n lines identical, same order"
  else
    bad "$name: blastn $n, blast-bloom $(wc -l < "$got"); first differences:"
    diff "$want" "$got" | head -n 10 || true
  fi
}
# compare_with_blastn NAME QUERY BLASTN_SUBJECT OURS_SUBJECT MIN SORTED BLASTN_OPTS... -- OURS_OPTS...: runs
# blastn -task blastn -dust no and blast-bloom --dust no on the pair (the subject may differ in form: FASTA for
# blastn, .2bit for blast-bloom) and checks with same_as_blastn; SORTED=yes sorts both first (ungapped output whose
# order is not compared).
compare_with_blastn() {
  local name="$1" query="$2" bsub="$3" osub="$4" min="$5" sorted="$6"
  shift 6
  local bl=() bb=()
  while [[ $# -gt 0 && $1 != -- ]]; do bl+=("$1"); shift; done
  shift
  bb=("$@")
  blastn -task blastn -dust no ${bl[@]+"${bl[@]}"} -query "$query" -subject "$bsub" -outfmt 6 2>/dev/null > want
  "$bin/blast-bloom" --no-header --no-progress --dust no ${bb[@]+"${bb[@]}"} "$query" "$osub" > got
  if [[ $sorted == yes ]]; then sort -o want want; sort -o got got; name+=" (both sorted)"; fi
  same_as_blastn "$name" "$min" want got
}
# same_output_but_version NAME MIN VERSION_LINE ARGS...: blastn ARGS and blast-bloom ARGS print the same lines but
# those matching the regex VERSION_LINE (blastn's version there, ours in blast-bloom's, checked to name it), and
# blastn printed at least MIN lines. Leaves blast-bloom's output in ./got.
same_output_but_version() {
  local name="$1" min="$2" version="$3" n
  shift 3
  blastn "$@" > want 2> /dev/null
  "$bin/blast-bloom" "$@" > got 2> err
  n=$(wc -l < want)
  if [ "$n" -lt "$min" ]; then bad "$name: blastn printed only $n lines (expected >= $min)"; return; fi
  if diff <(grep -v -e "$version" want) <(grep -v -e "$version" got) > diff.txt &&
     grep -e "$version" got | grep -q 'BLASTN blast-bloom [0-9]'; then
    ok "$name: $n lines identical but the version"
  else
    bad "$name: first differences:"
    head -n 12 diff.txt
  fi
}
