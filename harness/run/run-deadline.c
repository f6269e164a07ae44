/* run-deadline: the guard that keeps a campaign with a deadline (`until`,
 * --until) from starting, or a stopped one from resuming (with the
 * deadline it froze at its start), when not one round fits before it, and the
 * deadline of a start that was scheduled (--scheduled, what the optional
 * overnight timer passes).
 *
 * A systemd user timer whose time passed while the Deck slept fires when
 * it wakes, Persistent=false or not: at 09:00 a `--until 07:00` would mean
 * tomorrow and the campaign would run all day.  With the time the start
 * was meant for, the deadline counts from that time instead, so a late
 * start meets a deadline that is close or passed, and the guard refuses
 * it before anything is written.  It owns the estimate of a first round
 * (no run measured yet: the route's length and a start-up allowance per
 * run); the rounds added later are the campaign's (run-campaign.c).
 */
#include "run-private.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "plan/plan.h"

#define DAY_MS (24 * 3600 * 1000LL)

/* Seconds a run is guessed to take beyond its route: the game's start and
 * stop, as run-campaign.c guesses before a run has been timed. */
#define START_ALLOWANCE_S 5.0

static void date_text(int64_t unix_ms, char *buf, size_t size)
{
	time_t t = (time_t)(unix_ms / 1000);
	struct tm tm;
	if (!localtime_r(&t, &tm) || !strftime(buf, size, "%Y-%m-%d %H:%M", &tm))
		snprintf(buf, size, "?");
}

int run_deadline_anchor(const char *until, const char *scheduled, int64_t now_unix_ms, char *out,
                        size_t size)
{
	int64_t sched_ms, until_ms;
	if (strlen(scheduled) != 5 || plan_until_resolve(scheduled, 0, &sched_ms) < 0 ||
	    plan_until_resolve(until, 0, &until_ms) < 0)
		return -EINVAL;
	if (strlen(until) == 5) {
		/* the latest moment at or before now that the clock showed
		 * scheduled: the first one after a day ago */
		if (plan_until_resolve(scheduled, now_unix_ms - DAY_MS, &sched_ms) < 0 ||
		    plan_until_resolve(until, sched_ms, &until_ms) < 0)
			return -EINVAL;
	}
	date_text(until_ms, out, size);
	return 0;
}

double run_deadline_round_s(const struct plan *p, double route_s, size_t *n_runs)
{
	size_t n = strlen(plan_order(p));
	if (p->warmup == PLAN_WARMUP_EACH)
		n += p->n_arms;
	else if (p->warmup == PLAN_WARMUP_FIRST)
		n += 1;
	if (n_runs)
		*n_runs = n;
	return (double)n * (route_s + p->start_delay_s + START_ALLOWANCE_S);
}

/* The guard's rule for a round of n runs of per_run_s each: 0 when it fits
 * before the deadline, else -ETIME with the reason ("not <verb> campaign
 * ..."; note closes the estimate's parenthesis). */
static int deadline_guard(const struct plan *p, const char *name, const char *verb, size_t n,
                          double per_run_s, const char *note, int64_t now_unix_ms, char *errmsg,
                          size_t size)
{
	int64_t until_ms;
	if (!p->until)
		return 0;
	if (plan_until_resolve(p->until, now_unix_ms, &until_ms) < 0)
		return run_errf(errmsg, size, -EINVAL, "bad deadline '%s'", p->until);
	double round_s = (double)n * per_run_s;
	double left_s = (double)(until_ms - now_unix_ms) / 1e3;
	if (left_s >= round_s)
		return 0;
	char when[32], left[32], round[32], each[32], away[96];
	date_text(until_ms, when, sizeof when);
	run_format_duration(left_s < 0 ? -left_s : left_s, left, sizeof left);
	run_format_duration(round_s, round, sizeof round);
	run_format_duration(per_run_s, each, sizeof each);
	if (left_s <= 0)
		snprintf(away, sizeof away, "passed %s ago; one round", left);
	else
		snprintf(away, sizeof away, "is %s away, less than one round, which", left);
	return run_errf(errmsg, size, -ETIME,
	                "not %s campaign '%s': the deadline %s %s should take %s (%zu run%s of "
	                "about %s: the route and %.0fs to start each%s)",
	                verb, name, when, away, round, n, n == 1 ? "" : "s", each,
	                p->start_delay_s + START_ALLOWANCE_S, note);
}

int run_deadline_check(const struct plan *p, const char *name, double route_s,
                       int64_t now_unix_ms, char *errmsg, size_t size)
{
	size_t n;
	double round_s = run_deadline_round_s(p, route_s, &n);
	return deadline_guard(p, name, "starting", n, round_s / (double)n, "; none measured yet",
	                      now_unix_ms, errmsg, size);
}

int run_deadline_check_resume(const struct plan *p, const char *name, double route_s,
                              size_t warmups_left, int64_t now_unix_ms, char *errmsg, size_t size)
{
	size_t n = strlen(plan_order(p)) + warmups_left;
	return deadline_guard(p, name, "resuming", n, route_s + p->start_delay_s + START_ALLOWANCE_S,
	                      "", now_unix_ms, errmsg, size);
}
