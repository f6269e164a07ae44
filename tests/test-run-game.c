/* test-run-game: one run supervised, with the stand-in game
 * (tests/doubles/game-double.c): a normal end at the route's end with the
 * shots asked for; a game that hangs, crashes (also slowly, as a core being
 * dumped: still a crash, not a hang), exits early, never shows a
 * frame, cannot start, ignores SIGTERM and leaves a child behind; a harness
 * asked to stop.  Each ends as it should, with its reason, and nothing of
 * the run is left running.  With frames = mangohud, the stand-in plays
 * MangoHud 0.6.8 (the log written only when logging stops) and 0.7.x (a
 * row at a time) behind the control socket: the log covers the route, and
 * a run without one is void "no log". */
#include <math.h>
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
	bool mangohud;
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

/* The watchdog where a case is about a hang or a crash told from one: 1 s,
 * so a hung game is found within a short route.  The shot cases use the
 * plan's default, WATCHDOG_S: a game that is not hung never waits on it,
 * and a 1 s watchdog there was a margin sized for an idle machine (a
 * loaded clean-clone run, load average 20, ended the late-shot case's
 * stand-in as hung). */
#define HANG_WATCHDOG_S 1
#define WATCHDOG_S 10

/* One run of the stand-in with args, on route (the env's 3 s route when
 * NULL), with the watchdog at watchdog_s. */
static void play_on(struct env *e, const char *const *args, double start_timeout_s, bool interrupt,
                    const struct route *route, double stop_timeout_s, double watchdog_s,
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
		.route = route ? route : e->route,
		.pad_spec = e->pad,
		.pad_option = "--pad",
		.mangohud = e->mangohud,
		.watchdog_s = watchdog_s,
		.start_timeout_s = start_timeout_s,
		.hard_limit_s = 30,
		.stop_timeout_s = stop_timeout_s,
		.stop = &stop_now,
		.on_tick = interrupt ? stop_after_a_second : NULL,
	};
	char msg[512] = "";
	int rc = run_game(&spec, r, msg, sizeof msg);
	if (rc != 0)
		fail_msg("run_game: %d %s", rc, msg);
}

/* One run of the stand-in with args on a route of its own (text, written
 * to the test's folder as name), with the stop timeout and the watchdog
 * given. */
static void play_route_stop(struct env *e, const char *const *args, const char *name, const char *text,
                            double stop_timeout_s, double watchdog_s, struct run_game_result *r)
{
	char p[PATH_MAX];
	write_text(tdir_file(&e->t, name, p, sizeof p), text);
	struct route *route = NULL;
	struct util_diag re;
	assert_int_equal(route_load(p, &route, &re), 0);
	play_on(e, args, 10, false, route, stop_timeout_s, watchdog_s, r);
	route_free(route);
}

static void play_route(struct env *e, const char *const *args, const char *name, const char *text,
                       struct run_game_result *r)
{
	play_route_stop(e, args, name, text, 10, HANG_WATCHDOG_S, r);
}

/* A game that exits on SIGTERM gets 10 s for it: under ASan its exit runs
 * the leak check, which on a loaded machine took over the 1 s these tests
 * once gave it, and a SIGKILL then made a clean end exit 137. */
static void play(struct env *e, const char *const *args, double start_timeout_s, bool interrupt,
                 struct run_game_result *r)
{
	play_on(e, args, start_timeout_s, interrupt, NULL, 10, HANG_WATCHDOG_S, r);
}

/* A game expected to be killed (it sleeps through SIGTERM, or shows no
 * frame): 1 s, so the test does not wait out a long stop timeout. */
