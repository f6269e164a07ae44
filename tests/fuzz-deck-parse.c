/* Fuzz target: every deck parser over the same arbitrary bytes.  A parser
 * must accept or refuse with a "name:line:column: " message, never crash
 * or read past the given length. */
#include "deck/deck-private.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int err, const struct deck_err *e)
{
	if (err == -EINVAL && strncmp(e->msg, "f:", 2) != 0)
		abort(); /* a refusal names the file, line and column */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An exact-size copy, so reading past size is caught by a sanitizer. */
	char *t = malloc(size ? size : 1);
	if (!t)
		return 0;
	memcpy(t, data, size);
	struct deck_err e;
	double d, l[3];
	unsigned lo, hi;
	uint64_t u;
	int64_t i;
	char *s = NULL, word[64];
	e.msg[0] = '\0';
	check(deck_parse_number("f", t, size, &d, &e), &e);
	check(deck_parse_sclk("f", t, size, &d, &e), &e);
	check(deck_parse_od_range("f", t, size, &lo, &hi, &e), &e);
	check(deck_parse_vmstat("f", t, size, "pswpin", &u, &e), &e);
	check(deck_parse_loadavg("f", t, size, l, &e), &e);
	if (deck_parse_os_release("f", t, size, "PRETTY_NAME", &s, &e) == 0)
		free(s);
	if (deck_parse_colon_field("f", t, size, "model name", &s, &e) == 0)
		free(s);
	check(deck_parse_meminfo_total("f", t, size, &i, &e), &e);
	if (deck_parse_dpkg_version("f", t, size, "mesa-vulkan-drivers", &s, &e) == 0)
		free(s);
	check(deck_parse_word("f", t, size, word, sizeof word, &e), &e);
	struct deck_gpu_metrics m;
	int err = deck_parse_gpu_metrics("f", t, size, &m, &e);
	if (err == -EINVAL && strncmp(e.msg, "f: byte ", 8) != 0)
		abort(); /* a binary file's refusal names the byte */
	unsigned w, h;
	double hz;
	err = deck_parse_edid_mode("f", t, size, &w, &h, &hz, &e);
	if (err == -EINVAL && strncmp(e.msg, "f: byte ", 8) != 0)
		abort();
	check(deck_parse_zram_algorithm("f", t, size, word, sizeof word, &e), &e);
	char *name = strndup(t, size);
	if (name && deck_parse_pacman_dir(name, "mesa", &s) == 0)
		free(s);
	struct deck_era era;
	char why[320];
	for (int only = 0; name && only <= 3; only++)
		deck_parse_introspection(name, only, &era, why, sizeof why);
	free(name);
	free(t);
	return 0;
}
