/* cmd-deck: `rxdeck deck info` (host facts and one sample of every
 * reading, absent ones marked absent with why) and `rxdeck deck clock`
 * (show or force the GPU clock).  It owns their command lines and output;
 * the reading and writing is deck's (deck.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "deck/deck.h"

struct opts {
	const char *root;
	const char *card;
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

static int deck_info(int argc, char **argv, struct cmd_context *ctx)
{
	const char *command = ctx->command;
	struct opts o = { 0 };
	const struct cli_option options[] = { DECK_OPTIONS(&o) };
	struct cli cli = {
		.command = command, .synopsis = "[--card NAME] [--root DIR]",
		.summary = "Prints what rxdeck stores about this host with each campaign, then one "
		           "reading of every sensor the run samples.  What this host does not "
		           "have is printed as absent, with why; nothing is made up.",
		.options = options,
	};
	int npos, exit_code;
	if (!cli_parse_command(&cli, argc, argv, 0, NULL, &npos, &exit_code))
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
	printf("%-14s %s", "device", or_absent(f.device_model));
	if (f.dmi_product && f.device_model && strcmp(f.dmi_product, f.device_model) != 0)
		printf(" (DMI %s%s%s)", f.dmi_vendor ? f.dmi_vendor : "", f.dmi_vendor ? " " : "",
		       f.dmi_product);
	printf("\n%-14s %s\n", "host", or_absent(f.host));
	printf("%-14s %s", "os", or_absent(f.os));
	if (f.os_version && (!f.os || !strstr(f.os, f.os_version)))
		printf(" %s", f.os_version);
	if (f.os_build)
		printf(" (build %s)", f.os_build);
	printf("\n%-14s %s\n", "kernel", or_absent(f.kernel));
	printf("%-14s %s\n", "cpu", or_absent(f.cpu));
	if (f.memory_B >= 0)
		printf("%-14s %.1f GiB\n", "memory", (double)f.memory_B / (1024.0 * 1024 * 1024));
	else
		printf("%-14s absent\n", "memory");
	if (deck_card(d))
		printf("%-14s %s, driver %s, PCI %s\n", "gpu card", deck_card(d),
		       or_absent(f.gpu_driver), or_absent(f.gpu_pci_id));
	else
		printf("%-14s absent (no card with gpu_busy_percent)\n", "gpu card");
	if (f.mesa)
		printf("%-14s %s (installed package, %s; each run records the loaded driver's)\n",
		       "mesa", f.mesa, f.mesa_source);
	else
		printf("%-14s absent from the package database; each run records the loaded "
		       "driver's\n", "mesa");
	char level[64];
	if (deck_card(d) && deck_perf_level_get(d, level, sizeof level) == 0)
		printf("%-14s %s\n", "gpu level", level);
	else
		printf("%-14s absent\n", "gpu level");
	deck_facts_finish(&f);

	struct deck_sample s;
	deck_sample(d, &s);
	printf("\nreadings (one sample):\n");
	for (int i = 0; i < DECK_N_READINGS; i++) {
		const char *src = deck_reading_source(d, i);
		if (s.r[i].err == 0)
			printf("  %-20s %-12g %s\n", deck_reading_name(i), s.r[i].value, src ? src : "");
		else
			printf("  %-20s absent: %s%s%s\n", deck_reading_name(i), why(s.r[i].err),
			       src ? " — " : "", src ? src : "");
	}
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

static int deck_clock(int argc, char **argv, struct cmd_context *ctx)
{
	const char *command = ctx->command;
	struct opts o = { 0 };
	const struct cli_option options[] = { DECK_OPTIONS(&o) };
	struct cli cli = {
		.command = command,
		.synopsis = "[auto|low|high|profile_standard|profile_peak|manual MHZ] [--card NAME]",
		.summary = "Without an argument, prints the GPU performance level, the current shader "
		           "clock and the range a fixed clock may take.  With one, sets the level "
		           "(power_dpm_force_performance_level); 'manual MHZ' fixes the shader clock "
		           "at MHZ.  Setting needs root or write access to those files.",
		.options = options,
	};
	int npos;
	int parse_exit;
	if (!cli_parse_command(&cli, argc, argv, -1, NULL, &npos, &parse_exit))
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
	int err = 0;
	if (npos == 0) {
		char level[64];
		err = deck_perf_level_get(d, level, sizeof level);
		if (!err) {
			printf("level          %s\n", level);
			struct deck_sample s;
			deck_sample(d, &s);
			if (s.r[DECK_GPU_SCLK_MHZ].err == 0)
				printf("shader clock   %g MHz\n", s.r[DECK_GPU_SCLK_MHZ].value);
			else
				printf("shader clock   absent\n");
			unsigned lo, hi;
			if (deck_sclk_range_mhz(d, &lo, &hi) == 0)
				printf("fixed range    %u to %u MHz\n", lo, hi);
			else
				printf("fixed range    absent\n");
		}
	} else if (mhz) {
		err = deck_sclk_set_mhz(d, mhz);
		if (!err)
			printf("shader clock fixed at %u MHz (level manual)\n", mhz);
	} else {
		err = deck_perf_level_set(d, argv[1]);
		if (!err)
			printf("level %s\n", argv[1]);
	}
	if (err) {
		cli_error(command, "%s", deck_errmsg(d));
		deck_destroy(d);
		return RXDECK_EXIT_FAILURE;
	}
	deck_destroy(d);
	return RXDECK_EXIT_OK;
}

int cmd_deck(int argc, char **argv, struct cmd_context *ctx)
{
	static const struct cmd_sub subs[] = {
		{ "info", deck_info, 0 },
		{ "clock", deck_clock, 0 },
		{ NULL, NULL, 0 },
	};
	return cmd_dispatch_sub(ctx, subs, usage, argc, argv);
}
