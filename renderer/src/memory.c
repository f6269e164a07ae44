/* memory: guest memory and its Vulkan views, the device-local mirror, the
 * page tables' storage and the recordings' timeline semaphore.
 *
 * In place: the guest memory is a page-aligned mmap imported into Vulkan
 * with VK_EXT_external_memory_host, so the GPU writes the very bytes the
 * game reads; without the extension, a host-visible coherent allocation is
 * mapped and *is* the guest memory.  Mirrored (discrete GPUs): a
 * device-local buffer as large as guest memory, used block by block: a
 * block's first GPU write goes in place, and from the next capture on the
 * block is active in the mirror (the capture copies it in), its writes
 * written back to guest memory at the end of the part that made them.  The
 * mirror's memory is reserved whole; "no mirror memory yet" is a block not
 * yet activated. */
#include "private.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/mman.h>

static int make_buffer(struct rxvk *rx, uint64_t size_B, bool external, VkBuffer *out)
{
	VkExternalMemoryBufferCreateInfo ext = {
		.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
		.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT };
	VkBufferCreateInfo bci = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
		.pNext = external ? &ext : NULL,
		.size = size_B,
		.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
		         VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	};
	return vk_check(rx, vkCreateBuffer(rx->device, &bci, NULL, out));
}

static VkDeviceAddress address_of(struct rxvk *rx, VkBuffer b)
{
	VkBufferDeviceAddressInfo ai = { .sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO, .buffer = b };
	return vkGetBufferDeviceAddress(rx->device, &ai);
}

/* Imports the mapping [p, p + size_B) as a buffer over its own memory. */
static int import_mapping(struct rxvk *rx, void *p, uint64_t size_B, VkBuffer *out_buffer,
                          VkDeviceMemory *out_memory)
{
	VkMemoryHostPointerPropertiesEXT hp = { .sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT };
	int rc = vk_check(rx, vkGetMemoryHostPointerPropertiesEXT(
	                          rx->device, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT, p, &hp));
	if (rc < 0)
		return rc;
	if ((rc = make_buffer(rx, size_B, true, out_buffer)) < 0)
		return rc;
	VkMemoryRequirements mr;
	vkGetBufferMemoryRequirements(rx->device, *out_buffer, &mr);
	uint32_t type;
	if (rxvk_find_memory_type(rx, mr.memoryTypeBits & hp.memoryTypeBits,
	                          VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
	                          &type) < 0) {
		rxvk_set_error("no host-coherent memory type can import guest memory");
		return -ENODEV;
	}
	VkMemoryAllocateFlagsInfo flags = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO,
	                                    .flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT };
	VkImportMemoryHostPointerInfoEXT imp = { .sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT,
	                                         .pNext = &flags,
	                                         .handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
	                                         .pHostPointer = p };
	VkMemoryAllocateInfo mai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
	                             .pNext = &imp,
	                             .allocationSize = size_B,
	                             .memoryTypeIndex = type };
	if ((rc = vk_check(rx, vkAllocateMemory(rx->device, &mai, NULL, out_memory))) < 0)
		return rc;
	return vk_check(rx, vkBindBufferMemory(rx->device, *out_buffer, *out_memory, 0));
}

static int import_guest(struct rxvk *rx)
{
	void *p = mmap(NULL, rx->guest_size_B, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		rxvk_set_error("cannot map %llu MiB of guest memory: %s",
		               (unsigned long long)(rx->guest_size_B >> 20), strerror(errno));
		return -ENOMEM;
	}
	rx->guest = p;
	rx->guest_mmapped = true;
	rx->guest_coherent = true;
	return import_mapping(rx, p, rx->guest_size_B, &rx->guest_buffer, &rx->guest_memory);
}

#define SELF_TEST_PAGES 16u
#define SELF_TEST_LIMIT_NS 100000000ull /* a 16 KiB fill that takes longer has stalled */

