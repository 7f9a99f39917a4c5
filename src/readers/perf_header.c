/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * perf_header.c - the file header, the attrs and the feature sections
 * (the perf.data reader; see read_perf.c and pc_perf.h).
 */
#include "core/pc_config.h"

#include <stdio.h>
#include <stdlib.h>

#include "readers/pc_perf.h"

#include <unistd.h>

/* --- attrs --- */

int perf_add_id(struct perf *p, uint64_t id, uint32_t attr)
{
	struct id_map *e;

	HASH_FIND(hh, p->ids, &id, sizeof(id), e);
	if (e)
		return 0;
	e = pc_calloc(p->ctx, 1, sizeof(*e));
	if (!e)
		return PROFCONV_ERR_NOMEM;
	e->id = id;
	e->attr = attr;
	HASH_ADD(hh, p->ids, id, sizeof(e->id), e);
	if (!e->hh.tbl) /* uthash could not allocate its table (HASH_NONFATAL_OOM) */
		return pc_fail(p->ctx, PROFCONV_ERR_NOMEM, NULL, "out of memory");
	return 0;
}

static void event_name(const struct attr *a, char *buf, size_t cap)
{
	static const char *const sw[] = {
		"cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations",
		"minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy",
		"bpf-output", "cgroup-switches",
	};
	static const char *const hw[] = {
		"cycles", "instructions", "cache-references", "cache-misses", "branches",
		"branch-misses", "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend",
		"ref-cycles",
	};

	if (a->type == 1 && a->config < PC_ARRAY_SIZE(sw))
		pc_snprintf(buf, cap, "%s", sw[a->config]);
	else if (a->type == 0 && a->config < PC_ARRAY_SIZE(hw))
		pc_snprintf(buf, cap, "%s", hw[a->config]);
	else
		pc_snprintf(buf, cap, "event(type %u, config 0x%llx)", a->type,
			    (unsigned long long)a->config);
}

/*
 * Parse one perf_event_attr of avail bytes (its own size field says how
 * much of it the writer filled; the rest is zero, as in the kernel's ABI).
 */
int perf_parse_attr(struct perf *p, const unsigned char *b, size_t avail, uint64_t off,
		    struct attr *a)
{
	unsigned char buf[256];
	uint32_t size;

	if (avail < ATTR_SIZE_VER0)
		return perf_corrupt(p, off, "perf_event_attr of %zu bytes; expected at least %d", avail,
			       ATTR_SIZE_VER0);
	size = ld32(p, b + 4);
	if (size == 0)
		size = ATTR_SIZE_VER0;
	if (size < ATTR_SIZE_VER0)
		return perf_corrupt(p, off + 4, "perf_event_attr.size %u; expected at least %d", size,
			       ATTR_SIZE_VER0);
	if (size > avail)
		size = (uint32_t)avail;
	memset(buf, 0, sizeof(buf));
	memcpy(buf, b, size < sizeof(buf) ? size : sizeof(buf));
	memset(a, 0, sizeof(*a));
	a->type = ld32(p, buf + 0);
	a->config = ld64(p, buf + 8);
	a->period_or_freq = ld64(p, buf + 16);
	a->sample_type = ld64(p, buf + 24);
	a->read_format = ld64(p, buf + 32);
	a->flags = ld64(p, buf + 40);
	a->branch_sample_type = ld64(p, buf + 72);
	a->regs_user = ld64(p, buf + 80);
	a->clockid = (int32_t)ld32(p, buf + 92);
	a->regs_intr = ld64(p, buf + 96);
	if (p->swap) {
		/*
		 * The flags word is a bitfield, which a big-endian compiler
		 * allocates from the most significant bit of each byte.  perf
		 * does not byte-swap it: it reverses the bits of every byte in
		 * place (swap_bitfield() in tools/perf/util/session.c).
		 */
		uint64_t raw = pc_load_u64(buf + 40, 0), r = 0;
		int i;

		for (i = 0; i < 64; i++)
			if (raw >> i & 1)
				r |= 1ull << ((i & ~7) | (7 - (i & 7)));
		a->flags = r;
	}
	event_name(a, a->name, sizeof(a->name));
	return 0;
}

