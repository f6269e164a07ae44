/* report-html: a campaign as one self-contained HTML page, the morning page.
 *
 * It owns the page (docs/reports.md, "The HTML page"): inline CSS, no
 * script, nothing fetched from the network; the header (device, GPU,
 * driver, Mesa, route, window, order, rounds, baseline, where the campaign
 * stands and why it stopped), the host's facts at the start and what each
 * resume found changed (results-db host_facts), the table and verdicts, the plots inline as
 * SVG, the void runs with their reasons, and the route shot grid (one row
 * per shot point, one column per arm, each arm's runs stacked).
 *
 * It computes nothing of its own: the table, verdicts and void list are
 * the Markdown report's text (report-print.c) rendered to HTML by the small
 * Markdown reader below, so the page says exactly what `rxdeck report`
 * says; the plots are report-plot.c's; a shot's mark is stats'
 * stats_shot_compare(), the rule the void check applies, against the
 * baseline arm's usable runs' shots at the same point with the plan's
 * shot_luma.  Shots are linked into the run folders, or embedded as base64
 * PNG with report_options.embed_shots.
 */
#include "report-private.h"

#include "plan/plan.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A shot embedded in the page is read whole; a bigger file is linked. */
#define EMBED_MAX_B (16u << 20)

static void html_text_n(FILE *out, const char *s, size_t n)
{
	report_xml_text_n(out, s, n);
}

static void html_text(FILE *out, const char *s)
{
	html_text_n(out, s, s ? strlen(s) : 0);
}

/* ---- the Markdown the report writes, as HTML --------------------------------
 *
 * The subset report-print.c writes: paragraphs, "- " lists, "#" headings,
 * pipe tables (a header row, a |---| row, body rows; "\|" is a pipe inside a
 * cell, code spans included), and inline `code`, **strong**, *emphasis*,
 * backslash escapes, <https://...> links and the entities &lt; &gt; &amp;. */

static size_t find_from(const char *s, size_t len, size_t from, const char *what)
{
	size_t wl = strlen(what);
	for (size_t i = from; i + wl <= len; i++)
		if (memcmp(s + i, what, wl) == 0)
			return i;
	return (size_t)-1;
}

static bool is_entity(const char *s, size_t len)
{
	size_t i = 1;
	if (i < len && s[i] == '#') {
		i++;
		size_t d = i;
		while (i < len && isdigit((unsigned char)s[i]))
			i++;
		return i > d && i < len && s[i] == ';';
	}
	size_t a = i;
	while (i < len && isalpha((unsigned char)s[i]))
		i++;
	return i > a && i < len && s[i] == ';';
}

static void md_inline(FILE *out, const char *s, size_t len)
{
	size_t i = 0;
	while (i < len) {
		char c = s[i];
		if (c == '\\' && i + 1 < len && ispunct((unsigned char)s[i + 1])) {
			html_text_n(out, s + i + 1, 1);
			i += 2;
			continue;
		}
		if (c == '`') {
			size_t e = find_from(s, len, i + 1, "`");
			if (e != (size_t)-1) {
				fputs("<code>", out);
				html_text_n(out, s + i + 1, e - i - 1);
				fputs("</code>", out);
				i = e + 1;
				continue;
			}
		}
		if (c == '*' && i + 1 < len && s[i + 1] == '*') {
			size_t e = find_from(s, len, i + 2, "**");
			if (e != (size_t)-1 && e > i + 2) {
				fputs("<strong>", out);
				md_inline(out, s + i + 2, e - i - 2);
				fputs("</strong>", out);
				i = e + 2;
				continue;
			}
		}
		if (c == '*' && i + 1 < len && s[i + 1] != ' ') {
			size_t e = find_from(s, len, i + 1, "*");
			if (e != (size_t)-1 && e > i + 1) {
				fputs("<em>", out);
				md_inline(out, s + i + 1, e - i - 1);
				fputs("</em>", out);
				i = e + 1;
				continue;
			}
		}
		if (c == '<' && (strncmp(s + i, "<https://", 9) == 0 || strncmp(s + i, "<http://", 8) == 0)) {
			size_t e = find_from(s, len, i + 1, ">");
			if (e != (size_t)-1) {
				fputs("<a href=\"", out);
				html_text_n(out, s + i + 1, e - i - 1);
				fputs("\">", out);
				html_text_n(out, s + i + 1, e - i - 1);
				fputs("</a>", out);
				i = e + 1;
				continue;
			}
		}
		if (c == '&' && is_entity(s + i, len - i)) {
			size_t e = find_from(s, len, i, ";");
			fwrite(s + i, 1, e - i + 1, out);
			i = e + 1;
			continue;
		}
		html_text_n(out, s + i, 1);
		i++;
	}
}

/* Splits a table line into cells: the outer pipes dropped, "\|" kept as a
 * pipe of the cell's text, other escapes left for md_inline(). */
static void md_row(FILE *out, const char *line, size_t len, bool head, size_t *n_cells)
{
	const char *tag = head ? "th" : "td";
	size_t i = 0;
	while (i < len && line[i] == ' ')
		i++;
	if (i < len && line[i] == '|')
		i++;
	while (len > i && (line[len - 1] == ' ' || line[len - 1] == '\r'))
		len--;
	if (len > i && line[len - 1] == '|' && !(len >= 2 && line[len - 2] == '\\'))
		len--;
	char *cell = malloc(len + 1);
	if (!cell)
		return;
	fputs("<tr>", out);
	size_t n = 0;
	while (i <= len) {
		size_t k = 0;
		while (i < len && line[i] != '|') {
			if (line[i] == '\\' && i + 1 < len && line[i + 1] == '|') {
				cell[k++] = '|';
				i += 2;
				continue;
			}
			if (line[i] == '\\' && i + 1 < len) {
				cell[k++] = line[i++];
			}
			cell[k++] = line[i++];
		}
		size_t a = 0;
		while (a < k && cell[a] == ' ')
			a++;
		while (k > a && cell[k - 1] == ' ')
			k--;
		fprintf(out, "<%s>", tag);
		md_inline(out, cell + a, k - a);
		fprintf(out, "</%s>", tag);
		n++;
		i++; /* the pipe, or past the end */
	}
	fputs("</tr>\n", out);
	free(cell);
	if (n_cells)
		*n_cells = n;
}