/* Holding guards guest pages with mprotect.  Where an imported mapping is
 * pinned by the kernel driver (amdgpu: a userptr buffer), protecting its
 * pages can invalidate it, and the next submission fails or stalls.  The
 * self-test imports a mapping of its own, protects its first page, fills
 * four other pages of it through a submitted command, unprotects, and
 * checks the submission's result, its time (a fence waited for 1 s at
 * most) and the bytes.  hook: the test hook's value (NULL: none).  0
 * passed, or a negative errno with *why set. */
static int import_self_test(struct rxvk *rx, const char *hook, uint64_t *out_ns, char *why, size_t why_size)
{
	uint64_t size_B = SELF_TEST_PAGES * RXVK_PAGE_SIZE_B;
	VkBuffer buffer = VK_NULL_HANDLE;
	VkDeviceMemory memory = VK_NULL_HANDLE;
	VkCommandPool pool = VK_NULL_HANDLE;
	VkFence fence = VK_NULL_HANDLE;
	bool protected = false;
	int rc;
	uint8_t *p = mmap(NULL, size_B, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		snprintf(why, why_size, "cannot map its pages: %s", strerror(errno));
		return -ENOMEM;
	}
	memset(p, 0, size_B);
	if ((rc = import_mapping(rx, p, size_B, &buffer, &memory)) < 0) {
		snprintf(why, why_size, "the import failed: %s", rxvk_last_error());
		goto out;
	}
	VkCommandPoolCreateInfo pci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
	                                .queueFamilyIndex = rx->queue_family };
	VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	VkCommandBuffer cmd;
	VkCommandBufferAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
	                                   .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
	                                   .commandBufferCount = 1 };
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
	if ((rc = vk_check(rx, vkCreateCommandPool(rx->device, &pci, NULL, &pool))) < 0 ||
	    (rc = vk_check(rx, vkCreateFence(rx->device, &fci, NULL, &fence))) < 0)
		goto out;
	ai.commandPool = pool;
	if ((rc = vk_check(rx, vkAllocateCommandBuffers(rx->device, &ai, &cmd))) < 0 ||
	    (rc = vk_check(rx, vkBeginCommandBuffer(cmd, &bi))) < 0)
		goto out;
	vkCmdFillBuffer(cmd, buffer, 4 * RXVK_PAGE_SIZE_B, 4 * RXVK_PAGE_SIZE_B, 0x5a5a5a5au);
	VkMemoryBarrier mb = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
	                       .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
	                       .dstAccessMask = VK_ACCESS_HOST_READ_BIT };
	vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0,
	                     NULL, 0, NULL);
	if ((rc = vk_check(rx, vkEndCommandBuffer(cmd))) < 0)
		goto out;
	if (mprotect(p, RXVK_PAGE_SIZE_B, PROT_NONE) != 0) {
		snprintf(why, why_size, "cannot protect a page: %s", strerror(errno));
		rc = -errno;
		goto out;
	}
	protected = true;
	uint64_t t0 = rxvk_now_ns();
	VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
	                    .pCommandBuffers = &cmd };
	pthread_mutex_lock(&rx->queue_lock);
	VkResult r = vkQueueSubmit(rx->queue, 1, &si, fence);
	pthread_mutex_unlock(&rx->queue_lock);
	if (r == VK_SUCCESS) /* a CPU device's fill always ends: its time is the machine's load */
		r = vkWaitForFences(rx->device, 1, &fence, VK_TRUE, rx->info.cpu ? UINT64_MAX : 1000000000ull);
	*out_ns = rxvk_now_ns() - t0;
	mprotect(p, RXVK_PAGE_SIZE_B, PROT_READ | PROT_WRITE);
	protected = false;
	if (r == VK_TIMEOUT) {
		snprintf(why, why_size, "its submission stalled (no result in 1 s)");
		rc = -ETIMEDOUT;
		/* the device is not idle: keep what it may still touch */
		return rc;
	}
	if (r != VK_SUCCESS) {
		snprintf(why, why_size, "its submission failed (VkResult %d)", (int)r);
		rc = -EIO;
		goto out;
	}
	bool right = true;
	for (uint64_t i = 4 * RXVK_PAGE_SIZE_B; i < 8 * RXVK_PAGE_SIZE_B && right; i++)
		right = p[i] == 0x5a;
	/* test hook: "fail" fails the bytes, "slow" the time.  The time is a
	 * GPU's rule (a stall is an invalidated import); a CPU device runs the
	 * self-test only for the hook, and its fill's time there is the
	 * machine's load, not pinning, so it is not judged by it */
	bool slow = rx->info.cpu ? hook && !strcmp(hook, "slow") : *out_ns > SELF_TEST_LIMIT_NS;
	if (!right || (hook && !strcmp(hook, "fail"))) {
		snprintf(why, why_size, "its fill did not reach the imported pages");
		rc = -EIO;
	} else if (slow) {
		snprintf(why, why_size, "its submission took %.1f ms", (double)*out_ns / 1e6);
		rc = -ETIMEDOUT;
	}
