/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sym_persist.c - the persistent symbol cache (pc_sympersist.h).
 *
 * A file (DIR/BUILDID-KEYHASH.pcsym), all integers in the host's byte
 * order (the magic's byte-order word says which):
 *
 *   header   magic "PCSYMC3\n", u32 0x01020304, u32 flags (1: the source
 *            had DWARF), u32 key length, u32 0, u64 entries, u64 frames,
 *            u64 string bytes, u64 whash() of everything after the header
 *   key      the key text, padded with NULs to 8 bytes
 *   entries  { u64 rel, u64 sym_start, u32 sym_size, u32 nframes (0: no
 *            symbol), u32 first frame, u32 0 }, strictly increasing rel
 *   frames   { u32 name, u32 file (0xffffffff: none), u32 line }
 *   strings  NUL-terminated, offsets from the frames
 *
 * Reading checks all of it before use; anything off and the file is
 * treated as absent (and replaced at close).  Writing goes to a temporary
 * file in DIR renamed over the name, so a reader sees an old file or a new
 * one, never a part.  Bounds: a file holds at most PS_MAX_ENTRIES entries
 * and PS_MAX_FILE bytes (past them nothing is written), and after a
 * process's first write (and after every PS_MAX_DIR / 8 bytes it wrote
 * since) the oldest cache files go while DIR's *.pcsym files exceed
 * PS_MAX_DIR, and so do temporary files an hour old (a writer killed
 * before its rename left them).
 */
#define _GNU_SOURCE 1 /* dl_iterate_phdr, mkostemp */
#include "core/pc_config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "symbolicate/pc_sympersist.h"

#define PS_MAGIC       "PCSYMC3\n"
#define PS_ORDER       0x01020304u
#define PS_HDR	       56u
#define PS_ENTRY       32u
#define PS_FRAME       12u
#define PS_NOFILE      0xffffffffu
#define PS_MAX_ENTRIES (4u << 20)
#define PS_MAX_FILE    ((uint64_t)128 << 20)
#define PS_MAX_DIR     ((uint64_t)512 << 20)
#define PS_TMP_STALE   3600 /* seconds: a .tmp-* file this old was abandoned */

struct ps_rec {
	uint64_t rel, sym_start;
	uint32_t sym_size, nframes, first;
};

struct ps_frame {
	const char *name, *file;
	uint32_t line;
};

struct pc_sympersist {
	struct profconv_ctx *ctx;
	char *dir;
	char name[160]; /* the file's name in dir */
	char *key;
	size_t keylen;
	/* what was read (buf NULL: nothing valid) */
	unsigned char *buf;
	uint64_t nent, nfr, nstr;
	const unsigned char *ent, *fr;
	const char *str;
	uint32_t flags;
	/*
	 * Where to search for an address: the entries whose rel >> shift (from
	 * the first rel) is b start at bucket[b]; nbucket + 1 of them, about
	 * one per 4 entries (NULL: a plain binary search).  A file of 40,000
	 * entries searched for 70,000 addresses took 16 halvings each.
	 */
	uint32_t *bucket;
	uint64_t base;
	uint32_t shift, nbucket;
	/* what this run added */
	struct ps_rec *recs;
	uint32_t nrecs, recs_cap;
	struct ps_frame *frames;
	uint32_t nframes, frames_cap;
	int broken; /* out of memory while adding: write nothing */
};

/* --- helpers --- */

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

#define FNV0 0xcbf29ce484222325ull

static uint32_t rd32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t rd64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* A word-at-a-time hash (FNV-1a's byte loop is too slow for megabytes). */
static uint64_t whash(const unsigned char *p, uint64_t n)
{
	uint64_t h = FNV0 ^ n, i;

	for (i = 0; i + 8 <= n; i += 8) {
		h ^= rd64(p + i);
		h *= 0x100000001b3ull;
		h ^= h >> 29;
	}
	for (; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* profconv's own build id (the library's), or "" when it has none. */
static char own_id[128];
static pthread_once_t own_once = PTHREAD_ONCE_INIT;

static int own_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	uintptr_t me = (uintptr_t)data;
	int i, hit = 0;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && me >= lo && me - lo < ph->p_memsz)
			hit = 1;
	}
	if (!hit)
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
		size_t off = 0;

		if (ph->p_type != PT_NOTE)
			continue;
		while (off + 12 <= ph->p_memsz) {
			uint32_t nsz = rd32(p + off), dsz = rd32(p + off + 4), type = rd32(p + off + 8);
			size_t nalign = ((size_t)nsz + 3) & ~(size_t)3, dalign = ((size_t)dsz + 3) & ~(size_t)3;

			if (nalign > ph->p_memsz - off - 12 || dalign > ph->p_memsz - off - 12 - nalign)
				break;
			if (type == 3 && nsz == 4 && memcmp(p + off + 12, "GNU", 4) == 0 && dsz &&
			    dsz <= (sizeof(own_id) - 1) / 2) {
				uint32_t k;

				for (k = 0; k < dsz; k++)
					snprintf(own_id + 2 * k, 3, "%02x", p[off + 12 + nalign + k]);
				return 1;
			}
			off += 12 + nalign + dalign;
		}
	}
	return 1;
}

