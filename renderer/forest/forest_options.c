/* forest_options: rxdeck-forest's command line and environment, as one
 * option table that both the parser and --help are made from.  It owns
 * validating every value (with the option and value named in the error);
 * what the values do is the game's. */
#include "forest.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum opt_id {
	OPT_SEED = 1,
	OPT_SIZE,
	OPT_DRAWS,
	OPT_SCALE,
	OPT_ALU,
	OPT_CULL_ALU,
	OPT_JOBS,
	OPT_JOB_MS,
	OPT_POLL_US,
	OPT_SWITCHES,
	OPT_HUD_EVERY,
	OPT_IN_FLIGHT,
	OPT_VIEW,
	OPT_PAD,
	OPT_FRAMES,
	OPT_SECONDS,
	OPT_CHECKSUMS,
	OPT_LOG_EVERY,
	OPT_WINDOW,
	OPT_HELP,
	OPT_VERSION,
};

struct opt {
	const char *name;
	const char *arg;   /* NULL for a flag */
	const char *help;
	int id;
};

static const struct opt table[] = {
	{ "seed", "N", "scene seed (default 1)", OPT_SEED },
	{ "size", "WxH", "render size in pixels (default 1280x720; 64x64 to 8192x8192)", OPT_SIZE },
	{ "draws", "N", "scene draws a frame (default 1200; 64 to 60000)", OPT_DRAWS },
	{ "scale", "F", "scene density multiplier (default 1; 0.1 to 16)", OPT_SCALE },
	{ "alu", "N", "extra ALU iterations per fragment of scene draws (default 8)", OPT_ALU },
	{ "cull-alu", "N", "extra ALU iterations per instance in the culling (default 64)", OPT_CULL_ALU },
	{ "jobs", "N", "job threads (default 2; 1 to 16)", OPT_JOBS },
	{ "job-ms", "MS", "CPU time each job thread spends a frame after its read (default 3)", OPT_JOB_MS },
	{ "poll-us", "US", "sleep between polls of the camera block (default 200)", OPT_POLL_US },
	{ "switches", "N", "colour-target switches a frame (default 8; even, 2 to 256)", OPT_SWITCHES },
	{ "hud-every", "N", "frames between HUD refreshes, which read the camera block's page (default 4)", OPT_HUD_EVERY },
	{ "in-flight", "N", "submissions in flight at most (default 2; 1 or 2)", OPT_IN_FLIGHT },
	{ "view", "M", "view distance in metres (default 60; 10 to 400)", OPT_VIEW },
	{ "pad", "SPEC", "auto, none, /dev/input/eventN or socket:PATH (default auto, or $RXDECK_PAD)", OPT_PAD },
	{ "frames", "N", "stop after N real frames", OPT_FRAMES },
	{ "seconds", "S", "stop after S seconds", OPT_SECONDS },
	{ "checksums", "FILE", "write `frame,checksum` (FNV-1a 64 of the RGBA pixels) of every real frame", OPT_CHECKSUMS },
	{ "log-every", "N", "frames between `forest: frame ... position` lines (default 60; 0: never)", OPT_LOG_EVERY },
	{ "window", NULL, "show the frames in an X window too (DISPLAY)", OPT_WINDOW },
	{ "help", NULL, "show this help", OPT_HELP },
	{ "version", NULL, "show the version", OPT_VERSION },
};

#define N_OPTS (sizeof table / sizeof table[0])

void forest_options_default(struct forest_options *o)
{
	*o = (struct forest_options){
		.seed = 1,
		.width = 1280,
		.height = 720,
		.draws = 1200,
		.scale = 1.0,
		.alu = 8,
		.cull_alu = 64,
		.jobs = 2,
		.job_ms = 3.0,
		.poll_us = 200,
		.switches = 8,
		.hud_every = 4,
		.in_flight = 2,
		.view_m = 60.0,
		.pad = "auto",
		.log_every = 60,
		.framegen = 1,
		.shot_dir = ".",
	};
}

