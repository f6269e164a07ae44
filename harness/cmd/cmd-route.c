/* cmd-route: `rxdeck route check|play|record`.  It owns the three command
 * lines, their output and their signal handling; parsing, playing and
 * recording are route's, the device is the pad's.  Its rows ask for no
 * set-up, and it parses with cli_parse_command() so that the static VM
 * test links it with cli.c and cmd-dispatch.c alone. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libevdev/libevdev.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "pad/pad.h"
#include "route/route.h"
#include "util/util.h"

/* ---- signals: the handler only writes the signal number to a pipe ---- */

static int signal_pipe[2] = { -1, -1 };

static void on_signal(int sig)
{
	int saved = errno;
	unsigned char b = (unsigned char)sig;
	if (write(signal_pipe[1], &b, 1) < 0) {
		/* the pipe is full: a signal is already waiting */
	}
	errno = saved;
}

static int catch_signals(void)
{
	if (signal_pipe[0] < 0 && pipe2(signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
		return -errno;
	util_stop_signals(on_signal, SA_RESTART);
	return 0;
}

static int pending_signal(void)
{
	unsigned char b;
	return read(signal_pipe[0], &b, 1) == 1 ? b : 0;
}

static void print_error(void *ctx, const struct util_diag *e)
{
	(void)ctx;
	util_diag_print(e, stderr);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: rxdeck route check FILE...\n"
	           "       rxdeck route play FILE [--pad uinput|socket:PATH] [--delay TIME] [--stats]\n"
	           "       rxdeck route record OUT [--device /dev/input/eventN] [--stop BUTTONS]\n\n"
	           "Checks, plays and records route files (docs/routes.md).  'rxdeck route\n"
	           "COMMAND --help' describes one.\n");
}

/* ---- check ---- */

static void print_points(const char *what, const struct route_point *p, size_t n)
{
	printf("  %-9s %zu", what, n);
	for (size_t i = 0; i < n; i++) {
		char t[32];
		route_format_time(p[i].t_ms, t, sizeof t);
		if (i == 8) {
			printf(", ...");
			break;
		}
		printf("%s%s at %s", i ? ", " : ": ", p[i].name, t);
	}
	printf("\n");
}

static void print_summary(const char *file, const struct route *r)
{
	char d[32], a[32], b[32], w[32];
	int64_t ws, we;
	route_window_ms(r, &ws, &we);
	route_format_time(route_duration_ms(r), d, sizeof d);
	route_format_time(ws, a, sizeof a);
	route_format_time(we, b, sizeof b);
	route_format_time(we - ws, w, sizeof w);
	size_t ns, nm;
	const struct route_point *shots = route_shots(r, &ns);
	const struct route_point *marks = route_marks(r, &nm);
	printf("%s: route '%s' is good\n", file, route_name(r));
	printf("  %-9s %s\n", "duration", d);
	printf("  %-9s %s to %s (%s)\n", "window", a, b, w);
	printf("  %-9s %zu pad events at %zu instants\n", "events", route_pad_event_count(r),
	       route_instant_count(r));
	print_points("shots", shots, ns);
	print_points("marks", marks, nm);
}

static int route_check(int argc, char **argv, struct cmd_context *ctx)
{
	static const struct cli_option options[] = { OPT_END };
	const struct cli cli = {
		.command = ctx->command,
		.synopsis = "FILE...",
		.summary = "Parses route files with their includes and repeat blocks.  Every error is\n"
		           "printed as file:line:column: message and the exit code is 1; a good file\n"
		           "gets its summary: duration, window, pad events, shots and marks.",
		.options = options,
	};
	int npos = 0;
	int exit_code;
	if (!cli_parse_command(&cli, argc, argv, -1, NULL, &npos, &exit_code))
		return exit_code;
	if (npos == 0) {
		cli_error(cli.command, "no route file given (see --help)");
		return RXDECK_EXIT_USAGE;
	}
	int status = RXDECK_EXIT_OK;
	const struct route_parse_options opt = { .on_error = print_error };
	for (int i = 1; i <= npos; i++) {
		struct route *route = NULL;
		if (route_load_with(argv[i], &opt, &route, NULL) != 0) {
			status = RXDECK_EXIT_FAILURE;
			continue;
		}
		print_summary(argv[i], route);
		route_free(route);
	}
	return status;
}

/* ---- play ---- */

static void pad_error(const char *command, const char *spec, int err)
{
	if (strcmp(spec, "uinput") == 0 && err == -ENOENT)
		cli_error(command, "cannot create the uinput pad: /dev/uinput does not exist "
		                   "(load the module: modprobe uinput)");
	else if (strcmp(spec, "uinput") == 0 && (err == -EACCES || err == -EPERM))
		cli_error(command, "cannot open '/dev/uinput': %s (docs/routes.md says how to "
		                   "allow it)", strerror(-err));
	else if (err == -EINVAL)
		cli_error(command, "bad pad '%s': expected 'uinput' or 'socket:PATH'", spec);
	else if (err == -EADDRINUSE)
		cli_error(command, "cannot create pad '%s': another pad listens there", spec);
	else if (err == -EEXIST)
		cli_error(command, "cannot create pad '%s': a file that is not a socket is in the way",
		          spec);
	else
		cli_error(command, "cannot create pad '%s': %s", spec, strerror(-err));
}

enum { OPT_STOP = 1, OPT_WINDOW, OPT_DEADZONE, OPT_STEP };

struct play_opts {
	const char *pad;
	int64_t delay_ms; /* -1: not given */
	bool stats;
	bool wait_client;
};

static void print_stats(const struct route_player *pl)
{
	struct route_player_stats s;
	if (route_player_stats(pl, &s) != 0)
		return;
	printf("lateness against schedule: p50 %.3f ms, p99 %.3f ms, max %.3f ms "
	       "(%zu of %zu instants written, %s priority)\n",
	       s.late_p50_ns / 1e6, s.late_p99_ns / 1e6, s.late_max_ns / 1e6, s.played, s.instants,
	       s.realtime ? "real-time" : "normal");
}

/* --wait-client: until a game has connected, or a stop signal came (then
 * false). */
static bool wait_client(struct pad *pad)
{
	printf("waiting for a game to connect to '%s'\n", pad_devnode(pad));
	fflush(stdout);
	while (pad_socket_client_count(pad) == 0) {
		struct pollfd pf = { .fd = signal_pipe[0], .events = POLLIN };
		if (poll(&pf, 1, 10) > 0 && pending_signal())
			return false;
	}
	return true;
}

/* Plays until the route's end, the player's, or a stop signal; prints
 * shots and marks as they pass.  Returns the exit status. */
static int play_loop(const char *cmd, const struct route *route, struct route_player *pl,
                     bool stats)
{
	int r;
	for (;;) {
		struct pollfd pf[2] = {
			{ .fd = route_player_fd(pl), .events = POLLIN },
			{ .fd = signal_pipe[0], .events = POLLIN },
		};
		if (poll(pf, 2, -1) < 0 && errno != EINTR)
			break;
		int sig = pending_signal();
		if (sig) {
			route_player_stop(pl);
			fprintf(stderr, "%s: stopped by %s; the pad was left neutral\n", cmd,
			        strsignal(sig));
			return RXDECK_EXIT_INTERRUPTED;
		}
		struct route_notice n;
		while ((r = route_player_next(pl, &n)) == 0) {
			if (n.type == ROUTE_NOTICE_SHOT || n.type == ROUTE_NOTICE_MARK) {
				char t[32];
				route_format_time(n.t_ms, t, sizeof t);
				printf("  %-9s %s %s\n", t, n.type == ROUTE_NOTICE_SHOT ? "shot" : "mark",
				       n.name);
				fflush(stdout);
				continue;
			}
			int status = RXDECK_EXIT_FAILURE;
			if (n.type == ROUTE_NOTICE_END) {
				printf("played '%s' to its end\n", route_name(route));
				status = RXDECK_EXIT_OK;
			} else if (n.type == ROUTE_NOTICE_STOPPED) {
				fprintf(stderr, "%s: the player was stopped by a signal; the pad was left "
				                "neutral\n", cmd);
				status = RXDECK_EXIT_INTERRUPTED;
			} else {
				fprintf(stderr, "%s: the playing process died (%s); the pad was left "
				                "neutral\n", cmd,
				        WIFSIGNALED(n.wstatus) ? strsignal(WTERMSIG(n.wstatus)) : "exit");
			}
			if (stats)
				print_stats(pl);
			return status;
		}
		if (r != -EAGAIN)
			break;
	}
	return RXDECK_EXIT_FAILURE;
}

static int route_play(int argc, char **argv, struct cmd_context *ctx)
{
	struct play_opts o = { .pad = "uinput", .delay_ms = -1 };
	const struct cli_option options[] = {
		OPT_STRING('p', "pad", &o.pad, "uinput|socket:PATH", "the pad to play into (default: uinput)"),
		OPT_DURATION('d', "delay", &o.delay_ms, "TIME", "wait this long before t0 (default: 2s for uinput, 0 for a socket)"),
		OPT_BOOL(0, "wait-client", &o.wait_client, "socket pad: start when the first game has connected"),
		OPT_BOOL('s', "stats", &o.stats, "print the lateness of the pad's writes against schedule"),
		OPT_END,
	};
	const char *cmd = ctx->command;
	const struct cli cli = {
		.command = cmd,
		.synopsis = "FILE [--pad uinput|socket:PATH] [--delay TIME] [--wait-client] [--stats]",
		.summary = "Plays a route into a virtual pad by itself, to try a route on a game by hand.\n"
		           "Shots and marks are printed as they pass.  Ctrl-C (or SIGTERM, SIGHUP) stops\n"
		           "it; every button is released and every axis centred on every way out.",
		.options = options,
	};
	int npos = 0;
	int exit_code;
	if (!cli_parse_command(&cli, argc, argv, -1, NULL, &npos, &exit_code))
		return exit_code;
	if (npos != 1) {
		cli_error(cmd, "expected one route file (see --help)");
		return RXDECK_EXIT_USAGE;
	}
	if (o.wait_client && strncmp(o.pad, "socket:", 7) != 0) {
		cli_error(cmd, "--wait-client needs a socket pad (--pad socket:PATH)");
		return RXDECK_EXIT_USAGE;
	}
	struct route *route = NULL;
	const struct route_parse_options popt = { .on_error = print_error };
	if (route_load_with(argv[1], &popt, &route, NULL) != 0)
		return RXDECK_EXIT_FAILURE;
	if (o.delay_ms < 0)
		o.delay_ms = strcmp(o.pad, "uinput") == 0 ? 2000 : 0;

	int status = RXDECK_EXIT_FAILURE;
	struct pad *pad = NULL;
	struct route_player *pl = NULL;
	if (catch_signals() != 0) {
		cli_error(cmd, "cannot set up signal handling: %s", strerror(errno));
		goto out;
	}
	int r = pad_create(o.pad, &pad);
	if (r < 0) {
		pad_error(cmd, o.pad, r);
		goto out;
	}
	printf("pad: %s %s\n", pad_backend(pad), pad_devnode(pad) ? pad_devnode(pad) : "(no device node)");
	r = route_player_create(route, pad, &pl);
	if (r == 0)
		r = route_player_arm(pl);
	if (r < 0) {
		cli_error(cmd, "cannot prepare route '%s': %s", argv[1], strerror(-r));
		goto out;
	}
	if (o.wait_client && !wait_client(pad)) {
		status = RXDECK_EXIT_INTERRUPTED;
		goto out;
	}
	char d[32], delay[32];
	route_format_time(route_duration_ms(route), d, sizeof d);
	route_format_time(o.delay_ms, delay, sizeof delay);
	printf("playing '%s' (%s, %zu pad events) in %s\n", route_name(route), d,
	       route_pad_event_count(route), delay);
	fflush(stdout);
	r = route_player_start(pl, util_now_ns() + o.delay_ms * 1000000LL);
	if (r < 0) {
		cli_error(cmd, "cannot start playing: %s", strerror(-r));
		goto out;
	}
	status = play_loop(cmd, route, pl, o.stats);
out:
	route_player_destroy(pl);
	pad_destroy(pad);
	route_free(route);
	return status;
}

/* ---- record ---- */

struct record_opts {
	const char *device;
	const char *name;
	unsigned stop;
	bool window;
	int64_t window_ms[2];
	double deadzone, step;
	bool force;
};

static int record_option(void *ctx, int id, char **args)
{
	struct record_opts *o = ctx;
	const char *cmd = "rxdeck route record";
	char *end;
	switch (id) {
	case OPT_STOP: {
		o->stop = 0;
		char buf[128];
		snprintf(buf, sizeof buf, "%s", args[0]);
		for (char *save = NULL, *b = strtok_r(buf, "+", &save); b; b = strtok_r(NULL, "+", &save)) {
			int k = route_button_from_name(b);
			if (k < 0) {
				cli_error(cmd, "bad stop combination '%s': unknown button '%s'", args[0], b);
				return -EINVAL;
			}
			o->stop |= 1u << k;
		}
		if (!o->stop) {
			cli_error(cmd, "bad stop combination '%s': expected buttons like BACK+START",
			          args[0]);
			return -EINVAL;
		}
		return 0;
	}
	case OPT_WINDOW:
		for (int i = 0; i < 2; i++) {
			if (route_parse_time(args[i], &o->window_ms[i]) != 0) {
				cli_error(cmd, "bad window time '%s': expected a time like 30s or 500ms",
				          args[i]);
				return -EINVAL;
			}
		}
		if (o->window_ms[0] >= o->window_ms[1]) {
			cli_error(cmd, "bad window '%s %s': the start must come before the end", args[0],
			          args[1]);
			return -EINVAL;
		}
		o->window = true;
		return 0;
	case OPT_DEADZONE:
	case OPT_STEP: {
		double v = strtod(args[0], &end);
		if (end == args[0] || *end || !(v > 0) || v >= (id == OPT_STEP ? 0.51 : 1)) {
			cli_error(cmd, "bad %s '%s': expected a number in (0, %s)",
			          id == OPT_STEP ? "step" : "deadzone", args[0],
			          id == OPT_STEP ? "0.5]" : "1");
			return -EINVAL;
		}
		if (id == OPT_STEP)
			o->step = v;
		else
			o->deadzone = v;
		return 0;
	}
	}
	return -EINVAL;
}

static bool is_gamepad(struct libevdev *dev)
{
	return libevdev_has_event_code(dev, EV_KEY, BTN_SOUTH) &&
	       libevdev_has_event_code(dev, EV_ABS, ABS_X);
}

/* Opens the device, or finds the first gamepad under /dev/input. */
static int open_source(const char *cmd, const char *path, int *fd_out, struct libevdev **dev_out,
                       char *used, size_t used_size)
{
	if (path) {
		int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0) {
			cli_error(cmd, "cannot open device '%s': %s", path, strerror(errno));
			return -1;
		}
		struct libevdev *dev;
		int r = libevdev_new_from_fd(fd, &dev);
		if (r < 0) {
			cli_error(cmd, "cannot read device '%s': %s", path, strerror(-r));
			close(fd);
			return -1;
		}
		if (!is_gamepad(dev)) {
			cli_error(cmd, "device '%s' ('%s') is not a gamepad: it has no BTN_SOUTH and "
			               "ABS_X", path, libevdev_get_name(dev));
			libevdev_free(dev);
			close(fd);
			return -1;
		}
		snprintf(used, used_size, "%s", path);
		*fd_out = fd;
		*dev_out = dev;
		return 0;
	}
	struct dirent **names;
	int n = scandir("/dev/input", &names, NULL, versionsort);
	if (n < 0) {
		cli_error(cmd, "cannot list '/dev/input': %s", strerror(errno));
		return -1;
	}
	int found = -1;
	for (int i = 0; i < n; i++) {
		if (found < 0 && strncmp(names[i]->d_name, "event", 5) == 0) {
			char p[300];
			snprintf(p, sizeof p, "/dev/input/%s", names[i]->d_name);
			int fd = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
			struct libevdev *dev = NULL;
			if (fd >= 0 && libevdev_new_from_fd(fd, &dev) == 0 && is_gamepad(dev)) {
				snprintf(used, used_size, "%s", p);
				*fd_out = fd;
				*dev_out = dev;
				found = i;
			} else {
				libevdev_free(dev);
				if (fd >= 0)
					close(fd);
			}
		}
		free(names[i]);
	}
	free(names);
	if (found < 0) {
		cli_error(cmd, "no gamepad found under /dev/input (is one connected, and may you "
		               "read it?); name one with --device");
		return -1;
	}
	return 0;
}

