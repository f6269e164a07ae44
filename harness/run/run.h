/* run: campaigns and the runs they are made of.
 *
 * A campaign is a plan (plan.h) made concrete on one host: its paths found,
 * its profile and inherited environment frozen, its runs planned in the
 * database (a warm-up, then the order once per round) and played one after
 * the other.  A run is one start of the game:
 *
 *   - the game is a child in its own process group, started from an argv
 *     (never a shell string) with the campaign's env (profile, then arm,
 *     then the inherited values) plus RX_FRAME_LOG, RX_SHOT_DIR, RX_LOG and
 *     RX_CONTROL pointing into the run's folder
 *     ($XDG_DATA_HOME/rxdeck/runs/<campaign>/<position>-<arm>/), its stdout
 *     and stderr in files there;
 *   - the pad exists before the game starts and goes only after the game
 *     has exited; the route starts at the game's first frame (plus the
 *     plan's delay) and shots are asked for through the RX_CONTROL FIFO;
 *   - a watchdog ends a game that shows no new frame for the plan's time
 *     (hung), a game that ends before the route's end crashed, and at the
 *     route's end the game is stopped with SIGTERM (SIGKILL if it lingers);
 *   - the deck samplers are read every second while the route plays;
 *   - afterwards the collectors read the frame log, the game's log (through
 *     a collector profile) and the shots, the metrics of the route's window
 *     are computed (stats.h), and everything is stored in ONE transaction.
 * At the end of a campaign the campaign-wide void rules (swap, shots unlike
 * the other arms', throttling) are applied.  Nothing is ever silently
 * dropped: a void run keeps its row, its results and its reason.
 *
 * A harness that is killed leaves the run it was playing RUNNING; `rxdeck
 * resume` (run_campaign_open() + run_campaign_play()) plays that run again
 * and the rest, from the campaign's frozen plan, never redoing a finished
 * run.  docs/running.md is the user's description.
 *
 * Functions return 0 or a negative errno and write their outputs only on
 * success; messages go to the errmsg buffers.
 */
#ifndef RXDECK_RUN_H
#define RXDECK_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "plan/plan.h"
#include "results-db/db.h"

struct route;
struct deck;
struct deck_sample;

/* ---- where things are -------------------------------------------------- */

/* $XDG_DATA_HOME/rxdeck (or ~/.local/share/rxdeck), malloc'd.  -ENOENT when
 * neither variable is usable. */
int run_data_dir(char **out);

/*
 * Finds a data file named in a plan or on the command line: a path with a
 * '/' or an existing file is taken relative to base_dir (NULL: the current
 * folder); else, for kind "routes" or "profiles", NAME, NAME.route /
 * NAME.env / NAME.collect under that folder of the current folder, the
 * source tree and the installed data folder.  *out is malloc'd and
 * absolute.  -ENOENT when nothing is there.
 */
int run_find_data(const char *kind, const char *name, const char *ext, const char *base_dir,
                  char **out);

/* The demo game's binary: next to rxdeck in a build tree
 * (../renderer/forest/rxdeck-forest) or an install (rxdeck-forest in the
 * same folder), else rxdeck-forest in PATH.  *out malloc'd; -ENOENT. */
int run_find_forest(char **out);

/* A program named in a build: "forest", a path (relative to base_dir), or a
 * name in PATH; it must be an executable regular file.  *out malloc'd,
 * absolute; -ENOENT, -EACCES, -EISDIR with a message in errmsg. */
int run_find_program(const char *prog, const char *base_dir, char **out, char *errmsg,
                     size_t errmsg_size);

/* ---- the game's environment ----------------------------------------------- */

/*
 * The environment a game runs with: base (the harness's own environment)
 * without its RX_* and RXDECK_* variables, then the profile's lines, then
 * the arm's, then the inherited values (which win).  A layer's
 * SDL_GAMECONTROLLER_IGNORE_DEVICES adds its devices to the list already
 * there (Steam's own) instead of replacing it.  *out gets KEY=VALUE lines
 * (free with plan_strv_finish()).
 */
int run_env_compose(char *const *base, const struct plan_strv *profile,
                    const struct plan_strv *arm, const struct plan_strv *inherited,
                    struct plan_strv *out);

/* Whether /dev/uinput can be opened for writing here; when not, why (an
 * errno, and a sentence in errmsg). */
bool run_uinput_usable(char *errmsg, size_t errmsg_size);

/* ---- one run ------------------------------------------------------------ */

