/* deck's routes to the GPU clock and TDP, against doubles of logind and of
 * each steamos-manager era on private system and session dbus-daemons, of
 * Valve's priv-write helper, and against nothing: the route found by
 * introspection, its bus, interface, Version and ranges with their source;
 * the device state saved, changed, refused outside the range and put back
 * through the route that set it; the no-op write; every route named when
 * none works.  Also the sleep inhibitor held and released (also when its
 * holder is killed), and the state file a killed harness leaves. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sched.h>
#include <sys/mount.h>

#include "test-deck-bus-util.h"
#include "test-deck-util.h"

struct ctx {
	struct fake f;
	struct test_bus bus;
};

static int setup(void **state, const char *era)
{
	struct ctx *c = calloc(1, sizeof *c);
	fake_init(&c->f);
	fake_deck(&c->f);
	char extra[PATH_MAX * 2];
	snprintf(extra, sizeof extra, "--era %s --root %s --card sys/class/drm/card2/device "
	         "--hwmon sys/class/drm/card2/device/hwmon/hwmon4", era ? era : "split", c->f.root);
	unsetenv(DECK_PRIV_WRITE_ENV);
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
	return setup(state, "none");
}

static int setup_refusing(void **state)
{
	return setup(state, "split --refuse-inhibit");
}

static int setup_manager(void **state)
{
	return setup(state, "manager");
}

static int setup_manager_gpu(void **state)
{
	return setup(state, "manager-GPU");
}

static int setup_methods(void **state)
{
	return setup(state, "methods");
}

static int setup_unit_fails(void **state)
{
	return setup(state, "unit-fails");
}

/* No steamos-manager; rxdeck's helper is the priv-write double writing
 * into the fake tree and logging there. */
