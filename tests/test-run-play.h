/* test-run-play: campaigns created, opened for a resume and played through
 * the run module's functions, for the tests where each of those steps
 * must succeed: a step that fails fails the test with the module's
 * message.  Header only; include it after cmocka.h. */
#ifndef RXDECK_TEST_RUN_PLAY_H
#define RXDECK_TEST_RUN_PLAY_H

#include "run/run.h"

static inline struct run_campaign *test_campaign_create(struct db *db, const struct plan *plan,
                                                        const struct run_options *o)
{
	struct run_campaign *c;
	char msg[2048] = "";
	if (run_campaign_create(db, plan, o, &c, msg, sizeof msg) != 0)
		fail_msg("%s", msg);
	return c;
}

/* The campaign name_or_id, open for a resume. */
static inline struct run_campaign *test_campaign_open(struct db *db, const char *name_or_id,
                                                      const struct run_options *o)
{
	struct run_campaign *c;
	char msg[2048] = "";
	if (run_campaign_open(db, name_or_id, o, &c, msg, sizeof msg) != 0)
		fail_msg("%s", msg);
	return c;
}

/* c played with no harness trouble: its outcome. */
static inline struct run_outcome test_campaign_play(struct run_campaign *c)
{
	struct run_outcome out;
	char msg[2048] = "";
	if (run_campaign_play(c, &out, msg, sizeof msg) != 0)
		fail_msg("%s", msg);
	return out;
}

#endif
