/* test-rxvk-marker: RX_VK_READBACK_EARLY=marker against the six rules of
 * DESIGN.md §3.2, each with RX_VK_PARALLEL=1 and 2, and a read released
 * while the rest of its writer's submission is still being recorded (with
 * `1` and with `marker`).  The whole group runs twice: guest memory in
 * place, and mirrored (every block active in the mirror, so a marker
 * releases a read only if the write-back of its pages is recorded before
 * it).  On a real device (lavapipe in CI) with the validation layer and
 * its synchronization validation on.  Each test fails
 * on the wrong behaviour: a read released at the wrong marker sees a word a
 * later writer has not written yet; one released at the part's fallback is
 * told apart by `what` and the counters. */
#include "rxvk-test.h"
#include "private.h"
#include "rxvk-gate.h"

#include <pthread.h>
#include <unistd.h>

#define MB (1ull << 20)
#define PAGE RXVK_PAGE_SIZE_B
#define A (1 * MB)           /* page A */
#define B (1 * MB + PAGE)    /* page B, adjacent */
#define SCRATCH (8 * MB)
#define LONG 10000000u       /* a spin of ~1.5 ms on lavapipe */

static struct rxvk_op ops[512];
static char log_path[] = "/tmp/rxvk-marker-log-XXXXXX";
static bool mirrored;        /* the group's memory mode */

static void submit(struct rxvk *rx, const struct rxvk_op *o, size_t n);

static struct rxvk *marker_rx(unsigned parallel, struct rxvk_config cfg)
{
	cfg.readback_early = cfg.readback_early ? cfg.readback_early : RXVK_EARLY_MARKER;
	cfg.parallel = parallel;
	cfg.part_ops = cfg.part_ops ? cfg.part_ops : 4096;
	cfg.mirror = mirrored ? RXVK_SWITCH_ON : RXVK_SWITCH_OFF;
	struct rxvk *rx = rxt_create(cfg);
	if (cfg.readback_early == RXVK_EARLY_MARKER && !rx->sync2) {
		rxt_destroy_gated(rx);
		printf("skip: the device has no synchronization2 for markers\n");
		exit(77);
	}
	if (mirrored) {
		/* every block written once in place, so the next capture makes
		 * them all active: from then on every write goes to the mirror */
		assert_true(rx->mirrored);
		struct rxvk_op all = rxt_fill(0, rx->guest_size_B, 0);
		submit(rx, &all, 1);
		assert_int_equal(rxvk_finish(rx), 0);
	}
	return rx;
}

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

static struct rxvk_counters counters(struct rxvk *rx)
{
	struct rxvk_counters c;
	rxvk_counters_get(rx, &c);
	return c;
}

static uint32_t word(struct rxvk *rx, uint64_t addr)
{
	return *(volatile uint32_t *)((uint8_t *)rxvk_guest(rx) + addr);
}

static void submit(struct rxvk *rx, const struct rxvk_op *o, size_t n)
{
	if (rxvk_submit(rx, o, n, NULL) != 0)
		fail_msg("rxvk_submit: %s", rxvk_last_error());
}

/* A read of `addr, size` that waits, so the early policy learns the range. */
static void learn(struct rxvk *rx, uint64_t addr, uint64_t size)
{
	size_t n = 0;
	ops[n++] = rxt_spin(addr, 10, 1);
	rxt_gate_arm(rx, (uint32_t)n, true); /* the rest pending until the read waits */
	n += quick_work(ops + n, 20);
	submit(rx, ops, n);
	rxt_gate_submitted(rx);
	struct rxvk_wait w;
	assert_int_equal(rxvk_invalidate(rx, addr, size, &w), 0);
	assert_true(w.waited);
	assert_int_equal(rxvk_finish(rx), 0);
}

/* The marker releases the read at its writer, inside one part that runs on
 * long after it: no part ends for it, as many parts as with no switch. */
