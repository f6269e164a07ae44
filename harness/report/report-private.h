/* report-private: the campaign as the report sees it, shared by the
 * report's files (data, print, tested, plot).  Not for other modules. */
#ifndef RXDECK_REPORT_PRIVATE_H
#define RXDECK_REPORT_PRIVATE_H

#include "report.h"
#include "stats/stats.h"

#include <stdarg.h>

/* The run's route start on CLOCK_MONOTONIC, stored by the run supervisor
 * as a metric: frame and sample times are placed on the route with it. */
#define REPORT_T0_METRIC "route_t0_ns"
/* An imported run's route start and last frame on its log's wall clock,
 * local seconds with no zone (PresentMon's --date_time; cmd-import.c):
 * imported runs are placed in time by them, against each other only. */
#define REPORT_WALL_START_METRIC "wall_local_start_s"
#define REPORT_WALL_END_METRIC "wall_local_end_s"
/* Sampler readings the report derives metrics from (deck_reading_name()). */
#define REPORT_SAMPLE_GPU_BUSY "gpu_busy_pct"
#define REPORT_SAMPLE_SWAP_IN "swap_in_pages"
#define REPORT_SAMPLE_SCLK "gpu_sclk_mhz"

/* One finished run (done or void, not the warm-up). */
struct report_run {
	const struct db_run *run;
	size_t arm;          /* index into report_data.arms */
	bool is_void;
	double *v;           /* one per metric of stats_metrics; NaN: no data */
	bool has_t0;
	int64_t t0_ns;       /* REPORT_T0_METRIC when has_t0 */
	bool has_wall;
	double wall_s[2];    /* REPORT_WALL_START/END_METRIC when has_wall */
};

/* One arm and its statistics (over its usable, non-void runs). */
struct report_arm {
	const struct db_arm *arm;
	const struct db_build *build;  /* NULL: none named and no single build */
	size_t *runs;        /* indices into report_data.runs, campaign order */
	size_t n_runs;
	size_t n_usable;     /* done runs */
	size_t n_void;
	bool *has_sum;       /* per metric */
	struct stats_summary *sum;
	bool *has_cmp;       /* per metric; never for the baseline */
	struct stats_comparison *cmp;
	bool *has_dec;       /* per metric; never for the baseline */
	struct stats_decision *dec;   /* the decision (docs/metrics.md) */
	double *more_rounds; /* per metric, undecided primaries: the fewest
	                      * rounds the decision's model may need at the
	                      * levels of the looks to come (stats_rounds_forecast());
	                      * INFINITY: not reachable at this noise; NaN: too
	                      * few df for a forecast; 0: none */
	double *more_rounds_hi; /* the most of that range; INFINITY: maybe never */
};

/* ---- the headline (report-headline.c) ---------------------------------- */

/* The most primary metrics a headline line shows. */
#define REPORT_HEADLINE_METRICS 4

/* An arm's call over its primary metrics: better (some better, none worse,
 * every one decided), worse, mixed (better on one, worse on another), same
 * (every one same), undecided (some primary not decided). */
enum report_call {
	REPORT_CALL_UNDECIDED = 0,
	REPORT_CALL_BETTER,
	REPORT_CALL_WORSE,
	REPORT_CALL_MIXED,
	REPORT_CALL_SAME,
};

/* One primary metric of a headline line. */
struct report_headline_metric {
	size_t metric;              /* index into stats_metrics */
	const struct stats_decision *dec; /* NULL: no decision (no usable run) */
	double ci_low_pct, ci_high_pct;   /* the interval as % of the baseline's
	                                   * mean; NaN when there is none */
};

/* One arm against the baseline on the primary metrics. */
struct report_headline_line {
	size_t arm;                 /* index into report_data.arms */
	enum report_call call;
	const char *word;           /* the call in the first primary's words:
	                             * "faster", "slower", "mixed", "same", "undecided" */
	struct report_headline_metric m[REPORT_HEADLINE_METRICS];
	size_t n_m;
	size_t n_arm, n_base;       /* the first primary's usable runs */
	double more_rounds;         /* undecided: the rounds until every primary would
	                             * be decided (the largest); INFINITY not
	                             * reachable; NaN: not known */
	double more_rounds_hi;      /* the top of that forecast's range */
};

