/* Tests of collector profiles (collect-profile.c): the shipped
 * profiles/rxvk.collect loads, named captures map to groups, and every
 * mistake is reported as file:line:column. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "collect/collect.h"

static void test_profile__rxvk_profile_loads(void **state)
{
	(void)state;
	char path[4096];
	snprintf(path, sizeof path, "%s/profiles/rxvk.collect", RXDECK_SOURCE_ROOT);
	struct collect_profile *p = NULL;
	struct collect_error err = { { 0 } };
	int rc = collect_profile_load(path, &p, &err);
	if (rc != 0)
		fail_msg("%s", err.msg);
	assert_string_equal(collect_profile_name(p), "rxvk");
	const char *want[] = { "rb_summaries", "rb_waits", "rb_wait_each_ms", "rb_early_part",
	                       "rb_early_part_each_ms", "rb_early_whole", "rb_parts_ended", "rb_late",
	                       "capture_summaries", "captures_late", "capture_wait_each_ms",
	                       "frames_held_pct", "frame_write_target_ms", "frame_read_back_ms",
	                       "frame_write_target_pct", "frame_read_back_pct" };
	assert_int_equal(collect_profile_metric_count(p), sizeof want / sizeof *want);
	for (size_t i = 0; i < sizeof want / sizeof *want; i++)
		assert_string_equal(collect_profile_metric_name(p, i), want[i]);
	assert_null(collect_profile_metric_name(p, 99));
	collect_profile_destroy(p);
}

static void test_profile__name_defaults_to_file_name(void **state)
{
	(void)state;
	const char *text = "pattern hello ^hello (?<n>[0-9]+)$\nmetric hellos = sum(n)\n";
	struct collect_profile *p = NULL;
	assert_int_equal(collect_profile_parse("profiles/game.collect", text, strlen(text), &p, NULL), 0);
	assert_string_equal(collect_profile_name(p), "game");
	collect_profile_destroy(p);
}

static void expect_error(const char *text, const char *msg)
{
	struct collect_profile *p = (struct collect_profile *)0x1;
	struct collect_error err = { { 0 } };
	int rc = collect_profile_parse("x.collect", text, strlen(text), &p, &err);
	assert_int_equal(rc, -EINVAL);
	assert_ptr_equal(p, (struct collect_profile *)0x1);
	/* a message ending in ": " is a prefix (the C library words the rest) */
	size_t n = strlen(msg);
	bool prefix = n >= 2 && strcmp(msg + n - 2, ": ") == 0;
	if (prefix ? strncmp(err.msg, msg, n) != 0 : strcmp(err.msg, msg) != 0)
		fail_msg("got      '%s'\nexpected '%s'", err.msg, msg);
}

