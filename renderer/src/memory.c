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
	VkMemoryHostPointerPropertiesEXT hp = { .sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT };
	int rc = vk_check(rx, vkGetMemoryHostPointerPropertiesEXT(
	                          rx->device, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT, p, &hp));
	if (rc < 0)
		return rc;
	if ((rc = make_buffer(rx, rx->guest_size_B, true, &rx->guest_buffer)) < 0)
		return rc;
	VkMemoryRequirements mr;
	vkGetBufferMemoryRequirements(rx->device, rx->guest_buffer, &mr);
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
	                             .allocationSize = rx->guest_size_B,
	                             .memoryTypeIndex = type };
	if ((rc = vk_check(rx, vkAllocateMemory(rx->device, &mai, NULL, &rx->guest_memory))) < 0)
		return rc;
	rx->guest_coherent = true;
	return vk_check(rx, vkBindBufferMemory(rx->device, rx->guest_buffer, rx->guest_memory, 0));
}

static int allocate_guest(struct rxvk *rx)
{
	int rc = make_buffer(rx, rx->guest_size_B, false, &rx->guest_buffer);
	if (rc < 0)
		return rc;
	VkMemoryRequirements mr;
	vkGetBufferMemoryRequirements(rx->device, rx->guest_buffer, &mr);
	uint32_t type;
	if (rxvk_find_memory_type(rx, mr.memoryTypeBits,
	                          VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
	                          &type) < 0) {
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

int rxvk_timeline_wait(struct rxvk *rx, uint64_t value)
{
	VkSemaphoreWaitInfo wi = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
	                           .semaphoreCount = 1,
	                           .pSemaphores = &rx->timeline,
	                           .pValues = &value };
	return vk_check(rx, vkWaitSemaphores(rx->device, &wi, UINT64_MAX));
}