int perf_add_attr(struct perf *p, const struct attr *a, uint64_t off)
{
	if (p->nattrs >= MAX_ATTRS)
		return perf_corrupt(p, off, "event %u: more than %d events (attrs); expected at most %d",
				    p->nattrs + 1, MAX_ATTRS, MAX_ATTRS);
	if (pc_grow(p->ctx, (void **)&p->attrs, sizeof(*p->attrs), &p->attrs_cap,
		    (size_t)p->nattrs + 1))
		return PROFCONV_ERR_NOMEM;
	p->attrs[p->nattrs++] = *a;
	return 0;
}

/* Called once all attrs are known: layout facts used by every record. */
void perf_attrs_done(struct perf *p)
{
	uint32_t i;

	p->all_identifier = p->nattrs > 0;
	p->same_layout = 1;
	for (i = 0; i < p->nattrs; i++) {
		if (!(p->attrs[i].sample_type & S_IDENTIFIER))
			p->all_identifier = 0;
		if (p->attrs[i].sample_type != p->attrs[0].sample_type ||
		    (p->attrs[i].flags & AF_SAMPLE_ID_ALL) != (p->attrs[0].flags & AF_SAMPLE_ID_ALL))
			p->same_layout = 0;
	}
}

/* Choose the event whose samples become the call tree. */
int perf_select_event(struct perf *p)
{
	uint32_t i;
	int switch_records = 0;

	if (p->selected_any)
		return 0;
	p->selected_any = 1;
	/* sched:sched_switch samples give off-CPU time unless SWITCH records do */
	for (i = 0; i < p->nattrs; i++)
		if (p->attrs[i].flags & AF_CONTEXT_SWITCH)
			switch_records = 1;
	for (i = 0; i < p->nattrs; i++) {
		p->attrs[i].selected = 0;
		p->attrs[i].sched_switch = !switch_records && perf_sched_is_switch(&p->attrs[i]);
	}
	if (p->event) {
		for (i = 0; i < p->nattrs; i++)
			if (strcmp(p->attrs[i].name, p->event) == 0)
				p->attrs[i].selected = 1;
		for (i = 0; i < p->nattrs; i++)
			if (p->attrs[i].selected)
				return 0;
		{
			char list[512];
			size_t n = 0;

			list[0] = 0;
			for (i = 0; i < p->nattrs; i++)
				n += pc_snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "",
						 p->attrs[i].name);
			return pc_fail(p->ctx, PROFCONV_ERR_USAGE, NULL,
				       "%s: no event named '%s' (the file has: %s)", p->path,
				       p->event, list);
		}
	}
	/* Default: the first event that samples (dummy tracking events don't). */
	for (i = 0; i < p->nattrs; i++) {
		if (strncmp(p->attrs[i].name, "dummy", 5) == 0)
			continue;
		p->attrs[i].selected = 1;
		return 0;
	}
	if (p->nattrs)
		p->attrs[0].selected = 1;
	return 0;
}

/* --- features --- */

/* perf_header_string: u32 len (incl. NUL, padded) + bytes.  Returns bytes consumed or 0. */
static size_t read_hstring(struct perf *p, const unsigned char *b, size_t avail, char *out,
			   size_t cap)
{
	uint32_t len;
	size_t n;

	if (avail < 4)
		return 0;
	len = ld32(p, b);
	if (len > avail - 4)
		return 0;
	n = strnlen((const char *)b + 4, len);
	if (n >= cap)
		n = cap - 1;
	memcpy(out, b + 4, n);
	out[n] = 0;
	return 4 + (size_t)len;
}

static int set_meta_str(struct perf *p, char **field, const char *s)
{
	char *d = pc_strdup(p->ctx, s);

	if (!d)
		return PROFCONV_ERR_NOMEM;
	pc_free(p->ctx, *field);
	*field = d;
	return 0;
}

