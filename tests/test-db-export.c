/* results-db: JSON export and import — a round trip gives the same
 * document, a bad document adds nothing and says where it is bad, and
 * merging is exact: the same export twice adds nothing, another host's
 * campaign of the same name is host-qualified, a partial night merges and
 * says so. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "test-db-util.h"

static char *export_text(struct db *db, int64_t campaign_id)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(db_export(db, campaign_id, f), 0);
	fclose(f);
	return buf;
}

static int import_text(struct db *db, const char *text, size_t *n)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	assert_non_null(f);
	int err = db_import(db, f, "night.json", n);
	fclose(f);
	return err;
}

/* A campaign with every kind of row. */
static void fill(struct tdb *t)
{
	tdb_open_campaign(t);
	int64_t build, arm_c;
	assert_int_equal(db_build_add(t->db, &(struct db_build){ .campaign_id = t->campaign,
	                 .label = "main", .commit = "0a4d428", .sha256 = "ab" }, &build), 0);
	assert_int_equal(db_arm_add(t->db, &(struct db_arm){ .campaign_id = t->campaign,
	                 .letter = 'C', .label = "clock", .env = "X=1\nY=\"2\"", .build_id = build },
	                 &arm_c), 0);
	struct db_route_mark mark = { .t_s = 30.25, .name = "entrance", .kind = "shot" };
	assert_int_equal(db_route_marks_store(t->db, t->campaign, &mark, 1), 0);
	assert_int_equal(db_host_facts_add(t->db, t->campaign, &(struct db_host_facts){
	                 .at_unix_ms = 1700000000000, .event = "start",
	                 .facts = "{\"device_model\":\"Steam Deck OLED\",\"swappiness\":100,"
	                          "\"tdp_w\":15.0,\"zram_B\":null}" }), 0);
	assert_int_equal(db_host_facts_add(t->db, t->campaign, &(struct db_host_facts){
	                 .at_unix_ms = 1700000100000, .event = "resume",
	                 .facts = "{\"device_model\":\"Steam Deck OLED\",\"swappiness\":1,"
	                          "\"tdp_w\":15.0,\"zram_B\":null}",
	                 .changes = "swappiness: 100 -> 1" }), 0);
	int64_t ids[4];
	tdb_plan_abba(t, ids);
	struct db_frame f[] = {
		{ .frame = 1, .present_ns = 123456789012345, .frame_ms = 0.1 + 0.2, .draws = 4,
		  .rb_wait_ms = 1.0 / 3.0, .memsync_ms = 1e-300, .kind = DB_FRAME_REAL },
		{ .frame = 2, .present_ns = 123456797345678, .frame_ms = 8.25, .kind = DB_FRAME_SHOWN,
		  .absent = DB_FRAME_NO_RB_WAIT_MS | DB_FRAME_NO_DRAWS, .source = DB_FRAME_MANGOHUD },
	};
	struct db_sample s[] = { { .t_ns = 5, .name = "gpu_busy_pct", .value = 99.5 },
	                         { .t_ns = 5, .name = "gpu_power_w", .absent = true } };
	struct db_metric m[] = { { "real_fps", 59.940059940059939 }, { "p99_frame_ms", 33 } };
	const char *caps[] = { "3000", NULL, "é\"\\" };
	struct db_log_line l = { .t_ns = 77, .pattern = "readbacks", .text = "vk: readbacks: 3000",
	                         .captures = caps, .n_captures = 3 };
	struct db_shot sh[] = { { .name = "entrance", .path = "/r/1/entrance.png", .luma = 81.5,
	                          .checksum = "ff" },
	                        { .name = "dark", .luma = NAN } };
	assert_int_equal(db_run_mark_running(t->db, ids[0], 1000, "/r/1"), 0);
	assert_int_equal(db_run_store_results(t->db, ids[0], &(struct db_run_results){
	                 .frames = f, .n_frames = 2, .samples = s, .n_samples = 2,
	                 .metrics = m, .n_metrics = 2, .log_lines = &l, .n_log_lines = 1,
	                 .shots = sh, .n_shots = 2, .config = "RX_VK_PARALLEL=1",
	                 .status = DB_RUN_DONE, .end_unix_ms = 2000, .exit_status = 0 }), 0);
	assert_int_equal(db_run_mark_running(t->db, ids[1], 3000, NULL), 0);
	assert_int_equal(db_run_mark_void(t->db, ids[1], "hung: no frame for 10 s", 4000, 137), 0);
	assert_int_equal(db_run_mark_running(t->db, ids[2], 5000, NULL), 0);
	int64_t post;
	assert_int_equal(db_post_enqueue(t->db, &(struct db_post){ .campaign_id = t->campaign,
	                 .forge_url = "http://f", .repo = "o/r", .issue_index = 3,
	                 .body = "| A | B |\n" }, &post), 0);
	assert_int_equal(db_post_mark_sent(t->db, post, 55, 6000), 0);
	int64_t loose;
	assert_int_equal(db_post_enqueue(t->db, &(struct db_post){ .forge_url = "http://f",
	                 .repo = "o/r", .issue_index = 4, .body = "loose" }, &loose), 0);
	struct db_campaign *c;
	assert_int_equal(db_campaign_get(t->db, t->campaign, &c), 0);
	c->plan_text = "[arms]\nA = base\n";
	c->memory_B = 16000000000;
	assert_int_equal(db_campaign_update(t->db, c), 0);
	free(c);
	assert_int_equal(db_campaign_set_stop_reason(t->db, t->campaign, "deadline"), 0);
}

