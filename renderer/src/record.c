/* record: turns finished parts (command lists) into Vulkan command buffers
 * and submits them, each signalling its timeline value, strictly in
 * timeline order; then publishes what each wrote to the page tables.
 *
 * With RX_VK_PARALLEL=1 a part is recorded and submitted on the render
 * thread as soon as it ends.  With RX_VK_PARALLEL=N, N threads record parts
 * (each with its own command pool) while the render thread goes on
 * deciding the next ones; the render thread submits every part whose
 * recording is done, in order, and at the end of a submission waits for
 * the rest.  The lists are the same either way, so are the results. */
#include "private.h"
#include "recorder.h"
#include "replay.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct cmd_slot {
	VkCommandBuffer cmd;
	uint64_t value;        /* free once the timeline reaches it */
};

struct recorder_thread {
	pthread_t thread;
	VkCommandPool pool;
	struct cmd_slot *cmds;
	size_t n_cmds, cap_cmds;
	bool started;
};

/* Records parts into command buffers: inline when RX_VK_PARALLEL=1, on
 * RX_VK_PARALLEL threads otherwise; submits them in timeline order. */
struct recorder {
	/* the render thread's pool and command buffers (RX_VK_PARALLEL=1) */
	VkCommandPool pool;
	struct cmd_slot *cmds;
	size_t n_cmds, cap_cmds;
	unsigned n_threads;
	struct recorder_thread *threads;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct part_job *head, *tail;   /* submitted in this order */
	struct part_job *todo;          /* next job no thread has taken */
	struct part_job *free_jobs;
	bool stop;
};

static int cmd_get(struct rxvk *rx, VkCommandPool pool, struct cmd_slot **slots, size_t *n, size_t *cap,
                 uint64_t value, VkCommandBuffer *out)
{
	uint64_t done = rxvk_timeline_done(rx);
	for (size_t i = 0; i < *n; i++)
		if ((*slots)[i].value <= done) {
			(*slots)[i].value = value;
			*out = (*slots)[i].cmd;
			return vk_check(rx, vkResetCommandBuffer(*out, 0));
		}
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		struct cmd_slot *v = realloc(*slots, c * sizeof *v);
		if (!v)
			return -ENOMEM;
		*slots = v;
		*cap = c;
	}
	VkCommandBufferAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
	                                   .commandPool = pool,
	                                   .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
	                                   .commandBufferCount = 1 };
	int rc = vk_check(rx, vkAllocateCommandBuffers(rx->device, &ai, out));
	if (rc < 0)
		return rc;
	(*slots)[(*n)++] = (struct cmd_slot){ *out, value };
	return 0;
}

static int record_job(struct rxvk *rx, VkCommandPool pool, struct cmd_slot **slots, size_t *n,
                      size_t *cap, struct part_job *job)
{
	uint64_t t0 = rxvk_now_ns();
	int rc = cmd_get(rx, pool, slots, n, cap, job->value, &job->cmd);
	if (rc < 0)
		return rc;
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
	                                .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT };
	if ((rc = vk_check(rx, vkBeginCommandBuffer(job->cmd, &bi))) < 0)
		return rc;
	if ((rc = cl_play(rx, &job->cl, job->cmd)) < 0)
		return rc;
	rc = vk_check(rx, vkEndCommandBuffer(job->cmd));
	if (rc == 0 && rx->test.fail_record_value == job->value) {
		rxvk_set_error("test hook: recording part %llu fails", (unsigned long long)job->value);
		rc = -EIO;
	}
	CNT_ADD(rx, part_record_ns, rxvk_now_ns() - t0);
	return rc;
}

