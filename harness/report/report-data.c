/* report-data: a campaign loaded for the report's outputs.
 *
 * It owns where each run's numbers come from (docs/reports.md, "Where the
 * numbers come from"): a metric the run stored under a stats_metrics key
 * wins; otherwise frame metrics are computed from the stored frames over
 * the campaign's window when the run stored its route start
 * (REPORT_T0_METRIC), GPU busy is the mean of the gpu_busy_pct samples and
 * swap-in the change of swap_in_pages over the run.  It also builds the
 * per-arm summaries and the comparisons against the baseline with stats'
 * functions; the statistics themselves are stats'.  It only reads the
 * database.
 */
#include "report-private.h"
#include "plan/plan.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int report_fail(const struct report_options *opts, int err, const char *fmt, ...)
{
	if (opts && opts->errmsg && opts->errmsg_size) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(opts->errmsg, opts->errmsg_size, fmt, ap);
		va_end(ap);
	}
	return err;
}

int report_metric_index(const char *key)
{
	for (int i = 0; stats_metrics[i].key; i++)
		if (strcmp(stats_metrics[i].key, key) == 0)
			return i;
	return -1;
}

void report_num_exact(char *buf, size_t size, double v)
{
	if (!isfinite(v)) {
		snprintf(buf, size, "%s", "");
		return;
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, size, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

void report_format_time(char *buf, size_t size, int64_t unix_ms, bool date_only)
{
	time_t t = (time_t)(unix_ms / 1000);
	struct tm tm;
	if (unix_ms <= 0 || !gmtime_r(&t, &tm)) {
		snprintf(buf, size, "%s", "not known");
		return;
	}
	strftime(buf, size, date_only ? "%Y-%m-%d" : "%Y-%m-%d %H:%M UTC", &tm);
}

void report_env_line(const char *env, char *buf, size_t size)
{
	size_t o = 0;
	if (size == 0)
		return;
	buf[0] = 0;
	if (!env)
		return;
	const char *p = env;
	while (*p) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		/* trim the line */
		const char *s = p;
		size_t l = len;
		while (l && (*s == ' ' || *s == '\t' || *s == '\r')) {
			s++;
			l--;
		}
		while (l && (s[l - 1] == ' ' || s[l - 1] == '\t' || s[l - 1] == '\r'))
			l--;
		if (l && s[0] != '#') {
			if (o && o + 1 < size)
				buf[o++] = ' ';
			for (size_t i = 0; i < l && o + 1 < size; i++)
				buf[o++] = s[i];
			buf[o] = 0;
		}
		p += len;
		if (*p == '\n')
			p++;
	}
}

/* The campaign's plan ran its programs with pad = none. */
static bool plan_text_says_no_pad(const char *text)
{
	struct plan *p;
	if (!text || !text[0] || plan_parse("plan", text, strlen(text), NULL, &p, NULL) < 0)
		return false;
	bool none = p->pad == PLAN_PAD_NONE;
	plan_free(p);
	return none;
}

static int value_of(const struct db_metric *m, size_t n, const char *name, double *out)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(m[i].name, name) == 0) {
			*out = m[i].value;
			return 0;
		}
	return -ENOENT;
}

/* Frame metrics from the stored frames, over the campaign's window. */
static int derive_frame_metrics(struct db *db, const struct db_campaign *c, struct report_run *r)
{
	struct db_frame *f;
	size_t n;
	int err = db_frames_read(db, r->run->id, &f, &n);
	if (err)
		return err;
	if (n == 0) {
		free(f);
		return 0;
	}
	/* frames of every source are stored on the route's clock; MangoHud's
	 * and PresentMon's carry their own frame times */
	bool interval = f[0].source != DB_FRAME_RXVK;
	struct stats_frame *v = malloc(n * sizeof *v);
	if (!v) {
		free(f);
		return -ENOMEM;
	}
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k && f[i].present_ns < v[k - 1].present_ns)
			continue; /* as the frame-log parser does: never back in time */
		uint8_t a = f[i].absent;
		v[k++] = (struct stats_frame){
			.present_ns = f[i].present_ns,
			.frame_ms = a & DB_FRAME_NO_FRAME_MS ? NAN : (float)f[i].frame_ms,
			.rb_wait_ms = a & DB_FRAME_NO_RB_WAIT_MS ? NAN : (float)f[i].rb_wait_ms,
			.memsync_ms = a & DB_FRAME_NO_MEMSYNC_MS ? NAN : (float)f[i].memsync_ms,
			.draws = a & DB_FRAME_NO_DRAWS ? NAN : (float)f[i].draws,
			.fps = NAN,
			.shown_only = f[i].kind == DB_FRAME_SHOWN,
		};
	}
	free(f);
	const struct stats_log log = {
		.name = "results.db", .frames = v, .n = k, .frame_ms_is_interval = interval,
	};
	double window[2] = { c->window_start_s, c->window_end_s };
	bool has_window = window[0] < window[1];
	struct stats_run_metrics m;
	err = stats_run_metrics_compute(&log, r->t0_ns, has_window ? window : NULL, &m);
	free(v);
	if (err)
		return err;
	const struct {
		const char *key;
		double v;
	} got[] = {
		{ "real_fps", m.real_fps },     { "shown_fps", m.shown_fps },
		{ "p50_ms", m.p50_ms },         { "p95_ms", m.p95_ms },
		{ "p99_ms", m.p99_ms },         { "over_100ms", m.frame_times ? (double)m.over_100ms : NAN },
		{ "low_1pct_fps", m.low_1pct_fps }, { "low_01pct_fps", m.low_01pct_fps },
		{ "rb_wait_ms", m.rb_wait_ms }, { "memsync_ms", m.memsync_ms },
		{ "draws", m.draws },
	};
	for (size_t i = 0; i < sizeof got / sizeof got[0]; i++) {
		int idx = report_metric_index(got[i].key);
		if (idx >= 0 && isnan(r->v[idx]))
			r->v[idx] = got[i].v;
	}
	stats_run_metrics_finish(&m);
	return 0;
}

