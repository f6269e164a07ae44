/* Tests of `rxdeck tested`: the run file of a fixed campaign against the
 * checked-in tests/expected/tested-night-1.md (every time in it fixed), the
 * same file on a second write, never replacing another campaign's file,
 * and stable, distinct names.  RXDECK_UPDATE_EXPECTED=1 rewrites the
 * expected file instead of comparing (for a deliberate format change; the
 * diff is then reviewed like code). */
#include "test-report-util.h"

#include <dirent.h>
#include <errno.h>

#include "cmd/cmd.h"
#include "report/report.h"

/* night-1 as the morning finds it: a warm-up, two rounds of ABBA with one
 * void run, one run never finished, clocks and swap sampled, route marks. */
static void build(struct trep *t)
{
	static const char *const labels[] = { "off", "early readback" };
	static const char *const env[] = { NULL, "RX_VK_READBACK_EARLY=1\nRX_VK_LOG_READBACK_WAITS=1\n" };
	trep_open(t, "night-1", 2, labels, env);
	struct db_run warm = { .arm_id = t->arm[0], .round = 0, .position = 1, .is_warmup = true };
	assert_int_equal(db_run_plan(t->db, t->campaign, &warm, 1), 0);
	struct db_run *runs;
	size_t n;
	assert_int_equal(db_run_list(t->db, t->campaign, &runs, &n), 0);
	assert_int_equal(db_run_mark_running(t->db, runs[0].id, TREP_CREATED_MS + 1000, "/r/1"), 0);
	assert_int_equal(db_run_mark_done(t->db, runs[0].id, TREP_CREATED_MS + 126000, 0), 0);
	free(runs);
	t->next_position = 2;

	struct { int arm, round; double fps, p99, rb, rb_each; const char *void_reason; } r[] = {
		{ 0, 1, 10.8, 180.9, 268, 23.3, NULL },
		{ 1, 1, 12.6, 161.9, 1023, 1.55, NULL },
		{ 1, 1, 12.8, 156.2, 1029, 1.36, NULL },
		{ 0, 1, 11.4, 174.4, 221, 23.6, NULL },
		{ 0, 2, 11.0, 175.0, 250, 22.0, "swapped heavily: 78710 pages in (campaign median 45000)" },
		{ 1, 2, 12.7, 158.0, 1010, 1.40, NULL },
	};
	for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
		int64_t id = trep_run(t, r[i].arm, r[i].round, r[i].void_reason, "real_fps", r[i].fps,
		                      "p99_ms", r[i].p99, "rb_waits", r[i].rb, "rb_wait_each_ms",
		                      r[i].rb_each, "route_t0_ns", 1e12 * (double)(i + 1), NULL);
		/* clock samples: A at 1600 MHz, B dropping to 1200 once; one
		 * sample outside the window that must not count */
		int64_t t0 = (int64_t)(1e12 * (double)(i + 1));
		struct db_sample s[] = {
			{ t0 + INT64_C(10000000000), "gpu_sclk_mhz", 400, false },
			{ t0 + INT64_C(40000000000), "gpu_sclk_mhz", 1600, false },
			{ t0 + INT64_C(60000000000), "gpu_sclk_mhz", r[i].arm ? 1200 : 1600, false },
			{ t0 + INT64_C(90000000000), "gpu_sclk_mhz", 1600, false },
			{ t0 + INT64_C(40000000000), "gpu_busy_pct", r[i].arm ? 84 : 72, false },
			{ t0 + INT64_C(90000000000), "gpu_busy_pct", r[i].arm ? 82 : 70, false },
			{ t0 + INT64_C(1000000000), "swap_in_pages", 100000, false },
			{ t0 + INT64_C(120000000000), "swap_in_pages", 145000.0 + 1000.0 * (double)i, false },
		};
		assert_int_equal(db_samples_store(t->db, id, s, sizeof s / sizeof s[0]), 0);
	}
	/* round 2's last A run never ran */
	struct db_run planned = { .arm_id = t->arm[0], .round = 2, .position = t->next_position++ };
	assert_int_equal(db_run_plan(t->db, t->campaign, &planned, 1), 0);
	struct db_route_mark m[] = {
		{ 30, "window-start", "window" },
		{ 30, "forest-entrance", "shot" },
		{ 62.5, "bridge", "mark" },
		{ 110, "window-end", "window" },
	};
	assert_int_equal(db_route_marks_store(t->db, t->campaign, m, 4), 0);
	assert_int_equal(db_campaign_set_status(t->db, t->campaign, DB_CAMPAIGN_STOPPED,
	                                        TREP_FINISHED_MS), 0);
}

static char *slurp(const char *path, size_t *len)
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
	if (len)
		*len = n;
	return b;
}

