/* Tests of `rxdeck report`'s numbers: the table against hand-computed
 * values for a campaign built from known frames and metrics, each verdict
 * case, void runs, rows without data, and CSV and JSON read back to the
 * same numbers. */
#include "test-report-util.h"

#include <errno.h>
#include <jansson.h>

#include "cmd/cmd.h"
#include "report/report.h"
#include "stats/stats.h"

static char *report_text(struct db *db, int64_t id, char baseline, enum report_format f)
{
	char *buf = NULL;
	size_t len = 0;
	char msg[256] = "";
	FILE *mem = open_memstream(&buf, &len);
	assert_non_null(mem);
	struct report_options o = { .baseline = baseline, .format = f, .errmsg = msg,
		                    .errmsg_size = sizeof msg };
	int rc = report_print(db, id, &o, mem);
	fclose(mem);
	if (rc)
		fprintf(stderr, "report_print: %d %s\n", rc, msg);
	assert_int_equal(rc, 0);
	return buf;
}

static void assert_contains(const char *hay, const char *needle)
{
	if (!strstr(hay, needle)) {
		fprintf(stderr, "--- text ---\n%s\n--- lacks ---\n%s\n", hay, needle);
		fail();
	}
}

static void assert_lacks(const char *hay, const char *needle)
{
	if (strstr(hay, needle)) {
		fprintf(stderr, "--- text ---\n%s\n--- has ---\n%s\n", hay, needle);
		fail();
	}
}

/* night-1: A off, B early.  Real fps: A 12.0 and 12.5 and 12.25 from frames
 * (exact rates over the 80 s window), a void A run; B 13.0, 13.5, 13.25
 * stored.  Hand-computed: means 12.25 / 13.25, Δ +1.00, Δ% +8.163,
 * spreads 0.5 (4.08 % / 3.77 % of the medians).  The decision: the runs
 * have places (positions 1-4, 6, 7 of the planned 8), so the arm-and-time
 * model y = b0 + b1 [B] + b2 z (z the standardised position) by least
 * squares: b1 = +1.0125, se 0.21798, 3 df; fps is exact by its definition
 * (a count over the window), so no widening: interval 1.0125 -+ 3.1824 x
 * 0.21798 = [+0.32, +1.71]: the model would call
 * it faster, but 3 vs 3 runs have 20 relabellings, so the permutation test
 * over the arm labels cannot go below 1/20 = 0.05: undecided, and why. */
static void build_night(struct trep *t)
{
	static const char *const labels[] = { "off", "early readback" };
	static const char *const env[] = { NULL, "RX_VK_READBACK_EARLY=1\n" };
	trep_open(t, "night-1", 2, labels, env);
	int64_t r;
	r = trep_run(t, 0, 1, NULL, "rb_waits", 268.0, "rb_wait_each_ms", 23.3, NULL);
	trep_frames_at(t, r, INT64_C(5000000000000), 12.0);
	trep_run(t, 1, 1, NULL, "real_fps", 13.0, "rb_waits", 1023.0, "rb_wait_each_ms", 1.55,
	         NULL);
	trep_run(t, 1, 1, NULL, "real_fps", 13.5, "rb_waits", 1029.0, "rb_wait_each_ms", 1.36,
	         NULL);
	r = trep_run(t, 0, 1, NULL, "rb_waits", 221.0, "rb_wait_each_ms", 23.6, NULL);
	trep_frames_at(t, r, INT64_C(6000000000000), 12.5);
	trep_run(t, 0, 2, "hung: no frame for 10 s", "real_fps", 3.0, NULL);
	trep_run(t, 1, 2, NULL, "real_fps", 13.25, NULL);
	r = trep_run(t, 0, 2, NULL, NULL);
	trep_frames_at(t, r, INT64_C(7000000000000), 12.25);
}

static void test_report__md_hand_computed(void **state)
{
	(void)state;
	struct trep t = { 0 };
	build_night(&t);
	char *md = report_text(t.db, t.campaign, 0, REPORT_FORMAT_MD);
	/* a run of exactly 12.0 fps is 12.0; the void run shows with its value */
	assert_contains(md, "| real fps (runs) | 12.0, 12.5, void (3.0), 12.2 | 13.0, 13.5, 13.2 |");
	assert_contains(md, "| mean, against A | 12.25 | 13.25 (+1.00, +8.2 %) |");
	/* constant rate: every frame time is 1000/12 ms etc.; B has no frames */
	assert_contains(md, "| frame time p50, ms | 83.33, 80.00, void (-), 81.63; mean 81.655 | -, -, - |");
	assert_contains(md, "| readbacks that wait, of 3000 (count × ms each) | 268 × 23.30 ms, 221 × 23.60 ms, void (-), -; mean 244.50 × 23.450 ms | 1023 × 1.55 ms, 1029 × 1.36 ms, -; mean 1026.00 × 1.455 ms |");
	assert_contains(md, "| frames over 100 ms | 0, 0, void (-), 0; mean 0.00 | -, -, - |");
	assert_contains(md, "| usable runs | 3 (and 1 void) | 3 |");
	assert_contains(md, "- run 5 (A, round 2): hung: no frame for 10 s");
	assert_contains(md, "undecided: Δ +1.01 fps (+8.3 %), 95 % CI [+0.32, +1.71], p = 0.019; ±0.12 minimum; 3 vs 3 runs; arm + linear time, df 3, permutation p = 0.05 — 3 vs 3 runs: the permutation test cannot go below p = 0.05 (needs &lt; 0.05)");
	assert_contains(md, "by the arm and time model");
	assert_contains(md, "`RX_VK_READBACK_EARLY=1`");
	/* two runs an arm over four places: the linear term is orthogonal to
	 * the arm (A at 1 and 4, B at 2 and 3) and dropped, df 2 */
	assert_contains(md, "| readback wait each, ms | ");
	assert_contains(md, "; 2 vs 2 runs; arm only (orthogonal time terms dropped), df 2, permutation p = 0.17");
	/* no verdict row where no arm but the baseline has data */
	assert_lacks(md, "| frame time p95, ms | no usable runs");
	/* rows without data are left out */
	assert_lacks(md, "captures waiting");
	assert_lacks(md, "swap-in");
	free(md);
	trep_cleanup(&t);
}

