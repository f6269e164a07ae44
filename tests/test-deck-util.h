/* Helpers for the deck tests: a fake system root (sys/, proc/, etc/) in a
 * temporary folder, filled file by file. */
#ifndef RXDECK_TEST_DECK_UTIL_H
#define RXDECK_TEST_DECK_UTIL_H

#include "deck/deck.h"
#include "deck/gpu-metrics-layout.h"

#include <errno.h>
#include <ftw.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct fake {
	char root[PATH_MAX / 2];
};

static inline void fake_init(struct fake *f)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(f->root, sizeof f->root, "%s/rxdeck-deck-test-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
	assert_non_null(mkdtemp(f->root));
}

static inline void fake_mkdirs(const char *path)
{
	char buf[PATH_MAX];
	snprintf(buf, sizeof buf, "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(buf, 0755);
			*p = '/';
		}
	}
	mkdir(buf, 0755);
}

/* Writes ROOT/rel with len bytes (binary sysfs files too), creating folders. */
static inline void fake_write_bytes(struct fake *f, const char *rel, const void *bytes, size_t len)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", f->root, rel);
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s", path);
	*strrchr(dir, '/') = '\0';
	fake_mkdirs(dir);
	FILE *fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(bytes, 1, len, fp), len);
	fclose(fp);
}

/* Writes ROOT/rel with content, creating folders. */
static inline void fake_write(struct fake *f, const char *rel, const char *content)
{
	fake_write_bytes(f, rel, content, strlen(content));
}

