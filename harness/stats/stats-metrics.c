/* stats-metrics: the metric registry, the one table every output reads
 * (docs/reports.md, "The metric registry"): per metric its key, its name
 * and unit, the direction that is better, the words of a call, the digits
 * of its values (its resolution), its terminal heading and whether it is a
 * primary metric by default.  The Markdown table, the verdict rows, CSV,
 * JSON, the HTML page, the plots and the forge summary all name and judge
 * a metric through it; nothing else holds a metric's label.  How a metric
 * is computed is stats-run.c's (docs/metrics.md). */
#include "stats.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define HI STATS_HIGHER_IS_BETTER
#define LO STATS_LOWER_IS_BETTER
#define NE STATS_NEUTRAL
/* the values' spec (struct stats_metric_spec), as docs/metrics.md's
 * definitions say (stats_metric_spec_default() agrees): exact (fps: a
 * count of frames over the known window), whole counts, or not known and
 * inferred from the values (percentiles, lows and waits, which an
 * imported log gives at its own precision; the renderer's summary lines) */
#define EXACT { 0, true, false }
#define COUNT { 0, true, true }
#define INFER { 0, false, false }

const struct stats_metric_def stats_metrics[] = {
	/* key, label, unit, direction, word_up, word_down, decimals, short label, primary,
	 * spec */
	{ "real_fps", "real fps", "fps", HI, "faster", "slower", 1, "real fps", true, EXACT },
	{ "shown_fps", "shown fps", "fps", HI, "faster", "slower", 1, "shown fps", false, EXACT },
	{ "p50_ms", "frame time p50", "ms", LO, "slower", "faster", 2, "p50 ms", false, INFER },
	{ "p95_ms", "frame time p95", "ms", LO, "slower", "faster", 2, "p95 ms", false, INFER },
	{ "p99_ms", "frame time p99", "ms", LO, "slower", "faster", 2, "p99 ms", true, INFER },
	{ "low_1pct_fps", "1 % low", "fps", HI, "faster", "slower", 1, "1% low fps", false, INFER },
	{ "low_01pct_fps", "0.1 % low", "fps", HI, "faster", "slower", 1, "0.1% low fps", false, INFER },
	{ "over_100ms", "frames over 100 ms", "", LO, "more", "fewer", 1, ">100 ms", false, COUNT },
	{ "rb_waits", "readbacks that wait, of 3000", "", LO, "more", "fewer", 1, "rb waits", false, INFER },
	{ "rb_wait_each_ms", "readback wait each", "ms", LO, "slower", "faster", 2, "rb wait ms",
	  false, INFER },
	{ "rb_early_part", "reads released at the writer's part, of 3000", "", NE, "more", "fewer", 1,
	  "early part", false, INFER },
	{ "rb_early_part_each_ms", "wait at the writer's part each", "ms", LO, "slower", "faster", 2,
	  "part wait ms", false, INFER },
	{ "rb_early_whole", "early reads waiting for their whole submission, of 3000", "", LO, "more",
	  "fewer", 1, "early whole", false, INFER },
	{ "rb_parts_ended", "parts ended after a writer, of 3000", "", NE, "more", "fewer", 1,
	  "parts ended", false, INFER },
	{ "rb_late", "reads served late, of 3000", "", NE, "more", "fewer", 1, "late reads", false, INFER },
	{ "captures_late", "captures waiting for late pages, of 600", "", LO, "more", "fewer", 1,
	  "late captures", false, INFER },
	{ "capture_wait_each_ms", "capture wait each", "ms", LO, "slower", "faster", 2, "capture ms",
	  false, INFER },
	{ "rb_wait_ms", "readback wait a frame", "ms", LO, "slower", "faster", 2, "rb ms/frame",
	  false, INFER },
	{ "memsync_ms", "memory sync a frame", "ms", LO, "slower", "faster", 2, "sync ms/frame",
	  false, INFER },
	{ "draws", "draws a frame", "", NE, "higher", "lower", 0, "draws/frame", false, INFER },
	{ "gpu_busy_percent", "GPU busy", "%", NE, "higher", "lower", 1, "GPU busy %", false, INFER },
	{ "swap_in", "swap-in", "pages", LO, "more", "fewer", 0, "swap-in pages", false, COUNT },
	{ NULL, NULL, NULL, 0, NULL, NULL, 0, NULL, false, INFER },
};

const struct stats_metric_def *stats_metric_find(const char *key)
{
	for (const struct stats_metric_def *d = stats_metrics; d->key; d++)
		if (strcmp(d->key, key) == 0)
			return d;
	return NULL;
}

void stats_metric_name(const struct stats_metric_def *metric, char *buf, size_t size)
{
	const char *u = metric->unit;
	if (u && u[0] && !strstr(metric->label, u))
		snprintf(buf, size, "%s, %s", metric->label, u);
	else
		snprintf(buf, size, "%s", metric->label);
}

double stats_metric_resolution(const struct stats_metric_def *metric)
{
	return pow(10.0, -metric->decimals);
}

const char *stats_state_word(const struct stats_metric_def *d, enum stats_state s)
{
	bool lower_better = d->direction == STATS_LOWER_IS_BETTER;
	switch (s) {
	case STATS_STATE_FASTER: return lower_better ? d->word_down : d->word_up;
	case STATS_STATE_SLOWER: return lower_better ? d->word_up : d->word_down;
	case STATS_STATE_HIGHER: return d->word_up;
	case STATS_STATE_LOWER: return d->word_down;
	case STATS_STATE_SAME:
	case STATS_STATE_UNDECIDED:
	default: return stats_state_name(s);
	}
}

int stats_state_sign(enum stats_state s)
{
	return s == STATS_STATE_FASTER ? 1 : s == STATS_STATE_SLOWER ? -1 : 0;
}
