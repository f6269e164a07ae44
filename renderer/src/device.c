/* device: the Vulkan instance (through volk), the validation layer and its
 * message counter, physical-device selection (RX_VK_DEVICE), the logical
 * device with timeline semaphores, buffer device addresses and dynamic
 * rendering (and, with window_xcb, the surface and swapchain extensions
 * that window.c uses), and the built-in programs' pipelines made from the embedded
 * SPIR-V.  It owns no guest state. */
#include "private.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cull.comp.h"
#include "instanced.frag.h"
#include "instanced.vert.h"
#include "spin.comp.h"
#include "textured.frag.h"
#include "textured.vert.h"

static VKAPI_ATTR VkBool32 VKAPI_CALL on_validation(VkDebugUtilsMessageSeverityFlagBitsEXT sev,
                                                    VkDebugUtilsMessageTypeFlagsEXT type,
                                                    const VkDebugUtilsMessengerCallbackDataEXT *d,
                                                    void *user)
{
	struct rxvk *rx = user;
	if (!(sev & (VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
	             VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)))
		return VK_FALSE;
	CNT_ADD(rx, validation_messages, 1);
	rxvk_log(rx, "validation: %s", d->pMessage ? d->pMessage : "(no message)");
	return VK_FALSE;
}

static bool has_layer(const char *name)
{
	uint32_t n = 0;
	if (vkEnumerateInstanceLayerProperties(&n, NULL) != VK_SUCCESS || n == 0)
		return false;
	VkLayerProperties *props = calloc(n, sizeof *props);
	bool found = false;
	if (props && vkEnumerateInstanceLayerProperties(&n, props) == VK_SUCCESS)
		for (uint32_t i = 0; i < n; i++)
			found |= strcmp(props[i].layerName, name) == 0;
	free(props);
	return found;
}

static bool instance_has_ext(const char *name)
{
	uint32_t n = 0;
	if (vkEnumerateInstanceExtensionProperties(NULL, &n, NULL) != VK_SUCCESS)
		return false;
	VkExtensionProperties *props = calloc(n ? n : 1, sizeof *props);
	bool found = false;
	if (props && vkEnumerateInstanceExtensionProperties(NULL, &n, props) == VK_SUCCESS)
		for (uint32_t i = 0; i < n; i++)
			found |= strcmp(props[i].extensionName, name) == 0;
	free(props);
	return found;
}

static bool device_has_ext(VkPhysicalDevice pd, const char *name)
{
	uint32_t n = 0;
	if (vkEnumerateDeviceExtensionProperties(pd, NULL, &n, NULL) != VK_SUCCESS)
		return false;
	VkExtensionProperties *props = calloc(n ? n : 1, sizeof *props);
	bool found = false;
	if (props && vkEnumerateDeviceExtensionProperties(pd, NULL, &n, props) == VK_SUCCESS)
		for (uint32_t i = 0; i < n; i++)
			found |= strcmp(props[i].extensionName, name) == 0;
	free(props);
	return found;
}

/* A device is usable with Vulkan 1.2, timeline semaphores, buffer device
 * addresses, 64-bit shader integers and dynamic rendering. */
static bool usable(VkPhysicalDevice pd, char *why, size_t why_size)
{
	VkPhysicalDeviceProperties p;
	vkGetPhysicalDeviceProperties(pd, &p);
	if (VK_API_VERSION_MINOR(p.apiVersion) < 2 && VK_API_VERSION_MAJOR(p.apiVersion) == 1) {
		snprintf(why, why_size, "Vulkan %u.%u, 1.2 needed", VK_API_VERSION_MAJOR(p.apiVersion),
		         VK_API_VERSION_MINOR(p.apiVersion));
		return false;
	}
	VkPhysicalDeviceDynamicRenderingFeatures dr = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DYNAMIC_RENDERING_FEATURES };
	VkPhysicalDeviceVulkan12Features f12 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
	                                         .pNext = &dr };
	VkPhysicalDeviceFeatures2 f = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &f12 };
	bool need_ext = VK_API_VERSION_MINOR(p.apiVersion) < 3;
	if (need_ext && !device_has_ext(pd, VK_KHR_DYNAMIC_RENDERING_EXTENSION_NAME)) {
		snprintf(why, why_size, "no dynamic rendering");
		return false;
	}
	vkGetPhysicalDeviceFeatures2(pd, &f);
	if (!f12.timelineSemaphore || !f12.bufferDeviceAddress || !f.features.shaderInt64 ||
	    !dr.dynamicRendering) {
		snprintf(why, why_size, "missing timeline semaphores, buffer device addresses, "
		                        "64-bit shader integers or dynamic rendering");
		return false;
	}
	return true;
}

