/* present: offscreen presentation.  Each FLIP queues an item; the presenter
 * thread waits for the flip's part on the timeline, stamps present_ns
 * (CLOCK_MONOTONIC), appends the frame-log row, runs the flash detector,
 * hands the frame (with its pixels, when asked) to the game's callback and,
 * with a window attached, has window.c show it.
 * The render thread never blocks on the frame log: rows are kept and
 * written by this thread, at once after a second with nothing written,
 * else within about a second (struct rowlog, present.h). */
#include "private.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define FLASH_JUMP 48 /* mean luma (0..255) jump against both neighbours */

static int slot_make(struct rxvk *rx, struct present_slot *s, uint64_t size_B)
{
	VkBufferCreateInfo bci = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
	                           .size = size_B,
	                           .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT,
	                           .sharingMode = VK_SHARING_MODE_EXCLUSIVE };
	int rc = vk_check(rx, vkCreateBuffer(rx->device, &bci, NULL, &s->buffer));
	if (rc < 0)
		return rc;
	VkMemoryRequirements mr;
	vkGetBufferMemoryRequirements(rx->device, s->buffer, &mr);
	uint32_t type;
	if (rxvk_find_cpu_read_type(rx, mr.memoryTypeBits, "present read-back", &type) < 0)
		return -ENODEV;
	VkMemoryAllocateInfo mai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
	                             .allocationSize = mr.size,
	                             .memoryTypeIndex = type };
	if ((rc = vk_check(rx, vkAllocateMemory(rx->device, &mai, NULL, &s->memory))) < 0 ||
	    (rc = vk_check(rx, vkBindBufferMemory(rx->device, s->buffer, s->memory, 0))) < 0 ||
	    (rc = vk_check(rx, vkMapMemory(rx->device, s->memory, 0, VK_WHOLE_SIZE, 0, &s->mapped))) < 0)
		return rc;
	s->size_B = size_B;
	return 0;
}

static void slot_free(struct rxvk *rx, struct present_slot *s)
{
	if (s->buffer)
		vkDestroyBuffer(rx->device, s->buffer, NULL);
	if (s->memory)
		vkFreeMemory(rx->device, s->memory, NULL);
	s->buffer = VK_NULL_HANDLE;
	s->memory = VK_NULL_HANDLE;
	s->mapped = NULL;
	s->size_B = 0;
}

bool rxvk_present_wants_pixels(struct rxvk *rx)
{
	struct presenter *p = &rx->present;
	pthread_mutex_lock(&p->lock);
	bool want = p->want_pixels || p->pixels_once || rx->set.cfg.flash == RXVK_SWITCH_ON || p->window;
	p->pixels_once = false;
	pthread_mutex_unlock(&p->lock);
	return want;
}

/* A slot for the next frame's pixels: waits while all are in use. */
int rxvk_present_slot_acquire(struct rxvk *rx, uint32_t width, uint32_t height)
{
	struct presenter *p = &rx->present;
	uint64_t size_B = (uint64_t)width * height * 4;
	pthread_mutex_lock(&p->lock);
	struct present_slot *s = &p->slots[p->next_slot];
	while (s->busy && p->running)
		pthread_cond_wait(&p->cond, &p->lock);
	int idx = (int)p->next_slot;
	p->next_slot = (p->next_slot + 1) % PRESENT_SLOTS;
	s->busy = true;
	pthread_mutex_unlock(&p->lock);
	if (s->size_B < size_B) {
		slot_free(rx, s);
		if (slot_make(rx, s, size_B) < 0) {
			slot_free(rx, s);
			pthread_mutex_lock(&p->lock);
			s->busy = false;
			pthread_mutex_unlock(&p->lock);
			return -1;
		}
	}
	return idx;
}