/* GPU busy (mean over the window, or the run without t0) and swap-in (the
 * change over the run) from the samples. */
static int derive_sample_metrics(struct db *db, const struct db_campaign *c, struct report_run *r,
                                 int gpu_idx, int swap_idx)
{
	struct db_sample *s;
	size_t n;
	int err;
	if (gpu_idx >= 0 && isnan(r->v[gpu_idx])) {
		err = db_samples_read(db, r->run->id, REPORT_SAMPLE_GPU_BUSY, &s, &n);
		if (err)
			return err;
		bool has_window = c->window_start_s < c->window_end_s && r->has_t0;
		double sum = 0;
		size_t k = 0;
		for (size_t i = 0; i < n; i++) {
			if (s[i].absent || !isfinite(s[i].value))
				continue;
			if (has_window) {
				double t = (double)(s[i].t_ns - r->t0_ns) / 1e9;
				if (!(t > c->window_start_s && t <= c->window_end_s))
					continue;
			}
			sum += s[i].value;
			k++;
		}
		free(s);
		if (k)
			r->v[gpu_idx] = sum / (double)k;
	}
	if (swap_idx >= 0 && isnan(r->v[swap_idx])) {
		err = db_samples_read(db, r->run->id, REPORT_SAMPLE_SWAP_IN, &s, &n);
		if (err)
			return err;
		double first = NAN, last = NAN;
		for (size_t i = 0; i < n; i++) {
			if (s[i].absent || !isfinite(s[i].value))
				continue;
			if (isnan(first))
				first = s[i].value;
			last = s[i].value;
		}
		free(s);
		if (isfinite(first) && last >= first)
			r->v[swap_idx] = last - first;
	}
	return 0;
}

static int load_run_values(struct db *db, const struct report_data *rd, struct report_run *r)
{
	for (size_t i = 0; i < rd->n_metrics; i++)
		r->v[i] = NAN;
	struct db_metric *m;
	size_t n;
	int err = db_metrics_read(db, r->run->id, &m, &n);
	if (err)
		return err;
	for (size_t i = 0; i < rd->n_metrics; i++) {
		double v;
		if (value_of(m, n, stats_metrics[i].key, &v) == 0 && isfinite(v))
			r->v[i] = v;
	}
	double t0;
	if (value_of(m, n, REPORT_T0_METRIC, &t0) == 0 && isfinite(t0)) {
		r->has_t0 = true;
		r->t0_ns = (int64_t)llround(t0);
	}
	r->has_wall = value_of(m, n, REPORT_WALL_START_METRIC, &r->wall_s[0]) == 0 &&
	              value_of(m, n, REPORT_WALL_END_METRIC, &r->wall_s[1]) == 0 &&
	              isfinite(r->wall_s[0]) && isfinite(r->wall_s[1]) && r->wall_s[1] >= r->wall_s[0];
	free(m);

	static const char *const frame_keys[] = { "real_fps", "shown_fps", "p50_ms", "p95_ms",
		                                  "p99_ms", "low_1pct_fps", "low_01pct_fps",
		                                  "over_100ms", "rb_wait_ms", "memsync_ms",
		                                  "draws" };
	bool missing = false;
	for (size_t i = 0; i < sizeof frame_keys / sizeof frame_keys[0]; i++) {
		int idx = report_metric_index(frame_keys[i]);
		if (idx >= 0 && isnan(r->v[idx]))
			missing = true;
	}
	if (missing && r->has_t0) {
		err = derive_frame_metrics(db, rd->campaign, r);
		if (err)
			return err;
	}
	return derive_sample_metrics(db, rd->campaign, r, report_metric_index("gpu_busy_percent"),
	                             report_metric_index("swap_in"));
}

void report_data_destroy(struct report_data *rd)
{
	if (!rd)
		return;
	for (size_t i = 0; i < rd->n_runs; i++)
		free(rd->runs[i].v);
	for (size_t i = 0; i < rd->n_arms; i++) {
		struct report_arm *a = &rd->arms[i];
		free(a->runs);
		free(a->has_sum);
		free(a->sum);
		free(a->has_cmp);
		free(a->cmp);
		free(a->has_dec);
		free(a->dec);
		free(a->more_rounds);
		free(a->more_rounds_hi);
	}
	free(rd->headline.lines);
	free(rd->primary);
	free(rd->min_effect_pct);
	free(rd->drift);
	free(rd->runs);
	free(rd->arms);
	free(rd->has_data);
	free(rd->marks);
	free(rd->hosts);
	free(rd->db_runs);
	free(rd->builds);
	free(rd->db_arms);
	free(rd->campaign);
	free(rd);
}