static void test_profile__errors_name_line_and_column(void **state)
{
	(void)state;
	expect_error("", "x.collect:1:1: the profile has no 'pattern'");
	expect_error("# only a comment\n", "x.collect:1:1: the profile has no 'pattern'");
	expect_error("frobnicate yes\n",
	             "x.collect:1:1: unknown directive 'frobnicate' (name, timestamps, pattern, metric)");
	expect_error("  %\n", "x.collect:1:3: expected a directive (name, timestamps, pattern, metric)");
	expect_error("pattern\n", "x.collect:1:8: expected a pattern name (letters, digits, '_')");
	expect_error("pattern p\n", "x.collect:1:10: expected a regular expression after the pattern name");
	expect_error("pattern p a(b\n",
	             "x.collect:1:11: bad regular expression: ");
	expect_error("pattern p a[bc\n", "x.collect:1:12: bracket expression '[' is not closed");
	expect_error("pattern p a(?:b)\n",
	             "x.collect:1:12: only named captures '(?<name>...)' may follow '(?'");
	expect_error("pattern p a(?<1x>b)\n",
	             "x.collect:1:15: expected a capture name and '>' after '(?<'");
	expect_error("pattern p (?<n>a)(?<n>b)\n",
	             "x.collect:1:21: capture 'n' is named twice in pattern 'p'");
	expect_error("pattern p a\npattern p b\n", "x.collect:2:9: pattern 'p' is defined twice");
	expect_error("metric m = count()\n",
	             "x.collect:1:8: 'metric' before any 'pattern': a metric aggregates the captures of the pattern above it");
	expect_error("pattern p (?<n>a)\nmetric m = sum(q)\n",
	             "x.collect:2:16: pattern 'p' has no capture 'q'");
	expect_error("pattern p (?<n>a)\nmetric m = median(n)\n",
	             "x.collect:2:12: unknown function 'median' (count, sum, mean, min, max, last, wmean, per)");
	expect_error("pattern p (?<n>a)\nmetric m sum(n)\n",
	             "x.collect:2:10: expected '=' after the metric name");
	expect_error("pattern p (?<n>a)\nmetric m = sum n\n",
	             "x.collect:2:16: expected '(' after 'sum'");
	expect_error("pattern p (?<n>a)\nmetric m = sum(n\n",
	             "x.collect:2:17: expected ')' to close sum(");
	expect_error("pattern p (?<n>a)(?<w>b)\nmetric m = wmean(n)\n",
	             "x.collect:2:19: wmean() takes 2 captures of pattern 'p'; expected ','");
	expect_error("pattern p (?<n>a)(?<w>b)\nmetric m = per(n, w)\n",
	             "x.collect:2:20: per() takes two captures and a number: per(x, y, 3000)");
	expect_error("pattern p (?<n>a)(?<w>b)\nmetric m = per(n, w, -3)\n",
	             "x.collect:2:22: per()'s scale must be a number above 0");
	expect_error("pattern p (?<n>a)\nmetric m = sum(n) extra\n",
	             "x.collect:2:19: unexpected text after the metric");
	expect_error("pattern p (?<n>a)\nmetric m = sum(n)\nmetric m = count()\n",
	             "x.collect:3:8: metric 'm' is defined twice");
	expect_error("timestamps sometimes\npattern p a\n",
	             "x.collect:1:12: 'timestamps' takes 'rxlog' or 'none'");
	expect_error("name a\nname b\npattern p a\n", "x.collect:2:1: 'name' is given twice (first on line 1)");
	expect_error("pattern p a\\\n", "x.collect:1:12: the regular expression ends with a lone '\\'");
	/* limits that keep regcomp() small */
	expect_error("pattern p a++\n",
	             "x.collect:1:13: a repetition right after another one (undefined in POSIX regular expressions)");
	expect_error("pattern p a{300}\n", "x.collect:1:12: repetition counts above 255 are not allowed");
	expect_error("pattern p a{3\n", "x.collect:1:12: a repetition '{' needs the form {m}, {m,} or {m,n}");
	expect_error("pattern p (a{200}){200}\n",
	             "x.collect:1:19: the regular expression repeats too much (over 20000 parts once expanded)");
	expect_error("pattern p ((((((((((((((((((((((((((((((((((a))))))))))))))))))))))))))))))))))\n",
	             "x.collect:1:43: groups nest deeper than 32");
}

static void test_profile__brackets_and_escapes_do_not_open_groups(void **state)
{
	(void)state;
	/* '(' inside [...] and after '\' are literal: the capture is group 2 */
	const char *text =
		"timestamps none\n"
		"pattern p ^[(]x\\((a|b)[[:digit:]]*(?<n>[0-9]+)\\)$\n"
		"metric total = sum(n)\n";
	struct collect_profile *p = NULL;
	struct collect_error err = { { 0 } };
	if (collect_profile_parse("b.collect", text, strlen(text), &p, &err) != 0)
		fail_msg("%s", err.msg);
	const char *log = "(x(a1234)\n(xa1)\n(x(c9)\n";
	struct collect_log *l = NULL;
	assert_int_equal(collect_log_scan(p, "b.log", log, strlen(log), true, &l, &err), 0);
	assert_int_equal(l->n, 1);
	assert_string_equal(l->matches[0].values[0].name, "n");
	/* [[:digit:]]* is greedy, so n takes the last digit only */
	assert_string_equal(l->matches[0].values[0].text, "4");
	collect_log_destroy(l);
	collect_profile_destroy(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_profile__rxvk_profile_loads),
		cmocka_unit_test(test_profile__name_defaults_to_file_name),
		cmocka_unit_test(test_profile__errors_name_line_and_column),
		cmocka_unit_test(test_profile__brackets_and_escapes_do_not_open_groups),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
