/* run-eta: where a campaign stands and when it should finish, from its
 * runs as the database has them.
 *
 * It owns the estimate `rxdeck run` prints after every run and `rxdeck
 * show` prints for a campaign that is not finished: the round of the run
 * playing (or next), the runs left, and the expected finish, the mean
 * measured length of the runs that ended (start to end, warm-up included:
 * it takes as long) times the runs left, less what the run playing has
 * already taken.  Before any run has ended, a caller may give a guess (the
 * route's length and a start-up allowance), which the line says it is.
 */
#include "run-private.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

int run_eta_compute(const struct db_run *runs, size_t n, int rounds, double guess_run_s,
                    int64_t now_unix_ms, struct run_eta *out)
{
	if (n && !runs)
		return -EINVAL;
	struct run_eta e = { .rounds = rounds, .run_s = NAN };
	double sum_s = 0;
	const struct db_run *playing = NULL, *next = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct db_run *r = &runs[i];
		if (r->round > e.rounds)
			e.rounds = r->round; /* rounds added (--until) are planned runs */
		if (r->status == DB_RUN_DONE || r->status == DB_RUN_VOID) {
			e.runs_done++;
			if (r->start_unix_ms > 0 && r->end_unix_ms >= r->start_unix_ms) {
				sum_s += (double)(r->end_unix_ms - r->start_unix_ms) / 1e3;
				e.runs_timed++;
			}
			continue;
		}
		e.runs_left++;
		if (r->status == DB_RUN_RUNNING && !playing)
			playing = r;
		if (!next || r->position < next->position)
			next = r;
	}
	const struct db_run *at = playing ? playing : next;
	e.round = at ? at->round : 0;
	e.warmup = at && at->is_warmup;
	e.playing = playing != NULL;
	if (e.runs_timed) {
		e.run_s = sum_s / (double)e.runs_timed;
	} else if (guess_run_s > 0 && isfinite(guess_run_s)) {
		e.run_s = guess_run_s;
		e.guessed = true;
	}
	if (isfinite(e.run_s)) {
		double left_s = (double)e.runs_left * e.run_s;
		if (playing && playing->start_unix_ms > 0 && now_unix_ms > playing->start_unix_ms) {
			double in_s = (double)(now_unix_ms - playing->start_unix_ms) / 1e3;
			/* the run playing takes at least as long as it has */
			left_s -= in_s < e.run_s ? in_s : e.run_s;
		}
		e.left_s = left_s;
		e.finish_unix_ms = now_unix_ms + (int64_t)llround(left_s * 1e3);
		e.known = true;
	}
	*out = e;
	return 0;
}

void run_eta_format(const struct run_eta *e, int64_t now_unix_ms, char *buf, size_t size)
{
	char where[64], left[64] = "", tail[256] = "";
	if (e->runs_left == 0) {
		snprintf(buf, size, "every planned run finished");
		return;
	}
	if (e->warmup)
		snprintf(where, sizeof where, "warm-up");
	else
		snprintf(where, sizeof where, "round %d of %d", e->round, e->rounds);
	snprintf(left, sizeof left, "%zu run%s left", e->runs_left, e->runs_left == 1 ? "" : "s");
	if (e->known) {
		time_t t = (time_t)(e->finish_unix_ms / 1000), now = (time_t)(now_unix_ms / 1000);
		struct tm tm, tn;
		char at[32] = "", in[32], each[32];
		if (localtime_r(&t, &tm) && localtime_r(&now, &tn))
			strftime(at, sizeof at,
			         tm.tm_yday == tn.tm_yday && tm.tm_year == tn.tm_year ? "%H:%M" : "%Y-%m-%d %H:%M",
			         &tm);
		run_format_duration(e->left_s, in, sizeof in);
		run_format_duration(e->run_s, each, sizeof each);
		char how[128];
		if (e->guessed)
			snprintf(how, sizeof how, "a run should take %s, none has ended yet", each);
		else if (e->runs_timed == 1)
			snprintf(how, sizeof how, "a run takes %s, from 1 run", each);
		else
			snprintf(how, sizeof how, "a run takes %s, the mean of %zu", each, e->runs_timed);
		snprintf(tail, sizeof tail, ", expected to finish at %s (in %s; %s)", at, in, how);
	} else {
		snprintf(tail, sizeof tail, "; the finish time is known once a run has ended");
	}
	snprintf(buf, size, "%s, %s%s", where, left, tail);
}
