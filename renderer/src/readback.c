/* readback: the CPU side of guest memory.  rxvk_invalidate() decides how
 * long a read of GPU results waits (the readback policy), rxvk_cpu_wrote()
 * notes the game's writes, and the capture before each submission makes
 * them visible to the GPU, waiting for late pages.  Also the periodic
 * summary lines of RX_VK_LOG_READBACK_WAITS.
 *
 * The page tables are read and written under rx->lock; waits on the
 * timeline happen outside it. */
#include "private.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

/* The value after which submission `sub` is done; waits while it is still
 * being recorded (its last part's value is not known yet). */
uint64_t rxvk_sub_last_value_locked(struct rxvk *rx, uint64_t sub)
{
	for (;;) {
		struct sub_info *s = &rx->subs[sub % SUB_RING];
		if (s->id != sub)
			return 0; /* older than the ring: long done (submit throttles on it) */
		if (s->last_value)
			return s->last_value;
		pthread_cond_wait(&rx->sub_done_recording, &rx->lock);
	}
}

static void log_reads_summary(struct rxvk *rx);
static void log_captures_summary(struct rxvk *rx);

static bool range_ok(const struct rxvk *rx, uint64_t addr, uint64_t size_B)
{
	return size_B <= rx->guest_size_B && addr <= rx->guest_size_B - size_B;
}

int rxvk_invalidate(struct rxvk *rx, uint64_t addr, uint64_t size_B, struct rxvk_wait *out)
{
	uint64_t t0 = rxvk_now_ns();
	if (!rx || !range_ok(rx, addr, size_B)) {
		rxvk_set_error("invalidate [0x%" PRIx64 ", +0x%" PRIx64 ") is outside guest memory", addr,
		               size_B);
		return -EINVAL;
	}
	struct rxvk_wait w = { 0 };
	uint64_t nth = CNT_ADD(rx, reads, 1) + 1;
	if (size_B) {
		uint64_t done = rxvk_timeline_done(rx);
		uint64_t first = addr / RXVK_PAGE_SIZE_B, last = (addr + size_B - 1) / RXVK_PAGE_SIZE_B;
		uint64_t newest = 0;
		pthread_mutex_lock(&rx->lock);
		for (uint64_t pg = first; pg <= last; pg++)
			if (rx->page_final[pg] > done && rx->page_writer[pg] > newest)
				newest = rx->page_writer[pg];
		if (newest) {
			/* the default policy: the whole submission that wrote the range */
			w.submission = newest;
			w.value = rxvk_sub_last_value_locked(rx, newest);
			w.what = RXVK_WAIT_SUBMISSION;
		}
		pthread_mutex_unlock(&rx->lock);
	}
	int rc = 0;
	if (w.value && w.value > rxvk_timeline_done(rx)) {
		rc = rxvk_timeline_wait(rx, w.value);
		w.waited = true;
	} else if (w.value) {
		w.what = RXVK_WAIT_NOTHING;
	}
	w.wait_ns = rxvk_now_ns() - t0;
	if (w.waited) {
		CNT_ADD(rx, reads_waited, 1);
		CNT_ADD(rx, read_wait_ns, w.wait_ns);
		CNT_ADD(rx, reads_whole, 1);
		CNT_ADD(rx, reads_whole_wait_ns, w.wait_ns);
		__atomic_fetch_add(&rx->frame_rb_wait_ns, w.wait_ns, __ATOMIC_RELAXED);
	}
	if (rx->set.cfg.log_readback_waits == RXVK_SWITCH_ON && nth % 3000 == 0)
		log_reads_summary(rx);
	if (rc < 0)
		return rc;
	if (out)
		*out = w;
	return 0;
}

int rxvk_cpu_wrote(struct rxvk *rx, uint64_t addr, uint64_t size_B)
{
	if (!rx || !range_ok(rx, addr, size_B)) {
		rxvk_set_error("cpu_wrote [0x%" PRIx64 ", +0x%" PRIx64 ") is outside guest memory", addr,
		               size_B);
		return -EINVAL;
	}
	if (!size_B)
		return 0;
	uint64_t first = addr / RXVK_PAGE_SIZE_B, last = (addr + size_B - 1) / RXVK_PAGE_SIZE_B;
	uint64_t done = rxvk_timeline_done(rx);
	pthread_mutex_lock(&rx->lock);
	for (uint64_t pg = first; pg <= last; pg++) {
		rx->cpu_dirty[pg / 64] |= 1ull << (pg % 64);
		uint64_t reader = rx->page_reader[pg];
		if (!reader || reader <= rx->late_sub)
			continue;
		struct sub_info *s = &rx->subs[reader % SUB_RING];
		if (s->id != reader)
			continue;
		/* still recording (value unknown) or still running: a late page */
		if (!s->last_value || s->last_value > done)
			rx->late_sub = reader;
	}
	pthread_mutex_unlock(&rx->lock);
	return 0;
}

