/* report-term: the report for a terminal (docs/reports.md, "The terminal
 * report").  The headline first, then one row per arm and a column per
 * metric, primaries first, each cell in benchstat's habit: the arm's mean
 * ± the 95 % interval of that mean in %, and against the baseline Δ %, the
 * state in the metric's words (~ undecided) and p/n of the decision.  It
 * fits the width it is given: secondary metrics are left out (the last
 * line says how many), then the p/n part of the cells, never a line
 * wrapped; a line that still does not fit is cut with "…".  Colour (ANSI
 * SGR) marks the states when asked.  It owns the layout only: the numbers
 * are report-data.c's, the words the registry's (stats_metrics[]), the
 * headline report-headline.c's. */
#include "report-private.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define SGR_NONE 0
#define SGR_GREEN 32
#define SGR_RED 31
#define SGR_BLUE 34
#define SGR_YELLOW 33
#define SGR_BOLD 1
#define SGR_DIM 2

#define MAX_SEGS 160

struct seg {
	char *text;
	int sgr;
};

/* One output line as segments of text, each with its colour. */
struct line {
	struct seg s[MAX_SEGS];
	size_t n;
};

struct term {
	FILE *out;
	size_t width;      /* 0: no limit */
	bool colour;
};

static void add(struct line *l, int sgr, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add(struct line *l, int sgr, const char *fmt, ...)
{
	if (l->n >= MAX_SEGS)
		return;
	va_list ap;
	va_start(ap, fmt);
	char *t = NULL;
	if (vasprintf(&t, fmt, ap) < 0)
		t = NULL;
	va_end(ap);
	if (t)
		l->s[l->n++] = (struct seg){ t, sgr };
}

static void pad(struct line *l, size_t n)
{
	if (n)
		add(l, SGR_NONE, "%*s", (int)n, "");
}

static size_t line_width(const struct line *l)
{
	size_t w = 0;
	for (size_t i = 0; i < l->n; i++)
		w += report_u8_width(l->s[i].text);
	return w;
}

/* Writes the line, cut to the width with "…", without trailing blanks,
 * and frees its segments. */
static void emit(struct term *t, struct line *l)
{
	size_t total = line_width(l);
	size_t limit = t->width && total > t->width ? t->width - 1 : (size_t)-1;
	/* trailing blanks are not written */
	size_t keep = l->n;
	while (keep && strspn(l->s[keep - 1].text, " ") == strlen(l->s[keep - 1].text))
		keep--;
	size_t w = 0;
	for (size_t i = 0; i < keep && w < limit; i++) {
		const char *s = l->s[i].text;
		bool col = t->colour && l->s[i].sgr != SGR_NONE;
		if (col)
			fprintf(t->out, "\033[%dm", l->s[i].sgr);
		for (const char *p = s; *p && (w < limit || ((unsigned char)*p & 0xC0) == 0x80); p++) {
			if (((unsigned char)*p & 0xC0) != 0x80) {
				if (w >= limit)
					break;
				w++;
			}
			fputc(*p, t->out);
		}
		if (col)
			fputs("\033[0m", t->out);
	}
	if (limit != (size_t)-1)
		fputs("\xe2\x80\xa6", t->out);
	fputc('\n', t->out);
	for (size_t i = 0; i < l->n; i++)
		free(l->s[i].text);
	l->n = 0;
}

/* Prose folded at spaces into lines of the width, each line starting with
 * indent (the first with lead instead). */
static void prose(struct term *t, int sgr, const char *lead, const char *indent, const char *text)
{
	size_t width = t->width ? t->width : (size_t)-1;
	const char *p = text;
	bool first = true;
	while (*p) {
		const char *pre = first ? lead : indent;
		size_t room = width > report_u8_width(pre) ? width - report_u8_width(pre) : 1;
		/* the longest run of words that fits */
		const char *end = p, *q = p;
		size_t w = 0;
		while (*q) {
			const char *word_end = q;
			while (*word_end && *word_end != ' ')
				word_end++;
			char tmp[512];
			size_t len = (size_t)(word_end - q) < sizeof tmp - 1 ? (size_t)(word_end - q)
			                                                      : sizeof tmp - 1;
			memcpy(tmp, q, len);
			tmp[len] = 0;
			size_t ww = report_u8_width(tmp) + (w ? 1 : 0);
			if (w && w + ww > room)
				break;
			w += ww;
			end = word_end;
			q = word_end;
			while (*q == ' ')
				q++;
			if (w >= room)
				break;
		}
		if (end == p) /* one word longer than the room: emit() cuts it */
			while (*end && *end != ' ')
				end++;
		struct line l = { 0 };
		add(&l, SGR_NONE, "%s", pre);
		add(&l, sgr, "%.*s", (int)(end - p), p);
		emit(t, &l);
		p = end;
		while (*p == ' ')
			p++;
		first = false;
	}
}

static int state_sgr(enum stats_state s)
{
	switch (s) {
	case STATS_STATE_FASTER: return SGR_GREEN;
	case STATS_STATE_SLOWER: return SGR_RED;
	case STATS_STATE_SAME: return SGR_BLUE;
	case STATS_STATE_HIGHER:
	case STATS_STATE_LOWER: return SGR_YELLOW;
	case STATS_STATE_UNDECIDED:
	default: return SGR_NONE;
	}
}

static int call_sgr(enum report_call c)
{
	switch (c) {
	case REPORT_CALL_BETTER: return SGR_GREEN;
	case REPORT_CALL_WORSE: return SGR_RED;
	case REPORT_CALL_SAME: return SGR_BLUE;
	case REPORT_CALL_MIXED: return SGR_YELLOW;
	case REPORT_CALL_UNDECIDED:
	default: return SGR_NONE;
	}
}

/* ---- the title ------------------------------------------------------------- */

static void title(struct term *t, const struct report_data *rd)
{
	const struct db_campaign *c = rd->campaign;
	char facts[12][200];
	size_t n = 0;
	snprintf(facts[n++], sizeof facts[0], "Campaign %s", c->name);
	if (c->device_model && c->device_model[0])
		snprintf(facts[n++], sizeof facts[0], "%s", c->device_model);
	if (c->gpu && c->gpu[0])
		snprintf(facts[n++], sizeof facts[0], "%s", c->gpu);
	if (c->route_name && c->route_name[0])
		snprintf(facts[n++], sizeof facts[0], "route %s", c->route_name);
	if (c->order && c->order[0])
		snprintf(facts[n++], sizeof facts[0], "order %s", c->order);
	snprintf(facts[n++], sizeof facts[0], "%d round%s", c->rounds, c->rounds == 1 ? "" : "s");
	snprintf(facts[n++], sizeof facts[0], "baseline %c", rd->arms[rd->base].arm->letter);
	char why[160];
	report_stop_text(rd, why, sizeof why);
	if (rd->max_rounds > 0 && why[0])
		snprintf(facts[n++], sizeof facts[0], "stopped: %s", why);
	else if (rd->max_rounds > 0)
		snprintf(facts[n++], sizeof facts[0], "at most %d rounds, stopping once decided",
		         rd->max_rounds);
	if (rd->n_pending)
		snprintf(facts[n++], sizeof facts[0], "%zu run%s still to run", rd->n_pending,
		         rd->n_pending == 1 ? "" : "s");
	/* facts packed into lines of the width, " · " between them */
	struct line l = { 0 };
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		size_t fw = report_u8_width(facts[i]);
		if (w && t->width && w + 3 + fw > t->width) {
			emit(t, &l);
			w = 0;
		}
		if (w) {
			add(&l, SGR_DIM, " · ");
			w += 3;
		}
		add(&l, i == 0 ? SGR_BOLD : SGR_NONE, "%s", facts[i]);
		w += fw;
	}
	emit(t, &l);
	fputc('\n', t->out);
}

