/* deck internals shared by deck.c, clock.c and facts.c: the handle. */
#ifndef RXDECK_DECK_INTERNAL_H
#define RXDECK_DECK_INTERNAL_H

#include "deck.h"
#include "deck-private.h"

#define DECK_MAX_TEMPS 16

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
	char errmsg[640];
};

int deck_fail(struct deck *d, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ROOT + rel, malloc'd. */
char *deck_path(const struct deck *d, const char *rel);

/* Reads up to size - 1 bytes of path into buf, NUL-terminated. */
int deck_read_file(const char *path, char *buf, size_t size, size_t *len_out);

#endif
