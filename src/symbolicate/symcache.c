/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * symcache.c - ELF symbol sources, and the host's kallsyms, opened once
 * and shared by the conversions of a batch (pc_symcache.h,
 * profconv_ctx_share_symbols()).  The kallsyms entry is keyed by its
 * kallsyms cache key (pc_sympersist.h) instead of a file's identity.
 *
 * Opening a separate debug file costs far more than looking a recording's
 * addresses up in it (libc's: inflating its compressed DWARF sections,
 * reading the unit headers, sorting the symbol table), and a batch of a
 * machine's recordings asks for the same few files again and again.  The
 * cache keeps every source it opened until it is freed:
 *
 *   key     the file the search chose (path, device, inode, size and
 *           modification time), the build id it is checked against, and
 *           the binary its PLT names come from (path and the same identity);
 *   open    by the first conversion that asks, on a context of the entry's
 *           own (the source allocates through it, under the source's lock);
 *           one that asks meanwhile waits for it: a file is opened once;
 *   replay  the notes and warnings that opening gave are recorded and given
 *           again on the context of every conversion that takes the source,
 *           so its diagnostics, like its output, are those of an own open;
 *           a file whose opening failed (damaged) is opened by each
 *           conversion on its own context, as without the cache.
 *
 * Lookups on a shared source come from several threads at once: the ELF
 * source and the DWARF index compute what they need on first use under the
 * source's lock (and libdwarf's) and publish it; later lookups take no lock
 * (sym_elf.c, sym_dwarf.c).  A DWARF problem found while a unit is indexed
 * lazily is counted on the entry's context and not reported to the
 * conversion whose lookup met it.
 */
#include "core/pc_config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "symbolicate/pc_symcache.h"
#include "symbolicate/pc_sympersist.h"

#define SC_MAX_DIAGS 16

enum { SC_OPENING, SC_DONE, SC_DIRECT };

struct sc_id {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
};

struct sc_diag {
	enum profconv_severity sev;
	const char *kind; /* a warning's kind (static) */
	char msg[512];
};

struct sc_entry {
	struct sc_entry *next;
	char *path, *expect, *runtime; /* one allocation; expect and runtime may be "" */
	struct sc_id id, rt_id;
	int has_rt;
	int kallsyms; /* the host's kallsyms; path holds its cache key */
	int state;
	struct profconv_ctx *ctx; /* the source's own */
	struct pc_symsrc *src;	  /* NULL: not usable (why) */
	char why[512];
	struct sc_diag diags[SC_MAX_DIAGS];
	unsigned ndiags;
	struct pc_warn_kind warns[PC_MAX_WARN_KINDS];
	unsigned nwarns;
};

struct profconv_symcache {
	atomic_uint refs;
	pthread_mutex_t mu; /* guards the list and the entries' state */
	pthread_cond_t cv;  /* an entry's state left SC_OPENING */
	struct sc_entry *entries;
};

static void sc_free(struct profconv_symcache *c)
{
	struct sc_entry *e, *next;

	for (e = c->entries; e; e = next) {
		next = e->next;
		if (e->src) {
			e->src->shared = 0;
			pc_symsrc_close(e->src);
		}
		profconv_ctx_free(e->ctx);
		free(e->path);
		free(e);
	}
	pthread_cond_destroy(&c->cv);
	pthread_mutex_destroy(&c->mu);
	free(c);
}

static void sc_unref(void *p)
{
	struct profconv_symcache *c = p;

	if (c && atomic_fetch_sub(&c->refs, 1) == 1)
		sc_free(c);
}

int pc_symcache_attach(struct profconv_ctx *ctx, struct profconv_symcache *c)
{
	if (c)
		atomic_fetch_add(&c->refs, 1);
	if (ctx->symcache && ctx->symcache_release)
		ctx->symcache_release(ctx->symcache);
	ctx->symcache = c;
	ctx->symcache_release = c ? sc_unref : NULL;
	return 0;
}

static int get_id(const char *path, struct sc_id *id)
{
	struct stat st;

	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return -1;
	memset(id, 0, sizeof(*id));
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	id->size = st.st_size;
	id->mtime = st.st_mtim;
	return 0;
}

static int same_id(const struct sc_id *a, const struct sc_id *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec;
}

