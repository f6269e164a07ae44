/* Tests of the arm comparison (stats-compare.c) against hand-computed
 * values: summaries, every verdict case, the words per metric direction,
 * the more-rounds rule, and Mann–Whitney U p-values (exact and with ties). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <string.h>

#include "stats/stats.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_summary__values_by_hand(void **state)
{
	(void)state;
	const double v[] = { 3, 1, NAN, 2, 10 };
	struct stats_summary s;
	assert_int_equal(stats_summarize(v, N(v), &s), 0);
	assert_int_equal(s.n, 4);
	assert_float_equal(s.mean, 4, 1e-12);
	assert_float_equal(s.median, 2.5, 1e-12);
	assert_float_equal(s.min, 1, 0);
	assert_float_equal(s.max, 10, 0);
	assert_float_equal(s.spread, 9, 1e-12);
	assert_float_equal(s.spread_pct, 360, 1e-9);
	assert_float_equal(s.sd, sqrt(50.0 / 3.0), 1e-12);

	const double odd[] = { 5, 9, 7 };
	assert_int_equal(stats_summarize(odd, N(odd), &s), 0);
	assert_float_equal(s.median, 7, 0);

	const double none[] = { NAN, NAN };
	s.n = 99;
	assert_int_equal(stats_summarize(none, N(none), &s), -ENODATA);
	assert_int_equal(s.n, 99);
}

static struct stats_comparison compare(const char *key, const double *base, size_t nb,
                                       const double *arm, size_t na)
{
	struct stats_comparison c;
	const struct stats_metric_def *d = stats_metric_find(key);
	assert_non_null(d);
	assert_int_equal(stats_compare(d, base, nb, arm, na, NULL, &c), 0);
	print_message("%s: %s\n", key, c.text);
	return c;
}

static void test_delta_pct__absent_when_baseline_rounds_to_zero(void **state)
{
	(void)state;
	/* memsync_ms shows 2 decimals: a 0.001 ms baseline is 0 at that precision */
	const double base[] = { 0.001, 0.001 }, arm[] = { 8.0, 9.0 };
	struct stats_comparison c = compare("memsync_ms", base, 2, arm, 2);
	assert_float_equal(c.delta, 8.499, 1e-9);
	assert_true(isnan(c.delta_pct));
	assert_int_equal(c.verdict, STATS_VERDICT_UP);
	assert_null(strstr(c.text, "%)"));
	/* 0.01 ms is not: the percentage is given */
	const double base2[] = { 0.01, 0.01 };
	c = compare("memsync_ms", base2, 2, arm, 2);
	assert_float_equal(c.delta_pct, (8.5 - 0.01) / 0.01 * 100, 1e-6);
}

static void test_verdict__faster_when_lower_frame_times_apart(void **state)
{
	(void)state;
	const double base[] = { 20, 21, 22 }, arm[] = { 15, 16, 17 };
	struct stats_comparison c = compare("p99_ms", base, 3, arm, 3);
	assert_int_equal(c.verdict, STATS_VERDICT_DOWN);
	assert_string_equal(c.word, "faster");
	assert_float_equal(c.delta, -5, 1e-12);
	assert_float_equal(c.delta_pct, -500.0 / 21.0, 1e-9);
	assert_int_equal(c.more_rounds, 0);
	/* fully separated 3 vs 3: p = 2 / C(6,3) = 0.1 */
	assert_true(c.p_exact);
	assert_false(c.ties);
	assert_float_equal(c.u, 0, 0);
	assert_float_equal(c.p_value, 0.1, 1e-12);
	assert_string_equal(c.text,
	                    "faster: Δ -5.00 ms (-23.8 %), 3 usable runs vs 3 in the baseline, p = 0.1 (exact)");
}

