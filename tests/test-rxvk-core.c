/* test-rxvk-core: librxvk's core on a real Vulkan device (lavapipe in CI)
 * with the validation layer on: results against a CPU reference in both
 * memory modes, the default whole-submission wait, parts and the timeline,
 * mirror write-back at the writer's part, late pages, invalid ops. */
#include "rxvk-test.h"
#include "private.h"

#include <math.h>
#include <pthread.h>
#include <sys/wait.h>
#include <time.h>

#define MB (1ull << 20)
#define INSTANCES 1000u
#define INST_ADDR (1 * MB)
#define RESULT_ADDR (2 * MB)
#define SCRATCH (8 * MB)

static void make_instances(struct rxvk *rx)
{
	float *inst = (float *)((uint8_t *)rxvk_guest(rx) + INST_ADDR);
	for (uint32_t i = 0; i < INSTANCES; i++) {
		inst[i * 4 + 0] = (float)(i % 40) - 20.0f;
		inst[i * 4 + 1] = 0.0f;
		inst[i * 4 + 2] = (float)(i / 40) - 12.0f;
		inst[i * 4 + 3] = 0.5f + (float)(i % 3);
	}
	assert_int_equal(rxvk_cpu_wrote(rx, INST_ADDR, INSTANCES * 16), 0);
}

static struct rxvk_op cull_op(float cx, float cz, float dist, uint32_t frame)
{
	return (struct rxvk_op){ .kind = RXVK_OP_DISPATCH,
	                         .count = (INSTANCES + 63) / 64,
	                         .program = RXVK_PROGRAM_CULL,
	                         .read = { { INST_ADDR, INSTANCES * 16 } },
	                         .write = { RESULT_ADDR, 32 + INSTANCES * 4 },
	                         .params = { INSTANCES, rxt_f(cx), rxt_f(0), rxt_f(cz), rxt_f(dist), 10, frame } };
}

static void check_cull(struct rxvk *rx, float cx, float cz, float dist, uint32_t frame)
{
	struct rxvk_wait w;
	assert_int_equal(rxvk_invalidate(rx, RESULT_ADDR, 32 + INSTANCES * 4, &w), 0);
	const uint32_t *res = (const uint32_t *)((uint8_t *)rxvk_guest(rx) + RESULT_ADDR);
	const float *inst = (const float *)((uint8_t *)rxvk_guest(rx) + INST_ADDR);
	assert_int_equal(res[0], frame);
	assert_int_equal(res[1], INSTANCES);
	for (uint32_t i = 0; i < INSTANCES; i++) {
		float dx = inst[i * 4] - cx, dz = inst[i * 4 + 2] - cz;
		float d = sqrtf(dx * dx + dz * dz) - inst[i * 4 + 3];
		/* a sphere on the boundary may round either way on the GPU */
		if (fabsf(d - dist) < 1e-3f)
			continue;
		assert_int_equal(res[8 + i], d < dist ? 1u : 0u);
	}
}

/* Renders a frame with instanced quads and a textured copy of a pattern,
 * flips it and returns a checksum of the target's guest bytes. */
