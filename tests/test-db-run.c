/* results-db: planning runs, the order they come in, and their states
 * (planned -> running -> done | void), including resume after a crash. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test-db-util.h"

static void test_run_plan__list_is_in_position_order(void **state)
{
	struct tdb t = { 0 };
	tdb_open_campaign(&t);
	/* Planned out of order, with a warm-up at position 1. */
	struct db_run plan[] = {
		{ .arm_id = t.arm_b, .round = 1, .position = 3 },
		{ .arm_id = t.arm_a, .round = 0, .position = 1, .is_warmup = true },
		{ .arm_id = t.arm_a, .round = 1, .position = 2 },
	};
	assert_int_equal(db_run_plan(t.db, t.campaign, plan, 3), 0);
	struct db_run *r;
	size_t n;
	assert_int_equal(db_run_list(t.db, t.campaign, &r, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(r[0].position, 1);
	assert_true(r[0].is_warmup);
	assert_int_equal(r[0].round, 0);
	assert_int_equal(r[0].arm_letter, 'A');
	assert_int_equal(r[1].position, 2);
	assert_false(r[1].is_warmup);
	assert_int_equal(r[2].arm_letter, 'B');
	assert_int_equal(r[2].arm_id, t.arm_b);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(r[i].status, DB_RUN_PLANNED);
		assert_int_equal(r[i].campaign_id, t.campaign);
		assert_int_equal(r[i].start_unix_ms, 0);
		assert_int_equal(r[i].exit_status, -1);
		assert_null(r[i].void_reason);
	}
	free(r);
	tdb_cleanup(&t);
}

static void test_run_plan__is_all_or_nothing(void **state)
{
	struct tdb t = { 0 };
	tdb_open_campaign(&t);
	int64_t c2, foreign_arm;
	assert_int_equal(db_campaign_create(t.db, &(struct db_campaign){ .name = "c2" }, &c2), 0);
	assert_int_equal(db_arm_add(t.db, &(struct db_arm){ .campaign_id = c2, .letter = 'A' },
	                            &foreign_arm), 0);
	struct db_run dup[] = {
		{ .arm_id = t.arm_a, .round = 1, .position = 1 },
		{ .arm_id = t.arm_b, .round = 1, .position = 1 },
	};
	assert_int_equal(db_run_plan(t.db, t.campaign, dup, 2), -EEXIST);
	assert_non_null(strstr(db_errmsg(t.db), "position 1 is already planned"));
	struct db_run foreign[] = {
		{ .arm_id = t.arm_a, .round = 1, .position = 1 },
		{ .arm_id = foreign_arm, .round = 1, .position = 2 },
	};
	assert_int_equal(db_run_plan(t.db, t.campaign, foreign, 2), -EINVAL);
	assert_non_null(strstr(db_errmsg(t.db), "is not an arm of campaign"));
	struct db_run bad_pos = { .arm_id = t.arm_a, .round = 1, .position = 0 };
	assert_int_equal(db_run_plan(t.db, t.campaign, &bad_pos, 1), -EINVAL);
	struct db_run *r;
	size_t n;
	assert_int_equal(db_run_list(t.db, t.campaign, &r, &n), 0);
	assert_int_equal(n, 0);
	free(r);
	tdb_cleanup(&t);
}

