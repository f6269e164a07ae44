/* deck internals shared by deck.c, clock.c and facts.c: the handle. */
#ifndef RXDECK_DECK_INTERNAL_H
#define RXDECK_DECK_INTERNAL_H

#include "deck.h"
#include "deck-private.h"

#define DECK_MAX_TEMPS 16

/* Valve's polkit helper (jupiter-hw-support) and how it is run. */
#define DECK_PKEXEC "/usr/bin/pkexec"
#define DECK_PRIV_WRITE_HELPER "/usr/bin/steamos-polkit-helpers/steamos-priv-write"

struct deck {
	char *root;           /* "/" or a fake tree */
	char *card;           /* "card0", or NULL */
	char *card_dev;       /* ROOT/sys/class/drm/card0/device */
	char *hwmon;          /* the card's hwmon folder, or NULL */
	char *power[2];       /* power1_average, power1_input: those that exist */
	size_t n_power;
	char *temps[DECK_MAX_TEMPS]; /* temp*_input, by number */
	size_t n_temps;
	int temp_main;        /* index of "edge", else 0; -1 without temps */
	char *gpu_metrics;    /* the card's gpu_metrics, when it has one */
	bool apu;             /* gpu_metrics format 2, or hwmon power labelled slowPPT */
	char *fan;            /* steamdeck_hwmon's fan1_input, else the card hwmon's */
	char *power_cap;      /* the card hwmon's power1_cap */
	char *battery;        /* power_supply folder of type Battery (host scope) */
	char *ac;             /* power_supply folder of type Mains */
	char *source[DECK_N_READINGS];
	const char *priv_write; /* while set, clock.c's writes go through this helper
	                           command (control.c's priv-write route), else direct */
	char errmsg[640];
};

int deck_fail(struct deck *d, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ROOT + rel, malloc'd. */
char *deck_path(const struct deck *d, const char *rel);

/* Reads up to size - 1 bytes of path into buf, NUL-terminated. */
int deck_read_file(const char *path, char *buf, size_t size, size_t *len_out);

/* ---- steamos-manager over D-Bus (bus.c), for control.c ---- */

struct deck_sm;

/* Introspects steamos-manager on the system bus (system) or the session
 * bus and opens the era it serves (only: that era alone, NONE: any).
 * Fills route's kind, bus, interface, spelling, version, can_*.  -ENOENT
 * with why when it is not there or serves no known era; -ENOMEM. */
int deck_sm_open(bool system, enum deck_route_kind only, struct deck_route *route,
                 struct deck_sm **out, char *why, size_t size);
void deck_sm_close(struct deck_sm *m);
const char *deck_sm_errmsg(const struct deck_sm *m);
/* Its Min/Max properties; -ENOENT when this era has none (2023). */
int deck_sm_clock_range(struct deck_sm *m, unsigned *min_mhz, unsigned *max_mhz);
int deck_sm_tdp_range(struct deck_sm *m, unsigned *min_w, unsigned *max_w);
/* Level names as the kernel's ("auto", "manual", "profile_peak"). The
 * 2023 era cannot be read (-EOPNOTSUPP). */
int deck_sm_level_get(struct deck_sm *m, char *buf, size_t size);
int deck_sm_level_set(struct deck_sm *m, const char *level);
int deck_sm_clock_get(struct deck_sm *m, unsigned *mhz);
/* Level "manual", then the clock. */
int deck_sm_clock_set(struct deck_sm *m, unsigned mhz);
int deck_sm_tdp_get(struct deck_sm *m, unsigned *w);
int deck_sm_tdp_set(struct deck_sm *m, unsigned w);

#endif
