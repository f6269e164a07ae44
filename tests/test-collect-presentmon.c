/* Tests of PresentMon CSV reading (collect-frames.c): 1.x and 2.x column
 * names told apart from the header, MsBetweenPresents as the frame time
 * (2.0-2.3's FrameTime without it), TimeInSeconds or CPUStartTime as the
 * clock, FrameType's generated frames as shown frames, dropped presents
 * counted; --date_time's local date-time columns read as the log's wall
 * clock, and a date that does not read refused at file:line:column.  The
 * samples and where their columns are documented:
 * tests/corpus/presentmon/README.md. */
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
#include <time.h>

#include "collect/collect.h"
#include "run/run.h"
#include "stats/stats.h"

static struct collect_frames *load_sample(const char *name)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/tests/corpus/presentmon/%s", RXDECK_SOURCE_ROOT, name);
	struct collect_frames *f = NULL;
	struct collect_error err = { { 0 } };
	int rc = collect_frames_load(path, COLLECT_SOURCE_AUTO, &f, &err);
	if (rc != 0)
		fail_msg("cannot load %s (%d): %s", path, rc, err.msg);
	for (size_t i = 0; i < f->warnings.n; i++)
		print_message("warning: %s\n", f->warnings.v[i]);
	return f;
}

static bool has_warning(const struct collect_frames *f, const char *needle)
{
	for (size_t i = 0; i < f->warnings.n; i++)
		if (strstr(f->warnings.v[i], needle))
			return true;
	return false;
}

static void test_presentmon__v1_columns(void **state)
{
	(void)state;
	struct collect_frames *f = load_sample("v1-game.csv");
	assert_int_equal(f->source, COLLECT_SOURCE_PRESENTMON);
	assert_string_equal(f->format, "PresentMon 1.x CSV");
	assert_int_equal(f->clock, COLLECT_CLOCK_LOG_START);
	assert_true(f->frame_ms_is_interval);
	assert_int_equal(f->n, 300);
	assert_int_equal(f->broken_lines, 0);
	/* TimeInSeconds 1.266 s -> ns; msBetweenPresents read without case */
	assert_true(f->frames[0].present_ns == 1266000000);
	assert_float_equal(f->frames[0].frame_ms, 16.0, 1e-4);
	assert_float_equal(f->frames[150].frame_ms, 50.0, 1e-4);
	assert_true(isnan(f->frames[0].rb_wait_ms));
	assert_true(isnan(f->frames[0].draws));
	assert_int_equal(f->frames[299].kind, COLLECT_FRAME_REAL);
	assert_true(has_warning(f, "1 presents were never displayed"));

	/* the window's metrics: 16 ms frames and one of 50 ms */
	struct stats_run_metrics m;
	double window[2] = { 1.0, 7.0 };
	assert_int_equal(run_frame_metrics(f, 0, window, &m), 0);
	assert_float_equal(m.p50_ms, 16.0, 1e-4);
	assert_float_equal(m.p99_ms, 16.0, 1e-4);
	assert_int_equal(m.over_100ms, 0);
	/* every frame is in (1, 7] s: from 1.266 s to 1.25 + 299 x 16 ms + 50 ms = 6.084 s */
	assert_int_equal(m.real_frames, 300);
	assert_float_equal(m.real_fps, 50.0, 1e-9);
	assert_float_equal(m.covered_s[0], 1.266, 1e-9);
	assert_float_equal(m.covered_s[1], 6.084, 1e-9);
	stats_run_metrics_finish(&m);
	/* the 50 ms frame is the one over p99's rank in a shorter window */
	double tight[2] = { 3.3, 3.71 };
	assert_int_equal(run_frame_metrics(f, 0, tight, &m), 0);
	assert_float_equal(m.p99_ms, 50.0, 1e-4);
	stats_run_metrics_finish(&m);
	collect_frames_destroy(f);
}

