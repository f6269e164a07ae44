/* cmd-import: `rxdeck import CAMPAIGN ARM LOG... [--log GAMELOG]`, runs made
 * elsewhere (by hand, by another harness, an old Deck run, a Windows run
 * under PresentMon) added to a campaign, one run per frame log, so they sit
 * in the same table.  It owns the command line, the campaign made for them
 * when there is none of that name (its window from --window or --route),
 * the arm made when the campaign has none of that letter (a repeated
 * --label or --env must match the arm's), and the new runs' places (rounds,
 * positions: a log with a wall clock, PresentMon's --date_time, is
 * placed by it unless --position is given).  Reading the files and the
 * metrics are the collectors' (run_collect()).  Nothing is written unless every log can be imported:
 * the campaign, the arm and every run go in one transaction. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cmd.h"
#include "collect/collect.h"
#include "plan/plan.h"
#include "route/route.h"
#include "run/run.h"
#include "util/util.h"

#define COMMAND "rxdeck import"

enum { OPT_T0 = 1, OPT_ENV, OPT_WINDOW, OPT_MIN_COVERAGE };

struct opts {
	const char *log, *label, *collect, *route;
	int64_t round, position;   /* 0: not given */
	bool have_t0, have_window;
	int64_t t0_ns;
	double window_s[2];
	double min_coverage_pct;
	struct plan_strv env;
};

static int on_option(void *ctx, int id, char **args)
{
	struct opts *o = ctx;
	char *end;
	switch (id) {
	case OPT_T0: {
		errno = 0;
		long long v = strtoll(args[0], &end, 10);
		if (errno || end == args[0] || *end) {
			cli_error(COMMAND, "bad t0 '%s': expected a whole number of ns", args[0]);
			return -EINVAL;
		}
		o->t0_ns = v;
		o->have_t0 = true;
		return 0;
	}
	case OPT_WINDOW:
		for (int i = 0; i < 2; i++) {
			if (collect_parse_duration_s(args[i], &o->window_s[i]) != 0 ||
			    !isfinite(o->window_s[i]) || o->window_s[i] < 0) {
				cli_error(COMMAND, "bad window time '%s': expected seconds with 's' or 'ms' (30s, 500ms)",
				          args[i]);
				return -EINVAL;
			}
		}
		if (!(o->window_s[0] < o->window_s[1])) {
			cli_error(COMMAND, "bad window '%s %s': the start must come before the end", args[0],
			          args[1]);
			return -EINVAL;
		}
		o->have_window = true;
		return 0;
	case OPT_MIN_COVERAGE: {
		if (strcmp(args[0], "off") == 0) {
			o->min_coverage_pct = -1;
			return 0;
		}
		errno = 0;
		double v = strtod(args[0], &end);
		if (errno || end == args[0] || *end || !(v >= 0 && v <= 100)) {
			cli_error(COMMAND, "bad min-coverage '%s': expected a percentage from 0 to 100, or 'off'",
			          args[0]);
			return -EINVAL;
		}
		o->min_coverage_pct = v > 0 ? v : -1;
		return 0;
	}
	case OPT_ENV:
		if (plan_strv_setenv(&o->env, args[0]) < 0) {
			cli_error(COMMAND, "bad env '%s': expected KEY=VALUE", args[0]);
			return -EINVAL;
		}
		return 0;
	}
	return -EINVAL;
}

/* One frame log to import, and what it becomes. */
struct one {
	const char *path;          /* as given */
	char *abs, *dir;
	struct collect_frames *frames;
	struct run_collected col;
	int64_t t0_ns;
	bool has_wall;             /* the log's wall clock places the run */
	double wall_s[2];          /* the route's t0 and the last frame on it,
	                            * local seconds (collect.h, wall_start_ns) */
	int round, position;
	int64_t run_id;
};

/* What a new campaign is made of: the window, and the route when given. */
struct new_campaign {
	double window_s[2];
	struct route *route;
	char *route_text;
};

