/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * model.c - the columnar model: creation, interning and per-thread tables.
 *
 * Every interned table follows one pattern: hash the key, look it up in the
 * table's pc_itab (which compares against the table's own columns), and on a
 * miss append one row to every column and insert the row into the index.
 * Columns grow together (pc_grow on each), so a failure leaves the table
 * consistent: the row count is only bumped after every column has room.
 */
#include "model/pc_model.h"

#include <pthread.h>
#include <stdlib.h>

#define STR_CHUNK (1u << 20)

/* Grow a column to hold len+1 entries, keeping every column's capacity in step. */
#define GROW_COL(m, col, capv, newcap)                                                             \
	do {                                                                                       \
		if ((newcap) <= (capv))                                                            \
			return pc_fail((m)->ctx, PROFCONV_ERR_LIMIT, NULL, "table over 2^32 rows"); \
		void *pc_p_ = pc_realloc((m)->ctx, (col), (size_t)(newcap) * sizeof(*(col)));      \
		if (!pc_p_)                                                                        \
			return PROFCONV_ERR_NOMEM;                                                 \
		(col) = pc_p_;                                                                     \
	} while (0)

/* Doubled capacity; saturates below 2^32 (the GROW_COL callers then fail). */
static uint32_t next_cap(uint32_t cap)
{
	if (cap >= 0x80000000u)
		return UINT32_MAX;
	return cap ? cap * 2 : 64;
}

struct pc_model *pc_model_new(struct profconv_ctx *ctx)
{
	struct pc_model *m = pc_calloc(ctx, 1, sizeof(*m));

	if (!m)
		return NULL;
	m->ctx = ctx;
	m->meta.profiling_start = PC_NO_TIME;
	m->meta.profiling_end = PC_NO_TIME;
	m->meta.interval_ns = 1000000;
	m->meta.more = PC_NONE;
	if (pc_model_add_category(m, "Other", "grey") == PC_NO_CATEGORY) {
		pc_model_free(m);
		return NULL;
	}
	/* String 0 is the empty string, so "" is always available. */
	if (pc_str_intern(m, "", 0) == PC_NONE) {
		pc_model_free(m);
		return NULL;
	}
	return m;
}

static void free_thread(struct profconv_ctx *ctx, struct pc_thread *t)
{
	pc_free(ctx, t->samples.stack);
	pc_free(ctx, t->samples.time);
	pc_free(ctx, t->samples.weight);
	pc_free(ctx, t->samples.cpu_delta);
	pc_free(ctx, t->samples.event_delay);
	pc_free(ctx, t->samples.context_set);
	pc_free(ctx, t->markers.payload);
	pc_free(ctx, t->markers.cause_stack);
	pc_free(ctx, t->markers.cause_time);
	pc_free(ctx, t->markers.cause_tid);
	pc_free(ctx, t->markers.context_set);
	pc_free(ctx, t->paused);
	pc_free(ctx, t->markers.name);
	pc_free(ctx, t->markers.start);
	pc_free(ctx, t->markers.end);
	pc_free(ctx, t->markers.phase);
	pc_free(ctx, t->markers.category);
	pc_free(ctx, t);
}

void pc_model_free(struct pc_model *m)
{
	struct profconv_ctx *ctx;
	uint32_t i;

	if (!m)
		return;
	ctx = m->ctx;
	pc_strtab_free(ctx, &m->strings);
	pc_model_free_tables(m);
	for (i = 0; i < m->ncategories; i++)
		pc_free(ctx, m->categories[i].subcategories);
	pc_free(ctx, m->categories);

	pc_free(ctx, m->libs.rows);

	pc_free(ctx, m->resources.name);
	pc_free(ctx, m->resources.host);
	pc_free(ctx, m->resources.type);
	pc_free(ctx, m->resources.lib);
	pc_itab_free(ctx, &m->resources.index);

	pc_free(ctx, m->funcs.name);
	pc_free(ctx, m->funcs.resource);
	pc_free(ctx, m->funcs.source);
	pc_free(ctx, m->funcs.line);
	pc_free(ctx, m->funcs.column);
	pc_free(ctx, m->funcs.is_js);
	pc_free(ctx, m->funcs.relevant_for_js);
	pc_itab_free(ctx, &m->funcs.index);

	pc_free(ctx, m->native_symbols.lib);
	pc_free(ctx, m->native_symbols.address);
	pc_free(ctx, m->native_symbols.name);
	pc_free(ctx, m->native_symbols.size);
	pc_itab_free(ctx, &m->native_symbols.index);

	pc_free(ctx, m->sources.filename);
	pc_itab_free(ctx, &m->sources.index);
	pc_free(ctx, m->sources.id);
	pc_free(ctx, m->sources.start_line);
	pc_free(ctx, m->sources.start_column);
	pc_free(ctx, m->sources.source_map_url);
	pc_free(ctx, m->sources.content);

	pc_free(ctx, m->frames.address);
	pc_free(ctx, m->frames.lib);
	pc_free(ctx, m->frames.func);
	pc_free(ctx, m->frames.native_symbol);
	pc_free(ctx, m->frames.line);
	pc_free(ctx, m->frames.column);
	pc_free(ctx, m->frames.category);
	pc_free(ctx, m->frames.subcategory);
	pc_free(ctx, m->frames.inline_depth);
	pc_itab_free(ctx, &m->frames.index);
	pc_free(ctx, m->frames.inner_window_id);

	pc_free(ctx, m->stacks.frame);
	pc_free(ctx, m->stacks.prefix);
	pc_free(ctx, m->stacks.slots);

	for (i = 0; i < m->nthreads; i++)
		free_thread(ctx, m->threads[i]);
	pc_free(ctx, m->threads);
	pc_free(ctx, m->func_map);
	for (i = 0; i < m->nkept; i++)
		pc_free(ctx, m->kept[i]);
	pc_free(ctx, m->kept);

	pc_free(ctx, m->meta.product);
	pc_free(ctx, m->meta.imported_from);
	pc_free(ctx, m);
}

int pc_meta_set(struct pc_model *m, char **field, const char *s)
{
	char *d = NULL;

	if (s) {
		d = pc_strdup(m->ctx, s);
		if (!d)
			return PROFCONV_ERR_NOMEM;
	}
	pc_free(m->ctx, *field);
	*field = d;
	return 0;
}

/* --- strings --- */

struct str_key {
	const char *s;
	size_t len;
};

/* The string index's hash: pc_hash_mem(), folded to 32 bits. */
static inline uint32_t str_hash(const char *s, size_t len)
{
	uint64_t h = pc_hash_mem(s, len);

	return (uint32_t)(h ^ h >> 32);
}

static int str_eq(const void *table, uint32_t row, const void *key)
{
	const struct pc_strtab *t = table;
	const struct str_key *k = key;

	return t->lens[row] == k->len && memcmp(t->ptr[row], k->s, k->len) == 0;
}

/* Room for len + 1 bytes at the chunk's end (a new chunk when needed): where, or NULL. */
static char *str_room(struct profconv_ctx *ctx, struct pc_strtab *t, size_t len)
{
	if (!t->chunk || t->chunk_size - t->chunk_used < len + 1) {
		size_t size = len + 1 > STR_CHUNK ? len + 1 : STR_CHUNK;

		if (pc_grow(ctx, (void **)&t->chunks, sizeof(*t->chunks), &t->chunks_cap,
			    (size_t)t->nchunks + 1))
			return NULL;
		t->chunk = pc_alloc(ctx, size);
		if (!t->chunk)
			return NULL;
		t->chunks[t->nchunks++] = t->chunk;
		t->chunk_size = size;
		t->chunk_used = 0;
	}
	return t->chunk + t->chunk_used;
}

static char *str_store(struct profconv_ctx *ctx, struct pc_strtab *t, const char *s, size_t len)
{
	char *p = str_room(ctx, t, len);

	if (!p)
		return NULL;
	memcpy(p, s, len);
	p[len] = 0;
	t->chunk_used += len + 1;
	return p;
}

static inline int starts_0x(const char *s, size_t len)
{
	return len > 2 && s[0] == '0' && s[1] == 'x';
}

/*
 * Enter the rows pc_str_add_hex() left out in the index (before a lookup
 * of a string starting with "0x"): they are distinct and equal no indexed
 * row, so each is inserted without a lookup.  0 or error.
 */
