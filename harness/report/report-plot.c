/* report-plot: a campaign's SVG plots, written by hand as XML text.
 *
 * Three plots (docs/reports.md, "Plots"):
 *   - frame time over the route: per arm a band (the lowest and highest
 *     per-column mean frame time over its usable runs), its median run (by
 *     real fps) thin and that run's 1 s moving average bold, dashed marks
 *     at the route's marks and shots, the measured window shaded;
 *   - frame time by percentile (0 to 99.9 %, the tail on a log scale): every
 *     usable run's curve thin and the arm's median curve bold;
 *   - real fps of every run in campaign order, rounds marked, with the
 *     baseline's least-squares drift, so drift over a night shows.
 * Each has axes with units and a legend laid out before the document
 * starts, so the canvas grows to hold it and long labels wrap; the viewBox
 * is sized so the text stays readable on a phone.  Every piece of text is XML-escaped; series are
 * <g> elements with class "series" and a data-arm attribute, which the
 * tests read.  A line of many frames is thinned to the lowest and highest
 * frame time of each horizontal pixel, which keeps every hitch visible.
 */
#include "report-private.h"
#include "route/route.h"
#include "util/util.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W 640.0
#define H 440.0
#define PL 70.0   /* plot area: left, right, top, bottom edges */
#define PR 620.0
#define PT 46.0
#define PB 340.0

static const char *const colours[] = { "#0072B2", "#D55E00", "#009E73", "#CC79A7",
	                               "#E69F00", "#56B4E9", "#000000", "#999999" };
#define N_COLOURS (sizeof colours / sizeof colours[0])

void report_xml_text_n(FILE *out, const char *s, size_t n)
{
	for (size_t i = 0; s && i < n && s[i]; i++) {
		switch (s[i]) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&apos;", out); break;
		default:
			/* control characters are not allowed in XML 1.0 */
			if ((unsigned char)s[i] < 0x20 && s[i] != '\t' && s[i] != '\n')
				fputc(' ', out);
			else
				fputc(s[i], out);
		}
	}
}

static void xml_text(FILE *out, const char *s)
{
	report_xml_text_n(out, s, s ? strlen(s) : 0);
}

struct axis {
	double lo, hi;      /* data range shown */
	double step;        /* tick step */
};

static double nice_step(double range, int ticks)
{
	if (!(range > 0) || !isfinite(range))
		return 1;
	double raw = range / ticks;
	double mag = pow(10, floor(log10(raw)));
	double f = raw / mag;
	double nice = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
	return nice * mag;
}

static struct axis axis_make(double lo, double hi, int ticks, bool from_zero)
{
	if (!isfinite(lo) || !isfinite(hi)) {
		lo = 0;
		hi = 1;
	}
	if (from_zero && lo > 0)
		lo = 0;
	if (hi <= lo)
		hi = lo + (lo != 0 ? fabs(lo) * 0.1 : 1);
	struct axis a;
	a.step = nice_step(hi - lo, ticks);
	a.lo = floor(lo / a.step) * a.step;
	a.hi = ceil(hi / a.step) * a.step;
	if (a.hi <= a.lo)
		a.hi = a.lo + a.step;
	return a;
}

/* An axis over exactly [lo, hi] (the route's end, the runs drawn): ticks
 * at the multiples of a nice step inside it. */
static struct axis axis_exact(double lo, double hi, int ticks)
{
	if (!isfinite(lo) || !isfinite(hi) || hi <= lo)
		return axis_make(lo, hi, ticks, false);
	return (struct axis){ .lo = lo, .hi = hi, .step = nice_step(hi - lo, ticks) };
}

/* The first tick of an axis: the first multiple of its step at or above lo. */
static double first_tick(const struct axis *a)
{
	return ceil(a->lo / a->step - 1e-9) * a->step;
}

static double sx(const struct axis *a, double v)
{
	return PL + (v - a->lo) / (a->hi - a->lo) * (PR - PL);
}

static double sy(const struct axis *a, double v)
{
	double y = PB - (v - a->lo) / (a->hi - a->lo) * (PB - PT);
	return y < PT ? PT : y > PB ? PB : y;
}

static void tick_label(char *buf, size_t size, double v, double step)
{
	int dec = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
	if (dec > 6)
		dec = 6;
	snprintf(buf, size, "%.*f", dec, fabs(v) < step / 1e6 ? 0.0 : v);
}

/* ---- the legend ------------------------------------------------------- */

#define LEGEND_MAX 32
#define LEGEND_LINE 18.0   /* a wrapped label's line spacing */
#define LEGEND_ROW 24.0    /* one row of entries */
#define LEGEND_CHAR 8.0    /* the width of a character at 15 px, generously */
#define LEGEND_SWATCH 28.0 /* the line sample and its gap */
#define LEGEND_LINES 4     /* at most this many lines a label */

/* Legend entries below the x axis label.  Entries are laid out before the
 * document starts, so the canvas is made tall enough for every row: the
 * legend never leaves the viewBox, and a label too long for the width
 * wraps at spaces onto lines of its own. */
struct legend_entry {
	const char *colour;
	bool dashed;
	char text[240];
	size_t cut[LEGEND_LINES]; /* where each line ends in text */
	int lines;
	double x, y, w, h;        /* the entry's box */
};

struct legend {
	struct legend_entry e[LEGEND_MAX];
	size_t n;
	double bottom;            /* the canvas height the legend needs */
};

static void legend_add(struct legend *lg, const char *colour, const char *text, bool dashed)
{
	if (lg->n >= LEGEND_MAX)
		return;
	struct legend_entry *e = &lg->e[lg->n++];
	*e = (struct legend_entry){ .colour = colour, .dashed = dashed };
	snprintf(e->text, sizeof e->text, "%s", text);
}

/* Breaks e's text into lines of at most max_chars characters at spaces (a
 * word longer than a line is cut), at most LEGEND_LINES of them. */
static void legend_wrap(struct legend_entry *e, size_t max_chars)
{
	size_t len = strlen(e->text), start = 0;
	e->lines = 0;
	while (start < len && e->lines < LEGEND_LINES) {
		size_t end = len;
		if (len - start > max_chars && e->lines < LEGEND_LINES - 1) {
			end = start + max_chars;
			while (end > start && e->text[end] != ' ')
				end--;
			if (end == start)
				end = start + max_chars;
		}
		e->cut[e->lines++] = end;
		start = end;
		while (start < len && e->text[start] == ' ')
			start++;
	}
	if (e->lines == 0)
		e->cut[e->lines++] = 0;
}

/* Places the entries in rows from y_top, wrapping rows at the canvas's
 * width, and sets lg->bottom. */
