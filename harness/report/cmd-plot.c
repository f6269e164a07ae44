/* cmd-plot: `rxdeck plot [CAMPAIGN] [--out DIR]`, a campaign's SVG plots.
 * It owns the command line; the plots are report-plot.c's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "report/report-private.h"

#define COMMAND "rxdeck plot"

enum { OPT_DB = 1, OPT_OUT };

static const struct cli_option options[] = {
	{ "out", 'o', 1, "DIR", "write the SVG files into DIR (default: the current folder)", OPT_OUT },
	{ "db", 0, 1, "PATH", "the database (default: $XDG_DATA_HOME/rxdeck/results.db)", OPT_DB },
	{ NULL, 0, 0, NULL, NULL, 0 },
};

struct opts {
	const char *db;
	const char *out;
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
	}
	return -EINVAL;
}

int cmd_plot(int argc, char **argv)
{
	struct opts o = { .out = "." };
	const struct cli cli = {
		.command = COMMAND,
		.synopsis = "[CAMPAIGN] [--out DIR] [--db PATH]",
		.summary = "Draws a campaign's plots as SVG files a browser opens (the newest campaign\n"
		           "when none is named): DATE-CAMPAIGN-frametime.svg (frame time over the\n"
		           "route, each arm's median run, with the route's marks and shots),\n"
		           "DATE-CAMPAIGN-distribution.svg (frame-time distribution per arm) and\n"
		           "DATE-CAMPAIGN-fps.svg (real fps of every run in campaign order, so drift\n"
		           "over a night shows).  A plot without data is not written.",
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
	struct report_options ro = { .errmsg = msg, .errmsg_size = sizeof msg };
	size_t n = 0;
	exit_code = RXDECK_EXIT_OK;
	if (report_plot_write(db, id, o.out, &ro, &n) != 0) {
		cli_error(COMMAND, "%s", msg);
		exit_code = RXDECK_EXIT_FAILURE;
	} else if (n == 0) {
		cli_error(COMMAND, "nothing to plot: the campaign has no finished run with frames or fps");
		exit_code = RXDECK_EXIT_FAILURE;
	} else {
		printf("%zu plot%s in '%s'\n", n, n == 1 ? "" : "s", o.out);
	}
	db_close(db);
	return exit_code;
}
