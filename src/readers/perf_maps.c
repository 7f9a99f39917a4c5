/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * perf_maps.c - processes, threads, mappings and libs
 * (the perf.data reader; see read_perf.c and pc_perf.h).
 */
#include "core/pc_config.h"

#include <stdio.h>
#include <stdlib.h>

#include "readers/pc_perf.h"

/* --- processes, threads, maps, libs --- */

struct process *perf_get_process(struct perf *p, int32_t pid)
{
	uint32_t h = lcache_slot((uint32_t)pid);
	struct process *pr = p->prc[h];

	if (pr && pr->pid == pid)
		return pr;
	HASH_FIND(hh, p->procs, &pid, sizeof(pid), pr);
	if (pr) {
		p->prc[h] = pr;
		return pr;
	}
	pr = pc_calloc(p->ctx, 1, sizeof(*pr));
	if (!pr)
		return NULL;
	pr->pid = pid;
	pr->name = PC_NONE;
	pr->start = PC_NO_TIME;
	pr->end = PC_NO_TIME;
	HASH_ADD(hh, p->procs, pid, sizeof(pr->pid), pr);
	if (!pr->hh.tbl) {
		pc_free(p->ctx, pr);
		pc_fail(p->ctx, PROFCONV_ERR_NOMEM, NULL, "out of memory");
		return NULL;
	}
	return pr;
}

struct thread_state *perf_get_thread(struct perf *p, int32_t pid, int32_t tid)
{
	uint64_t key = (uint64_t)(uint32_t)pid << 32 | (uint32_t)tid;
	uint32_t h = lcache_slot(key);
	struct thread_state *ts = p->tsc[h];

	if (ts && ts->key == key)
		return ts;
	HASH_FIND(hh, p->threads, &key, sizeof(key), ts);
	if (ts) {
		p->tsc[h] = ts;
		return ts;
	}
	ts = pc_calloc(p->ctx, 1, sizeof(*ts));
	if (!ts)
		return NULL;
	ts->key = key;
	ts->pid = pid;
	ts->tid = tid;
	ts->name = PC_NONE;
	ts->start = PC_NO_TIME;
	ts->end = PC_NO_TIME;
	HASH_ADD(hh, p->threads, key, sizeof(ts->key), ts);
	if (!ts->hh.tbl) {
		pc_free(p->ctx, ts);
		pc_fail(p->ctx, PROFCONV_ERR_NOMEM, NULL, "out of memory");
		return NULL;
	}
	{
		struct thread_state *old;

		HASH_FIND(hh_tid, p->by_tid, &ts->tid, sizeof(ts->tid), old);
		if (old)
			HASH_DELETE(hh_tid, p->by_tid, old);
		HASH_ADD(hh_tid, p->by_tid, tid, sizeof(ts->tid), ts);
		if (!ts->hh_tid.tbl) {
			pc_fail(p->ctx, PROFCONV_ERR_NOMEM, NULL, "out of memory");
			return NULL; /* ts stays in p->threads, freed with it */
		}
	}
	return ts;
}

/* The newest thread with this tid (whatever its pid), or NULL. */
struct thread_state *perf_find_thread_by_tid(struct perf *p, int32_t tid)
{
	struct thread_state *ts;

	HASH_FIND(hh_tid, p->by_tid, &tid, sizeof(tid), ts);
	return ts;
}

/* The model thread for ts, created on first use. */
struct pc_thread *perf_model_thread(struct perf *p, struct thread_state *ts)
{
	if (!ts->t)
		ts->t = pc_thread_add(p->m, ts->pid, ts->tid);
	return ts->t;
}

static void hex(char *out, const uint8_t *b, size_t n, int upper)
{
	const char *d = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = d[b[i] >> 4];
		out[2 * i + 1] = d[b[i] & 15];
	}
	out[2 * n] = 0;
}

/*
 * Breakpad id of an ELF build id: its first 16 bytes read as a GUID
 * (u32, u16, u16 little-endian, then 8 bytes), upper-case hex, plus age 0.
 */
static void breakpad_id(char *out, const uint8_t *id, size_t len)
{
	uint8_t g[16] = { 0 };

	memcpy(g, id, len < 16 ? len : 16);
	{
		uint8_t s[16] = { g[3], g[2], g[1], g[0], g[5], g[4], g[7], g[6], g[8], g[9],
				  g[10], g[11], g[12], g[13], g[14], g[15] };

		hex(out, s, 16, 1);
	}
	out[32] = '0';
	out[33] = 0;
}

