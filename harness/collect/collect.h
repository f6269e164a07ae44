/* collect: turns what a run leaves behind into rows the harness can store.
 *
 * Three inputs are read here:
 *   - frame logs: the renderer's CSV (RX_FRAME_LOG; DESIGN.md 3.4),
 *     MangoHud CSV logs of games that are not ours and PresentMon CSVs of
 *     Windows runs, detected from the header;
 *   - collector profiles (profiles/NAME.collect): named POSIX extended
 *     regular expressions whose named captures become metrics;
 *   - game logs (the renderer's RX_LOG, or any game's stderr), scanned with a
 *     profile into matched lines and aggregated per run.
 *
 * Every parser reports errors as `file:line:column: what is wrong` in a
 * struct collect_error.  Damage inside a file (a broken row, a line cut off
 * by a writer that is still running) is not fatal: the row is counted,
 * skipped, and a warning naming file:line:column goes into the result's
 * warning list.  docs/metrics.md and docs/collector-profiles.md are the
 * user-facing description of the formats and definitions.
 */
#ifndef RXDECK_COLLECT_H
#define RXDECK_COLLECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

/* ---- errors and warnings --------------------------------------------- */

/* A fatal parse or I/O error: "file:line:column: what is wrong" or
 * "cannot open frame log 'x.csv': No such file or directory". */
struct collect_error {
	char msg[512];
};


/* ---- frame logs ------------------------------------------------------- */

enum collect_source {
	COLLECT_SOURCE_AUTO = 0,      /* detect from the header */
	COLLECT_SOURCE_RXVK = 1,      /* the renderer's frame log */
	COLLECT_SOURCE_MANGOHUD = 2,  /* a MangoHud CSV log */
	COLLECT_SOURCE_PRESENTMON = 3, /* a PresentMon CSV (1.x or 2.x column names) */
};

/* "rxvk", "mangohud", "presentmon" or "auto". */
const char *collect_source_name(enum collect_source source);

enum collect_frame_kind {
	COLLECT_FRAME_REAL = 0,   /* rendered by the game */
	COLLECT_FRAME_SHOWN = 1,  /* generated (frame generation), shown only */
};

/* How the timestamps of a frame log relate to the route's t0. */
enum collect_clock {
	/* present_ns is CLOCK_MONOTONIC (the renderer's log): t0 is the
	 * route's start on the same clock. */
	COLLECT_CLOCK_MONOTONIC = 0,
	/* present_ns counts from the log's own start (MangoHud's `elapsed`,
	 * or the running sum of frame times when there is none; PresentMon's
	 * TimeInSeconds or CPUStartTime, or with --date_time the time since
	 * its first row): t0 must be given on that clock (0 = the log
	 * started with the route). */
	COLLECT_CLOCK_LOG_START = 1,
};

/* One row of a frame log.  Columns a source does not have are NaN. */
struct collect_frame {
	int64_t present_ns;  /* when it was presented, see enum collect_clock */
	float frame_ms;      /* the log's own frame-time column, ms (MangoHud's
	                      * frametime converted to ms; the renderer's
	                      * frame_ms); NaN if absent */
	float rb_wait_ms;    /* readback waits during this frame, ms; NaN if absent */
	float memsync_ms;    /* replay memory sync during this frame, ms; NaN if absent */
	float draws;         /* draws this frame; NaN if absent */
	float fps;           /* MangoHud's fps column (its own running average); NaN if absent */
	uint8_t kind;        /* enum collect_frame_kind */
};

/* A parsed frame log.  Frames are in file order with present_ns
 * non-decreasing: a row going back in time is skipped as broken, and so is
 * a row that jumped ahead alone (the next row comes back to before it) or
 * more than an hour ahead; each with a file:line:column warning. */
