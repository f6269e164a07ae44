/* stats-across: is an arm's effect the same on every device?
 *
 * Campaigns of one plan run on several hosts (a fleet of Decks) each
 * decide every arm against their own baseline (stats_decide()).  Across
 * devices the question is whether the arm's effect, relative to each
 * device's own baseline, is the same everywhere: a device x arm
 * interaction.  It is decided like the arm itself (docs/metrics.md, "The
 * decision"; docs/fleet.md, "Is the effect the same on every device?"):
 * each pair of devices' effects is compared on the percent scale with a
 * Welch t test whose standard errors and degrees of freedom are those of
 * the devices' own decisions; p values are Holm-adjusted over the pairs;
 * a pair "differs" when its adjusted p < alpha and the difference is at
 * least the metric's minimum effect (percentage points), "same" when its
 * Bonferroni interval lies within +- the minimum effect.  The whole is
 * "differs" when some pair differs, "same" when every pair is the same,
 * "undecided" otherwise.  A leaf, like stats: numbers in, numbers out.
 */
#ifndef RXDECK_STATS_ACROSS_H
#define RXDECK_STATS_ACROSS_H

#include <stdbool.h>
#include <stddef.h>

#include "stats.h"

/* The most devices compared at once. */
#define STATS_ACROSS_MAX_DEVICES 16

/* One device's effect of an arm against its baseline, on the percent scale
 * of its own baseline mean. */
struct stats_device_effect {
	double effect_pct;  /* delta / |baseline mean| * 100 */
	double se_pct;      /* its standard error, same scale */
	double df;          /* the decision model's residual degrees of freedom */
	bool usable;        /* false: the decision had no interval (too few runs) */
};

/*
 * The effect of a decision made by stats_decide() on a device whose
 * baseline mean is base_mean: the decision's standard error (after its
 * floor), with the resolution's rounding added as noise (resolution^2 / 6)
 * where the decision widened its interval by it.
 * Returns 0; -ENODATA when the decision has no interval or base_mean is 0
 * or not finite (out->usable false then).
 */
int stats_device_effect_from_decision(const struct stats_decision *d, double base_mean,
                                      struct stats_device_effect *out);

enum stats_across_state {
	STATS_ACROSS_UNDECIDED = 0,
	STATS_ACROSS_SAME = 1,     /* the effect is the same on every device */
	STATS_ACROSS_DIFFERS = 2,  /* it differs on at least one pair of devices */
};

/* "undecided", "same", "differs". */
const char *stats_across_state_name(enum stats_across_state s);

/* Two devices' effects compared: a minus b, percentage points. */
struct stats_across_pair {
	size_t a, b;             /* device indices, a < b */
	double diff_pct;
	double se_pct;
	double df;               /* Welch–Satterthwaite */
	double ci_low, ci_high;  /* at alpha / pairs (Bonferroni) */
	double p_raw;
	double p;                /* Holm-adjusted over the pairs */
	enum stats_across_state state;
};

struct stats_across {
	enum stats_across_state state;
	size_t n_devices;        /* as given; pairs are of usable devices only */
	double alpha;
	double min_effect_pct;   /* percentage points */
	/* DIFFERS: the device whose effect departs most from the mean of the
	 * others' (with two devices the one whose effect is larger in size,
	 * since the data cannot tell which one is "odd"), and by how much */
	size_t odd;
	double odd_diff_pct;
	struct stats_across_pair *pairs;  /* n_pairs, malloc'd */
	size_t n_pairs;
};

/*
 * Decides whether the effects dev[0..n) are the same on every device, at
 * two-sided level alpha (0: 0.05) with the minimum effect min_effect_pct
 * (> 0, percentage points).  Unusable devices take no part.  Returns 0 with
 * *out filled (release with stats_across_finish()); -EINVAL for n >
 * STATS_ACROSS_MAX_DEVICES or a bad minimum effect; -ENODATA when fewer than
 * two devices are usable; -ENOMEM.
 */
int stats_across_decide(const struct stats_device_effect *dev, size_t n, double alpha,
                        double min_effect_pct, struct stats_across *out);
void stats_across_finish(struct stats_across *a);

#endif
