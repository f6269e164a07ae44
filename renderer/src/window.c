/* window: showing presented frames in an X window (rxvk_window_attach_xcb).
 * It owns the xcb surface, the swapchain and its per-image semaphores, and
 * the presenter thread's own command pool, command buffer, fences and
 * staging buffer.  The presenter thread calls rxvk_window_show() for each
 * frame after the game's callback: the frame's pixels are copied (byte
 * order converted, cropped to the window) into the staging buffer, then
 * into an acquired swapchain image, which is presented.  Nothing here runs
 * when no window is attached. */
#include "private.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <xcb/xcb.h>
#include <vulkan/vulkan_xcb.h>

#define WAIT_NS 1000000000ull /* acquire and fence waits, bounded */

struct window {
	VkSurfaceKHR surface;
	VkSwapchainKHR swapchain;
	VkFormat format;
	enum rxvk_format byte_order; /* of the swapchain's format */
	VkExtent2D extent;
	VkPresentModeKHR mode;
	uint32_t n_images;
	VkImage *images;
	VkSemaphore *done;           /* per image: its copy is done, present it */
	VkCommandPool pool;
	VkCommandBuffer cmd;
	VkFence acquired;
	VkFence submitted;
	bool submit_pending;         /* `submitted` will be signalled */
	bool stale;                  /* remake the swapchain before the next frame */
	bool failed;                 /* a failure ended the showing */
	VkBuffer staging;
	VkDeviceMemory staging_memory;
	uint8_t *staging_mapped;
	uint64_t staging_size_B;
};

static int fail(struct rxvk *rx, struct window *w, VkResult r, const char *what)
{
	w->failed = true;
	rxvk_set_error("window: %s failed (VkResult %d); frames are no longer shown", what, (int)r);
	rxvk_log(rx, "%s", rxvk_last_error());
	return rxvk_errno_from_vk(r);
}

static void swapchain_free_images(struct rxvk *rx, struct window *w)
{
	for (uint32_t i = 0; i < w->n_images; i++)
		if (w->done && w->done[i])
			vkDestroySemaphore(rx->device, w->done[i], NULL);
	free(w->done);
	free(w->images);
	w->done = NULL;
	w->images = NULL;
	w->n_images = 0;
}

static int wait_submitted(struct rxvk *rx, struct window *w)
{
	if (!w->submit_pending)
		return 0;
	VkResult r = vkWaitForFences(rx->device, 1, &w->submitted, VK_TRUE, WAIT_NS);
	if (r != VK_SUCCESS)
		return fail(rx, w, r, "waiting for the last copy");
	vkResetFences(rx->device, 1, &w->submitted);
	w->submit_pending = false;
	return 0;
}

/* (Re)makes the swapchain for the surface's current size.  A size of 0
 * leaves no swapchain (nothing is shown until the window has a size). */
