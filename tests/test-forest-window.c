/* test-forest-window: rxdeck-forest --window on an X server of its own
 * (Xvfb, started here on a free display number and killed on every path).
 * A run of 30 frames exits 0 with 30 rows in its frame log and no
 * validation message; while a run goes on, the window's pixels are the
 * game's (not the black it was mapped with), and closing the window
 * (WM_DELETE_WINDOW) stops the game cleanly; with DISPLAY naming no server
 * the game exits non-zero saying it cannot open the display. */
#include "test-forest-util.h"
#include "test-xvfb.h"

#include <xcb/xcb.h>

static pid_t xvfb_pid;
static int display_no = -1;
static char display_env[64];

static void xvfb_stop(void)
{
	if (xvfb_pid > 0) {
		kill(xvfb_pid, SIGTERM);
		int status;
		for (int i = 0; i < 100 && waitpid(xvfb_pid, &status, WNOHANG) == 0; i++)
			ft_sleep_ms(20);
		if (waitpid(xvfb_pid, &status, WNOHANG) == 0) {
			kill(xvfb_pid, SIGKILL);
			waitpid(xvfb_pid, &status, 0);
		}
	}
	xvfb_pid = 0;
}

static void on_signal(int sig)
{
	if (xvfb_pid > 0)
		kill(xvfb_pid, SIGKILL);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Starts Xvfb on a display it proves its own (test-xvfb.h: -displayfd on
 * a free number from 500 on; a number another test took meanwhile is
 * given up for the next), answering once this returns. */
static void xvfb_start(void)
{
	if (access(TEST_XVFB, X_OK) != 0) {
		printf("skip: Xvfb is not installed (Debian: xvfb)\n");
		exit(77);
	}
	char disp[16];
	xvfb_pid = test_xvfb_start("640x480x24", disp, sizeof disp);
	if (xvfb_pid < 0) {
		xvfb_pid = 0;
		fprintf(stderr, "Xvfb did not start on a free display\n");
		exit(1);
	}
	display_no = atoi(disp + 1);
	snprintf(display_env, sizeof display_env, "DISPLAY=%s", disp);
	atexit(xvfb_stop);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
}

static void test_window__30_frames_exit_0_without_validation_messages(void **state)
{
	char log[300], env_log[320];
	ft_path(log, sizeof log, "frames.csv");
	snprintf(env_log, sizeof env_log, "RX_FRAME_LOG=%s", log);
	const char *args[] = { "--window", "--frames", "30", "--size", "320x180", "--pad", "none", NULL };
	const char *env[] = { display_env, env_log, "RX_VK_VALIDATION=1", NULL };
	char *out = ft_run("window", args, env, 0, 240);
	if (!strstr(out, "vk: window: xcb window"))
		fail_msg("the renderer did not attach the window; log:\n%s", out);
	if (strstr(out, "validation:"))
		fail_msg("the validation layer spoke; log:\n%s", out);
	size_t n;
	struct ft_row *rows = ft_frame_log(log, &n);
	size_t real = 0;
	for (size_t i = 0; i < n; i++)
		real += !rows[i].shown;
	free(rows);
	assert_int_equal(n, 30);
	assert_int_equal(real, 30);
	free(out);
	(void)state;
}

/* The game's window: the number in "xcb window 0x..." of its log. */
static uint32_t window_id(const char *log)
{
	const char *p = strstr(log, "xcb window 0x");
	assert_non_null(p);
	return (uint32_t)strtoul(p + strlen("xcb window "), NULL, 16);
}

/* Pixels of the window that are not black, out of its width * height. */
static uint64_t lit_pixels(xcb_connection_t *c, uint32_t window, uint32_t width, uint32_t height)
{
	xcb_get_image_reply_t *img = xcb_get_image_reply(
		c, xcb_get_image(c, XCB_IMAGE_FORMAT_Z_PIXMAP, window, 0, 0, (uint16_t)width, (uint16_t)height, ~0u),
		NULL);
	if (!img)
		return 0;
	const uint8_t *px = xcb_get_image_data(img);
	int len = xcb_get_image_data_length(img);
	uint64_t lit = 0;
	for (int i = 0; i + 3 < len; i += 4)
		lit += (px[i] | px[i + 1] | px[i + 2]) != 0;
	free(img);
	return lit;
}

static void test_window__shows_the_frames_and_closing_it_stops_cleanly(void **state)
{
	const char *args[] = { "--window", "--seconds", "120", "--size", "320x180", "--pad", "none", NULL };
	const char *env[] = { display_env, "RX_VK_VALIDATION=1", NULL };
	struct ft_game g;
	ft_start(&g, "window-close", args, env);
	char *log = ft_wait_log(&g, "forest: settings:", 60);
	uint32_t win = window_id(log);
	free(log);
	char disp[16];
	snprintf(disp, sizeof disp, ":%d", display_no);
	xcb_connection_t *c = xcb_connect(disp, NULL);
	assert_false(xcb_connection_has_error(c));
	/* the window is black until the first frames reach it */
	uint64_t lit = 0;
	for (int i = 0; i < 1000 && lit < 320 * 180 / 4; i++) {
		lit = lit_pixels(c, win, 320, 180);
		if (lit < 320 * 180 / 4)
			ft_sleep_ms(20);
	}
	if (lit < 320 * 180 / 4) {
		kill(g.pid, SIGKILL);
		ft_wait(&g, 10);
		fail_msg("the window shows %" PRIu64 " non-black pixels of %d after 20 s", lit, 320 * 180);
	}
	/* what a window manager sends when the window's close button is pressed */
	xcb_intern_atom_reply_t *proto =
		xcb_intern_atom_reply(c, xcb_intern_atom(c, 0, 12, "WM_PROTOCOLS"), NULL);
	xcb_intern_atom_reply_t *del =
		xcb_intern_atom_reply(c, xcb_intern_atom(c, 0, 16, "WM_DELETE_WINDOW"), NULL);
	assert_non_null(proto);
	assert_non_null(del);
	xcb_client_message_event_t ev = { .response_type = XCB_CLIENT_MESSAGE,
	                                  .format = 32,
	                                  .window = win,
	                                  .type = proto->atom };
	ev.data.data32[0] = del->atom;
	ev.data.data32[1] = XCB_CURRENT_TIME;
	free(proto);
	free(del);
	xcb_send_event(c, 0, win, XCB_EVENT_MASK_NO_EVENT, (const char *)&ev);
	xcb_flush(c);
	int rc = ft_wait(&g, 60);
	xcb_disconnect(c);
	char *out = ft_read(g.log, NULL);
	if (rc != 0 || !strstr(out, "window closed: stopping"))
		fail_msg("closing the window: exit %d; log:\n%s", rc, out ? out : "");
	if (strstr(out, "validation:"))
		fail_msg("the validation layer spoke; log:\n%s", out);
	free(out);
	(void)state;
}

static void test_window__no_server_exits_non_zero_naming_the_display(void **state)
{
	int n = test_xvfb_free_display(display_no + 1);
	assert_true(n > 0);
	char env_display[64], want[64];
	snprintf(env_display, sizeof env_display, "DISPLAY=:%d", n);
	snprintf(want, sizeof want, "cannot open display ':%d': ", n);
	const char *args[] = { "--window", "--frames", "3", "--size", "320x180", "--pad", "none", NULL };
	const char *env[] = { env_display, NULL };
	struct ft_game g;
	ft_start(&g, "no-display", args, env);
	int rc = ft_wait(&g, 60);
	char *out = ft_read(g.log, NULL);
	if (rc == 0 || !out || !strstr(out, want))
		fail_msg("with no X server: exit %d, expected non-zero and \"%s\"; log:\n%s", rc, want, out ? out : "");
	free(out);
	(void)state;
}

int main(int argc, char **argv)
{
	ft_init(argc, argv, "forest-window");
	xvfb_start();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window__30_frames_exit_0_without_validation_messages),
		cmocka_unit_test(test_window__shows_the_frames_and_closing_it_stops_cleanly),
		cmocka_unit_test(test_window__no_server_exits_non_zero_naming_the_display),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);
	xvfb_stop();
	return ft_finish(failed);
}
