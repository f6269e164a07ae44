/* Tests of `rxdeck report --format html`: the page is one balanced HTML
 * document with no script and nothing fetched; its table and verdicts are
 * the Markdown report's cells; one plot per kind inline; void runs with
 * their reasons; the shot grid has one cell per (point, arm) with each
 * arm's runs stacked, luma and checksum per shot, and marks exactly where
 * the void check's rule finds a shot unlike the baseline's; shots are
 * linked, or embedded as base64 PNG with embed_shots. */
#include "test-report-util.h"

#include <ctype.h>
#include <errno.h>

#include "report/report.h"

/* ---- a small HTML balance checker ------------------------------------- */

static bool is_void_element(const char *n)
{
	static const char *const v[] = { "area", "base", "br",   "col",   "embed",  "hr", "img",
		                         "input", "link", "meta", "source", "track", "wbr" };
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		if (strcmp(n, v[i]) == 0)
			return true;
	return false;
}

/* NULL when every element is closed in order (void elements and "/>"
 * excepted) and every attribute is quoted; else what is wrong. */
static const char *html_check(const char *s, char *where, size_t where_size)
{
	char stack[128][32];
	int depth = 0;
	const char *p = s;
	while (*p) {
		if (*p != '<') {
			p++;
			continue;
		}
		snprintf(where, where_size, "%.60s", p);
		if (strncmp(p, "<!--", 4) == 0) {
			const char *e = strstr(p, "-->");
			if (!e)
				return "unclosed comment";
			p = e + 3;
			continue;
		}
		if (strncmp(p, "<!DOCTYPE", 9) == 0) {
			p = strchr(p, '>');
			if (!p)
				return "unclosed doctype";
			p++;
			continue;
		}
		bool closing = p[1] == '/';
		p += closing ? 2 : 1;
		char name[32];
		size_t n = 0;
		while ((isalnum((unsigned char)*p) || *p == '-') && n < sizeof name - 1)
			name[n++] = (char)tolower((unsigned char)*p++);
		name[n] = 0;
		if (!n)
			return "'<' that opens no tag";
		if (closing) {
			if (*p != '>')
				return "bad closing tag";
			p++;
			if (depth == 0 || strcmp(stack[depth - 1], name) != 0)
				return "closing tag does not match";
			depth--;
			if (strcmp(name, "style") == 0 || strcmp(name, "title") == 0)
				continue;
			continue;
		}
		bool self = false;
		for (;;) {
			while (isspace((unsigned char)*p))
				p++;
			if (*p == '/' && p[1] == '>') {
				p += 2;
				self = true;
				break;
			}
			if (*p == '>') {
				p++;
				break;
			}
			while (*p && !isspace((unsigned char)*p) && *p != '=' && *p != '>' && *p != '/')
				p++;
			if (*p == '=') {
				p++;
				char q = *p;
				if (q != '"' && q != '\'')
					return "unquoted attribute";
				const char *e = strchr(p + 1, q);
				if (!e)
					return "unclosed attribute";
				if (memchr(p + 1, '<', (size_t)(e - p - 1)))
					return "'<' in an attribute";
				p = e + 1;
			} else if (!*p) {
				return "unclosed tag";
			}
		}
		if (self || is_void_element(name))
			continue;
		if (depth == 128)
			return "too deep";
		snprintf(stack[depth++], sizeof stack[0], "%s", name);
		if (strcmp(name, "style") == 0) {
			const char *e = strstr(p, "</style>");
			if (!e)
				return "unclosed style";
			p = e;
		}
	}
	if (depth) {
		snprintf(where, where_size, "<%s>", stack[depth - 1]);
		return "unclosed element";
	}
	return NULL;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* The text between the first occurrence of from and the next until. */
static char *between(const char *s, const char *from, const char *until)
{
	const char *a = strstr(s, from);
	if (!a)
		return NULL;
	const char *b = strstr(a, until);
	if (!b)
		return NULL;
	return strndup(a, (size_t)(b - a));
}

/* A 1x1 PNG. */
static const unsigned char png1[] = {
	0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44,
	0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f,
	0x15, 0xc4, 0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8,
	0xcf, 0xc0, 0xf0, 0x1f, 0x00, 0x05, 0x00, 0x01, 0xff, 0x89, 0x99, 0x3d, 0x1d, 0x00, 0x00,
	0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
};

static void shot(struct trep *t, int64_t run, const char *name, double luma, const char *sum)
{
	char path[PATH_MAX + 64];
	snprintf(path, sizeof path, "%s/run%lld-%s.png", t->dir, (long long)run, name);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(png1, 1, sizeof png1, f), sizeof png1);
	fclose(f);
	struct db_shot s = { .name = name, .path = path, .luma = luma, .checksum = sum };
	assert_int_equal(db_shots_store(t->db, run, &s, 1), 0);
}

