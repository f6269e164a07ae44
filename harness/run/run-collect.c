/* run-collect: what a finished run left behind, turned into the rows of
 * db_run_results.  It owns the choice of files (the frame log or MangoHud's
 * CSV, the renderer log or the game's stderr), the run's metrics over the
 * route's window (frame metrics from stats, log metrics through the
 * collector profile, sampler metrics: GPU busy, swap, clock, temperature,
 * power), the shots (the demo game's log line, else the PNG through
 * libpng) and the renderer's effective configuration lines.  Parsing is
 * collect's, statistics are stats'; deciding a run's status is the
 * caller's. */
#include "run.h"
#include "run-private.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <png.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "collect/collect.h"
#include "deck/deck.h"
#include "stats/stats.h"
#include "util/util.h"

#define MAX_METRICS 128

struct priv {
	struct collect_frames *frames;
	struct collect_profile *profile;
	struct collect_log *log;
	struct db_frame *frames_db;
	struct db_sample *samples;
	struct db_metric metrics[MAX_METRICS];
	size_t n_metrics;
	struct db_log_line *lines;
	const char **captures;       /* every line's captures, one array */
	struct db_shot *shots;
	size_t n_shots;
	char **strings;              /* owned strings the rows point to */
	size_t n_strings, cap_strings;
	char *config;
};

static const char *keep(struct priv *p, char *s)
{
	if (!s)
		return NULL;
	if (p->n_strings == p->cap_strings) {
		size_t cap = p->cap_strings ? p->cap_strings * 2 : 32;
		char **v = realloc(p->strings, cap * sizeof *v);
		if (!v) {
			free(s);
			return NULL;
		}
		p->strings = v;
		p->cap_strings = cap;
	}
	p->strings[p->n_strings++] = s;
	return s;
}

static void warn(struct run_collected *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void warn(struct run_collected *c, const char *fmt, ...)
{
	size_t n = strlen(c->warnings);
	if (n + 2 >= sizeof c->warnings)
		return;
	if (n)
		c->warnings[n++] = '\n';
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->warnings + n, sizeof c->warnings - n, fmt, ap);
	va_end(ap);
}

static bool has_metric(const struct priv *p, const char *name)
{
	for (size_t i = 0; i < p->n_metrics; i++)
		if (strcmp(p->metrics[i].name, name) == 0)
			return true;
	return false;
}

static void add_metric(struct run_collected *c, const char *name, double v)
{
	struct priv *p = c->priv;
	if (!isfinite(v) || p->n_metrics >= MAX_METRICS)
		return;
	if (has_metric(p, name)) {
		warn(c, "metric '%s' given twice; the first value is kept", name);
		return;
	}
	const char *n = keep(p, strdup(name));
	if (!n)
		return;
	p->metrics[p->n_metrics++] = (struct db_metric){ .name = n, .value = v };
	c->r.metrics = p->metrics;
	c->r.n_metrics = p->n_metrics;
}

int run_collected_add_metric(struct run_collected *c, const char *name, double value)
{
	if (!c->priv || !isfinite(value))
		return -EINVAL;
	add_metric(c, name, value);
	return 0;
}

void run_collected_finish(struct run_collected *c)
{
	if (!c || !c->priv)
		return;
	struct priv *p = c->priv;
	collect_log_destroy(p->log);
	collect_profile_destroy(p->profile);
	collect_frames_destroy(p->frames);
	free(p->frames_db);
	free(p->samples);
	free(p->lines);
	free(p->captures);
	free(p->shots);
	for (size_t i = 0; i < p->n_strings; i++)
		free(p->strings[i]);
	free(p->strings);
	free(p->config);
	free(p);
	memset(c, 0, sizeof *c);
}

/* ---- PNG and checksums ------------------------------------------------------- */

static uint64_t fnv1a64(const uint8_t *d, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ d[i]) * 0x100000001b3ull;
	return h;
}

