/* test-run-signals: the real rxdeck binary stopped by a signal in the
 * middle of a night's campaign on a fake Deck (RXDECK_DECK_ROOT), with the
 * logind and steamos-manager doubles on a private dbus-daemon and a second
 * client on the pad socket watching what the pad sends:
 *   - SIGTERM (what `systemctl --user stop` sends) and SIGINT (Ctrl-C):
 *     exit 4, the run that was playing left cut (running, played again by
 *     resume), the inhibitor released, the TDP and GPU level put back, no
 *     button left held, nothing left running; `rxdeck resume` finishes;
 *   - SIGKILL: nothing can be put back, the state file stays; the next
 *     `rxdeck run` of another plan puts the device back first, and
 *     `rxdeck resume` finishes the campaign;
 *   - a game that crashes: its runs void, the campaign ends, the device is
 *     put back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <linux/input.h>
#include <poll.h>
#include <pthread.h>
#include <sys/wait.h>
#include <time.h>

#include "pad/pad.h"
#include "results-db/db.h"
#include "test-run-util.h"
#include "test-rxdeck-proc.h"
#include "test-deck-bus-util.h"
#include "test-deck-util.h"

struct env {
	struct tdir t;
	struct fake f;
	struct test_bus bus;
	struct test_rxdeck r;
	char game[PATH_MAX];
	char db[PATH_MAX];
	char plan[PATH_MAX];
	char out[PATH_MAX];
	char state[PATH_MAX + 32];
	char root[PATH_MAX + 32];
	/* the pad watcher */
	pthread_t watcher;
	volatile int watching;
	volatile int pressed_seen;   /* BTN_SOUTH went to 1 */
	volatile int held_at_close;  /* keys still 1 when a socket closed */
	volatile int closes;         /* sockets seen closing */
	volatile pid_t harness;
};

static struct env e;

/* Connects to the harness's pad socket whenever one is there and follows
 * its key state; a socket that closes with a key held is counted. */
static void *watch_pad(void *arg)
{
	(void)arg;
	while (e.watching) {
		char path[PATH_MAX + 64];
		snprintf(path, sizeof path, "%s/rxdeck-pad-%d-%d.sock", e.t.path, (int)getuid(),
		         (int)e.harness);
		int fd;
		if (e.harness <= 0 || pad_socket_connect(path, &fd) != 0) {
			test_sleep_ms(5);
			continue;
		}
		int keys[KEY_CNT] = { 0 };
		for (;;) {
			struct pollfd p = { fd, POLLIN, 0 };
			if (poll(&p, 1, 100) < 0)
				break;
			struct input_event ev[64];
			size_t n;
			int rc = pad_socket_read(fd, ev, 64, &n);
			if (rc == -EAGAIN) {
				if (!e.watching)
					break;
				continue;
			}
			if (rc < 0) {
				int held = 0;
				for (int k = 0; k < KEY_CNT; k++)
					held += keys[k] != 0;
				e.held_at_close += held;
				e.closes++;
				break;
			}
			for (size_t i = 0; i < n; i++) {
				if (ev[i].type != EV_KEY || ev[i].code >= KEY_CNT)
					continue;
				keys[ev[i].code] = ev[i].value;
				if (ev[i].code == BTN_SOUTH && ev[i].value == 1)
					e.pressed_seen = 1;
			}
		}
		close(fd);
	}
	return NULL;
}

static void write_plan(const char *path, const char *name, const char *campaign, const char *build)
{
	char text[8192];
	snprintf(text, sizeof text,
	         "[campaign]\nname = %s\nroute = t.route\nprofile = lavapipe\norder = AB\nrounds = 1\n"
	         "warmup = no\npad = socket\n%s"
	         "[build double]\n%s\npad_option = --pad\n[arm A]\n[arm B]\n",
	         name, campaign, build);
	write_text(path, text);
}

