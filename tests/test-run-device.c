/* test-run-device: a night's campaign with the stand-in game on a fake
 * Deck, with logind and steamos-manager doubles on private system and
 * session dbus-daemons: the sleep inhibitor held for the campaign and
 * released on every way out; gpu_clock and tdp_w set per arm before each
 * run through each steamos-manager era, Valve's priv-write helper and
 * sysfs, what was asked and what was observed recorded, a deviation voids
 * the run; against no route, or an ask outside the route's range, the
 * campaign refused before its first run; the device put back through the
 * route that set it after a normal end, a stop request (SIGTERM, Ctrl-C)
 * and a SIGKILLed harness followed by resume; AC: no run on battery, an unplugged run void,
 * a low battery stops the campaign cleanly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <sys/mount.h>

#include "report/report.h"
#include "run/run.h"
#include "test-run-util.h"
#include "test-run-play.h"
#include "test-deck-bus-util.h"
#include "test-deck-util.h"

static bool priv_write_next, no_helper_next; /* for the next setup_with() */

static int setup_with(void **state, const char *era)
{
	struct test_night *e = calloc(1, sizeof *e);
	unsetenv(DECK_PRIV_WRITE_ENV);
	test_night_open(e, era, "route t\nduration 3s\nwindow 0.5s 3s\n0s press A 100ms\n"
	                        "1s shot one\n2s shot two\n");
	/* the clock the arms ask for is the one gpu_metrics reports */
	fake_metrics(&e->f, "sys/class/drm/card2/device/gpu_metrics",
	             &(struct fake_metrics){ .content = 2, .temp_gfx = 6100, .temp_soc = 5850,
	                                     .activity = 9000, .socket_mw = 11000, .cpu_mw = 3000,
	                                     .soc_mw = 2000, .gfx_mw = 5000, .gfxclk_mhz = 1100,
	                                     .fclk_mhz = 800 });
	if (strcmp(era, "none") == 0 && (priv_write_next || no_helper_next))
		test_night_helper(e, priv_write_next);
	priv_write_next = no_helper_next = false;
	*state = e;
	return 0;
}

static int setup(void **state)
{
	return setup_with(state, "split");
}

static int setup_sysfs(void **state)
{
	return setup_with(state, "none");
}

static int setup_manager(void **state)
{
	return setup_with(state, "manager");
}

static int setup_manager_gpu(void **state)
{
	return setup_with(state, "manager-GPU");
}

static int setup_methods(void **state)
{
	return setup_with(state, "methods");
}

static int setup_priv_write(void **state)
{
	priv_write_next = true;
	return setup_with(state, "none");
}

static int setup_unit_fails(void **state)
{
	return setup_with(state, "unit-fails");
}

static int setup_nothing(void **state)
{
	no_helper_next = true;
	return setup_with(state, "none");
}

static int teardown(void **state)
{
	struct test_night *e = *state;
	test_night_close(e);
	free(e);
	return 0;
}

static struct plan *make_plan(struct test_night *e, const char *campaign, const char *arms)
{
	return test_night_plan(e, NULL, campaign, arms);
}

static const char *progress(struct test_night *e)
{
	return test_night_progress(e);
}

static struct run_options options(struct test_night *e, volatile sig_atomic_t *stop)
{
	return (struct run_options){ .data_dir = e->data, .environ = e->environ_,
	                             .deck_root = e->f.root, .progress = e->progress,
	                             .stop = stop, .ac_poll_s = 0.2 };
}

static struct run_campaign *create(struct test_night *e, struct plan *plan, struct run_options *o)
{
	struct run_campaign *c = test_campaign_create(e->db, plan, o);
	plan_free(plan);
	return c;
}


/* The index of line in the bus log at or after from, or -1. */
static long log_after(struct test_night *e, const char *line, long from)
{
	const char *log = test_bus_log(&e->bus);
	if (from < 0 || (size_t)from > strlen(log))
		return -1;
	const char *p = strstr(log + from, line);
	return p ? p - log : -1;
}

static long log_at(struct test_night *e, const char *line)
{
	return log_after(e, line, 0);
}

/* The last index of line in the bus log, or -1. */
static long log_last(struct test_night *e, const char *line)
{
	long at = -1, k;
	while ((k = log_after(e, line, at + 1)) >= 0)
		at = k;
	return at;
}

