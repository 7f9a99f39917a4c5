/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_libarchive.h - libarchive, loaded with dlopen() the first time a
 * compressed input or output, or a tarball of debug files, needs it
 * (libarchive_dl.c).  Linked, it and what it pulls in (libxml2, ICU,
 * libstdc++, ...) cost every run a few ms of relocations and constructors,
 * a tenth of converting a 13 MB Chrome trace.
 *
 * A file that uses libarchive includes this after archive.h and
 * archive_entry.h: the names it calls become the table's pointers.  Call
 * pc_libarchive_need() before the first archive_*_new(); the others are
 * only ever called on what those returned.
 */
#ifndef PROFCONV_PC_LIBARCHIVE_H
#define PROFCONV_PC_LIBARCHIVE_H

#include <stddef.h>

#include <archive.h>
#include <archive_entry.h>

#define PC_LIBARCHIVE_FNS(X)                                                                       \
	X(archive_read_new)                                                                        \
	X(archive_read_support_filter_all)                                                         \
	X(archive_read_support_format_all)                                                         \
	X(archive_read_support_format_tar)                                                         \
	X(archive_read_support_format_cpio)                                                        \
	X(archive_read_support_format_zip)                                                         \
	X(archive_read_support_format_raw)                                                         \
	X(archive_read_open)                                                                       \
	X(archive_read_open_filename)                                                              \
	X(archive_read_next_header)                                                                \
	X(archive_read_data)                                                                       \
	X(archive_read_data_into_fd)                                                               \
	X(archive_read_free)                                                                       \
	X(archive_error_string)                                                                    \
	X(archive_set_error)                                                                       \
	X(archive_format)                                                                          \
	X(archive_format_name)                                                                     \
	X(archive_filter_count)                                                                    \
	X(archive_entry_new)                                                                       \
	X(archive_entry_free)                                                                      \
	X(archive_entry_pathname)                                                                  \
	X(archive_entry_filetype)                                                                  \
	X(archive_entry_set_filetype)                                                              \
	X(archive_write_new)                                                                       \
	X(archive_write_add_filter_gzip)                                                           \
	X(archive_write_add_filter_zstd)                                                           \
	X(archive_write_set_filter_option)                                                         \
	X(archive_write_set_format_raw)                                                            \
	X(archive_write_set_bytes_in_last_block)                                                   \
	X(archive_write_open2)                                                                     \
	X(archive_write_header)                                                                    \
	X(archive_write_data)                                                                      \
	X(archive_write_close)                                                                     \
	X(archive_write_free)

#define PC_LIBARCHIVE_FIELD(f) __typeof__(f) *f;
struct pc_libarchive_fns {
	PC_LIBARCHIVE_FNS(PC_LIBARCHIVE_FIELD)
};
#undef PC_LIBARCHIVE_FIELD

extern struct pc_libarchive_fns pc_libarchive;

struct profconv_ctx;

/*
 * Load libarchive once (thread-safe): 0, or PROFCONV_ERR_UNSUPPORTED
 * recorded on ctx: "WHAT needs libarchive: cannot load SONAME (why)".
 */
int pc_libarchive_need(struct profconv_ctx *ctx, const char *what);
/* The same without a ctx: 0, or -1 and the reason in why. */
int pc_libarchive_load(char *why, size_t cap);

#ifndef PC_LIBARCHIVE_IMPL
#define archive_read_new pc_libarchive.archive_read_new
#define archive_read_support_filter_all pc_libarchive.archive_read_support_filter_all
#define archive_read_support_format_all pc_libarchive.archive_read_support_format_all
#define archive_read_support_format_tar pc_libarchive.archive_read_support_format_tar
#define archive_read_support_format_cpio pc_libarchive.archive_read_support_format_cpio
#define archive_read_support_format_zip pc_libarchive.archive_read_support_format_zip
#define archive_read_support_format_raw pc_libarchive.archive_read_support_format_raw
#define archive_read_open pc_libarchive.archive_read_open
#define archive_read_open_filename pc_libarchive.archive_read_open_filename
#define archive_read_next_header pc_libarchive.archive_read_next_header
#define archive_read_data pc_libarchive.archive_read_data
#define archive_read_data_into_fd pc_libarchive.archive_read_data_into_fd
#define archive_read_free pc_libarchive.archive_read_free
#define archive_error_string pc_libarchive.archive_error_string
#define archive_set_error pc_libarchive.archive_set_error
#define archive_format pc_libarchive.archive_format
#define archive_format_name pc_libarchive.archive_format_name
#define archive_filter_count pc_libarchive.archive_filter_count
#define archive_entry_new pc_libarchive.archive_entry_new
#define archive_entry_free pc_libarchive.archive_entry_free
#define archive_entry_pathname pc_libarchive.archive_entry_pathname
#define archive_entry_filetype pc_libarchive.archive_entry_filetype
#define archive_entry_set_filetype pc_libarchive.archive_entry_set_filetype
#define archive_write_new pc_libarchive.archive_write_new
#define archive_write_add_filter_gzip pc_libarchive.archive_write_add_filter_gzip
#define archive_write_add_filter_zstd pc_libarchive.archive_write_add_filter_zstd
#define archive_write_set_filter_option pc_libarchive.archive_write_set_filter_option
#define archive_write_set_format_raw pc_libarchive.archive_write_set_format_raw
#define archive_write_set_bytes_in_last_block pc_libarchive.archive_write_set_bytes_in_last_block
#define archive_write_open2 pc_libarchive.archive_write_open2
#define archive_write_header pc_libarchive.archive_write_header
#define archive_write_data pc_libarchive.archive_write_data
#define archive_write_close pc_libarchive.archive_write_close
#define archive_write_free pc_libarchive.archive_write_free
#endif

#endif
