/* report-plot: a campaign's SVG plots, written by hand as XML text.
 *
 * Three plots (docs/reports.md, "Plots"):
 *   - frame time over the route: one line per arm, the arm's median run
 *     (by real fps), dashed marks at the route's marks and shots, the
 *     measured window shaded;
 *   - the frame-time distribution per arm: the share of frames at or below
 *     each frame time, over the arm's usable runs' window frames;
 *   - real fps of every run in campaign order, so drift over a night shows.
 * Each has axes with units and a legend, in a viewBox sized so the text
 * stays readable on a phone.  Every piece of text is XML-escaped; series are
 * <g> elements with class "series" and a data-arm attribute, which the
 * tests read.  A line of many frames is thinned to the lowest and highest
 * frame time of each horizontal pixel, which keeps every hitch visible.
 */
#include "report-private.h"

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

static void svg_begin(FILE *out, const char *title, const char *subtitle)
{
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	             "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %.0f\" "
	             "width=\"100%%\" font-family=\"sans-serif\" font-size=\"15\">\n"
	             "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n",
	        W, H, W, H);
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

static void svg_axes(FILE *out, const struct axis *ax, const struct axis *ay, const char *xlabel,
                     const char *ylabel)
{
	char b[64];
	fputs("<g class=\"axes\" stroke=\"#cccccc\" stroke-width=\"1\">\n", out);
	for (double v = ay->lo; v <= ay->hi + ay->step / 2; v += ay->step)
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", PL, sy(ay, v),
		        PR, sy(ay, v));
	fputs("</g>\n<g class=\"ticks\" font-size=\"13\" fill=\"#222222\">\n", out);
	for (double v = ay->lo; v <= ay->hi + ay->step / 2; v += ay->step) {
		tick_label(b, sizeof b, v, ay->step);
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", PL - 6,
		        sy(ay, v) + 5, b);
	}
	for (double v = ax->lo; v <= ax->hi + ax->step / 2; v += ax->step) {
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

/* Legend entries below the x axis label, wrapping. */
struct legend {
	double x, y;
};

static void legend_item(FILE *out, struct legend *lg, const char *colour, const char *text,
                        bool dashed)
{
	double width = 30 + 8.0 * (double)strlen(text);
	if (lg->x + width > W - 10 && lg->x > 10) {
		lg->x = 10;
		lg->y += 22;
	}
	fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
	             "stroke-width=\"3\"%s/>\n", lg->x, lg->y - 5, lg->x + 22, lg->y - 5, colour,
	        dashed ? " stroke-dasharray=\"4 3\"" : "");
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">", lg->x + 28, lg->y);
	xml_text(out, text);
	fputs("</text>\n", out);
	lg->x += width + 14;
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

struct series {
	double *x, *y;
	size_t n;
	bool on_route;
	ptrdiff_t run;
};

static void series_free(struct series *s, size_t n)
{
	for (size_t i = 0; s && i < n; i++) {
		free(s[i].x);
		free(s[i].y);
	}
	free(s);
}

