/* cmd-plot: `rxdeck plot [CAMPAIGN] [--out DIR] [--png]`, a campaign's
 * plots as SVG files, and PNG beside them.  It owns the command line; the
 * plots are report-plot.c's, the PNGs report-png.c's (librsvg). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "report/report.h"

int cmd_plot(int argc, char **argv, struct cmd_context *ctx)
{
	const char *out = ".";
	bool png = false;
	const struct cli_option options[] = {
		OPT_STRING('o', "out", &out, "DIR", "write the files into DIR (default: the current folder)"),
		OPT_BOOL(0, "png", &png, "a PNG of each plot beside its SVG, for chat, forums and mail"),
		OPT_DB(&ctx->db_path),
		OPT_END,
	};
	const struct cli cli = {
		.command = ctx->command,
		.synopsis = "[CAMPAIGN] [--out DIR] [--png] [--db PATH]",
		.summary = "Draws a campaign's plots as SVG files a browser opens (the newest campaign\n"
		           "when none is named): DATE-CAMPAIGN-frametime.svg (frame time over the\n"
		           "route, each arm's median run, with the route's marks and shots),\n"
		           "DATE-CAMPAIGN-distribution.svg (frame-time distribution per arm) and\n"
		           "DATE-CAMPAIGN-fps.svg (real fps of every run in campaign order, so drift\n"
		           "over a night shows); with --png a PNG of each beside it, drawn from the\n"
		           "SVG by librsvg.  Prints each file it wrote.  A plot without data is not\n"
		           "written.",
		.options = options,
	};
	int npos = 0, exit_code;
	if (!cmd_parse(ctx, &cli, argc, argv, 1, "one campaign at a time", &npos, &exit_code))
		return exit_code;
	struct db *db = ctx->db;
	int64_t id = ctx->campaign_id;
	char msg[1024] = "";
	struct report_options ro = { .errmsg = msg, .errmsg_size = sizeof msg, .plots_png = png };
	char **paths = NULL;
	size_t n = 0;
	exit_code = RXDECK_EXIT_OK;
	if (report_plot_write_files(db, id, out, &ro, &paths, &n) != 0) {
		cli_error(ctx->command, "%s", msg);
		exit_code = RXDECK_EXIT_FAILURE;
	} else if (n == 0) {
		cli_error(ctx->command, "nothing to plot: the campaign has no finished run with frames or fps");
		exit_code = RXDECK_EXIT_FAILURE;
	}
	for (size_t i = 0; i < n; i++) {
		printf("%s\n", paths[i]);
		free(paths[i]);
	}
	free(paths);
	return exit_code;
}
