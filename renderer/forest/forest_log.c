/* forest_log: the game's own log lines ("forest: ..."), to stderr and to the
 * renderer's log file (RX_LOG) when there is one.  Each line is formatted
 * whole and written with one write() on a descriptor opened O_APPEND, so
 * it never interleaves with librxvk's lines in the same file.  It does not
 * own the renderer's "vk: " lines. */
#include "forest.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct forest_log {
	int fd; /* RX_LOG, -1 when none */
};

int forest_log_create(const char *path, struct forest_log **out)
{
	struct forest_log *log = calloc(1, sizeof *log);
	if (!log)
		return -ENOMEM;
	log->fd = -1;
	if (path) {
		log->fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
		if (log->fd < 0) {
			int rc = -errno;
			free(log);
			return rc;
		}
	}
	*out = log;
	return 0;
}

void forest_log_destroy(struct forest_log *log)
{
	if (!log)
		return;
	if (log->fd >= 0)
		close(log->fd);
	free(log);
}

static void write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

void forest_log(struct forest_log *log, const char *fmt, ...)
{
	char line[1024];
	int head = snprintf(line, sizeof line, "forest: ");
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line + head, sizeof line - (size_t)head - 1, fmt, ap);
	va_end(ap);
	size_t len = (size_t)head + (n < 0 ? 0 : (size_t)n);
	if (len > sizeof line - 2)
		len = sizeof line - 2;
	line[len++] = '\n';
	write_all(STDERR_FILENO, line, len);
	if (log && log->fd >= 0) {
		char stamped[1100];
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		int p = snprintf(stamped, sizeof stamped, "[%lld.%06ld] ", (long long)ts.tv_sec,
		                 ts.tv_nsec / 1000);
		memcpy(stamped + p, line, len);
		write_all(log->fd, stamped, (size_t)p + len);
	}
}
