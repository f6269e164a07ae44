/* test-rxvk-readback: RX_VK_READBACK_EARLY, RX_VK_READBACK_LATE and the
 * writers' diagnostics against the correctness rules of DESIGN.md §3.2, on
 * a real device (lavapipe in CI) with the validation layer on.  Each test
 * fails on the wrong behaviour: timeline values prove which part a read was
 * released at. */
#include "rxvk-test.h"
#include "private.h"
#include "rxvk-gate.h"

#include <pthread.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MB (1ull << 20)
#define PAGE RXVK_PAGE_SIZE_B
#define A (1 * MB)           /* page A */
#define B (1 * MB + PAGE)    /* page B, adjacent */
#define SCRATCH (8 * MB)
#define LONG 10000000u       /* a spin of ~1.5 ms on lavapipe */
#define GAP 4u

static struct rxvk_op ops[256];
static char log_path[] = "/tmp/rxvk-readback-log-XXXXXX";

static struct rxvk *early_rx(uint32_t part_ops)
{
	return rxt_create((struct rxvk_config){ .readback_early = RXVK_EARLY_PART,
	                                        .readback_early_gap = GAP,
	                                        .part_ops = part_ops ? part_ops : 4096,
	                                        .mirror = RXVK_SWITCH_OFF });
}

/* n quick ops that write nothing the tests read */
static size_t filler(struct rxvk_op *o, size_t n)
{
	return rxt_work(o, n, SCRATCH, 10);
}

static size_t long_work(struct rxvk_op *o, size_t n)
{
	return rxt_work(o, n, SCRATCH + MB, LONG);
}

/* as many ops as long_work, writing the same range, but quick: what must
 * still run at a read waits at a gate instead (rxvk-gate.h) */
static size_t quick_work(struct rxvk_op *o, size_t n)
{
	return rxt_work(o, n, SCRATCH + MB, 10);
}

static uint64_t timeline(struct rxvk *rx)
{
	struct rxvk_counters c;
	rxvk_counters_get(rx, &c);
	return c.timeline_value;
}

static uint32_t word(struct rxvk *rx, uint64_t addr)
{
	return *(volatile uint32_t *)((uint8_t *)rxvk_guest(rx) + addr);
}

/* A read of `addr, size` that waits, so the early policy learns the range:
 * the rest of the writer's submission stays behind a gate the read opens
 * once it has decided to wait. */
static void learn(struct rxvk *rx, uint64_t addr, uint64_t size)
{
	size_t n = 0;
	ops[n++] = rxt_spin(addr, 10, 1);
	n += quick_work(ops + n, 20);
	rxt_gate_arm(rx, 1, true);
	assert_int_equal(rxvk_submit(rx, ops, n, NULL), 0);
	rxt_gate_submitted(rx);
	struct rxvk_wait w;
	assert_int_equal(rxvk_invalidate(rx, addr, size, &w), 0);
	assert_true(w.waited);
	assert_true(rxt_gate_is_open(rx));
	assert_int_equal(rxvk_finish(rx), 0);
}

/* Until rx has submitted a part past parts0. */
static void wait_for_a_part(struct rxvk *rx, uint64_t parts0)
{
	struct rxvk_counters c;
	do {
		usleep(100);
		rxvk_counters_get(rx, &c);
	} while (c.parts == parts0);
}

/* A renderer with the early switch that has learnt A (one range), and its
 * counters then. */
static struct rxvk *learnt_rx(struct rxvk_counters *c0)
{
	struct rxvk *rx = early_rx(0);
	learn(rx, A, 8);
	rxvk_counters_get(rx, c0);
	assert_int_equal(c0->early_ranges, 1);
	return rx;
}

/* A reader that reads A as soon as the submission's first part is
 * submitted, while the render thread goes on recording the rest. */
struct early_reader {
	struct rxvk *rx;
	uint64_t parts0;
	struct rxvk_wait w;
	uint64_t done_at_release;
	int rc;
};

static void *early_reader_main(void *arg)
{
	struct early_reader *r = arg;
	wait_for_a_part(r->rx, r->parts0);
	r->rc = rxvk_invalidate(r->rx, A, 8, &r->w);
	r->done_at_release = rxvk_timeline_done(r->rx);
	rxt_gate_open(r->rx); /* the rest of the submission may run now */
	return NULL;
}

static void test_early__released_at_writer_part_before_submission_end(void **state)
{
	struct rxvk_counters c0;
	struct rxvk *rx = learnt_rx(&c0);
	/* the writer 20 ops into its part, behind a gate the read opens as it
	 * starts to wait (so it waits, for that part); the part after it
	 * holds at a gate the reader opens once it was released, so the rest
	 * of the submission is still to run at the release however fast it is */
	size_t n = filler(ops, 20);
	rxt_gate_arm(rx, (uint32_t)n, true);
	ops[n++] = rxt_spin(A, 10, 2);
	rxt_gate_hold(rx, (uint32_t)n);
	n += quick_work(ops + n, 80);
	uint64_t before = timeline(rx);
	struct early_reader r = { rx, c0.parts, { 0 }, 0, -1 };
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, early_reader_main, &r), 0);
	assert_int_equal(rxvk_submit(rx, ops, n, NULL), 0);
	rxt_gate_submitted(rx);
	uint64_t last = timeline(rx);
	pthread_join(t, NULL);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.w.what, RXVK_WAIT_PART);
	assert_int_equal(r.w.value, before + 1); /* the writer's part: the first */
	assert_true(r.w.value < last);
	assert_true(r.done_at_release >= r.w.value);
	assert_int_equal(word(rx, A), 2);
	/* released while the rest of the submission still ran */
	assert_true(r.done_at_release < last);
	struct rxvk_counters c1;
	rxvk_counters_get(rx, &c1);
	assert_int_equal(c1.parts_split_early - c0.parts_split_early, 1);
	assert_int_equal(c1.reads_early - c0.reads_early, 1);
	rxt_destroy_gated(rx);
	(void)state;
}

/* A reader that reads A once the submission's first part is submitted,
 * its thread's timer slack set to SLACK_MINE first; it keeps the slack it
 * finds after the read. */
