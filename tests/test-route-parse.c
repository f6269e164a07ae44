/* test-route-parse: the route file parser: every construct, every error
 * with its position, the shipped routes, and the accessors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/stat.h>
#include <unistd.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pad/pad.h"
#include "route/route.h"

/* ---- helpers: virtual files for includes, collected errors ---- */

struct vfile {
	const char *path;
	const char *text;
};

struct env {
	const struct vfile *files;
	struct util_diag errors[64];
	int n_errors;
	char *read_log[32]; /* paths asked for */
	int n_reads;
};

static int read_vfile(void *ctx, const char *path, char **text, size_t *len)
{
	struct env *e = ctx;
	if (e->n_reads < 32)
		e->read_log[e->n_reads++] = strdup(path);
	for (const struct vfile *f = e->files; f && f->path; f++) {
		if (strcmp(f->path, path) == 0) {
			*text = strdup(f->text);
			*len = strlen(f->text);
			return 0;
		}
	}
	return -ENOENT;
}

static void keep_error(void *ctx, const struct util_diag *err)
{
	struct env *e = ctx;
	if (e->n_errors < 64)
		e->errors[e->n_errors++] = *err;
}

static int parse_env(struct env *e, const char *text, struct route **out)
{
	struct route_parse_options opt = {
		.on_error = keep_error, .error_ctx = e,
		.read_file = read_vfile, .read_ctx = e,
	};
	return route_parse("dir/test.route", text, strlen(text), &opt, out, NULL);
}

static void env_finish(struct env *e)
{
	for (int i = 0; i < e->n_reads; i++)
		free(e->read_log[i]);
}

static struct route *parse_ok(const char *text)
{
	struct env e = { 0 };
	struct route *r = NULL;
	int rc = parse_env(&e, text, &r);
	for (int i = 0; i < e.n_errors; i++)
		print_message("unexpected error: %s:%d:%d: %s\n", e.errors[i].file, e.errors[i].line,
		              e.errors[i].column, e.errors[i].message);
	assert_int_equal(rc, 0);
	assert_int_equal(e.n_errors, 0);
	assert_non_null(r);
	env_finish(&e);
	return r;
}

/* Parses text that must fail with exactly one error at line:col whose
 * message holds want. */
static void expect_error(const char *text, int line, int col, const char *want)
{
	struct env e = { 0 };
	struct route *r = NULL;
	int rc = parse_env(&e, text, &r);
	if (e.n_errors != 1 || e.errors[0].line != line || e.errors[0].column != col ||
	    !strstr(e.errors[0].message, want)) {
		print_message("for:\n%s\nwanted one error %d:%d '%s', got %d:\n", text, line, col, want,
		              e.n_errors);
		for (int i = 0; i < e.n_errors; i++)
			print_message("  %s:%d:%d: %s\n", e.errors[i].file, e.errors[i].line,
			              e.errors[i].column, e.errors[i].message);
		fail();
	}
	assert_int_equal(rc, -EINVAL);
	assert_null(r);
	env_finish(&e);
}

#define HEAD "route t\nduration 10s\n"

static const struct route_event *ev_at(const struct route *r, size_t i)
{
	size_t n;
	const struct route_event *ev = route_events(r, &n);
	assert_true(i < n);
	return &ev[i];
}

static void assert_ev(const struct route *r, size_t i, int64_t t, int type, int code, int value)
{
	const struct route_event *e = ev_at(r, i);
	if (e->t_ms != t || (int)e->type != type || e->code != code || e->value != value) {
		print_message("event %zu: got t=%lld type=%d code=%d value=%d, want t=%lld type=%d "
		              "code=%d value=%d\n", i, (long long)e->t_ms, e->type, e->code, e->value,
		              (long long)t, type, code, value);
		fail();
	}
}

static size_t n_events(const struct route *r)
{
	size_t n;
	route_events(r, &n);
	return n;
}

/* ---- constructs ---- */

static void test_header__name_duration_window(void **state)
{
	(void)state;
	struct route *r = parse_ok("# comment line\nroute kokiri-moving   # trailing\n"
	                           "duration 125s\nwindow 30s 110s\n");
	assert_string_equal(route_name(r), "kokiri-moving");
	assert_int_equal(route_duration_ms(r), 125000);
	int64_t a, b;
	route_window_ms(r, &a, &b);
	assert_int_equal(a, 30000);
	assert_int_equal(b, 110000);
	assert_int_equal(n_events(r), 0);
	route_free(r);
}

static void test_header__window_defaults_to_whole_route(void **state)
{
	(void)state;
	struct route *r = parse_ok(HEAD);
	int64_t a, b;
	route_window_ms(r, &a, &b);
	assert_int_equal(a, 0);
	assert_int_equal(b, 10000);
	route_free(r);
}

