/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * view.c - profconv view FILE: convert FILE, serve the profile once on
 * 127.0.0.1 and point the Firefox Profiler at it, as `samply load` does.
 *
 *   1. convert (any input format; processed JSON) into memory;
 *   2. listen on 127.0.0.1 at a port the system picks;
 *   3. print https://profiler.firefox.com/from-url/<the local URL, encoded>
 *      and, when a desktop is there (DISPLAY or WAYLAND_DISPLAY) and not
 *      --no-open, open it with xdg-open;
 *   4. answer GET of the one path (a random token, so no other page can
 *      guess it) with the profile and the CORS header the front-end needs to
 *      read a response from another origin, then exit 0; any other path is
 *      404 and the server keeps waiting; OPTIONS (a CORS preflight) is
 *      answered, with Access-Control-Allow-Private-Network for Chromium's
 *      preflight before a public page reaches 127.0.0.1; Ctrl-C, or --timeout SEC without a fetch, ends it (status
 *      1 for the timeout).
 *
 * Uses only the public header; the HTTP side is the few lines a one-shot
 * local server needs (HTTP/1.1, Connection: close).
 */
#define _POSIX_C_SOURCE 200809L

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define ORIGIN "https://profiler.firefox.com"

struct buf {
	char *p;
	size_t len, cap;
};

static int buf_write(void *user, const void *data, size_t len)
{
	struct buf *b = user;

	if (b->len + len > b->cap) {
		size_t cap = b->cap ? b->cap : 1 << 20;
		char *p;

		while (cap < b->len + len)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p)
			return -1;
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, len);
	b->len += len;
	return 0;
}

static int send_all(int fd, const void *p, size_t len)
{
	const char *c = p;

	while (len) {
		ssize_t n = send(fd, c, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		c += n;
		len -= (size_t)n;
	}
	return 0;
}

/* 32 hex digits from /dev/urandom (the path no other page can guess). */
static int random_token(char *out)
{
	unsigned char r[16];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC), i;
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, r, sizeof(r));
	close(fd);
	if (n != (ssize_t)sizeof(r))
		return -1;
	for (i = 0; i < 16; i++)
		snprintf(out + 2 * i, 3, "%02x", r[i]);
	return 0;
}

/* Percent-encode s for a path segment of the from-url URL. */
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

/* The file name shown in the URL: the input's, made safe. */
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
	snprintf(out + n, cap - n, ".json");
}

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
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

/*
 * One request on fd: returns 1 when the profile was sent (done), 0 to keep
 * serving.
 */
static int serve_one(int fd, const char *path, const struct buf *body)
{
	char req[8192], head[512], method[16], target[1024];
	size_t n = 0;
	int hl;

	/* read the request head (up to the blank line), a few seconds at most */
	while (n < sizeof(req) - 1) {
		struct pollfd pf = { fd, POLLIN, 0 };
		ssize_t r;

		if (poll(&pf, 1, 5000) <= 0)
			return 0;
		r = recv(fd, req + n, sizeof(req) - 1 - n, 0);
		if (r <= 0)
			return 0;
		n += (size_t)r;
		req[n] = 0;
		if (strstr(req, "\r\n\r\n") || strstr(req, "\n\n"))
			break;
	}
	if (sscanf(req, "%15s %1023s", method, target) != 2)
		return 0;
	if (strcmp(method, "OPTIONS") == 0) {
		hl = snprintf(head, sizeof(head),
			      "HTTP/1.1 204 No Content\r\nAccess-Control-Allow-Origin: " ORIGIN
			      "\r\nAccess-Control-Allow-Methods: GET, OPTIONS\r\n"
			      "Access-Control-Allow-Headers: *\r\n"
			      "Access-Control-Allow-Private-Network: true\r\nContent-Length: 0\r\n"
			      "Connection: close\r\n\r\n");
		send_all(fd, head, (size_t)hl);
		return 0;
	}
	if ((strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) ||
	    strcmp(target, path) != 0) {
		static const char nf[] = "not found\n";

		hl = snprintf(head, sizeof(head),
			      "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\n"
			      "Content-Length: %zu\r\nConnection: close\r\n\r\n",
			      sizeof(nf) - 1);
		if (send_all(fd, head, (size_t)hl) == 0 && strcmp(method, "HEAD") != 0)
			send_all(fd, nf, sizeof(nf) - 1);
		return 0;
	}
	hl = snprintf(head, sizeof(head),
		      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
		      "Access-Control-Allow-Origin: " ORIGIN "\r\nContent-Length: %zu\r\n"
		      "Cache-Control: no-store\r\nConnection: close\r\n\r\n",
		      body->len);
	if (send_all(fd, head, (size_t)hl) != 0)
		return 0;
	if (strcmp(method, "HEAD") == 0)
		return 0;
	return send_all(fd, body->p, body->len) == 0;
}