static void test_export_import__round_trip_gives_the_same_document(void **state)
{
	struct tdb a = { 0 }, b = { 0 };
	fill(&a);
	char *first = export_text(a.db, 0);
	tdb_dir(&b);
	assert_int_equal(db_open(b.path, &b.db), 0);
	size_t n = 0;
	assert_int_equal(import_text(b.db, first, &n), 0);
	assert_int_equal(n, 1);
	char *second = export_text(b.db, 0);
	assert_string_equal(first, second);
	assert_non_null(strstr(first, "\"host_facts\":[{\"at_unix_ms\":1700000000000,\"event\":"
	                              "\"start\",\"facts\":{\"device_model\":\"Steam Deck OLED\""));
	assert_non_null(strstr(first, "\"changes\":\"swappiness: 100 -> 1\"}]"));
	assert_non_null(strstr(first, "\"stop_reason\":\"deadline\""));
	char stop[16];
	struct db_campaign *imported;
	assert_int_equal(db_campaign_find(b.db, "c1", &imported), 0);
	assert_int_equal(db_campaign_stop_reason(b.db, imported->id, stop, sizeof stop), 0);
	assert_string_equal(stop, "deadline");
	free(imported);
	/* another word is refused, naming the field */
	struct tdb d = { 0 };
	tdb_dir(&d);
	assert_int_equal(db_open(d.path, &d.db), 0);
	char *bad = strdup(first);
	char *at = strstr(bad, "\"stop_reason\":\"deadline\"");
	memcpy(at + strlen("\"stop_reason\":\""), "tiredzzz", 8);
	assert_int_equal(import_text(d.db, bad, &n), -EINVAL);
	assert_non_null(strstr(db_errmsg(d.db), ".stop_reason: unknown stop reason 'tiredzzz'"));
	free(bad);
	tdb_cleanup(&d);

	/* Spot checks through the API of the imported copy. */
	struct db_campaign *c;
	assert_int_equal(db_campaign_find(b.db, "c1", &c), 0);
	assert_string_equal(c->plan_text, "[arms]\nA = base\n");
	assert_int_equal(c->memory_B, 16000000000);
	struct db_run *r;
	size_t nr;
	assert_int_equal(db_run_list(b.db, c->id, &r, &nr), 0);
	assert_int_equal(nr, 4);
	assert_int_equal(r[1].status, DB_RUN_VOID);
	assert_int_equal(r[1].exit_status, 137);
	assert_int_equal(r[2].status, DB_RUN_RUNNING);
	struct db_frame *f;
	size_t nf;
	assert_int_equal(db_frames_read(b.db, r[0].id, &f, &nf), 0);
	assert_int_equal(nf, 2);
	double third = 1.0 / 3.0, tiny = 1e-300, sum = 0.1 + 0.2;
	assert_memory_equal(&f[0].rb_wait_ms, &third, sizeof third);
	assert_memory_equal(&f[0].memsync_ms, &tiny, sizeof tiny);
	assert_memory_equal(&f[0].frame_ms, &sum, sizeof sum);
	assert_int_equal(f[0].present_ns, 123456789012345);
	assert_int_equal(f[1].kind, DB_FRAME_SHOWN);
	assert_int_equal(f[1].absent, DB_FRAME_NO_RB_WAIT_MS | DB_FRAME_NO_DRAWS);
	assert_int_equal(f[1].source, DB_FRAME_MANGOHUD);
	assert_int_equal(f[0].absent, 0);
	assert_int_equal(f[0].source, DB_FRAME_RXVK);
	free(f);
	struct db_log_line *l;
	size_t nl;
	assert_int_equal(db_log_lines_read(b.db, r[0].id, NULL, &l, &nl), 0);
	assert_int_equal(nl, 1);
	assert_null(l[0].captures[1]);
	assert_string_equal(l[0].captures[2], "é\"\\");
	free(l);
	struct db_post *p;
	size_t np;
	assert_int_equal(db_post_list(b.db, 0, &p, &np), 0);
	assert_int_equal(np, 2);
	free(p);
	free(r);
	free(c);
	free(first);
	free(second);
	tdb_cleanup(&a);
	tdb_cleanup(&b);
}

