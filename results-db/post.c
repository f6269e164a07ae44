/* results-db outbox: forge posts waiting to be sent, sent, or failed and
 * waiting for their next attempt.
 *
 * The forge client enqueues a summary here first and only then talks to
 * the forge, so an unreachable forge never loses one.  This file owns the
 * post table; when and how to retry is the forge client's business.
 */
#include "db-private.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static int check_post(struct db *db, const struct db_post *p)
{
	if (!p->forge_url || !p->forge_url[0] || !p->repo || !p->repo[0] || !p->body ||
	    p->issue_index <= 0)
		return db_fail(db, -EINVAL, "a post needs a forge URL, a repository, an issue number "
		               "above 0 and a body");
	if ((unsigned)p->state > DB_POST_FAILED || p->attempts < 0)
		return db_fail(db, -EINVAL, "a post's state or attempt count is out of range");
	return 0;
}

int db_post_insert_tx(struct db *db, const struct db_post *p, int64_t *id_out)
{
	int err = check_post(db, p);
	if (err)
		return err;
	sqlite3_stmt *st;
	err = db_prepare(db, "INSERT INTO post (campaign_id, forge_url, repo, issue_index, body, "
	                     "state, attempts, next_attempt_unix_ms, remote_comment_id, last_error, "
	                     "created_unix_ms, sent_unix_ms) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", &st);
	if (err)
		return err;
	int64_t now = db_now_unix_ms();
	db_bind_nonzero(st, 1, p->campaign_id);
	db_bind_text(st, 2, p->forge_url);
	db_bind_text(st, 3, p->repo);
	sqlite3_bind_int64(st, 4, p->issue_index);
	db_bind_text(st, 5, p->body);
	sqlite3_bind_text(st, 6, db_post_state_name(p->state), -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 7, p->attempts);
	sqlite3_bind_int64(st, 8, p->next_attempt_unix_ms ? p->next_attempt_unix_ms : now);
	db_bind_nonzero(st, 9, p->remote_comment_id);
	db_bind_text(st, 10, p->last_error);
	sqlite3_bind_int64(st, 11, p->created_unix_ms ? p->created_unix_ms : now);
	db_bind_nonzero(st, 12, p->sent_unix_ms);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_CONSTRAINT_FOREIGNKEY)
		return db_fail(db, -ENOENT, "no campaign with id %lld for the post",
		               (long long)p->campaign_id);
	if (rc != SQLITE_DONE)
		return db_fail_sql(db, rc, "cannot queue the post");
	*id_out = sqlite3_last_insert_rowid(db->sql);
	return 0;
}

int db_post_enqueue(struct db *db, const struct db_post *p, int64_t *id_out)
{
	if (!p)
		return db_fail(db, -EINVAL, "no post given");
	struct db_post fresh = {
		.campaign_id = p->campaign_id,
		.forge_url = p->forge_url,
		.repo = p->repo,
		.issue_index = p->issue_index,
		.body = p->body,
		.state = DB_POST_QUEUED,
	};
	int64_t id = 0;
	int err = db_write_begin(db);
	if (err)
		return err;
	err = db_write_end(db, db_post_insert_tx(db, &fresh, &id));
	if (!err)
		*id_out = id;
	return err;
}

static const size_t post_strs[] = {
	offsetof(struct db_post, forge_url), offsetof(struct db_post, repo),
	offsetof(struct db_post, body), offsetof(struct db_post, last_error),
};

#define POST_SELECT                                                                              \
	"SELECT id, campaign_id, forge_url, repo, issue_index, body, state, attempts, "          \
	"next_attempt_unix_ms, remote_comment_id, last_error, created_unix_ms, sent_unix_ms "    \
	"FROM post "

