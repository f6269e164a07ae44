/* test-cmd-import: `rxdeck import` (cmd-import.c) run in-process on a
 * database of its own: the field's four arms imported into a campaign that
 * did not exist, with --label repeated for an arm that has it; several logs
 * at once with --round and --position; MangoHud logs with the default t0;
 * a glitched timestamp; a log covering part of the window made void; a
 * PresentMon CSV beside them; PresentMon 2.x logs with --date_time placed
 * by their own clocks (in blocks: "arms not interleaved" and the wide
 * interval; interleaved in time though imported arm by arm: the time term
 * on their real spacing), and a date that does not read refused at
 * file:line:column; and the refusals, which write nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <jansson.h>
#include <inttypes.h>
#include <math.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "results-db/db.h"
#include "test-capture.h"
#include "test-run-util.h"

struct out {
	int rc;
	char *text; /* stdout and stderr */
};

/* Runs a command through the dispatcher with stdout and stderr captured;
 * text holds what it wrote to stdout, then what it wrote to stderr. */
static struct out run(const char *const *args)
{
	char *argv[32];
	int argc = 0;
	while (args[argc]) {
		argv[argc] = (char *)args[argc];
		argc++;
	}
	argv[argc] = NULL;
	struct out r = { 0 };
	struct test_capture cap;
	test_capture_begin(&cap);
	r.rc = cmd_dispatch(argc, argv);
	test_capture_end(&cap);
	size_t n_out = strlen(cap.out), n_err = strlen(cap.err);
	r.text = malloc(n_out + n_err + 1);
	assert_non_null(r.text);
	memcpy(r.text, cap.out, n_out);
	memcpy(r.text + n_out, cap.err, n_err + 1);
	test_capture_free(&cap);
	print_message("%s", r.text);
	return r;
}

/* A MangoHud log at a steady fps from from_s to to_s after its start. */
static void write_mangohud(const char *path, double fps, double from_s, double to_s)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "v0.6.8\n");
	fprintf(f, "os,cpu,gpu,ram,kernel,driver,cpuscheduler\n");
	fprintf(f, "Debian GNU/Linux 12,AMD Custom APU 0405,AMD Custom GPU 0405,16GB,6.1.0,Mesa 22.3.6,\n");
	fprintf(f, "fps,frametime,cpu_load,gpu_load,cpu_temp,gpu_temp,gpu_core_clock,gpu_mem_clock,gpu_vram_used,gpu_power,ram_used,swap_used,process_rss,elapsed\n");
	double ft_ms = 1000.0 / fps;
	for (int k = 0; from_s + k * ft_ms / 1000 <= to_s; k++)
		fprintf(f, "%.3f,%.3f,20,90,60,70,1600,800,1.2,10,6.1,0.0,0.9,%" PRId64 "\n", fps, ft_ms,
		        (int64_t)llround((from_s + k * ft_ms / 1000) * 1e9));
	fclose(f);
}

struct env {
	struct tdir t;
	char db[PATH_MAX];
};

static void env_make(struct env *e)
{
	tdir_make(&e->t);
	tdir_file(&e->t, "results.db", e->db, sizeof e->db);
}

static struct db_run *runs_of(struct db *db, const char *campaign, size_t *n, int64_t *cid)
{
	struct db_campaign *c;
	assert_int_equal(db_campaign_find(db, campaign, &c), 0);
	*cid = c->id;
	free(c);
	struct db_run *r;
	assert_int_equal(db_run_list(db, *cid, &r, n), 0);
	return r;
}

static double metric(struct db *db, int64_t run, const char *name)
{
	double v = NAN;
	return db_metric_get(db, run, name, &v) == 0 ? v : NAN;
}