static void test_report__void_never_counted(void **state)
{
	(void)state;
	struct trep t = { 0 };
	build_night(&t);
	char *js = report_text(t.db, t.campaign, 0, REPORT_FORMAT_JSON);
	json_error_t e;
	json_t *doc = json_loads(js, 0, &e);
	assert_non_null(doc);
	json_t *a = json_array_get(json_object_get(doc, "arms"), 0);
	assert_int_equal(json_integer_value(json_object_get(a, "usable_runs")), 3);
	assert_int_equal(json_integer_value(json_object_get(a, "void_runs")), 1);
	assert_true(json_number_value(json_object_get(json_object_get(a, "mean"), "real_fps")) ==
	            12.25);
	json_t *runs = json_object_get(a, "runs");
	json_t *v = json_array_get(runs, 2);
	assert_true(json_is_true(json_object_get(v, "void")));
	assert_string_equal(json_string_value(json_object_get(v, "void_reason")),
	                    "hung: no frame for 10 s");
	assert_true(json_number_value(json_object_get(v, "real_fps")) == 3.0);
	json_decref(doc);
	free(js);
	trep_cleanup(&t);
}

/* One arm per decision case against A (10.0, 12.0: mean 11, sd √2), each
 * arm's two runs in a block after the one before (positions 1..12): the
 * arm-and-time model over every arm's runs, and two runs an arm, which no
 * permutation of arm labels can decide (p >= 1/6). */
static void build_cases(struct trep *t)
{
	static const char *const labels[] = { "base", "overlap", "apart-small", "slower",
		                              "too-few", "faster" };
	trep_open(t, "verdicts", 6, labels, NULL);
	trep_run(t, 0, 1, NULL, "real_fps", 10.0, "p50_ms", 50.0, NULL);
	trep_run(t, 0, 2, NULL, "real_fps", 12.0, "p50_ms", 52.0, NULL);
	/* B: 11, 13: whole numbers, resolution 1, Δ 1 no more than it:
	 * undecided, and no number of rounds decides it */
	trep_run(t, 1, 1, NULL, "real_fps", 11.0, NULL);
	trep_run(t, 1, 2, NULL, "real_fps", 13.0, NULL);
	/* C: 12.1, 12.3: Δ 1.2, pooled sd 1.005, t = (1.2 - 0.1) / 1.005 =
	 * 1.09: undecided; rounds to decide at z = 1.96 with se 1.005 from
	 * the one complete round: (1.96 x 1.005 / 1.1)^2 = 3.2, 3 more */
	trep_run(t, 2, 1, NULL, "real_fps", 12.1, NULL);
	trep_run(t, 2, 2, NULL, "real_fps", 12.3, NULL);
	/* D: 3.0, 3.5: Δ -7.75, pooled sd 1.031, t = 7.42, p = 0.018: slower;
	 * p50 80, 81 against 50, 52: t = 25.5, p = 0.0015 (the only
	 * secondary with data, so Holm leaves it): slower too */
	trep_run(t, 3, 1, NULL, "real_fps", 3.0, "p50_ms", 80.0, NULL);
	trep_run(t, 3, 2, NULL, "real_fps", 3.5, "p50_ms", 81.0, NULL);
	/* E: one usable run, one void: 1 df, undecided */
	trep_run(t, 4, 1, NULL, "real_fps", 14.0, NULL);
	trep_run(t, 4, 2, "swapped heavily: 78710 pages in", "real_fps", 14.5, NULL);
	/* F: 19.5, 20.0: Δ +8.75: faster; p50 lower: faster */
	trep_run(t, 5, 1, NULL, "real_fps", 19.5, "p50_ms", 30.0, NULL);
	trep_run(t, 5, 2, NULL, "real_fps", 20.0, "p50_ms", 31.0, NULL);
}

static const char *verdict(json_t *doc, size_t arm, const char *metric)
{
	json_t *a = json_array_get(json_object_get(doc, "arms"), arm);
	json_t *v = json_object_get(json_object_get(a, "verdict"), metric);
	assert_true(json_is_object(v));
	return json_string_value(json_object_get(v, "state"));
}