static void test_time__units_and_fractions(void **state)
{
	(void)state;
	int64_t t;
	assert_int_equal(route_parse_time("2s", &t), 0);
	assert_int_equal(t, 2000);
	assert_int_equal(route_parse_time("1.5s", &t), 0);
	assert_int_equal(t, 1500);
	assert_int_equal(route_parse_time("0.001s", &t), 0);
	assert_int_equal(t, 1);
	assert_int_equal(route_parse_time("1.2500s", &t), 0);
	assert_int_equal(t, 1250);
	assert_int_equal(route_parse_time("250ms", &t), 0);
	assert_int_equal(t, 250);
	assert_int_equal(route_parse_time("7200s", &t), 0);
	assert_int_equal(t, 7200000);
	assert_int_equal(route_parse_time("1.0001s", &t), -EINVAL);
	assert_int_equal(route_parse_time("1.5ms", &t), -EINVAL);
	assert_int_equal(route_parse_time("5", &t), -EINVAL);
	assert_int_equal(route_parse_time("5m", &t), -EINVAL);
	assert_int_equal(route_parse_time(".5s", &t), -EINVAL);
	assert_int_equal(route_parse_time("-1s", &t), -EINVAL);

	char buf[32];
	route_format_time(1500, buf, sizeof buf);
	assert_string_equal(buf, "1.5s");
	route_format_time(250, buf, sizeof buf);
	assert_string_equal(buf, "250ms");
	route_format_time(12000, buf, sizeof buf);
	assert_string_equal(buf, "12s");
	route_format_time(1234, buf, sizeof buf);
	assert_string_equal(buf, "1.234s");
	route_format_time(0, buf, sizeof buf);
	assert_string_equal(buf, "0s");
}

static void test_press__down_then_up(void **state)
{
	(void)state;
	struct route *r = parse_ok(HEAD "1s press A 100ms\n2s press rb 1s\n");
	assert_int_equal(n_events(r), 4);
	assert_ev(r, 0, 1000, ROUTE_EVENT_KEY, BTN_SOUTH, 1);
	assert_ev(r, 1, 1100, ROUTE_EVENT_KEY, BTN_SOUTH, 0);
	assert_ev(r, 2, 2000, ROUTE_EVENT_KEY, BTN_TR, 1);
	assert_ev(r, 3, 3000, ROUTE_EVENT_KEY, BTN_TR, 0);
	assert_int_equal(ev_at(r, 0)->line, 3);
	assert_string_equal(ev_at(r, 0)->file, "dir/test.route");
	assert_int_equal(route_pad_event_count(r), 4);
	assert_int_equal(route_instant_count(r), 4);
	route_free(r);
}

static void test_press__every_button_and_alias(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		int code;
	} b[] = {
		{ "A", BTN_SOUTH }, { "B", BTN_EAST }, { "X", BTN_NORTH }, { "Y", BTN_WEST },
		{ "LB", BTN_TL }, { "RB", BTN_TR }, { "BACK", BTN_SELECT }, { "START", BTN_START },
		{ "GUIDE", BTN_MODE }, { "LS", BTN_THUMBL }, { "RS", BTN_THUMBR },
		{ "select", BTN_SELECT }, { "view", BTN_SELECT }, { "MENU", BTN_START },
		{ "home", BTN_MODE }, { "MODE", BTN_MODE }, { "L3", BTN_THUMBL }, { "R3", BTN_THUMBR },
		{ "L1", BTN_TL }, { "R1", BTN_TR },
	};
	for (size_t i = 0; i < sizeof b / sizeof *b; i++) {
		char text[128];
		snprintf(text, sizeof text, HEAD "1s press %s 10ms\n", b[i].name);
		struct route *r = parse_ok(text);
		assert_ev(r, 0, 1000, ROUTE_EVENT_KEY, b[i].code, 1);
		assert_ev(r, 1, 1010, ROUTE_EVENT_KEY, b[i].code, 0);
		route_free(r);
	}
}

static void test_hold_release__explicit(void **state)
{
	(void)state;
	struct route *r = parse_ok(HEAD "1s hold X\n1.5s hold Y\n3s release X\n4s release Y\n");
	assert_int_equal(n_events(r), 4);
	assert_ev(r, 0, 1000, ROUTE_EVENT_KEY, BTN_NORTH, 1);
	assert_ev(r, 1, 1500, ROUTE_EVENT_KEY, BTN_WEST, 1);
	assert_ev(r, 2, 3000, ROUTE_EVENT_KEY, BTN_NORTH, 0);
	assert_ev(r, 3, 4000, ROUTE_EVENT_KEY, BTN_WEST, 0);
	route_free(r);
}

static void test_hold__may_last_to_the_end(void **state)
{
	(void)state;
	struct route *r = parse_ok(HEAD "1s hold A\n");
	assert_int_equal(n_events(r), 1);
	route_free(r);
}

static void test_stick__values_scale_to_the_pad_range(void **state)
{
	(void)state;
	struct route *r = parse_ok(HEAD "1s stick left 0 -1 for 4s\n"
	                                "2s stick right 1 0.5\n"
	                                "3s stick right -0.5 -0.25\n"
	                                "4s stick right 0 0\n");
	/* only changes: left X stays 0 */
	assert_int_equal(n_events(r), 8);
	assert_ev(r, 0, 1000, ROUTE_EVENT_ABS, ABS_Y, -32768);
	assert_ev(r, 1, 2000, ROUTE_EVENT_ABS, ABS_RX, 32767);
	assert_ev(r, 2, 2000, ROUTE_EVENT_ABS, ABS_RY, 16384); /* 0.5 * 32767 rounded */
	assert_ev(r, 3, 3000, ROUTE_EVENT_ABS, ABS_RX, -16384);
	assert_ev(r, 4, 3000, ROUTE_EVENT_ABS, ABS_RY, -8192);
	assert_ev(r, 5, 4000, ROUTE_EVENT_ABS, ABS_RX, 0);
	assert_ev(r, 6, 4000, ROUTE_EVENT_ABS, ABS_RY, 0);
	assert_ev(r, 7, 5000, ROUTE_EVENT_ABS, ABS_Y, 0);
	route_free(r);
}

