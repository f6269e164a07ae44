/* stats-run: one run's frame metrics over the route's window, exactly as
 * docs/metrics.md defines them (that file is the contract).  It owns the
 * window arithmetic, the frame-time rule and the nearest-rank percentiles;
 * reading the logs is collect's, comparing runs is stats-compare.c's. */
#include "stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* 1-based nearest rank of percentile p among n values: ceil(p / 100 * n).
 * p * n first: exact for integer p and any realistic n, so a rank of
 * exactly 19.0 is not turned into 20 by 0.95 * 20 rounding up. */
static size_t nearest_rank(double p, size_t n)
{
	double x = p * (double)n / 100.0;
	size_t k = (size_t)ceil(x);
	if (k < 1)
		k = 1;
	if (k > n)
		k = n;
	return k;
}

double stats_percentile_nearest_rank(double *v, size_t n, double p)
{
	if (n == 0 || !(p > 0) || p > 100)
		return NAN;
	size_t k = nearest_rank(p, n);
	util_select(v, n, k - 1);
	return v[k - 1];
}

/* Bounds of the window on the log's clock: frames with lo < t <= hi.
 * Saturates instead of overflowing for a t0 near the ends of int64. */
static int window_ns(int64_t t0_ns, double w_s, int64_t *out)
{
	if (!isfinite(w_s) || fabs(w_s) > 1e7)
		return -EINVAL;
	int64_t w_ns = (int64_t)llround(w_s * 1e9);
	int64_t r;
	if (__builtin_add_overflow(t0_ns, w_ns, &r))
		r = w_ns > 0 ? INT64_MAX : INT64_MIN;
	*out = r;
	return 0;
}

/* (a - b) / 1e9 without integer overflow. */
static double seconds_between(int64_t a, int64_t b)
{
	int64_t d;
	if (__builtin_sub_overflow(a, b, &d))
		return ((double)a - (double)b) / 1e9;
	return (double)d / 1e9;
}

/* First index with present_ns > t (frames are non-decreasing). */
static size_t first_after(const struct stats_frame *f, size_t n, int64_t t)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (f[mid].present_ns > t)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

struct mean {
	double sum;
	uint64_t n;
};

static inline void mean_add(struct mean *m, float v)
{
	if (v == v) { /* not NaN */
		m->sum += v;
		m->n++;
	}
}

static double mean_get(const struct mean *m)
{
	return m->n ? m->sum / (double)m->n : NAN;
}

/* The window in seconds (w0, w1] and on the log's clock (lo, hi]: as
 * given, or the whole log (t0, last frame].  -EINVAL on a bad window. */
static int window_bounds(const struct stats_log *frames, int64_t t0_ns,
                         const double *window_s, double w[2], int64_t ns[2])
{
	const struct stats_frame *f = frames->frames;
	size_t n = frames->n;
	if (window_s) {
		w[0] = window_s[0];
		w[1] = window_s[1];
		if (!isfinite(w[0]) || !isfinite(w[1]) || !(w[0] < w[1]))
			return -EINVAL;
		if (window_ns(t0_ns, w[0], &ns[0]) < 0 || window_ns(t0_ns, w[1], &ns[1]) < 0)
			return -EINVAL;
		return 0;
	}
	w[0] = 0;
	ns[0] = t0_ns;
	ns[1] = n > 0 && f[n - 1].present_ns > t0_ns ? f[n - 1].present_ns : t0_ns;
	w[1] = seconds_between(ns[1], ns[0]);
	return 0;
}

/* What one pass over the window's frames gathers. */
struct walk {
	double *ft;          /* the window's frame times, ms */
	size_t nft;
	struct mean rb, ms, dr, fps, ftm;
	uint64_t real, over;
};

/* One pass over the frames [begin, end): the real frames' per-frame means
 * and frame times (an interval that ends at a window's frame, its start
 * possibly before the window).  w->ft holds end - begin entries. */
