/* test-cmd-rxdeck: the rxdeck binary as a user meets it, each case through
 * the real program: a plan with `collect = none` plays without a collector
 * profile (no log metrics, no matched lines) while the default one reads
 * the game's log.  The campaigns are the stand-in game's on a 1 s route. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/stat.h>

#include "test-run-util.h"
#include "test-rxdeck-proc.h"

static struct tdir t;
static struct test_rxdeck rx;
static char db_file[PATH_MAX];

/* rxdeck with args (NULL-terminated) to its end, stdout and stderr into
 * *text (the caller frees it): its exit code. */
static int rxdeck(char **text, ...)
{
	const char *args[24];
	size_t n = 0;
	va_list ap;
	va_start(ap, text);
	for (const char *a; (a = va_arg(ap, const char *)) && n < 23;)
		args[n++] = a;
	va_end(ap);
	args[n] = NULL;
	char out[PATH_MAX];
	rx.how.out = tdir_file(&t, "cmd.out", out, sizeof out);
	int rc = test_rxdeck_run(&rx, args);
	*text = test_read_text(out);
	return rc;
}

/* Plays a campaign of two arms, one round, no warm-up, with the stand-in
 * game and extra lines in [campaign] (may be ""): the run's exit code. */
static int play(const char *name, const char *extra)
{
	char game[PATH_MAX], route[PATH_MAX], plan[PATH_MAX], text[4 * PATH_MAX];
	build_path("harness/run/game-double", game, sizeof game);
	write_text(tdir_file(&t, "t.route", route, sizeof route),
	           "route t\nduration 1s\nwindow 0.2s 1s\n0s press A 100ms\n");
	snprintf(text, sizeof text,
	         "[campaign]\nname = %s\nroute = t.route\nprofile = lavapipe\norder = AB\n"
	         "rounds = 1\nwarmup = no\nwatchdog = 2s\nstart_timeout = 5s\nstop_timeout = 1s\n"
	         "pad = socket\n%s"
	         "[build double]\nbinary = %s\npad_option = --pad\n"
	         "[arm A]\nenv = DOUBLE_FPS=60\n[arm B]\nenv = DOUBLE_FPS=30\n",
	         name, extra, game);
	write_text(tdir_file(&t, "plan.ini", plan, sizeof plan), text);
	char *log;
	int rc = rxdeck(&log, "run", plan, "--db", db_file, "--quiet", NULL);
	if (rc != 0)
		fprintf(stderr, "rxdeck run exited %d:\n%s", rc, log);
	free(log);
	return rc;
}

static int setup(void **state)
{
	(void)state;
	tdir_make(&t);
	test_rxdeck_init(&rx, t.path, NULL);
	tdir_file(&t, "results.db", db_file, sizeof db_file);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tdir_remove(&t);
	return 0;
}

static void test_cmd_rxdeck__collect_none_plays_without_log_metrics(void **state)
{
	(void)state;
	/* the default profile (rxvk) reads the stand-in's readback lines ... */
	assert_int_equal(play("withlog", ""), 0);
	char *text;
	assert_int_equal(rxdeck(&text, "show", "1/1", "--db", db_file, NULL), 0);
	if (!strstr(text, "  rb_summaries ") || strstr(text, "matched log lines: 0\n"))
		fail_msg("the default profile read no log:\n%s", text);
	free(text);

	/* ... collect = none reads none: frame metrics, no log metrics */
	assert_int_equal(play("nolog", "collect = none\n"), 0);
	for (int pos = 1; pos <= 2; pos++) {
		char ref[32];
		snprintf(ref, sizeof ref, "2/%d", pos);
		assert_int_equal(rxdeck(&text, "show", ref, "--db", db_file, NULL), 0);
		if (!strstr(text, ", done\n") || !strstr(text, "  real_fps ") ||
		    strstr(text, "rb_summaries") || !strstr(text, "matched log lines: 0\n"))
			fail_msg("collect = none, run %d:\n%s", pos, text);
		free(text);
	}
	assert_int_equal(rxdeck(&text, "report", "2", "--db", db_file, NULL), 0);
	assert_non_null(strstr(text, "real fps"));
	free(text);
	assert_int_equal(processes_mentioning(t.path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cmd_rxdeck__collect_none_plays_without_log_metrics),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
