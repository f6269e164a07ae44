/* stats-verdict: the decision of an arm against the baseline, as
 * docs/metrics.md ("The decision") defines it.  It owns the model the
 * decision is made with (an arm-and-time least-squares model when runs have
 * places in the campaign's order, else the pooled-variance two-sample test),
 * the Student t distribution it needs, the minimum effects and the stored
 * resolution, the four states, Holm's adjustment of the secondary metrics
 * and the alpha spent at each look of a sequential campaign.  Which runs
 * exist and which are void is the caller's business. */
#include "stats.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Student's t ----------------------------------------------------- */

/* Continued fraction of the regularised incomplete beta function (modified
 * Lentz), converging for x < (a + 1) / (a + b + 2). */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double qab = a + b, qap = a + 1.0, qam = a - 1.0;
	double c = 1.0, d = 1.0 - qab * x / qap;
	if (fabs(d) < tiny)
		d = tiny;
	d = 1.0 / d;
	double h = d;
	for (int m = 1; m <= 400; m++) {
		double m2 = 2.0 * m;
		double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
		d = 1.0 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1.0 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1.0 / d;
		h *= d * c;
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
		d = 1.0 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1.0 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1.0 / d;
		double del = d * c;
		h *= del;
		if (fabs(del - 1.0) < 1e-15)
			break;
	}
	return h;
}

/* Regularised incomplete beta I_x(a, b). */
static double ibeta(double a, double b, double x)
{
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	double lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
	double bt = exp(lbt);
	if (x < (a + 1.0) / (a + b + 2.0))
		return bt * beta_cf(a, b, x) / a;
	return 1.0 - bt * beta_cf(b, a, 1.0 - x) / b;
}

double stats_t_p_two_sided(double t, double df)
{
	if (!(df > 0) || isnan(t))
		return NAN;
	if (isinf(t))
		return 0;
	return ibeta(df / 2.0, 0.5, df / (df + t * t));
}

double stats_t_quantile_two_sided(double a, double df)
{
	if (!(df > 0) || !(a > 0) || !(a < 1))
		return NAN;
	/* bracket, then bisection: the two-sided p falls monotonically in t */
	double lo = 0, hi = 2;
	while (stats_t_p_two_sided(hi, df) > a) {
		lo = hi;
		hi *= 2;
		if (hi > 1e12)
			return INFINITY;
	}
	for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		double mid = 0.5 * (lo + hi);
		if (stats_t_p_two_sided(mid, df) > a)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

/* ---- resolution and minimum effects ------------------------------------ */

double stats_resolution(const double *v, size_t n)
{
	double step = 1.0;
	for (int k = 0; k <= 6; k++, step /= 10.0) {
		bool all = true, any = false;
		for (size_t i = 0; i < n && all; i++) {
			if (!isfinite(v[i]))
				continue;
			any = true;
			double x = v[i] / step;
			if (fabs(x) > 1e12 || fabs(x - nearbyint(x)) > 1e-6 * fmax(1.0, fabs(x)) * 1e-3)
				all = false;
		}
		if (!any)
			return 0;
		if (all)
			return step;
	}
	return 0;
}

double stats_min_effect_default_pct(const char *key)
{
	static const struct {
		const char *key;
		double pct;
	} defaults[] = {
		{ "real_fps", 1 }, { "shown_fps", 1 }, { "p50_ms", 1 },
		{ "p95_ms", 2 },   { "p99_ms", 2 },    { "low_1pct_fps", 2 },
		{ "low_01pct_fps", 2 },
	};
	for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++)
		if (strcmp(defaults[i].key, key) == 0)
			return defaults[i].pct;
	return 5; /* readback wait and every other metric */
}

const char *stats_state_name(enum stats_state s)
{
	switch (s) {
	case STATS_STATE_FASTER: return "faster";
	case STATS_STATE_SLOWER: return "slower";
	case STATS_STATE_SAME: return "same";
	case STATS_STATE_HIGHER: return "higher";
	case STATS_STATE_LOWER: return "lower";
	case STATS_STATE_UNDECIDED:
	default: return "undecided";
	}
}

/* ---- the model ------------------------------------------------------- */

#define MAX_COLS (STATS_MAX_GROUPS + 3)

/* Inverts the p x p symmetric matrix a in place (Gauss-Jordan with partial
 * pivoting).  -EDOM when it is singular (a pivot below eps times the
 * largest diagonal entry). */
