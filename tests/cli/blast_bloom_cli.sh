#!/usr/bin/env bash
# blast-bloom's command line: help, stages, .2bit databases, stats JSON, exit codes and one-line errors, no
# half-written output. Usage: blast_bloom_cli.sh BIN_DIR SRC_DIR
set -uo pipefail
bin="$1"; src="$2"; bb="$bin/blast-bloom"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
q="$src/data/lambda_virus.fa"; db="$src/data/ecoli_536_200k.fa"
fail=0
check() {  # description expected_status command...
  local what="$1" want="$2"; shift 2
  "$@" > "$tmp/stdout" 2> "$tmp/stderr"; local got=$?
  if [[ "$got" != "$want" ]]; then echo "FAIL $what: exit $got, expected $want"; cat "$tmp/stderr"; fail=1; else echo "ok   $what"; fi
}
check "--help" 0 "$bb" --help
grep -q "Examples" "$tmp/stdout" || { echo "FAIL --help has no examples"; fail=1; }
check "HSPs with header" 0 "$bb" "$q" "$db" -o "$tmp/hsp.tsv" --stats "$tmp/stats.json"
head -n1 "$tmp/hsp.tsv" | grep -q '^# qaccver' || { echo "FAIL no # header"; fail=1; }
[[ $(grep -vc '^#' "$tmp/hsp.tsv") -gt 0 ]] || { echo "FAIL no HSPs"; fail=1; }
if command -v python3 >/dev/null; then
  python3 -c "import json; d=json.load(open('$tmp/stats.json')); assert d['membership_tests']>0 and 'fpr' in d and d['hsps']>0" \
    || { echo "FAIL stats JSON"; fail=1; }
else
  grep -q '"membership_tests"' "$tmp/stats.json" || { echo "FAIL stats JSON"; fail=1; }
fi
check "stage 1a" 0 "$bb" --stage 1a -w 16 "$q" "$db" -o "$tmp/1a.tsv"
head -n1 "$tmp/1a.tsv" | grep -q '^#subject' || { echo "FAIL 1a header"; fail=1; }
check "stage 1b" 0 "$bb" --stage 1b -w 16 "$q" "$db" -o "$tmp/1b.tsv"
head -n1 "$tmp/1b.tsv" | grep -q '^#query' || { echo "FAIL 1b header"; fail=1; }
# A short query: HSPs from exact filters of a short word at a stride by default, from 16-mer Bloom probes with
# --scan-word 16, from every w-mer with --every-wmer: the same output.
{ echo ">slice"; awk 'NR>1' "$db" | tr -d '\n' | cut -c 50001-53000 | sed "s/GATC/GANC/g" | fold -w 70; echo;
  echo ">slice_rc"; awk 'NR>1' "$db" | tr -d '\n' | cut -c 90001-92000 | rev | tr ACGTacgt TGCAtgca | fold -w 70; } \
  > "$tmp/slices.fa"  # the first slice with N in every GATC
check "w 28, short word" 0 "$bb" -w 28 "$tmp/slices.fa" "$db" -o "$tmp/s28.tsv" --stats "$tmp/s28.json"
check "w 28, probes" 0 "$bb" -w 28 --scan-word 16 "$tmp/slices.fa" "$db" -o "$tmp/p28.tsv" --stats "$tmp/p28.json"
check "w 28, --every-wmer" 0 "$bb" -w 28 --every-wmer "$tmp/slices.fa" "$db" -o "$tmp/e28.tsv" --stats "$tmp/e28.json"
cmp -s "$tmp/p28.tsv" "$tmp/e28.tsv" || { echo "FAIL probes and --every-wmer give different HSPs"; fail=1; }
cmp -s "$tmp/s28.tsv" "$tmp/e28.tsv" || { echo "FAIL the short word and --every-wmer give different HSPs"; fail=1; }
[[ $(grep -vc '^#' "$tmp/p28.tsv") -gt 0 ]] || { echo "FAIL no HSPs at w 28"; fail=1; }
grep -q '"probe_word": 16' "$tmp/p28.json" && grep -q '"probe_stride": 13' "$tmp/p28.json" \
  && grep -q '"probe_word": 0' "$tmp/e28.json" || { echo "FAIL probe word in the stats"; fail=1; }
