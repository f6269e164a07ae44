/* test-report-across: `rxdeck report --across` from known campaigns.
 *
 * Two Decks' campaigns of one plan, "night-7" on host deck-lcd and the same
 * name from deck-oled imported beside it (so stored as night-7@deck-oled),
 * each with host facts and eight runs ABBA ABBA whose real fps and p99 are
 * chosen: on the LCD arm B is the same as A, on the OLED it is a third
 * slower (or, for the control, the same).  Checked: the names resolve to
 * both campaigns; the header carries each device's facts; the Markdown,
 * JSON and HTML say the effect differs and name deck-oled (and "same" for
 * the control); a partial campaign is marked; other plans and CSV are
 * refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <jansson.h>

#include "report/report-across.h"
#include "test-report-util.h"

static const char *const labels[] = { "as it is", "early readback" };

/* Eight runs ABBA ABBA: A at a_fps, B at b_fps, each run off by a fixed
 * pattern of at most 0.4 % so the arms have a spread; p99 the frame time
 * of the fps times 1.5. */
static void runs(struct trep *t, double a_fps, double b_fps)
{
	static const double wobble[8] = { 0.003, -0.002, 0.001, -0.004, 0.002, 0.004, -0.001, -0.003 };
	static const int arm[8] = { 0, 1, 1, 0, 1, 0, 0, 1 };
	for (int i = 0; i < 8; i++) {
		double fps = (arm[i] ? b_fps : a_fps) * (1 + wobble[i]);
		trep_run(t, arm[i], 1 + i / 4, NULL, "real_fps", fps, "p99_ms", 1500.0 / fps, NULL);
	}
}

static void facts(struct trep *t, const char *host, const char *model, const char *mesa,
                  const char *level, double tdp)
{
	char text[512];
	snprintf(text, sizeof text,
	         "{\"device_model\":\"%s\",\"host\":\"%s\",\"os\":\"SteamOS\",\"os_version\":"
	         "\"3.6.19\",\"os_build\":\"20241001.1\",\"kernel\":\"6.5.0-valve22\",\"mesa\":"
	         "\"%s\",\"gpu_level\":\"%s\",\"tdp_w\":%g}", model, host, mesa, level, tdp);
	assert_int_equal(db_host_facts_add(t->db, t->campaign, &(struct db_host_facts){
	                 .at_unix_ms = TREP_CREATED_MS, .event = "start", .facts = text }), 0);
}

static void set_host(struct trep *t, const char *host, const char *model)
{
	struct db_campaign *c;
	assert_int_equal(db_campaign_get(t->db, t->campaign, &c), 0);
	c->host = host;
	c->device_model = model;
	assert_int_equal(db_campaign_update(t->db, c), 0);
	free(c);
	assert_int_equal(db_campaign_set_status(t->db, t->campaign, DB_CAMPAIGN_DONE, TREP_FINISHED_MS), 0);
}

/* The LCD's night in lcd; the OLED's made apart and imported into it. */
static void fleet(struct trep *lcd, double oled_b_fps, bool oled_partial)
{
	trep_open(lcd, "night-7", 2, labels, NULL);
	set_host(lcd, "deck-lcd", "Steam Deck LCD");
	facts(lcd, "deck-lcd", "Steam Deck LCD", "24.1.3", "auto", 15);
	runs(lcd, 60, 60);
	/* the LCD's GPU clock sampled: 1600 MHz in its baseline's runs */
	struct db_run *r;
	size_t nr;
	assert_int_equal(db_run_list(lcd->db, lcd->campaign, &r, &nr), 0);
	for (size_t i = 0; i < nr; i++) {
		struct db_sample s[3] = { { 1, "gpu_sclk_mhz", 1600, false },
		                          { 2, "gpu_sclk_mhz", r[i].arm_letter == 'A' ? 1600 : 800, false },
		                          { 3, "gpu_sclk_mhz", 1200, false } };
		assert_int_equal(db_samples_store(lcd->db, r[i].id, s, 3), 0);
	}
	free(r);

	struct trep oled = { 0 };
	trep_open(&oled, "night-7", 2, labels, NULL);
	set_host(&oled, "deck-oled", "Steam Deck OLED");
	facts(&oled, "deck-oled", "Steam Deck OLED", "24.2.0", "manual", 12);
	runs(&oled, 90, oled_b_fps);
	if (oled_partial) {
		struct db_run plan = { .arm_id = oled.arm[0], .round = 3, .position = 99 };
		assert_int_equal(db_run_plan(oled.db, oled.campaign, &plan, 1), 0);
	}
	char *doc = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&doc, &len);
	assert_int_equal(db_export(oled.db, oled.campaign, f), 0);
	fclose(f);
	trep_cleanup(&oled);
	f = fmemopen(doc, len, "r");
	size_t n = 0;
	assert_int_equal(db_import(lcd->db, f, "oled.json", &n), 0);
	assert_int_equal(n, 1);
	fclose(f);
	free(doc);
}