static int import_report(struct db *db, const char *text, struct db_import_report *r)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	assert_non_null(f);
	int err = db_import_ex(db, f, "night.json", r);
	fclose(f);
	return err;
}

static size_t count_campaigns(struct db *db)
{
	struct db_campaign *list;
	size_t n;
	assert_int_equal(db_campaign_list(db, &list, &n), 0);
	free(list);
	return n;
}

/* A copy of text with the first `from` replaced by `to`. */
static char *replaced(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	assert_non_null(at);
	char *out = malloc(strlen(text) + strlen(to) + 1);
	assert_non_null(out);
	size_t head = (size_t)(at - text);
	memcpy(out, text, head);
	strcpy(out + head, to);
	strcat(out, at + strlen(from));
	return out;
}

static void test_import__same_export_twice_adds_nothing(void **state)
{
	struct tdb a = { 0 }, b = { 0 };
	fill(&a);
	char *doc = export_text(a.db, 0);
	/* into the database it came from: the campaign and its loose post are there */
	size_t n = 99;
	assert_int_equal(import_text(a.db, doc, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(count_campaigns(a.db), 1);
	char *again = export_text(a.db, 0);
	assert_string_equal(doc, again);
	/* into another one, twice */
	tdb_dir(&b);
	assert_int_equal(db_open(b.path, &b.db), 0);
	struct db_import_report r = { 0 };
	assert_int_equal(import_report(b.db, doc, &r), 0);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.items[0].action, DB_IMPORT_ADDED);
	free(r.items);
	assert_int_equal(import_report(b.db, doc, &r), 0);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.items[0].action, DB_IMPORT_SAME);
	assert_string_equal(r.items[0].stored_as, "c1");
	free(r.items);
	char *twice = export_text(b.db, 0);
	assert_string_equal(doc, twice);
	free(doc);
	free(again);
	free(twice);
	tdb_cleanup(&a);
	tdb_cleanup(&b);
}