static uint64_t render_frame(struct rxvk *rx, enum rxvk_format f)
{
	uint8_t *g = rxvk_guest(rx);
	const uint64_t quads = 3 * MB, tex = 4 * MB, target = 5 * MB;
	float *q = (float *)(g + quads);
	for (int i = 0; i < 16; i++) {
		q[i * 4 + 0] = -0.8f + 0.1f * (float)i;
		q[i * 4 + 1] = 0.6f - 0.08f * (float)i;
		q[i * 4 + 2] = 0.12f;
		uint32_t c = 0xff000000u | (uint32_t)(i * 16) << 16 | (uint32_t)(255 - i * 8) << 8 | 0x40;
		memcpy(&q[i * 4 + 3], &c, 4);
	}
	uint32_t *t = (uint32_t *)(g + tex);
	for (int y = 0; y < 16; y++)
		for (int x = 0; x < 16; x++)
			t[y * 16 + x] = 0xff000000u | (uint32_t)(x * 16) | (uint32_t)(y * 16) << 8;
	assert_int_equal(rxvk_cpu_wrote(rx, quads, 16 * 16), 0);
	assert_int_equal(rxvk_cpu_wrote(rx, tex, 16 * 16 * 4), 0);
	struct rxvk_op ops[] = {
		rxt_target(target, 64, 48, f),
		rxt_fill(target, 64 * 48 * 4, 0xff203040u),
		{ .kind = RXVK_OP_DRAW, .count = 1, .program = RXVK_PROGRAM_TEXTURED,
		  .read = { { tex, 16 * 16 * 4 } },
		  .params = { 16, 16, 64, RXVK_FORMAT_RGBA8, 0, 8 | 8 << 16, 24 | 16 << 16 } },
		{ .kind = RXVK_OP_DRAW, .count = 16, .program = RXVK_PROGRAM_INSTANCED,
		  .read = { { quads, 16 * 16 } }, .params = { 5, 0 } },
		rxt_flip(),
	};
	assert_int_equal(rxvk_submit(rx, ops, sizeof ops / sizeof ops[0], NULL), 0);
	assert_int_equal(rxvk_invalidate(rx, target, 64 * 48 * 4, NULL), 0);
	uint64_t h = 1469598103934665603ull;
	for (uint64_t i = 0; i < 64 * 48 * 4; i++)
		h = (h ^ g[target + i]) * 1099511628211ull;
	/* the fill colour's bytes are in the target's byte order */
	assert_int_equal(g[target], f == RXVK_FORMAT_BGRA8 ? 0x40 : 0x40);
	return h;
}

static void test_results__equal_cpu_reference_in_both_modes(void **state)
{
	uint64_t frame_sum[2][2];
	for (int mirrored = 0; mirrored < 2; mirrored++) {
		struct rxvk *rx = rxt_create((struct rxvk_config){
			.mirror = mirrored ? RXVK_SWITCH_ON : RXVK_SWITCH_OFF });
		struct rxvk_config eff;
		rxvk_config_get(rx, &eff);
		assert_int_equal(eff.mirror, mirrored ? RXVK_SWITCH_ON : RXVK_SWITCH_OFF);
		make_instances(rx);
		/* three submissions: the first activates mirror blocks, later ones use them */
		for (uint32_t frame = 1; frame <= 3; frame++) {
			float cx = (float)frame * 2.0f, cz = -(float)frame;
			struct rxvk_op ops[] = {
				cull_op(cx, cz, 6.0f + (float)frame, frame),
				rxt_copy(RESULT_ADDR, RESULT_ADDR + MB / 2, 4096),
				rxt_fill(SCRATCH, 4096, 0xabcd0000u + frame),
			};
			assert_int_equal(rxvk_submit(rx, ops, 3, NULL), 0);
			check_cull(rx, cx, cz, 6.0f + (float)frame, frame);
			assert_int_equal(rxvk_invalidate(rx, RESULT_ADDR + MB / 2, 4096, NULL), 0);
			assert_memory_equal((uint8_t *)rxvk_guest(rx) + RESULT_ADDR,
			                    (uint8_t *)rxvk_guest(rx) + RESULT_ADDR + MB / 2, 4096);
			assert_int_equal(rxvk_invalidate(rx, SCRATCH, 4096, NULL), 0);
			assert_int_equal(((uint32_t *)((uint8_t *)rxvk_guest(rx) + SCRATCH))[1023],
			                 0xabcd0000u + frame);
		}
		frame_sum[mirrored][0] = render_frame(rx, RXVK_FORMAT_RGBA8);
		frame_sum[mirrored][1] = render_frame(rx, RXVK_FORMAT_BGRA8);
		struct rxvk_counters c;
		rxvk_counters_get(rx, &c);
		if (mirrored) {
			assert_true(c.mirror_blocks > 0);
			assert_true(c.mirror_writebacks > 0);
		} else {
			assert_int_equal(c.mirror_writebacks, 0);
		}
		rxt_destroy(rx);
	}
	assert_true(frame_sum[0][0] == frame_sum[1][0]);
	assert_true(frame_sum[0][1] == frame_sum[1][1]);
	assert_true(frame_sum[0][0] != frame_sum[0][1]);
	(void)state;
}

