/* cmd-ab: `rxdeck ab [--against BUILD] [ENV...]`, the quick two-arm
 * campaign for a single change: this build against another one, or this
 * build with and without a few env switches.  It owns the command line,
 * the plan it makes from it and the short generated route; the campaign is
 * run.h's like any other, so `rxdeck resume` and `rxdeck show` work on it. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "plan/plan.h"
#include "run/run.h"
#include "util/util.h"

#define COMMAND "rxdeck ab"

struct opts {
	const char *against, *rounds, *route, *game, *profile, *name;
	long seconds;
	bool quiet, no_warmup;
	struct cmd_post post;
};

enum { OPT_SECONDS = 1 };

static int on_option(void *ctx, int id, char **args)
{
	struct opts *o = ctx;
	char *end;
	if (id != OPT_SECONDS)
		return -EINVAL;
	errno = 0;
	o->seconds = strtol(args[0], &end, 10);
	if (errno || end == args[0] || (*end && strcmp(end, "s") != 0) || o->seconds < 10 ||
	    o->seconds > 3600) {
		cli_error(COMMAND, "bad length '%s': expected whole seconds from 10 to 3600", args[0]);
		return -EINVAL;
	}
	return 0;
}

/* The built-in route: walk forward with slow pans, a shot near the end. */
static int walk_route(long seconds, char **path_out, char *errmsg, size_t size)
{
	char *data = NULL;
	int rc = run_data_dir(&data);
	if (rc < 0) {
		snprintf(errmsg, size, "no data folder: set XDG_DATA_HOME or HOME");
		return rc;
	}
	char *dir = util_path_join(data, "routes");
	free(data);
	if (!dir)
		return -ENOMEM;
	if ((rc = util_mkdir_p(dir, 0700)) < 0) {
		snprintf(errmsg, size, "cannot make folder '%s': %s", dir, strerror(-rc));
		free(dir);
		return rc;
	}
	char name[64];
	snprintf(name, sizeof name, "ab-%lds.route", seconds);
	char *path = util_path_join(dir, name);
	free(dir);
	if (!path)
		return -ENOMEM;
	long w0 = seconds >= 20 ? 5 : seconds / 4;
	long pans = (seconds - 3) / 6;
	char *text = NULL;
	int n = asprintf(&text,
	        "# ab-%lds: the built-in route of 'rxdeck ab --seconds %ld': walk forward with slow\n"
	        "# pans left and right; the first %ld s settle and are not measured.\n"
	        "route ab-%lds\n"
	        "duration %lds\n"
	        "window %lds %lds\n"
	        "0s      press A 100ms\n"
	        "1s      stick left 0 -1 for %lds\n"
	        "2s      repeat %ld every 6s {\n"
	        "  0s      stick right 0.5 0 for 2s\n"
	        "  3s      stick right -0.5 0 for 2s\n"
	        "}\n"
	        "%lds     shot end\n",
	        seconds, seconds, w0, seconds, seconds, w0, seconds, seconds - 2, pans, seconds - 1);
	rc = n < 0 ? -ENOMEM : util_write_file_atomic(path, text, (size_t)n);
	free(text);
	if (rc < 0) {
		snprintf(errmsg, size, "cannot write '%s': %s", path, strerror(-rc));
		free(path);
		return rc;
	}
	*path_out = path;
	return 0;
}

/* --against: a program, or a build folder holding the demo game. */
static int against_program(const char *arg, char **out)
{
	struct stat st;
	if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode)) {
		const char *rel[] = { "renderer/forest/rxdeck-forest", "rxdeck-forest" };
		for (size_t i = 0; i < 2; i++) {
			char *p = util_path_join(arg, rel[i]);
			if (!p)
				return -ENOMEM;
			if (access(p, X_OK) == 0) {
				*out = p;
				return 0;
			}
			free(p);
		}
		cli_error(COMMAND, "build folder '%s' holds no renderer/forest/rxdeck-forest", arg);
		return -ENOENT;
	}
	*out = strdup(arg);
	return *out ? 0 : -ENOMEM;
}

static bool is_forest(const char *prog)
{
	const char *base = strrchr(prog, '/');
	base = base ? base + 1 : prog;
	return strcmp(prog, "forest") == 0 || strcmp(base, "rxdeck-forest") == 0;
}

static int set_program(struct plan_build *b, const char *prog)
{
	char *copy = strdup(prog);
	if (!copy)
		return -ENOMEM;
	free(b->argv.v[0]);
	b->argv.v[0] = copy;
	if (!is_forest(prog)) {
		free(b->pad_option);
		b->pad_option = NULL;
	}
	return 0;
}

/* The settings are KEY=VALUE, there is something to compare, and one
 * route.  0, or RXDECK_EXIT_USAGE after saying why. */
