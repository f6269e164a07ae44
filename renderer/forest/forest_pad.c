/* forest_pad: reading the pad.  Two device layers, one path after them:
 * evdev devices through libevdev (a path, or the first gamepad found) and
 * the harness's pad socket (SOCK_SEQPACKET messages of struct input_event
 * records) both hand records to the decoder, which commits a state at each
 * SYN_REPORT.  A pad that is missing or goes away (hot-unplug, the socket's
 * end of file) leaves a neutral state and is retried every second.  It does
 * not interpret the state: the simulation does (forest_sim.c). */
#include "forest.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libevdev/libevdev.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define RETRY_NS 1000000000ull
#define SOCKET_RECORDS 256

/* ---- the decoder: records in, states out ---- */

static int32_t clamp(int32_t v, int32_t lo, int32_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

void forest_pad_decoder_reset(struct forest_pad_decoder *d)
{
	*d = (struct forest_pad_decoder){ 0 };
}

int forest_pad_decoder_apply(struct forest_pad_decoder *d, const struct input_event *ev)
{
	switch (ev->type) {
	case EV_SYN:
		if (ev->code == SYN_REPORT) {
			d->state = d->pending;
			d->frames++;
			return 1;
		}
		if (ev->code == SYN_DROPPED)
			d->pending = (struct forest_pad_state){ 0 };
		return 0;
	case EV_KEY: {
		int b = forest_button_index(ev->code);
		if (b < 0) {
			d->ignored++;
			return 0;
		}
		if (ev->value)
			d->pending.buttons |= 1u << b;
		else
			d->pending.buttons &= ~(1u << b);
		return 0;
	}
	case EV_ABS: {
		int a = forest_axis_index(ev->code);
		if (a < 0) {
			d->ignored++;
			return 0;
		}
		int32_t v = ev->value;
		if (a == FOREST_AXIS_LT || a == FOREST_AXIS_RT)
			v = clamp(v, 0, FOREST_TRIGGER_MAX);
		else if (a == FOREST_AXIS_HATX || a == FOREST_AXIS_HATY)
			v = clamp(v, -1, 1);
		else
			v = clamp(v, FOREST_STICK_MIN, FOREST_STICK_MAX);
		d->pending.axis[a] = v;
		return 0;
	}
	default:
		d->ignored++;
		return 0;
	}
}

int forest_pad_decode_message(struct forest_pad_decoder *d, const void *msg, size_t len)
{
	if (len % sizeof(struct input_event))
		return -EPROTO;
	int frames = 0;
	for (size_t off = 0; off < len; off += sizeof(struct input_event)) {
		struct input_event ev;
		memcpy(&ev, (const uint8_t *)msg + off, sizeof ev);
		frames += forest_pad_decoder_apply(d, &ev);
	}
	return frames;
}

/* ---- the device layers ---- */

enum pad_kind { PAD_NONE, PAD_AUTO, PAD_EVDEV, PAD_SOCKET };

struct forest_pad {
	enum pad_kind kind;
	char *spec;
	char *path;                 /* device or socket path; NULL for auto until found */
	struct forest_log *log;
	int fd;
	struct libevdev *dev;
	struct forest_pad_decoder dec;
	uint64_t next_retry_ns;     /* 0: try at the next poll */
	uint64_t connections;
	bool reported_missing;      /* one line per disconnection, not one a second */
};

int forest_pad_create(const char *spec, struct forest_log *log, struct forest_pad **out)
{
	if (!spec)
		spec = "auto";
	struct forest_pad *pad = calloc(1, sizeof *pad);
	if (!pad)
		return -ENOMEM;
	pad->fd = -1;
	pad->log = log;
	pad->spec = strdup(spec);
	if (!strcmp(spec, "none")) {
		pad->kind = PAD_NONE;
	} else if (!strcmp(spec, "auto")) {
		pad->kind = PAD_AUTO;
	} else if (!strncmp(spec, "socket:", 7)) {
		pad->kind = PAD_SOCKET;
		pad->path = strdup(spec + 7);
		if (pad->path && (!pad->path[0] || strlen(pad->path) >= sizeof(((struct sockaddr_un *)0)->sun_path))) {
			forest_pad_destroy(pad);
			return -EINVAL;
		}
	} else if (spec[0] == '/') {
		pad->kind = PAD_EVDEV;
		pad->path = strdup(spec);
	} else {
		forest_pad_destroy(pad);
		return -EINVAL;
	}
	if (!pad->spec || (pad->kind >= PAD_EVDEV && !pad->path)) {
		forest_pad_destroy(pad);
		return -ENOMEM;
	}
	*out = pad;
	return 0;
}

static void close_device(struct forest_pad *pad)
{
	if (pad->dev)
		libevdev_free(pad->dev);
	pad->dev = NULL;
	if (pad->fd >= 0)
		close(pad->fd);
	pad->fd = -1;
	if (pad->kind == PAD_AUTO) {
		free(pad->path);
		pad->path = NULL;
	}
}

void forest_pad_destroy(struct forest_pad *pad)
{
	if (!pad)
		return;
	close_device(pad);
	free(pad->spec);
	free(pad->path);
	free(pad);
}

int forest_pad_fd(const struct forest_pad *pad)
{
	return pad ? pad->fd : -1;
}

uint64_t forest_pad_connections(const struct forest_pad *pad)
{
	return pad ? pad->connections : 0;
}

void forest_pad_state(const struct forest_pad *pad, struct forest_pad_state *out)
{
	if (pad && pad->fd >= 0)
		*out = pad->dec.state;
	else
		*out = (struct forest_pad_state){ 0 };
}

static void disconnect(struct forest_pad *pad, uint64_t now_ns, const char *why)
{
	forest_log(pad->log, "pad '%s' disconnected (%s); every button released, retrying every second",
	           pad->path ? pad->path : pad->spec, why);
	close_device(pad);
	forest_pad_decoder_reset(&pad->dec);
	pad->next_retry_ns = now_ns + RETRY_NS;
	pad->reported_missing = true;
}

/* An evdev value scaled to the layout's range for its axis. */
static int32_t normalise(const struct libevdev *dev, uint16_t code, int32_t v)
{
	int a = forest_axis_index(code);
	const struct input_absinfo *ai = libevdev_get_abs_info(dev, code);
	if (a < 0 || !ai || ai->maximum <= ai->minimum)
		return v;
	int64_t span = (int64_t)ai->maximum - ai->minimum, off = (int64_t)v - ai->minimum;
	if (a == FOREST_AXIS_LT || a == FOREST_AXIS_RT)
		return (int32_t)(off * FOREST_TRIGGER_MAX / span);
	if (a == FOREST_AXIS_HATX || a == FOREST_AXIS_HATY)
		return v < 0 ? -1 : v > 0 ? 1 : 0;
	if (ai->minimum == FOREST_STICK_MIN && ai->maximum == FOREST_STICK_MAX)
		return v;
	return (int32_t)(off * (FOREST_STICK_MAX - FOREST_STICK_MIN) / span + FOREST_STICK_MIN);
}

static void apply_evdev(struct forest_pad *pad, const struct input_event *ev)
{
	struct input_event e = *ev;
	if (e.type == EV_ABS)
		e.value = normalise(pad->dev, e.code, e.value);
	forest_pad_decoder_apply(&pad->dec, &e);
}

/* After an evdev SYN_DROPPED (or at connection): the device's whole state,
 * fed as the pad socket sends it: SYN_DROPPED, every code, SYN_REPORT. */
static void evdev_full_state(struct forest_pad *pad)
{
	struct input_event ev = { .type = EV_SYN, .code = SYN_DROPPED };
	forest_pad_decoder_apply(&pad->dec, &ev);
	static const uint16_t keys[] = { BTN_SOUTH, BTN_EAST, BTN_NORTH, BTN_WEST, BTN_TL, BTN_TR,
	                                 BTN_SELECT, BTN_START, BTN_MODE, BTN_THUMBL, BTN_THUMBR };
	static const uint16_t axes[] = { ABS_X, ABS_Y, ABS_Z, ABS_RX, ABS_RY, ABS_RZ, ABS_HAT0X, ABS_HAT0Y };
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (libevdev_has_event_code(pad->dev, EV_KEY, keys[i])) {
			ev = (struct input_event){ .type = EV_KEY, .code = keys[i],
			                           .value = libevdev_get_event_value(pad->dev, EV_KEY, keys[i]) };
			apply_evdev(pad, &ev);
		}
	for (size_t i = 0; i < sizeof axes / sizeof axes[0]; i++)
		if (libevdev_has_event_code(pad->dev, EV_ABS, axes[i])) {
			ev = (struct input_event){ .type = EV_ABS, .code = axes[i],
			                           .value = libevdev_get_event_value(pad->dev, EV_ABS, axes[i]) };
			apply_evdev(pad, &ev);
		}
	ev = (struct input_event){ .type = EV_SYN, .code = SYN_REPORT };
	forest_pad_decoder_apply(&pad->dec, &ev);
}

static bool is_gamepad(const struct libevdev *dev)
{
	return libevdev_has_event_code(dev, EV_KEY, BTN_SOUTH) &&
	       libevdev_has_event_code(dev, EV_ABS, ABS_X) && libevdev_has_event_code(dev, EV_ABS, ABS_Y);
}

/* Opens an evdev device; returns 0 or a negative errno. */
static int open_evdev(struct forest_pad *pad, const char *path, bool need_gamepad)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct libevdev *dev = NULL;
	int rc = libevdev_new_from_fd(fd, &dev);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	if (need_gamepad && !is_gamepad(dev)) {
		libevdev_free(dev);
		close(fd);
		return -ENODEV;
	}
	pad->fd = fd;
	pad->dev = dev;
	if (pad->kind == PAD_AUTO) {
		free(pad->path);
		pad->path = strdup(path);
	}
	forest_pad_decoder_reset(&pad->dec);
	evdev_full_state(pad);
	forest_log(pad->log, "pad connected: '%s' (%s, %04x:%04x)", path, libevdev_get_name(dev),
	           (unsigned)libevdev_get_id_vendor(dev), (unsigned)libevdev_get_id_product(dev));
	return 0;
}