enum run_end {
	RUN_END_OK = 0,        /* the route played to its end; the game was stopped */
	RUN_END_CRASHED,       /* the game ended (or could not start) before the route's end */
	RUN_END_HUNG,          /* no first frame, no new frame, or over the hard limit */
	RUN_END_INTERRUPTED,   /* the harness was asked to stop; the run is to be redone */
	RUN_END_FAILED,        /* the route player failed (could not start, died) */
};

/* What a run needs.  Every path must stay valid during run_game(). */
struct run_game_spec {
	const char *const *argv;   /* program (absolute) and arguments */
	const char *const *envp;   /* the game's env, NULL-terminated (run_env_compose()) */
	const char *workdir;       /* NULL: the run's folder */
	const char *run_dir;       /* exists; every file of the run goes here */
	const struct route *route;
	const char *pad_spec;      /* "uinput" or "socket:PATH" (pad_create()) */
	const char *pad_option;    /* "--pad": passed with the pad's place; NULL: not */
	bool mangohud;             /* frames from a MangoHud CSV in run_dir/mangohud/ */
	/* The game writes no shots itself: at each `shot NAME` the harness
	 * reads the game's window through X into run_dir/shots/NAME.png
	 * (run-shot.c), on the DISPLAY of envp. */
	bool window_shots;
	double watchdog_s;
	double start_timeout_s;
	double start_delay_s;
	double hard_limit_s;       /* > 0 */
	double stop_timeout_s;
	struct deck *deck;         /* samplers; NULL: none */
	/* Set (to non-zero) by a signal handler: the run stops, INTERRUPTED. */
	volatile sig_atomic_t *stop;
	/* Called about once a second while the game runs, for progress lines:
	 * route_s is the route time (negative before the route starts). */
	void (*on_tick)(void *ctx, double route_s);
	void *tick_ctx;
};

/* What happened in a run, for the collectors and the database. */
struct run_game_result {
	enum run_end end;
	char reason[256];          /* void reason for every end but OK: "hung: ..." */
	int exit_status;           /* 0..255, 128+N for signal N, -1 not known */
	int64_t start_unix_ms, end_unix_ms;
	int64_t spawn_ns;          /* CLOCK_MONOTONIC when the game was started */
	int64_t first_frame_ns;    /* when its first frame was seen; 0: never */
	int64_t t0_ns;             /* the route's t0; 0: the route never started */
	int64_t t0_log_ns;         /* t0 on a MangoHud log's own clock (mangohud only) */
	char mangohud_version[64]; /* "MangoHud v0.6.8" as MangoHud said it; "" */
	int64_t end_ns;            /* when the game was gone */
	bool route_done;           /* the route played to its end */
	size_t shots_asked;
	char **shot_names;         /* names asked for, in order */
	struct deck_sample *samples; /* before, every second while the route played, after */
	size_t n_samples;
	int64_t late_p99_ns;       /* the route player's lateness */
	int64_t late_max_ns;
	char log_tail[1024];       /* the last lines of stderr for a crash */
	char shot_notes[512];      /* why window shots failed: "shot 'x': ...\n" lines */
};

/*
 * Plays one run.  Returns 0 with *out filled (every end, also a crash or a
 * hang, is a result: see out->end); a negative errno only when nothing
 * could be tried (errmsg says why).  No process of the run is left behind
 * on any return, and the pad is neutral and gone.  Release with
 * run_game_result_finish().
 */
int run_game(const struct run_game_spec *spec, struct run_game_result *out, char *errmsg,
             size_t errmsg_size);
void run_game_result_finish(struct run_game_result *r);

/* ---- collecting a run --------------------------------------------------- */

/* What the collectors need besides the run's folder. */
struct run_collect_spec {
	const char *run_dir;
	double window_s[2];        /* the route's measured window */
	int64_t t0_ns;             /* the route's t0 (CLOCK_MONOTONIC) */
	int64_t t0_log_ns;         /* on a MangoHud or PresentMon log's clock */
	bool has_t0;               /* t0 is known even though it is 0 (an import
	                            * of a log that starts with the route);
	                            * otherwise t0_ns 0 means no t0 */
	double min_coverage_pct;   /* a log covering less of the window makes the
	                            * run void; 0: 90, negative: off */
	bool mangohud;
	const char *mangohud_version; /* what MangoHud said it is, for the config; NULL */
	const char *collect_profile; /* path of a collector profile, or NULL */
	const char *const *shot_names; /* shots asked for */
	const char *shot_notes;    /* why window shots failed (run_game_result); NULL */
	size_t n_shots;
	const struct deck_sample *samples;
	size_t n_samples;
	const char *frame_log;     /* a frame log elsewhere (import); NULL: the run's */
	const char *game_log;      /* a log elsewhere (import); NULL: the run's */
};

