/* test-run-campaign: whole campaigns with the stand-in game: a game that
 * hangs and one that crashes are marked void with the right reason and the
 * campaign completes; the campaign's rows, folder and frozen plan are what
 * the plan said; a plan whose program or route is missing leaves nothing
 * behind; a campaign run again is refused; a campaign is held by one
 * harness at a time; a resume refuses a changed route or build unless the
 * changes are accepted, and records them; a disk that fills under the game
 * voids its run "disk full" and stops the campaign, and a resume on a full
 * disk plays nothing; a campaign with max_rounds adds rounds after its
 * planned ones, stops once its decision callback says decided, and
 * otherwise runs to max_rounds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sched.h>
#include <sys/mount.h>

#include "run/run.h"
#include "test-run-util.h"
#include "test-run-play.h"

struct env {
	struct tdir t;
	char data[PATH_MAX];
	char *environ_[4];
	char path_env[PATH_MAX + 8];
	char mark_env[PATH_MAX + 16];
	struct db *db;
};

static char *saved_tmpdir;

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof *e);
	tdir_make(&e->t);
	/* the pad's socket goes into the test's folder */
	saved_tmpdir = getenv("TMPDIR") ? strdup(getenv("TMPDIR")) : NULL;
	setenv("TMPDIR", e->t.path, 1);
	unsetenv("XDG_RUNTIME_DIR");
	tdir_file(&e->t, "data", e->data, sizeof e->data);
	snprintf(e->path_env, sizeof e->path_env, "PATH=%s", getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	snprintf(e->mark_env, sizeof e->mark_env, "TEST_RUN_DIR=%s", e->t.path);
	e->environ_[0] = e->path_env;
	e->environ_[1] = e->mark_env;
	e->environ_[2] = "RX_VK_VALIDATION=1"; /* the harness's own: never passed on */
	char p[PATH_MAX];
	write_text(tdir_file(&e->t, "t.route", p, sizeof p),
	           "route t\nduration 3s\nwindow 0.5s 3s\n0s press A 100ms\n1s shot one\n2s shot two\n");
	write_text(tdir_file(&e->t, "p.env", p, sizeof p), "RX_VK_LOG_READBACK_WAITS=1\n");
	assert_int_equal(db_open(tdir_file(&e->t, "results.db", p, sizeof p), &e->db), 0);
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;
	db_close(e->db);
	if (saved_tmpdir)
		setenv("TMPDIR", saved_tmpdir, 1);
	else
		unsetenv("TMPDIR");
	free(saved_tmpdir);
	saved_tmpdir = NULL;
	int left = processes_mentioning(e->t.path);
	tdir_remove(&e->t);
	free(e);
	assert_int_equal(left, 0);
	return 0;
}

static struct plan *make_plan(struct env *e, const char *campaign, const char *arms)
{
	char game[PATH_MAX], text[8192];
	build_path("harness/run/game-double", game, sizeof game);
	snprintf(text, sizeof text,
	         "[campaign]\n"
	         "name = doubles\n"
	         "route = t.route\n"
	         "profile = p.env\n"
	         "rounds = 1\n"
	         "warmup = no\n"
	         /* the watchdog and start_timeout are the plan's (10 s, 120 s),
	          * never waited on by a game that is not hung: the hang case
	          * asks for its own 2 s */
	         /* a clean exit is asserted: 10 s for the sanitizers' exit on a busy machine */
	         "stop_timeout = 10s\n"
	         "pad = socket\n"
	         "%s"
	         "[build double]\n"
	         "binary = %s\n"
	         "pad_option = --pad\n"
	         "%s",
	         campaign, game, arms);
	return test_plan_parse(&e->t, text);
}

/* The options the campaigns here run with: quiet, into e's data folder,
 * with e's environment; named name (NULL: the plan's name and the date). */
static struct run_options options(struct env *e, const char *name)
{
	return (struct run_options){ .data_dir = e->data, .quiet = true, .environ = e->environ_,
	                             .name = name };
}

