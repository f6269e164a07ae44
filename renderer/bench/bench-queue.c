/* bench-queue: what one vkQueueSubmit costs a thread that submits parts
 * far faster than the GPU runs them, and whether the queue holds submits
 * back as they pile up, measured with no librxvk in the process.  It is the
 * control for rxvk-bench-replay's "one more part", whose runs on the H200
 * split into a level near vkprobe's bare part and one at 20-30 µs a part
 * with vkQueueSubmit itself taking most of it: is that the renderer or the
 * driver?  (docs/performance.md: the driver, in some processes and not in
 * others.)
 *
 *   rxvk-bench-queue [--fill B[,B...]] [--parts N[,N...]] [--rounds R] [--waiter]
 *
 * For each fill size B (a part's GPU work: one vkCmdFillBuffer of B bytes
 * into a device-local buffer) and each count N, N command buffers are
 * recorded first; then the N parts are submitted from one thread as fast as
 * it can, one vkQueueSubmit each with a timeline signal, in two shapes:
 *
 *   bare      - the part's command buffer alone, as vkprobe's bare part;
 *   renderer's - the part's command buffer and one shared closing command
 *               buffer (a memory barrier, simultaneous use), as librxvk's
 *               parts are submitted (record.c, submit_job);
 *   renderer's, a thread waiting (--waiter) - the same while another
 *               thread waits on the timeline, one value ahead of the
 *               GPU, in 1 ms slices, as librxvk's recycler thread does.
 *
 * then waits for the last value.  Each vkQueueSubmit is timed.  A submit
 * that takes over HELD_US is counted as held back, and the parts still
 * pending on the GPU at the first such submit (submitted minus the
 * timeline's value then) are noted.  The shapes and sizes take their rounds
 * interleaved; per cell the table gives the median over rounds of: the mean
 * submit in the first and in the last quarter of the parts, the mean of all,
 * a part's submit to finish, the submits held back, (over the rounds
 * that held one back) the parts pending when the first was, and the mean
 * time recording one part's command buffer took beforehand (begin, the
 * fill, end: what vkprobe's bare part leaves out and a renderer that
 * records its parts on the submitting thread pays).  Defaults
 * suit a GPU; lavapipe wants small sizes (--fill 4,65536 --parts 100,400).  Exits 77 where there is no Vulkan
 * device, 2 on a bad option; with RX_VK_VALIDATION=1 the validation layer
 * is on and any warning or error it reports makes it exit 1. */
#include <volk.h>

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench-common.h"

#define MAX_LIST 8
#define HELD_US 10.0

struct gpu {
	VkInstance instance;
	VkDebugUtilsMessengerEXT messenger;  /* with RX_VK_VALIDATION=1 */
	VkPhysicalDevice phys;
	VkDevice device;
	VkQueue queue;
	uint32_t family;
	VkBuffer buf;
	VkDeviceMemory mem;
	VkDeviceSize buf_B;
	VkCommandPool pool;
	VkCommandPool close_pool;
	VkCommandBuffer close;  /* the renderer's shape: a barrier, shared by every part */
	VkSemaphore timeline;
	uint64_t value;         /* the last value submitted */
	char name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
};

/* With RX_VK_VALIDATION=1 (as the tests run it) the validation layer is
 * on, and a warning or error it reports makes the program exit 1. */
static unsigned validation_messages;

static VKAPI_ATTR VkBool32 VKAPI_CALL on_validation(VkDebugUtilsMessageSeverityFlagBitsEXT sev,
                                                    VkDebugUtilsMessageTypeFlagsEXT type,
                                                    const VkDebugUtilsMessengerCallbackDataEXT *d,
                                                    void *user)
{
	(void)type, (void)user;
	if (sev & (VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)) {
		validation_messages++;
		fprintf(stderr, "rxvk-bench-queue: validation: %s\n", d->pMessage ? d->pMessage : "(no message)");
	}
	return VK_FALSE;
}