static int setup_priv_write(void **state)
{
	int r = setup(state, "none");
	if (r)
		return r;
	struct ctx *c = *state;
	setenv(DECK_PRIV_WRITE_ENV, RXDECK_SOURCE_ROOT "/tests/doubles/priv-write-double.sh", 1);
	setenv("RXDECK_DECK_ROOT", c->f.root, 1);
	char log[PATH_MAX + 32];
	snprintf(log, sizeof log, "%s/priv-write.log", c->f.root);
	setenv("PRIV_WRITE_DOUBLE_LOG", log, 1);
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;
	unsetenv(DECK_PRIV_WRITE_ENV);
	unsetenv("RXDECK_DECK_ROOT");
	unsetenv("PRIV_WRITE_DOUBLE_LOG");
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

#define CARD "sys/class/drm/card2/device/"
#define HWMON CARD "hwmon/hwmon4/"

/* A sysfs word without the newline that `echo` adds and printf does not. */
static const char *word(const char *text)
{
	static char buf[64];
	snprintf(buf, sizeof buf, "%.*s", (int)strcspn(text, "\n"), text);
	return buf;
}

static struct deck_control *open_verified(struct deck *d)
{
	struct deck_control *ctl = NULL;
	assert_int_equal(deck_control_open(d, &(struct deck_control_options){ .verify = true }, &ctl),
	                 0);
	return ctl;
}

/* What every era shares: saved as found, 1100 MHz and 12 W applied (and
 * seen in sysfs, where steamos-manager writes), 16 W and 2000 MHz refused
 * before anything is written, naming the range and its source, and put
 * back through the same route. */
static void apply_and_restore(struct ctx *c, struct deck_control *ctl, const char *tdp_source)
{
	struct deck_control_state s;
	assert_int_equal(deck_control_save(ctl, &s), 0);
	assert_string_equal(s.level, "auto");
	assert_true(s.tdp_w == 15);
	assert_string_equal(s.via, deck_control_via(ctl));
	char want[256];
	snprintf(want, sizeof want, "tdp_w 16 W is outside 3 to 15 W, %s", tdp_source);
	assert_int_equal(deck_control_apply(ctl, 0, 16), -ERANGE);
	assert_string_equal(deck_control_errmsg(ctl), want);
	assert_int_equal(deck_control_check(ctl, 2000, 0), -ERANGE);
	assert_non_null(strstr(deck_control_errmsg(ctl), "gpu_clock 2000 MHz is outside 200 to 1600 MHz"));
	assert_int_equal(atoi(fake_read(&c->f, HWMON "power1_cap")), 15000000);
	assert_int_equal(deck_control_apply(ctl, 1100, 12), 0);
	assert_int_equal(atoi(fake_read(&c->f, HWMON "power1_cap")), 12000000);
	assert_int_equal(atoi(fake_read(&c->f, HWMON "power2_cap")), 12000000);
	assert_string_equal(word(fake_read(&c->f, CARD "power_dpm_force_performance_level")), "manual");
	assert_non_null(strstr(fake_read(&c->f, CARD "pp_od_clk_voltage"), "s 0 1100\ns 1 1100\nc\n"));
	assert_int_equal(deck_control_restore(ctl, &s), 0);
	assert_int_equal(atoi(fake_read(&c->f, HWMON "power1_cap")), 15000000);
	assert_string_equal(word(fake_read(&c->f, CARD "power_dpm_force_performance_level")), "auto");
	/* a state saved through another route is not put back through this one */
	struct deck_control_state other = s;
	snprintf(other.via, sizeof other.via, "%s",
	         strcmp(s.via, "sysfs") == 0 ? "split" : "sysfs");
	assert_int_equal(deck_control_restore(ctl, &other), -ENOENT);
	assert_non_null(strstr(deck_control_errmsg(ctl), "not available now"));
}

static void test_route__split_interfaces_on_the_session_bus(void **state)
{
	struct ctx *c = *state;
	struct deck *d = fake_open(&c->f);
	struct deck_control *ctl = open_verified(d);
	const struct deck_route *r = deck_control_route(ctl);
	assert_int_equal(r->kind, DECK_ROUTE_SPLIT);
	assert_string_equal(deck_control_via(ctl), "split");
	assert_string_equal(r->bus, "session");
	assert_string_equal(r->interface, "com.steampowered.SteamOSManager1.GpuPerformanceLevel1 and "
	                                  "com.steampowered.SteamOSManager1.TdpLimit1");
	assert_string_equal(r->version, "9");
	assert_true(r->tdp_min_w == 3 && r->tdp_max_w == 15);
	assert_true(r->clock_min_mhz == 200 && r->clock_max_mhz == 1600);
	assert_string_equal(r->tdp_range_source, "steamos-manager's TdpLimitMin/Max");
	assert_string_equal(r->clock_range_source, "steamos-manager's ManualGpuClockMin/Max");
	/* the no-op write wrote what it read */
	assert_true(test_bus_logged(&c->bus, "set TdpLimit 15"));
	assert_true(test_bus_logged(&c->bus, "set GpuPerformanceLevel auto"));
	char what[256];
	assert_int_equal(deck_control_noop_write(ctl, what, sizeof what), 0);
	assert_string_equal(what, "TDP 15 W, GPU level 'auto' written back through steamos-manager "
	                          "on the session bus");
	apply_and_restore(c, ctl, "steamos-manager's TdpLimitMin/Max");
	assert_true(test_bus_logged(&c->bus, "set GpuPerformanceLevel manual"));
	assert_true(test_bus_logged(&c->bus, "set ManualGpuClock 1100"));
	assert_true(test_bus_logged(&c->bus, "set TdpLimit 12"));
	deck_control_destroy(ctl);
	deck_destroy(d);
}

static void test_route__manager_interface_on_the_system_bus(void **state)
{
	struct ctx *c = *state;
	struct deck *d = fake_open(&c->f);
	struct deck_control *ctl = open_verified(d);
	const struct deck_route *r = deck_control_route(ctl);
	assert_int_equal(r->kind, DECK_ROUTE_MANAGER);
	assert_string_equal(r->bus, "system");
	assert_string_equal(r->interface, "com.steampowered.SteamOSManager1.Manager");
	assert_string_equal(r->spelling, "Gpu");
	assert_string_equal(r->version, "8");
	/* the session bus was asked first, and said why it was passed over */
	assert_string_equal(r->tries[0].route, "session bus steamos-manager");
	assert_string_equal(r->tries[0].why, "com.steampowered.SteamOSManager1 is not on it");
	apply_and_restore(c, ctl, "steamos-manager's TdpLimitMin/Max");
	/* u-coded: 3 manual, 0 auto */
	assert_true(test_bus_logged(&c->bus, "set GpuPerformanceLevel 3"));
	assert_true(test_bus_logged(&c->bus, "set ManualGpuClock 1100"));
	assert_true(test_bus_logged(&c->bus, "set TdpLimit 12"));
	assert_true(test_bus_logged(&c->bus, "set GpuPerformanceLevel 0"));
	deck_control_destroy(ctl);
	deck_destroy(d);
}

static void test_route__manager_interface_in_the_earliest_spelling(void **state)
{
	struct ctx *c = *state;
	struct deck *d = fake_open(&c->f);
	struct deck_control *ctl = open_verified(d);
	const struct deck_route *r = deck_control_route(ctl);
	assert_int_equal(r->kind, DECK_ROUTE_MANAGER);
	assert_string_equal(r->bus, "system");
	assert_string_equal(r->spelling, "GPU");
	assert_string_equal(r->version, "7");
	assert_string_equal(r->tdp_range_source, "steamos-manager's TDPLimitMin/Max");
	apply_and_restore(c, ctl, "steamos-manager's TDPLimitMin/Max");
	assert_true(test_bus_logged(&c->bus, "set GPUPerformanceLevel 3"));
	assert_true(test_bus_logged(&c->bus, "set ManualGPUClock 1100"));
	assert_true(test_bus_logged(&c->bus, "set TDPLimit 12"));
	assert_true(test_bus_logged(&c->bus, "set TDPLimit 15"));
	deck_control_destroy(ctl);
	deck_destroy(d);
}

static void test_route__methods_of_2023(void **state)
{
	struct ctx *c = *state;
	struct deck *d = fake_open(&c->f);
	struct deck_control *ctl = open_verified(d);
	const struct deck_route *r = deck_control_route(ctl);
	assert_int_equal(r->kind, DECK_ROUTE_METHODS);
	assert_string_equal(r->bus, "system");
	assert_string_equal(r->version, "1");
	assert_string_equal(r->tdp_range_source, "the 2023 steamos-manager's SetTDPLimit limit");
	apply_and_restore(c, ctl, "the 2023 steamos-manager's SetTDPLimit limit");
	assert_true(test_bus_logged(&c->bus, "call SetGpuPerformanceLevel 3"));
	assert_true(test_bus_logged(&c->bus, "call SetGpuClocks 1100"));
	assert_true(test_bus_logged(&c->bus, "call SetTDPLimit 12"));
	assert_true(test_bus_logged(&c->bus, "call SetTDPLimit 15"));
	assert_true(test_bus_logged(&c->bus, "call SetGpuPerformanceLevel 0"));
	deck_control_destroy(ctl);
	deck_destroy(d);
}

static void test_route__a_unit_that_fails_to_start_is_passed_over(void **state)
{
	struct ctx *c = *state;
	struct deck *d = fake_open(&c->f);
	struct deck_control *ctl = open_verified(d);
	const struct deck_route *r = deck_control_route(ctl);
	/* no helper on this machine unless it is SteamOS: sysfs, as root */
	assert_string_equal(r->tries[0].route, "session bus steamos-manager");
	assert_non_null(strstr(r->tries[0].why, "did not answer (org.freedesktop.DBus.Error.Spawn."));
	assert_string_equal(r->tries[1].why, "com.steampowered.SteamOSManager1 is not on it");
	assert_true(r->kind == DECK_ROUTE_SYSFS || r->kind == DECK_ROUTE_PRIV_WRITE ||
	            r->kind == DECK_ROUTE_NONE);
	deck_control_destroy(ctl);
	deck_destroy(d);
}

static void test_route__priv_write_helper(void **state)
{
	struct ctx *c = *state;
	struct deck *d = fake_open(&c->f);
	struct deck_control *ctl = open_verified(d);
	const struct deck_route *r = deck_control_route(ctl);
	assert_int_equal(r->kind, DECK_ROUTE_PRIV_WRITE);
	assert_string_equal(r->bus, "");
	assert_string_equal(r->version, "");
	assert_non_null(strstr(r->interface, "priv-write-double.sh PATH VALUE"));
	assert_string_equal(r->tdp_range_source,
	                    "steamos-manager's device table for Jupiter (the kernel allows 0 to 29 W)");
	assert_string_equal(r->tries[0].why, "com.steampowered.SteamOSManager1 is not on it");
	assert_string_equal(r->tries[1].why, "com.steampowered.SteamOSManager1 is not on it");
	apply_and_restore(c, ctl, "steamos-manager's device table for Jupiter (the kernel allows 0 "
	                          "to 29 W)");
	char log[PATH_MAX + 32];
	snprintf(log, sizeof log, "%s/priv-write.log", c->f.root);
	const char *text = fake_read(&c->f, "priv-write.log");
	(void)log;
	/* the hwmon class path, never the card's device path */
	assert_non_null(strstr(text, "commit: 12000000 -> /sys/class/hwmon/hwmon4/power1_cap\n"));
	assert_non_null(strstr(text, "commit: 12000000 -> /sys/class/hwmon/hwmon4/power2_cap\n"));
	assert_non_null(strstr(text, "commit: manual -> /sys/class/drm/card2/device/"
	                             "power_dpm_force_performance_level\n"));
	assert_non_null(strstr(text, "commit: s 0 1100 -> /sys/class/drm/card2/device/pp_od_clk_voltage\n"));
	assert_non_null(strstr(text, "commit: c -> /sys/class/drm/card2/device/pp_od_clk_voltage\n"));
	assert_non_null(strstr(text, "commit: 15000000 -> /sys/class/hwmon/hwmon4/power1_cap\n"));
	assert_null(strstr(text, "decline"));
	deck_control_destroy(ctl);
	deck_destroy(d);
}

static void test_route__priv_write_refusal_is_named(void **state)
{
	struct ctx *c = *state;
	/* a helper that declines everything, as Valve's does for a path not on its list */
	char path[PATH_MAX + 32];
	snprintf(path, sizeof path, "%s/declines.sh", c->f.root);
	FILE *f = fopen(path, "w");
	fprintf(f, "#!/bin/sh\necho \"decline: $2 -> $1\"\nexit 1\n");
	fclose(f);
	chmod(path, 0755);
	setenv(DECK_PRIV_WRITE_ENV, path, 1);
	struct deck *d = fake_open(&c->f);
	struct deck_control *ctl = NULL;
	assert_int_equal(deck_control_open(d, &(struct deck_control_options){ .only =
	                                        DECK_ROUTE_PRIV_WRITE }, &ctl), 0);
	assert_int_equal(deck_control_route(ctl)->kind, DECK_ROUTE_PRIV_WRITE);
	assert_int_equal(deck_control_apply(ctl, 0, 12), -EACCES);
	assert_non_null(strstr(deck_control_errmsg(ctl), "refused '12000000' for "
	                       "'/sys/class/hwmon/hwmon4/power1_cap' (exit 1): decline: 12000000 -> "
	                       "/sys/class/hwmon/hwmon4/power1_cap"));
	deck_control_destroy(ctl);
	/* verified, it is passed over for the next route, saying why */
	ctl = open_verified(d);
	const struct deck_route *r = deck_control_route(ctl);
	assert_string_equal(r->tries[2].route, "pkexec steamos-priv-write");
	assert_non_null(strstr(r->tries[2].why, "the no-op write failed: "));
	assert_int_equal(r->kind, DECK_ROUTE_SYSFS);
	deck_control_destroy(ctl);
	deck_destroy(d);
}

/* Makes the fake tree's sys/ read-only for this process (a child): a
 * read-only bind mount in a mount namespace of its own as root, file
 * modes otherwise.  False when neither can hold. */
static bool readonly_sysfs(struct ctx *c)
{
	char sys[PATH_MAX + 8];
	snprintf(sys, sizeof sys, "%s/sys", c->f.root);
	if (geteuid() != 0) {
		char f[PATH_MAX + 64];
		snprintf(f, sizeof f, "%s/" CARD "power_dpm_force_performance_level", c->f.root);
		bool ok = chmod(f, 0444) == 0;
		snprintf(f, sizeof f, "%s/" HWMON "power1_cap", c->f.root);
		return ok && chmod(f, 0444) == 0;
	}
	if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
	    mount(sys, sys, NULL, MS_BIND | MS_REC, NULL) != 0 ||
	    mount(NULL, sys, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_REC, NULL) != 0)
		return false;
	return true;
}

