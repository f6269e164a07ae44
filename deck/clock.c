/* deck GPU clock: the amdgpu performance level and a fixed shader clock,
 * for arms that compare clocks or pin them to remove boost noise.
 *
 * It owns writes to power_dpm_force_performance_level and
 * pp_od_clk_voltage and the messages when the kernel refuses them.  It does
 * not remember or restore the previous level: the caller (the run
 * supervisor) reads it first and sets it back.
 */
#include "deck-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const levels[] = {
	"auto", "low", "high", "manual", "profile_standard", "profile_min_sclk",
	"profile_min_mclk", "profile_peak",
};

static int card_file(struct deck *d, const char *name, char **out)
{
	if (!d->card_dev)
		return deck_fail(d, -ENODEV, "this host has no amdgpu card (no "
		                 "sys/class/drm/card*/device/gpu_busy_percent under '%s')", d->root);
	char *p = NULL;
	if (asprintf(&p, "%s/%s", d->card_dev, name) < 0)
		return deck_fail(d, -ENOMEM, "out of memory");
	*out = p;
	return 0;
}

/* Writes text to a sysfs attribute in one write(), as `echo` does. */
static int write_attr(struct deck *d, const char *path, const char *text, bool append)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | (append ? O_APPEND : O_TRUNC));
	int err = 0;
	if (fd >= 0) {
		size_t len = strlen(text);
		ssize_t n = write(fd, text, len);
		if (n < 0)
			err = -errno;
		else if ((size_t)n != len)
			err = -EIO;
		if (close(fd) != 0 && !err)
			err = -errno;
	} else {
		err = -errno;
	}
	if (!err)
		return 0;
	char shown[64];
	snprintf(shown, sizeof shown, "%.*s", (int)strcspn(text, "\n"), text);
	if (err == -EACCES || err == -EPERM)
		return deck_fail(d, err, "cannot write '%s' to '%s': %s; forcing the GPU clock "
		                 "needs root, or write access to that file (see deck/README.md)",
		                 shown, path, strerror(-err));
	if (err == -ENOENT)
		return deck_fail(d, err, "cannot write '%s': the card has no '%s'", shown, path);
	return deck_fail(d, err, "the driver refused '%s' for '%s': %s", shown, path,
	                 strerror(-err));
}

int deck_perf_level_get(struct deck *d, char *buf, size_t size)
{
	char *path;
	int err = card_file(d, "power_dpm_force_performance_level", &path);
	if (err)
		return err;
	char text[128];
	size_t len;
	err = deck_read_file(path, text, sizeof text, &len);
	if (err) {
		deck_fail(d, err, "cannot read '%s': %s", path, strerror(-err));
		free(path);
		return err;
	}
	struct deck_err e = { "" };
	char level[64];
	err = deck_parse_word(path, text, len, level, sizeof level, &e);
	if (err == -ERANGE)
		err = deck_fail(d, -EINVAL, "%s:1:1: not a performance level", path);
	else if (err)
		deck_fail(d, err, "%s", e.msg);
	else if (strlen(level) + 1 > size)
		err = deck_fail(d, -ERANGE, "performance level '%s' does not fit", level);
	else
		memcpy(buf, level, strlen(level) + 1);
	free(path);
	return err;
}

int deck_perf_level_set(struct deck *d, const char *level)
{
	bool known = false;
	for (size_t i = 0; level && i < sizeof levels / sizeof levels[0]; i++)
		known |= strcmp(level, levels[i]) == 0;
	if (!known)
		return deck_fail(d, -EINVAL, "unknown performance level '%s' (auto, low, high, "
		                 "manual, profile_standard, profile_min_sclk, profile_min_mclk, "
		                 "profile_peak)", level ? level : "");
	char *path;
	int err = card_file(d, "power_dpm_force_performance_level", &path);
	if (err)
		return err;
	char text[64];
	snprintf(text, sizeof text, "%s\n", level);
	err = write_attr(d, path, text, false);
	free(path);
	return err;
}

int deck_sclk_range_mhz(struct deck *d, unsigned *min_mhz, unsigned *max_mhz)
{
	char *path;
	int err = card_file(d, "pp_od_clk_voltage", &path);
	if (err)
		return err;
	char text[4096];
	size_t len;
	err = deck_read_file(path, text, sizeof text, &len);
	if (err) {
		if (err == -ENOENT)
			deck_fail(d, err, "the card has no fixed-clock control ('%s')", path);
		else
			deck_fail(d, err, "cannot read '%s': %s", path, strerror(-err));
		free(path);
		return err;
	}
	struct deck_err e = { "" };
	unsigned lo, hi;
	err = deck_parse_od_range(path, text, len, &lo, &hi, &e);
	free(path);
	if (err)
		return deck_fail(d, err, "%s", e.msg);
	*min_mhz = lo;
	*max_mhz = hi;
	return 0;
}

int deck_sclk_set_mhz(struct deck *d, unsigned mhz)
{
	unsigned lo, hi;
	int err = deck_sclk_range_mhz(d, &lo, &hi);
	if (err)
		return err;
	if (mhz < lo || mhz > hi)
		return deck_fail(d, -ERANGE, "%u MHz is outside the card's range, %u to %u MHz", mhz,
		                 lo, hi);
	err = deck_perf_level_set(d, "manual");
	if (err)
		return err;
	char *path;
	err = card_file(d, "pp_od_clk_voltage", &path);
	if (err)
		return err;
	/* The lowest and highest allowed shader clock, then commit: one
	 * command per write, as the kernel reads them. */
	char cmd[64];
	snprintf(cmd, sizeof cmd, "s 0 %u\n", mhz);
	err = write_attr(d, path, cmd, true);
	if (!err) {
		snprintf(cmd, sizeof cmd, "s 1 %u\n", mhz);
		err = write_attr(d, path, cmd, true);
	}
	if (!err)
		err = write_attr(d, path, "c\n", true);
	free(path);
	return err;
}
