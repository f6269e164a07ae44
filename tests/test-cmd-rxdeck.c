/* test-cmd-rxdeck: the rxdeck binary as a user meets it, each case through
 * the real program: a plan with `collect = none` plays without a collector
 * profile (no log metrics, no matched lines) while the default one reads
 * the game's log; the warm-up runs are told as the plan runs them (one of
 * each arm) by show, the run file, the HTML page and the help; `rxdeck help
 * CMD` is `rxdeck CMD --help` for every command; a mistyped command or
 * subcommand is a usage error that names the nearest; a bare `rxdeck show`
 * shows the newest campaign; `rxdeck tested` writes docs/tested/ only in
 * rxdeck's source tree (found from the working folder up), else asks for
 * --out, and prints each path it wrote; the read commands open the database
 * read-only and refuse a file that is none (an empty one included), and a
 * missing --db gets the default path's hint; show, like the run file,
 * leaves out the host's facts it had not (stored as null).  The campaigns
 * are the stand-in game's on a 1 s route. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <sys/stat.h>

#include "cmd/cmd.h"
#include "results-db/db.h"
#include "test-run-util.h"
#include "test-rxdeck-proc.h"

static struct tdir t;
static struct test_rxdeck rx;
static char db_file[PATH_MAX];

/* rxdeck with args (NULL-terminated) to its end, stdout and stderr into
 * *text (the caller frees it): its exit code. */
static int rxdeck(char **text, ...)
{
	const char *args[24];
	size_t n = 0;
	va_list ap;
	va_start(ap, text);
	for (const char *a; (a = va_arg(ap, const char *)) && n < 23;)
		args[n++] = a;
	va_end(ap);
	args[n] = NULL;
	char out[PATH_MAX];
	rx.how.out = tdir_file(&t, "cmd.out", out, sizeof out);
	int rc = test_rxdeck_run(&rx, args);
	*text = test_read_text(out);
	return rc;
}

/* Plays a campaign of two arms, one round, with the stand-in game and
 * extra lines in [campaign] (may be ""): the run's exit code. */
static int play(const char *name, const char *extra)
{
	char game[PATH_MAX], route[PATH_MAX], plan[PATH_MAX], text[4 * PATH_MAX];
	build_path("harness/run/game-double", game, sizeof game);
	write_text(tdir_file(&t, "t.route", route, sizeof route),
	           "route t\nduration 1s\nwindow 0.2s 1s\n0s press A 100ms\n");
	snprintf(text, sizeof text,
	         "[campaign]\nname = %s\nroute = t.route\nprofile = lavapipe\norder = AB\n"
	         "rounds = 1\n"
	         "pad = socket\n%s"
	         "[build double]\nbinary = %s\npad_option = --pad\n"
	         "[arm A]\nenv = DOUBLE_FPS=60\n[arm B]\nenv = DOUBLE_FPS=30\n",
	         name, extra, game);
	write_text(tdir_file(&t, "plan.ini", plan, sizeof plan), text);
	char *log;
	int rc = rxdeck(&log, "run", plan, "--db", db_file, "--quiet", NULL);
	if (rc != 0)
		fprintf(stderr, "rxdeck run exited %d:\n%s", rc, log);
	free(log);
	return rc;
}

static int setup(void **state)
{
	(void)state;
	tdir_make(&t);
	test_rxdeck_init(&rx, t.path, NULL);
	tdir_file(&t, "results.db", db_file, sizeof db_file);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tdir_remove(&t);
	return 0;
}

/* The campaigns the cases look at, played once: 1 "withlog" (the default
 * collector profile and warm-up; on a system root of a few files, so the
 * host's facts are some known, most not), 2 "nolog" (collect = none, no
 * warm-up). */
