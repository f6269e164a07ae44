/* deck control: the GPU clock and TDP an arm asks for, set through the
 * first route that works, and put back afterwards through the same one.
 *
 * It owns the order routes are asked in, the ranges each applies and where
 * they come from, what is saved before a change, and the state file that
 * lets a later start put the device back after the harness was killed
 * (SIGKILL leaves no chance to restore).  The order: steamos-manager on the
 * session bus, then on the system bus (whichever era it is, bus.c), Valve's
 * priv-write helper, then amdgpu's sysfs directly (clock.c).
 *
 * Ranges: steamos-manager's own Min/Max properties where it has them; the
 * 2023 steamos-manager's fixed limits (200-1600 MHz, 3-15 W); for the
 * helper and sysfs on a Steam Deck (DMI board Jupiter or Galileo),
 * steamos-manager's device table (TDP 3-15 W, GPU clock 200-1600 MHz; the
 * kernel itself allows power1_cap 0-29 W), elsewhere the kernel's
 * power1_cap_min/max and pp_od_clk_voltage's OD_RANGE.
 *
 * The state file is text, one "key value" a line:
 *   via split
 *   level auto
 *   clock_mhz 1600
 *   tdp_w 15
 */
#include "deck-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* steamos-manager's device table (data/devices/steam-deck.toml; jupiter.toml
 * before v26): both Deck boards, TDP and manual GPU clock limits. */
#define DECK_TABLE_TDP_MIN_W 3
#define DECK_TABLE_TDP_MAX_W 15
#define DECK_TABLE_CLOCK_MIN_MHZ 200
#define DECK_TABLE_CLOCK_MAX_MHZ 1600

struct deck_control {
	struct deck *deck;
	struct deck_sm *sm; /* the D-Bus routes */
	const char *helper; /* the priv-write route's command, for clock.c */
	struct deck_route route;
	char errmsg[1400];
};

static const char *const kind_names[] = {
	[DECK_ROUTE_NONE] = "none",       [DECK_ROUTE_SPLIT] = "split",
	[DECK_ROUTE_MANAGER] = "manager", [DECK_ROUTE_METHODS] = "methods",
	[DECK_ROUTE_PRIV_WRITE] = "priv-write", [DECK_ROUTE_SYSFS] = "sysfs",
};

const char *deck_route_kind_name(enum deck_route_kind kind)
{
	return (unsigned)kind < sizeof kind_names / sizeof kind_names[0] ? kind_names[kind] : NULL;
}

int deck_route_kind_from_name(const char *name, enum deck_route_kind *out)
{
	if (!name)
		return -EINVAL;
	if (strcmp(name, "steamos-manager") == 0) {
		*out = DECK_ROUTE_SPLIT;
		return 0;
	}
	for (size_t i = 0; i < sizeof kind_names / sizeof kind_names[0]; i++)
		if (strcmp(name, kind_names[i]) == 0) {
			*out = (enum deck_route_kind)i;
			return 0;
		}
	return -EINVAL;
}

int deck_route_tries_text(const struct deck_route *r, char *buf, size_t size)
{
	size_t n = 0;
	int total = 0;
	if (size)
		buf[0] = '\0';
	for (size_t i = 0; i < r->n_tries; i++) {
		if (!r->tries[i].why[0])
			continue;
		int k = snprintf(buf + n, size > n ? size - n : 0, "%s%s: %s", total ? "; " : "",
		                 r->tries[i].route, r->tries[i].why);
		if (k < 0)
			return k;
		total += k;
		n = (size_t)total < size ? (size_t)total : size;
	}
	return total;
}

static int fail(struct deck_control *c, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct deck_control *c, int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->errmsg, sizeof c->errmsg, fmt, ap);
	va_end(ap);
	return err;
}

static struct deck_route_try *add_try(struct deck_route *r, const char *route)
{
	if (r->n_tries >= DECK_ROUTE_MAX_TRIES)
		return &r->tries[DECK_ROUTE_MAX_TRIES - 1];
	struct deck_route_try *t = &r->tries[r->n_tries++];
	snprintf(t->route, sizeof t->route, "%s", route);
	t->why[0] = '\0';
	return t;
}

