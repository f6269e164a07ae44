/* Helpers shared by the results-db tests: a fresh temporary folder per
 * test, a database in it, and a small campaign to work on. */
#ifndef RXDECK_TEST_DB_UTIL_H
#define RXDECK_TEST_DB_UTIL_H

#include "results-db/db.h"

#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct tdb {
	char dir[PATH_MAX / 2];
	char path[PATH_MAX];
	struct db *db;
	int64_t campaign;
	int64_t arm_a, arm_b;
};

static inline void tdb_dir(struct tdb *t)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(t->dir, sizeof t->dir, "%s/rxdeck-db-test-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
	assert_non_null(mkdtemp(t->dir));
	snprintf(t->path, sizeof t->path, "%s/results.db", t->dir);
}

static inline int tdb_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static inline void tdb_cleanup(struct tdb *t)
{
	db_close(t->db);
	t->db = NULL;
	if (t->dir[0])
		nftw(t->dir, tdb_rm, 16, FTW_DEPTH | FTW_PHYS);
}

/* A database with one campaign "c1" of two arms A and B. */
static inline void tdb_open_campaign(struct tdb *t)
{
	tdb_dir(t);
	assert_int_equal(db_open(t->path, &t->db), 0);
	struct db_campaign c = {
		.name = "c1", .route_name = "kokiri-moving", .window_start_s = 30,
		.window_end_s = 110, .order = "ABBA", .rounds = 2,
	};
	assert_int_equal(db_campaign_create(t->db, &c, &t->campaign), 0);
	assert_int_equal(db_arm_add(t->db, &(struct db_arm){ .campaign_id = t->campaign,
	                                                     .letter = 'A', .label = "base" },
	                            &t->arm_a), 0);
	assert_int_equal(db_arm_add(t->db, &(struct db_arm){ .campaign_id = t->campaign,
	                                                     .letter = 'B', .label = "early",
	                                                     .env = "RX_VK_READBACK_EARLY=1" },
	                            &t->arm_b), 0);
}

/* Plans ABBA (positions 1..4) and returns the runs' ids in order. */
static inline void tdb_plan_abba(struct tdb *t, int64_t ids[4])
{
	struct db_run plan[4] = {
		{ .arm_id = t->arm_a, .round = 1, .position = 1 },
		{ .arm_id = t->arm_b, .round = 1, .position = 2 },
		{ .arm_id = t->arm_b, .round = 1, .position = 3 },
		{ .arm_id = t->arm_a, .round = 1, .position = 4 },
	};
	assert_int_equal(db_run_plan(t->db, t->campaign, plan, 4), 0);
	struct db_run *runs;
	size_t n;
	assert_int_equal(db_run_list(t->db, t->campaign, &runs, &n), 0);
	assert_int_equal(n, 4);
	for (int i = 0; i < 4; i++)
		ids[i] = runs[i].id;
	free(runs);
}

#endif
