/* results-db: opening, the default path, refusing files that are not
 * ours or are newer, read-only handles, and transactions. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <sys/stat.h>

#include "test-db-util.h"

static void raw_exec(const char *path, const char *sql)
{
	sqlite3 *s;
	assert_int_equal(sqlite3_open(path, &s), SQLITE_OK);
	assert_int_equal(sqlite3_exec(s, sql, NULL, NULL, NULL), SQLITE_OK);
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

static void test_open__creates_parents_in_wal_at_current_schema(void **state)
{
	struct tdb t = { 0 };
	tdb_dir(&t);
	char path[PATH_MAX + 32];
	snprintf(path, sizeof path, "%s/a/b/results.db", t.dir);
	struct db *db;
	assert_int_equal(db_open(path, &db), 0);
	assert_string_equal(db_path(db), path);
	int v = -1;
	assert_int_equal(db_schema_version(db, &v), 0);
	assert_int_equal(v, DB_SCHEMA_VERSION);
	db_close(db);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	char parent[PATH_MAX + 32];
	snprintf(parent, sizeof parent, "%s/a/b", t.dir);
	assert_int_equal(stat(parent, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);

	sqlite3 *s;
	sqlite3_stmt *q;
	assert_int_equal(sqlite3_open(path, &s), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(s, "PRAGMA journal_mode", -1, &q, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(q, 0), "wal");
	sqlite3_finalize(q);
	sqlite3_close(s);
	assert_int_equal(raw_int(path, "PRAGMA application_id"), 0x52584442);
	tdb_cleanup(&t);
}

static void test_open__enforces_foreign_keys(void **state)
{
	struct tdb t = { 0 };
	tdb_dir(&t);
	assert_int_equal(db_open(t.path, &t.db), 0);
	int64_t id = 77;
	assert_int_equal(db_build_add(t.db, &(struct db_build){ .campaign_id = 42, .label = "x" },
	                              &id), -ENOENT);
	assert_int_equal(id, 77);
	assert_non_null(strstr(db_errmsg(t.db), "no campaign with id 42"));
	tdb_cleanup(&t);
}

static void test_default_path__xdg_then_home(void **state)
{
	char *p = NULL;
	setenv("XDG_DATA_HOME", "/data/xdg", 1);
	setenv("HOME", "/home/deck", 1);
	assert_int_equal(db_default_path(&p), 0);
	assert_string_equal(p, "/data/xdg/rxdeck/results.db");
	free(p);
	setenv("XDG_DATA_HOME", "relative/ignored", 1);
	assert_int_equal(db_default_path(&p), 0);
	assert_string_equal(p, "/home/deck/.local/share/rxdeck/results.db");
	free(p);
	unsetenv("XDG_DATA_HOME");
	assert_int_equal(db_default_path(&p), 0);
	assert_string_equal(p, "/home/deck/.local/share/rxdeck/results.db");
	free(p);
	unsetenv("HOME");
	p = (char *)"untouched";
	assert_int_equal(db_default_path(&p), -ENOENT);
	assert_string_equal(p, "untouched");
}

static void test_open__null_path_uses_default(void **state)
{
	struct tdb t = { 0 };
	tdb_dir(&t);
	setenv("XDG_DATA_HOME", t.dir, 1);
	assert_int_equal(db_open(NULL, &t.db), 0);
	char expect[PATH_MAX + 32];
	snprintf(expect, sizeof expect, "%s/rxdeck/results.db", t.dir);
	assert_string_equal(db_path(t.db), expect);
	assert_int_equal(access(expect, F_OK), 0);
	unsetenv("XDG_DATA_HOME");
	tdb_cleanup(&t);
}

static void test_open__no_create_reports_missing_file(void **state)
{
	struct tdb t = { 0 };
	tdb_dir(&t);
	char msg[256] = "";
	struct db *db = (struct db *)&t;
	struct db_open_options o = { .flags = DB_OPEN_NO_CREATE, .errmsg = msg, .errmsg_size = sizeof msg };
	assert_int_equal(db_open_ex(t.path, &o, &db), -ENOENT);
	assert_ptr_equal(db, (struct db *)&t);
	assert_non_null(strstr(msg, "cannot open database '"));
	assert_non_null(strstr(msg, "No such file or directory"));
	assert_int_equal(access(t.path, F_OK), -1);
	o.flags = DB_OPEN_READ_ONLY;
	assert_int_equal(db_open_ex(t.path, &o, &db), -ENOENT);
	assert_int_equal(access(t.path, F_OK), -1);
	tdb_cleanup(&t);
}

/* SQLite takes a 0-byte file for a new database; an open that must find
 * one (read-only, or no create) refuses it and leaves it empty. */