int run_png_stats(const char *path, double *luma_out, char checksum_out[17], char *errmsg,
                  size_t errmsg_size)
{
	png_image img;
	memset(&img, 0, sizeof img);
	img.version = PNG_IMAGE_VERSION;
	if (!png_image_begin_read_from_file(&img, path))
		return run_errf(errmsg, errmsg_size, -EINVAL, "cannot read shot '%s': %s", path, img.message);
	img.format = PNG_FORMAT_RGBA;
	size_t size = PNG_IMAGE_SIZE(img);
	if (img.width == 0 || img.height == 0 || size / 4 / img.width != img.height) {
		png_image_free(&img);
		return run_errf(errmsg, errmsg_size, -EINVAL, "cannot read shot '%s': empty or too large", path);
	}
	uint8_t *px = malloc(size);
	if (!px) {
		png_image_free(&img);
		return -ENOMEM;
	}
	if (!png_image_finish_read(&img, NULL, px, 0, NULL)) {
		int rc = run_errf(errmsg, errmsg_size, -EINVAL, "cannot read shot '%s': %s", path, img.message);
		free(px);
		return rc;
	}
	uint64_t n = (uint64_t)img.width * img.height, sum = 0;
	for (uint64_t i = 0; i < n; i++)
		sum += (uint64_t)(54 * px[i * 4] + 183 * px[i * 4 + 1] + 19 * px[i * 4 + 2]);
	*luma_out = (double)sum / 256.0 / (double)n;
	snprintf(checksum_out, 17, "%016" PRIx64, fnv1a64(px, size));
	free(px);
	return 0;
}

/* ---- logs ----------------------------------------------------------------------- */

