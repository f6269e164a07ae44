/* Tests of the decision (stats-verdict.c) against values worked out by
 * hand or from tables: Student's t, the two-sample and arm-and-time models,
 * the four states, minimum effects and the stored resolution, Holm's
 * adjustment and the sequential level. */
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

static void test_t__table_values(void **state)
{
	(void)state;
	/* two-sided 5 % points of Student's t */
	assert_float_equal(stats_t_quantile_two_sided(0.05, 1), 12.7062, 1e-4);
	assert_float_equal(stats_t_quantile_two_sided(0.05, 2), 4.3027, 1e-4);
	assert_float_equal(stats_t_quantile_two_sided(0.05, 10), 2.2281, 1e-4);
	assert_float_equal(stats_t_quantile_two_sided(0.01, 30), 2.7500, 1e-4);
	/* df 2 has a closed form: p = 1 - t / sqrt(t^2 + 2) */
	assert_float_equal(stats_t_p_two_sided(3.0, 2), 1 - 3.0 / sqrt(11.0), 1e-12);
	/* df 1 is Cauchy: p = 1 - 2 atan(t) / pi */
	assert_float_equal(stats_t_p_two_sided(2.0, 1), 1 - 2 * atan(2.0) / M_PI, 1e-12);
	assert_true(isnan(stats_t_p_two_sided(1, 0)));
}

static void test_resolution__grid_of_the_values(void **state)
{
	(void)state;
	const double tenth[] = { 16.6, 16.5, 12.0, NAN };
	assert_float_equal(stats_resolution(tenth, N(tenth)), 0.1, 1e-15);
	const double whole[] = { 3, 7, 12 };
	assert_float_equal(stats_resolution(whole, N(whole)), 1, 0);
	const double fine[] = { 60.123456789, 59.9 };
	assert_float_equal(stats_resolution(fine, N(fine)), 0, 0);
}

/* Two arms without places in time: the pooled-variance two-sample test. */
static struct stats_decision two_sample(const char *key, const double *b, size_t nb,
                                        const double *a, size_t na)
{
	double v[32];
	size_t g[32];
	size_t n = 0;
	for (size_t i = 0; i < nb; i++, n++) {
		v[n] = b[i];
		g[n] = 0;
	}
	for (size_t i = 0; i < na; i++, n++) {
		v[n] = a[i];
		g[n] = 1;
	}
	struct stats_design d = { .v = v, .group = g, .n = n, .n_groups = 2 };
	struct stats_decide_options o = { .primary = true };
	struct stats_decision r;
	assert_int_equal(stats_decide(stats_metric_find(key), &d, 0, 1, &o, &r), 0);
	return r;
}

static void test_decide__two_sample_by_hand(void **state)
{
	(void)state;
	/* not on a grid: resolution 0.  means 10 and 13, pooled sd 1, se = 1,
	 * df 4, t = 3: p = 0.0399 (t table) */
	const double b[] = { 9.00000001, 10.00000001, 11.00000001 },
		     a[] = { 12.00000001, 13.00000001, 14.00000001 };
	struct stats_decision r = two_sample("real_fps", b, 3, a, 3);
	assert_int_equal(r.method, STATS_METHOD_TWO_SAMPLE);
	assert_int_equal(r.df, 4);
	assert_float_equal(r.delta, 3, 1e-9);
	assert_float_equal(r.resolution, 0, 0);
	double se = sqrt(1.0 * (1.0 / 3 + 1.0 / 3));
	assert_float_equal(r.p, stats_t_p_two_sided(3 / se, 4), 1e-12);
	double half = stats_t_quantile_two_sided(0.05, 4) * se;
	assert_float_equal(r.ci_low, 3 - half, 1e-9);
	assert_float_equal(r.ci_high, 3 + half, 1e-9);
	assert_int_equal(r.state, STATS_STATE_FASTER);
	assert_int_equal(r.n_arm, 3);
	assert_int_equal(r.n_baseline, 3);
}

