/* results-db: the forge post outbox — queued, due, failed with backoff,
 * sent, and the comment to update in place. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test-db-util.h"

#define FORGE "http://127.0.0.1:3000"

static int64_t enqueue(struct tdb *t, int64_t issue, const char *body)
{
	int64_t id;
	assert_int_equal(db_post_enqueue(t->db, &(struct db_post){ .campaign_id = t->campaign,
	                 .forge_url = FORGE, .repo = "rx/rxdeck", .issue_index = issue,
	                 .body = body, .state = DB_POST_SENT, .attempts = 9 }, &id), 0);
	return id;
}

static void test_post__enqueue_is_due_at_once(void **state)
{
	struct tdb t = { 0 };
	tdb_open_campaign(&t);
	int64_t id = enqueue(&t, 12, "| metric | A | B |");
	struct db_post *p;
	size_t n;
	int64_t now = 4102444800000; /* 2100: everything queued before is due */
	assert_int_equal(db_post_list_due(t.db, now, &p, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(p[0].id, id);
	assert_int_equal(p[0].campaign_id, t.campaign);
	assert_string_equal(p[0].forge_url, FORGE);
	assert_string_equal(p[0].repo, "rx/rxdeck");
	assert_int_equal(p[0].issue_index, 12);
	assert_string_equal(p[0].body, "| metric | A | B |");
	/* Whatever the caller's struct said, a new post is queued, untried. */
	assert_int_equal(p[0].state, DB_POST_QUEUED);
	assert_int_equal(p[0].attempts, 0);
	assert_true(p[0].created_unix_ms > 1700000000000);
	assert_true(p[0].next_attempt_unix_ms <= now);
	assert_int_equal(p[0].sent_unix_ms, 0);
	assert_null(p[0].last_error);
	free(p);
	tdb_cleanup(&t);
}

static void test_post__failure_backs_off_then_sends(void **state)
{
	struct tdb t = { 0 };
	tdb_open_campaign(&t);
	int64_t id = enqueue(&t, 12, "body");
	struct db_post *p;
	size_t n;
	int64_t later = 4102444800000;
	assert_int_equal(db_post_mark_failed(t.db, id, "cannot connect to '" FORGE "': refused",
	                                     later + 60000), 0);
	assert_int_equal(db_post_list_due(t.db, later, &p, &n), 0);
	assert_int_equal(n, 0);
	free(p);
	assert_int_equal(db_post_list_due(t.db, later + 60000, &p, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(p[0].state, DB_POST_FAILED);
	assert_int_equal(p[0].attempts, 1);
	assert_string_equal(p[0].last_error, "cannot connect to '" FORGE "': refused");
	free(p);
	assert_int_equal(db_post_mark_failed(t.db, id, "timeout", later + 180000), 0);
	assert_int_equal(db_post_mark_sent(t.db, id, 4711, 1750000000000), 0);
	assert_int_equal(db_post_list_due(t.db, later + 999999, &p, &n), 0);
	assert_int_equal(n, 0);
	free(p);
	assert_int_equal(db_post_list(t.db, t.campaign, &p, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(p[0].state, DB_POST_SENT);
	assert_int_equal(p[0].attempts, 3);
	assert_int_equal(p[0].remote_comment_id, 4711);
	assert_int_equal(p[0].sent_unix_ms, 1750000000000);
	assert_string_equal(p[0].last_error, "timeout");
	free(p);
	assert_int_equal(db_post_mark_sent(t.db, id, 1, 0), -EALREADY);
	assert_int_equal(db_post_mark_failed(t.db, id, "late", 0), -EALREADY);
	assert_int_equal(db_post_mark_failed(t.db, id, "", 0), -EINVAL);
	assert_int_equal(db_post_mark_sent(t.db, 999, 1, 0), -ENOENT);
	tdb_cleanup(&t);
}

static void test_post__remote_comment_is_the_newest_sent_one(void **state)
{
	struct tdb t = { 0 };
	tdb_open_campaign(&t);
	int64_t cid = 0;
	assert_int_equal(db_post_remote_comment(t.db, t.campaign, FORGE, "rx/rxdeck", 12, &cid),
	                 -ENOENT);
	int64_t a = enqueue(&t, 12, "first");
	int64_t b = enqueue(&t, 12, "second");
	int64_t other_issue = enqueue(&t, 13, "elsewhere");
	assert_int_equal(db_post_mark_sent(t.db, a, 100, 1000), 0);
	assert_int_equal(db_post_mark_sent(t.db, other_issue, 300, 3000), 0);
	assert_int_equal(db_post_remote_comment(t.db, t.campaign, FORGE, "rx/rxdeck", 12, &cid), 0);
	assert_int_equal(cid, 100);
	assert_int_equal(db_post_mark_sent(t.db, b, 200, 2000), 0);
	assert_int_equal(db_post_remote_comment(t.db, t.campaign, FORGE, "rx/rxdeck", 12, &cid), 0);
	assert_int_equal(cid, 200);
	assert_int_equal(db_post_remote_comment(t.db, t.campaign, FORGE, "rx/other", 12, &cid),
	                 -ENOENT);
	assert_int_equal(cid, 200);
	tdb_cleanup(&t);
}

static void test_post__claim_holds_off_other_senders(void **state)
{
	struct tdb t = { 0 };
	tdb_open_campaign(&t);
	int64_t id = enqueue(&t, 12, "body");
	int64_t now = 4102444800000;
	assert_int_equal(db_post_claim(t.db, id, now, now + 90000), 0);
	struct db_post *p;
	size_t n;
	assert_int_equal(db_post_list(t.db, t.campaign, &p, &n), 0);
	/* the claim counts no attempt and keeps the state */
	assert_int_equal(p[0].state, DB_POST_QUEUED);
	assert_int_equal(p[0].attempts, 0);
	assert_string_equal(p[0].last_error, DB_POST_SENDING);
	assert_int_equal(p[0].next_attempt_unix_ms, now + 90000);
	free(p);
	/* not due while claimed, and a second claim is refused until then */
	assert_int_equal(db_post_list_due(t.db, now + 89999, &p, &n), 0);
	assert_int_equal(n, 0);
	free(p);
	assert_int_equal(db_post_claim(t.db, id, now + 89999, now + 200000), -EBUSY);
	/* a sender that died leaves it claimable once the claim runs out */
	assert_int_equal(db_post_claim(t.db, id, now + 90000, now + 200000), 0);
	/* a failed attempt ends the claim */
	assert_int_equal(db_post_mark_failed(t.db, id, "timeout", now + 100), 0);
	assert_int_equal(db_post_claim(t.db, id, now, now + 300000), 0);
	assert_int_equal(db_post_mark_sent(t.db, id, 77, now), 0);
	assert_int_equal(db_post_claim(t.db, id, now, now), -EALREADY);
	assert_int_equal(db_post_claim(t.db, 999, now, now), -ENOENT);
	assert_int_equal(db_post_list(t.db, t.campaign, &p, &n), 0);
	assert_int_equal(p[0].attempts, 2);
	assert_int_equal(p[0].remote_comment_id, 77);
	assert_null(p[0].last_error); /* the claim's mark is gone once sent */
	free(p);
	tdb_cleanup(&t);
}

static void test_post__bad_input_is_refused(void **state)
{
	struct tdb t = { 0 };
	tdb_open_campaign(&t);
	int64_t id = -1;
	assert_int_equal(db_post_enqueue(t.db, &(struct db_post){ .forge_url = FORGE,
	                 .repo = "o/r", .issue_index = 0, .body = "b" }, &id), -EINVAL);
	assert_int_equal(db_post_enqueue(t.db, &(struct db_post){ .forge_url = FORGE,
	                 .repo = "o/r", .issue_index = 1 }, &id), -EINVAL);
	assert_int_equal(db_post_enqueue(t.db, &(struct db_post){ .campaign_id = 999,
	                 .forge_url = FORGE, .repo = "o/r", .issue_index = 1, .body = "b" }, &id),
	                 -ENOENT);
	assert_int_equal(id, -1);
	/* A post with no campaign is allowed. */
	assert_int_equal(db_post_enqueue(t.db, &(struct db_post){ .forge_url = FORGE,
	                 .repo = "o/r", .issue_index = 1, .body = "b" }, &id), 0);
	struct db_post *p;
	size_t n;
	assert_int_equal(db_post_list(t.db, 0, &p, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(p[0].campaign_id, 0);
	free(p);
	tdb_cleanup(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_post__enqueue_is_due_at_once),
		cmocka_unit_test(test_post__failure_backs_off_then_sends),
		cmocka_unit_test(test_post__remote_comment_is_the_newest_sent_one),
		cmocka_unit_test(test_post__claim_holds_off_other_senders),
		cmocka_unit_test(test_post__bad_input_is_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
