/* replay: ops to parts (replay.c).  The render targets and the submission
 * being recorded are its own (struct replay, opaque) */
#ifndef RXVK_REPLAY_H
#define RXVK_REPLAY_H

struct rxvk;

int rxvk_replay_init(struct rxvk *rx);
void rxvk_replay_finish(struct rxvk *rx);

#endif
