/* stats-perm: the design-based checks beside the model (docs/metrics.md,
 * 6.1a): the permutation (randomisation) test over the arm labels of the
 * runs in the order they were run, and the levels runs cluster in.  It owns
 * the relabelling (exact enumeration of every relabelling that keeps the
 * arms' sizes, or a fixed-seed Monte Carlo draw of them), the statistic
 * (difference of the arms' means, or the standardised sum of the arm's
 * residuals after time terms are taken out), the mid-p of the observed
 * labelling and the clustering rule.  The model itself is stats-verdict.c's. */
#include "stats.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- detrending --------------------------------------------------------- */

/* Solves the k x k system a x = b in place (Gaussian elimination with
 * partial pivoting); -EDOM when singular. */
static int solve(double *a, double *b, int k)
{
	for (int c = 0; c < k; c++) {
		int piv = c;
		for (int r = c + 1; r < k; r++)
			if (fabs(a[r * k + c]) > fabs(a[piv * k + c]))
				piv = r;
		if (fabs(a[piv * k + c]) < 1e-12)
			return -EDOM;
		if (piv != c) {
			for (int j = 0; j < k; j++) {
				double t = a[c * k + j];
				a[c * k + j] = a[piv * k + j];
				a[piv * k + j] = t;
			}
			double t = b[c];
			b[c] = b[piv];
			b[piv] = t;
		}
		for (int r = c + 1; r < k; r++) {
			double f = a[r * k + c] / a[c * k + c];
			for (int j = c; j < k; j++)
				a[r * k + j] -= f * a[c * k + j];
			b[r] -= f * b[c];
		}
	}
	for (int c = k - 1; c >= 0; c--) {
		double s = b[c];
		for (int j = c + 1; j < k; j++)
			s -= a[c * k + j] * b[j];
		b[c] = s / a[c * k + c];
	}
	return 0;
}

/* The time columns of the detrending: an intercept and the terms of the
 * mask (STATS_TIME_LINEAR: the centred, scaled t; STATS_TIME_QUADRATIC:
 * its centred square), and the inverse of their cross-product matrix. */
struct trend {
	int k;              /* columns, 1..3 */
	double g[9];        /* (X'X)^-1, k x k */
	double *x;          /* n rows of k (allocated by the caller: 3 n) */
};

/* Fills tr's rows for t[0..n) (NULL: the intercept alone), falling back
 * to the intercept alone when the time columns are singular. */
static void trend_init(struct trend *tr, const double *t, size_t n, unsigned terms)
{
	terms &= STATS_TIME_LINEAR | STATS_TIME_QUADRATIC;
	double tm = 0, tv = 0, qm = 0;
	for (size_t i = 0; i < n && t && terms; i++)
		tm += t[i];
	tm /= (double)n;
	for (size_t i = 0; i < n && t && terms; i++)
		tv += (t[i] - tm) * (t[i] - tm);
	tv = sqrt(tv / (double)n);
	for (int attempt = 0; attempt < 2; attempt++) {
		if (!t || !(tv > 0))
			terms = 0;
		int k = 1, col[2] = { 0, 0 };
		for (int j = 0; j < 2; j++)
			if (terms & (1u << j))
				col[j] = k++;
		for (size_t i = 0; i < n && terms; i++)
			qm += (t[i] - tm) * (t[i] - tm) / (tv * tv);
		qm /= (double)n;
		double a[9] = { 0 };
		for (size_t i = 0; i < n; i++) {
			double *x = tr->x + 3 * i;
			x[0] = 1;
			x[1] = x[2] = 0;
			if (terms) {
				double z = (t[i] - tm) / tv, zz[2] = { z, z * z - qm };
				for (int j = 0; j < 2; j++)
					if (col[j])
						x[col[j]] = zz[j];
			}
			for (int r = 0; r < k; r++)
				for (int c = 0; c < k; c++)
					a[r * k + c] += x[r] * x[c];
		}
		/* the inverse, column by column */
		bool ok = true;
		for (int c = 0; c < k && ok; c++) {
			double m[9], e[3] = { 0, 0, 0 };
			memcpy(m, a, sizeof m);
			e[c] = 1;
			ok = solve(m, e, k) == 0;
			for (int r = 0; r < k; r++)
				tr->g[r * k + c] = e[r];
		}
		tr->k = k;
		if (ok || !terms)
			return;
		terms = 0;
		qm = 0;
	}
}

