/* test-run-ab: `rxdeck ab`, with the stand-in game posing as the demo game:
 * a switch against no switch, and a build against another build's folder;
 * the campaign has the two arms in ABBA order with the right env, the
 * built-in walk route was written and parses, and bad command lines are
 * refused before anything runs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/wait.h>

#include "results-db/db.h"
#include "route/route.h"
#include "test-run-util.h"
#include "test-rxdeck-proc.h"

static struct tdir t;
static struct test_rxdeck rx;
static char out[PATH_MAX];

static void show_output(void)
{
	char *text = test_read_text(out);
	fputs(text, stderr);
	free(text);
}

static int setup(void **state)
{
	(void)state;
	tdir_make(&t);
	test_rxdeck_init(&rx, t.path, tdir_file(&t, "out.txt", out, sizeof out));
	/* the stand-in game under the demo game's name, here and in an "old"
	 * build folder */
	char game[PATH_MAX], link[PATH_MAX], dir[PATH_MAX];
	build_path("harness/run/game-double", game, sizeof game);
	assert_int_equal(symlink(game, tdir_file(&t, "rxdeck-forest", link, sizeof link)), 0);
	assert_int_equal(mkdir(tdir_file(&t, "old", dir, sizeof dir), 0700), 0);
	assert_int_equal(symlink(game, tdir_file(&t, "old/rxdeck-forest", link, sizeof link)), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	int left = processes_mentioning(t.path);
	tdir_remove(&t);
	assert_int_equal(left, 0);
	return 0;
}

/* The newest campaign's runs, as arm letters, and the arms' env. */
static void check_campaign(const char *want_order, const char *env_a, const char *env_b,
                           bool b_waits_less)
{
	char db_path[PATH_MAX + 64];
	snprintf(db_path, sizeof db_path, "%s/data/rxdeck/results.db", t.path);
	struct db *db;
	assert_int_equal(db_open(db_path, &db), 0);
	struct db_campaign *cs;
	size_t nc;
	assert_int_equal(db_campaign_list(db, &cs, &nc), 0);
	assert_true(nc >= 1);
	assert_memory_equal(cs[0].name, "ab-", 3);
	int64_t cid = cs[0].id;
	free(cs);
	struct db_arm *arms;
	size_t na;
	assert_int_equal(db_arm_list(db, cid, &arms, &na), 0);
	assert_int_equal(na, 2);
	assert_string_equal(arms[0].env ? arms[0].env : "", env_a);
	assert_string_equal(arms[1].env ? arms[1].env : "", env_b);
	free(arms);
	struct db_run *runs;
	size_t n;
	assert_int_equal(db_run_list(db, cid, &runs, &n), 0);
	assert_int_equal(n, strlen(want_order));
	double wait[2] = { 0, 0 };
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(runs[i].arm_letter, want_order[i]);
		assert_int_equal(runs[i].status, DB_RUN_DONE);
		double v;
		assert_int_equal(db_metric_get(db, runs[i].id, "rb_wait_ms", &v), 0);
		wait[runs[i].arm_letter - 'A'] += v;
	}
	if (b_waits_less)
		assert_true(wait[1] < wait[0]);
	else
		assert_true(wait[1] == wait[0]);
	free(runs);
	db_close(db);
}

static void test_run_ab__switch_against_none(void **state)
{
	(void)state;
	char game[PATH_MAX];
	tdir_file(&t, "rxdeck-forest", game, sizeof game);
	const char *args[] = { "ab", "--game", game, "--seconds", "10", "--rounds", "1",
		               "--no-warmup", "--profile", "lavapipe", "RX_VK_READBACK_EARLY=1", NULL };
	int rc = test_rxdeck_run(&rx, args);
	if (rc != 0) {
		show_output();
		fail_msg("rxdeck ab exited %d", rc);
	}
	check_campaign("ABBA", "", "RX_VK_READBACK_EARLY=1", true);
	/* one round of ABBA (2 runs an arm) decides nothing, and says why:
	 * the permutation test's floor, or (when the runs' values make the
	 * linear time term the narrower model, which is the data's choice)
	 * the one residual degree of freedom that leaves */
	char *text = test_read_text(out);
	if (!strstr(text, "2 vs 2 runs: the permutation test cannot go below p = 0.17") &&
	    !strstr(text, "1 residual degree of freedom: a call needs at least 2")) {
		show_output();
		fail_msg("rxdeck ab --rounds 1 does not say why it decides nothing");
	}
	assert_null(strstr(text, "**faster**"));
	assert_null(strstr(text, "**slower**"));
	/* it ends with the report for a terminal, headline first: B's line
	 * against A, then what decides (one round decides nothing) */
	const char *b = strstr(text, "\nB ");
	const char *verdict = strstr(text, "\nno arm decided yet: ");
	const char *table = strstr(text, "\narm ");
	if (!b || !verdict || !table || !(b < verdict && verdict < table))
		fail_msg("rxdeck ab does not end with the headline before its table:\n%s", text);
	free(text);
	/* the walk it wrote is a good route of that length */
	char route_path[PATH_MAX + 64];
	snprintf(route_path, sizeof route_path, "%s/data/rxdeck/routes/ab-10s.route", t.path);
	struct route *r;
	struct util_diag re;
	assert_int_equal(route_load(route_path, &r, &re), 0);
	assert_int_equal(route_duration_ms(r), 10000);
	size_t ns;
	route_shots(r, &ns);
	assert_int_equal(ns, 1);
	route_free(r);
}

static void test_run_ab__build_against_build_folder(void **state)
{
	(void)state;
	char game[PATH_MAX], old[PATH_MAX];
	tdir_file(&t, "rxdeck-forest", game, sizeof game);
	tdir_file(&t, "old", old, sizeof old);
	const char *args[] = { "ab", "--against", old, "--game", game, "--seconds", "10",
		               "--rounds", "1", "--no-warmup", "--profile", "lavapipe",
		               "RX_VK_READBACK_LATE=newest", NULL };
	int rc = test_rxdeck_run(&rx, args);
	if (rc != 0) {
		show_output();
		fail_msg("rxdeck ab exited %d", rc);
	}
	/* the setting goes to both arms: the same waits */
	check_campaign("ABBA", "RX_VK_READBACK_LATE=newest", "RX_VK_READBACK_LATE=newest", false);
}

static void test_run_ab__bad_command_lines(void **state)
{
	(void)state;
	const char *nothing[] = { "ab", NULL };
	assert_int_equal(test_rxdeck_run(&rx, nothing), 2);
	const char *bad_env[] = { "ab", "NOT-A-SETTING", NULL };
	assert_int_equal(test_rxdeck_run(&rx, bad_env), 2);
	const char *both[] = { "ab", "--route", "x.route", "--seconds", "20", "A=1", NULL };
	assert_int_equal(test_rxdeck_run(&rx, both), 2);
	const char *short_run[] = { "ab", "--seconds", "5", "A=1", NULL };
	assert_int_equal(test_rxdeck_run(&rx, short_run), 2);
	const char *no_build[] = { "ab", "--against", "/nonexistent-folder/x", "--seconds", "10", NULL };
	assert_int_equal(test_rxdeck_run(&rx, no_build), 1);
	FILE *f = fopen(out, "r");
	char line[512] = "";
	assert_non_null(fgets(line, sizeof line, f));
	fclose(f);
	assert_non_null(strstr(line, "cannot run program '/nonexistent-folder/x'"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_ab__bad_command_lines),
		cmocka_unit_test(test_run_ab__switch_against_none),
		cmocka_unit_test(test_run_ab__build_against_build_folder),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