static void legend_layout(struct legend *lg, double y_top)
{
	size_t max_chars = (size_t)((W - 20 - LEGEND_SWATCH) / LEGEND_CHAR);
	double x = 10, y = y_top, row_h = LEGEND_ROW;
	for (size_t i = 0; i < lg->n; i++) {
		struct legend_entry *e = &lg->e[i];
		legend_wrap(e, max_chars);
		size_t longest = 0, start = 0;
		for (int l = 0; l < e->lines; l++) {
			size_t n = e->cut[l] - start;
			longest = n > longest ? n : longest;
			start = e->cut[l];
			while (e->text[start] == ' ')
				start++;
		}
		e->w = LEGEND_SWATCH + LEGEND_CHAR * (double)longest;
		e->h = LEGEND_ROW + LEGEND_LINE * (e->lines - 1);
		if (x > 10 && x + e->w > W - 10) {
			x = 10;
			y += row_h;
			row_h = LEGEND_ROW;
		}
		e->x = x;
		e->y = y;
		if (e->h > row_h)
			row_h = e->h;
		x += e->w + 14;
	}
	lg->bottom = lg->n ? y + row_h + 6 : y_top;
}

static void legend_draw(FILE *out, const struct legend *lg)
{
	fputs("<g class=\"legend\">\n", out);
	for (size_t i = 0; i < lg->n; i++) {
		const struct legend_entry *e = &lg->e[i];
		/* the box the entry takes (the tests check it lies in the viewBox) */
		fprintf(out, "<g class=\"legend-entry\">\n<rect class=\"legend-box\" x=\"%.1f\" "
		             "y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\"/>\n",
		        e->x, e->y, e->w, e->h);
		double base = e->y + 17;
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
		             "stroke-width=\"3\"%s/>\n", e->x, base - 5, e->x + 22, base - 5, e->colour,
		        e->dashed ? " stroke-dasharray=\"4 3\"" : "");
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">", e->x + LEGEND_SWATCH, base);
		size_t start = 0;
		for (int l = 0; l < e->lines; l++) {
			fprintf(out, "<tspan x=\"%.1f\" y=\"%.1f\">", e->x + LEGEND_SWATCH,
			        base + LEGEND_LINE * l);
			report_xml_text_n(out, e->text + start, e->cut[l] - start);
			fputs("</tspan>", out);
			start = e->cut[l];
			while (e->text[start] == ' ')
				start++;
		}
		fputs("</text>\n</g>\n", out);
	}
	fputs("</g>\n", out);
}

/* ---- the document ------------------------------------------------------ */

/* The document's start, lg laid out below the axes: the canvas is as tall
 * as the legend needs. */
static void svg_begin(FILE *out, const char *title, const char *subtitle, struct legend *lg)
{
	legend_layout(lg, PB + 50);
	double h = fmax(H, lg->bottom);
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	             "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %.0f\" "
	             "width=\"100%%\" font-family=\"sans-serif\" font-size=\"15\">\n"
	             "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n",
	        W, ceil(h), W, ceil(h));
	fputs("<title>", out);
	xml_text(out, title);
	fputs("</title>\n<text x=\"10\" y=\"22\" font-size=\"17\" font-weight=\"bold\">", out);
	xml_text(out, title);
	fputs("</text>\n", out);
	if (subtitle && subtitle[0]) {
		fputs("<text x=\"10\" y=\"40\" font-size=\"13\" fill=\"#444444\">", out);
		xml_text(out, subtitle);
		fputs("</text>\n", out);
	}
}

/* The percentile axis: x is -log10(1 - p / 100), so 0, 90, 99 and 99.9 %
 * are evenly spaced and the tail gets the room. */
static double pct_u(double p)
{
	return -log10(1.0 - p / 100.0);
}

static void svg_axes(FILE *out, const struct axis *ax, const struct axis *ay, const char *xlabel,
                     const char *ylabel, bool percentile_x)
{
	char b[64];
	fputs("<g class=\"axes\" stroke=\"#cccccc\" stroke-width=\"1\">\n", out);
	double eps = 1e-9 * ay->step;
	for (double v = first_tick(ay); v <= ay->hi + eps; v += ay->step)
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", PL, sy(ay, v),
		        PR, sy(ay, v));
	fputs("</g>\n<g class=\"ticks\" font-size=\"13\" fill=\"#222222\">\n", out);
	for (double v = first_tick(ay); v <= ay->hi + eps; v += ay->step) {
		tick_label(b, sizeof b, v, ay->step);
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", PL - 6,
		        sy(ay, v) + 5, b);
	}
	static const double pcts[] = { 0, 50, 90, 99, 99.9 };
	size_t nx = percentile_x ? sizeof pcts / sizeof pcts[0] : 0;
	for (double v = first_tick(ax); !percentile_x && v <= ax->hi + 1e-9 * ax->step; v += ax->step)
		nx++;
	for (size_t i = 0; i < nx; i++) {
		double v = percentile_x ? pct_u(pcts[i]) : first_tick(ax) + ax->step * (double)i;
		if (percentile_x)
			snprintf(b, sizeof b, "%g", pcts[i]);
		else
			tick_label(b, sizeof b, v, ax->step);
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
		        sx(ax, v), PB + 18, b);
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#222222\"/>\n",
		        sx(ax, v), PB, sx(ax, v), PB + 4);
	}
	fputs("</g>\n", out);
	fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
	             "stroke=\"#222222\"/>\n", PL, PT, PR - PL, PB - PT);
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", (PL + PR) / 2, PB + 40);
	xml_text(out, xlabel);
	fprintf(out, "</text>\n<text transform=\"translate(18 %.1f) rotate(-90)\" "
	             "text-anchor=\"middle\">", (PT + PB) / 2);
	xml_text(out, ylabel);
	fputs("</text>\n", out);
}

static void arm_name(char *buf, size_t size, const struct report_arm *a)
{
	snprintf(buf, size, "%c%s%s", a->arm->letter, a->arm->label && a->arm->label[0] ? ": " : "",
	         a->arm->label ? a->arm->label : "");
}

/* The usable run nearest the arm's median real fps (the first of equals);
 * -1 when the arm has no usable run. */
