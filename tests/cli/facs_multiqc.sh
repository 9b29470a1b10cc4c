#!/usr/bin/env bash
# MultiQC recognises `facs classify --summary` as a BioBloom Tools report as it is: Debian's multiqc runs on two
# facs summaries (real SRR059298 reads against the bee viruses, lambda reads against lambda), its BioBloom Tools
# module must find both samples, and the hits it reads for each filter must be those of the files.
# Skipped (exit 77) when multiqc is not installed (apt-get install multiqc; scripts/install-deps.sh --test).
# Usage: facs_multiqc.sh BIN_DIR SRC_DIR
set -uo pipefail
bin=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
facs=$bin/facs
[ -x "$facs" ] || { echo "no $facs"; exit 1; }
command -v multiqc > /dev/null || { echo "SKIP: multiqc is not installed (apt-get install multiqc)"; exit 77; }
data=$src/data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fails=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fails=$((fails + 1)); fi; }

bees="$data/bee-viruses/dwv.fa $data/bee-viruses/vdv1.fa $data/bee-viruses/vdv1dwv5.fa $data/bee-viruses/vdv1dwv9.fa"
"$facs" build-filter -o refs.bf $bees "$data/lambda_virus.fa" 2> /dev/null || { echo "FAIL build-filter"; exit 1; }
mkdir -p reports
"$facs" classify "$data/SRR059298_5k.fastq.gz" refs.bf --summary reports/bees_summary.tsv 2> /dev/null
"$facs" classify "$data/lambda_reads_1.fq" refs.bf --summary reports/lambda_summary.tsv 2> /dev/null
check "facs wrote both summaries" "[ -s reports/bees_summary.tsv ] && [ -s reports/lambda_summary.tsv ]"

# Only the BioBloom Tools module, so another module's claim on the files cannot hide a miss.
multiqc -q -f -m biobloomtools -o mq reports > multiqc.log 2>&1
table=mq/multiqc_data/multiqc_biobloomtools.txt
check "multiqc ran and wrote the BioBloom Tools table" "[ -s $table ] || { cat multiqc.log; false; }"
check "the report has the BioBloom Tools section" "grep -q 'biobloom_tools' mq/multiqc_report.html"
# multiqc names a sample after its file, less BioBloom's "_summary.tsv".
check "both samples were found" "[ \$(awk 'NR > 1' $table | wc -l) -eq 2 ] && grep -q \$'^bees\t' $table && grep -q \$'^lambda\t' $table"
# multiqc's table: Sample, then one column per filter (and multiMatch, noMatch) holding the hits it parsed.
for s in bees lambda; do
  check "$s: hits per filter as in the summary" "awk -F'\t' -v s=$s '
    FNR == NR { if (FNR > 1) hits[\$1] = \$2; next }
    FNR == 1 { for (i = 2; i <= NF; i++) col[i] = \$i; next }
    \$1 == s { for (i = 2; i <= NF; i++) { if (!(col[i] in hits) || hits[col[i]] != \$i) bad = 1; n++ } }
    END { exit bad || n != length(hits) }' reports/${s}_summary.tsv $table"
done
check "lambda reads are hits for lambda in multiqc's table" \
  "awk -F'\t' 'NR == 1 { for (i = 2; i <= NF; i++) if (\$i == \"lambda_virus\") c = i } \$1 == \"lambda\" { exit !(c && \$c > 900) }' $table"

[ "$fails" -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "all facs MultiQC checks passed"
