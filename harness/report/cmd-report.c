/* cmd-report: `rxdeck report [CAMPAIGN] [--baseline A] [--format md|csv|json]`,
 * the comparison table and verdicts of a campaign (the newest by default).
 * It owns the command line; the report is report-print.c's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "report/report-private.h"

#define COMMAND "rxdeck report"

enum { OPT_DB = 1, OPT_BASELINE, OPT_FORMAT, OPT_OUTPUT };

static const struct cli_option options[] = {
	{ "baseline", 'b', 1, "ARM", "compare against this arm's letter (default: the first arm)", OPT_BASELINE },
	{ "format", 'f', 1, "md|csv|json", "output format (default: md, Markdown)", OPT_FORMAT },
	{ "output", 'o', 1, "FILE", "write to FILE, replaced only once complete (default: stdout)", OPT_OUTPUT },
	{ "db", 0, 1, "PATH", "the database (default: $XDG_DATA_HOME/rxdeck/results.db)", OPT_DB },
	{ NULL, 0, 0, NULL, NULL, 0 },
};

struct opts {
	const char *db;
	const char *output;
	struct report_options ro;
};

static int on_option(void *ctx, int id, char **args)
{
	struct opts *o = ctx;
	switch (id) {
	case OPT_DB:
		o->db = args[0];
		return 0;
	case OPT_OUTPUT:
		o->output = args[0];
		return 0;
	case OPT_BASELINE:
		return report_parse_baseline(COMMAND, args[0], &o->ro.baseline);
	case OPT_FORMAT:
		if (strcmp(args[0], "md") == 0 || strcmp(args[0], "markdown") == 0)
			o->ro.format = REPORT_FORMAT_MD;
		else if (strcmp(args[0], "csv") == 0)
			o->ro.format = REPORT_FORMAT_CSV;
		else if (strcmp(args[0], "json") == 0)
			o->ro.format = REPORT_FORMAT_JSON;
		else {
			cli_error(COMMAND, "bad format '%s': expected md, csv or json", args[0]);
			return -EINVAL;
		}
		return 0;
	}
	return -EINVAL;
}

int cmd_report(int argc, char **argv)
{
	struct opts o = { 0 };
	const struct cli cli = {
		.command = COMMAND,
		.synopsis = "[CAMPAIGN] [--baseline ARM] [--format md|csv|json] [--output FILE] [--db PATH]",
		.summary = "Prints a campaign's comparison (the newest campaign when none is named; a\n"
		           "name or an id): one column per arm, one row per metric with each run's\n"
		           "value then the mean, Δ and Δ% against the baseline, void runs with their\n"
		           "reason (never counted), and the verdict per metric with the spreads, the\n"
		           "usable runs, a Mann-Whitney p-value from 3 runs an arm, and how many more\n"
		           "rounds a difference within the spread would need.  CSV and JSON carry the\n"
		           "same numbers per run and per arm; docs/reports.md defines them.",
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
	if (o.output) {
		char *text = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&text, &len);
		int err = mem ? report_print(db, id, &o.ro, mem) : -ENOMEM;
		if (mem && fclose(mem) != 0 && !err)
			err = -ENOMEM;
		if (!err && (err = report_atomic_write(o.output, text, len)))
			snprintf(msg, sizeof msg, "cannot write '%s': %s", o.output, strerror(-err));
		if (err) {
			cli_error(COMMAND, "%s", msg[0] ? msg : strerror(-err));
			exit_code = RXDECK_EXIT_FAILURE;
		}
		free(text);
	} else if (report_print(db, id, &o.ro, stdout) != 0) {
		cli_error(COMMAND, "%s", msg);
		exit_code = RXDECK_EXIT_FAILURE;
	}
	db_close(db);
	return exit_code;
}
