/* cmd: the rxdeck commands, their table and exit codes, documented as data.
 *
 * After git's git.c: each command lives in its own file (cmd-run.c ->
 * cmd_run) and its row in rxdeck.c's table says what it needs set up
 * (CMD_NEEDS_DB, CMD_NEEDS_CAMPAIGN).  A command parses its options with
 * cmd_parse(), which then does that set-up once, the same way for every
 * command: the database at --db (or the default) opened, the campaign named
 * by the first argument (or the newest) resolved.  The command never opens
 * the database itself; cmd_dispatch() closes it after the command returns.
 * The set-up runs after the options because --db is one of them.
 *
 * Library modules (route, pad, plan, run, collect, stats, report, forge)
 * hold no commands; everything about command lines lives here.
 */
#ifndef RXDECK_CMD_H
#define RXDECK_CMD_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli.h"
#include "forge/forge.h"

struct db;
struct run_campaign;
struct run_outcome;

enum rxdeck_exit {
	RXDECK_EXIT_OK = 0,        /* done */
	RXDECK_EXIT_FAILURE = 1,   /* the work failed or the input is bad (message says which) */
	RXDECK_EXIT_USAGE = 2,     /* the command line is wrong */
	RXDECK_EXIT_PARTIAL = 3,   /* done, but some runs are void or some posts queued */
	RXDECK_EXIT_INTERRUPTED = 4, /* stopped by a signal; `rxdeck resume` continues */
	RXDECK_EXIT_NOT_STARTED = 5, /* not started: the deadline is less than one round away */
};

/* What a command's row asks cmd_parse() to set up. */
enum cmd_flags {
	CMD_NEEDS_DB = 1 << 0,       /* open the existing database (never created) */
	CMD_NEEDS_CAMPAIGN = 1 << 1, /* with CMD_NEEDS_DB: resolve the campaign the first
	                                argument names (a name or an id; none: the newest) */
	CMD_DB_CREATE = 1 << 2,      /* with CMD_NEEDS_DB: create it when missing */
	CMD_DB_NO_MIGRATE = 1 << 3,  /* with CMD_NEEDS_DB: open as it is (db migrate) */
};

/* What the dispatcher hands a command, and what set-up fills in. */
struct cmd_context {
	const char *command;  /* "rxdeck report", "rxdeck db export": messages start with it */
	unsigned flags;       /* the row's enum cmd_flags */
	const char *db_path;  /* OPT_DB(&ctx->db_path) writes here; NULL: the default */
	struct db *db;        /* open once set up (CMD_NEEDS_DB or cmd_open_db()) */
	int64_t campaign_id;  /* resolved once set up (CMD_NEEDS_CAMPAIGN or cmd_find_campaign()) */
};

typedef int (*cmd_fn)(int argc, char **argv, struct cmd_context *ctx);

