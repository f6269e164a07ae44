/* cmd-frames: `rxdeck frames FILE... [--window START END] [--json]`, the
 * metrics of frame logs (the renderer's CSV, MangoHud's or PresentMon's)
 * without a campaign, each with the format its header showed.  It owns the command line and the two output forms: a table,
 * and the JSON array docs/metrics.md documents.  Parsing is collect's,
 * the metrics are stats'. */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "collect/collect.h"
#include "stats/stats.h"
#include "run/run.h"

#define COMMAND "rxdeck frames"

enum { OPT_WINDOW = 1, OPT_T0 };

struct opts {
	bool window;
	double window_s[2];
	bool json;
	bool have_t0;
	int64_t t0_ns;
};

static int on_option(void *ctx, int id, char **args)
{
	struct opts *o = ctx;
	switch (id) {
	case OPT_WINDOW:
		for (int i = 0; i < 2; i++) {
			if (collect_parse_duration_s(args[i], &o->window_s[i]) != 0) {
				cli_error(COMMAND, "bad window time '%s': expected a number of seconds with 's' or 'ms' (30s, 500ms)",
				          args[i]);
				return -EINVAL;
			}
		}
		if (o->window_s[0] < 0) {
			cli_error(COMMAND, "bad window '%s %s': the start is before t0; give 0s or later",
			          args[0], args[1]);
			return -EINVAL;
		}
		if (!(o->window_s[0] < o->window_s[1])) {
			cli_error(COMMAND, "bad window '%s %s': the start must come before the end",
			          args[0], args[1]);
			return -EINVAL;
		}
		o->window = true;
		return 0;
	case OPT_T0: {
		char *end;
		errno = 0;
		long long v = strtoll(args[0], &end, 10);
		if (errno || end == args[0] || *end) {
			cli_error(COMMAND, "bad t0 '%s': expected an integer number of ns", args[0]);
			return -EINVAL;
		}
		o->t0_ns = v;
		o->have_t0 = true;
		return 0;
	}
	}
	return -EINVAL;
}

/* --source's names, in the order of sources[]; none given: from the header */
static const char *const source_names[] = { "rxvk", "mangohud", "presentmon", NULL };
static const enum collect_source sources[] = { COLLECT_SOURCE_RXVK, COLLECT_SOURCE_MANGOHUD,
	                                       COLLECT_SOURCE_PRESENTMON };

struct result {
	const char *file;
	struct collect_frames *frames;
	struct stats_run_metrics m;
	bool ok;
	int64_t t0_ns;
	char error[512];
};

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *result_json(const struct result *r)
{
	json_t *o = json_object();
	json_object_set_new(o, "file", json_string(r->file));
	if (!r->ok) {
		json_object_set_new(o, "error", json_string(r->error));
		return o;
	}
	const struct stats_run_metrics *m = &r->m;
	json_object_set_new(o, "source", json_string(collect_source_name(r->frames->source)));
	json_object_set_new(o, "format", json_string(r->frames->format));
	json_object_set_new(o, "t0_ns", json_integer(r->t0_ns));
	json_object_set_new(o, "frames", json_integer((json_int_t)m->frames));
	json_object_set_new(o, "real_frames", json_integer((json_int_t)m->real_frames));
	json_t *w = json_array();
	json_array_append_new(w, num(m->window_s[0]));
	json_array_append_new(w, num(m->window_s[1]));
	json_object_set_new(o, "window_s", w);
	json_object_set_new(o, "real_fps", num(m->real_fps));
	json_object_set_new(o, "shown_fps", num(m->shown_fps));
	json_object_set_new(o, "p50_ms", num(m->p50_ms));
	json_object_set_new(o, "p95_ms", num(m->p95_ms));
	json_object_set_new(o, "p99_ms", num(m->p99_ms));
	json_object_set_new(o, "low_1pct_fps", num(m->low_1pct_fps));
	json_object_set_new(o, "low_01pct_fps", num(m->low_01pct_fps));
	json_object_set_new(o, "over_100ms", json_integer((json_int_t)m->over_100ms));
	json_object_set_new(o, "rb_wait_ms", num(m->rb_wait_ms));
	json_object_set_new(o, "memsync_ms", num(m->memsync_ms));
	json_object_set_new(o, "draws", num(m->draws));
	json_object_set_new(o, "sampled", json_boolean(m->sampled));
	json_object_set_new(o, "broken_lines", json_integer((json_int_t)r->frames->broken_lines));
	json_t *ws = json_array();
	for (size_t i = 0; i < m->warnings.n; i++)
		json_array_append_new(ws, json_string(m->warnings.v[i]));
	json_object_set_new(o, "warnings", ws);
	return o;
}

