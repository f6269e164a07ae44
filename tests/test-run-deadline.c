/* test-run-deadline: the guard that keeps a campaign from starting when
 * its deadline is less than one round away, and --scheduled, which makes
 * a late start (a timer missed in suspend, fired on waking) meet its own
 * night's deadline.  The anchoring and the round's estimate as functions;
 * the refusal through the real rxdeck binary: exit 5, the reason on
 * stderr, nothing written that a later run trips over. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/wait.h>
#include <time.h>

#include "results-db/db.h"
#include "run/run.h"
#include "test-run-util.h"
#include "test-rxdeck-proc.h"

/* 2026-12-02 09:00:00 UTC */
#define MORNING_MS 1796202000000LL

static int utc(void **state)
{
	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	return 0;
}

static void test_deadline_anchor__late_start_meets_its_nights_deadline(void **state)
{
	(void)state;
	char out[32];
	/* the 01:00 timer fired at 09:00 on waking: the night's 07:00 passed */
	assert_int_equal(run_deadline_anchor("07:00", "01:00", MORNING_MS, out, sizeof out), 0);
	assert_string_equal(out, "2026-12-02 07:00");
	/* on time, 01:00:30: the same 07:00 */
	assert_int_equal(run_deadline_anchor("07:00", "01:00", MORNING_MS - 8 * 3600000LL + 30000,
	                                     out, sizeof out), 0);
	assert_string_equal(out, "2026-12-02 07:00");
	/* a timer before midnight with a deadline after it */
	assert_int_equal(run_deadline_anchor("06:00", "23:30", MORNING_MS - 9 * 3600000LL + 60000,
	                                     out, sizeof out), 0);
	assert_string_equal(out, "2026-12-02 06:00");
	/* that timer fired at 09:00 the next morning: the night's 06:00, passed */
	assert_int_equal(run_deadline_anchor("06:00", "23:30", MORNING_MS, out, sizeof out), 0);
	assert_string_equal(out, "2026-12-02 06:00");
	/* a date is kept */
	assert_int_equal(run_deadline_anchor("2026-12-03 05:00", "01:00", MORNING_MS, out, sizeof out), 0);
	assert_string_equal(out, "2026-12-03 05:00");
	assert_int_equal(run_deadline_anchor("07:00", "1:00", MORNING_MS, out, sizeof out), -EINVAL);
	assert_int_equal(run_deadline_anchor("7h", "01:00", MORNING_MS, out, sizeof out), -EINVAL);
	assert_int_equal(run_deadline_anchor("07:00", "24:00", MORNING_MS, out, sizeof out), -EINVAL);
}

static struct plan *plan_of(const char *text)
{
	struct plan *p;
	struct util_diag pe;
	if (plan_parse("night.ini", text, strlen(text), NULL, &p, &pe) != 0)
		fail_msg("%d:%d: %s", pe.line, pe.column, pe.message);
	return p;
}

static void test_deadline_round__order_and_warm_ups_at_route_plus_start(void **state)
{
	(void)state;
	struct plan *p = plan_of("[campaign]\nname = night\nroute = r.route\norder = ABBA\n"
	                         "until = 07:00\nstart_delay = 10s\n[arm A]\n[arm B]\n");
	size_t n;
	/* ABBA and a warm-up run of each arm: 6 runs of 600 + 10 + 5 s */
	assert_true(run_deadline_round_s(p, 600, &n) == 6 * 615.0);
	assert_int_equal(n, 6);
	char msg[512] = "";
	/* 2026-12-02 07:00 is 1h00m away at 06:00: one round (61m30s) does not fit */
	int64_t six = MORNING_MS - 3 * 3600000LL;
	assert_int_equal(run_deadline_check(p, "night-x", 600, six, msg, sizeof msg), -ETIME);
	assert_string_equal(msg, "not starting campaign 'night-x': the deadline 2026-12-02 07:00 is "
	                         "1h00m away, less than one round, which should take 1h01m (6 runs "
	                         "of about 10m15s: the route and 15s to start each; none measured yet)");
	/* at 05:55 it fits */
	assert_int_equal(run_deadline_check(p, "night-x", 600, six - 5 * 60000, msg, sizeof msg), 0);
	plan_free(p);
	p = plan_of("[campaign]\nname = night\nroute = r.route\norder = AB\nwarmup = first\n"
	            "until = 2026-12-02 07:00\n[arm A]\n[arm B]\n");
	assert_true(run_deadline_round_s(p, 60, &n) == 3 * 65.0);
	assert_int_equal(run_deadline_check(p, "n", 60, MORNING_MS, msg, sizeof msg), -ETIME);
	assert_string_equal(msg, "not starting campaign 'n': the deadline 2026-12-02 07:00 passed "
	                         "2h00m ago; one round should take 3m15s (3 runs of about 1m05s: the "
	                         "route and 5s to start each; none measured yet)");
	plan_free(p);
	/* no deadline: no guard */
	p = plan_of("[campaign]\nname = night\nroute = r.route\nrounds = 2\n[arm A]\n");
	assert_int_equal(run_deadline_check(p, "n", 6000, MORNING_MS, msg, sizeof msg), 0);
	plan_free(p);
}