static int submit_job(struct rxvk *rx, struct part_job *job)
{
	VkTimelineSemaphoreSubmitInfo ts = { .sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
	                                     .signalSemaphoreValueCount = 1,
	                                     .pSignalSemaphoreValues = &job->value };
	VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
	                    .pNext = &ts,
	                    .commandBufferCount = 1,
	                    .pCommandBuffers = &job->cmd,
	                    .signalSemaphoreCount = 1,
	                    .pSignalSemaphores = &rx->timeline };
	uint64_t t0 = rxvk_now_ns();
	if (rx->test.fail_submit_value == job->value) {
		rxvk_set_error("test hook: submitting part %llu fails", (unsigned long long)job->value);
		return -EIO;
	}
	pthread_mutex_lock(&rx->queue_lock);
	int rc = vk_check(rx, vkQueueSubmit(rx->queue, 1, &si, VK_NULL_HANDLE));
	pthread_mutex_unlock(&rx->queue_lock);
	uint64_t t1 = rxvk_now_ns();
	CNT_ADD(rx, part_submit_ns, t1 - t0);
	if (rc < 0)
		return rc;
	rxvk_publish(rx, job);
	CNT_ADD(rx, part_publish_ns, rxvk_now_ns() - t1);
	CNT_ADD(rx, parts, 1);
	CNT_SET(rx, timeline_value, job->value);
	return 0;
}

/* A part whose recording failed still owns its timeline value: signal it
 * from the host once everything before it is done, so no reader waits
 * forever. */
static void give_up_job(struct rxvk *rx, struct part_job *job)
{
	rxvk_part_failed(rx, job);
	if (job->value > 1)
		rxvk_timeline_wait(rx, job->value - 1);
	VkSemaphoreSignalInfo si = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO,
	                             .semaphore = rx->timeline,
	                             .value = job->value };
	VkResult r = rx->test.fail_signal ? VK_ERROR_DEVICE_LOST : vkSignalSemaphore(rx->device, &si);
	if (r != VK_SUCCESS) {
		/* readers waiting for it are told, not left waiting (rxvk_timeline_wait) */
		uint64_t none = 0;
		__atomic_compare_exchange_n(&rx->unsignalled, &none, job->value, false, __ATOMIC_RELEASE,
		                            __ATOMIC_RELAXED);
		rxvk_log(rx, "error: part %llu failed and its timeline value could not be signalled "
		             "(VkResult %d): reads waiting for it fail",
		         (unsigned long long)job->value, (int)r);
	}
}

struct part_job *rxvk_recorder_job(struct rxvk *rx)
{
	struct recorder *r = rx->recorder;
	pthread_mutex_lock(&r->lock);
	struct part_job *job = r->free_jobs;
	if (job)
		r->free_jobs = job->next;
	pthread_mutex_unlock(&r->lock);
	if (!job)
		job = calloc(1, sizeof *job);
	if (!job)
		return NULL;
	cl_reset(&job->cl);
	job->writes.n = 0;
	job->reads.n = 0;
	job->cmd = VK_NULL_HANDLE;
	job->state = JOB_QUEUED;
	job->next = NULL;
	job->captured = false;
	return job;
}

static void job_release_locked(struct recorder *r, struct part_job *job)
{
	job->next = r->free_jobs;
	r->free_jobs = job;
}