/* The answer, first in every output (docs/reports.md, "The headline"):
 * one line per arm other than the baseline, the arms decided on the first
 * primary metric first (best first), then the others; then which arm is
 * best on the first primary metric among the decided ones. */
struct report_headline {
	struct report_headline_line *lines;
	size_t n_lines;
	int primary0;               /* the first primary metric; -1: none with data */
	int best;                   /* index into lines; -1: none */
	bool any_decided;           /* some arm's first primary is decided */
	char verdict[320];          /* "best on real fps: C early marker, +241 % [+198, +284]",
	                             * "no arm decided yet: about 3 more rounds (25 min)", ... */
};

struct report_data {
	struct db_campaign *campaign;
	struct db_arm *db_arms;
	struct db_build *builds;
	size_t n_builds;
	struct db_run *db_runs;
	size_t n_db_runs;
	struct report_arm *arms;
	size_t n_arms;
	struct report_run *runs;
	size_t n_runs;
	size_t base;         /* the baseline arm's index */
	size_t n_metrics;    /* entries of stats_metrics */
	bool *has_data;      /* per metric: some shown run has a value */
	size_t n_pending;    /* planned or running runs (not shown) */
	size_t n_warmup;     /* warm-up runs (not shown) */
	struct db_route_mark *marks;
	size_t n_marks;
	struct db_host_facts *hosts; /* results-db host_facts: the start, then each
	                              * resume that found the host changed */
	size_t n_hosts;
	bool no_pad;         /* the plan ran its programs with pad = none */
	bool *primary;       /* per metric: decided at alpha alone */
	double *min_effect_pct; /* per metric */
	double alpha;        /* the level the decisions were made at */
	int rounds_done;     /* rounds with a usable run of every arm */
	struct stats_drift *drift; /* per metric: the model's time coefficient over
	                      * the runs' span with its interval (stats_drift()) */
	size_t n_family;     /* primary comparisons (primaries x arms): the stop
	                      * rule shares 5 % over them */
	char warnings[4][320]; /* drift whose interval excludes 0, arms in
	                        * blocks, void runs in one arm; "" when none */
	size_t n_warnings;
	bool wall_overlap_said;   /* wall_clock_times()'s warning is given */
	enum stats_time_rule time_rule; /* the plan's [verdict] time_terms */
	double round_s;      /* mean wall time of a round; NaN: not known */
	/* The sequential rule (docs/metrics.md, 6.5): a campaign with a planned
	 * maximum of rounds is decided at the level its last look spends. */
	int max_rounds;      /* the planned maximum (plan_max_rounds()); 0: a fixed campaign */
	int look;            /* the look the decisions are made at: the campaign's rounds */
	bool has_until;      /* the plan has a deadline */
	bool final_look;     /* the run loop stopped it at its deadline: the last
	                      * look spends what is left of alpha */
	bool all_decided;    /* every primary comparison is decided (and there is one) */
	enum report_stop {
		REPORT_STOP_NONE = 0,   /* not finished */
		REPORT_STOP_PLANNED,    /* every planned run ran (a fixed campaign) */
		REPORT_STOP_DECIDED,    /* every primary comparison decided */
		REPORT_STOP_MAX_ROUNDS, /* the planned maximum of rounds ran */
		REPORT_STOP_DEADLINE,   /* no further round fitted before the deadline */
	} stop;
	struct report_headline headline; /* the answer (report-headline.c) */
	bool stop_stored;    /* stop is what the run loop stored (results-db
	                      * stop_reason), not derived from the data: a
	                      * campaign finished before schema 4 has none */
};

/* The arm as a headline names it: "C early marker" (letter and label). */
void report_arm_name(const struct report_arm *a, char *buf, size_t size);