/* ---- the headline ------------------------------------------------------------ */

/* The widths of a headline's columns at a detail and a cut of the names,
 * and the widest line they give. */
static size_t headline_widths(const struct report_data *rd, int detail, size_t name_max,
                              size_t widths[REPORT_HEADLINE_COLS])
{
	const struct report_headline *h = &rd->headline;
	memset(widths, 0, REPORT_HEADLINE_COLS * sizeof *widths);
	for (size_t i = 0; i < h->n_lines; i++) {
		char cols[REPORT_HEADLINE_COLS][REPORT_HEADLINE_COL_B];
		report_headline_cols(rd, &h->lines[i], detail, name_max, cols);
		for (size_t c = 0; c < REPORT_HEADLINE_COLS; c++) {
			size_t w = report_u8_width(cols[c]);
			widths[c] = w > widths[c] ? w : widths[c];
		}
	}
	size_t widest = 0;
	for (size_t i = 0; i < h->n_lines; i++) {
		char text[1024];
		report_headline_text(rd, &h->lines[i], detail, name_max, widths, text, sizeof text);
		size_t tw = report_u8_width(text);
		widest = tw > widest ? tw : widest;
	}
	return widest;
}

static void headline(struct term *t, const struct report_data *rd)
{
	const struct report_headline *h = &rd->headline;
	if (rd->n_arms < 2)
		return;
	/* the most detail whose lines all fit: whole names, then names cut to
	 * 20 and 12 columns, then less detail */
	static const struct {
		int detail;
		size_t name_max;
	} tries[] = { { 2, 0 }, { 2, 20 }, { 2, 12 }, { 1, 20 }, { 1, 12 }, { 0, 12 } };
	size_t widths[REPORT_HEADLINE_COLS];
	size_t k = 0;
	for (; k < sizeof tries / sizeof tries[0]; k++) {
		size_t widest = headline_widths(rd, tries[k].detail, tries[k].name_max, widths);
		if (!t->width || widest <= t->width)
			break;
	}
	if (k == sizeof tries / sizeof tries[0])
		k--;
	int detail = tries[k].detail;
	size_t name_max = tries[k].name_max;
	headline_widths(rd, detail, name_max, widths);
	for (size_t i = 0; i < h->n_lines; i++) {
		const struct report_headline_line *l = &h->lines[i];
		char text[1024], name[160];
		report_headline_text(rd, l, detail, name_max, widths, text, sizeof text);
		report_arm_name(&rd->arms[l->arm], name, sizeof name);
		report_name_cut(name, name_max);
		/* colour the word: the text is name, pad, "   ", word, rest */
		size_t name_b = strlen(name) + (widths[0] - report_u8_width(name)) + 3;
		struct line ln = { 0 };
		add(&ln, SGR_BOLD, "%.*s", (int)name_b, text);
		add(&ln, call_sgr(l->call), "%s", l->word);
		add(&ln, SGR_NONE, "%s", text + name_b + strlen(l->word));
		emit(t, &ln);
	}
	prose(t, h->best >= 0 ? SGR_BOLD : SGR_NONE, "", "  ", h->verdict);
	fputc('\n', t->out);
}

