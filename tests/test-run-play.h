/* test-run-play: campaigns created, opened for a resume and played through
 * the run module's functions, for the tests where each of those steps
 * must succeed: a step that fails fails the test with the module's
 * message; and the night on a fake Deck that the device and sleep tests
 * share (struct test_night).  Header only; include it after cmocka.h. */
#ifndef RXDECK_TEST_RUN_PLAY_H
#define RXDECK_TEST_RUN_PLAY_H

#include "run/run.h"
#include "test-deck-bus-util.h"
#include "test-deck-util.h"
#include "test-run-util.h"

static inline struct run_campaign *test_campaign_create(struct db *db, const struct plan *plan,
                                                        const struct run_options *o)
{
	struct run_campaign *c;
	char msg[2048] = "";
	if (run_campaign_create(db, plan, o, &c, msg, sizeof msg) != 0)
		fail_msg("%s", msg);
	return c;
}

/* The campaign name_or_id, open for a resume. */
static inline struct run_campaign *test_campaign_open(struct db *db, const char *name_or_id,
                                                      const struct run_options *o)
{
	struct run_campaign *c;
	char msg[2048] = "";
	if (run_campaign_open(db, name_or_id, o, &c, msg, sizeof msg) != 0)
		fail_msg("%s", msg);
	return c;
}

/* c played with no harness trouble: its outcome. */
static inline struct run_outcome test_campaign_play(struct run_campaign *c)
{
	struct run_outcome out;
	char msg[2048] = "";
	if (run_campaign_play(c, &out, msg, sizeof msg) != 0)
		fail_msg("%s", msg);
	return out;
}

/* text parsed as the plan t/plan.ini; a plan that does not parse fails the
 * test with the parser's line:column and message. */
static inline struct plan *test_plan_parse(const struct tdir *t, const char *text)
{
	char name[PATH_MAX];
	tdir_file(t, "plan.ini", name, sizeof name);
	struct plan *p;
	struct util_diag pe;
	if (plan_parse(name, text, strlen(text), NULL, &p, &pe) != 0)
		fail_msg("%d:%d: %s", pe.line, pe.column, pe.message);
	return p;
}

/* A night on a fake LCD Deck (tests/test-deck-util.h) with the logind and
 * steamos-manager double on private system and session buses
 * (tests/test-deck-bus-util.h): a temporary folder (TMPDIR points there
 * while it is open), the data folder, the game's environment (PATH and
 * TEST_RUN_DIR), a route t.route and a profile p.env, a results database
 * and the progress file the campaign writes. */
struct test_night {
	struct tdir t;
	struct fake f;
	struct test_bus bus;
	char data[PATH_MAX];
	char *environ_[4];
	char path_env[PATH_MAX + 8];
	char mark_env[PATH_MAX + 16];
	struct db *db;
	FILE *progress;
	char progress_path[PATH_MAX];
	char *saved_tmpdir;
};

/* Opens it with the double serving era ("split", "none", ...: over the
 * fake card and hwmon; NULL: its default, over no tree) and route_text as
 * t.route.  Fails the test when the double does not come up. */