/* Everything collected, ready for db_run_store_results(). */
struct run_collected {
	struct db_run_results r;   /* points into this struct's own storage */
	char warnings[1024];       /* collector warnings worth a line, '\n'-separated */
	bool no_frames;            /* no frame in the window */
	bool no_log;               /* no frame log at all (void_reason says "no log: ...") */
	char void_reason[160];     /* the frames make the run void: "log covers
	                            * 2.0–7.0 s of 2.0–11.0 s"; "" otherwise */
	void *priv;
};

int run_collect(const struct run_collect_spec *spec, struct run_collected *out, char *errmsg,
                size_t errmsg_size);

struct route;
/* A route under the plan's pad: with pad = none, an input action (press,
 * stick, ...) is refused with -EINVAL, errmsg naming its file:line; shot
 * and mark lines are fine.  0 otherwise. */
int run_route_fits_pad(const struct plan *p, const struct route *route, char *errmsg,
                       size_t errmsg_size);

/* The coverage rule's default: a log must cover 90 % of the window. */
#define RUN_MIN_COVERAGE_PCT 90.0

struct collect_frames;
/* Frame i of a parsed log as a database row: columns the log lacks marked
 * absent, present_ns moved by shift_ns (onto the route's clock). */
struct db_frame run_db_frame(const struct collect_frames *f, size_t i, int64_t shift_ns);

struct stats_log;
/* A parsed frame log as stats reads it: out->frames is malloc'd (release
 * with run_stats_log_finish()); out->name and out->warnings point into
 * frames, which must outlive out.  0 or -ENOMEM (out untouched). */
int run_stats_log(const struct collect_frames *frames, struct stats_log *out);
/* Frees what run_stats_log() made; NULL is a no-op. */
void run_stats_log_finish(struct stats_log *log);
struct stats_run_metrics;
/* stats_run_metrics_compute() over a parsed frame log (through
 * run_stats_log()): the same returns, and -ENOMEM for the rows. */
int run_frame_metrics(const struct collect_frames *frames, int64_t t0_ns, const double *window_s,
                      struct stats_run_metrics *out);
/* Adds a metric the caller knows (the route player's lateness); a name
 * already there keeps its first value.  -EINVAL for a value not finite. */
int run_collected_add_metric(struct run_collected *c, const char *name, double value);
void run_collected_finish(struct run_collected *c);

/* A PNG's mean luma (0..255, 54 R + 183 G + 19 B over 256, as the demo
 * game computes it) and the FNV-1a 64 of its RGBA8 pixels, hex.  -EINVAL
 * for a file that is not a PNG. */
int run_png_stats(const char *path, double *luma_out, char checksum_out[17], char *errmsg,
                  size_t errmsg_size);

/* SHA-256 of a file, hex (65 bytes with the NUL). */
int run_sha256_file(const char *path, char hex_out[65]);

/* ---- void rules across a campaign --------------------------------------- */

/*
 * Applies the campaign-wide void rules of DESIGN.md 5.3 (docs/running.md)
 * to the campaign's finished, measured runs: swap-in above swap_factor x
 * the campaign median and above swap_min_pages; a shot whose luma is more
 * than shot_luma from the median of the other arms' shots at that point
 * (equal checksums always agree); the GPU clock's window median
 * clock_drop_pct under the campaign's while the GPU was busy; the GPU
 * temperature at or over temp_max_c.  Each voided run gets its reason.
 * *n_voided (may be NULL) says how many runs this call voided.
 */
int run_void_apply(struct db *db, int64_t campaign_id, const struct plan_void_rules *rules,
                   size_t *n_voided, char *errmsg, size_t errmsg_size);

/* ---- the host's facts (run-host.c) -------------------------------------------- */

struct deck;
struct deck_facts;
struct json_t;

/*
 * The host's facts as one JSON object (`rxdeck deck info --json`'s
 * "facts"): f's fields, then the card's GPU performance level and TDP
 * (tdp_w, tdp_min_w, tdp_max_w) and the power source ("AC", "battery"),
 * each null when this host does not say.  New reference; NULL: no memory.
 */
struct json_t *run_host_facts_json(struct deck *d, const struct deck_facts *f);

/*
 * Stores the host's facts for the campaign: at its first call (event
 * "start"), and later (event "resume") only when they differ from the
 * campaign's last row, with what changed ("key: OLD -> NEW", one a line,
 * also written into changes).  0 stored as a start or nothing changed (or
 * d NULL: no sysfs), 1 changed and stored, a negative errno (the
 * database's message in db_errmsg()).
 */
