/* rxvk: the renderer's lifetime (create, destroy, half-built objects torn
 * down through destroy), the effective configuration and the counters.
 * The work itself is in device.c, memory.c, replay.c, readback.c and
 * present.c. */
#include "private.h"
#include "hold.h"
#include "replay.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int rxvk_create(const struct rxvk_config *config, struct rxvk **out)
{
	if (!out)
		return -EINVAL;
	struct rxvk *rx = calloc(1, sizeof *rx);
	if (!rx)
		return -ENOMEM;
	pthread_mutex_init(&rx->lock, NULL);
	pthread_mutex_init(&rx->queue_lock, NULL);
	pthread_mutex_init(&rx->log_lock, NULL);
	pthread_mutex_init(&rx->summary_lock, NULL);
	pthread_cond_init(&rx->sub_done_recording, NULL);
	rx->summary_at_ns = rxvk_now_ns();

	int rc = rxvk_settings_resolve(&rx->set, config);
	if (rc < 0) {
		rxvk_log(NULL, "error: %s", rxvk_last_error());
		goto fail;
	}
	if (rx->set.cfg.log_path) {
		rx->log = fopen(rx->set.cfg.log_path, "a");
		if (!rx->log) {
			rc = -errno;
			rxvk_set_error("cannot open log '%s': %s", rx->set.cfg.log_path, strerror(errno));
			rxvk_log(NULL, "error: %s", rxvk_last_error());
			goto fail;
		}
		rx->log_timestamps = true;
	}
	if ((rc = rxvk_device_init(rx)) < 0 || (rc = rxvk_programs_init(rx)) < 0 ||
	    (rc = rxvk_memory_init(rx)) < 0 || (rc = rxvk_readback_init(rx)) < 0 ||
	    (rc = rxvk_replay_init(rx)) < 0 || (rc = rxvk_hold_init(rx)) < 0 ||
	    (rc = rxvk_present_init(rx)) < 0)
		goto fail;
	rxvk_settings_log(rx);
	*out = rx;
	return 0;
fail:
	{
		char msg[512];
		snprintf(msg, sizeof msg, "%s", rxvk_last_error());
		rxvk_destroy(rx);
		rxvk_set_error("%s", msg);
	}
	return rc;
}

/* One line of totals at the end, so even a short run's log says what the
 * renderer did. */
static void log_totals(struct rxvk *rx)
{
	struct rxvk_counters c;
	rxvk_counters_get(rx, &c);
	rxvk_log(rx,
	         "totals: %llu submissions, %llu ops, %llu parts (%llu ended after a writer); %llu reads, "
	         "%llu waited %.2f ms each (%llu at the writer's part, %llu for the whole submission, "
	         "%llu late); %llu captures, %llu waited for late pages; %llu mirror write-backs; "
	         "%llu frames real, %llu shown",
	         (unsigned long long)c.submissions, (unsigned long long)c.ops, (unsigned long long)c.parts,
	         (unsigned long long)c.parts_split_early, (unsigned long long)c.reads,
	         (unsigned long long)c.reads_waited,
	         c.reads_waited ? (double)c.read_wait_ns / 1e6 / (double)c.reads_waited : 0.0,
	         (unsigned long long)c.reads_early, (unsigned long long)c.reads_whole,
	         (unsigned long long)c.reads_late, (unsigned long long)c.captures,
	         (unsigned long long)c.captures_late, (unsigned long long)c.mirror_writebacks,
	         (unsigned long long)c.frames_real, (unsigned long long)c.frames_shown);
	double parts = c.parts ? (double)c.parts : 1.0;
	rxvk_log(rx,
	         "replay: %.3f ms of CPU a submission, %.2f parts a submission; a part %.2f us to "
	         "record, %.2f us to submit, %.2f us to publish; %llu markers, %llu reads released by "
	         "one; %llu sleeps of reads polling past their spin",
	         c.submissions ? (double)c.replay_ns / 1e6 / (double)c.submissions : 0.0,
	         c.submissions ? (double)c.parts / (double)c.submissions : 0.0,
	         (double)c.part_record_ns / 1e3 / parts, (double)c.part_submit_ns / 1e3 / parts,
	         (double)c.part_publish_ns / 1e3 / parts, (unsigned long long)c.markers,
	         (unsigned long long)c.reads_marker, (unsigned long long)c.reads_poll_sleeps);
}

void rxvk_destroy(struct rxvk *rx)
{
	if (!rx)
		return;
	if (rx->device) {
		rxvk_finish(rx);
		/* the presenter thread may still submit and present a window's frame */
		pthread_mutex_lock(&rx->queue_lock);
		vkDeviceWaitIdle(rx->device);
		pthread_mutex_unlock(&rx->queue_lock);
		if (rx->present.running)
			log_totals(rx);
	}
	rxvk_hold_finish(rx);
	rxvk_present_finish(rx);
	rxvk_window_finish(rx);
	rxvk_replay_finish(rx);
	rxvk_readback_finish(rx);
	rxvk_memory_finish(rx);
	rxvk_programs_finish(rx);
	rxvk_device_finish(rx);
	if (rx->log)
		fclose(rx->log);
	pthread_cond_destroy(&rx->sub_done_recording);
	pthread_mutex_destroy(&rx->summary_lock);
	pthread_mutex_destroy(&rx->log_lock);
	pthread_mutex_destroy(&rx->queue_lock);
	pthread_mutex_destroy(&rx->lock);
	free(rx);
}

void rxvk_config_get(const struct rxvk *rx, struct rxvk_config *out)
{
	*out = rx->set.cfg;
	out->device = rx->info.name;
}

void rxvk_device_info_get(const struct rxvk *rx, struct rxvk_device_info *out)
{
	*out = rx->info;
}

void *rxvk_guest(struct rxvk *rx)
{
	return rx->guest;
}

uint64_t rxvk_guest_size(const struct rxvk *rx)
{
	return rx->guest_size_B;
}

void rxvk_counters_get(struct rxvk *rx, struct rxvk_counters *out)
{
	const uint64_t *src = (const uint64_t *)&rx->counters;
	uint64_t *dst = (uint64_t *)out;
	for (size_t i = 0; i < sizeof *out / sizeof(uint64_t); i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}