static void test_frame__bytes_in_target_byte_order(void **state)
{
	struct rxvk *rx = rxt_create((struct rxvk_config){ 0 });
	uint8_t *g = rxvk_guest(rx);
	for (int f = RXVK_FORMAT_RGBA8; f <= RXVK_FORMAT_BGRA8; f++) {
		/* a fill then a textured draw of a known texel: R=0x10 G=0x80 B=0xf0 */
		uint32_t *tex = (uint32_t *)(g + 4 * MB);
		tex[0] = 0xfff08010u; /* bytes 10 80 f0 ff: RGBA */
		assert_int_equal(rxvk_cpu_wrote(rx, 4 * MB, 4), 0);
		struct rxvk_op ops[] = {
			rxt_target(5 * MB, 8, 8, (enum rxvk_format)f),
			{ .kind = RXVK_OP_DRAW, .count = 1, .program = RXVK_PROGRAM_TEXTURED,
			  .read = { { 4 * MB, 4 } }, .params = { 1, 1, 4, RXVK_FORMAT_RGBA8, 0, 0, 0 } },
			rxt_flip(),
		};
		assert_int_equal(rxvk_submit(rx, ops, 3, NULL), 0);
		assert_int_equal(rxvk_invalidate(rx, 5 * MB, 8 * 8 * 4, NULL), 0);
		const uint8_t *px = g + 5 * MB + (3 * 8 + 3) * 4;
		if (f == RXVK_FORMAT_RGBA8) {
			assert_int_equal(px[0], 0x10);
			assert_int_equal(px[2], 0xf0);
		} else {
			assert_int_equal(px[0], 0xf0);
			assert_int_equal(px[2], 0x10);
		}
		assert_int_equal(px[1], 0x80);
	}
	rxt_destroy(rx);
	(void)state;
}

/* Submission N: a writer first, then long work; N+1: long work elsewhere. */
static void test_invalidate__waits_for_whole_writer_submission_not_later(void **state)
{
	struct rxvk *rx = rxt_create((struct rxvk_config){ .part_ops = 4, .mirror = RXVK_SWITCH_OFF });
	static struct rxvk_op ops[64];
	ops[0] = rxt_spin(SCRATCH, 1000, 77);
	rxt_work(ops + 1, 31, SCRATCH + 4096, 200000);
	uint64_t n;
	assert_int_equal(rxvk_submit(rx, ops, 32, &n), 0);
	struct rxvk_counters c;
	rxvk_counters_get(rx, &c);
	uint64_t last_of_n = c.timeline_value;
	assert_int_equal(c.parts, 8); /* 32 ops, 4 a part */
	rxt_work(ops, 32, SCRATCH + 8192, 200000);
	uint64_t n1;
	assert_int_equal(rxvk_submit(rx, ops, 32, &n1), 0);
	assert_int_equal(n1, n + 1);

	struct rxvk_wait w;
	assert_int_equal(rxvk_invalidate(rx, SCRATCH, 8, &w), 0);
	assert_int_equal(w.submission, n);
	assert_int_equal(w.what, RXVK_WAIT_SUBMISSION);
	assert_int_equal(w.value, last_of_n); /* N's last part, not the writer's */
	assert_true(w.waited);
	assert_true(rxvk_timeline_done(rx) >= last_of_n);
	assert_int_equal(((uint32_t *)((uint8_t *)rxvk_guest(rx) + SCRATCH))[0], 77);
	/* N+1 (8 more parts of long work) was not waited for */
	rxvk_counters_get(rx, &c);
	assert_true(w.value < c.timeline_value);

	/* once done, a read of the same range does not wait */
	assert_int_equal(rxvk_finish(rx), 0);
	assert_int_equal(rxvk_invalidate(rx, SCRATCH, 8, &w), 0);
	assert_false(w.waited);
	assert_int_equal(w.what, RXVK_WAIT_NOTHING);
	/* a range nothing wrote never waits */
	assert_int_equal(rxvk_invalidate(rx, 12 * MB, 64, &w), 0);
	assert_int_equal(w.submission, 0);
	rxt_destroy(rx);
	(void)state;
}

static void test_parts__split_at_limit_with_ordered_values(void **state)
{
	struct rxvk *rx = rxt_create((struct rxvk_config){ .part_ops = 3 });
	struct rxvk_op ops[10];
	rxt_work(ops, 10, SCRATCH, 10);
	struct rxvk_counters before, after;
	rxvk_counters_get(rx, &before);
	assert_int_equal(rxvk_submit(rx, ops, 10, NULL), 0);
	rxvk_counters_get(rx, &after);
	assert_int_equal(after.parts - before.parts, 4); /* 3 + 3 + 3 + 1 */
	assert_int_equal(after.timeline_value - before.timeline_value, 4);
	/* each page's final value is the part that wrote it, in op order */
	pthread_mutex_lock(&rx->lock);
	uint64_t v0 = rx->page_final[SCRATCH / RXVK_PAGE_SIZE_B];
	pthread_mutex_unlock(&rx->lock);
	assert_int_equal(v0, after.timeline_value); /* op 9 (slot 9) is on the same page, last part */
	struct rxvk_config eff;
	rxvk_config_get(rx, &eff);
	assert_int_equal(eff.part_ops, 3);
	rxt_destroy(rx);
	(void)state;
}