/* A percentage with its sign, digits by size: "+241 %", "−4.5 %" (a
 * minus sign, U+2212); pct false leaves out " %". "-" when not finite. */
void report_fmt_pct(char *buf, size_t size, double v, bool pct);

/* A headline line's columns: the arm's name (cut to name_max columns; 0:
 * whole), its call, each primary's part ("real fps +21 % [+8.1, +34]"),
 * the runs; "" for a column the line has not.  detail 2: every primary
 * with its interval and levels; 1: without them; 0: the first primary's
 * Δ % only, no runs. */
#define REPORT_HEADLINE_COLS (REPORT_HEADLINE_METRICS + 3)
#define REPORT_HEADLINE_COL_B 192
void report_headline_cols(const struct report_data *rd, const struct report_headline_line *l,
                          int detail, size_t name_max,
                          char cols[REPORT_HEADLINE_COLS][REPORT_HEADLINE_COL_B]);

/* A headline line as text: its columns joined by three spaces, each padded
 * to widths[REPORT_HEADLINE_COLS] when widths is not NULL (the last, the
 * runs, never). */
void report_headline_text(const struct report_data *rd, const struct report_headline_line *l,
                          int detail, size_t name_max, const size_t *widths, char *buf,
                          size_t size);

/* Cuts name (a buffer of at least max * 4 bytes) to max columns, the last
 * one "…"; 0: no cut. */
void report_name_cut(char *name, size_t max);

/* The 95 % interval of an arm's mean over its runs (Student's t, n - 1
 * df) as its half-width; NaN below 2 runs. */
double report_mean_ci_half(const struct stats_summary *s);

/* v rounded to digits after the point, as the shortest text that reads
 * back as that rounded value ("12.3", "40"); "" when not finite. */
void report_num_rounded(char *buf, size_t size, double v, int digits);

/* Display columns of UTF-8 text (code points; every one is one column). */
size_t report_u8_width(const char *s);

/* Why a finished campaign stopped, in words: "decided after 4 rounds",
 * "max rounds reached (12)", "deadline (2026-12-02 07:00) after 9 rounds",
 * "every planned run ran"; "" for REPORT_STOP_NONE. */
void report_stop_text(const struct report_data *rd, char *buf, size_t size);

/*
 * Loads a campaign with every value the outputs need: runs, their metrics
 * (stored ones, else derived from stored frames and samples: docs/reports.md,
 * "Where the numbers come from"), per-arm summaries and the comparisons
 * against the baseline.  Messages go to opts->errmsg.
 */
int report_data_load(struct db *db, int64_t campaign_id, const struct report_options *opts,
                     struct report_data **out);
void report_data_destroy(struct report_data *rd);

/* One line on an arm's undecided metric from the forecast's range:
 * "about 3 to 5 more rounds (1.2 h to 2 h)", "not reachable at this noise:
 * about 40 h more", "too few degrees of freedom for a forecast", ... */
void report_more_text(const struct report_data *rd, double rounds, double rounds_hi, char *buf,
                      size_t size);

/* Whether some round's runs came in another arm order than the campaign's
 * (a counterbalanced campaign). */
bool report_counterbalanced(const struct report_data *rd);

/* Computes rd->headline from the decisions (report_data_load() does). */
int report_headline_make(struct report_data *rd);

/* The headline as Markdown: a line naming the baseline and the primary
 * metrics, one list item per arm, then the verdict sentence. */
void report_md_headline(const struct report_data *rd, FILE *out);

/* The terminal report (report-term.c): the headline, then one row per arm
 * and a column per metric, benchstat's cells, fitted to width columns
 * (0: no limit) by leaving out secondary metrics; colour by state. */
struct report_term_options {
	size_t width;               /* 0: every metric, however wide */
	bool colour;
	bool verbose;               /* then the whole Markdown body */
};
int report_term_print(struct db *db, const struct report_data *rd,
                      const struct report_term_options *o, FILE *out);
/* The headline alone, as report_term_print() writes it. */
int report_term_headline(const struct report_data *rd, const struct report_term_options *o,
                         FILE *out);

