/* test-rxvk-hold: frames switched from are kept on the device until read
 * (DESIGN.md 3.3, renderer/src/hold.c) on lavapipe with the validation
 * layer on: kept at a switch and found in the target's byte order by the
 * first touch, written at once at later switches of a target read before,
 * superseded by a later draw, dropped by a covering fill, carried out by a
 * partial fill, a copy, a texture and rxvk_invalidate, touched from another
 * thread while the render thread records, RX_VK_HOLD_SWITCHED=0, and the
 * SIGSEGV handler leaving every other fault as it was.
 *
 * On a CPU device a target's first frame is written at once (its load from
 * guest memory is in the same part), so each test draws a warm-up frame. */
#include "rxvk-test.h"
#include "private.h"
#include "hold.h"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MB      (1ull << 20)
#define TEX     (2 * MB)  /* texels, one a page */
#define A_ADDR  (4 * MB)  /* the target switched from */
#define B_ADDR  (6 * MB)  /* the target switched to */
#define C_ADDR  (8 * MB)  /* a copy's destination */
#define D_ADDR  (10 * MB) /* a target sampling A */
#define SCRATCH (12 * MB)
#define W       64u
#define H       48u
#define FRAME_B (W * H * 4u)

static uint8_t *guest(struct rxvk *rx)
{
	return rxvk_guest(rx);
}

/* Whether the byte at addr faults (its page is guarded), asked without
 * touching it: process_vm_readv answers EFAULT instead of a signal. */
static bool guarded(struct rxvk *rx, uint64_t addr)
{
	char c;
	struct iovec local = {&c, 1}, remote = {guest(rx) + addr, 1};
	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != 1;
}

/* Texel `slot` (its own page): bytes R, G, B, A of colour 0xAABBGGRR. */
static void texel(struct rxvk *rx, unsigned slot, uint32_t rgba)
{
	uint64_t at = TEX + (uint64_t)slot * RXVK_PAGE_SIZE_B;
	memcpy(guest(rx) + at, &rgba, 4);
	assert_int_equal(rxvk_cpu_wrote(rx, at, 4), 0);
}

/* A draw covering the whole current target with texel `slot`. */
static struct rxvk_op paint(unsigned slot)
{
	return (struct rxvk_op){.kind = RXVK_OP_DRAW,
	                        .count = 1,
	                        .program = RXVK_PROGRAM_TEXTURED,
	                        .read = {{TEX + (uint64_t)slot * RXVK_PAGE_SIZE_B, 4}},
	                        .params = {1, 1, 4, RXVK_FORMAT_RGBA8, 0, 0, 0}};
}

static struct rxvk_op target(uint64_t addr, enum rxvk_format f)
{
	return rxt_target(addr, W, H, f);
}

static void submit(struct rxvk *rx, const struct rxvk_op *ops, size_t n)
{
	if (rxvk_submit(rx, ops, n, NULL) != 0)
		fail_msg("rxvk_submit: %s", rxvk_last_error());
}

/* Draws colour `rgba` into A (format f), then into B of format `to`: A's
 * frame is let go of at the switch (to depth alone, or to a colour target,
 * whose own frame is let go of at the next switch back to A). */
static void frame_switch_to(struct rxvk *rx, enum rxvk_format f, uint32_t rgba, unsigned slot,
                            enum rxvk_format to)
{
	texel(rx, slot, rgba);
	texel(rx, 63, 0xff808080u);
	struct rxvk_op ops[] = {target(A_ADDR, f), paint(slot), target(B_ADDR, to), paint(63)};
	submit(rx, ops, 4);
}

static void frame_then_switch(struct rxvk *rx, enum rxvk_format f, uint32_t rgba, unsigned slot)
{
	frame_switch_to(rx, f, rgba, slot, RXVK_FORMAT_DEPTH);
}

/* The bytes of colour 0xAABBGGRR in a target of format f. */
static void expect_pixel(const uint8_t *px, enum rxvk_format f, uint32_t rgba, uint64_t where)
{
	uint8_t r = rgba & 0xff, g = (rgba >> 8) & 0xff, b = (rgba >> 16) & 0xff, a = rgba >> 24;
	uint8_t want[4] = {r, g, b, a};
	if (f == RXVK_FORMAT_BGRA8) {
		want[0] = b;
		want[2] = r;
	}
	if (memcmp(px, want, 4) != 0)
		fail_msg("pixel at 0x%llx: %02x %02x %02x %02x, want %02x %02x %02x %02x",
		         (unsigned long long)where, px[0], px[1], px[2], px[3], want[0], want[1],
		         want[2], want[3]);
}

/* Reads every pixel of the W x H frame at addr straight from guest memory
 * (a touch, when it is held) and compares it with one colour. */
static void expect_frame(struct rxvk *rx, uint64_t addr, enum rxvk_format f, uint32_t rgba)
{
	for (uint64_t i = 0; i < W * H; i++)
		expect_pixel(guest(rx) + addr + i * 4, f, rgba, addr + i * 4);
}

/* The test runner replaces the SIGSEGV handler for each test (to report
 * crashes): the guard handler goes back in front of it. */
static struct rxvk *create(struct rxvk_config cfg)
{
	struct rxvk *rx = rxt_create(cfg);
	assert_int_equal(rxvk_hold_handler_install(), 0);
	return rx;
}

static struct rxvk_counters counters(struct rxvk *rx)
{
	struct rxvk_counters c;
	rxvk_counters_get(rx, &c);
	return c;
}

