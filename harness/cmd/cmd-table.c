/* cmd-table: the rxdeck commands and exit codes as data, and the dispatcher
 * that runs a command with the set-up its row asks for (cmd.h).  The
 * commands' work lives in their cmd-*.c files. */
#include "cmd.h"

#include <string.h>

#include "results-db/db.h"

const struct rxdeck_exit_doc rxdeck_exit_docs[] = {
	{ RXDECK_EXIT_OK, "done" },
	{ RXDECK_EXIT_FAILURE, "the work failed or the input is bad; the message says which" },
	{ RXDECK_EXIT_USAGE, "the command line is wrong" },
	{ RXDECK_EXIT_PARTIAL, "done, but some runs are void or some posts are still queued" },
	{ RXDECK_EXIT_INTERRUPTED, "stopped by a signal; `rxdeck resume` continues the campaign" },
	{ RXDECK_EXIT_NOT_STARTED, "not started or resumed: the deadline is less than one round away, or passed (--scheduled)" },
	{ 0, NULL },
};

#define DB CMD_NEEDS_DB
#define CAMPAIGN (CMD_NEEDS_DB | CMD_NEEDS_CAMPAIGN)

const struct rxdeck_command rxdeck_commands[] = {
	/* rows: { "name", cmd_name, set-up, "summary" }, kept in this order of use */
	{ "run", cmd_run, 0, "run a campaign: arms of env switches, interleaved, measured, then the table" },
	{ "resume", cmd_resume, 0, "go on with a campaign that was stopped or whose harness was killed" },
	{ "ab", cmd_ab, 0, "quick two-arm A/B of one change: another build, or a few env switches" },
	{ "list", cmd_list, DB, "the campaigns in the results database" },
	{ "show", cmd_show, 0, "one campaign (builds, arms, runs) or one run (metrics, shots, samples)" },
	{ "import", cmd_import, 0, "add runs made elsewhere (frame logs, a game log) to a campaign, making it when needed" },
	{ "route", cmd_route, 0, "check, play (into a virtual pad) or record route files" },
	{ "frames", cmd_frames, 0, "metrics of frame logs (renderer or MangoHud CSV), no campaign needed" },
	{ "export-frames", cmd_export_frames, 0, "one run's frames as a MangoHud CSV log (for FlightlessSomething)" },
	{ "report", cmd_report, CAMPAIGN, "a campaign's table and verdicts as Markdown, CSV or JSON" },
	{ "tested", cmd_tested, CAMPAIGN, "write a campaign's run file for docs/tested/" },
	{ "plot", cmd_plot, CAMPAIGN, "SVG plots of a campaign: frame time over the route, distribution, fps per run" },
	{ "post", cmd_post, 0, "post a campaign's summary to a Forgejo/Gitea pull request or issue" },
	{ "deck", cmd_deck, 0, "host facts and sensors (info), the night's assumptions checked (check), GPU performance level and clock (clock)" },
	{ "db", cmd_db, 0, "results database: migrate to this schema, export or import campaigns as JSON" },
	{ NULL, NULL, 0, NULL },
};

int cmd_dispatch(int argc, char **argv)
{
	for (const struct rxdeck_command *c = rxdeck_commands; c->name; c++) {
		if (strcmp(c->name, argv[0]) != 0)
			continue;
		char command[64];
		snprintf(command, sizeof command, "rxdeck %s", c->name);
		struct cmd_context ctx = { .command = command, .flags = c->flags };
		int rc = c->fn(argc, argv, &ctx);
		db_close(ctx.db);
		return rc;
	}
	fprintf(stderr, "rxdeck: unknown command '%s' (see 'rxdeck --help')\n", argv[0]);
	return RXDECK_EXIT_USAGE;
}