#define SLACK_MINE 37000
struct slack_reader {
	struct rxvk *rx;
	uint64_t parts0;
	pid_t tid;
	struct rxvk_wait w;
	int rc, slack_after;
	bool done;
};

static void *slack_reader_main(void *arg)
{
	struct slack_reader *r = arg;
	assert_int_equal(prctl(PR_SET_TIMERSLACK, SLACK_MINE, 0, 0, 0), 0);
	__atomic_store_n(&r->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	wait_for_a_part(r->rx, r->parts0);
	r->rc = rxvk_invalidate(r->rx, A, 8, &r->w);
	r->slack_after = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
	__atomic_store_n(&r->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/* A thread's timer slack as /proc/TID/timerslack_ns says, -1 when it
 * cannot be read (another thread's needs CAP_SYS_NICE). */
static long slack_of(pid_t tid)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/timerslack_ns", (int)tid);
	FILE *f = fopen(path, "r");
	long v = -1;
	if (f && fscanf(f, "%ld", &v) != 1)
		v = -1;
	if (f)
		fclose(f);
	return v;
}

static void test_early__poll_sleeps_with_a_short_timer_slack_then_puts_it_back(void **state)
{
	struct rxvk_counters c0;
	struct rxvk *rx = learnt_rx(&c0);
	/* the writer behind a gate only this test opens, once the read sleeps
	 * in its poll: the read cannot be released before, however busy the
	 * machine, so it must pass its spin and sleep */
	size_t n = filler(ops, 20);
	rxt_gate_hold(rx, (uint32_t)n);
	ops[n++] = rxt_spin(A, 10, 2);
	n += quick_work(ops + n, 20);
	struct slack_reader r = { .rx = rx, .parts0 = c0.parts, .rc = -1 };
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, slack_reader_main, &r), 0);
	assert_int_equal(rxvk_submit(rx, ops, n, NULL), 0);
	rxt_gate_submitted(rx);
	/* bounded by the gate's watcher (RXT_GATE_BOUND_S), which opens it if
	 * the read never sleeps: then the read returns and the loop ends */
	struct rxvk_counters c;
	do {
		usleep(1000);
		rxvk_counters_get(rx, &c);
	} while (c.reads_poll_sleeps == c0.reads_poll_sleeps && !__atomic_load_n(&r.done, __ATOMIC_ACQUIRE));
	long during = slack_of(__atomic_load_n(&r.tid, __ATOMIC_ACQUIRE));
	rxt_gate_open(rx); /* checked once the reader is back: no thread left in the read */
	pthread_join(t, NULL);
	assert_true(c.reads_poll_sleeps > c0.reads_poll_sleeps);
	if (during >= 0)
		assert_int_equal(during, 1000); /* MARKER_SLACK_NS, while it polls */
	else
		print_message("the reader's slack while it polls not read: /proc/TID/timerslack_ns of "
		              "another thread needs CAP_SYS_NICE\n");
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.w.what, RXVK_WAIT_PART);
	assert_int_equal(word(rx, A), 2);
	assert_int_equal(r.slack_after, SLACK_MINE); /* put back as it was */
	rxt_destroy_gated(rx);
	(void)state;
}

static void test_early__writers_in_a_row_end_one_part(void **state)
{
	struct rxvk *rx = early_rx(0);
	learn(rx, A, 8);
	struct rxvk_counters c0, c1;
	rxvk_counters_get(rx, &c0);
	size_t n = filler(ops, 20);
	for (int i = 0; i < 5; i++)
		ops[n++] = rxt_spin(A, 10, 10 + (uint32_t)i);
	n += filler(ops + n, 2); /* fewer than the gap: no second split */
	ops[n++] = rxt_spin(A, 10, 99);
	rxt_gate_arm(rx, (uint32_t)n, true); /* the rest pending until the read waits */
	n += quick_work(ops + n, 10);
	assert_int_equal(rxvk_submit(rx, ops, n, NULL), 0);
	rxt_gate_submitted(rx);
	rxvk_counters_get(rx, &c1);
	assert_int_equal(c1.parts_split_early - c0.parts_split_early, 2);
	assert_int_equal(c1.parts - c0.parts, 3);
	struct rxvk_wait w;
	assert_int_equal(rxvk_invalidate(rx, A, 8, &w), 0);
	assert_int_equal(w.what, RXVK_WAIT_PART);
	assert_int_equal(w.value, c0.timeline_value + 2); /* the part of the last writer */
	assert_int_equal(word(rx, A), 99);
	rxt_destroy_gated(rx);
	(void)state;
}

/* Rule 4: a range widened over a page the same submission wrote earlier,
 * unseen, falls back to the whole submission; rule 3 (once seen): the later part. */
static void test_early__widened_range_over_unseen_page_falls_back_then_later_part(void **state)
{
	struct rxvk *rx = early_rx(0);
	learn(rx, A, 8);
	size_t n = 0;
	ops[n++] = rxt_spin(B, 10, 3);     /* B, not tracked: unseen */
	n += filler(ops + n, 20);
	ops[n++] = rxt_spin(A, 10, 4);     /* A, tracked: ends its part */
	rxt_gate_arm(rx, (uint32_t)n, true); /* the rest pending until the read waits */
	n += quick_work(ops + n, 20);
	assert_int_equal(rxvk_submit(rx, ops, n, NULL), 0);
	rxt_gate_submitted(rx);
	uint64_t last = timeline(rx);
	struct rxvk_counters c0, c1;
	rxvk_counters_get(rx, &c0);
	struct rxvk_wait w;
	assert_int_equal(rxvk_invalidate(rx, A, PAGE + 8, &w), 0);
	assert_int_equal(w.what, RXVK_WAIT_SUBMISSION);
	assert_int_equal(w.value, last);
	rxvk_counters_get(rx, &c1);
	assert_int_equal(c1.reads_early_fallback - c0.reads_early_fallback, 1);
	assert_int_equal(word(rx, B), 3);

	/* the widened range is now tracked: B written again is seen */
	uint64_t before = timeline(rx);
	n = 0;
	n += filler(ops + n, 20);
	ops[n++] = rxt_spin(B, 10, 5);     /* part 1 */
	n += filler(ops + n, 20);
	ops[n++] = rxt_spin(A, 10, 6);     /* part 2 */
	rxt_gate_arm(rx, (uint32_t)n, true); /* the rest pending until the read waits */
	n += quick_work(ops + n, 20);
	assert_int_equal(rxvk_submit(rx, ops, n, NULL), 0);
	rxt_gate_submitted(rx);
	assert_int_equal(rxvk_invalidate(rx, A, PAGE + 8, &w), 0);
	assert_int_equal(w.what, RXVK_WAIT_PART);
	assert_int_equal(w.value, before + 2);
	assert_int_equal(word(rx, A), 6);
	assert_int_equal(word(rx, B), 5);
	rxt_destroy_gated(rx);
	(void)state;
}

