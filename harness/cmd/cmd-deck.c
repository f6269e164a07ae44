/* cmd-deck: `rxdeck deck info` (host facts, the route to the GPU clock
 * and TDP with its ranges and what was passed over, and one sample of
 * every reading, absent ones marked absent with why) and `rxdeck deck
 * clock` (show or force the GPU clock).  It owns their command lines and output;
 * the reading and writing is deck's (deck.h). */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cmd.h"
#include "deck/deck.h"
#include "deck/sleep.h"
#include "run/run.h"

struct opts {
	const char *root;
	const char *card;
	bool json;
};

#define DECK_OPTIONS(o) \
	OPT_STRING(0, "card", &(o)->card, "NAME", \
	           "the DRM card to use, e.g. card1 (default: the first amdgpu card)"), \
	OPT_STRING(0, "root", &(o)->root, "DIR", \
	           "read sys/, proc/ and etc/ under DIR instead of / (for tests)"), \
	OPT_END

static void usage(FILE *f)
{
	fprintf(f, "usage: rxdeck deck COMMAND [--card NAME] [--root DIR]\n\n"
	           "Steam Deck and Linux host facts, sensors and GPU clock.\n\n"
	           "commands:\n"
	           "  check                        every assumption a night rests on, ok/warn/fail\n"
	           "                               with the fix (the first minute on a new Deck)\n"
	           "  info                         host facts and one reading of every sensor\n"
	           "  clock [auto|low|high|manual MHZ]\n"
	           "                               show the GPU performance level and clock, or set it\n\n"
	           "'rxdeck deck COMMAND --help' describes one command.\n");
}

static int open_deck(const char *command, const struct opts *o, struct deck **out)
{
	char msg[512] = "";
	int err = deck_create(&(struct deck_options){ .root = o->root, .card = o->card }, msg,
	                      sizeof msg, out);
	if (err)
		cli_error(command, "%s", msg[0] ? msg : strerror(-err));
	return err;
}

static const char *or_absent(const char *s)
{
	return s ? s : "absent";
}

/* Why a reading is absent, in words. */
static const char *why(int err)
{
	switch (err) {
	case -ENOENT:
		return "no such source on this host";
	case -EACCES:
		return "not readable (permission)";
	case -EINVAL:
		return "the source is malformed";
	default:
		return strerror(-err);
	}
}

/* The running systemd's version, and whether logind lets rxdeck's block
 * inhibitor stop a suspend asked by the same user (Steam's). */
struct systemd_info {
	bool known;
	char version[64];
	int major;
	char why[256];
};

static void systemd_info(struct systemd_info *si)
{
	si->known = deck_systemd_version(si->version, sizeof si->version, &si->major, si->why,
	                                 sizeof si->why) == 0;
}

static json_t *systemd_json(const struct systemd_info *si)
{
	json_t *o = json_object();
	json_object_set_new(o, "version", si->known ? json_string(si->version) : json_null());
	json_object_set_new(o, "same_user_block_honoured",
	                    si->known ? json_boolean(si->major >= DECK_SYSTEMD_OWN_BLOCK_HONOURED)
	                              : json_null());
	if (!si->known)
		json_object_set_new(o, "unknown", json_string(si->why));
	return o;
}

static void print_systemd(const struct systemd_info *si)
{
	if (!si->known)
		printf("%-14s unknown (%s)\n", "systemd", si->why);
	else if (si->major >= DECK_SYSTEMD_OWN_BLOCK_HONOURED)
		printf("%-14s %s (a block inhibitor holds against the same user's suspend)\n",
		       "systemd", si->version);
	else
		printf("%-14s %s (before %d: a block inhibitor does not hold against the same "
		       "user's suspend)\n", "systemd", si->version, DECK_SYSTEMD_OWN_BLOCK_HONOURED);
}

static json_t *str_or_null(const char *s)
{
	return s && s[0] ? json_string(s) : json_null();
}

static json_t *range_json(double lo, double hi)
{
	if (!(hi > 0))
		return json_null();
	json_t *a = json_array();
	json_array_append_new(a, json_real(lo));
	json_array_append_new(a, json_real(hi));
	return a;
}

