/* Tests of a run's frame metrics (stats-run.c) against hand-computed
 * values: fps of an exact 12.0 fps log, nearest-rank percentiles, the
 * window's edges, real vs shown frames, per-frame means, and the MangoHud
 * samples (per-frame and interval logs). */
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
#include "run/run.h"
#include "stats/stats.h"

#define T0 5000000000LL /* a CLOCK_MONOTONIC start, 5 s after boot */

static struct collect_frames *parse_text(const char *text)
{
	struct collect_frames *f = NULL;
	struct collect_error err = { { 0 } };
	int rc = collect_frames_parse("run.csv", text, strlen(text), COLLECT_SOURCE_AUTO, &f, &err);
	if (rc != 0)
		fail_msg("parse failed (%d): %s", rc, err.msg);
	return f;
}

static bool has_warning(const struct stats_run_metrics *m, const char *needle)
{
	for (size_t i = 0; i < m->warnings.n; i++)
		if (strstr(m->warnings.v[i], needle))
			return true;
	return false;
}

/* A renderer log of n real frames at exactly fps, the first at T0. */
static struct collect_frames *steady_log(int n, double fps)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	fprintf(m, "frame,present_ns,kind,frame_ms,draws,rb_wait_ms,memsync_ms\n");
	for (int k = 0; k < n; k++)
		fprintf(m, "%d,%lld,real,%.3f,1000,0.5,0.25\n", k,
		        T0 + llround((double)k * 1e9 / fps), 1000.0 / fps);
	fclose(m);
	struct collect_frames *f = parse_text(buf);
	free(buf);
	return f;
}

static void test_run__exact_12_fps(void **state)
{
	(void)state;
	struct collect_frames *f = steady_log(1400, 12.0);
	struct stats_run_metrics m;
	assert_int_equal(run_frame_metrics(f, T0, (double[]){ 30, 110 }, &m), 0);
	/* frames at k/12 s: 30 < k/12 <= 110 is k = 361..1320, 960 frames */
	assert_int_equal(m.frames, 960);
	assert_int_equal(m.real_frames, 960);
	assert_float_equal(m.real_fps, 12.0, 1e-12);
	assert_float_equal(m.shown_fps, 12.0, 1e-12);
	assert_int_equal(m.frame_times, 960);
	assert_float_equal(m.p50_ms, 83.333333, 1e-5);
	assert_float_equal(m.p99_ms, 83.333334, 2e-6);
	assert_int_equal(m.over_100ms, 0);
	assert_float_equal(m.draws, 1000, 0);
	assert_float_equal(m.rb_wait_ms, 0.5, 1e-7);
	assert_float_equal(m.memsync_ms, 0.25, 1e-7);
	assert_float_equal(m.window_s[0], 30, 0);
	assert_float_equal(m.window_s[1], 110, 0);
	assert_false(m.sampled);
	stats_run_metrics_finish(&m);
	collect_frames_destroy(f);
}

/* Real frames whose intervals are the given ms values, first frame at T0. */
static struct collect_frames *intervals_log(const double *ms, int n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	fprintf(m, "frame,present_ns,kind,frame_ms,draws,rb_wait_ms,memsync_ms\n");
	long long t = T0;
	fprintf(m, "0,%lld,real,0,1,0,0\n", t);
	for (int k = 0; k < n; k++) {
		t += llround(ms[k] * 1e6);
		fprintf(m, "%d,%lld,real,%g,%d,%g,0\n", k + 1, t, ms[k], k + 1, ms[k] / 10);
	}
	fclose(m);
	struct collect_frames *f = parse_text(buf);
	free(buf);
	return f;
}