static bool md_is_rule_row(const char *s, size_t len)
{
	bool dash = false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '-')
			dash = true;
		else if (!strchr("|: \r", s[i]))
			return false;
	}
	return dash;
}

enum md_block { MD_NONE, MD_PARA, MD_LIST, MD_TABLE_HEAD, MD_TABLE_BODY };

static void md_close(FILE *out, enum md_block *b)
{
	switch (*b) {
	case MD_PARA: fputs("</p>\n", out); break;
	case MD_LIST: fputs("</ul>\n", out); break;
	case MD_TABLE_HEAD: fputs("</thead></table></div>\n", out); break;
	case MD_TABLE_BODY: fputs("</tbody></table></div>\n", out); break;
	case MD_NONE: break;
	}
	*b = MD_NONE;
}

/* Renders the Markdown text md as HTML; tables get class table_class. */
static void md_to_html(FILE *out, const char *md, const char *table_class)
{
	enum md_block b = MD_NONE;
	const char *p = md ? md : "";
	while (*p) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		size_t lead = 0;
		while (lead < len && p[lead] == ' ')
			lead++;
		const char *s = p + lead;
		size_t sl = len - lead;
		if (sl == 0) {
			md_close(out, &b);
		} else if (s[0] == '|') {
			if (b == MD_TABLE_HEAD && md_is_rule_row(s, sl)) {
				fputs("</thead><tbody>\n", out);
				b = MD_TABLE_BODY;
			} else if (b == MD_TABLE_HEAD || b == MD_TABLE_BODY) {
				md_row(out, s, sl, b == MD_TABLE_HEAD, NULL);
			} else {
				md_close(out, &b);
				fprintf(out, "<div class=\"scroll\"><table class=\"%s\"><thead>\n", table_class);
				md_row(out, s, sl, true, NULL);
				b = MD_TABLE_HEAD;
			}
		} else if (sl >= 2 && s[0] == '-' && s[1] == ' ') {
			if (b != MD_LIST) {
				md_close(out, &b);
				fputs("<ul>\n", out);
				b = MD_LIST;
			}
			fputs("<li>", out);
			md_inline(out, s + 2, sl - 2);
			fputs("</li>\n", out);
		} else if (s[0] == '#') {
			md_close(out, &b);
			size_t h = 0;
			while (h < sl && s[h] == '#')
				h++;
			size_t level = h + 2 > 6 ? 6 : h + 2; /* under the page's h1 and h2 */
			size_t t = h;
			while (t < sl && s[t] == ' ')
				t++;
			fprintf(out, "<h%zu>", level);
			md_inline(out, s + t, sl - t);
			fprintf(out, "</h%zu>\n", level);
		} else {
			if (b == MD_PARA) {
				fputc('\n', out);
			} else {
				md_close(out, &b);
				fputs("<p>", out);
				b = MD_PARA;
			}
			md_inline(out, s, sl);
		}
		p += len;
		if (*p == '\n')
			p++;
	}
	md_close(out, &b);
}

/* ---- shots ----------------------------------------------------------------- */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void base64_write(FILE *out, const unsigned char *d, size_t n)
{
	size_t i = 0;
	for (; i + 3 <= n; i += 3) {
		unsigned v = (unsigned)d[i] << 16 | (unsigned)d[i + 1] << 8 | d[i + 2];
		fputc(b64[v >> 18], out);
		fputc(b64[(v >> 12) & 63], out);
		fputc(b64[(v >> 6) & 63], out);
		fputc(b64[v & 63], out);
	}
	if (n - i == 1) {
		unsigned v = (unsigned)d[i] << 16;
		fputc(b64[v >> 18], out);
		fputc(b64[(v >> 12) & 63], out);
		fputs("==", out);
	} else if (n - i == 2) {
		unsigned v = (unsigned)d[i] << 16 | (unsigned)d[i + 1] << 8;
		fputc(b64[v >> 18], out);
		fputc(b64[(v >> 12) & 63], out);
		fputc(b64[(v >> 6) & 63], out);
		fputc('=', out);
	}
}

/* A file path as a URL for href/src: file:// for an absolute path, every
 * byte outside the unreserved set and '/' percent-encoded. */
static void url_of_path(FILE *out, const char *path)
{
	if (path[0] == '/')
		fputs("file://", out);
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if (isalnum(*p) || strchr("-._~/", *p))
			fputc(*p, out);
		else
			fprintf(out, "%%%02X", *p);
	}
}

/* Reads a PNG whole for embedding.  0, or a negative errno (-EINVAL: not
 * a PNG, -EFBIG: over EMBED_MAX_B). */