static int invert(double *a, int p)
{
	double inv[MAX_COLS * MAX_COLS];
	double scale = 0;
	for (int i = 0; i < p; i++)
		scale = fmax(scale, fabs(a[i * p + i]));
	if (!(scale > 0))
		return -EDOM;
	for (int i = 0; i < p; i++)
		for (int j = 0; j < p; j++)
			inv[i * p + j] = i == j;
	for (int c = 0; c < p; c++) {
		int piv = c;
		for (int r = c + 1; r < p; r++)
			if (fabs(a[r * p + c]) > fabs(a[piv * p + c]))
				piv = r;
		if (fabs(a[piv * p + c]) < 1e-10 * scale)
			return -EDOM;
		if (piv != c)
			for (int j = 0; j < p; j++) {
				double t = a[c * p + j];
				a[c * p + j] = a[piv * p + j];
				a[piv * p + j] = t;
				t = inv[c * p + j];
				inv[c * p + j] = inv[piv * p + j];
				inv[piv * p + j] = t;
			}
		double d = a[c * p + c];
		for (int j = 0; j < p; j++) {
			a[c * p + j] /= d;
			inv[c * p + j] /= d;
		}
		for (int r = 0; r < p; r++) {
			if (r == c)
				continue;
			double f = a[r * p + c];
			if (f == 0)
				continue;
			for (int j = 0; j < p; j++) {
				a[r * p + j] -= f * a[c * p + j];
				inv[r * p + j] -= f * inv[c * p + j];
			}
		}
	}
	memcpy(a, inv, (size_t)p * (size_t)p * sizeof *a);
	return 0;
}

struct fit {
	double delta, se;
	int df;
	double *h;   /* NULL, or d->n entries: delta = sum h[i] v[i] (0 for unused runs) */
};

/* The columns of one fit: an intercept, one indicator per group with data
 * but the baseline, and the time terms of a mask (STATS_TIME_LINEAR: the
 * centred, scaled time z; STATS_TIME_QUADRATIC: z^2 centred over the used
 * runs). */
struct design_cols {
	int col_of[STATS_MAX_GROUPS];
	unsigned terms;
	int lin, quad;    /* their columns, or -1 */
	int p;
	double tm, tv, qm;
};

static int cols_init(const struct stats_design *d, const bool *use, size_t base, size_t arm,
                     unsigned terms, struct design_cols *c, size_t *n_out)
{
	size_t count[STATS_MAX_GROUPS] = { 0 };
	size_t n = 0;
	double tm = 0, tv = 0, qm = 0;
	for (size_t i = 0; i < d->n; i++)
		if (use[i]) {
			count[d->group[i]]++;
			n++;
			if (terms)
				tm += d->t[i];
		}
	if (!count[base] || !count[arm])
		return -EDOM;
	c->p = 1;
	for (size_t g = 0; g < d->n_groups; g++)
		c->col_of[g] = g == base || !count[g] ? -1 : c->p++;
	c->terms = terms;
	c->lin = terms & STATS_TIME_LINEAR ? c->p++ : -1;
	c->quad = terms & STATS_TIME_QUADRATIC ? c->p++ : -1;
	if ((int)n - c->p < 1)
		return -EDOM;
	if (terms) {
		tm /= (double)n;
		for (size_t i = 0; i < d->n; i++)
			if (use[i])
				tv += (d->t[i] - tm) * (d->t[i] - tm);
		tv = sqrt(tv / (double)n);
		if (!(tv > 0))
			return -EDOM;
		for (size_t i = 0; i < d->n; i++)
			if (use[i])
				qm += (d->t[i] - tm) * (d->t[i] - tm) / (tv * tv);
		qm /= (double)n;
	}
	c->tm = tm;
	c->tv = tv;
	c->qm = qm;
	*n_out = n;
	return 0;
}

/* Run i's row of the design. */
static void design_row(const struct stats_design *d, const struct design_cols *c, size_t i,
                       double x[MAX_COLS])
{
	memset(x, 0, MAX_COLS * sizeof *x);
	x[0] = 1;
	if (c->col_of[d->group[i]] > 0)
		x[c->col_of[d->group[i]]] = 1;
	if (c->terms) {
		double z = (d->t[i] - c->tm) / c->tv;
		if (c->lin >= 0)
			x[c->lin] = z;
		if (c->quad >= 0)
			x[c->quad] = z * z - c->qm;
	}
}

/*
 * Least squares of y on the columns of struct design_cols for the time
 * terms of the mask.  Only observations with use[i] count.  Fills the
 * arm's coefficient and its standard error (and out->h, when set: the
 * coefficient as a linear function of the values).  -EDOM when the design
 * is singular or leaves no degree of freedom.
 */
