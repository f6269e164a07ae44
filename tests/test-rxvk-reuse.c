/* test-rxvk-reuse: what the renderer reuses stays right after reuse.  A
 * marker event reused after its ring (1,024 events) has gone round must not
 * release a later read early; a colour target kept current across
 * submissions by flips alone (no set-target op) takes the CPU's bytes
 * (rxvk_cpu_wrote) before a partial draw; a part that recorded a target's
 * load and failed leaves the target to be loaded again, so what the GPU
 * wrote into its memory before survives the resubmission; and command
 * buffers, recycled a chunk at a time, are reset only once their parts
 * have run, and when no chunk is ready a part's recording makes one.  Each case fails on the wrong behaviour (tests/mutate.sh has a
 * mutant for each).  On a real device (lavapipe in CI) with the validation
 * layer and its synchronization validation on. */
#include "rxvk-test.h"
#include "private.h"
#include "rxvk-gate.h"

#include <unistd.h>

#define MB (1ull << 20)
#define PAGE RXVK_PAGE_SIZE_B
#define SLOT (1 * MB)         /* the tracked word */
#define TEX (2 * MB)          /* texels, one a page */
#define A_ADDR (4 * MB)       /* a colour target */
#define B_ADDR (6 * MB)       /* a depth target switched to */
#define SCRATCH (8 * MB)
#define W 64u
#define H 48u
#define FRAME_B (W * H * 4u)
#define LONG 10000000u        /* a spin of ~1.5 ms on lavapipe */
#define MARKERS_BEFORE 1030   /* more than the ring of 1,024 marker events */

static struct rxvk_op ops[512];

