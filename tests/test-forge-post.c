/* Tests of posting summaries to a forge stand-in on 127.0.0.1 started by
 * the test (tests/forge-standin.h): a post, an update in place (from the
 * outbox's record and from the marker alone), retries after 500 and 429, a
 * hang that times out and stays in the outbox, a lost answer that is not
 * posted twice, refusals, and the token nowhere but the request header. */
#include "test-report-util.h"
#include "forge-standin.h"

#include <time.h>

#include "forge/forge.h"
#include "forge/forge-private.h"

#define TOKEN "tok-S3cr3t-5f2a9c0e71d4"

struct fx {
	struct trep t;
	struct standin s;
	char url[64];
	char *log;
	size_t log_len;
	FILE *logf;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);
	static const char *const labels[] = { "off", "early readback" };
	static const char *const env[] = { NULL, "RX_VK_READBACK_EARLY=1" };
	trep_open(&f->t, "night-1", 2, labels, env);
	trep_run(&f->t, 0, 1, NULL, "real_fps", 11.0, NULL);
	trep_run(&f->t, 1, 1, NULL, "real_fps", 13.0, NULL);
	trep_run(&f->t, 1, 1, NULL, "real_fps", 13.5, NULL);
	trep_run(&f->t, 0, 1, NULL, "real_fps", 11.5, NULL);
	assert_int_equal(standin_start(&f->s), 0);
	snprintf(f->url, sizeof f->url, "http://127.0.0.1:%d", f->s.port);
	f->logf = open_memstream(&f->log, &f->log_len);
	setenv("RXDECK_FORGE_TOKEN", TOKEN, 1);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	standin_stop(&f->s);
	fclose(f->logf);
	free(f->log);
	trep_cleanup(&f->t);
	free(f);
	unsetenv("RXDECK_FORGE_TOKEN");
	return 0;
}

static struct forge_options opts(struct fx *f)
{
	return (struct forge_options){ .timeout_s = 5, .tries = 3, .retry_base_ms = 50,
		                       .log = f->logf, .command = "rxdeck post" };
}

static struct forge_target target(struct fx *f, bool update)
{
	return (struct forge_target){ .url = f->url, .repo = "owner/name", .issue_index = 12,
		                      .update = update, .run_file = "docs/tested/2026-11-13-night-1.md" };
}

static struct db_post *posts(struct fx *f, size_t *n)
{
	struct db_post *p;
	assert_int_equal(db_post_list(f->t.db, f->t.campaign, &p, n), 0);
	return p;
}

static size_t count_method(struct fx *f, const char *m)
{
	size_t n = 0;
	for (size_t i = 0; i < f->s.n_req; i++)
		n += strcmp(f->s.req[i].method, m) == 0;
	return n;
}

static void test_post__creates_comment(void **state)
{
	struct fx *f = *state;
	struct forge_options o = opts(f);
	struct forge_target t = target(f, false);
	struct forge_outcome out;
	assert_int_equal(forge_post_campaign(f->t.db, f->t.campaign, &t, &o, &out), 0);
	assert_int_equal(out.sent, 1);
	assert_int_equal(out.queued, 0);
	assert_int_equal(out.comment_id, 1001);
	assert_int_equal(f->s.n_req, 1);
	struct standin_request *r = &f->s.req[0];
	assert_string_equal(r->method, "POST");
	assert_string_equal(r->path, "/api/v1/repos/owner/name/issues/12/comments");
	assert_string_equal(r->auth, "token " TOKEN);
	assert_string_equal(r->content_type, "application/json");
	json_t *j = json_loads(r->body, 0, NULL);
	assert_non_null(j);
	assert_int_equal(json_object_size(j), 1);
	const char *body = json_string_value(json_object_get(j, "body"));
	assert_non_null(body);
	assert_non_null(strstr(body, "| real fps (runs) | 11.0, 11.5 | 13.0, 13.5 |"));
	assert_non_null(strstr(body, "undecided: Δ +2.00 fps"));
	assert_non_null(strstr(body, "Run file: `docs/tested/2026-11-13-night-1.md`"));
	assert_non_null(strstr(body, "<!-- rxdeck-summary campaign=night-1 created=1794607440000 post="));
	assert_non_null(strstr(body, " mode=new -->"));
	json_decref(j);
	size_t n;
	struct db_post *p = posts(f, &n);
	assert_int_equal(n, 1);
	assert_int_equal(p[0].state, DB_POST_SENT);
	assert_int_equal(p[0].remote_comment_id, 1001);
	free(p);
}

