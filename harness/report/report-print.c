/* report-print: the comparison table and verdicts as Markdown, CSV and
 * JSON, and the short summary a forge comment carries.
 *
 * It owns the table's layout (docs/reports.md): one column per arm, one
 * row per metric, each run's value then the mean, Δ and Δ% against the
 * baseline, rows without data left out, void runs shown with their reason
 * and never counted; and the CSV and JSON documents with the same numbers.
 * The numbers are report-data.c's, the statistics stats'.
 */
#include "report-private.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

/* A table row: one metric, or a count with its "ms each" companion; its
 * label is the registry's name (stats_metric_name()). */
struct row {
	const char *key;
	const char *each_key; /* shown as "count × each ms"; NULL for a plain row */
};

static const struct row rows[] = {
	{ "real_fps", NULL },
	{ "shown_fps", NULL },
	{ "p50_ms", NULL },
	{ "p95_ms", NULL },
	{ "p99_ms", NULL },
	{ "low_1pct_fps", NULL },
	{ "low_01pct_fps", NULL },
	{ "over_100ms", NULL },
	{ "rb_waits", "rb_wait_each_ms" },
	{ "rb_early_part", "rb_early_part_each_ms" },
	{ "rb_early_whole", NULL },
	{ "rb_parts_ended", NULL },
	{ "rb_late", NULL },
	{ "captures_late", "capture_wait_each_ms" },
	{ "rb_wait_ms", NULL },
	{ "memsync_ms", NULL },
	{ "draws", NULL },
	{ "gpu_busy_percent", NULL },
	{ "swap_in", NULL },
};

/* A row's label: the registry's name; "(runs)" after real fps, whose mean
 * has a row of its own; "(count × ms each)" after a pair. */
static void row_label(const struct row *rw, char *buf, size_t size)
{
	const struct stats_metric_def *d = stats_metric_find(rw->key);
	char name[128];
	stats_metric_name(d, name, sizeof name);
	snprintf(buf, size, "%s%s", name,
	         strcmp(rw->key, "real_fps") == 0 ? " (runs)"
	         : rw->each_key                   ? " (count × ms each)"
	                                          : "");
}

#define N_ROWS (sizeof rows / sizeof rows[0])

/* Markdown text for a table cell or a line: | escaped, < > & as entities,
 * line breaks as spaces. */
void report_md_text(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '|': fputs("\\|", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '\n':
		case '\r': fputc(' ', out); break;
		case '*':
		case '`':
		case '\\': fputc('\\', out); fputc(*s, out); break;
		default: fputc(*s, out);
		}
	}
}

/* Text as a code span (env lines): only | needs escaping in a table. */
void report_md_code(FILE *out, const char *s)
{
	if (strchr(s, '`')) {
		report_md_text(out, s);
		return;
	}
	fputc('`', out);
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', out);
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, out);
	}
	fputc('`', out);
}

/* A link or a path to the run file: <URL> for a URL without spaces or
 * angle brackets, else a code span. */
static void md_link_or_path(FILE *out, const char *s)
{
	bool url = (strncmp(s, "https://", 8) == 0 || strncmp(s, "http://", 7) == 0) &&
	           !strpbrk(s, " <>\n\r\t");
	if (url)
		fprintf(out, "<%s>", s);
	else
		report_md_code(out, s);
}

static void fmt_fixed(char *buf, size_t size, double v, int decimals)
{
	if (!isfinite(v))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.*f", decimals, v);
}

static int decimals_of(int idx)
{
	return idx >= 0 ? stats_metrics[idx].decimals : 2;
}

/* A run's value: counts (metrics without a unit) that are whole print
 * without decimals ("268", not "268.0"). */
static void fmt_run_value(char *buf, size_t size, double v, int idx)
{
	bool count = idx >= 0 && !(stats_metrics[idx].unit && stats_metrics[idx].unit[0]);
	fmt_fixed(buf, size, v, count && isfinite(v) && v == floor(v) ? 0 : decimals_of(idx));
}

/* "268 × 23.30 ms", or the count alone when no wait was timed.  dc < 0:
 * the count as a run's value of metric -dc - 1. */
static void fmt_pair(char *buf, size_t size, double count, double each, int dc, int de)
{
	char a[48], b[48];
	if (dc < 0)
		fmt_run_value(a, sizeof a, count, -dc - 1);
	else
		fmt_fixed(a, sizeof a, count, dc);
	if (!isfinite(each)) {
		snprintf(buf, size, "%s", a);
		return;
	}
	fmt_fixed(b, sizeof b, each, de);
	snprintf(buf, size, "%s × %s ms", a, b);
}

static void arm_header(FILE *out, const struct report_arm *a)
{
	fprintf(out, "%c", a->arm->letter);
	if (a->arm->label && a->arm->label[0]) {
		fputs(": ", out);
		report_md_text(out, a->arm->label);
	}
}

/* One arm's cell of a row: each run's value (void ones marked), then the
 * mean when more than one run counted. */
static void row_cell(FILE *out, const struct report_data *rd, const struct report_arm *a,
                     const struct row *rw, bool with_mean)
{
	int i = report_metric_index(rw->key);
	int j = rw->each_key ? report_metric_index(rw->each_key) : -1;
	bool first = true;
	char buf[128];
	for (size_t k = 0; k < a->n_runs; k++) {
		const struct report_run *r = &rd->runs[a->runs[k]];
		double v = r->v[i], e = j >= 0 ? r->v[j] : NAN;
		if (j >= 0)
			fmt_pair(buf, sizeof buf, v, e, -i - 1, decimals_of(j));
		else
			fmt_run_value(buf, sizeof buf, v, i);
		fputs(first ? "" : ", ", out);
		first = false;
		if (r->is_void)
			fprintf(out, "void (%s)", buf);
		else
			fputs(buf, out);
	}
	if (first)
		fputs("-", out);
	if (with_mean && a->has_sum[i] && a->sum[i].n > 1) {
		double em = j >= 0 && a->has_sum[j] ? a->sum[j].mean : NAN;
		if (j >= 0)
			fmt_pair(buf, sizeof buf, a->sum[i].mean, em, decimals_of(i) + 1,
			         decimals_of(j) + 1);
		else
			fmt_fixed(buf, sizeof buf, a->sum[i].mean, decimals_of(i) + 1);
		fprintf(out, "; mean %s", buf);
	}
}

