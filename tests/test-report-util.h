/* Helpers shared by the report and forge tests: a database in a fresh
 * temporary folder and campaigns built from known values, so every number
 * a test expects can be worked out by hand. */
#ifndef RXDECK_TEST_REPORT_UTIL_H
#define RXDECK_TEST_REPORT_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "results-db/db.h"

struct trep {
	char dir[PATH_MAX / 2];
	char path[PATH_MAX];
	struct db *db;
	int64_t campaign;
	int64_t arm[8];
	int64_t build;
	int next_position;
};

/* 2026-11-13 22:04:00 UTC, and the finish 8 hours later. */
#define TREP_CREATED_MS INT64_C(1794607440000)
#define TREP_FINISHED_MS (TREP_CREATED_MS + INT64_C(8) * 3600 * 1000)

static inline void trep_dir(struct trep *t)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(t->dir, sizeof t->dir, "%s/rxdeck-report-test-XXXXXX",
	         tmp && tmp[0] ? tmp : "/tmp");
	assert_non_null(mkdtemp(t->dir));
	snprintf(t->path, sizeof t->path, "%s/results.db", t->dir);
}

static inline int trep_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static inline void trep_cleanup(struct trep *t)
{
	db_close(t->db);
	t->db = NULL;
	if (t->dir[0])
		nftw(t->dir, trep_rm, 16, FTW_DEPTH | FTW_PHYS);
}

/* A database with campaign `name` (window 30-110 s, fixed times, host
 * facts) and n_arms arms A.. labelled with labels[i] and env[i]. */
static inline void trep_open(struct trep *t, const char *name, int n_arms,
                             const char *const *labels, const char *const *env)
{
	trep_dir(t);
	assert_int_equal(db_open(t->path, &t->db), 0);
	struct db_campaign c = {
		.name = name,
		.plan_text = "[campaign]\nname = night-1\nroute = routes/kokiri-moving.route\n"
		             "profile = deck\norder = ABBA\nrounds = 2\n\n"
		             "[profile]\nenv = RX_VK_LOG_READBACK_WAITS=1\n\n[build forest]\n"
		             "binary = forest\n\n[arm A]\nlabel = off\n\n[arm B]\n"
		             "label = early readback\nenv = RX_VK_READBACK_EARLY=1\n",
		.host = "steamdeck",
		.device_model = "Steam Deck OLED",
		.os = "SteamOS 3.6.19",
		.kernel = "6.5.0-valve22-1-neptune-65",
		.cpu = "AMD Custom APU 0932",
		.memory_B = INT64_C(16) * 1024 * 1024 * 1024,
		.gpu = "AMD Custom GPU 0932 (RADV VANGOGH)",
		.driver = "radv Mesa 24.1.3",
		.mesa = "24.1.3",
		.route_name = "kokiri-moving",
		.route_text = "route kokiri-moving\nduration 125s\nwindow 30s 110s\n"
		              "30.0s shot forest-entrance\n",
		.window_start_s = 30,
		.window_end_s = 110,
		.order = "ABBA",
		.rounds = 2,
		.warmup = true,
		.created_unix_ms = TREP_CREATED_MS,
	};
	assert_int_equal(db_campaign_create(t->db, &c, &t->campaign), 0);
	assert_int_equal(db_build_add(t->db, &(struct db_build){ .campaign_id = t->campaign,
	                                                         .label = "forest",
	                                                         .commit = "cf605c85",
	                                                         .path = "/opt/rxdeck/bin/rxdeck-forest",
	                                                         .sha256 = "4756e5e7aa00" },
	                              &t->build), 0);
	for (int i = 0; i < n_arms; i++)
		assert_int_equal(db_arm_add(t->db, &(struct db_arm){ .campaign_id = t->campaign,
		                                                      .letter = (char)('A' + i),
		                                                      .label = labels[i],
		                                                      .env = env ? env[i] : NULL },
		                            &t->arm[i]), 0);
	t->next_position = 1;
}

/* Adds a run of arm (index) in round at the next position, finished DONE
 * (or VOID with void_reason) with the n metrics m.  Returns its id. */
