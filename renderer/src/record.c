/* record: turns finished parts (command lists) into Vulkan command buffers
 * and submits them, each signalling its timeline value, strictly in
 * timeline order; then publishes what each wrote to the page tables.
 *
 * With RX_VK_PARALLEL=1 a part is recorded and submitted on the render
 * thread as soon as it ends.  With RX_VK_PARALLEL=N (by default a quarter of
 * the CPUs, 1 to 4), N threads record parts (each into its own chunk of
 * command buffers, taken from one ready list) while the render thread goes
 * on deciding the next ones.  A part is
 * submitted as soon as it and every part before it are recorded, by the
 * recording thread that finished the last of them: a part that ends early
 * for a read (RX_VK_READBACK_EARLY=1) reaches the GPU without waiting for
 * the next one to end, and the render thread pays no vkQueueSubmit for it.
 * A part whose recording or submit failed is given up on the render thread
 * (its undo touches the render thread's state).  At the end of a submission
 * the render thread records and submits, itself, any part no thread has
 * taken yet rather than wait for one to wake.  The lists are the same
 * either way, so are the results. */
#include "private.h"
#include "irq.h"
#include "recorder.h"
#include "replay.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Command buffers come in chunks, one pool a chunk, the way a command list
 * is recycled in DXVK.  A thread that records holds one chunk and takes its
 * command buffers in timeline order with an index step.  A used-up chunk
 * goes to the recycler thread, which waits until the timeline has passed
 * the newest value its command buffers signal, makes all of them new again
 * with one vkResetCommandPool and puts the chunk on one list of ready chunks
 * that every thread takes from.  Whenever fewer than `reserve` chunks are
 * ready, the recycler makes new ones there, ahead of need, so the thread
 * that records swaps a used-up chunk for a ready one under one lock, and
 * makes a pool itself only when none is ready (counted:
 * part_cmd_pools_inline).  A ring of chunks a thread, each thread making a
 * pool whenever its own next chunk was not reset yet, made twice the pools
 * with two threads as with one, and making them was most of what taking a
 * command buffer cost on a thread (docs/performance.md). */
#define CHUNK_CMDS 32

struct cmd_chunk {
	VkCommandPool pool;    /* owned by whoever holds the chunk */
	VkCommandBuffer cmd[CHUNK_CMDS];
	unsigned used;         /* handed out since the pool was last reset */
	uint64_t last;         /* the newest value one of them signals */
	struct cmd_chunk *next;  /* on the pending or the ready list */
	struct cmd_chunk *all;   /* every chunk made, for freeing */
};

struct recorder_thread {
	pthread_t thread;
	struct cmd_chunk *cur; /* the chunk it takes command buffers from */
	bool started;
};

/* Records parts into command buffers: inline when RX_VK_PARALLEL=1, on
 * RX_VK_PARALLEL threads otherwise; submits them in timeline order. */
struct recorder {
	struct cmd_chunk *cur;          /* the render thread's chunk */
	/* every part's closing commands (the barrier after its work and the
	 * host barrier), recorded once and submitted after each part */
	VkCommandPool close_pool;
	VkCommandBuffer close;
	unsigned n_threads;
	struct recorder_thread *threads;
	pthread_mutex_t lock;
	pthread_cond_t work;             /* recording threads wait here for a job */
	pthread_cond_t done;             /* the render thread waits here in drain() */
	struct part_job *head, *tail;   /* handed over, not yet given back, in this order */
	struct part_job *todo;          /* next job no thread has taken */
	struct part_job *to_submit;     /* next job to submit: every one before it is submitted */
	bool submitting;                /* a thread is submitting to_submit */
	unsigned sleeping;              /* recording threads waiting on `work` */
	bool render_waits;              /* the render thread waits on `done` */
	struct part_job *free_jobs;
	bool stop;
	/* the recycler: chunks waiting for the timeline, oldest first, and
	 * chunks ready to hand out; all under recycle_lock */
	pthread_t recycler;
	bool recycler_started, recycler_stop;
	pthread_mutex_t recycle_lock;
	pthread_cond_t recycle_cond;
	struct cmd_chunk *pending, *pending_tail;
	struct cmd_chunk *ready;
	unsigned n_ready;
	unsigned reserve;               /* chunks kept ready: two a recording thread and two,
	                                 * one more each time none was ready */
	bool make_failed;               /* the recycler stopped making chunks ahead */
	struct cmd_chunk *all;
};

#define RECYCLE_SLICE_NS 500000ull
#define RESERVE_MAX 32u

