/* rxvk-gate: work that is provably still pending when a test's read looks.
 * A test that checks what a read does while its writer (or the rest of its
 * writer's submission) still runs must not rely on that work being slow:
 * on a busy machine, or a fast GPU, it finishes first.  Instead the queue
 * is stopped at a gate, a wait for an event only the host sets (private.h's
 * test hooks: vkCmdWaitEvents recorded before op N of the next submission).
 * Three gates.  Gate 0, placed before the writer a read depends on, is
 * opened by that read as it starts to wait (at_wait: the read has decided
 * already, while its writer was still pending).  Gates 1 and 2, holds
 * placed after it, only the test opens (or, once it asks, the next read
 * that waits), after checking that the read was released while the rest
 * had not run.
 *
 * A wrong decision behind a gate would hang: a read that waits for work
 * behind a gate only the test opens waits forever, and a read that was to
 * open a gate and was released at once leaves the queue stopped.  A
 * watcher thread is the deadlock detector: a gate still closed
 * RXT_GATE_BOUND_S after it was armed (and, for a gate a read opens, no
 * read waited since) is reported on stderr with what the test expected
 * of it, every gate is opened so the test runs on to its own checks, and
 * the test fails at its next rxt_gate_waits() or rxt_gate_destroy().  The
 * correct path never waits on the bound: there a gate opens as soon as the
 * read decides, or as soon as the test has checked it, however busy the
 * machine; the bound only decides how soon a hang is named.
 *
 * Header only; include it after rxvk-test.h and private.h. */
#ifndef RXVK_GATE_H
#define RXVK_GATE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define RXT_GATES 3
#define RXT_GATE_NOWHERE (UINT32_MAX - 1) /* a gate recorded nowhere: its event a signal */
#define RXT_GATE_BOUND_S 30               /* a hang detector's bound, not a timing margin */

/* The watcher's view of the gates of one renderer (the one last armed). */
struct rxt_gate_watch {
	pthread_mutex_t lock;
	bool started;
	struct rxvk *rx;                  /* NULL: nothing watched */
	int64_t armed_ns[RXT_GATES];      /* CLOCK_MONOTONIC at arming; 0: open, or not watched */
	uint32_t before_op[RXT_GATES];
	uint32_t waits_at_arm[RXT_GATES]; /* gate_waits when it was armed (or set to open at wait) */
	char failed[1536];                /* what the watcher found, "" while nothing */
};

static struct rxt_gate_watch rxt_gate_watch_ = { .lock = PTHREAD_MUTEX_INITIALIZER };

static inline int64_t rxt_gate_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Under the lock: gates overdue are named in failed (and on stderr), and
 * every gate of the watched renderer is opened. */
static inline void rxt_gate_watch_check_locked(struct rxt_gate_watch *w, int64_t now)
{
	struct rxvk *rx = w->rx;
	if (!rx)
		return;
	uint32_t waits = __atomic_load_n(&rx->test.gate_waits, __ATOMIC_ACQUIRE);
	uint32_t at_wait = __atomic_load_n(&rx->test.gate_at_wait, __ATOMIC_ACQUIRE);
	bool overdue = false;
	for (int g = 0; g < RXT_GATES; g++) {
		if (!w->armed_ns[g])
			continue;
		if ((at_wait >> g & 1) && waits != w->waits_at_arm[g]) {
			w->armed_ns[g] = 0; /* a read waited, and opened it */
			continue;
		}
		overdue |= now - w->armed_ns[g] >= (int64_t)RXT_GATE_BOUND_S * 1000000000;
	}
	if (!overdue)
		return;
	size_t len = strlen(w->failed);
	for (int g = 0; g < RXT_GATES; g++) {
		if (!w->armed_ns[g] || now - w->armed_ns[g] < (int64_t)RXT_GATE_BOUND_S * 1000000000)
			continue;
		char where[48];
		if (w->before_op[g] == RXT_GATE_NOWHERE)
			snprintf(where, sizeof where, "recorded nowhere");
		else
			snprintf(where, sizeof where, "before op %u", w->before_op[g]);
		const char *expect =
		    (at_wait >> g & 1)
		        ? "a read was to decide to wait for the work behind it and open it as it began "
		          "to wait, and no read has waited since (a read that should wait was released "
		          "at once, or the read never came)"
		        : "only the test opens it, once it has checked the reads it holds back, and it "
		          "never got there (a read waits for work behind this gate: it was not released "
		          "where the test expects)";
		len += (size_t)snprintf(w->failed + len, len < sizeof w->failed ? sizeof w->failed - len : 0,
		                        "gate %d (%s) still closed %d s after it was armed, the timeline "
		                        "done at %llu: %s. ",
		                        g, where, RXT_GATE_BOUND_S,
		                        (unsigned long long)rxvk_timeline_done(rx), expect);
		if (len >= sizeof w->failed)
			len = sizeof w->failed - 1;
	}
	fprintf(stderr, "rxvk-gate: %s(every gate opened now, so the test can go on and fail)\n",
	        w->failed);
	fflush(stderr);
	for (int g = 0; g < RXT_GATES; g++) {
		if (rx->test.gate_event[g])
			vkSetEvent(rx->device, rx->test.gate_event[g]);
		w->armed_ns[g] = 0;
	}
}