static void test_report__verdict_cases(void **state)
{
	(void)state;
	struct trep t = { 0 };
	build_cases(&t);
	char *js = report_text(t.db, t.campaign, 0, REPORT_FORMAT_JSON);
	json_error_t e;
	json_t *doc = json_loads(js, 0, &e);
	assert_non_null(doc);
	for (size_t a = 1; a <= 5; a++)
		assert_string_equal(verdict(doc, a, "real_fps"), "undecided");
	assert_string_equal(verdict(doc, 3, "p50_ms"), "undecided");
	assert_string_equal(verdict(doc, 5, "p50_ms"), "undecided");
	/* the baseline has no verdicts */
	assert_int_equal(json_object_size(json_object_get(json_array_get(json_object_get(doc, "arms"), 0),
	                                                  "verdict")), 0);
	/* the object's fields for D: the model calls it (p < 0.05, the
	 * interval below 0), the permutation test cannot */
	json_t *d = json_object_get(json_object_get(json_array_get(json_object_get(doc, "arms"), 3),
	                                            "verdict"), "real_fps");
	double delta = json_number_value(json_object_get(d, "delta"));
	assert_true(delta < 0);
	assert_float_equal(json_number_value(json_object_get(d, "delta_pct")), delta / 11 * 100, 1e-9);
	assert_true(json_number_value(json_object_get(d, "ci_high")) < 0);
	assert_true(json_number_value(json_object_get(d, "p")) < 0.05);
	assert_float_equal(json_number_value(json_object_get(d, "p_perm_min")), 1.0 / 6, 1e-12);
	assert_true(json_is_true(json_object_get(d, "perm_exact")));
	assert_int_equal(json_integer_value(json_object_get(d, "perm_count")), 6);
	assert_string_equal(json_string_value(json_object_get(d, "undecided_reason")),
	                    "2 vs 2 runs: the permutation test cannot go below p = 0.17 (needs < 0.05)");
	assert_int_equal(json_integer_value(json_object_get(d, "n_arm")), 2);
	assert_int_equal(json_integer_value(json_object_get(d, "n_baseline")), 2);
	assert_string_equal(json_string_value(json_object_get(d, "method")), "arm_time");
	/* 11 usable runs, 6 arms and the linear term: 4 df (the quadratic
	 * would leave 3, under the 5 it needs) */
	assert_int_equal(json_integer_value(json_object_get(d, "df")), 4);
	/* B's runs in a block after A's: not interleaved, and said so */
	json_t *bv = json_object_get(json_object_get(json_array_get(json_object_get(doc, "arms"), 1),
	                                             "verdict"), "real_fps");
	assert_true(json_is_false(json_object_get(bv, "interleaved")));
	assert_non_null(strstr(json_string_value(json_object_get(bv, "undecided_reason")),
	                       "the permutation test cannot go below"));
	/* rounds still needed: from 4 df (11 runs, 6 arms, the linear term) */
	json_t *b = json_array_get(json_object_get(doc, "arms"), 1);
	json_t *bm = json_object_get(json_object_get(b, "more_rounds"), "real_fps");
	assert_true(bm && !json_is_null(bm));
	/* two runs an arm: no Mann-Whitney p-value */
	assert_true(json_is_null(json_object_get(json_object_get(b, "mann_whitney_p"), "real_fps")));
	json_decref(doc);
	free(js);

	char *md = report_text(t.db, t.campaign, 0, REPORT_FORMAT_MD);
	assert_contains(md, "- B, real fps: Δ -9.8 %; about 2 to 13 more rounds");
	assert_contains(md, "by the arm and time model");
	assert_contains(md, "arm + linear time, df 4");
	assert_contains(md, "| usable runs | 2 | 2 | 2 | 2 | 1 (and 1 void) | 2 |");
	assert_contains(md, "**warning:** arms not interleaved: A and B ran in blocks");
	assert_lacks(md, "within the spread");
	free(md);
	trep_cleanup(&t);
}

/* A frame log of a steady fps over the window 30-110 s after t0 = 1000 s:
 * frames half an interval off the grid, so exactly fps x 80 of them fall
 * in the window. */
static void write_steady_log(const char *path, double fps)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "frame,present_ns,kind,frame_ms,draws,rb_wait_ms,memsync_ms\n");
	double iv_ns = 1e9 / fps;
	for (int k = 0; (k + 0.5) * iv_ns < 120e9; k++)
		fprintf(f, "%d,%lld,real,%.4f,900,0,0\n", k,
		        1000000000000LL + (long long)llround((k + 0.5) * iv_ns), iv_ns / 1e6);
	fclose(f);
}

/* The field's Deck table, imported run by run (real fps): off 10.8/11.4,
 * late=newest 12.0/11.6, early 12.6/12.8, both 12.7/13.0.  The imports
 * keep their places (positions in import order: the arms in blocks), and
 * two runs an arm decide nothing: every comparison is undecided and says
 * why. */
static void test_report__field_table_imported(void **state)
{
	(void)state;
	struct trep t = { 0 };
	static const char *const labels[] = { "off", "late=newest", "early", "both" };
	trep_open(&t, "field", 4, labels, NULL);
	db_close(t.db);
	t.db = NULL;
	static const struct {
		char arm;
		double fps;
	} runs[] = { { 'A', 10.8 }, { 'A', 11.4 }, { 'B', 12.0 }, { 'B', 11.6 },
		     { 'C', 12.6 }, { 'C', 12.8 }, { 'D', 12.7 }, { 'D', 13.0 } };
	for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
		char log[PATH_MAX], arm[2] = { runs[i].arm, 0 };
		snprintf(log, sizeof log, "%s/run-%zu.csv", t.dir, i);
		write_steady_log(log, runs[i].fps);
		char *argv[] = { "import", "field", arm, log, "--t0", "1000000000000", "--db", t.path, NULL };
		assert_int_equal(cmd_dispatch(8, argv), 0);
	}
	assert_int_equal(db_open(t.path, &t.db), 0);
	char *js = report_text(t.db, t.campaign, 0, REPORT_FORMAT_JSON);
	json_error_t e;
	json_t *doc = json_loads(js, 0, &e);
	assert_non_null(doc);
	json_t *a0 = json_array_get(json_object_get(doc, "arms"), 0);
	assert_float_equal(json_number_value(json_object_get(json_object_get(a0, "mean"), "real_fps")),
	                   11.1, 1e-9);
	assert_string_equal(verdict(doc, 1, "real_fps"), "undecided");
	assert_string_equal(verdict(doc, 2, "real_fps"), "undecided");
	assert_string_equal(verdict(doc, 3, "real_fps"), "undecided");
	json_t *v = json_object_get(json_object_get(json_array_get(json_object_get(doc, "arms"), 2),
	                                            "verdict"), "real_fps");
	assert_string_equal(json_string_value(json_object_get(v, "method")), "arm_time");
	assert_true(json_is_false(json_object_get(v, "interleaved")));
	json_decref(doc);
	free(js);
	/* both against early */
	char msg[256] = "";
	struct report_options o = { .baseline = 'C', .format = REPORT_FORMAT_JSON, .errmsg = msg,
		                    .errmsg_size = sizeof msg };
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	assert_int_equal(report_print(t.db, t.campaign, &o, mem), 0);
	fclose(mem);
	doc = json_loads(buf, 0, &e);
	assert_non_null(doc);
	assert_string_equal(verdict(doc, 3, "real_fps"), "undecided");
	json_decref(doc);
	free(buf);
	trep_cleanup(&t);
}