sw=$(sed -n 's/.*"probe_word": \([0-9]*\).*/\1/p' "$tmp/s28.json"); ss=$(sed -n 's/.*"probe_stride": \([0-9]*\).*/\1/p' "$tmp/s28.json")
[[ "$sw" -ge 3 && "$sw" -le 12 && $((sw + ss)) -eq 29 ]] && grep -q '"exact_filter": true' "$tmp/s28.json" \
  && grep -q '"false_positives": 0' "$tmp/s28.json" || { echo "FAIL short word in the stats ($sw, $ss)"; fail=1; }
# The CPU's default sub-query length depends on how stage 1b checks a hit; the HSPs do not depend on it. Exact
# filters hold at least the longest record (3,000 bases) and the two records share one.
ns=$(sed -n 's/.*"sub_query": \([0-9]*\).*/\1/p' "$tmp/s28.json")
grep -q '"sub_query": 2000' "$tmp/p28.json" && grep -q '"sub_query": 8000' "$tmp/e28.json" \
  && [[ "$ns" -ge 3000 ]] && grep -q '"subqueries": 1,' "$tmp/s28.json" || { echo "FAIL default sub-query lengths"; fail=1; }
# A query that fills the w-mer space (200 kbases at w = 9): one exact filter of its w-mers instead of the Bloom
# filters (no false positives, one sub-query), the same seeds and HSPs as the Bloom filters of --every-wmer.
check "w 9, dense query" 0 "$bb" -w 9 "$db" "$q" -o "$tmp/d9.tsv" --stats "$tmp/d9.json"
check "w 9, --every-wmer" 0 "$bb" -w 9 --every-wmer "$db" "$q" -o "$tmp/b9.tsv" --stats "$tmp/b9.json"
cmp -s "$tmp/d9.tsv" "$tmp/b9.tsv" || { echo "FAIL the dense query's exact filter and the Bloom filters give different HSPs"; fail=1; }
[[ $(grep -vc '^#' "$tmp/d9.tsv") -gt 20 ]] || { echo "FAIL no HSPs at w 9"; fail=1; }
seeds() { sed -n 's/.*"seeds": \([0-9]*\).*/\1/p' "$1"; }
grep -q '"exact_filter": true' "$tmp/d9.json" && grep -q '"subqueries": 1,' "$tmp/d9.json" \
  && grep -q '"sub_query": 200000' "$tmp/d9.json" && grep -q '"false_positives": 0' "$tmp/d9.json" \
  && grep -q '"exact_filter": false' "$tmp/b9.json" && [[ "$(seeds "$tmp/d9.json")" == "$(seeds "$tmp/b9.json")" ]] \
  || { echo "FAIL dense query's filter in the stats"; fail=1; }
check "--scan-word and --every-wmer" 64 "$bb" -w 28 --scan-word 12 --every-wmer "$tmp/slices.fa" "$db"
check "--scan-word above w" 64 "$bb" -w 11 --scan-word 12 "$tmp/slices.fa" "$db"
check "w 28, --sub-query 1000" 0 "$bb" -w 28 --sub-query 1000 "$tmp/slices.fa" "$db" -o "$tmp/s28.tsv" --stats "$tmp/s28.json"
grep -q '"sub_query": 1000' "$tmp/s28.json" && cmp -s "$tmp/p28.tsv" "$tmp/s28.tsv" \
  || { echo "FAIL --sub-query 1000 not taken or different HSPs"; fail=1; }
