/* Tests of MangoHud CSV reading (collect-frames.c): the system-info block
 * and version preamble, frametime units (older µs, current ms), elapsed in
 * ns, interval logs whose rows are samples, absurd start-up rows, and logs
 * without an elapsed column.  The sample logs live in tests/corpus/mangohud/
 * (they are also the fuzz corpus). */
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

static struct collect_frames *load_sample(const char *name)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/tests/corpus/mangohud/%s", RXDECK_SOURCE_ROOT, name);
	struct collect_frames *f = NULL;
	struct collect_error err = { { 0 } };
	int rc = collect_frames_load(path, COLLECT_SOURCE_AUTO, &f, &err);
	if (rc != 0)
		fail_msg("cannot load %s (%d): %s", path, rc, err.msg);
	for (size_t i = 0; i < f->warnings.n; i++)
		print_message("warning: %s\n", f->warnings.v[i]);
	return f;
}

static struct collect_frames *parse_ok(const char *text)
{
	struct collect_frames *f = NULL;
	struct collect_error err = { { 0 } };
	int rc = collect_frames_parse("m.csv", text, strlen(text), COLLECT_SOURCE_AUTO, &f, &err);
	if (rc != 0)
		fail_msg("parse failed (%d): %s", rc, err.msg);
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

static void test_mangohud__old_us_log(void **state)
{
	(void)state;
	struct collect_frames *f = load_sample("old-us.csv");
	assert_int_equal(f->source, COLLECT_SOURCE_MANGOHUD);
	assert_int_equal(f->clock, COLLECT_CLOCK_LOG_START);
	assert_true(f->frame_ms_is_interval);
	assert_true(f->frametime_was_us);
	assert_false(f->sampled);
	assert_true(has_warning(f, "frametime read as µs (older MangoHud"));
	/* the 15.2 s start-up row (line 4) is left out */
	assert_int_equal(f->dropped_rows, 1);
	assert_true(has_warning(f, "old-us.csv:4: start-up row with a frame time of 15235.0 ms"));
	assert_int_equal(f->n, 20);
	assert_int_equal(f->broken_lines, 0);
	/* µs converted to ms; elapsed (ns) is the timestamp */
	assert_float_equal(f->frames[0].frame_ms, 20.0, 1e-6);
	assert_float_equal(f->frames[5].frame_ms, 120.0, 1e-6);
	assert_true(f->frames[0].present_ns == 21000000);
	assert_true(f->frames[19].present_ns == 21000000 + 580000000);
	assert_float_equal(f->frames[0].fps, 50.0, 1e-4);
	collect_frames_destroy(f);
}

static void test_mangohud__current_ms_log_after_version_preamble(void **state)
{
	(void)state;
	struct collect_frames *f = load_sample("current-ms.csv");
	assert_int_equal(f->source, COLLECT_SOURCE_MANGOHUD);
	assert_false(f->frametime_was_us);
	assert_false(f->sampled);
	assert_true(has_warning(f, "frametime read as ms (current MangoHud"));
	assert_int_equal(f->dropped_rows, 0);
	assert_int_equal(f->n, 41);
	assert_float_equal(f->frames[0].frame_ms, 16.6667, 1e-4);
	assert_float_equal(f->frames[25].frame_ms, 105.2, 1e-4);
	assert_true(f->frames[0].present_ns == 16666700);
	assert_true(f->frames[40].present_ns == 16666700 + 805201100);
	collect_frames_destroy(f);
}

static void test_mangohud__interval_log_is_sampled(void **state)
{
	(void)state;
	struct collect_frames *f = load_sample("current-interval.csv");
	assert_true(f->sampled);
	assert_false(f->frametime_was_us);
	assert_true(has_warning(f, "rows are samples every 100.0 ms (MangoHud's log interval), not frames"));
	assert_int_equal(f->n, 31);
	collect_frames_destroy(f);
}

static void test_mangohud__startup_row_orders_of_magnitude_off(void **state)
{
	(void)state;
	/* 3500 ms is under 10 s but 200 times the median */
	const char *text =
		"fps,frametime,elapsed\n"
		"0.3,3500,3500000000\n"
		"60,16.5,3516500000\n"
		"60,16.5,3533000000\n"
		"60,17.5,3550500000\n"
		"60,16.5,3567000000\n";
	struct collect_frames *f = parse_ok(text);
	assert_int_equal(f->dropped_rows, 1);
	assert_int_equal(f->n, 4);
	assert_true(has_warning(f, "m.csv:2: start-up row with a frame time of 3500.0 ms (median 16.50 ms) left out"));
	assert_true(f->frames[0].present_ns == 3516500000);
	collect_frames_destroy(f);
}

static void test_mangohud__long_frame_later_is_kept(void **state)
{
	(void)state;
	/* a 12 s stall in the middle is data, not a start-up artefact */
	const char *text =
		"fps,frametime,elapsed\n"
		"60,16,16000000\n"
		"60,16,32000000\n"
		"1,12000,12032000000\n"
		"60,16,12048000000\n";
	struct collect_frames *f = parse_ok(text);
	assert_int_equal(f->dropped_rows, 0);
	assert_int_equal(f->n, 4);
	assert_true(has_warning(f, "m.csv: 1 frame times over 10 s after the start are kept"));
	collect_frames_destroy(f);
}

static void test_mangohud__no_elapsed_uses_running_sum(void **state)
{
	(void)state;
	const char *text = "fps,frametime\n60,16\n50,20\n40,25\n";
	struct collect_frames *f = parse_ok(text);
	assert_int_equal(f->n, 3);
	assert_false(f->sampled);
	assert_true(has_warning(f, "no 'elapsed' column"));
	assert_true(f->frames[0].present_ns == 16000000);
	assert_true(f->frames[1].present_ns == 36000000);
	assert_true(f->frames[2].present_ns == 61000000);
	collect_frames_destroy(f);
}

static void test_mangohud__no_fps_column_unit_from_magnitude(void **state)
{
	(void)state;
	struct collect_frames *f = parse_ok("frametime,elapsed\n16667,16667000\n16667,33334000\n33333,66667000\n");
	assert_true(f->frametime_was_us);
	assert_true(has_warning(f, "frametime read as µs (no usable fps column"));
	assert_float_equal(f->frames[2].frame_ms, 33.333, 1e-3);
	collect_frames_destroy(f);

	f = parse_ok("frametime,elapsed\n16.7,16700000\n16.6,33300000\n");
	assert_false(f->frametime_was_us);
	collect_frames_destroy(f);
}

static void test_mangohud__fps_only_log(void **state)
{
	(void)state;
	struct collect_frames *f = parse_ok("fps,cpu_load,gpu_load,elapsed\n50,10,90,20000000\n40,10,90,45000000\n");
	assert_int_equal(f->n, 2);
	assert_float_equal(f->frames[0].frame_ms, 20.0, 1e-5);
	assert_float_equal(f->frames[1].frame_ms, 25.0, 1e-5);
	assert_true(has_warning(f, "no 'frametime' column"));
	collect_frames_destroy(f);
}

static void test_mangohud__elapsed_not_ns_falls_back(void **state)
{
	(void)state;
	/* elapsed in ms: it spans 40 while the frame times add up to 0.04 s */
	struct collect_frames *f = parse_ok("fps,frametime,elapsed\n50,20,20\n50,20,40\n50,20,60\n");
	assert_true(has_warning(f, "elapsed does not count ns"));
	assert_true(f->frames[2].present_ns == 60000000);
	collect_frames_destroy(f);
}

static void test_mangohud__broken_rows_skipped(void **state)
{
	(void)state;
	const char *text =
		"fps,frametime,elapsed\n"
		"60,16,16000000\n"
		"60,0,32000000\n"      /* 3: frame time 0 */
		"60,-5,32000000\n"     /* 4: negative */
		"sixty,16,48000000\n"  /* 5: bad fps */
		"60,16,8000000\n"      /* 6: back in time */
		"60,16,64000000\n";
	struct collect_frames *f = parse_ok(text);
	assert_int_equal(f->n, 2);
	assert_int_equal(f->broken_lines, 4);
	assert_true(has_warning(f, "m.csv:3:4: frametime '0' is not above 0, line skipped"));
	assert_true(has_warning(f, "m.csv:4:4: bad frametime '-5', line skipped"));
	assert_true(has_warning(f, "m.csv:5:1: bad fps 'sixty', line skipped"));
	assert_true(has_warning(f, "m.csv:6:7: elapsed goes back in time, line skipped"));
	collect_frames_destroy(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mangohud__old_us_log),
		cmocka_unit_test(test_mangohud__current_ms_log_after_version_preamble),
		cmocka_unit_test(test_mangohud__interval_log_is_sampled),
		cmocka_unit_test(test_mangohud__startup_row_orders_of_magnitude_off),
		cmocka_unit_test(test_mangohud__long_frame_later_is_kept),
		cmocka_unit_test(test_mangohud__no_elapsed_uses_running_sum),
		cmocka_unit_test(test_mangohud__no_fps_column_unit_from_magnitude),
		cmocka_unit_test(test_mangohud__fps_only_log),
		cmocka_unit_test(test_mangohud__elapsed_not_ns_falls_back),
		cmocka_unit_test(test_mangohud__broken_rows_skipped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
