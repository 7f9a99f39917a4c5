/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_validate.h - the structural checker behind profconv_validate_path().
 *
 * Checks a Firefox Profiler processed profile (format v70; older versions
 * back to v41 are checked against their own layout: per-thread tables
 * before v60, prefix before prefixOffset, ...) or a Gecko profile (v36 and
 * older, including every processes[] sub-profile) in one streaming pass: column lengths, every
 * index in range, parents before children, categories and subcategories,
 * marker phases, sample times, libs.  The file is never held whole: index
 * columns are kept as int32 arrays until the tables they point into are
 * known (keys may come in any order), string tables only as counts, and
 * cJSON is used for meta and single lib entries only.
 */
#ifndef PC_VALIDATE_H
#define PC_VALIDATE_H

#include "core/pc_core.h"
#include "io/pc_input.h"

/* Problems of one kind passed to the diagnostics callback; the rest are counted. */
#define PC_VALIDATE_MAX_SHOWN 20

/*
 * Validate the profile read from in.  Each problem goes to ctx's
 * diagnostics callback as "FILE: JSON.path[i]: what" (PROFCONV_ERROR, or
 * PROFCONV_WARNING for things the front-end tolerates), the first
 * PC_VALIDATE_MAX_SHOWN of each kind, then one line with the count of the
 * rest.  One summary line goes to out, e.g.
 *   "x.json: valid processed profile v70: 3 threads, 1234 samples, 567 stacks, 89 frames, 45 funcs"
 *   "x.json: INVALID processed profile v70: 7 problems (3 index out of range, 4 column length)"
 * Returns 0 when valid (warnings allowed), PROFCONV_ERR_INVALID when
 * problems were found, or the pc_fail() code when the input is not JSON
 * (PROFCONV_ERR_CORRUPT with "FILE:LINE:COL: ...") or cannot be read.
 */
int pc_validate(struct profconv_ctx *ctx, struct pc_input *in, struct pc_text_out *out);

/*
 * Whether a category color is one the front-end draws (the format's list or
 * the renderer's aliases): the readers replace others, so that whatever they
 * accept, validate accepts.
 */
int pc_category_color_known(const char *color);

#endif /* PC_VALIDATE_H */