static int event_number(const struct dirent *d)
{
	return !strncmp(d->d_name, "event", 5);
}

static int find_gamepad(struct forest_pad *pad)
{
	struct dirent **names;
	int n = scandir("/dev/input", &names, event_number, versionsort);
	if (n < 0)
		return -errno;
	int rc = -ENODEV;
	for (int i = 0; i < n; i++) {
		char path[300];
		snprintf(path, sizeof path, "/dev/input/%s", names[i]->d_name);
		if (rc < 0 && open_evdev(pad, path, true) == 0)
			rc = 0;
		free(names[i]);
	}
	free(names);
	return rc;
}

static int open_socket(struct forest_pad *pad)
{
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	memcpy(sa.sun_path, pad->path, strlen(pad->path) + 1);
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		int rc = -errno;
		close(fd);
		return rc;
	}
	pad->fd = fd;
	forest_pad_decoder_reset(&pad->dec);
	forest_log(pad->log, "pad connected: socket '%s'", pad->path);
	return 0;
}

static void try_connect(struct forest_pad *pad, uint64_t now_ns)
{
	int rc;
	if (pad->kind == PAD_AUTO)
		rc = find_gamepad(pad);
	else if (pad->kind == PAD_EVDEV)
		rc = open_evdev(pad, pad->path, false);
	else
		rc = open_socket(pad);
	if (rc == 0) {
		pad->connections++;
		pad->reported_missing = false;
		return;
	}
	if (!pad->reported_missing) {
		if (pad->kind == PAD_AUTO)
			forest_log(pad->log, "no gamepad found under /dev/input; idling in place, looking again every second");
		else
			forest_log(pad->log, "cannot open pad '%s': %s; idling in place, retrying every second",
			           pad->path, strerror(-rc));
		pad->reported_missing = true;
	}
	pad->next_retry_ns = now_ns + RETRY_NS;
}

