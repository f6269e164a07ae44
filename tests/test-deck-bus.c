/* deck over D-Bus, against doubles of logind and steamos-manager on a
 * private dbus-daemon: the sleep inhibitor held and released (also when
 * its holder is killed), steamos-manager's clock and TDP set and refused,
 * the device state saved, changed and put back through steamos-manager or
 * sysfs, and the state file a killed harness leaves. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test-deck-bus-util.h"
#include "test-deck-util.h"

struct ctx {
	struct fake f;
	struct test_bus bus;
};

static int setup(void **state, const char *extra)
{
	struct ctx *c = calloc(1, sizeof *c);
	fake_init(&c->f);
	if (!test_bus_start(&c->bus, c->f.root, extra)) {
		test_bus_stop(&c->bus);
		fake_cleanup(&c->f);
		free(c);
		return -1;
	}
	*state = c;
	return 0;
}

static int setup_full(void **state)
{
	return setup(state, NULL);
}

static int setup_no_manager(void **state)
{
	return setup(state, "--no-manager");
}

static int setup_refusing(void **state)
{
	return setup(state, "--refuse-inhibit");
}

static int teardown(void **state)
{
	struct ctx *c = *state;
	test_bus_stop(&c->bus);
	fake_cleanup(&c->f);
	free(c);
	return 0;
}

static void test_inhibit__held_until_released(void **state)
{
	struct ctx *c = *state;
	char msg[256] = "";
	struct deck_inhibitor *i = NULL;
	assert_int_equal(deck_inhibit("campaign night", &i, msg, sizeof msg), 0);
	assert_true(test_bus_logged(&c->bus, "inhibit sleep:idle rxdeck campaign night block"));
	struct timespec ts = { 0, 300 * 1000000 };
	nanosleep(&ts, NULL);
	assert_null(strstr(test_bus_log(&c->bus), "released 1"));
	deck_inhibitor_release(i);
	assert_true(test_bus_logged(&c->bus, "released 1"));
	deck_inhibitor_release(NULL);
}

static void test_inhibit__released_when_the_holder_is_killed(void **state)
{
	struct ctx *c = *state;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char msg[256];
		struct deck_inhibitor *i;
		if (deck_inhibit("killed", &i, msg, sizeof msg) != 0)
			_exit(1);
		pause();
		_exit(0);
	}
	assert_true(test_bus_logged(&c->bus, "inhibit sleep:idle rxdeck killed block"));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	assert_true(test_bus_logged(&c->bus, "released 1"));
}

static void test_inhibit__refusal_says_so(void **state)
{
	char msg[256] = "";
	struct deck_inhibitor *i = (struct deck_inhibitor *)state;
	assert_true(deck_inhibit("x", &i, msg, sizeof msg) < 0);
	assert_ptr_equal(i, (struct deck_inhibitor *)state);
	assert_non_null(strstr(msg, "logind refused the sleep inhibitor: Access denied"));
}

static void test_manager__clock_and_tdp(void **state)
{
	struct ctx *c = *state;
	char msg[256] = "";
	struct deck_manager *m = NULL;
	assert_int_equal(deck_manager_open(&m, msg, sizeof msg), 0);
	char level[32];
	assert_int_equal(deck_manager_gpu_level_get(m, level, sizeof level), 0);
	assert_string_equal(level, "auto");
	unsigned v, lo, hi;
	assert_int_equal(deck_manager_gpu_clock_get(m, &v, &lo, &hi), 0);
	assert_true(v == 1600 && lo == 200 && hi == 1600);
	assert_int_equal(deck_manager_gpu_clock_set(m, 1100), 0);
	assert_true(test_bus_logged(&c->bus, "set GpuPerformanceLevel manual"));
	assert_true(test_bus_logged(&c->bus, "set ManualGpuClock 1100"));
	assert_int_equal(deck_manager_gpu_clock_set(m, 2000), -ERANGE);
	assert_string_equal(deck_manager_errmsg(m),
	                    "2000 MHz is outside steamos-manager's range, 200 to 1600 MHz");
	assert_int_equal(deck_manager_tdp_set(m, 12), 0);
	assert_true(test_bus_logged(&c->bus, "set TdpLimit 12"));
	assert_int_equal(deck_manager_tdp_get(m, &v, &lo, &hi), 0);
	assert_true(v == 12 && lo == 3 && hi == 15);
	assert_int_equal(deck_manager_tdp_set(m, 2), -ERANGE);
	assert_int_equal(deck_manager_gpu_level_set(m, "turbo"), -EINVAL);
	assert_non_null(strstr(deck_manager_errmsg(m), "refused GpuPerformanceLevel = 'turbo'"));
	deck_manager_close(m);
	deck_manager_close(NULL);
}

static void test_control__via_steamos_manager_apply_and_restore(void **state)
{
	struct ctx *c = *state;
	fake_deck(&c->f);
	struct deck *d = fake_open(&c->f);
	struct deck_control *ctl;
	assert_int_equal(deck_control_create(d, true, &ctl), 0);
	assert_string_equal(deck_control_via(ctl), "steamos-manager");
	struct deck_control_state s;
	assert_int_equal(deck_control_save(ctl, &s), 0);
	assert_string_equal(s.level, "auto");
	assert_true(s.tdp_w == 15 && s.clock_mhz == 1600);
	assert_int_equal(deck_control_apply(ctl, 1100, 12), 0);
	assert_true(test_bus_logged(&c->bus, "set ManualGpuClock 1100"));
	assert_true(test_bus_logged(&c->bus, "set TdpLimit 12"));
	/* sysfs untouched: steamos-manager did it */
	assert_string_equal(fake_read(&c->f, "sys/class/drm/card2/device/hwmon/hwmon4/power1_cap"),
	                    "15000000\n");
	assert_int_equal(deck_control_restore(ctl, &s), 0);
	assert_true(test_bus_logged(&c->bus, "set TdpLimit 15"));
	assert_true(test_bus_logged(&c->bus, "set GpuPerformanceLevel auto"));
	deck_control_destroy(ctl);
	deck_destroy(d);
}

