/* Tests of the renderer's frame-log parser (collect-frames.c): columns by
 * name, broken rows counted and skipped with file:line:column warnings, a
 * cut-off last line, header errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/collect.h"

static struct collect_frames *parse_ok(const char *text)
{
	struct collect_frames *f = NULL;
	struct collect_error err = { { 0 } };
	int rc = collect_frames_parse("t.csv", text, strlen(text), COLLECT_SOURCE_AUTO, &f, &err);
	if (rc != 0)
		fail_msg("parse failed (%d): %s", rc, err.msg);
	return f;
}

static bool has_warning(const struct collect_frames *f, const char *needle)
{
	for (size_t i = 0; i < f->warnings.n; i++)
		if (strstr(f->warnings.v[i], needle))
			return true;
	return false;
}

static void dump_warnings(const struct collect_frames *f)
{
	for (size_t i = 0; i < f->warnings.n; i++)
		print_message("warning: %s\n", f->warnings.v[i]);
}

static void test_framelog__reads_columns_by_name(void **state)
{
	(void)state;
	/* columns in another order than the renderer writes them, plus one
	 * the parser does not know */
	const char *text =
		"kind,memsync_ms,present_ns,extra,frame,draws,rb_wait_ms,frame_ms\n"
		"real,0.5,1000000000,x,0,1200,2.25,16.6\n"
		"shown,0,1008000000,y,1,0,0,8.3\n"
		"real,0.75,1016000000,z,2,1300,1.5,16.7\n";
	struct collect_frames *f = parse_ok(text);
	assert_int_equal(f->source, COLLECT_SOURCE_RXVK);
	assert_int_equal(f->clock, COLLECT_CLOCK_MONOTONIC);
	assert_false(f->frame_ms_is_interval);
	assert_int_equal(f->n, 3);
	assert_int_equal(f->broken_lines, 0);
	assert_true(f->frames[0].present_ns == 1000000000);
	assert_int_equal(f->frames[0].kind, COLLECT_FRAME_REAL);
	assert_int_equal(f->frames[1].kind, COLLECT_FRAME_SHOWN);
	assert_true(f->frames[2].present_ns == 1016000000);
	assert_float_equal(f->frames[0].memsync_ms, 0.5, 1e-6);
	assert_float_equal(f->frames[0].rb_wait_ms, 2.25, 1e-6);
	assert_float_equal(f->frames[2].draws, 1300, 1e-6);
	assert_float_equal(f->frames[2].frame_ms, 16.7, 1e-5);
	assert_true(isnan(f->frames[0].fps));
	collect_frames_destroy(f);
}

static void test_framelog__missing_optional_column_is_nan_with_warning(void **state)
{
	(void)state;
	struct collect_frames *f = parse_ok("frame,present_ns,kind\n0,5,real\n1,10,real\n");
	assert_int_equal(f->n, 2);
	assert_true(isnan(f->frames[1].draws));
	assert_true(isnan(f->frames[1].rb_wait_ms));
	assert_true(has_warning(f, "t.csv:1:1: no 'draws' column"));
	collect_frames_destroy(f);
}

