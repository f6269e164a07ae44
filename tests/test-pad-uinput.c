/* test-pad-uinput: the uinput pad on this host's kernel (suite 'kernel'):
 * the checks of tests/vm/uinput-check.c, with lateness held to 1 ms at p99.
 * Skips (77) where /dev/uinput does not exist or cannot be opened. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "vm/uinput-check.h"

static void test_uinput__pad_plays_routes_through_the_kernel(void **state)
{
	(void)state;
	struct uinput_check_options opt = { .late_p99_max_ns = 1000000, .log = stdout };
	assert_int_equal(uinput_check_run(&opt), 0);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	if (access("/dev/uinput", F_OK) != 0) {
		printf("skip: this kernel has no /dev/uinput (load the module: modprobe uinput); "
		       "the 'vm' suite runs the same checks in a VM\n");
		return 77;
	}
	if (access("/dev/uinput", W_OK) != 0) {
		printf("skip: /dev/uinput exists but is not writable by this user\n");
		return 77;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uinput__pad_plays_routes_through_the_kernel),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
