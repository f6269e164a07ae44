/* uinput-check: see uinput-check.h.  Plain C with no test framework, so the
 * same checks link statically into the VM's initramfs and into the kernel
 * suite's cmocka test on a host with uinput. */
#include "uinput-check.h"

#include <errno.h>
#include <fcntl.h>
#include <libevdev/libevdev.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "pad/pad.h"
#include "route/route.h"

static const char route_text[] =
	"route uinput-check\n"
	"duration 2s\n"
	"window 100ms 1.9s\n"
	"100ms press A 50ms\n"
	"120ms stick left 0.5 -1 for 300ms\n"
	"200ms trigger right 1 for 100ms\n"
	"250ms dpad up-left for 80ms\n"
	"300ms shot mid\n"
	"400ms repeat 20 every 60ms {\n"
	"  0s    press RB 20ms\n"
	"  10ms  stick right -0.25 0.75 for 30ms\n"
	"  45ms  trigger left 0.5 for 10ms\n"
	"}\n"
	"1.7s hold START\n"
	"1.8s release START\n"
	"1.85s press GUIDE 50ms\n";

struct ctx {
	const struct uinput_check_options *opt;
	int failures;
};

__attribute__((format(printf, 3, 4)))
static void check(struct ctx *c, int ok, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(c->opt->log, "%s: ", ok ? "ok" : "FAIL");
	vfprintf(c->opt->log, fmt, ap);
	fputc('\n', c->opt->log);
	va_end(ap);
	fflush(c->opt->log);
	if (!ok)
		c->failures++;
}

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int64_t ev_ns(const struct input_event *e)
{
	return (int64_t)e->input_event_sec * 1000000000LL + (int64_t)e->input_event_usec * 1000LL;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static int cmp_event(const void *x, const void *y)
{
	const struct route_event *a = x, *b = y;
	if (a->t_ms != b->t_ms)
		return a->t_ms < b->t_ms ? -1 : 1;
	if (a->type != b->type)
		return a->type < b->type ? -1 : 1;
	return (a->code > b->code) - (a->code < b->code);
}

/* Opens the pad's device node as a game would. */
static struct libevdev *open_device(struct ctx *c, struct pad *pad, int *fd)
{
	const char *node = pad_devnode(pad);
	check(c, node != NULL, "the pad has a device node (%s)", node ? node : "none");
	if (!node)
		return NULL;
	*fd = -1;
	for (int i = 0; i < 200 && *fd < 0; i++) {
		*fd = open(node, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (*fd < 0)
			usleep(10000); /* udev may still be setting it up */
	}
	check(c, *fd >= 0, "'%s' opens for reading (%s)", node, *fd >= 0 ? "yes" : strerror(errno));
	if (*fd < 0)
		return NULL;
	struct libevdev *dev = NULL;
	int r = libevdev_new_from_fd(*fd, &dev);
	check(c, r == 0, "libevdev reads '%s'", node);
	if (r != 0) {
		close(*fd);
		return NULL;
	}
	/* kernel timestamps on the schedule's clock */
	check(c, libevdev_set_clock_id(dev, CLOCK_MONOTONIC) == 0, "the device's clock is CLOCK_MONOTONIC");
	return dev;
}

static void check_identity(struct ctx *c, struct libevdev *dev)
{
	check(c, strcmp(libevdev_get_name(dev), PAD_NAME) == 0, "name '%s'", libevdev_get_name(dev));
	check(c, libevdev_get_id_bustype(dev) == BUS_USB && libevdev_get_id_vendor(dev) == 0x045e &&
	         libevdev_get_id_product(dev) == 0x028e && libevdev_get_id_version(dev) == 0x0114,
	      "ids bus %#x %04x:%04x version %#06x", libevdev_get_id_bustype(dev),
	      libevdev_get_id_vendor(dev), libevdev_get_id_product(dev), libevdev_get_id_version(dev));
	int buttons = 0;
	for (int b = 0; b < PAD_BUTTON_COUNT; b++)
		buttons += libevdev_has_event_code(dev, EV_KEY, pad_buttons[b].code);
	check(c, buttons == PAD_BUTTON_COUNT, "all %d buttons of the xpad layout (%d)",
	      PAD_BUTTON_COUNT, buttons);
	int extra = 0;
	for (unsigned k = 0; k < KEY_CNT; k++)
		if (libevdev_has_event_code(dev, EV_KEY, k) && pad_button_index((uint16_t)k) < 0)
			extra++;
	check(c, extra == 0, "no other keys (%d)", extra);
	for (int a = 0; a < PAD_AXIS_COUNT; a++) {
		const struct input_absinfo *ai = libevdev_get_abs_info(dev, pad_axes[a].code);
		check(c, ai && ai->minimum == pad_axes[a].min && ai->maximum == pad_axes[a].max &&
		         ai->fuzz == 0 && ai->flat == 0 && ai->value == 0,
		      "axis %s: %d..%d fuzz %d flat %d", libevdev_event_code_get_name(EV_ABS, pad_axes[a].code),
		      ai ? ai->minimum : 0, ai ? ai->maximum : 0, ai ? ai->fuzz : -1, ai ? ai->flat : -1);
	}
}

/* Plays the route, reads it back frame by frame, and records it. */
static void check_playback(struct ctx *c, struct pad *pad, struct libevdev *dev, int fd,
                           const struct route *route)
{
	struct route_player *pl;
	if (route_player_create(route, pad, &pl) != 0 || route_player_arm(pl) != 0) {
		check(c, 0, "the player starts");
		return;
	}
	int64_t t0 = now_ns() + 300000000LL;
	struct route_recorder *rec = NULL;
	struct route_record_config rcfg = { .t0_ns = t0,
		.stop_buttons = (1u << PAD_BUTTON_LS) | (1u << PAD_BUTTON_RS) };
	route_recorder_create(&rcfg, &rec);
	for (int a = 0; a < PAD_AXIS_COUNT; a++) {
		const struct input_absinfo *ai = libevdev_get_abs_info(dev, pad_axes[a].code);
		route_recorder_set_axis(rec, pad_axes[a].code, ai->minimum, ai->maximum);
	}
	route_player_start(pl, t0);

	size_t n;
	const struct route_event *ev = route_events(route, &n);
	size_t next = 0, frames = 0, instants = route_instant_count(route);
	int64_t *late = calloc(instants + 1, sizeof *late);
	int mismatches = 0, extra = 0;
	bool ended = false;
	int64_t give_up = t0 + route_duration_ms(route) * 1000000LL + 5000000000LL;
	struct input_event frame[64];
	int nf = 0;
	while (now_ns() < give_up) {
		struct pollfd p[2] = { { .fd = fd, .events = POLLIN },
		                       { .fd = route_player_fd(pl), .events = POLLIN } };
		poll(p, 2, 100);
		struct input_event e;
		int r;
		while ((r = libevdev_next_event(dev, LIBEVDEV_READ_FLAG_NORMAL, &e)) == 0) {
			route_recorder_feed(rec, &e);
			if (e.type != EV_SYN) {
				if (nf < 64)
					frame[nf++] = e;
				continue;
			}
			if (e.code != SYN_REPORT || nf == 0)
				continue;
			/* one frame: the route's next instant */
			while (next < n && ev[next].type != ROUTE_EVENT_KEY && ev[next].type != ROUTE_EVENT_ABS)
				next++;
			if (next >= n) {
				extra++;
				nf = 0;
				continue;
			}
			int64_t t_ms = ev[next].t_ms;
			for (int i = 0; i < nf; i++) {
				while (next < n && ev[next].type != ROUTE_EVENT_KEY && ev[next].type != ROUTE_EVENT_ABS)
					next++;
				if (next >= n || ev[next].t_ms != t_ms ||
				    frame[i].type != (ev[next].type == ROUTE_EVENT_KEY ? EV_KEY : EV_ABS) ||
				    frame[i].code != ev[next].code || frame[i].value != ev[next].value) {
					if (mismatches++ < 5)
						fprintf(c->opt->log, "  frame at %lld ms: got %s %d, wanted %s %d\n",
						        (long long)t_ms,
						        libevdev_event_code_get_name(frame[i].type, frame[i].code),
						        frame[i].value,
						        next < n ? libevdev_event_code_get_name(
						                           ev[next].type == ROUTE_EVENT_KEY ? EV_KEY : EV_ABS,
						                           ev[next].code)
						                 : "nothing",
						        next < n ? ev[next].value : 0);
				}
				if (next < n)
					next++;
			}
			if (frames < instants)
				late[frames] = ev_ns(&e) - (t0 + t_ms * 1000000LL);
			frames++;
			nf = 0;
		}
		if (r == -ENODEV) {
			check(c, 0, "the device stays while the route plays");
			break;
		}
		struct route_notice no;
		while (route_player_next(pl, &no) == 0)
			if (no.type == ROUTE_NOTICE_END || no.type == ROUTE_NOTICE_STOPPED ||
			    no.type == ROUTE_NOTICE_DIED)
				ended = true;
		if (ended && next >= n)
			break;
		if (ended && now_ns() > t0 + route_duration_ms(route) * 1000000LL + 1000000000LL)
			break;
	}
	check(c, ended, "the route played to its end");
	check(c, frames == instants && mismatches == 0 && extra == 0,
	      "the device gave %zu frames for the route's %zu instants, with %d wrong events and "
	      "%d frames too many", frames, instants, mismatches, extra);
	size_t k = frames < instants ? frames : instants;
	if (k > 0) {
		qsort(late, k, sizeof *late, cmp_i64);
		int64_t p50 = late[(k * 50 + 99) / 100 - 1], p99 = late[(k * 99 + 99) / 100 - 1];
		struct route_player_stats st;
		route_player_stats(pl, &st);
		check(c, late[0] >= 0, "no frame is early (the earliest is %.3f ms late)", late[0] / 1e6);
		check(c, p99 <= c->opt->late_p99_max_ns,
		      "lateness by the kernel's timestamps: p50 %.3f ms, p99 %.3f ms, max %.3f ms "
		      "(at most %.3f ms at p99; player at %s priority)",
		      p50 / 1e6, p99 / 1e6, late[k - 1] / 1e6, c->opt->late_p99_max_ns / 1e6,
		      st.realtime ? "real-time" : "normal");
	}

	/* the recording of the playback reads back to the same events */
	route_recorder_finish(rec, t0 + route_duration_ms(route) * 1000000LL);
	char *text = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&text, &len);
	int w = route_recorder_write(rec, mf, "uinput-check", 0, 0, NULL);
	fclose(mf);
	struct route *again = NULL;
	struct util_diag err;
	int pr = w == 0 ? route_parse("recorded.route", text, len, NULL, &again, &err) : -EINVAL;
	check(c, pr == 0, "the recording of the playback is a good route");
	if (pr == 0) {
		/* compared instant by instant as sets: the order within one frame
		 * carries no meaning */
		size_t n2;
		const struct route_event *ev2 = route_events(again, &n2);
		struct route_event *a = calloc(n + 1, sizeof *a), *b = calloc(n2 + 1, sizeof *b);
		size_t na = 0, nb = 0, same = 0;
		for (size_t i = 0; i < n; i++)
			if (ev[i].type == ROUTE_EVENT_KEY || ev[i].type == ROUTE_EVENT_ABS)
				a[na++] = ev[i];
		for (size_t i = 0; i < n2; i++)
			b[nb++] = ev2[i];
		qsort(a, na, sizeof *a, cmp_event);
		qsort(b, nb, sizeof *b, cmp_event);
		int64_t slack_ms = k > 0 ? (late[k - 1] + 500000) / 1000000 : 0;
		for (size_t i = 0; i < na && i < nb; i++) {
			bool ok = a[i].type == b[i].type && a[i].code == b[i].code &&
			          a[i].value == b[i].value && b[i].t_ms >= a[i].t_ms &&
			          b[i].t_ms <= a[i].t_ms + slack_ms;
			if (!ok && i - same < 5)
				fprintf(c->opt->log, "  recorded %s %d at %lld ms, played %s %d at %lld ms\n",
				        libevdev_event_code_get_name(b[i].type == ROUTE_EVENT_KEY ? EV_KEY : EV_ABS, b[i].code),
				        b[i].value, (long long)b[i].t_ms,
				        libevdev_event_code_get_name(a[i].type == ROUTE_EVENT_KEY ? EV_KEY : EV_ABS, a[i].code),
				        a[i].value, (long long)a[i].t_ms);
			same += ok;
		}
		check(c, same == na && nb == na,
		      "the recording gives the route's %zu pad events back (%zu match, %zu recorded)",
		      na, same, nb);
		free(a);
		free(b);
		route_free(again);
	}
	free(text);
	free(late);
	route_recorder_destroy(rec);
	route_player_destroy(pl);
}

/* SIGKILL of the playing process: the owner releases everything, and the
 * device stays. */
static void check_sigkill(struct ctx *c, struct pad *pad, struct libevdev *dev, int fd)
{
	static const char text[] = "route hold\nduration 30s\n100ms hold X\n100ms stick right 1 -1\n"
	                           "100ms trigger left 1\n29s release X\n";
	struct route *route = NULL;
	struct util_diag err;
	struct route_player *pl = NULL;
	if (route_parse("hold.route", text, sizeof text - 1, NULL, &route, &err) != 0 ||
	    route_player_create(route, pad, &pl) != 0 || route_player_start(pl, 0) != 0) {
		check(c, 0, "the hold route starts");
		route_free(route);
		return;
	}
	/* wait for the press */
	bool held = false;
	int64_t until = now_ns() + 3000000000LL;
	struct input_event e;
	while (!held && now_ns() < until) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		poll(&p, 1, 50);
		while (libevdev_next_event(dev, LIBEVDEV_READ_FLAG_NORMAL, &e) == 0)
			if (e.type == EV_KEY && e.code == BTN_NORTH && e.value == 1)
				held = true;
	}
	check(c, held, "X is held");
	kill(route_player_pid(pl), SIGKILL);
	int64_t killed = now_ns();
	bool released = false, centred = false, trig = false, gone = false;
	until = now_ns() + 3000000000LL;
	while (!(released && centred && trig) && now_ns() < until) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		poll(&p, 1, 50);
		int r;
		while ((r = libevdev_next_event(dev, LIBEVDEV_READ_FLAG_NORMAL, &e)) == 0) {
			released |= e.type == EV_KEY && e.code == BTN_NORTH && e.value == 0;
			centred |= e.type == EV_ABS && e.code == ABS_RY && e.value == 0;
			trig |= e.type == EV_ABS && e.code == ABS_Z && e.value == 0;
		}
		gone |= r == -ENODEV;
	}
	check(c, released && centred && trig && !gone,
	      "after SIGKILL of the playing process the device released X and centred the axes "
	      "in %.1f ms, and is still there", (now_ns() - killed) / 1e6);
	struct route_notice no;
	int r = route_player_wait(pl, 3000, &no);
	check(c, r == 0 && no.type == ROUTE_NOTICE_DIED, "the player says its process died");
	route_player_destroy(pl);
	route_free(route);
}

