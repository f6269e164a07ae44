/* test-stats-simulate: the decision (stats-verdict.c, stats-perm.c,
 * stats-sequential.c) on simulated campaigns with a fixed seed.  Two arms,
 * A the baseline and B, k runs each at k = 2, 3, 4, 6 and 10, in a
 * counterbalanced order (rounds AB, BA, AB, ...) unless the model says
 * the arms ran in blocks (all A, then all B: imports).  Noise models:
 *   normal; heavy-tailed (t, 3 df); linear drift; an exponential settle;
 *   one slow outlier run per arm; values rounded to 0.1 (real fps around
 *   50, run-to-run sd 0.5 = 1 %, so the 1 % minimum effect is 1 sd);
 *   bimodal (each run at 154 or 213 fps, as the H200 gave for
 *   RX_VK_READBACK_EARLY=1); vsync-quantised p99 (16.7 or 33.3 ms); tied
 *   counts (frames over 100 ms, Poisson with mean 0.7); a 3 % drift over
 *   the night with the arms in blocks (imported: positions in import
 *   order) and the same drift as `rxdeck run` orders the runs.
 *
 * Asserted, each rate with a Monte Carlo tolerance of three binomial
 * standard errors:
 *   - no true difference: faster/slower calls <= 5 % at every run count,
 *     in every model, for the fixed design and the sequential rule;
 *   - power at +2 % and +5 % no lower than the lower of the pooled
 *     two-sample t read at the level a test of the labels counting the
 *     observed labelling whole can spend (2/70 at 4 runs an arm, 46/924
 *     at 6, 5 % at 10; none at 2 and 3) and the permutation test alone,
 *     wherever the t holds its level (its false-call rate on that noise
 *     and run count within 5 % + tolerance);
 *   - a true difference of 2.5 minimum effects is never "same";
 *   - the sequential boundaries spend 5 % +- 0.5 % of known-variance
 *     campaigns, and "same" is reached under no difference;
 *   - two primaries over 1 to 3 arms: each comparison at 5 % keeps the
 *     family under the stated Bonferroni bound, and at the family's share
 *     (fixed and sequential) at 5 %.
 * The tables are printed (docs/metrics.md 6.6 carries them); `--full`
 * runs the campaign counts of the docs, the default a tenth of them with
 * the tolerances that go with it (under the sanitizers a tenth of that:
 * test-sim.h).  `--rules [N]` runs no test: it prints the design
 * choices' tables, measured by switching rules (the time-term rule of
 * stats_decide_options, the permutation test's rules against the one in
 * stats_permutation_p(), power at 2-4 runs an arm against the t), for
 * docs/metrics.md 6.1, 6.1a and 6.6. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"
#include "test-sim.h"

#define MEAN 50.0
#define SD 0.5
#define MAX_K 10
#define SEED 20261203

static int n_null = 300, n_alt = 80, n_seq = 200, n_alpha = 20000;

enum model {
	NORMAL, HEAVY, DRIFT, SETTLE, OUTLIER, ROUNDED, BIMODAL, VSYNC, COUNTS, DRIFT_BLOCKS,
	DRIFT_RUN, N_MODELS
};
static const char *const model_names[N_MODELS] = {
	"normal", "t, 3 df", "linear drift", "exponential settle", "one outlier per arm",
	"rounded to 0.1", "bimodal 154/213 fps", "p99 on vsync (16.7/33.3 ms)",
	"tied counts (over 100 ms)", "3 % drift, arms in blocks (imported)",
	"3 % drift, AB BA (as run)",
};
/* the sequential columns: the models a campaign that stops when decided
 * meets most */
static const bool sequential_models[N_MODELS] = {
	[NORMAL] = true, [HEAVY] = true, [DRIFT] = true, [ROUNDED] = true, [BIMODAL] = true,
	[VSYNC] = true, [DRIFT_RUN] = true,
};
static const int sizes[] = { 2, 3, 4, 6, 10 };
#define N_SIZES (sizeof sizes / sizeof sizes[0])

/* xoshiro256** seeded by splitmix64: the same numbers on every machine */
struct rng {
	uint64_t s[4];
};

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t next_u64(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

static void rng_seed(struct rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++) {
		uint64_t z = (seed += 0x9e3779b97f4a7c15u);
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
		r->s[i] = z ^ (z >> 31);
	}
}