/* The Deck's board, as steamos-manager's device table matches it. */
static const char *deck_board(struct deck *d)
{
	static const char *const boards[] = { "Jupiter", "Galileo" };
	char vendor[64] = "", board[64] = "";
	char *pv = deck_path(d, "sys/class/dmi/id/sys_vendor");
	char *pb = deck_path(d, "sys/class/dmi/id/board_name");
	char *pp = deck_path(d, "sys/class/dmi/id/product_name");
	size_t len;
	if (pv && deck_read_file(pv, vendor, sizeof vendor, &len) == 0)
		vendor[strcspn(vendor, "\n")] = '\0';
	if (pb && deck_read_file(pb, board, sizeof board, &len) == 0)
		board[strcspn(board, "\n")] = '\0';
	else if (pp && deck_read_file(pp, board, sizeof board, &len) == 0)
		board[strcspn(board, "\n")] = '\0';
	free(pv);
	free(pb);
	free(pp);
	if (strcmp(vendor, "Valve") != 0)
		return NULL;
	for (size_t i = 0; i < 2; i++)
		if (strcmp(board, boards[i]) == 0)
			return boards[i];
	return NULL;
}

/* Ranges for the helper and sysfs routes: the device table on a Deck,
 * else the kernel's. */
static void kernel_ranges(struct deck_control *c)
{
	struct deck_route *r = &c->route;
	const char *board = deck_board(c->deck);
	double cap, lo, hi;
	bool kernel_tdp = deck_tdp_get_w(c->deck, &cap, &lo, &hi) == 0;
	if (board) {
		r->clock_min_mhz = DECK_TABLE_CLOCK_MIN_MHZ;
		r->clock_max_mhz = DECK_TABLE_CLOCK_MAX_MHZ;
		snprintf(r->clock_range_source, sizeof r->clock_range_source,
		         "steamos-manager's device table for %s", board);
		r->tdp_min_w = DECK_TABLE_TDP_MIN_W;
		r->tdp_max_w = DECK_TABLE_TDP_MAX_W;
		if (kernel_tdp)
			snprintf(r->tdp_range_source, sizeof r->tdp_range_source,
			         "steamos-manager's device table for %s (the kernel allows %g to %g W)",
			         board, lo, hi);
		else
			snprintf(r->tdp_range_source, sizeof r->tdp_range_source,
			         "steamos-manager's device table for %s", board);
		return;
	}
	unsigned clo, chi;
	if (deck_sclk_range_mhz(c->deck, &clo, &chi) == 0) {
		r->clock_min_mhz = clo;
		r->clock_max_mhz = chi;
		snprintf(r->clock_range_source, sizeof r->clock_range_source,
		         "the card's pp_od_clk_voltage OD_RANGE");
	}
	if (kernel_tdp) {
		r->tdp_min_w = lo;
		r->tdp_max_w = hi;
		snprintf(r->tdp_range_source, sizeof r->tdp_range_source,
		         "the kernel's power1_cap_min/max");
	}
}

