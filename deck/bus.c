/* deck bus: what rxdeck asks of the system over D-Bus, through libsystemd's
 * sd-bus: logind's sleep/idle inhibitor, held for a whole campaign, and
 * steamos-manager's GPU clock and TDP settings, which the Deck's session
 * user may change without root.
 *
 * It owns the bus calls and their error messages.  The inhibitor is
 * logind's Inhibit("sleep:idle", "rxdeck", why, "block") on the system
 * bus: the reply is a file descriptor, and the inhibitor lasts as long as
 * it is open — closing it (or the process dying) releases it.
 * steamos-manager is the session bus's com.steampowered.SteamOSManager1,
 * object /com/steampowered/SteamOSManager1, interfaces
 * ...GpuPerformanceLevel1 (GpuPerformanceLevel, ManualGpuClock,
 * ManualGpuClockMin/Max) and ...TdpLimit1 (TdpLimit, TdpLimitMin/Max, W).
 * Which of steamos-manager or sysfs is used, and restoring, is control.c's.
 */
#include "deck.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#define MANAGER_NAME "com.steampowered.SteamOSManager1"
#define MANAGER_PATH "/com/steampowered/SteamOSManager1"
#define MANAGER_GPU MANAGER_NAME ".GpuPerformanceLevel1"
#define MANAGER_TDP MANAGER_NAME ".TdpLimit1"

struct deck_inhibitor {
	int fd;
};

struct deck_manager {
	sd_bus *bus;
	char errmsg[512];
};

static void say(char *errmsg, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void say(char *errmsg, size_t size, const char *fmt, ...)
{
	if (!errmsg || !size)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(errmsg, size, fmt, ap);
	va_end(ap);
}

/* The bus error's own words when it has them, else errno's. */
static const char *bus_why(const sd_bus_error *e, int r)
{
	return e && e->message ? e->message : strerror(-r);
}

int deck_inhibit(const char *why, struct deck_inhibitor **out, char *errmsg, size_t size)
{
	sd_bus *bus = NULL;
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	int r = sd_bus_open_system(&bus);
	if (r < 0) {
		say(errmsg, size, "cannot reach the system bus for logind's sleep inhibitor: %s",
		    strerror(-r));
		return r;
	}
	r = sd_bus_call_method(bus, "org.freedesktop.login1", "/org/freedesktop/login1",
	                       "org.freedesktop.login1.Manager", "Inhibit", &e, &reply, "ssss",
	                       "sleep:idle", "rxdeck", why ? why : "benchmark campaign", "block");
	int fd = -1;
	if (r < 0) {
		say(errmsg, size, "logind refused the sleep inhibitor: %s", bus_why(&e, r));
	} else if ((r = sd_bus_message_read(reply, "h", &fd)) < 0) {
		say(errmsg, size, "logind's Inhibit answer has no file descriptor: %s", strerror(-r));
	} else if ((fd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0) {
		r = -errno;
		say(errmsg, size, "cannot keep the inhibitor's file descriptor: %s", strerror(errno));
	}
	sd_bus_error_free(&e);
	sd_bus_message_unref(reply);
	/* The descriptor is ours now; the connection is not needed to hold it. */
	sd_bus_flush_close_unref(bus);
	if (r < 0)
		return r;
	struct deck_inhibitor *i = malloc(sizeof *i);
	if (!i) {
		close(fd);
		return -ENOMEM;
	}
	i->fd = fd;
	*out = i;
	return 0;
}

void deck_inhibitor_release(struct deck_inhibitor *i)
{
	if (!i)
		return;
	close(i->fd);
	free(i);
}

int deck_manager_open(struct deck_manager **out, char *errmsg, size_t size)
{
	struct deck_manager *m = calloc(1, sizeof *m);
	if (!m)
		return -ENOMEM;
	int r = sd_bus_open_user(&m->bus);
	if (r < 0) {
		say(errmsg, size, "no session bus, so no steamos-manager: %s", strerror(-r));
		free(m);
		return -ENOENT;
	}
	/* Present means: the name has an owner and answers for the GPU level. */
	sd_bus_error e = SD_BUS_ERROR_NULL;
	char *level = NULL;
	r = sd_bus_get_property_string(m->bus, MANAGER_NAME, MANAGER_PATH, MANAGER_GPU,
	                               "GpuPerformanceLevel", &e, &level);
	if (r < 0) {
		say(errmsg, size, "steamos-manager is not on the session bus (%s)", bus_why(&e, r));
		sd_bus_error_free(&e);
		deck_manager_close(m);
		return -ENOENT;
	}
	free(level);
	*out = m;
	return 0;
}

void deck_manager_close(struct deck_manager *m)
{
	if (!m)
		return;
	sd_bus_flush_close_unref(m->bus);
	free(m);
}

const char *deck_manager_errmsg(const struct deck_manager *m)
{
	return m ? m->errmsg : "";
}

static int get_u(struct deck_manager *m, const char *iface, const char *name, unsigned *out)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	uint32_t v = 0;
	int r = sd_bus_get_property_trivial(m->bus, MANAGER_NAME, MANAGER_PATH, iface, name, &e,
	                                    'u', &v);
	if (r < 0)
		say(m->errmsg, sizeof m->errmsg, "cannot read steamos-manager's %s: %s", name,
		    bus_why(&e, r));
	else
		*out = v;
	sd_bus_error_free(&e);
	return r < 0 ? r : 0;
}

static int set_u(struct deck_manager *m, const char *iface, const char *name, unsigned v)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	int r = sd_bus_set_property(m->bus, MANAGER_NAME, MANAGER_PATH, iface, name, &e, "u",
	                            (uint32_t)v);
	if (r < 0)
		say(m->errmsg, sizeof m->errmsg, "steamos-manager refused %s = %u: %s", name, v,
		    bus_why(&e, r));
	sd_bus_error_free(&e);
	return r < 0 ? r : 0;
}