static int setup(void **state)
{
	(void)state;
	memset(&e, 0, sizeof e);
	tdir_make(&e.t);
	fake_init(&e.f);
	fake_deck(&e.f);
	/* the clock the arms ask for is the one gpu_metrics reports */
	fake_metrics(&e.f, "sys/class/drm/card2/device/gpu_metrics",
	             &(struct fake_metrics){ .content = 2, .temp_gfx = 6100, .temp_soc = 5850,
	                                     .activity = 9000, .socket_mw = 11000, .cpu_mw = 3000,
	                                     .soc_mw = 2000, .gfx_mw = 5000, .gfxclk_mhz = 1100,
	                                     .fclk_mhz = 800 });
	if (!test_bus_start(&e.bus, e.t.path, NULL)) {
		test_bus_stop(&e.bus);
		fail_msg("the D-Bus doubles did not come up");
	}
	build_path("harness/run/game-double", e.game, sizeof e.game);
	tdir_file(&e.t, "results.db", e.db, sizeof e.db);
	tdir_file(&e.t, "plan.ini", e.plan, sizeof e.plan);
	snprintf(e.state, sizeof e.state, "%s/data/rxdeck/device-state", e.t.path);
	/* rxdeck on the fake Deck, in the test's folder, every call's output
	 * after the last's in out.txt */
	test_rxdeck_init(&e.r, e.t.path, tdir_file(&e.t, "out.txt", e.out, sizeof e.out));
	e.r.how.append = true;
	e.r.how.cwd = e.t.path;
	snprintf(e.root, sizeof e.root, "RXDECK_DECK_ROOT=%s", e.f.root);
	test_rxdeck_env_add(&e.r, e.root);
	char p[PATH_MAX];
	/* A held from 1 s to 3.5 s: a stop at 2 s comes while it is down */
	write_text(tdir_file(&e.t, "t.route", p, sizeof p),
	           "route t\nduration 4s\nwindow 0.5s 4s\n1s press A 2500ms\n3.8s shot end\n");
	char build[PATH_MAX + 16];
	snprintf(build, sizeof build, "binary = %s", e.game);
	write_plan(e.plan, "night", "tdp_w = 10\ngpu_clock = 1100\n", build);
	e.watching = 1;
	pthread_create(&e.watcher, NULL, watch_pad, NULL);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	e.watching = 0;
	pthread_join(e.watcher, NULL);
	test_bus_stop(&e.bus);
	int left = processes_mentioning(e.t.path);
	fake_cleanup(&e.f);
	tdir_remove(&e.t);
	assert_int_equal(left, 0);
	return 0;
}

/* Starts rxdeck with args (NULL-ended, after the program): its pid, which
 * the pad watcher follows. */
static pid_t start(const char *const *args)
{
	e.harness = test_rxdeck_start(&e.r, args);
	return e.harness;
}

static const char *output(void)
{
	return test_rxdeck_output(&e.r);
}

static int run_to_end(const char *const *args)
{
	return test_proc_wait(start(args));
}

/* Offset of line in the bus log at or after from, or -1. */
static long log_at(const char *line, long from)
{
	const char *log = test_bus_log(&e.bus);
	if (from < 0 || (size_t)from > strlen(log))
		return -1;
	const char *p = strstr(log + from, line);
	return p ? p - log : -1;
}

/* The campaign's runs, by status. */
static void count_runs(size_t *done, size_t *running, size_t *n_out, int *campaign_open)
{
	struct db *db;
	struct db_open_options o = { .flags = DB_OPEN_READ_ONLY };
	*done = *running = *n_out = 0;
	*campaign_open = 0;
	if (db_open_ex(e.db, &o, &db) != 0)
		return;
	struct db_campaign *cs = NULL;
	size_t nc = 0;
	if (db_campaign_find(db, "night", &cs) == 0) {
		*campaign_open = cs->status == DB_CAMPAIGN_OPEN;
		struct db_run *r;
		size_t n;
		if (db_run_list(db, cs->id, &r, &n) == 0) {
			for (size_t i = 0; i < n; i++) {
				*done += r[i].status == DB_RUN_DONE || r[i].status == DB_RUN_VOID;
				*running += r[i].status == DB_RUN_RUNNING;
			}
			*n_out = n;
			free(r);
		}
		free(cs);
	}
	(void)nc;
	db_close(db);
}

