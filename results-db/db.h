/* results-db: the SQLite store of every campaign, run and measurement.
 *
 * One database file holds campaigns (a plan run on one host), their builds
 * and arms, the planned and finished runs, each run's frames, sampler
 * readings, metrics, matched log lines and screenshots, and the outbox of
 * forge posts.  Everything after collection reads only this file: a report
 * can be rebuilt from it alone, years later.  Nothing outside results-db
 * writes SQL.
 *
 * The file is SQLite in WAL mode with foreign keys on.  Its schema version
 * is `PRAGMA user_version`; db_open() migrates an older file forward, one
 * version at a time, each step one transaction (docs/database.md lists the
 * versions).  A file newer than this code is refused, never touched.
 *
 * Conventions:
 * - Fallible functions return 0 or a negative errno; output parameters are
 *   written only on success.  After a failure db_errmsg() names what was
 *   wrong ("campaign 'night-1' already exists").
 * - Ids are SQLite rowids, > 0.  An id of 0 in an input means "none".
 * - Wall-clock times are `*_unix_ms` (milliseconds since the Unix epoch);
 *   `t_ns` and `present_ns` are CLOCK_MONOTONIC nanoseconds, the clock the
 *   renderer's frame log and the deck samplers use.
 * - Arrays and records handed back (db_*_list, db_*_read, db_*_find) are
 *   ONE allocation each, holding the array and every string it points to:
 *   release with free().
 * - A struct db is used from one thread at a time.
 */
#ifndef RXDECK_DB_H
#define RXDECK_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The schema version this code writes; db_open() migrates up to it. */
#define DB_SCHEMA_VERSION 4

struct db;

/* ---- opening ---------------------------------------------------------- */

enum db_open_flags {
	DB_OPEN_DEFAULT = 0,
	DB_OPEN_NO_CREATE = 1 << 0,  /* fail with -ENOENT when the file does not exist */
	DB_OPEN_NO_MIGRATE = 1 << 1, /* leave an older schema as it is (`rxdeck db migrate`) */
	DB_OPEN_READ_ONLY = 1 << 2,  /* open read-only; implies NO_CREATE and NO_MIGRATE */
};

struct db_open_options {
	unsigned flags;   /* enum db_open_flags, or-ed */
	char *errmsg;     /* on failure, the reason is written here (may be NULL) */
	size_t errmsg_size;
	int busy_timeout_ms; /* wait this long for another writer's lock; 0: 5000 */
};

/*
 * Opens (creating when allowed) the database at path and migrates it to
 * DB_SCHEMA_VERSION unless told not to.  path NULL means db_default_path();
 * ":memory:" opens a private in-memory database.  The parent folders of a
 * new file are created (mode 0700).  Returns 0 and *out, or:
 *   -ENOENT   no such file and DB_OPEN_NO_CREATE/READ_ONLY;
 *   -ENOTSUP  the file's schema is newer than DB_SCHEMA_VERSION;
 *   -EINVAL   the file is not an rxdeck database (or not SQLite at all; with
 *             DB_OPEN_NO_CREATE/READ_ONLY, an empty file is none either);
 *   -EIO, -EACCES, -ENOMEM ...
 * db_open() cannot say why; db_open_ex() writes the reason into
 * opts->errmsg ("cannot open database 'x.db': file is not a database").
 * The handle is released with db_close().
 */
int db_open(const char *path, struct db **out);
int db_open_ex(const char *path, const struct db_open_options *opts, struct db **out);

/* Closes the handle; NULL is a no-op.  An open db_begin() is rolled back. */
void db_close(struct db *db);

/* The message of the last failure on db ("" when none).  Valid until the
 * next call on db. */
const char *db_errmsg(const struct db *db);

/* The path db_open(NULL, ...) uses: $XDG_DATA_HOME/rxdeck/results.db, or
 * $HOME/.local/share/rxdeck/results.db when XDG_DATA_HOME is unset or not
 * absolute.  *out is malloc'd.  -ENOENT when neither variable is usable. */
int db_default_path(char **out);

/* The path db was opened with (":memory:" for an in-memory database). */
const char *db_path(const struct db *db);

/* ---- schema versions --------------------------------------------------- */

/* The file's schema version (PRAGMA user_version; 0 for an empty file). */
int db_schema_version(struct db *db, int *out);

/*
 * Migrates to to_version (0 means DB_SCHEMA_VERSION), one step at a time,
 * each step and its user_version bump in one transaction; a failing step
 * leaves the file at the previous version.  Going down is -EINVAL.
 */
