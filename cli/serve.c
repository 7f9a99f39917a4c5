/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * serve.c - profconv serve INPUT... (and view INPUT, its one-profile
 * shorthand): convert each input, serve the profiles until SIGINT/SIGTERM
 * and answer the Firefox Profiler's symbol server API for them.
 *
 *   1. each input (a file in any format, or a folder: every regular file in
 *      it, in name order) is converted to processed JSON in a private
 *      temporary directory, one at a time (the profile is freed once
 *      written, so memory does not grow with the number of profiles); its
 *      libs are kept for symbolication (profconv_symbols_add_libs());
 *   2. libmicrohttpd serves, under /TOKEN/ (32 hex digits from getrandom):
 *        GET  /TOKEN/                  an index page linking every profile
 *        GET  /TOKEN/N/NAME.json       profile N, from its file
 *        POST /TOKEN/symbolicate/v5    names, inline frames, file:line
 *        POST /TOKEN/source/v1         a source file the debug info names at
 *                                      the address given (else 404)
 *        POST /TOKEN/asm/v1            the disassembly (capstone) of a range
 *      and 404 for anything else; the API's formats are those of
 *      mstange/profiler-get-symbols' API.md and the front-end's
 *      fetch-source.ts, fetch-assembly.ts and mozilla-symbolication-api.ts;
 *   3. one https://profiler.firefox.com/from-url/...?symbolServer=... line
 *      per profile on stdout (the front-end's origin is --origin);
 *   4. SIGINT, SIGTERM or SIGHUP: stop, remove the temporary files, exit 0
 *      (--timeout SEC: exit 1 when nothing fetched a profile by then); the
 *      same signal while converting removes them and ends the process by
 *      the signal.
 *
 * Security: a request whose Host is not the address served is refused
 * (DNS rebinding); a request with an Origin other than --origin is refused;
 * CORS and Private Network Access headers name --origin only; request
 * headers are bounded by the connection's memory (32 KiB), bodies by
 * MAX_BODY, idle connections time out, and a pool of event-driven threads
 * serves many connections so that a slow client blocks nobody.  The
 * library is used by one thread at a time (one mutex).
 *
 * Uses only the public header, libmicrohttpd, capstone and cJSON; the first
 * two are loaded when serve starts and when the first disassembly is asked
 * for (cli_dlopen.c).
 */
#define _GNU_SOURCE

#include <arpa/inet.h>
#include <capstone/capstone.h>
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli_dlopen.h" /* after microhttpd.h and capstone.h */

#define MAX_BODY	 (16u << 20) /* a POST body */
#define MAX_SOURCE	 (32u << 20) /* a source file served */
#define MAX_ASM		 (1u << 20)  /* bytes disassembled at once */
#define CONN_MEMORY	 32768	     /* per connection: request line and headers */
#define CONN_TIMEOUT	 30	     /* s without traffic before a connection is closed */
#define CONN_LIMIT	 1000
#define POOL_THREADS	 4
#define MAX_ADDRS	 (1u << 20)  /* addresses in one /symbolicate/v5 request */

struct served {
	char name[256]; /* NAME.json */
	char *file;	/* the converted profile */
	char *input;
};

struct server {
	const struct cli_settings *st;
	const struct cli_serve *opt;
	char token[33];
	char hostport[320]; /* what Host must say */
	char alt_hostport[32]; /* localhost:PORT for a loopback address, or "" */
	char base[400]; /* http://HOST:PORT/TOKEN */
	char tmpdir[4096];
	struct served *profiles;
	size_t nprofiles;
	struct profconv_ctx *symctx;
	struct profconv_symbols *syms;
	pthread_mutex_t mu; /* the library: one thread at a time */
	int fetched; /* a profile was fetched (atomic) */
};

struct req {
	char *body;
	size_t len, cap;
	int too_big;
};

/* --- small helpers --- */

static void url_encode(const char *s, char *out, size_t cap)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = 0;

	for (; *s && n + 4 < cap; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '_' || c == '.' || c == '~') {
			out[n++] = (char)c;
		} else {
			out[n++] = '%';
			out[n++] = hex[c >> 4];
			out[n++] = hex[c & 15];
		}
	}
	out[n] = 0;
}

