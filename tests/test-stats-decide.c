/* Tests of the decision (stats-verdict.c, stats-perm.c, stats-sequential.c)
 * against values worked out by hand or from tables: Student's t, the
 * two-sample and arm-and-time models, the four states, minimum effects and
 * the stored resolution, the permutation test and its gate, levels, time
 * terms dropped when orthogonal, blocks, drift, Holm's adjustment, the
 * familywise bound, the sequential boundaries and the forecast. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
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
	/* the model would call it, but 3 vs 3 relabellings (20) cannot give a
	 * permutation mid-p under 1/20 = 0.05 (the observed labelling and
	 * its mirror, each counted half) */
	assert_true(r.p < 0.05);
	assert_float_equal(r.p_perm, 0.05, 1e-12);
	assert_float_equal(r.p_perm_min, 0.05, 1e-12);
	assert_true(r.perm_exact);
	assert_int_equal(r.perm_count, 20);
	assert_int_equal(r.state, STATS_STATE_UNDECIDED);
	assert_int_equal(r.why, STATS_WHY_PERM_UNREACHABLE);
	assert_string_equal(r.reason, "3 vs 3 runs: the permutation test cannot go below p = 0.05 (needs < 0.05)");
	assert_int_equal(r.n_arm, 3);
	assert_int_equal(r.n_baseline, 3);
	/* 4 vs 4 separated: 1/70 = 0.014, the call stands */
	const double b4[] = { 9.00000001, 10.00000001, 11.00000001, 10.5 },
		     a4[] = { 12.00000001, 13.00000001, 14.00000001, 13.5 };
	r = two_sample("real_fps", b4, 4, a4, 4);
	assert_float_equal(r.p_perm, 1.0 / 70, 1e-12);
	assert_int_equal(r.state, STATS_STATE_FASTER);
	/* one run of B below one of A: the next pair of relabellings, 3/70 =
	 * 0.043, still under 5 %: the call stands */
	const double b5[] = { 9.00000001, 10.00000001, 11.00000001, 12.5 },
		     a5[] = { 12.00000001, 13.00000001, 14.00000001, 13.5 };
	r = two_sample("real_fps", b5, 4, a5, 4);
	assert_float_equal(r.p_perm, 3.0 / 70, 1e-12);
	assert_int_equal(r.state, STATS_STATE_FASTER);
	assert_int_equal(r.why, STATS_WHY_NONE);
	assert_string_equal(r.reason, "");
}

/* The field's Deck table (real fps, 0.1 resolution, imported without
 * places): the model's interval excludes 0 for early and both, but two
 * runs an arm cannot be decided: 2 vs 2 relabellings give p >= 1/6. */
static void test_decide__field_table(void **state)
{
	(void)state;
	const double off[] = { 10.8, 11.4 }, late[] = { 12.0, 11.6 }, early[] = { 12.6, 12.8 },
		     both[] = { 12.7, 13.0 };
	struct stats_decision r = two_sample("real_fps", off, 2, early, 2);
	assert_true(r.ci_low > 0);
	assert_int_equal(r.state, STATS_STATE_UNDECIDED);
	assert_int_equal(r.why, STATS_WHY_PERM_UNREACHABLE);
	assert_float_equal(r.p_perm_min, 1.0 / 6, 1e-12);
	assert_string_equal(r.reason, "2 vs 2 runs: the permutation test cannot go below p = 0.17 (needs < 0.05)");
	r = two_sample("real_fps", off, 2, both, 2);
	assert_int_equal(r.state, STATS_STATE_UNDECIDED);
	r = two_sample("real_fps", off, 2, late, 2);
	assert_int_equal(r.state, STATS_STATE_UNDECIDED);
	r = two_sample("real_fps", early, 2, both, 2);
	assert_int_equal(r.state, STATS_STATE_UNDECIDED);
}

/* The exact 2 vs 2 case with tied values: each arm's runs agree exactly
 * (levels, vsync-quantised percentiles), so the model's spread is 0; the
 * permutation test of the order run (A B B A) gives exactly 1/6 (the
 * observed labelling and its mirror, each counted half). */
