/* results-db: opening and closing the database, error reporting, write
 * transactions, and the packing of read results into one allocation.
 *
 * This file owns the SQLite connection's settings (WAL, foreign keys, busy
 * timeout) and the rule that decides whether a file is an rxdeck database.
 * The schema and its migrations are in schema.c; the tables' reads and
 * writes in campaign.c, run.c, post.c and export.c.
 */
#include "db-private.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int db_fail(struct db *db, int err, const char *fmt, ...)
{
	if (db) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(db->errmsg, sizeof db->errmsg, fmt, ap);
		va_end(ap);
	}
	return err;
}

int db_errno_from_sqlite(int rc)
{
	switch (rc) {
	case SQLITE_OK:
	case SQLITE_ROW:
	case SQLITE_DONE:
		return 0;
	case SQLITE_CONSTRAINT_UNIQUE:
	case SQLITE_CONSTRAINT_PRIMARYKEY:
		return -EEXIST;
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_BUSY:
	case SQLITE_BUSY_SNAPSHOT:
	case SQLITE_BUSY_RECOVERY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_READONLY:
	case SQLITE_READONLY_DBMOVED:
	case SQLITE_READONLY_RECOVERY:
	case SQLITE_READONLY_CANTLOCK:
		return -EROFS;
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return -EACCES;
	case SQLITE_NOTADB:
		return -EINVAL;
	case SQLITE_CORRUPT:
		return -EIO;
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_TOOBIG:
		return -E2BIG;
	case SQLITE_CANTOPEN:
		return -ENOENT;
	}
	switch (rc & 0xff) {
	case SQLITE_CONSTRAINT:
		return -EINVAL;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_READONLY:
		return -EROFS;
	case SQLITE_CANTOPEN:
		return -ENOENT;
	case SQLITE_CORRUPT:
		return -EIO;
	case SQLITE_MISUSE:
	case SQLITE_RANGE:
		return -EINVAL;
	}
	return -EIO;
}

int db_fail_sql(struct db *db, int rc, const char *what)
{
	int err = db_errno_from_sqlite(rc);
	if (err == 0)
		err = -EIO;
	/* Keep the first, most specific message when a rollback follows. */
	return db_fail(db, err, "%s: %s", what, db->sql ? sqlite3_errmsg(db->sql) : sqlite3_errstr(rc));
}

int db_prepare(struct db *db, const char *sql, sqlite3_stmt **out)
{
	int rc = sqlite3_prepare_v2(db->sql, sql, -1, out, NULL);
	if (rc != SQLITE_OK)
		return db_fail_sql(db, rc, "cannot prepare a statement");
	return 0;
}

int db_step_write(struct db *db, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_fail_sql(db, rc, what);
	return 0;
}

int db_exec(struct db *db, const char *sql)
{
	char *msg = NULL;
	int rc = sqlite3_exec(db->sql, sql, NULL, NULL, &msg);
	if (rc != SQLITE_OK) {
		int err = db_errno_from_sqlite(rc);
		db_fail(db, err ? err : -EIO, "database '%s': %s", db->path, msg ? msg : sqlite3_errstr(rc));
		sqlite3_free(msg);
		return err ? err : -EIO;
	}
	return 0;
}

int64_t db_now_unix_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int db_bind_text(sqlite3_stmt *st, int i, const char *s)
{
	return s ? sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
}

int db_bind_nonzero(sqlite3_stmt *st, int i, int64_t v)
{
	return v ? sqlite3_bind_int64(st, i, v) : sqlite3_bind_null(st, i);
}

/* ---- write transactions ---- */

int db_write_begin(struct db *db)
{
	if (db->read_only)
		return db_fail(db, -EROFS, "database '%s' is open read-only", db->path);
	return db_exec(db, db->in_tx ? "SAVEPOINT db_write" : "BEGIN IMMEDIATE");
}

int db_write_end(struct db *db, int err)
{
	if (err == 0) {
		int rc = sqlite3_exec(db->sql, db->in_tx ? "RELEASE db_write" : "COMMIT", NULL, NULL,
		                      NULL);
		if (rc == SQLITE_OK)
			return 0;
		err = db_fail_sql(db, rc, "cannot commit");
	}
	if (db->in_tx) {
		sqlite3_exec(db->sql, "ROLLBACK TO db_write", NULL, NULL, NULL);
		sqlite3_exec(db->sql, "RELEASE db_write", NULL, NULL, NULL);
	} else if (!sqlite3_get_autocommit(db->sql)) {
		sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
	}
	return err;
}