static void test_import__same_name_of_another_host_is_host_qualified(void **state)
{
	struct tdb a = { 0 };
	fill(&a);
	char *doc = export_text(a.db, a.campaign);
	assert_non_null(strstr(doc, "\"host\":null"));
	char *oled = replaced(doc, "\"host\":null", "\"host\":\"deck-oled\"");
	struct db_import_report r = { 0 };
	assert_int_equal(import_report(a.db, oled, &r), 0);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.items[0].action, DB_IMPORT_QUALIFIED);
	assert_string_equal(r.items[0].stored_as, "c1@deck-oled");
	free(r.items);
	assert_int_equal(count_campaigns(a.db), 2);
	struct db_campaign *c;
	assert_int_equal(db_campaign_find(a.db, "c1@deck-oled", &c), 0);
	assert_string_equal(c->host, "deck-oled");
	free(c);
	/* the same device's export again finds it under the qualified name */
	assert_int_equal(import_report(a.db, oled, &r), 0);
	assert_int_equal(r.items[0].action, DB_IMPORT_SAME);
	assert_string_equal(r.items[0].stored_as, "c1@deck-oled");
	free(r.items);
	assert_int_equal(count_campaigns(a.db), 2);
	free(oled);
	free(doc);
	tdb_cleanup(&a);
}

static void test_import__partial_merges_says_so_and_gives_way_to_more_runs(void **state)
{
	struct tdb a = { 0 }, b = { 0 };
	fill(&a);  /* run 3 running, run 4 planned: a night cut short */
	char *cut = export_text(a.db, a.campaign);
	assert_non_null(strstr(cut, "\"partial\":true"));
	tdb_dir(&b);
	assert_int_equal(db_open(b.path, &b.db), 0);
	struct db_import_report r = { 0 };
	assert_int_equal(import_report(b.db, cut, &r), 0);
	assert_true(r.items[0].partial);
	assert_int_equal(r.items[0].runs_finished, 2);
	assert_int_equal(r.items[0].runs, 4);
	free(r.items);
	/* the night goes on on its Deck; its next export replaces the partial one */
	struct db_run *runs;
	size_t nr;
	assert_int_equal(db_run_list(a.db, a.campaign, &runs, &nr), 0);
	assert_int_equal(db_run_mark_done(a.db, runs[2].id, 5500, 0), 0);
	assert_int_equal(db_run_mark_running(a.db, runs[3].id, 6000, NULL), 0);
	assert_int_equal(db_run_mark_done(a.db, runs[3].id, 6500, 0), 0);
	assert_int_equal(db_campaign_set_status(a.db, a.campaign, DB_CAMPAIGN_DONE, 7000), 0);
	free(runs);
	char *whole = export_text(a.db, a.campaign);
	assert_non_null(strstr(whole, "\"partial\":false"));
	assert_int_equal(import_report(b.db, whole, &r), 0);
	assert_int_equal(r.items[0].action, DB_IMPORT_UPDATED);
	assert_false(r.items[0].partial);
	free(r.items);
	assert_int_equal(count_campaigns(b.db), 1);
	struct db_campaign *c;
	assert_int_equal(db_campaign_find(b.db, "c1", &c), 0);
	char *merged = export_text(b.db, c->id);
	free(c);
	char *expected = export_text(a.db, a.campaign);
	assert_string_equal(merged, expected);
	/* the older, partial export now adds nothing and breaks nothing */
	assert_int_equal(import_report(b.db, cut, &r), -EEXIST);
	assert_non_null(strstr(db_errmsg(b.db), "with other results (4 of 4 runs finished there, "
	                                         "2 of 4 here); nothing was imported"));
	free(merged);
	free(expected);
	free(whole);
	free(cut);
	tdb_cleanup(&a);
	tdb_cleanup(&b);
}

/* A hand-made (or older) export leaves out what is null or empty: the same
 * campaign in it is still the same, and another host's gets NAME@HOST. */
