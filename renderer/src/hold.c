/* hold: render-target frames written back to guest memory only when
 * something reads them (DESIGN.md 3.3).
 *
 * When a colour target's pending frame is let go of (a flip, a switch to
 * another target or to depth alone), replay.c asks rxvk_hold_let_go()
 * whether to keep it.  A kept ("held") frame is copied on the device into a
 * snapshot image of its own, and the target's guest pages are guarded
 * (mprotect PROT_NONE).  It reaches guest memory only when something needs
 * it, and is then "carried out": the snapshot is copied into guest memory
 * (and the mirror) in the target's byte order and the pages are opened.
 *   - a CPU touch of a guarded page: the SIGSEGV handler below;
 *   - rxvk_invalidate() of an overlapping range: rxvk_hold_invalidate();
 *   - an op of a submission that reads or writes its memory (a copy, a
 *     dispatch, a texture, a partial fill, another target's write-back or
 *     load): rxvk_hold_settle(), called by replay.c before recording it.
 * A later let-go of the same target supersedes the held frame unread (the
 * snapshot is overwritten, the guard stays); a fill covering it drops it.
 * A target one of whose held frames was carried out is written back at
 * once at its later let-gos while it is among the last 16 targets held.
 * Where a frame cannot be held (RX_VK_HOLD_SWITCHED=0, no snapshot memory,
 * a target not page-aligned, no guards, busy pages) it is written back at
 * once, as before, and counted.
 *
 * It owns the held frames, their snapshots and guards, the list of the
 * last targets held, the SIGSEGV handler and the carry-out thread.  The
 * targets are replay.c's, the page tables readback.c's.
 *
 * ---- Threads, locks and the signal handler ------------------------------
 *
 * State.  Each held frame lives in a slot.  A slot's state, generation and
 * guarded page range are atomics the signal handler reads; everything else
 * is under hold->lock.  A per-page atomic bitmap says which pages are
 * guarded now.  Guarding writes the slot, then its state, then the bitmap,
 * then calls mprotect(PROT_NONE); opening calls mprotect(PROT_READ |
 * PROT_WRITE), then clears the bitmap, then changes the state.  The
 * renderers the handler knows are in g_holds, a fixed array of atomic
 * pointers; g_in_handler counts handlers running, and rxvk_hold_finish()
 * removes its renderer, opens its pages and waits for that count to reach
 * zero before anything the handler reads is freed.
 *
 * The handler (on_segv, SA_SIGINFO) does only async-signal-safe things:
 * atomic loads and stores, write(2) to a pipe, futex(2), nanosleep(2),
 * process_vm_readv(2) and, to chain, sigaction(2) and raise(3).  For a fault
 * in a page whose guard bit is set, it claims a completion word from a
 * static pool, writes a request (slot, generation, word) to the renderer's
 * request pipe and sleeps on the word with FUTEX_WAIT; when the word says
 * done it returns and the access is retried on the opened page.  A fault in
 * guest memory whose bit is clear but whose page reads fine was opened
 * between the fault and the look-up: it is retried too.  Every other fault
 * goes to the handler that was installed before (SA_SIGINFO or not); where
 * that was the default action, the default is put back and the fault
 * happens again on return (a signal sent with kill(2) is raised again), so
 * it kills the process as it would have.  The handler takes no lock, so it
 * cannot deadlock with a lock the faulting thread holds; it never touches
 * Vulkan.
 *
 * The carry-out thread owns the Vulkan work of carry-outs (its own command
 * pool, buffer and fence; submissions under rx->queue_lock).  It serves
 * requests one at a time: it marks the slot CARRYING, waits for the part
 * that fills the snapshot, copies the snapshot into guest memory (on a CPU
 * device into a staging buffer, then by memcpy once the pages are open,
 * because the device reaches guest memory through the very page tables the
 * guard changed) and into the mirror, waits for its fence, opens the pages
 * and completes the request.  It never takes rx->lock, only hold->lock and
 * rx->queue_lock, neither of which is held while guest memory is touched.
 * So a game thread that faults while holding any renderer lock still gets
 * its carry-out.  Other threads (the render thread, rxvk_invalidate()) ask
 * for a carry-out the same way and sleep on their word.
 *
 * What a carry-out waits for.  It waits for the part that fills the
 * snapshot, and for its own copy, nothing else:
 *   - a let-go recorded in the part the render thread is still recording:
 *     the render thread submits that part at the latest when rxvk_submit()
 *     returns, and it never waits for a carry-out of a frame let go of in
 *     the part it records; it resolves such a frame in its own command
 *     stream instead (rxvk_hold_settle() returns it to be written, the
 *     slot becomes STREAM and the carry-out thread only waits for that
 *     part).  Before the render thread waits for any carry-out, it submits
 *     the parts the recorder still holds (rxvk_recorder_drain()).
 *   - a fault from a thread the device itself depends on (a driver thread
 *     of a CPU device such as lavapipe, whose "GPU" runs on CPU threads and
 *     writes guest memory through the same pages): waiting would never end.
 *     It is prevented, not handled: a frame is guarded on such a device
 *     only once every submitted access to its pages is done (the page
 *     tables say which), never when the part being recorded already
 *     touches them, never in mirror blocks that a capture may still copy
 *     whole, and every later op over its pages resolves it first.  As a
 *     last line, when the device makes no progress for STALL_NS while
 *     everything a carry-out waits for is submitted, the thread opens every
 *     guarded page, logs an error and carries the frames out once the
 *     device moves; a handler whose page was opened gives up its word and
 *     retries.  No wait is unbounded.
 *   - the game's present callback runs on the presenter thread, which the
 *     render thread may wait for (present slots): a callback that touches a
 *     held target of the part being recorded waits for that part, so the
 *     callback must not read held targets' guest memory.
 *
 * Exactness.  Every byte a carry-out writes is the byte an immediate
 * write-back wrote.  Two windows remain, both documented in
 * docs/renderer.md: on a CPU device a second thread touching the same
 * frame while it is copied in after its pages were opened reads bytes
 * being written; and a frame dropped by a covering fill, or resolved by an
 * op, is opened when the op is recorded, so a thread reading its memory
 * without rxvk_invalidate() while that submission is being recorded reads
 * the bytes from before the held frame (such a read races the submission
 * that overwrites them).
 *
 * The handler is installed once per process at the first renderer that
 * holds frames and stays installed (a handler installed later may chain to
 * it); nothing else may change the protection of guest memory. */
#include "private.h"
#include "hold.h"
#include "recorder.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define HOLD_SLOTS    32u
#define HOLD_REMEMBER 16u
#define MAX_RENDERERS 16u
#define WORDS         1024u
#define SLICE_NS      50000000ull   /* a device wait's slice */
#define STALL_NS      5000000000ull /* no device progress for this long: a stall */
#define REQ_STOP      UINT32_MAX
#define PAGE          RXVK_PAGE_SIZE_B

enum slot_state { SLOT_FREE = 0, SLOT_HELD, SLOT_CARRYING, SLOT_STREAM };
enum req_why { WHY_TOUCH, WHY_OP };
enum word_state { W_FREE = 0, W_WAITING, W_DONE, W_ABANDONED };