static void test_presentmon__v2_columns_and_generated_frames(void **state)
{
	(void)state;
	struct collect_frames *f = load_sample("v2-game.csv");
	assert_int_equal(f->source, COLLECT_SOURCE_PRESENTMON);
	assert_string_equal(f->format, "PresentMon 2.x CSV");
	assert_int_equal(f->n, 250);
	assert_int_equal(f->broken_lines, 0);
	/* TimeInSeconds wins over CPUStartTimeInSeconds (0.758 s) */
	assert_true(f->frames[0].present_ns == 770000000);
	assert_float_equal(f->frames[0].frame_ms, 20.0, 1e-4);
	assert_int_equal(f->frames[199].kind, COLLECT_FRAME_REAL);
	assert_int_equal(f->frames[201].kind, COLLECT_FRAME_SHOWN);
	assert_int_equal(f->frames[202].kind, COLLECT_FRAME_REAL);
	size_t shown = 0;
	for (size_t i = 0; i < f->n; i++)
		shown += f->frames[i].kind == COLLECT_FRAME_SHOWN;
	assert_int_equal(shown, 25);
	assert_false(has_warning(f, "appears twice"));
	collect_frames_destroy(f);
}

static void test_presentmon__v2_metrics_without_ms_between_presents(void **state)
{
	(void)state;
	struct collect_frames *f = load_sample("v2-metrics-game.csv");
	assert_int_equal(f->source, COLLECT_SOURCE_PRESENTMON);
	assert_string_equal(f->format, "PresentMon 2.x CSV");
	assert_int_equal(f->n, 200);
	assert_true(f->frames[0].present_ns == 2025000000);
	assert_float_equal(f->frames[0].frame_ms, 25.0, 1e-4);
	assert_true(has_warning(f, "no 'MsBetweenPresents' column"));
	assert_true(has_warning(f, "2 presents were never displayed"));
	struct stats_run_metrics m;
	double window[2] = { 2.0, 6.0 };
	assert_int_equal(run_frame_metrics(f, 0, window, &m), 0);
	/* 200 frames of 25 ms from 2.025 s to 7.0 s: 160 in (2, 6], 40 fps */
	assert_int_equal(m.real_frames, 160);
	assert_float_equal(m.real_fps, 40.0, 1e-9);
	assert_float_equal(m.p99_ms, 25.0, 1e-4);
	stats_run_metrics_finish(&m);
	collect_frames_destroy(f);
}

static void test_presentmon__header_detection_and_errors(void **state)
{
	(void)state;
	struct collect_frames *f = NULL;
	struct collect_error err = { { 0 } };
	/* a time column alone is not PresentMon's */
	const char *t = "Application,TimeInSeconds\ngame.exe,1.0\n";
	assert_int_equal(collect_frames_parse("p.csv", t, strlen(t), COLLECT_SOURCE_PRESENTMON, &f, &err),
	                 -EINVAL);
	assert_non_null(strstr(err.msg, "p.csv:1:1: not a PresentMon CSV"));
	/* a bad time and a bad frame time: file:line:column, skipped */
	t = "Application,TimeInSeconds,MsBetweenPresents\n"
	    "a.exe,1.0,16\n"
	    "a.exe,x,16\n"
	    "a.exe,1.032,NA\n"
	    "a.exe,1.048,16\n";
	assert_int_equal(collect_frames_parse("p.csv", t, strlen(t), COLLECT_SOURCE_AUTO, &f, &err), 0);
	assert_int_equal(f->n, 2);
	assert_int_equal(f->broken_lines, 2);
	assert_true(has_warning(f, "p.csv:3:7: bad TimeInSeconds 'x', line skipped"));
	assert_true(has_warning(f, "p.csv:4:13: bad MsBetweenPresents 'NA', line skipped"));
	collect_frames_destroy(f);
}

/* ns since 1970-01-01 00:00 of a calendar date and time read as UTC, by
 * the C library (the parser has its own calendar arithmetic) */
static int64_t local_ns(int y, int mo, int d, int h, int mi, int s, int64_t ns)
{
	struct tm tm = { .tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d,
		         .tm_hour = h, .tm_min = mi, .tm_sec = s };
	return (int64_t)timegm(&tm) * 1000000000 + ns;
}

