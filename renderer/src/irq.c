/* irq: where the GPU's interrupts go, and RX_VK_OFF_IRQ_CPUS=1.
 *
 * A part's completion raises the GPU's interrupt on one CPU (the vector's
 * effective affinity).  In a virtual machine taking it costs that CPU tens
 * of µs, so a thread that records or submits there goes at the GPU's pace:
 * one more part 20-34 µs against 3-5 elsewhere, vkprobe's bare part alike
 * (docs/performance.md, "The slow level is the CPU that takes the GPU's
 * interrupts").  With the switch on, the recycler thread looks at the
 * GPU's interrupts by CPU every RXVK_IRQ_EVERY_NS (a read of
 * /proc/interrupts costs tens of µs: never on the render thread), and the
 * threads librxvk starts to record and submit parts (and the recycler) are
 * kept off every CPU that took a quarter or more of them; when the
 * interrupts move, so do the threads.  The game's own threads, the render
 * thread among them, are the game's: never moved. */
#include "private.h"
#include "irq.h"
#include "recorder.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The file's layout is show_interrupts()'s (kernel/irq/proc.c): a header
 * of "CPU<n>" for each online CPU, then a line an interrupt, "<irq>: " and
 * a count a column, the chip's fields, and the handlers' names, the first
 * after two spaces and each other after ", ".  A line counts when one of
 * its handlers is a GPU driver's (nvidia, amdgpu, radeon, nouveau, i915,
 * xe) by its whole name; a column's CPU is the number its header names (a
 * CPU offline has no column). */
int rxvk_gpu_irqs(const char *path, unsigned long long *irq)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	/* whole lines, however many CPUs: a line is 11 bytes a CPU, over 8 KiB
	 * past 745, and a line read in pieces would lose its handler's name
	 * (tests/data/interrupts/wide-1024.txt); the buffer is the heap's, not
	 * the looking thread's stack */
	char *line = NULL;
	size_t cap = 0;
	int col_cpu[RXVK_IRQ_CPUS], cols = 0, width = -1;
	if (getline(&line, &cap, f) > 0)
		for (char *p = line; cols < RXVK_IRQ_CPUS && (p = strstr(p, "CPU")); p += 3) {
			char *end;
			long c = strtol(p + 3, &end, 10);
			if (end == p + 3 || c < 0 || c >= RXVK_IRQ_CPUS)
				continue;
			col_cpu[cols++] = (int)c;
			if (c + 1 > width)
				width = (int)c + 1;
		}
	memset(irq, 0, RXVK_IRQ_CPUS * sizeof *irq);
	static const char *const drivers[] = { "nvidia", "amdgpu", "radeon", "nouveau", "i915", "xe" };
	while (width > 0 && getline(&line, &cap, f) > 0) {
		bool gpu = false;
		for (size_t d = 0; d < sizeof drivers / sizeof drivers[0] && !gpu; d++) {
			size_t len = strlen(drivers[d]);
			for (const char *at = line; !gpu && (at = strstr(at, drivers[d])); at += len)
				gpu = at > line && at[-1] == ' ' &&
				      (at[len] == '\n' || at[len] == ',' || at[len] == ' ' || at[len] == 0);
		}
		char *p = strchr(line, ':');
		if (!gpu || !p)
			continue;
		p++;
		for (int k = 0; k < cols; k++) {
			char *end;
			unsigned long long v = strtoull(p, &end, 10);
			if (end == p)
				break;
			irq[col_cpu[k]] += v;
			p = end;
		}
	}
	free(line);
	fclose(f);
	return width;
}

int rxvk_irq_cpus_off(const unsigned long long *before, const unsigned long long *after, int ncpu,
                      unsigned long long min_all, const cpu_set_t *allowed, cpu_set_t *keep, char *said,
                      size_t size)
{
	*keep = *allowed;
	unsigned long long all = 0;
	for (int c = 0; c < ncpu; c++)
		all += after[c] > before[c] ? after[c] - before[c] : 0;
	if (!all || all < min_all) {
		snprintf(said, size, "%llu GPU interrupts counted, fewer than %llu", all, min_all ? min_all : 1);
		return -1;
	}
	size_t len = (size_t)snprintf(said, size, "CPU");
	int out = 0;
	for (int c = 0; c < ncpu && c < CPU_SETSIZE; c++) {
		unsigned long long d = after[c] > before[c] ? after[c] - before[c] : 0;
		if (d && 4 * d >= all && CPU_ISSET(c, keep) && CPU_COUNT(keep) > 1) {
			CPU_CLR(c, keep);
			out++;
			if (len < size)
				len += (size_t)snprintf(said + len, size - len, "%s %d (%llu of %llu)", out > 1 ? "," : "",
				                        c, d, all);
		}
	}
	if (!out)
		snprintf(said, size, "no CPU of these threads took a quarter of %llu GPU interrupts", all);
	return out;
}