static void campaigns(void)
{
	static bool played;
	if (played)
		return;
	static char root_env[PATH_MAX + 32];
	char root[PATH_MAX], path[PATH_MAX + 64];
	tdir_file(&t, "root", root, sizeof root);
	snprintf(path, sizeof path, "%s/etc", root);
	assert_int_equal(mkdir(root, 0755), 0);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof path, "%s/etc/os-release", root);
	write_text(path, "NAME=\"Testix\"\nPRETTY_NAME=\"Testix 9\"\nVERSION_ID=9\n");
	snprintf(root_env, sizeof root_env, "RXDECK_DECK_ROOT=%s", root);
	test_rxdeck_env_add(&rx, root_env);
	assert_int_equal(play("withlog", ""), 0);
	for (size_t i = 0; rx.env[i]; i++)
		if (rx.env[i] == root_env)
			rx.env[i] = NULL;
	assert_int_equal(play("nolog", "collect = none\nwarmup = no\n"), 0);
	played = true;
}

static void test_cmd_rxdeck__collect_none_plays_without_log_metrics(void **state)
{
	(void)state;
	campaigns();
	/* the default profile (rxvk) reads the stand-in's readback lines ... */
	char *text;
	assert_int_equal(rxdeck(&text, "show", "1/3", "--db", db_file, NULL), 0);
	if (!strstr(text, "  rb_summaries ") || strstr(text, "matched log lines: 0\n"))
		fail_msg("the default profile read no log:\n%s", text);
	free(text);

	/* ... collect = none reads none: frame metrics, no log metrics */
	for (int pos = 1; pos <= 2; pos++) {
		char ref[32];
		snprintf(ref, sizeof ref, "2/%d", pos);
		assert_int_equal(rxdeck(&text, "show", ref, "--db", db_file, NULL), 0);
		if (!strstr(text, ", done\n") || !strstr(text, "  real_fps ") ||
		    strstr(text, "rb_summaries") || !strstr(text, "matched log lines: 0\n"))
			fail_msg("collect = none, run %d:\n%s", pos, text);
		free(text);
	}
	assert_int_equal(rxdeck(&text, "report", "2", "--db", db_file, NULL), 0);
	assert_non_null(strstr(text, "real fps"));
	free(text);
	assert_int_equal(processes_mentioning(t.path), 0);
}

/* text holds want, else the case fails showing what it held. */
static void holds(const char *what, const char *text, const char *want)
{
	if (!strstr(text, want))
		fail_msg("%s says no '%s':\n%s", what, want, text);
}

static void test_cmd_rxdeck__warmups_are_told_as_the_plan_runs_them(void **state)
{
	(void)state;
	campaigns();
	/* warmup = each (the default): one run of each arm before round 1 */
	char *text;
	assert_int_equal(rxdeck(&text, "show", "1", "--db", db_file, NULL), 0);
	holds("show", text, "1 round, after a warm-up run of each arm (2)\n");
	holds("show", text, "     1   A warm-up ");
	holds("show", text, "     2   B warm-up ");
	free(text);
	assert_int_equal(rxdeck(&text, "tested", "1", "--stdout", "--db", db_file, NULL), 0);
	holds("the run file", text, "a cold warm-up run of each arm first (2)");
	free(text);
	assert_int_equal(rxdeck(&text, "report", "1", "--format", "html", "--db", db_file, NULL), 0);
	holds("the HTML page", text, "1, after a warm-up run of each arm");
	free(text);
	/* warmup = no: none said */
	assert_int_equal(rxdeck(&text, "show", "2", "--db", db_file, NULL), 0);
	assert_null(strstr(text, "warm-up"));
	free(text);
	/* the help says what the default plan does */
	assert_int_equal(rxdeck(&text, "run", "--help", NULL), 0);
	holds("run --help", text, "after a cold warm-up run of each arm");
	free(text);
	assert_int_equal(rxdeck(&text, "ab", "--help", NULL), 0);
	holds("ab --help", text, "after a warm-up run of each arm");
	free(text);
}

