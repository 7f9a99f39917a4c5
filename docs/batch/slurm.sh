#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# sh docs/batch/slurm.sh, in the directory holding traces.txt (run it, do
# not sbatch it): makes logs/, out/ and reports/, submits itself as a job
# array of 3 tasks, each converting its shard of traces.txt with the CPUs
# Slurm gives it, and a merge job that runs once all three have ended and
# fails when a shard's report is missing (--expect 3) or an input failed.
#SBATCH --job-name=profconv
#SBATCH --array=1-3
#SBATCH --cpus-per-task=2
#SBATCH --mem=4G
#SBATCH --output=logs/profconv-%A_%a.log
set -eu
if [ -z "${SLURM_ARRAY_TASK_ID:-}" ]; then
	# Slurm opens --output before the script runs: logs/ must exist first
	mkdir -p logs out reports
	job=$(sbatch --parsable "$0")
	sbatch --parsable --job-name=profconv-merge --dependency="afterany:${job%%;*}" \
		--output=logs/profconv-merge-%j.log \
		--wrap "profconv report merge --expect 3 reports/report-*.jsonl -o report.jsonl"
	exit 0
fi
exec profconv --no-symbols -O out --jobs "${SLURM_CPUS_PER_TASK:-1}" \
	--shard "${SLURM_ARRAY_TASK_ID}/3" --inputs traces.txt \
	--report "reports/report-${SLURM_ARRAY_TASK_ID}.jsonl"
