/* results-db schema: every version's migration, in order, and the code
 * that steps a file from its PRAGMA user_version to the current one.
 *
 * A migration is SQL that turns version N-1 into N.  Each runs in one
 * transaction with its user_version bump and a foreign-key check, so a
 * failing step leaves the file at N-1.  Migrations are never edited once
 * shipped: a change is a new version at the end.  docs/database.md
 * describes each version.
 */
#include "db-private.h"

#include <errno.h>
#include <stdio.h>

/* Version 1: campaigns, builds, arms, runs and their results. */
static const char migrate_v1[] =
	"PRAGMA application_id = 1381516354;\n" /* DB_APPLICATION_ID, "RXDB" */
	"CREATE TABLE campaign (\n"
	"  id INTEGER PRIMARY KEY,\n"
	"  name TEXT NOT NULL UNIQUE CHECK (length(name) > 0),\n"
	"  plan_text TEXT, host TEXT, device_model TEXT, os TEXT, kernel TEXT, cpu TEXT,\n"
	"  memory_B INTEGER, gpu TEXT, driver TEXT, mesa TEXT, notes TEXT,\n"
	"  route_name TEXT, route_text TEXT,\n"
	"  window_start_s REAL, window_end_s REAL,\n"
	"  run_order TEXT,\n"
	"  rounds INTEGER NOT NULL DEFAULT 0 CHECK (rounds >= 0),\n"
	"  warmup INTEGER NOT NULL DEFAULT 0 CHECK (warmup IN (0, 1)),\n"
	"  status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'done', 'stopped')),\n"
	"  created_unix_ms INTEGER NOT NULL,\n"
	"  finished_unix_ms INTEGER\n"
	");\n"
	"CREATE TABLE build (\n"
	"  id INTEGER PRIMARY KEY,\n"
	"  campaign_id INTEGER NOT NULL REFERENCES campaign(id) ON DELETE CASCADE,\n"
	"  label TEXT NOT NULL CHECK (length(label) > 0),\n"
	"  git_commit TEXT, path TEXT, sha256 TEXT,\n"
	"  UNIQUE (campaign_id, label),\n"
	"  UNIQUE (id, campaign_id)\n"
	");\n"
	"CREATE TABLE arm (\n"
	"  id INTEGER PRIMARY KEY,\n"
	"  campaign_id INTEGER NOT NULL REFERENCES campaign(id) ON DELETE CASCADE,\n"
	"  letter TEXT NOT NULL CHECK (length(letter) = 1 AND letter BETWEEN 'A' AND 'Z'),\n"
	"  label TEXT, env TEXT,\n"
	"  build_id INTEGER,\n"
	"  UNIQUE (campaign_id, letter),\n"
	"  UNIQUE (id, campaign_id),\n"
	"  FOREIGN KEY (build_id, campaign_id) REFERENCES build(id, campaign_id) ON DELETE CASCADE\n"
	");\n"
	"CREATE TABLE run (\n"
	"  id INTEGER PRIMARY KEY,\n"
	"  campaign_id INTEGER NOT NULL REFERENCES campaign(id) ON DELETE CASCADE,\n"
	"  arm_id INTEGER NOT NULL,\n"
	"  round INTEGER NOT NULL CHECK (round >= 0),\n"
	"  position INTEGER NOT NULL CHECK (position > 0),\n"
	"  is_warmup INTEGER NOT NULL DEFAULT 0 CHECK (is_warmup IN (0, 1)),\n"
	"  status TEXT NOT NULL DEFAULT 'planned'\n"
	"    CHECK (status IN ('planned', 'running', 'done', 'void')),\n"
	"  start_unix_ms INTEGER, end_unix_ms INTEGER, exit_status INTEGER,\n"
	"  void_reason TEXT CHECK (status <> 'void' OR length(void_reason) > 0),\n"
	"  run_dir TEXT,\n"
	"  UNIQUE (campaign_id, position),\n"
	"  FOREIGN KEY (arm_id, campaign_id) REFERENCES arm(id, campaign_id) ON DELETE CASCADE\n"
	");\n"
	"CREATE INDEX run_arm ON run(arm_id);\n"
	/* Frames are one packed blob per run, not one row per frame: see
	 * run.c and docs/performance.md for the measurement. */
	"CREATE TABLE frame_set (\n"
	"  run_id INTEGER PRIMARY KEY REFERENCES run(id) ON DELETE CASCADE,\n"
	"  n_frames INTEGER NOT NULL CHECK (n_frames >= 0),\n"
	"  format INTEGER NOT NULL,\n"
	"  data BLOB NOT NULL\n"
	");\n"
	"CREATE TABLE sample (\n"
	"  run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,\n"
	"  t_ns INTEGER NOT NULL,\n"
	"  name TEXT NOT NULL CHECK (length(name) > 0),\n"
	"  value REAL\n" /* NULL: the source was absent */
	");\n"
	"CREATE INDEX sample_run ON sample(run_id, t_ns);\n"
	"CREATE TABLE metric (\n"
	"  run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,\n"
	"  name TEXT NOT NULL CHECK (length(name) > 0),\n"
	"  value REAL NOT NULL,\n"
	"  PRIMARY KEY (run_id, name)\n"
	") WITHOUT ROWID;\n"
	"CREATE TABLE log_line (\n"
	"  id INTEGER PRIMARY KEY,\n"
	"  run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,\n"
	"  t_ns INTEGER,\n"
	"  pattern TEXT NOT NULL CHECK (length(pattern) > 0),\n"
	"  text TEXT NOT NULL,\n"
	"  captures TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(captures))\n"
	");\n"
	"CREATE INDEX log_line_run ON log_line(run_id, pattern);\n"
	"CREATE TABLE shot (\n"
	"  run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,\n"
	"  name TEXT NOT NULL CHECK (length(name) > 0),\n"
	"  path TEXT, luma REAL, checksum TEXT,\n"
	"  PRIMARY KEY (run_id, name)\n"
	") WITHOUT ROWID;\n";

