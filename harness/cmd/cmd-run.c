/* cmd-run: `rxdeck run [PLAN.ini]`, a campaign from a plan (or the embedded
 * default) played to its end, then the comparison table.  It owns the
 * command line and the overrides it makes to the plan; the campaign is
 * run.h's, the table report.h's, the post forge.h's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "plan/plan.h"
#include "run/run.h"

#define COMMAND "rxdeck run"

struct override {
	const char *flag, *key, *value;
};

struct opts {
	struct override ov[8];
	int n_ov;
	const char *name;
	const char *scheduled;
	bool print_plan;
	bool quiet;
	char baseline;
	struct cmd_post post;
};

enum { OPT_ROUTE = 1, OPT_ROUNDS, OPT_UNTIL, OPT_NAME, OPT_PROFILE, OPT_NO_WARMUP, OPT_WATCHDOG,
       OPT_PAD, OPT_SCHEDULED };

static int on_option(void *ctx, int id, char **args)
{
	struct opts *o = ctx;
	static const struct { int id; const char *flag, *key; } keys[] = {
		{ OPT_ROUTE, "--route", "route" }, { OPT_ROUNDS, "--rounds", "rounds" },
		{ OPT_UNTIL, "--until", "until" }, { OPT_PROFILE, "--profile", "profile" },
		{ OPT_WATCHDOG, "--watchdog", "watchdog" }, { OPT_PAD, "--pad", "pad" },
	};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		if (keys[i].id == id && o->n_ov < 8) {
			o->ov[o->n_ov++] = (struct override){ keys[i].flag, keys[i].key, args[0] };
			return 0;
		}
	}
	switch (id) {
	case OPT_NO_WARMUP:
		if (o->n_ov < 8)
			o->ov[o->n_ov++] = (struct override){ "--no-warmup", "warmup", "no" };
		return 0;
	case OPT_SCHEDULED:
		if (strlen(args[0]) != 5 || plan_until_resolve(args[0], 0, &(int64_t){ 0 }) < 0) {
			cli_error(COMMAND, "bad --scheduled '%s': expected a time of day HH:MM", args[0]);
			return -EINVAL;
		}
		o->scheduled = args[0];
		return 0;
	case OPT_NAME:
		if (!plan_name_valid(args[0], PLAN_MAX_NAME + 32)) {
			cli_error(COMMAND, "bad campaign name '%s': use letters, digits, '.', '_' and '-'",
			          args[0]);
			return -EINVAL;
		}
		o->name = args[0];
		return 0;
	}
	return -EINVAL;
}

static void print_error(void *ctx, const struct util_diag *e)
{
	(void)ctx;
	fprintf(stderr, "%s: ", COMMAND);
	plan_diag_print(e, stderr);
}

/* --scheduled: the deadline counts from the time the start was meant for. */
static int anchor_deadline(const struct opts *o, struct plan *plan)
{
	if (!plan->until) {
		cli_error(COMMAND, "--scheduled needs a deadline: --until or the plan's until");
		return RXDECK_EXIT_USAGE;
	}
	char until[32];
	struct util_diag pe;
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	int64_t now_ms = (int64_t)now.tv_sec * 1000, until_ms;
	if (run_deadline_anchor(plan->until, o->scheduled, now_ms, until, sizeof until) < 0 ||
	    plan_until_resolve(until, now_ms, &until_ms) < 0) {
		cli_error(COMMAND, "bad deadline '%s' for --scheduled %s", plan->until, o->scheduled);
		return RXDECK_EXIT_USAGE;
	}
	if (until_ms <= now_ms) {
		/* a late start (a timer fired on waking): said even with --quiet,
		 * for the journal */
		char ago[32];
		run_format_duration((double)(now_ms - until_ms) / 1e3, ago, sizeof ago);
		fprintf(stderr, "%s: not starting campaign '%s': the deadline %s passed %s ago "
		        "(--scheduled %s: this start comes late)\n", COMMAND,
		        plan->name ? plan->name : plan->path, until, ago, o->scheduled);
		return RXDECK_EXIT_NOT_STARTED;
	}
	if (plan_set(plan, "--scheduled", "until", until, &pe) < 0) {
		cli_error(COMMAND, "bad deadline '%s' for --scheduled %s", plan->until, o->scheduled);
		return RXDECK_EXIT_USAGE;
	}
	return RXDECK_EXIT_OK;
}