/* Rule 2: two ranges in one page.  A write of the other range's bytes is
 * kept for the page (a read waits for its later part) and ends no part. */
static void test_early__two_ranges_in_one_page_cannot_hide_a_later_part(void **state)
{
	struct rxvk *rx = early_rx(26);
	learn(rx, A, 16);
	struct rxvk_counters c0, c1;
	rxvk_counters_get(rx, &c0);
	uint64_t before = c0.timeline_value;
	size_t n = filler(ops, 20);
	ops[n++] = rxt_spin(A, 10, 7);            /* R1's bytes: ends part 1 */
	ops[n++] = rxt_spin(A + 2048, 10, 8);     /* R2's bytes, same page: part 2 */
	n += filler(ops + n, 25);                 /* part 2 ends at the size limit */
	rxt_gate_arm(rx, (uint32_t)n, true); /* the rest pending until the read waits */
	n += quick_work(ops + n, 20);
	assert_int_equal(rxvk_submit(rx, ops, n, NULL), 0);
	rxt_gate_submitted(rx);
	rxvk_counters_get(rx, &c1);
	assert_int_equal(c1.parts_split_early - c0.parts_split_early, 1);
	struct rxvk_wait w;
	assert_int_equal(rxvk_invalidate(rx, A, 16, &w), 0);
	assert_int_equal(w.what, RXVK_WAIT_PART);
	assert_int_equal(w.value, before + 2); /* R2's writer's part, not R1's */
	assert_true(w.value < c1.timeline_value);
	assert_int_equal(word(rx, A + 2048), 8);
	rxt_destroy_gated(rx);
	(void)state;
}

/* Rule 3: mixed sizes.  Submission 10 writes B small; in 11, part p writes
 * A small and part p+1 writes B with a write over 1 MiB starting at B. */
static void test_early__mixed_sizes_wait_for_the_large_writer_part(void **state)
{
	struct rxvk *rx = early_rx(0);
	learn(rx, A, 2 * PAGE);
	size_t n = 0;
	ops[n++] = rxt_spin(B, 10, 10);
	assert_int_equal(rxvk_submit(rx, ops, n, NULL), 0);
	uint64_t before = timeline(rx);
	n = filler(ops, 20);
	ops[n++] = rxt_spin(A, 10, 11);                     /* part 1: A small */
	n += filler(ops + n, 20);
	ops[n++] = rxt_fill(B, MB + MB / 4, 0x0b0b0b0bu);    /* part 2: B large */
	rxt_gate_arm(rx, (uint32_t)n, true); /* the rest pending until the read waits */
	n += quick_work(ops + n, 20);
	assert_int_equal(rxvk_submit(rx, ops, n, NULL), 0);
	rxt_gate_submitted(rx);
	struct rxvk_wait w;
	assert_int_equal(rxvk_invalidate(rx, A, 2 * PAGE, &w), 0);
	/* the large writer's part itself: neither the small one's nor the
	 * whole-submission fallback (every page's writer was seen) */
	assert_int_equal(w.what, RXVK_WAIT_PART);
	assert_int_equal(w.value, before + 2);
	assert_int_equal(word(rx, B), 0x0b0b0b0bu);
	assert_int_equal(word(rx, A), 11);
	rxt_destroy_gated(rx);
	(void)state;
}

/* Rule 1 / 6: a read reaching into a page never tracked falls back. */
static void test_early__read_into_untracked_page_falls_back(void **state)
{
	struct rxvk *rx = early_rx(0);
	learn(rx, A, 8);
	size_t n = filler(ops, 20);
	ops[n++] = rxt_spin(A, 10, 12);
	ops[n++] = rxt_spin(A + 3 * PAGE, 10, 13);
	rxt_gate_arm(rx, (uint32_t)n, true); /* the rest pending until the read waits */
	n += quick_work(ops + n, 20);
	assert_int_equal(rxvk_submit(rx, ops, n, NULL), 0);
	rxt_gate_submitted(rx);
	struct rxvk_wait w;
	assert_int_equal(rxvk_invalidate(rx, A, 3 * PAGE + 8, &w), 0);
	assert_int_equal(w.what, RXVK_WAIT_SUBMISSION);
	assert_int_equal(w.value, timeline(rx));
	assert_int_equal(word(rx, A + 3 * PAGE), 13);
	rxt_destroy_gated(rx);
	(void)state;
}

/* Past 64 tracked ranges the oldest is evicted with its pages' notes: a
 * writer of it ends no part and a read of it waits for the whole
 * submission (and learns it again); then it is released at the part. */
