/* Tests of what every output says first and how it names things: the
 * metric registry walked metric by metric (JSON, Markdown and the wide CSV
 * give each arm's state in the same word), the headline of a known
 * campaign (the decided arms first, the best named), and the terminal
 * report under a pseudo-terminal of 80 and 132 columns (no line wider than
 * the terminal, colour only on a terminal without NO_COLOR). */
#include "test-report-util.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <pty.h>
#include <sys/ioctl.h>
#include <sys/wait.h>

#include "report/report.h"
#include "stats/stats.h"

static char *report_text_opts(struct db *db, int64_t id, struct report_options *o)
{
	char *buf = NULL;
	size_t len = 0;
	char msg[256] = "";
	FILE *mem = open_memstream(&buf, &len);
	assert_non_null(mem);
	o->errmsg = msg;
	o->errmsg_size = sizeof msg;
	int rc = report_print(db, id, o, mem);
	fclose(mem);
	if (rc)
		fprintf(stderr, "report_print: %d %s\n", rc, msg);
	assert_int_equal(rc, 0);
	return buf;
}

static char *report_text(struct db *db, int64_t id, enum report_format f)
{
	struct report_options o = { .format = f };
	return report_text_opts(db, id, &o);
}

/* A done run of arm with a value for every metric of the registry. */
static void add_run(struct trep *t, int arm, int round, const double *v)
{
	struct db_metric m[64];
	size_t nm = 0;
	for (size_t k = 0; stats_metrics[k].key; k++)
		m[nm++] = (struct db_metric){ .name = stats_metrics[k].key, .value = v[k] };
	trep_run_store(t, arm, round, NULL, m, nm);
}

/* The arms' intent, metric by metric: B 20 % better than A in the
 * metric's direction (higher for a neutral one), C 20 % worse (lower),
 * D spread too wide to decide anything.  Seven runs an arm (so the
 * permutation check can reach the level after Holm's adjustment over the
 * secondary metrics), more than the plan's eight places: the two-sample
 * test, each arm against A alone. */
static const char *const long_labels[] = {
	"no switch", "early readback at the writer's part, marker",
	"late reads of the newest submission", "both, and a label long enough to be cut"
};

static void build_registry_campaign(struct trep *t)
{
	trep_open(t, "registry", 4, long_labels, NULL);
	size_t nm = 0;
	while (stats_metrics[nm].key)
		nm++;
	double *v = calloc(nm, sizeof *v);
	assert_non_null(v);
	static const double jitter[7] = { -1, 0, 1, 0.5, -0.5, 0.25, -0.25 };
	static const double wide[7] = { -40, 0, 40, -20, 20, 30, -30 };
	for (int round = 1; round <= 7; round++)
		for (int arm = 0; arm < 4; arm++) {
			for (size_t k = 0; k < nm; k++) {
				bool up = stats_metrics[k].direction != STATS_LOWER_IS_BETTER;
				double base = 200, f = 1;
				if (arm == 1)
					f = up ? 1.2 : 0.8;
				else if (arm == 2)
					f = up ? 0.8 : 1.2;
				v[k] = base * f + (arm == 3 ? wide[round - 1] : jitter[round - 1]);
			}
			add_run(t, arm, round, v);
		}
	free(v);
}

/* The state of arm i's metric in the Markdown verdict table: the cell's
 * first word ("**faster**: ..." or "undecided: ..."). */
static void md_state(const char *md, const struct stats_metric_def *d, bool primary, size_t col,
                     char *word, size_t size)
{
	char name[128], head[192];
	stats_metric_name(d, name, sizeof name);
	snprintf(head, sizeof head, primary ? "\n| **%s** (primary) | " : "\n| %s | ", name);
	/* the verdict table comes after the sentence that opens it */
	const char *v = strstr(md, "Verdicts against");
	assert_non_null(v);
	const char *row = strstr(v, head);
	if (!row)
		fail_msg("no verdict row '%s' in the Markdown", head + 1);
	const char *cell = row + strlen(head);
	for (size_t c = 0; c < col; c++) {
		cell = strstr(cell, " | ");
		assert_non_null(cell);
		cell += 3;
	}
	if (strncmp(cell, "**", 2) == 0)
		cell += 2;
	size_t n = strcspn(cell, "*:");
	assert_true(n < size);
	memcpy(word, cell, n);
	word[n] = 0;
}