static void *recorder_main(void *arg)
{
	struct rxvk *rx = arg;
	struct recorder *r = rx->recorder;
	pthread_mutex_lock(&r->lock);
	unsigned self = 0;
	for (unsigned i = 0; i < r->n_threads; i++)
		if (pthread_equal(r->threads[i].thread, pthread_self()))
			self = i;
	struct recorder_thread *t = &r->threads[self];
	for (;;) {
		while (!r->todo && !r->stop)
			pthread_cond_wait(&r->cond, &r->lock);
		if (!r->todo)
			break;
		struct part_job *job = r->todo;
		r->todo = job->next;
		pthread_mutex_unlock(&r->lock);
		int rc = record_job(rx, t->pool, &t->cmds, &t->n_cmds, &t->cap_cmds, job);
		pthread_mutex_lock(&r->lock);
		job->state = rc < 0 ? rc : JOB_RECORDED;
		pthread_cond_broadcast(&r->cond);
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

/* Submits every recorded part at the head of the queue; with `all`, waits
 * for the rest.  Render thread only. */
static int drain(struct rxvk *rx, bool all)
{
	struct recorder *r = rx->recorder;
	int rc = 0;
	pthread_mutex_lock(&r->lock);
	while (r->head) {
		struct part_job *job = r->head;
		if (job->state == JOB_QUEUED) {
			if (!all)
				break;
			pthread_cond_wait(&r->cond, &r->lock);
			continue;
		}
		pthread_mutex_unlock(&r->lock);
		int jrc = job->state < 0 ? job->state : submit_job(rx, job);
		if (jrc < 0) {
			give_up_job(rx, job);
			if (rc == 0)
				rc = jrc;
		}
		pthread_mutex_lock(&r->lock);
		r->head = job->next;
		if (!r->head)
			r->tail = NULL;
		job_release_locked(r, job);
	}
	pthread_mutex_unlock(&r->lock);
	return rc;
}

int rxvk_recorder_put(struct rxvk *rx, struct part_job *job)
{
	struct recorder *r = rx->recorder;
	if (r->n_threads == 0) {
		int rc = record_job(rx, r->pool, &r->cmds, &r->n_cmds, &r->cap_cmds, job);
		if (rc == 0)
			rc = submit_job(rx, job);
		if (rc < 0)
			give_up_job(rx, job);
		pthread_mutex_lock(&r->lock);
		job_release_locked(r, job);
		pthread_mutex_unlock(&r->lock);
		return rc;
	}
	pthread_mutex_lock(&r->lock);
	if (r->tail)
		r->tail->next = job;
	else
		r->head = job;
	r->tail = job;
	if (!r->todo)
		r->todo = job;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
	return drain(rx, false);
}

int rxvk_recorder_drain(struct rxvk *rx)
{
	return rx->recorder->n_threads ? drain(rx, true) : 0;
}

int rxvk_recorder_init(struct rxvk *rx)
{
	struct recorder *r = calloc(1, sizeof *r);
	if (!r)
		return -ENOMEM;
	rx->recorder = r;
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->cond, NULL);
	VkCommandPoolCreateInfo rpci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
	                                 .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
	                                 .queueFamilyIndex = rx->queue_family };
	int prc = vk_check(rx, vkCreateCommandPool(rx->device, &rpci, NULL, &r->pool));
	if (prc < 0)
		return prc;
	unsigned n = rx->set.cfg.parallel;
	if (n < 2)
		return 0;
	r->threads = calloc(n, sizeof *r->threads);
	if (!r->threads)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		VkCommandPoolCreateInfo pci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		                                .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
		                                .queueFamilyIndex = rx->queue_family };
		int rc = vk_check(rx, vkCreateCommandPool(rx->device, &pci, NULL, &r->threads[i].pool));
		if (rc < 0)
			return rc;
	}
	/* threads start only once every slot is set, so each finds its own */
	pthread_mutex_lock(&r->lock);
	r->n_threads = n;
	for (unsigned i = 0; i < n; i++)
		r->threads[i].started = pthread_create(&r->threads[i].thread, NULL, recorder_main, rx) == 0;
	pthread_mutex_unlock(&r->lock);
	for (unsigned i = 0; i < n; i++)
		if (!r->threads[i].started)
			return -EAGAIN;
	rxvk_log(rx, "recording parts on %u threads", n);
	return 0;
}

void rxvk_recorder_finish(struct rxvk *rx)
{
	struct recorder *r = rx->recorder;
	if (!r)
		return;
	if (r->threads) {
		pthread_mutex_lock(&r->lock);
		r->stop = true;
		pthread_cond_broadcast(&r->cond);
		pthread_mutex_unlock(&r->lock);
		for (unsigned i = 0; i < r->n_threads; i++)
			if (r->threads[i].started)
				pthread_join(r->threads[i].thread, NULL);
		for (unsigned i = 0; i < r->n_threads; i++) {
			if (r->threads[i].pool && rx->device)
				vkDestroyCommandPool(rx->device, r->threads[i].pool, NULL);
			free(r->threads[i].cmds);
		}
		free(r->threads);
		r->threads = NULL;
	}
	while (r->free_jobs) {
		struct part_job *j = r->free_jobs;
		r->free_jobs = j->next;
		cl_free(&j->cl);
		free(j->writes.v);
		free(j->reads.v);
		free(j->dirty_undo);
		free(j->blocks_undo);
		free(j);
	}
	if (r->pool && rx->device)
		vkDestroyCommandPool(rx->device, r->pool, NULL);
	free(r->cmds);
	pthread_cond_destroy(&r->cond);
	pthread_mutex_destroy(&r->lock);
	free(r);
	rx->recorder = NULL;
}