static void test_early__oldest_of_64_ranges_evicted_then_relearnt(void **state)
{
	struct rxvk *rx = early_rx(0);
	learn(rx, A, 8);
	for (uint64_t k = 0; k < 64; k++)
		learn(rx, 10 * MB + k * PAGE, 8);
	struct rxvk_counters c0;
	rxvk_counters_get(rx, &c0);
	assert_int_equal(c0.early_ranges, 64);
	size_t n = filler(ops, 20);
	ops[n++] = rxt_spin(A, 10, 31);
	rxt_gate_arm(rx, (uint32_t)n, true); /* the rest pending until the read waits */
	n += quick_work(ops + n, 20);
	assert_int_equal(rxvk_submit(rx, ops, n, NULL), 0);
	rxt_gate_submitted(rx);
	struct rxvk_wait w;
	assert_int_equal(rxvk_invalidate(rx, A, 8, &w), 0);
	assert_int_equal(w.what, RXVK_WAIT_SUBMISSION);
	assert_int_equal(w.value, timeline(rx));
	assert_int_equal(word(rx, A), 31);
	struct rxvk_counters c1;
	rxvk_counters_get(rx, &c1);
	assert_int_equal(c1.parts_split_early, c0.parts_split_early);
	/* learnt again: the next writer ends its part and the read is early */
	uint64_t before = timeline(rx);
	n = filler(ops, 20);
	ops[n++] = rxt_spin(A, 10, 32);
	rxt_gate_arm(rx, (uint32_t)n, true); /* the rest pending until the read waits */
	n += quick_work(ops + n, 20);
	assert_int_equal(rxvk_submit(rx, ops, n, NULL), 0);
	rxt_gate_submitted(rx);
	assert_int_equal(rxvk_invalidate(rx, A, 8, &w), 0);
	assert_int_equal(w.what, RXVK_WAIT_PART);
	assert_int_equal(w.value, before + 1);
	assert_int_equal(word(rx, A), 32);
	rxt_destroy_gated(rx);
	(void)state;
}

/* Eviction past 64 ranges and relearning while one submission rewrites the
 * page.  The submission S writes A in its part p2 (A tracked: noted), and a
 * reader decides to wait for p2.  Meanwhile 64 reads of new ranges evict A
 * (its notes forgotten) and S writes A again, untracked, in p3 (not noted),
 * which is submitted while p2 still runs; then the reader, released at p2,
 * learns A again.  The next read of A must wait for the whole of S: a note
 * left from p2 would release it at p2, before p3's write. */
#define P0 (10 * MB)          /* the page the evicting ranges share */

struct p2_reader {
	struct rxvk *rx;
	struct rxvk_wait w;
	int rc;
	uint64_t parts_at_release;
};

static uint64_t counter_parts(struct rxvk *rx);

static void *p2_reader_main(void *arg)
{
	struct p2_reader *r = arg;
	r->rc = rxvk_invalidate(r->rx, A, 8, &r->w);
	r->parts_at_release = counter_parts(r->rx);
	return NULL;
}

struct slow_sub {
	struct rxvk *rx;
	const struct rxvk_op *ops;
	size_t n;
	int rc;
};

static void *slow_sub_main(void *arg)
{
	struct slow_sub *s = arg;
	s->rc = rxvk_submit(s->rx, s->ops, s->n, NULL);
	return NULL;
}

static uint64_t counters_ranges(struct rxvk *rx)
{
	struct rxvk_counters c;
	rxvk_counters_get(rx, &c);
	return c.early_ranges;
}

static uint64_t counter_parts(struct rxvk *rx)
{
	struct rxvk_counters c;
	rxvk_counters_get(rx, &c);
	return c.parts;
}

static void test_early__evicted_and_relearnt_while_one_submission_rewrites_the_page(void **state)
{
	struct rxvk *rx = early_rx(0);
	learn(rx, A, 8);                 /* the oldest of 64 */
	learn(rx, P0, 8);
	/* 62 more ranges in P0's page, learnt from reads released at their
	 * part while its submission is held (a read that waits for the whole
	 * submission opens the gate, and the ranges after it are learnt in
	 * the next round) */
	size_t n;
	uint64_t j = 1;
	for (int round = 0; j <= 62 && round < 100; round++) {
		n = 0;
		ops[n++] = rxt_spin(P0, 10, 1);
		rxt_gate_arm(rx, (uint32_t)n, true);
		n += quick_work(ops + n, 20);
		assert_int_equal(rxvk_submit(rx, ops, n, NULL), 0);
		rxt_gate_submitted(rx);
		for (; j <= 62; j++) {
			uint64_t had = counters_ranges(rx);
			assert_int_equal(rxvk_invalidate(rx, P0 + 16 * j, 8, NULL), 0);
			if (counters_ranges(rx) == had)
				break;
		}
		rxt_gate_open(rx);
		assert_int_equal(rxvk_finish(rx), 0);
	}
	struct rxvk_counters c0;
	rxvk_counters_get(rx, &c0);
	assert_int_equal(c0.early_ranges, 64);
	/* S: p1 writes P0 (its tracked bytes end p1); p2, held at gate 1 until
	 * the test opens it, A's first write; p3 A's second write and a writer
	 * of an evicting range (ending p3), recorded only once the test lets
	 * the recording go on (a test hook holds it after p3's first op), then
	 * work held at gate 2 until the last read waits */
	static struct rxvk_op s_ops[64];
	uint64_t evict_last = P0 + 16 * 126;
	n = filler(s_ops, 4);
	s_ops[n++] = rxt_spin(P0, 10, 2);
	rxt_gate_at(rx, 1, (uint32_t)n, false);
	n += quick_work(s_ops + n, 8);
	s_ops[n++] = rxt_spin(A, 10, 41);
	size_t p3 = n;
	n += filler(s_ops + n, 1);
	s_ops[n++] = rxt_spin(A, 10, 42);
	s_ops[n++] = rxt_spin(evict_last, 10, 3);
	rxt_gate_at(rx, 2, (uint32_t)n, false);
	n += quick_work(s_ops + n, 20);
	/* gate 0 recorded nowhere: a read that waits counts in rxt_gate_waits() */
	rxt_gate_at(rx, 0, RXT_GATE_NOWHERE, true);
	uint32_t waits0 = rxt_gate_waits(rx);
	rx->test.hold_after_op = (uint32_t)p3 + 1;
	__atomic_store_n(&rx->test.hold_recording, true, __ATOMIC_RELEASE);
	uint64_t before = timeline(rx);
	struct slow_sub sub = { rx, s_ops, n, -1 };
	pthread_t ts, tr;
	assert_int_equal(pthread_create(&ts, NULL, slow_sub_main, &sub), 0);
	while (counter_parts(rx) < c0.parts + 2) /* p1 and p2 submitted */
		usleep(100);
	/* the reader decides to wait for p2 (A's writer there, held) */
	struct p2_reader r = { rx, { 0 }, -1, 0 };
	assert_int_equal(pthread_create(&tr, NULL, p2_reader_main, &r), 0);
	while (rxt_gate_waits(rx) == waits0)
		usleep(100);
	for (uint64_t k = 63; k <= 126; k++) /* 64 new ranges: A is evicted first */
		assert_int_equal(rxvk_invalidate(rx, P0 + 16 * k, 8, NULL), 0);
	/* p3 recorded and submitted while p2 is still held */
	__atomic_store_n(&rx->test.hold_recording, false, __ATOMIC_RELEASE);
	while (counter_parts(rx) < c0.parts + 3)
		usleep(100);
	rxt_gate_open_at_wait(rx, 2); /* the last read, of the whole of S, opens gate 2 */
	rxt_gate_open_one(rx, 1);     /* p2 runs: the reader is released */
	pthread_join(tr, NULL);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.w.what, RXVK_WAIT_PART);
	assert_int_equal(r.w.value, before + 2);
	assert_true(r.parts_at_release >= c0.parts + 3);
	/* released at p2's note, the read would not wait for p3's write */
	struct rxvk_wait w = { 0 };
	assert_int_equal(rxvk_invalidate(rx, A, 8, &w), 0);
	pthread_join(ts, NULL);
	assert_int_equal(sub.rc, 0);
	rx->test.hold_after_op = 0;
	assert_int_equal(w.what, RXVK_WAIT_SUBMISSION);
	assert_int_equal(w.value, timeline(rx));
	assert_int_equal(word(rx, A), 42);
	rxt_destroy_gated(rx);
	(void)state;
}

