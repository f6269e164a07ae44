/* test-plan-parse: the plan parser: every key, the embedded default, every
 * error with its position, overrides from the command line, deadlines,
 * word splitting and env profiles. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sys/stat.h>
#include <unistd.h>

#include "plan/plan.h"

struct errs {
	struct util_diag e[64];
	int n;
};

static void keep_error(void *ctx, const struct util_diag *err)
{
	struct errs *e = ctx;
	if (e->n < 64)
		e->e[e->n++] = *err;
}

static int parse(const char *text, struct plan **out, struct errs *errs)
{
	struct plan_parse_options opt = { .on_error = keep_error, .error_ctx = errs };
	return plan_parse("dir/test.ini", text, strlen(text), &opt, out, NULL);
}

static const char full_plan[] =
	"; a plan with every key\n"
	"[campaign]\n"
	"name = night-1\n"
	"notes = first line\n"
	"   second line\n"
	"route = routes/smoke.route\n"
	"profile = deck\n"
	"collect = rxvk\n"
	"order = ABBA\n"
	"rounds = 3\n"
	"warmup = no\n"
	"watchdog = 5s\n"
	"start_timeout = 1min\n"
	"start_delay = 500ms\n"
	"hard_limit = 300s\n"
	"stop_timeout = 3s\n"
	"inherit = RX_VK_DEVICE HOME\n"
	"pad = socket\n"
	"frames = rxvk\n"
	"\n"
	"[void]\n"
	"swap_factor = 2\n"
	"swap_min_pages = 5000\n"
	"shot_luma = off\n"
	"clock_drop_pct = 15\n"
	"temp_max_c = 95\n"
	"min_coverage = 75\n"
	"\n"
	"[build new]\n"
	"command = /opt/game/bin/game --fullscreen \"--title=a b\" ; a comment\n"
	"    --extra\n"
	"commit = abc123\n"
	"workdir = /opt/game\n"
	"\n"
	"[build old]\n"
	"binary = ../old/rxdeck-forest\n"
	"\n"
	"[arm A]\n"
	"label = baseline\n"
	"build = old\n"
	"\n"
	"[arm B]\n"
	"label = early readback\n"
	"build = new\n"
	"env = RX_VK_READBACK_EARLY=1\n"
	"      RX_VK_READBACK_EARLY_GAP=8\n"
	"env = RX_X=a=b\n"
	"args = --draws 900\n";

static void test_plan_parse__every_key(void **state)
{
	(void)state;
	struct errs errs = { 0 };
	struct plan *p = NULL;
	assert_int_equal(parse(full_plan, &p, &errs), 0);
	assert_int_equal(errs.n, 0);
	assert_string_equal(p->path, "dir/test.ini");
	assert_string_equal(p->dir, "dir");
	assert_string_equal(p->name, "night-1");
	assert_string_equal(p->notes, "first line\nsecond line");
	assert_string_equal(p->route, "routes/smoke.route");
	assert_string_equal(p->profile, "deck");
	assert_string_equal(p->collect, "rxvk");
	assert_string_equal(plan_order(p), "ABBA");
	assert_int_equal(plan_rounds(p), 3);
	assert_null(p->until);
	assert_int_equal(p->warmup, PLAN_WARMUP_NO);
	assert_true(p->watchdog_s == 5.0);
	assert_true(p->start_timeout_s == 60.0);
	assert_true(p->start_delay_s == 0.5);
	assert_true(p->hard_limit_s == 300.0);
	assert_true(p->stop_timeout_s == 3.0);
	assert_int_equal(p->inherit.n, 2);
	assert_string_equal(p->inherit.v[0], "RX_VK_DEVICE");
	assert_string_equal(p->inherit.v[1], "HOME");
	assert_int_equal(p->pad, PLAN_PAD_SOCKET);
	assert_int_equal(p->frames, PLAN_FRAMES_RXVK);
	assert_true(p->void_rules.swap_factor == 2.0);
	assert_true(p->void_rules.swap_min_pages == 5000.0);
	assert_true(p->void_rules.shot_luma == 0.0);
	assert_true(p->void_rules.clock_drop_pct == 15.0);
	assert_true(p->void_rules.temp_max_c == 95.0);
	assert_true(p->void_rules.min_coverage_pct == 75.0);

	assert_int_equal(p->n_builds, 2);
	const struct plan_build *b = plan_build_find(p, "new");
	assert_non_null(b);
	assert_int_equal(b->argv.n, 4);
	assert_string_equal(b->argv.v[0], "/opt/game/bin/game");
	assert_string_equal(b->argv.v[1], "--fullscreen");
	assert_string_equal(b->argv.v[2], "--title=a b");
	assert_string_equal(b->argv.v[3], "--extra");
	assert_null(b->argv.v[4]);
	assert_string_equal(b->commit, "abc123");
	assert_string_equal(b->workdir, "/opt/game");
	assert_null(b->pad_option); /* a real game is not told */
	assert_int_equal(b->argv_pos.line, 30);
	assert_int_equal(b->argv_pos.column, 11);
	const struct plan_build *old = plan_build_find(p, "old");
	assert_string_equal(old->argv.v[0], "../old/rxdeck-forest");
	assert_string_equal(old->pad_option, "--pad"); /* the demo game is */

	assert_int_equal(p->n_arms, 2);
	const struct plan_arm *a = plan_arm_find(p, 'A');
	assert_string_equal(a->label, "baseline");
	assert_ptr_equal(plan_arm_build(p, a), old);
	assert_int_equal(a->env.n, 0);
	const struct plan_arm *arm_b = plan_arm_find(p, 'B');
	assert_ptr_equal(plan_arm_build(p, arm_b), b);
	assert_int_equal(arm_b->env.n, 3);
	assert_string_equal(arm_b->env.v[0], "RX_VK_READBACK_EARLY=1");
	assert_string_equal(arm_b->env.v[1], "RX_VK_READBACK_EARLY_GAP=8");
	assert_string_equal(arm_b->env.v[2], "RX_X=a=b");
	assert_string_equal(plan_strv_getenv(&arm_b->env, "RX_X"), "a=b");
	assert_int_equal(arm_b->args.n, 2);
	assert_string_equal(arm_b->args.v[1], "900");
	assert_null(plan_arm_find(p, 'C'));
	plan_free(p);
}

