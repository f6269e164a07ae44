/* deck bus: what rxdeck asks of the system over D-Bus, through libsystemd's
 * sd-bus: logind's sleep/idle inhibitor, held for a whole campaign, and
 * steamos-manager's GPU level, clock and TDP in each of its eras.
 *
 * It owns the bus calls, opening a connection (also sleep.c's,
 * bus-private.h) and their error messages.  The inhibitor is
 * logind's Inhibit("sleep:idle", "rxdeck", why, "block") on the system
 * bus: the reply is a file descriptor, and the inhibitor lasts as long as
 * it is open — closing it (or the process dying) releases it.
 *
 * steamos-manager is com.steampowered.SteamOSManager1 at
 * /com/steampowered/SteamOSManager1; what it serves is read from its
 * introspection data, never assumed from its version:
 *  - v25.1 and later (session bus): ...GpuPerformanceLevel1 with
 *    GpuPerformanceLevel (s), ManualGpuClock and ManualGpuClockMin/Max (u,
 *    MHz), and ...TdpLimit1 with TdpLimit and TdpLimitMin/Max (u, W);
 *    the deprecated ...Manager beside them keeps Version (u) only;
 *  - v24.x: ...Manager with the same values as u properties, the level
 *    coded 0 auto, 1 low, 2 high, 3 manual, 4 profile_peak; v24.4 and the
 *    SteamOS 3.6 hotfix v24.11 spell them GPUPerformanceLevel,
 *    ManualGPUClock(Min/Max), TDPLimit(Min/Max); system bus (v24.5 also
 *    the session bus);
 *  - 2023 builds (system bus): interface com.steampowered.SteamOSManager1
 *    with the methods SetGpuPerformanceLevel(i), SetGpuClocks(i) and
 *    SetTDPLimit(i), each answering a boolean, and no way to read back.
 * Which route is used, in which order, and restoring are control.c's.
 */
#include "deck-internal.h"
#include "bus-private.h"

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
#define MANAGER_OLD MANAGER_NAME ".Manager"
#define MANAGER_2023 MANAGER_NAME

struct deck_inhibitor {
	int fd;
};

struct deck_sm {
	sd_bus *bus;
	enum deck_route_kind kind;
	bool gpu_spelling; /* Manager era: GPUPerformanceLevel, ManualGPUClock, TDPLimit */
	bool has_clock_range, has_tdp_range;
	char errmsg[512];
};

void deck_say(char *errmsg, size_t size, const char *fmt, ...)
{
	if (!errmsg || !size)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(errmsg, size, fmt, ap);
	va_end(ap);
}

const char *deck_bus_why(const sd_bus_error *e, int r)
{
	return e && e->message ? e->message : strerror(-r);
}

int deck_bus_open(bool system, const char *purpose, sd_bus **out, char *errmsg, size_t size)
{
	sd_bus *bus = NULL;
	int r = system ? sd_bus_open_system(&bus) : sd_bus_open_user(&bus);
	if (r < 0) {
		const char *which = system ? "system" : "session";
		if (purpose)
			deck_say(errmsg, size, "cannot reach the %s bus %s: %s", which, purpose,
			         strerror(-r));
		else
			deck_say(errmsg, size, "no %s bus: %s", which, strerror(-r));
		return -ENOENT;
	}
	*out = bus;
	return 0;
}

