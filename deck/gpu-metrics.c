/* deck gpu_metrics: amdgpu's binary sensor table, format 2 (APUs).
 *
 * The kernel exports one packed struct per read of
 * /sys/class/drm/cardN/device/gpu_metrics: a 4-byte header (structure
 * size, format revision, content revision), then fields whose offsets are
 * fixed by the revision (drivers/gpu/drm/amd/include/kgd_pp_interface.h,
 * struct gpu_metrics_v2_1 .. v2_4).  Van Gogh (the Steam Deck's APU)
 * reports v2.2 on older kernels and v2.3/v2.4 on newer ones; all of them
 * share the layout up to the fields read here, so one table of offsets
 * serves every 2.x.  Format 1 (discrete cards) is refused as unsupported:
 * those cards' readings come from hwmon.
 *
 * This file owns only the bytes: which file is read when is deck.c's.
 * Units as the kernel documents them for v2: temperatures in centi-°C,
 * activity in centi-%, power in mW, clocks in MHz; 0xffff marks a field
 * the firmware does not fill.
 */
#include "deck-private.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Offsets of struct gpu_metrics_v2_1 .. v2_4 (natural alignment). */
enum {
	OFF_TEMP_GFX = 4,
	OFF_TEMP_SOC = 6,
	OFF_GFX_ACTIVITY = 28,
	OFF_SOCKET_POWER = 40,
	OFF_CPU_POWER = 42,
	OFF_SOC_POWER = 44,
	OFF_GFX_POWER = 46,
	OFF_CURRENT_GFXCLK = 76,
	OFF_CURRENT_FCLK = 82,
	OFF_THROTTLE_STATUS = 108,
	OFF_FAN_PWM = 112,
	OFF_INDEP_THROTTLE = 120,
	SIZE_V2_1 = 120,
	SIZE_V2_2 = 128,
	SIZE_V2_3 = 152,
	SIZE_V2_4 = 164,
};

static unsigned u16_at(const unsigned char *b, size_t off)
{
	return (unsigned)b[off] | (unsigned)b[off + 1] << 8;
}

static uint64_t u32_at(const unsigned char *b, size_t off)
{
	return (uint64_t)u16_at(b, off) | (uint64_t)u16_at(b, off + 2) << 16;
}

/* A 16-bit field scaled, or NAN where the firmware left it 0xffff. */
static double field(const unsigned char *b, size_t off, double scale)
{
	unsigned v = u16_at(b, off);
	return v == 0xffff ? NAN : v * scale;
}

static int fail(const char *name, size_t at, struct deck_err *err, const char *what, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(const char *name, size_t at, struct deck_err *err, const char *what, ...)
{
	if (err) {
		int n = snprintf(err->msg, sizeof err->msg, "%s: byte %zu: ", name, at);
		if (n > 0 && (size_t)n < sizeof err->msg) {
			va_list ap;
			va_start(ap, what);
			vsnprintf(err->msg + n, sizeof err->msg - (size_t)n, what, ap);
			va_end(ap);
		}
	}
	return -EINVAL;
}

int deck_parse_gpu_metrics(const char *name, const void *bytes, size_t len,
                           struct deck_gpu_metrics *out, struct deck_err *err)
{
	const unsigned char *b = bytes;
	if (len < 4)
		return fail(name, len, err, "%zu bytes, shorter than the 4-byte header", len);
	unsigned size = u16_at(b, 0), format = b[2], content = b[3];
	if (format != 2) {
		if (err)
			snprintf(err->msg, sizeof err->msg, "%s: byte 2: gpu_metrics format %u.%u is not "
			         "read (format 2, an APU's, is; a discrete card's readings come from "
			         "hwmon)", name, format, content);
		return -EOPNOTSUPP;
	}
	static const unsigned sizes[] = { 0, SIZE_V2_1, SIZE_V2_2, SIZE_V2_3, SIZE_V2_4 };
	if (content < 1 || content > 4) {
		if (err)
			snprintf(err->msg, sizeof err->msg, "%s: byte 3: gpu_metrics v2.%u is not known "
			         "(2.1 to 2.4 are)", name, content);
		return -EOPNOTSUPP;
	}
	if (size != sizes[content])
		return fail(name, 0, err, "the header says %u bytes, v2.%u is %u", size, content,
		            sizes[content]);
	if (len < size)
		return fail(name, len, err, "%zu bytes, the header says %u", len, size);
	struct deck_gpu_metrics m = {
		.format = format,
		.content = content,
		.temp_gfx_c = field(b, OFF_TEMP_GFX, 0.01),
		.temp_soc_c = field(b, OFF_TEMP_SOC, 0.01),
		.gfx_activity_pct = field(b, OFF_GFX_ACTIVITY, 0.01),
		.socket_power_w = field(b, OFF_SOCKET_POWER, 0.001),
		.cpu_power_w = field(b, OFF_CPU_POWER, 0.001),
		.soc_power_w = field(b, OFF_SOC_POWER, 0.001),
		.gfx_power_w = field(b, OFF_GFX_POWER, 0.001),
		.gfxclk_mhz = field(b, OFF_CURRENT_GFXCLK, 1),
		.fclk_mhz = field(b, OFF_CURRENT_FCLK, 1),
		.fan_pwm = field(b, OFF_FAN_PWM, 1),
		.throttle_status = (uint32_t)u32_at(b, OFF_THROTTLE_STATUS),
		.has_indep_throttle = content >= 2,
		.indep_throttle_status =
			content >= 2 ? u32_at(b, OFF_INDEP_THROTTLE) | u32_at(b, OFF_INDEP_THROTTLE + 4) << 32
			             : 0,
	};
	if (!isnan(m.gfx_activity_pct) && m.gfx_activity_pct > 100)
		return fail(name, OFF_GFX_ACTIVITY, err, "gfx activity %.2f %% is over 100 %%",
		            m.gfx_activity_pct);
	*out = m;
	return 0;
}