static int swapchain_make(struct rxvk *rx, struct window *w, uint32_t want_width, uint32_t want_height)
{
	int rc = wait_submitted(rx, w);
	if (rc < 0)
		return rc;
	/* every present so far has waited for its copy, which is done */
	pthread_mutex_lock(&rx->queue_lock);
	vkQueueWaitIdle(rx->queue);
	pthread_mutex_unlock(&rx->queue_lock);
	VkSurfaceCapabilitiesKHR caps;
	VkResult r = vkGetPhysicalDeviceSurfaceCapabilitiesKHR(rx->phys, w->surface, &caps);
	if (r != VK_SUCCESS)
		return fail(rx, w, r, "vkGetPhysicalDeviceSurfaceCapabilitiesKHR");
	VkExtent2D extent = caps.currentExtent;
	if (extent.width == 0xffffffffu) {
		extent.width = want_width;
		extent.height = want_height;
	}
	if (extent.width < caps.minImageExtent.width)
		extent.width = caps.minImageExtent.width;
	if (extent.height < caps.minImageExtent.height)
		extent.height = caps.minImageExtent.height;
	if (extent.width > caps.maxImageExtent.width)
		extent.width = caps.maxImageExtent.width;
	if (extent.height > caps.maxImageExtent.height)
		extent.height = caps.maxImageExtent.height;
	VkSwapchainKHR old = w->swapchain;
	swapchain_free_images(rx, w);
	w->swapchain = VK_NULL_HANDLE;
	w->stale = false;
	if (extent.width == 0 || extent.height == 0) {
		if (old)
			vkDestroySwapchainKHR(rx->device, old, NULL);
		w->extent = extent;
		return 0;
	}
	uint32_t n = caps.minImageCount + 1;
	if (caps.maxImageCount && n > caps.maxImageCount)
		n = caps.maxImageCount;
	VkCompositeAlphaFlagBitsKHR alpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
	if (!(caps.supportedCompositeAlpha & alpha))
		alpha = (VkCompositeAlphaFlagBitsKHR)(caps.supportedCompositeAlpha &
		                                      -caps.supportedCompositeAlpha);
	VkSwapchainCreateInfoKHR sci = { .sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR,
	                                 .surface = w->surface,
	                                 .minImageCount = n,
	                                 .imageFormat = w->format,
	                                 .imageColorSpace = VK_COLOR_SPACE_SRGB_NONLINEAR_KHR,
	                                 .imageExtent = extent,
	                                 .imageArrayLayers = 1,
	                                 .imageUsage = VK_IMAGE_USAGE_TRANSFER_DST_BIT,
	                                 .imageSharingMode = VK_SHARING_MODE_EXCLUSIVE,
	                                 .preTransform = caps.currentTransform,
	                                 .compositeAlpha = alpha,
	                                 .presentMode = w->mode,
	                                 .clipped = VK_TRUE,
	                                 .oldSwapchain = old };
	r = vkCreateSwapchainKHR(rx->device, &sci, NULL, &w->swapchain);
	if (old)
		vkDestroySwapchainKHR(rx->device, old, NULL);
	if (r != VK_SUCCESS) {
		w->swapchain = VK_NULL_HANDLE;
		return fail(rx, w, r, "vkCreateSwapchainKHR");
	}
	w->extent = extent;
	uint32_t count = 0;
	r = vkGetSwapchainImagesKHR(rx->device, w->swapchain, &count, NULL);
	if (r != VK_SUCCESS)
		return fail(rx, w, r, "vkGetSwapchainImagesKHR");
	w->images = calloc(count, sizeof *w->images);
	w->done = calloc(count, sizeof *w->done);
	if (!w->images || !w->done) {
		w->failed = true;
		return -ENOMEM;
	}
	if ((r = vkGetSwapchainImagesKHR(rx->device, w->swapchain, &count, w->images)) != VK_SUCCESS)
		return fail(rx, w, r, "vkGetSwapchainImagesKHR");
	w->n_images = count;
	VkSemaphoreCreateInfo sem = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO };
	for (uint32_t i = 0; i < count; i++)
		if ((r = vkCreateSemaphore(rx->device, &sem, NULL, &w->done[i])) != VK_SUCCESS)
			return fail(rx, w, r, "vkCreateSemaphore");
	return 0;
}