static void read_evdev(struct forest_pad *pad, uint64_t now_ns)
{
	for (;;) {
		struct input_event ev;
		int rc = libevdev_next_event(pad->dev, LIBEVDEV_READ_FLAG_NORMAL, &ev);
		if (rc == LIBEVDEV_READ_STATUS_SUCCESS) {
			apply_evdev(pad, &ev);
		} else if (rc == LIBEVDEV_READ_STATUS_SYNC) {
			/* let libevdev catch up with the device, then take its state whole */
			while ((rc = libevdev_next_event(pad->dev, LIBEVDEV_READ_FLAG_SYNC, &ev)) ==
			       LIBEVDEV_READ_STATUS_SYNC)
				;
			evdev_full_state(pad);
			if (rc != -EAGAIN && rc < 0) {
				disconnect(pad, now_ns, strerror(-rc));
				return;
			}
		} else if (rc == -EAGAIN) {
			return;
		} else {
			disconnect(pad, now_ns, strerror(-rc));
			return;
		}
	}
}

static void read_socket(struct forest_pad *pad, uint64_t now_ns)
{
	for (;;) {
		struct input_event buf[SOCKET_RECORDS];
		struct iovec iov = { buf, sizeof buf };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n = recvmsg(pad->fd, &mh, MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				disconnect(pad, now_ns, strerror(errno));
			return;
		}
		if (n == 0) {
			disconnect(pad, now_ns, "the pad socket was closed");
			return;
		}
		if (mh.msg_flags & MSG_TRUNC) {
			forest_log(pad->log, "pad socket '%s': a message over %zu bytes was cut short; its records are dropped",
			           pad->path, sizeof buf);
			continue;
		}
		if (forest_pad_decode_message(&pad->dec, buf, (size_t)n) < 0)
			forest_log(pad->log, "pad socket '%s': a message of %zd bytes is not a whole number of %zu-byte records; dropped",
			           pad->path, n, sizeof(struct input_event));
	}
}

void forest_pad_poll(struct forest_pad *pad, uint64_t now_ns)
{
	if (!pad || pad->kind == PAD_NONE)
		return;
	if (pad->fd < 0) {
		if (now_ns < pad->next_retry_ns)
			return;
		try_connect(pad, now_ns);
		if (pad->fd < 0)
			return;
	}
	if (pad->kind == PAD_SOCKET)
		read_socket(pad, now_ns);
	else
		read_evdev(pad, now_ns);
}
