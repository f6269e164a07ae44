/* deck parsers: turn the text of sysfs and procfs files into values.
 *
 * This file owns only text: no file access, no policy about which file is
 * read when.  Every parser says where a malformed file is wrong, as
 * name:line:column, so `rxdeck deck info` can point at the exact spot of
 * an unexpected kernel format.
 */
#include "deck-private.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A cursor over one file's text that knows its line and column. */
struct cur {
	const char *name;
	const char *p, *end;
	const char *line_start;
	int line;
	struct deck_err *err;
};

static void cur_init(struct cur *c, const char *name, const char *text, size_t len,
                     struct deck_err *err)
{
	*c = (struct cur){ .name = name, .p = text, .end = text + len, .line_start = text,
	                   .line = 1, .err = err };
}

static int fail_at(struct cur *c, const char *at, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail_at(struct cur *c, const char *at, int code, const char *fmt, ...)
{
	if (c->err) {
		int n = snprintf(c->err->msg, sizeof c->err->msg, "%s:%d:%d: ", c->name, c->line,
		                 (int)(at - c->line_start) + 1);
		if (n < 0 || (size_t)n >= sizeof c->err->msg)
			return code;
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(c->err->msg + n, sizeof c->err->msg - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return code;
}

static bool at_end(const struct cur *c)
{
	return c->p >= c->end;
}

static void skip_blanks(struct cur *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
		c->p++;
}

/* Moves past the end of the current line. */
static void next_line(struct cur *c)
{
	while (c->p < c->end && *c->p != '\n')
		c->p++;
	if (c->p < c->end) {
		c->p++;
		c->line++;
		c->line_start = c->p;
	}
}

static const char *line_end(const struct cur *c)
{
	const char *e = memchr(c->p, '\n', (size_t)(c->end - c->p));
	return e ? e : c->end;
}

/* A decimal number (optional sign, digits, optional fraction).  Returns
 * false and leaves the cursor when there is none. */
static bool read_number(struct cur *c, double *out)
{
	const char *s = c->p;
	char buf[64];
	size_t n = 0;
	if (s < c->end && (*s == '-' || *s == '+'))
		buf[n++] = *s++;
	const char *digits = s;
	while (s < c->end && isdigit((unsigned char)*s) && n < sizeof buf - 2)
		buf[n++] = *s++;
	if (s < c->end && *s == '.' && n < sizeof buf - 2) {
		buf[n++] = *s++;
		while (s < c->end && isdigit((unsigned char)*s) && n < sizeof buf - 2)
			buf[n++] = *s++;
	}
	if (s == digits || (s == digits + 1 && *digits == '.'))
		return false;
	if (s < c->end && isdigit((unsigned char)*s))
		return false; /* absurdly long */
	buf[n] = '\0';
	double v = strtod(buf, NULL);
	if (!isfinite(v))
		return false;
	*out = v;
	c->p = s;
	return true;
}

static bool read_u64(struct cur *c, uint64_t *out)
{
	const char *s = c->p;
	uint64_t v = 0;
	while (s < c->end && isdigit((unsigned char)*s)) {
		unsigned d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
		s++;
	}
	if (s == c->p)
		return false;
	*out = v;
	c->p = s;
	return true;
}

/* Only blanks and newlines left? */
static int expect_end(struct cur *c)
{
	for (;;) {
		skip_blanks(c);
		if (at_end(c))
			return 0;
		if (*c->p == '\n' || *c->p == '\r') {
			if (*c->p == '\r')
				c->p++;
			else
				next_line(c);
			continue;
		}
		return fail_at(c, c->p, -EINVAL, "unexpected '%c' after the value", *c->p);
	}
}

int deck_parse_number(const char *name, const char *text, size_t len, double *out,
                      struct deck_err *err)
{
	struct cur c;
	cur_init(&c, name, text, len, err);
	skip_blanks(&c);
	if (at_end(&c) || *c.p == '\n')
		return fail_at(&c, c.p, -EINVAL, "empty, expected a number");
	double v;
	if (!read_number(&c, &v))
		return fail_at(&c, c.p, -EINVAL, "expected a number");
	int e = expect_end(&c);
	if (e)
		return e;
	*out = v;
	return 0;
}

/* "MHZ" followed by "Mhz"/"MHz" (any case). */
static bool read_mhz(struct cur *c, double *out)
{
	const char *save = c->p;
	double v;
	if (!read_number(c, &v))
		return false;
	if (c->end - c->p < 3 || strncasecmp(c->p, "mhz", 3) != 0) {
		c->p = save;
		return false;
	}
	c->p += 3;
	*out = v;
	return true;
}

int deck_parse_sclk(const char *name, const char *text, size_t len, double *mhz_out,
                    struct deck_err *err)
{
	struct cur c;
	cur_init(&c, name, text, len, err);
	bool found = false;
	double current = 0;
	int lines = 0;
	while (!at_end(&c)) {
		skip_blanks(&c);
		if (at_end(&c))
			break;
		if (*c.p == '\n') {
			next_line(&c);
			continue;
		}
		lines++;
		/* Level index: digits, or "S" for the deep-sleep level. */
		if (*c.p == 'S' || *c.p == 's') {
			c.p++;
		} else {
			uint64_t idx;
			if (!read_u64(&c, &idx))
				return fail_at(&c, c.p, -EINVAL, "expected a level number");
		}
		if (at_end(&c) || *c.p != ':')
			return fail_at(&c, c.p, -EINVAL, "expected ':' after the level number");
		c.p++;
		skip_blanks(&c);
		double mhz;
		if (!read_mhz(&c, &mhz))
			return fail_at(&c, c.p, -EINVAL, "expected a clock like '1600Mhz'");
		skip_blanks(&c);
		if (!at_end(&c) && *c.p == '*') {
			if (found)
				return fail_at(&c, c.p, -EINVAL, "a second level marked '*'");
			found = true;
			current = mhz;
			c.p++;
			skip_blanks(&c);
		}
		if (!at_end(&c) && *c.p != '\n')
			return fail_at(&c, c.p, -EINVAL, "unexpected '%c' after the clock", *c.p);
		next_line(&c);
	}
	if (!found) {
		c.line_start = c.p;
		return fail_at(&c, c.p, lines ? -ENOENT : -EINVAL,
		               lines ? "no level is marked '*' as current" : "empty, expected levels");
	}
	*mhz_out = current;
	return 0;
}

int deck_parse_od_range(const char *name, const char *text, size_t len, unsigned *min_mhz,
                        unsigned *max_mhz, struct deck_err *err)
{
	struct cur c;
	cur_init(&c, name, text, len, err);
	bool in_range = false;
	while (!at_end(&c)) {
		skip_blanks(&c);
		const char *e = line_end(&c);
		size_t n = (size_t)(e - c.p);
		if (n > 0 && c.p[0] != ' ' && n >= 3 && strncmp(c.p, "OD_", 3) == 0)
			in_range = n >= 9 && strncmp(c.p, "OD_RANGE:", 9) == 0;
		else if (in_range && n >= 5 && strncmp(c.p, "SCLK:", 5) == 0) {
			c.p += 5;
			double lo, hi;
			skip_blanks(&c);
			if (!read_mhz(&c, &lo))
				return fail_at(&c, c.p, -EINVAL, "expected the lowest clock like '200Mhz'");
			skip_blanks(&c);
			if (!read_mhz(&c, &hi))
				return fail_at(&c, c.p, -EINVAL, "expected the highest clock like '1600Mhz'");
			skip_blanks(&c);
			if (!at_end(&c) && *c.p != '\n' && *c.p != '\r')
				return fail_at(&c, c.p, -EINVAL, "unexpected '%c' after the range", *c.p);
			if (lo < 0 || hi < lo || hi > 100000)
				return fail_at(&c, c.line_start, -EINVAL, "%g to %g MHz is not a range",
				               lo, hi);
			*min_mhz = (unsigned)lo;
			*max_mhz = (unsigned)hi;
			return 0;
		}
		next_line(&c);
	}
	return fail_at(&c, c.p, -ENOENT, "no 'SCLK:' line in an 'OD_RANGE:' section");
}

/* Matches key at the cursor as a whole word. */
static bool match_key(const struct cur *c, const char *key)
{
	size_t k = strlen(key);
	return (size_t)(c->end - c->p) >= k && memcmp(c->p, key, k) == 0;
}

int deck_parse_vmstat(const char *name, const char *text, size_t len, const char *key,
                      uint64_t *out, struct deck_err *err)
{
	struct cur c;
	cur_init(&c, name, text, len, err);
	size_t k = strlen(key);
	while (!at_end(&c)) {
		if (match_key(&c, key) && (size_t)(c.end - c.p) > k &&
		    (c.p[k] == ' ' || c.p[k] == '\t')) {
			c.p += k;
			skip_blanks(&c);
			uint64_t v;
			if (!read_u64(&c, &v))
				return fail_at(&c, c.p, -EINVAL, "expected a count after '%s'", key);
			skip_blanks(&c);
			if (!at_end(&c) && *c.p != '\n')
				return fail_at(&c, c.p, -EINVAL, "unexpected '%c' after the count", *c.p);
			*out = v;
			return 0;
		}
		next_line(&c);
	}
	return fail_at(&c, c.p, -ENOENT, "no '%s' line", key);
}

int deck_parse_loadavg(const char *name, const char *text, size_t len, double out[3],
                       struct deck_err *err)
{
	struct cur c;
	cur_init(&c, name, text, len, err);
	double v[3];
	for (int i = 0; i < 3; i++) {
		skip_blanks(&c);
		if (!read_number(&c, &v[i]) || v[i] < 0)
			return fail_at(&c, c.p, -EINVAL, "expected the %s load average",
			               i == 0 ? "1-minute" : i == 1 ? "5-minute" : "15-minute");
		if (i < 2 && (at_end(&c) || (*c.p != ' ' && *c.p != '\t')))
			return fail_at(&c, c.p, -EINVAL, "expected a space between load averages");
	}
	/* The rest ("2/345 6789") is not ours to judge beyond one line. */
	out[0] = v[0];
	out[1] = v[1];
	out[2] = v[2];
	return 0;
}

int deck_parse_os_release(const char *name, const char *text, size_t len, const char *key,
                          char **out, struct deck_err *err)
{
	struct cur c;
	cur_init(&c, name, text, len, err);
	while (!at_end(&c)) {
		skip_blanks(&c);
		if (at_end(&c))
			break;
		if (*c.p == '\n' || *c.p == '#') {
			next_line(&c);
			continue;
		}
		const char *k = c.p;
		while (c.p < c.end && (isalnum((unsigned char)*c.p) || *c.p == '_'))
			c.p++;
		if (c.p == k || at_end(&c) || *c.p != '=')
			return fail_at(&c, c.p, -EINVAL, "expected KEY=VALUE");
		bool wanted = (size_t)(c.p - k) == strlen(key) && memcmp(k, key, strlen(key)) == 0;
		c.p++;
		/* The value: runs of bare text and quoted strings. */
		size_t cap = (size_t)(line_end(&c) - c.p) + 1;
		char *v = malloc(cap);
		if (!v)
			return -ENOMEM;
		size_t n = 0;
		while (!at_end(&c) && *c.p != '\n') {
			char q = *c.p;
			if (q == '"' || q == '\'') {
				const char *open = c.p++;
				while (!at_end(&c) && *c.p != q && *c.p != '\n') {
					if (q == '"' && *c.p == '\\' && c.p + 1 < c.end && c.p[1] != '\n')
						c.p++;
					v[n++] = *c.p++;
				}
				if (at_end(&c) || *c.p != q) {
					free(v);
					return fail_at(&c, open, -EINVAL, "unterminated %c quote", q);
				}
				c.p++;
			} else if (q == ' ' || q == '\t') {
				const char *sp = c.p;
				skip_blanks(&c);
				if (!at_end(&c) && *c.p != '\n' && *c.p != '#') {
					free(v);
					return fail_at(&c, sp, -EINVAL, "a value with spaces must be quoted");
				}
				break;
			} else if (q == '\\' && c.p + 1 < c.end && c.p[1] != '\n') {
				c.p++;
				v[n++] = *c.p++;
			} else if (q == '\r') {
				c.p++;
			} else {
				v[n++] = *c.p++;
			}
		}
		v[n] = '\0';
		if (wanted) {
			*out = v;
			return 0;
		}
		free(v);
		next_line(&c);
	}
	return fail_at(&c, c.p, -ENOENT, "no %s", key);
}

static char *trimmed_copy(const char *s, const char *e)
{
	while (s < e && isspace((unsigned char)*s))
		s++;
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	return strndup(s, (size_t)(e - s));
}

int deck_parse_colon_field(const char *name, const char *text, size_t len, const char *key,
                           char **out, struct deck_err *err)
{
	struct cur c;
	cur_init(&c, name, text, len, err);
	size_t k = strlen(key);
	while (!at_end(&c)) {
		if (match_key(&c, key)) {
			const char *s = c.p + k;
			while (s < c.end && (*s == ' ' || *s == '\t'))
				s++;
			if (s < c.end && *s == ':') {
				char *v = trimmed_copy(s + 1, line_end(&c));
				if (!v)
					return -ENOMEM;
				*out = v;
				return 0;
			}
		}
		next_line(&c);
	}
	return fail_at(&c, c.p, -ENOENT, "no '%s' line", key);
}

int deck_parse_meminfo_total(const char *name, const char *text, size_t len, int64_t *out_B,
                             struct deck_err *err)
{
	struct cur c;
	cur_init(&c, name, text, len, err);
	while (!at_end(&c)) {
		if (match_key(&c, "MemTotal:")) {
			c.p += 9;
			skip_blanks(&c);
			uint64_t kb;
			if (!read_u64(&c, &kb) || kb > (uint64_t)INT64_MAX / 1024)
				return fail_at(&c, c.p, -EINVAL, "expected the memory size in kB");
			skip_blanks(&c);
			if ((size_t)(c.end - c.p) < 2 || strncmp(c.p, "kB", 2) != 0)
				return fail_at(&c, c.p, -EINVAL, "expected 'kB' after the size");
			*out_B = (int64_t)kb * 1024;
			return 0;
		}
		next_line(&c);
	}
	return fail_at(&c, c.p, -ENOENT, "no 'MemTotal:' line");
}

int deck_parse_dpkg_version(const char *name, const char *text, size_t len,
                            const char *package, char **out, struct deck_err *err)
{
	struct cur c;
	cur_init(&c, name, text, len, err);
	/* Stanzas of "Field: value" lines (continuations start with a space),
	 * separated by blank lines. */
	bool is_pkg = false, installed = false;
	char *version = NULL;
	for (;;) {
		bool stanza_end = at_end(&c) || *c.p == '\n';
		if (stanza_end) {
			if (is_pkg && installed && version) {
				*out = version;
				return 0;
			}
			free(version);
			version = NULL;
			is_pkg = installed = false;
			if (at_end(&c))
				break;
			next_line(&c);
			continue;
		}
		const char *e = line_end(&c);
		if (*c.p != ' ' && *c.p != '\t') {
			const char *colon = memchr(c.p, ':', (size_t)(e - c.p));
			if (!colon) {
				free(version);
				return fail_at(&c, c.p, -EINVAL, "expected 'Field: value'");
			}
			size_t fl = (size_t)(colon - c.p);
			char *value = trimmed_copy(colon + 1, e);
			if (!value) {
				free(version);
				return -ENOMEM;
			}
			if (fl == 7 && strncmp(c.p, "Package", 7) == 0)
				is_pkg = strcmp(value, package) == 0;
			else if (fl == 6 && strncmp(c.p, "Status", 6) == 0)
				installed = strcmp(value, "install ok installed") == 0;
			else if (fl == 7 && strncmp(c.p, "Version", 7) == 0) {
				free(version);
				version = value;
				value = NULL;
			}
			free(value);
		}
		next_line(&c);
	}
	return fail_at(&c, c.p, -ENOENT, "package '%s' is not installed", package);
}

int deck_parse_pacman_dir(const char *dir_name, const char *package, char **out)
{
	/* NAME may hold '-', VERSION and REL may not: split at the last two. */
	const char *rel = strrchr(dir_name, '-');
	if (!rel || rel == dir_name)
		return -ENOENT;
	const char *ver = rel;
	do
		ver--;
	while (ver > dir_name && *ver != '-');
	if (ver == dir_name || *ver != '-')
		return -ENOENT;
	size_t nl = strlen(package);
	if ((size_t)(ver - dir_name) != nl || strncmp(dir_name, package, nl) != 0)
		return -ENOENT;
	if (!ver[1] || ver + 1 == rel || !rel[1])
		return -ENOENT;
	char *v = strdup(ver + 1);
	if (!v)
		return -ENOMEM;
	*out = v;
	return 0;
}

int deck_parse_word(const char *name, const char *text, size_t len, char *buf, size_t size,
                    struct deck_err *err)
{
	struct cur c;
	cur_init(&c, name, text, len, err);
	skip_blanks(&c);
	const char *s = c.p;
	while (c.p < c.end && *c.p != '\n' && *c.p != '\r')
		c.p++;
	const char *e = c.p;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	if (e == s)
		return fail_at(&c, s, -EINVAL, "empty");
	for (const char *p = s; p < e; p++)
		if (!isprint((unsigned char)*p))
			return fail_at(&c, p, -EINVAL, "unexpected byte 0x%02x", (unsigned char)*p);
	int end = expect_end(&c);
	if (end)
		return end;
	if ((size_t)(e - s) + 1 > size)
		return -ERANGE;
	memcpy(buf, s, (size_t)(e - s));
	buf[e - s] = '\0';
	return 0;
}

int deck_parse_zram_algorithm(const char *name, const char *text, size_t len, char *buf,
                              size_t size, struct deck_err *err)
{
	struct cur c;
	cur_init(&c, name, text, len, err);
	const char *end = line_end(&c);
	const char *open = memchr(text, '[', (size_t)(end - text));
	if (!open)
		return fail_at(&c, text, -EINVAL, "no algorithm in brackets (the one in use)");
	const char *close = memchr(open, ']', (size_t)(end - open));
	if (!close || close == open + 1)
		return fail_at(&c, open, -EINVAL, "unclosed or empty brackets");
	for (const char *p = open + 1; p < close; p++)
		if (!isgraph((unsigned char)*p))
			return fail_at(&c, p, -EINVAL, "unexpected byte 0x%02x", (unsigned char)*p);
	if ((size_t)(close - open - 1) + 1 > size)
		return fail_at(&c, open, -EINVAL, "algorithm name too long");
	memcpy(buf, open + 1, (size_t)(close - open - 1));
	buf[close - open - 1] = '\0';
	return 0;
}