int deck_inhibit(const char *why, struct deck_inhibitor **out, char *errmsg, size_t size)
{
	sd_bus *bus = NULL;
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	int r = deck_bus_open(true, "for logind's sleep inhibitor", &bus, errmsg, size);
	if (r < 0)
		return r;
	r = sd_bus_call_method(bus, "org.freedesktop.login1", "/org/freedesktop/login1",
	                       "org.freedesktop.login1.Manager", "Inhibit", &e, &reply, "ssss",
	                       "sleep:idle", "rxdeck", why ? why : "benchmark campaign", "block");
	int fd = -1;
	if (r < 0) {
		deck_say(errmsg, size, "logind refused the sleep inhibitor: %s",
		         deck_bus_why(&e, r));
	} else if ((r = sd_bus_message_read(reply, "h", &fd)) < 0) {
		deck_say(errmsg, size, "logind's Inhibit answer has no file descriptor: %s",
		         strerror(-r));
	} else if ((fd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0) {
		r = -errno;
		deck_say(errmsg, size, "cannot keep the inhibitor's file descriptor: %s",
		         strerror(errno));
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


/* ---- steamos-manager ---------------------------------------------------- */

/* The level codes of v24.x's u properties and the 2023 methods. */
static const char *const level_codes[] = { "auto", "low", "high", "manual", "profile_peak" };

static int level_code(const char *level)
{
	for (size_t i = 0; i < sizeof level_codes / sizeof level_codes[0]; i++)
		if (strcmp(level, level_codes[i]) == 0)
			return (int)i;
	return -1;
}

/* The text of <interface name="iface"> ... </interface> in xml, or NULL. */
static const char *iface_block(const char *xml, const char *iface, size_t *len)
{
	char open_tag[192];
	snprintf(open_tag, sizeof open_tag, "<interface name=\"%s\"", iface);
	const char *p = strstr(xml, open_tag);
	if (!p)
		return NULL;
	const char *end = strstr(p, "</interface>");
	*len = end ? (size_t)(end - p) : strlen(p);
	return p;
}

/* Whether the block declares <kind name="name" (kind "property" or "method"). */
static bool declares(const char *block, size_t len, const char *kind, const char *name)
{
	char tag[128];
	snprintf(tag, sizeof tag, "<%s name=\"%s\"", kind, name);
	size_t n = strlen(tag);
	for (const char *p = block; p + n <= block + len; p++)
		if (memcmp(p, tag, n) == 0)
			return true;
	return false;
}

static bool declares_all(const char *block, size_t len, const char *kind,
                         const char *const *names)
{
	for (; *names; names++)
		if (!declares(block, len, kind, *names))
			return false;
	return true;
}

static const char *gpu_prop(const struct deck_sm *m, const char *which)
{
	/* which: "level", "clock", "clock_min", "clock_max", "tdp", "tdp_min", "tdp_max" */
	static const struct {
		const char *which, *gpu, *Gpu;
	} names[] = {
		{ "level", "GPUPerformanceLevel", "GpuPerformanceLevel" },
		{ "clock", "ManualGPUClock", "ManualGpuClock" },
		{ "clock_min", "ManualGPUClockMin", "ManualGpuClockMin" },
		{ "clock_max", "ManualGPUClockMax", "ManualGpuClockMax" },
		{ "tdp", "TDPLimit", "TdpLimit" },
		{ "tdp_min", "TDPLimitMin", "TdpLimitMin" },
		{ "tdp_max", "TDPLimitMax", "TdpLimitMax" },
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(names[i].which, which) == 0)
			return m->gpu_spelling ? names[i].gpu : names[i].Gpu;
	return which;
}

static const char *gpu_iface(const struct deck_sm *m)
{
	return m->kind == DECK_ROUTE_SPLIT ? MANAGER_GPU : MANAGER_OLD;
}

static const char *tdp_iface(const struct deck_sm *m)
{
	return m->kind == DECK_ROUTE_SPLIT ? MANAGER_TDP : MANAGER_OLD;
}

static int get_u(struct deck_sm *m, const char *iface, const char *name, unsigned *out)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	uint32_t v = 0;
	int r = sd_bus_get_property_trivial(m->bus, MANAGER_NAME, MANAGER_PATH, iface, name, &e,
	                                    'u', &v);
	if (r < 0)
		deck_say(m->errmsg, sizeof m->errmsg, "cannot read steamos-manager's %s: %s", name,
		         deck_bus_why(&e, r));
	else
		*out = v;
	sd_bus_error_free(&e);
	return r < 0 ? r : 0;
}

static int set_u(struct deck_sm *m, const char *iface, const char *name, unsigned v)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	int r = sd_bus_set_property(m->bus, MANAGER_NAME, MANAGER_PATH, iface, name, &e, "u",
	                            (uint32_t)v);
	if (r < 0)
		deck_say(m->errmsg, sizeof m->errmsg, "steamos-manager refused %s = %u: %s", name,
		         v, deck_bus_why(&e, r));
	sd_bus_error_free(&e);
	return r < 0 ? r : 0;
}

/* A 2023 method taking one int and answering success. */
static int call_2023(struct deck_sm *m, const char *method, int32_t arg)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	int ok = 0;
	int r = sd_bus_call_method(m->bus, MANAGER_NAME, MANAGER_PATH, MANAGER_2023, method, &e,
	                           &reply, "i", arg);
	if (r < 0)
		deck_say(m->errmsg, sizeof m->errmsg, "steamos-manager refused %s(%d): %s", method,
		         (int)arg, deck_bus_why(&e, r));
	else if ((r = sd_bus_message_read(reply, "b", &ok)) < 0)
		deck_say(m->errmsg, sizeof m->errmsg,
		         "steamos-manager's %s answer is not a boolean: %s", method, strerror(-r));
	else if (!ok) {
		r = -EIO;
		deck_say(m->errmsg, sizeof m->errmsg,
		         "steamos-manager's %s(%d) answered false (it could "
		         "not write the setting)",
		         method, (int)arg);
	}
	sd_bus_error_free(&e);
	sd_bus_message_unref(reply);
	return r < 0 ? r : 0;
}

