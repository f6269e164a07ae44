/* cli: option tables for the rxdeck commands.
 *
 * Every command describes its options as a table of typed rows, after
 * git's parse-options: a row names the option, its argument and help, and
 * either a value pointer the parser writes through (OPT_STRING, OPT_INT,
 * OPT_DURATION, OPT_BOOL, OPT_ARM, OPT_CHOICE) or, for options that mean
 * more than a value, a callback id (OPT_CALLBACK).  cli_parse() walks argv
 * once, collects the positional arguments and prints the generated --help.
 * Options take a fixed number of arguments (`--window 30s 110s` takes two);
 * `--name=value` works for options of one argument; `--` ends the options.
 * A separate argument that starts with "--" is never taken as an option's
 * value (`--db --print-plan` is "option '--db' needs a value"); write
 * `--db=--odd-name` for such a value.
 */
#ifndef RXDECK_CLI_H
#define RXDECK_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum cli_type {
	CLI_CALLBACK = 0, /* handed to cli.on_option with its id */
	CLI_STRING,       /* const char **value = the argument */
	CLI_INT,          /* int64_t *value, a whole number in [min, max] */
	CLI_DURATION,     /* int64_t *value in ms, in the route files' time syntax: "2s", "500ms" */
	CLI_BOOL,         /* bool *value = true; takes no argument */
	CLI_ARM,          /* char *value, one arm letter A to Z */
	CLI_CHOICE,       /* int *value = the index in choices of the argument */
};

struct cli_option {
	const char *name;  /* long name without the dashes: "window" */
	char short_name;   /* 'w', or 0 */
	int nargs;         /* arguments it takes: 0 for a flag */
	const char *args;  /* how --help names them: "START END" */
	const char *help;  /* one line */
	int id;            /* CLI_CALLBACK: handed to the callback; > 0 */
	enum cli_type type;
	void *value;       /* where a typed option writes */
	int64_t min, max;  /* CLI_INT: the range accepted */
	const char *const *choices; /* CLI_CHOICE: names, NULL-terminated; "a=b" makes a another name of b */
	const char *what;  /* a bad argument is "bad WHAT 'x': expected EXPECT" (default: the name) */
	const char *expect; /* (default: said by the type) */
};

#define OPT_CALLBACK(s, l, n, a, h, i) { .name = (l), .short_name = (s), .nargs = (n), \
	.args = (a), .help = (h), .id = (i), .type = CLI_CALLBACK }
#define OPT_STRING(s, l, v, a, h) { .name = (l), .short_name = (s), .nargs = 1, .args = (a), \
	.help = (h), .type = CLI_STRING, .value = (v) }
#define OPT_INT(s, l, v, lo, hi, a, h) { .name = (l), .short_name = (s), .nargs = 1, .args = (a), \
	.help = (h), .type = CLI_INT, .value = (v), .min = (lo), .max = (hi) }
#define OPT_DURATION(s, l, v, a, h) { .name = (l), .short_name = (s), .nargs = 1, .args = (a), \
	.help = (h), .type = CLI_DURATION, .value = (v) }
#define OPT_BOOL(s, l, v, h) { .name = (l), .short_name = (s), .help = (h), .type = CLI_BOOL, \
	.value = (v) }
#define OPT_CHOICE(s, l, v, c, a, h) { .name = (l), .short_name = (s), .nargs = 1, .args = (a), \
	.help = (h), .type = CLI_CHOICE, .value = (v), .choices = (c) }
#define OPT_END { 0 }

/* The options several commands share, with one text each. */
#define OPT_DB(v) OPT_STRING(0, "db", v, "PATH", \
	"the database (default: $XDG_DATA_HOME/rxdeck/results.db)")
#define OPT_BASELINE(v) { .name = "baseline", .short_name = 'b', .nargs = 1, .args = "ARM", \
	.help = "compare against this arm's letter (default: the first arm)", .type = CLI_ARM, \
	.value = (v) }
#define OPT_FORMAT(v, c, a, h) OPT_CHOICE('f', "format", v, c, a, h)
#define OPT_OUTPUT(v) OPT_STRING('o', "output", v, "FILE", \
	"write to FILE, replaced only once complete (default: stdout)")

/* Called for each CLI_CALLBACK option; returns 0, or a negative value to
 * stop parsing (cli_parse() then returns it).  args has nargs entries. */
typedef int (*cli_option_fn)(void *ctx, int id, char **args);

struct cli {
	const char *command;   /* "rxdeck frames" */
	const char *synopsis;  /* "FILE... [--window START END] [--json]" */
	const char *summary;   /* one paragraph for --help */
	const struct cli_option *options; /* ends with OPT_END */
	cli_option_fn on_option;
	void *ctx;
};

/*
 * Parses argv[1..argc) (argv[0] is the command's name).  Positional
 * arguments are moved, in order, to the front of argv + 1; *n_positional
 * says how many.  Returns 0; 1 when --help was printed (the caller exits 0);
 * -EINVAL after printing a usage error to stderr (the caller exits 2); or the
 * callback's negative value.
 */
int cli_parse(const struct cli *cli, int argc, char **argv, int *n_positional);

/*
 * cli_parse() with the exits every command takes.  Returns true to go on;
 * false with *exit_code set to return at once: 0 after --help, 2 after a
 * usage error or when more than max_positional arguments were given (the
 * first extra one is named, `why` after it: "one campaign at a time"); a
 * negative max_positional sets no limit.
 */
bool cli_parse_command(const struct cli *cli, int argc, char **argv, int max_positional,
                       const char *why, int *n_positional, int *exit_code);

/* Prints the generated help to f. */
void cli_help(const struct cli *cli, FILE *f);

/* Prints "rxdeck CMD: " + the formatted message + newline to stderr. */
void cli_error(const char *command, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