static int read_route(const struct opts *o, struct new_campaign *nc)
{
	struct util_diag re;
	int rc = route_load(o->route, &nc->route, &re);
	if (rc < 0) {
		fprintf(stderr, "%s: error: ", COMMAND);
		util_diag_print(&re, stderr);
		return rc;
	}
	int64_t a, b;
	route_window_ms(nc->route, &a, &b);
	nc->window_s[0] = (double)a / 1e3;
	nc->window_s[1] = (double)b / 1e3;
	if (o->have_window &&
	    (fabs(o->window_s[0] - nc->window_s[0]) > 1e-9 || fabs(o->window_s[1] - nc->window_s[1]) > 1e-9)) {
		cli_error(COMMAND, "--window %g s %g s is not route '%s''s window (%g s to %g s)", o->window_s[0],
		          o->window_s[1], o->route, nc->window_s[0], nc->window_s[1]);
		return -EINVAL;
	}
	size_t len;
	struct collect_error ce;
	rc = collect_read_file("route", o->route, &nc->route_text, &len, &ce);
	if (rc < 0)
		cli_error(COMMAND, "%s", ce.msg);
	return rc;
}

/* The arm's label and env as given must match an existing arm's. */
static int check_arm(const struct opts *o, const struct db_campaign *c, const struct db_arm *a)
{
	if (o->label && strcmp(o->label, a->label ? a->label : "") != 0) {
		cli_error(COMMAND, "campaign '%s' has an arm %c labelled '%s', not '%s' (leave --label out, or give its label)",
		          c->name, a->letter, a->label ? a->label : "", o->label);
		return -EINVAL;
	}
	if (o->env.n) {
		char *env = plan_strv_join(&o->env, "\n");
		if (!env)
			return -ENOMEM;
		bool same = strcmp(env, a->env ? a->env : "") == 0;
		free(env);
		if (!same) {
			cli_error(COMMAND, "campaign '%s' has an arm %c with another env (leave --env out, or give exactly its env)",
			          c->name, a->letter);
			return -EINVAL;
		}
	}
	return 0;
}

/* One import, step by step: the command line, what was read, what is
 * written.  Each step returns 0 to go on, or the command's exit code
 * after saying why. */
struct import {
	struct opts o;
	const char *campaign;
	char letter;
	size_t n_logs;
	struct one *logs;
	char *collect_path, *abs_game_log, *env;
	struct new_campaign nc;
	struct db *db;
	struct db_campaign *c;     /* the campaign (read back once made) */
	bool new_campaign;
	int64_t cid;
	struct db_arm *arms;
	size_t na;
	struct db_run *runs, *added;
	size_t nr;
	const struct db_arm *arm;  /* the existing arm; NULL: a new one */
	double window[2];
};

/* CAMPAIGN ARM LOG... and the options that go together. */
static int check_words(struct import *im, int npos, char **argv)
{
	if (npos < 3) {
		cli_error(COMMAND, "expected CAMPAIGN ARM LOG... (see --help)");
		return RXDECK_EXIT_USAGE;
	}
	const char *arm_s = argv[2];
	im->campaign = argv[1];
	im->n_logs = (size_t)npos - 2;
	if (strlen(arm_s) != 1 || arm_s[0] < 'A' || arm_s[0] > 'Z') {
		cli_error(COMMAND, "bad arm '%s': expected one capital letter, A to Z", arm_s);
		return RXDECK_EXIT_USAGE;
	}
	if (im->o.log && im->n_logs > 1) {
		cli_error(COMMAND, "--log goes with one frame log, not %zu", im->n_logs);
		return RXDECK_EXIT_USAGE;
	}
	if (im->o.collect && !im->o.log) {
		cli_error(COMMAND, "--collect goes with --log");
		return RXDECK_EXIT_USAGE;
	}
	im->letter = arm_s[0];
	return 0;
}