static void test_open__must_exist_refuses_an_empty_file(void **state)
{
	struct tdb t = { 0 };
	tdb_dir(&t);
	FILE *f = fopen(t.path, "w");
	assert_non_null(f);
	fclose(f);
	static const unsigned flags[] = { DB_OPEN_READ_ONLY, DB_OPEN_NO_CREATE,
		                          DB_OPEN_NO_CREATE | DB_OPEN_NO_MIGRATE };
	for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
		char msg[512] = "";
		struct db *db = NULL;
		struct db_open_options o = { .flags = flags[i], .errmsg = msg,
			                     .errmsg_size = sizeof msg };
		assert_int_equal(db_open_ex(t.path, &o, &db), -EINVAL);
		assert_null(db);
		assert_non_null(strstr(msg, "is not an rxdeck database: it is empty"));
		struct stat st;
		assert_int_equal(stat(t.path, &st), 0);
		assert_int_equal(st.st_size, 0);
	}
	/* allowed to create, it makes the database in it */
	assert_int_equal(db_open(t.path, &t.db), 0);
	tdb_cleanup(&t);
}

static void test_open__refuses_a_file_that_is_not_sqlite(void **state)
{
	struct tdb t = { 0 };
	tdb_dir(&t);
	FILE *f = fopen(t.path, "w");
	assert_non_null(f);
	for (int i = 0; i < 200; i++)
		fputs("this is a route file, not a database\n", f);
	fclose(f);
	char msg[256] = "";
	struct db *db;
	struct db_open_options o = { .errmsg = msg, .errmsg_size = sizeof msg };
	assert_int_equal(db_open_ex(t.path, &o, &db), -EINVAL);
	assert_non_null(strstr(msg, "not a database"));
	assert_non_null(strstr(msg, t.path));
	tdb_cleanup(&t);
}

static void test_open__refuses_another_programs_database(void **state)
{
	struct tdb t = { 0 };
	tdb_dir(&t);
	raw_exec(t.path, "CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT);");
	char msg[256] = "";
	struct db *db;
	struct db_open_options o = { .errmsg = msg, .errmsg_size = sizeof msg };
	assert_int_equal(db_open_ex(t.path, &o, &db), -EINVAL);
	assert_non_null(strstr(msg, "another program"));
	/* Untouched: no rxdeck table was added. */
	assert_int_equal(raw_int(t.path, "SELECT count(*) FROM sqlite_schema WHERE name = 'run'"), 0);
	raw_exec(t.path, "DROP TABLE moz_places; PRAGMA application_id = 1234;");
	assert_int_equal(db_open_ex(t.path, &o, &db), -EINVAL);
	assert_non_null(strstr(msg, "application id 0x000004d2"));
	tdb_cleanup(&t);
}

static void test_open__refuses_a_newer_schema_untouched(void **state)
{
	struct tdb t = { 0 };
	tdb_dir(&t);
	assert_int_equal(db_open(t.path, &t.db), 0);
	db_close(t.db);
	t.db = NULL;
	raw_exec(t.path, "PRAGMA user_version = 99");
	char msg[256] = "";
	struct db *db;
	struct db_open_options o = { .errmsg = msg, .errmsg_size = sizeof msg };
	assert_int_equal(db_open_ex(t.path, &o, &db), -ENOTSUP);
	assert_non_null(strstr(msg, "schema version 99, newer than"));
	assert_int_equal(raw_int(t.path, "PRAGMA user_version"), 99);
	tdb_cleanup(&t);
}

static void test_open__directory_is_refused(void **state)
{
	struct tdb t = { 0 };
	tdb_dir(&t);
	struct db *db;
	char msg[256] = "";
	struct db_open_options o = { .errmsg = msg, .errmsg_size = sizeof msg };
	assert_int_equal(db_open_ex(t.dir, &o, &db), -EISDIR);
	assert_non_null(strstr(msg, "Is a directory"));
	tdb_cleanup(&t);
}

static void test_open__read_only_refuses_writes(void **state)
{
	struct tdb t = { 0 };
	tdb_open_campaign(&t);
	db_close(t.db);
	struct db_open_options o = { .flags = DB_OPEN_READ_ONLY };
	assert_int_equal(db_open_ex(t.path, &o, &t.db), 0);
	struct db_campaign *c;
	assert_int_equal(db_campaign_find(t.db, "c1", &c), 0);
	free(c);
	int64_t id = 0;
	assert_int_equal(db_campaign_create(t.db, &(struct db_campaign){ .name = "c2" }, &id),
	                 -EROFS);
	assert_non_null(strstr(db_errmsg(t.db), "read-only"));
	assert_int_equal(db_begin(t.db), -EROFS);
	tdb_cleanup(&t);
}

