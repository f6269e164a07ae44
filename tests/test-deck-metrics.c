/* deck: amdgpu's binary gpu_metrics, the EDID preferred mode and zram's
 * algorithm, parsed from bytes; malformed input says where.
 *
 * The gpu_metrics blobs are the kernel's structs as the kernel fills them:
 * struct gpu_metrics_v2_1 .. v2_4 and v3_0 of
 * drivers/gpu/drm/amd/include/kgd_pp_interface.h (torvalds/linux mainline
 * commit 00dedab07b52), laid out in deck/gpu-metrics-layout.h; every byte
 * 0xff, then the header with structure_size = sizeof the struct, then the
 * fields vangogh_ppt.c fills (smu_cmn_init_soft_gpu_metrics() in
 * smu_cmn.h).  Sizes come from sizeof, offsets from offsetof. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <stdio.h>
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
	assert_int_equal(n, sizeof(struct kgd_gpu_metrics_v2_2));
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
	assert_int_equal(n, sizeof(struct kgd_gpu_metrics_v2_3));
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

/* The same values in v2.3 and v2.4 give the same readings; v2.4's header
 * says sizeof the struct, its 164 bytes of fields padded to 168. */
static void test_gpu_metrics__v2_4_padded_size_reads_as_v2_3(void **state)
{
	/* the kernel's number, from the struct: fields end at 164, padded to
	 * uint64_t's alignment */
	size_t fields_end = offsetof(struct kgd_gpu_metrics_v2_4, average_gfx_current) +
	                    sizeof(uint16_t);
	assert_int_equal(fields_end, 164);
	assert_int_equal(sizeof(struct kgd_gpu_metrics_v2_4), 168);
	assert_int_equal(sizeof(struct kgd_gpu_metrics_v2_1), 120);
	assert_int_equal(sizeof(struct kgd_gpu_metrics_v2_2), 128);
	assert_int_equal(sizeof(struct kgd_gpu_metrics_v2_3), 152);
	struct fake_metrics v = { .temp_gfx = 6100, .temp_soc = 5850, .activity = 3700,
	                          .socket_mw = 11250, .cpu_mw = 3100, .soc_mw = 1900,
	                          .gfx_mw = 5400, .gfxclk_mhz = 1600, .fclk_mhz = 800,
	                          .indep_throttle = 1ULL << 35 };
	unsigned char b3[256], b4[256];
	v.content = 3;
	size_t n3 = fake_metrics_bytes(&v, b3);
	v.content = 4;
	size_t n4 = fake_metrics_bytes(&v, b4);
	assert_int_equal(n4, 168);
	struct deck_err e = { "" };
	struct deck_gpu_metrics m3, m4;
	assert_int_equal(deck_parse_gpu_metrics("m", b3, n3, &m3, &e), 0);
	assert_int_equal(deck_parse_gpu_metrics("m", b4, n4, &m4, &e), 0);
	assert_int_equal(m4.content, 4);
	assert_int_equal(m4.size, 168);
	assert_int_equal(m3.size, n3);
	/* every reading alike; NAN (fan_pwm, unfilled) in both */
	const double *r3[] = { &m3.gfx_activity_pct, &m3.socket_power_w, &m3.cpu_power_w,
	                       &m3.soc_power_w, &m3.gfx_power_w, &m3.temp_gfx_c, &m3.temp_soc_c,
	                       &m3.gfxclk_mhz, &m3.fclk_mhz };
	const double *r4[] = { &m4.gfx_activity_pct, &m4.socket_power_w, &m4.cpu_power_w,
	                       &m4.soc_power_w, &m4.gfx_power_w, &m4.temp_gfx_c, &m4.temp_soc_c,
	                       &m4.gfxclk_mhz, &m4.fclk_mhz };
	for (size_t i = 0; i < sizeof r3 / sizeof r3[0]; i++)
		assert_true(*r3[i] == *r4[i]);
	assert_true(isnan(m3.fan_pwm) && isnan(m4.fan_pwm));
	assert_int_equal(m3.throttle_status, m4.throttle_status);
	assert_true(m3.has_indep_throttle && m4.has_indep_throttle);
	assert_true(m3.indep_throttle_status == m4.indep_throttle_status);
	assert_true(m4.socket_power_w == 11.25);
	assert_true(m4.gfxclk_mhz == 1600);
}

/* A newer, larger v2.x (as a later kernel would append fields) reads its
 * start as v2.4's; a header too small for the fields read is refused. */