static inline int64_t trep_run_store(struct trep *t, int arm, int round, const char *void_reason,
                                     struct db_metric *m, size_t n_metrics)
{
	int pos = t->next_position++;
	struct db_run plan = { .arm_id = t->arm[arm], .round = round, .position = pos };
	assert_int_equal(db_run_plan(t->db, t->campaign, &plan, 1), 0);
	struct db_run *runs;
	size_t n;
	assert_int_equal(db_run_list(t->db, t->campaign, &runs, &n), 0);
	int64_t id = 0;
	for (size_t i = 0; i < n; i++)
		if (runs[i].position == pos)
			id = runs[i].id;
	free(runs);
	int64_t start = TREP_CREATED_MS + (int64_t)pos * 150000;
	assert_int_equal(db_run_mark_running(t->db, id, start, "/tmp/runs/x"), 0);
	struct db_run_results r = {
		.metrics = m, .n_metrics = n_metrics,
		.status = void_reason ? DB_RUN_VOID : DB_RUN_DONE,
		.void_reason = void_reason,
		.end_unix_ms = start + 125000,
		.exit_status = 0,
	};
	assert_int_equal(db_run_store_results(t->db, id, &r), 0);
	return id;
}

/* Adds a run of arm (index) in round, finished DONE (or VOID with reason),
 * with the metrics given as name/value pairs ending with NULL.  Returns
 * its id. */
static inline int64_t trep_run(struct trep *t, int arm, int round, const char *void_reason, ...)
{
	struct db_metric m[32];
	size_t nm = 0;
	va_list ap;
	va_start(ap, void_reason);
	for (const char *k; (k = va_arg(ap, const char *)) != NULL;) {
		m[nm].name = k;
		m[nm].value = va_arg(ap, double);
		nm++;
	}
	va_end(ap);
	return trep_run_store(t, arm, round, void_reason, m, nm);
}

/* Frames of a run at exactly fps real frames a second from t0 + 0 to
 * t0 + 125 s, so (30 s, 110 s] holds exactly 80 * fps of them when 80 * fps
 * is whole; the run's route start t0 is stored with them.  rb_wait_ms 2.0,
 * memsync_ms 1.0 and 1200 draws a frame. */
static inline void trep_frames_at(struct trep *t, int64_t run_id, int64_t t0_ns, double fps)
{
	size_t n = (size_t)(125 * fps);
	struct db_frame *f = calloc(n + 1, sizeof *f);
	assert_non_null(f);
	for (size_t i = 0; i <= n; i++) {
		f[i].frame = (int64_t)i;
		/* i / fps seconds, rounded to the ns */
		f[i].present_ns = t0_ns + (int64_t)llround((double)i * 1e9 / fps);
		f[i].frame_ms = 1000.0 / fps;
		f[i].rb_wait_ms = 2.0;
		f[i].memsync_ms = 1.0;
		f[i].draws = 1200;
		f[i].kind = DB_FRAME_REAL;
	}
	assert_int_equal(db_frames_store(t->db, run_id, f, n + 1), 0);
	free(f);
	assert_int_equal(db_metric_set(t->db, run_id, "route_t0_ns", (double)t0_ns), 0);
}

/* Host facts of the campaign: the start's (TREP_CREATED_MS), then a resume
 * an hour later that found the kernel and swappiness changed. */
#define TREP_RESUME_MS (TREP_CREATED_MS + INT64_C(3600) * 1000)
static inline void trep_host_facts(struct trep *t)
{
	assert_int_equal(db_host_facts_add(t->db, t->campaign, &(struct db_host_facts){
	                 .at_unix_ms = TREP_CREATED_MS, .event = "start",
	                 .facts = "{\"kernel\":\"6.5.0-a\",\"swappiness\":100,\"tdp_w\":15,"
	                          "\"zram_B\":null,\"power\":\"ac <mains>\"}" }), 0);
	assert_int_equal(db_host_facts_add(t->db, t->campaign, &(struct db_host_facts){
	                 .at_unix_ms = TREP_RESUME_MS, .event = "resume",
	                 .facts = "{\"kernel\":\"6.5.0-b\",\"swappiness\":1,\"tdp_w\":15,"
	                          "\"zram_B\":null,\"power\":\"ac <mains>\"}",
	                 .changes = "kernel: \"6.5.0-a\" -> \"6.5.0-b\"\nswappiness: 100 -> 1" }), 0);
}

#endif
