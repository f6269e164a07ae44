/* results-db runs: planning, the run state machine (planned -> running ->
 * done | void), and each run's results: frames, sampler readings, metrics,
 * matched log lines and screenshots.
 *
 * Frames are kept as one packed blob per run (table frame_set), not one row
 * per frame: a run of a million frames is read back in a fraction of the
 * time and the file is smaller (bench/db-frames.c, docs/performance.md),
 * and nothing ever queries single frames in SQL; analysis reads a run's
 * frames whole.  The blob is little-endian whatever the host:
 *   "RXFR", u32 format (2), u64 count, then count records of 47 bytes:
 *   i64 frame, i64 present_ns, f64 frame_ms, f64 rb_wait_ms, f64 memsync_ms,
 *   u32 draws, u8 kind, u8 absent (enum db_frame_absent), u8 source.
 * Format 1 (45-byte records, without the last two bytes: every column
 * present, the renderer's log) is still read.
 */
#include "db-private.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

#define FRAME_FORMAT 2
#define FRAME_HEADER_B 16
#define FRAME_RECORD_B 47
#define FRAME_RECORD_V1_B 45

/* The run's status; -ENOENT when there is no such run. */
static int run_status(struct db *db, int64_t run_id, enum db_run_status *out)
{
	sqlite3_stmt *st;
	int err = db_prepare(db, "SELECT status FROM run WHERE id = ?", &st);
	if (err)
		return err;
	sqlite3_bind_int64(st, 1, run_id);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		enum db_run_status s = DB_RUN_PLANNED;
		db_run_status_parse((const char *)sqlite3_column_text(st, 0), &s);
		*out = s;
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return db_fail(db, -ENOENT, "no run with id %lld in '%s'", (long long)run_id, db->path);
	if (rc != SQLITE_ROW)
		return db_fail_sql(db, rc, "cannot read the run");
	return 0;
}

/* ---- planning and the run list ---- */

int db_run_plan_tx(struct db *db, int64_t campaign_id, const struct db_run *runs, size_t n)
{
	sqlite3_stmt *st;
	int err = db_prepare(db, "INSERT INTO run (campaign_id, arm_id, round, position, is_warmup) "
	                         "VALUES (?,?,?,?,?)", &st);
	if (err)
		return err;
	for (size_t i = 0; i < n && !err; i++) {
		const struct db_run *r = &runs[i];
		if (r->round < 0 || r->position <= 0) {
			err = db_fail(db, -EINVAL, "planned run %zu: round %d, position %d (positions "
			              "start at 1, rounds at 0)", i, r->round, r->position);
			break;
		}
		sqlite3_bind_int64(st, 1, campaign_id);
		sqlite3_bind_int64(st, 2, r->arm_id);
		sqlite3_bind_int(st, 3, r->round);
		sqlite3_bind_int(st, 4, r->position);
		sqlite3_bind_int(st, 5, r->is_warmup ? 1 : 0);
		int rc = sqlite3_step(st);
		if (rc == SQLITE_CONSTRAINT_UNIQUE)
			err = db_fail(db, -EEXIST, "position %d is already planned in campaign %lld",
			              r->position, (long long)campaign_id);
		else if (rc == SQLITE_CONSTRAINT_FOREIGNKEY)
			err = db_fail(db, -EINVAL, "arm %lld is not an arm of campaign %lld",
			              (long long)r->arm_id, (long long)campaign_id);
		else if (rc != SQLITE_DONE)
			err = db_fail_sql(db, rc, "cannot plan a run");
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return err;
}

int db_run_plan(struct db *db, int64_t campaign_id, const struct db_run *runs, size_t n)
{
	int err = db_write_begin(db);
	if (err)
		return err;
	return db_write_end(db, db_run_plan_tx(db, campaign_id, runs, n));
}

static const size_t run_strs[] = {
	offsetof(struct db_run, void_reason), offsetof(struct db_run, run_dir),
	offsetof(struct db_run, config),
};

#define RUN_SELECT                                                                               \
	"SELECT r.id, r.campaign_id, r.arm_id, a.letter, r.round, r.position, r.is_warmup, "     \
	"r.status, r.start_unix_ms, r.end_unix_ms, r.exit_status, r.void_reason, r.run_dir, "    \
	"r.config FROM run r JOIN arm a ON a.id = r.arm_id "

static int run_row(struct db_pack *p, void *item, sqlite3_stmt *st)
{
	struct db_run *r = item;
	r->id = sqlite3_column_int64(st, 0);
	r->campaign_id = sqlite3_column_int64(st, 1);
	r->arm_id = sqlite3_column_int64(st, 2);
	const unsigned char *letter = sqlite3_column_text(st, 3);
	r->arm_letter = letter ? (char)letter[0] : '?';
	r->round = sqlite3_column_int(st, 4);
	r->position = sqlite3_column_int(st, 5);
	r->is_warmup = sqlite3_column_int(st, 6) != 0;
	enum db_run_status s = DB_RUN_PLANNED;
	db_run_status_parse((const char *)sqlite3_column_text(st, 7), &s);
	r->status = s;
	r->start_unix_ms = sqlite3_column_int64(st, 8);
	r->end_unix_ms = sqlite3_column_int64(st, 9);
	r->exit_status = sqlite3_column_type(st, 10) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 10);
	if (db_pack_column_text(p, &r->void_reason, st, 11) < 0 ||
	    db_pack_column_text(p, &r->run_dir, st, 12) < 0 ||
	    db_pack_column_text(p, &r->config, st, 13) < 0)
		return -ENOMEM;
	return 0;
}

