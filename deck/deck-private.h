/* deck internals: the text parsers for sysfs/procfs files, kept apart so
 * the fuzz target and the tests can call them on any bytes.
 *
 * Each parser takes the file's name (for messages), its text and length
 * (not necessarily NUL-terminated), and on a malformed file returns
 * -EINVAL with "name:line:column: what is wrong" in err.  Outputs are
 * written only on success.
 */
#ifndef RXDECK_DECK_PRIVATE_H
#define RXDECK_DECK_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

struct deck_err {
	char msg[512];
};

/* A file holding one number ("42\n", "-3.5"), spaces around allowed. */
int deck_parse_number(const char *name, const char *text, size_t len, double *out,
                      struct deck_err *err);

/* pp_dpm_sclk: lines "N: MHZMhz" with the current one marked " *".
 * -ENOENT (with a message) when no line is marked. */
int deck_parse_sclk(const char *name, const char *text, size_t len, double *mhz_out,
                    struct deck_err *err);

/* pp_od_clk_voltage: the "SCLK: MINMhz MAXMhz" line of its OD_RANGE
 * section.  -ENOENT when there is none. */
int deck_parse_od_range(const char *name, const char *text, size_t len, unsigned *min_mhz,
                        unsigned *max_mhz, struct deck_err *err);

/* /proc/vmstat style "key value" lines: key's value.  -ENOENT when absent. */
int deck_parse_vmstat(const char *name, const char *text, size_t len, const char *key,
                      uint64_t *out, struct deck_err *err);

/* /proc/loadavg: the three load averages. */
int deck_parse_loadavg(const char *name, const char *text, size_t len, double out[3],
                       struct deck_err *err);

/* os-release: KEY=VALUE lines, VALUE bare or quoted ('...' or "..." with
 * backslash escapes), # comments.  *out malloc'd.  -ENOENT when absent. */
int deck_parse_os_release(const char *name, const char *text, size_t len, const char *key,
                          char **out, struct deck_err *err);

/* /proc/cpuinfo and /proc/meminfo style "key<spaces/tabs>: value" lines:
 * the first value of key, trimmed.  *out malloc'd.  -ENOENT when absent. */
int deck_parse_colon_field(const char *name, const char *text, size_t len, const char *key,
                           char **out, struct deck_err *err);

/* /proc/meminfo MemTotal in bytes. */
int deck_parse_meminfo_total(const char *name, const char *text, size_t len, int64_t *out_B,
                             struct deck_err *err);

/* dpkg's status file: the Version of an installed package.  *out malloc'd.
 * -ENOENT when it is not installed. */
int deck_parse_dpkg_version(const char *name, const char *text, size_t len,
                            const char *package, char **out, struct deck_err *err);

/* pacman's local database folder name "NAME-VERSION-REL" for package:
 * "VERSION-REL" (epoch kept).  -ENOENT for another package's folder. */
int deck_parse_pacman_dir(const char *dir_name, const char *package, char **out);

/* A one-word file (power_dpm_force_performance_level, type, status):
 * the word, trimmed.  -EINVAL when empty or more than one line of text. */
int deck_parse_word(const char *name, const char *text, size_t len, char *buf, size_t size,
                    struct deck_err *err);

#endif
