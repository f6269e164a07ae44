/* deck sleep: the suspend clock, logind's PrepareForSleep seen through the
 * watch, and systemd's version, against the logind/systemd double
 * (tests/doubles/deck-bus-double.py) on a private dbus-daemon; without a
 * bus the watch and the version say why. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <systemd/sd-bus.h>

#include "deck/sleep.h"
#include "test-deck-bus-util.h"

static char dir[PATH_MAX / 2];

/* What a test calls to make the double announce a suspend and a wake. */
static void double_sleeps(void)
{
	sd_bus *bus = NULL;
	assert_int_equal(sd_bus_open_system(&bus), 0);
	sd_bus_error e = SD_BUS_ERROR_NULL;
	int r = sd_bus_call_method(bus, "org.freedesktop.login1", "/org/freedesktop/login1",
	                           "org.rxdeck.Double", "Sleep", &e, NULL, "");
	if (r < 0)
		fail_msg("Sleep: %s", e.message ? e.message : strerror(-r));
	sd_bus_flush_close_unref(bus);
}

static void test_sleep__clock_only_grows_by_a_suspend(void **state)
{
	(void)state;
	int64_t a = deck_suspended_ns();
	struct timespec ts = { 0, 20 * 1000000 };
	nanosleep(&ts, NULL); /* not a suspend: both clocks go on */
	int64_t b = deck_suspended_ns();
	assert_true(a >= 0);
	/* equal but for the time between two reads of one call */
	assert_true(b - a < 1000000000LL && a - b < 1000000000LL);
}

static void test_sleep__watch_counts_prepare_for_sleep(void **state)
{
	(void)state;
	struct test_bus b;
	if (!test_bus_start(&b, dir, NULL)) {
		test_bus_stop(&b);
		fail_msg("the D-Bus double did not come up");
	}
	struct deck_sleep_watch *w = NULL;
	char msg[256] = "";
	assert_int_equal(deck_sleep_watch_open(&w, msg, sizeof msg), 0);
	unsigned n = 99;
	assert_int_equal(deck_sleep_watch_poll(w, &n), 0);
	assert_int_equal(n, 0);
	double_sleeps();
	assert_true(test_bus_logged(&b, "slept"));
	/* the signals wait in the socket until polled; give the bus a moment */
	for (int i = 0; i < 200 && n < 2; i++) {
		assert_int_equal(deck_sleep_watch_poll(w, &n), 0);
		struct timespec ts = { 0, 20 * 1000000 };
		nanosleep(&ts, NULL);
	}
	assert_int_equal(n, 2); /* true before, false after */
	deck_sleep_watch_close(w);
	test_bus_stop(&b);
}

static void test_sleep__systemd_version(void **state)
{
	(void)state;
	struct test_bus b;
	if (!test_bus_start(&b, dir, "--systemd-version=255.4-1-steamos")) {
		test_bus_stop(&b);
		fail_msg("the D-Bus double did not come up");
	}
	char v[64] = "", msg[256] = "";
	int major = 0;
	assert_int_equal(deck_systemd_version(v, sizeof v, &major, msg, sizeof msg), 0);
	assert_string_equal(v, "255.4-1-steamos");
	assert_int_equal(major, 255);
	assert_true(major < DECK_SYSTEMD_OWN_BLOCK_HONOURED);
	test_bus_stop(&b);
	/* a double that serves no systemd1 */
	assert_true(test_bus_start(&b, dir, NULL));
	assert_int_equal(deck_systemd_version(v, sizeof v, &major, msg, sizeof msg), -ENOENT);
	assert_non_null(strstr(msg, "systemd did not say its version"));
	test_bus_stop(&b);
	/* no bus at all */
	setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/rxdeck-test-bus", 1);
	assert_int_equal(deck_systemd_version(v, sizeof v, &major, msg, sizeof msg), -ENOENT);
	struct deck_sleep_watch *w = NULL;
	assert_int_equal(deck_sleep_watch_open(&w, msg, sizeof msg), -ENOENT);
	assert_non_null(strstr(msg, "PrepareForSleep"));
}

int main(void)
{
	test_bus_skip_unless_it_can_run();
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/rxdeck-sleep-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sleep__clock_only_grows_by_a_suspend),
		cmocka_unit_test(test_sleep__watch_counts_prepare_for_sleep),
		cmocka_unit_test(test_sleep__systemd_version),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	char log[PATH_MAX + 16];
	snprintf(log, sizeof log, "%s/bus.log", dir);
	unlink(log);
	rmdir(dir);
	return rc;
}