static bool validation_wanted(void)
{
	const char *v = getenv("RX_VK_VALIDATION");
	if (!v || strcmp(v, "1") != 0)
		return false;
	uint32_t n = 0;
	vkEnumerateInstanceLayerProperties(&n, NULL);
	VkLayerProperties *props = calloc(n ? n : 1, sizeof *props);
	bool found = false;
	if (props && vkEnumerateInstanceLayerProperties(&n, props) == VK_SUCCESS)
		for (uint32_t i = 0; i < n && !found; i++)
			found = strcmp(props[i].layerName, "VK_LAYER_KHRONOS_validation") == 0;
	free(props);
	if (!found)
		fprintf(stderr, "rxvk-bench-queue: RX_VK_VALIDATION=1 but no VK_LAYER_KHRONOS_validation: running without it\n");
	return found;
}

static int fail(const char *what, VkResult r)
{
	fprintf(stderr, "rxvk-bench-queue: %s failed (VkResult %d)\n", what, (int)r);
	return -EIO;
}

#define CK(call)                                   \
	do {                                       \
		VkResult r_ = (call);              \
		if (r_ != VK_SUCCESS)              \
			return fail(#call, r_);    \
	} while (0)

/* The first device with a queue that does graphics or compute, its
 * timeline semaphore, a device-local buffer of buf_B bytes, a command pool
 * and the shared closing command buffer.  -ENODEV when there is none. */
static int gpu_init(struct gpu *g, VkDeviceSize buf_B)
{
	if (volkInitialize() != VK_SUCCESS) {
		fprintf(stderr, "rxvk-bench-queue: no Vulkan loader\n");
		return -ENODEV;
	}
	VkApplicationInfo app = { .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
	                          .pApplicationName = "rxvk-bench-queue",
	                          .apiVersion = VK_API_VERSION_1_2 };
	VkInstanceCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app };
	bool validate = validation_wanted();
	const char *layer = "VK_LAYER_KHRONOS_validation", *ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
	VkDebugUtilsMessengerCreateInfoEXT dmi = {
		.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
		.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
		                   VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
		.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
		               VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
		.pfnUserCallback = on_validation
	};
	if (validate) {
		ici.pNext = &dmi; /* messages from vkCreateInstance itself */
		ici.enabledLayerCount = 1;
		ici.ppEnabledLayerNames = &layer;
		ici.enabledExtensionCount = 1;
		ici.ppEnabledExtensionNames = &ext;
	}
	if (vkCreateInstance(&ici, NULL, &g->instance) != VK_SUCCESS) {
		fprintf(stderr, "rxvk-bench-queue: no Vulkan instance\n");
		return -ENODEV;
	}
	volkLoadInstanceOnly(g->instance);
	if (validate)
		CK(vkCreateDebugUtilsMessengerEXT(g->instance, &dmi, NULL, &g->messenger));
	uint32_t n = 0;
	vkEnumeratePhysicalDevices(g->instance, &n, NULL);
	if (n == 0) {
		fprintf(stderr, "rxvk-bench-queue: no Vulkan device\n");
		return -ENODEV;
	}
	VkPhysicalDevice devs[16];
	n = n > 16 ? 16 : n;
	vkEnumeratePhysicalDevices(g->instance, &n, devs);
	g->phys = devs[0];
	VkPhysicalDeviceProperties props;
	vkGetPhysicalDeviceProperties(g->phys, &props);
	snprintf(g->name, sizeof g->name, "%s", props.deviceName);
	uint32_t nq = 0;
	vkGetPhysicalDeviceQueueFamilyProperties(g->phys, &nq, NULL);
	VkQueueFamilyProperties qf[32];
	nq = nq > 32 ? 32 : nq;
	vkGetPhysicalDeviceQueueFamilyProperties(g->phys, &nq, qf);
	g->family = UINT32_MAX;
	for (uint32_t i = 0; i < nq && g->family == UINT32_MAX; i++)
		if (qf[i].queueFlags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT))
			g->family = i;
	if (g->family == UINT32_MAX) {
		fprintf(stderr, "rxvk-bench-queue: %s has no graphics or compute queue\n", g->name);
		return -ENODEV;
	}
	float prio = 1.0f;
	VkDeviceQueueCreateInfo qci = { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
	                                .queueFamilyIndex = g->family,
	                                .queueCount = 1,
	                                .pQueuePriorities = &prio };
	VkPhysicalDeviceVulkan12Features f12 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
	                                         .timelineSemaphore = VK_TRUE };
	VkDeviceCreateInfo dci = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
	                           .pNext = &f12,
	                           .queueCreateInfoCount = 1,
	                           .pQueueCreateInfos = &qci };
	CK(vkCreateDevice(g->phys, &dci, NULL, &g->device));
	volkLoadDevice(g->device);
	vkGetDeviceQueue(g->device, g->family, 0, &g->queue);

	g->buf_B = buf_B;
	VkBufferCreateInfo bci = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
	                           .size = buf_B,
	                           .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT };
	CK(vkCreateBuffer(g->device, &bci, NULL, &g->buf));
	VkMemoryRequirements req;
	vkGetBufferMemoryRequirements(g->device, g->buf, &req);
	VkPhysicalDeviceMemoryProperties mp;
	vkGetPhysicalDeviceMemoryProperties(g->phys, &mp);
	uint32_t type = UINT32_MAX;
	for (uint32_t want = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;; want = 0) {
		for (uint32_t i = 0; i < mp.memoryTypeCount && type == UINT32_MAX; i++)
			if ((req.memoryTypeBits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want)
				type = i;
		if (type != UINT32_MAX || want == 0)
			break;
	}
	if (type == UINT32_MAX) {
		fprintf(stderr, "rxvk-bench-queue: %s has no memory type for a buffer\n", g->name);
		return -ENODEV;
	}
	VkMemoryAllocateInfo mai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
	                             .allocationSize = req.size,
	                             .memoryTypeIndex = type };
	CK(vkAllocateMemory(g->device, &mai, NULL, &g->mem));
	CK(vkBindBufferMemory(g->device, g->buf, g->mem, 0));

	VkCommandPoolCreateInfo pci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
	                                .flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT,
	                                .queueFamilyIndex = g->family };
	CK(vkCreateCommandPool(g->device, &pci, NULL, &g->pool));
	VkSemaphoreTypeCreateInfo sti = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
	                                  .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE };
	VkSemaphoreCreateInfo sci = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &sti };
	CK(vkCreateSemaphore(g->device, &sci, NULL, &g->timeline));

	/* the closing command buffer: librxvk ends every part with one shared
	 * barrier, recorded once for simultaneous use */
	VkCommandPoolCreateInfo cpci = pci;
	cpci.flags = 0;
	CK(vkCreateCommandPool(g->device, &cpci, NULL, &g->close_pool));
	VkCommandBufferAllocateInfo cai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
	                                    .commandPool = g->close_pool,
	                                    .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
	                                    .commandBufferCount = 1 };
	CK(vkAllocateCommandBuffers(g->device, &cai, &g->close));
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
	                                .flags = VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT };
	CK(vkBeginCommandBuffer(g->close, &bi));
	VkMemoryBarrier mb = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
	                       .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
	                       .dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT };
	vkCmdPipelineBarrier(g->close, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1,
	                     &mb, 0, NULL, 0, NULL);
	CK(vkEndCommandBuffer(g->close));
	return 0;
}