/* The machine drifts +0.25 fps a run (+1.75 fps over the 8 runs, 150 s
 * apart: 1050 s).  B is 1 fps (about 2 %) faster: the time model takes
 * the drift out and calls it, but the permutation test of the stored
 * values (exact only without drift) sees B's runs and A's interleave and
 * does not agree; at 2.5 fps B's runs all lie above A's and the call
 * stands.  The drift is given as the model's time coefficient over the
 * real span with its interval, with a warning because the interval
 * excludes 0. */
static void test_report__drift_and_void_warnings(void **state)
{
	(void)state;
	struct trep t = { 0 };
	static const char *const labels[] = { "off", "on" };
	trep_open(&t, "drift", 2, labels, NULL);
	const char *order = "ABBABAAB";
	const double noise[] = { 0, 0.01, -0.01, 0.02, 0, -0.02, 0.01, -0.01 };
	for (int i = 0; i < 8; i++) {
		int arm = order[i] - 'A';
		trep_run(&t, arm, i / 4 + 1, NULL, "real_fps", 50.0 + 0.25 * i + arm + noise[i], NULL);
	}
	char *js = report_text(t.db, t.campaign, 0, REPORT_FORMAT_JSON);
	json_error_t e;
	json_t *doc = json_loads(js, 0, &e);
	assert_non_null(doc);
	assert_string_equal(verdict(doc, 1, "real_fps"), "undecided");
	json_decref(doc);
	free(js);
	trep_cleanup(&t);
	trep_open(&t, "drift", 2, labels, NULL);
	for (int i = 0; i < 8; i++) {
		int arm = order[i] - 'A';
		trep_run(&t, arm, i / 4 + 1, NULL, "real_fps", 50.0 + 0.25 * i + 2.5 * arm + noise[i], NULL);
	}
	js = report_text(t.db, t.campaign, 0, REPORT_FORMAT_JSON);
	doc = json_loads(js, 0, &e);
	assert_non_null(doc);
	assert_string_equal(verdict(doc, 1, "real_fps"), "faster");
	json_t *d = json_object_get(json_object_get(doc, "drift"), "real_fps");
	assert_float_equal(json_number_value(json_object_get(d, "change")), 1.75, 0.05);
	assert_float_equal(json_number_value(json_object_get(d, "span")), 1050, 1e-9);
	assert_string_equal(json_string_value(json_object_get(d, "span_unit")), "s");
	/* under an hour: no rate an hour */
	assert_true(json_is_null(json_object_get(d, "per_hour")));
	assert_true(json_number_value(json_object_get(d, "ci_low")) > 0);
	assert_true(json_is_true(json_object_get(d, "real")));
	json_t *w = json_object_get(doc, "warnings");
	assert_int_equal(json_array_size(w), 1);
	assert_non_null(strstr(json_string_value(json_array_get(w, 0)),
	                       "real fps drifted +1.7 fps over 18 min [+1.7, +1.8] (the model's time term"));
	json_decref(doc);
	free(js);
	char *md = report_text(t.db, t.campaign, 0, REPORT_FORMAT_MD);
	assert_contains(md, "Drift over the campaign (the model's time term, arms taken out, 95 % "
	                    "interval): real fps +1.7 fps over 18 min [+1.7, +1.8]");
	assert_contains(md, "**warning:** real fps drifted +1.7 fps");
	free(md);
	trep_cleanup(&t);

	/* three void runs, all of B's */
	struct trep v = { 0 };
	trep_open(&v, "voids", 2, labels, NULL);
	trep_run(&v, 0, 1, NULL, "real_fps", 10.0, NULL);
	trep_run(&v, 1, 1, "clock throttled: GPU clock 900 MHz", "real_fps", 8.0, NULL);
	trep_run(&v, 1, 1, NULL, "real_fps", 11.0, NULL);
	trep_run(&v, 0, 1, NULL, "real_fps", 10.5, NULL);
	trep_run(&v, 1, 2, "clock throttled: GPU clock 910 MHz", "real_fps", 8.1, NULL);
	trep_run(&v, 0, 2, NULL, "real_fps", 10.2, NULL);
	trep_run(&v, 0, 2, NULL, "real_fps", 10.3, NULL);
	trep_run(&v, 1, 2, "clock throttled: GPU clock 905 MHz", "real_fps", 8.2, NULL);
	md = report_text(v.db, v.campaign, 0, REPORT_FORMAT_MD);
	assert_contains(md, "**warning:** 3 of the 3 void runs are arm B's");
	free(md);
	trep_cleanup(&v);
}

static void test_report__baseline_option(void **state)
{
	(void)state;
	struct trep t = { 0 };
	build_night(&t);
	char *md = report_text(t.db, t.campaign, 'B', REPORT_FORMAT_MD);
	assert_contains(md, "| mean, against B | 12.25 (-1.00, -7.5 %) | 13.25 |");
	assert_contains(md, "Verdicts against B");
	free(md);
	char msg[256] = "";
	struct report_options o = { .baseline = 'Q', .errmsg = msg, .errmsg_size = sizeof msg };
	FILE *null = fopen("/dev/null", "w");
	assert_int_equal(report_print(t.db, t.campaign, &o, null), -ENOENT);
	fclose(null);
	assert_string_equal(msg, "campaign 'night-1' has no arm 'Q' for a baseline");
	trep_cleanup(&t);
}