/* `rxdeck route record` from the pad while a route plays into it, ended by
 * the route's own LS+RS: the file holds the route without the combination. */
static void check_record_command(struct ctx *c, struct pad *pad)
{
	static const char text[] = "route rec\nduration 1.5s\n"
	                           "100ms press A 100ms\n"
	                           "300ms stick left -1 0 for 200ms\n"
	                           "600ms trigger left 0.5 for 100ms\n"
	                           "800ms dpad down for 100ms\n"
	                           "1s press LS 200ms\n"
	                           "1.05s press RS 100ms\n";
	const char *out = "/tmp/rxdeck-uinput-record.route";
	unlink(out);
	int pipefd[2];
	if (pipe(pipefd) != 0)
		return;
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(pipefd[1], 1);
		close(pipefd[0]);
		char *argv[] = { "route", "record", (char *)out, "--device", (char *)pad_devnode(pad),
		                 "--stop", "LS+RS", NULL };
		_exit(cmd_route(7, argv, &(struct cmd_context){ .command = "rxdeck route" }));
	}
	close(pipefd[1]);
	/* the command says "recording ..." once it reads the device */
	char said[4096];
	size_t got = 0;
	int64_t until = now_ns() + 5000000000LL;
	while (got < sizeof said - 1 && !memchr(said, '\n', got) && now_ns() < until) {
		struct pollfd p = { .fd = pipefd[0], .events = POLLIN };
		if (poll(&p, 1, 100) > 0) {
			ssize_t r = read(pipefd[0], said + got, sizeof said - 1 - got);
			if (r <= 0)
				break;
			got += (size_t)r;
		}
	}
	said[got] = 0;
	check(c, strstr(said, "recording 'rxdeck-uinput-record'") != NULL,
	      "rxdeck route record starts (%.*s)", (int)strcspn(said, "\n"), said);

	struct route *route = NULL;
	struct util_diag err;
	struct route_player *pl = NULL;
	route_parse("rec.route", text, sizeof text - 1, NULL, &route, &err);
	if (route && route_player_create(route, pad, &pl) == 0 && route_player_start(pl, 0) == 0) {
		struct route_notice no;
		while (route_player_wait(pl, 5000, &no) == 0 &&
		       (no.type == ROUTE_NOTICE_SHOT || no.type == ROUTE_NOTICE_MARK))
			;
	}
	struct route_player_stats st = { 0 };
	if (pl)
		route_player_stats(pl, &st);
	int status = -1;
	for (int i = 0; i < 500 && waitpid(pid, &status, WNOHANG) == 0; i++)
		usleep(10000);
	if (waitpid(pid, &status, WNOHANG) == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	ssize_t r;
	while ((r = read(pipefd[0], said, sizeof said - 1)) > 0) {
		said[r] = 0;
		fputs(said, c->opt->log);
	}
	close(pipefd[0]);
	check(c, WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "rxdeck route record ended on LS+RS and exited 0");

	struct route *rec = NULL;
	int lr = route_load(out, &rec, &err);
	check(c, lr == 0, "the recorded file passes route check");
	if (lr == 0) {
		/* the recording's t0 is when the command started, a little
		 * before the route's: every event is off by the same amount,
		 * within the player's lateness */
		static const struct { uint16_t type, code; int32_t value; int64_t t; } want[] = {
			{ EV_KEY, BTN_SOUTH, 1, 100 }, { EV_KEY, BTN_SOUTH, 0, 200 },
			{ EV_ABS, ABS_X, -32768, 300 }, { EV_ABS, ABS_X, 0, 500 },
			{ EV_ABS, ABS_Z, 128, 600 }, { EV_ABS, ABS_Z, 0, 700 },
			{ EV_ABS, ABS_HAT0Y, 1, 800 }, { EV_ABS, ABS_HAT0Y, 0, 900 },
		};
		size_t n;
		const struct route_event *ev = route_events(rec, &n);
		size_t ok = 0;
		int64_t off = n > 0 ? ev[0].t_ms - want[0].t : 0;
		int64_t slack = (st.late_max_ns + 999999) / 1000000 + 1;
		for (size_t i = 0; i < n && i < sizeof want / sizeof *want; i++) {
			uint16_t type = ev[i].type == ROUTE_EVENT_KEY ? EV_KEY : EV_ABS;
			int64_t d = ev[i].t_ms - want[i].t - off;
			ok += type == want[i].type && ev[i].code == want[i].code &&
			      ev[i].value == want[i].value && d >= -slack && d <= slack;
		}
		check(c, n == sizeof want / sizeof *want && ok == n && off >= 0,
		      "the recorded file holds the route's %zu events without the LS+RS that "
		      "ended it (%zu events, %zu match, %lld ms after the command started)",
		      sizeof want / sizeof *want, n, ok, (long long)off);
		int64_t end = route_duration_ms(rec) - off;
		check(c, end >= 1050 - slack && end <= 1050 + slack,
		      "the recording ends when LS+RS are held (%lld ms into the route)", (long long)end);
		route_free(rec);
	}
	unlink(out);
	route_player_destroy(pl);
	route_free(route);
}