static void test_framelog__broken_lines_counted_and_skipped(void **state)
{
	(void)state;
	const char *text =
		"frame,present_ns,kind,frame_ms,draws,rb_wait_ms,memsync_ms\n" /* 1 */
		"0,1000,real,1,1,0,0\n"                                        /* 2 */
		"1,2x00,real,1,1,0,0\n"                                        /* 3: bad present_ns */
		"2,3000,fake,1,1,0,0\n"                                        /* 4: bad kind */
		"3,4000,real,1,1,0\n"                                          /* 5: a column short */
		"4,5000,real,1,1,0,0,9\n"                                      /* 6: a column more */
		"5,500,real,1,1,0,0\n"                                         /* 7: back in time */
		"6,6000,real,abc,1,0,0\n"                                      /* 8: bad frame_ms */
		"\n"                                                           /* 9: empty, ignored */
		"7,7000,shown,1,1,0,0\n";                                      /* 10 */
	struct collect_frames *f = parse_ok(text);
	dump_warnings(f);
	assert_int_equal(f->n, 2);
	assert_int_equal(f->broken_lines, 6);
	assert_true(f->frames[1].present_ns == 7000);
	assert_true(has_warning(f, "t.csv:3:3: bad present_ns '2x00', line skipped"));
	assert_true(has_warning(f, "t.csv:4:8: kind 'fake' is neither 'real' nor 'shown', line skipped"));
	assert_true(has_warning(f, "t.csv:5:18: 6 columns where the header has 7, line skipped"));
	assert_true(has_warning(f, "t.csv:6:21: 8 columns where the header has 7, line skipped"));
	assert_true(has_warning(f, "t.csv:7:3: present_ns goes back in time, line skipped"));
	assert_true(has_warning(f, "t.csv:8:13: bad frame_ms 'abc', line skipped"));
	collect_frames_destroy(f);
}

static void test_framelog__draws_out_of_range_skipped(void **state)
{
	(void)state;
	const char *text =
		"frame,present_ns,kind,frame_ms,draws,rb_wait_ms,memsync_ms\n" /* 1 */
		"0,1000,real,1,1e20,0,0\n"                                     /* 2: no count */
		"1,2000,real,1,4294967296,0,0\n"                               /* 3: over 2^32 - 1 */
		"2,3000,real,1,2.5,0,0\n"                                      /* 4: not whole */
		"3,4000,real,1,4294967295,0,0\n"                               /* 5: the most */
		"4,5000,real,1,1.2e3,0,0\n";                                   /* 6: 1200 */
	struct collect_frames *f = parse_ok(text);
	dump_warnings(f);
	assert_int_equal(f->n, 2);
	assert_int_equal(f->broken_lines, 3);
	assert_true(f->frames[0].draws == 4294967295.0f);
	assert_true(f->frames[1].draws == 1200.0f);
	assert_true(has_warning(f, "t.csv:2:15: draws '1e20' is not a whole number up to 4294967295, "
	                           "line skipped"));
	assert_true(has_warning(f, "t.csv:3:15: draws '4294967296' is not a whole number"));
	assert_true(has_warning(f, "t.csv:4:15: draws '2.5' is not a whole number"));
	collect_frames_destroy(f);
}

static void test_framelog__forward_glitch_skips_that_row_only(void **state)
{
	(void)state;
	/* 200 frames 20 ms apart; frame 50 (line 52) has a glitched
	 * present_ns 100 s ahead (under the hour rule): the next row comes
	 * back, so it alone is skipped and the rest is kept */
	size_t cap = 64 * 210;
	char *text = malloc(cap);
	assert_non_null(text);
	size_t len = (size_t)snprintf(text, cap, "frame,present_ns,kind,frame_ms,draws,rb_wait_ms,memsync_ms\n");
	for (int i = 0; i < 200; i++) {
		long long t = 1000000000LL + (long long)i * 20000000LL;
		if (i == 50)
			t += 100000000000LL;
		len += (size_t)snprintf(text + len, cap - len, "%d,%lld,real,20,100,0,0\n", i, t);
	}
	struct collect_frames *f = parse_ok(text);
	dump_warnings(f);
	assert_int_equal(f->n, 199);
	assert_int_equal(f->broken_lines, 1);
	assert_true(has_warning(f, "t.csv:52: present_ns jumps "));
	assert_true(has_warning(f, "and line 53 comes back: an impossible jump, line skipped"));
	for (size_t i = 1; i < f->n; i++)
		assert_true(f->frames[i].present_ns > f->frames[i - 1].present_ns);
	assert_true(f->frames[198].present_ns == 1000000000LL + 199LL * 20000000LL);
	collect_frames_destroy(f);
	free(text);
}

