/* test-xvfb: an X server of the test's own (Xvfb) for the tests that need
 * windows.  Header only. */
#ifndef RXDECK_TEST_XVFB_H
#define RXDECK_TEST_XVFB_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define TEST_XVFB "/usr/bin/Xvfb"

/* A display number whose lock file and socket are both free. */
static inline int test_xvfb_free_display(int from)
{
	for (int n = from; n < from + 200; n++) {
		char p[64];
		snprintf(p, sizeof p, "/tmp/.X%d-lock", n);
		if (access(p, F_OK) == 0)
			continue;
		snprintf(p, sizeof p, "/tmp/.X11-unix/X%d", n);
		if (access(p, F_OK) != 0)
			return n;
	}
	return -1;
}

/* Starts Xvfb with one screen ("640x480x24"), never resetting, on a free
 * display well away from the usual ones (a low number may be another
 * session's): its pid, and ":N" in display; -1 when there is no Xvfb or it
 * did not start. */
static inline pid_t test_xvfb_start(const char *screen, char *display, size_t size)
{
	if (access(TEST_XVFB, X_OK) != 0)
		return -1;
	for (int attempt = 0, from = 500 + getpid() % 400; attempt < 5; attempt++, from += 3) {
		int n = test_xvfb_free_display(from);
		int fds[2];
		if (n < 0 || pipe(fds) != 0)
			return -1;
		char disp[16];
		snprintf(disp, sizeof disp, ":%d", n);
		pid_t pid = fork();
		if (pid == 0) {
			close(fds[0]);
			int null = open("/dev/null", O_WRONLY);
			dup2(null, 1);
			dup2(null, 2);
			char fd_s[16];
			snprintf(fd_s, sizeof fd_s, "%d", fds[1]);
			/* it writes its display on the pipe once it listens;
			 * -noreset: by default an X server resets when its last
			 * client leaves and closes a client that connected
			 * meanwhile, so a game started right after another had
			 * ended failed "no X server answers there" (one
			 * connection after another: 107 of 300 refused that way,
			 * 0 with -noreset; docs/testing.md) */
			execl(TEST_XVFB, TEST_XVFB, disp, "-displayfd", fd_s, "-screen", "0", screen,
			      "-nolisten", "tcp", "-noreset", (char *)NULL);
			_exit(127);
		}
		close(fds[1]);
		/* to its newline: Xvfb writes the number, then "\n", and dies
		 * when the pipe is closed in between */
		char buf[16] = "";
		size_t got = 0;
		while (pid > 0 && got < sizeof buf - 1 && !strchr(buf, '\n')) {
			ssize_t r = read(fds[0], buf + got, sizeof buf - 1 - got);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			got += (size_t)r;
		}
		close(fds[0]);
		if (strchr(buf, '\n') && atoi(buf) == n) {
			snprintf(display, size, "%s", disp);
			return pid;
		}
		if (pid > 0) { /* it did not start there (taken meanwhile): the next */
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
	}
	return -1;
}

static inline void test_xvfb_stop(pid_t pid)
{
	if (pid <= 0)
		return;
	/* SIGTERM; an Xvfb still there after 10 s (seen once on a loaded
	 * machine, holding the test to its timeout) is killed */
	kill(pid, SIGTERM);
	for (int i = 0; i < 1000; i++) {
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

#endif
