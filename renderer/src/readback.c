/* readback: the CPU side of guest memory.  rxvk_invalidate() decides how
 * long a read of GPU results waits (the readback policy), rxvk_cpu_wrote()
 * notes the game's writes, and the capture before each submission makes
 * them visible to the GPU, waiting for late pages.  Also the periodic
 * summary lines of RX_VK_LOG_READBACK_WAITS.
 *
 * The page tables are read and written under rx->lock; waits on the
 * timeline happen outside it. */
#include "private.h"
#include "hold.h"
#include "recorder.h"
#include "replay.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#define EARLY_RANGES RXVK_EARLY_RANGES /* ranges the early policy tracks at most */

/* RX_VK_READBACK_EARLY's state, under rx->lock but for `active`, which the
 * render thread loads once per writing op. */
struct early_range {
	uint64_t addr, size_B;
	uint64_t seq;          /* when it was (re)learnt: the oldest is evicted */
};

struct early {
	bool on;               /* the switch is on (1 or marker) */
	bool marks;            /* RX_VK_READBACK_EARLY=marker: released by markers, no part ends */
	int active;            /* a read of pages written in place has waited */
	struct early_range ranges[EARLY_RANGES];
	unsigned n_ranges;
	uint64_t seq;
	uint64_t *sub;         /* per page: submission of its newest noted write */
	uint64_t *part;        /* per page: that write's part (timeline value) */
	uint64_t *marker;      /* per page: the marker after that write, 0 if none (marker) */
};

/* RX_VK_READBACK_EARLY=marker: a ring of events, one per marker.  Marker
 * `seq` (from 1, in recording order, so in submission order) uses event
 * seq % MARKER_RING; the slot is reused only once the part that signalled
 * it is done.  Host access to an event (reset, status) is under `lock`. */
#define MARKER_RING 1024u

struct markers {
	pthread_mutex_t lock;
	VkEvent events[MARKER_RING];
	uint64_t seq_of[MARKER_RING];   /* the marker a slot holds now, 0 if none */
	uint64_t part_of[MARKER_RING];  /* the part (timeline value) that signals it */
	uint64_t next;                  /* the last marker handed out */
	bool made;
};

/* RX_VK_LOG_RB_WRITERS's summary by read size. */
struct diag_size {
	uint64_t size_B;
	uint64_t waits, wait_ns, known, done_ns, bytes_changed, bytes_after, waits_after;
	uint64_t last_program;
	uint32_t last_kind;
	uint64_t last_program_count;
};

struct diag {
	bool on;
	struct page_writer_info *first, *last; /* per page, newest submission's */
	struct diag_size sizes[16];
	unsigned n_sizes;
	uint64_t reads_at_summary;
};

/* What readback.c keeps beside the page tables. */
struct readback {
	struct early early;
	struct diag diag;
	struct markers markers;
};

/* The value after which submission `sub` is done; waits while it is still
 * being recorded (its last part's value is not known yet). */
uint64_t rxvk_sub_last_value_locked(struct rxvk *rx, uint64_t sub)
{
	for (;;) {
		struct sub_info *s = &rx->subs[sub % SUB_RING];
		if (s->id != sub)
			return 0; /* older than the ring: long done (submit throttles on it) */
		if (s->last_value)
			return s->last_value;
		pthread_cond_wait(&rx->sub_done_recording, &rx->lock);
	}
}

static void log_reads_summary(struct rxvk *rx);
static void log_captures_summary(struct rxvk *rx);

static bool range_ok(const struct rxvk *rx, uint64_t addr, uint64_t size_B)
{
	return size_B <= rx->guest_size_B && addr <= rx->guest_size_B - size_B;
}

/* ---- RX_VK_READBACK_EARLY: the tracked ranges and the early table ---- */

static bool page_tracked_locked(const struct rxvk *rx, uint64_t pg)
{
	uint64_t lo = pg * RXVK_PAGE_SIZE_B, hi = lo + RXVK_PAGE_SIZE_B;
	for (unsigned i = 0; i < rx->rb->early.n_ranges; i++) {
		const struct early_range *r = &rx->rb->early.ranges[i];
		if (r->addr < hi && lo < r->addr + r->size_B)
			return true;
	}
	return false;
}

/* Forgets the early entries of pages no tracked range reaches any more: a
 * write made while a page was untracked must not hide behind an old note. */
static void forget_untracked_locked(struct rxvk *rx, const struct early_range *gone)
{
	uint64_t first = gone->addr / RXVK_PAGE_SIZE_B;
	uint64_t last = (gone->addr + gone->size_B - 1) / RXVK_PAGE_SIZE_B;
	for (uint64_t pg = first; pg <= last; pg++)
		if (!page_tracked_locked(rx, pg)) {
			rx->rb->early.sub[pg] = 0;
			rx->rb->early.part[pg] = 0;
			if (rx->rb->early.marker)
				rx->rb->early.marker[pg] = 0;
		}
}

/* A read of pages written in place waited: track its range (at most
 * EARLY_RANGES, the oldest evicted). */
static void learn_range_locked(struct rxvk *rx, uint64_t addr, uint64_t size_B)
{
	struct early *e = &rx->rb->early;
	for (unsigned i = 0; i < e->n_ranges; i++)
		if (e->ranges[i].addr == addr && e->ranges[i].size_B == size_B) {
			e->ranges[i].seq = ++e->seq;
			return;
		}
	if (e->n_ranges == EARLY_RANGES) {
		unsigned oldest = 0;
		for (unsigned i = 1; i < e->n_ranges; i++)
			if (e->ranges[i].seq < e->ranges[oldest].seq)
				oldest = i;
		struct early_range gone = e->ranges[oldest];
		e->ranges[oldest] = e->ranges[--e->n_ranges];
		forget_untracked_locked(rx, &gone);
	}
	e->ranges[e->n_ranges++] = (struct early_range){ addr, size_B, ++e->seq };
	CNT_SET(rx, early_ranges, e->n_ranges);
	__atomic_store_n(&e->active, 1, __ATOMIC_RELAXED);
}