static void test_cmd_rxdeck__help_cmd_is_cmd_help(void **state)
{
	(void)state;
	char *global;
	assert_int_equal(rxdeck(&global, "--help", NULL), 0);
	for (const struct rxdeck_command *c = rxdeck_commands; c->name; c++) {
		char *help, *own, usage[64];
		assert_int_equal(rxdeck(&help, "help", c->name, NULL), 0);
		assert_int_equal(rxdeck(&own, c->name, "--help", NULL), 0);
		snprintf(usage, sizeof usage, "usage: rxdeck %s ", c->name);
		if (strcmp(help, own) != 0 || strncmp(help, usage, strlen(usage)) != 0)
			fail_msg("rxdeck help %s:\n%s\nrxdeck %s --help:\n%s", c->name, help, c->name,
			         own);
		assert_string_not_equal(help, global);
		free(help);
		free(own);
	}
	/* a subcommand's too; a bare help is the global one */
	char *help, *own;
	assert_int_equal(rxdeck(&help, "help", "db", "export", NULL), 0);
	assert_int_equal(rxdeck(&own, "db", "export", "--help", NULL), 0);
	assert_string_equal(help, own);
	assert_non_null(strstr(help, "usage: rxdeck db export "));
	free(help);
	free(own);
	assert_int_equal(rxdeck(&help, "help", NULL), 0);
	assert_string_equal(help, global);
	holds("rxdeck --help", global, "'rxdeck help COMMAND'");
	free(help);
	free(global);
}

