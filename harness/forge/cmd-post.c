/* cmd-post: `rxdeck post [CAMPAIGN] --forge URL --repo OWNER/NAME --pr N
 * [--update]`, `rxdeck post --retry` and `rxdeck post --list`: a campaign's
 * summary to a Forgejo/Gitea pull request or issue through the outbox.  It
 * owns the command line and the outbox listing; sending is forge.c's. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "commands.h"
#include "forge/forge.h"
#include "report/report-private.h"

#define COMMAND "rxdeck post"

enum { OPT_DB = 1, OPT_FORGE, OPT_REPO, OPT_PR, OPT_UPDATE, OPT_RETRY, OPT_LIST, OPT_RUN_FILE,
       OPT_BASELINE, OPT_TIMEOUT };

static const struct cli_option options[] = {
	{ "forge", 0, 1, "URL", "the forge, https://forge.example.org (http only for 127.0.0.1/localhost)", OPT_FORGE },
	{ "repo", 0, 1, "OWNER/NAME", "the repository", OPT_REPO },
	{ "pr", 0, 1, "N", "the pull request or issue number", OPT_PR },
	{ "issue", 0, 1, "N", "the same as --pr", OPT_PR },
	{ "update", 0, 0, NULL, "edit the campaign's earlier comment in place (a new one if none)", OPT_UPDATE },
	{ "run-file", 0, 1, "PATH|URL", "where the run file is, for the summary (default: docs/tested/ when it is there)", OPT_RUN_FILE },
	{ "baseline", 'b', 1, "ARM", "compare against this arm's letter (default: the first arm)", OPT_BASELINE },
	{ "timeout", 0, 1, "SECONDS", "give up on one request after this long (default: 30)", OPT_TIMEOUT },
	{ "retry", 0, 0, NULL, "send every summary still in the outbox now", OPT_RETRY },
	{ "list", 0, 0, NULL, "list the outbox: every post, its state and last error", OPT_LIST },
	{ "db", 0, 1, "PATH", "the database (default: $XDG_DATA_HOME/rxdeck/results.db)", OPT_DB },
	{ NULL, 0, 0, NULL, NULL, 0 },
};

struct opts {
	const char *db;
	struct forge_target t;
	bool have_pr;
	bool retry;
	bool list;
	int timeout_s;
};

static int on_option(void *ctx, int id, char **args)
{
	struct opts *o = ctx;
	char *end;
	switch (id) {
	case OPT_DB:
		o->db = args[0];
		return 0;
	case OPT_FORGE:
		o->t.url = args[0];
		return 0;
	case OPT_REPO:
		o->t.repo = args[0];
		return 0;
	case OPT_PR: {
		errno = 0;
		long long v = strtoll(args[0], &end, 10);
		if (errno || end == args[0] || *end || v <= 0) {
			cli_error(COMMAND, "bad pull request number '%s': expected a number above 0",
			          args[0]);
			return -EINVAL;
		}
		o->t.issue_index = v;
		o->have_pr = true;
		return 0;
	}
	case OPT_UPDATE:
		o->t.update = true;
		return 0;
	case OPT_RUN_FILE:
		o->t.run_file = args[0];
		return 0;
	case OPT_BASELINE:
		return report_parse_baseline(COMMAND, args[0], &o->t.baseline);
	case OPT_TIMEOUT: {
		errno = 0;
		long v = strtol(args[0], &end, 10);
		if (errno || end == args[0] || *end || v <= 0 || v > 3600) {
			cli_error(COMMAND, "bad timeout '%s': expected whole seconds, 1 to 3600", args[0]);
			return -EINVAL;
		}
		o->timeout_s = (int)v;
		return 0;
	}
	case OPT_RETRY:
		o->retry = true;
		return 0;
	case OPT_LIST:
		o->list = true;
		return 0;
	}
	return -EINVAL;
}

static int exit_for(int rc)
{
	if (rc == 0)
		return RXDECK_EXIT_OK;
	return rc == -EAGAIN ? RXDECK_EXIT_PARTIAL : RXDECK_EXIT_FAILURE;
}

static void fmt_time(char *buf, size_t size, int64_t ms)
{
	if (ms <= 0 || ms == INT64_MAX) {
		snprintf(buf, size, "%s", ms == INT64_MAX ? "on --retry" : "-");
		return;
	}
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	if (localtime_r(&t, &tm))
		strftime(buf, size, "%Y-%m-%d %H:%M", &tm);
	else
		snprintf(buf, size, "-");
}

static int list_outbox(struct db *db)
{
	struct db_post *p;
	size_t n;
	if (db_post_list(db, 0, &p, &n) != 0) {
		cli_error(COMMAND, "cannot read the outbox: %s", db_errmsg(db));
		return RXDECK_EXIT_FAILURE;
	}
	if (n == 0)
		printf("the outbox is empty\n");
	for (size_t i = 0; i < n; i++) {
		char created[32], next[32];
		fmt_time(created, sizeof created, p[i].created_unix_ms);
		fmt_time(next, sizeof next, p[i].state == DB_POST_SENT ? 0 : p[i].next_attempt_unix_ms);
		printf("%" PRId64 "  %-6s  %s/%s#%" PRId64 "  created %s  attempts %d", p[i].id,
		       db_post_state_name(p[i].state), p[i].forge_url, p[i].repo, p[i].issue_index,
		       created, p[i].attempts);
		if (p[i].state == DB_POST_SENT)
			printf("  comment %" PRId64 "\n", p[i].remote_comment_id);
		else
			printf("  next try %s\n      %s\n", next, p[i].last_error ? p[i].last_error : "");
	}
	free(p);
	return RXDECK_EXIT_OK;
}

int cmd_post(int argc, char **argv)
{
	struct opts o = { 0 };
	const struct cli cli = {
		.command = COMMAND,
		.synopsis = "[CAMPAIGN] --forge URL --repo OWNER/NAME --pr N [--update] [--run-file PATH|URL]\n"
		            "       rxdeck post --retry | --list",
		.summary = "Posts a campaign's summary (the table, the verdicts and where the run file\n"
		           "is; the newest campaign when none is named) as a comment on a Forgejo or\n"
		           "Gitea pull request or issue.  The summary is stored in the outbox first,\n"
		           "then sent; network errors, 5xx and 429 are tried again with backoff\n"
		           "(--retry, and at the end of the next campaign), 401/403/404 stop with what\n"
		           "to fix.  The token comes from RXDECK_FORGE_TOKEN or\n"
		           "~/.config/rxdeck/forge-token (mode 600) and is never printed or stored.\n"
		           "Exit 3: some summaries are still in the outbox.  See docs/forge.md.",
		.options = options,
		.on_option = on_option,
		.ctx = &o,
	};
	int npos = 0, exit_code;
	if (!cli_parse_command(&cli, argc, argv, 1, "one campaign at a time", &npos, &exit_code))
		return exit_code;
	bool target = o.t.url || o.t.repo || o.have_pr || o.t.update || o.t.run_file;
	if ((o.retry || o.list) && (target || npos)) {
		cli_error(COMMAND, "--retry and --list take no campaign, --forge, --repo or --pr");
		return RXDECK_EXIT_USAGE;
	}
	if (o.retry && o.list) {
		cli_error(COMMAND, "--retry and --list: one at a time");
		return RXDECK_EXIT_USAGE;
	}
	if (!o.retry && !o.list && (!o.t.url || !o.t.repo || !o.have_pr)) {
		cli_error(COMMAND, "need --forge URL, --repo OWNER/NAME and --pr N (see --help)");
		return RXDECK_EXIT_USAGE;
	}
	char msg[1024];
	if (!o.retry && !o.list && forge_target_check(&o.t, msg, sizeof msg) != 0) {
		cli_error(COMMAND, "%s", msg);
		return RXDECK_EXIT_USAGE;
	}

	struct db *db;
	int64_t id = 0;
	if (o.retry || o.list) {
		struct db_open_options oo = { .flags = DB_OPEN_NO_CREATE, .errmsg = msg,
			                      .errmsg_size = sizeof msg };
		if (db_open_ex(o.db, &oo, &db) != 0) {
			cli_error(COMMAND, "%s", msg);
			return RXDECK_EXIT_FAILURE;
		}
	} else if (report_cmd_open(COMMAND, o.db, npos ? argv[1] : NULL, &db, &id)) {
		return RXDECK_EXIT_FAILURE;
	}

	struct forge_options fo = { .timeout_s = o.timeout_s, .command = COMMAND };
	struct forge_outcome out;
	if (o.list) {
		exit_code = list_outbox(db);
	} else if (o.retry) {
		int rc = forge_outbox_flush(db, true, &fo, &out);
		if (rc == 0 && out.sent == 0)
			printf("nothing in the outbox to send\n");
		exit_code = exit_for(rc);
	} else {
		char *run_file = NULL;
		if (!o.t.run_file) {
			char *name;
			struct stat st;
			if (report_tested_name(db, id, &name) == 0) {
				if (asprintf(&run_file, "docs/tested/%s", name) < 0)
					run_file = NULL;
				else if (stat(run_file, &st) != 0) {
					free(run_file);
					run_file = NULL;
				}
				free(name);
			}
			o.t.run_file = run_file;
		}
		exit_code = exit_for(forge_post_campaign(db, id, &o.t, &fo, &out));
		free(run_file);
	}
	db_close(db);
	return exit_code;
}