static inline void *rxt_gate_watch_main(void *arg)
{
	struct rxt_gate_watch *w = arg;
	for (;;) {
		struct timespec ts = { 0, 200 * 1000 * 1000 };
		nanosleep(&ts, NULL);
		pthread_mutex_lock(&w->lock);
		rxt_gate_watch_check_locked(w, rxt_gate_now_ns());
		pthread_mutex_unlock(&w->lock);
	}
	return NULL;
}

/* Under the lock: rx is the renderer watched (a new one forgets the gates
 * and the finding of one a failed test left behind); the watcher runs.
 * 0, or pthread_create()'s error. */
static inline int rxt_gate_watch_locked(struct rxt_gate_watch *w, struct rxvk *rx)
{
	if (w->rx != rx) {
		memset(w->armed_ns, 0, sizeof w->armed_ns);
		w->failed[0] = 0;
		w->rx = rx;
	}
	if (!w->started) {
		pthread_t t;
		int rc = pthread_create(&t, NULL, rxt_gate_watch_main, w);
		if (rc != 0)
			return rc;
		pthread_detach(t);
		w->started = true;
	}
	return 0;
}

/* Fails the test (its thread only) with what the watcher found. */
static inline void rxt_gate_check(struct rxvk *rx)
{
	char failed[sizeof rxt_gate_watch_.failed];
	pthread_mutex_lock(&rxt_gate_watch_.lock);
	snprintf(failed, sizeof failed, "%s", rxt_gate_watch_.rx == rx ? rxt_gate_watch_.failed : "");
	pthread_mutex_unlock(&rxt_gate_watch_.lock);
	if (failed[0])
		fail_msg("rxvk-gate: %s", failed);
}

/* Gate g: the next submission waits there before its op index before_op;
 * with at_wait the first read that waits opens it. */
static inline void rxt_gate_at(struct rxvk *rx, int g, uint32_t before_op, bool at_wait)
{
	struct rxt_gate_watch *w = &rxt_gate_watch_;
	pthread_mutex_lock(&w->lock); /* the watcher may be opening the event */
	rx->test.gate_lock = &w->lock; /* the renderer's own uses of the events take it too */
	VkResult r;
	if (!rx->test.gate_event[g]) {
		VkEventCreateInfo ci = { .sType = VK_STRUCTURE_TYPE_EVENT_CREATE_INFO };
		r = vkCreateEvent(rx->device, &ci, NULL, &rx->test.gate_event[g]);
	} else {
		r = vkResetEvent(rx->device, rx->test.gate_event[g]);
	}
	rx->test.gate_op[g] = before_op + 1;
	int started = rxt_gate_watch_locked(w, rx);
	if (at_wait)
		__atomic_fetch_or(&rx->test.gate_at_wait, 1u << g, __ATOMIC_RELEASE);
	else
		__atomic_fetch_and(&rx->test.gate_at_wait, ~(1u << g), __ATOMIC_RELEASE);
	/* a gate recorded nowhere holds nothing back: watched only while a
	 * read is to open it */
	w->armed_ns[g] = before_op != RXT_GATE_NOWHERE || at_wait ? rxt_gate_now_ns() : 0;
	w->before_op[g] = before_op;
	w->waits_at_arm[g] = __atomic_load_n(&rx->test.gate_waits, __ATOMIC_ACQUIRE);
	pthread_mutex_unlock(&w->lock);
	assert_int_equal(r, VK_SUCCESS);
	assert_int_equal(started, 0);
}

/* Gate 0 before op index before_op; with at_wait the first read that waits
 * opens it. */
static inline void rxt_gate_arm(struct rxvk *rx, uint32_t before_op, bool at_wait)
{
	rxt_gate_at(rx, 0, before_op, at_wait);
}