static void test_cmd_rxdeck__a_mistyped_command_gets_did_you_mean(void **state)
{
	(void)state;
	static const struct {
		const char *words[3], *err;
	} cases[] = {
		{ { "reprot" }, "rxdeck: unknown command 'reprot' (see 'rxdeck --help'); did you mean "
		                "'report'?\n" },
		{ { "hlep" }, "rxdeck: unknown command 'hlep' (see 'rxdeck --help'); did you mean "
		              "'help'?\n" },
		{ { "help", "shwo" }, "rxdeck: unknown command 'shwo' (see 'rxdeck --help'); did you "
		                      "mean 'show'?\n" },
		{ { "fly" }, "rxdeck: unknown command 'fly' (see 'rxdeck --help')\n" },
		{ { "db", "exprot" }, "rxdeck db: unknown command 'exprot' (migrate, export or import); "
		                      "did you mean 'export'?\n" },
		{ { "deck", "infp" }, "rxdeck deck: unknown command 'infp' (info, clock or check); "
		                      "did you mean 'info'?\n" },
		{ { "route", "chek" }, "rxdeck route: unknown command 'chek' (check, play or record); "
		                       "did you mean 'check'?\n" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *text;
		int rc = rxdeck(&text, cases[i].words[0], cases[i].words[1], cases[i].words[2], NULL);
		if (rc != RXDECK_EXIT_USAGE || strcmp(text, cases[i].err) != 0)
			fail_msg("exit %d, said:\n%swant exit 2 and:\n%s", rc, text, cases[i].err);
		free(text);
	}
}

static void test_cmd_rxdeck__show_leaves_out_facts_the_host_has_not(void **state)
{
	(void)state;
	campaigns();
	/* the facts the root had, as the run file has them; none it had not */
	char *text;
	assert_int_equal(rxdeck(&text, "show", "1", "--db", db_file, NULL), 0);
	const char *facts = strstr(text, "host facts at the start");
	assert_non_null(facts);
	holds("show", facts, "os Testix 9, os_version 9");
	if (strstr(facts, "null") || strstr(facts, "device_model") || strstr(facts, "\"Testix"))
		fail_msg("show:\n%s", text);
	free(text);
	assert_int_equal(rxdeck(&text, "tested", "1", "--stdout", "--db", db_file, NULL), 0);
	facts = strstr(text, "- Host facts at the start");
	assert_non_null(facts);
	holds("the run file", facts, "`os` Testix 9, `os_version` 9");
	if (strstr(facts, "null") || strstr(facts, "device_model"))
		fail_msg("the run file:\n%s", text);
	free(text);
}

static void test_cmd_rxdeck__bare_show_is_the_newest_campaign(void **state)
{
	(void)state;
	campaigns();
	char *bare, *named;
	assert_int_equal(rxdeck(&bare, "show", "--db", db_file, NULL), 0);
	assert_int_equal(rxdeck(&named, "show", "2", "--db", db_file, NULL), 0);
	assert_string_equal(bare, named);
	assert_int_equal(strncmp(bare, "campaign nolog-", 15), 0);
	free(bare);
	free(named);
	/* more than one is a usage error */
	char *text;
	assert_int_equal(rxdeck(&text, "show", "1", "2", "--db", db_file, NULL), RXDECK_EXIT_USAGE);
	holds("show 1 2", text, "'2'");
	free(text);
}

/* rxdeck() in the folder cwd. */
static int rxdeck_in(const char *cwd, char **text, const char *a1, const char *a2, const char *a3,
                     const char *a4, const char *a5)
{
	rx.how.cwd = cwd;
	int rc = rxdeck(text, a1, a2, a3, a4, a5, NULL);
	rx.how.cwd = NULL;
	return rc;
}

static bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

static void test_cmd_rxdeck__tested_writes_docs_tested_only_in_the_source_tree(void **state)
{
	(void)state;
	campaigns();
	char name[128], *text;
	/* outside the source tree: refused, naming --out, nothing written */
	char away[PATH_MAX], docs[PATH_MAX + 16];
	tdir_file(&t, "away", away, sizeof away);
	assert_int_equal(mkdir(away, 0755), 0);
	assert_int_equal(rxdeck_in(away, &text, "tested", "2", "--db", db_file, NULL),
	                 RXDECK_EXIT_USAGE);
	holds("tested outside", text, "rxdeck tested: not in rxdeck's source tree");
	holds("tested outside", text, "--out DIR");
	free(text);
	snprintf(docs, sizeof docs, "%s/docs", away);
	assert_false(exists(docs));

	/* a folder that only looks like it (another project's meson.build): the same */
	char other[PATH_MAX], path[PATH_MAX + 256];
	tdir_file(&t, "other", other, sizeof other);
	snprintf(path, sizeof path, "%s/docs", other);
	assert_int_equal(mkdir(other, 0755), 0);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof path, "%s/docs/tested-configurations.md", other);
	write_text(path, "# Tested configurations\n");
	snprintf(path, sizeof path, "%s/meson.build", other);
	write_text(path, "project('forest', 'c')\n");
	assert_int_equal(rxdeck_in(other, &text, "tested", "2", "--db", db_file, NULL),
	                 RXDECK_EXIT_USAGE);
	free(text);
	snprintf(path, sizeof path, "%s/docs/tested", other);
	assert_false(exists(path));

	/* in a source tree's sub-folder: its top's docs/tested, the path printed */
	char tree[PATH_MAX], sub[PATH_MAX + 16];
	tdir_file(&t, "tree", tree, sizeof tree);
	snprintf(path, sizeof path, "%s/docs", tree);
	assert_int_equal(mkdir(tree, 0755), 0);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof path, "%s/docs/tested-configurations.md", tree);
	write_text(path, "# Tested configurations\n");
	snprintf(path, sizeof path, "%s/meson.build", tree);
	write_text(path, "# rxdeck\nproject('rxdeck', 'c',\n\tversion: '0.1.0')\n");
	snprintf(sub, sizeof sub, "%s/build", tree);
	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(rxdeck_in(sub, &text, "tested", "2", "--db", db_file, NULL), 0);
	assert_int_equal(strncmp(text, "../docs/tested/", 15), 0);
	snprintf(name, sizeof name, "%.*s", (int)strcspn(text + 15, "\n"), text + 15);
	assert_non_null(strstr(name, "-nolog-"));
	free(text);
	snprintf(path, sizeof path, "%s/docs/tested/%s", tree, name);
	assert_true(exists(path));
	/* and at its top: docs/tested */
	assert_int_equal(rxdeck_in(tree, &text, "tested", "2", "--db", db_file, NULL), 0);
	snprintf(path, sizeof path, "docs/tested/%s\n", name);
	assert_string_equal(text, path);
	free(text);

	/* --out anywhere: that folder, the path printed */
	char out[PATH_MAX + 16];
	snprintf(out, sizeof out, "%s/mine", away);
	rx.how.cwd = away;
	assert_int_equal(rxdeck(&text, "tested", "2", "--out", "mine", "--db", db_file, NULL), 0);
	rx.how.cwd = NULL;
	snprintf(path, sizeof path, "mine/%s\n", name);
	assert_string_equal(text, path);
	free(text);
	snprintf(path, sizeof path, "%s/%s", out, name);
	assert_true(exists(path));
}