static int str_index_pending(struct profconv_ctx *ctx, struct pc_strtab *t)
{
	uint32_t i;

	if (!t->npending)
		return 0;
	if (pc_itab_reserve(ctx, &t->index, t->npending))
		return PROFCONV_ERR_NOMEM;
	for (i = t->pending_from; i < t->len; i++) {
		if (!starts_0x(t->ptr[i], t->lens[i]))
			continue;
		if (pc_itab_insert(ctx, &t->index, PC_NONE,
				   str_hash(t->ptr[i], t->lens[i]), i))
			return ctx->status ? ctx->status : PROFCONV_ERR_NOMEM;
	}
	t->npending = 0;
	return 0;
}

/* Room for one more row in ptr and lens: 0 or error. */
static int str_reserve(struct profconv_ctx *ctx, struct pc_strtab *t)
{
	uint32_t cap;

	if (t->len < t->cap)
		return 0;
	cap = t->cap;
	if (pc_grow(ctx, (void **)&t->ptr, sizeof(*t->ptr), &cap, (size_t)t->len + 1))
		return PROFCONV_ERR_NOMEM;
	cap = t->cap;
	if (pc_grow(ctx, (void **)&t->lens, sizeof(*t->lens), &cap, (size_t)t->len + 1))
		return PROFCONV_ERR_NOMEM;
	t->cap = cap;
	return 0;
}

uint32_t pc_strtab_intern(struct profconv_ctx *ctx, struct pc_strtab *t, const char *s, size_t len)
{
	struct str_key k = { s, len };
	uint32_t h, slot, row;
	char *p;

	if (len > UINT32_MAX - 1) {
		pc_fail(ctx, PROFCONV_ERR_LIMIT, NULL, "string of %zu bytes", len);
		return PC_NONE;
	}
	if (starts_0x(s, len) && t->npending && str_index_pending(ctx, t))
		return PC_NONE;
	h = str_hash(s, len);
	row = pc_itab_find(&t->index, h, str_eq, t, &k, &slot);
	if (row != PC_NONE)
		return row;
	if (t->len == t->cap) {
		uint32_t cap = t->cap;

		if (pc_grow(ctx, (void **)&t->ptr, sizeof(*t->ptr), &cap, (size_t)t->len + 1))
			return PC_NONE;
		cap = t->cap;
		if (pc_grow(ctx, (void **)&t->lens, sizeof(*t->lens), &cap, (size_t)t->len + 1))
			return PC_NONE;
		t->cap = cap;
	}
	p = str_store(ctx, t, s, len);
	if (!p)
		return PC_NONE;
	row = t->len;
	t->ptr[row] = p;
	t->lens[row] = (uint32_t)len;
	if (pc_itab_insert(ctx, &t->index, slot, h, row))
		return PC_NONE;
	t->len++;
	if (starts_0x(s, len))
		t->hex_indexed++;
	return row;
}

void pc_strtab_free(struct profconv_ctx *ctx, struct pc_strtab *t)
{
	uint32_t i;

	for (i = 0; i < t->nchunks; i++)
		pc_free(ctx, t->chunks[i]);
	pc_free(ctx, t->chunks);
	pc_free(ctx, t->ptr);
	pc_free(ctx, t->lens);
	pc_itab_free(ctx, &t->index);
	memset(t, 0, sizeof(*t));
}

uint32_t pc_str_intern(struct pc_model *m, const char *s, size_t len)
{
	return pc_strtab_intern(m->ctx, &m->strings, s, len);
}