/* Index of a metric key in stats_metrics, or -1. */
int report_metric_index(const char *key);

/* Writes the formatted reason to opts->errmsg (when set); returns err. */
int report_fail(const struct report_options *opts, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The Markdown table and verdicts (no title), as report_print() writes;
 * void_list adds the void runs with their reasons after the table. */
int report_md_body(const struct report_data *rd, bool void_list, FILE *out);
/* The void runs as a Markdown list, one "- run N (B, round 2): reason" each. */
void report_md_void_list(const struct report_data *rd, FILE *out);
/* Text for Markdown: | escaped, < > & as entities, line breaks as spaces. */
void report_md_text(FILE *out, const char *s);
/* Text as a Markdown code span (| escaped). */
void report_md_code(FILE *out, const char *s);
/* A state against the metric's direction: "better", "worse", "same",
 * "undecided", or "changed" (a neutral metric's higher or lower): JSON's
 * "outcome" and the HTML cell's class. */
const char *report_outcome(enum stats_state s);

/* For a campaign whose host changed at a resume (results-db host_facts),
 * one Markdown line per such resume, "The host changed at the resume of
 * DATE: kernel: OLD -> NEW; ...", then a blank line; nothing otherwise.
 * 0 or the database's negative errno. */
int report_host_changes(struct db *db, int64_t campaign_id, FILE *out);

/* A run's frames placed on the route: x seconds after the route's start
 * (t0), the frame time in ms of each real frame (interval to the previous
 * real frame).  Without t0, x counts from the run's first frame and
 * *on_route is false.  Arrays malloc'd; n 0 when there are none. */
int report_run_frame_times(struct db *db, const struct report_run *r, double **x_s,
                           double **ms, size_t *n, bool *on_route);

/* Shortest decimal text of v that reads back as exactly v ("12", "0.1"). */
void report_num_exact(char *buf, size_t size, double v);

/* The campaign's date and time (UTC) of unix_ms: "2026-11-13 22:04 UTC";
 * date_only gives "2026-11-13". */
void report_format_time(char *buf, size_t size, int64_t unix_ms, bool date_only);

/* An arm's env as one line: KEY=VALUE pairs joined by spaces; "" for none. */
void report_env_line(const char *env, char *buf, size_t size);


/* Text escaped for XML and HTML (the five predefined entities; control
 * characters but tab and newline as spaces): at most n bytes of s, up to
 * its NUL. */
void report_xml_text_n(FILE *out, const char *s, size_t n);

/* The plots report_plot_write() draws, in that order (ends with a zeroed
 * entry): suffix is the file's ("frametime"), title the plot's kind in
 * words; draw writes the whole SVG document to out and sets *wrote, or
 * writes nothing when there is no data for it. */
struct report_plot_kind {
	const char *suffix;
	const char *title;
	int (*draw)(struct db *db, const struct report_data *rd, FILE *out, bool *wrote);
};
extern const struct report_plot_kind report_plot_kinds[];

/* The SVG document svg[0..len) drawn into a PNG (report-png.c, librsvg
 * and cairo) at scale times its viewBox, on white.  *png malloc'd.  0, or
 * -EINVAL (librsvg could not read or draw it), -EIO, -ENOMEM with the
 * reason in errmsg. */
int report_svg_to_png(const char *svg, size_t len, double scale, unsigned char **png,
                      size_t *png_len, char *errmsg, size_t errmsg_size);

/* The answer's chart of primary metric m (report-plot.c), a whole SVG
 * document: per arm the mean as a bar with its 95 % interval as a whisker
 * (real fps: average, 1 % and 0.1 % lows, CapFrameX's three), the
 * baseline marked.  *wrote false (nothing written) without a value. */
int report_chart_metric(const struct report_data *rd, int m, FILE *out, bool *wrote);

/* The HTML page of a campaign (report-html.c): report_print() with
 * REPORT_FORMAT_HTML. */
int report_html_print(struct db *db, const struct report_data *rd,
                      const struct report_options *opts, FILE *out);

#endif