/* A renderer whose A has had its first frame, and nothing held: on a CPU
 * device that frame is written at once (its load is in the same part),
 * elsewhere it is held, and a covering fill drops it. */
static struct rxvk *warm(struct rxvk_config cfg, enum rxvk_format f)
{
	struct rxvk *rx = create(cfg);
	frame_then_switch(rx, f, 0xff000000u, 0);
	struct rxvk_op clear = rxt_fill(A_ADDR, FRAME_B, 0);
	submit(rx, &clear, 1);
	assert_int_equal(rxvk_finish(rx), 0);
	assert_false(guarded(rx, A_ADDR));
	return rx;
}

static bool cpu_device(struct rxvk *rx)
{
	struct rxvk_device_info info;
	rxvk_device_info_get(rx, &info);
	return info.cpu;
}

static void
test_hold__a_frame_switched_from_is_kept_until_read_then_written_at_the_switch(void **state)
{
	/* RGBA8 switching to a colour target, BGRA8 to depth alone */
	for (int f = RXVK_FORMAT_RGBA8; f <= RXVK_FORMAT_BGRA8; f++) {
		enum rxvk_format to =
		        f == RXVK_FORMAT_RGBA8 ? RXVK_FORMAT_RGBA8 : RXVK_FORMAT_DEPTH;
		bool colour = to != RXVK_FORMAT_DEPTH;
		struct rxvk *rx = create((struct rxvk_config){0});
		frame_switch_to(rx, (enum rxvk_format)f, 0xff000000u, 0,
		                to); /* A's and B's first frames */
		assert_int_equal(rxvk_finish(rx), 0);
		struct rxvk_counters c0 = counters(rx);
		frame_switch_to(rx, (enum rxvk_format)f, 0xff30a0f0u, 1, to);
		assert_int_equal(rxvk_finish(rx), 0);
		struct rxvk_counters c1 = counters(rx);
		/* kept: no write-back at the switch, the pages guarded (a colour
		 * B's frame is let go of, and kept, at the switch back to A) */
		assert_int_equal(c1.frames_held - c0.frames_held, colour ? 2 : 1);
		assert_int_equal(c1.target_writebacks, c0.target_writebacks);
		assert_int_equal(c1.frames_written_at_once, c0.frames_written_at_once);
		assert_true(guarded(rx, A_ADDR));
		assert_true(guarded(rx, A_ADDR + FRAME_B - 1));
		if (!colour)
			assert_false(guarded(rx, B_ADDR));
		/* the first read finds it, in the target's byte order */
		expect_frame(rx, A_ADDR, (enum rxvk_format)f, 0xff30a0f0u);
		struct rxvk_counters c2 = counters(rx);
		assert_int_equal(c2.frames_carried_touch - c1.frames_carried_touch, 1);
		assert_int_equal(c2.target_writebacks - c1.target_writebacks, 1);
		assert_false(guarded(rx, A_ADDR));
		/* read once: at the next switch the target is written at once */
		frame_switch_to(rx, (enum rxvk_format)f, 0xff102030u, 2, to);
		assert_int_equal(rxvk_finish(rx), 0);
		struct rxvk_counters c3 = counters(rx);
		assert_int_equal(c3.frames_held - c2.frames_held,
		                 colour ? 1 : 0); /* B's, superseding */
		assert_int_equal(c3.frames_superseded - c2.frames_superseded, colour ? 1 : 0);
		assert_int_equal(c3.frames_written_at_once - c2.frames_written_at_once, 1);
		assert_int_equal(c3.target_writebacks - c2.target_writebacks, 1);
		assert_false(guarded(rx, A_ADDR));
		expect_frame(rx, A_ADDR, (enum rxvk_format)f, 0xff102030u);
		assert_int_equal(counters(rx).frames_carried_touch, c3.frames_carried_touch);
		rxt_destroy(rx);
	}
	(void)state;
}

/* A draw of texel `slot` over rows [y0, y0 + rows) of the current target. */
static struct rxvk_op paint_rows(unsigned slot, uint32_t y0, uint32_t rows)
{
	struct rxvk_op op = paint(slot);
	op.params[5] = y0 << 16;
	op.params[6] = W | (rows << 16);
	return op;
}

/* rxvk_cpu_wrote into a colour target's memory: the CPU paints a row green
 * over a red frame; a partial draw (blue, the top half) and its write-back
 * keep the green row, in place and in the mirror, holding on and off. */
