/* collect-util: the collect module's small shared pieces: warning lists,
 * locale-free number parsing, whole-file reads, durations with units and
 * message excerpts.  It owns no format; the parsers live in their own
 * files. */
#include "collect-private.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *collect_source_name(enum collect_source source)
{
	switch (source) {
	case COLLECT_SOURCE_RXVK:
		return "rxvk";
	case COLLECT_SOURCE_MANGOHUD:
		return "mangohud";
	case COLLECT_SOURCE_PRESENTMON:
		return "presentmon";
	case COLLECT_SOURCE_AUTO:
		break;
	}
	return "auto";
}

char *collect_strdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

int collect_warnings_add(struct collect_warnings *w, const char *fmt, ...)
{
	if (w->n >= COLLECT_WARNINGS_MAX) {
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

int collect_warnings_append(struct collect_warnings *dst, const struct collect_warnings *src)
{
	for (size_t i = 0; i < src->n; i++) {
		int r = collect_warnings_add(dst, "%s", src->v[i]);
		if (r < 0)
			return r;
	}
	dst->dropped += src->dropped;
	return 0;
}

void collect_warnings_seal(struct collect_warnings *w)
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

void collect_warnings_finish(struct collect_warnings *w)
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

/* Exact powers of ten as doubles (10^22 is the largest exact one). */
static const double pow10_exact[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

int collect_parse_number(const char *s, const char *end, double *out)
{
	const char *p = s;
	int neg = 0;
	if (p < end && (*p == '-' || *p == '+')) {
		neg = *p == '-';
		p++;
	}
	uint64_t mant = 0;
	int digits = 0, sig = 0, exp10 = 0;
	while (p < end && *p >= '0' && *p <= '9') {
		if (sig < 19) {
			mant = mant * 10 + (uint64_t)(*p - '0');
			if (mant)
				sig++;
		} else {
			exp10++;
		}
		digits++;
		p++;
	}
	if (p < end && *p == '.') {
		p++;
		while (p < end && *p >= '0' && *p <= '9') {
			if (sig < 19) {
				mant = mant * 10 + (uint64_t)(*p - '0');
				if (mant)
					sig++;
				exp10--;
			}
			digits++;
			p++;
		}
	}
	if (digits == 0)
		return -EINVAL;
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		int eneg = 0;
		if (p < end && (*p == '-' || *p == '+')) {
			eneg = *p == '-';
			p++;
		}
		if (p == end || *p < '0' || *p > '9')
			return -EINVAL;
		int e = 0;
		while (p < end && *p >= '0' && *p <= '9') {
			if (e < 100000)
				e = e * 10 + (*p - '0');
			p++;
		}
		exp10 += eneg ? -e : e;
	}
	if (p != end)
		return -EINVAL;
	double v;
	if (mant == 0) {
		v = 0.0;
	} else if (mant < (UINT64_C(1) << 53) && exp10 >= -22 && exp10 <= 22) {
		v = exp10 < 0 ? (double)mant / pow10_exact[-exp10]
		              : (double)mant * pow10_exact[exp10];
	} else {
		v = (double)mant * pow(10.0, exp10);
	}
	if (!isfinite(v))
		return -EINVAL;
	*out = neg ? -v : v;
	return 0;
}

int collect_parse_i64(const char *s, const char *end, int64_t *out)
{
	if (s == end)
		return -EINVAL;
	uint64_t v = 0;
	for (const char *p = s; p < end; p++) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		unsigned d = (unsigned)(*p - '0');
		if (v > ((uint64_t)INT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*out = (int64_t)v;
	return 0;
}

void collect_excerpt(const char *s, const char *end, char *buf, size_t size)
{
	if (size == 0)
		return;
	size_t max = size - 1;
	size_t len = (size_t)(end - s);
	int cut = 0;
	if (len > max) {
		len = max > 3 ? max - 3 : max;
		cut = max > 3;
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		buf[i] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
	}
	if (cut) {
		memcpy(buf + len, "...", 3);
		len += 3;
	}
	buf[len] = '\0';
}

int collect_read_file(const char *what, const char *path, char **out, size_t *out_len,
                      struct collect_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		if (err)
			snprintf(err->msg, sizeof err->msg, "cannot open %s '%s': %s", what, path,
			         strerror(e));
		return -e;
	}
	struct stat st;
	size_t cap = 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
		cap = (size_t)st.st_size + 1;
	if (cap < 4096)
		cap = 4096;
	char *buf = malloc(cap);
	size_t len = 0;
	int rc = 0;
	if (!buf) {
		rc = -ENOMEM;
		goto fail;
	}
	for (;;) {
		if (len + 1 >= cap) {
			size_t ncap = cap * 2;
			char *n = realloc(buf, ncap);
			if (!n) {
				rc = -ENOMEM;
				goto fail;
			}
			buf = n;
			cap = ncap;
		}
		ssize_t r = read(fd, buf + len, cap - 1 - len);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			if (err)
				snprintf(err->msg, sizeof err->msg, "cannot read %s '%s': %s", what,
				         path, strerror(errno));
			goto fail;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	buf[len] = '\0';
	*out = buf;
	*out_len = len;
	return 0;
fail:
	if (rc == -ENOMEM && err)
		snprintf(err->msg, sizeof err->msg, "cannot read %s '%s': %s", what, path,
		         strerror(ENOMEM));
	free(buf);
	close(fd);
	return rc;
}

int collect_parse_duration_s(const char *text, double *out_s)
{
	if (!text)
		return -EINVAL;
	size_t len = strlen(text);
	double scale = 1.0;
	if (len > 2 && strcmp(text + len - 2, "ms") == 0) {
		scale = 1e-3;
		len -= 2;
	} else if (len > 1 && text[len - 1] == 's') {
		len -= 1;
	}
	double v;
	if (collect_parse_number(text, text + len, &v) != 0)
		return -EINVAL;
	*out_s = v * scale;
	return 0;
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
void collect_select(double *v, size_t n, size_t k)
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
