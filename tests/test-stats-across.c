/* test-stats-across: the device x arm interaction (stats-across.c).
 *
 * Unit cases: an effect recovered from a decision's interval, two devices
 * with the same and with different effects, three devices naming the odd
 * one, too few usable devices.
 *
 * The simulation (fixed seed): campaigns of one plan on two or three
 * devices whose baselines differ (50, 80 and 35 fps), each device's arm B
 * against its baseline A over k runs an arm in counterbalanced rounds
 * (AB, BA, ...), decided by stats_decide() on each device, then
 * stats_across_decide() over the devices at alpha 0.05 and the metric's
 * minimum effect (real fps: 1 %).  Run-to-run sd 1 % of each device's
 * baseline; noise models normal, heavy-tailed (t, 3 df, same sd), a linear
 * drift over the campaign and values rounded to 0.1.  Asserted with a
 * Monte Carlo tolerance of three binomial standard errors:
 *   - the same relative effect (-5 %) on every device: "differs" <= 5 %;
 *   - one device's effect 4 points larger (4 sd): "differs" in at least
 *     80 % of campaigns at k = 8, and "same" never once the difference is
 *     2.5 minimum effects or more;
 *   - with three devices, the odd device is named when "differs".
 * The table of rates is printed (docs/fleet.md carries it).  Under the
 * sanitizers a tenth of the campaigns (test-sim.h), the tolerances and the
 * power floor following the smaller count. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "stats/stats-across.h"
#include "test-sim.h"

static const struct stats_metric_def *fps(void)
{
	return stats_metric_find("real_fps");
}

/* ---- unit cases ---- */

static void test_effect__from_a_decisions_interval(void **state)
{
	(void)state;
	/* delta -2.5 fps on a 50 fps baseline, se 0.5 at 10 df */
	double tq = stats_t_quantile_two_sided(0.05, 10);
	struct stats_decision d = { .method = STATS_METHOD_TWO_SAMPLE, .df = 10, .alpha = 0.05,
	                            .delta = -2.5, .se = 0.5, .ci_low = -2.5 - tq * 0.5,
	                            .ci_high = -2.5 + tq * 0.5 };
	struct stats_device_effect e;
	assert_int_equal(stats_device_effect_from_decision(&d, 50, &e), 0);
	assert_true(e.usable);
	assert_true(fabs(e.effect_pct - -5.0) < 1e-12);
	assert_true(fabs(e.se_pct - 1.0) < 1e-9);
	assert_true(e.df == 10);
	/* an interval widened by a resolution of 0.1: its rounding is noise,
	 * 0.1^2 / 6 more variance */
	d.resolution = 0.1;
	d.widened = true;
	assert_int_equal(stats_device_effect_from_decision(&d, 50, &e), 0);
	assert_true(fabs(e.se_pct - sqrt(0.25 + 0.01 / 6) * 2) < 1e-9);
	d.method = STATS_METHOD_NONE;
	assert_int_equal(stats_device_effect_from_decision(&d, 50, &e), -ENODATA);
	assert_false(e.usable);
	d.method = STATS_METHOD_ARM_TIME;
	assert_int_equal(stats_device_effect_from_decision(&d, 0, &e), -ENODATA);
}

static void test_across__same_effect_on_two_devices_is_same(void **state)
{
	(void)state;
	struct stats_device_effect dev[2] = {
		{ .effect_pct = -5.0, .se_pct = 0.2, .df = 14, .usable = true },
		{ .effect_pct = -5.1, .se_pct = 0.25, .df = 14, .usable = true },
	};
	struct stats_across a;
	assert_int_equal(stats_across_decide(dev, 2, 0.05, 1.0, &a), 0);
	assert_int_equal(a.state, STATS_ACROSS_SAME);
	assert_int_equal(a.n_pairs, 1);
	assert_true(fabs(a.pairs[0].diff_pct - 0.1) < 1e-12);
	assert_true(a.pairs[0].ci_low > -1.0 && a.pairs[0].ci_high < 1.0);
	assert_string_equal(stats_across_state_name(a.state), "same");
	stats_across_finish(&a);
}

