/* cmd-db: `rxdeck db migrate|export|import`, the results database's
 * maintenance commands.  It owns their command lines and messages; the
 * database work is results-db's (db.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "results-db/db.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: rxdeck db COMMAND [--db PATH] ...\n\n"
	           "Looks after the results database.\n\n"
	           "commands:\n"
	           "  migrate        bring the database to this rxdeck's schema version\n"
	           "  export         write campaigns with everything they own as JSON\n"
	           "  import FILE    add the campaigns of an export (all of them or none)\n\n"
	           "'rxdeck db COMMAND --help' describes one command.\n");
}

static int db_migrate_cmd(int argc, char **argv, struct cmd_context *ctx)
{
	const char *command = ctx->command;
	const struct cli_option options[] = { OPT_DB(&ctx->db_path), OPT_END };
	struct cli cli = {
		.command = command, .synopsis = "[--db PATH]",
		.summary = "Migrates the database to this rxdeck's schema version, one version at a "
		           "time, each in one transaction.  A database newer than this rxdeck is "
		           "left untouched.",
		.options = options,
	};
	int npos, exit_code;
	if (!cmd_parse(ctx, &cli, argc, argv, 0, NULL, &npos, &exit_code))
		return exit_code;
	struct db *db = ctx->db;
	int before, after;
	int err = db_schema_version(db, &before);
	if (!err)
		err = db_migrate(db, 0);
	if (!err)
		err = db_schema_version(db, &after);
	if (err) {
		cli_error(command, "%s", db_errmsg(db));
			return RXDECK_EXIT_FAILURE;
	}
	if (before == after)
		printf("'%s' is at schema version %d already\n", db_path(db), after);
	else
		printf("'%s': schema version %d -> %d\n", db_path(db), before, after);
	return RXDECK_EXIT_OK;
}

static int db_export_cmd(int argc, char **argv, struct cmd_context *ctx)
{
	const char *command = ctx->command;
	struct { const char *campaign, *output; } o = { 0 };
	const struct cli_option options[] = {
		OPT_DB(&ctx->db_path),
		OPT_STRING('c', "campaign", &o.campaign, "NAME", "export this campaign only (default: all)"),
		OPT_OUTPUT(&o.output),
		OPT_END,
	};
	struct cli cli = {
		.command = command, .synopsis = "[--db PATH] [--campaign NAME] [-o FILE]",
		.summary = "Writes campaigns (builds, arms, runs, frames, samples, metrics, log "
		           "lines, shots, posts) as one JSON document that 'rxdeck db import' "
		           "reads back exactly.",
		.options = options,
	};
	int npos, exit_code;
	if (!cmd_parse(ctx, &cli, argc, argv, 0, NULL, &npos, &exit_code))
		return exit_code;
	struct db *db = ctx->db;
	int64_t campaign_id = 0;
	if (o.campaign) {
		struct db_campaign *c;
		if (db_campaign_find(db, o.campaign, &c) != 0) {
			cli_error(command, "%s", db_errmsg(db));
					return RXDECK_EXIT_FAILURE;
		}
		campaign_id = c->id;
		free(c);
	}
	/* A file is written beside its final name and renamed once whole, so
	 * a failed export never leaves half a document under that name. */
	FILE *out = stdout;
	char *tmp = NULL;
	if (o.output && strcmp(o.output, "-") != 0) {
		if (asprintf(&tmp, "%s.tmp-XXXXXX", o.output) < 0) {
					return RXDECK_EXIT_FAILURE;
		}
		int fd = mkstemp(tmp);
		if (fd < 0 || !(out = fdopen(fd, "w"))) {
			cli_error(command, "cannot write '%s': %s", o.output, strerror(errno));
			if (fd >= 0) {
				close(fd);
				unlink(tmp);
			}
			free(tmp);
					return RXDECK_EXIT_FAILURE;
		}
	}
	int err = db_export(db, campaign_id, out);
	if (err)
		cli_error(command, "%s", db_errmsg(db));
	if (tmp) {
		if (fsync(fileno(out)) != 0 && !err) {
			cli_error(command, "cannot write '%s': %s", o.output, strerror(errno));
			err = -EIO;
		}
		if (fclose(out) != 0 && !err) {
			cli_error(command, "cannot write '%s': %s", o.output, strerror(errno));
			err = -EIO;
		}
		if (!err && rename(tmp, o.output) != 0) {
			cli_error(command, "cannot write '%s': %s", o.output, strerror(errno));
			err = -EIO;
		}
		if (err)
			unlink(tmp);
		free(tmp);
	}
	return err ? RXDECK_EXIT_FAILURE : RXDECK_EXIT_OK;
}