int db_migrate(struct db *db, int to_version);

/* ---- transactions ------------------------------------------------------ */

/*
 * Groups several writes into one transaction.  Every write function below
 * is atomic by itself (all of it or none of it, using a savepoint), inside
 * or outside db_begin().  A failed write inside db_begin() is undone
 * alone; the caller then decides: db_rollback() undoes everything since
 * db_begin().  Nesting db_begin() is -EBUSY.
 */
int db_begin(struct db *db);
int db_commit(struct db *db);
int db_rollback(struct db *db);

/* ---- campaigns, builds, arms ------------------------------------------- */

enum db_campaign_status {
	DB_CAMPAIGN_OPEN = 0,   /* created; runs planned or in progress */
	DB_CAMPAIGN_DONE,       /* every run finished */
	DB_CAMPAIGN_STOPPED,    /* given up before every run finished */
};

/* A campaign: one plan run on one host.  Strings may be NULL (not known). */
struct db_campaign {
	int64_t id;
	const char *name;         /* unique in the database; required */
	const char *plan_text;    /* the plan file as given */
	const char *host;         /* host name */
	const char *device_model; /* "Steam Deck OLED", or the DMI product name */
	const char *os;           /* "SteamOS 3.6.19 (20241001.1)" */
	const char *kernel;       /* uname release */
	const char *cpu;          /* CPU model name */
	int64_t memory_B;         /* memory total, bytes; 0 not known */
	const char *gpu;          /* Vulkan device name */
	const char *driver;       /* Vulkan driver name and info */
	const char *mesa;         /* Mesa version, when the driver is Mesa */
	const char *notes;
	const char *route_name;
	const char *route_text;   /* the route file as played */
	double window_start_s;    /* measured window on the route, seconds */
	double window_end_s;
	const char *order;        /* one round's arm order: "ABCDDCBA" */
	int rounds;               /* rounds planned (grows with --until) */
	bool warmup;              /* a cold unmeasured warm-up run comes first */
	enum db_campaign_status status;
	int64_t created_unix_ms;  /* 0 on create: now */
	int64_t finished_unix_ms; /* 0: not finished */
};

/* Creates a campaign from every field but id, status and finished_unix_ms.
 * -EEXIST when the name is taken; -EINVAL without a name or with an end of
 * window before its start. */
int db_campaign_create(struct db *db, const struct db_campaign *c, int64_t *id_out);

/* Rewrites every field but id and created_unix_ms of campaign c->id
 * (host facts found late, rounds added, notes).  -ENOENT: no such id. */
int db_campaign_update(struct db *db, const struct db_campaign *c);

/* Sets the campaign's status and finished time (0: now; ignored for OPEN,
 * which clears it). */
int db_campaign_set_status(struct db *db, int64_t campaign_id, enum db_campaign_status status,
                           int64_t finished_unix_ms);

/* Why a finished campaign stopped (schema 4), as the run loop recorded it:
 * "planned" (every planned run ran), "decided" (every primary comparison
 * decided), "max_rounds" (the planned maximum of rounds ran), "deadline"
 * (no further round fitted before until); NULL clears it.  Setting the
 * status to open clears it too.  0, -EINVAL (another word), -ENOENT. */
int db_campaign_set_stop_reason(struct db *db, int64_t campaign_id, const char *reason);

/* The stored reason into buf (size >= 16); "" when none was stored (a
 * campaign not finished, or finished before schema 4, or a file older than
 * schema 4 opened read-only).  0 or a negative errno. */
int db_campaign_stop_reason(struct db *db, int64_t campaign_id, char *buf, size_t size);

/* One campaign by name or id; -ENOENT when there is none. */
int db_campaign_find(struct db *db, const char *name, struct db_campaign **out);
int db_campaign_get(struct db *db, int64_t campaign_id, struct db_campaign **out);

/* Every campaign, newest first.  An empty database gives *n = 0 (and a
 * valid, empty allocation). */
int db_campaign_list(struct db *db, struct db_campaign **out, size_t *n);

/* Deletes a campaign with everything that belongs to it (builds, arms,
 * runs and their results, route marks); its posts keep their rows with no
 * campaign. */
int db_campaign_delete(struct db *db, int64_t campaign_id);

struct db_build {
	int64_t id;
	int64_t campaign_id;
	const char *label;   /* unique in the campaign; required */
	const char *commit;  /* the source commit it was built from */
	const char *path;    /* the binary or library that ran */
	const char *sha256;  /* hex SHA-256 of that file */
};