static void test_post__update_in_place(void **state)
{
	struct fx *f = *state;
	struct forge_options o = opts(f);
	struct forge_target t = target(f, false);
	assert_int_equal(forge_post_campaign(f->t.db, f->t.campaign, &t, &o, NULL), 0);
	/* more results, then the update */
	trep_run(&f->t, 0, 2, NULL, "real_fps", 11.25, NULL);
	t = target(f, true);
	struct forge_outcome out;
	assert_int_equal(forge_post_campaign(f->t.db, f->t.campaign, &t, &o, &out), 0);
	assert_int_equal(out.comment_id, 1001);
	assert_int_equal(f->s.n_comments, 1);
	assert_int_equal(f->s.n_req, 2);
	assert_string_equal(f->s.req[1].method, "PATCH");
	assert_string_equal(f->s.req[1].path, "/api/v1/repos/owner/name/issues/comments/1001");
	assert_string_equal(f->s.req[1].auth, "token " TOKEN);
	assert_non_null(strstr(f->s.comments[0].body, "11.0, 11.5, 11.2"));
	size_t n;
	struct db_post *p = posts(f, &n);
	assert_int_equal(n, 2);
	assert_int_equal(p[1].state, DB_POST_SENT);
	assert_int_equal(p[1].remote_comment_id, 1001);
	free(p);
}