static inline void test_night_open(struct test_night *n, const char *era, const char *route_text)
{
	memset(n, 0, sizeof *n);
	tdir_make(&n->t);
	fake_init(&n->f);
	fake_deck(&n->f);
	char extra[PATH_MAX * 2];
	if (era)
		snprintf(extra, sizeof extra, "--era %s --root %s "
		         "--card sys/class/drm/card2/device "
		         "--hwmon sys/class/drm/card2/device/hwmon/hwmon4", era, n->f.root);
	if (!test_bus_start(&n->bus, n->t.path, era ? extra : NULL)) {
		test_bus_stop(&n->bus);
		fail_msg("the D-Bus doubles did not come up");
	}
	n->saved_tmpdir = getenv("TMPDIR") ? strdup(getenv("TMPDIR")) : NULL;
	setenv("TMPDIR", n->t.path, 1);
	unsetenv("XDG_RUNTIME_DIR");
	tdir_file(&n->t, "data", n->data, sizeof n->data);
	snprintf(n->path_env, sizeof n->path_env, "PATH=%s",
	         getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	snprintf(n->mark_env, sizeof n->mark_env, "TEST_RUN_DIR=%s", n->t.path);
	n->environ_[0] = n->path_env;
	n->environ_[1] = n->mark_env;
	char p[PATH_MAX];
	write_text(tdir_file(&n->t, "t.route", p, sizeof p), route_text);
	write_text(tdir_file(&n->t, "p.env", p, sizeof p), "RX_VK_LOG_READBACK_WAITS=1\n");
	assert_int_equal(db_open(tdir_file(&n->t, "results.db", p, sizeof p), &n->db), 0);
	tdir_file(&n->t, "progress.txt", n->progress_path, sizeof n->progress_path);
	n->progress = fopen(n->progress_path, "w+");
	assert_non_null(n->progress);
}

/* Makes rxdeck's priv-write helper the double (tests/doubles/
 * priv-write-double.sh), writing into the fake tree and logging to its
 * priv-write.log; helper false: no helper at all (a path that does not
 * exist). */
static inline void test_night_helper(struct test_night *n, bool helper)
{
	if (!helper) {
		setenv(DECK_PRIV_WRITE_ENV, "/nonexistent/steamos-priv-write", 1);
		return;
	}
	setenv(DECK_PRIV_WRITE_ENV, RXDECK_SOURCE_ROOT "/tests/doubles/priv-write-double.sh", 1);
	setenv("RXDECK_DECK_ROOT", n->f.root, 1);
	char log[PATH_MAX + 32];
	snprintf(log, sizeof log, "%s/priv-write.log", n->f.root);
	setenv("PRIV_WRITE_DOUBLE_LOG", log, 1);
}

/* Closes it: the buses stopped, TMPDIR and the helper's environment put
 * back, the files removed.  Fails the test when a process still mentions
 * its folder. */
static inline void test_night_close(struct test_night *n)
{
	unsetenv(DECK_PRIV_WRITE_ENV);
	unsetenv("RXDECK_DECK_ROOT");
	unsetenv("PRIV_WRITE_DOUBLE_LOG");
	db_close(n->db);
	fclose(n->progress);
	test_bus_stop(&n->bus);
	if (n->saved_tmpdir)
		setenv("TMPDIR", n->saved_tmpdir, 1);
	else
		unsetenv("TMPDIR");
	free(n->saved_tmpdir);
	n->saved_tmpdir = NULL;
	int left = processes_mentioning(n->t.path);
	fake_cleanup(&n->f);
	tdir_remove(&n->t);
	assert_int_equal(left, 0);
}

/* A one-round campaign "night" of the arms given (arms: "[arm A]\n..."),
 * with campaign's lines added to [campaign]; its game is binary, or the
 * stand-in game (harness/run/game-double) when NULL.  No case of these
 * nights is about a hang, a slow start or a slow stop, and each asserts a
 * normal end, so the watchdog, start_timeout and stop_timeout are the
 * plan's defaults (10 s, 120 s, 10 s), never waited on by a game that is
 * not hung: at 2 s, 5 s and 1 s they were margins for an idle machine, and
 * a clean-clone run at load average 8 judged the stand-in hung ("no new
 * frame for 2 s") in run-device under gcc and clang at once. */
static inline struct plan *test_night_plan(struct test_night *n, const char *binary,
                                           const char *campaign, const char *arms)
{
	char game[PATH_MAX], text[8192];
	if (!binary)
		build_path("harness/run/game-double", game, sizeof game);
	snprintf(text, sizeof text,
	         "[campaign]\nname = night\nroute = t.route\nprofile = p.env\nrounds = 1\n"
	         "warmup = no\npad = socket\n"
	         "%s[build double]\nbinary = %s\npad_option = --pad\n%s",
	         campaign, binary ? binary : game, arms);
	return test_plan_parse(&n->t, text);
}

/* What the campaign has written to its progress file so far (a static
 * buffer). */
static inline const char *test_night_progress(struct test_night *n)
{
	static char buf[16384];
	fflush(n->progress);
	return test_file_text(n->progress_path, buf, sizeof buf);
}

#endif
