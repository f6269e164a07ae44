/* stats-sequential: what a campaign that looks after every round spends,
 * and what more rounds would buy (docs/metrics.md 6.4 and 6.5).  It owns
 * the group-sequential boundaries of the spending function alpha (k/K)^2
 * from the joint distribution of the looks (the Lan-DeMets recursion by
 * numerical integration), the familywise bound over primaries and arms,
 * and the forecast of rounds still needed as a range.  The decision at a
 * look is stats-verdict.c's. */
#include "stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the normal distribution ------------------------------------------ */

static double phi(double x)
{
	return exp(-0.5 * x * x) / sqrt(2.0 * M_PI);
}

/* upper tail 1 - Phi(x) */
static double upper(double x)
{
	return 0.5 * erfc(x / sqrt(2.0));
}

/* x with upper(x) = p, 0 < p < 1 (bisection: the boundaries need ~1e-12) */
static double upper_inv(double p)
{
	double lo = -40, hi = 40;
	for (int i = 0; i < 200; i++) {
		double mid = 0.5 * (lo + hi);
		if (upper(mid) > p)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

/* ---- Lan-DeMets boundaries ----------------------------------------------- */

double stats_sequential_spent(double alpha, int look, int max_looks)
{
	if (!(alpha > 0) || look < 0 || max_looks < 1)
		return NAN;
	if (look >= max_looks)
		return alpha;
	double f = (double)look / (double)max_looks;
	return alpha * f * f;
}

/* Grid points per look over the continuation region (odd: Simpson). */
#define GRID 401

/* The continuation density of S_k = the sum of k standard normal
 * increments, over (-b, b) at GRID points (Simpson weights folded in w). */
struct look {
	double b;             /* the boundary on the sum scale: c_k sqrt(k) */
	double s[GRID], g[GRID], w[GRID];
};

/* Chance the sum at the next look (one more increment) is beyond +-b,
 * having stayed inside the previous look's region. */
static double exit_prob(const struct look *prev, double b)
{
	double sum = 0;
	for (int i = 0; i < GRID; i++)
		sum += prev->w[i] * prev->g[i] * (upper(b - prev->s[i]) + upper(b + prev->s[i]));
	return sum;
}

static void fill_look(struct look *cur, const struct look *prev, double b)
{
	cur->b = b;
	double h = 2 * b / (GRID - 1);
	for (int j = 0; j < GRID; j++) {
		double s = -b + h * j;
		cur->s[j] = s;
		cur->w[j] = h / 3.0 * (j == 0 || j == GRID - 1 ? 1 : j % 2 ? 4 : 2);
		if (!prev) {
			cur->g[j] = phi(s);
			continue;
		}
		double g = 0;
		for (int i = 0; i < GRID; i++)
			g += prev->w[i] * prev->g[i] * phi(s - prev->s[i]);
		cur->g[j] = g;
	}
}

/* The boundary on the sum scale that spends `spend` at the look after
 * prev (or at the first look when prev is NULL). */
static double solve_boundary(const struct look *prev, double spend)
{
	if (!prev)
		return upper_inv(spend / 2);
	if (!(spend > 0))
		return INFINITY;
	double lo = 0, hi = prev->b + 40;
	if (exit_prob(prev, lo) < spend)
		return 0; /* more to spend than can be: decide at any value */
	for (int i = 0; i < 100 && hi - lo > 1e-10; i++) {
		double mid = 0.5 * (lo + hi);
		if (exit_prob(prev, mid) > spend)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

/* The cache: nominal levels of the looks computed so far for one
 * (alpha, K), and the continuation density after the last of them. */
#define CACHE_LOOKS 512
static _Thread_local struct {
	double alpha;
	int K, done;
	double nominal[CACHE_LOOKS];
	struct look last;
} cache;

/* Nominal two-sided level from a boundary b on the sum scale at look k. */
static double nominal_of(double b, int k)
{
	return isinf(b) ? 0 : 2 * upper(b / sqrt((double)k));
}

/*
 * The nominal level of look `look` of K; final: spend all that is left at
 * it.  Looks 1..look-1 come from the cache (or are computed into it).
 */
static double level(double alpha, int look, int K, bool final)
{
	if (!(alpha > 0) || !(alpha < 1) || look < 1)
		return NAN;
	if (K < 1)
		K = 1;
	if (look > K)
		return final ? NAN : 0;
	if (look == 1)
		return final ? alpha : stats_sequential_spent(alpha, 1, K);
	if (look > CACHE_LOOKS)
		return NAN;
	if (cache.alpha != alpha || cache.K != K) {
		cache.alpha = alpha;
		cache.K = K;
		cache.done = 0;
	}
	/* a final look needs the density after the look before it */
	if (final && cache.done > look - 1)
		cache.done = 0;
	/* the looks before this one, each spending its increment */
	static _Thread_local struct look next;
	while (cache.done < look - 1) {
		int k = cache.done + 1;
		double spend = stats_sequential_spent(alpha, k, K) - stats_sequential_spent(alpha, k - 1, K);
		if (k == 1) {
			double b = solve_boundary(NULL, spend);
			fill_look(&cache.last, NULL, b);
			cache.nominal[0] = nominal_of(b, 1);
		} else {
			double b = solve_boundary(&cache.last, spend);
			fill_look(&next, &cache.last, b);
			cache.last = next;
			cache.nominal[k - 1] = nominal_of(b, k);
		}
		cache.done = k;
	}
	if (!final && cache.done >= look)
		return cache.nominal[look - 1];
	double spend = (final ? alpha : stats_sequential_spent(alpha, look, K)) -
	               stats_sequential_spent(alpha, look - 1, K);
	double b = solve_boundary(&cache.last, spend);
	double nom = nominal_of(b, look);
	if (!final && look <= CACHE_LOOKS && cache.done == look - 1) {
		fill_look(&next, &cache.last, b);
		cache.last = next;
		cache.nominal[look - 1] = nom;
		cache.done = look;
	}
	return nom;
}

double stats_sequential_alpha(double alpha, int look, int max_looks)
{
	return level(alpha, look, max_looks, false);
}

double stats_sequential_alpha_final(double alpha, int look, int max_looks)
{
	return level(alpha, look, max_looks, true);
}

/* ---- the family -------------------------------------------------------- */

double stats_familywise_bound(double alpha, size_t n)
{
	double b = alpha * (double)(n ? n : 1);
	return b > 1 ? 1 : b;
}

double stats_family_alpha(double alpha, size_t n)
{
	return alpha / (double)(n ? n : 1);
}

/* ---- rounds still needed ------------------------------------------------ */

/* Regularised lower incomplete gamma P(a, x) (series, or continued
 * fraction beyond a + 1). */
static double gamma_p(double a, double x)
{
	if (x <= 0)
		return 0;
	double gln = lgamma(a);
	if (x < a + 1) {
		double ap = a, sum = 1 / a, del = sum;
		for (int n = 0; n < 1000; n++) {
			ap += 1;
			del *= x / ap;
			sum += del;
			if (fabs(del) < fabs(sum) * 1e-15)
				break;
		}
		return sum * exp(-x + a * log(x) - gln);
	}
	double b = x + 1 - a, c = 1 / 1e-300, d = 1 / b, h = d;
	for (int i = 1; i < 1000; i++) {
		double an = -i * (i - a);
		b += 2;
		d = an * d + b;
		if (fabs(d) < 1e-300)
			d = 1e-300;
		c = b + an / c;
		if (fabs(c) < 1e-300)
			c = 1e-300;
		d = 1 / d;
		double del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-15)
			break;
	}
	return 1 - exp(-x + a * log(x) - gln) * h;
}

/* The q quantile of chi-square with df degrees of freedom. */
static double chi2_quantile(double q, double df)
{
	double lo = 0, hi = df + 10 * sqrt(2 * df) + 10;
	while (gamma_p(df / 2, hi / 2) < q)
		hi *= 2;
	for (int i = 0; i < 200; i++) {
		double mid = 0.5 * (lo + hi);
		if (gamma_p(df / 2, mid / 2) < q)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

/* Fewest more rounds (1..max_more) after which sigma's se would decide
 * against target, or INFINITY. */
static double rounds_for(const struct stats_decision *d, double se1, double target, int done,
                         int per_round, int max_more, double (*lv)(void *, int), void *ctx,
                         int look_now)
{
	if (!(target > 0) || !(se1 > 0))
		return INFINITY;
	for (int more = 1; more <= max_more; more++) {
		double a = lv ? lv(ctx, look_now + more) : d->alpha;
		double df = d->df + (double)more * per_round;
		double tq = stats_t_quantile_two_sided(a > 0 ? a : d->alpha, df);
		if (tq * se1 * sqrt((double)done / (done + more)) <= target)
			return more;
	}
	return INFINITY;
}

void stats_rounds_forecast(const struct stats_decision *d, int rounds_done, int runs_per_round,
                           int max_more, double (*lv)(void *ctx, int look), void *ctx,
                           int look_now, double *lo, double *hi)
{
	*lo = *hi = NAN;
	if (!d || d->method == STATS_METHOD_NONE || d->df < STATS_FORECAST_MIN_DF ||
	    rounds_done < 1 || !(d->se > 0))
		return;
	if (runs_per_round < 1)
		runs_per_round = 1;
	/* sigma's own uncertainty: s^2 df / sigma^2 is chi-square(df); the
	 * 10 % and 90 % points of sigma */
	double df = d->df;
	double s_lo = d->se * sqrt(df / chi2_quantile(0.9, df));
	double s_hi = d->se * sqrt(df / chi2_quantile(0.1, df));
	double ad = fabs(d->delta);
	double res = d->resolution * (1 + 1e-9);
	double m = d->min_effect;
	/* a call (the interval excludes 0) when the effect may reach the
	 * minimum; same when the interval may fit inside +-m */
	double t_call = ad - res, t_same = m - ad - res;
	bool may_call = ad >= m || d->ci_high >= m || d->ci_low <= -m;
	double best_lo = INFINITY, best_hi = INFINITY;
	if (may_call)
		best_lo = rounds_for(d, s_lo, t_call, rounds_done, runs_per_round, max_more, lv, ctx,
		                     look_now);
	best_lo = fmin(best_lo, rounds_for(d, s_lo, t_same, rounds_done, runs_per_round, max_more,
	                                   lv, ctx, look_now));
	if (ad >= m)
		best_hi = rounds_for(d, s_hi, t_call, rounds_done, runs_per_round, max_more, lv, ctx,
		                     look_now);
	best_hi = fmin(best_hi, rounds_for(d, s_hi, t_same, rounds_done, runs_per_round, max_more,
	                                   lv, ctx, look_now));
	*lo = best_lo;
	*hi = fmax(best_lo, best_hi);
}