static void test_cpu_wrote__row_painted_by_the_cpu_survives_a_partial_draw(void **state)
{
	const uint32_t red = 0xff0000ffu, green = 0xff00ff00u, blue = 0xffff0000u;
	const uint32_t row = 40;
	for (int mode = 0; mode < 4; mode++) {
		bool mirrored = mode & 1, hold = mode & 2;
		struct rxvk *rx = create((struct rxvk_config){
		        .mirror = mirrored ? RXVK_SWITCH_ON : RXVK_SWITCH_OFF,
		        .hold_switched = hold ? RXVK_SWITCH_ON : RXVK_SWITCH_OFF});
		frame_then_switch(rx, RXVK_FORMAT_RGBA8, red, 0);
		assert_int_equal(rxvk_finish(rx), 0);
		/* a second red frame, so the target's image is warm and valid */
		frame_then_switch(rx, RXVK_FORMAT_RGBA8, red, 1);
		assert_int_equal(rxvk_finish(rx), 0);
		expect_frame(rx, A_ADDR, RXVK_FORMAT_RGBA8, red);
		struct rxvk_counters c0 = counters(rx);
		for (uint32_t x = 0; x < W; x++)
			memcpy(guest(rx) + A_ADDR + ((uint64_t)row * W + x) * 4, &green, 4);
		assert_int_equal(rxvk_cpu_wrote(rx, A_ADDR + (uint64_t)row * W * 4, W * 4), 0);
		texel(rx, 2, blue);
		struct rxvk_op ops[] = {target(A_ADDR, RXVK_FORMAT_RGBA8), paint_rows(2, 0, H / 2),
		                        target(B_ADDR, RXVK_FORMAT_DEPTH)};
		submit(rx, ops, 3);
		assert_int_equal(rxvk_finish(rx), 0);
		for (uint32_t y = 0; y < H; y++)
			for (uint32_t x = 0; x < W; x++) {
				uint64_t at = A_ADDR + ((uint64_t)y * W + x) * 4;
				expect_pixel(guest(rx) + at, RXVK_FORMAT_RGBA8,
				             y < H / 2 ? blue : y == row ? green : red, at);
			}
		struct rxvk_counters c1 = counters(rx);
		assert_int_equal(c1.targets_cpu_stale - c0.targets_cpu_stale, 1);
		assert_true(c1.target_loads > c0.target_loads);
		rxt_destroy(rx);
	}
	(void)state;
}

static char log_path[] = "/tmp/rxvk-hold-log-XXXXXX";

/* A frame switched from, held or not, read back right: holding on with the
 * guest memory imported and allocated. */
static void hold_round_trip(struct rxvk *rx)
{
	frame_switch_to(rx, RXVK_FORMAT_RGBA8, 0xff000000u, 0, RXVK_FORMAT_DEPTH);
	assert_int_equal(rxvk_finish(rx), 0);
	frame_switch_to(rx, RXVK_FORMAT_RGBA8, 0xff30a0f0u, 1, RXVK_FORMAT_DEPTH);
	assert_int_equal(rxvk_finish(rx), 0);
	expect_frame(rx, A_ADDR, RXVK_FORMAT_RGBA8, 0xff30a0f0u);
}

static void test_hold__both_import_modes(void **state)
{
	for (int import = 0; import < 2; import++) {
		struct rxvk *rx = create((struct rxvk_config){
		        .import_host = import ? RXVK_SWITCH_ON : RXVK_SWITCH_OFF,
		        .hold_switched = RXVK_SWITCH_ON});
		struct rxvk_device_info info;
		rxvk_device_info_get(rx, &info);
		if (!import)
			assert_false(info.host_import);
		hold_round_trip(rx);
		assert_true(counters(rx).frames_held > 0);
		rxt_destroy(rx);
	}
	(void)state;
}

/* The import self-test for holding (a GPU runs it; the hook runs it here):
 * passed, the import is kept; failed by its bytes or its time, guest
 * memory is allocated from the driver instead, logged, and holding works
 * on it.  The time is the hook's here ("slow"): on a CPU device a fill's
 * time is the machine's load, and a loaded run once failed the passing
 * case by it. */
static void test_import__self_test_keeps_the_import_or_allocates(void **state)
{
	/* the hook's value, and the failure the log must say (NULL: passed) */
	static const struct {
		const char *hook, *failed;
	} modes[] = {
		{ "run", NULL },
		{ "fail", "the import self-test for holding failed (its fill did not reach the imported pages): "
		          "guest memory is a mapped allocation from the driver" },
		{ "slow", "the import self-test for holding failed (its submission took " },
	};
	for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
		FILE *f = fopen(log_path, "w");
		if (f)
			fclose(f);
		setenv("RXVK_TEST_IMPORT_SELF_TEST", modes[m].hook, 1);
		struct rxvk *rx = create((struct rxvk_config){ .import_host = RXVK_SWITCH_ON,
		                                               .hold_switched = RXVK_SWITCH_ON,
		                                               .log_path = log_path });
		unsetenv("RXVK_TEST_IMPORT_SELF_TEST");
		struct rxvk_device_info info;
		rxvk_device_info_get(rx, &info);
		hold_round_trip(rx);
		rxt_destroy(rx);
		const char *log = rxt_read_log(log_path);
		if (modes[m].failed) {
			assert_false(info.host_import);
			if (!strstr(log, modes[m].failed) || !strstr(log, "mapped device allocation"))
				fail_msg("log lacks the failed self-test (%s):\n%s", modes[m].hook, log);
		} else {
			if (!info.host_import)
				fail_msg("the self-test did not keep the import:\n%s", log);
			if (!strstr(log, "the import self-test for holding passed") ||
			    !strstr(log, "imported host memory"))
				fail_msg("log lacks the passed self-test:\n%s", log);
		}
	}
	(void)state;
}

/* A frame drawn in a part that ran, held in the next part whose recording
 * fails (its snapshot copy never ran): its pages are opened, and its target
 * lets go of it again at the next submission, so the first read finds the
 * frame. */