out:
	if (protected)
		mprotect(p, RXVK_PAGE_SIZE_B, PROT_READ | PROT_WRITE);
	if (fence)
		vkDestroyFence(rx->device, fence, NULL);
	if (pool)
		vkDestroyCommandPool(rx->device, pool, NULL);
	if (buffer)
		vkDestroyBuffer(rx->device, buffer, NULL);
	if (memory)
		vkFreeMemory(rx->device, memory, NULL);
	munmap(p, size_B);
	return rc;
}

static bool amdgpu(const struct rxvk *rx)
{
	return rx->driver_id == VK_DRIVER_ID_MESA_RADV || rx->driver_id == VK_DRIVER_ID_AMD_OPEN_SOURCE ||
	       rx->driver_id == VK_DRIVER_ID_AMD_PROPRIETARY;
}

/* Whether guest memory may be an imported mapping while frames are held
 * (their pages guarded): not on amdgpu, and on any other GPU only if the
 * self-test passes.  A CPU device has no pinning to break. */
static bool import_safe_for_holding(struct rxvk *rx)
{
	/* test hook: RXVK_TEST_IMPORT_SELF_TEST=run (or =fail, =slow) runs it
	 * on a CPU device too (and has it fail by its bytes or its time) */
	const char *hook = getenv("RXVK_TEST_IMPORT_SELF_TEST");
	if (rx->set.cfg.hold_switched != RXVK_SWITCH_ON || (rx->info.cpu && !hook))
		return true;
	if (amdgpu(rx)) {
		rxvk_log(rx, "guest memory: holding is on and the driver is amdgpu's, where an imported "
		             "mapping is a userptr buffer that protecting its pages invalidates: guest memory "
		             "is a mapped allocation from the driver instead");
		return false;
	}
	char why[256] = "";
	uint64_t ns = 0;
	if (import_self_test(rx, hook, &ns, why, sizeof why) < 0) {
		rxvk_log(rx, "guest memory: the import self-test for holding failed (%s): guest memory is "
		             "a mapped allocation from the driver instead", why);
		return false;
	}
	rxvk_log(rx, "guest memory: the import self-test for holding passed (a page protected, a copy "
	             "over another page of the import in %.3f ms)", (double)ns / 1e6);
	return true;
}