static int run_query(struct db *db, const char *sql, int64_t id, struct db_run **out, size_t *n)
{
	sqlite3_stmt *st;
	int err = db_prepare(db, sql, &st);
	if (err)
		return err;
	sqlite3_bind_int64(st, 1, id);
	struct db_pack p;
	db_pack_init(&p, sizeof(struct db_run), run_strs, N_OF(run_strs));
	void *block;
	size_t count;
	err = db_collect(db, st, &p, run_row, "runs", &block, &count);
	if (err)
		return err;
	*out = block;
	*n = count;
	return 0;
}

int db_run_list(struct db *db, int64_t campaign_id, struct db_run **out, size_t *n)
{
	return run_query(db, RUN_SELECT "WHERE r.campaign_id = ? ORDER BY r.position", campaign_id,
	                 out, n);
}

int db_run_get(struct db *db, int64_t run_id, struct db_run **out)
{
	struct db_run *r;
	size_t n;
	int err = run_query(db, RUN_SELECT "WHERE r.id = ?", run_id, &r, &n);
	if (err)
		return err;
	if (n == 0) {
		free(r);
		return db_fail(db, -ENOENT, "no run with id %lld in '%s'", (long long)run_id, db->path);
	}
	*out = r;
	return 0;
}

int db_run_next(struct db *db, int64_t campaign_id, struct db_run **out)
{
	struct db_run *r;
	size_t n;
	int err = run_query(db, RUN_SELECT "WHERE r.campaign_id = ? AND r.status IN "
	                                   "('planned', 'running') ORDER BY r.position LIMIT 1",
	                    campaign_id, &r, &n);
	if (err)
		return err;
	if (n == 0) {
		free(r);
		return db_fail(db, -ENOENT, "campaign %lld has no unfinished run",
		               (long long)campaign_id);
	}
	*out = r;
	return 0;
}

/* ---- the run state machine ---- */

int db_run_mark_running(struct db *db, int64_t run_id, int64_t start_unix_ms, const char *run_dir)
{
	int err = db_write_begin(db);
	if (err)
		return err;
	enum db_run_status s;
	err = run_status(db, run_id, &s);
	if (!err && (s == DB_RUN_DONE || s == DB_RUN_VOID))
		err = db_fail(db, -EALREADY, "run %lld is already %s", (long long)run_id,
		              db_run_status_name(s));
	sqlite3_stmt *st;
	if (!err)
		err = db_prepare(db, "UPDATE run SET status = 'running', start_unix_ms = ?, "
		                     "run_dir = ?, end_unix_ms = NULL, exit_status = NULL, "
		                     "void_reason = NULL WHERE id = ?", &st);
	if (!err) {
		if (start_unix_ms == DB_UNTIMED)
			sqlite3_bind_null(st, 1);
		else
			sqlite3_bind_int64(st, 1, start_unix_ms ? start_unix_ms : db_now_unix_ms());
		db_bind_text(st, 2, run_dir);
		sqlite3_bind_int64(st, 3, run_id);
		err = db_step_write(db, st, "cannot mark the run running");
	}
	return db_write_end(db, err);
}

static int bind_exit(sqlite3_stmt *st, int i, int exit_status)
{
	return exit_status < 0 ? sqlite3_bind_null(st, i) : sqlite3_bind_int(st, i, exit_status);
}

int db_run_mark_done(struct db *db, int64_t run_id, int64_t end_unix_ms, int exit_status)
{
	int err = db_write_begin(db);
	if (err)
		return err;
	enum db_run_status s;
	err = run_status(db, run_id, &s);
	if (!err && s == DB_RUN_PLANNED)
		err = db_fail(db, -EINVAL, "run %lld was never started", (long long)run_id);
	if (!err && s == DB_RUN_VOID)
		err = db_fail(db, -EALREADY, "run %lld is void", (long long)run_id);
	sqlite3_stmt *st;
	if (!err)
		err = db_prepare(db, "UPDATE run SET status = 'done', end_unix_ms = ?, "
		                     "exit_status = ? WHERE id = ?", &st);
	if (!err) {
		sqlite3_bind_int64(st, 1, end_unix_ms ? end_unix_ms : db_now_unix_ms());
		bind_exit(st, 2, exit_status);
		sqlite3_bind_int64(st, 3, run_id);
		err = db_step_write(db, st, "cannot mark the run done");
	}
	return db_write_end(db, err);
}

