/* test-route-cmd: `rxdeck route check|play|record` as a user runs them: the
 * summary and every error of check with exit codes, play into a socket pad
 * to its end and stopped by SIGTERM mid-press (the game sees the release
 * before the pad goes), and record's refusals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <sys/stat.h>

#include "test-pad-util.h"

static char rxdeck[512];
static char tmpdir[256];

struct run {
	pid_t pid;
	int out, err; /* read ends */
};

static void start(struct run *r, char *const argv[])
{
	int o[2], e[2];
	assert_int_equal(pipe(o), 0);
	assert_int_equal(pipe(e), 0);
	r->pid = fork();
	assert_true(r->pid >= 0);
	if (r->pid == 0) {
		dup2(o[1], 1);
		dup2(e[1], 2);
		close(o[0]);
		close(e[0]);
		execv(rxdeck, argv);
		_exit(127);
	}
	close(o[1]);
	close(e[1]);
	r->out = o[0];
	r->err = e[0];
}

static void slurp(int fd, char *buf, size_t size)
{
	size_t n = 0;
	ssize_t k;
	while (n + 1 < size && (k = read(fd, buf + n, size - 1 - n)) > 0)
		n += (size_t)k;
	buf[n] = 0;
	close(fd);
}

/* Waits for the command; its output in out and err; returns its exit code. */
static int finish(struct run *r, char *out, size_t out_size, char *err, size_t err_size)
{
	slurp(r->out, out, out_size);
	slurp(r->err, err, err_size);
	int st;
	assert_int_equal(waitpid(r->pid, &st, 0), r->pid);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/* Connects to the pad at path as the game, once the command r made it:
 * waits as long as the command is alive, up to a minute (its start takes
 * what a busy machine gives it); -1 when it never came. */
static int connect_game(const struct run *r, const char *path)
{
	int fd = -1;
	for (int i = 0; i < 6000 && pad_socket_connect(path, &fd) != 0; i++) {
		if (waitpid(r->pid, NULL, WNOHANG) == r->pid)
			return -1;
		usleep(10000);
	}
	return fd;
}

/* How long a test waits for a frame the command should send soon: long
 * enough for any load, as nothing here measures how soon. */
#define FRAME_WAIT_MS 30000

static int run(char *const argv[], char *out, size_t out_size, char *err, size_t err_size)
{
	struct run r;
	start(&r, argv);
	return finish(&r, out, out_size, err, err_size);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_check__prints_the_summary_of_a_good_route(void **state)
{
	(void)state;
	char path[512], out[4096], err[4096];
	snprintf(path, sizeof path, "%s/routes/smoke.route", getenv("RXDECK_SOURCE_ROOT"));
	char *argv[] = { "rxdeck", "route", "check", path, NULL };
	assert_int_equal(run(argv, out, sizeof out, err, sizeof err), 0);
	assert_non_null(strstr(out, "route 'smoke' is good"));
	assert_non_null(strstr(out, "duration  12s"));
	assert_non_null(strstr(out, "window    2s to 11s (9s)"));
	assert_non_null(strstr(out, "pad events at"));
	assert_non_null(strstr(out, "shots     3: walk at 3s"));
	assert_non_null(strstr(out, "marks"));
	assert_string_equal(err, "");
}

static void test_check__prints_every_error_and_exits_1(void **state)
{
	(void)state;
	char path[512], inc[512], out[4096], err[4096];
	snprintf(path, sizeof path, "%s/bad.route", tmpdir);
	snprintf(inc, sizeof inc, "%s/loop.inc", tmpdir);
	write_file(path, "route bad\nduration 10s\nwindow 2s 12s\n"
	                 "1s press Q 100ms\n"
	                 "2s stick left 1.5 0\n"
	                 "3s repeat 2 every 1s {\n 0.5s press A 100ms\n 0.2s press B 1ms\n}\n"
	                 "5s include loop.inc\n");
	write_file(inc, "0s include loop.inc\n");
	char *argv[] = { "rxdeck", "route", "check", path, NULL };
	assert_int_equal(run(argv, out, sizeof out, err, sizeof err), 1);
	char want[4096];
	int wl = snprintf(want, sizeof want,
	         "%s:3:11: the window's end 12s is past the duration 10s\n"
	         "%s:4:10: unknown button 'Q' (buttons: A B X Y LB RB BACK START GUIDE LS RS)\n"
	         "%s:5:15: stick value 1.5 is out of range -1..1\n"
	         "%s:8:2: time 200ms goes back before the line above's 500ms in this repeat block\n",
	         path, path, path, path);
	assert_true(wl < (int)sizeof want);
	assert_non_null(strstr(err, want));
	wl = snprintf(want, sizeof want, "%s:1:12: include cycle: '%s' includes '%s' again", inc, inc, inc);
	assert_true(wl < (int)sizeof want);
	assert_non_null(strstr(err, want));
	assert_string_equal(out, "");

	char *missing[] = { "rxdeck", "route", "check", "/nonexistent.route", NULL };
	assert_int_equal(run(missing, out, sizeof out, err, sizeof err), 1);
	assert_string_equal(err, "cannot open route '/nonexistent.route': No such file or directory\n");

	char *none[] = { "rxdeck", "route", "check", NULL };
	assert_int_equal(run(none, out, sizeof out, err, sizeof err), 2);
	char *wrong[] = { "rxdeck", "route", "fly", NULL };
	assert_int_equal(run(wrong, out, sizeof out, err, sizeof err), 2);
	char *help[] = { "rxdeck", "route", "play", "--help", NULL };
	assert_int_equal(run(help, out, sizeof out, err, sizeof err), 0);
	assert_non_null(strstr(out, "--pad uinput|socket:PATH"));
}

static void test_play__to_the_end_with_stats(void **state)
{
	(void)state;
	char route[512], spec[256], path[256], out[8192], err[4096];
	snprintf(route, sizeof route, "%s/short.route", tmpdir);
	write_file(route, "route short\nduration 600ms\n100ms press A 100ms\n300ms shot middle\n"
	                  "400ms stick right 1 0 for 100ms\n");
	tu_socket_spec("cmd-play", spec, sizeof spec, path, sizeof path);
	char *argv[] = { "rxdeck", "route", "play", route, "--pad", spec, "--wait-client",
	                 "--stats", NULL };
	struct run r;
	start(&r, argv);
	int fd = connect_game(&r, path);
	assert_true(fd >= 0);
	struct input_event in[PAD_FRAME_MAX];
	int k, frames = 0, down = 0;
	while ((k = tu_read_frame(fd, in, PAD_FRAME_MAX, FRAME_WAIT_MS, NULL)) > 0) {
		frames++;
		down += tu_frame_value(in, k, EV_KEY, BTN_SOUTH) == 1;
	}
	assert_int_equal(k, 0);
	assert_int_equal(down, 1);
	assert_true(frames >= 5); /* state, 4 instants, neutral */
	close(fd);
	assert_int_equal(finish(&r, out, sizeof out, err, sizeof err), 0);
	assert_non_null(strstr(out, "shot middle"));
	assert_non_null(strstr(out, "played 'short' to its end"));
	assert_non_null(strstr(out, "lateness against schedule: p50 "));
	assert_non_null(strstr(out, "(4 of 4 instants written, "));
}

static void test_play__sigterm_mid_press_releases_before_the_end(void **state)
{
	(void)state;
	char route[512], spec[256], path[256], out[8192], err[4096];
	snprintf(route, sizeof route, "%s/long.route", tmpdir);
	write_file(route, "route long\nduration 60s\n100ms hold B\n100ms trigger left 1\n59s release B\n");
	tu_socket_spec("cmd-term", spec, sizeof spec, path, sizeof path);
	char *argv[] = { "rxdeck", "route", "play", route, "--pad", spec, "--wait-client", NULL };
	struct run r;
	start(&r, argv);
	int fd = connect_game(&r, path);
	assert_true(fd >= 0);
	struct input_event in[PAD_FRAME_MAX];
	int k = tu_read_frame(fd, in, PAD_FRAME_MAX, FRAME_WAIT_MS, NULL); /* the state */
	assert_true(tu_frame_is_neutral(in, k));
	k = tu_read_frame(fd, in, PAD_FRAME_MAX, FRAME_WAIT_MS, NULL);
	assert_int_equal(tu_frame_value(in, k, EV_KEY, BTN_EAST), 1);
	assert_int_equal(tu_frame_value(in, k, EV_ABS, ABS_Z), 255);

	int64_t sent = tu_now_ns();
	assert_int_equal(kill(r.pid, SIGTERM), 0);
	bool released = false;
	while ((k = tu_read_frame(fd, in, PAD_FRAME_MAX, FRAME_WAIT_MS, NULL)) > 0) {
		assert_true(tu_frame_is_neutral(in, k));
		released = true;
	}
	assert_int_equal(k, 0); /* end of file came after the release */
	assert_true(released);
	/* at the SIGTERM, not at the route's release 59 s in: half the route
	 * is the margin, whatever the machine's load */
	assert_true(tu_now_ns() - sent < 30000000000LL);
	close(fd);
	assert_int_equal(finish(&r, out, sizeof out, err, sizeof err), 4);
	assert_non_null(strstr(err, "the pad was left neutral"));
	struct stat st;
	assert_int_equal(stat(path, &st), -1);
}

static void test_play__refuses_bad_input(void **state)
{
	(void)state;
	char out[4096], err[4096], route[512];
	snprintf(route, sizeof route, "%s/routes/smoke.route", getenv("RXDECK_SOURCE_ROOT"));
	char *badpad[] = { "rxdeck", "route", "play", route, "--pad", "usb", NULL };
	assert_int_equal(run(badpad, out, sizeof out, err, sizeof err), 1);
	assert_non_null(strstr(err, "bad pad 'usb': expected 'uinput' or 'socket:PATH'"));
	char *wait[] = { "rxdeck", "route", "play", route, "--pad", "uinput", "--wait-client", NULL };
	assert_int_equal(run(wait, out, sizeof out, err, sizeof err), 2);
	char *delay[] = { "rxdeck", "route", "play", route, "--delay", "soon", NULL };
	assert_int_equal(run(delay, out, sizeof out, err, sizeof err), 2);
	assert_non_null(strstr(err, "bad delay 'soon'"));
}

static void test_record__refuses_bad_input(void **state)
{
	(void)state;
	char out[4096], err[4096], target[512];
	snprintf(target, sizeof target, "%s/exists.route", tmpdir);
	write_file(target, "x");
	char *exists[] = { "rxdeck", "route", "record", target, NULL };
	assert_int_equal(run(exists, out, sizeof out, err, sizeof err), 1);
	assert_non_null(strstr(err, "exists; use --force to replace it"));
	char *nodev[] = { "rxdeck", "route", "record", "new.route", "--device", "/nonexistent/event9", NULL };
	assert_int_equal(run(nodev, out, sizeof out, err, sizeof err), 1);
	assert_non_null(strstr(err, "cannot open device '/nonexistent/event9': No such file or directory"));
	char *notpad[] = { "rxdeck", "route", "record", "new.route", "--device", "/dev/null", NULL };
	assert_int_equal(run(notpad, out, sizeof out, err, sizeof err), 1);
	assert_non_null(strstr(err, "cannot read device '/dev/null'"));
	char *badname[] = { "rxdeck", "route", "record", "/tmp/my route.route", NULL };
	assert_int_equal(run(badname, out, sizeof out, err, sizeof err), 1);
	assert_non_null(strstr(err, "route name 'my route' may hold only"));
	assert_non_null(strstr(err, "give one with --name"));
	char *stop[] = { "rxdeck", "route", "record", "new.route", "--stop", "BACK+JUMP", NULL };
	assert_int_equal(run(stop, out, sizeof out, err, sizeof err), 2);
	assert_non_null(strstr(err, "unknown button 'JUMP'"));
	struct stat st;
	assert_int_equal(stat("new.route", &st), -1);
}

static int group_setup(void **state)
{
	(void)state;
	const char *build = getenv("RXDECK_BUILD_ROOT");
	if (!build || !getenv("RXDECK_SOURCE_ROOT"))
		return -1;
	snprintf(rxdeck, sizeof rxdeck, "%s/harness/rxdeck", build);
	const char *t = getenv("TMPDIR");
	snprintf(tmpdir, sizeof tmpdir, "%s/rxdeck-route-cmd-XXXXXX", t && *t ? t : "/tmp");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int group_teardown(void **state)
{
	(void)state;
	static const char *files[] = { "bad.route", "loop.inc", "short.route", "long.route",
	                               "exists.route" };
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		char p[600];
		snprintf(p, sizeof p, "%s/%s", tmpdir, files[i]);
		unlink(p);
	}
	rmdir(tmpdir);
	return 0;
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check__prints_the_summary_of_a_good_route),
		cmocka_unit_test(test_check__prints_every_error_and_exits_1),
		cmocka_unit_test(test_play__to_the_end_with_stats),
		cmocka_unit_test(test_play__sigterm_mid_press_releases_before_the_end),
		cmocka_unit_test(test_play__refuses_bad_input),
		cmocka_unit_test(test_record__refuses_bad_input),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
