/* bench-replay: what librxvk's replay and readbacks cost on one device, in
 * the units vkprobe measures its floors in, so the two can sit side by side.
 *
 *   rxvk-bench-replay [--floor FILE [--check]] [spin-iterations]
 *                                          (20000 suits lavapipe, 200000 a GPU)
 *
 * 1. replay CPU cost per op: rxvk_submit of 1500 ops in one part (µs an op);
 * 2. one more part: the same 1500 ops in 1500 parts against one (µs a part
 *    of rxvk_submit's time), on the default path (RX_VK_PARALLEL from the
 *    environment, else its default: recorded on threads where there are
 *    four CPUs or more) and recorded on the render
 *    thread (RX_VK_PARALLEL=1), and where a part's CPU goes: recording,
 *    vkQueueSubmit, publishing;
 * 3. wake-up: a read waiting on a writer; a poller thread spins on the
 *    written value; release time minus the time the value was seen (µs);
 * 4. the field shape: a writer at op 750 of 1500, a reader thread waiting
 *    on it: release time after submit and after the value was visible,
 *    parts and replay CPU per frame; no switch, early 1, early marker, late;
 *    guest memory in place, then mirrored (every block active first);
 * 5. the early switch with nothing to do (mirrored, no in-place page): a
 *    1500-op frame's time, eight renderers with the switch on against eight
 *    with it off (created off, on, off, on ...), with the standard error
 *    that how renderers alike differ gives it.
 * Medians over repeated rounds; output is a Markdown table.
 *
 * --floor FILE: what vkprobe printed in the same call (one run or several,
 * one after another): its bare part ("submit: N parts: X us CPU each") and
 * its timeline wake-up ("wakes Y us after (median)").  The program then
 * prints each figure as a ratio to the median of vkprobe's floors, against
 * its target: one more part (the default path) <= 1.5x a bare part, an early release (`1`,
 * after the writer's value is visible, either memory mode) <= 1.5x the
 * wake-up, a marker's release <= 1.0x the wake-up, the early switch idle
 * under 1 %.  With --check it exits 3 when one is over its target, and 4
 * when none is over but one more part could not be judged because the
 * driver's vkQueueSubmit set the pace (submits_held(): a slow-submit mode
 * of the driver that rxvk-bench-queue shows with no librxvk; run again).  A
 * wake-up that is not positive, the floor's or this program's (lavapipe,
 * whose poller shares the cores: see docs/performance.md), gives no ratio: those lines say
 * "not measurable" and do not fail the check.
 *
 * --off-irq-cpus: before measuring, keeps the process off the CPUs that
 * take the GPU's interrupts (found by one round of parts): in a virtual
 * machine a thread on that CPU submits at the GPU's pace, vkprobe's bare
 * part too (docs/performance.md); each part path also prints where the
 * GPU's interrupts went while it ran.  Run vkprobe off the same CPUs
 * (taskset) for its floor.
 *
 * --irq-table FILE: prints, for a copy of /proc/interrupts (or the file
 * itself), the GPU's interrupts by CPU as --off-irq-cpus reads them, and
 * exits: where a machine's GPU interrupts go, without a GPU to run on.
 *
 * --parts N: measures one more part with N one-op parts against one N-op
 * part (2 to 1500; 1500 by default).  vkprobe's bare part is 1000 parts:
 * with --parts 1000 both keep as many parts queued on the GPU.
 *
 *   rxvk-bench-replay --ranges [spin-iterations] [rounds]   (rounds: 15)
 *
 * instead measures how replay's CPU grows with the ranges the early policy
 * tracks (at most RXVK_EARLY_RANGES, 64): for `1` and `marker`, renderers
 * with guest memory in place are taught 1, 2, 4 ... 64 ranges (a read of
 * each, on its own page, waits on an in-place writer), then submit 1500-op
 * frames in one part that write no tracked byte, so every write is checked
 * against every range and nothing splits.  Two frames: the frame of 1 (one
 * op in ten writes) and one where every op writes.  The renderers take
 * their rounds interleaved; min / median / max µs an op. */
/* getcpu and RUSAGE_THREAD: _GNU_SOURCE, which the build defines */
#include "irq.h"
#include "rxvk.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench-common.h"

#define MB (1ull << 20)
#define SLOT (2 * MB)
#define SCRATCH (4 * MB)
#define QUADS (3 * MB)
#define NOPS 1500

static struct rxvk *make(struct rxvk_config cfg)
{
	struct rxvk *rx;
	if (!cfg.guest_mb)
		cfg.guest_mb = 64;
	int rc = rxvk_create(&cfg, &rx);
	if (rc < 0) {
		fprintf(stderr, "rxvk-bench-replay: %s\n", rxvk_last_error());
		exit(rc == -19 ? 77 : 1);
	}
	return rx;
}

static struct rxvk_op spin(uint64_t addr, uint32_t iters, uint32_t value)
{
	return (struct rxvk_op){ .kind = RXVK_OP_DISPATCH, .count = 1, .program = RXVK_PROGRAM_SPIN,
	                         .write = { addr, 8 }, .params = { iters, value } };
}

/* 1500 ops of a frame: small instanced draws into one target, a few spins */
static size_t frame_ops(struct rxvk_op *ops, struct rxvk *rx)
{
	float *q = (float *)((uint8_t *)rxvk_guest(rx) + QUADS);
	for (int i = 0; i < 16; i++) {
		q[i * 4] = -0.9f + 0.1f * (float)i;
		q[i * 4 + 1] = 0.0f;
		q[i * 4 + 2] = 0.02f;
		uint32_t c = 0xff808080u;
		memcpy(&q[i * 4 + 3], &c, 4);
	}
	rxvk_cpu_wrote(rx, QUADS, 256);
	size_t n = 0;
	ops[n++] = (struct rxvk_op){ .kind = RXVK_OP_SET_TARGET, .write = { 8 * MB, 64 * 64 * 4 },
	                             .params = { 64, 64, 256, RXVK_FORMAT_RGBA8 } };
	for (; n < NOPS; n++)
		ops[n] = (n % 10) ? (struct rxvk_op){ .kind = RXVK_OP_DRAW, .count = 16,
		                                      .program = RXVK_PROGRAM_INSTANCED,
		                                      .read = { { QUADS, 256 } } }
		                  : spin(SCRATCH + 8 * (n % 64), 1, (uint32_t)n);
	return n;
}

