#!/usr/bin/env bash
# Every reward/penalty pair blastn accepts (1/-1 to 5/-4 and their multiples), gapped with gap costs from blastn's
# tables or beyond them, ungapped, and megablast's linear gaps: blast-bloom's lines must equal blastn's. Pairs
# and gap costs blastn refuses are refused with one line (exit 64). Skipped (77) when blastn is not installed.
# Usage: blast_scores_vs_blastn.sh BIN_DIR SRC_DIR
set -uo pipefail
bin="$1"; src="$2"
command -v blastn >/dev/null 2>&1 || { echo "blastn not installed: skipped"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
lambda="$src/data/lambda_virus.fa"
ecoli="$src/data/ecoli_536_200k.fa"
# A diverged copy: the first 60 kbases of the E. coli piece with ~1 base in 12 substituted and ~1 in 300 deleted
# or doubled (a Park-Miller generator, the same in every awk), so that alignments of many scores, gaps and
# megablast's long words all occur.
awk 'NR > 1' "$ecoli" | tr -d '\n' | cut -c 1-60000 | awk 'BEGIN { x = 12345; b = "ACGT" }
  function next_rand() { x = (x * 16807) % 2147483647; return x / 2147483647 }
  { out = ""; for (i = 1; i <= length($0); ++i) { c = substr($0, i, 1); u = next_rand()
      if (u < 1 / 12) c = substr(b, int(next_rand() * 4) + 1, 1)
      else if (u < 1 / 12 + 1 / 600) c = ""
      else if (u < 1 / 12 + 1 / 300) c = c c
      out = out c }
    print ">diverged"; for (i = 1; i <= length(out); i += 70) print substr(out, i, 70) }' > "$tmp/diverged.fa"
query="$lambda" subject="$ecoli"
status=0 total=0
run() {  # task reward penalty gap_open gap_extend (- for the task's default) [ungapped]
  local task="$1" r="$2" p="$3" go="$4" ge="$5" mode="${6:-gapped}"
  local bl=(-task "$task" -reward "$r" -penalty "$p") bb=(--task "$task" --reward "$r" --penalty "$p")
  [[ $go != - ]] && bl+=(-gapopen "$go" -gapextend "$ge") && bb+=(--gapopen "$go" --gapextend "$ge")
  [[ $mode == ungapped ]] && bl+=(-ungapped) && bb+=(--ungapped)
  local name="$(basename "$query") vs $(basename "$subject"): $task $r/$p gaps $go/$ge $mode"
  blastn -dust no "${bl[@]}" -query "$query" -subject "$subject" -outfmt 6 2>/dev/null > "$tmp/want"
  "$bin/blast-bloom" --no-header --no-progress --dust no "${bb[@]}" "$query" "$subject" > "$tmp/got" 2> "$tmp/err"
  local n; n=$(wc -l < "$tmp/want"); total=$((total + n))
  if [[ $n -lt 3 ]]; then echo "FAIL $name: blastn found only $n alignments"; status=1; return; fi
  if cmp -s "$tmp/want" "$tmp/got"; then
    echo "ok   $name: $n lines identical"
  else
    echo "FAIL $name: blastn $n, blast-bloom $(wc -l < "$tmp/got"): $(head -c 200 "$tmp/err")"
    diff "$tmp/want" "$tmp/got" | head -n 6 || true
    status=1
  fi
}
refused() {  # reward penalty gap_open gap_extend: blastn refuses it, so must blast-bloom
  local r="$1" p="$2" go="$3" ge="$4"
  if blastn -task blastn -reward "$r" -penalty "$p" -gapopen "$go" -gapextend "$ge" -query "$lambda" \
       -subject "$ecoli" -outfmt 6 > /dev/null 2>&1; then
    echo "FAIL blastn accepts $r/$p gaps $go/$ge: not a refusal to test"; status=1; return
  fi
  "$bin/blast-bloom" --no-progress --reward "$r" --penalty "$p" --gapopen "$go" --gapextend "$ge" "$lambda" "$ecoli" \
    > "$tmp/out" 2> "$tmp/err"
  local rc=$?
  if [[ $rc -eq 64 && $(wc -l < "$tmp/err") -eq 1 && ! -s "$tmp/out" ]]; then
    echo "ok   $r/$p gaps $go/$ge refused as by blastn: $(cat "$tmp/err")"
  else
    echo "FAIL $r/$p gaps $go/$ge: exit $rc, $(wc -l < "$tmp/err") error lines"; status=1
  fi
}
# Gap costs: the task's default where blastn takes it (at or beyond the table's largest, the ungapped values),
# else one of the table's rows.
run blastn 1 -1 - -
run blastn 1 -1 4 1
run blastn 1 -3 - -
run blastn 1 -3 1 2
run blastn 1 -4 1 2
run blastn 1 -5 3 3
run blastn 2 -5 4 2
run blastn 2 -7 2 4
run blastn 3 -4 - -
run blastn 3 -4 5 2
run blastn 4 -5 6 5
run blastn 2 -4 4 4          # 1/-2 doubled: gap costs and lambda scaled
run blastn 4 -6 8 4          # 2/-3 doubled
for pair in "1 -1" "1 -3" "1 -4" "1 -5" "2 -5" "2 -7" "3 -4" "4 -5" "2 -4" "4 -6"; do
  read -r r p <<< "$pair"
  run blastn "$r" "$p" - - ungapped
done
# The diverged copy against the E. coli piece: the pairs whose lambda alignments are too few, and megablast.
query="$tmp/diverged.fa"
run blastn 5 -4 10 6
run blastn 3 -2 5 5
run blastn 5 -4 - - ungapped
run blastn 3 -2 - - ungapped
run blastn 2 -3 - -
run megablast 1 -2 - -
run megablast 1 -3 - -
run megablast 1 -4 - -
run megablast 2 -5 - -
run megablast 2 -7 - -
# A 4-kbase piece of S. suis against the E. coli piece at 3/-4: two preliminary alignments trace to the same box by
# paths of equal score (a mismatch costs two gap extensions), and both are cut where a better alignment sharing
# their start ends. blastn moves cut alignments to the end of its list in reverse order, so the later one's path
# is printed (604 columns, 144 mismatches; the first's would give 607 and 141).
query="$src/data/ssuis_sc84_1882k.fa"
run blastn 3 -4 - -
refused 3 -5 5 2   # no table for the pair
refused 2 -4 5 2   # a table, but not these gap costs
refused 1 -1 0 0   # linear gaps without a linear row
echo "$total lines compared"
exit $status