/* Byte 18 of an SQLite file's header: 1 in rollback-journal mode, 2 in
 * WAL mode (sqlite.org/fileformat2.html, "File format version numbers"). */
static int journal_byte(const char *path)
{
	unsigned char head[20] = { 0 };
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fread(head, 1, sizeof head, f), sizeof head);
	fclose(f);
	return head[18];
}

static void copy_file(const char *from, const char *to)
{
	size_t n;
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	assert_non_null(in);
	assert_non_null(out);
	char buf[65536];
	while ((n = fread(buf, 1, sizeof buf, in)) > 0)
		assert_int_equal(fwrite(buf, 1, n, out), n);
	fclose(in);
	assert_int_equal(fclose(out), 0);
}

/* The read commands, each with what it needs after the database. */
static const char *const read_commands[][6] = {
	{ "report", "2" },
	{ "show" },
	{ "show", "2/1" },
	{ "list" },
	{ "plot", "2", "--out", "PLOTS" },
	{ "tested", "2", "--stdout" },
	{ "db", "export", "-o", "EXPORT" },
	{ "export-frames", "2/1", "-o", "EXPORT" },
	{ "post", "--list" },
};

/* rxdeck with read_commands[i] and --db path: its exit code, the output
 * into *text. */
static int read_command(size_t i, const char *path, char **text)
{
	char plots[PATH_MAX], export[PATH_MAX];
	tdir_file(&t, "plots", plots, sizeof plots);
	tdir_file(&t, "export.out", export, sizeof export);
	const char *w[8] = { 0 };
	size_t n = 0;
	for (; n < 6 && read_commands[i][n]; n++)
		w[n] = strcmp(read_commands[i][n], "PLOTS") == 0    ? plots
		       : strcmp(read_commands[i][n], "EXPORT") == 0 ? export
		                                                    : read_commands[i][n];
	w[n++] = "--db";
	w[n++] = path;
	return rxdeck(text, w[0], w[1], w[2], w[3], w[4], w[5], w[6], NULL);
}

static void test_cmd_rxdeck__read_commands_open_the_database_read_only(void **state)
{
	(void)state;
	campaigns();
	/* a copy in rollback-journal mode: a read-write open switches it to
	 * WAL (byte 18 becomes 2); a read-only one leaves it */
	char copy[PATH_MAX];
	tdir_file(&t, "rollback.db", copy, sizeof copy);
	copy_file(db_file, copy);
	sqlite3 *sql;
	assert_int_equal(sqlite3_open(copy, &sql), SQLITE_OK);
	assert_int_equal(sqlite3_exec(sql, "PRAGMA journal_mode = DELETE", NULL, NULL, NULL),
	                 SQLITE_OK);
	sqlite3_close(sql);
	assert_int_equal(journal_byte(copy), 1);
	for (size_t i = 0; i < sizeof read_commands / sizeof read_commands[0]; i++) {
		char *text;
		int rc = read_command(i, copy, &text);
		if (rc != 0 || journal_byte(copy) != 1)
			fail_msg("rxdeck %s %s: exit %d, journal byte %d:\n%s", read_commands[i][0],
			         read_commands[i][1] ? read_commands[i][1] : "", rc, journal_byte(copy),
			         text);
		free(text);
	}
	/* a file of an older schema is migrated first, then read */
	char old[PATH_MAX];
	tdir_file(&t, "v1.db", old, sizeof old);
	struct db *db;
	struct db_open_options o = { .flags = DB_OPEN_NO_MIGRATE };
	assert_int_equal(db_open_ex(old, &o, &db), 0);
	assert_int_equal(db_migrate(db, 1), 0);
	db_close(db);
	char *list;
	assert_int_equal(rxdeck(&list, "list", "--db", old, NULL), 0);
	free(list);
	o.flags = DB_OPEN_READ_ONLY;
	int version = 0;
	assert_int_equal(db_open_ex(old, &o, &db), 0);
	assert_int_equal(db_schema_version(db, &version), 0);
	db_close(db);
	assert_int_equal(version, DB_SCHEMA_VERSION);

	/* run opens it to write: the proof sees that */
	char *text;
	assert_int_equal(rxdeck(&text, "resume", "--db", copy, NULL), RXDECK_EXIT_FAILURE);
	free(text);
	assert_int_equal(journal_byte(copy), 2);
}