/* Rule 5: the late rule is decided before any diagnostic wait. */
static void test_late__newest_read_at_once_even_with_writers_diagnostics(void **state)
{
	struct rxvk *rx = rxt_create((struct rxvk_config){ .readback_late = RXVK_LATE_NEWEST,
	                                                   .log_rb_writers = RXVK_SWITCH_ON,
	                                                   .readback_early = RXVK_EARLY_PART,
	                                                   .log_path = log_path });
	/* the whole submission waits at a gate until the read is checked */
	size_t n = 0;
	ops[n++] = rxt_spin(A, 10, 20);
	n += quick_work(ops + n, 20);
	rxt_gate_arm(rx, 0, false);
	assert_int_equal(rxvk_submit(rx, ops, n, NULL), 0);
	rxt_gate_submitted(rx);
	uint64_t last = timeline(rx);
	struct rxvk_wait w;
	assert_int_equal(rxvk_invalidate(rx, A, 8, &w), 0);
	assert_int_equal(w.what, RXVK_WAIT_LATE);
	assert_false(w.waited);
	assert_true(rxvk_timeline_done(rx) < last); /* nothing waited for it */
	/* an older submission's write is not late: it waits as usual (the
	 * gate opens once that read waits, so the submission is provably
	 * still pending however fast the device and however the next one is
	 * recorded) */
	rxt_gate_open_at_wait(rx, 0);
	struct rxvk_op next = rxt_spin(SCRATCH + 2 * MB, 10, 1);
	assert_int_equal(rxvk_submit(rx, &next, 1, NULL), 0);
	assert_int_equal(rxvk_invalidate(rx, A, 8, &w), 0);
	assert_int_equal(w.what, RXVK_WAIT_SUBMISSION);
	assert_int_equal(w.value, last);
	struct rxvk_counters c;
	rxvk_counters_get(rx, &c);
	assert_int_equal(c.reads_late, 1);
	rxt_destroy_gated(rx);
	(void)state;
}

/* Rule 5 with the writer in an earlier part of the newest submission than
 * the one the diagnostics would wait for first: still read at once. */
static void test_late__read_at_once_with_its_writer_in_an_earlier_part(void **state)
{
	struct rxvk *rx = rxt_create((struct rxvk_config){ .readback_late = RXVK_LATE_NEWEST,
	                                                   .log_rb_writers = RXVK_SWITCH_ON,
	                                                   .readback_early = RXVK_EARLY_PART,
	                                                   .part_ops = 4,
	                                                   .log_path = log_path });
	/* every part waits at a gate, opened once the read is checked */
	size_t n = filler(ops, 2);
	ops[n++] = rxt_spin(A, 10, 21);    /* part 1 */
	n += quick_work(ops + n, 20);      /* parts 1..6 */
	rxt_gate_arm(rx, 0, false);
	assert_int_equal(rxvk_submit(rx, ops, n, NULL), 0);
	rxt_gate_submitted(rx);
	uint64_t last = timeline(rx);
	struct rxvk_wait w;
	assert_int_equal(rxvk_invalidate(rx, A, 8, &w), 0);
	assert_int_equal(w.what, RXVK_WAIT_LATE);
	assert_false(w.waited);
	assert_true(rxvk_timeline_done(rx) < last);
	rxt_gate_destroy(rx);
	assert_null(strstr(rxt_read_log(log_path), "readback writers 0x"));
	rxt_destroy_gated(rx);
	(void)state;
}

static void test_diag__waits_for_last_writer_part_first_and_logs_it(void **state)
{
	struct rxvk *rx = rxt_create((struct rxvk_config){ .log_rb_writers = RXVK_SWITCH_ON,
	                                                   .part_ops = 8,
	                                                   .log_path = log_path });
	size_t n = 0;
	ops[n++] = rxt_spin(A, 10, 30);      /* first writer, op 0, part 1 */
	n += filler(ops + n, 3);
	ops[n++] = rxt_spin(A + 64, 10, 31); /* last writer, op 4, part 1 */
	n += long_work(ops + n, 20);         /* parts 1..4 */
	uint64_t before = timeline(rx);
	/* parts 2..4 pending until the read waits: on a loaded machine the
	 * long work alone had ended before the read looked */
	rxt_gate_arm(rx, 8, true);
	assert_int_equal(rxvk_submit(rx, ops, n, NULL), 0);
	rxt_gate_submitted(rx);
	struct rxvk_wait w;
	assert_int_equal(rxvk_invalidate(rx, A, 128, &w), 0);
	assert_int_equal(w.what, RXVK_WAIT_SUBMISSION);
	rxt_destroy_gated(rx);
	char want[256];
	snprintf(want, sizeof want,
	         "readback writers 0x100000 +0x80: last dispatch %016llx (part %llu, op 4 of 25 in "
	         "submission 1), first dispatch %016llx (part %llu, op 0), 1 pages; the submission's "
	         "parts %llu..%llu; its last writer's part done",
	         (unsigned long long)RXVK_PROGRAM_SPIN, (unsigned long long)before + 1,
	         (unsigned long long)RXVK_PROGRAM_SPIN, (unsigned long long)before + 1,
	         (unsigned long long)before + 1, (unsigned long long)before + 4);
	const char *log = rxt_read_log(log_path);
	if (!strstr(log, want))
		fail_msg("log lacks\n%s\nlog:\n%s", want, log);
	(void)state;
}