struct poller {
	volatile uint32_t *word;
	uint32_t value;
	double seen_us;
	atomic_int go;
};

static void *poll_main(void *arg)
{
	struct poller *p = arg;
	while (!atomic_load(&p->go))
		;
	while (*p->word != p->value)
		;
	p->seen_us = bench_now_us();
	return NULL;
}

/* Rounds of: submit `ops`, a poller spins on the writer's value, this
 * thread reads through rxvk_invalidate.  Returns median release-after-seen
 * (µs) and release-after-submit (ms). */
static void wake_rounds(struct rxvk *rx, struct rxvk_op *ops, size_t n, size_t writer, int rounds,
                        double *wake_us, double *release_ms, const char **what)
{
	double *w = calloc((size_t)rounds, sizeof *w), *r = calloc((size_t)rounds, sizeof *r);
	static const char *names[] = { "nothing", "whole submission", "writer's part", "late",
		                       "writer's marker" };
	for (int k = 0; k < rounds; k++) {
		uint32_t value = 1000000u + (uint32_t)k;
		ops[writer].params[1] = value;
		struct poller p = { (volatile uint32_t *)((uint8_t *)rxvk_guest(rx) + SLOT), value, 0, 0 };
		pthread_t th;
		pthread_create(&th, NULL, poll_main, &p);
		atomic_store(&p.go, 1);
		double t0 = bench_now_us();
		if (rxvk_submit(rx, ops, n, NULL) < 0) {
			fprintf(stderr, "submit: %s\n", rxvk_last_error());
			exit(1);
		}
		struct rxvk_wait wt;
		rxvk_invalidate(rx, SLOT, 8, &wt);
		double t1 = bench_now_us();
		*what = names[wt.what];
		if (wt.what != RXVK_WAIT_LATE && *p.word != value) {
			fprintf(stderr, "read released before its writer's value was in memory\n");
			exit(1);
		}
		if (wt.what == RXVK_WAIT_LATE) {
			/* the value was not waited for: the poller sees it later */
			pthread_join(th, NULL);
			w[k] = 0;
		} else {
			pthread_join(th, NULL);
			w[k] = t1 - p.seen_us;
		}
		r[k] = (t1 - t0) / 1000.0;
		rxvk_finish(rx);
	}
	*wake_us = bench_median(w, rounds);
	*release_ms = bench_median(r, rounds);
	free(w);
	free(r);
}

/* 1 and 2: CPU cost of replay, one part and one part per op; a part's
 * CPU split into recording, submitting and publishing, on one path */
struct part_path {
	double us;                             /* one more part (n one-op parts against one op each) */
	double e2e_us;                         /* a part of those, submit to finish (GPU included) */
	double rec_us, sub_us, pub_us;         /* a part: recording, vkQueueSubmit, publishing (any thread) */
	double get_us, play_us;                /* of recording: taking a command buffer, its commands */
	double pool_us, pools, pools_inline;   /* of taking one: making pools there; pools made, there */
	double make_us, reset_us, resets;      /* a pool: making one, resetting one (µs each); resets */
	/* the conditions the process ran in, to tell a slow process from a
	 * slow renderer: the render thread's own CPU in rxvk_submit (median
	 * µs a part, beside `us`'s wall time), its involuntary context
	 * switches in the 9 rounds, the process's CPU a part (every thread,
	 * the driver's too), the machine's steal time (share of all CPU time,
	 * /proc/stat) and the CPUs and NUMA nodes the render thread was on */
	double wall_us, thread_cpu_us, proc_cpu_us, steal;
	long nivcsw;
	unsigned cpu0, cpu1, node0, node1;
	char irq[64]; /* where the GPU's interrupts went in the 9 rounds */
	/* RX_VK_OFF_IRQ_CPUS=1's path: its recording threads' CPUs were set
	 * (irq_cpu_moves) after warm_s of rounds, before the 9 measured */
	uint64_t irq_moves;
	double warm_s;
};

/* The machine's CPU time from /proc/stat's "cpu" line: *all (every field
 * up to steal) and *steal, in ticks; -1 where it cannot be read. */
static int stat_ticks(unsigned long long *all, unsigned long long *steal)
{
	FILE *f = fopen("/proc/stat", "r");
	if (!f)
		return -1;
	unsigned long long v[8] = { 0 };
	int got = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
	                 &v[5], &v[6], &v[7]);
	fclose(f);
	if (got != 8)
		return -1;
	*all = 0;
	for (int i = 0; i < 8; i++)
		*all += v[i];
	*steal = v[7];
	return 0;
}

/* --irq-table FILE: the GPU's interrupts by CPU in FILE (a copy of
 * /proc/interrupts, or /proc/interrupts itself), as rxvk_gpu_irqs()
 * (renderer/src/irq.c, the reader of RX_VK_OFF_IRQ_CPUS too) reads them: a
 * row a CPU that took any.  0, or 2 when FILE cannot be read. */
static int irq_table_main(const char *path)
{
	static unsigned long long irq[RXVK_IRQ_CPUS];
	int width = rxvk_gpu_irqs(path, irq);
	if (width < 0) {
		fprintf(stderr, "rxvk-bench-replay: --irq-table %s: %s\n", path,
		        access(path, R_OK) == 0 ? "no header of CPU columns" : strerror(errno));
		return 2;
	}
	printf("| CPU | the GPU's interrupts |\n|---|---|\n");
	int rows = 0;
	for (int c = 0; c < width; c++)
		if (irq[c]) {
			printf("| %d | %llu |\n", c, irq[c]);
			rows++;
		}
	if (!rows)
		printf("| none | 0 |\n");
	return 0;
}

/* "CPU 14: 297884 of 297900" for the CPU that took most of the GPU's
 * interrupts between before and after (ncpu columns), into buf. */
static void irq_where(const unsigned long long *before, const unsigned long long *after, int ncpu, char *buf,
                      size_t size)
{
	unsigned long long all = 0, most = 0;
	int at = -1;
	for (int c = 0; c < ncpu; c++) {
		unsigned long long d = after[c] - before[c];
		all += d;
		if (d > most) {
			most = d;
			at = c;
		}
	}
	if (ncpu <= 0)
		snprintf(buf, size, "not known (no /proc/interrupts)");
	else if (!all)
		snprintf(buf, size, "none counted");
	else
		snprintf(buf, size, "CPU %d: %llu of %llu", at, most, all);
}

