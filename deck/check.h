/* deck check: what `rxdeck deck check` reads of the host that the
 * samplers do not expose: the gpu_metrics table's header and whether its
 * fields were read, and the card's hwmon labels.  Both through a struct
 * deck (deck.h), under its root. */
#ifndef RXDECK_DECK_CHECK_H
#define RXDECK_DECK_CHECK_H

#include <stdbool.h>
#include <stddef.h>

struct deck;

struct deck_gpu_metrics_status {
	char path[512];                 /* the card's gpu_metrics; "" when it has none */
	unsigned format, content, size; /* its header (0 when shorter than a header) */
	size_t len;                     /* bytes one read gave */
	int err;                        /* 0: the fields were read; -ENOENT no file;
	                                   -EOPNOTSUPP not read (msg "... not read: vF.C");
	                                   -EINVAL malformed (msg says where); else the
	                                   read's -errno */
	char msg[800];
	double socket_power_w, gfxclk_mhz; /* read values (NAN: unfilled), when err is 0 */
};

/* Reads and parses the card's gpu_metrics once.  Returns 0 (the outcome
 * is in out->err), -EINVAL for NULL arguments. */
int deck_gpu_metrics_status(struct deck *d, struct deck_gpu_metrics_status *out);

/* The card's hwmon as the samplers use it, one line ("hwmon4: power1
 * slowPPT, power1_cap, temp1 edge, temp2; fan: steamdeck_hwmon"), and in
 * *missing what an APU's night relies on and is not there ("" when
 * nothing).  -ENOENT without a card or hwmon (line says so). */
int deck_hwmon_describe(struct deck *d, char *line, size_t size, char *missing,
                        size_t missing_size);

#endif