/* The span of a burst's last submission closes at the burst's end. */
static void test_diag__span_closes_at_burst_end_with_last_part_and_total_work(void **state)
{
	struct rxvk *rx = rxt_create((struct rxvk_config){ .log_rb_writers = RXVK_SWITCH_ON,
	                                                   .part_ops = 5,
	                                                   .log_path = log_path });
	static struct rxvk_op a[3], b[12];
	filler(a, 3);
	b[0] = rxt_spin(A, 10, 40);
	long_work(b + 1, 11);
	struct rxvk_stream_sub burst[3] = { { a, 3 }, { a, 3 }, { b, 12 } };
	uint64_t before = timeline(rx), last_sub;
	/* the last submission's parts after its writer's pending until the
	 * read waits (op index 5 is in it alone): the writers' line is logged
	 * only for a read that waits, and on a loaded machine the long work
	 * alone had ended before the read looked */
	rxt_gate_arm(rx, 5, true);
	assert_int_equal(rxvk_submit_burst(rx, burst, 3, &last_sub), 0);
	rxt_gate_submitted(rx);
	assert_int_equal(last_sub, 3);
	uint64_t end = timeline(rx);
	assert_int_equal(end, before + 1 + 1 + 3); /* 12 ops in parts of 5 */
	struct rxvk_wait w;
	assert_int_equal(rxvk_invalidate(rx, A, 8, &w), 0);
	assert_int_equal(w.value, end);
	pthread_mutex_lock(&rx->lock);
	struct sub_info s = rx->subs[3 % SUB_RING];
	pthread_mutex_unlock(&rx->lock);
	assert_int_equal(s.first_value, before + 3);
	assert_int_equal(s.last_value, end);
	assert_int_equal(s.ops, 12);
	rxt_destroy_gated(rx);
	char want[128];
	snprintf(want, sizeof want, "op 0 of 12 in submission 3), first dispatch");
	if (!strstr(rxt_read_log(log_path), want))
		fail_msg("log lacks '%s'", want);
	snprintf(want, sizeof want, "the submission's parts %llu..%llu;", (unsigned long long)before + 3,
	         (unsigned long long)end);
	if (!strstr(rxt_read_log(log_path), want))
		fail_msg("log lacks '%s'", want);
	/* a bad op anywhere in a burst submits nothing of it */
	rx = rxt_create((struct rxvk_config){ 0 });
	struct rxvk_op bad = rxt_flip();
	struct rxvk_stream_sub bad_burst[2] = { { a, 3 }, { &bad, 1 } };
	assert_int_equal(rxvk_submit_burst(rx, bad_burst, 2, NULL), -EINVAL);
	assert_int_equal(timeline(rx), 0);
	rxt_destroy_gated(rx);
	(void)state;
}

/* Idle: with the switch on and only mirrored pages, nothing is tracked and
 * no part is split. */
static void test_early__idle_with_only_mirrored_pages(void **state)
{
	struct rxvk *rx = rxt_create((struct rxvk_config){ .readback_early = RXVK_EARLY_PART,
	                                                   .readback_early_gap = GAP,
	                                                   .mirror = RXVK_SWITCH_ON });
	struct rxvk_op warm = rxt_spin(A, 10, 1);
	assert_int_equal(rxvk_submit(rx, &warm, 1, NULL), 0); /* activates the block */
	assert_int_equal(rxvk_finish(rx), 0);
	for (int round = 0; round < 3; round++) {
		size_t n = filler(ops, 20);
		ops[n++] = rxt_spin(A, 10, 50 + (uint32_t)round);
		/* the rest pending until the read waits: on a busy machine long
		 * work alone had ended before the read looked */
		rxt_gate_arm(rx, (uint32_t)n, true);
		n += quick_work(ops + n, 10);
		assert_int_equal(rxvk_submit(rx, ops, n, NULL), 0);
		rxt_gate_submitted(rx);
		struct rxvk_wait w;
		assert_int_equal(rxvk_invalidate(rx, A, 8, &w), 0);
		assert_true(w.waited);
		assert_true(rxt_gate_is_open(rx));
		assert_int_equal(word(rx, A), 50 + (uint32_t)round);
		assert_int_equal(rxvk_finish(rx), 0);
	}
	struct rxvk_counters c;
	rxvk_counters_get(rx, &c);
	assert_int_equal(c.early_ranges, 0);
	assert_int_equal(c.early_pages_noted, 0);
	assert_int_equal(c.parts_split_early, 0);
	assert_int_equal(c.reads_early, 0);
	assert_int_equal(c.reads_early_fallback, 0);
	rxt_destroy_gated(rx);
	(void)state;
}

static void test_log__readbacks_summary_every_3000_reads(void **state)
{
	struct rxvk *rx = rxt_create((struct rxvk_config){ .log_readback_waits = RXVK_SWITCH_ON,
	                                                   .log_path = log_path });
	struct rxvk_op op = rxt_spin(A, 10, 1);
	assert_int_equal(rxvk_submit(rx, &op, 1, NULL), 0);
	for (int i = 0; i < 2999; i++)
		assert_int_equal(rxvk_invalidate(rx, SCRATCH + 3 * MB, 8, NULL), 0);
	assert_null(strstr(rxt_read_log(log_path), "vk: readbacks:"));
	assert_int_equal(rxvk_invalidate(rx, SCRATCH + 3 * MB, 8, NULL), 0);
	const char *log = rxt_read_log(log_path);
	if (!strstr(log, "vk: readbacks: 3000 reads, 0 waited 0.00 ms each; early: 0 at the writer's "
	                 "part 0.00 ms each, 0 for their whole submission (writer not known), 0 parts "
	                 "ended after a writer; late: 0"))
		fail_msg("no summary line in:\n%s", log);
	rxt_destroy_gated(rx);
	(void)state;
}

