/* stats-compare: describing arms, as docs/metrics.md ("Statistics and the
 * verdict") defines it.  It owns per-arm summaries, the difference of an
 * arm's mean from the baseline's and the Mann–Whitney U test (exact distribution by dynamic
 * programming, normal approximation with tie correction when values tie),
 * kept as a rank-based check beside the decision.  The decision itself is
 * stats-verdict.c's; where the values come from is the caller's business. */
#include "stats.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Copies the finite values of v into a new sorted array. */
static int finite_sorted(const double *v, size_t n, double **out, size_t *out_n)
{
	double *s = malloc((n ? n : 1) * sizeof *s);
	if (!s)
		return -ENOMEM;
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			s[m++] = v[i];
	qsort(s, m, sizeof *s, cmp_double);
	*out = s;
	*out_n = m;
	return 0;
}

int stats_summarize(const double *v, size_t n, struct stats_summary *out)
{
	double *s;
	size_t m;
	int rc = finite_sorted(v, n, &s, &m);
	if (rc < 0)
		return rc;
	if (m == 0) {
		free(s);
		return -ENODATA;
	}
	struct stats_summary r = { .n = m, .min = s[0], .max = s[m - 1] };
	double sum = 0;
	for (size_t i = 0; i < m; i++)
		sum += s[i];
	r.mean = sum / (double)m;
	r.median = m % 2 ? s[m / 2] : (s[m / 2 - 1] + s[m / 2]) / 2;
	r.spread = r.max - r.min;
	r.spread_pct = r.median != 0 ? r.spread / fabs(r.median) * 100.0 : NAN;
	double ss = 0;
	for (size_t i = 0; i < m; i++)
		ss += (s[i] - r.mean) * (s[i] - r.mean);
	r.sd = m > 1 ? sqrt(ss / (double)(m - 1)) : 0.0;
	free(s);
	*out = r;
	return 0;
}

/*
 * Exact lower tail of U (no ties) for sizes na, nb: *le = P(U <= kmax), as
 * a probability, by P(i, j, k) = i/(i+j) P(i-1, j, k-j) + j/(i+j) P(i, j-1, k)
 * (the largest of the i+j values is an a, beating all j b's, or a b).  The
 * recurrence only looks down in k, so the table stops at kmax; rows of i
 * are rolled, so memory is (nb + 1) (kmax + 1) doubles twice.  Every entry
 * a row needs is written before it is read (entries above a row's top are
 * still the zeros of calloc), so nothing is cleared between rows.
 */
static int mw_exact_lower(size_t na, size_t nb, size_t kmax, double *le)
{
	size_t w = kmax + 1;
	double *prev = calloc((nb + 1) * w, sizeof *prev);
	double *cur = calloc((nb + 1) * w, sizeof *cur);
	if (!prev || !cur) {
		free(prev);
		free(cur);
		return -ENOMEM;
	}
	/* i = 0: U = 0 with certainty for every j */
	for (size_t j = 0; j <= nb; j++)
		prev[j * w] = 1.0;
	for (size_t i = 1; i <= na; i++) {
		cur[0] = 1.0; /* j = 0 */
		for (size_t j = 1; j <= nb; j++) {
			double pa = (double)i / (double)(i + j), pb = 1.0 - pa;
			double *c = cur + j * w;
			const double *fa = prev + j * w;       /* (i-1, j) */
			const double *fb = cur + (j - 1) * w;  /* (i, j-1) */
			size_t top = i * j < kmax ? i * j : kmax;
			for (size_t k = 0; k <= top; k++) {
				double v = pb * fb[k];
				if (k >= j)
					v += pa * fa[k - j];
				c[k] = v;
			}
		}
		double *t = prev;
		prev = cur;
		cur = t;
	}
	const double *d = prev + nb * w;
	double lo = 0;
	for (size_t k = 0; k <= kmax; k++)
		lo += d[k];
	free(prev);
	free(cur);
	*le = lo;
	return 0;
}

int stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
                       double *out_u, double *out_p, bool *out_exact, bool *out_ties)
{
	if (na == 0 || nb == 0)
		return -EINVAL;
	size_t n = na + nb;
	struct item {
		double v;
		int from_a;
	} *all = malloc(n * sizeof *all);
	if (!all)
		return -ENOMEM;
	for (size_t i = 0; i < na; i++)
		all[i] = (struct item){ a[i], 1 };
	for (size_t i = 0; i < nb; i++)
		all[na + i] = (struct item){ b[i], 0 };
	/* insertion sort: arms have tens of runs */
	for (size_t i = 1; i < n; i++) {
		struct item x = all[i];
		size_t j = i;
		while (j > 0 && all[j - 1].v > x.v) {
			all[j] = all[j - 1];
			j--;
		}
		all[j] = x;
	}
	/* mid-ranks; U_a = R_a - na (na + 1) / 2 */
	double rank_a = 0, tie_term = 0;
	bool ties = false;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && all[j + 1].v == all[i].v)
			j++;
		double t = (double)(j - i + 1);
		double mid = ((double)i + (double)j) / 2.0 + 1.0;
		for (size_t k = i; k <= j; k++)
			if (all[k].from_a)
				rank_a += mid;
		if (t > 1) {
			ties = true;
			tie_term += t * t * t - t;
		}
		i = j + 1;
	}
	free(all);
	double u = rank_a - (double)na * (double)(na + 1) / 2.0;
	double p;
	bool exact = !ties && na <= STATS_MW_EXACT_MAX && nb <= STATS_MW_EXACT_MAX;
	if (exact) {
		/* U is symmetric about na nb / 2: P(U >= u) = P(U <= na nb - u),
		 * so the smaller tail is the lower one up to the nearer end */
		double umax = (double)na * (double)nb;
		double kmax = floor(fmin(u, umax - u) + 1e-9);
		double le;
		int rc = mw_exact_lower(na, nb, (size_t)kmax, &le);
		if (rc < 0)
			return rc;
		p = 2.0 * le;
	} else {
		double N = (double)n;
		double mu = (double)na * (double)nb / 2.0;
		double var = (double)na * (double)nb / 12.0 * ((N + 1) - tie_term / (N * (N - 1)));
		if (var <= 0) {
			p = 1.0; /* every value ties: no evidence either way */
		} else {
			double z = (fabs(u - mu) - 0.5) / sqrt(var);
			if (z < 0)
				z = 0;
			p = erfc(z / sqrt(2.0));
		}
	}
	if (p > 1)
		p = 1;
	*out_u = u;
	*out_p = p;
	*out_exact = exact;
	*out_ties = ties;
	return 0;
}

int stats_compare(const struct stats_metric_def *metric,
                  const double *base, size_t n_base,
                  const double *arm, size_t n_arm,
                  struct stats_comparison *out)
{
	if (!metric)
		return -EINVAL;
	struct stats_comparison c = { .p_value = NAN, .u = NAN };
	int rc = stats_summarize(base, n_base, &c.base);
	if (rc < 0)
		return rc;
	rc = stats_summarize(arm, n_arm, &c.arm);
	if (rc < 0)
		return rc;
	c.delta = c.arm.mean - c.base.mean;
	/* a percentage of a baseline that rounds to 0 at the metric's table
	 * precision says nothing (0.001 ms of memory sync against 8 ms): none */
	double resolution = 0.5 * pow(10.0, -metric->decimals);
	c.delta_pct = fabs(c.base.mean) > resolution ? c.delta / fabs(c.base.mean) * 100.0 : NAN;

	if (c.base.n >= 3 && c.arm.n >= 3) {
		double *fa, *fb;
		size_t na, nb;
		rc = finite_sorted(arm, n_arm, &fa, &na);
		if (rc < 0)
			return rc;
		rc = finite_sorted(base, n_base, &fb, &nb);
		if (rc < 0) {
			free(fa);
			return rc;
		}
		rc = stats_mann_whitney(fa, na, fb, nb, &c.u, &c.p_value, &c.p_exact, &c.ties);
		free(fa);
		free(fb);
		if (rc < 0)
			return rc;
	}
	*out = c;
	return 0;
}