/* The plan: the file given or the embedded default, with the command
 * line's overrides.  Returns an exit code, RXDECK_EXIT_OK with *out. */
static int load_plan(const struct opts *o, const char *path, struct plan **out)
{
	struct plan *plan = NULL;
	struct util_diag pe;
	struct plan_parse_options po = { .on_error = print_error };
	int rc;
	if (path) {
		rc = plan_load(path, &po, &plan, &pe);
		if (rc < 0 && rc != -EINVAL)
			cli_error(COMMAND, "%s", pe.message);
	} else {
		po.dir = ".";
		const char *t = plan_default_text();
		rc = plan_parse("embedded default plan", t, strlen(t), &po, &plan, &pe);
	}
	if (rc < 0)
		return RXDECK_EXIT_FAILURE;
	for (int i = 0; i < o->n_ov; i++) {
		if (plan_set(plan, o->ov[i].flag, o->ov[i].key, o->ov[i].value, &pe) < 0) {
			cli_error(COMMAND, "%s: %s", o->ov[i].flag, pe.message);
			plan_free(plan);
			return RXDECK_EXIT_USAGE;
		}
	}
	if (o->scheduled && (rc = anchor_deadline(o, plan)) != RXDECK_EXIT_OK) {
		plan_free(plan);
		return rc;
	}
	*out = plan;
	return RXDECK_EXIT_OK;
}

/* The campaign's first lines: its order, rounds and route, and where its
 * results go. */
static void print_start(struct db *db, struct run_campaign *c)
{
	const struct plan *p = run_campaign_plan(c);
	char rounds[64];
	if (p->until)
		snprintf(rounds, sizeof rounds, "rounds until %s", p->until);
	else
		snprintf(rounds, sizeof rounds, "%d round%s", plan_rounds(p), plan_rounds(p) == 1 ? "" : "s");
	const char *warm = p->warmup == PLAN_WARMUP_EACH    ? " after a warm-up run of each arm"
	                   : p->warmup == PLAN_WARMUP_FIRST ? " after a warm-up run"
	                                                    : "";
	fprintf(stderr, "campaign %s: order %s, %s%s, route %s\n", run_campaign_name(c),
	        plan_order(p), rounds, warm, p->route);
	fprintf(stderr, "results in %s, run files in %s\n", db_path(db), run_campaign_dir(c));
}

