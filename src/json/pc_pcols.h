/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_pcols.h - the columns of the processed profile format's tables, in one
 * place for everything that reads them: the processed reader
 * (src/readers/read_processed.c) and `validate` (src/json/pc_vstate.h).
 *
 * Each table is an X-macro list; an entry is
 *   X(ID, "name", rule, target, flags, since, kind)
 * where rule, target, flags and since are the validator's (pc_vstate.h:
 * how a cell is checked, what an index points into, F_* flags, the version
 * from which the column is required) and kind is the reader's (how a cell
 * is read; K_SKIP: a column of older versions that the reader skips).
 * Each user defines X to take the fields it needs, so a column added here
 * reaches both.  Sources: src/types/profile.ts and
 * src/profile-logic/processed-profile-versioning.ts of the Firefox
 * Profiler front-end (docs/formats/processed-profile.md).
 */
#ifndef PC_PCOLS_H
#define PC_PCOLS_H

#define PC_PCOLS_STACK(X)                                                                          \
	X(ST_FRAME, "frame", R_REF, T_FRAMES, F_REQ, 0, K_INT)                                      \
	X(ST_PREFIX, "prefixOffset", R_PREFIX_OFFSET, 0, F_REQ, 66, K_INT)                          \
	X(ST_OLDPREFIX, "prefix", R_PREFIX, 0, F_NULL_OK, 0, K_SKIP)

#define PC_PCOLS_FRAME(X)                                                                          \
	X(FR_ADDRESS, "address", R_ADDR, 0, F_REQ, 0, K_INT)                                        \
	X(FR_LIB, "lib", R_REF, T_LIBS, F_REQ | F_NEG1_OK, 70, K_INT)                               \
	X(FR_INLINE, "inlineDepth", R_NONNEG, 0, F_REQ, 40, K_INT)                                  \
	X(FR_CAT, "category", R_CAT, T_CATEGORIES, F_REQ | F_NULL_OK, 0, K_INT)                     \
	X(FR_SUBCAT, "subcategory", R_SUBCAT, 0, F_REQ, 0, K_INT)                                   \
	X(FR_FUNC, "func", R_REF, T_FUNCS, F_REQ, 0, K_INT)                                         \
	X(FR_NSYM, "nativeSymbol", R_REF, T_NATSYMS, F_REQ | F_NULL_OK, 36, K_INT)                  \
	X(FR_IW, "innerWindowID", R_WINDOW_ID, 0, F_REQ, 27, K_INT)                                 \
	X(FR_LINE, "line", R_NONNEG_NULL, 0, F_REQ, 0, K_INT)                                       \
	X(FR_COLUMN, "column", R_NONNEG_NULL, 0, F_REQ, 0, K_INT)                                   \
	X(FR_ORIGLOC, "originalLocation", R_REF, T_SRCLOCS, F_REQ | F_NULL_OK, 64, K_INT)

#define PC_PCOLS_FUNC(X)                                                                           \
	X(FN_NAME, "name", R_REF, T_STRINGS, F_REQ, 0, K_INT)                                       \
	X(FN_ISJS, "isJS", R_BOOL, 0, F_REQ, 0, K_BOOL)                                             \
	X(FN_RELJS, "relevantForJS", R_BOOL, 0, F_REQ, 0, K_BOOL)                                   \
	X(FN_RES, "resource", R_REF, T_RESOURCES, F_REQ | F_NEG1_OK, 0, K_INT)                      \
	X(FN_SRC, "source", R_REF, T_SOURCES, F_REQ | F_NULL_OK, 58, K_INT)                         \
	X(FN_LINE, "lineNumber", R_NONNEG_NULL, 0, F_REQ, 0, K_INT)                                 \
	X(FN_COLUMN, "columnNumber", R_NONNEG_NULL, 0, F_REQ, 0, K_INT)                             \
	X(FN_ORIGLOC, "originalLocation", R_REF, T_SRCLOCS, F_REQ | F_NULL_OK, 64, K_INT)           \
	X(FN_FILENAME, "fileName", R_REF, T_STRINGS, F_NULL_OK, 0, K_SKIP) /* before v58 */

