/* stats: a run's metrics from its frames, and the comparison of arms.
 *
 * A leaf: frame arrays in, numbers out.  Reading logs is collect's; a
 * caller hands stats the rows as struct stats_frame (run_stats_log() makes
 * them from a parsed log, report from the stored frames).
 *
 * Two layers, both defined in docs/metrics.md (the definitions there are a
 * contract; change both together):
 *   - stats_run_metrics_compute(): one run's frame metrics over the route's
 *     window (real/shown fps, nearest-rank p50/p95/p99 frame times, frames
 *     over 100 ms, per-frame readback wait, memory sync and draws);
 *   - stats_summarize() / stats_compare(): per arm and metric the runs'
 *     mean, median and spread; against the baseline arm Δ, Δ% and a
 *     Mann–Whitney U two-sided p-value, a rank-based check that decides
 *     nothing;
 *   - stats_decide() and friends: the decision of docs/metrics.md section 6
 *     (interval, p, four states, Holm, sequential level).
 */
#ifndef RXDECK_STATS_H
#define RXDECK_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

/* ---- one run ------------------------------------------------------------ */

/* One frame of a log, as the metrics read it. */
struct stats_frame {
	int64_t present_ns;  /* when it was presented, on the log's clock */
	float frame_ms;      /* the log's own frame-time column, ms; NaN if absent */
	float rb_wait_ms;    /* readback waits during this frame, ms; NaN if absent */
	float memsync_ms;    /* replay memory sync during this frame, ms; NaN if absent */
	float draws;         /* draws this frame; NaN if absent */
	float fps;           /* the log's own fps column (MangoHud); NaN if absent */
	bool shown_only;     /* generated (frame generation), not rendered by the game */
};

/* A run's frames with what says how to read them.  Frames are in order,
 * present_ns non-decreasing. */
struct stats_log {
	const char *name;                 /* for warnings; NULL: "frame log" */
	const struct stats_frame *frames;
	size_t n;
	/* false: a real frame's time is present_ns minus the previous real
	 * frame's; true: its frame_ms column (the log measured the interval) */
	bool frame_ms_is_interval;
	/* the rows are samples of frame times, not every frame */
	bool sampled;
	/* the log's own warnings, copied first into the metrics'; may be NULL */
	const struct util_warnings *warnings;
};

/* A run's frame metrics.  Field names are the report's JSON keys.  Values a
 * source cannot give are NaN (e.g. rb_wait_ms from a MangoHud log). */
struct stats_run_metrics {
	double real_fps;      /* real frames in the window / window length */
	double shown_fps;     /* all frames in the window / window length */
	double p50_ms;        /* nearest-rank percentiles of the window's frame times */
	double p95_ms;
	double p99_ms;
	double low_1pct_fps;  /* mean of 1000 / frame time over the slowest
	                       * ceil(n / 100) of the n frame times */
	double low_01pct_fps; /* the same over the slowest ceil(n / 1000) */
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
	struct util_warnings warnings;
};

/*
 * Computes a run's metrics over the window (w0, w1] given in seconds after
 * t0_ns (on the frame log's clock): a frame belongs
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
int stats_run_metrics_compute(const struct stats_log *log, int64_t t0_ns,
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

/* What a metric's definition says about its values, which the values
 * themselves cannot tell (the report's metric registry maps onto it).
 * resolution: the step the metric is known to, in its unit; 0 with exact
 * true: the values are exact (fps as a count of frames over a known window,
 * a count of frames over 100 ms); 0 with exact false: not known, inferred
 * from the values (stats_resolution()). */
struct stats_metric_spec {
	double resolution;
	bool exact;
	bool count;           /* whole counts: equal counts (zero against zero) are "same" */
};

/*
 * The metric registry: what a metric is called and how it is judged, one
 * entry per metric, read by every output (terminal, Markdown, CSV, JSON,
 * HTML, plots, the forge summary), so a metric is named and judged the
 * same everywhere (docs/reports.md, "The metric registry").
 */
struct stats_metric_def {
	const char *key;        /* JSON/CSV key: "p99_ms" */
	const char *label;      /* its name in words: "frame time p99" */
	const char *unit;       /* "ms", "fps", "%", "pages", "" (a count) */
	enum stats_direction direction;
	const char *word_up;    /* the arm's mean is above the baseline's: "slower" */
	const char *word_down;  /* below: "faster" */
	int decimals;           /* digits after the point of a run's value; its
	                         * resolution is 10^-decimals (means and Δ one
	                         * digit more) */
	const char *short_label;/* a terminal column's heading: "p99 ms" */
	bool primary;           /* decided at alpha alone unless a plan's
	                         * [verdict] primary names others */
	struct stats_metric_spec spec; /* what the definition says of its values:
	                                * the decision's resolution (stats_decide()) */
};

