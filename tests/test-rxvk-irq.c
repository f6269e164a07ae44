/* rxvk-irq: RX_VK_OFF_IRQ_CPUS (renderer/src/irq.c).  The rule that picks
 * the CPUs taking the GPU's interrupts, on counts given here; then a
 * renderer on the test device (lavapipe by default), its /proc/interrupts
 * replaced by a file this test writes in the kernel's layout
 * (kernel/irq/proc.c, show_interrupts(): a header of "CPU<n>" columns, a
 * line an interrupt with a count a column, the chip's fields and the
 * handler's name, as tests/data/interrupts/h100-lease.txt was copied from
 * an H100 machine): the threads librxvk started to record and submit parts
 * must be kept off the CPU the file says took the interrupts, follow them
 * when they move, stay put when none come, and the game's thread and every
 * other thread must never be moved.  Whether a thread is on a CPU is read
 * back from the kernel (sched_getaffinity of each of this process's
 * threads), not from the renderer. */
#include "rxvk-test.h"
#include "private.h"
#include "irq.h"

#include <dirent.h>
#include <sched.h>
#include <unistd.h>

/* ---- the rule -------------------------------------------------------------- */

static cpu_set_t cpus(int from, int to)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	for (int c = from; c <= to; c++)
		CPU_SET(c, &s);
	return s;
}

static void test_rule__the_cpu_taking_most_interrupts_is_left_out(void **state)
{
	(void)state;
	unsigned long long before[16] = { 0 }, after[16] = { 0 };
	after[14] = 598;
	after[0] = 2;
	cpu_set_t all = cpus(0, 15), keep;
	char said[256];
	assert_int_equal(rxvk_irq_cpus_off(before, after, 16, 32, &all, &keep, said, sizeof said), 1);
	assert_false(CPU_ISSET(14, &keep));
	assert_int_equal(CPU_COUNT(&keep), 15);
	assert_string_equal(said, "CPU 14 (598 of 600)");
}

static void test_rule__every_cpu_with_a_quarter_is_left_out(void **state)
{
	(void)state;
	unsigned long long before[8] = { 10, 10, 10, 10, 10, 10, 10, 10 }, after[8];
	memcpy(after, before, sizeof after);
	after[2] += 300; /* a quarter each, and one under */
	after[5] += 300;
	after[7] += 299;
	after[1] += 301;
	cpu_set_t all = cpus(0, 7), keep;
	char said[256];
	assert_int_equal(rxvk_irq_cpus_off(before, after, 8, 32, &all, &keep, said, sizeof said), 3);
	assert_false(CPU_ISSET(1, &keep));
	assert_false(CPU_ISSET(2, &keep));
	assert_false(CPU_ISSET(5, &keep));
	assert_true(CPU_ISSET(7, &keep));
	assert_string_equal(said, "CPU 1 (301 of 1200), 2 (300 of 1200), 5 (300 of 1200)");
}

static void test_rule__too_few_decide_nothing(void **state)
{
	(void)state;
	unsigned long long before[4] = { 0 }, after[4] = { 0, 0, 31, 0 };
	cpu_set_t all = cpus(0, 3), keep;
	char said[256];
	assert_int_equal(rxvk_irq_cpus_off(before, after, 4, 32, &all, &keep, said, sizeof said), -1);
	assert_true(CPU_EQUAL(&keep, &all));
	/* none at all, whatever the minimum */
	assert_int_equal(rxvk_irq_cpus_off(before, before, 4, 0, &all, &keep, said, sizeof said), -1);
	/* a count that went back (a CPU taken offline and back) is no interrupt */
	unsigned long long back[4] = { 0, 0, 0, 0 }, high[4] = { 0, 0, 500, 0 };
	assert_int_equal(rxvk_irq_cpus_off(high, back, 4, 1, &all, &keep, said, sizeof said), -1);
}

