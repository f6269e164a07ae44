/* cmdlist: the commands a part records, kept as a list before they become a
 * Vulkan command buffer.  Replay decides what a part does (on the render
 * thread, in op order); playing the list into a command buffer is the only
 * Vulkan recording, done on the render thread (RX_VK_PARALLEL=1) or on one
 * of the recording threads (RX_VK_PARALLEL=N).  One list, one player: the
 * bytes a submission produces cannot depend on who recorded it. */
#include "private.h"
#include "recorder.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum cl_kind {
	CL_BARRIER,
	CL_HOST_BARRIER,
	CL_IMAGE_INIT,
	CL_BEGIN_RENDERING,
	CL_END_RENDERING,
	CL_VIEWPORT,
	CL_BIND,
	CL_PUSH,
	CL_DRAW,
	CL_DISPATCH,
	CL_COPY_BUFFER,
	CL_FILL,
	CL_IMAGE_TO_BUFFER,
	CL_BUFFER_TO_IMAGE,
	CL_CLEAR_COLOUR,
	CL_CLEAR_DEPTH,
	CL_COPY_IMAGE,
	CL_MARKER,
	CL_GATE,
};

struct cl_cmd {
	enum cl_kind kind;
	union {
		struct {
			VkImage image;
			VkImageView view;
			VkImageAspectFlags aspect;
			uint32_t width, height;
			bool depth;
		} image;
		struct {
			VkViewport viewport;
			VkRect2D scissor;
		} viewport;
		struct {
			VkPipelineBindPoint point;
			VkPipeline pipeline;
		} bind;
		struct op_push push;
		struct {
			uint32_t vertices, instances;
		} draw;
		uint32_t groups;
		struct {
			VkBuffer src, dst;
			VkBufferCopy region;
		} copy;
		struct {
			VkBuffer buffer;
			uint64_t offset, size_B;
			uint32_t value;
		} fill;
		struct {
			VkImage image;
			VkBuffer buffer;
			VkBufferImageCopy region;
		} transfer;
		struct {
			VkImage image;
			VkClearColorValue colour;
		} clear;
		struct {
			VkImage src, dst;
			VkImageCopy region;
		} image_copy;
		VkEvent event;
	};
};

static struct cl_cmd *push(struct cmdlist *cl, enum cl_kind kind)
{
	if (cl->failed)
		return NULL;
	if (cl->n == cl->cap) {
		size_t cap = cl->cap ? cl->cap * 2 : 256;
		struct cl_cmd *v = realloc(cl->v, cap * sizeof *v);
		if (!v) {
			cl->failed = true;
			return NULL;
		}
		cl->v = v;
		cl->cap = cap;
	}
	struct cl_cmd *c = &cl->v[cl->n++];
	c->kind = kind;
	return c;
}

void cl_barrier(struct cmdlist *cl)
{
	push(cl, CL_BARRIER);
}

void cl_host_barrier(struct cmdlist *cl)
{
	push(cl, CL_HOST_BARRIER);
}

void cl_image_init(struct cmdlist *cl, VkImage image, VkImageAspectFlags aspect)
{
	struct cl_cmd *c = push(cl, CL_IMAGE_INIT);
	if (c) {
		c->image.image = image;
		c->image.aspect = aspect;
	}
}

void cl_begin_rendering(struct cmdlist *cl, VkImageView view, uint32_t width, uint32_t height, bool depth)
{
	struct cl_cmd *c = push(cl, CL_BEGIN_RENDERING);
	if (c) {
		c->image.view = view;
		c->image.width = width;
		c->image.height = height;
		c->image.depth = depth;
	}
}

void cl_end_rendering(struct cmdlist *cl)
{
	push(cl, CL_END_RENDERING);
}

void cl_viewport(struct cmdlist *cl, VkViewport vp, VkRect2D scissor)
{
	struct cl_cmd *c = push(cl, CL_VIEWPORT);
	if (c) {
		c->viewport.viewport = vp;
		c->viewport.scissor = scissor;
	}
}

void cl_bind(struct cmdlist *cl, VkPipelineBindPoint point, VkPipeline pipeline)
{
	struct cl_cmd *c = push(cl, CL_BIND);
	if (c) {
		c->bind.point = point;
		c->bind.pipeline = pipeline;
	}
}

void cl_push(struct cmdlist *cl, const struct op_push *pc)
{
	struct cl_cmd *c = push(cl, CL_PUSH);
	if (c)
		c->push = *pc;
}

void cl_draw(struct cmdlist *cl, uint32_t vertices, uint32_t instances)
{
	struct cl_cmd *c = push(cl, CL_DRAW);
	if (c) {
		c->draw.vertices = vertices;
		c->draw.instances = instances;
	}
}

void cl_dispatch(struct cmdlist *cl, uint32_t groups)
{
	struct cl_cmd *c = push(cl, CL_DISPATCH);
	if (c)
		c->groups = groups;
}

void cl_copy_buffer(struct cmdlist *cl, VkBuffer src, VkBuffer dst, uint64_t src_offset,
                    uint64_t dst_offset, uint64_t size_B)
{
	struct cl_cmd *c = push(cl, CL_COPY_BUFFER);
	if (c) {
		c->copy.src = src;
		c->copy.dst = dst;
		c->copy.region = (VkBufferCopy){ src_offset, dst_offset, size_B };
	}
}

