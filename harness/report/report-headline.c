/* report-headline: the answer, first in every output (docs/reports.md,
 * "The headline").  One line per arm against the baseline on the primary
 * metrics, in the registry's words and in numbers (Δ % with its interval,
 * the runs), the arms decided on the first primary metric first, best
 * first; then which decided arm is best on that metric, or how many more
 * rounds would decide one.  It owns the call of an arm over its primaries
 * and the headline's text; the decisions are stats' (report-data.c makes
 * them), and every output (terminal, Markdown, JSON, HTML, the forge
 * summary) prints what this file computes. */
#include "report-private.h"

#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* fmt() whose cut is the caller's choice (a line that long is cut). */
static void fmt(char *buf, size_t size, const char *f, ...) __attribute__((format(printf, 3, 4)));
static void fmt(char *buf, size_t size, const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	vsnprintf(buf, size, f, ap);
	va_end(ap);
}

size_t report_u8_width(const char *s)
{
	size_t w = 0;
	for (; s && *s; s++)
		w += ((unsigned char)*s & 0xC0) != 0x80;
	return w;
}

double report_mean_ci_half(const struct stats_summary *s)
{
	if (s->n < 2)
		return NAN;
	return stats_t_quantile_two_sided(0.05, (double)(s->n - 1)) * s->sd / sqrt((double)s->n);
}

void report_num_rounded(char *buf, size_t size, double v, int digits)
{
	if (!isfinite(v)) {
		fmt(buf, size, "%s", "");
		return;
	}
	double f = pow(10.0, digits);
	double r = round(v * f) / f;
	if (r == 0)
		r = 0; /* no "-0" */
	fmt(buf, size, "%.*f", digits > 0 ? digits : 0, r);
	/* the fewest digits: "12.30" as "12.3", "40.0" as "40" */
	if (strchr(buf, '.')) {
		size_t n = strlen(buf);
		while (n && buf[n - 1] == '0')
			buf[--n] = 0;
		if (n && buf[n - 1] == '.')
			buf[--n] = 0;
	}
}

void report_arm_name(const struct report_arm *a, char *buf, size_t size)
{
	if (a->arm->label && a->arm->label[0])
		fmt(buf, size, "%c %s", a->arm->letter, a->arm->label);
	else
		fmt(buf, size, "%c", a->arm->letter);
}

void report_fmt_pct(char *buf, size_t size, double v, bool pct)
{
	if (!isfinite(v)) {
		fmt(buf, size, "-");
		return;
	}
	double a = fabs(v);
	int dec = a >= 99.5 ? 0 : a >= 9.95 ? 0 : 1;
	char num[32];
	fmt(num, sizeof num, "%.*f", dec, a);
	bool zero = strspn(num, "0.") == strlen(num);
	fmt(buf, size, "%s%s%s", zero ? "" : v < 0 ? "\xe2\x88\x92" : "+", num, pct ? " %" : "");
}

/* Whether a is better than b on the metric (its direction; a neutral
 * metric: larger). */
static bool better_delta(const struct stats_metric_def *d, double a, double b)
{
	return d->direction == STATS_LOWER_IS_BETTER ? a < b : a > b;
}

static int cmp_lines_ctx_sort(const struct report_data *rd, const struct report_headline_line *x,
                              const struct report_headline_line *y, int p0)
{
	bool dx = x->n_m && x->m[0].dec && x->m[0].dec->state != STATS_STATE_UNDECIDED;
	bool dy = y->n_m && y->m[0].dec && y->m[0].dec->state != STATS_STATE_UNDECIDED;
	if (dx != dy)
		return dx ? -1 : 1;
	if (dx && p0 >= 0) {
		const struct stats_metric_def *d = &stats_metrics[p0];
		double a = x->m[0].dec->delta, b = y->m[0].dec->delta;
		if (better_delta(d, a, b))
			return -1;
		if (better_delta(d, b, a))
			return 1;
	}
	return (int)rd->arms[x->arm].arm->letter - (int)rd->arms[y->arm].arm->letter;
}

/* Insertion sort: a handful of arms, and qsort has no context argument. */
static void sort_lines(const struct report_data *rd, struct report_headline *h)
{
	for (size_t i = 1; i < h->n_lines; i++) {
		struct report_headline_line t = h->lines[i];
		size_t j = i;
		while (j > 0 && cmp_lines_ctx_sort(rd, &t, &h->lines[j - 1], h->primary0) < 0) {
			h->lines[j] = h->lines[j - 1];
			j--;
		}
		h->lines[j] = t;
	}
}