static void test_rule__never_every_cpu_and_never_one_not_allowed(void **state)
{
	(void)state;
	unsigned long long before[4] = { 0 }, after[4] = { 0, 0, 500, 500 };
	cpu_set_t only = cpus(2, 2), keep;
	char said[256];
	/* the only CPU left to these threads is kept, interrupts or not */
	assert_int_equal(rxvk_irq_cpus_off(before, after, 4, 32, &only, &keep, said, sizeof said), 0);
	assert_true(CPU_EQUAL(&keep, &only));
	/* both CPUs allowed took half each: one of them is kept */
	cpu_set_t two = cpus(2, 3);
	assert_int_equal(rxvk_irq_cpus_off(before, after, 4, 32, &two, &keep, said, sizeof said), 1);
	assert_int_equal(CPU_COUNT(&keep), 1);
	/* the interrupts went to CPUs these threads may not use anyway */
	cpu_set_t low = cpus(0, 1);
	assert_int_equal(rxvk_irq_cpus_off(before, after, 4, 32, &low, &keep, said, sizeof said), 0);
	assert_true(CPU_EQUAL(&keep, &low));
}

/* ---- a renderer ------------------------------------------------------------ */

static char dir[] = "/tmp/rxvk-irq-XXXXXX";
static char table[sizeof dir + 16], log_path[sizeof dir + 16];
static cpu_set_t allowed;   /* this thread's CPUs */
static int width;           /* columns written: the highest CPU allowed, plus one */
static unsigned long long counts[RXVK_IRQ_CPUS];

/* The table as the kernel writes it: the GPU's line with counts[], a
 * timer line that must not count, and a line whose handler only has a GPU
 * driver's name inside another word. */
static void table_write(void)
{
	char tmp[sizeof table + 8];
	snprintf(tmp, sizeof tmp, "%s.new", table);
	FILE *f = fopen(tmp, "w");
	assert_non_null(f);
	fprintf(f, "    ");
	for (int c = 0; c < width; c++)
		fprintf(f, "       CPU%-3d", c);
	fprintf(f, "\n  0:");
	for (int c = 0; c < width; c++)
		fprintf(f, " %10llu", 1000ull + counts[c]);
	fprintf(f, "   IO-APIC   2-edge      timer\n 42:");
	for (int c = 0; c < width; c++)
		fprintf(f, " %10llu", counts[c]);
	fprintf(f, " PCI-MSIX-0000:00:06.0   0-edge      nvidia\n 43:");
	for (int c = 0; c < width; c++)
		fprintf(f, " %10llu", 7 * counts[c]);
	fprintf(f, " PCI-MSI 1-edge      xhci_nvidiafake\n");
	assert_int_equal(fclose(f), 0);
	assert_int_equal(rename(tmp, table), 0); /* a reader never sees half a file */
}

/* Threads of this process whose CPUs leave out `off`, and whether any
 * thread's CPUs are neither `allowed` nor `allowed` less `off`. */
static int threads_off(int off, bool *stray)
{
	DIR *d = opendir("/proc/self/task");
	assert_non_null(d);
	int n = 0;
	struct dirent *e;
	cpu_set_t less = allowed;
	if (off >= 0)
		CPU_CLR(off, &less);
	while ((e = readdir(d))) {
		pid_t tid = (pid_t)atoi(e->d_name);
		cpu_set_t s;
		if (tid <= 0 || sched_getaffinity(tid, sizeof s, &s) < 0)
			continue;
		if (off >= 0 && CPU_EQUAL(&s, &less))
			n++;
		else if (!CPU_EQUAL(&s, &allowed))
			*stray = true;
	}
	closedir(d);
	return n;
}

static uint64_t counter(struct rxvk *rx, bool looks)
{
	struct rxvk_counters c;
	rxvk_counters_get(rx, &c);
	return looks ? c.irq_looks : c.irq_cpu_moves;
}

static uint64_t moves(struct rxvk *rx)
{
	return counter(rx, false);
}

/* Waits until done(rx, arg) holds, looking every ms.  No time is
 * asserted: 60 s without it fails the case as a hang (naming `what`),
 * whatever the machine's load. */
static void wait_until(bool (*done)(struct rxvk *, const void *), struct rxvk *rx, const void *arg,
                       const char *what)
{
	for (int ms = 0; !done(rx, arg); ms++) {
		if (ms == 60000)
			fail_msg("%s: not in 60 s (%llu looks)", what, (unsigned long long)counter(rx, true));
		usleep(1000);
	}
}

static bool looks_reached(struct rxvk *rx, const void *want)
{
	return counter(rx, true) >= *(const uint64_t *)want;
}

static bool log_has(struct rxvk *rx, const void *line)
{
	(void)rx;
	return strstr(rxt_read_log(log_path), line) != NULL;
}