struct slot {
	/* atomics the handler reads */
	uint32_t state;            /* enum slot_state */
	uint32_t gen;              /* + 1 each time the slot starts holding */
	uint64_t first_pg, end_pg; /* guarded pages [first_pg, end_pg) */
	/* under hold->lock */
	struct hold_frame f;
	uint64_t snap_value;   /* the part whose commands fill the snapshot */
	uint64_t stream_value; /* SLOT_STREAM: the part that resolved it */
	bool opened;           /* its pages were opened by the stall rule */
	VkImage snap;
	VkDeviceMemory snap_memory;
	uint32_t snap_width, snap_height;
	enum rxvk_format snap_format;
	uint64_t snap_used; /* newest part value that reads or writes the snapshot */
	bool snap_reinit;   /* a failed part may have held its layout change: redo it */
};

struct remembered {
	uint64_t addr;
	bool carried;
};

struct req {
	uint32_t slot;
	uint32_t gen;
	uint32_t why;  /* enum req_why */
	uint32_t word; /* index in g_words, or UINT32_MAX: no one waits */
};

struct hold {
	struct rxvk *rx;
	bool on;         /* RX_VK_HOLD_SWITCHED */
	bool guards;     /* handler, thread and pipe in place */
	bool cpu;        /* the device reaches guest memory through our page tables */
	uintptr_t guest; /* the handler's copy of the guest range */
	uint64_t guest_size_B;
	uint64_t *guarded; /* atomic bitmap: pages guarded now */
	int req_r, req_w;  /* request pipe */
	unsigned registry; /* index in g_holds */
	pthread_t thread;
	bool thread_started;
	pthread_mutex_t lock;
	struct slot slots[HOLD_SLOTS];
	uint32_t n_busy;                           /* atomic: slots not free (fast path) */
	struct remembered remember[HOLD_REMEMBER]; /* most recently held first */
	unsigned n_remember;
	unsigned logged; /* bit per reason already logged */
	/* carry-out thread only */
	VkCommandPool pool;
	VkCommandBuffer cmd;
	VkFence fence;
	VkBuffer staging;
	VkDeviceMemory staging_memory;
	void *staging_map;
	uint64_t staging_B;
	bool stalled;    /* the stall rule opened pages: carry them all out */
	uint32_t stalls; /* atomic: times the stall rule acted (the handler reads it) */
	/* render thread: frame time for the shares */
	uint64_t first_frame_ns, frames;
};

/* ---- the signal handler's state (process-wide, see the top comment) ---- */

static struct hold *g_holds[MAX_RENDERERS]; /* atomic pointers */
static unsigned g_in_handler;               /* atomic: handlers running */
static uint32_t g_words[WORDS];             /* atomic: enum word_state */
static unsigned g_word_next;                /* atomic: where the next claim looks first */
static struct sigaction g_prev;             /* written once, before the handler is installed */
static bool g_installed;
static pthread_mutex_t g_install_lock = PTHREAD_MUTEX_INITIALIZER;

static long futex(uint32_t *word, int op, uint32_t val, const struct timespec *timeout)
{
	return syscall(SYS_futex, word, op, val, timeout, NULL, 0);
}

