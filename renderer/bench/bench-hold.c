/* bench-hold: what holding switched-from frames on the device (DESIGN.md
 * 3.3, RX_VK_HOLD_SWITCHED) gains or costs on one device.
 *
 *   rxvk-bench-hold [frames [rounds]]      (defaults: 60 frames, 3 rounds)
 *
 * The workload alternates its draws between targets, one submission a
 * frame: a 1280x720 target that is flipped and never read (U) and a mip
 * chain of three levels (512, 256, 128 square) each drawn by sampling the
 * level above through guest memory:
 *
 *   U (quads) -> M0 (quads) -> U -> M1 (samples M0's memory) -> U ->
 *   M2 (samples M1's memory) -> U -> flip U
 *
 * so every frame lets go of U four times (a switch or the flip) and of each
 * level once; M0 and M1 are read by the next level, M2 never.  Each round
 * runs the switch on, then off, on a fresh renderer (the device from
 * RX_VK_DEVICE, as the renderer picks it), after a few frames of warm-up.
 * Two more workloads split it: the never-read targets alone, and the mip
 * chain alone.  Printed for each: frames per second, what happened to the
 * frames let go of, and the renderer's time writing targets back (its own
 * recording and the carry-outs, not the device's copies) and reading back,
 * per frame and as a share of frame time; medians over the rounds, as
 * Markdown tables. */
#include "rxvk.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench-common.h"

#define MB         (1ull << 20)
#define INST       (2 * MB) /* quads: 16 B each */
#define U_ADDR     (8 * MB)
#define M0_ADDR    (16 * MB)
#define M1_ADDR    (17 * MB)
#define M2_ADDR    (17 * MB + 256 * 1024)
#define N_QUADS    256u
#define WARMUP     5
#define MAX_ROUNDS 64

static struct rxvk_op target(uint64_t addr, uint32_t w, uint32_t h)
{
	return (struct rxvk_op){.kind = RXVK_OP_SET_TARGET,
	                        .write = {addr, (uint64_t)w * h * 4},
	                        .params = {w, h, w * 4, RXVK_FORMAT_RGBA8}};
}

static struct rxvk_op quads(uint32_t first, uint32_t n)
{
	return (struct rxvk_op){.kind = RXVK_OP_DRAW,
	                        .count = n,
	                        .program = RXVK_PROGRAM_INSTANCED,
	                        .read = {{INST + (uint64_t)first * 16, (uint64_t)n * 16}},
	                        .params = {2, 0}};
}

/* A draw covering the current target, sampling a w x h level at addr. */
static struct rxvk_op sample(uint64_t addr, uint32_t w, uint32_t h)
{
	return (struct rxvk_op){.kind = RXVK_OP_DRAW,
	                        .count = 1,
	                        .program = RXVK_PROGRAM_TEXTURED,
	                        .read = {{addr, (uint64_t)w * h * 4}},
	                        .params = {w, h, w * 4, RXVK_FORMAT_RGBA8, 0, 0, 0}};
}

/* Both kinds of target, as in the top comment. */
static size_t frame_both(struct rxvk_op *ops)
{
	size_t n = 0;
	ops[n++] = target(U_ADDR, 1280, 720);
	ops[n++] = quads(0, 64);
	ops[n++] = target(M0_ADDR, 512, 512);
	ops[n++] = quads(64, 64);
	ops[n++] = target(U_ADDR, 1280, 720);
	ops[n++] = quads(128, 64);
	ops[n++] = target(M1_ADDR, 256, 256);
	ops[n++] = sample(M0_ADDR, 512, 512);
	ops[n++] = target(U_ADDR, 1280, 720);
	ops[n++] = quads(192, 64);
	ops[n++] = target(M2_ADDR, 128, 128);
	ops[n++] = sample(M1_ADDR, 256, 256);
	ops[n++] = target(U_ADDR, 1280, 720);
	ops[n++] = quads(0, N_QUADS);
	ops[n++] = (struct rxvk_op){.kind = RXVK_OP_FLIP};
	return n;
}

