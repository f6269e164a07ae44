/* log: the renderer's log lines ("vk: ..."), the per-thread last error, and
 * the one place a Vulkan failure is turned into an errno and reported.
 * Lines go to stderr, or to RX_LOG prefixed with "[seconds.micros] " of
 * CLOCK_MONOTONIC so the harness can tell which lines fall in a window. */
#include "private.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

static _Thread_local char last_error[512];

const char *rxvk_last_error(void)
{
	return last_error;
}

void rxvk_set_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_error, sizeof last_error, fmt, ap);
	va_end(ap);
}

uint64_t rxvk_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void rxvk_log(struct rxvk *rx, const char *fmt, ...)
{
	FILE *f = rx && rx->log ? rx->log : stderr;
	va_list ap;
	if (rx)
		pthread_mutex_lock(&rx->log_lock);
	if (rx && rx->log_timestamps) {
		uint64_t now = rxvk_now_ns();
		fprintf(f, "[%llu.%06llu] ", (unsigned long long)(now / 1000000000ull),
		        (unsigned long long)(now % 1000000000ull / 1000ull));
	}
	fputs("vk: ", f);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fflush(f);
	if (rx)
		pthread_mutex_unlock(&rx->log_lock);
}

int rxvk_errno_from_vk(VkResult r)
{
	switch (r) {
	case VK_SUCCESS:
		return 0;
	case VK_ERROR_OUT_OF_HOST_MEMORY:
	case VK_ERROR_OUT_OF_DEVICE_MEMORY:
	case VK_ERROR_OUT_OF_POOL_MEMORY:
		return -ENOMEM;
	case VK_ERROR_INCOMPATIBLE_DRIVER:
	case VK_ERROR_INITIALIZATION_FAILED:
	case VK_ERROR_EXTENSION_NOT_PRESENT:
	case VK_ERROR_FEATURE_NOT_PRESENT:
	case VK_ERROR_LAYER_NOT_PRESENT:
		return -ENODEV;
	case VK_TIMEOUT:
		return -ETIMEDOUT;
	case VK_ERROR_DEVICE_LOST:
		return -ENXIO;
	default:
		return -EIO;
	}
}

int rxvk_vk_check(struct rxvk *rx, VkResult r, const char *call, const char *file, int line)
{
	if (r == VK_SUCCESS)
		return 0;
	const char *base = strrchr(file, '/');
	rxvk_set_error("%s failed with VkResult %d (%s:%d)", call, (int)r, base ? base + 1 : file,
	               line);
	rxvk_log(rx, "error: %s", last_error);
	return rxvk_errno_from_vk(r);
}