int db_begin(struct db *db)
{
	if (db->in_tx)
		return db_fail(db, -EBUSY, "a transaction is already open on '%s'", db->path);
	if (db->read_only)
		return db_fail(db, -EROFS, "database '%s' is open read-only", db->path);
	int err = db_exec(db, "BEGIN IMMEDIATE");
	if (err == 0)
		db->in_tx = true;
	return err;
}

int db_commit(struct db *db)
{
	if (!db->in_tx)
		return db_fail(db, -EINVAL, "no transaction is open on '%s'", db->path);
	int err = db_exec(db, "COMMIT");
	if (err < 0) {
		/* A failed COMMIT (busy) leaves the transaction open: undo it so
		 * the caller never wonders what half of it stuck. */
		sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
	}
	db->in_tx = false;
	return err;
}

int db_rollback(struct db *db)
{
	if (!db->in_tx)
		return db_fail(db, -EINVAL, "no transaction is open on '%s'", db->path);
	db->in_tx = false;
	if (sqlite3_get_autocommit(db->sql))
		return 0;
	return db_exec(db, "ROLLBACK");
}

/* ---- opening ---- */

const char *db_errmsg(const struct db *db)
{
	return db ? db->errmsg : "";
}

const char *db_path(const struct db *db)
{
	return db->path;
}

int db_default_path(char **out)
{
	const char *xdg = getenv("XDG_DATA_HOME");
	const char *home = getenv("HOME");
	char *p = NULL;
	int n;
	if (xdg && xdg[0] == '/')
		n = asprintf(&p, "%s/rxdeck/results.db", xdg);
	else if (home && home[0] == '/')
		n = asprintf(&p, "%s/.local/share/rxdeck/results.db", home);
	else
		return -ENOENT;
	if (n < 0)
		return -ENOMEM;
	*out = p;
	return 0;
}

/* mkdir -p of path's parent folder. */
static int make_parents(const char *path, char *errmsg, size_t errmsg_size)
{
	char buf[PATH_MAX];
	if (strlen(path) >= sizeof buf)
		return -ENAMETOOLONG;
	strcpy(buf, path);
	char *slash = strrchr(buf, '/');
	if (!slash || slash == buf)
		return 0;
	*slash = '\0';
	for (char *p = buf + 1; ; p++) {
		if (*p == '/' || *p == '\0') {
			char c = *p;
			*p = '\0';
			if (mkdir(buf, 0700) != 0 && errno != EEXIST) {
				int err = -errno;
				if (errmsg)
					snprintf(errmsg, errmsg_size, "cannot create folder '%s': %s",
					         buf, strerror(errno));
				return err;
			}
			*p = c;
			if (c == '\0')
				break;
		}
	}
	return 0;
}

static void set_open_error(const struct db_open_options *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void set_open_error(const struct db_open_options *o, const char *fmt, ...)
{
	if (!o || !o->errmsg || o->errmsg_size == 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(o->errmsg, o->errmsg_size, fmt, ap);
	va_end(ap);
}

static int query_int(struct db *db, const char *sql, int64_t *out)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db->sql, sql, -1, &st, NULL);
	if (rc == SQLITE_OK) {
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW) {
			*out = sqlite3_column_int64(st, 0);
			rc = SQLITE_OK;
		}
		sqlite3_finalize(st);
	}
	if (rc != SQLITE_OK) {
		int err = db_errno_from_sqlite(rc);
		return db_fail(db, err ? err : -EIO, "cannot open database '%s': %s", db->path,
		               sqlite3_errmsg(db->sql));
	}
	return 0;
}

/* Is this an rxdeck database (or an empty file that may become one)? */
/* The file is SQLite, of rxdeck (or new), of a schema this code knows.
 * must_exist: an empty file (no schema, no tables: what SQLite makes of a
 * 0-byte file) is refused too, not taken for a new database. */
