/* deck: the GPU performance level and a fixed shader clock, written to a
 * fake card's files; refusals say what and why. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "test-deck-util.h"

#define DEV "sys/class/drm/card2/device/"

static void test_perf_level__get_and_set(void **state)
{
	struct fake f;
	fake_init(&f);
	fake_deck(&f);
	struct deck *d = fake_open(&f);
	char level[32];
	assert_int_equal(deck_perf_level_get(d, level, sizeof level), 0);
	assert_string_equal(level, "auto");
	assert_int_equal(deck_perf_level_set(d, "high"), 0);
	assert_string_equal(fake_read(&f, DEV "power_dpm_force_performance_level"), "high\n");
	assert_int_equal(deck_perf_level_get(d, level, sizeof level), 0);
	assert_string_equal(level, "high");
	assert_int_equal(deck_perf_level_set(d, "profile_peak"), 0);
	char tiny[4] = "xyz";
	assert_int_equal(deck_perf_level_get(d, tiny, sizeof tiny), -ERANGE);
	assert_string_equal(tiny, "xyz");
	deck_destroy(d);
	fake_cleanup(&f);
}

static void test_perf_level__unknown_level_is_refused_unwritten(void **state)
{
	struct fake f;
	fake_init(&f);
	fake_deck(&f);
	struct deck *d = fake_open(&f);
	assert_int_equal(deck_perf_level_set(d, "turbo"), -EINVAL);
	assert_non_null(strstr(deck_errmsg(d), "unknown performance level 'turbo'"));
	assert_int_equal(deck_perf_level_set(d, "high\nmanual"), -EINVAL);
	assert_int_equal(deck_perf_level_set(d, NULL), -EINVAL);
	assert_string_equal(fake_read(&f, DEV "power_dpm_force_performance_level"), "auto\n");
	deck_destroy(d);
	fake_cleanup(&f);
}

/* The permission check, as an unprivileged user: root writes a read-only
 * file anyway, so as root the check runs in a child that drops to nobody. */
static int try_without_permission(const char *root, char *msg, size_t size)
{
	struct deck *d;
	char err[256];
	if (deck_create(&(struct deck_options){ .root = root }, err, sizeof err, &d) != 0)
		return 10;
	int rc = deck_perf_level_set(d, "manual");
	snprintf(msg, size, "%s", deck_errmsg(d));
	char level[32] = "";
	if (deck_perf_level_get(d, level, sizeof level) != 0 || strcmp(level, "auto") != 0)
		rc = 11;
	deck_destroy(d);
	return rc;
}

/* Runs try(root) without the permission to write: as an unprivileged user
 * directly; as root (who writes a read-only file anyway) in a child that
 * drops to nobody.  Its message comes back in msg; asserts it gave -EACCES. */
