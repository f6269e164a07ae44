/* test-run-e2e: `rxdeck run` end to end on lavapipe: the demo game,
 * routes/smoke.route, arms A (no switch) and C (RX_VK_READBACK_EARLY=1),
 * two rounds of ACCA after a warm-up.  The database (under a temporary
 * XDG_DATA_HOME) must hold the nine runs in that order with their metrics,
 * each run's renderer must say its arm's switch and (C) have split parts
 * after writers or (A) none, the table must be printed, and `rxdeck list`,
 * `show` and `import` must work on the result.  Whether C waits less is a
 * timing outcome (under load both arms' waits overlap): printed, measured
 * by campaigns (docs/testing.md), not asserted.
 * Skips (77) where the demo game was not built or no Vulkan device works. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <sys/wait.h>

#include "results-db/db.h"
#include "test-run-util.h"
#include "test-rxdeck-proc.h"
#include "test-rxvk-totals.h"

static char forest[PATH_MAX];

static struct tdir t;

static int remove_tdir(void **state)
{
	(void)state;
	tdir_remove(&t);
	return 0;
}

/* A run's renderer.log: its switches line (renderer/src/settings.c) must
 * say RX_VK_READBACK_EARLY as the arm asked, and its totals line is read
 * into tot. */
static void read_totals(const char *run_dir, int early, struct rxvk_totals *tot)
{
	char path[PATH_MAX + 32];
	snprintf(path, sizeof path, "%s/renderer.log", run_dir);
	char *log = test_read_text(path);
	const char *sw = strstr(log, "vk: switches: ");
	if (!sw)
		fail_msg("%s: no 'vk: switches:' line", path);
	const char *want = early ? "RX_VK_READBACK_EARLY=1 (env)" : "RX_VK_READBACK_EARLY=0 (default)";
	const char *eol = strchr(sw, '\n');
	const char *at = strstr(sw, want);
	if (!at || (eol && at > eol))
		fail_msg("%s: the switches line lacks '%s'", path, want);
	if (rxvk_totals_read(log, tot) != 0)
		fail_msg("%s: no readable 'vk: totals:' line (did the game end normally?)", path);
	free(log);
}