static void test_device__clock_and_tdp_per_arm_through_steamos_manager(void **state)
{
	struct test_night *e = *state;
	struct run_options o = options(e, NULL);
	struct run_campaign *c = create(e, make_plan(e, "order = AB\ngpu_clock = 1100\n",
	                                             "[arm A]\n[arm B]\ntdp_w = 12\n"), &o);
	struct run_outcome out = test_campaign_play(c);
	assert_true(out.complete);
	/* held for the campaign, released at its end */
	assert_true(log_at(e, "inhibit sleep:idle rxdeck rxdeck campaign night") >= 0);
	assert_true(test_bus_logged(&e->bus, "released 1"));
	/* A at 1100 MHz; B at 1100 MHz and 12 W; then put back */
	long clock = log_at(e, "set ManualGpuClock 1100"), tdp = log_at(e, "set TdpLimit 12\n");
	long back = log_last(e, "set TdpLimit 15\n"), level = log_last(e, "set GpuPerformanceLevel auto");
	assert_true(clock >= 0 && tdp > clock && back > tdp && level > tdp);
	struct db_run *runs;
	size_t n;
	assert_int_equal(db_run_list(e->db, run_campaign_id(c), &runs, &n), 0);
	assert_int_equal(n, 2);
	/* A: asked and observed 1100 MHz */
	assert_int_equal(runs[0].status, DB_RUN_DONE);
	double v;
	assert_int_equal(db_metric_get(e->db, runs[0].id, "gpu_clock_asked_mhz", &v), 0);
	assert_true(v == 1100);
	assert_int_equal(db_metric_get(e->db, runs[0].id, "gpu_clock_observed_mhz", &v), 0);
	assert_true(v == 1100);
	/* B: steamos-manager wrote the cap, so 12 W is in force */
	assert_int_equal(runs[1].status, DB_RUN_DONE);
	assert_int_equal(db_metric_get(e->db, runs[1].id, "tdp_asked_w", &v), 0);
	assert_true(v == 12);
	assert_int_equal(db_metric_get(e->db, runs[1].id, "tdp_observed_w", &v), 0);
	assert_true(v == 12);
	free(runs);
	char state_file[PATH_MAX + 32];
	snprintf(state_file, sizeof state_file, "%s/device-state", e->data);
	assert_int_equal(access(state_file, F_OK), -1);
	run_campaign_destroy(c);
}

static void test_device__tdp_through_sysfs_is_observed_and_put_back(void **state)
{
	struct test_night *e = *state;
	struct run_options o = options(e, NULL);
	struct run_campaign *c = create(e, make_plan(e, "order = A\n", "[arm A]\ntdp_w = 12\n"), &o);
	test_campaign_play(c);
	struct db_run *runs;
	size_t n;
	assert_int_equal(db_run_list(e->db, run_campaign_id(c), &runs, &n), 0);
	assert_int_equal(runs[0].status, DB_RUN_DONE);
	free(runs);
	assert_string_equal(fake_read(&e->f, "sys/class/drm/card2/device/hwmon/hwmon4/power1_cap"),
	                    "15000000\n");
	assert_non_null(strstr(progress(e), "GPU clock and TDP per arm through sysfs"));
	run_campaign_destroy(c);
}

static volatile sig_atomic_t stop_flag;

/* A wait on the campaign's progress gives up after this long. */
#define PROGRESS_LIMIT_S 300

/* Waits until the progress file, past its first `from` bytes, holds text:
 * true then; false after PROGRESS_LIMIT_S, or once *ended is set (ended
 * may be NULL) with the text still not there. */
static bool progress_shows(struct test_night *e, const char *text, size_t from,
                           const volatile sig_atomic_t *ended)
{
	static char buf[1 << 16]; /* one waiting thread at a time: the test reads after the join */
	for (int i = 0; i <= PROGRESS_LIMIT_S * 50; i++) {
		bool over = ended && *ended;
		fflush(e->progress);
		const char *now = test_file_text(e->progress_path, buf, sizeof buf);
		if (strlen(now) > from && strstr(now + from, text))
			return true;
		if (over)
			return false;
		struct timespec ts = { 0, 20 * 1000000 };
		nanosleep(&ts, NULL);
	}
	return false;
}