/* One workload with every op kind, on `parallel` recording threads. */
static void parallel_run(unsigned parallel, uint8_t *bytes, uint64_t *writers, uint64_t *finals, uint64_t *splits)
{
	struct rxvk *rx = rxt_create((struct rxvk_config){ .parallel = parallel,
	                                                   .mirror = RXVK_SWITCH_OFF,
	                                                   .part_ops = 6, /* the spin is inside a part */
	                                                   .readback_early = RXVK_EARLY_PART,
	                                                   .readback_early_gap = 2,
	                                                   .log_path = log_path });
	/* A's range is tracked before the first frame, whether or not a
	 * frame's read finds its writer still running (a fast device) */
	learn(rx, A, 8);
	uint8_t *g = rxvk_guest(rx);
	float *quads = (float *)(g + 3 * MB);
	for (int i = 0; i < 64; i++) {
		quads[i * 4 + 0] = -0.9f + 0.028f * (float)i;
		quads[i * 4 + 1] = 0.5f - 0.015f * (float)i;
		quads[i * 4 + 2] = 0.05f;
		uint32_t c = 0xff000000u | (uint32_t)i * 0x030507u;
		memcpy(&quads[i * 4 + 3], &c, 4);
	}
	assert_int_equal(rxvk_cpu_wrote(rx, 3 * MB, 64 * 16), 0);
	for (int frame = 0; frame < 3; frame++) {
		size_t n = 0;
		ops[n++] = rxt_target(4 * MB, 32, 32, RXVK_FORMAT_RGBA8);
		ops[n++] = rxt_fill(4 * MB, 32 * 32 * 4, 0xff101010u + (uint32_t)frame);
		for (int i = 0; i < 12; i++)
			ops[n++] = (struct rxvk_op){ .kind = RXVK_OP_DRAW, .count = 64, .program = RXVK_PROGRAM_INSTANCED,
			                             .read = { { 3 * MB, 64 * 16 } }, .params = { (uint32_t)i, 0 } };
		ops[n++] = rxt_spin(A, 1000, 100 + (uint32_t)frame);
		ops[n++] = rxt_target(5 * MB, 16, 16, RXVK_FORMAT_BGRA8);
		ops[n++] = (struct rxvk_op){ .kind = RXVK_OP_DRAW, .count = 1, .program = RXVK_PROGRAM_TEXTURED,
		                             .read = { { 4 * MB, 32 * 32 * 4 } },
		                             .params = { 32, 32, 128, RXVK_FORMAT_RGBA8, 0, 0, 0 } };
		ops[n++] = rxt_copy(5 * MB, 6 * MB, 16 * 16 * 4);
		ops[n++] = rxt_target(4 * MB, 32, 32, RXVK_FORMAT_RGBA8);
		ops[n++] = rxt_flip();
		assert_int_equal(rxvk_submit(rx, ops, n, NULL), 0);
		struct rxvk_wait w;
		assert_int_equal(rxvk_invalidate(rx, A, 8, &w), 0);
		assert_int_equal(word(rx, A), 100 + (uint32_t)frame);
	}
	assert_int_equal(rxvk_finish(rx), 0);
	memcpy(bytes, g + 4 * MB, 3 * MB);
	pthread_mutex_lock(&rx->lock);
	memcpy(writers, rx->page_writer + A / PAGE, 6 * MB / PAGE * sizeof *writers);
	memcpy(finals, rx->page_final + A / PAGE, 6 * MB / PAGE * sizeof *finals);
	pthread_mutex_unlock(&rx->lock);
	struct rxvk_counters c;
	rxvk_counters_get(rx, &c);
	/* the early policy works on recording threads as on the render
	 * thread: the range tracked, a part split after its writer (each
	 * frame's read then waits for that part, if for anything) */
	assert_true(c.early_ranges > 0);
	assert_true(c.parts_split_early > 0);
	*splits = c.parts_split_early;
	rxt_destroy_gated(rx);
}

static void test_parallel__same_bytes_writers_and_parts_as_serial_with_early(void **state)
{
	static uint8_t bytes1[3 * MB], bytes3[3 * MB];
	static uint64_t writers1[6 * MB / PAGE], writers3[6 * MB / PAGE];
	static uint64_t finals1[6 * MB / PAGE], finals3[6 * MB / PAGE];
	uint64_t splits1, splits3;
	parallel_run(1, bytes1, writers1, finals1, &splits1);
	parallel_run(3, bytes3, writers3, finals3, &splits3);
	assert_memory_equal(bytes1, bytes3, sizeof bytes1);
	assert_memory_equal(writers1, writers3, sizeof writers1);
	/* the same parts: the same splits, every page's write in the same part */
	assert_int_equal(splits1, splits3);
	assert_memory_equal(finals1, finals3, sizeof finals1);
	bool any = false;
	for (size_t i = 0; i < sizeof bytes1; i++)
		any |= bytes1[i] != 0;
	assert_true(any);
	const char *log = rxt_read_log(log_path);
	assert_null(strstr(log, "left off"));
	assert_non_null(strstr(log, "recording parts on 3 threads"));
	(void)state;
}