/* Everything gpu_init made, whatever it got to (NULL handles are skipped
 * by Vulkan's destroy calls; g is zeroed first). */
static void gpu_finish(struct gpu *g)
{
	if (g->device) {
		vkDeviceWaitIdle(g->device);
		vkDestroySemaphore(g->device, g->timeline, NULL);
		vkDestroyCommandPool(g->device, g->close_pool, NULL);
		vkDestroyCommandPool(g->device, g->pool, NULL);
		vkDestroyBuffer(g->device, g->buf, NULL);
		vkFreeMemory(g->device, g->mem, NULL);
		vkDestroyDevice(g->device, NULL);
	}
	if (g->instance) {
		if (g->messenger)
			vkDestroyDebugUtilsMessengerEXT(g->instance, g->messenger, NULL);
		vkDestroyInstance(g->instance, NULL);
	}
	memset(g, 0, sizeof *g);
}

static int wait_value(struct gpu *g, uint64_t v)
{
	VkSemaphoreWaitInfo wi = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
	                           .semaphoreCount = 1,
	                           .pSemaphores = &g->timeline,
	                           .pValues = &v };
	CK(vkWaitSemaphores(g->device, &wi, UINT64_MAX));
	return 0;
}

struct cell {
	VkDeviceSize fill_B;
	int parts;
	bool close;                /* the renderer's shape */
	bool waiter;               /* with a thread waiting on the timeline meanwhile */
	double *first, *last, *all, *e2e, *held, *pending, *rec;  /* one a round */
};