int cmd_run(int argc, char **argv, struct cmd_context *ctx)
{
	struct opts o = { 0 };
	const struct cli_option options[] = {
		OPT_CALLBACK('r', "route", 1, "FILE", "play this route instead of the plan's", OPT_ROUTE),
		OPT_CALLBACK('n', "rounds", 1, "N", "rounds of the order (instead of the plan's)", OPT_ROUNDS),
		OPT_CALLBACK('u', "until", 1, "HH:MM", "keep adding rounds while one still ends before then (overnight)", OPT_UNTIL),
		OPT_CALLBACK(0, "scheduled", 1, "HH:MM", "the time this start was meant for (a timer's): --until counts from it, so a late start is refused", OPT_SCHEDULED),
		OPT_CALLBACK(0, "name", 1, "NAME", "the campaign's name (default: the plan's name and the date)", OPT_NAME),
		OPT_CALLBACK('p', "profile", 1, "NAME", "env profile: deck, pc, lavapipe or a file (default: the plan's)", OPT_PROFILE),
		OPT_CALLBACK(0, "watchdog", 1, "DURATION", "no new frame for this long = hung (default: the plan's, 10s)", OPT_WATCHDOG),
		OPT_CALLBACK(0, "pad", 1, "auto|uinput|socket|none", "the pad (instead of the plan's); none: the programs take no input", OPT_PAD),
		OPT_CALLBACK(0, "no-warmup", 0, NULL, "no cold warm-up runs first", OPT_NO_WARMUP),
		OPT_BASELINE(&o.baseline),
		OPT_DB(&ctx->db_path),
		OPT_BOOL(0, "print-plan", &o.print_plan, "print the plan with every key written out and run nothing"),
		OPT_BOOL('q', "quiet", &o.quiet, "no progress lines, only the table and errors"),
		OPT_POST(&o.post),
		OPT_END,
	};
	const struct cli cli = {
		.command = COMMAND,
		.synopsis = "[PLAN.ini] [--route FILE] [--rounds N | --until HH:MM [--scheduled HH:MM]] [--post ...]",
		.summary =
			"Runs a campaign: the plan's arms in its order (ABCDDCBA: each round the arms\n"
			"forward then backward), after a cold warm-up run of each arm, every run the\n"
			"game in its own process group with the route played into a virtual pad from\n"
			"its first frame, measured and stored in the results database; at the end the\n"
			"void rules across the campaign and the comparison table.  With no plan, the\n"
			"embedded default: the demo game, routes/kokiri-moving.route, arms A (no\n"
			"switch), B (RX_VK_READBACK_LATE=newest), C (RX_VK_READBACK_EARLY=1), D (both).\n"
			"Ctrl-C stops after killing the game; 'rxdeck resume' goes on.  Exit 3: some\n"
			"runs are void (the table marks them).  Exit 5: not started, because the\n"
			"deadline (--until) is less than one round away or passed; nothing is written.\n"
			"See docs/running.md.",
		.options = options,
		.on_option = on_option,
		.ctx = &o,
	};
	int npos = 0, exit_code;
	if (!cmd_parse(ctx, &cli, argc, argv, 1, "one plan at a time", &npos, &exit_code))
		return exit_code;
	if (cmd_post_check(COMMAND, &o.post) < 0)
		return RXDECK_EXIT_USAGE;

	struct plan *plan = NULL;
	int rc = load_plan(&o, npos == 1 ? argv[1] : NULL, &plan);
	if (rc != RXDECK_EXIT_OK)
		return rc;
	if (o.print_plan) {
		rc = plan_write(plan, stdout);
		plan_free(plan);
		if (rc < 0) {
			cli_error(COMMAND, "cannot write the plan: %s", strerror(-rc));
			return RXDECK_EXIT_FAILURE;
		}
		return RXDECK_EXIT_OK;
	}
	if (o.baseline && !plan_arm_find(plan, o.baseline)) {
		cli_error(COMMAND, "bad baseline '%c': the plan has no arm %c", o.baseline, o.baseline);
		plan_free(plan);
		return RXDECK_EXIT_USAGE;
	}

	if (cmd_open_db(ctx, CMD_DB_CREATE) < 0) {
		plan_free(plan);
		return RXDECK_EXIT_FAILURE;
	}
	struct db *db = ctx->db;
	volatile sig_atomic_t *stop = cmd_stop_signals();
	struct run_options ro = { .name = o.name, .quiet = o.quiet, .stop = stop,
		                  .decided = cmd_campaign_decided, .decided_ctx = &o.baseline,
		                  .deck_root = cmd_deck_root() };
	struct run_campaign *c;
	char msg[2048] = "";
	rc = run_campaign_create(db, plan, &ro, &c, msg, sizeof msg);
	plan_free(plan);
	if (rc == -ETIME) {
		/* said even with --quiet: the journal of a timer's start shows why */
		fprintf(stderr, "%s: %s\n", COMMAND, msg);
		return RXDECK_EXIT_NOT_STARTED;
	}
	if (rc < 0) {
		cli_error(COMMAND, "%s", msg[0] ? msg : strerror(-rc));
			return RXDECK_EXIT_FAILURE;
	}
	if (!o.quiet)
		print_start(db, c);
	struct run_outcome out;
	rc = run_campaign_play(c, &out, msg, sizeof msg);
	if (rc < 0) {
		cli_error(COMMAND, "%s; 'rxdeck resume %s' goes on once it is fixed", msg,
		          run_campaign_name(c));
		run_campaign_destroy(c);
			return RXDECK_EXIT_FAILURE;
	}
	int code = cmd_finish_campaign(COMMAND, db, c, &out, &o.post, o.baseline, o.quiet);
	run_campaign_destroy(c);
	return code;
}