static int pick_device(struct rxvk *rx)
{
	uint32_t n = 0;
	VkResult r = vkEnumeratePhysicalDevices(rx->instance, &n, NULL);
	if (r != VK_SUCCESS || n == 0) {
		rxvk_set_error("no Vulkan device found");
		rxvk_log(rx, "error: %s", rxvk_last_error());
		return -ENODEV;
	}
	VkPhysicalDevice *pds = calloc(n, sizeof *pds);
	if (!pds)
		return -ENOMEM;
	if ((r = vkEnumeratePhysicalDevices(rx->instance, &n, pds)) != VK_SUCCESS) {
		free(pds);
		return vk_check(rx, r);
	}
	const char *want = rx->set.cfg.device;
	char *end = NULL;
	long index = want && *want ? strtol(want, &end, 10) : -1;
	bool by_index = want && *want && end && *end == '\0';
	int chosen = -1, fallback = -1;
	for (uint32_t i = 0; i < n; i++) {
		VkPhysicalDeviceProperties p;
		vkGetPhysicalDeviceProperties(pds[i], &p);
		char why[160] = "";
		bool ok = usable(pds[i], why, sizeof why);
		bool named;
		if (by_index)
			named = (long)i == index;
		else if (want && *want)
			named = strcasestr(p.deviceName, want) != NULL;
		else
			named = true;
		if (!named)
			continue;
		if (!ok) {
			rxvk_log(rx, "device %u '%s' not usable: %s", i, p.deviceName, why);
			continue;
		}
		/* with no choice given, a real GPU comes before a CPU driver */
		if (p.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU) {
			if (fallback < 0)
				fallback = (int)i;
			if (want && *want && chosen < 0)
				chosen = (int)i;
		} else if (chosen < 0) {
			chosen = (int)i;
		}
	}
	if (chosen < 0)
		chosen = fallback;
	if (chosen < 0) {
		rxvk_set_error(want && *want ? "RX_VK_DEVICE='%s' names no usable Vulkan device"
		                             : "no usable Vulkan device%s",
		               want && *want ? want : "");
		rxvk_log(rx, "error: %s", rxvk_last_error());
		free(pds);
		return -ENODEV;
	}
	rx->phys = pds[chosen];
	free(pds);

	VkPhysicalDeviceDriverProperties drv = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES };
	VkPhysicalDeviceProperties2 p2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &drv };
	vkGetPhysicalDeviceProperties2(rx->phys, &p2);
	snprintf(rx->info.name, sizeof rx->info.name, "%s", p2.properties.deviceName);
	snprintf(rx->info.driver, sizeof rx->info.driver, "%.120s %.120s", drv.driverName, drv.driverInfo);
	rx->info.vendor_id = p2.properties.vendorID;
	rx->info.device_id = p2.properties.deviceID;
	rx->info.api_version = p2.properties.apiVersion;
	rx->info.discrete = p2.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU;
	rx->info.cpu = p2.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
	rx->driver_id = drv.driverID;
	rx->info.index = (uint32_t)chosen;
	rxvk_log(rx, "device %d: %s (%s), Vulkan %u.%u, %s", chosen, rx->info.name, rx->info.driver,
	         VK_API_VERSION_MAJOR(rx->info.api_version), VK_API_VERSION_MINOR(rx->info.api_version),
	         rx->info.discrete ? "discrete" : rx->info.cpu ? "CPU" : "integrated");
	return 0;
}

/* Step: the loader, the instance (with the validation layer and its
 * messenger when asked for) and the API version asked for. */