static ptrdiff_t median_run(const struct report_data *rd, const struct report_arm *a)
{
	int m = report_metric_index("real_fps");
	ptrdiff_t best = -1;
	double best_d = INFINITY;
	for (size_t k = 0; k < a->n_runs; k++) {
		const struct report_run *r = &rd->runs[a->runs[k]];
		if (r->is_void)
			continue;
		double d = a->has_sum[m] && isfinite(r->v[m]) ? fabs(r->v[m] - a->sum[m].median)
		                                               : INFINITY;
		if (best < 0 || d < best_d) {
			best = (ptrdiff_t)a->runs[k];
			best_d = d;
		}
	}
	return best;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double quantile_sorted(const double *v, size_t n, double p)
{
	if (!n)
		return NAN;
	size_t k = (size_t)ceil(p / 100.0 * (double)n);
	return v[k ? k - 1 : 0];
}

/* The median of v[0..n) (reorders v); NaN for n == 0. */
static double median_of(double *v, size_t n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Polyline of (x, y) thinned to the lowest and highest y per pixel column. */
static void polyline_thinned(FILE *out, const struct axis *ax, const struct axis *ay,
                             const double *x, const double *y, size_t n, const char *attrs)
{
	fprintf(out, "<polyline fill=\"none\" stroke-linejoin=\"round\" %s points=\"", attrs);
	long col = LONG_MIN;
	double lo = 0, hi = 0, lo_x = 0, hi_x = 0;
	bool have = false;
	for (size_t i = 0; i <= n; i++) {
		long c = i < n ? lround(sx(ax, x[i])) : LONG_MAX;
		if (i < n && (x[i] < ax->lo || x[i] > ax->hi || !isfinite(y[i])))
			continue;
		if (c != col && have) {
			/* emit in time order */
			if (lo_x <= hi_x)
				fprintf(out, "%.1f,%.1f %.1f,%.1f ", sx(ax, lo_x), sy(ay, lo), sx(ax, hi_x),
				        sy(ay, hi));
			else
				fprintf(out, "%.1f,%.1f %.1f,%.1f ", sx(ax, hi_x), sy(ay, hi), sx(ax, lo_x),
				        sy(ay, lo));
			have = false;
		}
		if (i == n)
			break;
		if (!have) {
			col = c;
			lo = hi = y[i];
			lo_x = hi_x = x[i];
			have = true;
		} else {
			if (y[i] < lo) {
				lo = y[i];
				lo_x = x[i];
			}
			if (y[i] > hi) {
				hi = y[i];
				hi_x = x[i];
			}
		}
	}
	fputs("\"/>\n", out);
}

/* ---- frame time over the route ---------------------------------------- */

#define BAND_BINS 275  /* columns of the band: two pixels each */

/* One arm's runs on the route: the band's lowest and highest per-column
 * mean frame time over the runs, the median run, and its moving average. */
struct route_arm {
	double lo[BAND_BINS], hi[BAND_BINS];
	size_t n_runs;
	ptrdiff_t med;          /* the median run (index into rd->runs); -1: none */
	double *x, *y, *avg;    /* the median run's frames and 1 s moving average */
	size_t n;
	bool on_route;
};

/* Adds one run's per-column mean frame times to the band. */
static void band_add(struct route_arm *ra, const double *x, const double *y, size_t n,
                     double xmax)
{
	double sum[BAND_BINS] = { 0 };
	size_t cnt[BAND_BINS] = { 0 };
	for (size_t i = 0; i < n; i++) {
		long b = lround(floor(x[i] / xmax * BAND_BINS));
		if (b < 0 || b >= BAND_BINS)
			continue;
		sum[b] += y[i];
		cnt[b]++;
	}
	for (size_t b = 0; b < BAND_BINS; b++) {
		if (!cnt[b])
			continue;
		double v = sum[b] / (double)cnt[b];
		ra->lo[b] = isnan(ra->lo[b]) ? v : fmin(ra->lo[b], v);
		ra->hi[b] = isnan(ra->hi[b]) ? v : fmax(ra->hi[b], v);
	}
	ra->n_runs++;
}

/* avg[i]: the mean frame time of the frames in (x[i] - 1 s, x[i]]. */
static void moving_average(const double *x, const double *y, size_t n, double *avg)
{
	double sum = 0;
	size_t from = 0;
	for (size_t i = 0; i < n; i++) {
		sum += y[i];
		while (x[from] <= x[i] - 1.0) {
			sum -= y[from];
			from++;
		}
		avg[i] = sum / (double)(i - from + 1);
	}
}

/* The band as closed paths, one per stretch of columns with data. */
static void band_draw(FILE *out, const struct route_arm *ra, const struct axis *ax,
                      const struct axis *ay, double xmax, const char *colour)
{
	for (size_t b = 0; b < BAND_BINS;) {
		if (isnan(ra->lo[b])) {
			b++;
			continue;
		}
		size_t e = b;
		while (e < BAND_BINS && !isnan(ra->lo[e]))
			e++;
		fprintf(out, "<path class=\"band\" fill=\"%s\" fill-opacity=\"0.22\" stroke=\"none\" d=\"",
		        colour);
		for (size_t k = b; k < e; k++) {
			double x0 = sx(ax, xmax * (double)k / BAND_BINS);
			double x1 = sx(ax, xmax * (double)(k + 1) / BAND_BINS);
			fprintf(out, "%s%.1f,%.1f L%.1f,%.1f ", k == b ? "M" : "L", x0, sy(ay, ra->hi[k]), x1,
			        sy(ay, ra->hi[k]));
		}
		for (size_t k = e; k-- > b;) {
			double x0 = sx(ax, xmax * (double)k / BAND_BINS);
			double x1 = sx(ax, xmax * (double)(k + 1) / BAND_BINS);
			fprintf(out, "L%.1f,%.1f L%.1f,%.1f ", x1, sy(ay, ra->lo[k]), x0, sy(ay, ra->lo[k]));
		}
		fputs("Z\"/>\n", out);
		b = e;
	}
}

static void route_arms_free(struct route_arm *ra, size_t n)
{
	for (size_t i = 0; ra && i < n; i++) {
		free(ra[i].x);
		free(ra[i].y);
		free(ra[i].avg);
	}
	free(ra);
}

/* Loads every usable run's frames of every arm: the median run's kept,
 * each run's columns added to its arm's band once xmax is known (so the
 * runs are read twice: the first pass finds xmax and the y range). */
static int route_arms_load(struct db *db, const struct report_data *rd, struct route_arm *ra,
                           double *xmax, double *ytop, double *ymax_all, bool *on_route)
{
	*xmax = 0;
	*ytop = 0;
	*ymax_all = 0;
	*on_route = true;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < rd->n_arms; i++) {
			const struct report_arm *a = &rd->arms[i];
			if (pass == 0) {
				ra[i].med = median_run(rd, a);
				for (size_t b = 0; b < BAND_BINS; b++)
					ra[i].lo[b] = ra[i].hi[b] = NAN;
			}
			for (size_t k = 0; k < a->n_runs; k++) {
				const struct report_run *r = &rd->runs[a->runs[k]];
				if (r->is_void)
					continue;
				double *x, *y;
				size_t n;
				bool route;
				int err = report_run_frame_times(db, r, &x, &y, &n, &route);
				if (err)
					return err;
				if (pass == 1 && n) {
					band_add(&ra[i], x, y, n, *xmax);
				} else if (n) {
					*on_route &= route;
					*xmax = fmax(*xmax, x[n - 1]);
				}
				if (pass == 0 && (ptrdiff_t)a->runs[k] == ra[i].med && n) {
					double *sorted = malloc(n * sizeof *sorted);
					ra[i].avg = malloc(n * sizeof *ra[i].avg);
					if (!sorted || !ra[i].avg) {
						free(sorted);
						free(x);
						free(y);
						return -ENOMEM;
					}
					memcpy(sorted, y, n * sizeof *sorted);
					qsort(sorted, n, sizeof *sorted, cmp_double);
					*ytop = fmax(*ytop, quantile_sorted(sorted, n, 99.5));
					*ymax_all = fmax(*ymax_all, sorted[n - 1]);
					free(sorted);
					moving_average(x, y, n, ra[i].avg);
					ra[i].x = x;
					ra[i].y = y;
					ra[i].n = n;
					ra[i].on_route = route;
					continue;
				}
				free(x);
				free(y);
			}
		}
	return 0;
}

/* The route's marks and shots as dashed lines with their names, written
 * down the line from the top; a name whose line is closer than a text's
 * height to the one before starts below where that one ends, so two marks
 * close together (window-end and end) never write over each other. */
static void draw_route_marks(FILE *out, const struct report_data *rd, const struct axis *ax)
{
	fputs("<g class=\"marks\" font-size=\"12\" fill=\"#555555\">\n", out);
	double last_x = -INFINITY, last_end = PT;
	for (size_t i = 0; i < rd->n_marks; i++) {
		if (rd->marks[i].t_s < ax->lo || rd->marks[i].t_s > ax->hi)
			continue;
		double x = sx(ax, rd->marks[i].t_s);
		double y = PT + 4;
		/* 7 px a character at 12 px, generously */
		double len = 7.0 * (double)report_u8_width(rd->marks[i].name);
		if (x - last_x < 16 && last_end + 6 + len < PB)
			y = last_end + 6;
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		             "stroke=\"#777777\" stroke-dasharray=\"3 3\"/>\n", x, PT, x, PB);
		fprintf(out, "<text class=\"mark-name\" transform=\"translate(%.1f %.1f) rotate(-90)\" "
		             "text-anchor=\"end\">", x - 3, y);
		xml_text(out, rd->marks[i].name);
		fputs("</text>\n", out);
		last_x = x;
		last_end = y + len;
	}
	fputs("</g>\n", out);
}