/* The field's Deck table (real fps, 0.1 resolution, imported without places). */
static void test_decide__field_table(void **state)
{
	(void)state;
	const double off[] = { 10.8, 11.4 }, late[] = { 12.0, 11.6 }, early[] = { 12.6, 12.8 },
		     both[] = { 12.7, 13.0 };
	struct stats_decision r = two_sample("real_fps", off, 2, early, 2);
	assert_int_equal(r.state, STATS_STATE_FASTER);
	assert_true(r.ci_low > 0);
	r = two_sample("real_fps", off, 2, both, 2);
	assert_int_equal(r.state, STATS_STATE_FASTER);
	r = two_sample("real_fps", off, 2, late, 2);
	assert_int_equal(r.state, STATS_STATE_UNDECIDED);
	r = two_sample("real_fps", early, 2, both, 2);
	assert_true(r.state != STATS_STATE_FASTER);
	assert_int_equal(r.state, STATS_STATE_UNDECIDED);
}

/* Values at the metric's resolution with no spread are not a finding. */
static void test_decide__rounded_values_not_called(void **state)
{
	(void)state;
	const double b[] = { 16.6, 16.6, 16.6 }, a[] = { 16.5, 16.5, 16.5 };
	struct stats_decision r = two_sample("p50_ms", b, 3, a, 3);
	assert_float_equal(r.resolution, 0.1, 1e-15);
	assert_float_equal(r.delta, -0.1, 1e-9);
	assert_int_equal(r.state, STATS_STATE_UNDECIDED);
	assert_true(r.ci_low <= -0.2 + 1e-9 && r.ci_high >= -1e-9);
	/* even with a minimum effect below the resolution */
	double v[] = { 16.6, 16.6, 16.6, 16.5, 16.5, 16.5 };
	size_t g[] = { 0, 0, 0, 1, 1, 1 };
	struct stats_design d = { .v = v, .group = g, .n = 6, .n_groups = 2 };
	struct stats_decide_options o = { .min_effect_pct = 0.01, .primary = true };
	assert_int_equal(stats_decide(stats_metric_find("p50_ms"), &d, 0, 1, &o, &r), 0);
	assert_float_equal(r.min_effect, 0.1, 1e-15);
	assert_int_equal(r.state, STATS_STATE_UNDECIDED);
	/* memory sync 0.001 ms apart */
	const double mb[] = { 0.012, 0.011 }, ma[] = { 0.011, 0.010 };
	r = two_sample("memsync_ms", mb, 2, ma, 2);
	assert_int_equal(r.state, STATS_STATE_UNDECIDED);
	/* a baseline that rounds to 0 at the table's 2 decimals has no Δ% */
	const double tiny[] = { 0.003, 0.0031 }, big[] = { 15.9, 15.8 };
	r = two_sample("memsync_ms", tiny, 2, big, 2);
	assert_true(isnan(r.delta_pct));
}

static void test_decide__same_when_interval_inside_minimum(void **state)
{
	(void)state;
	/* fps around 100, tiny noise: the interval lies inside +- 1 fps */
	const double b[] = { 100.01, 99.99, 100.02, 99.98 }, a[] = { 100.03, 100.01, 99.99, 100.0 };
	struct stats_decision r = two_sample("real_fps", b, 4, a, 4);
	assert_int_equal(r.state, STATS_STATE_SAME);
	assert_true(r.ci_low > -r.min_effect && r.ci_high < r.min_effect);
	assert_float_equal(r.min_effect, 1.0, 1e-3);
	/* a real but small difference: the interval excludes 0, |Δ| < 1 % */
	const double c[] = { 100.31, 100.29, 100.32, 100.28 };
	r = two_sample("real_fps", b, 4, c, 4);
	assert_true(r.p < 0.05);
	assert_int_equal(r.state, STATS_STATE_SAME);
}