static int fit_model(const struct stats_design *d, const bool *use, size_t base, size_t arm,
                     unsigned terms, struct fit *out)
{
	struct design_cols c;
	size_t n;
	if (cols_init(d, use, base, arm, terms, &c, &n) < 0)
		return -EDOM;
	int p = c.p;
	double xtx[MAX_COLS * MAX_COLS] = { 0 }, xty[MAX_COLS] = { 0 };
	double x[MAX_COLS];
	for (size_t i = 0; i < d->n; i++) {
		if (!use[i])
			continue;
		design_row(d, &c, i, x);
		for (int a = 0; a < p; a++) {
			xty[a] += x[a] * d->v[i];
			for (int b = 0; b < p; b++)
				xtx[a * p + b] += x[a] * x[b];
		}
	}
	if (invert(xtx, p) < 0)
		return -EDOM;
	double beta[MAX_COLS] = { 0 };
	for (int a = 0; a < p; a++)
		for (int b = 0; b < p; b++)
			beta[a] += xtx[a * p + b] * xty[b];
	int ca = c.col_of[arm];
	double rss = 0;
	for (size_t i = 0; i < d->n; i++) {
		if (out->h)
			out->h[i] = 0;
		if (!use[i])
			continue;
		design_row(d, &c, i, x);
		double fitv = 0;
		for (int a = 0; a < p; a++) {
			fitv += beta[a] * x[a];
			if (out->h)
				out->h[i] += xtx[ca * p + a] * x[a];
		}
		rss += (d->v[i] - fitv) * (d->v[i] - fitv);
	}
	int df = (int)n - p;
	double var = rss / df * xtx[ca * p + ca];
	out->delta = beta[ca];
	out->se = sqrt(var > 0 ? var : 0);
	out->df = df;
	return 0;
}

/* ---- the decision ---------------------------------------------------- */

/* Whether two contrast vectors give the same estimate for every data. */
static bool same_contrast(const double *a, const double *b, size_t n)
{
	double scale = 0, diff = 0;
	for (size_t i = 0; i < n; i++) {
		scale = fmax(scale, fabs(a[i]));
		diff = fmax(diff, fabs(a[i] - b[i]));
	}
	return diff <= 1e-9 * fmax(scale, 1e-300);
}

static int popcount2(unsigned m)
{
	return (int)(m & 1u) + (int)((m >> 1) & 1u);
}

/* Fits the model for base against arm over the runs marked in use (n_all
 * of them): arm and time over every arm's runs when each has a place in
 * the order (timed).  The terms the runs allow are the linear one, and the
 * quadratic when STATS_QUADRATIC_MIN_DF residual degrees of freedom are
 * left after it.  A term orthogonal to the arm contrast in the order run
 * changes nothing in delta: of the fits that give delta as all the
 * allowed terms give it, the one with the narrowest interval (t quantile
 * times se) is taken, so such a term is dropped unless the drift it takes
 * out of the residuals is worth more than the degree of freedom it costs
 * (docs/metrics.md 6.1 has the measurement); under
 * STATS_TIME_RULE_DROP_ORTHOGONAL the one with the fewest terms (every
 * orthogonal term dropped), the narrowest among equals.  Without places, the two
 * arms alone, pooled variance, with use narrowed to those two arms.  Sets
 * r's method and time terms; returns 0 with *f filled, or a negative
 * errno when no model fits. */
static int model_fit(const struct stats_design *d, bool *use, size_t base, size_t arm,
                     bool timed, size_t n_all, enum stats_time_rule rule,
                     struct stats_decision *r, struct fit *f)
{
	int rc = -EDOM;
	if (timed) {
		r->method = STATS_METHOD_ARM_TIME;
		size_t k = 0;
		size_t cnt[STATS_MAX_GROUPS] = { 0 };
		for (size_t i = 0; i < d->n; i++)
			if (use[i])
				cnt[d->group[i]]++;
		for (size_t g = 0; g < d->n_groups; g++)
			k += cnt[g] > 0;
		unsigned full = (int)n_all - (int)k - 2 >= STATS_QUADRATIC_MIN_DF
		                        ? STATS_TIME_LINEAR | STATS_TIME_QUADRATIC
		                        : STATS_TIME_LINEAR;
		double *h_full = malloc(2 * (d->n ? d->n : 1) * sizeof *h_full);
		if (!h_full)
			return -ENOMEM;
		double *h = h_full + (d->n ? d->n : 1);
		struct fit all = { .h = h_full };
		rc = fit_model(d, use, base, arm, full, &all);
		if (rc < 0 && full != STATS_TIME_LINEAR) {
			full = STATS_TIME_LINEAR;
			rc = fit_model(d, use, base, arm, full, &all);
		}
		if (rc == 0) {
			*f = all;
			r->time_mask = full;
			double width = stats_t_quantile_two_sided(0.05, all.df) * all.se;
			/* the same estimate with fewer terms (what is dropped was
			 * orthogonal to the arm contrast), if its interval is
			 * narrower: a dropped term gives a df back, a kept one
			 * takes drift out of s */
			for (unsigned m = 0; m < full; m++) {
				struct fit g = { .h = h };
				if ((m & ~full) || fit_model(d, use, base, arm, m, &g) != 0 ||
				    !same_contrast(h, h_full, d->n))
					continue;
				double w = stats_t_quantile_two_sided(0.05, g.df) * g.se;
				int fewer = popcount2(m) - popcount2(r->time_mask);
				bool better = rule == STATS_TIME_RULE_DROP_ORTHOGONAL
				              ? fewer < 0 || (fewer == 0 && w < width)
				              : w < width || (w == width && fewer < 0);
				if (better) {
					width = w;
					*f = g;
					r->time_mask = m;
				}
			}
			r->time_terms = popcount2(r->time_mask);
			r->time_terms_dropped = popcount2(full) - r->time_terms;
			r->time_mask_allowed = full;
			f->h = NULL;
		}
		free(h_full);
	}
	if (rc < 0) {
		r->method = STATS_METHOD_TWO_SAMPLE;
		r->time_terms = 0;
		r->time_terms_dropped = 0;
		r->time_mask = 0;
		r->time_mask_allowed = 0;
		for (size_t i = 0; i < d->n; i++)
			use[i] = use[i] && (d->group[i] == base || d->group[i] == arm);
		f->h = NULL;
		rc = fit_model(d, use, base, arm, 0, f);
	}
	return rc;
}