/* Arms A (baseline), B, C; two rounds of ABC plus a void A run.  Shot
 * points "walk" (30 s) and "pan" (60 s) from the route marks; "extra"
 * only in one run.  At "pan": B's run 5 is 40 luma units off A's median
 * (A: 100 and 104, median 102; tolerance 16) and marked; C's run 3 is just
 * as far off but has A's checksum, so it is the same picture; B's run 2 is
 * 10 off, inside the tolerance.  The void A run's shot (luma 250) must not
 * move A's median. */
static void build(struct trep *t)
{
	static const char *const labels[] = { "off <base> & \"quoted\"", "early", "late" };
	static const char *const env[] = { NULL, "RX_VK_READBACK_EARLY=1", "RX_VK_READBACK_LATE=newest" };
	trep_open(t, "night-1", 3, labels, env);
	int64_t r[7];
	double fps[] = { 12.0, 13.0, 12.2, 12.4, 13.2, 12.1 };
	for (int i = 0; i < 6; i++) {
		r[i] = trep_run(t, i % 3, i / 3 + 1, NULL, NULL);
		trep_frames_at(t, r[i], INT64_C(1000000000000) * (i + 1), fps[i]);
	}
	r[6] = trep_run(t, 0, 3, "hung: no frame for 10 s | stuck <at> `pan`", NULL);
	struct db_route_mark m[] = { { 30, "walk", "shot" }, { 45, "turn", "mark" }, { 60, "pan", "shot" } };
	assert_int_equal(db_route_marks_store(t->db, t->campaign, m, 3), 0);
	/* walk: every run the same picture */
	for (int i = 0; i < 6; i++)
		shot(t, r[i], "walk", 80, "1111111111111111");
	shot(t, r[0], "pan", 100, "a0a0a0a0a0a0a0a0");
	shot(t, r[3], "pan", 104, "a3a3a3a3a3a3a3a3");
	shot(t, r[1], "pan", 112, "b1b1b1b1b1b1b1b1");
	shot(t, r[4], "pan", 142, "b4b4b4b4b4b4b4b4");
	shot(t, r[2], "pan", 142, "a3a3a3a3a3a3a3a3");
	/* C's run 6 has no pan shot */
	shot(t, r[6], "pan", 250, "ffffffffffffffff");
	shot(t, r[5], "extra", 10, "e5e5e5e5e5e5e5e5");
}

static char *page(struct trep *t, bool embed)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	assert_non_null(mem);
	char msg[256] = "";
	struct report_options o = { .format = REPORT_FORMAT_HTML, .embed_shots = embed,
		                    .errmsg = msg, .errmsg_size = sizeof msg };
	int err = report_print(t->db, t->campaign, &o, mem);
	fclose(mem);
	if (err)
		fail_msg("report_print: %d %s", err, msg);
	return text;
}

/* The answer first: the headline with a chip per arm before the first
 * table, the verdict table's cells classed by state; --embed gives the
 * charts and plots as PNG pictures (librsvg), with no SVG left inline. */