/* A new chunk, its pool and command buffers made. */
static int chunk_make(struct rxvk *rx, struct cmd_chunk **out)
{
	struct recorder *r = rx->recorder;
	uint64_t t0 = rxvk_now_ns();
	struct cmd_chunk *ch = calloc(1, sizeof *ch);
	if (!ch)
		return -ENOMEM;
	VkCommandPoolCreateInfo pci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
	                                .flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT,
	                                .queueFamilyIndex = rx->queue_family };
	int rc = vk_check(rx, vkCreateCommandPool(rx->device, &pci, NULL, &ch->pool));
	if (rc == 0) {
		VkCommandBufferAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		                                   .commandPool = ch->pool,
		                                   .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		                                   .commandBufferCount = CHUNK_CMDS };
		if ((rc = vk_check(rx, vkAllocateCommandBuffers(rx->device, &ai, ch->cmd))) < 0)
			vkDestroyCommandPool(rx->device, ch->pool, NULL);
	}
	if (rc < 0) {
		free(ch);
		return rc;
	}
	pthread_mutex_lock(&r->recycle_lock);
	ch->all = r->all;
	r->all = ch;
	pthread_mutex_unlock(&r->recycle_lock);
	CNT_ADD(rx, part_cmd_pools, 1);
	CNT_ADD(rx, part_cmd_pool_make_ns, rxvk_now_ns() - t0);
	*out = ch;
	return 0;
}

/* The recycler: resets used-up chunks once the timeline has passed their
 * newest value, oldest first, and keeps `reserve` chunks ready, making new
 * ones when too few are.  Resetting comes first: it costs a few tens of µs
 * where making a chunk costs half a millisecond on NVIDIA's driver
 * (docs/performance.md), so while parts run it only makes chunks the
 * finished ones cannot supply.  It waits for the timeline in slices, so a
 * shortfall of ready chunks is seen within one. */
static void *recycler_main(void *arg)
{
	struct rxvk *rx = arg;
	struct recorder *r = rx->recorder;
	pthread_mutex_lock(&r->recycle_lock);
	for (;;) {
		if (r->recycler_stop)
			break;
		if (rxvk_irq_watch_due_ns(rx) == 0) { /* RX_VK_OFF_IRQ_CPUS: a look */
			pthread_mutex_unlock(&r->recycle_lock);
			rxvk_irq_watch_look(rx);
			pthread_mutex_lock(&r->recycle_lock);
			continue;
		}
		bool short_of_ready = r->n_ready < r->reserve && !r->make_failed &&
		                      !__atomic_load_n(&rx->test.no_chunks_ahead, __ATOMIC_RELAXED);
		if (r->pending) {
			struct cmd_chunk *c = r->pending;
			pthread_mutex_unlock(&r->recycle_lock);
			VkSemaphoreWaitInfo wi = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
			                           .semaphoreCount = 1,
			                           .pSemaphores = &rx->timeline,
			                           .pValues = &c->last };
			/* short of ready chunks: only a look, then make one */
			uint64_t slice = short_of_ready ? 0 : RECYCLE_SLICE_NS;
			VkResult res = vkWaitSemaphores(rx->device, &wi, slice);
			uint64_t t0 = rxvk_now_ns();
			if (res == VK_SUCCESS && vkResetCommandPool(rx->device, c->pool, 0) == VK_SUCCESS) {
				CNT_ADD(rx, part_cmd_pool_resets, 1);
				CNT_ADD(rx, part_cmd_pool_reset_ns, rxvk_now_ns() - t0);
				pthread_mutex_lock(&r->recycle_lock);
				r->pending = c->next;
				if (!r->pending)
					r->pending_tail = NULL;
				c->used = 0;
				c->next = r->ready;
				r->ready = c;
				r->n_ready++;
				continue;
			}
			/* not yet (or a lost device: the chunk stays pending, unused) */
			pthread_mutex_lock(&r->recycle_lock);
			if (!short_of_ready)
				continue;
		}
		if (short_of_ready) {
			pthread_mutex_unlock(&r->recycle_lock);
			struct cmd_chunk *c;
			int rc = chunk_make(rx, &c);
			pthread_mutex_lock(&r->recycle_lock);
			if (rc < 0) {
				r->make_failed = true; /* the recording path makes its own */
				continue;
			}
			c->next = r->ready;
			r->ready = c;
			r->n_ready++;
			continue;
		}
		/* RX_VK_OFF_IRQ_CPUS: until the next look at the GPU's interrupts,
		 * which the loop's top takes (a look due now: no wait at all) */
		uint64_t due = rxvk_irq_watch_due_ns(rx);
		if (due == UINT64_MAX) {
			pthread_cond_wait(&r->recycle_cond, &r->recycle_lock);
		} else {
			struct timespec until;
			clock_gettime(CLOCK_MONOTONIC, &until);
			uint64_t ns = (uint64_t)until.tv_nsec + due;
			until.tv_sec += (time_t)(ns / 1000000000u);
			until.tv_nsec = (long)(ns % 1000000000u);
			pthread_cond_timedwait(&r->recycle_cond, &r->recycle_lock, &until);
		}
	}
	pthread_mutex_unlock(&r->recycle_lock);
	return NULL;
}