/* The route's duration from the campaign's stored route text, seconds;
 * NaN when it has none or it cannot be read. */
static double route_end_s(const struct db_campaign *c)
{
	if (!c->route_text || !c->route_text[0])
		return NAN;
	struct route *r = NULL;
	if (route_parse("route", c->route_text, strlen(c->route_text), NULL, &r, NULL) != 0)
		return NAN;
	double d = (double)route_duration_ms(r) / 1000.0;
	route_free(r);
	return d > 0 ? d : NAN;
}

static int plot_frametime(struct db *db, const struct report_data *rd, FILE *out, bool *wrote)
{
	const struct db_campaign *c = rd->campaign;
	struct route_arm *ra = calloc(rd->n_arms, sizeof *ra);
	if (!ra)
		return -ENOMEM;
	double xmax, ytop, ymax_all;
	bool all_on_route;
	int err = route_arms_load(db, rd, ra, &xmax, &ytop, &ymax_all, &all_on_route);
	bool any = false;
	for (size_t i = 0; i < rd->n_arms; i++)
		any |= ra[i].n > 0;
	if (err || !any || !(xmax > 0))
		goto out;
	/* the axis ends where the route does (its duration), else at the last
	 * frame or mark */
	double end = all_on_route ? route_end_s(c) : NAN;
	if (all_on_route && !isfinite(end))
		for (size_t i = 0; i < rd->n_marks; i++)
			xmax = fmax(xmax, rd->marks[i].t_s);
	if (isfinite(end))
		xmax = end;
	double ylim = fmin(ymax_all, ytop * 1.5);
	struct axis ax = axis_exact(0, xmax, 8);
	struct axis ay = axis_make(0, ylim, 6, true);
	char sub[160];
	snprintf(sub, sizeof sub, "band: the runs' min–max; thin: the median run; bold: its 1 s "
	         "average%s", ymax_all > ay.hi ? "; longer frames at the top" : "");
	char title[160];
	snprintf(title, sizeof title, "%s: frame time over the route", c->name);
	struct legend lg = { .n = 0 };
	for (size_t i = 0; i < rd->n_arms; i++) {
		if (!ra[i].n)
			continue;
		char name[160], item[240];
		arm_name(name, sizeof name, &rd->arms[i]);
		snprintf(item, sizeof item, "%s (run %d; band of %zu run%s)", name,
		         rd->runs[ra[i].med].run->position, ra[i].n_runs, ra[i].n_runs == 1 ? "" : "s");
		legend_add(&lg, colours[i % N_COLOURS], item, false);
	}
	svg_begin(out, title, sub, &lg);
	if (all_on_route && c->window_start_s < c->window_end_s) {
		double x0 = sx(&ax, c->window_start_s), x1 = sx(&ax, fmin(c->window_end_s, ax.hi));
		fprintf(out, "<rect class=\"window\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		             "height=\"%.1f\" fill=\"#f0f0f0\"/>\n", x0, PT, x1 - x0, PB - PT);
	}
	svg_axes(out, &ax, &ay,
	         all_on_route ? "time on the route (s)" : "time from the run's first frame (s)",
	         "frame time (ms)", false);
	if (all_on_route)
		draw_route_marks(out, rd, &ax);
	/* frames after the route's end are not drawn */
	fprintf(out, "<clipPath id=\"clip-frametime\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
	             "height=\"%.1f\"/></clipPath>\n", PL, PT - 2, PR - PL, PB - PT + 4);
	for (size_t i = 0; i < rd->n_arms; i++) {
		if (!ra[i].n)
			continue;
		const char *col = colours[i % N_COLOURS];
		char attrs[128];
		fprintf(out, "<g class=\"series\" data-arm=\"%c\" data-run=\"%d\" "
		             "clip-path=\"url(#clip-frametime)\">\n",
		        rd->arms[i].arm->letter, rd->runs[ra[i].med].run->position);
		band_draw(out, &ra[i], &ax, &ay, xmax, col);
		snprintf(attrs, sizeof attrs, "class=\"median-run\" stroke=\"%s\" stroke-width=\"1\" "
		         "stroke-opacity=\"0.6\"", col);
		polyline_thinned(out, &ax, &ay, ra[i].x, ra[i].y, ra[i].n, attrs);
		snprintf(attrs, sizeof attrs, "class=\"moving-average\" stroke=\"%s\" stroke-width=\"3\"",
		         col);
		polyline_thinned(out, &ax, &ay, ra[i].x, ra[i].avg, ra[i].n, attrs);
		fputs("</g>\n", out);
	}
	legend_draw(out, &lg);
	fputs("</svg>\n", out);
	*wrote = true;
out:
	route_arms_free(ra, rd->n_arms);
	return err;
}