/* The route's name: --name, else OUT's file name without .route.  Says
 * why it is not valid (then false). */
static bool record_name(const char *cmd, const struct record_opts *o, const char *out,
                        char name[ROUTE_MAX_NAME + 1], int *status)
{
	if (o->name) {
		snprintf(name, ROUTE_MAX_NAME + 1, "%s", o->name);
	} else {
		const char *base = strrchr(out, '/');
		base = base ? base + 1 : out;
		snprintf(name, ROUTE_MAX_NAME + 1, "%s", base);
		char *dot = strstr(name, ".route");
		if (dot && dot[6] == 0)
			*dot = 0;
	}
	if (!route_name_is_valid(name)) {
		cli_error(cmd, "route name '%s' may hold only letters, digits, '.', '_' and '-' "
		               "(not first), at most %d of them; give one with --name", name,
		          ROUTE_MAX_NAME);
		*status = o->name ? RXDECK_EXIT_USAGE : RXDECK_EXIT_FAILURE;
		return false;
	}
	return true;
}

/* Reads the device into the recorder until the stop combination, a stop
 * signal, or the device's end. */
static void record_loop(const char *cmd, int fd, struct libevdev *dev, struct route_recorder *rec,
                        const char *used)
{
	bool done = false;
	while (!done) {
		struct pollfd pf[2] = {
			{ .fd = fd, .events = POLLIN },
			{ .fd = signal_pipe[0], .events = POLLIN },
		};
		if (poll(pf, 2, -1) < 0 && errno != EINTR)
			break;
		if (pending_signal()) {
			route_recorder_finish(rec, util_now_ns());
			break;
		}
		if (pf[0].revents & (POLLHUP | POLLERR)) {
			cli_error(cmd, "device '%s' went away; keeping what was recorded", used);
			route_recorder_finish(rec, util_now_ns());
			break;
		}
		struct input_event ev;
		int flag = LIBEVDEV_READ_FLAG_NORMAL;
		int r;
		for (;;) {
			r = libevdev_next_event(dev, flag, &ev);
			if (r == LIBEVDEV_READ_STATUS_SYNC) {
				flag = LIBEVDEV_READ_FLAG_SYNC;
			} else if (r == -EAGAIN && flag == LIBEVDEV_READ_FLAG_SYNC) {
				flag = LIBEVDEV_READ_FLAG_NORMAL;
				continue;
			} else if (r != LIBEVDEV_READ_STATUS_SUCCESS) {
				break;
			}
			if (route_recorder_feed(rec, &ev) == 1) {
				done = true;
				break;
			}
		}
		if (r < 0 && r != -EAGAIN) {
			cli_error(cmd, "cannot read device '%s': %s; keeping what was recorded", used,
			          strerror(-r));
			route_recorder_finish(rec, util_now_ns());
			break;
		}
	}
}

