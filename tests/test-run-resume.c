/* test-run-resume: `rxdeck run` killed with SIGKILL in the middle of a
 * campaign (the stand-in game as the game), then `rxdeck resume`: the game
 * and the route player of the killed harness are gone, the campaign
 * completes, every run finished before the kill keeps its row as it was
 * (never played again), and no run is lost or there twice. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/wait.h>
#include <time.h>

#include "results-db/db.h"
#include "test-run-util.h"
#include "test-rxdeck-proc.h"

struct env {
	struct tdir t;
	struct test_rxdeck r;
	char db[PATH_MAX];
	char plan[PATH_MAX];
};

static size_t count_status(const char *path, enum db_run_status s)
{
	struct db *db;
	struct db_open_options o = { .flags = DB_OPEN_READ_ONLY };
	if (db_open_ex(path, &o, &db) != 0)
		return 0;
	struct db_campaign *cs = NULL;
	size_t nc = 0, count = 0;
	if (db_campaign_list(db, &cs, &nc) == 0 && nc == 1) {
		struct db_run *r;
		size_t n;
		if (db_run_list(db, cs[0].id, &r, &n) == 0) {
			for (size_t i = 0; i < n; i++)
				count += r[i].status == s;
			free(r);
		}
	}
	free(cs); /* an empty list is an allocation too (db.h) */
	db_close(db);
	return count;
}

static struct env e;

static int remove_tdir(void **state)
{
	(void)state;
	tdir_remove(&e.t);
	return 0;
}

static void test_run_resume__after_sigkill(void **state)
{
	(void)state;
	tdir_make(&e.t);
	char game[PATH_MAX], p[PATH_MAX], out1[PATH_MAX], out2[PATH_MAX];
	build_path("harness/run/game-double", game, sizeof game);
	tdir_file(&e.t, "results.db", e.db, sizeof e.db);
	tdir_file(&e.t, "plan.ini", e.plan, sizeof e.plan);
	tdir_file(&e.t, "resume.out", out2, sizeof out2);
	test_rxdeck_init(&e.r, e.t.path, tdir_file(&e.t, "run.out", out1, sizeof out1));
	write_text(tdir_file(&e.t, "t.route", p, sizeof p),
	           "route t\nduration 2s\nwindow 0.5s 2s\n0s press A 100ms\n1s shot one\n");
	char text[8192];
	snprintf(text, sizeof text,
	         "[campaign]\nname = resume\nroute = t.route\nprofile = lavapipe\norder = ABBA\n"
	         "rounds = 2\nwarmup = yes\npad = socket\n"
	         "[build double]\nbinary = %s\npad_option = --pad\n"
	         "[arm A]\n[arm B]\nenv = RX_VK_READBACK_EARLY=1\n", game);
	write_text(e.plan, text);

	const char *run_args[] = { "run", e.plan, "--db", e.db, NULL };
	pid_t pid = test_rxdeck_start(&e.r, run_args);
	/* kill it in the middle of the fourth run */
	size_t done = 0;
	for (int i = 0; i < 600 && done < 3; i++) {
		test_sleep_ms(100);
		done = count_status(e.db, DB_RUN_DONE);
	}
	assert_int_equal(done, 3);
	test_sleep_ms(700);
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(test_proc_wait(pid), 128 + SIGKILL);
	/* its game and route player go with it */
	assert_int_equal(test_processes_gone(e.t.path, 50), 0);

	/* what was finished before the kill */
	struct db *db;
	assert_int_equal(db_open(e.db, &db), 0);
	struct db_campaign *cs;
	size_t nc;
	assert_int_equal(db_campaign_list(db, &cs, &nc), 0);
	assert_int_equal(nc, 1);
	int64_t cid = cs[0].id;
	assert_int_equal(cs[0].status, DB_CAMPAIGN_OPEN);
	free(cs);
	struct db_run *before;
	size_t nb;
	assert_int_equal(db_run_list(db, cid, &before, &nb), 0);
	assert_int_equal(nb, 9);
	size_t finished = 0, running = 0;
	for (size_t i = 0; i < nb; i++) {
		finished += before[i].status == DB_RUN_DONE;
		running += before[i].status == DB_RUN_RUNNING;
	}
	assert_true(finished >= 3);
	assert_int_equal(running, 1); /* the one that was cut */
	db_close(db);

	const char *resume_args[] = { "resume", "--db", e.db, NULL };
	e.r.how.out = out2;
	int rc = test_rxdeck_run(&e.r, resume_args);
	if (rc != 0) {
		char *log = test_read_text(out2);
		fprintf(stderr, "%s", log);
		free(log);
		fail_msg("rxdeck resume exited %d", rc);
	}

	assert_int_equal(db_open(e.db, &db), 0);
	struct db_run *after;
	size_t na;
	assert_int_equal(db_run_list(db, cid, &after, &na), 0);
	assert_int_equal(na, 9); /* nothing lost, nothing twice */
	for (size_t i = 0; i < na; i++) {
		assert_int_equal(after[i].position, (int)i + 1);
		assert_int_equal(after[i].status, DB_RUN_DONE);
		assert_int_equal(after[i].id, before[i].id);
		if (before[i].status == DB_RUN_DONE) {
			/* finished before the kill: not played again */
			assert_int_equal(after[i].start_unix_ms, before[i].start_unix_ms);
			assert_int_equal(after[i].end_unix_ms, before[i].end_unix_ms);
			assert_string_equal(after[i].run_dir, before[i].run_dir);
		}
		if (before[i].status == DB_RUN_RUNNING) {
			/* the cut run was played again, its old folder kept aside */
			assert_true(after[i].start_unix_ms > before[i].start_unix_ms);
			char aside[PATH_MAX + 16];
			snprintf(aside, sizeof aside, "%s.cut-1", after[i].run_dir);
			struct stat st;
			assert_int_equal(stat(aside, &st), 0);
		}
		double v;
		assert_int_equal(db_metric_get(db, after[i].id, "real_fps", &v), 0);
	}
	/* the order held: warm-up, then ABBA and its counterbalanced BAAB */
	const char *order = "AABBABAAB";
	for (size_t i = 0; i < na; i++)
		assert_int_equal(after[i].arm_letter, order[i]);
	struct db_campaign *c;
	assert_int_equal(db_campaign_get(db, cid, &c), 0);
	assert_int_equal(c->status, DB_CAMPAIGN_DONE);
	free(c);
	free(before);
	free(after);
	db_close(db);
	assert_int_equal(processes_mentioning(e.t.path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_run_resume__after_sigkill, remove_tdir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
