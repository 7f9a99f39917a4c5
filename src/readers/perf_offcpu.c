/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * perf_offcpu.c - off-CPU time in perf.data: context-switch records
 * (perf record --switch-events) and sched:sched_switch tracepoint samples.
 *
 * SWITCH / SWITCH_CPU_WIDE records say when each recorded thread went off
 * the CPU and when it came back: every stretch off the CPU becomes an
 * "Off-CPU" interval marker (preempted or sleeping, the stack of the
 * thread's last sample as its cause) and the CPU time between samples
 * becomes their threadCPUDelta.
 *
 * A sched:sched_switch sample is taken as its thread (prev_pid) goes off
 * the CPU, with the stack it slept in; it names the thread that comes on
 * (next_pid).  A per-task recording (the usual `perf record -e
 * sched:sched_switch -- cmd`) sees the switch-in only when the next task
 * is recorded too, so a stretch becomes an interval only when its
 * switch-in was seen; otherwise (the thread shows up running again first,
 * or the data ends) the switch-out stays an instant "Switched out" marker:
 * its end is not in the file.  A system-wide recording (-a) sees every
 * switch-in.  These samples give no threadCPUDelta (the on-CPU time of
 * the unclosed stretches is unknown); when the file has SWITCH records as
 * well, those alone are used.  Layout checked in docs/formats/perf-data.md.
 */
#include "core/pc_config.h"
#include "readers/pc_perf.h"

#define MISC_SWITCH_OUT (1u << 13)
#define MISC_SWITCH_OUT_PREEMPT (1u << 14)

static const char W_SCHED_LAYOUT[] = "sched:sched_switch samples of an unknown layout skipped";

/* An Off-CPU interval [start, end) or a Switched-out instant (end PC_NO_TIME). */
static int offcpu_marker(struct perf *p, struct thread_state *ts, int64_t start, int64_t end,
			 int preempt, uint32_t cause)
{
	struct pc_marker_row r;
	struct pc_thread *t = perf_model_thread(p, ts);
	struct pc_pvb pb;

	if (!t)
		return PROFCONV_ERR_NOMEM;
	pc_marker_row_init(&r);
	r.name = pc_str_intern_z(p->m, end == PC_NO_TIME ? "Switched out" : "Off-CPU");
	r.start = start;
	r.end = end;
	r.phase = end == PC_NO_TIME ? PC_PHASE_INSTANT : PC_PHASE_INTERVAL;
	r.cause_stack = cause;
	if (cause != PC_NONE)
		r.cause_time = start;
	pc_pvb_begin(&pb, p->m, 0);
	pc_pvb_key_z(&pb, "type");
	pc_pvb_str_z(&pb, "OffCPU");
	pc_pvb_key_z(&pb, "reason");
	pc_pvb_str_z(&pb, preempt ? "preempted" : "sleeping");
	r.payload = pc_pvb_end(&pb);
	if (r.name == PC_NONE || r.payload == PC_NONE)
		return p->ctx->status ? p->ctx->status : PROFCONV_ERR_NOMEM;
	p->offcpu_markers = 1;
	return pc_marker_push(p->m, t, &r);
}

int perf_handle_switch(struct perf *p, uint32_t type, uint16_t misc, const unsigned char *b,
		       size_t size, uint64_t off)
{
	struct thread_state *ts;
	struct sid s;

	(void)off;
	perf_parse_sid(p, b, size, type == REC_SWITCH_CPU_WIDE ? 8 : 0, &s);
	if (p->info_only || !s.has_tid || s.time == PC_NO_TIME || s.tid <= 0)
		return 0;
	ts = perf_get_thread(p, s.pid, s.tid);
	if (!ts)
		return PROFCONV_ERR_NOMEM;
	p->saw_switch = 1;
	if (!ts->switch_known) {
		ts->switch_known = 1;
		ts->off_since = ts->on_since = PC_NO_TIME;
		ts->last_sample_stack = PC_NONE;
	}
	if (misc & MISC_SWITCH_OUT) {
		if (ts->on_since != PC_NO_TIME && s.time > ts->on_since)
			ts->cpu_used = pc_time_add(ts->cpu_used, pc_time_sub(s.time, ts->on_since));
		ts->on_since = PC_NO_TIME;
		ts->off_since = s.time;
		ts->off_preempt = (misc & MISC_SWITCH_OUT_PREEMPT) != 0;
		return 0;
	}
	/* switched in: the stretch off the CPU ends */
	ts->on_since = s.time;
	if (ts->off_since != PC_NO_TIME && s.time >= ts->off_since) {
		int64_t since = ts->off_since;

		ts->off_since = PC_NO_TIME;
		return offcpu_marker(p, ts, since, s.time, ts->off_preempt, ts->last_sample_stack);
	}
	ts->off_since = PC_NO_TIME;
	return 0;
}

int perf_sample_cpu_delta(struct perf *p, struct thread_state *ts, struct pc_thread *t,
			  int64_t time, uint32_t stack)
{
	int64_t used;

	if (!ts->switch_known) {
		/* running since we first saw it: on the CPU from now */
		ts->switch_known = 1;
		ts->off_since = PC_NO_TIME;
		ts->on_since = time;
	}
	ts->last_sample_stack = stack;
	/* times come from the file: saturating arithmetic */
	used = pc_time_add(ts->cpu_used, ts->on_since != PC_NO_TIME && time > ts->on_since
						 ? pc_time_sub(time, ts->on_since)
						 : 0);
	if (!p->saw_switch) {
		ts->cpu_at_sample = used;
		return 0;
	}
	{
		int64_t d = pc_time_sub(used, ts->cpu_at_sample);

		ts->cpu_at_sample = used;
		return pc_sample_set_cpu_delta(p->m, t, d < 0 ? 0 : d);
	}
}

/* --- sched:sched_switch samples --- */

/*
 * The tracepoint's record on 64-bit kernels (Linux 4.x to today; this
 * machine's events/sched/sched_switch/format): common_type u16 at 0,
 * prev_comm[16] at 8, prev_pid s32 at 24, prev_prio at 28, prev_state
 * (long) at 32, next_comm[16] at 40, next_pid s32 at 56, next_prio at 60.
 * A record shorter than 64 bytes, or whose common_type is not the event's
 * id, is another layout.
 */
#define SCHED_REC_SIZE 64
#define SCHED_PREV_PID 24
#define SCHED_PREV_STATE 32
#define SCHED_NEXT_PID 56
/* prev_state with none of the low state bits set: runnable ("R"), preempted */
#define SCHED_STATE_MASK 0xffu

int perf_sched_is_switch(const struct attr *a)
{
	return a->type == 2 /* PERF_TYPE_TRACEPOINT */ && (a->sample_type & S_RAW) &&
	       (a->sample_type & S_TID) && (a->sample_type & S_TIME) &&
	       strcmp(a->name, "sched:sched_switch") == 0;
}

/* A stretch whose switch-in was not seen: an instant at the switch-out. */
static int sched_unclosed(struct perf *p, struct thread_state *ts)
{
	int64_t since = ts->sched_off_since;

	ts->sched_off_since = PC_NO_TIME;
	p->sched_unclosed++;
	return offcpu_marker(p, ts, since, PC_NO_TIME, ts->sched_preempt, ts->sched_cause);
}

int perf_sched_seen_running(struct perf *p, struct thread_state *ts, int64_t time)
{
	if (!ts->sched_known || ts->sched_off_since == PC_NO_TIME || time < ts->sched_off_since)
		return 0;
	return sched_unclosed(p, ts);
}

int perf_sched_switch(struct perf *p, struct thread_state *ts, const struct attr *a,
		      int64_t time, const unsigned char *raw, uint32_t raw_size, uint32_t stack,
		      uint64_t off)
{
	struct thread_state *next;
	int32_t prev_pid, next_pid;
	int err;

	if (p->saw_switch)
		return 0; /* SWITCH records say the same, with every switch-in */
	if (!raw || raw_size < SCHED_REC_SIZE || ld16(p, raw) != (uint16_t)a->config)
		return perf_warn_at(p, W_SCHED_LAYOUT, off,
				    "sched:sched_switch sample whose raw record (%u bytes) is not the known 64-byte layout",
				    raw ? raw_size : 0);
	prev_pid = (int32_t)ld32(p, raw + SCHED_PREV_PID);
	next_pid = (int32_t)ld32(p, raw + SCHED_NEXT_PID);
	if (prev_pid == ts->tid && ts->tid > 0) {
		if (!ts->sched_known) {
			ts->sched_known = 1;
			ts->sched_off_since = PC_NO_TIME;
		}
		if (ts->sched_off_since != PC_NO_TIME) {
			/* out again without a seen switch-in */
			err = sched_unclosed(p, ts);
			if (err)
				return err;
		}
		ts->sched_off_since = time;
		ts->sched_preempt = (ld64(p, raw + SCHED_PREV_STATE) & SCHED_STATE_MASK) == 0;
		ts->sched_cause = stack;
	}
	if (next_pid <= 0 || next_pid == prev_pid)
		return 0;
	next = perf_find_thread_by_tid(p, next_pid);
	if (!next || !next->sched_known || next->sched_off_since == PC_NO_TIME ||
	    time < next->sched_off_since)
		return 0;
	{
		int64_t since = next->sched_off_since;

		next->sched_off_since = PC_NO_TIME;
		p->sched_closed++;
		return offcpu_marker(p, next, since, time, next->sched_preempt, next->sched_cause);
	}
}

/* At the end of the data: the stretches still open are instants. */
int perf_offcpu_finish(struct perf *p)
{
	struct thread_state *ts, *tmp;

	HASH_ITER(hh, p->threads, ts, tmp)
	{
		if (ts->sched_known && ts->sched_off_since != PC_NO_TIME) {
			int err = sched_unclosed(p, ts);

			if (err)
				return err;
		}
	}
	if (p->sched_closed || p->sched_unclosed)
		pc_note(p->ctx,
			"%s: sched:sched_switch: %llu off-CPU stretches with their end (intervals), %llu switch-outs whose switch-in the file lacks (instants)",
			p->path, (unsigned long long)p->sched_closed,
			(unsigned long long)p->sched_unclosed);
	return 0;
}