/* The frame logs, read first: nothing is written for a log that cannot
 * be read.  Each log's t0 on its own clock. */
static int read_logs(struct import *im, char **paths)
{
	if (!(im->logs = calloc(im->n_logs, sizeof *im->logs))) {
		cli_error(COMMAND, "out of memory");
		return RXDECK_EXIT_FAILURE;
	}
	for (size_t i = 0; i < im->n_logs; i++) {
		struct one *l = &im->logs[i];
		l->path = paths[i];
		struct collect_error ce;
		if (collect_frames_load(l->path, COLLECT_SOURCE_AUTO, &l->frames, &ce) < 0) {
			cli_error(COMMAND, "%s", ce.msg);
			return RXDECK_EXIT_FAILURE;
		}
		if (l->frames->n == 0) {
			cli_error(COMMAND, "frame log '%s' has no frame", l->path);
			return RXDECK_EXIT_FAILURE;
		}
		l->abs = util_path_absolute(l->path);
		l->dir = l->abs ? strdup(l->abs) : NULL;
		if (!l->dir) {
			cli_error(COMMAND, "out of memory");
			return RXDECK_EXIT_FAILURE;
		}
		char *slash = strrchr(l->dir, '/');
		if (slash && slash != l->dir)
			*slash = 0;
		l->t0_ns = im->o.have_t0 ? im->o.t0_ns
		           : l->frames->clock == COLLECT_CLOCK_MONOTONIC ? l->frames->frames[0].present_ns : 0;
		/* --position places the runs as the user says */
		const struct collect_frames *f = l->frames;
		if (f->has_wall_clock && !im->o.position) {
			l->has_wall = true;
			l->wall_s[0] = (double)(f->wall_start_ns + l->t0_ns) / 1e9;
			l->wall_s[1] = (double)(f->wall_start_ns + f->frames[f->n - 1].present_ns) / 1e9;
		}
	}
	return 0;
}

static int by_wall_start(const void *a, const void *b)
{
	const struct one *x = a, *y = b;
	return (x->wall_s[0] > y->wall_s[0]) - (x->wall_s[0] < y->wall_s[0]);
}

/* --log with its collector profile, and a new campaign's window from
 * --route or --window. */
static int read_game_log_and_route(struct import *im)
{
	const struct opts *o = &im->o;
	if (o->log) {
		const char *name = o->collect ? o->collect : "rxvk";
		if (run_find_data("profiles", name, ".collect", NULL, &im->collect_path) < 0) {
			cli_error(COMMAND, "cannot find collector profile '%s'", name);
			return RXDECK_EXIT_FAILURE;
		}
		struct stat st;
		errno = 0;
		if (stat(o->log, &st) < 0 || !S_ISREG(st.st_mode)) {
			cli_error(COMMAND, "cannot read game log '%s': %s", o->log,
			          errno ? strerror(errno) : "not a file");
			return RXDECK_EXIT_FAILURE;
		}
		if (!(im->abs_game_log = util_path_absolute(o->log))) {
			cli_error(COMMAND, "out of memory");
			return RXDECK_EXIT_FAILURE;
		}
	}
	if (o->route && read_route(o, &im->nc) < 0)
		return RXDECK_EXIT_FAILURE;
	if (!o->route && o->have_window) {
		im->nc.window_s[0] = o->window_s[0];
		im->nc.window_s[1] = o->window_s[1];
	}
	return 0;
}

/* The campaign: found (its window must be the one asked for, if any), or
 * to be made when a window says how. */