/* The introspection data of steamos-manager's object on bus, malloc'd. */
static int introspect(sd_bus *bus, char **xml, char *why, size_t size)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	const char *text = NULL;
	int r = sd_bus_call_method(bus, MANAGER_NAME, MANAGER_PATH,
	                           "org.freedesktop.DBus.Introspectable", "Introspect", &e, &reply,
	                           "");
	if (r < 0) {
		if (sd_bus_error_has_name(&e, "org.freedesktop.DBus.Error.ServiceUnknown") ||
		    sd_bus_error_has_name(&e, "org.freedesktop.DBus.Error.NameHasNoOwner"))
			deck_say(why, size, "%s is not on it", MANAGER_NAME);
		else
			deck_say(why, size, "%s did not answer (%s: %s)", MANAGER_NAME,
			         e.name ? e.name : "error", deck_bus_why(&e, r));
	} else if ((r = sd_bus_message_read(reply, "s", &text)) < 0) {
		deck_say(why, size, "its introspection answer is not a string: %s", strerror(-r));
	} else if (!(*xml = strdup(text))) {
		r = -ENOMEM;
	}
	sd_bus_error_free(&e);
	sd_bus_message_unref(reply);
	return r < 0 ? r : 0;
}

static const char *const split_gpu_props[] = { "GpuPerformanceLevel", "ManualGpuClock", NULL };
static const char *const split_tdp_props[] = { "TdpLimit", NULL };
static const char *const manager_props[] = { "GpuPerformanceLevel", "ManualGpuClock", "TdpLimit",
	                                     NULL };
static const char *const manager_props_gpu[] = { "GPUPerformanceLevel", "ManualGPUClock",
	                                         "TDPLimit", NULL };
static const char *const methods_2023[] = { "SetGpuPerformanceLevel", "SetGpuClocks",
	                                    "SetTDPLimit", NULL };

/* Which era the introspection data shows; NONE with why. */
static enum deck_route_kind era_of(const char *xml, enum deck_route_kind only, bool *gpu_spelling,
                                   bool ranges[2], char *why, size_t size);