static void test_decide__tied_two_vs_two(void **state)
{
	(void)state;
	double v[] = { 154, 213, 213, 154 }, t[] = { 1, 2, 3, 4 };
	size_t g[] = { 0, 1, 1, 0 };
	struct stats_design d = { .v = v, .group = g, .t = t, .n = 4, .n_groups = 2 };
	const struct stats_metric_spec exact = { .exact = true };
	struct stats_decide_options o = { .primary = true, .spec = &exact };
	struct stats_decision r;
	assert_int_equal(stats_decide(stats_metric_find("real_fps"), &d, 0, 1, &o, &r), 0);
	assert_float_equal(r.delta, 59, 1e-9);
	assert_float_equal(r.resolution, 0, 0);
	assert_float_equal(r.se, 0, 0);
	assert_float_equal(r.p_perm, 1.0 / 6, 1e-12);
	assert_int_equal(r.perm_count, 6);
	assert_int_equal(r.state, STATS_STATE_UNDECIDED);
	assert_int_equal(r.why, STATS_WHY_PERM_UNREACHABLE);
	assert_int_equal(r.n_levels, 0); /* each arm on its own value: a difference */
	/* ABBA: the linear term is orthogonal to the arm and dropped: df 2 */
	assert_int_equal(r.method, STATS_METHOD_ARM_TIME);
	assert_int_equal(r.time_terms, 0);
	assert_int_equal(r.time_terms_dropped, 1);
	assert_int_equal(r.df, 2);
	/* p99 landing on 16.7 and 33.3 ms: 16.6 apart in one run each, 2 vs
	 * 2: the resolution floors se, the permutation test decides nothing */
	double p99[] = { 16.7, 33.3, 16.7, 33.3 };
	d.v = p99;
	assert_int_equal(stats_decide(stats_metric_find("p99_ms"), &d, 0, 1, NULL, &r), 0);
	assert_true(r.se >= r.se_floor && r.se_floor > 0);
	assert_float_equal(r.se_floor, 0.1 / sqrt(12.0) * sqrt(1.0), 1e-12);
	assert_int_equal(r.state, STATS_STATE_UNDECIDED);
	/* the same runs in both arms on two levels: flagged */
	double lv[] = { 154, 213, 154, 213 };
	d.v = lv;
	o.spec = &exact;
	assert_int_equal(stats_decide(stats_metric_find("real_fps"), &d, 0, 1, &o, &r), 0);
	assert_int_equal(r.n_levels, 2);
	assert_string_equal(r.levels_text, "two levels: 154, 213 fps");
	assert_int_equal(r.state, STATS_STATE_UNDECIDED);
}

/* rxdeck ab --rounds 1: one run an arm leaves nothing to decide with. */
static void test_decide__one_round_decides_nothing(void **state)
{
	(void)state;
	double v[] = { 150.0, 153.1 }, t[] = { 1, 2 };
	size_t g[] = { 0, 1 };
	struct stats_design d = { .v = v, .group = g, .t = t, .n = 2, .n_groups = 2 };
	struct stats_decision r;
	assert_int_equal(stats_decide(stats_metric_find("real_fps"), &d, 0, 1, NULL, &r), 0);
	assert_int_equal(r.state, STATS_STATE_UNDECIDED);
	assert_int_equal(r.why, STATS_WHY_NO_MODEL);
	assert_string_equal(r.reason, "1 vs 1 runs leave no residual degree of freedom: no interval");
	char m[80];
	stats_decision_method_text(&r, m, sizeof m);
	assert_string_equal(m, "no model, df 0");
	/* a void run leaving 1 vs 2: df 1, never a call */
	double v3[] = { 150.0, 155.0, 155.1 }, t3[] = { 1, 2, 3 };
	size_t g3[] = { 0, 1, 1 };
	struct stats_design d3 = { .v = v3, .group = g3, .t = t3, .n = 3, .n_groups = 2 };
	assert_int_equal(stats_decide(stats_metric_find("real_fps"), &d3, 0, 1, NULL, &r), 0);
	assert_int_equal(r.df, 1);
	assert_int_equal(r.state, STATS_STATE_UNDECIDED);
	assert_true(r.why == STATS_WHY_DF || r.why == STATS_WHY_NO_MODEL);
}