/* Polyline of (x, y) thinned to the lowest and highest y per pixel column. */
static void polyline_thinned(FILE *out, const struct axis *ax, const struct axis *ay,
                             const double *x, const double *y, size_t n, const char *colour)
{
	fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" "
	             "stroke-linejoin=\"round\" points=\"", colour);
	long col = LONG_MIN;
	double lo = 0, hi = 0, lo_x = 0, hi_x = 0;
	bool have = false;
	for (size_t i = 0; i <= n; i++) {
		long c = i < n ? lround(sx(ax, x[i])) : LONG_MAX;
		if (i < n && (x[i] < ax->lo || x[i] > ax->hi))
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

static int plot_frametime(struct db *db, const struct report_data *rd, FILE *out, bool *wrote)
{
	const struct db_campaign *c = rd->campaign;
	struct series *s = calloc(rd->n_arms, sizeof *s);
	if (!s)
		return -ENOMEM;
	int err = 0;
	double xmax = 0, ytop = 0, ymax_all = 0;
	bool any = false, all_on_route = true;
	for (size_t i = 0; i < rd->n_arms; i++) {
		s[i].run = median_run(rd, &rd->arms[i]);
		if (s[i].run < 0)
			continue;
		err = report_run_frame_times(db, &rd->runs[s[i].run], &s[i].x, &s[i].y, &s[i].n,
		                             &s[i].on_route);
		if (err)
			goto out;
		if (!s[i].n)
			continue;
		any = true;
		all_on_route &= s[i].on_route;
		double *sorted = malloc(s[i].n * sizeof *sorted);
		if (!sorted) {
			err = -ENOMEM;
			goto out;
		}
		memcpy(sorted, s[i].y, s[i].n * sizeof *sorted);
		qsort(sorted, s[i].n, sizeof *sorted, cmp_double);
		double p = quantile_sorted(sorted, s[i].n, 99.5);
		if (p > ytop)
			ytop = p;
		if (sorted[s[i].n - 1] > ymax_all)
			ymax_all = sorted[s[i].n - 1];
		free(sorted);
		if (s[i].x[s[i].n - 1] > xmax)
			xmax = s[i].x[s[i].n - 1];
	}
	if (!any)
		goto out;
	if (all_on_route)
		for (size_t i = 0; i < rd->n_marks; i++)
			if (rd->marks[i].t_s > xmax)
				xmax = rd->marks[i].t_s;
	double ylim = fmin(ymax_all, ytop * 1.5);
	struct axis ax = axis_make(0, xmax, 8, true);
	struct axis ay = axis_make(0, ylim, 6, true);
	char sub[256];
	snprintf(sub, sizeof sub, "%s%s; each arm's median run by real fps%s",
	         c->route_name ? "route " : "", c->route_name ? c->route_name : "",
	         ymax_all > ay.hi ? "; longer frames drawn at the top edge" : "");
	char title[160];
	snprintf(title, sizeof title, "%s: frame time over the route", c->name);
	svg_begin(out, title, sub);
	if (all_on_route && c->window_start_s < c->window_end_s) {
		double x0 = sx(&ax, c->window_start_s), x1 = sx(&ax, fmin(c->window_end_s, ax.hi));
		fprintf(out, "<rect class=\"window\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		             "height=\"%.1f\" fill=\"#f0f0f0\"/>\n", x0, PT, x1 - x0, PB - PT);
	}
	svg_axes(out, &ax, &ay,
	         all_on_route ? "time on the route (s)" : "time from the run's first frame (s)",
	         "frame time (ms)");
	if (all_on_route) {
		fputs("<g class=\"marks\" font-size=\"12\" fill=\"#555555\">\n", out);
		for (size_t i = 0; i < rd->n_marks; i++) {
			double x = sx(&ax, rd->marks[i].t_s);
			fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			             "stroke=\"#777777\" stroke-dasharray=\"3 3\"/>\n", x, PT, x, PB);
			fprintf(out, "<text transform=\"translate(%.1f %.1f) rotate(-90)\" "
			             "text-anchor=\"end\">", x - 3, PT + 4);
			xml_text(out, rd->marks[i].name);
			fputs("</text>\n", out);
		}
		fputs("</g>\n", out);
	}
	struct legend lg = { 10, PB + 66 };
	for (size_t i = 0; i < rd->n_arms; i++) {
		if (!s[i].n)
			continue;
		const char *col = colours[i % N_COLOURS];
		fprintf(out, "<g class=\"series\" data-arm=\"%c\" data-run=\"%d\">\n",
		        rd->arms[i].arm->letter, rd->runs[s[i].run].run->position);
		polyline_thinned(out, &ax, &ay, s[i].x, s[i].y, s[i].n, col);
		fputs("</g>\n", out);
		char name[160], item[200];
		arm_name(name, sizeof name, &rd->arms[i]);
		snprintf(item, sizeof item, "%s (run %d)", name, rd->runs[s[i].run].run->position);
		legend_item(out, &lg, col, item, false);
	}
	fputs("</svg>\n", out);
	*wrote = true;
out:
	series_free(s, rd->n_arms);
	return err;
}

