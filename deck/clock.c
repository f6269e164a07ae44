/* deck GPU clock: the amdgpu performance level and a fixed shader clock,
 * for arms that compare clocks or pin them to remove boost noise.
 *
 * It owns writes to power_dpm_force_performance_level, pp_od_clk_voltage
 * and the hwmon power caps (the TDP), and the messages when the kernel
 * refuses them.  Each write goes to the file itself, or, while
 * d->priv_write is set (control.c's priv-write route), through Valve's
 * polkit helper: `pkexec /usr/bin/steamos-polkit-helpers/steamos-priv-write
 * PATH VALUE`, which writes VALUE (printf "%s", no newline) to PATH when
 * PATH matches its list: /sys/class/drm/card*\/device/ for the level and
 * pp_od_clk_voltage, /sys/class/hwmon/hwmon*\/power*_cap for the caps (the
 * hwmon class path, not the card's device path).  It does not remember or
 * restore the previous level: the caller (the run supervisor) reads it
 * first and sets it back.
 */
#include "deck-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
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

/* The path the host knows the file by, for the helper: the part under the
 * root, with a hwmon file named by its class path /sys/class/hwmon/hwmonN/
 * (the only one the helper accepts). */
static int host_path(const struct deck *d, const char *path, char *buf, size_t size)
{
	size_t nroot = strlen(d->root);
	while (nroot > 0 && d->root[nroot - 1] == '/')
		nroot--;
	if (strncmp(path, d->root, nroot) != 0)
		return -EINVAL;
	if (d->hwmon && strncmp(path, d->hwmon, strlen(d->hwmon)) == 0 &&
	    path[strlen(d->hwmon)] == '/') {
		const char *name = strrchr(d->hwmon, '/');
		return snprintf(buf, size, "/sys/class/hwmon%s%s", name ? name : "/",
		                path + strlen(d->hwmon)) < (int)size ? 0 : -ENAMETOOLONG;
	}
	const char *rel = path + nroot;
	return snprintf(buf, size, "%s%s", rel[0] == '/' ? "" : "/", rel) < (int)size
	               ? 0 : -ENAMETOOLONG;
}

/* Runs the helper on path and value (no newline), with 10 s to answer;
 * its words on failure go into the message. */
static int helper_write(struct deck *d, const char *path, const char *value)
{
	char hp[1024];
	if (host_path(d, path, hp, sizeof hp) != 0)
		return deck_fail(d, -EINVAL, "'%s' is not under the root '%s'", path, d->root);
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0)
		return deck_fail(d, -errno, "cannot start '%s': %s", d->priv_write, strerror(errno));
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		int err = -errno;
		close(p[0]);
		close(p[1]);
		return deck_fail(d, err, "cannot start '%s': %s", d->priv_write, strerror(-err));
	}
	if (pid == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		int null = open("/dev/null", O_RDONLY);
		if (null >= 0)
			dup2(null, 0);
		const char *test = getenv(DECK_PRIV_WRITE_ENV);
		if (test && test[0])
			execl(test, test, hp, value, (char *)NULL);
		else
			execl(DECK_PKEXEC, DECK_PKEXEC, DECK_PRIV_WRITE_HELPER, hp, value,
			      (char *)NULL);
		dprintf(1, "cannot run it: %s", strerror(errno));
		_exit(127);
	}
	close(p[1]);
	char out[512];
	size_t n = 0;
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	bool timed_out = false;
	for (;;) {
		struct timespec t;
		clock_gettime(CLOCK_MONOTONIC, &t);
		long left_ms = 10000 - ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000);
		if (left_ms <= 0) {
			timed_out = true;
			break;
		}
		struct pollfd pf = { p[0], POLLIN, 0 };
		int r = poll(&pf, 1, (int)left_ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			timed_out = r == 0;
			break;
		}
		char tmp[256];
		ssize_t k = read(p[0], tmp, sizeof tmp);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		size_t take = (size_t)k < sizeof out - 1 - n ? (size_t)k : sizeof out - 1 - n;
		memcpy(out + n, tmp, take);
		n += take;
	}
	close(p[0]);
	if (timed_out)
		kill(pid, SIGKILL);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	out[n] = '\0';
	for (char *c = out; *c; c++)
		if (*c == '\n')
			*c = n && c == out + n - 1 ? '\0' : ';';
	const char *who = getenv(DECK_PRIV_WRITE_ENV) && getenv(DECK_PRIV_WRITE_ENV)[0]
	                          ? getenv(DECK_PRIV_WRITE_ENV) : "pkexec steamos-priv-write";
	if (timed_out)
		return deck_fail(d, -ETIMEDOUT, "%s '%s' '%s' did not finish within 10 s", who, hp,
		                 value);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	return deck_fail(d, -EACCES, "%s refused '%s' for '%s' (%s %d)%s%s", who, value, hp,
	                 WIFEXITED(status) ? "exit" : "signal",
	                 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
	                 out[0] ? ": " : "", out);
}