/* ---- the real binary ------------------------------------------------------------- */

struct env {
	struct tdir t;
	struct test_rxdeck r;
	char db[PATH_MAX];
	char plan[PATH_MAX];
	char out[PATH_MAX];
};

static struct env e;

static int make_env(void **state)
{
	(void)state;
	unsetenv("TZ");
	tzset();
	memset(&e, 0, sizeof e);
	tdir_make(&e.t);
	char game[PATH_MAX], p[PATH_MAX];
	build_path("harness/run/game-double", game, sizeof game);
	tdir_file(&e.t, "results.db", e.db, sizeof e.db);
	tdir_file(&e.t, "plan.ini", e.plan, sizeof e.plan);
	/* rxdeck runs in the test's folder, its output into out.txt */
	test_rxdeck_init(&e.r, e.t.path, tdir_file(&e.t, "out.txt", e.out, sizeof e.out));
	e.r.how.cwd = e.t.path;
	/* a route of ten minutes: a round of AB with a warm-up each is 20 min */
	write_text(tdir_file(&e.t, "long.route", p, sizeof p),
	           "route long\nduration 600s\nwindow 1s 600s\n0s press A 100ms\n");
	write_text(tdir_file(&e.t, "short.route", p, sizeof p),
	           "route short\nduration 2s\nwindow 0.5s 2s\n0s press A 100ms\n1s shot one\n");
	char text[8192];
	snprintf(text, sizeof text,
	         "[campaign]\nname = night\nroute = long.route\nprofile = lavapipe\norder = AB\n"
	         "pad = socket\n"
	         "[build double]\nbinary = %s\npad_option = --pad\n[arm A]\n[arm B]\n", game);
	write_text(e.plan, text);
	return 0;
}

static int remove_env(void **state)
{
	(void)state;
	tdir_remove(&e.t);
	return 0;
}

static const char *output(void)
{
	return test_rxdeck_output(&e.r);
}

/* now + minutes, as "YYYY-MM-DD HH:MM" or "HH:MM" (local time) */
static const char *at(int minutes, bool date, char *buf, size_t size)
{
	time_t t = time(NULL) + minutes * 60;
	struct tm tm;
	localtime_r(&t, &tm);
	strftime(buf, size, date ? "%Y-%m-%d %H:%M" : "%H:%M", &tm);
	return buf;
}

/* Whether the output says the deadline (until, an HH:MM an hour back set
 * at set_at) passed 1h00m ago, or a minute more for each minute that turned
 * before the command looked (the clock of a busy machine moves on between
 * the two), followed by tail; fails the test naming what it looked for. */
static void said_passed_an_hour_ago(const char *output, const char *until, time_t set_at,
                                    const char *tail)
{
	long turned = (long)(time(NULL) - (set_at - set_at % 60)) / 60;
	char want[256];
	for (long m = 0; m <= turned + 1; m++) {
		snprintf(want, sizeof want, "the deadline %s passed 1h%02ldm ago%s", until, m, tail);
		if (strstr(output, want))
			return;
	}
	fail_msg("no 'the deadline %s passed 1h0Nm ago%s' (N up to %ld):\n%s", until, tail,
	         turned + 1, output);
}