/* The report of "night-7" across devices in format, as text. */
static char *across(struct trep *t, enum report_format format, int *err)
{
	int64_t *ids;
	size_t n;
	char msg[512];
	char *names[] = { "night-7" };
	assert_int_equal(report_across_resolve(t->db, names, 1, &ids, &n, msg, sizeof msg), 0);
	assert_int_equal(n, 2);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct report_options ro = { .format = format, .errmsg = msg, .errmsg_size = sizeof msg };
	*err = report_across_print(t->db, ids, n, &ro, f);
	fclose(f);
	free(ids);
	if (*err)
		printf("report_across_print: %s\n", msg);
	return text;
}

static void test_across__names_the_device_that_differs(void **state)
{
	(void)state;
	struct trep t = { 0 };
	fleet(&t, 60, false);  /* the OLED's B: 90 -> 60 fps, a third slower */
	int err;
	char *md = across(&t, REPORT_FORMAT_MD, &err);
	assert_int_equal(err, 0);
	assert_non_null(strstr(md, "# Across devices: night-7 on 2 devices, baseline A"));
	assert_non_null(strstr(md, "| | deck-lcd | deck-oled |"));
	assert_non_null(strstr(md, "| campaign | `night-7` | `night-7@deck-oled` |"));
	assert_non_null(strstr(md, "| device | Steam Deck LCD | Steam Deck OLED |"));
	assert_non_null(strstr(md, "| OS | SteamOS 3.6.19 build 20241001.1 |"));
	assert_non_null(strstr(md, "| Mesa | 24.1.3 | 24.2.0 |"));
	assert_non_null(strstr(md, "| GPU level, TDP, clock | auto, 15 W, 1600 MHz | manual, 12 W, - |"));
	assert_non_null(strstr(md, "| runs | 8 of 8 finished | 8 of 8 finished |"));
	assert_non_null(strstr(md, "real fps: **differs by device: deck-oled** is 33."));
	assert_non_null(strstr(md, "points below the others (deck-lcd -0.1 % same and deck-oled -33."));
	assert_non_null(strstr(md, "% slower;"));
	assert_non_null(strstr(md, "| real fps (primary) |"));
	assert_non_null(strstr(md, "| differs: deck-oled -33."));
	assert_null(strstr(md, "Partial:"));
	free(md);

	char *js = across(&t, REPORT_FORMAT_JSON, &err);
	assert_int_equal(err, 0);
	json_error_t je;
	json_t *doc = json_loads(js, 0, &je);
	assert_non_null(doc);
	assert_true(json_is_true(json_object_get(doc, "across")));
	json_t *devs = json_object_get(doc, "devices");
	assert_int_equal(json_array_size(devs), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(devs, 1), "campaign")),
	                    "night-7@deck-oled");
	assert_true(json_number_value(json_object_get(json_array_get(devs, 1), "tdp_w")) == 12);
	json_t *b = json_array_get(json_object_get(doc, "arms"), 0);
	assert_string_equal(json_string_value(json_object_get(b, "letter")), "B");
	json_t *fps = json_object_get(json_object_get(b, "metrics"), "real_fps");
	json_t *ac = json_object_get(fps, "across");
	assert_string_equal(json_string_value(json_object_get(ac, "state")), "differs");
	assert_string_equal(json_string_value(json_object_get(ac, "odd_device")), "deck-oled");
	double diff = json_number_value(json_object_get(ac, "odd_diff_pct"));
	assert_true(diff < -32 && diff > -35);
	json_t *oled = json_array_get(json_object_get(fps, "devices"), 1);
	assert_string_equal(json_string_value(json_object_get(oled, "state")), "slower");
	assert_true(json_array_size(json_object_get(doc, "headline")) == 2);
	json_decref(doc);
	free(js);

	char *html = across(&t, REPORT_FORMAT_HTML, &err);
	assert_int_equal(err, 0);
	assert_non_null(strstr(html, "<td class=\"differs\">differs: deck-oled -33."));
	assert_non_null(strstr(html, "<strong>differs by device: deck-oled</strong>"));
	assert_non_null(strstr(html, "<th>GPU level, TDP, clock</th><td>auto, 15 W, 1600 MHz</td><td>manual, 12 W, -</td>"));
	free(html);
	trep_cleanup(&t);
}