static void test_post__update_finds_marker(void **state)
{
	struct fx *f = *state;
	/* the earlier summary was posted from another database: only its marker
	 * says whose it is; another campaign's comment is left alone */
	standin_add_comment(&f->s, 12, "old\n<!-- rxdeck-summary campaign=night-1 created=1794607440000 post=aa mode=new -->\n");
	standin_add_comment(&f->s, 12, "other\n<!-- rxdeck-summary campaign=night-2 created=1794607440000 post=bb mode=new -->\n");
	struct forge_options o = opts(f);
	struct forge_target t = target(f, true);
	struct forge_outcome out;
	assert_int_equal(forge_post_campaign(f->t.db, f->t.campaign, &t, &o, &out), 0);
	assert_int_equal(out.comment_id, 1001);
	assert_int_equal(f->s.n_req, 2);
	assert_string_equal(f->s.req[0].method, "GET");
	assert_string_equal(f->s.req[0].path, "/api/v1/repos/owner/name/issues/12/comments");
	assert_string_equal(f->s.req[1].method, "PATCH");
	assert_string_equal(f->s.req[1].path, "/api/v1/repos/owner/name/issues/comments/1001");
	assert_non_null(strstr(f->s.comments[0].body, "| real fps (runs) |"));
	assert_string_equal(f->s.comments[1].body,
	                    "other\n<!-- rxdeck-summary campaign=night-2 created=1794607440000 post=bb mode=new -->\n");
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void test_post__retries_after_500_and_429(void **state)
{
	struct fx *f = *state;
	standin_script(&f->s, STANDIN_STATUS, 500, 0);
	standin_script(&f->s, STANDIN_STATUS, 429, 1);
	struct forge_options o = opts(f);
	struct forge_target t = target(f, false);
	struct forge_outcome out;
	double t0 = now_s();
	assert_int_equal(forge_post_campaign(f->t.db, f->t.campaign, &t, &o, &out), 0);
	double waited = now_s() - t0;
	assert_int_equal(out.sent, 1);
	assert_int_equal(count_method(f, "POST"), 3);
	/* each try after the first looked for a lost answer first */
	assert_int_equal(count_method(f, "GET"), 2);
	assert_int_equal(f->s.n_comments, 1);
	assert_true(waited >= 0.95); /* Retry-After: 1 was kept */
	size_t n;
	struct db_post *p = posts(f, &n);
	assert_int_equal(p[0].state, DB_POST_SENT);
	assert_int_equal(p[0].attempts, 3);
	free(p);
	assert_non_null(strstr(f->log, "the forge answered 500 (a server error); trying again"));
	assert_non_null(strstr(f->log, "the forge answered 429 (too many requests); trying again in 1.0 s"));
}

static void test_post__hang_times_out_and_stays(void **state)
{
	struct fx *f = *state;
	standin_script(&f->s, STANDIN_HANG, 0, 0);
	struct forge_options o = opts(f);
	o.timeout_s = 1;
	o.tries = 1;
	struct forge_target t = target(f, false);
	struct forge_outcome out;
	assert_int_equal(forge_post_campaign(f->t.db, f->t.campaign, &t, &o, &out), -EAGAIN);
	assert_int_equal(out.sent, 0);
	assert_int_equal(out.queued, 1);
	assert_int_equal(out.refused, 0);
	size_t n;
	struct db_post *p = posts(f, &n);
	assert_int_equal(n, 1);
	assert_int_equal(p[0].state, DB_POST_FAILED);
	assert_int_equal(p[0].attempts, 1);
	assert_non_null(strstr(p[0].last_error, "no answer from"));
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	assert_true(p[0].next_attempt_unix_ms > (int64_t)ts.tv_sec * 1000 + 60 * 1000);
	free(p);
	/* not due yet: the end of the next campaign leaves it */
	assert_int_equal(forge_outbox_flush(f->t.db, false, &o, &out), 0);
	assert_int_equal(out.sent, 0);
	/* --retry sends it, looking for it on the forge first */
	o = opts(f);
	assert_int_equal(forge_outbox_flush(f->t.db, true, &o, &out), 0);
	assert_int_equal(out.sent, 1);
	assert_string_equal(f->s.req[1].method, "GET");
	assert_string_equal(f->s.req[2].method, "POST");
	assert_int_equal(f->s.n_comments, 1);
	p = posts(f, &n);
	assert_int_equal(p[0].state, DB_POST_SENT);
	free(p);
}

/* Posted once, as comment 1001, and recorded so in the outbox. */
static void assert_sent_once(struct fx *f, const struct forge_outcome *out)
{
	assert_int_equal(f->s.n_comments, 1);
	assert_int_equal(count_method(f, "POST"), 1);
	assert_int_equal(out->comment_id, 1001);
	size_t n;
	struct db_post *p = posts(f, &n);
	assert_int_equal(p[0].state, DB_POST_SENT);
	assert_int_equal(p[0].remote_comment_id, 1001);
	free(p);
}

static void test_post__lost_answer_not_posted_twice(void **state)
{
	struct fx *f = *state;
	standin_script(&f->s, STANDIN_ACT_THEN_500, 0, 0);
	struct forge_options o = opts(f);
	struct forge_target t = target(f, false);
	struct forge_outcome out;
	assert_int_equal(forge_post_campaign(f->t.db, f->t.campaign, &t, &o, &out), 0);
	assert_sent_once(f, &out);
	/* and a later --retry has nothing to do */
	assert_int_equal(forge_outbox_flush(f->t.db, true, &o, &out), 0);
	assert_int_equal(out.sent, 0);
	assert_int_equal(f->s.n_comments, 1);
}

static void test_post__created_without_readable_answer_finds_its_comment(void **state)
{
	struct fx *f = *state;
	/* 201, but the answer is not JSON: the comment is there, its id unknown */
	standin_script(&f->s, STANDIN_ACT_THEN_GARBAGE, 0, 0);
	struct forge_options o = opts(f);
	struct forge_target t = target(f, false);
	struct forge_outcome out;
	assert_int_equal(forge_post_campaign(f->t.db, f->t.campaign, &t, &o, &out), 0);
	fflush(f->logf);
	if (!strstr(f->log, "the forge answered 201, but not with a comment (no JSON object with an id)") ||
	    strstr(f->log, "as comment 0"))
		fail_msg("log: %s", f->log);
	/* the next try found it by its key: posted once, recorded with its id */
	assert_sent_once(f, &out);
}

static void test_post__retry_with_a_post_claimed_elsewhere_is_partial(void **state)
{
	struct fx *f = *state;
	/* queued: three 500s */
	for (int i = 0; i < 3; i++)
		standin_script(&f->s, STANDIN_STATUS, 500, 0);
	struct forge_options o = opts(f);
	struct forge_target t = target(f, false);
	struct forge_outcome out;
	assert_int_equal(forge_post_campaign(f->t.db, f->t.campaign, &t, &o, &out), -EAGAIN);
	size_t n;
	struct db_post *p = posts(f, &n);
	assert_int_equal(n, 1);
	int64_t id = p[0].id;
	free(p);
	/* another sender holds it for its attempt */
	int64_t now = (int64_t)time(NULL) * 1000;
	assert_int_equal(db_post_claim(f->t.db, id, now, now + 60000), 0);
	size_t before = f->s.n_req;
	assert_int_equal(forge_outbox_flush(f->t.db, true, &o, &out), -EAGAIN);
	assert_int_equal(out.sent, 0);
	assert_int_equal(out.queued, 1);
	assert_int_equal(f->s.n_req, before); /* left to the other sender */
	fflush(f->logf);
	assert_non_null(strstr(f->log, "left to it (still in the outbox)"));
}

static void refused(struct fx *f, int status, int want_rc, const char *want_msg)
{
	standin_script(&f->s, STANDIN_STATUS, status, 0);
	struct forge_options o = opts(f);
	struct forge_target t = target(f, false);
	struct forge_outcome out;
	size_t before = f->s.n_req;
	assert_int_equal(forge_post_campaign(f->t.db, f->t.campaign, &t, &o, &out), want_rc);
	assert_int_equal(f->s.n_req - before, 1); /* not tried again */
	assert_int_equal(out.refused, 1);
	fflush(f->logf);
	if (!strstr(f->log, want_msg)) {
		fprintf(stderr, "log:\n%s\nlacks: %s\n", f->log, want_msg);
		fail();
	}
	size_t n;
	struct db_post *p = posts(f, &n);
	assert_int_equal(p[n - 1].state, DB_POST_FAILED);
	assert_true(p[n - 1].next_attempt_unix_ms == INT64_MAX);
	assert_non_null(strstr(p[n - 1].last_error, want_msg));
	free(p);
}

static void test_post__refusals_name_the_fix(void **state)
{
	struct fx *f = *state;
	refused(f, 401, -EACCES, "the forge did not accept the token (401): \"scripted answer\"; "
	                         "check RXDECK_FORGE_TOKEN or the token file");
	refused(f, 403, -EACCES, "the token may not comment on 'owner/name' (403)");
	refused(f, 404, -ENOENT, "has no repository 'owner/name' or no issue #12 (404)");
	/* a refused post waits for --retry, not for the next campaign's end */
	struct forge_options o = opts(f);
	struct forge_outcome out;
	assert_int_equal(forge_outbox_flush(f->t.db, false, &o, &out), 0);
	assert_int_equal(out.sent, 0);
	/* once fixed, --retry sends all three, each once */
	assert_int_equal(forge_outbox_flush(f->t.db, true, &o, &out), 0);
	assert_int_equal(out.sent, 3);
	assert_int_equal(f->s.n_comments, 3);
}

/* Frames for the setup's four runs, so every plot kind has data. */
static void add_frames(struct fx *f)
{
	struct db_run *runs;
	size_t n;
	assert_int_equal(db_run_list(f->t.db, f->t.campaign, &runs, &n), 0);
	assert_int_equal(n, 4);
	for (size_t i = 0; i < n; i++)
		trep_frames_at(&f->t, runs[i].id, INT64_C(1000000000000) * (int64_t)(i + 1),
		               11.0 + (double)i);
	free(runs);
}

static void test_post__attaches_plots(void **state)
{
	struct fx *f = *state;
	add_frames(f);
	struct forge_options o = opts(f);
	o.attach_plots = true;
	struct forge_target t = target(f, false);
	struct forge_outcome out;
	assert_int_equal(forge_post_campaign(f->t.db, f->t.campaign, &t, &o, &out), 0);
	assert_int_equal(out.sent, 1);
	assert_int_equal(out.comment_id, 1001);
	/* the comment, its assets listed (none yet), three uploads, the edit
	 * that shows them */
	assert_int_equal(f->s.n_req, 6);
	assert_string_equal(f->s.req[0].method, "POST");
	assert_string_equal(f->s.req[0].path, "/api/v1/repos/owner/name/issues/12/comments");
	assert_string_equal(f->s.req[1].method, "GET");
	assert_string_equal(f->s.req[1].path, "/api/v1/repos/owner/name/issues/comments/1001/assets");
	static const char *const kinds[] = { "frametime", "distribution", "fps" };
	for (int k = 0; k < 3; k++) {
		struct standin_request *r = &f->s.req[2 + k];
		char want[256];
		assert_string_equal(r->method, "POST");
		snprintf(want, sizeof want, "/api/v1/repos/owner/name/issues/comments/1001/assets"
		                            "?name=2026-11-13-night-1-%s.png", kinds[k]);
		assert_string_equal(r->path, want);
		assert_string_equal(r->auth, "token " TOKEN);
		const char *b = "multipart/form-data; boundary=";
		assert_true(strncmp(r->content_type, b, strlen(b)) == 0);
		const char *boundary = r->content_type + strlen(b);
		/* one part: the field "attachment" holding the PNG librsvg drew, then
		 * the end */
		char open[256], close[256];
		snprintf(open, sizeof open, "--%s\r\n", boundary);
		snprintf(close, sizeof close, "\r\n--%s--\r\n", boundary);
		assert_true(strncmp(r->body, open, strlen(open)) == 0);
		snprintf(want, sizeof want, "Content-Disposition: form-data; name=\"attachment\"; "
		                            "filename=\"2026-11-13-night-1-%s.png\"\r\n", kinds[k]);
		assert_non_null(strstr(r->body, want));
		static const char png_head[] = "Content-Type: image/png\r\n\r\n\x89PNG\r\n\x1a\n";
		assert_non_null(memmem(r->body, r->body_len, png_head, sizeof png_head - 1));
		size_t bl = r->body_len, cl = strlen(close);
		assert_true(bl > cl && memcmp(r->body + bl - cl, close, cl) == 0);
		assert_int_equal(count_method(f, "POST"), 4);
	}
	struct standin_request *e = &f->s.req[5];
	assert_string_equal(e->method, "PATCH");
	assert_string_equal(e->path, "/api/v1/repos/owner/name/issues/comments/1001");
	/* the comment shows the returned URLs, after the text, before the marker */
	assert_int_equal(f->s.n_comments, 1);
	const char *c = f->s.comments[0].body;
	const char *table = strstr(c, "| real fps (runs) | 11.0, 11.5 | 13.0, 13.5 |");
	const char *i1 = strstr(c, "![frame time over the route](http://127.0.0.1/attachments/uuid-5001)");
	const char *i2 = strstr(c, "![frame-time distribution](http://127.0.0.1/attachments/uuid-5002)");
	const char *i3 = strstr(c, "![real fps per run](http://127.0.0.1/attachments/uuid-5003)");
	const char *mk = strstr(c, "<!-- rxdeck-summary campaign=night-1 ");
	assert_true(table && i1 && i2 && i3 && mk);
	assert_true(table < i1 && i1 < i2 && i2 < i3 && i3 < mk);
	assert_non_null(strstr(f->log, "3 plots attached to comment 1001"));
	size_t n;
	struct db_post *p = posts(f, &n);
	assert_int_equal(n, 1);
	assert_int_equal(p[0].state, DB_POST_SENT);
	free(p);
}

static void test_post__asset_refused_keeps_text_once(void **state)
{
	struct fx *f = *state;
	add_frames(f);
	f->s.asset_status = 404;
	struct forge_options o = opts(f);
	o.attach_plots = true;
	struct forge_target t = target(f, false);
	struct forge_outcome out;
	assert_int_equal(forge_post_campaign(f->t.db, f->t.campaign, &t, &o, &out), 0);
	assert_int_equal(out.sent, 1);
	assert_int_equal(out.queued, 0);
	/* the comment, the assets listed, one refused upload; no more uploads
	 * and no edit */
	assert_int_equal(f->s.n_req, 3);
	assert_string_equal(f->s.req[2].method, "POST");
	assert_string_equal(f->s.req[2].path, "/api/v1/repos/owner/name/issues/comments/1001/assets"
	                                      "?name=2026-11-13-night-1-frametime.png");
	assert_int_equal(f->s.n_comments, 1);
	assert_non_null(strstr(f->s.comments[0].body, "| real fps (runs) | 11.0, 11.5 | 13.0, 13.5 |"));
	assert_null(strstr(f->s.comments[0].body, "!["));
	assert_non_null(strstr(f->log, "cannot attach plot '2026-11-13-night-1-frametime.png' to "
	                               "comment 1001: the forge refused it (404); the comment keeps "
	                               "the text without pictures"));
	/* sent once: nothing left for a retry to post again */
	size_t n;
	struct db_post *p = posts(f, &n);
	assert_int_equal(n, 1);
	assert_int_equal(p[0].state, DB_POST_SENT);
	free(p);
	assert_int_equal(forge_outbox_flush(f->t.db, true, &o, &out), 0);
	assert_int_equal(out.sent, 0);
	assert_int_equal(f->s.n_req, 3);
	assert_int_equal(f->s.n_comments, 1);
}

static void test_post__update_replaces_the_plots(void **state)
{
	struct fx *f = *state;
	add_frames(f);
	struct forge_options o = opts(f);
	o.attach_plots = true;
	struct forge_target t = target(f, false);
	assert_int_equal(forge_post_campaign(f->t.db, f->t.campaign, &t, &o, NULL), 0);
	size_t before = f->s.n_req;
	/* someone else's attachment on the comment stays */
	f->s.assets[f->s.n_assets++] = (struct standin_asset){ .id = 4999, .comment = 1001,
		                                               .name = "notes.txt" };
	t = target(f, true);
	struct forge_outcome out;
	assert_int_equal(forge_post_campaign(f->t.db, f->t.campaign, &t, &o, &out), 0);
	assert_int_equal(out.comment_id, 1001);
	/* PATCH, list, three deletes, three uploads, PATCH */
	assert_int_equal(f->s.n_req - before, 9);
	size_t deletes = 0;
	for (size_t i = before; i < f->s.n_req; i++)
		if (strcmp(f->s.req[i].method, "DELETE") == 0) {
			char want[96];
			snprintf(want, sizeof want,
			         "/api/v1/repos/owner/name/issues/comments/1001/assets/%zu", 5001 + deletes);
			assert_string_equal(f->s.req[i].path, want);
			deletes++;
		}
	assert_int_equal(deletes, 3);
	size_t live = 0;
	for (size_t i = 0; i < f->s.n_assets; i++)
		live += !f->s.assets[i].deleted;
	assert_int_equal(live, 4); /* notes.txt and the new set */
	assert_false(f->s.assets[f->s.n_assets - 4].deleted); /* 4999, notes.txt */
	const char *c = f->s.comments[0].body;
	assert_non_null(strstr(c, "![frame time over the route](http://127.0.0.1/attachments/uuid-5005)"));
	assert_null(strstr(c, "uuid-5001"));
	assert_int_equal(f->s.n_comments, 1);
}

static void test_post__body_with_plots_without_marker(void **state)
{
	(void)state;
	const char *titles[] = { "a [b]", "c" };
	const char *urls[] = { "https://f/1", "https://f/2" };
	char *b;
	assert_int_equal(forge_body_with_plots("text\n\n", titles, urls, 2, &b), 0);
	assert_string_equal(b, "text\n\nPlots:\n\n![a b](https://f/1)\n\n![c](https://f/2)\n");
	free(b);
	char *u = forge_asset_url("{\"browser_download_url\":\"https://f/x (y)\"}");
	assert_null(u);
	u = forge_asset_url("{\"browser_download_url\":\"https://f/attachments/u1\"}");
	assert_string_equal(u, "https://f/attachments/u1");
	free(u);
	assert_null(forge_asset_url("not json"));
}

static void test_post__no_token_keeps_summary(void **state)
{
	struct fx *f = *state;
	unsetenv("RXDECK_FORGE_TOKEN");
	char cfg[PATH_MAX];
	snprintf(cfg, sizeof cfg, "%s/config", f->t.dir);
	setenv("XDG_CONFIG_HOME", cfg, 1);
	struct forge_options o = opts(f);
	struct forge_target t = target(f, false);
	struct forge_outcome out;
	assert_int_equal(forge_post_campaign(f->t.db, f->t.campaign, &t, &o, &out), -EACCES);
	assert_int_equal(f->s.n_req, 0);
	assert_int_equal(out.queued, 1);
	fflush(f->logf);
	assert_non_null(strstr(f->log, "no forge token: set RXDECK_FORGE_TOKEN, or write the token to"));
	setenv("RXDECK_FORGE_TOKEN", TOKEN, 1);
	assert_int_equal(forge_outbox_flush(f->t.db, true, &o, &out), 0);
	assert_int_equal(out.sent, 1);
	unsetenv("XDG_CONFIG_HOME");
}

static bool file_has(const char *path, const char *needle)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return false;
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	size_t n;
	while ((n = fread(buf + len, 1, cap - len, fp)) > 0) {
		len += n;
		if (len == cap)
			buf = realloc(buf, cap *= 2);
	}
	fclose(fp);
	bool has = memmem(buf, len, needle, strlen(needle)) != NULL;
	free(buf);
	return has;
}