static void test_verdict__slower_when_fps_lower(void **state)
{
	(void)state;
	const double base[] = { 60, 61, 62, 63 }, arm[] = { 50, 51, 52, 53 };
	struct stats_comparison c = compare("real_fps", base, 4, arm, 4);
	assert_int_equal(c.verdict, STATS_VERDICT_DOWN);
	assert_string_equal(c.word, "slower");
	assert_float_equal(c.p_value, 2.0 / 70.0, 1e-12);
	assert_true(c.p_exact);

	/* and the other way round: higher fps is faster */
	c = compare("real_fps", arm, 4, base, 4);
	assert_int_equal(c.verdict, STATS_VERDICT_UP);
	assert_string_equal(c.word, "faster");
	assert_float_equal(c.p_value, 2.0 / 70.0, 1e-12);
}

static void test_verdict__slower_when_waits_higher(void **state)
{
	(void)state;
	const double base[] = { 1.0, 1.1 }, arm[] = { 2.0, 2.2 };
	struct stats_comparison c = compare("rb_wait_each_ms", base, 2, arm, 2);
	assert_int_equal(c.verdict, STATS_VERDICT_UP);
	assert_string_equal(c.word, "slower");
	/* under 3 runs an arm: no p-value */
	assert_true(isnan(c.p_value));
	assert_null(strstr(c.text, "p ="));
}

static void test_verdict__neutral_metric_says_higher_or_lower(void **state)
{
	(void)state;
	const double base[] = { 1000, 1001, 1002 }, arm[] = { 1100, 1101, 1102 };
	struct stats_comparison c = compare("draws", base, 3, arm, 3);
	assert_int_equal(c.verdict, STATS_VERDICT_UP);
	assert_string_equal(c.word, "higher");
	c = compare("draws", arm, 3, base, 3);
	assert_string_equal(c.word, "lower");
	c = compare("over_100ms", arm, 3, base, 3);
	assert_string_equal(c.word, "fewer");
}

static void test_verdict__within_when_ranges_overlap(void **state)
{
	(void)state;
	/* 13 <= 14: the ranges overlap although the means are 3 apart */
	const double base[] = { 10, 12, 14 }, arm[] = { 13, 15, 17 };
	struct stats_comparison c = compare("p50_ms", base, 3, arm, 3);
	assert_int_equal(c.verdict, STATS_VERDICT_WITHIN);
	assert_string_equal(c.word, "within the spread");
	assert_float_equal(c.delta_pct, 25, 1e-9);
	/* sd 2 in both arms: n = ceil(15.6978 * 4 / 9) = 7 runs an arm, 4 more,
	 * 2 runs an arm a round -> 2 rounds */
	assert_int_equal(c.more_rounds, 2);
	assert_non_null(strstr(c.text, "about 2 more rounds needed"));
	/* one pair in the other order: U of the arm = 8, P(U >= 8) = 2/20 */
	assert_float_equal(c.u, 8, 0);
	assert_float_equal(c.p_value, 0.2, 1e-12);
}

static void test_verdict__within_when_delta_under_a_spread(void **state)
{
	(void)state;
	/* apart (11 > 10) but Δ = 6.5 is not above the baseline's spread 10 */
	const double base[] = { 0, 10 }, arm[] = { 11, 12 };
	struct stats_comparison c = compare("p95_ms", base, 2, arm, 2);
	assert_int_equal(c.verdict, STATS_VERDICT_WITHIN);
	assert_float_equal(c.delta, 6.5, 1e-12);
	assert_true(c.more_rounds >= 1);
}

static void test_verdict__no_rounds_hint_under_2_percent(void **state)
{
	(void)state;
	const double base[] = { 100, 101, 102 }, arm[] = { 100.5, 101.5, 102.5 };
	struct stats_comparison c = compare("real_fps", base, 3, arm, 3);
	assert_int_equal(c.verdict, STATS_VERDICT_WITHIN);
	assert_int_equal(c.more_rounds, 0);
	assert_null(strstr(c.text, "more round"));

	/* the threshold is an option */
	struct stats_options o = { .rounds_hint_pct = 0.4 };
	assert_int_equal(stats_compare(stats_metric_find("real_fps"), base, 3, arm, 3, &o, &c), 0);
	assert_true(c.more_rounds > 0);
}

