/* cmd-dispatch: finding a subcommand by name (`rxdeck db export`) and
 * running it with its row's flags.  It owns the unknown-subcommand message
 * and the "did you mean" that names the commands closest to a mistyped one
 * (for subcommands and, through cmd_suggest(), the top-level table, which
 * is cmd-table.c's).  It needs nothing but cli.c, so the static route
 * player of the VM test links it alone. */
#include "cmd.h"

#include <string.h>

/* The edit distance of a and b, a transposition of two neighbours costing
 * one edit as an insertion, a deletion or a substitution does (restricted
 * Damerau-Levenshtein; words of at most 63 bytes, longer ones are far). */
static size_t edit_distance(const char *a, const char *b)
{
	enum { MAX = 64 };
	size_t la = strlen(a), lb = strlen(b);
	if (la >= MAX || lb >= MAX)
		return MAX;
	size_t d[MAX][MAX];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	}
	return d[la][lb];
}

/* How far word is from name: 0 when word (two letters or more) begins it,
 * else the edit distance. */
static size_t farness(const char *word, const char *name)
{
	size_t n = strlen(word);
	if (n >= 2 && strncmp(word, name, n) == 0)
		return 0;
	return edit_distance(word, name);
}

size_t cmd_suggest(const char *word, const char *const *names, size_t n_names, char *out,
                   size_t size)
{
	/* near enough: at most two edits, and at most half the word */
	size_t limit = strlen(word) / 2 < 2 ? strlen(word) / 2 : 2;
	size_t best = limit + 1;
	for (size_t i = 0; i < n_names; i++) {
		size_t f = farness(word, names[i]);
		best = f < best ? f : best;
	}
	size_t found = 0, len = 0;
	if (size)
		out[0] = 0;
	if (best > limit)
		return 0;
	size_t n_best = 0;
	for (size_t i = 0; i < n_names; i++)
		n_best += farness(word, names[i]) == best;
	for (size_t i = 0; i < n_names && len < size; i++) {
		if (farness(word, names[i]) != best)
			continue;
		found++;
		const char *sep = found == 1 ? "" : found == n_best ? " or " : ", ";
		len += (size_t)snprintf(out + len, size - len, "%s'%s'", sep, names[i]);
	}
	return found;
}

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
	char names[256] = "", near[256];
	const char *list[32];
	size_t len = 0;
	for (size_t i = 0; i < n && len < sizeof names; i++)
		len += (size_t)snprintf(names + len, sizeof names - len, "%s%s",
		                        i == 0 ? "" : i + 1 == n ? " or " : ", ", subs[i].name);
	for (size_t i = 0; i < n && i < 32; i++)
		list[i] = subs[i].name;
	if (cmd_suggest(name, list, n < 32 ? n : 32, near, sizeof near))
		cli_error(ctx->command, "unknown command '%s' (%s); did you mean %s?", name, names,
		          near);
	else
		cli_error(ctx->command, "unknown command '%s' (%s)", name, names);
	return RXDECK_EXIT_USAGE;
}