void rxvk_present_push(struct rxvk *rx, const struct present_item *item)
{
	struct presenter *p = &rx->present;
	pthread_mutex_lock(&p->lock);
	if ((p->tail + 1) % p->cap == p->head) {
		size_t cap = p->cap * 2;
		struct present_item *q = malloc(cap * sizeof *q);
		if (q) {
			size_t n = 0;
			for (size_t i = p->head; i != p->tail; i = (i + 1) % p->cap)
				q[n++] = p->queue[i];
			free(p->queue);
			p->queue = q;
			p->cap = cap;
			p->head = 0;
			p->tail = n;
		}
	}
	if ((p->tail + 1) % p->cap != p->head) {
		p->queue[p->tail] = *item;
		p->tail = (p->tail + 1) % p->cap;
	}
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

void rxvk_rowlog_add(struct rowlog *l, const char *row, size_t n)
{
	if (l->len + n > l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 65536;
		while (cap < l->len + n)
			cap *= 2;
		char *r = realloc(l->rows, cap);
		if (!r)
			return;
		l->rows = r;
		l->cap = cap;
	}
	memcpy(l->rows + l->len, row, n);
	l->len += n;
}

bool rxvk_rowlog_due(struct rowlog *l, uint64_t now_ns, bool force)
{
	if (!l->f || !l->len || (!force && now_ns - l->written_ns < ROWLOG_FLUSH_NS))
		return false;
	fwrite(l->rows, 1, l->len, l->f);
	fflush(l->f);
	l->len = 0;
	l->written_ns = now_ns;
	return true;
}

/* The frame log's rows written when due (rxvk_rowlog_due); the time it
 * took counts as the frame log's (counter frame_log_ns). */
static void rows_flush(struct rxvk *rx, bool force)
{
	uint64_t t0 = rxvk_now_ns();
	if (rxvk_rowlog_due(&rx->present.log, t0, force))
		CNT_ADD(rx, frame_log_ns, rxvk_now_ns() - t0);
}

static uint64_t mean_luma(const uint8_t *px, uint32_t w, uint32_t h, enum rxvk_format f)
{
	uint64_t sum = 0;
	int r = f == RXVK_FORMAT_BGRA8 ? 2 : 0, b = f == RXVK_FORMAT_BGRA8 ? 0 : 2;
	for (uint64_t i = 0; i < (uint64_t)w * h; i++)
		sum += (uint64_t)(54 * px[i * 4 + r] + 183 * px[i * 4 + 1] + 19 * px[i * 4 + b]) >> 8;
	return w && h ? sum / ((uint64_t)w * h) : 0;
}

static void flash_check(struct rxvk *rx, uint64_t frame, uint64_t luma)
{
	struct presenter *p = &rx->present;
	if (p->have_prev2 && p->have_prev1) {
		int64_t a = (int64_t)p->luma_prev2, b = (int64_t)p->luma_prev1, c = (int64_t)luma;
		if ((b - a >= FLASH_JUMP && b - c >= FLASH_JUMP) || (a - b >= FLASH_JUMP && c - b >= FLASH_JUMP))
			rxvk_log(rx, "flash: frame %" PRIu64 " luma %" PRId64 " -> %" PRId64 " -> %" PRId64,
			         p->frame_prev1, a, b, c);
	}
	p->luma_prev2 = p->luma_prev1;
	p->have_prev2 = p->have_prev1;
	p->luma_prev1 = luma;
	p->frame_prev1 = frame;
	p->have_prev1 = true;
}

static void present_one(struct rxvk *rx, struct present_item *it)
{
	struct presenter *p = &rx->present;
	uint64_t now = rxvk_now_ns();
	double frame_ms = 0;
	if (it->shown) {
		frame_ms = p->prev_any_ns ? (double)(now - p->prev_any_ns) / 1e6 : 0;
	} else {
		frame_ms = p->prev_real_ns ? (double)(now - p->prev_real_ns) / 1e6 : 0;
		p->prev_real_ns = now;
	}
	p->prev_any_ns = now;
	if (p->log.f) {
		char row[256];
		int n = snprintf(row, sizeof row, "%" PRIu64 ",%" PRIu64 ",%s,%.3f,%" PRIu64 ",%.3f,%.3f\n",
		                 it->frame, now, it->shown ? "shown" : "real", frame_ms, it->draws,
		                 (double)it->rb_wait_ns / 1e6, (double)it->memsync_ns / 1e6);
		if (n > 0)
			rxvk_rowlog_add(&p->log, row, (size_t)n);
		CNT_ADD(rx, frame_log_rows, 1);
		CNT_ADD(rx, frame_log_ns, rxvk_now_ns() - now);
		rows_flush(rx, false);
	}
	const uint8_t *pixels = NULL;
	if (it->slot >= 0)
		pixels = p->slots[it->slot].mapped;
	if (pixels && rx->set.cfg.flash == RXVK_SWITCH_ON)
		flash_check(rx, it->frame, mean_luma(pixels, it->width, it->height, it->format));
	if (p->fn) {
		struct rxvk_frame f = { .frame = it->frame,
		                        .present_ns = now,
		                        .shown = it->shown,
		                        .width = it->width,
		                        .height = it->height,
		                        .format = it->format,
		                        .pixels = pixels };
		p->fn(p->user, &f);
	}
	if (it->slot >= 0) {
		struct window *w = __atomic_load_n(&p->window, __ATOMIC_ACQUIRE);
		if (w)
			rxvk_window_show(rx, w, pixels, it->width, it->height, it->format);
		pthread_mutex_lock(&p->lock);
		p->slots[it->slot].busy = false;
		pthread_cond_broadcast(&p->cond);
		pthread_mutex_unlock(&p->lock);
	}
}

static void *presenter_main(void *arg)
{
	struct rxvk *rx = arg;
	struct presenter *p = &rx->present;
	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (p->head == p->tail && !p->stop) {
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += 1;
			pthread_cond_timedwait(&p->cond, &p->lock, &ts);
			if (p->head == p->tail && p->log.len) {
				pthread_mutex_unlock(&p->lock);
				rows_flush(rx, true); /* a second idle: whatever is kept */
				pthread_mutex_lock(&p->lock);
			}
		}
		if (p->head == p->tail && p->stop)
			break;
		struct present_item it = p->queue[p->head];
		pthread_mutex_unlock(&p->lock);
		/* wait in slices so a flush happens at least once a second */
		for (;;) {
			VkSemaphoreWaitInfo wi = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
			                           .semaphoreCount = 1,
			                           .pSemaphores = &rx->timeline,
			                           .pValues = &it.value };
			VkResult r = vkWaitSemaphores(rx->device, &wi, 250000000ull);
			if (r == VK_SUCCESS)
				break;
			if (r != VK_TIMEOUT) {
				rxvk_vk_check(rx, r, "vkWaitSemaphores", __FILE__, __LINE__);
				break;
			}
			rows_flush(rx, false);
		}
		present_one(rx, &it);
		pthread_mutex_lock(&p->lock);
		p->head = (p->head + 1) % p->cap;
		pthread_cond_broadcast(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
	rows_flush(rx, true);
	return NULL;
}

int rxvk_present_init(struct rxvk *rx)
{
	struct presenter *p = &rx->present;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	p->cap = 64;
	p->queue = calloc(p->cap, sizeof *p->queue);
	if (!p->queue)
		return -ENOMEM;
	const char *path = rx->set.cfg.frame_log_path;
	if (path) {
		p->log.f = fopen(path, "w");
		if (!p->log.f) {
			rxvk_set_error("cannot open frame log '%s': %s", path, strerror(errno));
			rxvk_log(rx, "error: %s", rxvk_last_error());
			return -errno;
		}
		fputs("frame,present_ns,kind,frame_ms,draws,rb_wait_ms,memsync_ms\n", p->log.f);
		fflush(p->log.f);
	}
	p->log.written_ns = rxvk_now_ns();
	if (pthread_create(&p->thread, NULL, presenter_main, rx) != 0)
		return -EAGAIN;
	p->running = true;
	return 0;
}

void rxvk_present_finish(struct rxvk *rx)
{
	struct presenter *p = &rx->present;
	if (p->running) {
		pthread_mutex_lock(&p->lock);
		p->stop = true;
		pthread_cond_broadcast(&p->cond);
		pthread_mutex_unlock(&p->lock);
		pthread_join(p->thread, NULL);
		p->running = false;
		if (p->log.f) {
			uint64_t rows = __atomic_load_n(&rx->counters.frame_log_rows, __ATOMIC_RELAXED);
			uint64_t ns = __atomic_load_n(&rx->counters.frame_log_ns, __ATOMIC_RELAXED);
			rxvk_log(rx, "frame log: %llu rows, %.2f us a row formatting and writing",
			         (unsigned long long)rows, rows ? (double)ns / 1e3 / (double)rows : 0.0);
		}
	}
	if (rx->device)
		for (unsigned i = 0; i < PRESENT_SLOTS; i++)
			slot_free(rx, &p->slots[i]);
	if (p->log.f)
		fclose(p->log.f);
	p->log.f = NULL;
	free(p->queue);
	free(p->log.rows);
	p->queue = NULL;
	p->log.rows = NULL;
}

void rxvk_set_present_callback(struct rxvk *rx, rxvk_present_fn fn, void *user, bool want_pixels)
{
	struct presenter *p = &rx->present;
	pthread_mutex_lock(&p->lock);
	p->fn = fn;
	p->user = user;
	p->want_pixels = want_pixels;
	pthread_mutex_unlock(&p->lock);
}

void rxvk_request_pixels(struct rxvk *rx)
{
	struct presenter *p = &rx->present;
	pthread_mutex_lock(&p->lock);
	p->pixels_once = true;
	pthread_mutex_unlock(&p->lock);
}