static bool row_has_data(const struct report_data *rd, const struct row *rw)
{
	int i = report_metric_index(rw->key);
	int j = rw->each_key ? report_metric_index(rw->each_key) : -1;
	return (i >= 0 && rd->has_data[i]) || (j >= 0 && rd->has_data[j]);
}

static void md_table(const struct report_data *rd, FILE *out)
{
	const struct report_arm *base = &rd->arms[rd->base];
	fputs("| ", out);
	report_md_text(out, rd->campaign->device_model ? rd->campaign->device_model : "");
	fputs(" |", out);
	for (size_t i = 0; i < rd->n_arms; i++) {
		fputc(' ', out);
		arm_header(out, &rd->arms[i]);
		fputs(" |", out);
	}
	fputs("\n|---|", out);
	for (size_t i = 0; i < rd->n_arms; i++)
		fputs("---|", out);
	fputs("\n| env |", out);
	for (size_t i = 0; i < rd->n_arms; i++) {
		char env[1024];
		report_env_line(rd->arms[i].arm->env, env, sizeof env);
		fputc(' ', out);
		if (env[0])
			report_md_code(out, env);
		else
			fputs("(nothing set)", out);
		fputs(" |", out);
	}
	bool any_build = false;
	for (size_t i = 0; i < rd->n_arms; i++)
		any_build |= rd->arms[i].build != NULL;
	if (any_build) {
		fputs("\n| build |", out);
		for (size_t i = 0; i < rd->n_arms; i++) {
			const struct db_build *b = rd->arms[i].build;
			fputc(' ', out);
			if (b) {
				report_md_text(out, b->label);
				if (b->commit && b->commit[0]) {
					fputs(" @ ", out);
					report_md_text(out, b->commit);
				}
			} else {
				fputc('-', out);
			}
			fputs(" |", out);
		}
	}
	for (size_t ri = 0; ri < N_ROWS; ri++) {
		const struct row *rw = &rows[ri];
		if (!row_has_data(rd, rw))
			continue;
		bool is_fps = strcmp(rw->key, "real_fps") == 0;
		char label[192];
		row_label(rw, label, sizeof label);
		fputs("\n| ", out);
		report_md_text(out, label);
		fputs(" |", out);
		for (size_t i = 0; i < rd->n_arms; i++) {
			fputc(' ', out);
			row_cell(out, rd, &rd->arms[i], rw, !is_fps);
			fputs(" |", out);
		}
		if (!is_fps)
			continue;
		/* the mean against the baseline */
		int m = report_metric_index("real_fps");
		fprintf(out, "\n| mean, against %c |", base->arm->letter);
		for (size_t i = 0; i < rd->n_arms; i++) {
			const struct report_arm *a = &rd->arms[i];
			char buf[64];
			fmt_fixed(buf, sizeof buf, a->has_sum[m] ? a->sum[m].mean : NAN,
			          stats_metrics[m].decimals + 1);
			fprintf(out, " %s", buf);
			if (i != rd->base && a->has_cmp[m]) {
				const struct stats_comparison *c = &a->cmp[m];
				fprintf(out, " (%+.*f", stats_metrics[m].decimals + 1, c->delta);
				if (isfinite(c->delta_pct))
					fprintf(out, ", %+.1f %%", c->delta_pct);
				fputc(')', out);
			}
			fputs(" |", out);
		}
	}
	fputs("\n| usable runs |", out);
	for (size_t i = 0; i < rd->n_arms; i++) {
		const struct report_arm *a = &rd->arms[i];
		fprintf(out, " %zu", a->n_usable);
		if (a->n_void)
			fprintf(out, " (and %zu void)", a->n_void);
		fputs(" |", out);
	}
	fputc('\n', out);
}

void report_md_void_list(const struct report_data *rd, FILE *out)
{
	for (size_t i = 0; i < rd->n_runs; i++) {
		const struct report_run *r = &rd->runs[i];
		if (!r->is_void)
			continue;
		fprintf(out, "- run %d (%c, round %d): ", r->run->position, r->run->arm_letter,
		        r->run->round);
		report_md_text(out, r->run->void_reason ? r->run->void_reason : "no reason stored");
		fputc('\n', out);
	}
}

static void md_void_runs(const struct report_data *rd, FILE *out)
{
	size_t n = 0;
	for (size_t i = 0; i < rd->n_runs; i++)
		n += rd->runs[i].is_void;
	if (!n)
		return;
	fputs("\nVoid runs, shown but not counted:\n\n", out);
	report_md_void_list(rd, out);
}

static const char *method_name(enum stats_method m)
{
	switch (m) {
	case STATS_METHOD_ARM_TIME: return "arm and time model";
	case STATS_METHOD_TWO_SAMPLE: return "two-sample t, pooled variance";
	case STATS_METHOD_NONE:
	default: return "too few runs for an interval";
	}
}

static void md_verdict_cell(FILE *out, const struct stats_metric_def *d,
                            const struct stats_decision *x)
{
	int dec = d->decimals + 1;
	const char *unit = d->unit && d->unit[0] ? d->unit : NULL;
	const char *w = stats_state_word(d, x->state);
	if (x->state != STATS_STATE_UNDECIDED)
		fprintf(out, "**%s**", w);
	else
		fputs(w, out);
	fprintf(out, ": Δ %+.*f%s%s", dec, x->delta, unit ? " " : "", unit ? unit : "");
	if (isfinite(x->delta_pct))
		fprintf(out, " (%+.1f %%)", x->delta_pct);
	if (isfinite(x->ci_low) && isfinite(x->ci_high))
		fprintf(out, ", %.4g %% CI [%+.*f, %+.*f]", 100 * (1 - x->alpha), dec, x->ci_low, dec,
		        x->ci_high);
	else
		fputs(", no interval", out);
	if (isfinite(x->p))
		fprintf(out, ", p = %.2g%s", x->p, x->primary ? "" : " (Holm)");
	/* a minimum effect is never shown as 0: digits until it has two
	 * significant ones (0.003 ms of memory sync at 5 %: ±0.00015) */
	int mdec = dec;
	while (mdec < 9 && x->min_effect > 0 && x->min_effect < 9.5 * pow(10.0, -mdec))
		mdec++;
	fprintf(out, "; ±%.*f minimum; %zu vs %zu runs", mdec, x->min_effect, x->n_arm,
	        x->n_baseline);
	/* the method and its df, the permutation check, levels, and why a
	 * comparison is undecided (docs/metrics.md 6.1, 6.2) */
	char method[96];
	stats_decision_method_text(x, method, sizeof method);
	fputs("; ", out);
	report_md_text(out, method);
	if (isfinite(x->p_perm))
		fprintf(out, ", permutation p = %.2g%s", x->p_perm, x->perm_exact ? "" : " (Monte Carlo)");
	if (x->levels_text[0]) {
		fputs("; ", out);
		report_md_text(out, x->levels_text);
	}
	if (x->state == STATS_STATE_UNDECIDED && x->reason[0]) {
		fputs(" — ", out);
		report_md_text(out, x->reason);
	}
}

