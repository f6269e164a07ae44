/* hold: render-target frames written back only when read (hold.c).
 * The render thread lets go of a target's frame with rxvk_hold_let_go() and
 * resolves held frames before an op reaches their memory with
 * rxvk_hold_settle(); rxvk_invalidate() carries them out with
 * rxvk_hold_invalidate().  Everything else is hold.c's. */
#ifndef RXVK_HOLD_H
#define RXVK_HOLD_H

#include "rxvk.h"

#include <stdbool.h>
#include <stdint.h>
#include <volk.h>

struct rxvk;
struct cmdlist;

struct hold;

/* A colour target's frame as it lands in guest memory. */
struct hold_frame {
	uint64_t addr, size_B;     /* size_B = pitch_B * (height - 1) + width * 4 */
	uint32_t width, height, pitch_B;
	enum rxvk_format format;   /* RGBA8 or BGRA8: the byte order in memory */
};

int rxvk_hold_init(struct rxvk *rx);
void rxvk_hold_finish(struct rxvk *rx);

/* The pending frame of a target (its image `image`) is let go of by a
 * switch or a flip, in the part of value part_value being recorded into
 * cl.  part_busy: that part already reads or writes the frame's guest
 * pages.  Returns 1 when the frame is held (the copy into its snapshot is
 * recorded in cl, its pages guarded), 0 when the caller must write it back
 * at once (counted), or a negative errno.  Render thread. */
int rxvk_hold_let_go(struct rxvk *rx, struct cmdlist *cl, uint64_t part_value, const struct hold_frame *f,
                     VkImage image, bool part_busy);

/* Before an op of part part_value reads or writes guest bytes [addr,
 * addr + size_B): every held frame it reaches is carried out (waiting for
 * the carry-out thread), or, with drop_covered and the range covering the
 * frame, dropped.  A frame let go of in that same part is resolved in the
 * stream instead: the return is 1 with *out and *out_snapshot set, and the
 * caller records the write of that snapshot to guest memory (before the op)
 * and calls again; 0 once nothing is left; a negative errno.  Render thread. */
int rxvk_hold_settle(struct rxvk *rx, uint64_t part_value, uint64_t addr, uint64_t size_B, bool drop_covered,
                     struct hold_frame *out, VkImage *out_snapshot);

/* Part part_value's commands never ran: the frames held with it filling
 * their snapshots hold nothing.  Their pages are opened and their slots
 * freed; their targets' addresses go to out_addrs (at most max), for replay
 * to let go of those frames again.  A frame already being carried out is
 * left as it is.  Render thread, before the part's value is signalled. */
size_t rxvk_hold_part_failed(struct rxvk *rx, uint64_t part_value, uint64_t *out_addrs, size_t max);

/* Carries out every held frame overlapping [addr, addr + size_B) and waits
 * for it.  Any thread but the carry-out thread. */
void rxvk_hold_invalidate(struct rxvk *rx, uint64_t addr, uint64_t size_B);

/* A real frame was flipped (render thread): the first one starts the span
 * the exit summary's shares of frame time are taken over. */
void rxvk_hold_frame_presented(struct rxvk *rx);

/* Puts the guard handler back in front of whatever SIGSEGV handler is in
 * place now, which then gets every fault that is not a guard's (for code
 * that replaces handlers after the renderer was created, such as a test
 * runner).  Not while a fault is being handled.  0 or a negative errno. */
int rxvk_hold_handler_install(void);

#endif