/* Called by publish() for each in-place write while tracking: every page a
 * tracked range reaches keeps the write's (submission, part), whatever the
 * write's size and whichever bytes of the page it wrote. */
static void early_note_locked(struct rxvk *rx, const struct write_note *w, uint64_t sub, uint64_t part)
{
	struct early *e = &rx->rb->early;
	for (unsigned i = 0; i < e->n_ranges; i++) {
		const struct early_range *r = &e->ranges[i];
		uint64_t lo = r->addr / RXVK_PAGE_SIZE_B * RXVK_PAGE_SIZE_B;
		uint64_t hi = (r->addr + r->size_B + RXVK_PAGE_SIZE_B - 1) / RXVK_PAGE_SIZE_B * RXVK_PAGE_SIZE_B;
		if (lo < w->addr)
			lo = w->addr / RXVK_PAGE_SIZE_B * RXVK_PAGE_SIZE_B;
		if (hi > w->addr + w->size_B)
			hi = w->addr + w->size_B;
		if (lo >= hi)
			continue;
		for (uint64_t pg = lo / RXVK_PAGE_SIZE_B; pg <= (hi - 1) / RXVK_PAGE_SIZE_B; pg++) {
			e->sub[pg] = sub;
			e->part[pg] = part;
			if (e->marker)
				e->marker[pg] = w->marker;
			CNT_ADD(rx, early_pages_noted, 1);
		}
	}
}

/* Whether an op's write reaches the bytes of a tracked range (with `1`:
 * such a write ends its part), or with `marker` any page of one (a marker
 * follows it, so a write of another range's bytes in the same page cannot
 * hide behind an earlier marker).  A single load while nothing has waited. */
bool rxvk_early_writes_tracked_bytes(struct rxvk *rx, const struct rxvk_range *w)
{
	const struct early *e = &rx->rb->early;
	if (!e->on || !__atomic_load_n(&e->active, __ATOMIC_RELAXED))
		return false;
	uint64_t lo = w->addr, hi = w->addr + w->size_B;
	if (e->marks) {
		lo = lo / RXVK_PAGE_SIZE_B * RXVK_PAGE_SIZE_B;
		hi = (hi + RXVK_PAGE_SIZE_B - 1) / RXVK_PAGE_SIZE_B * RXVK_PAGE_SIZE_B;
	}
	bool hit = false;
	pthread_mutex_lock(&rx->lock);
	for (unsigned i = 0; i < e->n_ranges && !hit; i++) {
		const struct early_range *r = &e->ranges[i];
		hit = r->addr < hi && lo < r->addr + r->size_B;
	}
	pthread_mutex_unlock(&rx->lock);
	return hit;
}

bool rxvk_early_marks(struct rxvk *rx)
{
	return rx->rb->early.on && rx->rb->early.marks;
}

size_t rxvk_early_tracked_pages(struct rxvk *rx, uint64_t addr, uint64_t size_B,
                                struct rxvk_range out[RXVK_EARLY_RANGES])
{
	const struct early *e = &rx->rb->early;
	size_t n = 0;
	if (!size_B)
		return 0;
	uint64_t wlo = addr / RXVK_PAGE_SIZE_B * RXVK_PAGE_SIZE_B;
	uint64_t whi = (addr + size_B + RXVK_PAGE_SIZE_B - 1) / RXVK_PAGE_SIZE_B * RXVK_PAGE_SIZE_B;
	pthread_mutex_lock(&rx->lock);
	for (unsigned i = 0; i < e->n_ranges; i++) {
		const struct early_range *r = &e->ranges[i];
		uint64_t lo = r->addr / RXVK_PAGE_SIZE_B * RXVK_PAGE_SIZE_B;
		uint64_t hi = (r->addr + r->size_B + RXVK_PAGE_SIZE_B - 1) / RXVK_PAGE_SIZE_B * RXVK_PAGE_SIZE_B;
		if (lo < wlo)
			lo = wlo;
		if (hi > whi)
			hi = whi;
		if (lo < hi)
			out[n++] = (struct rxvk_range){ lo, hi - lo };
	}
	pthread_mutex_unlock(&rx->lock);
	return n;
}

/* ---- RX_VK_READBACK_EARLY=marker: the markers ---- */

uint64_t rxvk_marker_busy_value(struct rxvk *rx)
{
	struct markers *m = &rx->rb->markers;
	pthread_mutex_lock(&m->lock);
	unsigned slot = (unsigned)((m->next + 1) % MARKER_RING);
	uint64_t busy = m->seq_of[slot] ? m->part_of[slot] : 0;
	pthread_mutex_unlock(&m->lock);
	return busy;
}

int rxvk_marker_take(struct rxvk *rx, uint64_t part_value, VkEvent *out_event, uint64_t *out_seq)
{
	struct markers *m = &rx->rb->markers;
	int rc = 0;
	pthread_mutex_lock(&m->lock);
	uint64_t seq = m->next + 1;
	unsigned slot = (unsigned)(seq % MARKER_RING);
	if (m->seq_of[slot])
		rc = vk_check(rx, vkResetEvent(rx->device, m->events[slot]));
	if (rc == 0) {
		m->next = seq;
		m->seq_of[slot] = seq;
		m->part_of[slot] = part_value;
		*out_event = m->events[slot];
		*out_seq = seq;
	}
	pthread_mutex_unlock(&m->lock);
	if (rc == 0)
		CNT_ADD(rx, markers, 1);
	return rc;
}

/* Whether marker `seq` was seen: its event set while the slot still holds
 * it (a slot is reused only after its part is done, which the caller checks
 * too).  1 seen, 0 not yet, or a negative errno (device lost). */
