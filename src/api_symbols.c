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
	const struct pc_model *m = &p->m;
	uint32_t i;

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
	struct sym_lib *l = find_lib(s, debug_name, breakpad_id);
	uint32_t k;
	int r;

	memset(out, 0, sizeof(*out));
	out->frames = s->frames;
	if (!l)
		return PROFCONV_OK;
	if (open_lib(s, l, 0))
		return PROFCONV_ERR_NOMEM;
	if (!l->sym)
		return PROFCONV_OK;
	out->lib_found = 1;
	memset(&s->res, 0, sizeof(s->res));
	r = pc_symsrc_lookup(l->sym, address, &s->res);
	if (r < 0) {
		r = s->ctx->status;
		pc_clear_error(s->ctx);
		return r == PROFCONV_ERR_NOMEM ? r : PROFCONV_OK;
	}
	if (r == 0 || s->res.nframes == 0)
		return PROFCONV_OK;
	out->start = s->res.sym_start;
	out->size = s->res.sym_size;
	out->nframes = s->res.nframes > PC_MAX_INLINE ? PC_MAX_INLINE : s->res.nframes;
	for (k = 0; k < out->nframes; k++) {
		s->frames[k].name = s->res.frames[k].name ? s->res.frames[k].name : "";
		s->frames[k].file = s->res.frames[k].file ? s->res.frames[k].file : "";
		s->frames[k].line = s->res.frames[k].line;
	}
	return PROFCONV_OK;
}

PROFCONV_API int profconv_symbols_code(struct profconv_symbols *s, const char *debug_name,
				       const char *breakpad_id, uint64_t address, uint64_t size,
				       struct profconv_code *out)
{
	struct sym_lib *l = find_lib(s, debug_name, breakpad_id);
	const unsigned char *bytes;
	uint64_t len = size, svma;
	unsigned machine;

	memset(out, 0, sizeof(*out));
	out->arch = "";
	if (!l)
		return PROFCONV_OK;
	if (open_lib(s, l, 1))
		return PROFCONV_ERR_NOMEM;
	if (!l->code || pc_elf_code(l->code, address, &bytes, &len, &svma, &machine))
		return PROFCONV_OK;
	out->bytes = bytes;
	out->len = (size_t)len;
	out->svma = svma;
	out->arch = machine == EM_X86_64    ? "x86_64"
		    : machine == EM_AARCH64 ? "aarch64"
		    : machine == EM_386	    ? "i686"
		    : machine == EM_ARM	    ? "arm"
					    : "";
	return PROFCONV_OK;
}