static void test_plan_parse__default_plan(void **state)
{
	(void)state;
	struct errs errs = { 0 };
	struct plan *p = NULL;
	assert_int_equal(parse(plan_default_text(), &p, &errs), 0);
	assert_string_equal(p->route, "routes/kokiri-moving.route");
	assert_string_equal(plan_order(p), "ABCDDCBA");
	assert_int_equal(p->warmup, PLAN_WARMUP_EACH);
	assert_int_equal(p->n_arms, 4);
	assert_int_equal(plan_arm_find(p, 'A')->env.n, 0);
	assert_string_equal(plan_arm_find(p, 'B')->env.v[0], "RX_VK_READBACK_LATE=newest");
	assert_string_equal(plan_arm_find(p, 'C')->env.v[0], "RX_VK_READBACK_EARLY=1");
	const struct plan_arm *d = plan_arm_find(p, 'D');
	assert_int_equal(d->env.n, 2);
	assert_string_equal(plan_strv_getenv(&d->env, "RX_VK_READBACK_LATE"), "newest");
	assert_string_equal(plan_strv_getenv(&d->env, "RX_VK_READBACK_EARLY"), "1");
	assert_int_equal(p->n_builds, 1);
	assert_string_equal(p->builds[0].argv.v[0], "forest");
	assert_string_equal(p->builds[0].pad_option, "--pad");
	plan_free(p);
}

static void test_plan_parse__defaults(void **state)
{
	(void)state;
	struct errs errs = { 0 };
	struct plan *p = NULL;
	assert_int_equal(parse("[arm A]\n[arm B]\n[arm C]\n", &p, &errs), 0);
	assert_string_equal(plan_order(p), "ABCCBA");
	assert_int_equal(plan_rounds(p), 1);
	assert_int_equal(p->warmup, PLAN_WARMUP_EACH);
	assert_true(p->watchdog_s == 10.0);
	assert_true(p->void_rules.swap_factor == 1.5);
	assert_true(p->void_rules.swap_min_pages == 10000.0);
	assert_true(p->void_rules.min_coverage_pct == 90.0);
	assert_int_equal(p->n_builds, 1); /* the demo game */
	assert_string_equal(p->builds[0].name, "forest");
	assert_null(p->name);
	assert_null(p->route);
	assert_int_equal(p->pad, PLAN_PAD_AUTO);
	plan_free(p);
}

struct bad_case {
	const char *text;
	int line, column;
	const char *message; /* a part of it */
};

