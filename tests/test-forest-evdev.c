/* test-forest-evdev: rxdeck-forest reading a real evdev pad (a uinput
 * device with the xpad layout, made by this test through libevdev): found
 * as the first gamepad, walked forward in whole steps, released when the
 * device is unplugged, found again when it comes back.  Needs /dev/uinput
 * (suite kernel); exits 77 where there is none. */
#include "test-forest-util.h"

#include <libevdev/libevdev-uinput.h>
#include <libevdev/libevdev.h>
#include <math.h>

#include "forest.h"

static struct libevdev_uinput *make_pad(void)
{
	struct libevdev *dev = libevdev_new();
	libevdev_set_name(dev, "Microsoft X-Box 360 pad");
	libevdev_set_id_bustype(dev, BUS_USB);
	libevdev_set_id_vendor(dev, 0x045e);
	libevdev_set_id_product(dev, 0x028e);
	static const unsigned keys[] = { BTN_SOUTH, BTN_EAST, BTN_NORTH, BTN_WEST, BTN_TL, BTN_TR,
	                                 BTN_SELECT, BTN_START, BTN_MODE, BTN_THUMBL, BTN_THUMBR };
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		libevdev_enable_event_code(dev, EV_KEY, keys[i], NULL);
	struct input_absinfo stick = { .minimum = -32768, .maximum = 32767 };
	struct input_absinfo trigger = { .minimum = 0, .maximum = 255 };
	struct input_absinfo hat = { .minimum = -1, .maximum = 1 };
	libevdev_enable_event_code(dev, EV_ABS, ABS_X, &stick);
	libevdev_enable_event_code(dev, EV_ABS, ABS_Y, &stick);
	libevdev_enable_event_code(dev, EV_ABS, ABS_RX, &stick);
	libevdev_enable_event_code(dev, EV_ABS, ABS_RY, &stick);
	libevdev_enable_event_code(dev, EV_ABS, ABS_Z, &trigger);
	libevdev_enable_event_code(dev, EV_ABS, ABS_RZ, &trigger);
	libevdev_enable_event_code(dev, EV_ABS, ABS_HAT0X, &hat);
	libevdev_enable_event_code(dev, EV_ABS, ABS_HAT0Y, &hat);
	struct libevdev_uinput *ui = NULL;
	int rc = libevdev_uinput_create_from_device(dev, LIBEVDEV_UINPUT_OPEN_MANAGED, &ui);
	libevdev_free(dev);
	if (rc < 0)
		fail_msg("cannot create a uinput pad: %s", strerror(-rc));
	return ui;
}

static void stick(struct libevdev_uinput *ui, unsigned code, int value)
{
	libevdev_uinput_write_event(ui, EV_ABS, code, value);
	libevdev_uinput_write_event(ui, EV_SYN, SYN_REPORT, 0);
}

/* The z (metres) and frame of the last position line. */
static double last_z(struct ft_game *g, uint64_t *frame)
{
	char *log = ft_read(g->log, NULL);
	double z = 0;
	*frame = 0;
	for (const char *p = log; p && (p = strstr(p, "forest: frame ")); p++) {
		uint64_t f;
		double x, zz;
		if (sscanf(p, "forest: frame %" SCNu64 " position x %lf z %lf", &f, &x, &zz) == 3) {
			*frame = f;
			z = zz;
		}
	}
	free(log);
	return z;
}

static double after_frames(struct ft_game *g, uint64_t n)
{
	uint64_t f0, f;
	last_z(g, &f0);
	uint64_t t0 = ft_now_ns();
	for (;;) {
		double z = last_z(g, &f);
		if (f >= f0 + n)
			return z;
		if (ft_now_ns() - t0 > 60000000000ull)
			fail_msg("the game stepped no %" PRIu64 " frames in 60 s", n);
		ft_sleep_ms(10);
	}
}

static void test_evdev__found_walked_unplugged_and_found_again(void **state)
{
	struct libevdev_uinput *ui = make_pad();
	const char *node = libevdev_uinput_get_devnode(ui);
	if (!node)
		fail_msg("the uinput pad has no device node (is sysfs mounted?)");
	const char *args[] = { "--size", "128x72", "--draws", "160", "--job-ms", "0.2", "--log-every", "1",
	                       "--pad", "auto", NULL };
	struct ft_game g;
	ft_start(&g, "evdev", args, NULL);
	char *log = ft_wait_log(&g, "pad connected: '", 30);
	char want[300];
	snprintf(want, sizeof want, "pad connected: '%s'", node);
	if (!strstr(log, want)) {
		kill(g.pid, SIGKILL);
		ft_wait(&g, 10);
		printf("skip: another gamepad comes first under /dev/input:\n%s\n", log);
		free(log);
		libevdev_uinput_destroy(ui);
		exit(77);
	}
	free(log);
	after_frames(&g, 3);
	stick(ui, ABS_Y, -32767);
	after_frames(&g, 8);
	stick(ui, ABS_Y, 0);
	double z1 = after_frames(&g, 3);
	long z1_mm = lround(z1 * 1000);
	assert_true(z1_mm <= -7 * FOREST_WALK_MM);
	assert_int_equal(z1_mm % FOREST_WALK_MM, 0);

	/* unplugged with the stick held: every button and axis released */
	stick(ui, ABS_Y, -32767);
	after_frames(&g, 3);
	libevdev_uinput_destroy(ui);
	free(ft_wait_log(&g, "disconnected", 30));
	double z2 = after_frames(&g, 3), z3 = after_frames(&g, 10);
	assert_true(z2 == z3);
	ui = make_pad();
	uint64_t t0 = ft_now_ns();
	for (;;) {
		log = ft_read(g.log, NULL);
		const char *first = strstr(log, "pad connected: '");
		bool again = first && strstr(first + 1, "pad connected: '");
		free(log);
		if (again)
			break;
		if (ft_now_ns() - t0 > 30000000000ull)
			fail_msg("the pad was not found again after it came back");
		ft_sleep_ms(50);
	}
	stick(ui, ABS_Y, -32767);
	double z4 = after_frames(&g, 8);
	stick(ui, ABS_Y, 0);
	assert_true(z4 < z3);
	kill(g.pid, SIGTERM);
	assert_int_equal(ft_wait(&g, 60), 0);
	libevdev_uinput_destroy(ui);
	(void)state;
}

int main(int argc, char **argv)
{
	if (access("/dev/uinput", W_OK) != 0) {
		printf("skip: /dev/uinput cannot be opened for writing (%s)\n", strerror(errno));
		return 77;
	}
	ft_init(argc, argv, "forest-evdev");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_evdev__found_walked_unplugged_and_found_again),
	};
	return ft_finish(cmocka_run_group_tests(tests, NULL, NULL));
}