int db_run_mark_void(struct db *db, int64_t run_id, const char *reason, int64_t end_unix_ms,
                     int exit_status)
{
	if (!reason || !reason[0])
		return db_fail(db, -EINVAL, "voiding run %lld needs a reason", (long long)run_id);
	int err = db_write_begin(db);
	if (err)
		return err;
	enum db_run_status s;
	err = run_status(db, run_id, &s);
	sqlite3_stmt *st;
	if (!err)
		err = db_prepare(db, "UPDATE run SET status = 'void', void_reason = ?1, "
		                     "end_unix_ms = CASE WHEN ?2 IS NOT NULL THEN ?2 "
		                     "ELSE coalesce(end_unix_ms, ?3) END, "
		                     "exit_status = coalesce(?4, exit_status) WHERE id = ?5", &st);
	if (!err) {
		sqlite3_bind_text(st, 1, reason, -1, SQLITE_TRANSIENT);
		db_bind_nonzero(st, 2, end_unix_ms);
		sqlite3_bind_int64(st, 3, db_now_unix_ms());
		bind_exit(st, 4, exit_status);
		sqlite3_bind_int64(st, 5, run_id);
		err = db_step_write(db, st, "cannot mark the run void");
	}
	return db_write_end(db, err);
}

/* ---- frames ---- */

static void put_u32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put_u64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put_f64(unsigned char *p, double d)
{
	uint64_t v;
	memcpy(&v, &d, 8);
	put_u64(p, v);
}

static uint32_t get_u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static double get_f64(const unsigned char *p)
{
	uint64_t v = get_u64(p);
	double d;
	memcpy(&d, &v, 8);
	return d;
}

static int check_frame(struct db *db, int64_t run_id, size_t i, const struct db_frame *f)
{
	const char *bad = NULL;
	if (f->kind != DB_FRAME_REAL && f->kind != DB_FRAME_SHOWN)
		return db_fail(db, -EINVAL, "frame %zu of run %lld: kind %u is neither real nor shown",
		               i, (long long)run_id, f->kind);
	if (f->absent & ~DB_FRAME_ABSENT_ALL)
		return db_fail(db, -EINVAL, "frame %zu of run %lld: absent bits 0x%x are not columns",
		               i, (long long)run_id, f->absent);
	if (!db_frame_source_name((enum db_frame_source)f->source))
		return db_fail(db, -EINVAL, "frame %zu of run %lld: source %u is not a frame source",
		               i, (long long)run_id, f->source);
	if (!(f->absent & DB_FRAME_NO_FRAME_MS) && !isfinite(f->frame_ms))
		bad = "frame_ms";
	else if (!(f->absent & DB_FRAME_NO_RB_WAIT_MS) && !isfinite(f->rb_wait_ms))
		bad = "rb_wait_ms";
	else if (!(f->absent & DB_FRAME_NO_MEMSYNC_MS) && !isfinite(f->memsync_ms))
		bad = "memsync_ms";
	if (bad)
		return db_fail(db, -EINVAL, "frame %zu of run %lld: %s is not a finite number", i,
		               (long long)run_id, bad);
	return 0;
}

const char *db_frame_source_name(enum db_frame_source source)
{
	switch (source) {
	case DB_FRAME_RXVK:
		return "rxvk";
	case DB_FRAME_MANGOHUD:
		return "mangohud";
	case DB_FRAME_PRESENTMON:
		return "presentmon";
	}
	return NULL;
}

/* An absent column is stored as 0, whatever the caller left in it. */
static double present_or_0(const struct db_frame *f, unsigned bit, double v)
{
	return f->absent & bit ? 0.0 : v;
}

int db_frames_store_tx(struct db *db, int64_t run_id, const struct db_frame *f, size_t n)
{
	if (n > (SIZE_MAX - FRAME_HEADER_B) / FRAME_RECORD_B ||
	    FRAME_HEADER_B + n * FRAME_RECORD_B > (size_t)sqlite3_limit(db->sql, SQLITE_LIMIT_LENGTH, -1))
		return db_fail(db, -E2BIG, "run %lld: %zu frames are more than one database value holds",
		               (long long)run_id, n);
	enum db_run_status s;
	int err = run_status(db, run_id, &s);
	if (err)
		return err;
	size_t size_B = FRAME_HEADER_B + n * FRAME_RECORD_B;
	unsigned char *blob = malloc(size_B);
	if (!blob)
		return db_fail(db, -ENOMEM, "out of memory packing %zu frames", n);
	memcpy(blob, "RXFR", 4);
	put_u32(blob + 4, FRAME_FORMAT);
	put_u64(blob + 8, n);
	unsigned char *p = blob + FRAME_HEADER_B;
	for (size_t i = 0; i < n; i++, p += FRAME_RECORD_B) {
		err = check_frame(db, run_id, i, &f[i]);
		if (err) {
			free(blob);
			return err;
		}
		put_u64(p, (uint64_t)f[i].frame);
		put_u64(p + 8, (uint64_t)f[i].present_ns);
		put_f64(p + 16, present_or_0(&f[i], DB_FRAME_NO_FRAME_MS, f[i].frame_ms));
		put_f64(p + 24, present_or_0(&f[i], DB_FRAME_NO_RB_WAIT_MS, f[i].rb_wait_ms));
		put_f64(p + 32, present_or_0(&f[i], DB_FRAME_NO_MEMSYNC_MS, f[i].memsync_ms));
		put_u32(p + 40, f[i].absent & DB_FRAME_NO_DRAWS ? 0 : f[i].draws);
		p[44] = f[i].kind;
		p[45] = f[i].absent;
		p[46] = f[i].source;
	}
	sqlite3_stmt *st;
	err = db_prepare(db, "INSERT OR REPLACE INTO frame_set (run_id, n_frames, format, data) "
	                     "VALUES (?,?,?,?)", &st);
	if (!err) {
		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)n);
		sqlite3_bind_int(st, 3, FRAME_FORMAT);
		sqlite3_bind_blob64(st, 4, blob, size_B, SQLITE_STATIC);
		err = db_step_write(db, st, "cannot store the frames");
	}
	free(blob);
	return err;
}

