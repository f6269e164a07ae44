/* plan-private: what plan-parse.c and plan.c share, not for other modules. */
#ifndef RXDECK_PLAN_PRIVATE_H
#define RXDECK_PLAN_PRIVATE_H

#include "plan.h"

/* Plans and profiles larger than this are refused unread. */
#define PLAN_MAX_FILE_B (1024 * 1024)

/* util_diag_set() with the plan's rules: no file is "plan", a line of 0
 * or less is the whole file (column 0), a column below 1 is 1. */
void plan_diag_set(struct util_diag *e, const char *file, int line, int column,
                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* The parser's defaults (before any key). */
void plan_defaults(struct plan *p);
bool plan_strv_contains(const struct plan_strv *l, const char *s);
/* Replaces dst with a copy of src.  0 or -ENOMEM (dst unchanged). */
int plan_strv_copy(struct plan_strv *dst, const struct plan_strv *src);

#endif