static void test_stick__new_value_at_the_end_of_a_timed_one(void **state)
{
	(void)state;
	/* the end of the first and the second's start share an instant: the
	 * second wins, and nothing is said twice */
	struct route *r = parse_ok(HEAD "1s stick left 1 0 for 1s\n2s stick left 0 1\n");
	assert_int_equal(n_events(r), 3);
	assert_ev(r, 0, 1000, ROUTE_EVENT_ABS, ABS_X, 32767);
	assert_ev(r, 1, 2000, ROUTE_EVENT_ABS, ABS_X, 0);
	assert_ev(r, 2, 2000, ROUTE_EVENT_ABS, ABS_Y, 32767);
	assert_int_equal(route_instant_count(r), 2);
	route_free(r);
}

static void test_stick__same_value_gives_no_event(void **state)
{
	(void)state;
	struct route *r = parse_ok(HEAD "1s stick left 1 0 for 1s\n2s stick left 1 0\n");
	/* at 2s the end (0) and the new value (1) cancel out */
	assert_int_equal(n_events(r), 1);
	assert_ev(r, 0, 1000, ROUTE_EVENT_ABS, ABS_X, 32767);
	route_free(r);
}

static void test_trigger__range_0_to_255(void **state)
{
	(void)state;
	struct route *r = parse_ok(HEAD "1s trigger left 1 for 200ms\n2s trigger right 0.5\n");
	assert_int_equal(n_events(r), 3);
	assert_ev(r, 0, 1000, ROUTE_EVENT_ABS, ABS_Z, 255);
	assert_ev(r, 1, 1200, ROUTE_EVENT_ABS, ABS_Z, 0);
	assert_ev(r, 2, 2000, ROUTE_EVENT_ABS, ABS_RZ, 128);
	route_free(r);
}

static void test_dpad__directions(void **state)
{
	(void)state;
	struct route *r = parse_ok(HEAD "1s dpad up for 100ms\n2s dpad down-right\n3s dpad centre\n"
	                                "4s dpad left for 1s\n");
	assert_ev(r, 0, 1000, ROUTE_EVENT_ABS, ABS_HAT0Y, -1);
	assert_ev(r, 1, 1100, ROUTE_EVENT_ABS, ABS_HAT0Y, 0);
	assert_ev(r, 2, 2000, ROUTE_EVENT_ABS, ABS_HAT0X, 1);
	assert_ev(r, 3, 2000, ROUTE_EVENT_ABS, ABS_HAT0Y, 1);
	assert_ev(r, 4, 3000, ROUTE_EVENT_ABS, ABS_HAT0X, 0);
	assert_ev(r, 5, 3000, ROUTE_EVENT_ABS, ABS_HAT0Y, 0);
	assert_ev(r, 6, 4000, ROUTE_EVENT_ABS, ABS_HAT0X, -1);
	assert_ev(r, 7, 5000, ROUTE_EVENT_ABS, ABS_HAT0X, 0);
	assert_int_equal(n_events(r), 8);
	route_free(r);
}

static void test_shot_mark__points_in_order(void **state)
{
	(void)state;
	struct route *r = parse_ok(HEAD "1s shot first\n2s mark turn\n2s press A 1ms\n3s shot second\n");
	size_t ns, nm;
	const struct route_point *s = route_shots(r, &ns);
	const struct route_point *m = route_marks(r, &nm);
	assert_int_equal(ns, 2);
	assert_int_equal(nm, 1);
	assert_string_equal(s[0].name, "first");
	assert_int_equal(s[0].t_ms, 1000);
	assert_string_equal(s[1].name, "second");
	assert_string_equal(m[0].name, "turn");
	assert_int_equal(m[0].t_ms, 2000);
	/* within an instant, pad events come before points */
	assert_int_equal(ev_at(r, 0)->type, ROUTE_EVENT_SHOT);
	assert_int_equal(ev_at(r, 1)->type, ROUTE_EVENT_KEY);
	assert_int_equal(ev_at(r, 2)->type, ROUTE_EVENT_MARK);
	assert_string_equal(ev_at(r, 2)->name, "turn");
	assert_int_equal(route_pad_event_count(r), 2);
	route_free(r);
}

static void test_actions__overlap_across_controls(void **state)
{
	(void)state;
	struct route *r = parse_ok(HEAD "1s stick left 0 -1 for 4s\n1.5s press A 3s\n"
	                                "2s stick right 1 0 for 1s\n2.5s trigger left 1 for 1s\n");
	assert_int_equal(route_pad_event_count(r), 8);
	route_free(r);
}

static void test_repeat__block_relative_times(void **state)
{
	(void)state;
	struct route *r = parse_ok(HEAD "1s repeat 3 every 2s {\n"
	                                "  0s press A 100ms\n"
	                                "  1s stick left 1 0 for 500ms\n"
	                                "}\n");
	assert_int_equal(n_events(r), 12);
	for (int k = 0; k < 3; k++) {
		int64_t base = 1000 + k * 2000;
		assert_ev(r, (size_t)k * 4 + 0, base, ROUTE_EVENT_KEY, BTN_SOUTH, 1);
		assert_ev(r, (size_t)k * 4 + 1, base + 100, ROUTE_EVENT_KEY, BTN_SOUTH, 0);
		assert_ev(r, (size_t)k * 4 + 2, base + 1000, ROUTE_EVENT_ABS, ABS_X, 32767);
		assert_ev(r, (size_t)k * 4 + 3, base + 1500, ROUTE_EVENT_ABS, ABS_X, 0);
	}
	route_free(r);
}