void forest_options_help(FILE *f)
{
	fputs("usage: rxdeck-forest [OPTION]...\n"
	      "The rxdeck demo game: a forest walk rendered by librxvk, offscreen.\n\n", f);
	for (size_t i = 0; i < N_OPTS; i++) {
		char left[40];
		snprintf(left, sizeof left, "--%s%s%s", table[i].name, table[i].arg ? " " : "",
		         table[i].arg ? table[i].arg : "");
		fprintf(f, "  %-22s %s\n", left, table[i].help);
	}
	fputs("\nenvironment:\n"
	      "  RX_FRAMEGEN=2|3        presented frames per real frame (generated frames are `shown`)\n"
	      "  RX_CONTROL=FIFO        control channel: `shot NAME` lines\n"
	      "  RX_SHOT_DIR=DIR        where screenshots go (default: the working directory)\n"
	      "  RXDECK_PAD=SPEC        the pad when --pad is not given\n"
	      "  RX_FRAME_LOG, RX_LOG, RX_VK_*   the renderer's (see docs/renderer.md)\n"
	      "\nsignals: SIGUSR1 takes a screenshot named by its frame number; SIGTERM and SIGINT stop cleanly.\n"
	      "exit status: 0 clean stop, 1 failure, 2 bad usage, 3 a readback returned data it must not,\n"
	      "             or the validation layer reported a message, 69 no usable Vulkan device.\n", f);
}