static int add_build_id(struct perf *p, const char *path, const unsigned char *id, size_t len,
			int kernel)
{
	struct build_id *b;
	uint32_t s = pc_str_intern_z(p->m, path);

	if (s == PC_NONE)
		return PROFCONV_ERR_NOMEM;
	if (pc_grow(p->ctx, (void **)&p->build_ids, sizeof(*p->build_ids), &p->build_ids_cap,
		    (size_t)p->nbuild_ids + 1))
		return PROFCONV_ERR_NOMEM;
	b = &p->build_ids[p->nbuild_ids++];
	memset(b, 0, sizeof(*b));
	b->path = s;
	b->len = (uint8_t)(len > 20 ? 20 : len);
	memcpy(b->bytes, id, b->len);
	b->kernel = (uint8_t)kernel;
	return perf_late_build_id(p, b);
}

/* One build-id event (BUILD_ID feature entry or HEADER_BUILD_ID record body). */
int perf_parse_build_id_event(struct perf *p, const unsigned char *b, size_t size)
{
	uint16_t misc;
	size_t len = 20;
	char path[4096];
	size_t n;

	if (size < 8 + 4 + 24)
		return 0;
	misc = ld16(p, b + 4);
	if (misc & MISC_BUILD_ID_SIZE) {
		len = b[8 + 4 + 20];
		if (len > 20)
			len = 20;
	} else {
		while (len >= 4 && memcmp(b + 12 + len - 4, "\0\0\0\0", 4) == 0)
			len -= 4;
	}
	n = strnlen((const char *)b + 36, size - 36);
	if (n >= sizeof(path))
		n = sizeof(path) - 1;
	memcpy(path, b + 36, n);
	path[n] = 0;
	return add_build_id(p, path, b + 12, len,
			    (misc & MISC_CPUMODE_MASK) == MISC_KERNEL ||
				    (misc & MISC_CPUMODE_MASK) == MISC_GUEST_KERNEL);
}

static int parse_event_desc(struct perf *p, const unsigned char *b, size_t len, uint64_t off)
{
	uint32_t nr, asz, i;
	size_t pos = 8;

	if (len < 8)
		return perf_warn_at(p, W_FEATURE, off, "EVENT_DESC section too short");
	nr = ld32(p, b);
	asz = ld32(p, b + 4);
	if (asz < ATTR_SIZE_VER0 || asz > 4096)
		return perf_warn_at(p, W_FEATURE, off, "EVENT_DESC attr size %u out of range", asz);
	for (i = 0; i < nr; i++) {
		struct attr a;
		uint32_t nids, j;
		char name[128];
		size_t used;
		int err;

		if (len - pos < (size_t)asz + 4)
			return perf_warn_at(p, W_FEATURE, off + pos, "EVENT_DESC entry %u truncated", i);
		err = perf_parse_attr(p, b + pos, asz, off + pos, &a);
		if (err)
			return err;
		pos += asz;
		nids = ld32(p, b + pos);
		pos += 4;
		used = read_hstring(p, b + pos, len - pos, name, sizeof(name));
		if (!used)
			return perf_warn_at(p, W_FEATURE, off + pos, "EVENT_DESC name %u truncated", i);
		pos += used;
		if (nids > (len - pos) / 8)
			return perf_warn_at(p, W_FEATURE, off + pos, "EVENT_DESC ids of entry %u truncated",
				       i);
		/* Name the attr that owns these ids (or the i-th attr). */
		for (j = 0; j < nids; j++) {
			uint64_t id = ld64(p, b + pos + 8 * (size_t)j);
			struct id_map *e;

			HASH_FIND(hh, p->ids, &id, sizeof(id), e);
			if (e)
				pc_snprintf(p->attrs[e->attr].name, sizeof(p->attrs[0].name), "%s",
					    name);
		}
		if (!nids && i < p->nattrs)
			pc_snprintf(p->attrs[i].name, sizeof(p->attrs[0].name), "%s", name);
		pos += 8 * (size_t)nids;
	}
	return 0;
}

