/* cmd-dispatch: finding a subcommand by name (`rxdeck db export`) and
 * running it with its row's flags.  It owns the unknown-subcommand message;
 * the top-level table is cmd-table.c's.  It needs nothing but cli.c, so the
 * static route player of the VM test links it alone. */
#include "cmd.h"

#include <string.h>

int cmd_dispatch_sub(struct cmd_context *ctx, const struct cmd_sub *subs, void (*usage)(FILE *f),
                     int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return RXDECK_EXIT_USAGE;
	}
	const char *name = argv[1];
	if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
		usage(stdout);
		return RXDECK_EXIT_OK;
	}
	size_t n = 0;
	for (const struct cmd_sub *s = subs; s->name; s++, n++) {
		if (strcmp(s->name, name) != 0)
			continue;
		char command[128];
		snprintf(command, sizeof command, "%s %s", ctx->command, s->name);
		const char *parent = ctx->command;
		ctx->command = command;
		ctx->flags = s->flags;
		int rc = s->fn(argc - 1, argv + 1, ctx);
		ctx->command = parent;
		return rc;
	}
	char names[256] = "";
	size_t len = 0;
	for (size_t i = 0; i < n && len < sizeof names; i++)
		len += (size_t)snprintf(names + len, sizeof names - len, "%s%s",
		                        i == 0 ? "" : i + 1 == n ? " or " : ", ", subs[i].name);
	cli_error(ctx->command, "unknown command '%s' (%s)", name, names);
	return RXDECK_EXIT_USAGE;
}
