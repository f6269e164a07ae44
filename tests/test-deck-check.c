/* rxdeck deck check on fake Decks: every line and its status, --json, and
 * the exit code (0 when nothing fails).  The fake roots are
 * tests/test-deck-util.h's (LCD Jupiter; its gpu_metrics as the kernel's
 * struct gpu_metrics_v2_4 or v3_0, deck/gpu-metrics-layout.h), plus what
 * the check looks for on SteamOS: /dev/uinput (a writable file stands in
 * for the device), Valve's helper
 * /usr/bin/steamos-polkit-helpers/steamos-priv-write (jupiter-hw-support)
 * and /usr/bin/pkexec (present, never run).  logind and systemd are the
 * D-Bus double (tests/doubles/deck-bus-double.py) on a private
 * dbus-daemon (77 without). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>

#include "cmd/cmd.h"
#include "test-deck-bus-util.h"
#include "test-deck-util.h"
#include "test-cmd-util.h"

struct env {
	struct fake f;
	struct fake home;
	struct test_bus bus;
};

static void exec_file(struct fake *f, const char *rel)
{
	fake_write(f, rel, "#!/bin/sh\nexit 1\n");
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/%s", f->root, rel);
	assert_int_equal(chmod(p, 0755), 0);
}

/* A Deck as a night wants it: SteamOS, the helper, uinput, AC, the units
 * installed, Game Mode. */
static void start(struct env *e, const char *bus_extra)
{
	fake_init(&e->f);
	fake_deck(&e->f);
	fake_write(&e->f, "dev/uinput", "");
	exec_file(&e->f, "usr/bin/steamos-polkit-helpers/steamos-priv-write");
	exec_file(&e->f, "usr/bin/pkexec");
	fake_init(&e->home);
	fake_write(&e->home, ".config/systemd/user/rxdeck-overnight.service", "[Service]\n");
	fake_write(&e->home, ".config/systemd/user/rxdeck-overnight.timer", "[Timer]\n");
	setenv("HOME", e->home.root, 1);
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("XDG_DATA_HOME");
	setenv("XDG_CURRENT_DESKTOP", "gamescope", 1);
	char extra[PATH_MAX * 2 + 128];
	snprintf(extra, sizeof extra, "--root %s --card sys/class/drm/card2/device "
	         "--hwmon sys/class/drm/card2/device/hwmon/hwmon4 %s", e->f.root,
	         bus_extra ? bus_extra : "");
	if (!test_bus_start(&e->bus, e->home.root, extra)) {
		test_bus_stop(&e->bus);
		fail_msg("the D-Bus double did not come up");
	}
}

static void stop(struct env *e)
{
	unsetenv(DECK_PRIV_WRITE_ENV);
	unsetenv("RXDECK_DECK_ROOT");
	unsetenv("PRIV_WRITE_DOUBLE_LOG");
	test_bus_stop(&e->bus);
	fake_cleanup(&e->f);
	fake_cleanup(&e->home);
}

/* The status of check name in a --json answer ("" when absent). */
static const char *status_of(json_t *j, const char *name, const char **detail)
{
	size_t i;
	json_t *c;
	json_array_foreach(json_object_get(j, "checks"), i, c) {
		if (strcmp(json_string_value(json_object_get(c, "check")), name) == 0) {
			if (detail)
				*detail = json_string_value(json_object_get(c, "detail"));
			return json_string_value(json_object_get(c, "status"));
		}
	}
	return "";
}

static json_t *check_json(struct env *e, int want_rc)
{
	static char out[32768];
	char err[2048];
	int rc = test_cmd_run(out, sizeof out, err, sizeof err, "deck", "check", "--json", "--root",
	                      e->f.root, NULL);
	if (rc != want_rc)
		fail_msg("exit %d, not %d: %s%s", rc, want_rc, out, err);
	json_error_t je;
	json_t *j = json_loads(out, 0, &je);
	if (!j)
		fail_msg("not JSON (%s): %s", je.text, out);
	return j;
}