static int find_campaign(struct import *im, struct cmd_context *ctx)
{
	const struct opts *o = &im->o;
	if (cmd_open_db(ctx, CMD_DB_CREATE) < 0)
		return RXDECK_EXIT_FAILURE;
	struct db *db = im->db = ctx->db;
	int rc = db_campaign_find(db, im->campaign, &im->c);
	im->new_campaign = rc == -ENOENT;
	if (rc < 0 && !im->new_campaign) {
		cli_error(COMMAND, "cannot read campaign '%s': %s", im->campaign, db_errmsg(db));
		return RXDECK_EXIT_FAILURE;
	}
	if (im->new_campaign) {
		if (!o->route && !o->have_window) {
			cli_error(COMMAND, "no campaign '%s' in '%s': give --window START END or --route FILE to make it",
			          im->campaign, db_path(db));
			return RXDECK_EXIT_USAGE;
		}
		if (!plan_name_valid(im->campaign, PLAN_MAX_NAME)) {
			cli_error(COMMAND, "bad campaign name '%s': use letters, digits, '.', '_' and '-', not starting with '.' or '-', at most %d",
			          im->campaign, PLAN_MAX_NAME);
			return RXDECK_EXIT_USAGE;
		}
		im->window[0] = im->nc.window_s[0];
		im->window[1] = im->nc.window_s[1];
		return 0;
	}
	const struct db_campaign *c = im->c;
	im->cid = c->id;
	if (!(c->window_start_s < c->window_end_s)) {
		cli_error(COMMAND, "campaign '%s' has no measured window", c->name);
		return RXDECK_EXIT_FAILURE;
	}
	if ((o->route || o->have_window) && (fabs(im->nc.window_s[0] - c->window_start_s) > 1e-9 ||
	                                     fabs(im->nc.window_s[1] - c->window_end_s) > 1e-9)) {
		cli_error(COMMAND, "campaign '%s' measures %g s to %g s, not %g s to %g s: --window and --route are for a new campaign",
		          c->name, c->window_start_s, c->window_end_s, im->nc.window_s[0], im->nc.window_s[1]);
		return RXDECK_EXIT_USAGE;
	}
	im->window[0] = c->window_start_s;
	im->window[1] = c->window_end_s;
	if (db_arm_list(db, im->cid, &im->arms, &im->na) < 0 ||
	    db_run_list(db, im->cid, &im->runs, &im->nr) < 0) {
		cli_error(COMMAND, "%s", db_errmsg(db));
		return RXDECK_EXIT_FAILURE;
	}
	return 0;
}

/* The arm (an existing one must match --label and --env), and each log's
 * round and place in the run order. */
static int place_runs(struct import *im)
{
	for (size_t i = 0; i < im->na; i++)
		if (im->arms[i].letter == im->letter)
			im->arm = &im->arms[i];
	int rc;
	if (im->arm && (rc = check_arm(&im->o, im->c, im->arm)) < 0)
		return rc == -ENOMEM ? RXDECK_EXIT_FAILURE : RXDECK_EXIT_USAGE;
	/* logs that all carry a wall clock take their places in its order
	 * (the report fits the time term on the times themselves) */
	bool all_wall = true;
	for (size_t i = 0; i < im->n_logs; i++)
		all_wall &= im->logs[i].has_wall;
	if (all_wall)
		qsort(im->logs, im->n_logs, sizeof *im->logs, by_wall_start);
	int last_position = 0, last_round = 0;
	for (size_t i = 0; i < im->nr; i++) {
		if (im->runs[i].position > last_position)
			last_position = im->runs[i].position;
		if (im->arm && im->runs[i].arm_id == im->arm->id && im->runs[i].round > last_round)
			last_round = im->runs[i].round;
	}
	for (size_t i = 0; i < im->n_logs; i++) {
		struct one *l = &im->logs[i];
		l->round = (int)(im->o.round ? im->o.round : last_round + 1) + (int)i;
		l->position = (int)(im->o.position ? im->o.position : last_position + 1) + (int)i;
		if (l->round > PLAN_MAX_ROUNDS) {
			cli_error(COMMAND, "round %d is past the last round there can be (%d)", l->round,
			          PLAN_MAX_ROUNDS);
			return RXDECK_EXIT_USAGE;
		}
		for (size_t k = 0; k < im->nr; k++)
			if (im->runs[k].position == l->position) {
				cli_error(COMMAND, "position %d of campaign '%s' is taken (arm %c, round %d); leave --position out to import after the last run",
				          l->position, im->c->name, im->runs[k].arm_letter, im->runs[k].round);
				return RXDECK_EXIT_USAGE;
			}
	}
	return 0;
}

