/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_common.c - the pieces the fuzz targets share (fuzz_common.h).
 */
#include "core/pc_config.h"

#include <stdio.h>
#include <stdlib.h>

#include <cJSON.h>

#include "fuzz_common.h"

void fuzz_die(const char *what, const struct profconv_ctx *ctx)
{
	fprintf(stderr, "%s: invariant broken: %s (status %d, message \"%s\")\n", fuzz_name, what,
		ctx ? ctx->status : -1, ctx ? ctx->errmsg : "");
	abort();
}

void fuzz_diag(void *user, const struct profconv_diag *d)
{
	(void)user;
	if (d->size != sizeof(*d) || d->severity > PROFCONV_ERROR || !d->message ||
	    strlen(d->message) >= 4096)
		fuzz_die("diagnostic callback got a bad message", NULL);
	/* every diagnostic has a stable code and identifier (docs/diagnostics.md;
	 * a warning kind missing from the table is abi.diag-codes' to find) */
	if (!d->id || (d->severity == PROFCONV_WARNING && d->code < 1000) ||
	    (d->severity == PROFCONV_ERROR && profconv_code_id(d->code) == NULL))
		fuzz_die("diagnostic without a stable code", NULL);
}

int fuzz_sink_write(void *user, const void *buf, size_t len)
{
	struct sink *s = user;

	s->total += len;
	if (s->too_big)
		return 0;
	if (s->len + len > CHECK_MAX) {
		s->too_big = 1;
		return 0;
	}
	if (s->len + len + 1 > s->cap) {
		size_t ncap = s->cap ? s->cap : 65536;
		char *n;

		while (ncap < s->len + len + 1)
			ncap *= 2;
		n = realloc(s->buf, ncap);
		if (!n) {
			s->too_big = 1; /* cannot check; not the library's fault */
			return 0;
		}
		s->buf = n;
		s->cap = ncap;
	}
	memcpy(s->buf + s->len, buf, len);
	s->len += len;
	return 0;
}

void fuzz_check_json(const struct sink *s, const struct profconv_ctx *ctx)
{
	cJSON *root;

	if (s->too_big)
		return;
	if (s->len == 0)
		fuzz_die("the processed writer succeeded but wrote nothing", ctx);
	root = cJSON_ParseWithLength(s->buf, s->len);
	if (!root)
		fuzz_die("the processed writer's output is not valid JSON", ctx);
	if (!cJSON_IsObject(root) || !cJSON_GetObjectItemCaseSensitive(root, "meta"))
		fuzz_die("the processed writer's output has no top-level object with \"meta\"", ctx);
	cJSON_Delete(root);
}

int fuzz_text_discard(void *user, const void *buf, size_t len)
{
	(void)buf;
	*(uint64_t *)user += len;
	return 0;
}

int fuzz_is_limit(int err)
{
	return (err & 0xff) == PROFCONV_ERR_NOMEM || (err & 0xff) == PROFCONV_ERR_LIMIT;
}
