#!/usr/bin/env bash
# One blast-bloom shard per SLURM array task; plan before, merge after (without a workflow manager):
#
#   blast-bloom plan QUERY DB [options] -o run/plan.json
#   jid=$(sbatch --parsable --array=1-16 workflow/slurm-array.sh QUERY DB run 16)
#   sbatch --dependency=afterok:$jid --wrap "blast-bloom merge -o run/hsps.tsv run/part_*.tsv"
#
# N (here 16) is the shard count, given explicitly so that a failed task can be rerun alone
# (sbatch --array=7 workflow/slurm-array.sh QUERY DB run 16). Every task reads the whole plan (parameters, database totals, input
# fingerprints), so shards cannot differ in what they compute, and merge refuses parts that do. A part is written under a
# temporary name and renamed when complete, so a killed task leaves no part behind.
# GPU nodes: one shard per GPU, e.g. `#SBATCH --gres=gpu:1` and BLOOMSEQ_OPTIONS="--backend cuda --device 0"
# (SLURM sets CUDA_VISIBLE_DEVICES, so device 0 is the task's own GPU).
#SBATCH --job-name=blast-bloom-shard
#SBATCH --cpus-per-task=4
#SBATCH --mem=8G
#SBATCH --time=04:00:00
#SBATCH --output=slurm-%A_%a.log
set -euo pipefail
if [ $# -ne 4 ] || [ -z "${SLURM_ARRAY_TASK_ID:-}" ]; then
  echo "usage: sbatch --array=1-N $0 QUERY DB RUN_DIR N   (RUN_DIR holds plan.json; parts are written there)" >&2
  exit 64
fi
query=$1 db=$2 run=$3 n=$4
i=$SLURM_ARRAY_TASK_ID
# shellcheck disable=SC2086  # BLOOMSEQ_OPTIONS is a list of options
exec "${BLAST_BLOOM:-blast-bloom}" "$query" "$db" --plan "$run/plan.json" --db-shard "$i/$n" \
  -t "${SLURM_CPUS_PER_TASK:-1}" ${BLOOMSEQ_OPTIONS:-} -o "$(printf '%s/part_%05d.tsv' "$run" "$i")"