/* The stop request comes once a run has started (its arm's clock and TDP
 * are set before its "started" line), not at a time: on a busy machine
 * the campaign can take longer than any fixed delay to get there. */
struct stopper {
	struct test_night *e;
	size_t from;  /* the progress file's length when the play began */
	bool missed;  /* no run started within PROGRESS_LIMIT_S */
};

static void *stop_once_started(void *arg)
{
	struct stopper *st = arg;
	/* until a run has started, or the play has ended without one */
	st->missed = !progress_shows(st->e, ", started", st->from, &stop_flag);
	stop_flag = 1; /* what the SIGTERM/SIGINT handler of rxdeck sets */
	return NULL;
}

/* c played with a stop request once one of its runs has started: its
 * outcome. */
static struct run_outcome play_stopped_soon(struct test_night *e, struct run_campaign *c)
{
	static char buf[1 << 16];
	fflush(e->progress);
	struct stopper st = { e, strlen(test_file_text(e->progress_path, buf, sizeof buf)), false };
	pthread_t th;
	pthread_create(&th, NULL, stop_once_started, &st);
	struct run_outcome out = test_campaign_play(c);
	stop_flag = 1; /* a campaign that ended first: the thread stops waiting */
	pthread_join(th, NULL);
	if (st.missed)
		fail_msg("no run started within %d s:\n%s", PROGRESS_LIMIT_S, progress(e));
	return out;
}

static void test_device__put_back_after_a_stop_request(void **state)
{
	struct test_night *e = *state;
	stop_flag = 0;
	struct run_options o = options(e, &stop_flag);
	struct run_campaign *c = create(e, make_plan(e, "order = AB\ntdp_w = 10\n",
	                                             "[arm A]\n[arm B]\n"), &o);
	struct run_outcome out = play_stopped_soon(e, c);
	assert_true(out.interrupted);
	assert_false(out.complete);
	assert_true(log_at(e, "set TdpLimit 10\n") >= 0);
	assert_true(log_last(e, "set TdpLimit 15\n") > log_at(e, "set TdpLimit 10\n"));
	assert_true(test_bus_logged(&e->bus, "released 1"));
	run_campaign_destroy(c);
}

/* A harness in a child process resuming campaign id (its own database
 * connection), to be killed by the test: its pid. */
static pid_t resume_in_child(struct test_night *e, const char *id, const struct run_options *o)
{
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct db *db;
		char p[PATH_MAX], msg[1024];
		if (db_open(tdir_file(&e->t, "results.db", p, sizeof p), &db) != 0)
			_exit(2);
		struct run_campaign *cc;
		if (run_campaign_open(db, id, o, &cc, msg, sizeof msg) != 0) {
			fprintf(stderr, "child: %s\n", msg);
			_exit(3);
		}
		struct run_outcome out;
		run_campaign_play(cc, &out, msg, sizeof msg);
		_exit(0);
	}
	return pid;
}

/* Waits until done(e, arg) holds while the harness child `pid` plays:
 * a child that ended first fails the case with how it ended (a refused
 * resume says why on stderr), so what is waited for is the child's state,
 * not an amount of time.  PROGRESS_LIMIT_S with neither fails as a hang. */
static void child_until(struct test_night *e, pid_t pid, bool (*done)(struct test_night *, const void *),
                        const void *arg, const char *what)
{
	for (int i = 0; !done(e, arg); i++) {
		int status;
		if (waitpid(pid, &status, WNOHANG) == pid)
			fail_msg("the resuming harness ended (%s %d) before %s:\n%s\nbus:\n%s",
			         WIFEXITED(status) ? "exit" : "signal",
			         WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), what, progress(e),
			         test_bus_log(&e->bus));
		if (i == PROGRESS_LIMIT_S * 40) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			fail_msg("the resuming harness did not get to %s in %d s:\n%s", what, PROGRESS_LIMIT_S,
			         progress(e));
		}
		struct timespec ts = { 0, 25 * 1000000 };
		nanosleep(&ts, NULL);
	}
}

static bool bus_has(struct test_night *e, const void *line)
{
	return log_at(e, line) >= 0;
}