/* Residuals of y[0..n) on tr's columns, in place. */
static void detrend(double *y, const struct trend *tr, size_t n)
{
	int k = tr->k;
	double xty[3] = { 0, 0, 0 }, b[3] = { 0, 0, 0 };
	for (size_t i = 0; i < n; i++)
		for (int r = 0; r < k; r++)
			xty[r] += tr->x[3 * i + r] * y[i];
	for (int r = 0; r < k; r++)
		for (int c = 0; c < k; c++)
			b[r] += tr->g[r * k + c] * xty[c];
	for (size_t i = 0; i < n; i++) {
		double f = 0;
		for (int r = 0; r < k; r++)
			f += b[r] * tr->x[3 * i + r];
		y[i] -= f;
	}
}

/* a'Ma for the indicator a of a relabelling whose rows sum to u (M the
 * residual projection of tr's columns): k_arm - u'Gu. */
static double trend_q(const struct trend *tr, size_t k_arm, const double *u)
{
	double q = 0;
	for (int r = 0; r < tr->k; r++)
		for (int c = 0; c < tr->k; c++)
			q += u[r] * tr->g[r * tr->k + c] * u[c];
	return (double)k_arm - q;
}

/* ---- the permutation test ------------------------------------------------ */

/* C(n, k) as a double (exact below 2^53). */
static double choose(size_t n, size_t k)
{
	if (k > n)
		return 0;
	if (k > n - k)
		k = n - k;
	double c = 1;
	for (size_t i = 1; i <= k; i++)
		c = c * (double)(n - k + i) / (double)i;
	return floor(c + 0.5);
}

struct perm {
	const double *r;   /* detrended values */
	const struct trend *tr;
	size_t n, k;       /* runs, of them labelled arm */
	double obs;        /* the observed statistic */
	double tol;        /* statistics within tol are equal */
	int sides;
	size_t hits, total;
	size_t ties;       /* of the hits, as extreme as the observed within tol */
};

/* The statistic of a relabelling: the sum s of the detrended values over
 * its arm, over its own standard deviation under no difference (sqrt(a'Ma)
 * times sigma): a relabelling whose contrast the time terms partly absorb
 * is not compared with a balanced one on a different scale.  0 when the
 * time terms absorb it whole. */
static double statistic(const struct perm *p, double s, const double *u)
{
	double q = trend_q(p->tr, p->k, u);
	return q > 1e-9 * (double)p->k ? s / sqrt(q) : 0;
}

/* Counts a relabelling's statistic s: a hit when it is as extreme as the
 * observed one, a tie when within tol of it. */
static void count(struct perm *p, double s)
{
	bool hit, tie;
	switch (p->sides) {
	case 1:
		hit = s >= p->obs - p->tol;
		tie = fabs(s - p->obs) <= p->tol;
		break;
	case -1:
		hit = s <= p->obs + p->tol;
		tie = fabs(s - p->obs) <= p->tol;
		break;
	default:
		hit = fabs(s) >= fabs(p->obs) - p->tol;
		tie = fabs(fabs(s) - fabs(p->obs)) <= p->tol;
		break;
	}
	p->total++;
	p->hits += hit;
	p->ties += hit && tie;
}

/* Every k-subset of r[from..n): sum of the chosen so far is s, their
 * rows of the time columns sum to u. */
static void enumerate(struct perm *p, size_t from, size_t left, double s, const double *u)
{
	if (left == 0) {
		count(p, statistic(p, s, u));
		return;
	}
	for (size_t i = from; i + left <= p->n; i++) {
		const double *x = p->tr->x + 3 * i;
		double v[3] = { u[0] + x[0], u[1] + x[1], u[2] + x[2] };
		enumerate(p, i + 1, left - 1, s + p->r[i], v);
	}
}

