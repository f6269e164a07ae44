/* Tests of `rxdeck plot`: the SVG files are well-formed XML (checked by a
 * small checker here: one root, matched tags, quoted attributes, only the
 * predefined or numeric entities, no '<' or '&' in text), have one series
 * per arm, the route's marks, escaped labels, void runs marked, and a plot
 * without data is not written. */
#include "test-report-util.h"

#include <ctype.h>
#include <errno.h>

#include "report/report.h"

#include <png.h>

/* ---- a tiny XML checker ----------------------------------------------- */

static bool entity_ok(const char **pp)
{
	const char *p = *pp; /* at '&' */
	static const char *const named[] = { "&amp;", "&lt;", "&gt;", "&quot;", "&apos;" };
	for (size_t i = 0; i < 5; i++)
		if (strncmp(p, named[i], strlen(named[i])) == 0) {
			*pp = p + strlen(named[i]);
			return true;
		}
	if (p[1] == '#') {
		const char *q = p + 2;
		bool hex = *q == 'x';
		if (hex)
			q++;
		const char *d = q;
		while (hex ? isxdigit((unsigned char)*q) : isdigit((unsigned char)*q))
			q++;
		if (q > d && *q == ';') {
			*pp = q + 1;
			return true;
		}
	}
	return false;
}

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '_' || c == ':' || c == '.';
}

/* Returns NULL when well-formed, else what is wrong. */
static const char *xml_check(const char *s)
{
	char stack[64][64];
	int depth = 0, roots = 0;
	const char *p = s;
	if (strncmp(p, "<?xml", 5) == 0) {
		p = strstr(p, "?>");
		if (!p)
			return "unclosed declaration";
		p += 2;
	}
	while (*p) {
		if (*p == '<') {
			if (strncmp(p, "<!--", 4) == 0) {
				const char *e = strstr(p + 4, "-->");
				if (!e)
					return "unclosed comment";
				p = e + 3;
				continue;
			}
			bool closing = p[1] == '/';
			p += closing ? 2 : 1;
			char name[64];
			size_t n = 0;
			while (name_char(*p) && n < sizeof name - 1)
				name[n++] = *p++;
			name[n] = 0;
			if (!n)
				return "tag without a name";
			if (closing) {
				while (isspace((unsigned char)*p))
					p++;
				if (*p != '>')
					return "bad closing tag";
				p++;
				if (depth == 0 || strcmp(stack[depth - 1], name) != 0)
					return "closing tag does not match";
				depth--;
				continue;
			}
			/* attributes */
			char seen[32][64];
			int n_seen = 0;
			for (;;) {
				bool space = false;
				while (isspace((unsigned char)*p)) {
					p++;
					space = true;
				}
				if (*p == '/' && p[1] == '>') {
					p += 2;
					if (depth == 0)
						roots++;
					break;
				}
				if (*p == '>') {
					p++;
					if (depth == 0)
						roots++;
					if (depth == 64)
						return "too deep";
					snprintf(stack[depth++], 64, "%s", name);
					break;
				}
				if (!space)
					return "attribute not separated by white space";
				char an[64];
				size_t k = 0;
				while (name_char(*p) && k < sizeof an - 1)
					an[k++] = *p++;
				an[k] = 0;
				if (!k || *p != '=')
					return "bad attribute";
				for (int i = 0; i < n_seen; i++)
					if (strcmp(seen[i], an) == 0)
						return "attribute given twice";
				if (n_seen < 32)
					snprintf(seen[n_seen++], 64, "%s", an);
				p++;
				char q = *p;
				if (q != '"' && q != '\'')
					return "unquoted attribute";
				p++;
				while (*p && *p != q) {
					if (*p == '<')
						return "'<' in an attribute";
					if (*p == '&' && !entity_ok(&p))
						return "bad entity in an attribute";
					else if (*p != '&')
						p++;
				}
				if (!*p)
					return "unclosed attribute";
				p++;
			}
			continue;
		}
		if (*p == '&') {
			if (!entity_ok(&p))
				return "bad entity in text";
			continue;
		}
		if (depth == 0 && !isspace((unsigned char)*p))
			return "text outside the root";
		p++;
	}
	if (depth)
		return "unclosed element";
	if (roots != 1)
		return "not exactly one root";
	return NULL;
}