/* Time terms orthogonal to the arm contrast cost a df and buy nothing. */
static void test_decide__orthogonal_time_terms_dropped(void **state)
{
	(void)state;
	const double noise[] = { 0.3, -0.2, 0.1, -0.4, 0.2, 0.0, -0.1, 0.25 };
	double v[8], t[8];
	size_t g[8];
	struct stats_design d = { .v = v, .group = g, .t = t, .n = 8, .n_groups = 2 };
	struct stats_decision r;
	/* ABBA BAAB: the linear term is orthogonal (the quadratic needs 5
	 * residual df after it, 8 runs leave 4): the arm model, df 6 */
	const char *o1 = "ABBABAAB";
	for (int i = 0; i < 8; i++) {
		v[i] = 60.0 + noise[i] + (o1[i] == 'B' ? 2.0 : 0);
		t[i] = i + 1;
		g[i] = (size_t)(o1[i] - 'A');
	}
	assert_int_equal(stats_decide(stats_metric_find("real_fps"), &d, 0, 1, NULL, &r), 0);
	assert_int_equal(r.time_terms, 0);
	assert_int_equal(r.time_terms_dropped, 1);
	assert_int_equal(r.time_mask_allowed, STATS_TIME_LINEAR);
	assert_int_equal(r.df, 6);
	char m[80];
	stats_decision_method_text(&r, m, sizeof m);
	assert_string_equal(m, "arm only (orthogonal time terms dropped), df 6");
	assert_string_equal(stats_method_name(r.method), "arm_time");
	/* ABBA ABBA ABBA: the linear term is orthogonal, the quadratic is not
	 * (A sits at the ends): linear dropped, quadratic kept, df 9 */
	const double noise12[] = { 0.3, -0.2, 0.1, -0.4, 0.2, 0.0, -0.1, 0.25, 0.15, -0.3, 0.05, -0.05 };
	double v12[12], t12[12];
	size_t g12[12];
	const char *o2 = "ABBAABBAABBA";
	for (int i = 0; i < 12; i++) {
		v12[i] = 60.0 + noise12[i] + (o2[i] == 'B' ? 2.0 : 0);
		t12[i] = i + 1;
		g12[i] = (size_t)(o2[i] - 'A');
	}
	struct stats_design d12 = { .v = v12, .group = g12, .t = t12, .n = 12, .n_groups = 2 };
	assert_int_equal(stats_decide(stats_metric_find("real_fps"), &d12, 0, 1, NULL, &r), 0);
	assert_int_equal(r.time_mask_allowed, STATS_TIME_LINEAR | STATS_TIME_QUADRATIC);
	assert_int_equal(r.time_mask, STATS_TIME_QUADRATIC);
	assert_int_equal(r.df, 9);
	stats_decision_method_text(&r, m, sizeof m);
	assert_string_equal(m, "arm + quadratic time without the linear term (orthogonal), df 9");
	/* a drift the orthogonal linear term takes out is worth its df: kept */
	for (int i = 0; i < 12; i++)
		v12[i] += -0.5 * i;
	assert_int_equal(stats_decide(stats_metric_find("real_fps"), &d12, 0, 1, NULL, &r), 0);
	assert_int_equal(r.time_mask, STATS_TIME_LINEAR | STATS_TIME_QUADRATIC);
	assert_int_equal(r.df, 8);
	double kept_width = r.ci_high - r.ci_low, kept_delta = r.delta;
	/* the rule that drops every orthogonal term drops it all the same:
	 * the same delta, the drift left in s, a wider interval */
	struct stats_decide_options drop = { .time_rule = STATS_TIME_RULE_DROP_ORTHOGONAL };
	assert_int_equal(stats_decide(stats_metric_find("real_fps"), &d12, 0, 1, &drop, &r), 0);
	assert_int_equal(r.time_mask, STATS_TIME_QUADRATIC);
	assert_int_equal(r.time_terms_dropped, 1);
	assert_int_equal(r.df, 9);
	assert_true(fabs(r.delta - kept_delta) < 1e-9);
	assert_true(r.ci_high - r.ci_low > kept_width);
	stats_decision_method_text(&r, m, sizeof m);
	assert_string_equal(m, "arm + quadratic time without the linear term (orthogonal), df 9");
	/* ABBA BAAB under it: as the default (nothing was worth keeping) */
	assert_int_equal(stats_decide(stats_metric_find("real_fps"), &d, 0, 1, &drop, &r), 0);
	assert_int_equal(r.time_terms, 0);
	assert_int_equal(r.df, 6);
}