struct collect_frames {
	char *path;                 /* the name given to the parser */
	enum collect_source source; /* RXVK, MANGOHUD or PRESENTMON */
	const char *format;         /* for people: "rxdeck frame log", "MangoHud CSV",
	                             * "PresentMon 1.x CSV", "PresentMon 2.x CSV" */
	enum collect_clock clock;
	struct collect_frame *frames;
	size_t n;
	/* Where the frame time of a real frame comes from (DESIGN.md 5.3):
	 * false: present_ns minus the previous real frame's present_ns (the
	 * renderer's log); true: the frame_ms column (MangoHud measured the
	 * present-to-present time itself, its rows may be samples; PresentMon's
	 * MsBetweenPresents). */
	bool frame_ms_is_interval;
	/* MangoHud logged one row per log interval, not per frame: the rows
	 * are samples of frame times.  See docs/metrics.md, "sampled logs". */
	bool sampled;
	bool frametime_was_us;      /* MangoHud frametime column read as µs */
	/* PresentMon's --date_time columns (TimeInDateTime, CPUStartDateTime):
	 * the log's wall clock, local time with no zone.  wall_start_ns is
	 * the local time of present_ns 0 (the first row when the date-time
	 * column is the clock) in ns since 1970-01-01 00:00 of the local
	 * calendar, read as if it were UTC: only differences between such
	 * times mean anything (docs/metrics.md 4a).  No other format read
	 * here carries a wall clock. */
	bool has_wall_clock;
	int64_t wall_start_ns;
	const char *wall_column;    /* the column it came from; NULL without */
	size_t lines;               /* lines read, header included */
	size_t broken_lines;        /* rows skipped as broken or cut off */
	size_t dropped_rows;        /* rows left out on purpose (absurd start-up rows) */
	struct util_warnings warnings;
};

/*
 * Parses a frame log held in memory.  `name` is used in messages and kept in
 * ->path; data need not be NUL-terminated.  source COLLECT_SOURCE_AUTO
 * detects the format from the header (a header with `present_ns` and `kind`
 * is the renderer's; one with a time column (TimeInSeconds, CPUStartTime,
 * or --date_time's TimeInDateTime, CPUStartDateTime; in any case) and a
 * frame-time column (MsBetweenPresents, FrameTime) is
 * PresentMon's; one with `frametime` or `fps`, possibly after MangoHud's
 * system-info block, is MangoHud's).
 *
 * Returns 0 and a new object in *out (free with collect_frames_destroy()),
 * even when rows were skipped (see ->warnings); -EINVAL when the file has no
 * usable header or lacks a required column, or a PresentMon date-time value
 * does not read (it places the run in time: no row of it is skipped), with
 * err filled (if not NULL);
 * -ENOMEM.  *out is untouched on failure.
 */
int collect_frames_parse(const char *name, const char *data, size_t len,
                         enum collect_source source, struct collect_frames **out,
                         struct collect_error *err);

/* Reads and parses the file at path; errors as collect_frames_parse(), plus
 * the open/read errno (negative) with "cannot open frame log 'path': ...". */
int collect_frames_load(const char *path, enum collect_source source,
                        struct collect_frames **out, struct collect_error *err);

void collect_frames_destroy(struct collect_frames *frames);

/* ---- collector profiles ----------------------------------------------- */

/* A parsed profile (opaque).  See docs/collector-profiles.md. */
struct collect_profile;

/*
 * Parses a profile held in memory (`name` for messages).  Returns 0 and a
 * new profile in *out; -EINVAL with err = "name:line:column: what is wrong"
 * (bad directive, bad regular expression, unknown capture in a metric,
 * duplicate names, ...); -ENOMEM.
 */
int collect_profile_parse(const char *name, const char *text, size_t len,
                          struct collect_profile **out, struct collect_error *err);
/* Reads and parses the file at path. */
int collect_profile_load(const char *path, struct collect_profile **out,
                         struct collect_error *err);
void collect_profile_destroy(struct collect_profile *profile);

/* The profile's `name` directive (or the file name it was parsed as). */
const char *collect_profile_name(const struct collect_profile *profile);
/* Number of `metric` directives, and the i-th metric's name (i < count). */
size_t collect_profile_metric_count(const struct collect_profile *profile);
const char *collect_profile_metric_name(const struct collect_profile *profile, size_t i);

