/* Tests of `rxdeck frames` (cmd-frames.c): the JSON output parses back
 * with the documented keys and values, the window and time suffixes, the
 * plain table, and errors with their exit codes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "test-capture.h"

struct run_out {
	int rc;
	char *out;
};

/* Runs `rxdeck frames` with stdout captured. */
static struct run_out run(int argc, const char **args)
{
	char *argv[16];
	for (int i = 0; i < argc; i++)
		argv[i] = (char *)args[i];
	argv[argc] = NULL;
	struct run_out r = { 0 };
	struct test_capture cap;
	test_capture_begin(&cap);
	r.rc = cmd_dispatch(argc, argv);
	test_capture_end(&cap);
	r.out = cap.out; /* the caller frees it */
	fputs(cap.err, stderr); /* messages stay in the test's log */
	free(cap.err);
	return r;
}

/* Writes a 10 fps renderer log of n frames, the first at 1 s, into a
 * temporary file whose name is returned (caller unlinks and frees). */
static char *write_log(int n)
{
	char *path = strdup("/tmp/rxdeck-frames-log-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fprintf(f, "frame,present_ns,kind,frame_ms,draws,rb_wait_ms,memsync_ms\n");
	for (int k = 0; k < n; k++)
		fprintf(f, "%d,%lld,real,100,%d,0.5,0.25\n", k, 1000000000LL + k * 100000000LL, 1000 + k);
	fclose(f);
	return path;
}

static char *sample(const char *name)
{
	char *p = NULL;
	assert_true(asprintf(&p, "%s/tests/corpus/mangohud/%s", RXDECK_SOURCE_ROOT, name) > 0);
	return p;
}

static void test_frames__json_parses_back(void **state)
{
	(void)state;
	char *log = write_log(101); /* 0..10 s after t0 */
	char *mh = sample("current-interval.csv");
	const char *args[] = { "frames", log, mh, "--window", "2s", "8000ms", "--json" };
	struct run_out r = run(7, args);
	assert_int_equal(r.rc, 0);
	json_error_t jerr;
	json_t *a = json_loads(r.out, 0, &jerr);
	if (!a)
		fail_msg("output is not JSON (%s): %s", jerr.text, r.out);
	assert_true(json_is_array(a));
	assert_int_equal(json_array_size(a), 2);

	json_t *o = json_array_get(a, 0);
	assert_string_equal(json_string_value(json_object_get(o, "file")), log);
	assert_string_equal(json_string_value(json_object_get(o, "source")), "rxvk");
	assert_int_equal(json_integer_value(json_object_get(o, "t0_ns")), 1000000000);
	/* (2 s, 8 s] at 10 fps: 60 frames */
	assert_int_equal(json_integer_value(json_object_get(o, "frames")), 60);
	json_t *w = json_object_get(o, "window_s");
	assert_float_equal(json_number_value(json_array_get(w, 0)), 2.0, 0);
	assert_float_equal(json_number_value(json_array_get(w, 1)), 8.0, 0);
	assert_float_equal(json_number_value(json_object_get(o, "real_fps")), 10.0, 1e-9);
	assert_float_equal(json_number_value(json_object_get(o, "shown_fps")), 10.0, 1e-9);
	assert_float_equal(json_number_value(json_object_get(o, "p50_ms")), 100.0, 1e-9);
	assert_float_equal(json_number_value(json_object_get(o, "p95_ms")), 100.0, 1e-9);
	assert_float_equal(json_number_value(json_object_get(o, "p99_ms")), 100.0, 1e-9);
	assert_int_equal(json_integer_value(json_object_get(o, "over_100ms")), 0);
	/* draws 1000 + k for k = 21..80: mean 1050.5 */
	assert_float_equal(json_number_value(json_object_get(o, "draws")), 1050.5, 1e-9);
	assert_float_equal(json_number_value(json_object_get(o, "rb_wait_ms")), 0.5, 1e-9);
	assert_float_equal(json_number_value(json_object_get(o, "memsync_ms")), 0.25, 1e-9);
	assert_true(json_is_false(json_object_get(o, "sampled")));
	assert_true(json_is_array(json_object_get(o, "warnings")));
	assert_int_equal(json_array_size(json_object_get(o, "warnings")), 0);

	o = json_array_get(a, 1);
	assert_string_equal(json_string_value(json_object_get(o, "source")), "mangohud");
	assert_true(json_is_true(json_object_get(o, "sampled")));
	/* MangoHud has no readback column: null, not 0 */
	assert_true(json_is_null(json_object_get(o, "rb_wait_ms")));
	assert_true(json_array_size(json_object_get(o, "warnings")) > 0);
	json_decref(a);
	free(r.out);
	unlink(log);
	free(log);
	free(mh);
}

static void test_frames__table_output(void **state)
{
	(void)state;
	char *log = write_log(11);
	const char *args[] = { "frames", log };
	struct run_out r = run(2, args);
	assert_int_equal(r.rc, 0);
	assert_non_null(strstr(r.out, "real fps"));
	assert_non_null(strstr(r.out, "format"));
	assert_non_null(strstr(r.out, "rxdeck frame log"));
	/* whole log: (0, 1 s], 10 frames */
	assert_non_null(strstr(r.out, "0.000-1.000"));
	assert_non_null(strstr(r.out, "10.00"));
	free(r.out);
	unlink(log);
	free(log);
}

static void test_frames__errors_and_exit_codes(void **state)
{
	(void)state;
	const char *none[] = { "frames" };
	struct run_out r = run(1, none);
	assert_int_equal(r.rc, RXDECK_EXIT_USAGE);
	free(r.out);

	const char *badwin[] = { "frames", "x.csv", "--window", "30s", "10s" };
	r = run(5, badwin);
	assert_int_equal(r.rc, RXDECK_EXIT_USAGE);
	free(r.out);

	const char *badunit[] = { "frames", "x.csv", "--window", "30m", "40s" };
	r = run(5, badunit);
	assert_int_equal(r.rc, RXDECK_EXIT_USAGE);
	free(r.out);

	/* a window starting before t0 */
	const char *before[] = { "frames", "x.csv", "--window", "-1s", "2s" };
	r = run(5, before);
	assert_int_equal(r.rc, RXDECK_EXIT_USAGE);
	free(r.out);

	/* a log whose every row is rejected measures nothing: exit 1, said so */
	char *bad = strdup("/tmp/rxdeck-frames-log-XXXXXX");
	int fd = mkstemp(bad);
	assert_true(fd >= 0);
	const char *rows = "frame,present_ns,kind\nx,y,z\n1,2,fake\n";
	assert_int_equal(write(fd, rows, strlen(rows)), (ssize_t)strlen(rows));
	close(fd);
	const char *rejected[] = { "frames", bad, "--json" };
	r = run(3, rejected);
	assert_int_equal(r.rc, RXDECK_EXIT_FAILURE);
	json_t *e = json_loads(r.out, 0, NULL);
	assert_non_null(e);
	const char *why = json_string_value(json_object_get(json_array_get(e, 0), "error"));
	assert_non_null(why);
	if (!strstr(why, ": every row was rejected (2 of 2)"))
		fail_msg("%s", why);
	json_decref(e);
	free(r.out);
	unlink(bad);
	free(bad);

	/* a missing file: reported in the JSON and exit 1, the others still done */
	char *log = write_log(11);
	const char *missing[] = { "frames", "/nonexistent/f.csv", log, "--json" };
	r = run(4, missing);
	assert_int_equal(r.rc, RXDECK_EXIT_FAILURE);
	json_t *a = json_loads(r.out, 0, NULL);
	assert_non_null(a);
	assert_int_equal(json_array_size(a), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(a, 0), "error")),
	                    "cannot open frame log '/nonexistent/f.csv': No such file or directory");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(a, 1), "frames")), 10);
	json_decref(a);
	free(r.out);

	const char *help[] = { "frames", "--help" };
	r = run(2, help);
	assert_int_equal(r.rc, RXDECK_EXIT_OK);
	assert_non_null(strstr(r.out, "usage: rxdeck frames"));
	free(r.out);
	unlink(log);
	free(log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frames__json_parses_back),
		cmocka_unit_test(test_frames__table_output),
		cmocka_unit_test(test_frames__errors_and_exit_codes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
