/* rxdeck deck info|clock on fake hosts: what is printed, what is written,
 * and exit codes; deck info's clock route, and deck clock's showing and
 * setting through it, against each steamos-manager era's double
 * (tests/doubles/deck-bus-double.py), the priv-write double
 * (tests/doubles/priv-write-double.sh) and no bus. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
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

/* A skip (77 for the case) where the D-Bus doubles cannot run. */
static void skip_without_buses(void)
{
	char why[256];
	if (!test_bus_can_run(why, sizeof why))
		skip();
}

/* One era's double on private buses over a fake LCD Deck; with helper,
 * the priv-write double as Valve's helper (else none: no_buses()'s). */
struct era_env {
	struct fake f;
	struct test_bus bus;
};

static void era_start(struct era_env *e, const char *era, const char *more, bool helper)
{
	fake_init(&e->f);
	fake_deck(&e->f);
	char extra[PATH_MAX * 2];
	snprintf(extra, sizeof extra, "--era %s --root %s --card sys/class/drm/card2/device "
	         "--hwmon sys/class/drm/card2/device/hwmon/hwmon4 %s", era, e->f.root, more);
	if (helper) {
		setenv(DECK_PRIV_WRITE_ENV, RXDECK_SOURCE_ROOT "/tests/doubles/priv-write-double.sh",
		       1);
		setenv("RXDECK_DECK_ROOT", e->f.root, 1);
		char log[PATH_MAX + 32];
		snprintf(log, sizeof log, "%s/priv-write.log", e->f.root);
		setenv("PRIV_WRITE_DOUBLE_LOG", log, 1);
	}
	if (!test_bus_start(&e->bus, e->f.root, extra)) {
		test_bus_stop(&e->bus);
		fail_msg("the D-Bus doubles did not come up");
	}
}

static void era_stop(struct era_env *e)
{
	test_bus_stop(&e->bus);
	unsetenv("RXDECK_DECK_ROOT");
	unsetenv("PRIV_WRITE_DOUBLE_LOG");
	no_buses();
	fake_cleanup(&e->f);
}

/* deck info's route lines with the era's double on private buses. */
static const char *info_with(const char *era, char *out, size_t size)
{
	struct era_env e;
	era_start(&e, era, "", strcmp(era, "none") == 0);
	char err[1024];
	int rc = test_cmd_run(out, size, err, sizeof err, "deck", "info", "--root", e.f.root, NULL);
	char json[16384];
	int rcj = test_cmd_run(json, sizeof json, err, sizeof err, "deck", "info", "--json", "--root",
	                       e.f.root, NULL);
	bool kept = strcmp(fake_read(&e.f, "sys/class/drm/card2/device/hwmon/hwmon4/power1_cap"),
	                   "15000000\n") == 0;
	era_stop(&e);
	assert_true(kept); /* nothing written by asking */
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
	skip_without_buses();
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

#define LEVEL_FILE "sys/class/drm/card2/device/power_dpm_force_performance_level"
#define OD_FILE "sys/class/drm/card2/device/pp_od_clk_voltage"

static void test_deck_clock__manual_from_a_card_without_od_range_restores(void **state)
{
	struct fake f;
	fake_init(&f);
	fake_galileo(&f); /* no pp_od_clk_voltage at all */
	char out[4096], err[2048];
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "deck", "clock", "--root", f.root,
	                     "manual", "1000", NULL), RXDECK_EXIT_FAILURE);
	assert_non_null(strstr(err, "pp_od_clk_voltage"));
	assert_non_null(strstr(err, "; the GPU level 'auto' is put back through sysfs ("));
	assert_string_equal(fake_read(&f, "sys/class/drm/card0/device/power_dpm_force_performance_level"),
	                    "auto\n");
	fake_cleanup(&f);
}