static void test_repeat__points_get_the_repetition_number(void **state)
{
	(void)state;
	struct route *r = parse_ok(HEAD "0s repeat 2 every 4s {\n"
	                                "  0s repeat 2 every 1s {\n"
	                                "    0.5s shot s\n"
	                                "  }\n"
	                                "  3s mark m\n"
	                                "}\n");
	size_t ns, nm;
	const struct route_point *s = route_shots(r, &ns);
	const struct route_point *m = route_marks(r, &nm);
	assert_int_equal(ns, 4);
	/* the outer repetition's number comes first */
	assert_string_equal(s[0].name, "s-1-1");
	assert_int_equal(s[0].t_ms, 500);
	assert_string_equal(s[1].name, "s-1-2");
	assert_int_equal(s[1].t_ms, 1500);
	assert_string_equal(s[2].name, "s-2-1");
	assert_int_equal(s[2].t_ms, 4500);
	assert_string_equal(s[3].name, "s-2-2");
	assert_int_equal(nm, 2);
	assert_string_equal(m[0].name, "m-1");
	assert_int_equal(m[0].t_ms, 3000);
	assert_string_equal(m[1].name, "m-2");
	assert_int_equal(m[1].t_ms, 7000);
	route_free(r);
}

static void test_repeat__press_may_end_at_the_block_length(void **state)
{
	(void)state;
	struct route *r = parse_ok(HEAD "0s repeat 2 every 1s {\n  0.5s press A 500ms\n}\n");
	assert_int_equal(n_events(r), 4);
	assert_ev(r, 1, 1000, ROUTE_EVENT_KEY, BTN_SOUTH, 0);
	assert_ev(r, 2, 1500, ROUTE_EVENT_KEY, BTN_SOUTH, 1);
	route_free(r);
}

static void test_include__at_its_time_relative_to_the_file(void **state)
{
	(void)state;
	static const struct vfile files[] = {
		{ "dir/walk.inc", "0s stick left 0 -1 for 1s\n1s include sub/pan.inc\n" },
		{ "dir/sub/pan.inc", "# pans\n0.5s stick right 1 0 for 250ms\n0.5s shot pan\n" },
		{ NULL, NULL },
	};
	struct env e = { .files = files };
	struct route *r = NULL;
	int rc = parse_env(&e, HEAD "2s include walk.inc\n6s include walk.inc\n", &r);
	assert_int_equal(rc, -EINVAL);
	assert_int_equal(e.n_errors, 1); /* the shot 'pan' is taken twice */
	assert_string_equal(e.errors[0].file, "dir/sub/pan.inc");
	assert_string_equal(e.errors[0].message, "shot 'pan' is taken twice, at 3.5s and at 7.5s");
	env_finish(&e);

	struct env e2 = { .files = files };
	rc = parse_env(&e2, HEAD "2s include walk.inc\n", &r);
	assert_int_equal(e2.n_errors, 0);
	assert_int_equal(rc, 0);
	assert_string_equal(e2.read_log[0], "dir/walk.inc");
	assert_string_equal(e2.read_log[1], "dir/sub/pan.inc");
	assert_ev(r, 0, 2000, ROUTE_EVENT_ABS, ABS_Y, -32768);
	assert_ev(r, 1, 3000, ROUTE_EVENT_ABS, ABS_Y, 0);
	assert_ev(r, 2, 3500, ROUTE_EVENT_ABS, ABS_RX, 32767);
	assert_int_equal(ev_at(r, 3)->type, ROUTE_EVENT_SHOT);
	assert_string_equal(ev_at(r, 3)->file, "dir/sub/pan.inc");
	assert_int_equal(ev_at(r, 3)->line, 3);
	assert_ev(r, 4, 3750, ROUTE_EVENT_ABS, ABS_RX, 0);
	route_free(r);
	env_finish(&e2);
}

static void test_include__inside_a_repeat(void **state)
{
	(void)state;
	static const struct vfile files[] = {
		{ "dir/tap.inc", "0s press B 50ms\n" },
		{ NULL, NULL },
	};
	struct env e = { .files = files };
	struct route *r = NULL;
	assert_int_equal(parse_env(&e, HEAD "0s repeat 3 every 100ms {\n 10ms include tap.inc\n}\n",
	                           &r), 0);
	assert_int_equal(n_events(r), 6);
	assert_ev(r, 4, 210, ROUTE_EVENT_KEY, BTN_EAST, 1);
	route_free(r);
	env_finish(&e);
}