static int read_png(const char *path, unsigned char **data, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -errno;
	unsigned char *buf = NULL;
	size_t n = 0, cap = 0;
	int err = 0;
	for (;;) {
		if (n == cap) {
			if (cap >= EMBED_MAX_B) {
				err = -EFBIG;
				break;
			}
			cap = cap ? cap * 2 : 65536;
			unsigned char *nb = realloc(buf, cap);
			if (!nb) {
				err = -ENOMEM;
				break;
			}
			buf = nb;
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0) {
			if (ferror(f))
				err = -EIO;
			break;
		}
	}
	fclose(f);
	static const unsigned char sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	if (!err && (n < 8 || memcmp(buf, sig, 8) != 0))
		err = -EINVAL;
	if (err) {
		free(buf);
		return err;
	}
	*data = buf;
	*len = n;
	return 0;
}

struct point {
	const char *name;
	double t_s;           /* NaN: not a route mark */
};

struct grid {
	struct db_shot **shots;  /* per report run */
	size_t *n_shots;
	struct point *points;
	size_t n_points;
	double tolerance;        /* the plan's shot_luma */
	bool tolerance_from_plan;
};

static void grid_finish(struct grid *g, size_t n_runs)
{
	if (g->shots)
		for (size_t i = 0; i < n_runs; i++)
			free(g->shots[i]);
	free(g->shots);
	free(g->n_shots);
	free(g->points);
}

static bool has_point(const struct grid *g, const char *name)
{
	for (size_t i = 0; i < g->n_points; i++)
		if (strcmp(g->points[i].name, name) == 0)
			return true;
	return false;
}

static int cmp_point_name(const void *a, const void *b)
{
	return strcmp(((const struct point *)a)->name, ((const struct point *)b)->name);
}

/* The plan's shot_luma; the embedded default plan's for a campaign without
 * a readable plan (an imported one). */
static void grid_tolerance(const struct report_data *rd, struct grid *g)
{
	struct plan *plan = NULL;
	const char *text = rd->campaign->plan_text;
	g->tolerance_from_plan = text && text[0] &&
	                         plan_parse("plan", text, strlen(text), NULL, &plan, NULL) == 0;
	if (!g->tolerance_from_plan) {
		text = plan_default_text();
		if (plan_parse("default plan", text, strlen(text), NULL, &plan, NULL) != 0)
			plan = NULL;
	}
	g->tolerance = plan ? plan->void_rules.shot_luma : 0;
	plan_free(plan);
}

static int grid_load(struct db *db, const struct report_data *rd, struct grid *g)
{
	size_t nr = rd->n_runs ? rd->n_runs : 1;
	size_t total = rd->n_marks;
	g->shots = calloc(nr, sizeof *g->shots);
	g->n_shots = calloc(nr, sizeof *g->n_shots);
	if (!g->shots || !g->n_shots)
		return -ENOMEM;
	for (size_t i = 0; i < rd->n_runs; i++) {
		int err = db_shots_read(db, rd->runs[i].run->id, &g->shots[i], &g->n_shots[i]);
		if (err)
			return err;
		total += g->n_shots[i];
	}
	g->points = calloc(total ? total : 1, sizeof *g->points);
	if (!g->points)
		return -ENOMEM;
	for (size_t i = 0; i < rd->n_marks; i++)
		if (rd->marks[i].kind && strcmp(rd->marks[i].kind, "shot") == 0 &&
		    !has_point(g, rd->marks[i].name))
			g->points[g->n_points++] = (struct point){ rd->marks[i].name, rd->marks[i].t_s };
	size_t first_unmarked = g->n_points;
	for (size_t i = 0; i < rd->n_runs; i++)
		for (size_t s = 0; s < g->n_shots[i]; s++)
			if (!has_point(g, g->shots[i][s].name))
				g->points[g->n_points++] = (struct point){ g->shots[i][s].name, NAN };
	qsort(g->points + first_unmarked, g->n_points - first_unmarked, sizeof *g->points,
	      cmp_point_name);
	grid_tolerance(rd, g);
	return 0;
}

static const struct db_shot *shot_of(const struct grid *g, size_t run, const char *point)
{
	for (size_t s = 0; s < g->n_shots[run]; s++)
		if (strcmp(g->shots[run][s].name, point) == 0)
			return &g->shots[run][s];
	return NULL;
}

static void shot_image(FILE *out, const struct db_shot *s, const char *alt, bool embed)
{
	if (!s->path || !s->path[0]) {
		fputs("<p class=\"nofile\">no picture stored</p>", out);
		return;
	}
	unsigned char *png = NULL;
	size_t len = 0;
	int err = embed ? read_png(s->path, &png, &len) : 0;
	fputs("<a href=\"", out);
	url_of_path(out, s->path);
	fputs("\">", out);
	if (embed && !err) {
		fputs("<img src=\"data:image/png;base64,", out);
		base64_write(out, png, len);
		free(png);
	} else {
		fputs("<img src=\"", out);
		url_of_path(out, s->path);
	}
	fputs("\" alt=\"", out);
	html_text(out, alt);
	fputs("\" loading=\"lazy\"></a>", out);
	if (embed && err) {
		fputs("<p class=\"nofile\">not embedded: ", out);
		html_text(out, err == -EINVAL ? "not a PNG" : err == -EFBIG ? "over 16 MiB" : strerror(-err));
		fputs("</p>", out);
	}
}