/* ---- the percentile curve -------------------------------------------- */

#define CURVE_POINTS 160  /* points of a curve, evenly spaced on the percentile axis */

/* A run's window frame times, sorted; NULL with *n = 0 when it has none. */
static int run_sorted_window(struct db *db, const struct report_data *rd,
                             const struct report_run *r, double **out, size_t *n_out)
{
	const struct db_campaign *c = rd->campaign;
	bool windowed = c->window_start_s < c->window_end_s;
	double *x, *y;
	size_t n, k = 0;
	bool on_route;
	int err = report_run_frame_times(db, r, &x, &y, &n, &on_route);
	if (err)
		return err;
	for (size_t j = 0; j < n; j++)
		if (!(windowed && on_route) || (x[j] > c->window_start_s && x[j] <= c->window_end_s))
			y[k++] = y[j];
	free(x);
	qsort(y, k, sizeof *y, cmp_double);
	*out = y;
	*n_out = k;
	return 0;
}

/* The percentile of curve point j: u = 3 j / (CURVE_POINTS - 1). */
static double curve_pct(size_t j)
{
	return 100.0 * (1.0 - pow(10.0, -3.0 * (double)j / (CURVE_POINTS - 1)));
}

struct curve_arm {
	double *runs;      /* n_runs curves of CURVE_POINTS frame times */
	size_t n_runs;
	double median[CURVE_POINTS];
	size_t frames;
};

/* Every usable run's curve per arm, the arms' median curves, and the
 * largest frame time the median curves reach. */
static int curves_load(struct db *db, const struct report_data *rd, struct curve_arm *ca,
                       double *ytop)
{
	*ytop = 0;
	for (size_t i = 0; i < rd->n_arms; i++) {
		const struct report_arm *a = &rd->arms[i];
		ca[i].runs = malloc((a->n_runs ? a->n_runs : 1) * CURVE_POINTS * sizeof *ca[i].runs);
		if (!ca[i].runs)
			return -ENOMEM;
		for (size_t k = 0; k < a->n_runs; k++) {
			const struct report_run *r = &rd->runs[a->runs[k]];
			if (r->is_void)
				continue;
			double *v;
			size_t n;
			int err = run_sorted_window(db, rd, r, &v, &n);
			if (err)
				return err;
			if (n) {
				double *cv = ca[i].runs + ca[i].n_runs * CURVE_POINTS;
				for (size_t j = 0; j < CURVE_POINTS; j++)
					cv[j] = j == 0 ? v[0] : quantile_sorted(v, n, curve_pct(j));
				ca[i].n_runs++;
				ca[i].frames += n;
			}
			free(v);
		}
		double col[4096];
		for (size_t j = 0; j < CURVE_POINTS && ca[i].n_runs; j++) {
			size_t m = 0;
			for (size_t k = 0; k < ca[i].n_runs && m < sizeof col / sizeof col[0]; k++)
				col[m++] = ca[i].runs[k * CURVE_POINTS + j];
			ca[i].median[j] = median_of(col, m);
			*ytop = fmax(*ytop, ca[i].median[j]);
		}
	}
	return 0;
}

static void curve_line(FILE *out, const struct axis *ax, const struct axis *ay, const double *v,
                       const char *attrs)
{
	fprintf(out, "<polyline fill=\"none\" %s points=\"", attrs);
	for (size_t j = 0; j < CURVE_POINTS; j++)
		fprintf(out, "%.1f,%.1f ", sx(ax, 3.0 * (double)j / (CURVE_POINTS - 1)),
		        sy(ay, fmin(v[j], ay->hi)));
	fputs("\"/>\n", out);
}

static int plot_distribution(struct db *db, const struct report_data *rd, FILE *out, bool *wrote)
{
	const struct db_campaign *c = rd->campaign;
	struct curve_arm *ca = calloc(rd->n_arms, sizeof *ca);
	if (!ca)
		return -ENOMEM;
	double ytop;
	int err = curves_load(db, rd, ca, &ytop);
	bool any = false;
	for (size_t i = 0; i < rd->n_arms; i++)
		any |= ca[i].n_runs > 0;
	if (err || !any)
		goto out;
	struct axis ax = { 0, 3, 1 };
	struct axis ay = axis_make(0, ytop * 1.15, 6, true);
	char title[160];
	snprintf(title, sizeof title, "%s: frame time by percentile", c->name);
	struct legend lg = { .n = 0 };
	for (size_t i = 0; i < rd->n_arms; i++) {
		if (!ca[i].n_runs)
			continue;
		char name[160], item[240];
		arm_name(name, sizeof name, &rd->arms[i]);
		snprintf(item, sizeof item, "%s (%zu run%s, %zu frames)", name, ca[i].n_runs,
		         ca[i].n_runs == 1 ? "" : "s", ca[i].frames);
		legend_add(&lg, colours[i % N_COLOURS], item, false);
	}
	svg_begin(out, title, "thin: each usable run's window; bold: the arm's median; log tail",
	          &lg);
	svg_axes(out, &ax, &ay, "percentile of frames (%)", "frame time (ms)", true);
	for (size_t i = 0; i < rd->n_arms; i++) {
		if (!ca[i].n_runs)
			continue;
		const char *col = colours[i % N_COLOURS];
		char attrs[128];
		fprintf(out, "<g class=\"series\" data-arm=\"%c\">\n", rd->arms[i].arm->letter);
		snprintf(attrs, sizeof attrs, "class=\"run-curve\" stroke=\"%s\" stroke-width=\"1\" "
		         "stroke-opacity=\"0.4\"", col);
		for (size_t k = 0; k < ca[i].n_runs; k++)
			curve_line(out, &ax, &ay, ca[i].runs + k * CURVE_POINTS, attrs);
		snprintf(attrs, sizeof attrs, "class=\"median-curve\" stroke=\"%s\" stroke-width=\"3\"",
		         col);
		curve_line(out, &ax, &ay, ca[i].median, attrs);
		fputs("</g>\n", out);
	}
	legend_draw(out, &lg);
	fputs("</svg>\n", out);
	*wrote = true;
out:
	for (size_t i = 0; i < rd->n_arms; i++)
		free(ca[i].runs);
	free(ca);
	return err;
}

/* ---- real fps per run -------------------------------------------------- */

/* Dashed lines between rounds, each round named at the top. */
static void round_marks(FILE *out, const struct report_data *rd, const struct axis *ax)
{
	fputs("<g class=\"rounds\" font-size=\"12\" fill=\"#555555\">\n", out);
	int last_round = 0;
	double last_pos = 0;
	for (size_t k = 0; k < rd->n_runs; k++) {
		const struct db_run *r = rd->runs[k].run;
		if (r->round != last_round) {
			double x = last_round ? sx(ax, (last_pos + r->position) / 2.0) : sx(ax, r->position - 0.5);
			fprintf(out, "<line class=\"round\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			             "stroke=\"#999999\" stroke-dasharray=\"2 4\"/>\n", x, PT, x, PB);
			fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">round %d</text>\n", x + 3, PT + 14,
			        r->round);
			last_round = r->round;
		}
		last_pos = r->position;
	}
	fputs("</g>\n", out);
}