struct part_cost {
	double op_us;                          /* per op in one part */
	uint32_t parallel;                     /* the default path's RX_VK_PARALLEL */
	struct part_path par;                  /* the default path */
	struct part_path inl;                  /* every part recorded on the render thread (RX_VK_PARALLEL=1) */
	struct part_path off;                  /* the default path with RX_VK_OFF_IRQ_CPUS=1 */
	size_t parts;                          /* one-op parts a round (--parts) */
};

/* n one-op parts, 9 times: the median µs a part (op_us not taken off) and
 * the per-step counters' means into *pp.  With off_irq, the renderer has
 * RX_VK_OFF_IRQ_CPUS=1 and first submits rounds until it has set its
 * threads' CPUs, 2 s at most (it looks every 250 ms). */
static void parts_run(struct rxvk_op *ops, size_t n, uint32_t *parallel, bool off_irq, struct part_path *pp)
{
	struct rxvk *rx = make((struct rxvk_config){ .part_ops = 1, .parallel = *parallel,
	                                             .off_irq_cpus = off_irq ? RXVK_SWITCH_ON : RXVK_SWITCH_DEFAULT });
	struct rxvk_config eff;
	rxvk_config_get(rx, &eff);
	*parallel = eff.parallel;
	frame_ops(ops, rx);
	double w0 = bench_now_us();
	while (off_irq && bench_now_us() - w0 < 2e6) {
		struct rxvk_counters c;
		rxvk_counters_get(rx, &c);
		if ((pp->irq_moves = c.irq_cpu_moves))
			break;
		rxvk_submit(rx, ops, n, NULL);
		rxvk_finish(rx);
	}
	pp->warm_s = (bench_now_us() - w0) / 1e6;
	struct rxvk_counters p0, p1;
	double per_part[9], e2e[9], thread_cpu[9];
	struct rusage u0, u1;
	unsigned long long all0 = 0, steal0 = 0, all1 = 0, steal1 = 0;
	static unsigned long long irq0[RXVK_IRQ_CPUS], irq1[RXVK_IRQ_CPUS];
	int ncpu = rxvk_gpu_irqs(RXVK_PROC_INTERRUPTS, irq0);
	bool ticks = stat_ticks(&all0, &steal0) == 0;
	getrusage(RUSAGE_THREAD, &u0);
	getcpu(&pp->cpu0, &pp->node0);
	double proc0 = bench_clock_us(CLOCK_PROCESS_CPUTIME_ID);
	rxvk_counters_get(rx, &p0);
	for (int k = 0; k < 9; k++) {
		double c0 = bench_clock_us(CLOCK_THREAD_CPUTIME_ID);
		double t0 = bench_now_us();
		rxvk_submit(rx, ops, n, NULL);
		per_part[k] = (bench_now_us() - t0) / (double)n;
		thread_cpu[k] = (bench_clock_us(CLOCK_THREAD_CPUTIME_ID) - c0) / (double)n;
		rxvk_finish(rx);
		e2e[k] = (bench_now_us() - t0) / (double)n;
	}
	rxvk_counters_get(rx, &p1);
	pp->proc_cpu_us = (bench_clock_us(CLOCK_PROCESS_CPUTIME_ID) - proc0) / (9.0 * (double)n);
	getcpu(&pp->cpu1, &pp->node1);
	getrusage(RUSAGE_THREAD, &u1);
	pp->nivcsw = u1.ru_nivcsw - u0.ru_nivcsw;
	pp->steal = ticks && stat_ticks(&all1, &steal1) == 0 && all1 > all0
	                    ? (double)(steal1 - steal0) / (double)(all1 - all0)
	                    : NAN;
	pp->thread_cpu_us = bench_median(thread_cpu, 9);
	if (ncpu > 0 && rxvk_gpu_irqs(RXVK_PROC_INTERRUPTS, irq1) != ncpu)
		ncpu = -1;
	irq_where(irq0, irq1, ncpu, pp->irq, sizeof pp->irq);
	rxvk_destroy(rx);
	double parts_n = (double)(p1.parts - p0.parts);
	pp->rec_us = (double)(p1.part_record_ns - p0.part_record_ns) / 1e3 / parts_n;
	pp->sub_us = (double)(p1.part_submit_ns - p0.part_submit_ns) / 1e3 / parts_n;
	pp->pub_us = (double)(p1.part_publish_ns - p0.part_publish_ns) / 1e3 / parts_n;
	pp->get_us = (double)(p1.part_cmd_get_ns - p0.part_cmd_get_ns) / 1e3 / parts_n;
	pp->play_us = (double)(p1.part_play_ns - p0.part_play_ns) / 1e3 / parts_n;
	pp->pool_us = (double)(p1.part_cmd_pool_ns - p0.part_cmd_pool_ns) / 1e3 / parts_n;
	pp->pools = (double)p1.part_cmd_pools; /* the renderer's life: 9 rounds and its set-up */
	pp->pools_inline = (double)p1.part_cmd_pools_inline;
	pp->make_us = p1.part_cmd_pools ? (double)p1.part_cmd_pool_make_ns / 1e3 / (double)p1.part_cmd_pools : 0;
	pp->reset_us = p1.part_cmd_pool_resets
	                       ? (double)p1.part_cmd_pool_reset_ns / 1e3 / (double)p1.part_cmd_pool_resets
	                       : 0;
	pp->resets = (double)p1.part_cmd_pool_resets;
	pp->e2e_us = bench_median(e2e, 9);
	pp->us = bench_median(per_part, 9);
	pp->wall_us = pp->us; /* `us` then has the op's own cost taken off */
}

/* What RX_VK_OFF_IRQ_CPUS=1 costs the recycler thread at each look (every
 * 250 ms): one read of /proc/interrupts, the median of 101 in µs; -1 where
 * it cannot be read. */
static double irq_look_us(void)
{
	static unsigned long long irq[RXVK_IRQ_CPUS];
	double t[101];
	for (int k = 0; k < 101; k++) {
		double t0 = bench_now_us();
		if (rxvk_gpu_irqs(RXVK_PROC_INTERRUPTS, irq) <= 0)
			return -1;
		t[k] = bench_now_us() - t0;
	}
	return bench_median(t, 101);
}