static int create_instance(struct rxvk *rx, uint32_t *out_api)
{
	VkResult r = volkInitialize();
	if (r != VK_SUCCESS) {
		rxvk_set_error("no Vulkan loader found (libvulkan.so.1)");
		rxvk_log(rx, "error: %s", rxvk_last_error());
		return -ENODEV;
	}
	bool validation = rx->set.cfg.validation == RXVK_SWITCH_ON;
	const char *layers[] = { "VK_LAYER_KHRONOS_validation" };
	const char *exts[3];
	uint32_t n_inst_exts = 0;
	if (validation)
		exts[n_inst_exts++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
	if (rx->set.cfg.window_xcb) {
		static const char *const win_exts[] = { VK_KHR_SURFACE_EXTENSION_NAME, "VK_KHR_xcb_surface" };
		for (size_t i = 0; i < 2; i++) {
			if (!instance_has_ext(win_exts[i])) {
				rxvk_set_error("window: the Vulkan instance has no %s", win_exts[i]);
				rxvk_log(rx, "error: %s", rxvk_last_error());
				return -ENODEV;
			}
			exts[n_inst_exts++] = win_exts[i];
		}
	}
	if (validation && !has_layer(layers[0])) {
		rxvk_set_error("RX_VK_VALIDATION=1 but the layer VK_LAYER_KHRONOS_validation is not "
		               "installed (Debian: vulkan-validationlayers)");
		rxvk_log(rx, "error: %s", rxvk_last_error());
		return -ENODEV;
	}
	VkApplicationInfo app = { .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
	                          .pApplicationName = "rxvk",
	                          .pEngineName = "librxvk",
	                          .apiVersion = VK_API_VERSION_1_2 };
	uint32_t loader = 0;
	if (vkEnumerateInstanceVersion && vkEnumerateInstanceVersion(&loader) == VK_SUCCESS &&
	    loader >= VK_API_VERSION_1_3)
		app.apiVersion = VK_API_VERSION_1_3;
	VkDebugUtilsMessengerCreateInfoEXT mci = {
		.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
		.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
		                   VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
		.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
		               VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
		.pfnUserCallback = on_validation,
		.pUserData = rx,
	};
	VkInstanceCreateInfo ici = {
		.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
		.pNext = validation ? &mci : NULL,
		.pApplicationInfo = &app,
		.enabledLayerCount = validation ? 1 : 0,
		.ppEnabledLayerNames = layers,
		.enabledExtensionCount = n_inst_exts,
		.ppEnabledExtensionNames = exts,
	};
	r = vkCreateInstance(&ici, NULL, &rx->instance);
	if (r != VK_SUCCESS) {
		int rc = vk_check(rx, r);
		return rc == -EIO ? -ENODEV : rc;
	}
	volkLoadInstanceOnly(rx->instance);
	if (validation) {
		r = vkCreateDebugUtilsMessengerEXT(rx->instance, &mci, NULL, &rx->messenger);
		if (r != VK_SUCCESS)
			return vk_check(rx, r);
	}
	*out_api = app.apiVersion;
	return 0;
}

/* Step: a queue family with graphics and compute. */
static int pick_queue_family(struct rxvk *rx)
{
	uint32_t nq = 0;
	vkGetPhysicalDeviceQueueFamilyProperties(rx->phys, &nq, NULL);
	VkQueueFamilyProperties qf[32];
	if (nq > 32)
		nq = 32;
	vkGetPhysicalDeviceQueueFamilyProperties(rx->phys, &nq, qf);
	int family = -1;
	for (uint32_t i = 0; i < nq && family < 0; i++)
		if ((qf[i].queueFlags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT)) ==
		    (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT))
			family = (int)i;
	if (family < 0) {
		rxvk_set_error("device '%s' has no graphics and compute queue", rx->info.name);
		return -ENODEV;
	}
	rx->queue_family = (uint32_t)family;
	return 0;
}

/* Step: the device with the extensions and features the renderer uses
 * (dynamic rendering, timeline semaphores, device addresses, host import,
 * synchronization2 where there is one). */