static void test_across__different_effect_names_the_larger_one(void **state)
{
	(void)state;
	struct stats_device_effect dev[2] = {
		{ .effect_pct = -0.2, .se_pct = 0.3, .df = 14, .usable = true },
		{ .effect_pct = -9.0, .se_pct = 0.4, .df = 14, .usable = true },
	};
	struct stats_across a;
	assert_int_equal(stats_across_decide(dev, 2, 0.05, 1.0, &a), 0);
	assert_int_equal(a.state, STATS_ACROSS_DIFFERS);
	assert_int_equal(a.odd, 1);
	assert_true(fabs(a.odd_diff_pct - -8.8) < 1e-12);
	assert_true(a.pairs[0].p < 0.001);
	stats_across_finish(&a);
	/* noisy: the same numbers with ten times the error are undecided */
	dev[0].se_pct = dev[1].se_pct = 4;
	assert_int_equal(stats_across_decide(dev, 2, 0.05, 1.0, &a), 0);
	assert_int_equal(a.state, STATS_ACROSS_UNDECIDED);
	stats_across_finish(&a);
	/* a difference under the minimum effect is never "differs" */
	dev[0] = (struct stats_device_effect){ -5.0, 0.01, 30, true };
	dev[1] = (struct stats_device_effect){ -5.5, 0.01, 30, true };
	assert_int_equal(stats_across_decide(dev, 2, 0.05, 1.0, &a), 0);
	assert_int_equal(a.state, STATS_ACROSS_SAME);
	stats_across_finish(&a);
}

static void test_across__three_devices_name_the_odd_one(void **state)
{
	(void)state;
	struct stats_device_effect dev[4] = {
		{ .effect_pct = -5.0, .se_pct = 0.3, .df = 14, .usable = true },
		{ .usable = false, .effect_pct = NAN, .se_pct = NAN, .df = NAN },
		{ .effect_pct = -12.0, .se_pct = 0.3, .df = 14, .usable = true },
		{ .effect_pct = -5.2, .se_pct = 0.3, .df = 14, .usable = true },
	};
	struct stats_across a;
	assert_int_equal(stats_across_decide(dev, 4, 0.05, 1.0, &a), 0);
	assert_int_equal(a.state, STATS_ACROSS_DIFFERS);
	assert_int_equal(a.n_pairs, 3);
	assert_int_equal(a.odd, 2);
	assert_true(fabs(a.odd_diff_pct - -6.9) < 1e-9);
	/* the pair of the two alike is not called different */
	for (size_t k = 0; k < a.n_pairs; k++)
		if (a.pairs[k].a == 0 && a.pairs[k].b == 3)
			assert_int_not_equal(a.pairs[k].state, STATS_ACROSS_DIFFERS);
	stats_across_finish(&a);
}

static void test_across__needs_two_usable_devices(void **state)
{
	(void)state;
	struct stats_device_effect dev[2] = {
		{ .effect_pct = -5.0, .se_pct = 0.3, .df = 14, .usable = true },
		{ .usable = false },
	};
	struct stats_across a;
	assert_int_equal(stats_across_decide(dev, 2, 0.05, 1.0, &a), -ENODATA);
	assert_int_equal(stats_across_decide(dev, 2, 0.05, 0.0, &a), -EINVAL);
	assert_int_equal(stats_across_decide(dev, STATS_ACROSS_MAX_DEVICES + 1, 0.05, 1.0, &a),
	                 -EINVAL);
}

/* ---- the simulation ---- */