static void test_import__the_field_four_arms_make_a_campaign(void **state)
{
	(void)state;
	struct env e;
	env_make(&e);
	/* the field's Deck table: off 10.8/11.4, late 12.0/11.6, early
	 * 12.6/12.8, both 12.7/13.0 */
	const struct {
		char letter[2];
		const char *label;
		double fps[2];
	} arms[] = {
		{ "A", "off", { 10.8, 11.4 } },
		{ "B", "late", { 12.0, 11.6 } },
		{ "C", "early", { 12.6, 12.8 } },
		{ "D", "both", { 12.7, 13.0 } },
	};
	for (int a = 0; a < 4; a++) {
		for (int k = 0; k < 2; k++) {
			char name[64], p[PATH_MAX];
			snprintf(name, sizeof name, "%s-%d.csv", arms[a].label, k + 1);
			write_mangohud(tdir_file(&e.t, name, p, sizeof p), arms[a].fps[k], 0, 12);
			/* the first import of all makes the campaign; every import
			 * repeats the arm's --label */
			const char *args[] = { "import", "field", arms[a].letter, p, "--label", arms[a].label,
				               "--window", "2s", "11s", "--db", e.db, NULL };
			struct out r = run(args);
			assert_int_equal(r.rc, 0);
			if (a == 0 && k == 0)
				assert_non_null(strstr(r.text, "made campaign field, measuring 2 s to 11 s"));
			assert_non_null(strstr(r.text, "(MangoHud CSV) into campaign field"));
			free(r.text);
		}
	}
	struct db *db;
	assert_int_equal(db_open(e.db, &db), 0);
	size_t n;
	int64_t cid;
	struct db_run *r = runs_of(db, "field", &n, &cid);
	assert_int_equal(n, 8);
	struct db_arm *dba;
	size_t na;
	assert_int_equal(db_arm_list(db, cid, &dba, &na), 0);
	assert_int_equal(na, 4);
	for (size_t i = 0; i < 4; i++)
		assert_string_equal(dba[i].label, arms[i].label);
	free(dba);
	for (size_t i = 0; i < n; i++) {
		int a = (int)i / 2, k = (int)i % 2;
		assert_int_equal(r[i].arm_letter, arms[a].letter[0]);
		assert_int_equal(r[i].round, k + 1);
		assert_int_equal(r[i].position, (int)i + 1);
		assert_int_equal(r[i].status, DB_RUN_DONE);
		/* MangoHud's default t0 (the log's start) works: the window's
		 * frames are there, at the log's rate within one frame */
		double fps = metric(db, r[i].id, "real_fps");
		if (!(fabs(fps - arms[a].fps[k]) < 0.2))
			fail_msg("run %zu: real fps %g, want %g", i, fps, arms[a].fps[k]);
		assert_true(metric(db, r[i].id, "route_t0_ns") == 0);
		/* stored frame by frame, MangoHud's missing columns absent */
		struct db_frame *f;
		size_t nf;
		assert_int_equal(db_frames_read(db, r[i].id, &f, &nf), 0);
		assert_true(nf > 100);
		assert_int_equal(f[0].source, DB_FRAME_MANGOHUD);
		assert_true(f[0].absent & DB_FRAME_NO_RB_WAIT_MS);
		free(f);
	}
	free(r);
	db_close(db);

	/* the table has the four arms */
	const char *report[] = { "report", "field", "--db", e.db, NULL };
	struct out o = run(report);
	assert_int_equal(o.rc, 0);
	for (int a = 0; a < 4; a++)
		assert_non_null(strstr(o.text, arms[a].label));
	free(o.text);
	tdir_remove(&e.t);
}

