/* report: what the tester reads in the morning, computed from results.db
 * alone.
 *
 * The outputs of one campaign, all from the same numbers, each opening
 * with the headline (per arm against the baseline on the primary metrics,
 * then the best decided arm) and naming metrics through the registry
 * (stats_metrics[]):
 *   - report_print(): the terminal report, the comparison table (one
 *     column per arm, one row per metric, each run's value then the mean,
 *     Δ and Δ% against the baseline) and the verdicts, as Markdown, CSV or
 *     JSON, or the HTML morning page (docs/reports.md: formats, JSON
 *     schema, verdict rule);
 *   - report_tested_write(): the campaign's run file for docs/tested/
 *     (format in docs/tested-configurations.md);
 *   - report_plot_write(): SVG plots (frame time over the route, the
 *     frame-time distribution, fps per run in campaign order), and PNGs
 *     of them through librsvg;
 *   - report_summary_print(): the short Markdown summary a forge comment
 *     carries.
 *
 * Statistics are stats' (harness/stats/stats.h): run-level only, frames are
 * never treated as independent samples.  Nothing here writes to the
 * database.
 *
 * Errors: functions return 0 or a negative errno; when opts->errmsg is set,
 * the reason is written there ("campaign 'night-1' has no arm 'E'").
 */
#ifndef RXDECK_REPORT_H
#define RXDECK_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "results-db/db.h"

enum report_format {
	REPORT_FORMAT_MD = 0,   /* Markdown table and verdicts (default) */
	REPORT_FORMAT_CSV = 1,  /* one row per run and metric, then per arm */
	REPORT_FORMAT_JSON = 2, /* the document docs/reports.md defines */
	REPORT_FORMAT_HTML = 3, /* one self-contained page led by the headline: chips,
	                         * charts, plots, the verdict table, details */
	REPORT_FORMAT_TERM = 4, /* the terminal report: the headline, then one row per
	                         * arm, benchstat's cells, fitted to term_width */
};

/* The version of the JSON document's layout (its "schema_version"):
 * raised whenever a key changes meaning or goes away (docs/reports.md 6). */
#define REPORT_JSON_SCHEMA_VERSION 2

/* Zero means default for every field. */
struct report_options {
	char baseline;              /* the baseline arm's letter; 0: the first arm */
	enum report_format format;  /* 0: Markdown */
	bool embed_shots;           /* HTML: shots inside the page (base64 PNG) rather
	                             * than linked into the run folders */
	const char *tested_html;    /* run file: the HTML page written next to it (a
	                             * name relative to the run file), linked from its
	                             * Results; NULL: none */
	unsigned term_width;        /* TERM: the columns to fit; 0: no limit (--wide) */
	bool term_colour;           /* TERM: colour by state (ANSI SGR) */
	bool verbose;               /* TERM: then the whole Markdown body (-v) */
	bool csv_wide;              /* CSV: one row per arm and metric (--wide) */
	bool embed_plots;           /* HTML: the plots as PNG data URLs, not inline SVG */
	bool plots_png;             /* plots: a PNG of each beside its SVG (librsvg) */
	char *errmsg;               /* on failure, the reason is written here (may be NULL) */
	size_t errmsg_size;
};

/*
 * Whether every primary comparison of a campaign (each arm against the
 * baseline, its letter or 0 for the first arm, on each primary metric) is decided: faster, slower or same at
 * the level of the campaign's current look (docs/metrics.md, 6.5).  The
 * run loop asks it after each round (run_options.decided).  0 and
 * *decided; a negative errno with the reason in errmsg.
 */
int report_campaign_decided(struct db *db, int64_t campaign_id, char baseline, bool *decided,
                            char *errmsg, size_t errmsg_size);

/*
 * Why a finished campaign stopped, in the report's words (text: "decided
 * after 4 rounds", "max rounds reached (12)", ...; "" while not finished):
 * the reason the run loop stored (results-db stop_reason, *stored true),
 * else, for a campaign finished before schema 4, the one derived from its
 * data.  0, or a negative errno with the reason in errmsg.
 */
int report_stop_reason(struct db *db, int64_t campaign_id, char *text, size_t size, bool *stored,
                       char *errmsg, size_t errmsg_size);

/*
 * Resolves a campaign named on a command line: a name, else a number that
 * is an id; NULL or "" means the newest campaign.  Returns 0 and *id_out;
 * -ENOENT with a message ("no campaign 'x' in 'results.db'", "no campaign
 * in 'results.db' yet").
 */
int report_campaign_resolve(struct db *db, const char *name_or_id,
                            const struct report_options *opts, int64_t *id_out);