static void cell(char *buf, size_t size, double v, int decimals)
{
	if (isfinite(v))
		snprintf(buf, size, "%.*f", decimals, v);
	else
		snprintf(buf, size, "-");
}

static void print_table(const struct result *r, size_t n)
{
	int fw = 4, sw = 6;
	for (size_t i = 0; i < n; i++) {
		if ((int)strlen(r[i].file) > fw)
			fw = (int)strlen(r[i].file);
		if (r[i].ok && (int)strlen(r[i].frames->format) > sw)
			sw = (int)strlen(r[i].frames->format);
	}
	printf("%-*s  %-*s  %8s  %17s  %8s  %9s  %8s  %8s  %8s  %7s  %10s  %10s  %7s\n", fw,
	       "file", sw, "format", "frames", "window s", "real fps", "shown fps", "p50 ms", "p95 ms",
	       "p99 ms", ">100 ms", "rb wait ms", "memsync ms", "draws");
	for (size_t i = 0; i < n; i++) {
		if (!r[i].ok) {
			printf("%-*s  (not read: see the error above)\n", fw, r[i].file);
			continue;
		}
		const struct stats_run_metrics *m = &r[i].m;
		char win[40], c[8][24];
		snprintf(win, sizeof win, "%.3f-%.3f", m->window_s[0], m->window_s[1]);
		cell(c[0], sizeof c[0], m->real_fps, 2);
		cell(c[1], sizeof c[1], m->shown_fps, 2);
		cell(c[2], sizeof c[2], m->p50_ms, 2);
		cell(c[3], sizeof c[3], m->p95_ms, 2);
		cell(c[4], sizeof c[4], m->p99_ms, 2);
		cell(c[5], sizeof c[5], m->rb_wait_ms, 3);
		cell(c[6], sizeof c[6], m->memsync_ms, 3);
		cell(c[7], sizeof c[7], m->draws, 0);
		printf("%-*s  %-*s  %8" PRIu64 "  %17s  %8s  %9s  %8s  %8s  %8s  %7" PRIu64 "  %10s  %10s  %7s\n",
		       fw, r[i].file, sw, r[i].frames->format, m->frames, win, c[0],
		       c[1], c[2], c[3], c[4], m->over_100ms, c[5], c[6], c[7]);
	}
	for (size_t i = 0; i < n; i++) {
		if (!r[i].ok || r[i].m.warnings.n == 0)
			continue;
		printf("\nwarnings for %s:\n", r[i].file);
		for (size_t k = 0; k < r[i].m.warnings.n; k++)
			printf("  %s\n", r[i].m.warnings.v[k]);
	}
}