int deck_parse_introspection(const char *xml, int only, struct deck_era *out, char *why,
                             size_t size)
{
	struct deck_era e = { 0 };
	bool ranges[2] = { false, false };
	e.kind = (int)era_of(xml, (enum deck_route_kind)only, &e.gpu_spelling, ranges, why, size);
	e.clock_range = ranges[0];
	e.tdp_range = ranges[1];
	size_t n;
	const char *old = iface_block(xml, MANAGER_OLD, &n);
	e.version_manager = old && declares(old, n, "property", "Version");
	const char *m23 = iface_block(xml, MANAGER_2023, &n);
	e.version_2023 = !e.version_manager && m23 && declares(m23, n, "property", "Version");
	*out = e;
	return e.kind ? 0 : -ENOENT;
}

static enum deck_route_kind era_of(const char *xml, enum deck_route_kind only, bool *gpu_spelling,
                                   bool ranges[2], char *why, size_t size)
{
	size_t n, n2;
	const char *b = iface_block(xml, MANAGER_GPU, &n), *b2 = iface_block(xml, MANAGER_TDP, &n2);
	size_t nold = 0, n23 = 0;
	const char *old = iface_block(xml, MANAGER_OLD, &nold);
	const char *m23 = iface_block(xml, MANAGER_2023, &n23);
	*gpu_spelling = false;
	if ((!only || only == DECK_ROUTE_SPLIT) && b && b2 &&
	    declares_all(b, n, "property", split_gpu_props) &&
	    declares_all(b2, n2, "property", split_tdp_props)) {
		ranges[0] = declares(b, n, "property", "ManualGpuClockMin") &&
		            declares(b, n, "property", "ManualGpuClockMax");
		ranges[1] = declares(b2, n2, "property", "TdpLimitMin") &&
		            declares(b2, n2, "property", "TdpLimitMax");
		return DECK_ROUTE_SPLIT;
	}
	if ((!only || only == DECK_ROUTE_MANAGER) && old) {
		bool Gpu = declares_all(old, nold, "property", manager_props);
		bool gpu = !Gpu && declares_all(old, nold, "property", manager_props_gpu);
		if (Gpu || gpu) {
			*gpu_spelling = gpu;
			ranges[0] = declares(old, nold, "property", gpu ? "ManualGPUClockMin"
			                                                : "ManualGpuClockMin");
			ranges[1] = declares(old, nold, "property", gpu ? "TDPLimitMax" : "TdpLimitMax");
			return DECK_ROUTE_MANAGER;
		}
	}
	if ((!only || only == DECK_ROUTE_METHODS) && m23 &&
	    declares_all(m23, n23, "method", methods_2023)) {
		ranges[0] = ranges[1] = false;
		return DECK_ROUTE_METHODS;
	}
	/* What is served, for the message: the interfaces found, by name. */
	char found[160] = "";
	size_t n_found = 0;
	const char *names[] = { b ? "GpuPerformanceLevel1" : NULL, b2 ? "TdpLimit1" : NULL,
		                old ? "Manager" : NULL,
		                m23 ? "com.steampowered.SteamOSManager1" : NULL };
	for (size_t i = 0; i < 4; i++)
		if (names[i])
			n_found += (size_t)snprintf(found + n_found, sizeof found - n_found, "%s%s",
			                            n_found ? ", " : "", names[i]);
	if (!n_found)
		deck_say(why, size,
		         "it serves none of GpuPerformanceLevel1/TdpLimit1, Manager or the 2023 "
		         "methods");
	else
		deck_say(why, size, "it serves %s, without the GPU level, clock and TDP %s", found,
		         only ? "of that era" : "of any known era");
	return DECK_ROUTE_NONE;
}