/* A command buffer in the initial state for the part that signals `value`,
 * from the chunk *cur (the calling thread's); a used-up chunk is swapped
 * for a ready one. */
static int cmd_get(struct rxvk *rx, struct cmd_chunk **cur, uint64_t value, VkCommandBuffer *out)
{
	struct recorder *r = rx->recorder;
	struct cmd_chunk *c = *cur;
	if (!c || c->used == CHUNK_CMDS) {
		pthread_mutex_lock(&r->recycle_lock);
		if (c) { /* to the recycler, reset once its parts have run */
			c->next = NULL;
			if (r->pending_tail)
				r->pending_tail->next = c;
			else
				r->pending = c;
			r->pending_tail = c;
		}
		c = r->ready;
		if (c) {
			r->ready = c->next;
			r->n_ready--;
		}
		pthread_cond_signal(&r->recycle_cond);
		pthread_mutex_unlock(&r->recycle_lock);
		*cur = c;
		if (!c) {
			uint64_t t0 = rxvk_now_ns();
			int rc = chunk_make(rx, &c);
			if (rc < 0)
				return rc;
			CNT_ADD(rx, part_cmd_pools_inline, 1);
			CNT_ADD(rx, part_cmd_pool_ns, rxvk_now_ns() - t0);
			*cur = c;
			/* parts came faster than the recycler kept up: keep more ready */
			pthread_mutex_lock(&r->recycle_lock);
			if (r->reserve < RESERVE_MAX)
				r->reserve++;
			pthread_mutex_unlock(&r->recycle_lock);
		}
	}
	c->last = value;
	*out = c->cmd[c->used++];
	return 0;
}

/* After the recycler and the recording threads have stopped and the
 * device is idle. */
static void chunks_free(struct rxvk *rx, struct recorder *r)
{
	while (r->all) {
		struct cmd_chunk *c = r->all;
		r->all = c->all;
		if (rx->device)
			vkDestroyCommandPool(rx->device, c->pool, NULL);
		free(c);
	}
}

static int record_job(struct rxvk *rx, struct cmd_chunk **cur, struct part_job *job)
{
	uint64_t t0 = rxvk_now_ns();
	int rc = cmd_get(rx, cur, job->value, &job->cmd);
	if (rc < 0)
		return rc;
	uint64_t t1 = rxvk_now_ns();
	CNT_ADD(rx, part_cmd_get_ns, t1 - t0);
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
	                                .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT };
	if ((rc = vk_check(rx, vkBeginCommandBuffer(job->cmd, &bi))) < 0)
		return rc;
	uint64_t t2 = rxvk_now_ns();
	if ((rc = cl_play(rx, &job->cl, job->cmd)) < 0)
		return rc;
	CNT_ADD(rx, part_play_ns, rxvk_now_ns() - t2);
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
	                    .commandBufferCount = 2,
	                    .pCommandBuffers = (VkCommandBuffer[2]){ job->cmd, rx->recorder->close },
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

/* Submits, in timeline order, every recorded job from to_submit on, unless
 * another thread is at it; stops at a job that failed (the render thread
 * gives it up, drain()) or is not recorded yet.  Any thread, lock held
 * (dropped around each vkQueueSubmit). */
static void submit_ready_locked(struct rxvk *rx, struct recorder *r)
{
	bool any = false;
	while (!r->submitting && r->to_submit && r->to_submit->state == JOB_RECORDED) {
		struct part_job *job = r->to_submit;
		r->submitting = true;
		pthread_mutex_unlock(&r->lock);
		int rc = submit_job(rx, job);
		pthread_mutex_lock(&r->lock);
		r->submitting = false;
		any = true;
		if (rc < 0) {
			job->state = rc;
			break;
		}
		job->state = JOB_SUBMITTED;
		r->to_submit = job->next;
	}
	if (any && r->render_waits)
		pthread_cond_signal(&r->done);
}