static void test_errors__are_sorted_and_all_reported(void **state)
{
	(void)state;
	struct env e = { 0 };
	struct route *r = NULL;
	struct util_diag first;
	struct route_parse_options opt = { .on_error = keep_error, .error_ctx = &e };
	const char *text = "route t\nduration 5s\n1s press Q 1ms\n2s stick left 2 0\n9s shot late\n";
	assert_int_equal(route_parse("x.route", text, strlen(text), &opt, &r, &first), -EINVAL);
	assert_int_equal(e.n_errors, 3);
	assert_int_equal(e.errors[0].line, 3);
	assert_int_equal(e.errors[1].line, 4);
	assert_int_equal(e.errors[2].line, 5);
	assert_int_equal(first.line, 3);
	assert_int_equal(first.column, 10);
	assert_string_equal(first.file, "x.route");

	/* without a callback the first error still comes back */
	struct util_diag only;
	assert_int_equal(route_parse("x.route", text, strlen(text), NULL, &r, &only), -EINVAL);
	assert_int_equal(only.line, 3);
}

/* ---- every error, with its position ---- */

static void test_error__header(void **state)
{
	(void)state;
	expect_error("duration 5s\n", 1, 1, "no 'route NAME' line");
	expect_error("route t\n", 1, 1, "no 'duration TIME' line");
	expect_error("route t\nroute u\nduration 1s\n", 2, 1, "'route' is given twice (first at line 1)");
	expect_error("route a/b\nduration 1s\n", 1, 7, "route name 'a/b' may hold only");
	expect_error("route t\nduration 0s\n", 2, 10, "at least 1 ms");
	expect_error("route t\nduration 25h\n", 2, 10, "unknown unit");
	expect_error("route t\nduration 90000s\n", 2, 10, "longer than the 24 h");
	expect_error("route t\nduration 5s\nduration 6s\n", 3, 1, "'duration' is given twice");
	expect_error("route t\nduration\n", 2, 1, "'duration' needs a time");
	expect_error("route t\nduration 5s extra\n", 2, 13, "unexpected 'extra'");
}

static void test_error__window(void **state)
{
	(void)state;
	expect_error(HEAD "window 2s 12s\n", 3, 11, "the window's end 12s is past the duration 10s");
	expect_error(HEAD "window 10s 12s\n", 3, 8, "the window's start 10s is not inside the duration 10s");
	expect_error(HEAD "window 5s 3s\n", 3, 8, "the window's start 5s is not before its end 3s");
	expect_error(HEAD "window 5s\n", 3, 1, "'window' needs a start and an end");
	expect_error(HEAD "window 1s 2s\nwindow 1s 2s\n", 4, 1, "'window' is given twice");
	expect_error(HEAD "0s repeat 1 every 1s {\nwindow 1s 2s\n}\n", 4, 1,
	             "'window' cannot be inside a repeat block");
}

static void test_error__times(void **state)
{
	(void)state;
	expect_error(HEAD "2s press A 1ms\n1s press B 1ms\n", 4, 1,
	             "time 1s goes back before the line above's 2s");
	expect_error(HEAD "0s repeat 2 every 2s {\n 1s press A 1ms\n 0.5s press B 1ms\n}\n", 5, 2,
	             "goes back before the line above's 1s in this repeat block");
	expect_error(HEAD "5 press A 1ms\n", 3, 1, "'5' needs a unit");
	expect_error(HEAD "1.0005s press A 1ms\n", 3, 1, "finer than 1 ms");
	expect_error(HEAD "1s press A 0.5ms\n", 3, 12, "finer than 1 ms");
	expect_error(HEAD "1s press A 0s\n", 3, 12, "at least 1 ms");
	expect_error(HEAD "11s press A 1ms\n", 3, 1, "this is at 11s, past the route's duration of 10s");
	expect_error(HEAD "9s press A 2s\n", 3, 1, "this ends at 11s, past the route's duration of 10s");
	expect_error(HEAD "1s\n", 3, 1, "a time needs an action after it");
	expect_error(HEAD "press A 1ms\n", 3, 1, "expected a time or 'route'");
}

static void test_error__buttons(void **state)
{
	(void)state;
	expect_error(HEAD "1s press Q 1ms\n", 3, 10, "unknown button 'Q'");
	expect_error(HEAD "1s press LT 1ms\n", 3, 10, "'LT' is a trigger, not a button: use 'trigger left 1");
	expect_error(HEAD "1s hold up\n", 3, 9, "'up' is on the d-pad");
	expect_error(HEAD "1s press A\n", 3, 4, "'press' needs a button and a duration");
	expect_error(HEAD "1s press A 1s 2s\n", 3, 15, "unexpected '2s'");
	expect_error(HEAD "1s release A\n", 3, 1, "button 'A' is released at 1s but is not down");
	expect_error(HEAD "1s hold A\n2s hold A\n", 4, 1, "button 'A' is already down at 2s (since 1s, line 3)");
	expect_error(HEAD "1s press A 1s\n1.5s press A 1s\n", 4, 1, "button 'A' is already down at 1.5s");
	expect_error(HEAD "1s press A 1s\n1.5s release A\n", 4, 1,
	             "button 'A' is released at 1.5s inside its press at line 3, which lasts until 2s");
	expect_error(HEAD "1s press A 1s\n2s press A 1s\n", 4, 1,
	             "button 'A' goes down at 2s, the instant it goes up (line 3)");
}