/* The headline alone, for the end of run and ab. */
int report_term_headline(const struct report_data *rd, const struct report_term_options *o,
                         FILE *out)
{
	struct term t = { .out = out, .width = o->width, .colour = o->colour };
	if (t.width && t.width < 40)
		t.width = 40;
	headline(&t, rd);
	return ferror(out) ? -EIO : 0;
}

/* ---- the table ----------------------------------------------------------------- */

/* The parts of one cell. */
struct cell {
	char mean[48];   /* "40.4 ±3%" */
	char delta[24];  /* "+5.4%" */
	char word[16];   /* "faster", "~" */
	char pn[40];     /* "p=0.012 n=4" */
	int sgr;
};

static void make_cell(const struct report_data *rd, size_t a, size_t m, struct cell *c)
{
	const struct report_arm *arm = &rd->arms[a];
	const struct stats_metric_def *d = &stats_metrics[m];
	memset(c, 0, sizeof *c);
	if (!arm->has_sum[m]) {
		snprintf(c->mean, sizeof c->mean, "-");
		return;
	}
	const struct stats_summary *s = &arm->sum[m];
	double half = report_mean_ci_half(s);
	char ci[24] = "";
	if (isfinite(half) && s->mean != 0)
		snprintf(ci, sizeof ci, " ±%.0f%%", fabs(half / s->mean * 100.0));
	else if (s->n < 2)
		snprintf(ci, sizeof ci, " n=1");
	snprintf(c->mean, sizeof c->mean, "%.*f%s", d->decimals, s->mean, ci);
	if (a == rd->base || !arm->has_dec[m])
		return;
	const struct stats_decision *x = &arm->dec[m];
	if (isfinite(x->delta_pct)) {
		report_fmt_pct(c->delta, sizeof c->delta, x->delta_pct, false);
		strncat(c->delta, "%", sizeof c->delta - strlen(c->delta) - 1);
	} else {
		snprintf(c->delta, sizeof c->delta, "%+.*f", d->decimals + 1, x->delta);
	}
	snprintf(c->word, sizeof c->word, "%s",
	         x->state == STATS_STATE_UNDECIDED ? "~" : stats_state_word(d, x->state));
	c->sgr = state_sgr(x->state);
	if (isfinite(x->p) && x->p < 0.001)
		snprintf(c->pn, sizeof c->pn, "p<0.001 n=%zu", x->n_arm);
	else if (isfinite(x->p))
		snprintf(c->pn, sizeof c->pn, "p=%.3f n=%zu", x->p, x->n_arm);
	else
		snprintf(c->pn, sizeof c->pn, "n=%zu", x->n_arm);
}

