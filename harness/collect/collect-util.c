/* collect-util: the collect module's small shared pieces: warning lists,
 * locale-free number parsing, whole-file reads, durations with units and
 * message excerpts.  It owns no format; the parsers live in their own
 * files. */
#include "collect-private.h"
#include "util/util.h"

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
	int rc = util_read_file(path, 0, 0, out, out_len);
	if (rc < 0 && err) {
		/* a folder opens and then fails to read, as does memory */
		bool read_failed = rc == -EISDIR || rc == -ENOMEM || rc == -EIO;
		snprintf(err->msg, sizeof err->msg, "cannot %s %s '%s': %s",
		         read_failed ? "read" : "open", what, path, strerror(-rc));
	}
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

