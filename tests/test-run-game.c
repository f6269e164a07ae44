/* test-run-game: one run supervised, with the stand-in game
 * (tests/doubles/game-double.c): a normal end at the route's end with the
 * shots asked for; a game that hangs, crashes, exits early, never shows a
 * frame, cannot start, ignores SIGTERM and leaves a child behind; a harness
 * asked to stop.  Each ends as it should, with its reason, and nothing of
 * the run is left running. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "route/route.h"
#include "run/run.h"
#include "test-run-util.h"

struct env {
	struct tdir t;
	struct route *route;
	char game[PATH_MAX];
	char pad[PATH_MAX];
	char path_env[PATH_MAX + 8];
	char dir_env[PATH_MAX + 16];
};

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof *e);
	tdir_make(&e->t);
	char p[PATH_MAX];
	write_text(tdir_file(&e->t, "t.route", p, sizeof p),
	           "route t\nduration 3s\nwindow 0.5s 3s\n"
	           "0s press A 100ms\n1s shot one\n2s shot two\n2.5s mark late\n");
	struct util_diag re;
	assert_int_equal(route_load(p, &e->route, &re), 0);
	build_path("harness/run/game-double", e->game, sizeof e->game);
	snprintf(e->pad, sizeof e->pad, "socket:%s/pad.sock", e->t.path);
	snprintf(e->path_env, sizeof e->path_env, "PATH=%s", getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	/* marks every process of the test, for the leftover check */
	snprintf(e->dir_env, sizeof e->dir_env, "TEST_RUN_DIR=%s", e->t.path);
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;
	int left = processes_mentioning(e->t.path);
	route_free(e->route);
	tdir_remove(&e->t);
	free(e);
	assert_int_equal(left, 0);
	return 0;
}

static volatile sig_atomic_t stop_now;

static void stop_after_a_second(void *ctx, double route_s)
{
	(void)ctx;
	if (route_s >= 1.0)
		stop_now = 1;
}

static void play(struct env *e, const char *const *args, double start_timeout_s, bool interrupt,
                 struct run_game_result *r)
{
	const char *argv[16] = { e->game };
	size_t n = 1;
	for (; args && args[n - 1] && n < 15; n++)
		argv[n] = args[n - 1];
	argv[n] = NULL;
	const char *envp[] = { e->path_env, e->dir_env, NULL };
	char run_dir[PATH_MAX];
	tdir_file(&e->t, "run", run_dir, sizeof run_dir);
	mkdir(run_dir, 0700);
	stop_now = 0;
	struct run_game_spec spec = {
		.argv = argv,
		.envp = envp,
		.run_dir = run_dir,
		.route = e->route,
		.pad_spec = e->pad,
		.pad_option = "--pad",
		.watchdog_s = 1,
		.start_timeout_s = start_timeout_s,
		.hard_limit_s = 30,
		.stop_timeout_s = 1,
		.stop = &stop_now,
		.on_tick = interrupt ? stop_after_a_second : NULL,
	};
	char msg[512] = "";
	int rc = run_game(&spec, r, msg, sizeof msg);
	if (rc != 0)
		fail_msg("run_game: %d %s", rc, msg);
}

static void test_run_game__plays_the_route_and_stops_the_game(void **state)
{
	struct env *e = *state;
	struct run_game_result r;
	play(e, NULL, 10, false, &r);
	assert_int_equal(r.end, RUN_END_OK);
	assert_string_equal(r.reason, "");
	assert_int_equal(r.exit_status, 0); /* SIGTERM at the route's end: a clean exit */
	assert_true(r.route_done);
	assert_true(r.first_frame_ns >= r.spawn_ns);
	assert_true(r.t0_ns >= r.first_frame_ns);
	/* the game ran to the route's duration, not just its last event */
	assert_true(r.end_ns - r.t0_ns >= 3000000000LL);
	assert_int_equal(r.shots_asked, 2);
	assert_string_equal(r.shot_names[0], "one");
	assert_string_equal(r.shot_names[1], "two");
	char p[PATH_MAX];
	char *log = NULL;
	size_t len = 0;
	FILE *f = fopen(tdir_file(&e->t, "run/renderer.log", p, sizeof p), "r");
	assert_non_null(f);
	assert_true(getdelim(&log, &len, 0, f) > 0);
	fclose(f);
	assert_non_null(strstr(log, "forest: shot one frame"));
	assert_non_null(strstr(log, "forest: shot two frame"));
	free(log);
	struct stat st;
	assert_int_equal(stat(tdir_file(&e->t, "run/frames.csv", p, sizeof p), &st), 0);
	assert_int_equal(stat(tdir_file(&e->t, "run/stderr.log", p, sizeof p), &st), 0);
	assert_int_not_equal(stat(tdir_file(&e->t, "run/control", p, sizeof p), &st), 0); /* the FIFO went */
	assert_int_not_equal(stat(tdir_file(&e->t, "pad.sock", p, sizeof p), &st), 0);     /* the pad went */
	run_game_result_finish(&r);
}

