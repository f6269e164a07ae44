/* run-void: the void rules that need the whole campaign (DESIGN.md 5.3):
 * swapped heavily against the campaign's median, left the route (a shot
 * unlike the other arms' at the same point), clock throttling and heat.
 * The rules that one run decides alone (crashed, hung) are run-game.c's.
 * Every decision is taken over the runs as they stand before this call,
 * then written in one transaction; docs/running.md states the rules. */
#include "run.h"
#include "run-private.h"
#include "stats/stats.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct cand {
	const struct db_run *run;
	double swap_in, sclk, busy, temp;
	struct db_shot *shots;
	size_t n_shots;
	char reason[256];
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double metric(struct db *db, int64_t run, const char *name)
{
	double v;
	return db_metric_get(db, run, name, &v) == 0 ? v : NAN;
}

/* The median of the finite field values of every candidate. */
static double field_median(struct cand *c, size_t n, size_t offset, double *tmp)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		double v = *(const double *)((const char *)&c[i] + offset);
		if (isfinite(v))
			tmp[m++] = v;
	}
	return median(tmp, m);
}

/* The campaign's runs that count (done, not warm-ups), with what the rules
 * read: n candidates into c (room for every run).  0 or -errno with
 * errmsg set. */
static int load_candidates(struct db *db, const struct db_run *runs, size_t n_runs,
                           struct cand *c, size_t *n, char *errmsg, size_t errmsg_size)
{
	for (size_t i = 0; i < n_runs; i++) {
		if (runs[i].status != DB_RUN_DONE || runs[i].is_warmup)
			continue;
		struct cand *x = &c[(*n)++];
		x->run = &runs[i];
		x->swap_in = metric(db, runs[i].id, "swap_in");
		x->sclk = metric(db, runs[i].id, "gpu_sclk_mhz");
		x->busy = metric(db, runs[i].id, "gpu_busy_percent");
		x->temp = metric(db, runs[i].id, "gpu_temp_max_c");
		int rc = db_shots_read(db, runs[i].id, &x->shots, &x->n_shots);
		if (rc < 0)
			return run_errf(errmsg, errmsg_size, rc, "%s", db_errmsg(db));
	}
	return 0;
}

/* swapped heavily */
static void rule_swap(struct cand *c, size_t n, const struct plan_void_rules *rules, double *tmp)
{
	double swap_med = field_median(c, n, offsetof(struct cand, swap_in), tmp);
	if (!(rules->swap_factor > 0) || !isfinite(swap_med))
		return;
	for (size_t i = 0; i < n; i++) {
		double v = c[i].swap_in;
		if (!c[i].reason[0] && isfinite(v) && v > rules->swap_factor * swap_med &&
		    v > rules->swap_min_pages)
			snprintf(c[i].reason, sizeof c[i].reason,
			         "swapped heavily: %.0f pages swapped in, over %.3g x the campaign's "
			         "median of %.0f and over %.0f", v, rules->swap_factor, swap_med,
			         rules->swap_min_pages);
	}
}

/* left the route: each shot against the other arms' at that point,
 * by stats' rule (the report's shot grid applies the same one).  0 or
 * -errno. */
static int rule_left_route(struct cand *c, size_t n, const struct plan_void_rules *rules)
{
	if (!(rules->shot_luma > 0))
		return 0;
	size_t total = 0;
	for (size_t i = 0; i < n; i++)
		total += c[i].n_shots;
	struct stats_shot *others = calloc(total ? total : 1, sizeof *others);
	if (!others)
		return -ENOMEM;
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		for (size_t s = 0; s < c[i].n_shots && !c[i].reason[0]; s++) {
			const struct db_shot *mine = &c[i].shots[s];
			size_t m = 0;
			for (size_t j = 0; j < n; j++) {
				if (c[j].run->arm_id == c[i].run->arm_id)
					continue;
				for (size_t t = 0; t < c[j].n_shots; t++)
					if (strcmp(c[j].shots[t].name, mine->name) == 0)
						others[m++] = (struct stats_shot){
							c[j].shots[t].luma, c[j].shots[t].checksum
						};
			}
			struct stats_shot_verdict v;
			rc = stats_shot_compare(&(struct stats_shot){ mine->luma, mine->checksum },
			                        others, m, rules->shot_luma, &v);
			if (rc < 0)
				break;
			if (v.differs)
				snprintf(c[i].reason, sizeof c[i].reason,
				         "left the route: shot '%s' has mean luma %.1f, the other arms' "
				         "median there is %.1f (tolerance %.3g)", mine->name, mine->luma,
				         v.median_luma, rules->shot_luma);
		}
	}
	free(others);
	return rc < 0 ? rc : 0;
}

