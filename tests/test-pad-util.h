/* test-pad-util: helpers the pad and route tests share: a socket path of
 * their own, reading frames with a deadline, the clock, a CPU burner. */
#ifndef RXDECK_TEST_PAD_UTIL_H
#define RXDECK_TEST_PAD_UTIL_H

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pad/pad.h"
#include "route/route.h"

static inline int64_t tu_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline int64_t tu_ev_ns(const struct input_event *e)
{
	return (int64_t)e->input_event_sec * 1000000000LL + (int64_t)e->input_event_usec * 1000LL;
}

/* "socket:/tmp/rxdeck-test-NAME-PID" in spec, the path in path. */
static inline void tu_socket_spec(const char *name, char *spec, size_t spec_size, char *path,
                                  size_t path_size)
{
	const char *dir = getenv("TMPDIR");
	snprintf(path, path_size, "%s/rxdeck-%s-%d.sock", dir && *dir ? dir : "/tmp", name,
	         (int)getpid());
	if (snprintf(spec, spec_size, "socket:%s", path) >= (int)spec_size)
		abort();
	unlink(path);
}

/* Reads one frame within timeout_ms; returns its record count, 0 at end of
 * file, -ETIMEDOUT, or another negative errno.  *at_ns gets the time it
 * was read. */
static inline int tu_read_frame(int fd, struct input_event *ev, size_t max, int timeout_ms,
                                int64_t *at_ns)
{
	int64_t until = tu_now_ns() + (int64_t)timeout_ms * 1000000LL;
	for (;;) {
		size_t n = 0;
		int r = pad_socket_read(fd, ev, max, &n);
		if (r == 0) {
			if (at_ns)
				*at_ns = tu_now_ns();
			return (int)n;
		}
		if (r == -ENOTCONN)
			return 0;
		if (r != -EAGAIN)
			return r;
		int64_t left = until - tu_now_ns();
		if (left <= 0)
			return -ETIMEDOUT;
		struct pollfd p = { .fd = fd, .events = POLLIN };
		poll(&p, 1, (int)(left / 1000000) + 1);
	}
}

/* The value a frame gives a code, or -999 when the frame does not say. */
static inline int32_t tu_frame_value(const struct input_event *ev, int n, uint16_t type,
                                     uint16_t code)
{
	int32_t v = -999;
	for (int i = 0; i < n; i++)
		if (ev[i].type == type && ev[i].code == code)
			v = ev[i].value;
	return v;
}

/* True when a frame sets every code of the layout to rest. */
static inline int tu_frame_is_neutral(const struct input_event *ev, int n)
{
	for (int b = 0; b < PAD_BUTTON_COUNT; b++)
		if (tu_frame_value(ev, n, EV_KEY, pad_buttons[b].code) != 0)
			return 0;
	for (int a = 0; a < PAD_AXIS_COUNT; a++)
		if (tu_frame_value(ev, n, EV_ABS, pad_axes[a].code) != 0)
			return 0;
	return n > 0 && ev[n - 1].type == EV_SYN && ev[n - 1].code == SYN_REPORT;
}

/* A child process that keeps one core busy until killed. */
static inline pid_t tu_burn_cpu(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		volatile uint64_t x = 0;
		for (;;)
			x++;
	}
	return pid;
}

static inline void tu_stop(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

static inline int tu_cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Nearest-rank percentile of n values (sorts them). */
static inline int64_t tu_percentile(int64_t *v, size_t n, int pct)
{
	qsort(v, n, sizeof *v, tu_cmp_i64);
	size_t rank = (n * (size_t)pct + 99) / 100;
	return v[rank ? rank - 1 : 0];
}

static inline struct route *tu_parse(const char *text)
{
	struct route *r = NULL;
	struct util_diag e;
	if (route_parse("test.route", text, strlen(text), NULL, &r, &e) != 0) {
		util_diag_print(&e, stderr);
		return NULL;
	}
	return r;
}

#endif
