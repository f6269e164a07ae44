/* Tests of log scanning and per-run log metrics (collect-log.c) with the
 * shipped profiles/rxvk.collect: timestamps, lines inside and outside the
 * window, untimed lines, optional parts, aggregates by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "collect/collect.h"

static struct collect_profile *rxvk_profile(void)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/profiles/rxvk.collect", RXDECK_SOURCE_ROOT);
	struct collect_profile *p = NULL;
	struct collect_error err = { { 0 } };
	if (collect_profile_load(path, &p, &err) != 0)
		fail_msg("%s", err.msg);
	return p;
}

static struct collect_log *scan(const struct collect_profile *p, const char *text, bool final)
{
	struct collect_log *l = NULL;
	struct collect_error err = { { 0 } };
	if (collect_log_scan(p, "rx.log", text, strlen(text), final, &l, &err) != 0)
		fail_msg("%s", err.msg);
	return l;
}

static double metric(const struct collect_log_metrics *m, const char *name)
{
	const struct collect_metric *x = collect_log_metrics_find(m, name);
	if (!x)
		fail_msg("no metric '%s'", name);
	return x->value;
}

static bool has_warning(const struct util_warnings *w, const char *needle)
{
	for (size_t i = 0; i < w->n; i++)
		if (strstr(w->v[i], needle))
			return true;
	return false;
}

#define RB(t, waited, each, ep, epe, ew, pe, late)                                       \
	"[" t "] vk: readbacks: 3000 reads, " waited " waited " each " ms each; early: " ep \
	" at the writer's part " epe " ms each, " ew                                        \
	" for their whole submission (writer not known), " pe                               \
	" parts ended after a writer; late: " late "\n"

static const char *const LOG =
	"[100.000000] vk: switches: RX_VK_READBACK_EARLY=1\n"                          /* 1 */
	RB("105.500000", "268", "23.3", "250", "1.41", "18", "244", "0")                /* 2 */
	RB("140.000000", "300", "20.0", "280", "1.00", "20", "270", "6")                /* 3 */
	"[150.250000] vk: captures: 600, 92 waited for late pages 19.6 ms each\n"      /* 4 */
	"game: something else entirely\n"                                              /* 5 */
	"[160.000000] vk: captures: 600, 108 waited for late pages 10.0 ms each\n"     /* 6 */
	RB("230.000000", "1000", "50.0", "0", "0", "0", "0", "0")                      /* 7 */
	"vk: captures: 600, 100 waited for late pages 30.0 ms each\n";                 /* 8 */

static void test_loglines__matches_with_time_pattern_and_values(void **state)
{
	(void)state;
	struct collect_profile *p = rxvk_profile();
	struct collect_log *l = scan(p, LOG, true);
	assert_int_equal(l->lines, 8);
	assert_int_equal(l->n, 6);
	assert_int_equal(l->untimed_lines, 1);
	const struct collect_match *m = &l->matches[0];
	assert_true(m->t_ns == 105500000000LL);
	assert_int_equal(m->line, 2);
	assert_string_equal(m->pattern, "readbacks");
	assert_true(strncmp(m->text, "vk: readbacks: 3000 reads, 268 waited", 37) == 0);
	const char *names[] = { "reads", "waited", "wait_each_ms", "early_part", "early_part_each_ms",
	                        "early_whole", "parts_ended", "late" };
	const double values[] = { 3000, 268, 23.3, 250, 1.41, 18, 244, 0 };
	assert_int_equal(m->n_values, 8);
	for (size_t i = 0; i < 8; i++) {
		assert_string_equal(m->values[i].name, names[i]);
		assert_float_equal(m->values[i].value, values[i], 1e-12);
	}
	m = &l->matches[2];
	assert_string_equal(m->pattern, "captures");
	assert_int_equal(m->line, 4);
	assert_string_equal(m->values[2].text, "19.6");
	m = &l->matches[5];
	assert_true(m->t_ns == COLLECT_UNTIMED);
	assert_int_equal(m->line, 8);
	collect_log_destroy(l);
	collect_profile_destroy(p);
}

