/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * api_symbols.c - symbols on demand for a symbol server (profconv.h,
 * profconv_symbols_*): the libs of served profiles, each one's symbol
 * source and code file found by the conversion's own search
 * (pc_find_lib_source()) on first use and kept open.
 */
#include "core/pc_config.h"

#include <strings.h>

#include "model/pc_model.h"
#include "symbolicate/pc_symbolicate.h"
#include "symbolicate/pc_symsrc.h"

/* ELF e_machine values */
#define EM_386	   3
#define EM_ARM	   40
#define EM_X86_64  62
#define EM_AARCH64 183

struct sym_lib {
	char *name, *path, *debug_name, *breakpad_id, *code_id, *oscpu;
	int is_kernel;
	int sym_tried, code_tried;
	struct pc_symsrc *sym, *code;
};

struct profconv_symbols {
	struct profconv_ctx *ctx;
	struct sym_lib *libs;
	uint32_t nlibs, cap;
	struct profconv_symbol_frame frames[PC_MAX_INLINE];
	struct pc_sym_result res;
};

PROFCONV_API int profconv_symbols_new(struct profconv_ctx *ctx, struct profconv_symbols **out)
{
	if (!out)
		return ctx ? pc_fail(ctx, PROFCONV_ERR_USAGE, NULL, "profconv_symbols_new: out is NULL")
			   : PROFCONV_ERR_USAGE;
	*out = NULL;
	if (!ctx)
		return PROFCONV_ERR_USAGE;
	*out = pc_calloc(ctx, 1, sizeof(**out));
	if (!*out)
		return PROFCONV_ERR_NOMEM;
	(*out)->ctx = ctx;
	return PROFCONV_OK;
}

static void lib_free(struct profconv_ctx *ctx, struct sym_lib *l)
{
	pc_symsrc_close(l->sym);
	pc_symsrc_close(l->code);
	pc_free(ctx, l->name);
	pc_free(ctx, l->path);
	pc_free(ctx, l->debug_name);
	pc_free(ctx, l->breakpad_id);
	pc_free(ctx, l->code_id);
	pc_free(ctx, l->oscpu);
}

PROFCONV_API void profconv_symbols_free(struct profconv_symbols *s)
{
	uint32_t i;

	if (!s)
		return;
	for (i = 0; i < s->nlibs; i++)
		lib_free(s->ctx, &s->libs[i]);
	pc_free(s->ctx, s->libs);
	pc_free(s->ctx, s);
}

static struct sym_lib *find_lib(struct profconv_symbols *s, const char *debug_name,
				const char *breakpad_id)
{
	uint32_t i;

	if (!debug_name || !breakpad_id)
		return NULL;
	for (i = 0; i < s->nlibs; i++)
		if (strcmp(s->libs[i].debug_name, debug_name) == 0 &&
		    strcasecmp(s->libs[i].breakpad_id, breakpad_id) == 0)
			return &s->libs[i];
	return NULL;
}

static const char *mstr(const struct pc_model *m, uint32_t row)
{
	return row == PC_NONE || row >= m->strings.len ? "" : pc_str(m, row);
}

PROFCONV_API int profconv_symbols_add_libs(struct profconv_symbols *s,
					   const struct profconv_profile *p)
{
	const struct pc_model *m;
	uint32_t i;

	if (!s || !p)
		return s ? pc_fail(s->ctx, PROFCONV_ERR_USAGE, NULL,
				   "profconv_symbols_add_libs: the profile is NULL")
			 : PROFCONV_ERR_USAGE;
	m = &p->m;

	for (i = 0; i < m->libs.len; i++) {
		const struct pc_lib *l = &m->libs.rows[i];
		struct sym_lib *n;

		if (find_lib(s, mstr(m, l->debug_name), mstr(m, l->breakpad_id)))
			continue;
		if (pc_grow(s->ctx, (void **)&s->libs, sizeof(*s->libs), &s->cap,
			    (size_t)s->nlibs + 1))
			return PROFCONV_ERR_NOMEM;
		n = &s->libs[s->nlibs];
		memset(n, 0, sizeof(*n));
		n->name = pc_strdup(s->ctx, mstr(m, l->name));
		n->path = pc_strdup(s->ctx, mstr(m, l->path));
		n->debug_name = pc_strdup(s->ctx, mstr(m, l->debug_name));
		n->breakpad_id = pc_strdup(s->ctx, mstr(m, l->breakpad_id));
		n->code_id = pc_strdup(s->ctx, mstr(m, l->code_id));
		n->oscpu = pc_strdup(s->ctx, m->meta.oscpu ? m->meta.oscpu : "");
		n->is_kernel = l->is_kernel;
		if (!n->name || !n->path || !n->debug_name || !n->breakpad_id || !n->code_id ||
		    !n->oscpu) {
			lib_free(s->ctx, n);
			return PROFCONV_ERR_NOMEM;
		}
		s->nlibs++;
	}
	return PROFCONV_OK;
}

