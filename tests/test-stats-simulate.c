/* test-stats-simulate: the decision (stats-verdict.c) on simulated
 * campaigns with a fixed seed.  Two arms, A the baseline and B, k runs each
 * in a counterbalanced order (rounds AB, BA, AB, ...), at k = 2, 3, 4, 6
 * and 10, under six noise models: normal, heavy-tailed (t with 3 df, scaled
 * to the same standard deviation), linear drift, an exponential settle, one
 * slow outlier run per arm, and values rounded to 0.1.  The metric is real
 * fps around 50 with a run-to-run sd of 0.5 (1 %, so the default minimum
 * effect of 1 % is 1 sd).
 *
 * Asserted, each rate with a Monte Carlo tolerance of three standard errors
 * of a binomial proportion:
 *   - no true difference: faster/slower calls <= 5 %, for the fixed design
 *     and for the sequential rule (a look after every round, up to 10,
 *     each at its spent level: stats_sequential_alpha());
 *   - a true 3 sd difference: the rate of correct calls does not fall as
 *     runs are added;
 *   - a true difference of 2.5 minimum effects: "same" is never returned;
 *   - the sequential rule finds a true 3 sd difference at least as often
 *     as the fixed design at 4 runs an arm (it may take all 10 rounds).
 * The table of rates is printed (docs/metrics.md carries it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "stats/stats.h"

#define MEAN 50.0
#define SD 0.5
#define MAX_K 10
#define N_NULL 3000   /* campaigns per model and size, no difference */
#define N_ALT 400     /* campaigns per model and size, with a difference */
#define N_SEQ 2000    /* sequential campaigns per model */

