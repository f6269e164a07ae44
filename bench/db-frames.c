/* bench-db-frames: how a run's frames are best kept in SQLite.
 *
 * Stores and reads back N frames (default 1,000,000: a long run) two ways
 * in a fresh WAL database: one row per frame, and one packed little-endian
 * blob per run (the layout results-db uses, written and read through
 * db_frames_store()/db_frames_read()).  Prints each way's store time, read
 * time and file size.  The numbers are in docs/performance.md.
 *
 *   bench-db-frames [N] [FOLDER]
 */
#include "results-db/db.h"

#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void make_frames(struct db_frame *f, size_t n)
{
	int64_t t = 1000000000;
	uint32_t seed = 12345;
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1664525u + 1013904223u;
		double ms = 14.0 + (double)(seed >> 24) / 64.0;
		t += (int64_t)(ms * 1e6);
		f[i] = (struct db_frame){
			.frame = (int64_t)i,
			.present_ns = t,
			.frame_ms = ms,
			.rb_wait_ms = (double)(seed & 0xff) / 100.0,
			.memsync_ms = (double)((seed >> 8) & 0xff) / 200.0,
			.draws = 1000 + (seed >> 22),
			.kind = (i % 3 == 2) ? DB_FRAME_SHOWN : DB_FRAME_REAL,
		};
	}
}

static long long file_size_B(const char *path)
{
	struct stat st;
	char wal[4200];
	long long size = 0;
	if (stat(path, &st) == 0)
		size += st.st_size;
	snprintf(wal, sizeof wal, "%s-wal", path);
	if (stat(wal, &st) == 0)
		size += st.st_size;
	return size;
}

static int check(int rc, sqlite3 *s, const char *what)
{
	if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
		fprintf(stderr, "bench-db-frames: %s: %s\n", what, sqlite3_errmsg(s));
		exit(1);
	}
	return rc;
}