static void test_across__same_effect_is_same(void **state)
{
	(void)state;
	struct trep t = { 0 };
	fleet(&t, 90, true);  /* the OLED's B as its A; one run of its not finished */
	int err;
	char *md = across(&t, REPORT_FORMAT_MD, &err);
	assert_int_equal(err, 0);
	assert_non_null(strstr(md, "real fps: **the same on every device**"));
	assert_null(strstr(md, "differs by device"));
	assert_non_null(strstr(md, "| runs | 8 of 8 finished | 8 of 9 finished (partial) |"));
	assert_non_null(strstr(md, "Partial: deck-oled finished 8 of its 9 runs"));
	free(md);
	trep_cleanup(&t);
}

static void test_across__refuses_other_plans_csv_and_single_campaigns(void **state)
{
	(void)state;
	struct trep t = { 0 };
	fleet(&t, 60, false);
	int err;
	char *csv = across(&t, REPORT_FORMAT_CSV, &err);
	assert_int_equal(err, -EINVAL);
	free(csv);
	/* another plan: refused, naming both */
	struct db_campaign *c;
	assert_int_equal(db_campaign_find(t.db, "night-7@deck-oled", &c), 0);
	c->plan_text = "[campaign]\nname = other\n";
	assert_int_equal(db_campaign_update(t.db, c), 0);
	free(c);
	int64_t *ids;
	size_t n;
	char msg[512];
	char *names[] = { "night-7" };
	assert_int_equal(report_across_resolve(t.db, names, 1, &ids, &n, msg, sizeof msg), 0);
	struct report_options ro = { .errmsg = msg, .errmsg_size = sizeof msg };
	FILE *null = fopen("/dev/null", "w");
	assert_int_equal(report_across_print(t.db, ids, n, &ro, null), -EINVAL);
	assert_non_null(strstr(msg, "campaigns 'night-7' and 'night-7@deck-oled' ran different plans"));
	fclose(null);
	free(ids);
	/* names that match nothing, or one campaign */
	char *nope[] = { "night-8" };
	assert_int_equal(report_across_resolve(t.db, nope, 1, &ids, &n, msg, sizeof msg), -ENOENT);
	assert_non_null(strstr(msg, "no campaign 'night-8' (nor 'night-8@HOST')"));
	char *one[] = { "night-7@deck-oled" };
	assert_int_equal(report_across_resolve(t.db, one, 1, &ids, &n, msg, sizeof msg), -EINVAL);
	assert_non_null(strstr(msg, "--across needs two campaigns or more"));
	char *both[] = { "night-7@deck-oled", "night-7" };
	assert_int_equal(report_across_resolve(t.db, both, 2, &ids, &n, msg, sizeof msg), 0);
	assert_int_equal(n, 2);
	free(ids);
	trep_cleanup(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_across__names_the_device_that_differs),
		cmocka_unit_test(test_across__same_effect_is_same),
		cmocka_unit_test(test_across__refuses_other_plans_csv_and_single_campaigns),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