/* Reads a CSV line into fields (quotes handled).  Returns the count. */
static size_t csv_split(char *line, char **f, size_t max)
{
	size_t n = 0;
	char *p = line, *w = line;
	while (n < max) {
		f[n++] = w;
		bool q = false;
		if (*p == '"') {
			q = true;
			p++;
		}
		for (;;) {
			if (q && *p == '"' && p[1] == '"') {
				*w++ = '"';
				p += 2;
			} else if (q && *p == '"') {
				q = false;
				p++;
			} else if (!q && (*p == ',' || *p == '\n' || *p == 0)) {
				break;
			} else {
				*w++ = *p++;
			}
		}
		char end = *p;
		*w++ = 0;
		if (end != ',')
			break;
		p++;
	}
	return n;
}

static void test_report__csv_json_same_numbers(void **state)
{
	(void)state;
	struct trep t = { 0 };
	static const char *const labels[] = { "base, \"quoted\"", "b" };
	static const char *const env[] = { "A=1\nB=two words\n", "RX_VK_READBACK_EARLY=1" };
	trep_open(&t, "exact", 2, labels, env);
	const double a_vals[] = { 12.345678901234567, 0.1 + 0.2, 1e-7 };
	const double b_vals[] = { 13.000000000000002, 99.99, 1234567.891 };
	for (int i = 0; i < 3; i++) {
		trep_run(&t, 0, i + 1, NULL, "real_fps", a_vals[i], NULL);
		trep_run(&t, 1, i + 1, NULL, "real_fps", b_vals[i], NULL);
	}
	char *csv = report_text(t.db, t.campaign, 0, REPORT_FORMAT_CSV);
	char *js = report_text(t.db, t.campaign, 0, REPORT_FORMAT_JSON);
	json_error_t e;
	json_t *doc = json_loads(js, 0, &e);
	assert_non_null(doc);
	assert_string_equal(json_string_value(json_object_get(doc, "campaign")), "exact");
	assert_string_equal(json_string_value(json_object_get(doc, "baseline")), "A");

	size_t run_rows = 0, mean_rows = 0, verdict_rows = 0;
	char *save = NULL;
	char *line = strtok_r(csv, "\n", &save);
	assert_string_equal(line, "campaign,arm,label,env,what,run,round,position,void,metric,value,text");
	while ((line = strtok_r(NULL, "\n", &save))) {
		char *f[16];
		size_t n = csv_split(line, f, 16);
		assert_int_equal(n, 12);
		assert_string_equal(f[0], "exact");
		size_t arm = f[1][0] - 'A';
		json_t *ja = json_array_get(json_object_get(doc, "arms"), arm);
		if (arm == 0) {
			assert_string_equal(f[2], "base, \"quoted\"");
			assert_string_equal(f[3], "A=1 B=two words");
		}
		if (strcmp(f[4], "run") == 0 && strcmp(f[9], "real_fps") == 0) {
			int round = atoi(f[6]);
			double v = strtod(f[10], NULL);
			const double *want = arm == 0 ? a_vals : b_vals;
			assert_true(v == want[round - 1]);
			json_t *jr = json_array_get(json_object_get(ja, "runs"), (size_t)round - 1);
			assert_true(json_number_value(json_object_get(jr, "real_fps")) == v);
			assert_int_equal(json_integer_value(json_object_get(jr, "run")), atoi(f[5]));
			run_rows++;
		}
		if (strcmp(f[4], "mean") == 0 || strcmp(f[4], "median") == 0 ||
		    strcmp(f[4], "spread_pct") == 0 || strcmp(f[4], "delta") == 0 ||
		    strcmp(f[4], "delta_pct") == 0) {
			double v = strtod(f[10], NULL);
			double jv = json_number_value(json_object_get(json_object_get(ja, f[4]), f[9]));
			assert_true(v == jv);
			mean_rows++;
		}
		if (strcmp(f[4], "verdict") == 0)
			assert_string_equal(f[11], json_string_value(json_object_get(json_object_get(
			                                 json_object_get(ja, "verdict"), f[9]), "state")));
		if (strcmp(f[4], "ci_low") == 0 || strcmp(f[4], "ci_high") == 0 ||
		    strcmp(f[4], "p") == 0) {
			json_t *jv = json_object_get(json_object_get(ja, "verdict"), f[9]);
			assert_true(strtod(f[10], NULL) == json_number_value(json_object_get(jv, f[4])));
			verdict_rows++;
		}
	}
	assert_int_equal(run_rows, 6);
	assert_int_equal(mean_rows, 8); /* mean, median, spread_pct per arm; delta, delta_pct for B */
	assert_int_equal(verdict_rows, 3);
	/* the JSON mean is the exact mean of the runs */
	json_t *a0 = json_array_get(json_object_get(doc, "arms"), 0);
	double mean = (a_vals[0] + a_vals[1] + a_vals[2]) / 3;
	assert_true(json_number_value(json_object_get(json_object_get(a0, "mean"), "real_fps")) ==
	            mean);
	/* every metric key is in every run, null without data */
	json_t *r0 = json_array_get(json_object_get(a0, "runs"), 0);
	assert_true(json_is_null(json_object_get(r0, "rb_wait_each_ms")));
	assert_non_null(json_object_get(r0, "rb_wait_ms"));
	json_decref(doc);
	free(js);
	free(csv);
	trep_cleanup(&t);
}

