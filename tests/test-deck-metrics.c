/* deck: amdgpu's binary gpu_metrics (v2.2 and v2.3 layouts), the EDID
 * preferred mode and zram's algorithm, parsed from bytes; malformed input
 * says where. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "deck/deck-internal.h"
#include "test-deck-util.h"

static void test_gpu_metrics__v2_2_layout(void **state)
{
	unsigned char b[256];
	size_t n = fake_metrics_bytes(&(struct fake_metrics){ .content = 2, .temp_gfx = 6100,
	                              .temp_soc = 5850, .activity = 9950, .socket_mw = 14980,
	                              .cpu_mw = 4200, .soc_mw = 2100, .gfx_mw = 8100,
	                              .gfxclk_mhz = 1600, .fclk_mhz = 800,
	                              .indep_throttle = 1ULL << 4 /* SPL */ }, b);
	assert_int_equal(n, 128);
	struct deck_err e = { "" };
	struct deck_gpu_metrics m;
	assert_int_equal(deck_parse_gpu_metrics("m", b, n, &m, &e), 0);
	assert_int_equal(m.format, 2);
	assert_int_equal(m.content, 2);
	assert_true(fabs(m.temp_gfx_c - 61) < 1e-9);
	assert_true(fabs(m.temp_soc_c - 58.5) < 1e-9);
	assert_true(fabs(m.gfx_activity_pct - 99.5) < 1e-9);
	assert_true(fabs(m.socket_power_w - 14.98) < 1e-9);
	assert_true(fabs(m.cpu_power_w - 4.2) < 1e-9);
	assert_true(fabs(m.soc_power_w - 2.1) < 1e-9);
	assert_true(fabs(m.gfx_power_w - 8.1) < 1e-9);
	assert_true(m.gfxclk_mhz == 1600);
	assert_true(m.fclk_mhz == 800);
	assert_true(isnan(m.fan_pwm)); /* 0xffff: not filled */
	assert_true(m.has_indep_throttle);
	assert_true((m.indep_throttle_status & DECK_THROTTLE_POWER_MASK) != 0);
	assert_true((m.indep_throttle_status & DECK_THROTTLE_THERMAL_MASK) == 0);
}

static void test_gpu_metrics__v2_3_layout_and_high_throttle_bits(void **state)
{
	unsigned char b[256];
	size_t n = fake_metrics_bytes(&(struct fake_metrics){ .content = 3, .temp_gfx = 9000,
	                              .activity = 0, .socket_mw = 3000, .gfx_mw = 0xffff,
	                              .gfxclk_mhz = 200, .indep_throttle = 1ULL << 47 }, b);
	assert_int_equal(n, 152);
	struct deck_gpu_metrics m;
	assert_int_equal(deck_parse_gpu_metrics("m", b, n, &m, NULL), 0);
	assert_int_equal(m.content, 3);
	assert_true(m.gfx_activity_pct == 0); /* a real 0 */
	assert_true(isnan(m.gfx_power_w));
	assert_true(m.socket_power_w == 3);
	assert_true(m.indep_throttle_status == 1ULL << 47);
	assert_true((m.indep_throttle_status & DECK_THROTTLE_THERMAL_MASK) != 0);
	/* v2.1 has no ASIC-independent throttle word */
	n = fake_metrics_bytes(&(struct fake_metrics){ .content = 1 }, b);
	assert_int_equal(deck_parse_gpu_metrics("m", b, n, &m, NULL), 0);
	assert_false(m.has_indep_throttle);
}

