#!/usr/bin/env bash
# Characters that no nucleotide code has (X, '-', '*', '.', a stray protein letter) in a query, a database or a
# reference: read as N, with one warning line that names the file, the count and where the first one is; the
# output equals that of the same input with N in their place. (A protein record is refused: bad_inputs.sh.) And a
# record without sequence: one warning, as blastn gives.
# Usage: foreign_letters.sh BIN_DIR SRC_DIR
set -euo pipefail
command -v python3 >/dev/null 2>&1 || { echo "python3 not installed: skipped"; exit 77; }
source "$(dirname "$0")/common/lib.bash"
python3 - "$src/data/lambda_virus.fa" "$tmp" <<'PY'
import sys
seq = ''.join(l.strip() for l in open(sys.argv[1]) if not l.startswith('>'))
out = sys.argv[2]
def fasta(name, t): return '>' + name + '\n' + '\n'.join(t[i:i + 60] for i in range(0, len(t), 60)) + '\n'
piece = list(seq[5000:11000])
places = {130: 'X', 1700: '-', 2950: '*', 4444: '.', 5100: 'x', 5101: 'E'}
foreign, as_n = piece[:], piece[:]
for i, c in places.items(): foreign[i], as_n[i] = c, 'N'
# Record 2 holds them; its first one (base 131) is on line 7 + 130 // 60 + 1 = 10 (record 1: lines 1-6).
head = fasta('clean', seq[20000:20300])
open(out + '/q_foreign.fa', 'w').write(head + fasta('piece', ''.join(foreign)))
open(out + '/q_n.fa', 'w').write(head + fasta('piece', ''.join(as_n)))
PY
l="$src/data/lambda_virus.fa"
warned() {  # name err.txt file: one warning line, naming the file, the count and the first one's place
  local lines; lines=$(grep -c warning "$2" || true)
  check "$1: one warning line" "[[ $lines -eq 1 ]] && grep -q 'warning: $3: 6 characters that no nucleotide code has (the first .X. in record 2, line 10)' '$2'"
}
"$bin/blast-bloom" --no-progress "$tmp/q_foreign.fa" "$l" > got 2> err.txt
check "query: nothing else on stderr" "[[ \$(grep -c . err.txt) -eq 1 ]]"
"$bin/blast-bloom" --no-progress "$tmp/q_n.fa" "$l" > want 2> err_n.txt
warned "query" err.txt "$tmp/q_foreign.fa"
check "query: output as with N (and hits found)" "cmp -s want got && [[ \$(grep -vc '^#' got) -ge 1 ]]"
check "query with N: no warning" "[[ ! -s err_n.txt ]]"
"$bin/blast-bloom" --no-progress "$l" "$tmp/q_foreign.fa" > got 2> err.txt
"$bin/blast-bloom" --no-progress "$l" "$tmp/q_n.fa" > want 2> /dev/null
warned "database" err.txt "$tmp/q_foreign.fa"
check "database: output as with N" "cmp -s want got && [[ \$(grep -vc '^#' got) -ge 1 ]]"
"$bin/facs" build-filter -o foreign.bf "$tmp/q_foreign.fa" > /dev/null 2> err.txt
"$bin/facs" build-filter -o n.bf "$tmp/q_n.fa" > /dev/null 2> /dev/null
warned "facs reference" err.txt "$tmp/q_foreign.fa"
"$bin/facs" build-filter --count hll -o foreign_hll.bf "$tmp/q_foreign.fa" > /dev/null 2> err.txt
warned "facs reference, streamed" err.txt "$tmp/q_foreign.fa"
"$bin/facs" classify "$src/data/lambda_reads_1.fq" foreign.bf 2> /dev/null | cut -f2- > got
"$bin/facs" classify "$src/data/lambda_reads_1.fq" n.bf 2> /dev/null | cut -f2- > want
check "facs: calls as with N (reads called to it)" "cmp -s want got && awk 'NR == 2 && \$2 > 0 { ok = 1 } END { exit !ok }' got"
# A record without sequence (a header alone), as blastn warns "contains no data": one warning, the same output.
{ echo ">empty"; cat "$tmp/q_n.fa"; } > q_empty.fa
"$bin/blast-bloom" --no-progress q_empty.fa "$l" > got 2> err.txt
"$bin/blast-bloom" --no-progress "$tmp/q_n.fa" "$l" > want 2> /dev/null
check "empty query record: one warning naming it" "[[ \$(grep -c . err.txt) -eq 1 ]] && grep -q \"q_empty.fa: 1 record without sequence (the first: record 1 'empty')\" err.txt"
check "empty query record: output as without it" "cmp -s want got"
"$bin/blast-bloom" --no-progress "$l" q_empty.fa > got 2> err.txt
check "empty database record: one warning naming it" "[[ \$(grep -c . err.txt) -eq 1 ]] && grep -q 'q_empty.fa: 1 record without sequence (the first: record 1)' err.txt"
[[ $fails -eq 0 ]]
