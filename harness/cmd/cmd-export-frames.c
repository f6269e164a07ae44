/* cmd-export-frames: `rxdeck export-frames CAMPAIGN/N --format mangohud`,
 * one run's stored frames written as a MangoHud CSV log, the file
 * FlightlessSomething (and MangoHud's own log viewers) take.  It owns the
 * command line and the CSV's layout: MangoHud's system-info lines (the
 * campaign's host facts), then `fps,frametime,elapsed`, a row per real
 * frame from the route's t0 on (elapsed in ns since t0, frametime in ms:
 * the same frame times rxdeck's metrics use, so the file read back
 * (`rxdeck frames`, `rxdeck import`) gives the same percentiles).  The
 * frames are the database's; docs/reports.md says how to upload the file.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "util/util.h"
#include "results-db/db.h"

#define COMMAND "rxdeck export-frames"

static const char *const formats[] = { "mangohud", NULL };

/* A host fact as a CSV field: MangoHud writes them unquoted, so commas
 * and line ends become spaces. */
static void put_fact(FILE *f, const char *s, bool last)
{
	for (const char *p = s ? s : ""; *p; p++)
		fputc(*p == ',' || *p == '\n' || *p == '\r' ? ' ' : *p, f);
	fputc(last ? '\n' : ',', f);
}

/* MangoHud's first two lines: os,cpu,gpu,ram,kernel,driver,cpuscheduler
 * and their values (ram in kB, as MangoHud writes it). */
static void put_system_info(FILE *f, const struct db_campaign *c)
{
	fputs("os,cpu,gpu,ram,kernel,driver,cpuscheduler\n", f);
	char ram[32] = "";
	if (c->memory_B > 0)
		snprintf(ram, sizeof ram, "%" PRId64, c->memory_B / 1024);
	put_fact(f, c->os, false);
	put_fact(f, c->cpu, false);
	put_fact(f, c->gpu, false);
	put_fact(f, ram, false);
	put_fact(f, c->kernel, false);
	put_fact(f, c->driver, false);
	put_fact(f, "", true);
}

/*
 * The rows: real frames presented after t0_ns.  A frame's time is the
 * source's own frame time where it has one (MangoHud, PresentMon), else
 * the time since the previous real frame (the renderer's log; DESIGN.md
 * 5.3), so the first real frame of such a log has none and is left out.
 * Returns the number of rows written.
 */
static size_t put_rows(FILE *f, const struct db_frame *fr, size_t n, int64_t t0_ns)
{
	fputs("fps,frametime,elapsed\n", f);
	size_t rows = 0;
	int64_t prev_ns = INT64_MIN;
	for (size_t i = 0; i < n; i++) {
		if (fr[i].kind != DB_FRAME_REAL)
			continue;
		double ms = NAN;
		if (fr[i].source != DB_FRAME_RXVK && !(fr[i].absent & DB_FRAME_NO_FRAME_MS))
			ms = fr[i].frame_ms;
		else if (prev_ns != INT64_MIN)
			ms = (double)(fr[i].present_ns - prev_ns) / 1e6;
		prev_ns = fr[i].present_ns;
		if (fr[i].present_ns <= t0_ns || !(ms > 0))
			continue;
		fprintf(f, "%.3f,%.6f,%" PRId64 "\n", 1000.0 / ms, ms, fr[i].present_ns - t0_ns);
		rows++;
	}
	return rows;
}

/* The run at position in the campaign: its id, or -ENOENT said. */
static int find_run(struct db *db, const char *campaign, int64_t campaign_id, int position,
                    int64_t *run_id)
{
	struct db_run *runs;
	size_t n;
	if (db_run_list(db, campaign_id, &runs, &n) < 0) {
		cli_error(COMMAND, "%s", db_errmsg(db));
		return -EIO;
	}
	int rc = -ENOENT;
	for (size_t i = 0; i < n; i++)
		if (runs[i].position == position) {
			*run_id = runs[i].id;
			rc = 0;
		}
	if (rc < 0)
		cli_error(COMMAND, "campaign '%s' has no run %d (it has %zu)", campaign, position, n);
	free(runs);
	return rc;
}

