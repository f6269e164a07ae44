/* results-db: campaigns, builds, arms and route marks. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test-db-util.h"

static void test_campaign__create_find_round_trips_every_field(void **state)
{
	struct tdb t = { 0 };
	tdb_dir(&t);
	assert_int_equal(db_open(t.path, &t.db), 0);
	struct db_campaign in = {
		.name = "night-1", .plan_text = "[plan]\nroute = kokiri\n", .host = "steamdeck",
		.device_model = "Steam Deck OLED", .os = "SteamOS 3.6.19", .kernel = "6.5.0-valve22",
		.cpu = "AMD Custom APU 0932", .memory_B = 16LL << 30, .gpu = "AMD Custom GPU 0932",
		.driver = "radv Mesa 24.1.3", .mesa = "24.1.3", .notes = "fan at max",
		.route_name = "kokiri-moving", .route_text = "route kokiri-moving\n",
		.window_start_s = 30.5, .window_end_s = 110.25, .order = "ABCDDCBA", .rounds = 4,
		.warmup = true, .status = DB_CAMPAIGN_DONE, /* ignored on create */
		.created_unix_ms = 1750000000123, .finished_unix_ms = 99,
	};
	int64_t id;
	assert_int_equal(db_campaign_create(t.db, &in, &id), 0);
	assert_true(id > 0);
	struct db_campaign *c;
	assert_int_equal(db_campaign_find(t.db, "night-1", &c), 0);
	assert_int_equal(c->id, id);
	assert_string_equal(c->plan_text, in.plan_text);
	assert_string_equal(c->host, "steamdeck");
	assert_string_equal(c->device_model, "Steam Deck OLED");
	assert_string_equal(c->os, in.os);
	assert_string_equal(c->kernel, in.kernel);
	assert_string_equal(c->cpu, in.cpu);
	assert_int_equal(c->memory_B, 16LL << 30);
	assert_string_equal(c->gpu, in.gpu);
	assert_string_equal(c->driver, in.driver);
	assert_string_equal(c->mesa, "24.1.3");
	assert_string_equal(c->notes, "fan at max");
	assert_string_equal(c->route_name, "kokiri-moving");
	assert_string_equal(c->route_text, in.route_text);
	assert_true(c->window_start_s == 30.5 && c->window_end_s == 110.25);
	assert_string_equal(c->order, "ABCDDCBA");
	assert_int_equal(c->rounds, 4);
	assert_true(c->warmup);
	assert_int_equal(c->status, DB_CAMPAIGN_OPEN);
	assert_int_equal(c->created_unix_ms, 1750000000123);
	assert_int_equal(c->finished_unix_ms, 0);
	free(c);

	struct db_campaign *by_id;
	assert_int_equal(db_campaign_get(t.db, id, &by_id), 0);
	assert_string_equal(by_id->name, "night-1");
	free(by_id);
	tdb_cleanup(&t);
}

static void test_campaign__bad_input_is_refused_with_a_message(void **state)
{
	struct tdb t = { 0 };
	tdb_dir(&t);
	assert_int_equal(db_open(t.path, &t.db), 0);
	int64_t id = -5;
	assert_int_equal(db_campaign_create(t.db, &(struct db_campaign){ .name = "" }, &id), -EINVAL);
	assert_string_equal(db_errmsg(t.db), "a campaign needs a name");
	assert_int_equal(db_campaign_create(t.db, &(struct db_campaign){ .name = "w",
	                 .window_start_s = 110, .window_end_s = 30 }, &id), -EINVAL);
	assert_non_null(strstr(db_errmsg(t.db), "campaign 'w': window 110 s to 30 s"));
	assert_int_equal(id, -5);
	assert_int_equal(db_campaign_create(t.db, &(struct db_campaign){ .name = "x" }, &id), 0);
	int64_t id2 = -5;
	assert_int_equal(db_campaign_create(t.db, &(struct db_campaign){ .name = "x" }, &id2),
	                 -EEXIST);
	assert_string_equal(db_errmsg(t.db), "campaign 'x' already exists");
	assert_int_equal(id2, -5);
	struct db_campaign *c = (struct db_campaign *)&t;
	assert_int_equal(db_campaign_find(t.db, "nope", &c), -ENOENT);
	assert_ptr_equal(c, (struct db_campaign *)&t);
	assert_non_null(strstr(db_errmsg(t.db), "no campaign 'nope'"));
	tdb_cleanup(&t);
}