/* splitmix64: the Monte Carlo draws, the same on every machine */
static uint64_t mix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* STATS_PERM_DRAWS random k-subsets (partial Fisher-Yates over idx). */
static void draw(struct perm *p, size_t *idx)
{
	uint64_t seed = 20261203;
	for (size_t i = 0; i < p->n; i++)
		idx[i] = i;
	for (int d = 0; d < STATS_PERM_DRAWS; d++) {
		double s = 0, u[3] = { 0, 0, 0 };
		for (size_t i = 0; i < p->k; i++) {
			size_t j = i + (size_t)(mix(&seed) % (uint64_t)(p->n - i));
			size_t t = idx[i];
			idx[i] = idx[j];
			idx[j] = t;
			s += p->r[idx[i]];
			for (int c = 0; c < 3; c++)
				u[c] += p->tr->x[3 * idx[i] + c];
		}
		count(p, statistic(p, s, u));
	}
}

int stats_permutation_p(const struct stats_design *d, size_t base, size_t arm, unsigned time_terms,
                        double shift, int sides, double *out_p, double *out_p_min,
                        bool *out_exact, size_t *out_count)
{
	if (!d || base >= d->n_groups || arm >= d->n_groups || base == arm || !out_p)
		return -EINVAL;
	double *y = malloc((d->n ? d->n : 1) * 5 * sizeof *y);
	size_t *idx = malloc((d->n ? d->n : 1) * sizeof *idx);
	bool *lab = malloc((d->n ? d->n : 1) * sizeof *lab);
	if (!y || !idx || !lab) {
		free(y);
		free(idx);
		free(lab);
		return -ENOMEM;
	}
	double *t = y + (d->n ? d->n : 1);
	size_t n = 0, k = 0;
	bool timed = d->t != NULL;
	for (size_t i = 0; i < d->n; i++) {
		if (!isfinite(d->v[i]) || (d->group[i] != base && d->group[i] != arm))
			continue;
		bool a = d->group[i] == arm;
		y[n] = d->v[i] - (a ? shift : 0);
		t[n] = d->t ? d->t[i] : NAN;
		timed &= isfinite(t[n]);
		lab[n] = a;
		k += a;
		n++;
	}
	int rc = 0;
	if (k == 0 || k == n) {
		rc = -ENODATA;
		goto out;
	}
	struct trend tr = { .x = t + (d->n ? d->n : 1) };
	trend_init(&tr, timed ? t : NULL, n, timed ? time_terms : 0u);
	detrend(y, &tr, n);
	double scale = 0, obs = 0, u[3] = { 0, 0, 0 };
	for (size_t i = 0; i < n; i++) {
		scale = fmax(scale, fabs(y[i]));
		if (!lab[i])
			continue;
		obs += y[i];
		for (int c = 0; c < 3; c++)
			u[c] += tr.x[3 * i + c];
	}
	struct perm p = { .r = y, .tr = &tr, .n = n, .k = k, .sides = sides };
	p.obs = statistic(&p, obs, u);
	p.tol = 1e-9 * fmax(scale, 1e-300) * sqrt((double)n);
	double combos = choose(n, k);
	bool exact = combos <= STATS_PERM_EXACT_MAX;
	const double zero[3] = { 0, 0, 0 };
	if (exact)
		enumerate(&p, 0, k, 0, zero);
	else
		draw(&p, idx);
	/* the observed labelling, and for equal arms two-sided its mirror
	 * (the same statistic by symmetry), count half: the mid-p of
	 * distinct values.  Other relabellings that tie with it (tied
	 * values: levels, counts) count whole.  Monte Carlo: the observed
	 * labelling counts among the draws, half. */
	double own = sides == 2 && 2 * k == n ? 2.0 : 1.0;
	double pv = exact ? ((double)p.hits - fmin(own, (double)p.ties) / 2) / (double)p.total
	                  : ((double)p.hits + 0.5) / (double)(p.total + 1);
	*out_p = pv > 1 ? 1 : pv;
	if (out_p_min) {
		/* distinct values: one relabelling is the most extreme one way
		 * (it counts half), and for equal arms its mirror ties with it
		 * the other way */
		double m = (sides == 2 && 2 * k == n ? 1.0 : 0.5) / combos;
		if (!exact)
			m = fmax(m, 0.5 / (STATS_PERM_DRAWS + 1.0));
		*out_p_min = m;
	}
	if (out_exact)
		*out_exact = exact;
	if (out_count)
		*out_count = p.total;
out:
	free(y);
	free(idx);
	free(lab);
	return rc;
}