static void test_html__answer_first_and_embedded_plots(void **state)
{
	(void)state;
	struct trep t = { 0 };
	build(&t);
	char *html = page(&t, false);
	const char *head = strstr(html, "<section id=\"headline\">");
	const char *chip = strstr(html, "<span class=\"chip ");
	const char *table = strstr(html, "<table");
	assert_non_null(head);
	assert_non_null(chip);
	assert_true(head < chip && chip < table);
	/* one chip per arm but the baseline, each naming its arm and call */
	assert_int_equal(count(html, "<span class=\"chip "), 2);
	assert_non_null(strstr(html, "<li data-arm=\"B\"><span class=\"chip "));
	assert_non_null(strstr(html, "<li data-arm=\"C\"><span class=\"chip "));
	/* the verdict sentence */
	assert_non_null(strstr(head, "<p class=\"verdict\"><strong>"));
	/* the verdict table: every cell classed by its state */
	char *vt = between(html, "<table class=\"verdicts\">", "</table>");
	assert_non_null(vt);
	size_t cells = count(vt, "<td class=\"");
	assert_true(cells >= 2);
	assert_int_equal(cells, count(vt, "<td class=\"better\"") + count(vt, "<td class=\"worse\"") +
	                            count(vt, "<td class=\"same\"") +
	                            count(vt, "<td class=\"undecided\"") +
	                            count(vt, "<td class=\"changed\""));
	free(vt);
	free(html);

	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	assert_non_null(mem);
	char msg[256] = "";
	struct report_options o = { .format = REPORT_FORMAT_HTML, .embed_plots = true,
		                    .errmsg = msg, .errmsg_size = sizeof msg };
	assert_int_equal(report_print(t.db, t.campaign, &o, mem), 0);
	fclose(mem);
	assert_null(strstr(text, "<svg "));
	/* two charts and three plots, each a PNG */
	assert_int_equal(count(text, "<img src=\"data:image/png;base64,iVBORw0KGgo"), 5);
	free(text);
	trep_cleanup(&t);
}

static void test_html__balanced_self_contained(void **state)
{
	(void)state;
	struct trep t = { 0 };
	build(&t);
	char *html = page(&t, false);
	char where[96] = "";
	const char *why = html_check(html, where, sizeof where);
	if (why)
		fail_msg("%s at '%s'", why, where);
	assert_true(strncmp(html, "<!DOCTYPE html>\n<html lang=\"en\">", 32) == 0);
	assert_non_null(strstr(html, "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"));
	assert_null(strstr(html, "<script"));
	assert_null(strstr(html, "src=\"http"));
	assert_null(strstr(html, "href=\"http"));
	assert_null(strstr(html, "<link"));
	assert_null(strstr(html, "<?xml")); /* the SVGs' declarations are dropped */
	/* escaped label, header facts */
	assert_non_null(strstr(html, "off &lt;base&gt; &amp; &quot;quoted&quot;"));
	assert_non_null(strstr(html, "<dt>device</dt><dd>Steam Deck OLED</dd>"));
	assert_non_null(strstr(html, "<dt>Mesa</dt><dd>24.1.3</dd>"));
	assert_non_null(strstr(html, "<dt>window</dt><dd>30–110 s of the route</dd>"));
	assert_non_null(strstr(html, "<dt>order</dt><dd>ABBA</dd>"));
	assert_non_null(strstr(html, "<dt>status</dt><dd>not finished: 0 planned runs still to run</dd>"));
	free(html);
	trep_cleanup(&t);
}