/* Arms in blocks (all A then all B, as imports often are): the time term
 * takes a drift out, the interval is as wide as the design deserves and an
 * undecided state says why. */
static void test_decide__blocks_wide_and_flagged(void **state)
{
	(void)state;
	const double noise[] = { 0.3, -0.2, 0.1, -0.4, 0.2, 0.0, -0.1, 0.25 };
	double v[8], t[8];
	size_t g[8];
	for (int i = 0; i < 8; i++) {
		v[i] = 60.0 - 1.0 * i + noise[i];
		t[i] = i + 1;
		g[i] = i < 4 ? 0 : 1;
	}
	struct stats_design d = { .v = v, .group = g, .t = t, .n = 8, .n_groups = 2 };
	struct stats_decision r, two;
	assert_int_equal(stats_decide(stats_metric_find("real_fps"), &d, 0, 1, NULL, &r), 0);
	assert_false(r.interleaved);
	assert_true(r.time_terms >= 1);
	d.t = NULL;
	assert_int_equal(stats_decide(stats_metric_find("real_fps"), &d, 0, 1, NULL, &two), 0);
	assert_true(two.interleaved);
	/* the two-sample test reads the drift as a loss; the model does not */
	assert_int_equal(two.state, STATS_STATE_SLOWER);
	assert_true(r.state != STATS_STATE_SLOWER);
	assert_int_equal(r.why, STATS_WHY_CONFOUNDED);
	/* the same values in an interleaved order: a narrower interval */
	const char *inter = "ABBABAAB";
	for (int i = 0; i < 8; i++)
		g[i] = (size_t)(inter[i] - 'A');
	d.t = t;
	struct stats_decision il;
	assert_int_equal(stats_decide(stats_metric_find("real_fps"), &d, 0, 1, NULL, &il), 0);
	assert_true(il.interleaved);
	assert_true(r.ci_high - r.ci_low > 1.5 * (il.ci_high - il.ci_low));
	assert_true(strstr(r.reason, "arms not interleaved") != NULL);
}

/* Counts are exact in steps of 1 (the metric's definition, not the
 * values): equal zero counts are "same"; a count over 10 is not 0.1. */