/* The text of ROOT/rel (static buffer). */
static inline const char *fake_read(struct fake *f, const char *rel)
{
	static char buf[8192];
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", f->root, rel);
	FILE *fp = fopen(path, "r");
	assert_non_null(fp);
	size_t n = fread(buf, 1, sizeof buf - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	return buf;
}

static inline int fake_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static inline void fake_cleanup(struct fake *f)
{
	nftw(f->root, fake_rm, 16, FTW_DEPTH | FTW_PHYS);
}

static inline void put16(unsigned char *b, size_t off, unsigned v)
{
	b[off] = (unsigned char)(v & 0xff);
	b[off + 1] = (unsigned char)(v >> 8);
}

/* What a fake gpu_metrics v2.x holds, in the kernel's units: centi-°C,
 * centi-%, mW, MHz. */
struct fake_metrics {
	unsigned content;         /* 2.x */
	unsigned temp_gfx, temp_soc, activity;
	unsigned socket_mw, cpu_mw, soc_mw, gfx_mw;
	unsigned gfxclk_mhz, fclk_mhz;
	uint64_t indep_throttle;
};

/* Fills the fields a Van Gogh table has, as vangogh_ppt.c does after
 * smu_cmn_init_soft_gpu_metrics() (every byte 0xff, the header's size
 * sizeof the struct): what it leaves alone stays 0xff (fan_pwm, padding). */
#define FAKE_METRICS_FILL(t, m, crev) \
	do { \
		memset(&(t), 0xff, sizeof(t)); \
		(t).common_header.structure_size = (uint16_t)sizeof(t); \
		(t).common_header.format_revision = 2; \
		(t).common_header.content_revision = (uint8_t)(crev); \
		(t).temperature_gfx = (uint16_t)(m)->temp_gfx; \
		(t).temperature_soc = (uint16_t)(m)->temp_soc; \
		(t).average_gfx_activity = (uint16_t)(m)->activity; \
		(t).system_clock_counter = 123456789; \
		(t).average_socket_power = (uint16_t)(m)->socket_mw; \
		(t).average_cpu_power = (uint16_t)(m)->cpu_mw; \
		(t).average_soc_power = (uint16_t)(m)->soc_mw; \
		(t).average_gfx_power = (uint16_t)(m)->gfx_mw; \
		(t).current_gfxclk = (uint16_t)(m)->gfxclk_mhz; \
		(t).current_fclk = (uint16_t)(m)->fclk_mhz; \
		(t).throttle_status = 0; \
	} while (0)

/* Writes a table laid out as the kernel's struct gpu_metrics_v2_<content>
 * (deck/gpu-metrics-layout.h, after kgd_pp_interface.h) into b (at least
 * sizeof(struct kgd_gpu_metrics_v2_4) bytes); returns its size, sizeof
 * that struct. */
static inline size_t fake_metrics_bytes(const struct fake_metrics *m, unsigned char *b)
{
	switch (m->content) {
	case 1: {
		struct kgd_gpu_metrics_v2_1 t;
		FAKE_METRICS_FILL(t, m, 1);
		memcpy(b, &t, sizeof t);
		return sizeof t;
	}
	case 2: {
		struct kgd_gpu_metrics_v2_2 t;
		FAKE_METRICS_FILL(t, m, 2);
		t.indep_throttle_status = m->indep_throttle;
		memcpy(b, &t, sizeof t);
		return sizeof t;
	}
	case 3: {
		struct kgd_gpu_metrics_v2_3 t;
		FAKE_METRICS_FILL(t, m, 3);
		t.indep_throttle_status = m->indep_throttle;
		t.average_temperature_gfx = (uint16_t)m->temp_gfx;
		t.average_temperature_soc = (uint16_t)m->temp_soc;
		memcpy(b, &t, sizeof t);
		return sizeof t;
	}
	default: {
		struct kgd_gpu_metrics_v2_4 t;
		FAKE_METRICS_FILL(t, m, 4);
		t.indep_throttle_status = m->indep_throttle;
		t.average_temperature_gfx = (uint16_t)m->temp_gfx;
		t.average_temperature_soc = (uint16_t)m->temp_soc;
		t.average_cpu_voltage = 1100;
		t.average_soc_voltage = 900;
		t.average_gfx_voltage = 1050;
		t.average_cpu_current = 2800;
		t.average_soc_current = 2100;
		t.average_gfx_current = 7700;
		memcpy(b, &t, sizeof t);
		return sizeof t;
	}
	}
}

static inline void fake_metrics(struct fake *f, const char *rel, const struct fake_metrics *m)
{
	unsigned char b[256];
	size_t n = fake_metrics_bytes(m, b);
	fake_write_bytes(f, rel, b, n);
}

/* An EDID base block whose preferred mode is w x h, the pixel clock in
 * 10 kHz units, with the blanking given: refresh = clock / totals. */
static inline void fake_edid(struct fake *f, const char *rel, unsigned w, unsigned h,
                             unsigned h_blank, unsigned v_blank, unsigned clock_10khz)
{
	unsigned char b[128] = { 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00 };
	b[18] = 1;
	b[19] = 4; /* EDID 1.4 */
	unsigned char *t = b + 54;
	t[0] = clock_10khz & 0xff;
	t[1] = (unsigned char)(clock_10khz >> 8);
	t[2] = w & 0xff;
	t[3] = h_blank & 0xff;
	t[4] = (unsigned char)(((w >> 8) & 0xf) << 4 | ((h_blank >> 8) & 0xf));
	t[5] = h & 0xff;
	t[6] = v_blank & 0xff;
	t[7] = (unsigned char)(((h >> 8) & 0xf) << 4 | ((v_blank >> 8) & 0xf));
	unsigned sum = 0;
	for (int i = 0; i < 127; i++)
		sum += b[i];
	b[127] = (unsigned char)((256 - sum % 256) % 256);
	fake_write_bytes(f, rel, b, sizeof b);
}

/* A Steam Deck LCD (Jupiter) as sysfs and procfs show it: see
 * tests/data/deck/README.md for where the values come from. */
static inline void fake_deck(struct fake *f)
{
	/* A connector entry that is not a card, and a card without amdgpu. */
	fake_write(f, "sys/class/drm/card0-eDP-1/status", "connected\n");
	fake_write(f, "sys/class/drm/card1/device/vendor", "0x1af4\n");
	fake_write(f, "sys/class/drm/card2/device/gpu_busy_percent", "37\n");
	fake_write(f, "sys/class/drm/card2/device/vendor", "0x1002\n");
	fake_write(f, "sys/class/drm/card2/device/device", "0x163f\n");
	fake_write(f, "sys/class/drm/card2/device/driver", "amdgpu\n");
	fake_write(f, "sys/class/drm/card2/device/pp_dpm_sclk",
	           "0: 200Mhz\n1: 1600Mhz *\n2: 1600Mhz\n");
	fake_write(f, "sys/class/drm/card2/device/power_dpm_force_performance_level", "auto\n");
	fake_write(f, "sys/class/drm/card2/device/pp_od_clk_voltage",
	           "OD_SCLK:\n0:        200Mhz\n1:       1600Mhz\n"
	           "CCLK_RANGE in Core0:\n0:       1400Mhz\n1:       3500Mhz\n"
	           "OD_RANGE:\nSCLK:     200Mhz       1600Mhz\nCCLK:    1400Mhz      3500Mhz\n");
	fake_write(f, "sys/class/drm/card2/device/hwmon/hwmon4/power1_average", "11250000\n");
	fake_write(f, "sys/class/drm/card2/device/hwmon/hwmon4/power1_input", "9000000\n");
	fake_write(f, "sys/class/drm/card2/device/hwmon/hwmon4/temp1_input", "61000\n");
	fake_write(f, "sys/class/drm/card2/device/hwmon/hwmon4/temp1_label", "edge\n");
	fake_write(f, "sys/class/drm/card2/device/hwmon/hwmon4/temp2_input", "68500\n");
	fake_write(f, "proc/vmstat", "nr_free_pages 123\npswpin 4200\npswpout 77\npgfault 9\n");
	fake_write(f, "proc/loadavg", "1.25 0.80 0.50 2/345 6789\n");
	/* The pad's battery (scope Device) must not be taken for the host's. */
	fake_write(f, "sys/class/power_supply/AAA-pad/type", "Battery\n");
	fake_write(f, "sys/class/power_supply/AAA-pad/scope", "Device\n");
	fake_write(f, "sys/class/power_supply/AAA-pad/capacity", "5\n");
	fake_write(f, "sys/class/power_supply/ACAD/type", "Mains\n");
	fake_write(f, "sys/class/power_supply/ACAD/online", "1\n");
	fake_write(f, "sys/class/power_supply/BAT1/type", "Battery\n");
	fake_write(f, "sys/class/power_supply/BAT1/capacity", "83\n");
	fake_write(f, "sys/class/power_supply/BAT1/status", "Charging\n");
	fake_write(f, "sys/class/dmi/id/product_name", "Jupiter\n");
	fake_write(f, "sys/class/dmi/id/sys_vendor", "Valve\n");
	fake_write(f, "proc/sys/kernel/osrelease", "6.5.0-valve22-1-neptune-65\n");
	fake_write(f, "proc/sys/kernel/hostname", "steamdeck\n");
	fake_write(f, "proc/cpuinfo", "processor\t: 0\nvendor_id\t: AuthenticAMD\n"
	                              "model name\t: AMD Custom APU 0405\n\nprocessor\t: 1\n"
	                              "model name\t: AMD Custom APU 0405\n");
	fake_write(f, "proc/meminfo", "MemTotal:       16092652 kB\nMemFree:  1 kB\n");
	fake_write(f, "etc/os-release", "NAME=\"SteamOS\"\nPRETTY_NAME=\"SteamOS\"\n"
	                                "VERSION_CODENAME=holo\nID=steamos\nID_LIKE=arch\n"
	                                "VERSION_ID=3.6.19\nBUILD_ID=20241001.1\n");
	fake_write(f, "var/lib/pacman/local/mesa-utils-9.0.0-1/desc", "x\n");
	fake_write(f, "var/lib/pacman/local/mesa-1:24.1.3_steamos-2/desc", "x\n");
	/* Van Gogh: hwmon power is the APU's (slowPPT), the TDP caps, the
	 * binary sensor table, the EC's fan, the panel's EDID. */
	fake_write(f, "sys/class/drm/card2/device/hwmon/hwmon4/power1_label", "slowPPT\n");
	fake_write(f, "sys/class/drm/card2/device/hwmon/hwmon4/power1_cap", "15000000\n");
	fake_write(f, "sys/class/drm/card2/device/hwmon/hwmon4/power1_cap_min", "0\n");
	/* Valve's kernel: power1_cap_max 29 W; steamos-manager keeps to 3-15 W */
	fake_write(f, "sys/class/drm/card2/device/hwmon/hwmon4/power1_cap_max", "29000000\n");
	fake_write(f, "sys/class/drm/card2/device/hwmon/hwmon4/power2_cap", "15000000\n");
	/* the hwmon class path Valve's priv-write helper accepts */
	{
		char link[PATH_MAX];
		snprintf(link, sizeof link, "%s/sys/class/hwmon", f->root);
		fake_mkdirs(link);
		snprintf(link, sizeof link, "%s/sys/class/hwmon/hwmon4", f->root);
		if (symlink("../drm/card2/device/hwmon/hwmon4", link) != 0)
			abort();
	}
	fake_write(f, "sys/class/dmi/id/board_name", "Jupiter\n");
	fake_write(f, "sys/class/drm/card2/device/mem_info_vram_total", "1073741824\n");
	fake_metrics(f, "sys/class/drm/card2/device/gpu_metrics",
	             &(struct fake_metrics){ .content = 2, .temp_gfx = 6100, .temp_soc = 5850,
	                                     .activity = 3700, .socket_mw = 11250, .cpu_mw = 3100,
	                                     .soc_mw = 1900, .gfx_mw = 5400, .gfxclk_mhz = 1600,
	                                     .fclk_mhz = 800, .indep_throttle = 0 });
	fake_write(f, "sys/class/hwmon/hwmon0/name", "acpitz\n");
	fake_write(f, "sys/class/hwmon/hwmon5/name", "steamdeck_hwmon\n");
	fake_write(f, "sys/class/hwmon/hwmon5/fan1_input", "2890\n");
	fake_write(f, "sys/class/drm/card2-eDP-1/status", "connected\n");
	fake_edid(f, "sys/class/drm/card2-eDP-1/edid", 800, 1280, 80, 40, 6970);
	fake_write(f, "sys/class/drm/card2-DP-1/status", "disconnected\n");
	fake_write(f, "proc/sys/vm/swappiness", "100\n");
	fake_write(f, "proc/meminfo", "MemTotal:       16092652 kB\nMemFree:  1 kB\n"
	                              "SwapTotal:       1048572 kB\n");
	fake_write(f, "sys/block/nvme0n1/size", "1000215216\n");
}

/* A Steam Deck OLED (Galileo) on SteamOS 3.6: gpu_metrics v2.3, zram, a
 * 90 Hz panel, Mesa only in the image's package database. */
static inline void fake_galileo(struct fake *f)
{
	const char *dev = "sys/class/drm/card0/device/";
	char p[256];
#define DEVFILE(name, text) (snprintf(p, sizeof p, "%s%s", dev, name), fake_write(f, p, text))
	DEVFILE("gpu_busy_percent", "12\n");
	DEVFILE("vendor", "0x1002\n");
	DEVFILE("device", "0x1435\n");
	DEVFILE("driver", "amdgpu\n");
	DEVFILE("pp_dpm_sclk", "0: 200Mhz\n1: 1100Mhz *\n2: 1600Mhz\n");
	DEVFILE("power_dpm_force_performance_level", "auto\n");
	DEVFILE("mem_info_vram_total", "1073741824\n");
	DEVFILE("hwmon/hwmon3/power1_label", "slowPPT\n");
	DEVFILE("hwmon/hwmon3/power1_average", "9000000\n");
	DEVFILE("hwmon/hwmon3/power1_cap", "15000000\n");
	DEVFILE("hwmon/hwmon3/power1_cap_min", "0\n");
	DEVFILE("hwmon/hwmon3/power1_cap_max", "29000000\n"); /* vangogh_ppt.c, as on Jupiter */
	DEVFILE("hwmon/hwmon3/temp1_input", "55000\n");
	DEVFILE("hwmon/hwmon3/temp1_label", "edge\n");
#undef DEVFILE
	fake_metrics(f, "sys/class/drm/card0/device/gpu_metrics",
	             &(struct fake_metrics){ .content = 3, .temp_gfx = 5500, .temp_soc = 5300,
	                                     .activity = 1200, .socket_mw = 9000, .cpu_mw = 2500,
	                                     .soc_mw = 1500, .gfx_mw = 3900, .gfxclk_mhz = 1100,
	                                     .fclk_mhz = 1000,
	                                     .indep_throttle = 1ULL << 35 /* TEMP_EDGE */ });
	fake_write(f, "sys/class/hwmon/hwmon6/name", "steamdeck_hwmon\n");
	fake_write(f, "sys/class/hwmon/hwmon6/fan1_input", "3400\n");
	fake_write(f, "sys/class/drm/card0-eDP-1/status", "connected\n");
	fake_edid(f, "sys/class/drm/card0-eDP-1/edid", 800, 1280, 80, 40, 10454);
	fake_write(f, "sys/class/dmi/id/product_name", "Galileo\n");
	fake_write(f, "sys/class/dmi/id/sys_vendor", "Valve\n");
	fake_write(f, "proc/sys/kernel/osrelease", "6.5.0-valve22-1-neptune-65\n");
	fake_write(f, "proc/cpuinfo", "model name\t: AMD Custom APU 0932\n");
	fake_write(f, "proc/meminfo", "MemTotal:       15896556 kB\nSwapTotal:      9437180 kB\n");
	fake_write(f, "proc/sys/vm/swappiness", "1\n");
	fake_write(f, "proc/vmstat", "pswpin 0\npswpout 0\n");
	fake_write(f, "proc/loadavg", "0.50 0.40 0.30 1/300 4000\n");
	fake_write(f, "sys/block/zram0/disksize", "8053063680\n");
	fake_write(f, "sys/block/zram0/comp_algorithm", "lzo lzo-rle lz4 [zstd]\n");
	fake_write(f, "etc/os-release", "NAME=\"SteamOS\"\nPRETTY_NAME=\"SteamOS\"\n"
	                                "VERSION_ID=3.6.19\nBUILD_ID=20241001.1\n");
	fake_write(f, "usr/lib/holo/pacmandb/local/mesa-1:24.2.0_steamos-1/desc", "x\n");
	fake_write(f, "var/lib/pacman/local/.keep", "");
	fake_write(f, "sys/class/power_supply/ACAD/type", "Mains\n");
	fake_write(f, "sys/class/power_supply/ACAD/online", "1\n");
	fake_write(f, "sys/class/power_supply/BAT1/type", "Battery\n");
	fake_write(f, "sys/class/power_supply/BAT1/capacity", "64\n");
	fake_write(f, "sys/class/power_supply/BAT1/status", "Charging\n");
}

/* A desktop with a discrete AMD card: hwmon power is the card's (PPT),
 * gpu_metrics is format 1 (not read), Mesa from dpkg, no battery. */
static inline void fake_desktop_amd(struct fake *f)
{
	fake_write(f, "sys/class/drm/card1/device/gpu_busy_percent", "4\n");
	fake_write(f, "sys/class/drm/card1/device/vendor", "0x1002\n");
	fake_write(f, "sys/class/drm/card1/device/device", "0x73bf\n");
	fake_write(f, "sys/class/drm/card1/device/driver", "amdgpu\n");
	fake_write(f, "sys/class/drm/card1/device/mem_info_vram_total", "17163091968\n");
	fake_write(f, "sys/class/drm/card1/device/pp_dpm_sclk", "0: 500Mhz\n1: 2250Mhz *\n");
	fake_write(f, "sys/class/drm/card1/device/hwmon/hwmon2/power1_label", "PPT\n");
	fake_write(f, "sys/class/drm/card1/device/hwmon/hwmon2/power1_average", "45000000\n");
	fake_write(f, "sys/class/drm/card1/device/hwmon/hwmon2/fan1_input", "1100\n");
	fake_write(f, "sys/class/drm/card1/device/hwmon/hwmon2/temp1_input", "48000\n");
	fake_write(f, "sys/class/drm/card1/device/hwmon/hwmon2/temp1_label", "edge\n");
	unsigned char v13[8] = { 0x78, 0x00, 1, 3, 0x2c, 0x00, 0, 0 };
	fake_write_bytes(f, "sys/class/drm/card1/device/gpu_metrics", v13, sizeof v13);
	fake_write(f, "sys/class/drm/card1-DP-1/status", "connected\n");
	fake_edid(f, "sys/class/drm/card1-DP-1/edid", 2560, 1440, 160, 41, 24150);
	fake_write(f, "sys/class/dmi/id/product_name", "MS-7C56\n");
	fake_write(f, "proc/meminfo", "MemTotal:       32768000 kB\nSwapTotal:             0 kB\n");
	fake_write(f, "proc/sys/vm/swappiness", "60\n");
	fake_write(f, "sys/block/sda/size", "1\n");
	fake_write(f, "var/lib/dpkg/status", "Package: mesa-vulkan-drivers\nStatus: install ok "
	                                     "installed\nVersion: 22.3.6-1+deb12u1\n\n");
}

static inline struct deck *fake_open(struct fake *f)
{
	struct deck *d = NULL;
	char msg[256] = "";
	assert_int_equal(deck_create(&(struct deck_options){ .root = f->root }, msg, sizeof msg, &d),
	                 0);
	return d;
}

#endif