static void test_deck_check__a_ready_deck_passes(void **state)
{
	struct env e;
	start(&e, "--systemd-version=257.3-1-steamos");
	fake_metrics(&e.f, "sys/class/drm/card2/device/gpu_metrics",
	             &(struct fake_metrics){ .content = 4, .socket_mw = 11250, .gfxclk_mhz = 1600 });
	json_t *j = check_json(&e, RXDECK_EXIT_OK);
	static const char *const names[] = { "steamos", "priv-write", "uinput", "inhibitor",
		                             "systemd", "power", "gpu_metrics", "hwmon", "units",
		                             "libraries", "mode", "disk" };
	const char *detail = NULL;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		const char *st = status_of(j, names[i], &detail);
		/* free space is the test machine's */
		if (strcmp(names[i], "disk") == 0 && strcmp(st, "warn") == 0)
			continue;
		if (strcmp(st, "ok") != 0)
			fail_msg("%s: '%s' (%s)", names[i], st, detail ? detail : "");
	}
	assert_int_equal(json_integer_value(json_object_get(j, "fail")), 0);
	status_of(j, "gpu_metrics", &detail);
	char want[160];
	snprintf(want, sizeof want, "v2.4, %zu bytes (header %zu), read: socket 11.25 W, gfx clock "
	         "1600 MHz", sizeof(struct kgd_gpu_metrics_v2_4), sizeof(struct kgd_gpu_metrics_v2_4));
	assert_string_equal(detail, want);
	status_of(j, "steamos", &detail);
	assert_string_equal(detail, "SteamOS 3.6.19 (build 20241001.1)");
	status_of(j, "systemd", &detail);
	assert_non_null(strstr(detail, "systemd 257.3-1-steamos: logind honours"));
	status_of(j, "inhibitor", &detail);
	assert_true(test_bus_logged(&e.bus, "inhibit sleep:idle rxdeck rxdeck deck check block"));
	assert_true(test_bus_logged(&e.bus, "released 1"));
	status_of(j, "mode", &detail);
	assert_string_equal(detail, "Game Mode (XDG_CURRENT_DESKTOP=gamescope)");
	status_of(j, "hwmon", &detail);
	assert_string_equal(detail, "hwmon4: power1 slowPPT, power1_cap, temp1 edge, temp2, fan "
	                            "steamdeck_hwmon");
	json_decref(j);

	/* the text form: one line a check, the counts last */
	char out[16384], err[1024];
	assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "deck", "check", "--root",
	                              e.f.root, NULL), RXDECK_EXIT_OK);
	assert_non_null(strstr(out, "ok    uinput       "));
	assert_non_null(strstr(out, "ok    systemd      systemd 257.3-1-steamos"));
	assert_non_null(strstr(out, " 0 fail\n"));
	stop(&e);
}

static void test_deck_check__what_stops_or_weakens_a_night(void **state)
{
	struct env e;
	start(&e, "--systemd-version=255.4-1-steamos");
	/* no uinput, on battery, a v3.0 table, a panel label missing */
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/dev/uinput", e.f.root);
	assert_int_equal(unlink(p), 0);
	fake_write(&e.f, "sys/class/power_supply/ACAD/online", "0\n");
	fake_write(&e.f, "sys/class/power_supply/BAT1/status", "Discharging\n");
	struct kgd_gpu_metrics_v3_0 t;
	memset(&t, 0xff, sizeof t);
	t.common_header.structure_size = (uint16_t)sizeof t;
	t.common_header.format_revision = 3;
	t.common_header.content_revision = 0;
	fake_write_bytes(&e.f, "sys/class/drm/card2/device/gpu_metrics", &t, sizeof t);
	snprintf(p, sizeof p, "%s/sys/class/drm/card2/device/hwmon/hwmon4/temp1_label", e.f.root);
	assert_int_equal(unlink(p), 0);
	unsetenv("XDG_CURRENT_DESKTOP");
	snprintf(p, sizeof p, "%s/.config/systemd/user/rxdeck-overnight.timer", e.home.root);
	assert_int_equal(unlink(p), 0);
	json_t *j = check_json(&e, RXDECK_EXIT_FAILURE);
	const char *detail = NULL;
	assert_string_equal(status_of(j, "uinput", &detail), "fail");
	assert_non_null(strstr(detail, "dev/uinput for writing"));
	assert_string_equal(status_of(j, "systemd", &detail), "warn");
	assert_non_null(strstr(detail, "systemd 255.4-1-steamos: logind before 257"));
	assert_string_equal(status_of(j, "power", &detail), "warn");
	assert_string_equal(detail, "on battery (battery 83 %, discharging)");
	assert_string_equal(status_of(j, "gpu_metrics", &detail), "warn");
	assert_non_null(strstr(detail, "not read: v3.0"));
	assert_string_equal(status_of(j, "hwmon", &detail), "warn");
	assert_non_null(strstr(detail, "missing: a temperature labelled edge"));
	assert_string_equal(status_of(j, "mode", NULL), "warn");
	assert_string_equal(status_of(j, "units", &detail), "warn");
	assert_non_null(strstr(detail, "rxdeck-overnight.timer"));
	assert_int_equal(json_integer_value(json_object_get(j, "fail")), 1);
	/* a fix for each line that is not ok */
	size_t i;
	json_t *c;
	json_array_foreach(json_object_get(j, "checks"), i, c) {
		bool ok = strcmp(json_string_value(json_object_get(c, "status")), "ok") == 0;
		assert_true(ok == json_is_null(json_object_get(c, "fix")));
	}
	json_decref(j);
	stop(&e);
}