static int db_import_cmd(int argc, char **argv, struct cmd_context *ctx)
{
	const char *command = ctx->command;
	const struct cli_option options[] = { OPT_DB(&ctx->db_path), OPT_END };
	struct cli cli = {
		.command = command, .synopsis = "[--db PATH] FILE",
		.summary = "Adds the campaigns of an 'rxdeck db export' document (FILE, or - for "
		           "standard input) in one transaction: all of them or, on any error, none.  "
		           "A campaign already here with the same results adds nothing; another "
		           "host's campaign of a name already here is stored as NAME@HOST; a "
		           "partial campaign (runs not finished) is imported and said to be, and "
		           "a later export of it with more runs finished replaces it.  The same "
		           "campaign with other results is refused.",
		.options = options,
	};
	int npos;
	int parse_exit;
	if (!cmd_parse(ctx, &cli, argc, argv, -1, NULL, &npos, &parse_exit))
		return parse_exit;
	if (npos != 1) {
		cli_error(command, npos ? "one FILE at a time" : "which file? (see --help)");
		return RXDECK_EXIT_USAGE;
	}
	const char *file = argv[1];
	FILE *in = strcmp(file, "-") == 0 ? stdin : fopen(file, "r");
	if (!in) {
		cli_error(command, "cannot open '%s': %s", file, strerror(errno));
		return RXDECK_EXIT_FAILURE;
	}
	if (cmd_open_db(ctx, CMD_DB_CREATE) < 0) {
		if (in != stdin)
			fclose(in);
		return RXDECK_EXIT_FAILURE;
	}
	struct db *db = ctx->db;
	struct db_import_report rep = { 0 };
	int err = db_import_ex(db, in, in == stdin ? "(stdin)" : file, &rep);
	if (in != stdin)
		fclose(in);
	if (err) {
		cli_error(command, "%s", db_errmsg(db));
		return RXDECK_EXIT_FAILURE;
	}
	size_t n = 0;
	for (size_t i = 0; i < rep.n; i++)
		n += rep.items[i].action != DB_IMPORT_SAME;
	printf("imported %zu campaign%s from '%s' into '%s'\n", n, n == 1 ? "" : "s", file,
	       db_path(db));
	for (size_t i = 0; i < rep.n; i++) {
		const struct db_import_item *it = &rep.items[i];
		printf("  '%s': ", it->name);
		switch (it->action) {
		case DB_IMPORT_ADDED:
			fputs("added", stdout);
			break;
		case DB_IMPORT_QUALIFIED:
			printf("added as '%s' (another host's campaign has the name)", it->stored_as);
			break;
		case DB_IMPORT_SAME:
			printf("already here as '%s' with the same results: nothing added", it->stored_as);
			break;
		case DB_IMPORT_UPDATED:
			printf("replaced the partial '%s' (more runs finished)", it->stored_as);
			break;
		}
		if (it->partial)
			printf("; partial: %zu of %zu runs finished", it->runs_finished, it->runs);
		putchar('\n');
	}
	free(rep.items);
	return RXDECK_EXIT_OK;
}

int cmd_db(int argc, char **argv, struct cmd_context *ctx)
{
	static const struct cmd_sub subs[] = {
		{ "migrate", db_migrate_cmd, CMD_NEEDS_DB | CMD_DB_NO_MIGRATE },
		{ "export", db_export_cmd, CMD_NEEDS_DB | CMD_DB_READ_ONLY },
		{ "import", db_import_cmd, 0 },
		{ NULL, NULL, 0 },
	};
	return cmd_dispatch_sub(ctx, subs, usage, argc, argv);
}
