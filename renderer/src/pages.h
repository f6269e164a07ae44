/* pages: what the page tables hold and readback.c's functions over them.
 * A part's writes and reads are published at its submit; a read decides
 * what to wait for from them (the readback policy); the CPU's writes are
 * captured before each submission.  The early table and the writers'
 * diagnostics are readback.c's own (struct readback, opaque).  Every
 * `_locked` function runs under rx->lock */
#ifndef RXVK_PAGES_H
#define RXVK_PAGES_H

#include "rxvk.h"

#include <stdbool.h>
#include <stdint.h>
#include <volk.h>

struct rxvk;
struct cmdlist;
struct part_job;

/* A submission's span on the timeline, closed on every path that finishes
 * its recording (a burst's end included). */
struct sub_info {
	uint64_t id;          /* submission number, 0 = slot empty */
	uint64_t first_value;
	uint64_t last_value;  /* 0 while the submission is still recording */
	uint32_t ops;         /* its total work: ops recorded */
	uint32_t n_ops;       /* ops handed over */
};

/* One GPU write a part made, published to the page tables at its submit. */
struct write_note {
	uint64_t addr, size_B;
	bool in_place;         /* guest memory directly, not the mirror */
	uint32_t kind;         /* enum rxvk_op_kind; 0 for a target write-back */
	uint32_t op_index;     /* in its submission */
	uint64_t program;
	uint64_t marker;       /* RX_VK_READBACK_EARLY=marker: the marker after it, 0 if none */
};

/* Who wrote a page, for RX_VK_LOG_RB_WRITERS. */
struct page_writer_info {
	uint64_t sub;
	uint64_t part;
	uint64_t program;
	uint32_t kind;
	uint32_t op_index;
};

void rxvk_publish(struct rxvk *rx, struct part_job *job);
bool rxvk_early_writes_tracked_bytes(struct rxvk *rx, const struct rxvk_range *w);

/* RX_VK_READBACK_EARLY=marker is in effect: a marker follows each tracked
 * writer (rxvk_early_writes_tracked_bytes), and no part ends for it. */
bool rxvk_early_marks(struct rxvk *rx);

/* Ranges the early policy tracks at most. */
#define RXVK_EARLY_RANGES 64u

/* With `marker` in mirrored memory: the pages of [addr, addr + size_B) a
 * tracked range reaches, as page-aligned spans (at most one a tracked
 * range, unsorted, possibly overlapping), whose write-back goes before the
 * writer's marker.  Returns how many; render thread. */
size_t rxvk_early_tracked_pages(struct rxvk *rx, uint64_t addr, uint64_t size_B,
                                struct rxvk_range out[RXVK_EARLY_RANGES]);

/* The timeline value that must be done before the next marker's event can
 * be reused (0 if it is free).  Render thread. */
uint64_t rxvk_marker_busy_value(struct rxvk *rx);

/* Hands out the next marker for part part_value: its event (reset) and its
 * number, which the writes before it carry (write_note.marker).  The
 * caller waited for rxvk_marker_busy_value() first.  Render thread. */
int rxvk_marker_take(struct rxvk *rx, uint64_t part_value, VkEvent *out_event, uint64_t *out_seq);
int rxvk_readback_init(struct rxvk *rx);
void rxvk_readback_finish(struct rxvk *rx);
/* Makes the CPU's writes visible to the GPU at the head of the part `job`
 * (the first of submission `sub`), and keeps what it changed in the job. */
int rxvk_capture(struct rxvk *rx, struct part_job *job, uint64_t sub);
/* The job's commands never ran: the CPU-dirty bits its capture cleared are
 * set again and the mirror blocks it activated go back to pending. */
void rxvk_capture_undo(struct rxvk *rx, struct part_job *job);
uint64_t rxvk_sub_last_value_locked(struct rxvk *rx, uint64_t sub);

#endif
