/* results-db: a run's results, stored in one transaction and read back
 * exactly; a failure or a crash mid-write leaves nothing half-written. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>

#include "test-db-util.h"

static struct db_frame frames3[] = {
	{ .frame = 1, .present_ns = 9000000000123, .frame_ms = 16.6667, .rb_wait_ms = 1.25,
	  .memsync_ms = 0.125, .draws = 1234, .kind = DB_FRAME_REAL },
	{ .frame = 2, .present_ns = 9000008333456, .frame_ms = 8.3, .rb_wait_ms = 0,
	  .memsync_ms = 0, .draws = 0, .kind = DB_FRAME_SHOWN },
	{ .frame = 3, .present_ns = 9000016666789, .frame_ms = 0.1 + 0.2, .rb_wait_ms = 1e-9,
	  .memsync_ms = 3.0e5, .draws = UINT32_MAX, .kind = DB_FRAME_REAL },
};

static const char *caps_a[] = { "3000", "268", "23.3" };
static const char *caps_b[] = { "600", NULL };

static struct db_run_results full_results(void)
{
	static struct db_sample samples[] = {
		{ .t_ns = 100, .name = "gpu_busy_pct", .value = 97 },
		{ .t_ns = 100, .name = "gpu_power_w", .absent = true },
		{ .t_ns = 50, .name = "swap_in_pages", .value = 12 },
		{ .t_ns = 200, .name = "gpu_busy_pct", .value = 0 },
	};
	static struct db_metric metrics[] = {
		{ "real_fps", 59.94 }, { "p95_frame_ms", 21.5 }, { "frames_over_100ms", 0 },
	};
	static struct db_log_line lines[] = {
		{ .t_ns = 1000, .pattern = "readbacks",
		  .text = "vk: readbacks: 3000 reads, 268 waited 23.3 ms each",
		  .captures = caps_a, .n_captures = 3 },
		{ .t_ns = 0, .pattern = "captures", .text = "vk: captures: 600",
		  .captures = caps_b, .n_captures = 2 },
		{ .t_ns = 2000, .pattern = "readbacks", .text = "vk: readbacks: none" },
	};
	static struct db_shot shots[] = {
		{ .name = "forest-entrance", .path = "/runs/1/forest-entrance.png", .luma = 87.25,
		  .checksum = "9f86d081" },
		{ .name = "bridge", .path = NULL, .luma = NAN, .checksum = NULL },
	};
	return (struct db_run_results){
		.frames = frames3, .n_frames = 3,
		.samples = samples, .n_samples = 4,
		.metrics = metrics, .n_metrics = 3,
		.log_lines = lines, .n_log_lines = 3,
		.shots = shots, .n_shots = 2,
		.config = "RX_VK_READBACK_EARLY=1\nRX_VK_PARALLEL=1\n",
		.status = DB_RUN_DONE, .end_unix_ms = 1750000000999, .exit_status = 0,
	};
}

static void start(struct tdb *t, int64_t ids[4])
{
	tdb_open_campaign(t);
	tdb_plan_abba(t, ids);
	assert_int_equal(db_run_mark_running(t->db, ids[0], 1750000000000, "/runs/1"), 0);
}

static void check_nothing_stored(struct tdb *t, int64_t run, enum db_run_status status)
{
	size_t n;
	struct db_frame *f;
	assert_int_equal(db_frames_read(t->db, run, &f, &n), 0);
	assert_int_equal(n, 0);
	free(f);
	struct db_sample *s;
	assert_int_equal(db_samples_read(t->db, run, NULL, &s, &n), 0);
	assert_int_equal(n, 0);
	free(s);
	struct db_metric *m;
	assert_int_equal(db_metrics_read(t->db, run, &m, &n), 0);
	assert_int_equal(n, 0);
	free(m);
	struct db_log_line *l;
	assert_int_equal(db_log_lines_read(t->db, run, NULL, &l, &n), 0);
	assert_int_equal(n, 0);
	free(l);
	struct db_shot *sh;
	assert_int_equal(db_shots_read(t->db, run, &sh, &n), 0);
	assert_int_equal(n, 0);
	free(sh);
	struct db_run *r;
	assert_int_equal(db_run_get(t->db, run, &r), 0);
	assert_int_equal(r->status, status);
	assert_null(r->config);
	free(r);
}

static void test_store_results__reads_back_exactly(void **state)
{
	struct tdb t = { 0 };
	int64_t ids[4];
	start(&t, ids);
	struct db_run_results in = full_results();
	assert_int_equal(db_run_store_results(t.db, ids[0], &in), 0);
	/* Read through a fresh handle: it is on disk, not in a cache. */
	db_close(t.db);
	assert_int_equal(db_open(t.path, &t.db), 0);

	struct db_frame *f;
	size_t n;
	assert_int_equal(db_frames_read(t.db, ids[0], &f, &n), 0);
	assert_int_equal(n, 3);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(f[i].frame, frames3[i].frame);
		assert_int_equal(f[i].present_ns, frames3[i].present_ns);
		assert_memory_equal(&f[i].frame_ms, &frames3[i].frame_ms, sizeof(double));
		assert_memory_equal(&f[i].rb_wait_ms, &frames3[i].rb_wait_ms, sizeof(double));
		assert_memory_equal(&f[i].memsync_ms, &frames3[i].memsync_ms, sizeof(double));
		assert_int_equal(f[i].draws, frames3[i].draws);
		assert_int_equal(f[i].kind, frames3[i].kind);
	}
	free(f);

	struct db_sample *s;
	assert_int_equal(db_samples_read(t.db, ids[0], NULL, &s, &n), 0);
	assert_int_equal(n, 4);
	assert_string_equal(s[0].name, "swap_in_pages"); /* by time, then name */
	assert_int_equal(s[0].t_ns, 50);
	assert_string_equal(s[1].name, "gpu_busy_pct");
	assert_false(s[1].absent);
	assert_true(s[1].value == 97);
	assert_string_equal(s[2].name, "gpu_power_w");
	assert_true(s[2].absent);
	/* A present 0 stays a present 0. */
	assert_false(s[3].absent);
	assert_true(s[3].value == 0);
	free(s);
	assert_int_equal(db_samples_read(t.db, ids[0], "gpu_busy_pct", &s, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(s[1].t_ns, 200);
	free(s);

	struct db_metric *m;
	assert_int_equal(db_metrics_read(t.db, ids[0], &m, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(m[0].name, "frames_over_100ms");
	assert_string_equal(m[2].name, "real_fps");
	assert_true(m[2].value == 59.94);
	free(m);
	double v;
	assert_int_equal(db_metric_get(t.db, ids[0], "p95_frame_ms", &v), 0);
	assert_true(v == 21.5);

	struct db_log_line *l;
	assert_int_equal(db_log_lines_read(t.db, ids[0], NULL, &l, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(l[0].text, "vk: readbacks: 3000 reads, 268 waited 23.3 ms each");
	assert_int_equal(l[0].n_captures, 3);
	assert_string_equal(l[0].captures[0], "3000");
	assert_string_equal(l[0].captures[2], "23.3");
	assert_int_equal(l[1].t_ns, 0);
	assert_string_equal(l[1].pattern, "captures");
	assert_int_equal(l[1].n_captures, 2);
	assert_string_equal(l[1].captures[0], "600");
	assert_null(l[1].captures[1]);
	assert_int_equal(l[2].n_captures, 0);
	free(l);
	assert_int_equal(db_log_lines_read(t.db, ids[0], "readbacks", &l, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(l[1].t_ns, 2000);
	free(l);

	struct db_shot *sh;
	assert_int_equal(db_shots_read(t.db, ids[0], &sh, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(sh[0].name, "bridge");
	assert_true(isnan(sh[0].luma));
	assert_null(sh[0].path);
	assert_string_equal(sh[1].path, "/runs/1/forest-entrance.png");
	assert_true(sh[1].luma == 87.25);
	assert_string_equal(sh[1].checksum, "9f86d081");
	free(sh);

	struct db_run *r;
	assert_int_equal(db_run_get(t.db, ids[0], &r), 0);
	assert_int_equal(r->status, DB_RUN_DONE);
	assert_int_equal(r->end_unix_ms, 1750000000999);
	assert_int_equal(r->exit_status, 0);
	assert_string_equal(r->config, in.config);
	free(r);
	tdb_cleanup(&t);
}

static void test_store_results__replaces_earlier_results(void **state)
{
	struct tdb t = { 0 };
	int64_t ids[4];
	start(&t, ids);
	struct db_run_results in = full_results();
	assert_int_equal(db_run_store_results(t.db, ids[0], &in), 0);
	struct db_metric one = { "real_fps", 10 };
	struct db_run_results again = {
		.frames = frames3, .n_frames = 1, .metrics = &one, .n_metrics = 1,
		.status = DB_RUN_VOID, .void_reason = "left the route", .exit_status = -1,
	};
	assert_int_equal(db_run_store_results(t.db, ids[0], &again), 0);
	size_t n;
	struct db_frame *f;
	assert_int_equal(db_frames_read(t.db, ids[0], &f, &n), 0);
	assert_int_equal(n, 1);
	free(f);
	struct db_metric *m;
	assert_int_equal(db_metrics_read(t.db, ids[0], &m, &n), 0);
	assert_int_equal(n, 1);
	assert_true(m[0].value == 10);
	free(m);
	struct db_sample *s;
	assert_int_equal(db_samples_read(t.db, ids[0], NULL, &s, &n), 0);
	assert_int_equal(n, 0);
	free(s);
	struct db_run *r;
	assert_int_equal(db_run_get(t.db, ids[0], &r), 0);
	assert_int_equal(r->status, DB_RUN_VOID);
	assert_string_equal(r->void_reason, "left the route");
	assert_int_equal(r->exit_status, -1);
	assert_string_equal(r->config, in.config); /* NULL config keeps it */
	free(r);
	tdb_cleanup(&t);
}

static void test_store_results__failing_insert_midway_rolls_back_everything(void **state)
{
	struct tdb t = { 0 };
	int64_t ids[4];
	start(&t, ids);
	struct db_run_results in = full_results();
	/* Frames and samples go in first; then the second metric of the
	 * same name fails. */
	struct db_metric dup[] = { { "real_fps", 1 }, { "p50_frame_ms", 2 }, { "real_fps", 3 } };
	in.metrics = dup;
	in.n_metrics = 3;
	assert_int_equal(db_run_store_results(t.db, ids[0], &in), -EEXIST);
	assert_string_equal(db_errmsg(t.db), "metric 'real_fps' of run 1 is already stored");
	check_nothing_stored(&t, ids[0], DB_RUN_RUNNING);

	/* The last part (shots) failing undoes the parts before it too. */
	in = full_results();
	struct db_shot noname = { .name = NULL };
	in.shots = &noname;
	in.n_shots = 1;
	assert_int_equal(db_run_store_results(t.db, ids[0], &in), -EINVAL);
	check_nothing_stored(&t, ids[0], DB_RUN_RUNNING);

	/* Earlier results survive a failed replacement untouched. */
	in = full_results();
	assert_int_equal(db_run_store_results(t.db, ids[0], &in), 0);
	struct db_sample nan_sample = { .t_ns = 1, .name = "gpu_temp_c", .value = NAN };
	struct db_run_results bad = { .samples = &nan_sample, .n_samples = 1,
	                              .status = DB_RUN_DONE };
	assert_int_equal(db_run_store_results(t.db, ids[0], &bad), -EINVAL);
	assert_non_null(strstr(db_errmsg(t.db), "'gpu_temp_c'"));
	assert_non_null(strstr(db_errmsg(t.db), "stored as absent"));
	size_t n;
	struct db_frame *f;
	assert_int_equal(db_frames_read(t.db, ids[0], &f, &n), 0);
	assert_int_equal(n, 3);
	free(f);
	tdb_cleanup(&t);
}

static void test_store_results__bad_frames_and_states_are_refused(void **state)
{
	struct tdb t = { 0 };
	int64_t ids[4];
	start(&t, ids);
	struct db_frame bad[] = { frames3[0], frames3[1] };
	bad[1].frame_ms = INFINITY;
	assert_int_equal(db_frames_store(t.db, ids[0], bad, 2), -EINVAL);
	assert_string_equal(db_errmsg(t.db), "frame 1 of run 1: frame_ms is not a finite number");
	bad[1] = frames3[1];
	bad[1].kind = 7;
	assert_int_equal(db_frames_store(t.db, ids[0], bad, 2), -EINVAL);
	assert_non_null(strstr(db_errmsg(t.db), "kind 7"));
	struct db_run_results r = { .status = DB_RUN_VOID };
	assert_int_equal(db_run_store_results(t.db, ids[0], &r), -EINVAL);
	assert_non_null(strstr(db_errmsg(t.db), "void without a reason"));
	r.status = DB_RUN_RUNNING;
	assert_int_equal(db_run_store_results(t.db, ids[0], &r), -EINVAL);
	r.status = DB_RUN_DONE;
	assert_int_equal(db_run_store_results(t.db, ids[1], &r), -EINVAL);
	assert_non_null(strstr(db_errmsg(t.db), "never started"));
	r.n_frames = 5;
	assert_int_equal(db_run_store_results(t.db, ids[0], &r), -EINVAL);
	assert_int_equal(db_run_store_results(t.db, 999, &(struct db_run_results){
	                 .status = DB_RUN_DONE }), -ENOENT);
	struct db_frame *f;
	size_t n;
	assert_int_equal(db_frames_read(t.db, 999, &f, &n), -ENOENT);
	check_nothing_stored(&t, ids[0], DB_RUN_RUNNING);
	tdb_cleanup(&t);
}

static void test_store_parts__begin_commit_groups_them(void **state)
{
	struct tdb t = { 0 };
	int64_t ids[4];
	start(&t, ids);
	struct db_metric m = { "real_fps", 50 };
	assert_int_equal(db_begin(t.db), 0);
	assert_int_equal(db_frames_store(t.db, ids[0], frames3, 3), 0);
	assert_int_equal(db_metrics_store(t.db, ids[0], &m, 1), 0);
	/* A failing part inside the transaction is undone alone... */
	assert_int_equal(db_metrics_store(t.db, ids[0], &m, 1), -EEXIST);
	double v;
	assert_int_equal(db_metric_get(t.db, ids[0], "real_fps", &v), 0);
	/* ...and the caller decides to drop all of it. */
	assert_int_equal(db_rollback(t.db), 0);
	check_nothing_stored(&t, ids[0], DB_RUN_RUNNING);

	assert_int_equal(db_begin(t.db), 0);
	assert_int_equal(db_frames_store(t.db, ids[0], frames3, 3), 0);
	assert_int_equal(db_metrics_store(t.db, ids[0], &m, 1), 0);
	assert_int_equal(db_run_mark_done(t.db, ids[0], 0, 0), 0);
	assert_int_equal(db_commit(t.db), 0);
	assert_int_equal(db_metric_set(t.db, ids[0], "real_fps", 51), 0);
	assert_int_equal(db_metric_get(t.db, ids[0], "real_fps", &v), 0);
	assert_true(v == 51);
	assert_int_equal(db_metric_get(t.db, ids[0], "nope", &v), -ENOENT);
	tdb_cleanup(&t);
}

/* A process killed in the middle of writing a run's results (after the
 * frames and samples, before the commit) leaves no trace of them. */
static void test_store_results__crash_mid_write_leaves_nothing(void **state)
{
	struct tdb t = { 0 };
	int64_t ids[4];
	start(&t, ids);
	db_close(t.db);
	t.db = NULL;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct db *db;
		if (db_open(t.path, &db) != 0 || db_begin(db) != 0 ||
		    db_frames_store(db, ids[0], frames3, 3) != 0)
			_exit(2);
		struct db_sample s = { .t_ns = 1, .name = "gpu_busy_pct", .value = 50 };
		if (db_samples_store(db, ids[0], &s, 1) != 0)
			_exit(3);
		raise(SIGKILL);
		_exit(4);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	assert_int_equal(db_open(t.path, &t.db), 0);
	check_nothing_stored(&t, ids[0], DB_RUN_RUNNING);
	sqlite3 *s;
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_open(t.path, &s), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(s, "PRAGMA integrity_check", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "ok");
	sqlite3_finalize(st);
	sqlite3_close(s);
	tdb_cleanup(&t);
}

static void test_frames_read__damaged_blob_is_an_error(void **state)
{
	struct tdb t = { 0 };
	int64_t ids[4];
	start(&t, ids);
	assert_int_equal(db_frames_store(t.db, ids[0], frames3, 3), 0);
	sqlite3 *s;
	assert_int_equal(sqlite3_open(t.path, &s), SQLITE_OK);
	assert_int_equal(sqlite3_exec(s, "UPDATE frame_set SET data = substr(data, 1, 50)",
	                              NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(s);
	struct db_frame *f = (struct db_frame *)&t;
	size_t n = 77;
	assert_int_equal(db_frames_read(t.db, ids[0], &f, &n), -EIO);
	assert_ptr_equal(f, (struct db_frame *)&t);
	assert_int_equal(n, 77);
	assert_non_null(strstr(db_errmsg(t.db), "frames of run 1 are damaged"));
	tdb_cleanup(&t);
}

static void test_frames__absent_columns_and_source_round_trip(void **state)
{
	struct tdb t = { 0 };
	int64_t ids[4];
	start(&t, ids);
	struct db_frame in[] = {
		{ .frame = 0, .present_ns = 5000000, .frame_ms = 20.5, .rb_wait_ms = NAN,
		  .memsync_ms = NAN, .draws = 77, .kind = DB_FRAME_REAL, .source = DB_FRAME_MANGOHUD,
		  .absent = DB_FRAME_NO_RB_WAIT_MS | DB_FRAME_NO_MEMSYNC_MS | DB_FRAME_NO_DRAWS },
		{ .frame = 1, .present_ns = 25500000, .frame_ms = 19.5, .kind = DB_FRAME_SHOWN,
		  .source = DB_FRAME_PRESENTMON, .absent = DB_FRAME_NO_DRAWS },
	};
	assert_int_equal(db_frames_store(t.db, ids[0], in, 2), 0);
	struct db_frame *f;
	size_t n;
	assert_int_equal(db_frames_read(t.db, ids[0], &f, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(f[0].absent, in[0].absent);
	assert_int_equal(f[0].source, DB_FRAME_MANGOHUD);
	assert_true(f[0].rb_wait_ms == 0 && f[0].memsync_ms == 0 && f[0].draws == 0);
	assert_true(f[0].frame_ms == 20.5);
	assert_int_equal(f[1].absent, DB_FRAME_NO_DRAWS);
	assert_int_equal(f[1].source, DB_FRAME_PRESENTMON);
	assert_int_equal(f[1].kind, DB_FRAME_SHOWN);
	free(f);

	/* a present column must still be finite; unknown bits and sources are refused */
	in[1].rb_wait_ms = NAN;
	assert_int_equal(db_frames_store(t.db, ids[0], in, 2), -EINVAL);
	assert_string_equal(db_errmsg(t.db), "frame 1 of run 1: rb_wait_ms is not a finite number");
	in[1].rb_wait_ms = 0;
	in[1].absent = 0x10;
	assert_int_equal(db_frames_store(t.db, ids[0], in, 2), -EINVAL);
	in[1].absent = 0;
	in[1].source = 9;
	assert_int_equal(db_frames_store(t.db, ids[0], in, 2), -EINVAL);
	assert_non_null(strstr(db_errmsg(t.db), "source 9"));
	tdb_cleanup(&t);
}

static void test_frames_read__format_1_blob_reads_as_renderer_frames(void **state)
{
	struct tdb t = { 0 };
	int64_t ids[4];
	start(&t, ids);
	/* what a database written before format 2 holds: 45-byte records */
	unsigned char blob[16 + 45] = { 'R', 'X', 'F', 'R', 1, 0, 0, 0, 1 };
	unsigned char *r = blob + 16;
	r[0] = 7;                              /* frame 7 */
	r[8 + 1] = 1;                          /* present_ns 256 */
	double ms = 16.5;
	memcpy(r + 16, &ms, 8);                /* little-endian hosts only: this test's */
	r[40] = 3;                             /* draws */
	sqlite3 *s;
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_open(t.path, &s), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(s, "INSERT INTO frame_set (run_id, n_frames, format, data) "
	                                       "VALUES (?, 1, 1, ?)", -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_int64(st, 1, ids[0]);
	sqlite3_bind_blob(st, 2, blob, sizeof blob, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	sqlite3_close(s);
	struct db_frame *f;
	size_t n;
	assert_int_equal(db_frames_read(t.db, ids[0], &f, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(f[0].frame, 7);
	assert_int_equal(f[0].present_ns, 256);
	assert_int_equal(f[0].draws, 3);
	assert_int_equal(f[0].absent, 0);
	assert_int_equal(f[0].source, DB_FRAME_RXVK);
	if (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
		assert_true(f[0].frame_ms == 16.5);
	free(f);
	tdb_cleanup(&t);
}

static void test_frames__a_million_round_trip(void **state)
{
	struct tdb t = { 0 };
	int64_t ids[4];
	start(&t, ids);
	size_t count = 1000000;
	struct db_frame *in = malloc(count * sizeof *in);
	assert_non_null(in);
	for (size_t i = 0; i < count; i++)
		in[i] = (struct db_frame){ .frame = (int64_t)i, .present_ns = (int64_t)i * 16666667,
		                           .frame_ms = 16.0 + (double)(i % 97) / 7.0,
		                           .draws = (uint32_t)(i * 7), .kind = i & 1 };
	assert_int_equal(db_frames_store(t.db, ids[0], in, count), 0);
	struct db_frame *out;
	size_t n;
	assert_int_equal(db_frames_read(t.db, ids[0], &out, &n), 0);
	assert_int_equal(n, count);
	size_t wrong = 0;
	for (size_t i = 0; i < count; i++)
		wrong += in[i].frame != out[i].frame || in[i].present_ns != out[i].present_ns ||
		         in[i].frame_ms != out[i].frame_ms || in[i].draws != out[i].draws ||
		         in[i].kind != out[i].kind;
	assert_int_equal(wrong, 0);
	free(in);
	free(out);
	tdb_cleanup(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_store_results__reads_back_exactly),
		cmocka_unit_test(test_store_results__replaces_earlier_results),
		cmocka_unit_test(test_store_results__failing_insert_midway_rolls_back_everything),
		cmocka_unit_test(test_store_results__bad_frames_and_states_are_refused),
		cmocka_unit_test(test_store_parts__begin_commit_groups_them),
		cmocka_unit_test(test_store_results__crash_mid_write_leaves_nothing),
		cmocka_unit_test(test_frames_read__damaged_blob_is_an_error),
		cmocka_unit_test(test_frames__a_million_round_trip),
		cmocka_unit_test(test_frames__absent_columns_and_source_round_trip),
		cmocka_unit_test(test_frames_read__format_1_blob_reads_as_renderer_frames),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