int db_frames_store(struct db *db, int64_t run_id, const struct db_frame *frames, size_t n)
{
	int err = db_write_begin(db);
	if (err)
		return err;
	return db_write_end(db, db_frames_store_tx(db, run_id, frames, n));
}

int db_frames_read(struct db *db, int64_t run_id, struct db_frame **out, size_t *n)
{
	enum db_run_status s;
	int err = run_status(db, run_id, &s);
	if (err)
		return err;
	sqlite3_stmt *st;
	err = db_prepare(db, "SELECT n_frames, format, data FROM frame_set WHERE run_id = ?", &st);
	if (err)
		return err;
	sqlite3_bind_int64(st, 1, run_id);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		sqlite3_finalize(st);
		struct db_frame *none = malloc(1);
		if (!none)
			return db_fail(db, -ENOMEM, "out of memory");
		*out = none;
		*n = 0;
		return 0;
	}
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		return db_fail_sql(db, rc, "cannot read the frames");
	}
	int64_t count = sqlite3_column_int64(st, 0);
	int format = sqlite3_column_int(st, 1);
	const unsigned char *blob = sqlite3_column_blob(st, 2);
	size_t size_B = (size_t)sqlite3_column_bytes(st, 2);
	size_t record_B = format == 1 ? FRAME_RECORD_V1_B : FRAME_RECORD_B;
	if ((format != 1 && format != FRAME_FORMAT) || count < 0 || size_B < FRAME_HEADER_B ||
	    !blob || memcmp(blob, "RXFR", 4) != 0 || get_u32(blob + 4) != (uint32_t)format ||
	    get_u64(blob + 8) != (uint64_t)count ||
	    (size_B - FRAME_HEADER_B) / record_B != (uint64_t)count ||
	    (size_B - FRAME_HEADER_B) % record_B != 0) {
		sqlite3_finalize(st);
		return db_fail(db, -EIO, "the frames of run %lld are damaged (format %d, %zu bytes "
		               "for %lld frames)", (long long)run_id, format, size_B, (long long)count);
	}
	struct db_frame *f = malloc((size_t)count * sizeof *f + 1);
	if (!f) {
		sqlite3_finalize(st);
		return db_fail(db, -ENOMEM, "out of memory reading %lld frames", (long long)count);
	}
	const unsigned char *p = blob + FRAME_HEADER_B;
	for (int64_t i = 0; i < count; i++, p += record_B) {
		f[i] = (struct db_frame){
			.frame = (int64_t)get_u64(p),
			.present_ns = (int64_t)get_u64(p + 8),
			.frame_ms = get_f64(p + 16),
			.rb_wait_ms = get_f64(p + 24),
			.memsync_ms = get_f64(p + 32),
			.draws = get_u32(p + 40),
			.kind = p[44],
			.absent = format == 1 ? 0 : p[45],
			.source = format == 1 ? DB_FRAME_RXVK : p[46],
		};
	}
	sqlite3_finalize(st);
	*out = f;
	*n = (size_t)count;
	return 0;
}

/* ---- samples ---- */

int db_samples_store_tx(struct db *db, int64_t run_id, const struct db_sample *s, size_t n)
{
	enum db_run_status status;
	int err = run_status(db, run_id, &status);
	sqlite3_stmt *st;
	if (!err)
		err = db_prepare(db, "INSERT INTO sample (run_id, t_ns, name, value) VALUES (?,?,?,?)",
		                 &st);
	if (err)
		return err;
	for (size_t i = 0; i < n && !err; i++) {
		if (!s[i].name || !s[i].name[0]) {
			err = db_fail(db, -EINVAL, "sample %zu of run %lld has no name", i,
			              (long long)run_id);
			break;
		}
		if (!s[i].absent && !isfinite(s[i].value)) {
			err = db_fail(db, -EINVAL, "sample '%s' at %lld ns of run %lld: %g is not a "
			              "finite number (an unknown value is stored as absent)", s[i].name,
			              (long long)s[i].t_ns, (long long)run_id, s[i].value);
			break;
		}
		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_int64(st, 2, s[i].t_ns);
		sqlite3_bind_text(st, 3, s[i].name, -1, SQLITE_STATIC);
		if (s[i].absent)
			sqlite3_bind_null(st, 4);
		else
			sqlite3_bind_double(st, 4, s[i].value);
		int rc = sqlite3_step(st);
		if (rc != SQLITE_DONE)
			err = db_fail_sql(db, rc, "cannot store a sample");
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
	}
	sqlite3_finalize(st);
	return err;
}