/* -EINVAL without a label, -EEXIST when the label is taken in the campaign,
 * -ENOENT when there is no such campaign. */
int db_build_add(struct db *db, const struct db_build *b, int64_t *id_out);
/* In the order they were added. */
int db_build_list(struct db *db, int64_t campaign_id, struct db_build **out, size_t *n);

struct db_arm {
	int64_t id;
	int64_t campaign_id;
	char letter;         /* 'A'..'Z', unique in the campaign */
	const char *label;   /* "early readback" */
	const char *env;     /* the arm's environment: KEY=VALUE lines */
	int64_t build_id;    /* 0: the campaign's only or default build */
};

/* -EINVAL for a letter outside A-Z, -EEXIST when the letter is taken,
 * -ENOENT when there is no such campaign or build_id is not one of its
 * builds. */
int db_arm_add(struct db *db, const struct db_arm *a, int64_t *id_out);
/* In letter order. */
int db_arm_list(struct db *db, int64_t campaign_id, struct db_arm **out, size_t *n);

/* Route marks: named points of the campaign's route (shots, window edges),
 * kept so a report can label plots without the route file. */
struct db_route_mark {
	double t_s;          /* seconds from the route's start */
	const char *name;    /* "forest-entrance" */
	const char *kind;    /* "shot", "window", "mark" */
};

/* Replaces the campaign's route marks with these n. */
int db_route_marks_store(struct db *db, int64_t campaign_id, const struct db_route_mark *marks,
                         size_t n);
/* In time order. */
int db_route_marks_read(struct db *db, int64_t campaign_id, struct db_route_mark **out,
                        size_t *n);

/* The host's facts as a campaign saw them (schema 3): at its start, and at
 * each resume that found them changed. */
struct db_host_facts {
	int64_t at_unix_ms;
	const char *event;   /* "start" or "resume" */
	const char *facts;   /* a JSON object: `rxdeck deck info --json`'s "facts" */
	const char *changes; /* resume: what changed since the previous row, one per
	                        line ("kernel: 'a' -> 'b'"); NULL at the start */
};

/* Adds a row for campaign_id (at_unix_ms 0: now).  0, -ENOENT (no such
 * campaign), -EINVAL (facts not a JSON object, event not start/resume). */
int db_host_facts_add(struct db *db, int64_t campaign_id, const struct db_host_facts *f);

/* The campaign's rows, oldest first, in one allocation (free(*out)). */
int db_host_facts_list(struct db *db, int64_t campaign_id, struct db_host_facts **out, size_t *n);

/* ---- runs ---------------------------------------------------------------- */

enum db_run_status {
	DB_RUN_PLANNED = 0,
	DB_RUN_RUNNING,  /* started; still so after a crash of the harness */
	DB_RUN_DONE,
	DB_RUN_VOID,     /* finished but not usable; void_reason says why */
};

struct db_run {
	int64_t id;
	int64_t campaign_id;
	int64_t arm_id;
	char arm_letter;         /* read back from the arm; ignored on write */
	int round;               /* 1-based; 0 for the warm-up run */
	int position;            /* place in the campaign's order, unique, 1-based */
	bool is_warmup;
	enum db_run_status status;
	int64_t start_unix_ms;   /* 0: not started */
	int64_t end_unix_ms;     /* 0: not ended */
	int exit_status;         /* 0..255, 128+N when killed by signal N; -1: not known */
	const char *void_reason; /* set when VOID: "hung: no frame for 10 s" */
	const char *run_dir;     /* where its stdout, stderr, logs and shots went */
	const char *config;      /* the renderer's effective configuration, text */
};

/* Adds n planned runs (arm_id, round, position, is_warmup of each; the
 * other fields are ignored) in one transaction.  -EEXIST when a position
 * is taken; -EINVAL when an arm is not the campaign's. */
int db_run_plan(struct db *db, int64_t campaign_id, const struct db_run *runs, size_t n);

/* The campaign's runs in position order. */
int db_run_list(struct db *db, int64_t campaign_id, struct db_run **out, size_t *n);

int db_run_get(struct db *db, int64_t run_id, struct db_run **out);

/* For resume: the first run, in position order, that is PLANNED or
 * RUNNING (a RUNNING one was cut short and runs again).  -ENOENT when every
 * run is DONE or VOID. */