static int marker_seen(struct rxvk *rx, uint64_t seq)
{
	struct markers *m = &rx->rb->markers;
	unsigned slot = (unsigned)(seq % MARKER_RING);
	pthread_mutex_lock(&m->lock);
	int rc = 1;
	if (m->seq_of[slot] == seq) {
		VkResult r = vkGetEventStatus(rx->device, m->events[slot]);
		rc = r == VK_EVENT_SET ? 1 : r == VK_EVENT_RESET ? 0 : vk_check(rx, r);
	}
	pthread_mutex_unlock(&m->lock);
	return rc;
}

#define MARKER_SPIN_NS 20000ull        /* spin this long before sleeping */
#define MARKER_SLEEP_NS 20000ull       /* then poll every this long */
#define MARKER_SLACK_NS 1000ul         /* the timer slack of those sleeps */

/* Waits until marker `seq` is seen (none when 0) or, the fallback, the
 * timeline reaches part_value (the writer's part): spins briefly, then
 * sleep-polls.  Sets *by_marker when the marker released it first.  0 or a
 * negative errno.
 *
 * A sleep of a thread that is not real-time ends up to its timer slack
 * late (prctl(2), PR_SET_TIMERSLACK: 50 µs unless set), so a 20 µs sleep
 * took up to 70 µs and a release could come that late after its value:
 * the waiting thread's slack is 1 µs while it sleep-polls, and put back
 * as it was before it returns (docs/performance.md, "the poll's timer
 * slack"). */
static int marker_wait(struct rxvk *rx, uint64_t seq, uint64_t part_value, bool *by_marker)
{
	uint64_t t0 = rxvk_now_ns();
	int slack = -1; /* the thread's own, once changed */
	int rc = 0;
	*by_marker = false;
	for (;;) {
		if (rxvk_timeline_done(rx) >= part_value)
			break;
		uint64_t lost = __atomic_load_n(&rx->unsignalled, __ATOMIC_ACQUIRE);
		if (lost && part_value >= lost) {
			rxvk_set_error("timeline value %llu will not come: part %llu failed and could not "
			               "be signalled",
			               (unsigned long long)part_value, (unsigned long long)lost);
			rc = -EIO;
			break;
		}
		int seen = seq ? marker_seen(rx, seq) : 0;
		if (seen != 0) {
			*by_marker = seen > 0;
			rc = seen < 0 ? seen : 0;
			break;
		}
		if (rxvk_now_ns() - t0 > MARKER_SPIN_NS) {
			if (slack < 0 && (slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0)) >= 0)
				prctl(PR_SET_TIMERSLACK, MARKER_SLACK_NS, 0, 0, 0);
			CNT_ADD(rx, reads_poll_sleeps, 1);
			struct timespec ts = { 0, (long)MARKER_SLEEP_NS };
			nanosleep(&ts, NULL);
		}
	}
	if (slack > 0)
		prctl(PR_SET_TIMERSLACK, (unsigned long)slack, 0, 0, 0);
	return rc;
}

static int markers_init(struct rxvk *rx)
{
	struct markers *m = &rx->rb->markers;
	pthread_mutex_init(&m->lock, NULL);
	m->made = true;
	VkEventCreateInfo eci = { .sType = VK_STRUCTURE_TYPE_EVENT_CREATE_INFO };
	for (unsigned i = 0; i < MARKER_RING; i++) {
		int rc = vk_check(rx, vkCreateEvent(rx->device, &eci, NULL, &m->events[i]));
		if (rc < 0)
			return rc;
	}
	return 0;
}

static void markers_finish(struct rxvk *rx)
{
	struct markers *m = &rx->rb->markers;
	if (!m->made)
		return;
	for (unsigned i = 0; i < MARKER_RING; i++)
		if (m->events[i] && rx->device)
			vkDestroyEvent(rx->device, m->events[i], NULL);
	pthread_mutex_destroy(&m->lock);
}

/* Publishes the part's writes and reads to the page tables: from now on a
 * read of those pages waits for this part (or its whole submission).  The
 * early table and the writers' diagnostics are kept here too, under the
 * same lock, so a reader never sees one table ahead of the other. */
void rxvk_publish(struct rxvk *rx, struct part_job *job)
{
	uint64_t value = job->value;
	pthread_mutex_lock(&rx->lock);
	bool early = rx->rb->early.on && __atomic_load_n(&rx->rb->early.active, __ATOMIC_RELAXED);
	for (size_t i = 0; i < job->writes.n; i++) {
		const struct write_note *w = &job->writes.v[i];
		uint64_t first = w->addr / RXVK_PAGE_SIZE_B;
		uint64_t last = (w->addr + w->size_B - 1) / RXVK_PAGE_SIZE_B;
		for (uint64_t pg = first; pg <= last; pg++) {
			rx->page_writer[pg] = job->sub;
			rx->page_final[pg] = value;
			if (w->in_place)
				rx->page_in_place[pg / 64] |= 1ull << (pg % 64);
			else
				rx->page_in_place[pg / 64] &= ~(1ull << (pg % 64));
		}
		/* with `marker` a mirrored write is noted too: its marker, if it
		 * has one, follows its write-back (replay.c) */
		if (early && (w->in_place || rx->rb->early.marks))
			early_note_locked(rx, w, job->sub, value);
		if (rx->rb->diag.on) {
			struct page_writer_info info = { job->sub, value, w->program, w->kind, w->op_index };
			for (uint64_t pg = first; pg <= last; pg++) {
				if (rx->rb->diag.first[pg].sub != job->sub)
					rx->rb->diag.first[pg] = info;
				rx->rb->diag.last[pg] = info;
			}
		}
	}
	for (size_t i = 0; i < job->reads.n; i++) {
		uint64_t first = job->reads.v[i].addr / RXVK_PAGE_SIZE_B;
		uint64_t last = (job->reads.v[i].addr + job->reads.v[i].size_B - 1) / RXVK_PAGE_SIZE_B;
		for (uint64_t pg = first; pg <= last; pg++)
			rx->page_reader[pg] = job->sub;
	}
	pthread_mutex_unlock(&rx->lock);
	job->writes.n = 0;
	job->reads.n = 0;
}

