/* rxdeck deck info|clock on fake hosts: what is printed, what is written,
 * and exit codes. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <jansson.h>

#include "cmd/cmd.h"
#include "test-deck-util.h"
#include "test-cmd-util.h"

static void test_deck_info__a_deck(void **state)
{
	struct fake f;
	fake_init(&f);
	fake_deck(&f);
	char out[8192], err[1024];
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "deck", "info", "--root", f.root,
	                     NULL), RXDECK_EXIT_OK);
	assert_non_null(strstr(out, "device         Steam Deck LCD (DMI Valve Jupiter)\n"));
	assert_non_null(strstr(out, "os             SteamOS 3.6.19 (build 20241001.1)\n"));
	assert_non_null(strstr(out, "memory         15.3 GiB\n"));
	assert_non_null(strstr(out, "gpu card       card2, driver amdgpu, PCI 1002:163f, APU\n"));
	assert_non_null(strstr(out, "swap           1.0 GiB\n"));
	assert_non_null(strstr(out, "swappiness     100\n"));
	assert_non_null(strstr(out, "zram           none\n"));
	assert_non_null(strstr(out, "gpu_metrics    v2.2\n"));
	assert_non_null(strstr(out, "vram carve-out 1.0 GiB\n"));
	assert_non_null(strstr(out, "display        eDP-1, 800x1280, 60.00 Hz preferred mode\n"));
	assert_non_null(strstr(out, "tdp            15 W (range 0 to 15 W)\n"));
	assert_non_null(strstr(out, "  socket_power_w       11.25 "));
	assert_non_null(strstr(out, "  gpu_power_w          5.4 "));
	assert_non_null(strstr(out, "  fan_rpm              2890 "));
	assert_non_null(strstr(out, "gpu level      auto\n"));
	assert_non_null(strstr(out, "  gpu_sclk_mhz         1600 "));
	assert_non_null(strstr(out, "  battery_pct          83 "));
	assert_null(strstr(out, "absent"));
	fake_cleanup(&f);
}

static void test_deck_info__absent_sources_are_marked_absent(void **state)
{
	struct fake f;
	fake_init(&f);
	fake_write(&f, "proc/loadavg", "0.10 0.20 0.30 1/2 3\n");
	char out[8192], err[1024];
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "deck", "info", "--root", f.root,
	                     NULL), RXDECK_EXIT_OK);
	assert_non_null(strstr(out, "device         absent\n"));
	assert_non_null(strstr(out, "memory         absent\n"));
	assert_non_null(strstr(out, "gpu card       absent"));
	assert_non_null(strstr(out, "  gpu_busy_pct         absent: no such source on this host\n"));
	assert_non_null(strstr(out, "  battery_pct          absent: no such source on this host\n"));
	assert_non_null(strstr(out, "  load_5m              0.2 "));
	/* Never a made-up zero. */
	assert_null(strstr(out, "gpu_busy_pct         0"));
	fake_cleanup(&f);
}

static void test_deck_info__json_has_facts_and_readings(void **state)
{
	struct fake f;
	fake_init(&f);
	fake_galileo(&f);
	char out[16384], err[1024];
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "deck", "info", "--json", "--root",
	                     f.root, NULL), RXDECK_EXIT_OK);
	json_error_t je;
	json_t *j = json_loads(out, 0, &je);
	if (!j)
		fail_msg("not JSON: %s\n%s", je.text, out);
	json_t *facts = json_object_get(j, "facts"), *r = json_object_get(j, "readings");
	assert_string_equal(json_string_value(json_object_get(facts, "device_model")),
	                    "Steam Deck OLED");
	assert_string_equal(json_string_value(json_object_get(facts, "mesa_source")),
	                    "holo pacmandb");
	assert_string_equal(json_string_value(json_object_get(facts, "zram_algorithm")), "zstd");
	assert_int_equal(json_integer_value(json_object_get(facts, "zram_B")), 8053063680LL);
	assert_int_equal(json_integer_value(json_object_get(facts, "swappiness")), 1);
	assert_true(json_is_true(json_object_get(facts, "apu")));
	double hz = json_real_value(json_object_get(facts, "display_refresh_hz"));
	assert_true(hz > 89.98 && hz < 90.01);
	assert_true(json_real_value(json_object_get(facts, "tdp_w")) == 15);
	json_t *socket = json_object_get(r, "socket_power_w");
	assert_true(json_real_value(json_object_get(socket, "value")) == 9);
	assert_non_null(strstr(json_string_value(json_object_get(socket, "source")),
	                       "card0/device/gpu_metrics"));
	assert_true(json_real_value(json_object_get(json_object_get(r, "throttled_thermal"),
	                                            "value")) == 1);
	/* absent readings say why, with no value */
	json_t *swapin = json_object_get(r, "battery_discharging");
	assert_non_null(swapin);
	json_t *cap = json_object_get(r, "power_cap_w");
	assert_true(json_real_value(json_object_get(cap, "value")) == 15);
	json_decref(j);
	fake_cleanup(&f);

	fake_init(&f);
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "deck", "info", "--json", "--root",
	                     f.root, NULL), RXDECK_EXIT_OK);
	j = json_loads(out, 0, &je);
	assert_non_null(j);
	facts = json_object_get(j, "facts");
	assert_true(json_is_null(json_object_get(facts, "mesa")));
	assert_true(json_is_null(json_object_get(facts, "memory_B")));
	assert_true(json_is_null(json_object_get(facts, "display_refresh_hz")));
	json_t *busy = json_object_get(json_object_get(j, "readings"), "gpu_busy_pct");
	assert_null(json_object_get(busy, "value"));
	assert_string_equal(json_string_value(json_object_get(busy, "absent")),
	                    "no such source on this host");
	json_decref(j);
	fake_cleanup(&f);
}