/* The baseline's least-squares line over its usable runs' positions:
 * slope and intercept; false with fewer than 2 runs at different places. */
static bool baseline_line(const struct report_data *rd, int m, double *slope, double *icept,
                          double *x0, double *x1, size_t *n_out)
{
	const struct report_arm *a = &rd->arms[rd->base];
	double sx_ = 0, sy_ = 0, sxx = 0, sxy = 0;
	size_t n = 0;
	*x0 = INFINITY;
	*x1 = -INFINITY;
	for (size_t k = 0; k < a->n_runs; k++) {
		const struct report_run *r = &rd->runs[a->runs[k]];
		if (r->is_void || !isfinite(r->v[m]))
			continue;
		double x = r->run->position;
		sx_ += x;
		sy_ += r->v[m];
		sxx += x * x;
		sxy += x * r->v[m];
		*x0 = fmin(*x0, x);
		*x1 = fmax(*x1, x);
		n++;
	}
	double den = (double)n * sxx - sx_ * sx_;
	*n_out = n;
	if (n < 2 || !(den > 1e-12))
		return false;
	*slope = ((double)n * sxy - sx_ * sy_) / den;
	*icept = (sy_ - *slope * sx_) / (double)n;
	return true;
}

/* Each arm's runs as marks joined in campaign order, void runs hollow. */
static void fps_series(FILE *out, const struct report_data *rd, size_t i, int m,
                       const struct axis *ax, const struct axis *ay)
{
	const struct report_arm *a = &rd->arms[i];
	const char *col = colours[i % N_COLOURS];
	fprintf(out, "<g class=\"series\" data-arm=\"%c\">\n", a->arm->letter);
	fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" "
	             "stroke-opacity=\"0.6\" points=\"", col);
	for (size_t k = 0; k < a->n_runs; k++) {
		const struct report_run *r = &rd->runs[a->runs[k]];
		if (!r->is_void && isfinite(r->v[m]))
			fprintf(out, "%.1f,%.1f ", sx(ax, r->run->position), sy(ay, r->v[m]));
	}
	fputs("\"/>\n", out);
	for (size_t k = 0; k < a->n_runs; k++) {
		const struct report_run *r = &rd->runs[a->runs[k]];
		double v = r->v[m];
		double x = sx(ax, r->run->position);
		if (!isfinite(v)) {
			fprintf(out, "<text class=\"void\" x=\"%.1f\" y=\"%.1f\" fill=\"%s\" "
			             "text-anchor=\"middle\" font-size=\"13\">void</text>\n",
			        x, PB - 6, col);
			continue;
		}
		fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\" stroke=\"%s\" "
		             "stroke-width=\"2\"><title>run %d (%c, round %d): %.*f fps%s</title>"
		             "</circle>\n",
		        x, sy(ay, v), r->is_void ? "#ffffff" : col, col, r->run->position,
		        a->arm->letter, r->run->round, stats_metrics[m].decimals + 1, v,
		        r->is_void ? ", void" : "");
	}
	fputs("</g>\n", out);
}

static void plot_fps(const struct report_data *rd, FILE *out, bool *wrote)
{
	const struct db_campaign *c = rd->campaign;
	int m = report_metric_index("real_fps");
	double lo = INFINITY, hi = -INFINITY;
	int pmax = 1;
	for (size_t k = 0; k < rd->n_runs; k++) {
		double v = rd->runs[k].v[m];
		if (isfinite(v)) {
			lo = fmin(lo, v);
			hi = fmax(hi, v);
		}
		if (rd->runs[k].run->position > pmax)
			pmax = rd->runs[k].run->position;
	}
	if (!isfinite(lo))
		return;
	double pad = (hi - lo) * 0.1 + 0.05 * fabs(hi);
	/* the x axis spans the runs drawn: the warm-ups before them are not */
	int pmin = pmax;
	for (size_t k = 0; k < rd->n_runs; k++)
		if (rd->runs[k].run->position < pmin)
			pmin = rd->runs[k].run->position;
	struct axis ax = axis_exact(pmin - 0.5, pmax + 0.5, 8);
	if (ax.step < 1)
		ax.step = 1;
	struct axis ay = axis_make(lo - pad, hi + pad, 6, false);
	char title[160];
	snprintf(title, sizeof title, "%s: real fps per run", c->name);
	struct legend lg = { .n = 0 };
	for (size_t i = 0; i < rd->n_arms; i++) {
		char name[160];
		arm_name(name, sizeof name, &rd->arms[i]);
		legend_add(&lg, colours[i % N_COLOURS], name, false);
	}
	double slope = 0, icept = 0, x0 = 0, x1 = 0;
	size_t n_line = 0;
	bool drift = baseline_line(rd, m, &slope, &icept, &x0, &x1, &n_line);
	/* through two runs the line is the baseline's own: not drawn, only said */
	bool drift_line = drift && n_line >= 3;
	const char *base_col = colours[rd->base % N_COLOURS];
	if (drift) {
		char item[200];
		double first = icept + slope * x0, last = icept + slope * x1;
		snprintf(item, sizeof item, "baseline %c drift: %+.*f fps over the campaign (%+.1f %%)",
		         rd->arms[rd->base].arm->letter, stats_metrics[m].decimals + 1, last - first,
		         first != 0 ? (last - first) / fabs(first) * 100.0 : 0.0);
		legend_add(&lg, drift_line ? "#555555" : base_col, item, drift_line);
	}
	svg_begin(out, title, "campaign order; hollow: void (not counted); dashed grey: baseline drift",
	          &lg);
	svg_axes(out, &ax, &ay, "run, in campaign order", "real fps", false);
	round_marks(out, rd, &ax);
	if (drift_line)
		fprintf(out, "<line class=\"drift\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		             "stroke=\"#555555\" stroke-width=\"2\" stroke-dasharray=\"6 4\"/>\n",
		        sx(&ax, x0), sy(&ay, icept + slope * x0), sx(&ax, x1), sy(&ay, icept + slope * x1));
	for (size_t i = 0; i < rd->n_arms; i++)
		fps_series(out, rd, i, m, &ax, &ay);
	legend_draw(out, &lg);
	fputs("</svg>\n", out);
	*wrote = true;
}

static int plot_fps_fn(struct db *db, const struct report_data *rd, FILE *out, bool *wrote)
{
	(void)db;
	plot_fps(rd, out, wrote);
	return 0;
}

/* ---- the answer's charts (CapFrameX's habit) --------------------------- */