static void test_rollback__held_frame_let_go_again_after_a_failed_part(void **state)
{
	struct rxvk *rx = warm((struct rxvk_config){ .hold_switched = RXVK_SWITCH_ON, .part_ops = 2 },
	                       RXVK_FORMAT_RGBA8);
	texel(rx, 5, 0xff2040c0u);
	texel(rx, 63, 0xff808080u);
	struct rxvk_counters c0 = counters(rx);
	struct rxvk_op ops[] = { target(A_ADDR, RXVK_FORMAT_RGBA8), paint(5), target(B_ADDR, RXVK_FORMAT_DEPTH),
		                 rxt_fill(SCRATCH, 64, 0) };
	rx->test.fail_op = 4; /* op 3: part 2, after the let-go at the switch */
	assert_true(rxvk_submit(rx, ops, 4, NULL) < 0);
	rx->test.fail_op = 0;
	struct rxvk_counters c1 = counters(rx);
	assert_int_equal(c1.frames_held - c0.frames_held, 1);
	assert_true(c1.parts_failed > c0.parts_failed);
	assert_false(guarded(rx, A_ADDR));
	struct rxvk_op next = rxt_fill(SCRATCH + 4096, 64, 0);
	submit(rx, &next, 1);
	assert_int_equal(rxvk_finish(rx), 0);
	expect_frame(rx, A_ADDR, RXVK_FORMAT_RGBA8, 0xff2040c0u);
	rxt_destroy(rx);
	(void)state;
}

/* Guarding waits for the submitted parts that still touch the pages: a
 * submission copies A after long spins, the next one lets go of A.  On a
 * CPU device the device itself would fault on the guard, stall (5 s) and
 * log `hold: error`; the let-go must wait for the copy instead.  Fails on
 * that line.  (No time is asserted: the spins' own time is the machine's
 * load, and the stall rule's line is what a fault on the guard leaves.) */
static void test_hold__guard_waits_for_a_submitted_part_still_touching_the_pages(void **state)
{
	rxt_fresh_log(log_path);
	struct rxvk *rx = warm((struct rxvk_config){ .log_path = log_path }, RXVK_FORMAT_RGBA8);
	if (!cpu_device(rx)) {
		rxt_destroy(rx);
		skip(); /* a GPU does not fault on the host's page tables */
	}
	texel(rx, 7, 0xff3060a0u);
	struct rxvk_op busy[12];
	size_t n = rxt_work(busy, 10, SCRATCH, 10000000u);
	busy[n++] = rxt_copy(A_ADDR, C_ADDR, FRAME_B); /* reads A late in its part */
	submit(rx, busy, n);
	struct rxvk_counters c0 = counters(rx);
	struct rxvk_op ops[] = { target(A_ADDR, RXVK_FORMAT_RGBA8), paint(7), target(B_ADDR, RXVK_FORMAT_DEPTH) };
	submit(rx, ops, 3);
	assert_int_equal(rxvk_finish(rx), 0);
	assert_int_equal(counters(rx).frames_held - c0.frames_held, 1);
	assert_true(guarded(rx, A_ADDR));
	const char *log = rxt_read_log(log_path);
	if (strstr(log, "hold: error"))
		fail_msg("the guard stalled the device:\n%s", log);
	/* the copy read A before the guard: the warm-up's fill (zeros) */
	assert_int_equal(rxvk_invalidate(rx, C_ADDR, FRAME_B, NULL), 0);
	expect_frame(rx, C_ADDR, RXVK_FORMAT_RGBA8, 0);
	expect_frame(rx, A_ADDR, RXVK_FORMAT_RGBA8, 0xff3060a0u);
	rxt_destroy(rx);
	(void)state;
}

/* A frame let go of and read in the same part: the copy reading it is
 * preceded, in the part's own stream, by the write of the held frame from
 * its snapshot (no carry-out thread, no wait). */
static void test_hold__read_in_the_same_part_is_carried_out_in_stream(void **state)
{
	struct rxvk *rx = warm((struct rxvk_config){ 0 }, RXVK_FORMAT_RGBA8);
	texel(rx, 6, 0xff10e020u);
	struct rxvk_counters c0 = counters(rx);
	struct rxvk_op ops[] = { target(A_ADDR, RXVK_FORMAT_RGBA8), paint(6), target(B_ADDR, RXVK_FORMAT_DEPTH),
		                 rxt_copy(A_ADDR, C_ADDR, FRAME_B) };
	submit(rx, ops, 4);
	struct rxvk_counters c1 = counters(rx);
	assert_int_equal(c1.parts - c0.parts, 1); /* one part: let-go and copy together */
	assert_int_equal(c1.frames_held - c0.frames_held, 1);
	assert_int_equal(c1.frames_carried_op - c0.frames_carried_op, 1);
	assert_int_equal(rxvk_invalidate(rx, C_ADDR, FRAME_B, NULL), 0);
	expect_frame(rx, C_ADDR, RXVK_FORMAT_RGBA8, 0xff10e020u);
	expect_frame(rx, A_ADDR, RXVK_FORMAT_RGBA8, 0xff10e020u);
	assert_int_equal(counters(rx).frames_carried_touch, c1.frames_carried_touch);
	rxt_destroy(rx);
	(void)state;
}

