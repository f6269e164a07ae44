/* stats: a run's metrics from its frame log, and the comparison of arms.
 *
 * Two layers, both defined in docs/metrics.md (the definitions there are a
 * contract; change both together):
 *   - stats_run_metrics_compute(): one run's frame metrics over the route's
 *     window (real/shown fps, nearest-rank p50/p95/p99 frame times, frames
 *     over 100 ms, per-frame readback wait, memory sync and draws);
 *   - stats_summarize() / stats_compare(): per arm and metric the runs'
 *     mean, median and spread; against the baseline arm Δ, Δ%, the verdict
 *     ("faster"/"slower" only when the run ranges do not overlap and Δ
 *     exceeds both spreads), the rounds still needed, and a Mann–Whitney U
 *     two-sided p-value.
 */
#ifndef RXDECK_STATS_H
#define RXDECK_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collect/collect.h"

/* ---- one run ------------------------------------------------------------ */

/* A run's frame metrics.  Field names are the report's JSON keys.  Values a
 * source cannot give are NaN (e.g. rb_wait_ms from a MangoHud log). */
struct stats_run_metrics {
	double real_fps;      /* real frames in the window / window length */
	double shown_fps;     /* all frames in the window / window length */
	double p50_ms;        /* nearest-rank percentiles of the window's frame times */
	double p95_ms;
	double p99_ms;
	uint64_t over_100ms;  /* window frame times > 100 ms */
	double rb_wait_ms;    /* mean readback wait per real frame, ms */
	double memsync_ms;    /* mean replay memory sync per real frame, ms */
	double draws;         /* mean draws per real frame */
	uint64_t frames;      /* frames (rows) in the window, real and shown */
	uint64_t real_frames; /* real frames in the window */
	uint64_t frame_times; /* frame times the percentiles are over */
	double window_s[2];   /* the window used, seconds after t0 */
	double covered_s[2];  /* the part of the window from the log's first to
	                       * its last frame, seconds after t0; NaN when the
	                       * log has no frame in the window */
	bool sampled;         /* the percentiles are of sampled frame times */
	struct collect_warnings warnings;
};

/*
 * Computes a run's metrics over the window (w0, w1] given in seconds after
 * t0_ns (on the frame log's clock, see enum collect_clock): a frame belongs
 * when w0 < (present_ns - t0_ns) / 1e9 <= w1, and its frame time is the
 * interval that ends at it (so a window's frame times tile the window).
 * window_s NULL means the whole log: t0 is taken as given and the window is
 * (0, last frame].  Warnings (window not covered by the log, sampled log,
 * no frames) are added to out->warnings, after a copy of the frame log's own.
 *
 * Runs in O(n) (one pass and a selection for the percentiles).  Returns 0
 * with *out filled (release with stats_run_metrics_finish()); -EINVAL when
 * window_s[0] >= window_s[1] or a bound is not finite; -ENOMEM.  *out is
 * untouched on failure.
 */
int stats_run_metrics_compute(const struct collect_frames *frames, int64_t t0_ns,
                              const double *window_s, struct stats_run_metrics *out);
void stats_run_metrics_finish(struct stats_run_metrics *m);

/*
 * Nearest-rank percentile of v[0..n) for p in (0, 100]: the value of rank
 * ceil(p / 100 * n) (1-based) in ascending order.  Reorders v.  Returns NaN
 * when n == 0.
 */
double stats_percentile_nearest_rank(double *v, size_t n, double p);

/* ---- metrics and their directions -------------------------------------- */

enum stats_direction {
	STATS_HIGHER_IS_BETTER = 1,  /* fps */
	STATS_LOWER_IS_BETTER = 2,   /* frame times, waits, counts of hitches */
	STATS_NEUTRAL = 3,           /* draws: a change, neither good nor bad */
};

/* What a metric means for the comparison, and the verdict's words. */
struct stats_metric_def {
	const char *key;        /* JSON key: "p99_ms" */
	const char *label;      /* table row: "frame time p99" */
	const char *unit;       /* "ms", "fps", "" */
	enum stats_direction direction;
	const char *word_up;    /* the arm's mean is above the baseline's: "slower" */
	const char *word_down;  /* below: "faster" */
	int decimals;           /* digits after the point in tables */
};

/* The known metrics, in report order; ends with a zeroed entry. */
extern const struct stats_metric_def stats_metrics[];
/* The known metric with this key, or NULL. */
const struct stats_metric_def *stats_metric_find(const char *key);

/* ---- one arm --------------------------------------------------------- */

struct stats_summary {
	size_t n;           /* usable runs (finite values) */
	double mean;
	double median;      /* mean of the two middle values for even n */
	double min, max;
	double spread;      /* max - min */
	double spread_pct;  /* spread / |median| * 100; NaN when the median is 0 */
	double sd;          /* sample standard deviation (n - 1); 0 for n == 1 */
};