/* A campaign of the plan make_plan() writes, with options(e, NULL),
 * played: the campaign, and its outcome in out. */
static struct run_campaign *create_and_play(struct env *e, const char *campaign, const char *arms,
                                            struct run_outcome *out)
{
	struct plan *plan = make_plan(e, campaign, arms);
	struct run_options o = options(e, NULL);
	struct run_campaign *c = test_campaign_create(e->db, plan, &o);
	plan_free(plan);
	*out = test_campaign_play(c);
	return c;
}

static void test_run_campaign__hang_and_crash_are_void_and_it_completes(void **state)
{
	struct env *e = *state;
	struct run_outcome out;
	struct run_campaign *c = create_and_play(e, "order = ABC\nwatchdog = 2s\n",
	                                         "[arm A]\nlabel = fine\nenv = RX_VK_READBACK_EARLY=1\n"
	                                         "[arm B]\nlabel = hangs\nargs = --hang-after 0.5\n"
	                                         "[arm C]\nlabel = crashes\nargs = --crash-after 1\n",
	                                         &out);
	assert_true(out.complete);
	assert_false(out.interrupted);
	assert_int_equal(out.runs_done, 3);
	assert_int_equal(out.runs_void, 2);

	struct db_run *runs;
	size_t n;
	assert_int_equal(db_run_list(e->db, run_campaign_id(c), &runs, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(runs[0].arm_letter, 'A');
	assert_int_equal(runs[0].status, DB_RUN_DONE);
	assert_int_equal(runs[0].exit_status, 0);
	assert_int_equal(runs[1].arm_letter, 'B');
	assert_int_equal(runs[1].status, DB_RUN_VOID);
	if (strncmp(runs[1].void_reason, "hung: no new frame for 2 s", 26) != 0)
		fail_msg("B: %s", runs[1].void_reason);
	assert_int_equal(runs[2].arm_letter, 'C');
	assert_int_equal(runs[2].status, DB_RUN_VOID);
	if (!strstr(runs[2].void_reason, "crashed: killed by signal 6"))
		fail_msg("C: %s", runs[2].void_reason);
	assert_int_equal(runs[2].exit_status, 134);
	/* the fine run has its metrics, shots and the arm's env in its log */
	double v;
	assert_int_equal(db_metric_get(e->db, runs[0].id, "real_fps", &v), 0);
	assert_true(v > 30);
	assert_int_equal(db_metric_get(e->db, runs[0].id, "rb_wait_ms", &v), 0);
	assert_true(v == 1.0);
	struct db_shot *shots;
	size_t ns;
	assert_int_equal(db_shots_read(e->db, runs[0].id, &shots, &ns), 0);
	assert_int_equal(ns, 2);
	free(shots);
	assert_non_null(strstr(runs[0].run_dir, "/runs/"));
	assert_non_null(strstr(runs[0].config, "RX_VK_READBACK_EARLY=1"));
	/* the hung run keeps what it had: frames until it hung */
	struct db_frame *frames;
	size_t nf;
	assert_int_equal(db_frames_read(e->db, runs[1].id, &frames, &nf), 0);
	assert_true(nf > 10);
	free(frames);
	free(runs);

	struct db_campaign *dc;
	assert_int_equal(db_campaign_get(e->db, run_campaign_id(c), &dc), 0);
	assert_int_equal(dc->status, DB_CAMPAIGN_DONE);
	assert_string_equal(dc->gpu, "Double GPU");
	assert_string_equal(dc->driver, "double 1.0");
	assert_string_equal(dc->order, "ABC");
	assert_non_null(strstr(dc->route_text, "route t\n"));
	assert_true(dc->window_start_s == 0.5 && dc->window_end_s == 3.0);
	free(dc);
	struct db_build *b;
	size_t nb;
	assert_int_equal(db_build_list(e->db, run_campaign_id(c), &b, &nb), 0);
	assert_int_equal(nb, 1);
	assert_int_equal(strlen(b[0].sha256), 64);
	free(b);
	struct db_arm *arms;
	size_t na;
	assert_int_equal(db_arm_list(e->db, run_campaign_id(c), &arms, &na), 0);
	assert_int_equal(na, 3);
	assert_string_equal(arms[0].env, "RX_VK_READBACK_EARLY=1");
	assert_string_equal(arms[1].label, "hangs");
	free(arms);

	/* the frozen plan: absolute paths, the profile's env inside */
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/plan.ini", run_campaign_dir(c));
	struct plan *frozen;
	struct util_diag pe;
	assert_int_equal(plan_load(p, NULL, &frozen, &pe), 0);
	assert_true(frozen->route[0] == '/');
	assert_true(frozen->has_profile_env);
	assert_string_equal(plan_strv_getenv(&frozen->profile_env, "RX_VK_LOG_READBACK_WAITS"), "1");
	assert_true(frozen->has_inherited);
	plan_free(frozen);
	run_campaign_destroy(c);
}

static void test_run_campaign__bad_plan_leaves_nothing(void **state)
{
	struct env *e = *state;
	struct plan *plan = make_plan(e, "", "[arm A]\n");
	free(plan->builds[0].argv.v[0]);
	plan->builds[0].argv.v[0] = strdup("./no-such-game");
	struct run_options o = options(e, NULL);
	struct run_campaign *c = NULL;
	char msg[1024] = "";
	assert_int_equal(run_campaign_create(e->db, plan, &o, &c, msg, sizeof msg), -ENOENT);
	assert_non_null(strstr(msg, "build 'double': cannot run program"));
	assert_null(c);
	free(plan->route);
	plan->route = strdup("no-such.route");
	assert_int_equal(run_campaign_create(e->db, plan, &o, &c, msg, sizeof msg), -ENOENT);
	assert_non_null(strstr(msg, "cannot find route 'no-such.route'"));
	plan_free(plan);
	struct db_campaign *list;
	size_t n;
	assert_int_equal(db_campaign_list(e->db, &list, &n), 0);
	assert_int_equal(n, 0);
	free(list);
	/* no campaign folder either */
	char runs[PATH_MAX + 16];
	snprintf(runs, sizeof runs, "%s/runs", e->data);
	DIR *d = opendir(runs);
	if (d) {
		struct dirent *de;
		while ((de = readdir(d)))
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
				fail_msg("left behind: %s", de->d_name);
		closedir(d);
	}
}

static void test_run_campaign__until_in_the_past_is_refused(void **state)
{
	struct env *e = *state;
	struct plan *plan = make_plan(e, "", "[arm A]\n");
	plan->rounds = 0;
	plan->until = strdup("2020-01-01 07:00");
	struct run_options o = options(e, NULL);
	struct run_campaign *c = NULL;
	char msg[1024] = "";
	assert_int_equal(run_campaign_create(e->db, plan, &o, &c, msg, sizeof msg), -EINVAL);
	assert_null(c);
	if (!strstr(msg, "until '2020-01-01 07:00' is in the past (it is "))
		fail_msg("%s", msg);
	/* nothing planned, nothing played */
	struct db_campaign *list;
	size_t n;
	assert_int_equal(db_campaign_list(e->db, &list, &n), 0);
	assert_int_equal(n, 0);
	free(list);
	/* a time of day is the next time the clock shows it: never past */
	free(plan->until);
	plan->until = strdup("00:00");
	run_campaign_destroy(test_campaign_create(e->db, plan, &o));
	plan_free(plan);
}

static void test_run_campaign__names_and_resume_refusal(void **state)
{
	struct env *e = *state;
	struct plan *plan = make_plan(e, "", "[arm A]\n");
	plan->warmup = PLAN_WARMUP_NO;
	struct run_options o = options(e, "fixed");
	struct run_campaign *c = test_campaign_create(e->db, plan, &o);
	assert_string_equal(run_campaign_name(c), "fixed");
	assert_true(test_campaign_play(c).complete);
	char msg[1024] = "";
	run_campaign_destroy(c);
	/* the same name again is refused; a finished campaign has nothing to resume */
	assert_int_equal(run_campaign_create(e->db, plan, &o, &c, msg, sizeof msg), -EEXIST);
	assert_non_null(strstr(msg, "campaign 'fixed' already exists"));
	assert_int_equal(run_campaign_open(e->db, "fixed", &o, &c, msg, sizeof msg), -EALREADY);
	assert_int_equal(run_campaign_open(e->db, "nothing", &o, &c, msg, sizeof msg), -ENOENT);
	assert_int_equal(run_campaign_open(e->db, NULL, &o, &c, msg, sizeof msg), -ENOENT);
	/* without a name: the plan's name and the date */
	o.name = NULL;
	c = test_campaign_create(e->db, plan, &o);
	assert_memory_equal(run_campaign_name(c), "doubles-", 8);
	run_campaign_destroy(c);
	plan_free(plan);
}

static void test_run_campaign__one_harness_at_a_time(void **state)
{
	struct env *e = *state;
	struct plan *plan = make_plan(e, "", "[arm A]\n");
	struct run_options o = options(e, "held");
	struct run_campaign *c = test_campaign_create(e->db, plan, &o), *c2 = NULL;
	char msg[1024] = "";
	plan_free(plan);
	/* the creator holds it: a resume meanwhile is refused, naming the holder */
	char want[128];
	snprintf(want, sizeof want, "campaign 'held' is held by the harness with pid %d", (int)getpid());
	assert_int_equal(run_campaign_open(e->db, "held", &o, &c2, msg, sizeof msg), -EBUSY);
	if (!strstr(msg, want))
		fail_msg("'%s' does not say '%s'", msg, want);
	run_campaign_destroy(c);
	/* let go: one resume holds it, a second is refused */
	c = test_campaign_open(e->db, "held", &o);
	assert_int_equal(run_campaign_open(e->db, NULL, &o, &c2, msg, sizeof msg), -EBUSY);
	assert_null(c2);
	run_campaign_destroy(c);
	c = test_campaign_open(e->db, "held", &o);
	run_campaign_destroy(c);
}

static void copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	assert_non_null(in);
	assert_non_null(out);
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, in)) > 0)
		assert_int_equal(fwrite(buf, 1, n, out), n);
	fclose(in);
	assert_int_equal(fclose(out), 0);
	assert_int_equal(chmod(to, 0755), 0);
}