static void own_init(void)
{
	dl_iterate_phdr(own_cb, (void *)(uintptr_t)&own_init);
}

/* mkdir -p with 0700; 0 when dir is a directory afterwards */
static int make_dirs(char *dir)
{
	struct stat st;
	char *s;

	if (stat(dir, &st) == 0)
		return S_ISDIR(st.st_mode) ? 0 : -1;
	for (s = dir + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
			*s = '/';
			return -1;
		}
		*s = '/';
	}
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return -1;
	return stat(dir, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
}

/* --- reading --- */

static int read_whole(const char *path, uint64_t max, unsigned char **out, uint64_t *len,
		      struct profconv_ctx *ctx)
{
	struct stat st;
	unsigned char *b;
	uint64_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*out = NULL;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)PS_HDR ||
	    (uint64_t)st.st_size > max) {
		close(fd);
		return -1;
	}
	b = pc_alloc(ctx, (size_t)st.st_size);
	if (!b) {
		close(fd);
		return -1;
	}
	while (got < (uint64_t)st.st_size) {
		ssize_t n = read(fd, b + got, (size_t)((uint64_t)st.st_size - got));

		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			break;
		}
		got += (uint64_t)n;
	}
	close(fd);
	if (got != (uint64_t)st.st_size) {
		pc_free(ctx, b);
		return -1;
	}
	*out = b;
	*len = got;
	return 0;
}

/* p->bucket for the entries read (none when few, or out of memory). */
static void make_buckets(struct pc_sympersist *p)
{
	uint64_t span, i;
	uint32_t want = 1, shift = 0, b = 0;

	p->bucket = NULL;
	if (p->nent < 64)
		return;
	p->base = rd64(p->ent);
	span = rd64(p->ent + (p->nent - 1) * PS_ENTRY) - p->base;
	while (want < p->nent / 4)
		want *= 2;
	while (shift < 63 && (span >> shift) >= want)
		shift++;
	p->shift = shift;
	p->nbucket = (uint32_t)(span >> shift) + 1;
	p->bucket = pc_alloc(p->ctx, ((size_t)p->nbucket + 1) * sizeof(*p->bucket));
	if (!p->bucket)
		return;
	for (i = 0; i < p->nent; i++) {
		uint32_t k = (uint32_t)((rd64(p->ent + i * PS_ENTRY) - p->base) >> shift);

		while (b <= k)
			p->bucket[b++] = (uint32_t)i;
	}
	while (b <= p->nbucket)
		p->bucket[b++] = (uint32_t)p->nent;
}

/* Check a read file against the key; 0 = valid (p's read part set). */
static int validate(struct pc_sympersist *p, unsigned char *b, uint64_t len)
{
	uint64_t nent, nfr, nstr, keypad, need, i, prev = 0;
	uint32_t keylen;

	if (memcmp(b, PS_MAGIC, 8) != 0 || rd32(b + 8) != PS_ORDER)
		return -1;
	keylen = rd32(b + 16);
	nent = rd64(b + 24);
	nfr = rd64(b + 32);
	nstr = rd64(b + 40);
	keypad = ((uint64_t)keylen + 7) & ~(uint64_t)7;
	if (keylen != p->keylen || nent > PS_MAX_ENTRIES || nfr > (uint64_t)PS_MAX_ENTRIES * PC_MAX_INLINE ||
	    nstr > PS_MAX_FILE || nstr == 0)
		return -1;
	need = PS_HDR + keypad + nent * PS_ENTRY + nfr * PS_FRAME + nstr;
	if (need != len || memcmp(b + PS_HDR, p->key, keylen) != 0)
		return -1;
	/* the checksum word is the header's last: hash what follows it */
	if (whash(b + PS_HDR, len - PS_HDR) != rd64(b + PS_HDR - 8))
		return -1;
	p->ent = b + PS_HDR + keypad;
	p->fr = p->ent + nent * PS_ENTRY;
	p->str = (const char *)(p->fr + nfr * PS_FRAME);
	if (p->str[nstr - 1] != 0)
		return -1;
	for (i = 0; i < nent; i++) {
		const unsigned char *e = p->ent + i * PS_ENTRY;
		uint64_t rel = rd64(e);
		uint32_t n = rd32(e + 20), first = rd32(e + 24), k;

		if ((i && rel <= prev) || n > PC_MAX_INLINE || (uint64_t)first + n > nfr)
			return -1;
		prev = rel;
		for (k = 0; k < n; k++) {
			const unsigned char *f = p->fr + (uint64_t)(first + k) * PS_FRAME;
			uint32_t file = rd32(f + 4);

			if (rd32(f) >= nstr || (file != PS_NOFILE && file >= nstr))
				return -1;
		}
	}
	p->flags = rd32(b + 12);
	p->nent = nent;
	p->nfr = nfr;
	p->nstr = nstr;
	make_buckets(p);
	return 0;
}