/*
 * Writes the campaign's report to out in opts->format.  Void runs are shown
 * with their reason and never counted; planned or running runs are left
 * out (Markdown says how many); warm-up runs are left out.  Returns 0;
 * -ENOENT when there is no such campaign or baseline arm; -ENODATA when the
 * campaign has no arm; -EIO when writing to out failed; -ENOMEM.
 */
int report_print(struct db *db, int64_t campaign_id, const struct report_options *opts,
                 FILE *out);

/* report_print() into the file at path, replaced only once complete (a
 * temporary file beside it, renamed over it).  0 or a negative errno, the
 * reason in opts->errmsg. */
int report_print_file(struct db *db, int64_t campaign_id, const struct report_options *opts,
                      const char *path);

/*
 * The headline alone (docs/reports.md, "The headline"), as text lines for
 * a terminal: one line per arm against the baseline on the primary
 * metrics, then the best arm or what would decide one; fitted to
 * opts->term_width (0: no limit).  The run and ab commands end with it.
 * Same returns as report_print().
 */
int report_headline_print(struct db *db, int64_t campaign_id, const struct report_options *opts,
                          FILE *out);

/*
 * The summary for a forge comment, Markdown: a title line, the table and
 * the verdicts (as report_print()), and run_file (a link or a path; may be
 * NULL) named as where the whole run file is.  Same returns as
 * report_print().
 */
int report_summary_print(struct db *db, int64_t campaign_id, const struct report_options *opts,
                         const char *run_file, FILE *out);

/*
 * The run file's name for the campaign: "YYYY-MM-DD-<name>.md" (the
 * campaign's creation date in UTC, the name with every byte outside
 * [A-Za-z0-9._-] as '-').  *out is malloc'd.  -ENOENT, -ENOMEM.
 */
int report_tested_name(struct db *db, int64_t campaign_id, char **out);

/*
 * Writes the campaign's run file into dir (created if missing) under
 * report_tested_name(), atomically (a temporary file renamed over it).
 * The same campaign written twice gives the same bytes; a file of that name
 * that belongs to another campaign is never touched (-EEXIST).  *path_out
 * (may be NULL) gets the path written, malloc'd.  Returns 0, -EEXIST,
 * -ENOENT, -EIO / the errno of the failing file call, -ENOMEM.
 */
int report_tested_write(struct db *db, int64_t campaign_id, const char *dir,
                        const struct report_options *opts, char **path_out);

/* The run file's text, as report_tested_write() writes it. */
int report_tested_print(struct db *db, int64_t campaign_id, const struct report_options *opts,
                        FILE *out);

/*
 * Writes the campaign's SVG plots into dir (created if missing), each
 * atomically: "<name>-frametime.svg" (frame time over the route, the
 * median run of each arm), "<name>-distribution.svg" (frame-time
 * distribution per arm, usable runs) and "<name>-fps.svg" (real fps of every
 * run in campaign order), <name> as in report_tested_name() without ".md";
 * with opts->plots_png, "<name>-KIND.png" beside each, drawn from the SVG
 * by librsvg.  A plot without data (no frames stored) is not written;
 * *n_written_out (may be NULL) says how many plots were.  Returns 0 or a
 * negative errno.
 */
int report_plot_write(struct db *db, int64_t campaign_id, const char *dir,
                      const struct report_options *opts, size_t *n_written_out);

/* report_plot_write(), and *paths_out (release each and the array with
 * free()) the paths of every file it wrote, *n_paths of them, in order. */
int report_plot_write_files(struct db *db, int64_t campaign_id, const char *dir,
                            const struct report_options *opts, char ***paths_out,
                            size_t *n_paths);

/* One plot drawn in memory (report_plots_render()). */
struct report_plot_svg {
	char *name;         /* the file name report_plot_write() gives it */
	const char *kind;   /* "frametime", "distribution", "fps" (static) */
	const char *title;  /* the kind in words: "frame time over the route" (static) */
	char *svg;          /* the whole SVG document */
	size_t len;         /* its length in bytes */
	char *png_name;     /* with report_options.plots_png: "<name>-KIND.png"; else NULL */
	unsigned char *png; /* the PNG librsvg drew from the SVG; NULL without plots_png */
	size_t png_len;
};

/*
 * The plots report_plot_write() writes, drawn into memory instead: *out
 * (release with report_plots_free()) holds *n of them, in that order,
 * only those with data.  Returns 0 or a negative errno (opts->errmsg).
 */
int report_plots_render(struct db *db, int64_t campaign_id, const struct report_options *opts,
                        struct report_plot_svg **out, size_t *n);
void report_plots_free(struct report_plot_svg *plots, size_t n);

#endif
