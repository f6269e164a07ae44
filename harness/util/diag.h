/* diag: the one diagnostic every harness parser reports (route files, plans
 * and their command-line overrides, env profiles): where (the file as it was
 * named, 1-based line and column in bytes) and what is wrong.  A parser
 * fills one per error, hands each to its caller's on_error callback and the
 * first back through its err argument; util_diag_format() gives the house
 * form, "file:line:column: message".
 *
 * Header-only: it depends on nothing but libc, and any harness module may
 * include it.
 */
#ifndef RXDECK_UTIL_DIAG_H
#define RXDECK_UTIL_DIAG_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct util_diag {
	char file[512];    /* the file as it was named ("night.ini", "--rounds"); may be "" */
	int line;          /* 1-based; 0 when it is about the whole file (the message names it) */
	int column;        /* 1-based, in bytes; 0 with line 0 */
	char message[256]; /* lowercase, no trailing newline */
};

/* Fills d: file (NULL: ""), line, column and the formatted message, each
 * cut to its field. */
static inline void util_diag_vset(struct util_diag *d, const char *file, int line, int column,
                                  const char *fmt, va_list ap)
{
	memset(d, 0, sizeof *d);
	snprintf(d->file, sizeof d->file, "%s", file ? file : "");
	d->line = line;
	d->column = column;
	vsnprintf(d->message, sizeof d->message, fmt, ap);
}

static inline void util_diag_set(struct util_diag *d, const char *file, int line, int column,
                                 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static inline void util_diag_set(struct util_diag *d, const char *file, int line, int column,
                                 const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	util_diag_vset(d, file, line, column, fmt, ap);
	va_end(ap);
}

/* "file:line:column: message", or the message alone for line 0, into buf
 * (cut to size); returns what snprintf() returns. */
static inline int util_diag_format(const struct util_diag *d, char *buf, size_t size)
{
	if (d->line > 0)
		return snprintf(buf, size, "%s:%d:%d: %s", d->file, d->line, d->column, d->message);
	return snprintf(buf, size, "%s", d->message);
}

/* util_diag_format()'s text and a newline, to f. */
static inline void util_diag_print(const struct util_diag *d, FILE *f)
{
	if (d->line > 0)
		fprintf(f, "%s:%d:%d: %s\n", d->file, d->line, d->column, d->message);
	else
		fprintf(f, "%s\n", d->message);
}

#endif
