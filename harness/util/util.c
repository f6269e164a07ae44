/* util: the whole-file reader, the clocks, the stop signals, paths, folders
 * and whole-file replacement, warning lists and selection (util.h).  It
 * owns no state: the signal handler's flag belongs to whoever passes the
 * handler. */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int util_read_file(const char *path, size_t max_B, unsigned flags, char **text_out,
                   size_t *len_out)
{
	/* O_NONBLOCK: opening a FIFO to refuse it must not wait for a writer */
	int fd = open(path, O_RDONLY | O_CLOEXEC | ((flags & UTIL_READ_REGULAR) ? O_NONBLOCK : 0));
	if (fd < 0)
		return -errno;
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int e = -errno;
		close(fd);
		return e;
	}
	int err = 0;
	if (S_ISDIR(st.st_mode))
		err = -EISDIR;
	else if ((flags & UTIL_READ_REGULAR) && !S_ISREG(st.st_mode))
		err = -ENOTSUP;
	else if (max_B && S_ISREG(st.st_mode) && (uint64_t)st.st_size > max_B)
		err = -EFBIG;
	/* a regular file's size plus its NUL and one byte more, so the read
	 * that finds its end does not grow (and copy) the buffer first */
	size_t cap = S_ISREG(st.st_mode) && st.st_size > 0 ? (size_t)st.st_size + 2 : 4096;
	char *buf = err ? NULL : malloc(cap);
	if (!err && !buf)
		err = -ENOMEM;
	if (buf)
		util_hint_huge(buf, cap);
	size_t len = 0;
	while (!err) {
		if (len + 1 >= cap) {
			char *n = realloc(buf, cap * 2);
			if (!n) {
				err = -ENOMEM;
				break;
			}
			buf = n;
			cap *= 2;
		}
		ssize_t r = read(fd, buf + len, cap - 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			break;
		}
		if (r == 0)
			break;
		len += (size_t)r;
		if (max_B && len > max_B)
			err = -EFBIG;
	}
	close(fd);
	if (err) {
		free(buf);
		return err;
	}
	buf[len] = '\0';
	*text_out = buf;
	*len_out = len;
	return 0;
}

void util_hint_huge(void *p, size_t len)
{
	const uintptr_t huge = (uintptr_t)2 << 20;
	if (!p || len < 2 * huge)
		return;
	uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1);
	uintptr_t hi = ((uintptr_t)p + len) & ~(huge - 1);
	if (hi > lo)
		(void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
}

int64_t util_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t util_unix_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void util_stop_signals(void (*handler)(int), int sa_flags)
{
	struct sigaction sa = { .sa_handler = handler, .sa_flags = sa_flags };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	struct sigaction ign = { .sa_handler = SIG_IGN };
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, NULL);
}

char *util_path_join(const char *dir, const char *name)
{
	if (!dir || !*dir || name[0] == '/')
		return strdup(name);
	size_t a = strlen(dir), b = strlen(name);
	char *p = malloc(a + b + 2);
	if (!p)
		return NULL;
	memcpy(p, dir, a);
	size_t n = a;
	if (p[n - 1] != '/')
		p[n++] = '/';
	memcpy(p + n, name, b + 1);
	return p;
}

char *util_path_absolute(const char *path)
{
	char *r = realpath(path, NULL);
	if (r)
		return r;
	if (path[0] == '/')
		return strdup(path);
	char cwd[PATH_MAX];
	if (!getcwd(cwd, sizeof cwd))
		return NULL;
	return util_path_join(cwd, path);
}

int util_mkdir_p(const char *dir, mode_t mode)
{
	char *p = strdup(dir);
	if (!p)
		return -ENOMEM;
	int err = 0;
	for (char *s = p + 1; *p; s++) { /* *p: "" makes nothing */
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(p, mode) != 0 && errno != EEXIST) {
			err = -errno;
			break;
		}
		*s = c;
		if (!c)
			break;
	}
	free(p);
	struct stat st;
	if (!err && stat(dir, &st) != 0)
		err = -errno;
	else if (!err && !S_ISDIR(st.st_mode))
		err = -ENOTDIR;
	return err;
}