/* Takes the next job no thread has taken.  Lock held. */
static struct part_job *take_locked(struct recorder *r)
{
	struct part_job *job = r->todo;
	if (job)
		r->todo = job->next;
	return job;
}

/* A recording thread: takes jobs in timeline order, records each and
 * submits what is ready.  It sleeps only when no job is left (one is woken
 * per job handed over while some sleep), so in a burst of parts handing one
 * over costs the render thread no wake-up. */
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
		while (!r->todo && !r->stop) {
			r->sleeping++;
			pthread_cond_wait(&r->work, &r->lock);
			r->sleeping--;
		}
		struct part_job *job = take_locked(r);
		if (!job)
			break;
		pthread_mutex_unlock(&r->lock);
		int rc = record_job(rx, &t->cur, job);
		pthread_mutex_lock(&r->lock);
		job->state = rc < 0 ? rc : JOB_RECORDED;
		submit_ready_locked(rx, r);
		if (r->render_waits)
			pthread_cond_signal(&r->done);
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

/* Gives back submitted jobs and gives up failed ones; with `all`, until
 * every job handed over is submitted or given up, recording and submitting
 * itself what no thread has taken.  Without `all` it submits nothing but
 * what a failed job held up (the recording threads submit the rest), so
 * handing over a part costs the render thread no vkQueueSubmit.  Render
 * thread only. */
static int drain(struct rxvk *rx, bool all)
{
	struct recorder *r = rx->recorder;
	int rc = 0;
	bool kick = false;
	pthread_mutex_lock(&r->lock);
	for (;;) {
		if (all || kick)
			submit_ready_locked(rx, r);
		kick = false;
		while (r->head && r->head->state == JOB_SUBMITTED) {
			struct part_job *job = r->head;
			r->head = job->next;
			if (!r->head)
				r->tail = NULL;
			job_release_locked(r, job);
		}
		struct part_job *job = r->head;
		if (!job)
			break;
		if (job == r->to_submit && job->state < 0 && !r->submitting) {
			/* its recording or its submit failed: every part before it
			 * is submitted, none after it */
			pthread_mutex_unlock(&r->lock);
			give_up_job(rx, job);
			pthread_mutex_lock(&r->lock);
			if (rc == 0)
				rc = job->state;
			r->to_submit = job->next;
			r->head = job->next;
			if (!r->head)
				r->tail = NULL;
			job_release_locked(r, job);
			kick = true; /* the parts it held up */
			continue;
		}
		if (!all)
			break;
		struct part_job *mine = take_locked(r);
		if (mine) {
			pthread_mutex_unlock(&r->lock);
			int jrc = record_job(rx, &r->cur, mine);
			pthread_mutex_lock(&r->lock);
			mine->state = jrc < 0 ? jrc : JOB_RECORDED;
			continue;
		}
		r->render_waits = true;
		pthread_cond_wait(&r->done, &r->lock);
		r->render_waits = false;
	}
	pthread_mutex_unlock(&r->lock);
	return rc;
}

int rxvk_recorder_put(struct rxvk *rx, struct part_job *job)
{
	struct recorder *r = rx->recorder;
	if (r->n_threads == 0) {
		int rc = record_job(rx, &r->cur, job);
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
	if (!r->to_submit)
		r->to_submit = job;
	if (!r->todo)
		r->todo = job;
	if (r->sleeping)
		pthread_cond_signal(&r->work);
	pthread_mutex_unlock(&r->lock);
	return drain(rx, false);
}

int rxvk_recorder_drain(struct rxvk *rx)
{
	return rx->recorder->n_threads ? drain(rx, true) : 0;
}

/* Step of rxvk_recorder_init: the closing command buffer, recorded once. */
static int close_record(struct rxvk *rx, struct recorder *r)
{
	VkCommandPoolCreateInfo pci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
	                                .queueFamilyIndex = rx->queue_family };
	int rc = vk_check(rx, vkCreateCommandPool(rx->device, &pci, NULL, &r->close_pool));
	if (rc < 0)
		return rc;
	VkCommandBufferAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
	                                   .commandPool = r->close_pool,
	                                   .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
	                                   .commandBufferCount = 1 };
	if ((rc = vk_check(rx, vkAllocateCommandBuffers(rx->device, &ai, &r->close))) < 0)
		return rc;
	/* pending in many submissions at once */
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
	                                .flags = VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT };
	if ((rc = vk_check(rx, vkBeginCommandBuffer(r->close, &bi))) < 0)
		return rc;
	struct cmdlist cl = { 0 };
	cl_barrier(&cl);      /* the part's work before whatever follows it */
	cl_host_barrier(&cl); /* and before the host reads what it wrote */
	rc = cl_play(rx, &cl, r->close);
	cl_free(&cl);
	if (rc < 0)
		return rc;
	return vk_check(rx, vkEndCommandBuffer(r->close));
}