/* Every log measured over the window before anything is written. */
static int measure_logs(struct import *im)
{
	char msg[1024] = "";
	for (size_t i = 0; i < im->n_logs; i++) {
		struct one *l = &im->logs[i];
		struct run_collect_spec cs = {
			.run_dir = l->dir,
			.window_s = { im->window[0], im->window[1] },
			.t0_ns = l->t0_ns,
			.t0_log_ns = l->t0_ns,
			.has_t0 = true,
			.min_coverage_pct = im->o.min_coverage_pct,
			.collect_profile = im->collect_path,
			.frame_log = l->abs,
			.game_log = im->abs_game_log,
		};
		if (run_collect(&cs, &l->col, msg, sizeof msg) < 0) {
			cli_error(COMMAND, "%s", msg);
			return RXDECK_EXIT_FAILURE;
		}
		if (l->col.no_frames) {
			cli_error(COMMAND, "frame log '%s' has no real frame in the window (%g to %g s after t0 = %" PRId64
			          " ns); nothing imported (see --t0)", l->path, im->window[0], im->window[1], l->t0_ns);
			return RXDECK_EXIT_FAILURE;
		}
		if (l->col.warnings[0])
			fprintf(stderr, "%s: %s\n", COMMAND, l->col.warnings);
		/* plots place the window from the database alone */
		run_collected_add_metric(&l->col, "route_t0_ns", (double)l->t0_ns);
		if (l->has_wall) {
			run_collected_add_metric(&l->col, "wall_local_start_s", l->wall_s[0]);
			run_collected_add_metric(&l->col, "wall_local_end_s", l->wall_s[1]);
		}
	}
	return 0;
}

/* Inside the transaction: the campaign if new, the arm if new, the
 * campaign's rounds.  0, -ENOMEM (said), or a database error. */
static int write_campaign_and_arm(struct import *im, int64_t *arm_id)
{
	struct db *db = im->db;
	const struct one *last = &im->logs[im->n_logs - 1];
	if (im->new_campaign) {
		struct db_campaign dc = {
			.name = im->campaign,
			.route_name = im->nc.route ? route_name(im->nc.route) : NULL,
			.route_text = im->nc.route_text,
			.window_start_s = im->window[0],
			.window_end_s = im->window[1],
			.rounds = last->round,
			.notes = "made by rxdeck import",
		};
		int rc;
		if ((rc = db_campaign_create(db, &dc, &im->cid)) < 0 ||
		    (rc = db_campaign_set_status(db, im->cid, DB_CAMPAIGN_DONE, 0)) < 0 ||
		    (rc = db_campaign_get(db, im->cid, &im->c)) < 0)
			return rc;
	}
	*arm_id = im->arm ? im->arm->id : 0;
	if (!im->arm) {
		if (!(im->env = plan_strv_join(&im->o.env, "\n"))) {
			cli_error(COMMAND, "out of memory");
			return -ENOMEM;
		}
		struct db_arm a = { .campaign_id = im->cid, .letter = im->letter, .label = im->o.label,
			            .env = im->env };
		int rc = db_arm_add(db, &a, arm_id);
		if (rc < 0)
			return rc;
	}
	if (!im->new_campaign && last->round > im->c->rounds) {
		im->c->rounds = last->round;
		return db_campaign_update(db, im->c);
	}
	return 0;
}