/* ---- the read ---- */

/* What a read of [first, last] pages must wait for, decided under the lock. */
struct decision {
	uint64_t newest;       /* newest pending writer submission, 0 if none */
	bool late;             /* RX_VK_READBACK_LATE: read at once */
	bool early;            /* the writer's part is known */
	bool early_fallback;   /* early on, but the writer is not known */
	bool in_place;         /* a pending page was written in place */
	bool mirrored;         /* a pending page was written in the mirror */
	uint64_t value;        /* timeline value to wait for */
	uint64_t marker;       /* with `marker`: the newest writer's marker, 0 if not every one is known */
	uint64_t sub_first, sub_last; /* newest's span */
	uint64_t diag_value;   /* the last writer's part, for the diagnostics */
	struct page_writer_info last, first;
	uint64_t pages;
};

/* A submission is pending while it records or runs: a page it wrote has a
 * pending GPU write until the whole submission is done, even once the part
 * that wrote it is (that is what the default policy waits for). */
static bool sub_pending_locked(const struct rxvk *rx, uint64_t sub, uint64_t done)
{
	const struct sub_info *s = &rx->subs[sub % SUB_RING];
	return sub && s->id == sub && (!s->last_value || s->last_value > done);
}

static void decide_locked(struct rxvk *rx, uint64_t first, uint64_t last, uint64_t done,
                          struct decision *d)
{
	memset(d, 0, sizeof *d);
	for (uint64_t pg = first; pg <= last; pg++)
		if (rx->page_writer[pg] > d->newest && sub_pending_locked(rx, rx->page_writer[pg], done))
			d->newest = rx->page_writer[pg];
	if (!d->newest)
		return;
	/* the late rule comes first: the newest submission's ranges are read
	 * at once, and nothing else (diagnostics included) waits for them */
	if (rx->set.cfg.readback_late == RXVK_LATE_NEWEST && d->newest == rx->sub_count) {
		d->late = true;
		return;
	}
	const struct early *e = &rx->rb->early;
	bool known = true, marked = true;
	uint64_t part = 0, marker = 0;
	for (uint64_t pg = first; pg <= last; pg++) {
		if (!sub_pending_locked(rx, rx->page_writer[pg], done))
			continue;
		bool in_place = rx->page_in_place[pg / 64] >> (pg % 64) & 1;
		d->in_place |= in_place;
		if (!in_place) {
			/* the mirror's write-back part, or with `marker` the marker
			 * recorded right after the write-back of the page's newest
			 * write (a mirrored page is never "not known") */
			if (rx->page_final[pg] > part)
				part = rx->page_final[pg];
			d->mirrored = true;
			if (e->marker && e->marker[pg] && e->sub[pg] == rx->page_writer[pg] &&
			    e->part[pg] == rx->page_final[pg] && page_tracked_locked(rx, pg)) {
				if (e->marker[pg] > marker)
					marker = e->marker[pg];
			} else {
				marked = false;
			}
		} else if (e->on && e->sub && e->sub[pg] == rx->page_writer[pg] && page_tracked_locked(rx, pg)) {
			if (e->part[pg] > part)
				part = e->part[pg];
			if (!e->marker || !e->marker[pg])
				marked = false;
			else if (e->marker[pg] > marker)
				marker = e->marker[pg];
		} else {
			known = false;
		}
		if (rx->rb->diag.on && rx->rb->diag.last[pg].sub == d->newest) {
			d->pages++;
			if (rx->rb->diag.last[pg].part >= d->last.part)
				d->last = rx->rb->diag.last[pg];
			if (!d->first.sub || rx->rb->diag.first[pg].part < d->first.part ||
			    (rx->rb->diag.first[pg].part == d->first.part &&
			     rx->rb->diag.first[pg].op_index < d->first.op_index))
				d->first = rx->rb->diag.first[pg];
		}
	}
	d->diag_value = d->last.part;
	if (e->on && __atomic_load_n(&e->active, __ATOMIC_RELAXED)) {
		if (known && part) {
			d->early = true;
			d->value = part;
			d->marker = marked ? marker : 0;
		} else if (d->in_place) {
			d->early_fallback = true;
		}
	}
	/* a read released at its writer's part (or marker) does not wait for
	 * the rest of the submission to be recorded; the whole-submission
	 * fallback and the writers' diagnostics need its span */
	if (!d->early || rx->rb->diag.on) {
		uint64_t whole = rxvk_sub_last_value_locked(rx, d->newest);
		if (!d->early)
			d->value = whole;
		struct sub_info *s = &rx->subs[d->newest % SUB_RING];
		d->sub_first = s->first_value;
		d->sub_last = s->last_value;
	}
}

static int diag_wait(struct rxvk *rx, uint64_t addr, uint64_t size_B, const struct decision *d,
                     uint64_t t0, bool *by_marker);

/* The read's own wait: for its writer's marker (the part's value as the
 * fallback); for its writer's part (`early`), polled the same way: a
 * blocking vkWaitSemaphores woke such reads 0.2 ms to 2 ms late on the
 * H200, which left the GPU idle long enough for its clock to drop and the
 * next read to wait longer still (docs/performance.md, "EARLY=1 steadied");
 * else, for a whole submission, on the timeline for `value`. */
static int release_wait(struct rxvk *rx, uint64_t marker, bool early, uint64_t value, bool *by_marker)
{
	*by_marker = false;
	if (marker || early)
		return marker_wait(rx, marker, value, by_marker);
	return rxvk_timeline_wait(rx, value);
}

