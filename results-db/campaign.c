/* results-db campaigns: the campaign rows with their host facts and plan,
 * the builds and arms they compare, and the route's marks.
 *
 * It owns the campaign, build, arm and route_mark tables and the names the
 * status enums are stored under.  Runs and their results are in run.c.
 */
#include "db-private.h"

#include <errno.h>
#include <stdbool.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const char *const run_status_names[] = { "planned", "running", "done", "void" };
static const char *const campaign_status_names[] = { "open", "done", "stopped" };
static const char *const post_state_names[] = { "queued", "sent", "failed" };

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static int parse_name(const char *const *names, size_t n, const char *name, int *out)
{
	for (size_t i = 0; name && i < n; i++)
		if (strcmp(names[i], name) == 0) {
			*out = (int)i;
			return 0;
		}
	return -EINVAL;
}

const char *db_run_status_name(enum db_run_status s)
{
	return (unsigned)s < N_OF(run_status_names) ? run_status_names[s] : "unknown";
}

int db_run_status_parse(const char *name, enum db_run_status *out)
{
	int v;
	int err = parse_name(run_status_names, N_OF(run_status_names), name, &v);
	if (!err)
		*out = (enum db_run_status)v;
	return err;
}

const char *db_campaign_status_name(enum db_campaign_status s)
{
	return (unsigned)s < N_OF(campaign_status_names) ? campaign_status_names[s] : "unknown";
}

int db_campaign_status_parse(const char *name, enum db_campaign_status *out)
{
	int v;
	int err = parse_name(campaign_status_names, N_OF(campaign_status_names), name, &v);
	if (!err)
		*out = (enum db_campaign_status)v;
	return err;
}

const char *db_post_state_name(enum db_post_state s)
{
	return (unsigned)s < N_OF(post_state_names) ? post_state_names[s] : "unknown";
}

int db_post_state_parse(const char *name, enum db_post_state *out)
{
	int v;
	int err = parse_name(post_state_names, N_OF(post_state_names), name, &v);
	if (!err)
		*out = (enum db_post_state)v;
	return err;
}

/* ---- campaigns ---- */

