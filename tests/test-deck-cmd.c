/* rxdeck deck info|clock on fake hosts: what is printed, what is written,
 * and exit codes. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>

#include "cmd/cmd.h"
#include "test-deck-util.h"

static int run(struct fake *f, char *out, size_t out_size, char *errbuf, size_t err_size, ...)
{
	char *argv[16];
	int argc = 0;
	va_list ap;
	va_start(ap, err_size);
	for (const char *a; (a = va_arg(ap, const char *)) && argc < 15;)
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	char o_path[PATH_MAX], e_path[PATH_MAX];
	snprintf(o_path, sizeof o_path, "%s.stdout", f->root);
	snprintf(e_path, sizeof e_path, "%s.stderr", f->root);
	fflush(stdout);
	fflush(stderr);
	int save_out = dup(1), save_err = dup(2);
	int fo = open(o_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	int fe = open(e_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fo, 1);
	dup2(fe, 2);
	int rc = cmd_dispatch(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(save_out, 1);
	dup2(save_err, 2);
	close(save_out);
	close(save_err);
	close(fo);
	close(fe);
	FILE *fp = fopen(o_path, "r");
	size_t n = fread(out, 1, out_size - 1, fp);
	out[n] = '\0';
	fclose(fp);
	fp = fopen(e_path, "r");
	n = fread(errbuf, 1, err_size - 1, fp);
	errbuf[n] = '\0';
	fclose(fp);
	unlink(o_path);
	unlink(e_path);
	return rc;
}

static void test_deck_info__a_deck(void **state)
{
	struct fake f;
	fake_init(&f);
	fake_deck(&f);
	char out[8192], err[1024];
	assert_int_equal(run(&f, out, sizeof out, err, sizeof err, "deck", "info", "--root", f.root,
	                     NULL), RXDECK_EXIT_OK);
	assert_non_null(strstr(out, "device         Steam Deck LCD (DMI Valve Jupiter)\n"));
	assert_non_null(strstr(out, "os             SteamOS 3.6.19 (build 20241001.1)\n"));
	assert_non_null(strstr(out, "memory         15.3 GiB\n"));
	assert_non_null(strstr(out, "gpu card       card2, driver amdgpu, PCI 1002:163f\n"));
	assert_non_null(strstr(out, "gpu level      auto\n"));
	assert_non_null(strstr(out, "  gpu_sclk_mhz         1600 "));
	assert_non_null(strstr(out, "  battery_pct          83 "));
	assert_null(strstr(out, "absent"));
	fake_cleanup(&f);
}

static void test_deck_info__absent_sources_are_marked_absent(void **state)
{
	struct fake f;
	fake_init(&f);
	fake_write(&f, "proc/loadavg", "0.10 0.20 0.30 1/2 3\n");
	char out[8192], err[1024];
	assert_int_equal(run(&f, out, sizeof out, err, sizeof err, "deck", "info", "--root", f.root,
	                     NULL), RXDECK_EXIT_OK);
	assert_non_null(strstr(out, "device         absent\n"));
	assert_non_null(strstr(out, "memory         absent\n"));
	assert_non_null(strstr(out, "gpu card       absent"));
	assert_non_null(strstr(out, "  gpu_busy_pct         absent: no such source on this host\n"));
	assert_non_null(strstr(out, "  battery_pct          absent: no such source on this host\n"));
	assert_non_null(strstr(out, "  load_5m              0.2 "));
	/* Never a made-up zero. */
	assert_null(strstr(out, "gpu_busy_pct         0"));
	fake_cleanup(&f);
}

static void test_deck_clock__show_set_and_refuse(void **state)
{
	struct fake f;
	fake_init(&f);
	fake_deck(&f);
	char out[4096], err[1024];
	assert_int_equal(run(&f, out, sizeof out, err, sizeof err, "deck", "clock", "--root", f.root,
	                     NULL), RXDECK_EXIT_OK);
	assert_string_equal(out, "level          auto\nshader clock   1600 MHz\n"
	                         "fixed range    200 to 1600 MHz\n");
	assert_int_equal(run(&f, out, sizeof out, err, sizeof err, "deck", "clock", "--root", f.root,
	                     "manual", "800", NULL), RXDECK_EXIT_OK);
	assert_string_equal(out, "shader clock fixed at 800 MHz (level manual)\n");
	assert_string_equal(fake_read(&f, "sys/class/drm/card2/device/power_dpm_force_performance_level"),
	                    "manual\n");
	assert_int_equal(run(&f, out, sizeof out, err, sizeof err, "deck", "clock", "--root", f.root,
	                     "high", NULL), RXDECK_EXIT_OK);
	assert_string_equal(fake_read(&f, "sys/class/drm/card2/device/power_dpm_force_performance_level"),
	                    "high\n");
	assert_int_equal(run(&f, out, sizeof out, err, sizeof err, "deck", "clock", "--root", f.root,
	                     "manual", NULL), RXDECK_EXIT_USAGE);
	assert_non_null(strstr(err, "'manual' needs a clock in MHz"));
	assert_int_equal(run(&f, out, sizeof out, err, sizeof err, "deck", "clock", "--root", f.root,
	                     "manual", "fast", NULL), RXDECK_EXIT_USAGE);
	assert_int_equal(run(&f, out, sizeof out, err, sizeof err, "deck", "clock", "--root", f.root,
	                     "manual", "5000", NULL), RXDECK_EXIT_FAILURE);
	assert_non_null(strstr(err, "5000 MHz is outside the card's range, 200 to 1600 MHz"));
	assert_int_equal(run(&f, out, sizeof out, err, sizeof err, "deck", "clock", "--root", f.root,
	                     "turbo", NULL), RXDECK_EXIT_FAILURE);
	assert_non_null(strstr(err, "unknown performance level 'turbo'"));
	assert_string_equal(fake_read(&f, "sys/class/drm/card2/device/power_dpm_force_performance_level"),
	                    "high\n");
	assert_int_equal(run(&f, out, sizeof out, err, sizeof err, "deck", "nap", NULL),
	                 RXDECK_EXIT_USAGE);
	fake_cleanup(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deck_info__a_deck),
		cmocka_unit_test(test_deck_info__absent_sources_are_marked_absent),
		cmocka_unit_test(test_deck_clock__show_set_and_refuse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