static int check_command_line(const struct opts *o, int npos, char **argv)
{
	for (int i = 1; i <= npos; i++) {
		const char *eq = strchr(argv[i], '=');
		if (!eq || !plan_env_key_valid(argv[i], (size_t)(eq - argv[i]))) {
			cli_error(COMMAND, "bad setting '%s': expected KEY=VALUE", argv[i]);
			return RXDECK_EXIT_USAGE;
		}
	}
	if (!o->against && npos == 0) {
		cli_error(COMMAND, "nothing to compare: give --against BUILD, or KEY=VALUE settings for arm B");
		return RXDECK_EXIT_USAGE;
	}
	if (o->route && o->seconds) {
		cli_error(COMMAND, "--route and --seconds: one or the other");
		return RXDECK_EXIT_USAGE;
	}
	if (cmd_post_check(COMMAND, &o->post) < 0)
		return RXDECK_EXIT_USAGE;
	return 0;
}

/* The arms' env and labels: with --against the settings go to both arms,
 * else to B alone, which is labelled with them.  0 or -ENOMEM. */
static int set_arms(struct plan *plan, const struct opts *o, int npos, char **argv)
{
	struct plan_arm *a = &plan->arms[0], *b = &plan->arms[1];
	size_t label_n = 64;
	for (int i = 1; i <= npos; i++)
		label_n += strlen(argv[i]) + 1;
	char *label_b = calloc(1, label_n);
	if (!label_b)
		return -ENOMEM;
	for (int i = 1; i <= npos; i++) {
		if (plan_strv_setenv(&b->env, argv[i]) < 0 ||
		    (o->against && plan_strv_setenv(&a->env, argv[i]) < 0)) {
			free(label_b);
			return -ENOMEM;
		}
		if (!o->against) {
			strcat(label_b, i > 1 ? " " : "");
			strcat(label_b, argv[i]);
		}
	}
	if (o->against) {
		a->label = strdup("the other build");
		b->label = strdup("this build");
	} else {
		a->label = strdup("without the change");
		b->label = strdup(label_b);
	}
	free(label_b);
	return a->label && b->label ? 0 : -ENOMEM;
}

/* The two-arm plan: programs, arms, the options that are plan keys, and
 * the route (the built-in walk unless --route).  RXDECK_EXIT_OK with
 * *route_out to free, or the exit code after saying why. */
static int make_plan(const struct opts *o, int npos, char **argv, struct plan **plan_out,
                     char **route_out)
{
	const char *text = o->against ? "[campaign]\nname = ab\norder = ABBA\ninherit = RX_VK_DEVICE\n"
	                                "[build current]\nbinary = forest\n"
	                                "[build against]\nbinary = forest\n"
	                                "[arm A]\nbuild = against\n[arm B]\nbuild = current\n"
	                              : "[campaign]\nname = ab\norder = ABBA\ninherit = RX_VK_DEVICE\n"
	                                "[build current]\nbinary = forest\n"
	                                "[arm A]\n[arm B]\n";
	struct plan *plan;
	struct util_diag pe;
	struct plan_parse_options po = { .dir = "." };
	char msg[2048] = "";
	char *route = NULL, *against = NULL;
	int code = RXDECK_EXIT_FAILURE;
	if (plan_parse("rxdeck ab", text, strlen(text), &po, &plan, &pe) < 0) {
		cli_error(COMMAND, "%s", pe.message);
		return RXDECK_EXIT_FAILURE;
	}
	if (o->game && set_program(&plan->builds[0], o->game) < 0)
		goto fail;
	if (o->against) {
		if (against_program(o->against, &against) < 0 || set_program(&plan->builds[1], against) < 0)
			goto fail;
	}
	if (set_arms(plan, o, npos, argv) < 0)
		goto fail;
	struct { const char *flag, *key, *value; } sets[] = {
		{ "--rounds", "rounds", o->rounds ? o->rounds : "3" },
		{ "--profile", "profile", o->profile },
		{ "--no-warmup", "warmup", o->no_warmup ? "no" : NULL },
	};
	for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
		if (sets[i].value && plan_set(plan, sets[i].flag, sets[i].key, sets[i].value, &pe) < 0) {
			cli_error(COMMAND, "%s: %s", sets[i].flag, pe.message);
			code = RXDECK_EXIT_USAGE;
			goto fail;
		}
	}
	if (o->route) {
		route = strdup(o->route);
	} else if (walk_route(o->seconds ? o->seconds : 30, &route, msg, sizeof msg) < 0) {
		cli_error(COMMAND, "%s", msg);
		goto fail;
	}
	if (!route || plan_set(plan, "--route", "route", route, &pe) < 0) {
		cli_error(COMMAND, "%s", route ? pe.message : "out of memory");
		goto fail;
	}
	free(against);
	*plan_out = plan;
	*route_out = route;
	return RXDECK_EXIT_OK;