bool db_campaign_name_is_folder(const char *name)
{
	if (!name || !name[0] || name[0] == '.' || strchr(name, '/') || strlen(name) > 200)
		return false;
	for (const char *p = name; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return false;
	return true;
}

static int check_campaign(struct db *db, const struct db_campaign *c)
{
	if (!c->name || !c->name[0])
		return db_fail(db, -EINVAL, "a campaign needs a name");
	if (!isfinite(c->window_start_s) || !isfinite(c->window_end_s) || c->window_start_s < 0 ||
	    c->window_end_s < c->window_start_s)
		return db_fail(db, -EINVAL, "campaign '%s': window %g s to %g s is not a window",
		               c->name, c->window_start_s, c->window_end_s);
	if (c->rounds < 0)
		return db_fail(db, -EINVAL, "campaign '%s': %d rounds", c->name, c->rounds);
	if ((unsigned)c->status >= N_OF(campaign_status_names))
		return db_fail(db, -EINVAL, "campaign '%s': unknown status %d", c->name, (int)c->status);
	return 0;
}

#define CAMPAIGN_FIELDS                                                                          \
	"name, plan_text, host, device_model, os, kernel, cpu, memory_B, gpu, driver, mesa, "    \
	"notes, route_name, route_text, window_start_s, window_end_s, run_order, rounds, warmup"

/* Binds the 19 CAMPAIGN_FIELDS from index 1. */
static void bind_campaign(sqlite3_stmt *st, const struct db_campaign *c)
{
	db_bind_text(st, 1, c->name);
	db_bind_text(st, 2, c->plan_text);
	db_bind_text(st, 3, c->host);
	db_bind_text(st, 4, c->device_model);
	db_bind_text(st, 5, c->os);
	db_bind_text(st, 6, c->kernel);
	db_bind_text(st, 7, c->cpu);
	db_bind_nonzero(st, 8, c->memory_B);
	db_bind_text(st, 9, c->gpu);
	db_bind_text(st, 10, c->driver);
	db_bind_text(st, 11, c->mesa);
	db_bind_text(st, 12, c->notes);
	db_bind_text(st, 13, c->route_name);
	db_bind_text(st, 14, c->route_text);
	sqlite3_bind_double(st, 15, c->window_start_s);
	sqlite3_bind_double(st, 16, c->window_end_s);
	db_bind_text(st, 17, c->order);
	sqlite3_bind_int(st, 18, c->rounds);
	sqlite3_bind_int(st, 19, c->warmup ? 1 : 0);
}

int db_campaign_create_tx(struct db *db, const struct db_campaign *c, int64_t *id_out)
{
	int err = check_campaign(db, c);
	if (err)
		return err;
	sqlite3_stmt *st;
	err = db_prepare(db, "INSERT INTO campaign (" CAMPAIGN_FIELDS ", status, created_unix_ms, "
	                     "finished_unix_ms) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	                 &st);
	if (err)
		return err;
	bind_campaign(st, c);
	sqlite3_bind_text(st, 20, db_campaign_status_name(c->status), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 21, c->created_unix_ms ? c->created_unix_ms : db_now_unix_ms());
	db_bind_nonzero(st, 22, c->status == DB_CAMPAIGN_OPEN ? 0 : c->finished_unix_ms);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		err = db_errno_from_sqlite(rc);
		if (err == -EEXIST)
			return db_fail(db, err, "campaign '%s' already exists", c->name);
		return db_fail_sql(db, rc, "cannot create the campaign");
	}
	*id_out = sqlite3_last_insert_rowid(db->sql);
	return 0;
}

int db_campaign_create(struct db *db, const struct db_campaign *c, int64_t *id_out)
{
	if (!c)
		return db_fail(db, -EINVAL, "no campaign given");
	int64_t id = 0;
	int err = db_write_begin(db);
	if (err)
		return err;
	/* A new campaign is open whatever the caller's struct says. */
	struct db_campaign fresh = *c;
	fresh.status = DB_CAMPAIGN_OPEN;
	fresh.finished_unix_ms = 0;
	err = db_write_end(db, db_campaign_create_tx(db, &fresh, &id));
	if (!err)
		*id_out = id;
	return err;
}

static int check_changed(struct db *db, const char *what, int64_t id)
{
	if (sqlite3_changes(db->sql) == 0)
		return db_fail(db, -ENOENT, "no %s with id %lld", what, (long long)id);
	return 0;
}

int db_campaign_update(struct db *db, const struct db_campaign *c)
{
	int err = check_campaign(db, c);
	if (err)
		return err;
	err = db_write_begin(db);
	if (err)
		return err;
	sqlite3_stmt *st;
	err = db_prepare(db, "UPDATE campaign SET (" CAMPAIGN_FIELDS ", status, finished_unix_ms) = "
	                     "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) WHERE id = ?", &st);
	if (!err) {
		bind_campaign(st, c);
		sqlite3_bind_text(st, 20, db_campaign_status_name(c->status), -1, SQLITE_STATIC);
		db_bind_nonzero(st, 21, c->status == DB_CAMPAIGN_OPEN ? 0 : c->finished_unix_ms);
		sqlite3_bind_int64(st, 22, c->id);
		int rc = sqlite3_step(st);
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			err = db_errno_from_sqlite(rc) == -EEXIST
			              ? db_fail(db, -EEXIST, "campaign '%s' already exists", c->name)
			              : db_fail_sql(db, rc, "cannot update the campaign");
		else
			err = check_changed(db, "campaign", c->id);
	}
	return db_write_end(db, err);
}

int db_campaign_set_status_tx(struct db *db, int64_t campaign_id, enum db_campaign_status status,
                              int64_t finished_unix_ms)
{
	if ((unsigned)status >= N_OF(campaign_status_names))
		return db_fail(db, -EINVAL, "unknown campaign status %d", (int)status);
	sqlite3_stmt *st;
	int err = db_prepare(db, "UPDATE campaign SET status = ?1, finished_unix_ms = ?2, "
	                         "stop_reason = CASE WHEN ?1 = 'open' THEN NULL ELSE stop_reason END "
	                         "WHERE id = ?3", &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, db_campaign_status_name(status), -1, SQLITE_STATIC);
	if (status == DB_CAMPAIGN_OPEN)
		sqlite3_bind_null(st, 2);
	else
		sqlite3_bind_int64(st, 2, finished_unix_ms ? finished_unix_ms : db_now_unix_ms());
	sqlite3_bind_int64(st, 3, campaign_id);
	err = db_step_write(db, st, "cannot set the campaign's status");
	return err ? err : check_changed(db, "campaign", campaign_id);
}

int db_campaign_set_status(struct db *db, int64_t campaign_id, enum db_campaign_status status,
                           int64_t finished_unix_ms)
{
	int err = db_write_begin(db);
	if (err)
		return err;
	return db_write_end(db, db_campaign_set_status_tx(db, campaign_id, status, finished_unix_ms));
}

static const char *const stop_reasons[] = { "planned", "decided", "max_rounds", "deadline" };

int db_campaign_set_stop_reason_tx(struct db *db, int64_t campaign_id, const char *reason)
{
	bool known = !reason;
	for (size_t i = 0; i < N_OF(stop_reasons) && !known; i++)
		known = strcmp(reason, stop_reasons[i]) == 0;
	if (!known)
		return db_fail(db, -EINVAL, "unknown stop reason '%s': expected planned, decided, "
		               "max_rounds or deadline", reason);
	sqlite3_stmt *st;
	int err = db_prepare(db, "UPDATE campaign SET stop_reason = ? WHERE id = ?", &st);
	if (err)
		return err;
	db_bind_text(st, 1, reason);
	sqlite3_bind_int64(st, 2, campaign_id);
	err = db_step_write(db, st, "cannot store why the campaign stopped");
	return err ? err : check_changed(db, "campaign", campaign_id);
}

int db_campaign_set_stop_reason(struct db *db, int64_t campaign_id, const char *reason)
{
	int err = db_write_begin(db);
	if (err)
		return err;
	return db_write_end(db, db_campaign_set_stop_reason_tx(db, campaign_id, reason));
}

int db_campaign_stop_reason(struct db *db, int64_t campaign_id, char *buf, size_t size)
{
	if (size)
		buf[0] = 0;
	int v = 0;
	int err = db_schema_version(db, &v);
	if (err || v < 4)
		return err;
	sqlite3_stmt *st;
	if ((err = db_prepare(db, "SELECT stop_reason FROM campaign WHERE id = ?", &st)))
		return err;
	sqlite3_bind_int64(st, 1, campaign_id);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(buf, size, "%s", (const char *)sqlite3_column_text(st, 0));
	else if (rc == SQLITE_DONE)
		err = db_fail(db, -ENOENT, "no campaign with id %lld", (long long)campaign_id);
	else if (rc != SQLITE_ROW)
		err = db_fail_sql(db, rc, "cannot read why the campaign stopped");
	sqlite3_finalize(st);
	return err;
}

static const size_t campaign_strs[] = {
	offsetof(struct db_campaign, name), offsetof(struct db_campaign, plan_text),
	offsetof(struct db_campaign, host), offsetof(struct db_campaign, device_model),
	offsetof(struct db_campaign, os), offsetof(struct db_campaign, kernel),
	offsetof(struct db_campaign, cpu), offsetof(struct db_campaign, gpu),
	offsetof(struct db_campaign, driver), offsetof(struct db_campaign, mesa),
	offsetof(struct db_campaign, notes), offsetof(struct db_campaign, route_name),
	offsetof(struct db_campaign, route_text), offsetof(struct db_campaign, order),
};

#define CAMPAIGN_SELECT                                                                          \
	"SELECT " CAMPAIGN_FIELDS ", status, created_unix_ms, finished_unix_ms, id FROM campaign "

static int campaign_row(struct db_pack *p, void *item, sqlite3_stmt *st)
{
	struct db_campaign *c = item;
	const char **texts[] = { &c->name, &c->plan_text, &c->host, &c->device_model, &c->os,
	                         &c->kernel, &c->cpu };
	for (int i = 0; i < 7; i++)
		if (db_pack_column_text(p, texts[i], st, i) < 0)
			return -ENOMEM;
	c->memory_B = sqlite3_column_int64(st, 7);
	const char **more[] = { &c->gpu, &c->driver, &c->mesa, &c->notes, &c->route_name,
	                        &c->route_text };
	for (int i = 0; i < 6; i++)
		if (db_pack_column_text(p, more[i], st, 8 + i) < 0)
			return -ENOMEM;
	c->window_start_s = sqlite3_column_double(st, 14);
	c->window_end_s = sqlite3_column_double(st, 15);
	if (db_pack_column_text(p, &c->order, st, 16) < 0)
		return -ENOMEM;
	c->rounds = sqlite3_column_int(st, 17);
	c->warmup = sqlite3_column_int(st, 18) != 0;
	enum db_campaign_status s = DB_CAMPAIGN_OPEN;
	db_campaign_status_parse((const char *)sqlite3_column_text(st, 19), &s);
	c->status = s;
	c->created_unix_ms = sqlite3_column_int64(st, 20);
	c->finished_unix_ms = sqlite3_column_int64(st, 21);
	c->id = sqlite3_column_int64(st, 22);
	return 0;
}

static int campaign_query(struct db *db, const char *sql, const char *name, int64_t id,
                          struct db_campaign **out, size_t *n)
{
	sqlite3_stmt *st;
	int err = db_prepare(db, sql, &st);
	if (err)
		return err;
	if (name)
		sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
	else if (id)
		sqlite3_bind_int64(st, 1, id);
	struct db_pack p;
	db_pack_init(&p, sizeof(struct db_campaign), campaign_strs, N_OF(campaign_strs));
	void *block;
	size_t count;
	err = db_collect(db, st, &p, campaign_row, "campaigns", &block, &count);
	if (err)
		return err;
	*out = block;
	*n = count;
	return 0;
}

static int campaign_one(struct db *db, const char *sql, const char *name, int64_t id,
                        struct db_campaign **out)
{
	struct db_campaign *c;
	size_t n;
	int err = campaign_query(db, sql, name, id, &c, &n);
	if (err)
		return err;
	if (n == 0) {
		free(c);
		if (name)
			return db_fail(db, -ENOENT, "no campaign '%s' in '%s'", name, db->path);
		return db_fail(db, -ENOENT, "no campaign with id %lld in '%s'", (long long)id, db->path);
	}
	*out = c;
	return 0;
}

int db_campaign_find(struct db *db, const char *name, struct db_campaign **out)
{
	if (!name)
		return db_fail(db, -EINVAL, "no campaign name given");
	return campaign_one(db, CAMPAIGN_SELECT "WHERE name = ?", name, 0, out);
}

int db_campaign_get(struct db *db, int64_t campaign_id, struct db_campaign **out)
{
	return campaign_one(db, CAMPAIGN_SELECT "WHERE id = ?", NULL, campaign_id, out);
}

int db_campaign_list(struct db *db, struct db_campaign **out, size_t *n)
{
	return campaign_query(db, CAMPAIGN_SELECT "ORDER BY created_unix_ms DESC, id DESC", NULL, 0,
	                      out, n);
}

int db_campaign_delete(struct db *db, int64_t campaign_id)
{
	int err = db_write_begin(db);
	if (err)
		return err;
	sqlite3_stmt *st;
	err = db_prepare(db, "DELETE FROM campaign WHERE id = ?", &st);
	if (!err) {
		sqlite3_bind_int64(st, 1, campaign_id);
		err = db_step_write(db, st, "cannot delete the campaign");
		if (!err)
			err = check_changed(db, "campaign", campaign_id);
	}
	return db_write_end(db, err);
}

/* ---- builds ---- */

int db_build_add_tx(struct db *db, const struct db_build *b, int64_t *id_out)
{
	if (!b->label || !b->label[0])
		return db_fail(db, -EINVAL, "a build needs a label");
	sqlite3_stmt *st;
	int err = db_prepare(db, "INSERT INTO build (campaign_id, label, git_commit, path, sha256) "
	                         "VALUES (?,?,?,?,?)", &st);
	if (err)
		return err;
	sqlite3_bind_int64(st, 1, b->campaign_id);
	db_bind_text(st, 2, b->label);
	db_bind_text(st, 3, b->commit);
	db_bind_text(st, 4, b->path);
	db_bind_text(st, 5, b->sha256);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_CONSTRAINT_UNIQUE)
		return db_fail(db, -EEXIST, "build '%s' already exists in campaign %lld", b->label,
		               (long long)b->campaign_id);
	if (rc == SQLITE_CONSTRAINT_FOREIGNKEY)
		return db_fail(db, -ENOENT, "no campaign with id %lld for build '%s'",
		               (long long)b->campaign_id, b->label);
	if (rc != SQLITE_DONE)
		return db_fail_sql(db, rc, "cannot add the build");
	*id_out = sqlite3_last_insert_rowid(db->sql);
	return 0;
}