static void test_report__json_host_facts(void **state)
{
	(void)state;
	struct trep t = { 0 };
	static const char *const labels[] = { "a", "b" };
	trep_open(&t, "hosted", 2, labels, NULL);
	trep_run(&t, 0, 1, NULL, "real_fps", 10.0, NULL);
	trep_run(&t, 1, 1, NULL, "real_fps", 11.0, NULL);
	/* no host facts: an empty array */
	char *js = report_text(t.db, t.campaign, 0, REPORT_FORMAT_JSON);
	json_t *doc = json_loads(js, 0, NULL);
	assert_non_null(doc);
	assert_true(json_is_array(json_object_get(doc, "host")));
	assert_int_equal(json_array_size(json_object_get(doc, "host")), 0);
	json_decref(doc);
	free(js);

	trep_host_facts(&t);
	js = report_text(t.db, t.campaign, 0, REPORT_FORMAT_JSON);
	doc = json_loads(js, 0, NULL);
	assert_non_null(doc);
	json_t *host = json_object_get(doc, "host");
	assert_int_equal(json_array_size(host), 2);
	json_t *start = json_array_get(host, 0), *resume = json_array_get(host, 1);
	assert_int_equal(json_integer_value(json_object_get(start, "at_unix_ms")), TREP_CREATED_MS);
	assert_string_equal(json_string_value(json_object_get(start, "event")), "start");
	json_t *facts = json_object_get(start, "facts");
	assert_true(json_is_object(facts));
	assert_string_equal(json_string_value(json_object_get(facts, "kernel")), "6.5.0-a");
	assert_int_equal(json_integer_value(json_object_get(facts, "swappiness")), 100);
	assert_true(json_is_null(json_object_get(facts, "zram_B")));
	assert_true(json_is_array(json_object_get(start, "changes")));
	assert_int_equal(json_array_size(json_object_get(start, "changes")), 0);
	assert_int_equal(json_integer_value(json_object_get(resume, "at_unix_ms")), TREP_RESUME_MS);
	assert_string_equal(json_string_value(json_object_get(resume, "event")), "resume");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(resume, "facts"),
	                                                    "swappiness")), 1);
	json_t *changes = json_object_get(resume, "changes");
	assert_int_equal(json_array_size(changes), 2);
	assert_string_equal(json_string_value(json_array_get(changes, 0)),
	                    "kernel: \"6.5.0-a\" -> \"6.5.0-b\"");
	assert_string_equal(json_string_value(json_array_get(changes, 1)), "swappiness: 100 -> 1");
	json_decref(doc);
	free(js);
	/* CSV stays one table of metric rows */
	char *csv = report_text(t.db, t.campaign, 0, REPORT_FORMAT_CSV);
	assert_lacks(csv, "swappiness");
	free(csv);
	trep_cleanup(&t);
}

static void test_report__newest_campaign(void **state)
{
	(void)state;
	struct trep t = { 0 };
	build_night(&t);
	struct db_campaign c = { .name = "later", .created_unix_ms = TREP_CREATED_MS + 1000 };
	int64_t later;
	assert_int_equal(db_campaign_create(t.db, &c, &later), 0);
	int64_t id = 0;
	assert_int_equal(report_campaign_resolve(t.db, NULL, NULL, &id), 0);
	assert_int_equal(id, later);
	assert_int_equal(report_campaign_resolve(t.db, "night-1", NULL, &id), 0);
	assert_int_equal(id, t.campaign);
	char msg[256];
	struct report_options o = { .errmsg = msg, .errmsg_size = sizeof msg };
	assert_int_equal(report_campaign_resolve(t.db, "nope", &o, &id), -ENOENT);
	assert_non_null(strstr(msg, "no campaign 'nope' in"));
	/* a campaign without arms says so */
	FILE *null = fopen("/dev/null", "w");
	assert_int_equal(report_print(t.db, later, &o, null), -ENODATA);
	fclose(null);
	assert_string_equal(msg, "campaign 'later' has no arms");
	trep_cleanup(&t);
}

/* The plan's [verdict] time_terms: ABBA ABBA ABBA with a drift of 0.5 fps
 * a run, where the linear term is orthogonal to the arm contrast and takes
 * the drift out of s: kept by default (narrower), dropped under
 * drop-orthogonal, with the same delta. */
static void test_report__plan_time_terms_rule(void **state)
{
	(void)state;
	static const char *const labels[] = { "off", "on" };
	static const double noise[] = { 0.3, -0.2, 0.1, -0.4, 0.2, 0.0, -0.1, 0.25, 0.15, -0.3, 0.05, -0.05 };
	double delta[2], width[2];
	for (int rule = 0; rule < 2; rule++) {
		struct trep t = { 0 };
		trep_open(&t, "tt", 2, labels, NULL);
		for (int k = 0; k < 12; k++) {
			int arm = k % 4 == 0 || k % 4 == 3 ? 0 : 1;
			trep_run(&t, arm, k / 4 + 1, NULL, "real_fps", 60.0 + noise[k] - 0.5 * k + (arm ? 2.0 : 0),
			         "p99_ms", 20.0 + noise[k], NULL);
		}
		struct db_campaign *c;
		assert_int_equal(db_campaign_get(t.db, t.campaign, &c), 0);
		c->plan_text = rule ? "[campaign]\nname = tt\norder = ABBA\n[verdict]\ntime_terms = drop-orthogonal\n[arm A]\n[arm B]\n"
		                    : "[campaign]\nname = tt\norder = ABBA\n[arm A]\n[arm B]\n";
		c->rounds = 3;
		assert_int_equal(db_campaign_update(t.db, c), 0);
		free(c);
		assert_int_equal(db_campaign_set_status(t.db, t.campaign, DB_CAMPAIGN_DONE, 0), 0);
		char *js = report_text(t.db, t.campaign, 0, REPORT_FORMAT_JSON);
		json_error_t e;
		json_t *doc = json_loads(js, 0, &e);
		free(js);
		assert_non_null(doc);
		json_t *v = json_object_get(json_object_get(json_array_get(json_object_get(doc, "arms"), 1),
		                                            "verdict"), "real_fps");
		assert_int_equal(json_integer_value(json_object_get(v, "time_terms")), rule ? 1 : 2);
		assert_int_equal(json_integer_value(json_object_get(v, "time_terms_dropped")), rule ? 1 : 0);
		assert_int_equal(json_integer_value(json_object_get(v, "df")), rule ? 9 : 8);
		delta[rule] = json_number_value(json_object_get(v, "delta"));
		width[rule] = json_number_value(json_object_get(v, "ci_high")) -
		              json_number_value(json_object_get(v, "ci_low"));
		json_decref(doc);
		trep_cleanup(&t);
	}
	assert_true(fabs(delta[0] - delta[1]) < 1e-9);
	assert_true(width[1] > width[0]);
}