static void test_deck_clock__show_set_and_refuse(void **state)
{
	struct fake f;
	fake_init(&f);
	fake_deck(&f);
	char out[4096], err[2048];
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "deck", "clock", "--root", f.root,
	                     NULL), RXDECK_EXIT_OK);
	/* as root here, sysfs is writable: the route, with the device table's range */
	assert_non_null(strstr(out, "level          auto\nshader clock   1600 MHz\n"
	                            "route          sysfs ("));
	assert_non_null(strstr(out, "fixed range    200 to 1600 MHz, steamos-manager's device table "
	                            "for Jupiter\n"));
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "deck", "clock", "--root", f.root,
	                     "manual", "800", NULL), RXDECK_EXIT_OK);
	assert_non_null(strstr(out, "shader clock fixed at 800 MHz (level manual), through sysfs ("));
	assert_string_equal(fake_read(&f, LEVEL_FILE), "manual\n");
	assert_non_null(strstr(fake_read(&f, OD_FILE), "s 1 800\nc\n"));
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "deck", "clock", "--root", f.root,
	                     "high", NULL), RXDECK_EXIT_OK);
	assert_string_equal(fake_read(&f, LEVEL_FILE), "high\n");
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "deck", "clock", "--root", f.root,
	                     "manual", NULL), RXDECK_EXIT_USAGE);
	assert_non_null(strstr(err, "'manual' needs a clock in MHz"));
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "deck", "clock", "--root", f.root,
	                     "manual", "fast", NULL), RXDECK_EXIT_USAGE);
	/* the route's range, refused before anything is written */
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "deck", "clock", "--root", f.root,
	                     "manual", "1700", NULL), RXDECK_EXIT_FAILURE);
	assert_non_null(strstr(err, "gpu_clock 1700 MHz is outside 200 to 1600 MHz, steamos-manager's "
	                            "device table for Jupiter"));
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "deck", "clock", "--root", f.root,
	                     "turbo", NULL), RXDECK_EXIT_FAILURE);
	assert_non_null(strstr(err, "unknown performance level 'turbo'"));
	assert_string_equal(fake_read(&f, LEVEL_FILE), "high\n");
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "deck", "nap", NULL),
	                 RXDECK_EXIT_USAGE);
	fake_cleanup(&f);
}

/* No route at all (no bus, no helper, no card): setting fails naming
 * every route tried; showing still reads what it can. */
static void test_deck_clock__without_a_route_names_every_route_tried(void **state)
{
	struct fake f;
	fake_init(&f);
	fake_write(&f, "proc/loadavg", "0.10 0.20 0.30 1/2 3\n");
	char out[4096], err[4096];
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "deck", "clock", "--root",
	                              f.root, "high", NULL), RXDECK_EXIT_FAILURE);
	static const char *const tried[] = {
		"no route to the GPU clock and TDP: session bus steamos-manager: no session bus: ",
		"; system bus steamos-manager: no system bus: ",
		"; pkexec steamos-priv-write: this host has no amdgpu card",
		"; sysfs: this host has no amdgpu card",
	};
	for (size_t i = 0; i < sizeof tried / sizeof tried[0]; i++)
		if (!strstr(err, tried[i]))
			fail_msg("no '%s' in: %s", tried[i], err);
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "deck", "clock", "--root",
	                              f.root, "manual", "800", NULL), RXDECK_EXIT_FAILURE);
	assert_non_null(strstr(err, tried[0]));
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "deck", "clock", "--root",
	                              f.root, NULL), RXDECK_EXIT_OK);
	assert_non_null(strstr(out, "shader clock   absent\nroute          none: session bus "
	                            "steamos-manager: no session bus: "));
	fake_cleanup(&f);
}

/* What each era's route is called and what its double logs for a fixed
 * clock of 800 MHz and for the level high ("" for the helper, whose own
 * log says it: "commit: VALUE -> PATH"). */
static const struct {
	const char *era, *route, *range, *manual, *clock, *high, *put_back;
} clock_eras[] = {
	{ "split", "route          split: steamos-manager on the session bus\n",
	  "steamos-manager's ManualGpuClockMin/Max", "set GpuPerformanceLevel manual",
	  "set ManualGpuClock 800", "set GpuPerformanceLevel high", "set GpuPerformanceLevel auto" },
	{ "manager", "route          manager: steamos-manager on the system bus\n",
	  "steamos-manager's ManualGpuClockMin/Max", "set GpuPerformanceLevel 3",
	  "set ManualGpuClock 800", "set GpuPerformanceLevel 2", "set GpuPerformanceLevel 0" },
	{ "manager-GPU", "route          manager: steamos-manager on the system bus\n",
	  "steamos-manager's ManualGPUClockMin/Max", "set GPUPerformanceLevel 3",
	  "set ManualGPUClock 800", "set GPUPerformanceLevel 2", "set GPUPerformanceLevel 0" },
	{ "methods", "route          methods: steamos-manager on the system bus\n",
	  "the 2023 steamos-manager's SetGpuClocks limit", "call SetGpuPerformanceLevel 3",
	  "call SetGpuClocks 800", "call SetGpuPerformanceLevel 2",
	  "call SetGpuPerformanceLevel 0" },
	{ "none", "route          priv-write (", "steamos-manager's device table for Jupiter",
	  "commit: manual -> /sys/class/drm/card2/device/power_dpm_force_performance_level",
	  "commit: s 1 800 -> /sys/class/drm/card2/device/pp_od_clk_voltage",
	  "commit: high -> /sys/class/drm/card2/device/power_dpm_force_performance_level",
	  "commit: auto -> /sys/class/drm/card2/device/power_dpm_force_performance_level" },
	/* the session unit that fails to start: the helper next */
	{ "unit-fails", "route          priv-write (", "steamos-manager's device table for Jupiter",
	  "commit: manual -> /sys/class/drm/card2/device/power_dpm_force_performance_level",
	  "commit: s 1 800 -> /sys/class/drm/card2/device/pp_od_clk_voltage",
	  "commit: high -> /sys/class/drm/card2/device/power_dpm_force_performance_level",
	  "commit: auto -> /sys/class/drm/card2/device/power_dpm_force_performance_level" },
};