/* RX_VK_OFF_IRQ_CPUS: every thread to move is started; the recycler,
 * which may already wait with nothing to do, is woken to look. */
static void watch_arm(struct rxvk *rx)
{
	struct recorder *r = rx->recorder;
	rxvk_irq_watch_arm(rx);
	pthread_mutex_lock(&r->recycle_lock);
	pthread_cond_signal(&r->recycle_cond);
	pthread_mutex_unlock(&r->recycle_lock);
}

int rxvk_recorder_init(struct rxvk *rx)
{
	struct recorder *r = calloc(1, sizeof *r);
	if (!r)
		return -ENOMEM;
	rx->recorder = r;
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->work, NULL);
	pthread_cond_init(&r->done, NULL);
	pthread_mutex_init(&r->recycle_lock, NULL);
	pthread_condattr_t ca; /* the recycler's timed waits are on the monotonic clock */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&r->recycle_cond, &ca);
	pthread_condattr_destroy(&ca);
	int crc = close_record(rx, r);
	if (crc < 0)
		return crc;
	unsigned n = rx->set.cfg.parallel;
	r->reserve = 2 * (n < 2 ? 0 : n) + 2;
	/* the first ready chunks, before any part needs one */
	for (unsigned i = 0; i < r->reserve; i++) {
		struct cmd_chunk *c;
		if ((crc = chunk_make(rx, &c)) < 0)
			return crc;
		c->next = r->ready;
		r->ready = c;
		r->n_ready++;
	}
	/* the watch exists before the recycler that looks, and looks only
	 * once every thread it moves is started (rxvk_irq_watch_arm) */
	if ((crc = rxvk_irq_watch_init(rx)) < 0)
		return crc;
	if (pthread_create(&r->recycler, NULL, recycler_main, rx) != 0)
		return -EAGAIN;
	r->recycler_started = true;
	if (n < 2) {
		watch_arm(rx);
		return 0;
	}
	r->threads = calloc(n, sizeof *r->threads);
	if (!r->threads)
		return -ENOMEM;
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
	watch_arm(rx);
	return 0;
}

int rxvk_recorder_set_cpus(struct rxvk *rx, const cpu_set_t *set)
{
	struct recorder *r = rx->recorder;
	int moved = 0, rc = 0;
	if (r->recycler_started) {
		if ((rc = pthread_setaffinity_np(r->recycler, sizeof *set, set)) != 0)
			return -rc;
		moved++;
	}
	for (unsigned i = 0; i < r->n_threads; i++)
		if (r->threads[i].started) {
			if ((rc = pthread_setaffinity_np(r->threads[i].thread, sizeof *set, set)) != 0)
				return -rc;
			moved++;
		}
	return moved;
}

void rxvk_recorder_finish(struct rxvk *rx)
{
	struct recorder *r = rx->recorder;
	if (!r)
		return;
	if (r->recycler_started) {
		pthread_mutex_lock(&r->recycle_lock);
		r->recycler_stop = true;
		pthread_cond_signal(&r->recycle_cond);
		pthread_mutex_unlock(&r->recycle_lock);
		pthread_join(r->recycler, NULL);
	}
	rxvk_irq_watch_free(rx); /* its looker is gone */
	if (r->threads) {
		pthread_mutex_lock(&r->lock);
		r->stop = true;
		pthread_cond_broadcast(&r->work);
		pthread_mutex_unlock(&r->lock);
		for (unsigned i = 0; i < r->n_threads; i++)
			if (r->threads[i].started)
				pthread_join(r->threads[i].thread, NULL);
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
	chunks_free(rx, r);
	if (r->close_pool && rx->device)
		vkDestroyCommandPool(rx->device, r->close_pool, NULL);
	pthread_cond_destroy(&r->work);
	pthread_cond_destroy(&r->done);
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->recycle_cond);
	pthread_mutex_destroy(&r->recycle_lock);
	free(r);
	rx->recorder = NULL;
}
