/* cmd-common: the set-up every command shares, done one way: options parsed,
 * then the database opened and the campaign resolved as the command's row
 * asks (cmd.h).  It owns the messages for a database or campaign that
 * cannot be had; the database is results-db's, the campaign lookup
 * report's. */
#include "cmd.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "results-db/db.h"

int cmd_open_db(struct cmd_context *ctx, unsigned flags)
{
	if (ctx->db)
		return 0;
	char msg[1024] = "";
	unsigned open_flags = (flags & CMD_DB_CREATE) ? DB_OPEN_DEFAULT : DB_OPEN_NO_CREATE;
	if (flags & CMD_DB_NO_MIGRATE)
		open_flags |= DB_OPEN_NO_MIGRATE;
	if (flags & CMD_DB_READ_ONLY)
		open_flags = DB_OPEN_READ_ONLY;
	struct db_open_options o = { .flags = open_flags, .errmsg = msg, .errmsg_size = sizeof msg };
	int err = db_open_ex(ctx->db_path, &o, &ctx->db);
	int version = DB_SCHEMA_VERSION;
	if (!err && (flags & CMD_DB_READ_ONLY) &&
	    (db_schema_version(ctx->db, &version) < 0 || version < DB_SCHEMA_VERSION)) {
		/* an rxdeck file of an older schema: migrated first, as a writer
		 * would (the reads expect this schema) */
		db_close(ctx->db);
		o.flags = DB_OPEN_NO_CREATE;
		err = db_open_ex(ctx->db_path, &o, &ctx->db);
	}
	if (!err)
		return 0;
	ctx->db = NULL;
	if (err == -ENOENT && !(flags & CMD_DB_CREATE)) {
		/* --db or the default: the same hint */
		char *def = NULL;
		if (!ctx->db_path)
			db_default_path(&def);
		const char *path = ctx->db_path ? ctx->db_path : def;
		cli_error(ctx->command, "no results database at '%s' yet (run a campaign first, or "
		          "name one with --db)", path ? path : "$XDG_DATA_HOME/rxdeck/results.db");
		free(def);
	} else {
		cli_error(ctx->command, "%s", msg[0] ? msg : strerror(-err));
	}
	return err;
}

int cmd_find_campaign(struct cmd_context *ctx, const char *campaign)
{
	char msg[1024] = "";
	struct report_options ro = { .errmsg = msg, .errmsg_size = sizeof msg };
	int err = report_campaign_resolve(ctx->db, campaign, &ro, &ctx->campaign_id);
	if (err)
		cli_error(ctx->command, "%s", msg[0] ? msg : strerror(-err));
	return err;
}

bool cmd_parse(struct cmd_context *ctx, const struct cli *cli, int argc, char **argv,
               int max_positional, const char *why, int *n_positional, int *exit_code)
{
	int npos = 0;
	if (!cli_parse_command(cli, argc, argv, max_positional, why, &npos, exit_code))
		return false;
	*n_positional = npos;
	if (!(ctx->flags & CMD_NEEDS_DB))
		return true;
	if (cmd_open_db(ctx, ctx->flags) < 0 ||
	    ((ctx->flags & CMD_NEEDS_CAMPAIGN) &&
	     cmd_find_campaign(ctx, npos ? argv[1] : NULL) < 0)) {
		*exit_code = RXDECK_EXIT_FAILURE;
		return false;
	}
	return true;
}

int cmd_parse_run_ref(const char *command, const char *ref, char *campaign, size_t size,
                      int *position)
{
	snprintf(campaign, size, "%s", ref);
	*position = 0;
	char *slash = strrchr(campaign, '/');
	if (!slash)
		return 0;
	char *end;
	long v = strtol(slash + 1, &end, 10);
	if (end == slash + 1 || *end || v <= 0 || v > 1000000) {
		cli_error(command, "bad run '%s': expected CAMPAIGN/N, N the run's position", ref);
		return -EINVAL;
	}
	*position = (int)v;
	*slash = 0;
	return 0;
}
