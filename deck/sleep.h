/* deck sleep: knowing that the host slept, and whether rxdeck's own sleep
 * inhibitor can stop it.
 *
 * A run during which the host was suspended measures nothing: rxdeck
 * learns of a suspend two ways, whoever caused it (Steam's idle timer,
 * the power button, a lid, a battery running low):
 *   - CLOCK_BOOTTIME minus CLOCK_MONOTONIC, which grows only while the
 *     host is suspended (deck_suspended_ns());
 *   - logind's PrepareForSleep(b) signal, sent before a suspend (true) and
 *     after the wake (false), watched on the system bus
 *     (deck_sleep_watch_*).
 * And logind honours a "block" inhibitor against a suspend asked by the
 * inhibitor's own user only from systemd 257 on (before, that user's
 * requests skipped it; 257 added "block-weak" for the old behaviour):
 * deck_systemd_version() reads the running systemd's version.
 *
 * Fallible functions return 0 or a negative errno with errmsg set.
 */
#ifndef RXDECK_DECK_SLEEP_H
#define RXDECK_DECK_SLEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* CLOCK_BOOTTIME - CLOCK_MONOTONIC now, in ns: the time the host spent
 * suspended since it booted.  Two readings differ only by a suspend
 * between them. */
int64_t deck_suspended_ns(void);

struct deck_sleep_watch;

/* Subscribes to logind's PrepareForSleep on the system bus.  -ENOENT
 * (errmsg says why) without a system bus.  Closed with
 * deck_sleep_watch_close() (NULL: no-op). */
int deck_sleep_watch_open(struct deck_sleep_watch **out, char *errmsg, size_t size);
void deck_sleep_watch_close(struct deck_sleep_watch *w);

/* Handles every message the bus has queued, without waiting, and gives
 * the number of PrepareForSleep signals (either value) seen since the
 * watch opened.  A negative errno when the connection broke. */
int deck_sleep_watch_poll(struct deck_sleep_watch *w, unsigned *signals);

/* The running systemd's version, org.freedesktop.systemd1.Manager's
 * Version property on the system bus ("257.5-1-arch"), into buf, and its
 * leading number into *major.  -ENOENT (errmsg says why) when it cannot
 * be asked; -EINVAL when the answer has no leading number. */
int deck_systemd_version(char *buf, size_t size, int *major, char *errmsg, size_t errmsg_size);

/* The first systemd whose logind lets a "block" inhibitor stop a suspend
 * asked by the inhibitor's own user. */
#define DECK_SYSTEMD_OWN_BLOCK_HONOURED 257

#endif
