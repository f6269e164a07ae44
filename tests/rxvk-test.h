/* rxvk-test: what every renderer test shares: making a renderer on the test
 * device (lavapipe by default) with the validation layer on, skipping with
 * 77 when no Vulkan device exists, failing on any validation message, and
 * building ops.  Header-only so each test is one executable. */
#ifndef RXVK_TEST_H
#define RXVK_TEST_H

#include <errno.h>
#include <execinfo.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "rxvk.h"

#include <volk.h>

/* The Vulkan driver stays loaded for the rest of the process: a bare
 * instance, never destroyed.  Without it every renderer a test makes loads
 * the driver again and unloads it at its end, and a driver with
 * initial-exec TLS (NVIDIA's libnvidia-tls) takes a block of the process's
 * static TLS at each load that its unload never gives back: some 30
 * renderers in, "cannot allocate memory in static TLS block" and no more
 * renderers.  Raising glibc's reserve for it instead
 * (GLIBC_TUNABLES=glibc.rtld.optional_static_tls=16777216) leaves every new
 * thread 4-7 KiB of stack, and the renderer's and the driver's threads
 * crash on it (docs/renderer.md, "The tests on a GPU"). */
static inline void rxt_hold_driver(void)
{
	static VkInstance held;
	if (held || volkInitialize() != VK_SUCCESS)
		return;
	VkApplicationInfo app = { .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
	                          .pApplicationName = "rxvk-test: the driver held",
	                          .apiVersion = VK_API_VERSION_1_2 };
	VkInstanceCreateInfo ci = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app };
	if (vkCreateInstance(&ci, NULL, &held) != VK_SUCCESS)
		held = VK_NULL_HANDLE;
}

/* Exits 77 (skip) when the machine has no usable Vulkan device; holds the
 * driver when there is one. */
static inline void rxt_require_vulkan(void)
{
	struct rxvk *rx = NULL;
	int rc = rxvk_create(&(struct rxvk_config){ .guest_mb = 4 }, &rx);
	if (rc == -ENODEV) {
		printf("skip: no usable Vulkan device (%s)\n", rxvk_last_error());
		exit(77);
	}
	if (rc < 0) {
		fprintf(stderr, "cannot create a renderer: %s\n", rxvk_last_error());
		exit(1);
	}
	rxt_hold_driver();
	rxvk_destroy(rx);
}

/* A crash says where, as its thread's frames (binary(+offset), for
 * addr2line against the same build), on the device machines too, where no
 * debugger is.  cmocka puts its own handler in place for every case, and
 * that one cannot report a crash on another thread (it jumps back into the
 * case from the crashing thread: the process dies with nothing said), so
 * each renderer a case makes puts this one back for the rest of the case. */
static void rxt_on_crash(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	void *frames[48];
	int n = backtrace(frames, 48);
	char head[128];
	int len = snprintf(head, sizeof head, "renderer test: signal %d at %p in thread %ld\n", sig, si->si_addr,
	                   (long)gettid());
	if (write(2, head, (size_t)len) < 0 || n <= 0)
		_exit(128 + sig);
	backtrace_symbols_fd(frames, n, 2);
	_exit(128 + sig);
}

static inline void rxt_crash_says_where(void)
{
	static bool primed;
	if (!primed) { /* backtrace() loads its unwinder on first use: not in the handler */
		void *f[2];
		backtrace(f, 2);
		primed = true;
		setvbuf(stdout, NULL, _IONBF, 0); /* what the case printed, up to the crash */
	}
	struct sigaction sa = { .sa_sigaction = rxt_on_crash, .sa_flags = SA_SIGINFO };
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGILL, &sa, NULL);
	sigaction(SIGFPE, &sa, NULL);
}

/* A renderer for one test: validation forced on, the rest from cfg. */
static inline struct rxvk *rxt_create(struct rxvk_config cfg)
{
	struct rxvk *rx = NULL;
	rxt_crash_says_where();
	cfg.validation = RXVK_SWITCH_ON;
	if (!cfg.guest_mb)
		cfg.guest_mb = 16;
	int rc = rxvk_create(&cfg, &rx);
	if (rc < 0)
		fail_msg("rxvk_create: %d %s", rc, rxvk_last_error());
	return rx;
}

/* Destroys rx after checking the layer said nothing. */
static inline void rxt_destroy(struct rxvk *rx)
{
	struct rxvk_counters c;
	assert_int_equal(rxvk_finish(rx), 0);
	rxvk_counters_get(rx, &c);
	rxvk_destroy(rx);
	assert_int_equal(c.validation_messages, 0);
}

static inline uint32_t rxt_f(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static inline struct rxvk_op rxt_spin(uint64_t slot_addr, uint32_t iterations, uint32_t value)
{
	return (struct rxvk_op){ .kind = RXVK_OP_DISPATCH, .count = 1, .program = RXVK_PROGRAM_SPIN,
	                         .write = { slot_addr, 8 }, .params = { iterations, value } };
}

static inline struct rxvk_op rxt_fill(uint64_t addr, uint64_t size_B, uint32_t value)
{
	return (struct rxvk_op){ .kind = RXVK_OP_FILL, .write = { addr, size_B }, .params = { value } };
}

static inline struct rxvk_op rxt_copy(uint64_t from, uint64_t to, uint64_t size_B)
{
	return (struct rxvk_op){ .kind = RXVK_OP_COPY, .read = { { from, size_B } }, .write = { to, size_B } };
}

static inline struct rxvk_op rxt_target(uint64_t addr, uint32_t w, uint32_t h, enum rxvk_format f)
{
	return (struct rxvk_op){ .kind = RXVK_OP_SET_TARGET,
	                         .write = { addr, (uint64_t)w * h * 4 },
	                         .params = { w, h, w * 4, f } };
}

static inline struct rxvk_op rxt_flip(void)
{
	return (struct rxvk_op){ .kind = RXVK_OP_FLIP };
}

/* The renderer log a test points cfg.log_path at: read whole (its first
 * 64 KiB, in a buffer the next call reuses), or emptied between cases. */
static inline const char *rxt_read_log(const char *path)
{
	static char buf[1 << 16];
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static inline void rxt_fresh_log(const char *path)
{
	FILE *f = fopen(path, "w");
	if (f)
		fclose(f);
}

/* A small job the tests use as "long work": n spins of `iterations`. */
static inline size_t rxt_work(struct rxvk_op *ops, size_t n, uint64_t scratch, uint32_t iterations)
{
	for (size_t i = 0; i < n; i++)
		ops[i] = rxt_spin(scratch + 8 * (i % 16), iterations, (uint32_t)i);
	return n;
}

#endif