static void test_verdict__too_few_runs(void **state)
{
	(void)state;
	const double base[] = { 1, NAN }, arm[] = { 2, 3 };
	struct stats_comparison c = compare("p99_ms", base, 2, arm, 2);
	assert_int_equal(c.verdict, STATS_VERDICT_TOO_FEW);
	assert_string_equal(c.word, "too few runs");
	assert_int_equal(c.base.n, 1);
	assert_non_null(strstr(c.text, "2 usable runs vs 1 in the baseline"));
}

static void test_verdict__unusable_runs_are_skipped_and_counted(void **state)
{
	(void)state;
	const double base[] = { 20, NAN, 21, 22 }, arm[] = { 15, 16, NAN, 17, NAN };
	struct stats_comparison c = compare("p99_ms", base, N(base), arm, N(arm));
	assert_int_equal(c.base.n, 3);
	assert_int_equal(c.arm.n, 3);
	assert_string_equal(c.word, "faster");
	assert_float_equal(c.p_value, 0.1, 1e-12);

	const double dead[] = { NAN, NAN };
	assert_int_equal(stats_compare(stats_metric_find("p99_ms"), base, N(base), dead, 2, NULL, &c),
	                 -ENODATA);
	assert_int_equal(stats_compare(NULL, base, N(base), arm, N(arm), NULL, &c), -EINVAL);
}

static void test_rounds__formula(void **state)
{
	(void)state;
	/* sd = delta: n = ceil(2 (1.95996 + 0.84162)^2) = ceil(15.698) = 16 */
	assert_int_equal(stats_more_rounds(1.0, 1.0, 3, 3, 2), 7);  /* 13 more runs */
	assert_int_equal(stats_more_rounds(1.0, 1.0, 3, 5, 1), 13);
	assert_int_equal(stats_more_rounds(-2.0, 1.0, 2, 2, 2), 1); /* n = 4: 2 more */
	/* already enough runs by the rule: still at least one round */
	assert_int_equal(stats_more_rounds(10.0, 1.0, 8, 8, 2), 1);
	assert_int_equal(stats_more_rounds(0.0, 1.0, 3, 3, 2), 0);
	assert_int_equal(stats_more_rounds(NAN, 1.0, 3, 3, 2), 0);
}

static void test_mann_whitney__exact_values(void **state)
{
	(void)state;
	double u, p;
	bool exact, ties;
	const double a3[] = { 1, 2, 3 }, b3[] = { 4, 5, 6 };
	assert_int_equal(stats_mann_whitney(a3, 3, b3, 3, &u, &p, &exact, &ties), 0);
	assert_true(exact);
	assert_float_equal(u, 0, 0);
	assert_float_equal(p, 0.1, 1e-12);

	const double a5[] = { 1, 2, 3, 4, 5 }, b5[] = { 6, 7, 8, 9, 10 };
	assert_int_equal(stats_mann_whitney(b5, 5, a5, 5, &u, &p, &exact, &ties), 0);
	assert_float_equal(u, 25, 0);
	assert_float_equal(p, 2.0 / 252.0, 1e-12);

	/* U = 1 of 3 vs 3: P(U <= 1) = 2/20 */
	const double a[] = { 1, 2, 4 }, b[] = { 3, 5, 6 };
	assert_int_equal(stats_mann_whitney(a, 3, b, 3, &u, &p, &exact, &ties), 0);
	assert_float_equal(u, 1, 0);
	assert_float_equal(p, 0.2, 1e-12);

	/* the middle of the distribution: p capped at 1 */
	const double m1[] = { 1, 4, 5 }, m2[] = { 2, 3, 6 };
	assert_int_equal(stats_mann_whitney(m1, 3, m2, 3, &u, &p, &exact, &ties), 0);
	assert_float_equal(u, 4, 0);
	assert_float_equal(p, 1.0, 1e-12);

	/* unequal sizes, 3 vs 4 separated: 2 / C(7,3) = 2/35 */
	const double b4[] = { 4, 5, 6, 7 };
	assert_int_equal(stats_mann_whitney(a3, 3, b4, 4, &u, &p, &exact, &ties), 0);
	assert_float_equal(p, 2.0 / 35.0, 1e-12);
}