int perf_parse_feature(struct perf *p, unsigned id, const unsigned char *b, size_t len,
		       uint64_t off)
{
	char s[1024];
	int err = 0;

	switch (id) {
	case FEAT_HOSTNAME:
	case FEAT_OSRELEASE:
	case FEAT_VERSION:
	case FEAT_ARCH:
	case FEAT_CPUDESC:
		if (!read_hstring(p, b, len, s, sizeof(s)))
			return perf_warn_at(p, W_FEATURE, off, "feature %u: string truncated", id);
		if (id == FEAT_HOSTNAME)
			err = set_meta_str(p, &p->f_host, s);
		else if (id == FEAT_OSRELEASE)
			err = set_meta_str(p, &p->f_osrel, s);
		else if (id == FEAT_VERSION)
			err = set_meta_str(p, &p->f_version, s);
		else if (id == FEAT_ARCH)
			err = set_meta_str(p, &p->f_arch, s);
		else
			err = set_meta_str(p, &p->f_cpu, s);
		return err;
	case FEAT_NRCPUS:
		if (len < 8)
			return perf_warn_at(p, W_FEATURE, off, "NRCPUS section too short");
		p->nr_cpus_avail = ld32(p, b);
		p->nr_cpus_online = ld32(p, b + 4);
		p->m->meta.logical_cpus = p->nr_cpus_online;
		return 0;
	case FEAT_CMDLINE: {
		uint32_t nr, i;
		size_t pos = 4, n = 0;
		char line[4096];

		if (len < 4)
			return perf_warn_at(p, W_FEATURE, off, "CMDLINE section too short");
		nr = ld32(p, b);
		line[0] = 0;
		for (i = 0; i < nr; i++) {
			size_t used = read_hstring(p, b + pos, len - pos, s, sizeof(s));

			if (!used)
				return perf_warn_at(p, W_FEATURE, off + pos, "CMDLINE entry %u truncated",
					       i);
			pos += used;
			n += pc_snprintf(line + n, sizeof(line) - n, "%s%s", i ? " " : "", s);
		}
		return set_meta_str(p, &p->f_cmdline, line);
	}
	case FEAT_EVENT_DESC:
		return parse_event_desc(p, b, len, off);
	case FEAT_BUILD_ID: {
		size_t pos = 0;

		while (len - pos >= 8) {
			uint16_t size = ld16(p, b + pos + 6);

			if (size < 8 || size > len - pos)
				return perf_warn_at(p, W_FEATURE, off + pos,
					       "BUILD_ID entry of size %u overruns the section",
					       size);
			err = perf_parse_build_id_event(p, b + pos, size);
			if (err)
				return err;
			pos += size;
		}
		return 0;
	}
	case FEAT_SAMPLE_TIME:
		if (len >= 16) {
			p->sample_time_first = ld64(p, b);
			p->sample_time_last = ld64(p, b + 8);
		}
		return 0;
	case FEAT_CLOCK_DATA:
		if (len < 24)
			return perf_warn_at(p, W_FEATURE, off, "CLOCK_DATA section too short");
		if (ld32(p, b) != 1)
			return perf_warn_at(p, W_FEATURE, off, "CLOCK_DATA version %u; expected 1",
				       ld32(p, b));
		p->clock_data_id = (int32_t)ld32(p, b + 4);
		p->clock_tod_ns = (int64_t)ld64(p, b + 8);
		p->clock_ref_ns = (int64_t)ld64(p, b + 16);
		p->has_clock_data = 1;
		return 0;
	default:
		return 0;
	}
}

/* --- file header --- */