static void submit(struct rxvk *rx, const struct rxvk_op *o, size_t n)
{
	if (rxvk_submit(rx, o, n, NULL) != 0)
		fail_msg("rxvk_submit: %s", rxvk_last_error());
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

/* (a) A marker whose event slot was used ~1,024 markers before (and seen
 * set then) releases a read only once its own writer has run: the read
 * right after a submission of long work and a writer of a new value gets
 * the new value, released by its marker or its part. */
static void test_marker__reused_event_does_not_release_a_later_read_early(void **state)
{
	for (int mirrored = 0; mirrored < 2; mirrored++) {
		struct rxvk *rx = rxt_create((struct rxvk_config){ .readback_early = RXVK_EARLY_MARKER,
		                                                   .mirror = mirrored ? RXVK_SWITCH_ON : RXVK_SWITCH_OFF,
		                                                   .part_ops = 4096 });
		if (!rx->sync2) {
			rxt_destroy(rx);
			printf("skip: the device has no synchronization2 for markers\n");
			exit(77);
		}
		if (mirrored) { /* every block active in the mirror from the next capture */
			struct rxvk_op all = rxt_fill(0, rx->guest_size_B, 0);
			submit(rx, &all, 1);
			assert_int_equal(rxvk_finish(rx), 0);
		}
		/* learn the range: a read that waits for its writer (the work
		 * after it pending until the read waits: on a loaded machine long
		 * work alone can end before the read looks) */
		size_t n = 0;
		ops[n++] = rxt_spin(SLOT, 10, 1);
		n += rxt_work(ops + n, 20, SCRATCH, LONG);
		rxt_gate_arm(rx, 1, true);
		submit(rx, ops, n);
		rxt_gate_submitted(rx);
		struct rxvk_wait w;
		assert_int_equal(rxvk_invalidate(rx, SLOT, 8, &w), 0);
		assert_true(w.waited);
		assert_int_equal(rxvk_finish(rx), 0);
		/* more markers than the ring holds, each slot used and seen set */
		uint64_t markers0 = counters(rx).markers;
		for (uint32_t k = 0; counters(rx).markers - markers0 < MARKERS_BEFORE; k++) {
			for (size_t i = 0; i < 256; i++)
				ops[i] = rxt_spin(SLOT, 1, 100 + k * 256 + (uint32_t)i);
			submit(rx, ops, 256);
			assert_int_equal(rxvk_finish(rx), 0);
		}
		assert_true(counters(rx).markers - markers0 >= MARKERS_BEFORE);
		/* long work, then the writer of a value never written before */
		const uint32_t fresh = 0xc0ffee01u;
		n = rxt_work(ops, 24, SCRATCH + 4 * PAGE, LONG);
		ops[n++] = rxt_spin(SLOT, 10, fresh);
		rxt_gate_arm(rx, 0, true); /* all of it pending until the read waits, as above */
		submit(rx, ops, n);
		rxt_gate_submitted(rx);
		assert_int_equal(rxvk_invalidate(rx, SLOT, 8, &w), 0);
		if (word(rx, SLOT) != fresh)
			fail_msg("%s: the read was released (%s) before its writer ran: 0x%08x, want 0x%08x",
			         mirrored ? "mirrored" : "in place",
			         w.what == RXVK_WAIT_MARKER ? "by a marker" : "not by a marker", word(rx, SLOT), fresh);
		assert_true(w.what == RXVK_WAIT_MARKER || w.what == RXVK_WAIT_PART);
		rxt_destroy_gated(rx);
	}
	(void)state;
}

/* Texel `slot` (its own page): bytes R, G, B, A of colour 0xAABBGGRR. */
static void texel(struct rxvk *rx, unsigned slot, uint32_t rgba)
{
	uint64_t at = TEX + (uint64_t)slot * PAGE;
	memcpy((uint8_t *)rxvk_guest(rx) + at, &rgba, 4);
	assert_int_equal(rxvk_cpu_wrote(rx, at, 4), 0);
}

/* A draw of texel `slot` over rows [y0, y0 + rows) of the current target. */
static struct rxvk_op paint_rows(unsigned slot, uint32_t y0, uint32_t rows)
{
	return (struct rxvk_op){ .kind = RXVK_OP_DRAW,
		                 .count = 1,
		                 .program = RXVK_PROGRAM_TEXTURED,
		                 .read = { { TEX + (uint64_t)slot * PAGE, 4 } },
		                 .params = { 1, 1, 4, RXVK_FORMAT_RGBA8, 0, y0 << 16, W | (rows << 16) } };
}

static void expect_pixel(struct rxvk *rx, uint64_t at, uint32_t rgba)
{
	const uint8_t *px = (const uint8_t *)rxvk_guest(rx) + at;
	uint8_t want[4] = { rgba & 0xff, (rgba >> 8) & 0xff, (rgba >> 16) & 0xff, rgba >> 24 };
	if (memcmp(px, want, 4) != 0)
		fail_msg("pixel at 0x%llx: %02x %02x %02x %02x, want %02x %02x %02x %02x", (unsigned long long)at,
		         px[0], px[1], px[2], px[3], want[0], want[1], want[2], want[3]);
}

/* Every pixel of A: `top` over rows < H/2, `row_colour` on row `row`, else
 * `rest`. */
static void expect_a(struct rxvk *rx, uint32_t top, uint32_t row, uint32_t row_colour, uint32_t rest)
{
	for (uint32_t y = 0; y < H; y++)
		for (uint32_t x = 0; x < W; x++)
			expect_pixel(rx, A_ADDR + ((uint64_t)y * W + x) * 4,
			             y < H / 2 ? top : y == row ? row_colour : rest);
}

/* (b) A stays the current target across submissions by flips alone; the
 * CPU paints a row of it and says so (rxvk_cpu_wrote); a draw over the top
 * half, with no set-target op before it, and its write-back keep the row. */
static void test_cpu_wrote__target_current_by_flips_alone_takes_the_cpu_bytes(void **state)
{
	const uint32_t red = 0xff0000ffu, green = 0xff00ff00u, blue = 0xffff0000u;
	const uint32_t row = 40;
	for (int mirrored = 0; mirrored < 2; mirrored++) {
		struct rxvk *rx = rxt_create((struct rxvk_config){ .mirror = mirrored ? RXVK_SWITCH_ON : RXVK_SWITCH_OFF });
		texel(rx, 0, red);
		struct rxvk_op first[] = { rxt_target(A_ADDR, W, H, RXVK_FORMAT_RGBA8), paint_rows(0, 0, H), rxt_flip() };
		submit(rx, first, 3);
		assert_int_equal(rxvk_finish(rx), 0);
		/* frames drawn and flipped with no set-target op: A stays current */
		for (int k = 0; k < 2; k++) {
			struct rxvk_op again[] = { paint_rows(0, 0, H), rxt_flip() };
			submit(rx, again, 2);
			assert_int_equal(rxvk_finish(rx), 0);
		}
		assert_int_equal(rxvk_invalidate(rx, A_ADDR, FRAME_B, NULL), 0);
		expect_a(rx, red, row, red, red);
		struct rxvk_counters c0 = counters(rx);
		for (uint32_t x = 0; x < W; x++)
			memcpy((uint8_t *)rxvk_guest(rx) + A_ADDR + ((uint64_t)row * W + x) * 4, &green, 4);
		assert_int_equal(rxvk_cpu_wrote(rx, A_ADDR + (uint64_t)row * W * 4, W * 4), 0);
		texel(rx, 2, blue);
		struct rxvk_op draw[] = { paint_rows(2, 0, H / 2), rxt_flip() };
		submit(rx, draw, 2);
		assert_int_equal(rxvk_finish(rx), 0);
		assert_int_equal(rxvk_invalidate(rx, A_ADDR, FRAME_B, NULL), 0);
		expect_a(rx, blue, row, green, red);
		struct rxvk_counters c1 = counters(rx);
		assert_int_equal(c1.targets_cpu_stale - c0.targets_cpu_stale, 1);
		assert_true(c1.target_loads > c0.target_loads);
		rxt_destroy(rx);
	}
	(void)state;
}

/* (c) A fill (GPU work, not the CPU's) writes half of A's memory; the next
 * submission's first part loads A for a partial draw and fails; the
 * submission is sent again and its write-back keeps the fill where the
 * draw did not reach. */
static void test_rollback__failed_part_with_a_target_load_loads_it_again(void **state)
{
	const uint32_t red = 0xff0000ffu, blue = 0xffff0000u, filled = 0xff336699u;
	for (int mirrored = 0; mirrored < 2; mirrored++) {
		struct rxvk *rx = rxt_create((struct rxvk_config){ .mirror = mirrored ? RXVK_SWITCH_ON : RXVK_SWITCH_OFF });
		texel(rx, 0, red);
		texel(rx, 2, blue);
		struct rxvk_op frame[] = { rxt_target(A_ADDR, W, H, RXVK_FORMAT_RGBA8), paint_rows(0, 0, H),
			                   rxt_target(B_ADDR, W, H, RXVK_FORMAT_DEPTH) };
		submit(rx, frame, 3);
		assert_int_equal(rxvk_finish(rx), 0);
		assert_int_equal(rxvk_invalidate(rx, A_ADDR, FRAME_B, NULL), 0);
		expect_a(rx, red, 0, red, red);
		/* the GPU overwrites the bottom half of A's memory (a fill that
		 * does not cover the target leaves its image stale) */
		struct rxvk_op fill = rxt_fill(A_ADDR + FRAME_B / 2, FRAME_B / 2, filled);
		submit(rx, &fill, 1);
		assert_int_equal(rxvk_finish(rx), 0);
		/* the part that loads A (and draws the top half) fails */
		struct rxvk_op draw[] = { rxt_target(A_ADDR, W, H, RXVK_FORMAT_RGBA8), paint_rows(2, 0, H / 2),
			                  rxt_target(B_ADDR, W, H, RXVK_FORMAT_DEPTH) };
		struct rxvk_counters c0 = counters(rx);
		rx->test.fail_record_value = c0.timeline_value + 1;
		assert_true(rxvk_submit(rx, draw, 3, NULL) < 0);
		rx->test.fail_record_value = 0;
		struct rxvk_counters c1 = counters(rx);
		assert_true(c1.parts_failed > c0.parts_failed);
		assert_true(c1.target_loads > c0.target_loads); /* the failed part had recorded the load */
		submit(rx, draw, 3);
		assert_int_equal(rxvk_finish(rx), 0);
		assert_int_equal(rxvk_invalidate(rx, A_ADDR, FRAME_B, NULL), 0);
		expect_a(rx, blue, 0, filled, filled);
		assert_true(counters(rx).target_loads > c1.target_loads);
		rxt_destroy(rx);
	}
	(void)state;
}

/* Many one-op parts in flight behind a long first spin: their command
 * buffers go round the chunks several times, and are made new only once
 * their parts have run (the validation layer says so otherwise); every
 * part's value lands. */
static void test_split__command_buffers_recycled_only_after_their_parts_ran(void **state)
{
	struct rxvk *rx = rxt_create((struct rxvk_config){ .part_ops = 1 });
	for (int round = 0; round < 3; round++) {
		size_t n = 0;
		ops[n++] = rxt_spin(SCRATCH, LONG, 1);
		for (uint32_t i = 0; i < 200; i++)
			ops[n++] = rxt_spin(SCRATCH + 8 + 8 * (uint64_t)i, 1, 1000u * (uint32_t)round + i);
		uint64_t parts0 = counters(rx).parts;
		submit(rx, ops, n);
		assert_int_equal(counters(rx).parts - parts0, n);
		assert_int_equal(rxvk_finish(rx), 0);
		for (uint32_t i = 0; i < 200; i++)
			assert_int_equal(word(rx, SCRATCH + 8 + 8 * (uint64_t)i), 1000u * (uint32_t)round + i);
	}
	rxt_destroy(rx);
	(void)state;
}

/* With no chunk of command buffers made ahead (the test hook) and every
 * part held at a gate, so none is recycled, the chunks beyond the ones made
 * ready at the start are made while taking a command buffer, at least one
 * a 32 parts beyond those; every part's value lands. */
static void test_split__chunk_made_on_the_path_when_none_is_ready(void **state)
{
	struct rxvk *rx = rxt_create((struct rxvk_config){ .part_ops = 1 });
	struct rxvk_config eff;
	rxvk_config_get(rx, &eff);
	uint64_t ready_at_start = 2 * (eff.parallel < 2 ? 0 : eff.parallel) + 2;
	rx->test.no_chunks_ahead = true;
	size_t n = 0;
	for (uint32_t i = 0; i < 400; i++)
		ops[n++] = rxt_spin(SCRATCH + 8 * (uint64_t)i, 1, 7000u + i);
	struct rxvk_counters c0 = counters(rx);
	rxt_gate_hold(rx, 0); /* nothing runs, so no chunk comes back */
	submit(rx, ops, n);
	rxt_gate_submitted(rx);
	struct rxvk_counters c1 = counters(rx);
	rxt_gate_open(rx);
	assert_int_equal(rxvk_finish(rx), 0);
	assert_int_equal(c1.parts - c0.parts, n);
	uint64_t made = c1.part_cmd_pools_inline - c0.part_cmd_pools_inline;
	assert_true(made >= (n + 31) / 32 - ready_at_start);
	assert_int_equal(c1.part_cmd_pools - c0.part_cmd_pools, made);
	for (uint32_t i = 0; i < 400; i++)
		assert_int_equal(word(rx, SCRATCH + 8 * (uint64_t)i), 7000u + i);
	rxt_destroy_gated(rx);
	(void)state;
}

int main(void)
{
	/* the validation layer's synchronization validation on every device
	 * this test makes (rxt_create turns the layer on) */
	setenv("VK_LAYER_ENABLES", "VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT", 1);
	rxt_require_vulkan();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_marker__reused_event_does_not_release_a_later_read_early),
		cmocka_unit_test(test_cpu_wrote__target_current_by_flips_alone_takes_the_cpu_bytes),
		cmocka_unit_test(test_rollback__failed_part_with_a_target_load_loads_it_again),
		cmocka_unit_test(test_split__command_buffers_recycled_only_after_their_parts_ran),
		cmocka_unit_test(test_split__chunk_made_on_the_path_when_none_is_ready),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