static const struct bad_case bad_cases[] = {
	{ "[campain]\n[arm A]\n", 1, 2, "unknown section [campain]" },
	{ "[campaign\n[arm A]\n", 1, 10, "missing ']'" },
	{ "[campaign] x\n[arm A]\n", 1, 12, "unexpected text after the section name" },
	{ "[campaign]\nroute\n[arm A]\n", 2, 1, "expected 'key = value'" },
	{ "[campaign]\n  = x\n[arm A]\n", 2, 3, "missing key name" },
	{ "[campaign]\nroutes = x\n[arm A]\n", 2, 1, "unknown key 'routes' in [campaign]" },
	{ "[campaign]\nrounds = 0\n[arm A]\n", 2, 10, "rounds '0': expected a whole number" },
	{ "[campaign]\nmax_rounds = 0\n[arm A]\n", 2, 14, "max_rounds '0': expected a whole number" },
	{ "[campaign]\n[verdict]\nprimary = real_fps p98_ms\n[arm A]\n", 3, 20,
	  "primary: unknown metric 'p98_ms'" },
	{ "[campaign]\n[verdict]\nprimary = p99_ms p99_ms\n[arm A]\n", 3, 11,
	  "primary: metric 'p99_ms' named twice" },
	{ "[campaign]\n[verdict]\np99_ms = 0 %\n[arm A]\n", 3, 10, "p99_ms '0 %': expected a minimum effect" },
	{ "[campaign]\n[verdict]\np99_ms = two\n[arm A]\n", 3, 10, "p99_ms 'two'" },
	{ "[campaign]\n[verdict]\np98_ms = 2 %\n[arm A]\n", 3, 1, "unknown key 'p98_ms' in [verdict]" },
	{ "[campaign]\n[verdict]\n[verdict]\n[arm A]\n", 3, 2, "section [verdict] given twice" },
	{ "[campaign]\n[verdict]\ntime_terms = always\n[arm A]\n", 3, 14,
	  "time_terms 'always': expected narrowest or drop-orthogonal" },
	{ "[campaign]\nrounds = 2.5\n[arm A]\n", 2, 10, "rounds '2.5'" },
	{ "[campaign]\nwarmup = maybe\n[arm A]\n", 2, 10, "warmup 'maybe': expected each, first or no" },
	{ "[campaign]\nwatchdog = 10 s\n[arm A]\n", 2, 12, "watchdog '10 s'" },
	{ "[campaign]\nwatchdog = 0s\n[arm A]\n", 2, 12, "positive duration" },
	{ "[campaign]\nwatchdog = 1s\n[arm A]\n", 2, 12,
	  "watchdog '1s' is too short: the frame log is flushed once a second, so give at least 2s" },
	{ "[campaign]\nwatchdog = 1999ms\n[arm A]\n", 2, 12, "watchdog '1999ms' is too short" },
	{ "[campaign]\nuntil = 7:00\n[arm A]\n", 2, 9, "until '7:00'" },
	{ "[campaign]\nuntil = 24:00\n[arm A]\n", 2, 9, "until '24:00'" },
	{ "[campaign]\nrounds = 2\nuntil = 07:00\n[arm A]\n", 3, 9, "'rounds' or 'until', not both" },
	{ "[campaign]\nname = a b\n[arm A]\n", 2, 8, "name 'a b'" },
	{ "[campaign]\nname = x\nname = y\n[arm A]\n", 3, 1, "'name' given twice in this section (first on line 2)" },
	{ "[campaign]\norder = ABxBA\n[arm A]\n[arm B]\n", 2, 11, "'x' is not an arm letter" },
	{ "[campaign]\norder = ABBA\n[arm A]\n", 2, 10, "there is no [arm B]" },
	{ "[campaign]\norder = AA\n[arm A]\n[arm B]\n", 2, 9, "never runs arm B (defined on line 4)" },
	{ "[campaign]\npad = usb\n[arm A]\n", 2, 7, "pad 'usb'" },
	{ "[campaign]\nframes = csv\n[arm A]\n", 2, 10, "frames 'csv'" },
	{ "[campaign]\ninherit = HOME 9X\n[arm A]\n", 2, 11, "inherit '9X'" },
	{ "[campaign]\nlabel = x\n    more\n[arm A]\n", 2, 1, "unknown key 'label'" },
	{ "[campaign]\nroute = x\n    y\n[arm A]\n", 3, 5, "'route' takes one line" },
	{ "route = x\n[arm A]\n", 1, 1, "comes before any section" },
	{ "[campaign]\n[campaign]\n[arm A]\n", 2, 2, "section [campaign] given twice (first on line 1)" },
	{ "[arm a]\n", 1, 6, "bad arm 'a'" },
	{ "[arm AB]\n", 1, 6, "bad arm 'AB'" },
	{ "[arm]\n", 1, 2, "[arm] needs a letter" },
	{ "[arm A]\n[arm A]\n", 2, 6, "arm A given twice (first on line 1)" },
	{ "[arm A]\nenv = NOEQUALS\n", 2, 7, "env 'NOEQUALS': expected KEY=VALUE" },
	{ "[arm A]\nenv = 1X=2\n", 2, 7, "the name before '='" },
	{ "[arm A]\nenv = A=1\n   B C=2\n", 3, 4, "env 'B C=2'" },
	{ "[arm A]\nlabel = x\nlabel = y\n", 3, 1, "'label' given twice" },
	{ "[arm A]\nbuild = nothere\n", 2, 9, "arm A: no build 'nothere' in the plan (builds: forest)" },
	{ "[arm A]\nargs = --title \"open\n", 2, 16, "this quote is not closed" },
	{ "[arm A]\nargs = end\\\n", 2, 11, "a backslash at the end" },
	{ "[build]\n[arm A]\n", 1, 2, "[build] needs a name" },
	{ "[build a/b]\n[arm A]\n", 1, 8, "bad build name 'a/b'" },
	{ "[build x]\n[arm A]\n", 1, 2, "build 'x' needs 'binary' or 'command'" },
	{ "[build x]\nbinary = a\ncommand = b\n[arm A]\n", 3, 11, "give 'binary' or 'command', not both" },
	{ "[build x]\nbinary = a\n[build x]\nbinary = b\n[arm A]\n", 3, 8, "build 'x' given twice" },
	{ "[build x]\npad_option = --pad x\nbinary = a\n[arm A]\n", 2, 14, "pad_option '--pad x'" },
	{ "[void]\nshot_luma = 300\n[arm A]\n", 2, 13, "shot_luma '300'" },
	{ "[void]\nswap_factor = -1\n[arm A]\n", 2, 15, "swap_factor '-1'" },
	{ "[profile]\nlabel = x\n[arm A]\n", 2, 1, "unknown key 'label' in [profile] (known: env)" },
	{ "[campaign]\nname = x\n", 0, 0, "the plan has no arm" },
	{ "[arm A]\nlabel = x\x01y\n[arm Q]\n\x00\n", 4, 1, "NUL byte" },
	{ "\xef\xbb\xbf[campaign]\nrounds = x\n[arm A]\n", 2, 10, "rounds 'x'" },
};

