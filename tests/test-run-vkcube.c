/* test-run-vkcube: a campaign on a program no one here wrote: `vkcube`
 * (Debian's vulkan-tools) under Debian's MangoHud, on lavapipe, inside an
 * Xvfb of the test's own, with pad = none and two env arms
 * (LP_NUM_THREADS=1 against 2) in the order ABBA.  Every run must be done
 * with MangoHud's frames stored frame by frame and a window shot of vkcube
 * with a non-zero luma; the table, the run file and the frame-time
 * distribution plot must show both arms.  A busy machine can starve vkcube
 * at its start until MangoHud's log covers too little of the window: such
 * a run is void (`rxdeck run` exits 3) and is accepted, printed with its
 * reason, as long as each arm keeps a done run that shows all of the above.  Skips (77), saying why, without
 * Xvfb, vkcube, MangoHud's layer or a working lavapipe. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <sys/wait.h>

#include "results-db/db.h"
#include "test-run-util.h"
#include "test-rxdeck-proc.h"
#include "test-xvfb.h"

#define VKCUBE "/usr/bin/vkcube"

static char rxdeck[PATH_MAX];
static struct tdir t;
static pid_t xvfb_pid = -1;
static char display_env[48];
static char lavapipe_icd[PATH_MAX]; /* vkcube takes the first device: lavapipe's alone */

static int cleanup(void **state)
{
	(void)state;
	tdir_remove(&t);
	return 0;
}

/* The one file in dir whose name ends in suffix, read; "" when none. */
static char *file_ending(const char *dir, const char *suffix)
{
	DIR *d = opendir(dir);
	char *text = strdup("");
	if (!d)
		return text;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name), k = strlen(suffix);
		if (n > k && strcmp(e->d_name + n - k, suffix) == 0) {
			char p[PATH_MAX * 2];
			snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
			free(text);
			text = test_read_text(p);
		}
	}
	closedir(d);
	return text;
}

static void test_run_vkcube__mangohud_two_arms_abba(void **state)
{
	(void)state;
	tdir_make(&t);
	char plan[PATH_MAX], route[PATH_MAX], out[PATH_MAX], db_path[PATH_MAX + 64];
	char xdg[PATH_MAX + 32], mark[PATH_MAX + 32];
	snprintf(xdg, sizeof xdg, "XDG_DATA_HOME=%s/data", t.path);
	snprintf(mark, sizeof mark, "TEST_RUN_DIR=%s", t.path);
	snprintf(db_path, sizeof db_path, "%s/data/rxdeck/results.db", t.path);
	char *env_add[] = { xdg, mark, display_env, NULL };
	/* short: four runs of 5 s, a shot in the middle of each */
	write_text(tdir_file(&t, "cube.route", route, sizeof route),
	           "route cube\nduration 5s\nwindow 1s 4.5s\n0.5s mark start\n2.5s shot cube\n");
	char text[16384];
	snprintf(text, sizeof text,
	         "[campaign]\n"
	         "name = cube\n"
	         "route = %s\n"
	         "profile = lavapipe\n"
	         "pad = none\n"
	         "frames = mangohud\n"
	         "order = ABBA\n"
	         "rounds = 1\n"
	         "warmup = no\n"
	         "start_timeout = 30s\n"
	         "[build vkcube]\n"
	         "command = " VKCUBE " --width 256 --height 256\n"
	         "[arm A]\n"
	         "label = one thread\n"
	         "env = LP_NUM_THREADS=1\n"
	         "env = VK_ICD_FILENAMES=%s\n"
	         "[arm B]\n"
	         "label = two threads\n"
	         "env = LP_NUM_THREADS=2\n"
	         "env = VK_ICD_FILENAMES=%s\n",
	         route, lavapipe_icd, lavapipe_icd);
	write_text(tdir_file(&t, "cube.ini", plan, sizeof plan), text);
	const char *run_args[] = { rxdeck, "run", plan, NULL };
	struct test_proc how = { .out = tdir_file(&t, "run.out", out, sizeof out), .env = env_add };
	int rc = test_proc_run(run_args, &how), run_rc = rc;
	char *log = test_read_text(out);
	if (rc != 0 && rc != 3) {
		print_message("%s\n", log);   /* whole: fail_msg's message is cut */
		fail_msg("rxdeck run exited %d (its output above)", rc);
	}
	/* the terminal table ends the run; the Markdown report has both arms
	 * and no pad */
	assert_non_null(strstr(log, "real fps"));
	free(log);
	const char *report_args[] = { rxdeck, "report", "--format", "md", NULL };
	how.out = tdir_file(&t, "report.out", out, sizeof out);
	rc = test_proc_run(report_args, &how);
	log = test_read_text(out);
	if (rc != 0)
		fail_msg("rxdeck report exited %d:\n%s", rc, log);
	assert_non_null(strstr(log, "| real fps"));
	assert_non_null(strstr(log, "A: one thread"));
	assert_non_null(strstr(log, "B: two threads"));
	assert_non_null(strstr(log, "no pad"));
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
	free(cs);
	struct db_run *runs;
	size_t n;
	assert_int_equal(db_run_list(db, cid, &runs, &n), 0);
	assert_int_equal(n, 4);
	size_t done_a = 0, done_b = 0, n_void = 0;
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(runs[i].arm_letter, "ABBA"[i]);
		if (runs[i].status == DB_RUN_VOID && runs[i].void_reason &&
		    strncmp(runs[i].void_reason, "log covers ", 11) == 0) {
			print_message("run %zu void (a busy machine): %s\n", i + 1, runs[i].void_reason);
			n_void++;
			continue;
		}
		if (runs[i].status != DB_RUN_DONE)
			fail_msg("run %zu: %s %s", i + 1, db_run_status_name(runs[i].status),
			         runs[i].void_reason ? runs[i].void_reason : "");
		*(runs[i].arm_letter == 'A' ? &done_a : &done_b) += 1;
		/* MangoHud's frames, one row a frame */
		struct db_frame *f;
		size_t nf;
		assert_int_equal(db_frames_read(db, runs[i].id, &f, &nf), 0);
		if (nf < 10)
			fail_msg("run %zu: %zu frames stored", i + 1, nf);
		assert_int_equal(f[0].source, DB_FRAME_MANGOHUD);
		free(f);
		double fps;
		assert_int_equal(db_metric_get(db, runs[i].id, "real_fps", &fps), 0);
		assert_true(fps > 1);
		if (!runs[i].config || !strstr(runs[i].config, "mangohud: MangoHud v"))
			fail_msg("run %zu: config '%s'", i + 1, runs[i].config ? runs[i].config : "(none)");
		/* the window shot of vkcube: its cube is not black */
		struct db_shot *shots;
		size_t ns;
		assert_int_equal(db_shots_read(db, runs[i].id, &shots, &ns), 0);
		if (ns != 1)
			fail_msg("run %zu: %zu shots", i + 1, ns);
		assert_string_equal(shots[0].name, "cube");
		if (!(shots[0].luma > 0))
			fail_msg("run %zu: shot luma %.2f", i + 1, shots[0].luma);
		assert_non_null(shots[0].checksum);
		assert_int_equal(strlen(shots[0].checksum), 16);
		free(shots);
	}
	free(runs);
	db_close(db);
	/* exit 3 exactly when a run is void; each arm keeps a done run */
	assert_int_equal(run_rc == 3, n_void > 0);
	if (!done_a || !done_b)
		fail_msg("%zu done runs of A, %zu of B: an arm has none to show", done_a, done_b);

	/* the run file and the distribution (percentile) plot, both arms */
	char docs[PATH_MAX], plots[PATH_MAX];
	tdir_file(&t, "tested", docs, sizeof docs);
	tdir_file(&t, "plots", plots, sizeof plots);
	const char *tested_args[] = { rxdeck, "tested", name, "--out", docs, NULL };
	assert_int_equal(test_proc_run(tested_args, &how), 0);
	log = file_ending(docs, ".md");
	assert_non_null(strstr(log, "one thread"));
	assert_non_null(strstr(log, "two threads"));
	assert_non_null(strstr(log, "vkcube"));
	free(log);
	const char *plot_args[] = { rxdeck, "plot", name, "--out", plots, NULL };
	assert_int_equal(test_proc_run(plot_args, &how), 0);
	log = file_ending(plots, "-distribution.svg");
	assert_non_null(strstr(log, "one thread"));
	assert_non_null(strstr(log, "two threads"));
	free(log);
	assert_int_equal(processes_mentioning(t.path), 0);
}