/* One row per frame, raw SQLite, same pragmas as results-db. */
static void bench_rows(const char *path, const struct db_frame *f, size_t n)
{
	sqlite3 *s;
	unlink(path);
	check(sqlite3_open(path, &s), s, "open");
	check(sqlite3_exec(s, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
	                      "CREATE TABLE frame(run INTEGER NOT NULL, idx INTEGER NOT NULL,"
	                      " frame INTEGER, present_ns INTEGER, kind TEXT, frame_ms REAL,"
	                      " draws INTEGER, rb_wait_ms REAL, memsync_ms REAL,"
	                      " PRIMARY KEY(run, idx)) WITHOUT ROWID;",
	                   NULL, NULL, NULL), s, "schema");
	double t0 = now_s();
	sqlite3_stmt *st;
	check(sqlite3_exec(s, "BEGIN", NULL, NULL, NULL), s, "begin");
	check(sqlite3_prepare_v2(s, "INSERT INTO frame VALUES(1,?,?,?,?,?,?,?,?)", -1, &st, NULL),
	      s, "prepare");
	for (size_t i = 0; i < n; i++) {
		sqlite3_bind_int64(st, 1, (sqlite3_int64)i);
		sqlite3_bind_int64(st, 2, f[i].frame);
		sqlite3_bind_int64(st, 3, f[i].present_ns);
		sqlite3_bind_text(st, 4, f[i].kind ? "shown" : "real", -1, SQLITE_STATIC);
		sqlite3_bind_double(st, 5, f[i].frame_ms);
		sqlite3_bind_int64(st, 6, f[i].draws);
		sqlite3_bind_double(st, 7, f[i].rb_wait_ms);
		sqlite3_bind_double(st, 8, f[i].memsync_ms);
		check(sqlite3_step(st), s, "insert");
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	check(sqlite3_exec(s, "COMMIT", NULL, NULL, NULL), s, "commit");
	double t1 = now_s();
	struct db_frame *back = malloc(n * sizeof *back);
	check(sqlite3_prepare_v2(s, "SELECT frame,present_ns,kind,frame_ms,draws,rb_wait_ms,"
	                            "memsync_ms FROM frame WHERE run=1 ORDER BY idx",
	                         -1, &st, NULL), s, "prepare");
	size_t k = 0;
	while (check(sqlite3_step(st), s, "select") == SQLITE_ROW && k < n) {
		back[k].frame = sqlite3_column_int64(st, 0);
		back[k].present_ns = sqlite3_column_int64(st, 1);
		back[k].kind = strcmp((const char *)sqlite3_column_text(st, 2), "shown") == 0;
		back[k].frame_ms = sqlite3_column_double(st, 3);
		back[k].draws = (uint32_t)sqlite3_column_int64(st, 4);
		back[k].rb_wait_ms = sqlite3_column_double(st, 5);
		back[k].memsync_ms = sqlite3_column_double(st, 6);
		k++;
	}
	sqlite3_finalize(st);
	double t2 = now_s();
	sqlite3_close(s);
	if (k != n || back[n - 1].present_ns != f[n - 1].present_ns) {
		fprintf(stderr, "bench-db-frames: rows read back wrong\n");
		exit(1);
	}
	free(back);
	printf("rows: store %.3f s, read %.3f s, file %.1f MB\n", t1 - t0, t2 - t1,
	       (double)file_size_B(path) / 1e6);
}

/* The results-db way: the API's packed blob. */
static void bench_blob(const char *path, const struct db_frame *f, size_t n)
{
	struct db *db;
	int64_t campaign, arm;
	unlink(path);
	if (db_open(path, &db) < 0 ||
	    db_campaign_create(db, &(struct db_campaign){ .name = "bench" }, &campaign) < 0 ||
	    db_arm_add(db, &(struct db_arm){ .campaign_id = campaign, .letter = 'A' }, &arm) < 0 ||
	    db_run_plan(db, campaign,
	                &(struct db_run){ .arm_id = arm, .round = 1, .position = 1 }, 1) < 0) {
		fprintf(stderr, "bench-db-frames: cannot set up '%s'\n", path);
		exit(1);
	}
	struct db_run *runs;
	size_t nruns;
	db_run_list(db, campaign, &runs, &nruns);
	int64_t run = runs[0].id;
	free(runs);
	double t0 = now_s();
	if (db_frames_store(db, run, f, n) < 0) {
		fprintf(stderr, "bench-db-frames: %s\n", db_errmsg(db));
		exit(1);
	}
	double t1 = now_s();
	struct db_frame *back;
	size_t k;
	if (db_frames_read(db, run, &back, &k) < 0) {
		fprintf(stderr, "bench-db-frames: %s\n", db_errmsg(db));
		exit(1);
	}
	double t2 = now_s();
	if (k != n || memcmp(&back[n - 1].present_ns, &f[n - 1].present_ns, 8) != 0) {
		fprintf(stderr, "bench-db-frames: blob read back wrong\n");
		exit(1);
	}
	free(back);
	db_close(db);
	printf("blob: store %.3f s, read %.3f s, file %.1f MB\n", t1 - t0, t2 - t1,
	       (double)file_size_B(path) / 1e6);
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
	const char *dir = argc > 2 ? argv[2] : "/tmp";
	if (n == 0) {
		fprintf(stderr, "usage: bench-db-frames [N] [FOLDER]\n");
		return 2;
	}
	struct db_frame *f = malloc(n * sizeof *f);
	if (!f)
		return 1;
	make_frames(f, n);
	char rows[4096], blob[4096];
	snprintf(rows, sizeof rows, "%s/bench-frames-rows-%d.db", dir, (int)getpid());
	snprintf(blob, sizeof blob, "%s/bench-frames-blob-%d.db", dir, (int)getpid());
	printf("%zu frames\n", n);
	bench_rows(rows, f, n);
	bench_blob(blob, f, n);
	for (const char *p = rows; p; p = p == rows ? blob : NULL) {
		char side[4200];
		unlink(p);
		snprintf(side, sizeof side, "%s-wal", p);
		unlink(side);
		snprintf(side, sizeof side, "%s-shm", p);
		unlink(side);
	}
	free(f);
	return 0;
}