/* Mirrored: a page is final at the end of the part that wrote it. */
static void test_mirror__written_back_at_end_of_writer_part(void **state)
{
	struct rxvk *rx = rxt_create((struct rxvk_config){ .part_ops = 2, .mirror = RXVK_SWITCH_ON });
	uint64_t slot = SCRATCH;
	struct rxvk_op warm = rxt_spin(slot, 1, 1);
	assert_int_equal(rxvk_submit(rx, &warm, 1, NULL), 0); /* in place; activates the block */
	assert_int_equal(rxvk_finish(rx), 0);
	struct rxvk_op ops[12];
	ops[0] = rxt_fill(SCRATCH + 64 * 1024, 64, 0);
	ops[1] = rxt_spin(slot, 1000, 4242); /* part 1 */
	rxt_work(ops + 2, 10, SCRATCH + 128 * 1024, 300000);
	struct rxvk_counters c0, c1;
	rxvk_counters_get(rx, &c0);
	assert_int_equal(rxvk_submit(rx, ops, 12, NULL), 0);
	rxvk_counters_get(rx, &c1);
	assert_true(c1.mirror_blocks >= 1);
	uint64_t writer_part = c0.timeline_value + 1;
	pthread_mutex_lock(&rx->lock);
	uint64_t final = rx->page_final[slot / RXVK_PAGE_SIZE_B];
	pthread_mutex_unlock(&rx->lock);
	assert_int_equal(final, writer_part);
	assert_int_equal(rxvk_timeline_wait(rx, writer_part), 0);
	/* the rest of the submission may still run, the value is in guest memory */
	assert_int_equal(((volatile uint32_t *)((uint8_t *)rxvk_guest(rx) + slot))[0], 4242);
	assert_true(c1.mirror_writebacks > c0.mirror_writebacks);
	rxt_destroy(rx);
	(void)state;
}

static void test_capture__late_page_makes_next_capture_wait(void **state)
{
	struct rxvk *rx = rxt_create((struct rxvk_config){ .part_ops = 4 });
	make_instances(rx);
	static struct rxvk_op ops[40];
	rxt_work(ops, 32, SCRATCH, 200000);
	ops[32] = cull_op(0, 0, 5, 1); /* reads the instances near the end */
	assert_int_equal(rxvk_submit(rx, ops, 33, NULL), 0);
	struct rxvk_counters c0;
	rxvk_counters_get(rx, &c0);
	/* a page nobody reads is not late */
	assert_int_equal(rxvk_cpu_wrote(rx, 12 * MB, 16), 0);
	/* the instances are read by the running submission: late */
	assert_int_equal(rxvk_cpu_wrote(rx, INST_ADDR, 16), 0);
	struct rxvk_op next = rxt_fill(SCRATCH + MB, 64, 1);
	assert_int_equal(rxvk_submit(rx, &next, 1, NULL), 0);
	struct rxvk_counters c1;
	rxvk_counters_get(rx, &c1);
	assert_int_equal(c1.captures - c0.captures, 1);
	assert_int_equal(c1.captures_late - c0.captures_late, 1);
	assert_true(c1.capture_wait_ns > c0.capture_wait_ns);
	/* the capture waited for the reading submission: it is done */
	assert_true(rxvk_timeline_done(rx) >= c0.timeline_value);
	/* now nothing reads it: the next capture does not wait */
	assert_int_equal(rxvk_cpu_wrote(rx, INST_ADDR, 16), 0);
	assert_int_equal(rxvk_submit(rx, &next, 1, NULL), 0);
	struct rxvk_counters c2;
	rxvk_counters_get(rx, &c2);
	assert_int_equal(c2.captures_late, c1.captures_late);
	rxt_destroy(rx);
	(void)state;
}

/* Mirrored: a draw whose instances straddle an active mirror block and one
 * still in place makes the part's mirror writes go back first; that copy
 * must not land inside the open rendering instance (the layer checks). */
