/* fuzz-forest-control: forest's control-line parser over arbitrary bytes,
 * split into lines as the game reads its FIFO.  Every line either parses
 * (a blank or comment line, or a shot whose name is 1 to 128 safe
 * characters) or fails with "LINE:COLUMN: ..." naming a column inside the
 * line; anything else aborts. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "forest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const char *line, size_t len, unsigned lineno)
{
	struct forest_control c;
	char err[256] = "";
	int rc = forest_control_parse(line, len, lineno, &c, err, sizeof err);
	if (rc == 0) {
		if (c.kind == FOREST_CONTROL_NONE)
			return;
		size_t n = strlen(c.name);
		if (c.kind != FOREST_CONTROL_SHOT || n == 0 || n > FOREST_SHOT_NAME_MAX || c.name[0] == '.' ||
		    strspn(c.name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != n)
			abort();
		return;
	}
	unsigned l, col;
	int used = 0;
	if (rc != -EINVAL || sscanf(err, "%u:%u: %n", &l, &col, &used) != 2 || used == 0 || l != lineno || col < 1 ||
	    col > len + 1)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	unsigned lineno = 0;
	size_t start = 0;
	for (size_t i = 0; i <= size; i++)
		if (i == size || s[i] == '\n') {
			check(s + start, i - start, ++lineno);
			start = i + 1;
		}
	return 0;
}