static const struct build_id *find_build_id(const struct perf *p, uint32_t path)
{
	uint32_t i;

	for (i = p->nbuild_ids; i-- > 0;)
		if (p->build_ids[i].path == path)
			return &p->build_ids[i];
	return NULL;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* Set a lib's ids from a build id. 0 or NOMEM. */
static int set_lib_ids(struct perf *p, struct pc_lib *lib, const uint8_t *id, size_t idlen)
{
	char bp[40], code[48];

	if (idlen > 20)
		idlen = 20; /* build ids are at most 20 bytes (SHA-1) */
	breakpad_id(bp, id, idlen);
	hex(code, id, idlen, 0);
	lib->breakpad_id = pc_str_intern_z(p->m, bp);
	lib->code_id = pc_str_intern_z(p->m, code);
	return lib->breakpad_id == PC_NONE || lib->code_id == PC_NONE ? PROFCONV_ERR_NOMEM : 0;
}

/*
 * A build id that arrives after its lib was made (HEADER_BUILD_ID records
 * in pipe mode can follow the MMAP): give it to the lib if it has none.
 */
int perf_late_build_id(struct perf *p, const struct build_id *b)
{
	uint32_t i;

	for (i = 0; i < p->nlib_keys; i++) {
		struct pc_lib *lib = &p->m->libs.rows[p->lib_keys[i].lib];

		if (p->lib_keys[i].path == b->path && lib->code_id == PC_NONE && b->len)
			return set_lib_ids(p, lib, b->bytes, b->len);
	}
	return 0;
}

/* The lib row for a mapped file: one per path (the first build id seen names it). */
uint32_t perf_lib_for(struct perf *p, const char *file, const uint8_t *inline_id,
		      size_t inline_len, int kernel)
{
	char name[4096];
	const struct build_id *b;
	struct pc_lib lib;
	uint32_t path, i, row;
	const uint8_t *id = inline_id;
	size_t idlen = inline_len;

	pc_snprintf(name, sizeof(name), "%s", file);
	if (kernel) {
		/* "[kernel.kallsyms]_text" -> "[kernel.kallsyms]" (perf's dso name) */
		char *t = strstr(name, "]_");

		if (t && name[0] == '[')
			t[1] = 0;
	}
	path = pc_str_intern_z(p->m, name);
	if (path == PC_NONE)
		return PC_NONE;
	for (i = 0; i < p->nlib_keys; i++)
		if (p->lib_keys[i].path == path)
			return p->lib_keys[i].lib;
	if (!id) {
		b = find_build_id(p, path);
		if (b) {
			id = b->bytes;
			idlen = b->len;
		}
	}
	memset(&lib, 0, sizeof(lib));
	lib.path = path;
	lib.name = pc_str_intern_z(p->m, base_name(name));
	lib.debug_path = path;
	lib.debug_name = lib.name;
	lib.code_id = PC_NONE;
	lib.arch = p->f_arch ? pc_str_intern_z(p->m, p->f_arch) : PC_NONE;
	lib.is_kernel = (uint8_t)kernel;
	lib.breakpad_id = pc_str_intern_z(p->m, "");
	if (id && idlen && set_lib_ids(p, &lib, id, idlen))
		return PC_NONE;
	if (lib.name == PC_NONE || lib.breakpad_id == PC_NONE)
		return PC_NONE;
	lib.resource = pc_resource_intern(p->m, lib.name, PC_NONE, PC_RES_LIBRARY, p->m->libs.len);
	if (lib.resource == PC_NONE)
		return PC_NONE;
	row = pc_lib_add(p->m, &lib);
	if (row == PC_NONE)
		return PC_NONE;
	if (pc_grow(p->ctx, (void **)&p->lib_keys, sizeof(*p->lib_keys), &p->lib_keys_cap,
		    (size_t)p->nlib_keys + 1))
		return PC_NONE;
	p->lib_keys[p->nlib_keys].path = path;
	p->lib_keys[p->nlib_keys].lib = row;
	p->nlib_keys++;
	return row;
}

/*
 * Insert [start, end) into a process's sorted, non-overlapping map list:
 * later mappings replace whatever part of earlier ones they cover.
 */
int perf_add_mapping(struct perf *p, struct process *pr, const struct mapping *nm)
{
	struct mapping keep[2];
	uint32_t i, first, last, nkeep = 0, nins;

	if (nm->end <= nm->start)
		return 0;
	p->map_gen++;
	/* first overlapping: the first with end > nm->start */
	for (first = 0; first < pr->nmaps && pr->maps[first].end <= nm->start; first++)
		;
	for (last = first; last < pr->nmaps && pr->maps[last].start < nm->end; last++)
		;
	/* maps [first, last) overlap; keep their parts outside nm */
	if (first < last && pr->maps[first].start < nm->start) {
		keep[nkeep] = pr->maps[first];
		keep[nkeep++].end = nm->start;
	}
	if (first < last && pr->maps[last - 1].end > nm->end) {
		keep[nkeep] = pr->maps[last - 1];
		keep[nkeep++].start = nm->end;
	}
	nins = 1 + nkeep;
	if (pc_grow(p->ctx, (void **)&pr->maps, sizeof(*pr->maps), &pr->maps_cap,
		    (size_t)pr->nmaps - (last - first) + nins))
		return PROFCONV_ERR_NOMEM;
	memmove(pr->maps + first + nins, pr->maps + last,
		(size_t)(pr->nmaps - last) * sizeof(*pr->maps));
	pr->nmaps = pr->nmaps - (last - first) + nins;
	i = first;
	if (nkeep && keep[0].start < nm->start)
		pr->maps[i++] = keep[0];
	pr->maps[i++] = *nm;
	if (nkeep && keep[nkeep - 1].start >= nm->end)
		pr->maps[i++] = keep[nkeep - 1];
	return 0;
}

/*
 * The map holding addr, or NULL.  The maps do not overlap, so the one found
 * last, if it holds addr, is the answer: a callchain's frames mostly fall in
 * the map of the frame before them, and this skips the binary search for them.
 */
const struct mapping *perf_find_mapping(struct process *pr, uint64_t addr)
{
	uint32_t lo = 0, hi;

	if (!pr)
		return NULL;
	if (pr->map_hint < pr->nmaps && pr->maps[pr->map_hint].start <= addr &&
	    addr < pr->maps[pr->map_hint].end)
		return &pr->maps[pr->map_hint];
	hi = pr->nmaps;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (pr->maps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < pr->nmaps && pr->maps[lo].start <= addr) {
		pr->map_hint = lo;
		return &pr->maps[lo];
	}
	return NULL;
}
