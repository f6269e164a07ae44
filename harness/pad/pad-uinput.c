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

struct pad_uinput {
	struct pad base;
	struct libevdev *dev;
	struct libevdev_uinput *ui;
	int ui_fd;
	char *devnode;
};

static struct pad_uinput *uinput_of(const struct pad *pad)
{
	return (struct pad_uinput *)pad;
}

static int uinput_open(struct pad_uinput *pad)
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

static int uinput_write(struct pad *base, struct input_event *ev, size_t n, bool must)
{
	(void)must; /* the kernel never makes a frame wait */
	struct pad_uinput *pad = uinput_of(base);
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

static void uinput_close(struct pad *base)
{
	struct pad_uinput *pad = uinput_of(base);
	if (pad->ui && !base->in_child)
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

static size_t uinput_child_fds(const struct pad *pad, int *keep, size_t n)
{
	if (uinput_of(pad)->ui_fd >= 0)
		keep[n++] = uinput_of(pad)->ui_fd;
	return n;
}

static const char *uinput_devnode(const struct pad *pad)
{
	return uinput_of(pad)->devnode;
}

static bool uinput_is_open(const struct pad *pad)
{
	return uinput_of(pad)->ui != NULL;
}

static const struct pad_impl uinput_impl = {
	.name = "uinput",
	.write = uinput_write,
	.close = uinput_close,
	.child_fds = uinput_child_fds,
	.devnode = uinput_devnode,
	.is_open = uinput_is_open,
};

int pad_uinput_create(struct pad **out)
{
	struct pad_uinput *pad = calloc(1, sizeof *pad);
	if (!pad)
		return -ENOMEM;
	pad->ui_fd = -1;
	int r = pad_init(&pad->base, &uinput_impl);
	if (r == 0)
		r = uinput_open(pad);
	if (r < 0) {
		pad_destroy(&pad->base);
		return r;
	}
	*out = &pad->base;
	return 0;
}