int run_host_record(struct db *db, int64_t campaign_id, struct deck *d, char *changes,
                    size_t size);

/* ---- deadlines (run-deadline.c) ---------------------------------------------- */

/* A duration as progress lines write it: "1h02m", "4m12s", "9s". */
void run_format_duration(double s, char *buf, size_t size);

/*
 * The deadline of a start that was scheduled for a time of day (a timer's
 * OnCalendar): scheduled is "HH:MM", and until, as a time of day, counts
 * from the latest moment at or before now_unix_ms that the clock showed
 * scheduled (the first until after it), not from now.  A start that comes
 * hours late (a timer missed in suspend fires on waking) so gets its
 * night's deadline, close or passed.  until as a date ("2026-12-02 07:00")
 * is kept.  Writes the deadline as "YYYY-MM-DD HH:MM" into out; 0, or
 * -EINVAL for a malformed time.
 */
int run_deadline_anchor(const char *until, const char *scheduled, int64_t now_unix_ms, char *out,
                        size_t size);

/*
 * A first round's length as guessed before any run is measured: the runs
 * of the order plus the warm-up runs (*n_runs, may be NULL), each the
 * route's route_s, the plan's start_delay and 5 s to start.
 */
double run_deadline_round_s(const struct plan *p, double route_s, size_t *n_runs);

/*
 * The guard: 0 when the plan has no deadline or one round fits before it;
 * -ETIME when the deadline is less than one round away or passed, with
 * errmsg naming campaign name, the deadline, how far it is and the
 * round's estimate.  -EINVAL for a malformed deadline.
 */
int run_deadline_check(const struct plan *p, const char *name, double route_s,
                       int64_t now_unix_ms, char *errmsg, size_t size);

/*
 * The same guard at `rxdeck resume`, with the deadline the campaign froze
 * at its start (its plan's until, a date): a round is the order's runs
 * plus the warm-up runs still to play (warmups_left), each the route, the
 * plan's start_delay and 5 s to start.  0, -ETIME ("not resuming campaign
 * '...': the deadline ..."), -EINVAL for a malformed deadline.
 */
int run_deadline_check_resume(const struct plan *p, const char *name, double route_s,
                              size_t warmups_left, int64_t now_unix_ms, char *errmsg, size_t size);

/* ---- campaigns ------------------------------------------------------------- */

struct run_campaign;

/* How a campaign is run.  Zero means default for every field. */
struct run_options {
	const char *data_dir;      /* NULL: run_data_dir() */
	const char *name;          /* the campaign's name; NULL: plan name + date */
	bool quiet;                /* no progress lines */
	FILE *progress;            /* NULL: stderr */
	volatile sig_atomic_t *stop; /* set by a signal handler: stop after killing the game */
	char *const *environ;      /* the harness's environment; NULL: environ */
	const char *deck_root;     /* the system root the samplers and the clock/TDP
	                              control use; NULL: "/" (tests: a fake tree) */
	double ac_poll_s;          /* how often AC is looked at while on battery; 0: 5 s */
	/* resume: go on although the route or a build changed since the start
	 * (the differences are added to the campaign's notes); false: refuse */
	bool accept_changes;
	/* A campaign with a planned maximum of rounds (max_rounds, or until)
	 * asks this after every round once its planned rounds ran: *decided
	 * true when every primary comparison is decided at the level of this
	 * look (report_campaign_decided()), and the campaign stops.  NULL: it
	 * never stops early.  0 or a negative errno (reason in errmsg). */
	int (*decided)(void *ctx, struct db *db, int64_t campaign_id, bool *decided, char *errmsg,
	               size_t errmsg_size);
	void *decided_ctx;
	/* The time the host spent suspended since boot, in ns (CLOCK_BOOTTIME
	 * minus CLOCK_MONOTONIC); read before and after each run, a second or
	 * more between them voids the run "host slept".  NULL:
	 * deck_suspended_ns().  Tests put a jump here. */
	int64_t (*suspended_ns)(void *ctx);
	void *suspended_ctx;
};

/*
 * Makes a campaign of a parsed plan: finds the route, profile, collector
 * profile and programs, freezes the profile and the inherited environment
 * into the plan, chooses the pad, reads the host's facts, and creates the
 * campaign, its builds, arms, route marks and planned runs in the database
 * (one transaction), and its folder with the frozen plan (plan.ini).
 * Returns 0 and *out; -EINVAL / -ENOENT / -EACCES with the reason in errmsg
 * (nothing is written then); -ETIME when the plan's deadline (until) is
 * less than one round away (run_deadline_check()).
 */