static void sm_ranges(struct deck_control *c)
{
	struct deck_route *r = &c->route;
	unsigned lo, hi;
	const char *board = deck_board(c->deck);
	if (deck_sm_clock_range(c->sm, &lo, &hi) == 0) {
		r->clock_min_mhz = lo;
		r->clock_max_mhz = hi;
		snprintf(r->clock_range_source, sizeof r->clock_range_source,
		         "steamos-manager's %s", r->kind == DECK_ROUTE_MANAGER &&
		         strcmp(r->spelling, "GPU") == 0 ? "ManualGPUClockMin/Max"
		                                         : "ManualGpuClockMin/Max");
	} else {
		r->clock_min_mhz = DECK_TABLE_CLOCK_MIN_MHZ;
		r->clock_max_mhz = DECK_TABLE_CLOCK_MAX_MHZ;
		snprintf(r->clock_range_source, sizeof r->clock_range_source, "%s",
		         r->kind == DECK_ROUTE_METHODS ? "the 2023 steamos-manager's SetGpuClocks limit"
		         : board ? "steamos-manager's device table" : "steamos-manager's device table "
		                                                      "for the Steam Deck");
	}
	if (deck_sm_tdp_range(c->sm, &lo, &hi) == 0) {
		r->tdp_min_w = lo;
		r->tdp_max_w = hi;
		snprintf(r->tdp_range_source, sizeof r->tdp_range_source, "steamos-manager's %s",
		         r->kind == DECK_ROUTE_MANAGER && strcmp(r->spelling, "GPU") == 0
		                 ? "TDPLimitMin/Max" : "TdpLimitMin/Max");
	} else {
		r->tdp_min_w = DECK_TABLE_TDP_MIN_W;
		r->tdp_max_w = DECK_TABLE_TDP_MAX_W;
		snprintf(r->tdp_range_source, sizeof r->tdp_range_source, "%s",
		         r->kind == DECK_ROUTE_METHODS ? "the 2023 steamos-manager's SetTDPLimit limit"
		                                       : "steamos-manager's device table for the "
		                                         "Steam Deck");
	}
}

/* The helper's command, or NULL with why. */
static const char *find_helper(char *why, size_t size)
{
	const char *test = getenv(DECK_PRIV_WRITE_ENV);
	if (test && test[0]) {
		if (test[0] != '/') {
			snprintf(why, size, "%s '%s' is not an absolute path", DECK_PRIV_WRITE_ENV, test);
			return NULL;
		}
		if (access(test, X_OK) != 0) {
			snprintf(why, size, "%s '%s' is not executable: %s", DECK_PRIV_WRITE_ENV, test,
			         strerror(errno));
			return NULL;
		}
		return test;
	}
	if (access(DECK_PKEXEC, X_OK) != 0) {
		snprintf(why, size, "no %s (%s)", DECK_PKEXEC, strerror(errno));
		return NULL;
	}
	if (access(DECK_PRIV_WRITE_HELPER, X_OK) != 0) {
		snprintf(why, size, "no %s (%s; SteamOS's jupiter-hw-support has it)",
		         DECK_PRIV_WRITE_HELPER, strerror(errno));
		return NULL;
	}
	return DECK_PRIV_WRITE_HELPER;
}

/* Whether the card's level file and TDP cap can be written here. */
static bool sysfs_writable(struct deck *d, char *why, size_t size)
{
	if (!deck_card(d)) {
		snprintf(why, size, "this host has no amdgpu card");
		return false;
	}
	char *files[2] = { NULL, NULL };
	if (asprintf(&files[0], "%s/power_dpm_force_performance_level", d->card_dev) < 0)
		files[0] = NULL;
	if (d->hwmon && asprintf(&files[1], "%s/power1_cap", d->hwmon) < 0)
		files[1] = NULL;
	bool ok = files[0] != NULL;
	for (int i = 0; i < 2 && ok; i++)
		if (files[i] && access(files[i], W_OK) != 0) {
			snprintf(why, size, "'%s' is not writable: %s (root's on SteamOS)", files[i],
			         strerror(errno));
			ok = false;
		}
	free(files[0]);
	free(files[1]);
	return ok;
}

static void close_route(struct deck_control *c)
{
	deck_sm_close(c->sm);
	c->sm = NULL;
	c->helper = NULL;
	size_t n = c->route.n_tries;
	struct deck_route_try tries[DECK_ROUTE_MAX_TRIES];
	memcpy(tries, c->route.tries, sizeof tries);
	memset(&c->route, 0, sizeof c->route);
	memcpy(c->route.tries, tries, sizeof tries);
	c->route.n_tries = n;
}

/* Verifies the route just found when asked to; on failure closes it and
 * says why in t. */
static bool verified(struct deck_control *c, const struct deck_control_options *o,
                     struct deck_route_try *t)
{
	if (!o->verify)
		return true;
	char what[256];
	if (deck_control_noop_write(c, what, sizeof what) == 0)
		return true;
	snprintf(t->why, sizeof t->why, "the no-op write failed: %.290s", c->errmsg);
	close_route(c);
	return false;
}