int cmd_frames(int argc, char **argv, struct cmd_context *ctx)
{
	struct opts o = { 0 };
	int source = -1;
	const struct cli_option options[] = {
		OPT_CALLBACK('w', "window", 2, "START END", "measure over (START, END] after t0, e.g. 30s 110s or 500ms 2s", OPT_WINDOW),
		OPT_CALLBACK(0, "t0", 1, "NS", "t0 on the log's clock in ns (default: the first frame)", OPT_T0),
		{ .name = "source", .nargs = 1, .args = "rxvk|mangohud|presentmon",
		  .help = "read the files as this format (default: from the header)", .type = CLI_CHOICE,
		  .value = &source, .choices = source_names, .expect = "'rxvk', 'mangohud' or 'presentmon'" },
		OPT_BOOL(0, "json", &o.json, "print a JSON array, one object per file"),
		OPT_END,
	};
	const struct cli cli = {
		.command = COMMAND,
		.synopsis = "FILE... [--window START END] [--t0 NS] [--source rxvk|mangohud|presentmon] [--json]",
		.summary = "Prints the frame metrics of frame logs (the renderer's RX_FRAME_LOG CSV,\n"
		           "MangoHud CSV logs or PresentMon 1.x/2.x CSVs, told apart by their header,\n"
		           "the format column says which) without a campaign: real and\n"
		           "shown fps, nearest-rank p50/p95/p99 frame times, frames over 100 ms, and the\n"
		           "renderer's per-frame readback wait, memory sync and draws.  Without --window\n"
		           "the whole log is measured.  Times take 's' or 'ms' (30s, 500ms); docs/metrics.md\n"
		           "defines every number and the JSON keys.",
		.options = options,
		.on_option = on_option,
		.ctx = &o,
	};
	int npos = 0;
	int parse_exit;
	if (!cmd_parse(ctx, &cli, argc, argv, -1, NULL, &npos, &parse_exit))
		return parse_exit;
	if (npos == 0) {
		cli_error(COMMAND, "no frame log given (see --help)");
		return RXDECK_EXIT_USAGE;
	}
	struct result *res = calloc((size_t)npos, sizeof *res);
	if (!res) {
		cli_error(COMMAND, "out of memory");
		return RXDECK_EXIT_FAILURE;
	}
	int exit_code = RXDECK_EXIT_OK;
	for (int i = 0; i < npos; i++) {
		struct result *x = &res[i];
		x->file = argv[1 + i];
		struct collect_error err = { { 0 } };
		int rc = collect_frames_load(x->file, source < 0 ? COLLECT_SOURCE_AUTO : sources[source], &x->frames, &err);
		if (rc < 0) {
			snprintf(x->error, sizeof x->error, "%s", err.msg[0] ? err.msg : strerror(-rc));
		} else if (x->frames->n == 0 && x->frames->broken_lines > 0) {
			/* nothing to measure is not a measurement of nothing */
			snprintf(x->error, sizeof x->error, "%s: every row was rejected (%zu of %zu)",
			         x->file, x->frames->broken_lines,
			         x->frames->lines ? x->frames->lines - 1 : 0);
		} else {
			x->t0_ns = o.have_t0 ? o.t0_ns : x->frames->n ? x->frames->frames[0].present_ns : 0;
			rc = run_frame_metrics(x->frames, x->t0_ns, o.window ? o.window_s : NULL, &x->m);
			if (rc < 0)
				snprintf(x->error, sizeof x->error, "%s: cannot compute metrics: %s", x->file,
				         strerror(-rc));
			else
				x->ok = true;
		}
		if (!x->ok) {
			cli_error(COMMAND, "%s", x->error);
			/* why the rows were rejected */
			for (size_t k = 0; x->frames && k < x->frames->warnings.n; k++)
				fprintf(stderr, "  %s\n", x->frames->warnings.v[k]);
			exit_code = RXDECK_EXIT_FAILURE;
		}
	}
	if (o.json) {
		json_t *a = json_array();
		for (int i = 0; i < npos; i++)
			json_array_append_new(a, result_json(&res[i]));
		char *s = json_dumps(a, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
		if (s) {
			fputs(s, stdout);
			fputc('\n', stdout);
			free(s);
		} else {
			cli_error(COMMAND, "cannot write JSON: out of memory");
			exit_code = RXDECK_EXIT_FAILURE;
		}
		json_decref(a);
	} else {
		print_table(res, (size_t)npos);
	}
	if (fflush(stdout) != 0) {
		cli_error(COMMAND, "cannot write the output: %s", strerror(errno));
		exit_code = RXDECK_EXIT_FAILURE;
	}
	for (int i = 0; i < npos; i++) {
		stats_run_metrics_finish(&res[i].m);
		collect_frames_destroy(res[i].frames);
	}
	free(res);
	return exit_code;
}