/* --waiter: a thread that waits on the timeline the whole round, one value
 * ahead of what the GPU has reached, in 1 ms slices, as librxvk's
 * recycler thread does while parts are submitted (record.c). */
struct waiter {
	struct gpu *g;
	pthread_t thread;
	bool stop;             /* __atomic: set by the submitting thread */
	unsigned waits;
};

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;
	while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE)) {
		uint64_t done = 0;
		vkGetSemaphoreCounterValue(w->g->device, w->g->timeline, &done);
		uint64_t next = done + 1;
		VkSemaphoreWaitInfo wi = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
		                           .semaphoreCount = 1,
		                           .pSemaphores = &w->g->timeline,
		                           .pValues = &next };
		vkWaitSemaphores(w->g->device, &wi, 1000000);
		w->waits++;
	}
	return NULL;
}

/* One round of one cell: record its parts, submit them, wait, free them. */
static int round_run(struct gpu *g, struct cell *c, int k, double *submit_us)
{
	int n = c->parts;
	struct waiter w = { .g = g };
	bool waiting = false;
	VkCommandBuffer *cmd = calloc((size_t)n, sizeof *cmd);
	if (!cmd)
		return -ENOMEM;
	VkCommandBufferAllocateInfo cai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
	                                    .commandPool = g->pool,
	                                    .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
	                                    .commandBufferCount = (uint32_t)n };
	int rc = 0;
	VkResult r = vkAllocateCommandBuffers(g->device, &cai, cmd);
	if (r != VK_SUCCESS) {
		rc = fail("vkAllocateCommandBuffers", r);
		goto out;
	}
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
	                                .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT };
	double r0 = bench_now_us();
	for (int i = 0; i < n; i++) {
		vkBeginCommandBuffer(cmd[i], &bi);
		vkCmdFillBuffer(cmd[i], g->buf, 0, c->fill_B, (uint32_t)i);
		if ((r = vkEndCommandBuffer(cmd[i])) != VK_SUCCESS) {
			rc = fail("vkEndCommandBuffer", r);
			goto out;
		}
	}
	c->rec[k] = (bench_now_us() - r0) / n;
	uint64_t v0 = g->value;
	double held = 0, pending = -1;
	waiting = c->waiter && pthread_create(&w.thread, NULL, waiter_main, &w) == 0;
	if (c->waiter && !waiting) {
		rc = -EAGAIN;
		fprintf(stderr, "rxvk-bench-queue: cannot start the waiting thread\n");
		goto out;
	}
	double t0 = bench_now_us();
	for (int i = 0; i < n; i++) {
		uint64_t value = ++g->value;
		VkTimelineSemaphoreSubmitInfo ts = { .sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
		                                     .signalSemaphoreValueCount = 1,
		                                     .pSignalSemaphoreValues = &value };
		VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		                    .pNext = &ts,
		                    .commandBufferCount = c->close ? 2 : 1,
		                    .pCommandBuffers = (VkCommandBuffer[2]){ cmd[i], g->close },
		                    .signalSemaphoreCount = 1,
		                    .pSignalSemaphores = &g->timeline };
		double s0 = bench_now_us();
		r = vkQueueSubmit(g->queue, 1, &si, VK_NULL_HANDLE);
		submit_us[i] = bench_now_us() - s0;
		if (r != VK_SUCCESS) {
			rc = fail("vkQueueSubmit", r);
			goto out;
		}
		if (submit_us[i] > HELD_US) {
			held++;
			if (pending < 0) {
				uint64_t done = 0;
				vkGetSemaphoreCounterValue(g->device, g->timeline, &done);
				pending = (double)(value - (done > v0 ? done : v0));
			}
		}
	}
	rc = wait_value(g, g->value);
	c->e2e[k] = (bench_now_us() - t0) / n;
	if (waiting) {
		__atomic_store_n(&w.stop, true, __ATOMIC_RELEASE);
		pthread_join(w.thread, NULL);
		waiting = false;
	}
	if (rc < 0)
		goto out;
	int q = n / 4 > 0 ? n / 4 : 1;
	double first = 0, last = 0, all = 0;
	for (int i = 0; i < n; i++) {
		all += submit_us[i];
		if (i < q)
			first += submit_us[i];
		if (i >= n - q)
			last += submit_us[i];
	}
	c->first[k] = first / q;
	c->last[k] = last / q;
	c->all[k] = all / n;
	c->held[k] = held;
	c->pending[k] = pending;