/* The known metrics, in report order; ends with a zeroed entry. */
extern const struct stats_metric_def stats_metrics[];
/* The known metric with this key, or NULL. */
const struct stats_metric_def *stats_metric_find(const char *key);
/* The metric's name as every output prints it: the label, then ", unit"
 * unless the label already says it ("real fps", "frame time p99, ms",
 * "1 % low, fps", "frames over 100 ms").  Truncated to size. */
void stats_metric_name(const struct stats_metric_def *metric, char *buf, size_t size);
/* The display resolution of a run's value: 10^-decimals. */
double stats_metric_resolution(const struct stats_metric_def *metric);

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

struct stats_comparison {
	struct stats_summary base;  /* the baseline arm */
	struct stats_summary arm;
	double delta;         /* arm.mean - base.mean */
	double delta_pct;     /* delta / |base.mean| * 100; NaN when base.mean is 0
	                       * at the metric's table precision */
	/* Mann–Whitney U two-sided p-value when both arms have >= 3 usable
	 * runs, else NaN.  p_exact: from the exact U distribution (no ties,
	 * both n <= STATS_MW_EXACT_MAX); otherwise the normal approximation with
	 * tie and continuity correction, and ties says whether there were ties. */
	double u;
	double p_value;
	bool p_exact;
	bool ties;
};

#define STATS_MW_EXACT_MAX 50

/*
 * Describes an arm's runs against the baseline's for one metric (values as
 * in stats_summarize(): NaN = unusable run): both summaries, Δ, Δ% and the
 * Mann–Whitney p.  It decides nothing: stats_decide() does.  Returns 0
 * with *out filled; -ENODATA when an arm has no usable run; -EINVAL on a
 * NULL metric.
 */
int stats_compare(const struct stats_metric_def *metric,
                  const double *base, size_t n_base,
                  const double *arm, size_t n_arm,
                  struct stats_comparison *out);

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

/* ---- the decision (stats-verdict.c, docs/metrics.md "The decision") ---- */

/* The most arms a design may hold (A..Z). */
#define STATS_MAX_GROUPS 26

/* An arm against the baseline for one metric.  FASTER/SLOWER are better
 * and worse in the metric's direction (fewer hitches is FASTER); a neutral
 * metric (draws, GPU busy) that changed is HIGHER or LOWER. */
enum stats_state {
	STATS_STATE_UNDECIDED = 0,
	STATS_STATE_FASTER = 1,
	STATS_STATE_SLOWER = 2,
	STATS_STATE_SAME = 3,
	STATS_STATE_HIGHER = 4,
	STATS_STATE_LOWER = 5,
};

/* "faster", "slower", "same", "undecided", "higher", "lower". */
const char *stats_state_name(enum stats_state s);

/* The state in the metric's own words, as every output writes it: a call
 * on frames over 100 ms is "fewer"/"more", on real fps "faster"/"slower",
 * on a neutral metric "higher"/"lower"; "same" and "undecided" as they
 * are (the registry's word_up/word_down by the metric's direction). */
const char *stats_state_word(const struct stats_metric_def *metric, enum stats_state s);

/* Whether the state is better (1), worse (-1) or neither (0: same,
 * undecided, a neutral metric's change) in the metric's direction. */
int stats_state_sign(enum stats_state s);

enum stats_method {
	STATS_METHOD_NONE = 0,       /* too few runs for an interval */
	STATS_METHOD_ARM_TIME = 1,   /* least squares: arm + time terms that buy something
	                              * (time_terms: 0 when every term was orthogonal
	                              * to the arm contrast and dropped) */
	STATS_METHOD_TWO_SAMPLE = 2, /* pooled-variance two-sample t (no places in time) */
};

/* The method's stable name, the JSON value: "arm_time", "two_sample", "none". */
const char *stats_method_name(enum stats_method m);

/* One metric's runs over every arm of a campaign.  v[i] NaN: an unusable
 * run (skipped).  t[i]: the run's place in time (its position in the
 * campaign's order, planned or given to an import); t NULL, or any used
 * run's t not finite, means the runs have no places and the two-sample
 * test is used. */
/* The time terms of the arm-and-time model (bits of a mask): the
 * standardised position z and its centred square. */