static void test_run_campaign__resume_refuses_changes_unless_accepted(void **state)
{
	struct env *e = *state;
	struct plan *plan = make_plan(e, "", "[arm A]\n");
	/* the build's binary, a copy the test can change */
	char game[PATH_MAX];
	tdir_file(&e->t, "game", game, sizeof game);
	copy_file(plan->builds[0].argv.v[0], game);
	free(plan->builds[0].argv.v[0]);
	plan->builds[0].argv.v[0] = strdup(game);
	struct run_options o = options(e, "changed");
	run_campaign_destroy(test_campaign_create(e->db, plan, &o));
	plan_free(plan);
	/* nothing changed: it opens */
	run_campaign_destroy(test_campaign_open(e->db, "changed", &o));

	/* the route edited (3 s -> 2 s) and the binary rebuilt */
	char p[PATH_MAX];
	write_text(tdir_file(&e->t, "t.route", p, sizeof p),
	           "route t\nduration 2s\nwindow 0.5s 2s\n0s press A 100ms\n1s shot one\n");
	FILE *f = fopen(game, "ab");
	assert_non_null(f);
	fputs("rebuilt", f);
	assert_int_equal(fclose(f), 0);
	struct run_campaign *c = NULL;
	char msg[2048] = "";
	assert_int_equal(run_campaign_open(e->db, "changed", &o, &c, msg, sizeof msg), -ESTALE);
	assert_null(c);
	if (!strstr(msg, "campaign 'changed' changed since it started") ||
	    !strstr(msg, "line 2: was 'duration 3s', now 'duration 2s'") ||
	    !strstr(msg, "build 'double': '") || !strstr(msg, "changed since the campaign started: sha256 "))
		fail_msg("the refusal does not name the differences: %s", msg);

	/* accepted: it opens, and the campaign's notes keep what changed */
	o.accept_changes = true;
	c = test_campaign_open(e->db, "changed", &o);
	struct db_campaign *dc;
	assert_int_equal(db_campaign_get(e->db, run_campaign_id(c), &dc), 0);
	assert_non_null(dc->notes);
	if (!strstr(dc->notes, "with changes accepted:") || !strstr(dc->notes, "now 'duration 2s'") ||
	    !strstr(dc->notes, "sha256 "))
		fail_msg("notes: %s", dc->notes);
	free(dc);
	run_campaign_destroy(c);
}