static void test_import__several_logs_with_round_and_position(void **state)
{
	(void)state;
	struct env e;
	env_make(&e);
	char a[PATH_MAX], b[PATH_MAX], c[PATH_MAX];
	write_mangohud(tdir_file(&e.t, "a.csv", a, sizeof a), 50, 0, 12);
	write_mangohud(tdir_file(&e.t, "b.csv", b, sizeof b), 40, 0, 12);
	write_mangohud(tdir_file(&e.t, "c.csv", c, sizeof c), 30, 0, 12);
	/* a file time a day before: what the import used to store as the start */
	const struct timespec day_before[2] = { { .tv_sec = time(NULL) - 86400 },
		                                { .tv_sec = time(NULL) - 86400 } };
	assert_int_equal(utimensat(AT_FDCWD, a, day_before, 0), 0);
	const char *args[] = { "import", "night", "B", a, b, "--round", "5", "--position", "10",
		               "--env", "LP_NUM_THREADS=2", "--window", "2s", "11s", "--db", e.db, NULL };
	struct out r = run(args);
	assert_int_equal(r.rc, 0);
	free(r.text);

	/* a taken position is refused, and nothing of that import is written */
	const char *again[] = { "import", "night", "B", c, "--position", "11", "--db", e.db, NULL };
	r = run(again);
	assert_int_equal(r.rc, 2);
	assert_non_null(strstr(r.text, "position 11 of campaign 'night' is taken (arm B, round 6)"));
	free(r.text);
	/* another env for the arm is refused; its own is fine */
	const char *other_env[] = { "import", "night", "B", c, "--env", "LP_NUM_THREADS=1", "--db", e.db, NULL };
	r = run(other_env);
	assert_int_equal(r.rc, 2);
	assert_non_null(strstr(r.text, "has an arm B with another env"));
	free(r.text);
	const char *same_env[] = { "import", "night", "B", c, "--env", "LP_NUM_THREADS=2", "--db", e.db, NULL };
	r = run(same_env);
	assert_int_equal(r.rc, 0);
	free(r.text);

	struct db *db;
	assert_int_equal(db_open(e.db, &db), 0);
	size_t n;
	int64_t cid;
	struct db_run *runs = runs_of(db, "night", &n, &cid);
	assert_int_equal(n, 3);
	assert_int_equal(runs[0].position, 10);
	assert_int_equal(runs[0].round, 5);
	assert_int_equal(runs[1].position, 11);
	assert_int_equal(runs[1].round, 6);
	assert_int_equal(runs[2].position, 12); /* after the last */
	assert_int_equal(runs[2].round, 7);     /* after the arm's last */
	assert_true(fabs(metric(db, runs[1].id, "real_fps") - 40) < 0.2);
	/* untimed: neither the file's time nor the time of the import */
	for (size_t i = 0; i < n; i++)
		assert_true(runs[i].start_unix_ms == 0 && runs[i].end_unix_ms == 0);
	struct db_campaign *camp;
	assert_int_equal(db_campaign_get(db, cid, &camp), 0);
	assert_int_equal(camp->rounds, 7);
	assert_true(camp->window_start_s == 2 && camp->window_end_s == 11);
	free(camp);
	free(runs);
	db_close(db);
	tdir_remove(&e.t);
}

static void test_import__refusals_write_nothing(void **state)
{
	(void)state;
	struct env e;
	env_make(&e);
	char a[PATH_MAX];
	write_mangohud(tdir_file(&e.t, "a.csv", a, sizeof a), 50, 0, 12);
	/* no campaign, no window to make one */
	const char *no_window[] = { "import", "night", "A", a, "--db", e.db, NULL };
	struct out r = run(no_window);
	assert_int_equal(r.rc, 2);
	assert_non_null(strstr(r.text, "no campaign 'night'"));
	assert_non_null(strstr(r.text, "give --window START END or --route FILE to make it"));
	free(r.text);
	/* a log with no frame in the window: nothing imported, no campaign made */
	const char *far[] = { "import", "night", "A", a, "--window", "20s", "30s", "--db", e.db, NULL };
	r = run(far);
	assert_int_equal(r.rc, 1);
	assert_non_null(strstr(r.text, "nothing imported"));
	free(r.text);
	struct db *db;
	assert_int_equal(db_open(e.db, &db), 0);
	struct db_campaign *c;
	assert_int_equal(db_campaign_find(db, "night", &c), -ENOENT);
	db_close(db);
	/* --log goes with one frame log */
	const char *two_with_log[] = { "import", "night", "A", a, a, "--log", a, "--db", e.db, NULL };
	r = run(two_with_log);
	assert_int_equal(r.rc, 2);
	free(r.text);
	tdir_remove(&e.t);
}