int deck_control_open(struct deck *d, const struct deck_control_options *opts,
                      struct deck_control **out)
{
	struct deck_control_options o = opts ? *opts : (struct deck_control_options){ 0 };
	struct deck_control *c = calloc(1, sizeof *c);
	if (!c)
		return -ENOMEM;
	c->deck = d;
	struct deck_route *r = &c->route;
	bool bus_kind = !o.only || o.only == DECK_ROUTE_SPLIT || o.only == DECK_ROUTE_MANAGER ||
	                o.only == DECK_ROUTE_METHODS;
	for (int system = 0; system < 2 && !o.no_bus && bus_kind && !r->kind; system++) {
		struct deck_route_try *t = add_try(r, system ? "system bus steamos-manager"
		                                             : "session bus steamos-manager");
		int err = deck_sm_open(system, o.only, r, &c->sm, t->why, sizeof t->why);
		if (err == -ENOMEM) {
			deck_control_destroy(c);
			return err;
		}
		if (err)
			continue;
		snprintf(t->route, sizeof t->route, "%s bus %.170s", r->bus, r->interface);
		sm_ranges(c);
		verified(c, &o, t);
	}
	if (!r->kind && (!o.only || o.only == DECK_ROUTE_PRIV_WRITE)) {
		struct deck_route_try *t = add_try(r, "pkexec steamos-priv-write");
		if (!deck_card(d))
			snprintf(t->why, sizeof t->why, "this host has no amdgpu card");
		else if ((c->helper = find_helper(t->why, sizeof t->why)) != NULL) {
			r->kind = DECK_ROUTE_PRIV_WRITE;
			bool real = strcmp(c->helper, DECK_PRIV_WRITE_HELPER) == 0;
			snprintf(r->interface, sizeof r->interface, "%s%s PATH VALUE",
			         real ? DECK_PKEXEC " " : "", c->helper);
			r->can_clock = r->can_tdp = true;
			kernel_ranges(c);
			verified(c, &o, t);
		}
	}
	if (!r->kind && (!o.only || o.only == DECK_ROUTE_SYSFS)) {
		struct deck_route_try *t = add_try(r, "sysfs");
		if (sysfs_writable(d, t->why, sizeof t->why)) {
			r->kind = DECK_ROUTE_SYSFS;
			snprintf(r->interface, sizeof r->interface, "%s", d->card_dev);
			r->can_clock = true;
			r->can_tdp = d->hwmon != NULL;
			kernel_ranges(c);
			verified(c, &o, t);
		}
	}
	*out = c;
	return 0;
}

int deck_control_create(struct deck *d, bool use_manager, struct deck_control **out)
{
	return deck_control_open(d, &(struct deck_control_options){ .no_bus = !use_manager }, out);
}

void deck_control_destroy(struct deck_control *c)
{
	if (!c)
		return;
	deck_sm_close(c->sm);
	free(c);
}

const struct deck_route *deck_control_route(const struct deck_control *c)
{
	return &c->route;
}

const char *deck_control_via(const struct deck_control *c)
{
	return deck_route_kind_name(c->route.kind);
}

const char *deck_control_errmsg(const struct deck_control *c)
{
	return c ? c->errmsg : "";
}

static int no_route(struct deck_control *c)
{
	char tries[1200];
	deck_route_tries_text(&c->route, tries, sizeof tries);
	return fail(c, -ENODEV, "no route to the GPU clock and TDP: %s", tries);
}

