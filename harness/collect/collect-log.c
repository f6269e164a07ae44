/* collect-log: scanning a game's log with a collector profile, and the
 * per-run metrics of the matched lines.  It owns the renderer log's
 * timestamp prefix `[<seconds>.<6 digits>] ` (CLOCK_MONOTONIC), the
 * window rule for lines (the same (w0, w1] as frames) and the aggregate
 * functions (docs/collector-profiles.md).  The profile format is
 * collect-profile.c's. */
#include "collect-profile-private.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads `[<1..9 digits>.<6 digits>] ` at the start of [s, e).  Returns the
 * prefix length and sets *t_ns, or 0 when the line has no such prefix. */
static size_t timestamp_prefix(const char *s, const char *e, int64_t *t_ns)
{
	const char *p = s;
	if (p >= e || *p != '[')
		return 0;
	p++;
	int64_t sec = 0;
	int nd = 0;
	while (p < e && *p >= '0' && *p <= '9' && nd < 10) {
		sec = sec * 10 + (*p - '0');
		nd++;
		p++;
	}
	if (nd == 0 || nd > 9 || p >= e || *p != '.')
		return 0;
	p++;
	int64_t us = 0;
	for (int i = 0; i < 6; i++, p++) {
		if (p >= e || *p < '0' || *p > '9')
			return 0;
		us = us * 10 + (*p - '0');
	}
	if (p >= e || *p != ']')
		return 0;
	p++;
	if (p >= e || *p != ' ')
		return 0;
	p++;
	*t_ns = sec * 1000000000 + us * 1000;
	return (size_t)(p - s);
}

static void match_free(struct collect_match *m)
{
	for (size_t i = 0; i < m->n_values; i++)
		free(m->values[i].text);
	free(m->values);
	free(m->text);
}

struct scanner {
	const struct collect_profile *p;
	struct collect_log *log;
	size_t cap;
	char *buf;      /* the line as a C string */
	size_t buf_cap;
	regmatch_t *pm;
	size_t pm_n;
};

static int scan_line(struct scanner *sc, const char *s, const char *e, size_t line_no)
{
	const struct collect_profile *p = sc->p;
	int64_t t_ns = COLLECT_UNTIMED;
	if (p->timestamps)
		s += timestamp_prefix(s, e, &t_ns);
	size_t len = (size_t)(e - s);
	if (len + 1 > sc->buf_cap) {
		size_t ncap = (len + 1) * 2;
		char *b = realloc(sc->buf, ncap);
		if (!b)
			return -ENOMEM;
		sc->buf = b;
		sc->buf_cap = ncap;
	}
	memcpy(sc->buf, s, len);
	sc->buf[len] = '\0';
	for (size_t i = 0; i < p->npatterns; i++) {
		const struct collect_pattern *pat = &p->patterns[i];
		if (regexec(&pat->re, sc->buf, pat->ngroups + 1, sc->pm, 0) != 0)
			continue;
		struct collect_log *log = sc->log;
		if (log->n == sc->cap) {
			size_t ncap = sc->cap ? sc->cap * 2 : 64;
			struct collect_match *v = realloc(log->matches, ncap * sizeof *v);
			if (!v)
				return -ENOMEM;
			log->matches = v;
			sc->cap = ncap;
		}
		struct collect_match m = {
			.t_ns = t_ns,
			.line = line_no,
			.pattern = pat->name,
		};
		m.text = strdup(sc->buf);
		m.values = calloc(pat->ncaptures ? pat->ncaptures : 1, sizeof *m.values);
		if (!m.text || !m.values) {
			match_free(&m);
			return -ENOMEM;
		}
		for (size_t k = 0; k < pat->ncaptures; k++) {
			const regmatch_t *g = &sc->pm[pat->captures[k].group];
			struct collect_value *v = &m.values[k];
			v->name = pat->captures[k].name;
			v->value = NAN;
			if (g->rm_so >= 0 && g->rm_eo >= g->rm_so) {
				v->text = strndup(sc->buf + g->rm_so, (size_t)(g->rm_eo - g->rm_so));
				if (v->text)
					collect_parse_number(v->text, v->text + strlen(v->text), &v->value);
			} else {
				v->text = strdup("");
			}
			m.n_values = k + 1;
			if (!v->text) {
				match_free(&m);
				return -ENOMEM;
			}
		}
		if (t_ns == COLLECT_UNTIMED)
			log->untimed_lines++;
		log->matches[log->n++] = m;
		break;
	}
	return 0;
}