static int create_device(struct rxvk *rx, uint32_t app_api)
{
	int rc;
	const char *dev_exts[4];
	uint32_t n_exts = 0;
	bool api13 = VK_API_VERSION_MINOR(rx->info.api_version) >= 3 && app_api >= VK_API_VERSION_1_3;
	if (!api13)
		dev_exts[n_exts++] = VK_KHR_DYNAMIC_RENDERING_EXTENSION_NAME;
	bool host_import = rx->set.cfg.import_host == RXVK_SWITCH_ON &&
	                   device_has_ext(rx->phys, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
	if (host_import)
		dev_exts[n_exts++] = VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME;
	rx->info.host_import = host_import;
	if (rx->set.cfg.window_xcb) {
		if (!device_has_ext(rx->phys, VK_KHR_SWAPCHAIN_EXTENSION_NAME)) {
			rxvk_set_error("window: device '%s' has no %s", rx->info.name,
			               VK_KHR_SWAPCHAIN_EXTENSION_NAME);
			rxvk_log(rx, "error: %s", rxvk_last_error());
			return -ENODEV;
		}
		dev_exts[n_exts++] = VK_KHR_SWAPCHAIN_EXTENSION_NAME;
	}

	float prio = 1.0f;
	VkDeviceQueueCreateInfo qci = { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
	                                .queueFamilyIndex = rx->queue_family,
	                                .queueCount = 1,
	                                .pQueuePriorities = &prio };
	/* synchronization2 (core in 1.3): RX_VK_READBACK_EARLY=marker's
	 * vkCmdSetEvent2 */
	VkPhysicalDeviceSynchronization2Features s2 = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES };
	if (api13) {
		VkPhysicalDeviceFeatures2 q = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &s2 };
		vkGetPhysicalDeviceFeatures2(rx->phys, &q);
		s2.pNext = NULL;
	}
	rx->sync2 = s2.synchronization2 == VK_TRUE;
	VkPhysicalDeviceDynamicRenderingFeatures dr = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DYNAMIC_RENDERING_FEATURES,
		.pNext = rx->sync2 ? &s2 : NULL,
		.dynamicRendering = VK_TRUE };
	VkPhysicalDeviceVulkan12Features f12 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
	                                         .pNext = &dr,
	                                         .timelineSemaphore = VK_TRUE,
	                                         .bufferDeviceAddress = VK_TRUE };
	VkPhysicalDeviceFeatures2 f2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
	                                 .pNext = &f12 };
	f2.features.shaderInt64 = VK_TRUE;
	VkDeviceCreateInfo dci = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
	                           .pNext = &f2,
	                           .queueCreateInfoCount = 1,
	                           .pQueueCreateInfos = &qci,
	                           .enabledExtensionCount = n_exts,
	                           .ppEnabledExtensionNames = dev_exts };
	if ((rc = vk_check(rx, vkCreateDevice(rx->phys, &dci, NULL, &rx->device))) < 0)
		return rc;
	volkLoadDevice(rx->device);
	vkGetDeviceQueue(rx->device, rx->queue_family, 0, &rx->queue);
	vkGetPhysicalDeviceMemoryProperties(rx->phys, &rx->mem_props);
	rx->begin_rendering = api13 ? vkCmdBeginRendering : vkCmdBeginRenderingKHR;
	rx->end_rendering = api13 ? vkCmdEndRendering : vkCmdEndRenderingKHR;
	if (!rx->begin_rendering || !rx->end_rendering) {
		rxvk_set_error("device '%s' did not give vkCmdBeginRendering", rx->info.name);
		return -ENODEV;
	}
	return 0;}

int rxvk_device_init(struct rxvk *rx)
{
	uint32_t app_api = 0;
	int rc;
	if ((rc = create_instance(rx, &app_api)) < 0 || (rc = pick_device(rx)) < 0 ||
	    (rc = pick_queue_family(rx)) < 0)
		return rc;
	return create_device(rx, app_api);
}

void rxvk_device_finish(struct rxvk *rx)
{
	if (rx->device)
		vkDestroyDevice(rx->device, NULL);
	if (rx->messenger)
		vkDestroyDebugUtilsMessengerEXT(rx->instance, rx->messenger, NULL);
	if (rx->instance)
		vkDestroyInstance(rx->instance, NULL);
	rx->device = VK_NULL_HANDLE;
	rx->instance = VK_NULL_HANDLE;
}

int rxvk_find_memory_type(const struct rxvk *rx, uint32_t bits, VkMemoryPropertyFlags want,
                          uint32_t *out)
{
	for (uint32_t i = 0; i < rx->mem_props.memoryTypeCount; i++)
		if ((bits & (1u << i)) && (rx->mem_props.memoryTypes[i].propertyFlags & want) == want) {
			*out = i;
			return 0;
		}
	return -ENOENT;
}

