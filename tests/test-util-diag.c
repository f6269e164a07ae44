/* test-util-diag: the one diagnostic type the parsers share (util/diag.h):
 * filling it, cutting what does not fit, and its printed form; and that the
 * route and plan parsers hand it out with file, line and column. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "route/route.h"
#include "util/diag.h"

static void test_set__fills_every_field(void **state)
{
	(void)state;
	struct util_diag d;
	memset(&d, 0x55, sizeof d);
	util_diag_set(&d, "night.ini", 3, 7, "bad rounds '%s'", "x");
	assert_string_equal(d.file, "night.ini");
	assert_int_equal(d.line, 3);
	assert_int_equal(d.column, 7);
	assert_string_equal(d.message, "bad rounds 'x'");

	util_diag_set(&d, NULL, 0, 0, "no file");
	assert_string_equal(d.file, "");
	assert_int_equal(d.line, 0);
}

static void test_set__cuts_what_does_not_fit(void **state)
{
	(void)state;
	char long_name[1000], long_text[1000];
	memset(long_name, 'f', sizeof long_name - 1);
	long_name[sizeof long_name - 1] = 0;
	memset(long_text, 'm', sizeof long_text - 1);
	long_text[sizeof long_text - 1] = 0;
	struct util_diag d;
	util_diag_set(&d, long_name, 1, 1, "%s", long_text);
	assert_int_equal(strlen(d.file), sizeof d.file - 1);
	assert_int_equal(strlen(d.message), sizeof d.message - 1);
}

static void test_format__file_line_column_or_the_message_alone(void **state)
{
	(void)state;
	struct util_diag d;
	char buf[1024];
	util_diag_set(&d, "a.route", 12, 5, "unknown button 'Q'");
	util_diag_format(&d, buf, sizeof buf);
	assert_string_equal(buf, "a.route:12:5: unknown button 'Q'");
	util_diag_set(&d, "a.route", 0, 0, "cannot open route 'a.route': No such file or directory");
	util_diag_format(&d, buf, sizeof buf);
	assert_string_equal(buf, "cannot open route 'a.route': No such file or directory");

	/* cut to the buffer, still a string */
	char small[8];
	util_diag_set(&d, "a.route", 12, 5, "x");
	assert_true(util_diag_format(&d, small, sizeof small) > (int)sizeof small);
	assert_string_equal(small, "a.route");
}

static void test_print__the_formatted_line(void **state)
{
	(void)state;
	struct util_diag d;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	util_diag_set(&d, "b.route", 2, 1, "expected a time");
	util_diag_print(&d, f);
	util_diag_set(&d, "b.route", 0, 0, "whole file");
	util_diag_print(&d, f);
	fclose(f);
	assert_string_equal(text, "b.route:2:1: expected a time\nwhole file\n");
	free(text);

	/* a plan's whole-file message does not name the plan: its printer does */
	text = NULL;
	f = open_memstream(&text, &len);
	util_diag_set(&d, "night.ini", 0, 0, "the plan has no arm");
	plan_diag_print(&d, f);
	fclose(f);
	assert_string_equal(text, "night.ini: the plan has no arm\n");
	free(text);
}

static void test_parsers__hand_out_the_same_type(void **state)
{
	(void)state;
	struct util_diag d;
	struct route *r = NULL;
	const char *route = "route t\nduration 5s\n1s press Q 1ms\n";
	assert_int_equal(route_parse("t.route", route, strlen(route), NULL, &r, &d), -EINVAL);
	assert_string_equal(d.file, "t.route");
	assert_int_equal(d.line, 3);
	assert_int_equal(d.column, 10);

	struct plan *p = NULL;
	const char *plan = "[campaign]\nrounds = many\n";
	assert_int_equal(plan_parse("n.ini", plan, strlen(plan), NULL, &p, &d), -EINVAL);
	assert_string_equal(d.file, "n.ini");
	assert_int_equal(d.line, 2);
	assert_true(d.column > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set__fills_every_field),
		cmocka_unit_test(test_set__cuts_what_does_not_fit),
		cmocka_unit_test(test_format__file_line_column_or_the_message_alone),
		cmocka_unit_test(test_print__the_formatted_line),
		cmocka_unit_test(test_parsers__hand_out_the_same_type),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
