/* test-forest-util: what the tests that run rxdeck-forest share: a scratch
 * folder, starting the game with extra environment (its output to a file),
 * waiting for it with a deadline, reading its frame log, its checksum file
 * and its log lines.  The game's path is the test's first argument.
 * Header-only so each test is one executable. */
#ifndef TEST_FOREST_UTIL_H
#define TEST_FOREST_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "rxvk.h"

extern char **environ;

static char ft_exe[4096];    /* rxdeck-forest, absolute */
static char ft_dir[128];     /* this test's scratch folder */

static inline uint64_t ft_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline void ft_sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
}

/* Takes the game's path from argv, makes a scratch folder, and exits 77
 * when no Vulkan device is usable. */
static inline void ft_init(int argc, char **argv, const char *name)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s PATH-TO-rxdeck-forest\n", argv[0]);
		exit(1);
	}
	if (!realpath(argv[1], ft_exe)) {
		fprintf(stderr, "cannot find the game '%s': %s\n", argv[1], strerror(errno));
		exit(1);
	}
	struct rxvk *rx = NULL;
	int rc = rxvk_create(&(struct rxvk_config){ .guest_mb = 4 }, &rx);
	if (rc == -ENODEV) {
		printf("skip: no usable Vulkan device (%s)\n", rxvk_last_error());
		exit(77);
	}
	if (rc < 0) {
		fprintf(stderr, "cannot create a renderer: %s\n", rxvk_last_error());
		exit(1);
	}
	rxvk_destroy(rx);
	snprintf(ft_dir, sizeof ft_dir, "/tmp/rxdeck-%s-XXXXXX", name);
	if (!mkdtemp(ft_dir)) {
		perror("mkdtemp");
		exit(1);
	}
}

static inline int ft_remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* The test's exit status: on success the scratch folder is removed, on
 * failure it is kept and named, for the logs in it. */
static inline int ft_finish(int failed)
{
	if (failed)
		fprintf(stderr, "the games' logs are in %s\n", ft_dir);
	else
		nftw(ft_dir, ft_remove_one, 16, FTW_DEPTH | FTW_PHYS);
	return failed;
}

static inline void ft_path(char *out, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A path in the scratch folder. */
static inline void ft_path(char *out, size_t size, const char *fmt, ...)
{
	char name[128];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(name, sizeof name, fmt, ap);
	va_end(ap);
	snprintf(out, size, "%s/%s", ft_dir, name);
}

/* Whole file as a NUL-terminated string (NULL if it cannot be read). */
static inline char *ft_read(const char *path, size_t *len_out)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 65536, len = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (len + 1 >= cap)
			buf = realloc(buf, cap *= 2);
		size_t n = fread(buf + len, 1, cap - len - 1, f);
		if (n == 0)
			break;
		len += n;
	}
	fclose(f);
	buf[len] = '\0';
	if (len_out)
		*len_out = len;
	return buf;
}

struct ft_game {
	pid_t pid;
	char log[300];  /* stdout and stderr */
};

/*
 * Starts the game with args (NULL-terminated, without argv[0]) and env
 * ("KEY=VALUE" entries overriding the test's environment, NULL-terminated).
 */