check "encode" 0 "$bb" encode "$db" -o "$tmp/db.2bit"
check ".2bit database" 0 "$bb" --no-header "$q" "$tmp/db.2bit" -o "$tmp/hsp2.tsv"
cmp -s <(grep -v '^#' "$tmp/hsp.tsv") "$tmp/hsp2.tsv" || { echo "FAIL .2bit and FASTA databases differ"; fail=1; }
check "gzip output" 0 "$bb" "$q" "$db" -o "$tmp/hsp.tsv.gz"
cmp -s <(gzip -dc "$tmp/hsp.tsv.gz") "$tmp/hsp.tsv" || { echo "FAIL gzip output differs"; fail=1; }
check "missing query" 66 "$bb" "$tmp/none.fa" "$db"
grep -q "none.fa" "$tmp/stderr" || { echo "FAIL error does not name the file"; fail=1; }
[[ $(wc -l < "$tmp/stderr") -eq 1 ]] || { echo "FAIL error is not one line"; fail=1; }
check "bad word size" 64 "$bb" -w 40 "$q" "$db"
check "bad scoring" 64 "$bb" --reward 3 --penalty=-7 "$q" "$db"
check "unknown option" 64 "$bb" --frobnicate "$q" "$db"
# --backend cuda runs where this binary has CUDA and a device answers (its HSPs equal the CPU's), else it is a
# usage error that says why; --version says which case this is.
if "$bb" --version | grep -q '^backends: cpu, cuda ('; then
  check "cuda backend" 0 "$bb" --backend cuda --no-header "$q" "$db" -o "$tmp/hsp_cuda.tsv"
  check "cpu backend" 0 "$bb" --backend cpu --no-header "$q" "$db" -o "$tmp/hsp_cpu.tsv"
  cmp -s "$tmp/hsp_cuda.tsv" "$tmp/hsp_cpu.tsv" || { echo "FAIL cuda and cpu backends differ"; fail=1; }
else
  "$bb" --version | grep -q '^backends: cpu (CUDA' || { echo "FAIL --version does not name the backends"; fail=1; }
  check "cuda backend" 64 "$bb" --backend cuda "$q" "$db"
  grep -q "CUDA" "$tmp/stderr" || { echo "FAIL cuda message"; fail=1; }
fi
# Everywhere: the CUDA backend's host side on the fake device (kernels run by the host emulator) gives the CPU's HSPs.
BLOOMSEQ_FAKE_CUDA_DEVICE=1 check "cuda backend, fake device" 0 "$bb" --backend cuda --no-header "$q" "$db" -o "$tmp/hsp_fake.tsv"
check "cpu backend" 0 "$bb" --backend cpu --no-header "$q" "$db" -o "$tmp/hsp_cpu.tsv"
cmp -s "$tmp/hsp_fake.tsv" "$tmp/hsp_cpu.tsv" || { echo "FAIL the fake CUDA device and the cpu backend differ"; fail=1; }
# --backend auto stays on the CPU even where a device answers (the CPU was faster on every measured workload).
BLOOMSEQ_FAKE_CUDA_DEVICE=1 check "auto with a device" 0 "$bb" --progress --no-header "$q" "$db" -o "$tmp/hsp_auto.tsv" \
  --stats "$tmp/auto.json"
grep -q '"backend": "cpu"' "$tmp/auto.json" || { echo "FAIL --backend auto used the device"; fail=1; }
grep -q "backend: cpu (auto" "$tmp/stderr" || { echo "FAIL --backend auto did not say why it stays on the CPU"; fail=1; }
printf ">empty\n" > "$tmp/empty.fa"
printf ">bad\nACGT\n@@@\n" > "$tmp/bad.fa"
check "malformed database" 65 "$bb" "$q" "$tmp/bad.fa" -o "$tmp/never.tsv"
[[ ! -e "$tmp/never.tsv" ]] || { echo "FAIL output written despite the error"; fail=1; }
exit $fail