/* Writes text to a sysfs attribute in one write(), as `echo` does. */
static int write_attr(struct deck *d, const char *path, const char *text, bool append)
{
	if (d->priv_write) {
		char value[128];
		snprintf(value, sizeof value, "%.*s", (int)strcspn(text, "\n"), text);
		return helper_write(d, path, value);
	}
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

int deck_perf_level_check(struct deck *d, const char *level)
{
	bool known = false;
	for (size_t i = 0; level && i < sizeof levels / sizeof levels[0]; i++)
		known |= strcmp(level, levels[i]) == 0;
	if (!known)
		return deck_fail(d, -EINVAL, "unknown performance level '%s' (auto, low, high, "
		                 "manual, profile_standard, profile_min_sclk, profile_min_mclk, "
		                 "profile_peak)", level ? level : "");
	return 0;
}

int deck_perf_level_set(struct deck *d, const char *level)
{
	if (deck_perf_level_check(d, level))
		return -EINVAL;
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
	/* amdgpu prints OD_RANGE only in manual mode: switch first, read the
	 * range, and put the previous level back if the clock is refused. */
	char before[64] = "";
	int err = deck_perf_level_get(d, before, sizeof before);
	if (err)
		return err;
	err = deck_perf_level_set(d, "manual");
	if (err)
		return err;
	unsigned lo, hi;
	err = deck_sclk_range_mhz(d, &lo, &hi);
	if (!err && (mhz < lo || mhz > hi))
		err = deck_fail(d, -ERANGE, "%u MHz is outside the card's range, %u to %u MHz", mhz,
		                lo, hi);
	char *path = NULL;
	if (!err)
		err = card_file(d, "pp_od_clk_voltage", &path);
	/* The lowest and highest allowed shader clock, then commit: one
	 * command per write, as the kernel reads them. */
	char cmd[64];
	if (!err) {
		snprintf(cmd, sizeof cmd, "s 0 %u\n", mhz);
		err = write_attr(d, path, cmd, true);
	}
	if (!err) {
		snprintf(cmd, sizeof cmd, "s 1 %u\n", mhz);
		err = write_attr(d, path, cmd, true);
	}
	if (!err)
		err = write_attr(d, path, "c\n", true);
	free(path);
	if (err && strcmp(before, "manual") != 0) {
		char msg[sizeof d->errmsg];
		memcpy(msg, d->errmsg, sizeof msg);
		deck_perf_level_set(d, before);
		memcpy(d->errmsg, msg, sizeof msg);
	}
	return err;
}

/* ---- TDP ---------------------------------------------------------------- */

static int hwmon_file(struct deck *d, const char *name, char **out)
{
	if (!d->card_dev)
		return deck_fail(d, -ENODEV, "this host has no amdgpu card (no "
		                 "sys/class/drm/card*/device/gpu_busy_percent under '%s')", d->root);
	if (!d->hwmon)
		return deck_fail(d, -ENOENT, "the card has no hwmon folder ('%s/hwmon')", d->card_dev);
	char *p = NULL;
	if (asprintf(&p, "%s/%s", d->hwmon, name) < 0)
		return deck_fail(d, -ENOMEM, "out of memory");
	*out = p;
	return 0;
}

static int read_uw(struct deck *d, const char *name, double *w)
{
	char *path;
	int err = hwmon_file(d, name, &path);
	if (err)
		return err;
	char text[64];
	size_t len;
	err = deck_read_file(path, text, sizeof text, &len);
	struct deck_err e = { "" };
	double v = 0;
	if (err)
		deck_fail(d, err, "cannot read '%s': %s", path, strerror(-err));
	else if ((err = deck_parse_number(path, text, len, &v, &e)) != 0)
		deck_fail(d, err, "%s", e.msg);
	free(path);
	if (!err)
		*w = v / 1e6;
	return err;
}

int deck_tdp_get_w(struct deck *d, double *cap_w, double *min_w, double *max_w)
{
	double cap, lo = 0, hi = 0;
	int err = read_uw(d, "power1_cap", &cap);
	if (!err)
		err = read_uw(d, "power1_cap_min", &lo);
	if (!err)
		err = read_uw(d, "power1_cap_max", &hi);
	if (err)
		return err;
	*cap_w = cap;
	*min_w = lo;
	*max_w = hi;
	return 0;
}

int deck_tdp_set_w(struct deck *d, double watts)
{
	double cap, lo, hi;
	int err = deck_tdp_get_w(d, &cap, &lo, &hi);
	if (err)
		return err;
	if (!(watts >= lo && watts <= hi))
		return deck_fail(d, -ERANGE, "%g W is outside the card's TDP range, %g to %g W", watts,
		                 lo, hi);
	char text[64];
	snprintf(text, sizeof text, "%lld\n", (long long)(watts * 1e6 + 0.5));
	static const char *const caps[] = { "power1_cap", "power2_cap" };
	for (size_t i = 0; i < 2 && !err; i++) {
		char *path;
		err = hwmon_file(d, caps[i], &path);
		if (err)
			return err;
		/* power2_cap (Van Gogh's fast limit) only where the card has one */
		if (i == 0 || access(path, F_OK) == 0) {
			err = write_attr(d, path, text, false);
			if ((err == -EACCES || err == -EPERM) && !d->priv_write)
				deck_fail(d, err, "cannot write '%s': %s; setting the TDP needs "
				          "steamos-manager (SteamOS), root, or write access to that file",
				          path, strerror(-err));
		}
		free(path);
	}
	return err;
}
