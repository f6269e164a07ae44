/* deck: finding sources in a fake sysfs/procfs tree and sampling them;
 * absent sources are absent (with why), never 0. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test-deck-util.h"

static void test_sample__a_deck_reads_every_source(void **state)
{
	struct fake f;
	fake_init(&f);
	fake_deck(&f);
	struct deck *d = fake_open(&f);
	assert_string_equal(deck_card(d), "card2");
	struct deck_sample s;
	assert_int_equal(deck_sample(d, &s), 0);
	for (int i = 0; i < DECK_N_READINGS; i++)
		if (s.r[i].err != 0)
			fail_msg("%s absent (%d): %s", deck_reading_name(i), s.r[i].err, deck_errmsg(d));
	assert_true(s.r[DECK_GPU_BUSY_PCT].value == 37);
	assert_true(s.r[DECK_GPU_SCLK_MHZ].value == 1600);
	/* An APU: gpu_metrics gives the GPU's own power and the socket's. */
	assert_true(s.r[DECK_GPU_POWER_W].value == 5.4);
	assert_true(s.r[DECK_SOCKET_POWER_W].value == 11.25);
	assert_true(s.r[DECK_CPU_POWER_W].value == 3.1);
	assert_true(s.r[DECK_GPU_ACTIVITY_PCT].value == 37);
	assert_true(s.r[DECK_GPU_CLOCK_MHZ].value == 1600);
	assert_true(s.r[DECK_SOC_TEMP_C].value == 58.5);
	assert_true(s.r[DECK_THROTTLED_POWER].value == 0);
	assert_true(s.r[DECK_THROTTLED_THERMAL].value == 0);
	assert_true(s.r[DECK_FAN_RPM].value == 2890);       /* steamdeck_hwmon */
	assert_true(s.r[DECK_POWER_CAP_W].value == 15);
	assert_true(s.r[DECK_GPU_TEMP_C].value == 61);       /* labelled edge */
	assert_true(s.r[DECK_GPU_TEMP_MAX_C].value == 68.5);
	assert_true(s.r[DECK_SWAP_IN_PAGES].value == 4200);
	assert_true(s.r[DECK_SWAP_OUT_PAGES].value == 77);
	assert_true(s.r[DECK_LOAD_1M].value == 1.25);
	assert_true(s.r[DECK_LOAD_5M].value == 0.8);
	assert_true(s.r[DECK_LOAD_15M].value == 0.5);
	assert_true(s.r[DECK_BATTERY_PCT].value == 83);      /* BAT1, not the pad's 5 */
	assert_true(s.r[DECK_BATTERY_DISCHARGING].value == 0);
	assert_true(s.r[DECK_AC_ONLINE].value == 1);
	assert_true(s.t_ns > 0);
	assert_true(deck_reading_present(&s, DECK_AC_ONLINE));

	char expect[PATH_MAX];
	snprintf(expect, sizeof expect, "%s/sys/class/drm/card2/device/pp_dpm_sclk", f.root);
	assert_string_equal(deck_reading_source(d, DECK_GPU_SCLK_MHZ), expect);
	snprintf(expect, sizeof expect, "%s/sys/class/power_supply/BAT1/capacity", f.root);
	assert_string_equal(deck_reading_source(d, DECK_BATTERY_PCT), expect);

	/* Values change between samples: files are read each time. */
	fake_write(&f, "sys/class/drm/card2/device/pp_dpm_sclk", "0: 200Mhz *\n1: 1600Mhz\n");
	fake_write(&f, "sys/class/power_supply/BAT1/status", "Discharging\n");
	fake_write(&f, "sys/class/power_supply/ACAD/online", "0\n");
	assert_int_equal(deck_sample(d, &s), 0);
	assert_true(s.r[DECK_GPU_SCLK_MHZ].value == 200);
	assert_true(s.r[DECK_BATTERY_DISCHARGING].value == 1);
	assert_int_equal(s.r[DECK_AC_ONLINE].err, 0);
	assert_true(s.r[DECK_AC_ONLINE].value == 0);
	deck_destroy(d);
	fake_cleanup(&f);
}