static void test_post__token_nowhere(void **state)
{
	struct fx *f = *state;
	/* every path: a refusal, a retry, a hang, a success, an update */
	standin_script(&f->s, STANDIN_STATUS, 401, 0);
	standin_script(&f->s, STANDIN_STATUS, 500, 0);
	standin_script(&f->s, STANDIN_HANG, 0, 0);
	struct forge_options o = opts(f);
	o.timeout_s = 1;
	o.tries = 2;
	struct forge_target t = target(f, false);
	forge_post_campaign(f->t.db, f->t.campaign, &t, &o, NULL);
	forge_post_campaign(f->t.db, f->t.campaign, &t, &o, NULL);
	t = target(f, true);
	forge_post_campaign(f->t.db, f->t.campaign, &t, &o, NULL);
	forge_outbox_flush(f->t.db, true, &o, NULL);
	/* the token went to the forge ... */
	assert_string_equal(f->s.req[0].auth, "token " TOKEN);
	/* ... and nowhere else */
	fflush(f->logf);
	assert_null(memmem(f->log, f->log_len, TOKEN, strlen(TOKEN)));
	assert_null(strstr(f->log, "S3cr3t"));
	size_t n;
	struct db_post *p = posts(f, &n);
	for (size_t i = 0; i < n; i++) {
		assert_null(strstr(p[i].body, "S3cr3t"));
		assert_true(!p[i].last_error || !strstr(p[i].last_error, "S3cr3t"));
	}
	free(p);
	db_close(f->t.db);
	f->t.db = NULL;
	char path[PATH_MAX + 8];
	assert_false(file_has(f->t.path, "S3cr3t"));
	snprintf(path, sizeof path, "%s-wal", f->t.path);
	assert_false(file_has(path, "S3cr3t"));
	assert_int_equal(db_open(f->t.path, &f->t.db), 0);
}

