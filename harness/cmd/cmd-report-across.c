/* cmd-report-across: `rxdeck report --across CAMPAIGN...`, one plan's
 * campaigns from several hosts compared as one (a fleet's night).  It owns
 * the command line; the report is report-across.c's.  `rxdeck report`
 * hands its arguments here when they hold --across. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "report/report-across.h"

static const char *const formats[] = { "md", "json", "html", "markdown=md", NULL };

/* The report into path, replaced only once whole. */
static int write_file(struct db *db, const int64_t *ids, size_t n, struct report_options *ro,
                      const char *path)
{
	char *tmp = NULL;
	if (asprintf(&tmp, "%s.tmp-XXXXXX", path) < 0)
		return -ENOMEM;
	int fd = mkstemp(tmp);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		snprintf(ro->errmsg, ro->errmsg_size, "cannot write '%s': %s", path, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		free(tmp);
		return -EIO;
	}
	int err = report_across_print(db, ids, n, ro, f);
	if (fclose(f) != 0 && !err) {
		snprintf(ro->errmsg, ro->errmsg_size, "cannot write '%s': %s", path, strerror(errno));
		err = -EIO;
	}
	if (!err && rename(tmp, path) != 0) {
		snprintf(ro->errmsg, ro->errmsg_size, "cannot write '%s': %s", path, strerror(errno));
		err = -EIO;
	}
	if (err)
		unlink(tmp);
	free(tmp);
	return err;
}

int cmd_report_across(int argc, char **argv, struct cmd_context *ctx)
{
	struct report_options ro = { 0 };
	const char *output = NULL;
	int format = 0;
	bool across = false;
	const struct cli_option options[] = {
		OPT_BOOL(0, "across", &across, "compare one plan's campaigns from several hosts"),
		OPT_BASELINE(&ro.baseline),
		OPT_FORMAT(&format, formats, "md|json|html", "output format (default: md, Markdown)"),
		OPT_OUTPUT(&output),
		OPT_DB(&ctx->db_path),
		OPT_END,
	};
	const struct cli cli = {
		.command = ctx->command,
		.synopsis = "--across CAMPAIGN... [--baseline ARM] [--format md|json|html] [--output FILE]\n"
		            "       [--db PATH]",
		.summary = "Compares campaigns of one plan run on several hosts (a fleet of Decks) as\n"
		           "one: each CAMPAIGN and every campaign named CAMPAIGN@HOST ('rxdeck db\n"
		           "import' keeps another host's campaign of a name apart that way).  The\n"
		           "header gives each device's facts (model, OS, kernel, GPU, Mesa, GPU level\n"
		           "and TDP in force, runs finished, partial or not); per arm, each device's\n"
		           "verdict against the baseline side by side; and for each primary metric\n"
		           "whether the arm's effect is the same on every device: pairs of devices'\n"
		           "effects (% of their own baseline) compared at the decisions' level with\n"
		           "Holm over pairs and the metric's minimum effect, naming the device that\n"
		           "differs and by how much.  See docs/fleet.md.",
		.options = options,
	};
	int npos = 0, exit_code;
	ctx->flags &= ~(unsigned)CMD_NEEDS_CAMPAIGN;
	if (!cmd_parse(ctx, &cli, argc, argv, -1, NULL, &npos, &exit_code))
		return exit_code;
	if (npos < 1) {
		cli_error(ctx->command, "--across needs campaigns: CAMPAIGN... (see --help)");
		return RXDECK_EXIT_USAGE;
	}
	static const enum report_format format_of[] = { REPORT_FORMAT_MD, REPORT_FORMAT_JSON,
		                                        REPORT_FORMAT_HTML };
	ro.format = format_of[format];
	char msg[1024] = "";
	ro.errmsg = msg;
	ro.errmsg_size = sizeof msg;
	int64_t *ids = NULL;
	size_t n = 0;
	int err = report_across_resolve(ctx->db, argv + 1, (size_t)npos, &ids, &n, msg, sizeof msg);
	if (!err)
		err = output ? write_file(ctx->db, ids, n, &ro, output)
		             : report_across_print(ctx->db, ids, n, &ro, stdout);
	free(ids);
	if (err) {
		cli_error(ctx->command, "%s", msg[0] ? msg : strerror(-err));
		return RXDECK_EXIT_FAILURE;
	}
	return RXDECK_EXIT_OK;
}