/* Waits until the first run plays with A held and the TDP set. */
static void wait_for_a_held(void)
{
	for (int i = 0; i < 300 && !(e.pressed_seen && log_at("set TdpLimit 10\n", 0) >= 0); i++)
		test_sleep_ms(20);
	if (!e.pressed_seen || log_at("set TdpLimit 10\n", 0) < 0)
		fail_msg("the run never held A with the TDP set:\n%s\n%s", output(), test_bus_log(&e.bus));
}

static void stopped_by(int sig)
{
	const char *run[] = { "run", e.plan, "--db", e.db, "--name", "night", NULL };
	pid_t pid = start(run);
	wait_for_a_held();
	assert_int_equal(kill(pid, sig), 0);
	int rc = test_proc_wait(pid);
	if (rc != 4)
		fail_msg("rxdeck run exited %d after signal %d, not 4:\n%s", rc, sig, output());
	assert_non_null(strstr(output(), "rxdeck run: interrupted: 0 runs finished in this call; "
	                                 "'rxdeck resume night' goes on from the run that was cut"));
	/* the device put back, the inhibitor released, no button held */
	long set = log_at("set TdpLimit 10\n", 0);
	long back = log_at("set TdpLimit 15\n", set);
	assert_true(back > set);
	assert_true(log_at("set GpuPerformanceLevel auto\n", set) > set);
	assert_true(test_bus_logged(&e.bus, "released 1"));
	assert_int_equal(access(e.state, F_OK), -1);
	for (int i = 0; i < 100 && e.closes == 0; i++)
		test_sleep_ms(20);
	assert_true(e.closes >= 1);
	assert_int_equal(e.held_at_close, 0);
	/* the run that was playing is cut: running, no end; nothing left behind */
	size_t done, running, n;
	int open_;
	count_runs(&done, &running, &n, &open_);
	assert_true(open_);
	assert_int_equal(n, 2);
	assert_int_equal(done, 0);
	assert_int_equal(running, 1);
	assert_int_equal(test_processes_gone(e.t.path, 50), 0);

	/* resume plays the cut run again and the other one, then puts back */
	long before = (long)strlen(test_bus_log(&e.bus));
	const char *resume[] = { "resume", "--db", e.db, NULL };
	rc = run_to_end(resume);
	/* 3: the double leaves sysfs at 15 W, so the runs are void for the TDP */
	if (rc != 3)
		fail_msg("rxdeck resume exited %d:\n%s", rc, output());
	assert_non_null(strstr(output(), "tdp 10 W asked, 15 W in force"));
	count_runs(&done, &running, &n, &open_);
	assert_false(open_);
	assert_int_equal(done, 2);
	long again = log_at("set TdpLimit 10\n", before);
	assert_true(again >= 0 && log_at("set TdpLimit 15\n", again) > again);
	assert_true(test_bus_logged(&e.bus, "released 2"));
	char cut[PATH_MAX + 64];
	snprintf(cut, sizeof cut, "test -d \"$(ls -d %s/data/rxdeck/runs/night/*.cut-1 | head -1)\"",
	         e.t.path);
	assert_int_equal(system(cut), 0);
}

static void test_signals__sigterm_stops_cleanly_and_resume_finishes(void **state)
{
	(void)state;
	stopped_by(SIGTERM);
}

static void test_signals__sigint_stops_cleanly_and_resume_finishes(void **state)
{
	(void)state;
	stopped_by(SIGINT);
}