/* The route to the GPU clock and TDP, as JSON. */
static json_t *route_json(const struct deck_route *r)
{
	json_t *o = json_object(), *tried = json_array();
	json_object_set_new(o, "kind", json_string(deck_route_kind_name(r->kind)));
	json_object_set_new(o, "bus", str_or_null(r->bus));
	json_object_set_new(o, "interface", str_or_null(r->interface));
	json_object_set_new(o, "version", str_or_null(r->version));
	json_object_set_new(o, "spelling", str_or_null(r->spelling));
	json_object_set_new(o, "tdp_range_w", range_json(r->tdp_min_w, r->tdp_max_w));
	json_object_set_new(o, "tdp_range_source", str_or_null(r->tdp_range_source));
	json_object_set_new(o, "clock_range_mhz", range_json(r->clock_min_mhz, r->clock_max_mhz));
	json_object_set_new(o, "clock_range_source", str_or_null(r->clock_range_source));
	for (size_t i = 0; i < r->n_tries; i++) {
		json_t *t = json_object();
		json_object_set_new(t, "route", json_string(r->tries[i].route));
		json_object_set_new(t, "why_not", str_or_null(r->tries[i].why));
		json_array_append_new(tried, t);
	}
	json_object_set_new(o, "tried", tried);
	return o;
}

/* Everything `deck info` prints, as one JSON object. */
static json_t *info_json(struct deck *d, const struct deck_facts *f, const struct deck_sample *s,
                         const struct deck_route *route)
{
	json_t *facts = run_host_facts_json(d, f), *readings = json_object(), *o = json_object();
	for (int i = 0; i < DECK_N_READINGS; i++) {
		json_t *r = json_object();
		if (s->r[i].err == 0)
			json_object_set_new(r, "value", json_real(s->r[i].value));
		else
			json_object_set_new(r, "absent", json_string(why(s->r[i].err)));
		const char *src = deck_reading_source(d, i);
		json_object_set_new(r, "source", src ? json_string(src) : json_null());
		json_object_set_new(readings, deck_reading_name(i), r);
	}
	json_object_set_new(o, "facts", facts);
	json_object_set_new(o, "route", route_json(route));
	json_object_set_new(o, "readings", readings);
	json_object_set_new(o, "last_problem",
	                    deck_errmsg(d)[0] ? json_string(deck_errmsg(d)) : json_null());
	return o;
}

static void print_bytes(const char *name, int64_t v)
{
	if (v >= 0)
		printf("%-14s %.1f GiB\n", name, (double)v / (1024.0 * 1024 * 1024));
	else
		printf("%-14s absent\n", name);
}

/* The host's facts, one a line, "absent" for what it does not have. */
static void print_facts(struct deck *d, const struct deck_facts *f, const char *level,
                        const double tdp[3], bool has_tdp)
{
	printf("%-14s %s", "device", or_absent(f->device_model));
	if (f->dmi_product && f->device_model && strcmp(f->dmi_product, f->device_model) != 0)
		printf(" (DMI %s%s%s)", f->dmi_vendor ? f->dmi_vendor : "", f->dmi_vendor ? " " : "",
		       f->dmi_product);
	printf("\n%-14s %s\n", "host", or_absent(f->host));
	printf("%-14s %s", "os", or_absent(f->os));
	if (f->os_version && (!f->os || !strstr(f->os, f->os_version)))
		printf(" %s", f->os_version);
	if (f->os_build)
		printf(" (build %s)", f->os_build);
	printf("\n%-14s %s\n", "kernel", or_absent(f->kernel));
	printf("%-14s %s\n", "cpu", or_absent(f->cpu));
	print_bytes("memory", f->memory_B);
	print_bytes("swap", f->swap_total_B);
	if (f->swappiness >= 0)
		printf("%-14s %d\n", "swappiness", f->swappiness);
	else
		printf("%-14s absent\n", "swappiness");
	if (f->zram_B > 0)
		printf("%-14s %.1f GiB, %s\n", "zram", (double)f->zram_B / (1024.0 * 1024 * 1024),
		       or_absent(f->zram_algorithm));
	else
		printf("%-14s %s\n", "zram", f->zram_B == 0 ? "none" : "absent");
	if (deck_card(d))
		printf("%-14s %s, driver %s, PCI %s%s\n", "gpu card", deck_card(d),
		       or_absent(f->gpu_driver), or_absent(f->gpu_pci_id), f->apu ? ", APU" : "");
	else
		printf("%-14s absent (no card with gpu_busy_percent)\n", "gpu card");
	printf("%-14s %s\n", "gpu_metrics", f->gpu_metrics ? f->gpu_metrics : "absent");
	print_bytes(f->apu ? "vram carve-out" : "vram", f->vram_B);
	if (f->mesa)
		printf("%-14s %s (installed package, %s; each run records the loaded driver's)\n",
		       "mesa", f->mesa, f->mesa_source);
	else
		printf("%-14s absent from the package database; each run records the loaded "
		       "driver's\n", "mesa");
	if (f->display)
		printf("%-14s %s, %ux%u, %.2f Hz preferred mode\n", "display", f->display,
		       f->display_width, f->display_height, f->display_refresh_hz);
	else
		printf("%-14s absent (no connected connector with an EDID)\n", "display");
	printf("%-14s %s\n", "gpu level", level ? level : "absent");
	if (has_tdp)
		printf("%-14s %g W in force (the kernel allows %g to %g W)\n", "tdp", tdp[0], tdp[1],
		       tdp[2]);
	else
		printf("%-14s absent\n", "tdp");
}

