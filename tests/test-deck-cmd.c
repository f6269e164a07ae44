/* rxdeck deck info|clock on fake hosts: what is printed, what is written,
 * and exit codes; deck info's clock route against each steamos-manager
 * era's double, the priv-write double and no bus. */
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
#include "test-deck-bus-util.h"
#include "test-cmd-util.h"

/* No bus at all: the machine's own are never asked. */
static void no_buses(void)
{
	setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/system_bus_socket", 1);
	setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/session_bus_socket", 1);
	setenv(DECK_PRIV_WRITE_ENV, "/nonexistent/steamos-priv-write", 1);
}

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
	assert_non_null(strstr(out, "tdp            15 W in force (the kernel allows 0 to 29 W)\n"));
	/* as root here, sysfs is writable: that is the route, with the table's ranges */
	assert_non_null(strstr(out, "clock route    sysfs\n"));
	assert_non_null(strstr(out, "  tdp range    3 to 15 W, steamos-manager's device table for "
	                            "Jupiter (the kernel allows 0 to 29 W)\n"));
	assert_non_null(strstr(out, "  clock range  200 to 1600 MHz, steamos-manager's device table "
	                            "for Jupiter\n"));
	assert_non_null(strstr(out, "  passed over  session bus steamos-manager: no session bus: No such "
	                            "file or directory\n"));
	assert_non_null(strstr(out, "  passed over  pkexec steamos-priv-write: RXDECK_PRIV_WRITE "
	                            "'/nonexistent/steamos-priv-write' is not executable"));
	assert_non_null(strstr(out, "  socket_power_w       11.25 "));
	assert_non_null(strstr(out, "  gpu_power_w          5.4 "));
	assert_non_null(strstr(out, "  fan_rpm              2890 "));
	assert_non_null(strstr(out, "gpu level      auto\n"));
	assert_non_null(strstr(out, "  gpu_sclk_mhz         1600 "));
	assert_non_null(strstr(out, "  battery_pct          83 "));
	assert_null(strstr(out, "absent"));
	fake_cleanup(&f);
}

/* deck info's route lines with the era's double on private buses. */
static const char *info_with(const char *era, char *out, size_t size)
{
	struct fake f;
	fake_init(&f);
	fake_deck(&f);
	struct test_bus bus;
	char extra[PATH_MAX * 2];
	snprintf(extra, sizeof extra, "--era %s --root %s --card sys/class/drm/card2/device "
	         "--hwmon sys/class/drm/card2/device/hwmon/hwmon4", era, f.root);
	if (strcmp(era, "none") == 0) {
		setenv(DECK_PRIV_WRITE_ENV, RXDECK_SOURCE_ROOT "/tests/doubles/priv-write-double.sh", 1);
		setenv("RXDECK_DECK_ROOT", f.root, 1);
	}
	if (!test_bus_start(&bus, f.root, extra)) {
		test_bus_stop(&bus);
		fail_msg("the D-Bus doubles did not come up");
	}
	char err[1024];
	int rc = test_cmd_run(out, size, err, sizeof err, "deck", "info", "--root", f.root, NULL);
	char json[16384];
	int rcj = test_cmd_run(json, sizeof json, err, sizeof err, "deck", "info", "--json", "--root",
	                       f.root, NULL);
	test_bus_stop(&bus);
	no_buses();
	unsetenv("RXDECK_DECK_ROOT");
	/* nothing written by asking */
	assert_string_equal(fake_read(&f, "sys/class/drm/card2/device/hwmon/hwmon4/power1_cap"),
	                    "15000000\n");
	fake_cleanup(&f);
	assert_int_equal(rc, RXDECK_EXIT_OK);
	assert_int_equal(rcj, RXDECK_EXIT_OK);
	json_error_t je;
	json_t *j = json_loads(json, 0, &je);
	assert_non_null(j);
	json_t *route = json_object_get(j, "route");
	assert_non_null(route);
	static char kind[32];
	snprintf(kind, sizeof kind, "%s", json_string_value(json_object_get(route, "kind")));
	json_decref(j);
	return kind;
}

static void test_deck_info__route_per_era(void **state)
{
	char why[256];
	if (!test_bus_can_run(why, sizeof why))
		skip();
	char out[16384];
	assert_string_equal(info_with("split", out, sizeof out), "split");
	assert_non_null(strstr(out, "clock route    split: steamos-manager on the session bus\n"
	                            "  interface    com.steampowered.SteamOSManager1.GpuPerformanceLevel1 "
	                            "and com.steampowered.SteamOSManager1.TdpLimit1\n"
	                            "  version      9\n"
	                            "  tdp range    3 to 15 W, steamos-manager's TdpLimitMin/Max\n"
	                            "  clock range  200 to 1600 MHz, steamos-manager's "
	                            "ManualGpuClockMin/Max\n"));
	assert_string_equal(info_with("manager", out, sizeof out), "manager");
	assert_non_null(strstr(out, "clock route    manager: steamos-manager on the system bus\n"
	                            "  interface    com.steampowered.SteamOSManager1.Manager (Gpu "
	                            "spelling)\n  version      8\n"));
	assert_non_null(strstr(out, "  passed over  session bus steamos-manager: "
	                            "com.steampowered.SteamOSManager1 is not on it\n"));
	assert_string_equal(info_with("manager-GPU", out, sizeof out), "manager");
	assert_non_null(strstr(out, "(GPU spelling)\n  version      7\n"
	                            "  tdp range    3 to 15 W, steamos-manager's TDPLimitMin/Max\n"));
	assert_string_equal(info_with("methods", out, sizeof out), "methods");
	assert_non_null(strstr(out, "  interface    com.steampowered.SteamOSManager1 "
	                            "(SetGpuPerformanceLevel, SetGpuClocks, SetTDPLimit)\n"
	                            "  version      1\n"
	                            "  tdp range    3 to 15 W, the 2023 steamos-manager's SetTDPLimit "
	                            "limit\n"));
	assert_string_equal(info_with("unit-fails", out, sizeof out), "sysfs");
	assert_non_null(strstr(out, "  passed over  session bus steamos-manager: "
	                            "com.steampowered.SteamOSManager1 did not answer "
	                            "(org.freedesktop.DBus.Error.Spawn.ChildExited: "));
	assert_string_equal(info_with("none", out, sizeof out), "priv-write");
	assert_non_null(strstr(out, "clock route    priv-write\n  interface    "));
	assert_non_null(strstr(out, "priv-write-double.sh PATH VALUE\n"));
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
	no_buses();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deck_info__a_deck),
		cmocka_unit_test(test_deck_info__route_per_era),
		cmocka_unit_test(test_deck_info__absent_sources_are_marked_absent),
		cmocka_unit_test(test_deck_info__json_has_facts_and_readings),
		cmocka_unit_test(test_deck_clock__manual_from_a_card_without_od_range_restores),
		cmocka_unit_test(test_deck_clock__show_set_and_refuse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