static int fail(char *err, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, size, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	if (!s[0] || s[0] == '-' || s[0] == '+' || s[0] == ' ')
		return -EINVAL;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_double(const char *s, double min, double max, double *out)
{
	if (!s[0] || s[0] == ' ')
		return -EINVAL;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int u32_opt(const char *name, const char *v, uint32_t min, uint32_t max, uint32_t *out,
                   char *err, size_t size)
{
	uint64_t x;
	if (parse_u64(v, min, max, &x) < 0)
		return fail(err, size, "--%s '%s': expected a whole number from %u to %u", name, v, min, max);
	*out = (uint32_t)x;
	return 0;
}

static int apply(struct forest_options *o, int id, const char *v, char *err, size_t size)
{
	uint64_t x;
	switch (id) {
	case OPT_SEED:
		if (parse_u64(v, 0, UINT64_MAX, &x) < 0)
			return fail(err, size, "--seed '%s': expected a whole number from 0 to %llu", v,
			            (unsigned long long)UINT64_MAX);
		o->seed = x;
		return 0;
	case OPT_SIZE: {
		const char *xp = strchr(v, 'x');
		char w[32];
		uint64_t wv, hv;
		if (!xp || (size_t)(xp - v) >= sizeof w)
			return fail(err, size, "--size '%s': expected WIDTHxHEIGHT, e.g. 1280x720", v);
		memcpy(w, v, (size_t)(xp - v));
		w[xp - v] = '\0';
		if (parse_u64(w, 64, 8192, &wv) < 0 || parse_u64(xp + 1, 64, 8192, &hv) < 0)
			return fail(err, size, "--size '%s': width and height must be whole numbers from 64 to 8192",
			            v);
		o->width = (uint32_t)wv;
		o->height = (uint32_t)hv;
		return 0;
	}
	case OPT_DRAWS:
		return u32_opt("draws", v, 64, 60000, &o->draws, err, size);
	case OPT_SCALE:
		if (parse_double(v, 0.1, 16.0, &o->scale) < 0)
			return fail(err, size, "--scale '%s': expected a number from 0.1 to 16", v);
		return 0;
	case OPT_ALU:
		return u32_opt("alu", v, 0, 1000000, &o->alu, err, size);
	case OPT_CULL_ALU:
		return u32_opt("cull-alu", v, 0, 10000000, &o->cull_alu, err, size);
	case OPT_JOBS:
		return u32_opt("jobs", v, 1, 16, &o->jobs, err, size);
	case OPT_JOB_MS:
		if (parse_double(v, 0.0, 1000.0, &o->job_ms) < 0)
			return fail(err, size, "--job-ms '%s': expected milliseconds from 0 to 1000", v);
		return 0;
	case OPT_POLL_US:
		return u32_opt("poll-us", v, 1, 1000000, &o->poll_us, err, size);
	case OPT_SWITCHES:
		if (u32_opt("switches", v, 2, 256, &o->switches, err, size) < 0)
			return -EINVAL;
		if (o->switches % 2)
			return fail(err, size, "--switches '%s': must be even (each switch away comes back)", v);
		return 0;
	case OPT_HUD_EVERY:
		return u32_opt("hud-every", v, 1, 1000000, &o->hud_every, err, size);
	case OPT_IN_FLIGHT:
		return u32_opt("in-flight", v, 1, 2, &o->in_flight, err, size);
	case OPT_VIEW:
		if (parse_double(v, 10.0, 400.0, &o->view_m) < 0)
			return fail(err, size, "--view '%s': expected metres from 10 to 400", v);
		return 0;
	case OPT_PAD:
		if (strcmp(v, "auto") && strcmp(v, "none") && v[0] != '/' &&
		    (strncmp(v, "socket:", 7) || !v[7]))
			return fail(err, size, "--pad '%s': expected auto, none, a device path or socket:PATH", v);
		o->pad = v;
		return 0;
	case OPT_FRAMES:
		if (parse_u64(v, 1, UINT64_MAX, &x) < 0)
			return fail(err, size, "--frames '%s': expected a whole number of at least 1", v);
		o->frames = x;
		return 0;
	case OPT_SECONDS:
		if (parse_double(v, 0.001, 1e9, &o->seconds) < 0)
			return fail(err, size, "--seconds '%s': expected a positive number", v);
		return 0;
	case OPT_CHECKSUMS:
		if (!v[0])
			return fail(err, size, "--checksums: expected a file name");
		o->checksums = v;
		return 0;
	case OPT_LOG_EVERY:
		return u32_opt("log-every", v, 0, 1000000000, &o->log_every, err, size);
	case OPT_WINDOW:
		o->window = true;
		return 0;
	}
	return fail(err, size, "unknown option id %d", id);
}

int forest_options_parse(int argc, char **argv, struct forest_options *o, char *err, size_t err_size)
{
	forest_options_default(o);
	const char *env_pad = getenv("RXDECK_PAD");
	if (env_pad && env_pad[0] && apply(o, OPT_PAD, env_pad, err, err_size) < 0) {
		char inner[256];
		snprintf(inner, sizeof inner, "%s", err);
		return fail(err, err_size, "RXDECK_PAD: %s", inner);
	}
	const char *fg = getenv("RX_FRAMEGEN");
	if (fg && fg[0]) {
		uint64_t x;
		if (parse_u64(fg, 1, 3, &x) < 0)
			return fail(err, err_size, "RX_FRAMEGEN='%s': expected 1, 2 or 3", fg);
		o->framegen = (uint32_t)x;
	}
	const char *control = getenv("RX_CONTROL");
	if (control && control[0])
		o->control = control;
	const char *shots = getenv("RX_SHOT_DIR");
	if (shots && shots[0])
		o->shot_dir = shots;

	struct option longs[N_OPTS + 1];
	for (size_t i = 0; i < N_OPTS; i++)
		longs[i] = (struct option){ table[i].name, table[i].arg ? required_argument : no_argument, NULL,
		                            table[i].id + 256 };
	longs[N_OPTS] = (struct option){ 0 };
	optind = 0; /* glibc: start over, so the parser can run more than once */
	opterr = 0;
	for (;;) {
		int idx = -1;
		int c = getopt_long(argc, argv, ":", longs, &idx);
		if (c == -1)
			break;
		if (c == '?') {
			const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
			return fail(err, err_size, "unknown option '%s' (see --help)", arg);
		}
		if (c == ':') {
			const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
			return fail(err, err_size, "option '%s' needs a value", arg);
		}
		int id = c - 256;
		if (id == OPT_HELP) {
			forest_options_help(stdout);
			return 1;
		}
		if (id == OPT_VERSION) {
			printf("rxdeck-forest %s\n", FOREST_VERSION);
			return 1;
		}
		if (apply(o, id, optarg, err, err_size) < 0)
			return -EINVAL;
	}
	if (optind < argc)
		return fail(err, err_size, "unexpected argument '%s' (see --help)", argv[optind]);
	if (o->draws < 4 * o->switches)
		return fail(err, err_size, "--draws %u is too few for --switches %u (at least 4 draws a switch)",
		            o->draws, o->switches);
	return 0;
}