static int count_cut_folders(const char *dir)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		n += strstr(de->d_name, ".cut-") != NULL;
	closedir(d);
	return n;
}

static void test_run_campaign__full_disk_voids_the_run_and_stops(void **state)
{
	struct env *e = *state;
	/* a 8 MiB file system of the test's own for the run folders */
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		print_message("skipped: cannot make a mount namespace here (%s)\n", strerror(errno));
		skip();
	}
	assert_int_equal(mkdir(e->data, 0700), 0);
	if (mount("tmpfs", e->data, "tmpfs", 0, "size=8m,mode=0700") < 0) {
		print_message("skipped: cannot mount a tmpfs here (%s)\n", strerror(errno));
		skip();
	}
	struct plan *plan = make_plan(e, "order = AB\n",
	                              "[arm A]\nlabel = fills the disk\nargs = --fill-disk-after 1\n"
	                              "[arm B]\nlabel = fine\n");
	plan->warmup = false;
	struct run_options o = options(e, "full");
	struct run_campaign *c = test_campaign_create(e->db, plan, &o);
	char msg[2048] = "";
	plan_free(plan);
	/* the game's writes fail: its run is void "disk full" and the campaign stops */
	struct run_outcome out;
	assert_int_equal(run_campaign_play(c, &out, msg, sizeof msg), -ENOSPC);
	if (!strstr(msg, "the campaign stopped after run 1: disk full: "))
		fail_msg("%s", msg);
	struct db_run *runs;
	size_t n;
	assert_int_equal(db_run_list(e->db, run_campaign_id(c), &runs, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(runs[0].status, DB_RUN_VOID);
	assert_non_null(runs[0].void_reason);
	if (strncmp(runs[0].void_reason, "disk full: ", 11) != 0)
		fail_msg("run 1 is void for '%s'", runs[0].void_reason);
	assert_int_equal(runs[1].status, DB_RUN_PLANNED);
	free(runs);
	char cdir[PATH_MAX];
	snprintf(cdir, sizeof cdir, "%s", run_campaign_dir(c));
	run_campaign_destroy(c);

	/* resumes while the disk is full: harness trouble, nothing played, no
	 * folder piled up */
	for (int k = 0; k < 2; k++) {
		c = test_campaign_open(e->db, "full", &o);
		assert_int_equal(run_campaign_play(c, &out, msg, sizeof msg), -ENOSPC);
		if (!strstr(msg, "cannot start run 2: disk full: "))
			fail_msg("%s", msg);
		run_campaign_destroy(c);
	}
	assert_int_equal(count_cut_folders(cdir), 0);

	/* space freed; a folder of a run that never wrote a byte is not kept aside */
	char p[PATH_MAX * 2];
	snprintf(p, sizeof p, "%s/001-A/filler", cdir);
	assert_int_equal(unlink(p), 0);
	snprintf(p, sizeof p, "%s/002-B", cdir);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof p, "%s/002-B/stderr.txt", cdir);
	write_text(p, "");
	c = test_campaign_open(e->db, "full", &o);
	assert_true(test_campaign_play(c).complete);
	assert_int_equal(db_run_list(e->db, run_campaign_id(c), &runs, &n), 0);
	assert_int_equal(runs[1].status, DB_RUN_DONE);
	free(runs);
	run_campaign_destroy(c);
	assert_int_equal(count_cut_folders(cdir), 0);
	assert_int_equal(umount2(e->data, MNT_DETACH), 0);
}

