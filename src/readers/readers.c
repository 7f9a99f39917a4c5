/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * readers.c - the reader registry: the only list of input formats.
 * Cheap bidders with certain magics come first.
 */
#include "readers/pc_reader.h"

const struct pc_reader *const pc_readers[] = {
	&pc_reader_perf,
	&pc_reader_processed,
	&pc_reader_gecko,
	&pc_reader_chrome,
	&pc_reader_gecko_buffer,
	NULL,
};

const struct pc_reader *pc_reader_find(const char *name)
{
	size_t i;

	for (i = 0; pc_readers[i]; i++)
		if (strcmp(pc_readers[i]->name, name) == 0)
			return pc_readers[i];
	return NULL;
}

const struct pc_reader *pc_reader_detect(const unsigned char *peek, size_t len)
{
	const struct pc_reader *best = NULL;
	int best_bid = 0;
	size_t i;

	for (i = 0; pc_readers[i]; i++) {
		int b;

		if (pc_readers[i]->flags & PC_READER_NOT_IN_AUTO)
			continue;
		b = pc_readers[i]->bid(peek, len);
		if (b > best_bid) {
			best_bid = b;
			best = pc_readers[i];
		}
	}
	return best;
}