static void test_framelog__jump_of_more_than_an_hour_skipped(void **state)
{
	(void)state;
	const char *text =
		"frame,present_ns,kind\n"
		"0,1000000000,real\n"
		"1,1020000000,real\n"
		"2,7201040000000,real\n" /* two hours later */
		"3,1040000000,real\n";
	struct collect_frames *f = parse_ok(text);
	dump_warnings(f);
	assert_int_equal(f->n, 3);
	assert_true(f->frames[2].present_ns == 1040000000);
	assert_true(has_warning(f, "t.csv:4:3: an impossible jump of 7200.020 s ahead (more than 3600 s), line skipped"));
	collect_frames_destroy(f);
}

static void test_framelog__many_broken_lines_summarised(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	fprintf(m, "frame,present_ns,kind,frame_ms,draws,rb_wait_ms,memsync_ms\n");
	for (int i = 0; i < 25; i++)
		fprintf(m, "%d,%d,real,1,1,0,0\n%d,oops,real,1,1,0,0\n", i, 1000 * (i + 1), i);
	fclose(m);
	struct collect_frames *f = parse_ok(buf);
	assert_int_equal(f->n, 25);
	assert_int_equal(f->broken_lines, 25);
	assert_true(has_warning(f, "t.csv: 25 broken lines skipped in all"));
	size_t one_by_one = 0;
	for (size_t i = 0; i < f->warnings.n; i++)
		one_by_one += strstr(f->warnings.v[i], "line skipped") != NULL;
	assert_int_equal(one_by_one, 10);
	collect_frames_destroy(f);
	free(buf);
}

static void test_framelog__cut_last_line_skipped_with_warning(void **state)
{
	(void)state;
	const char *text =
		"frame,present_ns,kind,frame_ms,draws,rb_wait_ms,memsync_ms\n"
		"0,1000,real,1,1,0,0\n"
		"1,2000,real,1,1,0,0\n"
		"2,3000,re";
	struct collect_frames *f = parse_ok(text);
	assert_int_equal(f->n, 2);
	assert_int_equal(f->broken_lines, 1);
	assert_true(has_warning(f, "t.csv:4:10: last line has no end (the file is still being written?), skipped"));
	collect_frames_destroy(f);
}

static void test_framelog__crlf_and_spaces_accepted(void **state)
{
	(void)state;
	struct collect_frames *f = parse_ok("frame, present_ns ,kind\r\n0, 100 , real\r\n1,200,shown\r\n");
	assert_int_equal(f->n, 2);
	assert_int_equal(f->broken_lines, 0);
	assert_true(f->frames[0].present_ns == 100);
	assert_int_equal(f->frames[1].kind, COLLECT_FRAME_SHOWN);
	collect_frames_destroy(f);
}

static void expect_error(const char *text, enum collect_source src, const char *msg)
{
	struct collect_frames *f = (struct collect_frames *)0x1;
	struct collect_error err = { { 0 } };
	int rc = collect_frames_parse("bad.csv", text, strlen(text), src, &f, &err);
	assert_int_equal(rc, -EINVAL);
	assert_ptr_equal(f, (struct collect_frames *)0x1); /* untouched */
	if (strcmp(err.msg, msg) != 0)
		fail_msg("error '%s', expected '%s'", err.msg, msg);
}

static void test_framelog__header_errors_name_file_line_column(void **state)
{
	(void)state;
	expect_error("", COLLECT_SOURCE_AUTO, "bad.csv:1:1: empty frame log (no header yet)");
	expect_error("a,b,c\n1,2,3\n", COLLECT_SOURCE_AUTO,
	             "bad.csv:1:1: not a frame log: no renderer header (present_ns, kind), MangoHud header (frametime, fps) or PresentMon header (TimeInSeconds, MsBetweenPresents) in the first 16 lines");
	expect_error("frame,present_ns,draws\n", COLLECT_SOURCE_RXVK,
	             "bad.csv:1:1: not a renderer frame log: the first line has no 'present_ns' and 'kind' columns");
	expect_error("fps,frametime,elapsed\n", COLLECT_SOURCE_RXVK,
	             "bad.csv:1:1: not a renderer frame log: the first line has no 'present_ns' and 'kind' columns");
	expect_error("frame,present_ns,kind\n", COLLECT_SOURCE_MANGOHUD,
	             "bad.csv:1:1: not a MangoHud log: no header with 'frametime' or 'fps' in the first 16 lines");
}