static void test_mirror__mixed_range_draw_flushes_outside_rendering(void **state)
{
	struct rxvk *rx = rxt_create((struct rxvk_config){ .mirror = RXVK_SWITCH_ON });
	const uint64_t block = 6 * MB, quads = block + MB - 512;
	struct rxvk_op warm = rxt_spin(block, 1, 1);
	assert_int_equal(rxvk_submit(rx, &warm, 1, NULL), 0); /* block becomes active */
	float *q = (float *)((uint8_t *)rxvk_guest(rx) + quads);
	for (int i = 0; i < 64; i++) {
		q[i * 4 + 0] = -0.9f + 0.02f * (float)i;
		q[i * 4 + 1] = 0.0f;
		q[i * 4 + 2] = 0.05f;
		uint32_t c = 0xff00ff00u;
		memcpy(&q[i * 4 + 3], &c, 4);
	}
	assert_int_equal(rxvk_cpu_wrote(rx, quads, 64 * 16), 0);
	struct rxvk_op ops[] = {
		rxt_target(9 * MB, 32, 32, RXVK_FORMAT_RGBA8),
		rxt_spin(block + 64, 1, 2), /* a mirror write in this part */
		{ .kind = RXVK_OP_DRAW, .count = 32, .program = RXVK_PROGRAM_INSTANCED,
		  .read = { { quads, 32 * 16 } } },
		{ .kind = RXVK_OP_DRAW, .count = 64, .program = RXVK_PROGRAM_INSTANCED,
		  .read = { { quads, 64 * 16 } } }, /* reaches into the next block */
		rxt_flip(),
	};
	assert_int_equal(rxvk_submit(rx, ops, sizeof ops / sizeof ops[0], NULL), 0);
	assert_int_equal(rxvk_invalidate(rx, block + 64, 8, NULL), 0);
	assert_int_equal(((uint32_t *)((uint8_t *)rxvk_guest(rx) + block + 64))[0], 2);
	rxt_destroy(rx); /* fails on any validation message */
	(void)state;
}

static void expect_invalid(struct rxvk *rx, const struct rxvk_op *ops, size_t n, const char *what)
{
	struct rxvk_counters c0, c1;
	rxvk_counters_get(rx, &c0);
	int rc = rxvk_submit(rx, ops, n, NULL);
	rxvk_counters_get(rx, &c1);
	assert_int_equal(rc, -EINVAL);
	if (!strstr(rxvk_last_error(), what))
		fail_msg("error '%s' does not say '%s'", rxvk_last_error(), what);
	assert_int_equal(c1.parts, c0.parts);
	assert_int_equal(c1.submissions, c0.submissions);
}

static void test_submit__invalid_ops_rejected_with_reason(void **state)
{
	struct rxvk *rx = rxt_create((struct rxvk_config){ .guest_mb = 16 });
	uint64_t end = rxvk_guest_size(rx);
	struct rxvk_op good = rxt_fill(0, 64, 0);
	struct rxvk_op bad[] = {
		rxt_fill(end - 32, 64, 0),
		{ .kind = RXVK_OP_DISPATCH, .count = 1, .program = 0x1234, .write = { 0, 8 } },
		{ .kind = RXVK_OP_DISPATCH, .count = 0, .program = RXVK_PROGRAM_SPIN, .write = { 0, 8 } },
		{ .kind = RXVK_OP_DISPATCH, .count = 1000000, .program = RXVK_PROGRAM_SPIN, .write = { 0, 8 } },
		rxt_target(0, 64, 64, RXVK_FORMAT_RGBA8),
		{ .kind = 99 },
		rxt_copy(0, 16, 64),
		rxt_flip(),
		{ .kind = RXVK_OP_DRAW, .count = 4, .program = RXVK_PROGRAM_INSTANCED, .read = { { 0, 64 } } },
		{ .kind = RXVK_OP_DRAW, .count = 1, .program = RXVK_PROGRAM_CULL, .read = { { 0, 64 } } },
	};
	bad[4].write.size_B = 100; /* a 64x64 target does not fit in 100 bytes */
	const char *why[] = { "outside guest memory", "unknown program 0x0000000000001234",
	                      "count 0", "count 1000000", "does not fit", "unknown op kind 99",
	                      "overlap", "no colour target", "no target set", "compute program" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		/* the bad op comes second: the good one before it is not submitted either */
		struct rxvk_op pair[2] = { good, bad[i] };
		expect_invalid(rx, pair, 2, why[i]);
		assert_non_null(strstr(rxvk_last_error(), "op 1 ("));
	}
	struct rxvk_op draw_after_target[] = {
		rxt_target(MB, 8, 8, RXVK_FORMAT_RGBA8),
		{ .kind = RXVK_OP_DRAW, .count = 4, .program = RXVK_PROGRAM_INSTANCED, .read = { { 0, 32 } } },
	};
	expect_invalid(rx, draw_after_target, 2, "holds 32 B, 64 needed");
	assert_int_equal(rxvk_invalidate(rx, end, 1, NULL), -EINVAL);
	assert_int_equal(rxvk_cpu_wrote(rx, end - 1, 2), -EINVAL);
	rxt_destroy(rx);
	(void)state;
}