/* One run's shot at one point, with its luma, checksum and mark. */
static int grid_shot(FILE *out, const struct report_data *rd, const struct grid *g,
                     size_t run, const char *point, const struct stats_shot *base, size_t n_base,
                     bool embed)
{
	const struct report_run *r = &rd->runs[run];
	const struct db_shot *s = shot_of(g, run, point);
	struct stats_shot_verdict v = { .median_luma = NAN };
	bool is_base = r->arm == rd->base;
	char base_letter = rd->arms[rd->base].arm->letter;
	if (s && !is_base) {
		int err = stats_shot_compare(&(struct stats_shot){ s->luma, s->checksum }, base, n_base,
		                             g->tolerance, &v);
		if (err)
			return err;
	}
	fprintf(out, "<figure class=\"shot%s%s%s\" data-run=\"%d\" data-differs=\"%d\">",
	        v.differs ? " differs" : "", v.same_checksum ? " same" : "",
	        r->is_void ? " void" : "", r->run->position, v.differs ? 1 : 0);
	char alt[512];
	snprintf(alt, sizeof alt, "%s, arm %c, run %d", point, r->run->arm_letter, r->run->position);
	if (s)
		shot_image(out, s, alt, embed);
	fprintf(out, "<figcaption>run %d, round %d", r->run->position, r->run->round);
	if (r->is_void)
		fputs(" <span class=\"voidtag\">void</span>", out);
	if (!s) {
		fputs("<br>no shot taken</figcaption></figure>\n", out);
		return 0;
	}
	if (isfinite(s->luma))
		fprintf(out, "<br>luma <span class=\"luma\">%.1f</span>", s->luma);
	else
		fputs("<br>luma not known", out);
	if (s->checksum && s->checksum[0]) {
		fputs("<br>checksum <code class=\"checksum\">", out);
		html_text(out, s->checksum);
		fputs("</code>", out);
	}
	if (v.differs)
		fprintf(out, "<br><strong class=\"mark\">differs from %c: luma %.1f against %c's "
		             "median %.1f, over the tolerance of %.3g</strong>",
		        base_letter, s->luma, base_letter, v.median_luma, g->tolerance);
	else if (v.same_checksum)
		fprintf(out, "<br><span class=\"agrees\">the same picture as %c (checksum)</span>",
		        base_letter);
	fputs("</figcaption></figure>\n", out);
	return 0;
}

static int shot_grid(FILE *out, struct db *db, const struct report_data *rd, bool embed)
{
	struct grid g = { 0 };
	int err = grid_load(db, rd, &g);
	if (err)
		goto out;
	fputs("<section id=\"shots\">\n<h2>Route shots</h2>\n", out);
	if (g.n_points == 0) {
		fputs("<p>The route has no shot points, and no run stored a shot.</p>\n</section>\n", out);
		goto out;
	}
	char bl = rd->arms[rd->base].arm->letter;
	fprintf(out, "<p>One row per shot point of the route, one column per arm, each arm's runs "
	             "in campaign order. A shot is marked when it differs from the baseline %c's "
	             "usable runs at the same point: no checksum in common and a mean luma more "
	             "than %.3g from their median (the plan's <code>shot_luma</code>%s; the void "
	             "check's rule). Shots are %s.</p>\n",
	        bl, g.tolerance, g.tolerance_from_plan ? "" : ", the default plan's",
	        embed ? "embedded in this page" : "linked into the run folders");
	fputs("<div class=\"scroll\"><table class=\"shots\"><thead><tr><th>point</th>", out);
	for (size_t a = 0; a < rd->n_arms; a++) {
		const struct report_arm *arm = &rd->arms[a];
		fprintf(out, "<th data-arm=\"%c\">%c", arm->arm->letter, arm->arm->letter);
		if (arm->arm->label && arm->arm->label[0]) {
			fputs(": ", out);
			html_text(out, arm->arm->label);
		}
		if (a == rd->base)
			fputs(" (baseline)", out);
		fputs("</th>", out);
	}
	fputs("</tr></thead>\n<tbody>\n", out);
	struct stats_shot *base = calloc(rd->n_runs ? rd->n_runs : 1, sizeof *base);
	if (!base) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t p = 0; p < g.n_points && !err; p++) {
		const char *name = g.points[p].name;
		size_t n_base = 0;
		const struct report_arm *ba = &rd->arms[rd->base];
		for (size_t k = 0; k < ba->n_runs; k++) {
			const struct report_run *r = &rd->runs[ba->runs[k]];
			const struct db_shot *s = shot_of(&g, ba->runs[k], name);
			if (s && !r->is_void)
				base[n_base++] = (struct stats_shot){ s->luma, s->checksum };
		}
		fputs("<tr data-point=\"", out);
		html_text(out, name);
		fputs("\"><th scope=\"row\">", out);
		html_text(out, name);
		if (isfinite(g.points[p].t_s))
			fprintf(out, "<br><span class=\"at\">at %.1f s</span>", g.points[p].t_s);
		fputs("</th>", out);
		for (size_t a = 0; a < rd->n_arms && !err; a++) {
			const struct report_arm *arm = &rd->arms[a];
			fputs("<td class=\"cell\" data-point=\"", out);
			html_text(out, name);
			fprintf(out, "\" data-arm=\"%c\">", arm->arm->letter);
			for (size_t k = 0; k < arm->n_runs && !err; k++)
				err = grid_shot(out, rd, &g, arm->runs[k], name, base, n_base, embed);
			if (arm->n_runs == 0)
				fputs("<p>no finished run</p>", out);
			fputs("</td>", out);
		}
		fputs("</tr>\n", out);
	}
	free(base);
	fputs("</tbody></table></div>\n</section>\n", out);
out:
	grid_finish(&g, rd->n_runs);
	return err;
}

/* ---- the page -------------------------------------------------------------- */

