/* test-rxvk-frame-log: when the renderer's frame log reaches its file
 * (struct rowlog, present.h), on a clock the test drives.  The harness's
 * watchdog and the night of faults read "the file unchanged for over a
 * second" as "no frame in the last second of that time": a row that
 * comes a second or more after the last write is written at once, and
 * calls with nothing kept (the presenter's while it waits for the GPU)
 * never push the next write back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "private.h"

#define S 1000000000ull
#define MS 1000000ull

struct log {
	struct rowlog l;
};

static int setup(void **state)
{
	static struct log g;
	memset(&g, 0, sizeof g);
	g.l.f = tmpfile();
	if (!g.l.f)
		return -1;
	g.l.written_ns = 100 * S; /* the log's start */
	*state = &g;
	return 0;
}

static int teardown(void **state)
{
	struct log *g = *state;
	fclose(g->l.f);
	free(g->l.rows);
	return 0;
}

/* the bytes in the file */
static long size_of(struct log *g)
{
	return ftell(g->l.f);
}

/* a row presented at t: kept, then written if due, as present_one does */
static bool row_at(struct log *g, uint64_t t, const char *row)
{
	rxvk_rowlog_add(&g->l, row, strlen(row));
	return rxvk_rowlog_due(&g->l, t, false);
}

static void test_frame_log__rows_within_a_second_of_a_write_are_kept(void **state)
{
	struct log *g = *state;
	assert_true(row_at(g, 101 * S, "1\n")); /* a second after the start: at once */
	assert_int_equal(size_of(g), 2);
	assert_false(row_at(g, 101 * S + 300 * MS, "2\n"));
	assert_false(row_at(g, 101 * S + 999 * MS, "3\n"));
	assert_int_equal(size_of(g), 2);
	/* the presenter's call while it waits: due a second after the write */
	assert_false(rxvk_rowlog_due(&g->l, 101 * S + 999 * MS, false));
	assert_true(rxvk_rowlog_due(&g->l, 102 * S, false));
	assert_int_equal(size_of(g), 6);
	assert_int_equal(g->l.written_ns, 102 * S);
}

/* The night's case: the presenter waits for a slow part and calls every
 * 250 ms with nothing kept; a row that comes 1.1 s after the last write
 * must reach the file at once, not a second after the last empty call. */
static void test_frame_log__calls_with_nothing_kept_do_not_delay_the_next_row(void **state)
{
	struct log *g = *state;
	assert_true(row_at(g, 101 * S, "1\n"));
	for (uint64_t t = 101 * S + 250 * MS; t < 102 * S + 100 * MS; t += 250 * MS)
		assert_false(rxvk_rowlog_due(&g->l, t, false));
	assert_int_equal(g->l.written_ns, 101 * S);
	assert_true(row_at(g, 102 * S + 100 * MS, "2\n"));
	assert_int_equal(size_of(g), 4);
	/* and a forced call with nothing kept writes nothing, moves nothing */
	assert_false(rxvk_rowlog_due(&g->l, 103 * S, true));
	assert_int_equal(g->l.written_ns, 102 * S + 100 * MS);
}

/* What the watchdog relies on: from any moment the file last grew, a row
 * presented over a second later is in the file at its presentation, and a
 * row kept is in it by the first call a second after that growth. */
static void test_frame_log__a_row_reaches_the_file_within_a_second_of_the_last_growth(void **state)
{
	struct log *g = *state;
	uint64_t t = 100 * S, grew = 100 * S;
	long size = size_of(g);
	/* frames at uneven gaps (10 ms to 1.6 s), the presenter's empty calls
	 * every 250 ms between them */
	static const unsigned gaps_ms[] = { 10, 10, 400, 700, 1600, 20, 990, 1010, 5, 250, 1200, 30 };
	for (size_t i = 0; i < sizeof gaps_ms / sizeof gaps_ms[0]; i++) {
		for (uint64_t c = t + 250 * MS; c < t + gaps_ms[i] * MS; c += 250 * MS) {
			rxvk_rowlog_due(&g->l, c, false);
			if (size_of(g) != size)
				size = size_of(g), grew = c;
			assert_true(g->l.len == 0 || c - grew < S + 250 * MS);
		}
		t += gaps_ms[i] * MS;
		bool late = t - grew >= S;
		row_at(g, t, "r\n");
		if (late)
			assert_int_equal(g->l.len, 0); /* written at its presentation */
		if (size_of(g) != size)
			size = size_of(g), grew = t;
	}
	assert_true(rxvk_rowlog_due(&g->l, t, true)); /* the end: whatever is kept */
	assert_int_equal(size_of(g), 2 * 12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_frame_log__rows_within_a_second_of_a_write_are_kept,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(test_frame_log__calls_with_nothing_kept_do_not_delay_the_next_row,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_frame_log__a_row_reaches_the_file_within_a_second_of_the_last_growth, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