/* clock throttling: a clock under the campaign's own, whatever the
 * arm's load.  Gating it on GPU busy voided only the busy arms' slow
 * runs (the treatment arms at 80-85 % busy, never the baseline at 71 %):
 * the same rule for every arm, or none. */
static void rule_clock(struct cand *c, size_t n, const struct plan_void_rules *rules, double *tmp)
{
	double sclk_med = field_median(c, n, offsetof(struct cand, sclk), tmp);
	if (!(rules->clock_drop_pct > 0) || !isfinite(sclk_med) || !(sclk_med > 0))
		return;
	for (size_t i = 0; i < n; i++) {
		double v = c[i].sclk;
		if (!c[i].reason[0] && isfinite(v) && v < sclk_med * (1 - rules->clock_drop_pct / 100))
			snprintf(c[i].reason, sizeof c[i].reason,
			         "clock throttled: GPU clock %.0f MHz (median in the window), %.0f %% "
			         "under the campaign's %.0f MHz", v, (1 - v / sclk_med) * 100, sclk_med);
	}
}

/* heat */
static void rule_heat(struct cand *c, size_t n, const struct plan_void_rules *rules)
{
	if (!(rules->temp_max_c > 0))
		return;
	for (size_t i = 0; i < n; i++)
		if (!c[i].reason[0] && isfinite(c[i].temp) && c[i].temp >= rules->temp_max_c)
			snprintf(c[i].reason, sizeof c[i].reason,
			         "thermal throttling: the GPU reached %.0f C (limit %.0f C)", c[i].temp,
			         rules->temp_max_c);
}

/* Every candidate with a reason marked void, in one transaction.  0 or
 * -errno with errmsg set. */
static int write_voids(struct db *db, const struct cand *c, size_t n, size_t *voided,
                       char *errmsg, size_t errmsg_size)
{
	int rc = db_begin(db);
	if (rc < 0)
		return run_errf(errmsg, errmsg_size, rc, "%s", db_errmsg(db));
	for (size_t i = 0; i < n; i++) {
		if (!c[i].reason[0])
			continue;
		if ((rc = db_run_mark_void(db, c[i].run->id, c[i].reason, 0, -1)) < 0) {
			run_errf(errmsg, errmsg_size, rc, "%s", db_errmsg(db));
			db_rollback(db);
			return rc;
		}
		(*voided)++;
	}
	if ((rc = db_commit(db)) < 0) {
		run_errf(errmsg, errmsg_size, rc, "%s", db_errmsg(db));
		db_rollback(db);
		return rc;
	}
	return 0;
}

int run_void_apply(struct db *db, int64_t campaign_id, const struct plan_void_rules *rules,
                   size_t *n_voided, char *errmsg, size_t errmsg_size)
{
	struct db_run *runs = NULL;
	size_t n_runs = 0;
	int rc = db_run_list(db, campaign_id, &runs, &n_runs);
	if (rc < 0)
		return run_errf(errmsg, errmsg_size, rc, "%s", db_errmsg(db));
	struct cand *c = calloc(n_runs ? n_runs : 1, sizeof *c);
	double *tmp = calloc(n_runs ? n_runs : 1, sizeof *tmp);
	size_t n = 0, voided = 0;
	if (!c || !tmp) {
		rc = -ENOMEM;
		goto out;
	}
	if ((rc = load_candidates(db, runs, n_runs, c, &n, errmsg, errmsg_size)) < 0)
		goto out;
	/* every rule reads the runs as they stand; the first reason wins */
	rule_swap(c, n, rules, tmp);
	if ((rc = rule_left_route(c, n, rules)) < 0)
		goto out;
	rule_clock(c, n, rules, tmp);
	rule_heat(c, n, rules);
	if ((rc = write_voids(db, c, n, &voided, errmsg, errmsg_size)) < 0)
		goto out;
	if (n_voided)
		*n_voided = voided;
out:
	if (c)
		for (size_t i = 0; i < n; i++)
			free(c[i].shots);
	free(c);
	free(tmp);
	free(runs);
	return rc < 0 ? rc : 0;
}