/* The opening's notes and warnings, kept for replay. */
static void record_diag(void *user, const struct profconv_diag *d)
{
	struct sc_entry *e = user;
	struct sc_diag *r;

	if (e->ndiags == SC_MAX_DIAGS || d->severity == PROFCONV_ERROR)
		return;
	r = &e->diags[e->ndiags++];
	r->sev = d->severity;
	r->kind = d->kind;
	pc_snprintf(r->msg, sizeof(r->msg), "%s", d->message);
}

/*
 * Open e's file on its own context, without the cache's lock (the entry is
 * the opener's until its state changes); its new state.
 */
static int open_entry(struct sc_entry *e, const struct profconv_ctx *asker)
{
	int err;

	e->ctx = profconv_ctx_new();
	if (!e->ctx)
		return SC_DIRECT;
	/* every note is recorded; the asker's verbosity decides at replay, and
	 * warnings are counted, not fatal: each asker's strictness decides */
	e->ctx->verbose = 1;
	e->ctx->mem_limit = asker->mem_limit;
	if (asker->opt.symbol_cache) {
		e->ctx->opt.symbol_cache = strdup(asker->opt.symbol_cache);
		if (!e->ctx->opt.symbol_cache) {
			profconv_ctx_free(e->ctx);
			e->ctx = NULL;
			return SC_DIRECT;
		}
	}
	profconv_set_diagnostics(e->ctx, record_diag, e);
	if (e->kallsyms)
		err = pc_symsrc_open_host_kallsyms(e->ctx, &e->src, e->why, sizeof(e->why));
	else
		err = pc_symsrc_open_elf_rt(e->ctx, e->path, e->expect[0] ? e->expect : NULL,
					    e->has_rt ? e->runtime : NULL, &e->src, e->why,
					    sizeof(e->why));
	profconv_set_diagnostics(e->ctx, NULL, NULL);
	if (err) {
		/* damaged (or out of memory): each asker opens it on its own */
		pc_symsrc_close(e->src);
		e->src = NULL;
		profconv_ctx_free(e->ctx);
		e->ctx = NULL;
		return SC_DIRECT;
	}
	memcpy(e->warns, e->ctx->warns, sizeof(e->warns));
	e->nwarns = e->ctx->nwarns;
	if (e->src)
		e->src->shared = 1;
	return SC_DONE;
}

/* The recorded diagnostics, on the asker's ctx; 0 or an error (strict). */
static int replay(struct profconv_ctx *ctx, const struct sc_entry *e)
{
	unsigned i, k;
	int err = 0;

	for (i = 0; i < e->ndiags && !err; i++) {
		const struct sc_diag *d = &e->diags[i];

		if (d->sev == PROFCONV_NOTE) {
			pc_note(ctx, "%s", d->msg);
			continue;
		}
		for (k = 0; k < e->nwarns; k++) {
			/* a kind recorded from pc_warn() calls elsewhere, passed on */
			const char *kind = e->warns[k].kind;

			if (d->kind && strcmp(kind, d->kind) == 0)
				err = pc_warn_n(ctx, kind, e->warns[k].count, NULL, "%s", d->msg);
		}
	}
	return err;
}

static struct sc_entry *new_entry(const char *path, const char *expect, const char *runtime)
{
	size_t lp = strlen(path) + 1, le = strlen(expect) + 1, lr = strlen(runtime) + 1;
	struct sc_entry *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->path = malloc(lp + le + lr);
	if (!e->path) {
		free(e);
		return NULL;
	}
	memcpy(e->path, path, lp);
	e->expect = e->path + lp;
	memcpy(e->expect, expect, le);
	e->runtime = e->expect + le;
	memcpy(e->runtime, runtime, lr);
	return e;
}

/*
 * With c's lock held and e found or (mine) just made: open it (mine) or
 * wait for its opener, then give its source.  Returns 1 when done (*err,
 * *out set), 0 when the asker must open the file on its own (lock released).
 */
static int take(struct profconv_ctx *ctx, struct profconv_symcache *c, struct sc_entry *e,
		int mine, const char *label, struct pc_symsrc **out, char *why, size_t whylen,
		int *err)
{
	int st;

	if (mine) {
		e->state = SC_OPENING;
		e->next = c->entries;
		c->entries = e;
		pthread_mutex_unlock(&c->mu);
		st = open_entry(e, ctx);
		pthread_mutex_lock(&c->mu);
		e->state = st;
		pthread_cond_broadcast(&c->cv);
	}
	while (e->state == SC_OPENING)
		pthread_cond_wait(&c->cv, &c->mu);
	st = e->state; /* final: what the entry holds is read-only from now on */
	pthread_mutex_unlock(&c->mu);
	if (st == SC_DIRECT)
		return 0;
	if (mine)
		pc_note(ctx, "symbol cache: opened %s", label);
	*err = replay(ctx, e);
	if (*err)
		return 1;
	if (why && whylen)
		pc_snprintf(why, whylen, "%s", e->why);
	*out = e->src;
	return 1;
}