static void test_route__none_names_every_route(void **state)
{
	struct ctx *c = *state;
	setenv(DECK_PRIV_WRITE_ENV, "/nonexistent/steamos-priv-write", 1);
	fflush(NULL);
	int p[2];
	assert_int_equal(pipe(p), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		if (!readonly_sysfs(c))
			_exit(77);
		struct deck *d = fake_open(&c->f);
		struct deck_control *ctl = open_verified(d);
		int kind = deck_control_route(ctl)->kind;
		int err = deck_control_apply(ctl, 1100, 12);
		dprintf(p[1], "%d %d %s", kind, err, deck_control_errmsg(ctl));
		_exit(0);
	}
	close(p[1]);
	char out[2048] = "";
	ssize_t n = read(p[0], out, sizeof out - 1);
	close(p[0]);
	int status;
	waitpid(pid, &status, 0);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
		skip();
	out[n > 0 ? n : 0] = '\0';
	int kind, err;
	assert_int_equal(sscanf(out, "%d %d", &kind, &err), 2);
	assert_int_equal(kind, DECK_ROUTE_NONE);
	assert_int_equal(err, -ENODEV);
	assert_non_null(strstr(out, "no route to the GPU clock and TDP: "
	                            "session bus steamos-manager: com.steampowered.SteamOSManager1 is "
	                            "not on it; system bus steamos-manager: "
	                            "com.steampowered.SteamOSManager1 is not on it; pkexec "
	                            "steamos-priv-write: RXDECK_PRIV_WRITE "
	                            "'/nonexistent/steamos-priv-write' is not executable: No such file "
	                            "or directory; sysfs: '"));
	assert_true(strstr(out, "power_dpm_force_performance_level' is not writable: Read-only file "
	                        "system (root's on SteamOS)") ||
	            strstr(out, "power_dpm_force_performance_level' is not writable: Permission "
	                        "denied (root's on SteamOS)"));
}

