/* bench-report: `rxdeck report` on a big campaign.
 *
 * Builds, in a fresh database in a temporary folder, a finished campaign of
 * the default plan's four arms (ABCDDCBA) over 25 rounds: 200 runs, each
 * with 20 stored metrics (noisy values around a level per arm and metric),
 * then prints the campaign's report as Markdown, CSV and JSON (what `rxdeck
 * report` does: report_print()) to /dev/null seven times each and gives the
 * best and median wall time of each format.  The target (docs/performance.md)
 * is under 1 s; the program exits 1 when a median misses it.
 *
 *   bench-report [ROUNDS]
 */
#include "plan/plan.h"
#include "report/report.h"
#include "stats/stats.h"

#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define METRICS 20
#define REPEATS 7

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* A campaign of the default plan with `rounds` rounds of ABCDDCBA, every
 * run done with METRICS metrics.  0 or a negative errno. */
static int build(struct db *db, int rounds, int64_t *campaign)
{
	static const char order[] = "ABCDDCBA";
	struct db_campaign c = {
		.name = "bench-report",
		.plan_text = plan_default_text(),
		.route_name = "kokiri-moving",
		.window_start_s = 30,
		.window_end_s = 110,
		.order = order,
		.rounds = rounds,
		.warmup = false,
		.created_unix_ms = INT64_C(1764000000000),
	};
	int err = db_campaign_create(db, &c, campaign);
	int64_t build_id, arm_id[4];
	if (!err)
		err = db_build_add(db, &(struct db_build){ .campaign_id = *campaign, .label = "forest" },
		                   &build_id);
	for (int a = 0; a < 4 && !err; a++)
		err = db_arm_add(db, &(struct db_arm){ .campaign_id = *campaign,
		                                       .letter = (char)('A' + a),
		                                       .label = "an arm",
		                                       .build_id = build_id },
		                 &arm_id[a]);
	if (err)
		return err;
	int n = rounds * 8;
	struct db_run *plan = calloc((size_t)n, sizeof *plan);
	if (!plan)
		return -ENOMEM;
	for (int i = 0; i < n; i++)
		plan[i] = (struct db_run){ .arm_id = arm_id[order[i % 8] - 'A'], .round = i / 8 + 1,
			                   .position = i + 1 };
	err = db_run_plan(db, *campaign, plan, (size_t)n);
	free(plan);
	struct db_run *runs;
	size_t nr;
	if (err || (err = db_run_list(db, *campaign, &runs, &nr)))
		return err;
	uint32_t seed = 20261201;
	err = db_begin(db);
	for (size_t i = 0; i < nr && !err; i++) {
		int64_t start = c.created_unix_ms + (int64_t)runs[i].position * 150000;
		struct db_metric m[METRICS];
		for (int k = 0; k < METRICS; k++) {
			seed = seed * 1664525u + 1013904223u;
			double noise = ((double)(seed >> 8) / 16777216.0 - 0.5) * 0.04;
			double level = 10.0 * (k + 1) * (1.0 + 0.01 * (runs[i].arm_letter - 'A'));
			m[k] = (struct db_metric){ .name = stats_metrics[k].key,
				                   .value = level * (1.0 + noise) };
		}
		struct db_run_results r = { .metrics = m, .n_metrics = METRICS, .status = DB_RUN_DONE,
			                    .end_unix_ms = start + 125000, .exit_status = 0 };
		err = db_run_mark_running(db, runs[i].id, start, "/tmp/runs/x");
		if (!err)
			err = db_run_store_results(db, runs[i].id, &r);
	}
	free(runs);
	if (err) {
		db_rollback(db);
		return err;
	}
	if ((err = db_commit(db)))
		return err;
	return db_campaign_set_status(db, *campaign, DB_CAMPAIGN_DONE, 0);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 25;
	if (rounds < 1) {
		fprintf(stderr, "usage: bench-report [ROUNDS]\n");
		return 2;
	}
	char dir[] = "/tmp/rxdeck-bench-report-XXXXXX";
	if (!mkdtemp(dir)) {
		perror("bench-report: mkdtemp");
		return 1;
	}
	char path[sizeof dir + 16];
	snprintf(path, sizeof path, "%s/results.db", dir);
	struct db *db;
	int64_t campaign;
	int err = db_open(path, &db);
	if (!err && (err = build(db, rounds, &campaign)))
		fprintf(stderr, "bench-report: cannot build the campaign: %s\n", db_errmsg(db));
	int code = err ? 1 : 0;
	if (!code)
		printf("campaign: %d rounds of ABCDDCBA, %d runs, 4 arms, %d metrics a run\n", rounds,
		       rounds * 8, METRICS);
	static const struct {
		enum report_format f;
		const char *name;
	} formats[] = { { REPORT_FORMAT_MD, "markdown" }, { REPORT_FORMAT_CSV, "csv" },
		        { REPORT_FORMAT_JSON, "json" } };
	for (size_t f = 0; f < 3 && !code; f++) {
		double t[REPEATS];
		for (int k = 0; k < REPEATS && !code; k++) {
			FILE *null = fopen("/dev/null", "w");
			char msg[256] = "";
			struct report_options o = { .format = formats[f].f, .errmsg = msg,
				                    .errmsg_size = sizeof msg };
			double t0 = now_s();
			err = null ? report_print(db, campaign, &o, null) : -errno;
			t[k] = now_s() - t0;
			if (null)
				fclose(null);
			if (err) {
				fprintf(stderr, "bench-report: %s: %s\n", formats[f].name,
				        msg[0] ? msg : strerror(-err));
				code = 1;
			}
		}
		if (code)
			break;
		qsort(t, REPEATS, sizeof t[0], cmp_double);
		printf("report %-8s best %.3f s, median %.3f s%s\n", formats[f].name, t[0],
		       t[REPEATS / 2], t[REPEATS / 2] < 1.0 ? "" : "  (over the 1 s target)");
		if (t[REPEATS / 2] >= 1.0)
			code = 1;
	}
	db_close(db);
	nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	return code;
}
