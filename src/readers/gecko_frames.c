/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * gecko_frames.c - frame location strings (native, JS, labels) and the funcs made from them
 * (the Gecko profile reader; see read_gecko.c and pc_gecko.h).
 */
#include "core/pc_config.h"

#include <cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "readers/pc_gecko.h"

/* --- location strings --- */

static int is_digits(const char *s, size_t n)
{
	size_t i;

	if (!n)
		return 0;
	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

static uint32_t digits_u32(const char *s, size_t n)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		v = v * 10 + (uint64_t)(s[i] - '0');
		if (v > UINT32_MAX)
			return UINT32_MAX;
	}
	return (uint32_t)v;
}

/* Whether s[0..n) matches `[0-9]+(?::[0-9]+)?` (line, column). */
static int line_col(const char *s, size_t n, uint32_t *line, uint32_t *col, int *has_col)
{
	size_t i = 0;

	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	if (i == 0)
		return 0;
	*line = digits_u32(s, i);
	*has_col = 0;
	if (i == n)
		return 1;
	if (s[i] != ':' || !is_digits(s + i + 1, n - i - 1))
		return 0;
	*col = digits_u32(s + i + 1, n - i - 1);
	*has_col = 1;
	return 1;
}

/*
 * `(.+?):([0-9]+)(?::([0-9]+))?` over s[0..n) (the lazy URL: the shortest
 * one after which the rest is line[:col]).
 */
static int url_line_col(const char *s, size_t n, size_t *url_len, uint32_t *line, uint32_t *col,
			int *has_col)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (s[i] == ':' && line_col(s + i + 1, n - i - 1, line, col, has_col)) {
			*url_len = i;
			return 1;
		}
	return 0;
}

struct jsloc {
	const char *name, *url;
	size_t name_len, url_len;
	uint32_t line, col, src;
	int has_col, has_src;
};

/*
 * The two JS regexps of _extractJsFunction():
 *   ^(.*) \((.+?):([0-9]+)(?::([0-9]+))?\)(?:\[(\d+)\])?$
 *   ^()(.+?):([0-9]+)(?::([0-9]+))?(?:\[(\d+)\])?$
 */