int db_samples_store(struct db *db, int64_t run_id, const struct db_sample *s, size_t n)
{
	int err = db_write_begin(db);
	if (err)
		return err;
	return db_write_end(db, db_samples_store_tx(db, run_id, s, n));
}

static const size_t sample_strs[] = { offsetof(struct db_sample, name) };

static int sample_row(struct db_pack *p, void *item, sqlite3_stmt *st)
{
	struct db_sample *s = item;
	s->t_ns = sqlite3_column_int64(st, 0);
	if (db_pack_column_text(p, &s->name, st, 1) < 0)
		return -ENOMEM;
	s->absent = sqlite3_column_type(st, 2) == SQLITE_NULL;
	s->value = s->absent ? 0 : sqlite3_column_double(st, 2);
	return 0;
}

int db_samples_read(struct db *db, int64_t run_id, const char *name, struct db_sample **out,
                    size_t *n)
{
	enum db_run_status status;
	int err = run_status(db, run_id, &status);
	sqlite3_stmt *st;
	if (!err)
		err = db_prepare(db, "SELECT t_ns, name, value FROM sample WHERE run_id = ?1 AND "
		                     "(?2 IS NULL OR name = ?2) ORDER BY t_ns, name, rowid", &st);
	if (err)
		return err;
	sqlite3_bind_int64(st, 1, run_id);
	db_bind_text(st, 2, name);
	struct db_pack p;
	db_pack_init(&p, sizeof(struct db_sample), sample_strs, N_OF(sample_strs));
	return db_collect(db, st, &p, sample_row, "samples", (void **)out, n);
}

/* ---- metrics ---- */

static int metric_write(struct db *db, int64_t run_id, const char *name, double value,
                        bool replace)
{
	if (!name || !name[0])
		return db_fail(db, -EINVAL, "a metric of run %lld has no name", (long long)run_id);
	if (!isfinite(value))
		return db_fail(db, -EINVAL, "metric '%s' of run %lld: %g is not a finite number", name,
		               (long long)run_id, value);
	sqlite3_stmt *st;
	int err = db_prepare(db, replace ? "INSERT OR REPLACE INTO metric (run_id, name, value) "
	                                   "VALUES (?,?,?)"
	                                 : "INSERT INTO metric (run_id, name, value) VALUES (?,?,?)",
	                     &st);
	if (err)
		return err;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 3, value);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_CONSTRAINT_PRIMARYKEY || rc == SQLITE_CONSTRAINT_UNIQUE)
		return db_fail(db, -EEXIST, "metric '%s' of run %lld is already stored", name,
		               (long long)run_id);
	if (rc != SQLITE_DONE)
		return db_fail_sql(db, rc, "cannot store a metric");
	return 0;
}

int db_metrics_store_tx(struct db *db, int64_t run_id, const struct db_metric *m, size_t n)
{
	enum db_run_status status;
	int err = run_status(db, run_id, &status);
	for (size_t i = 0; i < n && !err; i++)
		err = metric_write(db, run_id, m[i].name, m[i].value, false);
	return err;
}

int db_metrics_store(struct db *db, int64_t run_id, const struct db_metric *m, size_t n)
{
	int err = db_write_begin(db);
	if (err)
		return err;
	return db_write_end(db, db_metrics_store_tx(db, run_id, m, n));
}

int db_metric_set(struct db *db, int64_t run_id, const char *name, double value)
{
	int err = db_write_begin(db);
	if (err)
		return err;
	enum db_run_status status;
	err = run_status(db, run_id, &status);
	if (!err)
		err = metric_write(db, run_id, name, value, true);
	return db_write_end(db, err);
}

static const size_t metric_strs[] = { offsetof(struct db_metric, name) };

static int metric_row(struct db_pack *p, void *item, sqlite3_stmt *st)
{
	struct db_metric *m = item;
	if (db_pack_column_text(p, &m->name, st, 0) < 0)
		return -ENOMEM;
	m->value = sqlite3_column_double(st, 1);
	return 0;
}

int db_metrics_read(struct db *db, int64_t run_id, struct db_metric **out, size_t *n)
{
	enum db_run_status status;
	int err = run_status(db, run_id, &status);
	sqlite3_stmt *st;
	if (!err)
		err = db_prepare(db, "SELECT name, value FROM metric WHERE run_id = ? ORDER BY name",
		                 &st);
	if (err)
		return err;
	sqlite3_bind_int64(st, 1, run_id);
	struct db_pack p;
	db_pack_init(&p, sizeof(struct db_metric), metric_strs, N_OF(metric_strs));
	return db_collect(db, st, &p, metric_row, "metrics", (void **)out, n);
}

int db_metric_get(struct db *db, int64_t run_id, const char *name, double *out)
{
	if (!name)
		return db_fail(db, -EINVAL, "no metric name given");
	sqlite3_stmt *st;
	int err = db_prepare(db, "SELECT value FROM metric WHERE run_id = ? AND name = ?", &st);
	if (err)
		return err;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	int rc = sqlite3_step(st);
	double v = rc == SQLITE_ROW ? sqlite3_column_double(st, 0) : 0;
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return db_fail(db, -ENOENT, "run %lld has no metric '%s'", (long long)run_id, name);
	if (rc != SQLITE_ROW)
		return db_fail_sql(db, rc, "cannot read a metric");
	*out = v;
	return 0;
}