static void test_decide__counts_and_exact_resolution(void **state)
{
	(void)state;
	double v[] = { 0, 0, 0, 0, 0, 0, 0, 0 }, t[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	size_t g[] = { 0, 1, 1, 0, 1, 0, 0, 1 };
	struct stats_design d = { .v = v, .group = g, .t = t, .n = 8, .n_groups = 2 };
	const struct stats_metric_spec count = { .resolution = 1, .exact = true, .count = true };
	struct stats_decide_options o = { .spec = &count };
	struct stats_decision r;
	assert_int_equal(stats_decide(stats_metric_find("over_100ms"), &d, 0, 1, &o, &r), 0);
	assert_float_equal(r.min_effect, 1, 0);
	assert_float_equal(r.resolution, 0, 0);
	assert_float_equal(r.ci_low, 0, 0);
	assert_float_equal(r.ci_high, 0, 0);
	assert_int_equal(r.state, STATS_STATE_SAME);
	/* without the definition the values' grid (1) widens it to +-1.000000001 */
	assert_int_equal(stats_decide(stats_metric_find("over_100ms"), &d, 0, 1, NULL, &r), 0);
	assert_int_equal(r.state, STATS_STATE_UNDECIDED);
	/* fps as 10 frames over a 10 s window: 0.1 steps inferred, exact by definition */
	double fps[] = { 60.1, 60.3, 60.2, 60.2, 60.4, 60.1, 60.2, 60.3 };
	d.v = fps;
	const struct stats_metric_spec exact = { .exact = true };
	o.spec = &exact;
	assert_int_equal(stats_decide(stats_metric_find("real_fps"), &d, 0, 1, &o, &r), 0);
	assert_float_equal(r.resolution, 0, 0);
	assert_float_equal(r.se_floor, 0, 0);
	o.spec = NULL;
	assert_int_equal(stats_decide(stats_metric_find("real_fps"), &d, 0, 1, &o, &r), 0);
	assert_float_equal(r.resolution, 0.1, 1e-15);
}

/* The permutation test by hand: exact relabellings, sides and shift. */
static void test_permutation__by_hand(void **state)
{
	(void)state;
	double v[] = { 1, 2, 3, 4, 5, 6 };
	size_t g[] = { 0, 0, 0, 1, 1, 1 };
	struct stats_design d = { .v = v, .group = g, .n = 6, .n_groups = 2 };
	double p, pmin;
	bool exact;
	size_t count;
	assert_int_equal(stats_permutation_p(&d, 0, 1, 0, 0, 2, &p, &pmin, &exact, &count), 0);
	assert_float_equal(p, 1.0 / 20, 1e-15);
	assert_true(exact);
	assert_int_equal(count, 20);
	assert_int_equal(stats_permutation_p(&d, 0, 1, 0, 0, 1, &p, &pmin, NULL, NULL), 0);
	assert_float_equal(p, 0.5 / 20, 1e-15);
	assert_float_equal(pmin, 0.5 / 20, 1e-15);
	assert_int_equal(stats_permutation_p(&d, 0, 1, 0, 0, -1, &p, NULL, NULL, NULL), 0);
	assert_float_equal(p, 19.5 / 20, 1e-15);
	/* shifted by 3 the arm sits exactly on the baseline: every sum of 3
	 * of {1,2,3,1,2,3} is as extreme; of the 8 that tie with it (one of
	 * each value) only the observed labelling and its mirror count half */
	assert_int_equal(stats_permutation_p(&d, 0, 1, 0, 3, 2, &p, NULL, NULL, NULL), 0);
	assert_float_equal(p, 19.0 / 20, 1e-15);
	/* beyond STATS_PERM_EXACT_MAX relabellings: fixed-seed Monte Carlo */
	double big[24];
	size_t gb[24];
	for (int i = 0; i < 24; i++) {
		big[i] = i;
		gb[i] = i % 2;
	}
	struct stats_design db = { .v = big, .group = gb, .n = 24, .n_groups = 2 };
	double p1, p2;
	assert_int_equal(stats_permutation_p(&db, 0, 1, 0, 0, 2, &p1, &pmin, &exact, &count), 0);
	assert_false(exact);
	assert_int_equal(count, STATS_PERM_DRAWS);
	assert_int_equal(stats_permutation_p(&db, 0, 1, 0, 0, 2, &p2, NULL, NULL, NULL), 0);
	assert_float_equal(p1, p2, 0); /* the same seed, the same p */
	assert_true(p1 > 0.5);
	assert_int_equal(stats_permutation_p(&db, 0, 0, 0, 0, 2, &p1, NULL, NULL, NULL), -EINVAL);
}

static void test_levels__rule(void **state)
{
	(void)state;
	double lv[STATS_MAX_LEVELS];
	const double bi[] = { 154.2, 213.0, 153.9, 212.6, 154.0, 213.1 };
	const size_t g[] = { 0, 0, 1, 1, 0, 1 };
	assert_int_equal(stats_levels(bi, g, 6, 1.5, lv), 2);
	assert_float_equal(lv[0], 154.0, 1e-12);
	assert_float_equal(lv[1], 213.0, 1e-12);
	char buf[96];
	stats_levels_text(stats_metric_find("real_fps"), lv, 2, buf, sizeof buf);
	assert_string_equal(buf, "two levels: 154, 213 fps");
	/* a spread, not levels */
	const double sp[] = { 150, 151, 152, 153, 154, 155 };
	assert_int_equal(stats_levels(sp, g, 6, 1, lv), 0);
	/* each arm on its own value: an arm difference, not levels */
	const double ad[] = { 150, 150, 160, 160 };
	const size_t ga[] = { 0, 0, 1, 1 };
	assert_int_equal(stats_levels(ad, ga, 4, 1, lv), 0);
	/* gaps below the minimum effect are not levels */
	const double sm[] = { 16.6, 16.7, 16.6, 16.7 };
	const size_t gs[] = { 0, 0, 1, 1 };
	assert_int_equal(stats_levels(sm, gs, 4, 0.33, lv), 0);
	assert_int_equal(stats_levels(sm, gs, 4, 0.05, lv), 2);
}

/* Drift as the model's time coefficient over the real span. */
static void test_drift__over_the_span(void **state)
{
	(void)state;
	double v[] = { 150.0, 150.2, 150.5, 150.9, 151.0, 151.3 };
	double t[] = { 1, 2, 3, 4, 5, 6 };
	double s[] = { 0, 12, 24, 36, 48, 60 };
	size_t g[] = { 0, 1, 1, 0, 0, 1 };
	struct stats_design d = { .v = v, .group = g, .t = t, .n = 6, .n_groups = 2 };
	struct stats_drift dr;
	assert_int_equal(stats_drift(&d, s, 0.05, &dr), 0);
	assert_true(dr.known && dr.timed);
	assert_float_equal(dr.span, 60, 0);
	assert_int_equal(dr.df, 3);
	assert_true(dr.low < dr.change && dr.change < dr.high);
	assert_true(dr.real);
	char buf[96];
	stats_drift_text(stats_metric_find("real_fps"), &dr, buf, sizeof buf);
	char want[96];
	snprintf(want, sizeof want, "%+.1f fps over 1 min [%+.1f, %+.1f]", dr.change, dr.low, dr.high);
	assert_string_equal(buf, want);
	assert_null(strstr(buf, "hour"));
	/* over two hours: per hour */
	for (int i = 0; i < 6; i++)
		s[i] *= 120;
	assert_int_equal(stats_drift(&d, s, 0.05, &dr), 0);
	stats_drift_text(stats_metric_find("real_fps"), &dr, buf, sizeof buf);
	assert_non_null(strstr(buf, "an hour"));
	/* untimed (imports): over the runs */
	assert_int_equal(stats_drift(&d, NULL, 0.05, &dr), 0);
	assert_false(dr.timed);
	stats_drift_text(stats_metric_find("real_fps"), &dr, buf, sizeof buf);
	assert_non_null(strstr(buf, "over 6 runs"));
	/* two runs 60 s apart leave no degree of freedom: no drift claimed */
	struct stats_design two = { .v = v, .group = g, .t = t, .n = 2, .n_groups = 2 };
	assert_int_equal(stats_drift(&two, s, 0.05, &dr), 0);
	assert_false(dr.known);
}

/* More rounds as a range, nothing below STATS_FORECAST_MIN_DF df, no jump
 * at the minimum effect. */
static void test_forecast__range(void **state)
{
	(void)state;
	struct stats_decision d = { .method = STATS_METHOD_ARM_TIME, .df = 6, .se = 1.0,
		                    .alpha = 0.05, .min_effect = 1.5, .resolution = 0 };
	double lo, hi;
	d.delta = 1.52;
	d.ci_low = d.delta - 2.447;
	d.ci_high = d.delta + 2.447;
	stats_rounds_forecast(&d, 4, 2, 400, NULL, NULL, 4, &lo, &hi);
	assert_true(isfinite(lo) && lo >= 1);
	assert_true(hi >= lo);
	double lo_above = lo;
	d.delta = 1.48;
	d.ci_low = d.delta - 2.447;
	d.ci_high = d.delta + 2.447;
	stats_rounds_forecast(&d, 4, 2, 400, NULL, NULL, 4, &lo, &hi);
	assert_true(isfinite(lo));
	assert_true(fabs(lo - lo_above) <= 1);
	/* 3 df: nothing */
	d.df = 3;
	stats_rounds_forecast(&d, 4, 2, 400, NULL, NULL, 4, &lo, &hi);
	assert_true(isnan(lo) && isnan(hi));
}

static void test_family__bound(void **state)
{
	(void)state;
	/* two primaries, one arm: 10 % at most; per comparison 2.5 % keeps 5 % */
	assert_float_equal(stats_familywise_bound(0.05, 2), 0.10, 1e-15);
	assert_float_equal(stats_family_alpha(0.05, 2), 0.025, 1e-15);
	assert_float_equal(stats_familywise_bound(0.05, 0), 0.05, 1e-15);
	assert_float_equal(stats_familywise_bound(0.05, 30), 1, 0);
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
	const double lo[] = { 10.01, 10.03, 9.98, 10.0 }, hi[] = { 13.02, 12.98, 13.01, 13.0 };
	assert_int_equal(two_sample("p99_ms", lo, 4, hi, 4).state, STATS_STATE_SLOWER);
	assert_int_equal(two_sample("p99_ms", hi, 4, lo, 4).state, STATS_STATE_FASTER);
	assert_int_equal(two_sample("real_fps", hi, 4, lo, 4).state, STATS_STATE_SLOWER);
	assert_int_equal(two_sample("draws", lo, 4, hi, 4).state, STATS_STATE_HIGHER);
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
			.df = 6, .p_perm = 0.01, .p_perm_min = 2.0 / 70, .n_arm = 4, .n_baseline = 4,
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

/* The Lan-DeMets boundaries of alpha (k/K)^2: the first look spends its
 * share alone, later looks' nominal levels exceed their increments (the
 * looks are correlated), the last of 10 is 2.97 % (4,000,000 known-variance
 * Monte Carlo campaigns spent 5.000 % over the 10 looks with these levels:
 * tests/test-stats-simulate.c checks it at every run). */
static void test_sequential__lan_demets_levels(void **state)
{
	(void)state;
	assert_float_equal(stats_sequential_alpha(0.05, 1, 10), 0.0005, 1e-12);
	assert_float_equal(stats_sequential_alpha(0.05, 10, 10), 0.0297, 2e-4);
	assert_float_equal(stats_sequential_alpha(0.05, 1, 1), 0.05, 1e-12);
	assert_float_equal(stats_sequential_alpha(0.05, 11, 10), 0, 0);
	assert_true(isnan(stats_sequential_alpha(0.05, 0, 10)));
	for (int K = 2; K <= 20; K++) {
		double prev = 0;
		for (int k = 1; k <= K; k++) {
			double a = stats_sequential_alpha(0.05, k, K);
			double inc = stats_sequential_spent(0.05, k, K) - stats_sequential_spent(0.05, k - 1, K);
			assert_true(a > prev);           /* later looks decide at more */
			assert_true(a >= inc - 1e-12);   /* never below the increment */
			assert_true(a < 0.05);
			prev = a;
		}
	}
	/* a deadline's last look spends what is left: at look 1 all of it */
	assert_float_equal(stats_sequential_alpha_final(0.05, 1, 10), 0.05, 1e-12);
	double f6 = stats_sequential_alpha_final(0.05, 6, 10);
	assert_true(f6 > stats_sequential_alpha(0.05, 6, 10));
	assert_true(f6 < 0.05);
	/* asked in any order, the cache gives the same levels */
	double a3 = stats_sequential_alpha(0.05, 3, 10);
	(void)stats_sequential_alpha(0.05, 3, 7);
	assert_float_equal(stats_sequential_alpha(0.05, 3, 10), a3, 0);
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
		cmocka_unit_test(test_sequential__lan_demets_levels),
		cmocka_unit_test(test_decide__tied_two_vs_two),
		cmocka_unit_test(test_decide__one_round_decides_nothing),
		cmocka_unit_test(test_decide__orthogonal_time_terms_dropped),
		cmocka_unit_test(test_decide__blocks_wide_and_flagged),
		cmocka_unit_test(test_decide__counts_and_exact_resolution),
		cmocka_unit_test(test_permutation__by_hand),
		cmocka_unit_test(test_levels__rule),
		cmocka_unit_test(test_drift__over_the_span),
		cmocka_unit_test(test_forecast__range),
		cmocka_unit_test(test_family__bound),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