static const char css[] =
	":root{color-scheme:light}\n"
	"body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1a1a1a;"
	"background:#fff;margin:0 auto;padding:12px 16px;max-width:1400px}\n"
	"h1{font-size:1.45em;margin:.2em 0 .4em}\n"
	"h2{font-size:1.15em;margin:1.4em 0 .5em;padding-bottom:.2em;border-bottom:1px solid #ccc}\n"
	"dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:0}\n"
	"dl.facts dt{color:#555}dl.facts dd{margin:0;overflow-wrap:anywhere}\n"
	".scroll{overflow-x:auto;max-width:100%}\n"
	"table{border-collapse:collapse;font-size:.92em;margin:.3em 0}\n"
	"th,td{border:1px solid #c8c8c8;padding:4px 7px;text-align:left;vertical-align:top}\n"
	"thead th{background:#f0f0f0}\n"
	"tbody th{background:#fafafa;font-weight:600}\n"
	"code{font-family:ui-monospace,'DejaVu Sans Mono',monospace;font-size:.9em}\n"
	".plots{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,380px),1fr));gap:14px}\n"
	".plot{margin:0;border:1px solid #ddd}.plot svg{display:block;width:100%;height:auto}\n"
	".plot figcaption{font-size:.85em;color:#555;padding:2px 6px}\n"
	"table.shots td{min-width:150px}\n"
	"figure.shot{margin:0 0 10px;max-width:240px}\n"
	"figure.shot img{display:block;width:100%;height:auto;border:1px solid #999;background:#eee}\n"
	"figure.shot figcaption{font-size:.82em;line-height:1.35}\n"
	"figure.shot.differs img{outline:4px solid #D55E00;outline-offset:-4px}\n"
	"figure.shot.void{opacity:.75}\n"
	".mark{color:#B23A00}.agrees{color:#25732a}.voidtag{color:#fff;background:#777;"
	"padding:0 4px;border-radius:3px}\n"
	".checksum{word-break:break-all}.nofile{color:#777;margin:0}\n"
	"p.facts{color:#444;margin:.1em 0 .6em;font-size:.92em}\n"
	"#headline{margin:.4em 0 .8em}#headline p.against{margin:.2em 0;color:#333}\n"
	"ul.lines{list-style:none;padding:0;margin:.3em 0}ul.lines li{margin:.25em 0}\n"
	".chip{display:inline-block;min-width:8.5em;padding:2px 10px;margin-right:.6em;"
	"border-radius:12px;color:#fff;font-weight:600;border:2px solid #3b1e6e}\n"
	".chip.better{background:#0b6e4f}.chip.worse{background:#b42318}"
	".chip.same{background:#1f4e99}.chip.mixed{background:#8a5a00}"
	".chip.undecided{background:#f2f2f2;color:#222}.chip.changed{background:#6b3fa0}\n"
	".nums{font-variant-numeric:tabular-nums}\n"
	"p.verdict{font-size:1.1em;margin:.5em 0}\n"
	".charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,480px),1fr));"
	"gap:14px}\n.chart{margin:0;border:1px solid #ddd}.chart svg,.chart img{display:block;"
	"width:100%;height:auto}\n"
	".plot.wide{grid-column:1/-1}.plot.wide svg,.plot.wide img{max-width:1000px;margin:0 auto}"
	".plot img{display:block;width:100%;height:auto}\n"
	"table.verdicts td.better{background:#d9f2e6}table.verdicts td.worse{background:#fbe0dd}"
	"table.verdicts td.same{background:#dfe8f7}table.verdicts td.changed{background:#ece3f5}"
	"table.verdicts td{font-variant-numeric:tabular-nums}\n"
	"details{margin:.6em 0;border:1px solid #ddd;padding:.3em .6em}"
	"summary{font-weight:600;cursor:pointer}\npre.plan{white-space:pre-wrap;font-size:.85em}\n"
	"@media print{.chip{-webkit-print-color-adjust:exact;print-color-adjust:exact}"
	"table.verdicts td{-webkit-print-color-adjust:exact;print-color-adjust:exact}}\n"
	"@media (max-width:640px){body{font-size:14px;padding:8px}"
	"dl.facts{grid-template-columns:1fr}dl.facts dt{font-weight:600;margin-top:4px}"
	"table.shots td{min-width:110px}figure.shot{max-width:160px}}\n";

static void fact(FILE *out, const char *label, const char *value)
{
	if (!value || !value[0])
		return;
	fputs("<dt>", out);
	html_text(out, label);
	fputs("</dt><dd>", out);
	html_text(out, value);
	fputs("</dd>\n", out);
}

/* The campaign's status in words, as the header says it. */
static void status_text(const struct report_data *rd, char *buf, size_t size)
{
	const struct db_campaign *c = rd->campaign;
	char t[64];
	report_format_time(t, sizeof t, c->finished_unix_ms, false);
	switch (c->status) {
	case DB_CAMPAIGN_DONE: {
		char why[160];
		report_stop_text(rd, why, sizeof why);
		snprintf(buf, size, "finished %s: %s", t, why);
		break;
	}
	case DB_CAMPAIGN_STOPPED:
		snprintf(buf, size, "stopped %s before every planned run ran: %zu left", t, rd->n_pending);
		break;
	case DB_CAMPAIGN_OPEN:
	default:
		snprintf(buf, size, "not finished: %zu planned run%s still to run", rd->n_pending,
		         rd->n_pending == 1 ? "" : "s");
		break;
	}
}

/* The title and one line of what ran where; the full list is in the
 * collapsed "Campaign" details. */
