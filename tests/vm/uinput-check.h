/* uinput-check: the uinput pad checked for real, through the kernel: the
 * device's identity and layout as a game sees them, a route played into it
 * and read back from /dev/input/eventN (codes, values, frames, lateness by
 * the kernel's timestamps), a recording of that playback, and the neutral
 * frame when the playing process is SIGKILLed.  The kernel test suite runs
 * it on the host; the VM test runs it in a small VM with a stock kernel. */
#ifndef RXDECK_TEST_UINPUT_CHECK_H
#define RXDECK_TEST_UINPUT_CHECK_H

#include <stdint.h>
#include <stdio.h>

struct uinput_check_options {
	int64_t late_p99_max_ns; /* the lateness the playback may not exceed at p99 */
	FILE *log;               /* where the checks say what they found */
};

/* 0 when every check passed, 1 when one failed, 77 when this kernel has no
 * usable /dev/uinput (said on the log). */
int uinput_check_run(const struct uinput_check_options *opt);

#endif