static char *id_text(char *buf, size_t n, const struct pc_sympersist_id *id)
{
	pc_snprintf(buf, n, "%s %llu %lld.%09lld", id->build_id, (unsigned long long)id->size,
		    (long long)id->mtime_sec, (long long)id->mtime_nsec);
	return buf;
}

int pc_sympersist_open(struct profconv_ctx *ctx, const char *dir,
		       const struct pc_sympersist_id *file, const struct pc_sympersist_id *rt,
		       struct pc_sympersist **out)
{
	struct pc_sympersist *p;
	char a[256], r[256], key[1024], path[4096 + 200];
	unsigned char *b;
	uint64_t len;
	size_t n;

	*out = NULL;
	if (!dir || !dir[0] || !file->build_id || !file->build_id[0] ||
	    strlen(file->build_id) > 80 || strlen(dir) > 4000)
		return 0;
	pthread_once(&own_once, own_init);
	n = pc_snprintf(key, sizeof(key),
			"profconv symbol cache 3\nprofconv %s %s\nfile %s\nplt %s\n",
			PROFCONV_VERSION_STRING, own_id[0] ? own_id : "-", id_text(a, sizeof(a), file),
			rt ? id_text(r, sizeof(r), rt) : "-");
	if (n >= sizeof(key) - 1)
		return 0;
	p = pc_calloc(ctx, 1, sizeof(*p));
	if (!p)
		return PROFCONV_ERR_NOMEM;
	p->ctx = ctx;
	p->dir = pc_strdup(ctx, dir);
	p->key = pc_strdup(ctx, key);
	if (!p->dir || !p->key) {
		pc_sympersist_close(p, 0, 0);
		return PROFCONV_ERR_NOMEM;
	}
	p->keylen = n;
	pc_snprintf(p->name, sizeof(p->name), "%s-%016llx.pcsym", file->build_id,
		    (unsigned long long)fnv(FNV0, key, n));
	pc_snprintf(path, sizeof(path), "%s/%s", dir, p->name);
	if (read_whole(path, PS_MAX_FILE, &b, &len, ctx) == 0) {
		if (validate(p, b, len) == 0)
			p->buf = b;
		else
			pc_free(ctx, b);
	}
	*out = p;
	return 0;
}

int pc_sympersist_valid(const struct pc_sympersist *p, int *has_dwarf)
{
	if (!p || !p->buf)
		return 0;
	*has_dwarf = (p->flags & 1) != 0;
	return 1;
}