static uint32_t word_claim(void)
{
	for (;;) {
		unsigned start = __atomic_fetch_add(&g_word_next, 1, __ATOMIC_RELAXED);
		for (unsigned k = 0; k < WORDS; k++) {
			uint32_t i = (start + k) % WORDS, expect = W_FREE;
			if (__atomic_compare_exchange_n(&g_words[i], &expect, W_WAITING, false,
			                                __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
				return i;
		}
		struct timespec ms = {0, 1000000};
		nanosleep(&ms, NULL);
	}
}

/* The carry-out thread's side: the waiter may have given the word up. */
static void word_complete(uint32_t i)
{
	if (i >= WORDS)
		return;
	uint32_t expect = W_WAITING;
	if (!__atomic_compare_exchange_n(&g_words[i], &expect, W_DONE, false, __ATOMIC_ACQ_REL,
	                                 __ATOMIC_ACQUIRE)) {
		__atomic_store_n(&g_words[i], W_FREE, __ATOMIC_RELEASE); /* abandoned */
		return;
	}
	futex(&g_words[i], FUTEX_WAKE_PRIVATE, INT_MAX, NULL);
}

static bool page_guarded(const struct hold *h, uint64_t pg)
{
	return __atomic_load_n(&h->guarded[pg / 64], __ATOMIC_ACQUIRE) >> (pg % 64) & 1;
}

/* Whether a byte can be read now, without faulting: process_vm_readv
 * checks the protection and answers EFAULT instead of a signal. */
static bool readable(uintptr_t a)
{
	char c;
	struct iovec local = {&c, 1}, remote = {(void *)a, 1};
	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == 1;
}

static bool write_all(int fd, const void *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return false;
		p = (const char *)p + k;
		n -= (size_t)k;
	}
	return true;
}

/* Sleeps until word i is done.  With h and pg (the handler), gives the
 * word up when the stall rule opened the page meanwhile (h->stalls moved
 * past `stalls`); a page opened by its carry-out is not enough, its bytes
 * may still be on their way in. */
static void word_wait(uint32_t i, const struct hold *h, uint64_t pg, uint32_t stalls)
{
	for (;;) {
		uint32_t s = __atomic_load_n(&g_words[i], __ATOMIC_ACQUIRE);
		if (s == W_DONE) {
			__atomic_store_n(&g_words[i], W_FREE, __ATOMIC_RELEASE);
			return;
		}
		struct timespec slice = {0, (long)SLICE_NS};
		futex(&g_words[i], FUTEX_WAIT_PRIVATE, W_WAITING, h ? &slice : NULL);
		if (h && __atomic_load_n(&h->stalls, __ATOMIC_ACQUIRE) != stalls &&
		    !page_guarded(h, pg) && readable(h->guest + pg * PAGE)) {
			uint32_t expect = W_WAITING;
			if (__atomic_compare_exchange_n(&g_words[i], &expect, W_ABANDONED, false,
			                                __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
				return;
		}
	}
}

static void chain(int sig, siginfo_t *si, void *ctx)
{
	if (g_prev.sa_flags & SA_SIGINFO) {
		if (g_prev.sa_sigaction) {
			g_prev.sa_sigaction(sig, si, ctx);
			return;
		}
	} else if (g_prev.sa_handler != SIG_DFL && g_prev.sa_handler != SIG_IGN) {
		g_prev.sa_handler(sig);
		return;
	}
	/* the default action: put it back; a fault happens again on return,
	 * a signal sent by someone is sent again */
	struct sigaction dfl;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	if (si->si_code <= 0)
		raise(sig);
}

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
	int saved_errno = errno;
	bool ours = false;
	__atomic_fetch_add(&g_in_handler, 1, __ATOMIC_SEQ_CST);
	uintptr_t a = (uintptr_t)si->si_addr;
	for (unsigned i = 0; i < MAX_RENDERERS && !ours && si->si_code > 0; i++) {
		struct hold *h = __atomic_load_n(&g_holds[i], __ATOMIC_SEQ_CST);
		if (!h || a < h->guest || a - h->guest >= h->guest_size_B)
			continue;
		uint64_t pg = (a - h->guest) / PAGE;
		if (!page_guarded(h, pg)) {
			ours = readable(a); /* opened since the fault: retry */
			break;
		}
		ours = true;
		for (uint32_t s = 0; s < HOLD_SLOTS; s++) {
			struct slot *sl = &h->slots[s];
			uint32_t gen = __atomic_load_n(&sl->gen, __ATOMIC_ACQUIRE);
			uint32_t st = __atomic_load_n(&sl->state, __ATOMIC_ACQUIRE);
			/* a STREAM slot's pages are open: another slot guards them now */
			if (st == SLOT_FREE || st == SLOT_STREAM ||
			    pg < __atomic_load_n(&sl->first_pg, __ATOMIC_ACQUIRE) ||
			    pg >= __atomic_load_n(&sl->end_pg, __ATOMIC_ACQUIRE))
				continue;
			uint32_t w = word_claim();
			struct req r = {s, gen, WHY_TOUCH, w};
			uint32_t stalls = __atomic_load_n(&h->stalls, __ATOMIC_ACQUIRE);
			if (write_all(h->req_w, &r, sizeof r))
				word_wait(w, h, pg, stalls);
			else
				__atomic_store_n(&g_words[w], W_FREE, __ATOMIC_RELEASE);
			break;
		}
		/* no slot found: it is being set up or opened; retry */
	}
	__atomic_fetch_sub(&g_in_handler, 1, __ATOMIC_SEQ_CST);
	errno = saved_errno;
	if (!ours)
		chain(sig, si, ctx);
}

/* Installs on_segv in front of the handler in place now (unless it is
 * on_segv already).  `again`: even when it was installed before. */
static int install_locked(bool again)
{
	if (g_installed && !again)
		return 0;
	struct sigaction now;
	if (sigaction(SIGSEGV, NULL, &now) != 0)
		return -errno;
	if ((now.sa_flags & SA_SIGINFO) && now.sa_sigaction == on_segv) {
		g_installed = true;
		return 0;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	/* g_prev is written before the handler that reads it is in place */
	g_prev = now;
	if (sigaction(SIGSEGV, &sa, NULL) != 0)
		return -errno;
	g_installed = true;
	return 0;
}

static int install_handler(void)
{
	pthread_mutex_lock(&g_install_lock);
	int rc = install_locked(false);
	pthread_mutex_unlock(&g_install_lock);
	return rc;
}

int rxvk_hold_handler_install(void)
{
	pthread_mutex_lock(&g_install_lock);
	int rc = install_locked(true);
	pthread_mutex_unlock(&g_install_lock);
	return rc;
}

/* ---- slots ---- */

static uint64_t first_page(const struct hold_frame *f)
{
	return f->addr / PAGE;
}

static uint64_t end_page(const struct hold_frame *f)
{
	return (f->addr + f->size_B + PAGE - 1) / PAGE;
}

static bool same_frame(const struct hold_frame *a, const struct hold_frame *b)
{
	return a->addr == b->addr && a->size_B == b->size_B && a->width == b->width &&
	       a->height == b->height && a->pitch_B == b->pitch_B && a->format == b->format;
}

static void log_once(struct hold *h, unsigned bit, const char *what)
{
	if (!(h->logged & (1u << bit))) {
		h->logged |= 1u << bit;
		rxvk_log(h->rx, "hold: %s", what);
	}
}

/* Opens a slot's pages (they stay in its range until it is reused). */
static void open_pages(struct hold *h, struct slot *s)
{
	uint64_t first = __atomic_load_n(&s->first_pg, __ATOMIC_ACQUIRE);
	uint64_t end = __atomic_load_n(&s->end_pg, __ATOMIC_ACQUIRE);
	if (end <= first)
		return;
	if (mprotect((void *)(h->guest + first * PAGE), (end - first) * PAGE,
	             PROT_READ | PROT_WRITE) != 0)
		rxvk_log(h->rx, "hold: cannot open guest pages 0x%" PRIx64 "..0x%" PRIx64 ": %s",
		         first * PAGE, end * PAGE, strerror(errno));
	for (uint64_t pg = first; pg < end; pg++)
		__atomic_fetch_and(&h->guarded[pg / 64], ~(1ull << (pg % 64)), __ATOMIC_RELEASE);
}

static void release_locked(struct hold *h, struct slot *s)
{
	__atomic_store_n(&s->state, SLOT_FREE, __ATOMIC_RELEASE);
	s->opened = false;
	__atomic_fetch_sub(&h->n_busy, 1, __ATOMIC_RELEASE);
}

static struct remembered *remembered_locked(struct hold *h, uint64_t addr)
{
	for (unsigned i = 0; i < h->n_remember; i++)
		if (h->remember[i].addr == addr)
			return &h->remember[i];
	return NULL;
}

/* A target held at a let-go: to the front of the last HOLD_REMEMBER. */
static void remember_held_locked(struct hold *h, uint64_t addr)
{
	struct remembered r = {addr, false};
	unsigned at = h->n_remember;
	for (unsigned i = 0; i < h->n_remember; i++)
		if (h->remember[i].addr == addr) {
			r = h->remember[i];
			at = i;
		}
	if (at == h->n_remember) {
		if (h->n_remember < HOLD_REMEMBER)
			h->n_remember++;
		at = h->n_remember - 1; /* the oldest goes */
	}
	memmove(&h->remember[1], &h->remember[0], at * sizeof h->remember[0]);
	h->remember[0] = r;
}

static void remember_carried_locked(struct hold *h, uint64_t addr)
{
	struct remembered *r = remembered_locked(h, addr);
	if (r)
		r->carried = true;
}

/* Whether an op over [addr, addr + size_B) reaches a slot's frame.  On a
 * CPU device every byte of a guarded page counts (the device would fault
 * on it); elsewhere the frame's bytes. */
static bool reaches(const struct hold *h, const struct slot *s, uint64_t addr, uint64_t size_B)
{
	if (!size_B)
		return false;
	if (h->cpu) {
		uint64_t first = addr / PAGE, end = (addr + size_B + PAGE - 1) / PAGE;
		return first < s->end_pg && s->first_pg < end;
	}
	return addr < s->f.addr + s->f.size_B && s->f.addr < addr + size_B;
}

/* ---- the carry-out thread ---- */

static int staging_ensure(struct hold *h, uint64_t size_B)
{
	struct rxvk *rx = h->rx;
	if (h->staging_B >= size_B)
		return 0;
	if (h->staging)
		vkDestroyBuffer(rx->device, h->staging, NULL);
	if (h->staging_memory)
		vkFreeMemory(rx->device, h->staging_memory, NULL);
	h->staging = VK_NULL_HANDLE;
	h->staging_memory = VK_NULL_HANDLE;
	h->staging_map = NULL;
	h->staging_B = 0;
	VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
	                          .size = size_B,
	                          .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT,
	                          .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
	int rc = vk_check(rx, vkCreateBuffer(rx->device, &bci, NULL, &h->staging));
	if (rc < 0)
		return rc;
	VkMemoryRequirements mr;
	vkGetBufferMemoryRequirements(rx->device, h->staging, &mr);
	uint32_t type;
	if (rxvk_find_cpu_read_type(rx, mr.memoryTypeBits, "carry-out staging", &type) < 0)
		return -ENODEV;
	VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
	                            .allocationSize = mr.size,
	                            .memoryTypeIndex = type};
	if ((rc = vk_check(rx, vkAllocateMemory(rx->device, &mai, NULL, &h->staging_memory))) < 0 ||
	    (rc = vk_check(rx, vkBindBufferMemory(rx->device, h->staging, h->staging_memory, 0))) <
	            0 ||
	    (rc = vk_check(rx, vkMapMemory(rx->device, h->staging_memory, 0, VK_WHOLE_SIZE, 0,
	                                   &h->staging_map))) < 0)
		return rc;
	h->staging_B = size_B;
	return 0;
}

/* The stall rule (see the top comment): every guarded page is opened, its
 * frame carried out once the device moves. */
static void stall_open_all(struct hold *h)
{
	pthread_mutex_lock(&h->lock);
	for (unsigned i = 0; i < HOLD_SLOTS; i++) {
		struct slot *s = &h->slots[i];
		uint32_t st = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
		if (st == SLOT_HELD || st == SLOT_CARRYING) {
			open_pages(h, s);
			s->opened = true;
		}
	}
	h->stalled = true;
	__atomic_fetch_add(&h->stalls, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&h->lock);
	rxvk_log(h->rx,
	         "hold: error: the device made no progress for %llu s while a held frame was "
	         "carried out; a device thread may have touched guarded guest memory: every held "
	         "frame's pages are opened and written when the device moves",
	         (unsigned long long)(STALL_NS / 1000000000ull));
}

/* Waits for `value` on the timeline (fence NULL) or for the fence; in
 * slices, so the stall rule can act. */
static int device_wait(struct hold *h, uint64_t value, VkFence fence)
{
	struct rxvk *rx = h->rx;
	uint64_t last_done = rxvk_timeline_done(rx), since = rxvk_now_ns();
	for (;;) {
		VkResult res;
		if (fence) {
			res = vkWaitForFences(rx->device, 1, &fence, VK_TRUE, SLICE_NS);
		} else {
			VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
			                          .semaphoreCount = 1,
			                          .pSemaphores = &rx->timeline,
			                          .pValues = &value};
			res = vkWaitSemaphores(rx->device, &wi, SLICE_NS);
		}
		if (res == VK_SUCCESS)
			return 0;
		if (res != VK_TIMEOUT)
			return vk_check(rx, res);
		uint64_t done = rxvk_timeline_done(rx), now = rxvk_now_ns();
		if (done != last_done) {
			last_done = done;
			since = now;
			continue;
		}
		bool submitted = fence || value <= __atomic_load_n(&rx->counters.timeline_value,
		                                                   __ATOMIC_ACQUIRE);
		if (submitted && !h->stalled && now - since >= STALL_NS)
			stall_open_all(h);
	}
}

/* Copies a held frame's snapshot to guest memory and the mirror: on a CPU
 * device into the staging buffer (copied in by the caller once the pages
 * are open), elsewhere straight into guest memory. */
static int copy_out(struct hold *h, const struct hold_frame *f, VkImage snap)
{
	struct rxvk *rx = h->rx;
	int rc;
	if (h->cpu && (rc = staging_ensure(h, f->size_B)) < 0)
		return rc;
	if ((rc = vk_check(rx, vkResetCommandBuffer(h->cmd, 0))) < 0)
		return rc;
	VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
	                               .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
	if ((rc = vk_check(rx, vkBeginCommandBuffer(h->cmd, &bi))) < 0)
		return rc;
	VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
	                      .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
	                      .dstAccessMask =
	                              VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT};
	vkCmdPipelineBarrier(h->cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
	                     VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
	VkBufferImageCopy region = {
	        .bufferOffset = h->cpu ? 0 : f->addr,
	        .bufferRowLength = f->pitch_B / 4,
	        .bufferImageHeight = f->height,
	        .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
	        .imageExtent = {f->width, f->height, 1},
	};
	vkCmdCopyImageToBuffer(h->cmd, snap, VK_IMAGE_LAYOUT_GENERAL,
	                       h->cpu ? h->staging : rx->guest_buffer, 1, &region);
	if (rx->mirrored) {
		region.bufferOffset = f->addr;
		vkCmdCopyImageToBuffer(h->cmd, snap, VK_IMAGE_LAYOUT_GENERAL, rx->mirror_buffer, 1,
		                       &region);
	}
	mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT | VK_ACCESS_HOST_WRITE_BIT;
	vkCmdPipelineBarrier(h->cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_HOST_BIT,
	                     0, 1, &mb, 0, NULL, 0, NULL);
	if ((rc = vk_check(rx, vkEndCommandBuffer(h->cmd))) < 0)
		return rc;
	VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
	                   .commandBufferCount = 1,
	                   .pCommandBuffers = &h->cmd};
	pthread_mutex_lock(&rx->queue_lock);
	rc = vk_check(rx, vkQueueSubmit(rx->queue, 1, &si, h->fence));
	pthread_mutex_unlock(&rx->queue_lock);
	if (rc < 0)
		return rc;
	rc = device_wait(h, 0, h->fence);
	int rrc = vk_check(rx, vkResetFences(rx->device, 1, &h->fence));
	return rc < 0 ? rc : rrc;
}