static void test_mann_whitney__ties_use_normal_approximation(void **state)
{
	(void)state;
	double u, p;
	bool exact, ties;
	/* ranks 1, 2, 3.5 | 3.5, 5, 6: U = 0.5, mean 4.5, variance
	 * 9/12 (7 - 6/30) = 5.1, z = (4 - 0.5) / sqrt(5.1) */
	const double a[] = { 1, 2, 3 }, b[] = { 3, 4, 5 };
	assert_int_equal(stats_mann_whitney(a, 3, b, 3, &u, &p, &exact, &ties), 0);
	assert_false(exact);
	assert_true(ties);
	assert_float_equal(u, 0.5, 0);
	assert_float_equal(p, 0.12118327283746322, 1e-12);

	/* everything tied: no evidence */
	const double t[] = { 7, 7, 7 };
	assert_int_equal(stats_mann_whitney(t, 3, t, 3, &u, &p, &exact, &ties), 0);
	assert_float_equal(p, 1.0, 0);

	/* the comparison says how the p-value was found */
	struct stats_comparison c;
	assert_int_equal(stats_compare(stats_metric_find("p50_ms"), b, 3, a, 3, NULL, &c), 0);
	assert_non_null(strstr(c.text, "(normal approximation, ties)"));
}

static void test_mann_whitney__large_samples_are_approximated(void **state)
{
	(void)state;
	double a[60], b[60];
	for (int i = 0; i < 60; i++) {
		a[i] = i;
		b[i] = i + 0.5;
	}
	double u, p;
	bool exact, ties;
	assert_int_equal(stats_mann_whitney(a, 60, b, 60, &u, &p, &exact, &ties), 0);
	assert_false(exact);
	assert_false(ties);
	assert_float_equal(u, 1770, 0); /* 60*59/2 pairs a > b */
	assert_true(p > 0.8 && p <= 1.0);
	/* 50 vs 50 is still exact */
	assert_int_equal(stats_mann_whitney(a, 50, b, 50, &u, &p, &exact, &ties), 0);
	assert_true(exact);
	assert_true(p > 0.8 && p <= 1.0);
	assert_int_equal(stats_mann_whitney(a, 0, b, 3, &u, &p, &exact, &ties), -EINVAL);
}

static void test_metrics__table_directions(void **state)
{
	(void)state;
	assert_int_equal(stats_metric_find("real_fps")->direction, STATS_HIGHER_IS_BETTER);
	assert_int_equal(stats_metric_find("p99_ms")->direction, STATS_LOWER_IS_BETTER);
	assert_int_equal(stats_metric_find("rb_wait_ms")->direction, STATS_LOWER_IS_BETTER);
	assert_int_equal(stats_metric_find("draws")->direction, STATS_NEUTRAL);
	assert_null(stats_metric_find("nope"));
	for (const struct stats_metric_def *d = stats_metrics; d->key; d++) {
		assert_non_null(d->label);
		assert_non_null(d->word_up);
		assert_non_null(d->word_down);
		assert_true(d->direction >= STATS_HIGHER_IS_BETTER && d->direction <= STATS_NEUTRAL);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary__values_by_hand),
		cmocka_unit_test(test_delta_pct__absent_when_baseline_rounds_to_zero),
		cmocka_unit_test(test_verdict__faster_when_lower_frame_times_apart),
		cmocka_unit_test(test_verdict__slower_when_fps_lower),
		cmocka_unit_test(test_verdict__slower_when_waits_higher),
		cmocka_unit_test(test_verdict__neutral_metric_says_higher_or_lower),
		cmocka_unit_test(test_verdict__within_when_ranges_overlap),
		cmocka_unit_test(test_verdict__within_when_delta_under_a_spread),
		cmocka_unit_test(test_verdict__no_rounds_hint_under_2_percent),
		cmocka_unit_test(test_verdict__too_few_runs),
		cmocka_unit_test(test_verdict__unusable_runs_are_skipped_and_counted),
		cmocka_unit_test(test_rounds__formula),
		cmocka_unit_test(test_mann_whitney__exact_values),
		cmocka_unit_test(test_mann_whitney__ties_use_normal_approximation),
		cmocka_unit_test(test_mann_whitney__large_samples_are_approximated),
		cmocka_unit_test(test_metrics__table_directions),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