/* --off-irq-cpus: one renderer submits a round of one-op parts, and every
 * CPU that took a quarter or more of the GPU's interrupts in it is taken out
 * of this thread's CPUs before any measured renderer exists, so that every
 * thread created after (the renderers', the driver's) runs elsewhere.  What
 * was done goes into said. */
static void off_irq_cpus(struct rxvk_op *ops, char *said, size_t size)
{
	static unsigned long long before[RXVK_IRQ_CPUS], after[RXVK_IRQ_CPUS];
	int ncpu = rxvk_gpu_irqs(RXVK_PROC_INTERRUPTS, before);
	struct rxvk *rx = make((struct rxvk_config){ .part_ops = 1 });
	size_t n = frame_ops(ops, rx);
	rxvk_submit(rx, ops, n, NULL);
	rxvk_finish(rx);
	rxvk_destroy(rx);
	if (ncpu <= 0 || rxvk_gpu_irqs(RXVK_PROC_INTERRUPTS, after) != ncpu) {
		snprintf(said, size, "nothing: /proc/interrupts cannot be read");
		return;
	}
	cpu_set_t allowed, keep;
	if (sched_getaffinity(0, sizeof allowed, &allowed) < 0) {
		snprintf(said, size, "nothing: the CPUs of this thread cannot be read");
		return;
	}
	char why[256];
	int out = rxvk_irq_cpus_off(before, after, ncpu, 1, &allowed, &keep, why, sizeof why);
	if (out < 0)
		snprintf(said, size, "nothing: no GPU interrupt was counted in a round");
	else if (!out)
		snprintf(said, size, "nothing: %.180s", why);
	else if (sched_setaffinity(0, sizeof keep, &keep) < 0)
		snprintf(said, size, "nothing: the CPUs could not be set");
	else
		snprintf(said, size, "%.180s of the GPU's interrupts in a round", why);
}

static size_t replay_cost(struct rxvk_op *ops, struct rxvk_device_info *info, struct part_cost *pc)
{
	struct rxvk *rx = make((struct rxvk_config){ .part_ops = NOPS });
	rxvk_device_info_get(rx, info);
	size_t n = frame_ops(ops, rx);
	size_t np = pc->parts < n ? pc->parts : n; /* the ops (and one-op parts) measured here */
	double per_op[9];
	for (int k = 0; k < 9; k++) {
		double t0 = bench_now_us();
		rxvk_submit(rx, ops, np, NULL);
		per_op[k] = (bench_now_us() - t0) / (double)np;
		rxvk_finish(rx);
	}
	rxvk_destroy(rx);
	pc->op_us = bench_median(per_op, 9);
	/* the default path (RX_VK_PARALLEL from the environment, else its default),
	 * then every part recorded on the render thread */
	pc->parallel = 0;
	parts_run(ops, np, &pc->parallel, false, &pc->par);
	pc->par.us -= pc->op_us;
	uint32_t one = 1;
	parts_run(ops, np, &one, false, &pc->inl);
	pc->inl.us -= pc->op_us;
	uint32_t same = pc->parallel;
	parts_run(ops, np, &same, true, &pc->off);
	pc->off.us -= pc->op_us;
	return n;
}

/* A path's rows of the table: its one more part (headed by `what`), and
 * where the part's CPU went (`cpu` names on which thread). */
static void print_path(const char *what, const char *cpu, const struct part_path *pp)
{
	printf("| %s | %.2f µs |\n", what, pp->us);
	printf("| a part of those, submit to finish (the GPU's included) | %.2f µs |\n", pp->e2e_us);
	printf("| its CPU%s: recording / vkQueueSubmit / publishing | %.2f / %.2f / %.2f µs |\n", cpu,
	       pp->rec_us, pp->sub_us, pp->pub_us);
	printf("| of its recording: taking a command buffer / its commands / begin and end | %.2f / %.2f / %.2f µs |\n",
	       pp->get_us, pp->play_us, pp->rec_us - pp->get_us - pp->play_us);
	printf("| of taking a command buffer: making command pools there / pools made in 9 rounds, there | %.2f µs / %.0f, %.0f |\n",
	       pp->pool_us, pp->pools, pp->pools_inline);
	printf("| a command pool (32 command buffers): making one / resetting one (resets) | %.1f / %.1f µs (%.0f) |\n",
	       pp->make_us, pp->reset_us, pp->resets);
	printf("| the process, µs a part: rxvk_submit's wall time / the render thread's own CPU in it / the "
	       "process's CPU (every thread, the driver's too); the render thread's involuntary switches; the "
	       "machine's steal time; its CPU (NUMA node) first and last | %.2f / %.2f / %.2f µs; %ld; %.2f %%; "
	       "%u (%u), %u (%u) |\n",
	       pp->wall_us, pp->thread_cpu_us, pp->proc_cpu_us, pp->nivcsw, pp->steal * 100, pp->cpu0, pp->node0, pp->cpu1,
	       pp->node1);
	printf("| the GPU's interrupts in those rounds, the CPU that took most | %s |\n", pp->irq);
}

enum { IDLE_ROUNDS = 21, IDLE_R = 16, IDLE_OLD_R = 4 };

/* 5: the early switch where it has nothing to do: IDLE_R renderers,
 * created off, on, off, on ..., frames interleaved in rotating order so
 * drift on a shared machine hits all alike.  Each renderer's median frame
 * is one sample of its arm: renderers alike differ by a few per cent (where
 * their memory landed, their threads), an offset no number of rounds takes
 * away, so the switch's cost is the mean of the "on" renderers' medians
 * against the mean of the "off" ones, with its standard error from how the
 * renderers of one arm differ.  The first four (off, on, off, on) give the
 * measure as it was with four renderers, printed beside it.  Each frame's
 * time is split into rxvk_submit, the read and rxvk_finish, and the parts'
 * recording CPU (any thread) is kept.  Returns 1 when a switch was not
 * idle, else 0 with the medians (ms). */
struct idle_cost {
	double frame[IDLE_R], submit[IDLE_R], read[IDLE_R], finish[IDLE_R], record[IDLE_R];
};

