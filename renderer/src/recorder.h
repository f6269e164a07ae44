/* recorder: a part's commands before they are a command buffer (cmdlist.c),
 * and the recorder that turns them into command buffers and submits them
 * in timeline order (record.c; struct recorder is its own) */
#ifndef RXVK_RECORDER_H
#define RXVK_RECORDER_H

#include "pages.h"

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <volk.h>

struct rxvk;
struct op_push;

/* The commands of one part before they are a command buffer (cmdlist.c). */
struct cl_cmd;
struct cmdlist {
	struct cl_cmd *v;
	size_t n, cap;
	bool failed;           /* out of memory: the part fails when played */
};

struct range_list {
	struct rxvk_range *v;
	size_t n, cap;
};

struct write_list {
	struct write_note *v;
	size_t n, cap;
};

/* A part handed to the recorder (record.c): its commands, what it reads
 * and writes, and, once recorded, its command buffer. */
struct part_job {
	struct cmdlist cl;
	struct write_list writes;
	struct range_list reads;
	uint64_t sub;
	uint64_t value;        /* timeline value it signals */
	VkCommandBuffer cmd;
	int state;             /* JOB_QUEUED, JOB_RECORDED, JOB_SUBMITTED, or a negative errno */
	struct part_job *next;
	/* what its capture changed, undone if its commands never run */
	bool captured;         /* it holds its submission's capture */
	uint64_t *dirty_undo;  /* the CPU-dirty bits the capture cleared */
	uint8_t *blocks_undo;  /* block_state before the capture */
	size_t undo_words, undo_blocks;
};

enum { JOB_QUEUED = 0, JOB_RECORDED = 1, JOB_SUBMITTED = 2 };

/* cmdlist.c */
void cl_barrier(struct cmdlist *cl);
void cl_host_barrier(struct cmdlist *cl);
void cl_image_init(struct cmdlist *cl, VkImage image, VkImageAspectFlags aspect);
void cl_begin_rendering(struct cmdlist *cl, VkImageView view, uint32_t width, uint32_t height, bool depth);
void cl_end_rendering(struct cmdlist *cl);
void cl_viewport(struct cmdlist *cl, VkViewport vp, VkRect2D scissor);
void cl_bind(struct cmdlist *cl, VkPipelineBindPoint point, VkPipeline pipeline);
void cl_push(struct cmdlist *cl, const struct op_push *pc);
void cl_draw(struct cmdlist *cl, uint32_t vertices, uint32_t instances);
void cl_dispatch(struct cmdlist *cl, uint32_t groups);
void cl_copy_buffer(struct cmdlist *cl, VkBuffer src, VkBuffer dst, uint64_t src_offset,
                    uint64_t dst_offset, uint64_t size_B);
void cl_fill(struct cmdlist *cl, VkBuffer buffer, uint64_t offset, uint64_t size_B, uint32_t value);
void cl_image_to_buffer(struct cmdlist *cl, VkImage image, VkBuffer buffer, const VkBufferImageCopy *region);
void cl_buffer_to_image(struct cmdlist *cl, VkBuffer buffer, VkImage image, const VkBufferImageCopy *region);
void cl_clear_colour(struct cmdlist *cl, VkImage image, VkClearColorValue colour);
void cl_clear_depth(struct cmdlist *cl, VkImage image);
void cl_copy_image(struct cmdlist *cl, VkImage src, VkImage dst, const VkImageCopy *region);
/* A GPU-side marker the CPU observes (vkGetEventStatus): signalled once
 * every command before it is done, its writes visible to the host. */
void cl_marker(struct cmdlist *cl, VkEvent event);
/* tests only (rx->test.gate_op): the queue waits here for a host-set event */
void cl_gate(struct cmdlist *cl, VkEvent event);
void cl_reset(struct cmdlist *cl);
void cl_free(struct cmdlist *cl);
int cl_play(struct rxvk *rx, const struct cmdlist *cl, VkCommandBuffer cmd);

int rxvk_recorder_init(struct rxvk *rx);
void rxvk_recorder_finish(struct rxvk *rx);
/* The CPUs of the threads rxvk_recorder_init started (the recycler and the
 * recording threads): how many were set, or -errno (irq.c). */
int rxvk_recorder_set_cpus(struct rxvk *rx, const cpu_set_t *set);
struct part_job *rxvk_recorder_job(struct rxvk *rx);
int rxvk_recorder_put(struct rxvk *rx, struct part_job *job);
int rxvk_recorder_drain(struct rxvk *rx);

/* A part's commands will never run (its recording or submit failed, or
 * rxvk_submit gave up on it): what its capture and its let-gos changed is
 * undone (replay.c).  Render thread, before its value is signalled. */
void rxvk_part_failed(struct rxvk *rx, struct part_job *job);

#endif