out:
	if (waiting) {
		__atomic_store_n(&w.stop, true, __ATOMIC_RELEASE);
		pthread_join(w.thread, NULL);
	}
	vkResetCommandPool(g->device, g->pool, 0);
	free(cmd);
	return rc;
}

/* "a,b,c" with k/M suffixes into v (at most MAX_LIST); 0 or -EINVAL. */
static int parse_list(const char *opt, const char *s, double *v, int *n, double lo, double hi)
{
	*n = 0;
	const char *p = s;
	while (*p) {
		char *end;
		errno = 0;
		double x = strtod(p, &end);
		if (end == p || errno) {
			fprintf(stderr, "rxvk-bench-queue: %s '%s': expected numbers separated by commas\n", opt, s);
			return -EINVAL;
		}
		if (*end == 'k' || *end == 'K')
			x *= 1024, end++;
		else if (*end == 'M')
			x *= 1024 * 1024, end++;
		if (x < lo || x > hi || x != (double)(long long)x || *n == MAX_LIST ||
		    (*end != ',' && *end != '\0')) {
			fprintf(stderr, "rxvk-bench-queue: %s '%s': each a whole number from %.0f to %.0f, at most %d\n",
			        opt, s, lo, hi, MAX_LIST);
			return -EINVAL;
		}
		v[(*n)++] = x;
		p = *end ? end + 1 : end;
	}
	if (*n == 0) {
		fprintf(stderr, "rxvk-bench-queue: %s: empty list\n", opt);
		return -EINVAL;
	}
	return 0;
}

