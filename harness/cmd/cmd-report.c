/* cmd-report: `rxdeck report [CAMPAIGN] [--baseline A] [--format md|csv|json|html]`,
 * the comparison table and verdicts of a campaign (the newest by default).
 * It owns the command line; the report is report-print.c's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "report/report.h"

static const char *const formats[] = { "md", "csv", "json", "html", "markdown=md", NULL };

int cmd_report(int argc, char **argv, struct cmd_context *ctx)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--across") == 0)
			return cmd_report_across(argc, argv, ctx);
	struct report_options ro = { 0 };
	const char *output = NULL;
	int format = 0;
	const struct cli_option options[] = {
		OPT_BASELINE(&ro.baseline),
		OPT_FORMAT(&format, formats, "md|csv|json|html",
		           "output format (default: md, Markdown; html: one self-contained page)"),
		OPT_BOOL(0, "embed-shots", &ro.embed_shots,
		         "html: the route shots inside the page (base64 PNG), not linked"),
		OPT_OUTPUT(&output),
		OPT_DB(&ctx->db_path),
		OPT_END,
	};
	const struct cli cli = {
		.command = ctx->command,
		.synopsis = "[CAMPAIGN] [--baseline ARM] [--format md|csv|json|html] [--embed-shots]\n"
		            "       [--output FILE] [--db PATH]\n"
		            "       rxdeck report --across CAMPAIGN... (several hosts' campaigns: see --across --help)",
		.summary = "Prints a campaign's comparison (the newest campaign when none is named; a\n"
		           "name or an id): one column per arm, one row per metric with each run's\n"
		           "value then the mean, Δ and Δ% against the baseline, void runs with their\n"
		           "reason (never counted), and the decision per metric: faster, slower, same\n"
		           "or undecided, with Δ, its 95 % interval, p and the runs, and for an\n"
		           "undecided primary metric the rounds it would need.  CSV and JSON carry the\n"
		           "same numbers per run and per arm; docs/reports.md defines them.  HTML is\n"
		           "one self-contained page (no script, nothing fetched): the header, the\n"
		           "same table and verdicts, the plots, the void runs and the route shot\n"
		           "grid, shots linked into the run folders or embedded with --embed-shots.",
		.options = options,
	};
	int npos = 0, exit_code;
	if (!cmd_parse(ctx, &cli, argc, argv, 1, "one campaign at a time", &npos, &exit_code))
		return exit_code;
	static const enum report_format format_of[] = { REPORT_FORMAT_MD, REPORT_FORMAT_CSV,
		                                        REPORT_FORMAT_JSON, REPORT_FORMAT_HTML };
	ro.format = format_of[format];
	if (ro.embed_shots && ro.format != REPORT_FORMAT_HTML) {
		cli_error(ctx->command, "--embed-shots is for --format html");
		return RXDECK_EXIT_USAGE;
	}
	struct db *db = ctx->db;
	int64_t id = ctx->campaign_id;
	char msg[1024] = "";
	ro.errmsg = msg;
	ro.errmsg_size = sizeof msg;
	exit_code = RXDECK_EXIT_OK;
	if (output) {
		if (report_print_file(db, id, &ro, output) != 0) {
			cli_error(ctx->command, "%s", msg);
			exit_code = RXDECK_EXIT_FAILURE;
		}
	} else if (report_print(db, id, &ro, stdout) != 0) {
		cli_error(ctx->command, "%s", msg);
		exit_code = RXDECK_EXIT_FAILURE;
	}
	return exit_code;
}