static void test_run_next__resumes_at_first_unfinished_in_position_order(void **state)
{
	struct tdb t = { 0 };
	tdb_open_campaign(&t);
	int64_t ids[4];
	tdb_plan_abba(&t, ids);
	struct db_run *next;
	assert_int_equal(db_run_next(t.db, t.campaign, &next), 0);
	assert_int_equal(next->id, ids[0]);
	free(next);

	assert_int_equal(db_run_mark_running(t.db, ids[0], 1000, "/runs/1"), 0);
	assert_int_equal(db_run_mark_done(t.db, ids[0], 2000, 0), 0);
	assert_int_equal(db_run_mark_running(t.db, ids[1], 3000, "/runs/2"), 0);
	/* The harness dies here.  On resume the cut-short run comes first. */
	db_close(t.db);
	assert_int_equal(db_open(t.path, &t.db), 0);
	assert_int_equal(db_run_next(t.db, t.campaign, &next), 0);
	assert_int_equal(next->id, ids[1]);
	assert_int_equal(next->status, DB_RUN_RUNNING);
	assert_string_equal(next->run_dir, "/runs/2");
	free(next);
	/* It runs again: running -> running with a new start and folder. */
	assert_int_equal(db_run_mark_running(t.db, ids[1], 5000, "/runs/2b"), 0);
	assert_int_equal(db_run_mark_void(t.db, ids[1], "hung: no frame for 10 s", 6000, 137), 0);
	assert_int_equal(db_run_next(t.db, t.campaign, &next), 0);
	assert_int_equal(next->id, ids[2]);
	free(next);
	assert_int_equal(db_run_mark_running(t.db, ids[2], 0, NULL), 0);
	assert_int_equal(db_run_mark_done(t.db, ids[2], 0, 0), 0);
	assert_int_equal(db_run_mark_running(t.db, ids[3], 0, NULL), 0);
	assert_int_equal(db_run_mark_done(t.db, ids[3], 0, 1), 0);
	next = (struct db_run *)&t;
	assert_int_equal(db_run_next(t.db, t.campaign, &next), -ENOENT);
	assert_ptr_equal(next, (struct db_run *)&t);

	struct db_run *r;
	assert_int_equal(db_run_get(t.db, ids[1], &r), 0);
	assert_int_equal(r->status, DB_RUN_VOID);
	assert_string_equal(r->void_reason, "hung: no frame for 10 s");
	assert_int_equal(r->start_unix_ms, 5000);
	assert_int_equal(r->end_unix_ms, 6000);
	assert_int_equal(r->exit_status, 137);
	assert_string_equal(r->run_dir, "/runs/2b");
	free(r);
	assert_int_equal(db_run_get(t.db, ids[3], &r), 0);
	assert_int_equal(r->exit_status, 1);
	assert_true(r->end_unix_ms > 1700000000000); /* 0 meant now */
	free(r);
	tdb_cleanup(&t);
}

static void test_run_state__refuses_wrong_transitions(void **state)
{
	struct tdb t = { 0 };
	tdb_open_campaign(&t);
	int64_t ids[4];
	tdb_plan_abba(&t, ids);
	assert_int_equal(db_run_mark_done(t.db, ids[0], 0, 0), -EINVAL);
	assert_non_null(strstr(db_errmsg(t.db), "was never started"));
	assert_int_equal(db_run_mark_running(t.db, ids[0], 0, NULL), 0);
	assert_int_equal(db_run_mark_done(t.db, ids[0], 0, 0), 0);
	assert_int_equal(db_run_mark_running(t.db, ids[0], 0, NULL), -EALREADY);
	assert_string_equal(db_errmsg(t.db), "run 1 is already done");
	assert_int_equal(db_run_mark_void(t.db, ids[0], "", 0, -1), -EINVAL);
	assert_int_equal(db_run_mark_void(t.db, ids[0], NULL, 0, -1), -EINVAL);
	assert_int_equal(db_run_mark_running(t.db, 999, 0, NULL), -ENOENT);
	assert_non_null(strstr(db_errmsg(t.db), "no run with id 999"));
	struct db_run *r;
	assert_int_equal(db_run_get(t.db, ids[0], &r), 0);
	assert_int_equal(r->status, DB_RUN_DONE);
	free(r);
	tdb_cleanup(&t);
}

static void test_run_void__after_the_fact_keeps_end_and_exit(void **state)
{
	struct tdb t = { 0 };
	tdb_open_campaign(&t);
	int64_t ids[4];
	tdb_plan_abba(&t, ids);
	assert_int_equal(db_run_mark_running(t.db, ids[0], 100, NULL), 0);
	assert_int_equal(db_run_mark_done(t.db, ids[0], 200, 0), 0);
	assert_int_equal(db_run_mark_void(t.db, ids[0], "swapped heavily: 41000 pages", 0, -1), 0);
	struct db_run *r;
	assert_int_equal(db_run_get(t.db, ids[0], &r), 0);
	assert_int_equal(r->status, DB_RUN_VOID);
	assert_int_equal(r->end_unix_ms, 200);
	assert_int_equal(r->exit_status, 0);
	assert_string_equal(r->void_reason, "swapped heavily: 41000 pages");
	free(r);
	assert_int_equal(db_run_mark_done(t.db, ids[0], 0, 0), -EALREADY);
	/* A planned run can be voided (campaign stopped) and gets an end. */
	assert_int_equal(db_run_mark_void(t.db, ids[3], "campaign stopped", 0, -1), 0);
	assert_int_equal(db_run_get(t.db, ids[3], &r), 0);
	assert_true(r->end_unix_ms > 0);
	assert_int_equal(r->exit_status, -1);
	free(r);
	tdb_cleanup(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_plan__list_is_in_position_order),
		cmocka_unit_test(test_run_plan__is_all_or_nothing),
		cmocka_unit_test(test_run_next__resumes_at_first_unfinished_in_position_order),
		cmocka_unit_test(test_run_state__refuses_wrong_transitions),
		cmocka_unit_test(test_run_void__after_the_fact_keeps_end_and_exit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