/* ---- levels ------------------------------------------------------------ */

struct item {
	double v;
	size_t g;
};

static int cmp_item(const void *a, const void *b)
{
	double x = ((const struct item *)a)->v, y = ((const struct item *)b)->v;
	return (x > y) - (x < y);
}

int stats_levels(const double *v, const size_t *group, size_t n, double min_gap,
                 double levels[STATS_MAX_LEVELS])
{
	struct item *s = malloc((n ? n : 1) * sizeof *s);
	if (!s)
		return 0;
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			s[m++] = (struct item){ v[i], group ? group[i] : 0 };
	int found = 0;
	if (m < 3)
		goto out;
	qsort(s, m, sizeof *s, cmp_item);
	double gmax = 0;
	for (size_t i = 1; i < m; i++)
		gmax = fmax(gmax, s[i].v - s[i - 1].v);
	if (!(gmax > 0) || gmax < min_gap)
		goto out;
	/* clusters: split at every gap at least half the largest */
	size_t start[STATS_MAX_LEVELS + 1];
	int nc = 1;
	start[0] = 0;
	double widest = 0;
	size_t from = 0;
	for (size_t i = 1; i <= m; i++) {
		if (i < m && s[i].v - s[i - 1].v < gmax / 2)
			continue;
		widest = fmax(widest, s[i - 1].v - s[from].v);
		if (i < m) {
			if (nc == STATS_MAX_LEVELS)
				goto out; /* more clusters than levels: a spread, not levels */
			start[nc++] = i;
		}
		from = i;
	}
	start[nc] = m;
	if (nc < 2 || gmax < 4 * widest)
		goto out;
	/* a level is where runs land again: one run alone is an outlier */
	for (int c = 0; c < nc; c++)
		if (start[c + 1] - start[c] < 2)
			goto out;
	/* some arm's runs in two clusters: otherwise it is a difference of arms */
	bool split = false;
	for (int c = 0; c < nc && !split; c++)
		for (size_t i = start[c]; i < start[c + 1] && !split; i++)
			for (int e = c + 1; e < nc && !split; e++)
				for (size_t j = start[e]; j < start[e + 1] && !split; j++)
					split = s[i].g == s[j].g;
	if (!split)
		goto out;
	for (int c = 0; c < nc; c++) {
		size_t a = start[c], b = start[c + 1], len = b - a;
		levels[c] = len % 2 ? s[a + len / 2].v : (s[a + len / 2 - 1].v + s[a + len / 2].v) / 2;
	}
	found = nc;
out:
	free(s);
	return found;
}

/* v at up to decimals digits, trailing zeros (and a bare point) dropped. */
static void num_text(char *buf, size_t size, double v, int decimals)
{
	snprintf(buf, size, "%.*f", decimals < 0 ? 0 : decimals, v);
	if (strchr(buf, '.')) {
		size_t l = strlen(buf);
		while (l > 0 && buf[l - 1] == '0')
			buf[--l] = 0;
		if (l > 0 && buf[l - 1] == '.')
			buf[--l] = 0;
	}
}

void stats_levels_text(const struct stats_metric_def *metric, const double *levels, int n,
                       char *buf, size_t size)
{
	static const char *const words[] = { "", "", "two", "three", "four" };
	if (!size)
		return;
	buf[0] = 0;
	if (n < 2 || n > STATS_MAX_LEVELS)
		return;
	size_t o = (size_t)snprintf(buf, size, "%s levels: ", words[n]);
	for (int i = 0; i < n && o < size; i++) {
		char t[48];
		num_text(t, sizeof t, levels[i], metric ? metric->decimals : 2);
		o += (size_t)snprintf(buf + o, size - o, "%s%s", i ? ", " : "", t);
	}
	if (o < size && metric && metric->unit && metric->unit[0])
		snprintf(buf + o, size - o, " %s", metric->unit);
}