/* A Deck whose firmware writes v2.4 (168 bytes, the kernel's padded
 * sizeof) samples exactly as one writing v2.3 with the same values. */
static void test_sample__gpu_metrics_v2_4_as_v2_3(void **state)
{
	struct fake f;
	fake_init(&f);
	fake_deck(&f);
	struct fake_metrics v = { .content = 3, .temp_gfx = 6100, .temp_soc = 5850,
	                          .activity = 3700, .socket_mw = 11250, .cpu_mw = 3100,
	                          .soc_mw = 1900, .gfx_mw = 5400, .gfxclk_mhz = 1600,
	                          .fclk_mhz = 800, .indep_throttle = 1ULL << 35 };
	const char *rel = "sys/class/drm/card2/device/gpu_metrics";
	fake_metrics(&f, rel, &v);
	struct deck *d = fake_open(&f);
	struct deck_sample s3, s4;
	assert_int_equal(deck_sample(d, &s3), 0);
	v.content = 4;
	fake_metrics(&f, rel, &v);
	assert_int_equal(deck_sample(d, &s4), 0);
	static const int ids[] = { DECK_GPU_POWER_W, DECK_SOCKET_POWER_W, DECK_CPU_POWER_W,
	                           DECK_GPU_ACTIVITY_PCT, DECK_GPU_CLOCK_MHZ, DECK_SOC_TEMP_C,
	                           DECK_THROTTLED_POWER, DECK_THROTTLED_THERMAL };
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
		if (s4.r[ids[i]].err != 0)
			fail_msg("%s absent with v2.4: %s", deck_reading_name(ids[i]), deck_errmsg(d));
		assert_int_equal(s3.r[ids[i]].err, 0);
		assert_true(s3.r[ids[i]].value == s4.r[ids[i]].value);
	}
	assert_true(s4.r[DECK_THROTTLED_THERMAL].value == 1);
	deck_destroy(d);
	fake_cleanup(&f);
}

static void test_sample__an_empty_host_has_every_reading_absent(void **state)
{
	struct fake f;
	fake_init(&f);
	struct deck *d = fake_open(&f);
	assert_null(deck_card(d));
	struct deck_sample s;
	memset(&s, 0x5a, sizeof s);
	assert_int_equal(deck_sample(d, &s), 0);
	for (int i = 0; i < DECK_N_READINGS; i++) {
		assert_int_equal(s.r[i].err, -ENOENT);
		assert_false(deck_reading_present(&s, i));
	}
	assert_null(deck_reading_source(d, DECK_GPU_BUSY_PCT));
	assert_null(deck_reading_source(d, DECK_BATTERY_PCT));
	deck_destroy(d);
	fake_cleanup(&f);
}

static void test_sample__malformed_source_is_absent_and_named(void **state)
{
	struct fake f;
	fake_init(&f);
	fake_deck(&f);
	fake_write(&f, "sys/class/drm/card2/device/pp_dpm_sclk", "0: 200Mhz\n1: fast *\n");
	struct deck *d = fake_open(&f);
	struct deck_sample s;
	assert_int_equal(deck_sample(d, &s), 0);
	assert_int_equal(s.r[DECK_GPU_SCLK_MHZ].err, -EINVAL);
	assert_non_null(strstr(deck_errmsg(d), "pp_dpm_sclk:2:4: expected a clock like '1600Mhz'"));
	/* The others are unaffected. */
	assert_int_equal(s.r[DECK_GPU_BUSY_PCT].err, 0);

	fake_write(&f, "sys/class/drm/card2/device/gpu_busy_percent", "250\n");
	fake_write(&f, "proc/loadavg", "high\n");
	assert_int_equal(deck_sample(d, &s), 0);
	assert_int_equal(s.r[DECK_GPU_BUSY_PCT].err, -EINVAL);
	assert_int_equal(s.r[DECK_LOAD_1M].err, -EINVAL);
	assert_int_equal(s.r[DECK_LOAD_15M].err, -EINVAL);
	assert_non_null(strstr(deck_errmsg(d), "loadavg:1:1: expected the 1-minute load average"));
	deck_destroy(d);
	fake_cleanup(&f);
}