static void test_deck_clock__manual_from_a_card_without_od_range_restores(void **state)
{
	struct fake f;
	fake_init(&f);
	fake_galileo(&f); /* no pp_od_clk_voltage at all */
	char out[4096], err[1024];
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "deck", "clock", "--root", f.root,
	                     "manual", "1000", NULL), RXDECK_EXIT_FAILURE);
	assert_non_null(strstr(err, "pp_od_clk_voltage"));
	assert_string_equal(fake_read(&f, "sys/class/drm/card0/device/power_dpm_force_performance_level"),
	                    "auto\n");
	fake_cleanup(&f);
}

static void test_deck_clock__show_set_and_refuse(void **state)
{
	struct fake f;
	fake_init(&f);
	fake_deck(&f);
	char out[4096], err[1024];
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "deck", "clock", "--root", f.root,
	                     NULL), RXDECK_EXIT_OK);
	assert_string_equal(out, "level          auto\nshader clock   1600 MHz\n"
	                         "fixed range    200 to 1600 MHz\n");
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "deck", "clock", "--root", f.root,
	                     "manual", "800", NULL), RXDECK_EXIT_OK);
	assert_string_equal(out, "shader clock fixed at 800 MHz (level manual)\n");
	assert_string_equal(fake_read(&f, "sys/class/drm/card2/device/power_dpm_force_performance_level"),
	                    "manual\n");
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "deck", "clock", "--root", f.root,
	                     "high", NULL), RXDECK_EXIT_OK);
	assert_string_equal(fake_read(&f, "sys/class/drm/card2/device/power_dpm_force_performance_level"),
	                    "high\n");
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "deck", "clock", "--root", f.root,
	                     "manual", NULL), RXDECK_EXIT_USAGE);
	assert_non_null(strstr(err, "'manual' needs a clock in MHz"));
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "deck", "clock", "--root", f.root,
	                     "manual", "fast", NULL), RXDECK_EXIT_USAGE);
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "deck", "clock", "--root", f.root,
	                     "manual", "5000", NULL), RXDECK_EXIT_FAILURE);
	assert_non_null(strstr(err, "5000 MHz is outside the card's range, 200 to 1600 MHz"));
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "deck", "clock", "--root", f.root,
	                     "turbo", NULL), RXDECK_EXIT_FAILURE);
	assert_non_null(strstr(err, "unknown performance level 'turbo'"));
	assert_string_equal(fake_read(&f, "sys/class/drm/card2/device/power_dpm_force_performance_level"),
	                    "high\n");
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "deck", "nap", NULL),
	                 RXDECK_EXIT_USAGE);
	fake_cleanup(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deck_info__a_deck),
		cmocka_unit_test(test_deck_info__absent_sources_are_marked_absent),
		cmocka_unit_test(test_deck_info__json_has_facts_and_readings),
		cmocka_unit_test(test_deck_clock__manual_from_a_card_without_od_range_restores),
		cmocka_unit_test(test_deck_clock__show_set_and_refuse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