int util_write_file_atomic(const char *path, const char *data, size_t len)
{
	char *tmp;
	if (asprintf(&tmp, "%s.tmp-XXXXXX", path) < 0)
		return -ENOMEM;
	int fd = mkstemp(tmp);
	if (fd < 0) {
		int e = -errno;
		free(tmp);
		return e;
	}
	int err = 0;
	size_t off = 0;
	while (off < len) {
		ssize_t w = write(fd, data + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			err = -errno;
			break;
		}
		off += (size_t)w;
	}
	if (!err && fchmod(fd, 0644) != 0)
		err = -errno;
	if (!err && fsync(fd) != 0)
		err = -errno;
	if (close(fd) != 0 && !err)
		err = -errno;
	if (!err && rename(tmp, path) != 0)
		err = -errno;
	if (err)
		unlink(tmp);
	free(tmp);
	return err;
}

int util_warnings_add(struct util_warnings *w, const char *fmt, ...)
{
	if (w->n >= UTIL_WARNINGS_MAX) {
		w->dropped++;
		return 0;
	}
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	int r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -ENOMEM;
	char **v = realloc(w->v, (w->n + 1) * sizeof *v);
	if (!v) {
		free(s);
		return -ENOMEM;
	}
	w->v = v;
	w->v[w->n++] = s;
	return 0;
}

int util_warnings_append(struct util_warnings *dst, const struct util_warnings *src)
{
	for (size_t i = 0; i < src->n; i++) {
		int r = util_warnings_add(dst, "%s", src->v[i]);
		if (r < 0)
			return r;
	}
	dst->dropped += src->dropped;
	return 0;
}

void util_warnings_seal(struct util_warnings *w)
{
	if (w->dropped == 0)
		return;
	size_t dropped = w->dropped;
	char *s = NULL;
	if (asprintf(&s, "%zu more warnings left out", dropped) < 0)
		return;
	char **v = realloc(w->v, (w->n + 1) * sizeof *v);
	if (!v) {
		free(s);
		return;
	}
	w->v = v;
	w->v[w->n++] = s;
	w->dropped = 0;
}

void util_warnings_finish(struct util_warnings *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->n; i++)
		free(w->v[i]);
	free(w->v);
	w->v = NULL;
	w->n = 0;
	w->dropped = 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static inline void swap_d(double *a, double *b)
{
	double t = *a;
	*a = *b;
	*b = t;
}

/* Quickselect with a median-of-three pivot and a three-way partition (runs
 * of equal frame times are common: a steady 60 fps log is one value); after
 * too many rounds the rest is sorted, so crafted input costs O(n log n). */
void util_select(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n; /* [lo, hi) holds rank k */
	int budget = 16;
	for (size_t m = n; m > 1; m >>= 1)
		budget += 2;
	while (hi - lo > 16) {
		if (budget-- == 0) {
			qsort(v + lo, hi - lo, sizeof *v, cmp_double);
			return;
		}
		size_t mid = lo + (hi - lo) / 2;
		double a = v[lo], b = v[mid], c = v[hi - 1];
		double pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
		/* [lo, lt) < pivot, [lt, i) == pivot, (gt, hi) > pivot */
		size_t lt = lo, i = lo, gt = hi;
		while (i < gt) {
			if (v[i] < pivot)
				swap_d(&v[lt++], &v[i++]);
			else if (v[i] > pivot)
				swap_d(&v[i], &v[--gt]);
			else
				i++;
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return;
	}
	/* insertion sort of the small rest */
	for (size_t i = lo + 1; i < hi; i++) {
		double x = v[i];
		size_t j = i;
		while (j > lo && v[j - 1] > x) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
}
