/* plan: campaign plans, the INI files `rxdeck run` reads.
 *
 * A plan names the route, the env profile, the builds (a binary or a command
 * line, never a shell string), the arms (letter, label, build, env lines,
 * extra arguments), the order of one round, how many rounds (or a deadline),
 * the warm-up run, the watchdog and the thresholds of the void rules.
 * docs/running.md is the user's description of every key; this header is
 * the program's.
 *
 *   [campaign]
 *   name = readback
 *   route = routes/kokiri-moving.route
 *   profile = auto
 *   order = ABCDDCBA
 *   rounds = 3                    ; or: until = 07:00
 *   [build forest]
 *   binary = forest               ; the demo game found next to rxdeck
 *   [arm A]
 *   label = baseline
 *   [arm C]
 *   label = early readback
 *   env = RX_VK_READBACK_EARLY=1
 *
 * Files are parsed with inih.  Every error names `file:line:column: what is
 * wrong`; the parser goes on after an error so a file's errors are reported
 * together (through plan_parse_options.on_error).  plan_write() writes a plan
 * back in a canonical form that parses to the same plan: the harness keeps
 * that form of every campaign (with paths made absolute and the profile and
 * inherited environment frozen in [profile] and [inherited]) so `rxdeck
 * resume` runs the rest exactly as the start did.
 *
 * Env profiles (profiles/NAME.env) are KEY=VALUE lines, parsed by
 * plan_env_parse() with the same error positions.
 *
 * Functions that can fail return 0 or a negative errno and leave their
 * output untouched on failure.
 */
#ifndef RXDECK_PLAN_H
#define RXDECK_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/diag.h"

/* Limits a plan must keep. */
#define PLAN_MAX_ARMS 26        /* letters A..Z */
#define PLAN_MAX_BUILDS 26
#define PLAN_MAX_ORDER 256      /* runs in one round */
#define PLAN_MAX_ROUNDS 10000
#define PLAN_MIN_WATCHDOG_S 2  /* the frame log is flushed once a second */
#define PLAN_MAX_NAME 48        /* campaign and build names */
/* inih reads lines of at most this many characters (its fixed buffer);
 * longer lines are an error.  Long command lines and env lists continue on
 * indented lines instead. */
#define PLAN_MAX_LINE 196

/* ---- errors ------------------------------------------------------------ */

/* Errors are struct util_diag (util/diag.h): file (the plan as it was
 * named: "night.ini", "command line"), line, column, message. */

/* Prints "file:line:column: message", or "file: message" for line 0 (a
 * plan's whole-file messages do not name the file), and a newline. */
void plan_diag_print(const struct util_diag *e, FILE *f);

struct plan_parse_options {
	/* Called for every error in line order; without it only the first error
	 * is reported (in the err argument of the parse call). */
	void (*on_error)(void *ctx, const struct util_diag *e);
	void *error_ctx;
	/* The folder relative paths in the plan are taken from; NULL: the
	 * folder of the plan's name (or "." when it has none). */
	const char *dir;
};

/* ---- the plan ------------------------------------------------------------ */

/* A list of strings ("KEY=VALUE" lines, argv words).  v[n] is NULL. */
struct plan_strv {
	char **v;
	size_t n;
};

/* Where a key was given, for errors found after parsing (a build that does
 * not exist, a binary that cannot run).  line 0: not given. */
struct plan_pos {
	int line;
	int column;
};

enum plan_pad {
	PLAN_PAD_AUTO = 0,   /* uinput where /dev/uinput is usable, else the socket */
	PLAN_PAD_UINPUT,     /* uinput or fail */
	PLAN_PAD_SOCKET,     /* the socket backend even where uinput works */
	PLAN_PAD_NONE,       /* no pad: programs that take no input (timedemos,
	                        benchmarks, a game on autopilot); a route with
	                        input actions is refused */
};

enum plan_frames {
	PLAN_FRAMES_RXVK = 0, /* the renderer's frame log (RX_FRAME_LOG) */
	PLAN_FRAMES_MANGOHUD, /* a MangoHud CSV log written into the run's folder */
};