static void test_gpu_metrics__refusals_say_where(void **state)
{
	unsigned char b[256];
	size_t n = fake_metrics_bytes(&(struct fake_metrics){ .content = 2 }, b);
	struct deck_err e = { "" };
	struct deck_gpu_metrics m = { .format = 77 };
	assert_int_equal(deck_parse_gpu_metrics("m", b, 3, &m, &e), -EINVAL);
	assert_string_equal(e.msg, "m: byte 3: 3 bytes, shorter than the 4-byte header");
	assert_int_equal(deck_parse_gpu_metrics("m", b, n - 8, &m, &e), -EINVAL);
	assert_string_equal(e.msg, "m: byte 120: 120 bytes, the header says 128");
	b[0] = 152;
	assert_int_equal(deck_parse_gpu_metrics("m", b, n, &m, &e), -EINVAL);
	assert_string_equal(e.msg, "m: byte 0: the header says 152 bytes, v2.2 is 128");
	b[0] = 128;
	b[3] = 9;
	assert_int_equal(deck_parse_gpu_metrics("m", b, n, &m, &e), -EOPNOTSUPP);
	assert_string_equal(e.msg, "m: byte 3: gpu_metrics v2.9 is not known (2.1 to 2.4 are)");
	b[2] = 1;
	b[3] = 3;
	assert_int_equal(deck_parse_gpu_metrics("m", b, n, &m, &e), -EOPNOTSUPP);
	assert_non_null(strstr(e.msg, "format 1.3 is not read"));
	b[2] = 2;
	b[3] = 2;
	put16(b, 28, 10001); /* 100.01 % */
	assert_int_equal(deck_parse_gpu_metrics("m", b, n, &m, &e), -EINVAL);
	assert_string_equal(e.msg, "m: byte 28: gfx activity 100.01 % is over 100 %");
	assert_int_equal(m.format, 77); /* untouched on failure */
}

static void test_edid__preferred_mode_and_refresh(void **state)
{
	struct fake f;
	fake_init(&f);
	fake_edid(&f, "edid", 800, 1280, 80, 40, 6970);
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/edid", f.root);
	unsigned char b[256];
	size_t len;
	assert_int_equal(deck_read_file(path, (char *)b, sizeof b, &len), 0);
	assert_int_equal(len, 128);
	unsigned w = 0, h = 0;
	double hz = 0;
	struct deck_err e = { "" };
	assert_int_equal(deck_parse_edid_mode("e", b, len, &w, &h, &hz, &e), 0);
	assert_int_equal(w, 800);
	assert_int_equal(h, 1280);
	assert_true(fabs(hz - 60.0) < 0.01);
	b[60] ^= 1; /* checksum off */
	assert_int_equal(deck_parse_edid_mode("e", b, len, &w, &h, &hz, &e), -EINVAL);
	assert_string_equal(e.msg, "e: byte 127: EDID checksum does not add up");
	b[0] = 1;
	assert_int_equal(deck_parse_edid_mode("e", b, len, &w, &h, &hz, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "e: byte 0: not an EDID block"));
	assert_int_equal(deck_parse_edid_mode("e", b, 100, &w, &h, &hz, &e), -EINVAL);
	assert_string_equal(e.msg, "e: byte 100: shorter than an EDID block (128 bytes)");
	fake_cleanup(&f);
}

static void test_zram__algorithm_in_brackets(void **state)
{
	struct deck_err e = { "" };
	char buf[16] = "unset";
	const char *t = "lzo lzo-rle lz4 [zstd]\n";
	assert_int_equal(deck_parse_zram_algorithm("z", t, strlen(t), buf, sizeof buf, &e), 0);
	assert_string_equal(buf, "zstd");
	t = "lzo lz4\n";
	assert_int_equal(deck_parse_zram_algorithm("z", t, strlen(t), buf, sizeof buf, &e), -EINVAL);
	assert_string_equal(e.msg, "z:1:1: no algorithm in brackets (the one in use)");
	t = "lzo [lz4\n]";
	assert_int_equal(deck_parse_zram_algorithm("z", t, strlen(t), buf, sizeof buf, &e), -EINVAL);
	assert_string_equal(e.msg, "z:1:5: unclosed or empty brackets");
	assert_string_equal(buf, "zstd");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gpu_metrics__v2_2_layout),
		cmocka_unit_test(test_gpu_metrics__v2_3_layout_and_high_throttle_bits),
		cmocka_unit_test(test_gpu_metrics__refusals_say_where),
		cmocka_unit_test(test_edid__preferred_mode_and_refresh),
		cmocka_unit_test(test_zram__algorithm_in_brackets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