int cli_view(const struct cli_settings *s, const char *input, int no_open, unsigned timeout)
{
	struct profconv_ctx *ctx = cli_ctx_new(s);
	struct profconv_profile *p = NULL;
	struct buf body = { NULL, 0, 0 };
	struct sockaddr_in sa;
	socklen_t salen = sizeof(sa);
	char token[40], name[256], path[400], local[512], enc[1600], url[1700];
	struct sigaction act;
	time_t deadline;
	int lfd = -1, rc = 1, err;

	if (!ctx)
		return 1;
	err = profconv_read_path(ctx, input, &p);
	if (!err)
		err = profconv_write_cb(ctx, p, PROFCONV_OUT_PROCESSED, buf_write, &body);
	if (err) {
		cli_fail(ctx);
		goto out;
	}
	if (random_token(token)) {
		fputs("profconv: error: cannot read /dev/urandom for the URL's token\n", stderr);
		goto out;
	}
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = 0;
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(lfd, 8) != 0 ||
	    getsockname(lfd, (struct sockaddr *)&sa, &salen) != 0) {
		fprintf(stderr, "profconv: error: cannot listen on 127.0.0.1: %s\n", strerror(errno));
		goto out;
	}
	safe_name(input, name, sizeof(name));
	snprintf(path, sizeof(path), "/%s/%s", token, name);
	snprintf(local, sizeof(local), "http://127.0.0.1:%u%s", ntohs(sa.sin_port), path);
	url_encode(local, enc, sizeof(enc));
	snprintf(url, sizeof(url), "%s/from-url/%s", ORIGIN, enc);
	printf("%s\n", url);
	fflush(stdout);
	if (!s->quiet)
		fprintf(stderr, "profconv: serving %s (%zu bytes) once at %s; Ctrl-C to stop\n", input,
			body.len, local);
	if (!no_open)
		open_browser(url);
	memset(&act, 0, sizeof(act));
	act.sa_handler = on_stop;
	sigemptyset(&act.sa_mask);
	sigaction(SIGINT, &act, NULL);
	sigaction(SIGTERM, &act, NULL);
	deadline = timeout ? time(NULL) + (time_t)timeout : 0;
	while (!stop) {
		struct pollfd pf = { lfd, POLLIN, 0 };
		int cfd, done;

		if (deadline && time(NULL) >= deadline) {
			fprintf(stderr, "profconv: error: nothing fetched the profile in %u s\n", timeout);
			goto out;
		}
		if (poll(&pf, 1, 1000) <= 0)
			continue;
		cfd = accept(lfd, NULL, NULL);
		if (cfd < 0)
			continue;
		done = serve_one(cfd, path, &body);
		close(cfd);
		if (done) {
			if (!s->quiet)
				fputs("profconv: the profile was fetched; done\n", stderr);
			rc = 0;
			goto out;
		}
	}
	fputs("profconv: stopped before the profile was fetched\n", stderr);
out:
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	if (lfd >= 0)
		close(lfd);
	free(body.p);
	profconv_profile_free(p);
	profconv_ctx_free(ctx);
	return rc;
}