static bool via_helper(size_t i)
{
	return strncmp(clock_eras[i].route, "route          priv-write", 25) == 0;
}

/* The log the era's route writes to: the bus double's, else the helper's. */
static const char *era_log(struct era_env *e, size_t i)
{
	return via_helper(i) ? fake_read(&e->f, "priv-write.log") : test_bus_log(&e->bus);
}

/* Show, a fixed clock and a level, each through the era's route, proven by
 * its no-op write first, with the fake card's files written by the double
 * (as steamos-manager and the helper write sysfs). */
static void test_deck_clock__through_the_route_of_every_era(void **state)
{
	skip_without_buses();
	for (size_t i = 0; i < sizeof clock_eras / sizeof clock_eras[0]; i++) {
		struct era_env e;
		era_start(&e, clock_eras[i].era, "", via_helper(i));
		char out[8192], err[4096];
		assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "deck", "clock",
		                              "--root", e.f.root, NULL), RXDECK_EXIT_OK);
		if (!strstr(out, clock_eras[i].route) || !strstr(out, clock_eras[i].range) ||
		    !strstr(out, "level          auto\n"))
			fail_msg("%s: %s", clock_eras[i].era, out);
		assert_string_equal(fake_read(&e.f, LEVEL_FILE), "auto\n"); /* showing writes nothing */

		int rc = test_cmd_run(out, sizeof out, err, sizeof err, "deck", "clock", "--root",
		                      e.f.root, "manual", "800", NULL);
		if (rc != RXDECK_EXIT_OK)
			fail_msg("%s: manual 800: exit %d: %s", clock_eras[i].era, rc, err);
		assert_non_null(strstr(out, "shader clock fixed at 800 MHz (level manual), through "));
		const char *log = era_log(&e, i);
		const char *m = strstr(log, clock_eras[i].manual);
		if (!m || !strstr(m, clock_eras[i].clock))
			fail_msg("%s: no '%s' then '%s' in:\n%s", clock_eras[i].era, clock_eras[i].manual,
			         clock_eras[i].clock, log);
		assert_int_equal(strncmp(fake_read(&e.f, LEVEL_FILE), "manual", 6), 0);
		assert_non_null(strstr(fake_read(&e.f, OD_FILE), "s 1 800\n"));

		rc = test_cmd_run(out, sizeof out, err, sizeof err, "deck", "clock", "--root", e.f.root,
		                  "high", NULL);
		if (rc != RXDECK_EXIT_OK)
			fail_msg("%s: high: exit %d: %s", clock_eras[i].era, rc, err);
		assert_non_null(strstr(out, "level high, through "));
		assert_non_null(strstr(era_log(&e, i), clock_eras[i].high));
		assert_int_equal(strncmp(fake_read(&e.f, LEVEL_FILE), "high", 4), 0);
		era_stop(&e);
	}
}

/* The fixed clock refused after the level went to manual: the level is put
 * back through the same route, and the command fails saying both. */