/* Carries one held frame out (the slot is HELD, taken by the caller). */
static void serve_slot(struct hold *h, uint32_t idx, uint32_t why)
{
	struct rxvk *rx = h->rx;
	struct slot *s = &h->slots[idx];
	uint64_t t0 = rxvk_now_ns();
	pthread_mutex_lock(&h->lock);
	__atomic_store_n(&s->state, SLOT_CARRYING, __ATOMIC_RELEASE);
	struct hold_frame f = s->f;
	VkImage snap = s->snap;
	uint64_t value = s->snap_value;
	pthread_mutex_unlock(&h->lock);

	int rc = device_wait(h, value, VK_NULL_HANDLE);
	pthread_mutex_lock(&h->lock);
	if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == SLOT_STREAM) {
		/* the render thread resolved it in the part that let it go */
		uint64_t sv = s->stream_value;
		pthread_mutex_unlock(&h->lock);
		device_wait(h, sv, VK_NULL_HANDLE);
		pthread_mutex_lock(&h->lock);
		release_locked(h, s);
		pthread_mutex_unlock(&h->lock);
		return;
	}
	pthread_mutex_unlock(&h->lock);
	if (rc == 0)
		rc = copy_out(h, &f, snap);
	open_pages(h, s);
	if (rc == 0 && h->cpu) {
		uint8_t *dst = (uint8_t *)h->guest + f.addr;
		const uint8_t *src = h->staging_map;
		for (uint32_t y = 0; y < f.height; y++)
			memcpy(dst + (uint64_t)y * f.pitch_B, src + (uint64_t)y * f.pitch_B,
			       (size_t)f.width * 4);
	}
	pthread_mutex_lock(&h->lock);
	remember_carried_locked(h, f.addr);
	release_locked(h, s);
	pthread_mutex_unlock(&h->lock);
	if (rc < 0) {
		rxvk_log(rx,
		         "hold: error: cannot carry out the frame at 0x%" PRIx64
		         ": %s; its pages are opened "
		         "with the bytes from before it",
		         f.addr, rxvk_last_error());
		return;
	}
	CNT_ADD(rx, target_writebacks, 1);
	CNT_ADD(rx, target_write_ns, rxvk_now_ns() - t0);
	if (why == WHY_TOUCH)
		CNT_ADD(rx, frames_carried_touch, 1);
	else
		CNT_ADD(rx, frames_carried_op, 1);
}