static int read_exact(struct perf *p, void *buf, size_t n, uint64_t off, const char *what)
{
	size_t got;
	int err = pc_input_pread(p->in, buf, n, off, &got);

	if (err)
		return err;
	if (got < n)
		return pc_fail_at(p->ctx, PROFCONV_ERR_CORRUPT_TRUNCATED, p->path, off + got,
				  "file ends inside %s (%zu of %zu bytes present)", what, got, n);
	return 0;
}

static int read_attrs_section(struct perf *p, const unsigned char *h, uint64_t fsize)
{
	uint64_t attr_size = ld64(p, h + 16), off = ld64(p, h + 24), size = ld64(p, h + 32), n, i;
	uint64_t total_ids = 0;
	unsigned char *buf;
	int err = 0;

	if (attr_size < ATTR_SIZE_VER0 + 16 || attr_size > 4096)
		return perf_corrupt(p, 16, "attr_size %llu; expected %d..4096 (perf_event_attr + ids section)",
			       (unsigned long long)attr_size, ATTR_SIZE_VER0 + 16);
	if (!pc_fits(off, size, fsize))
		return perf_corrupt(p, 24, "attrs section [0x%llx, +0x%llx) lies beyond the end of the file (0x%llx bytes)",
			       (unsigned long long)off, (unsigned long long)size,
			       (unsigned long long)fsize);
	if (size % attr_size)
		return perf_corrupt(p, 32, "attrs section size %llu is not a multiple of attr_size %llu",
			       (unsigned long long)size, (unsigned long long)attr_size);
	n = size / attr_size;
	if (n == 0)
		return perf_corrupt(p, 32, "no events: the attrs section is empty");
	if (n > MAX_ATTRS)
		return perf_corrupt(p, 32, "%llu events; at most %d supported", (unsigned long long)n,
			       MAX_ATTRS);
	buf = pc_alloc(p->ctx, (size_t)attr_size);
	if (!buf)
		return PROFCONV_ERR_NOMEM;
	for (i = 0; i < n && !err; i++) {
		uint64_t aoff = off + i * attr_size, ids_off, ids_size, k;
		struct attr a;

		err = read_exact(p, buf, (size_t)attr_size, aoff, "an attr");
		if (err)
			break;
		err = perf_parse_attr(p, buf, (size_t)attr_size - 16, aoff, &a);
		if (err)
			break;
		err = perf_add_attr(p, &a, aoff);
		if (err)
			break;
		ids_off = ld64(p, buf + attr_size - 16);
		ids_size = ld64(p, buf + attr_size - 8);
		if (!pc_fits(ids_off, ids_size, fsize) || ids_size / 8 > MAX_IDS) {
			err = perf_corrupt(p, aoff + attr_size - 16,
				      "ids of event %llu [0x%llx, +0x%llx) lie beyond the end of the file",
				      (unsigned long long)i, (unsigned long long)ids_off,
				      (unsigned long long)ids_size);
			break;
		}
		total_ids += ids_size / 8;
		if (total_ids > MAX_IDS) {
			err = perf_corrupt(p, aoff + attr_size - 8,
				      "more than %u event ids in all; the file is damaged", MAX_IDS);
			break;
		}
		if (ids_size / 8) {
			unsigned char *idb = pc_alloc(p->ctx, (size_t)ids_size);

			if (!idb) {
				err = PROFCONV_ERR_NOMEM;
				break;
			}
			err = read_exact(p, idb, (size_t)ids_size, ids_off, "the event ids");
			for (k = 0; k < ids_size / 8 && !err; k++)
				err = perf_add_id(p, ld64(p, idb + 8 * k), p->nattrs - 1);
			pc_free(p->ctx, idb);
		}
	}
	pc_free(p->ctx, buf);
	return err;
}

