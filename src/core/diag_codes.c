/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * diag_codes.c - the stable codes and identifiers of diagnostics
 * (docs/diagnostics.md is the same table, for people; tests/abi/
 * diag_codes_check.py keeps the two and the warning kinds in src/ in
 * step).
 *
 * Errors carry their status (enum profconv_status, extended codes too);
 * warnings a code from 1000 up, one per kind counted (the kind's text is
 * the key pc_warn() is called with).  Both lists are append-only: a code
 * or identifier, once released, is never renumbered, renamed or reused; a
 * kind that is reworded keeps its code (change the text here and in the
 * docs' table, not the number).
 */
#include "core/pc_core.h"

struct code_row {
	int code;
	const char *id;
	const char *text;
};

static const struct code_row errors[] = {
	{ PROFCONV_ERR_NOMEM, "nomem", NULL },
	{ PROFCONV_ERR_IO, "io", NULL },
	{ PROFCONV_ERR_UNRECOGNIZED, "unrecognized", NULL },
	{ PROFCONV_ERR_CORRUPT, "corrupt", NULL },
	{ PROFCONV_ERR_UNSUPPORTED, "unsupported", NULL },
	{ PROFCONV_ERR_LIMIT, "limit", NULL },
	{ PROFCONV_ERR_USAGE, "usage", NULL },
	{ PROFCONV_ERR_INTERNAL, "internal", NULL },
	{ PROFCONV_ERR_STRICT, "strict", NULL },
	{ PROFCONV_ERR_INVALID, "invalid", NULL },
	{ PROFCONV_ERR_CANCELLED, "cancelled", NULL },
	{ PROFCONV_ERR_CORRUPT_TRUNCATED, "corrupt-truncated", NULL },
	{ PROFCONV_ERR_CORRUPT_BAD_SIZE, "corrupt-bad-size", NULL },
};

/*
 * 1000: a remark of profconv_validate_path() that does not make a file
 * invalid; 1999 (PC_WARN_UNLISTED): a kind this table lacks (a bug).
 */
static const struct code_row warnings[] = {
	{ PC_WARN_VALIDATE, "validate-remark", NULL },
	{ 1001, "scrape-side-files-missing", "scrape side files missing" },
	{ 1002, "scrape-chunks-discontinuous", "discontinuous chunks left out" },
	{ 1003, "input-trailing-bytes", "inputs with trailing bytes (ignored)" },
	{ 1004, "chrome-context-unmatched", "context events that match no active context (ignored)" },
	{ 1005, "chrome-sample-unknown-frame", "samples naming an unknown stack frame dropped" },
	{ 1006, "chrome-frame-chain-cut", "stackFrames parent chains cut" },
	{ 1007, "gbuf-entry-damaged", "damaged buffer entries" },
	{ 1008, "json-category-color-unknown", "unknown category colors replaced" },
	{ 1009, "chrome-trace-truncated", "truncated traces (the events before the cut were read)" },
	{ 1010, "chrome-event-kind-not-imported", "events of kinds not imported" },
	{ 1011, "chrome-event-unusable", "events without a usable name, phase or time" },
	{ 1012, "chrome-end-unmatched", "E events without a matching B" },
	{ 1013, "chrome-frame-not-object", "stackFrames entries that are not objects (skipped)" },
	{ 1014, "profile-counter-sample-dropped", "counter samples dropped" },
	{ 1015, "profile-allocation-marker-dropped", "allocation markers dropped" },
	{ 1016, "profile-marker-no-time", "markers without a time dropped" },
	{ 1017, "profile-category-invalid", "invalid categories replaced" },
	{ 1018, "profile-marker-cause-bad-stack", "marker backtraces with a bad stack dropped" },
	{ 1019, "profile-marker-string-out-of-range", "marker string fields out of range removed" },
	{ 1020, "profile-marker-payload-not-object", "marker payloads that are not objects dropped" },
	{ 1021, "gecko-subprocess-shift-out-of-range", "subprocess samples and markers shifted out of range dropped" },
	{ 1022, "gecko-sample-delay-unusable", "unusable sample eventDelay or threadCPUDelta values made null" },
	{ 1023, "perf-record-unknown-type", "records of unknown type skipped" },
	{ 1024, "perf-record-malformed", "malformed records skipped" },
	{ 1025, "perf-input-truncated", "truncated inputs (the tail was ignored)" },
	{ 1026, "perf-sample-unknown-event", "samples of unknown events skipped" },
	{ 1027, "perf-feature-malformed", "malformed feature sections ignored" },
	{ 1028, "perf-record-out-of-order", "records out of time order" },
	{ 1029, "perf-no-user-stack", "samples without user stacks (--call-graph dwarf with unwinding off)" },
	{ 1030, "perf-unwind-no-cfi", "user stacks through binaries without unwind tables (frame pointers only)" },
	{ 1031, "perf-unwind-32-bit", "user stacks of 32-bit processes not unwound" },
	{ 1032, "perf-unwind-unsupported", "user stacks not unwound (architecture or recorded registers not supported)" },
	{ 1033, "perf-sched-switch-layout", "sched:sched_switch samples of an unknown layout skipped" },
	{ 1034, "gbuf-dump-truncated", "truncated dump" },
	{ 1035, "gbuf-entry-kind-unknown", "unknown buffer entry kinds skipped" },
	{ 1036, "gbuf-string-pointer-unresolved", "unresolved string pointers" },
	{ 1037, "gbuf-marker-type-unknown", "marker types unknown" },
	{ 1038, "gbuf-marker-field-not-decoded", "marker payload fields not decoded" },
	{ 1039, "gbuf-jit-frame-no-info", "JIT frames without JIT info" },
	{ 1040, "gbuf-sample-incomplete", "incomplete samples dropped" },
	{ 1041, "gbuf-same-sample-no-stack", "same-samples without a stack dropped" },
	{ 1042, "gbuf-entry-stray", "stray buffer entries" },
	{ 1043, "gbuf-counter-no-name", "counters without a name" },
	{ 1044, "profile-counter-dropped", "counters dropped" },
	{ 1045, "profile-page-dropped", "pages dropped" },
	{ 1046, "profile-paused-range-ignored", "paused ranges ignored" },
	{ 1047, "processed-marker-string-out-of-range", "marker string fields out of range" },
	{ 1048, "profile-marker-phase-time-missing", "markers without the time their phase needs made instants" },
	{ 1049, "processed-source-location-dropped", "source-mapped locations dropped" },
	{ 1050, "processed-allocation-table-dropped", "allocation tables dropped" },
	{ 1051, "processed-weight-rounded", "non-integer sample weights rounded" },
	{ 1052, "profile-pid-not-numeric", "non-numeric pids or tids replaced by 0" },
	{ 1053, "profile-input-utf8-invalid", "input strings with invalid UTF-8 replaced" },
	{ 1054, "breakpad-line-malformed", "malformed symbol-file lines skipped" },
	{ 1055, "elf-debug-info-problem", "debug info problems skipped" },
	{ 1056, "jitdump-record-damaged", "damaged jitdump records skipped" },
	{ 1057, "sym-path-unusable", "unusable symbol paths ignored" },
	{ 1058, "write-gecko-utf8-invalid", "strings with invalid UTF-8 (written with U+FFFD)" },
	{ 1059, "write-gecko-weights-dropped", "threads whose sample weights were dropped (the Gecko format has none)" },
	{ 1060, "write-processed-utf8-invalid", "output strings with invalid UTF-8 replaced" },
	{ 1061, "gecko-frame-column-unusable", "unusable profconv frame column values ignored" },
	{ 1062, "gbuf-meta-out-of-range", "META values out of range" },
	{ 1063, "gbuf-marker-times-missing", "markers without the times their phase needs" },
	{ 1064, "gbuf-window-id-out-of-range", "inner window ids out of range" },
	{ 1065, "chrome-context-parent-cycle", "context parent cycles" },
	{ 1066, "jitdump-header-damaged", "jitdumps with a damaged header ignored" },
	{ 1067, "scrape-side-file-empty", "scrape side files empty" },
	{ 1068, "scrape-side-line-unreadable", "scrape side file lines unreadable" },
	{ 1069, "gecko-dump-time-base-estimated", "gecko dump time base estimated" },
	{ 1070, "gbuf-dump-without-threads", "dumps in which no thread has a sample or marker" },
};

const char *pc_warn_code(const char *kind, int *code)
{
	size_t i;

	for (i = 1; i < PC_ARRAY_SIZE(warnings); i++)
		if (strcmp(warnings[i].text, kind) == 0) {
			*code = warnings[i].code;
			return warnings[i].id;
		}
	/* a kind missing from the table (diag_codes_check.py fails then) */
	*code = PC_WARN_UNLISTED;
	return "unlisted";
}

PROFCONV_API const char *profconv_code_id(int code)
{
	size_t i;

	if (code == PROFCONV_OK)
		return "ok";
	for (i = 0; i < PC_ARRAY_SIZE(errors); i++)
		if (errors[i].code == code)
			return errors[i].id;
	for (i = 0; i < PC_ARRAY_SIZE(warnings); i++)
		if (warnings[i].code == code)
			return warnings[i].id;
	return code == PC_WARN_UNLISTED ? "unlisted" : NULL;
}