/* A finished two-arm campaign of ABBA rounds whose plan says
 * campaign_keys (max_rounds, until), with the runs of rounds 1..rounds:
 * B's real fps and p99 are b_fps_off and b_p99_off away from A's around
 * a small, fixed noise. */
static void sequential_campaign(struct trep *t, const char *campaign_keys, int rounds,
                                double b_fps_off, double b_p99_off)
{
	static const char *const labels[] = { "off", "on" };
	trep_open(t, "seq", 2, labels, NULL);
	static const double noise[] = { 0.3, -0.2, 0.1, -0.3, 0.2, 0.0, -0.1, 0.3, -0.2, 0.1,
		                        0.0, -0.3 };
	int k = 0;
	for (int r = 1; r <= rounds; r++)
		for (int j = 0; j < 4; j++, k++) {
			int arm = j == 0 || j == 3 ? 0 : 1;
			double e = noise[k % 12];
			trep_run(t, arm, r, NULL, "real_fps", 50.0 + e + (arm ? b_fps_off : 0), "p99_ms",
			         25.0 - e + (arm ? b_p99_off : 0), NULL);
		}
	struct db_campaign *c;
	assert_int_equal(db_campaign_get(t->db, t->campaign, &c), 0);
	char plan[512];
	snprintf(plan, sizeof plan, "[campaign]\nname = seq\norder = ABBA\n%s\n"
	         "[arm A]\n[arm B]\n", campaign_keys);
	c->plan_text = plan;
	c->rounds = rounds;
	assert_int_equal(db_campaign_update(t->db, c), 0);
	free(c);
	assert_int_equal(db_campaign_set_status(t->db, t->campaign, DB_CAMPAIGN_DONE, 0), 0);
}

static const char *stop_reason(struct trep *t, json_t **doc)
{
	char *js = report_text(t->db, t->campaign, 0, REPORT_FORMAT_JSON);
	json_error_t e;
	*doc = json_loads(js, 0, &e);
	free(js);
	assert_non_null(*doc);
	return json_string_value(json_object_get(json_object_get(*doc, "stop"), "reason"));
}

/* Why a campaign with a planned maximum of rounds stopped, in the table
 * and the JSON, and the level its decisions were made at. */
static void test_report__sequential_stop_reasons(void **state)
{
	(void)state;
	struct trep t = { 0 };
	json_t *doc;
	char msg[256];
	bool decided;

	/* clearly faster on both primaries at round 4 of at most 6 (8 runs an
	 * arm: the permutation test can reach the level of look 4) */
	sequential_campaign(&t, "rounds = 1\nmax_rounds = 6", 4, 10, -5);
	assert_int_equal(report_campaign_decided(t.db, t.campaign, 0, &decided, msg, sizeof msg), 0);
	assert_true(decided);
	assert_string_equal(stop_reason(&t, &doc), "decided");
	json_t *stop = json_object_get(doc, "stop");
	assert_int_equal(json_integer_value(json_object_get(stop, "max_rounds")), 6);
	assert_int_equal(json_integer_value(json_object_get(stop, "look")), 4);
	/* 5 % shared over the two primaries, then the boundary of look 4 of 6 */
	double a4 = stats_sequential_alpha(0.025, 4, 6);
	assert_float_equal(json_number_value(json_object_get(stop, "alpha")), a4, 1e-12);
	assert_int_equal(json_integer_value(json_object_get(stop, "primary_comparisons")), 2);
	json_decref(doc);
	char *md = report_text(t.db, t.campaign, 0, REPORT_FORMAT_MD);
	assert_contains(md, "stopped: decided after 4 rounds");
	char want[200];
	snprintf(want, sizeof want, "are decided at %.3g %% each, the level round 4 spends of 2.5 %% "
	         "(5 %% shared over 2 primary comparisons) over at most 6 rounds", 100 * a4);
	assert_contains(md, want);
	snprintf(want, sizeof want, "%.4g %% CI", 100 * (1 - a4));
	assert_contains(md, want);
	free(md);
	trep_cleanup(&t);

	/* at round 2 (4 runs an arm) the same difference cannot be called yet:
	 * 1/70 is above the level of look 2 */
	sequential_campaign(&t, "rounds = 1\nmax_rounds = 6", 2, 10, -5);
	assert_int_equal(report_campaign_decided(t.db, t.campaign, 0, &decided, msg, sizeof msg), 0);
	assert_false(decided);
	trep_cleanup(&t);

	/* no difference worth a call in 2 rounds, the deadline came first */
	sequential_campaign(&t, "until = 2026-11-14 07:00\nmax_rounds = 6", 2, 0.4, 0.2);
	assert_int_equal(report_campaign_decided(t.db, t.campaign, 0, &decided, msg, sizeof msg), 0);
	assert_false(decided);
	assert_string_equal(stop_reason(&t, &doc), "deadline");
	json_decref(doc);
	md = report_text(t.db, t.campaign, 0, REPORT_FORMAT_MD);
	assert_contains(md, "stopped: deadline: no further round fitted, after 2 rounds");
	free(md);
	trep_cleanup(&t);

	/* undecided at the planned maximum */
	sequential_campaign(&t, "rounds = 1\nmax_rounds = 3", 3, 0.4, 0.2);
	assert_string_equal(stop_reason(&t, &doc), "max_rounds");
	json_decref(doc);
	md = report_text(t.db, t.campaign, 0, REPORT_FORMAT_MD);
	assert_contains(md, "stopped: max rounds reached (3)");
	/* what it would take, for the sequential levels: beyond the maximum */
	assert_contains(md, "not reachable within max_rounds = 3");
	free(md);
	trep_cleanup(&t);

	/* a fixed campaign: decided at 5 %, no stop facts in the table */
	sequential_campaign(&t, "rounds = 2", 2, 10, -5);
	assert_string_equal(stop_reason(&t, &doc), "planned");
	assert_float_equal(json_number_value(json_object_get(json_object_get(doc, "stop"), "alpha")),
	                   0.05, 0);
	json_decref(doc);
	md = report_text(t.db, t.campaign, 0, REPORT_FORMAT_MD);
	assert_lacks(md, "stopped:");
	assert_contains(md, "are decided at 5 % each");
	free(md);
	trep_cleanup(&t);
}