static int match_js(const char *s, size_t n, struct jsloc *j)
{
	size_t end = n, i;

	memset(j, 0, sizeof(*j));
	/* an optional [sourceIndex] suffix */
	if (n >= 3 && s[n - 1] == ']') {
		for (i = n - 1; i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9'; i--)
			;
		if (i > 0 && i < n - 1 && s[i - 1] == '[') {
			j->has_src = 1;
			j->src = digits_u32(s + i, n - 1 - i);
			end = i - 1;
		}
	}
	/* form 1: greedy name, then " (" ... ")" */
	if (end >= 1 && s[end - 1] == ')') {
		for (i = end - 1; i-- > 0;) {
			size_t ul;

			if (s[i] != ' ' || s[i + 1] != '(')
				continue;
			if (url_line_col(s + i + 2, end - 1 - (i + 2), &ul, &j->line, &j->col,
					 &j->has_col)) {
				j->name = s;
				j->name_len = i;
				j->url = s + i + 2;
				j->url_len = ul;
				return 1;
			}
		}
	}
	/* form 2: url:line[:col] */
	if (url_line_col(s, end, &j->url_len, &j->line, &j->col, &j->has_col)) {
		j->name = s;
		j->name_len = 0;
		j->url = s;
		return 1;
	}
	/* the [n] suffix may also have been part of form 2's column-less shape */
	return 0;
}

/* The position of the last " (in " starting at or before limit (s holds limit + 5 bytes), or -1. */
static long last_in(const char *s, size_t limit)
{
	size_t i;

	for (i = limit + 1; i-- > 0;)
		if (memcmp(s + i, " (in ", 5) == 0)
			return (long)i;
	return -1;
}

/*
 * The C++ regexps of _extractCppFunction():
 *   ^(.*) \(in ([^)]*)\) (\+ [0-9]+)$
 *   ^(.*) \(in ([^)]*)\) (\(.*:.*\))$
 *   ^(.*) \(in ([^)]*)\)$
 * Sets name and lib (spans of s).
 */
static int match_cpp(const char *s, size_t n, size_t *name_len, const char **lib, size_t *lib_len)
{
	size_t close, i;
	long at;

	/* 1: ") + 1234" at the end */
	for (i = n; i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9'; i--)
		;
	if (i < n && i >= 4 && memcmp(s + i - 4, ") + ", 4) == 0) {
		close = i - 4;
		at = close >= 5 ? last_in(s, close - 5) : -1;
		if (at >= 0 && !memchr(s + at + 5, ')', close - (size_t)at - 5))
			goto found;
	}
	/* 2: ") (x:y)" at the end: the first ')' after the last " (in " that works */
	if (n >= 1 && s[n - 1] == ')') {
		for (at = n >= 5 ? last_in(s, n - 5) : -1; at >= 0;
		     at = at > 0 ? last_in(s, (size_t)at - 1) : -1) {
			const char *c = memchr(s + at + 5, ')', n - (size_t)at - 5);
			size_t rest;

			if (!c)
				continue;
			close = (size_t)(c - s);
			rest = close + 2; /* the '(' of the location */
			if (rest < n && s[close + 1] == ' ' && s[rest] == '(' && n - rest >= 3 &&
			    memchr(s + rest + 1, ':', n - rest - 2))
				goto found;
		}
	}
	/* 3: ")" at the end */
	if (n >= 1 && s[n - 1] == ')') {
		close = n - 1;
		at = close >= 5 ? last_in(s, close - 5) : -1;
		if (at >= 0 && !memchr(s + at + 5, ')', close - (size_t)at - 5))
			goto found;
	}
	return 0;
found:
	*name_len = (size_t)at;
	*lib = s + at + 5;
	*lib_len = close - (size_t)at - 5;
	return 1;
}

/* JSON.stringify(s) for the extension resource names. */
static size_t json_quote(char *out, size_t cap, const char *s)
{
	size_t n = 0;

	if (cap < 3)
		return 0;
	out[n++] = '"';
	for (; *s && n + 8 < cap; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			out[n++] = '\\';
			out[n++] = (char)c;
		} else if (c < 0x20) {
			n += pc_snprintf(out + n, cap - n, "\\u%04x", c);
		} else {
			out[n++] = (char)c;
		}
	}
	out[n++] = '"';
	out[n] = 0;
	return n;
}

static int lower_ascii(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static int prefix_nocase(const char *s, const char *prefix, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (lower_ascii((unsigned char)s[i]) != prefix[i])
			return 0;
	return 1;
}

/*
 * The origin and host of a URL as `new URL()` gives them for http:, https:
 * and moz-extension: (0 otherwise: the front-end then uses the whole URL).
 */
static int url_origin(const char *u, size_t n, char *origin, size_t ocap, char *host, size_t hcap)
{
	static const char *const schemes[] = { "http", "https", "moz-extension" };
	size_t i, k, sl = 0, hs, he, at;
	const char *scheme = NULL;
	char h[512];
	size_t hl = 0;

	for (i = 0; i < PC_ARRAY_SIZE(schemes); i++) {
		sl = strlen(schemes[i]);
		if (n > sl + 3 && prefix_nocase(u, schemes[i], sl) &&
		    memcmp(u + sl, "://", 3) == 0) {
			scheme = schemes[i];
			break;
		}
	}
	if (!scheme)
		return 0;
	hs = sl + 3;
	for (he = hs; he < n && u[he] != '/' && u[he] != '?' && u[he] != '#'; he++)
		;
	/* drop user:password@ */
	for (at = he; at > hs; at--)
		if (u[at - 1] == '@')
			break;
	if (at > hs)
		hs = at;
	if (he == hs || he - hs >= sizeof(h))
		return 0;
	for (k = hs; k < he; k++)
		h[hl++] = (char)lower_ascii((unsigned char)u[k]);
	h[hl] = 0;
	/* the default port is not part of the host */
	if (strcmp(scheme, "http") == 0 && hl > 3 && strcmp(h + hl - 3, ":80") == 0)
		h[hl - 3] = 0;
	else if (strcmp(scheme, "https") == 0 && hl > 4 && strcmp(h + hl - 4, ":443") == 0)
		h[hl - 4] = 0;
	pc_snprintf(origin, ocap, "%s://%s", scheme, h);
	pc_snprintf(host, hcap, "%s", h);
	return 1;
}

/* The resource of a script URL (indexForURIResource). */
static uint32_t uri_resource(struct gr *r, const char *uri, size_t n)
{
	char origin[1024], host[512];
	uint32_t res, name, h = PC_NONE;
	int web = url_origin(uri, n, origin, sizeof(origin), host, sizeof(host));
	const char *key = web ? origin : uri;
	size_t klen = web ? strlen(origin) : n;

	res = pc_smap_get(&r->origins, key, klen);
	if (res != PC_NONE)
		return res;
	name = gecko_intern(r, key, klen);
	if (web)
		h = gecko_intern(r, host, strlen(host));
	if (name == PC_NONE || (web && h == PC_NONE))
		return PC_NONE;
	res = pc_resource_intern(r->m, name, h, web ? PC_RES_WEBHOST : PC_RES_URL, PC_NONE);
	if (res == PC_NONE || pc_smap_put(&r->origins, key, klen, res))
		return PC_NONE;
	return res;
}

/* A cJSON number that is a small index (a schema position), else -1. */
int gecko_small_index(const cJSON *o)
{
	if (!cJSON_IsNumber(o) || !(o->valuedouble >= 0 && o->valuedouble < 65536))
		return -1;
	return (int)o->valuedouble;
}

/* meta.extensions: Addon resources for the extensions' origins (addExtensionOrigins). */
int gecko_load_extensions(struct gr *r, const char *json, size_t len)
{
	cJSON *root = cJSON_ParseWithLength(json, len), *schema, *data, *row;
	int iid, iname, iurl, err = 0;

	if (!root)
		return 0;
	schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
	data = cJSON_GetObjectItemCaseSensitive(root, "data");
	iid = gecko_small_index(cJSON_GetObjectItemCaseSensitive(schema, "id"));
	iname = gecko_small_index(cJSON_GetObjectItemCaseSensitive(schema, "name"));
	iurl = gecko_small_index(cJSON_GetObjectItemCaseSensitive(schema, "baseURL"));
	cJSON_ArrayForEach(row, data)
	{
		cJSON *id = cJSON_GetArrayItem(row, iid), *name = cJSON_GetArrayItem(row, iname);
		cJSON *url = cJSON_GetArrayItem(row, iurl);
		char origin[1024], host[512], label[2048], q[1024];
		uint32_t res, ns, hs;

		if (!cJSON_IsString(id) || !cJSON_IsString(name) || !cJSON_IsString(url) ||
		    !url_origin(url->valuestring, strlen(url->valuestring), origin, sizeof(origin),
				host, sizeof(host)) ||
		    pc_smap_get(&r->origins, origin, strlen(origin)) != PC_NONE)
			continue;
		json_quote(q, sizeof(q), name->valuestring);
		pc_snprintf(label, sizeof(label), "Extension %s (ID: %s)", q, id->valuestring);
		ns = gecko_intern(r, label, strlen(label));
		hs = gecko_intern(r, id->valuestring, strlen(id->valuestring));
		res = ns == PC_NONE || hs == PC_NONE ?
			      PC_NONE :
			      pc_resource_intern(r->m, ns, hs, PC_RES_ADDON, PC_NONE);
		if (res == PC_NONE || pc_smap_put(&r->origins, origin, strlen(origin), res)) {
			err = gecko_nomem(r);
			break;
		}
	}
	cJSON_Delete(root);
	return err;
}

/* --- funcs from location strings --- */

int gecko_extract(struct gr *r, struct gproc *pr, struct gthread *gt, uint32_t li, int rel_js,
		  struct floc *out)
{
	struct pc_model *m = r->m;
	const char *s = pc_spool_str(&gt->strs, li);
	size_t n = pc_spool_len(&gt->strs, li), name_len, lib_len;
	const char *lib;
	struct pc_func_key k;
	struct jsloc j;
	uint32_t loc = gecko_intern(r, s, n);

	if (loc == PC_NONE)
		return gecko_nomem(r);
	memset(&k, 0, sizeof(k));
	k.resource = PC_NONE;
	k.source = PC_NONE;
	out->lib = PC_NONE;
	out->addr = PC_NO_ADDRESS;
	if (n >= 2 && s[0] == '0' && s[1] == 'x') {
		struct glib *l;
		uint64_t a;

		if (gecko_parse_u64(s + 2, n - 2, 1, &a) == 0 && (l = gecko_locate(pr, a)) != NULL) {
			out->lib = gecko_global_lib(r, l);
			if (out->lib == PC_NONE)
				return gecko_nomem(r);
			out->addr = a - (l->start - l->offset);
			k.resource = m->libs.rows[out->lib].resource;
		}
		k.name = loc;
		if (out->lib != PC_NONE) {
			/*
			 * Named by its lib-relative address, as every profconv reader
			 * names an unsymbolicated frame (the front-end keeps the
			 * absolute text): the same function in two processes that
			 * map its lib at different places is one function, and
			 * perf -> Gecko -> processed keeps the names.
			 */
			char rel[24];
			size_t rn = pc_snprintf(rel, sizeof(rel), "0x%" PRIx64, out->addr);

			k.name = gecko_intern(r, rel, rn);
		}
	} else if (match_cpp(s, n, &name_len, &lib, &lib_len)) {
		static const char thunk[] = "non-virtual thunk to ";
		uint32_t ln;

		if (name_len >= sizeof(thunk) - 1 && memcmp(s, thunk, sizeof(thunk) - 1) == 0) {
			s += sizeof(thunk) - 1;
			name_len -= sizeof(thunk) - 1;
		}
		k.name = gecko_intern(r, s, name_len);
		ln = gecko_intern(r, lib, lib_len);
		if (k.name == PC_NONE || ln == PC_NONE)
			return gecko_nomem(r);
		k.resource = gecko_lib_resource(r, ln);
	} else if (match_js(s, n, &j)) {
		const char *url = j.url;
		size_t ul = j.url_len, i;
		int err;

		/* _getRealScriptURI: the last of "a -> b -> c" */
		for (i = ul; i >= 4; i--)
			if (memcmp(url + i - 4, " -> ", 4) == 0) {
				ul -= i;
				url += i;
				break;
			}
		k.resource = uri_resource(r, url, ul);
		if (k.resource == PC_NONE)
			return gecko_nomem(r);
		if (j.has_src) {
			err = gecko_process_source(r, pr, j.src, &k.source);
			if (err)
				return err;
		}
		if (k.source == PC_NONE) {
			uint32_t f = gecko_intern(r, url, ul);

			k.source = f == PC_NONE ? PC_NONE : gecko_source_row(r, PC_NONE, f, 1, 1, PC_NONE);
			if (k.source == PC_NONE)
				return gecko_nomem(r);
		}
		if (j.name_len) {
			k.name = gecko_intern(r, j.name, j.name_len);
		} else {
			static const char root[] = "(root scope) ";
			char *buf = pc_alloc(r->ctx, sizeof(root) + ul);

			if (!buf)
				return PROFCONV_ERR_NOMEM;
			memcpy(buf, root, sizeof(root) - 1);
			memcpy(buf + sizeof(root) - 1, url, ul);
			k.name = gecko_intern(r, buf, sizeof(root) - 1 + ul);
			pc_free(r->ctx, buf);
		}
		k.line = j.line;
		k.column = j.has_col ? j.col : 0;
		k.is_js = 1;
	} else {
		k.name = loc;
		k.relevant_for_js = (uint8_t)(rel_js != 0);
	}
	if (k.name == PC_NONE)
		return gecko_nomem(r);
	out->key = k;
	out->func = PC_NONE; /* interned by the first frame that uses it */
	out->done = 1;
	return 0;
}
