/* replay: ops to parts (replay.c).  The render targets and the submission
 * being recorded are its own (struct replay, opaque) */
#ifndef RXVK_REPLAY_H
#define RXVK_REPLAY_H

struct rxvk;

int rxvk_replay_init(struct rxvk *rx);
void rxvk_replay_finish(struct rxvk *rx);

/* Colour targets over pages the CPU wrote since the last capture
 * (rx->cpu_dirty) are reloaded before they are drawn into again.  The
 * capture calls it under rx->lock before clearing the bits; render thread. */
void rxvk_replay_cpu_wrote_locked(struct rxvk *rx);

#endif
