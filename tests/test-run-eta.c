/* Tests of the campaign progress estimate (run-eta.c) that `rxdeck run`
 * prints after every run and `rxdeck show` prints for a campaign still
 * running: the round, the runs left and the expected finish from the
 * measured lengths of the runs that ended. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "run/run.h"

/* 2026-11-13 22:00:00 UTC */
#define T0 INT64_C(1794607200000)

/* A warm-up and two rounds of AB: five runs. */
static void plan5(struct db_run r[5])
{
	static const char arms[] = "AABBA";
	for (int i = 0; i < 5; i++)
		r[i] = (struct db_run){ .position = i + 1, .arm_letter = arms[i], .round = i == 0 ? 0 : (i + 1) / 2,
			                .is_warmup = i == 0, .status = DB_RUN_PLANNED, .exit_status = -1 };
	r[3].round = 2;
	r[4].round = 2;
}

static void test_eta__after_two_runs_of_known_length(void **state)
{
	(void)state;
	struct db_run r[5];
	plan5(r);
	/* the warm-up took 100 s, run 2 took 140 s: 120 s a run */
	r[0].status = DB_RUN_DONE;
	r[0].start_unix_ms = T0;
	r[0].end_unix_ms = T0 + 100000;
	r[1].status = DB_RUN_VOID;
	r[1].start_unix_ms = T0 + 101000;
	r[1].end_unix_ms = T0 + 241000;
	int64_t now = T0 + 242000;
	struct run_eta e;
	assert_int_equal(run_eta_compute(r, 5, 2, 17, now, &e), 0);
	assert_int_equal(e.runs_done, 2);
	assert_int_equal(e.runs_left, 3);
	assert_int_equal(e.runs_timed, 2);
	assert_false(e.guessed);
	assert_true(e.known);
	assert_false(e.playing);
	assert_int_equal(e.round, 1); /* run 3 is next, in round 1 */
	assert_int_equal(e.rounds, 2);
	assert_float_equal(e.run_s, 120, 1e-9);
	assert_float_equal(e.left_s, 360, 1e-9);
	assert_int_equal(e.finish_unix_ms, now + 360000);
	char line[256];
	run_eta_format(&e, now, line, sizeof line);
	/* 22:04:02 + 6 min in UTC */
	assert_string_equal(line, "round 1 of 2, 3 runs left, expected to finish at 22:10 (in 6m00s; "
	                          "a run takes 2m00s, the mean of 2)");

	/* run 3 playing for 30 s: 90 s of it left, then two runs */
	r[2].status = DB_RUN_RUNNING;
	r[2].start_unix_ms = now;
	int64_t later = now + 30000;
	assert_int_equal(run_eta_compute(r, 5, 2, 17, later, &e), 0);
	assert_true(e.playing);
	assert_int_equal(e.runs_left, 3);
	assert_float_equal(e.left_s, 330, 1e-9);
	assert_int_equal(e.finish_unix_ms, now + 360000);
	/* a run playing longer than the mean still counts as one left */
	assert_int_equal(run_eta_compute(r, 5, 2, 17, now + 500000, &e), 0);
	assert_float_equal(e.left_s, 240, 1e-9);
}

static void test_eta__guess_before_any_run_ended(void **state)
{
	(void)state;
	struct db_run r[5];
	plan5(r);
	r[0].status = DB_RUN_RUNNING;
	r[0].start_unix_ms = T0;
	struct run_eta e;
	assert_int_equal(run_eta_compute(r, 5, 2, 17, T0 + 5000, &e), 0);
	assert_true(e.guessed);
	assert_true(e.warmup);
	assert_float_equal(e.left_s, 5 * 17 - 5, 1e-9);
	char line[256];
	run_eta_format(&e, T0 + 5000, line, sizeof line);
	assert_string_equal(line, "warm-up, 5 runs left, expected to finish at 22:01 (in 1m20s; a run "
	                          "should take 17s, none has ended yet)");
	/* no guess: no time */
	assert_int_equal(run_eta_compute(r, 5, 2, 0, T0 + 5000, &e), 0);
	assert_false(e.known);
	run_eta_format(&e, T0 + 5000, line, sizeof line);
	assert_string_equal(line, "warm-up, 5 runs left; the finish time is known once a run has ended");
}

static void test_eta__finish_on_another_day_has_the_date(void **state)
{
	(void)state;
	struct db_run r[5];
	plan5(r);
	r[0].status = DB_RUN_DONE;
	r[0].start_unix_ms = T0;
	r[0].end_unix_ms = T0 + 3600000; /* an hour a run */
	struct run_eta e;
	assert_int_equal(run_eta_compute(r, 5, 0, 0, T0 + 3600000, &e), 0);
	assert_int_equal(e.rounds, 2); /* from the runs */
	char line[256];
	run_eta_format(&e, T0 + 3600000, line, sizeof line);
	assert_string_equal(line, "round 1 of 2, 4 runs left, expected to finish at 2026-11-14 03:00 "
	                          "(in 4h00m; a run takes 1h00m, from 1 run)");
	for (int i = 0; i < 5; i++)
		r[i].status = DB_RUN_DONE;
	assert_int_equal(run_eta_compute(r, 5, 0, 0, T0, &e), 0);
	assert_int_equal(e.runs_left, 0);
	run_eta_format(&e, T0, line, sizeof line);
	assert_string_equal(line, "every planned run finished");
}

int main(void)
{
	setenv("TZ", "UTC", 1);
	tzset();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eta__after_two_runs_of_known_length),
		cmocka_unit_test(test_eta__guess_before_any_run_ended),
		cmocka_unit_test(test_eta__finish_on_another_day_has_the_date),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