static void serve(struct hold *h, const struct req *r)
{
	bool take = false;
	if (r->slot < HOLD_SLOTS) {
		struct slot *s = &h->slots[r->slot];
		pthread_mutex_lock(&h->lock);
		/* CARRYING and STREAM are this thread's and end before the next
		 * request: here a slot is FREE or HELD */
		take = s->gen == r->gen &&
		       __atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == SLOT_HELD;
		pthread_mutex_unlock(&h->lock);
		if (take)
			serve_slot(h, r->slot, r->why);
	}
	word_complete(r->word);
	if (h->stalled) {
		/* frames whose pages the stall rule opened are written now */
		for (uint32_t i = 0; i < HOLD_SLOTS; i++) {
			pthread_mutex_lock(&h->lock);
			bool held = __atomic_load_n(&h->slots[i].state, __ATOMIC_ACQUIRE) ==
			                    SLOT_HELD &&
			            h->slots[i].opened;
			pthread_mutex_unlock(&h->lock);
			if (held)
				serve_slot(h, i, WHY_OP);
		}
		h->stalled = false;
	}
}

static void *carry_main(void *arg)
{
	struct hold *h = arg;
	for (;;) {
		struct req r;
		size_t got = 0;
		while (got < sizeof r) {
			ssize_t k = read(h->req_r, (char *)&r + got, sizeof r - got);
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				return NULL;
			got += (size_t)k;
		}
		if (r.slot == REQ_STOP)
			return NULL;
		serve(h, &r);
	}
}

/* Asks the carry-out thread for slot idx's frame and sleeps until it is
 * served.  Not from the handler; never with hold->lock held. */
static void carry_wait(struct hold *h, uint32_t idx, uint32_t gen)
{
	uint32_t w = word_claim();
	struct req r = {idx, gen, WHY_OP, w};
	if (!write_all(h->req_w, &r, sizeof r)) {
		__atomic_store_n(&g_words[w], W_FREE, __ATOMIC_RELEASE);
		return;
	}
	word_wait(w, NULL, 0, 0);
}

/* ---- the render thread's side ---- */

static int at_once(struct hold *h, unsigned bit, const char *why)
{
	if (why)
		log_once(h, bit, why);
	CNT_ADD(h->rx, frames_written_at_once, 1);
	return 0;
}

/* On a CPU device: waits until no submitted part reads or writes pages
 * [first, end) (the device would fault on them once guarded). */
static int pages_quiet(struct rxvk *rx, uint64_t first, uint64_t end, bool all_before)
{
	int rc = rxvk_recorder_drain(rx);
	if (rc < 0)
		return rc;
	uint64_t done = rxvk_timeline_done(rx), need = 0;
	pthread_mutex_lock(&rx->lock);
	for (uint64_t pg = first; pg < end && pg < rx->n_pages; pg++) {
		if (rx->page_final[pg] > need)
			need = rx->page_final[pg];
		uint64_t reader = rx->page_reader[pg];
		if (!reader)
			continue;
		if (reader == rx->sub_count) {
			/* this submission, an earlier part: every one is submitted */
			if (rx->next_value - 1 > need)
				need = rx->next_value - 1;
			continue;
		}
		const struct sub_info *s = &rx->subs[reader % SUB_RING];
		if (s->id == reader && s->last_value > need)
			need = s->last_value;
	}
	if (all_before && rx->next_value - 1 > need)
		need = rx->next_value - 1;
	pthread_mutex_unlock(&rx->lock);
	return need > done ? rxvk_timeline_wait(rx, need) : 0;
}

static bool blocks_active(const struct rxvk *rx, const struct hold_frame *f)
{
	for (uint64_t b = f->addr / MIRROR_BLOCK_B; b <= (f->addr + f->size_B - 1) / MIRROR_BLOCK_B;
	     b++)
		if (rx->block_state[b] != BLOCK_ACTIVE)
			return false;
	return true;
}

static VkFormat snap_format(enum rxvk_format f)
{
	return f == RXVK_FORMAT_BGRA8 ? VK_FORMAT_B8G8R8A8_UNORM : VK_FORMAT_R8G8B8A8_UNORM;
}

static void snap_free(struct rxvk *rx, struct slot *s)
{
	if (s->snap)
		vkDestroyImage(rx->device, s->snap, NULL);
	if (s->snap_memory)
		vkFreeMemory(rx->device, s->snap_memory, NULL);
	s->snap = VK_NULL_HANDLE;
	s->snap_memory = VK_NULL_HANDLE;
	s->snap_width = s->snap_height = 0;
}

/* A snapshot image of the frame's size and format in a free slot; *fresh
 * when it still needs its layout set.  Render thread. */
static int snap_ensure(struct hold *h, struct slot *s, const struct hold_frame *f, bool *fresh)
{
	struct rxvk *rx = h->rx;
	*fresh = false;
	if (s->snap && s->snap_width == f->width && s->snap_height == f->height &&
	    s->snap_format == f->format) {
		*fresh = s->snap_reinit;
		s->snap_reinit = false;
		return 0;
	}
	s->snap_reinit = false;
	if (s->snap) {
		/* parts may still read or write it */
		int rc = rxvk_recorder_drain(rx);
		if (rc == 0 && s->snap_used > rxvk_timeline_done(rx))
			rc = rxvk_timeline_wait(rx, s->snap_used);
		if (rc < 0)
			return rc;
		snap_free(rx, s);
	}
	VkImageCreateInfo ici = {
	        .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
	        .imageType = VK_IMAGE_TYPE_2D,
	        .format = snap_format(f->format),
	        .extent = {f->width, f->height, 1},
	        .mipLevels = 1,
	        .arrayLayers = 1,
	        .samples = VK_SAMPLE_COUNT_1_BIT,
	        .tiling = VK_IMAGE_TILING_OPTIMAL,
	        .usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
	        .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
	};
	if (vkCreateImage(rx->device, &ici, NULL, &s->snap) != VK_SUCCESS) {
		s->snap = VK_NULL_HANDLE;
		return -ENOMEM;
	}
	VkMemoryRequirements mr;
	vkGetImageMemoryRequirements(rx->device, s->snap, &mr);
	uint32_t type;
	if (rxvk_find_memory_type(rx, mr.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
	                          &type) < 0 &&
	    rxvk_find_memory_type(rx, mr.memoryTypeBits, 0, &type) < 0) {
		snap_free(rx, s);
		return -ENOMEM;
	}
	VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
	                            .allocationSize = mr.size,
	                            .memoryTypeIndex = type};
	if (vkAllocateMemory(rx->device, &mai, NULL, &s->snap_memory) != VK_SUCCESS ||
	    vkBindImageMemory(rx->device, s->snap, s->snap_memory, 0) != VK_SUCCESS) {
		snap_free(rx, s);
		return -ENOMEM;
	}
	s->snap_width = f->width;
	s->snap_height = f->height;
	s->snap_format = f->format;
	*fresh = true;
	return 0;
}