static void test_run_campaign__pad_none_refuses_input_plays_shots_and_launcher(void **state)
{
	struct env *e = *state;
	/* the launcher's words go before the program: env sets a switch the
	 * stand-in game reports */
	struct plan *plan = make_plan(e, "", "launcher = env RX_VK_READBACK_LATE=newest\n[arm A]\n");
	plan->pad = PLAN_PAD_NONE;
	struct run_options o = options(e, NULL);
	struct run_campaign *c = NULL;
	char msg[1024] = "";
	/* t.route's line 4 presses A: refused at its line, nothing written */
	assert_int_equal(run_campaign_create(e->db, plan, &o, &c, msg, sizeof msg), -EINVAL);
	assert_null(c);
	if (!strstr(msg, "t.route:4: an input action, but the plan's pad is none"))
		fail_msg("%s", msg);
	struct db_campaign *list;
	size_t n;
	assert_int_equal(db_campaign_list(e->db, &list, &n), 0);
	assert_int_equal(n, 0);
	free(list);

	/* shots and marks only: played without any pad */
	char p[PATH_MAX];
	write_text(tdir_file(&e->t, "s.route", p, sizeof p),
	           "route s\nduration 3s\nwindow 0.5s 3s\n1s shot one\n1.5s mark half\n2s shot two\n");
	free(plan->route);
	plan->route = strdup(p);
	c = test_campaign_create(e->db, plan, &o);
	plan_free(plan);
	struct run_outcome out = test_campaign_play(c);
	assert_true(out.complete);
	assert_int_equal(out.runs_void, 0);
	struct db_run *runs;
	assert_int_equal(db_run_list(e->db, run_campaign_id(c), &runs, &n), 0);
	assert_int_equal(n, 2); /* the default order: forward, then backward */
	assert_int_equal(runs[0].status, DB_RUN_DONE);
	assert_int_equal(runs[1].status, DB_RUN_DONE);
	assert_non_null(strstr(runs[0].config, "RX_VK_READBACK_LATE=newest"));
	struct db_shot *shots;
	size_t ns;
	assert_int_equal(db_shots_read(e->db, runs[0].id, &shots, &ns), 0);
	if (ns != 2) {
		char out_log[PATH_MAX + 16], err_log[PATH_MAX + 16];
		static char out_text[8192], err_text[8192];
		snprintf(out_log, sizeof out_log, "%s/stdout.log", runs[0].run_dir);
		snprintf(err_log, sizeof err_log, "%s/stderr.log", runs[0].run_dir);
		fail_msg("%zu shots stored of 2; the game's stdout:\n%s\nits stderr:\n%s", ns,
		         test_file_text(out_log, out_text, sizeof out_text),
		         test_file_text(err_log, err_text, sizeof err_text));
	}
	free(shots);
	free(runs);
	/* the campaign's plan says so, for the report and the run file */
	struct db_campaign *dc;
	assert_int_equal(db_campaign_get(e->db, run_campaign_id(c), &dc), 0);
	assert_non_null(strstr(dc->plan_text, "pad = none\n"));
	assert_non_null(strstr(dc->plan_text, "launcher = "));
	free(dc);
	run_campaign_destroy(c);
}

