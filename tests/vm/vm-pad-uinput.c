/* vm-pad-uinput: the guest side of the VM test.  Linked statically into the
 * VM's initramfs, it runs the uinput checks against the stock kernel's
 * uinput and evdev modules and exits with their result; run-vm.py prints
 * what it says and passes the exit code on.  Argument: the p99 lateness
 * allowed, in ms (default 1). */
#include <stdio.h>
#include <stdlib.h>

#include "uinput-check.h"

int main(int argc, char **argv)
{
	double p99_ms = argc > 1 ? atof(argv[1]) : 1.0;
	if (p99_ms <= 0) {
		fprintf(stderr, "usage: vm-pad-uinput [P99_MS]\n");
		return 2;
	}
	struct uinput_check_options opt = {
		.late_p99_max_ns = (int64_t)(p99_ms * 1e6),
		.log = stdout,
	};
	return uinput_check_run(&opt);
}