/* The route to the GPU clock and TDP: what it is, what it accepts and
 * where that comes from, and each route passed over with why. */
static void print_route(const struct deck_route *r)
{
	if (r->kind == DECK_ROUTE_NONE)
		printf("%-14s none: nothing can set the GPU clock or TDP here\n", "clock route");
	else if (r->bus[0])
		printf("%-14s %s: steamos-manager on the %s bus\n", "clock route",
		       deck_route_kind_name(r->kind), r->bus);
	else
		printf("%-14s %s\n", "clock route", deck_route_kind_name(r->kind));
	if (r->kind != DECK_ROUTE_NONE) {
		printf("  %-12s %s%s%s%s\n", "interface", r->interface, r->spelling[0] ? " (" : "",
		       r->spelling, r->spelling[0] ? " spelling)" : "");
		if (r->bus[0])
			printf("  %-12s %s\n", "version", r->version[0] ? r->version : "not served");
		if (r->tdp_max_w > 0)
			printf("  %-12s %g to %g W, %s\n", "tdp range", r->tdp_min_w, r->tdp_max_w,
			       r->tdp_range_source);
		else
			printf("  %-12s not known\n", "tdp range");
		if (r->clock_max_mhz)
			printf("  %-12s %u to %u MHz, %s\n", "clock range", r->clock_min_mhz,
			       r->clock_max_mhz, r->clock_range_source);
		else
			printf("  %-12s not known\n", "clock range");
	}
	for (size_t i = 0; i < r->n_tries; i++)
		if (r->tries[i].why[0])
			printf("  %-12s %s: %s\n", "passed over", r->tries[i].route, r->tries[i].why);
}

/* One sample of every reading, or why it is absent. */
static void print_readings(struct deck *d, const struct deck_sample *s)
{
	printf("\nreadings (one sample):\n");
	for (int i = 0; i < DECK_N_READINGS; i++) {
		const char *src = deck_reading_source(d, i);
		if (s->r[i].err == 0)
			printf("  %-20s %-12g %s\n", deck_reading_name(i), s->r[i].value, src ? src : "");
		else
			printf("  %-20s absent: %s%s%s\n", deck_reading_name(i), why(s->r[i].err),
			       src ? " — " : "", src ? src : "");
	}
}

static int deck_info(int argc, char **argv, struct cmd_context *ctx)
{
	const char *command = ctx->command;
	struct opts o = { 0 };
	const struct cli_option options[] = {
		OPT_BOOL(0, "json", &o.json,
		         "print one JSON object: facts and readings (absent ones with why)"),
		DECK_OPTIONS(&o)
	};
	struct cli cli = {
		.command = command, .synopsis = "[--json] [--card NAME] [--root DIR]",
		.summary = "Prints what rxdeck stores about this host with each campaign, then one "
		           "reading of every sensor the run samples.  What this host does not "
		           "have is printed as absent, with why; nothing is made up.",
		.options = options,
	};
	int npos, exit_code;
	if (!cmd_parse(ctx, &cli, argc, argv, 0, NULL, &npos, &exit_code))
		return exit_code;
	struct deck *d;
	if (open_deck(command, &o, &d))
		return RXDECK_EXIT_FAILURE;
	struct deck_facts f;
	if (deck_facts_read(d, &f) != 0) {
		cli_error(command, "out of memory");
		deck_destroy(d);
		return RXDECK_EXIT_FAILURE;
	}
	char level_buf[64];
	const char *level = deck_card(d) && deck_perf_level_get(d, level_buf, sizeof level_buf) == 0
	                            ? level_buf : NULL;
	double tdp[3] = { 0 };
	bool has_tdp = deck_card(d) && deck_tdp_get_w(d, &tdp[0], &tdp[1], &tdp[2]) == 0;
	struct deck_sample s;
	deck_sample(d, &s);
	/* asked, never written: `deck check` makes the no-op write */
	struct deck_control *ctl = NULL;
	if (deck_control_open(d, NULL, &ctl) != 0) {
		cli_error(command, "out of memory");
		deck_facts_finish(&f);
		deck_destroy(d);
		return RXDECK_EXIT_FAILURE;
	}
	struct deck_route route = *deck_control_route(ctl);
	deck_control_destroy(ctl);

	if (o.json) {
		json_t *j = info_json(d, &f, &s, &route);
		struct systemd_info si;
		systemd_info(&si);
		if (j)
			json_object_set_new(j, "systemd", systemd_json(&si));
		int err = j ? json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : -1;
		json_decref(j);
		putchar('\n');
		deck_facts_finish(&f);
		deck_destroy(d);
		if (err || fflush(stdout) != 0) {
			cli_error(command, "cannot write the JSON to standard output");
			return RXDECK_EXIT_FAILURE;
		}
		return RXDECK_EXIT_OK;
	}

	print_facts(d, &f, level, tdp, has_tdp);
	struct systemd_info si;
	systemd_info(&si);
	print_systemd(&si);
	deck_facts_finish(&f);
	print_route(&route);

	print_readings(d, &s);
	if (deck_errmsg(d)[0])
		printf("\nlast problem: %s\n", deck_errmsg(d));
	deck_destroy(d);
	return RXDECK_EXIT_OK;
}

