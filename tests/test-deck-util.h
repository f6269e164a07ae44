/* Helpers for the deck tests: a fake system root (sys/, proc/, etc/) in a
 * temporary folder, filled file by file. */
#ifndef RXDECK_TEST_DECK_UTIL_H
#define RXDECK_TEST_DECK_UTIL_H

#include "deck/deck.h"

#include <errno.h>
#include <ftw.h>
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

/* Writes ROOT/rel with content, creating folders. */
static inline void fake_write(struct fake *f, const char *rel, const char *content)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", f->root, rel);
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s", path);
	*strrchr(dir, '/') = '\0';
	fake_mkdirs(dir);
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(content, fp);
	fclose(fp);
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

/* A Steam Deck LCD as sysfs and procfs show it. */
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