static void test_html__table_is_the_markdown_reports(void **state)
{
	(void)state;
	struct trep t = { 0 };
	build(&t);
	char *html = page(&t, false);
	char *md = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&md, &len);
	assert_int_equal(report_print(t.db, t.campaign, NULL, mem), 0);
	fclose(mem);
	/* every arm heads the table; the first row as Markdown has it */
	char *table = between(html, "<table class=\"report\">", "</table>");
	assert_non_null(table);
	assert_non_null(strstr(table, "<th>A: off &lt;base&gt; &amp; &quot;quoted&quot;</th>"));
	assert_non_null(strstr(table, "<th>B: early</th>"));
	assert_non_null(strstr(table, "<th>C: late</th>"));
	assert_non_null(strstr(md, "| real fps (runs) | 12.0, 12.4, void (-) | 13.0, 13.2 | 12.2, 12.1 |"));
	assert_non_null(strstr(table, "<tr><td>real fps (runs)</td><td>12.0, 12.4, void (-)</td>"
	                              "<td>13.0, 13.2</td><td>12.2, 12.1</td></tr>"));
	assert_non_null(strstr(table, "<td><code>RX_VK_READBACK_EARLY=1</code></td>"));
	free(table);
	/* the verdicts table: a row per metric compared, the words of the md */
	assert_int_equal(count(html, "<table class=\"report\">"), 2);
	assert_non_null(strstr(md, "*faster*/*slower* when the"));
	assert_non_null(strstr(html, "<em>faster</em>/<em>slower</em> when the"));
	assert_null(strstr(html, "**"));
	free(md);
	free(html);
	trep_cleanup(&t);
}

static void test_html__plots_and_void_runs(void **state)
{
	(void)state;
	struct trep t = { 0 };
	build(&t);
	char *html = page(&t, false);
	/* frame time over the route the whole width, the other two beside */
	assert_int_equal(count(html, "<figure class=\"plot wide\" data-kind=\"frametime\">"), 1);
	assert_int_equal(count(html, "<figure class=\"plot\" data-kind=\"distribution\">"), 1);
	assert_int_equal(count(html, "<figure class=\"plot\" data-kind=\"fps\">"), 1);
	/* and a chart per primary metric with data (real fps, p99), before them */
	assert_int_equal(count(html, "<figure class=\"chart\" data-metric=\"real_fps\">"), 1);
	assert_int_equal(count(html, "<figure class=\"chart\" data-metric=\"p99_ms\">"), 1);
	assert_int_equal(count(html, "<svg xmlns=\"http://www.w3.org/2000/svg\""), 5);
	assert_true(strstr(html, "<figure class=\"chart\"") < strstr(html, "<figure class=\"plot"));
	/* CapFrameX's bars for real fps: average, 1 % and 0.1 % lows per arm
	 * with data, whiskers, the baseline marked */
	char *chart = between(html, "<figure class=\"chart\" data-metric=\"real_fps\">", "</figure>");
	assert_non_null(chart);
	assert_true(count(chart, "class=\"bar\" data-arm=\"A\" data-metric=\"real_fps\"") == 1);
	assert_non_null(strstr(chart, "class=\"baseline\""));
	assert_true(count(chart, "class=\"whisker\"") >= 3);
	free(chart);
	char *v = between(html, "<section id=\"void\">", "</section>");
	assert_non_null(v);
	/* the Markdown's escapes undone: \| and \` are plain characters */
	assert_non_null(strstr(v, "<li>run 7 (A, round 3): hung: no frame for 10 s | stuck &lt;at&gt; "
	                          "`pan`</li>"));
	free(v);
	free(html);
	trep_cleanup(&t);
}

