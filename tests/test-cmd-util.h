/* test-cmd-util: an rxdeck command run inside a test, its output caught,
 * for the tests of the commands.  Header only. */
#ifndef RXDECK_TEST_CMD_UTIL_H
#define RXDECK_TEST_CMD_UTIL_H

#include <stdarg.h>
#include <stdio.h>

#include "cmd/cmd.h"
#include "test-capture.h"

/* Runs the command the NULL-terminated words name ("db", "export", ...,
 * NULL) through cmd_dispatch(), with what it writes to stdout and stderr
 * in out and err (cut to their sizes).  Returns its exit code. */
static inline int test_cmd_run(char *out, size_t out_size, char *err, size_t err_size, ...)
{
	char *argv[16];
	int argc = 0;
	va_list ap;
	va_start(ap, err_size);
	for (const char *a; (a = va_arg(ap, const char *)) && argc < 15;)
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	struct test_capture cap;
	test_capture_begin(&cap);
	int rc = cmd_dispatch(argc, argv);
	test_capture_end(&cap);
	snprintf(out, out_size, "%s", cap.out);
	snprintf(err, err_size, "%s", cap.err);
	test_capture_free(&cap);
	return rc;
}

#endif