static void without_permission(struct fake *f, int (*try)(const char *, char *, size_t),
                               char *msg, size_t size)
{
	if (geteuid() != 0) {
		assert_int_equal(try(f->root, msg, size), -EACCES);
		return;
	}
	assert_int_equal(chmod(f->root, 0755), 0);
	int pipefd[2];
	assert_int_equal(pipe(pipefd), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(pipefd[0]);
		if (setgid(65534) != 0 || setuid(65534) != 0)
			_exit(12);
		int rc = try(f->root, msg, size);
		if (write(pipefd[1], msg, strlen(msg)) < 0)
			_exit(13);
		_exit(rc == -EACCES ? 0 : rc < 0 ? -rc : rc);
	}
	close(pipefd[1]);
	ssize_t n = read(pipefd[0], msg, size - 1);
	msg[n > 0 ? n : 0] = '\0';
	close(pipefd[0]);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_perf_level__not_permitted_says_so(void **state)
{
	struct fake f;
	fake_init(&f);
	fake_deck(&f);
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/" DEV "power_dpm_force_performance_level", f.root);
	assert_int_equal(chmod(path, 0444), 0);
	char msg[512] = "";
	without_permission(&f, try_without_permission, msg, sizeof msg);
	assert_non_null(strstr(msg, "cannot write 'manual' to '"));
	assert_non_null(strstr(msg, "Permission denied; forcing the GPU clock needs root"));
	assert_string_equal(fake_read(&f, DEV "power_dpm_force_performance_level"), "auto\n");
	fake_cleanup(&f);
}

static void test_sclk__fixed_clock_writes_manual_then_commands(void **state)
{
	struct fake f;
	fake_init(&f);
	fake_deck(&f);
	struct deck *d = fake_open(&f);
	unsigned lo = 0, hi = 0;
	assert_int_equal(deck_sclk_range_mhz(d, &lo, &hi), 0);
	assert_int_equal(lo, 200);
	assert_int_equal(hi, 1600);
	assert_int_equal(deck_sclk_set_mhz(d, 1000), 0);
	assert_string_equal(fake_read(&f, DEV "power_dpm_force_performance_level"), "manual\n");
	const char *od = fake_read(&f, DEV "pp_od_clk_voltage");
	const char *tail = strstr(od, "CCLK:    1400Mhz      3500Mhz\n");
	assert_non_null(tail);
	assert_string_equal(tail + strlen("CCLK:    1400Mhz      3500Mhz\n"),
	                    "s 0 1000\ns 1 1000\nc\n");
	deck_destroy(d);
	fake_cleanup(&f);
}

static void test_sclk__out_of_range_touches_nothing(void **state)
{
	struct fake f;
	fake_init(&f);
	fake_deck(&f);
	struct deck *d = fake_open(&f);
	assert_int_equal(deck_sclk_set_mhz(d, 2500), -ERANGE);
	assert_string_equal(deck_errmsg(d), "2500 MHz is outside the card's range, 200 to 1600 MHz");
	assert_int_equal(deck_sclk_set_mhz(d, 199), -ERANGE);
	assert_string_equal(fake_read(&f, DEV "power_dpm_force_performance_level"), "auto\n");
	deck_destroy(d);
	fake_cleanup(&f);
}

/* The kernel prints OD_RANGE only in manual mode.  pp_od_clk_voltage is a
 * FIFO served by a child that answers a read the way amdgpu does for the
 * level in force at that moment, then takes the three commands. */
static void serve_od(const char *root)
{
	char fifo[PATH_MAX], level_path[PATH_MAX], log[PATH_MAX];
	snprintf(fifo, sizeof fifo, "%s/" DEV "pp_od_clk_voltage", root);
	snprintf(level_path, sizeof level_path, "%s/" DEV "power_dpm_force_performance_level", root);
	snprintf(log, sizeof log, "%s/od-commands", root);
	alarm(10);
	int fd = open(fifo, O_WRONLY);
	char level[64] = "";
	FILE *lf = fopen(level_path, "r");
	if (fd < 0 || !lf || !fgets(level, sizeof level, lf))
		_exit(20);
	fclose(lf);
	const char *od = "OD_SCLK:\n0:        200Mhz\n1:       1600Mhz\n";
	const char *range = "OD_RANGE:\nSCLK:     200Mhz       1600Mhz\n";
	if (write(fd, od, strlen(od)) < 0 ||
	    (strcmp(level, "manual\n") == 0 && write(fd, range, strlen(range)) < 0))
		_exit(21);
	close(fd);
	FILE *out = fopen(log, "w");
	/* three commands, however the opens of the writer interleave */
	for (int lines = 0; lines < 3 && out;) {
		fd = open(fifo, O_RDONLY);
		char buf[256];
		ssize_t n;
		while (fd >= 0 && (n = read(fd, buf, sizeof buf)) > 0) {
			fwrite(buf, 1, (size_t)n, out);
			for (ssize_t i = 0; i < n; i++)
				lines += buf[i] == '\n';
		}
		close(fd);
	}
	if (out)
		fclose(out);
	_exit(out ? 0 : 22);
}

static void test_sclk__from_auto_switches_to_manual_before_reading_od_range(void **state)
{
	struct fake f;
	fake_init(&f);
	fake_deck(&f);
	char fifo[PATH_MAX];
	snprintf(fifo, sizeof fifo, "%s/" DEV "pp_od_clk_voltage", f.root);
	assert_int_equal(unlink(fifo), 0);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	struct deck *d = fake_open(&f);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		serve_od(f.root);
	int rc = deck_sclk_set_mhz(d, 1600);
	if (rc != 0) {
		kill(pid, SIGKILL);
		fail_msg("from auto: %d %s", rc, deck_errmsg(d));
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_string_equal(fake_read(&f, "od-commands"), "s 0 1600\ns 1 1600\nc\n");
	assert_string_equal(fake_read(&f, DEV "power_dpm_force_performance_level"), "manual\n");
	deck_destroy(d);
	fake_cleanup(&f);
}

static void test_sclk__no_range_even_in_manual_restores_the_level(void **state)
{
	struct fake f;
	fake_init(&f);
	fake_deck(&f);
	fake_write(&f, DEV "pp_od_clk_voltage", "OD_SCLK:\n0:        200Mhz\n");
	struct deck *d = fake_open(&f);
	assert_int_equal(deck_sclk_set_mhz(d, 1000), -ENOENT);
	assert_non_null(strstr(deck_errmsg(d), "pp_od_clk_voltage"));
	assert_string_equal(fake_read(&f, DEV "power_dpm_force_performance_level"), "auto\n");
	assert_string_equal(fake_read(&f, DEV "pp_od_clk_voltage"), "OD_SCLK:\n0:        200Mhz\n");
	deck_destroy(d);
	fake_cleanup(&f);
}

#define HWMON DEV "hwmon/hwmon4/"

static void test_tdp__get_and_set_both_caps(void **state)
{
	struct fake f;
	fake_init(&f);
	fake_deck(&f);
	struct deck *d = fake_open(&f);
	double cap = 0, lo = 1, hi = 0;
	assert_int_equal(deck_tdp_get_w(d, &cap, &lo, &hi), 0);
	assert_true(cap == 15 && lo == 0 && hi == 29); /* Valve's kernel: 0 to 29 W */
	assert_int_equal(deck_tdp_set_w(d, 12), 0);
	assert_string_equal(fake_read(&f, HWMON "power1_cap"), "12000000\n");
	assert_string_equal(fake_read(&f, HWMON "power2_cap"), "12000000\n");
	assert_int_equal(deck_tdp_set_w(d, 30), -ERANGE);
	assert_string_equal(deck_errmsg(d), "30 W is outside the card's TDP range, 0 to 29 W");
	assert_string_equal(fake_read(&f, HWMON "power1_cap"), "12000000\n");
	/* no power2_cap: only power1_cap */
	char p2[PATH_MAX];
	snprintf(p2, sizeof p2, "%s/" HWMON "power2_cap", f.root);
	assert_int_equal(unlink(p2), 0);
	assert_int_equal(deck_tdp_set_w(d, 7.5), 0);
	assert_string_equal(fake_read(&f, HWMON "power1_cap"), "7500000\n");
	assert_int_equal(access(p2, F_OK), -1);
	deck_destroy(d);

	/* a card without caps says which file is missing */
	struct fake g;
	fake_init(&g);
	fake_desktop_amd(&g);
	d = fake_open(&g);
	assert_int_equal(deck_tdp_get_w(d, &cap, &lo, &hi), -ENOENT);
	assert_non_null(strstr(deck_errmsg(d), "hwmon2/power1_cap'"));
	deck_destroy(d);
	fake_cleanup(&g);
	fake_cleanup(&f);
}

static int tdp_without_permission(const char *root, char *msg, size_t size)
{
	struct deck *d;
	char err[256];
	if (deck_create(&(struct deck_options){ .root = root }, err, sizeof err, &d) != 0)
		return 10;
	int rc = deck_tdp_set_w(d, 10);
	snprintf(msg, size, "%s", deck_errmsg(d));
	deck_destroy(d);
	return rc;
}

static void test_tdp__not_writable_names_the_file(void **state)
{
	struct fake f;
	fake_init(&f);
	fake_deck(&f);
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/" HWMON "power1_cap", f.root);
	assert_int_equal(chmod(path, 0444), 0);
	char msg[512] = "";
	without_permission(&f, tdp_without_permission, msg, sizeof msg);
	assert_non_null(strstr(msg, "cannot write '"));
	assert_non_null(strstr(msg, "hwmon4/power1_cap': Permission denied; setting the TDP needs"));
	assert_string_equal(fake_read(&f, HWMON "power1_cap"), "15000000\n");
	fake_cleanup(&f);
}

static void test_clock__host_without_card_or_od(void **state)
{
	struct fake f;
	fake_init(&f);
	struct deck *d = fake_open(&f);
	char level[32];
	assert_int_equal(deck_perf_level_get(d, level, sizeof level), -ENODEV);
	assert_non_null(strstr(deck_errmsg(d), "this host has no amdgpu card"));
	assert_int_equal(deck_perf_level_set(d, "high"), -ENODEV);
	assert_int_equal(deck_sclk_set_mhz(d, 800), -ENODEV);
	deck_destroy(d);

	fake_write(&f, DEV "gpu_busy_percent", "0\n");
	d = fake_open(&f);
	assert_int_equal(deck_perf_level_set(d, "high"), -ENOENT);
	assert_non_null(strstr(deck_errmsg(d), "the card has no '"));
	unsigned lo = 7, hi = 7;
	assert_int_equal(deck_sclk_range_mhz(d, &lo, &hi), -ENOENT);
	assert_int_equal(lo, 7);
	assert_non_null(strstr(deck_errmsg(d), "no fixed-clock control"));
	deck_destroy(d);
	fake_cleanup(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_perf_level__get_and_set),
		cmocka_unit_test(test_perf_level__unknown_level_is_refused_unwritten),
		cmocka_unit_test(test_perf_level__not_permitted_says_so),
		cmocka_unit_test(test_sclk__fixed_clock_writes_manual_then_commands),
		cmocka_unit_test(test_sclk__out_of_range_touches_nothing),
		cmocka_unit_test(test_sclk__from_auto_switches_to_manual_before_reading_od_range),
		cmocka_unit_test(test_sclk__no_range_even_in_manual_restores_the_level),
		cmocka_unit_test(test_tdp__get_and_set_both_caps),
		cmocka_unit_test(test_tdp__not_writable_names_the_file),
		cmocka_unit_test(test_clock__host_without_card_or_od),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