static int isalnum_ascii(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* The file name shown in the URL: the input's, made safe, with .json. */
static void safe_name(const char *input, char *out, size_t cap)
{
	const char *b = strrchr(input, '/');
	size_t n = 0;

	for (b = b ? b + 1 : input; *b && n + 6 < cap; b++)
		out[n++] = (isalnum_ascii(*b) || *b == '.' || *b == '-' || *b == '_') ? *b : '_';
	if (n == 0 || strcmp(input, "-") == 0)
		n = (size_t)snprintf(out, cap, "profile");
	else
		out[n] = 0;
	if (n < 5 || strcmp(out + n - 5, ".json") != 0)
		snprintf(out + n, cap - n, ".json");
}

/* 32 hex digits from getrandom(): the path no other page can guess. */
static int random_token(char *out)
{
	unsigned char r[16];
	size_t got = 0;
	int i;

	while (got < sizeof(r)) {
		ssize_t n = getrandom(r + got, sizeof(r) - got, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	for (i = 0; i < 16; i++)
		snprintf(out + 2 * i, 3, "%02x", r[i]);
	return 0;
}

static void open_browser(const char *url)
{
	pid_t pid;

	if (!getenv("DISPLAY") && !getenv("WAYLAND_DISPLAY"))
		return;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		if (null >= 0) {
			dup2(null, 1);
			dup2(null, 2);
		}
		execlp("xdg-open", "xdg-open", url, (char *)NULL);
		_exit(127);
	}
}

/* A 0x-prefixed (or bare) hex string, or a JSON number, to *out; 0 or -1. */
static int json_u64(const cJSON *v, uint64_t *out)
{
	const char *s;
	char *end;

	if (cJSON_IsNumber(v)) {
		if (v->valuedouble < 0 || v->valuedouble > 9007199254740992.0)
			return -1;
		*out = (uint64_t)v->valuedouble;
		return 0;
	}
	if (!cJSON_IsString(v))
		return -1;
	s = v->valuestring;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (!*s)
		return -1;
	errno = 0;
	*out = strtoull(s, &end, 16);
	return (*end || errno) ? -1 : 0;
}

static const char *json_s(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* --- responses --- */

static void cors(const struct server *sv, struct MHD_Connection *c, struct MHD_Response *r)
{
	if (MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin")) {
		MHD_add_response_header(r, "Access-Control-Allow-Origin", sv->opt->origin);
		MHD_add_response_header(r, "Vary", "Origin");
	}
}

static enum MHD_Result send_buf(struct server *sv, struct MHD_Connection *c, unsigned status,
				const char *type, void *data, size_t len)
{
	struct MHD_Response *r =
		MHD_create_response_from_buffer(len, data, MHD_RESPMEM_MUST_FREE);
	enum MHD_Result ret;

	if (!r) {
		free(data);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", type);
	MHD_add_response_header(r, "Cache-Control", "no-store");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	if (sv)
		cors(sv, c, r);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result send_text(struct server *sv, struct MHD_Connection *c, unsigned status,
				 const char *msg)
{
	char *p = strdup(msg);

	return p ? send_buf(sv, c, status, "text/plain; charset=utf-8", p, strlen(p)) : MHD_NO;
}

/* A JSON error body with a status (the API's "error" field). */
static enum MHD_Result send_json_error(struct server *sv, struct MHD_Connection *c,
				       unsigned status, const char *msg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return MHD_NO;
	fputs("{\"error\": ", f);
	cli_json_str(f, msg);
	fputs("}\n", f);
	if (fclose(f))
		return MHD_NO;
	return send_buf(sv, c, status, "application/json", buf, len);
}

/* --- the API --- */

static void put_hex(FILE *f, const char *key, uint64_t v)
{
	fprintf(f, ", \"%s\": \"0x%llx\"", key, (unsigned long long)v);
}

/* One frame of a /symbolicate/v5 stack (under the mutex). */
static void v5_frame(struct server *sv, FILE *f, size_t j, const char *debug_name,
		     const char *breakpad_id, uint64_t addr, int *found)
{
	struct profconv_symbol sym = PROFCONV_INIT(struct profconv_symbol);
	uint32_t k;

	fprintf(f, "{\"frame\": %zu", j);
	put_hex(f, "module_offset", addr);
	if (!debug_name) {
		fputs("}", f);
		return;
	}
	fputs(", \"module\": ", f);
	cli_json_str(f, debug_name);
	if (profconv_symbols_lookup(sv->syms, debug_name, breakpad_id, addr, &sym) ||
	    !sym.nframes) {
		if (sym.lib_found)
			*found = 1;
		fputs("}", f);
		return;
	}
	*found = 1;
	fputs(", \"function\": ", f);
	cli_json_str(f, sym.frames[0].name);
	put_hex(f, "function_offset", addr - sym.start);
	if (sym.length)
		put_hex(f, "function_size", sym.length);
	if (sym.frames[0].file[0]) {
		fputs(", \"file\": ", f);
		cli_json_str(f, sym.frames[0].file);
	}
	if (sym.frames[0].line)
		fprintf(f, ", \"line\": %u", sym.frames[0].line);
	if (sym.nframes > 1) {
		/* innermost first, as the API lists them */
		fputs(", \"inlines\": [", f);
		for (k = sym.nframes - 1; k >= 1; k--) {
			fputs(k == sym.nframes - 1 ? "{\"function\": " : ", {\"function\": ", f);
			cli_json_str(f, sym.frames[k].name);
			if (sym.frames[k].file[0]) {
				fputs(", \"file\": ", f);
				cli_json_str(f, sym.frames[k].file);
			}
			if (sym.frames[k].line)
				fprintf(f, ", \"line\": %u", sym.frames[k].line);
			fputs("}", f);
		}
		fputs("]", f);
	}
	fputs("}", f);
}

/* Item k of a memoryMap entry [debugName, breakpadId], or NULL. */
static const char *mm_str(const cJSON *mm, int idx, int k)
{
	const cJSON *e = cJSON_GetArrayItem(mm, idx), *v;

	if (!cJSON_IsArray(e))
		return NULL;
	v = cJSON_GetArrayItem(e, k);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static enum MHD_Result api_symbolicate(struct server *sv, struct MHD_Connection *c,
				       const cJSON *q)
{
	const cJSON *jobs = cJSON_GetObjectItemCaseSensitive(q, "jobs"), *job;
	char *buf = NULL;
	size_t len = 0, naddrs = 0;
	FILE *f;
	int first_job = 1, ok = 1;

	if (!cJSON_IsArray(jobs))
		return send_json_error(sv, c, MHD_HTTP_BAD_REQUEST, "expected {\"jobs\": [...]}");
	f = open_memstream(&buf, &len);
	if (!f)
		return MHD_NO;
	fputs("{\"results\": [", f);
	pthread_mutex_lock(&sv->mu);
	cJSON_ArrayForEach(job, jobs)
	{
		const cJSON *mm = cJSON_GetObjectItemCaseSensitive(job, "memoryMap");
		const cJSON *stacks = cJSON_GetObjectItemCaseSensitive(job, "stacks"), *stack;
		int nmods = cJSON_IsArray(mm) ? cJSON_GetArraySize(mm) : 0, i, first_stack = 1;
		int *found = calloc((size_t)nmods + 1, sizeof(int));

		if (!found) {
			ok = 0;
			break;
		}
		fputs(first_job ? "{\"stacks\": [" : ", {\"stacks\": [", f);
		first_job = 0;
		if (!cJSON_IsArray(stacks))
			stacks = NULL;
		cJSON_ArrayForEach(stack, stacks)
		{
			const cJSON *fr, *frames = cJSON_IsArray(stack) ? stack : NULL;
			size_t j = 0;

			fputs(first_stack ? "[" : ", [", f);
			first_stack = 0;
			cJSON_ArrayForEach(fr, frames)
			{
				const cJSON *mi = cJSON_GetArrayItem(fr, 0);
				uint64_t addr = 0;
				int idx = cJSON_IsNumber(mi) ? mi->valueint : -1;

				if (++naddrs > MAX_ADDRS) {
					ok = 0;
					break;
				}
				if (json_u64(cJSON_GetArrayItem(fr, 1), &addr))
					addr = 0;
				if (idx < 0 || idx >= nmods)
					idx = -1;
				fputs(j ? ", " : "", f);
				v5_frame(sv, f, j, idx >= 0 ? mm_str(mm, idx, 0) : NULL,
					 idx >= 0 ? mm_str(mm, idx, 1) : NULL, addr,
					 idx >= 0 ? &found[idx] : &found[nmods]);
				j++;
			}
			fputs("]", f);
		}
		fputs("], \"found_modules\": {", f);
		for (i = 0; i < nmods; i++) {
			const char *dn = mm_str(mm, i, 0), *id = mm_str(mm, i, 1);
			char key[1024];

			snprintf(key, sizeof(key), "%s/%s", dn ? dn : "", id ? id : "");
			fputs(i ? ", " : "", f);
			cli_json_str(f, key);
			fputs(found[i] ? ": true" : ": false", f);
		}
		fputs("}}", f);
		free(found);
	}
	pthread_mutex_unlock(&sv->mu);
	fputs("]}\n", f);
	if (fclose(f) || !ok) {
		free(buf);
		return send_json_error(sv, c, MHD_HTTP_CONTENT_TOO_LARGE,
				       "too many addresses in one request");
	}
	return send_buf(sv, c, MHD_HTTP_OK, "application/json", buf, len);
}

/* file after the first --source-map FROM=TO whose FROM prefixes it. */
static void map_source(const struct cli_serve *o, const char *file, char *out, size_t cap)
{
	size_t i;

	for (i = 0; i < o->nsource_maps; i++) {
		const char *m = o->source_maps[i], *eq = strchr(m, '=');
		size_t n = eq ? (size_t)(eq - m) : 0;

		if (n && strncmp(file, m, n) == 0 && (file[n] == '/' || file[n] == 0 ||
						      m[n - 1] == '/')) {
			snprintf(out, cap, "%s%s", eq + 1, file + n);
			return;
		}
	}
	snprintf(out, cap, "%s", file);
}

/* Read a regular file of at most MAX_SOURCE bytes; NULL on failure. */
static char *read_source(const char *path, size_t *len)
{
	struct stat st;
	char *p;
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > (off_t)MAX_SOURCE) {
		close(fd);
		return NULL;
	}
	p = malloc((size_t)st.st_size + 1);
	while (p && got < (size_t)st.st_size) {
		ssize_t n = read(fd, p + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (p)
		p[got] = 0;
	*len = got;
	return p;
}

static enum MHD_Result api_source(struct server *sv, struct MHD_Connection *c, const cJSON *q)
{
	const char *dn = json_s(q, "debugName"), *id = json_s(q, "debugId"),
		   *file = json_s(q, "file");
	struct profconv_symbol sym = PROFCONV_INIT(struct profconv_symbol);
	uint64_t addr;
	char path[8192], *text, *buf = NULL;
	size_t tlen, len = 0;
	uint32_t k;
	int named = 0;
	FILE *f;

	if (!dn || !id || !file || json_u64(cJSON_GetObjectItemCaseSensitive(q, "moduleOffset"),
					    &addr))
		return send_json_error(sv, c, MHD_HTTP_BAD_REQUEST,
				       "expected debugName, debugId, moduleOffset and file");
	/* only a file that the debug info names at this address */
	pthread_mutex_lock(&sv->mu);
	if (profconv_symbols_lookup(sv->syms, dn, id, addr, &sym) == PROFCONV_OK)
		for (k = 0; k < sym.nframes && !named; k++)
			named = sym.frames[k].file[0] && strcmp(sym.frames[k].file, file) == 0;
	pthread_mutex_unlock(&sv->mu);
	if (!named)
		return send_json_error(sv, c, MHD_HTTP_NOT_FOUND,
				       "the debug info does not name this file at this address");
	map_source(sv->opt, file, path, sizeof(path));
	text = read_source(path, &tlen);
	if (!text)
		return send_json_error(sv, c, MHD_HTTP_NOT_FOUND, "cannot read the source file");
	f = open_memstream(&buf, &len);
	if (!f) {
		free(text);
		return MHD_NO;
	}
	fputs("{\"symbolsLastModified\": null, \"sourceLastModified\": null, \"file\": ", f);
	cli_json_str(f, file);
	fputs(", \"source\": ", f);
	cli_json_str(f, text);
	fputs("}\n", f);
	free(text);
	if (fclose(f))
		return MHD_NO;
	return send_buf(sv, c, MHD_HTTP_OK, "application/json", buf, len);
}

static int cs_for(const char *arch, csh *h)
{
	if (strcmp(arch, "x86_64") == 0)
		return cs_open(CS_ARCH_X86, CS_MODE_64, h) == CS_ERR_OK ? 0 : -1;
	if (strcmp(arch, "i686") == 0)
		return cs_open(CS_ARCH_X86, CS_MODE_32, h) == CS_ERR_OK ? 0 : -1;
	if (strcmp(arch, "aarch64") == 0)
		return cs_open(CS_ARCH_ARM64, CS_MODE_ARM, h) == CS_ERR_OK ? 0 : -1;
	if (strcmp(arch, "arm") == 0)
		return cs_open(CS_ARCH_ARM, CS_MODE_ARM, h) == CS_ERR_OK ? 0 : -1;
	return -1;
}

static enum MHD_Result api_asm(struct server *sv, struct MHD_Connection *c, const cJSON *q)
{
	const char *dn = json_s(q, "debugName"), *id = json_s(q, "debugId");
	const cJSON *cont = cJSON_GetObjectItemCaseSensitive(q, "continueUntilFunctionEnd");
	struct profconv_code code = PROFCONV_INIT(struct profconv_code);
	struct profconv_symbol sym = PROFCONV_INIT(struct profconv_symbol);
	uint64_t start, size, svma;
	const uint8_t *p;
	unsigned char *copy = NULL;
	size_t left, len = 0, i;
	char *buf = NULL, arch[16], why[600];
	cs_insn *insn;
	csh h;
	FILE *f;
	int first = 1;

	if (!dn || !id || json_u64(cJSON_GetObjectItemCaseSensitive(q, "startAddress"), &start) ||
	    json_u64(cJSON_GetObjectItemCaseSensitive(q, "size"), &size))
		return send_json_error(sv, c, MHD_HTTP_BAD_REQUEST,
				       "expected debugName, debugId, startAddress and size");
	pthread_mutex_lock(&sv->mu);
	if (cJSON_IsTrue(cont) &&
	    profconv_symbols_lookup(sv->syms, dn, id, start, &sym) == PROFCONV_OK &&
	    sym.nframes && sym.length && sym.start + sym.length > start + size)
		size = sym.start + sym.length - start;
	if (size > MAX_ASM)
		size = MAX_ASM;
	memset(&code, 0, sizeof(code));
	code.size = sizeof(code);
	if (profconv_symbols_code(sv->syms, dn, id, start, size, &code) == PROFCONV_OK &&
	    code.len) {
		/* the bytes stay mapped while syms lives; copied to work unlocked */
		copy = malloc(code.len);
		if (copy)
			memcpy(copy, code.bytes, code.len);
	}
	snprintf(arch, sizeof(arch), "%s", code.arch ? code.arch : "");
	pthread_mutex_unlock(&sv->mu);
	if (!copy)
		return send_json_error(sv, c, MHD_HTTP_NOT_FOUND,
				       "no binary with this code found for the library");
	if (cli_dl_capstone(why, sizeof(why))) {
		char msg[700];

		free(copy);
		snprintf(msg, sizeof(msg), "disassembly needs capstone: %s", why);
		return send_json_error(sv, c, MHD_HTTP_NOT_IMPLEMENTED, msg);
	}
	if (cs_for(arch, &h)) {
		free(copy);
		return send_json_error(sv, c, MHD_HTTP_NOT_FOUND,
				       "no disassembler for this architecture");
	}
	insn = cs_malloc(h);
	f = open_memstream(&buf, &len);
	if (!insn || !f) {
		if (f)
			fclose(f);
		free(buf);
		cs_free(insn, 1);
		cs_close(&h);
		free(copy);
		return MHD_NO;
	}
	fprintf(f, "{\"startAddress\": \"0x%llx\", \"size\": \"0x%zx\", \"arch\": ",
		(unsigned long long)start, code.len);
	cli_json_str(f, arch);
	fputs(", \"syntax\": [\"Intel\"], \"instructions\": [", f);
	p = copy;
	left = code.len;
	svma = code.svma;
	while (left) {
		size_t off = (size_t)(p - copy), n;
		const uint8_t *at = p;

		fputs(first ? "[" : ", [", f);
		first = 0;
		if (cs_disasm_iter(h, &p, &left, &svma, insn)) {
			char text[256];

			snprintf(text, sizeof(text), "%s%s%s", insn->mnemonic,
				 insn->op_str[0] ? " " : "", insn->op_str);
			fprintf(f, "%zu, ", off);
			cli_json_str(f, text);
			n = insn->size;
		} else {
			/* not an instruction: one byte (x86) or one word, as data */
			n = strcmp(arch, "aarch64") == 0 || strcmp(arch, "arm") == 0 ? 4 : 1;
			if (n > left)
				n = left;
			fprintf(f, "%zu, \"(bad)\"", off);
			p += n;
			left -= n;
			svma += n;
		}
		fputs(", {\"bytes\": \"", f);
		for (i = 0; i < n; i++)
			fprintf(f, "%02x", at[i]);
		fputs("\"}]", f);
	}
	fputs("]}\n", f);
	cs_free(insn, 1);
	cs_close(&h);
	free(copy);
	if (fclose(f))
		return MHD_NO;
	return send_buf(sv, c, MHD_HTTP_OK, "application/json", buf, len);
}

/* --- pages --- */

static void profile_url(const struct server *sv, size_t i, char *out, size_t cap)
{
	char local[1024], enc[3200], sym[1600];

	snprintf(local, sizeof(local), "%s/%zu/%s", sv->base, i + 1, sv->profiles[i].name);
	url_encode(local, enc, sizeof(enc));
	url_encode(sv->base, sym, sizeof(sym));
	snprintf(out, cap, "%s/from-url/%s/?symbolServer=%s", sv->opt->origin, enc, sym);
}

static void html_str(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '"')
			fputs("&quot;", f);
		else
			fputc(*s, f);
	}
}

static enum MHD_Result page_index(struct server *sv, struct MHD_Connection *c)
{
	char *buf = NULL, url[6000];
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return MHD_NO;
	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>profconv serve</title>"
	      "</head><body>\n<h1>profconv serve</h1>\n<ul>\n",
	      f);
	for (i = 0; i < sv->nprofiles; i++) {
		profile_url(sv, i, url, sizeof(url));
		fputs("<li><a href=\"", f);
		html_str(f, url);
		fputs("\">", f);
		html_str(f, sv->profiles[i].name);
		fputs("</a> (", f);
		html_str(f, sv->profiles[i].input);
		fprintf(f, "; <a href=\"%zu/", i + 1);
		html_str(f, sv->profiles[i].name);
		fputs("\">JSON</a>)</li>\n", f);
	}
	fputs("</ul>\n<p>Symbol server API: POST symbolicate/v5, source/v1, asm/v1.</p>\n"
	      "</body></html>\n",
	      f);
	if (fclose(f))
		return MHD_NO;
	return send_buf(sv, c, MHD_HTTP_OK, "text/html; charset=utf-8", buf, len);
}

static enum MHD_Result page_profile(struct server *sv, struct MHD_Connection *c, size_t i,
				    int head)
{
	struct MHD_Response *r;
	struct stat st;
	enum MHD_Result ret;
	int fd = open(sv->profiles[i].file, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st)) {
		if (fd >= 0)
			close(fd);
		return send_text(sv, c, MHD_HTTP_INTERNAL_SERVER_ERROR, "cannot read the profile\n");
	}
	r = MHD_create_response_from_fd((uint64_t)st.st_size, fd); /* closes fd */
	if (!r) {
		close(fd);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", "application/json");
	MHD_add_response_header(r, "Cache-Control", "no-store");
	cors(sv, c, r);
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	if (!head)
		__atomic_store_n(&sv->fetched, 1, __ATOMIC_RELAXED);
	return ret;
}

/* --- the request handler --- */

static int host_ok(const struct server *sv, struct MHD_Connection *c)
{
	const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host");

	return h && (strcasecmp(h, sv->hostport) == 0 ||
		     (sv->alt_hostport[0] && strcasecmp(h, sv->alt_hostport) == 0));
}

/* url starts with /TOKEN/ or is /TOKEN (compared in constant time). */
static int token_at(const struct server *sv, const char *url)
{
	size_t tl = strlen(sv->token), i;
	unsigned char diff = 0;

	if (url[0] != '/' || strnlen(url + 1, tl) != tl)
		return 0;
	for (i = 0; i < tl; i++)
		diff |= (unsigned char)(url[1 + i] ^ sv->token[i]);
	return diff == 0 && (url[1 + tl] == '/' || url[1 + tl] == 0);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *upload_size, void **con_cls)
{
	struct server *sv = cls;
	struct req *rq = *con_cls;
	const char *origin, *rest;
	size_t tl = strlen(sv->token);
	int post = strcmp(method, "POST") == 0;

	(void)version;
	if (!rq) {
		const char *cl;

		rq = calloc(1, sizeof(*rq));
		if (!rq)
			return MHD_NO;
		*con_cls = rq;
		/* checks that need no body: answered at once */
		if (!host_ok(sv, c))
			return send_text(NULL, c, MHD_HTTP_FORBIDDEN,
					 "wrong Host: this server answers only for its own address\n");
		origin = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin");
		if (origin && strcmp(origin, sv->opt->origin) != 0)
			return send_text(NULL, c, MHD_HTTP_FORBIDDEN, "foreign Origin\n");
		if (!token_at(sv, url))
			return send_text(NULL, c, MHD_HTTP_NOT_FOUND, "not found\n");
		if (strcmp(method, "OPTIONS") == 0) {
			struct MHD_Response *r =
				MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
			enum MHD_Result ret;

			if (!r)
				return MHD_NO;
			cors(sv, c, r);
			MHD_add_response_header(r, "Access-Control-Allow-Methods",
						"GET, POST, OPTIONS");
			MHD_add_response_header(r, "Access-Control-Allow-Headers", "Content-Type");
			MHD_add_response_header(r, "Access-Control-Max-Age", "600");
			if (MHD_lookup_connection_value(c, MHD_HEADER_KIND,
							"Access-Control-Request-Private-Network"))
				MHD_add_response_header(r, "Access-Control-Allow-Private-Network",
							"true");
			ret = MHD_queue_response(c, MHD_HTTP_NO_CONTENT, r);
			MHD_destroy_response(r);
			return ret;
		}
		if (!post && strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
			return send_text(sv, c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed\n");
		cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
		if (post && cl && strtoull(cl, NULL, 10) > MAX_BODY)
			return send_text(sv, c, MHD_HTTP_CONTENT_TOO_LARGE, "request too large\n");
		if (!post)
			goto answer;
		return MHD_YES;
	}
	if (post && *upload_size) {
		if (rq->too_big || rq->len + *upload_size > MAX_BODY) {
			rq->too_big = 1;
		} else {
			if (rq->len + *upload_size + 1 > rq->cap) {
				size_t cap = rq->cap ? rq->cap : 4096;
				char *p;

				while (cap < rq->len + *upload_size + 1)
					cap *= 2;
				p = realloc(rq->body, cap);
				if (!p)
					return MHD_NO;
				rq->body = p;
				rq->cap = cap;
			}
			memcpy(rq->body + rq->len, upload, *upload_size);
			rq->len += *upload_size;
			rq->body[rq->len] = 0;
		}
		*upload_size = 0;
		return MHD_YES;
	}
answer:
	rest = url + 1 + tl;
	if (post) {
		cJSON *q;
		enum MHD_Result ret;

		if (rq->too_big)
			return send_text(sv, c, MHD_HTTP_CONTENT_TOO_LARGE, "request too large\n");
		if (strcmp(rest, "/symbolicate/v5") != 0 && strcmp(rest, "/source/v1") != 0 &&
		    strcmp(rest, "/asm/v1") != 0)
			return send_text(sv, c, MHD_HTTP_NOT_FOUND, "not found\n");
		q = rq->body ? cJSON_ParseWithLength(rq->body, rq->len) : NULL;
		if (!cJSON_IsObject(q)) {
			cJSON_Delete(q);
			return send_json_error(sv, c, MHD_HTTP_BAD_REQUEST,
					       "the request is not a JSON object");
		}
		if (strcmp(rest, "/symbolicate/v5") == 0)
			ret = api_symbolicate(sv, c, q);
		else if (strcmp(rest, "/source/v1") == 0)
			ret = api_source(sv, c, q);
		else
			ret = api_asm(sv, c, q);
		cJSON_Delete(q);
		return ret;
	}
	if (rest[0] == 0 || strcmp(rest, "/") == 0 || strcmp(rest, "/index.html") == 0)
		return page_index(sv, c);
	{
		char *end;
		unsigned long n;

		if (rest[0] == '/' && rest[1] >= '1' && rest[1] <= '9') {
			n = strtoul(rest + 1, &end, 10);
			if (n >= 1 && n <= sv->nprofiles && *end == '/' &&
			    strcmp(end + 1, sv->profiles[n - 1].name) == 0)
				return page_profile(sv, c, n - 1, strcmp(method, "HEAD") == 0);
		}
	}
	return send_text(sv, c, MHD_HTTP_NOT_FOUND, "not found\n");
}

static void done(void *cls, struct MHD_Connection *c, void **con_cls,
		 enum MHD_RequestTerminationCode toe)
{
	struct req *rq = *con_cls;

	(void)cls;
	(void)c;
	(void)toe;
	if (rq) {
		free(rq->body);
		free(rq);
		*con_cls = NULL;
	}
}

/* --- setting up --- */

/*
 * A signal while converting (before serving): remove everything in the
 * private temporary directory (the profiles written so far, the one being
 * written, whatever its name) and the directory, then die of the signal.
 * It runs on the main thread, the only one that creates files there: a
 * library thread that takes the signal passes it on to the main thread.
 * Only async-signal-safe calls (getdents64 for the names).
 */
struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

static struct server *conv_sv;
static pthread_t main_thread;

static void on_conv_signal(int sig)
{
	struct server *sv = conv_sv;
	char buf[4096];
	long n;
	int fd;

	if (!pthread_equal(pthread_self(), main_thread)) {
		pthread_kill(main_thread, sig);
		return;
	}
	fd = sv && sv->tmpdir[0] ? open(sv->tmpdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	while (fd >= 0 && (n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		long off = 0;

		while (off < n) {
			struct linux_dirent64 *e = (struct linux_dirent64 *)(void *)(buf + off);

			if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
				unlinkat(fd, e->d_name, 0);
			off += e->d_reclen;
		}
	}
	if (fd >= 0) {
		close(fd);
		rmdir(sv->tmpdir);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static int add_profile(struct server *sv, const char *input, size_t *cap)
{
	struct profconv_ctx *ctx = cli_ctx_new(sv->st);
	struct profconv_profile *p = NULL;
	struct served *s;
	char file[4200];
	int err;

	if (!ctx)
		return 1;
	if (sv->nprofiles == *cap) {
		size_t ncap = *cap ? *cap * 2 : 8;
		struct served *np = realloc(sv->profiles, ncap * sizeof(*np));

		if (!np) {
			profconv_ctx_free(ctx);
			return 1;
		}
		sv->profiles = np;
		*cap = ncap;
	}
	s = &sv->profiles[sv->nprofiles];
	memset(s, 0, sizeof(*s));
	snprintf(file, sizeof(file), "%s/%zu.json", sv->tmpdir, sv->nprofiles + 1);
	err = profconv_read_path(ctx, input, &p);
	if (!err)
		err = profconv_write_path(ctx, p, PROFCONV_OUT_PROCESSED, file);
	if (!err) {
		pthread_mutex_lock(&sv->mu);
		err = profconv_symbols_add_libs(sv->syms, p);
		pthread_mutex_unlock(&sv->mu);
	}
	if (err) {
		cli_fail(ctx);
		unlink(file);
		profconv_profile_free(p);
		profconv_ctx_free(ctx);
		return 1;
	}
	profconv_profile_free(p);
	profconv_ctx_free(ctx);
	safe_name(input, s->name, sizeof(s->name));
	s->file = strdup(file);
	s->input = strdup(input);
	if (!s->file || !s->input) {
		free(s->file);
		free(s->input);
		unlink(file);
		return 1;
	}
	sv->nprofiles++;
	return 0;
}

static int is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* A folder: every regular, not hidden file in it, in name order. */
static int add_folder(struct server *sv, const char *dir, size_t *cap)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, alphasort), i, rc = 0;

	if (n < 0) {
		fprintf(stderr, "profconv: error: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	for (i = 0; i < n; i++) {
		char path[4200];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
		if (!rc && ents[i]->d_name[0] != '.' && stat(path, &st) == 0 &&
		    S_ISREG(st.st_mode))
			rc = add_profile(sv, path, cap);
		free(ents[i]);
	}
	free(ents);
	return rc;
}

static void cleanup(struct server *sv)
{
	size_t i;

	for (i = 0; i < sv->nprofiles; i++) {
		unlink(sv->profiles[i].file);
		free(sv->profiles[i].file);
		free(sv->profiles[i].input);
	}
	free(sv->profiles);
	if (sv->tmpdir[0])
		rmdir(sv->tmpdir);
	profconv_symbols_free(sv->syms);
	profconv_ctx_free(sv->symctx);
}

static int is_loopback(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr) >> 24) == 127;
	return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)ss)->sin6_addr);
}

/* Bind and listen on host:port; the fd, or -1 after a message. */
static int listen_on(struct server *sv, const char *host, unsigned port)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd, one = 1, v6 = strchr(host, ':') != NULL;
	char shown[INET6_ADDRSTRLEN + 4];

	memset(&ss, 0, sizeof(ss));
	if (v6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		if (inet_pton(AF_INET6, host, &a->sin6_addr) != 1)
			goto bad_host;
		sl = sizeof(*a);
		snprintf(shown, sizeof(shown), "[%s]", host);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;

		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
			goto bad_host;
		sl = sizeof(*a);
		snprintf(shown, sizeof(shown), "%s", host);
	}
	if (!is_loopback(&ss) && !sv->opt->allow_remote) {
		fprintf(stderr,
			"profconv: --host %s is not a loopback address: anyone who can reach it "
			"and learns the URL can read the profiles and the source files they name; "
			"add --allow-remote to serve there anyway\n",
			host);
		return -2;
	}
	if (!is_loopback(&ss))
		fprintf(stderr,
			"profconv: warning: serving on %s, which other machines may reach; the "
			"URL's token is the only protection\n",
			host);
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (fd < 0 || bind(fd, (struct sockaddr *)&ss, sl) != 0 || listen(fd, 511) != 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &sl) != 0) {
		fprintf(stderr, "profconv: error: cannot listen on %s port %u: %s\n", host, port,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
					      : ((struct sockaddr_in *)&ss)->sin_port);
	snprintf(sv->hostport, sizeof(sv->hostport), "%s:%u", shown, port);
	if (is_loopback(&ss))
		snprintf(sv->alt_hostport, sizeof(sv->alt_hostport), "localhost:%u", port);
	snprintf(sv->base, sizeof(sv->base), "http://%s/%s", sv->hostport, sv->token);
	return fd;

bad_host:
	fprintf(stderr, "profconv: --host takes a numeric IPv4 or IPv6 address, not '%s'\n", host);
	return -2;
}

int cli_serve(const struct cli_settings *st, const struct cli_serve *opt, char **inputs,
	      int ninputs)
{
	static struct server sv;
	struct MHD_Daemon *d = NULL;
	struct rlimit rl;
	struct sigaction act, old_int, old_term, old_hup;
	sigset_t set;
	size_t cap = 0, i;
	time_t deadline;
	const char *td = getenv("TMPDIR");
	int lfd = -1, rc = 1, sig = 0;

	{
		/* an origin: http(s)://HOST[:PORT], nothing after */
		const char *o = opt->origin, *h = strstr(o, "://");

		if ((strncmp(o, "https://", 8) != 0 && strncmp(o, "http://", 7) != 0) || !h[3] ||
		    strchr(h + 3, '/') || strpbrk(o, " \t\r\n\"<>")) {
			fprintf(stderr,
				"profconv: --origin takes http(s)://HOST[:PORT] with no path, not '%s'\n",
				o);
			return 2;
		}
	}
	{
		char why[600];

		if (cli_dl_mhd(why, sizeof(why))) {
			fprintf(stderr, "profconv: error: serve needs libmicrohttpd: %s\n", why);
			return 1;
		}
	}
	memset(&sv, 0, sizeof(sv));
	sv.st = st;
	sv.opt = opt;
	pthread_mutex_init(&sv.mu, NULL);
	if (random_token(sv.token)) {
		fprintf(stderr, "profconv: error: getrandom failed: %s\n", strerror(errno));
		return 1;
	}
	lfd = listen_on(&sv, opt->host ? opt->host : "127.0.0.1", opt->port);
	if (lfd < 0)
		return lfd == -2 ? 2 : 1;
	sv.symctx = cli_ctx_new(st);
	if (!sv.symctx || profconv_symbols_new(sv.symctx, &sv.syms)) {
		close(lfd);
		cleanup(&sv);
		return 1;
	}
	snprintf(sv.tmpdir, sizeof(sv.tmpdir), "%s/profconv-serve-XXXXXX",
		 td && *td && strlen(td) < 4000 ? td : "/tmp");
	if (!mkdtemp(sv.tmpdir)) {
		fprintf(stderr, "profconv: error: cannot make a temporary directory %s: %s\n",
			sv.tmpdir, strerror(errno));
		sv.tmpdir[0] = 0;
		goto out;
	}
	/* converting: a signal removes the files and ends the process */
	memset(&act, 0, sizeof(act));
	act.sa_handler = on_conv_signal;
	sigemptyset(&act.sa_mask);
	conv_sv = &sv;
	main_thread = pthread_self();
	sigaction(SIGINT, &act, &old_int);
	sigaction(SIGTERM, &act, &old_term);
	sigaction(SIGHUP, &act, &old_hup);
	for (i = 0; i < (size_t)ninputs; i++)
		if (is_dir(inputs[i]) ? add_folder(&sv, inputs[i], &cap)
				      : add_profile(&sv, inputs[i], &cap))
			break;
	/* serving: SIGINT/SIGTERM are taken by sigtimedwait() below; every
	 * thread started from here on inherits the mask */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	conv_sv = NULL;
	if (i < (size_t)ninputs)
		goto out;
	if (!sv.nprofiles) {
		fputs("profconv: error: no profile to serve\n", stderr);
		goto out;
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	/* libmicrohttpd's own messages (refused requests and the like) with -v */
	d = MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD | (st->verbose ? MHD_USE_ERROR_LOG : 0),
			     0, NULL, NULL,
			     handle, &sv, MHD_OPTION_LISTEN_SOCKET, lfd,
			     MHD_OPTION_THREAD_POOL_SIZE, (unsigned)POOL_THREADS,
			     MHD_OPTION_CONNECTION_LIMIT, (unsigned)CONN_LIMIT,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)CONN_TIMEOUT,
			     MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONN_MEMORY,
			     MHD_OPTION_NOTIFY_COMPLETED, done, &sv, MHD_OPTION_END);
	if (!d) {
		fputs("profconv: error: cannot start the HTTP server\n", stderr);
		goto out;
	}
	lfd = -1; /* the daemon's now */
	for (i = 0; i < sv.nprofiles; i++) {
		char url[6000];

		profile_url(&sv, i, url, sizeof(url));
		printf("%s\n", url);
	}
	fflush(stdout);
	if (!st->quiet)
		fprintf(stderr,
			"profconv: serving %zu profile%s at %s/ (index page); Ctrl-C to stop\n",
			sv.nprofiles, sv.nprofiles == 1 ? "" : "s", sv.base);
	if (!opt->no_open) {
		char url[6000];

		if (sv.nprofiles == 1)
			profile_url(&sv, 0, url, sizeof(url));
		else
			snprintf(url, sizeof(url), "%s/", sv.base);
		open_browser(url);
	}
	deadline = opt->timeout ? time(NULL) + (time_t)opt->timeout : 0;
	for (;;) {
		struct timespec ts = { 1, 0 };

		sig = sigtimedwait(&set, NULL, &ts);
		if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP)
			break;
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (deadline && !__atomic_load_n(&sv.fetched, __ATOMIC_RELAXED) &&
		    time(NULL) >= deadline) {
			fprintf(stderr, "profconv: error: nothing fetched a profile in %u s\n",
				opt->timeout);
			goto out;
		}
	}
	if (!st->quiet)
		fprintf(stderr, "profconv: stopped (%s)\n",
			sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "SIGHUP");
	rc = 0;
out:
	if (d)
		MHD_stop_daemon(d);
	if (lfd >= 0)
		close(lfd);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	cleanup(&sv);
	pthread_mutex_destroy(&sv.mu);
	return rc;
}