static void test_transaction__rollback_undoes_and_commit_keeps(void **state)
{
	struct tdb t = { 0 };
	tdb_dir(&t);
	assert_int_equal(db_open(t.path, &t.db), 0);
	int64_t id;
	assert_int_equal(db_begin(t.db), 0);
	assert_int_equal(db_begin(t.db), -EBUSY);
	assert_int_equal(db_campaign_create(t.db, &(struct db_campaign){ .name = "gone" }, &id), 0);
	/* A failing write inside the transaction is undone alone. */
	assert_int_equal(db_campaign_create(t.db, &(struct db_campaign){ .name = "gone" }, &id),
	                 -EEXIST);
	assert_string_equal(db_errmsg(t.db), "campaign 'gone' already exists");
	assert_int_equal(db_rollback(t.db), 0);
	struct db_campaign *c;
	assert_int_equal(db_campaign_find(t.db, "gone", &c), -ENOENT);

	assert_int_equal(db_begin(t.db), 0);
	assert_int_equal(db_campaign_create(t.db, &(struct db_campaign){ .name = "kept" }, &id), 0);
	assert_int_equal(db_commit(t.db), 0);
	assert_int_equal(db_commit(t.db), -EINVAL);
	db_close(t.db);
	assert_int_equal(db_open(t.path, &t.db), 0);
	assert_int_equal(db_campaign_find(t.db, "kept", &c), 0);
	assert_int_equal(c->id, id);
	free(c);

	/* Closing with a transaction open rolls it back. */
	assert_int_equal(db_begin(t.db), 0);
	assert_int_equal(db_campaign_create(t.db, &(struct db_campaign){ .name = "open" }, &id), 0);
	db_close(t.db);
	assert_int_equal(db_open(t.path, &t.db), 0);
	assert_int_equal(db_campaign_find(t.db, "open", &c), -ENOENT);
	tdb_cleanup(&t);
}

/* Two handles (two processes in life): the writer's open transaction makes
 * a second writer wait, then give up with -EBUSY, while readers go on. */
static void test_two_handles__second_writer_waits_readers_read(void **state)
{
	struct tdb t = { 0 };
	tdb_open_campaign(&t);
	struct db *other;
	struct db_open_options o = { .busy_timeout_ms = 100 };
	assert_int_equal(db_open_ex(t.path, &o, &other), 0);
	assert_int_equal(db_begin(t.db), 0);
	int64_t id;
	assert_int_equal(db_campaign_create(t.db, &(struct db_campaign){ .name = "pending" }, &id), 0);
	assert_int_equal(db_campaign_create(other, &(struct db_campaign){ .name = "late" }, &id),
	                 -EBUSY);
	struct db_campaign *list;
	size_t n;
	assert_int_equal(db_campaign_list(other, &list, &n), 0);
	assert_int_equal(n, 1); /* "pending" is not committed yet */
	free(list);
	assert_int_equal(db_commit(t.db), 0);
	assert_int_equal(db_campaign_create(other, &(struct db_campaign){ .name = "late" }, &id), 0);
	assert_int_equal(db_campaign_list(other, &list, &n), 0);
	assert_int_equal(n, 3);
	free(list);
	db_close(other);
	tdb_cleanup(&t);
}

static void test_close__null_is_a_no_op(void **state)
{
	db_close(NULL);
	assert_string_equal(db_errmsg(NULL), "");
}

static void test_open__memory_database(void **state)
{
	struct db *db;
	assert_int_equal(db_open(":memory:", &db), 0);
	int v;
	assert_int_equal(db_schema_version(db, &v), 0);
	assert_int_equal(v, DB_SCHEMA_VERSION);
	db_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open__creates_parents_in_wal_at_current_schema),
		cmocka_unit_test(test_open__enforces_foreign_keys),
		cmocka_unit_test(test_default_path__xdg_then_home),
		cmocka_unit_test(test_open__null_path_uses_default),
		cmocka_unit_test(test_open__no_create_reports_missing_file),
		cmocka_unit_test(test_open__must_exist_refuses_an_empty_file),
		cmocka_unit_test(test_open__refuses_a_file_that_is_not_sqlite),
		cmocka_unit_test(test_open__refuses_another_programs_database),
		cmocka_unit_test(test_open__refuses_a_newer_schema_untouched),
		cmocka_unit_test(test_open__directory_is_refused),
		cmocka_unit_test(test_open__read_only_refuses_writes),
		cmocka_unit_test(test_transaction__rollback_undoes_and_commit_keeps),
		cmocka_unit_test(test_two_handles__second_writer_waits_readers_read),
		cmocka_unit_test(test_close__null_is_a_no_op),
		cmocka_unit_test(test_open__memory_database),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