#define STATS_TIME_LINEAR 1u
#define STATS_TIME_QUADRATIC 2u
/* The quadratic term is fitted only when this many residual degrees of
 * freedom are left after it (with fewer it costs more power than it buys:
 * docs/metrics.md 6.1). */
#define STATS_QUADRATIC_MIN_DF 5

struct stats_design {
	const double *v;
	const size_t *group;  /* arm index of each run, < n_groups */
	const double *t;
	size_t n;
	size_t n_groups;      /* at most STATS_MAX_GROUPS */
};

/* What the definitions of docs/metrics.md section 2 say of a known metric:
 * real and shown fps exact (frames counted over the known window),
 * frames over 100 ms and swap-in whole counts; NULL for the others (their
 * resolution is inferred).  The report's metric registry may give its own. */
const struct stats_metric_spec *stats_metric_spec_default(const char *key);

/* Which time terms the arm-and-time model keeps when some are orthogonal to
 * the arm contrast in the order run (they change nothing in delta;
 * docs/metrics.md 6.1). */
enum stats_time_rule {
	/* of the term sets that give delta as all allowed terms give it, the
	 * one with the narrowest interval (t quantile times se): an orthogonal
	 * term stays when the drift it takes out of s is worth its df */
	STATS_TIME_RULE_NARROWEST = 0,
	/* every orthogonal term is dropped (the fewest terms that give the
	 * same delta; among equals the narrowest) */
	STATS_TIME_RULE_DROP_ORTHOGONAL = 1,
};

/* Zero means default for every field. */
struct stats_decide_options {
	double alpha;          /* two-sided level: 0.05 */
	double min_effect_pct; /* % of the baseline's mean: stats_min_effect_default_pct() */
	double resolution;     /* stored resolution of the values: inferred (stats_resolution());
	                        * spec, when given, wins */
	bool primary;          /* decided at alpha alone; else Holm (stats_decide_family()) */
	const struct stats_metric_spec *spec; /* NULL: resolution inferred from the values */
	enum stats_time_rule time_rule; /* default: STATS_TIME_RULE_NARROWEST */
};

/* Why a comparison is undecided (STATS_WHY_NONE when it is decided, or when
 * the interval simply does not settle it: STATS_WHY_INTERVAL). */
enum stats_why {
	STATS_WHY_NONE = 0,
	STATS_WHY_INTERVAL = 1,       /* the interval neither excludes 0 beyond the
	                               * minimum effect nor fits inside it */
	STATS_WHY_NO_MODEL = 2,       /* no residual degree of freedom at all */
	STATS_WHY_DF = 3,             /* fewer residual df than a call needs (2; 3 for same) */
	STATS_WHY_PERM_UNREACHABLE = 4, /* too few runs for the permutation test to reach alpha */
	STATS_WHY_PERM_DISAGREES = 5, /* the model calls it, the permutation test does not */
	STATS_WHY_CONFOUNDED = 6,     /* the arms ran in blocks: arm and time cannot be told apart */
};

/* The model's time coefficient over the runs' real span: the drift the
 * campaign saw, with its interval (stats_drift()). */
struct stats_drift {
	bool known;            /* a time term could be fitted */
	bool timed;            /* span_s is wall time; false: span in positions (runs) */
	double change;         /* drift over the span, the metric's unit */
	double low, high;      /* its (1 - alpha) interval */
	double span;           /* seconds (timed) or runs */
	int df;
	bool real;             /* the interval excludes 0: the warning's condition */
};

#define STATS_MAX_LEVELS 4