static void test_marker__released_at_writer_with_no_part_ended(void **state)
{
	for (unsigned parallel = 1; parallel <= 2; parallel++) {
		struct rxvk *rx = marker_rx(parallel, (struct rxvk_config){ 0 });
		learn(rx, A, 8);
		struct rxvk_counters c0 = counters(rx);
		/* the writer 20 ops into its part, behind a gate the read opens as
		 * it starts to wait; the rest of the part behind a hold the test
		 * opens after checking the release */
		size_t n = filler(ops, 20);
		rxt_gate_arm(rx, (uint32_t)n, true);
		ops[n++] = rxt_spin(A, 10, 2);     /* the writer, 20 ops into its part */
		rxt_gate_hold(rx, (uint32_t)n);
		n += quick_work(ops + n, 40);
		submit(rx, ops, n);
		rxt_gate_submitted(rx);
		struct rxvk_wait w;
		assert_int_equal(rxvk_invalidate(rx, A, 8, &w), 0);
		uint64_t done_at_release = rxvk_timeline_done(rx);
		assert_int_equal(w.what, RXVK_WAIT_MARKER);
		assert_int_equal(w.value, c0.timeline_value + 1); /* the part: the only one */
		assert_int_equal(word(rx, A), 2);
		assert_true(done_at_release < w.value); /* released while its part still ran */
		struct rxvk_counters c1 = counters(rx);
		assert_int_equal(c1.parts - c0.parts, 1);
		assert_int_equal(c1.parts_split_early, c0.parts_split_early);
		assert_int_equal(c1.reads_marker - c0.reads_marker, 1);
		assert_int_equal(c1.reads_early - c0.reads_early, 1);
		assert_int_equal(c1.markers - c0.markers, 1);
		rxt_gate_open(rx); /* the rest of the part may run now */
		if (mirrored) {
			/* A's page written back once, before the marker; the part's
			 * end writes back only the scratch ranges (two runs) */
			assert_int_equal(rxvk_finish(rx), 0);
			c1 = counters(rx);
			assert_int_equal(c1.mirror_writebacks_marker - c0.mirror_writebacks_marker, 1);
			assert_int_equal(c1.mirror_writebacks - c0.mirror_writebacks, 1 + 2);
			assert_int_equal(c1.in_place_writes, c0.in_place_writes);
		}
		rxt_destroy_gated(rx);
	}
	(void)state;
}

/* Rule 1: a read reaching a pending in-place page never tracked waits for
 * the whole submission.  Mirrored, the untracked page is written back at
 * its part's end (no marker before it): the read waits for that part. */
static void test_marker__read_into_untracked_page_falls_back(void **state)
{
	for (unsigned parallel = 1; parallel <= 2; parallel++) {
		struct rxvk *rx = marker_rx(parallel, (struct rxvk_config){ .part_ops = 16 });
		learn(rx, A, 8);
		size_t n = filler(ops, 20);
		ops[n++] = rxt_spin(A, 10, 12);
		ops[n++] = rxt_spin(A + 3 * PAGE, 10, 13);
		rxt_gate_arm(rx, (uint32_t)n, true); /* the rest pending until the read waits */
		n += quick_work(ops + n, 20);
		submit(rx, ops, n);
		rxt_gate_submitted(rx);
		struct rxvk_wait w;
		uint64_t writer_part = counters(rx).timeline_value - 1; /* ops 20, 21 of 42, parts of 16 */
		assert_int_equal(rxvk_invalidate(rx, A, 3 * PAGE + 8, &w), 0);
		if (mirrored) {
			assert_int_equal(w.what, RXVK_WAIT_PART);
			assert_int_equal(w.value, writer_part);
		} else {
			assert_int_equal(w.what, RXVK_WAIT_SUBMISSION);
			assert_int_equal(w.value, counters(rx).timeline_value);
		}
		assert_int_equal(word(rx, A + 3 * PAGE), 13);
		rxt_destroy_gated(rx);
	}
	(void)state;
}

/* Rule 2: two ranges in one page.  A write of the other range's bytes, ~15
 * ms later in the same part, is the page's newest write: the read waits for
 * the marker after it, not the one after the first. */
static void test_marker__two_ranges_in_one_page_cannot_hide_a_later_marker(void **state)
{
	for (unsigned parallel = 1; parallel <= 2; parallel++) {
		struct rxvk *rx = marker_rx(parallel, (struct rxvk_config){ 0 });
		learn(rx, A, 16);
		struct rxvk_counters c0 = counters(rx);
		size_t n = filler(ops, 20);
		ops[n++] = rxt_spin(A, 10, 7);            /* R1's bytes */
		n += quick_work(ops + n, 10);
		rxt_gate_arm(rx, (uint32_t)n, true);     /* R2's writer pending at the read */
		ops[n++] = rxt_spin(A + 2048, 10, 8);     /* R2's bytes, same page */
		rxt_gate_hold(rx, (uint32_t)n);          /* the rest, until checked */
		n += quick_work(ops + n, 20);
		submit(rx, ops, n);
		rxt_gate_submitted(rx);
		struct rxvk_wait w;
		assert_int_equal(rxvk_invalidate(rx, A, 16, &w), 0);
		assert_int_equal(w.what, RXVK_WAIT_MARKER);
		assert_int_equal(word(rx, A + 2048), 8);  /* R2's writer done */
		assert_true(rxvk_timeline_done(rx) < w.value);
		struct rxvk_counters c1 = counters(rx);
		assert_int_equal(c1.reads_marker - c0.reads_marker, 1);
		assert_int_equal(c1.markers - c0.markers, 2);
		assert_int_equal(c1.parts - c0.parts, 1);
		rxt_destroy_gated(rx);
	}
	(void)state;
}