static void test_presentmon__date_time_columns_give_a_wall_clock(void **state)
{
	(void)state;
	/* 2.4's default columns under --date_time: TimeInDateTime and
	 * CPUStartDateTime, from 2026-2-28 23:59:59.77 over midnight */
	struct collect_frames *f = load_sample("v2-datetime-game.csv");
	assert_int_equal(f->source, COLLECT_SOURCE_PRESENTMON);
	assert_string_equal(f->format, "PresentMon 2.x CSV");
	assert_int_equal(f->clock, COLLECT_CLOCK_LOG_START);
	assert_int_equal(f->n, 250);
	assert_int_equal(f->broken_lines, 0);
	assert_true(f->has_wall_clock);
	assert_string_equal(f->wall_column, "TimeInDateTime");
	/* the first row is the log's 0; TimeInDateTime wins over CPU start */
	assert_true(f->wall_start_ns == local_ns(2026, 2, 28, 23, 59, 59, 770000000));
	assert_true(f->frames[0].present_ns == 0);
	assert_true(f->frames[1].present_ns == 20000000);
	/* row 60 is 2026-3-1 0:00:00.930 (2026 is no leap year) */
	assert_true(f->frames[58].present_ns == 1160000000);
	assert_float_equal(f->frames[0].frame_ms, 20.0, 1e-4);
	size_t shown = 0;
	for (size_t i = 0; i < f->n; i++)
		shown += f->frames[i].kind == COLLECT_FRAME_SHOWN;
	assert_int_equal(shown, 25);
	collect_frames_destroy(f);
	/* the formats without --date_time carry no wall clock */
	f = load_sample("v2-game.csv");
	assert_false(f->has_wall_clock);
	assert_null(f->wall_column);
	collect_frames_destroy(f);
	f = load_sample("v1-game.csv");
	assert_false(f->has_wall_clock);
	collect_frames_destroy(f);

	/* 2.0-2.3's columns: CPUStartDateTime alone; leading zeros and a
	 * shorter fraction read too; a leap day */
	const char *t = "Application,ProcessID,CPUStartDateTime,FrameTime\r\n"
	                "a.exe,1,2028-02-29 09:05:07.5,25.0\r\n"
	                "a.exe,1,2028-2-29 9:05:07.525000000,25.0\r\n"
	                "a.exe,1,2028-2-29 9:05:07.55,25.0\r\n";
	struct collect_error err = { { 0 } };
	assert_int_equal(collect_frames_parse("m.csv", t, strlen(t), COLLECT_SOURCE_AUTO, &f, &err), 0);
	assert_int_equal(f->n, 3);
	assert_string_equal(f->wall_column, "CPUStartDateTime");
	assert_true(f->wall_start_ns == local_ns(2028, 2, 29, 9, 5, 7, 500000000));
	assert_true(f->frames[2].present_ns == 50000000);
	collect_frames_destroy(f);

	/* 1.x's -date_time keeps the header and writes the date in
	 * TimeInSeconds (v1.9.2 CsvOutput.cpp, QpcToLocalSystemTime()) */
	t = "Application,ProcessID,SwapChainAddress,Runtime,SyncInterval,PresentFlags,Dropped,"
	    "TimeInSeconds,msInPresentAPI,msBetweenPresents\n"
	    "a.exe,1,0x1,DXGI,1,0,0,2026-10-25 2:59:59.990000000,0.1,16\n"
	    "a.exe,1,0x1,DXGI,1,0,0,2026-10-25 3:00:00.006000000,0.1,16\n";
	assert_int_equal(collect_frames_parse("v1.csv", t, strlen(t), COLLECT_SOURCE_AUTO, &f, &err), 0);
	assert_string_equal(f->format, "PresentMon 1.x CSV");
	assert_int_equal(f->n, 2);
	assert_true(f->has_wall_clock);
	assert_string_equal(f->wall_column, "TimeInSeconds");
	assert_true(f->wall_start_ns == local_ns(2026, 10, 25, 2, 59, 59, 990000000));
	assert_true(f->frames[1].present_ns == 16000000);
	collect_frames_destroy(f);
	/* a number after a date in it is a bad date */
	t = "Application,Dropped,TimeInSeconds,msBetweenPresents\n"
	    "a.exe,0,2026-10-25 2:59:59.990000000,16\n"
	    "a.exe,0,1.016,16\n";
	f = NULL;
	assert_int_equal(collect_frames_parse("v1.csv", t, strlen(t), COLLECT_SOURCE_AUTO, &f, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "v1.csv:3:9: bad TimeInSeconds '1.016': expected Y-M-D"));
}