int db_run_next(struct db *db, int64_t campaign_id, struct db_run **out);

/* A start or end time that is not known (an imported log whose format
 * carries no wall clock): stored as none, read back as 0. */
#define DB_UNTIMED (-1)

/* PLANNED or RUNNING -> RUNNING: sets the start time (0: now; DB_UNTIMED:
 * none) and run folder, clears end, exit status and void reason.
 * -EALREADY when the run is DONE or VOID. */
int db_run_mark_running(struct db *db, int64_t run_id, int64_t start_unix_ms, const char *run_dir);

/* RUNNING (or DONE) -> DONE with its end time (0: now) and exit status
 * (-1: not known).  -EINVAL for a run never started, -EALREADY for a VOID
 * one. */
int db_run_mark_done(struct db *db, int64_t run_id, int64_t end_unix_ms, int exit_status);

/* -> VOID with a reason (required), from any state: a PLANNED run voided
 * when the campaign stops, a RUNNING one that hung, a DONE one voided after
 * the fact (swap against the campaign median).  end_unix_ms 0 keeps the
 * run's end time, or sets now when it has none; exit_status -1 keeps the
 * run's. */
int db_run_mark_void(struct db *db, int64_t run_id, const char *reason, int64_t end_unix_ms,
                     int exit_status);

/* ---- a run's results ----------------------------------------------------- */

enum db_frame_kind {
	DB_FRAME_REAL = 0,   /* rendered by the game */
	DB_FRAME_SHOWN = 1,  /* generated between real frames (frame generation) */
};

/* Where a run's frames came from. */
enum db_frame_source {
	DB_FRAME_RXVK = 0,        /* the renderer's frame log */
	DB_FRAME_MANGOHUD = 1,    /* a MangoHud CSV log */
	DB_FRAME_PRESENTMON = 2,  /* a PresentMon CSV (Windows) */
};

/* Columns a frame's source did not have (bits of db_frame.absent); the
 * field holds 0 then. */
enum db_frame_absent {
	DB_FRAME_NO_FRAME_MS = 1 << 0,
	DB_FRAME_NO_RB_WAIT_MS = 1 << 1,
	DB_FRAME_NO_MEMSYNC_MS = 1 << 2,
	DB_FRAME_NO_DRAWS = 1 << 3,
};
#define DB_FRAME_ABSENT_ALL 0x0f

/* One presented frame: a row of the renderer's frame log, of a MangoHud
 * log or of a PresentMon CSV. */
struct db_frame {
	int64_t frame;        /* the frame's number (its row, for logs without one) */
	int64_t present_ns;   /* at present, on the clock of the run's route_t0_ns
	                       * metric (CLOCK_MONOTONIC for the harness's runs) */
	double frame_ms;      /* the source's own frame time: the renderer's
	                       * frame_ms, MangoHud's frametime, PresentMon's
	                       * MsBetweenPresents */
	double rb_wait_ms;    /* readback waits in this frame */
	double memsync_ms;    /* replay memory sync in this frame */
	uint32_t draws;       /* draws in this frame */
	uint8_t kind;         /* enum db_frame_kind */
	uint8_t absent;       /* enum db_frame_absent bits; 0: every column present */
	uint8_t source;       /* enum db_frame_source */
};

/* "rxvk", "mangohud", "presentmon"; NULL for an unknown value. */
const char *db_frame_source_name(enum db_frame_source source);

/* One sampler reading.  An absent value (source missing, unreadable) is
 * stored as absent, never as 0. */
struct db_sample {
	int64_t t_ns;
	const char *name;     /* "gpu_busy_pct", "swap_in_pages" (deck_reading_name()) */
	double value;         /* meaningful when !absent */
	bool absent;
};

struct db_metric {
	const char *name;     /* "real_fps", "p95_frame_ms" (units in the name) */
	double value;
};

/* A game or renderer log line a collector profile pattern matched. */
struct db_log_line {
	int64_t t_ns;          /* when it was read; 0 when not known */
	const char *pattern;   /* the profile pattern's name: "readbacks" */
	const char *text;      /* the whole line */
	const char *const *captures; /* the pattern's captured groups, in order */
	size_t n_captures;
};

struct db_shot {
	const char *name;      /* the route's shot name */
	const char *path;      /* the PNG */
	double luma;           /* mean luma, 0..255 */
	const char *checksum;  /* hex digest of the pixels */
};