static int allocate_guest(struct rxvk *rx)
{
	int rc = make_buffer(rx, rx->guest_size_B, false, &rx->guest_buffer);
	if (rc < 0)
		return rc;
	VkMemoryRequirements mr;
	vkGetBufferMemoryRequirements(rx->device, rx->guest_buffer, &mr);
	uint32_t type;
	if (rxvk_find_cpu_read_type(rx, mr.memoryTypeBits, "guest memory (allocated)", &type) < 0) {
		rxvk_set_error("no host-visible coherent memory for guest memory");
		return -ENODEV;
	}
	VkMemoryAllocateFlagsInfo flags = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO,
	                                    .flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT };
	VkMemoryAllocateInfo mai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
	                             .pNext = &flags,
	                             .allocationSize = mr.size,
	                             .memoryTypeIndex = type };
	if ((rc = vk_check(rx, vkAllocateMemory(rx->device, &mai, NULL, &rx->guest_memory))) < 0 ||
	    (rc = vk_check(rx, vkBindBufferMemory(rx->device, rx->guest_buffer, rx->guest_memory, 0))) < 0)
		return rc;
	void *p;
	if ((rc = vk_check(rx, vkMapMemory(rx->device, rx->guest_memory, 0, VK_WHOLE_SIZE, 0, &p))) < 0)
		return rc;
	if (((uintptr_t)p & (RXVK_PAGE_SIZE_B - 1)) != 0) {
		rxvk_set_error("the driver mapped guest memory at %p, not page-aligned", p);
		return -ENODEV;
	}
	rx->guest = p;
	rx->guest_coherent = true;
	memset(p, 0, rx->guest_size_B);
	return 0;
}

static int allocate_mirror(struct rxvk *rx)
{
	int rc = make_buffer(rx, rx->guest_size_B, false, &rx->mirror_buffer);
	if (rc < 0)
		return rc;
	VkMemoryRequirements mr;
	vkGetBufferMemoryRequirements(rx->device, rx->mirror_buffer, &mr);
	uint32_t type;
	if (rxvk_find_memory_type(rx, mr.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &type) < 0)
		return -ENODEV;
	VkMemoryAllocateFlagsInfo flags = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO,
	                                    .flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT };
	VkMemoryAllocateInfo mai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
	                             .pNext = &flags,
	                             .allocationSize = mr.size,
	                             .memoryTypeIndex = type };
	VkResult r = vkAllocateMemory(rx->device, &mai, NULL, &rx->mirror_memory);
	if (r != VK_SUCCESS) {
		rxvk_log(rx, "mirror: cannot allocate %llu MiB of device memory (VkResult %d): every "
		             "page stays in place",
		         (unsigned long long)(rx->guest_size_B >> 20), (int)r);
		vkDestroyBuffer(rx->device, rx->mirror_buffer, NULL);
		rx->mirror_buffer = VK_NULL_HANDLE;
		return -ENOMEM;
	}
	if ((rc = vk_check(rx, vkBindBufferMemory(rx->device, rx->mirror_buffer, rx->mirror_memory, 0))) < 0)
		return rc;
	rx->mirror_addr = address_of(rx, rx->mirror_buffer);
	rx->block_state = calloc((rx->guest_size_B + MIRROR_BLOCK_B - 1) / MIRROR_BLOCK_B, 1);
	return rx->block_state ? 0 : -ENOMEM;
}