int rxvk_invalidate(struct rxvk *rx, uint64_t addr, uint64_t size_B, struct rxvk_wait *out)
{
	uint64_t t0 = rxvk_now_ns();
	if (!rx || !range_ok(rx, addr, size_B)) {
		rxvk_set_error("invalidate [0x%" PRIx64 ", +0x%" PRIx64 ") is outside guest memory", addr,
		               size_B);
		return -EINVAL;
	}
	rxvk_hold_invalidate(rx, addr, size_B); /* held frames there are carried out first */
	struct rxvk_wait w = { 0 };
	struct decision d = { 0 };
	uint64_t nth = CNT_ADD(rx, reads, 1) + 1;
	uint64_t first = addr / RXVK_PAGE_SIZE_B, last = size_B ? (addr + size_B - 1) / RXVK_PAGE_SIZE_B : first;
	if (size_B) {
		uint64_t done = rxvk_timeline_done(rx);
		pthread_mutex_lock(&rx->lock);
		decide_locked(rx, first, last, done, &d);
		pthread_mutex_unlock(&rx->lock);
	}
	w.submission = d.newest;
	int rc = 0;
	if (d.late) {
		w.what = RXVK_WAIT_LATE;
		CNT_ADD(rx, reads_late, 1);
	} else if (d.newest) {
		/* released at d.value (or its marker); it sleeps only if that is
		 * still to come */
		w.value = d.value;
		w.what = d.marker ? RXVK_WAIT_MARKER : d.early ? RXVK_WAIT_PART : RXVK_WAIT_SUBMISSION;
		if (d.value > rxvk_timeline_done(rx)) {
			/* the writers' diagnostics wait for the last writer's part (or
			 * marker) first, and list every read that waits */
			bool by_marker;
			uint32_t gates = __atomic_load_n(&rx->test.gate_at_wait, __ATOMIC_ACQUIRE);
			if (gates && rx->test.gate_lock)
				pthread_mutex_lock(rx->test.gate_lock);
			for (int g = 0; g < 3; g++) /* a test's gates */
				if ((gates >> g & 1) && rx->test.gate_event[g])
					vkSetEvent(rx->device, rx->test.gate_event[g]);
			if (gates && rx->test.gate_lock)
				pthread_mutex_unlock(rx->test.gate_lock);
			if (gates)
				__atomic_fetch_add(&rx->test.gate_waits, 1, __ATOMIC_RELEASE);
			if (rx->rb->diag.on && d.diag_value)
				rc = diag_wait(rx, addr, size_B, &d, t0, &by_marker);
			else
				rc = release_wait(rx, d.marker, d.early, d.value, &by_marker);
			if (by_marker)
				CNT_ADD(rx, reads_marker, 1);
			w.waited = true;
		}
	} else {
		w.what = RXVK_WAIT_NOTHING;
	}
	w.wait_ns = rxvk_now_ns() - t0;
	if (w.waited) {
		CNT_ADD(rx, reads_waited, 1);
		CNT_ADD(rx, read_wait_ns, w.wait_ns);
		if (d.early) {
			CNT_ADD(rx, reads_early, 1);
			CNT_ADD(rx, reads_early_wait_ns, w.wait_ns);
		} else {
			CNT_ADD(rx, reads_whole, 1);
			CNT_ADD(rx, reads_whole_wait_ns, w.wait_ns);
			if (d.early_fallback)
				CNT_ADD(rx, reads_early_fallback, 1);
		}
		__atomic_fetch_add(&rx->frame_rb_wait_ns, w.wait_ns, __ATOMIC_RELAXED);
	}
	/* a read of pages with a pending write in place (with `marker`, or in
	 * the mirror, whose write-back its marker then brings forward) had to
	 * wait: from now on its range is tracked (the early policy is idle
	 * until this happens; `1` stays idle with only mirrored pages) */
	if (rx->rb->early.on && (d.in_place || (d.mirrored && rx->rb->early.marks)) && d.newest && !d.late) {
		pthread_mutex_lock(&rx->lock);
		learn_range_locked(rx, addr, size_B);
		pthread_mutex_unlock(&rx->lock);
	}
	if (rx->set.cfg.log_readback_waits == RXVK_SWITCH_ON && nth % 3000 == 0)
		log_reads_summary(rx);
	if (rc < 0)
		return rc;
	if (out)
		*out = w;
	return 0;
}

/* ---- RX_VK_LOG_RB_WRITERS ---- */

static const char *op_word(uint32_t kind)
{
	static const char *words[] = { "write-back", "target", "draw", "dispatch", "copy", "fill", "flip" };
	return kind < RXVK_OP_KIND_COUNT_ ? words[kind] : "?";
}

#define DIAG_SNAP_B 65536u

/* Waits for the last writer's part (or, with `marker`, the read's marker)
 * first, timed, then for the rest of what the read waits for, and counts
 * the bytes the wait changed before and after that point. */
