/* fuzz-forest-pad: forest's pad decoder over arbitrary pad-socket messages
 * (the input is cut into messages at every 400th byte, so both whole and
 * broken records occur).  A message that is not whole records is refused
 * and changes nothing; a decoded state stays inside the layout's ranges
 * and commits only at SYN_REPORT; anything else aborts. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "forest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_ranges(const struct forest_pad_state *s)
{
	for (int a = 0; a < FOREST_AXIS_COUNT; a++) {
		int32_t v = s->axis[a];
		if (a == FOREST_AXIS_LT || a == FOREST_AXIS_RT) {
			if (v < 0 || v > FOREST_TRIGGER_MAX)
				abort();
		} else if (a == FOREST_AXIS_HATX || a == FOREST_AXIS_HATY) {
			if (v < -1 || v > 1)
				abort();
		} else if (v < FOREST_STICK_MIN || v > FOREST_STICK_MAX) {
			abort();
		}
	}
	if (s->buttons >> FOREST_BUTTON_COUNT)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct forest_pad_decoder d;
	forest_pad_decoder_reset(&d);
	for (size_t off = 0; off < size; off += 400) {
		size_t len = size - off < 400 ? size - off : 400;
		struct forest_pad_decoder before = d;
		int frames = forest_pad_decode_message(&d, data + off, len);
		if (len % sizeof(struct input_event)) {
			if (frames != -EPROTO || memcmp(&before, &d, sizeof d) != 0)
				abort();
			continue;
		}
		size_t syn = 0;
		for (size_t r = 0; r < len; r += sizeof(struct input_event)) {
			struct input_event ev;
			memcpy(&ev, data + off + r, sizeof ev);
			syn += ev.type == EV_SYN && ev.code == SYN_REPORT;
		}
		if (frames < 0 || (size_t)frames != syn || d.frames != before.frames + syn)
			abort();
		if (!syn && memcmp(&before.state, &d.state, sizeof d.state) != 0)
			abort();
		check_ranges(&d.state);
		check_ranges(&d.pending);
	}
	return 0;
}
