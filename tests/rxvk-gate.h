/* rxvk-gate: work that is provably still pending when a test's read looks.
 * A test that checks what a read does while its writer (or the rest of its
 * writer's submission) still runs must not rely on that work being slow:
 * on a busy machine, or a fast GPU, it finishes first.  Instead the queue
 * is stopped at a gate, a wait for an event only the host sets (private.h's
 * test hooks: vkCmdWaitEvents recorded before op N of the next submission).
 * Three gates.  Gate 0, placed before the writer a read depends on, is
 * opened by that read as it starts to wait (at_wait: the read has decided
 * already, while its writer was still pending).  Gates 1 and 2, holds
 * placed after it, only the test opens (or, once it asks, the next read
 * that waits), after checking that the read was released while the rest
 * had not run.  Header only; include it after rxvk-test.h and private.h. */
#ifndef RXVK_GATE_H
#define RXVK_GATE_H

#include <stdbool.h>
#include <stdint.h>

#define RXT_GATES 3
#define RXT_GATE_NOWHERE (UINT32_MAX - 1) /* a gate recorded nowhere: its event a signal */

/* Gate g: the next submission waits there before its op index before_op;
 * with at_wait the first read that waits opens it. */
static inline void rxt_gate_at(struct rxvk *rx, int g, uint32_t before_op, bool at_wait)
{
	if (!rx->test.gate_event[g]) {
		VkEventCreateInfo ci = { .sType = VK_STRUCTURE_TYPE_EVENT_CREATE_INFO };
		assert_int_equal(vkCreateEvent(rx->device, &ci, NULL, &rx->test.gate_event[g]), VK_SUCCESS);
	} else {
		assert_int_equal(vkResetEvent(rx->device, rx->test.gate_event[g]), VK_SUCCESS);
	}
	rx->test.gate_op[g] = before_op + 1;
	if (at_wait)
		__atomic_fetch_or(&rx->test.gate_at_wait, 1u << g, __ATOMIC_RELEASE);
	else
		__atomic_fetch_and(&rx->test.gate_at_wait, ~(1u << g), __ATOMIC_RELEASE);
}

/* Gate 0 before op index before_op; with at_wait the first read that waits
 * opens it. */
static inline void rxt_gate_arm(struct rxvk *rx, uint32_t before_op, bool at_wait)
{
	rxt_gate_at(rx, 0, before_op, at_wait);
}

/* Gate 1, the hold, before op index before_op: only rxt_gate_open()
 * opens it. */
static inline void rxt_gate_hold(struct rxvk *rx, uint32_t before_op)
{
	rxt_gate_at(rx, 1, before_op, false);
}

/* From now on the next read that waits opens gate g too. */
static inline void rxt_gate_open_at_wait(struct rxvk *rx, int g)
{
	__atomic_fetch_or(&rx->test.gate_at_wait, 1u << g, __ATOMIC_RELEASE);
}

/* The gated submission is submitted: later ones get no gate. */
static inline void rxt_gate_submitted(struct rxvk *rx)
{
	for (int g = 0; g < RXT_GATES; g++)
		rx->test.gate_op[g] = 0;
}

/* Opens gate g (any thread may; a submission still being recorded
 * records it, open). */
static inline void rxt_gate_open_one(struct rxvk *rx, int g)
{
	if (rx->test.gate_event[g])
		assert_int_equal(vkSetEvent(rx->device, rx->test.gate_event[g]), VK_SUCCESS);
}

/* Opens every gate: the queue goes on. */
static inline void rxt_gate_open(struct rxvk *rx)
{
	for (int g = 0; g < RXT_GATES; g++)
		rxt_gate_open_one(rx, g);
}

/* Reads that have started waiting since gates were armed with at_wait
 * (another thread may poll this while the read waits; the event itself
 * may only be touched by one thread at a time). */
static inline uint32_t rxt_gate_waits(struct rxvk *rx)
{
	return __atomic_load_n(&rx->test.gate_waits, __ATOMIC_ACQUIRE);
}

/* Whether gate g is open (the read that was to open it did); not while
 * another thread may be setting it. */
static inline bool rxt_gate_is_open_one(struct rxvk *rx, int g)
{
	return rx->test.gate_event[g] &&
	       vkGetEventStatus(rx->device, rx->test.gate_event[g]) == VK_EVENT_SET;
}

static inline bool rxt_gate_is_open(struct rxvk *rx)
{
	return rxt_gate_is_open_one(rx, 0);
}

/* Before rxt_destroy(): the gates opened, the queue idle, the events gone. */
static inline void rxt_gate_destroy(struct rxvk *rx)
{
	bool any = false;
	for (int g = 0; g < RXT_GATES; g++)
		any |= rx->test.gate_event[g] != VK_NULL_HANDLE;
	if (!any)
		return;
	rxt_gate_open(rx);
	rxt_gate_submitted(rx);
	__atomic_store_n(&rx->test.gate_at_wait, 0, __ATOMIC_RELEASE);
	assert_int_equal(rxvk_finish(rx), 0);
	for (int g = 0; g < RXT_GATES; g++) {
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