fail:
	free(route);
	free(against);
	plan_free(plan);
	return code;
}

/* Makes the campaign and plays it to its end; the exit code. */
static int play(struct cmd_context *ctx, const struct opts *o, struct plan *plan)
{
	char msg[2048] = "";
	if (cmd_open_db(ctx, CMD_DB_CREATE) < 0)
		return RXDECK_EXIT_FAILURE;
	struct db *db = ctx->db;
	volatile sig_atomic_t *stop = cmd_stop_signals();
	char baseline_a = 'A';
	struct run_options ro = { .name = o->name, .quiet = o->quiet, .stop = stop,
		                  .decided = cmd_campaign_decided, .decided_ctx = &baseline_a,
		                  .deck_root = cmd_deck_root() };
	struct run_campaign *c;
	int rc = run_campaign_create(db, plan, &ro, &c, msg, sizeof msg);
	if (rc < 0) {
		cli_error(COMMAND, "%s", msg[0] ? msg : strerror(-rc));
		return RXDECK_EXIT_FAILURE;
	}
	if (!o->quiet)
		fprintf(stderr, "campaign %s: A %s, B %s, ABBA x %d, route %s\n", run_campaign_name(c),
		        plan->arms[0].label, plan->arms[1].label, plan_rounds(run_campaign_plan(c)),
		        run_campaign_plan(c)->route);
	struct run_outcome out;
	int code = RXDECK_EXIT_FAILURE;
	rc = run_campaign_play(c, &out, msg, sizeof msg);
	if (rc < 0)
		cli_error(COMMAND, "%s; 'rxdeck resume %s' goes on once it is fixed", msg, run_campaign_name(c));
	else
		code = cmd_finish_campaign(COMMAND, db, c, &out, &o->post, 'A', o->quiet);
	run_campaign_destroy(c);
	return code;
}

int cmd_ab(int argc, char **argv, struct cmd_context *ctx)
{
	struct opts o = { 0 };
	const struct cli_option options[] = {
		OPT_STRING('a', "against", &o.against, "BUILD", "the other build: its program, or its build folder"),
		OPT_STRING('n', "rounds", &o.rounds, "N", "rounds of ABBA (default: 3; one round, 2 runs an arm, decides nothing)"),
		OPT_CALLBACK('s', "seconds", 1, "S", "length of each run on the built-in walk route (default: 30)", OPT_SECONDS),
		OPT_STRING('r', "route", &o.route, "FILE", "play this route instead of the built-in walk"),
		OPT_STRING('g', "game", &o.game, "PROGRAM", "this build's program (default: the demo game next to rxdeck)"),
		OPT_STRING('p', "profile", &o.profile, "NAME", "env profile (default: auto: deck on a Steam Deck, else pc)"),
		OPT_BOOL(0, "no-warmup", &o.no_warmup, "no cold warm-up run first"),
		OPT_STRING(0, "name", &o.name, "NAME", "the campaign's name (default: ab and the date)"),
		OPT_DB(&ctx->db_path),
		OPT_BOOL('q', "quiet", &o.quiet, "no progress lines, only the table and errors"),
		OPT_POST(&o.post),
		OPT_END,
	};
	const struct cli cli = {
		.command = COMMAND,
		.synopsis = "[--against BUILD] [--rounds N] [--seconds S | --route FILE] [KEY=VALUE...]",
		.summary =
			"The quick A/B of a single change, as a two-arm campaign in the order ABBA\n"
			"(3 rounds, 30 s runs on a built-in walk, a warm-up first):\n"
			"  rxdeck ab --against ../old/build         A: the other build, B: this one\n"
			"  rxdeck ab RX_VK_READBACK_EARLY=1         A: this build, B: the same with the env\n"
			"With --against, KEY=VALUE settings apply to both arms.  The result is a\n"
			"campaign like any other: 'rxdeck show', 'rxdeck report', 'rxdeck resume'.",
		.options = options,
		.on_option = on_option,
		.ctx = &o,
	};
	int npos = 0;
	int exit_code;
	if (!cmd_parse(ctx, &cli, argc, argv, -1, NULL, &npos, &exit_code))
		return exit_code;
	int code = check_command_line(&o, npos, argv);
	if (code)
		return code;
	struct plan *plan;
	char *route;
	if ((code = make_plan(&o, npos, argv, &plan, &route)) != RXDECK_EXIT_OK)
		return code;
	code = play(ctx, &o, plan);
	free(route);
	plan_free(plan);
	return code;
}