static void walk_window(const struct stats_log *frames, size_t begin, size_t end,
                        struct walk *w)
{
	const struct stats_frame *f = frames->frames;
	/* the previous real frame, possibly before the window */
	int64_t prev = -1;
	bool have_prev = false;
	if (!frames->frame_ms_is_interval) {
		for (size_t i = begin; i-- > 0;) {
			if (!f[i].shown_only) {
				prev = f[i].present_ns;
				have_prev = true;
				break;
			}
		}
	}
	for (size_t i = begin; i < end; i++) {
		const struct stats_frame *fr = &f[i];
		if (fr->shown_only)
			continue;
		w->real++;
		mean_add(&w->rb, fr->rb_wait_ms);
		mean_add(&w->ms, fr->memsync_ms);
		mean_add(&w->dr, fr->draws);
		mean_add(&w->fps, fr->fps);
		double t_ms;
		if (frames->frame_ms_is_interval) {
			t_ms = fr->frame_ms;
			if (!(t_ms > 0))
				continue;
		} else {
			bool had = have_prev;
			int64_t p = prev;
			prev = fr->present_ns;
			have_prev = true;
			if (!had)
				continue;
			t_ms = (double)(fr->present_ns - p) / 1e6;
		}
		w->ft[w->nft++] = t_ms;
		w->ftm.sum += t_ms;
		w->ftm.n++;
		w->over += t_ms > 100.0;
	}
}

/* Counts, means and rates of the walk into m (frames: rows in the window). */
static void set_rates(const struct stats_log *frames, const struct walk *w, size_t frames_in,
                      struct stats_run_metrics *m)
{
	double len_s = m->window_s[1] - m->window_s[0];
	m->frames = frames_in;
	m->real_frames = w->real;
	m->frame_times = w->nft;
	m->over_100ms = w->over;
	m->rb_wait_ms = mean_get(&w->rb);
	m->memsync_ms = mean_get(&w->ms);
	m->draws = mean_get(&w->dr);
	if (frames->sampled) {
		/* rows are samples: their count says nothing about fps */
		if (w->fps.n)
			m->real_fps = mean_get(&w->fps);
		else if (w->ftm.n)
			m->real_fps = 1000.0 / mean_get(&w->ftm);
		m->shown_fps = m->real_fps;
	} else if (len_s > 0) {
		m->real_fps = (double)w->real / len_s;
		m->shown_fps = (double)m->frames / len_s;
	}
}

/* The mean fps (1000 / frame time, averaged) of v's last k values. */
static double slowest_mean_fps(double *v, size_t n, size_t k)
{
	double sum = 0;
	for (size_t i = n - k; i < n; i++)
		sum += 1000.0 / v[i];
	return sum / (double)k;
}

/* 1 % and 0.1 % lows of ft[0..n) into m: the mean fps of the slowest
 * ceil(n / 100) and ceil(n / 1000) frame times (reorders ft). */
static void select_lows(double *ft, size_t n, struct stats_run_metrics *m)
{
	if (n == 0)
		return;
	size_t k1 = (n + 99) / 100, k01 = (n + 999) / 1000;
	/* the k1 largest to the end, then the k01 largest of those */
	util_select(ft, n, n - k1);
	m->low_1pct_fps = slowest_mean_fps(ft, n, k1);
	util_select(ft + (n - k1), k1, k1 - k01);
	m->low_01pct_fps = slowest_mean_fps(ft, n, k01);
}

/* Nearest-rank p50/p95/p99 of ft[0..n) into m (reorders ft). */
static void select_percentiles(double *ft, size_t n, struct stats_run_metrics *m)
{
	if (n == 0)
		return;
	/* ranks k50 <= k95 <= k99: each selection leaves the lower ranks in
	 * front of it, so the next one works on that prefix only */
	size_t k99 = nearest_rank(99, n), k95 = nearest_rank(95, n), k50 = nearest_rank(50, n);
	util_select(ft, n, k99 - 1);
	m->p99_ms = ft[k99 - 1];
	if (k95 < k99)
		util_select(ft, k99 - 1, k95 - 1);
	m->p95_ms = ft[k95 - 1];
	if (k50 < k95)
		util_select(ft, k95 - 1, k50 - 1);
	m->p50_ms = ft[k50 - 1];
}

