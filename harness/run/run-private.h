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

/* ---- what the commands share (run-cmd.c) ---- */

/* Posting at a campaign's end: --post with --forge, --repo, --pr, --update. */
struct run_cmd_post {
	bool post;
	struct forge_target target;
};
enum {
	RUN_CMD_POST = 100,
	RUN_CMD_POST_FORGE,
	RUN_CMD_POST_REPO,
	RUN_CMD_POST_PR,
	RUN_CMD_POST_UPDATE,
};
#define RUN_CMD_POST_OPTIONS \
	{ "post", 0, 0, NULL, "at the end, post the summary to a forge (with --forge, --repo, --pr)", RUN_CMD_POST }, \
	{ "forge", 0, 1, "URL", "the forge to post to, https://forge.example.org", RUN_CMD_POST_FORGE }, \
	{ "repo", 0, 1, "OWNER/NAME", "the repository to post to", RUN_CMD_POST_REPO }, \
	{ "pr", 0, 1, "N", "the pull request or issue to post to", RUN_CMD_POST_PR }, \
	{ "update", 0, 0, NULL, "edit the campaign's earlier comment in place", RUN_CMD_POST_UPDATE }

/* Installs the stop handlers (SIGINT, SIGTERM, SIGHUP; SIGPIPE ignored)
 * and returns the flag they set. */
volatile sig_atomic_t *run_cmd_signals(void);
/* Opens the database (path NULL: the default), printing why not. */
int run_cmd_open_db(const char *command, const char *path, bool create, struct db **out);
/* An arm letter for --baseline. */
int run_cmd_baseline(const char *command, const char *arg, char *out);
/* One of the RUN_CMD_POST_* options. */
int run_cmd_post_option(const char *command, struct run_cmd_post *post, int which, char **args);
/* --post without its target, or a target without --post, is a usage error. */
int run_cmd_post_check(const char *command, struct run_cmd_post *post);
/* The end of a campaign: the interrupted message, or the table and the
 * post.  Returns the exit code. */
int run_cmd_finish(const char *command, struct db *db, struct run_campaign *c,
                   const struct run_outcome *o, const struct run_cmd_post *post, char baseline,
                   bool quiet);

#endif