struct rxdeck_command {
	const char *name;
	cmd_fn fn;
	unsigned flags;
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

/*
 * Runs the command argv[0] names ("report", with its arguments after it):
 * finds its row, runs it with a fresh context and closes what set-up
 * opened.  Returns the command's exit code; RXDECK_EXIT_USAGE (after a
 * message) for a name that is no command.
 */
int cmd_dispatch(int argc, char **argv);

/* A subcommand's row (`rxdeck db export`): its name, function and flags. */
struct cmd_sub {
	const char *name;
	cmd_fn fn;
	unsigned flags;
};

/*
 * Runs the subcommand argv[1] names from subs (ends with a zeroed row),
 * with ctx->command "COMMAND SUB" and the row's flags; usage() prints the
 * command's own help (to stdout for --help, -h and help; to stderr with
 * exit 2 when no subcommand is given).  An unknown name is a usage error
 * listing the names.
 */
int cmd_dispatch_sub(struct cmd_context *ctx, const struct cmd_sub *subs, void (*usage)(FILE *f),
                     int argc, char **argv);

/*
 * cli_parse_command() (cli.h), then the set-up the row's flags ask for,
 * the first positional argument naming the campaign.  Returns true to go
 * on; false with *exit_code set: 0 after --help, 2 after a usage error, 1
 * when the database or the campaign could not be had (the reason printed).
 */
bool cmd_parse(struct cmd_context *ctx, const struct cli *cli, int argc, char **argv,
               int max_positional, const char *why, int *n_positional, int *exit_code);

/*
 * Opens the database at ctx->db_path for commands that decide late whether
 * they need one (`run --print-plan` never does); flags as the row's.  A
 * second call returns the open one.  0, or a negative errno after printing
 * "COMMAND: why".
 */
int cmd_open_db(struct cmd_context *ctx, unsigned flags);

/* Resolves campaign (a name or an id; NULL: the newest) in the open
 * database into ctx->campaign_id.  0, or a negative errno after printing
 * why. */
int cmd_find_campaign(struct cmd_context *ctx, const char *campaign);

/* A run named as CAMPAIGN/N: the campaign's name (or id) into campaign,
 * N into *position (0 when ref has no "/N").  A bad N is a usage error:
 * "COMMAND: bad run 'ref': ..." printed, -EINVAL. */
int cmd_parse_run_ref(const char *command, const char *ref, char *campaign, size_t size,
                      int *position);

/* ---- what run, resume and ab share (cmd-campaign.c) ---- */

/* Posting at a campaign's end: --post with --forge, --repo, --pr, --update. */
struct cmd_post {
	bool post;
	struct forge_target target;
};
#define OPT_POST(p) \
	OPT_BOOL(0, "post", &(p)->post, \
	         "at the end, post the summary to a forge (with --forge, --repo, --pr)"), \
	OPT_STRING(0, "forge", &(p)->target.url, "URL", \
	           "the forge to post to, https://forge.example.org"), \
	OPT_STRING(0, "repo", &(p)->target.repo, "OWNER/NAME", "the repository to post to"), \
	{ .name = "pr", .nargs = 1, .args = "N", .help = "the pull request or issue to post to", \
	  .type = CLI_INT, .value = &(p)->target.issue_index, .min = 1, .max = INT32_MAX, \
	  .what = "pull request number", .expect = "a number above 0" }, \
	OPT_BOOL(0, "update", &(p)->target.update, "edit the campaign's earlier comment in place")

/* run_options.decided for a campaign played from the command line: ctx
 * points to the baseline's letter (0: the first arm); report_campaign_decided(). */
int cmd_campaign_decided(void *ctx, struct db *db, int64_t campaign_id, bool *decided,
                         char *errmsg, size_t errmsg_size);

/* Installs the stop handlers (SIGINT, SIGTERM, SIGHUP; SIGPIPE ignored)
 * and returns the flag they set. */
volatile sig_atomic_t *cmd_stop_signals(void);

/* The system root a campaign's samplers and clock/TDP control read:
 * $RXDECK_DECK_ROOT when set and not empty (a copied or fake sys/, proc/,
 * etc/ tree, as `rxdeck deck info --root` takes), else NULL ("/"). */
const char *cmd_deck_root(void);
/* --post without its target, or a target without --post, is a usage error. */
int cmd_post_check(const char *command, const struct cmd_post *post);
/* The end of a campaign: the interrupted message, or the table and the
 * post.  Returns the exit code. */
int cmd_finish_campaign(const char *command, struct db *db, struct run_campaign *c,
                        const struct run_outcome *o, const struct cmd_post *post, char baseline,
                        bool quiet);

/* One declaration per command file. */
int cmd_frames(int argc, char **argv, struct cmd_context *ctx);
int cmd_export_frames(int argc, char **argv, struct cmd_context *ctx);
int cmd_run(int argc, char **argv, struct cmd_context *ctx);
int cmd_resume(int argc, char **argv, struct cmd_context *ctx);
int cmd_ab(int argc, char **argv, struct cmd_context *ctx);
int cmd_list(int argc, char **argv, struct cmd_context *ctx);
int cmd_show(int argc, char **argv, struct cmd_context *ctx);
int cmd_import(int argc, char **argv, struct cmd_context *ctx);
int cmd_deck(int argc, char **argv, struct cmd_context *ctx);
int cmd_deck_check(int argc, char **argv, struct cmd_context *ctx);
int cmd_db(int argc, char **argv, struct cmd_context *ctx);
int cmd_route(int argc, char **argv, struct cmd_context *ctx);
int cmd_report(int argc, char **argv, struct cmd_context *ctx);
int cmd_tested(int argc, char **argv, struct cmd_context *ctx);
int cmd_plot(int argc, char **argv, struct cmd_context *ctx);
int cmd_post(int argc, char **argv, struct cmd_context *ctx);

#endif