int deck_sm_open(bool system, enum deck_route_kind only, struct deck_route *route,
                 struct deck_sm **out, char *why, size_t size)
{
	struct deck_sm *m = calloc(1, sizeof *m);
	if (!m)
		return -ENOMEM;
	int r = deck_bus_open(system, NULL, &m->bus, why, size);
	if (r < 0) {
		free(m);
		return r;
	}
	char *xml = NULL;
	r = introspect(m->bus, &xml, why, size);
	if (r == -ENOMEM) {
		deck_sm_close(m);
		return r;
	}
	if (r < 0) {
		deck_sm_close(m);
		return -ENOENT;
	}
	struct deck_era era;
	deck_parse_introspection(xml, (int)only, &era, why, size);
	m->kind = (enum deck_route_kind)era.kind;
	m->gpu_spelling = era.gpu_spelling;
	m->has_clock_range = era.clock_range;
	m->has_tdp_range = era.tdp_range;
	bool has_version = era.version_manager, version_2023 = era.version_2023;
	free(xml);
	if (m->kind == DECK_ROUTE_NONE) {
		deck_sm_close(m);
		return -ENOENT;
	}
	route->kind = m->kind;
	snprintf(route->bus, sizeof route->bus, "%s", system ? "system" : "session");
	if (m->kind == DECK_ROUTE_SPLIT)
		snprintf(route->interface, sizeof route->interface, "%s and %s", MANAGER_GPU,
		         MANAGER_TDP);
	else if (m->kind == DECK_ROUTE_MANAGER)
		snprintf(route->interface, sizeof route->interface, "%s", MANAGER_OLD);
	else
		snprintf(route->interface, sizeof route->interface, "%s (SetGpuPerformanceLevel, "
		         "SetGpuClocks, SetTDPLimit)", MANAGER_2023);
	snprintf(route->spelling, sizeof route->spelling, "%s",
	         m->kind == DECK_ROUTE_MANAGER ? (m->gpu_spelling ? "GPU" : "Gpu") : "");
	route->version[0] = '\0';
	unsigned v;
	if ((has_version && get_u(m, MANAGER_OLD, "Version", &v) == 0) ||
	    (version_2023 && get_u(m, MANAGER_2023, "Version", &v) == 0))
		snprintf(route->version, sizeof route->version, "%u", v);
	route->can_clock = route->can_tdp = true;
	*out = m;
	return 0;
}

void deck_sm_close(struct deck_sm *m)
{
	if (!m)
		return;
	sd_bus_flush_close_unref(m->bus);
	free(m);
}

const char *deck_sm_errmsg(const struct deck_sm *m)
{
	return m ? m->errmsg : "";
}

int deck_sm_clock_range(struct deck_sm *m, unsigned *min_mhz, unsigned *max_mhz)
{
	if (!m->has_clock_range)
		return -ENOENT;
	unsigned lo, hi;
	int r = get_u(m, gpu_iface(m), gpu_prop(m, "clock_min"), &lo);
	if (!r)
		r = get_u(m, gpu_iface(m), gpu_prop(m, "clock_max"), &hi);
	if (r)
		return r;
	*min_mhz = lo;
	*max_mhz = hi;
	return 0;
}

int deck_sm_tdp_range(struct deck_sm *m, unsigned *min_w, unsigned *max_w)
{
	if (!m->has_tdp_range)
		return -ENOENT;
	unsigned lo, hi;
	int r = get_u(m, tdp_iface(m), gpu_prop(m, "tdp_min"), &lo);
	if (!r)
		r = get_u(m, tdp_iface(m), gpu_prop(m, "tdp_max"), &hi);
	if (r)
		return r;
	*min_w = lo;
	*max_w = hi;
	return 0;
}

