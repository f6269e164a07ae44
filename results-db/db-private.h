/* results-db internals shared by its .c files: the handle, error helpers,
 * write transactions and the one-allocation packing of results. */
#ifndef RXDECK_DB_PRIVATE_H
#define RXDECK_DB_PRIVATE_H

#include "db.h"

#include <sqlite3.h>

/* PRAGMA application_id of an rxdeck database: "RXDB". */
#define DB_APPLICATION_ID 0x52584442

struct db {
	sqlite3 *sql;
	char *path;
	bool in_tx;        /* inside db_begin() */
	bool read_only;
	char errmsg[1024];
};

/* Sets db->errmsg from a format and returns err (a negative errno). */
int db_fail(struct db *db, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Sets db->errmsg to "WHAT: <sqlite's message>" and returns the errno that
 * SQLite's result code rc stands for. */
int db_fail_sql(struct db *db, int rc, const char *what);

/* The negative errno for a SQLite result code (extended codes understood). */
int db_errno_from_sqlite(int rc);

/* Prepares sql or fails with a message naming what. */
int db_prepare(struct db *db, const char *sql, sqlite3_stmt **out);

/* Steps a statement that returns no rows and finalizes it: 0, or
 * db_fail_sql(db, rc, what) when it did not run to its end. */
int db_step_write(struct db *db, sqlite3_stmt *st, const char *what);

/* Runs statements that return no rows. */
int db_exec(struct db *db, const char *sql);

/*
 * A write: db_write_begin() opens BEGIN IMMEDIATE, or a savepoint inside
 * db_begin(); db_write_end() commits/releases when err is 0, else rolls
 * back/undoes to the savepoint, keeping the first error's message.
 * Returns err, or the commit's error.
 */
int db_write_begin(struct db *db);
int db_write_end(struct db *db, int err);

/* Milliseconds since the Unix epoch, now. */
int64_t db_now_unix_ms(void);

/* Binds a string, or NULL for a NULL pointer. */
int db_bind_text(sqlite3_stmt *st, int i, const char *s);
/* Binds v, or NULL when v is 0 (the "none" of ids and times). */
int db_bind_nonzero(sqlite3_stmt *st, int i, int64_t v);

/*
 * Packing: results are collected into a growing array of fixed-size items
 * whose string fields (at offsets str_offs) point to malloc'd copies, then
 * db_pack_finish() moves everything into one allocation that free()
 * releases.
 */
struct db_pack {
	char *items;
	size_t n, cap, item_size;
	const size_t *str_offs;
	size_t n_str_offs;
	size_t str_bytes;
};

void db_pack_init(struct db_pack *p, size_t item_size, const size_t *str_offs, size_t n_str_offs);
/* A new zeroed item, or NULL for -ENOMEM. */
void *db_pack_add(struct db_pack *p);
/* Copies the text of column col of st into the string field at *field
 * (NULL stays NULL).  -ENOMEM. */
int db_pack_column_text(struct db_pack *p, const char **field, sqlite3_stmt *st, int col);
/* Copies a C string into a string field. */
int db_pack_strdup(struct db_pack *p, const char **field, const char *s);
/* Moves everything into one allocation: *out and *n.  -ENOMEM (then the
 * pack is released). */
int db_pack_finish(struct db_pack *p, void **out, size_t *n);
void db_pack_release(struct db_pack *p);

/* Steps a statement that returns rows into a pack, one item per row, with
 * a per-row reader.  Returns 0 or a negative errno (message set). */
typedef int (*db_row_fn)(struct db_pack *p, void *item, sqlite3_stmt *st);
int db_collect(struct db *db, sqlite3_stmt *st, struct db_pack *p, db_row_fn row,
               const char *what, void **out, size_t *n);

/* Internals used by several files (no transaction of their own). */
int db_schema_migrate_step(struct db *db, int from_version);
int db_run_store_parts(struct db *db, int64_t run_id, const struct db_run_results *r);
int db_frames_store_tx(struct db *db, int64_t run_id, const struct db_frame *f, size_t n);
int db_samples_store_tx(struct db *db, int64_t run_id, const struct db_sample *s, size_t n);
int db_metrics_store_tx(struct db *db, int64_t run_id, const struct db_metric *m, size_t n);
int db_log_lines_store_tx(struct db *db, int64_t run_id, const struct db_log_line *l, size_t n);
int db_shots_store_tx(struct db *db, int64_t run_id, const struct db_shot *s, size_t n);
int db_campaign_create_tx(struct db *db, const struct db_campaign *c, int64_t *id_out);
int db_campaign_set_status_tx(struct db *db, int64_t campaign_id, enum db_campaign_status status,
                              int64_t finished_unix_ms);
int db_campaign_set_stop_reason_tx(struct db *db, int64_t campaign_id, const char *reason);
int db_build_add_tx(struct db *db, const struct db_build *b, int64_t *id_out);
int db_arm_add_tx(struct db *db, const struct db_arm *a, int64_t *id_out);
int db_route_marks_store_tx(struct db *db, int64_t campaign_id, const struct db_route_mark *m,
                            size_t n);
int db_run_plan_tx(struct db *db, int64_t campaign_id, const struct db_run *runs, size_t n);
/* Writes a run's status fields as given (import). */
int db_run_set_state_tx(struct db *db, int64_t run_id, const struct db_run *r);
int db_post_insert_tx(struct db *db, const struct db_post *p, int64_t *id_out);

/* Whether an imported campaign's name can be its run folder's name
 * (runs/<name>): 1..200 bytes, no '/', no leading '.', no control
 * character.  Campaigns made here get such names from the harness. */
bool db_campaign_name_is_folder(const char *name);

#endif