static void test_run__percentiles_by_hand(void **state)
{
	(void)state;
	/* 20 intervals, 1..20 ms, shuffled: nearest rank ceil(p/100 * 20):
	 * p50 -> rank 10 = 10 ms, p95 -> rank 19 = 19 ms, p99 -> rank 20 */
	const double ms[20] = { 7, 3, 20, 11, 1, 15, 9, 18, 2, 14, 6, 19, 4, 12, 17, 5, 10, 16, 8, 13 };
	struct collect_frames *f = intervals_log(ms, 20);
	struct stats_run_metrics m;
	assert_int_equal(run_frame_metrics(f, T0, NULL, &m), 0);
	assert_int_equal(m.frame_times, 20);
	assert_float_equal(m.p50_ms, 10, 1e-9);
	assert_float_equal(m.p95_ms, 19, 1e-9);
	assert_float_equal(m.p99_ms, 20, 1e-9);
	/* the whole log: (0, 210 ms], 20 frames */
	assert_float_equal(m.window_s[1], 0.210, 1e-12);
	assert_float_equal(m.real_fps, 20 / 0.210, 1e-9);
	/* draws 1..20 a frame: mean 10.5; rb_wait ms/10: mean 1.05 */
	assert_float_equal(m.draws, 10.5, 1e-9);
	assert_float_equal(m.rb_wait_ms, 1.05, 1e-6);
	stats_run_metrics_finish(&m);
	collect_frames_destroy(f);

	/* 7 values: p50 -> rank ceil(3.5) = 4, p95 -> ceil(6.65) = 7 */
	const double few[7] = { 40, 10, 70, 20, 60, 30, 50 };
	f = intervals_log(few, 7);
	assert_int_equal(run_frame_metrics(f, T0, NULL, &m), 0);
	assert_float_equal(m.p50_ms, 40, 1e-9);
	assert_float_equal(m.p95_ms, 70, 1e-9);
	assert_float_equal(m.p99_ms, 70, 1e-9);
	stats_run_metrics_finish(&m);
	collect_frames_destroy(f);
}

static void test_run__lows_are_mean_fps_of_the_slowest_frames(void **state)
{
	(void)state;
	/* 1500 frame times, shuffled: 10 ms but 20 of 40 ms and 2 of 100 ms.
	 * 1 %: the slowest ceil(15) = 15: 2 x 10 fps and 13 x 25 fps, mean
	 * (20 + 325) / 15 = 23; 0.1 %: the slowest ceil(1.5) = 2: 10 fps */
	static double ms[1500];
	for (int i = 0; i < 1500; i++)
		ms[i] = 10;
	for (int i = 0; i < 20; i++)
		ms[(i * 577 + 31) % 1500] = 40;
	ms[1003] = 100;
	ms[211] = 100;
	struct collect_frames *f = intervals_log(ms, 1500);
	struct stats_run_metrics m;
	assert_int_equal(run_frame_metrics(f, T0, NULL, &m), 0);
	assert_float_equal(m.low_1pct_fps, 23, 1e-9);
	assert_float_equal(m.low_01pct_fps, 10, 1e-9);
	/* the percentiles are untouched by the lows' selection */
	assert_float_equal(m.p50_ms, 10, 1e-9);
	assert_float_equal(m.p99_ms, 40, 1e-9);
	stats_run_metrics_finish(&m);
	collect_frames_destroy(f);

	/* 7 frame times: ceil(0.07) = 1 frame each, the slowest: 1000 / 70 */
	const double few[7] = { 40, 10, 70, 20, 60, 30, 50 };
	f = intervals_log(few, 7);
	assert_int_equal(run_frame_metrics(f, T0, NULL, &m), 0);
	assert_float_equal(m.low_1pct_fps, 1000.0 / 70, 1e-9);
	assert_float_equal(m.low_01pct_fps, 1000.0 / 70, 1e-9);
	stats_run_metrics_finish(&m);
	collect_frames_destroy(f);
}

static void test_run__percentile_function(void **state)
{
	(void)state;
	double v[100];
	for (int i = 0; i < 100; i++)
		v[i] = 100 - i; /* 100..1 */
	assert_float_equal(stats_percentile_nearest_rank(v, 100, 50), 50, 0);
	assert_float_equal(stats_percentile_nearest_rank(v, 100, 95), 95, 0);
	assert_float_equal(stats_percentile_nearest_rank(v, 100, 99), 99, 0);
	assert_float_equal(stats_percentile_nearest_rank(v, 100, 100), 100, 0);
	assert_float_equal(stats_percentile_nearest_rank(v, 100, 0.5), 1, 0);
	assert_true(isnan(stats_percentile_nearest_rank(v, 0, 50)));
	assert_true(isnan(stats_percentile_nearest_rank(v, 100, 0)));
}

