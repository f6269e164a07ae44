/* cmd-show: `rxdeck show [CAMPAIGN]` and `rxdeck show CAMPAIGN/N`, what the
 * database knows about a campaign (host, builds, arms, every run with its
 * state and void reason) or about one run (times, folder, renderer
 * configuration, every metric, shots, samples, matched log lines).  It owns
 * these two text layouts; the comparison table is `rxdeck report`'s. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "cmd.h"
#include "report/report.h"
#include "results-db/db.h"
#include "run/run.h"

#define COMMAND "rxdeck show"

static void when(int64_t unix_ms, char *buf, size_t size)
{
	time_t t = (time_t)(unix_ms / 1000);
	struct tm tm;
	if (unix_ms > 0 && localtime_r(&t, &tm))
		strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm);
	else
		snprintf(buf, size, "-");
}

static const char *or_dash(const char *s)
{
	return s && *s ? s : "-";
}

static double metric(struct db *db, int64_t run, const char *name)
{
	double v;
	return db_metric_get(db, run, name, &v) == 0 ? v : NAN;
}

static void run_label(const struct db_run *r, char *buf, size_t size)
{
	if (r->is_warmup)
		snprintf(buf, size, "warm-up");
	else
		snprintf(buf, size, "%d", r->round);
}

/* The host's facts as the campaign recorded them: the start's (key value,
 * a few to a line; a fact the host did not have, stored as null, left out,
 * as the run file and the HTML page leave it), then each resume's changes. */
static void print_host_facts(struct db *db, int64_t id)
{
	struct db_host_facts *h = NULL;
	size_t n = 0;
	if (db_host_facts_list(db, id, &h, &n) < 0 || n == 0) {
		free(h);
		return;
	}
	char t[32];
	when(h[0].at_unix_ms, t, sizeof t);
	printf("\nhost facts at the start (%s):\n", t);
	json_t *o = json_loads(h[0].facts, 0, NULL);
	const char *key;
	json_t *v;
	int col = 0;
	json_object_foreach(o, key, v) {
		if (json_is_null(v))
			continue;
		char *val = json_is_string(v) ? strdup(json_string_value(v))
		                              : json_dumps(v, JSON_ENCODE_ANY);
		int len = (int)(strlen(key) + (val ? strlen(val) : 1) + 3);
		if (col && col + len > 96) {
			putchar('\n');
			col = 0;
		}
		col += printf("%s%s %s", col ? ", " : "  ", key, val ? val : "?");
		free(val);
	}
	if (col)
		putchar('\n');
	json_decref(o);
	for (size_t i = 1; i < n; i++) {
		when(h[i].at_unix_ms, t, sizeof t);
		printf("changed at the resume of %s:\n", t);
		const char *line = h[i].changes ? h[i].changes : "";
		while (line && *line) {
			const char *nl = strchr(line, '\n');
			printf("  %.*s\n", nl ? (int)(nl - line) : (int)strlen(line), line);
			line = nl ? nl + 1 : NULL;
		}
	}
	free(h);
}

/* The warm-up runs as the campaign holds them (the plan's warmup = each
 * gives one of each arm, first one), ending the line. */
static void print_warmups(const struct db_campaign *c, size_t na, const struct db_run *r,
                          size_t nr)
{
	size_t n = 0;
	for (size_t i = 0; i < nr; i++)
		n += r[i].is_warmup;
	if (n > 1 && n == na)
		printf(", after a warm-up run of each arm (%zu)\n", n);
	else if (n > 1)
		printf(", after %zu warm-up runs\n", n);
	else if (n == 1)
		printf(", after a warm-up run\n");
	else
		printf("%s\n", c->warmup ? ", warm-up runs first" : "");
}