static void play_to_kill(struct env *e, const char *const *args, double start_timeout_s,
                         struct run_game_result *r)
{
	play_on(e, args, start_timeout_s, false, NULL, 1, HANG_WATCHDOG_S, r);
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
	play_to_kill(e, args, 10, &r);
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

/* A crash that takes longer to end than the watchdog (a core being
 * dumped, a crash signal not yet taken): the game is silent and not yet
 * reaped when the watchdog comes, but on its way out, so the run waits for
 * it and ends as the crash it is, not as a hang.  The stand-in crashes at
 * 0.3 s and dies 4 s later: the 1 s watchdog finds it ending long before;
 * the stop timeout of 10 s is the grace; the 20 s route has not ended. */
static void slow_crash(struct env *e, const char *how, const char *reason)
{
	const char *args[] = { "--crash-after", "0.3", how, "4", NULL };
	struct run_game_result r;
	play_route(e, args, "long.route",
	           "route long\nduration 20s\nwindow 0.5s 20s\n0s press A 100ms\n19s mark late\n", &r);
	if (r.end != RUN_END_CRASHED || !strstr(r.reason, reason) || !strstr(r.reason, "into the route"))
		fail_msg("%s: end %d, exit status %d, %.1f s after the start, reason: %s", how, (int)r.end,
		         r.exit_status, (double)(r.end_ns - r.spawn_ns) / 1e9, r.reason);
	run_game_result_finish(&r);
}

/* The same slow crash when the route ends while the run waits for it: the
 * game, stopped at the route's end, dies of its own SIGABRT, and the run is
 * still the crash (not a normal end whose log lacks the window). */
static void test_run_game__slow_crash_past_the_route_end_is_a_crash(void **state)
{
	struct env *e = *state;
	const char *args[] = { "--crash-after", "0.3", "--crash-slowly", "4", NULL };
	struct run_game_result r;
	play_route(e, args, "short.route",
	           "route short\nduration 2s\nwindow 0.5s 2s\n0s press A 100ms\n1.9s mark late\n", &r);
	if (r.end != RUN_END_CRASHED || !strstr(r.reason, "crashed: killed by signal 6") ||
	    !strstr(r.reason, "its last frame at") || r.exit_status != 134)
		fail_msg("end %d, exit status %d, reason: %s", (int)r.end, r.exit_status, r.reason);
	run_game_result_finish(&r);
}

/* A crash after the route's last event but before its end (its duration):
 * the route asks for a shot last, at 0.2 s of 30, and the stand-in aborts
 * 1 s after it is asked.  The route player has ended (its last event
 * played) long before the game dies on its own; the run is the crash, not
 * a normal end whose log then lacks the window. */
static void test_run_game__crash_after_the_last_event_before_the_end_is_a_crash(void **state)
{
	struct env *e = *state;
	const char *args[] = { "--crash-after-shot", "1", NULL };
	struct run_game_result r;
	play_route(e, args, "last.route",
	           "route last\nduration 30s\nwindow 0.1s 30s\n0.2s shot last\n", &r);
	if (r.end != RUN_END_CRASHED || !strstr(r.reason, "crashed: killed by signal 6") ||
	    !strstr(r.reason, " into the route, before its end (30 s)") || r.exit_status != 134)
		fail_msg("end %d, exit status %d, route played to its last event %d, reason: %s",
		         (int)r.end, r.exit_status, (int)r.route_done, r.reason);
	run_game_result_finish(&r);
}

/* its main thread gone (the leader a zombie), another thread aborts later */
static void test_run_game__slow_crash_is_a_crash_not_a_hang(void **state)
{
	slow_crash(*state, "--crash-slowly", "crashed: killed by signal 6");
}

/* SIGSEGV pending, blocked, taken later */
static void test_run_game__pending_crash_signal_is_a_crash_not_a_hang(void **state)
{
	slow_crash(*state, "--crash-pending", "crashed: killed by signal 11");
}

/* A shot asked for near the route's end that a busy game takes late: the
 * game is stopped only once it has (up to the stop timeout), so the shot
 * is there.  An 8 s route asks for "early" at 0.2 s and "late" at 7.5 s;
 * the stand-in takes each shot 1.5 s after it is asked: "early" long
 * before the end (the game takes shots), "late" after it. */
static void test_run_game__late_shot_is_waited_for(void **state)
{
	struct env *e = *state;
	const char *args[] = { "--png", "--shot-delay", "1.5", NULL };
	struct run_game_result r;
	play_route_stop(e, args, "shots.route",
	                "route shots\nduration 8s\nwindow 0.5s 8s\n0.2s shot early\n7.5s shot late\n", 10,
	                WATCHDOG_S, &r);
	char p[PATH_MAX];
	if (r.end != RUN_END_OK)
		fail_msg("end %d, exit status %d, reason: %s", (int)r.end, r.exit_status, r.reason);
	assert_int_equal(r.shots_asked, 2);
	struct stat st;
	assert_int_equal(stat(tdir_file(&e->t, "run/shots/early.png", p, sizeof p), &st), 0);
	if (stat(tdir_file(&e->t, "run/shots/late.png", p, sizeof p), &st) != 0)
		fail_msg("the shot asked for at 7.5 s is not there: the game was stopped before it took it");
	/* stopped once it had taken it, not at the route's end */
	assert_true(r.end_ns - r.t0_ns >= 9000000000LL);
	run_game_result_finish(&r);
}

/* The same with the shots answered only in the game's log ("shot NAME
 * frame ..." lines, no PNG): the log is read again while the game is
 * waited for, so the late shot's line, written after the route's end, is
 * seen and the game stopped then, not at the stop timeout (60 s here, so a
 * game stopped by it is told apart whatever the machine's load). */
static void test_run_game__late_shot_in_the_log_is_waited_for(void **state)
{
	struct env *e = *state;
	const char *args[] = { "--shot-delay", "1.5", NULL };
	struct run_game_result r;
	play_route_stop(e, args, "shots.route",
	                "route shots\nduration 8s\nwindow 0.5s 8s\n0.2s shot early\n7.5s shot late\n", 60,
	                WATCHDOG_S, &r);
	assert_int_equal(r.end, RUN_END_OK);
	assert_int_equal(r.shots_asked, 2);
	double ran_s = (double)(r.end_ns - r.t0_ns) / 1e9;
	if (ran_s < 9)
		fail_msg("stopped %.1f s after the route's start: before the late shot (asked at 7.5 s, "
		         "taken 1.5 s later)", ran_s);
	if (ran_s >= 8 + 60)
		fail_msg("stopped %.1f s after the route's start: at the stop timeout, the late shot's "
		         "log line not seen", ran_s);
	run_game_result_finish(&r);
}

/* A game that answers no shot (one that does not take them) although the
 * first was asked for a stop timeout before the route's end is stopped at
 * the end, without waiting: a 12 s route asks at 0.2 s and 11.5 s, the
 * stop timeout is 10 s, and the stand-in would take each shot a minute
 * late.  Waiting would have stopped it at 22 s. */
static void test_run_game__game_without_shots_is_not_waited_for(void **state)
{
	struct env *e = *state;
	const char *args[] = { "--png", "--shot-delay", "60", NULL };
	struct run_game_result r;
	play_route_stop(e, args, "noshots.route",
	                "route noshots\nduration 12s\nwindow 0.5s 12s\n0.2s shot one\n11.5s shot two\n", 10,
	                WATCHDOG_S, &r);
	assert_int_equal(r.end, RUN_END_OK);
	assert_int_equal(r.shots_asked, 2);
	char p[PATH_MAX];
	struct stat st;
	assert_int_not_equal(stat(tdir_file(&e->t, "run/shots/one.png", p, sizeof p), &st), 0);
	/* stopped at the route's end, not the stop timeout after it */
	if (r.end_ns - r.t0_ns >= 20000000000LL)
		fail_msg("stopped %.1f s after the route's start: it waited for shots never taken",
		         (double)(r.end_ns - r.t0_ns) / 1e9);
	run_game_result_finish(&r);
}

/* A game so slow that it answers even its first shot only after the
 * route's end (a loaded machine under ASan) is waited for: a 3 s route
 * asks at 0.2 s and 2.5 s, the stand-in takes each 4 s late, the stop
 * timeout is 10 s; both shots are there. */
static void test_run_game__slow_first_shot_after_the_end_is_waited_for(void **state)
{
	struct env *e = *state;
	const char *args[] = { "--png", "--shot-delay", "4", NULL };
	struct run_game_result r;
	play_route_stop(e, args, "slow.route",
	                "route slow\nduration 3s\nwindow 0.5s 3s\n0.2s shot one\n2.5s shot two\n", 10,
	                WATCHDOG_S, &r);
	assert_int_equal(r.end, RUN_END_OK);
	assert_int_equal(r.shots_asked, 2);
	char p[PATH_MAX];
	struct stat st;
	const char *names[] = { "run/shots/one.png", "run/shots/two.png" };
	for (int i = 0; i < 2; i++)
		if (stat(tdir_file(&e->t, names[i], p, sizeof p), &st) != 0)
			fail_msg("%s is not there: the game was stopped before it took it (stopped %.1f s "
			         "after the route's start)", names[i], (double)(r.end_ns - r.t0_ns) / 1e9);
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
	play_to_kill(e, args, 2, &r);
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
	play_to_kill(e, args, 10, &r);
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

/* The run's MangoHud log collected over the route's window (0.5 to 3 s). */
static void collect_mangohud(struct env *e, const struct run_game_result *r, struct run_collected *c)
{
	char run_dir[PATH_MAX];
	struct run_collect_spec cs = {
		.run_dir = tdir_file(&e->t, "run", run_dir, sizeof run_dir),
		.window_s = { 0.5, 3 },
		.t0_ns = r->t0_ns,
		.t0_log_ns = r->t0_log_ns,
		.mangohud = true,
		.mangohud_version = r->mangohud_version,
	};
	char msg[256] = "";
	if (run_collect(&cs, c, msg, sizeof msg) != 0)
		fail_msg("run_collect: %s", msg);
}

static void test_run_game__mangohud_log_covers_the_route(void **state)
{
	struct env *e = *state;
	e->mangohud = true;
	const char *versions[][2] = { { "0.6", "MangoHud v0.6.8-double" }, { "0.7", "MangoHud v0.7.2-double" } };
	for (size_t v = 0; v < 2; v++) {
		const char *args[] = { "--mangohud", versions[v][0], NULL };
		struct run_game_result r;
		play(e, args, 10, false, &r);
		assert_int_equal(r.end, RUN_END_OK);
		assert_int_equal(r.exit_status, 0); /* SIGTERM after the log was written */
		assert_true(r.route_done);
		assert_string_equal(r.mangohud_version, versions[v][1]);
		/* the log started at the greeting (the first frame), the route
		 * with it: t0 on the log's clock is 0 within a frame or two */
		if (r.t0_log_ns > 0 || r.t0_log_ns < -100000000)
			fail_msg("%s: t0 on the log's clock: %lld ns", versions[v][0], (long long)r.t0_log_ns);
		struct run_collected c;
		collect_mangohud(e, &r, &c);
		if (c.void_reason[0] || c.no_frames)
			fail_msg("%s: void: '%s'", versions[v][0], c.void_reason);
		assert_int_equal(c.r.frames[0].source, DB_FRAME_MANGOHUD);
		double fps = NAN;
		for (size_t i = 0; i < c.r.n_metrics; i++)
			if (strcmp(c.r.metrics[i].name, "real_fps") == 0)
				fps = c.r.metrics[i].value;
		if (!(fps > 30 && fps < 75))
			fail_msg("%s: real fps %.1f, the stand-in shows 60", versions[v][0], fps);
		assert_non_null(strstr(c.r.config, "mangohud: MangoHud v0."));
		run_collected_finish(&c);
		run_game_result_finish(&r);
		char p[PATH_MAX];
		nftw(tdir_file(&e->t, "run", p, sizeof p), tdir_rm, 16, FTW_DEPTH | FTW_PHYS); /* the next version starts from nothing */
	}
}

static void test_run_game__mangohud_without_a_log_is_void(void **state)
{
	struct env *e = *state;
	e->mangohud = true;
	const char *args[] = { "--mangohud", "0.6", "--mangohud-no-csv", NULL };
	struct run_game_result r;
	play(e, args, 10, false, &r);
	assert_int_equal(r.end, RUN_END_OK);
	struct run_collected c;
	collect_mangohud(e, &r, &c);
	assert_true(c.no_log);
	assert_string_equal(c.void_reason, "no log: MangoHud wrote no CSV into the run's mangohud/ folder");
	run_collected_finish(&c);
	run_game_result_finish(&r);
}

static void test_run_game__mangohud_that_never_answers(void **state)
{
	struct env *e = *state;
	e->mangohud = true; /* the stand-in carries no MangoHud */
	struct run_game_result r;
	play_to_kill(e, NULL, 2, &r);
	assert_int_equal(r.end, RUN_END_HUNG);
	if (!strstr(r.reason, "hung: no first frame within 2 s of the start (MangoHud did not answer on its control socket 'rxdeck-mangohud-"))
		fail_msg("reason: %s", r.reason);
	assert_int_equal(r.t0_ns, 0);
	run_game_result_finish(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_run_game__plays_the_route_and_stops_the_game, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_game__hung_game_is_killed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_game__crash_keeps_status_and_log, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_game__crash_after_the_last_event_before_the_end_is_a_crash,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_game__slow_crash_is_a_crash_not_a_hang, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_game__pending_crash_signal_is_a_crash_not_a_hang, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_game__slow_crash_past_the_route_end_is_a_crash, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_game__late_shot_is_waited_for, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_game__late_shot_in_the_log_is_waited_for, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_game__slow_first_shot_after_the_end_is_waited_for,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_game__game_without_shots_is_not_waited_for, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_game__early_exit_is_a_crash, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_game__no_first_frame, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_game__program_that_cannot_start, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_game__stubborn_game_and_its_child_are_killed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_game__harness_stop_interrupts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_game__mangohud_log_covers_the_route, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_game__mangohud_without_a_log_is_void, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_game__mangohud_that_never_answers, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