static void test_submit__failed_validation_keeps_renderer_usable(void **state)
{
	struct rxvk *rx = rxt_create((struct rxvk_config){ 0 });
	struct rxvk_op bad = { .kind = RXVK_OP_FLIP };
	assert_int_equal(rxvk_submit(rx, &bad, 1, NULL), -EINVAL);
	struct rxvk_op ok = rxt_spin(SCRATCH, 10, 5);
	uint64_t sub;
	assert_int_equal(rxvk_submit(rx, &ok, 1, &sub), 0);
	assert_int_equal(sub, 1);
	assert_int_equal(rxvk_invalidate(rx, SCRATCH, 4, NULL), 0);
	assert_int_equal(((uint32_t *)((uint8_t *)rxvk_guest(rx) + SCRATCH))[0], 5);
	rxt_destroy(rx);
	(void)state;
}

/* A crash on one of a renderer's threads while a case runs is said, with
 * its frames, and the process ends: cmocka's own handler, in place for
 * every case, ends it with nothing said when the crash is not on the
 * case's thread (docs/renderer.md, "The tests on a GPU").  The renderer
 * puts the handler in place; the crash is in a child forked after it,
 * which touches no Vulkan (a driver may not work in a child forked after
 * it was loaded: NVIDIA's does not) and inherits the handler. */
static void *crash_here(void *arg)
{
	(void)arg;
	raise(SIGSEGV);
	return NULL;
}

static void test_crash__on_a_renderer_thread_is_said_with_its_frames(void **state)
{
	(void)state;
	rxt_destroy(rxt_create((struct rxvk_config){ 0 }));
	int err[2];
	assert_int_equal(pipe(err), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(err[1], 2);
		close(err[0]);
		pthread_t t;
		if (pthread_create(&t, NULL, crash_here, NULL) == 0)
			pthread_join(t, NULL);
		_exit(0); /* not reached when the crash is said */
	}
	close(err[1]);
	char said[8192];
	size_t n = 0;
	ssize_t got;
	while (n < sizeof said - 1 && (got = read(err[0], said + n, sizeof said - 1 - n)) > 0)
		n += (size_t)got;
	said[n] = 0;
	close(err[0]);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 128 + SIGSEGV)
		fail_msg("the child ended with status %#x, not exit %d; it said: %s", status, 128 + SIGSEGV, said);
	const char *head = strstr(said, "renderer test: signal 11 at ");
	assert_non_null(head);
	assert_non_null(strstr(head, "\n")); /* and its frames after it */
	assert_non_null(strstr(head, "test-rxvk-core"));
}

int main(void)
{
	rxt_require_vulkan();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_results__equal_cpu_reference_in_both_modes),
		cmocka_unit_test(test_frame__bytes_in_target_byte_order),
		cmocka_unit_test(test_invalidate__waits_for_whole_writer_submission_not_later),
		cmocka_unit_test(test_parts__split_at_limit_with_ordered_values),
		cmocka_unit_test(test_mirror__written_back_at_end_of_writer_part),
		cmocka_unit_test(test_capture__late_page_makes_next_capture_wait),
		cmocka_unit_test(test_mirror__mixed_range_draw_flushes_outside_rendering),
		cmocka_unit_test(test_submit__invalid_ops_rejected_with_reason),
		cmocka_unit_test(test_submit__failed_validation_keeps_renderer_usable),
		cmocka_unit_test(test_crash__on_a_renderer_thread_is_said_with_its_frames),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