int pc_sympersist_find(const struct pc_sympersist *p, uint64_t rel, struct pc_sym_result *out)
{
	uint64_t lo = 0, hi;

	if (!p->buf)
		return -1;
	hi = p->nent;
	if (p->bucket) {
		uint64_t k;

		if (rel < p->base)
			return -1;
		k = (rel - p->base) >> p->shift;
		if (k >= p->nbucket)
			return -1;
		lo = p->bucket[k];
		hi = p->bucket[k + 1];
	}
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		const unsigned char *e = p->ent + mid * PS_ENTRY;
		uint64_t r = rd64(e);

		if (r == rel) {
			uint32_t n = rd32(e + 20), first = rd32(e + 24), k;

			out->sym_start = rd64(e + 8);
			out->sym_size = rd32(e + 16);
			out->nframes = n;
			for (k = 0; k < n; k++) {
				const unsigned char *f = p->fr + (uint64_t)(first + k) * PS_FRAME;
				uint32_t file = rd32(f + 4);

				out->frames[k].name = p->str + rd32(f);
				out->frames[k].file = file == PS_NOFILE ? NULL : p->str + file;
				out->frames[k].line = rd32(f + 8);
			}
			return n ? 1 : 0;
		}
		if (r < rel)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

int pc_sympersist_add(struct pc_sympersist *p, uint64_t rel, int r, const struct pc_sym_result *out)
{
	struct ps_rec *rec;
	uint32_t n = r > 0 ? out->nframes : 0, k;

	if (p->broken)
		return 0;
	if (p->nrecs >= PS_MAX_ENTRIES || n > PC_MAX_INLINE ||
	    pc_grow(p->ctx, (void **)&p->recs, sizeof(*p->recs), &p->recs_cap, (size_t)p->nrecs + 1) ||
	    pc_grow(p->ctx, (void **)&p->frames, sizeof(*p->frames), &p->frames_cap,
		    (size_t)p->nframes + n)) {
		p->broken = 1;
		return 0; /* a cache that is not written costs nothing but time */
	}
	rec = &p->recs[p->nrecs++];
	rec->rel = rel;
	rec->sym_start = n ? out->sym_start : 0;
	rec->sym_size = n ? out->sym_size : 0;
	rec->nframes = n;
	rec->first = p->nframes;
	for (k = 0; k < n; k++) {
		p->frames[p->nframes].name = out->frames[k].name;
		p->frames[p->nframes].file = out->frames[k].file;
		p->frames[p->nframes].line = out->frames[k].line;
		p->nframes++;
	}
	return 0;
}

/* --- writing --- */

struct strtab {
	const char **keys;
	uint32_t *offs;
	uint64_t cap, used;
	uint64_t size; /* bytes so far */
	char *data;
	uint64_t data_cap;
};

static uint64_t hash_str(const char *s)
{
	return fnv(FNV0, s, strlen(s));
}

/* The offset of s in t (added when new); PS_NOFILE on failure. */
static uint32_t str_off(struct profconv_ctx *ctx, struct strtab *t, const char *s)
{
	uint64_t i = hash_str(s) & (t->cap - 1);
	size_t n;

	while (t->keys[i]) {
		if (strcmp(t->keys[i], s) == 0)
			return t->offs[i];
		i = (i + 1) & (t->cap - 1);
	}
	n = strlen(s) + 1;
	if (t->size + n >= PS_MAX_FILE || t->used * 2 >= t->cap)
		return PS_NOFILE;
	if (t->size + n > t->data_cap) {
		uint64_t nc = t->data_cap ? t->data_cap * 2 : 65536;
		char *d;

		while (nc < t->size + n)
			nc *= 2;
		d = pc_alloc(ctx, (size_t)nc);
		if (!d)
			return PS_NOFILE;
		if (t->size)
			memcpy(d, t->data, (size_t)t->size);
		pc_free(ctx, t->data);
		t->data = d;
		t->data_cap = nc;
	}
	memcpy(t->data + t->size, s, n);
	t->keys[i] = s; /* the caller's strings outlive the table */
	t->offs[i] = (uint32_t)t->size;
	t->used++;
	t->size += n;
	return t->offs[i];
}

static int rec_cmp(const void *a, const void *b)
{
	const struct ps_rec *x = a, *y = b;

	if (x->rel != y->rel)
		return x->rel < y->rel ? -1 : 1;
	return 0;
}

struct out_buf {
	unsigned char *p;
	uint64_t len, cap;
};

static int put(struct profconv_ctx *ctx, struct out_buf *o, const void *d, uint64_t n)
{
	if (!n)
		return 0; /* an empty part (no frames: no address had a symbol) may be NULL */
	if (o->len + n > o->cap) {
		uint64_t nc = o->cap ? o->cap * 2 : 65536;
		unsigned char *q;

		while (nc < o->len + n)
			nc *= 2;
		if (nc > PS_MAX_FILE * 2)
			return -1;
		q = pc_alloc(ctx, (size_t)nc);
		if (!q)
			return -1;
		if (o->len)
			memcpy(q, o->p, (size_t)o->len);
		pc_free(ctx, o->p);
		o->p = q;
		o->cap = nc;
	}
	memcpy(o->p + o->len, d, (size_t)n);
	o->len += n;
	return 0;
}

/*
 * Remove the oldest *.pcsym files while dir's exceed PS_MAX_DIR, and every
 * .tmp-* file older than PS_TMP_STALE seconds: atomic_write() renames its
 * file within moments, so one that old was left by a writer killed before
 * its rename (a SIGINT or SIGKILL during the write) and nothing else
 * would ever remove it.
 */
static void prune(const char *dir)
{
	struct ent {
		char name[256];
		int64_t mtime;
		uint64_t size;
	} *v = NULL, *nv;
	size_t n = 0, cap = 0, i;
	uint64_t total = 0;
	struct dirent *de;
	DIR *d = opendir(dir);
	char path[4096 + 300];
	int64_t now = (int64_t)time(NULL);

	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		struct stat st;
		size_t l = strlen(de->d_name);

		if (strncmp(de->d_name, ".tmp-", 5) == 0) {
			pc_snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
			    (int64_t)st.st_mtime < now - PS_TMP_STALE)
				unlink(path);
			continue;
		}
		if (l < 7 || l >= 256 || strcmp(de->d_name + l - 6, ".pcsym") != 0)
			continue;
		pc_snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		memcpy(v[n].name, de->d_name, l + 1);
		v[n].mtime = (int64_t)st.st_mtime;
		v[n].size = (uint64_t)st.st_size;
		total += v[n].size;
		n++;
	}
	closedir(d);
	/* once over the bound, down to three quarters of it */
	while (total > PS_MAX_DIR && n) {
		size_t old = 0;

		for (i = 1; i < n; i++)
			if (v[i].mtime < v[old].mtime)
				old = i;
		pc_snprintf(path, sizeof(path), "%s/%s", dir, v[old].name);
		unlink(path);
		total -= v[old].size;
		v[old] = v[--n];
		if (total <= PS_MAX_DIR / 4 * 3)
			break;
	}
	free(v);
}