/* Rule 3: mixed sizes.  A small write of A, then ~15 ms later a write over
 * 1 MiB starting at B: the read of A and B waits for the large writer's
 * marker (never the small one's), released by the marker, not the part. */
static void test_marker__mixed_sizes_wait_for_the_large_writer_marker(void **state)
{
	for (unsigned parallel = 1; parallel <= 2; parallel++) {
		struct rxvk *rx = marker_rx(parallel, (struct rxvk_config){ 0 });
		learn(rx, A, 2 * PAGE);
		struct rxvk_op first = rxt_spin(B, 10, 10);
		submit(rx, &first, 1);
		struct rxvk_counters c0 = counters(rx);
		size_t n = filler(ops, 20);
		ops[n++] = rxt_spin(A, 10, 11);                     /* A small */
		n += quick_work(ops + n, 10);
		rxt_gate_arm(rx, (uint32_t)n, true);               /* B's writer pending at the read */
		ops[n++] = rxt_fill(B, MB + MB / 4, 0x0b0b0b0bu);    /* B large */
		rxt_gate_hold(rx, (uint32_t)n);                    /* released by the marker */
		n += quick_work(ops + n, 20);
		submit(rx, ops, n);
		rxt_gate_submitted(rx);
		struct rxvk_wait w;
		assert_int_equal(rxvk_invalidate(rx, A, 2 * PAGE, &w), 0);
		assert_int_equal(w.what, RXVK_WAIT_MARKER);
		assert_int_equal(word(rx, B), 0x0b0b0b0bu);
		assert_int_equal(word(rx, A), 11);
		assert_int_equal(counters(rx).reads_marker - c0.reads_marker, 1);
		rxt_destroy_gated(rx);
	}
	(void)state;
}

/* Rule 4: a range widened over a page the same submission wrote earlier,
 * unseen, falls back to the whole submission (mirrored: to the part whose
 * end writes it back); once seen, the later marker. */
static void test_marker__widened_range_over_unseen_page_falls_back_then_later_marker(void **state)
{
	for (unsigned parallel = 1; parallel <= 2; parallel++) {
		struct rxvk *rx = marker_rx(parallel, (struct rxvk_config){ 0 });
		learn(rx, A, 8);
		size_t n = 0;
		ops[n++] = rxt_spin(B, 10, 3);     /* B, not tracked: unseen */
		n += filler(ops + n, 20);
		ops[n++] = rxt_spin(A, 10, 4);     /* A, tracked */
		rxt_gate_arm(rx, (uint32_t)n, true); /* the rest pending until the read waits */
		n += quick_work(ops + n, 20);
		submit(rx, ops, n);
		rxt_gate_submitted(rx);
		struct rxvk_wait w;
		assert_int_equal(rxvk_invalidate(rx, A, PAGE + 8, &w), 0);
		assert_int_equal(w.what, mirrored ? RXVK_WAIT_PART : RXVK_WAIT_SUBMISSION);
		assert_int_equal(w.value, counters(rx).timeline_value);
		assert_int_equal(word(rx, B), 3);
		/* the widened range is now tracked: B written later is seen */
		n = filler(ops, 20);
		ops[n++] = rxt_spin(A, 10, 6);
		n += quick_work(ops + n, 10);
		rxt_gate_arm(rx, (uint32_t)n, true);  /* B's writer pending at the read */
		ops[n++] = rxt_spin(B, 10, 5);
		n += quick_work(ops + n, 20);
		submit(rx, ops, n);
		rxt_gate_submitted(rx);
		assert_int_equal(rxvk_invalidate(rx, A, PAGE + 8, &w), 0);
		assert_int_equal(w.what, RXVK_WAIT_MARKER);
		assert_int_equal(word(rx, A), 6);
		assert_int_equal(word(rx, B), 5);
		rxt_destroy_gated(rx);
	}
	(void)state;
}