static void test_import__glitch_partial_log_and_presentmon(void **state)
{
	(void)state;
	struct env e;
	env_make(&e);
	/* a renderer log at 50 fps with one present_ns glitched far ahead */
	char g[PATH_MAX];
	FILE *f = fopen(tdir_file(&e.t, "glitch.csv", g, sizeof g), "w");
	assert_non_null(f);
	fprintf(f, "frame,present_ns,kind,frame_ms,draws,rb_wait_ms,memsync_ms\n");
	for (int k = 0; k < 600; k++) {
		int64_t t = 5000000000LL + (int64_t)k * 20000000LL;
		if (k == 200)
			t = 9000000000000000000LL;
		fprintf(f, "%d,%" PRId64 ",real,20,100,0,0\n", k, t);
	}
	fclose(f);
	const char *args[] = { "import", "mixed", "A", g, "--label", "deck", "--window", "2s", "11s",
		               "--db", e.db, NULL };
	struct out r = run(args);
	assert_int_equal(r.rc, 0);
	assert_non_null(strstr(r.text, "glitch.csv:202:"));
	free(r.text);

	/* MangoHud frames from 2 to 7 s of the 2 to 11 s window: void */
	char p[PATH_MAX];
	write_mangohud(tdir_file(&e.t, "partial.csv", p, sizeof p), 50, 2, 7);
	const char *partial[] = { "import", "mixed", "B", p, "--label", "partial", "--db", e.db, NULL };
	r = run(partial);
	assert_int_equal(r.rc, 0);
	assert_non_null(strstr(r.text, ": void, log covers 2.0\u20137.0 s of 2.0\u201311.0 s"));
	free(r.text);
	/* with --min-coverage 50 the same log counts */
	const char *lenient[] = { "import", "mixed", "B", p, "--min-coverage", "50", "--db", e.db, NULL };
	r = run(lenient);
	assert_int_equal(r.rc, 0);
	free(r.text);

	/* a Windows run of the same route: PresentMon 2.x, frames 0.77 to 5.75 s */
	char pm[PATH_MAX];
	snprintf(pm, sizeof pm, "%s/tests/corpus/presentmon/v1-game.csv", RXDECK_SOURCE_ROOT);
	const char *windows[] = { "import", "mixed", "C", pm, "--label", "windows", "--min-coverage", "off",
		                  "--db", e.db, NULL };
	r = run(windows);
	assert_int_equal(r.rc, 0);
	assert_non_null(strstr(r.text, "(PresentMon 1.x CSV)"));
	free(r.text);

	struct db *db;
	assert_int_equal(db_open(e.db, &db), 0);
	size_t n;
	int64_t cid;
	struct db_run *runs = runs_of(db, "mixed", &n, &cid);
	assert_int_equal(n, 4);
	/* the glitch cost one row, not the rest: 50 fps, 20 ms frames */
	assert_int_equal(runs[0].status, DB_RUN_DONE);
	assert_true(fabs(metric(db, runs[0].id, "real_fps") - 50) < 0.2);
	assert_true(fabs(metric(db, runs[0].id, "p99_ms") - 20) < 1e-6);
	assert_int_equal(runs[1].status, DB_RUN_VOID);
	assert_non_null(strstr(runs[1].void_reason, "log covers 2.0\u20137.0 s of 2.0\u201311.0 s"));
	assert_int_equal(runs[2].status, DB_RUN_DONE);
	assert_int_equal(runs[3].status, DB_RUN_DONE);
	struct db_frame *fr;
	size_t nf;
	assert_int_equal(db_frames_read(db, runs[3].id, &fr, &nf), 0);
	assert_int_equal(nf, 300);
	assert_int_equal(fr[0].source, DB_FRAME_PRESENTMON);
	free(fr);
	free(runs);
	db_close(db);
	tdir_remove(&e.t);
}