static void md_verdicts(const struct report_data *rd, FILE *out)
{
	if (rd->n_arms < 2)
		return;
	const struct report_arm *base = &rd->arms[rd->base];
	enum stats_method method = STATS_METHOD_NONE;
	for (size_t i = 0; i < rd->n_arms && method == STATS_METHOD_NONE; i++)
		for (size_t m = 0; m < rd->n_metrics; m++)
			if (rd->arms[i].has_dec[m] && rd->arms[i].dec[m].method != STATS_METHOD_NONE) {
				method = rd->arms[i].dec[m].method;
				break;
			}
	fprintf(out, "\nVerdicts against %c (docs/metrics.md, \"The decision\"), over runs, by the "
	             "%s: *faster*/*slower* when the %.4g %% interval of Δ excludes 0 and |Δ| is at "
	             "least the metric's minimum effect, *same* when the whole interval lies within "
	             "± the minimum effect, else *undecided*. Primary metrics (",
	        base->arm->letter, method_name(method), 100 * (1 - rd->alpha));
	bool first = true;
	for (size_t m = 0; m < rd->n_metrics; m++)
		if (rd->primary[m]) {
			char name[128];
			stats_metric_name(&stats_metrics[m], name, sizeof name);
			fprintf(out, "%s%s", first ? "" : ", ", name);
			first = false;
		}
	if (rd->max_rounds > 0)
		fprintf(out, ") are decided at %.3g %% each, the level round %d spends of %.3g %% "
		             "(5 %% shared over %zu primary comparison%s) over at most %d rounds (a "
		             "campaign that stops once decided, docs/metrics.md 6.5); the others on "
		             "Holm-adjusted p.",
		        100 * rd->alpha, rd->look,
		        100 * stats_family_alpha(0.05, rd->n_family), rd->n_family,
		        rd->n_family == 1 ? "" : "s", rd->max_rounds);
	else
		fprintf(out, ") are decided at 5 %% each, so over the %zu primary comparison%s "
		             "(primaries × arms) the chance of any false call is at most %.3g %%; the "
		             "others on Holm-adjusted p.",
		        rd->n_family, rd->n_family == 1 ? "" : "s",
		        100 * stats_familywise_bound(0.05, rd->n_family));
	fputs(" Each cell gives the method and its degrees of freedom, and the permutation test "
	      "over the arm labels that a call must agree with.\n\n| metric |", out);
	for (size_t i = 0; i < rd->n_arms; i++) {
		if (i == rd->base)
			continue;
		fputc(' ', out);
		arm_header(out, &rd->arms[i]);
		fputs(" |", out);
	}
	fputs("\n|---|", out);
	for (size_t i = 1; i < rd->n_arms; i++)
		fputs("---|", out);
	bool any_more = false;
	for (size_t m = 0; m < rd->n_metrics; m++) {
		bool any = false;
		for (size_t i = 0; i < rd->n_arms; i++)
			any |= rd->arms[i].has_dec[m];
		if (!any)
			continue;
		const struct stats_metric_def *d = &stats_metrics[m];
		fputs("\n| ", out);
		char name[128];
		stats_metric_name(d, name, sizeof name);
		if (rd->primary[m])
			fputs("**", out);
		report_md_text(out, name);
		if (rd->primary[m])
			fputs("** (primary)", out);
		fputs(" |", out);
		for (size_t i = 0; i < rd->n_arms; i++) {
			const struct report_arm *a = &rd->arms[i];
			if (i == rd->base)
				continue;
			fputc(' ', out);
			if (a->has_dec[m]) {
				md_verdict_cell(out, d, &a->dec[m]);
				any_more |= a->more_rounds[m] != 0 && a->dec[m].primary &&
				            a->dec[m].state == STATS_STATE_UNDECIDED;
			} else {
				fputs("no usable runs", out);
			}
			fputs(" |", out);
		}
	}
	fputc('\n', out);
	if (!any_more)
		return;
	fputs("\nUndecided primary metrics, and the rounds the same model would need to decide them, "
	      "as a range (the spread's own 10-90 % uncertainty, t with the degrees of freedom the "
	      "rounds add, the interval narrowing as 1/√rounds around today's Δ, at the level of "
	      "the look it would be read at; no forecast below 4 df):\n\n", out);
	for (size_t i = 0; i < rd->n_arms; i++) {
		const struct report_arm *a = &rd->arms[i];
		for (size_t m = 0; m < rd->n_metrics && i != rd->base; m++) {
			if (!a->has_dec[m] || a->more_rounds[m] == 0)
				continue;
			char more[160];
			report_more_text(rd, a->more_rounds[m], a->more_rounds_hi[m], more, sizeof more);
			fprintf(out, "- %c, ", a->arm->letter);
			char name[128];
			stats_metric_name(&stats_metrics[m], name, sizeof name);
			report_md_text(out, name);
			fprintf(out, ": Δ %+.1f %%; %s.\n", a->dec[m].delta_pct, more);
		}
	}
}

/* The baseline's drift over the night on the primary metrics, and the
 * warnings. */