int uinput_check_run(const struct uinput_check_options *opt)
{
	struct ctx c = { .opt = opt };
	struct pad *pad = NULL;
	int r = pad_create("uinput", &pad);
	if (r == -ENOENT || r == -EACCES || r == -EPERM || r == -ENODEV) {
		fprintf(opt->log, "skip: this kernel has no usable /dev/uinput (%s)\n", strerror(-r));
		return 77;
	}
	check(&c, r == 0, "the uinput pad is created (%s)", r == 0 ? "yes" : strerror(-r));
	if (r != 0)
		return 1;
	int fd = -1;
	struct libevdev *dev = open_device(&c, pad, &fd);
	if (dev) {
		check_identity(&c, dev);
		struct route *route = NULL;
		struct util_diag err;
		r = route_parse("uinput-check.route", route_text, sizeof route_text - 1, NULL, &route, &err);
		check(&c, r == 0, "the check's route parses");
		if (r == 0)
			check_playback(&c, pad, dev, fd, route);
		route_free(route);
		check_sigkill(&c, pad, dev, fd);
		check_record_command(&c, pad);
	}

	/* destroyed: the reader learns the device is gone */
	pad_destroy(pad);
	if (dev) {
		struct input_event e;
		int rr = 0;
		int64_t until = now_ns() + 2000000000LL;
		while ((rr = libevdev_next_event(dev, LIBEVDEV_READ_FLAG_NORMAL, &e)) != -ENODEV &&
		       now_ns() < until) {
			if (rr == -EAGAIN)
				usleep(10000);
		}
		check(&c, rr == -ENODEV, "after pad_destroy() the reader gets ENODEV");
		libevdev_free(dev);
		close(fd);
	}
	fprintf(opt->log, "%s: %d failed\n", c.failures ? "FAIL" : "PASS", c.failures);
	return c.failures ? 1 : 0;
}