/* A metric column: its sub-column widths over every arm. */
struct col {
	size_t m;
	size_t w_mean, w_delta, w_word, w_pn;
	size_t width;    /* at the chosen level, separators included */
};

static size_t col_width(const struct col *c, int level)
{
	size_t w = c->w_mean;
	if (c->w_delta)
		w += 2 + c->w_delta + 1 + c->w_word;
	if (level == 0 && c->w_pn)
		w += 1 + c->w_pn;
	return w;
}

static void fill_col(const struct report_data *rd, struct col *c, const char *heading)
{
	size_t hw = report_u8_width(heading);
	c->w_mean = c->w_delta = c->w_word = c->w_pn = 0;
	for (size_t a = 0; a < rd->n_arms; a++) {
		struct cell x;
		make_cell(rd, a, c->m, &x);
		size_t w;
		if ((w = report_u8_width(x.mean)) > c->w_mean)
			c->w_mean = w;
		if ((w = report_u8_width(x.delta)) > c->w_delta)
			c->w_delta = w;
		if ((w = report_u8_width(x.word)) > c->w_word)
			c->w_word = w;
		if ((w = report_u8_width(x.pn)) > c->w_pn)
			c->w_pn = w;
	}
	/* the heading fits over the mean part at least */
	if (hw > col_width(c, 1))
		c->w_mean += hw - col_width(c, 1);
}

