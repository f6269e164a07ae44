/* The rxdeck subcommands and exit codes: one table, documented as data.
 *
 * Each subcommand lives in its own file (cmd-run.c -> cmd_run) with the
 * signature int cmd_X(int argc, char **argv), argv[0] being its name, and
 * returns one of the exit codes below.
 */
#ifndef RXDECK_COMMANDS_H
#define RXDECK_COMMANDS_H

enum rxdeck_exit {
	RXDECK_EXIT_OK = 0,        /* done */
	RXDECK_EXIT_FAILURE = 1,   /* the work failed or the input is bad (message says which) */
	RXDECK_EXIT_USAGE = 2,     /* the command line is wrong */
	RXDECK_EXIT_PARTIAL = 3,   /* done, but some runs are void or some posts queued */
	RXDECK_EXIT_INTERRUPTED = 4, /* stopped by a signal; `rxdeck resume` continues */
};

struct rxdeck_command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

/* The table, in rxdeck.c.  Ends with a zeroed entry. */
extern const struct rxdeck_command rxdeck_commands[];

/* Exit codes with their meaning, for --help and the man page. */
struct rxdeck_exit_doc {
	int code;
	const char *meaning;
};
extern const struct rxdeck_exit_doc rxdeck_exit_docs[];

/* One declaration per subcommand file. */
int cmd_frames(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_resume(int argc, char **argv);
int cmd_ab(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_deck(int argc, char **argv);
int cmd_db(int argc, char **argv);
int cmd_route(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_tested(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_post(int argc, char **argv);

#endif
