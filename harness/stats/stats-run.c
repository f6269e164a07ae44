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
	collect_select(v, n, k - 1);
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
static size_t first_after(const struct collect_frame *f, size_t n, int64_t t)
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

int stats_run_metrics_compute(const struct collect_frames *frames, int64_t t0_ns,
                              const double *window_s, struct stats_run_metrics *out)
{
	const struct collect_frame *f = frames->frames;
	size_t n = frames->n;
	double w0 = 0, w1 = 0;
	int64_t lo, hi;
	if (window_s) {
		w0 = window_s[0];
		w1 = window_s[1];
		if (!isfinite(w0) || !isfinite(w1) || !(w0 < w1))
			return -EINVAL;
		if (window_ns(t0_ns, w0, &lo) < 0 || window_ns(t0_ns, w1, &hi) < 0)
			return -EINVAL;
	} else {
		/* the whole log: (t0, last frame] */
		lo = t0_ns;
		hi = n > 0 && f[n - 1].present_ns > t0_ns ? f[n - 1].present_ns : t0_ns;
		w1 = seconds_between(hi, lo);
	}

	struct stats_run_metrics m = {
		.real_fps = NAN,
		.shown_fps = NAN,
		.p50_ms = NAN,
		.p95_ms = NAN,
		.p99_ms = NAN,
		.rb_wait_ms = NAN,
		.memsync_ms = NAN,
		.draws = NAN,
		.window_s = { w0, w1 },
		.covered_s = { NAN, NAN },
		.sampled = frames->sampled,
	};
	int rc = collect_warnings_append(&m.warnings, &frames->warnings);
	if (rc < 0)
		goto fail;

	size_t begin = first_after(f, n, lo);
	size_t end = first_after(f, n, hi);
	double *ft = NULL;
	size_t nft = 0;
	if (end > begin) {
		ft = malloc((end - begin) * sizeof *ft);
		if (!ft) {
			rc = -ENOMEM;
			goto fail;
		}
	}

	/* the previous real frame, possibly before the window */
	int64_t prev = -1;
	bool have_prev = false;
	if (!frames->frame_ms_is_interval) {
		for (size_t i = begin; i-- > 0;) {
			if (f[i].kind == COLLECT_FRAME_REAL) {
				prev = f[i].present_ns;
				have_prev = true;
				break;
			}
		}
	}
	struct mean rb = { 0 }, ms = { 0 }, dr = { 0 }, fps = { 0 }, ftm = { 0 };
	uint64_t real = 0, over = 0;
	for (size_t i = begin; i < end; i++) {
		const struct collect_frame *fr = &f[i];
		if (fr->kind != COLLECT_FRAME_REAL)
			continue;
		real++;
		mean_add(&rb, fr->rb_wait_ms);
		mean_add(&ms, fr->memsync_ms);
		mean_add(&dr, fr->draws);
		mean_add(&fps, fr->fps);
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
		ft[nft++] = t_ms;
		ftm.sum += t_ms;
		ftm.n++;
		over += t_ms > 100.0;
	}

	double len_s = w1 - w0;
	if (end > begin) {
		double a = seconds_between(f[0].present_ns, t0_ns);
		double b = seconds_between(f[n - 1].present_ns, t0_ns);
		m.covered_s[0] = a > w0 ? a : w0;
		m.covered_s[1] = b < w1 ? b : w1;
	}
	m.frames = end - begin;
	m.real_frames = real;
	m.frame_times = nft;
	m.over_100ms = over;
	m.rb_wait_ms = mean_get(&rb);
	m.memsync_ms = mean_get(&ms);
	m.draws = mean_get(&dr);
	if (frames->sampled) {
		/* rows are samples: their count says nothing about fps */
		if (fps.n)
			m.real_fps = mean_get(&fps);
		else if (ftm.n)
			m.real_fps = 1000.0 / mean_get(&ftm);
		m.shown_fps = m.real_fps;
	} else if (len_s > 0) {
		m.real_fps = (double)real / len_s;
		m.shown_fps = (double)m.frames / len_s;
	}
	if (nft > 0) {
		/* ranks k50 <= k95 <= k99: each selection leaves the lower ranks
		 * in front of it, so the next one works on that prefix only */
		size_t k99 = nearest_rank(99, nft), k95 = nearest_rank(95, nft),
		       k50 = nearest_rank(50, nft);
		collect_select(ft, nft, k99 - 1);
		m.p99_ms = ft[k99 - 1];
		if (k95 < k99)
			collect_select(ft, k99 - 1, k95 - 1);
		m.p95_ms = ft[k95 - 1];
		if (k50 < k95)
			collect_select(ft, k95 - 1, k50 - 1);
		m.p50_ms = ft[k50 - 1];
	}
	free(ft);

	const char *name = frames->path ? frames->path : "frame log";
	if (n == 0) {
		collect_warnings_add(&m.warnings, "%s: no frames: every metric is empty", name);
	} else if (window_s) {
		double first_s = seconds_between(f[0].present_ns, t0_ns);
		double last_s = seconds_between(f[n - 1].present_ns, t0_ns);
		if (last_s < w1 - 1.0)
			collect_warnings_add(&m.warnings,
			                     "%s: the log ends at %.3f s, before the window's end %.3f s: fps counts no frames after it",
			                     name, last_s, w1);
		if (first_s > w0 + 1.0)
			collect_warnings_add(&m.warnings,
			                     "%s: the log starts at %.3f s, after the window's start %.3f s",
			                     name, first_s, w0);
	}
	if (n > 0 && m.frames == 0)
		collect_warnings_add(&m.warnings, "%s: no frames inside the window (%.3f s, %.3f s]",
		                     name, w0, w1);
	if (frames->sampled && nft > 0)
		collect_warnings_add(&m.warnings,
		                     "%s: p50/p95/p99 and over_100ms are of %zu sampled frame times, not of every frame",
		                     name, nft);
	collect_warnings_seal(&m.warnings);
	*out = m;
	return 0;
fail:
	collect_warnings_finish(&m.warnings);
	return rc;
}

void stats_run_metrics_finish(struct stats_run_metrics *m)
{
	if (!m)
		return;
	collect_warnings_finish(&m->warnings);
}