static int idle_switch(struct rxvk_op *ops, struct idle_cost *ic)
{
	size_t n = 0;
	static double t[4][IDLE_R][IDLE_ROUNDS];
	struct rxvk *r4[IDLE_R];
	struct rxvk_counters c0[IDLE_R];
	for (int r = 0; r < IDLE_R; r++) {
		r4[r] = make((struct rxvk_config){ .mirror = RXVK_SWITCH_ON, .guest_mb = 32,
		                                   .readback_early = r % 2 ? RXVK_EARLY_PART : RXVK_EARLY_OFF });
		n = frame_ops(ops, r4[r]);
		for (int k = 0; k < 3; k++) { /* activate the mirror blocks */
			rxvk_submit(r4[r], ops, n, NULL);
			rxvk_finish(r4[r]);
		}
		rxvk_counters_get(r4[r], &c0[r]);
	}
	for (int k = 0; k < IDLE_ROUNDS; k++)
		for (int i = 0; i < IDLE_R; i++) {
			int r = (k + i) % IDLE_R;
			double t0 = bench_now_us();
			rxvk_submit(r4[r], ops, n, NULL);
			double t1 = bench_now_us();
			rxvk_invalidate(r4[r], SCRATCH, 8, NULL);
			double t2 = bench_now_us();
			rxvk_finish(r4[r]);
			double t3 = bench_now_us();
			t[0][r][k] = (t3 - t0) / 1000.0;
			t[1][r][k] = (t1 - t0) / 1000.0;
			t[2][r][k] = (t2 - t1) / 1000.0;
			t[3][r][k] = (t3 - t2) / 1000.0;
		}
	int bad = 0;
	for (int r = 0; r < IDLE_R; r++) {
		struct rxvk_counters c;
		rxvk_counters_get(r4[r], &c);
		if (r % 2 && (c.early_ranges || c.parts_split_early || c.early_pages_noted)) {
			fprintf(stderr, "early switch was not idle: %llu ranges, %llu splits\n",
			        (unsigned long long)c.early_ranges, (unsigned long long)c.parts_split_early);
			bad = 1;
		}
		rxvk_destroy(r4[r]);
		ic->frame[r] = bench_median(t[0][r], IDLE_ROUNDS);
		ic->submit[r] = bench_median(t[1][r], IDLE_ROUNDS);
		ic->read[r] = bench_median(t[2][r], IDLE_ROUNDS);
		ic->finish[r] = bench_median(t[3][r], IDLE_ROUNDS);
		ic->record[r] = (double)(c.part_record_ns - c0[r].part_record_ns) / 1e6 / IDLE_ROUNDS;
	}
	return bad;
}

/* The mean and the sample variance of the arm's renderers (r = arm, arm +
 * 2, ... below nr) of v. */
static void arm_stats(const double *v, int arm, int nr, double *mean, double *var)
{
	double s = 0, ss = 0;
	int k = 0;
	for (int r = arm; r < nr; r += 2, k++)
		s += v[r];
	*mean = s / k;
	for (int r = arm; r < nr; r += 2)
		ss += (v[r] - *mean) * (v[r] - *mean);
	*var = k > 1 ? ss / (k - 1) : 0;
}

/* The switch's cost (on against off, a fraction), its standard error, and
 * what one renderer's median differs by within an arm (the pooled
 * standard deviation, a fraction of "off"). */
struct idle_judged {
	double cost, se, alike, off_ms, on_ms, cost_old;
};

static struct idle_judged idle_judge(const struct idle_cost *ic)
{
	struct idle_judged j;
	double var_off, var_on, m_old_off, m_old_on, v;
	arm_stats(ic->frame, 0, IDLE_R, &j.off_ms, &var_off);
	arm_stats(ic->frame, 1, IDLE_R, &j.on_ms, &var_on);
	j.cost = j.on_ms / j.off_ms - 1;
	j.se = sqrt(var_off / (IDLE_R / 2) + var_on / (IDLE_R / 2)) / j.off_ms;
	j.alike = sqrt((var_off + var_on) / 2) / j.off_ms;
	arm_stats(ic->frame, 0, IDLE_OLD_R, &m_old_off, &v);
	arm_stats(ic->frame, 1, IDLE_OLD_R, &m_old_on, &v);
	j.cost_old = m_old_on / m_old_off - 1;
	return j;
}

/* vkprobe's floors, from its output */
struct floors {
	double part[16], wake[16];
	int n_part, n_wake;
};

static int floors_read(const char *path, struct floors *f)
{
	FILE *in = fopen(path, "r");
	if (!in) {
		fprintf(stderr, "rxvk-bench-replay: --floor %s: cannot open it\n", path);
		return -1;
	}
	char line[512];
	int no = 0;
	while (fgets(line, sizeof line, in)) {
		no++;
		int parts;
		double v;
		const char *w = strstr(line, "timeline wait wakes ");
		if (sscanf(line, "submit: %d parts: %lf us CPU each", &parts, &v) == 2) {
			if (f->n_part < 16)
				f->part[f->n_part++] = v;
		} else if (strncmp(line, "submit:", 7) == 0 || (strncmp(line, "wake:", 5) == 0 && !w)) {
			fprintf(stderr, "rxvk-bench-replay: %s:%d: not a vkprobe line this program knows\n", path, no);
			fclose(in);
			return -1;
		} else if (w && sscanf(w, "timeline wait wakes %lf us after", &v) == 1) {
			if (f->n_wake < 16)
				f->wake[f->n_wake++] = v;
		}
	}
	fclose(in);
	if (!f->n_part || !f->n_wake) {
		fprintf(stderr, "rxvk-bench-replay: --floor %s: no vkprobe %s line in it\n", path,
		        f->n_part ? "\"wake:\"" : "\"submit:\"");
		return -1;
	}
	return 0;
}

static void print_range(const char *what, double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, bench_cmp_d);
	printf("vkprobe %s: %.2f", what, v[0]);
	if (n > 1)
		printf("–%.2f", v[n - 1]);
	printf(" µs (%d run%s, median %.2f)\n", n, n > 1 ? "s" : "", bench_median(v, n));
}

/* One ratio line; returns 1 when it is over its target. */
static int ratio_line(const char *what, double value, double floor, double target)
{
	if (floor <= 0 || value <= 0) {
		printf("| %s | %.2f µs | not measurable (floor %.2f µs) | ≤ %.1f× | — |\n", what, value, floor, target);
		return 0;
	}
	double r = value / floor;
	printf("| %s | %.2f µs | %.2f× | ≤ %.1f× | %s |\n", what, value, r, target, r <= target ? "met" : "**over**");
	return r > target;
}