/* The estimate, its interval at alpha and its raw p value from a fit,
 * the standard error floored at what rounding to r's resolution leaves
 * (r / sqrt(12) a run).  While the runs' spread stays within the
 * resolution (se below r sqrt(1/na + 1/nb)) rounding may be systematic,
 * each arm's mean off by up to half the resolution: the interval is
 * widened by the resolution and only |delta| - resolution counts as
 * evidence.  A spread beyond the resolution carries the rounding errors
 * in s already (docs/metrics.md 6.1: widening there too cost 12 points of
 * power at 6 runs an arm). */
static void interval_from_fit(const struct fit *f, double alpha, struct stats_decision *r)
{
	r->delta = f->delta;
	r->df = f->df;
	double unit = sqrt(1.0 / (double)r->n_arm + 1.0 / (double)r->n_baseline);
	r->se_floor = r->resolution / sqrt(12.0) * unit;
	double se = fmax(f->se, r->se_floor);
	r->se = se;
	double tq = stats_t_quantile_two_sided(alpha, f->df);
	/* a hair over the resolution: 16.5 - 16.6 is not exactly -0.1 */
	double res = f->se < r->resolution * unit ? r->resolution * (1 + 1e-9) : 0;
	r->widened = res > 0;
	double half = tq * se + res;
	r->ci_low = f->delta - half;
	r->ci_high = f->delta + half;
	double beyond = fmax(0.0, fabs(f->delta) - res);
	if (se > 0)
		r->p_raw = stats_t_p_two_sided(beyond / se, f->df);
	else
		r->p_raw = beyond > 0 ? 0.0 : 1.0;
}

/* Whether the two arms' places interleave (true when the runs have none). */
static bool arms_interleave(const struct stats_design *d, const bool *use, size_t base, size_t arm)
{
	if (!d->t)
		return true;
	double lo[2] = { INFINITY, INFINITY }, hi[2] = { -INFINITY, -INFINITY };
	for (size_t i = 0; i < d->n; i++) {
		if (!use[i] || (d->group[i] != base && d->group[i] != arm) || !isfinite(d->t[i]))
			continue;
		int a = d->group[i] == arm;
		lo[a] = fmin(lo[a], d->t[i]);
		hi[a] = fmax(hi[a], d->t[i]);
	}
	return !(hi[0] < lo[1] || hi[1] < lo[0]);
}

/* The permutation checks of r: two-sided against no difference, and,
 * when the interval lies inside +-m, the two one-sided tests of the
 * shifted values for "same".  The call's statistic is the difference of
 * the arms' means of the values as stored, with no time terms taken out:
 * that test is exact for any fixed order when the runs are exchangeable
 * (no difference, no drift), whatever their distribution (levels, ties);
 * with time terms taken out it is not (docs/metrics.md 6.1a: bimodal runs,
 * 6 an arm, 8.3 % false calls).  Drift is the model's part.  "Same" takes
 * the time terms the runs allow out first, so that a drift does not keep
 * an equivalence from being shown. */