static void test_run_campaign__mangohud_runs_and_a_run_with_no_log(void **state)
{
	struct env *e = *state;
	/* MangoHud 0.6.8 and 0.7.x in the stand-in; C's writes no CSV */
	struct run_outcome out;
	struct run_campaign *c = create_and_play(e, "order = ABC\nframes = mangohud\n",
	                                         "[arm A]\nargs = --mangohud 0.6\n"
	                                         "[arm B]\nargs = --mangohud 0.7\n"
	                                         "[arm C]\nargs = --mangohud 0.6 --mangohud-no-csv\n",
	                                         &out);
	struct db_run *runs;
	size_t n;
	assert_int_equal(db_run_list(e->db, run_campaign_id(c), &runs, &n), 0);
	assert_int_equal(n, 3);
	for (size_t i = 0; i < 2; i++) {
		if (runs[i].status != DB_RUN_DONE)
			fail_msg("run %zu: %s", i + 1, runs[i].void_reason ? runs[i].void_reason : "?");
		struct db_frame *f;
		size_t nf;
		assert_int_equal(db_frames_read(e->db, runs[i].id, &f, &nf), 0);
		assert_true(nf > 60); /* 3 s at 60 fps, stored frame by frame */
		assert_int_equal(f[0].source, DB_FRAME_MANGOHUD);
		free(f);
		assert_non_null(strstr(runs[i].config, "mangohud: MangoHud v0."));
	}
	assert_int_equal(runs[2].status, DB_RUN_VOID);
	assert_string_equal(runs[2].void_reason,
	                    "no log: MangoHud wrote no CSV into the run's mangohud/ folder");
	free(runs);
	run_campaign_destroy(c);
}

