/* collect-private: helpers shared by the collect module's files only.
 * Number parsing here is locale-free on purpose: a frame log written on a
 * machine with a decimal comma locale still reads the same. */
#ifndef RXDECK_COLLECT_PRIVATE_H
#define RXDECK_COLLECT_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include "collect.h"

/* Parses all of [s, end) as a decimal number ("-12", "16.667", "1.5e3").
 * Returns 0 with *out set, or -EINVAL (nothing, junk, inf/nan). */
int collect_parse_number(const char *s, const char *end, double *out);

/* Parses all of [s, end) as a non-negative decimal integer that fits in
 * int64_t.  Returns 0 or -EINVAL (-ERANGE when too large). */
int collect_parse_i64(const char *s, const char *end, int64_t *out);

/* Copies at most max bytes of [s, end) into a printable, quoted-safe
 * excerpt for messages (control bytes shown as '?', "..." when cut). */
void collect_excerpt(const char *s, const char *end, char *buf, size_t size);

/* strdup that returns NULL on NULL. */
char *collect_strdup(const char *s);

#endif