struct irq_watch {
	cpu_set_t allowed;   /* the creating thread's CPUs */
	cpu_set_t keep;      /* the threads' CPUs now */
	unsigned long long last[RXVK_IRQ_CPUS];
	unsigned long long now[RXVK_IRQ_CPUS]; /* a look's counts (kept off the recycler's stack) */
	int ncpu;            /* 0: no look yet (or a new file): the next is the first */
	const char *path;    /* the file of the last look */
	uint64_t at_ns;      /* the last look */
	bool armed;          /* atomic: every thread to move is started */
	bool quiet;          /* "too few interrupts" was logged */
	bool stopped;        /* the file cannot be read: nothing more is done */
};

int rxvk_irq_watch_init(struct rxvk *rx)
{
	if (rx->set.cfg.off_irq_cpus != RXVK_SWITCH_ON)
		return 0;
	struct irq_watch *w = calloc(1, sizeof *w);
	if (!w)
		return -ENOMEM;
	if (sched_getaffinity(0, sizeof w->allowed, &w->allowed) < 0) {
		rxvk_log(rx, "RX_VK_OFF_IRQ_CPUS: this thread's CPUs cannot be read (%s): no thread is moved",
		         strerror(errno));
		w->stopped = true;
	}
	w->keep = w->allowed;
	rx->irq_watch = w;
	return 0;
}

void rxvk_irq_watch_arm(struct rxvk *rx)
{
	if (rx->irq_watch)
		__atomic_store_n(&rx->irq_watch->armed, true, __ATOMIC_RELEASE);
}

void rxvk_irq_watch_free(struct rxvk *rx)
{
	free(rx->irq_watch);
	rx->irq_watch = NULL;
}

static uint64_t every_ns(struct rxvk *rx)
{
	uint64_t t = __atomic_load_n(&rx->test.irq_every_ns, __ATOMIC_RELAXED);
	return t ? t : RXVK_IRQ_EVERY_NS;
}

uint64_t rxvk_irq_watch_due_ns(struct rxvk *rx)
{
	struct irq_watch *w = rx->irq_watch;
	if (!w || w->stopped || !__atomic_load_n(&w->armed, __ATOMIC_ACQUIRE))
		return UINT64_MAX;
	if (!w->ncpu)
		return 0;
	uint64_t now = rxvk_now_ns(), next = w->at_ns + every_ns(rx);
	return now >= next ? 0 : next - now;
}

void rxvk_irq_watch_look(struct rxvk *rx)
{
	struct irq_watch *w = rx->irq_watch;
	const char *test_path = __atomic_load_n(&rx->test.irq_table, __ATOMIC_ACQUIRE);
	const char *path = test_path ? test_path : RXVK_PROC_INTERRUPTS;
	unsigned long long *now_irq = w->now;
	int ncpu = rxvk_gpu_irqs(path, now_irq);
	uint64_t now = rxvk_now_ns();
	CNT_ADD(rx, irq_looks, 1);
	if (ncpu <= 0) {
		rxvk_log(rx, "RX_VK_OFF_IRQ_CPUS: %s cannot be read (%s): no thread is moved", path,
		         ncpu < 0 ? strerror(errno) : "no header of CPU columns");
		w->stopped = true;
		return;
	}
	if (w->ncpu != ncpu || w->path != path) { /* the first look (or CPUs came online): from here on */
		memcpy(w->last, now_irq, sizeof w->last);
		w->ncpu = ncpu;
		w->path = path;
		w->at_ns = now;
		return;
	}
	cpu_set_t keep;
	char said[256];
	int out = rxvk_irq_cpus_off(w->last, now_irq, ncpu, RXVK_IRQ_MIN, &w->allowed, &keep, said, sizeof said);
	double window_s = (double)(now - w->at_ns) / 1e9;
	memcpy(w->last, now_irq, sizeof w->last);
	w->at_ns = now;
	if (out < 0) { /* too few to decide: as they are */
		if (!w->quiet && CPU_EQUAL(&w->keep, &w->allowed))
			rxvk_log(rx, "RX_VK_OFF_IRQ_CPUS: %s in %.2f s: the threads stay where they are", said, window_s);
		w->quiet = true;
		return;
	}
	if (CPU_EQUAL(&keep, &w->keep))
		return;
	int rc = rxvk_recorder_set_cpus(rx, &keep);
	if (rc < 0) {
		rxvk_log(rx, "RX_VK_OFF_IRQ_CPUS: the threads' CPUs cannot be set (%s): no thread is moved",
		         strerror(-rc));
		w->stopped = true;
		return;
	}
	w->keep = keep;
	CNT_ADD(rx, irq_cpu_moves, 1);
	if (out)
		rxvk_log(rx, "RX_VK_OFF_IRQ_CPUS: %d threads kept off %s: the GPU's interrupts in %.2f s", rc,
		         said, window_s);
	else
		rxvk_log(rx, "RX_VK_OFF_IRQ_CPUS: %d threads back on all their CPUs: %s in %.2f s", rc, said,
		         window_s);
}