/* Gate 1, the hold, before op index before_op: only rxt_gate_open()
 * opens it. */
static inline void rxt_gate_hold(struct rxvk *rx, uint32_t before_op)
{
	rxt_gate_at(rx, 1, before_op, false);
}

/* From now on the next read that waits opens gate g too. */
static inline void rxt_gate_open_at_wait(struct rxvk *rx, int g)
{
	struct rxt_gate_watch *w = &rxt_gate_watch_;
	pthread_mutex_lock(&w->lock);
	if (w->rx == rx && w->armed_ns[g])
		w->waits_at_arm[g] = __atomic_load_n(&rx->test.gate_waits, __ATOMIC_ACQUIRE);
	__atomic_fetch_or(&rx->test.gate_at_wait, 1u << g, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&w->lock);
}

/* The gated submission is submitted: later ones get no gate. */
static inline void rxt_gate_submitted(struct rxvk *rx)
{
	for (int g = 0; g < RXT_GATES; g++)
		rx->test.gate_op[g] = 0;
}

/* Opens gate g (any thread may; a submission still being recorded
 * records it, open). */
static inline void rxt_gate_open_one(struct rxvk *rx, int g)
{
	struct rxt_gate_watch *w = &rxt_gate_watch_;
	pthread_mutex_lock(&w->lock);
	if (w->rx == rx)
		w->armed_ns[g] = 0;
	VkResult r = rx->test.gate_event[g] ? vkSetEvent(rx->device, rx->test.gate_event[g]) : VK_SUCCESS;
	pthread_mutex_unlock(&w->lock);
	assert_int_equal(r, VK_SUCCESS);
}

/* Opens every gate: the queue goes on. */
static inline void rxt_gate_open(struct rxvk *rx)
{
	for (int g = 0; g < RXT_GATES; g++)
		rxt_gate_open_one(rx, g);
}

/* Reads that have started waiting since gates were armed with at_wait
 * (the event itself may only be touched by one thread at a time, so a
 * test polls this instead).  From the test's thread only: it fails the
 * test once the watcher found a gate overdue, so a poll for a read that
 * never waits ends. */
static inline uint32_t rxt_gate_waits(struct rxvk *rx)
{
	rxt_gate_check(rx);
	return __atomic_load_n(&rx->test.gate_waits, __ATOMIC_ACQUIRE);
}

/* Whether gate g is open (the read that was to open it did); not while
 * another thread may be setting it. */
static inline bool rxt_gate_is_open_one(struct rxvk *rx, int g)
{
	return rx->test.gate_event[g] &&
	       vkGetEventStatus(rx->device, rx->test.gate_event[g]) == VK_EVENT_SET;
}

static inline bool rxt_gate_is_open(struct rxvk *rx)
{
	return rxt_gate_is_open_one(rx, 0);
}

/* Before rxt_destroy(): the gates opened, the queue idle, the events gone. */
static inline void rxt_gate_destroy(struct rxvk *rx)
{
	bool any = false;
	for (int g = 0; g < RXT_GATES; g++)
		any |= rx->test.gate_event[g] != VK_NULL_HANDLE;
	if (!any)
		return;
	rxt_gate_open(rx);
	rxt_gate_submitted(rx);
	__atomic_store_n(&rx->test.gate_at_wait, 0, __ATOMIC_RELEASE);
	assert_int_equal(rxvk_finish(rx), 0);
	char failed[sizeof rxt_gate_watch_.failed] = "";
	pthread_mutex_lock(&rxt_gate_watch_.lock);
	if (rxt_gate_watch_.rx == rx) {
		snprintf(failed, sizeof failed, "%s", rxt_gate_watch_.failed);
		rxt_gate_watch_.rx = NULL;
		rxt_gate_watch_.failed[0] = 0;
	}
	for (int g = 0; g < RXT_GATES; g++) {
		if (rx->test.gate_event[g])
			vkDestroyEvent(rx->device, rx->test.gate_event[g], NULL);
		rx->test.gate_event[g] = VK_NULL_HANDLE;
	}
	rx->test.gate_lock = NULL;
	pthread_mutex_unlock(&rxt_gate_watch_.lock);
	if (failed[0])
		fail_msg("rxvk-gate: %s", failed);
}

/* rxt_gate_destroy(), then rxt_destroy(). */
static inline void rxt_destroy_gated(struct rxvk *rx)
{
	rxt_gate_destroy(rx);
	rxt_destroy(rx);
}

#endif