static void test_device__sigkilled_harness_is_put_back_by_resume(void **state)
{
	struct test_night *e = *state;
	struct run_options o = options(e, NULL);
	struct run_campaign *c = create(e, make_plan(e, "order = AB\ntdp_w = 9\n",
	                                             "[arm A]\n[arm B]\n"), &o);
	char id[32];
	snprintf(id, sizeof id, "%lld", (long long)run_campaign_id(c));
	run_campaign_destroy(c);
	pid_t pid = resume_in_child(e, id, &o);
	child_until(e, pid, bus_has, "set TdpLimit 9", "setting 9 W");
	long nine = log_at(e, "set TdpLimit 9");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	assert_true(test_bus_logged(&e->bus, "released 1")); /* logind drops it by itself */
	char state_file[PATH_MAX + 32];
	snprintf(state_file, sizeof state_file, "%s/device-state", e->data);
	assert_int_equal(access(state_file, F_OK), 0);
	assert_true(log_after(e, "set TdpLimit 15\n", nine) < 0);
	/* what was left running is killed as a resume does; then resume */
	int left = processes_mentioning(e->t.path);
	(void)left;
	struct run_campaign *r = test_campaign_open(e->db, id, &o);
	test_campaign_play(r);
	long back = log_after(e, "set TdpLimit 15\n", nine);
	assert_true(back >= 0);
	assert_non_null(strstr(progress(e), "put back the GPU level auto and the TDP a stopped "
	                                    "campaign had changed (split)"));
	/* and it sets 9 W again for the runs it plays, then 15 W at the end */
	const char *log = test_bus_log(&e->bus);
	assert_non_null(strstr(log + back, "set TdpLimit 9\n"));
	assert_non_null(strstr(strstr(log + back, "set TdpLimit 9\n"), "set TdpLimit 15\n"));
	assert_int_equal(access(state_file, F_OK), -1);
	run_campaign_destroy(r);
}