/*
 * Everything collected from one run, with how it ended.  db_run_store_results()
 * writes it all in ONE transaction: it replaces any results the run had,
 * stores these, and sets status (DONE or VOID, with void_reason for VOID),
 * end time (0: now; DB_UNTIMED: none), exit status and config.  On any failure nothing of it
 * is written and the run is as before.
 */
struct db_run_results {
	const struct db_frame *frames;
	size_t n_frames;
	const struct db_sample *samples;
	size_t n_samples;
	const struct db_metric *metrics;
	size_t n_metrics;
	const struct db_log_line *log_lines;
	size_t n_log_lines;
	const struct db_shot *shots;
	size_t n_shots;
	const char *config;           /* effective renderer configuration; NULL keeps */
	enum db_run_status status;    /* DB_RUN_DONE or DB_RUN_VOID */
	const char *void_reason;
	int64_t end_unix_ms;
	int exit_status;              /* -1: not known */
};

int db_run_store_results(struct db *db, int64_t run_id, const struct db_run_results *r);

/*
 * The parts one at a time, each atomic (use db_begin()/db_commit() to join
 * them).  Frames replace the run's frames; the others add rows.  Metrics
 * are unique per run and name: a second value for a name is -EEXIST unless
 * db_metric_set() is used, which replaces it.
 */
int db_frames_store(struct db *db, int64_t run_id, const struct db_frame *frames, size_t n);
int db_samples_store(struct db *db, int64_t run_id, const struct db_sample *s, size_t n);
int db_metrics_store(struct db *db, int64_t run_id, const struct db_metric *m, size_t n);
int db_metric_set(struct db *db, int64_t run_id, const char *name, double value);
int db_log_lines_store(struct db *db, int64_t run_id, const struct db_log_line *l, size_t n);
int db_shots_store(struct db *db, int64_t run_id, const struct db_shot *s, size_t n);

/* Read back.  Frames in frame-log order; samples by time (then name),
 * only those named name unless it is NULL; metrics by name; log lines in
 * stored order, only pattern's unless NULL; shots by name (luma NAN when
 * not known).  A run with none gives *n = 0 (and a valid allocation);
 * -ENOENT when there is no such run; db_frames_read() -EIO when the stored
 * frames are damaged. */
int db_frames_read(struct db *db, int64_t run_id, struct db_frame **out, size_t *n);
int db_samples_read(struct db *db, int64_t run_id, const char *name, struct db_sample **out,
                    size_t *n);
int db_metrics_read(struct db *db, int64_t run_id, struct db_metric **out, size_t *n);
/* One metric's value; -ENOENT when the run has none of that name. */
int db_metric_get(struct db *db, int64_t run_id, const char *name, double *out);
int db_log_lines_read(struct db *db, int64_t run_id, const char *pattern,
                      struct db_log_line **out, size_t *n);
int db_shots_read(struct db *db, int64_t run_id, struct db_shot **out, size_t *n);

/* ---- forge post outbox --------------------------------------------------- */

enum db_post_state {
	DB_POST_QUEUED = 0,  /* waiting for its first attempt */
	DB_POST_SENT,
	DB_POST_FAILED,      /* the last attempt failed; retried at next_attempt_unix_ms */
};

struct db_post {
	int64_t id;
	int64_t campaign_id;         /* 0: none */
	const char *forge_url;       /* "https://forge.example.org" */
	const char *repo;            /* "owner/name" */
	int64_t issue_index;         /* issue or pull request number */
	const char *body;            /* Markdown */
	enum db_post_state state;
	int attempts;
	int64_t next_attempt_unix_ms;
	int64_t remote_comment_id;   /* the forge's comment id once sent; 0 none */
	const char *last_error;
	int64_t created_unix_ms;
	int64_t sent_unix_ms;        /* 0: not sent */
};

/* Queues a post (forge_url, repo, issue_index > 0 and body required;
 * campaign_id optional) for an attempt at once. */
int db_post_enqueue(struct db *db, const struct db_post *p, int64_t *id_out);

/* Posts that are QUEUED or FAILED with next_attempt_unix_ms <= now_unix_ms,
 * oldest first. */
int db_post_list_due(struct db *db, int64_t now_unix_ms, struct db_post **out, size_t *n);

/* Every post of a campaign (0: all posts), oldest first. */
int db_post_list(struct db *db, int64_t campaign_id, struct db_post **out, size_t *n);

/* -> SENT with the forge's comment id (0 if it gave none) and time (0: now);
 * counts as an attempt.  -EALREADY when it was sent already. */