static void record_snapshot(struct cmdlist *cl, VkImage image, struct slot *s, bool fresh)
{
	if (fresh)
		cl_image_init(cl, s->snap, VK_IMAGE_ASPECT_COLOR_BIT);
	VkImageCopy region = {.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
	                      .dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
	                      .extent = {s->f.width, s->f.height, 1}};
	/* the draws before it ended with a barrier (their rendering's end, or
	 * the op's own) */
	cl_copy_image(cl, image, s->snap, &region);
	cl_barrier(cl);
}

/* The free slot to hold f in: one whose snapshot fits first. */
static struct slot *pick_locked(struct hold *h, const struct hold_frame *f)
{
	struct slot *empty = NULL, *any = NULL;
	for (unsigned i = 0; i < HOLD_SLOTS; i++) {
		struct slot *s = &h->slots[i];
		if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != SLOT_FREE)
			continue;
		if (s->snap && s->snap_width == f->width && s->snap_height == f->height &&
		    s->snap_format == f->format)
			return s;
		if (!s->snap && !empty)
			empty = s;
		if (!any)
			any = s;
	}
	return empty ? empty : any;
}

/* What a let-go's first step decided (let_go_over_held). */
enum { OVER_HELD_NONE = 0, OVER_HELD_SUPERSEDED = 1, OVER_HELD_AT_ONCE = 2 };

/* Step of a let-go: the target's frame still held (or being carried out)
 * is superseded by the newer one, written at once with it, or carried out
 * first (waiting for the carry-out).  OVER_HELD_NONE once no slot holds
 * the target, or a negative errno. */
static int let_go_over_held(struct rxvk *rx, struct cmdlist *cl, uint64_t part_value,
                            const struct hold_frame *f, VkImage image)
{
	struct hold *h = rx->hold;
	for (;;) {
		pthread_mutex_lock(&h->lock);
		struct slot *e = NULL;
		for (unsigned i = 0; i < HOLD_SLOTS && !e; i++) {
			uint32_t st = __atomic_load_n(&h->slots[i].state, __ATOMIC_ACQUIRE);
			if ((st == SLOT_HELD || st == SLOT_CARRYING) &&
			    h->slots[i].f.addr == f->addr)
				e = &h->slots[i];
		}
		if (!e) {
			pthread_mutex_unlock(&h->lock);
			return OVER_HELD_NONE;
		}
		uint32_t st = __atomic_load_n(&e->state, __ATOMIC_ACQUIRE);
		if (st == SLOT_HELD && !e->opened && same_frame(&e->f, f)) {
			/* the target's held frame is superseded unread: the
			 * snapshot takes the newer one, the guard stays */
			record_snapshot(cl, image, e, false);
			e->snap_value = part_value;
			e->snap_used = part_value;
			remember_held_locked(h, f->addr);
			pthread_mutex_unlock(&h->lock);
			CNT_ADD(rx, frames_superseded, 1);
			CNT_ADD(rx, frames_held, 1);
			return OVER_HELD_SUPERSEDED;
		}
		if (e->snap_value == part_value) {
			/* let go of in this very part and already asked for (or
			 * of another size): the write-back at once supersedes it */
			open_pages(h, e);
			if (st == SLOT_CARRYING) {
				e->stream_value = part_value;
				__atomic_store_n(&e->state, SLOT_STREAM, __ATOMIC_RELEASE);
			} else {
				release_locked(h, e);
			}
			pthread_mutex_unlock(&h->lock);
			CNT_ADD(rx, frames_superseded, 1);
			return OVER_HELD_AT_ONCE;
		}
		/* held from an earlier part and being carried out, or of another
		 * geometry: carried out before the newer frame goes anywhere */
		uint32_t idx = (uint32_t)(e - h->slots), gen = e->gen;
		pthread_mutex_unlock(&h->lock);
		int rc = rxvk_recorder_drain(rx);
		if (rc < 0)
			return rc;
		carry_wait(h, idx, gen);
	}
}

/* Step of a let-go: whether the frame may be held.  0 it may, 1 it is
 * written at once (*bit and *why say why, *why NULL for no log line), or a
 * negative errno.  On a CPU device it waits until no submitted part
 * touches the pages first. */