static void table(struct term *t, const struct report_data *rd, size_t *n_left_out, int *level_out)
{
	size_t nm = rd->n_metrics;
	struct col *cols = calloc(nm ? nm : 1, sizeof *cols);
	size_t *order = calloc(nm ? nm : 1, sizeof *order);
	if (!cols || !order) {
		free(cols);
		free(order);
		return;
	}
	/* primaries first, then the others, registry order */
	size_t n = 0, n_primary = 0;
	for (int pass = 0; pass < 2; pass++)
		for (size_t m = 0; m < nm; m++) {
			bool any = false;
			for (size_t a = 0; a < rd->n_arms; a++)
				any |= rd->arms[a].has_sum[m];
			if (!any || (pass == 0) != rd->primary[m])
				continue;
			order[n++] = m;
			n_primary += pass == 0;
		}
	/* the arm column: names cut to 20 */
	size_t w_arm = 3;
	char names[STATS_MAX_GROUPS + 1][160];
	for (size_t a = 0; a < rd->n_arms && a <= STATS_MAX_GROUPS; a++) {
		report_arm_name(&rd->arms[a], names[a], sizeof names[a]);
		report_name_cut(names[a], 20);
		size_t w = report_u8_width(names[a]);
		w_arm = w > w_arm ? w : w_arm;
	}
	for (size_t i = 0; i < n; i++) {
		cols[i].m = order[i];
		fill_col(rd, &cols[i], stats_metrics[order[i]].short_label);
	}
	/* the level and the columns that fit: primaries always (level 1 if
	 * they need it), then the others while they fit */
	int level = 0;
	size_t used;
	for (;; level++) {
		used = w_arm;
		for (size_t i = 0; i < n_primary; i++)
			used += 3 + col_width(&cols[i], level);
		if (!t->width || used <= t->width || level == 1)
			break;
	}
	bool *shown = calloc(n ? n : 1, sizeof *shown);
	size_t left_out = 0;
	for (size_t i = 0; shown && i < n; i++) {
		size_t w = 3 + col_width(&cols[i], level);
		/* secondaries in registry order while they fit: the first that
		 * does not ends them */
		if (i < n_primary || (!left_out && (!t->width || used + w <= t->width))) {
			shown[i] = true;
			if (i >= n_primary)
				used += w;
		} else {
			left_out++;
		}
	}
	/* heading */
	struct line l = { 0 };
	add(&l, SGR_BOLD, "%-*s", (int)w_arm, "arm");
	for (size_t i = 0; shown && i < n; i++) {
		if (!shown[i])
			continue;
		const char *hd = stats_metrics[cols[i].m].short_label;
		add(&l, SGR_NONE, "   ");
		add(&l, SGR_BOLD, "%s", hd);
		pad(&l, col_width(&cols[i], level) - report_u8_width(hd));
	}
	emit(t, &l);
	for (size_t a = 0; a < rd->n_arms; a++) {
		add(&l, a == rd->base ? SGR_BOLD : SGR_NONE, "%s", names[a]);
		pad(&l, w_arm - report_u8_width(names[a]));
		for (size_t i = 0; shown && i < n; i++) {
			if (!shown[i])
				continue;
			const struct col *c = &cols[i];
			struct cell x;
			make_cell(rd, a, c->m, &x);
			add(&l, SGR_NONE, "   ");
			pad(&l, c->w_mean - report_u8_width(x.mean));
			add(&l, SGR_NONE, "%s", x.mean);
			if (c->w_delta) {
				pad(&l, 2 + c->w_delta - report_u8_width(x.delta));
				add(&l, x.sgr, "%s", x.delta);
				add(&l, SGR_NONE, " ");
				add(&l, x.sgr, "%s", x.word);
				pad(&l, c->w_word - report_u8_width(x.word));
			}
			if (level == 0 && c->w_pn) {
				add(&l, SGR_NONE, " ");
				add(&l, SGR_DIM, "%s", x.pn);
				pad(&l, c->w_pn - report_u8_width(x.pn));
			}
		}
		emit(t, &l);
	}
	*n_left_out = left_out;
	*level_out = level;
	free(shown);
	free(cols);
	free(order);
}

/* The lines under the table: what a cell says, the method and its df,
 * the level, what was left out, void runs and warnings. */