/* Version 2: the forge post outbox, the route's marks, and each run's
 * effective renderer configuration. */
static const char migrate_v2[] =
	"ALTER TABLE run ADD COLUMN config TEXT;\n"
	"CREATE TABLE route_mark (\n"
	"  campaign_id INTEGER NOT NULL REFERENCES campaign(id) ON DELETE CASCADE,\n"
	"  t_s REAL NOT NULL,\n"
	"  name TEXT NOT NULL,\n"
	"  kind TEXT NOT NULL DEFAULT 'mark'\n"
	");\n"
	"CREATE INDEX route_mark_campaign ON route_mark(campaign_id, t_s);\n"
	"CREATE TABLE post (\n"
	"  id INTEGER PRIMARY KEY,\n"
	"  campaign_id INTEGER REFERENCES campaign(id) ON DELETE SET NULL,\n"
	"  forge_url TEXT NOT NULL CHECK (length(forge_url) > 0),\n"
	"  repo TEXT NOT NULL CHECK (length(repo) > 0),\n"
	"  issue_index INTEGER NOT NULL CHECK (issue_index > 0),\n"
	"  body TEXT NOT NULL,\n"
	"  state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'sent', 'failed')),\n"
	"  attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),\n"
	"  next_attempt_unix_ms INTEGER NOT NULL,\n"
	"  remote_comment_id INTEGER,\n"
	"  last_error TEXT,\n"
	"  created_unix_ms INTEGER NOT NULL,\n"
	"  sent_unix_ms INTEGER\n"
	");\n"
	"CREATE INDEX post_due ON post(state, next_attempt_unix_ms);\n"
	"CREATE INDEX post_campaign ON post(campaign_id);\n";

/* Version 3: the host's facts (`rxdeck deck info`'s) per campaign, taken
 * at its start and again at a resume that found them changed. */
static const char migrate_v3[] =
	"CREATE TABLE host_facts (\n"
	"  id INTEGER PRIMARY KEY,\n"
	"  campaign_id INTEGER NOT NULL REFERENCES campaign(id) ON DELETE CASCADE,\n"
	"  at_unix_ms INTEGER NOT NULL,\n"
	"  event TEXT NOT NULL CHECK (event IN ('start', 'resume')),\n"
	"  facts TEXT NOT NULL CHECK (json_valid(facts)),\n"
	"  changes TEXT\n"
	");\n"
	"CREATE INDEX host_facts_campaign ON host_facts(campaign_id, at_unix_ms);\n";