/* Makes the CPU's writes visible to the GPU before submission `sub`: waits
 * for the submissions still reading late pages, then, in the mirror, copies
 * the dirty pages of active blocks and activates the blocks first written
 * in place since the last capture.  Recorded at the head of `cmd`. */
int rxvk_capture(struct rxvk *rx, VkCommandBuffer cmd, uint64_t sub)
{
	uint64_t t0 = rxvk_now_ns();
	int rc = 0;
	pthread_mutex_lock(&rx->lock);
	uint64_t late = rx->late_sub;
	uint64_t late_value = late ? rxvk_sub_last_value_locked(rx, late) : 0;
	rx->late_sub = 0;
	pthread_mutex_unlock(&rx->lock);
	if (late_value && late_value > rxvk_timeline_done(rx)) {
		uint64_t w0 = rxvk_now_ns();
		rc = rxvk_timeline_wait(rx, late_value);
		CNT_ADD(rx, captures_late, 1);
		CNT_ADD(rx, capture_wait_ns, rxvk_now_ns() - w0);
	}
	if (rc == 0 && rx->mirrored) {
		VkBufferCopy regions[64];
		uint32_t n = 0;
		pthread_mutex_lock(&rx->lock);
		uint64_t n_blocks = (rx->guest_size_B + MIRROR_BLOCK_B - 1) / MIRROR_BLOCK_B;
		for (uint64_t b = 0; b < n_blocks; b++) {
			if (rx->block_state[b] == BLOCK_PENDING) {
				regions[n++] = (VkBufferCopy){ b * MIRROR_BLOCK_B, b * MIRROR_BLOCK_B, MIRROR_BLOCK_B };
				rx->block_state[b] = BLOCK_ACTIVE;
				CNT_ADD(rx, mirror_blocks, 1);
				/* the block's CPU-dirty pages are in the copy */
				for (uint64_t w = b * PAGES_PER_BLOCK / 64; w < (b + 1) * PAGES_PER_BLOCK / 64; w++)
					rx->cpu_dirty[w] = 0;
			} else if (rx->block_state[b] == BLOCK_ACTIVE) {
				for (uint64_t pg = b * PAGES_PER_BLOCK; pg < (b + 1) * PAGES_PER_BLOCK; pg++) {
					if (!(rx->cpu_dirty[pg / 64] >> (pg % 64) & 1))
						continue;
					uint64_t off = pg * RXVK_PAGE_SIZE_B;
					if (n && regions[n - 1].srcOffset + regions[n - 1].size == off)
						regions[n - 1].size += RXVK_PAGE_SIZE_B;
					else
						regions[n++] = (VkBufferCopy){ off, off, RXVK_PAGE_SIZE_B };
					if (n == 64) {
						vkCmdCopyBuffer(cmd, rx->guest_buffer, rx->mirror_buffer, n, regions);
						n = 0;
					}
				}
			}
			if (n == 64) {
				vkCmdCopyBuffer(cmd, rx->guest_buffer, rx->mirror_buffer, n, regions);
				n = 0;
			}
		}
		pthread_mutex_unlock(&rx->lock);
		if (n)
			vkCmdCopyBuffer(cmd, rx->guest_buffer, rx->mirror_buffer, n, regions);
		VkMemoryBarrier mb = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
		                       .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
		                       .dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT };
		vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
		                     0, 1, &mb, 0, NULL, 0, NULL);
	}
	pthread_mutex_lock(&rx->lock);
	memset(rx->cpu_dirty, 0, (rx->n_pages + 63) / 64 * sizeof(uint64_t));
	pthread_mutex_unlock(&rx->lock);
	uint64_t spent = rxvk_now_ns() - t0;
	CNT_ADD(rx, memsync_ns, spent);
	rx->frame_memsync_ns += spent;
	(void)sub;
	if (CNT_ADD(rx, captures, 1) % 600 == 599 &&
	    rx->set.cfg.log_readback_waits == RXVK_SWITCH_ON)
		log_captures_summary(rx);
	return rc;
}

