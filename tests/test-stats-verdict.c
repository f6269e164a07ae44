/* Tests of the arm comparison (stats-compare.c) against hand-computed
 * values: summaries, Δ and Δ%, the metric table's directions and words,
 * and Mann–Whitney U p-values (exact and with ties). */
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
	assert_int_equal(stats_compare(d, base, nb, arm, na, &c), 0);
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
	/* 0.01 ms is not: the percentage is given */
	const double base2[] = { 0.01, 0.01 };
	c = compare("memsync_ms", base2, 2, arm, 2);
	assert_float_equal(c.delta_pct, (8.5 - 0.01) / 0.01 * 100, 1e-6);
}

static void test_compare__delta_and_exact_p_by_hand(void **state)
{
	(void)state;
	const double base[] = { 20, 21, 22 }, arm[] = { 15, 16, 17 };
	struct stats_comparison c = compare("p99_ms", base, 3, arm, 3);
	assert_float_equal(c.delta, -5, 1e-12);
	assert_float_equal(c.delta_pct, -500.0 / 21.0, 1e-9);
	assert_float_equal(c.base.mean, 21, 1e-12);
	assert_float_equal(c.arm.spread, 2, 1e-12);
	/* fully separated 3 vs 3: p = 2 / C(6,3) = 0.1 */
	assert_true(c.p_exact);
	assert_false(c.ties);
	assert_float_equal(c.u, 0, 0);
	assert_float_equal(c.p_value, 0.1, 1e-12);

	/* 4 vs 4 apart: 2 / 70, whichever arm is higher */
	const double hi[] = { 60, 61, 62, 63 }, lo[] = { 50, 51, 52, 53 };
	c = compare("real_fps", hi, 4, lo, 4);
	assert_float_equal(c.p_value, 2.0 / 70.0, 1e-12);
	assert_float_equal(c.delta, -10, 1e-12);
	c = compare("real_fps", lo, 4, hi, 4);
	assert_float_equal(c.p_value, 2.0 / 70.0, 1e-12);

	/* one pair in the other order: U of the arm = 8, P(U >= 8) = 2/20 */
	const double b3[] = { 10, 12, 14 }, a3[] = { 13, 15, 17 };
	c = compare("p50_ms", b3, 3, a3, 3);
	assert_float_equal(c.u, 8, 0);
	assert_float_equal(c.p_value, 0.2, 1e-12);
}

static void test_compare__no_p_under_three_runs(void **state)
{
	(void)state;
	const double base[] = { 1.0, 1.1 }, arm[] = { 2.0, 2.2 };
	struct stats_comparison c = compare("rb_wait_each_ms", base, 2, arm, 2);
	assert_true(isnan(c.p_value));
	assert_float_equal(c.delta, 1.05, 1e-12);
}

static void test_compare__unusable_runs_are_skipped_and_counted(void **state)
{
	(void)state;
	const double base[] = { 20, NAN, 21, 22 }, arm[] = { 15, 16, NAN, 17, NAN };
	struct stats_comparison c = compare("p99_ms", base, N(base), arm, N(arm));
	assert_int_equal(c.base.n, 3);
	assert_int_equal(c.arm.n, 3);
	assert_float_equal(c.p_value, 0.1, 1e-12);

	const double dead[] = { NAN, NAN };
	assert_int_equal(stats_compare(stats_metric_find("p99_ms"), base, N(base), dead, 2, &c),
	                 -ENODATA);
	assert_int_equal(stats_compare(NULL, base, N(base), arm, N(arm), &c), -EINVAL);
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

	/* the comparison carries how the p-value was found */
	struct stats_comparison c;
	assert_int_equal(stats_compare(stats_metric_find("p50_ms"), b, 3, a, 3, &c), 0);
	assert_false(c.p_exact);
	assert_true(c.ties);
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
		cmocka_unit_test(test_compare__delta_and_exact_p_by_hand),
		cmocka_unit_test(test_compare__no_p_under_three_runs),
		cmocka_unit_test(test_compare__unusable_runs_are_skipped_and_counted),
		cmocka_unit_test(test_mann_whitney__exact_values),
		cmocka_unit_test(test_mann_whitney__ties_use_normal_approximation),
		cmocka_unit_test(test_mann_whitney__large_samples_are_approximated),
		cmocka_unit_test(test_metrics__table_directions),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
