/* cmd-import: `rxdeck import CAMPAIGN ARM FRAMELOG [--log GAMELOG]`, a run
 * made elsewhere (by hand, by another harness, an old Deck run) added to a
 * campaign, so it sits in the same table.  It owns the command line, the
 * arm made for it when the campaign has none of that letter, and the new
 * run's place (after the campaign's last); reading the files and the
 * metrics are the collectors' (run_collect()). */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "collect/collect.h"
#include "plan/plan.h"
#include "report/report.h"
#include "run/run-private.h"

#define COMMAND "rxdeck import"

enum { OPT_T0 = 1, OPT_ENV };

struct opts {
	const char *log, *label, *collect;
	int64_t round;
	bool have_t0;
	int64_t t0_ns;
	struct plan_strv env;
	bool bad;
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
	case OPT_ENV:
		if (plan_strv_setenv(&o->env, args[0]) < 0) {
			cli_error(COMMAND, "bad env '%s': expected KEY=VALUE", args[0]);
			return -EINVAL;
		}
		return 0;
	}
	return -EINVAL;
}

static char *join_env(const struct plan_strv *l)
{
	size_t n = 1;
	for (size_t i = 0; i < l->n; i++)
		n += strlen(l->v[i]) + 1;
	char *s = calloc(1, n);
	for (size_t i = 0; s && i < l->n; i++) {
		strcat(s, l->v[i]);
		if (i + 1 < l->n)
			strcat(s, "\n");
	}
	return s;
}