static void test_hold__later_draw_supersedes_the_held_copy_unread(void **state)
{
	struct rxvk *rx = warm((struct rxvk_config){0}, RXVK_FORMAT_RGBA8);
	struct rxvk_counters c0 = counters(rx);
	frame_then_switch(rx, RXVK_FORMAT_RGBA8, 0xff0000ffu, 1);
	frame_then_switch(rx, RXVK_FORMAT_RGBA8, 0xff00ff00u, 2);
	assert_int_equal(rxvk_finish(rx), 0);
	struct rxvk_counters c1 = counters(rx);
	assert_int_equal(c1.frames_held - c0.frames_held, 2);
	assert_int_equal(c1.frames_superseded - c0.frames_superseded, 1);
	assert_int_equal(c1.target_writebacks, c0.target_writebacks);
	assert_true(guarded(rx, A_ADDR));
	/* memory shows the newer frame; the older copy never went out */
	expect_frame(rx, A_ADDR, RXVK_FORMAT_RGBA8, 0xff00ff00u);
	struct rxvk_counters c2 = counters(rx);
	assert_int_equal(c2.frames_carried_touch - c0.frames_carried_touch, 1);
	assert_int_equal(c2.frames_carried_op, c0.frames_carried_op);
	assert_int_equal(c2.target_writebacks - c0.target_writebacks, 1);
	rxt_destroy(rx);
	(void)state;
}

static void test_hold__covering_fill_drops_it_and_partial_fill_carries_it_out(void **state)
{
	struct rxvk *rx = warm((struct rxvk_config){0}, RXVK_FORMAT_RGBA8);
	/* a fill over the whole target, in a later submission: dropped */
	frame_then_switch(rx, RXVK_FORMAT_RGBA8, 0xff0000ffu, 1);
	assert_int_equal(rxvk_finish(rx), 0);
	struct rxvk_counters c0 = counters(rx);
	struct rxvk_op fill = rxt_fill(A_ADDR, FRAME_B, 0x44332211u);
	submit(rx, &fill, 1);
	assert_int_equal(rxvk_invalidate(rx, A_ADDR, FRAME_B, NULL), 0);
	struct rxvk_counters c1 = counters(rx);
	assert_int_equal(c1.frames_dropped - c0.frames_dropped, 1);
	assert_int_equal(c1.frames_carried_op + c1.frames_carried_touch,
	                 c0.frames_carried_op + c0.frames_carried_touch);
	assert_false(guarded(rx, A_ADDR));
	expect_frame(rx, A_ADDR, RXVK_FORMAT_RGBA8, 0x44332211u);

	/* in the submission that let it go: dropped too */
	texel(rx, 2, 0xff00ff00u);
	struct rxvk_op same[] = {target(A_ADDR, RXVK_FORMAT_RGBA8), paint(2),
	                         target(B_ADDR, RXVK_FORMAT_DEPTH), paint(63),
	                         rxt_fill(A_ADDR, FRAME_B, 0x88776655u)};
	submit(rx, same, 5);
	assert_int_equal(rxvk_invalidate(rx, A_ADDR, FRAME_B, NULL), 0);
	struct rxvk_counters c2 = counters(rx);
	assert_int_equal(c2.frames_dropped - c1.frames_dropped, 1);
	assert_int_equal(c2.frames_held - c1.frames_held, 1);
	expect_frame(rx, A_ADDR, RXVK_FORMAT_RGBA8, 0x88776655u);

	/* a fill over its first half: carried out first, the rest is the frame */
	frame_then_switch(rx, RXVK_FORMAT_RGBA8, 0xffff0000u, 3);
	assert_int_equal(rxvk_finish(rx), 0);
	struct rxvk_counters c3 = counters(rx);
	assert_int_equal(c3.frames_held - c2.frames_held, 1);
	struct rxvk_op half = rxt_fill(A_ADDR, FRAME_B / 2, 0x01020304u);
	submit(rx, &half, 1);
	assert_int_equal(rxvk_invalidate(rx, A_ADDR, FRAME_B, NULL), 0);
	struct rxvk_counters c4 = counters(rx);
	assert_int_equal(c4.frames_carried_op - c3.frames_carried_op, 1);
	assert_int_equal(c4.frames_dropped, c3.frames_dropped);
	for (uint64_t i = 0; i < W * H; i++)
		expect_pixel(guest(rx) + A_ADDR + i * 4, RXVK_FORMAT_RGBA8,
		             i < W * H / 2 ? 0x01020304u : 0xffff0000u, A_ADDR + i * 4);
	rxt_destroy(rx);
	(void)state;
}

static void test_hold__copy_reading_it_carries_it_out_before_the_copy(void **state)
{
	for (int mirrored = 0; mirrored < 2; mirrored++) {
		/* mirrored on a CPU device, a frame is held only in active blocks
		 * and out of the part with its submission's capture: parts of 2 */
		struct rxvk *rx = warm(
		        (struct rxvk_config){.mirror = mirrored ? RXVK_SWITCH_ON : RXVK_SWITCH_OFF,
		                             .part_ops = mirrored ? 2 : 0},
		        RXVK_FORMAT_BGRA8);
		/* mirrored: the first frames activate A's mirror blocks */
		frame_then_switch(rx, RXVK_FORMAT_BGRA8, 0xff000001u, 4);
		assert_int_equal(rxvk_finish(rx), 0);
		frame_then_switch(rx, RXVK_FORMAT_BGRA8, 0xff000002u, 5);
		assert_int_equal(rxvk_finish(rx), 0);
		struct rxvk_counters c0 = counters(rx);
		frame_then_switch(rx, RXVK_FORMAT_BGRA8, 0xff4080c0u, 1);
		assert_int_equal(rxvk_finish(rx), 0);
		struct rxvk_counters c1 = counters(rx);
		assert_int_equal(c1.frames_held - c0.frames_held, 1);
		assert_true(guarded(rx, A_ADDR));
		struct rxvk_op copy = rxt_copy(A_ADDR, C_ADDR, FRAME_B);
		submit(rx, &copy, 1);
		assert_int_equal(rxvk_invalidate(rx, C_ADDR, FRAME_B, NULL), 0);
		struct rxvk_counters c2 = counters(rx);
		assert_int_equal(c2.frames_carried_op - c1.frames_carried_op, 1);
		assert_int_equal(c2.frames_carried_touch, c1.frames_carried_touch);
		expect_frame(rx, C_ADDR, RXVK_FORMAT_BGRA8, 0xff4080c0u);
		expect_frame(rx, A_ADDR, RXVK_FORMAT_BGRA8, 0xff4080c0u);
		if (mirrored)
			assert_true(counters(rx).mirror_blocks > 0 || !cpu_device(rx));
		rxt_destroy(rx);
	}
	(void)state;
}