static void test_error__axes(void **state)
{
	(void)state;
	expect_error(HEAD "1s stick left 1.5 0\n", 3, 15, "stick value 1.5 is out of range -1..1");
	expect_error(HEAD "1s stick right 0 -1.01\n", 3, 18, "stick value -1.01 is out of range");
	expect_error(HEAD "1s stick left x 0\n", 3, 15, "'x' is not a number");
	expect_error(HEAD "1s stick middle 0 0\n", 3, 10, "expected 'left' or 'right', not 'middle'");
	expect_error(HEAD "1s stick left 0\n", 3, 4, "'stick' needs a side and two values");
	expect_error(HEAD "1s stick left 0 0 during 1s\n", 3, 19, "expected 'for DURATION'");
	expect_error(HEAD "1s stick left 0 0 for\n", 3, 19, "'for' needs a duration");
	expect_error(HEAD "1s trigger left -0.1\n", 3, 17, "trigger value -0.1 is out of range 0..1");
	expect_error(HEAD "1s trigger left 1.5\n", 3, 17, "out of range 0..1");
	expect_error(HEAD "1s dpad north\n", 3, 9, "unknown d-pad direction 'north'");
	expect_error(HEAD "1s stick left 1 0 for 2s\n2s stick left 0 1\n", 4, 1,
	             "stick 'left' is set at 2s while the action at line 3 holds it until 3s");
	expect_error(HEAD "1s trigger right 1 for 2s\n2s trigger right 0.5 for 1s\n", 4, 1,
	             "trigger 'right' is set at 2s while");
	expect_error(HEAD "1s dpad up for 1s\n1.5s dpad down\n", 4, 1, "the d-pad is set at 1.5s");
	expect_error(HEAD "1s stick left 1 0\n1s stick left 0 1\n", 4, 1,
	             "stick 'left' is given two values at 1s (lines 3 and 4)");
}

static void test_error__points(void **state)
{
	(void)state;
	expect_error(HEAD "1s shot a/b\n", 3, 9, "shot name 'a/b' may hold only");
	expect_error(HEAD "1s mark .hidden\n", 3, 9, "mark name '.hidden'");
	expect_error(HEAD "1s shot\n", 3, 4, "'shot' needs a name");
	expect_error(HEAD "1s shot a\n2s shot a\n", 4, 1, "shot 'a' is taken twice, at 1s and at 2s");
	expect_error(HEAD "1s mark a\n2s mark a\n", 4, 1, "mark 'a' is taken twice");
	/* a shot and a mark may share a name */
	struct route *r = parse_ok(HEAD "1s shot a\n2s mark a\n");
	route_free(r);
}

static void test_error__repeat(void **state)
{
	(void)state;
	expect_error(HEAD "0s repeat 0 every 1s {\n}\n", 3, 11, "repeat count '0' must be a whole number");
	expect_error(HEAD "0s repeat x every 1s {\n}\n", 3, 11, "repeat count 'x'");
	expect_error(HEAD "0s repeat 2 each 1s {\n}\n", 3, 13, "expected 'every'");
	expect_error(HEAD "0s repeat 2 every 1s\n", 3, 4, "'repeat' needs a count, 'every'");
	expect_error(HEAD "0s repeat 2 every 1s [\n", 3, 22, "expected '{' at the end");
	expect_error(HEAD "0s repeat 2 every 1s {\n 0s press A 1ms\n", 3, 1, "not closed with '}'");
	expect_error(HEAD "}\n", 3, 1, "'}' without an open repeat block");
	expect_error(HEAD "0s repeat 2 every 1s {\n 0.5s press A 600ms\n}\n", 4, 2,
	             "this ends at 1.1s into the repeat block, past its length 'every 1s'");
	expect_error(HEAD "0s repeat 2 every 1s {\n 0s hold A\n}\n", 4, 2,
	             "button 'A' is already down at 1s");
	expect_error(HEAD "0s repeat 20 every 1s {\n 0s press A 1ms\n}\n", 4, 2,
	             "this ends at 10.001s, past the route's duration of 10s");
	expect_error(HEAD "0s repeat 1000000 every 1ms {\n 0s repeat 1000000 every 1ms {\n"
	                  "  0s press A 1ms\n }\n}\n", 4, 2, "expands to more than");
	/* nesting deeper than the limit */
	char text[1024] = HEAD;
	for (int i = 0; i <= ROUTE_MAX_REPEAT_DEPTH; i++)
		strcat(text, "0s repeat 1 every 1s {\n");
	for (int i = 0; i <= ROUTE_MAX_REPEAT_DEPTH; i++)
		strcat(text, "}\n");
	struct env e = { 0 };
	struct route *r = NULL;
	assert_int_equal(parse_env(&e, text, &r), -EINVAL);
	assert_true(e.n_errors >= 1);
	assert_int_equal(e.errors[0].line, 3 + ROUTE_MAX_REPEAT_DEPTH);
	assert_non_null(strstr(e.errors[0].message, "nest deeper than"));
	env_finish(&e);
}

