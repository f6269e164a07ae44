/* deck sleep: the suspend clock, logind's PrepareForSleep watched on the
 * system bus, and the running systemd's version (sleep.h says why).
 *
 * The watch keeps a system-bus connection of its own, opened by bus.c's
 * deck_bus_open() (bus-private.h) like the inhibitor's (which keeps only
 * the inhibitor's descriptor): a signal logind sends while a run plays
 * waits in that connection's socket until deck_sleep_watch_poll() reads
 * it.  Names followed: systemd's
 * org.freedesktop.login1(5) (Manager's PrepareForSleep(b start)) and
 * org.freedesktop.systemd1(5) (Manager's Version property).
 */
#include "sleep.h"
#include "bus-private.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <time.h>

struct deck_sleep_watch {
	sd_bus *bus;
	sd_bus_slot *slot;
	unsigned signals;
};

static int64_t ns_of(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t deck_suspended_ns(void)
{
	/* MONOTONIC first: BOOTTIME read after it is never smaller */
	int64_t mono = ns_of(CLOCK_MONOTONIC);
	int64_t boot = ns_of(CLOCK_BOOTTIME);
	return boot - mono;
}

static int on_prepare(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
	(void)ret_error;
	struct deck_sleep_watch *w = userdata;
	int start = 0;
	if (sd_bus_message_read(m, "b", &start) >= 0)
		w->signals++;
	return 0;
}

int deck_sleep_watch_open(struct deck_sleep_watch **out, char *errmsg, size_t size)
{
	struct deck_sleep_watch *w = calloc(1, sizeof *w);
	if (!w)
		return -ENOMEM;
	int r = deck_bus_open(true, "to watch logind's PrepareForSleep", &w->bus, errmsg, size);
	if (r < 0) {
		free(w);
		return r;
	}
	r = sd_bus_match_signal(w->bus, &w->slot, "org.freedesktop.login1",
	                        "/org/freedesktop/login1", "org.freedesktop.login1.Manager",
	                        "PrepareForSleep", on_prepare, w);
	if (r < 0) {
		deck_say(errmsg, size, "cannot watch logind's PrepareForSleep: %s", strerror(-r));
		sd_bus_flush_close_unref(w->bus);
		free(w);
		return r;
	}
	*out = w;
	return 0;
}

void deck_sleep_watch_close(struct deck_sleep_watch *w)
{
	if (!w)
		return;
	sd_bus_slot_unref(w->slot);
	sd_bus_flush_close_unref(w->bus);
	free(w);
}

int deck_sleep_watch_poll(struct deck_sleep_watch *w, unsigned *signals)
{
	int r;
	/* one message per call; 0 once nothing is queued */
	while ((r = sd_bus_process(w->bus, NULL)) > 0)
		;
	if (r < 0)
		return r;
	*signals = w->signals;
	return 0;
}

int deck_systemd_version(char *buf, size_t size, int *major, char *errmsg, size_t errmsg_size)
{
	sd_bus *bus = NULL;
	int r = deck_bus_open(true, "to ask systemd's version", &bus, errmsg, errmsg_size);
	if (r < 0)
		return r;
	sd_bus_error e = SD_BUS_ERROR_NULL;
	char *v = NULL;
	r = sd_bus_get_property_string(bus, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
	                               "org.freedesktop.systemd1.Manager", "Version", &e, &v);
	if (r < 0) {
		deck_say(errmsg, errmsg_size, "systemd did not say its version: %s",
		         deck_bus_why(&e, r));
		sd_bus_error_free(&e);
		sd_bus_flush_close_unref(bus);
		return -ENOENT;
	}
	sd_bus_flush_close_unref(bus);
	/* "v257.5" on some builds, "257.5-1-arch" on others */
	const char *p = v;
	if (*p == 'v')
		p++;
	int n = 0, digits = 0;
	while (isdigit((unsigned char)*p) && n < 100000) {
		n = n * 10 + (*p++ - '0');
		digits++;
	}
	if (!digits) {
		deck_say(errmsg, errmsg_size, "systemd's version '%s' does not start with a number",
		         v);
		free(v);
		return -EINVAL;
	}
	snprintf(buf, size, "%s", v);
	free(v);
	*major = n;
	return 0;
}