int db_build_add(struct db *db, const struct db_build *b, int64_t *id_out)
{
	int64_t id = 0;
	int err = db_write_begin(db);
	if (err)
		return err;
	err = db_write_end(db, db_build_add_tx(db, b, &id));
	if (!err)
		*id_out = id;
	return err;
}

static const size_t build_strs[] = {
	offsetof(struct db_build, label), offsetof(struct db_build, commit),
	offsetof(struct db_build, path), offsetof(struct db_build, sha256),
};

static int build_row(struct db_pack *p, void *item, sqlite3_stmt *st)
{
	struct db_build *b = item;
	b->id = sqlite3_column_int64(st, 0);
	b->campaign_id = sqlite3_column_int64(st, 1);
	if (db_pack_column_text(p, &b->label, st, 2) < 0 ||
	    db_pack_column_text(p, &b->commit, st, 3) < 0 ||
	    db_pack_column_text(p, &b->path, st, 4) < 0 ||
	    db_pack_column_text(p, &b->sha256, st, 5) < 0)
		return -ENOMEM;
	return 0;
}

int db_build_list(struct db *db, int64_t campaign_id, struct db_build **out, size_t *n)
{
	sqlite3_stmt *st;
	int err = db_prepare(db, "SELECT id, campaign_id, label, git_commit, path, sha256 FROM build "
	                         "WHERE campaign_id = ? ORDER BY id", &st);
	if (err)
		return err;
	sqlite3_bind_int64(st, 1, campaign_id);
	struct db_pack p;
	db_pack_init(&p, sizeof(struct db_build), build_strs, N_OF(build_strs));
	return db_collect(db, st, &p, build_row, "builds", (void **)out, n);
}