static int permutation_checks(const struct stats_design *d, size_t base, size_t arm,
                              struct stats_decision *r)
{
	int rc = stats_permutation_p(d, base, arm, 0, 0, 2, &r->p_perm, &r->p_perm_min,
	                             &r->perm_exact, &r->perm_count);
	if (rc < 0)
		return rc;
	if (r->ci_low >= -r->min_effect && r->ci_high <= r->min_effect) {
		const struct stats_design *dd = d;
		struct stats_design untimed;
		if (r->method != STATS_METHOD_ARM_TIME) {
			untimed = *d;
			untimed.t = NULL;
			dd = &untimed;
		}
		unsigned terms = r->time_mask_allowed;
		double up, down;
		/* H0 delta = +m against below, and delta = -m against above */
		rc = stats_permutation_p(dd, base, arm, terms, r->min_effect, -1, &down, NULL,
		                         NULL, NULL);
		if (rc == 0)
			rc = stats_permutation_p(dd, base, arm, terms, -r->min_effect, 1, &up,
			                         NULL, NULL, NULL);
		if (rc < 0)
			return rc;
		r->p_perm_same = fmax(up, down);
	}
	return 0;
}

int stats_decide(const struct stats_metric_def *metric, const struct stats_design *d,
                 size_t base, size_t arm, const struct stats_decide_options *opt,
                 struct stats_decision *out)
{
	if (!metric || !d || base >= d->n_groups || arm >= d->n_groups || base == arm ||
	    d->n_groups > STATS_MAX_GROUPS)
		return -EINVAL;
	struct stats_decide_options o = opt ? *opt : (struct stats_decide_options){ 0 };
	double alpha = o.alpha > 0 && o.alpha < 1 ? o.alpha : 0.05;
	double pct = o.min_effect_pct > 0 ? o.min_effect_pct : stats_min_effect_default_pct(metric->key);

	bool *use = malloc((d->n ? d->n : 1) * sizeof *use);
	double *vals = malloc((d->n ? d->n : 1) * sizeof *vals);
	size_t *grp = malloc((d->n ? d->n : 1) * sizeof *grp);
	if (!use || !vals || !grp) {
		free(use);
		free(vals);
		free(grp);
		return -ENOMEM;
	}
	struct stats_decision r = {
		.delta = NAN, .delta_pct = NAN, .ci_low = -INFINITY, .ci_high = INFINITY,
		.p = NAN, .p_raw = NAN, .alpha = alpha, .df = 0, .se = NAN, .se_floor = 0,
		.p_perm = NAN, .p_perm_min = NAN, .p_perm_same = NAN, .interleaved = true,
	};
	double sum_b = 0, sum_a = 0;
	bool timed = d->t != NULL;
	size_t nv = 0, n_all = 0;
	for (size_t i = 0; i < d->n; i++) {
		use[i] = isfinite(d->v[i]) && d->group[i] < d->n_groups;
		if (!use[i])
			continue;
		n_all++;
		if (d->t && !isfinite(d->t[i]))
			timed = false;
		if (d->group[i] == base) {
			r.n_baseline++;
			sum_b += d->v[i];
		} else if (d->group[i] == arm) {
			r.n_arm++;
			sum_a += d->v[i];
		}
	}
	if (r.n_baseline == 0 || r.n_arm == 0) {
		free(use);
		free(vals);
		free(grp);
		return -ENODATA;
	}
	double base_mean = sum_b / (double)r.n_baseline;
	/* the two arms' values: their resolution and levels */
	for (size_t i = 0; i < d->n; i++)
		if (use[i] && (d->group[i] == base || d->group[i] == arm)) {
			grp[nv] = d->group[i];
			vals[nv++] = d->v[i];
		}
	/* the step a difference is measured in, and what rounding widens by:
	 * the metric's definition when given (a count is exact, in steps of
	 * 1), else the grid the stored values lie on */
	double step;
	if (o.spec && (o.spec->exact || o.spec->resolution > 0)) {
		step = o.spec->resolution;
		r.resolution = o.spec->exact ? 0 : o.spec->resolution;
	} else {
		r.resolution = o.resolution > 0 ? o.resolution : stats_resolution(vals, nv);
		step = r.resolution;
	}
	r.min_effect = fmax(pct / 100.0 * fabs(base_mean), step);
	r.min_effect_pct = pct;
	r.n_levels = stats_levels(vals, grp, nv, r.min_effect, r.levels);
	stats_levels_text(metric, r.levels, r.n_levels, r.levels_text, sizeof r.levels_text);
	free(vals);
	free(grp);