static int show_campaign(struct db *db, int64_t id)
{
	struct db_campaign *c;
	struct db_build *b = NULL;
	struct db_arm *a = NULL;
	struct db_run *r = NULL;
	size_t nb, na, nr;
	if (db_campaign_get(db, id, &c) < 0)
		goto fail;
	if (db_build_list(db, id, &b, &nb) < 0 || db_arm_list(db, id, &a, &na) < 0 ||
	    db_run_list(db, id, &r, &nr) < 0) {
		free(c);
		goto fail;
	}
	char t1[32], t2[32];
	when(c->created_unix_ms, t1, sizeof t1);
	when(c->finished_unix_ms, t2, sizeof t2);
	printf("campaign %s (id %" PRId64 "), %s\n", c->name, c->id, db_campaign_status_name(c->status));
	printf("created %s, finished %s\n", t1, t2);
	printf("host %s (%s), %s, kernel %s\n", or_dash(c->host), or_dash(c->device_model), or_dash(c->os),
	       or_dash(c->kernel));
	printf("CPU %s, memory %.1f GiB\n", or_dash(c->cpu), (double)c->memory_B / (1024.0 * 1024 * 1024));
	printf("GPU %s, driver %s, Mesa %s\n", or_dash(c->gpu), or_dash(c->driver), or_dash(c->mesa));
	printf("route %s, window %g-%g s; order %s, %d round%s", or_dash(c->route_name),
	       c->window_start_s, c->window_end_s, or_dash(c->order), c->rounds,
	       c->rounds == 1 ? "" : "s");
	print_warmups(c, na, r, nr);
	if (c->notes)
		printf("notes: %s\n", c->notes);
	if (c->status == DB_CAMPAIGN_DONE) {
		char why[160] = "", msg[256] = "";
		bool stored = false;
		if (report_stop_reason(db, id, why, sizeof why, &stored, msg, sizeof msg) == 0 && why[0])
			printf("stopped: %s%s\n", why, stored ? "" : " (derived from the data: the "
			       "campaign finished before its stop was stored)");
	}
	if (c->status == DB_CAMPAIGN_OPEN) {
		struct run_eta eta;
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		int64_t now = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
		if (run_eta_compute(r, nr, c->rounds, 0, now, &eta) == 0 && eta.runs_left) {
			char line[256];
			run_eta_format(&eta, now, line, sizeof line);
			printf("progress: %s%s\n", line,
			       eta.playing ? "" : "; no run is playing now ('rxdeck resume' goes on)");
		}
	}
	print_host_facts(db, id);
	printf("\nbuilds:\n");
	for (size_t i = 0; i < nb; i++)
		printf("  %-12s %s\n  %-12s commit %s, sha256 %s\n", b[i].label, or_dash(b[i].path), "",
		       or_dash(b[i].commit), or_dash(b[i].sha256));
	printf("\narms:\n");
	for (size_t i = 0; i < na; i++) {
		const char *build = "-";
		for (size_t k = 0; k < nb; k++)
			if (b[k].id == a[i].build_id)
				build = b[k].label;
		printf("  %c  %-40s build %s\n", a[i].letter, or_dash(a[i].label), build);
		const char *env = a[i].env && *a[i].env ? a[i].env : "(nothing set)";
		while (env) {
			const char *nl = strchr(env, '\n');
			printf("       %.*s\n", nl ? (int)(nl - env) : (int)strlen(env), env);
			env = nl ? nl + 1 : NULL;
		}
	}
	printf("\nruns:\n  %4s %3s %-7s %-7s %4s %8s %9s %11s  %s\n", "pos", "arm", "round", "state",
	       "exit", "time", "real fps", "rb wait ms", "void reason");
	for (size_t i = 0; i < nr; i++) {
		char round[16], dur[16] = "-", fps[16] = "-", rb[16] = "-", ex[16] = "-";
		run_label(&r[i], round, sizeof round);
		if (r[i].end_unix_ms > 0 && r[i].start_unix_ms > 0)
			snprintf(dur, sizeof dur, "%.1fs", (double)(r[i].end_unix_ms - r[i].start_unix_ms) / 1e3);
		double f = metric(db, r[i].id, "real_fps"), w = metric(db, r[i].id, "rb_wait_ms");
		if (isfinite(f))
			snprintf(fps, sizeof fps, "%.2f", f);
		if (isfinite(w))
			snprintf(rb, sizeof rb, "%.3f", w);
		if (r[i].exit_status >= 0)
			snprintf(ex, sizeof ex, "%d", r[i].exit_status);
		printf("  %4d %3c %-7s %-7s %4s %8s %9s %11s  %s\n", r[i].position, r[i].arm_letter, round,
		       db_run_status_name(r[i].status), ex, dur, fps, rb,
		       r[i].void_reason ? r[i].void_reason : "");
	}
	free(c);
	free(b);
	free(a);
	free(r);
	return RXDECK_EXIT_OK;
fail:
	cli_error(COMMAND, "%s", db_errmsg(db));
	free(b);
	free(a);
	free(r);
	return RXDECK_EXIT_FAILURE;
}

static void print_metrics(struct db *db, int64_t run_id)
{
	struct db_metric *m;
	size_t nm;
	if (db_metrics_read(db, run_id, &m, &nm) != 0)
		return;
	printf("metrics (%zu):\n", nm);
	for (size_t i = 0; i < nm; i++)
		printf("  %-26s %.6g\n", m[i].name, m[i].value);
	free(m);
}

static void print_shots(struct db *db, int64_t run_id)
{
	struct db_shot *s;
	size_t ns;
	if (db_shots_read(db, run_id, &s, &ns) != 0)
		return;
	printf("shots (%zu):\n", ns);
	for (size_t i = 0; i < ns; i++)
		printf("  %-20s luma %6.2f  checksum %s  %s\n", s[i].name, s[i].luma, or_dash(s[i].checksum),
		       or_dash(s[i].path));
	free(s);
}