static void test_hold__texture_and_invalidate_carry_it_out(void **state)
{
	struct rxvk *rx = warm((struct rxvk_config){0}, RXVK_FORMAT_RGBA8);
	/* a texture sourced from A's memory */
	frame_then_switch(rx, RXVK_FORMAT_RGBA8, 0xff2080e0u, 1);
	assert_int_equal(rxvk_finish(rx), 0);
	struct rxvk_counters c0 = counters(rx);
	struct rxvk_op sample[] = {
	        target(D_ADDR, RXVK_FORMAT_RGBA8),
	        {.kind = RXVK_OP_DRAW,
	         .count = 1,
	         .program = RXVK_PROGRAM_TEXTURED,
	         .read = {{A_ADDR, FRAME_B}},
	         .params = {W, H, W * 4, RXVK_FORMAT_RGBA8, 0, 0, 0}},
	        rxt_flip(),
	};
	submit(rx, sample, 3);
	struct rxvk_counters c1 = counters(rx);
	assert_int_equal(c1.frames_carried_op - c0.frames_carried_op, 1);
	assert_false(guarded(rx, A_ADDR));
	/* D's own frame, let go of at its flip, may be held too */
	assert_int_equal(rxvk_invalidate(rx, D_ADDR, FRAME_B, NULL), 0);
	expect_frame(rx, D_ADDR, RXVK_FORMAT_RGBA8, 0xff2080e0u);

	/* rxvk_invalidate of a range overlapping a held frame */
	struct rxvk *rx2 = warm((struct rxvk_config){0}, RXVK_FORMAT_RGBA8);
	frame_then_switch(rx2, RXVK_FORMAT_RGBA8, 0xff5060a0u, 1);
	assert_int_equal(rxvk_finish(rx2), 0);
	struct rxvk_counters d0 = counters(rx2);
	assert_true(guarded(rx2, A_ADDR + 2 * RXVK_PAGE_SIZE_B));
	assert_int_equal(rxvk_invalidate(rx2, A_ADDR + 2 * RXVK_PAGE_SIZE_B, 16, NULL), 0);
	struct rxvk_counters d1 = counters(rx2);
	assert_int_equal(d1.frames_carried_op - d0.frames_carried_op, 1);
	assert_false(guarded(rx2, A_ADDR));
	expect_frame(rx2, A_ADDR, RXVK_FORMAT_RGBA8, 0xff5060a0u);
	assert_int_equal(counters(rx2).frames_carried_touch, d1.frames_carried_touch);
	rxt_destroy(rx2);
	rxt_destroy(rx);
	(void)state;
}

struct toucher {
	struct rxvk *rx;
	int go; /* atomic: 1 once the render thread is replaying */
	uint8_t px[4];
	uint64_t sum;
};

static void *touch_main(void *arg)
{
	struct toucher *t = arg;
	while (!__atomic_load_n(&t->go, __ATOMIC_ACQUIRE))
		sched_yield();
	struct timespec ms = {0, 2000000};
	nanosleep(&ms, NULL);
	const volatile uint8_t *a = guest(t->rx) + A_ADDR;
	for (int i = 0; i < 4; i++)
		t->px[i] = a[(W * H / 2) * 4 + i];
	for (uint64_t i = 0; i < FRAME_B; i++)
		t->sum += a[i];
	return NULL;
}

static void test_hold__touch_from_another_thread_while_the_render_thread_replays(void **state)
{
	for (unsigned parallel = 1; parallel <= 2; parallel++) {
		struct rxvk *rx = warm((struct rxvk_config){.part_ops = 8, .parallel = parallel},
		                       RXVK_FORMAT_BGRA8);
		frame_then_switch(rx, RXVK_FORMAT_BGRA8, 0xff203040u, 1);
		/* the let-go's part may still run: the toucher waits for it */
		struct toucher t = {.rx = rx};
		pthread_t th;
		assert_int_equal(pthread_create(&th, NULL, touch_main, &t), 0);
		struct rxvk_counters c0 = counters(rx);
		/* long work in B while the other thread touches A */
		static struct rxvk_op ops[200];
		size_t n = 0;
		ops[n++] = target(B_ADDR, RXVK_FORMAT_RGBA8);
		for (int i = 0; i < 120; i++)
			ops[n++] = paint(63);
		n += rxt_work(ops + n, 40, SCRATCH, 20000);
		__atomic_store_n(&t.go, 1, __ATOMIC_RELEASE);
		submit(rx, ops, n);
		submit(rx, ops, n);
		assert_int_equal(pthread_join(th, NULL), 0);
		expect_pixel(t.px, RXVK_FORMAT_BGRA8, 0xff203040u, A_ADDR);
		uint64_t want = (uint64_t)W * H * (0x20 + 0x30 + 0x40 + 0xff);
		assert_int_equal(t.sum, want);
		struct rxvk_counters c1 = counters(rx);
		assert_int_equal(c1.frames_carried_touch - c0.frames_carried_touch, 1);
		assert_int_equal(c1.frames_carried_touch, 1);
		rxt_destroy(rx);
	}
	(void)state;
}