static void test_deck_check__refused_inhibitor_and_no_systemd(void **state)
{
	struct env e;
	start(&e, "--refuse-inhibit");
	json_t *j = check_json(&e, RXDECK_EXIT_FAILURE);
	const char *detail = NULL;
	assert_string_equal(status_of(j, "inhibitor", &detail), "fail");
	assert_non_null(strstr(detail, "logind refused the sleep inhibitor"));
	assert_string_equal(status_of(j, "systemd", &detail), "warn");
	assert_non_null(strstr(detail, "version not known"));
	json_decref(j);
	stop(&e);
}

/* The route line against each steamos-manager era's double, and Valve's
 * priv-write helper's: found, and a write that changes nothing went
 * through it. */
static void test_deck_check__route_of_every_era(void **state)
{
	static const struct {
		const char *era, *kind, *logged;
	} eras[] = {
		{ "--era split", "split (session bus, ", "set TdpLimit 15" },
		{ "--era manager", "manager (system bus, ", "set TdpLimit 15" },
		{ "--era manager-GPU", "manager (system bus, ", "set TDPLimit 15" },
		{ "--era methods", "methods (system bus, ", "call SetTDPLimit 15" },
		{ "--era none", "priv-write (", NULL },
		/* the unit that fails to start: the helper next */
		{ "--era unit-fails", "priv-write (", NULL },
	};
	for (size_t i = 0; i < sizeof eras / sizeof eras[0]; i++) {
		struct env e;
		start(&e, eras[i].era);
		if (!eras[i].logged) {
			setenv(DECK_PRIV_WRITE_ENV,
			       RXDECK_SOURCE_ROOT "/tests/doubles/priv-write-double.sh", 1);
			setenv("RXDECK_DECK_ROOT", e.f.root, 1);
			char log[PATH_MAX + 32];
			snprintf(log, sizeof log, "%s/priv-write.log", e.home.root);
			setenv("PRIV_WRITE_DOUBLE_LOG", log, 1);
		}
		json_t *j = check_json(&e, RXDECK_EXIT_OK);
		const char *detail = NULL;
		const char *st = status_of(j, "route", &detail);
		if (strcmp(st, "ok") != 0 || strncmp(detail, eras[i].kind, strlen(eras[i].kind)) != 0)
			fail_msg("%s: route %s: %s", eras[i].era, st, detail ? detail : "");
		assert_non_null(strstr(detail, "no-op write: "));
		if (eras[i].logged && !test_bus_logged(&e.bus, eras[i].logged))
			fail_msg("%s: the double did not log '%s': %s", eras[i].era, eras[i].logged,
			         test_bus_log(&e.bus));
		json_decref(j);
		stop(&e);
	}
}

/* deck info says the systemd version and whether the inhibitor holds
 * against the same user's suspend. */
static void test_deck_info__systemd_and_same_user_block(void **state)
{
	static const struct {
		const char *extra, *line;
		int honoured; /* 1, 0, -1 null */
	} cases[] = {
		{ "--systemd-version=255.4-1-steamos",
		  "systemd        255.4-1-steamos (before 257: a block inhibitor does not hold against "
		  "the same user's suspend)\n", 0 },
		{ "--systemd-version=257.3", "systemd        257.3 (a block inhibitor holds against "
		                             "the same user's suspend)\n", 1 },
		{ "", "systemd        unknown (systemd did not say its version", -1 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct env e;
		start(&e, cases[i].extra);
		char out[16384], err[1024];
		assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "deck", "info",
		                              "--root", e.f.root, NULL), RXDECK_EXIT_OK);
		if (!strstr(out, cases[i].line))
			fail_msg("no '%s' in:\n%s", cases[i].line, out);
		assert_int_equal(test_cmd_run(out, sizeof out, err, sizeof err, "deck", "info",
		                              "--json", "--root", e.f.root, NULL), RXDECK_EXIT_OK);
		json_t *j = json_loads(out, 0, NULL);
		assert_non_null(j);
		json_t *h = json_object_get(json_object_get(j, "systemd"), "same_user_block_honoured");
		if (cases[i].honoured < 0)
			assert_true(json_is_null(h));
		else
			assert_int_equal(json_is_true(h), cases[i].honoured);
		json_decref(j);
		stop(&e);
	}
}

int main(void)
{
	test_bus_skip_unless_it_can_run();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deck_check__a_ready_deck_passes),
		cmocka_unit_test(test_deck_check__what_stops_or_weakens_a_night),
		cmocka_unit_test(test_deck_check__refused_inhibitor_and_no_systemd),
		cmocka_unit_test(test_deck_check__route_of_every_era),
		cmocka_unit_test(test_deck_info__systemd_and_same_user_block),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