/*
 * prune() reads every cache file's size and age: a batch writing a file a
 * conversion paid that for each one, on its critical path.  A process
 * prunes DIR at its first write there, and again only once it has written
 * PS_MAX_DIR / 8 more bytes there (the directory may pass the bound by
 * that much plus a file between two prunings).
 */
static pthread_mutex_t prune_mu = PTHREAD_MUTEX_INITIALIZER;
static char prune_last[4096 + 1]; /* the directory pruned last, "" none */
static uint64_t prune_since;	  /* bytes written there since */

static void prune_due(const char *dir, uint64_t len)
{
	int due;

	pthread_mutex_lock(&prune_mu);
	prune_since += len;
	due = strcmp(prune_last, dir) != 0 || prune_since > PS_MAX_DIR / 8;
	if (due) {
		pc_snprintf(prune_last, sizeof(prune_last), "%s", dir);
		prune_since = 0;
	}
	pthread_mutex_unlock(&prune_mu);
	if (due)
		prune(dir);
}

/*
 * Write buf as DIR/NAME through a temporary file in DIR renamed over it (a
 * reader sees the old file or the new one, never a part); then prune DIR
 * when due (prune_due()).  0 when written.
 */
static int atomic_write(char *dir, const char *name, const void *buf, uint64_t len)
{
	char tmp[4096 + 200], final[4096 + 200];
	uint64_t done = 0;
	int fd, ok;

	if (make_dirs(dir) != 0)
		return -1;
	pc_snprintf(tmp, sizeof(tmp), "%s/.tmp-%s-XXXXXX", dir, name);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -1;
	while (done < len) {
		ssize_t w = write(fd, (const char *)buf + done, (size_t)(len - done));

		if (w <= 0) {
			if (w < 0 && errno == EINTR)
				continue;
			break;
		}
		done += (uint64_t)w;
	}
	ok = done == len;
	if (close(fd) != 0)
		ok = 0;
	pc_snprintf(final, sizeof(final), "%s/%s", dir, name);
	if (!ok || rename(tmp, final) != 0) {
		unlink(tmp);
		return -1;
	}
	prune_due(dir, len);
	return 0;
}