/* The wide CSV's state of (arm, metric). */
static void csv_state(const char *csv, char arm, const char *key, char *word, size_t size)
{
	const char *line = csv;
	char prefix[64];
	snprintf(prefix, sizeof prefix, "registry,%c,", arm);
	char keyf[64];
	snprintf(keyf, sizeof keyf, ",%s,", key);
	for (; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char buf[1024];
		assert_true(len < sizeof buf);
		memcpy(buf, line, len);
		buf[len] = 0;
		if (strncmp(buf, prefix, strlen(prefix)) != 0 || !strstr(buf, keyf))
			continue;

		/* the fields, RFC 4180: state is the 18th of 24 */
		char fields[24][256];
		size_t nf = 0, o = 0;
		bool quoted = false;
		for (const char *p = buf;; p++) {
			if (quoted && *p == '"' && p[1] == '"') {
				fields[nf][o++] = '"';
				p++;
			} else if (*p == '"') {
				quoted = !quoted;
			} else if (!*p || (*p == ',' && !quoted)) {
				fields[nf][o] = 0;
				nf++;
				o = 0;
				if (!*p || nf == 24)
					break;
			} else if (o + 1 < sizeof fields[0]) {
				fields[nf][o++] = *p;
			}
		}
		assert_int_equal(nf, 24);
		if (strcmp(fields[4], key) != 0)
			continue;
		assert_true(strlen(fields[17]) < size);
		snprintf(word, size, "%s", fields[17]);
		return;
	}
	fail_msg("no wide CSV row for %c %s", arm, key);
}

static void test_registry__json_markdown_and_csv_agree(void **state)
{
	(void)state;
	struct trep t = { 0 };
	build_registry_campaign(&t);
	char *js = report_text(t.db, t.campaign, REPORT_FORMAT_JSON);
	char *md = report_text(t.db, t.campaign, REPORT_FORMAT_MD);
	struct report_options wide = { .format = REPORT_FORMAT_CSV, .csv_wide = true };
	char *csv = report_text_opts(t.db, t.campaign, &wide);
	json_error_t e;
	json_t *doc = json_loads(js, 0, &e);
	assert_non_null(doc);
	assert_int_equal(json_integer_value(json_object_get(doc, "schema_version")),
	                 REPORT_JSON_SCHEMA_VERSION);
	json_t *reg = json_object_get(doc, "registry");
	json_t *arms = json_object_get(doc, "arms");
	size_t checked = 0;
	for (size_t k = 0; stats_metrics[k].key; k++) {
		const struct stats_metric_def *d = &stats_metrics[k];
		/* the registry as JSON names it as every output does */
		json_t *r = json_array_get(reg, k);
		char name[128];
		stats_metric_name(d, name, sizeof name);
		assert_string_equal(json_string_value(json_object_get(r, "key")), d->key);
		assert_string_equal(json_string_value(json_object_get(r, "name")), name);
		bool primary = json_is_true(json_object_get(r, "primary"));
		for (size_t a = 1; a < 4; a++) {
			json_t *v = json_object_get(json_object_get(json_array_get(arms, a), "verdict"),
			                            d->key);
			assert_true(json_is_object(v));
			const char *js_state = json_string_value(json_object_get(v, "state"));
			/* the intent: B better, C worse, D undecided */
			enum stats_state want = a == 3 ? STATS_STATE_UNDECIDED
			                      : d->direction == STATS_NEUTRAL
			                              ? (a == 1 ? STATS_STATE_HIGHER : STATS_STATE_LOWER)
			                              : (a == 1 ? STATS_STATE_FASTER : STATS_STATE_SLOWER);
			if (strcmp(js_state, stats_state_word(d, want)) != 0)
				fail_msg("%s, arm %c: JSON says '%s', the registry's word is '%s'", d->key,
				         (int)('A' + a), js_state, stats_state_word(d, want));
			char word[64];
			md_state(md, d, primary, a - 1, word, sizeof word);
			if (strcmp(word, js_state) != 0)
				fail_msg("%s, arm %c: Markdown says '%s', JSON '%s'", d->key, (int)('A' + a),
				         word, js_state);
			csv_state(csv, (char)('A' + a), d->key, word, sizeof word);
			if (strcmp(word, js_state) != 0)
				fail_msg("%s, arm %c: wide CSV says '%s', JSON '%s'", d->key, (int)('A' + a),
				         word, js_state);
			checked++;
		}
	}
	assert_true(checked >= 3 * 20);
	/* frames over 100 ms, the case that once disagreed: fewer in both */
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_object_get(
	                        json_array_get(arms, 1), "verdict"), "over_100ms"), "state")),
	                    "fewer");
	/* one p-value per comparison: the decision's; Mann-Whitney by name */
	json_t *b = json_array_get(arms, 1);
	assert_null(json_object_get(b, "p_value"));
	assert_non_null(json_object_get(b, "mann_whitney_p"));
	json_decref(doc);
	free(js);
	free(md);
	free(csv);
	trep_cleanup(&t);
}

