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

#include "cmd.h"
#include "forge/forge.h"
#include "report/report.h"
#include "report/report-across.h"

#define COMMAND "rxdeck post"

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

/* --retry, --list and a post's target exclude each other; a post needs
 * its whole target.  Returns an exit code. */
static int check_modes(const struct forge_target *t, bool retry, bool list, int npos)
{
	bool target = t->url || t->repo || t->issue_index || t->update || t->run_file;
	if ((retry || list) && (target || npos)) {
		cli_error(COMMAND, "--retry and --list take no campaign, --forge, --repo or --pr");
		return RXDECK_EXIT_USAGE;
	}
	if (retry && list) {
		cli_error(COMMAND, "--retry and --list: one at a time");
		return RXDECK_EXIT_USAGE;
	}
	if (!retry && !list && (!t->url || !t->repo || !t->issue_index)) {
		cli_error(COMMAND, "need --forge URL, --repo OWNER/NAME and --pr N (see --help)");
		return RXDECK_EXIT_USAGE;
	}
	char msg[1024];
	if (!retry && !list && forge_target_check(t, msg, sizeof msg) != 0) {
		cli_error(COMMAND, "%s", msg);
		return RXDECK_EXIT_USAGE;
	}
	return RXDECK_EXIT_OK;
}

/* docs/tested/NAME, the campaign's run file, when it is there; malloc'd,
 * or NULL. */
static char *default_run_file(struct db *db, int64_t id)
{
	char *name, *run_file = NULL;
	struct stat st;
	if (report_tested_name(db, id, &name) != 0)
		return NULL;
	if (asprintf(&run_file, "docs/tested/%s", name) < 0)
		run_file = NULL;
	else if (stat(run_file, &st) != 0) {
		free(run_file);
		run_file = NULL;
	}
	free(name);
	return run_file;
}

int cmd_post(int argc, char **argv, struct cmd_context *ctx)
{
	struct forge_target t = { 0 };
	bool retry = false, list = false, no_plots = false, across = false;
	int64_t timeout_s = 0;
#define PR_OPTION(l, text) { .name = (l), .nargs = 1, .args = "N", .help = text, \
	.type = CLI_INT, .value = &t.issue_index, .min = 1, .max = INT64_MAX, \
	.what = "pull request number", .expect = "a number above 0" }
	const struct cli_option options[] = {
		OPT_STRING(0, "forge", &t.url, "URL", "the forge, https://forge.example.org (http only for 127.0.0.1/localhost)"),
		OPT_STRING(0, "repo", &t.repo, "OWNER/NAME", "the repository"),
		PR_OPTION("pr", "the pull request or issue number"),
		PR_OPTION("issue", "the same as --pr"),
		OPT_BOOL(0, "update", &t.update, "edit the campaign's earlier comment in place (a new one if none)"),
		OPT_STRING(0, "run-file", &t.run_file, "PATH|URL", "where the run file is, for the summary (default: docs/tested/ when it is there)"),
		OPT_BASELINE(&t.baseline),
		OPT_BOOL(0, "across", &across, "the fleet's summary: CAMPAIGN... and their NAME@HOST copies compared across devices (see 'rxdeck report --across')"),
		{ .name = "timeout", .nargs = 1, .args = "SECONDS",
		  .help = "give up on one request after this long (default: 30)", .type = CLI_INT,
		  .value = &timeout_s, .min = 1, .max = 3600, .expect = "whole seconds, 1 to 3600" },
		OPT_BOOL(0, "no-plots", &no_plots, "the text only: attach no plots to the comment"),
		OPT_BOOL(0, "retry", &retry, "send every summary still in the outbox now"),
		OPT_BOOL(0, "list", &list, "list the outbox: every post, its state and last error"),
		OPT_DB(&ctx->db_path),
		OPT_END,
	};
#undef PR_OPTION
	const struct cli cli = {
		.command = COMMAND,
		.synopsis = "[CAMPAIGN] --forge URL --repo OWNER/NAME --pr N [--update] [--run-file PATH|URL]\n"
		            "       [--no-plots]\n"
		            "       rxdeck post --across CAMPAIGN... --forge URL --repo OWNER/NAME --pr N\n"
		            "       rxdeck post --retry | --list",
		.summary = "Posts a campaign's summary (the table, the verdicts and where the run file\n"
		           "is; the newest campaign when none is named) as a comment on a Forgejo or\n"
		           "Gitea pull request or issue.  The summary is stored in the outbox first,\n"
		           "then sent; network errors, 5xx and 429 are tried again with backoff\n"
		           "(--retry, and at the end of the next campaign), 401/403/404 stop with what\n"
		           "to fix.  Once the comment is sent, the campaign's SVG plots are uploaded\n"
		           "as its attachments and shown in it (--no-plots: text only); a forge that\n"
		           "refuses them keeps the text comment.  The token comes from RXDECK_FORGE_TOKEN or\n"
		           "~/.config/rxdeck/forge-token (mode 600) and is never printed or stored.\n"
		           "Exit 3: some summaries are still in the outbox.  See docs/forge.md.",
		.options = options,
	};
	int npos = 0, exit_code;
	if (!cmd_parse(ctx, &cli, argc, argv, -1, NULL, &npos, &exit_code))
		return exit_code;
	if (npos > 1 && !across) {
		cli_error(COMMAND, "one campaign at a time (several with --across)");
		return RXDECK_EXIT_USAGE;
	}
	if (across && (!npos || no_plots)) {
		cli_error(COMMAND, npos ? "--across posts text only; --no-plots is implied"
		                        : "--across needs campaigns: CAMPAIGN...");
		return RXDECK_EXIT_USAGE;
	}
	if ((exit_code = check_modes(&t, retry, list, npos)) != RXDECK_EXIT_OK)
		return exit_code;

	if (cmd_open_db(ctx, list ? CMD_DB_READ_ONLY : 0) < 0 ||
	    (!retry && !list && !across && cmd_find_campaign(ctx, npos ? argv[1] : NULL) < 0))
		return RXDECK_EXIT_FAILURE;
	int64_t *across_ids = NULL;
	if (across) {
		char msg[1024];
		if (report_across_resolve(ctx->db, argv + 1, (size_t)npos, &across_ids, &t.n_across,
		                          msg, sizeof msg) < 0) {
			cli_error(COMMAND, "%s", msg);
			return RXDECK_EXIT_FAILURE;
		}
		t.across = across_ids;
		ctx->campaign_id = across_ids[0];
		no_plots = true;
	}
	struct db *db = ctx->db;
	int64_t id = ctx->campaign_id;

	struct forge_options fo = { .timeout_s = (int)timeout_s, .command = COMMAND,
		                    .attach_plots = !no_plots };
	struct forge_outcome out;
	if (list) {
		exit_code = list_outbox(db);
	} else if (retry) {
		int rc = forge_outbox_flush(db, true, &fo, &out);
		if (rc == 0 && out.sent == 0)
			printf("nothing in the outbox to send\n");
		exit_code = exit_for(rc);
	} else {
		char *run_file = t.run_file ? NULL : default_run_file(db, id);
		if (!t.run_file)
			t.run_file = run_file;
		fo.attach_plots = !no_plots;
		exit_code = exit_for(forge_post_campaign(db, id, &t, &fo, &out));
		free(run_file);
	}
	free(across_ids);
	return exit_code;
}