/* Counts, over rounds 1..rounds, how often arm x comes directly before
 * arm y in the first half of each round (the forward part of ABCD...). */
static void carryover(const struct plan *p, int rounds, size_t half, int counts[26][26], int first[26])
{
	char o[64];
	memset(counts, 0, sizeof(int[26][26]));
	memset(first, 0, sizeof(int[26]));
	for (int r = 1; r <= rounds; r++) {
		assert_int_equal(plan_round_order(p, r, o, sizeof o), 0);
		first[o[0] - 'A']++;
		for (size_t i = 0; i + 1 < half; i++)
			counts[o[i] - 'A'][o[i + 1] - 'A']++;
	}
}

static void test_plan_round_order__williams(void **state)
{
	(void)state;
	struct plan *p = NULL;
	struct errs errs = { 0 };
	/* four arms, ABCDDCBA: round 1 as written, over 4 rounds every arm first
	 * once and directly before every other arm once */
	assert_int_equal(parse("[arm A]\n[arm B]\n[arm C]\n[arm D]\n", &p, &errs), 0);
	char o[16];
	assert_int_equal(plan_round_order(p, 1, o, sizeof o), 0);
	assert_string_equal(o, "ABCDDCBA");
	assert_int_equal(plan_round_order(p, 2, o, sizeof o), 0);
	assert_string_not_equal(o, "ABCDDCBA");
	for (int k = 0; k < 4; k++)
		assert_int_equal(o[k], o[7 - k]); /* still forward then backward */
	int counts[26][26], first[26];
	carryover(p, 4, 4, counts, first);
	for (int x = 0; x < 4; x++) {
		assert_int_equal(first[x], 1);
		for (int y = 0; y < 4; y++)
			assert_int_equal(counts[x][y], x == y ? 0 : 1);
	}
	/* round 5 starts the cycle again */
	char o5[16];
	assert_int_equal(plan_round_order(p, 5, o5, sizeof o5), 0);
	assert_string_equal(o5, "ABCDDCBA");
	assert_int_equal(plan_round_order(p, 1, o, 8), -ENOSPC);
	/* warm-ups: each arm by default, in round 1's order */
	assert_int_equal(plan_warmup_arms(p, o, sizeof o), 0);
	assert_string_equal(o, "ABCD");
	p->warmup = PLAN_WARMUP_FIRST;
	assert_int_equal(plan_warmup_arms(p, o, sizeof o), 0);
	assert_string_equal(o, "A");
	p->warmup = PLAN_WARMUP_NO;
	assert_int_equal(plan_warmup_arms(p, o, sizeof o), 0);
	assert_string_equal(o, "");
	plan_free(p);

	/* three arms (odd): 6 rounds, each ordered pair twice, each arm first twice */
	p = NULL;
	assert_int_equal(parse("[arm A]\n[arm B]\n[arm C]\n", &p, &errs), 0);
	carryover(p, 6, 3, counts, first);
	for (int x = 0; x < 3; x++) {
		assert_int_equal(first[x], 2);
		for (int y = 0; y < 3; y++)
			assert_int_equal(counts[x][y], x == y ? 0 : 1 + (x != y));
	}
	plan_free(p);

	/* warmup keys */
	const char *forms[][2] = { { "each", "2" }, { "first", "1" }, { "yes", "1" }, { "no", "0" } };
	for (size_t i = 0; i < 4; i++) {
		char text[128];
		snprintf(text, sizeof text, "[campaign]\nwarmup = %s\n[arm A]\n", forms[i][0]);
		p = NULL;
		assert_int_equal(parse(text, &p, &errs), 0);
		assert_int_equal(p->warmup, atoi(forms[i][1]));
		plan_free(p);
	}
}