static int diag_wait(struct rxvk *rx, uint64_t addr, uint64_t size_B, const struct decision *d,
                     uint64_t t0, bool *by_marker)
{
	static _Thread_local uint8_t before[DIAG_SNAP_B], at_part[DIAG_SNAP_B];
	uint64_t n = size_B < DIAG_SNAP_B ? size_B : DIAG_SNAP_B;
	const volatile uint8_t *g = rx->guest + addr;
	for (uint64_t i = 0; i < n; i++)
		before[i] = g[i];
	int rc = d->marker ? release_wait(rx, d->marker, d->early, d->value, by_marker)
	                   : release_wait(rx, 0, d->early, d->diag_value < d->value ? d->diag_value : d->value,
	                                  by_marker);
	if (rc < 0)
		return rc;
	uint64_t done_ns = rxvk_now_ns() - t0;
	for (uint64_t i = 0; i < n; i++)
		at_part[i] = g[i];
	if (!d->marker && d->diag_value < d->value && (rc = rxvk_timeline_wait(rx, d->value)) < 0)
		return rc;
	uint64_t wait_ns = rxvk_now_ns() - t0;
	uint64_t changed = 0, after = 0;
	for (uint64_t i = 0; i < n; i++) {
		changed += before[i] != g[i];
		after += at_part[i] != g[i];
	}
	rxvk_log(rx,
	         "readback writers 0x%" PRIx64 " +0x%" PRIx64 ": last %s %016" PRIx64 " (part %" PRIu64
	         ", op %u of %u in submission %" PRIu64 "), first %s %016" PRIx64 " (part %" PRIu64
	         ", op %u), %" PRIu64 " pages; the submission's parts %" PRIu64 "..%" PRIu64
	         "; its last writer's part done %.2f ms into the wait of %.2f; bytes changed %" PRIu64
	         " by then, %" PRIu64 " after",
	         addr, size_B, op_word(d->last.kind), d->last.program, d->last.part, d->last.op_index,
	         rx->subs[d->newest % SUB_RING].n_ops, d->newest, op_word(d->first.kind), d->first.program,
	         d->first.part, d->first.op_index, d->pages, d->sub_first, d->sub_last, done_ns / 1e6,
	         wait_ns / 1e6, changed - after, after);
	pthread_mutex_lock(&rx->summary_lock);
	struct diag *dg = &rx->rb->diag;
	struct diag_size *z = NULL;
	for (unsigned i = 0; i < dg->n_sizes && !z; i++)
		if (dg->sizes[i].size_B == size_B)
			z = &dg->sizes[i];
	if (!z && dg->n_sizes < 16) {
		z = &dg->sizes[dg->n_sizes++];
		memset(z, 0, sizeof *z);
		z->size_B = size_B;
	}
	if (z) {
		z->waits++;
		z->wait_ns += wait_ns;
		z->known++;
		z->done_ns += done_ns;
		z->bytes_changed += changed;
		z->bytes_after += after;
		z->waits_after += after != 0;
		if (z->last_program == d->last.program && z->last_kind == d->last.kind) {
			z->last_program_count++;
		} else {
			z->last_program = d->last.program;
			z->last_kind = d->last.kind;
			z->last_program_count = 1;
		}
	}
	pthread_mutex_unlock(&rx->summary_lock);
	return 0;
}

static void log_writers_summary_locked(struct rxvk *rx)
{
	struct diag *dg = &rx->rb->diag;
	for (unsigned i = 0; i < dg->n_sizes; i++) {
		struct diag_size *z = &dg->sizes[i];
		if (!z->waits)
			continue;
		double each = z->wait_ns / 1e6 / (double)z->waits, done = z->done_ns / 1e6 / (double)z->known;
		rxvk_log(rx,
		         "readback writers, size 0x%" PRIx64 ": %" PRIu64 " waits, %.2f ms each; %" PRIu64
		         " with the last writer's part known: done %.2f ms into their %.2f ms (%.2f ms of "
		         "each wait after it); bytes the wait changed: %.1f each, %.1f of them after the "
		         "part (%" PRIu64 " of %" PRIu64 " waits); last writers: %s %016" PRIx64 " x%" PRIu64,
		         z->size_B, z->waits, each, z->known, done, each, each - done,
		         (double)z->bytes_changed / (double)z->waits, (double)z->bytes_after / (double)z->waits,
		         z->waits_after, z->waits, op_word(z->last_kind), z->last_program,
		         z->last_program_count);
		memset(z, 0, sizeof *z);
	}
	dg->n_sizes = 0;
}

int rxvk_readback_init(struct rxvk *rx)
{
	rx->rb = calloc(1, sizeof *rx->rb);
	if (!rx->rb)
		return -ENOMEM;
	size_t words = (rx->n_pages + 63) / 64;
	rx->page_in_place = calloc(words, sizeof(uint64_t));
	if (!rx->page_in_place)
		return -ENOMEM;
	struct early *e = &rx->rb->early;
	enum rxvk_early mode = rx->set.cfg.readback_early;
	if (mode == RXVK_EARLY_MARKER && !rx->sync2) {
		rxvk_log(rx, "RX_VK_READBACK_EARLY=marker: the device has no synchronization2 "
		             "(vkCmdSetEvent2); reads wait for their writer's part as with 1");
		mode = RXVK_EARLY_PART;
	}
	if (mode == RXVK_EARLY_PART || mode == RXVK_EARLY_MARKER) {
		e->on = true;
		e->marks = mode == RXVK_EARLY_MARKER;
		e->sub = calloc(rx->n_pages, sizeof(uint64_t));
		e->part = calloc(rx->n_pages, sizeof(uint64_t));
		if (!e->sub || !e->part)
			return -ENOMEM;
		if (e->marks) {
			if (!(e->marker = calloc(rx->n_pages, sizeof(uint64_t))))
				return -ENOMEM;
			int rc = markers_init(rx);
			if (rc < 0)
				return rc;
		}
	}
	if (rx->set.cfg.log_rb_writers == RXVK_SWITCH_ON) {
		rx->rb->diag.on = true;
		rx->rb->diag.first = calloc(rx->n_pages, sizeof *rx->rb->diag.first);
		rx->rb->diag.last = calloc(rx->n_pages, sizeof *rx->rb->diag.last);
		if (!rx->rb->diag.first || !rx->rb->diag.last)
			return -ENOMEM;
	}
	return 0;
}

void rxvk_readback_finish(struct rxvk *rx)
{
	free(rx->page_in_place);
	if (!rx->rb)
		return;
	free(rx->rb->early.sub);
	free(rx->rb->early.part);
	free(rx->rb->early.marker);
	markers_finish(rx);
	free(rx->rb->diag.first);
	free(rx->rb->diag.last);
	free(rx->rb);
	rx->rb = NULL;
}