int deck_manager_gpu_level_get(struct deck_manager *m, char *buf, size_t size)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	char *level = NULL;
	int r = sd_bus_get_property_string(m->bus, MANAGER_NAME, MANAGER_PATH, MANAGER_GPU,
	                                   "GpuPerformanceLevel", &e, &level);
	if (r < 0) {
		say(m->errmsg, sizeof m->errmsg, "cannot read steamos-manager's GpuPerformanceLevel: "
		    "%s", bus_why(&e, r));
	} else if (strlen(level) + 1 > size) {
		r = -ERANGE;
		say(m->errmsg, sizeof m->errmsg, "GPU level '%s' does not fit", level);
	} else {
		memcpy(buf, level, strlen(level) + 1);
	}
	free(level);
	sd_bus_error_free(&e);
	return r < 0 ? r : 0;
}

int deck_manager_gpu_level_set(struct deck_manager *m, const char *level)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	int r = sd_bus_set_property(m->bus, MANAGER_NAME, MANAGER_PATH, MANAGER_GPU,
	                            "GpuPerformanceLevel", &e, "s", level);
	if (r < 0)
		say(m->errmsg, sizeof m->errmsg, "steamos-manager refused GpuPerformanceLevel = "
		    "'%s': %s", level, bus_why(&e, r));
	sd_bus_error_free(&e);
	return r < 0 ? r : 0;
}

int deck_manager_gpu_clock_get(struct deck_manager *m, unsigned *mhz, unsigned *min_mhz,
                               unsigned *max_mhz)
{
	unsigned v, lo, hi;
	int r = get_u(m, MANAGER_GPU, "ManualGpuClock", &v);
	if (!r)
		r = get_u(m, MANAGER_GPU, "ManualGpuClockMin", &lo);
	if (!r)
		r = get_u(m, MANAGER_GPU, "ManualGpuClockMax", &hi);
	if (r)
		return r;
	*mhz = v;
	*min_mhz = lo;
	*max_mhz = hi;
	return 0;
}

int deck_manager_gpu_clock_set(struct deck_manager *m, unsigned mhz)
{
	/* The clock applies in manual mode only. */
	int r = deck_manager_gpu_level_set(m, "manual");
	if (r)
		return r;
	unsigned cur, lo, hi;
	r = deck_manager_gpu_clock_get(m, &cur, &lo, &hi);
	if (r)
		return r;
	if (mhz < lo || mhz > hi) {
		say(m->errmsg, sizeof m->errmsg, "%u MHz is outside steamos-manager's range, %u to "
		    "%u MHz", mhz, lo, hi);
		return -ERANGE;
	}
	return set_u(m, MANAGER_GPU, "ManualGpuClock", mhz);
}

int deck_manager_tdp_get(struct deck_manager *m, unsigned *w, unsigned *min_w, unsigned *max_w)
{
	unsigned v, lo, hi;
	int r = get_u(m, MANAGER_TDP, "TdpLimit", &v);
	if (!r)
		r = get_u(m, MANAGER_TDP, "TdpLimitMin", &lo);
	if (!r)
		r = get_u(m, MANAGER_TDP, "TdpLimitMax", &hi);
	if (r)
		return r;
	*w = v;
	*min_w = lo;
	*max_w = hi;
	return 0;
}

int deck_manager_tdp_set(struct deck_manager *m, unsigned w)
{
	unsigned cur, lo, hi;
	int r = deck_manager_tdp_get(m, &cur, &lo, &hi);
	if (r)
		return r;
	if (w < lo || w > hi) {
		say(m->errmsg, sizeof m->errmsg, "%u W is outside steamos-manager's TDP range, %u to "
		    "%u W", w, lo, hi);
		return -ERANGE;
	}
	return set_u(m, MANAGER_TDP, "TdpLimit", w);
}