static int post_row(struct db_pack *pk, void *item, sqlite3_stmt *st)
{
	struct db_post *p = item;
	p->id = sqlite3_column_int64(st, 0);
	p->campaign_id = sqlite3_column_int64(st, 1);
	if (db_pack_column_text(pk, &p->forge_url, st, 2) < 0 ||
	    db_pack_column_text(pk, &p->repo, st, 3) < 0 ||
	    db_pack_column_text(pk, &p->body, st, 5) < 0 ||
	    db_pack_column_text(pk, &p->last_error, st, 10) < 0)
		return -ENOMEM;
	p->issue_index = sqlite3_column_int64(st, 4);
	enum db_post_state s = DB_POST_QUEUED;
	db_post_state_parse((const char *)sqlite3_column_text(st, 6), &s);
	p->state = s;
	p->attempts = sqlite3_column_int(st, 7);
	p->next_attempt_unix_ms = sqlite3_column_int64(st, 8);
	p->remote_comment_id = sqlite3_column_int64(st, 9);
	p->created_unix_ms = sqlite3_column_int64(st, 11);
	p->sent_unix_ms = sqlite3_column_int64(st, 12);
	return 0;
}

static int post_query(struct db *db, const char *sql, int64_t arg, bool bind,
                      struct db_post **out, size_t *n)
{
	sqlite3_stmt *st;
	int err = db_prepare(db, sql, &st);
	if (err)
		return err;
	if (bind)
		sqlite3_bind_int64(st, 1, arg);
	struct db_pack p;
	db_pack_init(&p, sizeof(struct db_post), post_strs, N_OF(post_strs));
	return db_collect(db, st, &p, post_row, "posts", (void **)out, n);
}

int db_post_list_due(struct db *db, int64_t now_unix_ms, struct db_post **out, size_t *n)
{
	return post_query(db, POST_SELECT "WHERE state IN ('queued', 'failed') AND "
	                  "next_attempt_unix_ms <= ? ORDER BY created_unix_ms, id",
	                  now_unix_ms, true, out, n);
}

int db_post_list(struct db *db, int64_t campaign_id, struct db_post **out, size_t *n)
{
	if (campaign_id)
		return post_query(db, POST_SELECT "WHERE campaign_id = ? ORDER BY created_unix_ms, id",
		                  campaign_id, true, out, n);
	return post_query(db, POST_SELECT "ORDER BY created_unix_ms, id", 0, false, out, n);
}

/* The post's state; -ENOENT when there is none. */
static int post_state(struct db *db, int64_t post_id, enum db_post_state *out)
{
	sqlite3_stmt *st;
	int err = db_prepare(db, "SELECT state FROM post WHERE id = ?", &st);
	if (err)
		return err;
	sqlite3_bind_int64(st, 1, post_id);
	int rc = sqlite3_step(st);
	enum db_post_state s = DB_POST_QUEUED;
	if (rc == SQLITE_ROW)
		db_post_state_parse((const char *)sqlite3_column_text(st, 0), &s);
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return db_fail(db, -ENOENT, "no post with id %lld", (long long)post_id);
	if (rc != SQLITE_ROW)
		return db_fail_sql(db, rc, "cannot read the post");
	*out = s;
	return 0;
}

int db_post_mark_sent(struct db *db, int64_t post_id, int64_t remote_comment_id,
                      int64_t sent_unix_ms)
{
	int err = db_write_begin(db);
	if (err)
		return err;
	enum db_post_state s;
	err = post_state(db, post_id, &s);
	if (!err && s == DB_POST_SENT)
		err = db_fail(db, -EALREADY, "post %lld is already sent", (long long)post_id);
	sqlite3_stmt *st;
	if (!err)
		err = db_prepare(db, "UPDATE post SET state = 'sent', remote_comment_id = ?, "
		                     "sent_unix_ms = ?, attempts = attempts + 1, "
		                     "last_error = nullif(last_error, '" DB_POST_SENDING "') "
		                     "WHERE id = ?", &st);
	if (!err) {
		db_bind_nonzero(st, 1, remote_comment_id);
		sqlite3_bind_int64(st, 2, sent_unix_ms ? sent_unix_ms : db_now_unix_ms());
		sqlite3_bind_int64(st, 3, post_id);
		err = db_step_write(db, st, "cannot mark the post sent");
	}
	return db_write_end(db, err);
}