#define PC_PCOLS_RESOURCE(X)                                                                       \
	X(RS_NAME, "name", R_REF, T_STRINGS, F_REQ, 0, K_INT)                                       \
	X(RS_HOST, "host", R_REF, T_STRINGS, F_REQ | F_NULL_OK, 0, K_INT)                           \
	X(RS_TYPE, "type", R_RES_TYPE, 0, F_REQ, 0, K_INT)                                          \
	X(RS_LIB, "lib", R_REF, T_LIBS, F_NULL_OK, 0, K_INT) /* before v70 */

#define PC_PCOLS_NATSYM(X)                                                                         \
	X(NS_LIB, "libIndex", R_REF, T_LIBS, F_REQ, 0, K_INT)                                       \
	X(NS_ADDRESS, "address", R_INT, 0, F_REQ, 0, K_INT)                                         \
	X(NS_NAME, "name", R_REF, T_STRINGS, F_REQ, 0, K_INT)                                       \
	X(NS_SIZE, "functionSize", R_INT_NULL, 0, F_REQ, 42, K_INT)

#define PC_PCOLS_SOURCE(X)                                                                         \
	X(SR_ID, "id", R_STR_NULL, 0, F_REQ, 61, K_STR)                                             \
	X(SR_FILE, "filename", R_REF, T_STRINGS, F_REQ, 0, K_INT)                                   \
	X(SR_LINE, "startLine", R_INT, 0, F_REQ, 61, K_INT)                                         \
	X(SR_COLUMN, "startColumn", R_INT, 0, F_REQ, 61, K_INT)                                     \
	X(SR_URL, "sourceMapURL", R_REF, T_STRINGS, F_REQ | F_NULL_OK, 61, K_INT)                   \
	X(SR_CONTENT, "content", R_STR_NULL, 0, F_REQ, 64, K_STR)

#define PC_PCOLS_SRCLOC(X)                                                                         \
	X(SL_SOURCE, "source", R_REF, T_SOURCES, F_REQ, 0, K_INT)                                   \
	X(SL_LINE, "line", R_INT, 0, F_REQ, 0, K_INT)                                               \
	X(SL_COLUMN, "column", R_INT, 0, F_REQ, 0, K_INT)

#define PC_PCOLS_SAMPLES(X)                                                                        \
	X(SA_STACK, "stack", R_REF, T_STACKS, F_REQ | F_NULL_OK, 0, K_INT)                          \
	X(SA_TIME, "time", R_TIME, 0, 0, 0, K_MS)                                                   \
	X(SA_DELTAS, "timeDeltas", R_TDELTA, 0, 0, 0, K_MS)                                         \
	X(SA_WEIGHT, "weight", R_NUM, 0, F_NULLCOL, 0, K_WEIGHT)                                    \
	X(SA_DELAY, "eventDelay", R_NUM_NULL, 0, 0, 0, K_MS)                                        \
	X(SA_RESPONSIVENESS, "responsiveness", R_NUM_NULL, 0, 0, 0, K_SKIP)                         \
	X(SA_CPU, "threadCPUDelta", R_NUM_NULL, 0, 0, 0, K_INT)                                     \
	X(SA_ARGS, "argumentValues", R_ANY, 0, 0, 0, K_SKIP)

#define PC_PCOLS_MARKERS(X)                                                                        \
	X(MK_DATA, "data", R_OBJ_NULL, 0, F_REQ, 0, K_RAW)                                          \
	X(MK_NAME, "name", R_REF, T_STRINGS, F_REQ, 0, K_INT)                                       \
	X(MK_START, "startTime", R_MTIME, 0, F_REQ, 0, K_MS)                                        \
	X(MK_END, "endTime", R_MTIME, 0, F_REQ, 0, K_MS)                                            \
	X(MK_PHASE, "phase", R_PHASE, 0, F_REQ, 0, K_INT)                                           \
	X(MK_CAT, "category", R_REF, T_CATEGORIES, F_REQ, 0, K_INT)                                 \
	X(MK_THREADID, "threadId", R_ANY, 0, 0, 0, K_SKIP)

#endif /* PC_PCOLS_H */