int rxvk_cpu_wrote(struct rxvk *rx, uint64_t addr, uint64_t size_B)
{
	if (!rx || !range_ok(rx, addr, size_B)) {
		rxvk_set_error("cpu_wrote [0x%" PRIx64 ", +0x%" PRIx64 ") is outside guest memory", addr,
		               size_B);
		return -EINVAL;
	}
	if (!size_B)
		return 0;
	uint64_t first = addr / RXVK_PAGE_SIZE_B, last = (addr + size_B - 1) / RXVK_PAGE_SIZE_B;
	uint64_t done = rxvk_timeline_done(rx);
	pthread_mutex_lock(&rx->lock);
	for (uint64_t pg = first; pg <= last; pg++) {
		rx->cpu_dirty[pg / 64] |= 1ull << (pg % 64);
		uint64_t reader = rx->page_reader[pg];
		if (!reader || reader <= rx->late_sub)
			continue;
		struct sub_info *s = &rx->subs[reader % SUB_RING];
		if (s->id != reader)
			continue;
		/* still recording (value unknown) or still running: a late page */
		if (!s->last_value || s->last_value > done)
			rx->late_sub = reader;
	}
	pthread_mutex_unlock(&rx->lock);
	return 0;
}

/* Makes the CPU's writes visible to the GPU before submission `sub`: waits
 * for the submissions still reading late pages, then, in the mirror, copies
 * the dirty pages of active blocks and activates the blocks first written
 * in place since the last capture.  Recorded at the head of `cmd`. */
/* Keeps what the capture is about to change in the part's job, for
 * rxvk_capture_undo().  Under rx->lock. */
static int capture_save_locked(struct rxvk *rx, struct part_job *job)
{
	size_t words = (rx->n_pages + 63) / 64;
	size_t blocks = rx->mirrored ? (rx->guest_size_B + MIRROR_BLOCK_B - 1) / MIRROR_BLOCK_B : 0;
	if (job->undo_words < words) {
		uint64_t *v = realloc(job->dirty_undo, words * sizeof *v);
		if (!v)
			return -ENOMEM;
		job->dirty_undo = v;
		job->undo_words = words;
	}
	if (blocks && job->undo_blocks < blocks) {
		uint8_t *v = realloc(job->blocks_undo, blocks);
		if (!v)
			return -ENOMEM;
		job->blocks_undo = v;
		job->undo_blocks = blocks;
	}
	memcpy(job->dirty_undo, rx->cpu_dirty, words * sizeof *rx->cpu_dirty);
	if (blocks)
		memcpy(job->blocks_undo, rx->block_state, blocks);
	job->captured = true;
	return 0;
}

void rxvk_capture_undo(struct rxvk *rx, struct part_job *job)
{
	if (!job->captured)
		return;
	size_t words = (rx->n_pages + 63) / 64;
	size_t blocks = rx->mirrored ? (rx->guest_size_B + MIRROR_BLOCK_B - 1) / MIRROR_BLOCK_B : 0;
	pthread_mutex_lock(&rx->lock);
	for (size_t i = 0; i < words; i++)
		rx->cpu_dirty[i] |= job->dirty_undo[i];
	for (size_t b = 0; b < blocks; b++)
		if (rx->block_state[b] == BLOCK_ACTIVE && job->blocks_undo[b] != BLOCK_ACTIVE)
			rx->block_state[b] = job->blocks_undo[b];
	pthread_mutex_unlock(&rx->lock);
	job->captured = false;
}

int rxvk_capture(struct rxvk *rx, struct part_job *job, uint64_t sub)
{
	struct cmdlist *cl = &job->cl;
	uint64_t t0 = rxvk_now_ns();
	int rc = 0;
	pthread_mutex_lock(&rx->lock);
	uint64_t late = rx->late_sub;
	uint64_t late_value = late ? rxvk_sub_last_value_locked(rx, late) : 0;
	rx->late_sub = 0;
	pthread_mutex_unlock(&rx->lock);
	if (late_value && late_value > rxvk_timeline_done(rx)) {
		uint64_t w0 = rxvk_now_ns();
		rc = rxvk_timeline_wait(rx, late_value);
		CNT_ADD(rx, captures_late, 1);
		CNT_ADD(rx, capture_wait_ns, rxvk_now_ns() - w0);
	}
	pthread_mutex_lock(&rx->lock);
	if (rc == 0)
		rc = capture_save_locked(rx, job);
	pthread_mutex_unlock(&rx->lock);
	if (rc == 0 && rx->mirrored) {
		pthread_mutex_lock(&rx->lock);
		uint64_t n_blocks = (rx->guest_size_B + MIRROR_BLOCK_B - 1) / MIRROR_BLOCK_B;
		uint64_t run_at = 0, run_B = 0; /* dirty pages coalesced into runs */
		for (uint64_t b = 0; b < n_blocks; b++) {
			if (rx->block_state[b] == BLOCK_PENDING) {
				/* first written in place since the last capture: from now on
				 * the block lives in the mirror, copied in whole */
				cl_copy_buffer(cl, rx->guest_buffer, rx->mirror_buffer, b * MIRROR_BLOCK_B,
				               b * MIRROR_BLOCK_B, MIRROR_BLOCK_B);
				rx->block_state[b] = BLOCK_ACTIVE;
				CNT_ADD(rx, mirror_blocks, 1);
			} else if (rx->block_state[b] == BLOCK_ACTIVE) {
				for (uint64_t pg = b * PAGES_PER_BLOCK; pg < (b + 1) * PAGES_PER_BLOCK; pg++) {
					if (!(rx->cpu_dirty[pg / 64] >> (pg % 64) & 1))
						continue;
					uint64_t off = pg * RXVK_PAGE_SIZE_B;
					if (run_B && run_at + run_B == off) {
						run_B += RXVK_PAGE_SIZE_B;
						continue;
					}
					if (run_B)
						cl_copy_buffer(cl, rx->guest_buffer, rx->mirror_buffer, run_at, run_at, run_B);
					run_at = off;
					run_B = RXVK_PAGE_SIZE_B;
				}
			}
		}
		if (run_B)
			cl_copy_buffer(cl, rx->guest_buffer, rx->mirror_buffer, run_at, run_at, run_B);
		pthread_mutex_unlock(&rx->lock);
		cl_barrier(cl);
	}
	pthread_mutex_lock(&rx->lock);
	rxvk_replay_cpu_wrote_locked(rx); /* targets over the CPU's bytes reload them */
	memset(rx->cpu_dirty, 0, (rx->n_pages + 63) / 64 * sizeof(uint64_t));
	pthread_mutex_unlock(&rx->lock);
	uint64_t spent = rxvk_now_ns() - t0;
	CNT_ADD(rx, memsync_ns, spent);
	rx->frame_memsync_ns += spent;
	(void)sub;
	if (CNT_ADD(rx, captures, 1) % 600 == 599 &&
	    rx->set.cfg.log_readback_waits == RXVK_SWITCH_ON)
		log_captures_summary(rx);
	return rc;
}