static void test_decide__directions(void **state)
{
	(void)state;
	const double lo[] = { 10.01, 10.03, 9.98 }, hi[] = { 13.02, 12.98, 13.01 };
	assert_int_equal(two_sample("p99_ms", lo, 3, hi, 3).state, STATS_STATE_SLOWER);
	assert_int_equal(two_sample("p99_ms", hi, 3, lo, 3).state, STATS_STATE_FASTER);
	assert_int_equal(two_sample("real_fps", hi, 3, lo, 3).state, STATS_STATE_SLOWER);
	assert_int_equal(two_sample("draws", lo, 3, hi, 3).state, STATS_STATE_HIGHER);
	assert_string_equal(stats_state_name(STATS_STATE_HIGHER), "higher");
	assert_string_equal(stats_state_name(STATS_STATE_UNDECIDED), "undecided");
}

static void test_decide__too_few_runs_undecided(void **state)
{
	(void)state;
	const double b[] = { 10.0 }, a[] = { 20.0 };
	struct stats_decision r = two_sample("real_fps", b, 1, a, 1);
	assert_int_equal(r.method, STATS_METHOD_NONE);
	assert_int_equal(r.state, STATS_STATE_UNDECIDED);
	assert_float_equal(r.delta, 10, 0);
	assert_true(isinf(r.ci_low) && isnan(r.p));
	double v[] = { NAN, 1 };
	size_t g[] = { 0, 1 };
	struct stats_design d = { .v = v, .group = g, .n = 2, .n_groups = 2 };
	assert_int_equal(stats_decide(stats_metric_find("real_fps"), &d, 0, 1, NULL, &r), -ENODATA);
	assert_int_equal(stats_decide(NULL, &d, 0, 1, NULL, &r), -EINVAL);
	assert_int_equal(stats_decide(stats_metric_find("real_fps"), &d, 1, 1, NULL, &r), -EINVAL);
}

/* A linear drift over the night cancels in the arm-and-time model; the
 * two-sample test of the same values is fooled by it. */
static void test_decide__time_model_cancels_drift(void **state)
{
	(void)state;
	/* order A B B A  A B B A, true effect 0, drift -1 fps a run, small noise */
	const char *order = "ABBAABBA";
	const double noise[] = { 0.01, -0.02, 0.015, -0.01, 0.02, 0.0, -0.015, 0.01 };
	double v[8], t[8];
	size_t g[8];
	for (int i = 0; i < 8; i++) {
		v[i] = 60.0 - 1.0 * i + noise[i];
		t[i] = i + 1;
		g[i] = (size_t)(order[i] - 'A');
	}
	struct stats_design d = { .v = v, .group = g, .t = t, .n = 8, .n_groups = 2 };
	struct stats_decision r;
	assert_int_equal(stats_decide(stats_metric_find("real_fps"), &d, 0, 1, NULL, &r), 0);
	assert_int_equal(r.method, STATS_METHOD_ARM_TIME);
	assert_true(fabs(r.delta) < 0.05);
	assert_int_equal(r.state, STATS_STATE_SAME);
	/* order A A A A B B B B: the drift looks like a 4 fps loss to a
	 * two-sample test; the time model still finds no effect */
	const char *bad = "AAAABBBB";
	for (int i = 0; i < 8; i++)
		g[i] = (size_t)(bad[i] - 'A');
	assert_int_equal(stats_decide(stats_metric_find("real_fps"), &d, 0, 1, NULL, &r), 0);
	assert_true(fabs(r.delta) < 0.1);
	assert_true(r.state != STATS_STATE_SLOWER);
	d.t = NULL;
	assert_int_equal(stats_decide(stats_metric_find("real_fps"), &d, 0, 1, NULL, &r), 0);
	assert_int_equal(r.method, STATS_METHOD_TWO_SAMPLE);
	assert_int_equal(r.state, STATS_STATE_SLOWER);
}