static void header(FILE *out, const struct report_data *rd)
{
	const struct db_campaign *c = rd->campaign;
	char buf[256];
	fputs("<header>\n<h1>Campaign ", out);
	html_text(out, c->name);
	fputs("</h1>\n<p class=\"facts\">", out);
	const char *parts[] = { c->device_model, c->gpu, c->route_name ? "route " : NULL };
	bool sep = false;
	for (size_t i = 0; i < 2; i++)
		if (parts[i] && parts[i][0]) {
			fputs(sep ? " · " : "", out);
			html_text(out, parts[i]);
			sep = true;
		}
	if (c->route_name && c->route_name[0]) {
		fputs(sep ? " · route " : "route ", out);
		html_text(out, c->route_name);
		sep = true;
	}
	snprintf(buf, sizeof buf, "%s%d round%s · baseline %c · ", sep ? " · " : "", c->rounds,
	         c->rounds == 1 ? "" : "s", rd->arms[rd->base].arm->letter);
	html_text(out, buf);
	status_text(rd, buf, sizeof buf);
	fputs("<span class=\"status\">", out);
	html_text(out, buf);
	fputs("</span></p>\n</header>\n", out);
}

/* The campaign's facts in full (collapsed): device, GPU, driver, Mesa,
 * host, route, window, order, rounds, baseline, start, status. */
static void campaign_details(FILE *out, const struct report_data *rd)
{
	const struct db_campaign *c = rd->campaign;
	char buf[256], t[64];
	fputs("<details id=\"campaign\"><summary>Campaign</summary>\n<dl class=\"facts\">\n", out);
	fact(out, "device", c->device_model);
	fact(out, "GPU", c->gpu);
	fact(out, "driver", c->driver);
	fact(out, "Mesa", c->mesa);
	fact(out, "host", c->host);
	fact(out, "route", c->route_name);
	if (c->window_start_s < c->window_end_s) {
		snprintf(buf, sizeof buf, "%g–%g s of the route", c->window_start_s, c->window_end_s);
		fact(out, "window", buf);
	}
	fact(out, "order", c->order);
	snprintf(buf, sizeof buf, "%d%s", c->rounds,
	         rd->n_warmup > 1 ? ", after a warm-up run of each arm"
	         : c->warmup      ? ", after a warm-up run"
	                          : "");
	fact(out, "rounds", buf);
	snprintf(buf, sizeof buf, "%c", rd->arms[rd->base].arm->letter);
	fact(out, "baseline", buf);
	report_format_time(t, sizeof t, c->created_unix_ms, false);
	fact(out, "started", t);
	status_text(rd, buf, sizeof buf);
	fact(out, "status", buf);
	fputs("</dl>\n", out);
	if (c->plan_text && c->plan_text[0]) {
		fputs("<p>The plan as the campaign stored it:</p>\n<pre class=\"plan\">", out);
		html_text(out, c->plan_text);
		fputs("</pre>\n", out);
	}
	fputs("</details>\n", out);
}

/* The chip class of an arm's call and of one decision. */
static const char *call_class(enum report_call c)
{
	switch (c) {
	case REPORT_CALL_BETTER: return "better";
	case REPORT_CALL_WORSE: return "worse";
	case REPORT_CALL_SAME: return "same";
	case REPORT_CALL_MIXED: return "mixed";
	case REPORT_CALL_UNDECIDED:
	default: return "undecided";
	}
}

/* The headline (report-headline.c): per arm a chip with its call, then
 * the numbers; the best arm or what would decide one. */
static void headline_section(FILE *out, const struct report_data *rd)
{
	const struct report_headline *h = &rd->headline;
	const struct report_arm *base = &rd->arms[rd->base];
	fputs("<section id=\"headline\">\n", out);
	if (rd->n_arms > 1) {
		fprintf(out, "<p class=\"against\">Against <strong>%c", base->arm->letter);
		if (base->arm->label && base->arm->label[0]) {
			fputc(' ', out);
			html_text(out, base->arm->label);
		}
		fputs("</strong> on the primary metrics, Δ % with its 95 % interval:</p>\n"
		      "<ul class=\"lines\">\n", out);
		for (size_t i = 0; i < h->n_lines; i++) {
			const struct report_headline_line *l = &h->lines[i];
			char name[160], text[1024];
			report_arm_name(&rd->arms[l->arm], name, sizeof name);
			report_headline_text(rd, l, 2, 0, NULL, text, sizeof text);
			/* the numbers: the text after the name and the word */
			const char *nums = text + strlen(name) + 3 + strlen(l->word);
			while (*nums == ' ')
				nums++;
			fprintf(out, "<li data-arm=\"%c\"><span class=\"chip %s\">", rd->arms[l->arm].arm->letter,
			        call_class(l->call));
			html_text(out, name);
			fputs(" · ", out);
			html_text(out, l->word);
			fputs("</span><span class=\"nums\">", out);
			/* the text's column gaps as dots: HTML folds the spaces */
			for (const char *q = nums; *q;) {
				const char *gap = strstr(q, "   ");
				size_t n = gap ? (size_t)(gap - q) : strlen(q);
				html_text_n(out, q, n);
				if (!gap)
					break;
				fputs(" · ", out);
				q = gap;
				while (*q == ' ')
					q++;
			}
			fputs("</span></li>\n", out);
		}
		fputs("</ul>\n", out);
	}
	char v[400];
	snprintf(v, sizeof v, "%s", h->verdict);
	if (v[0] >= 'a' && v[0] <= 'z')
		v[0] = (char)(v[0] - 'a' + 'A');
	fputs("<p class=\"verdict\"><strong>", out);
	html_text(out, v);
	fputs(".</strong></p>\n</section>\n", out);
}

/* The host's facts as the campaign recorded them at its start (`rxdeck deck
 * info`'s), then what each resume found changed. */