/* ---- log lines ---- */

int db_log_lines_store_tx(struct db *db, int64_t run_id, const struct db_log_line *l, size_t n)
{
	enum db_run_status status;
	int err = run_status(db, run_id, &status);
	sqlite3_stmt *st;
	if (!err)
		err = db_prepare(db, "INSERT INTO log_line (run_id, t_ns, pattern, text, captures) "
		                     "VALUES (?,?,?,?,?)", &st);
	if (err)
		return err;
	for (size_t i = 0; i < n && !err; i++) {
		if (!l[i].pattern || !l[i].pattern[0] || !l[i].text ||
		    (l[i].n_captures && !l[i].captures)) {
			err = db_fail(db, -EINVAL, "log line %zu of run %lld needs a pattern name, its "
			              "text and its captures", i, (long long)run_id);
			break;
		}
		json_t *caps = json_array();
		for (size_t k = 0; caps && k < l[i].n_captures; k++) {
			const char *c = l[i].captures[k];
			json_t *v = c ? json_string(c) : json_null();
			if (!v || json_array_append_new(caps, v) < 0) {
				/* json_string() refuses text that is not UTF-8. */
				json_decref(caps);
				caps = NULL;
			}
		}
		char *caps_text = caps ? json_dumps(caps, JSON_COMPACT) : NULL;
		json_decref(caps);
		if (!caps_text) {
			err = db_fail(db, -EINVAL, "log line %zu of run %lld: a capture is not UTF-8 text",
			              i, (long long)run_id);
			break;
		}
		sqlite3_bind_int64(st, 1, run_id);
		db_bind_nonzero(st, 2, l[i].t_ns);
		sqlite3_bind_text(st, 3, l[i].pattern, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, l[i].text, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 5, caps_text, -1, SQLITE_TRANSIENT);
		int rc = sqlite3_step(st);
		free(caps_text);
		if (rc != SQLITE_DONE)
			err = db_fail_sql(db, rc, "cannot store a log line");
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return err;
}

int db_log_lines_store(struct db *db, int64_t run_id, const struct db_log_line *l, size_t n)
{
	int err = db_write_begin(db);
	if (err)
		return err;
	return db_write_end(db, db_log_lines_store_tx(db, run_id, l, n));
}

/* Log lines carry an array of captures each, so they are packed by hand:
 * the lines, then every capture pointer, then the strings. */
struct line_tmp {
	int64_t t_ns;
	char *pattern, *text;
	json_t *captures;
};

/* The rows into tmp[0..*count), with the captures and string bytes
 * their packing needs.  0, -ENOMEM or -EIO (damaged captures); tmp holds
 * what was read either way. */
static int read_line_rows(sqlite3_stmt *st, struct line_tmp **tmp_out, size_t *count_out,
                          size_t *n_caps_out, size_t *str_B_out, int *step_rc)
{
	struct line_tmp *tmp = NULL;
	size_t count = 0, cap = 0, n_caps = 0, str_B = 0;
	int err = 0, rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (count == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			struct line_tmp *t = realloc(tmp, ncap * sizeof *t);
			if (!t) {
				err = -ENOMEM;
				break;
			}
			tmp = t;
			cap = ncap;
		}
		struct line_tmp *t = &tmp[count];
		t->t_ns = sqlite3_column_int64(st, 0);
		t->pattern = strdup((const char *)sqlite3_column_text(st, 1));
		t->text = strdup((const char *)sqlite3_column_text(st, 2));
		t->captures = json_loads((const char *)sqlite3_column_text(st, 3), 0, NULL);
		count++;
		if (!t->pattern || !t->text || !json_is_array(t->captures)) {
			err = t->pattern && t->text && t->captures ? -EIO : -ENOMEM;
			break;
		}
		str_B += strlen(t->pattern) + strlen(t->text) + 2;
		for (size_t k = 0; k < json_array_size(t->captures); k++) {
			json_t *c = json_array_get(t->captures, k);
			if (json_is_string(c))
				str_B += json_string_length(c) + 1;
			else if (!json_is_null(c))
				err = -EIO;
			n_caps++;
		}
		if (err)
			break;
	}
	*tmp_out = tmp;
	*count_out = count;
	*n_caps_out = n_caps;
	*str_B_out = str_B;
	*step_rc = rc;
	return err;
}

/* The lines packed into one block: the lines, every capture pointer, then
 * the strings.  NULL when out of memory. */