/* A PresentMon 2.x log written with --date_time: the header of
 * GameTechDev/PresentMon v2.5.1 PresentMon/CsvOutput.cpp with
 * --v2_metrics (2.0-2.3's default), display tracking on and GPU tracking
 * off; CPUStartDateTime as its WriteCsvRow() writes it,
 * "%u-%u-%u %u:%02u:%02u.%09llu" of local time.  Frames at a steady fps
 * for 10 s from 2026-3-28 at h:mi:s local time. */
static void write_presentmon_dt(const char *path, double fps, int h, int mi, int sec)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "Application,ProcessID,SwapChainAddress,PresentRuntime,SyncInterval,PresentFlags,"
	           "AllowsTearing,PresentMode,CPUStartDateTime,FrameTime,CPUBusy,CPUWait,"
	           "DisplayLatency,DisplayedTime,AnimationError,AnimationTime,MsFlipDelay\r\n");
	double ft_ms = 1000.0 / fps;
	for (int k = 0; k * ft_ms < 10000; k++) {
		int64_t ns = (int64_t)llround(k * ft_ms * 1e6);
		int64_t s_all = (int64_t)((h * 60 + mi) * 60 + sec) + ns / 1000000000;
		fprintf(f, "game.exe,4242,0x1C2A4D1F230,DXGI,1,0,0,Composed: Flip,"
		           "2026-3-28 %d:%02d:%02d.%09" PRId64 ",%.4f,%.4f,0.5000,30.0000,%.4f,0.0000,%.4f,NA\r\n",
		        (int)(s_all / 3600), (int)(s_all / 60 % 60), (int)(s_all % 60), ns % 1000000000,
		        ft_ms, ft_ms - 0.5, ft_ms, (double)ns / 1e6);
	}
	fclose(f);
}

/* The report's JSON verdict of arm B's real fps in campaign name. */
static json_t *verdict_b(struct env *e, const char *name, json_t **doc, char **md)
{
	const char *args[] = { "report", name, "--format", "json", "--db", e->db, NULL };
	struct out r = run(args);
	assert_int_equal(r.rc, 0);
	json_error_t je;
	*doc = json_loads(r.text, 0, &je);
	free(r.text);
	assert_non_null(*doc);
	const char *margs[] = { "report", name, "--format", "md", "--db", e->db, NULL };
	struct out m = run(margs);
	assert_int_equal(m.rc, 0);
	*md = m.text;
	json_t *b = json_array_get(json_object_get(*doc, "arms"), 1);
	json_t *v = json_object_get(json_object_get(b, "verdict"), "real_fps");
	assert_non_null(v);
	return v;
}

/* One night of 8 runs, 2 minutes apart from 22:00, each 10 s: fps
 * drifting down 3 % over the night with a little noise and no difference
 * between the arms; arm_at[i] says which arm ran i-th.  A's logs are
 * imported in one command, then B's, as a user with two folders would. */
static void import_night(struct env *e, const char *name, const char *arm_at)
{
	static const double noise[8] = { 0.31, -0.22, 0.05, -0.41, 0.18, -0.07, 0.36, -0.2 };
	char paths[8][PATH_MAX];
	for (int i = 0; i < 8; i++) {
		char file[64];
		snprintf(file, sizeof file, "%s-%d-%c.csv", name, i, arm_at[i]);
		/* written out of order: the clock, not the name, places them */
		write_presentmon_dt(tdir_file(&e->t, file, paths[i], sizeof paths[i]),
		                    60.0 * (1 - 0.03 * i / 7.0) + noise[i], 22, 2 * i, 0);
	}
	for (char arm = 'A'; arm <= 'B'; arm++) {
		const char *args[16] = { "import", name, arm == 'A' ? "A" : "B" };
		int n = 3;
		for (int i = 7; i >= 0; i--)
			if (arm_at[i] == arm)
				args[n++] = paths[i];
		const char *tail[] = { "--window", "1s", "9s", "--db", e->db, NULL };
		for (int k = 0; tail[k]; k++)
			args[n++] = tail[k];
		args[n] = NULL;
		struct out r = run(args);
		assert_int_equal(r.rc, 0);
		assert_non_null(strstr(r.text, "(PresentMon 2.x CSV)"));
		assert_non_null(strstr(r.text, "started 2026-03-28 22:"));
		free(r.text);
	}
}

