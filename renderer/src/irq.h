/* irq: where the GPU's interrupts go, read from /proc/interrupts, and
 * RX_VK_OFF_IRQ_CPUS=1 (the threads that record and submit parts kept off
 * the CPUs that take them).  The readers and the rule are also used by
 * rxvk-bench-replay (--off-irq-cpus, --irq-table). */
#ifndef RXVK_IRQ_H
#define RXVK_IRQ_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>

#define RXVK_IRQ_CPUS 256
#define RXVK_PROC_INTERRUPTS "/proc/interrupts"

/* The GPU's interrupts by CPU from a file laid out as /proc/interrupts,
 * summed into irq[RXVK_IRQ_CPUS]; returns one more than the highest CPU
 * number (irq's width), or -1 where the file cannot be read or has no
 * header of CPU columns. */
int rxvk_gpu_irqs(const char *path, unsigned long long *irq);

/* The rule: of the GPU's interrupts between before and after (width
 * ncpu), every CPU of `allowed` that took a quarter or more is left out of
 * *keep (a copy of allowed), as long as one CPU is left.  Returns the CPUs
 * left out, and says which into said ("CPU 14 (598 of 600)"), or why none;
 * -1 where fewer than min_all (at least 1) were counted: nothing decided,
 * *keep = *allowed. */
int rxvk_irq_cpus_off(const unsigned long long *before, const unsigned long long *after, int ncpu,
                      unsigned long long min_all, const cpu_set_t *allowed, cpu_set_t *keep, char *said,
                      size_t size);

struct rxvk;

/* RX_VK_OFF_IRQ_CPUS=1.  rxvk_recorder_init makes the watch before the
 * recycler starts (the CPUs the creating thread may run on are the ones
 * the threads are kept within) and arms it once every thread to move is
 * started; the recycler asks rxvk_irq_watch_due_ns (UINT64_MAX: never, 0:
 * now) and looks: every RXVK_IRQ_EVERY_NS the GPU's interrupts since the
 * last look decide the CPUs of the recording threads and the recycler.
 * Fewer than RXVK_IRQ_MIN interrupts in a look decide nothing.  init: 0,
 * or -ENOMEM. */
#define RXVK_IRQ_EVERY_NS 250000000ull
#define RXVK_IRQ_MIN 32ull
int rxvk_irq_watch_init(struct rxvk *rx);
void rxvk_irq_watch_arm(struct rxvk *rx);
uint64_t rxvk_irq_watch_due_ns(struct rxvk *rx);
void rxvk_irq_watch_look(struct rxvk *rx);
void rxvk_irq_watch_free(struct rxvk *rx);

#endif
