/* Helpers for the tests that talk D-Bus: two private dbus-daemons started
 * by the test, one standing for the system bus and one for the session bus
 * (DBUS_SYSTEM_BUS_ADDRESS and DBUS_SESSION_BUS_ADDRESS point at them, so
 * nothing on the machine's own buses is touched), with the logind and
 * steamos-manager double (tests/doubles/deck-bus-double.py) on them.
 * Without dbus-daemon or python3-dbus the test skips (77). */
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef RXDECK_SOURCE_ROOT
#define RXDECK_SOURCE_ROOT "."
#endif

struct test_bus {
	pid_t daemon[2], dbl; /* the system and session dbus-daemons */
	char address[2][512];
	char log[PATH_MAX];
	char conf[PATH_MAX];
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

/* Starts one dbus-daemon with config (or --session); its address. */
static inline pid_t test_bus_daemon(const char *config, char *address, size_t size)
{
	int p[2];
	if (pipe(p) != 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		char fd[40], conf[PATH_MAX + 16];
		snprintf(fd, sizeof fd, "--print-address=%d", p[1]);
		snprintf(conf, sizeof conf, "--config-file=%s", config ? config : "");
		int null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(null, 1);
		execl("/usr/bin/dbus-daemon", "dbus-daemon", config ? conf : "--session", "--nofork",
		      "--nopidfile", fd, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	ssize_t n = 0, k;
	while (n < (ssize_t)size - 1 && (k = read(p[0], address + n, size - 1 - (size_t)n)) > 0) {
		n += k;
		if (memchr(address, '\n', (size_t)n))
			break;
	}
	close(p[0]);
	address[n > 0 ? n : 0] = '\0';
	address[strcspn(address, "\n")] = '\0';
	return pid;
}

/* A session bus whose com.steampowered.SteamOSManager1 is activatable but
 * fails to start, as v25.6.0-v25.7.0's user unit does in Desktop Mode
 * (EnvironmentFile=%t/gamescope-environment missing). */
static inline bool test_bus_failing_session_conf(struct test_bus *b, const char *dir)
{
	char svc[PATH_MAX], exe[PATH_MAX];
	snprintf(svc, sizeof svc, "%s/services", dir);
	mkdir(svc, 0755);
	snprintf(exe, sizeof exe, "%s/steamos-manager-unit", dir);
	FILE *f = fopen(exe, "w");
	if (!f)
		return false;
	fprintf(f, "#!/bin/sh\necho 'steamos-manager.service: Failed to load environment files: "
	           "No such file or directory' >&2\nexit 1\n");
	fclose(f);
	chmod(exe, 0755);
	char path[PATH_MAX + 64];
	snprintf(path, sizeof path, "%s/com.steampowered.SteamOSManager1.service", svc);
	if (!(f = fopen(path, "w")))
		return false;
	fprintf(f, "[D-BUS Service]\nName=com.steampowered.SteamOSManager1\nExec=%s\n", exe);
	fclose(f);
	snprintf(b->conf, sizeof b->conf, "%s/session.conf", dir);
	if (!(f = fopen(b->conf, "w")))
		return false;
	fprintf(f, "<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN\"\n"
	           " \"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd\">\n"
	           "<busconfig>\n  <type>session</type>\n  <listen>unix:tmpdir=%s</listen>\n"
	           "  <servicedir>%s</servicedir>\n  <policy context=\"default\">\n"
	           "    <allow send_destination=\"*\" eavesdrop=\"true\"/>\n"
	           "    <allow eavesdrop=\"true\"/>\n    <allow own=\"*\"/>\n  </policy>\n"
	           "</busconfig>\n", dir, svc);
	fclose(f);
	return true;
}

/* Starts both buses and the double.  extra: the double's options separated
 * by spaces ("--era manager-GPU --root DIR ..."), or NULL; "--era
 * unit-fails" also gives the session bus the failing activation file.
 * False when something does not come up. */
static inline bool test_bus_start(struct test_bus *b, const char *dir, const char *extra)
{
	memset(b, 0, sizeof *b);
	bool failing = extra && strstr(extra, "--era unit-fails");
	if (failing && !test_bus_failing_session_conf(b, dir))
		return false;
	for (int i = 0; i < 2; i++) {
		b->daemon[i] = test_bus_daemon(i == 1 && failing ? b->conf : NULL, b->address[i],
		                               sizeof b->address[i]);
		if (b->daemon[i] <= 0 || !b->address[i][0])
			return false;
	}
	setenv("DBUS_SYSTEM_BUS_ADDRESS", b->address[0], 1);
	setenv("DBUS_SESSION_BUS_ADDRESS", b->address[1], 1);
	snprintf(b->log, sizeof b->log, "%s/bus.log", dir);
	unlink(b->log);
	char *argv[32];
	int argc = 0;
	char words[PATH_MAX * 2 + 256];
	snprintf(words, sizeof words, "%s", extra ? extra : "");
	argv[argc++] = "python3";
	argv[argc++] = RXDECK_SOURCE_ROOT "/tests/doubles/deck-bus-double.py";
	argv[argc++] = b->log;
	for (char *save = NULL, *w = strtok_r(words, " ", &save); w && argc < 31;
	     w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	argv[argc] = NULL;
	b->dbl = fork();
	if (b->dbl == 0) {
		execv("/usr/bin/python3", argv);
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
	for (int i = 0; i < 2; i++)
		if (b->daemon[i] > 0) {
			kill(b->daemon[i], SIGTERM);
			waitpid(b->daemon[i], NULL, 0);
		}
	b->dbl = b->daemon[0] = b->daemon[1] = 0;
}

/* A wait on the bus log gives up after this long: a hang guard, not a
 * deadline.  The line comes from a harness (often a child process, under
 * ASan on a loaded machine) calling the double, and a line that comes is
 * seen within 50 ms; only a line that never comes waits this long. */
#define TEST_BUS_WAIT_S 300

/* Waits until the log holds line (up to TEST_BUS_WAIT_S); true when it
 * does. */
static inline bool test_bus_logged(const struct test_bus *b, const char *line)
{
	for (int i = 0; i < TEST_BUS_WAIT_S * 20; i++) {
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

/* The first size - 1 bytes of the file at path in buf ("" when it cannot
 * be read); buf. */
static inline const char *test_file_text(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, size - 1, f) : 0;
	buf[n] = '\0';
	if (f)
		fclose(f);
	return buf;
}

/* The log's text (static buffer). */
static inline const char *test_bus_log(const struct test_bus *b)
{
	static char buf[8192];
	return test_file_text(b->log, buf, sizeof buf);
}

#endif