int db_post_mark_sent(struct db *db, int64_t post_id, int64_t remote_comment_id,
                      int64_t sent_unix_ms);

/* An attempt failed: attempts + 1, -> FAILED, the error text (required;
 * never a token) and when to try again.  -EALREADY when it was sent. */
int db_post_mark_failed(struct db *db, int64_t post_id, const char *error,
                        int64_t next_attempt_unix_ms);

/* last_error of a post a sender has claimed for an attempt in progress. */
#define DB_POST_SENDING "sending"

/*
 * Claims a post for one attempt before its request goes out: last_error
 * becomes DB_POST_SENDING and next_attempt_unix_ms until_unix_ms; state and
 * attempts stay (db_post_mark_sent() or db_post_mark_failed() count the
 * attempt).  Another sender finds it claimed and leaves it alone until
 * then; a sender that dies mid-request leaves it due again at until, with
 * DB_POST_SENDING saying the forge may have received it.  Returns 0;
 * -EALREADY when the post is sent; -EBUSY when another claim on it holds at
 * now_unix_ms (last_error is DB_POST_SENDING and next_attempt_unix_ms is
 * later than now_unix_ms); -ENOENT when there is no such post.
 */
int db_post_claim(struct db *db, int64_t post_id, int64_t now_unix_ms, int64_t until_unix_ms);

/* The comment id of the newest SENT post of this campaign to the same
 * forge, repo and issue, to update it in place.  -ENOENT when there is none
 * (or it has no comment id). */
int db_post_remote_comment(struct db *db, int64_t campaign_id, const char *forge_url,
                           const char *repo, int64_t issue_index, int64_t *comment_id_out);

/* ---- export and import --------------------------------------------------- */

/*
 * Writes campaigns (one, or every one when campaign_id is 0) with all they
 * own, and their posts, as one JSON document (format in
 * docs/database.md).  Numbers round-trip exactly.
 */
int db_export(struct db *db, int64_t campaign_id, FILE *out);

/*
 * Reads a document db_export() wrote and adds its campaigns, in ONE
 * transaction: all of it or none.  in_name names the input in messages
 * ("night.json:12:4: ..." for JSON syntax, "night.json: campaigns[0].runs[3]:
 * ..." for content).  -EEXIST when a campaign of that name is already here;
 * -EINVAL for anything malformed.  *n_campaigns_out (may be NULL) says how
 * many were added.
 */
int db_import(struct db *db, FILE *in, const char *in_name, size_t *n_campaigns_out);

/* What an import did with each campaign of the document (docs/database.md,
 * "Merging"). */
enum db_import_action {
	DB_IMPORT_ADDED = 0,     /* stored under its name */
	DB_IMPORT_QUALIFIED = 1, /* another campaign had the name: stored as NAME@HOST */
	DB_IMPORT_SAME = 2,      /* here already with the same results: nothing added */
	DB_IMPORT_UPDATED = 3,   /* here partial: replaced by this one with more runs finished */
};

struct db_import_item {
	char name[256];          /* its name in the document */
	char stored_as[300];     /* its name in the database */
	enum db_import_action action;
	bool partial;            /* the campaign was still open or had runs not finished */
	size_t runs_finished;    /* done or void */
	size_t runs;
};

/* One allocation of n items (free(items)). */
struct db_import_report {
	struct db_import_item *items;
	size_t n;
};

/*
 * db_import() that also says, campaign by campaign, what it did: the same
 * export imported twice adds nothing (DB_IMPORT_SAME), two hosts'
 * campaigns of one name stay apart (the later one is stored as NAME@HOST),
 * a partial campaign merges and is marked so, and is replaced when a
 * later export of it has more runs finished.  Another export of a
 * campaign that is here, not partial, with other results is -EEXIST.
 * *report is filled only on success.
 */
int db_import_ex(struct db *db, FILE *in, const char *in_name, struct db_import_report *report);

/* Names of the enums as stored ("planned", "void", "queued", "open" ...),
 * and back (-EINVAL for an unknown name). */
const char *db_run_status_name(enum db_run_status s);
int db_run_status_parse(const char *name, enum db_run_status *out);
const char *db_campaign_status_name(enum db_campaign_status s);
int db_campaign_status_parse(const char *name, enum db_campaign_status *out);
const char *db_post_state_name(enum db_post_state s);
int db_post_state_parse(const char *name, enum db_post_state *out);

#ifdef __cplusplus
}
#endif

#endif