/* ---- arms ---- */

int db_arm_add_tx(struct db *db, const struct db_arm *a, int64_t *id_out)
{
	if (a->letter < 'A' || a->letter > 'Z')
		return db_fail(db, -EINVAL, "arm letter '%c' is not one of A to Z",
		               a->letter ? a->letter : '?');
	sqlite3_stmt *st;
	int err = db_prepare(db, "INSERT INTO arm (campaign_id, letter, label, env, build_id) "
	                         "VALUES (?,?,?,?,?)", &st);
	if (err)
		return err;
	char letter[2] = { a->letter, 0 };
	sqlite3_bind_int64(st, 1, a->campaign_id);
	sqlite3_bind_text(st, 2, letter, 1, SQLITE_TRANSIENT);
	db_bind_text(st, 3, a->label);
	db_bind_text(st, 4, a->env);
	db_bind_nonzero(st, 5, a->build_id);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_CONSTRAINT_UNIQUE)
		return db_fail(db, -EEXIST, "arm %c already exists in campaign %lld", a->letter,
		               (long long)a->campaign_id);
	if (rc == SQLITE_CONSTRAINT_FOREIGNKEY)
		return db_fail(db, -ENOENT, "arm %c: no campaign %lld, or build %lld is not one of "
		               "its builds", a->letter, (long long)a->campaign_id,
		               (long long)a->build_id);
	if (rc != SQLITE_DONE)
		return db_fail_sql(db, rc, "cannot add the arm");
	*id_out = sqlite3_last_insert_rowid(db->sql);
	return 0;
}