static inline void ft_start(struct ft_game *g, const char *tag, const char *const *args,
                            const char *const *env)
{
	ft_path(g->log, sizeof g->log, "%s.log", tag);
	const char *argv[64];
	int n = 0;
	argv[n++] = ft_exe;
	for (int i = 0; args && args[i] && n < 63; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	const char *envp[256];
	int e = 0;
	for (char **p = environ; *p && e < 200; p++) {
		bool overridden = false;
		for (int i = 0; env && env[i]; i++) {
			size_t k = strcspn(env[i], "=");
			if (!strncmp(*p, env[i], k) && (*p)[k] == '=')
				overridden = true;
		}
		if (!overridden)
			envp[e++] = *p;
	}
	for (int i = 0; env && env[i] && e < 255; i++)
		envp[e++] = env[i];
	envp[e] = NULL;
	g->pid = fork();
	assert_true(g->pid >= 0);
	if (g->pid == 0) {
		int fd = open(g->log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			_exit(127);
		dup2(fd, 1);
		dup2(fd, 2);
		if (chdir(ft_dir) != 0)
			_exit(127);
		execve(ft_exe, (char *const *)argv, (char *const *)envp);
		dprintf(2, "cannot run '%s': %s\n", ft_exe, strerror(errno));
		_exit(127);
	}
}

/* Waits for the game to end, at most timeout_s; returns its exit status
 * (-signal if killed by one).  A game still running at the deadline is
 * killed and the test fails. */
static inline int ft_wait(struct ft_game *g, unsigned timeout_s)
{
	uint64_t until = ft_now_ns() + (uint64_t)timeout_s * 1000000000ull;
	for (;;) {
		int status;
		pid_t r = waitpid(g->pid, &status, WNOHANG);
		if (r == g->pid) {
			g->pid = 0;
			return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
		}
		if (ft_now_ns() > until) {
			kill(g->pid, SIGKILL);
			waitpid(g->pid, &status, 0);
			g->pid = 0;
			char *log = ft_read(g->log, NULL);
			fail_msg("rxdeck-forest still ran after %u s; its log:\n%s", timeout_s, log ? log : "");
		}
		ft_sleep_ms(20);
	}
}

/* Runs the game to its end; fails the test unless it exits with `want`. */
static inline char *ft_run(const char *tag, const char *const *args, const char *const *env, int want,
                           unsigned timeout_s)
{
	struct ft_game g;
	ft_start(&g, tag, args, env);
	int rc = ft_wait(&g, timeout_s);
	char *log = ft_read(g.log, NULL);
	if (rc != want)
		fail_msg("rxdeck-forest (%s) exited %d, expected %d; its log:\n%s", tag, rc, want, log ? log : "");
	return log;
}

/* Waits until the game's log holds `needle` (returns a copy of the log),
 * or fails after timeout_s. */
static inline char *ft_wait_log(struct ft_game *g, const char *needle, unsigned timeout_s)
{
	uint64_t until = ft_now_ns() + (uint64_t)timeout_s * 1000000000ull;
	for (;;) {
		char *log = ft_read(g->log, NULL);
		if (log && strstr(log, needle))
			return log;
		if (ft_now_ns() > until)
			fail_msg("no '%s' in the game's log after %u s:\n%s", needle, timeout_s, log ? log : "");
		free(log);
		ft_sleep_ms(20);
	}
}

/* One frame-log row. */
struct ft_row {
	uint64_t frame, present_ns, draws;
	bool shown;
	double frame_ms, rb_wait_ms, memsync_ms;
};

/* Parses a frame log, checking its header and every row's shape; returns
 * the rows (count in *n). */
static inline struct ft_row *ft_frame_log(const char *path, size_t *n)
{
	char *text = ft_read(path, NULL);
	if (!text)
		fail_msg("cannot read frame log '%s'", path);
	const char *header = "frame,present_ns,kind,frame_ms,draws,rb_wait_ms,memsync_ms\n";
	if (strncmp(text, header, strlen(header)) != 0)
		fail_msg("frame log '%s' starts '%.80s', not the header", path, text);
	size_t cap = 1024, count = 0;
	struct ft_row *rows = malloc(cap * sizeof *rows);
	char *line = text + strlen(header);
	unsigned lineno = 1;
	while (*line) {
		char *end = strchr(line, '\n');
		if (!end)
			fail_msg("%s:%u: a row without its newline: '%s'", path, lineno + 1, line);
		*end = '\0';
		lineno++;
		struct ft_row r;
		char kind[16];
		int used = 0;
		if (sscanf(line, "%" SCNu64 ",%" SCNu64 ",%15[a-z],%lf,%" SCNu64 ",%lf,%lf%n", &r.frame, &r.present_ns,
		           kind, &r.frame_ms, &r.draws, &r.rb_wait_ms, &r.memsync_ms, &used) != 7 ||
		    line[used] != '\0')
			fail_msg("%s:%u: bad row '%s'", path, lineno, line);
		if (strcmp(kind, "real") && strcmp(kind, "shown"))
			fail_msg("%s:%u: kind '%s' is neither real nor shown", path, lineno, kind);
		r.shown = !strcmp(kind, "shown");
		if (count == cap)
			rows = realloc(rows, (cap *= 2) * sizeof *rows);
		if (count && (r.frame != rows[count - 1].frame + 1 || r.present_ns < rows[count - 1].present_ns))
			fail_msg("%s:%u: frame %" PRIu64 " at %" PRIu64 " ns follows frame %" PRIu64 " at %" PRIu64 " ns",
			         path, lineno, r.frame, r.present_ns, rows[count - 1].frame, rows[count - 1].present_ns);
		rows[count++] = r;
		line = end + 1;
	}
	free(text);
	*n = count;
	return rows;
}

/* The checksum file: `frame,checksum` rows after a header. */
static inline size_t ft_checksums(const char *path, uint64_t *frames, uint64_t *sums, size_t max)
{
	char *text = ft_read(path, NULL);
	if (!text)
		fail_msg("cannot read checksum file '%s'", path);
	if (strncmp(text, "frame,checksum\n", 15) != 0)
		fail_msg("checksum file '%s' has no header", path);
	size_t n = 0;
	for (char *line = strtok(text + 15, "\n"); line && n < max; line = strtok(NULL, "\n")) {
		if (sscanf(line, "%" SCNu64 ",%" SCNx64, &frames[n], &sums[n]) != 2 || strlen(line) < 18)
			fail_msg("checksum file '%s': bad row '%s'", path, line);
		n++;
	}
	free(text);
	return n;
}

/* Arguments that make a small, quick scene for tests. */
#define FT_SMALL "--size", "160x96", "--draws", "200", "--job-ms", "0.5", "--log-every", "0"

#endif