static int parse_mhz(const char *s, unsigned *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || end == s || (*end && strcasecmp(end, "mhz") != 0) || v == 0 || v > 100000 ||
	    s[0] == '-')
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

/* "split: steamos-manager on the session bus", "priv-write (pkexec ...)". */
static void route_words(const struct deck_route *r, char *buf, size_t size)
{
	if (r->bus[0])
		snprintf(buf, size, "%s: steamos-manager on the %s bus",
		         deck_route_kind_name(r->kind), r->bus);
	else
		snprintf(buf, size, "%s (%s)", deck_route_kind_name(r->kind), r->interface);
}

/* Without an argument: the level through the route, the clock read, the
 * range the route accepts.  Asks, never writes. */
static int clock_show(struct deck *d)
{
	struct deck_control *c;
	if (deck_control_open(d, NULL, &c) < 0)
		return -ENOMEM;
	const struct deck_route *r = deck_control_route(c);
	char level[64], words[256];
	if (deck_control_level_get(c, level, sizeof level) == 0)
		printf("level          %s\n", level);
	else
		printf("level          absent (%s)\n", deck_control_errmsg(c));
	struct deck_sample s;
	deck_sample(d, &s);
	if (s.r[DECK_GPU_SCLK_MHZ].err == 0)
		printf("shader clock   %g MHz\n", s.r[DECK_GPU_SCLK_MHZ].value);
	else
		printf("shader clock   absent\n");
	if (r->kind == DECK_ROUTE_NONE) {
		char tries[1500];
		deck_route_tries_text(r, tries, sizeof tries);
		printf("route          none: %s\n", tries);
	} else {
		route_words(r, words, sizeof words);
		printf("route          %s\n", words);
		if (r->clock_max_mhz)
			printf("fixed range    %u to %u MHz, %s\n", r->clock_min_mhz,
			       r->clock_max_mhz, r->clock_range_source);
		else
			printf("fixed range    not known\n");
	}
	deck_control_destroy(c);
	return 0;
}

/* The signals that would end the command: held while the setting changes,
 * so it is never left half-set (a fixed clock is the level and then the
 * clock), and delivered once it is done or put back. */
static void hold_signals(bool hold, sigset_t *old)
{
	if (hold) {
		sigset_t set;
		sigemptyset(&set);
		sigaddset(&set, SIGINT);
		sigaddset(&set, SIGTERM);
		sigaddset(&set, SIGHUP);
		sigaddset(&set, SIGQUIT);
		sigprocmask(SIG_BLOCK, &set, old);
	} else {
		sigprocmask(SIG_SETMASK, old, NULL);
	}
}

/* Sets the level (mhz 0) or the fixed clock through the route `run` uses,
 * proven first by a write that changes nothing.  A change that fails
 * part-way is put back through the same route. */