static char *tested_text(struct trep *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	char msg[256] = "";
	struct report_options o = { .errmsg = msg, .errmsg_size = sizeof msg };
	int rc = report_tested_print(t->db, t->campaign, &o, mem);
	fclose(mem);
	if (rc)
		fprintf(stderr, "%s\n", msg);
	assert_int_equal(rc, 0);
	return buf;
}

/* A plan frozen with absolute paths: the run file shows them relative to
 * the tree the route lies in, and no path of the machine that ran it. */
static void test_tested__tree_paths_relative(void **state)
{
	(void)state;
	struct trep t = { 0 };
	trep_dir(&t);
	assert_int_equal(db_open(t.path, &t.db), 0);
	struct db_campaign c = {
		.name = "abs",
		.plan_text = "[campaign]\nname = abs\nroute = /home/tester/rxdeck/routes/smoke.route\n"
		             "collect = /home/tester/rxdeck/profiles/rxvk.collect\n\n[build forest]\n"
		             "command = /home/tester/rxdeck/build/renderer/forest/rxdeck-forest\n\n"
		             "[arm A]\nlabel = off\n",
		.route_name = "smoke",
		.window_start_s = 2,
		.window_end_s = 11,
		.order = "A",
		.rounds = 1,
		.created_unix_ms = TREP_CREATED_MS,
	};
	assert_int_equal(db_campaign_create(t.db, &c, &t.campaign), 0);
	assert_int_equal(db_arm_add(t.db, &(struct db_arm){ .campaign_id = t.campaign, .letter = 'A',
	                                                    .label = "off" }, &t.arm[0]), 0);
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	assert_non_null(mem);
	assert_int_equal(report_tested_print(t.db, t.campaign, NULL, mem), 0);
	fclose(mem);
	assert_null(strstr(text, "/home/tester"));
	assert_non_null(strstr(text, "route = routes/smoke.route\n"));
	assert_non_null(strstr(text, "command = build/renderer/forest/rxdeck-forest\n"));
	assert_non_null(strstr(text, "relative to its top"));
	free(text);
	trep_cleanup(&t);
}

static void test_tested__matches_expected(void **state)
{
	(void)state;
	struct trep t = { 0 };
	build(&t);
	char *got = tested_text(&t);
	const char *root = getenv("RXDECK_SOURCE_ROOT");
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/tests/expected/tested-night-1.md", root ? root : ".");
	const char *update = getenv("RXDECK_UPDATE_EXPECTED");
	if (update && strcmp(update, "1") == 0) {
		FILE *f = fopen(path, "w");
		assert_non_null(f);
		fputs(got, f);
		fclose(f);
	}
	char *want = slurp(path, NULL);
	assert_non_null(want);
	if (strcmp(got, want) != 0) {
		fprintf(stderr, "run file differs from %s; got:\n%s\n", path, got);
		fail();
	}
	free(want);
	free(got);
	trep_cleanup(&t);
}

static size_t count_files(const char *dir)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static void test_tested__write_twice_same_file(void **state)
{
	(void)state;
	struct trep t = { 0 };
	build(&t);
	char dir[PATH_MAX], *p1 = NULL, *p2 = NULL;
	snprintf(dir, sizeof dir, "%s/docs/tested", t.dir);
	assert_int_equal(report_tested_write(t.db, t.campaign, dir, NULL, &p1), 0);
	char want[PATH_MAX + 32];
	snprintf(want, sizeof want, "%s/2026-11-13-night-1.md", dir);
	assert_string_equal(p1, want);
	size_t l1, l2;
	char *a = slurp(p1, &l1);
	assert_int_equal(report_tested_write(t.db, t.campaign, dir, NULL, &p2), 0);
	assert_string_equal(p1, p2);
	char *b = slurp(p2, &l2);
	assert_int_equal(l1, l2);
	assert_memory_equal(a, b, l1);
	char *text = tested_text(&t);
	assert_string_equal(a, text);
	/* one file, no temporary left behind */
	assert_int_equal(count_files(dir), 1);
	free(text);
	free(a);
	free(b);
	free(p1);
	free(p2);
	trep_cleanup(&t);
}