struct stats_decision {
	enum stats_state state;
	enum stats_method method;
	int time_terms;        /* how many time terms were fitted (0, 1 or 2) */
	int time_terms_dropped;/* terms orthogonal to the arm contrast, left out */
	unsigned time_mask;    /* which were fitted: STATS_TIME_LINEAR, STATS_TIME_QUADRATIC */
	unsigned time_mask_allowed; /* which the runs allow (the permutation test's) */
	bool primary;
	double delta;          /* the arm's effect against the baseline, the metric's unit */
	double delta_pct;      /* delta / |baseline mean| * 100; NaN when the mean is 0 */
	double ci_low, ci_high;/* (1 - alpha) interval for delta, widened by the
	                        * resolution; infinite when there is none */
	double p;              /* the p the state was decided on (Holm-adjusted
	                        * for secondary metrics); NaN without a model */
	double p_raw;          /* unadjusted */
	double alpha;
	int df;                /* the model's residual degrees of freedom */
	double se;             /* standard error of delta, after the floor */
	double se_floor;       /* the floor from the resolution: r / sqrt(12) * sqrt(1/na + 1/nb) */
	bool widened;          /* the interval was widened by the resolution (the spread
	                        * within it: rounding may be systematic) */
	double min_effect;     /* absolute, the metric's unit: at least the resolution */
	double min_effect_pct;
	double resolution;     /* 0: values are not on a grid, or exact */
	size_t n_arm, n_baseline;
	/* the design-based check: permutation of the arm labels over the
	 * two arms' runs in the order actually run (stats_permutation_p()) */
	double p_perm;         /* two-sided; NaN when not computed */
	double p_perm_min;     /* the smallest p it can give for these counts */
	bool perm_exact;       /* every relabelling enumerated (else Monte Carlo) */
	size_t perm_count;     /* relabellings counted */
	double p_perm_same;    /* the larger one-sided p of the two shifted tests
	                        * for "same" (equivalence); NaN when not computed */
	/* runs that cluster in levels (stats_levels()) */
	int n_levels;          /* 0: no levels; else 2..STATS_MAX_LEVELS */
	double levels[STATS_MAX_LEVELS]; /* each level's median, ascending */
	char levels_text[96];  /* "two levels: 154, 213 fps"; "" when none */
	bool interleaved;      /* the two arms' places interleave; false: in blocks */
	enum stats_why why;    /* why undecided */
	char reason[160];      /* the same in words; "" when decided */
};

/*
 * Decides arm against base (indices into the design's groups) for one
 * metric: faster/slower when the interval excludes 0 (p < alpha) and
 * |delta| >= the minimum effect; same when the whole interval lies within
 * +- the minimum effect; undecided otherwise.  Returns 0 with *out filled;
 * -ENODATA when either arm has no usable run; -EINVAL on bad arguments;
 * -ENOMEM.
 */
int stats_decide(const struct stats_metric_def *metric, const struct stats_design *d,
                 size_t base, size_t arm, const struct stats_decide_options *opt,
                 struct stats_decision *out);

/* The method in words for a verdict cell: "arm + linear time, df 5",
 * "two-sample t, df 2", "no model (one run an arm)". */
void stats_decision_method_text(const struct stats_decision *d, char *buf, size_t size);

/* Sets r->state again from r's interval, p, alpha and minimum effect. */
void stats_decision_settle(const struct stats_metric_def *metric, struct stats_decision *r);

/*
 * One arm's decisions over n metrics: every non-primary decision's p is
 * replaced by its Holm-adjusted p over the non-primary metrics with a
 * finite p, and its state settled again.  0 or -ENOMEM.
 */
int stats_decide_family(const struct stats_metric_def *const *metrics, struct stats_decision *d,
                        size_t n);

/* Holm's step-down adjustment of p[0..n) into adj (NaN entries are left
 * NaN and not counted).  0 or -ENOMEM. */
int stats_holm(const double *p, size_t n, double *adj);

/* The default minimum effect of a metric, % of the baseline's mean. */
double stats_min_effect_default_pct(const char *key);

/* The coarsest step 10^-k (k = 0..6) every finite value of v lies on, or 0
 * when there is none (values not rounded). */
double stats_resolution(const double *v, size_t n);

/* Student's t: the two-sided p of |t| with df degrees of freedom, and the
 * |t| whose two-sided p is a.  NaN on bad arguments. */
double stats_t_p_two_sided(double t, double df);
double stats_t_quantile_two_sided(double a, double df);

/*
 * The level look (1-based) of a sequential campaign with at most max_looks
 * looks is decided at, so that the chance of any false faster/slower call
 * over all its looks is alpha: the nominal two-sided level of the
 * group-sequential boundary c_k of the spending function alpha (k / K)^2
 * (Kim and DeMets, rho = 2), computed from the joint distribution of the
 * looks' statistics by the Lan-DeMets recursion (docs/metrics.md 6.5):
 * 2 (1 - Phi(c_k)).  0 after the planned looks; NaN on bad arguments.
 * Boundaries are computed once per (alpha, K) and kept.
 */
double stats_sequential_alpha(double alpha, int look, int max_looks);

/* As stats_sequential_alpha(), for a look that is the campaign's last
 * (a deadline ended it before max_looks): it spends all that is left,
 * alpha - alpha (k-1/K)^2.  NaN on bad arguments. */
double stats_sequential_alpha_final(double alpha, int look, int max_looks);

/* The spending function's cumulative alpha at look k of K: alpha (k/K)^2. */
double stats_sequential_spent(double alpha, int look, int max_looks);

