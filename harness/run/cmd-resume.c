/* cmd-resume: `rxdeck resume [CAMPAIGN]`, a campaign whose harness was
 * stopped or killed, played on from its first run not finished, with the
 * plan frozen in its folder.  It owns the command line; the rest is the
 * campaign's (run.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "run/run-private.h"
#include "run/run.h"

#define COMMAND "rxdeck resume"

enum { OPT_DB = 1, OPT_QUIET, OPT_BASELINE };

static const struct cli_option options[] = {
	{ "db", 0, 1, "PATH", "the database (default: $XDG_DATA_HOME/rxdeck/results.db)", OPT_DB },
	{ "baseline", 'b', 1, "ARM", "the table compares against this arm (default: the first)", OPT_BASELINE },
	{ "quiet", 'q', 0, NULL, "no progress lines, only the table and errors", OPT_QUIET },
	RUN_CMD_POST_OPTIONS,
	{ NULL, 0, 0, NULL, NULL, 0 },
};

struct opts {
	const char *db;
	bool quiet;
	char baseline;
	struct run_cmd_post post;
};

static int on_option(void *ctx, int id, char **args)
{
	struct opts *o = ctx;
	switch (id) {
	case OPT_DB:
		o->db = args[0];
		return 0;
	case OPT_QUIET:
		o->quiet = true;
		return 0;
	case OPT_BASELINE:
		return run_cmd_baseline(COMMAND, args[0], &o->baseline);
	default:
		return run_cmd_post_option(COMMAND, &o->post, id, args);
	}
}

int cmd_resume(int argc, char **argv)
{
	struct opts o = { 0 };
	const struct cli cli = {
		.command = COMMAND,
		.synopsis = "[CAMPAIGN] [--db PATH] [--post ...]",
		.summary =
			"Goes on with a campaign that was stopped (Ctrl-C, a signal) or whose harness\n"
			"was killed: the run that was cut is played again from the start, then the\n"
			"rest in the campaign's order; finished runs are never played again.  The\n"
			"campaign's folder keeps the plan as it started (paths, profile, inherited\n"
			"environment), so the rest runs as the beginning did.  CAMPAIGN is a name or\n"
			"an id; with none, the newest campaign not finished.  Then the void rules and\n"
			"the table, as 'rxdeck run'.",
		.options = options,
		.on_option = on_option,
		.ctx = &o,
	};
	int npos = 0, exit_code;
	if (!cli_parse_command(&cli, argc, argv, 1, "one campaign at a time", &npos, &exit_code))
		return exit_code;
	if (run_cmd_post_check(COMMAND, &o.post) < 0)
		return RXDECK_EXIT_USAGE;
	struct db *db;
	if (run_cmd_open_db(COMMAND, o.db, false, &db) < 0)
		return RXDECK_EXIT_FAILURE;
	volatile sig_atomic_t *stop = run_cmd_signals();
	struct run_options ro = { .quiet = o.quiet, .stop = stop };
	struct run_campaign *c;
	char msg[2048] = "";
	int rc = run_campaign_open(db, npos ? argv[1] : NULL, &ro, &c, msg, sizeof msg);
	if (rc < 0) {
		cli_error(COMMAND, "%s", msg[0] ? msg : strerror(-rc));
		db_close(db);
		return RXDECK_EXIT_FAILURE;
	}
	if (o.baseline && !plan_arm_find(run_campaign_plan(c), o.baseline)) {
		cli_error(COMMAND, "bad baseline '%c': the campaign has no arm %c", o.baseline, o.baseline);
		run_campaign_destroy(c);
		db_close(db);
		return RXDECK_EXIT_USAGE;
	}
	if (!o.quiet)
		fprintf(stderr, "resuming campaign %s (runs in %s)\n", run_campaign_name(c),
		        run_campaign_dir(c));
	struct run_outcome out;
	rc = run_campaign_play(c, &out, msg, sizeof msg);
	if (rc < 0) {
		cli_error(COMMAND, "%s", msg);
		run_campaign_destroy(c);
		db_close(db);
		return RXDECK_EXIT_FAILURE;
	}
	int code = run_cmd_finish(COMMAND, db, c, &out, &o.post, o.baseline, o.quiet);
	run_campaign_destroy(c);
	db_close(db);
	return code;
}
