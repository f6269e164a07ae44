/* report-cmd: what the report commands (report, tested, plot) and post share
 * on their command lines: opening the database and finding the campaign. */
#include "report-private.h"

#include <errno.h>
#include <string.h>

#include "cli.h"

int report_cmd_open(const char *command, const char *db_path, const char *campaign,
                    struct db **db_out, int64_t *id_out)
{
	char msg[1024] = "";
	struct db_open_options o = { .flags = DB_OPEN_NO_CREATE, .errmsg = msg,
		                     .errmsg_size = sizeof msg };
	struct db *db;
	int err = db_open_ex(db_path, &o, &db);
	if (err) {
		if (err == -ENOENT && db_path)
			cli_error(command, "no database at '%s'", db_path);
		else if (err == -ENOENT)
			cli_error(command, "no results database yet (%s): run a campaign first, or name "
			          "one with --db", msg[0] ? msg : "the default path does not exist");
		else
			cli_error(command, "%s", msg[0] ? msg : strerror(-err));
		return err;
	}
	struct report_options ro = { .errmsg = msg, .errmsg_size = sizeof msg };
	int64_t id;
	err = report_campaign_resolve(db, campaign, &ro, &id);
	if (err) {
		cli_error(command, "%s", msg);
		db_close(db);
		return err;
	}
	*db_out = db;
	*id_out = id;
	return 0;
}

int report_parse_baseline(const char *command, const char *arg, char *out)
{
	if (strlen(arg) != 1 || arg[0] < 'A' || arg[0] > 'Z') {
		cli_error(command, "bad baseline '%s': expected an arm letter A to Z", arg);
		return -EINVAL;
	}
	*out = arg[0];
	return 0;
}