static size_t campaigns(void)
{
	struct db *db;
	if (access(e.db, F_OK) != 0)
		return 0;
	assert_int_equal(db_open(e.db, &db), 0);
	struct db_campaign *cs;
	size_t n;
	assert_int_equal(db_campaign_list(db, &cs, &n), 0);
	free(cs);
	db_close(db);
	return n;
}

static void test_deadline__rxdeck_run_refuses_a_deadline_closer_than_a_round(void **state)
{
	(void)state;
	char until[32], runs[PATH_MAX];
	/* 3 minutes away; a round is 4 runs of 10 minutes */
	const char *args[] = { "run", e.plan, "--db", e.db, "--until", at(3, true, until, sizeof until),
	                       NULL };
	int rc = test_rxdeck_run(&e.r, args);
	if (rc != 5)
		fail_msg("exit %d, not 5:\n%s", rc, output());
	const char *out = output();
	char want[256];
	snprintf(want, sizeof want, "rxdeck run: not starting campaign 'night-");
	assert_non_null(strstr(out, want));
	snprintf(want, sizeof want, "the deadline %s is ", until);
	assert_non_null(strstr(out, want));
	assert_non_null(strstr(out, "less than one round, which should take 40m20s (4 runs of about "
	                            "10m05s: the route and 5s to start each; none measured yet)"));
	/* no run started, nothing written a later run trips over */
	assert_null(strstr(out, "campaign night"));
	assert_int_equal(campaigns(), 0);
	struct stat st;
	snprintf(runs, sizeof runs, "%s/data/rxdeck/runs", e.t.path);
	if (stat(runs, &st) == 0) {
		char cmd[PATH_MAX + 64];
		snprintf(cmd, sizeof cmd, "test -z \"$(ls -A '%s')\"", runs);
		assert_int_equal(system(cmd), 0);
	}
	assert_int_equal(processes_mentioning(e.t.path), 0);
	/* --quiet does not hide why (a timer's journal shows it) */
	const char *quiet[] = { "run", e.plan, "--db", e.db, "-q", "--until", until, NULL };
	assert_int_equal(test_rxdeck_run(&e.r, quiet), 5);
	assert_non_null(strstr(output(), "not starting campaign"));

	/* the same campaign name then runs as if nothing had happened */
	const char *later[] = { "run", e.plan, "--db", e.db, "--route", "short.route", "--rounds", "1",
	                        "--no-warmup", "-q", NULL };
	rc = test_rxdeck_run(&e.r, later);
	if (rc != 0 && rc != 3)
		fail_msg("the later run exited %d:\n%s", rc, output());
	assert_int_equal(campaigns(), 1);
}

static void test_deadline__late_scheduled_start_is_refused(void **state)
{
	(void)state;
	char sched[16], until[16], now[16];
	/* the timer's 3 h ago, the deadline 1 h ago: a start on waking */
	time_t set_at;
	char want[128], date[32];
	do {   /* the two forms of one minute: taken again if it turned between them */
		set_at = time(NULL);
		at(-60, false, until, 16);
		at(-60, true, date, sizeof date);
	} while (time(NULL) / 60 != set_at / 60);
	const char *args[] = { "run", e.plan, "--db", e.db, "--scheduled", at(-180, false, sched, 16),
	                       "--until", until, NULL };
	int rc = test_rxdeck_run(&e.r, args);
	if (rc != 5)
		fail_msg("exit %d, not 5:\n%s", rc, output());
	said_passed_an_hour_ago(output(), date, set_at, "");
	assert_int_equal(campaigns(), 0);
	/* on time, the deadline is the night's: what --print-plan shows.  The
	 * HH:MM given and the date it stands for are taken in one minute: a
	 * busy machine once let the minute turn between the command and the
	 * line looked for, so the test looked for the next minute's date */
	do {
		set_at = time(NULL);
		at(-1, false, now, 16);
		at(300, false, until, 16);
		at(300, true, date, sizeof date);
	} while (time(NULL) / 60 != set_at / 60);
	const char *print[] = { "run", e.plan, "--print-plan", "--scheduled", now, "--until", until, NULL };
	assert_int_equal(test_rxdeck_run(&e.r, print), 0);
	snprintf(want, sizeof want, "\nuntil = %s\n", date);
	if (!strstr(output(), want))
		fail_msg("no '%s' in:\n%s", want + 1, output());
	/* --scheduled needs a deadline, and a time of day */
	const char *none[] = { "run", e.plan, "--print-plan", "--scheduled", "01:00", NULL };
	assert_int_equal(test_rxdeck_run(&e.r, none), 2);
	assert_non_null(strstr(output(), "--scheduled needs a deadline: --until or the plan's until"));
	const char *bad[] = { "run", e.plan, "--print-plan", "--scheduled", "1am", "--until", "07:00",
	                      NULL };
	assert_int_equal(test_rxdeck_run(&e.r, bad), 2);
	assert_non_null(strstr(output(), "bad --scheduled '1am': expected a time of day HH:MM"));
}