static int compare_arms(struct report_data *rd, const struct report_options *opts)
{
	size_t nm = rd->n_metrics;
	double *va = malloc((rd->n_runs ? rd->n_runs : 1) * sizeof *va);
	double *vb = malloc((rd->n_runs ? rd->n_runs : 1) * sizeof *vb);
	if (!va || !vb) {
		free(va);
		free(vb);
		return -ENOMEM;
	}
	const struct report_arm *base = &rd->arms[rd->base];
	int err = 0;
	for (size_t m = 0; m < nm && !err; m++) {
		if (!rd->has_data[m])
			continue;
		size_t nb = 0;
		for (size_t k = 0; k < base->n_runs; k++) {
			const struct report_run *r = &rd->runs[base->runs[k]];
			if (!r->is_void)
				vb[nb++] = r->v[m];
		}
		for (size_t i = 0; i < rd->n_arms && !err; i++) {
			struct report_arm *a = &rd->arms[i];
			size_t na = 0;
			for (size_t k = 0; k < a->n_runs; k++) {
				const struct report_run *r = &rd->runs[a->runs[k]];
				if (!r->is_void)
					va[na++] = r->v[m];
			}
			int rc = stats_summarize(va, na, &a->sum[m]);
			if (rc == 0)
				a->has_sum[m] = true;
			else if (rc != -ENODATA)
				err = rc;
			if (i == rd->base || err)
				continue;
			rc = stats_compare(&stats_metrics[m], vb, nb, va, na, &a->cmp[m]);
			if (rc == 0)
				a->has_cmp[m] = true;
			else if (rc != -ENODATA)
				err = rc;
		}
	}
	free(va);
	free(vb);
	if (err)
		return report_fail(opts, err, "cannot compare the arms: %s", strerror(-err));
	return 0;
}

/* The [verdict] section of the campaign's plan: primary metrics and
 * minimum effects; the defaults when the plan says nothing or cannot be
 * read (an imported campaign has no plan of ours). */
static int verdict_settings(struct report_data *rd)
{
	size_t nm = rd->n_metrics;
	rd->primary = calloc(nm, sizeof *rd->primary);
	rd->min_effect_pct = calloc(nm, sizeof *rd->min_effect_pct);
	if (!rd->primary || !rd->min_effect_pct)
		return -ENOMEM;
	for (size_t m = 0; m < nm; m++)
		rd->min_effect_pct[m] = stats_min_effect_default_pct(stats_metrics[m].key);
	struct plan *p = NULL;
	const char *text = rd->campaign->plan_text;
	if (text && text[0] && plan_parse("plan", text, strlen(text), NULL, &p, NULL) < 0)
		p = NULL;
	if (p && p->verdict.primary.n) {
		for (size_t i = 0; i < p->verdict.primary.n; i++) {
			int m = report_metric_index(p->verdict.primary.v[i]);
			if (m >= 0)
				rd->primary[m] = true;
		}
	} else {
		for (size_t m = 0; m < nm; m++)
			rd->primary[m] = stats_metrics[m].primary;
	}
	for (size_t i = 0; p && i < p->verdict.n_min_effects; i++) {
		int m = report_metric_index(p->verdict.min_effects[i].key);
		if (m >= 0)
			rd->min_effect_pct[m] = p->verdict.min_effects[i].pct;
	}
	if (p) {
		rd->max_rounds = plan_max_rounds(p);
		rd->has_until = p->until != NULL;
		rd->time_rule = p->verdict.time_terms == PLAN_TIME_TERMS_DROP
		                        ? STATS_TIME_RULE_DROP_ORTHOGONAL
		                        : STATS_TIME_RULE_NARROWEST;
	}
	plan_free(p);
	return 0;
}

/* Rounds with a usable run of every arm, and the mean wall time of a round
 * (first start to last end over the measured runs, per round). */
static void round_facts(struct report_data *rd)
{
	int max_round = 0;
	for (size_t i = 0; i < rd->n_runs; i++)
		if (rd->runs[i].run->round > max_round)
			max_round = rd->runs[i].run->round;
	double span_ms = 0;
	int timed = 0, done = 0;
	for (int rnd = 1; rnd <= max_round; rnd++) {
		int64_t first = 0, last = 0;
		size_t arms_seen = 0;
		for (size_t a = 0; a < rd->n_arms; a++) {
			bool seen = false;
			for (size_t i = 0; i < rd->n_runs; i++) {
				const struct report_run *r = &rd->runs[i];
				if (r->arm != a || r->run->round != rnd)
					continue;
				seen |= !r->is_void;
				/* an import's times are its file's, not a run's: untimed
				 * (docs/reports.md 4.1) */
				if (r->run->exit_status < 0)
					continue;
				if (r->run->start_unix_ms > 0 && (!first || r->run->start_unix_ms < first))
					first = r->run->start_unix_ms;
				if (r->run->end_unix_ms > last)
					last = r->run->end_unix_ms;
			}
			arms_seen += seen;
		}
		if (arms_seen == rd->n_arms)
			done++;
		if (first > 0 && last > first) {
			span_ms += (double)(last - first);
			timed++;
		}
	}
	rd->rounds_done = done;
	rd->round_s = timed ? span_ms / timed / 1000.0 : NAN;
}

/* The level look k is decided at: alpha, or what the sequential rule
 * spends at it (the planned maximum's last look for k beyond it), of 5 %
 * shared over the primary comparisons (primaries x arms), so the stop
 * rule's familywise rate stays at 5 % (docs/metrics.md 6.3, 6.5). */
static double look_alpha(const struct report_data *rd, int k)
{
	if (rd->max_rounds <= 0)
		return 0.05;
	double a = stats_family_alpha(0.05, rd->n_family);
	return stats_sequential_alpha(a, k < rd->max_rounds ? k : rd->max_rounds, rd->max_rounds);
}

static double look_alpha_cb(void *ctx, int k)
{
	return look_alpha(ctx, k);
}

/* Rounds more (same design) until the decision would decide, as a range
 * (stats_rounds_forecast(): the spread's own uncertainty, t with the
 * future df, the level of the look it would be read at).  NaN with too
 * few df for a forecast; INFINITY when not reachable within 400. */
static void rounds_needed(struct report_data *rd, const struct stats_decision *d, double *lo,
                          double *hi)
{
	*lo = *hi = NAN;
	if (d->method == STATS_METHOD_NONE || rd->rounds_done < 1)
		return;
	stats_rounds_forecast(d, rd->rounds_done, (int)rd->n_arms, 400,
	                      rd->max_rounds > 0 ? look_alpha_cb : NULL, rd, rd->look, lo, hi);
}

