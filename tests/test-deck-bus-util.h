/* Helpers for the tests that talk D-Bus: a private dbus-daemon started by
 * the test, with the logind and steamos-manager double on it, and both
 * DBUS_SYSTEM_BUS_ADDRESS and DBUS_SESSION_BUS_ADDRESS pointing at it (so
 * nothing on the machine's own buses is touched).  Without dbus-daemon or
 * python3-dbus the test skips (77). */
#ifndef RXDECK_TEST_DECK_BUS_UTIL_H
#define RXDECK_TEST_DECK_BUS_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef RXDECK_SOURCE_ROOT
#define RXDECK_SOURCE_ROOT "."
#endif

struct test_bus {
	pid_t daemon, dbl;
	char address[512];
	char log[PATH_MAX];
};

static inline bool test_bus_can_run(char *why, size_t size)
{
	if (access("/usr/bin/dbus-daemon", X_OK) != 0) {
		snprintf(why, size, "no /usr/bin/dbus-daemon (Debian package dbus)");
		return false;
	}
	if (system("/usr/bin/python3 -c 'import dbus, dbus.mainloop.glib; "
	           "from gi.repository import GLib' >/dev/null 2>&1") != 0) {
		snprintf(why, size, "no python3-dbus/python3-gi for the D-Bus doubles");
		return false;
	}
	return true;
}

/* For main(): exits 77 (a skip), saying why, where the doubles cannot run. */
static inline void test_bus_skip_unless_it_can_run(void)
{
	char why[256];
	if (!test_bus_can_run(why, sizeof why)) {
		printf("skip: %s\n", why);
		exit(77);
	}
}

/* Starts the bus and the double (extra: "--no-manager" and the like, or
 * NULL); false when either does not come up. */
static inline bool test_bus_start(struct test_bus *b, const char *dir, const char *extra)
{
	memset(b, 0, sizeof *b);
	int p[2];
	if (pipe(p) != 0)
		return false;
	b->daemon = fork();
	if (b->daemon == 0) {
		close(p[0]);
		char fd[40];
		snprintf(fd, sizeof fd, "--print-address=%d", p[1]);
		int null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(null, 1);
		execl("/usr/bin/dbus-daemon", "dbus-daemon", "--session", "--nofork", "--nopidfile",
		      fd, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	ssize_t n = 0, k;
	while (n < (ssize_t)sizeof b->address - 1 &&
	       (k = read(p[0], b->address + n, sizeof b->address - 1 - (size_t)n)) > 0) {
		n += k;
		if (memchr(b->address, '\n', (size_t)n))
			break;
	}
	close(p[0]);
	b->address[n] = '\0';
	b->address[strcspn(b->address, "\n")] = '\0';
	if (!b->address[0])
		return false;
	setenv("DBUS_SYSTEM_BUS_ADDRESS", b->address, 1);
	setenv("DBUS_SESSION_BUS_ADDRESS", b->address, 1);
	snprintf(b->log, sizeof b->log, "%s/bus.log", dir);
	unlink(b->log);
	b->dbl = fork();
	if (b->dbl == 0) {
		execl("/usr/bin/python3", "python3",
		      RXDECK_SOURCE_ROOT "/tests/doubles/deck-bus-double.py", b->log,
		      extra ? extra : "--", (char *)NULL);
		_exit(127);
	}
	/* up when it logged "ready" */
	for (int i = 0; i < 200; i++) {
		FILE *f = fopen(b->log, "r");
		char line[64] = "";
		if (f && fgets(line, sizeof line, f) && strcmp(line, "ready\n") == 0) {
			fclose(f);
			return true;
		}
		if (f)
			fclose(f);
		struct timespec ts = { 0, 50 * 1000000 };
		nanosleep(&ts, NULL);
	}
	return false;
}

static inline void test_bus_stop(struct test_bus *b)
{
	if (b->dbl > 0) {
		kill(b->dbl, SIGTERM);
		waitpid(b->dbl, NULL, 0);
	}
	if (b->daemon > 0) {
		kill(b->daemon, SIGTERM);
		waitpid(b->daemon, NULL, 0);
	}
	b->dbl = b->daemon = 0;
}

/* Waits up to 10 s for the log to hold line; true when it does. */
static inline bool test_bus_logged(const struct test_bus *b, const char *line)
{
	for (int i = 0; i < 200; i++) {
		FILE *f = fopen(b->log, "r");
		char buf[512];
		bool found = false;
		while (f && fgets(buf, sizeof buf, f))
			found |= strncmp(buf, line, strlen(line)) == 0;
		if (f)
			fclose(f);
		if (found)
			return true;
		struct timespec ts = { 0, 50 * 1000000 };
		nanosleep(&ts, NULL);
	}
	return false;
}

/* The log's text (static buffer). */
static inline const char *test_bus_log(const struct test_bus *b)
{
	static char buf[8192];
	FILE *f = fopen(b->log, "r");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	buf[n] = '\0';
	if (f)
		fclose(f);
	return buf;
}

#endif
