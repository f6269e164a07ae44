/* test-run-shot: window shots (run-shot.c).  Without X the shot is
 * "unsupported: ..." with the reason (no DISPLAY; Wayland without X).
 * Under an Xvfb of the test's own, a child process in a process group of
 * its own maps a window filled with one colour, once without _NET_WM_PID
 * (found through X-Resource, as vkcube's) and once with it: the shot of
 * that group is the window, its luma and checksum those of the same
 * picture written as a PNG by other means, and a group with no window gets
 * "no window".  The X part skips (77) without Xvfb. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <png.h>
#include <signal.h>
#include <sys/wait.h>
#include <xcb/xcb.h>

#include "run/run-private.h"
#include "test-run-util.h"
#include "test-xvfb.h"


static void test_run_shot__unsupported_without_x(void **state)
{
	(void)state;
	char why[300];
	unsetenv("WAYLAND_DISPLAY");
	assert_int_equal(run_window_shot(NULL, getpgrp(), "/nonexistent/x.png", why, sizeof why), -ENOTSUP);
	assert_string_equal(why, "unsupported: window shots need X (DISPLAY is not set)");
	setenv("WAYLAND_DISPLAY", "wayland-0", 1);
	assert_int_equal(run_window_shot("", getpgrp(), "/nonexistent/x.png", why, sizeof why), -ENOTSUP);
	assert_non_null(strstr(why, "unsupported: window shots need X, and the game runs under Wayland"));
	unsetenv("WAYLAND_DISPLAY");
}

static char display[32];
static pid_t xvfb = -1;

/* A child in its own process group: a 64x48 window of one colour, mapped,
 * with _NET_WM_PID or not; it says "ready" on the pipe and waits. */
static pid_t window_child(uint32_t rgb, bool net_wm_pid)
{
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		close(fds[0]);
		xcb_connection_t *c = xcb_connect(display, NULL);
		if (xcb_connection_has_error(c)) {
			fprintf(stderr, "cannot connect to the X display '%s': xcb error %d\n", display,
			        xcb_connection_has_error(c));
			_exit(1);
		}
		xcb_screen_t *s = xcb_setup_roots_iterator(xcb_get_setup(c)).data;
		xcb_window_t w = xcb_generate_id(c);
		uint32_t values[] = { rgb, 1 };
		xcb_create_window(c, XCB_COPY_FROM_PARENT, w, s->root, 10, 10, 64, 48, 0,
		                  XCB_WINDOW_CLASS_INPUT_OUTPUT, s->root_visual,
		                  XCB_CW_BACK_PIXEL | XCB_CW_OVERRIDE_REDIRECT, values);
		if (net_wm_pid) {
			xcb_intern_atom_reply_t *a =
				xcb_intern_atom_reply(c, xcb_intern_atom(c, 0, 11, "_NET_WM_PID"), NULL);
			uint32_t me = (uint32_t)getpid();
			xcb_change_property(c, XCB_PROP_MODE_REPLACE, w, a->atom, XCB_ATOM_CARDINAL, 32, 1, &me);
			free(a);
		}
		xcb_map_window(c, w);
		xcb_clear_area(c, 0, w, 0, 0, 64, 48);
		free(xcb_get_input_focus_reply(c, xcb_get_input_focus(c), NULL)); /* all done */
		if (write(fds[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(fds[1]);
	char r;
	assert_int_equal(read(fds[0], &r, 1), 1);
	close(fds[0]);
	setpgid(pid, pid);
	return pid;
}

static void stop_child(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* The same picture as a PNG written here: its luma and checksum. */
static void expected_stats(uint32_t rgb, double *luma, char sum[17])
{
	uint8_t px[64 * 48 * 4];
	for (size_t i = 0; i < 64 * 48; i++) {
		px[i * 4] = (uint8_t)(rgb >> 16);
		px[i * 4 + 1] = (uint8_t)(rgb >> 8);
		px[i * 4 + 2] = (uint8_t)rgb;
		px[i * 4 + 3] = 255;
	}
	struct tdir t;
	tdir_make(&t);
	char p[PATH_MAX], msg[256];
	png_image img;
	memset(&img, 0, sizeof img);
	img.version = PNG_IMAGE_VERSION;
	img.width = 64;
	img.height = 48;
	img.format = PNG_FORMAT_RGBA;
	assert_true(png_image_write_to_file(&img, tdir_file(&t, "want.png", p, sizeof p), 0, px, 0, NULL));
	assert_int_equal(run_png_stats(p, luma, sum, msg, sizeof msg), 0);
	tdir_remove(&t);
}

static void test_run_shot__the_window_of_the_group(void **state)
{
	(void)state;
	const struct {
		uint32_t rgb;
		bool net_wm_pid;
	} cases[] = { { 0x3080c0, false }, { 0xe0a020, true } };
	for (size_t k = 0; k < 2; k++) {
		pid_t child = window_child(cases[k].rgb, cases[k].net_wm_pid);
		struct tdir t;
		tdir_make(&t);
		char png[PATH_MAX], why[300] = "", sum[17], want_sum[17];
		double luma, want_luma;
		int rc = run_window_shot(display, child, tdir_file(&t, "shot.png", png, sizeof png), why,
		                         sizeof why);
		if (rc != 0)
			fail_msg("case %zu: %d %s", k, rc, why);
		char msg[256];
		assert_int_equal(run_png_stats(png, &luma, sum, msg, sizeof msg), 0);
		expected_stats(cases[k].rgb, &want_luma, want_sum);
		assert_true(luma > 0);
		if (fabs(luma - want_luma) > 1e-9 || strcmp(sum, want_sum) != 0)
			fail_msg("case %zu: luma %.3f checksum %s, want %.3f %s", k, luma, sum, want_luma, want_sum);
		/* another group has no window */
		assert_int_equal(run_window_shot(display, getpgrp(), png, why, sizeof why), -ENOENT);
		assert_non_null(strstr(why, "no window of the game's processes"));
		stop_child(child);
		tdir_remove(&t);
	}
}

int main(void)
{
	const struct CMUnitTest without_x[] = {
		cmocka_unit_test(test_run_shot__unsupported_without_x),
	};
	int rc = cmocka_run_group_tests(without_x, NULL, NULL);
	if (rc != 0)
		return rc;
	if ((xvfb = test_xvfb_start("320x240x24", display, sizeof display)) < 0) {
		printf("skip: no Xvfb to take window shots in (%s)\n", TEST_XVFB);
		return 77;
	}
	const struct CMUnitTest with_x[] = {
		cmocka_unit_test(test_run_shot__the_window_of_the_group),
	};
	rc = cmocka_run_group_tests(with_x, NULL, NULL);
	test_xvfb_stop(xvfb);
	return rc;
}
