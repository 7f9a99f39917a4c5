/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * writers.c - the writer registry.  Adding an output format is one file
 * plus one line here.
 */
#include "writers/pc_writer.h"

const struct pc_writer *const pc_writers[] = {
	&pc_writer_processed,
	&pc_writer_gecko,
	NULL,
};

/* The writer called name, or NULL. */
const struct pc_writer *pc_writer_find(const char *name)
{
	size_t i;

	if (!name)
		return NULL;
	for (i = 0; pc_writers[i]; i++)
		if (strcmp(pc_writers[i]->name, name) == 0)
			return pc_writers[i];
	return NULL;
}
