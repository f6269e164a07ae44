/* rxdeck: the harness's entry point.  It owns the top-level --help (and a
 * bare `rxdeck help`; `rxdeck help CMD` is the dispatcher's) and
 * --version; the command table is cmd-table.c's, every command's work its
 * cmd-*.c file's. */
#include "cmd/cmd.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *f)
{
	fprintf(f, "usage: rxdeck COMMAND [ARGS...]\n\n"
	           "Runs interleaved A/B/C/D campaigns of renderer switches on a game with a\n"
	           "scripted pad route, stores every run in SQLite and reports the comparison.\n\n"
	           "commands:\n");
	for (const struct rxdeck_command *c = rxdeck_commands; c->name; c++)
		fprintf(f, "  %-14s %s\n", c->name, c->summary);
	fprintf(f, "\n'rxdeck help COMMAND' (or 'rxdeck COMMAND --help') describes one command.\n\n"
	           "exit codes:\n");
	for (const struct rxdeck_exit_doc *e = rxdeck_exit_docs; e->meaning; e++)
		fprintf(f, "  %d  %s\n", e->code, e->meaning);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return RXDECK_EXIT_USAGE;
	}
	bool help = strcmp(argv[1], "help") == 0;
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    (help && (argc == 2 || strcmp(argv[2], "help") == 0 || strcmp(argv[2], "--help") == 0 ||
	              strcmp(argv[2], "-h") == 0))) {
		usage(stdout);
		return RXDECK_EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("rxdeck %s\n", RXDECK_VERSION);
		return RXDECK_EXIT_OK;
	}
	return cmd_dispatch(argc - 1, argv + 1);
}