static void test_import__date_time_logs_place_their_runs(void **state)
{
	(void)state;
	struct env e;
	env_make(&e);
	/* all A, then all B, by the logs' clocks */
	import_night(&e, "blocks", "AAAABBBB");
	struct db *db;
	assert_int_equal(db_open(e.db, &db), 0);
	size_t n;
	int64_t cid;
	struct db_run *runs = runs_of(db, "blocks", &n, &cid);
	assert_int_equal(n, 8);
	/* within one command, in the clock's order though given backwards */
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(runs[i].position, (int)i + 1);
		double after = metric(db, runs[i].id, "wall_local_start_s") -
		               metric(db, runs[0].id, "wall_local_start_s");
		double span = metric(db, runs[i].id, "wall_local_end_s") -
		              metric(db, runs[i].id, "wall_local_start_s");
		assert_true(fabs(after - 120.0 * (double)i) < 1e-6);
		assert_true(span > 9.9 && span < 10.0);
	}
	free(runs);
	json_t *doc;
	char *md;
	json_t *v = verdict_b(&e, "blocks", &doc, &md);
	assert_string_equal(json_string_value(json_object_get(v, "method")), "arm_time");
	assert_true(json_is_false(json_object_get(v, "interleaved")));
	assert_non_null(strstr(md, "**warning:** arms not interleaved: A and B ran in blocks"));
	const char *state_b = json_string_value(json_object_get(v, "state"));
	assert_true(strcmp(state_b, "faster") != 0 && strcmp(state_b, "slower") != 0);
	double wide = json_real_value(json_object_get(v, "ci_high")) -
	              json_real_value(json_object_get(v, "ci_low"));
	print_message("blocks: %s, interval width %.3f fps\n", state_b, wide);
	json_decref(doc);
	free(md);

	/* interleaved in time (ABAB...), though imported arm by arm, so their
	 * positions are blocks: the clocks place them */
	import_night(&e, "night", "ABABBABA");
	runs = runs_of(db, "night", &n, &cid);
	assert_int_equal(n, 8);
	assert_int_equal(runs[0].arm_letter, 'A');
	assert_int_equal(runs[4].arm_letter, 'B');
	free(runs);
	v = verdict_b(&e, "night", &doc, &md);
	assert_string_equal(json_string_value(json_object_get(v, "method")), "arm_time");
	assert_true(json_is_true(json_object_get(v, "interleaved")));
	assert_null(strstr(md, "arms not interleaved"));
	double narrow = json_real_value(json_object_get(v, "ci_high")) -
	                json_real_value(json_object_get(v, "ci_low"));
	print_message("interleaved: interval width %.3f fps\n", narrow);
	/* the same values at the same times, only the arms' order differs:
	 * in blocks the arm column is 0.87 correlated with the linear term
	 * (variance inflation 4.2, se x 2.05 at the same s); measured 1.93
	 * against 1.14 fps */
	assert_true(wide > 1.5 * narrow);
	json_decref(doc);
	free(md);

	/* with --position the user places the run: no clock is kept */
	char p[PATH_MAX];
	write_presentmon_dt(tdir_file(&e.t, "placed.csv", p, sizeof p), 60, 23, 30, 0);
	const char *placed[] = { "import", "night", "A", p, "--position", "20", "--db", e.db, NULL };
	struct out r = run(placed);
	assert_int_equal(r.rc, 0);
	assert_null(strstr(r.text, "started"));
	free(r.text);
	runs = runs_of(db, "night", &n, &cid);
	assert_int_equal(n, 9);
	assert_int_equal(runs[8].position, 20);
	assert_true(isnan(metric(db, runs[8].id, "wall_local_start_s")));
	free(runs);

	/* runs that overlap on their clocks did not run one after the other
	 * (the clocks went back an hour, or two machines): named, and the
	 * runs keep their positions */
	char d1[PATH_MAX], d2[PATH_MAX], d3[PATH_MAX], d4[PATH_MAX];
	write_presentmon_dt(tdir_file(&e.t, "d1.csv", d1, sizeof d1), 60, 2, 50, 0);
	write_presentmon_dt(tdir_file(&e.t, "d2.csv", d2, sizeof d2), 61, 2, 52, 0);
	write_presentmon_dt(tdir_file(&e.t, "d3.csv", d3, sizeof d3), 60, 2, 50, 5);
	write_presentmon_dt(tdir_file(&e.t, "d4.csv", d4, sizeof d4), 61, 2, 56, 0);
	const char *da[] = { "import", "dst", "A", d1, d3, "--window", "1s", "9s", "--db", e.db, NULL };
	r = run(da);
	assert_int_equal(r.rc, 0);
	free(r.text);
	const char *db_[] = { "import", "dst", "B", d2, d4, "--db", e.db, NULL };
	r = run(db_);
	assert_int_equal(r.rc, 0);
	free(r.text);
	json_t *dv = verdict_b(&e, "dst", &doc, &md);
	assert_non_null(strstr(md, "runs 1 and 2 overlap on their logs' local clocks"));
	(void)dv;
	json_decref(doc);
	free(md);
	db_close(db);
	tdir_remove(&e.t);
}