struct plan_build {
	char *name;               /* [build NAME] */
	/* The program and its arguments.  argv.v[0] is a path (relative to the
	 * plan's folder when it has a '/'), a name looked up in PATH, or
	 * "forest": the demo game next to rxdeck. */
	struct plan_strv argv;
	char *commit;             /* commit label; NULL: not known */
	char *workdir;            /* NULL: the run's folder */
	/* How the game is told where the pad is: this option followed by
	 * "socket:PATH" or the uinput device node.  NULL: not at all (a real
	 * game finds a uinput pad itself, and cannot use the socket pad).
	 * Default "--pad" for forest, NULL otherwise; "none" in the file
	 * clears it. */
	char *pad_option;
	/* Put before the command (`launcher = gamescope -w 1280 -h 720 --`, or
	 * `mangohud`), its words split like command's; empty: none.  The
	 * program measured is still argv.v[0] (its commit and checksum). */
	struct plan_strv launcher;
	struct plan_pos pos;      /* the section line */
	struct plan_pos launcher_pos; /* the launcher value */
	struct plan_pos argv_pos; /* the binary or command value */
};

struct plan_arm {
	char letter;              /* 'A'..'Z' */
	char *label;              /* NULL: none */
	char *build;              /* the build's name; NULL: the plan's first build */
	struct plan_strv env;     /* KEY=VALUE, in file order (a later KEY wins) */
	struct plan_strv args;    /* words appended to the build's argv */
	unsigned gpu_clock_mhz;   /* gpu_clock: the shader clock fixed for its runs; 0:
	                             the campaign's */
	double tdp_w;             /* tdp_w: the TDP limit for its runs; 0: the campaign's */
	struct plan_pos pos;
	struct plan_pos build_pos;
};

/* Thresholds of the void rules of DESIGN.md 5.3 (docs/running.md).  A rule
 * whose threshold is 0 is off. */
struct plan_void_rules {
	double swap_factor;       /* swap-in above this x the campaign median ... (1.5) */
	double swap_min_pages;    /* ... and above this many pages (10000) */
	double shot_luma;         /* a shot's mean luma this far (0..255) from the
	                             median of the other arms' shots at that point (16) */
	double clock_drop_pct;    /* median GPU clock in the window this % under the
	                             campaign's median (10) */
	double temp_max_c;        /* the hottest GPU temperature reached this (0: off) */
	double min_coverage_pct;  /* a frame log covering less of the route's window
	                             than this % makes the run void (90; 0: off) */
};

/* Unmeasured warm-up runs before round 1 (docs/running.md). */
enum plan_warmup {
	PLAN_WARMUP_NO = 0,       /* "no" */
	PLAN_WARMUP_FIRST = 1,    /* "first" (also "yes"): one run of the first arm */
	PLAN_WARMUP_EACH = 2,     /* "each", the default: one run of every arm */
};

/* [verdict]: what the decision treats as primary and the minimum effects
 * (docs/metrics.md, "The decision"). */
struct plan_min_effect {
	char key[32];             /* a stats metric key */
	double pct;               /* % of the baseline's mean, (0, 100] */
};

/* time_terms: which time terms orthogonal to the arm contrast the model
 * keeps (docs/metrics.md 6.1) */
enum plan_time_terms {
	PLAN_TIME_TERMS_NARROWEST = 0,  /* "narrowest", the default: kept when
	                                 * the interval is narrower with them */
	PLAN_TIME_TERMS_DROP = 1,       /* "drop-orthogonal": always dropped */
};

struct plan_verdict {
	struct plan_strv primary; /* metric keys; none: real_fps and p99_ms */
	struct plan_min_effect *min_effects;
	size_t n_min_effects;
	enum plan_time_terms time_terms;
};

struct plan {
	char *path;               /* the name it was parsed as */
	char *dir;                /* the folder relative paths are taken from */
	char *text;               /* the text as given */

