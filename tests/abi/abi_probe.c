/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * abi_probe.c - every type of include/profconv.h in one exported function,
 * so that abidw (abigail-tools) records their layouts from the DWARF of a
 * small shared object built from the header alone (tests/abi/abi_check.sh).
 * abi_check.sh fails when the header defines a struct, enum or callback
 * type this list lacks.
 */
#include <profconv.h>

struct profconv_abi_types {
	struct profconv_diag *diag;
	struct profconv_option *option;
	struct profconv_format *format;
	struct profconv_warning *warning;
	struct profconv_meta *meta;
	struct profconv_thread *thread;
	struct profconv_sample *sample;
	struct profconv_stack *stack;
	struct profconv_frame *frame;
	struct profconv_func *func;
	struct profconv_lib *lib;
	struct profconv_marker *marker;
	struct profconv_counter *counter;
	struct profconv_gecko_scrape_opts *gecko_scrape_opts;
	struct profconv_symbol_frame *symbol_frame;
	struct profconv_symbol *symbol;
	struct profconv_code *code;
	enum profconv_status status;
	enum profconv_severity severity;
	enum profconv_format_kind format_kind;
	profconv_diagnostic_fn *diagnostic_fn;
	profconv_diag_fn *diag_fn;
	profconv_write_fn *write_fn;
	profconv_progress_fn *progress_fn;
	profconv_cancel_fn *cancel_fn;
	profconv_read_fn *read_fn;
};

__attribute__((visibility("default"))) void profconv_abi_probe(struct profconv_abi_types *t);

void profconv_abi_probe(struct profconv_abi_types *t)
{
	(void)t;
}