/* ---- log lines --------------------------------------------------------- */

/* t_ns of a line without a timestamp prefix: counted for the whole run. */
#define COLLECT_UNTIMED INT64_MIN

/* One named capture of a matched line. */
struct collect_value {
	const char *name;  /* the capture's name; points into the profile */
	char *text;        /* the captured text ("" when the group did not take part) */
	double value;      /* the text read as a number; NaN when it is not one */
};

/* One log line that a profile pattern matched. */
struct collect_match {
	int64_t t_ns;          /* CLOCK_MONOTONIC from the line's `[s.us] ` prefix,
	                        * or COLLECT_UNTIMED */
	size_t line;           /* 1-based line number in the log */
	const char *pattern;   /* the pattern's name; points into the profile */
	char *text;            /* the line without its timestamp prefix */
	struct collect_value *values;
	size_t n_values;
};

/* A scanned log.  Holds pointers into the profile it was scanned with: the
 * profile must outlive it. */
struct collect_log {
	char *path;
	struct collect_match *matches;
	size_t n;
	size_t lines;           /* lines read */
	size_t untimed_lines;   /* matched lines without a timestamp prefix */
	struct util_warnings warnings;
};

/*
 * Scans a log held in memory line by line: strips the timestamp prefix
 * `[<seconds>.<6 digits>] ` (seconds on CLOCK_MONOTONIC) when the profile
 * uses timestamps, and tries every pattern in profile order; the first that
 * matches wins.  A last line without a newline (the writer is still
 * running) is scanned only when `final` is true, otherwise skipped with a
 * warning.  Returns 0 and a new log in *out; -ENOMEM.
 */
int collect_log_scan(const struct collect_profile *profile, const char *name,
                     const char *data, size_t len, bool final,
                     struct collect_log **out, struct collect_error *err);
/* Reads and scans the file at path (final = true). */
int collect_log_load(const struct collect_profile *profile, const char *path,
                     struct collect_log **out, struct collect_error *err);
void collect_log_destroy(struct collect_log *log);

/* One aggregated per-run metric of a profile. */
struct collect_metric {
	const char *name;  /* points into the profile */
	double value;      /* NaN when no line fed it (or its weights summed to 0) */
	size_t lines;      /* matched lines in the window that fed it */
};

struct collect_log_metrics {
	struct collect_metric *v;  /* one per profile metric, in profile order */
	size_t n;
	size_t timed_lines;        /* matched lines inside the window */
	size_t untimed_lines;      /* matched untimed lines, counted for the whole run */
	struct util_warnings warnings;
};

/*
 * Aggregates the profile's metrics over the matched lines inside the window:
 * a line belongs when w0 < (t_ns - t0_ns) / 1e9 <= w1; untimed lines always
 * belong (and a warning says how many there were).  window_s NULL means the
 * whole log.  Returns 0 with *out filled (release with
 * collect_log_metrics_finish()); -EINVAL when window_s[0] >= window_s[1];
 * -ENOMEM.
 */
int collect_log_metrics_compute(const struct collect_profile *profile,
                                const struct collect_log *log, int64_t t0_ns,
                                const double *window_s,
                                struct collect_log_metrics *out);
/* The metric named `name`, or NULL. */
const struct collect_metric *collect_log_metrics_find(const struct collect_log_metrics *m,
                                                      const char *name);
void collect_log_metrics_finish(struct collect_log_metrics *m);

/* ---- small shared helpers --------------------------------------------- */

/*
 * Parses a duration with an `s` or `ms` suffix ("30s", "110.5s", "250ms";
 * a bare number is seconds) into seconds.  Returns 0 or -EINVAL.
 */
int collect_parse_duration_s(const char *text, double *out_s);

/* Reads a whole file into a new buffer (NUL-terminated, *out_len bytes
 * before the NUL).  Returns 0 or a negative errno; err says
 * "cannot open WHAT 'path': reason". */
int collect_read_file(const char *what, const char *path, char **out, size_t *out_len,
                      struct collect_error *err);

#endif
