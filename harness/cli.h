/* cli: option tables for the rxdeck subcommands.
 *
 * Every subcommand describes its options as a table; cli_parse() walks argv
 * once, hands each option (with its arguments) to a callback, collects the
 * positional arguments, and prints the generated --help.  Options take a
 * fixed number of arguments (`--window 30s 110s` takes two); `--name=value`
 * works for options of one argument; `--` ends the options.
 */
#ifndef RXDECK_CLI_H
#define RXDECK_CLI_H

#include <stdbool.h>
#include <stdio.h>

struct cli_option {
	const char *name;  /* long name without the dashes: "window" */
	char short_name;   /* 'w', or 0 */
	int nargs;         /* arguments it takes: 0 for a flag */
	const char *args;  /* how --help names them: "START END" */
	const char *help;  /* one line */
	int id;            /* handed to the callback; > 0 */
};

/* Called for each option; returns 0, or a negative value to stop parsing
 * (cli_parse() then returns it).  args has nargs entries. */
typedef int (*cli_option_fn)(void *ctx, int id, char **args);

struct cli {
	const char *command;   /* "rxdeck frames" */
	const char *synopsis;  /* "FILE... [--window START END] [--json]" */
	const char *summary;   /* one paragraph for --help */
	const struct cli_option *options; /* ends with a zeroed entry */
	cli_option_fn on_option;
	void *ctx;
};

/*
 * Parses argv[1..argc) (argv[0] is the subcommand's name).  Positional
 * arguments are moved, in order, to the front of argv + 1; *n_positional
 * says how many.  Returns 0; 1 when --help was printed (the caller exits 0);
 * -EINVAL after printing a usage error to stderr (the caller exits 2); or the
 * callback's negative value.
 */
int cli_parse(const struct cli *cli, int argc, char **argv, int *n_positional);

/*
 * cli_parse() with the exits every subcommand takes.  Returns true to go
 * on; false with *exit_code set to return at once: 0 after --help, 2 after
 * a usage error or when more than max_positional arguments were given (the
 * first extra one is named, `why` after it: "one campaign at a time");
 * a negative max_positional sets no limit.
 */
bool cli_parse_command(const struct cli *cli, int argc, char **argv, int max_positional,
                       const char *why, int *n_positional, int *exit_code);

/* Prints the generated help to f. */
void cli_help(const struct cli *cli, FILE *f);

/* Prints "rxdeck CMD: " + the formatted message + newline to stderr. */
void cli_error(const char *command, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