/* --ranges: a renderer taught `ranges` tracked ranges (see the top) */
#define TRACK (16 * MB)
#define RANGE_STEPS 7 /* 1, 2, 4 ... 64 */

static struct rxvk *taught(enum rxvk_early early, unsigned ranges, uint32_t iters)
{
	struct rxvk *rx = make((struct rxvk_config){ .mirror = RXVK_SWITCH_OFF, .part_ops = NOPS,
	                                             .readback_early = early });
	for (unsigned i = 0; i < ranges; i++) {
		uint64_t addr = TRACK + (uint64_t)i * 2 * RXVK_PAGE_SIZE_B;
		struct rxvk_counters c = { 0 };
		for (int tries = 0; tries < 5 && c.early_ranges <= i; tries++) {
			struct rxvk_op w = spin(addr, iters, i + 1);
			if (rxvk_submit(rx, &w, 1, NULL) < 0) {
				fprintf(stderr, "submit: %s\n", rxvk_last_error());
				exit(1);
			}
			rxvk_invalidate(rx, addr, 8, NULL);
			rxvk_finish(rx);
			rxvk_counters_get(rx, &c);
		}
		if (c.early_ranges != i + 1) {
			fprintf(stderr, "rxvk-bench-replay: range %u was not learned (%llu tracked); "
			                "more spin iterations?\n", i + 1, (unsigned long long)c.early_ranges);
			exit(1);
		}
	}
	return rx;
}

/* every op a one-iteration spin writing a scratch word */
static size_t writes_ops(struct rxvk_op *ops)
{
	for (size_t i = 0; i < NOPS; i++)
		ops[i] = spin(SCRATCH + 8 * (i % 512), 1, (uint32_t)i);
	return NOPS;
}

static void print_spread(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, bench_cmp_d);
	printf(" %.3f / %.3f / %.3f |", v[0], bench_median(v, n), v[n - 1]);
}

static int ranges_main(uint32_t iters, int rounds)
{
	enum { POLICIES = 2, SHAPES = 2, N = 1 + POLICIES * RANGE_STEPS };
	static const enum rxvk_early policy[POLICIES] = { RXVK_EARLY_PART, RXVK_EARLY_MARKER };
	static struct rxvk_op ops[SHAPES][NOPS + 8];
	struct rxvk *rx[N];
	unsigned ranges[N];
	double *us[N][SHAPES];
	struct rxvk_device_info info;
	rx[0] = make((struct rxvk_config){ .mirror = RXVK_SWITCH_OFF, .part_ops = NOPS });
	ranges[0] = 0;
	rxvk_device_info_get(rx[0], &info);
	for (int p = 0; p < POLICIES; p++)
		for (int k = 0; k < RANGE_STEPS; k++) {
			int i = 1 + p * RANGE_STEPS + k;
			ranges[i] = 1u << k;
			rx[i] = taught(policy[p], ranges[i], iters);
		}
	size_t n[SHAPES] = { frame_ops(ops[0], rx[0]), writes_ops(ops[1]) };
	for (int i = 0; i < N; i++)
		for (int s = 0; s < SHAPES; s++)
			us[i][s] = calloc((size_t)rounds, sizeof(double));
	struct rxvk_counters c0[N], c1[N];
	for (int i = 0; i < N; i++) {
		frame_ops(ops[0], rx[i]); /* its quads in this renderer's memory */
		rxvk_counters_get(rx[i], &c0[i]);
	}
	for (int k = 0; k < rounds; k++)
		for (int j = 0; j < N; j++) {
			int i = (j + k) % N; /* a different renderer first each round */
			for (int s = 0; s < SHAPES; s++) {
				double t0 = bench_now_us();
				if (rxvk_submit(rx[i], ops[s], n[s], NULL) < 0) {
					fprintf(stderr, "submit: %s\n", rxvk_last_error());
					return 1;
				}
				us[i][s][k] = (bench_now_us() - t0) / (double)n[s];
				rxvk_finish(rx[i]);
			}
		}
	printf("device: %s (%s)\n\n", info.name, info.driver);
	printf("| policy | tracked ranges | replay CPU per op, the replay frame (one op in ten writes): min / median / max µs "
	       "| every op writes: min / median / max µs | parts a submission | ranges checked |\n"
	       "|---|---|---|---|---|---|\n");
	int bad = 0;
	for (int i = 0; i < N; i++) {
		rxvk_counters_get(rx[i], &c1[i]);
		double parts = (double)(c1[i].parts - c0[i].parts) / (double)(c1[i].submissions - c0[i].submissions);
		printf("| %s | %u |", i == 0 ? "off" : i <= RANGE_STEPS ? "1" : "marker", ranges[i]);
		for (int s = 0; s < SHAPES; s++)
			print_spread(us[i][s], rounds);
		printf(" %.2f | %llu |\n", parts, (unsigned long long)c1[i].early_ranges);
		/* a split or a lost range would measure something else */
		if (parts != 1.0 || c1[i].early_ranges != ranges[i] || c1[i].parts_split_early != c0[i].parts_split_early)
			bad = 1;
		for (int s = 0; s < SHAPES; s++)
			free(us[i][s]);
		rxvk_destroy(rx[i]);
	}
	if (bad)
		fprintf(stderr, "rxvk-bench-replay: a renderer split a part or lost a range during the rounds\n");
	return bad;
}

/* The ratios to vkprobe's floors (see the top); 3 with `check` when one
 * is over its target. */
/* Whether the driver's vkQueueSubmit, not the renderer, set a path's pace:
 * vkQueueSubmit alone took over twice vkprobe's whole bare part and at
 * least three quarters of a part's submit to finish.  On the H200 the
 * driver's submit takes 15-30 µs in some processes and 2-4 µs in others,
 * with no librxvk in the process (rxvk-bench-queue: 6 of 12 processes free
 * to run on any CPU, none of 30 pinned to one; docs/performance.md).  A
 * renderer that made its own submits slower without their setting the
 * pace is still judged. */
static bool submits_held(const struct part_path *pp, double part_floor)
{
	return part_floor > 0 && pp->sub_us > 2 * part_floor && pp->sub_us >= 0.75 * pp->e2e_us;
}