static int hold_refusal(struct rxvk *rx, uint64_t part_value, const struct hold_frame *f,
                        bool part_busy, unsigned *bit, const char **why)
{
	struct hold *h = rx->hold;
	uint64_t first = first_page(f), end = end_page(f);
	pthread_mutex_lock(&h->lock);
	const struct remembered *r = remembered_locked(h, f->addr);
	bool carried = r && r->carried;
	bool other = false;
	for (unsigned i = 0; i < HOLD_SLOTS; i++) {
		const struct slot *s = &h->slots[i];
		uint32_t st = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
		if (st != SLOT_FREE && st != SLOT_STREAM && first < s->end_pg && s->first_pg < end)
			other = true;
	}
	pthread_mutex_unlock(&h->lock);
	*bit = 0;
	*why = NULL;
	if (carried)
		return 1;
	static const char *const whys[] = {
		[1] = "frames are written back at once: guest pages cannot be guarded",
		[2] = "frames of targets not page-aligned are written back at once",
		[3] = "a frame over pages another held frame guards is written back at once",
		[4] = "on a CPU device, a frame over pages its own part reads or writes is written "
		      "back at once",
		[5] = "on a CPU device, a frame in mirror blocks not yet active is written back at once",
		[9] = "on a CPU device, mirrored, a frame let go of in the part that holds its "
		      "submission's capture is written back at once",
	};
	if (!h->guards)
		*bit = 1;
	else if (f->addr % PAGE)
		*bit = 2;
	else if (other)
		*bit = 3;
	else if (h->cpu && part_busy)
		*bit = 4;
	/* mirrored, a capture copies whole blocks as it activates them, and
	 * the pages it copies are in no page table: on a CPU device a frame is
	 * held only in active blocks, after the captures submitted so far */
	else if (h->cpu && rx->mirrored && !blocks_active(rx, f))
		*bit = 5;
	else if (h->cpu && rx->mirrored && rx->subs[rx->sub_count % SUB_RING].first_value == part_value)
		*bit = 9;
	if (*bit) {
		*why = whys[*bit];
		return 1;
	}
	if (h->cpu) {
		int rc = pages_quiet(rx, first, end, rx->mirrored);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Step of a let-go: the frame goes into a free slot's snapshot and its
 * pages are guarded.  1 held, 0 written at once (no slot, no snapshot
 * memory, or the guard failed), or a negative errno. */
static int guard_frame(struct rxvk *rx, struct cmdlist *cl, uint64_t part_value,
                       const struct hold_frame *f, VkImage image)
{
	struct hold *h = rx->hold;
	uint64_t first = first_page(f), end = end_page(f);
	pthread_mutex_lock(&h->lock);
	struct slot *s = pick_locked(h, f);
	pthread_mutex_unlock(&h->lock);
	if (!s)
		return at_once(h, 6, "more frames held than slots: written back at once");
	/* only this thread takes free slots: s stays free meanwhile */
	bool fresh;
	int rc = snap_ensure(h, s, f, &fresh);
	if (rc == -ENOMEM)
		return at_once(h, 7,
		               "no device memory for a snapshot: frames written back at once");
	if (rc < 0)
		return rc;
	pthread_mutex_lock(&h->lock);
	s->f = *f;
	s->snap_value = part_value;
	s->snap_used = part_value;
	s->opened = false;
	record_snapshot(cl, image, s, fresh);
	__atomic_store_n(&s->first_pg, first, __ATOMIC_RELEASE);
	__atomic_store_n(&s->end_pg, end, __ATOMIC_RELEASE);
	__atomic_fetch_add(&s->gen, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&s->state, SLOT_HELD, __ATOMIC_RELEASE);
	__atomic_fetch_add(&h->n_busy, 1, __ATOMIC_RELEASE);
	for (uint64_t pg = first; pg < end; pg++)
		__atomic_fetch_or(&h->guarded[pg / 64], 1ull << (pg % 64), __ATOMIC_RELEASE);
	if (mprotect((void *)(h->guest + first * PAGE), (end - first) * PAGE, PROT_NONE) != 0) {
		char msg[160];
		snprintf(msg, sizeof msg,
		         "cannot guard guest pages (%s): frames written back at once",
		         strerror(errno));
		open_pages(h, s);
		release_locked(h, s);
		h->guards = false;
		pthread_mutex_unlock(&h->lock);
		return at_once(h, 8, msg);
	}
	remember_held_locked(h, f->addr);
	pthread_mutex_unlock(&h->lock);
	CNT_ADD(rx, frames_held, 1);
	return 1;
}

int rxvk_hold_let_go(struct rxvk *rx, struct cmdlist *cl, uint64_t part_value,
                     const struct hold_frame *f, VkImage image, bool part_busy)
{
	struct hold *h = rx->hold;
	if (!h->on)
		return at_once(h, 0, NULL);
	int rc = let_go_over_held(rx, cl, part_value, f, image);
	if (rc < 0 || rc == OVER_HELD_SUPERSEDED)
		return rc;
	if (rc == OVER_HELD_AT_ONCE)
		return at_once(h, 0, NULL);
	unsigned bit;
	const char *why;
	if ((rc = hold_refusal(rx, part_value, f, part_busy, &bit, &why)) != 0)
		return rc < 0 ? rc : at_once(h, bit, why);
	return guard_frame(rx, cl, part_value, f, image);
}

size_t rxvk_hold_part_failed(struct rxvk *rx, uint64_t part_value, uint64_t *out_addrs, size_t max)
{
	struct hold *h = rx->hold;
	size_t n = 0;
	if (!h || !h->on)
		return 0;
	pthread_mutex_lock(&h->lock);
	for (unsigned i = 0; i < HOLD_SLOTS; i++) {
		struct slot *s = &h->slots[i];
		if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != SLOT_HELD || s->snap_value != part_value)
			continue;
		open_pages(h, s);
		release_locked(h, s);
		s->snap_reinit = true;
		if (n < max)
			out_addrs[n++] = s->f.addr;
	}
	pthread_mutex_unlock(&h->lock);
	return n;
}

int rxvk_hold_settle(struct rxvk *rx, uint64_t part_value, uint64_t addr, uint64_t size_B,
                     bool drop_covered, struct hold_frame *out, VkImage *out_snapshot)
{
	struct hold *h = rx->hold;
	if (!h || !size_B || !__atomic_load_n(&h->n_busy, __ATOMIC_ACQUIRE))
		return 0;
	for (;;) {
		pthread_mutex_lock(&h->lock);
		struct slot *s = NULL;
		for (unsigned i = 0; i < HOLD_SLOTS && !s; i++) {
			uint32_t st = __atomic_load_n(&h->slots[i].state, __ATOMIC_ACQUIRE);
			if ((st == SLOT_HELD || st == SLOT_CARRYING) &&
			    reaches(h, &h->slots[i], addr, size_B))
				s = &h->slots[i];
		}
		if (!s) {
			pthread_mutex_unlock(&h->lock);
			return 0;
		}
		uint32_t st = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
		bool covers = drop_covered && addr <= s->f.addr &&
		              addr + size_B >= s->f.addr + s->f.size_B;
		if (s->snap_value == part_value) {
			/* let go of in the part being recorded: resolved in the
			 * stream, nothing waits for a part not yet submitted */
			open_pages(h, s);
			if (st == SLOT_CARRYING) {
				s->stream_value = part_value;
				__atomic_store_n(&s->state, SLOT_STREAM, __ATOMIC_RELEASE);
			} else {
				release_locked(h, s);
			}
			if (covers) {
				pthread_mutex_unlock(&h->lock);
				CNT_ADD(rx, frames_dropped, 1);
				continue;
			}
			*out = s->f;
			*out_snapshot = s->snap;
			s->snap_used = part_value;
			remember_carried_locked(h, s->f.addr);
			pthread_mutex_unlock(&h->lock);
			CNT_ADD(rx, frames_carried_op, 1);
			return 1;
		}
		if (covers && st == SLOT_HELD) {
			/* the fill writes every byte the frame would have */
			open_pages(h, s);
			release_locked(h, s);
			pthread_mutex_unlock(&h->lock);
			CNT_ADD(rx, frames_dropped, 1);
			continue;
		}
		uint32_t idx = (uint32_t)(s - h->slots), gen = s->gen;
		pthread_mutex_unlock(&h->lock);
		int rc = rxvk_recorder_drain(rx);
		if (rc < 0)
			return rc;
		carry_wait(h, idx, gen);
	}
}

void rxvk_hold_invalidate(struct rxvk *rx, uint64_t addr, uint64_t size_B)
{
	struct hold *h = rx->hold;
	if (!h || !size_B || !__atomic_load_n(&h->n_busy, __ATOMIC_ACQUIRE))
		return;
	for (;;) {
		pthread_mutex_lock(&h->lock);
		int found = -1;
		uint32_t gen = 0;
		for (unsigned i = 0; i < HOLD_SLOTS && found < 0; i++) {
			const struct slot *s = &h->slots[i];
			uint32_t st = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
			if ((st == SLOT_HELD || st == SLOT_CARRYING) &&
			    addr < s->f.addr + s->f.size_B && s->f.addr < addr + size_B) {
				found = (int)i;
				gen = s->gen;
			}
		}
		pthread_mutex_unlock(&h->lock);
		if (found < 0)
			return;
		carry_wait(h, (uint32_t)found, gen);
	}
}

void rxvk_hold_frame_presented(struct rxvk *rx)
{
	struct hold *h = rx->hold;
	uint64_t now = rxvk_now_ns();
	if (!h)
		return;
	if (!h->frames++)
		h->first_frame_ns = now;
}

/* ---- lifetime ---- */

static double share(uint64_t ns, uint64_t total_ns)
{
	return total_ns ? 100.0 * (double)ns / (double)total_ns : 0.0;
}

static void log_exit_summary(struct hold *h)
{
	struct rxvk *rx = h->rx;
	struct rxvk_counters c;
	rxvk_counters_get(rx, &c);
	if (!c.frames_real && !c.frames_held && !c.frames_written_at_once)
		return;
	/* frame time: from the first real flip's recording to now, when the
	 * device is idle and every frame presented (flips are recorded ahead
	 * of the device, so the span between their recordings is too short) */
	uint64_t span_ns = h->frames ? rxvk_now_ns() - h->first_frame_ns : 0;
	double n = c.frames_real ? (double)c.frames_real : 1.0;
	rxvk_log(rx,
	         "frames: %" PRIu64 " real, held %" PRIu64 ", superseded %" PRIu64
	         ", dropped %" PRIu64 ", carried out %" PRIu64 " by touch %" PRIu64
	         " by op, written at once %" PRIu64
	         "; write target %.2f ms a frame, read back %.2f ms a frame (whole run: write "
	         "target %.1f%%, "
	         "read back %.1f%% of frame time)",
	         c.frames_real, c.frames_held, c.frames_superseded, c.frames_dropped,
	         c.frames_carried_touch, c.frames_carried_op, c.frames_written_at_once,
	         (double)c.target_write_ns / 1e6 / n, (double)c.read_wait_ns / 1e6 / n,
	         share(c.target_write_ns, span_ns), share(c.read_wait_ns, span_ns));
}

int rxvk_hold_init(struct rxvk *rx)
{
	struct hold *h = calloc(1, sizeof *h);
	if (!h)
		return -ENOMEM;
	rx->hold = h;
	h->rx = rx;
	h->req_r = h->req_w = -1;
	h->registry = MAX_RENDERERS;
	pthread_mutex_init(&h->lock, NULL);
	h->on = rx->set.cfg.hold_switched == RXVK_SWITCH_ON;
	h->cpu = rx->info.cpu;
	h->guest = (uintptr_t)rx->guest;
	h->guest_size_B = rx->guest_size_B;
	if (!h->on)
		return 0;

	const char *why = NULL;
	long page = sysconf(_SC_PAGESIZE);
	int fds[2];
	if (page != (long)PAGE || h->guest % PAGE) {
		why = "the system page is not 4 KiB";
	} else if (!(h->guarded = calloc((rx->n_pages + 63) / 64, sizeof(uint64_t)))) {
		return -ENOMEM;
	} else if (pipe2(fds, O_CLOEXEC) != 0) {
		why = "no pipe for carry-out requests";
	} else {
		h->req_r = fds[0];
		h->req_w = fds[1];
		VkCommandPoolCreateInfo pci = {
		        .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		        .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
		        .queueFamilyIndex = rx->queue_family};
		VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
		int rc = vk_check(rx, vkCreateCommandPool(rx->device, &pci, NULL, &h->pool));
		if (rc == 0) {
			VkCommandBufferAllocateInfo ai = {
			        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
			        .commandPool = h->pool,
			        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
			        .commandBufferCount = 1};
			rc = vk_check(rx, vkAllocateCommandBuffers(rx->device, &ai, &h->cmd));
		}
		if (rc == 0)
			rc = vk_check(rx, vkCreateFence(rx->device, &fci, NULL, &h->fence));
		if (rc < 0)
			return rc;
		if (pthread_create(&h->thread, NULL, carry_main, h) != 0) {
			why = "no carry-out thread";
		} else {
			h->thread_started = true;
			for (unsigned i = 0; i < MAX_RENDERERS && h->registry == MAX_RENDERERS;
			     i++) {
				struct hold *none = NULL;
				if (__atomic_compare_exchange_n(&g_holds[i], &none, h, false,
				                                __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
					h->registry = i;
			}
			if (h->registry == MAX_RENDERERS)
				why = "too many renderers hold frames at once";
			else if ((rc = install_handler()) < 0)
				why = "no SIGSEGV handler";
		}
	}
	h->guards = !why;
	if (why)
		rxvk_log(rx, "hold: frames are written back at once: %s", why);
	else
		rxvk_log(rx,
		         "hold: frames switched from are kept on the device until read (guarded "
		         "pages%s)",
		         h->cpu ? "; a CPU device: guarded only once no submitted part touches them"
		                : "");
	return 0;
}

void rxvk_hold_finish(struct rxvk *rx)
{
	struct hold *h = rx->hold;
	if (!h)
		return;
	log_exit_summary(h);
	if (h->registry < MAX_RENDERERS)
		__atomic_store_n(&g_holds[h->registry], NULL, __ATOMIC_SEQ_CST);
	pthread_mutex_lock(&h->lock);
	for (unsigned i = 0; i < HOLD_SLOTS; i++) {
		struct slot *s = &h->slots[i];
		if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != SLOT_FREE) {
			open_pages(h, s);
			release_locked(h, s);
		}
	}
	pthread_mutex_unlock(&h->lock);
	/* a handler that found this renderer before it left g_holds may still
	 * send a request: the thread serves until none runs */
	while (__atomic_load_n(&g_in_handler, __ATOMIC_SEQ_CST)) {
		struct timespec ms = {0, 1000000};
		nanosleep(&ms, NULL);
	}
	if (h->thread_started) {
		struct req stop = {REQ_STOP, 0, 0, UINT32_MAX};
		write_all(h->req_w, &stop, sizeof stop);
		pthread_join(h->thread, NULL);
	}
	if (rx->device) {
		if (h->fence)
			vkDestroyFence(rx->device, h->fence, NULL);
		if (h->pool)
			vkDestroyCommandPool(rx->device, h->pool, NULL);
		if (h->staging)
			vkDestroyBuffer(rx->device, h->staging, NULL);
		if (h->staging_memory)
			vkFreeMemory(rx->device, h->staging_memory, NULL);
		for (unsigned i = 0; i < HOLD_SLOTS; i++)
			snap_free(rx, &h->slots[i]);
	}
	if (h->req_r >= 0)
		close(h->req_r);
	if (h->req_w >= 0)
		close(h->req_w);
	free(h->guarded);
	pthread_mutex_destroy(&h->lock);
	free(h);
	rx->hold = NULL;
}