int collect_log_scan(const struct collect_profile *profile, const char *name,
                     const char *data, size_t len, bool final,
                     struct collect_log **out, struct collect_error *err)
{
	struct collect_log *log = calloc(1, sizeof *log);
	if (!log)
		return -ENOMEM;
	struct scanner sc = { .p = profile, .log = log };
	int rc = -ENOMEM;
	log->path = strdup(name ? name : "-");
	if (!log->path)
		goto fail;
	size_t groups = 1;
	for (size_t i = 0; i < profile->npatterns; i++)
		if (profile->patterns[i].ngroups + 1 > groups)
			groups = profile->patterns[i].ngroups + 1;
	sc.pm = calloc(groups, sizeof *sc.pm);
	if (!sc.pm)
		goto fail;
	const char *s = data, *end = data + len;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *e = nl ? nl : end;
		log->lines++;
		if (!nl && !final) {
			util_warnings_add(&log->warnings,
			                     "%s:%zu:%zu: last line has no end (the log is still being written?), skipped",
			                     log->path, log->lines, (size_t)(e - s) + 1);
			break;
		}
		const char *le = e;
		if (le > s && le[-1] == '\r')
			le--;
		rc = scan_line(&sc, s, le, log->lines);
		if (rc < 0)
			goto fail;
		s = nl ? nl + 1 : end;
	}
	util_warnings_seal(&log->warnings);
	free(sc.buf);
	free(sc.pm);
	*out = log;
	return 0;
fail:
	if (err)
		snprintf(err->msg, sizeof err->msg, "%s: out of memory", name ? name : "-");
	free(sc.buf);
	free(sc.pm);
	collect_log_destroy(log);
	return rc;
}

int collect_log_load(const struct collect_profile *profile, const char *path,
                     struct collect_log **out, struct collect_error *err)
{
	char *buf;
	size_t len;
	int rc = collect_read_file("log", path, &buf, &len, err);
	if (rc < 0)
		return rc;
	rc = collect_log_scan(profile, path, buf, len, true, out, err);
	free(buf);
	return rc;
}

void collect_log_destroy(struct collect_log *log)
{
	if (!log)
		return;
	for (size_t i = 0; i < log->n; i++)
		match_free(&log->matches[i]);
	free(log->matches);
	util_warnings_finish(&log->warnings);
	free(log->path);
	free(log);
}

static const char *const agg_names[] = {
	[AGG_COUNT] = "count", [AGG_SUM] = "sum", [AGG_MEAN] = "mean", [AGG_MIN] = "min",
	[AGG_MAX] = "max", [AGG_LAST] = "last", [AGG_WMEAN] = "wmean", [AGG_PER] = "per",
};

/* One metric's aggregate so far over its pattern's lines. */
struct agg {
	double a, b, mn, mx, last;
	size_t lines;              /* lines that took part */
	size_t bad, bad_line;      /* lines whose capture is not a number, and the first's */
};

/* The window (t0 + window_s, exclusive then inclusive) in ns, clamped;
 * the whole log for no window.  -EINVAL for a window that is not one. */
static int window_bounds(int64_t t0_ns, const double *window_s, int64_t *lo, int64_t *hi)
{
	*lo = INT64_MIN;
	*hi = INT64_MAX;
	if (!window_s)
		return 0;
	if (!isfinite(window_s[0]) || !isfinite(window_s[1]) ||
	    !(window_s[0] < window_s[1]) || fabs(window_s[0]) > 1e7 || fabs(window_s[1]) > 1e7)
		return -EINVAL;
	int64_t w0 = (int64_t)llround(window_s[0] * 1e9), w1 = (int64_t)llround(window_s[1] * 1e9);
	if (__builtin_add_overflow(t0_ns, w0, lo))
		*lo = w0 > 0 ? INT64_MAX : INT64_MIN;
	if (__builtin_add_overflow(t0_ns, w1, hi))
		*hi = w1 > 0 ? INT64_MAX : INT64_MIN;
	return 0;
}