/* vkcube for three frames: its wait status, and what it said. */
static int probe_vkcube(char **said)
{
	char probe[] = "/tmp/rxdeck-vkcube-probe-XXXXXX";
	int fd = mkstemp(probe);
	if (fd < 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fd, 1);
		dup2(fd, 2);
		putenv(display_env);
		setenv("VK_ICD_FILENAMES", lavapipe_icd, 1);
		execl(VKCUBE, VKCUBE, "--c", "3", (char *)NULL);
		_exit(127);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	close(fd);
	*said = test_read_text(probe);
	unlink(probe);
	return st;
}

int main(void)
{
	build_path("harness/rxdeck", rxdeck, sizeof rxdeck);
	const char *need[][2] = {
		{ TEST_XVFB, "no X server binary (Debian's xvfb)" },
		{ VKCUBE, "no vkcube (Debian's vulkan-tools)" },
		{ "/usr/bin/mangohud", "no MangoHud (Debian's mangohud)" },
	};
	for (size_t i = 0; i < 3; i++) {
		if (access(need[i][0], X_OK) != 0) {
			printf("skip: %s: %s\n", need[i][1], need[i][0]);
			return 77;
		}
	}
	DIR *d = opendir("/usr/share/vulkan/icd.d");
	for (struct dirent *e; d && (e = readdir(d));)
		if (strncmp(e->d_name, "lvp_icd.", 8) == 0)
			snprintf(lavapipe_icd, sizeof lavapipe_icd, "/usr/share/vulkan/icd.d/%s", e->d_name);
	if (d)
		closedir(d);
	if (!lavapipe_icd[0]) {
		printf("skip: no lavapipe (Debian's mesa-vulkan-drivers): /usr/share/vulkan/icd.d/lvp_icd.*.json\n");
		return 77;
	}
	/* one vkcube that renders on lavapipe in our Xvfb, or skip: no Vulkan
	 * or no X here */
	char display[24], *said = NULL;
	if ((xvfb_pid = test_xvfb_start("640x480x24", display, sizeof display)) < 0) {
		printf("skip: Xvfb did not start\n");
		return 77;
	}
	snprintf(display_env, sizeof display_env, "DISPLAY=%s", display);
	int st = probe_vkcube(&said);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		printf("skip: vkcube cannot render here (status %d): %.300s\n",
		       WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), said ? said : "");
		free(said);
		test_xvfb_stop(xvfb_pid);
		return 77;
	}
	free(said);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_run_vkcube__mangohud_two_arms_abba, cleanup),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	test_xvfb_stop(xvfb_pid);
	return rc;
}