static void test_signals__sigkill_is_put_back_by_the_next_start_then_resume(void **state)
{
	(void)state;
	const char *run[] = { "run", e.plan, "--db", e.db, "--name", "night", NULL };
	pid_t pid = start(run);
	wait_for_a_held();
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(test_proc_wait(pid), 128 + SIGKILL);
	/* logind drops the inhibitor with its descriptor; the TDP stays */
	assert_true(test_bus_logged(&e.bus, "released 1"));
	assert_int_equal(access(e.state, F_OK), 0);
	long set = log_at("set TdpLimit 10\n", 0);
	assert_true(log_at("set TdpLimit 15\n", set) < 0);
	assert_int_equal(test_processes_gone(e.t.path, 50), 0);

	/* the next start, of another plan that sets nothing, puts it back */
	char other[PATH_MAX], build[PATH_MAX + 16];
	tdir_file(&e.t, "other.ini", other, sizeof other);
	snprintf(build, sizeof build, "binary = %s", e.game);
	write_plan(other, "other", "", build);
	const char *next[] = { "run", other, "--db", e.db, "--name", "other", NULL };
	int rc = run_to_end(next);
	if (rc != 0)
		fail_msg("the next rxdeck run exited %d:\n%s", rc, output());
	assert_non_null(strstr(output(), "put back the GPU level auto and the TDP a stopped campaign "
	                                 "had changed (split)"));
	assert_true(log_at("set TdpLimit 15\n", set) > set);
	assert_int_equal(access(e.state, F_OK), -1);

	/* and resume finishes the killed campaign, putting back at its end */
	long before = (long)strlen(test_bus_log(&e.bus));
	const char *resume[] = { "resume", "night", "--db", e.db, NULL };
	rc = run_to_end(resume);
	if (rc != 3)
		fail_msg("rxdeck resume exited %d:\n%s", rc, output());
	size_t done, running, n;
	int open_;
	count_runs(&done, &running, &n, &open_);
	assert_false(open_);
	assert_int_equal(done, 2);
	long again = log_at("set TdpLimit 10\n", before);
	assert_true(again >= 0 && log_at("set TdpLimit 15\n", again) > again);
	assert_int_equal(access(e.state, F_OK), -1);
}

static void test_signals__crashing_game_voids_its_runs_and_the_device_is_put_back(void **state)
{
	(void)state;
	char build[PATH_MAX + 64];
	snprintf(build, sizeof build, "command = %s --crash-after 1.5", e.game);
	write_plan(e.plan, "night", "tdp_w = 10\n", build);
	const char *run[] = { "run", e.plan, "--db", e.db, "--name", "night", NULL };
	int rc = run_to_end(run);
	if (rc != 3)
		fail_msg("rxdeck run exited %d:\n%s", rc, output());
	struct db *db;
	assert_int_equal(db_open(e.db, &db), 0);
	struct db_campaign *c;
	assert_int_equal(db_campaign_find(db, "night", &c), 0);
	assert_int_equal(c->status, DB_CAMPAIGN_DONE);
	struct db_run *r;
	size_t n;
	assert_int_equal(db_run_list(db, c->id, &r, &n), 0);
	assert_int_equal(n, 2);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(r[i].status, DB_RUN_VOID);
		assert_non_null(strstr(r[i].void_reason, "crashed"));
	}
	free(r);
	free(c);
	db_close(db);
	long set = log_at("set TdpLimit 10\n", 0);
	assert_true(set >= 0 && log_at("set TdpLimit 15\n", set) > set);
	assert_true(test_bus_logged(&e.bus, "released 1"));
	assert_int_equal(access(e.state, F_OK), -1);
	assert_int_equal(e.held_at_close, 0);
}

int main(void)
{
	test_bus_skip_unless_it_can_run();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_signals__sigterm_stops_cleanly_and_resume_finishes,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(test_signals__sigint_stops_cleanly_and_resume_finishes,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_signals__sigkill_is_put_back_by_the_next_start_then_resume, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_signals__crashing_game_voids_its_runs_and_the_device_is_put_back, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
