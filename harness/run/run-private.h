/* run-private: helpers the run module's files share, not for other modules. */
#ifndef RXDECK_RUN_PRIVATE_H
#define RXDECK_RUN_PRIVATE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "run.h"
#include "deck/deck.h"

/* Writes the formatted message into buf (if any) and returns rc. */
int run_errf(char *buf, size_t size, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Chooses the pad for a plan on this host: "uinput" where /dev/uinput is
 * usable (unless the plan asks for the socket), else a socket path that
 * fits a socket address.  Fails, saying why, when a build cannot use the
 * socket (no pad_option) and uinput is not usable.  spec may be NULL (just
 * the check). */
int run_pad_choose(const struct plan *p, char *spec, size_t spec_size, char *errmsg, size_t size);

/* The GPU name and driver info of the renderer's "vk: device N: NAME
 * (DRIVER), Vulkan X.Y, TYPE" line in config (malloc'd).  -ENOENT. */
int run_parse_device_line(const char *config, char **gpu, char **driver);

/* ---- the device around a campaign (run-device.c) ---- */

struct deck;
struct deck_sample;
struct deck_inhibitor;
struct deck_control;
struct plan_arm;
struct run_collected;

struct run_device {
	struct deck *deck;                 /* borrowed; NULL: no sysfs */
	struct deck_inhibitor *inhibitor;  /* logind's, while the campaign plays */
	struct deck_control *control;      /* when the plan sets gpu_clock or tdp_w */
	struct deck_control_state saved;   /* put back by run_device_end() */
	bool saved_ok;
	char state_path[4096];             /* DATA_DIR/device-state */
	double min_battery_pct;
	double poll_s;                     /* AC polling while on battery (5 s) */
	unsigned asked_mhz;                /* this run's gpu_clock, 0: none */
	double asked_w;                    /* this run's tdp_w, 0: none */
	FILE *progress;
	bool quiet;
};

/* The host's sleeps, told per run (run-sleep.c). */
struct run_sleep {
	int64_t (*suspended_ns)(void *ctx); /* NULL: deck_suspended_ns() */
	void *ctx;
	struct deck_sleep_watch *watch;     /* logind's PrepareForSleep; NULL: none */
	int64_t mark_ns;
	unsigned mark_signals;
};

/* Opens the watch (quietly without a system bus: the clock alone tells). */
void run_sleep_begin(struct run_sleep *s, int64_t (*suspended_ns)(void *ctx), void *ctx);
/* Before a run. */
void run_sleep_mark(struct run_sleep *s);
/* After it: true, with "host slept: ..." in reason, when the host was
 * suspended (for a second or more) or logind announced a suspend since
 * the mark; else false and "". */
bool run_sleep_check(struct run_sleep *s, char *reason, size_t size);
void run_sleep_end(struct run_sleep *s);

/* Before a campaign is made (nothing written yet): when the plan sets a
 * clock or TDP, a route to them exists (else -ENODEV naming every route
 * tried) and every arm's ask is within its ranges (else -ERANGE naming
 * the arm, the range and its source).  Asks only; writes nothing. */
int run_device_check_plan(struct deck *deck, const struct plan *p, char *errmsg, size_t size);

/* Puts back a state a killed harness left, takes the sleep inhibitor (a
 * line when logind refuses; not an error), and when the plan sets a clock
 * or TDP saves what is in force into the state file. */
int run_device_begin(struct run_device *dev, struct deck *deck, const struct plan *p,
                     const char *data_dir, const char *campaign, char *errmsg, size_t size);
/* Waits for AC (said once), sets *stop_now on a battery below
 * min_battery_pct or a stop request while waiting; applies the arm's clock
 * and TDP (an error names what refused). */
int run_device_before_run(struct run_device *dev, const struct plan *p,
                          const struct plan_arm *arm, volatile sig_atomic_t *stop,
                          bool *stop_now, char *errmsg, size_t size);
/* Adds the asked and observed clock/TDP metrics to col; reason gets why
 * the run is void ("on battery", a clock or TDP not in force), or "". */
void run_device_check(struct run_device *dev, const struct deck_sample *samples, size_t n,
                      struct run_collected *col, char *reason, size_t size);
/* Puts the device back, removes the state file, releases the inhibitor. */
void run_device_end(struct run_device *dev);

/* ---- one harness per campaign (run-lock.c) ---- */

struct run_lock;

/* Who holds a campaign, from its lock file. */
struct run_lock_holder {
	int pid;
	char boot_id[64];          /* /proc/sys/kernel/random/boot_id of its boot */
	char host[128];
	int64_t since_unix_ms;
};

/*
 * Takes the lock of the campaign folder dir (dir/lock) for this process
 * and writes this process as its holder.  -EBUSY while another harness
 * holds it, with errmsg naming the holder (pid, host, since when).  The
 * lock goes with run_lock_release() or this process's end, whatever ends
 * it.  campaign is the name for the messages.
 */
int run_lock_take(const char *dir, const char *campaign, struct run_lock **out, char *errmsg,
                  size_t size);
/* How long a take waits for a flock whose recorded holder is dead (a child
 * of that harness between fork and exec still has it), in ms. */
#define RUN_LOCK_ORPHAN_WAIT_MS 10000
/* run_lock_take() with that wait given: -EBUSY naming the dead harness
 * when the flock is still held after orphan_wait_ms. */
int run_lock_take_within(const char *dir, const char *campaign, int orphan_wait_ms,
                         struct run_lock **out, char *errmsg, size_t size);
/* Clears the holder's record and lets the lock go.  NULL: nothing. */
void run_lock_release(struct run_lock *l);
/* A lock file's record ("pid N", "boot ID", "host NAME", "since UNIX_MS"
 * lines); -EINVAL without a pid and a boot id. */
int run_lock_parse(const char *text, struct run_lock_holder *out);
/* Whether a holder still lives: the same boot and its pid there. */
bool run_lock_holder_alive(const struct run_lock_holder *h);
/* "the harness with pid N[ on host 'H'], since DATE" */
void run_lock_describe(const struct run_lock_holder *h, char *buf, size_t size);
/* This boot's id (/proc/sys/kernel/random/boot_id). */
int run_boot_id(char out[64]);

/* ---- what changed under a campaign (run-changes.c) ---- */

/* The first difference of two route texts, "line N: was 'X', now 'Y'"
 * (or "added"/"removed"), into out; returns 1, or 0 when they are equal. */
int run_route_diff(const char *then, const char *now, char *out, size_t size);
/*
 * Compares what a resume would play with what the campaign started with:
 * the route file at route_path against route_then (NULL: not recorded),
 * each plan build's binary against its build row's sha256 (rows without
 * one are not compared).  Returns the number of differences, one line each
 * in out ('\n'-separated, cut to size).
 */
int run_campaign_changes(const char *route_path, const char *route_then,
                         const struct plan *p, const struct db_build *builds, size_t n_builds,
                         char *out, size_t size);

/* ---- room for a run (run-disk.c) ---- */

/* Space a run's folder needs at least: below it a run is not started, and
 * a game that ended with less is void "disk full". */
#define RUN_DISK_MIN_FREE_B (1024 * 1024)
/* Bytes an unprivileged writer can still write on dir's file system. */
int run_disk_free_B(const char *dir, int64_t *out);
/* 0 with room (or when it cannot be known); -ENOSPC with "disk full: N KiB
 * left on the file system of 'dir' ..." in errmsg. */
int run_disk_check(const char *dir, char *errmsg, size_t size);

/* ---- MangoHud's control socket (run-mangohud.c) ---- */

/* The client end of MangoHud's `control=NAME` socket in one run's game. */
struct run_mangohud {
	int fd;                    /* -1: not connected (yet, or any more) */
	char name[96];             /* the abstract socket's name, no leading NUL */
	bool greeted;              /* MangoHud greeted us: the game shows frames */
	bool log_finished;         /* ":LoggingFinished": the CSV is written */
	bool closed;               /* the game closed the connection */
	char version[64];          /* "MangoHud v0.6.8"; "" until said */
	char text[512];            /* what was read and not yet understood */
	size_t text_len;
};

void run_mangohud_init(struct run_mangohud *mh, const char *name);
/* Closes the connection; the struct may be init'ed again. */
void run_mangohud_finish(struct run_mangohud *mh);
/* Connects when MangoHud listens (quietly: not yet is no error) and reads
 * whatever it said.  Returns 0, or a negative errno the socket gave. */
int run_mangohud_poll(struct run_mangohud *mh);
/* Asks MangoHud to start (on) or stop logging.  0, -ENOTCONN, -errno. */
int run_mangohud_logging(struct run_mangohud *mh, bool on);
/* The connection, to wait on; -1 when there is none. */
int run_mangohud_fd(const struct run_mangohud *mh);

/* ---- window shots (run-shot.c) ---- */

/* Writes the largest viewable window of the process group pgid on the X
 * display into png_path (RGBA).  0; -ENOTSUP ("unsupported: ...": no X,
 * an unreadable pixel format), -ENOENT (no such window) or -EIO, with why
 * filled. */
int run_window_shot(const char *display, pid_t pgid, const char *png_path, char *why,
                    size_t why_size);

/* The newest *.csv in dir (MangoHud's log; its *_summary.csv files left
 * out): its path (malloc'd) and size, or NULL (none, or no memory). */
char *run_newest_csv(const char *dir, off_t *size);

#endif