static void test_framelog__header_only_gives_no_frames(void **state)
{
	(void)state;
	struct collect_frames *f = parse_ok("frame,present_ns,kind,frame_ms,draws,rb_wait_ms,memsync_ms\n");
	assert_int_equal(f->n, 0);
	assert_true(has_warning(f, "t.csv: no frames"));
	collect_frames_destroy(f);
}

static void test_framelog__load_reports_missing_file(void **state)
{
	(void)state;
	struct collect_frames *f = NULL;
	struct collect_error err = { { 0 } };
	int rc = collect_frames_load("/nonexistent/frames.csv", COLLECT_SOURCE_AUTO, &f, &err);
	assert_int_equal(rc, -ENOENT);
	assert_null(f);
	assert_string_equal(err.msg,
	                    "cannot open frame log '/nonexistent/frames.csv': No such file or directory");
}

static void test_framelog__duration_suffixes(void **state)
{
	(void)state;
	double s;
	assert_int_equal(collect_parse_duration_s("30s", &s), 0);
	assert_float_equal(s, 30, 0);
	assert_int_equal(collect_parse_duration_s("250ms", &s), 0);
	assert_float_equal(s, 0.25, 1e-12);
	assert_int_equal(collect_parse_duration_s("110.5", &s), 0);
	assert_float_equal(s, 110.5, 0);
	assert_int_equal(collect_parse_duration_s("1m", &s), -EINVAL);
	assert_int_equal(collect_parse_duration_s("s", &s), -EINVAL);
	assert_int_equal(collect_parse_duration_s("", &s), -EINVAL);
}

static void test_framelog__select_finds_rank(void **state)
{
	(void)state;
	double v[200];
	for (int i = 0; i < 200; i++)
		v[i] = (double)((i * 37) % 200); /* a permutation of 0..199 */
	for (size_t k = 0; k < 200; k += 13) {
		double w[200];
		memcpy(w, v, sizeof w);
		util_select(w, 200, k);
		assert_float_equal(w[k], (double)k, 0);
		for (size_t i = 0; i < k; i++)
			assert_true(w[i] <= w[k]);
		for (size_t i = k + 1; i < 200; i++)
			assert_true(w[i] >= w[k]);
	}
	double same[1000];
	for (int i = 0; i < 1000; i++)
		same[i] = 16.6;
	util_select(same, 1000, 990);
	assert_float_equal(same[990], 16.6, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_framelog__reads_columns_by_name),
		cmocka_unit_test(test_framelog__missing_optional_column_is_nan_with_warning),
		cmocka_unit_test(test_framelog__broken_lines_counted_and_skipped),
		cmocka_unit_test(test_framelog__draws_out_of_range_skipped),
		cmocka_unit_test(test_framelog__forward_glitch_skips_that_row_only),
		cmocka_unit_test(test_framelog__jump_of_more_than_an_hour_skipped),
		cmocka_unit_test(test_framelog__many_broken_lines_summarised),
		cmocka_unit_test(test_framelog__cut_last_line_skipped_with_warning),
		cmocka_unit_test(test_framelog__crlf_and_spaces_accepted),
		cmocka_unit_test(test_framelog__header_errors_name_file_line_column),
		cmocka_unit_test(test_framelog__header_only_gives_no_frames),
		cmocka_unit_test(test_framelog__load_reports_missing_file),
		cmocka_unit_test(test_framelog__duration_suffixes),
		cmocka_unit_test(test_framelog__select_finds_rank),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