static int check_identity(struct db *db, bool must_exist)
{
	int64_t app = 0, version = 0, tables = 0;
	int err = query_int(db, "PRAGMA application_id", &app);
	if (!err)
		err = query_int(db, "PRAGMA user_version", &version);
	if (!err)
		err = query_int(db, "SELECT count(*) FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'",
		                &tables);
	if (err)
		return err;
	if (app != 0 && app != DB_APPLICATION_ID)
		return db_fail(db, -EINVAL, "'%s' is an SQLite database of another program "
		               "(application id 0x%08llx), not an rxdeck one",
		               db->path, (unsigned long long)app);
	if (app == 0 && tables > 0)
		return db_fail(db, -EINVAL, "'%s' is an SQLite database of another program "
		               "(it has tables but no rxdeck schema version), not an rxdeck one",
		               db->path);
	if (must_exist && app == 0 && version == 0 && tables == 0)
		return db_fail(db, -EINVAL, "'%s' is not an rxdeck database: it is empty "
		               "(a results database is made by 'rxdeck run', 'ab' or 'import')",
		               db->path);
	if (version > DB_SCHEMA_VERSION)
		return db_fail(db, -ENOTSUP, "database '%s' has schema version %lld, newer than "
		               "this rxdeck understands (%d); use a newer rxdeck",
		               db->path, (long long)version, DB_SCHEMA_VERSION);
	return 0;
}

int db_open(const char *path, struct db **out)
{
	return db_open_ex(path, NULL, out);
}

int db_open_ex(const char *path, const struct db_open_options *opts, struct db **out)
{
	unsigned flags = opts ? opts->flags : 0;
	if (flags & DB_OPEN_READ_ONLY)
		flags |= DB_OPEN_NO_CREATE | DB_OPEN_NO_MIGRATE;
	char *default_path = NULL;
	if (!path) {
		int err = db_default_path(&default_path);
		if (err) {
			set_open_error(opts, "cannot find the default database: neither XDG_DATA_HOME "
			                     "nor HOME is an absolute path");
			return err;
		}
		path = default_path;
	}
	bool memory = strcmp(path, ":memory:") == 0;
	struct db *db = calloc(1, sizeof *db);
	if (!db || !(db->path = strdup(path))) {
		free(db);
		free(default_path);
		set_open_error(opts, "out of memory");
		return -ENOMEM;
	}
	free(default_path);
	db->read_only = flags & DB_OPEN_READ_ONLY;
	int err = 0;

	if (!memory) {
		struct stat st;
		if (stat(db->path, &st) != 0) {
			if (errno != ENOENT || (flags & DB_OPEN_NO_CREATE)) {
				err = -errno;
				set_open_error(opts, "cannot open database '%s': %s", db->path,
				               strerror(errno));
				goto fail;
			}
			err = make_parents(db->path, opts ? opts->errmsg : NULL,
			                   opts ? opts->errmsg_size : 0);
			if (err)
				goto fail;
		} else if (S_ISDIR(st.st_mode)) {
			err = -EISDIR;
			set_open_error(opts, "cannot open database '%s': %s", db->path, strerror(EISDIR));
			goto fail;
		}
	}

	int oflags = db->read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	int rc = sqlite3_open_v2(db->path, &db->sql, oflags, NULL);
	if (rc != SQLITE_OK) {
		err = db_errno_from_sqlite(rc);
		if (rc == SQLITE_CANTOPEN && sqlite3_system_errno(db->sql))
			err = -sqlite3_system_errno(db->sql);
		set_open_error(opts, "cannot open database '%s': %s", db->path,
		               db->sql ? sqlite3_errmsg(db->sql) : sqlite3_errstr(rc));
		goto fail;
	}
	sqlite3_extended_result_codes(db->sql, 1);
	sqlite3_busy_timeout(db->sql, opts && opts->busy_timeout_ms > 0 ? opts->busy_timeout_ms : 5000);

	/* The first read proves the file is SQLite at all. */
	err = check_identity(db, !memory && (flags & DB_OPEN_NO_CREATE));
	if (!err)
		err = db_exec(db, "PRAGMA foreign_keys = ON");
	if (!err && !db->read_only && !memory) {
		sqlite3_stmt *st;
		err = db_prepare(db, "PRAGMA journal_mode = WAL", &st);
		if (!err) {
			rc = sqlite3_step(st);
			const char *mode = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
			if (!mode || strcmp(mode, "wal") != 0)
				err = db_fail(db, rc == SQLITE_ROW ? -EIO : db_errno_from_sqlite(rc),
				              "cannot switch database '%s' to WAL mode: %s", db->path,
				              mode ? mode : sqlite3_errmsg(db->sql));
			sqlite3_finalize(st);
		}
	}
	if (!err && !(flags & DB_OPEN_NO_MIGRATE))
		err = db_migrate(db, 0);
	if (err) {
		set_open_error(opts, "%s", db->errmsg);
		goto fail;
	}
	*out = db;
	return 0;
fail:
	if (err == 0)
		err = -EIO;
	sqlite3_close(db->sql);
	free(db->path);
	free(db);
	return err;
}