static double ms_each(uint64_t ns, uint64_t n)
{
	return n ? (double)ns / 1e6 / (double)n : 0.0;
}

/* RX_VK_LOG_READBACK_WAITS: one line every 3000 reads (and the frames line
 * with it), one every 600 captures; formats in docs/renderer.md, parsed by
 * the harness's profiles/rxvk.collect. */
static void log_reads_summary(struct rxvk *rx)
{
	struct rxvk_counters c;
	pthread_mutex_lock(&rx->summary_lock);
	rxvk_counters_get(rx, &c);
	struct rxvk_counters *b = &rx->summary_base;
	{
		uint64_t waited = c.reads_waited - b->reads_waited;
		uint64_t early = c.reads_early - b->reads_early;
		uint64_t whole_fallback = c.reads_early_fallback - b->reads_early_fallback;
		rxvk_log(rx,
		         "readbacks: %" PRIu64 " reads, %" PRIu64 " waited %.2f ms each; early: %" PRIu64
		         " at the writer's part %.2f ms each, %" PRIu64
		         " for their whole submission (writer not known), %" PRIu64
		         " parts ended after a writer; late: %" PRIu64,
		         c.reads - b->reads, waited, ms_each(c.read_wait_ns - b->read_wait_ns, waited), early,
		         ms_each(c.reads_early_wait_ns - b->reads_early_wait_ns, early), whole_fallback,
		         c.parts_split_early - b->parts_split_early, c.reads_late - b->reads_late);
		uint64_t frames = c.frames_real - b->frames_real;
		rxvk_log(rx,
		         "frames: %" PRIu64 " real, held %" PRIu64 ", superseded %" PRIu64 ", dropped %" PRIu64
		         ", carried out %" PRIu64 " by touch %" PRIu64 " by op, written at once %" PRIu64
		         "; write target %.2f ms a frame, read back %.2f ms a frame",
		         frames, c.frames_held - b->frames_held, c.frames_superseded - b->frames_superseded,
		         c.frames_dropped - b->frames_dropped, c.frames_carried_touch - b->frames_carried_touch,
		         c.frames_carried_op - b->frames_carried_op,
		         c.frames_written_at_once - b->frames_written_at_once,
		         ms_each(c.target_write_ns - b->target_write_ns, frames),
		         ms_each(c.read_wait_ns - b->read_wait_ns, frames));
		b->reads = c.reads;
		b->reads_waited = c.reads_waited;
		b->read_wait_ns = c.read_wait_ns;
		b->reads_early = c.reads_early;
		b->reads_early_wait_ns = c.reads_early_wait_ns;
		b->reads_early_fallback = c.reads_early_fallback;
		b->parts_split_early = c.parts_split_early;
		b->reads_late = c.reads_late;
		b->frames_real = c.frames_real;
		b->frames_held = c.frames_held;
		b->frames_superseded = c.frames_superseded;
		b->frames_dropped = c.frames_dropped;
		b->frames_carried_touch = c.frames_carried_touch;
		b->frames_carried_op = c.frames_carried_op;
		b->frames_written_at_once = c.frames_written_at_once;
		b->target_write_ns = c.target_write_ns;
	}
	pthread_mutex_unlock(&rx->summary_lock);
}

static void log_captures_summary(struct rxvk *rx)
{
	struct rxvk_counters c;
	pthread_mutex_lock(&rx->summary_lock);
	rxvk_counters_get(rx, &c);
	struct rxvk_counters *b = &rx->summary_base;
	{
		uint64_t late = c.captures_late - b->captures_late;
		rxvk_log(rx, "captures: %" PRIu64 ", %" PRIu64 " waited for late pages %.2f ms each",
		         c.captures - b->captures, late, ms_each(c.capture_wait_ns - b->capture_wait_ns, late));
		b->captures = c.captures;
		b->captures_late = c.captures_late;
		b->capture_wait_ns = c.capture_wait_ns;
	}
	pthread_mutex_unlock(&rx->summary_lock);
}
