/* util: the few helpers every harness module had written for itself: the
 * whole-file reader, the clocks, the stop-signal set-up, paths, making
 * folders and replacing files safely, a list of warning lines and the
 * selection of a rank (for percentiles and medians).  It depends on nothing but libc, and
 * any harness module may include it (harness/README.md).
 *
 * Fallible functions return 0 or a negative errno and leave their outputs
 * untouched on failure.
 */
#ifndef RXDECK_UTIL_H
#define RXDECK_UTIL_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum util_read_flags {
	UTIL_READ_REGULAR = 1 << 0, /* only a regular file: -ENOTSUP at once for a FIFO
	                               (never waiting for a writer) or a device */
};

/*
 * Reads the whole file at path into *text_out (malloc'd, NUL-terminated;
 * the caller frees it) and its length in bytes into *len_out.  Pipes and
 * other streams are read to their end unless UTIL_READ_REGULAR.  Returns 0;
 * -EISDIR for a folder; -EFBIG past max_B bytes (0: no limit); -ENOMEM; or
 * open()'s and read()'s negative errno.
 */
int util_read_file(const char *path, size_t max_B, unsigned flags, char **text_out,
                   size_t *len_out);

/*
 * Asks the kernel to back the 2 MiB-aligned interior of [p, p + len) with
 * huge pages (madvise MADV_HUGEPAGE) when len is at least 4 MiB: a
 * million-frame log's buffers then fault in 2 MiB at a time instead of
 * 4 KiB (docs/performance.md, "a million frames").  Only a hint: errors
 * are ignored, and the memory is freed as usual.
 */
void util_hint_huge(void *p, size_t len);

/* CLOCK_MONOTONIC in ns: for intervals and deadlines. */
int64_t util_now_ns(void);
/* The wall clock (CLOCK_REALTIME) in ms since 1970: for what is stored. */
int64_t util_unix_ms(void);

/*
 * The stop signals: SIGINT, SIGTERM and SIGHUP go to handler (with
 * sa_flags, e.g. SA_RESETHAND so that a second one acts as usual), SIGPIPE
 * is ignored so that a closed pipe is an EPIPE where it is written.  The
 * handler owns what it sets (a volatile sig_atomic_t flag, a self-pipe).
 */
void util_stop_signals(void (*handler)(int), int sa_flags);

/* dir + "/" + name (name as is when it is absolute or dir is NULL or "");
 * malloc'd, NULL when out of memory. */
char *util_path_join(const char *dir, const char *name);
/* realpath(), or the current folder + path for a path that does not exist
 * yet; malloc'd, NULL on failure. */
char *util_path_absolute(const char *path);

/* Makes dir and its missing parents with mode; 0 when it is a folder
 * already; -ENOTDIR when something else is in the way. */
int util_mkdir_p(const char *dir, mode_t mode);

/*
 * Writes len bytes to path through a temporary file beside it (mode 0644),
 * fsynced and renamed over path once complete: path is the old file or
 * the whole new one, never a part.  0 or a negative errno.
 */
int util_write_file_atomic(const char *path, const char *data, size_t len);


/* An owned list of warning lines (no trailing newline).  Zero-initialised
 * is an empty list.  Lists keep at most UTIL_WARNINGS_MAX entries; past
 * that, adds are counted in `dropped` and the list's last entry says how
 * many were left out once util_warnings_seal() is called. */
struct util_warnings {
	char **v;
	size_t n;
	size_t dropped;
};
#define UTIL_WARNINGS_MAX 64

/* Appends a formatted warning.  Returns 0 or -ENOMEM (the list is
 * unchanged then). */
int util_warnings_add(struct util_warnings *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Appends every entry of src to dst (copies). Returns 0 or -ENOMEM. */
int util_warnings_append(struct util_warnings *dst, const struct util_warnings *src);
/* Adds the "N more warnings left out" line when entries were dropped. */
void util_warnings_seal(struct util_warnings *w);
/* Frees the entries; the list is empty afterwards.  NULL is a no-op. */
void util_warnings_finish(struct util_warnings *w);

/*
 * Reorders v[0..n) so that v[k] is the value of 0-based rank k in ascending
 * order, everything before it <= v[k] and everything after >= v[k]
 * (quickselect, O(n) expected, O(n log n) at worst).  k < n; v holds no NaN.
 */
void util_select(double *v, size_t n, size_t k);

#endif