static void host_section(FILE *out, const struct report_data *rd)
{
	char t[64];
	fputs("<details id=\"host\"><summary>Host</summary>\n", out);
	if (rd->n_hosts == 0) {
		fputs("<p>No host facts recorded.</p>\n</details>\n", out);
		return;
	}
	for (size_t i = 0; i < rd->n_hosts; i++) {
		const struct db_host_facts *h = &rd->hosts[i];
		bool start = h->event && strcmp(h->event, "start") == 0;
		report_format_time(t, sizeof t, h->at_unix_ms, false);
		fputs(start ? "<p>At the start, " : "<p>Changed at the resume of ", out);
		html_text(out, t);
		fputs(start ? " (<code>rxdeck deck info</code>):</p>\n" : ":</p>\n", out);
		if (start) {
			json_t *o = h->facts ? json_loads(h->facts, 0, NULL) : NULL;
			const char *key;
			json_t *v;
			fputs("<dl class=\"facts\">\n", out);
			json_object_foreach(o, key, v) {
				if (json_is_null(v))
					continue;
				char *val = json_is_string(v) ? strdup(json_string_value(v))
				                              : json_dumps(v, JSON_ENCODE_ANY);
				fact(out, key, val ? val : "?");
				free(val);
			}
			fputs("</dl>\n", out);
			json_decref(o);
			continue;
		}
		fputs("<ul class=\"changes\">\n", out);
		for (const char *line = h->changes; line && *line;) {
			const char *nl = strchr(line, '\n');
			size_t len = nl ? (size_t)(nl - line) : strlen(line);
			fputs("<li><code>", out);
			html_text_n(out, line, len);
			fputs("</code></li>\n", out);
			line = nl ? nl + 1 : NULL;
		}
		fputs("</ul>\n", out);
	}
	fputs("</details>\n", out);
}

/* One SVG document as a figure: inline (its XML declaration left out), or
 * with embed a PNG librsvg drew from it, as a data URL. */
static int svg_figure(FILE *out, const char *svg, size_t len, const char *klass,
                      const char *attr, const char *kind, const char *caption, bool embed)
{
	fprintf(out, "<figure class=\"%s\" %s=\"%s\">\n", klass, attr, kind);
	if (embed) {
		unsigned char *png = NULL;
		size_t n = 0;
		char why[256] = "";
		int err = report_svg_to_png(svg, len, 2.0, &png, &n, why, sizeof why);
		if (err)
			return err;
		fputs("<img src=\"data:image/png;base64,", out);
		base64_write(out, png, n);
		fputs("\" alt=\"", out);
		html_text(out, caption);
		fputs("\">\n", out);
		free(png);
	} else {
		const char *p = svg;
		if (strncmp(p, "<?xml", 5) == 0 && strstr(p, "?>"))
			p = strstr(p, "?>") + 2;
		while (*p == '\n')
			p++;
		fputs(p, out);
	}
	fputs("<figcaption>", out);
	html_text(out, caption);
	fputs("</figcaption></figure>\n", out);
	return 0;
}

/* Draws with fn into memory, then writes the figure (or says there is no
 * data). */
static int plot_figure(FILE *out, struct db *db, const struct report_data *rd,
                       const struct report_plot_kind *pk, bool wide, bool embed)
{
	char *svg = NULL;
	size_t len = 0;
	bool wrote = false;
	FILE *mem = open_memstream(&svg, &len);
	if (!mem)
		return -ENOMEM;
	int err = pk->draw(db, rd, mem, &wrote);
	if (fclose(mem) != 0 && !err)
		err = -ENOMEM;
	if (!err && wrote)
		err = svg_figure(out, svg, len, wide ? "plot wide" : "plot", "data-kind", pk->suffix,
		                 pk->title, embed);
	else if (!err) {
		fprintf(out, "<p class=\"noplot\" data-kind=\"%s\">No ", pk->suffix);
		html_text(out, pk->title);
		fputs(" plot: no frames stored.</p>\n", out);
	}
	free(svg);
	return err;
}

/* A chart per primary metric with data, CapFrameX's bars. */
static int charts(FILE *out, const struct report_data *rd, bool embed)
{
	fputs("<section id=\"charts\">\n<div class=\"charts\">\n", out);
	int err = 0;
	for (size_t m = 0; m < rd->n_metrics && !err; m++) {
		if (!rd->primary[m] || !rd->has_data[m])
			continue;
		char *svg = NULL;
		size_t len = 0;
		bool wrote = false;
		FILE *mem = open_memstream(&svg, &len);
		if (!mem)
			return -ENOMEM;
		err = report_chart_metric(rd, (int)m, mem, &wrote);
		if (fclose(mem) != 0 && !err)
			err = -ENOMEM;
		if (!err && wrote) {
			char name[128];
			stats_metric_name(&stats_metrics[m], name, sizeof name);
			err = svg_figure(out, svg, len, "chart", "data-metric", stats_metrics[m].key, name,
			                 embed);
		}
		free(svg);
	}
	fputs("</div>\n</section>\n", out);
	return err;
}

/* The verdicts as a table coloured by state: a row per metric with a
 * decision, a column per arm, each cell the metric's word, Δ % with its
 * interval, p and the method (the Markdown's numbers, shorter). */