static void test_html__shot_grid_cells_and_marks(void **state)
{
	(void)state;
	struct trep t = { 0 };
	build(&t);
	char *html = page(&t, false);
	char *grid = between(html, "<section id=\"shots\">", "</section>");
	assert_non_null(grid);
	/* points: the marks of kind shot in time order, then the unmarked */
	const char *walk = strstr(grid, "<tr data-point=\"walk\">");
	const char *pan = strstr(grid, "<tr data-point=\"pan\">");
	const char *extra = strstr(grid, "<tr data-point=\"extra\">");
	assert_true(walk && pan && extra && walk < pan && pan < extra);
	assert_null(strstr(grid, "data-point=\"turn\""));
	assert_int_equal(count(grid, "<td class=\"cell\""), 9);
	static const char *const points[] = { "walk", "pan", "extra" };
	for (int p = 0; p < 3; p++)
		for (char a = 'A'; a <= 'C'; a++) {
			char cell[96];
			snprintf(cell, sizeof cell, "<td class=\"cell\" data-point=\"%s\" data-arm=\"%c\">",
			         points[p], a);
			assert_int_equal(count(grid, cell), 1);
		}
	/* every run stacked in its arm's column: 3 A runs (one void), 2 B, 2 C */
	assert_int_equal(count(grid, "<figure class=\"shot"), 21);
	/* the one mark: B's run 5 at pan */
	assert_int_equal(count(grid, "data-differs=\"1\""), 1);
	char *pan_b = between(grid, "<td class=\"cell\" data-point=\"pan\" data-arm=\"B\">", "</td>");
	assert_non_null(pan_b);
	assert_non_null(strstr(pan_b, "<figure class=\"shot differs\" data-run=\"5\" data-differs=\"1\">"));
	assert_non_null(strstr(pan_b, "differs from A: luma 142.0 against A's median 102.0, over the "
	                              "tolerance of 16"));
	assert_non_null(strstr(pan_b, "<figure class=\"shot\" data-run=\"2\" data-differs=\"0\">"));
	assert_non_null(strstr(pan_b, "luma <span class=\"luma\">112.0</span>"));
	assert_non_null(strstr(pan_b, "checksum <code class=\"checksum\">b1b1b1b1b1b1b1b1</code>"));
	free(pan_b);
	/* C's run 3: 40 off, but A's checksum: the same picture */
	char *pan_c = between(grid, "<td class=\"cell\" data-point=\"pan\" data-arm=\"C\">", "</td>");
	assert_non_null(pan_c);
	assert_non_null(strstr(pan_c, "<figure class=\"shot same\" data-run=\"3\" data-differs=\"0\">"));
	assert_non_null(strstr(pan_c, "the same picture as A (checksum)"));
	assert_non_null(strstr(pan_c, "data-run=\"6\" data-differs=\"0\"><figcaption>run 6, round 2<br>no shot taken"));
	free(pan_c);
	/* the void baseline run is shown, marked void, and not compared */
	assert_non_null(strstr(grid, "<figure class=\"shot void\" data-run=\"7\""));
	assert_non_null(strstr(grid, "A: off &lt;base&gt; &amp; &quot;quoted&quot; (baseline)"));
	/* linked: file URLs, percent-encoded */
	assert_non_null(strstr(grid, "<a href=\"file:///"));
	assert_null(strstr(grid, "data:image/png"));
	free(grid);
	free(html);
	trep_cleanup(&t);
}

static void test_html__embed_shots_base64(void **state)
{
	(void)state;
	struct trep t = { 0 };
	build(&t);
	char *html = page(&t, true);
	/* 13 shots stored, each embedded */
	assert_int_equal(count(html, "<img src=\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB"), 13);
	char where[96] = "";
	assert_null(html_check(html, where, sizeof where));
	free(html);
	/* a shot file that is not a PNG: linked, with the reason */
	char path[PATH_MAX + 64];
	snprintf(path, sizeof path, "%s/run1-walk.png", t.dir);
	FILE *f = fopen(path, "w");
	fputs("not a png", f);
	fclose(f);
	html = page(&t, true);
	assert_int_equal(count(html, "data:image/png;base64,"), 12);
	assert_int_equal(count(html, "not embedded: not a PNG"), 1);
	free(html);
	trep_cleanup(&t);
}