static void test_loglines__window_aggregates_by_hand(void **state)
{
	(void)state;
	struct collect_profile *p = rxvk_profile();
	struct collect_log *l = scan(p, LOG, true);
	struct collect_log_metrics m;
	/* t0 = 100 s, window (0, 110 s]: lines 2, 3, 4, 6 and the untimed 8 */
	assert_int_equal(collect_log_metrics_compute(p, l, 100000000000LL, (double[]){ 0, 110 }, &m), 0);
	assert_int_equal(m.timed_lines, 4);
	assert_int_equal(m.untimed_lines, 1);
	assert_float_equal(metric(&m, "rb_summaries"), 2, 0);
	assert_float_equal(metric(&m, "rb_waits"), 284, 1e-9);            /* 3000 (268+300)/6000 */
	assert_float_equal(metric(&m, "rb_wait_each_ms"), 12244.4 / 568, 1e-9);
	assert_float_equal(metric(&m, "rb_early_part"), 265, 1e-9);
	assert_float_equal(metric(&m, "rb_early_part_each_ms"), 632.5 / 530, 1e-9);
	assert_float_equal(metric(&m, "rb_early_whole"), 19, 1e-9);
	assert_float_equal(metric(&m, "rb_parts_ended"), 257, 1e-9);
	assert_float_equal(metric(&m, "rb_late"), 3, 1e-9);
	assert_float_equal(metric(&m, "capture_summaries"), 3, 0);
	assert_float_equal(metric(&m, "captures_late"), 100, 1e-9);       /* 600 (92+108+100)/1800 */
	assert_float_equal(metric(&m, "capture_wait_each_ms"), 5883.2 / 300, 1e-9);
	assert_int_equal(collect_log_metrics_find(&m, "rb_waits")->lines, 2);
	assert_null(collect_log_metrics_find(&m, "nope"));
	assert_true(has_warning(&m.warnings,
	                        "rx.log: 1 matched lines have no timestamp prefix and are counted for the whole run"));
	collect_log_metrics_finish(&m);

	/* a window that holds only the late summary at 230 s */
	assert_int_equal(collect_log_metrics_compute(p, l, 100000000000LL, (double[]){ 120, 140 }, &m), 0);
	assert_float_equal(metric(&m, "rb_summaries"), 1, 0);
	assert_float_equal(metric(&m, "rb_waits"), 1000, 1e-9);
	/* waited 0 early reads: no weight, no value */
	assert_true(isnan(metric(&m, "rb_early_part_each_ms")));
	collect_log_metrics_finish(&m);

	/* the whole log */
	assert_int_equal(collect_log_metrics_compute(p, l, 0, NULL, &m), 0);
	assert_float_equal(metric(&m, "rb_summaries"), 3, 0);
	assert_false(has_warning(&m.warnings, "no timestamp prefix"));
	collect_log_metrics_finish(&m);

	/* bad windows */
	assert_int_equal(collect_log_metrics_compute(p, l, 0, (double[]){ 5, 5 }, &m), -EINVAL);
	collect_log_destroy(l);
	collect_profile_destroy(p);
}

static void test_loglines__window_edges(void **state)
{
	(void)state;
	struct collect_profile *p = rxvk_profile();
	const char *text =
		"[10.000000] vk: captures: 600, 1 waited for late pages 1.0 ms each\n"   /* at w0: out */
		"[10.000001] vk: captures: 600, 2 waited for late pages 1.0 ms each\n"   /* in */
		"[20.000000] vk: captures: 600, 4 waited for late pages 1.0 ms each\n"   /* at w1: in */
		"[20.000001] vk: captures: 600, 8 waited for late pages 1.0 ms each\n";  /* out */
	struct collect_log *l = scan(p, text, true);
	struct collect_log_metrics m;
	assert_int_equal(collect_log_metrics_compute(p, l, 0, (double[]){ 10, 20 }, &m), 0);
	assert_float_equal(metric(&m, "capture_summaries"), 2, 0);
	assert_float_equal(metric(&m, "captures_late"), 3, 1e-9); /* 600 * 6 / 1200 */
	collect_log_metrics_finish(&m);
	collect_log_destroy(l);
	collect_profile_destroy(p);
}