static int staging_make(struct rxvk *rx, struct window *w, uint64_t size_B)
{
	if (w->staging) {
		vkDestroyBuffer(rx->device, w->staging, NULL);
		vkFreeMemory(rx->device, w->staging_memory, NULL);
		w->staging = VK_NULL_HANDLE;
		w->staging_memory = VK_NULL_HANDLE;
		w->staging_mapped = NULL;
		w->staging_size_B = 0;
	}
	VkBufferCreateInfo bci = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
	                           .size = size_B,
	                           .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
	                           .sharingMode = VK_SHARING_MODE_EXCLUSIVE };
	VkResult r = vkCreateBuffer(rx->device, &bci, NULL, &w->staging);
	if (r != VK_SUCCESS)
		return fail(rx, w, r, "vkCreateBuffer");
	VkMemoryRequirements mr;
	vkGetBufferMemoryRequirements(rx->device, w->staging, &mr);
	uint32_t type;
	if (rxvk_find_memory_type(rx, mr.memoryTypeBits,
	                          VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
	                          &type) < 0)
		return fail(rx, w, VK_ERROR_FEATURE_NOT_PRESENT, "finding host-visible memory");
	VkMemoryAllocateInfo mai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
	                             .allocationSize = mr.size,
	                             .memoryTypeIndex = type };
	void *mapped = NULL;
	if ((r = vkAllocateMemory(rx->device, &mai, NULL, &w->staging_memory)) != VK_SUCCESS)
		return fail(rx, w, r, "vkAllocateMemory");
	if ((r = vkBindBufferMemory(rx->device, w->staging, w->staging_memory, 0)) != VK_SUCCESS)
		return fail(rx, w, r, "vkBindBufferMemory");
	if ((r = vkMapMemory(rx->device, w->staging_memory, 0, VK_WHOLE_SIZE, 0, &mapped)) != VK_SUCCESS)
		return fail(rx, w, r, "vkMapMemory");
	w->staging_mapped = mapped;
	w->staging_size_B = size_B;
	return 0;
}

/* The swapchain format: 8-bit UNORM in either byte order, the frame's own
 * order first (no swizzle); SRGB formats as a fallback. */
static int pick_format(struct rxvk *rx, struct window *w)
{
	uint32_t n = 0;
	VkResult r = vkGetPhysicalDeviceSurfaceFormatsKHR(rx->phys, w->surface, &n, NULL);
	if (r != VK_SUCCESS)
		return vk_check(rx, r);
	VkSurfaceFormatKHR *f = calloc(n ? n : 1, sizeof *f);
	if (!f)
		return -ENOMEM;
	if ((r = vkGetPhysicalDeviceSurfaceFormatsKHR(rx->phys, w->surface, &n, f)) != VK_SUCCESS) {
		free(f);
		return vk_check(rx, r);
	}
	static const struct {
		VkFormat vk;
		enum rxvk_format order;
	} want[] = {
		{ VK_FORMAT_B8G8R8A8_UNORM, RXVK_FORMAT_BGRA8 },
		{ VK_FORMAT_R8G8B8A8_UNORM, RXVK_FORMAT_RGBA8 },
		{ VK_FORMAT_B8G8R8A8_SRGB, RXVK_FORMAT_BGRA8 },
		{ VK_FORMAT_R8G8B8A8_SRGB, RXVK_FORMAT_RGBA8 },
	};
	int found = -1;
	for (size_t k = 0; k < sizeof want / sizeof want[0] && found < 0; k++)
		for (uint32_t i = 0; i < n && found < 0; i++)
			if (f[i].format == want[k].vk && f[i].colorSpace == VK_COLOR_SPACE_SRGB_NONLINEAR_KHR)
				found = (int)k;
	free(f);
	if (found < 0) {
		rxvk_set_error("window: the surface offers no 8-bit RGBA or BGRA format");
		rxvk_log(rx, "error: %s", rxvk_last_error());
		return -ENODEV;
	}
	w->format = want[found].vk;
	w->byte_order = want[found].order;
	return 0;
}

static VkPresentModeKHR pick_mode(struct rxvk *rx, VkSurfaceKHR surface)
{
	uint32_t n = 0;
	VkPresentModeKHR modes[16];
	if (vkGetPhysicalDeviceSurfacePresentModesKHR(rx->phys, surface, &n, NULL) != VK_SUCCESS)
		return VK_PRESENT_MODE_FIFO_KHR;
	if (n > 16)
		n = 16;
	VkResult r = vkGetPhysicalDeviceSurfacePresentModesKHR(rx->phys, surface, &n, modes);
	if (r != VK_SUCCESS && r != VK_INCOMPLETE)
		return VK_PRESENT_MODE_FIFO_KHR;
	for (uint32_t i = 0; i < n; i++)
		if (modes[i] == VK_PRESENT_MODE_IMMEDIATE_KHR)
			return VK_PRESENT_MODE_IMMEDIATE_KHR;
	return VK_PRESENT_MODE_FIFO_KHR; /* always supported */
}