int rxvk_memory_init(struct rxvk *rx)
{
	rx->guest_size_B = (uint64_t)rx->set.cfg.guest_mb << 20;
	rx->n_pages = rx->guest_size_B / RXVK_PAGE_SIZE_B;
	int rc;
	if (rx->info.host_import && !import_safe_for_holding(rx))
		rx->info.host_import = false;
	if (rx->info.host_import) {
		rc = import_guest(rx);
		if (rc < 0) {
			rxvk_log(rx, "guest memory: import failed (%s), using a mapped allocation",
			         rxvk_last_error());
			if (rx->guest_buffer)
				vkDestroyBuffer(rx->device, rx->guest_buffer, NULL);
			if (rx->guest_memory)
				vkFreeMemory(rx->device, rx->guest_memory, NULL);
			if (rx->guest_mmapped)
				munmap(rx->guest, rx->guest_size_B);
			rx->guest_buffer = VK_NULL_HANDLE;
			rx->guest_memory = VK_NULL_HANDLE;
			rx->guest = NULL;
			rx->guest_mmapped = false;
			rx->info.host_import = false;
		}
	}
	if (!rx->info.host_import && (rc = allocate_guest(rx)) < 0)
		return rc;
	rx->guest_addr = address_of(rx, rx->guest_buffer);

	enum rxvk_switch m = rx->set.cfg.mirror;
	bool want_mirror = m == RXVK_SWITCH_ON || (m == RXVK_SWITCH_DEFAULT && rx->info.discrete);
	if (want_mirror && allocate_mirror(rx) == 0)
		rx->mirrored = true;
	rx->set.cfg.mirror = rx->mirrored ? RXVK_SWITCH_ON : RXVK_SWITCH_OFF;
	rxvk_log(rx, "guest memory: %u MiB, %s, %s", rx->set.cfg.guest_mb,
	         rx->info.host_import ? "imported host memory" : "mapped device allocation",
	         rx->mirrored ? "mirrored in device memory (blocks of 1 MiB)" : "written in place");

	size_t words = (rx->n_pages + 63) / 64;
	rx->page_writer = calloc(rx->n_pages, sizeof(uint64_t));
	rx->page_final = calloc(rx->n_pages, sizeof(uint64_t));
	rx->page_reader = calloc(rx->n_pages, sizeof(uint64_t));
	rx->cpu_dirty = calloc(words, sizeof(uint64_t));
	if (!rx->page_writer || !rx->page_final || !rx->page_reader || !rx->cpu_dirty)
		return -ENOMEM;

	VkSemaphoreTypeCreateInfo sti = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
	                                  .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE };
	VkSemaphoreCreateInfo sci = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &sti };
	return vk_check(rx, vkCreateSemaphore(rx->device, &sci, NULL, &rx->timeline));
}

void rxvk_memory_finish(struct rxvk *rx)
{
	if (rx->device) {
		if (rx->timeline)
			vkDestroySemaphore(rx->device, rx->timeline, NULL);
		if (rx->mirror_buffer)
			vkDestroyBuffer(rx->device, rx->mirror_buffer, NULL);
		if (rx->mirror_memory)
			vkFreeMemory(rx->device, rx->mirror_memory, NULL);
		if (rx->guest_buffer)
			vkDestroyBuffer(rx->device, rx->guest_buffer, NULL);
		if (rx->guest_memory)
			vkFreeMemory(rx->device, rx->guest_memory, NULL);
	}
	if (rx->guest_mmapped && rx->guest)
		munmap(rx->guest, rx->guest_size_B);
	free(rx->block_state);
	free(rx->page_writer);
	free(rx->page_final);
	free(rx->page_reader);
	free(rx->cpu_dirty);
}

uint64_t rxvk_timeline_done(struct rxvk *rx)
{
	uint64_t v = 0;
	if (vkGetSemaphoreCounterValue(rx->device, rx->timeline, &v) != VK_SUCCESS)
		return 0;
	return v;
}

#define WAIT_SLICE_NS 50000000ull

/* Waits in slices: a value a failed part could not signal (and no later
 * part passed) ends the wait with -EIO instead of never. */
int rxvk_timeline_wait(struct rxvk *rx, uint64_t value)
{
	VkSemaphoreWaitInfo wi = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
	                           .semaphoreCount = 1,
	                           .pSemaphores = &rx->timeline,
	                           .pValues = &value };
	for (;;) {
		VkResult r = vkWaitSemaphores(rx->device, &wi, WAIT_SLICE_NS);
		if (r != VK_TIMEOUT)
			return vk_check(rx, r);
		uint64_t lost = __atomic_load_n(&rx->unsignalled, __ATOMIC_ACQUIRE);
		if (lost && value >= lost && rxvk_timeline_done(rx) < value) {
			rxvk_set_error("timeline value %llu will not come: part %llu failed and could not "
			               "be signalled",
			               (unsigned long long)value, (unsigned long long)lost);
			return -EIO;
		}
	}
}
