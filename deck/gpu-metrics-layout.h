/* deck gpu_metrics layout: amdgpu's binary sensor tables of format 2
 * (APUs), laid out as the kernel lays them out, so that the reader
 * (gpu-metrics.c) and the tests' blobs take every offset and size from the
 * compiler (offsetof, sizeof) and none from a typed number.
 *
 * Followed: drivers/gpu/drm/amd/include/kgd_pp_interface.h of the Linux
 * kernel (torvalds/linux, mainline commit 00dedab07b52): struct
 * metrics_table_header, struct gpu_metrics_v2_1 .. gpu_metrics_v2_4 and
 * struct gpu_metrics_v3_0, field for field, same types, same order, no
 * packing attribute (the kernel declares none: the compiler pads to each
 * field's natural alignment, and the whole struct to uint64_t's).  The
 * kernel fills a table with smu_cmn_init_soft_gpu_metrics()
 * (drivers/gpu/drm/amd/pm/swsmu/smu_cmn.h): every byte 0xff, then the
 * header with structure_size = sizeof(the struct), then the fields the
 * ASIC has; Van Gogh's (vangogh_ppt.c) leave fan_pwm and the per-core
 * arrays past core 3 at 0xffff.
 *
 * Only the fields rxdeck reads are named in comments; the others are
 * there for their place.
 */
#ifndef RXDECK_DECK_GPU_METRICS_LAYOUT_H
#define RXDECK_DECK_GPU_METRICS_LAYOUT_H

#include <stdint.h>

struct kgd_metrics_table_header {
	uint16_t structure_size; /* sizeof the whole table, padding included */
	uint8_t format_revision; /* 1 discrete, 2 APU (v2.x), 3 newer APUs */
	uint8_t content_revision;
};

/* The part v2.1 to v2.4 share, up to fan_pwm and its padding. */
#define KGD_GPU_METRICS_V2_COMMON \
	struct kgd_metrics_table_header common_header; \
	uint16_t temperature_gfx;      /* centi-°C */ \
	uint16_t temperature_soc;      /* centi-°C */ \
	uint16_t temperature_core[8]; \
	uint16_t temperature_l3[2]; \
	uint16_t average_gfx_activity; /* centi-% */ \
	uint16_t average_mm_activity; \
	uint64_t system_clock_counter; \
	uint16_t average_socket_power; /* mW, the whole APU */ \
	uint16_t average_cpu_power;    /* mW */ \
	uint16_t average_soc_power;    /* mW */ \
	uint16_t average_gfx_power;    /* mW, the GPU alone */ \
	uint16_t average_core_power[8]; \
	uint16_t average_gfxclk_frequency; \
	uint16_t average_socclk_frequency; \
	uint16_t average_uclk_frequency; \
	uint16_t average_fclk_frequency; \
	uint16_t average_vclk_frequency; \
	uint16_t average_dclk_frequency; \
	uint16_t current_gfxclk;       /* MHz */ \
	uint16_t current_socclk; \
	uint16_t current_uclk; \
	uint16_t current_fclk;         /* MHz */ \
	uint16_t current_vclk; \
	uint16_t current_dclk; \
	uint16_t current_coreclk[8]; \
	uint16_t current_l3clk[2]; \
	uint32_t throttle_status;      /* ASIC-dependent bits */ \
	uint16_t fan_pwm; \
	uint16_t padding[3]

struct kgd_gpu_metrics_v2_1 {
	KGD_GPU_METRICS_V2_COMMON;
};

struct kgd_gpu_metrics_v2_2 {
	KGD_GPU_METRICS_V2_COMMON;
	uint64_t indep_throttle_status; /* amdgpu_smu.h's SMU_THROTTLER_* bits */
};

struct kgd_gpu_metrics_v2_3 {
	KGD_GPU_METRICS_V2_COMMON;
	uint64_t indep_throttle_status;
	uint16_t average_temperature_gfx;
	uint16_t average_temperature_soc;
	uint16_t average_temperature_core[8];
	uint16_t average_temperature_l3[2];
};

struct kgd_gpu_metrics_v2_4 {
	KGD_GPU_METRICS_V2_COMMON;
	uint64_t indep_throttle_status;
	uint16_t average_temperature_gfx;
	uint16_t average_temperature_soc;
	uint16_t average_temperature_core[8];
	uint16_t average_temperature_l3[2];
	uint16_t average_cpu_voltage;
	uint16_t average_soc_voltage;
	uint16_t average_gfx_voltage;
	uint16_t average_cpu_current;
	uint16_t average_soc_current;
	uint16_t average_gfx_current;
	/* 164 bytes of fields; sizeof pads to uint64_t's alignment */
};

/* Format 3 (not read by rxdeck: a different layout, other units). */
struct kgd_gpu_metrics_v3_0 {
	struct kgd_metrics_table_header common_header;
	uint16_t temperature_gfx;
	uint16_t temperature_soc;
	uint16_t temperature_core[16];
	uint16_t temperature_skin;
	uint16_t average_gfx_activity;
	uint16_t average_vcn_activity;
	uint16_t average_ipu_activity[8];
	uint16_t average_core_c0_activity[16];
	uint16_t average_dram_reads;
	uint16_t average_dram_writes;
	uint16_t average_ipu_reads;
	uint16_t average_ipu_writes;
	uint64_t system_clock_counter;
	uint32_t average_socket_power;
	uint16_t average_ipu_power;
	uint32_t average_apu_power;
	uint32_t average_gfx_power;
	uint32_t average_dgpu_power;
	uint32_t average_all_core_power;
	uint16_t average_core_power[16];
	uint16_t average_sys_power;
	uint16_t stapm_power_limit;
	uint16_t current_stapm_power_limit;
	uint16_t average_gfxclk_frequency;
	uint16_t average_socclk_frequency;
	uint16_t average_vpeclk_frequency;
	uint16_t average_ipuclk_frequency;
	uint16_t average_fclk_frequency;
	uint16_t average_vclk_frequency;
	uint16_t average_uclk_frequency;
	uint16_t average_mpipu_frequency;
	uint16_t current_coreclk[16];
	uint16_t current_core_maxfreq;
	uint16_t current_gfx_maxfreq;
	uint32_t throttle_residency_prochot;
	uint32_t throttle_residency_spl;
	uint32_t throttle_residency_fppt;
	uint32_t throttle_residency_sppt;
	uint32_t throttle_residency_thm_core;
	uint32_t throttle_residency_thm_gfx;
	uint32_t throttle_residency_thm_soc;
	uint32_t time_filter_alphavalue;
};

#endif