int main(int argc, char **argv)
{
	double fills[MAX_LIST] = { 4, 16 * 1048576.0, 64 * 1048576.0 }, parts[MAX_LIST] = { 500, 1000, 1500, 3000 };
	int nf = 3, np = 4, rounds = 5, shapes = 2;
	for (int a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--fill") == 0 && a + 1 < argc) {
			if (parse_list("--fill", argv[++a], fills, &nf, 4, 1024.0 * 1048576) < 0)
				return 2;
		} else if (strcmp(argv[a], "--parts") == 0 && a + 1 < argc) {
			if (parse_list("--parts", argv[++a], parts, &np, 2, 100000) < 0)
				return 2;
		} else if (strcmp(argv[a], "--waiter") == 0) {
			shapes = 3;
		} else if (strcmp(argv[a], "--rounds") == 0 && a + 1 < argc) {
			char *end;
			long r = strtol(argv[++a], &end, 10);
			if (*end || r < 1 || r > 101) {
				fprintf(stderr, "rxvk-bench-queue: --rounds '%s': expected 1 to 101\n", argv[a]);
				return 2;
			}
			rounds = (int)r;
		} else {
			fprintf(stderr, "usage: rxvk-bench-queue [--fill B[,B...]] [--parts N[,N...]] [--rounds R] [--waiter]\n"
			                "       (sizes take k and M; GPU defaults: --fill 4,16M,64M --parts 500,1000,1500,3000)\n");
			return 2;
		}
	}
	for (int i = 0; i < nf; i++)
		if ((uint64_t)fills[i] % 4) {
			fprintf(stderr, "rxvk-bench-queue: --fill %.0f: a fill is a multiple of 4 bytes\n", fills[i]);
			return 2;
		}
	double max_fill = 0, max_parts = 0;
	for (int i = 0; i < nf; i++)
		max_fill = fills[i] > max_fill ? fills[i] : max_fill;
	for (int i = 0; i < np; i++)
		max_parts = parts[i] > max_parts ? parts[i] : max_parts;

	struct gpu g = { 0 };
	int rc = gpu_init(&g, (VkDeviceSize)max_fill);
	if (rc < 0) {
		gpu_finish(&g);
		return rc == -ENODEV ? 77 : 1;
	}
	int ncell = nf * np * shapes;
	struct cell *cells = calloc((size_t)ncell, sizeof *cells);
	double *store = calloc((size_t)ncell * 7 * (size_t)rounds, sizeof *store);
	double *submit_us = calloc((size_t)max_parts, sizeof *submit_us);
	if (!cells || !store || !submit_us) {
		fprintf(stderr, "rxvk-bench-queue: out of memory\n");
		return 1;
	}
	for (int i = 0; i < ncell; i++) {
		struct cell *c = &cells[i];
		c->fill_B = (VkDeviceSize)fills[(i / shapes) / np];
		c->parts = (int)parts[(i / shapes) % np];
		c->close = i % shapes > 0;
		c->waiter = i % shapes == 2;
		double *s = store + (size_t)i * 7 * (size_t)rounds;
		c->first = s, c->last = s + rounds, c->all = s + 2 * rounds;
		c->e2e = s + 3 * rounds, c->held = s + 4 * rounds, c->pending = s + 5 * rounds;
		c->rec = s + 6 * rounds;
	}
	/* rounds interleaved over every cell, so drift hits all alike */
	for (int k = 0; k < rounds; k++)
		for (int i = 0; i < ncell; i++)
			if (round_run(&g, &cells[i], k, submit_us) < 0) {
				gpu_finish(&g);
				return 1;
			}

	printf("%s: one thread submits N parts (one vkQueueSubmit each, a timeline signal), "
	       "medians of %d rounds; held back: a submit over %.0f µs\n\n",
	       g.name, rounds, HELD_US);
	printf("| fill a part | parts | shape | submit: first quarter / last quarter / all (µs) | "
	       "a part, submit to finish (µs) | submits held back | pending at the first | "
	       "recording a part beforehand: begin, the fill, end (µs) |\n");
	printf("|---|---|---|---|---|---|---|---|\n");
	for (int i = 0; i < ncell; i++) {
		struct cell *c = &cells[i];
		/* the parts pending at the first held submit, over the rounds
		 * that held one back */
		double pend[101];
		int npend = 0;
		for (int k = 0; k < rounds; k++)
			if (c->pending[k] >= 0)
				pend[npend++] = c->pending[k];
		char pend_s[32];
		if (npend == 0)
			snprintf(pend_s, sizeof pend_s, "none");
		else
			snprintf(pend_s, sizeof pend_s, "%.0f (%d of %d rounds)", bench_median(pend, npend), npend,
			         rounds);
		printf("| %llu B | %d | %s | %.2f / %.2f / %.2f | %.2f | %.0f | %s | %.2f |\n", (unsigned long long)c->fill_B,
		       c->parts, c->waiter ? "renderer's, a thread waiting" : c->close ? "renderer's" : "bare",
		       bench_median(c->first, rounds), bench_median(c->last, rounds), bench_median(c->all, rounds),
		       bench_median(c->e2e, rounds), bench_median(c->held, rounds), pend_s, bench_median(c->rec, rounds));
	}
	gpu_finish(&g);
	free(submit_us);
	free(store);
	free(cells);
	if (validation_messages) {
		fprintf(stderr, "rxvk-bench-queue: %u validation message%s\n", validation_messages,
		        validation_messages == 1 ? "" : "s");
		return 1;
	}
	return 0;
}
