/* report-across: one plan's campaigns from several hosts read as one
 * table (report-across.h).  It owns finding the campaigns (a name and its
 * NAME@HOST copies), checking they ran one plan, the device header, the
 * per-arm side-by-side verdicts and the across-devices verdict in
 * Markdown, JSON and HTML.  Each device's numbers are report_data_load()'s
 * (the single-campaign report's, unchanged); the interaction test is
 * stats-across.c's. */
#include "report-across.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "report-private.h"
#include "results-db/db.h"
#include "stats/stats-across.h"

/* One device: a campaign, its numbers and the facts at its start. */
struct device {
	struct report_data *rd;
	json_t *facts;        /* the start's host facts; NULL when none stored */
	char label[128];      /* the host name, unique among the devices */
	bool partial;
	size_t runs_finished, runs;
	double clock_mhz;     /* the GPU clock the baseline ran at; NaN: not sampled */
};

/* One arm's metric across the devices. */
struct cell {
	bool has_across;      /* a primary metric with two or more usable devices */
	struct stats_across across;
	struct stats_device_effect *eff;  /* per device */
	bool *has_dec;                    /* per device */
	const struct stats_decision **dec;
};

struct across {
	struct device *dev;
	size_t n;
	size_t *arm_of;       /* [arm * n + d]: the arm's index in device d's data */
	size_t n_arms;        /* arms but the baseline, in device 0's order */
	size_t *arm0;         /* their indices in device 0's data */
	size_t n_metrics;
	struct cell *cells;   /* [arm * n_metrics + m] */
	double alpha;         /* the level the across-devices verdicts are made at */
};

/* ---- loading ---------------------------------------------------------- */

static const char *fact(const struct device *d, const char *key)
{
	return json_string_value(json_object_get(d->facts, key));
}

static void across_free(struct across *a)
{
	if (!a)
		return;
	for (size_t i = 0; a->cells && i < a->n_arms * a->n_metrics; i++) {
		stats_across_finish(&a->cells[i].across);
		free(a->cells[i].eff);
		free(a->cells[i].has_dec);
		free(a->cells[i].dec);
	}
	free(a->cells);
	for (size_t d = 0; d < a->n; d++) {
		report_data_destroy(a->dev[d].rd);
		json_decref(a->dev[d].facts);
	}
	free(a->dev);
	free(a->arm_of);
	free(a->arm0);
	free(a);
}

/* The device's label: its host, else its campaign's name; "#2" after a
 * label already taken. */