static void test_loglines__summary_without_early_part(void **state)
{
	(void)state;
	struct collect_profile *p = rxvk_profile();
	const char *text = "[1.000000] vk: readbacks: 3000 reads, 10 waited 1.5 ms each\n"
	                   "[2.000000] vk: readbacks: 3000 reads, 30 waited 0.5 ms each; late: 12\n";
	struct collect_log *l = scan(p, text, true);
	assert_int_equal(l->n, 2);
	assert_string_equal(l->matches[0].values[3].text, "");
	assert_true(isnan(l->matches[0].values[3].value));
	struct collect_log_metrics m;
	assert_int_equal(collect_log_metrics_compute(p, l, 0, NULL, &m), 0);
	assert_float_equal(metric(&m, "rb_waits"), 20, 1e-9);
	assert_float_equal(metric(&m, "rb_wait_each_ms"), 30.0 / 40.0, 1e-9);
	assert_true(isnan(metric(&m, "rb_early_part")));
	assert_float_equal(metric(&m, "rb_late"), 12, 1e-9); /* only the line that has it */
	/* absent parts are not "not a number" */
	assert_int_equal(m.warnings.n, 0);
	collect_log_metrics_finish(&m);
	collect_log_destroy(l);
	collect_profile_destroy(p);
}

static void test_loglines__bad_prefix_is_untimed_and_cut_line_skipped(void **state)
{
	(void)state;
	struct collect_profile *p = rxvk_profile();
	const char *text = "[12.34] vk: captures: 600, 1 waited for late pages 1.0 ms each\n"
	                   "[12.340000]vk: captures: 600, 1 waited for late pages 1.0 ms each\n"
	                   "[5.000000] vk: captures: 600, 3 waited for late pages 2.0 ms each\n"
	                   "[6.000000] vk: captures: 600, 3 waited";
	struct collect_log *l = scan(p, text, false);
	/* a malformed prefix is not stripped, so ^vk: does not match it */
	assert_int_equal(l->n, 1);
	assert_true(l->matches[0].t_ns == 5000000000LL);
	assert_true(has_warning(&l->warnings,
	                        "rx.log:4:39: last line has no end (the log is still being written?), skipped"));
	collect_log_destroy(l);
	collect_profile_destroy(p);
}

static void test_loglines__frame_write_back_lines(void **state)
{
	(void)state;
	struct collect_profile *p = rxvk_profile();
	/* the renderer's own format strings, as it prints them */
	const char *text =
		"[10.000000] vk: frames: 600 real, held 30, superseded 2, dropped 1, carried out 3 by touch 4 by op, written at once 560; write target 0.41 ms a frame, read back 2.10 ms a frame\n"
		"[20.000000] vk: frames: 200 real, held 10, superseded 0, dropped 0, carried out 0 by touch 0 by op, written at once 190; write target 0.81 ms a frame, read back 1.30 ms a frame\n"
		"[30.000000] vk: frames: 800 real, held 40, superseded 2, dropped 1, carried out 3 by touch 4 by op, written at once 750; write target 0.51 ms a frame, read back 1.90 ms a frame (whole run: write target 1.2%, read back 6.3% of frame time)\n";
	struct collect_log *l = scan(p, text, true);
	assert_int_equal(l->n, 3);
	assert_string_equal(l->matches[0].pattern, "frames");
	assert_string_equal(l->matches[2].pattern, "frames_run");
	assert_string_equal(l->matches[2].values[2].name, "read_back_pct");
	assert_float_equal(l->matches[2].values[2].value, 6.3, 1e-12);
	struct collect_log_metrics m;
	assert_int_equal(collect_log_metrics_compute(p, l, 0, (double[]){ 0, 25 }, &m), 0);
	assert_float_equal(metric(&m, "frames_held_pct"), 5, 1e-9);                     /* 40 of 800 */
	assert_float_equal(metric(&m, "frame_write_target_ms"), (600 * 0.41 + 200 * 0.81) / 800, 1e-9);
	assert_float_equal(metric(&m, "frame_read_back_ms"), (600 * 2.10 + 200 * 1.30) / 800, 1e-9);
	collect_log_metrics_finish(&m);
	collect_log_destroy(l);
	collect_profile_destroy(p);
}