static void test_gpu_metrics__newer_larger_read_smaller_refused(void **state)
{
	struct {
		struct kgd_gpu_metrics_v2_4 v24;
		uint64_t appended;
	} t;
	unsigned char *b = (unsigned char *)&t;
	fake_metrics_bytes(&(struct fake_metrics){ .content = 4, .socket_mw = 9000,
	                                           .gfxclk_mhz = 800 }, b);
	t.v24.common_header.content_revision = 5;
	t.v24.common_header.structure_size = (uint16_t)sizeof t;
	t.appended = 7;
	struct deck_err e = { "" };
	struct deck_gpu_metrics m;
	assert_int_equal(deck_parse_gpu_metrics("m", &t, sizeof t, &m, &e), 0);
	assert_int_equal(m.content, 5);
	assert_int_equal(m.size, sizeof t);
	assert_true(m.socket_power_w == 9);
	assert_true(m.gfxclk_mhz == 800);
	/* a v2.2 header saying less than the throttle word's end */
	unsigned char b2[256];
	size_t n = fake_metrics_bytes(&(struct fake_metrics){ .content = 2 }, b2);
	size_t end = offsetof(struct kgd_gpu_metrics_v2_2, indep_throttle_status) + 8;
	put16(b2, 0, (unsigned)end - 2);
	assert_int_equal(deck_parse_gpu_metrics("m", b2, n, &m, &e), -EINVAL);
	char want[160];
	snprintf(want, sizeof want, "m: byte 0: the header says %zu bytes, v2.2's fields read "
	         "here end at byte %zu", end - 2, end);
	assert_string_equal(e.msg, want);
	/* v2.1 needs only up to fan_pwm */
	n = fake_metrics_bytes(&(struct fake_metrics){ .content = 1, .gfxclk_mhz = 1 }, b2);
	assert_int_equal(deck_parse_gpu_metrics("m", b2, n, &m, &e), 0);
	assert_true(m.gfxclk_mhz == 1);
}

/* Format 3 and v2.0 are not read, and say so. */
static void test_gpu_metrics__v3_0_not_read(void **state)
{
	struct kgd_gpu_metrics_v3_0 t;
	memset(&t, 0xff, sizeof t);
	t.common_header.structure_size = (uint16_t)sizeof t;
	t.common_header.format_revision = 3;
	t.common_header.content_revision = 0;
	struct deck_err e = { "" };
	struct deck_gpu_metrics m = { .format = 77 };
	assert_int_equal(deck_parse_gpu_metrics("m", &t, sizeof t, &m, &e), -EOPNOTSUPP);
	assert_non_null(strstr(e.msg, "m: byte 2: not read: v3.0 ("));
	assert_int_equal(m.format, 77);
	t.common_header.format_revision = 2;
	assert_int_equal(deck_parse_gpu_metrics("m", &t, sizeof t, &m, &e), -EOPNOTSUPP);
	assert_non_null(strstr(e.msg, "m: byte 3: not read: v2.0 ("));
}

static void test_gpu_metrics__refusals_say_where(void **state)
{
	unsigned char b[256];
	size_t n = fake_metrics_bytes(&(struct fake_metrics){ .content = 2 }, b);
	struct deck_err e = { "" };
	struct deck_gpu_metrics m = { .format = 77 };
	assert_int_equal(deck_parse_gpu_metrics("m", b, 3, &m, &e), -EINVAL);
	assert_string_equal(e.msg, "m: byte 3: 3 bytes, shorter than the 4-byte header");
	char want[160];
	snprintf(want, sizeof want, "m: byte %zu: %zu bytes, the header says %zu", n - 8, n - 8, n);
	assert_int_equal(deck_parse_gpu_metrics("m", b, n - 8, &m, &e), -EINVAL);
	assert_string_equal(e.msg, want);
	b[2] = 1;
	b[3] = 3;
	assert_int_equal(deck_parse_gpu_metrics("m", b, n, &m, &e), -EOPNOTSUPP);
	assert_non_null(strstr(e.msg, "not read: v1.3 ("));
	assert_non_null(strstr(e.msg, "a discrete card's readings come from hwmon"));
	b[2] = 2;
	b[3] = 2;
	put16(b, offsetof(struct kgd_gpu_metrics_v2_2, average_gfx_activity), 10001); /* 100.01 % */
	assert_int_equal(deck_parse_gpu_metrics("m", b, n, &m, &e), -EINVAL);
	snprintf(want, sizeof want, "m: byte %zu: gfx activity 100.01 %% is over 100 %%",
	         offsetof(struct kgd_gpu_metrics_v2_2, average_gfx_activity));
	assert_string_equal(e.msg, want);
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
		cmocka_unit_test(test_gpu_metrics__v2_4_padded_size_reads_as_v2_3),
		cmocka_unit_test(test_gpu_metrics__newer_larger_read_smaller_refused),
		cmocka_unit_test(test_gpu_metrics__v3_0_not_read),
		cmocka_unit_test(test_gpu_metrics__refusals_say_where),
		cmocka_unit_test(test_edid__preferred_mode_and_refresh),
		cmocka_unit_test(test_zram__algorithm_in_brackets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