/* Waits until the recycler has looked twice more: the second of those
 * looks began after anything this thread wrote before the call. */
static void looked(struct rxvk *rx)
{
	uint64_t want = counter(rx, true) + 2;
	wait_until(looks_reached, rx, &want, "the recycler looking at the GPU's interrupts twice");
}

/* one submission that does some work, checked to have done it */
static void submit_checked(struct rxvk *rx, uint32_t value)
{
	struct rxvk_op ops[8];
	size_t n = rxt_work(ops, 7, 4096, 200);
	ops[n++] = rxt_fill(65536, 4096, value);
	assert_int_equal(rxvk_submit(rx, ops, n, NULL), 0);
	assert_int_equal(rxvk_finish(rx), 0);
	assert_int_equal(rxvk_invalidate(rx, 65536, 4096, NULL), 0);
	uint32_t got;
	memcpy(&got, (const uint8_t *)rxvk_guest(rx) + 65536 + 4092, 4);
	assert_int_equal(got, value);
}

/* the case's renderer: a case that fails leaves it to teardown(), so its
 * moved threads are not counted against the next case */
static struct rxvk *live;

/* A renderer reading `path` for /proc/interrupts, looking every ms; with
 * the switch on, returned once it has looked at `path` (its first look
 * there counts from then on). */
static struct rxvk *irq_renderer(enum rxvk_switch sw, uint32_t parallel, const char *path)
{
	rxt_fresh_log(log_path);
	assert_null(live);
	struct rxvk *rx = live = rxt_create((struct rxvk_config){ .off_irq_cpus = sw, .parallel = parallel,
	                                                          .log_path = log_path });
	__atomic_store_n(&rx->test.irq_every_ns, 1000000ull, __ATOMIC_RELAXED);
	__atomic_store_n(&rx->test.irq_table, path, __ATOMIC_RELEASE);
	if (rx->irq_watch && path == table)
		looked(rx);
	return rx;
}

static void done(struct rxvk *rx)
{
	live = NULL;
	rxt_destroy(rx);
}

static int teardown(void **state)
{
	(void)state;
	rxvk_destroy(live);
	live = NULL;
	return 0;
}

static void test_irq__threads_follow_the_gpu_interrupts_and_nothing_else_moves(void **state)
{
	(void)state;
	if (CPU_COUNT(&allowed) < 2)
		skip(); /* one CPU: nowhere to go (main says so) */
	int hi = width - 1, lo = 0;
	while (!CPU_ISSET(lo, &allowed))
		lo++;
	memset(counts, 0, sizeof counts);
	table_write();
	struct rxvk *rx = irq_renderer(RXVK_SWITCH_ON, 2, table);
	bool stray = false;
	submit_checked(rx, 1);
	assert_int_equal(threads_off(hi, &stray), 0);
	assert_false(stray);

	counts[hi] += 600; /* the GPU's interrupts on the highest CPU */
	counts[lo] += 3;
	table_write();
	looked(rx);
	/* the two recording threads and the recycler, and nothing else */
	assert_int_equal(threads_off(hi, &stray), 3);
	assert_false(stray);
	assert_int_equal(moves(rx), 1);
	char want[160];
	snprintf(want, sizeof want, "RX_VK_OFF_IRQ_CPUS: 3 threads kept off CPU %d (600 of 603)", hi);
	assert_non_null(strstr(rxt_read_log(log_path), want));
	cpu_set_t mine;
	assert_int_equal(sched_getaffinity(0, sizeof mine, &mine), 0);
	assert_true(CPU_EQUAL(&mine, &allowed)); /* the game's thread: never */
	submit_checked(rx, 2); /* parts still recorded and submitted there */

	/* no interrupt since: they stay where they are */
	looked(rx);
	assert_int_equal(threads_off(hi, &stray), 3);
	assert_int_equal(moves(rx), 1);

	counts[lo] += 900; /* the interrupts moved (irqbalance, say) */
	table_write();
	looked(rx);
	assert_int_equal(threads_off(lo, &stray), 3); /* and every other thread on all */
	assert_false(stray);
	assert_int_equal(moves(rx), 2);
	submit_checked(rx, 3);
	done(rx);
	stray = false;
	threads_off(-1, &stray); /* the threads it moved are gone with it */
	assert_false(stray);
}