static void label_device(struct across *a, size_t d)
{
	struct device *dv = &a->dev[d];
	const struct db_campaign *c = dv->rd->campaign;
	const char *host = c->host ? c->host : fact(dv, "host");
	snprintf(dv->label, sizeof dv->label, "%s", host && host[0] ? host : c->name);
	for (int k = 2;; k++) {
		bool taken = false;
		for (size_t e = 0; e < d; e++)
			taken = taken || strcmp(a->dev[e].label, dv->label) == 0;
		if (!taken)
			break;
		snprintf(dv->label, sizeof dv->label, "%s#%d", host && host[0] ? host : c->name, k);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The GPU shader clock in force for the baseline: the median over its
 * usable runs of each run's median gpu_sclk_mhz sample in the window (all
 * its samples when the run has no route start).  NaN without samples. */
static double baseline_clock(struct db *db, const struct report_data *rd)
{
	const struct report_arm *a = &rd->arms[rd->base];
	const struct db_campaign *c = rd->campaign;
	double *per_run = calloc(a->n_runs + 1, sizeof *per_run);
	size_t n_runs = 0;
	for (size_t k = 0; per_run && k < a->n_runs; k++) {
		const struct report_run *r = &rd->runs[a->runs[k]];
		struct db_sample *s;
		size_t n;
		if (r->is_void || db_samples_read(db, r->run->id, REPORT_SAMPLE_SCLK, &s, &n) != 0)
			continue;
		double *v = calloc(n + 1, sizeof *v);
		size_t m = 0;
		for (size_t i = 0; v && i < n; i++) {
			double t = (double)(s[i].t_ns - r->t0_ns) / 1e9;
			if (s[i].absent || !isfinite(s[i].value) ||
			    (r->has_t0 && !(t > c->window_start_s && t <= c->window_end_s)))
				continue;
			v[m++] = s[i].value;
		}
		if (m)
			per_run[n_runs++] = median(v, m);
		free(v);
		free(s);
	}
	double clock = per_run ? median(per_run, n_runs) : NAN;
	free(per_run);
	return clock;
}

static int load_device(struct db *db, int64_t id, const struct report_options *opts,
                       struct device *dv)
{
	int err = report_data_load(db, id, opts, &dv->rd);
	if (err)
		return err;
	const struct report_data *rd = dv->rd;
	if (rd->n_hosts && rd->hosts[0].facts)
		dv->facts = json_loads(rd->hosts[0].facts, 0, NULL);
	for (size_t i = 0; i < rd->n_db_runs; i++) {
		const struct db_run *r = &rd->db_runs[i];
		dv->runs++;
		dv->runs_finished += r->status == DB_RUN_DONE || r->status == DB_RUN_VOID;
	}
	dv->partial = rd->campaign->status == DB_CAMPAIGN_OPEN || dv->runs_finished < dv->runs;
	dv->clock_mhz = baseline_clock(db, rd);
	return 0;
}

/* The arms every device has, but the baseline; refuses other plans. */
static int match_arms(struct across *a, const struct report_options *opts)
{
	const struct report_data *r0 = a->dev[0].rd;
	for (size_t d = 1; d < a->n; d++) {
		const struct report_data *rd = a->dev[d].rd;
		const char *p0 = r0->campaign->plan_text, *pd = rd->campaign->plan_text;
		if (p0 && pd && strcmp(p0, pd) != 0)
			return report_fail(opts, -EINVAL, "campaigns '%s' and '%s' ran different plans "
			                   "(their plan texts differ): --across compares one plan's "
			                   "campaigns", r0->campaign->name, rd->campaign->name);
		if (rd->arms[rd->base].arm->letter != r0->arms[r0->base].arm->letter)
			return report_fail(opts, -EINVAL, "campaign '%s' has no baseline arm %c",
			                   rd->campaign->name, r0->arms[r0->base].arm->letter);
	}
	a->arm0 = calloc(r0->n_arms + 1, sizeof *a->arm0);
	a->arm_of = calloc((r0->n_arms + 1) * a->n, sizeof *a->arm_of);
	if (!a->arm0 || !a->arm_of)
		return report_fail(opts, -ENOMEM, "out of memory");
	for (size_t i = 0; i < r0->n_arms; i++) {
		if (i == r0->base)
			continue;
		char letter = r0->arms[i].arm->letter;
		bool everywhere = true;
		for (size_t d = 0; d < a->n; d++) {
			const struct report_data *rd = a->dev[d].rd;
			size_t k = 0;
			while (k < rd->n_arms && rd->arms[k].arm->letter != letter)
				k++;
			if (k == rd->n_arms) {
				everywhere = false;
				break;
			}
			a->arm_of[a->n_arms * a->n + d] = k;
		}
		if (everywhere)
			a->arm0[a->n_arms++] = i;
	}
	if (a->n_arms == 0)
		return report_fail(opts, -ENODATA, "the campaigns have no arm but the baseline in "
		                   "common");
	return 0;
}

/* Each arm's metrics: the devices' decisions side by side and, for a
 * primary metric, whether the effect is the same everywhere. */
static int decide_cells(struct across *a, const struct report_options *opts)
{
	a->n_metrics = a->dev[0].rd->n_metrics;
	a->alpha = 1;
	for (size_t d = 0; d < a->n; d++)
		a->alpha = fmin(a->alpha, a->dev[d].rd->alpha > 0 ? a->dev[d].rd->alpha : 0.05);
	a->cells = calloc(a->n_arms * a->n_metrics + 1, sizeof *a->cells);
	if (!a->cells)
		return report_fail(opts, -ENOMEM, "out of memory");
	const struct report_data *r0 = a->dev[0].rd;
	for (size_t k = 0; k < a->n_arms; k++)
		for (size_t m = 0; m < a->n_metrics; m++) {
			struct cell *c = &a->cells[k * a->n_metrics + m];
			c->eff = calloc(a->n, sizeof *c->eff);
			c->has_dec = calloc(a->n, sizeof *c->has_dec);
			c->dec = calloc(a->n, sizeof *c->dec);
			if (!c->eff || !c->has_dec || !c->dec)
				return report_fail(opts, -ENOMEM, "out of memory");
			for (size_t d = 0; d < a->n; d++) {
				const struct report_data *rd = a->dev[d].rd;
				const struct report_arm *arm = &rd->arms[a->arm_of[k * a->n + d]];
				const struct report_arm *base = &rd->arms[rd->base];
				c->has_dec[d] = arm->has_dec && arm->has_dec[m];
				if (!c->has_dec[d])
					continue;
				c->dec[d] = &arm->dec[m];
				double mean = base->has_sum && base->has_sum[m] ? base->sum[m].mean : NAN;
				stats_device_effect_from_decision(&arm->dec[m], mean, &c->eff[d]);
			}
			if (!r0->primary[m])
				continue;
			int err = stats_across_decide(c->eff, a->n, a->alpha, r0->min_effect_pct[m],
			                              &c->across);
			if (err == -ENOMEM)
				return report_fail(opts, err, "out of memory");
			c->has_across = err == 0;
		}
	return 0;
}

static int across_load(struct db *db, const int64_t *ids, size_t n,
                       const struct report_options *opts, struct across **out)
{
	if (n < 2)
		return report_fail(opts, -EINVAL, "--across needs two campaigns or more");
	if (n > STATS_ACROSS_MAX_DEVICES)
		return report_fail(opts, -EINVAL, "--across compares at most %d campaigns",
		                   STATS_ACROSS_MAX_DEVICES);
	struct across *a = calloc(1, sizeof *a);
	if (!a || !(a->dev = calloc(n, sizeof *a->dev))) {
		free(a);
		return report_fail(opts, -ENOMEM, "out of memory");
	}
	int err = 0;
	for (size_t d = 0; d < n && !err; d++) {
		err = load_device(db, ids[d], opts, &a->dev[d]);
		if (!err) {
			a->n = d + 1;
			label_device(a, d);
		}
	}
	if (!err)
		err = match_arms(a, opts);
	if (!err)
		err = decide_cells(a, opts);
	if (err) {
		across_free(a);
		return err;
	}
	*out = a;
	return 0;
}

/* ---- words ------------------------------------------------------------ */

static const struct report_arm *arm_at(const struct across *a, size_t k, size_t d)
{
	return &a->dev[d].rd->arms[a->arm_of[k * a->n + d]];
}

/* "B (early readback)" */
static void arm_name(const struct across *a, size_t k, char *buf, size_t size)
{
	const struct db_arm *arm = arm_at(a, k, 0)->arm;
	if (arm->label && arm->label[0])
		snprintf(buf, size, "%c (%s)", arm->letter, arm->label);
	else
		snprintf(buf, size, "%c", arm->letter);
}

/* "-12.3 % slower" for a device's decision; "no decision" without one.
 * Returns buf. */
static const char *verdict_text(const struct cell *c, size_t d, char *buf, size_t size)
{
	if (!c->has_dec[d]) {
		snprintf(buf, size, "no decision");
		return buf;
	}
	const struct stats_decision *dv = c->dec[d];
	if (isfinite(dv->delta_pct))
		snprintf(buf, size, "%+.1f %% %s", dv->delta_pct, stats_state_name(dv->state));
	else
		snprintf(buf, size, "%s", stats_state_name(dv->state));
	return buf;
}

static void p_text(double p, char *buf, size_t size)
{
	if (!isfinite(p))
		snprintf(buf, size, "-");
	else if (p < 0.0001)
		snprintf(buf, size, "< 0.0001");
	else
		snprintf(buf, size, "%.4f", p);
}

/* The pair that decides the headline: the differing one of largest |diff|,
 * else the one of largest |diff|. */
static const struct stats_across_pair *main_pair(const struct stats_across *s)
{
	const struct stats_across_pair *best = NULL;
	for (size_t i = 0; i < s->n_pairs; i++) {
		const struct stats_across_pair *p = &s->pairs[i];
		bool better = !best ||
		              (p->state == STATS_ACROSS_DIFFERS) > (best->state == STATS_ACROSS_DIFFERS) ||
		              ((p->state == STATS_ACROSS_DIFFERS) == (best->state == STATS_ACROSS_DIFFERS) &&
		               fabs(p->diff_pct) > fabs(best->diff_pct));
		if (better)
			best = p;
	}
	return best;
}

/* The answer for an arm's primary metric, one sentence. */
static void headline(const struct across *a, size_t k, size_t m, char *buf, size_t size)
{
	const struct cell *c = &a->cells[k * a->n_metrics + m];
	const char *label = stats_metrics[m].label;
	if (!c->has_across) {
		snprintf(buf, size, "%s: not compared across devices (fewer than two devices have "
		         "an interval)", label);
		return;
	}
	const struct stats_across *s = &c->across;
	const struct stats_across_pair *p = main_pair(s);
	char effects[512] = "";
	size_t used = 0;
	for (size_t d = 0; d < a->n; d++) {
		char v[64];
		verdict_text(c, d, v, sizeof v);
		int w = snprintf(effects + used, sizeof effects - used, "%s%s %s",
		                 d ? (d + 1 == a->n ? " and " : ", ") : "", a->dev[d].label, v);
		if (w > 0 && used + (size_t)w < sizeof effects)
			used += (size_t)w;
	}
	char pt[32];
	p_text(p->p, pt, sizeof pt);
	double level = 100 * (1 - a->alpha / (double)s->n_pairs);
	switch (s->state) {
	case STATS_ACROSS_SAME:
		snprintf(buf, size, "%s: **the same on every device** (%s; the largest difference "
		         "%.1f points, %.4g %% interval %.1f to %.1f, within ±%.2g)", label, effects,
		         fabs(p->diff_pct), level, p->ci_low, p->ci_high, s->min_effect_pct);
		break;
	case STATS_ACROSS_DIFFERS: {
		const struct device *odd = &a->dev[s->odd];
		snprintf(buf, size, "%s: **differs by device: %s** is %.1f points %s the others "
		         "(%s; %s against %s: %+.1f points, %.4g %% interval %+.1f to %+.1f, p %s)",
		         label, odd->label, fabs(s->odd_diff_pct),
		         s->odd_diff_pct < 0 ? "below" : "above", effects, a->dev[p->a].label,
		         a->dev[p->b].label, p->diff_pct, level, p->ci_low, p->ci_high, pt);
		break;
	}
	case STATS_ACROSS_UNDECIDED:
	default:
		snprintf(buf, size, "%s: not decided across devices (%s; the largest difference "
		         "%.1f points, %.4g %% interval %.1f to %.1f, p %s; minimum effect %.2g points)",
		         label, effects, fabs(p->diff_pct), level, p->ci_low, p->ci_high, pt,
		         s->min_effect_pct);
		break;
	}
}

/* "auto, 15 W, 1600 MHz" from the facts and the baseline's clock samples;
 * "-" for what is not known. */
/* ---- an arm's table, for either format -------------------------------- */

/* "B (early readback)" in name; the baseline's letter. */
static char arm_title(const struct across *a, size_t k, char *name, size_t size)
{
	const struct report_data *r0 = a->dev[0].rd;
	arm_name(a, k, name, size);
	return r0->arms[r0->base].arm->letter;
}

/* What one metric's row of an arm's table says; Markdown and HTML only
 * dress it. */
struct row {
	const char *metric;        /* stats_metrics[m].label */
	const char *primary;       /* " (primary)" or "" */
	const struct cell *c;      /* each device's verdict: verdict_text(c, d) */
	const char *not_compared;  /* "not compared" (a primary) or "-" without an
	                              across-devices verdict; NULL with one */
	const char *state;         /* stats_across_state_name() */
	const char *odd;           /* "differs": the device that differs; else NULL */
	double odd_diff_pct;       /* its difference, points */
	double largest_diff_pct;   /* the largest pairwise difference, points */
	char p[32];                /* p_text() of the main pair */
};

/* Metric m's row of arm k's table into *r; false when no device decided it, and the row is left out. */
static bool arm_row(const struct across *a, size_t k, size_t m, struct row *r)
{
	const struct report_data *r0 = a->dev[0].rd;
	const struct cell *c = &a->cells[k * a->n_metrics + m];
	bool any = false;
	for (size_t d = 0; d < a->n; d++)
		any = any || c->has_dec[d];
	if (!any)
		return false;
	*r = (struct row){ .c = c, .metric = stats_metrics[m].label,
		           .primary = r0->primary[m] ? " (primary)" : "" };
	if (!c->has_across) {
		r->not_compared = r0->primary[m] ? "not compared" : "-";
		return true;
	}
	const struct stats_across_pair *p = main_pair(&c->across);
	p_text(p->p, r->p, sizeof r->p);
	r->state = stats_across_state_name(c->across.state);
	r->largest_diff_pct = fabs(p->diff_pct);
	if (c->across.state == STATS_ACROSS_DIFFERS) {
		r->odd = a->dev[c->across.odd].label;
		r->odd_diff_pct = c->across.odd_diff_pct;
	}
	return true;
}

static void power_text(const struct device *d, char *buf, size_t size)
{
	const char *level = fact(d, "gpu_level");
	json_t *tdp = json_object_get(d->facts, "tdp_w");
	char w[32] = "-", mhz[32] = "-";
	if (json_is_number(tdp))
		snprintf(w, sizeof w, "%.3g W", json_number_value(tdp));
	if (isfinite(d->clock_mhz))
		snprintf(mhz, sizeof mhz, "%.0f MHz", d->clock_mhz);
	snprintf(buf, size, "%s, %s, %s", level ? level : "-", w, mhz);
}

static void os_text(const struct device *d, char *buf, size_t size)
{
	const char *os = fact(d, "os"), *ver = fact(d, "os_version"), *build = fact(d, "os_build");
	if (!os)
		os = d->rd->campaign->os;
	snprintf(buf, size, "%s%s%s%s%s", os ? os : "-", ver && os && !strstr(os, ver) ? " " : "",
	         ver && os && !strstr(os, ver) ? ver : "", build ? " build " : "", build ? build : "");
}

static void runs_text(const struct device *d, char *buf, size_t size)
{
	snprintf(buf, size, "%zu of %zu finished%s", d->runs_finished, d->runs,
	         d->partial ? " (partial)" : "");
}

/* The header's rows: name, then one value per device. */
enum { ROW_CAMPAIGN, ROW_MODEL, ROW_OS, ROW_KERNEL, ROW_GPU, ROW_MESA, ROW_POWER, ROW_RUNS,
       ROW_STOP, N_ROWS };
static const char *const row_names[N_ROWS] = { "campaign", "device", "OS", "kernel", "GPU",
	                                       "Mesa", "GPU level, TDP, clock", "runs", "stopped" };

static void row_value(const struct device *d, int row, char *buf, size_t size)
{
	const struct db_campaign *c = d->rd->campaign;
	const char *v = NULL;
	switch (row) {
	case ROW_CAMPAIGN: v = c->name; break;
	case ROW_MODEL: v = fact(d, "device_model") ? fact(d, "device_model") : c->device_model; break;
	case ROW_OS: os_text(d, buf, size); return;
	case ROW_KERNEL: v = fact(d, "kernel") ? fact(d, "kernel") : c->kernel; break;
	case ROW_GPU: v = c->gpu; break;
	case ROW_MESA: v = fact(d, "mesa") ? fact(d, "mesa") : c->mesa; break;
	case ROW_POWER: power_text(d, buf, size); return;
	case ROW_RUNS: runs_text(d, buf, size); return;
	case ROW_STOP: report_stop_text(d->rd, buf, size); if (!buf[0]) snprintf(buf, size, "-"); return;
	default: break;
	}
	snprintf(buf, size, "%s", v ? v : "-");
}

/* ---- Markdown ---------------------------------------------------------- */

static void md_title(const struct across *a, FILE *out, const char *hashes)
{
	const struct report_data *r0 = a->dev[0].rd;
	fprintf(out, "%s Across devices: ", hashes);
	report_md_text(out, r0->campaign->name);
	fprintf(out, " on %zu devices, baseline %c\n\n", a->n, r0->arms[r0->base].arm->letter);
}

static void md_header(const struct across *a, FILE *out)
{
	fputs("| |", out);
	for (size_t d = 0; d < a->n; d++) {
		fputc(' ', out);
		report_md_text(out, a->dev[d].label);
		fputs(" |", out);
	}
	fputs("\n|---|", out);
	for (size_t d = 0; d < a->n; d++)
		fputs("---|", out);
	fputc('\n', out);
	for (int row = 0; row < N_ROWS; row++) {
		fprintf(out, "| %s |", row_names[row]);
		for (size_t d = 0; d < a->n; d++) {
			char v[512];
			row_value(&a->dev[d], row, v, sizeof v);
			fputc(' ', out);
			if (row == ROW_CAMPAIGN)
				report_md_code(out, v);
			else
				report_md_text(out, v);
			fputs(" |", out);
		}
		fputc('\n', out);
	}
	fputc('\n', out);
}

static void md_headlines(const struct across *a, FILE *out)
{
	for (size_t k = 0; k < a->n_arms; k++) {
		char name[160];
		arm_name(a, k, name, sizeof name);
		for (size_t m = 0; m < a->n_metrics; m++) {
			if (!a->dev[0].rd->primary[m])
				continue;
			char line[2048];
			headline(a, k, m, line, sizeof line);
			fputs("- **", out);
			report_md_text(out, name);
			fputs("**, ", out);
			/* the line's own ** marks are Markdown; the names in it are plain words */
			fputs(line, out);
			fputc('\n', out);
		}
	}
	fputc('\n', out);
}

static void md_arm_table(const struct across *a, size_t k, FILE *out, const char *hashes)
{
	char name[160];
	char base = arm_title(a, k, name, sizeof name);
	fprintf(out, "%s ", hashes);
	report_md_text(out, name);
	fprintf(out, " against %c\n\n| metric |", base);
	for (size_t d = 0; d < a->n; d++) {
		fputc(' ', out);
		report_md_text(out, a->dev[d].label);
		fputs(" |", out);
	}
	fputs(" across devices |\n|---|", out);
	for (size_t d = 0; d <= a->n; d++)
		fputs("---|", out);
	fputc('\n', out);
	struct row r;
	for (size_t m = 0; m < a->n_metrics; m++) {
		if (!arm_row(a, k, m, &r))
			continue;
		fprintf(out, "| %s%s |", r.metric, r.primary);
		for (size_t d = 0; d < a->n; d++) {
			char v[64];
			fprintf(out, " %s |", verdict_text(r.c, d, v, sizeof v));
		}
		if (r.not_compared)
			fprintf(out, " %s |\n", r.not_compared);
		else if (r.odd) {
			fputs(" differs: ", out);
			report_md_text(out, r.odd);
			fprintf(out, " %+.1f points (p %s) |\n", r.odd_diff_pct, r.p);
		} else {
			fprintf(out, " %s (largest difference %.1f points, p %s) |\n", r.state,
			        r.largest_diff_pct, r.p);
		}
	}
	fputc('\n', out);
}

static void md_body(const struct across *a, FILE *out, const char *hashes)
{
	md_header(a, out);
	md_headlines(a, out);
	for (size_t k = 0; k < a->n_arms; k++)
		md_arm_table(a, k, out, hashes);
	fprintf(out, "Each device's verdict is its own campaign's decision (docs/metrics.md); "
	        "\"across devices\" compares the primary metrics' effects, %% of each device's "
	        "baseline, between devices at %.3g with Holm over pairs (docs/fleet.md).\n",
	        a->alpha);
	for (size_t d = 0; d < a->n; d++)
		if (a->dev[d].partial) {
			fputs("\nPartial: ", out);
			report_md_text(out, a->dev[d].label);
			fprintf(out, " finished %zu of its %zu runs; its verdicts are over those.\n",
			        a->dev[d].runs_finished, a->dev[d].runs);
		}
}

/* ---- JSON ----------------------------------------------------------------- */

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *device_json(const struct device *d)
{
	json_t *o = json_object();
	const struct db_campaign *c = d->rd->campaign;
	char buf[512];
	json_object_set_new(o, "label", json_string(d->label));
	json_object_set_new(o, "campaign", json_string(c->name));
	json_object_set_new(o, "campaign_id", json_integer(c->id));
	json_object_set_new(o, "host", jstr(c->host));
	for (int row = ROW_MODEL; row < N_ROWS; row++) {
		static const char *const keys[N_ROWS] = { NULL, "device_model", "os", "kernel", "gpu",
			                                  "mesa", NULL, NULL, "stopped" };
		if (!keys[row])
			continue;
		row_value(d, row, buf, sizeof buf);
		json_object_set_new(o, keys[row], strcmp(buf, "-") ? json_string(buf) : json_null());
	}
	json_object_set_new(o, "gpu_level", jstr(fact(d, "gpu_level")));
	json_t *tdp = json_object_get(d->facts, "tdp_w");
	json_object_set_new(o, "tdp_w", json_is_number(tdp) ? json_real(json_number_value(tdp))
	                                                    : json_null());
	json_object_set_new(o, "gpu_clock_mhz", jnum(d->clock_mhz));
	json_object_set_new(o, "partial", json_boolean(d->partial));
	json_object_set_new(o, "runs_finished", json_integer((json_int_t)d->runs_finished));
	json_object_set_new(o, "runs", json_integer((json_int_t)d->runs));
	json_object_set_new(o, "facts", d->facts ? json_incref(d->facts) : json_null());
	return o;
}

static json_t *across_json(const struct across *a, const struct stats_across *s)
{
	json_t *o = json_object(), *pairs = json_array();
	json_object_set_new(o, "state", json_string(stats_across_state_name(s->state)));
	json_object_set_new(o, "alpha", jnum(s->alpha));
	json_object_set_new(o, "min_effect_pct", jnum(s->min_effect_pct));
	bool differs = s->state == STATS_ACROSS_DIFFERS;
	json_object_set_new(o, "odd_device", differs ? json_string(a->dev[s->odd].label) : json_null());
	json_object_set_new(o, "odd_diff_pct", differs ? jnum(s->odd_diff_pct) : json_null());
	for (size_t i = 0; i < s->n_pairs; i++) {
		const struct stats_across_pair *p = &s->pairs[i];
		json_t *po = json_object(), *ci = json_array();
		json_array_append_new(ci, jnum(p->ci_low));
		json_array_append_new(ci, jnum(p->ci_high));
		json_object_set_new(po, "a", json_string(a->dev[p->a].label));
		json_object_set_new(po, "b", json_string(a->dev[p->b].label));
		json_object_set_new(po, "diff_pct", jnum(p->diff_pct));
		json_object_set_new(po, "ci_pct", ci);
		json_object_set_new(po, "df", jnum(p->df));
		json_object_set_new(po, "p_raw", jnum(p->p_raw));
		json_object_set_new(po, "p", jnum(p->p));
		json_object_set_new(po, "state", json_string(stats_across_state_name(p->state)));
		json_array_append_new(pairs, po);
	}
	json_object_set_new(o, "pairs", pairs);
	return o;
}

static json_t *metric_json(const struct across *a, size_t k, size_t m)
{
	const struct cell *c = &a->cells[k * a->n_metrics + m];
	json_t *o = json_object(), *devs = json_array();
	json_object_set_new(o, "primary", json_boolean(a->dev[0].rd->primary[m]));
	for (size_t d = 0; d < a->n; d++) {
		json_t *dv = json_object();
		json_object_set_new(dv, "device", json_string(a->dev[d].label));
		if (c->has_dec[d]) {
			const struct stats_decision *x = c->dec[d];
			json_t *ci = json_array();
			json_array_append_new(ci, jnum(x->ci_low));
			json_array_append_new(ci, jnum(x->ci_high));
			json_object_set_new(dv, "state", json_string(stats_state_name(x->state)));
			json_object_set_new(dv, "delta", jnum(x->delta));
			json_object_set_new(dv, "delta_pct", jnum(x->delta_pct));
			json_object_set_new(dv, "ci", ci);
			json_object_set_new(dv, "p", jnum(x->p));
		} else {
			json_object_set_new(dv, "state", json_null());
		}
		json_object_set_new(dv, "effect_pct", c->eff[d].usable ? jnum(c->eff[d].effect_pct)
		                                                       : json_null());
		json_object_set_new(dv, "se_pct", c->eff[d].usable ? jnum(c->eff[d].se_pct)
		                                                   : json_null());
		json_array_append_new(devs, dv);
	}
	json_object_set_new(o, "devices", devs);
	json_object_set_new(o, "across", c->has_across ? across_json(a, &c->across) : json_null());
	return o;
}

static int print_json(const struct across *a, FILE *out)
{
	const struct report_data *r0 = a->dev[0].rd;
	json_t *doc = json_object(), *devs = json_array(), *arms = json_array(), *heads = json_array();
	char base[2] = { r0->arms[r0->base].arm->letter, 0 };
	json_object_set_new(doc, "across", json_true());
	json_object_set_new(doc, "baseline", json_string(base));
	json_object_set_new(doc, "alpha", jnum(a->alpha));
	for (size_t d = 0; d < a->n; d++)
		json_array_append_new(devs, device_json(&a->dev[d]));
	json_object_set_new(doc, "devices", devs);
	for (size_t k = 0; k < a->n_arms; k++) {
		const struct db_arm *arm = arm_at(a, k, 0)->arm;
		char letter[2] = { arm->letter, 0 }, name[160];
		arm_name(a, k, name, sizeof name);
		json_t *ao = json_object(), *metrics = json_object();
		json_object_set_new(ao, "letter", json_string(letter));
		json_object_set_new(ao, "label", jstr(arm->label));
		for (size_t m = 0; m < a->n_metrics; m++) {
			const struct cell *c = &a->cells[k * a->n_metrics + m];
			bool any = false;
			for (size_t d = 0; d < a->n; d++)
				any = any || c->has_dec[d];
			if (any)
				json_object_set_new(metrics, stats_metrics[m].key, metric_json(a, k, m));
			if (r0->primary[m]) {
				char line[2048], full[2300];
				headline(a, k, m, line, sizeof line);
				snprintf(full, sizeof full, "%s, %s", name, line);
				json_array_append_new(heads, json_string(full));
			}
		}
		json_object_set_new(ao, "metrics", metrics);
		json_array_append_new(arms, ao);
	}
	json_object_set_new(doc, "arms", arms);
	json_object_set_new(doc, "headline", heads);
	int rc = json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
	json_decref(doc);
	fputc('\n', out);
	return rc == 0 ? 0 : -EIO;
}

/* ---- HTML ----------------------------------------------------------------- */

static void html_text(FILE *out, const char *s)
{
	report_xml_text_n(out, s, strlen(s));
}

/* A headline's text: its ** marks become <strong>. */
static void html_marked(FILE *out, const char *s)
{
	bool open = false;
	for (const char *p = s; *p;) {
		const char *star = strstr(p, "**");
		size_t n = star ? (size_t)(star - p) : strlen(p);
		report_xml_text_n(out, p, n);
		if (!star)
			break;
		fputs(open ? "</strong>" : "<strong>", out);
		open = !open;
		p = star + 2;
	}
	if (open)
		fputs("</strong>", out);
}

/* One arm's table: each device's verdict and the across-devices one. */
static void html_arm_table(const struct across *a, size_t k, FILE *out)
{
	char name[160];
	char base = arm_title(a, k, name, sizeof name);
	fputs("<h2>", out);
	html_text(out, name);
	fprintf(out, " against %c</h2>\n<table><tr><th>metric</th>", base);
	for (size_t d = 0; d < a->n; d++) {
		fputs("<th>", out);
		html_text(out, a->dev[d].label);
		fputs("</th>", out);
	}
	fputs("<th>across devices</th></tr>\n", out);
	struct row r;
	for (size_t m = 0; m < a->n_metrics; m++) {
		if (!arm_row(a, k, m, &r))
			continue;
		fprintf(out, "<tr><td>%s%s</td>", r.metric, r.primary);
		for (size_t d = 0; d < a->n; d++) {
			char v[64];
			fprintf(out, "<td>%s</td>", verdict_text(r.c, d, v, sizeof v));
		}
		if (r.not_compared) {
			fprintf(out, "<td>%s</td></tr>\n", r.not_compared);
		} else {
			fprintf(out, "<td class=\"%s\">%s", r.state, r.state);
			if (r.odd) {
				fputs(": ", out);
				html_text(out, r.odd);
				fprintf(out, " %+.1f points", r.odd_diff_pct);
			}
			fputs("</td></tr>\n", out);
		}
	}
	fputs("</table>\n", out);
}

static void html_print(const struct across *a, FILE *out)
{
	const struct report_data *r0 = a->dev[0].rd;
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>", out);
	html_text(out, r0->campaign->name);
	fputs(" across devices</title>\n<style>body{font:15px/1.45 system-ui,sans-serif;margin:2em;"
	      "max-width:70em}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid "
	      "#bbb;padding:.25em .6em;text-align:left}th{background:#eee}.differs{background:"
	      "#fde2e2}.same{background:#e2f5e2}</style></head><body>\n<h1>Across devices: ", out);
	html_text(out, r0->campaign->name);
	fprintf(out, " on %zu devices, baseline %c</h1>\n<table><tr><th></th>", a->n,
	        r0->arms[r0->base].arm->letter);
	for (size_t d = 0; d < a->n; d++) {
		fputs("<th>", out);
		html_text(out, a->dev[d].label);
		fputs("</th>", out);
	}
	fputs("</tr>\n", out);
	for (int row = 0; row < N_ROWS; row++) {
		fprintf(out, "<tr><th>%s</th>", row_names[row]);
		for (size_t d = 0; d < a->n; d++) {
			char v[512];
			row_value(&a->dev[d], row, v, sizeof v);
			fputs("<td>", out);
			html_text(out, v);
			fputs("</td>", out);
		}
		fputs("</tr>\n", out);
	}
	fputs("</table>\n<h2>The answer</h2>\n<ul>\n", out);
	for (size_t k = 0; k < a->n_arms; k++) {
		char name[160];
		arm_name(a, k, name, sizeof name);
		for (size_t m = 0; m < a->n_metrics; m++) {
			if (!r0->primary[m])
				continue;
			char line[2048];
			headline(a, k, m, line, sizeof line);
			fputs("<li><strong>", out);
			html_text(out, name);
			fputs("</strong>, ", out);
			html_marked(out, line);
			fputs("</li>\n", out);
		}
	}
	fputs("</ul>\n", out);
	for (size_t k = 0; k < a->n_arms; k++)
		html_arm_table(a, k, out);
	for (size_t d = 0; d < a->n; d++)
		if (a->dev[d].partial) {
			fputs("<p>Partial: ", out);
			html_text(out, a->dev[d].label);
			fprintf(out, " finished %zu of its %zu runs.</p>\n", a->dev[d].runs_finished,
			        a->dev[d].runs);
		}
	fputs("</body></html>\n", out);
}

/* ---- entry points ------------------------------------------------------ */

int report_across_resolve(struct db *db, char *const *names, size_t n, int64_t **ids,
                          size_t *n_ids, char *errmsg, size_t errmsg_size)
{
	struct db_campaign *all;
	size_t n_all;
	if (db_campaign_list(db, &all, &n_all) != 0) {
		snprintf(errmsg, errmsg_size, "%s", db_errmsg(db));
		return -EIO;
	}
	int64_t *out = calloc(n_all + 1, sizeof *out);
	size_t k = 0;
	int err = out ? 0 : -ENOMEM;
	/* db_campaign_list is newest first: oldest first reads as the fleet ran */
	for (size_t i = 0; !err && i < n; i++) {
		size_t len = strlen(names[i]), found = 0;
		for (size_t j = n_all; j-- > 0;) {
			const char *name = all[j].name;
			bool match = strcmp(name, names[i]) == 0 ||
			             (strncmp(name, names[i], len) == 0 && name[len] == '@');
			if (!match)
				continue;
			found++;
			bool dup = false;
			for (size_t e = 0; e < k; e++)
				dup = dup || out[e] == all[j].id;
			if (!dup)
				out[k++] = all[j].id;
		}
		if (!found) {
			snprintf(errmsg, errmsg_size, "no campaign '%s' (nor '%s@HOST') in '%s'", names[i],
			         names[i], db_path(db));
			err = -ENOENT;
		}
	}
	if (!err && k < 2) {
		snprintf(errmsg, errmsg_size, "--across needs two campaigns or more; '%s' is one "
		         "(another host's campaign of that name is imported as '%s@HOST')",
		         n ? names[0] : "", n ? names[0] : "");
		err = -EINVAL;
	}
	free(all);
	if (err) {
		free(out);
		return err;
	}
	*ids = out;
	*n_ids = k;
	return 0;
}

int report_across_print(struct db *db, const int64_t *ids, size_t n,
                        const struct report_options *opts, FILE *out)
{
	if (opts->format == REPORT_FORMAT_CSV)
		return report_fail(opts, -EINVAL, "--across writes md, json or html, not csv");
	struct across *a;
	int err = across_load(db, ids, n, opts, &a);
	if (err)
		return err;
	switch (opts->format) {
	case REPORT_FORMAT_JSON:
		err = print_json(a, out);
		break;
	case REPORT_FORMAT_HTML:
		html_print(a, out);
		break;
	case REPORT_FORMAT_MD:
	default:
		md_title(a, out, "#");
		md_body(a, out, "##");
		break;
	}
	across_free(a);
	if (!err && (fflush(out) != 0 || ferror(out)))
		err = -EIO;
	return err == -EIO ? report_fail(opts, err, "cannot write the report") : err;
}

int report_across_summary_print(struct db *db, const int64_t *ids, size_t n,
                                const struct report_options *opts, FILE *out)
{
	struct across *a;
	int err = across_load(db, ids, n, opts, &a);
	if (err)
		return err;
	md_title(a, out, "###");
	md_body(a, out, "####");
	across_free(a);
	if (fflush(out) != 0 || ferror(out))
		return report_fail(opts, -EIO, "cannot write the summary");
	return 0;
}
