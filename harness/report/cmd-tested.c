/* cmd-tested: `rxdeck tested [CAMPAIGN] [--out DIR]`, a campaign's run file
 * for docs/tested/ (format in docs/tested-configurations.md).  It owns the
 * command line; the file is report-tested.c's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "report/report-private.h"

#define COMMAND "rxdeck tested"

enum { OPT_DB = 1, OPT_BASELINE, OPT_OUT, OPT_STDOUT };

static const struct cli_option options[] = {
	{ "out", 'o', 1, "DIR", "write the run file into DIR (default: docs/tested)", OPT_OUT },
	{ "stdout", 0, 0, NULL, "print the run file instead of writing it", OPT_STDOUT },
	{ "baseline", 'b', 1, "ARM", "compare against this arm's letter (default: the first arm)", OPT_BASELINE },
	{ "db", 0, 1, "PATH", "the database (default: $XDG_DATA_HOME/rxdeck/results.db)", OPT_DB },
	{ NULL, 0, 0, NULL, NULL, 0 },
};

struct opts {
	const char *db;
	const char *out;
	bool to_stdout;
	struct report_options ro;
};

static int on_option(void *ctx, int id, char **args)
{
	struct opts *o = ctx;
	switch (id) {
	case OPT_DB:
		o->db = args[0];
		return 0;
	case OPT_OUT:
		o->out = args[0];
		return 0;
	case OPT_STDOUT:
		o->to_stdout = true;
		return 0;
	case OPT_BASELINE:
		return report_parse_baseline(COMMAND, args[0], &o->ro.baseline);
	}
	return -EINVAL;
}

int cmd_tested(int argc, char **argv)
{
	struct opts o = { .out = "docs/tested" };
	const struct cli cli = {
		.command = COMMAND,
		.synopsis = "[CAMPAIGN] [--out DIR] [--stdout] [--baseline ARM] [--db PATH]",
		.summary = "Writes a campaign's run file (the newest campaign when none is named): its\n"
		           "date, builds with commits and checksums, hardware, settings, route and\n"
		           "window, method, the table and verdicts, void runs with reasons and how to\n"
		           "reproduce it, in the format docs/tested-configurations.md defines.  The\n"
		           "name is stable (DATE-CAMPAIGN.md): writing again gives the same file, and a\n"
		           "file of that name from another campaign is never touched.",
		.options = options,
		.on_option = on_option,
		.ctx = &o,
	};
	int npos = 0, exit_code;
	if (!cli_parse_command(&cli, argc, argv, 1, "one campaign at a time", &npos, &exit_code))
		return exit_code;
	struct db *db;
	int64_t id;
	if (report_cmd_open(COMMAND, o.db, npos ? argv[1] : NULL, &db, &id))
		return RXDECK_EXIT_FAILURE;
	char msg[1024] = "";
	o.ro.errmsg = msg;
	o.ro.errmsg_size = sizeof msg;
	exit_code = RXDECK_EXIT_OK;
	if (o.to_stdout) {
		if (report_tested_print(db, id, &o.ro, stdout) != 0) {
			cli_error(COMMAND, "%s", msg);
			exit_code = RXDECK_EXIT_FAILURE;
		}
	} else {
		char *path = NULL;
		if (report_tested_write(db, id, o.out, &o.ro, &path) != 0) {
			cli_error(COMMAND, "%s", msg);
			exit_code = RXDECK_EXIT_FAILURE;
		} else {
			printf("%s\n", path);
		}
		free(path);
	}
	db_close(db);
	return exit_code;
}