static const char *call_word(const struct report_data *rd, const struct report_headline *h,
                             enum report_call c)
{
	const struct stats_metric_def *d = h->primary0 >= 0 ? &stats_metrics[h->primary0] : NULL;
	(void)rd;
	switch (c) {
	case REPORT_CALL_BETTER: return d ? stats_state_word(d, STATS_STATE_FASTER) : "better";
	case REPORT_CALL_WORSE: return d ? stats_state_word(d, STATS_STATE_SLOWER) : "worse";
	case REPORT_CALL_MIXED: return "mixed";
	case REPORT_CALL_SAME: return "same";
	case REPORT_CALL_UNDECIDED:
	default: return "undecided";
	}
}

static void make_line(const struct report_data *rd, struct report_headline *h, size_t a,
                      struct report_headline_line *l)
{
	const struct report_arm *arm = &rd->arms[a];
	*l = (struct report_headline_line){ .arm = a, .more_rounds = NAN, .more_rounds_hi = NAN };
	bool all = true, better = false, worse = false, any_other = false, first = true;
	for (size_t m = 0; m < rd->n_metrics; m++) {
		if (!rd->primary[m] || !rd->has_data[m])
			continue;
		const struct stats_decision *x = arm->has_dec[m] ? &arm->dec[m] : NULL;
		if (l->n_m < REPORT_HEADLINE_METRICS) {
			struct report_headline_metric *hm = &l->m[l->n_m++];
			hm->metric = m;
			hm->dec = x;
			hm->ci_low_pct = hm->ci_high_pct = NAN;
			double bm = arm->has_cmp[m] ? fabs(arm->cmp[m].base.mean) : NAN;
			if (x && isfinite(x->delta_pct) && isfinite(bm) && bm > 0 && isfinite(x->ci_low) &&
			    isfinite(x->ci_high)) {
				hm->ci_low_pct = x->ci_low / bm * 100.0;
				hm->ci_high_pct = x->ci_high / bm * 100.0;
			}
		}
		if (first && x) {
			l->n_arm = x->n_arm;
			l->n_base = x->n_baseline;
		}
		first = false;
		if (!x || x->state == STATS_STATE_UNDECIDED) {
			/* the rounds until the last of them would be decided */
			double more = x && arm->more_rounds[m] != 0 ? arm->more_rounds[m] : NAN;
			double hi = x && arm->more_rounds[m] != 0 ? arm->more_rounds_hi[m] : NAN;
			if (all) {
				l->more_rounds = more;
				l->more_rounds_hi = hi;
			} else if (isnan(more) || isnan(l->more_rounds)) {
				l->more_rounds = l->more_rounds_hi = NAN;
			} else {
				l->more_rounds = fmax(l->more_rounds, more);
				l->more_rounds_hi = fmax(l->more_rounds_hi, hi);
			}
			all = false;
			continue;
		}
		int s = stats_state_sign(x->state);
		better |= s > 0;
		worse |= s < 0;
		any_other |= s == 0 && x->state != STATS_STATE_SAME;
	}
	if (!all)
		l->call = REPORT_CALL_UNDECIDED;
	else if (better && worse)
		l->call = REPORT_CALL_MIXED;
	else if (better)
		l->call = REPORT_CALL_BETTER;
	else if (worse)
		l->call = REPORT_CALL_WORSE;
	else
		l->call = any_other ? REPORT_CALL_MIXED : REPORT_CALL_SAME;
	if (l->call != REPORT_CALL_UNDECIDED)
		l->more_rounds = l->more_rounds_hi = NAN;
	l->word = call_word(rd, h, l->call);
}