int rxvk_find_cpu_read_type(struct rxvk *rx, uint32_t bits, const char *what, uint32_t *out)
{
	const VkMemoryPropertyFlags mapped = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
	uint32_t type;
	if (rxvk_find_memory_type(rx, bits, mapped | VK_MEMORY_PROPERTY_HOST_CACHED_BIT, &type) < 0 &&
	    rxvk_find_memory_type(rx, bits, mapped, &type) < 0)
		return -ENOENT;
	VkMemoryPropertyFlags f = rx->mem_props.memoryTypes[type].propertyFlags;
	rxvk_log(rx, "memory for %s: type %u (%shost-visible, coherent, %s)", what, type,
	         f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT ? "device-local, " : "",
	         f & VK_MEMORY_PROPERTY_HOST_CACHED_BIT ? "cached"
	                                                : "not cached: the device has no cached type for it");
	*out = type;
	return 0;
}

/* ---- programs ---- */

uint64_t rxvk_program_hash(const char *name)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		h ^= *p;
		h *= 0x100000001b3ull;
	}
	return h;
}

static int make_module(struct rxvk *rx, const unsigned int *code, size_t size_B, VkShaderModule *out)
{
	VkShaderModuleCreateInfo smi = { .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
	                                 .codeSize = size_B,
	                                 .pCode = code };
	return vk_check(rx, vkCreateShaderModule(rx->device, &smi, NULL, out));
}

static int make_compute(struct rxvk *rx, struct program *prog, const unsigned int *code, size_t size_B)
{
	VkShaderModule m;
	int rc = make_module(rx, code, size_B, &m);
	if (rc < 0)
		return rc;
	VkComputePipelineCreateInfo cpi = {
		.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
		.stage = { .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
		           .stage = VK_SHADER_STAGE_COMPUTE_BIT,
		           .module = m,
		           .pName = "main" },
		.layout = rx->layout,
	};
	rc = vk_check(rx, vkCreateComputePipelines(rx->device, VK_NULL_HANDLE, 1, &cpi, NULL,
	                                           &prog->pipeline[0]));
	vkDestroyShaderModule(rx->device, m, NULL);
	return rc;
}

static int make_graphics(struct rxvk *rx, struct program *prog, const unsigned int *vs, size_t vs_B,
                         const unsigned int *fs, size_t fs_B)
{
	VkShaderModule vm, fm;
	int rc = make_module(rx, vs, vs_B, &vm);
	if (rc < 0)
		return rc;
	if ((rc = make_module(rx, fs, fs_B, &fm)) < 0) {
		vkDestroyShaderModule(rx->device, vm, NULL);
		return rc;
	}
	for (int v = 0; v < VARIANT_COUNT && rc == 0; v++) {
		bool depth = v == VARIANT_DEPTH;
		VkFormat colour = v == VARIANT_BGRA8 ? VK_FORMAT_B8G8R8A8_UNORM : VK_FORMAT_R8G8B8A8_UNORM;
		VkPipelineShaderStageCreateInfo stages[2] = {
			{ .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
			  .stage = VK_SHADER_STAGE_VERTEX_BIT, .module = vm, .pName = "main" },
			{ .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
			  .stage = VK_SHADER_STAGE_FRAGMENT_BIT, .module = fm, .pName = "main" },
		};
		VkPipelineVertexInputStateCreateInfo vi = { .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO };
		VkPipelineInputAssemblyStateCreateInfo ia = { .sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
		                                              .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST };
		VkPipelineViewportStateCreateInfo vp = { .sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
		                                         .viewportCount = 1, .scissorCount = 1 };
		VkPipelineRasterizationStateCreateInfo rs = { .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
		                                              .polygonMode = VK_POLYGON_MODE_FILL,
		                                              .cullMode = VK_CULL_MODE_NONE,
		                                              .lineWidth = 1.0f };
		VkPipelineMultisampleStateCreateInfo ms = { .sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
		                                            .rasterizationSamples = VK_SAMPLE_COUNT_1_BIT };
		VkPipelineDepthStencilStateCreateInfo ds = { .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
		                                             .depthTestEnable = depth,
		                                             .depthWriteEnable = depth,
		                                             .depthCompareOp = VK_COMPARE_OP_LESS_OR_EQUAL };
		VkPipelineColorBlendAttachmentState att = { .colorWriteMask = 0xf };
		VkPipelineColorBlendStateCreateInfo cb = { .sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
		                                           .attachmentCount = depth ? 0 : 1,
		                                           .pAttachments = &att };
		VkDynamicState dyn[2] = { VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR };
		VkPipelineDynamicStateCreateInfo dy = { .sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO,
		                                        .dynamicStateCount = 2, .pDynamicStates = dyn };
		VkPipelineRenderingCreateInfo ri = { .sType = VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO,
		                                     .colorAttachmentCount = depth ? 0 : 1,
		                                     .pColorAttachmentFormats = &colour,
		                                     .depthAttachmentFormat = depth ? VK_FORMAT_D32_SFLOAT : VK_FORMAT_UNDEFINED };
		VkGraphicsPipelineCreateInfo gpi = {
			.sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO,
			.pNext = &ri,
			.stageCount = depth ? 1 : 2, /* depth alone: no fragment outputs to consume */
			.pStages = stages,
			.pVertexInputState = &vi,
			.pInputAssemblyState = &ia,
			.pViewportState = &vp,
			.pRasterizationState = &rs,
			.pMultisampleState = &ms,
			.pDepthStencilState = &ds,
			.pColorBlendState = &cb,
			.pDynamicState = &dy,
			.layout = rx->layout,
		};
		rc = vk_check(rx, vkCreateGraphicsPipelines(rx->device, VK_NULL_HANDLE, 1, &gpi, NULL,
		                                            &prog->pipeline[v]));
	}
	vkDestroyShaderModule(rx->device, vm, NULL);
	vkDestroyShaderModule(rx->device, fm, NULL);
	return rc;
}