static void test_run_e2e__forest_two_arms_two_rounds(void **state)
{
	(void)state;
	tdir_make(&t);
	char plan[PATH_MAX], out[PATH_MAX], db_path[PATH_MAX + 64];
	static struct test_rxdeck rx;
	test_rxdeck_init(&rx, t.path, tdir_file(&t, "run.out", out, sizeof out));
	snprintf(db_path, sizeof db_path, "%s/data/rxdeck/results.db", t.path);
	char text[8192];
	/* a scene small enough for two cores, large enough for the waits */
	snprintf(text, sizeof text,
	         "[campaign]\n"
	         "name = e2e\n"
	         "route = routes/smoke.route\n"
	         "profile = lavapipe\n"
	         "order = ACCA\n"
	         "rounds = 2\n"
	         "warmup = yes\n"
	         "watchdog = 10s\n"
	         "[build forest]\n"
	         "command = %s --size 640x360\n"
	         "[arm A]\n"
	         "label = no switch\n"
	         "[arm C]\n"
	         "label = early readback\n"
	         "env = RX_VK_READBACK_EARLY=1\n",
	         forest);
	write_text(tdir_file(&t, "e2e.ini", plan, sizeof plan), text);
	const char *run_args[] = { "run", plan, NULL };
	int rc = test_rxdeck_run(&rx, run_args);
	char *log = test_read_text(out);
	if (rc != 0)
		fail_msg("rxdeck run exited %d:\n%s", rc, log);
	assert_non_null(strstr(log, "real fps"));            /* the terminal table */
	assert_non_null(strstr(log, "early readback"));
	free(log);

	struct db *db;
	assert_int_equal(db_open(db_path, &db), 0);
	struct db_campaign *cs;
	size_t nc;
	assert_int_equal(db_campaign_list(db, &cs, &nc), 0);
	assert_int_equal(nc, 1);
	int64_t cid = cs[0].id;
	char name[128];
	snprintf(name, sizeof name, "%s", cs[0].name);
	assert_int_equal(cs[0].status, DB_CAMPAIGN_DONE);
	assert_non_null(strstr(cs[0].gpu, "llvmpipe"));
	free(cs);
	struct db_run *runs;
	size_t n;
	assert_int_equal(db_run_list(db, cid, &runs, &n), 0);
	assert_int_equal(n, 9);
	/* the warm-up (first), round 1 as written, round 2 counterbalanced */
	const char *order = "AACCACAAC";
	double sum[2] = { 0, 0 };
	int count[2] = { 0, 0 };
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(runs[i].position, (int)i + 1);
		assert_int_equal(runs[i].arm_letter, order[i]);
		assert_int_equal(runs[i].is_warmup, i == 0);
		assert_int_equal(runs[i].round, i == 0 ? 0 : (int)(i - 1) / 4 + 1);
		if (runs[i].status != DB_RUN_DONE)
			fail_msg("run %zu: %s %s", i + 1, db_run_status_name(runs[i].status),
			         runs[i].void_reason ? runs[i].void_reason : "");
		/* the renderer's 3000-read summaries may not come in a 12 s route:
		 * the frame log's readback wait is the one every run has */
		const char *names[] = { "real_fps", "p50_ms", "p95_ms", "p99_ms", "rb_wait_ms", "draws",
			                "swap_in" };
		for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
			double v;
			if (db_metric_get(db, runs[i].id, names[k], &v) != 0 || !isfinite(v))
				fail_msg("run %zu has no %s", i + 1, names[k]);
		}
		struct db_shot *shots;
		size_t ns;
		assert_int_equal(db_shots_read(db, runs[i].id, &shots, &ns), 0);
		if (ns != 3) { /* walk, pan, end: what the harness said of them, and the stored */
			char *said = test_read_text(out), got[256] = "", lines[4096] = "", p[PATH_MAX];
			for (size_t k = 0; k < ns; k++)
				snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", k ? ", " : "",
				         shots[k].name);
			/* the game's own lines on shots and its stop */
			snprintf(p, sizeof p, "%s/renderer.log", runs[i].run_dir ? runs[i].run_dir : ".");
			char *glog = test_read_text(p);
			for (char *l = glog ? strtok(glog, "\n") : NULL; l; l = strtok(NULL, "\n"))
				if (strstr(l, "shot") || strstr(l, "SIGTERM") || strstr(l, "stopped"))
					snprintf(lines + strlen(lines), sizeof lines - strlen(lines), "%s\n", l);
			fail_msg("run %zu (%c) stored %zu shots (%s), not 3 (walk, pan, end); the game "
			         "said:\n%srxdeck said:\n%s", i + 1, runs[i].arm_letter, ns, got, lines,
			         said ? said : "(nothing)");
		}
		free(shots);
		double rb, fps;
		assert_int_equal(db_metric_get(db, runs[i].id, "rb_wait_ms", &rb), 0);
		assert_int_equal(db_metric_get(db, runs[i].id, "real_fps", &fps), 0);
		/* the arm's switch reached the game, and the renderer did what it
		 * says: its own counts, not how long anything took */
		struct rxvk_totals tot;
		read_totals(runs[i].run_dir, runs[i].arm_letter == 'C', &tot);
		if (runs[i].arm_letter == 'C' ? tot.split == 0 : tot.split + tot.at_part != 0)
			fail_msg("run %zu (%c): %llu parts ended after a writer, %llu reads released at "
			         "the writer's part, with RX_VK_READBACK_EARLY %s",
			         i + 1, runs[i].arm_letter, tot.split, tot.at_part,
			         runs[i].arm_letter == 'C' ? "on" : "off");
		/* the waits, in the log of a passing run too: a timing outcome
		 * (under load both arms run at 1-3 fps and their waits overlap),
		 * measured by campaigns, never asserted here */
		print_message("run %zu (%c): %.1f real fps, readback wait %.3f ms a frame; %llu parts "
		              "ended after a writer, %llu reads released at the writer's part\n",
		              i + 1, runs[i].arm_letter, fps, rb, tot.split, tot.at_part);
		if (i == 0)
			continue;
		int a = runs[i].arm_letter == 'C';
		sum[a] += rb;
		count[a]++;
	}
	assert_int_equal(count[0], 4);
	assert_int_equal(count[1], 4);
	print_message("readback wait a frame: A %.3f ms, C %.3f ms (means of 4 runs)\n", sum[0] / 4,
	              sum[1] / 4);
	char frames[PATH_MAX + 32], rlog[PATH_MAX + 32];
	snprintf(frames, sizeof frames, "%s/frames.csv", runs[1].run_dir);
	snprintf(rlog, sizeof rlog, "%s/renderer.log", runs[1].run_dir);
	double fps2, t0_2;
	assert_int_equal(db_metric_get(db, runs[1].id, "real_fps", &fps2), 0);
	assert_int_equal(db_metric_get(db, runs[1].id, "route_t0_ns", &t0_2), 0);
	char t0_arg[32];
	snprintf(t0_arg, sizeof t0_arg, "%.0f", t0_2);
	free(runs);
	db_close(db);

	/* list, show, and import of a run's files as a new arm */
	const char *list_args[] = { "list", NULL };
	assert_int_equal(test_rxdeck_run(&rx, list_args), 0);
	log = test_read_text(out);
	assert_non_null(strstr(log, name));
	free(log);
	char run2[160];
	snprintf(run2, sizeof run2, "%s/2", name);
	const char *show_args[] = { "show", run2, NULL };
	assert_int_equal(test_rxdeck_run(&rx, show_args), 0);
	log = test_read_text(out);
	assert_non_null(strstr(log, "real_fps"));
	free(log);
	const char *import_args[] = { "import", name, "E", frames, "--log", rlog,
		                      "--label", "imported", "--t0", "0", NULL };
	/* --t0 0 puts the window decades away: refused, nothing written */
	assert_int_equal(test_rxdeck_run(&rx, import_args), 1);
	log = test_read_text(out);
	assert_non_null(strstr(log, "nothing imported"));
	free(log);
	import_args[8] = NULL; /* t0: the log's first frame */
	assert_int_equal(test_rxdeck_run(&rx, import_args), 0);
	/* arm E exists now: the same --label again is fine, another is not */
	import_args[7] = "another";
	assert_int_equal(test_rxdeck_run(&rx, import_args), 2);
	import_args[7] = "imported";
	assert_int_equal(test_rxdeck_run(&rx, import_args), 0);
	/* with the run's own t0 (its route's start on the logs' clock) the
	 * window is the run's: the same frames give the same figure.  (The
	 * log's first frame is a little earlier than the route's start, which
	 * waits to see it: at 1 fps under load a frame more or less in the
	 * window moved the figure by 25 %, so that one is not compared.) */
	const char *import_again[] = { "import", name, "E", frames, "--log", rlog, "--t0", t0_arg, NULL };
	assert_int_equal(test_rxdeck_run(&rx, import_again), 0);
	assert_int_equal(db_open(db_path, &db), 0);
	assert_int_equal(db_run_list(db, cid, &runs, &n), 0);
	assert_int_equal(n, 12);
	for (size_t i = 9; i < 12; i++) {
		assert_int_equal(runs[i].arm_letter, 'E');
		print_message("import %zu: %s %s\n", i - 8, db_run_status_name(runs[i].status),
		              runs[i].void_reason ? runs[i].void_reason : "");
	}
	assert_int_equal(runs[11].status, DB_RUN_DONE);
	assert_int_equal(runs[11].round, 3); /* after the arm's last */
	double fps;
	assert_int_equal(db_metric_get(db, runs[11].id, "real_fps", &fps), 0);
	if (!(fabs(fps - fps2) <= fps2 * 1e-9))
		fail_msg("run 2's frames imported with its t0 (%s ns): %.6f real fps, stored %.6f",
		         t0_arg, fps, fps2);
	free(runs);
	db_close(db);
	int left = processes_mentioning(t.path);
	if (left != 0)
		fail_msg("%d processes of the test's campaign are still running after rxdeck ended", left);
}

int main(void)
{
	build_path("renderer/forest/rxdeck-forest", forest, sizeof forest);
	if (access(forest, X_OK) != 0) {
		printf("skip: the demo game was not built (%s)\n", forest);
		return 77;
	}
	/* one frame on lavapipe, or skip: no Vulkan here */
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		dup2(fd, 1);
		dup2(fd, 2);
		setenv("RX_VK_DEVICE", "llvmpipe", 1);
		unsetenv("RX_VK_VALIDATION");
		execl(forest, forest, "--frames", "1", "--pad", "none", "--size", "64x64", (char *)NULL);
		_exit(127);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		printf("skip: the demo game cannot render on lavapipe here (status %d)\n",
		       WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
		return 77;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_run_e2e__forest_two_arms_two_rounds, remove_tdir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