/* The campaign's id and its frozen plan's path, with its until line
 * replaced by `until = UNTIL` when until is not NULL. */
static int64_t frozen_until(const char *until, char *plan_path, size_t size)
{
	struct db *db;
	assert_int_equal(db_open(e.db, &db), 0);
	struct db_campaign *cs;
	size_t n;
	assert_int_equal(db_campaign_list(db, &cs, &n), 0);
	assert_int_equal(n, 1);
	int64_t id = cs[0].id;
	snprintf(plan_path, size, "%s/data/rxdeck/runs/%s/plan.ini", e.t.path, cs[0].name);
	free(cs);
	db_close(db);
	if (!until)
		return id;
	FILE *f = fopen(plan_path, "r");
	assert_non_null(f);
	char text[16384] = "", line[1024];
	size_t used = 0;
	bool found = false;
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, "until = ", 8) == 0) {
			snprintf(line, sizeof line, "until = %s\n", until);
			found = true;
		}
		used += (size_t)snprintf(text + used, sizeof text - used, "%s", line);
	}
	fclose(f);
	assert_true(found);
	write_text(plan_path, text);
	return id;
}

static size_t runs_with(int64_t id, enum db_run_status s, char **notes)
{
	struct db *db;
	assert_int_equal(db_open(e.db, &db), 0);
	struct db_run *r;
	size_t n, k = 0;
	assert_int_equal(db_run_list(db, id, &r, &n), 0);
	for (size_t i = 0; i < n; i++)
		k += r[i].status == s;
	free(r);
	if (notes) {
		struct db_campaign *c;
		assert_int_equal(db_campaign_get(db, id, &c), 0);
		*notes = strdup(c->notes ? c->notes : "");
		free(c);
	}
	db_close(db);
	return k;
}

/* The start of the campaign's running run; 0 when none runs. */
static int64_t running_since(int64_t id)
{
	struct db *db;
	struct db_open_options o = { .flags = DB_OPEN_READ_ONLY };
	if (db_open_ex(e.db, &o, &db) != 0)
		return 0;
	struct db_run *r;
	size_t n;
	int64_t since = 0;
	if (db_run_list(db, id, &r, &n) == 0) {
		for (size_t i = 0; i < n; i++)
			if (r[i].status == DB_RUN_RUNNING)
				since = r[i].start_unix_ms;
		free(r);
	}
	db_close(db);
	return since;
}

/* Kills rxdeck (pid) once a run of its campaign is running, and waits for
 * its game to go with it. */
static void kill_when_running(pid_t pid)
{
	bool running = false;
	for (int i = 0; i < 600 && !running; i++) {
		test_sleep_ms(100);
		struct db *db;
		struct db_open_options o = { .flags = DB_OPEN_READ_ONLY };
		if (access(e.db, F_OK) != 0 || db_open_ex(e.db, &o, &db) != 0)
			continue;
		struct db_campaign *cs = NULL;
		size_t nc = 0;
		if (db_campaign_list(db, &cs, &nc) == 0 && nc == 1) {
			struct db_run *r;
			size_t n;
			if (db_run_list(db, cs[0].id, &r, &n) == 0) {
				for (size_t i2 = 0; i2 < n; i2++)
					running |= r[i2].status == DB_RUN_RUNNING;
				free(r);
			}
		}
		free(cs);
		db_close(db);
	}
	assert_true(running);
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(test_proc_wait(pid), 128 + SIGKILL);
	assert_int_equal(test_processes_gone(e.t.path, 50), 0);
}

