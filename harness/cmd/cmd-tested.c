/* cmd-tested: `rxdeck tested [CAMPAIGN] [--out DIR]`, a campaign's run file
 * for docs/tested/ (format in docs/tested-configurations.md).  It owns the
 * command line; the file is report-tested.c's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "report/report-private.h"

int cmd_tested(int argc, char **argv, struct cmd_context *ctx)
{
	const char *out = "docs/tested";
	bool to_stdout = false;
	struct report_options ro = { 0 };
	const struct cli_option options[] = {
		OPT_STRING('o', "out", &out, "DIR", "write the run file into DIR (default: docs/tested)"),
		OPT_BOOL(0, "stdout", &to_stdout, "print the run file instead of writing it"),
		OPT_BASELINE(&ro.baseline),
		OPT_DB(&ctx->db_path),
		OPT_END,
	};
	const struct cli cli = {
		.command = ctx->command,
		.synopsis = "[CAMPAIGN] [--out DIR] [--stdout] [--baseline ARM] [--db PATH]",
		.summary = "Writes a campaign's run file (the newest campaign when none is named): its\n"
		           "date, builds with commits and checksums, hardware, settings, route and\n"
		           "window, method, the table and verdicts, void runs with reasons and how to\n"
		           "reproduce it, in the format docs/tested-configurations.md defines.  The\n"
		           "name is stable (DATE-CAMPAIGN.md): writing again gives the same file, and a\n"
		           "file of that name from another campaign is never touched.",
		.options = options,
	};
	int npos = 0, exit_code;
	if (!cmd_parse(ctx, &cli, argc, argv, 1, "one campaign at a time", &npos, &exit_code))
		return exit_code;
	struct db *db = ctx->db;
	int64_t id = ctx->campaign_id;
	char msg[1024] = "";
	ro.errmsg = msg;
	ro.errmsg_size = sizeof msg;
	exit_code = RXDECK_EXIT_OK;
	if (to_stdout) {
		if (report_tested_print(db, id, &ro, stdout) != 0) {
			cli_error(ctx->command, "%s", msg);
			exit_code = RXDECK_EXIT_FAILURE;
		}
	} else {
		char *path = NULL;
		if (report_tested_write(db, id, out, &ro, &path) != 0) {
			cli_error(ctx->command, "%s", msg);
			exit_code = RXDECK_EXIT_FAILURE;
		} else {
			printf("%s\n", path);
		}
		free(path);
	}
	return exit_code;
}