static void test_import__bad_date_time_writes_nothing(void **state)
{
	(void)state;
	struct env e;
	env_make(&e);
	char good[PATH_MAX], bad[PATH_MAX];
	write_presentmon_dt(tdir_file(&e.t, "good.csv", good, sizeof good), 60, 22, 0, 0);
	FILE *f = fopen(tdir_file(&e.t, "bad.csv", bad, sizeof bad), "w");
	assert_non_null(f);
	fprintf(f, "Application,ProcessID,CPUStartDateTime,FrameTime\n"
	           "game.exe,4242,2026-3-28 22:02:00.000000000,16.6667\n"
	           "game.exe,4242,2026-3-28 22:02:00.016666700,16.6667\n"
	           "game.exe,4242,2026-3-32 22:02:00.033333400,16.6667\n");
	fclose(f);
	const char *args[] = { "import", "night", "A", good, bad, "--window", "1s", "9s", "--db", e.db, NULL };
	struct out r = run(args);
	assert_int_equal(r.rc, 1);
	assert_non_null(strstr(r.text, "bad.csv:4:15: bad CPUStartDateTime '2026-3-32 22:02:00.033333400': "
	                               "day 32 is not in month 3 of 2026 (1 to 31)"));
	free(r.text);
	struct db *db;
	assert_int_equal(db_open(e.db, &db), 0);
	struct db_campaign *c;
	assert_int_equal(db_campaign_find(db, "night", &c), -ENOENT);
	db_close(db);
	tdir_remove(&e.t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_import__the_field_four_arms_make_a_campaign),
		cmocka_unit_test(test_import__several_logs_with_round_and_position),
		cmocka_unit_test(test_import__refusals_write_nothing),
		cmocka_unit_test(test_import__glitch_partial_log_and_presentmon),
		cmocka_unit_test(test_import__date_time_logs_place_their_runs),
		cmocka_unit_test(test_import__bad_date_time_writes_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
