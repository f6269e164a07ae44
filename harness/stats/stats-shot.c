/* stats-shot: whether a route shot differs from others taken at the same
 * point of the route.
 *
 * It owns the one rule both the void check ("left the route", run-void.c)
 * and the report's shot grid (report-html.c) apply, so a shot the grid
 * marks is exactly one the void check would count (docs/running.md, void
 * rules): a shot is like the others when one of them has its checksum;
 * otherwise it differs when its mean luma is more than the tolerance from
 * the median luma of the others.  Which shots count as "the others" is the
 * caller's choice (other arms for the void check, the baseline arm's for
 * the grid); reading shots is not done here.
 */
#include "stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int stats_shot_compare(const struct stats_shot *mine, const struct stats_shot *others, size_t n,
                       double tolerance, struct stats_shot_verdict *out)
{
	struct stats_shot_verdict v = { .median_luma = NAN };
	if (!mine || (n && !others))
		return -EINVAL;
	double *luma = malloc((n ? n : 1) * sizeof *luma);
	if (!luma)
		return -ENOMEM;
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (mine->checksum && others[i].checksum && mine->checksum[0] &&
		    strcmp(mine->checksum, others[i].checksum) == 0)
			v.same_checksum = true;
		if (isfinite(others[i].luma))
			luma[m++] = others[i].luma;
	}
	v.n_compared = m;
	if (m) {
		qsort(luma, m, sizeof *luma, cmp_double);
		v.median_luma = m % 2 ? luma[m / 2] : (luma[m / 2 - 1] + luma[m / 2]) / 2;
	}
	free(luma);
	v.differs = tolerance > 0 && !v.same_checksum && m > 0 && isfinite(mine->luma) &&
	            fabs(mine->luma - v.median_luma) > tolerance;
	*out = v;
	return 0;
}
