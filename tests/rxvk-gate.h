/* rxvk-gate: work that is provably still pending when a test's read looks.
 * A test that checks what a read does while its writer (or the rest of its
 * writer's submission) still runs must not rely on that work being slow:
 * on a busy machine, or a fast GPU, it finishes first.  Instead the queue
 * is stopped at a gate, a wait for an event only the host sets (private.h's
 * test hooks: vkCmdWaitEvents recorded before op N of the next submission).
 * Two gates: the first, placed before the writer a read depends on, is
 * opened by that read as it starts to wait (with at_wait: the read has
 * decided already, while its writer was still pending); the second, the
 * hold, placed after the writer, only the test opens, after checking that
 * the read was released while the rest had not run.  Header only; include
 * it after rxvk-test.h and private.h. */
#ifndef RXVK_GATE_H
#define RXVK_GATE_H

#include <stdbool.h>
#include <stdint.h>

static inline void rxt_gate_set_(struct rxvk *rx, int g, uint32_t before_op)
{
	if (!rx->test.gate_event[g]) {
		VkEventCreateInfo ci = { .sType = VK_STRUCTURE_TYPE_EVENT_CREATE_INFO };
		assert_int_equal(vkCreateEvent(rx->device, &ci, NULL, &rx->test.gate_event[g]), VK_SUCCESS);
	} else {
		assert_int_equal(vkResetEvent(rx->device, rx->test.gate_event[g]), VK_SUCCESS);
	}
	rx->test.gate_op[g] = before_op + 1;
}

/* The next submission waits before its op index `before_op` at the first
 * gate; with at_wait the first read that waits opens it. */
static inline void rxt_gate_arm(struct rxvk *rx, uint32_t before_op, bool at_wait)
{
	rxt_gate_set_(rx, 0, before_op);
	rx->test.gate_at_wait = at_wait;
}

/* The next submission waits before its op index `before_op` at the hold,
 * which only rxt_gate_open() opens. */
static inline void rxt_gate_hold(struct rxvk *rx, uint32_t before_op)
{
	rxt_gate_set_(rx, 1, before_op);
}

/* The gated submission is submitted: later ones get no gate. */
static inline void rxt_gate_submitted(struct rxvk *rx)
{
	rx->test.gate_op[0] = rx->test.gate_op[1] = 0;
}

/* Opens both gates: the queue goes on (any thread may; a submission
 * still being recorded records its gates, open). */
static inline void rxt_gate_open(struct rxvk *rx)
{
	for (int g = 0; g < 2; g++)
		if (rx->test.gate_event[g])
			assert_int_equal(vkSetEvent(rx->device, rx->test.gate_event[g]), VK_SUCCESS);
}

/* Whether the first gate is open (the read that was to open it did). */
static inline bool rxt_gate_is_open(struct rxvk *rx)
{
	return rx->test.gate_event[0] &&
	       vkGetEventStatus(rx->device, rx->test.gate_event[0]) == VK_EVENT_SET;
}

/* Before rxt_destroy(): the gates opened, the queue idle, the events gone. */
static inline void rxt_gate_destroy(struct rxvk *rx)
{
	if (!rx->test.gate_event[0] && !rx->test.gate_event[1])
		return;
	rxt_gate_open(rx);
	rxt_gate_submitted(rx);
	rx->test.gate_at_wait = false;
	assert_int_equal(rxvk_finish(rx), 0);
	for (int g = 0; g < 2; g++) {
		if (rx->test.gate_event[g])
			vkDestroyEvent(rx->device, rx->test.gate_event[g], NULL);
		rx->test.gate_event[g] = VK_NULL_HANDLE;
	}
}

/* rxt_gate_destroy(), then rxt_destroy(). */
static inline void rxt_destroy_gated(struct rxvk *rx)
{
	rxt_gate_destroy(rx);
	rxt_destroy(rx);
}

#endif