int deck_control_check(struct deck_control *c, unsigned gpu_clock_mhz, double tdp_w)
{
	const struct deck_route *r = &c->route;
	if (!gpu_clock_mhz && !(tdp_w > 0))
		return 0;
	if (!r->kind)
		return no_route(c);
	if (gpu_clock_mhz && !r->can_clock)
		return fail(c, -EOPNOTSUPP, "the %s route cannot set the GPU clock",
		            deck_route_kind_name(r->kind));
	if (tdp_w > 0 && !r->can_tdp)
		return fail(c, -EOPNOTSUPP, "the %s route cannot set the TDP (the card has no hwmon)",
		            deck_route_kind_name(r->kind));
	if (gpu_clock_mhz && r->clock_max_mhz &&
	    (gpu_clock_mhz < r->clock_min_mhz || gpu_clock_mhz > r->clock_max_mhz))
		return fail(c, -ERANGE, "gpu_clock %u MHz is outside %u to %u MHz, %s", gpu_clock_mhz,
		            r->clock_min_mhz, r->clock_max_mhz, r->clock_range_source);
	if (tdp_w > 0 && r->tdp_max_w > 0 && (tdp_w < r->tdp_min_w || tdp_w > r->tdp_max_w))
		return fail(c, -ERANGE, "tdp_w %g W is outside %g to %g W, %s", tdp_w, r->tdp_min_w,
		            r->tdp_max_w, r->tdp_range_source);
	if (tdp_w > 0 && r->kind <= DECK_ROUTE_METHODS && fabs(tdp_w - lround(tdp_w)) > 1e-9)
		return fail(c, -ERANGE, "tdp_w %g W: steamos-manager takes whole watts", tdp_w);
	return 0;
}

static bool via_sm(const struct deck_control *c)
{
	return c->sm != NULL;
}

/* clock.c's writes go through the helper while the route is priv-write. */
static void through_route(struct deck_control *c, bool on)
{
	c->deck->priv_write = on ? c->helper : NULL;
}

/* The level through the route; the 2023 era and the helper read sysfs. */
static int level_get(struct deck_control *c, char *buf, size_t size)
{
	if (via_sm(c) && c->route.kind != DECK_ROUTE_METHODS) {
		int err = deck_sm_level_get(c->sm, buf, size);
		if (err == 0)
			return 0;
		/* v24.4 cannot name every level the kernel may hold: read it there */
		char msg[512];
		snprintf(msg, sizeof msg, "%s", deck_sm_errmsg(c->sm));
		if (deck_perf_level_get(c->deck, buf, size) == 0)
			return 0;
		return fail(c, err, "%s", msg);
	}
	int err = deck_perf_level_get(c->deck, buf, size);
	return err ? fail(c, err, "%s", deck_errmsg(c->deck)) : 0;
}

static int tdp_get(struct deck_control *c, double *w)
{
	if (via_sm(c) && c->route.kind != DECK_ROUTE_METHODS) {
		unsigned v;
		int err = deck_sm_tdp_get(c->sm, &v);
		if (err)
			return fail(c, err, "%s", deck_sm_errmsg(c->sm));
		*w = v;
		return 0;
	}
	double lo, hi;
	int err = deck_tdp_get_w(c->deck, w, &lo, &hi);
	return err ? fail(c, err, "%s", deck_errmsg(c->deck)) : 0;
}

static int level_set(struct deck_control *c, const char *level)
{
	int err;
	if (via_sm(c))
		return (err = deck_sm_level_set(c->sm, level)) ? fail(c, err, "%s",
		                                                      deck_sm_errmsg(c->sm)) : 0;
	through_route(c, true);
	err = deck_perf_level_set(c->deck, level);
	through_route(c, false);
	return err ? fail(c, err, "%s", deck_errmsg(c->deck)) : 0;
}

static int clock_set(struct deck_control *c, unsigned mhz)
{
	int err;
	if (via_sm(c))
		return (err = deck_sm_clock_set(c->sm, mhz)) ? fail(c, err, "%s",
		                                                    deck_sm_errmsg(c->sm)) : 0;
	through_route(c, true);
	err = deck_sclk_set_mhz(c->deck, mhz);
	through_route(c, false);
	return err ? fail(c, err, "%s", deck_errmsg(c->deck)) : 0;
}