int rxvk_programs_init(struct rxvk *rx)
{
	VkPushConstantRange pcr = { .stageFlags = VK_SHADER_STAGE_ALL, .offset = 0,
	                            .size = sizeof(struct op_push) };
	VkPipelineLayoutCreateInfo pli = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
	                                   .pushConstantRangeCount = 1,
	                                   .pPushConstantRanges = &pcr };
	int rc = vk_check(rx, vkCreatePipelineLayout(rx->device, &pli, NULL, &rx->layout));
	if (rc < 0)
		return rc;
	static const char *names[PROG_COUNT] = { "rxvk.cull.v1", "rxvk.spin.v1", "rxvk.instanced.v1",
	                                          "rxvk.textured.v1" };
	for (int i = 0; i < PROG_COUNT; i++) {
		rx->programs[i].name = names[i];
		rx->programs[i].hash = rxvk_program_hash(names[i]);
		rx->programs[i].compute = i == PROG_CULL || i == PROG_SPIN;
	}
	if ((rc = make_compute(rx, &rx->programs[PROG_CULL], cull_comp, sizeof cull_comp)) < 0 ||
	    (rc = make_compute(rx, &rx->programs[PROG_SPIN], spin_comp, sizeof spin_comp)) < 0 ||
	    (rc = make_graphics(rx, &rx->programs[PROG_INSTANCED], instanced_vert, sizeof instanced_vert,
	                        instanced_frag, sizeof instanced_frag)) < 0 ||
	    (rc = make_graphics(rx, &rx->programs[PROG_TEXTURED], textured_vert, sizeof textured_vert,
	                        textured_frag, sizeof textured_frag)) < 0)
		return rc;
	return 0;
}

void rxvk_programs_finish(struct rxvk *rx)
{
	if (!rx->device)
		return;
	for (int i = 0; i < PROG_COUNT; i++)
		for (int v = 0; v < VARIANT_COUNT; v++)
			if (rx->programs[i].pipeline[v])
				vkDestroyPipeline(rx->device, rx->programs[i].pipeline[v], NULL);
	if (rx->layout)
		vkDestroyPipelineLayout(rx->device, rx->layout, NULL);
}

const struct program *rxvk_program_find(const struct rxvk *rx, uint64_t hash)
{
	for (int i = 0; i < PROG_COUNT; i++)
		if (rx->programs[i].hash == hash)
			return &rx->programs[i];
	return NULL;
}
