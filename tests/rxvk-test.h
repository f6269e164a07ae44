/* rxvk-test: what every renderer test shares: making a renderer on the test
 * device (lavapipe by default) with the validation layer on, skipping with
 * 77 when no Vulkan device exists, failing on any validation message, and
 * building ops.  Header-only so each test is one executable. */
#ifndef RXVK_TEST_H
#define RXVK_TEST_H

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rxvk.h"

/* Exits 77 (skip) when the machine has no usable Vulkan device. */
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
	rxvk_destroy(rx);
}

/* A renderer for one test: validation forced on, the rest from cfg. */
static inline struct rxvk *rxt_create(struct rxvk_config cfg)
{
	struct rxvk *rx = NULL;
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
