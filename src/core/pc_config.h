/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_config.h - included first by every library file: strict C11 hides the
 * POSIX functions we use (fileno, mkstemp, pread, mmap), so ask for them.
 */
#ifndef PC_CONFIG_H
#define PC_CONFIG_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE 1
#endif

#endif /* PC_CONFIG_H */
