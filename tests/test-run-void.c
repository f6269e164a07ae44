/* test-run-void: the campaign-wide void rules on a database of finished
 * runs: swap against the campaign's median, a shot unlike the other arms'
 * (equal checksums agree), a low GPU clock whatever the load, heat; warm-up and
 * runs already void are left alone, and every rule can be turned off. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/run.h"

struct fixture {
	struct db *db;
	int64_t campaign;
	int64_t arm[3];
	int64_t run[8]; /* by position - 1 */
};

struct spec {
	char arm;          /* 'A'.. */
	bool warmup;
	double swap_in, sclk, busy, temp, luma;
	const char *checksum;
};

static const struct spec specs[] = {
	/* 1: warm-up, swapping wildly: never judged */
	{ 'A', true, 1e9, 1600, 99, 50, 100, "w" },
	/* 2..7: the measured runs */
	{ 'A', false, 0, 1600, 99, 96, 100, "a1" },     /* 96 C: too hot */
	{ 'B', false, 0, 1600, 99, 70, 103, "b1" },
	{ 'C', false, 0, 1300, 95, 70, 120, "c1" },     /* low clock, busy: throttled */
	{ 'C', false, 20000, 1600, 99, 70, 101, "c2" }, /* swapped heavily */
	{ 'B', false, 100, 1000, 30, 70, 150, "b2" },   /* left the route; low clock, idle */
	{ 'A', false, 5, 1600, 99, 70, 140, "b1" },     /* unlike, but its checksum is B's: same place */
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	assert_int_equal(db_open(":memory:", &f->db), 0);
	struct db_campaign c = { .name = "void-test", .window_start_s = 1, .window_end_s = 9, .order = "ABC" };
	assert_int_equal(db_campaign_create(f->db, &c, &f->campaign), 0);
	for (int i = 0; i < 3; i++) {
		struct db_arm a = { .campaign_id = f->campaign, .letter = (char)('A' + i) };
		assert_int_equal(db_arm_add(f->db, &a, &f->arm[i]), 0);
	}
	size_t n = sizeof specs / sizeof specs[0];
	struct db_run plan[8];
	for (size_t i = 0; i < n; i++)
		plan[i] = (struct db_run){ .arm_id = f->arm[specs[i].arm - 'A'], .round = specs[i].warmup ? 0 : 1,
		                           .position = (int)i + 1, .is_warmup = specs[i].warmup };
	/* one more, already void */
	plan[n] = (struct db_run){ .arm_id = f->arm[0], .round = 1, .position = (int)n + 1 };
	assert_int_equal(db_run_plan(f->db, f->campaign, plan, n + 1), 0);
	struct db_run *runs;
	size_t nr;
	assert_int_equal(db_run_list(f->db, f->campaign, &runs, &nr), 0);
	for (size_t i = 0; i < nr; i++)
		f->run[i] = runs[i].id;
	free(runs);
	for (size_t i = 0; i < n; i++) {
		const struct spec *s = &specs[i];
		struct db_metric m[] = {
			{ "swap_in", s->swap_in }, { "gpu_sclk_mhz", s->sclk },
			{ "gpu_busy_percent", s->busy }, { "gpu_temp_max_c", s->temp }, { "real_fps", 60 },
		};
		struct db_shot shot = { .name = "walk", .luma = s->luma, .checksum = s->checksum };
		struct db_run_results r = {
			.metrics = m, .n_metrics = 5, .shots = &shot, .n_shots = 1,
			.status = DB_RUN_DONE, .exit_status = 0,
		};
		assert_int_equal(db_run_mark_running(f->db, f->run[i], 0, "/tmp/x"), 0);
		assert_int_equal(db_run_store_results(f->db, f->run[i], &r), 0);
	}
	assert_int_equal(db_run_mark_void(f->db, f->run[n], "hung: no new frame for 10 s", 0, 137), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	db_close(f->db);
	free(f);
	return 0;
}

static char *reason(struct fixture *f, int position)
{
	struct db_run *r;
	assert_int_equal(db_run_get(f->db, f->run[position - 1], &r), 0);
	char *s = r->status == DB_RUN_VOID ? strdup(r->void_reason) : NULL;
	free(r);
	return s;
}

static void expect(struct fixture *f, int position, const char *part)
{
	char *s = reason(f, position);
	if (!part) {
		if (s)
			fail_msg("run %d: void '%s', want done", position, s);
		return;
	}
	if (!s || !strstr(s, part))
		fail_msg("run %d: %s, want void with '%s'", position, s ? s : "done", part);
	free(s);
}

static void test_run_void__every_rule(void **state)
{
	struct fixture *f = *state;
	struct plan_void_rules rules = { .swap_factor = 1.5, .swap_min_pages = 10000, .shot_luma = 16,
		                         .clock_drop_pct = 10, .temp_max_c = 95 };
	size_t n = 0;
	char msg[256];
	assert_int_equal(run_void_apply(f->db, f->campaign, &rules, &n, msg, sizeof msg), 0);
	assert_int_equal(n, 4);
	expect(f, 1, NULL);                           /* the warm-up is not judged */
	expect(f, 2, "thermal throttling: the GPU reached 96 C (limit 95 C)");
	expect(f, 3, NULL);
	expect(f, 4, "clock throttled: GPU clock 1300 MHz");
	expect(f, 5, "swapped heavily: 20000 pages swapped in");
	expect(f, 6, "left the route: shot 'walk' has mean luma 150.0, the other arms' median there is 110.5");
	expect(f, 7, NULL);                           /* same checksum as an arm B shot */
	expect(f, 8, "hung: no new frame for 10 s"); /* kept as it was */

	/* a second pass finds nothing more */
	assert_int_equal(run_void_apply(f->db, f->campaign, &rules, &n, msg, sizeof msg), 0);
	assert_int_equal(n, 0);
}

static void test_run_void__rules_off(void **state)
{
	struct fixture *f = *state;
	struct plan_void_rules off = { 0 };
	size_t n = 99;
	char msg[256];
	assert_int_equal(run_void_apply(f->db, f->campaign, &off, &n, msg, sizeof msg), 0);
	assert_int_equal(n, 0);
	for (int p = 1; p <= 7; p++)
		expect(f, p, NULL);
}

static void test_run_void__swap_needs_both_thresholds(void **state)
{
	struct fixture *f = *state;
	/* 20000 pages is over 1.5 x the median but not over 50000 */
	struct plan_void_rules rules = { .swap_factor = 1.5, .swap_min_pages = 50000 };
	size_t n = 0;
	char msg[256];
	assert_int_equal(run_void_apply(f->db, f->campaign, &rules, &n, msg, sizeof msg), 0);
	assert_int_equal(n, 0);
}

/* The clock rule is the same for every arm: a low clock at 30 % busy is
 * as void as one at 95 % (gating on busy voided only the busy arms). */
static void test_run_void__clock_rule_blind_to_busy(void **state)
{
	struct fixture *f = *state;
	struct plan_void_rules rules = { .clock_drop_pct = 10 };
	size_t n = 0;
	char msg[256];
	assert_int_equal(run_void_apply(f->db, f->campaign, &rules, &n, msg, sizeof msg), 0);
	assert_int_equal(n, 2);
	expect(f, 4, "clock throttled: GPU clock 1300 MHz");
	expect(f, 6, "clock throttled: GPU clock 1000 MHz");
	expect(f, 3, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_run_void__every_rule, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_void__rules_off, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_void__swap_needs_both_thresholds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_void__clock_rule_blind_to_busy, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
