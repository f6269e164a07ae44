/* run-private: helpers the run module's files share, not for other modules. */
#ifndef RXDECK_RUN_PRIVATE_H
#define RXDECK_RUN_PRIVATE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "run.h"
#include "forge/forge.h"

/* Writes the formatted message into buf (if any) and returns rc. */
int run_errf(char *buf, size_t size, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* dir + "/" + name (name as is when absolute or dir is empty); malloc'd. */
char *run_path_join(const char *dir, const char *name);
/* realpath, or cwd + path for a path that does not exist yet; malloc'd. */
char *run_path_absolute(const char *path);
/* mkdir -p with mode 0700 for the folders it makes.  0 or -errno. */
int run_mkdirs(const char *path);
/* CLOCK_MONOTONIC and CLOCK_REALTIME now. */
int64_t run_now_ns(void);
int64_t run_unix_ms(void);
/* "1h02m", "4m12s", "9s" */
void run_format_duration(double s, char *buf, size_t size);

/* Chooses the pad for a plan on this host: "uinput" where /dev/uinput is
 * usable (unless the plan asks for the socket), else a socket path that
 * fits a socket address.  Fails, saying why, when a build cannot use the
 * socket (no pad_option) and uinput is not usable.  spec may be NULL (just
 * the check). */
int run_pad_choose(const struct plan *p, char *spec, size_t spec_size, char *errmsg, size_t size);

/* The GPU name and driver info of the renderer's "vk: device N: NAME
 * (DRIVER), Vulkan X.Y, TYPE" line in config (malloc'd).  -ENOENT. */
int run_parse_device_line(const char *config, char **gpu, char **driver);

#endif