static struct db_log_line *pack_lines(const struct line_tmp *tmp, size_t count, size_t n_caps,
                                      size_t str_B)
{
	struct db_log_line *lines = malloc(count * sizeof *lines + n_caps * sizeof(char *) + str_B + 1);
	if (!lines)
		return NULL;
	const char **caps = (const char **)((char *)lines + count * sizeof *lines);
	char *s = (char *)(caps + n_caps);
	for (size_t i = 0; i < count; i++) {
		const struct line_tmp *t = &tmp[i];
		size_t len;
		lines[i] = (struct db_log_line){ .t_ns = t->t_ns };
		len = strlen(t->pattern) + 1;
		lines[i].pattern = memcpy(s, t->pattern, len);
		s += len;
		len = strlen(t->text) + 1;
		lines[i].text = memcpy(s, t->text, len);
		s += len;
		lines[i].captures = caps;
		lines[i].n_captures = json_array_size(t->captures);
		for (size_t k = 0; k < lines[i].n_captures; k++) {
			json_t *c = json_array_get(t->captures, k);
			if (json_is_string(c)) {
				len = json_string_length(c) + 1;
				*caps++ = memcpy(s, json_string_value(c), len);
				s += len;
			} else {
				*caps++ = NULL;
			}
		}
	}
	return lines;
}

int db_log_lines_read(struct db *db, int64_t run_id, const char *pattern,
                      struct db_log_line **out, size_t *n)
{
	enum db_run_status status;
	int err = run_status(db, run_id, &status);
	sqlite3_stmt *st;
	if (!err)
		err = db_prepare(db, "SELECT t_ns, pattern, text, captures FROM log_line WHERE "
		                     "run_id = ?1 AND (?2 IS NULL OR pattern = ?2) ORDER BY id", &st);
	if (err)
		return err;
	sqlite3_bind_int64(st, 1, run_id);
	db_bind_text(st, 2, pattern);
	struct line_tmp *tmp;
	size_t count, n_caps, str_B;
	int rc;
	err = read_line_rows(st, &tmp, &count, &n_caps, &str_B, &rc);
	if (!err && rc != SQLITE_DONE)
		err = db_fail_sql(db, rc, "cannot read the log lines");
	else if (err == -ENOMEM)
		db_fail(db, err, "out of memory reading log lines");
	else if (err == -EIO)
		db_fail(db, err, "a log line of run %lld has damaged captures", (long long)run_id);
	sqlite3_finalize(st);

	struct db_log_line *lines = NULL;
	if (!err && !(lines = pack_lines(tmp, count, n_caps, str_B)))
		err = db_fail(db, -ENOMEM, "out of memory reading log lines");
	for (size_t i = 0; i < count; i++) {
		free(tmp[i].pattern);
		free(tmp[i].text);
		json_decref(tmp[i].captures);
	}
	free(tmp);
	if (err)
		return err;
	*out = lines;
	*n = count;
	return 0;
}

/* ---- shots ---- */

int db_shots_store_tx(struct db *db, int64_t run_id, const struct db_shot *s, size_t n)
{
	enum db_run_status status;
	int err = run_status(db, run_id, &status);
	sqlite3_stmt *st;
	if (!err)
		err = db_prepare(db, "INSERT INTO shot (run_id, name, path, luma, checksum) "
		                     "VALUES (?,?,?,?,?)", &st);
	if (err)
		return err;
	for (size_t i = 0; i < n && !err; i++) {
		if (!s[i].name || !s[i].name[0]) {
			err = db_fail(db, -EINVAL, "shot %zu of run %lld has no name", i,
			              (long long)run_id);
			break;
		}
		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_text(st, 2, s[i].name, -1, SQLITE_STATIC);
		db_bind_text(st, 3, s[i].path);
		if (isfinite(s[i].luma))
			sqlite3_bind_double(st, 4, s[i].luma);
		else
			sqlite3_bind_null(st, 4);
		db_bind_text(st, 5, s[i].checksum);
		int rc = sqlite3_step(st);
		if (rc == SQLITE_CONSTRAINT_PRIMARYKEY)
			err = db_fail(db, -EEXIST, "shot '%s' of run %lld is already stored", s[i].name,
			              (long long)run_id);
		else if (rc != SQLITE_DONE)
			err = db_fail_sql(db, rc, "cannot store a shot");
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return err;
}

int db_shots_store(struct db *db, int64_t run_id, const struct db_shot *s, size_t n)
{
	int err = db_write_begin(db);
	if (err)
		return err;
	return db_write_end(db, db_shots_store_tx(db, run_id, s, n));
}

static const size_t shot_strs[] = {
	offsetof(struct db_shot, name), offsetof(struct db_shot, path),
	offsetof(struct db_shot, checksum),
};

static int shot_row(struct db_pack *p, void *item, sqlite3_stmt *st)
{
	struct db_shot *s = item;
	if (db_pack_column_text(p, &s->name, st, 0) < 0 ||
	    db_pack_column_text(p, &s->path, st, 1) < 0 ||
	    db_pack_column_text(p, &s->checksum, st, 3) < 0)
		return -ENOMEM;
	s->luma = sqlite3_column_type(st, 2) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 2);
	return 0;
}

int db_shots_read(struct db *db, int64_t run_id, struct db_shot **out, size_t *n)
{
	enum db_run_status status;
	int err = run_status(db, run_id, &status);
	sqlite3_stmt *st;
	if (!err)
		err = db_prepare(db, "SELECT name, path, luma, checksum FROM shot WHERE run_id = ? "
		                     "ORDER BY name", &st);
	if (err)
		return err;
	sqlite3_bind_int64(st, 1, run_id);
	struct db_pack p;
	db_pack_init(&p, sizeof(struct db_shot), shot_strs, N_OF(shot_strs));
	return db_collect(db, st, &p, shot_row, "shots", (void **)out, n);
}