	struct fit f = { 0 };
	int rc = model_fit(d, use, base, arm, timed, n_all, o.time_rule, &r, &f);
	if (rc == -ENOMEM) {
		free(use);
		return rc;
	}
	if (rc == 0) {
		interval_from_fit(&f, alpha, &r);
		r.interleaved = r.method != STATS_METHOD_ARM_TIME || arms_interleave(d, use, base, arm);
		rc = permutation_checks(d, base, arm, &r);
		if (rc < 0 && rc != -ENODATA) {
			free(use);
			return rc;
		}
	} else {
		/* too few runs for any interval: Δ of the means, undecided */
		r.method = STATS_METHOD_NONE;
		r.delta = sum_a / (double)r.n_arm - base_mean;
	}
	free(use);
	r.p = r.p_raw;
	/* as stats_compare(): a percentage of a baseline that rounds to 0 at
	 * the metric's table precision says nothing (0.003 ms of memory sync) */
	r.delta_pct = fabs(base_mean) > 0.5 * pow(10.0, -metric->decimals)
	                      ? r.delta / fabs(base_mean) * 100.0
	                      : NAN;
	r.primary = o.primary;
	stats_decision_settle(metric, &r);
	*out = r;
	return 0;
}

/* "0.33", "0.0005", "1.2e-05": a p for a reason line. */
static void p_text(char *buf, size_t size, double p)
{
	if (p >= 0.01)
		snprintf(buf, size, "%.2g", p);
	else
		snprintf(buf, size, "%.1g", p);
}

/* Undecided: too few runs for the permutation test (what) to go below
 * level; its smallest p is p_min. */
static void unreachable(struct stats_decision *r, double p_min, double level, const char *what)
{
	char a[24], b[24];
	r->why = STATS_WHY_PERM_UNREACHABLE;
	p_text(a, sizeof a, p_min);
	p_text(b, sizeof b, level);
	snprintf(r->reason, sizeof r->reason,
	         "%zu vs %zu runs: the permutation test%s cannot go below p = %s (needs < %s)",
	         r->n_arm, r->n_baseline, what, a, b);
}

void stats_decision_settle(const struct stats_metric_def *metric, struct stats_decision *r)
{
	r->state = STATS_STATE_UNDECIDED;
	r->why = STATS_WHY_NONE;
	r->reason[0] = 0;
	char a[24];
	if (r->method == STATS_METHOD_NONE || !isfinite(r->ci_low) || !isfinite(r->ci_high)) {
		r->why = STATS_WHY_NO_MODEL;
		snprintf(r->reason, sizeof r->reason,
		         "%zu vs %zu runs leave no residual degree of freedom: no interval",
		         r->n_arm, r->n_baseline);
		return;
	}
	/* the permutation test's level: alpha, scaled as Holm scaled p */
	double lvl = r->alpha;
	if (isfinite(r->p) && r->p > 0 && isfinite(r->p_raw) && r->p_raw > 0 && r->p > r->p_raw)
		lvl = r->alpha * r->p_raw / r->p;
	bool model_call = isfinite(r->p) && r->p < r->alpha && fabs(r->delta) >= r->min_effect &&
	                  (r->ci_low > 0 || r->ci_high < 0);
	bool model_same = r->ci_low >= -r->min_effect && r->ci_high <= r->min_effect;
	if (r->df < 2) {
		r->why = STATS_WHY_DF;
		snprintf(r->reason, sizeof r->reason,
		         "%d residual degree of freedom: a call needs at least 2", r->df);
		return;
	}
	/* too few runs for the permutation test to reach the level of a call
	 * or of same: nothing the model says can be decided, and that is why */
	double one_min = r->p_perm_min / (r->n_arm == r->n_baseline ? 2.0 : 1.0);
	if (!(r->p_perm_min < lvl) && !(one_min < r->alpha / 2)) {
		unreachable(r, r->p_perm_min, lvl, "");
		return;
	}
	if (model_call) {
		if (!(r->p_perm_min < lvl)) {
			unreachable(r, r->p_perm_min, lvl, "");
			return;
		}
		if (!(r->p_perm < lvl)) {
			r->why = STATS_WHY_PERM_DISAGREES;
			p_text(a, sizeof a, r->p_perm);
			snprintf(r->reason, sizeof r->reason,
			         "the permutation test over the arm labels gives p = %s: the spread is too "
			         "small to trust", a);
			return;
		}
		bool up = r->delta > 0;
		switch (metric->direction) {
		case STATS_HIGHER_IS_BETTER:
			r->state = up ? STATS_STATE_FASTER : STATS_STATE_SLOWER;
			break;
		case STATS_LOWER_IS_BETTER:
			r->state = up ? STATS_STATE_SLOWER : STATS_STATE_FASTER;
			break;
		case STATS_NEUTRAL:
		default:
			r->state = up ? STATS_STATE_HIGHER : STATS_STATE_LOWER;
			break;
		}
		return;
	}
	if (model_same) {
		/* few residual degrees of freedom rest the noise on a residual or
		 * two, often near 0 by chance: no equivalence claim on them */
		if (r->df < 3) {
			r->why = STATS_WHY_DF;
			snprintf(r->reason, sizeof r->reason,
			         "%d residual degree%s of freedom: \"same\" needs at least 3", r->df,
			         r->df == 1 ? "" : "s");
		} else if (!(one_min < r->alpha / 2)) {
			unreachable(r, one_min, r->alpha / 2, " of \"same\"");
		} else if (!(r->p_perm_same < r->alpha / 2)) {
			r->why = STATS_WHY_PERM_DISAGREES;
			p_text(a, sizeof a, r->p_perm_same);
			snprintf(r->reason, sizeof r->reason,
			         "the permutation test of \"same\" over the arm labels gives p = %s", a);
		} else {
			r->state = STATS_STATE_SAME;
		}
		return;
	}
	if (!r->interleaved) {
		r->why = STATS_WHY_CONFOUNDED;
		snprintf(r->reason, sizeof r->reason,
		         "arms not interleaved: the arms ran in blocks, so arm and drift cannot be told "
		         "apart");
		return;
	}
	r->why = STATS_WHY_INTERVAL;
	snprintf(r->reason, sizeof r->reason,
	         "the interval neither excludes 0 nor lies within the minimum effect");
}