/*
 * The familywise rate: the chance of at least one false call over
 * n_comparisons comparisons (primary metrics x arms other than the
 * baseline) each at alpha is at most min(1, n alpha) (Bonferroni, whatever
 * their dependence); stats_family_alpha() is the per-comparison level that
 * keeps it at alpha: alpha / n.  n 0 counts as 1.
 */
double stats_familywise_bound(double alpha, size_t n_comparisons);
double stats_family_alpha(double alpha, size_t n_comparisons);

/*
 * The permutation (randomisation) test of arm against base: the two arms'
 * runs keep their places, their labels are reassigned in every way that
 * keeps the arms' sizes (exact when there are at most STATS_PERM_EXACT_MAX
 * relabellings, else STATS_PERM_DRAWS drawn with a fixed seed), the
 * statistic is the difference of the arms' means of the values (time_terms
 * 0: as stored), or, with time_terms a mask of STATS_TIME_LINEAR and
 * STATS_TIME_QUADRATIC, the sum of the arm's residuals of those terms
 * (fitted over the two arms without arm terms) over its own standard
 * deviation under no difference; shift is subtracted from the arm's values
 * first (0 for the test of no difference).  *p: two-sided (sides 2), or
 * one-sided upper (sides 1: stat >= observed) or lower (sides -1), the
 * share of relabellings at least as extreme with the observed labelling
 * (and for equal arms two-sided its mirror) counted half, other ties
 * whole.  *p_min: the smallest p the relabellings can give (1/C(n, k) two-
 * sided for equal arms, 0.5/C(n, k) otherwise).  Returns 0; -ENODATA when
 * an arm has no usable run; -EINVAL; -ENOMEM.
 */
#define STATS_PERM_EXACT_MAX 20000
#define STATS_PERM_DRAWS 10000
int stats_permutation_p(const struct stats_design *d, size_t base, size_t arm, unsigned time_terms,
                        double shift, int sides, double *p, double *p_min, bool *exact,
                        size_t *count);

/*
 * Whether the values v[0..n) (finite ones; NaN skipped) cluster in levels:
 * sorted, split at every gap at least half the largest; levels when 2 to
 * STATS_MAX_LEVELS clusters of at least 2 values each result, the largest
 * gap is at least 4 times the widest cluster and at least min_gap, and
 * some arm's runs (group, may be NULL: one arm) fall in two clusters.  Fills levels (each cluster's
 * median, ascending) and returns their count, or 0.
 */
int stats_levels(const double *v, const size_t *group, size_t n, double min_gap,
                 double levels[STATS_MAX_LEVELS]);

/* "two levels: 154, 213 fps" from n levels with the metric's unit and
 * decimals (trailing zeros dropped); "" for n < 2. */
void stats_levels_text(const struct stats_metric_def *metric, const double *levels, int n,
                       char *buf, size_t size);

/*
 * The drift a campaign saw on one metric: least squares of every arm's
 * runs on arm indicators and a linear term in time_s (the runs' starts,
 * seconds; NULL or a NaN: untimed, the design's positions are used and the
 * span is in runs), its coefficient times the span of the runs, with the
 * (1 - alpha) interval.  Returns 0 with *out (known false when no time
 * term fits); -EINVAL.
 */
int stats_drift(const struct stats_design *d, const double *time_s, double alpha,
                struct stats_drift *out);

/* "+1.3 fps over 1 min [-0.4, +3.0]"; per hour ("+2.1 fps an hour
 * [+0.3, +3.9]") only when the span is an hour or more; "over 12 runs"
 * when untimed. */
void stats_drift_text(const struct stats_metric_def *metric, const struct stats_drift *dr,
                      char *buf, size_t size);

/*
 * Rounds more until an undecided decision would decide, as a range: the
 * standard error's own uncertainty (its chi-square with df) gives a low
 * and a high se (the 10 % and 90 % points), each carried to the future
 * with its degrees of freedom (df + more rounds x runs_per_round) and the
 * level of the look it would be read at (level(look), NULL: d->alpha).
 * Nothing below STATS_FORECAST_MIN_DF df: *lo = *hi = NaN.  INFINITY when
 * not reachable within max_more.  rounds_done >= 1.
 */
#define STATS_FORECAST_MIN_DF 4
void stats_rounds_forecast(const struct stats_decision *d, int rounds_done, int runs_per_round,
                           int max_more, double (*level)(void *ctx, int look), void *ctx,
                           int look_now, double *lo, double *hi);

#endif