	/* [campaign] */
	char *name;               /* NULL: from the file name */
	char *notes;              /* lines joined with '\n'; NULL: none */
	char *route;              /* route file; NULL: routes/kokiri-moving.route */
	char *profile;            /* env profile name or path; NULL: "auto" */
	char *collect;            /* collector profile name or path; NULL: "rxvk"; "none" */
	char *order;              /* one round; by default the arms forward then
	                             backward (ABCDDCBA), filled in by the parser */
	int rounds;               /* 0: not given (1 unless until is given) */
	char *until;              /* deadline as written ("07:00"); NULL: none */
	int max_rounds;           /* 0: none; else rounds stop here, or earlier
	                             once every primary comparison is decided */
	enum plan_warmup warmup;  /* default PLAN_WARMUP_EACH */
	double watchdog_s;        /* no new frame for this long = hung (10) */
	double start_timeout_s;   /* no first frame this long after the start = hung (120) */
	double start_delay_s;     /* the route starts this long after the first frame (0) */
	double hard_limit_s;      /* a run lasts at most this long; 0: route + start timeout + 60 s */
	double stop_timeout_s;    /* after SIGTERM at the route's end, SIGKILL after this (10) */
	struct plan_strv inherit; /* env keys the harness's own environment may set */
	enum plan_pad pad;
	enum plan_frames frames;
	/* Device state for every arm that does not set its own (0: left as
	 * it is): set before each run, put back after the campaign. */
	unsigned gpu_clock_mhz;   /* gpu_clock = 1600 (MHz) */
	double tdp_w;             /* tdp_w = 12 */
	double min_battery_pct;   /* on battery below this the campaign stops (10) */
	struct plan_void_rules void_rules;
	struct plan_verdict verdict;

	/* [profile]: the profile's env frozen into the plan (has_profile_env);
	 * used instead of reading the profile file. */
	bool has_profile_env;
	struct plan_strv profile_env;
	/* [inherited]: the inherited values frozen into the plan
	 * (has_inherited); used instead of the environment. */
	bool has_inherited;
	struct plan_strv inherited_env;

	struct plan_build *builds;
	size_t n_builds;
	struct plan_arm *arms;    /* in file order */
	size_t n_arms;

	struct plan_pos route_pos, profile_pos, order_pos, until_pos, collect_pos;
};

/*
 * Parses len bytes of plan text named name.  Returns 0 and the plan in *out
 * (free with plan_free()); -EINVAL when it has errors (the first in *err,
 * every one to opt->on_error, at most 200 and then one "N more errors not
 * listed (M in all)" with line 0); -ENOMEM.  err and opt may be NULL.  The
 * checks that need nothing outside the text are done here: known sections
 * and keys, values of the right form, every arm's build exists, the order
 * names only arms and names every arm, rounds and until not both, a name of
 * [A-Za-z0-9._-], at least one arm.  Paths are not looked at.
 */
int plan_parse(const char *name, const char *text, size_t len,
               const struct plan_parse_options *opt, struct plan **out, struct util_diag *err);

/* Reads and parses the file at path; errors as plan_parse(), plus the
 * negative errno of reading it ("cannot open plan 'x.ini': ..."). */
int plan_load(const char *path, const struct plan_parse_options *opt, struct plan **out,
              struct util_diag *err);

/* Frees a plan; NULL is a no-op. */
void plan_free(struct plan *plan);

/* The embedded default plan (forest, routes/kokiri-moving.route, arms A: no
 * switch, B: RX_VK_READBACK_LATE=newest, C: RX_VK_READBACK_EARLY=1, D: both,
 * order ABCDDCBA), what `rxdeck run` runs when no plan is named. */
const char *plan_default_text(void);

/*
 * Sets one [campaign] key as if the file said `key = value`, with the same
 * checks ("route", "rounds", "until", "name", "profile", "warmup", ...);
 * errors are named after where ("command line: --rounds '0': ...").
 * Setting rounds clears until and the other way round.  Then the whole
 * plan is checked again.  Returns 0 or -EINVAL (*err filled).
 */
int plan_set(struct plan *plan, const char *where, const char *key, const char *value,
             struct util_diag *err);

/* Writes the plan in canonical form: every key with its value (defaults
 * included), so it parses back to the same plan.  Returns 0 or -EIO. */
int plan_write(const struct plan *plan, FILE *f);

/* The effective order of one round (order, or the arms forward then
 * backward). */
const char *plan_order(const struct plan *plan);
/*
 * The arm order of round (1-based): the plan's order with its arms
 * relabelled by a Williams design, so that over the rounds each arm comes
 * first equally often and directly before each other arm equally often
 * (n rounds for an even number of arms n, 2n for an odd one); round 1 is
 * the order as written.  Writes strlen(plan_order()) letters and a NUL to
 * out.  Returns 0, or -ENOSPC when size is too small.
 */