static int fresh_log(void **state)
{
	(void)state;
	rxt_fresh_log(log_path);
	return 0;
}

/* Rule 5: the late rule is decided before any diagnostic or marker wait. */
static void test_marker__late_read_at_once_even_with_writers_diagnostics(void **state)
{
	for (unsigned parallel = 1; parallel <= 2; parallel++) {
		struct rxvk *rx = marker_rx(parallel, (struct rxvk_config){ .readback_late = RXVK_LATE_NEWEST,
		                                                            .log_rb_writers = RXVK_SWITCH_ON,
		                                                            .log_path = log_path });
		/* learnt from a read of an older submission's write (not late),
		 * still running when it is read */
		size_t n = 0;
		ops[n++] = rxt_spin(A, 10, 1);
		rxt_gate_arm(rx, (uint32_t)n, true); /* the rest pending until the read waits */
		n += quick_work(ops + n, 40);
		submit(rx, ops, n);
		rxt_gate_submitted(rx);
		submit(rx, ops + 1, 1);
		struct rxvk_wait w;
		assert_int_equal(rxvk_invalidate(rx, A, 8, &w), 0);
		assert_int_not_equal(w.what, RXVK_WAIT_LATE);
		assert_int_equal(counters(rx).early_ranges, 1);
		assert_int_equal(rxvk_finish(rx), 0);
		n = filler(ops, 4);
		ops[n++] = rxt_spin(A, 10, 20);
		rxt_gate_arm(rx, (uint32_t)n, true); /* the rest pending until the read waits */
		n += quick_work(ops + n, 20);
		submit(rx, ops, n);
		rxt_gate_submitted(rx);
		uint64_t last = counters(rx).timeline_value;
		assert_int_equal(rxvk_invalidate(rx, A, 8, &w), 0);
		assert_int_equal(w.what, RXVK_WAIT_LATE);
		assert_false(w.waited);
		assert_true(rxvk_timeline_done(rx) < last);
		rxt_destroy_gated(rx);
	}
	(void)state;
}

/* Rule 6 and the writers' diagnostics after the late rule: every read that
 * waits is listed (its last writer in the awaited part included), and the
 * span a burst's recording closes is the one logged. */
static void test_marker__diagnostics_list_every_waiting_read_with_its_span(void **state)
{
	for (unsigned parallel = 1; parallel <= 2; parallel++) {
		fresh_log(NULL);
		struct rxvk *rx = marker_rx(parallel, (struct rxvk_config){ .log_rb_writers = RXVK_SWITCH_ON,
		                                                            .part_ops = 20,
		                                                            .log_path = log_path });
		learn(rx, A, 8);
		/* the writer in the last part, behind 43 spins: still to run when
		 * the burst's recording ends (the diagnostics wait for that) */
		static struct rxvk_op a[3], b[45];
		filler(a, 3);
		long_work(b, 43);
		b[43] = rxt_spin(A, LONG, 40);
		long_work(b + 44, 1);
		struct rxvk_stream_sub burst[2] = { { a, 3 }, { b, 45 } };
		uint64_t before = counters(rx).timeline_value, last_sub;
		assert_int_equal(rxvk_submit_burst(rx, burst, 2, &last_sub), 0);
		uint64_t end = counters(rx).timeline_value;
		assert_int_equal(end, before + 1 + 3);
		struct rxvk_wait w;
		assert_int_equal(rxvk_invalidate(rx, A, 8, &w), 0);
		assert_int_equal(w.what, RXVK_WAIT_MARKER);
		assert_int_equal(w.value, end); /* the writer's part, the burst's last */
		assert_int_equal(word(rx, A), 40);
		rxt_destroy_gated(rx);
		char want[160];
		snprintf(want, sizeof want, "op 43 of 45 in submission %llu), first dispatch",
		         (unsigned long long)last_sub);
		if (!strstr(rxt_read_log(log_path), want))
			fail_msg("log lacks '%s':\n%s", want, rxt_read_log(log_path));
		snprintf(want, sizeof want, "the submission's parts %llu..%llu;",
		         (unsigned long long)before + 2, (unsigned long long)end);
		if (!strstr(rxt_read_log(log_path), want))
			fail_msg("log lacks '%s':\n%s", want, rxt_read_log(log_path));
	}
	(void)state;
}

/* With RX_VK_PARALLEL >= 2 the switch is not left off. */
static void test_marker__parallel_not_left_off(void **state)
{
	fresh_log(NULL);
	struct rxvk *rx = marker_rx(3, (struct rxvk_config){ .log_path = log_path });
	learn(rx, A, 8);
	assert_int_equal(counters(rx).early_ranges, 1);
	rxt_destroy_gated(rx);
	assert_null(strstr(rxt_read_log(log_path), "left off"));
	(void)state;
}