static void test_hold__switch_off_writes_back_at_every_switch(void **state)
{
	struct rxvk *rx = create((struct rxvk_config){.hold_switched = RXVK_SWITCH_OFF});
	struct rxvk_config eff;
	rxvk_config_get(rx, &eff);
	assert_int_equal(eff.hold_switched, RXVK_SWITCH_OFF);
	for (uint32_t k = 0; k < 4; k++) {
		struct rxvk_counters c0 = counters(rx);
		frame_then_switch(rx, RXVK_FORMAT_RGBA8, 0xff000010u + k, k + 1);
		assert_int_equal(rxvk_finish(rx), 0);
		struct rxvk_counters c1 = counters(rx);
		assert_int_equal(c1.frames_written_at_once - c0.frames_written_at_once, 1);
		assert_int_equal(c1.target_writebacks - c0.target_writebacks, 1);
		assert_int_equal(c1.frames_held, 0);
		assert_false(guarded(rx, A_ADDR));
		expect_frame(rx, A_ADDR, RXVK_FORMAT_RGBA8, 0xff000010u + k);
	}
	/* a flip writes back at once too */
	struct rxvk_counters c0 = counters(rx);
	struct rxvk_op flip[] = {target(A_ADDR, RXVK_FORMAT_RGBA8), paint(1), rxt_flip()};
	submit(rx, flip, 3);
	assert_int_equal(rxvk_finish(rx), 0);
	assert_int_equal(counters(rx).frames_written_at_once - c0.frames_written_at_once, 1);
	rxt_destroy(rx);
	(void)state;
}

static void test_hold__target_not_page_aligned_is_written_at_once(void **state)
{
	struct rxvk *rx = create((struct rxvk_config){0});
	uint64_t odd = A_ADDR + 256;
	for (int k = 0; k < 3; k++) {
		texel(rx, 1, 0xff00aa00u + (uint32_t)k);
		struct rxvk_op ops[] = {target(odd, RXVK_FORMAT_RGBA8), paint(1),
		                        target(B_ADDR, RXVK_FORMAT_DEPTH), paint(1)};
		submit(rx, ops, 4);
		assert_int_equal(rxvk_finish(rx), 0);
	}
	struct rxvk_counters c = counters(rx);
	assert_int_equal(c.frames_held, 0);
	assert_int_equal(c.frames_written_at_once, 3);
	assert_false(guarded(rx, odd));
	expect_frame(rx, odd, RXVK_FORMAT_RGBA8, 0xff00aa02u);
	rxt_destroy(rx);
	(void)state;
}

/* After 16 other targets were held, a target written at once because it
 * was read is held again. */
static void test_hold__carried_target_held_again_after_sixteen_others(void **state)
{
	struct rxvk *rx = warm((struct rxvk_config){.guest_mb = 32}, RXVK_FORMAT_RGBA8);
	frame_then_switch(rx, RXVK_FORMAT_RGBA8, 0xff0000aau, 1);
	assert_int_equal(rxvk_finish(rx), 0);
	expect_frame(rx, A_ADDR, RXVK_FORMAT_RGBA8, 0xff0000aau); /* carried out: remembered */
	struct rxvk_counters c0 = counters(rx);
	frame_then_switch(rx, RXVK_FORMAT_RGBA8, 0xff0000bbu, 2);
	assert_int_equal(rxvk_finish(rx), 0);
	assert_int_equal(counters(rx).frames_written_at_once - c0.frames_written_at_once, 1);
	/* 16 other targets, each held (a first frame, written at once on a CPU
	 * device, then one held) */
	struct rxvk_counters c1 = c0;
	for (int round = 0; round < 2; round++) {
		c1 = counters(rx);
		for (uint64_t k = 0; k < 16; k++) {
			struct rxvk_op ops[] = {
			        rxt_target(16 * MB + k * 64 * 1024, 16, 16, RXVK_FORMAT_RGBA8),
			        paint(3), target(B_ADDR, RXVK_FORMAT_DEPTH), paint(63)};
			submit(rx, ops, 4);
			assert_int_equal(rxvk_finish(rx), 0);
		}
	}
	assert_int_equal(counters(rx).frames_held - c1.frames_held, 16);
	c1 = counters(rx);
	frame_then_switch(rx, RXVK_FORMAT_RGBA8, 0xff0000ccu, 4);
	assert_int_equal(rxvk_finish(rx), 0);
	struct rxvk_counters c2 = counters(rx);
	assert_int_equal(c2.frames_held - c1.frames_held, 1);
	assert_true(guarded(rx, A_ADDR));
	expect_frame(rx, A_ADDR, RXVK_FORMAT_RGBA8, 0xff0000ccu);
	rxt_destroy(rx);
	(void)state;
}

/* ---- the handler leaves other faults as they were ---- */

/* A page of our own that no access may touch: not guest memory. */
static volatile uint8_t *forbidden_page(void)
{
	void *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(p != MAP_FAILED);
	return p;
}

static sigjmp_buf g_jump;
static volatile sig_atomic_t g_expect_fault, g_faults;