/* "12 min", "1.5 h": a duration of s seconds in the unit that reads. */
static void fmt_hours(char *buf, size_t size, double s)
{
	if (s < 3600)
		snprintf(buf, size, "%.0f min", fmax(1.0, ceil(s / 60.0)));
	else
		snprintf(buf, size, "%.1f h", s / 3600.0);
}

void report_more_text(const struct report_data *rd, double rounds, double rounds_hi, char *buf,
                      size_t size)
{
	if (isnan(rounds)) {
		snprintf(buf, size, "too few degrees of freedom for a forecast (fewer than %d)",
		         STATS_FORECAST_MIN_DF);
		return;
	}
	double s = isfinite(rd->round_s) && isfinite(rounds) ? rounds * rd->round_s : NAN;
	double s_hi = isfinite(rd->round_s) && isfinite(rounds_hi) ? rounds_hi * rd->round_s : NAN;
	double h = s / 3600.0;
	char t[80] = "", n[48];
	if (isfinite(s) && isfinite(s_hi) && rounds_hi > rounds) {
		char a[32], b[32];
		fmt_hours(a, sizeof a, s);
		fmt_hours(b, sizeof b, s_hi);
		snprintf(t, sizeof t, "%s to %s", a, b);
	} else if (isfinite(s)) {
		fmt_hours(t, sizeof t, s);
	}
	if (!isfinite(rounds_hi))
		snprintf(n, sizeof n, "%.0f or more", rounds);
	else if (rounds_hi > rounds)
		snprintf(n, sizeof n, "%.0f to %.0f", rounds, rounds_hi);
	else
		snprintf(n, sizeof n, "%.0f", rounds);
	bool one = rounds == 1 && rounds_hi == 1;
	int left = rd->max_rounds > 0 ? rd->max_rounds - rd->look : -1;
	if (!isfinite(rounds))
		snprintf(buf, size, "not reachable at this noise and resolution");
	else if (rounds > 200 || (isfinite(h) && h > 24))
		snprintf(buf, size, "not reachable tonight at this noise: more than %s",
		         isfinite(h) ? "24 h" : "200 rounds");
	else if (isfinite(h) && h > 10)
		snprintf(buf, size, "not reachable tonight at this noise: about %.0f h more", h);
	else if (left >= 0 && rounds > left)
		snprintf(buf, size, "not reachable within max_rounds = %d: about %s more rounds%s%s%s",
		         rd->max_rounds, n, t[0] ? " (" : "", t, t[0] ? ")" : "");
	else if (t[0])
		snprintf(buf, size, "about %s more round%s (%s)", n, one ? "" : "s", t);
	else
		snprintf(buf, size, "about %s more round%s (no round has been timed)", n, one ? "" : "s");
}

void report_stop_text(const struct report_data *rd, char *buf, size_t size)
{
	int n = rd->campaign->rounds;
	switch (rd->stop) {
	case REPORT_STOP_DECIDED:
		snprintf(buf, size, "decided after %d round%s", n, n == 1 ? "" : "s");
		break;
	case REPORT_STOP_MAX_ROUNDS:
		snprintf(buf, size, "max rounds reached (%d)", n);
		break;
	case REPORT_STOP_DEADLINE:
		snprintf(buf, size, "deadline: no further round fitted, after %d round%s", n,
		         n == 1 ? "" : "s");
		break;
	case REPORT_STOP_PLANNED:
		snprintf(buf, size, "every planned run ran");
		break;
	case REPORT_STOP_NONE:
	default:
		if (size)
			buf[0] = 0;
		break;
	}
}

/* Whether every primary comparison is decided, and why a finished
 * campaign stopped: as the run loop stored it, else (a campaign finished
 * before results-db schema 4) derived by the run loop's rule,
 * docs/running.md 2.2. */
static void stop_facts(struct report_data *rd, const char *stored)
{
	bool any = false, all = true;
	for (size_t a = 0; a < rd->n_arms; a++)
		for (size_t m = 0; m < rd->n_metrics && a != rd->base; m++) {
			if (!rd->primary[m] || !rd->has_data[m])
				continue;
			any = true;
			all &= rd->arms[a].has_dec[m] && rd->arms[a].dec[m].state != STATS_STATE_UNDECIDED;
		}
	rd->all_decided = any && all;
	if (rd->campaign->status != DB_CAMPAIGN_DONE)
		rd->stop = REPORT_STOP_NONE;
	else if (rd->max_rounds <= 0)
		rd->stop = REPORT_STOP_PLANNED;
	else if (rd->all_decided)
		rd->stop = REPORT_STOP_DECIDED;
	else if (rd->campaign->rounds >= rd->max_rounds)
		rd->stop = REPORT_STOP_MAX_ROUNDS;
	else
		rd->stop = rd->has_until ? REPORT_STOP_DEADLINE : REPORT_STOP_MAX_ROUNDS;
	static const char *const names[] = { [REPORT_STOP_PLANNED] = "planned",
		                             [REPORT_STOP_DECIDED] = "decided",
		                             [REPORT_STOP_MAX_ROUNDS] = "max_rounds",
		                             [REPORT_STOP_DEADLINE] = "deadline" };
	for (size_t i = REPORT_STOP_PLANNED; rd->stop != REPORT_STOP_NONE && stored[0] &&
	                                     i < sizeof names / sizeof names[0]; i++)
		if (strcmp(stored, names[i]) == 0) {
			rd->stop = (enum report_stop)i;
			rd->stop_stored = true;
		}
}

