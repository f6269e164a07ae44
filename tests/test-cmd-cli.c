/* test-cmd-cli: the command layer: typed options writing through their
 * value pointers, the shared options, an option's value never taken from
 * the next option, subcommand dispatch and the set-up a command's row asks
 * for. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "cmd/cmd.h"
#include "test-capture.h"

/* cli_parse() over a NULL-terminated list of words, its messages caught. */
static int parse(const struct cli *cli, struct test_capture *cap, int *npos, char **words)
{
	int argc = 0;
	while (words[argc])
		argc++;
	test_capture_begin(cap);
	int rc = cli_parse(cli, argc, words, npos);
	test_capture_end(cap);
	return rc;
}

/* cmd_dispatch() over a NULL-terminated list of words, its output caught. */
static int dispatch(struct test_capture *cap, char **words)
{
	int argc = 0;
	while (words[argc])
		argc++;
	test_capture_begin(cap);
	int rc = cmd_dispatch(argc, words);
	test_capture_end(cap);
	return rc;
}

struct values {
	const char *name, *db;
	int64_t count, wait_ms;
	bool quiet;
	char arm;
	int format;
	const char *output;
};

static const char *const formats[] = { "md", "csv", "json", "markdown=md", NULL };

#define OPTIONS(v) \
	OPT_STRING('N', "name", &(v)->name, "NAME", "a name"), \
	OPT_INT('n', "count", &(v)->count, 1, 10, "N", "a count"), \
	OPT_DURATION(0, "wait", &(v)->wait_ms, "TIME", "a wait"), \
	OPT_BOOL('q', "quiet", &(v)->quiet, "no chatter"), \
	OPT_BASELINE(&(v)->arm), \
	OPT_FORMAT(&(v)->format, formats, "md|csv|json", "output format"), \
	OPT_OUTPUT(&(v)->output), \
	OPT_DB(&(v)->db), \
	OPT_END

static void test_cli__typed_options_write_through_their_value(void **state)
{
	(void)state;
	struct values v = { 0 };
	const struct cli_option options[] = { OPTIONS(&v) };
	const struct cli cli = { .command = "rxdeck t", .options = options };
	char *words[] = { "t", "--name", "x", "pos", "-n", "7", "--wait=1500ms", "-q", "-b", "C",
		          "--format", "markdown", "-o", "out.md", "--db=a.db", NULL };
	struct test_capture cap;
	int npos = -1;
	assert_int_equal(parse(&cli, &cap, &npos, words), 0);
	assert_string_equal(cap.err, "");
	assert_int_equal(npos, 1);
	assert_string_equal(words[1], "pos");
	assert_string_equal(v.name, "x");
	assert_int_equal(v.count, 7);
	assert_int_equal(v.wait_ms, 1500);
	assert_true(v.quiet);
	assert_int_equal(v.arm, 'C');
	assert_int_equal(v.format, 0); /* "markdown" is md's other name */
	assert_string_equal(v.output, "out.md");
	assert_string_equal(v.db, "a.db");
	test_capture_free(&cap);
}

static void test_cli__value_never_taken_from_the_next_option(void **state)
{
	(void)state;
	struct values v = { 0 };
	const struct cli_option options[] = { OPTIONS(&v) };
	const struct cli cli = { .command = "rxdeck t", .options = options };
	struct test_capture cap;
	int npos;
	char *words[] = { "t", "--db", "--quiet", NULL };
	assert_int_equal(parse(&cli, &cap, &npos, words), -EINVAL);
	assert_string_equal(cap.err, "rxdeck t: option '--db' needs a value\n");
	assert_null(v.db);
	assert_false(v.quiet);
	test_capture_free(&cap);

	/* written with '=', such a value is taken as it is */
	char *eq[] = { "t", "--db=--quiet", NULL };
	assert_int_equal(parse(&cli, &cap, &npos, eq), 0);
	assert_string_equal(v.db, "--quiet");
	test_capture_free(&cap);

	/* a single dash is a value (a negative number, standard input) */
	char *dash[] = { "t", "-o", "-", NULL };
	assert_int_equal(parse(&cli, &cap, &npos, dash), 0);
	assert_string_equal(v.output, "-");
	test_capture_free(&cap);
}