uint32_t pc_str_intern_z(struct pc_model *m, const char *s)
{
	return pc_str_intern(m, s, strlen(s));
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/*
 * The 8 hex digits of v as 8 bytes to store, most significant first (the
 * lowest byte of the result): each nibble spread to a byte, '0' added, and
 * 'a' - '0' - 10 more for those >= 10 (nibble + 6 carries into bit 4).
 */
static inline uint64_t hex8(uint32_t v)
{
	uint64_t x = v, alpha;

	x = (x | x << 16) & 0x0000ffff0000ffffULL;
	x = (x | x << 8) & 0x00ff00ff00ff00ffULL;
	x = (x | x << 4) & 0x0f0f0f0f0f0f0f0fULL;
	alpha = ((x + 0x0606060606060606ULL) >> 4) & 0x0101010101010101ULL;
	x += 0x3030303030303030ULL + alpha * ('a' - '0' - 10);
	return __builtin_bswap64(x);
}
#endif

/* "0x" and the n hex digits of v (no leading zeros), NUL-terminated, at p (24 bytes of room). */
static void put_hex(char *p, uint64_t v, size_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t w;

	p[0] = '0';
	p[1] = 'x';
	if (n <= 8) {
		/* the leading zero digits are the low bytes: shifted out, and
		 * zero bytes in, the first of them the NUL */
		w = hex8((uint32_t)v) >> (8 * (8 - n));
		memcpy(p + 2, &w, 8);
		p[2 + n] = 0;
	} else {
		w = hex8((uint32_t)(v >> 32)) >> (8 * (16 - n));
		memcpy(p + 2, &w, 8);
		w = hex8((uint32_t)v);
		memcpy(p + 2 + (n - 8), &w, 8);
		p[2 + n] = 0;
	}
#else
	(void)n;
	p[0] = '0';
	p[1] = 'x';
	pc_fmt_hex(p + 2, v);
#endif
}

uint32_t pc_str_add_hex(struct pc_model *m, uint64_t v)
{
	struct pc_strtab *t = &m->strings;
	size_t n = v ? (size_t)(67 - __builtin_clzll(v)) / 4 : 1;
	char *p;
	uint32_t row;

	if (t->hex_indexed) {
		char buf[24];

		put_hex(buf, v, n);
		return pc_strtab_intern(m->ctx, t, buf, 2 + n);
	}
	if (str_reserve(m->ctx, t))
		return PC_NONE;
	p = str_room(m->ctx, t, 23);
	if (!p)
		return PC_NONE;
	put_hex(p, v, n);
	t->chunk_used += 2 + n + 1;
	row = t->len++;
	t->ptr[row] = p;
	t->lens[row] = (uint32_t)(2 + n);
	if (!t->npending++)
		t->pending_from = row;
	return row;
}

/* --- categories and libs --- */

uint16_t pc_model_add_category(struct pc_model *m, const char *name, const char *color)
{
	struct pc_category *c;

	if (m->ncategories >= PC_NO_CATEGORY - 1) {
		pc_fail(m->ctx, PROFCONV_ERR_LIMIT, NULL, "more than %u categories",
			PC_NO_CATEGORY - 1);
		return PC_NO_CATEGORY;
	}
	if (pc_grow(m->ctx, (void **)&m->categories, sizeof(*m->categories), &m->categories_cap,
		    (size_t)m->ncategories + 1))
		return PC_NO_CATEGORY;
	c = &m->categories[m->ncategories];
	memset(c, 0, sizeof(*c));
	c->name = name;
	c->color = color;
	if (pc_model_add_subcategory(m, (uint16_t)m->ncategories, "Other") == PC_NO_CATEGORY)
		return PC_NO_CATEGORY;
	return (uint16_t)m->ncategories++;
}

uint16_t pc_model_add_subcategory(struct pc_model *m, uint16_t cat, const char *name)
{
	struct pc_category *c = &m->categories[cat];

	if (c->nsub >= PC_NO_CATEGORY - 1) {
		pc_fail(m->ctx, PROFCONV_ERR_LIMIT, NULL, "more than %u subcategories",
			PC_NO_CATEGORY - 1);
		return PC_NO_CATEGORY;
	}
	if (pc_grow(m->ctx, (void **)&c->subcategories, sizeof(*c->subcategories), &c->sub_cap,
		    (size_t)c->nsub + 1))
		return PC_NO_CATEGORY;
	c->subcategories[c->nsub] = name;
	return (uint16_t)c->nsub++;
}

void pc_model_clear_categories(struct pc_model *m)
{
	uint32_t i;

	for (i = 0; i < m->ncategories; i++)
		pc_free(m->ctx, m->categories[i].subcategories);
	m->ncategories = 0;
}

uint16_t pc_model_find_category(const struct pc_model *m, const char *name)
{
	uint32_t i;

	for (i = 0; i < m->ncategories; i++)
		if (strcmp(m->categories[i].name, name) == 0)
			return (uint16_t)i;
	return PC_NO_CATEGORY;
}

uint32_t pc_lib_add(struct pc_model *m, const struct pc_lib *lib)
{
	struct pc_lib_table *t = &m->libs;

	if (pc_grow(m->ctx, (void **)&t->rows, sizeof(*t->rows), &t->cap, (size_t)t->len + 1))
		return PC_NONE;
	t->rows[t->len] = *lib;
	return t->len++;
}

/* --- resources --- */

struct res_key {
	uint32_t name, host, lib;
	uint8_t type;
};

static int res_eq(const void *table, uint32_t row, const void *key)
{
	const struct pc_resource_table *t = table;
	const struct res_key *k = key;

	return t->name[row] == k->name && t->host[row] == k->host && t->type[row] == k->type &&
	       t->lib[row] == k->lib;
}

static int res_reserve(struct pc_model *m)
{
	struct pc_resource_table *t = &m->resources;
	uint32_t cap;

	if (t->len < t->cap)
		return 0;
	cap = next_cap(t->cap);
	GROW_COL(m, t->name, t->cap, cap);
	GROW_COL(m, t->host, t->cap, cap);
	GROW_COL(m, t->type, t->cap, cap);
	GROW_COL(m, t->lib, t->cap, cap);
	t->cap = cap;
	return 0;
}

static uint32_t res_hash(const struct res_key *k)
{
	return (uint32_t)pc_hash64(((uint64_t)k->name << 32 | k->host) ^
				   pc_hash64((uint64_t)k->lib << 8 | k->type));
}

/* Grow, write row k at the end, index it at slot when index, count it: its row or PC_NONE. */
static uint32_t res_push_row(struct pc_model *m, const struct res_key *k, uint32_t slot,
			     uint32_t h, int index)
{
	struct pc_resource_table *t = &m->resources;
	uint32_t row;

	if (res_reserve(m))
		return PC_NONE;
	row = t->len;
	t->name[row] = k->name;
	t->host[row] = k->host;
	t->type[row] = k->type;
	t->lib[row] = k->lib;
	if (index && pc_itab_insert(m->ctx, &t->index, slot, h, row))
		return PC_NONE;
	t->len++;
	return row;
}

uint32_t pc_resource_intern(struct pc_model *m, uint32_t name, uint32_t host, uint8_t type,
			    uint32_t lib)
{
	struct pc_resource_table *t = &m->resources;
	struct res_key k = { name, host, lib, type };
	uint32_t h, slot, row;

	h = res_hash(&k);
	row = pc_itab_find(&t->index, h, res_eq, t, &k, &slot);
	if (row != PC_NONE)
		return row;
	return res_push_row(m, &k, slot, h, 1);
}

/* --- funcs --- */

static int func_eq(const void *table, uint32_t row, const void *key)
{
	const struct pc_func_table *t = table;
	const struct pc_func_key *k = key;

	return t->name[row] == k->name && t->resource[row] == k->resource &&
	       t->source[row] == k->source && t->line[row] == k->line &&
	       t->column[row] == k->column && t->is_js[row] == k->is_js &&
	       t->relevant_for_js[row] == k->relevant_for_js;
}

static int func_reserve(struct pc_model *m)
{
	struct pc_func_table *t = &m->funcs;
	uint32_t cap;

	if (t->len < t->cap)
		return 0;
	cap = next_cap(t->cap);
	GROW_COL(m, t->name, t->cap, cap);
	GROW_COL(m, t->resource, t->cap, cap);
	GROW_COL(m, t->source, t->cap, cap);
	GROW_COL(m, t->line, t->cap, cap);
	GROW_COL(m, t->column, t->cap, cap);
	GROW_COL(m, t->is_js, t->cap, cap);
	GROW_COL(m, t->relevant_for_js, t->cap, cap);
	t->cap = cap;
	return 0;
}

static uint32_t func_hash(const struct pc_func_key *k)
{
	uint64_t a, b;

	a = (uint64_t)k->name << 32 | k->resource;
	b = ((uint64_t)k->source << 32 | k->line) ^ ((uint64_t)k->column << 2) ^
	    (uint64_t)(k->is_js | k->relevant_for_js << 1);
	return (uint32_t)pc_hash64(a ^ pc_hash64(b));
}

/*
 * Grow, write row k at the end, index it at slot when index > 0, count it:
 * its row or PC_NONE.  index < 0: not looked for (pc_func_add_new()), so
 * left past t->indexed.
 */
static uint32_t func_push_row(struct pc_model *m, const struct pc_func_key *k, uint32_t slot,
			      uint32_t h, int index)
{
	struct pc_func_table *t = &m->funcs;
	uint32_t row;

	if (func_reserve(m))
		return PC_NONE;
	row = t->len;
	t->name[row] = k->name;
	t->resource[row] = k->resource;
	t->source[row] = k->source;
	t->line[row] = k->line;
	t->column[row] = k->column;
	t->is_js[row] = k->is_js;
	t->relevant_for_js[row] = k->relevant_for_js;
	if (index > 0 && pc_itab_insert(m->ctx, &t->index, slot, h, row))
		return PC_NONE;
	t->len++;
	if (index >= 0 && t->indexed == row)
		t->indexed = t->len;
	return row;
}

/* Row i's key. */
static void func_key_of(const struct pc_func_table *t, uint32_t i, struct pc_func_key *k)
{
	memset(k, 0, sizeof(*k));
	k->name = t->name[i];
	k->resource = t->resource[i];
	k->source = t->source[i];
	k->line = t->line[i];
	k->column = t->column[i];
	k->is_js = t->is_js[i];
	k->relevant_for_js = t->relevant_for_js[i];
}

/*
 * Enter the rows pc_func_add_new() left out of the index, as interning
 * them in row order would have (a row equal to an earlier one is not
 * entered): before any lookup.  0 or error (ctx set).
 */
static int func_index_sync(struct pc_model *m)
{
	struct pc_func_table *t = &m->funcs;
	uint32_t i;

	if (t->indexed >= t->len)
		return 0;
	if (pc_itab_reserve(m->ctx, &t->index, t->len - t->indexed))
		return PROFCONV_ERR_NOMEM;
	/* (a row a lookup added meanwhile finds itself) */
	for (i = t->indexed; i < t->len; i++) {
		struct pc_func_key k;
		uint32_t h, slot;

		func_key_of(t, i, &k);
		h = func_hash(&k);
		if (pc_itab_find(&t->index, h, func_eq, t, &k, &slot) == PC_NONE &&
		    pc_itab_insert(m->ctx, &t->index, slot, h, i))
			return m->ctx->status ? m->ctx->status : PROFCONV_ERR_NOMEM;
	}
	t->indexed = t->len;
	return 0;
}

uint32_t pc_func_add_new(struct pc_model *m, const struct pc_func_key *k)
{
	struct pc_func_table *t = &m->funcs;
	uint32_t row = func_push_row(m, k, PC_NONE, 0, -1);

	if (row != PC_NONE && (t->indexed == row || k->name > t->pending_name_max))
		t->pending_name_max = k->name;
	return row;
}

/* Before a lookup of k: the rows it could equal in the index.  0 or error. */
static inline int func_index_for(struct pc_model *m, const struct pc_func_key *k)
{
	const struct pc_func_table *t = &m->funcs;

	return t->indexed < t->len && k->name <= t->pending_name_max ? func_index_sync(m) : 0;
}

uint32_t pc_func_intern(struct pc_model *m, const struct pc_func_key *k)
{
	struct pc_func_table *t = &m->funcs;
	uint32_t h, slot, row;

	if (func_index_for(m, k))
		return PC_NONE;
	h = func_hash(k);
	row = pc_itab_find(&t->index, h, func_eq, t, k, &slot);
	if (row != PC_NONE)
		return row;
	return func_push_row(m, k, slot, h, 1);
}

/* --- native symbols and sources --- */

struct nsym_key {
	uint64_t address;
	uint32_t lib;
};

static int nsym_eq(const void *table, uint32_t row, const void *key)
{
	const struct pc_native_symbol_table *t = table;
	const struct nsym_key *k = key;

	return t->address[row] == k->address && t->lib[row] == k->lib;
}

static uint32_t nsym_hash(const struct nsym_key *k)
{
	return (uint32_t)pc_hash64(k->address ^ pc_hash64(k->lib));
}

static int nsym_reserve(struct pc_model *m)
{
	struct pc_native_symbol_table *t = &m->native_symbols;
	uint32_t cap;

	if (t->len < t->cap)
		return 0;
	cap = next_cap(t->cap);
	GROW_COL(m, t->lib, t->cap, cap);
	GROW_COL(m, t->address, t->cap, cap);
	GROW_COL(m, t->name, t->cap, cap);
	GROW_COL(m, t->size, t->cap, cap);
	t->cap = cap;
	return 0;
}

/* Grow, write row (k, name, size) at the end, index it at slot when index, count it. */
static uint32_t nsym_push_row(struct pc_model *m, const struct nsym_key *k, uint32_t name,
			      uint32_t size, uint32_t slot, uint32_t h, int index)
{
	struct pc_native_symbol_table *t = &m->native_symbols;
	uint32_t row;

	if (nsym_reserve(m))
		return PC_NONE;
	row = t->len;
	t->lib[row] = k->lib;
	t->address[row] = k->address;
	t->name[row] = name;
	t->size[row] = size;
	if (index && pc_itab_insert(m->ctx, &t->index, slot, h, row))
		return PC_NONE;
	t->len++;
	return row;
}

uint32_t pc_native_symbol_intern(struct pc_model *m, uint32_t lib, uint64_t address, uint32_t name,
				 uint32_t size)
{
	struct pc_native_symbol_table *t = &m->native_symbols;
	struct nsym_key k = { address, lib };
	uint32_t h, slot, row;

	h = nsym_hash(&k);
	row = pc_itab_find(&t->index, h, nsym_eq, t, &k, &slot);
	if (row != PC_NONE)
		return row;
	return nsym_push_row(m, &k, name, size, slot, h, 1);
}

static int source_eq(const void *table, uint32_t row, const void *key)
{
	const struct pc_source_table *t = table;

	return t->filename[row] == *(const uint32_t *)key;
}

static int source_set_ext(struct pc_model *m, uint32_t row, const struct pc_source_row *r);

/* As res_push_row() for sources: filename, and r's other columns unless r is NULL. */
static uint32_t source_push_row(struct pc_model *m, uint32_t filename,
				const struct pc_source_row *r, uint32_t slot, uint32_t h, int index)
{
	struct pc_source_table *t = &m->sources;
	uint32_t row;

	if (pc_grow(m->ctx, (void **)&t->filename, sizeof(*t->filename), &t->cap,
		    (size_t)t->len + 1))
		return PC_NONE;
	row = t->len;
	t->filename[row] = filename;
	if (r && source_set_ext(m, row, r))
		return PC_NONE;
	if (index && pc_itab_insert(m->ctx, &t->index, slot, h, row))
		return PC_NONE;
	t->len++;
	return row;
}

uint32_t pc_source_intern(struct pc_model *m, uint32_t filename)
{
	struct pc_source_table *t = &m->sources;
	uint32_t h, slot, row;

	h = (uint32_t)pc_hash64(filename);
	row = pc_itab_find(&t->index, h, source_eq, t, &filename, &slot);
	if (row != PC_NONE)
		return row;
	return source_push_row(m, filename, NULL, slot, h, 1);
}

/* --- frames --- */

static int frame_eq(const void *table, uint32_t row, const void *key)
{
	const struct pc_frame_table *t = table;
	const struct pc_frame_key *k = key;

	return t->address[row] == k->address && t->func[row] == k->func && t->lib[row] == k->lib &&
	       t->native_symbol[row] == k->native_symbol && t->line[row] == k->line &&
	       t->column[row] == k->column && t->category[row] == k->category &&
	       t->subcategory[row] == k->subcategory && t->inline_depth[row] == k->inline_depth;
}

static int frame_reserve(struct pc_model *m)
{
	struct pc_frame_table *t = &m->frames;
	uint32_t cap;

	if (t->len < t->cap)
		return 0;
	cap = next_cap(t->cap);
	GROW_COL(m, t->address, t->cap, cap);
	GROW_COL(m, t->lib, t->cap, cap);
	GROW_COL(m, t->func, t->cap, cap);
	GROW_COL(m, t->native_symbol, t->cap, cap);
	GROW_COL(m, t->line, t->cap, cap);
	GROW_COL(m, t->column, t->cap, cap);
	GROW_COL(m, t->category, t->cap, cap);
	GROW_COL(m, t->subcategory, t->cap, cap);
	GROW_COL(m, t->inline_depth, t->cap, cap);
	t->cap = cap;
	return 0;
}

static uint32_t frame_hash(const struct pc_frame_key *k)
{
	uint64_t a;

	a = pc_hash64(k->address) ^ ((uint64_t)k->func << 32 | k->lib);
	a = pc_hash64(a) ^ ((uint64_t)k->native_symbol << 32 | k->line);
	a = pc_hash64(a) ^ ((uint64_t)k->column << 32 | (uint64_t)k->category << 16 |
			    k->subcategory) ^ ((uint64_t)k->inline_depth << 48);
	return (uint32_t)pc_hash64(a);
}

static int set_inner_window_id(struct pc_model *m, uint32_t row, uint64_t iw);

/* As func_push_row() for frames; also the innerWindowID *iw unless iw is NULL. */
static uint32_t frame_push_row(struct pc_model *m, const struct pc_frame_key *k,
			       const uint64_t *iw, uint32_t slot, uint32_t h, int index)
{
	struct pc_frame_table *t = &m->frames;
	uint32_t row;

	if (frame_reserve(m))
		return PC_NONE;
	row = t->len;
	t->address[row] = k->address;
	t->lib[row] = k->lib;
	t->func[row] = k->func;
	t->native_symbol[row] = k->native_symbol;
	t->line[row] = k->line;
	t->column[row] = k->column;
	t->category[row] = k->category;
	t->subcategory[row] = k->subcategory;
	t->inline_depth[row] = k->inline_depth;
	if (iw && set_inner_window_id(m, row, *iw))
		return PC_NONE;
	if (index > 0 && pc_itab_insert(m->ctx, &t->index, slot, h, row))
		return PC_NONE;
	t->len++;
	if (index >= 0 && t->indexed == row)
		t->indexed = t->len;
	if (m->frame_hook)
		m->frame_hook(m->frame_hook_user, m, row);
	return row;
}

/*
 * The formats carry a frame's lib-relative address as an integer that
 * fits int64 (processed JSON's frameTable.address; validate and the
 * readers refuse more): one past that (a hostile mapping offset) is no
 * address, decided before the key is hashed so equal keys stay equal.
 */
static const struct pc_frame_key *frame_key_norm(const struct pc_frame_key *k,
						 struct pc_frame_key *tmp)
{
	if (k->address == PC_NO_ADDRESS || k->address <= (uint64_t)INT64_MAX)
		return k;
	*tmp = *k;
	tmp->address = PC_NO_ADDRESS;
	return tmp;
}

static int frame_index_sync(struct pc_model *m);

uint32_t pc_frame_add_new(struct pc_model *m, const struct pc_frame_key *k)
{
	struct pc_frame_table *t = &m->frames;
	struct pc_frame_key kn;
	uint32_t row = frame_push_row(m, frame_key_norm(k, &kn), NULL, PC_NONE, 0, -1);

	if (row != PC_NONE)
		t->pending_deep = (t->indexed != row && t->pending_deep) || k->inline_depth != 0;
	return row;
}

/* Before a lookup of k: the rows it could equal in the index.  0 or error. */
static inline int frame_index_for(struct pc_model *m, const struct pc_frame_key *k)
{
	const struct pc_frame_table *t = &m->frames;

	return t->indexed < t->len && (k->inline_depth == 0 || t->pending_deep)
		       ? frame_index_sync(m)
		       : 0;
}

uint32_t pc_frame_intern(struct pc_model *m, const struct pc_frame_key *k)
{
	struct pc_frame_table *t = &m->frames;
	struct pc_frame_key kn;
	uint32_t h, slot, row;

	if (frame_index_for(m, k))
		return PC_NONE;
	k = frame_key_norm(k, &kn);
	h = frame_hash(k);
	row = pc_itab_find(&t->index, h, frame_eq, t, k, &slot);
	if (row != PC_NONE)
		return row;
	return frame_push_row(m, k, NULL, slot, h, 1);
}

/* --- stacks --- */

static int stack_rehash(struct pc_model *m, uint32_t nslots)
{
	struct pc_stack_table *t = &m->stacks;
	struct pc_stack_slot *ns = pc_alloc(m->ctx, (size_t)nslots * sizeof(*ns));
	uint32_t i, mask = nslots - 1;

	if (!ns)
		return PROFCONV_ERR_NOMEM;
	for (i = 0; i < nslots; i++)
		ns[i].row = PC_NONE;
	for (i = 0; t->slots && i <= t->mask; i++) {
		uint32_t j;

		if (t->slots[i].row == PC_NONE)
			continue;
		for (j = (uint32_t)pc_hash64(t->slots[i].key) & mask; ns[j].row != PC_NONE;
		     j = (j + 1) & mask)
			;
		ns[j] = t->slots[i];
	}
	pc_free(m->ctx, t->slots);
	t->slots = ns;
	t->mask = mask;
	return 0;
}

/* Build the index of a table whose rows were appended unindexed. */
static int stack_reindex(struct pc_model *m)
{
	struct pc_stack_table *t = &m->stacks;
	uint32_t nslots = 1024, mask, i;
	struct pc_stack_slot *ns;

	while (nslots < 0x80000000u && (uint64_t)nslots < (uint64_t)t->len * 2 + 2)
		nslots *= 2;
	ns = pc_alloc(m->ctx, (size_t)nslots * sizeof(*ns));
	if (!ns)
		return PROFCONV_ERR_NOMEM;
	mask = nslots - 1;
	for (i = 0; i < nslots; i++)
		ns[i].row = PC_NONE;
	for (i = 0; i < t->len; i++) {
		uint64_t key = (uint64_t)t->prefix[i] << 32 | t->frame[i];
		uint32_t j;

		for (j = (uint32_t)pc_hash64(key) & mask; ns[j].row != PC_NONE; j = (j + 1) & mask)
			;
		ns[j].key = key;
		ns[j].row = i;
	}
	pc_free(m->ctx, t->slots);
	t->slots = ns;
	t->mask = mask;
	t->unindexed = 0;
	return 0;
}

/* Grow, write row (prefix, frame) at the end and count it (unindexed) as *row: 0 or error. */
static int stack_push_row(struct pc_model *m, uint32_t prefix, uint32_t frame, uint32_t *row)
{
	struct pc_stack_table *t = &m->stacks;

	if (t->len == t->cap) {
		uint32_t cap = next_cap(t->cap);

		GROW_COL(m, t->frame, t->cap, cap);
		GROW_COL(m, t->prefix, t->cap, cap);
		t->cap = cap;
	}
	t->frame[t->len] = frame;
	t->prefix[t->len] = prefix;
	*row = t->len++;
	return 0;
}

uint32_t pc_stack_add_new(struct pc_model *m, uint32_t prefix, uint32_t frame)
{
	uint32_t row = PC_NONE;

	if (stack_push_row(m, prefix, frame, &row))
		return PC_NONE; /* the ctx holds the error */
	m->stacks.unindexed = 1;
	return row;
}

uint32_t pc_stack_intern(struct pc_model *m, uint32_t prefix, uint32_t frame)
{
	struct pc_stack_table *t = &m->stacks;
	uint64_t key = (uint64_t)prefix << 32 | frame;
	uint32_t i, row = PC_NONE;

	if (t->unindexed && stack_reindex(m))
		return PC_NONE;
	if (!t->slots && stack_rehash(m, 1024))
		return PC_NONE;
	for (i = (uint32_t)pc_hash64(key) & t->mask; t->slots[i].row != PC_NONE;
	     i = (i + 1) & t->mask)
		if (t->slots[i].key == key)
			return t->slots[i].row;
	if (stack_push_row(m, prefix, frame, &row))
		return PC_NONE; /* the ctx holds the error */
	t->slots[i].key = key;
	t->slots[i].row = row;
	if ((uint64_t)t->len * 2 > (uint64_t)t->mask + 1 && stack_rehash(m, (t->mask + 1) * 2))
		return PC_NONE;
	return row;
}

/* --- threads, samples, markers --- */

struct pc_thread *pc_thread_add(struct pc_model *m, int64_t pid, int64_t tid)
{
	struct pc_thread *t;

	if (pc_grow(m->ctx, (void **)&m->threads, sizeof(*m->threads), &m->threads_cap,
		    (size_t)m->nthreads + 1))
		return NULL;
	t = pc_calloc(m->ctx, 1, sizeof(*t));
	if (!t)
		return NULL;
	t->pid = pid;
	t->tid = tid;
	t->unregister_time = PC_NO_TIME;
	t->more = PC_NONE;
	t->samples.weight_type = "samples";
	t->process = PC_NONE;
	m->threads[m->nthreads++] = t;
	if (pid != PC_NO_PID && pc_thread_set_ids(m, t, pid, tid)) {
		m->nthreads--;
		pc_free(m->ctx, t);
		return NULL;
	}
	return t;
}

static int samples_reserve(struct pc_model *m, struct pc_samples *s)
{
	uint32_t cap;

	if (s->len < s->cap)
		return 0;
	cap = next_cap(s->cap);
	GROW_COL(m, s->stack, s->cap, cap);
	GROW_COL(m, s->time, s->cap, cap);
	if (s->weight)
		GROW_COL(m, s->weight, s->cap, cap);
	if (s->cpu_delta)
		GROW_COL(m, s->cpu_delta, s->cap, cap);
	if (s->event_delay)
		GROW_COL(m, s->event_delay, s->cap, cap);
	if (s->context_set)
		GROW_COL(m, s->context_set, s->cap, cap);
	s->cap = cap;
	return 0;
}

int pc_sample_add(struct pc_model *m, struct pc_thread *t, uint32_t stack, int64_t time,
		  int64_t weight)
{
	struct pc_samples *s = &t->samples;
	int err = samples_reserve(m, s);

	if (err)
		return err;
	if (weight != 1 && !s->weight) {
		uint32_t i;

		s->weight = pc_alloc(m->ctx, (size_t)s->cap * sizeof(*s->weight));
		if (!s->weight)
			return PROFCONV_ERR_NOMEM;
		for (i = 0; i < s->len; i++)
			s->weight[i] = 1;
	}
	s->stack[s->len] = stack;
	s->time[s->len] = time;
	if (s->weight)
		s->weight[s->len] = weight;
	if (s->cpu_delta)
		s->cpu_delta[s->len] = INT64_MIN;
	if (s->event_delay)
		s->event_delay[s->len] = PC_NO_TIME;
	if (s->context_set)
		s->context_set[s->len] = PC_NONE;
	s->len++;
	return 0;
}

void pc_marker_row_init(struct pc_marker_row *r)
{
	memset(r, 0, sizeof(*r));
	r->start = PC_NO_TIME;
	r->end = PC_NO_TIME;
	r->phase = PC_PHASE_INSTANT;
	r->payload = PC_NONE;
	r->cause_stack = PC_NONE;
	r->cause_time = PC_NO_TIME;
	r->cause_tid = PC_NO_TID;
	r->context_set = PC_NONE;
}

/* The marker columns all grow together (cause and context columns too: a
 * marker table is small next to the sample and stack tables). */
static int markers_reserve(struct pc_model *m, struct pc_markers *k)
{
	uint32_t cap;

	if (k->len < k->cap)
		return 0;
	cap = next_cap(k->cap);
	GROW_COL(m, k->name, k->cap, cap);
	GROW_COL(m, k->start, k->cap, cap);
	GROW_COL(m, k->end, k->cap, cap);
	GROW_COL(m, k->phase, k->cap, cap);
	GROW_COL(m, k->category, k->cap, cap);
	GROW_COL(m, k->payload, k->cap, cap);
	if (k->cause_stack) { /* (lean markers: the optional columns are not there yet) */
		GROW_COL(m, k->cause_stack, k->cap, cap);
		GROW_COL(m, k->cause_time, k->cap, cap);
		GROW_COL(m, k->cause_tid, k->cap, cap);
		GROW_COL(m, k->context_set, k->cap, cap);
	}
	k->cap = cap;
	return 0;
}

/* The cause and context columns of k, rows so far without either. */
static int markers_add_optional(struct pc_model *m, struct pc_markers *k)
{
	size_t n = k->cap ? k->cap : 1;
	uint32_t i;

	k->cause_stack = pc_alloc(m->ctx, n * sizeof(*k->cause_stack));
	k->cause_time = pc_alloc(m->ctx, n * sizeof(*k->cause_time));
	k->cause_tid = pc_alloc(m->ctx, n * sizeof(*k->cause_tid));
	k->context_set = pc_alloc(m->ctx, n * sizeof(*k->context_set));
	if (!k->cause_stack || !k->cause_time || !k->cause_tid || !k->context_set) {
		pc_free(m->ctx, k->cause_stack);
		pc_free(m->ctx, k->cause_time);
		pc_free(m->ctx, k->cause_tid);
		pc_free(m->ctx, k->context_set);
		k->cause_stack = NULL;
		k->cause_time = k->cause_tid = NULL;
		k->context_set = NULL;
		return PROFCONV_ERR_NOMEM;
	}
	for (i = 0; i < k->len; i++) {
		k->cause_stack[i] = PC_NONE;
		k->cause_time[i] = PC_NO_TIME;
		k->cause_tid[i] = PC_NO_TID;
		k->context_set[i] = PC_NONE;
	}
	return 0;
}

int pc_model_markers_full(struct pc_model *m)
{
	uint32_t i;

	m->lean_markers = 0;
	for (i = 0; i < m->nthreads; i++)
		if (!m->threads[i]->markers.cause_stack &&
		    markers_add_optional(m, &m->threads[i]->markers))
			return PROFCONV_ERR_NOMEM;
	return 0;
}

int pc_marker_push(struct pc_model *m, struct pc_thread *t, const struct pc_marker_row *r)
{
	struct pc_markers *k = &t->markers;
	int err = markers_reserve(m, k);
	uint32_t i;

	if (err)
		return err;
	if (!k->cause_stack &&
	    (!m->lean_markers || r->cause_stack != PC_NONE || r->cause_time != PC_NO_TIME ||
	     r->cause_tid != PC_NO_TID || r->context_set != PC_NONE)) {
		err = markers_add_optional(m, k);
		if (err)
			return err;
	}
	i = k->len++;
	k->name[i] = r->name;
	k->start[i] = r->start;
	k->end[i] = r->end;
	k->phase[i] = r->phase;
	k->category[i] = r->category;
	k->payload[i] = r->payload;
	if (k->cause_stack) {
		k->cause_stack[i] = r->cause_stack;
		k->cause_time[i] = r->cause_time;
		k->cause_tid[i] = r->cause_tid;
		k->context_set[i] = r->context_set;
	}
	return 0;
}

/*
 * Sorting every thread's columns by time: the permutation, its merge
 * buffer, the key and the column being permuted live in buffers kept for
 * the whole call, sized for the largest thread, instead of fresh blocks per
 * column (fresh blocks are fresh pages the kernel zeroes: a tenth of a
 * large Chrome conversion).
 */
struct sortbufs {
	uint32_t *idx, *tmp;
	int64_t *key; /* the sort key, then (its order known) a column being permuted:
		       * a third buffer of 8 bytes a row was a tenth of the peak
		       * memory converting a 1 GiB trace */
	uint32_t cap; /* rows each holds */
};

static int sortbufs_need(struct profconv_ctx *ctx, struct sortbufs *b, uint32_t n)
{
	size_t want = (size_t)n + 1;
	uint32_t *idx, *tmp;
	int64_t *key;

	if (n <= b->cap)
		return 0;
	idx = pc_realloc(ctx, b->idx, want * sizeof(*idx));
	if (idx)
		b->idx = idx;
	tmp = pc_realloc(ctx, b->tmp, want * sizeof(*tmp));
	if (tmp)
		b->tmp = tmp;
	key = pc_realloc(ctx, b->key, want * sizeof(*key));
	if (key)
		b->key = key;
	if (!idx || !tmp || !key)
		return PROFCONV_ERR_NOMEM;
	b->cap = n;
	return 0;
}

static void sortbufs_free(struct profconv_ctx *ctx, struct sortbufs *b)
{
	pc_free(ctx, b->idx);
	pc_free(ctx, b->tmp);
	pc_free(ctx, b->key);
}

/* col[i] = col[idx[i]] for i < n, through the key buffer (its order is known by now). */
#define PERMUTE(b, col, n, type)                                                                   \
	do {                                                                                       \
		type *pc_n_ = (type *)(void *)(b)->key;                                                \
		uint32_t pc_i_;                                                                    \
		for (pc_i_ = 0; pc_i_ < (n); pc_i_++)                                              \
			pc_n_[pc_i_] = (col)[(b)->idx[pc_i_]];                                     \
		memcpy((col), pc_n_, (size_t)(n) * sizeof(type));                                  \
	} while (0)

static int is_sorted(const int64_t *t, uint32_t n)
{
	uint32_t i;

	for (i = 1; i < n; i++)
		if (t[i] < t[i - 1])
			return 0;
	return 1;
}

/* b->idx: the stable order of key[0..n) (b holds n rows). */
static void sort_perm(struct sortbufs *b, const int64_t *key, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		b->idx[i] = i;
	pc_sort_by_key(b->idx, b->tmp, key, n);
}

/* What pc_model_shift_sort_threads() takes from the times first. */
struct time_shift {
	int on;
	int64_t zero;
	unsigned what; /* PC_SORT_SAMPLES, PC_SORT_MARKERS, PC_SORT_ONE_THREAD */
};

/*
 * Sort thread t's samples and markers by time (b: buffers kept across
 * threads), their times less sh->zero first when sh->on.
 */
static int sort_thread(struct profconv_ctx *ctx, struct pc_thread *t, struct sortbufs *b,
		       const struct time_shift *sh)
{
	struct pc_samples *s = &t->samples;
	struct pc_markers *k = &t->markers;

	if (sh->on && (sh->what & PC_SORT_SAMPLES)) {
		uint32_t i;

		for (i = 0; i < s->len; i++)
			s->time[i] = pc_time_sub(s->time[i], sh->zero);
	}
	if (sh->on && (sh->what & PC_SORT_MARKERS)) {
		uint32_t i;

		for (i = 0; i < k->len; i++) {
			if (k->start[i] != PC_NO_TIME)
				k->start[i] = pc_time_sub(k->start[i], sh->zero);
			if (k->end[i] != PC_NO_TIME)
				k->end[i] = pc_time_sub(k->end[i], sh->zero);
		}
	}
	if ((sh->what & PC_SORT_SAMPLES) && !is_sorted(s->time, s->len)) {
		if (sortbufs_need(ctx, b, s->len))
			return PROFCONV_ERR_NOMEM;
		sort_perm(b, s->time, s->len);
		PERMUTE(b, s->stack, s->len, uint32_t);
		PERMUTE(b, s->time, s->len, int64_t);
		if (s->weight)
			PERMUTE(b, s->weight, s->len, int64_t);
		if (s->cpu_delta)
			PERMUTE(b, s->cpu_delta, s->len, int64_t);
		if (s->event_delay)
			PERMUTE(b, s->event_delay, s->len, int64_t);
		if (s->context_set)
			PERMUTE(b, s->context_set, s->len, uint32_t);
	}
	if ((sh->what & PC_SORT_MARKERS) && k->len) {
		/* The sort key is the start, else the end (an IntervalEnd
		 * marker has no start): a null start must not sort first. */
		uint32_t j;

		if (sortbufs_need(ctx, b, k->len))
			return PROFCONV_ERR_NOMEM;
		for (j = 0; j < k->len; j++)
			b->key[j] = pc_marker_sort_time(k, j);
		if (!is_sorted(b->key, k->len)) {
			sort_perm(b, b->key, k->len);
			PERMUTE(b, k->name, k->len, uint32_t);
			PERMUTE(b, k->start, k->len, int64_t);
			PERMUTE(b, k->end, k->len, int64_t);
			PERMUTE(b, k->phase, k->len, uint8_t);
			PERMUTE(b, k->category, k->len, uint16_t);
			PERMUTE(b, k->payload, k->len, uint32_t);
			if (k->cause_stack) {
				PERMUTE(b, k->cause_stack, k->len, uint32_t);
				PERMUTE(b, k->cause_time, k->len, int64_t);
				PERMUTE(b, k->cause_tid, k->len, int64_t);
				PERMUTE(b, k->context_set, k->len, uint32_t);
			}
		}
	}
	return 0;
}

/*
 * Sorting on two threads: each thread's rows are its own, so a second
 * thread sorts some of the threads with buffers and a ctx of its own while
 * the caller's sorts the rest.  The threads go to the two sides largest
 * first, each to the side with fewer rows so far (the first ones in model
 * order took up to half the rows: with one big thread among many small
 * ones, the caller's side sorted twice the second one's rows).  From
 * 20,000 rows (about a millisecond of sorting against some 50 us to start
 * a thread; cli.chrome's generated trace has 45,000).
 */
#define SORT_SPLIT_ROWS 20000

struct sort_half {
	struct pc_model *m;
	struct profconv_ctx *ctx;
	const uint8_t *mine; /* thread index -> 1: this half's */
	struct time_shift sh;
	int err;
};

static void *sort_half_run(void *arg)
{
	struct sort_half *h = arg;
	struct sortbufs b = { NULL, NULL, NULL, 0 };
	uint32_t i;

	for (i = 0; i < h->m->nthreads && !h->err; i++)
		if (h->mine[i])
			h->err = sort_thread(h->ctx, h->m->threads[i], &b, &h->sh);
	sortbufs_free(h->ctx, &b);
	return NULL;
}

/* A thread's rows (those what sorts): the cost of sorting it, roughly. */
static uint64_t thread_rows(const struct pc_thread *t, unsigned what)
{
	return (what & PC_SORT_SAMPLES ? (uint64_t)t->samples.len : 0) +
	       (what & PC_SORT_MARKERS ? t->markers.len : 0);
}

/* A thread's rows and index: more rows first, then in model order. */
struct thread_load {
	uint64_t rows;
	uint32_t i;
};

static int load_desc(const void *a, const void *b)
{
	const struct thread_load *x = a, *y = b;

	if (x->rows != y->rows)
		return x->rows > y->rows ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/*
 * theirs[i] = 1 for the threads the second thread sorts: largest first, to
 * the side with fewer rows.  0 or PROFCONV_ERR_NOMEM.
 */
static int split_threads(const struct pc_model *m, uint8_t *theirs, unsigned what)
{
	struct thread_load *order = malloc((size_t)m->nthreads * sizeof(*order));
	uint64_t mine = 0, other = 0;
	uint32_t i;

	if (!order)
		return PROFCONV_ERR_NOMEM;
	for (i = 0; i < m->nthreads; i++) {
		order[i].rows = thread_rows(m->threads[i], what);
		order[i].i = i;
	}
	qsort(order, m->nthreads, sizeof(*order), load_desc);
	for (i = 0; i < m->nthreads; i++) {
		if (other < mine) {
			theirs[order[i].i] = 1;
			other += order[i].rows;
		} else {
			mine += order[i].rows;
		}
	}
	free(order);
	return 0;
}

static int sort_threads(struct pc_model *m, struct time_shift sh)
{
	struct profconv_ctx *ctx = m->ctx;
	struct sortbufs b = { NULL, NULL, NULL, 0 };
	struct sort_half h = { m, NULL, NULL, sh, 0 };
	uint8_t *theirs = NULL;
	uint64_t rows = 0;
	pthread_t th;
	int started = 0, err = 0;
	uint32_t i;

	for (i = 0; i < m->nthreads; i++)
		rows += thread_rows(m->threads[i], sh.what);
	if (rows >= SORT_SPLIT_ROWS && m->nthreads > 1 && !ctx->opt.no_threads &&
	    !(sh.what & PC_SORT_ONE_THREAD) && (theirs = calloc(m->nthreads, 1)) != NULL &&
	    split_threads(m, theirs, sh.what) == 0 &&
	    (h.ctx = pc_ctx_worker(ctx)) != NULL) {
		h.mine = theirs;
		started = pthread_create(&th, NULL, sort_half_run, &h) == 0;
	}
	for (i = 0; i < m->nthreads && !err; i++)
		if (!started || !theirs[i])
			err = sort_thread(ctx, m->threads[i], &b, &sh);
	sortbufs_free(ctx, &b);
	if (started) {
		pthread_join(th, NULL);
		if (!err)
			err = h.err;
	}
	if (h.ctx) {
		int e = pc_ctx_adopt(ctx, h.ctx);

		if (!err)
			err = e;
		profconv_ctx_free(h.ctx);
	}
	free(theirs);
	return err ? (ctx->status ? ctx->status : PROFCONV_ERR_NOMEM) : 0;
}

int pc_model_sort_threads(struct pc_model *m)
{
	struct time_shift sh = { 0, 0, PC_SORT_SAMPLES | PC_SORT_MARKERS };

	return sort_threads(m, sh);
}

int pc_model_shift_sort_threads(struct pc_model *m, int64_t zero)
{
	struct time_shift sh = { 1, zero, PC_SORT_SAMPLES | PC_SORT_MARKERS };

	return sort_threads(m, sh);
}

int pc_model_shift_sort_part(struct pc_model *m, int64_t zero, unsigned what)
{
	struct time_shift sh = { 1, zero, what };

	return sort_threads(m, sh);
}

/* --- faithful loading: appends that keep the input's row numbers --- */

const char *pc_model_keep(struct pc_model *m, const char *s, size_t len)
{
	char *d;

	if (pc_grow(m->ctx, (void **)&m->kept, sizeof(*m->kept), &m->kept_cap,
		    (size_t)m->nkept + 1))
		return NULL;
	d = pc_strndup(m->ctx, s, len);
	if (!d)
		return NULL;
	m->kept[m->nkept++] = d;
	return d;
}

void pc_str_clear(struct pc_model *m)
{
	pc_itab_free(m->ctx, &m->strings.index);
	m->strings.len = 0;
	m->strings.npending = 0;
	m->strings.hex_indexed = 0;
}

uint32_t pc_str_append(struct pc_model *m, const char *s, size_t len)
{
	struct pc_strtab *t = &m->strings;
	struct str_key k = { s, len };
	uint32_t h, slot = PC_NONE, found, row;
	char *p;

	if (len > UINT32_MAX - 1) {
		pc_fail(m->ctx, PROFCONV_ERR_LIMIT, NULL, "string of %zu bytes", len);
		return PC_NONE;
	}
	if (starts_0x(s, len) && t->npending && str_index_pending(m->ctx, t))
		return PC_NONE;
	h = str_hash(s, len);
	found = pc_itab_find(&t->index, h, str_eq, t, &k, &slot);
	if (t->len == t->cap) {
		uint32_t cap = t->cap;

		if (pc_grow(m->ctx, (void **)&t->ptr, sizeof(*t->ptr), &cap, (size_t)t->len + 1))
			return PC_NONE;
		cap = t->cap;
		if (pc_grow(m->ctx, (void **)&t->lens, sizeof(*t->lens), &cap, (size_t)t->len + 1))
			return PC_NONE;
		t->cap = cap;
	}
	p = str_store(m->ctx, t, s, len);
	if (!p)
		return PC_NONE;
	row = t->len;
	t->ptr[row] = p;
	t->lens[row] = (uint32_t)len;
	if (found == PC_NONE && pc_itab_insert(m->ctx, &t->index, slot, h, row))
		return PC_NONE;
	t->len++;
	if (found == PC_NONE && starts_0x(s, len))
		t->hex_indexed++;
	return row;
}

uint32_t pc_stack_append(struct pc_model *m, uint32_t prefix, uint32_t frame)
{
	struct pc_stack_table *t = &m->stacks;
	uint64_t key = (uint64_t)prefix << 32 | frame;
	uint32_t i, row = PC_NONE;
	int found = 0;

	if (t->unindexed && stack_reindex(m))
		return PC_NONE;
	if (!t->slots && stack_rehash(m, 1024))
		return PC_NONE;
	for (i = (uint32_t)pc_hash64(key) & t->mask; t->slots[i].row != PC_NONE;
	     i = (i + 1) & t->mask) {
		if (t->slots[i].key == key) {
			found = 1;
			break;
		}
	}
	if (stack_push_row(m, prefix, frame, &row))
		return PC_NONE; /* the ctx holds the error */
	if (found)
		return row;
	t->slots[i].key = key;
	t->slots[i].row = row;
	if ((uint64_t)t->len * 2 > (uint64_t)t->mask + 1 && stack_rehash(m, (t->mask + 1) * 2))
		return PC_NONE;
	return row;
}

/* Make the innerWindowID column cover row (new rows get 0) and set it. */
static int set_inner_window_id(struct pc_model *m, uint32_t row, uint64_t iw)
{
	struct pc_frame_table *t = &m->frames;

	if (row >= t->iw_len) {
		if (!iw)
			return 0;
		if (pc_grow(m->ctx, (void **)&t->inner_window_id, sizeof(*t->inner_window_id),
			    &t->iw_cap, (size_t)row + 1))
			return PROFCONV_ERR_NOMEM;
		memset(t->inner_window_id + t->iw_len, 0,
		       ((size_t)row + 1 - t->iw_len) * sizeof(*t->inner_window_id));
		t->iw_len = row + 1;
	}
	t->inner_window_id[row] = iw;
	return 0;
}

struct frame_iw_key {
	const struct pc_frame_key *k;
	uint64_t iw;
};

static int frame_iw_eq(const void *table, uint32_t row, const void *key)
{
	const struct frame_iw_key *k = key;

	return frame_eq(table, row, k->k) &&
	       pc_frame_inner_window_id(table, row) == k->iw;
}

static uint32_t frame_add(struct pc_model *m, const struct pc_frame_key *k, uint64_t iw,
			  int intern)
{
	struct pc_frame_table *t = &m->frames;
	struct pc_frame_key kn;
	struct frame_iw_key kk;
	uint32_t h, slot = PC_NONE, found;

	if (frame_index_for(m, k))
		return PC_NONE;
	k = frame_key_norm(k, &kn);
	kk.k = k;
	kk.iw = iw;
	h = frame_hash(k);
	found = pc_itab_find(&t->index, h, frame_iw_eq, t, &kk, &slot);
	if (intern && found != PC_NONE)
		return found;
	return frame_push_row(m, k, &iw, slot, h, found == PC_NONE);
}

uint32_t pc_frame_append(struct pc_model *m, const struct pc_frame_key *k, uint64_t inner_window_id)
{
	return frame_add(m, k, inner_window_id, 0);
}

uint32_t pc_frame_intern_iw(struct pc_model *m, const struct pc_frame_key *k,
			    uint64_t inner_window_id)
{
	return frame_add(m, k, inner_window_id, 1);
}

uint32_t pc_func_append(struct pc_model *m, const struct pc_func_key *k)
{
	struct pc_func_table *t = &m->funcs;
	uint32_t h, slot = PC_NONE, found;

	if (func_index_for(m, k))
		return PC_NONE;
	h = func_hash(k);
	found = pc_itab_find(&t->index, h, func_eq, t, k, &slot);
	return func_push_row(m, k, slot, h, found == PC_NONE);
}

uint32_t pc_resource_append(struct pc_model *m, uint32_t name, uint32_t host, uint8_t type,
			    uint32_t lib)
{
	struct pc_resource_table *t = &m->resources;
	struct res_key k = { name, host, lib, type };
	uint32_t h, slot = PC_NONE, found;

	h = res_hash(&k);
	found = pc_itab_find(&t->index, h, res_eq, t, &k, &slot);
	return res_push_row(m, &k, slot, h, found == PC_NONE);
}

uint32_t pc_native_symbol_append(struct pc_model *m, uint32_t lib, uint64_t address,
				 uint32_t name, uint32_t size)
{
	struct pc_native_symbol_table *t = &m->native_symbols;
	struct nsym_key k = { address, lib };
	uint32_t h, slot = PC_NONE, found;

	h = nsym_hash(&k);
	found = pc_itab_find(&t->index, h, nsym_eq, t, &k, &slot);
	return nsym_push_row(m, &k, name, size, slot, h, found == PC_NONE);
}

static int source_row_is_default(const struct pc_source_row *r)
{
	return r->id == PC_NONE && r->start_line == 1 && r->start_column == 1 &&
	       r->source_map_url == PC_NONE && r->content == PC_NONE;
}

/* The optional columns of row from r, kept only once some row needs them: 0 or error. */
static int source_set_ext(struct pc_model *m, uint32_t row, const struct pc_source_row *r)
{
	struct pc_source_table *t = &m->sources;
	uint32_t i;

	if (!source_row_is_default(r) || row < t->ext_len) {
		if (row >= t->ext_len) {
			uint32_t cap = t->ext_cap;

			/* grow the five optional columns in step */
			if (pc_grow(m->ctx, (void **)&t->id, sizeof(*t->id), &cap, (size_t)row + 1))
				return PROFCONV_ERR_NOMEM;
			cap = t->ext_cap;
			if (pc_grow(m->ctx, (void **)&t->start_line, sizeof(*t->start_line), &cap,
				    (size_t)row + 1))
				return PROFCONV_ERR_NOMEM;
			cap = t->ext_cap;
			if (pc_grow(m->ctx, (void **)&t->start_column, sizeof(*t->start_column),
				    &cap, (size_t)row + 1))
				return PROFCONV_ERR_NOMEM;
			cap = t->ext_cap;
			if (pc_grow(m->ctx, (void **)&t->source_map_url,
				    sizeof(*t->source_map_url), &cap, (size_t)row + 1))
				return PROFCONV_ERR_NOMEM;
			cap = t->ext_cap;
			if (pc_grow(m->ctx, (void **)&t->content, sizeof(*t->content), &cap,
				    (size_t)row + 1))
				return PROFCONV_ERR_NOMEM;
			t->ext_cap = cap;
			for (i = t->ext_len; i < row; i++) {
				t->id[i] = PC_NONE;
				t->start_line[i] = 1;
				t->start_column[i] = 1;
				t->source_map_url[i] = PC_NONE;
				t->content[i] = PC_NONE;
			}
			t->ext_len = row + 1;
		}
		t->id[row] = r->id;
		t->start_line[row] = r->start_line;
		t->start_column[row] = r->start_column;
		t->source_map_url[row] = r->source_map_url;
		t->content[row] = r->content;
	}
	return 0;
}

uint32_t pc_source_append(struct pc_model *m, const struct pc_source_row *r)
{
	struct pc_source_table *t = &m->sources;
	uint32_t h, slot = PC_NONE, found;

	h = (uint32_t)pc_hash64(r->filename);
	found = pc_itab_find(&t->index, h, source_eq, t, &r->filename, &slot);
	return source_push_row(m, r->filename, r, slot, h, found == PC_NONE);
}

void pc_source_get(const struct pc_model *m, uint32_t i, struct pc_source_row *r)
{
	const struct pc_source_table *t = &m->sources;

	r->filename = t->filename[i];
	if (i < t->ext_len) {
		r->id = t->id[i];
		r->start_line = t->start_line[i];
		r->start_column = t->start_column[i];
		r->source_map_url = t->source_map_url[i];
		r->content = t->content[i];
	} else {
		r->id = PC_NONE;
		r->start_line = 1;
		r->start_column = 1;
		r->source_map_url = PC_NONE;
		r->content = PC_NONE;
	}
}

/* Enter frame rows [from, t->len) in the index, as func_index_sync() does. */
static int frame_index_add(struct pc_model *m, uint32_t from)
{
	struct pc_frame_table *t = &m->frames;
	uint32_t i;

	for (i = from; i < t->len; i++) {
		struct pc_frame_key k;
		struct frame_iw_key kk = { &k, pc_frame_inner_window_id(t, i) };
		uint32_t h, slot;

		memset(&k, 0, sizeof(k));
		k.address = t->address[i];
		k.lib = t->lib[i];
		k.func = t->func[i];
		k.native_symbol = t->native_symbol[i];
		k.line = t->line[i];
		k.column = t->column[i];
		k.category = t->category[i];
		k.subcategory = t->subcategory[i];
		k.inline_depth = t->inline_depth[i];
		h = frame_hash(&k);
		if (pc_itab_find(&t->index, h, frame_iw_eq, t, &kk, &slot) == PC_NONE &&
		    pc_itab_insert(m->ctx, &t->index, slot, h, i))
			return m->ctx->status ? m->ctx->status : PROFCONV_ERR_NOMEM;
	}
	t->indexed = t->len;
	return 0;
}

static int frame_index_sync(struct pc_model *m)
{
	struct pc_frame_table *t = &m->frames;

	if (t->indexed >= t->len)
		return 0;
	if (pc_itab_reserve(m->ctx, &t->index, t->len - t->indexed))
		return PROFCONV_ERR_NOMEM;
	return frame_index_add(m, t->indexed);
}

int pc_frame_index_rebuild(struct pc_model *m)
{
	struct pc_frame_table *t = &m->frames;

	if (pc_itab_reset(m->ctx, &t->index, t->len))
		return m->ctx->status ? m->ctx->status : PROFCONV_ERR_NOMEM;
	return frame_index_add(m, 0);
}

void pc_func_index_defer(struct pc_model *m)
{
	struct pc_func_table *t = &m->funcs;

	pc_itab_free(m->ctx, &t->index);
	t->indexed = 0;
	t->pending_name_max = UINT32_MAX; /* any lookup enters the rows first */
}

int pc_func_index_rebuild(struct pc_model *m)
{
	struct pc_func_table *t = &m->funcs;

	if (pc_itab_reset(m->ctx, &t->index, t->len))
		return m->ctx->status ? m->ctx->status : PROFCONV_ERR_NOMEM;
	t->indexed = 0;
	return func_index_sync(m);
}