static int tdp_set(struct deck_control *c, double w)
{
	int err;
	if (via_sm(c))
		return (err = deck_sm_tdp_set(c->sm, (unsigned)lround(w)))
		               ? fail(c, err, "%s", deck_sm_errmsg(c->sm)) : 0;
	through_route(c, true);
	err = deck_tdp_set_w(c->deck, w);
	through_route(c, false);
	return err ? fail(c, err, "%s", deck_errmsg(c->deck)) : 0;
}

int deck_control_level_get(struct deck_control *c, char *buf, size_t size)
{
	char tmp[64];
	int err = level_get(c, tmp, sizeof tmp);
	if (err)
		return err;
	if (strlen(tmp) + 1 > size)
		return fail(c, -ERANGE, "GPU level '%s' does not fit", tmp);
	memcpy(buf, tmp, strlen(tmp) + 1);
	c->errmsg[0] = '\0';
	return 0;
}

int deck_control_level_set(struct deck_control *c, const char *level)
{
	if (deck_perf_level_check(c->deck, level))
		return fail(c, -EINVAL, "%s", deck_errmsg(c->deck));
	if (!c->route.kind)
		return no_route(c);
	if (!c->route.can_clock)
		return fail(c, -EOPNOTSUPP, "the %s route cannot set the GPU level",
		            deck_route_kind_name(c->route.kind));
	return level_set(c, level);
}

static const char *route_words(const struct deck_control *c, char *buf, size_t size)
{
	const struct deck_route *r = &c->route;
	if (r->bus[0])
		snprintf(buf, size, "steamos-manager on the %s bus", r->bus);
	else if (r->kind == DECK_ROUTE_PRIV_WRITE)
		snprintf(buf, size, "steamos-priv-write");
	else
		snprintf(buf, size, "sysfs");
	return buf;
}

int deck_control_noop_write(struct deck_control *c, char *what, size_t size)
{
	if (!c->route.kind)
		return no_route(c);
	char level[32] = "", done[256] = "", words[64];
	double w = 0;
	bool have_tdp = c->route.can_tdp && tdp_get(c, &w) == 0;
	bool have_level = level_get(c, level, sizeof level) == 0;
	/* The 2023 methods and v24's u properties code five levels only. */
	if (have_level && (c->route.kind == DECK_ROUTE_MANAGER || c->route.kind == DECK_ROUTE_METHODS) &&
	    strcmp(level, "auto") && strcmp(level, "low") && strcmp(level, "high") &&
	    strcmp(level, "manual") && strcmp(level, "profile_peak"))
		have_level = false;
	if (!have_tdp && !have_level)
		return c->errmsg[0] ? -EIO : fail(c, -EIO, "nothing could be read through it");
	int err;
	if (have_tdp) {
		if ((err = tdp_set(c, w)) != 0)
			return err;
		snprintf(done, sizeof done, "TDP %g W", w);
	}
	if (have_level) {
		if ((err = level_set(c, level)) != 0)
			return err;
		size_t n = strlen(done);
		snprintf(done + n, sizeof done - n, "%sGPU level '%s'", n ? ", " : "", level);
	}
	c->errmsg[0] = '\0';
	if (what)
		snprintf(what, size, "%s written back through %s", done,
		         route_words(c, words, sizeof words));
	return 0;
}

int deck_control_save(struct deck_control *c, struct deck_control_state *out)
{
	if (!c->route.kind)
		return no_route(c);
	struct deck_control_state s = { 0 };
	snprintf(s.via, sizeof s.via, "%s", deck_control_via(c));
	int err = level_get(c, s.level, sizeof s.level);
	if (err)
		return err;
	unsigned mhz;
	if (via_sm(c) && c->route.kind != DECK_ROUTE_METHODS && deck_sm_clock_get(c->sm, &mhz) == 0)
		s.clock_mhz = mhz;
	double w;
	if (c->route.can_tdp && tdp_get(c, &w) == 0)
		s.tdp_w = w;
	c->errmsg[0] = '\0';
	*out = s;
	return 0;
}