/* The closing sentence. */
static void verdict_sentence(const struct report_data *rd, struct report_headline *h)
{
	const struct report_arm *base = &rd->arms[rd->base];
	char name[160], pct[32], lo[32], hi[32];
	if (h->primary0 < 0 || h->n_lines == 0) {
		fmt(h->verdict, sizeof h->verdict, "%s",
		         rd->n_arms < 2 ? "one arm: nothing to compare"
		                        : "no primary metric has a value: nothing decided");
		return;
	}
	const struct stats_metric_def *d = &stats_metrics[h->primary0];
	char metric[96];
	stats_metric_name(d, metric, sizeof metric);
	if (h->best >= 0) {
		const struct report_headline_line *l = &h->lines[h->best];
		report_arm_name(&rd->arms[l->arm], name, sizeof name);
		report_fmt_pct(pct, sizeof pct, l->m[0].dec->delta_pct, true);
		if (isfinite(l->m[0].ci_low_pct)) {
			report_fmt_pct(lo, sizeof lo, l->m[0].ci_low_pct, false);
			report_fmt_pct(hi, sizeof hi, l->m[0].ci_high_pct, false);
			fmt(h->verdict, sizeof h->verdict, "best on %s: %s, %s [%s, %s]", metric,
			         name, pct, lo, hi);
		} else {
			fmt(h->verdict, sizeof h->verdict, "best on %s: %s, %s", metric, name, pct);
		}
		return;
	}
	if (h->any_decided) {
		fmt(h->verdict, sizeof h->verdict, "no decided arm is %s than %c on %s",
		         stats_state_word(d, STATS_STATE_FASTER), base->arm->letter, metric);
		return;
	}
	/* nothing decided: when the first arm would be */
	double soonest = NAN, soonest_hi = NAN;
	bool unknown = false;
	for (size_t i = 0; i < h->n_lines; i++) {
		double m = h->lines[i].more_rounds;
		if (isnan(m)) {
			unknown = true;
		} else if (isnan(soonest) || m < soonest) {
			soonest = m;
			soonest_hi = h->lines[i].more_rounds_hi;
		}
	}
	if (isnan(soonest)) {
		fmt(h->verdict, sizeof h->verdict, "no arm decided yet: %s",
		         unknown ? "too few runs to say how many more rounds would decide one"
		                 : "nothing to decide");
		return;
	}
	char more[200];
	report_more_text(rd, soonest, soonest_hi, more, sizeof more);
	fmt(h->verdict, sizeof h->verdict, "no arm decided yet: %s", more);
}

int report_headline_make(struct report_data *rd)
{
	struct report_headline *h = &rd->headline;
	*h = (struct report_headline){ .primary0 = -1, .best = -1 };
	for (size_t m = 0; m < rd->n_metrics && h->primary0 < 0; m++)
		if (rd->primary[m] && rd->has_data[m])
			h->primary0 = (int)m;
	h->lines = calloc(rd->n_arms ? rd->n_arms : 1, sizeof *h->lines);
	if (!h->lines)
		return -ENOMEM;
	for (size_t a = 0; a < rd->n_arms; a++)
		if (a != rd->base)
			make_line(rd, h, a, &h->lines[h->n_lines++]);
	sort_lines(rd, h);
	for (size_t i = 0; i < h->n_lines; i++) {
		const struct report_headline_line *l = &h->lines[i];
		if (!l->n_m || !l->m[0].dec || l->m[0].dec->state == STATS_STATE_UNDECIDED)
			continue;
		h->any_decided = true;
		/* sorted best first: the first decided arm better on it is the best */
		if (h->best < 0 && stats_state_sign(l->m[0].dec->state) > 0)
			h->best = (int)i;
	}
	verdict_sentence(rd, h);
	return 0;
}

void report_name_cut(char *name, size_t max)
{
	if (!max || report_u8_width(name) <= max)
		return;
	size_t w = 0, i = 0;
	while (name[i] && w < max - 1) {
		i++;
		while (((unsigned char)name[i] & 0xC0) == 0x80)
			i++;
		w++;
	}
	memcpy(name + i, "\xe2\x80\xa6", 4);
}