static void verdict_table(FILE *out, const struct report_data *rd)
{
	if (rd->n_arms < 2)
		return;
	fprintf(out, "<section id=\"verdicts\">\n<h2>Verdicts against %c</h2>\n"
	             "<div class=\"scroll\"><table class=\"verdicts\"><thead><tr><th>metric</th>",
	        rd->arms[rd->base].arm->letter);
	for (size_t a = 0; a < rd->n_arms; a++) {
		if (a == rd->base)
			continue;
		char name[160];
		report_arm_name(&rd->arms[a], name, sizeof name);
		fprintf(out, "<th data-arm=\"%c\">", rd->arms[a].arm->letter);
		html_text(out, name);
		fputs("</th>", out);
	}
	fputs("</tr></thead>\n<tbody>\n", out);
	for (int pass = 0; pass < 2; pass++)
		for (size_t m = 0; m < rd->n_metrics; m++) {
			if ((pass == 0) != rd->primary[m])
				continue;
			bool any = false;
			for (size_t a = 0; a < rd->n_arms; a++)
				any |= rd->arms[a].has_dec[m];
			if (!any)
				continue;
			const struct stats_metric_def *d = &stats_metrics[m];
			char name[128];
			stats_metric_name(d, name, sizeof name);
			fprintf(out, "<tr data-metric=\"%s\"><th scope=\"row\">", d->key);
			html_text(out, name);
			if (rd->primary[m])
				fputs(" <small>(primary)</small>", out);
			fputs("</th>", out);
			for (size_t a = 0; a < rd->n_arms; a++) {
				if (a == rd->base)
					continue;
				if (!rd->arms[a].has_dec[m]) {
					fputs("<td>no usable runs</td>", out);
					continue;
				}
				const struct stats_decision *x = &rd->arms[a].dec[m];
				char pct[32], lo[32] = "", hi[32] = "", method[160], buf[512];
				double bm = rd->arms[a].has_cmp[m] ? fabs(rd->arms[a].cmp[m].base.mean) : NAN;
				report_fmt_pct(pct, sizeof pct, x->delta_pct, true);
				stats_decision_method_text(x, method, sizeof method);
				fprintf(out, "<td class=\"%s\" data-state=\"%s\"><strong>%s</strong> ",
				        report_outcome(x->state), stats_state_word(d, x->state),
				        stats_state_word(d, x->state));
				if (isfinite(x->ci_low) && isfinite(bm) && bm > 0) {
					report_fmt_pct(lo, sizeof lo, x->ci_low / bm * 100, false);
					report_fmt_pct(hi, sizeof hi, x->ci_high / bm * 100, false);
					snprintf(buf, sizeof buf, "%s [%s, %s]", pct, lo, hi);
				} else {
					snprintf(buf, sizeof buf, "%s", pct);
				}
				html_text(out, buf);
				if (isfinite(x->p))
					fprintf(out, "<br><small>p = %.2g%s · ", x->p, x->primary ? "" : " (Holm)");
				else
					fputs("<br><small>", out);
				html_text(out, method);
				if (x->levels_text[0]) {
					fputs(" · ", out);
					html_text(out, x->levels_text);
				}
				if (x->state == STATS_STATE_UNDECIDED && x->reason[0]) {
					fputs("<br>", out);
					html_text(out, x->reason);
				}
				fputs("</small></td>", out);
			}
			fputs("</tr>\n", out);
		}
	fputs("</tbody></table></div>\n</section>\n", out);
}

/* Markdown written by fn into memory, then rendered. */
static int md_section(FILE *out, const struct report_data *rd, bool table, const char *klass)
{
	char *md = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&md, &len);
	if (!mem)
		return -ENOMEM;
	int err = 0;
	if (table)
		err = report_md_body(rd, false, mem);
	else
		report_md_void_list(rd, mem);
	if (fclose(mem) != 0 && !err)
		err = -ENOMEM;
	if (!err)
		md_to_html(out, md, klass);
	free(md);
	return err;
}

int report_html_print(struct db *db, const struct report_data *rd,
                      const struct report_options *opts, FILE *out)
{
	bool embed = opts && opts->embed_shots;
	bool embed_plots = opts && opts->embed_plots;
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta name=\"generator\" content=\"rxdeck report --format html\">\n<title>Campaign ",
	      out);
	html_text(out, rd->campaign->name);
	fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", css);
	/* the answer first: the headline and the charts */
	header(out, rd);
	headline_section(out, rd);
	int err = charts(out, rd, embed_plots);
	if (err)
		return report_fail(opts, err, "cannot draw the charts: %s", strerror(-err));
	/* frame time over the route, the whole width */
	fputs("<section id=\"plots\">\n<h2>Plots</h2>\n<div class=\"plots\">\n", out);
	for (size_t k = 0; report_plot_kinds[k].suffix && !err; k++)
		err = plot_figure(out, db, rd, &report_plot_kinds[k],
		                  strcmp(report_plot_kinds[k].suffix, "frametime") == 0, embed_plots);
	if (err)
		return report_fail(opts, err, "cannot draw the plots: %s", strerror(-err));
	fputs("</div>\n</section>\n", out);
	verdict_table(out, rd);
	/* everything else, collapsed */
	fputs("<details id=\"table\"><summary>Every run and verdict in full</summary>\n", out);
	err = md_section(out, rd, true, "report");
	if (err)
		return report_fail(opts, err, "cannot write the table: %s", strerror(-err));
	fputs("</details>\n", out);
	campaign_details(out, rd);
	host_section(out, rd);
	fputs("<section id=\"void\">\n<h2>Void runs</h2>\n", out);
	size_t n_void = 0;
	for (size_t i = 0; i < rd->n_runs; i++)
		n_void += rd->runs[i].is_void;
	if (n_void) {
		fputs("<p>Shown in the table, never counted.</p>\n", out);
		if ((err = md_section(out, rd, false, "void")))
			return report_fail(opts, err, "cannot write the void runs: %s", strerror(-err));
	} else {
		fputs("<p>None.</p>\n", out);
	}
	fputs("</section>\n", out);
	if ((err = shot_grid(out, db, rd, embed)))
		return report_fail(opts, err, "cannot read the shots of campaign '%s': %s",
		                   rd->campaign->name,
		                   db_errmsg(db)[0] ? db_errmsg(db) : strerror(-err));
	fputs("</body>\n</html>\n", out);
	return ferror(out) ? -EIO : 0;
}
