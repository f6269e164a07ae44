/* stats-across: the device x arm interaction of stats-across.h, from the
 * devices' own decisions.  It owns the pairwise comparison, its Holm
 * adjustment and the whole's state; the devices' decisions are
 * stats-verdict.c's, the report of them report-across.c's. */
#include "stats-across.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

const char *stats_across_state_name(enum stats_across_state s)
{
	switch (s) {
	case STATS_ACROSS_SAME: return "same";
	case STATS_ACROSS_DIFFERS: return "differs";
	case STATS_ACROSS_UNDECIDED:
	default: return "undecided";
	}
}

int stats_device_effect_from_decision(const struct stats_decision *d, double base_mean,
                                      struct stats_device_effect *out)
{
	*out = (struct stats_device_effect){ .effect_pct = NAN, .se_pct = NAN, .df = NAN };
	if (d->method == STATS_METHOD_NONE || d->df < 1 || !isfinite(d->ci_low) ||
	    !isfinite(d->ci_high) || !isfinite(d->delta) || !isfinite(base_mean) || base_mean == 0)
		return -ENODATA;
	double se = d->se;
	if (!isfinite(se))
		return -ENODATA;
	double scale = 100.0 / fabs(base_mean);
	out->effect_pct = d->delta * scale;
	/* where the decision widened its interval by the resolution (the
	 * spread within it: rounding may be systematic), that rounding is
	 * noise here too, half a step on each mean; beyond, s carries it */
	double r = d->widened ? d->resolution : 0;
	out->se_pct = sqrt(se * se + r * r / 6) * scale;
	out->df = d->df;
	out->usable = true;
	return 0;
}

/* One pair's difference, its Welch–Satterthwaite df, raw p and interval at
 * the family's Bonferroni level. */
static void compare_pair(const struct stats_device_effect *x, const struct stats_device_effect *y,
                         double alpha_each, struct stats_across_pair *p)
{
	double vx = x->se_pct * x->se_pct, vy = y->se_pct * y->se_pct;
	p->diff_pct = x->effect_pct - y->effect_pct;
	p->se_pct = sqrt(vx + vy);
	double den = vx * vx / x->df + vy * vy / y->df;
	p->df = den > 0 ? (vx + vy) * (vx + vy) / den : fmin(x->df, y->df);
	/* the t routines take whole degrees of freedom: round down (conservative) */
	double df = fmax(1.0, floor(p->df));
	if (p->se_pct > 0) {
		p->p_raw = stats_t_p_two_sided(fabs(p->diff_pct) / p->se_pct, df);
		double half = stats_t_quantile_two_sided(alpha_each, df) * p->se_pct;
		p->ci_low = p->diff_pct - half;
		p->ci_high = p->diff_pct + half;
	} else {
		p->p_raw = p->diff_pct != 0 ? 0.0 : 1.0;
		p->ci_low = p->ci_high = p->diff_pct;
	}
}

/* The device whose effect departs most from the mean of the others'. */
static void find_odd(const struct stats_device_effect *dev, const size_t *used, size_t m,
                     struct stats_across *a)
{
	double best = -1, best_size = -1;
	for (size_t i = 0; i < m; i++) {
		double others = 0;
		for (size_t j = 0; j < m; j++)
			if (j != i)
				others += dev[used[j]].effect_pct;
		others /= (double)(m - 1);
		double off = dev[used[i]].effect_pct - others;
		double size = fabs(dev[used[i]].effect_pct);
		if (fabs(off) > best + 1e-9 || (fabs(off) > best - 1e-9 && size > best_size)) {
			best = fabs(off);
			best_size = size;
			a->odd = used[i];
			a->odd_diff_pct = off;
		}
	}
}

int stats_across_decide(const struct stats_device_effect *dev, size_t n, double alpha,
                        double min_effect_pct, struct stats_across *out)
{
	if (n > STATS_ACROSS_MAX_DEVICES || !(min_effect_pct > 0) || !isfinite(min_effect_pct))
		return -EINVAL;
	alpha = alpha > 0 && alpha < 1 ? alpha : 0.05;
	size_t used[STATS_ACROSS_MAX_DEVICES], m = 0;
	for (size_t i = 0; i < n; i++)
		if (dev[i].usable && isfinite(dev[i].effect_pct) && isfinite(dev[i].se_pct) &&
		    dev[i].df >= 1)
			used[m++] = i;
	if (m < 2)
		return -ENODATA;
	size_t np = m * (m - 1) / 2;
	struct stats_across a = { .n_devices = n, .alpha = alpha, .min_effect_pct = min_effect_pct,
	                          .odd_diff_pct = NAN, .n_pairs = np };
	a.pairs = calloc(np, sizeof *a.pairs);
	double *p = malloc(np * sizeof *p), *adj = malloc(np * sizeof *adj);
	if (!a.pairs || !p || !adj) {
		free(a.pairs);
		free(p);
		free(adj);
		return -ENOMEM;
	}
	size_t k = 0;
	for (size_t i = 0; i < m; i++)
		for (size_t j = i + 1; j < m; j++, k++) {
			a.pairs[k].a = used[i];
			a.pairs[k].b = used[j];
			compare_pair(&dev[used[i]], &dev[used[j]], alpha / (double)np, &a.pairs[k]);
			p[k] = a.pairs[k].p_raw;
		}
	int err = stats_holm(p, np, adj);
	free(p);
	if (err) {
		free(adj);
		free(a.pairs);
		return err;
	}
	bool any_differs = false, all_same = true;
	for (k = 0; k < np; k++) {
		struct stats_across_pair *q = &a.pairs[k];
		q->p = adj[k];
		if (isfinite(q->p) && q->p < alpha && fabs(q->diff_pct) >= min_effect_pct)
			q->state = STATS_ACROSS_DIFFERS;
		else if (q->df >= 2 && q->ci_low >= -min_effect_pct && q->ci_high <= min_effect_pct)
			q->state = STATS_ACROSS_SAME;
		any_differs = any_differs || q->state == STATS_ACROSS_DIFFERS;
		all_same = all_same && q->state == STATS_ACROSS_SAME;
	}
	free(adj);
	a.state = any_differs ? STATS_ACROSS_DIFFERS : all_same ? STATS_ACROSS_SAME
	                                                        : STATS_ACROSS_UNDECIDED;
	find_odd(dev, used, m, &a);
	*out = a;
	return 0;
}

void stats_across_finish(struct stats_across *a)
{
	if (!a)
		return;
	free(a->pairs);
	a->pairs = NULL;
	a->n_pairs = 0;
}