static int read_features(struct perf *p, uint64_t fsize)
{
	uint64_t idx = p->data_off + p->data_size;
	unsigned bit;
	int err = 0;

	for (bit = 0; bit < 256 && !err; bit++) {
		unsigned char sec[16], *buf;
		uint64_t off, size;

		if (!(p->feat_flags[bit / 64] >> (bit % 64) & 1))
			continue;
		if (!pc_fits(idx, 16, fsize))
			return perf_warn_at(p, W_FEATURE, idx,
				       "feature index ends early (feature %u missing): the file is truncated",
				       bit);
		err = read_exact(p, sec, 16, idx, "the feature index");
		if (err)
			return err;
		idx += 16;
		off = ld64(p, sec);
		size = ld64(p, sec + 8);
		if (!pc_fits(off, size, fsize) || size > (64u << 20)) {
			err = perf_warn_at(p, W_FEATURE, idx - 16,
				      "feature %u section [0x%llx, +0x%llx) lies beyond the end of the file",
				      bit, (unsigned long long)off, (unsigned long long)size);
			continue;
		}
		if (bit == FEAT_TRACING_DATA)
			continue; /* large and unused */
		buf = pc_alloc(p->ctx, (size_t)size + 1);
		if (!buf)
			return PROFCONV_ERR_NOMEM;
		err = read_exact(p, buf, (size_t)size, off, "a feature section");
		if (!err)
			err = perf_parse_feature(p, bit, buf, (size_t)size, off);
		pc_free(p->ctx, buf);
	}
	return err;
}

/*
 * The attrs and data sections must lie after the header and apart from each
 * other: a file whose sections overlap (one changed byte can do it) would
 * otherwise read header or attr bytes as records and "convert" garbage.
 * (Feature sections are checked as they are read; the feature index sits
 * right after the data.)
 */
static int check_sections(struct perf *p, const unsigned char *h, uint64_t hsize)
{
	uint64_t a_off = ld64(p, h + 24), a_size = ld64(p, h + 32);
	uint64_t d_off = ld64(p, h + 40), d_size = ld64(p, h + 48);

	if (a_size && a_off < hsize)
		return perf_corrupt(p, 24, "attrs section starts at 0x%llx, inside the %llu-byte file header",
			       (unsigned long long)a_off, (unsigned long long)hsize);
	if (d_off < hsize)
		return perf_corrupt(p, 40, "data section starts at 0x%llx, inside the %llu-byte file header",
			       (unsigned long long)d_off, (unsigned long long)hsize);
	if (a_size && d_size && a_off < d_off + d_size && d_off < a_off + a_size &&
	    pc_fits(a_off, a_size, UINT64_MAX) && pc_fits(d_off, d_size, UINT64_MAX))
		return perf_corrupt(p, 24, "attrs section [0x%llx, +0x%llx) overlaps the data section [0x%llx, +0x%llx)",
			       (unsigned long long)a_off, (unsigned long long)a_size,
			       (unsigned long long)d_off, (unsigned long long)d_size);
	return 0;
}

/* No real recording's data section reaches 2^48 bytes (256 TiB). */
#define DATA_SIZE_MAX ((uint64_t)1 << 48)

static uint64_t end_of(uint64_t off, uint64_t size)
{
	return pc_fits(off, size, DATA_SIZE_MAX) ? off + size : UINT64_MAX;
}

/*
 * How much of a file-mode perf.data arriving as a stream must be copied
 * (pc_input_spool_bounded()): the header, then the attrs and data
 * sections, then the feature index after the data, then the feature
 * sections it lists.  UINT64_MAX (all of it) while that is not known, or
 * when a size is absurd (the checks after spooling then say what is wrong).
 */