static void test_tested__never_replaces_another(void **state)
{
	(void)state;
	struct trep t = { 0 };
	build(&t);
	char dir[PATH_MAX], path[PATH_MAX + 32];
	snprintf(dir, sizeof dir, "%s/tested", t.dir);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(path, sizeof path, "%s/2026-11-13-night-1.md", dir);
	/* another night-1 (another database, another start) wrote this name */
	const char *other = "# night-1\n\n<!-- rxdeck run file: campaign night-1 created "
	                    "1794607000000 -->\n\nsomeone else's run\n";
	FILE *f = fopen(path, "w");
	fputs(other, f);
	fclose(f);
	char msg[512] = "";
	struct report_options o = { .errmsg = msg, .errmsg_size = sizeof msg };
	char *p = NULL;
	assert_int_equal(report_tested_write(t.db, t.campaign, dir, &o, &p), -EEXIST);
	assert_null(p);
	assert_non_null(strstr(msg, "exists and is not this campaign's run file"));
	char *now = slurp(path, NULL);
	assert_string_equal(now, other);
	free(now);
	/* a hand-written file of that name is not touched either */
	f = fopen(path, "w");
	fputs("# notes\n", f);
	fclose(f);
	assert_int_equal(report_tested_write(t.db, t.campaign, dir, &o, &p), -EEXIST);
	now = slurp(path, NULL);
	assert_string_equal(now, "# notes\n");
	free(now);
	assert_int_equal(count_files(dir), 1);
	trep_cleanup(&t);
}

static void test_tested__names_stable_and_distinct(void **state)
{
	(void)state;
	struct trep t = { 0 };
	build(&t);
	const char *names[] = { "a b/c", "a-b-c", "a-b/c", ".hidden" };
	char *got[4];
	for (int i = 0; i < 4; i++) {
		struct db_campaign c = { .name = names[i], .created_unix_ms = TREP_CREATED_MS };
		int64_t id;
		assert_int_equal(db_campaign_create(t.db, &c, &id), 0);
		assert_int_equal(report_tested_name(t.db, id, &got[i]), 0);
		char *again;
		assert_int_equal(report_tested_name(t.db, id, &again), 0);
		assert_string_equal(got[i], again);
		free(again);
		assert_null(strchr(got[i], '/'));
		assert_true(got[i][0] != '.');
	}
	assert_string_equal(got[1], "2026-11-13-a-b-c.md");
	assert_true(strncmp(got[0], "2026-11-13-a-b-c-", 17) == 0);
	assert_true(strncmp(got[2], "2026-11-13-a-b-c-", 17) == 0);
	assert_string_not_equal(got[0], got[2]);
	for (int i = 0; i < 4; i++)
		free(got[i]);
	trep_cleanup(&t);
}

static int tested_cmd(struct trep *t, const char *dir, const char *extra)
{
	char *argv[] = { "tested", "--out", (char *)dir, "--db", t->path, (char *)extra, NULL };
	fflush(stdout);
	return cmd_dispatch(extra ? 6 : 5, argv);
}

static void test_tested__links_the_html_page(void **state)
{
	(void)state;
	struct trep t = { 0 };
	build(&t);
	db_close(t.db); /* the command opens it */
	t.db = NULL;
	char dir[PATH_MAX], md[PATH_MAX + 32], page[PATH_MAX + 32];
	snprintf(dir, sizeof dir, "%s/docs/tested", t.dir);
	snprintf(md, sizeof md, "%s/2026-11-13-night-1.md", dir);
	snprintf(page, sizeof page, "%s/2026-11-13-night-1.html", dir);
	static const char link[] = "The page with the plots and every route shot side by side: "
	                           "[2026-11-13-night-1.html](2026-11-13-night-1.html).\n\n";
	/* no page: no link */
	assert_int_equal(tested_cmd(&t, dir, NULL), 0);
	size_t len;
	char *text = slurp(md, &len);
	assert_null(strstr(text, "2026-11-13-night-1.html"));
	free(text);
	/* --html writes the page beside the run file, which links it under Results */
	assert_int_equal(tested_cmd(&t, dir, "--html"), 0);
	text = slurp(md, &len);
	const char *results = strstr(text, "\n## Results\n\n");
	assert_non_null(results);
	assert_ptr_equal(strstr(text, link), results + strlen("\n## Results\n\n"));
	free(text);
	char *html = slurp(page, &len);
	assert_true(strncmp(html, "<!DOCTYPE html>", 15) == 0);
	assert_non_null(strstr(html, "<title>Campaign night-1</title>"));
	free(html);
	/* written again without --html, the page is there: still linked */
	assert_int_equal(tested_cmd(&t, dir, NULL), 0);
	text = slurp(md, &len);
	assert_non_null(strstr(text, link));
	free(text);
	assert_int_equal(unlink(page), 0);
	assert_int_equal(tested_cmd(&t, dir, NULL), 0);
	text = slurp(md, &len);
	assert_null(strstr(text, "night-1.html"));
	free(text);
	/* --embed-shots goes with --html only */
	assert_int_equal(tested_cmd(&t, dir, "--embed-shots"), 2);
	trep_cleanup(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tested__matches_expected),
		cmocka_unit_test(test_tested__tree_paths_relative),
		cmocka_unit_test(test_tested__write_twice_same_file),
		cmocka_unit_test(test_tested__never_replaces_another),
		cmocka_unit_test(test_tested__names_stable_and_distinct),
		cmocka_unit_test(test_tested__links_the_html_page),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