static void test_run__window_edges(void **state)
{
	(void)state;
	/* real frames at 0, 1, 2, 3, 4, 5 s (after T0) */
	const char *text =
		"frame,present_ns,kind,frame_ms,draws,rb_wait_ms,memsync_ms\n"
		"0,5000000000,real,0,10,0,0\n"
		"1,6000000000,real,0,20,0,0\n"
		"2,7000000000,real,0,30,0,0\n"
		"3,8000000000,real,0,40,0,0\n"
		"4,9000000000,real,0,50,0,0\n"
		"5,10000000000,real,0,60,0,0\n";
	struct collect_frames *f = parse_text(text);
	struct stats_run_metrics m;
	/* (1 s, 3 s]: the frame at 1 s is out, the one at 3 s in */
	assert_int_equal(run_frame_metrics(f, T0, (double[]){ 1, 3 }, &m), 0);
	assert_int_equal(m.frames, 2);
	assert_float_equal(m.real_fps, 1.0, 1e-12);
	/* the frame at 2 s has its interval from the frame at 1 s, outside */
	assert_int_equal(m.frame_times, 2);
	assert_float_equal(m.p99_ms, 1000, 1e-9);
	assert_float_equal(m.draws, 35, 1e-9);
	stats_run_metrics_finish(&m);

	/* a window starting before the log: the first frame has no interval */
	assert_int_equal(run_frame_metrics(f, T0, (double[]){ -1, 2 }, &m), 0);
	assert_int_equal(m.frames, 3);
	assert_int_equal(m.frame_times, 2);
	assert_float_equal(m.real_fps, 1.0, 1e-12);
	stats_run_metrics_finish(&m);

	/* a window past the log's end: counted as it is, with a warning */
	assert_int_equal(run_frame_metrics(f, T0, (double[]){ 3, 13 }, &m), 0);
	assert_int_equal(m.frames, 2);
	assert_float_equal(m.real_fps, 0.2, 1e-12);
	assert_true(has_warning(&m, "run.csv: the log ends at 5.000 s, before the window's end 13.000 s"));
	stats_run_metrics_finish(&m);

	/* nothing inside */
	assert_int_equal(run_frame_metrics(f, T0, (double[]){ 5, 6 }, &m), 0);
	assert_int_equal(m.frames, 0);
	assert_float_equal(m.real_fps, 0, 0);
	assert_true(isnan(m.p50_ms));
	assert_true(has_warning(&m, "no frames inside the window"));
	stats_run_metrics_finish(&m);

	/* bad windows are refused, *out untouched */
	m.frames = 77;
	assert_int_equal(run_frame_metrics(f, T0, (double[]){ 3, 3 }, &m), -EINVAL);
	assert_int_equal(run_frame_metrics(f, T0, (double[]){ 4, 3 }, &m), -EINVAL);
	assert_int_equal(run_frame_metrics(f, T0, (double[]){ NAN, 3 }, &m), -EINVAL);
	assert_int_equal(m.frames, 77);
	collect_frames_destroy(f);
}

static void test_run__real_and_shown_frames(void **state)
{
	(void)state;
	/* real at 0, 100, 250 ms; shown between; a 150 ms real interval is over
	 * 100 ms even though a shown frame sits inside it */
	const char *text =
		"frame,present_ns,kind,frame_ms,draws,rb_wait_ms,memsync_ms\n"
		"0,0,real,0,100,1,2\n"
		"1,50000000,shown,0,0,0,0\n"
		"2,100000000,real,0,300,3,4\n"
		"3,175000000,shown,0,0,0,0\n"
		"4,250000000,real,0,500,5,6\n";
	struct collect_frames *f = parse_text(text);
	struct stats_run_metrics m;
	assert_int_equal(run_frame_metrics(f, 0, (double[]){ 0, 0.25 }, &m), 0);
	assert_int_equal(m.frames, 4);
	assert_int_equal(m.real_frames, 2);
	assert_float_equal(m.real_fps, 8.0, 1e-12);
	assert_float_equal(m.shown_fps, 16.0, 1e-12);
	assert_int_equal(m.frame_times, 2);
	assert_float_equal(m.p50_ms, 100, 1e-9);
	assert_float_equal(m.p99_ms, 150, 1e-9);
	assert_int_equal(m.over_100ms, 1);
	/* per real frame, shown frames do not dilute */
	assert_float_equal(m.draws, 400, 1e-9);
	assert_float_equal(m.rb_wait_ms, 4, 1e-6);
	assert_float_equal(m.memsync_ms, 5, 1e-6);
	stats_run_metrics_finish(&m);
	collect_frames_destroy(f);
}

static void test_run__over_100ms_is_strict(void **state)
{
	(void)state;
	const double ms[4] = { 100, 100.001, 99, 250 };
	struct collect_frames *f = intervals_log(ms, 4);
	struct stats_run_metrics m;
	assert_int_equal(run_frame_metrics(f, T0, NULL, &m), 0);
	assert_int_equal(m.over_100ms, 2);
	stats_run_metrics_finish(&m);
	collect_frames_destroy(f);
}

static struct collect_frames *load_sample(const char *name)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/tests/corpus/mangohud/%s", RXDECK_SOURCE_ROOT, name);
	struct collect_frames *f = NULL;
	struct collect_error err = { { 0 } };
	if (collect_frames_load(path, COLLECT_SOURCE_AUTO, &f, &err) != 0)
		fail_msg("%s", err.msg);
	return f;
}

