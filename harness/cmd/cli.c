/* cli: the option-table parser every rxdeck command uses (see cli.h).
 * It owns argv walking, --help text and turning a typed option's argument
 * into its value; what a callback option means is its command's. */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "route/route.h"

void cli_error(const char *command, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", command);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void cli_help(const struct cli *cli, FILE *f)
{
	fprintf(f, "usage: %s %s\n\n", cli->command, cli->synopsis ? cli->synopsis : "");
	if (cli->summary)
		fprintf(f, "%s\n\n", cli->summary);
	fprintf(f, "options:\n");
	for (const struct cli_option *o = cli->options; o && o->name; o++) {
		char left[96];
		int n = 0;
		if (o->short_name)
			n = snprintf(left, sizeof left, "-%c, --%s", o->short_name, o->name);
		else
			n = snprintf(left, sizeof left, "    --%s", o->name);
		if (o->nargs > 0 && n < (int)sizeof left)
			snprintf(left + n, sizeof left - (size_t)n, " %s", o->args ? o->args : "ARG");
		fprintf(f, "  %-30s %s\n", left, o->help ? o->help : "");
	}
	fprintf(f, "  %-30s %s\n", "-h, --help", "print this help and exit");
}

static const struct cli_option *find_long(const struct cli *cli, const char *name, size_t len)
{
	for (const struct cli_option *o = cli->options; o && o->name; o++)
		if (strlen(o->name) == len && strncmp(o->name, name, len) == 0)
			return o;
	return NULL;
}

static const struct cli_option *find_short(const struct cli *cli, char c)
{
	for (const struct cli_option *o = cli->options; o && o->name; o++)
		if (o->short_name && o->short_name == c)
			return o;
	return NULL;
}

static void bad_value(const struct cli *cli, const struct cli_option *o, const char *arg,
                      const char *expect)
{
	cli_error(cli->command, "bad %s '%s': expected %s", o->what ? o->what : o->name, arg,
	          o->expect ? o->expect : expect);
}

static int parse_int(const struct cli *cli, const struct cli_option *o, const char *arg)
{
	char *end;
	errno = 0;
	long long v = strtoll(arg, &end, 10);
	if (errno || end == arg || *end || v < o->min || v > o->max) {
		char expect[96];
		snprintf(expect, sizeof expect, "a whole number from %lld to %lld", (long long)o->min,
		         (long long)o->max);
		bad_value(cli, o, arg, expect);
		return -EINVAL;
	}
	*(int64_t *)o->value = v;
	return 0;
}

static int parse_choice(const struct cli *cli, const struct cli_option *o, const char *arg)
{
	size_t n = 0, shown = 0;
	for (const char *const *c = o->choices; *c; c++, n++)
		shown += strchr(*c, '=') == NULL;
	for (size_t i = 0; i < n; i++) {
		const char *c = o->choices[i];
		const char *eq = strchr(c, '=');
		size_t name_len = eq ? (size_t)(eq - c) : strlen(c);
		if (strlen(arg) != name_len || strncmp(arg, c, name_len) != 0)
			continue;
		/* an alias counts as the choice it names */
		size_t k = i;
		for (size_t j = 0; eq && j < n; j++)
			if (strcmp(o->choices[j], eq + 1) == 0)
				k = j;
		*(int *)o->value = (int)k;
		return 0;
	}
	char expect[256] = "";
	size_t len = 0, k = 0;
	for (size_t i = 0; i < n && len < sizeof expect; i++) {
		if (strchr(o->choices[i], '='))
			continue;
		const char *sep = k == 0 ? "" : k + 1 == shown ? " or " : ", ";
		len += (size_t)snprintf(expect + len, sizeof expect - len, "%s%s", sep, o->choices[i]);
		k++;
	}
	bad_value(cli, o, arg, expect);
	return -EINVAL;
}

/* Hands one option's arguments to its type's parser or to the callback. */
static int take(const struct cli *cli, const struct cli_option *o, char **args)
{
	switch (o->type) {
	case CLI_CALLBACK:
		return cli->on_option ? cli->on_option(cli->ctx, o->id, args) : 0;
	case CLI_STRING:
		*(const char **)o->value = args[0];
		return 0;
	case CLI_BOOL:
		*(bool *)o->value = true;
		return 0;
	case CLI_INT:
		return parse_int(cli, o, args[0]);
	case CLI_DURATION:
		if (route_parse_time(args[0], (int64_t *)o->value) != 0) {
			bad_value(cli, o, args[0], "a time like 2s or 500ms");
			return -EINVAL;
		}
		return 0;
	case CLI_ARM:
		if (strlen(args[0]) != 1 || args[0][0] < 'A' || args[0][0] > 'Z') {
			bad_value(cli, o, args[0], "an arm letter A to Z");
			return -EINVAL;
		}
		*(char *)o->value = args[0][0];
		return 0;
	case CLI_CHOICE:
		return parse_choice(cli, o, args[0]);
	}
	return -EINVAL;
}

int cli_parse(const struct cli *cli, int argc, char **argv, int *n_positional)
{
	int npos = 0;
	int only_positional = 0;
	for (int i = 1; i < argc; i++) {
		char *a = argv[i];
		if (only_positional || a[0] != '-' || a[1] == '\0') {
			argv[1 + npos++] = a;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			only_positional = 1;
			continue;
		}
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			cli_help(cli, stdout);
			return 1;
		}
		const struct cli_option *o;
		char *inline_value = NULL;
		if (a[1] == '-') {
			char *eq = strchr(a + 2, '=');
			size_t len = eq ? (size_t)(eq - (a + 2)) : strlen(a + 2);
			o = find_long(cli, a + 2, len);
			if (eq)
				inline_value = eq + 1;
		} else {
			o = a[2] == '\0' ? find_short(cli, a[1]) : NULL;
		}
		if (!o) {
			cli_error(cli->command, "unknown option '%s' (see --help)", a);
			return -EINVAL;
		}
		char *args[8] = { 0 };
		if (o->nargs > 8)
			return -EINVAL;
		if (inline_value) {
			if (o->nargs != 1) {
				cli_error(cli->command, "option '--%s' takes %d arguments, not '=%s'",
				          o->name, o->nargs, inline_value);
				return -EINVAL;
			}
			args[0] = inline_value;
		} else {
			if (i + o->nargs >= argc) {
				cli_error(cli->command, "option '--%s' needs %s", o->name,
				          o->args ? o->args : "an argument");
				return -EINVAL;
			}
			for (int k = 0; k < o->nargs; k++) {
				if (strncmp(argv[i + 1], "--", 2) == 0) {
					cli_error(cli->command, "option '--%s' needs %s", o->name,
					          o->nargs == 1 ? "a value" : o->args ? o->args : "its arguments");
					return -EINVAL;
				}
				args[k] = argv[++i];
			}
		}
		int r = take(cli, o, args);
		if (r < 0)
			return r;
	}
	*n_positional = npos;
	return 0;
}

bool cli_parse_command(const struct cli *cli, int argc, char **argv, int max_positional,
                       const char *why, int *n_positional, int *exit_code)
{
	int npos = 0;
	int r = cli_parse(cli, argc, argv, &npos);
	if (r == 1) {
		*exit_code = 0;
		return false;
	}
	if (r < 0) {
		*exit_code = 2;
		return false;
	}
	if (max_positional >= 0 && npos > max_positional) {
		cli_error(cli->command, "unexpected argument '%s'%s%s", argv[1 + max_positional],
		          why ? ": " : "", why ? why : "");
		*exit_code = 2;
		return false;
	}
	*n_positional = npos;
	return true;
}
