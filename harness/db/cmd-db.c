/* cmd-db: `rxdeck db migrate|export|import`, the results database's
 * maintenance commands.  It owns their command lines and messages; the
 * database work is results-db's (db.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "results-db/db.h"

enum { OPT_DB = 1, OPT_CAMPAIGN, OPT_OUTPUT };

struct opts {
	const char *db;
	const char *campaign;
	const char *output;
};

static int on_option(void *ctx, int id, char **args)
{
	struct opts *o = ctx;
	switch (id) {
	case OPT_DB:
		o->db = args[0];
		return 0;
	case OPT_CAMPAIGN:
		o->campaign = args[0];
		return 0;
	case OPT_OUTPUT:
		o->output = args[0];
		return 0;
	}
	return -EINVAL;
}

#define DB_OPTION { "db", 0, 1, "PATH", "the database (default: $XDG_DATA_HOME/rxdeck/results.db)", OPT_DB }

static const struct cli_option migrate_options[] = {
	DB_OPTION,
	{ NULL, 0, 0, NULL, NULL, 0 },
};

static const struct cli_option export_options[] = {
	DB_OPTION,
	{ "campaign", 'c', 1, "NAME", "export this campaign only (default: all)", OPT_CAMPAIGN },
	{ "output", 'o', 1, "FILE", "write to FILE, replaced only once complete (default: stdout)", OPT_OUTPUT },
	{ NULL, 0, 0, NULL, NULL, 0 },
};

static const struct cli_option import_options[] = {
	DB_OPTION,
	{ NULL, 0, 0, NULL, NULL, 0 },
};

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

/* Opens for a command; prints the reason on failure. */
static int open_db(const char *command, const char *path, unsigned flags, struct db **out)
{
	char msg[1024] = "";
	struct db_open_options o = { .flags = flags, .errmsg = msg, .errmsg_size = sizeof msg };
	int err = db_open_ex(path, &o, out);
	if (err) {
		if (err == -ENOENT && (flags & DB_OPEN_NO_CREATE) && path)
			cli_error(command, "no database at '%s'", path);
		else
			cli_error(command, "%s", msg[0] ? msg : strerror(-err));
	}
	return err;
}

static int db_migrate_cmd(int argc, char **argv)
{
	const char *command = "rxdeck db migrate";
	struct opts o = { 0 };
	struct cli cli = {
		.command = command, .synopsis = "[--db PATH]",
		.summary = "Migrates the database to this rxdeck's schema version, one version at a "
		           "time, each in one transaction.  A database newer than this rxdeck is "
		           "left untouched.",
		.options = migrate_options, .on_option = on_option, .ctx = &o,
	};
	int npos, exit_code;
	if (!cli_parse_command(&cli, argc, argv, 0, NULL, &npos, &exit_code))
		return exit_code;
	struct db *db;
	if (open_db(command, o.db, DB_OPEN_NO_CREATE | DB_OPEN_NO_MIGRATE, &db))
		return RXDECK_EXIT_FAILURE;
	int before, after;
	int err = db_schema_version(db, &before);
	if (!err)
		err = db_migrate(db, 0);
	if (!err)
		err = db_schema_version(db, &after);
	if (err) {
		cli_error(command, "%s", db_errmsg(db));
		db_close(db);
		return RXDECK_EXIT_FAILURE;
	}
	if (before == after)
		printf("'%s' is at schema version %d already\n", db_path(db), after);
	else
		printf("'%s': schema version %d -> %d\n", db_path(db), before, after);
	db_close(db);
	return RXDECK_EXIT_OK;
}

static int db_export_cmd(int argc, char **argv)
{
	const char *command = "rxdeck db export";
	struct opts o = { 0 };
	struct cli cli = {
		.command = command, .synopsis = "[--db PATH] [--campaign NAME] [-o FILE]",
		.summary = "Writes campaigns (builds, arms, runs, frames, samples, metrics, log "
		           "lines, shots, posts) as one JSON document that 'rxdeck db import' "
		           "reads back exactly.",
		.options = export_options, .on_option = on_option, .ctx = &o,
	};
	int npos, exit_code;
	if (!cli_parse_command(&cli, argc, argv, 0, NULL, &npos, &exit_code))
		return exit_code;
	struct db *db;
	if (open_db(command, o.db, DB_OPEN_NO_CREATE, &db))
		return RXDECK_EXIT_FAILURE;
	int64_t campaign_id = 0;
	if (o.campaign) {
		struct db_campaign *c;
		if (db_campaign_find(db, o.campaign, &c) != 0) {
			cli_error(command, "%s", db_errmsg(db));
			db_close(db);
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
			db_close(db);
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
			db_close(db);
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
	db_close(db);
	return err ? RXDECK_EXIT_FAILURE : RXDECK_EXIT_OK;
}

static int db_import_cmd(int argc, char **argv)
{
	const char *command = "rxdeck db import";
	struct opts o = { 0 };
	struct cli cli = {
		.command = command, .synopsis = "[--db PATH] FILE",
		.summary = "Adds the campaigns of an 'rxdeck db export' document (FILE, or - for "
		           "standard input) in one transaction: all of them or, on any error or "
		           "a campaign name already here, none.",
		.options = import_options, .on_option = on_option, .ctx = &o,
	};
	int npos;
	int parse_exit;
	if (!cli_parse_command(&cli, argc, argv, -1, NULL, &npos, &parse_exit))
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
	struct db *db;
	if (open_db(command, o.db, 0, &db)) {
		if (in != stdin)
			fclose(in);
		return RXDECK_EXIT_FAILURE;
	}
	size_t n = 0;
	int err = db_import(db, in, in == stdin ? "(stdin)" : file, &n);
	if (in != stdin)
		fclose(in);
	if (err)
		cli_error(command, "%s", db_errmsg(db));
	else
		printf("imported %zu campaign%s from '%s' into '%s'\n", n, n == 1 ? "" : "s", file,
		       db_path(db));
	db_close(db);
	return err ? RXDECK_EXIT_FAILURE : RXDECK_EXIT_OK;
}

int cmd_db(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return RXDECK_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return RXDECK_EXIT_OK;
	}
	if (strcmp(argv[1], "migrate") == 0)
		return db_migrate_cmd(argc - 1, argv + 1);
	if (strcmp(argv[1], "export") == 0)
		return db_export_cmd(argc - 1, argv + 1);
	if (strcmp(argv[1], "import") == 0)
		return db_import_cmd(argc - 1, argv + 1);
	cli_error("rxdeck db", "unknown command '%s' (migrate, export or import)", argv[1]);
	return RXDECK_EXIT_USAGE;
}