static void test_import__sparse_document_merges_exactly(void **state)
{
	static const char doc[] =
		"{\"format\":\"rxdeck-results\",\"schema_version\":4,\"campaigns\":["
		"{\"name\":\"n\",\"host\":\"lcd\",\"window_start_s\":0,\"window_end_s\":2,"
		"\"rounds\":1,\"warmup\":false,\"status\":\"done\",\"created_unix_ms\":5,"
		"\"arms\":[{\"letter\":\"A\"}],\"runs\":[{\"arm\":\"A\",\"round\":1,"
		"\"position\":1,\"is_warmup\":false,\"status\":\"done\",\"start_unix_ms\":6,"
		"\"end_unix_ms\":7,\"metrics\":{\"real_fps\":60}}]},"
		"{\"name\":\"n\",\"host\":\"oled\",\"window_start_s\":0,\"window_end_s\":2,"
		"\"rounds\":1,\"warmup\":false,\"status\":\"open\",\"created_unix_ms\":5,"
		"\"arms\":[{\"letter\":\"A\"}],\"runs\":[{\"arm\":\"A\",\"round\":1,"
		"\"position\":1,\"is_warmup\":false,\"status\":\"planned\"}]}]}";
	struct tdb t = { 0 };
	tdb_dir(&t);
	assert_int_equal(db_open(t.path, &t.db), 0);
	struct db_import_report r = { 0 };
	assert_int_equal(import_report(t.db, doc, &r), 0);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.items[0].action, DB_IMPORT_ADDED);
	assert_int_equal(r.items[1].action, DB_IMPORT_QUALIFIED);
	assert_string_equal(r.items[1].stored_as, "n@oled");
	assert_true(r.items[1].partial);
	assert_int_equal(r.items[1].runs_finished, 0);
	free(r.items);
	assert_int_equal(import_report(t.db, doc, &r), 0);
	assert_int_equal(r.items[0].action, DB_IMPORT_SAME);
	assert_int_equal(r.items[1].action, DB_IMPORT_SAME);
	free(r.items);
	assert_int_equal(count_campaigns(t.db), 2);
	tdb_cleanup(&t);
}

static void test_import__same_campaign_other_results_is_refused(void **state)
{
	struct tdb a = { 0 };
	fill(&a);
	char *doc = export_text(a.db, a.campaign);
	char *changed = replaced(doc, "\"exit_status\":137", "\"exit_status\":136");
	size_t n = 99;
	assert_int_equal(import_text(a.db, changed, &n), -EEXIST);
	assert_int_equal(n, 99);
	assert_non_null(strstr(db_errmsg(a.db), "night.json: campaigns[0]: campaign 'c1' of host "
	                                        "'unknown-host' is already in"));
	assert_int_equal(count_campaigns(a.db), 1);
	free(changed);
	free(doc);
	tdb_cleanup(&a);
}

static void test_import__syntax_error_names_line_and_column(void **state)
{
	struct tdb t = { 0 };
	tdb_dir(&t);
	assert_int_equal(db_open(t.path, &t.db), 0);
	assert_int_equal(import_text(t.db, "{\"format\": \"rxdeck-results\",\n  \"campaigns\": [,]}",
	                             NULL), -EINVAL);
	assert_non_null(strstr(db_errmsg(t.db), "night.json:2:"));
	assert_int_equal(import_text(t.db, "[]", NULL), -EINVAL);
	assert_non_null(strstr(db_errmsg(t.db), "expected an rxdeck export"));
	assert_int_equal(import_text(t.db, "{\"format\": \"other\"}", NULL), -EINVAL);
	assert_string_equal(db_errmsg(t.db), "night.json: format: 'other' is not 'rxdeck-results'");
	assert_int_equal(import_text(t.db, "{\"format\": \"rxdeck-results\", \"schema_version\": 9,"
	                                   " \"campaigns\": []}", NULL), -ENOTSUP);
	tdb_cleanup(&t);
}

