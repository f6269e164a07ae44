/* rxdeck db migrate|export|import: the commands, their output, messages
 * and exit codes. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <sqlite3.h>

#include "cmd/cmd.h"
#include "test-db-util.h"
#include "test-cmd-util.h"

static void test_db_cmd__export_then_import_elsewhere(void **state)
{
	struct tdb t = { 0 };
	tdb_open_campaign(&t);
	int64_t ids[4];
	tdb_plan_abba(&t, ids);
	db_close(t.db);
	t.db = NULL;
	char out[4096], err[4096], file[PATH_MAX], other[PATH_MAX];
	snprintf(file, sizeof file, "%s/c1.json", t.dir);
	snprintf(other, sizeof other, "%s/other.db", t.dir);
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "db", "export", "--db", t.path,
	                     "--campaign", "c1", "-o", file, NULL), RXDECK_EXIT_OK);
	assert_string_equal(err, "");
	assert_int_equal(access(file, R_OK), 0);
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "db", "import", "--db", other,
	                     file, NULL), RXDECK_EXIT_OK);
	assert_non_null(strstr(out, "imported 1 campaign from '"));
	struct db *db;
	assert_int_equal(db_open(other, &db), 0);
	struct db_campaign *c;
	assert_int_equal(db_campaign_find(db, "c1", &c), 0);
	struct db_run *r;
	size_t n;
	assert_int_equal(db_run_list(db, c->id, &r, &n), 0);
	assert_int_equal(n, 4);
	free(r);
	free(c);
	db_close(db);
	/* Again: the same campaign with the same results, nothing is added. */
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "db", "import", "--db", other,
	                     file, NULL), RXDECK_EXIT_OK);
	assert_non_null(strstr(out, "imported 0 campaigns from '"));
	assert_non_null(strstr(out, "'c1': already here as 'c1' with the same results: nothing added"));
	tdb_cleanup(&t);
}

static void test_db_cmd__migrate_reports_versions(void **state)
{
	struct tdb t = { 0 };
	tdb_dir(&t);
	struct db *db;
	struct db_open_options o = { .flags = DB_OPEN_NO_MIGRATE };
	assert_int_equal(db_open_ex(t.path, &o, &db), 0);
	assert_int_equal(db_migrate(db, 1), 0);
	db_close(db);
	char out[4096], err[4096];
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "db", "migrate", "--db", t.path,
	                     NULL), RXDECK_EXIT_OK);
	assert_non_null(strstr(out, "': schema version 1 -> 4\n"));
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "db", "migrate", "--db", t.path,
	                     NULL), RXDECK_EXIT_OK);
	assert_non_null(strstr(out, "is at schema version 4 already"));
	char missing[PATH_MAX];
	snprintf(missing, sizeof missing, "%s/none.db", t.dir);
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "db", "migrate", "--db", missing,
	                     NULL), RXDECK_EXIT_FAILURE);
	assert_non_null(strstr(err, "rxdeck db migrate: no results database at '"));
	assert_int_equal(access(missing, F_OK), -1);
	tdb_cleanup(&t);
}

static void test_db_cmd__bad_input_and_usage(void **state)
{
	struct tdb t = { 0 };
	tdb_dir(&t);
	char out[4096], err[4096], bad[PATH_MAX];
	snprintf(bad, sizeof bad, "%s/bad.json", t.dir);
	FILE *f = fopen(bad, "w");
	fputs("{\"format\": \"rxdeck-results\",\n \"campaigns\": [}\n", f);
	fclose(f);
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "db", "import", "--db", t.path,
	                     bad, NULL), RXDECK_EXIT_FAILURE);
	assert_non_null(strstr(err, "bad.json:2:"));
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "db", "import", "--db", t.path,
	                     NULL), RXDECK_EXIT_USAGE);
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "db", "vacuum", NULL),
	                 RXDECK_EXIT_USAGE);
	assert_non_null(strstr(err, "unknown command 'vacuum'"));
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "db", NULL), RXDECK_EXIT_USAGE);
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "db", "export", "--help", NULL),
	                 RXDECK_EXIT_OK);
	assert_non_null(strstr(out, "usage: rxdeck db export"));
	/* An export that fails leaves no file behind. */
	char file[PATH_MAX];
	snprintf(file, sizeof file, "%s/out.json", t.dir);
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "db", "export", "--db", t.path,
	                     "--campaign", "nope", "-o", file, NULL), RXDECK_EXIT_FAILURE);
	assert_non_null(strstr(err, "no campaign 'nope'"));
	assert_int_equal(access(file, F_OK), -1);
	tdb_cleanup(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_db_cmd__export_then_import_elsewhere),
		cmocka_unit_test(test_db_cmd__migrate_reports_versions),
		cmocka_unit_test(test_db_cmd__bad_input_and_usage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