/* Writes the recording to tmp, with the window asked for if it fits,
 * else with the whole route as its window.  0 or a negative errno (said). */
static int record_write(const char *cmd, const char *tmp, const struct record_opts *o,
                        struct route_recorder *rec, const char *name, const char *device_name)
{
	FILE *f = fopen(tmp, "w");
	if (!f) {
		int e = errno ? errno : EIO;
		cli_error(cmd, "cannot write '%s': %s", tmp, strerror(e));
		return -e;
	}
	char comment[512];
	snprintf(comment, sizeof comment, "recorded with rxdeck route record from '%s'", device_name);
	int r = route_recorder_write(rec, f, name, o->window ? o->window_ms[0] : 0,
	                             o->window ? o->window_ms[1] : 0, comment);
	if (r == -EINVAL && o->window) {
		/* keep the recording: the whole route is the window instead */
		char a[32], b[32];
		route_format_time(o->window_ms[0], a, sizeof a);
		route_format_time(o->window_ms[1], b, sizeof b);
		cli_error(cmd, "the window %s %s does not fit the recorded route; the whole route "
		               "is its window instead", a, b);
		rewind(f);
		if (ftruncate(fileno(f), 0) != 0)
			r = -errno;
		else
			r = route_recorder_write(rec, f, name, 0, 0, comment);
	}
	if (fclose(f) != 0 && r == 0)
		r = -EIO;
	if (r < 0) {
		cli_error(cmd, "cannot write '%s': %s", tmp, strerror(-r));
		unlink(tmp);
	}
	return r;
}

