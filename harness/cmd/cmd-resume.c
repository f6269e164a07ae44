/* cmd-resume: `rxdeck resume [CAMPAIGN]`, a campaign whose harness was
 * stopped or killed, played on from its first run not finished, with the
 * plan frozen in its folder.  It owns the command line; the rest is the
 * campaign's (run.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "plan/plan.h"
#include "run/run.h"

int cmd_resume(int argc, char **argv, struct cmd_context *ctx)
{
	bool quiet = false, accept_changes = false;
	char baseline = 0;
	struct cmd_post post = { 0 };
	const struct cli_option options[] = {
		OPT_DB(&ctx->db_path),
		OPT_BASELINE(&baseline),
		OPT_BOOL('q', "quiet", &quiet, "no progress lines, only the table and errors"),
		OPT_BOOL(0, "accept-changes", &accept_changes, "go on although the route or a build "
		         "changed since the start (recorded in the campaign's notes)"),
		OPT_POST(&post),
		OPT_END,
	};
	const struct cli cli = {
		.command = ctx->command,
		.synopsis = "[CAMPAIGN] [--db PATH] [--accept-changes] [--post ...]",
		.summary =
			"Goes on with a campaign that was stopped (Ctrl-C, a signal) or whose harness\n"
			"was killed: the run that was cut is played again from the start, then the\n"
			"rest in the campaign's order; finished runs are never played again.  The\n"
			"campaign's folder keeps the plan as it started (paths, profile, inherited\n"
			"environment), so the rest runs as the beginning did.  CAMPAIGN is a name or\n"
			"an id; with none, the newest campaign not finished.  Then the void rules and\n"
			"the table, as 'rxdeck run'.  A route file or build binary that changed since\n"
			"the start is refused with the difference, unless --accept-changes.  Exit 5:\n"
			"not resumed, because the campaign's deadline (its until) is less than one\n"
			"round away or passed; nothing is written.",
		.options = options,
	};
	int npos = 0, exit_code;
	if (!cmd_parse(ctx, &cli, argc, argv, 1, "one campaign at a time", &npos, &exit_code))
		return exit_code;
	if (cmd_post_check(ctx->command, &post) < 0)
		return RXDECK_EXIT_USAGE;
	if (cmd_open_db(ctx, 0) < 0)
		return RXDECK_EXIT_FAILURE;
	struct db *db = ctx->db;
	volatile sig_atomic_t *stop = cmd_stop_signals();
	struct run_options ro = { .quiet = quiet, .stop = stop, .accept_changes = accept_changes,
		                  .decided = cmd_campaign_decided, .decided_ctx = &baseline,
		                  .deck_root = cmd_deck_root() };
	struct run_campaign *c;
	char msg[2048] = "";
	int rc = run_campaign_open(db, npos ? argv[1] : NULL, &ro, &c, msg, sizeof msg);
	if (rc == -ETIME) {
		/* said even with --quiet, as `rxdeck run` says it */
		fprintf(stderr, "%s: %s\n", ctx->command, msg);
		return RXDECK_EXIT_NOT_STARTED;
	}
	if (rc < 0) {
		cli_error(ctx->command, "%s", msg[0] ? msg : strerror(-rc));
			return RXDECK_EXIT_FAILURE;
	}
	if (baseline && !plan_arm_find(run_campaign_plan(c), baseline)) {
		cli_error(ctx->command, "bad baseline '%c': the campaign has no arm %c", baseline, baseline);
		run_campaign_destroy(c);
			return RXDECK_EXIT_USAGE;
	}
	if (!quiet)
		fprintf(stderr, "resuming campaign %s (runs in %s)\n", run_campaign_name(c),
		        run_campaign_dir(c));
	struct run_outcome out;
	rc = run_campaign_play(c, &out, msg, sizeof msg);
	if (rc < 0) {
		cli_error(ctx->command, "%s", msg);
		run_campaign_destroy(c);
			return RXDECK_EXIT_FAILURE;
	}
	int code = cmd_finish_campaign(ctx->command, db, c, &out, &post, baseline, quiet);
	run_campaign_destroy(c);
	return code;
}