/* splitmix64: a fixed stream on every machine */
static uint64_t sm_next(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static double uniform01(uint64_t *x)
{
	return ((double)(sm_next(x) >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(uint64_t *x)
{
	return sqrt(-2 * log(uniform01(x))) * cos(2 * M_PI * uniform01(x));
}

enum model { NORMAL, HEAVY, DRIFT, ROUNDED, N_MODELS };
static const char *const model_names[N_MODELS] = { "normal", "t, 3 df", "linear drift",
	                                           "rounded to 0.1" };
static const double bases[3] = { 50, 80, 35 };

/* One unit of noise (sd 1) under the model. */
static double noise(uint64_t *x, enum model m)
{
	if (m != HEAVY)
		return gauss(x);
	/* t with 3 df has variance 3: scaled to 1 */
	double z = gauss(x), c = 0;
	for (int i = 0; i < 3; i++) {
		double g = gauss(x);
		c += g * g;
	}
	return z / sqrt(c / 3) / sqrt(3.0);
}

/* One device's campaign: k runs an arm in rounds AB, BA, ...; its effect
 * (%, relative to its baseline) decided and turned into a device effect. */
static void device_campaign(uint64_t *x, enum model m, int k, double base, double effect_pct,
                            struct stats_device_effect *out)
{
	double v[40], t[40];
	size_t g[40], n = 0;
	double sd = base * 0.01;
	for (int r = 0; r < k; r++)
		for (int j = 0; j < 2; j++) {
			size_t arm = (size_t)((r % 2 == 0) ? j : 1 - j);
			double mean = base * (1 + (arm ? effect_pct / 100 : 0));
			double val = mean + sd * noise(x, m);
			if (m == DRIFT)
				val += base * 0.002 * (double)n;  /* +0.2 % a run */
			if (m == ROUNDED)
				val = round(val * 10) / 10;
			v[n] = val;
			t[n] = (double)n;
			g[n++] = arm;
		}
	struct stats_design des = { .v = v, .group = g, .t = t, .n = n, .n_groups = 2 };
	struct stats_decide_options o = { .primary = true };
	struct stats_decision d;
	assert_int_equal(stats_decide(fps(), &des, 0, 1, &o, &d), 0);
	double sum = 0;
	size_t nb = 0;
	for (size_t i = 0; i < n; i++)
		if (g[i] == 0) {
			sum += v[i];
			nb++;
		}
	stats_device_effect_from_decision(&d, sum / (double)nb, out);
}

struct rates {
	int differs, same, odd_right, n;
};

/* n_sim fleets of n_dev devices; the last device's effect is extra points
 * away from the others' -5 %. */
static struct rates simulate(uint64_t seed, enum model m, int k, size_t n_dev, double extra,
                             int n_sim)
{
	uint64_t x = seed;
	struct rates r = { .n = n_sim };
	for (int s = 0; s < n_sim; s++) {
		struct stats_device_effect dev[3];
		for (size_t i = 0; i < n_dev; i++)
			device_campaign(&x, m, k, bases[i], -5.0 - (i == n_dev - 1 ? extra : 0), &dev[i]);
		struct stats_across a;
		int err = stats_across_decide(dev, n_dev, 0.05, stats_min_effect_default_pct("real_fps"),
		                              &a);
		assert_int_equal(err, 0);
		r.differs += a.state == STATS_ACROSS_DIFFERS;
		r.same += a.state == STATS_ACROSS_SAME;
		r.odd_right += a.state == STATS_ACROSS_DIFFERS && a.odd == n_dev - 1;
		stats_across_finish(&a);
	}
	return r;
}

static double tolerance(double p, int n)
{
	return 3 * sqrt(p * (1 - p) / n);
}

static void test_across_simulation__error_rates(void **state)
{
	(void)state;
	const int N_NULL = test_sim_n(2000), N_ALT = test_sim_n(500);
	printf("| noise | devices | runs an arm | same effect: differs | same effect: same | "
	       "4 points apart: differs | 4 points apart: same | odd device named |\n"
	       "|---|---|---|---|---|---|---|---|\n");
	uint64_t seed = 27;
	for (int m = 0; m < N_MODELS; m++)
		for (size_t n_dev = 2; n_dev <= 3; n_dev++)
			for (int k = 4; k <= 8; k += 4) {
				struct rates null = simulate(seed++, (enum model)m, k, n_dev, 0, N_NULL);
				struct rates alt = simulate(seed++, (enum model)m, k, n_dev, 4, N_ALT);
				printf("| %s | %zu | %d | %.1f %% | %.1f %% | %.1f %% | %.1f %% | %.1f %% |\n",
				       model_names[m], n_dev, k, 100.0 * null.differs / N_NULL,
				       100.0 * null.same / N_NULL, 100.0 * alt.differs / N_ALT,
				       100.0 * alt.same / N_ALT,
				       alt.differs ? 100.0 * alt.odd_right / alt.differs : 0.0);
				assert_true((double)null.differs / N_NULL <= 0.05 + tolerance(0.05, N_NULL));
				assert_int_equal(alt.same, 0);
				if (k == 8)
					assert_true((double)alt.differs / N_ALT >=
					            0.80 - (TEST_SIM_SANITIZED ? tolerance(0.8, N_ALT) : 0));
				if (n_dev == 3)
					assert_true(alt.odd_right >= alt.differs * 9 / 10);
			}
	fflush(stdout);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_effect__from_a_decisions_interval),
		cmocka_unit_test(test_across__same_effect_on_two_devices_is_same),
		cmocka_unit_test(test_across__different_effect_names_the_larger_one),
		cmocka_unit_test(test_across__three_devices_name_the_odd_one),
		cmocka_unit_test(test_across__needs_two_usable_devices),
		cmocka_unit_test(test_across_simulation__error_rates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