static void write_file(struct pc_sympersist *p, int has_dwarf)
{
	struct profconv_ctx *ctx = p->ctx;
	struct strtab t;
	struct out_buf ents = { 0 }, frs = { 0 }, all = { 0 };
	unsigned char hdr[PS_HDR], pad[8] = { 0 };
	uint64_t i = 0, j = 0, nent = 0, nfr = 0, h, keypad;
	uint32_t u;

	memset(&t, 0, sizeof(t));
	qsort(p->recs, p->nrecs, sizeof(*p->recs), rec_cmp);
	/* an address added twice (two conversions of a batch) once */
	for (i = 0, j = 0; i < p->nrecs; i++)
		if (!j || p->recs[i].rel != p->recs[j - 1].rel)
			p->recs[j++] = p->recs[i];
	p->nrecs = (uint32_t)j;
	i = j = 0;
	t.cap = 1024;
	while (t.cap < 4 * ((uint64_t)p->nframes + p->nfr * 2 + 16))
		t.cap *= 2;
	t.keys = pc_calloc(ctx, (size_t)t.cap, sizeof(*t.keys));
	t.offs = pc_alloc(ctx, (size_t)t.cap * sizeof(*t.offs));
	if (!t.keys || !t.offs)
		goto out;
	/* merge what was read with what was added, by rel; the read one wins a tie */
	while (i < p->nent || j < p->nrecs) {
		unsigned char e[PS_ENTRY];
		uint64_t rel, start;
		uint32_t size, n, k, first = (uint32_t)nfr;
		int from_read;

		if (j < p->nrecs && i < p->nent && p->recs[j].rel == rd64(p->ent + i * PS_ENTRY)) {
			j++; /* read before: the same result */
			continue;
		}
		from_read = j >= p->nrecs || (i < p->nent && rd64(p->ent + i * PS_ENTRY) < p->recs[j].rel);
		if (from_read) {
			const unsigned char *r = p->ent + i * PS_ENTRY;

			rel = rd64(r);
			start = rd64(r + 8);
			size = rd32(r + 16);
			n = rd32(r + 20);
		} else {
			rel = p->recs[j].rel;
			start = p->recs[j].sym_start;
			size = p->recs[j].sym_size;
			n = p->recs[j].nframes;
		}
		for (k = 0; k < n; k++) {
			const char *name, *file;
			uint32_t line, fo[3];

			if (from_read) {
				const unsigned char *f =
					p->fr + (uint64_t)(rd32(p->ent + i * PS_ENTRY + 24) + k) * PS_FRAME;
				uint32_t fl = rd32(f + 4);

				name = p->str + rd32(f);
				file = fl == PS_NOFILE ? NULL : p->str + fl;
				line = rd32(f + 8);
			} else {
				const struct ps_frame *f = &p->frames[p->recs[j].first + k];

				name = f->name;
				file = f->file;
				line = f->line;
			}
			fo[0] = str_off(ctx, &t, name ? name : "");
			fo[1] = file ? str_off(ctx, &t, file) : PS_NOFILE;
			fo[2] = line;
			if (fo[0] == PS_NOFILE || (file && fo[1] == PS_NOFILE) ||
			    put(ctx, &frs, fo, sizeof(fo)))
				goto out;
			nfr++;
		}
		memset(e, 0, sizeof(e));
		memcpy(e, &rel, 8);
		memcpy(e + 8, &start, 8);
		memcpy(e + 16, &size, 4);
		memcpy(e + 20, &n, 4);
		memcpy(e + 24, &first, 4);
		if (put(ctx, &ents, e, sizeof(e)))
			goto out;
		nent++;
		if (from_read)
			i++;
		else
			j++;
	}
	if (!nent || nent > PS_MAX_ENTRIES)
		goto out;
	if (!t.size && str_off(ctx, &t, "") == PS_NOFILE)
		goto out;
	keypad = ((uint64_t)p->keylen + 7) & ~(uint64_t)7;
	if (PS_HDR + keypad + ents.len + frs.len + t.size > PS_MAX_FILE)
		goto out;
	memset(hdr, 0, sizeof(hdr));
	memcpy(hdr, PS_MAGIC, 8);
	u = PS_ORDER;
	memcpy(hdr + 8, &u, 4);
	u = has_dwarf ? 1 : 0;
	memcpy(hdr + 12, &u, 4);
	u = (uint32_t)p->keylen;
	memcpy(hdr + 16, &u, 4);
	memcpy(hdr + 24, &nent, 8);
	memcpy(hdr + 32, &nfr, 8);
	memcpy(hdr + 40, &t.size, 8);
	if (put(ctx, &all, hdr, sizeof(hdr)) || put(ctx, &all, p->key, p->keylen) ||
	    put(ctx, &all, pad, keypad - p->keylen) || put(ctx, &all, ents.p, ents.len) ||
	    put(ctx, &all, frs.p, frs.len) || put(ctx, &all, t.data, t.size))
		goto out;
	h = whash(all.p + PS_HDR, all.len - PS_HDR);
	memcpy(all.p + PS_HDR - 8, &h, 8);
	atomic_write(p->dir, p->name, all.p, all.len);
out:
	pc_free(ctx, t.keys);
	pc_free(ctx, t.offs);
	pc_free(ctx, t.data);
	pc_free(ctx, ents.p);
	pc_free(ctx, frs.p);
	pc_free(ctx, all.p);
}

void pc_sympersist_close(struct pc_sympersist *p, int write, int has_dwarf)
{
	if (!p)
		return;
	if (write && !p->broken && p->nrecs)
		write_file(p, has_dwarf);
	pc_free(p->ctx, p->buf);
	pc_free(p->ctx, p->bucket);
	pc_free(p->ctx, p->recs);
	pc_free(p->ctx, p->frames);
	pc_free(p->ctx, p->key);
	pc_free(p->ctx, p->dir);
	pc_free(p->ctx, p);
}

/* --- the kallsyms cache --- */

/*
 * One file, DIR/kallsyms-KEYHASH.pcsym:
 *
 *   header   magic "PCKSYM1\n", u32 0x01020304, u32 0, u32 key length,
 *            u32 0, u64 entries, u64 string bytes, u64 bias (_text),
 *            u64 word hash of everything after the header
 *   key      the key text, padded with NULs to 8 bytes
 *   entries  { u64 start, u64 end, u32 name, u32 size }, strictly
 *            increasing start, start < end
 *   sure     one byte an entry (0 or 1), padded with NULs to 8 bytes
 *   strings  NUL-terminated, offsets from the entries
 *
 * The key (pc_kpersist_key()) names the running kernel as the reader sees
 * it; what no cheap key can show (BPF programs, ftrace and kprobe
 * trampolines come and go) is handled by the reader: only a "sure" entry is
 * answered from the file (pc_sympersist.h).
 */