static void test_sample__missing_pieces_are_absent_one_by_one(void **state)
{
	struct fake f;
	fake_init(&f);
	fake_deck(&f);
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/sys/class/drm/card2/device/pp_dpm_sclk", f.root);
	unlink(path);
	fake_write(&f, "proc/vmstat", "nr_free_pages 1\n"); /* no swap accounting */
	snprintf(path, sizeof path, "%s/sys/class/power_supply/BAT1/type", f.root);
	fake_write(&f, "sys/class/power_supply/BAT1/type", "UPS\n");
	struct deck *d = fake_open(&f);
	struct deck_sample s;
	assert_int_equal(deck_sample(d, &s), 0);
	assert_int_equal(s.r[DECK_GPU_SCLK_MHZ].err, -ENOENT);
	assert_int_equal(s.r[DECK_SWAP_IN_PAGES].err, -ENOENT);
	assert_int_equal(s.r[DECK_SWAP_OUT_PAGES].err, -ENOENT);
	assert_int_equal(s.r[DECK_BATTERY_PCT].err, -ENOENT);
	assert_int_equal(s.r[DECK_BATTERY_DISCHARGING].err, -ENOENT);
	assert_int_equal(s.r[DECK_GPU_BUSY_PCT].err, 0);
	assert_int_equal(s.r[DECK_AC_ONLINE].err, 0);
	assert_int_equal(s.r[DECK_LOAD_5M].err, 0);
	deck_destroy(d);
	fake_cleanup(&f);
}

static void test_sample__temperature_without_edge_label_uses_the_first(void **state)
{
	struct fake f;
	fake_init(&f);
	fake_write(&f, "sys/class/drm/card0/device/gpu_busy_percent", "0\n");
	fake_write(&f, "sys/class/drm/card0/device/hwmon/hwmon1/temp10_input", "90000\n");
	fake_write(&f, "sys/class/drm/card0/device/hwmon/hwmon1/temp2_input", "45000\n");
	fake_write(&f, "sys/class/drm/card0/device/hwmon/hwmon1/temp2_label", "junction\n");
	struct deck *d = fake_open(&f);
	struct deck_sample s;
	assert_int_equal(deck_sample(d, &s), 0);
	assert_true(s.r[DECK_GPU_TEMP_C].value == 45);   /* temp2 before temp10 */
	assert_true(s.r[DECK_GPU_TEMP_MAX_C].value == 90);
	assert_true(s.r[DECK_GPU_BUSY_PCT].value == 0);  /* a real 0 is present */
	assert_int_equal(s.r[DECK_GPU_BUSY_PCT].err, 0);
	assert_int_equal(s.r[DECK_GPU_POWER_W].err, -ENOENT);
	deck_destroy(d);
	fake_cleanup(&f);
}

static void test_create__named_card_and_bad_root(void **state)
{
	struct fake f;
	fake_init(&f);
	fake_deck(&f);
	struct deck *d = (struct deck *)&f;
	char msg[256] = "";
	assert_int_equal(deck_create(&(struct deck_options){ .root = f.root, .card = "card7" }, msg,
	                             sizeof msg, &d), -ENODEV);
	assert_ptr_equal(d, (struct deck *)&f);
	assert_non_null(strstr(msg, "no DRM card 'card7'"));
	assert_int_equal(deck_create(&(struct deck_options){ .root = f.root, .card = "card1" }, msg,
	                             sizeof msg, &d), 0);
	assert_string_equal(deck_card(d), "card1");
	struct deck_sample s;
	assert_int_equal(deck_sample(d, &s), 0);
	assert_int_equal(s.r[DECK_GPU_BUSY_PCT].err, -ENOENT);
	deck_destroy(d);
	char missing[PATH_MAX];
	snprintf(missing, sizeof missing, "%s/nope", f.root);
	assert_int_equal(deck_create(&(struct deck_options){ .root = missing }, msg, sizeof msg, &d),
	                 -ENOENT);
	assert_non_null(strstr(msg, "cannot use '"));
	assert_int_equal(deck_sample(NULL, &s), -EINVAL);
	deck_destroy(NULL);
	fake_cleanup(&f);
}