static void test_cmd_rxdeck__read_commands_refuse_a_file_that_is_no_database(void **state)
{
	(void)state;
	char empty[PATH_MAX], text_file[PATH_MAX];
	tdir_file(&t, "empty.db", empty, sizeof empty);
	tdir_file(&t, "notes.db", text_file, sizeof text_file);
	write_text(empty, "");
	write_text(text_file, "not a database\n");
	for (size_t i = 0; i < sizeof read_commands / sizeof read_commands[0]; i++) {
		char *text, want[PATH_MAX + 64];
		assert_int_equal(read_command(i, empty, &text), RXDECK_EXIT_FAILURE);
		snprintf(want, sizeof want, ": '%s' is not an rxdeck database: it is empty (", empty);
		holds(read_commands[i][0], text, want);
		free(text);
		struct stat st;
		assert_int_equal(stat(empty, &st), 0);
		assert_int_equal(st.st_size, 0);
		assert_int_equal(read_command(i, text_file, &text), RXDECK_EXIT_FAILURE);
		holds(read_commands[i][0], text, "file is not a database");
		free(text);
		text = test_read_text(text_file);
		assert_string_equal(text, "not a database\n");
		free(text);
	}
	/* nothing was made beside them */
	char side[PATH_MAX + 8];
	snprintf(side, sizeof side, "%s-wal", empty);
	assert_false(exists(side));
}

static void test_cmd_rxdeck__a_missing_db_gets_the_default_paths_hint(void **state)
{
	(void)state;
	char missing[PATH_MAX], want[PATH_MAX + 128], *text;
	tdir_file(&t, "missing.db", missing, sizeof missing);
	assert_int_equal(rxdeck(&text, "report", "--db", missing, NULL), RXDECK_EXIT_FAILURE);
	snprintf(want, sizeof want, "rxdeck report: no results database at '%s' yet (run a "
	         "campaign first, or name one with --db)\n", missing);
	assert_string_equal(text, want);
	free(text);
	assert_false(exists(missing));
	/* the default path (XDG_DATA_HOME is the test's data/) says the same */
	assert_int_equal(rxdeck(&text, "report", NULL), RXDECK_EXIT_FAILURE);
	snprintf(want, sizeof want, "rxdeck report: no results database at '%s/data/rxdeck/"
	         "results.db' yet (run a campaign first, or name one with --db)\n", t.path);
	assert_string_equal(text, want);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cmd_rxdeck__collect_none_plays_without_log_metrics),
		cmocka_unit_test(test_cmd_rxdeck__warmups_are_told_as_the_plan_runs_them),
		cmocka_unit_test(test_cmd_rxdeck__help_cmd_is_cmd_help),
		cmocka_unit_test(test_cmd_rxdeck__a_mistyped_command_gets_did_you_mean),
		cmocka_unit_test(test_cmd_rxdeck__show_leaves_out_facts_the_host_has_not),
		cmocka_unit_test(test_cmd_rxdeck__bare_show_is_the_newest_campaign),
		cmocka_unit_test(test_cmd_rxdeck__tested_writes_docs_tested_only_in_the_source_tree),
		cmocka_unit_test(test_cmd_rxdeck__read_commands_open_the_database_read_only),
		cmocka_unit_test(test_cmd_rxdeck__read_commands_refuse_a_file_that_is_no_database),
		cmocka_unit_test(test_cmd_rxdeck__a_missing_db_gets_the_default_paths_hint),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
