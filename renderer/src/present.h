/* present: the presenter thread and frame log (present.c) and an attached
 * window (window.c) */
#ifndef RXVK_PRESENT_H
#define RXVK_PRESENT_H

#include "rxvk.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <volk.h>

struct rxvk;

#define PRESENT_SLOTS 4u

struct present_slot {
	VkBuffer buffer;
	VkDeviceMemory memory;
	void *mapped;
	uint64_t size_B;
	bool busy;
};

struct present_item {
	uint64_t frame;
	uint64_t value;       /* timeline value after which the frame is done */
	bool shown;
	uint64_t draws;
	uint64_t rb_wait_ns;
	uint64_t memsync_ns;
	int slot;             /* present slot with pixels, -1 if none */
	uint32_t width, height;
	enum rxvk_format format;
};

/* The frame log's rows between writes (present.c).  A row reaches the file
 * at once when the file was last written ROWLOG_FLUSH_NS or more before it; else
 * it is kept until a call finds that so (the presenter calls at every
 * frame, every 250 ms while it waits for one and after a second idle).
 * Only a write moves written_ns: a row that comes after a second with
 * nothing written (a stalled GPU, a starved game) is written at once, so
 * a reader that saw the file unchanged for over a second knows that no
 * frame came in the last second of that time.  The clock is the caller's
 * (CLOCK_MONOTONIC in the renderer, a test's own in tests). */
#define ROWLOG_FLUSH_NS 1000000000ull
struct rowlog {
	FILE *f;
	char *rows;                  /* rows not yet written */
	size_t len, cap;
	uint64_t written_ns;         /* the last write, or the log's start */
};

/* Keeps a row of n bytes (dropped when out of memory). */
void rxvk_rowlog_add(struct rowlog *l, const char *row, size_t n);
/* Writes the kept rows if any and the last write was ROWLOG_FLUSH_NS or
 * more before now (or `force`); true when it wrote. */
bool rxvk_rowlog_due(struct rowlog *l, uint64_t now_ns, bool force);

struct presenter {
	pthread_t thread;
	bool running;
	bool stop;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct present_item *queue;
	size_t head, tail, cap;      /* ring of present_items */
	struct present_slot slots[PRESENT_SLOTS];
	unsigned next_slot;
	struct rowlog log;           /* the frame log (RX_FRAME_LOG); log.f NULL: none */
	uint64_t prev_real_ns, prev_any_ns;
	rxvk_present_fn fn;
	void *user;
	bool want_pixels;
	bool pixels_once;
	struct window *window;       /* window.c's, or NULL: set under lock, read atomically */
	uint64_t luma_prev2, luma_prev1; /* flash detector: two frames back, one back */
	uint64_t frame_prev1;
	bool have_prev1, have_prev2;
};

int rxvk_present_init(struct rxvk *rx);
void rxvk_present_finish(struct rxvk *rx);
int rxvk_present_slot_acquire(struct rxvk *rx, uint32_t width, uint32_t height);
void rxvk_present_push(struct rxvk *rx, const struct present_item *item);
bool rxvk_present_wants_pixels(struct rxvk *rx);

/* window.c: rxvk_window_attach_xcb's window.  rxvk_window_show() shows one
 * frame's pixels (tightly packed, `format` order); presenter thread only.
 * rxvk_window_finish() releases it, after the presenter thread ended. */
struct window;
void rxvk_window_show(struct rxvk *rx, struct window *w, const uint8_t *pixels, uint32_t width,
                      uint32_t height, enum rxvk_format format);
void rxvk_window_finish(struct rxvk *rx);
#endif