static void test_holm__by_hand(void **state)
{
	(void)state;
	const double p[] = { 0.01, 0.04, NAN, 0.03, 0.005 };
	double adj[5];
	assert_int_equal(stats_holm(p, 5, adj), 0);
	/* sorted 0.005, 0.01, 0.03, 0.04 over m = 4: 0.02, 0.03, 0.06, 0.06 */
	assert_float_equal(adj[4], 0.02, 1e-15);
	assert_float_equal(adj[0], 0.03, 1e-15);
	assert_float_equal(adj[3], 0.06, 1e-15);
	assert_float_equal(adj[1], 0.06, 1e-15);
	assert_true(isnan(adj[2]));
}

static void test_family__secondary_needs_adjusted_p(void **state)
{
	(void)state;
	const struct stats_metric_def *m[3] = { stats_metric_find("real_fps"),
		                                stats_metric_find("p50_ms"),
		                                stats_metric_find("p95_ms") };
	struct stats_decision d[3];
	for (int i = 0; i < 3; i++)
		d[i] = (struct stats_decision){
			.method = STATS_METHOD_TWO_SAMPLE, .delta = -5, .ci_low = -9, .ci_high = -1,
			.p = 0.03, .p_raw = 0.03, .alpha = 0.05, .min_effect = 0.5, .primary = i == 0,
		};
	for (int i = 0; i < 3; i++)
		stats_decision_settle(m[i], &d[i]);
	assert_int_equal(d[1].state, STATS_STATE_FASTER);
	assert_int_equal(stats_decide_family(m, d, 3), 0);
	/* the primary keeps p = 0.03; the two secondaries get 0.06 */
	assert_int_equal(d[0].state, STATS_STATE_SLOWER);
	assert_float_equal(d[0].p, 0.03, 0);
	assert_float_equal(d[1].p, 0.06, 1e-15);
	assert_int_equal(d[1].state, STATS_STATE_UNDECIDED);
	assert_int_equal(d[2].state, STATS_STATE_UNDECIDED);
}

static void test_sequential__spends_alpha_over_the_planned_looks(void **state)
{
	(void)state;
	/* alpha (k / K)^2: 1 % of it at the first of 10 looks, 19 % at the last */
	assert_float_equal(stats_sequential_alpha(0.05, 1, 10), 0.0005, 1e-15);
	assert_float_equal(stats_sequential_alpha(0.05, 10, 10), 0.0095, 1e-15);
	assert_float_equal(stats_sequential_alpha(0.05, 1, 1), 0.05, 0);
	assert_float_equal(stats_sequential_alpha(0.05, 11, 10), 0, 0);
	assert_true(isnan(stats_sequential_alpha(0.05, 0, 10)));
	for (int K = 1; K <= 40; K++) {
		double sum = 0, prev = 0;
		for (int k = 1; k <= K; k++) {
			double a = stats_sequential_alpha(0.05, k, K);
			assert_true(a >= prev); /* later looks spend more */
			prev = a;
			sum += a;
		}
		assert_float_equal(sum, 0.05, 1e-12);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_t__table_values),
		cmocka_unit_test(test_resolution__grid_of_the_values),
		cmocka_unit_test(test_decide__two_sample_by_hand),
		cmocka_unit_test(test_decide__field_table),
		cmocka_unit_test(test_decide__rounded_values_not_called),
		cmocka_unit_test(test_decide__same_when_interval_inside_minimum),
		cmocka_unit_test(test_decide__directions),
		cmocka_unit_test(test_decide__too_few_runs_undecided),
		cmocka_unit_test(test_decide__time_model_cancels_drift),
		cmocka_unit_test(test_holm__by_hand),
		cmocka_unit_test(test_family__secondary_needs_adjusted_p),
		cmocka_unit_test(test_sequential__spends_alpha_over_the_planned_looks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