#define PK_MAGIC       "PCKSYM1\n"
#define PK_HDR	       56u
#define PK_ENTRY       24u
#define PK_MAX_ENTRIES (4u << 20)
#define PK_HEAD	       4096 /* bytes of kallsyms in the key */

static const char *const pk_real[] = {
	"/proc/kallsyms", "/sys/kernel/notes", "/proc/sys/kernel/random/boot_id", "/proc/modules",
	"/proc/sys/kernel/osrelease",
};
static const char *const pk_test[] = { "kallsyms", "notes", "boot_id", "modules", "osrelease" };

const char *pc_host_kernel_file(enum pc_host_kernel what, char *buf, size_t n)
{
	const char *dir = getenv("PROFCONV_TEST_HOST_KERNEL");

	if (!dir || !dir[0])
		return pk_real[what];
	pc_snprintf(buf, n, "%s/%s", dir, pk_test[what]);
	return buf;
}

int pc_host_kernel_faked(void)
{
	const char *dir = getenv("PROFCONV_TEST_HOST_KERNEL");

	return dir && dir[0];
}

/* The first read() of path (up to max bytes); -1 when it cannot be read. */
static ssize_t read_head(const char *path, char *buf, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	do
		n = read(fd, buf, max);
	while (n < 0 && errno == EINTR);
	close(fd);
	return n;
}

/*
 * FNV-1a of /proc/modules without the fields that change while a module
 * stays loaded (its reference count and its users): name, size, state,
 * address, taint of every module, in order.  -1 when a module is loading
 * or unloading (its symbols are in flux), or the file is too big.
 */
static int modules_hash(const char *path, uint64_t *h, int *none)
{
	FILE *f = fopen(path, "re");
	char line[4096];
	int bad = 0;

	*h = FNV0;
	*none = !f;
	if (!f)
		return 0; /* a kernel without modules */
	while (!bad && fgets(line, sizeof(line), f)) {
		char *save = NULL, *tok;
		int k = 0;

		if (!strchr(line, '\n'))
			bad = 1;
		for (tok = strtok_r(line, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save), k++) {
			if (k == 2 || k == 3)
				continue; /* refcount, users */
			if (k == 4 && strcmp(tok, "Live") != 0)
				bad = 1;
			*h = fnv(*h, tok, strlen(tok) + 1);
		}
		*h = fnv(*h, "\n", 1);
	}
	if (ferror(f))
		bad = 1;
	fclose(f);
	return bad ? -1 : 0;
}

size_t pc_kpersist_key(char *key, size_t n)
{
	char buf[4096 + 200], boot[64], rel[256], head[PK_HEAD];
	ssize_t nb, nr, nh;
	uint64_t mh;
	int none;
	size_t len;

	pthread_once(&own_once, own_init);
	nb = read_head(pc_host_kernel_file(PC_HK_BOOT_ID, buf, sizeof(buf)), boot, sizeof(boot) - 1);
	nr = read_head(pc_host_kernel_file(PC_HK_RELEASE, buf, sizeof(buf)), rel, sizeof(rel) - 1);
	if (nb < 16 || nr < 1 || modules_hash(pc_host_kernel_file(PC_HK_MODULES, buf, sizeof(buf)),
					       &mh, &none) != 0)
		return 0;
	/* the kernel makes /proc/kallsyms's lines as they are read: one page is cheap */
	nh = read_head(pc_host_kernel_file(PC_HK_KALLSYMS, buf, sizeof(buf)), head, sizeof(head));
	if (nh <= 0)
		return 0;
	boot[nb] = 0;
	rel[nr] = 0;
	boot[strcspn(boot, "\n")] = 0;
	rel[strcspn(rel, "\n")] = 0;
	len = pc_snprintf(key, n,
			  "profconv kallsyms cache 1\nprofconv %s %s\nboot %s\nrelease %s\n"
			  "modules %016llx%s\nhead %zd %016llx\n",
			  PROFCONV_VERSION_STRING, own_id[0] ? own_id : "-", boot, rel,
			  (unsigned long long)mh, none ? " none" : "", nh,
			  (unsigned long long)whash((const unsigned char *)head, (uint64_t)nh));
	return len < n - 1 ? len : 0;
}

static void pk_name(char *name, size_t n, const char *key, size_t keylen)
{
	pc_snprintf(name, n, "kallsyms-%016llx.pcsym", (unsigned long long)fnv(FNV0, key, keylen));
}

