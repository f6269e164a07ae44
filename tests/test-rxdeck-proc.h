/* test-rxdeck-proc: rxdeck (or any program) started by a test with its
 * stdout and stderr caught in a file, waited for with its exit status, or
 * left running for the test to signal through its pid; the environment a
 * test's rxdeck runs in (its data, temporary files and pad socket under
 * the test's folder); waiting for what a run left behind to go.  Header
 * only; include it after cmocka.h and test-run-util.h. */
#ifndef RXDECK_TEST_RXDECK_PROC_H
#define RXDECK_TEST_RXDECK_PROC_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* How a program is started. */
struct test_proc {
	const char *out;   /* its stdout and stderr go into this file */
	bool append;       /* added at the file's end; else written over */
	const char *cwd;   /* the folder it runs in; NULL: the test's */
	char *const *env;  /* putenv() entries, NULL-ended; NULL: none */
};

/* Starts argv (argv[0] the program's path) as how says, without
 * XDG_RUNTIME_DIR and WAYLAND_DISPLAY (a test's run never reaches the
 * session the test was started from): its pid.  The child exits 126 when
 * it cannot open how->out or enter how->cwd, 127 when it cannot run the
 * program. */
static inline pid_t test_proc_start(const char *const *argv, const struct test_proc *how)
{
	fflush(NULL); /* nothing buffered here is written twice */
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid > 0)
		return pid;
	int fd = open(how->out, O_WRONLY | O_CREAT | (how->append ? O_APPEND : O_TRUNC), 0644);
	if (fd < 0 || (how->cwd && chdir(how->cwd) != 0))
		_exit(126);
	dup2(fd, 1);
	dup2(fd, 2);
	for (char *const *e = how->env; e && *e; e++)
		putenv(*e);
	unsetenv("XDG_RUNTIME_DIR");
	unsetenv("WAYLAND_DISPLAY");
	execv(argv[0], (char *const *)argv);
	_exit(127);
}

/* Waits for pid to end: its exit code, 128 + N for signal N, -1 when it
 * could not be waited for. */
static inline int test_proc_wait(pid_t pid)
{
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* test_proc_start(), then test_proc_wait(). */
static inline int test_proc_run(const char *const *argv, const struct test_proc *how)
{
	return test_proc_wait(test_proc_start(argv, how));
}

/* A whole file as a string (malloc'd); "" when it cannot be read. */
static inline char *test_read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return strdup("");
	char *s = NULL;
	size_t n = 0;
	if (getdelim(&s, &n, 0, f) < 0) {
		free(s);
		s = strdup("");
	}
	fclose(f);
	return s;
}

static inline void test_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
}

/* Looks up to tries times, 100 ms apart, for the processes whose
 * environment mentions needle (processes_mentioning()) to be gone: how
 * many were left at the last look. */
static inline int test_processes_gone(const char *needle, int tries)
{
	int left = 1;
	for (int i = 0; i < tries && (left = processes_mentioning(needle)) > 0; i++)
		test_sleep_ms(100);
	return left;
}

/* rxdeck as a test runs it: the binary the build made, started as how
 * says.  test_rxdeck_init() points how.env at env: XDG_DATA_HOME=DIR/data
 * (its database, run folders and state), TEST_RUN_DIR=DIR (what
 * processes_mentioning(DIR) finds), TMPDIR=DIR (the pad's socket goes
 * there), and what test_rxdeck_env_add() adds. */
struct test_rxdeck {
	char bin[PATH_MAX];
	char xdg[PATH_MAX + 32];
	char mark[PATH_MAX + 32];
	char tmp[PATH_MAX + 32];
	char *env[8];
	struct test_proc how;
};

/* r for the test folder dir, output into the file out (kept, not copied;
 * how.out may be pointed elsewhere between runs). */
static inline void test_rxdeck_init(struct test_rxdeck *r, const char *dir, const char *out)
{
	memset(r, 0, sizeof *r);
	build_path("harness/rxdeck", r->bin, sizeof r->bin);
	snprintf(r->xdg, sizeof r->xdg, "XDG_DATA_HOME=%s/data", dir);
	snprintf(r->mark, sizeof r->mark, "TEST_RUN_DIR=%s", dir);
	snprintf(r->tmp, sizeof r->tmp, "TMPDIR=%s", dir);
	r->env[0] = r->xdg;
	r->env[1] = r->mark;
	r->env[2] = r->tmp;
	r->how.out = out;
	r->how.env = r->env;
}

/* One more NAME=VALUE in rxdeck's environment (kept, not copied). */
static inline void test_rxdeck_env_add(struct test_rxdeck *r, char *entry)
{
	size_t n = 0;
	while (r->env[n])
		n++;
	assert_true(n + 1 < sizeof r->env / sizeof r->env[0]);
	r->env[n] = entry;
}

/* Starts rxdeck with args (NULL-ended, after the program): its pid. */
static inline pid_t test_rxdeck_start(const struct test_rxdeck *r, const char *const *args)
{
	const char *argv[32] = { r->bin };
	size_t n = 0;
	for (; args[n]; n++) {
		assert_true(n + 2 < sizeof argv / sizeof argv[0]);
		argv[n + 1] = args[n];
	}
	argv[n + 1] = NULL;
	return test_proc_start(argv, &r->how);
}

/* rxdeck with args to its end: test_proc_wait(). */
static inline int test_rxdeck_run(const struct test_rxdeck *r, const char *const *args)
{
	return test_proc_wait(test_rxdeck_start(r, args));
}

/* What rxdeck wrote into how.out, whole: valid until the next call. */
static inline const char *test_rxdeck_output(const struct test_rxdeck *r)
{
	static char *text;
	free(text);
	text = test_read_text(r->how.out);
	return text;
}

#endif