int rxvk_window_attach_xcb(struct rxvk *rx, void *xcb_connection, uint32_t xcb_window)
{
	if (!rx || !xcb_connection || !xcb_window) {
		rxvk_set_error("window: no connection or window given");
		return -EINVAL;
	}
	if (!rx->set.cfg.window_xcb) {
		rxvk_set_error("window: the renderer was created without window_xcb");
		return -EINVAL;
	}
	if (rx->window) {
		rxvk_set_error("window: a window is attached already");
		return -EBUSY;
	}
	PFN_vkCreateXcbSurfaceKHR create_surface =
		(PFN_vkCreateXcbSurfaceKHR)vkGetInstanceProcAddr(rx->instance, "vkCreateXcbSurfaceKHR");
	if (!create_surface) {
		rxvk_set_error("window: the instance did not give vkCreateXcbSurfaceKHR");
		rxvk_log(rx, "error: %s", rxvk_last_error());
		return -ENODEV;
	}
	struct window *w = calloc(1, sizeof *w);
	if (!w)
		return -ENOMEM;
	rx->window = w;
	int rc;
	VkXcbSurfaceCreateInfoKHR xci = { .sType = VK_STRUCTURE_TYPE_XCB_SURFACE_CREATE_INFO_KHR,
	                                  .connection = xcb_connection,
	                                  .window = xcb_window };
	if ((rc = vk_check(rx, create_surface(rx->instance, &xci, NULL, &w->surface))) < 0)
		goto fail;
	VkBool32 can_present = VK_FALSE;
	if ((rc = vk_check(rx, vkGetPhysicalDeviceSurfaceSupportKHR(rx->phys, rx->queue_family, w->surface,
	                                                            &can_present))) < 0)
		goto fail;
	if (!can_present) {
		rxvk_set_error("window: device '%s' cannot present to the window from its queue", rx->info.name);
		rxvk_log(rx, "error: %s", rxvk_last_error());
		rc = -ENODEV;
		goto fail;
	}
	VkSurfaceCapabilitiesKHR caps;
	if ((rc = vk_check(rx, vkGetPhysicalDeviceSurfaceCapabilitiesKHR(rx->phys, w->surface, &caps))) < 0)
		goto fail;
	if (!(caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_DST_BIT)) {
		rxvk_set_error("window: the surface's images cannot be copied into");
		rxvk_log(rx, "error: %s", rxvk_last_error());
		rc = -ENODEV;
		goto fail;
	}
	if ((rc = pick_format(rx, w)) < 0)
		goto fail;
	w->mode = pick_mode(rx, w->surface);
	VkCommandPoolCreateInfo pci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
	                                .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
	                                .queueFamilyIndex = rx->queue_family };
	if ((rc = vk_check(rx, vkCreateCommandPool(rx->device, &pci, NULL, &w->pool))) < 0)
		goto fail;
	VkCommandBufferAllocateInfo cai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
	                                    .commandPool = w->pool,
	                                    .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
	                                    .commandBufferCount = 1 };
	if ((rc = vk_check(rx, vkAllocateCommandBuffers(rx->device, &cai, &w->cmd))) < 0)
		goto fail;
	VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	if ((rc = vk_check(rx, vkCreateFence(rx->device, &fci, NULL, &w->acquired))) < 0 ||
	    (rc = vk_check(rx, vkCreateFence(rx->device, &fci, NULL, &w->submitted))) < 0)
		goto fail;
	w->stale = true; /* made at the first frame, at the window's size then */
	rxvk_log(rx, "window: xcb window 0x%x, %s, present mode %s", xcb_window,
	         w->byte_order == RXVK_FORMAT_BGRA8 ? "BGRA8" : "RGBA8",
	         w->mode == VK_PRESENT_MODE_IMMEDIATE_KHR ? "immediate" : "fifo");
	pthread_mutex_lock(&rx->present.lock);
	__atomic_store_n(&rx->present.window, w, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&rx->present.lock);
	return 0;