static bool file_nonempty(const char *path)
{
	struct stat st;
	return path && stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

/* A line without its "[s.us] " timestamp prefix. */
static const char *strip_stamp(const char *line)
{
	if (line[0] != '[')
		return line;
	const char *close = strchr(line, ']');
	if (!close || close[1] != ' ')
		return line;
	return close + 2;
}

/* The demo game's "forest: shot NAME frame N luma L checksum C" line for
 * name, from a log held in memory. */
static bool shot_from_log(const char *text, const char *name, double *luma, char *checksum,
                          size_t checksum_size)
{
	bool found = false;
	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		char buf[512];
		if (n < sizeof buf) {
			memcpy(buf, line, n);
			buf[n] = 0;
			const char *s = strip_stamp(buf);
			char got[128], sum[64];
			unsigned long long frame;
			double l;
			if (sscanf(s, "forest: shot %127s frame %llu luma %lf checksum %63s", got, &frame, &l,
			           sum) == 4 &&
			    strcmp(got, name) == 0) {
				*luma = l;
				snprintf(checksum, checksum_size, "%s", sum);
				found = true; /* the last one wins: a shot asked for twice */
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	return found;
}

/* "vk: device ..." and "vk: switches: ..." lines, the first of each. */
static char *config_from_log(const char *text)
{
	const char *want[] = { "vk: device ", "vk: switches: " };
	char *out = NULL;
	size_t len = 0;
	for (size_t w = 0; w < 2; w++) {
		for (const char *line = text; line && *line;) {
			const char *nl = strchr(line, '\n');
			size_t n = nl ? (size_t)(nl - line) : strlen(line);
			const char *s = line;
			if (s[0] == '[') {
				const char *close = memchr(s, ']', n);
				if (close && close + 1 < line + n && close[1] == ' ')
					s = close + 2;
			}
			size_t k = strlen(want[w]);
			size_t rest = n - (size_t)(s - line);
			if (rest >= k && strncmp(s, want[w], k) == 0 &&
			    !(w == 0 && strstr(s, "not usable"))) {
				char *o = realloc(out, len + rest + 2);
				if (!o)
					return out;
				out = o;
				memcpy(out + len, s, rest);
				len += rest;
				out[len++] = '\n';
				out[len] = 0;
				break;
			}
			line = nl ? nl + 1 : NULL;
		}
	}
	if (out && len)
		out[len - 1] = 0;
	return out;
}

/* ---- samples ---------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void sampler_metrics(struct run_collected *c, const struct run_collect_spec *s)
{
	if (s->n_samples == 0)
		return;
	const struct deck_sample *v = s->samples;
	size_t n = s->n_samples;
	/* swap: counters over the whole run, first and last present */
	enum deck_reading_id swaps[2] = { DECK_SWAP_IN_PAGES, DECK_SWAP_OUT_PAGES };
	const char *swap_names[2] = { "swap_in", "swap_out" };
	for (int k = 0; k < 2; k++) {
		size_t a = n, b = n;
		for (size_t i = 0; i < n; i++)
			if (deck_reading_present(&v[i], swaps[k])) {
				if (a == n)
					a = i;
				b = i;
			}
		if (a < n && b > a)
			add_metric(c, swap_names[k], v[b].r[swaps[k]].value - v[a].r[swaps[k]].value);
		else if (a < n)
			add_metric(c, swap_names[k], 0);
	}
	/* the window's samples */
	double *vals = malloc(n * sizeof *vals);
	if (!vals)
		return;
	size_t m;
	double sum;
	struct { enum deck_reading_id id; const char *name; int how; } means[] = {
		{ DECK_GPU_BUSY_PCT, "gpu_busy_percent", 0 },
		{ DECK_GPU_POWER_W, "gpu_power_w", 0 },
		{ DECK_GPU_SCLK_MHZ, "gpu_sclk_mhz", 1 },
		{ DECK_GPU_TEMP_MAX_C, "gpu_temp_max_c", 2 },
	};
	for (size_t k = 0; k < sizeof means / sizeof means[0]; k++) {
		m = 0;
		sum = 0;
		for (size_t i = 0; i < n; i++) {
			if (!deck_reading_present(&v[i], means[k].id))
				continue;
			double t_s = (double)(v[i].t_ns - s->t0_ns) / 1e9;
			bool in = s->t0_ns && t_s > s->window_s[0] && t_s <= s->window_s[1];
			if (means[k].how != 2 && !in)
				continue;
			vals[m++] = v[i].r[means[k].id].value;
			sum += v[i].r[means[k].id].value;
		}
		if (m == 0)
			continue;
		if (means[k].how == 0) {
			add_metric(c, means[k].name, sum / (double)m);
		} else if (means[k].how == 1) {
			qsort(vals, m, sizeof *vals, cmp_double);
			add_metric(c, means[k].name, m % 2 ? vals[m / 2] : (vals[m / 2 - 1] + vals[m / 2]) / 2);
		} else {
			double mx = vals[0];
			for (size_t i = 1; i < m; i++)
				mx = vals[i] > mx ? vals[i] : mx;
			add_metric(c, means[k].name, mx);
		}
	}
	free(vals);
}

static int store_samples(struct run_collected *c, const struct run_collect_spec *s)
{
	struct priv *p = c->priv;
	if (s->n_samples == 0)
		return 0;
	size_t n = s->n_samples * DECK_N_READINGS;
	p->samples = calloc(n, sizeof *p->samples);
	if (!p->samples)
		return -ENOMEM;
	size_t k = 0;
	for (size_t i = 0; i < s->n_samples; i++) {
		for (int id = 0; id < DECK_N_READINGS; id++) {
			const struct deck_reading *rd = &s->samples[i].r[id];
			p->samples[k++] = (struct db_sample){
				.t_ns = s->samples[i].t_ns,
				.name = deck_reading_name((enum deck_reading_id)id),
				.value = rd->err == 0 ? rd->value : 0,
				.absent = rd->err != 0 || !isfinite(rd->value),
			};
		}
	}
	c->r.samples = p->samples;
	c->r.n_samples = k;
	return 0;
}

/* ---- frames ------------------------------------------------------------------------ */

struct db_frame run_db_frame(const struct collect_frames *f, size_t i, int64_t shift_ns)
{
	const struct collect_frame *x = &f->frames[i];
	struct db_frame d = {
		.frame = (int64_t)i,
		.present_ns = x->present_ns + shift_ns,
		.kind = x->kind == COLLECT_FRAME_SHOWN ? DB_FRAME_SHOWN : DB_FRAME_REAL,
		.source = f->source == COLLECT_SOURCE_MANGOHUD     ? DB_FRAME_MANGOHUD
		          : f->source == COLLECT_SOURCE_PRESENTMON ? DB_FRAME_PRESENTMON
		                                                    : DB_FRAME_RXVK,
	};
	if (isfinite(x->frame_ms))
		d.frame_ms = x->frame_ms;
	else
		d.absent |= DB_FRAME_NO_FRAME_MS;
	if (isfinite(x->rb_wait_ms))
		d.rb_wait_ms = x->rb_wait_ms;
	else
		d.absent |= DB_FRAME_NO_RB_WAIT_MS;
	if (isfinite(x->memsync_ms))
		d.memsync_ms = x->memsync_ms;
	else
		d.absent |= DB_FRAME_NO_MEMSYNC_MS;
	if (isfinite(x->draws) && x->draws >= 0 && x->draws <= (float)UINT32_MAX)
		d.draws = (uint32_t)x->draws;
	else
		d.absent |= DB_FRAME_NO_DRAWS;
	return d;
}

/* The coverage rule: a log that covers less than min_coverage_pct of the
 * window makes the run void; its metrics would count a part of the window
 * as the whole. */
static void coverage(struct run_collected *c, const struct run_collect_spec *s,
                     const struct stats_run_metrics *m)
{
	double min_pct = s->min_coverage_pct == 0 ? RUN_MIN_COVERAGE_PCT : s->min_coverage_pct;
	double len_s = m->window_s[1] - m->window_s[0];
	if (min_pct < 0 || !(len_s > 0) || !isfinite(m->covered_s[0]))
		return;
	double pct = (m->covered_s[1] - m->covered_s[0]) / len_s * 100.0;
	if (pct >= min_pct)
		return;
	snprintf(c->void_reason, sizeof c->void_reason,
	         "log covers %.1f–%.1f s of %.1f–%.1f s (%.0f %%, under %.0f %%)",
	         m->covered_s[0], m->covered_s[1], m->window_s[0], m->window_s[1], pct, min_pct);
}

/* t0 is known: a harness run's (never 0 on CLOCK_MONOTONIC), or an
 * import's, which may be 0 on a log's own clock. */
static bool has_t0(const struct run_collect_spec *s)
{
	return s->has_t0 || s->t0_ns;
}

/* ---- the whole run ---------------------------------------------------------------- */

/* One collection: the spec, what it fills, and the files it read. */
struct collection {
	const struct run_collect_spec *s;
	struct run_collected *c;
	struct priv *p;
	char *frames_path;         /* the frame log, or MangoHud's newest CSV */
	char *renderer_log, *stderr_log;
	const char *log_path;      /* the log the collector profile reads */
	char *log_text, *err_text; /* the renderer log's and stderr's text */
	char *errmsg;
	size_t errmsg_size;
};

/* The frame log: loaded, or a warning saying why not. */
static int step_frames_load(struct collection *k)
{
	const struct run_collect_spec *s = k->s;
	if (s->frame_log)
		k->frames_path = strdup(s->frame_log);
	else if (s->mangohud) {
		char *dir = util_path_join(s->run_dir, "mangohud");
		k->frames_path = dir ? run_newest_csv(dir, NULL) : NULL;
		free(dir);
	} else
		k->frames_path = util_path_join(s->run_dir, "frames.csv");
	if (!k->frames_path || !file_nonempty(k->frames_path)) {
		warn(k->c, "no frame log%s%s", k->frames_path ? " at " : "",
		     k->frames_path ? k->frames_path : "");
		k->c->no_log = true;
		snprintf(k->c->void_reason, sizeof k->c->void_reason, "%s",
		         s->mangohud ? "no log: MangoHud wrote no CSV into the run's mangohud/ folder"
		                     : "no log: the game wrote no frame log (frames.csv)");
		return 0;
	}
	struct collect_error cerr;
	int rc = collect_frames_load(k->frames_path, COLLECT_SOURCE_AUTO, &k->p->frames, &cerr);
	if (rc == -ENOMEM)
		return rc;
	if (rc < 0) {
		warn(k->c, "%s", cerr.msg);
		k->p->frames = NULL;
	}
	return 0;
}

/* Every source's frames as rows, on the route's clock (MangoHud's and
 * PresentMon's times moved by t0 - t0_log), so route_t0_ns places the
 * window for all of them alike; absent columns marked absent. */
static int step_frame_rows(struct collection *k)
{
	struct priv *p = k->p;
	struct collect_frames *f = p->frames;
	if (!f->n)
		return 0;
	p->frames_db = calloc(f->n, sizeof *p->frames_db);
	if (!p->frames_db)
		return -ENOMEM;
	int64_t t0 = f->clock == COLLECT_CLOCK_MONOTONIC ? k->s->t0_ns : k->s->t0_log_ns;
	int64_t shift = has_t0(k->s) ? k->s->t0_ns - t0 : 0;
	for (size_t i = 0; i < f->n; i++)
		p->frames_db[i] = run_db_frame(f, i, shift);
	k->c->r.frames = p->frames_db;
	k->c->r.n_frames = f->n;
	return 0;
}

int run_stats_log(const struct collect_frames *frames, struct stats_log *out)
{
	struct stats_frame *v = malloc((frames->n ? frames->n : 1) * sizeof *v);
	if (!v)
		return -ENOMEM;
	util_hint_huge(v, frames->n * sizeof *v);
	for (size_t i = 0; i < frames->n; i++) {
		const struct collect_frame *f = &frames->frames[i];
		v[i] = (struct stats_frame){
			.present_ns = f->present_ns,
			.frame_ms = f->frame_ms,
			.rb_wait_ms = f->rb_wait_ms,
			.memsync_ms = f->memsync_ms,
			.draws = f->draws,
			.fps = f->fps,
			.shown_only = f->kind == COLLECT_FRAME_SHOWN,
		};
	}
	*out = (struct stats_log){
		.name = frames->path,
		.frames = v,
		.n = frames->n,
		.frame_ms_is_interval = frames->frame_ms_is_interval,
		.sampled = frames->sampled,
		.warnings = &frames->warnings,
	};
	return 0;
}

void run_stats_log_finish(struct stats_log *log)
{
	if (!log)
		return;
	free((void *)log->frames);
	log->frames = NULL;
	log->n = 0;
}

int run_frame_metrics(const struct collect_frames *frames, int64_t t0_ns, const double *window_s,
                      struct stats_run_metrics *out)
{
	struct stats_log log;
	int rc = run_stats_log(frames, &log);
	if (rc < 0)
		return rc;
	rc = stats_run_metrics_compute(&log, t0_ns, window_s, out);
	run_stats_log_finish(&log);
	return rc;
}

/* The frame metrics over the route's window. */
static int step_frame_metrics(struct collection *k)
{
	const struct run_collect_spec *s = k->s;
	struct run_collected *c = k->c;
	struct collect_frames *f = k->p->frames;
	if (!has_t0(s))
		return 0;
	int64_t t0 = f->clock == COLLECT_CLOCK_MONOTONIC ? s->t0_ns : s->t0_log_ns;
	struct stats_run_metrics m;
	int rc = run_frame_metrics(f, t0, s->window_s, &m);
	if (rc == -ENOMEM)
		return rc;
	if (rc < 0)
		return 0;
	add_metric(c, "real_fps", m.real_fps);
	add_metric(c, "shown_fps", m.shown_fps);
	add_metric(c, "p50_ms", m.p50_ms);
	add_metric(c, "p95_ms", m.p95_ms);
	add_metric(c, "p99_ms", m.p99_ms);
	add_metric(c, "low_1pct_fps", m.low_1pct_fps);
	add_metric(c, "low_01pct_fps", m.low_01pct_fps);
	add_metric(c, "over_100ms", (double)m.over_100ms);
	add_metric(c, "rb_wait_ms", m.rb_wait_ms);
	add_metric(c, "memsync_ms", m.memsync_ms);
	add_metric(c, "draws", m.draws);
	add_metric(c, "frames", (double)m.frames);
	add_metric(c, "real_frames", (double)m.real_frames);
	c->no_frames = m.real_frames == 0;
	coverage(c, s, &m);
	for (size_t i = 0; i < m.warnings.n && i < 3; i++)
		warn(c, "%s", m.warnings.v[i]);
	stats_run_metrics_finish(&m);
	return 0;
}

/* The game's log through the collector profile.  A run made elsewhere
 * (import) has only the files it names. */
static int step_log_load(struct collection *k)
{
	const struct run_collect_spec *s = k->s;
	struct priv *p = k->p;
	bool imported = s->frame_log != NULL;
	if (s->game_log)
		k->renderer_log = strdup(s->game_log);
	else if (!imported)
		k->renderer_log = util_path_join(s->run_dir, "renderer.log");
	if (!imported && !s->game_log)
		k->stderr_log = util_path_join(s->run_dir, "stderr.log");
	k->log_path = file_nonempty(k->renderer_log) ? k->renderer_log
	              : file_nonempty(k->stderr_log) ? k->stderr_log : NULL;
	struct collect_error cerr;
	int rc;
	if (s->collect_profile) {
		rc = collect_profile_load(s->collect_profile, &p->profile, &cerr);
		if (rc < 0)
			return run_errf(k->errmsg, k->errmsg_size, rc, "%s", cerr.msg);
	}
	if (!p->profile || !k->log_path)
		return 0;
	rc = collect_log_load(p->profile, k->log_path, &p->log, &cerr);
	if (rc == -ENOMEM)
		return rc;
	if (rc < 0) {
		warn(k->c, "%s", cerr.msg);
		p->log = NULL;
	}
	return 0;
}

/* The log's matched lines as rows, their captures in one array. */
static int step_log_rows(struct collection *k)
{
	struct priv *p = k->p;
	size_t n_caps = 0;
	for (size_t i = 0; i < p->log->n; i++)
		n_caps += p->log->matches[i].n_values;
	p->lines = calloc(p->log->n ? p->log->n : 1, sizeof *p->lines);
	p->captures = calloc(n_caps ? n_caps : 1, sizeof *p->captures);
	if (!p->lines || !p->captures)
		return -ENOMEM;
	size_t at = 0;
	for (size_t i = 0; i < p->log->n; i++) {
		const struct collect_match *mt = &p->log->matches[i];
		for (size_t j = 0; j < mt->n_values; j++)
			p->captures[at + j] = mt->values[j].text;
		p->lines[i] = (struct db_log_line){
			.t_ns = mt->t_ns == COLLECT_UNTIMED ? 0 : mt->t_ns,
			.pattern = mt->pattern,
			.text = mt->text,
			.captures = p->captures + at,
			.n_captures = mt->n_values,
		};
		at += mt->n_values;
	}
	k->c->r.log_lines = p->lines;
	k->c->r.n_log_lines = p->log->n;
	return 0;
}

/* The log metrics over the route's window. */
static int step_log_metrics(struct collection *k)
{
	if (!has_t0(k->s))
		return 0;
	struct collect_log_metrics lm;
	int rc = collect_log_metrics_compute(k->p->profile, k->p->log, k->s->t0_ns, k->s->window_s, &lm);
	if (rc == -ENOMEM)
		return rc;
	if (rc < 0)
		return 0;
	for (size_t i = 0; i < lm.n; i++)
		add_metric(k->c, lm.v[i].name, lm.v[i].value);
	collect_log_metrics_finish(&lm);
	return 0;
}

/* One shot: from the game's log line, else from its PNG; a warning when
 * neither is there. */
static int shot(struct collection *k, const char *name)
{
	struct priv *p = k->p;
	char png_name[256], checksum[64] = "";
	double luma = NAN;
	snprintf(png_name, sizeof png_name, "shots/%s.png", name);
	char *png = util_path_join(k->s->run_dir, png_name);
	if (!png)
		return -ENOMEM;
	struct stat st;
	bool have_png = stat(png, &st) == 0 && S_ISREG(st.st_mode);
	bool logged = (k->log_text && shot_from_log(k->log_text, name, &luma, checksum, sizeof checksum)) ||
	              (k->err_text && shot_from_log(k->err_text, name, &luma, checksum, sizeof checksum));
	if (!logged && have_png) {
		char sum[17], msg[256];
		if (run_png_stats(png, &luma, sum, msg, sizeof msg) == 0) {
			snprintf(checksum, sizeof checksum, "%s", sum);
			logged = true;
		} else {
			warn(k->c, "%s", msg);
		}
	}
	if (!logged) {
		/* the window shot's failure says more than that */
		char head[300];
		snprintf(head, sizeof head, "shot '%s': ", name);
		const char *note = k->s->shot_notes ? strstr(k->s->shot_notes, head) : NULL;
		if (note)
			warn(k->c, "%.*s", (int)strcspn(note, "\n"), note);
		else
			warn(k->c, "shot '%s' was asked for but the game neither logged nor wrote it", name);
		free(png);
		return 0;
	}
	p->shots[p->n_shots++] = (struct db_shot){
		.name = keep(p, strdup(name)),
		.path = have_png ? keep(p, png) : (free(png), NULL),
		.luma = luma,
		.checksum = keep(p, strdup(checksum)),
	};
	return 0;
}

/* The shots and the renderer's configuration, from the logs' text. */
static int step_shots_config(struct collection *k)
{
	const struct run_collect_spec *s = k->s;
	struct priv *p = k->p;
	size_t len;
	struct collect_error rerr;
	if (file_nonempty(k->renderer_log) &&
	    collect_read_file("log", k->renderer_log, &k->log_text, &len, &rerr) < 0)
		k->log_text = NULL;
	if (file_nonempty(k->stderr_log) &&
	    collect_read_file("log", k->stderr_log, &k->err_text, &len, &rerr) < 0)
		k->err_text = NULL;
	if (s->n_shots) {
		p->shots = calloc(s->n_shots, sizeof *p->shots);
		if (!p->shots)
			return -ENOMEM;
	}
	for (size_t i = 0; i < s->n_shots; i++) {
		int rc = shot(k, s->shot_names[i]);
		if (rc < 0)
			return rc;
	}
	k->c->r.shots = p->shots;
	k->c->r.n_shots = p->n_shots;
	p->config = config_from_log(k->log_text ? k->log_text : k->err_text ? k->err_text : "");
	if (k->s->mangohud_version && k->s->mangohud_version[0]) {
		/* which MangoHud measured: the run's config says it */
		size_t had = p->config ? strlen(p->config) : 0;
		size_t add = strlen("mangohud: \n") + strlen(k->s->mangohud_version) + 1;
		char *o = realloc(p->config, had + add);
		if (o) {
			snprintf(o + had, add, "mangohud: %s\n", k->s->mangohud_version);
			p->config = o;
		}
	}
	k->c->r.config = p->config;
	return 0;
}

int run_collect(const struct run_collect_spec *s, struct run_collected *c, char *errmsg,
                size_t errmsg_size)
{
	memset(c, 0, sizeof *c);
	struct priv *p = calloc(1, sizeof *p);
	if (!p)
		return -ENOMEM;
	c->priv = p;
	c->r.exit_status = -1;
	struct collection k = { .s = s, .c = c, .p = p, .errmsg = errmsg, .errmsg_size = errmsg_size };
	int rc = step_frames_load(&k);
	c->no_frames = true;
	if (rc == 0 && p->frames && (rc = step_frame_rows(&k)) == 0)
		rc = step_frame_metrics(&k);
	if (rc == 0)
		rc = step_log_load(&k);
	if (rc == 0 && p->log && (rc = step_log_rows(&k)) == 0)
		rc = step_log_metrics(&k);
	if (rc == 0)
		rc = step_shots_config(&k);
	if (rc == 0 && (rc = store_samples(c, s)) == 0)
		sampler_metrics(c, s);

	free(k.frames_path);
	free(k.renderer_log);
	free(k.stderr_log);
	free(k.log_text);
	free(k.err_text);
	if (rc == 0)
		return 0;
	run_collected_finish(c);
	if (rc == -ENOMEM)
		run_errf(errmsg, errmsg_size, rc, "out of memory collecting the run");
	return rc;
}