static void test_deck_clock__a_refused_clock_is_put_back_through_the_route(void **state)
{
	skip_without_buses();
	for (size_t i = 0; i < sizeof clock_eras / sizeof clock_eras[0]; i++) {
		struct era_env e;
		bool helper = via_helper(i);
		era_start(&e, clock_eras[i].era, helper ? "" : "--fail-clock", helper);
		if (helper) { /* the helper's route: the card takes no fixed clock */
			char p[PATH_MAX];
			snprintf(p, sizeof p, "%s/" OD_FILE, e.f.root);
			assert_int_equal(unlink(p), 0);
		}
		char out[8192], err[4096];
		int rc = test_cmd_run(out, sizeof out, err, sizeof err, "deck", "clock", "--root",
		                      e.f.root, "manual", "800", NULL);
		if (rc != RXDECK_EXIT_FAILURE || !strstr(err, "; the GPU level 'auto' is put back "
		                                              "through "))
			fail_msg("%s: exit %d: %s", clock_eras[i].era, rc, err);
		const char *log = era_log(&e, i);
		const char *m = strstr(log, clock_eras[i].manual);
		if (!m || !strstr(m, clock_eras[i].put_back))
			fail_msg("%s: no '%s' after '%s' in:\n%s", clock_eras[i].era,
			         clock_eras[i].put_back, clock_eras[i].manual, log);
		assert_int_equal(strncmp(fake_read(&e.f, LEVEL_FILE), "auto", 4), 0);
		era_stop(&e);
	}
}

/* What the fake card's fixed-clock file held when SIGTERM was delivered. */
static char term_od_path[PATH_MAX];
static char term_od[4096];
static volatile sig_atomic_t term_seen;

static void on_term(int sig)
{
	(void)sig;
	int fd = open(term_od_path, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, term_od, sizeof term_od - 1) : 0;
	term_od[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
	term_seen = 1;
}

/* SIGTERM sent in the middle of a fixed clock (by a helper wrapped to send
 * it before "s 1 MHZ") is delivered only once the clock is committed. */
static void test_deck_clock__a_signal_waits_for_the_setting(void **state)
{
	skip_without_buses();
	struct era_env e;
	era_start(&e, "none", "", true);
	char wrapper[PATH_MAX];
	snprintf(wrapper, sizeof wrapper, "%s/term-then-write.sh", e.f.root);
	FILE *f = fopen(wrapper, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\ncase \"$2\" in \"s 1 \"*) kill -TERM $PPID;; esac\n"
	           "exec %s/tests/doubles/priv-write-double.sh \"$@\"\n", RXDECK_SOURCE_ROOT);
	fclose(f);
	assert_int_equal(chmod(wrapper, 0755), 0);
	setenv(DECK_PRIV_WRITE_ENV, wrapper, 1);
	snprintf(term_od_path, sizeof term_od_path, "%s/" OD_FILE, e.f.root);
	term_seen = 0;
	struct sigaction sa = { .sa_handler = on_term }, old;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGTERM, &sa, &old), 0);
	char out[8192], err[4096];
	int rc = test_cmd_run(out, sizeof out, err, sizeof err, "deck", "clock", "--root", e.f.root,
	                      "manual", "800", NULL);
	sigaction(SIGTERM, &old, NULL);
	if (rc != RXDECK_EXIT_OK)
		fail_msg("exit %d: %s", rc, err);
	assert_true(term_seen);
	if (!strstr(term_od, "s 1 800\nc\n"))
		fail_msg("SIGTERM came before the clock was committed:\n%s", term_od);
	era_stop(&e);
}

/* v24.x codes five levels: profile_standard is refused by the route and
 * nothing is changed. */
static void test_deck_clock__a_level_the_era_cannot_code(void **state)
{
	skip_without_buses();
	struct era_env e;
	era_start(&e, "manager", "", false);
	char out[8192], err[4096];
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "deck", "clock", "--root",
	                              e.f.root, "profile_standard", NULL), RXDECK_EXIT_FAILURE);
	assert_non_null(strstr(err, "GPU level 'profile_standard' has no code in this "
	                            "steamos-manager (auto, low, high, manual, profile_peak)"));
	assert_int_equal(strncmp(fake_read(&e.f, LEVEL_FILE), "auto", 4), 0);
	assert_null(strstr(test_bus_log(&e.bus), "set GpuPerformanceLevel 3"));
	era_stop(&e);
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
		cmocka_unit_test(test_deck_clock__without_a_route_names_every_route_tried),
		cmocka_unit_test(test_deck_clock__through_the_route_of_every_era),
		cmocka_unit_test(test_deck_clock__a_refused_clock_is_put_back_through_the_route),
		cmocka_unit_test(test_deck_clock__a_level_the_era_cannot_code),
		cmocka_unit_test(test_deck_clock__a_signal_waits_for_the_setting),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