int db_post_mark_failed(struct db *db, int64_t post_id, const char *error,
                        int64_t next_attempt_unix_ms)
{
	if (!error || !error[0])
		return db_fail(db, -EINVAL, "a failed post needs the error");
	int err = db_write_begin(db);
	if (err)
		return err;
	enum db_post_state s;
	err = post_state(db, post_id, &s);
	if (!err && s == DB_POST_SENT)
		err = db_fail(db, -EALREADY, "post %lld is already sent", (long long)post_id);
	sqlite3_stmt *st;
	if (!err)
		err = db_prepare(db, "UPDATE post SET state = 'failed', last_error = ?, "
		                     "next_attempt_unix_ms = ?, attempts = attempts + 1 WHERE id = ?",
		                 &st);
	if (!err) {
		sqlite3_bind_text(st, 1, error, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(st, 2, next_attempt_unix_ms);
		sqlite3_bind_int64(st, 3, post_id);
		err = db_step_write(db, st, "cannot mark the post failed");
	}
	return db_write_end(db, err);
}

int db_post_claim(struct db *db, int64_t post_id, int64_t now_unix_ms, int64_t until_unix_ms)
{
	int err = db_write_begin(db);
	if (err)
		return err;
	sqlite3_stmt *st;
	err = db_prepare(db, "SELECT state, last_error, next_attempt_unix_ms FROM post WHERE id = ?",
	                 &st);
	if (!err) {
		sqlite3_bind_int64(st, 1, post_id);
		int rc = sqlite3_step(st);
		if (rc == SQLITE_DONE) {
			err = db_fail(db, -ENOENT, "no post with id %lld", (long long)post_id);
		} else if (rc != SQLITE_ROW) {
			err = db_fail_sql(db, rc, "cannot read the post");
		} else {
			enum db_post_state s = DB_POST_QUEUED;
			db_post_state_parse((const char *)sqlite3_column_text(st, 0), &s);
			const char *e = (const char *)sqlite3_column_text(st, 1);
			int64_t next = sqlite3_column_int64(st, 2);
			if (s == DB_POST_SENT)
				err = db_fail(db, -EALREADY, "post %lld is already sent",
				              (long long)post_id);
			else if (e && strcmp(e, DB_POST_SENDING) == 0 && next > now_unix_ms)
				err = db_fail(db, -EBUSY, "post %lld is being sent by another rxdeck",
				              (long long)post_id);
		}
		sqlite3_finalize(st);
	}
	if (!err)
		err = db_prepare(db, "UPDATE post SET last_error = ?, next_attempt_unix_ms = ? "
		                     "WHERE id = ?", &st);
	if (!err) {
		sqlite3_bind_text(st, 1, DB_POST_SENDING, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, until_unix_ms);
		sqlite3_bind_int64(st, 3, post_id);
		err = db_step_write(db, st, "cannot claim the post");
	}
	return db_write_end(db, err);
}

int db_post_remote_comment(struct db *db, int64_t campaign_id, const char *forge_url,
                           const char *repo, int64_t issue_index, int64_t *comment_id_out)
{
	if (!forge_url || !repo)
		return db_fail(db, -EINVAL, "no forge or repository given");
	sqlite3_stmt *st;
	int err = db_prepare(db, "SELECT remote_comment_id FROM post WHERE campaign_id IS ?1 AND "
	                         "forge_url = ?2 AND repo = ?3 AND issue_index = ?4 AND "
	                         "state = 'sent' AND remote_comment_id IS NOT NULL "
	                         "ORDER BY sent_unix_ms DESC, id DESC LIMIT 1", &st);
	if (err)
		return err;
	db_bind_nonzero(st, 1, campaign_id);
	sqlite3_bind_text(st, 2, forge_url, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, repo, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, issue_index);
	int rc = sqlite3_step(st);
	int64_t id = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return db_fail(db, -ENOENT, "no comment sent yet to %s %s#%lld", forge_url, repo,
		               (long long)issue_index);
	if (rc != SQLITE_ROW)
		return db_fail_sql(db, rc, "cannot read the posts");
	*comment_id_out = id;
	return 0;
}
