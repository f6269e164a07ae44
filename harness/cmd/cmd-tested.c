/* cmd-tested: `rxdeck tested [CAMPAIGN] [--out DIR] [--html]`, a campaign's
 * run file for docs/tested/ (format in docs/tested-configurations.md) and,
 * with --html, the HTML page beside it, which the run file links (as it
 * does a page already there).  Without --out it writes into docs/tested/
 * only inside rxdeck's source tree, which it finds from the working folder
 * up (a folder holding docs/tested-configurations.md and the meson.build of
 * project 'rxdeck'); elsewhere it asks for --out.  It owns the command
 * line; the file is report-tested.c's, the page report-html.c's. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "report/report.h"

/* dir (ending in '/' or empty) is the top of rxdeck's source tree: it
 * holds docs/tested-configurations.md and a meson.build whose project is
 * 'rxdeck'. */
static bool is_source_top(const char *dir)
{
	char path[PATH_MAX], head[4096];
	struct stat st;
	snprintf(path, sizeof path, "%sdocs/tested-configurations.md", dir);
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return false;
	snprintf(path, sizeof path, "%smeson.build", dir);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	size_t n = fread(head, 1, sizeof head - 1, f);
	fclose(f);
	head[n] = 0;
	return strstr(head, "project('rxdeck'") != NULL;
}

/* The docs/tested folder of the source tree the working folder is in (it
 * or one above it is the top): "docs/tested", "../docs/tested", ... into
 * out.  -ENOENT when the working folder is in none. */
static int source_tested_dir(char *out, size_t size)
{
	char up[PATH_MAX] = "", here[PATH_MAX], *real;
	for (int depth = 0; depth < 64; depth++) {
		if (is_source_top(up)) {
			snprintf(out, size, "%sdocs/tested", up);
			return 0;
		}
		snprintf(here, sizeof here, "%s.", up);
		real = realpath(here, NULL);
		bool root = !real || strcmp(real, "/") == 0;
		free(real);
		if (root || strlen(up) + 4 > sizeof up)
			break;
		strcat(up, "../");
	}
	return -ENOENT;
}

int cmd_tested(int argc, char **argv, struct cmd_context *ctx)
{
	const char *out = NULL;
	char source_dir[PATH_MAX];
	bool to_stdout = false, html = false;
	struct report_options ro = { 0 };
	const struct cli_option options[] = {
		OPT_STRING('o', "out", &out, "DIR",
		           "write the run file into DIR (default: docs/tested of the source tree)"),
		OPT_BOOL(0, "stdout", &to_stdout, "print the run file instead of writing it"),
		OPT_BOOL(0, "html", &html,
		         "also write the HTML page (report --format html) beside it, linked from it"),
		OPT_BOOL(0, "embed-shots", &ro.embed_shots,
		         "with --html: the route shots inside the page, not linked"),
		OPT_BASELINE(&ro.baseline),
		OPT_DB(&ctx->db_path),
		OPT_END,
	};
	const struct cli cli = {
		.command = ctx->command,
		.synopsis = "[CAMPAIGN] [--out DIR] [--html [--embed-shots]] [--stdout] [--baseline ARM]\n"
		            "       [--db PATH]",
		.summary = "Writes a campaign's run file (the newest campaign when none is named): its\n"
		           "date, builds with commits and checksums, hardware, settings, route and\n"
		           "window, method, the table and verdicts, void runs with reasons and how to\n"
		           "reproduce it, in the format docs/tested-configurations.md defines.  The\n"
		           "name is stable (DATE-CAMPAIGN.md): writing again gives the same file, and a\n"
		           "file of that name from another campaign is never touched.  --html also\n"
		           "writes the campaign's HTML page (DATE-CAMPAIGN.html, as report --format\n"
		           "html) beside it; the run file links the page whenever it is there.  Without\n"
		           "--out, the run file goes into docs/tested/ of rxdeck's source tree when the\n"
		           "working folder is in it (the tree's top holds docs/tested-configurations.md\n"
		           "and rxdeck's meson.build); elsewhere name the folder with --out.  The paths\n"
		           "written are printed.",
		.options = options,
	};
	int npos = 0, exit_code;
	if (!cmd_parse(ctx, &cli, argc, argv, 1, "one campaign at a time", &npos, &exit_code))
		return exit_code;
	if (ro.embed_shots && !html) {
		cli_error(ctx->command, "--embed-shots is for --html");
		return RXDECK_EXIT_USAGE;
	}
	if (html && to_stdout) {
		cli_error(ctx->command, "--html writes a file beside the run file; it does not go "
		          "with --stdout");
		return RXDECK_EXIT_USAGE;
	}
	if (!out && !to_stdout) {
		if (source_tested_dir(source_dir, sizeof source_dir) < 0) {
			cli_error(ctx->command, "not in rxdeck's source tree (no folder here or above "
			          "holds docs/tested-configurations.md and rxdeck's meson.build), so "
			          "there is no docs/tested/ to write into: name the folder with --out "
			          "DIR, or print the run file with --stdout");
			return RXDECK_EXIT_USAGE;
		}
		out = source_dir;
	}
	struct db *db = ctx->db;
	int64_t id = ctx->campaign_id;
	char msg[1024] = "";
	ro.errmsg = msg;
	ro.errmsg_size = sizeof msg;
	exit_code = RXDECK_EXIT_OK;
	char *name = NULL, *html_name = NULL, *page = NULL, *path = NULL;
	/* DATE-CAMPAIGN.md's page: DATE-CAMPAIGN.html beside it */
	if (report_tested_name(db, id, &name) != 0 ||
	    asprintf(&html_name, "%.*s.html", (int)(strlen(name) - 3), name) < 0 ||
	    asprintf(&page, "%s/%s", out ? out : ".", html_name) < 0) {
		cli_error(ctx->command, "out of memory");
		exit_code = RXDECK_EXIT_FAILURE;
		goto out;
	}
	if (!to_stdout && (html || access(page, F_OK) == 0))
		ro.tested_html = html_name;
	if (to_stdout) {
		if (report_tested_print(db, id, &ro, stdout) != 0) {
			cli_error(ctx->command, "%s", msg);
			exit_code = RXDECK_EXIT_FAILURE;
		}
		goto out;
	}
	if (report_tested_write(db, id, out, &ro, &path) != 0) {
		cli_error(ctx->command, "%s", msg);
		exit_code = RXDECK_EXIT_FAILURE;
		goto out;
	}
	printf("%s\n", path);
	if (html) {
		/* the run file's name is this campaign's (checked above): so is the page's */
		struct report_options page_ro = ro;
		page_ro.format = REPORT_FORMAT_HTML;
		if (report_print_file(db, id, &page_ro, page) != 0) {
			cli_error(ctx->command, "%s", msg);
			exit_code = RXDECK_EXIT_FAILURE;
			goto out;
		}
		printf("%s\n", page);
	}
out:
	free(name);
	free(html_name);
	free(page);
	free(path);
	return exit_code;
}