static void test_control__without_steamos_manager_uses_sysfs(void **state)
{
	struct ctx *c = *state;
	fake_deck(&c->f);
	struct deck *d = fake_open(&c->f);
	struct deck_control *ctl;
	assert_int_equal(deck_control_create(d, true, &ctl), 0);
	assert_string_equal(deck_control_via(ctl), "sysfs");
	struct deck_control_state s;
	assert_int_equal(deck_control_save(ctl, &s), 0);
	assert_int_equal(deck_control_apply(ctl, 0, 12), 0);
	assert_string_equal(fake_read(&c->f, "sys/class/drm/card2/device/hwmon/hwmon4/power1_cap"),
	                    "12000000\n");
	assert_int_equal(deck_control_apply(ctl, 800, 0), 0);
	assert_string_equal(
		fake_read(&c->f, "sys/class/drm/card2/device/power_dpm_force_performance_level"),
		"manual\n");
	assert_int_equal(deck_control_restore(ctl, &s), 0);
	assert_string_equal(fake_read(&c->f, "sys/class/drm/card2/device/hwmon/hwmon4/power1_cap"),
	                    "15000000\n");
	assert_string_equal(
		fake_read(&c->f, "sys/class/drm/card2/device/power_dpm_force_performance_level"),
		"auto\n");
	/* a state saved through steamos-manager cannot be put back without it */
	struct deck_control_state m = s;
	snprintf(m.via, sizeof m.via, "steamos-manager");
	assert_int_equal(deck_control_restore(ctl, &m), -ENOENT);
	assert_non_null(strstr(deck_control_errmsg(ctl), "not on the session bus now"));
	deck_control_destroy(ctl);
	deck_destroy(d);
}

static void test_control__state_file_round_trip_and_errors(void **state)
{
	struct ctx *c = *state;
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/device-state", c->f.root);
	struct deck_control_state s = { .via = "steamos-manager", .level = "manual",
	                                .clock_mhz = 1300, .tdp_w = 11.5 }, r;
	char msg[256] = "";
	assert_int_equal(deck_control_state_read(path, &r, msg, sizeof msg), -ENOENT);
	assert_int_equal(deck_control_state_write(path, &s), 0);
	assert_int_equal(deck_control_state_read(path, &r, msg, sizeof msg), 0);
	assert_string_equal(r.via, "steamos-manager");
	assert_string_equal(r.level, "manual");
	assert_true(r.clock_mhz == 1300 && r.tdp_w == 11.5);
	fake_write(&c->f, "device-state", "via sysfs\nlevel auto\nclock_mhz 0\ntdp_w lots\n");
	assert_int_equal(deck_control_state_read(path, &r, msg, sizeof msg), -EINVAL);
	assert_non_null(strstr(msg, "device-state:4:7: unexpected 'tdp_w lots'"));
	fake_write(&c->f, "device-state", "via sysfs\nlevel auto\n");
	assert_int_equal(deck_control_state_read(path, &r, msg, sizeof msg), -EINVAL);
	assert_non_null(strstr(msg, "device-state:3:1: incomplete"));
	assert_string_equal(r.via, "steamos-manager"); /* untouched */
}

int main(void)
{
	test_bus_skip_unless_it_can_run();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_inhibit__held_until_released, setup_full, teardown),
		cmocka_unit_test_setup_teardown(test_inhibit__released_when_the_holder_is_killed,
		                                setup_full, teardown),
		cmocka_unit_test_setup_teardown(test_inhibit__refusal_says_so, setup_refusing, teardown),
		cmocka_unit_test_setup_teardown(test_manager__clock_and_tdp, setup_full, teardown),
		cmocka_unit_test_setup_teardown(test_control__via_steamos_manager_apply_and_restore,
		                                setup_full, teardown),
		cmocka_unit_test_setup_teardown(test_control__without_steamos_manager_uses_sysfs,
		                                setup_no_manager, teardown),
		cmocka_unit_test_setup_teardown(test_control__state_file_round_trip_and_errors,
		                                setup_full, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