const char *stats_method_name(enum stats_method m)
{
	switch (m) {
	case STATS_METHOD_ARM_TIME: return "arm_time";
	case STATS_METHOD_TWO_SAMPLE: return "two_sample";
	case STATS_METHOD_NONE:
	default: return "none";
	}
}

void stats_decision_method_text(const struct stats_decision *d, char *buf, size_t size)
{
	switch (d->method) {
	case STATS_METHOD_ARM_TIME: {
		/* "quadratic time" is the linear and the quadratic term; the
		 * quadratic alone only when the linear one was orthogonal */
		static const char *const terms[] = {
			"arm only", "arm + linear time",
			"arm + quadratic time without the linear term", "arm + quadratic time",
		};
		snprintf(buf, size, "%s%s, df %d", terms[d->time_mask & 3u],
		         d->time_mask == STATS_TIME_QUADRATIC ? " (orthogonal)"
		         : d->time_terms_dropped ? " (orthogonal time terms dropped)" : "", d->df);
		break;
	}
	case STATS_METHOD_TWO_SAMPLE:
		snprintf(buf, size, "two-sample t, df %d", d->df);
		break;
	case STATS_METHOD_NONE:
	default:
		snprintf(buf, size, "no model, df 0");
		break;
	}
}

/* ---- drift ------------------------------------------------------------- */

int stats_drift(const struct stats_design *d, const double *time_s, double alpha,
                struct stats_drift *out)
{
	if (!d || !out || d->n_groups > STATS_MAX_GROUPS || !(alpha > 0 && alpha < 1))
		return -EINVAL;
	struct stats_drift r = { .change = NAN, .low = NAN, .high = NAN, .span = NAN };
	const double *x = time_s;
	bool timed = time_s != NULL;
	for (size_t i = 0; i < d->n && timed; i++)
		if (isfinite(d->v[i]) && !isfinite(time_s[i]))
			timed = false;
	if (!timed)
		x = d->t;
	for (size_t i = 0; i < d->n && x; i++)
		if (isfinite(d->v[i]) && !isfinite(x[i]))
			x = NULL;
	*out = r;
	if (!x)
		return 0;
	int col_of[STATS_MAX_GROUPS];
	size_t cnt[STATS_MAX_GROUPS] = { 0 }, n = 0;
	double xlo = INFINITY, xhi = -INFINITY, xm = 0;
	for (size_t i = 0; i < d->n; i++)
		if (isfinite(d->v[i]) && d->group[i] < d->n_groups) {
			cnt[d->group[i]]++;
			n++;
			xlo = fmin(xlo, x[i]);
			xhi = fmax(xhi, x[i]);
			xm += x[i];
		}
	if (n == 0 || !(xhi > xlo))
		return 0;
	xm /= (double)n;
	int p = 0;
	for (size_t g = 0; g < d->n_groups; g++)
		col_of[g] = cnt[g] ? p++ : -1;
	int tc = p++;
	if ((int)n - p < 1)
		return 0;
	double xtx[MAX_COLS * MAX_COLS] = { 0 }, xty[MAX_COLS] = { 0 }, row[MAX_COLS];
	double scale = xhi - xlo;
	for (size_t i = 0; i < d->n; i++) {
		if (!isfinite(d->v[i]) || d->group[i] >= d->n_groups)
			continue;
		memset(row, 0, sizeof row);
		row[col_of[d->group[i]]] = 1;
		row[tc] = (x[i] - xm) / scale;
		for (int a = 0; a < p; a++) {
			xty[a] += row[a] * d->v[i];
			for (int b = 0; b < p; b++)
				xtx[a * p + b] += row[a] * row[b];
		}
	}
	if (invert(xtx, p) < 0)
		return 0;
	double beta[MAX_COLS] = { 0 };
	for (int a = 0; a < p; a++)
		for (int b = 0; b < p; b++)
			beta[a] += xtx[a * p + b] * xty[b];
	double rss = 0;
	for (size_t i = 0; i < d->n; i++) {
		if (!isfinite(d->v[i]) || d->group[i] >= d->n_groups)
			continue;
		double e = d->v[i] - beta[col_of[d->group[i]]] - beta[tc] * (x[i] - xm) / scale;
		rss += e * e;
	}
	r.df = (int)n - p;
	double se = sqrt(fmax(0.0, rss / r.df * xtx[tc * p + tc]));
	double tq = stats_t_quantile_two_sided(alpha, r.df);
	/* the coefficient is per span already (time scaled by it) */
	r.known = true;
	r.timed = timed;
	r.span = scale;
	r.change = beta[tc];
	r.low = beta[tc] - tq * se;
	r.high = beta[tc] + tq * se;
	r.real = r.low > 0 || r.high < 0;
	*out = r;
	return 0;
}