void db_close(struct db *db)
{
	if (!db)
		return;
	if (db->in_tx)
		sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(db->sql);
	free(db->path);
	free(db);
}

/* ---- packing ---- */

void db_pack_init(struct db_pack *p, size_t item_size, const size_t *str_offs, size_t n_str_offs)
{
	*p = (struct db_pack){ .item_size = item_size, .str_offs = str_offs, .n_str_offs = n_str_offs };
}

void *db_pack_add(struct db_pack *p)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		char *n = realloc(p->items, cap * p->item_size);
		if (!n)
			return NULL;
		p->items = n;
		p->cap = cap;
	}
	void *item = p->items + p->n * p->item_size;
	memset(item, 0, p->item_size);
	p->n++;
	return item;
}

int db_pack_strdup(struct db_pack *p, const char **field, const char *s)
{
	if (!s) {
		*field = NULL;
		return 0;
	}
	char *c = strdup(s);
	if (!c)
		return -ENOMEM;
	*field = c;
	p->str_bytes += strlen(s) + 1;
	return 0;
}

int db_pack_column_text(struct db_pack *p, const char **field, sqlite3_stmt *st, int col)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL) {
		*field = NULL;
		return 0;
	}
	const char *t = (const char *)sqlite3_column_text(st, col);
	if (!t)
		return -ENOMEM;
	return db_pack_strdup(p, field, t);
}

void db_pack_release(struct db_pack *p)
{
	for (size_t i = 0; i < p->n; i++)
		for (size_t k = 0; k < p->n_str_offs; k++)
			free(*(char **)(p->items + i * p->item_size + p->str_offs[k]));
	free(p->items);
	*p = (struct db_pack){ 0 };
}

int db_pack_finish(struct db_pack *p, void **out, size_t *n)
{
	size_t array_B = p->n * p->item_size;
	char *block = malloc(array_B + p->str_bytes + 1);
	if (!block) {
		db_pack_release(p);
		return -ENOMEM;
	}
	if (array_B)
		memcpy(block, p->items, array_B);
	char *strings = block + array_B;
	for (size_t i = 0; i < p->n; i++) {
		for (size_t k = 0; k < p->n_str_offs; k++) {
			char **field = (char **)(block + i * p->item_size + p->str_offs[k]);
			if (!*field)
				continue;
			size_t len = strlen(*field) + 1;
			memcpy(strings, *field, len);
			free(*field);
			*field = strings;
			strings += len;
		}
	}
	size_t count = p->n;
	free(p->items);
	*p = (struct db_pack){ 0 };
	*out = block;
	*n = count;
	return 0;
}

int db_collect(struct db *db, sqlite3_stmt *st, struct db_pack *p, db_row_fn row,
               const char *what, void **out, size_t *n)
{
	int rc, err = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		void *item = db_pack_add(p);
		if (!item || row(p, item, st) < 0) {
			err = db_fail(db, -ENOMEM, "out of memory reading %s", what);
			break;
		}
	}
	if (!err && rc != SQLITE_DONE)
		err = db_fail_sql(db, rc, what);
	sqlite3_finalize(st);
	if (err) {
		db_pack_release(p);
		return err;
	}
	void *block;
	size_t count;
	if (db_pack_finish(p, &block, &count) < 0)
		return db_fail(db, -ENOMEM, "out of memory reading %s", what);
	*n = count;
	*out = block;
	return 0;
}