/* What the reader should know: no frames, a window the log does not
 * cover, sampled frame times. */
static void window_warnings(const struct stats_log *frames, int64_t t0_ns, bool windowed,
                            struct stats_run_metrics *m)
{
	const struct stats_frame *f = frames->frames;
	size_t n = frames->n;
	double w0 = m->window_s[0], w1 = m->window_s[1];
	const char *name = frames->name ? frames->name : "frame log";
	if (n == 0) {
		util_warnings_add(&m->warnings, "%s: no frames: every metric is empty", name);
	} else if (windowed) {
		double first_s = seconds_between(f[0].present_ns, t0_ns);
		double last_s = seconds_between(f[n - 1].present_ns, t0_ns);
		if (last_s < w1 - 1.0)
			util_warnings_add(&m->warnings,
			                     "%s: the log ends at %.3f s, before the window's end %.3f s: fps counts no frames after it",
			                     name, last_s, w1);
		if (first_s > w0 + 1.0)
			util_warnings_add(&m->warnings,
			                     "%s: the log starts at %.3f s, after the window's start %.3f s",
			                     name, first_s, w0);
	}
	if (n > 0 && m->frames == 0)
		util_warnings_add(&m->warnings, "%s: no frames inside the window (%.3f s, %.3f s]",
		                     name, w0, w1);
	if (frames->sampled && m->frame_times > 0)
		util_warnings_add(&m->warnings,
		                     "%s: p50/p95/p99 and over_100ms are of %zu sampled frame times, not of every frame",
		                     name, (size_t)m->frame_times);
}

int stats_run_metrics_compute(const struct stats_log *frames, int64_t t0_ns,
                              const double *window_s, struct stats_run_metrics *out)
{
	const struct stats_frame *f = frames->frames;
	size_t n = frames->n;
	double w[2];
	int64_t ns[2];
	if (window_bounds(frames, t0_ns, window_s, w, ns) < 0)
		return -EINVAL;

	struct stats_run_metrics m = {
		.real_fps = NAN,
		.shown_fps = NAN,
		.p50_ms = NAN,
		.p95_ms = NAN,
		.p99_ms = NAN,
		.low_1pct_fps = NAN,
		.low_01pct_fps = NAN,
		.rb_wait_ms = NAN,
		.memsync_ms = NAN,
		.draws = NAN,
		.window_s = { w[0], w[1] },
		.covered_s = { NAN, NAN },
		.sampled = frames->sampled,
	};
	int rc = frames->warnings ? util_warnings_append(&m.warnings, frames->warnings) : 0;
	if (rc < 0)
		goto fail;

	size_t begin = first_after(f, n, ns[0]);
	size_t end = first_after(f, n, ns[1]);
	struct walk wk = { 0 };
	if (end > begin) {
		wk.ft = malloc((end - begin) * sizeof *wk.ft);
		if (!wk.ft) {
			rc = -ENOMEM;
			goto fail;
		}
		double a = seconds_between(f[0].present_ns, t0_ns);
		double b = seconds_between(f[n - 1].present_ns, t0_ns);
		m.covered_s[0] = a > w[0] ? a : w[0];
		m.covered_s[1] = b < w[1] ? b : w[1];
	}
	walk_window(frames, begin, end, &wk);
	set_rates(frames, &wk, end - begin, &m);
	select_lows(wk.ft, wk.nft, &m);
	select_percentiles(wk.ft, wk.nft, &m);
	free(wk.ft);
	window_warnings(frames, t0_ns, window_s != NULL, &m);
	util_warnings_seal(&m.warnings);
	*out = m;
	return 0;
fail:
	util_warnings_finish(&m.warnings);
	return rc;
}

void stats_run_metrics_finish(struct stats_run_metrics *m)
{
	if (!m)
		return;
	util_warnings_finish(&m->warnings);
}