enum model { NORMAL, HEAVY, DRIFT, SETTLE, OUTLIER, ROUNDED, N_MODELS };
static const char *const model_names[N_MODELS] = {
	"normal", "t, 3 df", "linear drift", "exponential settle", "one outlier per arm",
	"rounded to 0.1",
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

struct campaign {
	double v[2 * MAX_K];
	size_t group[2 * MAX_K];
	double t[2 * MAX_K];
	size_t n;
};

/* k runs per arm in rounds AB, BA, ...; B's true effect is effect_sd sds
 * of fps (higher: faster). */
static void simulate(struct rng *r, enum model m, int k, double effect_sd, struct campaign *c)
{
	c->n = 0;
	int outlier[2] = { (int)(uniform(r) * k), (int)(uniform(r) * k) };
	int seen[2] = { 0, 0 };
	for (int rd = 0; rd < k; rd++)
		for (int j = 0; j < 2; j++) {
			size_t g = (size_t)(rd % 2 == 0 ? j : 1 - j);
			double pos = (double)c->n;
			double e = m == HEAVY ? heavy(r) : normal(r);
			double v = MEAN + SD * e + (g == 1 ? effect_sd * SD : 0);
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

static enum stats_state decide(const struct campaign *c, size_t n, double alpha)
{
	const struct stats_metric_def *d = stats_metric_find("real_fps");
	struct stats_design des = { .v = c->v, .group = c->group, .t = c->t, .n = n, .n_groups = 2 };
	struct stats_decide_options o = { .alpha = alpha, .primary = true };
	struct stats_decision r;
	assert_int_equal(stats_decide(d, &des, 0, 1, &o, &r), 0);
	return r.state;
}

/* The sequential rule on one campaign of MAX_K rounds: a look after every
 * round k (its 2k runs), decided at the level spent at look k; the state it
 * stopped with (undecided after the last look), and the looks taken. */
static enum stats_state sequential(const struct campaign *c, int *looks)
{
	enum stats_state st = STATS_STATE_UNDECIDED;
	int k;
	for (k = 1; k <= MAX_K; k++) {
		st = decide(c, (size_t)k * 2, stats_sequential_alpha(0.05, k, MAX_K));
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

static void test_simulate__decision_rates(void **state)
{
	(void)state;
	struct rng r;
	rng_seed(&r, 20261201);
	struct campaign c;
	double false_rate[N_MODELS][N_SIZES], power[N_MODELS][N_SIZES], same_rate[N_MODELS][N_SIZES];
	long campaigns = 0;
	for (int m = 0; m < N_MODELS; m++)
		for (size_t s = 0; s < N_SIZES; s++) {
			int k = sizes[s], calls = 0, found = 0, same = 0;
			for (int i = 0; i < N_NULL; i++) {
				simulate(&r, m, k, 0, &c);
				enum stats_state st = decide(&c, c.n, 0.05);
				calls += st == STATS_STATE_FASTER || st == STATS_STATE_SLOWER;
			}
			for (int i = 0; i < N_ALT; i++) {
				simulate(&r, m, k, 3.0, &c);
				found += decide(&c, c.n, 0.05) == STATS_STATE_FASTER;
				/* 2.5 minimum effects (1 % = 1 sd) */
				simulate(&r, m, k, -2.5, &c);
				same += decide(&c, c.n, 0.05) == STATS_STATE_SAME;
			}
			campaigns += N_NULL + 2 * N_ALT;
			false_rate[m][s] = (double)calls / N_NULL;
			power[m][s] = (double)found / N_ALT;
			same_rate[m][s] = (double)same / N_ALT;
		}

	/* sequential: a look after every round of up to 10, look k decided at
	 * stats_sequential_alpha(0.05, k, 10); stop at the first
	 * faster/slower/same */
	double seq_false[N_MODELS], seq_stop_same[N_MODELS], seq_found[N_MODELS],
		seq_rounds[N_MODELS];
	for (int m = 0; m < N_MODELS; m++) {
		int calls = 0, sames = 0, found = 0;
		long rounds = 0;
		for (int i = 0; i < N_SEQ; i++) {
			simulate(&r, m, MAX_K, 0, &c);
			enum stats_state st = sequential(&c, NULL);
			calls += st == STATS_STATE_FASTER || st == STATS_STATE_SLOWER;
			sames += st == STATS_STATE_SAME;
		}
		for (int i = 0; i < N_ALT; i++) {
			int looks;
			simulate(&r, m, MAX_K, 3.0, &c);
			found += sequential(&c, &looks) == STATS_STATE_FASTER;
			rounds += looks;
		}
		campaigns += N_SEQ + N_ALT;
		seq_false[m] = (double)calls / N_SEQ;
		seq_stop_same[m] = (double)sames / N_SEQ;
		seq_found[m] = (double)found / N_ALT;
		seq_rounds[m] = (double)rounds / N_ALT;
	}

	printf("%ld simulated campaigns, seed 20261201; runs per arm:", campaigns);
	for (size_t s = 0; s < N_SIZES; s++)
		printf(" %d", sizes[s]);
	printf("\n\n| noise | false faster/slower, no difference | found, 3 sd faster | "
	       "same at 2.5 minimum effects | sequential, up to 10 rounds: false calls, same | "
	       "sequential: found 3 sd faster, mean rounds |\n"
	       "|---|---|---|---|---|---|\n");
	for (int m = 0; m < N_MODELS; m++) {
		printf("| %s |", model_names[m]);
		for (size_t s = 0; s < N_SIZES; s++)
			printf(" %.1f%s", 100 * false_rate[m][s], s + 1 < N_SIZES ? "," : " % |");
		for (size_t s = 0; s < N_SIZES; s++)
			printf(" %.1f%s", 100 * power[m][s], s + 1 < N_SIZES ? "," : " % |");
		for (size_t s = 0; s < N_SIZES; s++)
			printf(" %.1f%s", 100 * same_rate[m][s], s + 1 < N_SIZES ? "," : " % |");
		printf(" %.1f %%, %.1f %% |", 100 * seq_false[m], 100 * seq_stop_same[m]);
		printf(" %.1f %%, %.1f |\n", 100 * seq_found[m], seq_rounds[m]);
	}
	fflush(stdout);

	double tol_null = tolerance(0.05, N_NULL), tol_seq = tolerance(0.05, N_SEQ);
	for (int m = 0; m < N_MODELS; m++) {
		for (size_t s = 0; s < N_SIZES; s++) {
			if (false_rate[m][s] > 0.05 + tol_null)
				fail_msg("%s, %d runs: false calls %.2f %% > 5 %% + %.2f", model_names[m],
				         sizes[s], 100 * false_rate[m][s], 100 * tol_null);
			if (same_rate[m][s] != 0)
				fail_msg("%s, %d runs: \"same\" at 2.5 minimum effects", model_names[m], sizes[s]);
			if (s > 0) {
				double p = power[m][s - 1];
				double tol = 3.0 * sqrt(2.0 * fmax(p * (1 - p), 0.01 * 0.99) / N_ALT);
				if (power[m][s] < power[m][s - 1] - tol)
					fail_msg("%s: power falls from %.1f %% at %d runs to %.1f %% at %d",
					         model_names[m], 100 * power[m][s - 1], sizes[s - 1],
					         100 * power[m][s], sizes[s]);
			}
		}
		double p4 = power[m][2];
		if (seq_found[m] < p4 - 3.0 * sqrt(2.0 * fmax(p4 * (1 - p4), 0.01 * 0.99) / N_ALT))
			fail_msg("%s, sequential: found %.1f %%, under the fixed design's %.1f %% at 4 runs",
			         model_names[m], 100 * seq_found[m], 100 * p4);
		if (seq_false[m] > 0.05 + tol_seq)
			fail_msg("%s, sequential: false calls %.2f %% > 5 %% + %.2f", model_names[m],
			         100 * seq_false[m], 100 * tol_seq);
	}
	assert_true(campaigns >= 10000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_simulate__decision_rates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
