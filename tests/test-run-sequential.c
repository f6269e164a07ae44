/* test-run-sequential: `rxdeck run` on a plan with max_rounds, the stand-in
 * game as the game, through the real decision (no injected callback): arms
 * whose frame rates differ hugely stop as soon as every primary comparison
 * is decided, and the database, `rxdeck report` (text and JSON),
 * `rxdeck tested` and the HTML page all say "decided after N rounds"; arms
 * whose difference flips sign from round to round stay undecided, run the
 * maximum and say "max rounds reached"; a campaign killed in its first
 * added round and resumed goes on deciding at the levels of the plan's
 * maximum and stops decided. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#include "results-db/db.h"
#include "test-run-util.h"
#include "test-rxdeck-proc.h"

static struct tdir t;
static struct test_rxdeck rx;
static char db_file[PATH_MAX];

static int remove_tdir(void **state)
{
	(void)state;
	tdir_remove(&t);
	return 0;
}

/* rxdeck run to its end with args (NULL-terminated), stdout and stderr to
 * the file out, which goes into *text (the caller frees it); its exit
 * code, 128 + the signal that ended it. */
static int rxdeck_run(char **text, const char *out, ...)
{
	const char *args[16];
	size_t n = 0;
	va_list ap;
	va_start(ap, out);
	for (const char *a; (a = va_arg(ap, const char *)) && n < 15;)
		args[n++] = a;
	va_end(ap);
	args[n] = NULL;
	rx.how.out = out;
	int rc = test_rxdeck_run(&rx, args);
	*text = test_read_text(out);
	return rc;
}

/* Writes the plan of a campaign of order AB, rounds = 1 and max_rounds
 * with the arms' env lines, a 1 s route and the stand-in game; its path
 * into plan. */
static void write_plan(const char *name, int max_rounds, const char *env_a, const char *env_b,
                       char *plan, size_t plan_size)
{
	char game[PATH_MAX], route[PATH_MAX], text[4 * PATH_MAX];
	build_path("harness/run/game-double", game, sizeof game);
	write_text(tdir_file(&t, "t.route", route, sizeof route),
	           "route t\nduration 1s\nwindow 0.2s 1s\n0s press A 100ms\n");
	snprintf(text, sizeof text,
	         "[campaign]\nname = %s\nroute = t.route\nprofile = lavapipe\norder = AB\n"
	         "rounds = 1\nmax_rounds = %d\nwarmup = no\npad = socket\n"
	         "[build double]\nbinary = %s\npad_option = --pad\n"
	         "[arm A]\nenv = %s\n[arm B]\nenv = %s\n",
	         name, max_rounds, game, env_a, env_b);
	tdir_file(&t, "plan.ini", plan, plan_size);
	write_text(plan, text);
}

/* The campaign started as name (stored as NAME-YYYYMMDD-HHMM, into full),
 * which must be done with two runs a round, each done or void with its
 * reason (a run a busy machine starved is void, and the decision goes on
 * without it): its rounds, or -1 when there is none; its void runs into
 * *n_void. */
static int campaign_rounds_void(const char *name, char *full, size_t full_size, size_t *n_void)
{
	struct db *db;
	struct db_open_options o = { .flags = DB_OPEN_READ_ONLY };
	assert_int_equal(db_open_ex(db_file, &o, &db), 0);
	struct db_campaign *cs;
	size_t nc;
	assert_int_equal(db_campaign_list(db, &cs, &nc), 0);
	int rounds = -1;
	*n_void = 0;
	for (size_t i = 0; i < nc; i++) {
		if (strncmp(cs[i].name, name, strlen(name)) != 0 || cs[i].name[strlen(name)] != '-')
			continue;
		snprintf(full, full_size, "%s", cs[i].name);
		assert_int_equal(cs[i].status, DB_CAMPAIGN_DONE);
		rounds = cs[i].rounds;
		struct db_run *r;
		size_t n;
		assert_int_equal(db_run_list(db, cs[i].id, &r, &n), 0);
		assert_int_equal(n, (size_t)rounds * 2);
		for (size_t k = 0; k < n; k++) {
			if (r[k].status == DB_RUN_VOID) {
				assert_non_null(r[k].void_reason);
				assert_true(r[k].void_reason[0] != 0);
				print_message("void run %zu of %s (a busy machine): %s\n", k + 1, cs[i].name,
				              r[k].void_reason);
				(*n_void)++;
			} else {
				assert_int_equal(r[k].status, DB_RUN_DONE);
			}
			assert_int_equal(r[k].round, (int)k / 2 + 1);
		}
		free(r);
	}
	free(cs);
	db_close(db);
	return rounds;
}

/* The exit code of `rxdeck run` or `resume` fits the campaign: 0, or 3
 * (RXDECK_EXIT_PARTIAL) when some of its runs are void. */
