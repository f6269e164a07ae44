/* test-rxvk-stream: the binary submission stream round-trips, and every
 * malformed stream is refused with the byte where it goes wrong. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rxvk.h"

static void test_stream__round_trip(void **state)
{
	struct rxvk_op a[3] = {
		{ .kind = RXVK_OP_SET_TARGET, .write = { 0x1000, 0x4000 }, .params = { 64, 64, 256, 1 } },
		{ .kind = RXVK_OP_DRAW, .count = 7, .program = RXVK_PROGRAM_INSTANCED,
		  .read = { { 0x20, 0x70 }, { 0xffffffffff, 1 } }, .params = { 1, 2, 3, 4, 5, 6, 7, 8 } },
		{ .kind = RXVK_OP_FLIP, .params = { RXVK_FLIP_SHOWN } },
	};
	struct rxvk_op b[1] = { { .kind = RXVK_OP_FILL, .write = { 8, 16 }, .params = { 0xdeadbeef } } };
	uint8_t *buf = NULL;
	size_t len = 0;
	assert_int_equal(rxvk_stream_encode(a, 3, &buf, &len), 0);
	assert_int_equal(rxvk_stream_encode(b, 1, &buf, &len), 0);
	assert_int_equal(rxvk_stream_encode(NULL, 0, &buf, &len), 0);
	assert_int_equal(len, 12 + 8 + 3 * 96 + 8 + 96 + 8);
	struct rxvk_stream_sub *subs;
	size_t n;
	char err[128];
	assert_int_equal(rxvk_stream_decode(buf, len, &subs, &n, err, sizeof err), 0);
	assert_int_equal(n, 3);
	assert_int_equal(subs[0].n_ops, 3);
	assert_memory_equal(subs[0].ops, a, sizeof a);
	assert_memory_equal(subs[1].ops, b, sizeof b);
	assert_int_equal(subs[2].n_ops, 0);
	rxvk_stream_free(subs, n);
	free(buf);
	(void)state;
}

static void expect_bad(const uint8_t *buf, size_t len, const char *what)
{
	struct rxvk_stream_sub *subs = (void *)0x1;
	size_t n = 99;
	char err[160] = "";
	assert_int_equal(rxvk_stream_decode(buf, len, &subs, &n, err, sizeof err), -EINVAL);
	if (!strstr(err, what))
		fail_msg("error '%s' does not say '%s'", err, what);
	assert_ptr_equal(subs, (void *)0x1); /* untouched on failure */
	assert_int_equal(n, 99);
}

static void test_stream__malformed_refused_with_position(void **state)
{
	struct rxvk_op op = { .kind = RXVK_OP_FLIP };
	uint8_t *buf = NULL;
	size_t len = 0;
	assert_int_equal(rxvk_stream_encode(&op, 1, &buf, &len), 0);
	expect_bad(buf, 5, "byte 0: not an rxvk stream");
	uint8_t *c = malloc(len);
	memcpy(c, buf, len);
	c[8] = 9;
	expect_bad(c, len, "byte 8: stream version 9");
	memcpy(c, buf, len);
	c[12] = 'X';
	expect_bad(c, len, "byte 12: unknown record tag");
	memcpy(c, buf, len);
	c[16] = 2;
	expect_bad(c, len, "byte 16: submission of 2 ops is truncated");
	memcpy(c, buf, len);
	c[20] = 0x42;
	expect_bad(c, len, "byte 20: op 0 has unknown kind 66");
	expect_bad(buf, len - 1, "truncated");
	expect_bad(buf, 12 + 3, "byte 12: truncated record header");
	free(c);
	free(buf);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stream__round_trip),
		cmocka_unit_test(test_stream__malformed_refused_with_position),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