static void test_parallel__same_parts_as_serial_without_early(void **state)
{
	static uint64_t finals[2][2 * MB / PAGE];
	for (int k = 0; k < 2; k++) {
		struct rxvk *rx = rxt_create((struct rxvk_config){ .parallel = k ? 4 : 1, .part_ops = 3 });
		size_t n = 0;
		for (int i = 0; i < 40; i++)
			ops[n++] = rxt_spin(A + (uint64_t)(i % 20) * PAGE, 100, (uint32_t)i);
		assert_int_equal(rxvk_submit(rx, ops, n, NULL), 0);
		assert_int_equal(rxvk_finish(rx), 0);
		pthread_mutex_lock(&rx->lock);
		memcpy(finals[k], rx->page_final + A / PAGE, sizeof finals[k]);
		pthread_mutex_unlock(&rx->lock);
		for (int i = 20; i < 40; i++)
			assert_int_equal(word(rx, A + (uint64_t)(i % 20) * PAGE), (uint32_t)i);
		rxt_destroy_gated(rx);
	}
	assert_memory_equal(finals[0], finals[1], sizeof finals[0]);
	(void)state;
}

/* With parts recorded on threads, a part ended after its writer is
 * submitted by the thread that recorded it: the render thread is held
 * right after handing it over (a test hook that, unlike the plain hold,
 * submits nothing first; 30 s at most), and the part must be submitted and
 * a read of the writer's bytes released at it while the render thread is
 * still held.  A part left for the render thread to submit at its next
 * hand-over would come only after the hold, and fail the 10 s bound. */
static void test_threads__part_after_a_writer_submitted_while_the_render_thread_records(void **state)
{
	struct rxvk *rx = rxt_create((struct rxvk_config){ .readback_early = RXVK_EARLY_PART,
	                                                   .readback_early_gap = 4,
	                                                   .part_ops = 4096,
	                                                   .parallel = 2,
	                                                   .mirror = RXVK_SWITCH_OFF });
	learn(rx, A, 8);
	uint64_t parts0 = counter_parts(rx), value0 = timeline(rx);
	size_t n = filler(ops, 2);
	ops[n++] = rxt_spin(A, 10, 77);
	n += filler(ops + n, 65); /* the part ends before op 4: writer, then the gap */
	rx->test.hold_after_op = 8 + 1;
	rx->test.hold_no_drain = true;
	__atomic_store_n(&rx->test.hold_recording, true, __ATOMIC_RELEASE);
	struct slow_sub sub = { rx, ops, n, -1 };
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, slow_sub_main, &sub), 0);
	for (int k = 0; k < 10000 && counter_parts(rx) == parts0; k++)
		usleep(1000);
	bool held = __atomic_load_n(&rx->test.hold_recording, __ATOMIC_ACQUIRE);
	uint64_t parts = counter_parts(rx);
	struct rxvk_wait w = { 0 };
	int rc = rxvk_invalidate(rx, A, 8, &w);
	pthread_mutex_lock(&rx->lock);
	uint64_t s = rx->sub_count;
	bool recording = rx->subs[s % SUB_RING].id == s && rx->subs[s % SUB_RING].last_value == 0;
	pthread_mutex_unlock(&rx->lock);
	uint32_t seen = word(rx, A);
	__atomic_store_n(&rx->test.hold_recording, false, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	rx->test.hold_after_op = 0;
	rx->test.hold_no_drain = false;
	if (parts == parts0)
		fail_msg("the part after the writer was not submitted within 10 s while the render "
		         "thread was held");
	assert_true(held);
	assert_int_equal(rc, 0);
	assert_true(recording);
	assert_int_equal(w.what, RXVK_WAIT_PART);
	assert_int_equal(w.value, value0 + 1);
	assert_int_equal(seen, 77);
	assert_int_equal(sub.rc, 0);
	rxt_destroy_gated(rx);
	(void)state;
}

static int fresh_log(void **state)
{
	(void)state;
	rxt_fresh_log(log_path);
	return 0;
}

int main(int argc, char **argv)
{
	/* the validation layer's synchronization validation on every device
	 * this test makes (rxt_create turns the layer on) */
	setenv("VK_LAYER_ENABLES", "VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT", 1);
	/* --threads N: every renderer that names no RX_VK_PARALLEL records on
	 * N threads (the suite runs the rules once inline, once on threads) */
	if (argc == 3 && strcmp(argv[1], "--threads") == 0) {
		setenv("RX_VK_PARALLEL", argv[2], 1);
	} else if (argc != 1) {
		fprintf(stderr, "usage: %s [--threads N]\n", argv[0]);
		return 2;
	}
	rxt_require_vulkan();
	int fd = mkstemp(log_path);
	if (fd < 0)
		return 1;
	close(fd);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_early__released_at_writer_part_before_submission_end),
		cmocka_unit_test(test_early__poll_sleeps_with_a_short_timer_slack_then_puts_it_back),
		cmocka_unit_test(test_early__writers_in_a_row_end_one_part),
		cmocka_unit_test(test_early__widened_range_over_unseen_page_falls_back_then_later_part),
		cmocka_unit_test(test_early__two_ranges_in_one_page_cannot_hide_a_later_part),
		cmocka_unit_test(test_early__mixed_sizes_wait_for_the_large_writer_part),
		cmocka_unit_test(test_early__read_into_untracked_page_falls_back),
		cmocka_unit_test(test_early__oldest_of_64_ranges_evicted_then_relearnt),
		cmocka_unit_test(test_early__evicted_and_relearnt_while_one_submission_rewrites_the_page),
		cmocka_unit_test_setup(test_late__newest_read_at_once_even_with_writers_diagnostics, fresh_log),
		cmocka_unit_test_setup(test_late__read_at_once_with_its_writer_in_an_earlier_part, fresh_log),
		cmocka_unit_test_setup(test_diag__waits_for_last_writer_part_first_and_logs_it, fresh_log),
		cmocka_unit_test_setup(test_diag__span_closes_at_burst_end_with_last_part_and_total_work, fresh_log),
		cmocka_unit_test(test_early__idle_with_only_mirrored_pages),
		cmocka_unit_test_setup(test_log__readbacks_summary_every_3000_reads, fresh_log),
		cmocka_unit_test_setup(test_parallel__same_bytes_writers_and_parts_as_serial_with_early, fresh_log),
		cmocka_unit_test(test_parallel__same_parts_as_serial_without_early),
		cmocka_unit_test(test_threads__part_after_a_writer_submitted_while_the_render_thread_records),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(log_path);
	return rc;
}
