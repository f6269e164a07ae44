/* rxdeck: the harness's entry point.  It owns the subcommand table and the
 * exit-code table; every subcommand's work lives in its cmd-*.c file. */
#include "commands.h"

#include <stdio.h>
#include <string.h>

const struct rxdeck_exit_doc rxdeck_exit_docs[] = {
	{ RXDECK_EXIT_OK, "done" },
	{ RXDECK_EXIT_FAILURE, "the work failed or the input is bad; the message says which" },
	{ RXDECK_EXIT_USAGE, "the command line is wrong" },
	{ RXDECK_EXIT_PARTIAL, "done, but some runs are void or some posts are still queued" },
	{ RXDECK_EXIT_INTERRUPTED, "stopped by a signal; `rxdeck resume` continues the campaign" },
	{ 0, NULL },
};

const struct rxdeck_command rxdeck_commands[] = {
	/* rows: { "name", cmd_name, "summary" }, kept in this order of use */
	{ "run", cmd_run, "run a campaign: arms of env switches, interleaved, measured, then the table" },
	{ "resume", cmd_resume, "go on with a campaign that was stopped or whose harness was killed" },
	{ "ab", cmd_ab, "quick two-arm A/B of one change: another build, or a few env switches" },
	{ "list", cmd_list, "the campaigns in the results database" },
	{ "show", cmd_show, "one campaign (builds, arms, runs) or one run (metrics, shots, samples)" },
	{ "import", cmd_import, "add a run made elsewhere (a frame log, a game log) to a campaign" },
	{ "route", cmd_route, "check, play (into a virtual pad) or record route files" },
	{ "frames", cmd_frames, "metrics of frame logs (renderer or MangoHud CSV), no campaign needed" },
	{ "report", cmd_report, "a campaign's table and verdicts as Markdown, CSV or JSON" },
	{ "tested", cmd_tested, "write a campaign's run file for docs/tested/" },
	{ "plot", cmd_plot, "SVG plots of a campaign: frame time over the route, distribution, fps per run" },
	{ "post", cmd_post, "post a campaign's summary to a Forgejo/Gitea pull request or issue" },
	{ "deck", cmd_deck, "host facts and sensors (info), GPU performance level and clock (clock)" },
	{ "db", cmd_db, "results database: migrate to this schema, export or import campaigns as JSON" },
	{ NULL, NULL, NULL },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: rxdeck COMMAND [ARGS...]\n\n"
	           "Runs interleaved A/B/C/D campaigns of renderer switches on a game with a\n"
	           "scripted pad route, stores every run in SQLite and reports the comparison.\n\n"
	           "commands:\n");
	for (const struct rxdeck_command *c = rxdeck_commands; c->name; c++)
		fprintf(f, "  %-14s %s\n", c->name, c->summary);
	fprintf(f, "\n'rxdeck COMMAND --help' describes one command.\n\nexit codes:\n");
	for (const struct rxdeck_exit_doc *e = rxdeck_exit_docs; e->meaning; e++)
		fprintf(f, "  %d  %s\n", e->code, e->meaning);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return RXDECK_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return RXDECK_EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("rxdeck %s\n", RXDECK_VERSION);
		return RXDECK_EXIT_OK;
	}
	for (const struct rxdeck_command *c = rxdeck_commands; c->name; c++)
		if (strcmp(c->name, argv[1]) == 0)
			return c->fn(argc - 1, argv + 1);
	fprintf(stderr, "rxdeck: unknown command '%s' (see 'rxdeck --help')\n", argv[1]);
	return RXDECK_EXIT_USAGE;
}