static void md_drift(const struct report_data *rd, FILE *out)
{
	bool any = false;
	for (size_t m = 0; m < rd->n_metrics; m++) {
		if (!rd->primary[m] || !rd->drift || !rd->drift[m].known)
			continue;
		const struct stats_metric_def *d = &stats_metrics[m];
		char text[128];
		stats_drift_text(d, &rd->drift[m], text, sizeof text);
		if (!any)
			fputs("\nDrift over the campaign (the model's time term, arms taken out, 95 % "
			      "interval):", out);
		fputs(any ? ";" : "", out);
		fputc(' ', out);
		char name[128];
		stats_metric_name(d, name, sizeof name);
		report_md_text(out, name);
		fputc(' ', out);
		report_md_text(out, text);
		any = true;
	}
	if (any)
		fputs(".\n", out);
	for (size_t i = 0; i < rd->n_warnings; i++) {
		fputs("\n**warning:** ", out);
		report_md_text(out, rd->warnings[i]);
		fputc('\n', out);
	}
}

int report_md_body(const struct report_data *rd, bool void_list, FILE *out)
{
	md_table(rd, out);
	if (void_list)
		md_void_runs(rd, out);
	if (rd->n_pending)
		fprintf(out, "\n%zu planned run%s not finished yet (not shown).\n", rd->n_pending,
		        rd->n_pending == 1 ? "" : "s");
	md_verdicts(rd, out);
	md_drift(rd, out);
	return ferror(out) ? -EIO : 0;
}

static void md_title(const struct report_data *rd, FILE *out, const char *hashes)
{
	const struct db_campaign *c = rd->campaign;
	fprintf(out, "%s Campaign ", hashes);
	report_md_text(out, c->name);
	fputs("\n\n", out);
	if (rd->n_arms > 1) {
		report_md_headline(rd, out);
		fputc('\n', out);
	}
	bool sep = false;
#define FACT(...)                                 \
	do {                                      \
		fputs(sep ? " · " : "", out);     \
		__VA_ARGS__;                      \
		sep = true;                       \
	} while (0)
	if (c->device_model && c->device_model[0])
		FACT(report_md_text(out, c->device_model));
	if (c->gpu && c->gpu[0])
		FACT(report_md_text(out, c->gpu));
	if (c->driver && c->driver[0])
		FACT(report_md_text(out, c->driver));
	if (c->route_name && c->route_name[0])
		FACT(fputs("route ", out); report_md_text(out, c->route_name));
	if (c->window_start_s < c->window_end_s)
		FACT(fprintf(out, "window %g–%g s", c->window_start_s, c->window_end_s));
	if (c->order && c->order[0])
		FACT(fputs("order ", out); report_md_text(out, c->order));
	FACT(fprintf(out, "%d round%s", c->rounds, c->rounds == 1 ? "" : "s"));
	FACT(fprintf(out, "baseline %c", rd->arms[rd->base].arm->letter));
	if (rd->max_rounds > 0) {
		char why[160];
		report_stop_text(rd, why, sizeof why);
		if (why[0])
			FACT(fprintf(out, "stopped: %s", why));
		else
			FACT(fprintf(out, "at most %d rounds, stopping once decided", rd->max_rounds));
	}
	if (rd->no_pad)
		FACT(fputs("no pad (the programs took no input)", out));
#undef FACT
	fputs("\n\n", out);
}

/* The decision's method as a key: "arm_time", "two_sample", "none". */
static const char *method_key(enum stats_method m)
{
	return stats_method_name(m);
}

const char *report_outcome(enum stats_state s)
{
	switch (s) {
	case STATS_STATE_FASTER: return "better";
	case STATS_STATE_SLOWER: return "worse";
	case STATS_STATE_SAME: return "same";
	case STATS_STATE_HIGHER:
	case STATS_STATE_LOWER: return "changed";
	case STATS_STATE_UNDECIDED:
	default: return "undecided";
	}
}

/* ---- CSV ----------------------------------------------------------------- */