static void test_headline__decided_arms_first_and_the_best(void **state)
{
	(void)state;
	struct trep t = { 0 };
	build_registry_campaign(&t);
	char *js = report_text(t.db, t.campaign, REPORT_FORMAT_JSON);
	json_error_t e;
	json_t *doc = json_loads(js, 0, &e);
	assert_non_null(doc);
	/* the headline is the document's second key, after schema_version */
	const char *second = strstr(js, "\"headline\"");
	assert_non_null(second);
	assert_true(second < strstr(js, "\"campaign\""));
	json_t *h = json_object_get(doc, "headline");
	json_t *lines = json_object_get(h, "lines");
	assert_int_equal(json_array_size(lines), 3);
	/* B better on both primaries, C worse: decided, best first; D last */
	assert_string_equal(json_string_value(json_object_get(json_array_get(lines, 0), "arm")), "B");
	assert_string_equal(json_string_value(json_object_get(json_array_get(lines, 0), "state")),
	                    "faster");
	assert_string_equal(json_string_value(json_object_get(json_array_get(lines, 1), "arm")), "C");
	assert_string_equal(json_string_value(json_object_get(json_array_get(lines, 1), "state")),
	                    "slower");
	assert_string_equal(json_string_value(json_object_get(json_array_get(lines, 2), "arm")), "D");
	assert_string_equal(json_string_value(json_object_get(json_array_get(lines, 2), "state")),
	                    "undecided");
	assert_string_equal(json_string_value(json_object_get(h, "best")), "B");
	const char *text = json_string_value(json_object_get(h, "text"));
	assert_non_null(strstr(text, "best on real fps: B early readback"));
	/* +20 % on real fps, two primaries, 3 vs 3 runs, in the line's text */
	const char *l0 = json_string_value(json_object_get(json_array_get(lines, 0), "text"));
	assert_non_null(strstr(l0, "real fps +20 % ["));
	assert_non_null(strstr(l0, "p99 ms \xe2\x88\x92" "20 % ["));
	assert_non_null(strstr(l0, "7 vs 7 runs"));
	json_decref(doc);
	free(js);

	/* Markdown: the headline before the table, B's line first */
	char *md = report_text(t.db, t.campaign, REPORT_FORMAT_MD);
	const char *hl = strstr(md, "**Headline** against A (no switch)");
	assert_non_null(hl);
	assert_true(hl < strstr(md, "| env |"));
	assert_non_null(strstr(hl, "\n\n- B early readback"));
	assert_non_null(strstr(md, "**Best on real fps: B early readback"));
	free(md);

	/* the terminal report: the headline first after the title */
	struct report_options o = { .format = REPORT_FORMAT_TERM, .term_width = 132 };
	char *tx = report_text_opts(t.db, t.campaign, &o);
	const char *blank = strstr(tx, "\n\n");
	assert_non_null(blank);
	assert_true(strncmp(blank + 2, "B early readback", 16) == 0);
	assert_non_null(strstr(tx, "best on real fps: B early readback"));
	assert_true(strstr(tx, "best on real fps") < strstr(tx, "\narm "));
	free(tx);
	trep_cleanup(&t);
}

/* rxdeck report --db path under a pseudo-terminal of cols columns: what it
 * printed, read to its end. */