/* The written recording checked like 'rxdeck route check' and renamed to
 * out.  0, or -1 (said). */
static int record_keep(const char *cmd, const char *tmp, const char *out)
{
	struct route *check = NULL;
	const struct route_parse_options popt = { .on_error = print_error };
	if (route_load_with(tmp, &popt, &check, NULL) != 0) {
		cli_error(cmd, "the recording does not read back as a route; left in '%s'", tmp);
		return -1;
	}
	if (rename(tmp, out) != 0) {
		cli_error(cmd, "cannot write '%s': %s", out, strerror(errno));
		unlink(tmp);
		route_free(check);
		return -1;
	}
	print_summary(out, check);
	route_free(check);
	return 0;
}

static int route_record(int argc, char **argv, struct cmd_context *ctx)
{
	struct record_opts o = { 0 };
	const struct cli_option options[] = {
		OPT_STRING('D', "device", &o.device, "/dev/input/eventN", "the pad to record (default: the first gamepad found)"),
		OPT_CALLBACK(0, "stop", 1, "BUTTONS", "the combination that ends the recording (default: BACK+START)", OPT_STOP),
		OPT_STRING('n', "name", &o.name, "NAME", "the route's name (default: OUT's file name without .route)"),
		OPT_CALLBACK('w', "window", 2, "START END", "the measured window (default: the whole route)", OPT_WINDOW),
		OPT_CALLBACK(0, "deadzone", 1, "X", "stick deadzone, radial, of 0..1 (default 0.15)", OPT_DEADZONE),
		OPT_CALLBACK(0, "step", 1, "X", "stick and trigger values are multiples of X (default 0.01)", OPT_STEP),
		OPT_BOOL('f', "force", &o.force, "replace OUT if it exists"),
		OPT_END,
	};
	const char *cmd = ctx->command;
	const struct cli cli = {
		.command = cmd,
		.synopsis = "OUT [--device /dev/input/eventN] [--stop BUTTONS] [--name NAME] "
		            "[--window START END] [--force]",
		.summary = "Records a route from a real pad: t0 is the moment recording starts, times\n"
		           "are kept to 1 ms, stick and trigger values on a grid with deadzones so idle\n"
		           "noise is not recorded.  Holding the stop combination (default BACK+START)\n"
		           "ends it, and its own presses are left out; Ctrl-C ends it too.  OUT is\n"
		           "written whole or not at all, and checked like 'rxdeck route check'.",
		.options = options,
		.on_option = record_option,
		.ctx = &o,
	};
	int npos = 0;
	int exit_code;
	if (!cli_parse_command(&cli, argc, argv, -1, NULL, &npos, &exit_code))
		return exit_code;
	if (npos != 1) {
		cli_error(cmd, "expected one output file (see --help)");
		return RXDECK_EXIT_USAGE;
	}
	const char *out = argv[1];
	struct stat st;
	if (!o.force && stat(out, &st) == 0) {
		cli_error(cmd, "'%s' exists; use --force to replace it", out);
		return RXDECK_EXIT_FAILURE;
	}
	char name[ROUTE_MAX_NAME + 1];
	int status = RXDECK_EXIT_FAILURE;
	if (!record_name(cmd, &o, out, name, &status))
		return status;

	int fd = -1;
	struct libevdev *dev = NULL;
	char used[300];
	if (open_source(cmd, o.device, &fd, &dev, used, sizeof used) != 0)
		return RXDECK_EXIT_FAILURE;
	libevdev_set_clock_id(dev, CLOCK_MONOTONIC);

	struct route_recorder *rec = NULL;
	char *tmp = NULL;
	struct route_record_config cfg = {
		.t0_ns = util_now_ns(),
		.stick_deadzone = o.deadzone,
		.step = o.step,
		.stop_buttons = o.stop,
	};
	int r = route_recorder_create(&cfg, &rec);
	if (r < 0 || catch_signals() != 0) {
		cli_error(cmd, "cannot start recording: %s", strerror(r < 0 ? -r : errno));
		goto out;
	}
	for (unsigned c = 0; c < ABS_CNT; c++) {
		const struct input_absinfo *ai = libevdev_get_abs_info(dev, c);
		if (ai)
			route_recorder_set_axis(rec, (uint16_t)c, ai->minimum, ai->maximum);
	}
	char combo[128] = "";
	unsigned stop = o.stop ? o.stop : (1u << PAD_BUTTON_BACK) | (1u << PAD_BUTTON_START);
	for (int b = 0; b < PAD_BUTTON_COUNT; b++)
		if (stop & (1u << b))
			snprintf(combo + strlen(combo), sizeof combo - strlen(combo), "%s%s",
			         combo[0] ? "+" : "", pad_buttons[b].name);
	printf("recording '%s' from '%s' (%s); hold %s to stop\n", name, libevdev_get_name(dev),
	       used, combo);
	fflush(stdout);

	record_loop(cmd, fd, dev, rec, used);

	/* written to a temporary file first: OUT is whole or untouched */
	size_t tl = strlen(out) + 16;
	tmp = malloc(tl);
	if (!tmp)
		goto out;
	snprintf(tmp, tl, "%s.tmp%d", out, (int)getpid());
	if (record_write(cmd, tmp, &o, rec, name, libevdev_get_name(dev)) == 0 &&
	    record_keep(cmd, tmp, out) == 0)
		status = RXDECK_EXIT_OK;
out:
	free(tmp);
	route_recorder_destroy(rec);
	libevdev_free(dev);
	if (fd >= 0)
		close(fd);
	return status;
}

int cmd_route(int argc, char **argv, struct cmd_context *ctx)
{
	static const struct cmd_sub subs[] = {
		{ "check", route_check, 0 },
		{ "play", route_play, 0 },
		{ "record", route_record, 0 },
		{ NULL, NULL, 0 },
	};
	return cmd_dispatch_sub(ctx, subs, usage, argc, argv);
}