int plan_round_order(const struct plan *plan, int round, char *out, size_t size);

/* The warm-up runs' arms, in order (none, the first arm, or every arm in
 * the order of their first place in round 1), as a string of letters. */
int plan_warmup_arms(const struct plan *plan, char *out, size_t size);

/* The effective rounds: rounds, or 1 when neither rounds nor until was given. */
int plan_rounds(const struct plan *plan);

/* The planned maximum of a campaign that adds rounds until its primary
 * comparisons are decided (docs/running.md, 2.2): max_rounds, at least the
 * effective rounds; 0 when max_rounds is not given (a fixed campaign, or
 * an until that run_campaign_create() has not frozen yet). */
int plan_max_rounds(const struct plan *plan);

const struct plan_arm *plan_arm_find(const struct plan *plan, char letter);
const struct plan_build *plan_build_find(const struct plan *plan, const char *name);
/* The build an arm runs (its own, or the plan's first). */
const struct plan_build *plan_arm_build(const struct plan *plan, const struct plan_arm *arm);
/* The build is the demo game ("forest", or a program named rxdeck-forest),
 * which takes the pad option and writes its own shots. */
bool plan_build_is_demo(const struct plan_build *build);

/*
 * The Unix time in ms of a deadline written "HH:MM" (the next time the
 * clock shows it after now_unix_ms, local time) or "YYYY-MM-DD HH:MM" /
 * "YYYY-MM-DDTHH:MM" (local time).  Returns 0, or -EINVAL for any other form
 * or an impossible time.
 */
int plan_until_resolve(const char *until, int64_t now_unix_ms, int64_t *out_unix_ms);

/* Parses a duration: a number with "ms", "s", "min" or "h" (a bare number
 * is seconds) into seconds, finite and >= 0.  Returns 0 or -EINVAL. */
int plan_parse_duration_s(const char *text, double *out_s);

/* ---- env lists and profiles ------------------------------------------- */

/* True for a campaign or build name: [A-Za-z0-9._-], 1..max bytes, not
 * starting with '.' or '-'. */
bool plan_name_valid(const char *name, size_t max);

/* True for an env key: [A-Za-z_][A-Za-z0-9_]*. */
bool plan_env_key_valid(const char *key, size_t len);

/*
 * Parses an env profile: KEY=VALUE lines (the value is everything after the
 * '=' up to the end of the line, trailing white space removed), blank lines
 * and '#' comments.  Returns 0 and the KEY=VALUE lines in *out (free with
 * plan_strv_finish()); -EINVAL with every error to opt->on_error and the
 * first in *err; -ENOMEM.
 */
int plan_env_parse(const char *name, const char *text, size_t len,
                   const struct plan_parse_options *opt, struct plan_strv *out,
                   struct util_diag *err);
int plan_env_load(const char *path, const struct plan_parse_options *opt, struct plan_strv *out,
                  struct util_diag *err);

/* Sets KEY=VALUE in list (replacing KEY's entry, or adding it).  Returns 0,
 * -EINVAL without '=' or with a bad key, -ENOMEM. */
int plan_strv_setenv(struct plan_strv *list, const char *key_value);
/* The value of key in a list of KEY=VALUE lines, or NULL. */
const char *plan_strv_getenv(const struct plan_strv *list, const char *key);
/* Appends a copy of s.  Returns 0 or -ENOMEM. */
int plan_strv_push(struct plan_strv *list, const char *s);
/* Frees the strings; the list is empty afterwards.  NULL is a no-op. */
void plan_strv_finish(struct plan_strv *list);
/* The entries joined by sep ("KEY=1 KEY2=x" with " "); malloc'd, "" for
 * none, NULL when out of memory. */
char *plan_strv_join(const struct plan_strv *list, const char *sep);

/*
 * Splits a command line into words: white space separates, '...' and "..."
 * group (no escapes inside '...'; \" and \\ inside "..."), a backslash
 * outside quotes takes the next character.  No variables, globs or other
 * shell meaning.  Words are appended to *out.  Returns 0; -EINVAL with
 * *bad_column (0-based) at an unclosed quote or a trailing backslash;
 * -ENOMEM.
 */
int plan_split_words(const char *s, struct plan_strv *out, size_t *bad_column);

#endif