int deck_sm_level_get(struct deck_sm *m, char *buf, size_t size)
{
	if (m->kind == DECK_ROUTE_METHODS) {
		deck_say(m->errmsg, sizeof m->errmsg,
		         "the 2023 steamos-manager cannot be asked for the "
		         "GPU level");
		return -EOPNOTSUPP;
	}
	char tmp[64];
	if (m->kind == DECK_ROUTE_MANAGER) {
		unsigned code;
		int r = get_u(m, MANAGER_OLD, gpu_prop(m, "level"), &code);
		if (r)
			return r;
		if (code >= sizeof level_codes / sizeof level_codes[0]) {
			deck_say(m->errmsg, sizeof m->errmsg,
			         "steamos-manager's %s is %u, not a known level",
			         gpu_prop(m, "level"), code);
			return -EINVAL;
		}
		snprintf(tmp, sizeof tmp, "%s", level_codes[code]);
	} else {
		sd_bus_error e = SD_BUS_ERROR_NULL;
		char *level = NULL;
		int r = sd_bus_get_property_string(m->bus, MANAGER_NAME, MANAGER_PATH, MANAGER_GPU,
		                                   "GpuPerformanceLevel", &e, &level);
		if (r < 0)
			deck_say(m->errmsg, sizeof m->errmsg,
			         "cannot read steamos-manager's "
			         "GpuPerformanceLevel: %s",
			         deck_bus_why(&e, r));
		else
			snprintf(tmp, sizeof tmp, "%s", level);
		free(level);
		sd_bus_error_free(&e);
		if (r < 0)
			return r;
	}
	if (strlen(tmp) + 1 > size) {
		deck_say(m->errmsg, sizeof m->errmsg, "GPU level '%s' does not fit", tmp);
		return -ERANGE;
	}
	memcpy(buf, tmp, strlen(tmp) + 1);
	return 0;
}

int deck_sm_level_set(struct deck_sm *m, const char *level)
{
	if (m->kind != DECK_ROUTE_SPLIT) {
		int code = level_code(level);
		if (code < 0) {
			deck_say(m->errmsg, sizeof m->errmsg,
			         "GPU level '%s' has no code in this "
			         "steamos-manager (auto, low, high, manual, profile_peak)",
			         level);
			return -EINVAL;
		}
		if (m->kind == DECK_ROUTE_METHODS)
			return call_2023(m, "SetGpuPerformanceLevel", code);
		return set_u(m, MANAGER_OLD, gpu_prop(m, "level"), (unsigned)code);
	}
	sd_bus_error e = SD_BUS_ERROR_NULL;
	int r = sd_bus_set_property(m->bus, MANAGER_NAME, MANAGER_PATH, MANAGER_GPU,
	                            "GpuPerformanceLevel", &e, "s", level);
	if (r < 0)
		deck_say(m->errmsg, sizeof m->errmsg,
		         "steamos-manager refused GpuPerformanceLevel = "
		         "'%s': %s",
		         level, deck_bus_why(&e, r));
	sd_bus_error_free(&e);
	return r < 0 ? r : 0;
}

int deck_sm_clock_get(struct deck_sm *m, unsigned *mhz)
{
	if (m->kind == DECK_ROUTE_METHODS) {
		deck_say(m->errmsg, sizeof m->errmsg,
		         "the 2023 steamos-manager cannot be asked for the "
		         "GPU clock");
		return -EOPNOTSUPP;
	}
	return get_u(m, gpu_iface(m), gpu_prop(m, "clock"), mhz);
}

int deck_sm_clock_set(struct deck_sm *m, unsigned mhz)
{
	/* The clock applies in manual mode only. */
	int r = deck_sm_level_set(m, "manual");
	if (r)
		return r;
	if (m->kind == DECK_ROUTE_METHODS)
		return call_2023(m, "SetGpuClocks", (int32_t)mhz);
	return set_u(m, gpu_iface(m), gpu_prop(m, "clock"), mhz);
}

int deck_sm_tdp_get(struct deck_sm *m, unsigned *w)
{
	if (m->kind == DECK_ROUTE_METHODS) {
		deck_say(m->errmsg, sizeof m->errmsg,
		         "the 2023 steamos-manager cannot be asked for the "
		         "TDP");
		return -EOPNOTSUPP;
	}
	return get_u(m, tdp_iface(m), gpu_prop(m, "tdp"), w);
}

int deck_sm_tdp_set(struct deck_sm *m, unsigned w)
{
	if (m->kind == DECK_ROUTE_METHODS)
		return call_2023(m, "SetTDPLimit", (int32_t)w);
	return set_u(m, tdp_iface(m), gpu_prop(m, "tdp"), w);
}