static int plot_distribution(struct db *db, const struct report_data *rd, FILE *out, bool *wrote)
{
	const struct db_campaign *c = rd->campaign;
	struct series *s = calloc(rd->n_arms, sizeof *s);
	if (!s)
		return -ENOMEM;
	int err = 0;
	bool any = false;
	double xtop = 0;
	bool windowed = c->window_start_s < c->window_end_s;
	for (size_t i = 0; i < rd->n_arms; i++) {
		const struct report_arm *a = &rd->arms[i];
		for (size_t k = 0; k < a->n_runs; k++) {
			const struct report_run *r = &rd->runs[a->runs[k]];
			if (r->is_void)
				continue;
			double *x, *y;
			size_t n;
			bool on_route;
			err = report_run_frame_times(db, r, &x, &y, &n, &on_route);
			if (err)
				goto out;
			double *g = realloc(s[i].y, (s[i].n + n + 1) * sizeof *g);
			if (!g) {
				free(x);
				free(y);
				err = -ENOMEM;
				goto out;
			}
			s[i].y = g;
			for (size_t j = 0; j < n; j++)
				if (!(windowed && on_route) ||
				    (x[j] > c->window_start_s && x[j] <= c->window_end_s))
					s[i].y[s[i].n++] = y[j];
			free(x);
			free(y);
		}
		if (!s[i].n)
			continue;
		any = true;
		qsort(s[i].y, s[i].n, sizeof *s[i].y, cmp_double);
		double p = quantile_sorted(s[i].y, s[i].n, 99.5);
		if (p > xtop)
			xtop = p;
	}
	if (!any)
		goto out;
	struct axis ax = axis_make(0, xtop * 1.1, 8, true);
	struct axis ay = { 0, 100, 20 };
	char title[160];
	snprintf(title, sizeof title, "%s: frame-time distribution", c->name);
	svg_begin(out, title, "share of frames at or below each frame time, usable runs, measured window");
	svg_axes(out, &ax, &ay, "frame time (ms)", "frames at or below (%)");
	struct legend lg = { 10, PB + 66 };
	for (size_t i = 0; i < rd->n_arms; i++) {
		if (!s[i].n)
			continue;
		const char *col = colours[i % N_COLOURS];
		fprintf(out, "<g class=\"series\" data-arm=\"%c\">\n<polyline fill=\"none\" "
		             "stroke=\"%s\" stroke-width=\"2\" points=\"", rd->arms[i].arm->letter, col);
		/* at most ~1000 points: every step of the sorted values' ranks */
		size_t n = s[i].n, step = n > 1000 ? n / 1000 : 1;
		for (size_t j = 0; j < n; j += step) {
			double v = s[i].y[j] > ax.hi ? ax.hi : s[i].y[j];
			fprintf(out, "%.1f,%.1f ", sx(&ax, v), sy(&ay, 100.0 * (double)(j + 1) / (double)n));
		}
		double last = s[i].y[n - 1] > ax.hi ? ax.hi : s[i].y[n - 1];
		fprintf(out, "%.1f,%.1f\"/>\n</g>\n", sx(&ax, last), sy(&ay, 100.0));
		char name[160], item[200];
		arm_name(name, sizeof name, &rd->arms[i]);
		snprintf(item, sizeof item, "%s (%zu frames)", name, n);
		legend_item(out, &lg, col, item, false);
	}
	fputs("</svg>\n", out);
	*wrote = true;
out:
	series_free(s, rd->n_arms);
	return err;
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
	struct axis ax = axis_make(0, pmax + 1, 8, true);
	struct axis ay = axis_make(lo - pad, hi + pad, 6, false);
	char title[160];
	snprintf(title, sizeof title, "%s: real fps per run", c->name);
	svg_begin(out, title, "in campaign order; hollow marks are void runs (not counted)");
	svg_axes(out, &ax, &ay, "run, in campaign order", "real fps");
	struct legend lg = { 10, PB + 66 };
	for (size_t i = 0; i < rd->n_arms; i++) {
		const struct report_arm *a = &rd->arms[i];
		const char *col = colours[i % N_COLOURS];
		fprintf(out, "<g class=\"series\" data-arm=\"%c\">\n", a->arm->letter);
		fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" "
		             "stroke-opacity=\"0.6\" points=\"", col);
		for (size_t k = 0; k < a->n_runs; k++) {
			const struct report_run *r = &rd->runs[a->runs[k]];
			if (!r->is_void && isfinite(r->v[m]))
				fprintf(out, "%.1f,%.1f ", sx(&ax, r->run->position), sy(&ay, r->v[m]));
		}
		fputs("\"/>\n", out);
		for (size_t k = 0; k < a->n_runs; k++) {
			const struct report_run *r = &rd->runs[a->runs[k]];
			double v = r->v[m];
			double x = sx(&ax, r->run->position);
			if (!isfinite(v)) {
				fprintf(out, "<text class=\"void\" x=\"%.1f\" y=\"%.1f\" fill=\"%s\" "
				             "text-anchor=\"middle\" font-size=\"13\">void</text>\n",
				        x, PB - 6, col);
				continue;
			}
			fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\" stroke=\"%s\" "
			             "stroke-width=\"2\"><title>run %d (%c, round %d): %.*f fps%s</title>"
			             "</circle>\n",
			        x, sy(&ay, v), r->is_void ? "#ffffff" : col, col, r->run->position,
			        a->arm->letter, r->run->round, stats_metrics[m].decimals + 1, v,
			        r->is_void ? ", void" : "");
		}
		fputs("</g>\n", out);
		char name[160];
		arm_name(name, sizeof name, a);
		legend_item(out, &lg, col, name, false);
	}
	fputs("</svg>\n", out);
	*wrote = true;
}

static int plot_fps_fn(struct db *db, const struct report_data *rd, FILE *out, bool *wrote)
{
	(void)db;
	plot_fps(rd, out, wrote);
	return 0;
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

int report_plot_write(struct db *db, int64_t campaign_id, const char *dir,
                      const struct report_options *opts, size_t *n_written_out)
{
	struct report_plot_svg *plots;
	size_t n;
	int err = report_plots_render(db, campaign_id, opts, &plots, &n);
	if (err)
		return err;
	if ((err = report_mkdir_p(dir))) {
		err = report_fail(opts, err, "cannot make folder '%s': %s", dir, strerror(-err));
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		char *path;
		if (asprintf(&path, "%s/%s", dir, plots[i].name) < 0) {
			err = report_fail(opts, -ENOMEM, "out of memory");
			goto out;
		}
		err = report_atomic_write(path, plots[i].svg, plots[i].len);
		if (err)
			err = report_fail(opts, err, "cannot write '%s': %s", path, strerror(-err));
		free(path);
		if (err)
			goto out;
	}
	if (n_written_out)
		*n_written_out = n;
out:
	report_plots_free(plots, n);
	return err;
}
