/* fuzz-rxvk-stream: the guest command stream decoder never crashes, never
 * leaks, and whatever it accepts encodes back to the same bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rxvk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rxvk_stream_sub *subs;
	size_t n;
	char err[128];
	if (rxvk_stream_decode(data, size, &subs, &n, err, sizeof err) != 0)
		return 0;
	uint8_t *buf = NULL;
	size_t len = 0;
	for (size_t i = 0; i < n; i++)
		if (rxvk_stream_encode(subs[i].ops, subs[i].n_ops, &buf, &len) != 0)
			abort();
	/* a stream of no submissions encodes to nothing: the header alone */
	if (n && (len != size || memcmp(buf, data, size) != 0))
		abort();
	free(buf);
	rxvk_stream_free(subs, n);
	return 0;
}