/* A decision callback: decided once the campaign has *ctx rounds (0: never). */
static int decided_at(void *ctx, struct db *db, int64_t id, bool *decided, char *errmsg,
                      size_t size)
{
	(void)errmsg;
	(void)size;
	struct db_campaign *dc;
	assert_int_equal(db_campaign_get(db, id, &dc), 0);
	int at = *(const int *)ctx;
	*decided = at > 0 && dc->rounds >= at;
	free(dc);
	return 0;
}

/* Plays a campaign of order AB, rounds = 1 and max_rounds = 3 with a
 * callback deciding at round decide_at: it must complete, stopped for
 * stop, done after rounds rounds of two runs. */
static void play_sequential(struct env *e, const char *name, int decide_at, enum run_stop stop,
                            int rounds)
{
	struct plan *plan = make_plan(e, "order = AB\nmax_rounds = 3\n", "[arm A]\n[arm B]\n");
	struct run_options o = options(e, name);
	o.decided = decided_at;
	o.decided_ctx = &decide_at;
	struct run_campaign *c = test_campaign_create(e->db, plan, &o);
	plan_free(plan);
	struct run_outcome out = test_campaign_play(c);
	assert_true(out.complete);
	assert_int_equal(out.stop, stop);
	assert_int_equal(out.rounds, rounds);
	struct db_run *runs;
	size_t n;
	assert_int_equal(db_run_list(e->db, run_campaign_id(c), &runs, &n), 0);
	assert_int_equal(n, (size_t)rounds * 2);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(runs[i].round, (int)(i / 2) + 1);
	free(runs);
	struct db_campaign *dc;
	assert_int_equal(db_campaign_get(e->db, run_campaign_id(c), &dc), 0);
	assert_int_equal(dc->rounds, rounds);
	assert_int_equal(dc->status, DB_CAMPAIGN_DONE);
	free(dc);
	run_campaign_destroy(c);
}

static void test_run_campaign__max_rounds_stops_once_decided(void **state)
{
	play_sequential(*state, "decides", 2, RUN_STOP_DECIDED, 2);
}

static void test_run_campaign__max_rounds_runs_to_the_maximum_undecided(void **state)
{
	play_sequential(*state, "undecided", 0, RUN_STOP_MAX_ROUNDS, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_run_campaign__hang_and_crash_are_void_and_it_completes,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_campaign__bad_plan_leaves_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_campaign__until_in_the_past_is_refused, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(test_run_campaign__names_and_resume_refusal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_campaign__one_harness_at_a_time, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_campaign__resume_refuses_changes_unless_accepted,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_campaign__full_disk_voids_the_run_and_stops,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_campaign__pad_none_refuses_input_plays_shots_and_launcher,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_campaign__mangohud_runs_and_a_run_with_no_log,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_campaign__max_rounds_stops_once_decided, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(test_run_campaign__max_rounds_runs_to_the_maximum_undecided,
		                                setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