/* ---- a run's results in one transaction ---- */

static int delete_results(struct db *db, int64_t run_id)
{
	static const char *const tables[] = { "frame_set", "sample", "metric", "log_line", "shot" };
	for (size_t i = 0; i < N_OF(tables); i++) {
		char sql[64];
		snprintf(sql, sizeof sql, "DELETE FROM %s WHERE run_id = ?", tables[i]);
		sqlite3_stmt *st;
		int err = db_prepare(db, sql, &st);
		if (err)
			return err;
		sqlite3_bind_int64(st, 1, run_id);
		err = db_step_write(db, st, "cannot clear the run's earlier results");
		if (err)
			return err;
	}
	return 0;
}

int db_run_store_parts(struct db *db, int64_t run_id, const struct db_run_results *r)
{
	int err = delete_results(db, run_id);
	if (!err && r->n_frames)
		err = db_frames_store_tx(db, run_id, r->frames, r->n_frames);
	if (!err)
		err = db_samples_store_tx(db, run_id, r->samples, r->n_samples);
	if (!err)
		err = db_metrics_store_tx(db, run_id, r->metrics, r->n_metrics);
	if (!err)
		err = db_log_lines_store_tx(db, run_id, r->log_lines, r->n_log_lines);
	if (!err)
		err = db_shots_store_tx(db, run_id, r->shots, r->n_shots);
	return err;
}

int db_run_store_results(struct db *db, int64_t run_id, const struct db_run_results *r)
{
	if (!r)
		return db_fail(db, -EINVAL, "no results given for run %lld", (long long)run_id);
	if (r->status != DB_RUN_DONE && r->status != DB_RUN_VOID)
		return db_fail(db, -EINVAL, "results of run %lld must end it done or void, not %s",
		               (long long)run_id, db_run_status_name(r->status));
	if (r->status == DB_RUN_VOID && (!r->void_reason || !r->void_reason[0]))
		return db_fail(db, -EINVAL, "run %lld is void without a reason", (long long)run_id);
	if ((r->n_frames && !r->frames) || (r->n_samples && !r->samples) ||
	    (r->n_metrics && !r->metrics) || (r->n_log_lines && !r->log_lines) ||
	    (r->n_shots && !r->shots))
		return db_fail(db, -EINVAL, "results of run %lld: a count without its array",
		               (long long)run_id);
	int err = db_write_begin(db);
	if (err)
		return err;
	enum db_run_status s;
	err = run_status(db, run_id, &s);
	if (!err && s == DB_RUN_PLANNED)
		err = db_fail(db, -EINVAL, "run %lld was never started", (long long)run_id);
	if (!err)
		err = db_run_store_parts(db, run_id, r);
	sqlite3_stmt *st;
	if (!err)
		err = db_prepare(db, "UPDATE run SET status = ?1, void_reason = ?2, end_unix_ms = ?3, "
		                     "exit_status = ?4, config = coalesce(?5, config) WHERE id = ?6",
		                 &st);
	if (!err) {
		sqlite3_bind_text(st, 1, db_run_status_name(r->status), -1, SQLITE_STATIC);
		db_bind_text(st, 2, r->status == DB_RUN_VOID ? r->void_reason : NULL);
		if (r->end_unix_ms == DB_UNTIMED)
			sqlite3_bind_null(st, 3);
		else
			sqlite3_bind_int64(st, 3, r->end_unix_ms ? r->end_unix_ms : db_now_unix_ms());
		bind_exit(st, 4, r->exit_status);
		db_bind_text(st, 5, r->config);
		sqlite3_bind_int64(st, 6, run_id);
		err = db_step_write(db, st, "cannot end the run");
	}
	return db_write_end(db, err);
}

/* Import: the run's state fields exactly as exported. */
int db_run_set_state_tx(struct db *db, int64_t run_id, const struct db_run *r)
{
	sqlite3_stmt *st;
	int err = db_prepare(db, "UPDATE run SET status = ?, start_unix_ms = ?, end_unix_ms = ?, "
	                         "exit_status = ?, void_reason = ?, run_dir = ?, config = ? "
	                         "WHERE id = ?", &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, db_run_status_name(r->status), -1, SQLITE_STATIC);
	db_bind_nonzero(st, 2, r->start_unix_ms);
	db_bind_nonzero(st, 3, r->end_unix_ms);
	bind_exit(st, 4, r->exit_status);
	db_bind_text(st, 5, r->void_reason);
	db_bind_text(st, 6, r->run_dir);
	db_bind_text(st, 7, r->config);
	sqlite3_bind_int64(st, 8, run_id);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_CONSTRAINT_CHECK)
		return db_fail(db, -EINVAL, "a void run needs a reason");
	if (rc != SQLITE_DONE)
		return db_fail_sql(db, rc, "cannot set the run's state");
	return 0;
}