static void csv_field(FILE *out, const char *s)
{
	if (!s)
		s = "";
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

struct csv_ctx {
	FILE *out;
	const struct report_data *rd;
	const struct report_arm *a;
	char env[1024];
};

/* One line: campaign,arm,label,env,what,run,round,position,void,metric,value,text */
static void csv_line(struct csv_ctx *x, const char *what, const struct report_run *r,
                     const char *metric, double value, const char *text)
{
	FILE *out = x->out;
	csv_field(out, x->rd->campaign->name);
	fprintf(out, ",%c,", x->a->arm->letter);
	csv_field(out, x->a->arm->label);
	fputc(',', out);
	csv_field(out, x->env);
	fprintf(out, ",%s,", what);
	if (r)
		fprintf(out, "%d,%d,%d,%s,", r->run->position, r->run->round, r->run->position,
		        r->is_void ? "true" : "false");
	else
		fputs(",,,,", out);
	csv_field(out, metric);
	fputc(',', out);
	char num[40];
	report_num_exact(num, sizeof num, value);
	fputs(num, out);
	fputc(',', out);
	csv_field(out, text);
	fputc('\n', out);
}

static int print_csv(const struct report_data *rd, FILE *out)
{
	fputs("campaign,arm,label,env,what,run,round,position,void,metric,value,text\n", out);
	for (size_t i = 0; i < rd->n_arms; i++) {
		struct csv_ctx x = { .out = out, .rd = rd, .a = &rd->arms[i] };
		report_env_line(x.a->arm->env, x.env, sizeof x.env);
		for (size_t k = 0; k < x.a->n_runs; k++) {
			const struct report_run *r = &rd->runs[x.a->runs[k]];
			if (r->is_void)
				csv_line(&x, "run", r, "", NAN,
				         r->run->void_reason ? r->run->void_reason : "void");
			for (size_t m = 0; m < rd->n_metrics; m++)
				if (rd->has_data[m])
					csv_line(&x, "run", r, stats_metrics[m].key, r->v[m],
					         r->is_void ? "void" : "");
		}
		for (size_t m = 0; m < rd->n_metrics; m++) {
			if (!x.a->has_sum[m])
				continue;
			const struct stats_summary *s = &x.a->sum[m];
			const char *k = stats_metrics[m].key;
			csv_line(&x, "n", NULL, k, (double)s->n, "");
			csv_line(&x, "mean", NULL, k, s->mean, "");
			csv_line(&x, "median", NULL, k, s->median, "");
			csv_line(&x, "min", NULL, k, s->min, "");
			csv_line(&x, "max", NULL, k, s->max, "");
			csv_line(&x, "spread", NULL, k, s->spread, "");
			csv_line(&x, "spread_pct", NULL, k, s->spread_pct, "");
			if (!x.a->has_cmp[m])
				continue;
			const struct stats_comparison *c = &x.a->cmp[m];
			csv_line(&x, "delta", NULL, k, c->delta, "");
			csv_line(&x, "delta_pct", NULL, k, c->delta_pct, "");
			if (isfinite(c->p_value))
				csv_line(&x, "mann_whitney_p", NULL, k, c->p_value,
				         c->p_exact ? "exact" : "normal approximation");
			if (!x.a->has_dec[m])
				continue;
			const struct stats_decision *dv = &x.a->dec[m];
			csv_line(&x, "verdict", NULL, k, NAN,
			         stats_state_word(&stats_metrics[m], dv->state));
			csv_line(&x, "verdict_delta", NULL, k, dv->delta, method_name(dv->method));
			csv_line(&x, "verdict_delta_pct", NULL, k, dv->delta_pct, "");
			csv_line(&x, "ci_low", NULL, k, dv->ci_low, "");
			csv_line(&x, "ci_high", NULL, k, dv->ci_high, "");
			csv_line(&x, "p", NULL, k, dv->p, dv->primary ? "primary" : "Holm-adjusted");
			csv_line(&x, "df", NULL, k, dv->method == STATS_METHOD_NONE ? NAN : dv->df,
			         method_key(dv->method));
			csv_line(&x, "min_effect", NULL, k, dv->min_effect, "");
			if (x.a->more_rounds[m] != 0) {
				char more[160];
				report_more_text(x.rd, x.a->more_rounds[m], x.a->more_rounds_hi[m], more,
				                 sizeof more);
				csv_line(&x, "more_rounds", NULL, k, x.a->more_rounds[m], more);
				csv_line(&x, "more_rounds_hi", NULL, k, x.a->more_rounds_hi[m], more);
			}
		}
	}
	return ferror(out) ? -EIO : 0;
}

/* The wide CSV: one row per arm and metric, rounded to the metric's
 * resolution (means, intervals and Δ one digit more, Δ % one decimal,
 * p three significant digits). */
static int print_csv_wide(const struct report_data *rd, FILE *out)
{
	fputs("campaign,arm,label,baseline,metric,name,unit,primary,n,mean,mean_ci_low,mean_ci_high,"
	      "delta,delta_pct,ci_low,ci_high,p,state,outcome,n_baseline,method,df,levels,reason\n",
	      out);
	for (size_t i = 0; i < rd->n_arms; i++) {
		const struct report_arm *a = &rd->arms[i];
		for (size_t m = 0; m < rd->n_metrics; m++) {
			if (!a->has_sum[m])
				continue;
			const struct stats_metric_def *d = &stats_metrics[m];
			const struct stats_summary *su = &a->sum[m];
			const struct stats_decision *dv = a->has_dec[m] ? &a->dec[m] : NULL;
			int dg = d->decimals + 1;
			char name[128], num[64];
			stats_metric_name(d, name, sizeof name);
			csv_field(out, rd->campaign->name);
			fprintf(out, ",%c,", a->arm->letter);
			csv_field(out, a->arm->label);
			fprintf(out, ",%s,%s,", i == rd->base ? "true" : "false", d->key);
			csv_field(out, name);
			fputc(',', out);
			csv_field(out, d->unit);
			fprintf(out, ",%s,%zu", rd->primary[m] ? "true" : "false", su->n);
			double half = report_mean_ci_half(su);
			double vals[] = { su->mean, su->mean - half, su->mean + half };
			for (size_t k = 0; k < 3; k++) {
				report_num_rounded(num, sizeof num, vals[k], dg);
				fprintf(out, ",%s", num);
			}
			double dvals[] = { dv ? dv->delta : NAN, dv ? dv->delta_pct : NAN,
				           dv ? dv->ci_low : NAN, dv ? dv->ci_high : NAN };
			int dig[] = { dg, 1, dg, dg };
			for (size_t k = 0; k < 4; k++) {
				report_num_rounded(num, sizeof num, dvals[k], dig[k]);
				fprintf(out, ",%s", num);
			}
			if (dv && isfinite(dv->p))
				fprintf(out, ",%.3g", dv->p);
			else
				fputc(',', out);
			if (dv)
				fprintf(out, ",%s,%s,%zu,%s,", stats_state_word(d, dv->state),
				        report_outcome(dv->state), dv->n_baseline, method_key(dv->method));
			else
				fputs(",,,,,", out);
			if (dv && dv->method != STATS_METHOD_NONE)
				fprintf(out, "%d", dv->df);
			fputc(',', out);
			csv_field(out, dv ? dv->levels_text : "");
			fputc(',', out);
			csv_field(out, dv && dv->state == STATS_STATE_UNDECIDED ? dv->reason : "");
			fputc('\n', out);
		}
	}
	return ferror(out) ? -EIO : 0;
}

/* ---- JSON ---------------------------------------------------------------- */

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

static int set(json_t *o, const char *k, json_t *v)
{
	return json_object_set_new(o, k, v ? v : json_null());
}

static json_t *arm_json(const struct report_data *rd, const struct report_arm *a)
{
	json_t *o = json_object();
	char letter[2] = { a->arm->letter, 0 };
	set(o, "arm", json_string(letter));
	set(o, "label", jstr(a->arm->label));
	set(o, "env", jstr(a->arm->env));
	if (a->build) {
		json_t *b = json_object();
		set(b, "label", jstr(a->build->label));
		set(b, "commit", jstr(a->build->commit));
		set(b, "sha256", jstr(a->build->sha256));
		set(o, "build", b);
	} else {
		set(o, "build", json_null());
	}
	set(o, "usable_runs", json_integer((json_int_t)a->n_usable));
	set(o, "void_runs", json_integer((json_int_t)a->n_void));
	json_t *runs = json_array();
	for (size_t k = 0; k < a->n_runs; k++) {
		const struct report_run *r = &rd->runs[a->runs[k]];
		json_t *jr = json_object();
		set(jr, "run", json_integer(r->run->position));
		set(jr, "run_id", json_integer(r->run->id));
		set(jr, "round", json_integer(r->run->round));
		set(jr, "void", json_boolean(r->is_void));
		set(jr, "void_reason", r->is_void ? jstr(r->run->void_reason) : json_null());
		for (size_t m = 0; m < rd->n_metrics; m++)
			set(jr, stats_metrics[m].key, jnum(r->v[m]));
		json_array_append_new(runs, jr);
	}
	set(o, "runs", runs);
	static const char *const sums[] = { "n", "mean", "median", "min", "max", "spread",
		                            "spread_pct" };
	json_t *so[sizeof sums / sizeof sums[0]];
	for (size_t s = 0; s < sizeof sums / sizeof sums[0]; s++)
		so[s] = json_object();
	static const char *const cmps[] = { "delta", "delta_pct", "verdict", "mann_whitney_p",
		                            "more_rounds" };
	json_t *co[sizeof cmps / sizeof cmps[0]];
	for (size_t s = 0; s < sizeof cmps / sizeof cmps[0]; s++)
		co[s] = json_object();
	for (size_t m = 0; m < rd->n_metrics; m++) {
		const char *k = stats_metrics[m].key;
		if (a->has_sum[m]) {
			const struct stats_summary *s = &a->sum[m];
			set(so[0], k, json_integer((json_int_t)s->n));
			set(so[1], k, jnum(s->mean));
			set(so[2], k, jnum(s->median));
			set(so[3], k, jnum(s->min));
			set(so[4], k, jnum(s->max));
			set(so[5], k, jnum(s->spread));
			set(so[6], k, jnum(s->spread_pct));
		}
		if (a->has_cmp[m]) {
			const struct stats_comparison *c = &a->cmp[m];
			set(co[0], k, jnum(c->delta));
			set(co[1], k, jnum(c->delta_pct));
			set(co[3], k, jnum(c->p_value));
		}
		if (a->has_dec[m]) {
			const struct stats_decision *dv = &a->dec[m];
			json_t *v = json_object();
			set(v, "state", json_string(stats_state_word(&stats_metrics[m], dv->state)));
			set(v, "outcome", json_string(report_outcome(dv->state)));
			set(v, "delta", jnum(dv->delta));
			set(v, "delta_pct", jnum(dv->delta_pct));
			set(v, "ci_low", jnum(dv->ci_low));
			set(v, "ci_high", jnum(dv->ci_high));
			set(v, "p", jnum(dv->p));
			set(v, "n_arm", json_integer((json_int_t)dv->n_arm));
			set(v, "n_baseline", json_integer((json_int_t)dv->n_baseline));
			set(v, "p_before_holm", dv->primary ? json_null() : jnum(dv->p_raw));
			set(v, "primary", json_boolean(dv->primary));
			set(v, "min_effect", jnum(dv->min_effect));
			set(v, "resolution", jnum(dv->resolution));
			set(v, "method", json_string(method_key(dv->method)));
			char mt[96];
			stats_decision_method_text(dv, mt, sizeof mt);
			set(v, "method_text", json_string(mt));
			set(v, "time_terms", json_integer(dv->time_terms));
			set(v, "time_terms_dropped", json_integer(dv->time_terms_dropped));
			set(v, "df", dv->method == STATS_METHOD_NONE ? json_null() : json_integer(dv->df));
			set(v, "se", jnum(dv->se));
			set(v, "se_floor", jnum(dv->se_floor));
			set(v, "widened", json_boolean(dv->widened));
			set(v, "p_perm", jnum(dv->p_perm));
			set(v, "p_perm_min", jnum(dv->p_perm_min));
			set(v, "perm_exact", json_boolean(dv->perm_exact));
			set(v, "perm_count", json_integer((json_int_t)dv->perm_count));
			set(v, "p_perm_same", jnum(dv->p_perm_same));
			json_t *lv = json_array();
			for (int l = 0; l < dv->n_levels; l++)
				json_array_append_new(lv, jnum(dv->levels[l]));
			set(v, "levels", lv);
			set(v, "levels_text", dv->levels_text[0] ? json_string(dv->levels_text) : json_null());
			set(v, "interleaved", json_boolean(dv->interleaved));
			set(v, "undecided_reason", dv->reason[0] ? json_string(dv->reason) : json_null());
			set(co[2], k, v);
			double more = a->more_rounds[m], hi = a->more_rounds_hi[m];
			if (more != 0 && !isnan(more)) {
				json_t *mr = json_object();
				set(mr, "low", isfinite(more) ? json_integer((json_int_t)more) : json_null());
				set(mr, "high", isfinite(hi) ? json_integer((json_int_t)hi) : json_null());
				set(co[4], k, mr);
			}
		}
	}
	for (size_t s = 0; s < sizeof sums / sizeof sums[0]; s++)
		set(o, sums[s], so[s]);
	for (size_t s = 0; s < sizeof cmps / sizeof cmps[0]; s++)
		set(o, cmps[s], co[s]);
	return o;
}

/* The host facts: the start's, then each resume that found them changed,
 * {"at_unix_ms", "event", "facts" (the object), "changes" (one string a
 * change; [] at the start)}. */
static json_t *host_json(const struct report_data *rd)
{
	json_t *a = json_array();
	for (size_t i = 0; i < rd->n_hosts; i++) {
		const struct db_host_facts *h = &rd->hosts[i];
		json_t *o = json_object(), *changes = json_array();
		set(o, "at_unix_ms", json_integer((json_int_t)h->at_unix_ms));
		set(o, "event", jstr(h->event));
		set(o, "facts", h->facts ? json_loads(h->facts, 0, NULL) : NULL);
		for (const char *line = h->changes; line && *line;) {
			const char *nl = strchr(line, '\n');
			size_t len = nl ? (size_t)(nl - line) : strlen(line);
			if (len)
				json_array_append_new(changes, json_stringn(line, len));
			line = nl ? nl + 1 : NULL;
		}
		set(o, "changes", changes);
		json_array_append_new(a, o);
	}
	return a;
}

/* The headline (docs/reports.md, "The headline"): the lines, the best
 * arm and the sentence. */
static json_t *headline_json(const struct report_data *rd)
{
	const struct report_headline *h = &rd->headline;
	json_t *o = json_object(), *lines = json_array();
	char base[2] = { rd->arms[rd->base].arm->letter, 0 };
	set(o, "baseline", json_string(base));
	set(o, "metric", h->primary0 >= 0 ? json_string(stats_metrics[h->primary0].key) : NULL);
	for (size_t i = 0; i < h->n_lines; i++) {
		const struct report_headline_line *l = &h->lines[i];
		const struct report_arm *a = &rd->arms[l->arm];
		json_t *jl = json_object(), *jm = json_array();
		char letter[2] = { a->arm->letter, 0 }, text[1024];
		set(jl, "arm", json_string(letter));
		set(jl, "label", jstr(a->arm->label));
		set(jl, "state", json_string(l->word));
		static const char *const calls[] = { [REPORT_CALL_UNDECIDED] = "undecided",
			                             [REPORT_CALL_BETTER] = "better",
			                             [REPORT_CALL_WORSE] = "worse",
			                             [REPORT_CALL_MIXED] = "mixed",
			                             [REPORT_CALL_SAME] = "same" };
		set(jl, "outcome", json_string(calls[l->call]));
		for (size_t k = 0; k < l->n_m; k++) {
			const struct report_headline_metric *hm = &l->m[k];
			const struct stats_metric_def *d = &stats_metrics[hm->metric];
			json_t *x = json_object();
			set(x, "metric", json_string(d->key));
			set(x, "state", hm->dec ? json_string(stats_state_word(d, hm->dec->state)) : NULL);
			set(x, "delta_pct", jnum(hm->dec ? hm->dec->delta_pct : NAN));
			set(x, "ci_low_pct", jnum(hm->ci_low_pct));
			set(x, "ci_high_pct", jnum(hm->ci_high_pct));
			set(x, "p", jnum(hm->dec ? hm->dec->p : NAN));
			set(x, "df", hm->dec && hm->dec->method != STATS_METHOD_NONE
			                     ? json_integer(hm->dec->df) : NULL);
			set(x, "method", hm->dec ? json_string(method_key(hm->dec->method)) : NULL);
			set(x, "levels_text", hm->dec && hm->dec->levels_text[0]
			                         ? json_string(hm->dec->levels_text) : NULL);
			set(x, "undecided_reason", hm->dec && hm->dec->reason[0] ? json_string(hm->dec->reason)
			                                               : NULL);
			json_array_append_new(jm, x);
		}
		set(jl, "metrics", jm);
		set(jl, "n_arm", json_integer((json_int_t)l->n_arm));
		set(jl, "n_baseline", json_integer((json_int_t)l->n_base));
		set(jl, "more_rounds", isfinite(l->more_rounds) ? json_integer((json_int_t)l->more_rounds)
		                                                : NULL);
		report_headline_text(rd, l, 2, 0, NULL, text, sizeof text);
		set(jl, "text", json_string(text));
		json_array_append_new(lines, jl);
	}
	set(o, "lines", lines);
	if (h->best >= 0) {
		char letter[2] = { rd->arms[h->lines[h->best].arm].arm->letter, 0 };
		set(o, "best", json_string(letter));
	} else {
		set(o, "best", NULL);
	}
	set(o, "text", json_string(h->verdict));
	return o;
}

/* The registry (stats_metrics[]): how every metric is named and judged. */
static json_t *registry_json(const struct report_data *rd)
{
	json_t *a = json_array();
	for (size_t m = 0; m < rd->n_metrics; m++) {
		const struct stats_metric_def *d = &stats_metrics[m];
		json_t *o = json_object();
		char name[128];
		stats_metric_name(d, name, sizeof name);
		set(o, "key", json_string(d->key));
		set(o, "name", json_string(name));
		set(o, "label", json_string(d->label));
		set(o, "short", json_string(d->short_label));
		set(o, "unit", json_string(d->unit));
		set(o, "direction", json_string(d->direction == STATS_HIGHER_IS_BETTER ? "higher"
		                                : d->direction == STATS_LOWER_IS_BETTER ? "lower"
		                                                                        : "neutral"));
		set(o, "better", json_string(d->direction == STATS_NEUTRAL
		                             ? d->word_up : stats_state_word(d, STATS_STATE_FASTER)));
		set(o, "worse", json_string(d->direction == STATS_NEUTRAL
		                            ? d->word_down : stats_state_word(d, STATS_STATE_SLOWER)));
		set(o, "decimals", json_integer(d->decimals));
		set(o, "resolution", json_real(stats_metric_resolution(d)));
		set(o, "primary", json_boolean(rd->primary[m]));
		json_array_append_new(a, o);
	}
	return a;
}

static int print_json(const struct report_data *rd, FILE *out)
{
	const struct db_campaign *c = rd->campaign;
	json_t *doc = json_object();
	set(doc, "schema_version", json_integer(REPORT_JSON_SCHEMA_VERSION));
	set(doc, "headline", headline_json(rd));
	set(doc, "campaign", json_string(c->name));
	set(doc, "campaign_id", json_integer(c->id));
	char base[2] = { rd->arms[rd->base].arm->letter, 0 };
	set(doc, "baseline", json_string(base));
	set(doc, "route", jstr(c->route_name));
	json_t *w = json_array();
	json_array_append_new(w, jnum(c->window_start_s));
	json_array_append_new(w, jnum(c->window_end_s));
	set(doc, "window_s", w);
	set(doc, "order", jstr(c->order));
	set(doc, "rounds", json_integer(c->rounds));
	set(doc, "pending_runs", json_integer((json_int_t)rd->n_pending));
	static const char *const stops[] = { [REPORT_STOP_NONE] = NULL,
		                             [REPORT_STOP_PLANNED] = "planned",
		                             [REPORT_STOP_DECIDED] = "decided",
		                             [REPORT_STOP_MAX_ROUNDS] = "max_rounds",
		                             [REPORT_STOP_DEADLINE] = "deadline" };
	json_t *stop = json_object();
	char why[160];
	report_stop_text(rd, why, sizeof why);
	set(stop, "reason", stops[rd->stop] ? json_string(stops[rd->stop]) : json_null());
	set(stop, "text", why[0] ? json_string(why) : json_null());
	set(stop, "stored", json_boolean(rd->stop_stored));
	set(stop, "max_rounds", rd->max_rounds > 0 ? json_integer(rd->max_rounds) : json_null());
	set(stop, "look", json_integer(rd->look));
	set(stop, "alpha", jnum(rd->alpha));
	set(stop, "primary_comparisons", json_integer((json_int_t)rd->n_family));
	set(stop, "familywise_bound", jnum(rd->max_rounds > 0 ? 0.05
	                                   : stats_familywise_bound(0.05, rd->n_family)));
	set(stop, "all_decided", json_boolean(rd->all_decided));
	set(doc, "stop", stop);
	set(doc, "host", host_json(rd));
	json_t *metrics = json_array();
	for (size_t m = 0; m < rd->n_metrics; m++)
		json_array_append_new(metrics, json_string(stats_metrics[m].key));
	set(doc, "metrics", metrics);
	set(doc, "registry", registry_json(rd));
	json_t *drift = json_object();
	for (size_t m = 0; m < rd->n_metrics; m++) {
		const struct stats_drift *dr = rd->drift ? &rd->drift[m] : NULL;
		if (!dr || !dr->known)
			continue;
		json_t *dm = json_object();
		char text[128];
		stats_drift_text(&stats_metrics[m], dr, text, sizeof text);
		set(dm, "change", jnum(dr->change));
		set(dm, "ci_low", jnum(dr->low));
		set(dm, "ci_high", jnum(dr->high));
		set(dm, "span", jnum(dr->span));
		set(dm, "span_unit", json_string(dr->timed ? "s" : "runs"));
		set(dm, "per_hour", dr->timed && dr->span >= 3600 ? jnum(dr->change * 3600 / dr->span)
		                                                  : json_null());
		set(dm, "df", json_integer(dr->df));
		set(dm, "real", json_boolean(dr->real));
		set(dm, "text", json_string(text));
		set(drift, stats_metrics[m].key, dm);
	}
	set(doc, "drift", drift);
	json_t *warn = json_array();
	for (size_t i = 0; i < rd->n_warnings; i++)
		json_array_append_new(warn, json_string(rd->warnings[i]));
	set(doc, "warnings", warn);
	json_t *arms = json_array();
	for (size_t i = 0; i < rd->n_arms; i++)
		json_array_append_new(arms, arm_json(rd, &rd->arms[i]));
	set(doc, "arms", arms);
	int rc = json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
	json_decref(doc);
	if (rc != 0)
		return -EIO;
	fputc('\n', out);
	return ferror(out) ? -EIO : 0;
}

/* ---- entry points -------------------------------------------------------- */

int report_print(struct db *db, int64_t campaign_id, const struct report_options *opts, FILE *out)
{
	struct report_data *rd;
	int err = report_data_load(db, campaign_id, opts, &rd);
	if (err)
		return err;
	enum report_format f = opts ? opts->format : REPORT_FORMAT_MD;
	switch (f) {
	case REPORT_FORMAT_CSV:
		err = opts && opts->csv_wide ? print_csv_wide(rd, out) : print_csv(rd, out);
		break;
	case REPORT_FORMAT_TERM: {
		struct report_term_options to = { 0 };
		if (opts)
			to = (struct report_term_options){ .width = opts->term_width,
				                           .colour = opts->term_colour,
				                           .verbose = opts->verbose };
		err = report_term_print(db, rd, &to, out);
		break;
	}
	case REPORT_FORMAT_JSON:
		err = print_json(rd, out);
		break;
	case REPORT_FORMAT_HTML:
		err = report_html_print(db, rd, opts, out);
		break;
	case REPORT_FORMAT_MD:
	default:
		md_title(rd, out, "#");
		err = report_host_changes(db, campaign_id, out);
		if (!err)
			err = report_md_body(rd, true, out);
		break;
	}
	report_data_destroy(rd);
	if (err == 0 && fflush(out) != 0)
		err = -EIO;
	if (err == -EIO)
		return report_fail(opts, err, "cannot write the report: %s", strerror(errno ? errno : EIO));
	return err;
}

int report_headline_print(struct db *db, int64_t campaign_id, const struct report_options *opts,
                          FILE *out)
{
	struct report_data *rd;
	int err = report_data_load(db, campaign_id, opts, &rd);
	if (err)
		return err;
	struct report_term_options to = { .width = opts ? opts->term_width : 0,
		                          .colour = opts && opts->term_colour };
	err = report_term_headline(rd, &to, out);
	report_data_destroy(rd);
	if (err == 0 && fflush(out) != 0)
		err = -EIO;
	if (err == -EIO)
		return report_fail(opts, err, "cannot write the headline");
	return err;
}

int report_summary_print(struct db *db, int64_t campaign_id, const struct report_options *opts,
                         const char *run_file, FILE *out)
{
	struct report_data *rd;
	int err = report_data_load(db, campaign_id, opts, &rd);
	if (err)
		return err;
	md_title(rd, out, "###");
	err = report_host_changes(db, campaign_id, out);
	if (!err)
		err = report_md_body(rd, true, out);
	if (!err && run_file && run_file[0]) {
		fputs("\nRun file: ", out);
		md_link_or_path(out, run_file);
		fputc('\n', out);
	}
	report_data_destroy(rd);
	if (!err && (fflush(out) != 0 || ferror(out)))
		err = -EIO;
	if (err == -EIO)
		return report_fail(opts, err, "cannot write the summary");
	return err;
}

int report_print_file(struct db *db, int64_t campaign_id, const struct report_options *opts,
                      const char *path)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	if (!mem)
		return report_fail(opts, -ENOMEM, "out of memory");
	int err = report_print(db, campaign_id, opts, mem);
	if (fclose(mem) != 0 && !err)
		err = report_fail(opts, -ENOMEM, "out of memory");
	if (!err && (err = util_write_file_atomic(path, text, len)))
		report_fail(opts, err, "cannot write '%s': %s", path, strerror(-err));
	free(text);
	return err;
}