static void test_sample__galileo_reads_v2_3_and_thermal_throttle(void **state)
{
	struct fake f;
	fake_init(&f);
	fake_galileo(&f);
	struct deck *d = fake_open(&f);
	struct deck_sample s;
	assert_int_equal(deck_sample(d, &s), 0);
	assert_true(s.r[DECK_GPU_POWER_W].value == 3.9);
	assert_true(s.r[DECK_SOCKET_POWER_W].value == 9);
	assert_true(s.r[DECK_GPU_CLOCK_MHZ].value == 1100);
	assert_true(s.r[DECK_GPU_ACTIVITY_PCT].value == 12);
	assert_true(s.r[DECK_THROTTLED_THERMAL].value == 1);
	assert_true(s.r[DECK_THROTTLED_POWER].value == 0);
	assert_true(s.r[DECK_FAN_RPM].value == 3400);
	char expect[PATH_MAX];
	snprintf(expect, sizeof expect, "%s/sys/class/drm/card0/device/gpu_metrics", f.root);
	assert_string_equal(deck_reading_source(d, DECK_SOCKET_POWER_W), expect);
	deck_destroy(d);
	fake_cleanup(&f);
}

static void test_sample__desktop_card_power_is_the_gpus(void **state)
{
	struct fake f;
	fake_init(&f);
	fake_desktop_amd(&f);
	struct deck *d = fake_open(&f);
	struct deck_sample s;
	assert_int_equal(deck_sample(d, &s), 0);
	/* PPT on a discrete card is the card's own power; no socket power. */
	assert_int_equal(s.r[DECK_GPU_POWER_W].err, 0);
	assert_true(s.r[DECK_GPU_POWER_W].value == 45);
	assert_int_equal(s.r[DECK_SOCKET_POWER_W].err, -ENOENT);
	/* gpu_metrics format 1 is not read: its readings are absent. */
	assert_int_equal(s.r[DECK_GPU_ACTIVITY_PCT].err, -ENOENT);
	assert_int_equal(s.r[DECK_THROTTLED_THERMAL].err, -ENOENT);
	assert_true(s.r[DECK_FAN_RPM].value == 1100);      /* the card's own fan */
	assert_int_equal(s.r[DECK_BATTERY_PCT].err, -ENOENT);
	assert_string_equal(deck_errmsg(d), "");
	/* A broken power1_average falls back to power1_input. */
	fake_write(&f, "sys/class/drm/card1/device/hwmon/hwmon2/power1_average", "");
	fake_write(&f, "sys/class/drm/card1/device/hwmon/hwmon2/power1_input", "9000000\n");
	deck_destroy(d);
	d = fake_open(&f);
	assert_int_equal(deck_sample(d, &s), 0);
	assert_true(s.r[DECK_GPU_POWER_W].value == 9);
	deck_destroy(d);
	fake_cleanup(&f);
}

static void test_sample__apu_without_gpu_metrics_labels_hwmon_power_socket(void **state)
{
	struct fake f;
	fake_init(&f);
	fake_deck(&f);
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/sys/class/drm/card2/device/gpu_metrics", f.root);
	assert_int_equal(unlink(path), 0);
	struct deck *d = fake_open(&f);
	struct deck_sample s;
	assert_int_equal(deck_sample(d, &s), 0);
	/* slowPPT is the whole APU's: never passed off as the GPU's power */
	assert_int_equal(s.r[DECK_GPU_POWER_W].err, -ENOENT);
	assert_true(s.r[DECK_SOCKET_POWER_W].value == 11.25);
	deck_destroy(d);
	fake_cleanup(&f);
}

