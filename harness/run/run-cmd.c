/* run-cmd: what `rxdeck run`, `resume` and `ab` share: opening the
 * database, the stop signals, and the end of a campaign (the comparison
 * table, the forge post, the exit code).  The signal handler's flag is the
 * one mutable global here: SIGINT, SIGTERM and SIGHUP set it once (a second
 * one acts as usual, so a stuck harness can still be killed; its game and
 * route player die with it) and the campaign loop stops the game and ends
 * after it. */
#include "run.h"
#include "run-private.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "forge/forge.h"
#include "report/report.h"

static volatile sig_atomic_t stop_flag;

static void on_stop(int sig)
{
	(void)sig;
	stop_flag = 1;
}

volatile sig_atomic_t *run_cmd_signals(void)
{
	struct sigaction sa = { .sa_handler = on_stop, .sa_flags = SA_RESETHAND };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	struct sigaction ign = { .sa_handler = SIG_IGN };
	sigaction(SIGPIPE, &ign, NULL);
	return &stop_flag;
}

int run_cmd_open_db(const char *command, const char *path, bool create, struct db **out)
{
	char msg[1024];
	struct db_open_options oo = { .flags = create ? DB_OPEN_DEFAULT : DB_OPEN_NO_CREATE,
		                      .errmsg = msg, .errmsg_size = sizeof msg };
	int rc = db_open_ex(path, &oo, out);
	if (rc < 0) {
		if (rc == -ENOENT && !create) {
			char *def = NULL;
			if (!path)
				db_default_path(&def);
			cli_error(command, "no results database at '%s' yet (run a campaign first)",
			          path ? path : def ? def : "$XDG_DATA_HOME/rxdeck/results.db");
			free(def);
		} else {
			cli_error(command, "%s", msg);
		}
	}
	return rc;
}

int run_cmd_baseline(const char *command, const char *arg, char *out)
{
	if (strlen(arg) != 1 || arg[0] < 'A' || arg[0] > 'Z') {
		cli_error(command, "bad baseline '%s': expected an arm letter, A to Z", arg);
		return -EINVAL;
	}
	*out = arg[0];
	return 0;
}

int run_cmd_finish(const char *command, struct db *db, struct run_campaign *c,
                   const struct run_outcome *o, const struct run_cmd_post *post, char baseline,
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
	int rc = report_print(db, run_campaign_id(c), &ro, stdout);
	fflush(stdout);
	if (rc < 0) {
		cli_error(command, "cannot print the table: %s", msg[0] ? msg : strerror(-rc));
		return RXDECK_EXIT_FAILURE;
	}
	int exit_code = o->runs_void ? RXDECK_EXIT_PARTIAL : RXDECK_EXIT_OK;
	if (post && post->post) {
		struct forge_target t = post->target;
		t.baseline = baseline;
		struct forge_outcome fo;
		struct forge_options fopt = { .command = command };
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
		struct forge_options fopt = { .command = command };
		if (forge_outbox_flush(db, false, &fopt, NULL) == -EAGAIN)
			cli_error(command, "summaries still wait in the outbox; 'rxdeck post --retry' sends them");
	}
	return exit_code;
}

int run_cmd_post_option(const char *command, struct run_cmd_post *post, int which, char **args)
{
	char *end;
	switch (which) {
	case RUN_CMD_POST:
		post->post = true;
		return 0;
	case RUN_CMD_POST_FORGE:
		post->target.url = args[0];
		return 0;
	case RUN_CMD_POST_REPO:
		post->target.repo = args[0];
		return 0;
	case RUN_CMD_POST_PR: {
		errno = 0;
		long long v = strtoll(args[0], &end, 10);
		if (errno || end == args[0] || *end || v <= 0) {
			cli_error(command, "bad pull request number '%s': expected a number above 0", args[0]);
			return -EINVAL;
		}
		post->target.issue_index = v;
		return 0;
	}
	case RUN_CMD_POST_UPDATE:
		post->target.update = true;
		return 0;
	}
	return -EINVAL;
}

int run_cmd_post_check(const char *command, struct run_cmd_post *post)
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