static void check_exit(const char *what, int rc, size_t n_void, const char *log)
{
	if (!(rc == 0 || (rc == 3 && n_void > 0)) || (rc == 0 && n_void > 0))
		fail_msg("rxdeck %s exited %d with %zu void runs:\n%s", what, rc, n_void, log);
}

/* Plays the campaign write_plan() writes to its end with `rxdeck run`:
 * campaign_rounds_void(). */
static int play(const char *name, int max_rounds, const char *env_a, const char *env_b,
                char *full, size_t full_size, size_t *n_void)
{
	char plan[PATH_MAX], out[PATH_MAX];
	write_plan(name, max_rounds, env_a, env_b, plan, sizeof plan);
	char *log;
	int rc = rxdeck_run(&log, tdir_file(&t, "run.out", out, sizeof out), "run", plan, "--db",
	                    db_file, NULL);
	int rounds = campaign_rounds_void(name, full, full_size, n_void);
	check_exit("run", rc, *n_void, log);
	free(log);
	return rounds;
}

/* What the report (text, JSON, HTML) and the run file say about the stop:
 * each must contain want; JSON's stop.reason is reason, as the run loop
 * stored it; `rxdeck show` says "stopped: want". */
static void check_stop(const char *name, const char *want, const char *reason)
{
	char out[PATH_MAX], json_reason[64];
	char *text;
	tdir_file(&t, "cmd.out", out, sizeof out);
	assert_int_equal(rxdeck_run(&text, out, "report", name, "--db", db_file, NULL), 0);
	/* the table's header, before the table */
	char *at = strstr(text, want);
	if (!at)
		fail_msg("report says no '%s':\n%s", want, text);
	char *table = strstr(text, "| metric |");
	assert_true(table == NULL || at < table);
	free(text);

	assert_int_equal(rxdeck_run(&text, out, "report", name, "--format", "json", "--db", db_file,
	                            NULL), 0);
	char *stop = strstr(text, "\"stop\"");
	assert_non_null(stop);
	snprintf(json_reason, sizeof json_reason, "\"reason\": \"%s\"", reason);
	if (!strstr(stop, json_reason))
		fail_msg("JSON stop without %s:\n%.600s", json_reason, stop);
	if (!strstr(stop, want))
		fail_msg("JSON stop without '%s':\n%.600s", want, stop);
	/* the run loop stored why it stopped; the report did not derive it */
	if (!strstr(stop, "\"stored\": true"))
		fail_msg("JSON stop not stored:\n%.600s", stop);
	free(text);

	/* rxdeck show says the same */
	assert_int_equal(rxdeck_run(&text, out, "show", name, "--db", db_file, NULL), 0);
	char line[256];
	snprintf(line, sizeof line, "stopped: %s\n", want);
	if (!strstr(text, line))
		fail_msg("show says no '%s':\n%s", line, text);
	free(text);

	assert_int_equal(rxdeck_run(&text, out, "tested", name, "--stdout", "--db", db_file, NULL),
	                 0);
	if (!strstr(text, want))
		fail_msg("run file says no '%s':\n%s", want, text);
	free(text);

	assert_int_equal(rxdeck_run(&text, out, "report", name, "--format", "html", "--db", db_file,
	                            NULL), 0);
	if (!strstr(text, want))
		fail_msg("HTML page says no '%s'", want);
	free(text);
}

static void setup_paths(void)
{
	if (!t.path[0])
		tdir_make(&t);
	test_rxdeck_init(&rx, t.path, NULL);
	tdir_file(&t, "results.db", db_file, sizeof db_file);
}

static void test_run_sequential__a_huge_difference_stops_decided(void **state)
{
	(void)state;
	setup_paths();
	char name[256];
	/* at most 8 rounds: it decides after 3; a run a busy machine voids
	 * costs the decision a round more */
	size_t n_void;
	int rounds = play("huge", 8, "DOUBLE_FPS=60", "DOUBLE_FPS=30", name, sizeof name, &n_void);
	assert_true(rounds >= 2);
	assert_true(rounds < 8);
	char want[64];
	snprintf(want, sizeof want, "decided after %d rounds", rounds);
	check_stop(name, want, "decided");
	assert_int_equal(processes_mentioning(t.path), 0);
}