/* Only targets never read: U and a small one, alternating. */
static size_t frame_unread(struct rxvk_op *ops)
{
	size_t n = 0;
	for (int k = 0; k < 4; k++) {
		ops[n++] = target(U_ADDR, 1280, 720);
		ops[n++] = quads((uint32_t)k * 64, 64);
		ops[n++] = target(M2_ADDR, 128, 128);
		ops[n++] = quads((uint32_t)k * 64, 64);
	}
	ops[n++] = target(U_ADDR, 1280, 720);
	ops[n++] = quads(0, N_QUADS);
	ops[n++] = (struct rxvk_op){.kind = RXVK_OP_FLIP};
	return n;
}

/* Only the mip chain: every level but the last is read by the next. */
static size_t frame_sampled(struct rxvk_op *ops)
{
	size_t n = 0;
	ops[n++] = target(M0_ADDR, 512, 512);
	ops[n++] = quads(0, N_QUADS);
	ops[n++] = target(M1_ADDR, 256, 256);
	ops[n++] = sample(M0_ADDR, 512, 512);
	ops[n++] = target(M2_ADDR, 128, 128);
	ops[n++] = sample(M1_ADDR, 256, 256);
	ops[n++] = (struct rxvk_op){.kind = RXVK_OP_FLIP};
	return n;
}

struct workload {
	const char *name;
	size_t (*build)(struct rxvk_op *ops);
};

static const struct workload workloads[] = {
        {"both: 1280x720 never read + mip chain sampled", frame_both},
        {"never read: 1280x720 and 128x128 alternating", frame_unread},
        {"sampled: mip chain 512, 256, 128", frame_sampled},
};
#define N_WORKLOADS (sizeof workloads / sizeof workloads[0])

struct result {
	double fps;
	double held, superseded, carried_touch, carried_op, at_once; /* a frame */
	double write_ms, read_ms;                                    /* a frame */
	double write_share, read_share;                              /* % of frame time */
};

static int run(const struct workload *wl, bool hold, int frames, struct result *out, char *device,
               size_t device_size)
{
	struct rxvk *rx;
	struct rxvk_config cfg = {.guest_mb = 64,
	                          .hold_switched = hold ? RXVK_SWITCH_ON : RXVK_SWITCH_OFF};
	int rc = rxvk_create(&cfg, &rx);
	if (rc < 0) {
		fprintf(stderr, "rxvk-bench-hold: %s\n", rxvk_last_error());
		return rc;
	}
	struct rxvk_device_info info;
	rxvk_device_info_get(rx, &info);
	snprintf(device, device_size, "%s (%s)", info.name, info.driver);
	float *q = (float *)((uint8_t *)rxvk_guest(rx) + INST);
	for (uint32_t i = 0; i < N_QUADS; i++) {
		q[i * 4 + 0] = -0.9f + 1.8f * (float)(i % 16) / 15.0f;
		q[i * 4 + 1] = -0.9f + 1.8f * (float)(i / 16) / 15.0f;
		q[i * 4 + 2] = 0.15f;
		uint32_t c = 0xff000000u | (i * 2654435761u & 0xffffffu);
		memcpy(&q[i * 4 + 3], &c, 4);
	}
	rxvk_cpu_wrote(rx, INST, N_QUADS * 16);
	struct rxvk_op ops[32];
	size_t n = wl->build(ops);
	for (int i = 0; i < WARMUP && rc == 0; i++)
		rc = rxvk_submit(rx, ops, n, NULL);
	if (rc == 0)
		rc = rxvk_finish(rx);
	struct rxvk_counters c0, c1;
	rxvk_counters_get(rx, &c0);
	double t0 = bench_now_us() / 1e6;
	for (int i = 0; i < frames && rc == 0; i++)
		rc = rxvk_submit(rx, ops, n, NULL);
	if (rc == 0)
		rc = rxvk_finish(rx);
	double t1 = bench_now_us() / 1e6;
	rxvk_counters_get(rx, &c1);
	if (rc < 0) {
		fprintf(stderr, "rxvk-bench-hold: %s\n", rxvk_last_error());
		rxvk_destroy(rx);
		return rc;
	}
	double f = frames, span_ms = (t1 - t0) * 1e3;
	*out = (struct result){
	        .fps = f / (t1 - t0),
	        .held = (double)(c1.frames_held - c0.frames_held) / f,
	        .superseded = (double)(c1.frames_superseded - c0.frames_superseded) / f,
	        .carried_touch = (double)(c1.frames_carried_touch - c0.frames_carried_touch) / f,
	        .carried_op = (double)(c1.frames_carried_op - c0.frames_carried_op) / f,
	        .at_once = (double)(c1.frames_written_at_once - c0.frames_written_at_once) / f,
	        .write_ms = (double)(c1.target_write_ns - c0.target_write_ns) / 1e6 / f,
	        .read_ms = (double)(c1.read_wait_ns - c0.read_wait_ns) / 1e6 / f,
	};
	out->write_share = 100.0 * out->write_ms * f / span_ms;
	out->read_share = 100.0 * out->read_ms * f / span_ms;
	rxvk_destroy(rx);
	return 0;
}

