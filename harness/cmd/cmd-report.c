/* cmd-report: `rxdeck report [CAMPAIGN] [--baseline A] [--format
 * text|md|csv|json|html] [--wide] [-v]`, a campaign's answer, table and
 * verdicts (the newest campaign by default).  It owns the command line and
 * what it reads of the terminal (width, colour); the report is
 * report-print.c's and report-term.c's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cmd.h"
#include "report/report.h"

static const char *const formats[] = { "text", "md", "csv", "json", "html", "markdown=md",
	                               "terminal=text", NULL };

unsigned cmd_terminal_width(FILE *f)
{
	struct winsize ws;
	if (isatty(fileno(f)) && ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	const char *c = getenv("COLUMNS");
	char *end;
	long v = c && c[0] ? strtol(c, &end, 10) : 0;
	if (c && c[0] && *end == 0 && v > 0 && v < 10000)
		return (unsigned)v;
	return 80;
}

bool cmd_terminal_colour(FILE *f)
{
	const char *nc = getenv("NO_COLOR");
	return isatty(fileno(f)) && !(nc && nc[0]);
}

int cmd_report(int argc, char **argv, struct cmd_context *ctx)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--across") == 0)
			return cmd_report_across(argc, argv, ctx);
	struct report_options ro = { 0 };
	const char *output = NULL;
	int format = -1;
	bool wide = false, verbose = false;
	const struct cli_option options[] = {
		OPT_BASELINE(&ro.baseline),
		OPT_FORMAT(&format, formats, "text|md|csv|json|html",
		           "output format (default: text for a terminal; md with --output; html: one\n"
		           "self-contained page)"),
		OPT_BOOL('w', "wide", &wide,
		         "text: every metric, however wide; csv: one row per arm and metric"),
		OPT_BOOL('v', "verbose", &verbose,
		         "text: then every run's value, every verdict with its interval, the drift"),
		OPT_BOOL(0, "embed-shots", &ro.embed_shots,
		         "html: the route shots inside the page (base64 PNG), not linked"),
		OPT_BOOL(0, "embed", &ro.embed_plots,
		         "html: the plots as PNG pictures inside the page (and the shots with\n"
		         "--embed-shots), for mail and chat that show no SVG"),
		OPT_OUTPUT(&output),
		OPT_DB(&ctx->db_path),
		OPT_END,
	};
	const struct cli cli = {
		.command = ctx->command,
		.synopsis = "[CAMPAIGN] [--baseline ARM] [--format text|md|csv|json|html] [--wide] [-v]\n"
		            "       [--embed] [--embed-shots] [--output FILE] [--db PATH]\n"
		            "       rxdeck report --across CAMPAIGN... (several hosts' campaigns: see --across --help)",
		.summary = "Prints a campaign's answer and comparison (the newest campaign when none is\n"
		           "named; a name or an id).  Every format opens with the headline: one line\n"
		           "per arm against the baseline on the primary metrics (its state, Δ % with\n"
		           "its interval, the runs), then the best arm among those decided, or the\n"
		           "rounds that would decide one.  text (the default) is for a terminal: one\n"
		           "row per arm, a column per metric (mean ± the interval of the mean, Δ %,\n"
		           "the state, p and n), fitted to the terminal's width by leaving out\n"
		           "secondary metrics, coloured by state unless NO_COLOR is set or the\n"
		           "output is no terminal; --wide shows every metric, -v adds the whole\n"
		           "Markdown report.  md is the Markdown for files (each run's value, the\n"
		           "verdicts with Δ, interval, p, df and runs); csv one line per number, or\n"
		           "with --wide one row per arm and metric; json the document\n"
		           "docs/reports.md defines (schema_version 2); html the morning page, led\n"
		           "by the headline and charts.",
		.options = options,
	};
	int npos = 0, exit_code;
	if (!cmd_parse(ctx, &cli, argc, argv, 1, "one campaign at a time", &npos, &exit_code))
		return exit_code;
	static const enum report_format format_of[] = { REPORT_FORMAT_TERM, REPORT_FORMAT_MD,
		                                        REPORT_FORMAT_CSV, REPORT_FORMAT_JSON,
		                                        REPORT_FORMAT_HTML };
	if (format < 0)
		format = output ? 1 : 0;
	ro.format = format_of[format];
	if (ro.embed_shots && ro.format != REPORT_FORMAT_HTML) {
		cli_error(ctx->command, "--embed-shots is for --format html");
		return RXDECK_EXIT_USAGE;
	}
	if (ro.embed_plots && ro.format != REPORT_FORMAT_HTML) {
		cli_error(ctx->command, "--embed is for --format html");
		return RXDECK_EXIT_USAGE;
	}
	if (wide && ro.format != REPORT_FORMAT_TERM && ro.format != REPORT_FORMAT_CSV) {
		cli_error(ctx->command, "--wide is for --format text or csv");
		return RXDECK_EXIT_USAGE;
	}
	if (verbose && ro.format != REPORT_FORMAT_TERM) {
		cli_error(ctx->command, "-v is for --format text (md already has everything)");
		return RXDECK_EXIT_USAGE;
	}
	ro.csv_wide = wide;
	ro.verbose = verbose;
	if (ro.format == REPORT_FORMAT_TERM) {
		ro.term_width = wide || output ? 0 : cmd_terminal_width(stdout);
		ro.term_colour = !output && cmd_terminal_colour(stdout);
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
