/* results-db: schema migrations from every earlier version, with data in
 * the file, and a failing step that must leave the previous version. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sqlite3.h>

#include "test-db-util.h"

static void raw_exec(const char *path, const char *sql)
{
	sqlite3 *s;
	assert_int_equal(sqlite3_open(path, &s), SQLITE_OK);
	char *msg = NULL;
	int rc = sqlite3_exec(s, sql, NULL, NULL, &msg);
	if (rc != SQLITE_OK)
		fail_msg("%s", msg);
	sqlite3_close(s);
}

static int64_t raw_int(const char *path, const char *sql)
{
	sqlite3 *s;
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_open(path, &s), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(s, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	int64_t v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(s);
	return v;
}

/* A file left at schema version v, as an older rxdeck wrote it. */
static void make_at_version(struct tdb *t, int v)
{
	tdb_dir(t);
	struct db_open_options o = { .flags = DB_OPEN_NO_MIGRATE };
	struct db *db;
	assert_int_equal(db_open_ex(t->path, &o, &db), 0);
	int got = -1;
	assert_int_equal(db_schema_version(db, &got), 0);
	assert_int_equal(got, 0);
	if (v > 0)
		assert_int_equal(db_migrate(db, v), 0);
	assert_int_equal(db_schema_version(db, &got), 0);
	assert_int_equal(got, v);
	db_close(db);
}

/* Rows as version 1 stored them: written with plain SQL, not the
 * current API, so the data is exactly what an old file holds. */
static void fill_v1(const char *path)
{
	raw_exec(path,
	         "INSERT INTO campaign (id, name, host, window_start_s, window_end_s, run_order, "
	         " rounds, warmup, status, created_unix_ms) VALUES "
	         " (1, 'old', 'deck', 30, 110, 'ABBA', 1, 0, 'done', 1700000000000);"
	         "INSERT INTO build (id, campaign_id, label, git_commit) VALUES (1, 1, 'main', 'abc');"
	         "INSERT INTO arm (id, campaign_id, letter, label, env, build_id) VALUES "
	         " (1, 1, 'A', 'base', '', 1), (2, 1, 'B', 'early', 'RX_VK_READBACK_EARLY=1', 1);"
	         "INSERT INTO run (id, campaign_id, arm_id, round, position, status, exit_status) "
	         " VALUES (1, 1, 1, 1, 1, 'done', 0), (2, 1, 2, 1, 2, 'done', 0),"
	         " (3, 1, 2, 1, 3, 'planned', NULL);"
	         "INSERT INTO run (id, campaign_id, arm_id, round, position, status, void_reason) "
	         " VALUES (4, 1, 1, 1, 4, 'void', 'hung: no frame for 10 s');"
	         "INSERT INTO metric (run_id, name, value) VALUES (1, 'real_fps', 41.5), "
	         " (2, 'real_fps', 47.25);"
	         "INSERT INTO sample (run_id, t_ns, name, value) VALUES (1, 5, 'gpu_busy_pct', NULL);");
}

static void check_v1_data_at_current(struct tdb *t)
{
	struct db_campaign *c;
	assert_int_equal(db_campaign_find(t->db, "old", &c), 0);
	assert_string_equal(c->host, "deck");
	assert_int_equal(c->status, DB_CAMPAIGN_DONE);
	assert_int_equal(c->created_unix_ms, 1700000000000);
	int64_t cid = c->id;
	free(c);
	struct db_run *r;
	size_t n;
	assert_int_equal(db_run_list(t->db, cid, &r, &n), 0);
	assert_int_equal(n, 4);
	assert_int_equal(r[1].arm_letter, 'B');
	assert_null(r[1].config);            /* v2's column, empty for old runs */
	assert_int_equal(r[3].status, DB_RUN_VOID);
	assert_string_equal(r[3].void_reason, "hung: no frame for 10 s");
	assert_int_equal(r[2].exit_status, -1);
	free(r);
	double fps;
	assert_int_equal(db_metric_get(t->db, 2, "real_fps", &fps), 0);
	assert_true(fps == 47.25);
	struct db_sample *s;
	assert_int_equal(db_samples_read(t->db, 1, NULL, &s, &n), 0);
	assert_int_equal(n, 1);
	assert_true(s[0].absent);
	free(s);
	struct db_run *next;
	assert_int_equal(db_run_next(t->db, cid, &next), 0);
	assert_int_equal(next->position, 3);
	free(next);
}

