/* test-cmd-export-frames: `rxdeck export-frames CAMPAIGN/N --format
 * mangohud` (cmd-export-frames.c) on a database of its own.  A MangoHud log
 * and a renderer frame log with uneven frame times are imported, each run
 * exported, and the exported files imported back: the same percentiles and
 * fps.  The file starts as FlightlessSomething wants a MangoHud log to
 * (its first line exactly MangoHud's system-info header), and bad run
 * names are refused with their reason. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <math.h>

#include "results-db/db.h"
#include "test-cmd-util.h"
#include "test-run-util.h"

/* Frame times that make the percentiles differ: 16, 17, 19, 33 ms ... */
static double frame_ms_at(int k)
{
	static const double pattern[] = { 16.0, 17.5, 16.2, 19.0, 16.8, 33.3, 16.1, 17.0, 24.9, 16.4 };
	return pattern[k % 10] + (k % 7) * 0.125;
}

static void write_mangohud(const char *path)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "os,cpu,gpu,ram,kernel,driver,cpuscheduler\n");
	fprintf(f, "Debian GNU/Linux 12,AMD Custom APU 0405,AMD Custom GPU 0405,16GB,6.1.0,Mesa 22.3.6,\n");
	fprintf(f, "fps,frametime,cpu_load,gpu_load,elapsed\n");
	double t_ms = 0;
	for (int k = 0; t_ms < 10000; k++) {
		double ms = frame_ms_at(k);
		t_ms += ms;
		fprintf(f, "%.3f,%.3f,20,90,%" PRId64 "\n", 1000 / ms, ms, (int64_t)llround(t_ms * 1e6));
	}
	fclose(f);
}

static void write_renderer_log(const char *path)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "frame,present_ns,kind,frame_ms,draws,rb_wait_ms,memsync_ms\n");
	int64_t t = 5000000000LL;
	for (int k = 0; k < 600; k++) {
		double ms = frame_ms_at(k + 3);
		t += (int64_t)llround(ms * 1e6);
		fprintf(f, "%d,%" PRId64 ",real,%.3f,900,1.000,0.250\n", k, t, ms);
	}
	fclose(f);
}

static double metric(struct db *db, int64_t run, const char *name)
{
	double v = NAN;
	return db_metric_get(db, run, name, &v) == 0 ? v : NAN;
}

static void import(const char *db, const char *arm, const char *label, const char *log)
{
	char out[4096], err[4096];
	int rc = test_cmd_run(out, sizeof out, err, sizeof err, "import", "rt", arm, log, "--label",
	                      label, "--window", "2s", "8s", "--db", db, NULL);
	if (rc != 0)
		fail_msg("import %s: %d: %s", log, rc, err);
}

static void test_export_frames__round_trip_keeps_the_percentiles(void **state)
{
	(void)state;
	struct tdir t;
	tdir_make(&t);
	char db_path[PATH_MAX], mh[PATH_MAX], fl[PATH_MAX], e1[PATH_MAX], e2[PATH_MAX];
	tdir_file(&t, "results.db", db_path, sizeof db_path);
	write_mangohud(tdir_file(&t, "mangohud.csv", mh, sizeof mh));
	write_renderer_log(tdir_file(&t, "frames.csv", fl, sizeof fl));
	import(db_path, "A", "mangohud", mh);
	import(db_path, "B", "renderer", fl);

	char out[4096], err[4096];
	tdir_file(&t, "run1.csv", e1, sizeof e1);
	tdir_file(&t, "run2.csv", e2, sizeof e2);
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "export-frames", "rt/1", "--format",
	                              "mangohud", "-o", e1, "--db", db_path, NULL), 0);
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "export-frames", "rt/2", "-o", e2,
	                              "--db", db_path, NULL), 0);
	/* what FlightlessSomething checks first, then MangoHud's columns */
	FILE *f = fopen(e1, "r");
	assert_non_null(f);
	char line[512];
	assert_non_null(fgets(line, sizeof line, f));
	assert_string_equal(line, "os,cpu,gpu,ram,kernel,driver,cpuscheduler\n");
	assert_non_null(fgets(line, sizeof line, f));
	assert_non_null(fgets(line, sizeof line, f));
	assert_string_equal(line, "fps,frametime,elapsed\n");
	fclose(f);

	import(db_path, "C", "mangohud again", e1);
	import(db_path, "D", "renderer again", e2);
	struct db *db;
	assert_int_equal(db_open(db_path, &db), 0);
	struct db_campaign *c;
	assert_int_equal(db_campaign_find(db, "rt", &c), 0);
	struct db_run *r;
	size_t n;
	assert_int_equal(db_run_list(db, c->id, &r, &n), 0);
	assert_int_equal(n, 4);
	const char *names[] = { "p50_ms", "p95_ms", "p99_ms", "real_fps", "real_frames" };
	for (int pair = 0; pair < 2; pair++) {
		for (size_t m = 0; m < 5; m++) {
			double a = metric(db, r[pair].id, names[m]), b = metric(db, r[pair + 2].id, names[m]);
			assert_true(isfinite(a));
			if (fabs(a - b) > 1e-3 * fabs(a) + 1e-6)
				fail_msg("run %d %s: %.6f, exported and imported back %.6f", pair + 1, names[m], a, b);
		}
		/* uneven frame times: the percentiles are not all one value */
		assert_true(metric(db, r[pair].id, "p99_ms") > metric(db, r[pair].id, "p50_ms") + 5);
	}
	free(r);
	free(c);
	db_close(db);
	tdir_remove(&t);
}

static void test_export_frames__bad_runs_are_refused(void **state)
{
	(void)state;
	struct tdir t;
	tdir_make(&t);
	char db_path[PATH_MAX], mh[PATH_MAX];
	tdir_file(&t, "results.db", db_path, sizeof db_path);
	write_mangohud(tdir_file(&t, "mangohud.csv", mh, sizeof mh));
	import(db_path, "A", "mangohud", mh);
	char out[4096], err[4096];
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "export-frames", "rt", "--db",
	                              db_path, NULL), 2);
	assert_non_null(strstr(err, "bad run 'rt': expected CAMPAIGN/N"));
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "export-frames", "rt/7", "--db",
	                              db_path, NULL), 1);
	assert_non_null(strstr(err, "campaign 'rt' has no run 7 (it has 1)"));
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "export-frames", "rt/1",
	                              "--format", "csv", "--db", db_path, NULL), 2);
	assert_non_null(strstr(err, "csv"));
	tdir_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_export_frames__round_trip_keeps_the_percentiles),
		cmocka_unit_test(test_export_frames__bad_runs_are_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