/* ---- a read does not wait for the rest of its submission's recording ---- */

struct slow {
	struct rxvk *rx;
	size_t n;
	int rc;
};

static void *slow_submit(void *arg)
{
	struct slow *s = arg;
	s->rc = rxvk_submit(s->rx, ops, s->n, NULL);
	return NULL;
}

/* The writer's part is submitted after 8 ops; the recording then stops
 * after op 8 until the test lets it go (a test hook; 30 s at most), so it
 * is provably still going on when the read looks.  The read is released
 * at the writer's part (or marker) while the submission is still being
 * recorded; a read that waited for the recording's end would be released
 * only once the hook gives up, and fail. */
static void released_while_recording(enum rxvk_early mode, unsigned parallel)
{
	struct rxvk *rx = marker_rx(parallel, (struct rxvk_config){ .readback_early = mode,
	                                                            .readback_early_gap = 4,
	                                                            .part_ops = 8 });
	learn(rx, A, 8);
	struct rxvk_counters c0 = counters(rx);
	size_t n = filler(ops, 2);
	ops[n++] = rxt_spin(A, 10, 77);
	n += filler(ops + n, 65);
	rx->test.hold_after_op = 8 + 1;
	__atomic_store_n(&rx->test.hold_recording, true, __ATOMIC_RELEASE);
	struct slow s = { rx, n, 0 };
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, slow_submit, &s), 0);
	while (counters(rx).parts == c0.parts)
		usleep(200);
	struct rxvk_wait w;
	assert_int_equal(rxvk_invalidate(rx, A, 8, &w), 0);
	pthread_mutex_lock(&rx->lock);
	uint64_t sub = rx->sub_count;
	bool recording = rx->subs[sub % SUB_RING].id == sub && rx->subs[sub % SUB_RING].last_value == 0;
	pthread_mutex_unlock(&rx->lock);
	assert_int_equal(word(rx, A), 77);
	assert_int_equal(w.what, mode == RXVK_EARLY_MARKER ? RXVK_WAIT_MARKER : RXVK_WAIT_PART);
	assert_int_equal(w.value, c0.timeline_value + 1);
	__atomic_store_n(&rx->test.hold_recording, false, __ATOMIC_RELEASE);
	if (!recording)
		fail_msg("the read was released only after the submission's recording ended");
	pthread_join(t, NULL);
	assert_int_equal(s.rc, 0);
	rx->test.hold_after_op = 0;
	rxt_destroy_gated(rx);
}

static void test_early__read_released_while_the_rest_still_records(void **state)
{
	if (!mirrored) /* `1` stays idle with only mirrored pages (test-rxvk-readback) */
		released_while_recording(RXVK_EARLY_PART, 1);
	released_while_recording(RXVK_EARLY_MARKER, 1);
	released_while_recording(RXVK_EARLY_MARKER, 2);
	(void)state;
}

int main(void)
{
	/* the validation layer's synchronization validation on every device
	 * this test makes (rxt_create turns the layer on) */
	setenv("VK_LAYER_ENABLES", "VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT", 1);
	rxt_require_vulkan();
	int fd = mkstemp(log_path);
	if (fd < 0)
		return 1;
	close(fd);
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_marker__released_at_writer_with_no_part_ended),
		cmocka_unit_test(test_marker__read_into_untracked_page_falls_back),
		cmocka_unit_test(test_marker__two_ranges_in_one_page_cannot_hide_a_later_marker),
		cmocka_unit_test(test_marker__mixed_sizes_wait_for_the_large_writer_marker),
		cmocka_unit_test(test_marker__widened_range_over_unseen_page_falls_back_then_later_marker),
		cmocka_unit_test_setup(test_marker__late_read_at_once_even_with_writers_diagnostics, fresh_log),
		cmocka_unit_test(test_marker__diagnostics_list_every_waiting_read_with_its_span),
		cmocka_unit_test(test_marker__parallel_not_left_off),
		cmocka_unit_test(test_early__read_released_while_the_rest_still_records),
	};
	mirrored = false;
	int rc = cmocka_run_group_tests_name("in place", tests, NULL, NULL);
	mirrored = true;
	rc |= cmocka_run_group_tests_name("mirrored", tests, NULL, NULL);
	unlink(log_path);
	return rc;
}