static void test_token__file_rules(void **state)
{
	struct fx *f = *state;
	unsetenv("RXDECK_FORGE_TOKEN");
	char cfg[PATH_MAX], dir[PATH_MAX + 16], file[PATH_MAX + 32];
	snprintf(cfg, sizeof cfg, "%s/config", f->t.dir);
	snprintf(dir, sizeof dir, "%s/rxdeck", cfg);
	snprintf(file, sizeof file, "%s/forge-token", dir);
	setenv("XDG_CONFIG_HOME", cfg, 1);
	char msg[512], *tok = NULL;
	assert_int_equal(forge_token_load(&tok, msg, sizeof msg), -ENOENT);
	assert_non_null(strstr(msg, "no forge token"));
	assert_int_equal(mkdir(cfg, 0700), 0);
	assert_int_equal(mkdir(dir, 0700), 0);
	FILE *fp = fopen(file, "w");
	fputs("file-token-XYZ\n", fp);
	fclose(fp);
	assert_int_equal(chmod(file, 0644), 0);
	assert_int_equal(forge_token_load(&tok, msg, sizeof msg), -EPERM);
	assert_non_null(strstr(msg, "is open to group or others (mode 644); refused: run chmod 600"));
	assert_null(strstr(msg, "XYZ"));
	assert_int_equal(chmod(file, 0600), 0);
	assert_int_equal(forge_token_load(&tok, msg, sizeof msg), 0);
	assert_string_equal(tok, "file-token-XYZ");
	forge_token_free(tok);
	fp = fopen(file, "w");
	fputs("two words\n", fp);
	fclose(fp);
	assert_int_equal(forge_token_load(&tok, msg, sizeof msg), -EINVAL);
	assert_null(strstr(msg, "words"));
	/* the variable wins over the file */
	setenv("RXDECK_FORGE_TOKEN", "env-token", 1);
	assert_int_equal(forge_token_load(&tok, msg, sizeof msg), 0);
	assert_string_equal(tok, "env-token");
	forge_token_free(tok);
	setenv("RXDECK_FORGE_TOKEN", "bad\r\nX-Injected: 1", 1);
	assert_int_equal(forge_token_load(&tok, msg, sizeof msg), -EINVAL);
	unsetenv("XDG_CONFIG_HOME");
}