/* What version 2 added works on a migrated file. */
static void check_v2_features(struct tdb *t, int64_t campaign_id)
{
	int64_t post;
	assert_int_equal(db_post_enqueue(t->db, &(struct db_post){ .campaign_id = campaign_id,
	                                 .forge_url = "http://127.0.0.1:3000", .repo = "o/r",
	                                 .issue_index = 7, .body = "table" }, &post), 0);
	struct db_route_mark mark = { .t_s = 30, .name = "forest-entrance", .kind = "shot" };
	assert_int_equal(db_route_marks_store(t->db, campaign_id, &mark, 1), 0);
	assert_int_equal(db_run_mark_running(t->db, 3, 0, "/runs/3"), 0);
	assert_int_equal(db_run_store_results(t->db, 3, &(struct db_run_results){
	                         .status = DB_RUN_DONE, .config = "RX_VK_READBACK_EARLY=1" }), 0);
	struct db_run *r;
	assert_int_equal(db_run_get(t->db, 3, &r), 0);
	assert_string_equal(r->config, "RX_VK_READBACK_EARLY=1");
	free(r);
}

/* What version 3 added works on a migrated file: host facts per campaign,
 * only a JSON object, gone with their campaign. */
static void check_v3_features(struct tdb *t, int64_t campaign_id)
{
	assert_int_equal(db_host_facts_add(t->db, campaign_id, &(struct db_host_facts){
	                         .at_unix_ms = 5, .event = "start",
	                         .facts = "{\"device_model\":\"Steam Deck LCD\"}" }), 0);
	assert_int_equal(db_host_facts_add(t->db, campaign_id, &(struct db_host_facts){
	                         .at_unix_ms = 9, .event = "resume", .facts = "{\"kernel\":\"6.5\"}",
	                         .changes = "kernel: '6.1' -> '6.5'" }), 0);
	assert_int_equal(db_host_facts_add(t->db, campaign_id, &(struct db_host_facts){
	                         .event = "start", .facts = "[1]" }), -EINVAL);
	assert_int_equal(db_host_facts_add(t->db, campaign_id, &(struct db_host_facts){
	                         .event = "later", .facts = "{}" }), -EINVAL);
	assert_int_equal(db_host_facts_add(t->db, 999, &(struct db_host_facts){
	                         .event = "start", .facts = "{}" }), -ENOENT);
	struct db_host_facts *h;
	size_t n;
	assert_int_equal(db_host_facts_list(t->db, campaign_id, &h, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(h[0].event, "start");
	assert_null(h[0].changes);
	assert_int_equal(h[1].at_unix_ms, 9);
	assert_string_equal(h[1].changes, "kernel: '6.1' -> '6.5'");
	free(h);
	assert_int_equal(db_campaign_delete(t->db, campaign_id), 0);
	assert_int_equal(raw_int(t->path, "SELECT count(*) FROM host_facts"), 0);
}

/* What version 4 added works on a migrated file: why a finished campaign
 * stopped, none for a campaign finished before it, cleared when it opens
 * again, only the run loop's words. */
static void check_v4_features(struct tdb *t, int64_t campaign_id)
{
	char why[16] = "x";
	assert_int_equal(db_campaign_stop_reason(t->db, campaign_id, why, sizeof why), 0);
	assert_string_equal(why, ""); /* finished before version 4 */
	assert_int_equal(db_campaign_set_stop_reason(t->db, campaign_id, "max_rounds"), 0);
	assert_int_equal(db_campaign_stop_reason(t->db, campaign_id, why, sizeof why), 0);
	assert_string_equal(why, "max_rounds");
	assert_int_equal(db_campaign_set_stop_reason(t->db, campaign_id, "tired"), -EINVAL);
	assert_non_null(strstr(db_errmsg(t->db), "unknown stop reason 'tired'"));
	assert_int_equal(db_campaign_set_stop_reason(t->db, 999, "deadline"), -ENOENT);
	assert_int_equal(db_campaign_stop_reason(t->db, 999, why, sizeof why), -ENOENT);
	/* the column refuses another word written behind the API's back */
	sqlite3 *s;
	assert_int_equal(sqlite3_open(t->path, &s), SQLITE_OK);
	assert_int_not_equal(sqlite3_exec(s, "UPDATE campaign SET stop_reason = 'x'", NULL, NULL,
	                                  NULL), SQLITE_OK);
	sqlite3_close(s);
	/* the rest of the campaign reads as before */
	struct db_campaign *c;
	assert_int_equal(db_campaign_get(t->db, campaign_id, &c), 0);
	assert_int_equal(c->status, DB_CAMPAIGN_DONE);
	free(c);
	assert_int_equal(db_campaign_set_status(t->db, campaign_id, DB_CAMPAIGN_OPEN, 0), 0);
	assert_int_equal(db_campaign_stop_reason(t->db, campaign_id, why, sizeof why), 0);
	assert_string_equal(why, "");
	assert_int_equal(db_campaign_set_status(t->db, campaign_id, DB_CAMPAIGN_DONE, 0), 0);
}

static void test_migrate__from_every_earlier_version(void **state)
{
	for (int v = 0; v < DB_SCHEMA_VERSION; v++) {
		struct tdb t = { 0 };
		make_at_version(&t, v);
		if (v >= 1)
			fill_v1(t.path);
		assert_int_equal(db_open(t.path, &t.db), 0);
		int got;
		assert_int_equal(db_schema_version(t.db, &got), 0);
		assert_int_equal(got, DB_SCHEMA_VERSION);
		if (v >= 1) {
			check_v1_data_at_current(&t);
			check_v2_features(&t, 1);
			check_v4_features(&t, 1);
			check_v3_features(&t, 1);
		}
		assert_int_equal(raw_int(t.path, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
		assert_int_equal(raw_int(t.path, "PRAGMA application_id"), 0x52584442);
		tdb_cleanup(&t);
	}
}

static void test_migrate__opening_a_v1_file_upgrades_it(void **state)
{
	struct tdb t = { 0 };
	make_at_version(&t, 1);
	fill_v1(t.path);
	assert_int_equal(raw_int(t.path, "SELECT count(*) FROM sqlite_schema WHERE name = 'post'"), 0);
	assert_int_equal(db_open(t.path, &t.db), 0);
	db_close(t.db);
	t.db = NULL;
	assert_int_equal(raw_int(t.path, "PRAGMA user_version"), DB_SCHEMA_VERSION);
	assert_int_equal(raw_int(t.path, "SELECT count(*) FROM sqlite_schema WHERE name = 'post'"), 1);
	assert_int_equal(raw_int(t.path, "SELECT count(*) FROM sqlite_schema "
	                                 "WHERE name = 'host_facts'"), 1);
	assert_int_equal(raw_int(t.path, "SELECT count(*) FROM pragma_table_info('run') "
	                                 "WHERE name = 'config'"), 1);
	assert_int_equal(raw_int(t.path, "SELECT count(*) FROM run"), 4);
	tdb_cleanup(&t);
}

static void test_migrate__no_migrate_flag_leaves_the_version(void **state)
{
	struct tdb t = { 0 };
	make_at_version(&t, 1);
	struct db_open_options o = { .flags = DB_OPEN_NO_MIGRATE };
	assert_int_equal(db_open_ex(t.path, &o, &t.db), 0);
	int v;
	assert_int_equal(db_schema_version(t.db, &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(db_migrate(t.db, 0), 0);
	assert_int_equal(db_schema_version(t.db, &v), 0);
	assert_int_equal(v, DB_SCHEMA_VERSION);
	/* Already there: nothing to do. */
	assert_int_equal(db_migrate(t.db, DB_SCHEMA_VERSION), 0);
	tdb_cleanup(&t);
}

static void test_migrate__down_or_unknown_is_refused(void **state)
{
	struct tdb t = { 0 };
	tdb_dir(&t);
	assert_int_equal(db_open(t.path, &t.db), 0);
	assert_int_equal(db_migrate(t.db, 1), -EINVAL);
	assert_non_null(strstr(db_errmsg(t.db), "cannot go back to 1"));
	assert_int_equal(db_migrate(t.db, DB_SCHEMA_VERSION + 1), -EINVAL);
	assert_int_equal(db_migrate(t.db, -3), -EINVAL);
	tdb_cleanup(&t);
}

static void test_migrate__failing_step_leaves_the_previous_version(void **state)
{
	struct tdb t = { 0 };
	make_at_version(&t, 1);
	fill_v1(t.path);
	/* Something in the way of v2's new table. */
	raw_exec(t.path, "CREATE TABLE post (x)");
	char msg[512] = "";
	struct db_open_options o = { .errmsg = msg, .errmsg_size = sizeof msg };
	assert_int_not_equal(db_open_ex(t.path, &o, &t.db), 0);
	assert_non_null(strstr(msg, "cannot migrate database"));
	assert_non_null(strstr(msg, "to schema version 2"));
	assert_int_equal(raw_int(t.path, "PRAGMA user_version"), 1);
	/* v2's first statement (a column on run) was undone with the rest. */
	assert_int_equal(raw_int(t.path, "SELECT count(*) FROM pragma_table_info('run') "
	                                 "WHERE name = 'config'"), 0);
	assert_int_equal(raw_int(t.path, "SELECT count(*) FROM run"), 4);
	tdb_cleanup(&t);
}

static void test_migrate__read_only_old_file_is_readable_not_migrated(void **state)
{
	struct tdb t = { 0 };
	make_at_version(&t, 1);
	fill_v1(t.path);
	struct db_open_options o = { .flags = DB_OPEN_READ_ONLY };
	assert_int_equal(db_open_ex(t.path, &o, &t.db), 0);
	int v;
	assert_int_equal(db_schema_version(t.db, &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(db_migrate(t.db, 0), -EROFS);
	assert_non_null(strstr(db_errmsg(t.db), "rxdeck db migrate"));
	tdb_cleanup(&t);
}

/* A file of the previous version (3) opened read-only: its finished
 * campaign reads, with no stored stop reason (the report derives it). */
static void test_migrate__read_only_v3_file_has_no_stop_reason(void **state)
{
	struct tdb t = { 0 };
	make_at_version(&t, 3);
	fill_v1(t.path);
	struct db_open_options o = { .flags = DB_OPEN_READ_ONLY };
	assert_int_equal(db_open_ex(t.path, &o, &t.db), 0);
	check_v1_data_at_current(&t);
	char why[16] = "x";
	assert_int_equal(db_campaign_stop_reason(t.db, 1, why, sizeof why), 0);
	assert_string_equal(why, "");
	tdb_cleanup(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_migrate__from_every_earlier_version),
		cmocka_unit_test(test_migrate__opening_a_v1_file_upgrades_it),
		cmocka_unit_test(test_migrate__no_migrate_flag_leaves_the_version),
		cmocka_unit_test(test_migrate__down_or_unknown_is_refused),
		cmocka_unit_test(test_migrate__failing_step_leaves_the_previous_version),
		cmocka_unit_test(test_migrate__read_only_old_file_is_readable_not_migrated),
		cmocka_unit_test(test_migrate__read_only_v3_file_has_no_stop_reason),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
