/* Fuzz target: what a forge (or a damaged outbox row) can hand the forge
 * client — a comments listing read as JSON and searched for a summary's
 * key, and a summary body whose hidden marker is parsed.  Neither may
 * crash, read out of bounds or hang on any input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "forge/forge-private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	/* filled with what a stack may hold: a false return must leave it empty */
	struct forge_marker m;
	memset(&m, 0xa5, sizeof m);
	if (forge_marker_parse(s, &m)) {
		/* what was read stays inside its buffers */
		if (strlen(m.campaign) >= sizeof m.campaign || strlen(m.key) >= sizeof m.key)
			abort();
	} else if (m.campaign[0] || m.key[0] || m.update) {
		abort();
	}
	int64_t id = -1;
	if (forge_comments_find(s, "post=", &id) == 0 && id < 0)
		abort();
	if (forge_comments_find(s, m.key[0] ? m.key : "x", &id) == 0 && id < 0)
		abort();
	free(s);
	return 0;
}
