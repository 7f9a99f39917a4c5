/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_write_helper.h - a second thread that formats parts of the output
 * ahead of the writer.
 *
 * The writer cuts some of its arrays into jobs, numbered in the order their
 * elements appear in the output, and comes to each job in that order with
 * pc_wh_put().  Meanwhile the helper thread takes the next job nobody has
 * taken, formats its elements into a memory buffer through an element
 * writer (pc_jw_new_elems()), and goes on while fewer than 32 of its
 * buffers wait.  pc_wh_put() appends the helper's elements when the helper
 * took the job, and otherwise formats the job itself, straight into the
 * writer; when the helper has the job but has not finished it, the writer
 * formats the next job nobody has taken into a buffer of its own (at most 8
 * of them) and appends it when it comes to it, rather than wait.  So the
 * bytes are the same whichever thread formats a job, and the helper is
 * never more than 32 jobs ahead (its memory is 32 jobs' output, about
 * 2.5 MiB for the processed writer's marker jobs, about 4 MiB for its
 * column jobs of 8192 numbers; the writer's, 8 jobs' output).  A job whose
 * formatting into a buffer failed (out of memory) is formatted again by the
 * writer, straight into the writer, which reports any error.
 *
 * The job function must only read what it is given (the model is read-only
 * while it is written) and must not touch the ctx: it runs on either thread.
 * The helper's buffers come from malloc, outside the ctx's accounting.
 */
#ifndef PC_WRITE_HELPER_H
#define PC_WRITE_HELPER_H

#include "json/pc_jw.h"

/* Format job's elements into w, an array being open in it. */
typedef void pc_wh_job_fn(struct pc_jw *w, uint32_t job, void *user);

struct pc_wh;

/*
 * Start a helper for jobs 0..njobs-1.  NULL when no thread could be had
 * (or njobs is 0): pc_wh_put() then formats every job itself.
 */
struct pc_wh *pc_wh_start(uint32_t njobs, pc_wh_job_fn *fn, void *user);
/* Job number job, appended to the array open in w; jobs must come in order. */
void pc_wh_put(struct pc_wh *h, struct pc_jw *w, uint32_t job, pc_wh_job_fn *fn, void *user);
/* Strings the helper wrote with U+FFFD in the jobs handed over so far. */
uint64_t pc_wh_replaced(const struct pc_wh *h);
/* Who formatted the jobs (for tests and measurements). */
struct pc_wh_stats {
	uint32_t helper; /* jobs the helper took */
	uint32_t direct; /* jobs the writer formatted straight into the writer */
	uint32_t ahead;	 /* jobs the writer formatted ahead into its own buffers */
	uint32_t waits;	 /* times the writer waited for the helper */
};
/* h's figures so far (all 0 for NULL). */
void pc_wh_stats(struct pc_wh *h, struct pc_wh_stats *st);
/* Stop the helper (it may be mid-job) and free it.  Accepts NULL. */
void pc_wh_stop(struct pc_wh *h);

#endif /* PC_WRITE_HELPER_H */