/* A renderer (switch on, parallel) looks at the file, then `add`
 * interrupts come on the highest CPU and it looks again: how many threads
 * are off that CPU now, every other thread still on all.  The renderer is
 * left in *out. */
static int threads_off_after(uint32_t parallel, unsigned long long add, struct rxvk **out)
{
	int hi = width - 1;
	memset(counts, 0, sizeof counts);
	table_write();
	struct rxvk *rx = *out = irq_renderer(RXVK_SWITCH_ON, parallel, table);
	submit_checked(rx, 1);
	counts[hi] += add;
	table_write();
	looked(rx);
	submit_checked(rx, 2);
	bool stray = false;
	int n = threads_off(hi, &stray);
	assert_false(stray);
	return n;
}

static void test_irq__render_thread_recording_moves_the_recycler_alone(void **state)
{
	(void)state;
	if (CPU_COUNT(&allowed) < 2)
		skip();
	struct rxvk *rx;
	assert_int_equal(threads_off_after(1, 100, &rx), 1);
	done(rx);
}

static void test_irq__off_by_default_and_too_few_interrupts_move_nothing(void **state)
{
	(void)state;
	if (CPU_COUNT(&allowed) < 2)
		skip();
	/* off: nothing looks, so nothing can move */
	struct rxvk *rx = irq_renderer(RXVK_SWITCH_DEFAULT, 2, table);
	assert_null(rx->irq_watch);
	submit_checked(rx, 1);
	assert_int_equal(counter(rx, true), 0);
	assert_int_equal(moves(rx), 0);
	assert_null(strstr(rxt_read_log(log_path), "RX_VK_OFF_IRQ_CPUS:"));
	done(rx);

	assert_int_equal(threads_off_after(2, RXVK_IRQ_MIN - 1, &rx), 0);
	assert_int_equal(moves(rx), 0);
	assert_non_null(strstr(rxt_read_log(log_path), "GPU interrupts counted, fewer than 32 in"));
	done(rx);
}

static void test_irq__an_unreadable_table_is_said_and_nothing_moves(void **state)
{
	(void)state;
	static char missing[sizeof dir + 16];
	snprintf(missing, sizeof missing, "%s/none", dir);
	struct rxvk *rx = irq_renderer(RXVK_SWITCH_ON, 2, missing);
	char want[160];
	snprintf(want, sizeof want, "RX_VK_OFF_IRQ_CPUS: %s cannot be read (No such file or directory)", missing);
	char what[sizeof want + 32];
	snprintf(what, sizeof what, "the log line '%s'", want);
	wait_until(log_has, rx, want, what); /* the recycler's look, said */
	uint64_t n = counter(rx, true);
	submit_checked(rx, 1);
	submit_checked(rx, 2);
	bool stray = false;
	threads_off(-1, &stray);
	assert_false(stray);
	assert_int_equal(moves(rx), 0);
	assert_int_equal(counter(rx, true), n); /* and it looks no more */
	done(rx);
}

int main(void)
{
	rxt_require_vulkan();
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(table, sizeof table, "%s/interrupts", dir);
	snprintf(log_path, sizeof log_path, "%s/log", dir);
	if (sched_getaffinity(0, sizeof allowed, &allowed) < 0) {
		perror("sched_getaffinity");
		return 1;
	}
	for (int c = 0; c < RXVK_IRQ_CPUS && c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &allowed))
			width = c + 1;
	if (CPU_COUNT(&allowed) < 2)
		printf("this process may run on one CPU: the renderer's cases are skipped\n");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rule__the_cpu_taking_most_interrupts_is_left_out),
		cmocka_unit_test(test_rule__every_cpu_with_a_quarter_is_left_out),
		cmocka_unit_test(test_rule__too_few_decide_nothing),
		cmocka_unit_test(test_rule__never_every_cpu_and_never_one_not_allowed),
		cmocka_unit_test_teardown(test_irq__threads_follow_the_gpu_interrupts_and_nothing_else_moves, teardown),
		cmocka_unit_test_teardown(test_irq__render_thread_recording_moves_the_recycler_alone, teardown),
		cmocka_unit_test_teardown(test_irq__off_by_default_and_too_few_interrupts_move_nothing, teardown),
		cmocka_unit_test_teardown(test_irq__an_unreadable_table_is_said_and_nothing_moves, teardown),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(table);
	unlink(log_path);
	rmdir(dir);
	return failed;
}