static void test_error__include(void **state)
{
	(void)state;
	static const struct vfile files[] = {
		{ "dir/a.inc", "0s include b.inc\n" },
		{ "dir/b.inc", "0s include ./a.inc\n" },
		{ "dir/self.inc", "0s include ../dir/self.inc\n" },
		{ "dir/head.inc", "duration 5s\n" },
		{ "dir/bad.inc", "0s press A 1ms\n0.5s press Z 1ms\n" },
		{ "dir/top.inc", "0s include test.route\n" },
		{ NULL, NULL },
	};
	struct env e = { .files = files };
	struct route *r = NULL;
	assert_int_equal(parse_env(&e, HEAD "1s include a.inc\n", &r), -EINVAL);
	assert_int_equal(e.n_errors, 1);
	assert_string_equal(e.errors[0].file, "dir/b.inc");
	assert_int_equal(e.errors[0].line, 1);
	assert_int_equal(e.errors[0].column, 12);
	assert_string_equal(e.errors[0].message,
	                    "include cycle: 'dir/a.inc' includes 'dir/b.inc', which includes "
	                    "'dir/./a.inc' again");
	env_finish(&e);

	struct env e2 = { .files = files };
	assert_int_equal(parse_env(&e2, HEAD "1s include self.inc\n", &r), -EINVAL);
	assert_int_equal(e2.n_errors, 1);
	assert_non_null(strstr(e2.errors[0].message, "include cycle: 'dir/self.inc' includes"));
	env_finish(&e2);

	struct env e3 = { .files = files };
	assert_int_equal(parse_env(&e3, HEAD "1s include top.inc\n", &r), -EINVAL);
	assert_int_equal(e3.n_errors, 1);
	assert_non_null(strstr(e3.errors[0].message, "include cycle: 'dir/test.route' includes"));
	env_finish(&e3);

	struct env e4 = { .files = files };
	assert_int_equal(parse_env(&e4, HEAD "1s include head.inc\n", &r), -EINVAL);
	assert_string_equal(e4.errors[0].file, "dir/head.inc");
	assert_non_null(strstr(e4.errors[0].message, "belongs in the route's own file"));
	env_finish(&e4);

	struct env e5 = { .files = files };
	assert_int_equal(parse_env(&e5, HEAD "1s include bad.inc\n", &r), -EINVAL);
	assert_int_equal(e5.n_errors, 1);
	assert_string_equal(e5.errors[0].file, "dir/bad.inc");
	assert_int_equal(e5.errors[0].line, 2);
	assert_int_equal(e5.errors[0].column, 12);
	env_finish(&e5);

	expect_error(HEAD "1s include missing.inc\n", 3, 12,
	             "cannot read included file 'dir/missing.inc': No such file or directory");
	expect_error(HEAD "1s include\n", 3, 4, "'include' needs a file name");
}

static void test_error__misc(void **state)
{
	(void)state;
	expect_error(HEAD "1s jump\n", 3, 4, "unknown action 'jump'");
	static const char nul[] = "route t\nduration 1s\n0s pre\0ss A 1ms\n";
	struct env e = { 0 };
	struct route *r = NULL;
	struct route_parse_options opt = { .on_error = keep_error, .error_ctx = &e };
	assert_int_equal(route_parse("n.route", nul, sizeof nul - 1, &opt, &r, NULL), -EINVAL);
	assert_int_equal(e.n_errors, 1);
	assert_int_equal(e.errors[0].line, 3);
	assert_int_equal(e.errors[0].column, 7);
	assert_non_null(strstr(e.errors[0].message, "NUL byte"));
}

static void test_load__missing_file(void **state)
{
	(void)state;
	struct route *r = NULL;
	struct util_diag e;
	assert_int_equal(route_load("/nonexistent/x.route", &r, &e), -ENOENT);
	assert_null(r);
	assert_int_equal(e.line, 0);
	assert_string_equal(e.message, "cannot open route '/nonexistent/x.route': No such file or directory");
}

#define LONG "route t\nduration 6000s\n"

static void test_limit__exactly_a_million_actions(void **state)
{
	(void)state;
	/* a press with a length is two actions (down, up): 500,000 of them is
	 * the limit itself, taken; one more is refused at the block's line */
	struct route *r = parse_ok(LONG "0s repeat 500000 every 10ms {\n  0s press A 5ms\n}\n");
	size_t n;
	route_events(r, &n);
	assert_int_equal(n, ROUTE_MAX_EVENTS);
	route_free(r);
	expect_error(LONG "0s repeat 500001 every 10ms {\n  0s press A 5ms\n}\n", 3, 1,
	             "the route expands to more than 1000000 actions");
	/* one action too many after the block: at that action's line */
	expect_error(LONG "0s repeat 500000 every 10ms {\n  0s press A 5ms\n}\n9s mark x\n", 6, 1,
	             "the route expands to more than 1000000 actions");
	/* the same limit through an include */
	struct vfile files[] = { { "dir/many.inc", "0s repeat 500000 every 10ms {\n  0s press A 5ms\n}\n" },
		                 { NULL, NULL } };
	struct env e = { .files = files };
	r = NULL;
	assert_int_equal(parse_env(&e, LONG "0s include many.inc\n", &r), 0);
	route_events(r, &n);
	assert_int_equal(n, ROUTE_MAX_EVENTS);
	route_free(r);
	env_finish(&e);
}