static void test_xml_check__catches_errors(void **state)
{
	(void)state;
	assert_null(xml_check("<?xml version=\"1.0\"?>\n<svg a=\"1\"><g><t>x &amp; y</t></g></svg>\n"));
	assert_non_null(xml_check("<svg><g></svg>"));
	assert_non_null(xml_check("<svg><t>a < b</t></svg>"));
	assert_non_null(xml_check("<svg><t>a & b</t></svg>"));
	assert_non_null(xml_check("<svg a=1></svg>"));
	assert_non_null(xml_check("<svg a=\"1\" a=\"2\"></svg>"));
	assert_non_null(xml_check("<svg></svg><svg></svg>"));
	assert_non_null(xml_check("<svg t=\"<\"></svg>"));
}

/* ---- the plots ----------------------------------------------------------- */

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0, r;
	char *b = malloc(cap + 1);
	while ((r = fread(b + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap)
			b = realloc(b, (cap *= 2) + 1);
	}
	fclose(f);
	b[n] = 0;
	return b;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static void build(struct trep *t)
{
	static const char *const labels[] = { "off <base> & \"quoted\"", "early" };
	trep_open(t, "night-1", 2, labels, NULL);
	int64_t r;
	r = trep_run(t, 0, 1, NULL, NULL);
	trep_frames_at(t, r, INT64_C(1000000000000), 12.0);
	r = trep_run(t, 1, 1, NULL, NULL);
	trep_frames_at(t, r, INT64_C(2000000000000), 13.0);
	r = trep_run(t, 1, 1, NULL, NULL);
	trep_frames_at(t, r, INT64_C(3000000000000), 14.0);
	r = trep_run(t, 0, 1, NULL, NULL);
	trep_frames_at(t, r, INT64_C(4000000000000), 12.5);
	trep_run(t, 0, 2, "hung: no frame for 10 s", NULL);
	struct db_route_mark m[] = { { 30, "forest-entrance", "shot" }, { 62.5, "bridge & <pond>", "mark" } };
	assert_int_equal(db_route_marks_store(t->db, t->campaign, m, 2), 0);
}

static void test_plot__three_wellformed_files(void **state)
{
	(void)state;
	struct trep t = { 0 };
	build(&t);
	char dir[PATH_MAX], path[PATH_MAX + 64];
	snprintf(dir, sizeof dir, "%s/plots", t.dir);
	size_t n = 0;
	assert_int_equal(report_plot_write(t.db, t.campaign, dir, NULL, &n), 0);
	assert_int_equal(n, 3);
	static const char *const kinds[] = { "frametime", "distribution", "fps" };
	for (int k = 0; k < 3; k++) {
		snprintf(path, sizeof path, "%s/2026-11-13-night-1-%s.svg", dir, kinds[k]);
		char *svg = slurp(path);
		assert_non_null(svg);
		const char *why = xml_check(svg);
		if (why) {
			fprintf(stderr, "%s: %s\n", path, why);
			fail();
		}
		assert_non_null(strstr(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox="));
		/* one series per arm, a legend naming each, the label escaped */
		assert_int_equal(count(svg, "class=\"series\" data-arm=\"A\""), 1);
		assert_int_equal(count(svg, "class=\"series\" data-arm=\"B\""), 1);
		assert_non_null(strstr(svg, "A: off &lt;base&gt; &amp; &quot;quoted&quot;"));
		assert_non_null(strstr(svg, ">B: early"));
		free(svg);
	}
	snprintf(path, sizeof path, "%s/2026-11-13-night-1-frametime.svg", dir);
	char *svg = slurp(path);
	/* axes with units, the marks, the median run of B (13.0, 14.0: the
	 * first of the two equally near the median) */
	assert_non_null(strstr(svg, ">time on the route (s)<"));
	assert_non_null(strstr(svg, ">frame time (ms)<"));
	assert_non_null(strstr(svg, ">forest-entrance<"));
	assert_non_null(strstr(svg, ">bridge &amp; &lt;pond&gt;<"));
	assert_non_null(strstr(svg, "data-arm=\"B\" data-run=\"2\""));
	assert_non_null(strstr(svg, "class=\"window\""));
	free(svg);
	snprintf(path, sizeof path, "%s/2026-11-13-night-1-fps.svg", dir);
	svg = slurp(path);
	assert_non_null(strstr(svg, ">real fps<"));
	assert_non_null(strstr(svg, ">run, in campaign order<"));
	/* four runs with fps, one void without */
	assert_int_equal(count(svg, "<circle "), 4);
	assert_int_equal(count(svg, "class=\"void\""), 1);
	assert_non_null(strstr(svg, "run 1 (A, round 1): 12.00 fps"));
	free(svg);
	snprintf(path, sizeof path, "%s/2026-11-13-night-1-distribution.svg", dir);
	svg = slurp(path);
	assert_non_null(strstr(svg, ">percentile of frames (%)<"));
	assert_non_null(strstr(svg, ">99.9<"));
	/* 960 + 1000 window frames in A, 1040 + 1120 in B */
	assert_non_null(strstr(svg, "(2 runs, 1960 frames)"));
	assert_non_null(strstr(svg, "(2 runs, 2160 frames)"));
	free(svg);
	trep_cleanup(&t);
}

/* The number after name="..." in the tag at p, or NaN. */
static double attr(const char *p, const char *name)
{
	char key[32];
	snprintf(key, sizeof key, " %s=\"", name);
	const char *end = strchr(p, '>');
	const char *a = strstr(p, key);
	if (!a || (end && a > end))
		return NAN;
	return strtod(a + strlen(key), NULL);
}

/* Every legend box of svg lies inside its viewBox; returns the boxes. */
static size_t legend_inside(const char *svg)
{
	const char *vb = strstr(svg, "viewBox=\"");
	assert_non_null(vb);
	double x0, y0, w, h;
	assert_int_equal(sscanf(vb + 9, "%lf %lf %lf %lf", &x0, &y0, &w, &h), 4);
	size_t n = 0;
	for (const char *p = svg; (p = strstr(p, "<rect class=\"legend-box\"")); p++, n++) {
		double x = attr(p, "x"), y = attr(p, "y"), bw = attr(p, "width"), bh = attr(p, "height");
		if (!(x >= x0 && y >= y0 && x + bw <= x0 + w && y + bh <= y0 + h))
			fail_msg("legend box %g,%g %gx%g outside the viewBox %g %g %g %g", x, y, bw, bh, x0,
			         y0, w, h);
	}
	return n;
}

/* Each series group of arm letter: how many times cls occurs in it. */
static size_t in_series(const char *svg, char letter, const char *cls)
{
	char key[64];
	snprintf(key, sizeof key, "class=\"series\" data-arm=\"%c\"", letter);
	const char *g = strstr(svg, key);
	assert_non_null(g);
	const char *end = strstr(g, "</g>");
	size_t n = 0;
	for (const char *p = g; (p = strstr(p, cls)) && p < end; p++)
		n++;
	return n;
}

/* The default plan's four arms and labels, two rounds of frames: every
 * legend entry inside the canvas (the labels wrap or take more rows), and
 * each arm's curves: a band, the median run and its moving average over
 * the route; a thin curve per run and a bold median by percentile; rounds
 * and the baseline's drift over the runs. */
static void test_plot__default_labels_inside_and_curves_per_arm(void **state)
{
	(void)state;
	struct trep t = { 0 };
	static const char *const labels[] = { "no switch", "late reads of the newest submission",
		                              "early readback", "early readback and late reads" };
	trep_open(&t, "night-4", 4, labels, NULL);
	static const char order[] = "ABCDDCBA";
	int64_t t0 = INT64_C(1000000000000);
	for (int round = 1; round <= 2; round++)
		for (int k = 0; k < 8; k++) {
			int arm = order[k] - 'A';
			int64_t r = trep_run(&t, arm, round, NULL, NULL);
			trep_frames_at(&t, r, t0, 12.0 + arm + 0.25 * round + 0.1 * k);
			t0 += INT64_C(200000000000);
		}
	char dir[PATH_MAX], path[PATH_MAX + 64];
	snprintf(dir, sizeof dir, "%s/plots", t.dir);
	size_t n = 0;
	assert_int_equal(report_plot_write(t.db, t.campaign, dir, NULL, &n), 0);
	assert_int_equal(n, 3);
	static const char *const kinds[] = { "frametime", "distribution", "fps" };
	for (int k = 0; k < 3; k++) {
		snprintf(path, sizeof path, "%s/2026-11-13-night-4-%s.svg", dir, kinds[k]);
		char *svg = slurp(path);
		assert_non_null(svg);
		assert_null(xml_check(svg));
		/* four arms (and the drift line's entry on the fps plot) */
		assert_int_equal(legend_inside(svg), k == 2 ? 5 : 4);
		assert_non_null(strstr(svg, "late reads of the newest submission"));
		for (char a = 'A'; a <= 'D'; a++) {
			if (k == 0) {
				assert_true(in_series(svg, a, "class=\"band\"") >= 1);
				assert_int_equal(in_series(svg, a, "class=\"median-run\""), 1);
				assert_int_equal(in_series(svg, a, "class=\"moving-average\""), 1);
			} else if (k == 1) {
				assert_int_equal(in_series(svg, a, "class=\"run-curve\""), 4);
				assert_int_equal(in_series(svg, a, "class=\"median-curve\""), 1);
			} else {
				assert_int_equal(in_series(svg, a, "<circle "), 4);
			}
		}
		if (k == 2) {
			assert_int_equal(count(svg, "class=\"round\""), 2);
			assert_non_null(strstr(svg, ">round 2<"));
			assert_int_equal(count(svg, "class=\"drift\""), 1);
			assert_non_null(strstr(svg, "baseline A drift: "));
		}
		free(svg);
	}
	trep_cleanup(&t);
}

static void test_plot__without_frames_only_fps(void **state)
{
	(void)state;
	struct trep t = { 0 };
	static const char *const labels[] = { "a", "b" };
	trep_open(&t, "metrics-only", 2, labels, NULL);
	trep_run(&t, 0, 1, NULL, "real_fps", 10.0, NULL);
	trep_run(&t, 1, 1, NULL, "real_fps", 11.0, NULL);
	char dir[PATH_MAX], path[PATH_MAX + 64];
	snprintf(dir, sizeof dir, "%s/plots", t.dir);
	size_t n = 0;
	assert_int_equal(report_plot_write(t.db, t.campaign, dir, NULL, &n), 0);
	assert_int_equal(n, 1);
	snprintf(path, sizeof path, "%s/2026-11-13-metrics-only-frametime.svg", dir);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof path, "%s/2026-11-13-metrics-only-fps.svg", dir);
	char *svg = slurp(path);
	assert_non_null(svg);
	assert_null(xml_check(svg));
	free(svg);
	trep_cleanup(&t);
}

/* A PNG file read back with libpng: its size and how many of its pixels
 * are not white, and how many distinct colours it has (up to 64). */
static void png_facts(const char *path, unsigned *w, unsigned *h, double *ink, size_t *colours)
{
	png_image img = { .version = PNG_IMAGE_VERSION };
	if (!png_image_begin_read_from_file(&img, path))
		fail_msg("libpng cannot read '%s': %s", path, img.message);
	img.format = PNG_FORMAT_RGB;
	png_bytep px = malloc(PNG_IMAGE_SIZE(img));
	assert_non_null(px);
	if (!png_image_finish_read(&img, NULL, px, 0, NULL))
		fail_msg("libpng cannot decode '%s': %s", path, img.message);
	*w = img.width;
	*h = img.height;
	size_t n = (size_t)img.width * img.height, non_white = 0, nc = 0;
	unsigned seen[64];
	for (size_t i = 0; i < n; i++) {
		unsigned c = (unsigned)px[3 * i] << 16 | (unsigned)px[3 * i + 1] << 8 | px[3 * i + 2];
		non_white += c != 0xFFFFFF;
		bool known = false;
		for (size_t k = 0; k < nc && !known; k++)
			known = seen[k] == c;
		if (!known && nc < 64)
			seen[nc++] = c;
	}
	*ink = (double)non_white / (double)n;
	*colours = nc;
	free(px);
}

/* --png: a PNG beside every SVG, named by the plot, that libpng decodes at
 * twice the SVG's viewBox, with ink in the arms' colours on it; the files
 * named as written.  The frame-time axis ends at the route's end (125 s:
 * ticks to 120, none at 140), and two marks a second apart write their
 * names one below the other. */
static void test_plot__png_beside_svg_and_axes(void **state)
{
	(void)state;
	struct trep t = { 0 };
	build(&t);
	struct db_route_mark m[] = { { 30, "forest-entrance", "shot" }, { 110, "window-end", "mark" },
		                     { 111, "end", "shot" } };
	assert_int_equal(db_route_marks_store(t.db, t.campaign, m, 3), 0);
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s/plots", t.dir);
	struct report_options o = { .plots_png = true };
	char **paths = NULL;
	size_t n = 0;
	assert_int_equal(report_plot_write_files(t.db, t.campaign, dir, &o, &paths, &n), 0);
	assert_int_equal(n, 6);
	static const char *const kinds[] = { "frametime", "distribution", "fps" };
	for (int k = 0; k < 3; k++) {
		char want[PATH_MAX + 64];
		snprintf(want, sizeof want, "%s/2026-11-13-night-1-%s.svg", dir, kinds[k]);
		assert_string_equal(paths[2 * k], want);
		snprintf(want, sizeof want, "%s/2026-11-13-night-1-%s.png", dir, kinds[k]);
		assert_string_equal(paths[2 * k + 1], want);
		char *svg = slurp(paths[2 * k]);
		double vw, vh;
		assert_int_equal(sscanf(strstr(svg, "viewBox=\"") + 9, "0 0 %lf %lf", &vw, &vh), 2);
		unsigned w, h;
		double ink;
		size_t colours;
		png_facts(paths[2 * k + 1], &w, &h, &ink, &colours);
		assert_int_equal(w, (unsigned)ceil(2 * vw));
		assert_int_equal(h, (unsigned)ceil(2 * vh));
		/* not blank: text, axes and lines, in several colours */
		if (!(ink > 0.02 && colours >= 8))
			fail_msg("%s looks blank: %.3f of its pixels drawn, %zu colours", paths[2 * k + 1],
			         ink, colours);
		if (k == 0) {
			assert_non_null(strstr(svg, ">120<"));
			assert_null(strstr(svg, ">140<"));
			/* window-end and end: the second name starts lower */
			const char *a = strstr(svg, ">window-end<"), *b = strstr(svg, ">end<");
			assert_non_null(a);
			assert_non_null(b);
			const char *ta = a, *tb = b;
			while (strncmp(ta, "translate(", 10) != 0)
				ta--;
			while (strncmp(tb, "translate(", 10) != 0)
				tb--;
			double xa, ya, xb, yb;
			assert_int_equal(sscanf(ta, "translate(%lf %lf", &xa, &ya), 2);
			assert_int_equal(sscanf(tb, "translate(%lf %lf", &xb, &yb), 2);
			assert_true(fabs(xb - xa) < 14);
			assert_true(yb > ya + 7.0 * 10);
		}
		free(svg);
	}
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	trep_cleanup(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xml_check__catches_errors),
		cmocka_unit_test(test_plot__three_wellformed_files),
		cmocka_unit_test(test_plot__without_frames_only_fps),
		cmocka_unit_test(test_plot__default_labels_inside_and_curves_per_arm),
		cmocka_unit_test(test_plot__png_beside_svg_and_axes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