/* Version 4: why a finished campaign stopped, as the run loop saw it
 * ("planned", "decided", "max_rounds", "deadline"); NULL while it runs and
 * for campaigns finished before version 4 (the report derives it then). */
static const char migrate_v4[] =
	"ALTER TABLE campaign ADD COLUMN stop_reason TEXT CHECK (stop_reason IS NULL OR "
	"stop_reason IN ('planned', 'decided', 'max_rounds', 'deadline'));\n";

static const char *const migrations[DB_SCHEMA_VERSION] = {
	migrate_v1,
	migrate_v2,
	migrate_v3,
	migrate_v4,
};

int db_schema_version(struct db *db, int *out)
{
	sqlite3_stmt *st;
	int err = db_prepare(db, "PRAGMA user_version", &st);
	if (err)
		return err;
	int rc = sqlite3_step(st);
	int v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return db_fail_sql(db, rc, "cannot read the schema version");
	*out = v;
	return 0;
}

/* Version from -> from + 1, in the caller's transaction. */
int db_schema_migrate_step(struct db *db, int from)
{
	if (from < 0 || from >= DB_SCHEMA_VERSION)
		return db_fail(db, -EINVAL, "no migration from schema version %d", from);
	char *msg = NULL;
	int rc = sqlite3_exec(db->sql, migrations[from], NULL, NULL, &msg);
	if (rc != SQLITE_OK) {
		int err = db_errno_from_sqlite(rc);
		db_fail(db, err ? err : -EIO, "cannot migrate database '%s' to schema version %d: %s",
		        db->path, from + 1, msg ? msg : sqlite3_errstr(rc));
		sqlite3_free(msg);
		return err ? err : -EIO;
	}
	char bump[64];
	snprintf(bump, sizeof bump, "PRAGMA user_version = %d", from + 1);
	int err = db_exec(db, bump);
	if (err)
		return err;
	/* A step must leave every reference intact. */
	sqlite3_stmt *st;
	err = db_prepare(db, "PRAGMA foreign_key_check", &st);
	if (err)
		return err;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		err = db_fail(db, -EIO, "cannot migrate database '%s' to schema version %d: table "
		              "'%s' has a broken reference", db->path, from + 1,
		              (const char *)sqlite3_column_text(st, 0));
	else if (rc != SQLITE_DONE)
		err = db_fail_sql(db, rc, "cannot check references");
	sqlite3_finalize(st);
	return err;
}

int db_migrate(struct db *db, int to)
{
	if (to == 0)
		to = DB_SCHEMA_VERSION;
	if (to < 0 || to > DB_SCHEMA_VERSION)
		return db_fail(db, -EINVAL, "no schema version %d (this rxdeck knows 1 to %d)", to,
		               DB_SCHEMA_VERSION);
	if (db->in_tx)
		return db_fail(db, -EBUSY, "cannot migrate inside a transaction");
	for (;;) {
		int v;
		int err = db_schema_version(db, &v);
		if (err)
			return err;
		if (v > to)
			return db_fail(db, v > DB_SCHEMA_VERSION ? -ENOTSUP : -EINVAL,
			               "database '%s' is at schema version %d; it cannot go back to %d",
			               db->path, v, to);
		if (v == to)
			return 0;
		if (db->read_only)
			return db_fail(db, -EROFS, "database '%s' is at schema version %d and open "
			               "read-only: run 'rxdeck db migrate'", db->path, v);
		/* BEGIN IMMEDIATE, then read the version again: another process
		 * may have migrated while this one waited for the lock. */
		err = db_exec(db, "BEGIN IMMEDIATE");
		if (err)
			return err;
		int again;
		err = db_schema_version(db, &again);
		if (!err && again == v)
			err = db_schema_migrate_step(db, v);
		if (err) {
			sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
			return err;
		}
		err = db_exec(db, "COMMIT");
		if (err) {
			sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
			return err;
		}
	}
}