int deck_control_apply(struct deck_control *c, unsigned gpu_clock_mhz, double tdp_w)
{
	int err = deck_control_check(c, gpu_clock_mhz, tdp_w);
	if (err)
		return err;
	if (gpu_clock_mhz && (err = clock_set(c, gpu_clock_mhz)))
		return err;
	if (tdp_w > 0 && (err = tdp_set(c, tdp_w)))
		return err;
	return 0;
}

int deck_control_restore(struct deck_control *c, const struct deck_control_state *s)
{
	enum deck_route_kind kind;
	if (deck_route_kind_from_name(s->via, &kind) != 0 || kind != c->route.kind) {
		char tries[1000];
		deck_route_tries_text(&c->route, tries, sizeof tries);
		return fail(c, -ENOENT, "the settings were changed through %s, which is not "
		            "available now%s%s%s", s->via, c->route.kind ? " (found: " : "",
		            c->route.kind ? deck_control_via(c) : "", c->route.kind ? ")" : "");
	}
	int first = 0, err;
	if (s->tdp_w > 0 && (err = tdp_set(c, s->tdp_w)) && !first)
		first = err;
	char msg[sizeof c->errmsg];
	snprintf(msg, sizeof msg, "%s", c->errmsg);
	if (strcmp(s->level, "manual") == 0 && s->clock_mhz)
		err = clock_set(c, s->clock_mhz);
	else
		err = s->level[0] ? level_set(c, s->level) : 0;
	if (err && !first)
		first = err;
	else if (first)
		snprintf(c->errmsg, sizeof c->errmsg, "%s", msg);
	return first;
}

int deck_control_state_write(const char *path, const struct deck_control_state *s)
{
	char tmp[4096];
	if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
		return -ENAMETOOLONG;
	FILE *f = fopen(tmp, "w");
	if (!f)
		return -errno;
	fprintf(f, "via %s\nlevel %s\nclock_mhz %u\ntdp_w %g\n", s->via, s->level[0] ? s->level : "-",
	        s->clock_mhz, s->tdp_w);
	int err = 0;
	if (fflush(f) != 0 || fsync(fileno(f)) != 0)
		err = -errno;
	if (fclose(f) != 0 && !err)
		err = -errno;
	if (!err && rename(tmp, path) != 0)
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

int deck_control_state_read(const char *path, struct deck_control_state *out, char *errmsg,
                            size_t size)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -errno;
	struct deck_control_state s = { 0 };
	char line[256];
	int n = 0, err = 0, seen = 0;
	enum deck_route_kind kind;
	while (!err && fgets(line, sizeof line, f)) {
		n++;
		char key[32], val[64];
		if (sscanf(line, "%31s %63s", key, val) != 2) {
			snprintf(errmsg, size, "%s:%d:1: expected 'key value'", path, n);
			err = -EINVAL;
		} else if (strcmp(key, "via") == 0 && deck_route_kind_from_name(val, &kind) == 0 &&
		           kind != DECK_ROUTE_NONE) {
			snprintf(s.via, sizeof s.via, "%s", deck_route_kind_name(kind));
			seen |= 1;
		} else if (strcmp(key, "level") == 0 && strlen(val) < sizeof s.level) {
			memcpy(s.level, strcmp(val, "-") == 0 ? "" : val,
			       strcmp(val, "-") == 0 ? 1 : strlen(val) + 1);
			seen |= 2;
		} else if (strcmp(key, "clock_mhz") == 0 && sscanf(val, "%u", &s.clock_mhz) == 1) {
			seen |= 4;
		} else if (strcmp(key, "tdp_w") == 0 && sscanf(val, "%lf", &s.tdp_w) == 1 &&
		           s.tdp_w >= 0 && s.tdp_w < 1000) {
			seen |= 8;
		} else {
			snprintf(errmsg, size, "%s:%d:%zu: unexpected '%s %s'", path, n,
			         strlen(key) + 2, key, val);
			err = -EINVAL;
		}
	}
	fclose(f);
	if (!err && seen != 15) {
		snprintf(errmsg, size, "%s:%d:1: incomplete (needs via, level, clock_mhz, tdp_w)", path,
		         n + 1);
		err = -EINVAL;
	}
	if (!err)
		*out = s;
	return err;
}