/*
 * Summarises the finite values of v[0..n) (NaN marks an unusable run and is
 * skipped).  Returns 0; -ENODATA when no value is finite (*out untouched).
 */
int stats_summarize(const double *v, size_t n, struct stats_summary *out);

/* ---- an arm against the baseline --------------------------------------- */

enum stats_verdict {
	STATS_VERDICT_TOO_FEW = 0,  /* fewer than 2 usable runs in an arm */
	STATS_VERDICT_WITHIN = 1,   /* "within the spread" */
	STATS_VERDICT_UP = 2,       /* arm above the baseline, beyond the spread */
	STATS_VERDICT_DOWN = 3,     /* arm below the baseline, beyond the spread */
};

/* Zero means default for every field. */
struct stats_options {
	int runs_per_round;   /* runs of each arm per round: 2 (ABCDDCBA) by default */
	double rounds_hint_pct; /* |Δ%| at or above which a "within" verdict says
	                         * how many more rounds are needed: 2 by default */
};

struct stats_comparison {
	struct stats_summary base;  /* the baseline arm */
	struct stats_summary arm;
	double delta;         /* arm.mean - base.mean */
	double delta_pct;     /* delta / |base.mean| * 100; NaN when base.mean is 0 */
	enum stats_verdict verdict;
	const char *word;     /* "faster", "slower", "higher", ..., "within the spread",
	                       * "too few runs" (static strings) */
	/* When the verdict is WITHIN and |Δ%| >= rounds_hint_pct: the more
	 * rounds (>= 1) the power rule of docs/metrics.md estimates; else 0. */
	int more_rounds;
	/* Mann–Whitney U two-sided p-value when both arms have >= 3 usable
	 * runs, else NaN.  p_exact: from the exact U distribution (no ties,
	 * both n <= STATS_MW_EXACT_MAX); otherwise the normal approximation with
	 * tie and continuity correction, and ties says whether there were ties. */
	double u;
	double p_value;
	bool p_exact;
	bool ties;
	/* One line for the report, e.g. "faster: Δ -3.10 ms (-12.0 %), 4 usable
	 * runs vs 4 in the baseline, p = 0.0286 (exact)". */
	char text[256];
};

#define STATS_MW_EXACT_MAX 50

/*
 * Compares an arm's runs with the baseline's for one metric (values as in
 * stats_summarize(): NaN = unusable run).  metric gives the words and the
 * unit; opt may be NULL.  Returns 0 with *out filled; -ENODATA when an arm
 * has no usable run; -EINVAL on a NULL metric.
 */
int stats_compare(const struct stats_metric_def *metric,
                  const double *base, size_t n_base,
                  const double *arm, size_t n_arm,
                  const struct stats_options *opt,
                  struct stats_comparison *out);

/*
 * The "more rounds" rule alone: runs per arm needed so a difference of
 * |delta| is found at the 5 % level (two-sided) with 80 % power given a
 * pooled standard deviation sd_pooled: n = ceil(2 (1.95996 + 0.84162)^2
 * sd_pooled^2 / delta^2); more runs = n - min(n_base, n_arm), as rounds =
 * ceil(more runs / runs_per_round), at least 1.  Returns the rounds, or 0
 * when delta is 0 or not finite.
 */
int stats_more_rounds(double delta, double sd_pooled, size_t n_base, size_t n_arm,
                      int runs_per_round);

/*
 * Mann–Whitney U test of a[0..na) against b[0..nb) (finite values).
 * *out_u is U of a (pairs a > b count 1, ties 1/2); *out_p the two-sided
 * p-value; *out_exact whether it is exact; *out_ties whether any value
 * ties.  Returns 0, or -EINVAL when na or nb is 0, -ENOMEM.
 */
int stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
                       double *out_u, double *out_p, bool *out_exact, bool *out_ties);

/* ---- route shots --------------------------------------------------------- */

/* A route shot as the comparison sees it. */
struct stats_shot {
	double luma;            /* mean luma 0..255; NaN: not known */
	const char *checksum;   /* hex digest of the pixels; NULL or "": not known */
};

struct stats_shot_verdict {
	bool differs;           /* beyond the tolerance, and no checksum in common */
	bool same_checksum;     /* one of the others has this shot's checksum */
	size_t n_compared;      /* others with a known luma */
	double median_luma;     /* their median luma; NaN when n_compared is 0 */
};

/*
 * The rule of the void check's "left the route" (docs/running.md): mine
 * is like others[0..n) (shots at the same route point) when one of them
 * has its checksum; otherwise it differs when |mine->luma - the median of
 * their lumas| > tolerance (0..255; 0 turns the rule off).  A shot without
 * a luma, or with no other luma to compare with, never differs.  Returns 0
 * with *out; -EINVAL for a NULL mine (or others with n > 0), -ENOMEM.
 */
int stats_shot_compare(const struct stats_shot *mine, const struct stats_shot *others, size_t n,
                       double tolerance, struct stats_shot_verdict *out);

#endif