/* The whole CSV of the run into a memory buffer (*text, malloc'd). */
static int export_mangohud(struct db *db, int64_t campaign_id, int64_t run_id, const char *ref,
                           char **text, size_t *len)
{
	double t0;
	if (db_metric_get(db, run_id, "route_t0_ns", &t0) != 0) {
		cli_error(COMMAND, "run '%s' has no route t0 (its route never started): nothing to export",
		          ref);
		return -ENOENT;
	}
	struct db_campaign *c;
	struct db_frame *fr;
	size_t n;
	if (db_campaign_get(db, campaign_id, &c) != 0) {
		cli_error(COMMAND, "%s", db_errmsg(db));
		return -EIO;
	}
	if (db_frames_read(db, run_id, &fr, &n) != 0) {
		cli_error(COMMAND, "%s", db_errmsg(db));
		free(c);
		return -EIO;
	}
	FILE *f = open_memstream(text, len);
	if (!f) {
		free(c);
		free(fr);
		return -ENOMEM;
	}
	put_system_info(f, c);
	size_t rows = put_rows(f, fr, n, (int64_t)llround(t0));
	free(c);
	free(fr);
	if (fclose(f) != 0)
		return -ENOMEM;
	if (rows == 0) {
		cli_error(COMMAND, "run '%s' has no stored real frame after its route's start", ref);
		free(*text);
		*text = NULL;
		return -ENOENT;
	}
	return 0;
}

int cmd_export_frames(int argc, char **argv, struct cmd_context *ctx)
{
	const char *format = "mangohud", *output = NULL;
	const struct cli_option options[] = {
		OPT_FORMAT(&format, formats, "mangohud",
		           "the file's format (default: mangohud, a MangoHud CSV log)"),
		OPT_OUTPUT(&output),
		OPT_DB(&ctx->db_path),
		OPT_END,
	};
	const struct cli cli = {
		.command = COMMAND,
		.synopsis = "CAMPAIGN/N [--format mangohud] [-o FILE] [--db PATH]",
		.summary = "Writes run N of CAMPAIGN (a name or an id) as a MangoHud CSV log: the\n"
		           "campaign's host facts, then fps, frametime (ms) and elapsed (ns since the\n"
		           "route's start) for each real frame after the route's start, the frame times\n"
		           "rxdeck's metrics use.  FlightlessSomething takes the file as a MangoHud log;\n"
		           "the file's name is the run's label there.  See docs/reports.md.",
		.options = options,
	};
	int npos = 0, exit_code;
	if (!cli_parse_command(&cli, argc, argv, -1, NULL, &npos, &exit_code))
		return exit_code;
	if (npos != 1) {
		cli_error(COMMAND, "name one run as CAMPAIGN/N (see --help)");
		return RXDECK_EXIT_USAGE;
	}
	char campaign[512];
	int position;
	if (cmd_parse_run_ref(COMMAND, argv[1], campaign, sizeof campaign, &position) < 0)
		return RXDECK_EXIT_USAGE;
	if (position == 0) {
		cli_error(COMMAND, "bad run '%s': expected CAMPAIGN/N, N the run's position", argv[1]);
		return RXDECK_EXIT_USAGE;
	}
	if (cmd_open_db(ctx, CMD_DB_READ_ONLY) < 0 || cmd_find_campaign(ctx, campaign) < 0)
		return RXDECK_EXIT_FAILURE;
	int64_t run_id;
	if (find_run(ctx->db, campaign, ctx->campaign_id, position, &run_id) < 0)
		return RXDECK_EXIT_FAILURE;
	char *text = NULL;
	size_t len = 0;
	int rc = export_mangohud(ctx->db, ctx->campaign_id, run_id, argv[1], &text, &len);
	if (rc == -ENOMEM)
		cli_error(COMMAND, "out of memory");
	if (rc < 0)
		return RXDECK_EXIT_FAILURE;
	if (output && strcmp(output, "-") != 0)
		rc = util_write_file_atomic(output, text, len);
	else if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0)
		rc = -errno;
	free(text);
	if (rc < 0) {
		cli_error(COMMAND, "cannot write '%s': %s", output ? output : "standard output", strerror(-rc));
		return RXDECK_EXIT_FAILURE;
	}
	return RXDECK_EXIT_OK;
}
