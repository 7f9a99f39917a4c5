/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_jw_scalar.c - test_jw.c's tests on the JSON writer built without
 * SSE2 (the path of targets that lack it): jw.c is compiled here with
 * PC_JW_SCALAR, and its definitions take the place of the library's.
 */
#define PC_JW_SCALAR 1
#include "json/jw.c"

#include "test_jw.c"