bool report_counterbalanced(const struct report_data *rd)
{
	const char *order = rd->campaign->order;
	size_t per = order ? strlen(order) : 0;
	for (size_t i = 0; i < rd->n_db_runs && per; i++) {
		const struct db_run *r = &rd->db_runs[i];
		if (r->is_warmup || r->round < 1)
			continue;
		/* its place in its round: runs of a round are consecutive */
		size_t k = 0;
		for (size_t j = 0; j < rd->n_db_runs; j++)
			if (rd->db_runs[j].round == r->round && !rd->db_runs[j].is_warmup &&
			    rd->db_runs[j].position < r->position)
				k++;
		if (k < per && order[k] != r->arm_letter)
			return true;
	}
	return false;
}

/* Whether run r has a place in time: its position in the campaign's
 * order, planned by the campaign and run by the harness, or given to an
 * imported run (--position, or its place after the runs before it: the
 * order the logs were imported in, docs/reports.md 4.1). */
static bool run_placed(const struct report_data *rd, const struct report_run *r)
{
	(void)rd;
	return r->run->position >= 1;
}

static void add_warning(struct report_data *rd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void add_warning(struct report_data *rd, const char *fmt, ...)
{
	if (rd->n_warnings >= sizeof rd->warnings / sizeof rd->warnings[0])
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(rd->warnings[rd->n_warnings++], sizeof rd->warnings[0], fmt, ap);
	va_end(ap);
}

/*
 * The usable runs' places in time from their logs' wall clocks (imported
 * PresentMon logs written with --date_time), seconds after the first, in
 * t (one per usable run, in rd->runs order): true when every usable run
 * has one and no two runs of the campaign overlap on it.  The clock is
 * local time with no zone, so only differences within the campaign are
 * used; runs that overlap cannot have run one after the other on one
 * machine, so a clock change (daylight saving time going back) or logs of
 * two machines are named in a warning, once, and the runs keep their
 * positions.
 */
static bool wall_clock_times(struct report_data *rd, double *t)
{
	size_t n = 0;
	double first = INFINITY;
	for (size_t i = 0; i < rd->n_runs; i++) {
		const struct report_run *r = &rd->runs[i];
		if (r->is_void)
			continue;
		if (!r->has_wall)
			return false;
		first = fmin(first, r->wall_s[0]);
		n++;
	}
	if (n == 0)
		return false;
	for (size_t i = 0; i < rd->n_runs; i++)
		for (size_t j = 0; j < rd->n_runs; j++) {
			const struct report_run *a = &rd->runs[i], *b = &rd->runs[j];
			if (i == j || !a->has_wall || !b->has_wall || a->wall_s[0] > b->wall_s[0] ||
			    (a->wall_s[0] == b->wall_s[0] && i > j) || b->wall_s[0] >= a->wall_s[1])
				continue;
			if (!rd->wall_overlap_said) {
				rd->wall_overlap_said = true;
				add_warning(rd, "runs %d and %d overlap on their logs' local clocks: a clock "
				            "change (daylight saving time) or logs of two machines; the runs "
				            "are placed by their positions, not by their times",
				            a->run->position, b->run->position);
			}
			return false;
		}
	size_t k = 0;
	for (size_t i = 0; i < rd->n_runs; i++)
		if (!rd->runs[i].is_void)
			t[k++] = rd->runs[i].wall_s[0] - first;
	return true;
}

/* The drift over the campaign per metric: the time coefficient of a model
 * of every arm's usable runs on arm and linear time over the runs' real
 * span (their start times; in runs when some run is untimed, an import),
 * with its interval (stats_drift()); and the warnings: a drift whose
 * interval excludes 0 on a primary metric, arms run in blocks. */
static int drift_and_warnings(struct report_data *rd)
{
	size_t nm = rd->n_metrics;
	size_t n = rd->n_runs ? rd->n_runs : 1;
	rd->drift = calloc(nm, sizeof *rd->drift);
	double *v = malloc(n * sizeof *v), *t = malloc(n * sizeof *t), *ts = malloc(n * sizeof *ts);
	size_t *g = malloc(n * sizeof *g);
	int err = 0;
	if (!rd->drift || !v || !t || !ts || !g) {
		err = -ENOMEM;
		goto out;
	}
	bool timed = true;
	int64_t t0 = 0;
	size_t k = 0;
	for (size_t i = 0; i < rd->n_runs; i++) {
		const struct report_run *r = &rd->runs[i];
		if (r->is_void)
			continue;
		if (r->run->exit_status < 0 || r->run->start_unix_ms <= 0)
			timed = false;
		else if (!t0 || r->run->start_unix_ms < t0)
			t0 = r->run->start_unix_ms;
		t[k] = r->run->position >= 1 ? r->run->position : NAN;
		g[k++] = r->arm;
	}
	for (size_t i = 0, j = 0; i < rd->n_runs && timed; i++)
		if (!rd->runs[i].is_void)
			ts[j++] = (double)(rd->runs[i].run->start_unix_ms - t0) / 1000.0;
	if (!timed && wall_clock_times(rd, ts)) {
		/* imports placed by their logs' clocks: the time term and the
		 * span are theirs */
		timed = true;
		memcpy(t, ts, k * sizeof *t);
	}
	for (size_t m = 0; m < nm && rd->n_arms <= STATS_MAX_GROUPS; m++) {
		size_t j = 0;
		for (size_t i = 0; i < rd->n_runs; i++)
			if (!rd->runs[i].is_void)
				v[j++] = rd->runs[i].v[m];
		struct stats_design d = { .v = v, .group = g, .t = t, .n = k, .n_groups = rd->n_arms };
		if ((err = stats_drift(&d, timed ? ts : NULL, 0.05, &rd->drift[m])) < 0)
			goto out;
	}
	for (size_t m = 0; m < nm; m++) {
		const struct stats_drift *dr = &rd->drift[m];
		if (!rd->primary[m] || !dr->known || !dr->real)
			continue;
		char text[128];
		stats_drift_text(&stats_metrics[m], dr, text, sizeof text);
		add_warning(rd, "%s drifted %s (the model's time term, 95 %% interval, which "
		            "excludes 0): the time term takes a smooth drift out; read calls of arms "
		            "run in blocks with it in mind", stats_metrics[m].label, text);
		break;
	}
	for (size_t a = 0; a < rd->n_arms; a++) {
		bool blocks = false;
		for (size_t m = 0; m < nm && a != rd->base; m++)
			blocks |= rd->arms[a].has_dec[m] && !rd->arms[a].dec[m].interleaved;
		if (blocks) {
			add_warning(rd, "arms not interleaved: %c and %c ran in blocks, so their difference "
			            "and the drift between the blocks cannot be told apart; the interval "
			            "is as wide as that leaves it", rd->arms[rd->base].arm->letter,
			            rd->arms[a].arm->letter);
			break;
		}
	}
out:
	free(v);
	free(t);
	free(ts);
	free(g);
	if (err)
		return err;
	/* void runs mostly in one arm */
	size_t total = 0, top = 0, top_arm = 0, runs_total = 0;
	for (size_t a = 0; a < rd->n_arms; a++) {
		total += rd->arms[a].n_void;
		runs_total += rd->arms[a].n_runs;
		if (rd->arms[a].n_void > top) {
			top = rd->arms[a].n_void;
			top_arm = a;
		}
	}
	if (total >= 2 && rd->n_arms >= 2 && 3 * top >= 2 * total &&
	    (double)top / (double)total > (double)rd->arms[top_arm].n_runs / (double)runs_total)
		add_warning(rd, "%zu of the %zu void runs are arm %c's: a rule that removes one arm's runs "
		            "biases its numbers; see why they were voided", top, total,
		            rd->arms[top_arm].arm->letter);
	return 0;
}

/* The decisions of every arm against the baseline (docs/metrics.md, "The
 * decision"): one design per metric over every arm's usable runs. */
static int decide_arms(struct report_data *rd, const struct report_options *opts)
{
	int err = verdict_settings(rd);
	if (err)
		return report_fail(opts, err, "out of memory");
	round_facts(rd);
	rd->look = rd->campaign->rounds > 0 ? rd->campaign->rounds : 1;
	/* the primary comparisons the stop rule shares 5 % over */
	rd->n_family = 0;
	for (size_t m = 0; m < rd->n_metrics; m++)
		rd->n_family += rd->primary[m] && rd->has_data[m] ? rd->n_arms - 1 : 0;
	rd->alpha = look_alpha(rd, rd->look);
	/* a deadline ended it before its planned maximum: its last look spends
	 * what is left */
	if (rd->max_rounds > 0 && rd->final_look && rd->look < rd->max_rounds)
		rd->alpha = stats_sequential_alpha_final(stats_family_alpha(0.05, rd->n_family), rd->look,
		                                         rd->max_rounds);
	if (rd->n_arms > STATS_MAX_GROUPS)
		return 0;
	size_t n = rd->n_runs ? rd->n_runs : 1;
	double *v = malloc(n * sizeof *v), *t = malloc(n * sizeof *t);
	size_t *g = malloc(n * sizeof *g);
	const struct stats_metric_def **defs = malloc(rd->n_metrics * sizeof *defs);
	struct stats_decision *fam = malloc(rd->n_metrics * sizeof *fam);
	if (!v || !t || !g || !defs || !fam) {
		err = -ENOMEM;
		goto out;
	}
	bool placed = true;
	size_t k = 0;
	for (size_t i = 0; i < rd->n_runs; i++) {
		const struct report_run *r = &rd->runs[i];
		if (r->is_void)
			continue;
		placed &= run_placed(rd, r);
		t[k] = r->run->position;
		g[k] = r->arm;
		k++;
	}
	/* imports placed by their logs' clocks: the time term is fitted on
	 * the real spacing */
	if (wall_clock_times(rd, t))
		placed = true;
	for (size_t m = 0; m < rd->n_metrics && !err; m++) {
		if (!rd->has_data[m])
			continue;
		size_t j = 0;
		for (size_t i = 0; i < rd->n_runs; i++)
			if (!rd->runs[i].is_void)
				v[j++] = rd->runs[i].v[m];
		struct stats_design d = { .v = v, .group = g, .t = placed ? t : NULL, .n = k,
			                  .n_groups = rd->n_arms };
		for (size_t a = 0; a < rd->n_arms && !err; a++) {
			if (a == rd->base)
				continue;
			struct stats_decide_options o = { .alpha = rd->alpha,
				                          .min_effect_pct = rd->min_effect_pct[m],
				                          .primary = rd->primary[m],
				                          .spec = &stats_metrics[m].spec,
				                          .time_rule = rd->time_rule };
			int rc = stats_decide(&stats_metrics[m], &d, rd->base, a, &o, &rd->arms[a].dec[m]);
			if (rc == 0)
				rd->arms[a].has_dec[m] = true;
			else if (rc != -ENODATA)
				err = rc;
		}
	}
	/* Holm over each arm's secondary metrics */
	for (size_t a = 0; a < rd->n_arms && !err; a++) {
		struct report_arm *arm = &rd->arms[a];
		if (a == rd->base)
			continue;
		size_t nf = 0;
		for (size_t m = 0; m < rd->n_metrics; m++)
			if (arm->has_dec[m]) {
				defs[nf] = &stats_metrics[m];
				fam[nf++] = arm->dec[m];
			}
		err = stats_decide_family(defs, fam, nf);
		nf = 0;
		for (size_t m = 0; m < rd->n_metrics && !err; m++)
			if (arm->has_dec[m]) {
				arm->dec[m] = fam[nf++];
				if (arm->dec[m].primary && arm->dec[m].state == STATS_STATE_UNDECIDED)
					rounds_needed(rd, &arm->dec[m], &arm->more_rounds[m],
					              &arm->more_rounds_hi[m]);
			}
	}
out:
	free(v);
	free(t);
	free(g);
	free(defs);
	free(fam);
	if (err)
		return report_fail(opts, err, "cannot decide the arms: %s", strerror(-err));
	return 0;
}

int report_campaign_decided(struct db *db, int64_t campaign_id, char baseline, bool *decided,
                            char *errmsg, size_t errmsg_size)
{
	struct report_options o = { .baseline = baseline, .errmsg = errmsg,
		                    .errmsg_size = errmsg_size };
	struct report_data *rd;
	int err = report_data_load(db, campaign_id, &o, &rd);
	if (err)
		return err;
	*decided = rd->all_decided;
	report_data_destroy(rd);
	return 0;
}

int report_stop_reason(struct db *db, int64_t campaign_id, char *text, size_t size, bool *stored,
                       char *errmsg, size_t errmsg_size)
{
	struct report_options o = { .errmsg = errmsg, .errmsg_size = errmsg_size };
	struct report_data *rd;
	int err = report_data_load(db, campaign_id, &o, &rd);
	if (err)
		return err;
	report_stop_text(rd, text, size);
	*stored = rd->stop_stored;
	report_data_destroy(rd);
	return 0;
}

/* The campaign's rows: the campaign, its arms, builds, runs, marks and
 * host facts. */
static int read_rows(struct db *db, int64_t campaign_id, const struct report_options *opts,
                     struct report_data *rd, size_t *n_arms)
{
	int err = db_campaign_get(db, campaign_id, &rd->campaign);
	if (err)
		return report_fail(opts, err, err == -ENOENT ? "no campaign with id %lld in '%s'"
		                                             : "cannot read campaign %lld from '%s': %s",
		                   (long long)campaign_id, db_path(db), db_errmsg(db));
	const char *cname = rd->campaign->name;
	if ((err = db_arm_list(db, campaign_id, &rd->db_arms, n_arms)) ||
	    (err = db_build_list(db, campaign_id, &rd->builds, &rd->n_builds)) ||
	    (err = db_run_list(db, campaign_id, &rd->db_runs, &rd->n_db_runs)) ||
	    (err = db_route_marks_read(db, campaign_id, &rd->marks, &rd->n_marks)) ||
	    (err = db_host_facts_list(db, campaign_id, &rd->hosts, &rd->n_hosts)))
		return report_fail(opts, err, "cannot read campaign '%s': %s", cname, db_errmsg(db));
	rd->no_pad = plan_text_says_no_pad(rd->campaign->plan_text);
	if (*n_arms == 0)
		return report_fail(opts, -ENODATA, "campaign '%s' has no arms", cname);
	return 0;
}

/* The arms with their builds and per-metric arrays, and the baseline
 * (opts->baseline, else the first arm). */
static int setup_arms(struct report_data *rd, size_t n_arms, const struct report_options *opts)
{
	size_t nm = rd->n_metrics;
	rd->arms = calloc(n_arms, sizeof *rd->arms);
	rd->runs = calloc(rd->n_db_runs ? rd->n_db_runs : 1, sizeof *rd->runs);
	rd->has_data = calloc(nm, sizeof *rd->has_data);
	if (!rd->arms || !rd->runs || !rd->has_data)
		return report_fail(opts, -ENOMEM, "out of memory");
	rd->n_arms = n_arms;
	char want = opts && opts->baseline ? opts->baseline : rd->db_arms[0].letter;
	bool found = false;
	for (size_t i = 0; i < n_arms; i++) {
		struct report_arm *a = &rd->arms[i];
		a->arm = &rd->db_arms[i];
		if (a->arm->letter == want) {
			rd->base = i;
			found = true;
		}
		for (size_t b = 0; b < rd->n_builds; b++)
			if (rd->builds[b].id == a->arm->build_id)
				a->build = &rd->builds[b];
		if (!a->build && rd->n_builds == 1)
			a->build = &rd->builds[0];
		a->runs = calloc(rd->n_db_runs ? rd->n_db_runs : 1, sizeof *a->runs);
		a->has_sum = calloc(nm, sizeof *a->has_sum);
		a->sum = calloc(nm, sizeof *a->sum);
		a->has_cmp = calloc(nm, sizeof *a->has_cmp);
		a->cmp = calloc(nm, sizeof *a->cmp);
		a->has_dec = calloc(nm, sizeof *a->has_dec);
		a->dec = calloc(nm, sizeof *a->dec);
		a->more_rounds = calloc(nm, sizeof *a->more_rounds);
		a->more_rounds_hi = calloc(nm, sizeof *a->more_rounds_hi);
		if (!a->runs || !a->has_sum || !a->sum || !a->has_cmp || !a->cmp || !a->has_dec ||
		    !a->dec || !a->more_rounds || !a->more_rounds_hi)
			return report_fail(opts, -ENOMEM, "out of memory");
	}
	if (!found)
		return report_fail(opts, -ENOENT, "campaign '%s' has no arm '%c' for a baseline",
		                   rd->campaign->name, want);
	return 0;
}

/* Every finished run (done or void, not a warm-up) with its metric values,
 * filed under its arm; warm-ups and runs still to come are counted. */
static int load_runs(struct db *db, struct report_data *rd, const struct report_options *opts)
{
	size_t nm = rd->n_metrics;
	for (size_t i = 0; i < rd->n_db_runs; i++) {
		const struct db_run *dr = &rd->db_runs[i];
		if (dr->is_warmup) {
			rd->n_warmup++;
			continue;
		}
		if (dr->status != DB_RUN_DONE && dr->status != DB_RUN_VOID) {
			rd->n_pending++;
			continue;
		}
		size_t ai = 0;
		for (; ai < rd->n_arms; ai++)
			if (rd->db_arms[ai].id == dr->arm_id)
				break;
		if (ai == rd->n_arms)
			continue; /* foreign keys make this impossible */
		struct report_run *r = &rd->runs[rd->n_runs];
		r->run = dr;
		r->arm = ai;
		r->is_void = dr->status == DB_RUN_VOID;
		r->v = malloc(nm * sizeof *r->v);
		if (!r->v)
			return report_fail(opts, -ENOMEM, "out of memory");
		rd->n_runs++;
		int err = load_run_values(db, rd, r);
		if (err)
			return report_fail(opts, err, "cannot read the results of run %d of campaign '%s': %s",
			                   dr->position, rd->campaign->name,
			                   db_errmsg(db)[0] ? db_errmsg(db) : strerror(-err));
		struct report_arm *a = &rd->arms[ai];
		a->runs[a->n_runs++] = rd->n_runs - 1;
		if (r->is_void)
			a->n_void++;
		else
			a->n_usable++;
		for (size_t m = 0; m < nm; m++)
			if (isfinite(r->v[m]))
				rd->has_data[m] = true;
	}
	return 0;
}

int report_data_load(struct db *db, int64_t campaign_id, const struct report_options *opts,
                     struct report_data **out)
{
	struct report_data *rd = calloc(1, sizeof *rd);
	if (!rd)
		return report_fail(opts, -ENOMEM, "out of memory");
	for (rd->n_metrics = 0; stats_metrics[rd->n_metrics].key; rd->n_metrics++)
		;
	size_t n_arms = 0;
	int err = read_rows(db, campaign_id, opts, rd, &n_arms);
	if (!err)
		err = setup_arms(rd, n_arms, opts);
	if (!err)
		err = load_runs(db, rd, opts);
	if (!err)
		err = compare_arms(rd, opts);
	char stored[16] = "";
	if (!err && (err = db_campaign_stop_reason(db, campaign_id, stored, sizeof stored)))
		err = report_fail(opts, err, "cannot read campaign '%s': %s", rd->campaign->name,
		                  db_errmsg(db));
	rd->final_look = strcmp(stored, "deadline") == 0;
	if (!err)
		err = decide_arms(rd, opts);
	if (!err)
		stop_facts(rd, stored);
	if (!err && (err = drift_and_warnings(rd)))
		err = report_fail(opts, err, "out of memory");
	if (!err && (err = report_headline_make(rd)))
		err = report_fail(opts, err, "out of memory");
	if (err) {
		report_data_destroy(rd);
		return err;
	}
	*out = rd;
	return 0;
}

int report_run_frame_times(struct db *db, const struct report_run *r, double **x_s, double **ms,
                           size_t *n, bool *on_route)
{
	struct db_frame *f;
	size_t nf;
	int err = db_frames_read(db, r->run->id, &f, &nf);
	if (err)
		return err;
	double *x = malloc((nf ? nf : 1) * sizeof *x);
	double *y = malloc((nf ? nf : 1) * sizeof *y);
	if (!x || !y) {
		free(x);
		free(y);
		free(f);
		return -ENOMEM;
	}
	size_t k = 0;
	int64_t t0 = 0, prev = 0;
	bool have_prev = false;
	for (size_t i = 0; i < nf; i++) {
		if (f[i].kind != DB_FRAME_REAL)
			continue;
		if (!have_prev) {
			t0 = r->has_t0 ? r->t0_ns : f[i].present_ns;
			prev = f[i].present_ns;
			have_prev = true;
			continue;
		}
		if (f[i].present_ns < prev)
			continue;
		x[k] = (double)(f[i].present_ns - t0) / 1e9;
		/* MangoHud and PresentMon measured each frame time themselves
		 * (MangoHud's rows may be samples, a present apart is not one) */
		if (f[i].source != DB_FRAME_RXVK && !(f[i].absent & DB_FRAME_NO_FRAME_MS))
			y[k] = f[i].frame_ms;
		else
			y[k] = (double)(f[i].present_ns - prev) / 1e6;
		prev = f[i].present_ns;
		k++;
	}
	free(f);
	*x_s = x;
	*ms = y;
	*n = k;
	*on_route = r->has_t0;
	return 0;
}

int report_campaign_resolve(struct db *db, const char *name_or_id,
                            const struct report_options *opts, int64_t *id_out)
{
	struct db_campaign *c = NULL;
	int err;
	if (!name_or_id || !name_or_id[0]) {
		size_t n;
		err = db_campaign_list(db, &c, &n);
		if (err)
			return report_fail(opts, err, "cannot list campaigns in '%s': %s", db_path(db),
			                   db_errmsg(db));
		if (n == 0) {
			free(c);
			return report_fail(opts, -ENOENT, "no campaign in '%s' yet", db_path(db));
		}
		*id_out = c[0].id;
		free(c);
		return 0;
	}
	err = db_campaign_find(db, name_or_id, &c);
	if (err == 0) {
		*id_out = c->id;
		free(c);
		return 0;
	}
	if (err != -ENOENT)
		return report_fail(opts, err, "cannot read campaign '%s' from '%s': %s", name_or_id,
		                   db_path(db), db_errmsg(db));
	char *end;
	errno = 0;
	long long id = strtoll(name_or_id, &end, 10);
	if (!errno && *end == 0 && id > 0 && db_campaign_get(db, id, &c) == 0) {
		*id_out = c->id;
		free(c);
		return 0;
	}
	return report_fail(opts, -ENOENT, "no campaign '%s' in '%s'", name_or_id, db_path(db));
}
