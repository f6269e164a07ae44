/* deck parsers: each sysfs/procfs format, and the file:line:column of
 * what is wrong in a malformed one. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "deck/deck-private.h"

#define T(s) (s), strlen(s)

static void test_number__plain_and_malformed(void **state)
{
	struct deck_err e = { "" };
	double v = -1;
	assert_int_equal(deck_parse_number("f", T("42\n"), &v, &e), 0);
	assert_true(v == 42);
	assert_int_equal(deck_parse_number("f", T("  -3.5  \n\n"), &v, &e), 0);
	assert_true(v == -3.5);
	v = 7;
	assert_int_equal(deck_parse_number("gpu_busy_percent", T("4x\n"), &v, &e), -EINVAL);
	assert_string_equal(e.msg, "gpu_busy_percent:1:2: unexpected 'x' after the value");
	assert_int_equal(deck_parse_number("f", T(""), &v, &e), -EINVAL);
	assert_string_equal(e.msg, "f:1:1: empty, expected a number");
	assert_int_equal(deck_parse_number("f", T("1\n2\n"), &v, &e), -EINVAL);
	assert_string_equal(e.msg, "f:2:1: unexpected '2' after the value");
	assert_int_equal(deck_parse_number("f", T("."), &v, &e), -EINVAL);
	assert_int_equal(deck_parse_number("f", T("nan"), &v, &e), -EINVAL);
	assert_true(v == 7);
	/* Not NUL-terminated: only len bytes count. */
	assert_int_equal(deck_parse_number("f", "123456", 2, &v, &e), 0);
	assert_true(v == 12);
}

static void test_sclk__current_level_and_errors(void **state)
{
	struct deck_err e = { "" };
	double mhz = 0;
	assert_int_equal(deck_parse_sclk("s", T("0: 200Mhz\n1: 1600Mhz *\n2: 1600Mhz\n"), &mhz, &e), 0);
	assert_true(mhz == 1600);
	assert_int_equal(deck_parse_sclk("s", T("S: 19Mhz *\n0: 615Mhz\n1: 2500MHz\n"), &mhz, &e), 0);
	assert_true(mhz == 19);
	assert_int_equal(deck_parse_sclk("s", T("0: 500Mhz\n1: 800Mhz *"), &mhz, &e), 0);
	assert_true(mhz == 800);
	mhz = 1;
	assert_int_equal(deck_parse_sclk("pp_dpm_sclk", T("0: 200Mhz\n1: 1600Mhz\n"), &mhz, &e),
	                 -ENOENT);
	assert_string_equal(e.msg, "pp_dpm_sclk:3:1: no level is marked '*' as current");
	assert_int_equal(deck_parse_sclk("pp_dpm_sclk", T("0: 200Mhz *\n1 1600Mhz\n"), &mhz, &e),
	                 -EINVAL);
	assert_string_equal(e.msg, "pp_dpm_sclk:2:2: expected ':' after the level number");
	assert_int_equal(deck_parse_sclk("p", T("0: 200Mhz *\n1: 300Mhz *\n"), &mhz, &e), -EINVAL);
	assert_string_equal(e.msg, "p:2:11: a second level marked '*'");
	assert_int_equal(deck_parse_sclk("p", T("0: 200 *\n"), &mhz, &e), -EINVAL);
	assert_string_equal(e.msg, "p:1:4: expected a clock like '1600Mhz'");
	assert_int_equal(deck_parse_sclk("p", T("0: 200Mhz * x\n"), &mhz, &e), -EINVAL);
	assert_int_equal(deck_parse_sclk("p", T(""), &mhz, &e), -EINVAL);
	assert_true(mhz == 1);
}

static void test_od_range__sclk_line_of_od_range(void **state)
{
	struct deck_err e = { "" };
	unsigned lo = 0, hi = 0;
	const char *vangogh = "OD_SCLK:\n0:        200Mhz\n1:       1600Mhz\nOD_RANGE:\n"
	                      "SCLK:     200Mhz       1600Mhz\nCCLK:    1400Mhz      3500Mhz\n";
	assert_int_equal(deck_parse_od_range("od", T(vangogh), &lo, &hi, &e), 0);
	assert_int_equal(lo, 200);
	assert_int_equal(hi, 1600);
	/* An SCLK line outside OD_RANGE does not count. */
	assert_int_equal(deck_parse_od_range("od", T("OD_SCLK:\nSCLK: 1Mhz 2Mhz\n"), &lo, &hi, &e),
	                 -ENOENT);
	assert_int_equal(deck_parse_od_range("od", T("OD_RANGE:\nSCLK: 900Mhz 200Mhz\n"), &lo, &hi,
	                                     &e), -EINVAL);
	assert_string_equal(e.msg, "od:2:1: 900 to 200 MHz is not a range");
	assert_int_equal(deck_parse_od_range("od", T("OD_RANGE:\nSCLK: 200Mhz\n"), &lo, &hi, &e),
	                 -EINVAL);
	assert_string_equal(e.msg, "od:2:13: expected the highest clock like '1600Mhz'");
	assert_int_equal(lo, 200);
}