static void test_run_sequential__a_flipping_difference_runs_to_the_maximum(void **state)
{
	(void)state;
	setup_paths();
	/* every start takes the next of 60, 40: A and B swap places from
	 * round to round (AB, BA, AB), so Δ flips sign and nothing is decided.
	 * One variable a line: "env = X=1 Y=2" would be X="1 Y=2", and both
	 * arms would run at 60 fps, equal rather than flipping. */
	char counter[PATH_MAX], env[PATH_MAX + 64];
	tdir_file(&t, "fps.counter", counter, sizeof counter);
	snprintf(env, sizeof env, "DOUBLE_FPS=60,40\n      DOUBLE_FPS_COUNTER=%s", counter);
	char name[256];
	size_t n_void;
	int rounds = play("flips", 3, env, env, name, sizeof name, &n_void);
	assert_int_equal(rounds, 3);
	/* each of the six starts took its own entry, in the order of the runs
	 * (the stand-in game says which on its stderr, kept in the run folder) */
	static const char *const arm_of[6] = { "A", "B", "B", "A", "A", "B" };
	for (int k = 0; k < 6; k++) {
		char rel[400], path[PATH_MAX], want[64];
		snprintf(rel, sizeof rel, "data/rxdeck/runs/%s/%03d-%s/stderr.log", name, k + 1, arm_of[k]);
		char *err = test_read_text(tdir_file(&t, rel, path, sizeof path));
		snprintf(want, sizeof want, "game-double: counter %d: %d fps\n", k, k % 2 ? 40 : 60);
		if (!err || !strstr(err, want))
			fail_msg("run %d (%s) did not say '%s':\n%s", k + 1, rel, want, err ? err : "(none)");
		free(err);
	}
	char *left = test_read_text(counter);
	assert_non_null(left);
	assert_string_equal(left, "6\n");
	free(left);
	check_stop(name, "max rounds reached (3)", "max_rounds");
	assert_int_equal(processes_mentioning(t.path), 0);
}

/* Runs of the only open campaign that are done (0 while there is none). */
static size_t runs_done(void)
{
	struct db *db;
	struct db_open_options o = { .flags = DB_OPEN_READ_ONLY };
	if (db_open_ex(db_file, &o, &db) != 0)
		return 0;
	struct db_campaign *cs = NULL;
	size_t nc = 0, count = 0;
	if (db_campaign_list(db, &cs, &nc) == 0) {
		for (size_t i = 0; i < nc; i++) {
			struct db_run *r;
			size_t n;
			if (cs[i].status != DB_CAMPAIGN_OPEN || db_run_list(db, cs[i].id, &r, &n) != 0)
				continue;
			for (size_t k = 0; k < n; k++)
				count += r[k].status == DB_RUN_DONE;
			free(r);
		}
	}
	free(cs);
	db_close(db);
	return count;
}

static void test_run_sequential__a_resume_goes_on_deciding_at_the_same_levels(void **state)
{
	(void)state;
	setup_paths();
	char plan[PATH_MAX], out[PATH_MAX], name[256];
	write_plan("cut", 8, "DOUBLE_FPS=60", "DOUBLE_FPS=30", plan, sizeof plan); /* as the case above */
	const char *run[] = { "run", plan, "--db", db_file, NULL };
	rx.how.out = tdir_file(&t, "run.out", out, sizeof out);
	pid_t pid = test_rxdeck_start(&rx, run);
	/* cut it in the first added round: round 1 and one run of round 2 done */
	size_t done = 0;
	for (int i = 0; i < 600 && done < 3; i++) {
		test_sleep_ms(50);
		done = runs_done();
	}
	assert_int_equal(done, 3);
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(test_proc_wait(pid), 128 + SIGKILL);
	test_processes_gone(t.path, 50);

	char *log;
	int rc = rxdeck_run(&log, out, "resume", "--db", db_file, NULL);
	/* a run a busy machine starved is void (exit 3); the resume still goes
	 * on deciding at the plan's levels, in as many rounds as that takes */
	size_t n_void;
	int rounds = campaign_rounds_void("cut", name, sizeof name, &n_void);
	check_exit("resume", rc, n_void, log);
	/* the resume looked and stopped, as the run would have */
	assert_non_null(strstr(log, "every primary comparison is decided after"));
	free(log);
	assert_true(rounds >= 2);
	assert_true(rounds < 8);
	char want[64];
	snprintf(want, sizeof want, "decided after %d rounds", rounds);
	check_stop(name, want, "decided");
	/* at the levels of a maximum of 8 rounds, the plan's, frozen at the start */
	char *text;
	tdir_file(&t, "cmd.out", out, sizeof out);
	assert_int_equal(rxdeck_run(&text, out, "report", name, "--db", db_file, NULL), 0);
	snprintf(want, sizeof want, "the level round %d spends of 5 %% over at most 8 rounds", rounds);
	/* the terminal report folds its notes to 80 columns: read them unfolded */
	for (char *c = text; *c; c++)
		if (*c == '\n')
			*c = ' ';
	if (!strstr(text, want))
		fail_msg("report says no '%s':\n%s", want, text);
	free(text);
	assert_int_equal(processes_mentioning(t.path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_sequential__a_huge_difference_stops_decided),
		cmocka_unit_test(test_run_sequential__a_flipping_difference_runs_to_the_maximum),
		cmocka_unit_test_teardown(test_run_sequential__a_resume_goes_on_deciding_at_the_same_levels,
		                          remove_tdir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