void cl_fill(struct cmdlist *cl, VkBuffer buffer, uint64_t offset, uint64_t size_B, uint32_t value)
{
	struct cl_cmd *c = push(cl, CL_FILL);
	if (c) {
		c->fill.buffer = buffer;
		c->fill.offset = offset;
		c->fill.size_B = size_B;
		c->fill.value = value;
	}
}

void cl_image_to_buffer(struct cmdlist *cl, VkImage image, VkBuffer buffer, const VkBufferImageCopy *region)
{
	struct cl_cmd *c = push(cl, CL_IMAGE_TO_BUFFER);
	if (c) {
		c->transfer.image = image;
		c->transfer.buffer = buffer;
		c->transfer.region = *region;
	}
}

void cl_buffer_to_image(struct cmdlist *cl, VkBuffer buffer, VkImage image, const VkBufferImageCopy *region)
{
	struct cl_cmd *c = push(cl, CL_BUFFER_TO_IMAGE);
	if (c) {
		c->transfer.image = image;
		c->transfer.buffer = buffer;
		c->transfer.region = *region;
	}
}

void cl_clear_colour(struct cmdlist *cl, VkImage image, VkClearColorValue colour)
{
	struct cl_cmd *c = push(cl, CL_CLEAR_COLOUR);
	if (c) {
		c->clear.image = image;
		c->clear.colour = colour;
	}
}

void cl_clear_depth(struct cmdlist *cl, VkImage image)
{
	struct cl_cmd *c = push(cl, CL_CLEAR_DEPTH);
	if (c)
		c->clear.image = image;
}

void cl_copy_image(struct cmdlist *cl, VkImage src, VkImage dst, const VkImageCopy *region)
{
	struct cl_cmd *c = push(cl, CL_COPY_IMAGE);
	if (c) {
		c->image_copy.src = src;
		c->image_copy.dst = dst;
		c->image_copy.region = *region;
	}
}

void cl_marker(struct cmdlist *cl, VkEvent event)
{
	struct cl_cmd *c = push(cl, CL_MARKER);
	if (c)
		c->event = event;
}

void cl_gate(struct cmdlist *cl, VkEvent event)
{
	struct cl_cmd *c = push(cl, CL_GATE);
	if (c)
		c->event = event;
}

void cl_reset(struct cmdlist *cl)
{
	cl->n = 0;
	cl->failed = false;
}

void cl_free(struct cmdlist *cl)
{
	free(cl->v);
	memset(cl, 0, sizeof *cl);
}

static void memory_barrier(VkCommandBuffer cmd, VkPipelineStageFlags dst_stage, VkAccessFlags dst)
{
	VkMemoryBarrier mb = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
	                       .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
	                       .dstAccessMask = dst };
	vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, dst_stage, 0, 1, &mb, 0, NULL, 0, NULL);
}

/* Step of cl_play: barriers, layout moves and markers. */
static void play_sync(const struct cl_cmd *c, VkCommandBuffer cmd)
{
	switch (c->kind) {
	case CL_BARRIER:
		memory_barrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
		               VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT);
		break;
	case CL_HOST_BARRIER:
		memory_barrier(cmd, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT | VK_ACCESS_HOST_WRITE_BIT);
		break;
	case CL_IMAGE_INIT: {
		VkImageMemoryBarrier ib = {
			.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
			.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT,
			.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED,
			.newLayout = VK_IMAGE_LAYOUT_GENERAL,
			.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
			.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
			.image = c->image.image,
			.subresourceRange = { c->image.aspect, 0, 1, 0, 1 },
		};
		vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
		                     0, 0, NULL, 0, NULL, 1, &ib);
		break;
	}
	case CL_MARKER: {
		/* every write recorded before it made available, and visible
		 * in the host domain, before the event is signalled (see
		 * docs/renderer.md, "Why the marker's bytes are visible") */
		VkMemoryBarrier2 mb = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
		                        .srcStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
		                        .srcAccessMask = VK_ACCESS_2_MEMORY_WRITE_BIT,
		                        .dstStageMask = VK_PIPELINE_STAGE_2_HOST_BIT,
		                        .dstAccessMask = VK_ACCESS_2_HOST_READ_BIT };
		VkDependencyInfo di = { .sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
		                        .memoryBarrierCount = 1,
		                        .pMemoryBarriers = &mb };
		vkCmdSetEvent2(cmd, c->event, &di);
		break;
	}
	case CL_GATE:
		/* a test's gate: the queue goes no further until the host sets
		 * the event (vkCmdWaitEvents, as sync2 waits take no host event) */
		vkCmdWaitEvents(cmd, 1, &c->event, VK_PIPELINE_STAGE_HOST_BIT,
		                VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, NULL, 0, NULL, 0, NULL);
		break;
	default:
		break;
	}
}