fail:
	rxvk_window_finish(rx);
	return rc;
}

static void copy_pixels(uint8_t *dst, const uint8_t *src, uint32_t src_width, uint32_t width, uint32_t height,
                        bool swap)
{
	for (uint32_t y = 0; y < height; y++) {
		const uint8_t *s = src + (uint64_t)y * src_width * 4;
		uint8_t *d = dst + (uint64_t)y * width * 4;
		if (!swap) {
			memcpy(d, s, (size_t)width * 4);
			continue;
		}
		for (uint32_t x = 0; x < width; x++) {
			d[x * 4 + 0] = s[x * 4 + 2];
			d[x * 4 + 1] = s[x * 4 + 1];
			d[x * 4 + 2] = s[x * 4 + 0];
			d[x * 4 + 3] = s[x * 4 + 3];
		}
	}
}

static void image_barrier(VkCommandBuffer cmd, VkImage image, VkImageLayout from, VkImageLayout to,
                          VkAccessFlags src_access, VkAccessFlags dst_access, VkPipelineStageFlags src_stage,
                          VkPipelineStageFlags dst_stage)
{
	VkImageMemoryBarrier b = { .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
	                           .srcAccessMask = src_access,
	                           .dstAccessMask = dst_access,
	                           .oldLayout = from,
	                           .newLayout = to,
	                           .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
	                           .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
	                           .image = image,
	                           .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 } };
	vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 0, NULL, 0, NULL, 1, &b);
}

/* One frame into the window (skipped while the window has no size or no
 * image came free in time). */
static void show(struct rxvk *rx, struct window *w, const uint8_t *pixels, uint32_t width, uint32_t height,
                 enum rxvk_format format)
{
	VkResult r;
	if (w->stale || !w->swapchain) {
		if (swapchain_make(rx, w, width, height) < 0 || !w->swapchain)
			return;
	}
	uint32_t index = 0;
	r = vkAcquireNextImageKHR(rx->device, w->swapchain, WAIT_NS, VK_NULL_HANDLE, w->acquired, &index);
	if (r == VK_ERROR_OUT_OF_DATE_KHR) {
		w->stale = true; /* this frame is skipped; the next one gets a new swapchain */
		return;
	}
	if (r == VK_TIMEOUT || r == VK_NOT_READY)
		return; /* no image free in time: the frame is not shown */
	if (r != VK_SUCCESS && r != VK_SUBOPTIMAL_KHR) {
		fail(rx, w, r, "vkAcquireNextImageKHR");
		return;
	}
	if (r == VK_SUBOPTIMAL_KHR)
		w->stale = true;
	if ((r = vkWaitForFences(rx->device, 1, &w->acquired, VK_TRUE, WAIT_NS)) != VK_SUCCESS) {
		fail(rx, w, r, "waiting for a window image");
		return;
	}
	vkResetFences(rx->device, 1, &w->acquired);
	if (wait_submitted(rx, w) < 0)
		return;
	uint32_t cw = width < w->extent.width ? width : w->extent.width;
	uint32_t ch = height < w->extent.height ? height : w->extent.height;
	uint64_t size_B = (uint64_t)cw * ch * 4;
	if (w->staging_size_B < size_B && staging_make(rx, w, size_B) < 0)
		return;
	copy_pixels(w->staging_mapped, pixels, width, cw, ch, format != w->byte_order);