/* Inside the transaction: the runs in their places, with their results. */
static int write_runs(struct import *im, int64_t arm_id)
{
	struct db *db = im->db;
	struct db_run *plan = calloc(im->n_logs, sizeof *plan);
	if (!plan) {
		cli_error(COMMAND, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < im->n_logs; i++)
		plan[i] = (struct db_run){ .arm_id = arm_id, .round = im->logs[i].round,
			                   .position = im->logs[i].position };
	int rc = db_run_plan(db, im->cid, plan, im->n_logs);
	free(plan);
	size_t n_added;
	if (rc < 0 || (rc = db_run_list(db, im->cid, &im->added, &n_added)) < 0)
		return rc;
	for (size_t i = 0; i < im->n_logs; i++) {
		struct one *l = &im->logs[i];
		for (size_t k = 0; k < n_added; k++)
			if (im->added[k].position == l->position)
				l->run_id = im->added[k].id;
		/* a file's times say when it was copied, not when it ran, and
		 * the one wall clock a format carries (PresentMon's
		 * --date_time) is local time with no zone, kept as metrics
		 * for placing the runs against each other: the run is
		 * untimed (docs/reports.md 4.1) */
		if ((rc = db_run_mark_running(db, l->run_id, DB_UNTIMED, l->dir)) < 0)
			return rc;
		l->col.r.status = l->col.void_reason[0] ? DB_RUN_VOID : DB_RUN_DONE;
		l->col.r.void_reason = l->col.void_reason[0] ? l->col.void_reason : NULL;
		l->col.r.end_unix_ms = DB_UNTIMED;
		l->col.r.exit_status = -1;
		if ((rc = db_run_store_results(db, l->run_id, &l->col.r)) < 0)
			return rc;
	}
	return 0;
}

/* One transaction: the campaign and the arm if new, the runs, their
 * results; then what was imported, a line each. */
static int write_all(struct import *im)
{
	struct db *db = im->db;
	if (db_begin(db) < 0) {
		cli_error(COMMAND, "%s", db_errmsg(db));
		return RXDECK_EXIT_FAILURE;
	}
	int64_t arm_id = 0;
	int rc = write_campaign_and_arm(im, &arm_id);
	if (rc == 0)
		rc = write_runs(im, arm_id);
	if (rc == 0)
		rc = db_commit(db);
	if (rc < 0) {
		if (rc != -ENOMEM)
			cli_error(COMMAND, "%s", db_errmsg(db));
		db_rollback(db);
		return RXDECK_EXIT_FAILURE;
	}
	if (im->new_campaign)
		printf("made campaign %s, measuring %g s to %g s\n", im->campaign, im->window[0], im->window[1]);
	for (size_t i = 0; i < im->n_logs; i++) {
		const struct one *l = &im->logs[i];
		char when[64] = "";
		if (l->has_wall) {
			time_t t = (time_t)floor(l->wall_s[0]);
			struct tm tm;
			if (gmtime_r(&t, &tm))
				strftime(when, sizeof when, ", started %Y-%m-%d %H:%M:%S local time", &tm);
		}
		printf("imported '%s' (%s) into campaign %s as run %d, arm %c, round %d%s%s%s\n", l->path,
		       l->frames->format, im->campaign, l->position, im->letter, l->round, when,
		       l->col.void_reason[0] ? ": void, " : "", l->col.void_reason);
	}
	return 0;
}

static void import_finish(struct import *im)
{
	for (size_t i = 0; im->logs && i < im->n_logs; i++) {
		run_collected_finish(&im->logs[i].col);
		collect_frames_destroy(im->logs[i].frames);
		free(im->logs[i].abs);
		free(im->logs[i].dir);
	}
	free(im->logs);
	route_free(im->nc.route);
	free(im->nc.route_text);
	free(im->collect_path);
	free(im->abs_game_log);
	free(im->env);
	free(im->c);
	free(im->arms);
	free(im->runs);
	free(im->added);
	plan_strv_finish(&im->o.env);
}

int cmd_import(int argc, char **argv, struct cmd_context *ctx)
{
	struct import im = { 0 };
	struct opts *o = &im.o;
	const struct cli_option options[] = {
		OPT_STRING('l', "log", &o->log, "GAMELOG", "the game's log (RX_LOG or stderr), read through the collector profile (one frame log only)"),
		OPT_STRING(0, "label", &o->label, "TEXT", "the arm's label: names a new arm, or must match an existing arm's"),
		OPT_CALLBACK('e', "env", 1, "KEY=VALUE", "the arm's env (repeatable): for a new arm, or the existing arm's exactly", OPT_ENV),
		OPT_INT(0, "round", &o->round, 1, PLAN_MAX_ROUNDS, "N", "the first log's round, the next logs' the rounds after it (default: after the arm's last)"),
		OPT_INT(0, "position", &o->position, 1, INT_MAX / 2, "N", "the first log's place in the campaign's run order, the next logs' after it (default: after the last run; a PresentMon --date_time log: by its clock)"),
		OPT_CALLBACK(0, "t0", 1, "NS", "the route's start on the logs' clock, ns (default: the renderer's first frame; MangoHud and PresentMon: 0, the log's start)", OPT_T0),
		OPT_CALLBACK('w', "window", 2, "START END", "a new campaign's measured window on the route, e.g. 30s 110s", OPT_WINDOW),
		OPT_STRING(0, "route", &o->route, "FILE", "a new campaign's route: its window and text are kept"),
		OPT_CALLBACK(0, "min-coverage", 1, "PCT", "a log covering less of the window makes its run void (default: 90; off: 0)", OPT_MIN_COVERAGE),
		OPT_STRING(0, "collect", &o->collect, "PROFILE", "collector profile for --log (default: rxvk)"),
		OPT_DB(&ctx->db_path),
		OPT_END,
	};
	const struct cli cli = {
		.command = COMMAND,
		.synopsis = "CAMPAIGN ARM LOG... [--log GAMELOG] [--label TEXT] [--env KEY=VALUE]... "
		            "[--round N] [--position N] [--t0 NS] [--window START END | --route FILE]",
		.summary =
			"Adds runs made elsewhere (by hand, by another harness, an old Deck run, a\n"
			"Windows run) to a campaign, one run per LOG, so they sit in the same table.\n"
			"A LOG is the renderer's frame log, a MangoHud CSV or a PresentMon CSV.  A\n"
			"campaign that does not exist is made, with its window from --window or\n"
			"--route.  ARM is a letter: one of the campaign's arms (a --label or --env\n"
			"given must match it), or a new one made with --label and --env.  The logs\n"
			"take consecutive rounds from --round and places from --position (default:\n"
			"after the arm's last round and the campaign's last run).  The window is\n"
			"measured from t0: the renderer's first frame, a MangoHud or PresentMon\n"
			"log's start, unless --t0 says otherwise.  A log covering less than 90 % of\n"
			"the window makes its run void.  A PresentMon log written with --date_time\n"
			"carries its local time: such logs are placed by it (in the report's time\n"
			"term too) unless --position is given.  With --log, the game's log lines\n"
			"are read through the collector profile.",
		.options = options,
		.on_option = on_option,
		.ctx = o,
	};
	int npos = 0, code;
	if (!cmd_parse(ctx, &cli, argc, argv, -1, NULL, &npos, &code)) {
		plan_strv_finish(&o->env);
		return code;
	}
	if ((code = check_words(&im, npos, argv)) == 0 && (code = read_logs(&im, argv + 3)) == 0 &&
	    (code = read_game_log_and_route(&im)) == 0 && (code = find_campaign(&im, ctx)) == 0 &&
	    (code = place_runs(&im)) == 0 && (code = measure_logs(&im)) == 0)
		code = write_all(&im);
	import_finish(&im);
	return code;
}