static void test_deadline__rxdeck_resume_refuses_a_deadline_closer_than_a_round(void **state)
{
	(void)state;
	char until[32], plan_path[PATH_MAX + 64], *notes_before, *notes_after;
	/* a campaign with a deadline 5 h away, killed in its first run */
	const char *run[] = { "run", e.plan, "--db", e.db, "-q", "--until", at(300, true, until, 32),
	                      NULL };
	kill_when_running(test_rxdeck_start(&e.r, run));
	int64_t id = frozen_until(NULL, plan_path, sizeof plan_path);
	size_t planned = runs_with(id, DB_RUN_PLANNED, NULL);

	/* the night went by: the frozen deadline is 3 minutes away; a round is
	 * AB and the warm-up run of each still to play, 4 runs of 10 minutes */
	frozen_until(at(3, true, until, sizeof until), plan_path, sizeof plan_path);
	runs_with(id, DB_RUN_RUNNING, &notes_before);
	const char *resume[] = { "resume", "--db", e.db, NULL };
	int rc = test_rxdeck_run(&e.r, resume);
	if (rc != 5)
		fail_msg("exit %d, not 5:\n%s", rc, output());
	char want[256];
	snprintf(want, sizeof want, "rxdeck resume: not resuming campaign 'night-");
	assert_non_null(strstr(output(), want));
	snprintf(want, sizeof want, "the deadline %s is ", until);
	assert_non_null(strstr(output(), want));
	assert_non_null(strstr(output(), "less than one round, which should take 40m20s (4 runs of "
	                                 "about 10m05s: the route and 5s to start each)\n"));
	/* one line, nothing played and nothing written */
	const char *nl = strchr(output(), '\n');
	assert_non_null(nl);
	assert_int_equal(nl[1], '\0');
	int64_t cut_since = running_since(id);
	assert_true(cut_since > 0);
	assert_int_equal(runs_with(id, DB_RUN_PLANNED, &notes_after), planned);
	assert_int_equal(runs_with(id, DB_RUN_RUNNING, NULL), 1);
	assert_true(running_since(id) == cut_since);
	assert_string_equal(notes_after, notes_before);
	free(notes_after);
	assert_int_equal(processes_mentioning(e.t.path), 0);

	/* passed, and --quiet does not hide why */
	time_t set_at = time(NULL);
	frozen_until(at(-60, true, until, sizeof until), plan_path, sizeof plan_path);
	const char *quiet[] = { "resume", "--db", e.db, "-q", NULL };
	assert_int_equal(test_rxdeck_run(&e.r, quiet), 5);
	/* the deadline is a minute (HH:MM) an hour back: it passed 1h00m ago,
	 * or a minute more for each minute that turned before the resume
	 * looked (the clock of a busy machine moves on between the two) */
	said_passed_an_hour_ago(output(), until, set_at, "; one round should take 40m20s");
	assert_int_equal(runs_with(id, DB_RUN_PLANNED, &notes_after), planned);
	assert_string_equal(notes_after, notes_before);
	free(notes_after);
	free(notes_before);

	/* a deadline a round fits before: the resume plays the cut run again */
	frozen_until(at(300, true, until, sizeof until), plan_path, sizeof plan_path);
	const char *again[] = { "resume", "--db", e.db, "-q", NULL };
	pid_t pid = test_rxdeck_start(&e.r, again);
	bool started = false;
	for (int i = 0; i < 600 && !started; i++) {
		test_sleep_ms(100);
		started = running_since(id) > cut_since;
	}
	int st;
	if (waitpid(pid, &st, WNOHANG) != 0)
		fail_msg("rxdeck resume ended:\n%s", output());
	assert_true(started);
	assert_null(strstr(output(), "not resuming"));
	kill_when_running(pid);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_deadline_anchor__late_start_meets_its_nights_deadline, utc),
		cmocka_unit_test_setup(test_deadline_round__order_and_warm_ups_at_route_plus_start, utc),
		cmocka_unit_test_setup_teardown(test_deadline__rxdeck_run_refuses_a_deadline_closer_than_a_round,
		                                make_env, remove_env),
		cmocka_unit_test_setup_teardown(test_deadline__late_scheduled_start_is_refused, make_env,
		                                remove_env),
		cmocka_unit_test_setup_teardown(test_deadline__rxdeck_resume_refuses_a_deadline_closer_than_a_round,
		                                make_env, remove_env),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
