/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cli_dlopen.h - libmicrohttpd and capstone, loaded with dlopen() when
 * serve/view need them (cli_dlopen.c): linked, their relocations cost every
 * run of profconv a few ms (capstone's tables alone are 77,000 relative
 * relocations), for commands that never use them.
 *
 * serve.c includes this after microhttpd.h and capstone.h: the names it
 * calls become the tables' pointers.  cli_dl_mhd() / cli_dl_capstone()
 * load the library once (thread-safe); 0 when loaded, else -1 with the
 * reason (the library's soname and dlerror()) in why.
 */
#ifndef PROFCONV_CLI_DLOPEN_H
#define PROFCONV_CLI_DLOPEN_H

#include <stddef.h>

#include <capstone/capstone.h>
#include <microhttpd.h>

struct cli_mhd_fns {
	__typeof__(MHD_start_daemon) *start_daemon;
	__typeof__(MHD_stop_daemon) *stop_daemon;
	__typeof__(MHD_lookup_connection_value) *lookup_connection_value;
	__typeof__(MHD_add_response_header) *add_response_header;
	__typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
	__typeof__(MHD_create_response_from_fd) *create_response_from_fd;
	__typeof__(MHD_queue_response) *queue_response;
	__typeof__(MHD_destroy_response) *destroy_response;
};

struct cli_cs_fns {
	__typeof__(cs_open) *open;
	__typeof__(cs_close) *close;
	__typeof__(cs_malloc) *malloc;
	__typeof__(cs_free) *free;
	__typeof__(cs_disasm_iter) *disasm_iter;
};

extern struct cli_mhd_fns cli_mhd;
extern struct cli_cs_fns cli_cs;

int cli_dl_mhd(char *why, size_t cap);
int cli_dl_capstone(char *why, size_t cap);

#ifndef CLI_DLOPEN_IMPL
#define MHD_start_daemon cli_mhd.start_daemon
#define MHD_stop_daemon cli_mhd.stop_daemon
#define MHD_lookup_connection_value cli_mhd.lookup_connection_value
#define MHD_add_response_header cli_mhd.add_response_header
#define MHD_create_response_from_buffer cli_mhd.create_response_from_buffer
#define MHD_create_response_from_fd cli_mhd.create_response_from_fd
#define MHD_queue_response cli_mhd.queue_response
#define MHD_destroy_response cli_mhd.destroy_response
#define cs_open cli_cs.open
#define cs_close cli_cs.close
#define cs_malloc cli_cs.malloc
#define cs_free cli_cs.free
#define cs_disasm_iter cli_cs.disasm_iter
#endif

#endif
