#!/bin/sh
# sbatch docs/batch/slurm.sh: a job array of 8 tasks, each converting its
# shard of traces.txt with the CPUs Slurm gives it.  Then, once all are done:
#   profconv report merge reports/report-*.jsonl -o report.jsonl
#SBATCH --job-name=profconv
#SBATCH --array=1-8
#SBATCH --cpus-per-task=2
#SBATCH --mem=4G
#SBATCH --output=logs/profconv-%A_%a.log
set -eu
mkdir -p out reports
exec profconv --no-symbols -O out --jobs "${SLURM_CPUS_PER_TASK:-1}" \
	--shard "${SLURM_ARRAY_TASK_ID}/8" --inputs traces.txt \
	--report "reports/report-${SLURM_ARRAY_TASK_ID}.jsonl"
