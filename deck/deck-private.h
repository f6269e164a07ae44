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

#include <stdbool.h>
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

/* amdgpu's binary gpu_metrics, format 2 (APU), v2.1 and later: the fields the
 * samplers use, in the units of their names.  A field the firmware leaves
 * unfilled (0xffff) is NAN. */
struct deck_gpu_metrics {
	unsigned format, content;   /* 2, 1 and later */
	unsigned size;              /* the header's structure_size */
	double gfx_activity_pct;    /* average_gfx_activity, 0..100 */
	double socket_power_w;      /* average_socket_power: the whole APU */
	double cpu_power_w;         /* average_cpu_power */
	double soc_power_w;         /* average_soc_power */
	double gfx_power_w;         /* average_gfx_power: the GPU alone */
	double temp_gfx_c;          /* temperature_gfx */
	double temp_soc_c;          /* temperature_soc */
	double gfxclk_mhz;          /* current_gfxclk */
	double fclk_mhz;            /* current_fclk */
	double fan_pwm;             /* fan_pwm (not filled on Van Gogh) */
	uint32_t throttle_status;   /* ASIC-dependent bits */
	bool has_indep_throttle;    /* v2.2 and later */
	uint64_t indep_throttle_status; /* amdgpu_smu.h's SMU_THROTTLER_* bits: 0-15
	                                   power, 16-31 current, 32-55 temperature */
};

#define DECK_THROTTLE_POWER_MASK 0x000000000000ffffULL
#define DECK_THROTTLE_CURRENT_MASK 0x00000000ffff0000ULL
#define DECK_THROTTLE_THERMAL_MASK 0x00ffffff00000000ULL

/* Parses a gpu_metrics file's bytes.  -EOPNOTSUPP with "name: byte N:
 * not read: vF.C (...)" for a format other than 2 and for v2.0; -EINVAL
 * "name: byte N: what" for a table whose header's size stops before the
 * last field read for its revision, or that is cut short of that size.
 * A v2.x newer than 2.4 is read with v2.4's offsets (each revision only
 * appended fields). */
int deck_parse_gpu_metrics(const char *name, const void *bytes, size_t len,
                           struct deck_gpu_metrics *out, struct deck_err *err);

/* An EDID block's first detailed timing (the preferred mode): its size and
 * refresh rate, pixel clock / (htotal * vtotal).  -EINVAL "name: byte N:"
 * for a block without the EDID header, a bad checksum or no timing. */
int deck_parse_edid_mode(const char *name, const void *bytes, size_t len, unsigned *width,
                         unsigned *height, double *refresh_hz, struct deck_err *err);

/* zram's comp_algorithm ("lzo lzo-rle [zstd]"): the bracketed one.
 * -EINVAL when none is bracketed. */
int deck_parse_zram_algorithm(const char *name, const char *text, size_t len, char *buf,
                              size_t size, struct deck_err *err);

#endif