static void test_cli__bad_values_are_named(void **state)
{
	(void)state;
	struct values v = { 0 };
	const struct cli_option options[] = { OPTIONS(&v) };
	const struct cli cli = { .command = "rxdeck t", .options = options };
	static const struct {
		const char *word, *value, *err;
	} cases[] = {
		{ "--count", "11", "rxdeck t: bad count '11': expected a whole number from 1 to 10\n" },
		{ "--count", "3x", "rxdeck t: bad count '3x': expected a whole number from 1 to 10\n" },
		{ "--wait", "soon", "rxdeck t: bad wait 'soon': expected a time like 2s or 500ms\n" },
		{ "--baseline", "a", "rxdeck t: bad baseline 'a': expected an arm letter A to Z\n" },
		{ "--baseline", "AB", "rxdeck t: bad baseline 'AB': expected an arm letter A to Z\n" },
		{ "--format", "html", "rxdeck t: bad format 'html': expected md, csv or json\n" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *words[] = { "t", (char *)cases[i].word, (char *)cases[i].value, NULL };
		struct test_capture cap;
		int npos;
		assert_int_equal(parse(&cli, &cap, &npos, words), -EINVAL);
		assert_string_equal(cap.err, cases[i].err);
		test_capture_free(&cap);
	}
}

static void test_cmd__run_db_followed_by_an_option_is_a_usage_error(void **state)
{
	(void)state;
	struct test_capture cap;
	char *words[] = { "run", "--db", "--print-plan", NULL };
	assert_int_equal(dispatch(&cap, words), RXDECK_EXIT_USAGE);
	assert_string_equal(cap.out, "");
	assert_string_equal(cap.err, "rxdeck run: option '--db' needs a value\n");
	test_capture_free(&cap);
}

static void test_cmd__unknown_subcommand_lists_the_names(void **state)
{
	(void)state;
	struct test_capture cap;
	char *db[] = { "db", "vacuum", NULL };
	assert_int_equal(dispatch(&cap, db), RXDECK_EXIT_USAGE);
	assert_string_equal(cap.err, "rxdeck db: unknown command 'vacuum' (migrate, export or import)\n");
	test_capture_free(&cap);
	char *deck[] = { "deck", "fan", NULL };
	assert_int_equal(dispatch(&cap, deck), RXDECK_EXIT_USAGE);
	assert_string_equal(cap.err, "rxdeck deck: unknown command 'fan' (info, clock or check)\n");
	test_capture_free(&cap);
	char *top[] = { "fly", NULL };
	assert_int_equal(dispatch(&cap, top), RXDECK_EXIT_USAGE);
	assert_string_equal(cap.err, "rxdeck: unknown command 'fly' (see 'rxdeck --help')\n");
	test_capture_free(&cap);
}

static void test_cmd__subcommand_help_names_the_subcommand(void **state)
{
	(void)state;
	struct test_capture cap;
	char *words[] = { "db", "export", "--help", NULL };
	assert_int_equal(dispatch(&cap, words), RXDECK_EXIT_OK);
	assert_non_null(strstr(cap.out, "usage: rxdeck db export [--db PATH]"));
	assert_non_null(strstr(cap.out, "  -o, --output FILE "));
	test_capture_free(&cap);
}

static void test_cmd__needs_db_says_which_database_is_missing(void **state)
{
	(void)state;
	/* report, tested and plot: set up by their row, one message for all */
	static const char *const commands[] = { "report", "tested", "plot", "list", "show", "post" };
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
		struct test_capture cap;
		char *words[] = { (char *)commands[i], "--db", "/nonexistent/r.db", NULL, NULL, NULL };
		if (strcmp(commands[i], "show") == 0)
			words[3] = "c";
		if (strcmp(commands[i], "post") == 0)
			words[3] = "--list";
		assert_int_equal(dispatch(&cap, words), RXDECK_EXIT_FAILURE);
		char want[128];
		snprintf(want, sizeof want, "rxdeck %s: no database at '/nonexistent/r.db'\n",
		         commands[i]);
		assert_string_equal(cap.err, want);
		assert_string_equal(cap.out, "");
		test_capture_free(&cap);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cli__typed_options_write_through_their_value),
		cmocka_unit_test(test_cli__value_never_taken_from_the_next_option),
		cmocka_unit_test(test_cli__bad_values_are_named),
		cmocka_unit_test(test_cmd__run_db_followed_by_an_option_is_a_usage_error),
		cmocka_unit_test(test_cmd__unknown_subcommand_lists_the_names),
		cmocka_unit_test(test_cmd__subcommand_help_names_the_subcommand),
		cmocka_unit_test(test_cmd__needs_db_says_which_database_is_missing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