static void test_loglines__frame_time_shares(void **state)
{
	(void)state;
	struct collect_profile *p = rxvk_profile();
	const char *text =
		"[10.000000] vk: frame time shares: write target 2.0%, read back 10.0% over 600 frames in 10.00 s\n"
		"[20.000000] vk: frame time shares: write target 5.0%, read back 40.5% over 200 frames in 30.00 s\n";
	struct collect_log *l = scan(p, text, true);
	assert_int_equal(l->n, 2);
	assert_string_equal(l->matches[0].pattern, "shares");
	struct collect_log_metrics m;
	assert_int_equal(collect_log_metrics_compute(p, l, 0, (double[]){ 0, 25 }, &m), 0);
	/* weighted by each line's span of wall time */
	assert_float_equal(metric(&m, "frame_write_target_pct"), (2.0 * 10 + 5.0 * 30) / 40, 1e-9);
	assert_float_equal(metric(&m, "frame_read_back_pct"), (10.0 * 10 + 40.5 * 30) / 40, 1e-9);
	collect_log_metrics_finish(&m);
	collect_log_destroy(l);
	collect_profile_destroy(p);
}

static void test_loglines__non_numeric_capture_warns(void **state)
{
	(void)state;
	const char *prof = "timestamps none\npattern s ^score (?<v>[a-z0-9.]+)$\nmetric best = max(v)\nmetric avg = mean(v)\nmetric n = count()\n";
	struct collect_profile *p = NULL;
	struct collect_error err = { { 0 } };
	assert_int_equal(collect_profile_parse("s.collect", prof, strlen(prof), &p, &err), 0);
	struct collect_log *l = scan(p, "score 3\nscore high\nscore 5\n[1.000000] score 9\n", true);
	assert_int_equal(l->n, 3); /* timestamps none: the prefixed line does not match ^score */
	struct collect_log_metrics m;
	assert_int_equal(collect_log_metrics_compute(p, l, 0, NULL, &m), 0);
	assert_float_equal(metric(&m, "best"), 5, 0);
	assert_float_equal(metric(&m, "avg"), 4, 0);
	assert_float_equal(metric(&m, "n"), 3, 0);
	assert_true(has_warning(&m.warnings,
	                        "rx.log:2: metric 'best' (max of pattern 's'): 1 lines with a capture that is not a number were left out"));
	collect_log_metrics_finish(&m);
	collect_log_destroy(l);
	collect_profile_destroy(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loglines__matches_with_time_pattern_and_values),
		cmocka_unit_test(test_loglines__window_aggregates_by_hand),
		cmocka_unit_test(test_loglines__window_edges),
		cmocka_unit_test(test_loglines__summary_without_early_part),
		cmocka_unit_test(test_loglines__bad_prefix_is_untimed_and_cut_line_skipped),
		cmocka_unit_test(test_loglines__frame_write_back_lines),
		cmocka_unit_test(test_loglines__frame_time_shares),
		cmocka_unit_test(test_loglines__non_numeric_capture_warns),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
