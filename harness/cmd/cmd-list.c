/* cmd-list: `rxdeck list`, the campaigns in the results database, newest
 * first, with how far each got.  It owns the listing's format; the data is
 * results-db's. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "results-db/db.h"

static void when(int64_t unix_ms, char *buf, size_t size)
{
	time_t t = (time_t)(unix_ms / 1000);
	struct tm tm;
	if (unix_ms > 0 && localtime_r(&t, &tm))
		strftime(buf, size, "%Y-%m-%d %H:%M", &tm);
	else
		snprintf(buf, size, "-");
}

int cmd_list(int argc, char **argv, struct cmd_context *ctx)
{
	const struct cli_option options[] = {
		OPT_DB(&ctx->db_path),
		OPT_END,
	};
	const struct cli cli = {
		.command = ctx->command,
		.synopsis = "[--db PATH]",
		.summary = "Lists the campaigns in the results database, newest first: name, state,\n"
		           "runs done, void and still to play, when it was made, the route and the arms.\n"
		           "'rxdeck show NAME' says more about one.",
		.options = options,
	};
	int npos = 0;
	int exit_code;
	if (!cmd_parse(ctx, &cli, argc, argv, 0, "see 'rxdeck show' for one campaign", &npos,
	               &exit_code))
		return exit_code;
	struct db *db = ctx->db;
	struct db_campaign *cs;
	size_t n;
	if (db_campaign_list(db, &cs, &n) < 0) {
		cli_error(ctx->command, "%s", db_errmsg(db));
		return RXDECK_EXIT_FAILURE;
	}
	if (n == 0)
		printf("no campaign in '%s' yet\n", db_path(db));
	else
		printf("%-32s %-8s %5s %5s %5s  %-16s  %-20s %s\n", "campaign", "state", "done", "void",
		       "left", "created", "route", "arms");
	int code = RXDECK_EXIT_OK;
	for (size_t i = 0; i < n; i++) {
		struct db_run *runs;
		size_t nr;
		struct db_arm *arms;
		size_t na;
		if (db_run_list(db, cs[i].id, &runs, &nr) < 0 || db_arm_list(db, cs[i].id, &arms, &na) < 0) {
			cli_error(ctx->command, "%s", db_errmsg(db));
			code = RXDECK_EXIT_FAILURE;
			break;
		}
		size_t done = 0, voided = 0, left = 0;
		for (size_t k = 0; k < nr; k++) {
			if (runs[k].status == DB_RUN_DONE)
				done++;
			else if (runs[k].status == DB_RUN_VOID)
				voided++;
			else
				left++;
		}
		char letters[32] = "";
		for (size_t k = 0; k < na && k < sizeof letters - 1; k++)
			letters[k] = arms[k].letter;
		letters[na < sizeof letters - 1 ? na : sizeof letters - 1] = 0;
		char created[32];
		when(cs[i].created_unix_ms, created, sizeof created);
		printf("%-32s %-8s %5zu %5zu %5zu  %-16s  %-20s %s\n", cs[i].name,
		       db_campaign_status_name(cs[i].status), done, voided, left, created,
		       cs[i].route_name ? cs[i].route_name : "-", letters);
		free(runs);
		free(arms);
	}
	free(cs);
	return code;
}