static double uniform(struct rng *r)
{
	return ((double)(next_u64(r) >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(struct rng *r)
{
	return sqrt(-2.0 * log(uniform(r))) * cos(2.0 * M_PI * uniform(r));
}

/* t with 3 df, scaled to variance 1 */
static double heavy(struct rng *r)
{
	double z = normal(r), c = 0;
	for (int i = 0; i < 3; i++) {
		double x = normal(r);
		c += x * x;
	}
	return z / sqrt(c / 3.0) / sqrt(3.0);
}

static int poisson(struct rng *r, double lambda)
{
	double l = exp(-lambda), p = 1;
	int k = 0;
	do {
		k++;
		p *= uniform(r);
	} while (p > l);
	return k - 1;
}

struct campaign {
	double v[2 * MAX_K];
	size_t group[2 * MAX_K];
	double t[2 * MAX_K];
	size_t n;
};

/* The metric a model's values are of, and what its definition says. */
static const char *model_metric(enum model m)
{
	return m == VSYNC ? "p99_ms" : m == COUNTS ? "over_100ms" : "real_fps";
}

static const struct stats_metric_spec *model_spec(enum model m)
{
	static const struct stats_metric_spec exact = { .exact = true };
	static const struct stats_metric_spec count = { .resolution = 1, .exact = true, .count = true };
	static const struct stats_metric_spec tenth = { .resolution = 0.1 };
	switch (m) {
	case BIMODAL: return &exact;     /* fps: a count over a known window */
	case COUNTS: return &count;
	case VSYNC: return &tenth;       /* stored at 0.1 ms */
	default: return NULL;            /* inferred from the values */
	}
}

/* k runs per arm; B better by `better` (a fraction: 0.02 is 2 %, higher
 * fps, shorter p99, fewer counts), or by effect_sd sds of fps. */
static void simulate(struct rng *r, enum model m, int k, double better, double effect_sd,
                     struct campaign *c)
{
	c->n = 0;
	int outlier[2] = { (int)(uniform(r) * k), (int)(uniform(r) * k) };
	int seen[2] = { 0, 0 };
	for (int rd = 0; rd < k; rd++)
		for (int j = 0; j < 2; j++) {
			size_t g = (size_t)(rd % 2 == 0 ? j : 1 - j);
			if (m == DRIFT_BLOCKS)
				g = c->n < (size_t)k ? 0 : 1;
			double pos = (double)c->n;
			double e = m == HEAVY ? heavy(r) : normal(r);
			double fps_gain = g == 1 ? 1 + better : 1;
			double v = MEAN * fps_gain + SD * e + (g == 1 ? effect_sd * SD : 0);
			switch (m) {
			case DRIFT: /* the machine slows by 2 sd over 20 runs */
				v -= 0.1 * SD * pos;
				break;
			case SETTLE: /* a thermal settle: 3 sd slow at first, 1/e every 2 runs */
				v -= 3.0 * SD * exp(-pos / 2.0);
				break;
			case OUTLIER: /* one run per arm 6 sd slow */
				if (seen[g] == outlier[g])
					v -= 6.0 * SD;
				break;
			case ROUNDED:
				v = round(v * 10.0) / 10.0;
				break;
			case BIMODAL:
				v = (uniform(r) < 0.5 ? 154.0 : 213.0) * fps_gain;
				break;
			case VSYNC: {
				/* the run's p99 before the compositor: 16 ms +- 1; shown
				 * on the next vsync of 60 Hz */
				double x = (16.0 + 1.0 * e + (g == 1 ? -effect_sd : 0)) / fps_gain;
				double frames = ceil(x / (1000.0 / 60.0));
				v = round(frames * (1000.0 / 60.0) * 10.0) / 10.0;
				break;
			}
			case COUNTS:
				v = poisson(r, 0.7 / fps_gain);
				break;
			case DRIFT_BLOCKS:
			case DRIFT_RUN: /* 3 % slower at the last run than at the first */
				v -= 0.03 * MEAN * pos / (2.0 * k - 1);
				break;
			default:
				break;
			}
			seen[g]++;
			c->v[c->n] = v;
			c->group[c->n] = g;
			c->t[c->n] = pos + 1;
			c->n++;
		}
}

static struct stats_decision decide_full(enum model m, const struct campaign *c, size_t n,
                                         double alpha)
{
	struct stats_design des = { .v = c->v, .group = c->group, .t = c->t, .n = n, .n_groups = 2 };
	struct stats_decide_options o = { .alpha = alpha, .primary = true, .spec = model_spec(m) };
	struct stats_decision r;
	assert_int_equal(stats_decide(stats_metric_find(model_metric(m)), &des, 0, 1, &o, &r), 0);
	return r;
}

static enum stats_state decide(enum model m, const struct campaign *c, size_t n, double alpha)
{
	return decide_full(m, c, n, alpha).state;
}

static bool is_call(enum stats_state s)
{
	return s == STATS_STATE_FASTER || s == STATS_STATE_SLOWER;
}

/* The pooled two-sample t decision at 5 % on the same values, with the
 * same minimum effect (the decision's former method for runs without
 * places): +1 B better, -1 B worse, 0 no call. */
static int two_sample_t(enum model m, const struct campaign *c, double alpha)
{
	double s[2] = { 0, 0 }, ss[2] = { 0, 0 };
	int n[2] = { 0, 0 };
	for (size_t i = 0; i < c->n; i++) {
		s[c->group[i]] += c->v[i];
		n[c->group[i]]++;
	}
	double mean[2] = { s[0] / n[0], s[1] / n[1] };
	for (size_t i = 0; i < c->n; i++)
		ss[c->group[i]] += (c->v[i] - mean[c->group[i]]) * (c->v[i] - mean[c->group[i]]);
	int df = n[0] + n[1] - 2;
	double se = sqrt((ss[0] + ss[1]) / df * (1.0 / n[0] + 1.0 / n[1]));
	double d = mean[1] - mean[0];
	double p = se > 0 ? stats_t_p_two_sided(d / se, df) : d != 0 ? 0 : 1;
	const struct stats_metric_spec *spec = model_spec(m);
	double step = spec ? spec->resolution : stats_resolution(c->v, c->n);
	double min = fmax(stats_min_effect_default_pct(model_metric(m)) / 100.0 * fabs(mean[0]), step);
	if (!(p < alpha) || fabs(d) < min)
		return 0;
	bool higher_better = strcmp(model_metric(m), "real_fps") == 0;
	return (d > 0) == higher_better ? 1 : -1;
}

/* The sequential rule on one campaign of MAX_K rounds: a look after every
 * round k (its 2k runs), decided at the boundary's level at look k; the
 * state it stopped with, and the looks taken. */
static enum stats_state sequential(enum model m, const struct campaign *c, int *looks)
{
	enum stats_state st = STATS_STATE_UNDECIDED;
	int k;
	for (k = 1; k <= MAX_K; k++) {
		st = decide(m, c, (size_t)k * 2, stats_sequential_alpha(0.05, k, MAX_K));
		if (st != STATS_STATE_UNDECIDED)
			break;
	}
	if (looks)
		*looks = k > MAX_K ? MAX_K : k;
	return st;
}

static double tolerance(double p, int n)
{
	return 3.0 * sqrt(p * (1 - p) / n);
}

/* Wilson 95 % interval of x successes in n. */
static void wilson(int x, int n, double *lo, double *hi)
{
	double z = 1.959964, p = (double)x / n, z2 = z * z;
	double c = (p + z2 / (2 * n)) / (1 + z2 / n);
	double h = z * sqrt(p * (1 - p) / n + z2 / (4.0 * n * n)) / (1 + z2 / n);
	*lo = fmax(0, c - h);
	*hi = fmin(1, c + h);
}

/* The permutation test alone finds B better: p < 5 %, B's side, at least
 * the minimum effect. */
static bool perm_finds(enum model m, const struct stats_decision *d)
{
	bool better = strcmp(model_metric(m), "real_fps") == 0 ? d->delta > 0 : d->delta < 0;
	return d->p_perm < 0.05 && better && fabs(d->delta) >= d->min_effect;
}

struct cell {
	int calls, t_calls, found2, found5, t_found2, t_found5, x_found2, x_found5, p_found2, p_found5, same;
};

/* The largest level at most 5 % that an exact test of k against k
 * relabelled runs can spend two-sided: a multiple of 2 / C(2k, k) (0
 * when even the most extreme pair of relabellings is above 5 %). */
static double exact_level(int k)
{
	double c = 1;
	for (int i = 1; i <= k; i++)
		c = c * (k + i) / i;
	c = floor(c + 0.5);
	return floor(0.05 * c / 2 + 1e-9) * 2 / c;
}

static void print_rate(int x, int n)
{
	double lo, hi;
	wilson(x, n, &lo, &hi);
	printf(" %.1f [%.1f, %.1f]", 100.0 * x / n, 100 * lo, 100 * hi);
}

static void test_simulate__decision_rates(void **state)
{
	(void)state;
	struct rng r;
	rng_seed(&r, SEED);
	struct campaign c;
	static struct cell cells[N_MODELS][N_SIZES];
	long campaigns = 0;
	for (int m = 0; m < N_MODELS; m++)
		for (size_t s = 0; s < N_SIZES; s++) {
			int k = sizes[s];
			struct cell *x = &cells[m][s];
			for (int i = 0; i < n_null; i++) {
				simulate(&r, m, k, 0, 0, &c);
				x->calls += is_call(decide(m, &c, c.n, 0.05));
				x->t_calls += two_sample_t(m, &c, 0.05) != 0;
			}
			for (int i = 0; i < n_alt; i++) {
				simulate(&r, m, k, 0.02, 0, &c);
				struct stats_decision d2 = decide_full(m, &c, c.n, 0.05);
				x->found2 += d2.state == STATS_STATE_FASTER;
				x->p_found2 += perm_finds(m, &d2);
				x->t_found2 += two_sample_t(m, &c, 0.05) == 1;
				x->x_found2 += two_sample_t(m, &c, exact_level(k)) == 1;
				simulate(&r, m, k, 0.05, 0, &c);
				struct stats_decision d5 = decide_full(m, &c, c.n, 0.05);
				x->found5 += d5.state == STATS_STATE_FASTER;
				x->p_found5 += perm_finds(m, &d5);
				x->t_found5 += two_sample_t(m, &c, 0.05) == 1;
				x->x_found5 += two_sample_t(m, &c, exact_level(k)) == 1;
				/* 2.5 minimum effects the wrong way (1 % = 1 sd of fps) */
				simulate(&r, m, k, m == COUNTS ? -0.8 : m == VSYNC ? -0.7 : m == BIMODAL ? -0.5 : 0,
				         m == BIMODAL || m == VSYNC || m == COUNTS ? 0 : -2.5, &c);
				x->same += decide(m, &c, c.n, 0.05) == STATS_STATE_SAME;
			}
			campaigns += n_null + 3 * n_alt;
		}

	printf("%ld simulated campaigns, seed %d; runs per arm:", campaigns, SEED);
	for (size_t s = 0; s < N_SIZES; s++)
		printf(" %d", sizes[s]);
	printf("\n\nFalse faster/slower calls with no true difference, %% [Wilson 95 %%], "
	       "%d campaigns a cell; the pooled two-sample t on the same data after |:\n\n"
	       "| noise | 2 | 3 | 4 | 6 | 10 | two-sample t: 2, 3, 4, 6, 10 |\n"
	       "|---|---|---|---|---|---|---|\n", n_null);
	for (int m = 0; m < N_MODELS; m++) {
		printf("| %s |", model_names[m]);
		for (size_t s = 0; s < N_SIZES; s++) {
			print_rate(cells[m][s].calls, n_null);
			printf(" |");
		}
		for (size_t s = 0; s < N_SIZES; s++)
			printf(" %.1f%s", 100.0 * cells[m][s].t_calls / n_null, s + 1 < N_SIZES ? "," : " |\n");
	}
	printf("\nFound faster at +2 %% and +5 %% (decision / two-sample t / the t at the level an "
	       "exact test of the labels can spend: 0, 0, 2/70, 46/924, 5 %% / the permutation test alone), %d campaigns a cell, "
	       "and \"same\" at 2.5 minimum effects (bimodal 50 %% slower, p99 70 %% longer, counts a mean of 3.5 against 0.7):\n\n"
	       "| noise | +2 %%: 2, 3, 4, 6, 10 | +5 %%: 2, 3, 4, 6, 10 | same at 2.5 m |\n"
	       "|---|---|---|---|\n", n_alt);
	for (int m = 0; m < N_MODELS; m++) {
		printf("| %s |", model_names[m]);
		for (size_t s = 0; s < N_SIZES; s++)
			printf(" %.0f/%.0f/%.0f/%.0f%s", 100.0 * cells[m][s].found2 / n_alt,
			       100.0 * cells[m][s].t_found2 / n_alt, 100.0 * cells[m][s].x_found2 / n_alt,
			       100.0 * cells[m][s].p_found2 / n_alt, s + 1 < N_SIZES ? "," : " % |");
		for (size_t s = 0; s < N_SIZES; s++)
			printf(" %.0f/%.0f/%.0f/%.0f%s", 100.0 * cells[m][s].found5 / n_alt,
			       100.0 * cells[m][s].t_found5 / n_alt, 100.0 * cells[m][s].x_found5 / n_alt,
			       100.0 * cells[m][s].p_found5 / n_alt, s + 1 < N_SIZES ? "," : " % |");
		for (size_t s = 0; s < N_SIZES; s++)
			printf(" %.1f%s", 100.0 * cells[m][s].same / n_alt, s + 1 < N_SIZES ? "," : " % |\n");
	}
	fflush(stdout);

	double tol_null = tolerance(0.05, n_null);
	for (int m = 0; m < N_MODELS; m++)
		for (size_t s = 0; s < N_SIZES; s++) {
			const struct cell *x = &cells[m][s];
			double rate = (double)x->calls / n_null;
			if (rate > 0.05 + tol_null)
				fail_msg("%s, %d runs: false calls %.2f %% > 5 %% + %.2f", model_names[m],
				         sizes[s], 100 * rate, 100 * tol_null);
			if (x->same != 0)
				fail_msg("%s, %d runs: \"same\" at 2.5 minimum effects", model_names[m], sizes[s]);
			/* power: no lower than the lower of the two-sample t read
			 * at the level an exact test of the labels can spend (2/70
			 * at 4 runs an arm, 46/924 at 6, 5 % at 10; at 2 and 3
			 * none: nothing can be called, nothing is asserted) and
			 * the exact permutation test alone, where the t holds its
			 * level.  The decision needs both its model and that test,
			 * so it cannot find more than the test alone: where runs
			 * tie (vsync levels, counts) the exact test is conservative
			 * and that is the bound (docs/metrics.md 6.6). */
			bool t_valid = (double)x->t_calls / n_null <= 0.05 + tol_null;
			if (!(exact_level(sizes[s]) > 0) || !t_valid)
				continue;
			int ours[2] = { x->found2, x->found5 };
			int theirs[2] = { x->x_found2 < x->p_found2 ? x->x_found2 : x->p_found2,
				          x->x_found5 < x->p_found5 ? x->x_found5 : x->p_found5 };
			for (int e = 0; e < 2; e++) {
				double p = (double)theirs[e] / n_alt;
				double tol = 3.0 * sqrt(2.0 * fmax(p * (1 - p), 0.01 * 0.99) / n_alt);
				if ((double)ours[e] / n_alt < p - tol)
					fail_msg("%s, %d runs, +%d %%: found %.1f %%, under the %.1f %% of the test it "
					         "is held to", model_names[m], sizes[s], e ? 5 : 2,
					         100.0 * ours[e] / n_alt, 100 * p);
			}
		}
	assert_true(campaigns >= test_sim_n(10000));
}

static void test_simulate__sequential(void **state)
{
	(void)state;
	struct rng r;
	rng_seed(&r, SEED + 1);
	struct campaign c;
	printf("\nSequential, a look after every round of up to %d (AB BA ...), look k at "
	       "stats_sequential_alpha(0.05, k, %d), %d campaigns a model (no difference) and %d "
	       "(3 sd faster):\n\n"
	       "| noise | false faster/slower | stopped \"same\" | found 3 sd faster | mean rounds |\n"
	       "|---|---|---|---|---|\n", MAX_K, MAX_K, n_seq, n_alt);
	double tol_seq = tolerance(0.05, n_seq);
	for (int m = 0; m < N_MODELS; m++) {
		if (!sequential_models[m])
			continue;
		int calls = 0, sames = 0, found = 0;
		long rounds = 0;
		for (int i = 0; i < n_seq; i++) {
			simulate(&r, m, MAX_K, 0, 0, &c);
			enum stats_state st = sequential(m, &c, NULL);
			calls += is_call(st);
			sames += st == STATS_STATE_SAME;
		}
		for (int i = 0; i < n_alt; i++) {
			int looks;
			simulate(&r, m, MAX_K, m == BIMODAL ? 0.3 : 0, m == BIMODAL ? 0 : 3.0, &c);
			found += sequential(m, &c, &looks) == STATS_STATE_FASTER;
			rounds += looks;
		}
		printf("| %s |", model_names[m]);
		print_rate(calls, n_seq);
		printf(" %% |");
		print_rate(sames, n_seq);
		printf(" %% | %.1f %% | %.1f |\n", 100.0 * found / n_alt, (double)rounds / n_alt);
		if ((double)calls / n_seq > 0.05 + tol_seq)
			fail_msg("%s, sequential: false calls %.2f %% > 5 %% + %.2f", model_names[m],
			         100.0 * calls / n_seq, 100 * tol_seq);
		/* under the sanitizers too few campaigns to expect one */
		if (m == NORMAL && sames == 0 && !TEST_SIM_SANITIZED)
			fail_msg("normal, sequential: \"same\" never reached under no difference");
	}
	fflush(stdout);
}

/* Two primaries (real fps and p99, from the same runs: a slow run has a
 * long p99) and 1 to 3 arms besides the baseline, none different.  Each
 * round plays the arms forward then backward (ABBA, ABCCBA, ...), the arms
 * rotated by one place each round (round 2: BCCB... as a Williams design
 * relabels them).  The familywise rate is the chance of at least one false
 * call among the P x A primary comparisons. */
#define FW_MAX_ARMS 4
#define FW_ROUNDS 5

struct fw_campaign {
	double fps[2 * FW_MAX_ARMS * FW_ROUNDS], p99[2 * FW_MAX_ARMS * FW_ROUNDS];
	double t[2 * FW_MAX_ARMS * FW_ROUNDS];
	size_t group[2 * FW_MAX_ARMS * FW_ROUNDS];
	size_t n, runs_per_round;
};

static void fw_simulate(struct rng *r, int arms, struct fw_campaign *c)
{
	c->n = 0;
	c->runs_per_round = 2 * (size_t)arms;
	for (int rd = 0; rd < FW_ROUNDS; rd++)
		for (int j = 0; j < 2 * arms; j++) {
			int slot = j < arms ? j : 2 * arms - 1 - j;
			size_t g = (size_t)((slot + rd) % arms);
			double fps = MEAN + SD * normal(r);
			c->fps[c->n] = fps;
			/* the p99 of a frame time of 1000 / fps ms, 25 % over it,
			 * with its own noise of 2 % */
			c->p99[c->n] = 1250.0 / fps * (1 + 0.02 * normal(r));
			c->group[c->n] = g;
			c->t[c->n] = (double)c->n + 1;
			c->n++;
		}
}

/* Whether any of the P x A comparisons over the first n runs is a
 * faster/slower call at alpha; *all_decided: every one is decided. */
static bool fw_any_call(const struct fw_campaign *c, int arms, size_t n, double alpha,
                        bool *all_decided)
{
	static const char *const keys[2] = { "real_fps", "p99_ms" };
	static const struct stats_metric_spec exact = { .exact = true };
	const double *vals[2] = { c->fps, c->p99 };
	bool any = false, all = true;
	for (int m = 0; m < 2; m++)
		for (int a = 1; a < arms; a++) {
			struct stats_design des = { .v = vals[m], .group = c->group, .t = c->t, .n = n,
				                    .n_groups = (size_t)arms };
			struct stats_decide_options o = { .alpha = alpha, .primary = true,
				                          .spec = m == 0 ? &exact : NULL };
			struct stats_decision d;
			assert_int_equal(stats_decide(stats_metric_find(keys[m]), &des, 0, (size_t)a, &o, &d), 0);
			any |= is_call(d.state);
			all &= d.state != STATS_STATE_UNDECIDED;
		}
	if (all_decided)
		*all_decided = all;
	return any;
}

static void test_simulate__familywise(void **state)
{
	(void)state;
	struct rng r;
	rng_seed(&r, SEED + 3);
	struct fw_campaign c;
	int n_fixed = n_null / 2, n_sq = n_seq / 2;
	printf("\nFamilywise false calls, 2 primaries (real fps, p99) x 1-3 arms besides the "
	       "baseline, no difference, rounds forward then backward rotated each round; fixed: "
	       "3 rounds (6 runs an arm), %d campaigns; sequential: a look after each of up to %d "
	       "rounds at the family's share, %d campaigns:\n\n"
	       "| arms besides the baseline | comparisons | fixed, each at 5 %% | bound | fixed, each at "
	       "5 %% / comparisons | sequential, share of 5 %% |\n|---|---|---|---|---|---|\n",
	       n_fixed, FW_ROUNDS, n_sq);
	for (int arms = 2; arms <= FW_MAX_ARMS; arms++) {
		size_t comparisons = 2 * (size_t)(arms - 1);
		double share = stats_family_alpha(0.05, comparisons);
		int raw = 0, adj = 0, seq = 0;
		for (int i = 0; i < n_fixed; i++) {
			fw_simulate(&r, arms, &c);
			size_t n = 3 * c.runs_per_round;
			raw += fw_any_call(&c, arms, n, 0.05, NULL);
			adj += fw_any_call(&c, arms, n, share, NULL);
		}
		for (int i = 0; i < n_sq; i++) {
			fw_simulate(&r, arms, &c);
			bool call = false;
			for (int k = 1; k <= FW_ROUNDS; k++) {
				bool all;
				call = fw_any_call(&c, arms, (size_t)k * c.runs_per_round,
				                   stats_sequential_alpha(share, k, FW_ROUNDS), &all);
				if (all)
					break;
			}
			seq += call;
		}
		printf("| %d | %zu |", arms - 1, comparisons);
		print_rate(raw, n_fixed);
		printf(" %% | %.0f %% |", 100 * stats_familywise_bound(0.05, comparisons));
		print_rate(adj, n_fixed);
		printf(" %% |");
		print_rate(seq, n_sq);
		printf(" %% |\n");
		double tol_f = tolerance(0.05, n_fixed), tol_s = tolerance(0.05, n_sq);
		if ((double)raw / n_fixed > stats_familywise_bound(0.05, comparisons) + tol_f)
			fail_msg("%d arms: familywise %.1f %% above the bound", arms - 1, 100.0 * raw / n_fixed);
		if ((double)adj / n_fixed > 0.05 + tol_f)
			fail_msg("%d arms: adjusted familywise %.1f %% > 5 %%", arms - 1, 100.0 * adj / n_fixed);
		if ((double)seq / n_sq > 0.05 + tol_s)
			fail_msg("%d arms: sequential familywise %.1f %% > 5 %%", arms - 1, 100.0 * seq / n_sq);
	}
	fflush(stdout);
}

/* The boundaries themselves: campaigns of known variance (a z statistic
 * of the running sum), a look after every round, stopping at the first
 * |z| beyond the look's boundary: the alpha spent over the looks. */
static void test_simulate__alpha_spent(void **state)
{
	(void)state;
	struct rng r;
	rng_seed(&r, SEED + 2);
	double c[MAX_K + 1];
	for (int k = 1; k <= MAX_K; k++) {
		double a = stats_sequential_alpha(0.05, k, MAX_K), lo = 0, hi = 40;
		for (int i = 0; i < 200; i++) {
			double mid = 0.5 * (lo + hi);
			if (erfc(mid / sqrt(2.0)) > a)
				lo = mid;
			else
				hi = mid;
		}
		c[k] = 0.5 * (lo + hi);
	}
	int cross[MAX_K + 1] = { 0 }, any = 0;
	for (int i = 0; i < n_alpha; i++) {
		double s = 0;
		for (int k = 1; k <= MAX_K; k++) {
			s += normal(&r);
			if (fabs(s / sqrt(k)) >= c[k]) {
				cross[k]++;
				any++;
				break;
			}
		}
	}
	double lo, hi;
	wilson(any, n_alpha, &lo, &hi);
	printf("\nAlpha spent by the boundaries, %d known-variance campaigns of %d looks: "
	       "%.2f %% [Wilson %.2f, %.2f]; by look (cumulative, target 5 (k/10)^2 %%):",
	       n_alpha, MAX_K, 100.0 * any / n_alpha, 100 * lo, 100 * hi);
	int cum = 0;
	for (int k = 1; k <= MAX_K; k++) {
		cum += cross[k];
		printf(" %.2f", 100.0 * cum / n_alpha);
	}
	printf("\nNominal levels of the 10 looks, %%:");
	for (int k = 1; k <= MAX_K; k++)
		printf(" %.3f", 100 * stats_sequential_alpha(0.05, k, MAX_K));
	printf("\n");
	fflush(stdout);
	double rate = (double)any / n_alpha;
	double tol = TEST_SIM_SANITIZED ? tolerance(0.05, n_alpha) : 0.005;
	if (fabs(rate - 0.05) > tol)
		fail_msg("the boundaries spent %.2f %%, not 5 %% +- 0.5", 100 * rate);
}

/* ---- --rules: the design choices, measured by switching rules ---------- */

/* How many campaigns the --rules tables decide (docs/metrics.md 6.1, 6.1a,
 * 6.6 give the command and the figures). */
static int n_rules = 3000, n_rules_big = 20000;

/* The model's own call, as stats_decision_settle() makes it before the
 * permutation test is asked: p < alpha, |delta| at least the minimum
 * effect, the interval clear of 0, at least 2 residual df.  +1 B better,
 * -1 B worse, 0 none. */
static int model_call(enum model m, const struct stats_decision *d)
{
	if (d->method == STATS_METHOD_NONE || d->df < 2 || !(d->p_raw < d->alpha) ||
	    fabs(d->delta) < d->min_effect || !(d->ci_low > 0 || d->ci_high < 0))
		return 0;
	bool higher_better = strcmp(model_metric(m), "real_fps") == 0;
	return (d->delta > 0) == higher_better ? 1 : -1;
}

/* The decision with another permutation p in place of the one it had. */
static enum stats_state settle_with(enum model m, const struct stats_decision *d, double p_perm)
{
	struct stats_decision x = *d;
	x.p_perm = p_perm;
	stats_decision_settle(stats_metric_find(model_metric(m)), &x);
	return x.state;
}

static struct stats_decision decide_rule(enum model m, const struct campaign *c, enum stats_time_rule rule)
{
	struct stats_design des = { .v = c->v, .group = c->group, .t = c->t, .n = c->n, .n_groups = 2 };
	struct stats_decide_options o = { .alpha = 0.05, .primary = true, .spec = model_spec(m),
		                          .time_rule = rule };
	struct stats_decision r;
	assert_int_equal(stats_decide(stats_metric_find(model_metric(m)), &des, 0, 1, &o, &r), 0);
	return r;
}

/* Least squares residuals of y on 1 and the time terms of mask (z, z^2
 * centred; z the standardised t), in place. */
static void detrend_terms(double *y, const double *t, size_t n, unsigned mask)
{
	double mean = 0, sd = 0;
	for (size_t i = 0; i < n; i++)
		mean += t[i] / (double)n;
	for (size_t i = 0; i < n; i++)
		sd += (t[i] - mean) * (t[i] - mean);
	sd = sqrt(sd / (double)n);
	double x[2 * MAX_K][3], qm = 0;
	int p = 1;
	for (size_t i = 0; i < n; i++) {
		double z = sd > 0 ? (t[i] - mean) / sd : 0;
		qm += z * z / (double)n;
		x[i][0] = 1;
		x[i][1] = z;
		x[i][2] = z * z;
	}
	int cols[3] = { 0 };
	if (mask & STATS_TIME_LINEAR)
		cols[p++] = 1;
	if (mask & STATS_TIME_QUADRATIC)
		cols[p++] = 2;
	for (size_t i = 0; i < n; i++)
		x[i][2] -= qm;
	double a[3][4] = { { 0 } };
	for (size_t i = 0; i < n; i++)
		for (int r = 0; r < p; r++) {
			for (int q = 0; q < p; q++)
				a[r][q] += x[i][cols[r]] * x[i][cols[q]];
			a[r][3] += x[i][cols[r]] * y[i];
		}
	/* Gauss-Jordan on the p x p system */
	for (int c = 0; c < p; c++) {
		double piv = a[c][c];
		if (fabs(piv) < 1e-12)
			return;
		for (int q = 0; q < 4; q++)
			a[c][q] /= piv;
		for (int r = 0; r < p; r++) {
			if (r == c)
				continue;
			double f = a[r][c];
			for (int q = 0; q < 4; q++)
				a[r][q] -= f * a[c][q];
		}
	}
	for (size_t i = 0; i < n; i++)
		for (int r = 0; r < p; r++)
			y[i] -= a[r][3] * x[i][cols[r]];
}

/* A permutation p of B against A over the sum of B's values (after the
 * time terms of mask are taken out over both arms, without arm terms, when
 * mask is not 0), two-sided: every relabelling when there are at most
 * STATS_PERM_EXACT_MAX, else STATS_PERM_DRAWS drawn.  ties_half: every
 * relabelling as extreme as the observed within rounding counts half (the
 * plain mid-p); else the observed labelling and its mirror half, other
 * ties whole (the rule of stats_permutation_p()). */
static double perm_p_alt(const struct campaign *c, unsigned mask, bool ties_half)
{
	double y[2 * MAX_K];
	size_t n = c->n, k = 0;
	for (size_t i = 0; i < n; i++) {
		y[i] = c->v[i];
		k += c->group[i] == 1;
	}
	if (mask)
		detrend_terms(y, c->t, n, mask);
	double total = 0, scale = 0, obs = 0;
	for (size_t i = 0; i < n; i++) {
		total += y[i];
		scale = fmax(scale, fabs(y[i]));
		obs += c->group[i] == 1 ? y[i] : 0;
	}
	/* centred: the sum of B minus its share, so that the mirror is -obs */
	double centre = total * (double)k / (double)n;
	obs -= centre;
	double tol = 1e-9 * fmax(scale, 1e-300) * sqrt((double)n);
	double combos = 1;
	for (size_t i = 1; i <= k; i++)
		combos = combos * (double)(n - k + i) / (double)i;
	combos = floor(combos + 0.5);
	size_t hits = 0, ties = 0, count = 0;
	if (combos <= STATS_PERM_EXACT_MAX) {
		/* every k-subset of n, by bitmask */
		for (uint32_t s = 0; s < (1u << n); s++) {
			if ((size_t)__builtin_popcount(s) != k)
				continue;
			double sum = -centre;
			for (size_t i = 0; i < n; i++)
				if (s & (1u << i))
					sum += y[i];
			bool hit = fabs(sum) >= fabs(obs) - tol;
			hits += hit;
			ties += hit && fabs(fabs(sum) - fabs(obs)) <= tol;
			count++;
		}
		double own = 2 * k == n ? 2.0 : 1.0;
		double half = ties_half ? (double)ties : fmin(own, (double)ties);
		return ((double)hits - half / 2) / (double)count;
	}
	struct rng r;
	rng_seed(&r, 20261203);
	size_t idx[2 * MAX_K];
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	for (int d = 0; d < STATS_PERM_DRAWS; d++) {
		double sum = -centre;
		for (size_t i = 0; i < k; i++) {
			size_t j = i + (size_t)(next_u64(&r) % (uint64_t)(n - i));
			size_t t = idx[i];
			idx[i] = idx[j];
			idx[j] = t;
			sum += y[idx[i]];
		}
		bool hit = fabs(sum) >= fabs(obs) - tol;
		hits += hit;
		ties += hit && fabs(fabs(sum) - fabs(obs)) <= tol;
	}
	double counted = ties_half ? (double)hits - (double)ties / 2 + 0.5 : (double)hits + 0.5;
	return counted / (STATS_PERM_DRAWS + 1.0);
}

static void print_pct(int x, int n)
{
	double lo, hi;
	wilson(x, n, &lo, &hi);
	printf(" %.1f [%.1f, %.1f] %% |", 100.0 * x / n, 100 * lo, 100 * hi);
}

/* Table 1: which time terms to keep (docs/metrics.md 6.1). */
static void rules_time_terms(void)
{
	static const enum model models[] = { NORMAL, SETTLE, DRIFT, DRIFT_RUN, DRIFT_BLOCKS };
	static const int ks[] = { 4, 6 };
	struct rng r;
	rng_seed(&r, SEED + 10);
	struct campaign c;
	printf("\nTime terms orthogonal to the arm contrast: always dropped "
	       "(STATS_TIME_RULE_DROP_ORTHOGONAL) or kept when the interval is narrower (the default), "
	       "%d campaigns a cell, seed %d.\n"
	       "Found faster at +2 %%: the model alone (drop / narrowest), the decision (drop / narrowest), "
	       "the two-sample t; then false faster/slower calls with no difference, the decision "
	       "(drop / narrowest) and the model alone (drop / narrowest):\n\n"
	       "| noise, runs an arm | model: drop | model: narrowest | decision: drop | decision: narrowest | two-sample t "
	       "| false, decision: drop | false, decision: narrowest | false, model: drop | false, model: narrowest |\n"
	       "|---|---|---|---|---|---|---|---|---|---|\n", n_rules, SEED + 10);
	for (size_t mi = 0; mi < sizeof models / sizeof models[0]; mi++)
		for (size_t ki = 0; ki < 2; ki++) {
			enum model m = models[mi];
			int k = ks[ki];
			int f[5] = { 0 }, z[4] = { 0 };
			for (int i = 0; i < n_rules; i++) {
				simulate(&r, m, k, 0.02, 0, &c);
				struct stats_decision dd = decide_rule(m, &c, STATS_TIME_RULE_DROP_ORTHOGONAL);
				struct stats_decision dn = decide_rule(m, &c, STATS_TIME_RULE_NARROWEST);
				f[0] += model_call(m, &dd) == 1;
				f[1] += model_call(m, &dn) == 1;
				f[2] += dd.state == STATS_STATE_FASTER;
				f[3] += dn.state == STATS_STATE_FASTER;
				f[4] += two_sample_t(m, &c, 0.05) == 1;
				simulate(&r, m, k, 0, 0, &c);
				dd = decide_rule(m, &c, STATS_TIME_RULE_DROP_ORTHOGONAL);
				dn = decide_rule(m, &c, STATS_TIME_RULE_NARROWEST);
				z[0] += is_call(dd.state);
				z[1] += is_call(dn.state);
				z[2] += model_call(m, &dd) != 0;
				z[3] += model_call(m, &dn) != 0;
			}
			printf("| %s, %d |", model_names[m], k);
			for (int j = 0; j < 5; j++)
				print_pct(f[j], n_rules);
			for (int j = 0; j < 4; j++)
				print_pct(z[j], n_rules);
			printf("\n");
			fflush(stdout);
		}
}

/* Table 2: which permutation test the call needs (docs/metrics.md 6.1a). */
static void rules_permutation(void)
{
	static const int ks[] = { 4, 6, 10 };
	struct rng r;
	rng_seed(&r, SEED + 11);
	struct campaign c;
	printf("\nThe permutation test's rule on bimodal runs (154 or 213 fps) with no difference, "
	       "%d campaigns a cell, seed %d: false faster/slower calls of the test alone and of the "
	       "decision with it (the model's call and p < 5 %%).  Stored values, observed labelling "
	       "and mirror half (stats_permutation_p(), the rule used); stored values, every tie half "
	       "(plain mid-p); residuals of the allowed time terms, sum statistic; residuals, "
	       "standardised statistic (stats_permutation_p() with the time terms):\n\n"
	       "| runs an arm | alone: stored | alone: plain mid-p | alone: residuals | alone: standardised "
	       "| decision: stored | decision: plain mid-p | decision: residuals | decision: standardised |\n"
	       "|---|---|---|---|---|---|---|---|---|\n", n_rules_big / 2, SEED + 11);
	for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
		int k = ks[ki], n = n_rules_big / 2;
		int alone[4] = { 0 }, dec[4] = { 0 }, agree = 0;
		for (int i = 0; i < n; i++) {
			simulate(&r, BIMODAL, k, 0, 0, &c);
			struct stats_decision d = decide_full(BIMODAL, &c, c.n, 0.05);
			struct stats_design des = { .v = c.v, .group = c.group, .t = c.t, .n = c.n, .n_groups = 2 };
			double p[4];
			p[0] = d.p_perm;
			p[1] = perm_p_alt(&c, 0, true);
			p[2] = perm_p_alt(&c, d.time_mask_allowed, false);
			assert_int_equal(stats_permutation_p(&des, 0, 1, d.time_mask_allowed, 0, 2, &p[3], NULL,
			                                     NULL, NULL), 0);
			/* the program's own rule of the stored values is the
			 * library's (where both enumerate: the draws differ) */
			agree += !d.perm_exact || fabs(perm_p_alt(&c, 0, false) - d.p_perm) < 1e-9;
			for (int j = 0; j < 4; j++) {
				alone[j] += p[j] < 0.05 && fabs(d.delta) >= d.min_effect;
				dec[j] += is_call(settle_with(BIMODAL, &d, p[j]));
			}
		}
		printf("| %d |", k);
		for (int j = 0; j < 4; j++)
			print_pct(alone[j], n);
		for (int j = 0; j < 4; j++)
			print_pct(dec[j], n);
		printf("\n");
		if (agree != n)
			fail_msg("%d runs: the program's permutation p of the stored values differs from "
			         "stats_permutation_p() in %d of %d campaigns", k, n - agree, n);
		fflush(stdout);
	}
}

/* Table 3: power at 2-4 runs an arm against the t, and the t's false calls
 * there (docs/metrics.md 6.6). */
static void rules_power(void)
{
	static const int ks[] = { 2, 3, 4 };
	struct rng r;
	rng_seed(&r, SEED + 12);
	struct campaign c;
	int n = n_rules_big;
	printf("\nNormal noise, B 2 %% faster, %d campaigns a cell, seed %d: found faster by the "
	       "decision, the two-sample t at 5 %%, the t at 3/70 and 4/70 (what an exact test of 4 "
	       "against 4 runs can spend, without and with the mid-p), the permutation test alone:\n\n"
	       "| runs an arm | decision | t at 5 %% | t at 3/70 | t at 4/70 | permutation test alone |\n"
	       "|---|---|---|---|---|---|\n", n, SEED + 12);
	for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
		int k = ks[ki], x[5] = { 0 };
		for (int i = 0; i < n; i++) {
			simulate(&r, NORMAL, k, 0.02, 0, &c);
			struct stats_decision d = decide_full(NORMAL, &c, c.n, 0.05);
			x[0] += d.state == STATS_STATE_FASTER;
			x[1] += two_sample_t(NORMAL, &c, 0.05) == 1;
			x[2] += two_sample_t(NORMAL, &c, 3.0 / 70) == 1;
			x[3] += two_sample_t(NORMAL, &c, 4.0 / 70) == 1;
			x[4] += perm_finds(NORMAL, &d);
		}
		printf("| %d |", k);
		for (int j = 0; j < 5; j++)
			print_pct(x[j], n);
		printf("\n");
		fflush(stdout);
	}
	static const enum model tied[] = { NORMAL, BIMODAL, VSYNC, COUNTS };
	printf("\nNo difference, %d campaigns a cell: false faster/slower calls of the two-sample t "
	       "and of the decision at 2 and 3 runs an arm:\n\n"
	       "| noise | t, 2 runs | decision, 2 runs | t, 3 runs | decision, 3 runs |\n"
	       "|---|---|---|---|---|\n", n);
	for (size_t mi = 0; mi < sizeof tied / sizeof tied[0]; mi++) {
		enum model m = tied[mi];
		printf("| %s |", model_names[m]);
		for (int k = 2; k <= 3; k++) {
			int t = 0, dc = 0;
			for (int i = 0; i < n; i++) {
				simulate(&r, m, k, 0, 0, &c);
				t += two_sample_t(m, &c, 0.05) != 0;
				dc += is_call(decide(m, &c, c.n, 0.05));
			}
			print_pct(t, n);
			print_pct(dc, n);
		}
		printf("\n");
		fflush(stdout);
	}
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--rules") == 0) {
		/* the design choices' tables alone; --rules N: N campaigns a
		 * cell (the large cells ten times as many) */
		if (argc > 2) {
			n_rules = atoi(argv[2]);
			n_rules_big = 10 * n_rules;
		}
		if (n_rules < 10) {
			fprintf(stderr, "usage: %s --rules [CAMPAIGNS]\n", argv[0]);
			return 2;
		}
		printf("seed %d; generator and models as the decision's tables\n", SEED);
		rules_time_terms();
		rules_permutation();
		rules_power();
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "--full") == 0) {
		n_null = 3000;
		n_alt = 750;
		n_seq = 2000;
		n_alpha = 200000;
	} else {
		/* under the sanitizers a tenth (test-sim.h) */
		n_null = test_sim_n(n_null);
		n_alt = test_sim_n(n_alt);
		n_seq = test_sim_n(n_seq);
		n_alpha = test_sim_n(n_alpha);
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_simulate__alpha_spent),
		cmocka_unit_test(test_simulate__decision_rates),
		cmocka_unit_test(test_simulate__sequential),
		cmocka_unit_test(test_simulate__familywise),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