#define CHART_BAR 15.0     /* one bar's height */
#define CHART_GAP 12.0     /* between arms */
#define CHART_LEFT 180.0   /* the bars start here: arm names to the left */
#define CHART_RIGHT 480.0  /* and end at most here: values to the right */

/* One bar: the arm's mean of metric m, its 95 % interval as a whisker. */
static void chart_bar(FILE *out, const struct report_data *rd, size_t a, int m, double y,
                      double scale, double opacity, const char *what)
{
	const struct report_arm *arm = &rd->arms[a];
	const struct stats_metric_def *d = &stats_metrics[m];
	const char *col = colours[a % N_COLOURS];
	if (m < 0 || !arm->has_sum[m]) {
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" fill=\"#777777\">%s: no "
		             "value</text>\n", CHART_LEFT + 4, y + CHART_BAR - 3, what);
		return;
	}
	const struct stats_summary *su = &arm->sum[m];
	double half = report_mean_ci_half(su);
	double x1 = CHART_LEFT + fmax(0, su->mean) * scale;
	fprintf(out, "<rect class=\"bar\" data-arm=\"%c\" data-metric=\"%s\" x=\"%.1f\" y=\"%.1f\" "
	             "width=\"%.1f\" height=\"%.1f\" fill=\"%s\" fill-opacity=\"%.2f\">"
	             "<title>%c %s: %.*f %s</title></rect>\n",
	        arm->arm->letter, d->key, CHART_LEFT, y, x1 - CHART_LEFT, CHART_BAR, col, opacity,
	        arm->arm->letter, what, d->decimals + 1, su->mean, d->unit);
	double right = x1;
	if (isfinite(half) && half > 0) {
		double lo = CHART_LEFT + fmax(0, su->mean - half) * scale;
		double hi = CHART_LEFT + fmax(0, su->mean + half) * scale;
		double ym = y + CHART_BAR / 2;
		fprintf(out, "<g class=\"whisker\" stroke=\"#222222\" stroke-width=\"1.5\">"
		             "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
		             "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
		             "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/></g>\n",
		        lo, ym, hi, ym, lo, y + 3, lo, y + CHART_BAR - 3, hi, y + 3, hi, y + CHART_BAR - 3);
		right = fmax(right, hi);
	}
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">%.*f <tspan fill=\"#555555\">"
	             "%s</tspan></text>\n", right + 5, y + CHART_BAR - 3, d->decimals, su->mean,
	        strcmp(what, "mean") == 0 ? "" : what);
}

/* The chart of one primary metric, the answer at a glance: per arm its
 * mean as a bar with the 95 % interval of the mean as a whisker (for real
 * fps, CapFrameX's three bars: average, 1 % low and 0.1 % low), the
 * baseline's bar marked and its mean as a dashed line across.  Nothing is
 * written without a value. */
int report_chart_metric(const struct report_data *rd, int m, FILE *out, bool *wrote)
{
	*wrote = false;
	const struct stats_metric_def *d = &stats_metrics[m];
	bool fps = strcmp(d->key, "real_fps") == 0;
	int parts[3] = { m, fps ? report_metric_index("low_1pct_fps") : -1,
		         fps ? report_metric_index("low_01pct_fps") : -1 };
	static const char *const what_fps[3] = { "average", "1 % low", "0.1 % low" };
	size_t n_parts = 1;
	if (fps)
		n_parts = 1 + (parts[1] >= 0 && rd->has_data[parts[1]]) +
		          (parts[2] >= 0 && rd->has_data[parts[2]]);
	double top = 0;
	bool any = false;
	for (size_t a = 0; a < rd->n_arms; a++)
		for (size_t k = 0; k < n_parts; k++) {
			if (parts[k] < 0 || !rd->arms[a].has_sum[parts[k]])
				continue;
			const struct stats_summary *su = &rd->arms[a].sum[parts[k]];
			double half = report_mean_ci_half(su);
			top = fmax(top, su->mean + (isfinite(half) ? half : 0));
			any = true;
		}
	if (!any || !(top > 0))
		return 0;
	double scale = (CHART_RIGHT - CHART_LEFT) / top;
	double row = (double)n_parts * CHART_BAR + CHART_GAP;
	double y0 = 58, height = y0 + (double)rd->n_arms * row + 34;
	char name[128], title[200];
	stats_metric_name(d, name, sizeof name);
	snprintf(title, sizeof title, "%s by arm", name);
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	             "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %.0f\" "
	             "width=\"100%%\" font-family=\"sans-serif\" font-size=\"14\" class=\"chart\" "
	             "data-metric=\"%s\">\n<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" "
	             "fill=\"#ffffff\"/>\n<title>", W, ceil(height), d->key, W, ceil(height));
	xml_text(out, title);
	fputs("</title>\n<text x=\"10\" y=\"22\" font-size=\"17\" font-weight=\"bold\">", out);
	xml_text(out, title);
	fprintf(out, "</text>\n<text x=\"10\" y=\"40\" font-size=\"13\" fill=\"#444444\">%s is "
	             "better · whiskers: 95 %% interval of the mean · dashed: %c</text>\n",
	        d->direction == STATS_LOWER_IS_BETTER ? "shorter" : "longer",
	        rd->arms[rd->base].arm->letter);
	/* the baseline's mean across every arm */
	const struct report_arm *base = &rd->arms[rd->base];
	if (base->has_sum[m]) {
		double x = CHART_LEFT + base->sum[m].mean * scale;
		fprintf(out, "<line class=\"baseline\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		             "stroke=\"#444444\" stroke-dasharray=\"4 3\"/>\n", x, y0 - 6, x,
		        y0 + (double)rd->n_arms * row - CHART_GAP + 6);
	}
	for (size_t a = 0; a < rd->n_arms; a++) {
		const struct report_arm *arm = &rd->arms[a];
		double y = y0 + (double)a * row;
		char an[160];
		report_arm_name(arm, an, sizeof an);
		report_name_cut(an, 22);
		fprintf(out, "<g class=\"series\" data-arm=\"%c\">\n<text x=\"%.1f\" y=\"%.1f\" "
		             "text-anchor=\"end\"%s>", arm->arm->letter, CHART_LEFT - 8,
		        y + (double)n_parts * CHART_BAR / 2 + 5, a == rd->base ? " font-weight=\"bold\"" : "");
		xml_text(out, an);
		fputs("</text>\n", out);
		if (a == rd->base)
			fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\" "
			             "fill=\"#555555\">baseline</text>\n", CHART_LEFT - 8,
			        y + (double)n_parts * CHART_BAR / 2 + 18);
		for (size_t k = 0; k < n_parts; k++)
			chart_bar(out, rd, a, parts[k], y + (double)k * CHART_BAR, scale,
			          k == 0 ? 1.0 : k == 1 ? 0.6 : 0.35, fps ? what_fps[k] : "mean");
		fputs("</g>\n", out);
	}
	/* the value axis: 0 and the top */
	double ya = y0 + (double)rd->n_arms * row;
	fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#222222\"/>\n"
	             "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\">0</text>\n",
	        CHART_LEFT, ya - 4, CHART_RIGHT, ya - 4, CHART_LEFT, ya + 10);
	char b[64];
	struct axis ax = axis_make(0, top, 4, true);
	for (double v = ax.step; v <= top + 1e-9; v += ax.step) {
		tick_label(b, sizeof b, v, ax.step);
		double x = CHART_LEFT + v * scale;
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#222222\"/>"
		             "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\">%s</text>\n",
		        x, ya - 4, x, ya, x, ya + 10, b);
	}
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">%s</text>\n", CHART_RIGHT + 8,
	        ya + 10, d->unit);
	fputs("</svg>\n", out);
	*wrote = true;
	return ferror(out) ? -EIO : 0;
}

