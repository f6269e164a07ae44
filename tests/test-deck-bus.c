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

struct route_era;

struct ctx {
	struct fake f;
	struct test_bus bus;
	const struct route_era *era; /* the route_eras[] case, or NULL */
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

static int setup_unit_fails(void **state)
{
	return setup(state, "unit-fails");
}

static int setup_split_bare(void **state)
{
	return setup(state, "split-bare");
}

/* rxdeck's helper is the priv-write double, writing into the fake tree
 * and logging there. */
static void use_priv_write_double(struct ctx *c)
{
	setenv(DECK_PRIV_WRITE_ENV, RXDECK_SOURCE_ROOT "/tests/doubles/priv-write-double.sh", 1);
	setenv("RXDECK_DECK_ROOT", c->f.root, 1);
	char log[PATH_MAX + 32];
	snprintf(log, sizeof log, "%s/priv-write.log", c->f.root);
	setenv("PRIV_WRITE_DOUBLE_LOG", log, 1);
}

/* No steamos-manager; the priv-write double. */
static int setup_priv_write(void **state)
{
	int r = setup(state, "none");
	if (r)
		return r;
	use_priv_write_double(*state);
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

/* One route that sets: what it is found as, and what its double logs.
 * Every era is tested for the same things: the route's kind, bus,
 * interface, spelling, Version, ranges and their source, the routes asked
 * before it and why they were passed over, the no-op write (made when
 * verified, and again), and apply_and_restore(). */
struct route_era {
	const char *name;       /* the cmocka case */
	const char *era;        /* the double's --era; "none" with the priv-write double */
	bool helper;            /* the route is the priv-write double's */
	enum deck_route_kind kind;
	const char *bus, *interface, *spelling, *version;
	const char *tdp_source, *clock_source;
	const char *passed_over[2]; /* the whys of the routes asked before, in order */
	const char *noop;       /* deck_control_noop_write()'s words */
	const char *logged[8];  /* lines the route's log holds afterwards */
	const char *never;      /* a word its log never holds, or NULL */
};

#define NOT_ON_IT "com.steampowered.SteamOSManager1 is not on it"
#define TABLE_JUPITER "steamos-manager's device table for Jupiter (the kernel allows 0 to 29 W)"

static const struct route_era route_eras[] = {
	{ "test_route__split_interfaces_on_the_session_bus", "split", false, DECK_ROUTE_SPLIT,
	  "session", "com.steampowered.SteamOSManager1.GpuPerformanceLevel1 and "
	             "com.steampowered.SteamOSManager1.TdpLimit1", "", "9",
	  "steamos-manager's TdpLimitMin/Max", "steamos-manager's ManualGpuClockMin/Max",
	  { NULL }, "TDP 15 W, GPU level 'auto' written back through steamos-manager on the "
	            "session bus",
	  /* the no-op write wrote what it read, then the arm's settings */
	  { "set TdpLimit 15", "set GpuPerformanceLevel auto", "set GpuPerformanceLevel manual",
	    "set ManualGpuClock 1100", "set TdpLimit 12" }, NULL },
	{ "test_route__manager_interface_on_the_system_bus", "manager", false, DECK_ROUTE_MANAGER,
	  "system", "com.steampowered.SteamOSManager1.Manager", "Gpu", "8",
	  "steamos-manager's TdpLimitMin/Max", "steamos-manager's ManualGpuClockMin/Max",
	  /* the session bus was asked first, and said why it was passed over */
	  { NOT_ON_IT }, "TDP 15 W, GPU level 'auto' written back through steamos-manager on the "
	                 "system bus",
	  /* u-coded: 3 manual, 0 auto */
	  { "set GpuPerformanceLevel 3", "set ManualGpuClock 1100", "set TdpLimit 12",
	    "set GpuPerformanceLevel 0" }, NULL },
	{ "test_route__manager_interface_in_the_earliest_spelling", "manager-GPU", false,
	  DECK_ROUTE_MANAGER, "system", "com.steampowered.SteamOSManager1.Manager", "GPU", "7",
	  "steamos-manager's TDPLimitMin/Max", "steamos-manager's ManualGPUClockMin/Max",
	  { NOT_ON_IT }, "TDP 15 W, GPU level 'auto' written back through steamos-manager on the "
	                 "system bus",
	  { "set GPUPerformanceLevel 3", "set ManualGPUClock 1100", "set TDPLimit 12",
	    "set TDPLimit 15" }, NULL },
	{ "test_route__methods_of_2023", "methods", false, DECK_ROUTE_METHODS, "system",
	  "com.steampowered.SteamOSManager1 (SetGpuPerformanceLevel, SetGpuClocks, SetTDPLimit)",
	  "", "1", "the 2023 steamos-manager's SetTDPLimit limit",
	  "the 2023 steamos-manager's SetGpuClocks limit",
	  { NOT_ON_IT }, "TDP 15 W, GPU level 'auto' written back through steamos-manager on the "
	                 "system bus",
	  { "call SetGpuPerformanceLevel 3", "call SetGpuClocks 1100", "call SetTDPLimit 12",
	    "call SetTDPLimit 15", "call SetGpuPerformanceLevel 0" }, NULL },
	{ "test_route__priv_write_helper", "none", true, DECK_ROUTE_PRIV_WRITE, "",
	  "priv-write-double.sh PATH VALUE", "", "", TABLE_JUPITER,
	  "steamos-manager's device table for Jupiter",
	  { NOT_ON_IT, NOT_ON_IT }, "TDP 15 W, GPU level 'auto' written back through "
	                            "steamos-priv-write",
	  /* the hwmon class path, never the card's device path */
	  { "commit: 12000000 -> /sys/class/hwmon/hwmon4/power1_cap\n",
	    "commit: 12000000 -> /sys/class/hwmon/hwmon4/power2_cap\n",
	    "commit: manual -> /sys/class/drm/card2/device/power_dpm_force_performance_level\n",
	    "commit: s 0 1100 -> /sys/class/drm/card2/device/pp_od_clk_voltage\n",
	    "commit: c -> /sys/class/drm/card2/device/pp_od_clk_voltage\n",
	    "commit: 15000000 -> /sys/class/hwmon/hwmon4/power1_cap\n" }, "decline" },
};

/* Each route_eras[] case's double: the era's, with the priv-write double
 * writing into the fake tree and logging there when the route is its. */
static int setup_era(void **state)
{
	const struct route_era *e = *state;
	struct ctx *c;
	if (setup(state, e->era))
		return -1;
	c = *state;
	c->era = e;
	if (e->helper)
		use_priv_write_double(c);
	return 0;
}

static void test_route__of_an_era(void **state)
{
	struct ctx *c = *state;
	const struct route_era *e = c->era;
	struct deck *d = fake_open(&c->f);
	struct deck_control *ctl = open_verified(d);
	const struct deck_route *r = deck_control_route(ctl);
	assert_int_equal(r->kind, e->kind);
	assert_string_equal(deck_control_via(ctl), deck_route_kind_name(e->kind));
	assert_string_equal(r->bus, e->bus);
	if (e->helper)
		assert_non_null(strstr(r->interface, e->interface));
	else
		assert_string_equal(r->interface, e->interface);
	assert_string_equal(r->spelling, e->spelling);
	assert_string_equal(r->version, e->version);
	assert_true(r->tdp_min_w == 3 && r->tdp_max_w == 15);
	assert_true(r->clock_min_mhz == 200 && r->clock_max_mhz == 1600);
	assert_string_equal(r->tdp_range_source, e->tdp_source);
	assert_string_equal(r->clock_range_source, e->clock_source);
	size_t before = 0;
	while (before < 2 && e->passed_over[before])
		before++;
	assert_int_equal(r->n_tries, before + 1);
	if (before)
		assert_string_equal(r->tries[0].route, "session bus steamos-manager");
	for (size_t i = 0; i < before; i++)
		assert_string_equal(r->tries[i].why, e->passed_over[i]);
	/* the route taken, named as found, with no why */
	char taken[sizeof r->tries[0].route];
	if (e->helper)
		snprintf(taken, sizeof taken, "pkexec steamos-priv-write");
	else
		snprintf(taken, sizeof taken, "%s bus %.170s", e->bus, e->interface);
	assert_string_equal(r->tries[before].route, taken);
	assert_string_equal(r->tries[before].why, "");
	char what[256];
	assert_int_equal(deck_control_noop_write(ctl, what, sizeof what), 0);
	assert_string_equal(what, e->noop);
	apply_and_restore(c, ctl, e->tdp_source);
	const char *helper_log = e->helper ? fake_read(&c->f, "priv-write.log") : NULL;
	for (size_t i = 0; i < sizeof e->logged / sizeof e->logged[0] && e->logged[i]; i++)
		if (e->helper ? !strstr(helper_log, e->logged[i]) : !test_bus_logged(&c->bus,
		                                                                      e->logged[i]))
			fail_msg("%s: not logged: '%s'", e->era, e->logged[i]);
	if (e->never)
		assert_null(strstr(e->helper ? helper_log : test_bus_log(&c->bus), e->never));
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

static void test_route__a_v25_without_the_gpu_interfaces_is_passed_over(void **state)
{
	struct ctx *c = *state;
	struct deck *d = fake_open(&c->f);
	struct deck_control *ctl = open_verified(d);
	const struct deck_route *r = deck_control_route(ctl);
	assert_string_equal(r->tries[0].route, "session bus steamos-manager");
	assert_string_equal(r->tries[0].why, "it serves Manager, without the GPU level, clock and TDP "
	                                     "of any known era");
	assert_int_not_equal(r->kind, DECK_ROUTE_SPLIT);
	assert_int_not_equal(r->kind, DECK_ROUTE_MANAGER);
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

/* A route_eras[] case: one body, the era's double set up around it. */
#define ERA_CASE(i) \
	{ route_eras[i].name, test_route__of_an_era, setup_era, teardown, (void *)&route_eras[i] }

int main(void)
{
	test_bus_skip_unless_it_can_run();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_inhibit__held_until_released, setup_full, teardown),
		cmocka_unit_test_setup_teardown(test_inhibit__released_when_the_holder_is_killed,
		                                setup_full, teardown),
		cmocka_unit_test_setup_teardown(test_inhibit__refusal_says_so, setup_refusing, teardown),
		ERA_CASE(0),
		ERA_CASE(1),
		ERA_CASE(2),
		ERA_CASE(3),
		cmocka_unit_test_setup_teardown(test_route__a_unit_that_fails_to_start_is_passed_over,
		                                setup_unit_fails, teardown),
		cmocka_unit_test_setup_teardown(test_route__a_v25_without_the_gpu_interfaces_is_passed_over,
		                                setup_split_bare, teardown),
		ERA_CASE(4),
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
	_Static_assert(sizeof route_eras / sizeof route_eras[0] == 5, "every era has its case");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
