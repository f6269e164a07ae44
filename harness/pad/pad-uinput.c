/* pad-uinput: the kernel backend of the pad, a uinput device made through
 * libevdev with the Xbox 360 layout of pad.h.  It owns the device's
 * creation, its frame writes (one write() per frame, SYN_REPORT last) and its
 * destruction, which only the owner process performs: a spawned child that
 * inherited the descriptor merely closes it. */
#include "pad-private.h"

#include <errno.h>
#include <libevdev/libevdev-uinput.h>
#include <libevdev/libevdev.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int pad_uinput_open(struct pad *pad)
{
	struct libevdev *dev = libevdev_new();
	if (!dev)
		return -ENOMEM;
	libevdev_set_name(dev, PAD_NAME);
	libevdev_set_id_bustype(dev, PAD_BUS);
	libevdev_set_id_vendor(dev, PAD_VENDOR);
	libevdev_set_id_product(dev, PAD_PRODUCT);
	libevdev_set_id_version(dev, PAD_VERSION);
	int r = libevdev_enable_event_type(dev, EV_KEY);
	for (int i = 0; r == 0 && i < PAD_BUTTON_COUNT; i++)
		r = libevdev_enable_event_code(dev, EV_KEY, pad_buttons[i].code, NULL);
	if (r == 0)
		r = libevdev_enable_event_type(dev, EV_ABS);
	for (int i = 0; r == 0 && i < PAD_AXIS_COUNT; i++) {
		/* fuzz and flat 0: with the kernel's default smoothing, small
		 * changes of a scripted stick would never reach the game */
		struct input_absinfo ai = {
			.value = 0,
			.minimum = pad_axes[i].min,
			.maximum = pad_axes[i].max,
			.fuzz = 0,
			.flat = 0,
			.resolution = 0,
		};
		r = libevdev_enable_event_code(dev, EV_ABS, pad_axes[i].code, &ai);
	}
	if (r != 0) {
		libevdev_free(dev);
		return -EINVAL;
	}
	struct libevdev_uinput *ui = NULL;
	r = libevdev_uinput_create_from_device(dev, LIBEVDEV_UINPUT_OPEN_MANAGED, &ui);
	if (r != 0) {
		libevdev_free(dev);
		return r < 0 ? r : -EIO;
	}
	pad->dev = dev;
	pad->ui = ui;
	pad->ui_fd = libevdev_uinput_get_fd(ui);
	const char *node = libevdev_uinput_get_devnode(ui);
	if (node) {
		pad->devnode = strdup(node);
		if (!pad->devnode)
			return -ENOMEM;
	}
	return 0;
}

int pad_uinput_write(struct pad *pad, struct input_event *ev, size_t n)
{
	if (pad->ui_fd < 0)
		return -EBADF;
	const char *p = (const char *)ev;
	size_t left = n * sizeof *ev;
	while (left > 0) {
		ssize_t w = write(pad->ui_fd, p, left);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		left -= (size_t)w;
	}
	return 0;
}

void pad_uinput_close(struct pad *pad)
{
	if (pad->ui && !pad->in_child)
		libevdev_uinput_destroy(pad->ui); /* closes ui_fd too */
	else if (pad->ui_fd >= 0)
		close(pad->ui_fd);
	pad->ui = NULL;
	pad->ui_fd = -1;
	libevdev_free(pad->dev);
	pad->dev = NULL;
	free(pad->devnode);
	pad->devnode = NULL;
}