/* Per reading: how many samples have it, and its range. */
static void print_samples(struct db *db, int64_t run_id)
{
	struct db_sample *sm;
	size_t nsm;
	if (db_samples_read(db, run_id, NULL, &sm, &nsm) != 0)
		return;
	printf("samples (%zu readings):\n", nsm);
	for (size_t i = 0; i < nsm; i++) {
		bool seen = false;
		for (size_t k = 0; k < i && !seen; k++)
			seen = strcmp(sm[k].name, sm[i].name) == 0;
		if (seen)
			continue;
		size_t present = 0, total = 0;
		double lo = INFINITY, hi = -INFINITY;
		for (size_t k = i; k < nsm; k++) {
			if (strcmp(sm[k].name, sm[i].name) != 0)
				continue;
			total++;
			if (!sm[k].absent) {
				present++;
				lo = sm[k].value < lo ? sm[k].value : lo;
				hi = sm[k].value > hi ? sm[k].value : hi;
			}
		}
		if (present)
			printf("  %-24s %zu of %zu present, %.6g to %.6g\n", sm[i].name, present, total, lo, hi);
		else
			printf("  %-24s absent on this host (%zu readings)\n", sm[i].name, total);
	}
	free(sm);
}

/* The first five matched log lines. */
static void print_log_lines(struct db *db, int64_t run_id)
{
	struct db_log_line *l;
	size_t nl;
	if (db_log_lines_read(db, run_id, NULL, &l, &nl) != 0)
		return;
	printf("matched log lines: %zu\n", nl);
	for (size_t i = 0; i < nl && i < 5; i++)
		printf("  [%s] %s\n", l[i].pattern, l[i].text);
	if (nl > 5)
		printf("  ... %zu more\n", nl - 5);
	free(l);
}

static int show_run(struct db *db, const char *campaign_name, int64_t campaign_id, int position)
{
	struct db_run *runs;
	size_t n;
	if (db_run_list(db, campaign_id, &runs, &n) < 0) {
		cli_error(COMMAND, "%s", db_errmsg(db));
		return RXDECK_EXIT_FAILURE;
	}
	const struct db_run *r = NULL;
	for (size_t i = 0; i < n; i++)
		if (runs[i].position == position)
			r = &runs[i];
	if (!r) {
		cli_error(COMMAND, "campaign '%s' has no run %d (it has %zu)", campaign_name, position, n);
		free(runs);
		return RXDECK_EXIT_FAILURE;
	}
	struct db_arm *arms;
	size_t na;
	const char *label = "-";
	if (db_arm_list(db, campaign_id, &arms, &na) < 0)
		arms = NULL, na = 0;
	for (size_t i = 0; i < na; i++)
		if (arms[i].id == r->arm_id)
			label = or_dash(arms[i].label);
	char round[16], t1[32], t2[32];
	run_label(r, round, sizeof round);
	when(r->start_unix_ms, t1, sizeof t1);
	when(r->end_unix_ms, t2, sizeof t2);
	printf("run %d of campaign %s (run id %" PRId64 "): arm %c (%s), %s%s, %s\n", r->position,
	       campaign_name, r->id, r->arm_letter, label, r->is_warmup ? "" : "round ", round,
	       db_run_status_name(r->status));
	if (r->void_reason)
		printf("void: %s\n", r->void_reason);
	char ex[16] = "-";
	if (r->exit_status >= 0)
		snprintf(ex, sizeof ex, "%d", r->exit_status);
	printf("started %s, ended %s, exit status %s\n", t1, t2, ex);
	printf("folder %s\n", or_dash(r->run_dir));
	if (r->config) {
		printf("renderer:\n");
		for (const char *l = r->config; l && *l;) {
			const char *nl = strchr(l, '\n');
			printf("  %.*s\n", nl ? (int)(nl - l) : (int)strlen(l), l);
			l = nl ? nl + 1 : NULL;
		}
	}

	print_metrics(db, r->id);
	print_shots(db, r->id);
	print_samples(db, r->id);
	print_log_lines(db, r->id);
	free(arms);
	free(runs);
	return RXDECK_EXIT_OK;
}

int cmd_show(int argc, char **argv, struct cmd_context *ctx)
{
	const struct cli_option options[] = {
		OPT_DB(&ctx->db_path),
		OPT_END,
	};
	const struct cli cli = {
		.command = COMMAND,
		.synopsis = "[CAMPAIGN | CAMPAIGN/N] [--db PATH]",
		.summary = "Shows a campaign (host, builds, arms, every run with its state, time, real\n"
		           "fps, readback wait and void reason) or, as CAMPAIGN/N, its run at position N\n"
		           "(times, folder, the renderer's configuration, every metric, the shots, the\n"
		           "samplers' readings and the matched log lines).  CAMPAIGN is a name or an id;\n"
		           "with none, the newest campaign.",
		.options = options,
	};
	int npos = 0;
	int exit_code;
	if (!cmd_parse(ctx, &cli, argc, argv, 1, "one campaign, or one run as CAMPAIGN/N", &npos,
	               &exit_code))
		return exit_code;
	char name[512] = "";
	int position = 0;
	if (npos && cmd_parse_run_ref(COMMAND, argv[1], name, sizeof name, &position) < 0)
		return RXDECK_EXIT_USAGE;
	/* none named: the newest, as report, plot and tested take it */
	if (cmd_open_db(ctx, CMD_DB_READ_ONLY) < 0 ||
	    cmd_find_campaign(ctx, npos ? name : NULL) < 0)
		return RXDECK_EXIT_FAILURE;
	int64_t id = ctx->campaign_id;
	return position ? show_run(ctx->db, name, id, position) : show_campaign(ctx->db, id);
}