void report_headline_cols(const struct report_data *rd, const struct report_headline_line *l,
                          int detail, size_t name_max,
                          char cols[REPORT_HEADLINE_COLS][REPORT_HEADLINE_COL_B])
{
	for (size_t c = 0; c < REPORT_HEADLINE_COLS; c++)
		cols[c][0] = 0;
	report_arm_name(&rd->arms[l->arm], cols[0], REPORT_HEADLINE_COL_B);
	report_name_cut(cols[0], name_max);
	fmt(cols[1], REPORT_HEADLINE_COL_B, "%s", l->word);
	for (size_t i = 0; i < l->n_m && (detail > 0 || i == 0); i++) {
		const struct report_headline_metric *hm = &l->m[i];
		const struct stats_metric_def *d = &stats_metrics[hm->metric];
		char pct[32], lo[32], hi[32], *part = cols[2 + i];
		size_t ps = REPORT_HEADLINE_COL_B;
		if (!hm->dec) {
			fmt(part, ps, "%s no usable runs", d->short_label);
			continue;
		}
		report_fmt_pct(pct, sizeof pct, hm->dec->delta_pct, true);
		if (!isfinite(hm->dec->delta_pct))
			fmt(pct, sizeof pct, "%+.*f%s%s", d->decimals + 1, hm->dec->delta,
			    d->unit[0] ? " " : "", d->unit);
		/* a primary whose state is not the line's says its own */
		const char *own = stats_state_word(d, hm->dec->state);
		bool say = l->call == REPORT_CALL_MIXED ||
		           (l->call == REPORT_CALL_UNDECIDED && hm->dec->state != STATS_STATE_UNDECIDED);
		/* runs in levels say so: "(two levels: 154, 213 fps)" */
		char lv[120] = "";
		if (detail >= 2 && hm->dec->levels_text[0])
			fmt(lv, sizeof lv, " (%s)", hm->dec->levels_text);
		if (detail >= 2 && isfinite(hm->ci_low_pct)) {
			report_fmt_pct(lo, sizeof lo, hm->ci_low_pct, false);
			report_fmt_pct(hi, sizeof hi, hm->ci_high_pct, false);
			fmt(part, ps, "%s %s [%s, %s]%s%s%s", d->short_label, pct, lo, hi, say ? " " : "",
			    say ? own : "", lv);
		} else {
			fmt(part, ps, "%s %s%s%s%s", d->short_label, pct, say ? " " : "", say ? own : "", lv);
		}
	}
	if (detail >= 1 && l->n_m)
		fmt(cols[REPORT_HEADLINE_COLS - 1], REPORT_HEADLINE_COL_B, "%zu vs %zu runs", l->n_arm,
		    l->n_base);
}

void report_headline_text(const struct report_data *rd, const struct report_headline_line *l,
                          int detail, size_t name_max, const size_t *widths, char *buf,
                          size_t size)
{
	char cols[REPORT_HEADLINE_COLS][REPORT_HEADLINE_COL_B];
	report_headline_cols(rd, l, detail, name_max, cols);
	size_t o = 0;
	buf[0] = 0;
	for (size_t c = 0; c < REPORT_HEADLINE_COLS; c++) {
		/* an empty column is left out, unless widths keep its place */
		if (!cols[c][0] && !(widths && widths[c]))
			continue;
		size_t w = report_u8_width(cols[c]);
		size_t pad = widths && c + 1 < REPORT_HEADLINE_COLS && widths[c] > w ? widths[c] - w : 0;
		int n = snprintf(buf + o, o < size ? size - o : 0, "%s%s%*s", o ? "   " : "", cols[c],
		                 (int)pad, "");
		if (n < 0)
			break;
		o += (size_t)n;
		if (o >= size)
			break;
	}
	/* no trailing blanks */
	if (o < size)
		while (o && buf[o - 1] == ' ')
			buf[--o] = 0;
}

void report_md_headline(const struct report_data *rd, FILE *out)
{
	const struct report_headline *h = &rd->headline;
	const struct report_arm *base = &rd->arms[rd->base];
	char name[160];
	fprintf(out, "**Headline** against %c", base->arm->letter);
	if (base->arm->label && base->arm->label[0]) {
		fputs(" (", out);
		report_md_text(out, base->arm->label);
		fputc(')', out);
	}
	if (h->primary0 >= 0) {
		fputs(" on the primary metrics (", out);
		bool first = true;
		for (size_t m = 0; m < rd->n_metrics; m++) {
			if (!rd->primary[m] || !rd->has_data[m])
				continue;
			char mn[96];
			stats_metric_name(&stats_metrics[m], mn, sizeof mn);
			fputs(first ? "" : ", ", out);
			report_md_text(out, mn);
			first = false;
		}
		fputs("), Δ % with its interval:", out);
	}
	fputs("\n\n", out);
	for (size_t i = 0; i < h->n_lines; i++) {
		char line[1024];
		report_headline_text(rd, &h->lines[i], 2, 0, NULL, line, sizeof line);
		fputs("- ", out);
		/* the state in bold: the text's second column */
		report_arm_name(&rd->arms[h->lines[i].arm], name, sizeof name);
		size_t nl = strlen(name);
		report_md_text(out, name);
		fputs("   **", out);
		report_md_text(out, h->lines[i].word);
		fputs("**", out);
		const char *rest = line + nl + 3 + strlen(h->lines[i].word);
		report_md_text(out, rest);
		fputc('\n', out);
	}
	if (h->n_lines)
		fputc('\n', out);
	char v[400];
	fmt(v, sizeof v, "%s", h->verdict);
	if (v[0])
		v[0] = (char)(v[0] >= 'a' && v[0] <= 'z' ? v[0] - 'a' + 'A' : v[0]);
	fputs("**", out);
	report_md_text(out, v);
	fputs(".**\n", out);
}