static void notes(struct term *t, const struct report_data *rd, size_t left_out, int level)
{
	char buf[1024];
	char base = rd->arms[rd->base].arm->letter;
	/* the method and its df over the primary decisions: one text when they
	 * share it */
	char method[160] = "", mt[160];
	bool mixed = false;
	for (size_t a = 0; a < rd->n_arms; a++)
		for (size_t m = 0; m < rd->n_metrics && a != rd->base; m++) {
			const struct stats_decision *x = &rd->arms[a].dec[m];
			if (!rd->arms[a].has_dec[m] || !rd->primary[m])
				continue;
			stats_decision_method_text(x, mt, sizeof mt);
			if (!method[0])
				snprintf(method, sizeof method, "%s", mt);
			else if (strcmp(method, mt) != 0)
				mixed = true;
		}
	snprintf(buf, sizeof buf, "A cell: the arm's mean ± the 95 %% interval of that mean; against %c "
	         "Δ %% and the state by the decision (%s)%s; ~ is undecided.", base,
	         !method[0] ? "none" : mixed ? "methods differ by arm: -v says which" : method,
	         level == 0 ? ", with its p and the arm's runs" : "");
	fputc('\n', t->out);
	prose(t, SGR_DIM, "", "", buf);
	if (rd->max_rounds > 0)
		snprintf(buf, sizeof buf, "Primary metrics are decided at %.3g %% each, the level round "
		         "%d spends of 5 %% over at most %d rounds; the others on Holm-adjusted p.",
		         100 * rd->alpha, rd->look, rd->max_rounds);
	else
		snprintf(buf, sizeof buf, "Primary metrics are decided at 5 %% each; the others on "
		         "Holm-adjusted p.");
	prose(t, SGR_DIM, "", "", buf);
	if (left_out) {
		snprintf(buf, sizeof buf, "%zu secondary metric%s left out to fit %zu columns: "
		         "--wide shows every metric, -v every run and verdict.", left_out,
		         left_out == 1 ? "" : "s", t->width);
		prose(t, SGR_DIM, "", "", buf);
	}
	/* why the undecided primaries are undecided (the decision's reason and
	 * method), each reason once with the arms and metrics it holds for */
	struct why {
		char text[480];
		char who[200];
	} whys[8];
	size_t n_why = 0;
	for (size_t a = 0; a < rd->n_arms; a++)
		for (size_t m = 0; m < rd->n_metrics && a != rd->base; m++) {
			const struct stats_decision *x = &rd->arms[a].dec[m];
			if (!rd->arms[a].has_dec[m] || !rd->primary[m] ||
			    x->state != STATS_STATE_UNDECIDED || !x->reason[0])
				continue;
			char text[480], who[64];
			stats_decision_method_text(x, mt, sizeof mt);
			snprintf(text, sizeof text, "%s (%s)%s%s", x->reason, mt,
			         x->levels_text[0] ? "; " : "", x->levels_text);
			snprintf(who, sizeof who, "%c %s", rd->arms[a].arm->letter,
			         stats_metrics[m].short_label);
			size_t k = 0;
			while (k < n_why && strcmp(whys[k].text, text) != 0)
				k++;
			if (k == n_why) {
				if (n_why == sizeof whys / sizeof whys[0])
					continue;
				snprintf(whys[k].text, sizeof whys[k].text, "%s", text);
				whys[k].who[0] = 0;
				n_why++;
			}
			size_t l = strlen(whys[k].who);
			snprintf(whys[k].who + l, sizeof whys[k].who - l, "%s%s", l ? ", " : "", who);
		}
	for (size_t k = 0; k < n_why; k++) {
		snprintf(buf, sizeof buf, "Undecided, %s: %s.", whys[k].who, whys[k].text);
		prose(t, SGR_NONE, "", "  ", buf);
	}
	size_t n_void = 0;
	for (size_t i = 0; i < rd->n_runs; i++)
		n_void += rd->runs[i].is_void;
	if (n_void) {
		snprintf(buf, sizeof buf, "%zu void run%s, shown with -v, never counted:", n_void,
		         n_void == 1 ? "" : "s");
		prose(t, SGR_NONE, "", "", buf);
		for (size_t i = 0; i < rd->n_runs; i++) {
			const struct report_run *r = &rd->runs[i];
			if (!r->is_void)
				continue;
			snprintf(buf, sizeof buf, "run %d (%c, round %d): %s", r->run->position,
			         r->run->arm_letter, r->run->round,
			         r->run->void_reason ? r->run->void_reason : "no reason stored");
			prose(t, SGR_NONE, "  ", "    ", buf);
		}
	}
	if (rd->n_pending) {
		snprintf(buf, sizeof buf, "%zu planned run%s not finished yet (not shown).", rd->n_pending,
		         rd->n_pending == 1 ? "" : "s");
		prose(t, SGR_NONE, "", "", buf);
	}
	for (size_t i = 0; i < rd->n_warnings; i++)
		prose(t, SGR_YELLOW, "warning: ", "  ", rd->warnings[i]);
}

int report_term_print(struct db *db, const struct report_data *rd,
                      const struct report_term_options *o, FILE *out)
{
	struct term t = { .out = out, .width = o->width, .colour = o->colour };
	/* narrower than 40 columns is read as 40: the cells need them */
	if (t.width && t.width < 40)
		t.width = 40;
	title(&t, rd);
	headline(&t, rd);
	size_t left_out = 0;
	int level = 0;
	table(&t, rd, &left_out, &level);
	notes(&t, rd, left_out, level);
	int err = 0;
	if (o->verbose) {
		fputs("\n", out);
		err = report_host_changes(db, rd->campaign->id, out);
		if (!err)
			err = report_md_body(rd, true, out);
	}
	if (!err && ferror(out))
		err = -EIO;
	return err;
}
