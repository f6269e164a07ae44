/* deck: the GPU performance level and a fixed shader clock, written to a
 * fake card's files; refusals say what and why. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

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

static void test_perf_level__not_permitted_says_so(void **state)
{
	struct fake f;
	fake_init(&f);
	fake_deck(&f);
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/" DEV "power_dpm_force_performance_level", f.root);
	assert_int_equal(chmod(path, 0444), 0);
	char msg[512] = "";
	if (geteuid() != 0) {
		assert_int_equal(try_without_permission(f.root, msg, sizeof msg), -EACCES);
	} else {
		assert_int_equal(chmod(f.root, 0755), 0);
		int pipefd[2];
		assert_int_equal(pipe(pipefd), 0);
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			close(pipefd[0]);
			if (setgid(65534) != 0 || setuid(65534) != 0)
				_exit(12);
			int rc = try_without_permission(f.root, msg, sizeof msg);
			if (write(pipefd[1], msg, strlen(msg)) < 0)
				_exit(13);
			_exit(rc == -EACCES ? 0 : rc < 0 ? -rc : rc);
		}
		close(pipefd[1]);
		ssize_t n = read(pipefd[0], msg, sizeof msg - 1);
		msg[n > 0 ? n : 0] = '\0';
		close(pipefd[0]);
		int status;
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
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
		cmocka_unit_test(test_clock__host_without_card_or_od),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