int pc_symcache_open_elf(struct profconv_ctx *ctx, const char *path, const char *expect_build_id,
			 const char *runtime_path, struct pc_symsrc **out, char *why,
			 size_t whylen)
{
	struct profconv_symcache *c = ctx->symcache;
	const char *expect = expect_build_id ? expect_build_id : "";
	const char *rt = runtime_path ? runtime_path : "";
	struct sc_id id, rt_id;
	struct sc_entry *e;
	int has_rt = 0, opened = 0, err;

	*out = NULL;
	if (why && whylen)
		why[0] = 0;
	if (get_id(path, &id) != 0)
		goto direct;
	memset(&rt_id, 0, sizeof(rt_id));
	if (rt[0] && get_id(rt, &rt_id) == 0)
		has_rt = 1;
	pthread_mutex_lock(&c->mu);
	for (e = c->entries; e; e = e->next)
		if (!e->kallsyms && same_id(&e->id, &id) && e->has_rt == has_rt &&
		    (!has_rt || same_id(&e->rt_id, &rt_id)) && strcmp(e->path, path) == 0 &&
		    strcmp(e->expect, expect) == 0 && strcmp(e->runtime, has_rt ? rt : "") == 0)
			break;
	if (!e) {
		e = new_entry(path, expect, has_rt ? rt : "");
		if (!e) {
			pthread_mutex_unlock(&c->mu);
			goto direct;
		}
		e->id = id;
		e->rt_id = rt_id;
		e->has_rt = has_rt;
		opened = 1;
	}
	if (take(ctx, c, e, opened, path, out, why, whylen, &err))
		return err;
direct:
	return pc_symsrc_open_elf_rt(ctx, path, expect_build_id, runtime_path, out, why, whylen);
}

/*
 * The host's kallsyms, opened once for every conversion that asks with the
 * same kallsyms cache key (pc_sympersist.h: boot, release, modules, first
 * page); without a key (nothing to tell a change by), each opens its own.
 */
int pc_symcache_open_host_kallsyms(struct profconv_ctx *ctx, struct pc_symsrc **out, char *why,
				   size_t whylen)
{
	struct profconv_symcache *c = ctx->symcache;
	char key[1024];
	struct sc_entry *e;
	int err, mine = 0;

	*out = NULL;
	if (why && whylen)
		why[0] = 0;
	if (!c || !pc_kpersist_key(key, sizeof(key)))
		return pc_symsrc_open_host_kallsyms(ctx, out, why, whylen);
	pthread_mutex_lock(&c->mu);
	for (e = c->entries; e; e = e->next)
		if (e->kallsyms && strcmp(e->path, key) == 0)
			break;
	if (!e) {
		e = new_entry(key, "", "");
		if (!e) {
			pthread_mutex_unlock(&c->mu);
			return pc_symsrc_open_host_kallsyms(ctx, out, why, whylen);
		}
		e->kallsyms = 1;
		mine = 1;
	}
	if (take(ctx, c, e, mine, "kallsyms", out, why, whylen, &err))
		return err;
	return pc_symsrc_open_host_kallsyms(ctx, out, why, whylen);
}

/* --- the library API --- */

PROFCONV_API int profconv_symcache_new(struct profconv_symcache **out)
{
	struct profconv_symcache *c;

	if (!out)
		return PROFCONV_ERR_USAGE;
	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return PROFCONV_ERR_NOMEM;
	if (pthread_mutex_init(&c->mu, NULL) != 0) {
		free(c);
		return PROFCONV_ERR_NOMEM;
	}
	if (pthread_cond_init(&c->cv, NULL) != 0) {
		pthread_mutex_destroy(&c->mu);
		free(c);
		return PROFCONV_ERR_NOMEM;
	}
	atomic_init(&c->refs, 1);
	*out = c;
	return PROFCONV_OK;
}

PROFCONV_API void profconv_symcache_free(struct profconv_symcache *c)
{
	sc_unref(c);
}

PROFCONV_API int profconv_ctx_share_symbols(struct profconv_ctx *ctx, struct profconv_symcache *c)
{
	if (!ctx)
		return PROFCONV_ERR_USAGE;
	return pc_symcache_attach(ctx, c);
}