static void test_control__without_a_bus_uses_sysfs(void **state)
{
	struct ctx *c = *state;
	struct deck *d = fake_open(&c->f);
	struct deck_control *ctl;
	assert_int_equal(deck_control_create(d, false, &ctl), 0);
	assert_string_equal(deck_control_via(ctl), "sysfs");
	const struct deck_route *r = deck_control_route(ctl);
	/* not asked: the buses; the helper is not there */
	assert_string_equal(r->tries[0].route, "pkexec steamos-priv-write");
	assert_string_equal(r->tdp_range_source,
	                    "steamos-manager's device table for Jupiter (the kernel allows 0 to 29 W)");
	struct deck_control_state s;
	assert_int_equal(deck_control_save(ctl, &s), 0);
	assert_int_equal(deck_control_apply(ctl, 0, 12), 0);
	assert_string_equal(fake_read(&c->f, HWMON "power1_cap"), "12000000\n");
	assert_int_equal(deck_control_apply(ctl, 800, 0), 0);
	assert_string_equal(fake_read(&c->f, CARD "power_dpm_force_performance_level"), "manual\n");
	/* 16-29 W: the kernel would take it, steamos-manager's table does not */
	assert_int_equal(deck_control_apply(ctl, 0, 20), -ERANGE);
	assert_int_equal(deck_control_restore(ctl, &s), 0);
	assert_string_equal(fake_read(&c->f, HWMON "power1_cap"), "15000000\n");
	assert_string_equal(fake_read(&c->f, CARD "power_dpm_force_performance_level"), "auto\n");
	/* a state saved through steamos-manager cannot be put back without it */
	struct deck_control_state m = s;
	snprintf(m.via, sizeof m.via, "steamos-manager");
	assert_int_equal(deck_control_restore(ctl, &m), -ENOENT);
	assert_non_null(strstr(deck_control_errmsg(ctl), "changed through steamos-manager, which is "
	                                                 "not available now (found: sysfs)"));
	deck_control_destroy(ctl);
	deck_destroy(d);
}

