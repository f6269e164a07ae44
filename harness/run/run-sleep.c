/* run-sleep: a run during which the host slept is void "host slept",
 * whoever put it to sleep.  It owns the campaign's watch on logind's
 * PrepareForSleep and the suspend clock (CLOCK_BOOTTIME minus
 * CLOCK_MONOTONIC, deck/sleep.h), read before and after each run; the
 * campaign (run-campaign.c) voids the run and decides whether to go on. */
#include "run.h"
#include "run-private.h"

#include "deck/sleep.h"

#include <stdio.h>
#include <string.h>

/* A suspend shorter than this is not told from two clock reads taken far
 * apart on a busy host; logind's signal covers short ones. */
#define SLEEP_MIN_NS 1000000000LL

static int64_t suspended_now(const struct run_sleep *s)
{
	return s->suspended_ns ? s->suspended_ns(s->ctx) : deck_suspended_ns();
}

void run_sleep_begin(struct run_sleep *s, int64_t (*suspended_ns)(void *ctx), void *ctx)
{
	*s = (struct run_sleep){ .suspended_ns = suspended_ns, .ctx = ctx };
	char msg[256];
	if (deck_sleep_watch_open(&s->watch, msg, sizeof msg) < 0)
		s->watch = NULL; /* no system bus: the clock alone tells */
}

void run_sleep_mark(struct run_sleep *s)
{
	/* signals queued before the run are the run's predecessor's */
	if (s->watch && deck_sleep_watch_poll(s->watch, &s->mark_signals) < 0) {
		deck_sleep_watch_close(s->watch);
		s->watch = NULL;
	}
	s->mark_ns = suspended_now(s);
}

bool run_sleep_check(struct run_sleep *s, char *reason, size_t size)
{
	int64_t slept = suspended_now(s) - s->mark_ns;
	unsigned signals = s->mark_signals;
	if (s->watch && deck_sleep_watch_poll(s->watch, &signals) < 0) {
		deck_sleep_watch_close(s->watch);
		s->watch = NULL;
		signals = s->mark_signals;
	}
	if (slept >= SLEEP_MIN_NS) {
		char d[32];
		run_format_duration((double)slept / 1e9, d, sizeof d);
		snprintf(reason, size, "host slept: suspended for %s during the run", d);
		return true;
	}
	if (signals != s->mark_signals) {
		snprintf(reason, size, "host slept: logind announced a suspend during the run "
		                       "(PrepareForSleep)");
		return true;
	}
	reason[0] = '\0';
	return false;
}

void run_sleep_end(struct run_sleep *s)
{
	deck_sleep_watch_close(s->watch);
	s->watch = NULL;
}