	VkImage image = w->images[index];
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
	                                .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT };
	vkResetCommandBuffer(w->cmd, 0);
	if ((r = vkBeginCommandBuffer(w->cmd, &bi)) != VK_SUCCESS) {
		fail(rx, w, r, "vkBeginCommandBuffer");
		return;
	}
	image_barrier(w->cmd, image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0,
	              VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
	              VK_PIPELINE_STAGE_TRANSFER_BIT);
	if (cw < w->extent.width || ch < w->extent.height) {
		VkClearColorValue black = { .float32 = { 0, 0, 0, 1 } };
		VkImageSubresourceRange range = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 };
		vkCmdClearColorImage(w->cmd, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &black, 1, &range);
		image_barrier(w->cmd, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
		              VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_ACCESS_TRANSFER_WRITE_BIT,
		              VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
		              VK_PIPELINE_STAGE_TRANSFER_BIT);
	}
	VkBufferImageCopy region = { .bufferRowLength = cw,
	                             .bufferImageHeight = ch,
	                             .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
	                             .imageExtent = { cw, ch, 1 } };
	vkCmdCopyBufferToImage(w->cmd, w->staging, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
	image_barrier(w->cmd, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR,
	              VK_ACCESS_TRANSFER_WRITE_BIT, 0, VK_PIPELINE_STAGE_TRANSFER_BIT,
	              VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
	if ((r = vkEndCommandBuffer(w->cmd)) != VK_SUCCESS) {
		fail(rx, w, r, "vkEndCommandBuffer");
		return;
	}
	VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
	                    .commandBufferCount = 1,
	                    .pCommandBuffers = &w->cmd,
	                    .signalSemaphoreCount = 1,
	                    .pSignalSemaphores = &w->done[index] };
	VkPresentInfoKHR pi = { .sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR,
	                        .waitSemaphoreCount = 1,
	                        .pWaitSemaphores = &w->done[index],
	                        .swapchainCount = 1,
	                        .pSwapchains = &w->swapchain,
	                        .pImageIndices = &index };
	pthread_mutex_lock(&rx->queue_lock);
	r = vkQueueSubmit(rx->queue, 1, &si, w->submitted);
	VkResult pr = VK_SUCCESS;
	if (r == VK_SUCCESS)
		pr = vkQueuePresentKHR(rx->queue, &pi);
	pthread_mutex_unlock(&rx->queue_lock);
	if (r != VK_SUCCESS) {
		fail(rx, w, r, "vkQueueSubmit");
		return;
	}
	w->submit_pending = true;
	if (pr == VK_ERROR_OUT_OF_DATE_KHR || pr == VK_SUBOPTIMAL_KHR)
		w->stale = true;
	else if (pr != VK_SUCCESS)
		fail(rx, w, pr, "vkQueuePresentKHR");
}

void rxvk_window_show(struct rxvk *rx, struct window *w, const uint8_t *pixels, uint32_t width,
                      uint32_t height, enum rxvk_format format)
{
	if (w->failed || !pixels || width == 0 || height == 0)
		return;
	show(rx, w, pixels, width, height, format);
}

void rxvk_window_finish(struct rxvk *rx)
{
	struct window *w = rx->window;
	if (!w)
		return;
	pthread_mutex_lock(&rx->present.lock);
	__atomic_store_n(&rx->present.window, NULL, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&rx->present.lock);
	if (rx->device) {
		pthread_mutex_lock(&rx->queue_lock);
		vkQueueWaitIdle(rx->queue);
		pthread_mutex_unlock(&rx->queue_lock);
		swapchain_free_images(rx, w);
		if (w->swapchain)
			vkDestroySwapchainKHR(rx->device, w->swapchain, NULL);
		if (w->staging)
			vkDestroyBuffer(rx->device, w->staging, NULL);
		if (w->staging_memory)
			vkFreeMemory(rx->device, w->staging_memory, NULL);
		if (w->acquired)
			vkDestroyFence(rx->device, w->acquired, NULL);
		if (w->submitted)
			vkDestroyFence(rx->device, w->submitted, NULL);
		if (w->pool)
			vkDestroyCommandPool(rx->device, w->pool, NULL);
	}
	if (w->surface && rx->instance)
		vkDestroySurfaceKHR(rx->instance, w->surface, NULL);
	free(w);
	rx->window = NULL;
}