static void test_html__markdown_subset(void **state)
{
	(void)state;
	/* an arm label with every character the Markdown escapes */
	static const char *const labels[] = { "a|b *c* `d` \\e & <f>", "g" };
	struct trep t = { 0 };
	trep_open(&t, "odd", 2, labels, (const char *const[]){ "X=1|2", NULL });
	trep_run(&t, 0, 1, NULL, "real_fps", 10.0, NULL);
	trep_run(&t, 1, 1, NULL, "real_fps", 11.0, NULL);
	char *html = page(&t, false);
	assert_non_null(strstr(html, "<th>A: a|b *c* `d` \\e &amp; &lt;f&gt;</th>"));
	assert_non_null(strstr(html, "<td><code>X=1|2</code></td>"));
	/* no shots: the grid says so */
	assert_non_null(strstr(html, "The route has no shot points, and no run stored a shot."));
	char where[96] = "";
	assert_null(html_check(html, where, sizeof where));
	free(html);
	trep_cleanup(&t);
}

static void test_html__host_facts_and_changes(void **state)
{
	(void)state;
	static const char *const labels[] = { "a", "b" };
	struct trep t = { 0 };
	trep_open(&t, "hosted", 2, labels, NULL);
	trep_run(&t, 0, 1, NULL, "real_fps", 10.0, NULL);
	trep_run(&t, 1, 1, NULL, "real_fps", 11.0, NULL);
	char *html = page(&t, false);
	assert_non_null(strstr(html, "<details id=\"host\"><summary>Host</summary>\n"
	                             "<p>No host facts recorded.</p>\n</details>\n"));
	free(html);

	trep_host_facts(&t);
	html = page(&t, false);
	char where[96] = "";
	const char *why = html_check(html, where, sizeof where);
	if (why)
		fail_msg("%s at '%s'", why, where);
	char *host = between(html, "<details id=\"host\">", "</details>");
	assert_non_null(host);
	assert_non_null(strstr(host, "<summary>Host</summary>"));
	assert_non_null(strstr(host, "<p>At the start, 2026-11-13 22:04 UTC "
	                             "(<code>rxdeck deck info</code>):</p>"));
	assert_non_null(strstr(host, "<dt>kernel</dt><dd>6.5.0-a</dd>"));
	assert_non_null(strstr(host, "<dt>swappiness</dt><dd>100</dd>"));
	assert_non_null(strstr(host, "<dt>power</dt><dd>ac &lt;mains&gt;</dd>"));
	assert_null(strstr(host, "zram_B")); /* not known: left out */
	assert_non_null(strstr(host, "<p>Changed at the resume of 2026-11-13 23:04 UTC:</p>\n"
	                             "<ul class=\"changes\">\n"
	                             "<li><code>kernel: &quot;6.5.0-a&quot; -&gt; &quot;6.5.0-b&quot;"
	                             "</code></li>\n<li><code>swappiness: 100 -&gt; 1</code></li>\n"
	                             "</ul>"));
	/* the facts at the start only: the resume's own are its changes */
	assert_null(strstr(host, "<dd>6.5.0-b</dd>"));
	/* collapsed, after the answer: the headline, charts and verdicts */
	assert_true(strstr(html, "<section id=\"headline\">") < strstr(html, "<details id=\"host\">"));
	assert_true(strstr(html, "<section id=\"verdicts\">") < strstr(html, "<details id=\"host\">"));
	free(host);
	free(html);
	trep_cleanup(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_html__balanced_self_contained),
		cmocka_unit_test(test_html__answer_first_and_embedded_plots),
		cmocka_unit_test(test_html__table_is_the_markdown_reports),
		cmocka_unit_test(test_html__plots_and_void_runs),
		cmocka_unit_test(test_html__shot_grid_cells_and_marks),
		cmocka_unit_test(test_html__embed_shots_base64),
		cmocka_unit_test(test_html__markdown_subset),
		cmocka_unit_test(test_html__host_facts_and_changes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
