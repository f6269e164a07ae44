/* cmd-import: `rxdeck import CAMPAIGN ARM LOG... [--log GAMELOG]`, runs made
 * elsewhere (by hand, by another harness, an old Deck run, a Windows run
 * under PresentMon) added to a campaign, one run per frame log, so they sit
 * in the same table.  It owns the command line, the campaign made for them
 * when there is none of that name (its window from --window or --route),
 * the arm made when the campaign has none of that letter (a repeated
 * --label or --env must match the arm's), and the new runs' places (rounds,
 * positions).  Reading the files and the metrics are the collectors'
 * (run_collect()).  Nothing is written unless every log can be imported:
 * the campaign, the arm and every run go in one transaction. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

int cmd_import(int argc, char **argv, struct cmd_context *ctx)
{
	struct opts o = { 0 };
	const struct cli_option options[] = {
		OPT_STRING('l', "log", &o.log, "GAMELOG", "the game's log (RX_LOG or stderr), read through the collector profile (one frame log only)"),
		OPT_STRING(0, "label", &o.label, "TEXT", "the arm's label: names a new arm, or must match an existing arm's"),
		OPT_CALLBACK('e', "env", 1, "KEY=VALUE", "the arm's env (repeatable): for a new arm, or the existing arm's exactly", OPT_ENV),
		OPT_INT(0, "round", &o.round, 1, PLAN_MAX_ROUNDS, "N", "the first log's round, the next logs' the rounds after it (default: after the arm's last)"),
		OPT_INT(0, "position", &o.position, 1, INT_MAX / 2, "N", "the first log's place in the campaign's run order, the next logs' after it (default: after the last run)"),
		OPT_CALLBACK(0, "t0", 1, "NS", "the route's start on the logs' clock, ns (default: the renderer's first frame; MangoHud and PresentMon: 0, the log's start)", OPT_T0),
		OPT_CALLBACK('w', "window", 2, "START END", "a new campaign's measured window on the route, e.g. 30s 110s", OPT_WINDOW),
		OPT_STRING(0, "route", &o.route, "FILE", "a new campaign's route: its window and text are kept"),
		OPT_CALLBACK(0, "min-coverage", 1, "PCT", "a log covering less of the window makes its run void (default: 90; off: 0)", OPT_MIN_COVERAGE),
		OPT_STRING(0, "collect", &o.collect, "PROFILE", "collector profile for --log (default: rxvk)"),
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
			"the window makes its run void.  With --log, the game's log lines are read\n"
			"through the collector profile.",
		.options = options,
		.on_option = on_option,
		.ctx = &o,
	};
	int npos = 0, parse_exit;
	if (!cmd_parse(ctx, &cli, argc, argv, -1, NULL, &npos, &parse_exit)) {
		plan_strv_finish(&o.env);
		return parse_exit;
	}
	if (npos < 3) {
		cli_error(COMMAND, "expected CAMPAIGN ARM LOG... (see --help)");
		plan_strv_finish(&o.env);
		return RXDECK_EXIT_USAGE;
	}
	const char *campaign = argv[1], *arm_s = argv[2];
	size_t n_logs = (size_t)npos - 2;
	if (strlen(arm_s) != 1 || arm_s[0] < 'A' || arm_s[0] > 'Z') {
		cli_error(COMMAND, "bad arm '%s': expected one capital letter, A to Z", arm_s);
		plan_strv_finish(&o.env);
		return RXDECK_EXIT_USAGE;
	}
	if (o.log && n_logs > 1) {
		cli_error(COMMAND, "--log goes with one frame log, not %zu", n_logs);
		plan_strv_finish(&o.env);
		return RXDECK_EXIT_USAGE;
	}
	if (o.collect && !o.log) {
		cli_error(COMMAND, "--collect goes with --log");
		plan_strv_finish(&o.env);
		return RXDECK_EXIT_USAGE;
	}
	char letter = arm_s[0];
	int code = RXDECK_EXIT_FAILURE;
	char msg[1024] = "";
	struct db *db = NULL;
	struct db_campaign *c = NULL;
	struct db_arm *arms = NULL;
	struct db_run *runs = NULL, *added = NULL;
	char *collect_path = NULL, *abs_game_log = NULL, *env = NULL;
	struct new_campaign nc = { { 0, 0 }, NULL, NULL };
	struct one *logs = calloc(n_logs, sizeof *logs);
	if (!logs) {
		cli_error(COMMAND, "out of memory");
		goto out;
	}

	/* the files first: nothing is written for a log that cannot be read */
	for (size_t i = 0; i < n_logs; i++) {
		struct one *l = &logs[i];
		l->path = argv[3 + i];
		struct collect_error ce;
		if (collect_frames_load(l->path, COLLECT_SOURCE_AUTO, &l->frames, &ce) < 0) {
			cli_error(COMMAND, "%s", ce.msg);
			goto out;
		}
		if (l->frames->n == 0) {
			cli_error(COMMAND, "frame log '%s' has no frame", l->path);
			goto out;
		}
		l->abs = util_path_absolute(l->path);
		l->dir = l->abs ? strdup(l->abs) : NULL;
		if (!l->dir) {
			cli_error(COMMAND, "out of memory");
			goto out;
		}
		char *slash = strrchr(l->dir, '/');
		if (slash && slash != l->dir)
			*slash = 0;
		l->t0_ns = o.have_t0 ? o.t0_ns
		           : l->frames->clock == COLLECT_CLOCK_MONOTONIC ? l->frames->frames[0].present_ns : 0;
	}
	if (o.log) {
		const char *name = o.collect ? o.collect : "rxvk";
		if (run_find_data("profiles", name, ".collect", NULL, &collect_path) < 0) {
			cli_error(COMMAND, "cannot find collector profile '%s'", name);
			goto out;
		}
		struct stat st;
		errno = 0;
		if (stat(o.log, &st) < 0 || !S_ISREG(st.st_mode)) {
			cli_error(COMMAND, "cannot read game log '%s': %s", o.log,
			          errno ? strerror(errno) : "not a file");
			goto out;
		}
		if (!(abs_game_log = util_path_absolute(o.log))) {
			cli_error(COMMAND, "out of memory");
			goto out;
		}
	}
	if (o.route && read_route(&o, &nc) < 0)
		goto out;
	if (!o.route && o.have_window) {
		nc.window_s[0] = o.window_s[0];
		nc.window_s[1] = o.window_s[1];
	}

	/* the campaign: found, or made when a window says how */
	if (cmd_open_db(ctx, CMD_DB_CREATE) < 0)
		goto out;
	db = ctx->db;
	int rc = db_campaign_find(db, campaign, &c);
	bool new_campaign = rc == -ENOENT;
	if (rc < 0 && !new_campaign) {
		cli_error(COMMAND, "cannot read campaign '%s': %s", campaign, db_errmsg(db));
		goto out;
	}
	int64_t cid = 0;
	size_t na = 0, nr = 0;
	double window[2];
	if (new_campaign) {
		if (!o.route && !o.have_window) {
			cli_error(COMMAND, "no campaign '%s' in '%s': give --window START END or --route FILE to make it",
			          campaign, db_path(db));
			code = RXDECK_EXIT_USAGE;
			goto out;
		}
		if (!plan_name_valid(campaign, PLAN_MAX_NAME)) {
			cli_error(COMMAND, "bad campaign name '%s': use letters, digits, '.', '_' and '-', not starting with '.' or '-', at most %d",
			          campaign, PLAN_MAX_NAME);
			code = RXDECK_EXIT_USAGE;
			goto out;
		}
		window[0] = nc.window_s[0];
		window[1] = nc.window_s[1];
	} else {
		cid = c->id;
		if (!(c->window_start_s < c->window_end_s)) {
			cli_error(COMMAND, "campaign '%s' has no measured window", c->name);
			goto out;
		}
		if ((o.route || o.have_window) &&
		    (fabs(nc.window_s[0] - c->window_start_s) > 1e-9 || fabs(nc.window_s[1] - c->window_end_s) > 1e-9)) {
			cli_error(COMMAND, "campaign '%s' measures %g s to %g s, not %g s to %g s: --window and --route are for a new campaign",
			          c->name, c->window_start_s, c->window_end_s, nc.window_s[0], nc.window_s[1]);
			code = RXDECK_EXIT_USAGE;
			goto out;
		}
		window[0] = c->window_start_s;
		window[1] = c->window_end_s;
		if (db_arm_list(db, cid, &arms, &na) < 0 || db_run_list(db, cid, &runs, &nr) < 0) {
			cli_error(COMMAND, "%s", db_errmsg(db));
			goto out;
		}
	}

	/* the arm, and the runs' places */
	const struct db_arm *arm = NULL;
	for (size_t i = 0; i < na; i++)
		if (arms[i].letter == letter)
			arm = &arms[i];
	if (arm && (rc = check_arm(&o, c, arm)) < 0) {
		code = rc == -ENOMEM ? RXDECK_EXIT_FAILURE : RXDECK_EXIT_USAGE;
		goto out;
	}
	int last_position = 0, last_round = 0;
	for (size_t i = 0; i < nr; i++) {
		if (runs[i].position > last_position)
			last_position = runs[i].position;
		if (arm && runs[i].arm_id == arm->id && runs[i].round > last_round)
			last_round = runs[i].round;
	}
	for (size_t i = 0; i < n_logs; i++) {
		struct one *l = &logs[i];
		l->round = (int)(o.round ? o.round : last_round + 1) + (int)i;
		l->position = (int)(o.position ? o.position : last_position + 1) + (int)i;
		if (l->round > PLAN_MAX_ROUNDS) {
			cli_error(COMMAND, "round %d is past the last round there can be (%d)", l->round,
			          PLAN_MAX_ROUNDS);
			code = RXDECK_EXIT_USAGE;
			goto out;
		}
		for (size_t k = 0; k < nr; k++)
			if (runs[k].position == l->position) {
				cli_error(COMMAND, "position %d of campaign '%s' is taken (arm %c, round %d); leave --position out to import after the last run",
				          l->position, c->name, runs[k].arm_letter, runs[k].round);
				code = RXDECK_EXIT_USAGE;
				goto out;
			}
	}

	/* every log measured before anything is written */
	for (size_t i = 0; i < n_logs; i++) {
		struct one *l = &logs[i];
		struct run_collect_spec cs = {
			.run_dir = l->dir,
			.window_s = { window[0], window[1] },
			.t0_ns = l->t0_ns,
			.t0_log_ns = l->t0_ns,
			.has_t0 = true,
			.min_coverage_pct = o.min_coverage_pct,
			.collect_profile = collect_path,
			.frame_log = l->abs,
			.game_log = abs_game_log,
		};
		if (run_collect(&cs, &l->col, msg, sizeof msg) < 0) {
			cli_error(COMMAND, "%s", msg);
			goto out;
		}
		if (l->col.no_frames) {
			cli_error(COMMAND, "frame log '%s' has no real frame in the window (%g to %g s after t0 = %" PRId64
			          " ns); nothing imported (see --t0)", l->path, window[0], window[1], l->t0_ns);
			goto out;
		}
		if (l->col.warnings[0])
			fprintf(stderr, "%s: %s\n", COMMAND, l->col.warnings);
		/* plots place the window from the database alone */
		run_collected_add_metric(&l->col, "route_t0_ns", (double)l->t0_ns);
	}

	/* one transaction: the campaign and the arm if new, the runs, their results */
	if (db_begin(db) < 0)
		goto db_fail;
	if (new_campaign) {
		struct db_campaign dc = {
			.name = campaign,
			.route_name = nc.route ? route_name(nc.route) : NULL,
			.route_text = nc.route_text,
			.window_start_s = window[0],
			.window_end_s = window[1],
			.rounds = logs[n_logs - 1].round,
			.notes = "made by rxdeck import",
		};
		if (db_campaign_create(db, &dc, &cid) < 0)
			goto db_rollback;
		if (db_campaign_set_status(db, cid, DB_CAMPAIGN_DONE, 0) < 0)
			goto db_rollback;
		if (db_campaign_get(db, cid, &c) < 0)
			goto db_rollback;
	}
	int64_t arm_id = arm ? arm->id : 0;
	if (!arm) {
		env = plan_strv_join(&o.env, "\n");
		struct db_arm a = { .campaign_id = cid, .letter = letter, .label = o.label, .env = env };
		if (!env) {
			cli_error(COMMAND, "out of memory");
			db_rollback(db);
			goto out;
		}
		if (db_arm_add(db, &a, &arm_id) < 0)
			goto db_rollback;
	}
	if (!new_campaign && logs[n_logs - 1].round > c->rounds) {
		c->rounds = logs[n_logs - 1].round;
		if (db_campaign_update(db, c) < 0)
			goto db_rollback;
	}
	struct db_run *plan = calloc(n_logs, sizeof *plan);
	if (!plan) {
		cli_error(COMMAND, "out of memory");
		db_rollback(db);
		goto out;
	}
	for (size_t i = 0; i < n_logs; i++)
		plan[i] = (struct db_run){ .arm_id = arm_id, .round = logs[i].round, .position = logs[i].position };
	rc = db_run_plan(db, cid, plan, n_logs);
	free(plan);
	if (rc < 0)
		goto db_rollback;
	size_t n_added;
	if (db_run_list(db, cid, &added, &n_added) < 0)
		goto db_rollback;
	for (size_t i = 0; i < n_logs; i++) {
		struct one *l = &logs[i];
		for (size_t k = 0; k < n_added; k++)
			if (added[k].position == l->position)
				l->run_id = added[k].id;
		struct stat st;
		int64_t mtime_ms = stat(l->abs, &st) == 0 ? (int64_t)st.st_mtime * 1000 : 0;
		if (db_run_mark_running(db, l->run_id, mtime_ms, l->dir) < 0)
			goto db_rollback;
		l->col.r.status = l->col.void_reason[0] ? DB_RUN_VOID : DB_RUN_DONE;
		l->col.r.void_reason = l->col.void_reason[0] ? l->col.void_reason : NULL;
		l->col.r.end_unix_ms = mtime_ms;
		l->col.r.exit_status = -1;
		if (db_run_store_results(db, l->run_id, &l->col.r) < 0)
			goto db_rollback;
	}
	if (db_commit(db) < 0)
		goto db_rollback;
	if (new_campaign)
		printf("made campaign %s, measuring %g s to %g s\n", campaign, window[0], window[1]);
	for (size_t i = 0; i < n_logs; i++) {
		const struct one *l = &logs[i];
		printf("imported '%s' (%s) into campaign %s as run %d, arm %c, round %d%s%s\n", l->path,
		       l->frames->format, campaign, l->position, letter, l->round,
		       l->col.void_reason[0] ? ": void, " : "", l->col.void_reason);
	}
	code = RXDECK_EXIT_OK;
	goto out;
db_rollback:
	cli_error(COMMAND, "%s", db_errmsg(db));
	db_rollback(db);
	goto out;
db_fail:
	cli_error(COMMAND, "%s", db_errmsg(db));
out:
	for (size_t i = 0; logs && i < n_logs; i++) {
		run_collected_finish(&logs[i].col);
		collect_frames_destroy(logs[i].frames);
		free(logs[i].abs);
		free(logs[i].dir);
	}
	free(logs);
	route_free(nc.route);
	free(nc.route_text);
	free(collect_path);
	free(abs_game_log);
	free(env);
	free(c);
	free(arms);
	free(runs);
	free(added);
	plan_strv_finish(&o.env);
	return code;
}