static int check_floors(struct floors *fl, const struct part_cost *pc, double wake[2][4], double idle,
                        double idle_se, bool check)
{
	printf("\n");
	print_range("bare part (one vkQueueSubmit with a timeline signal)", fl->part, fl->n_part);
	print_range("timeline wake-up after the writer's value", fl->wake, fl->n_wake);
	double part_floor = bench_median(fl->part, fl->n_part), wake_floor = bench_median(fl->wake, fl->n_wake);
	int over = 0;
	printf("\n| against vkprobe's floor (same call) | librxvk | ratio | target | |\n|---|---|---|---|---|\n");
	bool held = submits_held(&pc->par, part_floor);
	if (held)
		printf("| one more part / bare part | %.2f µs | %.2f× | ≤ 1.5× | not judged: vkQueueSubmit alone took "
		       "%.2f µs a part of %.2f µs submit to finish, the driver's slow-submit mode (rxvk-bench-queue "
		       "shows it with no librxvk) |\n",
		       pc->par.us, pc->par.us / part_floor, pc->par.sub_us, pc->par.e2e_us);
	else
		over += ratio_line("one more part / bare part", pc->par.us, part_floor, 1.5);
	/* not checked: the path RX_VK_PARALLEL=1 takes, for comparison */
	ratio_line("not checked: one more part on the render thread (RX_VK_PARALLEL=1) / bare part",
	           pc->inl.us, part_floor, 1.5);
	ratio_line("not checked: one more part with RX_VK_OFF_IRQ_CPUS=1 / bare part", pc->off.us, part_floor, 1.5);
	over += ratio_line("early release (`1`), in place / wake-up", wake[0][1], wake_floor, 1.5);
	over += ratio_line("early release (`1`), mirrored / wake-up", wake[1][1], wake_floor, 1.5);
	over += ratio_line("marker release, in place / wake-up", wake[0][2], wake_floor, 1.0);
	over += ratio_line("marker release, mirrored / wake-up", wake[1][2], wake_floor, 1.0);
	printf("| early switch idle (± standard error) | %+.2f %% ± %.2f %% | — | < 1 %% | %s |\n", idle * 100,
	       idle_se * 100, idle < 0.01 ? "met" : "**over**");
	over += idle >= 0.01;
	if (check)
		printf("\ncheck: %d of 6 over target%s\n", over,
		       held ? "; one more part not judged (the driver's submits were slow in this process: run again)" : "");
	if (!check)
		return 0;
	return over ? 3 : held ? 4 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--irq-table") == 0)
		return irq_table_main(argv[2]);
	if (argc > 1 && strcmp(argv[1], "--ranges") == 0)
		return ranges_main(argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 20000,
		                   argc > 3 ? atoi(argv[3]) : 15);
	struct floors fl = { 0 };
	const char *floor_path = NULL;
	bool check = false, off_irq = false;
	size_t parts = NOPS;
	int a0 = 1;
	for (; a0 < argc && strncmp(argv[a0], "--", 2) == 0; a0++) {
		if (strcmp(argv[a0], "--check") == 0) {
			check = true;
		} else if (strcmp(argv[a0], "--off-irq-cpus") == 0) {
			off_irq = true;
		} else if (strcmp(argv[a0], "--floor") == 0 && a0 + 1 < argc) {
			floor_path = argv[++a0];
		} else if (strcmp(argv[a0], "--parts") == 0 && a0 + 1 < argc) {
			char *end;
			unsigned long v = strtoul(argv[++a0], &end, 10);
			if (*end || v < 2 || v > NOPS) {
				fprintf(stderr, "rxvk-bench-replay: --parts %s: expected 2 to %d\n", argv[a0], NOPS);
				return 2;
			}
			parts = (size_t)v;
		} else {
			fprintf(stderr, "rxvk-bench-replay: unknown option %s\n"
			                "usage: rxvk-bench-replay [--floor FILE [--check]] [--parts N] [--off-irq-cpus] [spin-iterations]\n"
			                "       rxvk-bench-replay --ranges [spin-iterations] [rounds]\n"
			                "       rxvk-bench-replay --irq-table FILE\n", argv[a0]);
			return 2;
		}
	}
	if (check && !floor_path) {
		fprintf(stderr, "rxvk-bench-replay: --check needs --floor FILE (vkprobe's output from the same call)\n");
		return 2;
	}
	if (floor_path && floors_read(floor_path, &fl) < 0)
		return 2;
	uint32_t iters = a0 < argc ? (uint32_t)strtoul(argv[a0], NULL, 10) : 20000;
	static struct rxvk_op ops[NOPS + 8];
	struct rxvk_device_info info;

	char kept_off[256] = "";
	if (off_irq)
		off_irq_cpus(ops, kept_off, sizeof kept_off);

	/* 1 and 2: CPU cost of replay, one part and one part per op */
	struct part_cost pc = { .parts = parts };
	size_t n = replay_cost(ops, &info, &pc);
	struct rxvk *rx;

	/* 3: wake-up after the writer's value is visible (default policy, the
	 * writer alone: its part is its submission) */
	rx = make((struct rxvk_config){ .mirror = RXVK_SWITCH_OFF });
	struct rxvk_op one[1] = { spin(SLOT, iters, 0) };
	double wake_us, release_ms;
	const char *what;
	wake_rounds(rx, one, 1, 0, 200, &wake_us, &release_ms, &what);
	rxvk_destroy(rx);

	/* 4: the field shape, writer halfway through the frame, in both
	 * memory modes */
	enum { ARMS = 4, MODES = 2, FIELD_ROUNDS = 30 };
	const char *arms[ARMS] = { "default", "RX_VK_READBACK_EARLY=1", "RX_VK_READBACK_EARLY=marker",
		                   "RX_VK_READBACK_LATE=newest" };
	static const char *modes[MODES] = { "in place", "mirrored" };
	static const enum rxvk_early arm_early[ARMS] = { RXVK_EARLY_OFF, RXVK_EARLY_PART, RXVK_EARLY_MARKER,
		                                         RXVK_EARLY_OFF };
	double arm_wake[MODES][ARMS], arm_release[MODES][ARMS], arm_parts[MODES][ARMS], arm_cpu_ms[MODES][ARMS];
	double arm_wb_marker[MODES][ARMS];
	const char *arm_what[MODES][ARMS];
	for (int m = 0; m < MODES; m++)
		for (int a = 0; a < ARMS; a++) {
			rx = make((struct rxvk_config){ .mirror = m ? RXVK_SWITCH_ON : RXVK_SWITCH_OFF,
			                                .readback_early = arm_early[a],
			                                .readback_late = a == 3 ? RXVK_LATE_NEWEST : RXVK_LATE_OFF });
			n = frame_ops(ops, rx);
			for (size_t i = 1; i < n; i += 10)
				ops[i] = spin(SCRATCH + 8 * (i % 64), iters / 20, (uint32_t)i);
			size_t writer = n / 2;
			ops[writer] = spin(SLOT, iters, 0);
			/* rounds first so the early policy learns the range (and,
			 * mirrored, the blocks first written in place go active) */
			wake_rounds(rx, ops, n, writer, m ? 3 : 1, &arm_wake[m][a], &arm_release[m][a],
			            &arm_what[m][a]);
			struct rxvk_counters f0, f1;
			rxvk_counters_get(rx, &f0);
			wake_rounds(rx, ops, n, writer, FIELD_ROUNDS, &arm_wake[m][a], &arm_release[m][a],
			            &arm_what[m][a]);
			rxvk_counters_get(rx, &f1);
			arm_parts[m][a] = (double)(f1.parts - f0.parts) / FIELD_ROUNDS;
			arm_cpu_ms[m][a] = (double)(f1.replay_ns - f0.replay_ns) / 1e6 / FIELD_ROUNDS;
			arm_wb_marker[m][a] =
				(double)(f1.mirror_writebacks_marker - f0.mirror_writebacks_marker) / FIELD_ROUNDS;
			if (m && f1.in_place_writes != f0.in_place_writes) {
				fprintf(stderr, "mirrored field shape wrote in place: blocks not active\n");
				return 1;
			}
			rxvk_destroy(rx);
		}

	/* 5: the early switch where it has nothing to do */
	struct idle_cost ic;
	if (idle_switch(ops, &ic))
		return 1;

	printf("device: %s (%s)\n", info.name, info.driver);
	if (off_irq)
		printf("kept off (--off-irq-cpus): %s\n", kept_off);
	printf("\n");
	printf("| measure | librxvk |\n|---|---|\n");
	printf("| replay CPU cost per op (1500 ops, one part) | %.2f µs |\n", pc.op_us);
	char first[128];
	snprintf(first, sizeof first, "one more part (%zu parts against one), RX_VK_PARALLEL=%u%s", pc.parts,
	         pc.parallel, getenv("RX_VK_PARALLEL") ? "" : " (its default here)");
	print_path(first, ", on whichever thread", &pc.par);
	print_path("one more part, recorded on the render thread (RX_VK_PARALLEL=1)", "", &pc.inl);
	char third[160];
	snprintf(third, sizeof third,
	         "one more part, the default path with RX_VK_OFF_IRQ_CPUS=1 (its threads' CPUs set %llu times "
	         "in %.2f s of rounds before)",
	         (unsigned long long)pc.off.irq_moves, pc.off.warm_s);
	print_path(third, ", on whichever thread", &pc.off);
	printf("| RX_VK_OFF_IRQ_CPUS=1's look at the GPU's interrupts (/proc/interrupts, every 250 ms on the "
	       "recycler thread), median of 101 | %.1f µs |\n",
	       irq_look_us());
	printf("| read released after its writer's value is visible, median of 200 | %.1f µs |\n", wake_us);
	for (int m = 0; m < MODES; m++) {
		printf("\n| field shape, %s (writer at op %d of %d, spin %u) | released after submit | "
		       "released after the value was visible | parts a frame | replay CPU a frame | "
		       "write-backs before a marker a frame | waited for |\n"
		       "|---|---|---|---|---|---|---|\n",
		       modes[m], NOPS / 2, NOPS, iters);
		for (int a = 0; a < ARMS; a++)
			printf("| %s | %.3f ms | %.1f µs | %.2f | %.3f ms | %.2f | %s |\n", arms[a],
			       arm_release[m][a], arm_wake[m][a], arm_parts[m][a], arm_cpu_ms[m][a],
			       arm_wb_marker[m][a], arm_what[m][a]);
		printf("\n%s: early against whole: %.2fx earlier; marker against whole: %.2fx earlier\n",
		       modes[m], arm_release[m][0] / arm_release[m][1], arm_release[m][0] / arm_release[m][2]);
	}
	/* the switch: the "on" renderers against the "off" ones; how
	 * renderers of one arm differ is its yardstick */
	struct idle_judged ij = idle_judge(&ic);
	printf("\nearly switch idle (mirrored, nothing in place): %d renderers interleaved (created off, on, "
	       "...), each one's median of %d frames: off %.3f ms, on %.3f ms a frame (arm means): %+.2f%% "
	       "± %.2f%% (standard error); one renderer's median differs from its arm's by %.2f%% (standard "
	       "deviation); with the first four alone (two of each, as before): %+.2f%%\n",
	       IDLE_R, IDLE_ROUNDS, ij.off_ms, ij.on_ms, ij.cost * 100, ij.se * 100, ij.alike * 100,
	       ij.cost_old * 100);
	printf("early switch idle, each renderer's median frame (ms):");
	for (int r = 0; r < IDLE_R; r++)
		printf(" %s %.3f%s", r % 2 ? "on" : "off", ic.frame[r], r + 1 < IDLE_R ? "," : "\n");
	printf("early switch idle, a frame, arm means (submit / read / finish, ms; parts' recording CPU a "
	       "frame, ms):");
	for (int a = 0; a < 2; a++) {
		double m[4], v;
		arm_stats(ic.submit, a, IDLE_R, &m[0], &v);
		arm_stats(ic.read, a, IDLE_R, &m[1], &v);
		arm_stats(ic.finish, a, IDLE_R, &m[2], &v);
		arm_stats(ic.record, a, IDLE_R, &m[3], &v);
		printf(" %s %.3f / %.3f / %.3f (%.3f)%s", a ? "on" : "off", m[0], m[1], m[2], m[3], a ? "\n" : ";");
	}
	if (!floor_path)
		return 0;
	return check_floors(&fl, &pc, arm_wake, ij.cost, ij.se, check);
}