static void test_plan_parse__verdict_section(void **state)
{
	(void)state;
	struct plan *p = NULL;
	struct errs errs = { 0 };
	const char *text = "[campaign]\nmax_rounds = 12\n[verdict]\nprimary = real_fps p95_ms\n"
	                   "p95_ms = 3 %\nrb_wait_ms = 10\n[arm A]\n[arm B]\n";
	assert_int_equal(parse(text, &p, &errs), 0);
	assert_int_equal(p->max_rounds, 12);
	assert_int_equal(p->verdict.primary.n, 2);
	assert_string_equal(p->verdict.primary.v[0], "real_fps");
	assert_string_equal(p->verdict.primary.v[1], "p95_ms");
	assert_int_equal(p->verdict.n_min_effects, 2);
	assert_string_equal(p->verdict.min_effects[0].key, "p95_ms");
	assert_float_equal(p->verdict.min_effects[0].pct, 3, 0);
	assert_string_equal(p->verdict.min_effects[1].key, "rb_wait_ms");
	assert_float_equal(p->verdict.min_effects[1].pct, 10, 0);
	assert_int_equal(p->verdict.time_terms, PLAN_TIME_TERMS_NARROWEST);
	plan_free(p);
	p = NULL;
	assert_int_equal(parse("[verdict]\ntime_terms = drop-orthogonal\n[arm A]\n", &p, &errs), 0);
	assert_int_equal(p->verdict.time_terms, PLAN_TIME_TERMS_DROP);
	plan_free(p);
	p = NULL;
	assert_int_equal(parse("[verdict]\ntime_terms = narrowest\n[arm A]\n", &p, &errs), 0);
	assert_int_equal(p->verdict.time_terms, PLAN_TIME_TERMS_NARROWEST);
	plan_free(p);
}

static void test_plan_parse__errors_have_positions(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
		const struct bad_case *c = &bad_cases[i];
		struct errs errs = { 0 };
		struct plan *p = NULL;
		size_t len = strlen(c->text);
		if (strstr(c->message, "NUL"))
			len += 2; /* the text holds a NUL byte and a newline after it */
		struct plan_parse_options opt = { .on_error = keep_error, .error_ctx = &errs };
		struct util_diag first;
		int rc = plan_parse("dir/test.ini", c->text, len, &opt, &p, &first);
		if (rc != -EINVAL || errs.n < 1)
			fail_msg("case %zu: '%s' parsed (rc %d)", i, c->text, rc);
		assert_null(p);
		const struct util_diag *e = &errs.e[0];
		if (e->line != c->line || e->column != c->column || !strstr(e->message, c->message))
			fail_msg("case %zu: got %s:%d:%d: %s; want %d:%d: ...%s...", i, e->file, e->line,
			         e->column, e->message, c->line, c->column, c->message);
		assert_string_equal(e->file, "dir/test.ini");
		assert_memory_equal(&first, e, sizeof first);
	}
}

static void test_plan_parse__all_errors_reported(void **state)
{
	(void)state;
	struct errs errs = { 0 };
	struct plan *p = NULL;
	const char *text = "[campaign]\n"
	                   "rounds = none\n"
	                   "bogus = 1\n"
	                   "[arm A]\n"
	                   "env = X\n"
	                   "[arm b]\n";
	assert_int_equal(parse(text, &p, &errs), -EINVAL);
	assert_int_equal(errs.n, 4);
	assert_int_equal(errs.e[0].line, 2);
	assert_int_equal(errs.e[1].line, 3);
	assert_int_equal(errs.e[2].line, 5);
	assert_int_equal(errs.e[3].line, 6);

	/* printed as file:line:column: message */
	char buf[512];
	FILE *f = fmemopen(buf, sizeof buf, "w");
	plan_diag_print(&errs.e[0], f);
	fclose(f);
	assert_string_equal(buf, "dir/test.ini:2:10: rounds 'none': expected a whole number from 1 to 10000\n");
}

static void test_plan_parse__long_lines_refused(void **state)
{
	(void)state;
	char text[600];
	int n = snprintf(text, sizeof text, "[arm A]\nlabel = ");
	memset(text + n, 'x', 300);
	snprintf(text + n + 300, sizeof text - (size_t)n - 300, "\nenv = BAD\n");
	struct errs errs = { 0 };
	struct plan *p = NULL;
	assert_int_equal(parse(text, &p, &errs), -EINVAL);
	assert_int_equal(errs.n, 2); /* the long line, and the parser kept in step after it */
	assert_int_equal(errs.e[0].line, 2);
	assert_int_equal(errs.e[0].column, PLAN_MAX_LINE + 1);
	assert_non_null(strstr(errs.e[0].message, "longer than"));
	assert_int_equal(errs.e[1].line, 3);
}