static void test_presentmon__bad_date_time_is_an_error(void **state)
{
	(void)state;
	static const struct {
		const char *value, *msg;
	} bad[] = {
		{ "2026-2-29 1:00:00.000000000",
		  "p.csv:3:7: bad CPUStartDateTime '2026-2-29 1:00:00.000000000': day 29 is not in month 2 of 2026 (1 to 28)" },
		{ "2026-13-1 1:00:00.0", "p.csv:3:7: bad CPUStartDateTime '2026-13-1 1:00:00.0': month 13 is not 1 to 12" },
		{ "2026-3-1 24:00:00.0", "hour 24 is not 0 to 23" },
		{ "2026-3-1 1:60:00.0", "minute 60 is not 0 to 59" },
		{ "2026-3-1 1:00:60.0", "second 60 is not 0 to 59" },
		{ "2026-3-1 1:0:00.0", "expected Y-M-D H:MM:SS.nnnnnnnnn" },
		{ "2026-3-1T1:00:00.0", "expected Y-M-D H:MM:SS.nnnnnnnnn" },
		{ "2026-3-1 1:00:00.0000000001", "more than 9 digits after the second" },
		{ "1.016", "expected Y-M-D H:MM:SS.nnnnnnnnn, as PresentMon's --date_time writes it" },
		{ "1600-12-31 23:59:59.0", "year 1600 is before 1601" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char t[512];
		snprintf(t, sizeof t,
		         "Application,CPUStartDateTime,FrameTime\n"
		         "a.exe,2026-3-1 1:00:00.000000000,16\n"
		         "a.exe,%s,16\n"
		         "a.exe,2026-3-1 1:00:00.032000000,16\n", bad[i].value);
		struct collect_frames *f = NULL;
		struct collect_error err = { { 0 } };
		assert_int_equal(collect_frames_parse("p.csv", t, strlen(t), COLLECT_SOURCE_AUTO, &f, &err),
		                 -EINVAL);
		assert_null(f);
		print_message("%s\n", err.msg);
		assert_non_null(strstr(err.msg, "p.csv:3:7: bad CPUStartDateTime '"));
		assert_non_null(strstr(err.msg, bad[i].msg));
	}
	/* a date that reads but goes back is a broken row, as any time is */
	const char *t = "Application,CPUStartDateTime,FrameTime\n"
	                "a.exe,2026-3-1 1:00:00.100000000,16\n"
	                "a.exe,2026-3-1 1:00:00.000000000,16\n"
	                "a.exe,2026-3-1 1:00:00.116000000,16\n";
	struct collect_frames *f = NULL;
	struct collect_error err = { { 0 } };
	assert_int_equal(collect_frames_parse("p.csv", t, strlen(t), COLLECT_SOURCE_AUTO, &f, &err), 0);
	assert_int_equal(f->n, 2);
	assert_true(has_warning(f, "p.csv:3:7: CPUStartDateTime goes back in time, line skipped"));
	collect_frames_destroy(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_presentmon__v1_columns),
		cmocka_unit_test(test_presentmon__v2_columns_and_generated_frames),
		cmocka_unit_test(test_presentmon__v2_metrics_without_ms_between_presents),
		cmocka_unit_test(test_presentmon__header_detection_and_errors),
		cmocka_unit_test(test_presentmon__date_time_columns_give_a_wall_clock),
		cmocka_unit_test(test_presentmon__bad_date_time_is_an_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