static int positive(const char *what, const char *s, int max, int *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || v < 1 || v > max) {
		fprintf(stderr, "rxvk-bench-hold: %s '%s' is not a number from 1 to %d\n", what, s,
		        max);
		return -EINVAL;
	}
	*out = (int)v;
	return 0;
}

int main(int argc, char **argv)
{
	int frames = 60, rounds = 3;
	if (argc > 3 || (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))) {
		fprintf(stderr, "usage: rxvk-bench-hold [frames [rounds]]\n");
		return argc > 3 ? 2 : 0;
	}
	if ((argc > 1 && positive("frames", argv[1], 1000000, &frames) < 0) ||
	    (argc > 2 && positive("rounds", argv[2], MAX_ROUNDS, &rounds) < 0))
		return 2;
	static struct result all[N_WORKLOADS][2][MAX_ROUNDS];
	char device[600] = "";
	/* rounds outermost, arms interleaved: drift hits both alike */
	for (int k = 0; k < rounds; k++)
		for (size_t w = 0; w < N_WORKLOADS; w++)
			for (int arm = 0; arm < 2; arm++) {
				int rc = run(&workloads[w], arm == 0, frames, &all[w][arm][k],
				             device, sizeof device);
				if (rc < 0)
					return rc == -ENODEV ? 77 : 1;
			}
	printf("device: %s; %d frames a round after %d of warm-up, %d rounds, medians; counts are "
	       "a frame\n",
	       device, frames, WARMUP, rounds);
	for (size_t w = 0; w < N_WORKLOADS; w++) {
		struct result(*r)[MAX_ROUNDS] = all[w];
		printf("\n%s\n\n", workloads[w].name);
		printf("| RX_VK_HOLD_SWITCHED | fps | held | superseded | carried out (touch / op) "
		       "| written at once "
		       "| write target | read back |\n|---|---|---|---|---|---|---|---|\n");
		for (int arm = 0; arm < 2; arm++) {
			double v[10][MAX_ROUNDS];
			for (int k = 0; k < rounds; k++) {
				const struct result *x = &r[arm][k];
				double row[10] = {x->fps,           x->held,        x->superseded,
				                  x->carried_touch, x->carried_op,  x->at_once,
				                  x->write_ms,      x->write_share, x->read_ms,
				                  x->read_share};
				for (int j = 0; j < 10; j++)
					v[j][k] = row[j];
			}
			double m[10];
			for (int j = 0; j < 10; j++)
				m[j] = bench_median(v[j], rounds);
			printf("| %d | %.1f | %.2f | %.2f | %.2f / %.2f | %.2f | %.2f ms (%.1f%%) "
			       "| %.2f ms (%.1f%%) |\n",
			       arm == 0 ? 1 : 0, m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7],
			       m[8], m[9]);
		}
		printf("\nfps per round, on: ");
		for (int k = 0; k < rounds; k++)
			printf("%s%.1f", k ? ", " : "", r[0][k].fps);
		printf("; off: ");
		for (int k = 0; k < rounds; k++)
			printf("%s%.1f", k ? ", " : "", r[1][k].fps);
		printf("\n");
	}
	return 0;
}