static void test_sample__files_vanishing_mid_run_are_absent(void **state)
{
	struct fake f;
	fake_init(&f);
	fake_deck(&f);
	struct deck *d = fake_open(&f);
	struct deck_sample s;
	assert_int_equal(deck_sample(d, &s), 0);
	assert_int_equal(s.r[DECK_GPU_CLOCK_MHZ].err, 0);
	/* the card, the fan and the battery go away after deck_create() */
	const char *gone[] = { "sys/class/drm/card2/device/gpu_metrics",
	                       "sys/class/drm/card2/device/gpu_busy_percent",
	                       "sys/class/hwmon/hwmon5/fan1_input",
	                       "sys/class/power_supply/BAT1/capacity",
	                       "sys/class/drm/card2/device/hwmon/hwmon4/power1_cap" };
	for (size_t i = 0; i < sizeof gone / sizeof gone[0]; i++) {
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s/%s", f.root, gone[i]);
		assert_int_equal(unlink(path), 0);
	}
	assert_int_equal(deck_sample(d, &s), 0);
	assert_int_equal(s.r[DECK_GPU_CLOCK_MHZ].err, -ENOENT);
	assert_int_equal(s.r[DECK_GPU_POWER_W].err, -ENOENT);
	assert_int_equal(s.r[DECK_THROTTLED_THERMAL].err, -ENOENT);
	assert_int_equal(s.r[DECK_GPU_BUSY_PCT].err, -ENOENT);
	assert_int_equal(s.r[DECK_FAN_RPM].err, -ENOENT);
	assert_int_equal(s.r[DECK_BATTERY_PCT].err, -ENOENT);
	assert_int_equal(s.r[DECK_POWER_CAP_W].err, -ENOENT);
	/* hwmon's slowPPT stands in for the socket power gpu_metrics gave */
	assert_true(s.r[DECK_SOCKET_POWER_W].value == 11.25);
	assert_int_equal(s.r[DECK_GPU_SCLK_MHZ].err, 0);
	/* a truncated table is malformed, and says where */
	unsigned char half[60];
	memset(half, 0, sizeof half);
	half[0] = 128;
	half[2] = 2;
	half[3] = 2;
	fake_write_bytes(&f, "sys/class/drm/card2/device/gpu_metrics", half, sizeof half);
	assert_int_equal(deck_sample(d, &s), 0);
	assert_int_equal(s.r[DECK_GPU_CLOCK_MHZ].err, -EINVAL);
	assert_non_null(strstr(deck_errmsg(d), "gpu_metrics: byte 60: 60 bytes, the header says 128"));
	deck_destroy(d);
	fake_cleanup(&f);
}

static void test_reading_names__are_stable_and_unique(void **state)
{
	assert_string_equal(deck_reading_name(DECK_GPU_BUSY_PCT), "gpu_busy_pct");
	assert_string_equal(deck_reading_name(DECK_SWAP_IN_PAGES), "swap_in_pages");
	assert_string_equal(deck_reading_name(DECK_AC_ONLINE), "ac_online");
	assert_null(deck_reading_name(DECK_N_READINGS));
	for (int i = 0; i < DECK_N_READINGS; i++) {
		assert_non_null(deck_reading_name(i));
		for (int k = 0; k < i; k++)
			assert_string_not_equal(deck_reading_name(i), deck_reading_name(k));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample__a_deck_reads_every_source),
		cmocka_unit_test(test_sample__gpu_metrics_v2_4_as_v2_3),
		cmocka_unit_test(test_sample__an_empty_host_has_every_reading_absent),
		cmocka_unit_test(test_sample__malformed_source_is_absent_and_named),
		cmocka_unit_test(test_sample__missing_pieces_are_absent_one_by_one),
		cmocka_unit_test(test_sample__temperature_without_edge_label_uses_the_first),
		cmocka_unit_test(test_create__named_card_and_bad_root),
		cmocka_unit_test(test_sample__galileo_reads_v2_3_and_thermal_throttle),
		cmocka_unit_test(test_sample__desktop_card_power_is_the_gpus),
		cmocka_unit_test(test_sample__apu_without_gpu_metrics_labels_hwmon_power_socket),
		cmocka_unit_test(test_sample__files_vanishing_mid_run_are_absent),
		cmocka_unit_test(test_reading_names__are_stable_and_unique),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