void stats_drift_text(const struct stats_metric_def *metric, const struct stats_drift *dr,
                      char *buf, size_t size)
{
	if (!size)
		return;
	buf[0] = 0;
	if (!dr || !dr->known)
		return;
	int dec = metric ? metric->decimals : 2;
	const char *unit = metric && metric->unit && metric->unit[0] ? metric->unit : "";
	const char *sp = unit[0] ? " " : "";
	if (!dr->timed) {
		snprintf(buf, size, "%+.*f%s%s over %.0f runs [%+.*f, %+.*f]", dec, dr->change, sp, unit,
		         dr->span + 1, dec, dr->low, dec, dr->high);
		return;
	}
	if (dr->span >= 3600) {
		double f = 3600 / dr->span;
		snprintf(buf, size, "%+.*f%s%s an hour [%+.*f, %+.*f] over %.1f h", dec, dr->change * f,
		         sp, unit, dec, dr->low * f, dec, dr->high * f, dr->span / 3600);
		return;
	}
	char span[32];
	if (dr->span >= 60)
		snprintf(span, sizeof span, "%.0f min", dr->span / 60);
	else
		snprintf(span, sizeof span, "%.0f s", dr->span);
	snprintf(buf, size, "%+.*f%s%s over %s [%+.*f, %+.*f]", dec, dr->change, sp, unit, span, dec,
	         dr->low, dec, dr->high);
}

const struct stats_metric_spec *stats_metric_spec_default(const char *key)
{
	/* fps from a count of frames over the known window is exact; counts
	 * are whole and exact */
	static const struct stats_metric_spec exact = { .exact = true };
	static const struct stats_metric_spec count = { .resolution = 1, .exact = true,
		                                        .count = true };
	if (!key)
		return NULL;
	if (strcmp(key, "real_fps") == 0 || strcmp(key, "shown_fps") == 0)
		return &exact;
	if (strcmp(key, "over_100ms") == 0 || strcmp(key, "swap_in") == 0)
		return &count;
	return NULL;
}

int stats_holm(const double *p, size_t n, double *adj)
{
	size_t *idx = malloc((n ? n : 1) * sizeof *idx);
	if (!idx)
		return -ENOMEM;
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (isfinite(p[i]))
			idx[m++] = i;
		else
			adj[i] = p[i];
	}
	/* ascending p by insertion: tens of metrics */
	for (size_t i = 1; i < m; i++) {
		size_t x = idx[i], j = i;
		while (j > 0 && p[idx[j - 1]] > p[x]) {
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = x;
	}
	double run = 0;
	for (size_t k = 0; k < m; k++) {
		double v = (double)(m - k) * p[idx[k]];
		if (v > 1)
			v = 1;
		if (v < run)
			v = run;
		run = v;
		adj[idx[k]] = v;
	}
	free(idx);
	return 0;
}

int stats_decide_family(const struct stats_metric_def *const *metrics, struct stats_decision *d,
                        size_t n)
{
	double *p = calloc(n ? n : 1, sizeof *p);
	double *adj = calloc(n ? n : 1, sizeof *adj);
	if (!p || !adj) {
		free(p);
		free(adj);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		p[i] = d[i].primary ? NAN : d[i].p_raw;
	int rc = stats_holm(p, n, adj);
	if (rc == 0)
		for (size_t i = 0; i < n; i++) {
			if (d[i].primary)
				continue;
			d[i].p = adj[i];
			stats_decision_settle(metrics[i], &d[i]);
		}
	free(p);
	free(adj);
	return rc;
}