int db_arm_add(struct db *db, const struct db_arm *a, int64_t *id_out)
{
	int64_t id = 0;
	int err = db_write_begin(db);
	if (err)
		return err;
	err = db_write_end(db, db_arm_add_tx(db, a, &id));
	if (!err)
		*id_out = id;
	return err;
}

static const size_t arm_strs[] = {
	offsetof(struct db_arm, label), offsetof(struct db_arm, env),
};

static int arm_row(struct db_pack *p, void *item, sqlite3_stmt *st)
{
	struct db_arm *a = item;
	a->id = sqlite3_column_int64(st, 0);
	a->campaign_id = sqlite3_column_int64(st, 1);
	const unsigned char *letter = sqlite3_column_text(st, 2);
	a->letter = letter ? (char)letter[0] : '?';
	if (db_pack_column_text(p, &a->label, st, 3) < 0 || db_pack_column_text(p, &a->env, st, 4) < 0)
		return -ENOMEM;
	a->build_id = sqlite3_column_int64(st, 5);
	return 0;
}

int db_arm_list(struct db *db, int64_t campaign_id, struct db_arm **out, size_t *n)
{
	sqlite3_stmt *st;
	int err = db_prepare(db, "SELECT id, campaign_id, letter, label, env, build_id FROM arm "
	                         "WHERE campaign_id = ? ORDER BY letter", &st);
	if (err)
		return err;
	sqlite3_bind_int64(st, 1, campaign_id);
	struct db_pack p;
	db_pack_init(&p, sizeof(struct db_arm), arm_strs, N_OF(arm_strs));
	return db_collect(db, st, &p, arm_row, "arms", (void **)out, n);
}