static void test_run_game__hung_game_is_killed(void **state)
{
	struct env *e = *state;
	/* it hangs early in the 3 s route, so that a watchdog tick delayed by a
	 * loaded machine still finds the hang before the route's end */
	const char *args[] = { "--hang-after", "0.5", NULL };
	struct run_game_result r;
	play(e, args, 10, false, &r);
	assert_int_equal(r.end, RUN_END_HUNG);
	if (strncmp(r.reason, "hung: no new frame for 1 s, at ", 31) != 0)
		fail_msg("reason: %s", r.reason);
	assert_int_equal(r.exit_status, 137); /* it sleeps through SIGTERM: SIGKILL */
	assert_false(r.route_done);
	assert_non_null(strstr(r.log_tail, "hanging on purpose"));
	run_game_result_finish(&r);
}

static void test_run_game__crash_keeps_status_and_log(void **state)
{
	struct env *e = *state;
	const char *args[] = { "--crash-after", "1", NULL };
	struct run_game_result r;
	play(e, args, 10, false, &r);
	assert_int_equal(r.end, RUN_END_CRASHED);
	if (!strstr(r.reason, "crashed: killed by signal 6") || !strstr(r.reason, "into the route"))
		fail_msg("reason: %s", r.reason);
	assert_int_equal(r.exit_status, 134);
	assert_non_null(strstr(r.log_tail, "crashing on purpose"));
	run_game_result_finish(&r);
}

static void test_run_game__early_exit_is_a_crash(void **state)
{
	struct env *e = *state;
	const char *args[] = { "--exit-after", "1", "--exit-code", "3", NULL };
	struct run_game_result r;
	play(e, args, 10, false, &r);
	assert_int_equal(r.end, RUN_END_CRASHED);
	if (!strstr(r.reason, "crashed: exited with status 3 at "))
		fail_msg("reason: %s", r.reason);
	assert_int_equal(r.exit_status, 3);
	run_game_result_finish(&r);
}

static void test_run_game__no_first_frame(void **state)
{
	struct env *e = *state;
	const char *args[] = { "--no-frames", NULL };
	struct run_game_result r;
	play(e, args, 2, false, &r);
	assert_int_equal(r.end, RUN_END_HUNG);
	assert_string_equal(r.reason, "hung: no first frame within 2 s of the start");
	assert_int_equal(r.t0_ns, 0);
	assert_int_equal(r.shots_asked, 0);
	run_game_result_finish(&r);
}

static void test_run_game__program_that_cannot_start(void **state)
{
	struct env *e = *state;
	snprintf(e->game, sizeof e->game, "%s/no-such-game", e->t.path);
	struct run_game_result r;
	play(e, NULL, 5, false, &r);
	assert_int_equal(r.end, RUN_END_CRASHED);
	if (!strstr(r.reason, "cannot start '") || !strstr(r.reason, "No such file or directory"))
		fail_msg("reason: %s", r.reason);
	assert_int_equal(r.exit_status, 127);
	run_game_result_finish(&r);
}

static void test_run_game__stubborn_game_and_its_child_are_killed(void **state)
{
	struct env *e = *state;
	const char *args[] = { "--ignore-term", "--grandchild", NULL };
	struct run_game_result r;
	play(e, args, 10, false, &r);
	/* the route ended: a normal end, though it took SIGKILL */
	assert_int_equal(r.end, RUN_END_OK);
	assert_int_equal(r.exit_status, 137);
	assert_int_equal(processes_mentioning(e->t.path), 0);
	run_game_result_finish(&r);
}

static void test_run_game__harness_stop_interrupts(void **state)
{
	struct env *e = *state;
	struct run_game_result r;
	play(e, NULL, 10, true, &r);
	assert_int_equal(r.end, RUN_END_INTERRUPTED);
	assert_false(r.route_done);
	run_game_result_finish(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_run_game__plays_the_route_and_stops_the_game, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_game__hung_game_is_killed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_game__crash_keeps_status_and_log, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_game__early_exit_is_a_crash, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_game__no_first_frame, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_game__program_that_cannot_start, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_game__stubborn_game_and_its_child_are_killed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_game__harness_stop_interrupts, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
