/* cmd-campaign: what `rxdeck run`, `resume` and `ab` share: the stop
 * signals, the --post options' check, and the end of a campaign (the
 * comparison table, the forge post, the exit code).  The signal handler's flag is the
 * one mutable global here: SIGINT, SIGTERM and SIGHUP set it once (a second
 * one acts as usual, so a stuck harness can still be killed; its game and
 * route player die with it) and the campaign loop stops the game and ends
 * after it. */
#include "cmd.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "forge/forge.h"
#include "report/report.h"
#include "run/run.h"
#include "util/util.h"

static volatile sig_atomic_t stop_flag;

static void on_stop(int sig)
{
	(void)sig;
	stop_flag = 1;
}

volatile sig_atomic_t *cmd_stop_signals(void)
{
	util_stop_signals(on_stop, SA_RESETHAND);
	return &stop_flag;
}

int cmd_campaign_decided(void *ctx, struct db *db, int64_t campaign_id, bool *decided,
                         char *errmsg, size_t errmsg_size)
{
	const char *baseline = ctx;
	return report_campaign_decided(db, campaign_id, baseline ? *baseline : 0, decided, errmsg,
	                               errmsg_size);
}

const char *cmd_deck_root(void)
{
	const char *root = getenv("RXDECK_DECK_ROOT");
	return root && root[0] ? root : NULL;
}

int cmd_finish_campaign(const char *command, struct db *db, struct run_campaign *c,
                        const struct run_outcome *o, const struct cmd_post *post, char baseline,
                        bool quiet)
{
	const char *name = run_campaign_name(c);
	if (o->interrupted) {
		cli_error(command, "interrupted: %zu run%s finished in this call; 'rxdeck resume %s' "
		          "goes on from the run that was cut", o->runs_done, o->runs_done == 1 ? "" : "s", name);
		return RXDECK_EXIT_INTERRUPTED;
	}
	char msg[1024] = "";
	struct report_options ro = { .baseline = baseline, .errmsg = msg, .errmsg_size = sizeof msg };
	fflush(stderr);
	if (!quiet)
		printf("campaign %s: %zu void run%s; runs in %s\n\n", name, o->runs_void,
		       o->runs_void == 1 ? "" : "s", run_campaign_dir(c));
	/* the report for a terminal, headline first (fitted to a terminal;
	 * into a file or a pipe whole, nothing folded); when the table goes
	 * elsewhere, the progress lines on the terminal end with the headline */
	ro.format = REPORT_FORMAT_TERM;
	ro.term_width = isatty(fileno(stdout)) ? cmd_terminal_width(stdout) : 0;
	ro.term_colour = cmd_terminal_colour(stdout);
	int rc = report_print(db, run_campaign_id(c), &ro, stdout);
	fflush(stdout);
	if (rc == 0 && !quiet && !isatty(fileno(stdout)) && isatty(fileno(stderr))) {
		struct report_options ho = ro;
		ho.term_width = cmd_terminal_width(stderr);
		ho.term_colour = cmd_terminal_colour(stderr);
		fputc('\n', stderr);
		rc = report_headline_print(db, run_campaign_id(c), &ho, stderr);
	}
	if (rc < 0) {
		cli_error(command, "cannot print the table: %s", msg[0] ? msg : strerror(-rc));
		return RXDECK_EXIT_FAILURE;
	}
	int exit_code = o->runs_void ? RXDECK_EXIT_PARTIAL : RXDECK_EXIT_OK;
	if (post && post->post) {
		struct forge_target t = post->target;
		t.baseline = baseline;
		struct forge_outcome fo;
		struct forge_options fopt = { .command = command, .attach_plots = true };
		rc = forge_post_campaign(db, run_campaign_id(c), &t, &fopt, &fo);
		if (rc == -EAGAIN) {
			cli_error(command, "the summary waits in the outbox; 'rxdeck post --retry' sends it");
			exit_code = RXDECK_EXIT_PARTIAL;
		} else if (rc < 0) {
			cli_error(command, "the summary was not posted (it stays in the outbox)");
			exit_code = RXDECK_EXIT_PARTIAL;
		}
	} else {
		/* summaries an unreachable forge held back earlier go out now */
		struct forge_options fopt = { .command = command, .attach_plots = true };
		if (forge_outbox_flush(db, false, &fopt, NULL) == -EAGAIN)
			cli_error(command, "summaries still wait in the outbox; 'rxdeck post --retry' sends them");
	}
	return exit_code;
}

int cmd_post_check(const char *command, const struct cmd_post *post)
{
	const struct forge_target *t = &post->target;
	bool any = t->url || t->repo || t->issue_index || t->update;
	if (!post->post && !any)
		return 0;
	if (!post->post) {
		cli_error(command, "--forge, --repo, --pr and --update go with --post");
		return -EINVAL;
	}
	if (!t->url || !t->repo || !t->issue_index) {
		cli_error(command, "--post needs --forge URL, --repo OWNER/NAME and --pr N");
		return -EINVAL;
	}
	char msg[512];
	if (forge_target_check(t, msg, sizeof msg) != 0) {
		cli_error(command, "%s", msg);
		return -EINVAL;
	}
	return 0;
}
