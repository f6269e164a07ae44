/* test-rxvk-totals: the renderer's closing totals line, as librxvk writes
 * it (renderer/src/rxvk.c, log_totals()), read back by the tests that run
 * the demo game:
 *   vk: totals: 11 submissions, 12224 ops, 61 parts (10 ended after a
 *   writer); 45 reads, 21 waited 25.88 ms each (20 at the writer's part,
 *   1 for the whole submission, 0 late); ...
 * These are counts of which rule released each read, not how long anything
 * took, so a busy machine does not change what they show.
 * Header-only so each test is one executable. */
#ifndef TEST_RXVK_TOTALS_H
#define TEST_RXVK_TOTALS_H

#include <stdio.h>
#include <string.h>

struct rxvk_totals {
	unsigned long long submissions, ops;
	unsigned long long parts, split; /* parts, and those ended after a writer */
	unsigned long long reads, waited;
	unsigned long long at_part, whole, late; /* what released the waited reads */
};

/* The first totals line in text: 0, or -1 where text (NULL too) has none
 * or it does not read as above. */
static inline int rxvk_totals_read(const char *text, struct rxvk_totals *t)
{
	const char *line = text ? strstr(text, "vk: totals: ") : NULL;
	if (!line ||
	    sscanf(line, "vk: totals: %llu submissions, %llu ops, %llu parts (%llu ended after a writer); "
	                 "%llu reads, %llu waited %*f ms each (%llu at the writer's part, %llu for the "
	                 "whole submission, %llu late)",
	           &t->submissions, &t->ops, &t->parts, &t->split, &t->reads, &t->waited, &t->at_part,
	           &t->whole, &t->late) != 9)
		return -1;
	return 0;
}

#endif