int run_campaign_create(struct db *db, const struct plan *plan, const struct run_options *opt,
                        struct run_campaign **out, char *errmsg, size_t errmsg_size);

/*
 * Opens an existing campaign to go on with it: by name or id (NULL: the
 * newest campaign not done), with the frozen plan from its folder, and
 * holds it (-EBUSY, naming the holder, while another harness does).
 * -ENOENT when there is none, -EALREADY when every run of it is finished,
 * -ETIME when its deadline is less than one round away or passed
 * (run_deadline_check_resume(); nothing is written then),
 * -ESTALE when the route file's text or a build's SHA-256 differs from the
 * campaign's (errmsg lists the differences) unless opt->accept_changes,
 * which records them in the campaign's notes.
 */
int run_campaign_open(struct db *db, const char *name_or_id, const struct run_options *opt,
                      struct run_campaign **out, char *errmsg, size_t errmsg_size);

struct run_outcome {
	size_t runs_done;          /* runs finished in this call */
	size_t runs_void;          /* of the campaign, void at the end */
	bool interrupted;          /* stopped by opt->stop; `rxdeck resume` goes on */
	bool complete;             /* every run of the campaign is finished */
	enum run_stop {
		RUN_STOP_NONE = 0,     /* not complete */
		RUN_STOP_PLANNED,      /* the planned rounds ran (no maximum, no deadline) */
		RUN_STOP_DECIDED,      /* every primary comparison decided */
		RUN_STOP_MAX_ROUNDS,   /* the planned maximum of rounds ran */
		RUN_STOP_DEADLINE,     /* another round would end after until */
	} stop;
	int rounds;                /* rounds of the campaign at the end */
};

/*
 * Plays the campaign's runs from the first one not finished; once the
 * planned ones ran, a campaign with a maximum of rounds (plan_max_rounds())
 * stops when opt->decided says every primary comparison is decided, else
 * adds a round while the maximum and the deadline (a whole round must end
 * before it) allow.  Then it applies the campaign-wide void rules and marks
 * the campaign done.  Returns 0 with *out (also when interrupted: see
 * out->interrupted); a negative errno when the database, a run's folder,
 * or the setting up of a run (pad, FIFO, fork) failed (errmsg): the run it
 * was on stays running, for a resume once the cause is fixed.
 */
int run_campaign_play(struct run_campaign *c, struct run_outcome *out, char *errmsg,
                      size_t errmsg_size);

int64_t run_campaign_id(const struct run_campaign *c);
const char *run_campaign_name(const struct run_campaign *c);
/* The campaign's folder (runs/<name>). */
const char *run_campaign_dir(const struct run_campaign *c);
const struct plan *run_campaign_plan(const struct run_campaign *c);

void run_campaign_destroy(struct run_campaign *c);

/* ---- progress (run-eta.c) ---- */

/* Where a campaign stands, from its runs. */
struct run_eta {
	int round;               /* round of the run playing, else of the next one */
	int rounds;              /* rounds planned */
	bool warmup;             /* that run is the warm-up */
	bool playing;            /* a run is RUNNING */
	size_t runs_done;        /* DONE or VOID */
	size_t runs_left;        /* PLANNED or RUNNING */
	size_t runs_timed;       /* ended runs with a start and an end */
	double run_s;            /* their mean length, s (or the guess); NaN: not known */
	bool guessed;            /* run_s is the caller's guess: no run timed yet */
	bool known;              /* left_s and finish_unix_ms are set */
	double left_s;           /* time still needed, s */
	int64_t finish_unix_ms;  /* now + left_s */
};

/*
 * The estimate for runs[0..n) (a campaign's runs, warm-up included) at
 * now_unix_ms, with rounds the campaign's (the runs' highest round wins): mean ended-run length x runs left, less what the RUNNING run
 * has taken so far (at most one run length).  guess_run_s (> 0) stands in
 * for the mean until a run has ended; 0: none.  Returns 0, or -EINVAL.
 */
int run_eta_compute(const struct db_run *runs, size_t n, int rounds, double guess_run_s,
                    int64_t now_unix_ms, struct run_eta *out);

/* One line: "round 2 of 3, 5 runs left, expected to finish at 03:12 (in
 * 14m30s; a run takes 2m54s, the mean of 4)"; the finish in local time,
 * with the date when it is not today's. */
void run_eta_format(const struct run_eta *e, int64_t now_unix_ms, char *buf, size_t size);

#endif