static void test_vmstat_loadavg__values_and_errors(void **state)
{
	struct deck_err e = { "" };
	uint64_t v = 0;
	const char *vm = "nr_free_pages 5\npswpin 18446744073709551615\npswpout 0\n";
	assert_int_equal(deck_parse_vmstat("vmstat", T(vm), "pswpin", &v, &e), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(deck_parse_vmstat("vmstat", T(vm), "pswpout", &v, &e), 0);
	assert_true(v == 0);
	/* A key that is a prefix of another line's key is not that line. */
	assert_int_equal(deck_parse_vmstat("vmstat", T("pswpinx 3\n"), "pswpin", &v, &e), -ENOENT);
	assert_int_equal(deck_parse_vmstat("vmstat", T("a 1\npswpin many\n"), "pswpin", &v, &e),
	                 -EINVAL);
	assert_string_equal(e.msg, "vmstat:2:8: expected a count after 'pswpin'");
	assert_int_equal(deck_parse_vmstat("vmstat", T("pswpin 99999999999999999999\n"), "pswpin",
	                                   &v, &e), -EINVAL);

	double l[3] = { 0 };
	assert_int_equal(deck_parse_loadavg("loadavg", T("0.52 1.10 2.00 1/200 300\n"), l, &e), 0);
	assert_true(l[0] == 0.52 && l[1] == 1.1 && l[2] == 2);
	assert_int_equal(deck_parse_loadavg("loadavg", T("0.52 x"), l, &e), -EINVAL);
	assert_string_equal(e.msg, "loadavg:1:6: expected the 5-minute load average");
	assert_int_equal(deck_parse_loadavg("loadavg", T("0.52,1,2"), l, &e), -EINVAL);
	assert_true(l[0] == 0.52);
}

static void test_os_release__quoting_and_errors(void **state)
{
	struct deck_err e = { "" };
	const char *osr = "# comment\n\nNAME=SteamOS\nPRETTY_NAME=\"Steam\\\"OS\\\\ 3\"\n"
	                  "VERSION_ID='3.6.19'\nBUILD_ID=2024\\ 1\n";
	char *v = NULL;
	assert_int_equal(deck_parse_os_release("os-release", T(osr), "NAME", &v, &e), 0);
	assert_string_equal(v, "SteamOS");
	free(v);
	assert_int_equal(deck_parse_os_release("os-release", T(osr), "PRETTY_NAME", &v, &e), 0);
	assert_string_equal(v, "Steam\"OS\\ 3");
	free(v);
	assert_int_equal(deck_parse_os_release("os-release", T(osr), "VERSION_ID", &v, &e), 0);
	assert_string_equal(v, "3.6.19");
	free(v);
	assert_int_equal(deck_parse_os_release("os-release", T(osr), "BUILD_ID", &v, &e), 0);
	assert_string_equal(v, "2024 1");
	free(v);
	v = NULL;
	assert_int_equal(deck_parse_os_release("os-release", T(osr), "ID", &v, &e), -ENOENT);
	assert_null(v);
	assert_int_equal(deck_parse_os_release("o", T("NAME=Steam OS\n"), "NAME", &v, &e), -EINVAL);
	assert_string_equal(e.msg, "o:1:11: a value with spaces must be quoted");
	assert_int_equal(deck_parse_os_release("o", T("A=1\nNAME 2\n"), "NAME", &v, &e), -EINVAL);
	assert_string_equal(e.msg, "o:2:5: expected KEY=VALUE");
	assert_int_equal(deck_parse_os_release("o", T("X='a\n"), "X", &v, &e), -EINVAL);
	assert_string_equal(e.msg, "o:1:3: unterminated ' quote");
	assert_null(v);
}

static void test_colon_fields__cpuinfo_and_meminfo(void **state)
{
	struct deck_err e = { "" };
	char *v = NULL;
	const char *cpu = "processor\t: 0\nmodel\t\t: 144\nmodel name\t: AMD Custom APU 0405  \n";
	assert_int_equal(deck_parse_colon_field("cpuinfo", T(cpu), "model name", &v, &e), 0);
	assert_string_equal(v, "AMD Custom APU 0405");
	free(v);
	assert_int_equal(deck_parse_colon_field("cpuinfo", T(cpu), "model", &v, &e), 0);
	assert_string_equal(v, "144");
	free(v);
	v = NULL;
	assert_int_equal(deck_parse_colon_field("cpuinfo", T(cpu), "flags", &v, &e), -ENOENT);
	assert_null(v);
	int64_t mem = -1;
	assert_int_equal(deck_parse_meminfo_total("meminfo", T("MemTotal: 1024 kB\n"), &mem, &e), 0);
	assert_int_equal(mem, 1048576);
	assert_int_equal(deck_parse_meminfo_total("meminfo", T("MemFree: 1 kB\nMemTotal: 12 MB\n"),
	                                          &mem, &e), -EINVAL);
	assert_string_equal(e.msg, "meminfo:2:14: expected 'kB' after the size");
	assert_int_equal(deck_parse_meminfo_total("meminfo", T("MemFree: 1 kB\n"), &mem, &e), -ENOENT);
	assert_int_equal(mem, 1048576);
}

static void test_packages__dpkg_and_pacman(void **state)
{
	struct deck_err e = { "" };
	char *v = NULL;
	const char *status = "Package: mesa-vulkan-drivers\nStatus: install ok installed\n"
	                     "Version: 22.3.6-1+deb12u1\n";
	assert_int_equal(deck_parse_dpkg_version("status", T(status), "mesa-vulkan-drivers", &v, &e),
	                 0);
	assert_string_equal(v, "22.3.6-1+deb12u1");
	free(v);
	v = NULL;
	assert_int_equal(deck_parse_dpkg_version("status", T(status), "mesa", &v, &e), -ENOENT);
	assert_int_equal(deck_parse_dpkg_version("status", T("Package: x\nnonsense\n"), "x", &v, &e),
	                 -EINVAL);
	assert_string_equal(e.msg, "status:2:1: expected 'Field: value'");
	assert_null(v);

	assert_int_equal(deck_parse_pacman_dir("mesa-24.1.3-1", "mesa", &v), 0);
	assert_string_equal(v, "24.1.3-1");
	free(v);
	v = NULL;
	assert_int_equal(deck_parse_pacman_dir("mesa-utils-9.0.0-1", "mesa", &v), -ENOENT);
	assert_int_equal(deck_parse_pacman_dir("lib32-mesa-24.1.3-1", "mesa", &v), -ENOENT);
	assert_int_equal(deck_parse_pacman_dir("mesa-24.1.3", "mesa", &v), -ENOENT);
	assert_int_equal(deck_parse_pacman_dir("mesa--1", "mesa", &v), -ENOENT);
	assert_int_equal(deck_parse_pacman_dir("mesa", "mesa", &v), -ENOENT);
	assert_null(v);
}

static void test_word__one_line_values(void **state)
{
	struct deck_err e = { "" };
	char buf[16] = "unset";
	assert_int_equal(deck_parse_word("s", T("Not charging\n"), buf, sizeof buf, &e), 0);
	assert_string_equal(buf, "Not charging");
	assert_int_equal(deck_parse_word("s", T("  auto  \n"), buf, sizeof buf, &e), 0);
	assert_string_equal(buf, "auto");
	assert_int_equal(deck_parse_word("s", T("\n"), buf, sizeof buf, &e), -EINVAL);
	assert_string_equal(e.msg, "s:1:1: empty");
	assert_int_equal(deck_parse_word("s", T("a\nb\n"), buf, sizeof buf, &e), -EINVAL);
	assert_int_equal(deck_parse_word("s", T("a\x01"), buf, sizeof buf, &e), -EINVAL);
	assert_int_equal(deck_parse_word("s", T("0123456789abcdefXYZ"), buf, sizeof buf, &e), -ERANGE);
	assert_string_equal(buf, "auto");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_number__plain_and_malformed),
		cmocka_unit_test(test_sclk__current_level_and_errors),
		cmocka_unit_test(test_od_range__sclk_line_of_od_range),
		cmocka_unit_test(test_vmstat_loadavg__values_and_errors),
		cmocka_unit_test(test_os_release__quoting_and_errors),
		cmocka_unit_test(test_colon_fields__cpuinfo_and_meminfo),
		cmocka_unit_test(test_packages__dpkg_and_pacman),
		cmocka_unit_test(test_word__one_line_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