static void test_run__mangohud_old_us_metrics(void **state)
{
	(void)state;
	struct collect_frames *f = load_sample("old-us.csv");
	struct stats_run_metrics m;
	/* t0 = the first kept row; whole log: 19 rows, 17 x 20 ms and
	 * 2 x 120 ms, spanning 580 ms */
	assert_int_equal(run_frame_metrics(f, f->frames[0].present_ns, NULL, &m), 0);
	assert_int_equal(m.frames, 19);
	assert_float_equal(m.window_s[1], 0.58, 1e-12);
	assert_float_equal(m.real_fps, 19 / 0.58, 1e-9);
	assert_float_equal(m.shown_fps, 19 / 0.58, 1e-9);
	assert_float_equal(m.p50_ms, 20, 1e-6);
	assert_float_equal(m.p95_ms, 120, 1e-6); /* rank ceil(18.05) = 19 */
	assert_float_equal(m.p99_ms, 120, 1e-6);
	assert_int_equal(m.over_100ms, 2);
	assert_true(isnan(m.rb_wait_ms));
	assert_true(isnan(m.draws));
	assert_true(has_warning(&m, "start-up row"));
	stats_run_metrics_finish(&m);
	collect_frames_destroy(f);
}

static void test_run__mangohud_current_ms_metrics(void **state)
{
	(void)state;
	struct collect_frames *f = load_sample("current-ms.csv");
	struct stats_run_metrics m;
	assert_int_equal(run_frame_metrics(f, f->frames[0].present_ns, NULL, &m), 0);
	/* 40 frame times: 36 x 16.6667, 3 x 33.3333, 1 x 105.2 */
	assert_int_equal(m.frame_times, 40);
	assert_float_equal(m.p50_ms, 16.6667, 1e-4);
	assert_float_equal(m.p95_ms, 33.3333, 1e-4); /* rank 38 */
	assert_float_equal(m.p99_ms, 105.2, 1e-4);   /* rank ceil(39.6) = 40 */
	assert_int_equal(m.over_100ms, 1);
	assert_float_equal(m.real_fps, 40 / 0.8052011, 1e-9);
	stats_run_metrics_finish(&m);
	collect_frames_destroy(f);
}

static void test_run__mangohud_interval_metrics(void **state)
{
	(void)state;
	struct collect_frames *f = load_sample("current-interval.csv");
	struct stats_run_metrics m;
	assert_int_equal(run_frame_metrics(f, f->frames[0].present_ns, NULL, &m), 0);
	assert_true(m.sampled);
	/* 30 samples after the first: fps 58, 60, 62 repeating -> mean 60,
	 * not 30 rows / 3 s = 10 */
	assert_int_equal(m.frames, 30);
	assert_float_equal(m.real_fps, 60, 1e-5);
	assert_float_equal(m.shown_fps, 60, 1e-5);
	/* sampled frame times: 9 x 16.1, 10 x 16.7, 10 x 17.2, 1 x 140.5 */
	assert_float_equal(m.p50_ms, 16.7, 1e-5);
	assert_float_equal(m.p95_ms, 17.2, 1e-5);
	assert_float_equal(m.p99_ms, 140.5, 1e-5);
	assert_int_equal(m.over_100ms, 1);
	assert_true(has_warning(&m, "p50/p95/p99 and over_100ms are of 30 sampled frame times"));
	stats_run_metrics_finish(&m);
	collect_frames_destroy(f);
}

static void test_run__empty_log(void **state)
{
	(void)state;
	struct collect_frames *f = parse_text("frame,present_ns,kind\n");
	struct stats_run_metrics m;
	assert_int_equal(run_frame_metrics(f, 0, NULL, &m), 0);
	assert_int_equal(m.frames, 0);
	assert_true(isnan(m.real_fps));
	assert_true(isnan(m.p99_ms));
	assert_true(has_warning(&m, "no frames: every metric is empty"));
	stats_run_metrics_finish(&m);
	collect_frames_destroy(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run__exact_12_fps),
		cmocka_unit_test(test_run__percentiles_by_hand),
		cmocka_unit_test(test_run__lows_are_mean_fps_of_the_slowest_frames),
		cmocka_unit_test(test_run__percentile_function),
		cmocka_unit_test(test_run__window_edges),
		cmocka_unit_test(test_run__real_and_shown_frames),
		cmocka_unit_test(test_run__over_100ms_is_strict),
		cmocka_unit_test(test_run__mangohud_old_us_metrics),
		cmocka_unit_test(test_run__mangohud_current_ms_metrics),
		cmocka_unit_test(test_run__mangohud_interval_metrics),
		cmocka_unit_test(test_run__empty_log),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
