/* test-run-sleep: a run during which the host slept is void "host slept",
 * and the campaign goes on after the wake, told two ways: the suspend
 * clock (CLOCK_BOOTTIME - CLOCK_MONOTONIC) through an injected hook that
 * jumps as a suspend would, and logind's PrepareForSleep sent by the
 * logind double (tests/doubles/deck-bus-double.py) while a run plays — no
 * host is put to sleep.  The stand-in game on a fake Deck, private
 * dbus-daemons (test-run-play.h's struct test_night; 77 without
 * dbus-daemon/python3-dbus). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "run/run.h"
#include "test-run-util.h"
#include "test-run-play.h"
#include "test-deck-bus-util.h"
#include "test-deck-util.h"

struct env {
	struct test_night n;
	int clock_calls;      /* the hook's reads so far */
	int jump_at;          /* the read from which the host has slept 5 min */
};

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof *e);
	test_night_open(&e->n, NULL, "route t\nduration 2s\nwindow 0.5s 2s\n0s press A 100ms\n");
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;
	test_night_close(&e->n);
	free(e);
	return 0;
}

/* The suspend clock as a host that slept 5 minutes from the jump_at-th
 * read on: reads 0 and 1 bracket the first run, 2 and 3 the second. */
static int64_t jumping_clock(void *ctx)
{
	struct env *e = ctx;
	return e->clock_calls++ >= e->jump_at ? 300 * 1000000000LL : 0;
}

static int64_t steady_clock(void *ctx)
{
	(void)ctx;
	return 0;
}

static struct run_campaign *play(struct env *e, const char *binary,
                                 int64_t (*clock)(void *), struct run_outcome *out)
{
	struct run_options o = { .data_dir = e->n.data, .environ = e->n.environ_,
	                         .deck_root = e->n.f.root, .progress = e->n.progress,
	                         .ac_poll_s = 0.2, .suspended_ns = clock, .suspended_ctx = e };
	/* two arms, one round */
	struct plan *p = test_night_plan(&e->n, binary, "order = AB\n", "[arm A]\n[arm B]\n");
	struct run_campaign *c = test_campaign_create(e->n.db, p, &o);
	plan_free(p);
	*out = test_campaign_play(c);
	return c;
}

static void test_sleep__clock_jump_voids_the_run_and_the_campaign_goes_on(void **state)
{
	struct env *e = *state;
	char game[PATH_MAX];
	build_path("harness/run/game-double", game, sizeof game);
	e->jump_at = 1; /* between the first run's two reads */
	struct run_outcome out;
	struct run_campaign *c = play(e, game, jumping_clock, &out);
	assert_true(out.complete);
	assert_int_equal(e->clock_calls, 4);
	struct db_run *runs;
	size_t n;
	assert_int_equal(db_run_list(e->n.db, run_campaign_id(c), &runs, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(runs[0].status, DB_RUN_VOID);
	assert_string_equal(runs[0].void_reason, "host slept: suspended for 5m00s during the run");
	assert_int_equal(runs[1].status, DB_RUN_DONE); /* after the wake */
	free(runs);
	assert_non_null(strstr(test_night_progress(&e->n), "the host slept during run 1; the campaign goes on"));
	run_campaign_destroy(c);
}

static void test_sleep__prepare_for_sleep_voids_the_run(void **state)
{
	struct env *e = *state;
	if (access("/usr/bin/dbus-send", X_OK) != 0)
		skip();
	/* the first start of the game makes logind's double announce a suspend
	 * and a wake (the call returns once both signals are on the bus) */
	char game[PATH_MAX], script[PATH_MAX], mark[PATH_MAX], text[4 * PATH_MAX];
	build_path("harness/run/game-double", game, sizeof game);
	tdir_file(&e->n.t, "slept-once", mark, sizeof mark);
	snprintf(text, sizeof text,
	         "#!/bin/sh\n"
	         "if [ ! -e '%s' ]; then\n"
	         "  : > '%s'\n"
	         "  DBUS_SYSTEM_BUS_ADDRESS='%s' /usr/bin/dbus-send --system --print-reply "
	         "--dest=org.freedesktop.login1 /org/freedesktop/login1 org.rxdeck.Double.Sleep "
	         ">/dev/null || exit 99\n"
	         "fi\n"
	         "exec '%s' \"$@\"\n",
	         mark, mark, e->n.bus.address[0], game);
	write_text(tdir_file(&e->n.t, "game.sh", script, sizeof script), text);
	assert_int_equal(chmod(script, 0755), 0);
	struct run_outcome out;
	struct run_campaign *c = play(e, script, steady_clock, &out);
	assert_true(out.complete);
	assert_true(test_bus_logged(&e->n.bus, "slept"));
	struct db_run *runs;
	size_t n;
	assert_int_equal(db_run_list(e->n.db, run_campaign_id(c), &runs, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(runs[0].status, DB_RUN_VOID);
	assert_string_equal(runs[0].void_reason, "host slept: logind announced a suspend during "
	                                         "the run (PrepareForSleep)");
	assert_int_equal(runs[1].status, DB_RUN_DONE);
	free(runs);
	run_campaign_destroy(c);
}

/* No sleep: every run counts (the hook is read, nothing voids). */
static void test_sleep__steady_clock_voids_nothing(void **state)
{
	struct env *e = *state;
	char game[PATH_MAX];
	build_path("harness/run/game-double", game, sizeof game);
	struct run_outcome out;
	struct run_campaign *c = play(e, game, steady_clock, &out);
	assert_true(out.complete);
	assert_int_equal(out.runs_void, 0);
	assert_null(strstr(test_night_progress(&e->n), "slept"));
	run_campaign_destroy(c);
}

int main(void)
{
	test_bus_skip_unless_it_can_run();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_sleep__clock_jump_voids_the_run_and_the_campaign_goes_on, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sleep__prepare_for_sleep_voids_the_run, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(test_sleep__steady_clock_voids_nothing, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
