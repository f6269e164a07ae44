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
int rxvk_readback_init(struct rxvk *rx);
void rxvk_readback_finish(struct rxvk *rx);
int rxvk_capture(struct rxvk *rx, struct cmdlist *cl, uint64_t sub);
uint64_t rxvk_sub_last_value_locked(struct rxvk *rx, uint64_t sub);

#endif