static void test_device__host_facts_stored_at_start_and_changes_at_resume(void **state)
{
	struct test_night *e = *state;
	stop_flag = 0;
	struct run_options o = options(e, &stop_flag);
	struct run_campaign *c = create(e, make_plan(e, "order = AB\n", "[arm A]\n[arm B]\n"), &o);
	char id[32];
	snprintf(id, sizeof id, "%lld", (long long)run_campaign_id(c));
	struct run_outcome out = play_stopped_soon(e, c);
	assert_true(out.interrupted);
	int64_t cid = run_campaign_id(c);
	run_campaign_destroy(c);
	struct db_host_facts *h;
	size_t n;
	assert_int_equal(db_host_facts_list(e->db, cid, &h, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(h[0].event, "start");
	assert_null(h[0].changes);
	const char *want[] = { "\"device_model\":\"Steam Deck LCD\"",
	                       "\"kernel\":\"6.5.0-valve22-1-neptune-65\"", "\"gpu_metrics\":\"v2.2\"",
	                       "\"apu\":true", "\"gpu_level\":\"auto\"", "\"tdp_w\":15.0",
	                       "\"power_source\":\"AC\"", "\"swappiness\":" };
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		if (!strstr(h[0].facts, want[i]))
			fail_msg("no %s in %s", want[i], h[0].facts);
	free(h);

	/* a resume on the same host adds nothing */
	stop_flag = 0;
	struct run_campaign *r = test_campaign_open(e->db, id, &o);
	play_stopped_soon(e, r);
	run_campaign_destroy(r);
	assert_int_equal(db_host_facts_list(e->db, cid, &h, &n), 0);
	assert_int_equal(n, 1);
	free(h);

	/* a SteamOS update overnight: another kernel and swappiness */
	fake_write(&e->f, "proc/sys/kernel/osrelease", "6.5.0-valve24-1-neptune-65\n");
	fake_write(&e->f, "proc/sys/vm/swappiness", "1\n");
	stop_flag = 0;
	r = test_campaign_open(e->db, id, &o);
	play_stopped_soon(e, r); /* a run left for the resume below */
	run_campaign_destroy(r);
	assert_int_equal(db_host_facts_list(e->db, cid, &h, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(h[1].event, "resume");
	const char *changes = "kernel: \"6.5.0-valve22-1-neptune-65\" -> \"6.5.0-valve24-1-neptune-65\"\n"
	                      "swappiness: ";
	if (strncmp(h[1].changes, changes, strlen(changes)) != 0)
		fail_msg("changes: %s", h[1].changes);
	assert_non_null(strstr(h[1].changes, " -> 1"));
	assert_non_null(strstr(h[1].facts, "\"kernel\":\"6.5.0-valve24-1-neptune-65\""));
	free(h);
	assert_non_null(strstr(progress(e), "the host changed since the campaign last played "
	                                    "(recorded):\nkernel: \"6.5.0-valve22-1-neptune-65\" -> "));
	/* the report's header says so */
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_int_equal(report_print(e->db, cid, NULL, f), 0);
	fclose(f);
	assert_non_null(strstr(text, "The host changed at the resume of "));
	if (!strstr(text, ": `kernel: \"6.5.0-valve22-1-neptune-65\" -> "
	                  "\"6.5.0-valve24-1-neptune-65\"`; `swappiness: "))
		fail_msg("no change line in:\n%s", text);
	free(text);

	/* a fact gone (os-release without BUILD_ID): "absent", never "null" */
	fake_write(&e->f, "etc/os-release", "NAME=\"SteamOS\"\nPRETTY_NAME=\"SteamOS\"\n"
	                                    "VERSION_ID=3.6.19\n");
	stop_flag = 0;
	r = test_campaign_open(e->db, id, &o);
	test_campaign_play(r);
	run_campaign_destroy(r);
	assert_int_equal(db_host_facts_list(e->db, cid, &h, &n), 0);
	assert_int_equal(n, 3);
	if (strcmp(h[2].changes, "os_build: \"20241001.1\" -> absent") != 0)
		fail_msg("changes: %s", h[2].changes);
	free(h);
}

/* The AC plug, moved on the campaign's own progress rather than on a
 * clock (a busy machine may start a run seconds late): unplugged once the
 * progress says `unplug_at` (a run has started), plugged in again once it
 * says `plug_at` (the harness waits for AC).  Each wait gives up after
 * PROGRESS_LIMIT_S, plugs in so the campaign can end, and says which it missed. */
struct flip {
	struct test_night *e;
	const char *unplug_at;
	const char *plug_at;
	const char *missed; /* the text never seen, or NULL */
};

static void *flip_ac(void *arg)
{
	struct flip *f = arg;
	if (!progress_shows(f->e, f->unplug_at, 0, NULL))
		f->missed = f->unplug_at;
	else {
		fake_write(&f->e->f, "sys/class/power_supply/ACAD/online", "0\n");
		if (!progress_shows(f->e, f->plug_at, 0, NULL))
			f->missed = f->plug_at;
	}
	fake_write(&f->e->f, "sys/class/power_supply/ACAD/online", "1\n");
	return NULL;
}

static void test_device__unplugged_run_is_void_and_the_next_waits_for_ac(void **state)
{
	struct test_night *e = *state;
	struct run_options o = options(e, NULL);
	struct run_campaign *c = create(e, make_plan(e, "order = AB\n", "[arm A]\n[arm B]\n"), &o);
	/* unplugged once A's run has started, plugged in again once the
	 * harness waits for AC before B's */
	struct flip f = { e, "run 1 of 2: arm A", "on battery: waiting for AC power before the next run",
		          NULL };
	pthread_t th;
	pthread_create(&th, NULL, flip_ac, &f);
	struct run_outcome out = test_campaign_play(c);
	pthread_join(th, NULL);
	if (f.missed)
		fail_msg("the progress never said '%s':\n%s", f.missed, progress(e));
	assert_true(out.complete);
	struct db_run *runs;
	size_t n;
	assert_int_equal(db_run_list(e->db, run_campaign_id(c), &runs, &n), 0);
	assert_int_equal(runs[0].status, DB_RUN_VOID);
	assert_string_equal(runs[0].void_reason, "on battery");
	assert_int_equal(runs[1].status, DB_RUN_DONE);
	free(runs);
	const char *p = progress(e);
	const char *wait = strstr(p, "on battery: waiting for AC power before the next run");
	assert_non_null(wait);
	assert_null(strstr(wait + 1, "on battery: waiting")); /* said once */
	assert_non_null(strstr(p, "on AC power again: going on"));
	run_campaign_destroy(c);
}

static void test_device__low_battery_stops_cleanly(void **state)
{
	struct test_night *e = *state;
	fake_write(&e->f, "sys/class/power_supply/ACAD/online", "0\n");
	fake_write(&e->f, "sys/class/power_supply/BAT1/capacity", "8\n");
	struct run_options o = options(e, NULL);
	struct run_campaign *c = create(e, make_plan(e, "order = A\ntdp_w = 10\n", "[arm A]\n"), &o);
	struct run_outcome out = test_campaign_play(c);
	assert_true(out.interrupted);
	assert_int_equal(out.runs_done, 0);
	assert_non_null(strstr(progress(e), "on battery at 8 %, below min_battery_pct 10 %: "
	                                    "stopping; 'rxdeck resume' goes on"));
	assert_true(log_at(e, "set TdpLimit 10\n") < 0); /* no run, nothing set */
	assert_true(test_bus_logged(&e->bus, "released 1"));
	run_campaign_destroy(c);
}

/* A short campaign with per-arm gpu_clock and tdp_w through the route of
 * the setup: both runs done, asked and observed recorded, the fake sysfs
 * back as it was at the end.  want: what the progress names. */
static void campaign_through_route(struct test_night *e, const char *want)
{
	struct run_options o = options(e, NULL);
	struct run_campaign *c = create(e, make_plan(e, "order = AB\n",
	                                             "[arm A]\ngpu_clock = 1100\n"
	                                             "[arm B]\ngpu_clock = 1100\ntdp_w = 12\n"), &o);
	struct run_outcome out = test_campaign_play(c);
	assert_true(out.complete);
	struct db_run *runs;
	size_t n;
	assert_int_equal(db_run_list(e->db, run_campaign_id(c), &runs, &n), 0);
	assert_int_equal(n, 2);
	double v;
	for (size_t i = 0; i < 2; i++) {
		if (runs[i].status != DB_RUN_DONE)
			fail_msg("run %zu: %s", i, runs[i].void_reason ? runs[i].void_reason : "?");
		assert_int_equal(db_metric_get(e->db, runs[i].id, "gpu_clock_observed_mhz", &v), 0);
		assert_true(v == 1100);
	}
	assert_int_equal(db_metric_get(e->db, runs[1].id, "tdp_observed_w", &v), 0);
	assert_true(v == 12);
	free(runs);
	/* put back */
	assert_int_equal(atoi(fake_read(&e->f, "sys/class/drm/card2/device/hwmon/hwmon4/power1_cap")),
	                 15000000);
	const char *level = fake_read(&e->f, "sys/class/drm/card2/device/"
	                                     "power_dpm_force_performance_level");
	assert_int_equal(strncmp(level, "auto", 4), 0);
	if (!strstr(progress(e), want))
		fail_msg("no '%s' in:\n%s", want, progress(e));
	assert_non_null(strstr(progress(e), "GPU level and TDP put back"));
	run_campaign_destroy(c);
}

static void test_device__per_arm_through_the_v24_manager_interface(void **state)
{
	struct test_night *e = *state;
	campaign_through_route(e, "GPU clock and TDP per arm through manager: steamos-manager "
	                          "Version 8 on the system bus, com.steampowered.SteamOSManager1.Manager");
	assert_true(log_at(e, "set GpuPerformanceLevel 3") >= 0);
	assert_true(log_last(e, "set TdpLimit 15") > log_at(e, "set TdpLimit 12"));
}

static void test_device__per_arm_through_the_v24_4_spelling(void **state)
{
	struct test_night *e = *state;
	campaign_through_route(e, "through manager: steamos-manager Version 7 on the system bus");
	assert_true(log_at(e, "set ManualGPUClock 1100") >= 0);
	assert_true(log_last(e, "set TDPLimit 15") > log_at(e, "set TDPLimit 12"));
}

static void test_device__per_arm_through_the_2023_methods(void **state)
{
	struct test_night *e = *state;
	campaign_through_route(e, "through methods: steamos-manager Version 1 on the system bus");
	assert_true(log_at(e, "call SetGpuClocks 1100") >= 0);
	assert_true(log_last(e, "call SetTDPLimit 15") > log_at(e, "call SetTDPLimit 12"));
}

static void test_device__per_arm_through_the_priv_write_helper(void **state)
{
	struct test_night *e = *state;
	campaign_through_route(e, "GPU clock and TDP per arm through priv-write (");
	const char *log = fake_read(&e->f, "priv-write.log");
	const char *set = strstr(log, "commit: 12000000 -> /sys/class/hwmon/hwmon4/power1_cap\n");
	assert_non_null(set);
	assert_non_null(strstr(set, "commit: 15000000 -> /sys/class/hwmon/hwmon4/power1_cap\n"));
	assert_non_null(strstr(log, "commit: s 0 1100 -> /sys/class/drm/card2/device/pp_od_clk_voltage\n"));
}

static void test_device__no_route_refuses_before_the_first_run(void **state)
{
	struct test_night *e = *state;
	/* sysfs read-only for the child that plays: a bind mount as root */
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char sys[PATH_MAX + 8];
		snprintf(sys, sizeof sys, "%s/sys", e->f.root);
		if (geteuid() == 0 &&
		    (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		     mount(sys, sys, NULL, MS_BIND | MS_REC, NULL) ||
		     mount(NULL, sys, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_REC, NULL)))
			_exit(77);
		if (geteuid() != 0) {
			char f[PATH_MAX + 64];
			snprintf(f, sizeof f, "%s/sys/class/drm/card2/device/power_dpm_force_performance_level",
			         e->f.root);
			chmod(f, 0444);
		}
		struct db *db;
		char p[PATH_MAX], msg[2048] = "";
		if (db_open(tdir_file(&e->t, "results.db", p, sizeof p), &db) != 0)
			_exit(2);
		struct run_options o = options(e, NULL);
		struct plan *plan = make_plan(e, "order = AB\n", "[arm A]\ngpu_clock = 1100\n[arm B]\n");
		struct run_campaign *c = NULL;
		int rc = run_campaign_create(db, plan, &o, &c, msg, sizeof msg);
		printf("rc %d: %s\n", rc, msg);
		fflush(stdout);
		_exit(rc == -ENODEV && !c &&
		      strstr(msg, "the plan sets gpu_clock or tdp_w, but there is no route to the GPU "
		                  "clock and TDP: session bus steamos-manager: "
		                  "com.steampowered.SteamOSManager1 is not on it; system bus "
		                  "steamos-manager: com.steampowered.SteamOSManager1 is not on it; "
		                  "pkexec steamos-priv-write: RXDECK_PRIV_WRITE "
		                  "'/nonexistent/steamos-priv-write' is not executable") &&
		      strstr(msg, "; sysfs: '") && strstr(msg, "' is not writable: ")
		              ? 0 : 1);
	}
	int status;
	waitpid(pid, &status, 0);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
		skip();
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	/* nothing was set or written back, no campaign made */
	assert_true(log_at(e, "set ") < 0);
	struct db_campaign *list;
	size_t n;
	assert_int_equal(db_campaign_list(e->db, &list, &n), 0);
	assert_int_equal(n, 0);
	free(list);
}

static void test_device__an_ask_outside_the_range_is_refused_before_the_first_run(void **state)
{
	struct test_night *e = *state;
	struct run_options o = options(e, NULL);
	struct plan *plan = make_plan(e, "order = AB\n", "[arm A]\n[arm B]\ntdp_w = 20\n");
	struct run_campaign *c = NULL;
	char msg[1024] = "";
	assert_int_equal(run_campaign_create(e->db, plan, &o, &c, msg, sizeof msg), -ERANGE);
	plan_free(plan);
	assert_null(c);
	assert_string_equal(msg, "arm B: tdp_w 20 W is outside 3 to 15 W, steamos-manager's "
	                         "TdpLimitMin/Max");
	/* nothing written: no campaign, no folder, nothing set */
	struct db_campaign *list;
	size_t n;
	assert_int_equal(db_campaign_list(e->db, &list, &n), 0);
	assert_int_equal(n, 0);
	free(list);
	assert_int_equal(access(e->data, F_OK), -1);
	assert_true(log_at(e, "set ") < 0);
}

static int cap_w(struct test_night *e)
{
	return atoi(fake_read(&e->f, "sys/class/drm/card2/device/hwmon/hwmon4/power1_cap")) / 1000000;
}

static bool cap_is(struct test_night *e, const void *w)
{
	return cap_w(e) == *(const int *)w;
}

/* Through the route of the setup: a stop request mid-campaign puts the
 * device back; then a harness killed with SIGKILL leaves the state file
 * naming the route, and the next start puts it back through that route. */
static void stops_through_route(struct test_night *e, const char *via)
{
	stop_flag = 0;
	struct run_options o = options(e, &stop_flag);
	struct run_campaign *c = create(e, make_plan(e, "order = A\ntdp_w = 10\n", "[arm A]\n"), &o);
	char id[32];
	snprintf(id, sizeof id, "%lld", (long long)run_campaign_id(c));
	struct run_outcome out = play_stopped_soon(e, c);
	assert_true(out.interrupted);
	assert_int_equal(cap_w(e), 15);
	run_campaign_destroy(c);

	struct run_options oo = options(e, NULL);
	pid_t pid = resume_in_child(e, id, &oo);
	static const int ten = 10;
	child_until(e, pid, cap_is, &ten, "setting the cap to 10 W");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	char state_file[PATH_MAX + 32], want[64];
	snprintf(state_file, sizeof state_file, "%s/device-state", e->data);
	snprintf(want, sizeof want, "via %s\n", via);
	FILE *f = fopen(state_file, "r");
	assert_non_null(f);
	char line[64] = "";
	assert_non_null(fgets(line, sizeof line, f));
	fclose(f);
	assert_string_equal(line, want);
	assert_int_equal(cap_w(e), 10);
	processes_mentioning(e->t.path);
	stop_flag = 0;
	struct run_options o2 = options(e, NULL);
	struct run_campaign *r = test_campaign_open(e->db, id, &o2);
	test_campaign_play(r);
	run_campaign_destroy(r);
	char said[128];
	snprintf(said, sizeof said, "the TDP a stopped campaign had changed (%s)", via);
	assert_non_null(strstr(progress(e), said));
	assert_int_equal(cap_w(e), 15);
	assert_int_equal(access(state_file, F_OK), -1);
}

static void test_device__put_back_through_the_v24_manager_interface(void **state)
{
	stops_through_route(*state, "manager");
}

static void test_device__put_back_through_the_2023_methods(void **state)
{
	stops_through_route(*state, "methods");
}

static void test_device__put_back_through_the_priv_write_helper(void **state)
{
	stops_through_route(*state, "priv-write");
}

static void test_device__a_unit_that_fails_to_start_leaves_sysfs(void **state)
{
	struct test_night *e = *state;
	campaign_through_route(e, "GPU clock and TDP per arm through sysfs (");
	stops_through_route(e, "sysfs");
}

int main(void)
{
	test_bus_skip_unless_it_can_run();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_device__clock_and_tdp_per_arm_through_steamos_manager,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(test_device__tdp_through_sysfs_is_observed_and_put_back,
		                                setup_sysfs, teardown),
		cmocka_unit_test_setup_teardown(test_device__put_back_after_a_stop_request, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(test_device__sigkilled_harness_is_put_back_by_resume,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(test_device__host_facts_stored_at_start_and_changes_at_resume,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(test_device__unplugged_run_is_void_and_the_next_waits_for_ac,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(test_device__low_battery_stops_cleanly, setup, teardown),
		cmocka_unit_test_setup_teardown(test_device__per_arm_through_the_v24_manager_interface,
		                                setup_manager, teardown),
		cmocka_unit_test_setup_teardown(test_device__per_arm_through_the_v24_4_spelling,
		                                setup_manager_gpu, teardown),
		cmocka_unit_test_setup_teardown(test_device__per_arm_through_the_2023_methods,
		                                setup_methods, teardown),
		cmocka_unit_test_setup_teardown(test_device__per_arm_through_the_priv_write_helper,
		                                setup_priv_write, teardown),
		cmocka_unit_test_setup_teardown(test_device__no_route_refuses_before_the_first_run,
		                                setup_nothing, teardown),
		cmocka_unit_test_setup_teardown(
			test_device__an_ask_outside_the_range_is_refused_before_the_first_run, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_device__put_back_through_the_v24_manager_interface,
		                                setup_manager_gpu, teardown),
		cmocka_unit_test_setup_teardown(test_device__put_back_through_the_2023_methods,
		                                setup_methods, teardown),
		cmocka_unit_test_setup_teardown(test_device__put_back_through_the_priv_write_helper,
		                                setup_priv_write, teardown),
		cmocka_unit_test_setup_teardown(test_device__a_unit_that_fails_to_start_leaves_sysfs,
		                                setup_unit_fails, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