static void test_import__bad_content_names_its_path_and_adds_nothing(void **state)
{
	struct tdb a = { 0 }, b = { 0 };
	fill(&a);
	char *doc = export_text(a.db, 0);
	tdb_dir(&b);
	assert_int_equal(db_open(b.path, &b.db), 0);

	/* A second, good campaign first, then the first one's run 2 names
	 * an arm that does not exist: neither may be added. */
	char *two = NULL;
	const char *campaigns = strstr(doc, "\"campaigns\":[") + strlen("\"campaigns\":[");
	const char *posts = strstr(doc, "],\n\"posts\":[\n{\"forge_url\":\"http://f\",\"repo\":\"o/r\",\"issue_index\":4");
	assert_non_null(posts);
	int len = (int)(posts - campaigns);
	assert_true(asprintf(&two, "{\"format\":\"rxdeck-results\",\"schema_version\":2,"
	                           "\"campaigns\":[%.*s,%.*s]}", len, campaigns, len, campaigns) > 0);
	/* Rename the first copy so names do not clash. */
	char *name = strstr(two, "\"name\":\"c1\"");
	name[9] = '0';
	char *arm = strstr(strstr(two, "\"name\":\"c1\""), "\"arm\":\"B\"");
	arm[7] = 'E';
	size_t n = 7;
	assert_int_equal(import_text(b.db, two, &n), -EINVAL);
	assert_int_equal(n, 7);
	assert_string_equal(db_errmsg(b.db),
	                    "night.json: campaigns[1].runs[1].arm: no arm 'E' in this campaign");
	struct db_campaign *list;
	assert_int_equal(db_campaign_list(b.db, &list, &n), 0);
	assert_int_equal(n, 0);
	free(list);

	/* A campaign name that is a path (it names the run folder). */
	const char *bad_names[] = { "../../x", "..", ".hidden", "a/b" };
	for (size_t i = 0; i < sizeof bad_names / sizeof *bad_names; i++) {
		free(two);
		two = NULL;
		char *at = strstr(doc, "\"name\":\"c1\"");
		assert_non_null(at);
		assert_true(asprintf(&two, "%.*s\"name\":\"%s\"%s", (int)(at - doc), doc, bad_names[i],
		                     at + strlen("\"name\":\"c1\"")) > 0);
		assert_int_equal(import_text(b.db, two, NULL), -EINVAL);
		char want[128];
		snprintf(want, sizeof want, "night.json: campaigns[0].name: bad campaign name '%s': it "
		         "names a folder", bad_names[i]);
		if (!strstr(db_errmsg(b.db), want))
			fail_msg("%s", db_errmsg(b.db));
	}
	assert_int_equal(db_campaign_list(b.db, &list, &n), 0);
	assert_int_equal(n, 0);
	free(list);

	/* A frame row of the wrong shape. */
	free(two);
	two = strdup(doc);
	char *frame = strstr(two, ",\"shown\",");
	memcpy(frame, ",\"SHOWN\",", 9);
	assert_int_equal(import_text(b.db, two, NULL), -EINVAL);
	assert_non_null(strstr(db_errmsg(b.db), "campaigns[0].runs[0]: frames[1]: expected"));
	assert_int_equal(db_campaign_list(b.db, &list, &n), 0);
	assert_int_equal(n, 0);
	free(list);
	free(two);
	free(doc);
	tdb_cleanup(&a);
	tdb_cleanup(&b);
}

static void test_export__one_campaign_only(void **state)
{
	struct tdb a = { 0 };
	fill(&a);
	int64_t other;
	assert_int_equal(db_campaign_create(a.db, &(struct db_campaign){ .name = "zzz-other" },
	                                    &other), 0);
	char *one = export_text(a.db, a.campaign);
	assert_null(strstr(one, "zzz-other"));
	assert_null(strstr(one, "loose")); /* campaign-less posts only in a full export */
	char *all = export_text(a.db, 0);
	assert_non_null(strstr(all, "zzz-other"));
	assert_non_null(strstr(all, "loose"));
	free(one);
	free(all);
	FILE *f = fopen("/dev/full", "w");
	if (f) {
		assert_int_equal(db_export(a.db, 0, f), -EIO);
		assert_non_null(strstr(db_errmsg(a.db), "cannot write the export"));
		fclose(f);
	}
	tdb_cleanup(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_export_import__round_trip_gives_the_same_document),
		cmocka_unit_test(test_import__same_export_twice_adds_nothing),
		cmocka_unit_test(test_import__same_name_of_another_host_is_host_qualified),
		cmocka_unit_test(test_import__partial_merges_says_so_and_gives_way_to_more_runs),
		cmocka_unit_test(test_import__sparse_document_merges_exactly),
		cmocka_unit_test(test_import__same_campaign_other_results_is_refused),
		cmocka_unit_test(test_import__syntax_error_names_line_and_column),
		cmocka_unit_test(test_import__bad_content_names_its_path_and_adds_nothing),
		cmocka_unit_test(test_export__one_campaign_only),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