static void test_plan_parse__load_names_the_file(void **state)
{
	(void)state;
	struct plan *p = NULL;
	struct util_diag e;
	assert_int_equal(plan_load("/nonexistent/x.ini", NULL, &p, &e), -ENOENT);
	assert_string_equal(e.message, "cannot open plan '/nonexistent/x.ini': No such file or directory");
	assert_int_equal(e.line, 0);
	assert_null(p);
}

static void test_plan_parse__device_keys(void **state)
{
	(void)state;
	const char *text = "[campaign]\nname = d\nroute = r.route\ngpu_clock = 1600\ntdp_w = 12\n"
	                   "min_battery_pct = 25\n[arm A]\ngpu_clock = 1100MHz\n[arm B]\n"
	                   "tdp_w = 7.5\n";
	struct errs errs = { 0 };
	struct plan *p = NULL;
	if (parse(text, &p, &errs) != 0)
		fail_msg("%d:%d: %s", errs.e[0].line, errs.e[0].column, errs.e[0].message);
	assert_int_equal(p->gpu_clock_mhz, 1600);
	assert_true(p->tdp_w == 12 && p->min_battery_pct == 25);
	assert_int_equal(p->arms[0].gpu_clock_mhz, 1100);
	assert_true(p->arms[0].tdp_w == 0 && p->arms[1].tdp_w == 7.5);
	/* written back in the canonical form, parsed to the same */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(plan_write(p, f), 0);
	fclose(f);
	struct plan *q = NULL;
	assert_int_equal(parse(buf, &q, &errs), 0);
	assert_int_equal(q->gpu_clock_mhz, 1600);
	assert_true(q->tdp_w == 12 && q->min_battery_pct == 25);
	assert_int_equal(q->arms[0].gpu_clock_mhz, 1100);
	assert_true(q->arms[1].tdp_w == 7.5);
	free(buf);
	plan_free(q);
	plan_free(p);
	/* defaults: nothing set, 10 % */
	assert_int_equal(parse("[campaign]\nroute = r\n[arm A]\n", &p, &errs), 0);
	assert_true(p->gpu_clock_mhz == 0 && p->tdp_w == 0 && p->min_battery_pct == 10);
	plan_free(p);
	static const struct { const char *text; int line, column; const char *message; } bad[] = {
		{ "[campaign]\nroute = r\ngpu_clock = fast\n[arm A]\n", 3, 13,
		  "gpu_clock 'fast': expected a shader clock in MHz such as 1600" },
		{ "[campaign]\nroute = r\n[arm A]\ntdp_w = -3\n", 4, 9,
		  "tdp_w '-3': expected a TDP limit in watts such as 12" },
		{ "[campaign]\nroute = r\nmin_battery_pct = 120\n[arm A]\n", 3, 19,
		  "min_battery_pct '120': expected a percentage from 0 to 100" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct errs be = { 0 };
		p = NULL;
		assert_int_equal(parse(bad[i].text, &p, &be), -EINVAL);
		if (be.e[0].line != bad[i].line || be.e[0].column != bad[i].column ||
		    !strstr(be.e[0].message, bad[i].message))
			fail_msg("case %zu: %d:%d: %s", i, be.e[0].line, be.e[0].column, be.e[0].message);
	}
}

static void test_plan_set__overrides(void **state)
{
	(void)state;
	struct errs errs = { 0 };
	struct plan *p = NULL;
	assert_int_equal(parse("[campaign]\nuntil = 07:00\n[arm A]\n[arm B]\n", &p, &errs), 0);
	struct util_diag e;
	assert_int_equal(plan_set(p, "--rounds", "rounds", "4", &e), 0);
	assert_int_equal(plan_rounds(p), 4);
	assert_null(p->until);
	assert_int_equal(plan_set(p, "--until", "until", "2030-01-02 06:30", &e), 0);
	assert_int_equal(p->rounds, 0);
	assert_string_equal(p->until, "2030-01-02 06:30");
	assert_int_equal(plan_set(p, "--route", "route", "routes/smoke.route", &e), 0);
	assert_string_equal(p->route, "routes/smoke.route");
	assert_int_equal(plan_set(p, "--rounds", "rounds", "0", &e), -EINVAL);
	assert_string_equal(e.file, "--rounds");
	assert_int_equal(e.line, 0);
	assert_non_null(strstr(e.message, "rounds '0'"));
	assert_string_equal(p->until, "2030-01-02 06:30"); /* unchanged */
	assert_int_equal(plan_set(p, "--x", "bogus", "1", &e), -EINVAL);
	assert_int_equal(plan_set(p, "--inherit", "inherit", "A B", &e), 0);
	assert_int_equal(p->inherit.n, 2);
	assert_int_equal(plan_set(p, "--inherit", "inherit", "C", &e), 0);
	assert_int_equal(p->inherit.n, 1);
	assert_int_equal(plan_set(p, "--inherit", "inherit", "1BAD", &e), -EINVAL);
	assert_int_equal(p->inherit.n, 1);
	assert_string_equal(p->inherit.v[0], "C");
	plan_free(p);
}

static int64_t local_ms(int y, int mo, int d, int h, int mi)
{
	struct tm tm = { .tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d, .tm_hour = h,
	                 .tm_min = mi, .tm_isdst = -1 };
	return (int64_t)mktime(&tm) * 1000;
}

static void test_plan_until__forms(void **state)
{
	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	int64_t t;
	int64_t morning = local_ms(2024, 6, 1, 6, 0);
	assert_int_equal(plan_until_resolve("07:00", morning, &t), 0);
	assert_int_equal(t, local_ms(2024, 6, 1, 7, 0));
	int64_t evening = local_ms(2024, 6, 1, 22, 15);
	assert_int_equal(plan_until_resolve("07:00", evening, &t), 0);
	assert_int_equal(t, local_ms(2024, 6, 2, 7, 0));
	assert_int_equal(plan_until_resolve("22:15", evening, &t), 0); /* now is not "until" */
	assert_int_equal(t, local_ms(2024, 6, 2, 22, 15));
	assert_int_equal(plan_until_resolve("2024-06-03 05:30", evening, &t), 0);
	assert_int_equal(t, local_ms(2024, 6, 3, 5, 30));
	assert_int_equal(plan_until_resolve("2024-06-03T05:30", evening, &t), 0);
	assert_int_equal(t, local_ms(2024, 6, 3, 5, 30));
	const char *bad[] = { "7:00", "07:60", "24:00", "07-00", "", "2024-02-30 07:00",
	                      "2024-13-01 07:00", "2024-06-03  05:30", "tomorrow" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_int_equal(plan_until_resolve(bad[i], evening, &t), -EINVAL);
}

static void test_plan_split_words__quotes(void **state)
{
	(void)state;
	struct plan_strv w = { 0 };
	size_t bad;
	assert_int_equal(plan_split_words("  a 'b c' \"d \\\"e\\\\\" f\\ g '' $HOME *", &w, &bad), 0);
	assert_int_equal(w.n, 7);
	assert_string_equal(w.v[0], "a");
	assert_string_equal(w.v[1], "b c");
	assert_string_equal(w.v[2], "d \"e\\");
	assert_string_equal(w.v[3], "f g");
	assert_string_equal(w.v[4], "");
	assert_string_equal(w.v[5], "$HOME"); /* no shell meaning */
	assert_string_equal(w.v[6], "*");
	assert_int_equal(plan_split_words("x 'open", &w, &bad), -EINVAL);
	assert_int_equal(bad, 2);
	assert_int_equal(w.n, 7); /* nothing appended on failure */
	plan_strv_finish(&w);
	assert_int_equal(w.n, 0);
}

static void test_plan_duration__units(void **state)
{
	(void)state;
	double s;
	assert_int_equal(plan_parse_duration_s("10", &s), 0);
	assert_true(s == 10);
	assert_int_equal(plan_parse_duration_s("250ms", &s), 0);
	assert_true(s == 0.25);
	assert_int_equal(plan_parse_duration_s("2min", &s), 0);
	assert_true(s == 120);
	assert_int_equal(plan_parse_duration_s("1.5h", &s), 0);
	assert_true(s == 5400);
	assert_int_equal(plan_parse_duration_s("-1s", &s), -EINVAL);
	assert_int_equal(plan_parse_duration_s("1 s", &s), -EINVAL);
	assert_int_equal(plan_parse_duration_s("nan", &s), -EINVAL);
	assert_int_equal(plan_parse_duration_s("1e999", &s), -EINVAL);
}

static void test_plan_env__profile(void **state)
{
	(void)state;
	const char *text = "# a profile\n"
	                   "RX_VK_LOG_READBACK_WAITS=1\n"
	                   "\n"
	                   "  RX_VK_DEVICE=llvmpipe  \n"
	                   "MESA_X=a b=c\n"
	                   "RX_VK_DEVICE=radv\n";
	struct plan_strv env = { 0 };
	assert_int_equal(plan_env_parse("p.env", text, strlen(text), NULL, &env, NULL), 0);
	assert_int_equal(env.n, 3);
	assert_string_equal(plan_strv_getenv(&env, "RX_VK_DEVICE"), "radv"); /* the later line wins */
	assert_string_equal(plan_strv_getenv(&env, "MESA_X"), "a b=c");
	assert_null(plan_strv_getenv(&env, "RX_VK"));

	struct errs errs = { 0 };
	struct plan_parse_options opt = { .on_error = keep_error, .error_ctx = &errs };
	const char *bad = "OK=1\n  no equals\nexport X=1\n=1\n";
	struct util_diag first;
	assert_int_equal(plan_env_parse("p.env", bad, strlen(bad), &opt, &env, &first), -EINVAL);
	assert_int_equal(errs.n, 3);
	assert_int_equal(errs.e[0].line, 2);
	assert_int_equal(errs.e[0].column, 3);
	assert_non_null(strstr(errs.e[0].message, "expected KEY=VALUE"));
	assert_int_equal(errs.e[1].line, 3);
	assert_int_equal(errs.e[2].line, 4);
	assert_int_equal(first.line, 2);
	assert_int_equal(env.n, 3); /* untouched */
	plan_strv_finish(&env);

	assert_int_equal(plan_env_load("/nonexistent.env", NULL, &env, &first), -ENOENT);
	assert_non_null(strstr(first.message, "cannot open env profile '/nonexistent.env'"));
}

static int count_errors;
static struct util_diag last_error;

static void count_error(void *ctx, const struct util_diag *err)
{
	(void)ctx;
	count_errors++;
	last_error = *err;
}

static void test_plan_parse__errors_past_the_cap_are_counted(void **state)
{
	(void)state;
	size_t cap = 300 * 16 + 64;
	char *text = malloc(cap);
	size_t len = (size_t)snprintf(text, cap, "[campaign]\n");
	for (int i = 0; i < 250; i++)
		len += (size_t)snprintf(text + len, cap - len, "bogus%d = 1\n", i);
	struct plan_parse_options opt = { .on_error = count_error };
	struct plan *p = NULL;
	count_errors = 0;
	assert_int_equal(plan_parse("many.ini", text, len, &opt, &p, NULL), -EINVAL);
	assert_null(p);
	/* 200 listed, then one line for the rest (the 250 bad keys and more) */
	assert_int_equal(count_errors, 201);
	assert_int_equal(last_error.line, 0);
	if (!strstr(last_error.message, " more errors not listed (") ||
	    strtol(last_error.message, NULL, 10) < 50)
		fail_msg("%s", last_error.message);
	free(text);
}

static void test_plan_load__fifo_is_refused_at_once(void **state)
{
	(void)state;
	char dir[] = "/tmp/rxdeck-plan-fifo-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char fifo[128];
	snprintf(fifo, sizeof fifo, "%s/plan.ini", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	alarm(10); /* a FIFO that blocks the open ends the test */
	struct plan *p = NULL;
	struct util_diag e;
	assert_int_equal(plan_load(fifo, NULL, &p, &e), -ENOTSUP);
	assert_null(p);
	if (!strstr(e.message, "not a regular file"))
		fail_msg("%s", e.message);
	struct plan_strv env = { 0 };
	assert_int_equal(plan_env_load(fifo, NULL, &env, &e), -ENOTSUP);
	if (!strstr(e.message, "not a regular file"))
		fail_msg("%s", e.message);
	alarm(0);
	unlink(fifo);
	rmdir(dir);
}

static void test_plan_strv__setenv(void **state)
{
	(void)state;
	struct plan_strv l = { 0 };
	assert_int_equal(plan_strv_setenv(&l, "A=1"), 0);
	assert_int_equal(plan_strv_setenv(&l, "AB=2"), 0);
	assert_int_equal(plan_strv_setenv(&l, "A=3"), 0);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.v[0], "A=3");
	assert_string_equal(plan_strv_getenv(&l, "AB"), "2");
	assert_int_equal(plan_strv_setenv(&l, "NOEQ"), -EINVAL);
	assert_int_equal(plan_strv_setenv(&l, "1=x"), -EINVAL);
	plan_strv_finish(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_parse__every_key),
		cmocka_unit_test(test_plan_parse__default_plan),
		cmocka_unit_test(test_plan_parse__defaults),
		cmocka_unit_test(test_plan_parse__verdict_section),
		cmocka_unit_test(test_plan_round_order__williams),
		cmocka_unit_test(test_plan_parse__errors_have_positions),
		cmocka_unit_test(test_plan_parse__all_errors_reported),
		cmocka_unit_test(test_plan_parse__long_lines_refused),
		cmocka_unit_test(test_plan_parse__load_names_the_file),
		cmocka_unit_test(test_plan_parse__device_keys),
		cmocka_unit_test(test_plan_set__overrides),
		cmocka_unit_test(test_plan_until__forms),
		cmocka_unit_test(test_plan_split_words__quotes),
		cmocka_unit_test(test_plan_duration__units),
		cmocka_unit_test(test_plan_env__profile),
		cmocka_unit_test(test_plan_load__fifo_is_refused_at_once),
		cmocka_unit_test(test_plan_parse__errors_past_the_cap_are_counted),
		cmocka_unit_test(test_plan_strv__setenv),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