/* Step of cl_play: rendering instances, state, draws and dispatches. */
static void play_render(struct rxvk *rx, const struct cl_cmd *c, VkCommandBuffer cmd)
{
	switch (c->kind) {
	case CL_BEGIN_RENDERING: {
		VkRenderingAttachmentInfo att = { .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
		                                   .imageView = c->image.view,
		                                   .imageLayout = VK_IMAGE_LAYOUT_GENERAL,
		                                   .loadOp = VK_ATTACHMENT_LOAD_OP_LOAD,
		                                   .storeOp = VK_ATTACHMENT_STORE_OP_STORE };
		bool depth = c->image.depth;
		VkRenderingInfo ri = { .sType = VK_STRUCTURE_TYPE_RENDERING_INFO,
		                       .renderArea = { { 0, 0 }, { c->image.width, c->image.height } },
		                       .layerCount = 1,
		                       .colorAttachmentCount = depth ? 0 : 1,
		                       .pColorAttachments = depth ? NULL : &att,
		                       .pDepthAttachment = depth ? &att : NULL };
		rx->begin_rendering(cmd, &ri);
		break;
	}
	case CL_END_RENDERING:
		rx->end_rendering(cmd);
		break;
	case CL_VIEWPORT:
		vkCmdSetViewport(cmd, 0, 1, &c->viewport.viewport);
		vkCmdSetScissor(cmd, 0, 1, &c->viewport.scissor);
		break;
	case CL_BIND:
		vkCmdBindPipeline(cmd, c->bind.point, c->bind.pipeline);
		break;
	case CL_PUSH:
		vkCmdPushConstants(cmd, rx->layout, VK_SHADER_STAGE_ALL, 0, sizeof c->push, &c->push);
		break;
	case CL_DRAW:
		vkCmdDraw(cmd, c->draw.vertices, c->draw.instances, 0, 0);
		break;
	case CL_DISPATCH:
		vkCmdDispatch(cmd, c->groups, 1, 1);
		break;
	default:
		break;
	}
}

/* Step of cl_play: copies, fills and clears. */
static void play_transfer(const struct cl_cmd *c, VkCommandBuffer cmd)
{
	switch (c->kind) {
	case CL_COPY_BUFFER:
		vkCmdCopyBuffer(cmd, c->copy.src, c->copy.dst, 1, &c->copy.region);
		break;
	case CL_FILL:
		vkCmdFillBuffer(cmd, c->fill.buffer, c->fill.offset, c->fill.size_B, c->fill.value);
		break;
	case CL_IMAGE_TO_BUFFER:
		vkCmdCopyImageToBuffer(cmd, c->transfer.image, VK_IMAGE_LAYOUT_GENERAL, c->transfer.buffer, 1,
		                       &c->transfer.region);
		break;
	case CL_BUFFER_TO_IMAGE:
		vkCmdCopyBufferToImage(cmd, c->transfer.buffer, c->transfer.image, VK_IMAGE_LAYOUT_GENERAL, 1,
		                       &c->transfer.region);
		break;
	case CL_CLEAR_COLOUR: {
		VkImageSubresourceRange r = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 };
		vkCmdClearColorImage(cmd, c->clear.image, VK_IMAGE_LAYOUT_GENERAL, &c->clear.colour, 1, &r);
		break;
	}
	case CL_CLEAR_DEPTH: {
		VkClearDepthStencilValue d = { 1.0f, 0 };
		VkImageSubresourceRange r = { VK_IMAGE_ASPECT_DEPTH_BIT, 0, 1, 0, 1 };
		vkCmdClearDepthStencilImage(cmd, c->clear.image, VK_IMAGE_LAYOUT_GENERAL, &d, 1, &r);
		break;
	}
	case CL_COPY_IMAGE:
		vkCmdCopyImage(cmd, c->image_copy.src, VK_IMAGE_LAYOUT_GENERAL, c->image_copy.dst,
		               VK_IMAGE_LAYOUT_GENERAL, 1, &c->image_copy.region);
		break;
	default:
		break;
	}
}

int cl_play(struct rxvk *rx, const struct cmdlist *cl, VkCommandBuffer cmd)
{
	if (cl->failed) {
		rxvk_set_error("out of memory recording a part");
		return -ENOMEM;
	}
	for (size_t i = 0; i < cl->n; i++) {
		const struct cl_cmd *c = &cl->v[i];
		switch (c->kind) {
		case CL_BARRIER:
		case CL_HOST_BARRIER:
		case CL_IMAGE_INIT:
		case CL_MARKER:
			play_sync(c, cmd);
			break;
		case CL_GATE: /* a test's event: see private.h, gate_lock */
			if (rx->test.gate_lock)
				pthread_mutex_lock(rx->test.gate_lock);
			play_sync(c, cmd);
			if (rx->test.gate_lock)
				pthread_mutex_unlock(rx->test.gate_lock);
			break;
		case CL_BEGIN_RENDERING:
		case CL_END_RENDERING:
		case CL_VIEWPORT:
		case CL_BIND:
		case CL_PUSH:
		case CL_DRAW:
		case CL_DISPATCH:
			play_render(rx, c, cmd);
			break;
		default:
			play_transfer(c, cmd);
			break;
		}
	}
	return 0;
}