static void test_load__fifo_is_refused_at_once(void **state)
{
	(void)state;
	char dir[] = "/tmp/rxdeck-route-fifo-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char fifo[128], route[128];
	snprintf(fifo, sizeof fifo, "%s/pipe.route", dir);
	snprintf(route, sizeof route, "%s/main.route", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	FILE *f = fopen(route, "w");
	assert_non_null(f);
	fprintf(f, "route r\nduration 5s\n0s include pipe.route\n");
	assert_int_equal(fclose(f), 0);
	alarm(10); /* a FIFO that blocks the open ends the test */
	struct route *r = NULL;
	struct util_diag e;
	assert_int_equal(route_load(fifo, &r, &e), -EINVAL);
	assert_null(r);
	char want[256];
	snprintf(want, sizeof want, "cannot open route '%s': not a regular file", fifo);
	assert_string_equal(e.message, want);
	/* as an include */
	assert_int_equal(route_load(route, &r, &e), -EINVAL);
	assert_int_equal(e.line, 3);
	if (!strstr(e.message, "cannot read included file '") || !strstr(e.message, "not a regular file"))
		fail_msg("%s", e.message);
	alarm(0);
	unlink(fifo);
	unlink(route);
	rmdir(dir);
}

/* ---- the shipped routes ---- */

static struct route *load_shipped(const char *name)
{
	char path[512];
	const char *root = getenv("RXDECK_SOURCE_ROOT");
	snprintf(path, sizeof path, "%s/routes/%s", root ? root : ".", name);
	struct route *r = NULL;
	struct util_diag e;
	if (route_load(path, &r, &e) != 0) {
		util_diag_print(&e, stderr);
		fail();
	}
	return r;
}

static void test_shipped__smoke(void **state)
{
	(void)state;
	struct route *r = load_shipped("smoke.route");
	assert_string_equal(route_name(r), "smoke");
	assert_int_equal(route_duration_ms(r), 12000);
	int64_t a, b;
	route_window_ms(r, &a, &b);
	assert_true(a >= 1000 && b <= 12000 && b - a >= 8000);
	size_t ns, nm;
	route_shots(r, &ns);
	route_marks(r, &nm);
	assert_true(ns >= 2);
	assert_true(nm >= 1);
	/* a walk (left stick) and a pan (right stick) */
	size_t n;
	const struct route_event *ev = route_events(r, &n);
	bool walk = false, pan = false;
	for (size_t i = 0; i < n; i++) {
		walk |= ev[i].type == ROUTE_EVENT_ABS && ev[i].code == ABS_Y && ev[i].value < 0;
		pan |= ev[i].type == ROUTE_EVENT_ABS && ev[i].code == ABS_RX && ev[i].value != 0;
	}
	assert_true(walk && pan);
	route_free(r);
}

static void test_shipped__kokiri_moving(void **state)
{
	(void)state;
	struct route *r = load_shipped("kokiri-moving.route");
	assert_string_equal(route_name(r), "kokiri-moving");
	assert_int_equal(route_duration_ms(r), 125000);
	int64_t a, b;
	route_window_ms(r, &a, &b);
	assert_int_equal(a, 30000);
	assert_int_equal(b, 110000);
	size_t ns;
	const struct route_point *s = route_shots(r, &ns);
	assert_true(ns >= 4);
	int inside = 0;
	for (size_t i = 0; i < ns; i++)
		inside += s[i].t_ms >= a && s[i].t_ms <= b;
	assert_true(inside >= 3);
	route_free(r);
}

static void test_shipped__kokiri_conversation(void **state)
{
	(void)state;
	struct route *r = load_shipped("kokiri-conversation.route");
	assert_string_equal(route_name(r), "kokiri-conversation");
	size_t ns;
	route_shots(r, &ns);
	assert_true(ns >= 2);
	route_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header__name_duration_window),
		cmocka_unit_test(test_header__window_defaults_to_whole_route),
		cmocka_unit_test(test_time__units_and_fractions),
		cmocka_unit_test(test_press__down_then_up),
		cmocka_unit_test(test_press__every_button_and_alias),
		cmocka_unit_test(test_hold_release__explicit),
		cmocka_unit_test(test_hold__may_last_to_the_end),
		cmocka_unit_test(test_stick__values_scale_to_the_pad_range),
		cmocka_unit_test(test_stick__new_value_at_the_end_of_a_timed_one),
		cmocka_unit_test(test_stick__same_value_gives_no_event),
		cmocka_unit_test(test_trigger__range_0_to_255),
		cmocka_unit_test(test_dpad__directions),
		cmocka_unit_test(test_shot_mark__points_in_order),
		cmocka_unit_test(test_actions__overlap_across_controls),
		cmocka_unit_test(test_repeat__block_relative_times),
		cmocka_unit_test(test_repeat__points_get_the_repetition_number),
		cmocka_unit_test(test_repeat__press_may_end_at_the_block_length),
		cmocka_unit_test(test_include__at_its_time_relative_to_the_file),
		cmocka_unit_test(test_include__inside_a_repeat),
		cmocka_unit_test(test_errors__are_sorted_and_all_reported),
		cmocka_unit_test(test_error__header),
		cmocka_unit_test(test_error__window),
		cmocka_unit_test(test_error__times),
		cmocka_unit_test(test_error__buttons),
		cmocka_unit_test(test_error__axes),
		cmocka_unit_test(test_error__points),
		cmocka_unit_test(test_error__repeat),
		cmocka_unit_test(test_error__include),
		cmocka_unit_test(test_error__misc),
		cmocka_unit_test(test_load__missing_file),
		cmocka_unit_test(test_load__fifo_is_refused_at_once),
		cmocka_unit_test(test_limit__exactly_a_million_actions),
		cmocka_unit_test(test_shipped__smoke),
		cmocka_unit_test(test_shipped__kokiri_moving),
		cmocka_unit_test(test_shipped__kokiri_conversation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