/* Adds one matched line to the metric's aggregate. */
static void agg_add(const struct collect_metric_def *d, const struct collect_match *mt,
                    struct agg *g)
{
	double x = d->agg == AGG_COUNT ? 0 : mt->values[d->arg[0]].value;
	double y = (d->agg == AGG_WMEAN || d->agg == AGG_PER) ? mt->values[d->arg[1]].value : 0;
	if (!isfinite(x) || !isfinite(y)) {
		/* a group that took no part in the match (an optional
		 * part of the line) is absent, not bad */
		const struct collect_value *vx = d->agg == AGG_COUNT ? NULL : &mt->values[d->arg[0]];
		const struct collect_value *vy = (d->agg == AGG_WMEAN || d->agg == AGG_PER)
		                                         ? &mt->values[d->arg[1]] : NULL;
		bool absent = (vx && !isfinite(vx->value) && vx->text[0] == '\0') ||
		              (vy && !isfinite(vy->value) && vy->text[0] == '\0');
		if (!absent && !g->bad++)
			g->bad_line = mt->line;
		return;
	}
	g->lines++;
	switch (d->agg) {
	case AGG_COUNT:
		break;
	case AGG_SUM:
	case AGG_MEAN:
		g->a += x;
		break;
	case AGG_MIN:
		g->mn = x < g->mn ? x : g->mn;
		break;
	case AGG_MAX:
		g->mx = x > g->mx ? x : g->mx;
		break;
	case AGG_LAST:
		g->last = x;
		break;
	case AGG_WMEAN:
		g->a += x * y;
		g->b += y;
		break;
	case AGG_PER:
		g->a += x;
		g->b += y;
		break;
	}
}

/* The metric's value from its aggregate: NAN without a line (a count is
 * 0 then). */
static double agg_value(const struct collect_metric_def *d, const struct agg *g)
{
	if (d->agg == AGG_COUNT)
		return (double)g->lines;
	if (g->lines == 0)
		return NAN;
	switch (d->agg) {
	case AGG_SUM:
		return g->a;
	case AGG_MEAN:
		return g->a / (double)g->lines;
	case AGG_MIN:
		return g->mn;
	case AGG_MAX:
		return g->mx;
	case AGG_LAST:
		return g->last;
	case AGG_WMEAN:
		return g->b != 0 ? g->a / g->b : NAN;
	case AGG_PER:
		return g->b != 0 ? d->scale * g->a / g->b : NAN;
	case AGG_COUNT:
		break;
	}
	return NAN;
}

int collect_log_metrics_compute(const struct collect_profile *profile,
                                const struct collect_log *log, int64_t t0_ns,
                                const double *window_s,
                                struct collect_log_metrics *out)
{
	int64_t lo, hi;
	if (window_bounds(t0_ns, window_s, &lo, &hi) < 0)
		return -EINVAL;
	struct collect_log_metrics m = { 0 };
	m.v = calloc(profile->nmetrics ? profile->nmetrics : 1, sizeof *m.v);
	if (!m.v)
		return -ENOMEM;
	m.n = profile->nmetrics;

	for (size_t i = 0; i < log->n; i++) {
		const struct collect_match *mt = &log->matches[i];
		if (mt->t_ns == COLLECT_UNTIMED)
			m.untimed_lines++;
		else if (mt->t_ns > lo && mt->t_ns <= hi)
			m.timed_lines++;
	}

	for (size_t k = 0; k < profile->nmetrics; k++) {
		const struct collect_metric_def *d = &profile->metrics[k];
		const char *pname = profile->patterns[d->pattern].name;
		struct agg g = { .mn = INFINITY, .mx = -INFINITY, .last = NAN };
		for (size_t i = 0; i < log->n; i++) {
			const struct collect_match *mt = &log->matches[i];
			if (mt->pattern != pname)
				continue;
			if (mt->t_ns != COLLECT_UNTIMED && !(mt->t_ns > lo && mt->t_ns <= hi))
				continue;
			agg_add(d, mt, &g);
		}
		m.v[k].name = d->name;
		m.v[k].value = agg_value(d, &g);
		m.v[k].lines = g.lines;
		if (g.bad)
			util_warnings_add(&m.warnings,
			                     "%s:%zu: metric '%s' (%s of pattern '%s'): %zu lines with a capture that is not a number were left out",
			                     log->path, g.bad_line, d->name, agg_names[d->agg], pname, g.bad);
	}
	if (window_s && m.untimed_lines)
		util_warnings_add(&m.warnings,
		                     "%s: %zu matched lines have no timestamp prefix and are counted for the whole run",
		                     log->path, m.untimed_lines);
	util_warnings_seal(&m.warnings);
	*out = m;
	return 0;
}

const struct collect_metric *collect_log_metrics_find(const struct collect_log_metrics *m,
                                                      const char *name)
{
	for (size_t i = 0; i < m->n; i++)
		if (strcmp(m->v[i].name, name) == 0)
			return &m->v[i];
	return NULL;
}

void collect_log_metrics_finish(struct collect_log_metrics *m)
{
	if (!m)
		return;
	free(m->v);
	m->v = NULL;
	m->n = 0;
	util_warnings_finish(&m->warnings);
}