int cmd_import(int argc, char **argv, struct cmd_context *ctx)
{
	struct opts o = { .round = 1 };
	const struct cli_option options[] = {
		OPT_STRING('l', "log", &o.log, "GAMELOG", "the game's log (RX_LOG or stderr), read through the collector profile"),
		OPT_STRING(0, "label", &o.label, "TEXT", "the arm's label, when the campaign has no such arm yet"),
		OPT_CALLBACK('e', "env", 1, "KEY=VALUE", "the arm's env (repeatable), when the campaign has no such arm yet", OPT_ENV),
		OPT_INT(0, "round", &o.round, 1, PLAN_MAX_ROUNDS, "N", "the round the run counts in (default: 1)"),
		OPT_CALLBACK(0, "t0", 1, "NS", "the route's start on the log's clock, ns (default: its first frame; MangoHud: 0)", OPT_T0),
		OPT_STRING(0, "collect", &o.collect, "PROFILE", "collector profile for --log (default: rxvk)"),
		OPT_DB(&ctx->db_path),
		OPT_END,
	};
	const struct cli cli = {
		.command = COMMAND,
		.synopsis = "CAMPAIGN ARM FRAMELOG [--log GAMELOG] [--label TEXT] [--env KEY=VALUE]...",
		.summary =
			"Adds a run made elsewhere (by hand, by another harness, an old Deck run) to a\n"
			"campaign, after its last run, so it sits in the same table.  FRAMELOG is the\n"
			"renderer's frame log or a MangoHud CSV; the campaign's window is measured\n"
			"from t0, the log's first frame unless --t0 says otherwise.  ARM is a letter:\n"
			"one of the campaign's arms, or a new one made with --label and --env.  With\n"
			"--log, the game's log lines are read through the collector profile.",
		.options = options,
		.on_option = on_option,
		.ctx = &o,
	};
	int npos = 0;
	int r = cli_parse(&cli, argc, argv, &npos);
	if (r == 1) {
		plan_strv_finish(&o.env);
		return RXDECK_EXIT_OK;
	}
	if (r < 0) {
		plan_strv_finish(&o.env);
		return RXDECK_EXIT_USAGE;
	}
	if (npos != 3) {
		cli_error(COMMAND, "expected CAMPAIGN ARM FRAMELOG (see --help)");
		plan_strv_finish(&o.env);
		return RXDECK_EXIT_USAGE;
	}
	const char *campaign = argv[1], *arm_s = argv[2], *framelog = argv[3];
	if (strlen(arm_s) != 1 || arm_s[0] < 'A' || arm_s[0] > 'Z') {
		cli_error(COMMAND, "bad arm '%s': expected one capital letter, A to Z", arm_s);
		plan_strv_finish(&o.env);
		return RXDECK_EXIT_USAGE;
	}
	char letter = arm_s[0];
	int code = RXDECK_EXIT_FAILURE;
	char msg[1024] = "";
	struct db *db = NULL;
	struct db_campaign *c = NULL;
	struct db_arm *arms = NULL;
	struct db_run *runs = NULL;
	struct collect_frames *frames = NULL;
	char *collect_path = NULL, *dir = NULL, *abs_log = NULL, *abs_game_log = NULL;
	struct run_collected col = { 0 };

	/* the files first: nothing is written for a log that cannot be read */
	struct collect_error ce;
	if (collect_frames_load(framelog, COLLECT_SOURCE_AUTO, &frames, &ce) < 0) {
		cli_error(COMMAND, "%s", ce.msg);
		goto out;
	}
	if (frames->n == 0) {
		cli_error(COMMAND, "frame log '%s' has no frame", framelog);
		goto out;
	}
	if (o.log) {
		const char *name = o.collect ? o.collect : "rxvk";
		if (run_find_data("profiles", name, ".collect", NULL, &collect_path) < 0) {
			cli_error(COMMAND, "cannot find collector profile '%s'", name);
			goto out;
		}
		struct stat st;
		if (stat(o.log, &st) < 0 || !S_ISREG(st.st_mode)) {
			cli_error(COMMAND, "cannot read game log '%s': %s", o.log,
			          errno ? strerror(errno) : "not a file");
			goto out;
		}
	} else if (o.collect) {
		cli_error(COMMAND, "--collect goes with --log");
		code = RXDECK_EXIT_USAGE;
		goto out;
	}

	if (cmd_open_db(ctx, 0) < 0 || cmd_find_campaign(ctx, campaign) < 0)
		goto out;
	db = ctx->db;
	int64_t cid = ctx->campaign_id;
	size_t na, nr;
	if (db_campaign_get(db, cid, &c) < 0 || db_arm_list(db, cid, &arms, &na) < 0 ||
	    db_run_list(db, cid, &runs, &nr) < 0) {
		cli_error(COMMAND, "%s", db_errmsg(db));
		goto out;
	}
	int64_t arm_id = 0;
	for (size_t i = 0; i < na; i++)
		if (arms[i].letter == letter)
			arm_id = arms[i].id;
	if (arm_id && (o.label || o.env.n)) {
		cli_error(COMMAND, "campaign '%s' has an arm %c already: --label and --env are for a new arm",
		          c->name, letter);
		code = RXDECK_EXIT_USAGE;
		goto out;
	}
	int position = 0;
	for (size_t i = 0; i < nr; i++)
		if (runs[i].position > position)
			position = runs[i].position;
	position++;

	int64_t t0 = o.have_t0 ? o.t0_ns
	             : frames->clock == COLLECT_CLOCK_MONOTONIC ? frames->frames[0].present_ns : 0;
	abs_log = run_path_absolute(framelog);
	abs_game_log = o.log ? run_path_absolute(o.log) : NULL;
	if (!abs_log || (o.log && !abs_game_log)) {
		cli_error(COMMAND, "out of memory");
		goto out;
	}
	dir = strdup(abs_log);
	if (!dir)
		goto out;
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir)
		*slash = 0;
	struct run_collect_spec cs = {
		.run_dir = dir,
		.window_s = { c->window_start_s, c->window_end_s },
		.t0_ns = t0,
		.t0_log_ns = t0,
		.has_t0 = true,
		.collect_profile = collect_path,
		.frame_log = abs_log,
		.game_log = abs_game_log,
	};
	if (!(c->window_start_s < c->window_end_s)) {
		cli_error(COMMAND, "campaign '%s' has no measured window", c->name);
		goto out;
	}
	if (run_collect(&cs, &col, msg, sizeof msg) < 0) {
		cli_error(COMMAND, "%s", msg);
		goto out;
	}
	if (col.no_frames) {
		cli_error(COMMAND, "frame log '%s' has no real frame in the campaign's window (%g to %g s "
		          "after t0 = %" PRId64 " ns); nothing imported (see --t0)", framelog,
		          c->window_start_s, c->window_end_s, t0);
		goto out;
	}
	if (col.warnings[0])
		fprintf(stderr, "%s: %s\n", COMMAND, col.warnings);
	/* plots place the window from the database alone */
	run_collected_add_metric(&col, "route_t0_ns", (double)t0);

	/* one transaction: the arm if new, the run, its results */
	if (db_begin(db) < 0)
		goto db_fail;
	if (!arm_id) {
		char *env = join_env(&o.env);
		struct db_arm a = { .campaign_id = cid, .letter = letter, .label = o.label, .env = env };
		int rc = env ? db_arm_add(db, &a, &arm_id) : -ENOMEM;
		free(env);
		if (rc < 0)
			goto db_rollback;
	}
	struct db_run plan = { .arm_id = arm_id, .round = (int)o.round, .position = position };
	if (db_run_plan(db, cid, &plan, 1) < 0)
		goto db_rollback;
	struct db_run *added;
	size_t n_added;
	if (db_run_list(db, cid, &added, &n_added) < 0)
		goto db_rollback;
	int64_t run_id = 0;
	for (size_t i = 0; i < n_added; i++)
		if (added[i].position == position)
			run_id = added[i].id;
	free(added);
	struct stat st;
	int64_t mtime_ms = stat(abs_log, &st) == 0 ? (int64_t)st.st_mtime * 1000 : 0;
	if (db_run_mark_running(db, run_id, mtime_ms, dir) < 0)
		goto db_rollback;
	col.r.status = col.void_reason[0] ? DB_RUN_VOID : DB_RUN_DONE;
	col.r.void_reason = col.void_reason[0] ? col.void_reason : NULL;
	col.r.end_unix_ms = mtime_ms;
	col.r.exit_status = -1;
	if (db_run_store_results(db, run_id, &col.r) < 0)
		goto db_rollback;
	if (db_commit(db) < 0)
		goto db_rollback;
	printf("imported '%s' into campaign %s as run %d, arm %c, round %d%s%s\n", framelog,
	       c->name, position, letter, (int)o.round, col.void_reason[0] ? ": void, " : "",
	       col.void_reason);
	code = RXDECK_EXIT_OK;
	goto out;
db_rollback:
	cli_error(COMMAND, "%s", db_errmsg(db));
	db_rollback(db);
	goto out;
db_fail:
	cli_error(COMMAND, "%s", db_errmsg(db));
out:
	run_collected_finish(&col);
	collect_frames_destroy(frames);
	free(collect_path);
	free(dir);
	free(abs_log);
	free(abs_game_log);
	free(c);
	free(arms);
	free(runs);
	plan_strv_finish(&o.env);
	return code;
}
