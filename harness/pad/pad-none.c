/* pad-none: the backend of `pad = none`, for programs that take no input
 * (timedemos, benchmarks, a game on autopilot).  It has no device: frames
 * go nowhere, and the core's spawning and supervision work as with the
 * other backends, so a route's shots and marks still play on time.  That a
 * route under it has no input action is the plan's check (run-campaign.c). */
#include "pad-private.h"

#include <errno.h>
#include <stdlib.h>

static int none_write(struct pad *pad, struct input_event *ev, size_t n, bool must)
{
	(void)pad;
	(void)ev;
	(void)n;
	(void)must;
	return 0;
}

static void none_close(struct pad *pad)
{
	(void)pad;
}

static size_t none_child_fds(const struct pad *pad, int *keep, size_t n)
{
	(void)pad;
	(void)keep;
	return n;
}

static const char *none_devnode(const struct pad *pad)
{
	(void)pad;
	return NULL;
}

static bool none_is_open(const struct pad *pad)
{
	(void)pad;
	return false; /* nothing to write a neutral frame into */
}

static const struct pad_impl none_impl = {
	.name = "none",
	.write = none_write,
	.close = none_close,
	.child_fds = none_child_fds,
	.devnode = none_devnode,
	.is_open = none_is_open,
};

int pad_none_create(struct pad **out)
{
	struct pad *pad = calloc(1, sizeof *pad);
	if (!pad)
		return -ENOMEM;
	int r = pad_init(pad, &none_impl);
	if (r < 0) {
		pad_destroy(pad);
		return r;
	}
	*out = pad;
	return 0;
}
