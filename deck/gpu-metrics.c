/* deck gpu_metrics: amdgpu's binary sensor table, format 2 (APUs).
 *
 * The kernel exports one struct per read of
 * /sys/class/drm/cardN/device/gpu_metrics: a 4-byte header (structure
 * size, format revision, content revision), then fields whose offsets are
 * fixed by the revision (kgd_pp_interface.h's struct gpu_metrics_v2_1 ..
 * v2_4, laid out here in gpu-metrics-layout.h).  The header's size is
 * sizeof the struct, padding included: v2.4's 164 bytes of fields make
 * 168.  Van Gogh (the Steam Deck's APU) reports v2.2 or v2.3 with older
 * firmware and v2.4 with newer (vangogh_ppt.c picks by firmware version).
 * Every v2.x from 2.1 on only appends fields, so a table is read when its
 * header's size reaches the end of the last field read for its revision
 * (fan_pwm for v2.1, the independent throttle word from v2.2 on), a newer
 * and larger one included.  Other formats and v2.0 are refused as "not
 * read: vF.C": format 1 (discrete cards) has hwmon, format 3 another
 * layout.
 *
 * This file owns only the bytes: which file is read when is deck.c's.
 * Units as the kernel documents them for v2: temperatures in centi-°C,
 * activity in centi-%, power in mW, clocks in MHz; 0xffff marks a field
 * the firmware does not fill.
 */
#include "deck-private.h"
#include "gpu-metrics-layout.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Offsets from the kernel's structs (gpu-metrics-layout.h).  Every v2.x
 * from 2.1 on only appends fields, so v2.1's offsets serve them all. */
#define OFF(field) offsetof(struct kgd_gpu_metrics_v2_4, field)
enum {
	OFF_TEMP_GFX = OFF(temperature_gfx),
	OFF_TEMP_SOC = OFF(temperature_soc),
	OFF_GFX_ACTIVITY = OFF(average_gfx_activity),
	OFF_SOCKET_POWER = OFF(average_socket_power),
	OFF_CPU_POWER = OFF(average_cpu_power),
	OFF_SOC_POWER = OFF(average_soc_power),
	OFF_GFX_POWER = OFF(average_gfx_power),
	OFF_CURRENT_GFXCLK = OFF(current_gfxclk),
	OFF_CURRENT_FCLK = OFF(current_fclk),
	OFF_THROTTLE_STATUS = OFF(throttle_status),
	OFF_FAN_PWM = OFF(fan_pwm),
	OFF_INDEP_THROTTLE = OFF(indep_throttle_status),
	/* where the last field read ends: fan_pwm for v2.1, the
	 * ASIC-independent throttle word from v2.2 on */
	END_V2_1 = OFF(fan_pwm) + sizeof(uint16_t),
	END_V2_2 = OFF(indep_throttle_status) + sizeof(uint64_t),
};
#undef OFF

_Static_assert(offsetof(struct kgd_gpu_metrics_v2_1, fan_pwm) ==
               offsetof(struct kgd_gpu_metrics_v2_4, fan_pwm), "v2.x share their start");
_Static_assert(offsetof(struct kgd_gpu_metrics_v2_2, indep_throttle_status) ==
               offsetof(struct kgd_gpu_metrics_v2_4, indep_throttle_status),
               "v2.2 and later share the throttle word's place");

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
	if (len < sizeof(struct kgd_metrics_table_header))
		return fail(name, len, err, "%zu bytes, shorter than the %zu-byte header", len,
		            sizeof(struct kgd_metrics_table_header));
	unsigned size = u16_at(b, offsetof(struct kgd_metrics_table_header, structure_size));
	unsigned format = b[offsetof(struct kgd_metrics_table_header, format_revision)];
	unsigned content = b[offsetof(struct kgd_metrics_table_header, content_revision)];
	if (format != 2 || content == 0) {
		/* v2.0 is not naturally aligned: its fields sit elsewhere. */
		if (err)
			snprintf(err->msg, sizeof err->msg, "%s: byte %zu: not read: v%u.%u (rxdeck reads "
			         "format 2 from v2.1 on, an APU's; %s)", name,
			         format != 2 ? offsetof(struct kgd_metrics_table_header, format_revision)
			                     : offsetof(struct kgd_metrics_table_header, content_revision),
			         format, content,
			         format == 1 ? "a discrete card's readings come from hwmon"
			                     : "hwmon's readings are used instead");
		return -EOPNOTSUPP;
	}
	/* A newer v2.x than 2.4 appends fields as every one before it did: its
	 * start is read as v2.4's, as long as the header covers it. */
	size_t need = content == 1 ? END_V2_1 : END_V2_2;
	if (size < need)
		return fail(name, 0, err, "the header says %u bytes, v2.%u's fields read here end at "
		            "byte %zu", size, content, need);
	if (len < size)
		return fail(name, len, err, "%zu bytes, the header says %u", len, size);
	struct deck_gpu_metrics m = {
		.format = format,
		.content = content,
		.size = size,
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