static void test_route__kind_names_round_trip(void **state)
{
	(void)state;
	for (int k = DECK_ROUTE_NONE; k <= DECK_ROUTE_SYSFS; k++) {
		enum deck_route_kind back;
		assert_int_equal(deck_route_kind_from_name(deck_route_kind_name(k), &back), 0);
		assert_int_equal(back, k);
	}
	enum deck_route_kind old;
	assert_int_equal(deck_route_kind_from_name("steamos-manager", &old), 0);
	assert_int_equal(old, DECK_ROUTE_SPLIT);
	assert_int_equal(deck_route_kind_from_name("dbus", &old), -EINVAL);
	assert_null(deck_route_kind_name(99));
}

static void test_control__state_file_round_trip_and_errors(void **state)
{
	struct ctx *c = *state;
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/device-state", c->f.root);
	struct deck_control_state s = { .via = "manager", .level = "manual",
	                                .clock_mhz = 1300, .tdp_w = 11.5 }, r;
	char msg[256] = "";
	assert_int_equal(deck_control_state_read(path, &r, msg, sizeof msg), -ENOENT);
	assert_int_equal(deck_control_state_write(path, &s), 0);
	assert_int_equal(deck_control_state_read(path, &r, msg, sizeof msg), 0);
	assert_string_equal(r.via, "manager");
	assert_string_equal(r.level, "manual");
	assert_true(r.clock_mhz == 1300 && r.tdp_w == 11.5);
	fake_write(&c->f, "device-state", "via sysfs\nlevel auto\nclock_mhz 0\ntdp_w lots\n");
	assert_int_equal(deck_control_state_read(path, &r, msg, sizeof msg), -EINVAL);
	assert_non_null(strstr(msg, "device-state:4:7: unexpected 'tdp_w lots'"));
	fake_write(&c->f, "device-state", "via sysfs\nlevel auto\n");
	assert_int_equal(deck_control_state_read(path, &r, msg, sizeof msg), -EINVAL);
	assert_non_null(strstr(msg, "device-state:3:1: incomplete"));
	assert_string_equal(r.via, "manager"); /* untouched */
	/* an older file's "steamos-manager" is the split route */
	fake_write(&c->f, "device-state", "via steamos-manager\nlevel auto\nclock_mhz 0\ntdp_w 15\n");
	assert_int_equal(deck_control_state_read(path, &r, msg, sizeof msg), 0);
	assert_string_equal(r.via, "split");
}

