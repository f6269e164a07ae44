/* deck EDID: the display's preferred mode from its EDID block, for the
 * refresh rate stored with a campaign.
 *
 * It owns only the bytes of the base block (the 8-byte header, the
 * checksum and the first 18-byte detailed timing descriptor at offset 54,
 * which EDID 1.3+ makes the preferred mode).  Which connector's file is
 * read is facts.c's.  The mode a compositor actually set (gamescope may run
 * the panel at 40-60 Hz, or 90 Hz on an OLED) is not in sysfs; this is the
 * panel's preferred mode.
 */
#include "deck-private.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int fail(const char *name, size_t at, struct deck_err *err, const char *what)
{
	if (err)
		snprintf(err->msg, sizeof err->msg, "%s: byte %zu: %s", name, at, what);
	return -EINVAL;
}

int deck_parse_edid_mode(const char *name, const void *bytes, size_t len, unsigned *width,
                         unsigned *height, double *refresh_hz, struct deck_err *err)
{
	static const unsigned char header[8] = { 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00 };
	const unsigned char *b = bytes;
	if (len < 128)
		return fail(name, len, err, "shorter than an EDID block (128 bytes)");
	if (memcmp(b, header, sizeof header) != 0)
		return fail(name, 0, err, "not an EDID block (no 00 ff ff ff ff ff ff 00 header)");
	unsigned sum = 0;
	for (size_t i = 0; i < 128; i++)
		sum += b[i];
	if (sum % 256 != 0)
		return fail(name, 127, err, "EDID checksum does not add up");
	const unsigned char *t = b + 54;
	unsigned clock_10khz = (unsigned)t[0] | (unsigned)t[1] << 8;
	if (clock_10khz == 0)
		return fail(name, 54, err, "the first descriptor is not a detailed timing");
	unsigned h_active = t[2] | (unsigned)(t[4] & 0xf0) << 4;
	unsigned h_blank = t[3] | (unsigned)(t[4] & 0x0f) << 8;
	unsigned v_active = t[5] | (unsigned)(t[7] & 0xf0) << 4;
	unsigned v_blank = t[6] | (unsigned)(t[7] & 0x0f) << 8;
	if (h_active == 0 || v_active == 0)
		return fail(name, 56, err, "the preferred mode has no active area");
	double total = (double)(h_active + h_blank) * (double)(v_active + v_blank);
	*width = h_active;
	*height = v_active;
	*refresh_hz = clock_10khz * 10000.0 / total;
	return 0;
}