/* ---- route marks ---- */

/* 0 when the campaign exists; -ENOENT (said in db_errmsg()) or the
 * database's error. */
static int campaign_exists(struct db *db, int64_t campaign_id)
{
	sqlite3_stmt *st;
	int err = db_prepare(db, "SELECT 1 FROM campaign WHERE id = ?", &st);
	if (err)
		return err;
	sqlite3_bind_int64(st, 1, campaign_id);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? db_fail(db, -ENOENT, "no campaign with id %lld",
		                                   (long long)campaign_id)
		                         : db_fail_sql(db, rc, "cannot find the campaign");
	return 0;
}

int db_route_marks_store_tx(struct db *db, int64_t campaign_id, const struct db_route_mark *m,
                            size_t n)
{
	sqlite3_stmt *st;
	int rc, err = campaign_exists(db, campaign_id);
	if (err)
		return err;
	err = db_prepare(db, "DELETE FROM route_mark WHERE campaign_id = ?", &st);
	if (err)
		return err;
	sqlite3_bind_int64(st, 1, campaign_id);
	err = db_step_write(db, st, "cannot replace the route marks");
	if (err)
		return err;
	err = db_prepare(db, "INSERT INTO route_mark (campaign_id, t_s, name, kind) VALUES (?,?,?,?)",
	                 &st);
	if (err)
		return err;
	for (size_t i = 0; i < n && !err; i++) {
		if (!m[i].name || !isfinite(m[i].t_s)) {
			err = db_fail(db, -EINVAL, "route mark %zu needs a name and a finite time", i);
			break;
		}
		sqlite3_bind_int64(st, 1, campaign_id);
		sqlite3_bind_double(st, 2, m[i].t_s);
		db_bind_text(st, 3, m[i].name);
		sqlite3_bind_text(st, 4, m[i].kind ? m[i].kind : "mark", -1, SQLITE_TRANSIENT);
		rc = sqlite3_step(st);
		if (rc != SQLITE_DONE)
			err = db_fail_sql(db, rc, "cannot store a route mark");
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return err;
}

int db_route_marks_store(struct db *db, int64_t campaign_id, const struct db_route_mark *marks,
                         size_t n)
{
	int err = db_write_begin(db);
	if (err)
		return err;
	return db_write_end(db, db_route_marks_store_tx(db, campaign_id, marks, n));
}

static const size_t mark_strs[] = {
	offsetof(struct db_route_mark, name), offsetof(struct db_route_mark, kind),
};

static int mark_row(struct db_pack *p, void *item, sqlite3_stmt *st)
{
	struct db_route_mark *m = item;
	m->t_s = sqlite3_column_double(st, 0);
	if (db_pack_column_text(p, &m->name, st, 1) < 0 || db_pack_column_text(p, &m->kind, st, 2) < 0)
		return -ENOMEM;
	return 0;
}

int db_route_marks_read(struct db *db, int64_t campaign_id, struct db_route_mark **out,
                        size_t *n)
{
	sqlite3_stmt *st;
	int err = db_prepare(db, "SELECT t_s, name, kind FROM route_mark WHERE campaign_id = ? "
	                         "ORDER BY t_s, rowid", &st);
	if (err)
		return err;
	sqlite3_bind_int64(st, 1, campaign_id);
	struct db_pack p;
	db_pack_init(&p, sizeof(struct db_route_mark), mark_strs, N_OF(mark_strs));
	return db_collect(db, st, &p, mark_row, "route marks", (void **)out, n);
}

/* ---- host facts ---------------------------------------------------------------- */

int db_host_facts_add(struct db *db, int64_t campaign_id, const struct db_host_facts *f)
{
	if (!f->facts || !f->event || (strcmp(f->event, "start") != 0 && strcmp(f->event, "resume") != 0))
		return db_fail(db, -EINVAL, "host facts need a JSON object and the event start or resume");
	sqlite3_stmt *st;
	int rc, err = campaign_exists(db, campaign_id);
	if (err)
		return err;
	err = db_prepare(db, "INSERT INTO host_facts (campaign_id, at_unix_ms, event, facts, changes) "
	                     "SELECT ?, ?, ?, ?, ? WHERE json_type(?4) = 'object'", &st);
	if (err)
		return err;
	sqlite3_bind_int64(st, 1, campaign_id);
	sqlite3_bind_int64(st, 2, f->at_unix_ms ? f->at_unix_ms : db_now_unix_ms());
	db_bind_text(st, 3, f->event);
	db_bind_text(st, 4, f->facts);
	db_bind_text(st, 5, f->changes);
	rc = sqlite3_step(st);
	int changed = sqlite3_changes(db->sql);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_fail_sql(db, rc, "cannot store the host facts");
	if (changed != 1)
		return db_fail(db, -EINVAL, "host facts are not a JSON object");
	return 0;
}

static const size_t host_strs[] = {
	offsetof(struct db_host_facts, event), offsetof(struct db_host_facts, facts),
	offsetof(struct db_host_facts, changes),
};

static int host_row(struct db_pack *p, void *item, sqlite3_stmt *st)
{
	struct db_host_facts *h = item;
	h->at_unix_ms = sqlite3_column_int64(st, 0);
	if (db_pack_column_text(p, &h->event, st, 1) < 0 || db_pack_column_text(p, &h->facts, st, 2) < 0 ||
	    db_pack_column_text(p, &h->changes, st, 3) < 0)
		return -ENOMEM;
	return 0;
}

int db_host_facts_list(struct db *db, int64_t campaign_id, struct db_host_facts **out, size_t *n)
{
	sqlite3_stmt *st;
	int err = db_prepare(db, "SELECT at_unix_ms, event, facts, changes FROM host_facts "
	                         "WHERE campaign_id = ? ORDER BY at_unix_ms, id", &st);
	if (err)
		return err;
	sqlite3_bind_int64(st, 1, campaign_id);
	struct db_pack p;
	db_pack_init(&p, sizeof(struct db_host_facts), host_strs, N_OF(host_strs));
	return db_collect(db, st, &p, host_row, "host facts", (void **)out, n);
}