static char *report_on_pty(const char *db_path, unsigned short cols, bool no_color)
{
	const char *build = getenv("RXDECK_BUILD_ROOT");
	char exe[PATH_MAX];
	snprintf(exe, sizeof exe, "%s/harness/rxdeck", build && build[0] ? build : "build");
	struct winsize ws = { .ws_row = 50, .ws_col = cols };
	int master;
	fflush(NULL);
	pid_t pid = forkpty(&master, NULL, NULL, &ws);
	assert_true(pid >= 0);
	if (pid == 0) {
		if (no_color)
			setenv("NO_COLOR", "1", 1);
		else
			unsetenv("NO_COLOR");
		unsetenv("COLUMNS");
		execl(exe, exe, "report", "--db", db_path, (char *)NULL);
		_exit(127);
	}
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	assert_non_null(mem);
	char chunk[4096];
	for (;;) {
		ssize_t n = read(master, chunk, sizeof chunk);
		if (n > 0)
			fwrite(chunk, 1, (size_t)n, mem);
		else if (n < 0 && errno == EINTR)
			continue;
		else
			break; /* EIO once the child has closed its side */
	}
	close(master);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	fclose(mem);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) != 0)
		fail_msg("rxdeck report on a pty exited %d:\n%s", WEXITSTATUS(st), buf);
	return buf;
}

/* The widest line in columns, escape sequences left out, "\r\n" as the
 * terminal's line end. */
static size_t widest_line(const char *s, size_t *n_lines, bool *has_escape)
{
	size_t widest = 0, w = 0;
	*n_lines = 0;
	*has_escape = false;
	for (const char *p = s; *p; p++) {
		if (*p == '\033') {
			*has_escape = true;
			while (*p && *p != 'm')
				p++;
			if (!*p)
				break;
			continue;
		}
		if (*p == '\r')
			continue;
		if (*p == '\n') {
			(*n_lines)++;
			w = 0;
			continue;
		}
		if (((unsigned char)*p & 0xC0) != 0x80 && ++w > widest)
			widest = w;
	}
	return widest;
}

static void test_term__fits_a_pty_of_80_and_132_columns(void **state)
{
	(void)state;
	struct trep t = { 0 };
	build_registry_campaign(&t);
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s", t.path);
	db_close(t.db);
	t.db = NULL;
	static const unsigned short widths[] = { 80, 132 };
	size_t columns_at[2] = { 0, 0 };
	bool pn_at[2] = { false, false };
	for (size_t i = 0; i < 2; i++) {
		char *out = report_on_pty(path, widths[i], false);
		size_t n_lines;
		bool esc;
		size_t w = widest_line(out, &n_lines, &esc);
		if (w > widths[i])
			fail_msg("a line of %zu columns on a terminal of %u:\n%s", w, widths[i], out);
		assert_true(n_lines > 10);
		assert_true(esc); /* a terminal, no NO_COLOR: coloured */
		/* the headline and the table's heading */
		assert_non_null(strstr(out, "best on real fps"));
		const char *head = strstr(out, "arm ");
		assert_non_null(head);
		/* the columns shown: primaries at least */
		const char *eol = strchr(head, '\r');
		for (size_t k = 0; stats_metrics[k].key; k++) {
			const char *hit = strstr(head, stats_metrics[k].short_label);
			if (hit && hit < eol)
				columns_at[i]++;
		}
		assert_non_null(strstr(out, "real fps"));
		pn_at[i] = strstr(out, " n=7") != NULL;
		free(out);
	}
	assert_true(columns_at[0] >= 2);
	/* 132 columns show more: more metrics, or the cells' p/n part */
	assert_true(columns_at[1] > columns_at[0] || (pn_at[1] && !pn_at[0]));
	/* NO_COLOR: no escape at all, the same fit */
	char *out = report_on_pty(path, 80, true);
	size_t n_lines;
	bool esc;
	assert_true(widest_line(out, &n_lines, &esc) <= 80);
	assert_false(esc);
	free(out);
	trep_cleanup(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry__json_markdown_and_csv_agree),
		cmocka_unit_test(test_headline__decided_arms_first_and_the_best),
		cmocka_unit_test(test_term__fits_a_pty_of_80_and_132_columns),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