static void test_campaign__list_is_newest_first(void **state)
{
	struct tdb t = { 0 };
	tdb_dir(&t);
	assert_int_equal(db_open(t.path, &t.db), 0);
	struct db_campaign *list;
	size_t n = 99;
	assert_int_equal(db_campaign_list(t.db, &list, &n), 0);
	assert_int_equal(n, 0);
	assert_non_null(list);
	free(list);
	int64_t id;
	assert_int_equal(db_campaign_create(t.db, &(struct db_campaign){ .name = "mid",
	                 .created_unix_ms = 2000 }, &id), 0);
	assert_int_equal(db_campaign_create(t.db, &(struct db_campaign){ .name = "old",
	                 .created_unix_ms = 1000 }, &id), 0);
	assert_int_equal(db_campaign_create(t.db, &(struct db_campaign){ .name = "new",
	                 .created_unix_ms = 3000 }, &id), 0);
	assert_int_equal(db_campaign_list(t.db, &list, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(list[0].name, "new");
	assert_string_equal(list[1].name, "mid");
	assert_string_equal(list[2].name, "old");
	free(list);
	tdb_cleanup(&t);
}

static void test_campaign__update_and_status(void **state)
{
	struct tdb t = { 0 };
	tdb_open_campaign(&t);
	struct db_campaign *c;
	assert_int_equal(db_campaign_get(t.db, t.campaign, &c), 0);
	struct db_campaign u = *c;
	u.mesa = "24.2.0";
	u.rounds = 6;
	u.notes = NULL;
	assert_int_equal(db_campaign_update(t.db, &u), 0);
	free(c);
	assert_int_equal(db_campaign_get(t.db, t.campaign, &c), 0);
	assert_string_equal(c->mesa, "24.2.0");
	assert_int_equal(c->rounds, 6);
	assert_string_equal(c->order, "ABBA");
	free(c);

	assert_int_equal(db_campaign_set_status(t.db, t.campaign, DB_CAMPAIGN_DONE, 1234), 0);
	assert_int_equal(db_campaign_get(t.db, t.campaign, &c), 0);
	assert_int_equal(c->status, DB_CAMPAIGN_DONE);
	assert_int_equal(c->finished_unix_ms, 1234);
	free(c);
	assert_int_equal(db_campaign_set_status(t.db, t.campaign, DB_CAMPAIGN_OPEN, 0), 0);
	assert_int_equal(db_campaign_get(t.db, t.campaign, &c), 0);
	assert_int_equal(c->finished_unix_ms, 0);
	free(c);
	assert_int_equal(db_campaign_set_status(t.db, 999, DB_CAMPAIGN_DONE, 0), -ENOENT);
	/* u's strings pointed into a c freed above: a fresh copy */
	assert_int_equal(db_campaign_get(t.db, t.campaign, &c), 0);
	u = *c;
	u.id = 999;
	assert_int_equal(db_campaign_update(t.db, &u), -ENOENT);
	free(c);
	tdb_cleanup(&t);
}

static void test_build_arm__add_list_and_links(void **state)
{
	struct tdb t = { 0 };
	tdb_open_campaign(&t);
	int64_t b1, b2, other, arm;
	assert_int_equal(db_build_add(t.db, &(struct db_build){ .campaign_id = t.campaign,
	                 .label = "main", .commit = "0a4d428", .path = "/opt/rx/librxvk.so",
	                 .sha256 = "e3b0c442" }, &b1), 0);
	assert_int_equal(db_build_add(t.db, &(struct db_build){ .campaign_id = t.campaign,
	                 .label = "early", .commit = "10a2316" }, &b2), 0);
	assert_int_equal(db_build_add(t.db, &(struct db_build){ .campaign_id = t.campaign,
	                 .label = "main" }, &other), -EEXIST);
	struct db_build *b;
	size_t n;
	assert_int_equal(db_build_list(t.db, t.campaign, &b, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(b[0].label, "main");
	assert_string_equal(b[0].path, "/opt/rx/librxvk.so");
	assert_string_equal(b[0].sha256, "e3b0c442");
	assert_string_equal(b[1].commit, "10a2316");
	assert_null(b[1].path);
	free(b);

	assert_int_equal(db_arm_add(t.db, &(struct db_arm){ .campaign_id = t.campaign,
	                 .letter = 'D', .label = "both", .build_id = b2 }, &arm), 0);
	assert_int_equal(db_arm_add(t.db, &(struct db_arm){ .campaign_id = t.campaign,
	                 .letter = 'C', .build_id = b1 }, &arm), 0);
	assert_int_equal(db_arm_add(t.db, &(struct db_arm){ .campaign_id = t.campaign,
	                 .letter = 'A' }, &arm), -EEXIST);
	assert_int_equal(db_arm_add(t.db, &(struct db_arm){ .campaign_id = t.campaign,
	                 .letter = 'e' }, &arm), -EINVAL);
	assert_non_null(strstr(db_errmsg(t.db), "arm letter 'e'"));

	/* A build of another campaign cannot be an arm's build. */
	int64_t c2, b_other;
	assert_int_equal(db_campaign_create(t.db, &(struct db_campaign){ .name = "c2" }, &c2), 0);
	assert_int_equal(db_build_add(t.db, &(struct db_build){ .campaign_id = c2, .label = "x" },
	                              &b_other), 0);
	assert_int_equal(db_arm_add(t.db, &(struct db_arm){ .campaign_id = t.campaign,
	                 .letter = 'E', .build_id = b_other }, &arm), -ENOENT);

	struct db_arm *a;
	assert_int_equal(db_arm_list(t.db, t.campaign, &a, &n), 0);
	assert_int_equal(n, 4);
	assert_int_equal(a[0].letter, 'A');
	assert_int_equal(a[1].letter, 'B');
	assert_string_equal(a[1].env, "RX_VK_READBACK_EARLY=1");
	assert_int_equal(a[2].letter, 'C');
	assert_int_equal(a[2].build_id, b1);
	assert_int_equal(a[3].letter, 'D');
	assert_int_equal(a[3].build_id, b2);
	assert_int_equal(a[0].build_id, 0);
	free(a);
	tdb_cleanup(&t);
}

static void test_route_marks__replace_and_read_in_time_order(void **state)
{
	struct tdb t = { 0 };
	tdb_open_campaign(&t);
	struct db_route_mark m[] = {
		{ .t_s = 110, .name = "window-end", .kind = "window" },
		{ .t_s = 30, .name = "window-start", .kind = "window" },
		{ .t_s = 45.5, .name = "forest-entrance", .kind = "shot" },
	};
	assert_int_equal(db_route_marks_store(t.db, t.campaign, m, 3), 0);
	struct db_route_mark *r;
	size_t n;
	assert_int_equal(db_route_marks_read(t.db, t.campaign, &r, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(r[0].name, "window-start");
	assert_string_equal(r[1].name, "forest-entrance");
	assert_string_equal(r[1].kind, "shot");
	assert_true(r[2].t_s == 110);
	free(r);
	struct db_route_mark one = { .t_s = 1, .name = "only" };
	assert_int_equal(db_route_marks_store(t.db, t.campaign, &one, 1), 0);
	assert_int_equal(db_route_marks_read(t.db, t.campaign, &r, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(r[0].kind, "mark");
	free(r);
	assert_int_equal(db_route_marks_store(t.db, 4242, &one, 1), -ENOENT);
	tdb_cleanup(&t);
}

static void test_campaign__delete_takes_everything_it_owns(void **state)
{
	struct tdb t = { 0 };
	tdb_open_campaign(&t);
	int64_t ids[4];
	tdb_plan_abba(&t, ids);
	assert_int_equal(db_run_mark_running(t.db, ids[0], 0, NULL), 0);
	struct db_metric m = { "real_fps", 40 };
	assert_int_equal(db_run_store_results(t.db, ids[0], &(struct db_run_results){
	                 .metrics = &m, .n_metrics = 1, .status = DB_RUN_DONE }), 0);
	int64_t post;
	assert_int_equal(db_post_enqueue(t.db, &(struct db_post){ .campaign_id = t.campaign,
	                 .forge_url = "http://f", .repo = "o/r", .issue_index = 1, .body = "b" },
	                 &post), 0);
	assert_int_equal(db_campaign_delete(t.db, t.campaign), 0);
	struct db_run *r;
	assert_int_equal(db_run_get(t.db, ids[0], &r), -ENOENT);
	double v;
	assert_int_equal(db_metric_get(t.db, ids[0], "real_fps", &v), -ENOENT);
	struct db_arm *a;
	size_t n;
	assert_int_equal(db_arm_list(t.db, t.campaign, &a, &n), 0);
	assert_int_equal(n, 0);
	free(a);
	/* The post stays, with no campaign. */
	struct db_post *p;
	assert_int_equal(db_post_list(t.db, 0, &p, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(p[0].campaign_id, 0);
	free(p);
	assert_int_equal(db_campaign_delete(t.db, t.campaign), -ENOENT);
	tdb_cleanup(&t);
}

static void test_status_names__round_trip(void **state)
{
	for (int s = DB_RUN_PLANNED; s <= DB_RUN_VOID; s++) {
		enum db_run_status back;
		assert_int_equal(db_run_status_parse(db_run_status_name(s), &back), 0);
		assert_int_equal(back, s);
	}
	enum db_run_status rs = DB_RUN_DONE;
	assert_int_equal(db_run_status_parse("finished", &rs), -EINVAL);
	assert_int_equal(rs, DB_RUN_DONE);
	assert_string_equal(db_run_status_name(DB_RUN_VOID), "void");
	assert_string_equal(db_campaign_status_name(DB_CAMPAIGN_STOPPED), "stopped");
	assert_string_equal(db_post_state_name(DB_POST_FAILED), "failed");
	enum db_post_state ps;
	assert_int_equal(db_post_state_parse("sent", &ps), 0);
	assert_int_equal(ps, DB_POST_SENT);
	enum db_campaign_status cs;
	assert_int_equal(db_campaign_status_parse("open", &cs), 0);
	assert_int_equal(cs, DB_CAMPAIGN_OPEN);
	assert_int_equal(db_campaign_status_parse(NULL, &cs), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_campaign__create_find_round_trips_every_field),
		cmocka_unit_test(test_campaign__bad_input_is_refused_with_a_message),
		cmocka_unit_test(test_campaign__list_is_newest_first),
		cmocka_unit_test(test_campaign__update_and_status),
		cmocka_unit_test(test_build_arm__add_list_and_links),
		cmocka_unit_test(test_route_marks__replace_and_read_in_time_order),
		cmocka_unit_test(test_campaign__delete_takes_everything_it_owns),
		cmocka_unit_test(test_status_names__round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