/* Small values keep their minimum effect readable: memory sync of 0.003 ms
 * a frame has a 5 % minimum of 0.00015 ms, never "±0.000". */
/* The reason the run loop stored is what every output says; without one
 * (a campaign finished before results-db schema 4) the derived one. */
static void test_report__stored_stop_reason_is_printed(void **state)
{
	(void)state;
	struct trep t = { 0 };
	json_t *doc;
	/* clearly faster at round 4 of at most 6: the data says "decided" */
	sequential_campaign(&t, "rounds = 1\nmax_rounds = 6", 4, 10, -5);
	assert_string_equal(stop_reason(&t, &doc), "decided");
	assert_false(json_boolean_value(json_object_get(json_object_get(doc, "stop"), "stored")));
	json_decref(doc);

	/* the run loop stopped it at the deadline (its stop was checked before
	 * the decision of the last round could be): that is what is printed */
	assert_int_equal(db_campaign_set_stop_reason(t.db, t.campaign, "deadline"), 0);
	assert_string_equal(stop_reason(&t, &doc), "deadline");
	json_t *stop = json_object_get(doc, "stop");
	assert_true(json_boolean_value(json_object_get(stop, "stored")));
	assert_string_equal(json_string_value(json_object_get(stop, "text")),
	                    "deadline: no further round fitted, after 4 rounds");
	json_decref(doc);
	char *md = report_text(t.db, t.campaign, 0, REPORT_FORMAT_MD);
	assert_contains(md, "stopped: deadline: no further round fitted, after 4 rounds");
	assert_lacks(md, "stopped: decided");
	free(md);
	char *html = report_text(t.db, t.campaign, 0, REPORT_FORMAT_HTML);
	assert_contains(html, ": deadline: no further round fitted, after 4 rounds</dd>");
	free(html);
	char why[160], msg[256];
	bool stored = false;
	assert_int_equal(report_stop_reason(t.db, t.campaign, why, sizeof why, &stored, msg,
	                                    sizeof msg), 0);
	assert_string_equal(why, "deadline: no further round fitted, after 4 rounds");
	assert_true(stored);

	assert_int_equal(db_campaign_set_stop_reason(t.db, t.campaign, "max_rounds"), 0);
	assert_string_equal(stop_reason(&t, &doc), "max_rounds");
	json_decref(doc);
	assert_int_equal(db_campaign_set_stop_reason(t.db, t.campaign, "planned"), 0);
	md = report_text(t.db, t.campaign, 0, REPORT_FORMAT_MD);
	assert_contains(md, "every planned run ran");
	free(md);

	/* opened again: the campaign is not finished, nothing is said */
	assert_int_equal(db_campaign_set_status(t.db, t.campaign, DB_CAMPAIGN_OPEN, 0), 0);
	assert_null(stop_reason(&t, &doc));
	json_decref(doc);
	/* finished again without a stored reason: derived */
	assert_int_equal(db_campaign_set_status(t.db, t.campaign, DB_CAMPAIGN_DONE, 0), 0);
	assert_string_equal(stop_reason(&t, &doc), "decided");
	json_decref(doc);
	assert_int_equal(report_stop_reason(t.db, t.campaign, why, sizeof why, &stored, msg,
	                                    sizeof msg), 0);
	assert_string_equal(why, "decided after 4 rounds");
	assert_false(stored);
	trep_cleanup(&t);
}

static void test_report__small_minimum_effect_not_shown_as_zero(void **state)
{
	(void)state;
	struct trep t = { 0 };
	static const char *const labels[] = { "off", "on" };
	trep_open(&t, "tiny", 2, labels, NULL);
	static const double v[2][3] = { { 0.0030, 0.0031, 0.0029 }, { 0.0032, 0.0030, 0.0031 } };
	for (int k = 0; k < 3; k++)
		for (int a = 0; a < 2; a++)
			trep_run(&t, a, k + 1, NULL, "real_fps", 50.0 + a + 0.1 * k, "memsync_ms", v[a][k],
			         NULL);
	char *md = report_text(t.db, t.campaign, 0, REPORT_FORMAT_MD);
	assert_contains(md, "±0.00015 minimum");
	assert_lacks(md, "±0.000 minimum");
	free(md);
	trep_cleanup(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report__md_hand_computed),
		cmocka_unit_test(test_report__void_never_counted),
		cmocka_unit_test(test_report__verdict_cases),
		cmocka_unit_test(test_report__field_table_imported),
		cmocka_unit_test(test_report__drift_and_void_warnings),
		cmocka_unit_test(test_report__baseline_option),
		cmocka_unit_test(test_report__csv_json_same_numbers),
		cmocka_unit_test(test_report__json_host_facts),
		cmocka_unit_test(test_report__newest_campaign),
		cmocka_unit_test(test_report__sequential_stop_reasons),
		cmocka_unit_test(test_report__plan_time_terms_rule),
		cmocka_unit_test(test_report__stored_stop_reason_is_printed),
		cmocka_unit_test(test_report__small_minimum_effect_not_shown_as_zero),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