/* Open l's symbols (what 0) or code (what 1) once; 0 or NOMEM. */
static int open_lib(struct profconv_symbols *s, struct sym_lib *l, int what)
{
	struct pc_libid id;
	struct pc_symsrc **src = what ? &l->code : &l->sym;
	int *tried = what ? &l->code_tried : &l->sym_tried;
	char why[2048];
	int err;

	if (*tried)
		return 0;
	*tried = 1;
	memset(&id, 0, sizeof(id));
	id.name = l->name;
	id.path = l->path;
	id.build_id = l->code_id;
	id.debug_id = l->breakpad_id;
	id.oscpu = l->oscpu[0] ? l->oscpu : NULL;
	id.is_kernel = l->is_kernel;
	why[0] = 0;
	err = pc_find_lib_source(s->ctx, &id, what, src, why, sizeof(why));
	if (err == PROFCONV_ERR_NOMEM)
		return err;
	if (err) {
		/* a damaged file is passed over, as in conversion */
		pc_clear_error(s->ctx);
		*src = NULL;
	}
	if (*src)
		pc_note(s->ctx, "%s: %s from %s", l->debug_name, what ? "code" : "symbols",
			(*src)->path);
	else
		pc_note(s->ctx, "%s: no %s found; tried: %s", l->debug_name,
			what ? "code file" : "symbols", why);
	return 0;
}

PROFCONV_API int profconv_symbols_lookup(struct profconv_symbols *s, const char *debug_name,
					 const char *breakpad_id, uint64_t address,
					 struct profconv_symbol *out)
{
	struct profconv_symbol v, *o = &v;
	struct sym_lib *l;
	uint32_t k;
	int r;

	if (!s || !debug_name || !breakpad_id || !out)
		return PROFCONV_ERR_USAGE;
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
	o->frames = s->frames;
	l = find_lib(s, debug_name, breakpad_id);
	if (!l)
		return pc_api_fill(out, &v, sizeof(v), sizeof(v));
	if (open_lib(s, l, 0))
		return PROFCONV_ERR_NOMEM;
	if (!l->sym)
		return pc_api_fill(out, &v, sizeof(v), sizeof(v));
	o->lib_found = 1;
	memset(&s->res, 0, sizeof(s->res));
	r = pc_symsrc_lookup(l->sym, address, &s->res);
	if (r < 0) {
		r = s->ctx->status;
		pc_clear_error(s->ctx);
		if (r == PROFCONV_ERR_NOMEM)
			return r;
		return pc_api_fill(out, &v, sizeof(v), sizeof(v));
	}
	if (r == 0 || s->res.nframes == 0)
		return pc_api_fill(out, &v, sizeof(v), sizeof(v));
	o->start = s->res.sym_start;
	o->length = s->res.sym_size;
	o->nframes = s->res.nframes > PC_MAX_INLINE ? PC_MAX_INLINE : s->res.nframes;
	for (k = 0; k < o->nframes; k++) {
		s->frames[k].name = s->res.frames[k].name ? s->res.frames[k].name : "";
		s->frames[k].file = s->res.frames[k].file ? s->res.frames[k].file : "";
		s->frames[k].line = s->res.frames[k].line;
	}
	return pc_api_fill(out, &v, sizeof(v), sizeof(v));
}

PROFCONV_API int profconv_symbols_code(struct profconv_symbols *s, const char *debug_name,
				       const char *breakpad_id, uint64_t address, uint64_t size,
				       struct profconv_code *out)
{
	struct profconv_code v, *o = &v;
	struct sym_lib *l;
	const unsigned char *bytes;
	uint64_t len = size, svma;
	unsigned machine;

	if (!s || !debug_name || !breakpad_id || !out)
		return PROFCONV_ERR_USAGE;
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
	o->arch = "";
	l = find_lib(s, debug_name, breakpad_id);
	if (!l)
		return pc_api_fill(out, &v, sizeof(v), sizeof(v));
	if (open_lib(s, l, 1))
		return PROFCONV_ERR_NOMEM;
	if (!l->code || pc_elf_code(l->code, address, &bytes, &len, &svma, &machine))
		return pc_api_fill(out, &v, sizeof(v), sizeof(v));
	o->bytes = bytes;
	o->len = (size_t)len;
	o->svma = svma;
	o->arch = machine == EM_X86_64    ? "x86_64"
		    : machine == EM_AARCH64 ? "aarch64"
		    : machine == EM_386	    ? "i686"
		    : machine == EM_ARM	    ? "arm"
					    : "";
	return pc_api_fill(out, &v, sizeof(v), sizeof(v));
}