static uint64_t spool_need(void *user, int fd, uint64_t have)
{
	struct perf *p = user;
	unsigned char h[FILE_HEADER_SIZE], sec[16];
	uint64_t end, idx, feat[4];
	unsigned bit;
	int i;

	if (have < FILE_HEADER_SIZE)
		return FILE_HEADER_SIZE;
	if (pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h))
		return UINT64_MAX;
	end = ld64(p, h + 8);
	if (end_of(ld64(p, h + 24), ld64(p, h + 32)) > end)
		end = end_of(ld64(p, h + 24), ld64(p, h + 32));
	idx = end_of(ld64(p, h + 40), ld64(p, h + 48));
	if (ld64(p, h + 48) == 0 || idx == UINT64_MAX)
		return UINT64_MAX; /* unfinished recording: read to the end */
	if (idx > end)
		end = idx;
	for (i = 0; i < 4; i++)
		feat[i] = ld64(p, h + 72 + 8 * i);
	for (bit = 0; bit < 256; bit++) {
		if (!(feat[bit / 64] >> (bit % 64) & 1))
			continue;
		if (idx + 16 > have)
			return idx + 16 > end ? idx + 16 : end;
		if (pread(fd, sec, 16, (off_t)idx) != 16)
			return UINT64_MAX;
		idx += 16;
		if (idx > end)
			end = idx;
		if (end_of(ld64(p, sec), ld64(p, sec + 8)) == UINT64_MAX)
			return UINT64_MAX;
		if (end_of(ld64(p, sec), ld64(p, sec + 8)) > end)
			end = end_of(ld64(p, sec), ld64(p, sec + 8));
	}
	return end;
}

int perf_read_file_header(struct perf *p)
{
	unsigned char h[FILE_HEADER_SIZE];
	uint64_t fsize, hsize;
	int err, i;

	err = pc_input_spool_bounded(p->in, spool_need, p);
	if (err)
		return err;
	fsize = pc_input_size(p->in);
	err = read_exact(p, h, FILE_HEADER_SIZE, 0, "the perf.data header");
	if (err)
		return err;
	hsize = ld64(p, h + 8);
	if (hsize < FILE_HEADER_SIZE || hsize > fsize)
		return perf_corrupt(p, 8, "header size %llu; expected %d..%llu",
			       (unsigned long long)hsize, FILE_HEADER_SIZE,
			       (unsigned long long)fsize);
	for (i = 0; i < 4; i++)
		p->feat_flags[i] = ld64(p, h + 72 + 8 * i);
	err = check_sections(p, h, hsize);
	if (err)
		return err;
	err = read_attrs_section(p, h, fsize);
	if (err)
		return err;
	perf_attrs_done(p);
	p->data_off = ld64(p, h + 40);
	p->data_size = ld64(p, h + 48);
	if (p->data_off > fsize)
		return perf_corrupt(p, 40, "data section starts at 0x%llx, beyond the end of the file (0x%llx bytes)",
			       (unsigned long long)p->data_off, (unsigned long long)fsize);
	if (p->data_size == 0 && fsize > p->data_off) {
		/* perf record was killed before it wrote the header back. */
		err = perf_warn_at(p, W_TRUNCATED, 48,
			      "data size is 0 (perf record did not finish); reading to the end of the file");
		if (err)
			return err;
		p->data_size = fsize - p->data_off;
		memset(p->feat_flags, 0, sizeof(p->feat_flags));
		p->truncated = 1;
	} else if (!pc_fits(p->data_off, p->data_size, DATA_SIZE_MAX)) {
		/* not a cut-off file: a size no file has (one bad byte can do it) */
		return perf_corrupt(p, 48, "data size 0x%llx is impossible: the data section would end past 2^48 bytes (the file has 0x%llx)",
				    (unsigned long long)p->data_size, (unsigned long long)fsize);
	} else if (!pc_fits(p->data_off, p->data_size, fsize)) {
		/* in strict mode this is the error: nothing is converted */
		err = perf_warn_at(p, W_TRUNCATED, fsize,
				   "file ends at 0x%llx, inside the data section [0x%llx, +0x%llx)%s",
				   (unsigned long long)fsize, (unsigned long long)p->data_off,
				   (unsigned long long)p->data_size,
				   p->ctx->strict ? "" : ": converting what is there");
		if (err)
			return err;
		p->data_size = fsize - p->data_off;
		memset(p->feat_flags, 0, sizeof(p->feat_flags));
		p->truncated = 1;
	} else {
		err = read_features(p, fsize);
		if (err)
			return err;
	}
	return pc_input_seek(p->in, p->data_off);
}