int pc_kpersist_read(struct profconv_ctx *ctx, const char *dir, const char *key, size_t keylen,
		     struct pc_kpersist *out)
{
	char name[64], path[4096 + 200];
	unsigned char *b;
	uint64_t len, n, nstr, keypad, surepad, i, prev = 0;
	const unsigned char *e, *sure;

	memset(out, 0, sizeof(*out));
	if (!dir || !dir[0] || strlen(dir) > 4000)
		return -1;
	pk_name(name, sizeof(name), key, keylen);
	pc_snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (read_whole(path, PS_MAX_FILE, &b, &len, ctx) != 0)
		return -1;
	n = rd64(b + 24);
	nstr = rd64(b + 32);
	keypad = ((uint64_t)keylen + 7) & ~(uint64_t)7;
	surepad = (n + 7) & ~(uint64_t)7;
	if (memcmp(b, PK_MAGIC, 8) != 0 || rd32(b + 8) != PS_ORDER || rd32(b + 16) != keylen ||
	    !n || n > PK_MAX_ENTRIES || !nstr || nstr > PS_MAX_FILE ||
	    PK_HDR + keypad + n * PK_ENTRY + surepad + nstr != len ||
	    memcmp(b + PK_HDR, key, keylen) != 0 ||
	    whash(b + PK_HDR, len - PK_HDR) != rd64(b + PK_HDR - 8))
		goto bad;
	e = b + PK_HDR + keypad;
	sure = e + n * PK_ENTRY;
	if (sure[surepad + nstr - 1] != 0)
		goto bad;
	for (i = 0; i < n; i++, e += PK_ENTRY) {
		uint64_t start = rd64(e), end = rd64(e + 8);

		if ((i && start <= prev) || end <= start || rd32(e + 16) >= nstr || sure[i] > 1)
			goto bad;
		prev = start;
	}
	out->buf = b;
	out->n = n;
	out->ents = b + PK_HDR + keypad;
	out->sure = sure;
	out->str = (const char *)sure + surepad;
	out->nstr = nstr;
	out->bias = rd64(b + 40);
	return 0;
bad:
	pc_free(ctx, b);
	return -1;
}

void pc_kpersist_write(struct profconv_ctx *ctx, const char *dir, const char *key, size_t keylen,
		       const struct pc_kpersist *d)
{
	char name[64], path[4096 + 200], *dcopy;
	uint64_t keypad = ((uint64_t)keylen + 7) & ~(uint64_t)7, surepad = (d->n + 7) & ~(uint64_t)7;
	uint64_t len = PK_HDR + keypad + d->n * PK_ENTRY + surepad + d->nstr, h;
	unsigned char *b, *p;
	uint32_t u;
	struct dirent *de;
	DIR *dd;

	if (!dir || !dir[0] || strlen(dir) > 4000 || !d->n || d->n > PK_MAX_ENTRIES || !d->nstr ||
	    len > PS_MAX_FILE)
		return;
	b = pc_calloc(ctx, 1, (size_t)len);
	if (!b)
		return;
	memcpy(b, PK_MAGIC, 8);
	u = PS_ORDER;
	memcpy(b + 8, &u, 4);
	u = (uint32_t)keylen;
	memcpy(b + 16, &u, 4);
	memcpy(b + 24, &d->n, 8);
	memcpy(b + 32, &d->nstr, 8);
	memcpy(b + 40, &d->bias, 8);
	p = b + PK_HDR;
	memcpy(p, key, keylen);
	p += keypad;
	memcpy(p, d->ents, (size_t)(d->n * PK_ENTRY));
	p += d->n * PK_ENTRY;
	memcpy(p, d->sure, (size_t)d->n);
	p += surepad;
	memcpy(p, d->str, (size_t)d->nstr);
	h = whash(b + PK_HDR, len - PK_HDR);
	memcpy(b + PK_HDR - 8, &h, 8);
	pk_name(name, sizeof(name), key, keylen);
	dcopy = pc_strdup(ctx, dir);
	if (dcopy && atomic_write(dcopy, name, b, len) == 0 && (dd = opendir(dir)) != NULL) {
		/* an older boot's (or kernel's) file is never valid again */
		while ((de = readdir(dd)) != NULL) {
			if (strncmp(de->d_name, "kallsyms-", 9) != 0 || strcmp(de->d_name, name) == 0 ||
			    strlen(de->d_name) != strlen(name) ||
			    strcmp(de->d_name + strlen(de->d_name) - 6, ".pcsym") != 0)
				continue;
			pc_snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			unlink(path);
		}
		closedir(dd);
	}
	pc_free(ctx, dcopy);
	pc_free(ctx, b);
}