static double ms_each(uint64_t ns, uint64_t n)
{
	return n ? (double)ns / 1e6 / (double)n : 0.0;
}

/* RX_VK_LOG_READBACK_WAITS: one line every 3000 reads (and the frames line
 * with it), one every 600 captures; formats in docs/renderer.md, parsed by
 * the harness's profiles/rxvk.collect. */
static void log_reads_summary(struct rxvk *rx)
{
	struct rxvk_counters c;
	pthread_mutex_lock(&rx->summary_lock);
	rxvk_counters_get(rx, &c);
	struct rxvk_counters *b = &rx->summary_base;
	{
		uint64_t waited = c.reads_waited - b->reads_waited;
		uint64_t early = c.reads_early - b->reads_early;
		uint64_t whole_fallback = c.reads_early_fallback - b->reads_early_fallback;
		rxvk_log(rx,
		         "readbacks: %" PRIu64 " reads, %" PRIu64 " waited %.2f ms each; early: %" PRIu64
		         " at the writer's part %.2f ms each, %" PRIu64
		         " for their whole submission (writer not known), %" PRIu64
		         " parts ended after a writer; late: %" PRIu64,
		         c.reads - b->reads, waited, ms_each(c.read_wait_ns - b->read_wait_ns, waited), early,
		         ms_each(c.reads_early_wait_ns - b->reads_early_wait_ns, early), whole_fallback,
		         c.parts_split_early - b->parts_split_early, c.reads_late - b->reads_late);
		uint64_t frames = c.frames_real - b->frames_real;
		rxvk_log(rx,
		         "frames: %" PRIu64 " real, held %" PRIu64 ", superseded %" PRIu64 ", dropped %" PRIu64
		         ", carried out %" PRIu64 " by touch %" PRIu64 " by op, written at once %" PRIu64
		         "; write target %.2f ms a frame, read back %.2f ms a frame",
		         frames, c.frames_held - b->frames_held, c.frames_superseded - b->frames_superseded,
		         c.frames_dropped - b->frames_dropped, c.frames_carried_touch - b->frames_carried_touch,
		         c.frames_carried_op - b->frames_carried_op,
		         c.frames_written_at_once - b->frames_written_at_once,
		         ms_each(c.target_write_ns - b->target_write_ns, frames),
		         ms_each(c.read_wait_ns - b->read_wait_ns, frames));
		/* the same as shares of the wall time since the last summary (read
		 * back is summed over every waiting thread: it can pass 100%) */
		uint64_t now = rxvk_now_ns(), span = now - rx->summary_at_ns;
		rxvk_log(rx, "frame time shares: write target %.1f%%, read back %.1f%% over %" PRIu64
		             " frames in %.2f s",
		         span ? 100.0 * (double)(c.target_write_ns - b->target_write_ns) / (double)span : 0.0,
		         span ? 100.0 * (double)(c.read_wait_ns - b->read_wait_ns) / (double)span : 0.0,
		         frames, (double)span / 1e9);
		rx->summary_at_ns = now;
		b->reads = c.reads;
		b->reads_waited = c.reads_waited;
		b->read_wait_ns = c.read_wait_ns;
		b->reads_early = c.reads_early;
		b->reads_early_wait_ns = c.reads_early_wait_ns;
		b->reads_early_fallback = c.reads_early_fallback;
		b->parts_split_early = c.parts_split_early;
		b->reads_late = c.reads_late;
		b->frames_real = c.frames_real;
		b->frames_held = c.frames_held;
		b->frames_superseded = c.frames_superseded;
		b->frames_dropped = c.frames_dropped;
		b->frames_carried_touch = c.frames_carried_touch;
		b->frames_carried_op = c.frames_carried_op;
		b->frames_written_at_once = c.frames_written_at_once;
		b->target_write_ns = c.target_write_ns;
	}
	if (rx->rb->diag.on)
		log_writers_summary_locked(rx);
	pthread_mutex_unlock(&rx->summary_lock);
}

static void log_captures_summary(struct rxvk *rx)
{
	struct rxvk_counters c;
	pthread_mutex_lock(&rx->summary_lock);
	rxvk_counters_get(rx, &c);
	struct rxvk_counters *b = &rx->summary_base;
	{
		uint64_t late = c.captures_late - b->captures_late;
		rxvk_log(rx, "captures: %" PRIu64 ", %" PRIu64 " waited for late pages %.2f ms each",
		         c.captures - b->captures, late, ms_each(c.capture_wait_ns - b->capture_wait_ns, late));
		b->captures = c.captures;
		b->captures_late = c.captures_late;
		b->capture_wait_ns = c.capture_wait_ns;
	}
	pthread_mutex_unlock(&rx->summary_lock);
}