static int clock_set(const char *command, struct deck *d, const char *level, unsigned mhz)
{
	/* a name the kernel does not know is refused before anything is written */
	if (!mhz && deck_perf_level_check(d, level) != 0) {
		cli_error(command, "%s", deck_errmsg(d));
		return RXDECK_EXIT_FAILURE;
	}
	struct deck_control *c;
	if (deck_control_open(d, &(struct deck_control_options){ .verify = true }, &c) < 0) {
		cli_error(command, "out of memory");
		return RXDECK_EXIT_FAILURE;
	}
	const struct deck_route *r = deck_control_route(c);
	/* without a route this fails naming every route tried; the range is the route's */
	int err = mhz       ? deck_control_check(c, mhz, 0)
	          : r->kind ? 0
	                    : deck_control_level_set(c, level);
	if (err) {
		cli_error(command, "%s", deck_control_errmsg(c));
		deck_control_destroy(c);
		return RXDECK_EXIT_FAILURE;
	}
	char words[256];
	route_words(r, words, sizeof words);
	sigset_t old;
	hold_signals(true, &old);
	struct deck_control_state saved;
	err = deck_control_save(c, &saved);
	if (err) {
		hold_signals(false, &old);
		cli_error(command, "cannot read what to put back through %s: %s", words,
		          deck_control_errmsg(c));
		deck_control_destroy(c);
		return RXDECK_EXIT_FAILURE;
	}
	saved.tdp_w = 0; /* the TDP is not changed here */
	err = mhz ? deck_control_apply(c, mhz, 0) : deck_control_level_set(c, level);
	if (err) {
		char msg[1500];
		snprintf(msg, sizeof msg, "%s", deck_control_errmsg(c));
		int put = deck_control_restore(c, &saved);
		hold_signals(false, &old);
		if (put == 0)
			cli_error(command, "%s; the GPU level '%s' is put back through %s", msg,
			          saved.level, words);
		else
			cli_error(command,
			          "%s; putting back the GPU level '%s' through %s failed too: %s",
			          msg, saved.level, words, deck_control_errmsg(c));
		deck_control_destroy(c);
		return RXDECK_EXIT_FAILURE;
	}
	hold_signals(false, &old);
	if (mhz)
		printf("shader clock fixed at %u MHz (level manual), through %s\n", mhz, words);
	else
		printf("level %s, through %s\n", level, words);
	deck_control_destroy(c);
	return RXDECK_EXIT_OK;
}

static int deck_clock(int argc, char **argv, struct cmd_context *ctx)
{
	const char *command = ctx->command;
	struct opts o = { 0 };
	const struct cli_option options[] = { DECK_OPTIONS(&o) };
	struct cli cli = {
		.command = command,
		.synopsis = "[auto|low|high|profile_standard|profile_peak|manual MHZ] [--card NAME]",
		.summary = "Without an argument, prints the GPU performance level, the current shader "
		           "clock, the route that sets them and the range a fixed clock may take "
		           "there.  With one, sets the level; 'manual MHZ' fixes the shader clock "
		           "at MHZ.  It goes through the route 'rxdeck run' uses (steamos-manager "
		           "on the session bus, then the system bus, Valve's steamos-priv-write "
		           "helper, then sysfs; 'rxdeck deck info' shows which), proven first by "
		           "a write that changes nothing; a change that fails part-way is put "
		           "back through the same route.  Without a route it fails naming every "
		           "route tried and why.",
		.options = options,
	};
	int npos;
	int parse_exit;
	if (!cmd_parse(ctx, &cli, argc, argv, -1, NULL, &npos, &parse_exit))
		return parse_exit;
	unsigned mhz = 0;
	if (npos > 0 && strcmp(argv[1], "manual") == 0) {
		if (npos != 2 || parse_mhz(argv[2], &mhz) != 0) {
			cli_error(command, "'manual' needs a clock in MHz, e.g. 'manual 1000'");
			return RXDECK_EXIT_USAGE;
		}
	} else if (npos > 1) {
		cli_error(command, "unexpected argument '%s'", argv[2]);
		return RXDECK_EXIT_USAGE;
	}
	struct deck *d;
	if (open_deck(command, &o, &d))
		return RXDECK_EXIT_FAILURE;
	int rc = RXDECK_EXIT_OK;
	if (npos == 0) {
		if (clock_show(d) < 0) {
			cli_error(command, "out of memory");
			rc = RXDECK_EXIT_FAILURE;
		}
	} else {
		rc = clock_set(command, d, mhz ? NULL : argv[1], mhz);
	}
	deck_destroy(d);
	return rc;
}

int cmd_deck(int argc, char **argv, struct cmd_context *ctx)
{
	static const struct cmd_sub subs[] = {
		{ "info", deck_info, 0 },
		{ "clock", deck_clock, 0 },
		{ "check", cmd_deck_check, 0 },
		{ NULL, NULL, 0 },
	};
	return cmd_dispatch_sub(ctx, subs, usage, argc, argv);
}