const struct report_plot_kind report_plot_kinds[] = {
	{ "frametime", "frame time over the route", plot_frametime },
	{ "distribution", "frame-time distribution", plot_distribution },
	{ "fps", "real fps per run", plot_fps_fn },
	{ NULL, NULL, NULL },
};

void report_plots_free(struct report_plot_svg *plots, size_t n)
{
	for (size_t i = 0; plots && i < n; i++) {
		free(plots[i].name);
		free(plots[i].svg);
		free(plots[i].png_name);
		free(plots[i].png);
	}
	free(plots);
}

int report_plots_render(struct db *db, int64_t campaign_id, const struct report_options *opts,
                        struct report_plot_svg **out, size_t *n_out)
{
	struct report_data *rd;
	int err = report_data_load(db, campaign_id, opts, &rd);
	if (err)
		return err;
	char *name = NULL;
	size_t n = 0, n_kinds = 0;
	while (report_plot_kinds[n_kinds].suffix)
		n_kinds++;
	struct report_plot_svg *plots = calloc(n_kinds, sizeof *plots);
	if (!plots) {
		err = report_fail(opts, -ENOMEM, "out of memory");
		goto out;
	}
	if ((err = report_tested_name(db, campaign_id, &name))) {
		err = report_fail(opts, err, "cannot name the plots: %s", strerror(-err));
		goto out;
	}
	name[strlen(name) - 3] = 0; /* drop ".md" */
	for (size_t k = 0; k < n_kinds; k++) {
		const struct report_plot_kind *pk = &report_plot_kinds[k];
		struct report_plot_svg *p = &plots[n];
		bool wrote = false;
		FILE *mem = open_memstream(&p->svg, &p->len);
		if (!mem) {
			err = report_fail(opts, -ENOMEM, "out of memory");
			goto out;
		}
		err = pk->draw(db, rd, mem, &wrote);
		if (fclose(mem) != 0 && !err)
			err = -ENOMEM;
		if (err) {
			err = report_fail(opts, err, "cannot draw the %s plot: %s", pk->suffix,
			                  strerror(-err));
			free(p->svg);
			p->svg = NULL;
			goto out;
		}
		if (!wrote) {
			free(p->svg);
			p->svg = NULL;
			continue;
		}
		if (asprintf(&p->name, "%s-%s.svg", name, pk->suffix) < 0) {
			p->name = NULL;
			n++; /* freed below */
			err = report_fail(opts, -ENOMEM, "out of memory");
			goto out;
		}
		p->kind = pk->suffix;
		p->title = pk->title;
		n++;
		if (!(opts && opts->plots_png))
			continue;
		char why[512] = "";
		err = report_svg_to_png(p->svg, p->len, 2.0, &p->png, &p->png_len, why, sizeof why);
		if (err) {
			err = report_fail(opts, err, "cannot draw the %s plot as PNG: %s", pk->suffix, why);
			goto out;
		}
		if (asprintf(&p->png_name, "%s-%s.png", name, pk->suffix) < 0) {
			p->png_name = NULL;
			err = report_fail(opts, -ENOMEM, "out of memory");
			goto out;
		}
	}
out:
	free(name);
	report_data_destroy(rd);
	if (err) {
		report_plots_free(plots, n);
		return err;
	}
	*out = plots;
	*n_out = n;
	return 0;
}

/* One file of dir written atomically, its path added to paths. */
static int write_one(const char *dir, const char *name, const void *data, size_t len,
                     const struct report_options *opts, char **paths, size_t *n_paths)
{
	char *path;
	if (asprintf(&path, "%s/%s", dir, name) < 0)
		return report_fail(opts, -ENOMEM, "out of memory");
	int err = util_write_file_atomic(path, data, len);
	if (err) {
		report_fail(opts, err, "cannot write '%s': %s", path, strerror(-err));
		free(path);
		return err;
	}
	paths[(*n_paths)++] = path;
	return 0;
}

int report_plot_write_files(struct db *db, int64_t campaign_id, const char *dir,
                            const struct report_options *opts, char ***paths_out,
                            size_t *n_paths_out)
{
	struct report_plot_svg *plots;
	size_t n, n_paths = 0;
	int err = report_plots_render(db, campaign_id, opts, &plots, &n);
	if (err)
		return err;
	char **paths = calloc(2 * n + 1, sizeof *paths);
	if (!paths) {
		err = report_fail(opts, -ENOMEM, "out of memory");
		goto out;
	}
	if ((err = util_mkdir_p(dir, 0755))) {
		err = report_fail(opts, err, "cannot make folder '%s': %s", dir, strerror(-err));
		goto out;
	}
	for (size_t i = 0; i < n && !err; i++) {
		err = write_one(dir, plots[i].name, plots[i].svg, plots[i].len, opts, paths, &n_paths);
		if (!err && plots[i].png)
			err = write_one(dir, plots[i].png_name, plots[i].png, plots[i].png_len, opts,
			                paths, &n_paths);
	}
out:
	report_plots_free(plots, n);
	if (err || !paths_out) {
		for (size_t i = 0; paths && i < n_paths; i++)
			free(paths[i]);
		free(paths);
		if (!err && n_paths_out)
			*n_paths_out = n_paths;
		return err;
	}
	*paths_out = paths;
	*n_paths_out = n_paths;
	return 0;
}

int report_plot_write(struct db *db, int64_t campaign_id, const char *dir,
                      const struct report_options *opts, size_t *n_written_out)
{
	char **paths = NULL;
	size_t n = 0, n_svg = 0;
	int err = report_plot_write_files(db, campaign_id, dir, opts, &paths, &n);
	if (err)
		return err;
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(paths[i]);
		n_svg += l > 4 && strcmp(paths[i] + l - 4, ".svg") == 0;
		free(paths[i]);
	}
	free(paths);
	if (n_written_out)
		*n_written_out = n_svg;
	return 0;
}