int main(void)
{
	test_bus_skip_unless_it_can_run();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_inhibit__held_until_released, setup_full, teardown),
		cmocka_unit_test_setup_teardown(test_inhibit__released_when_the_holder_is_killed,
		                                setup_full, teardown),
		cmocka_unit_test_setup_teardown(test_inhibit__refusal_says_so, setup_refusing, teardown),
		cmocka_unit_test_setup_teardown(test_route__split_interfaces_on_the_session_bus,
		                                setup_full, teardown),
		cmocka_unit_test_setup_teardown(test_route__manager_interface_on_the_system_bus,
		                                setup_manager, teardown),
		cmocka_unit_test_setup_teardown(test_route__manager_interface_in_the_earliest_spelling,
		                                setup_manager_gpu, teardown),
		cmocka_unit_test_setup_teardown(test_route__methods_of_2023, setup_methods, teardown),
		cmocka_unit_test_setup_teardown(test_route__a_unit_that_fails_to_start_is_passed_over,
		                                setup_unit_fails, teardown),
		cmocka_unit_test_setup_teardown(test_route__priv_write_helper, setup_priv_write,
		                                teardown),
		cmocka_unit_test_setup_teardown(test_route__priv_write_refusal_is_named,
		                                setup_priv_write, teardown),
		cmocka_unit_test_setup_teardown(test_route__none_names_every_route, setup_no_manager,
		                                teardown),
		cmocka_unit_test_setup_teardown(test_control__without_a_bus_uses_sysfs,
		                                setup_no_manager, teardown),
		cmocka_unit_test(test_route__kind_names_round_trip),
		cmocka_unit_test_setup_teardown(test_control__state_file_round_trip_and_errors,
		                                setup_full, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