static void earlier_handler(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	if (g_expect_fault) {
		g_faults++;
		siglongjmp(g_jump, 1);
	}
	signal(sig, SIG_DFL);
	(void)si;
}

static void test_handler__other_faults_go_to_the_earlier_handler(void **state)
{
	struct rxvk *rx = warm((struct rxvk_config){0}, RXVK_FORMAT_RGBA8);
	struct sigaction sa, runner;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = earlier_handler;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &runner);
	assert_int_equal(rxvk_hold_handler_install(), 0);
	frame_then_switch(rx, RXVK_FORMAT_RGBA8, 0xff010203u, 1);
	assert_int_equal(rxvk_finish(rx), 0);
	assert_true(guarded(rx, A_ADDR));
	volatile uint8_t *bad = forbidden_page();
	g_faults = 0;
	g_expect_fault = 1;
	if (sigsetjmp(g_jump, 1) == 0)
		(void)*bad;
	g_expect_fault = 0;
	assert_int_equal(g_faults, 1);
	/* the held frame is still carried out by a touch */
	expect_frame(rx, A_ADDR, RXVK_FORMAT_RGBA8, 0xff010203u);
	sigaction(SIGSEGV, &runner, NULL);
	assert_int_equal(rxvk_hold_handler_install(), 0);
	rxt_destroy(rx);
	(void)state;
}

/* The child: a renderer whose handler has the default action behind it,
 * a frame held, then a fault elsewhere: it must die of SIGSEGV. */
static int fault_child(void)
{
	struct rxvk *rx = NULL;
	if (rxvk_create(&(struct rxvk_config){.guest_mb = 16}, &rx) != 0)
		return 2;
	frame_then_switch(rx, RXVK_FORMAT_RGBA8, 0xff000000u, 0);
	rxvk_finish(rx);
	frame_then_switch(rx, RXVK_FORMAT_RGBA8, 0xff0000ffu, 1);
	rxvk_finish(rx);
	struct rxvk_counters c;
	rxvk_counters_get(rx, &c);
	if (c.frames_held < 1)
		return 3;
	volatile uint8_t *bad = forbidden_page();
	(void)*bad;
	return 0;
}

/* The control: the same fault with no renderer, so no handler of ours. */
static int fault_child_plain(void)
{
	volatile uint8_t *bad = forbidden_page();
	(void)*bad;
	return 0;
}

/* How a child started with `mode` ended: "signal N" or "exit N". */
static void child_end(const char *mode, char *out, size_t size)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execl("/proc/self/exe", "test-rxvk-hold", mode, (char *)NULL);
		_exit(4);
	}
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status))
		snprintf(out, size, "signal %d", WTERMSIG(status));
	else
		snprintf(out, size, "exit %d", WEXITSTATUS(status));
}

/* A fault outside the guarded pages ends the process as it would without
 * the renderer: the same end as the control child's.  That is death by
 * SIGSEGV in a plain build; under AddressSanitizer, whose SEGV handler was
 * there first and is chained to, its report and exit 1 in both. */
static void test_handler__fault_outside_guarded_pages_kills_as_before(void **state)
{
	char with[32], without[32];
	child_end("--fault-child-plain", without, sizeof without);
	child_end("--fault-child", with, sizeof with);
	if (strcmp(with, without) != 0)
		fail_msg("with a frame held the fault ended the child by %s; without the renderer, by %s",
		         with, without);
	if (strcmp(without, "exit 0") == 0 || strcmp(without, "exit 4") == 0)
		fail_msg("the control child did not fault (%s)", without);
	(void)state;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--fault-child") == 0)
		return fault_child();
	if (argc > 1 && strcmp(argv[1], "--fault-child-plain") == 0)
		return fault_child_plain();
	rxt_require_vulkan();
	int fd = mkstemp(log_path);
	if (fd < 0)
		return 1;
	close(fd);
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(
	                test_hold__a_frame_switched_from_is_kept_until_read_then_written_at_the_switch),
	        cmocka_unit_test(test_cpu_wrote__row_painted_by_the_cpu_survives_a_partial_draw),
	        cmocka_unit_test(test_hold__both_import_modes),
	        cmocka_unit_test(test_rollback__held_frame_let_go_again_after_a_failed_part),
	        cmocka_unit_test(test_hold__guard_waits_for_a_submitted_part_still_touching_the_pages),
	        cmocka_unit_test(test_hold__read_in_the_same_part_is_carried_out_in_stream),
	        cmocka_unit_test(test_import__self_test_keeps_the_import_or_allocates),
	        cmocka_unit_test(test_hold__later_draw_supersedes_the_held_copy_unread),
	        cmocka_unit_test(test_hold__covering_fill_drops_it_and_partial_fill_carries_it_out),
	        cmocka_unit_test(test_hold__copy_reading_it_carries_it_out_before_the_copy),
	        cmocka_unit_test(test_hold__texture_and_invalidate_carry_it_out),
	        cmocka_unit_test(
	                test_hold__touch_from_another_thread_while_the_render_thread_replays),
	        cmocka_unit_test(test_hold__switch_off_writes_back_at_every_switch),
	        cmocka_unit_test(test_hold__target_not_page_aligned_is_written_at_once),
	        cmocka_unit_test(test_hold__carried_target_held_again_after_sixteen_others),
	        cmocka_unit_test(test_handler__other_faults_go_to_the_earlier_handler),
	        cmocka_unit_test(test_handler__fault_outside_guarded_pages_kills_as_before),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(log_path);
	return rc;
}