static void test_target__checks(void **state)
{
	(void)state;
	char msg[512];
	struct forge_target t = { .url = "https://forge.example.org", .repo = "owner/name",
		                  .issue_index = 3 };
	assert_int_equal(forge_target_check(&t, msg, sizeof msg), 0);
	t.url = "http://127.0.0.1:3000";
	assert_int_equal(forge_target_check(&t, msg, sizeof msg), 0);
	t.url = "http://localhost/forge";
	assert_int_equal(forge_target_check(&t, msg, sizeof msg), 0);
	t.url = "http://forge.example.org";
	assert_int_equal(forge_target_check(&t, msg, sizeof msg), -EINVAL);
	assert_non_null(strstr(msg, "is not https: plain http is allowed only for 127.0.0.1"));
	t.url = "http://127.0.0.1.example.org";
	assert_int_equal(forge_target_check(&t, msg, sizeof msg), -EINVAL);
	t.url = "https://me:pw@forge.example.org";
	assert_int_equal(forge_target_check(&t, msg, sizeof msg), -EINVAL);
	assert_null(strstr(msg, "pw"));
	t.url = "ftp://forge.example.org";
	assert_int_equal(forge_target_check(&t, msg, sizeof msg), -EINVAL);
	t.url = "https://forge.example.org";
	t.repo = "owner/name/extra";
	assert_int_equal(forge_target_check(&t, msg, sizeof msg), -EINVAL);
	assert_string_equal(msg, "bad repository 'owner/name/extra': expected OWNER/NAME of "
	                         "letters, digits, '.', '_' and '-'");
	t.repo = "../x";
	assert_int_equal(forge_target_check(&t, msg, sizeof msg), -EINVAL);
	t.repo = "owner/name";
	t.issue_index = 0;
	assert_int_equal(forge_target_check(&t, msg, sizeof msg), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_post__creates_comment, setup, teardown),
		cmocka_unit_test_setup_teardown(test_post__update_in_place, setup, teardown),
		cmocka_unit_test_setup_teardown(test_post__update_finds_marker, setup, teardown),
		cmocka_unit_test_setup_teardown(test_post__retries_after_500_and_429, setup, teardown),
		cmocka_unit_test_setup_teardown(test_post__hang_times_out_and_stays, setup, teardown),
		cmocka_unit_test_setup_teardown(test_post__lost_answer_not_posted_twice, setup, teardown),
		cmocka_unit_test_setup_teardown(test_post__created_without_readable_answer_finds_its_comment,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(test_post__retry_with_a_post_claimed_elsewhere_is_partial,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(test_post__refusals_name_the_fix, setup, teardown),
		cmocka_unit_test_setup_teardown(test_post__no_token_keeps_summary, setup, teardown),
		cmocka_unit_test_setup_teardown(test_post__token_nowhere, setup, teardown),
		cmocka_unit_test_setup_teardown(test_post__attaches_plots, setup, teardown),
		cmocka_unit_test_setup_teardown(test_post__asset_refused_keeps_text_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_post__update_replaces_the_plots, setup, teardown),
		cmocka_unit_test(test_post__body_with_plots_without_marker),
		cmocka_unit_test_setup_teardown(test_token__file_rules, setup, teardown),
		cmocka_unit_test(test_target__checks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
