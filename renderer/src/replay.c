/* replay: turns a submission's guest ops into parts, command buffers that
 * each signal the next value of the recordings' timeline, and publishes
 * what each part wrote to the page tables once it is submitted.  It owns
 * op validation, command recording, render targets and their write-back,
 * and where each guest range lives (in place or in the mirror).  Readback
 * policy is readback.c's; presentation is present.c's. */
#include "private.h"
#include "hold.h"
#include "irq.h"
#include "recorder.h"
#include "replay.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_TARGETS 32u
#define MAX_OP_COUNT (1u << 20)        /* instances or workgroups an op may ask for */
#define MAX_TARGET_DIM 16384u

/* What a part has recorded so far. */
struct part {
	struct part_job *job;  /* its commands and notes */
	uint64_t value;        /* timeline value it signals */
	uint32_t ops;
	bool rendering;        /* inside a rendering instance */
	/* mirror pages this part wrote: written back at its end (pairs of
	 * address, size), or with `marker` before a tracked writer's marker */
	uint64_t *wb_pages;
	size_t n_wb, cap_wb;
};

/* Pairs of (address, size), the scratch lists of the write-back before a
 * marker; kept across parts, render thread only. */
struct pairs {
	uint64_t *v;
	size_t n, cap;         /* in uint64_t, two a pair */
};

struct target {
	bool used;
	uint64_t addr;
	uint64_t size_B;       /* pitch_B * (height - 1) + width * 4 */
	uint32_t width, height, pitch_B;
	enum rxvk_format format;
	VkImage image;
	VkImageView view;
	VkDeviceMemory memory;
	bool image_valid;      /* the image holds what guest memory holds (or newer) */
	bool initialised;      /* layout moved out of UNDEFINED */
	bool pending;          /* drawn into since it was last written back */
	uint64_t init_value;   /* the part that moved its layout out of UNDEFINED */
	uint64_t load_value;   /* the part that last loaded it from guest memory */
	uint64_t last_use;     /* for replacing the least recently used */
};

/* What replay.c keeps across submissions: render thread only. */
struct replay {
	struct target targets[MAX_TARGETS];
	int current_target;             /* index, -1 if none */
	uint64_t target_clock;
};


/* A guest range as the GPU reaches it. */
struct where {
	VkBuffer buffer;
	uint64_t offset;
	VkDeviceAddress addr;
	bool in_place;
};

/* The submission being recorded: render thread only. */
struct recording {
	uint64_t sub;
	struct part part;          /* its job holds the commands, writes and reads */
	struct pairs spans, copies, keep; /* the write-back before a marker */
	uint64_t first_value;
	uint32_t op_index;
	uint32_t ops_done;         /* ops recorded so far, the span's total work */
	bool split_pending;        /* a writer of tracked bytes: end the part at the gap */
};

static const char *kind_name(uint32_t kind)
{
	static const char *names[] = { "?", "SET_TARGET", "DRAW", "DISPATCH", "COPY", "FILL", "FLIP" };
	return kind < RXVK_OP_KIND_COUNT_ ? names[kind] : "?";
}

static int range_push(struct range_list *l, uint64_t addr, uint64_t size_B)
{
	if (size_B == 0)
		return 0;
	if (l->n && l->v[l->n - 1].addr + l->v[l->n - 1].size_B == addr) {
		l->v[l->n - 1].size_B += size_B;
		return 0;
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		struct rxvk_range *v = realloc(l->v, cap * sizeof *v);
		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = (struct rxvk_range){ addr, size_B };
	return 0;
}

static int note_push(struct write_list *l, struct write_note note)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		struct write_note *v = realloc(l->v, cap * sizeof *v);
		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = note;
	return 0;
}

/* Notes a GPU write of the op being recorded (kind 0: a target write-back). */
static int write_push(struct recording *rec, uint64_t addr, uint64_t size_B, bool in_place,
                      const struct rxvk_op *op)
{
	if (size_B == 0)
		return 0;
	return note_push(&rec->part.job->writes, (struct write_note){ .addr = addr,
	                                                              .size_B = size_B,
	                                                              .in_place = in_place,
	                                                              .kind = op ? op->kind : 0,
	                                                              .op_index = rec->op_index,
	                                                              .program = op ? op->program : 0 });
}

static int pair_push(struct pairs *l, uint64_t addr, uint64_t size_B)
{
	if (size_B == 0)
		return 0;
	if (l->n + 2 > l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		uint64_t *v = realloc(l->v, cap * sizeof *v);
		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = addr;
	l->v[l->n++] = size_B;
	return 0;
}

static bool overlaps(uint64_t a, uint64_t as, uint64_t b, uint64_t bs)
{
	return as && bs && a < b + bs && b < a + as;
}

/* ---- validation: nothing is submitted unless every op is good ---- */

static int invalid(size_t i, const struct rxvk_op *op, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int invalid(size_t i, const struct rxvk_op *op, const char *fmt, ...)
{
	char msg[384];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	rxvk_set_error("op %zu (%s): %s", i, kind_name(op->kind), msg);
	return -EINVAL;
}

static bool in_guest(const struct rxvk *rx, const struct rxvk_range *r)
{
	return r->size_B <= rx->guest_size_B && r->addr <= rx->guest_size_B - r->size_B;
}

static uint64_t target_size(uint32_t w, uint32_t h, uint32_t pitch_B)
{
	return (uint64_t)pitch_B * (h - 1) + (uint64_t)w * 4;
}

/* A SET_TARGET op: a known format, a size and pitch in range, and a write
 * the target fits in. */
static int validate_target(size_t i, const struct rxvk_op *op)
{
	uint32_t w = op->params[0], h = op->params[1], pitch = op->params[2], f = op->params[3];
	if (f < RXVK_FORMAT_RGBA8 || f > RXVK_FORMAT_DEPTH)
		return invalid(i, op, "unknown format %" PRIu32, f);
	if (w == 0 || h == 0 || w > MAX_TARGET_DIM || h > MAX_TARGET_DIM)
		return invalid(i, op, "size %" PRIu32 "x%" PRIu32 " is not in 1..%u", w, h,
		               MAX_TARGET_DIM);
	if (pitch < w * 4 || pitch % 4)
		return invalid(i, op, "pitch %" PRIu32 " B is under 4 x width or not a multiple of 4",
		               pitch);
	if (op->write.size_B < target_size(w, h, pitch) || op->write.addr % 4)
		return invalid(i, op, "a %" PRIu32 "x%" PRIu32 " target does not fit in write "
		               "(%" PRIu64 " B, %" PRIu64 " needed, 4-byte aligned)",
		               w, h, op->write.size_B, target_size(w, h, pitch));
	return 0;
}

static int validate(struct rxvk *rx, const struct rxvk_op *ops, size_t n)
{
	int cur_format = rx->replay->current_target >= 0 ? (int)rx->replay->targets[rx->replay->current_target].format : 0;
	for (size_t i = 0; i < n; i++) {
		const struct rxvk_op *op = &ops[i];
		const struct rxvk_range *rs[3] = { &op->read[0], &op->read[1], &op->write };
		static const char *rn[3] = { "read[0]", "read[1]", "write" };
		if (op->kind < RXVK_OP_SET_TARGET || op->kind >= RXVK_OP_KIND_COUNT_)
			return invalid(i, op, "unknown op kind %" PRIu32, op->kind);
		for (int k = 0; k < 3; k++)
			if (!in_guest(rx, rs[k]))
				return invalid(i, op, "%s [0x%" PRIx64 ", +0x%" PRIx64 ") is outside guest memory "
				               "(0x%" PRIx64 " bytes)", rn[k], rs[k]->addr, rs[k]->size_B,
				               rx->guest_size_B);
		const struct program *prog = NULL;
		if (op->kind == RXVK_OP_DRAW || op->kind == RXVK_OP_DISPATCH) {
			prog = rxvk_program_find(rx, op->program);
			if (!prog)
				return invalid(i, op, "unknown program 0x%016" PRIx64, op->program);
			if (prog->compute != (op->kind == RXVK_OP_DISPATCH))
				return invalid(i, op, "program '%s' is a %s program", prog->name,
				               prog->compute ? "compute" : "draw");
			uint32_t max = op->kind == RXVK_OP_DISPATCH ? 65535u : MAX_OP_COUNT;
			if (op->count == 0 || op->count > max)
				return invalid(i, op, "count %" PRIu32 " is not in 1..%" PRIu32, op->count, max);
			for (int k = 0; k < 3; k++)
				if (rs[k]->addr % 4 || rs[k]->size_B % 4)
					return invalid(i, op, "%s of a program must be 4-byte aligned", rn[k]);
		} else if (op->program != 0) {
			return invalid(i, op, "names a program but runs none");
		}
		switch (op->kind) {
		case RXVK_OP_SET_TARGET: {
			int rc = validate_target(i, op);
			if (rc < 0)
				return rc;
			cur_format = (int)op->params[3];
			break;
		}
		case RXVK_OP_DRAW:
			if (!cur_format)
				return invalid(i, op, "no target set");
			if (prog == &rx->programs[PROG_INSTANCED] && op->read[0].size_B < (uint64_t)op->count * 16)
				return invalid(i, op, "read[0] holds %" PRIu64 " B, %" PRIu64 " needed for %" PRIu32
				               " instances", op->read[0].size_B, (uint64_t)op->count * 16, op->count);
			if (prog == &rx->programs[PROG_TEXTURED]) {
				uint32_t w = op->params[0], h = op->params[1], pitch = op->params[2];
				if (w == 0 || h == 0 || w > MAX_TARGET_DIM || h > MAX_TARGET_DIM || pitch < w * 4 ||
				    pitch % 4 || (op->params[3] != RXVK_FORMAT_RGBA8 && op->params[3] != RXVK_FORMAT_BGRA8))
					return invalid(i, op, "texture %" PRIu32 "x%" PRIu32 " pitch %" PRIu32
					               " format %" PRIu32 " is not valid", w, h, pitch, op->params[3]);
				for (int k = 0; k < 2; k++)
					if ((k == 0 || op->read[1].size_B) && op->read[k].size_B < target_size(w, h, pitch))
						return invalid(i, op, "read[%d] is smaller than its texture", k);
			}
			break;
		case RXVK_OP_DISPATCH:
			if (prog == &rx->programs[PROG_CULL]) {
				uint64_t total = op->params[0];
				if (op->read[0].size_B < total * 16 || op->write.size_B < 32 + total * 4 ||
				    op->write.addr % 16 || op->read[0].addr % 16)
					return invalid(i, op, "cull of %" PRIu64 " instances needs read[0] of %" PRIu64
					               " B and write of %" PRIu64 " B, 16-byte aligned", total,
					               total * 16, 32 + total * 4);
				if ((uint64_t)op->count * 64 < total)
					return invalid(i, op, "%" PRIu32 " workgroups of 64 do not cover %" PRIu64
					               " instances", op->count, total);
			} else if (op->write.size_B < 8) {
				return invalid(i, op, "spin needs a write of 8 bytes");
			}
			break;
		case RXVK_OP_COPY:
			if (op->read[0].size_B == 0 || op->read[0].size_B != op->write.size_B)
				return invalid(i, op, "read[0] (%" PRIu64 " B) and write (%" PRIu64
				               " B) must be the same, non-zero size", op->read[0].size_B,
				               op->write.size_B);
			if (overlaps(op->read[0].addr, op->read[0].size_B, op->write.addr, op->write.size_B))
				return invalid(i, op, "source and destination overlap");
			break;
		case RXVK_OP_FILL:
			if (op->write.size_B == 0 || op->write.size_B % 4 || op->write.addr % 4)
				return invalid(i, op, "write must be non-empty and 4-byte aligned");
			break;
		case RXVK_OP_FLIP:
			if (cur_format != RXVK_FORMAT_RGBA8 && cur_format != RXVK_FORMAT_BGRA8)
				return invalid(i, op, "no colour target to present");
			break;
		}
	}
	return 0;
}

/* ---- command buffers and parts ---- */

#define CL(rec) (&(rec)->part.job->cl)

static void end_rendering(struct rxvk *rx, struct recording *rec)
{
	if (rec->part.rendering) {
		cl_end_rendering(CL(rec));
		rec->part.rendering = false;
		cl_barrier(CL(rec));
	}
}

static int part_begin(struct rxvk *rx, struct recording *rec)
{
	uint64_t *wb = rec->part.wb_pages;
	size_t cap_wb = rec->part.cap_wb;
	memset(&rec->part, 0, sizeof rec->part);
	rec->part.wb_pages = wb;
	rec->part.cap_wb = cap_wb;
	rec->split_pending = false;
	rec->part.job = rxvk_recorder_job(rx);
	if (!rec->part.job)
		return -ENOMEM;
	rec->part.value = ++rx->next_value;
	rec->part.job->sub = rec->sub;
	rec->part.job->value = rec->part.value;
	cl_barrier(CL(rec));
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Sorts n_pairs (address, size) pairs and merges those that overlap or
 * touch; returns the pairs left. */
static size_t pairs_merge(uint64_t *v, size_t n_pairs)
{
	qsort(v, n_pairs, 2 * sizeof *v, cmp_range);
	size_t out = 0;
	for (size_t i = 0; i < 2 * n_pairs; i += 2) {
		uint64_t at = v[i], size = v[i + 1];
		if (out && v[out - 2] + v[out - 1] >= at) {
			uint64_t end = at + size > v[out - 2] + v[out - 1] ? at + size : v[out - 2] + v[out - 1];
			v[out - 1] = end - v[out - 2];
			continue;
		}
		v[out++] = at;
		v[out++] = size;
	}
	return out / 2;
}

/* Copies mirror ranges (pairs, n_pairs) back to guest memory: sorted and
 * merged first, so no two copies write the same bytes (two unordered copies
 * of one range are a write-after-write hazard, even of equal bytes). */
static void copy_back(struct rxvk *rx, struct cmdlist *cl, uint64_t *v, size_t n_pairs)
{
	n_pairs = pairs_merge(v, n_pairs);
	for (size_t i = 0; i < 2 * n_pairs; i += 2)
		cl_copy_buffer(cl, rx->mirror_buffer, rx->guest_buffer, v[i], v[i], v[i + 1]);
	CNT_ADD(rx, mirror_writebacks, n_pairs);
	cl_barrier(cl);
}

/* Copies this part's mirror writes back to guest memory. */
static void mirror_writeback(struct rxvk *rx, struct recording *rec)
{
	struct part *p = &rec->part;
	if (!p->n_wb)
		return;
	copy_back(rx, &p->job->cl, p->wb_pages, p->n_wb / 2);
	p->n_wb = 0;
}

/* Splits [at, at + size_B) by `spans` (sorted, merged pairs): the pieces
 * inside go to `in`, those outside to `out` (either may be NULL). */
static int split_by_spans(const struct pairs *spans, uint64_t at, uint64_t size_B, struct pairs *in,
                          struct pairs *out)
{
	uint64_t end = at + size_B;
	int rc = 0;
	for (size_t j = 0; j < spans->n && at < end && rc == 0; j += 2) {
		uint64_t lo = spans->v[j], hi = lo + spans->v[j + 1];
		if (hi <= at)
			continue;
		if (lo >= end)
			break;
		if (lo > at && out)
			rc = pair_push(out, at, lo - at);
		uint64_t from = lo > at ? lo : at, to = hi < end ? hi : end;
		if (rc == 0 && in)
			rc = pair_push(in, from, to - from);
		at = to;
	}
	if (rc == 0 && at < end && out)
		rc = pair_push(out, at, end - at);
	return rc;
}

/* Step of a marker in mirrored memory: the pages of the op's mirror writes
 * (notes from notes_before on) that a tracked range reaches are the pages a
 * waiting read needs.  Every write of this part still to be written back
 * there (the op's, and earlier ones) is copied to guest memory now, before
 * the marker, and taken off the part's end; rec->spans keeps the pages. */
static int writeback_before_marker(struct rxvk *rx, struct recording *rec, size_t notes_before)
{
	struct part *p = &rec->part;
	const struct write_list *l = &p->job->writes;
	struct rxvk_range tracked[RXVK_EARLY_RANGES];
	int rc = 0;
	rec->spans.n = rec->copies.n = rec->keep.n = 0;
	for (size_t k = notes_before; k < l->n && rc == 0; k++) {
		if (l->v[k].in_place)
			continue;
		size_t n = rxvk_early_tracked_pages(rx, l->v[k].addr, l->v[k].size_B, tracked);
		for (size_t j = 0; j < n && rc == 0; j++)
			rc = pair_push(&rec->spans, tracked[j].addr, tracked[j].size_B);
	}
	if (rc < 0 || !rec->spans.n)
		return rc;
	rec->spans.n = 2 * pairs_merge(rec->spans.v, rec->spans.n / 2);
	for (size_t i = 0; i < p->n_wb && rc == 0; i += 2)
		rc = split_by_spans(&rec->spans, p->wb_pages[i], p->wb_pages[i + 1], &rec->copies, &rec->keep);
	if (rc < 0)
		return rc;
	if (rec->copies.n) {
		cl_barrier(CL(rec)); /* the writer's writes before the copies read them */
		copy_back(rx, CL(rec), rec->copies.v, rec->copies.n / 2);
		CNT_ADD(rx, mirror_writebacks_marker, 1);
	}
	/* what is left is written back at the part's end */
	uint64_t *v = p->wb_pages;
	size_t cap = p->cap_wb;
	p->wb_pages = rec->keep.v;
	p->n_wb = rec->keep.n;
	p->cap_wb = rec->keep.cap;
	rec->keep.v = v;
	rec->keep.cap = cap;
	rec->keep.n = 0;
	return 0;
}

/* Step of a marker: the writes noted from notes_before on carry marker
 * `seq`: in place, every one (the marker follows them); in the mirror, the
 * pieces written back before it (rec->spans), the rest none (their pages
 * are released at the part's end, which writes them back). */
static int notes_carry_marker(struct rxvk *rx, struct recording *rec, size_t notes_before, uint64_t seq)
{
	struct write_list *l = &rec->part.job->writes;
	size_t n = l->n;
	int rc = 0;
	for (size_t k = notes_before; k < n && rc == 0; k++) {
		if (l->v[k].in_place || !rx->mirrored) {
			l->v[k].marker = seq;
			continue;
		}
		struct pairs *in = &rec->copies, *out = &rec->keep;
		in->n = out->n = 0;
		if ((rc = split_by_spans(&rec->spans, l->v[k].addr, l->v[k].size_B, in, out)) < 0)
			break;
		struct write_note note = l->v[k];
		for (size_t i = 0; i < in->n + out->n && rc == 0; i += 2) {
			bool inside = i < in->n;
			note.addr = inside ? in->v[i] : out->v[i - in->n];
			note.size_B = inside ? in->v[i + 1] : out->v[i - in->n + 1];
			note.marker = inside ? seq : 0;
			if (i == 0)
				l->v[k] = note;
			else
				rc = note_push(l, note);
		}
	}
	return rc;
}

static int wb_push(struct part *p, uint64_t addr, uint64_t size)
{
	if (p->n_wb && p->wb_pages[p->n_wb - 2] + p->wb_pages[p->n_wb - 1] == addr) {
		p->wb_pages[p->n_wb - 1] += size;
		return 0;
	}
	if (p->n_wb + 2 > p->cap_wb) {
		size_t cap = p->cap_wb ? p->cap_wb * 2 : 64;
		uint64_t *v = realloc(p->wb_pages, cap * sizeof *v);
		if (!v)
			return -ENOMEM;
		p->wb_pages = v;
		p->cap_wb = cap;
	}
	p->wb_pages[p->n_wb++] = addr;
	p->wb_pages[p->n_wb++] = size;
	return 0;
}

static int part_end(struct rxvk *rx, struct recording *rec)
{
	struct part *p = &rec->part;
	if (p->rendering && !p->n_wb) {
		/* the closing command buffer's barrier follows (record.c) */
		cl_end_rendering(CL(rec));
		p->rendering = false;
	}
	end_rendering(rx, rec);
	mirror_writeback(rx, rec);
	struct part_job *job = p->job;
	p->job = NULL;
	return rxvk_recorder_put(rx, job);
}

/* Waits for a timeline value the render thread handed out: parts still
 * with the recorder are submitted first, or the wait would never end. */
static int wait_value(struct rxvk *rx, uint64_t value)
{
	int rc = rxvk_recorder_drain(rx);
	return rc < 0 ? rc : rxvk_timeline_wait(rx, value);
}

/* RX_VK_READBACK_EARLY=marker: right after a tracked writer, inside its
 * part, a marker the CPU can observe; the writes noted from notes_before on
 * (the op's, and frames it wrote back first) carry its number.  A marker
 * whose event is still in use by this very part is left out: those writes
 * are released at their part, the fallback. */
static int place_marker(struct rxvk *rx, struct recording *rec, size_t notes_before)
{
	uint64_t busy = rxvk_marker_busy_value(rx);
	int rc;
	if (busy && busy > rxvk_timeline_done(rx)) {
		if (busy >= rec->part.value)
			return 0;
		if ((rc = wait_value(rx, busy)) < 0)
			return rc;
	}
	end_rendering(rx, rec);
	VkEvent event;
	uint64_t seq;
	if ((rc = rxvk_marker_take(rx, rec->part.value, &event, &seq)) < 0)
		return rc;
	if (rx->mirrored && (rc = writeback_before_marker(rx, rec, notes_before)) < 0)
		return rc;
	cl_marker(CL(rec), event);
	return notes_carry_marker(rx, rec, notes_before, seq);
}

static int maybe_split(struct rxvk *rx, struct recording *rec)
{
	if (rec->part.ops < rx->set.cfg.part_ops)
		return 0;
	int rc = part_end(rx, rec);
	return rc < 0 ? rc : part_begin(rx, rec);
}

/* ---- where a guest range lives ---- */

static bool block_all(const struct rxvk *rx, uint64_t addr, uint64_t size, uint8_t state, bool *any)
{
	bool all = true;
	*any = false;
	for (uint64_t b = addr / MIRROR_BLOCK_B; b <= (addr + size - 1) / MIRROR_BLOCK_B; b++) {
		bool is = rx->block_state[b] == state;
		all &= is;
		*any |= is;
	}
	return all;
}

/* Resolves a range for an op about to be recorded.  In place unless every
 * block of it is active in the mirror.  An in-place op over active blocks
 * first has this part's mirror writes copied back, and its own writes are
 * copied into the mirror after it (see resolve_after). */
static int resolve(struct rxvk *rx, struct recording *rec, const struct rxvk_range *r, bool write,
                   struct where *out, bool *mixed)
{
	*mixed = false;
	if (r->size_B == 0) {
		*out = (struct where){ rx->guest_buffer, 0, 0, true };
		return 0;
	}
	if (!rx->mirrored) {
		*out = (struct where){ rx->guest_buffer, r->addr, rx->guest_addr + r->addr, true };
		if (write)
			CNT_ADD(rx, in_place_writes, 1);
		return 0;
	}
	bool any_active;
	if (block_all(rx, r->addr, r->size_B, BLOCK_ACTIVE, &any_active)) {
		*out = (struct where){ rx->mirror_buffer, r->addr, rx->mirror_addr + r->addr, false };
		return write ? wb_push(&rec->part, r->addr, r->size_B) : 0;
	}
	if (any_active) {
		/* copies may not be recorded inside a rendering instance */
		end_rendering(rx, rec);
		mirror_writeback(rx, rec);
		*mixed = true;
	}
	if (write) {
		CNT_ADD(rx, in_place_writes, 1);
		for (uint64_t b = r->addr / MIRROR_BLOCK_B; b <= (r->addr + r->size_B - 1) / MIRROR_BLOCK_B; b++)
			if (rx->block_state[b] == BLOCK_IN_PLACE)
				rx->block_state[b] = BLOCK_PENDING;
	}
	*out = (struct where){ rx->guest_buffer, r->addr, rx->guest_addr + r->addr, true };
	return 0;
}

/* After an in-place write over active mirror blocks: keep the mirror equal. */
static void resolve_after(struct rxvk *rx, struct recording *rec, const struct rxvk_range *w)
{
	if (!rx->mirrored || !w->size_B)
		return;
	cl_barrier(CL(rec));
	for (uint64_t b = w->addr / MIRROR_BLOCK_B; b <= (w->addr + w->size_B - 1) / MIRROR_BLOCK_B; b++) {
		if (rx->block_state[b] != BLOCK_ACTIVE)
			continue;
		uint64_t lo = b * MIRROR_BLOCK_B, hi = lo + MIRROR_BLOCK_B;
		if (lo < w->addr)
			lo = w->addr;
		if (hi > w->addr + w->size_B)
			hi = w->addr + w->size_B;
		cl_copy_buffer(CL(rec), rx->guest_buffer, rx->mirror_buffer, lo, lo, hi - lo);
	}
	cl_barrier(CL(rec));
}

/* ---- render targets ---- */

static VkFormat vk_format(enum rxvk_format f)
{
	return f == RXVK_FORMAT_BGRA8 ? VK_FORMAT_B8G8R8A8_UNORM
	       : f == RXVK_FORMAT_DEPTH ? VK_FORMAT_D32_SFLOAT
	                                : VK_FORMAT_R8G8B8A8_UNORM;
}

static VkImageSubresourceRange whole(const struct target *t)
{
	return (VkImageSubresourceRange){
		.aspectMask = t->format == RXVK_FORMAT_DEPTH ? VK_IMAGE_ASPECT_DEPTH_BIT : VK_IMAGE_ASPECT_COLOR_BIT,
		.levelCount = 1,
		.layerCount = 1,
	};
}

static void target_free(struct rxvk *rx, struct target *t)
{
	if (t->view)
		vkDestroyImageView(rx->device, t->view, NULL);
	if (t->image)
		vkDestroyImage(rx->device, t->image, NULL);
	if (t->memory)
		vkFreeMemory(rx->device, t->memory, NULL);
	memset(t, 0, sizeof *t);
}

static int target_create(struct rxvk *rx, struct target *t, const struct rxvk_op *op)
{
	t->used = true;
	t->addr = op->write.addr;
	t->width = op->params[0];
	t->height = op->params[1];
	t->pitch_B = op->params[2];
	t->format = (enum rxvk_format)op->params[3];
	t->size_B = target_size(t->width, t->height, t->pitch_B);
	bool depth = t->format == RXVK_FORMAT_DEPTH;
	VkImageCreateInfo ici = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
		.imageType = VK_IMAGE_TYPE_2D,
		.format = vk_format(t->format),
		.extent = { t->width, t->height, 1 },
		.mipLevels = 1,
		.arrayLayers = 1,
		.samples = VK_SAMPLE_COUNT_1_BIT,
		.tiling = VK_IMAGE_TILING_OPTIMAL,
		.usage = (depth ? VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT : VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT) |
		         VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
		.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
	};
	int rc = vk_check(rx, vkCreateImage(rx->device, &ici, NULL, &t->image));
	if (rc < 0)
		return rc;
	VkMemoryRequirements mr;
	vkGetImageMemoryRequirements(rx->device, t->image, &mr);
	uint32_t type;
	if (rxvk_find_memory_type(rx, mr.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &type) < 0 &&
	    rxvk_find_memory_type(rx, mr.memoryTypeBits, 0, &type) < 0)
		return -ENODEV;
	VkMemoryAllocateInfo mai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
	                             .allocationSize = mr.size,
	                             .memoryTypeIndex = type };
	if ((rc = vk_check(rx, vkAllocateMemory(rx->device, &mai, NULL, &t->memory))) < 0 ||
	    (rc = vk_check(rx, vkBindImageMemory(rx->device, t->image, t->memory, 0))) < 0)
		return rc;
	VkImageViewCreateInfo vci = { .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
	                              .image = t->image,
	                              .viewType = VK_IMAGE_VIEW_TYPE_2D,
	                              .format = ici.format,
	                              .subresourceRange = whole(t) };
	return vk_check(rx, vkCreateImageView(rx->device, &vci, NULL, &t->view));
}


static void target_init_layout(struct recording *rec, struct target *t)
{
	if (t->initialised)
		return;
	cl_image_init(CL(rec), t->image, whole(t).aspectMask);
	t->init_value = rec->part.value;
	if (t->format == RXVK_FORMAT_DEPTH) {
		cl_clear_depth(CL(rec), t->image);
		cl_barrier(CL(rec));
	}
	t->initialised = true;
}

static VkBufferImageCopy target_region(const struct target *t, uint64_t offset)
{
	return (VkBufferImageCopy){
		.bufferOffset = offset,
		.bufferRowLength = t->pitch_B / 4,
		.bufferImageHeight = t->height,
		.imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
		.imageExtent = { t->width, t->height, 1 },
	};
}

static struct hold_frame frame_of(const struct target *t)
{
	return (struct hold_frame){ t->addr, t->size_B, t->width, t->height, t->pitch_B, t->format };
}

/* Whether the part being recorded already reads or writes guest pages of
 * [addr, addr + size_B) (hold.c guards none of those on a CPU device). */
static bool part_touches(const struct recording *rec, uint64_t addr, uint64_t size_B)
{
	uint64_t lo = addr / RXVK_PAGE_SIZE_B * RXVK_PAGE_SIZE_B;
	uint64_t hi = (addr + size_B + RXVK_PAGE_SIZE_B - 1) / RXVK_PAGE_SIZE_B * RXVK_PAGE_SIZE_B;
	const struct part_job *job = rec->part.job;
	for (size_t i = 0; i < job->reads.n; i++)
		if (overlaps(job->reads.v[i].addr, job->reads.v[i].size_B, lo, hi - lo))
			return true;
	for (size_t i = 0; i < job->writes.n; i++)
		if (overlaps(job->writes.v[i].addr, job->writes.v[i].size_B, lo, hi - lo))
			return true;
	for (size_t i = 0; i < rec->part.n_wb; i += 2)
		if (overlaps(rec->part.wb_pages[i], rec->part.wb_pages[i + 1], lo, hi - lo))
			return true;
	return false;
}

/* Writes a frame from `image` (a target, or a held frame's snapshot) to its
 * guest memory, in its byte order. */
static int frame_writeback(struct rxvk *rx, struct recording *rec, VkImage image, const struct hold_frame *f)
{
	end_rendering(rx, rec);
	struct rxvk_range r = { f->addr, f->size_B };
	struct where w;
	bool mixed;
	int rc = resolve(rx, rec, &r, true, &w, &mixed);
	if (rc < 0)
		return rc;
	VkBufferImageCopy region = {
		.bufferOffset = w.offset,
		.bufferRowLength = f->pitch_B / 4,
		.bufferImageHeight = f->height,
		.imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
		.imageExtent = { f->width, f->height, 1 },
	};
	cl_image_to_buffer(CL(rec), image, w.buffer, &region);
	cl_barrier(CL(rec));
	if (mixed)
		resolve_after(rx, rec, &r);
	if ((rc = write_push(rec, r.addr, r.size_B, w.in_place, NULL)) < 0)
		return rc;
	CNT_ADD(rx, target_writebacks, 1);
	return 0;
}

/* Before an op reads or writes guest bytes a held frame is kept for
 * (hold.c), the frame is carried out, or dropped by a fill covering it
 * (drop_covered); one let go of in this very part is written here, in the
 * stream, from its snapshot. */
static int settle_held(struct rxvk *rx, struct recording *rec, const struct rxvk_range *r, bool drop_covered)
{
	struct hold_frame f;
	VkImage snapshot;
	int rc;
	while ((rc = rxvk_hold_settle(rx, rec->part.value, r->addr, r->size_B, drop_covered, &f, &snapshot)) == 1) {
		uint64_t t0 = rxvk_now_ns();
		if ((rc = frame_writeback(rx, rec, snapshot, &f)) < 0)
			return rc;
		CNT_ADD(rx, target_write_ns, rxvk_now_ns() - t0);
	}
	return rc;
}

/* Writes the target's frame to its guest memory, in its byte order. */
static int target_writeback(struct rxvk *rx, struct recording *rec, struct target *t)
{
	uint64_t t0 = rxvk_now_ns();
	struct rxvk_range r = { t->addr, t->size_B };
	struct hold_frame f = frame_of(t);
	int rc;
	if ((rc = settle_held(rx, rec, &r, false)) < 0 || (rc = frame_writeback(rx, rec, t->image, &f)) < 0)
		return rc;
	t->pending = false;
	t->image_valid = true;
	CNT_ADD(rx, target_write_ns, rxvk_now_ns() - t0);
	return 0;
}

/* The pending frame of a colour target is let go of (a switch or a flip):
 * kept on the device until something reads it (hold.c), or written back at
 * once. */
static int target_let_go(struct rxvk *rx, struct recording *rec, struct target *t)
{
	uint64_t t0 = rxvk_now_ns();
	end_rendering(rx, rec);
	struct hold_frame f = frame_of(t);
	int rc = rxvk_hold_let_go(rx, CL(rec), rec->part.value, &f, t->image,
	                          part_touches(rec, t->addr, t->size_B));
	if (rc < 0)
		return rc;
	if (rc == 0)
		return target_writeback(rx, rec, t);
	t->pending = false;
	t->image_valid = true; /* the image holds the held frame: later draws take it */
	CNT_ADD(rx, target_write_ns, rxvk_now_ns() - t0);
	return 0;
}

static int target_load(struct rxvk *rx, struct recording *rec, struct target *t)
{
	struct rxvk_range r = { t->addr, t->size_B };
	struct where w;
	bool mixed;
	int rc = settle_held(rx, rec, &r, false);
	if (rc < 0 || (rc = resolve(rx, rec, &r, false, &w, &mixed)) < 0)
		return rc;
	VkBufferImageCopy region = target_region(t, w.offset);
	cl_buffer_to_image(CL(rec), w.buffer, t->image, &region);
	cl_barrier(CL(rec));
	t->image_valid = true;
	t->load_value = rec->part.value;
	CNT_ADD(rx, target_loads, 1);
	return range_push(&rec->part.job->reads, r.addr, r.size_B);
}

/* Before an op reads or writes guest bytes a pending frame will land on,
 * the frame is written back, so the op sees (or overwrites) every byte an
 * immediate write-back gave. */
static int settle_targets(struct rxvk *rx, struct recording *rec, const struct rxvk_range *r)
{
	int hrc = settle_held(rx, rec, r, false);
	if (hrc < 0)
		return hrc;
	for (unsigned i = 0; i < MAX_TARGETS; i++) {
		struct target *t = &rx->replay->targets[i];
		if (t->used && t->pending && overlaps(t->addr, t->size_B, r->addr, r->size_B)) {
			int rc = target_writeback(rx, rec, t);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

/* After guest bytes were written by an op: images over them are stale. */
static void stale_targets(struct rxvk *rx, const struct rxvk_range *r)
{
	for (unsigned i = 0; i < MAX_TARGETS; i++) {
		struct target *t = &rx->replay->targets[i];
		if (t->used && t->format != RXVK_FORMAT_DEPTH && overlaps(t->addr, t->size_B, r->addr, r->size_B))
			t->image_valid = false;
	}
}

/* The CPU wrote guest pages since the last capture (rxvk_cpu_wrote): a
 * colour target over them whose image is not newer than its memory (no
 * pending frame) is stale, and is reloaded before it is drawn into again,
 * so the next write-back keeps the CPU's bytes.  A pending frame lands on
 * its memory after the CPU's bytes, as an immediate write-back would.
 * Called by the capture, render thread, before the dirty bits are cleared. */
void rxvk_replay_cpu_wrote_locked(struct rxvk *rx)
{
	struct replay *rp = rx->replay;
	for (unsigned i = 0; i < MAX_TARGETS; i++) {
		struct target *t = &rp->targets[i];
		if (!t->used || t->format == RXVK_FORMAT_DEPTH || !t->image_valid || t->pending)
			continue;
		uint64_t first = t->addr / RXVK_PAGE_SIZE_B, last = (t->addr + t->size_B - 1) / RXVK_PAGE_SIZE_B;
		for (uint64_t pg = first; pg <= last; pg++)
			if (rx->cpu_dirty[pg / 64] >> (pg % 64) & 1) {
				t->image_valid = false;
				CNT_ADD(rx, targets_cpu_stale, 1);
				break;
			}
	}
}

void rxvk_part_failed(struct rxvk *rx, struct part_job *job)
{
	rxvk_capture_undo(rx, job);
	/* a layout change or a load that never ran */
	for (unsigned i = 0; i < MAX_TARGETS; i++) {
		struct target *t = &rx->replay->targets[i];
		if (!t->used)
			continue;
		if (t->init_value == job->value) {
			t->initialised = false;
			t->image_valid = false;
			t->pending = false;
		}
		if (t->load_value == job->value)
			t->image_valid = false;
	}
	uint64_t addrs[MAX_TARGETS];
	size_t n = rxvk_hold_part_failed(rx, job->value, addrs, MAX_TARGETS);
	for (size_t k = 0; k < n; k++)
		for (unsigned i = 0; i < MAX_TARGETS; i++) {
			struct target *t = &rx->replay->targets[i];
			/* the image still holds the frame: let go of again */
			if (t->used && t->addr == addrs[k] && t->format != RXVK_FORMAT_DEPTH && t->image_valid)
				t->pending = true;
		}
	CNT_ADD(rx, parts_failed, 1);
}

/* A colour target other than the current one with a frame pending (a let-go
 * whose part failed) lets go of it at the next submission's start. */
static int let_go_stray(struct rxvk *rx, struct recording *rec)
{
	for (unsigned i = 0; i < MAX_TARGETS; i++) {
		struct target *t = &rx->replay->targets[i];
		if (t->used && t->pending && (int)i != rx->replay->current_target) {
			int rc = target_let_go(rx, rec, t);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

static int set_target(struct rxvk *rx, struct recording *rec, const struct rxvk_op *op)
{
	int found = -1, lru = 0;
	for (unsigned i = 0; i < MAX_TARGETS; i++) {
		struct target *t = &rx->replay->targets[i];
		if (t->used && t->addr == op->write.addr) {
			found = (int)i;
			break;
		}
		if (!t->used || (rx->replay->targets[lru].used && t->last_use < rx->replay->targets[lru].last_use))
			lru = (int)i;
	}
	int rc;
	/* the pending frame of the target switched from is let go of */
	if (rx->replay->current_target >= 0 && rx->replay->current_target != found) {
		struct target *old = &rx->replay->targets[rx->replay->current_target];
		end_rendering(rx, rec);
		if (old->pending && (rc = target_let_go(rx, rec, old)) < 0)
			return rc;
	}
	if (found >= 0) {
		struct target *t = &rx->replay->targets[found];
		if (t->width != op->params[0] || t->height != op->params[1] || t->pitch_B != op->params[2] ||
		    t->format != (enum rxvk_format)op->params[3]) {
			end_rendering(rx, rec);
			if (t->pending && (rc = target_writeback(rx, rec, t)) < 0)
				return rc;
			/* the image may still be read by submitted parts, and by
			 * this one (a write-back or a let-go's copy): end it first */
			if ((rc = part_end(rx, rec)) < 0 || (rc = part_begin(rx, rec)) < 0 ||
			    (rc = wait_value(rx, rx->next_value - 1)) < 0)
				return rc;
			target_free(rx, t);
			found = -1;
			lru = (int)(t - rx->replay->targets);
		}
	}
	if (found < 0) {
		struct target *t = &rx->replay->targets[lru];
		if (t->used) {
			end_rendering(rx, rec);
			if (t->pending && (rc = target_writeback(rx, rec, t)) < 0)
				return rc;
			if ((rc = part_end(rx, rec)) < 0 || (rc = part_begin(rx, rec)) < 0 ||
			    (rc = wait_value(rx, rx->next_value - 1)) < 0)
				return rc;
			target_free(rx, t);
		}
		if ((rc = target_create(rx, t, op)) < 0) {
			target_free(rx, t);
			return rc;
		}
		found = lru;
	}
	struct target *t = &rx->replay->targets[found];
	t->last_use = ++rx->replay->target_clock;
	if (rx->replay->current_target != found)
		end_rendering(rx, rec);
	rx->replay->current_target = found;
	target_init_layout(rec, t);
	if (t->format != RXVK_FORMAT_DEPTH && !t->image_valid)
		return target_load(rx, rec, t);
	return 0;
}

static void begin_rendering(struct rxvk *rx, struct recording *rec, struct target *t)
{
	if (rec->part.rendering)
		return;
	cl_begin_rendering(CL(rec), t->view, t->width, t->height, t->format == RXVK_FORMAT_DEPTH);
	rec->part.rendering = true;
	(void)rx;
}

/* ---- ops ---- */

static void push_op(struct rxvk *rx, struct recording *rec, const struct rxvk_op *op,
                    const struct where *r0, const struct where *r1, const struct where *w)
{
	struct op_push pc = { .read0 = r0->addr, .read1 = r1->addr, .write = w->addr, .count = op->count };
	memcpy(pc.params, op->params, sizeof pc.params);
	if (op->program == rx->programs[PROG_TEXTURED].hash && op->params[6] == 0 && rx->replay->current_target >= 0) {
		const struct target *t = &rx->replay->targets[rx->replay->current_target];
		pc.params[5] = 0;
		pc.params[6] = (t->width & 0xffffu) | (t->height << 16);
	}
	cl_push(CL(rec), &pc);
}

/* Resolves an op's three ranges and notes them in the part's lists. */
static int resolve_op(struct rxvk *rx, struct recording *rec, const struct rxvk_op *op,
                      struct where where[3], bool *mixed_write)
{
	bool mixed;
	int rc;
	for (int k = 0; k < 2; k++) {
		if ((rc = resolve(rx, rec, &op->read[k], false, &where[k], &mixed)) < 0 ||
		    (rc = range_push(&rec->part.job->reads, op->read[k].addr, op->read[k].size_B)) < 0)
			return rc;
	}
	if ((rc = resolve(rx, rec, &op->write, true, &where[2], mixed_write)) < 0)
		return rc;
	return write_push(rec, op->write.addr, op->write.size_B, where[2].in_place, op);
}

static int record_draw(struct rxvk *rx, struct recording *rec, const struct rxvk_op *op,
                       const struct program *prog)
{
	struct target *t = &rx->replay->targets[rx->replay->current_target];
	int rc;
	for (int k = 0; k < 2; k++)
		if ((rc = settle_targets(rx, rec, &op->read[k])) < 0)
			return rc;
	if (op->write.size_B && (rc = settle_targets(rx, rec, &op->write)) < 0)
		return rc;
	/* its memory was written since the image was (by the CPU or an op):
	 * the image takes those bytes before it is drawn into */
	if (t->format != RXVK_FORMAT_DEPTH && !t->image_valid && !t->pending) {
		end_rendering(rx, rec);
		if ((rc = target_load(rx, rec, t)) < 0)
			return rc;
	}
	struct where where[3];
	bool mixed = false;
	if ((rc = resolve_op(rx, rec, op, where, &mixed)) < 0)
		return rc;
	enum target_variant v = t->format == RXVK_FORMAT_BGRA8 ? VARIANT_BGRA8
	                        : t->format == RXVK_FORMAT_DEPTH ? VARIANT_DEPTH
	                                                         : VARIANT_RGBA8;
	begin_rendering(rx, rec, t);
	VkViewport vp = { 0, 0, (float)t->width, (float)t->height, 0, 1 };
	VkRect2D sc = { { 0, 0 }, { t->width, t->height } };
	if (prog == &rx->programs[PROG_TEXTURED] && op->params[6] != 0) {
		uint32_t x = op->params[5] & 0xffff, y = op->params[5] >> 16;
		uint32_t w = op->params[6] & 0xffff, h = op->params[6] >> 16;
		vp = (VkViewport){ (float)x, (float)y, (float)w, (float)h, 0, 1 };
		sc = (VkRect2D){ { (int32_t)x, (int32_t)y }, { w, h } };
	}
	cl_viewport(CL(rec), vp, sc);
	cl_bind(CL(rec), VK_PIPELINE_BIND_POINT_GRAPHICS, prog->pipeline[v]);
	push_op(rx, rec, op, &where[0], &where[1], &where[2]);
	cl_draw(CL(rec), 6, op->count);
	if (t->format != RXVK_FORMAT_DEPTH)
		t->pending = true;
	if (op->write.size_B) {
		end_rendering(rx, rec);
		if (mixed)
			resolve_after(rx, rec, &op->write);
		stale_targets(rx, &op->write);
	}
	rx->frame_draws++;
	CNT_ADD(rx, draws, 1);
	return 0;
}

static int record_dispatch(struct rxvk *rx, struct recording *rec, const struct rxvk_op *op,
                           const struct program *prog)
{
	int rc;
	end_rendering(rx, rec);
	for (int k = 0; k < 2; k++)
		if ((rc = settle_targets(rx, rec, &op->read[k])) < 0)
			return rc;
	if ((rc = settle_targets(rx, rec, &op->write)) < 0)
		return rc;
	struct where where[3];
	bool mixed = false;
	if ((rc = resolve_op(rx, rec, op, where, &mixed)) < 0)
		return rc;
	cl_bind(CL(rec), VK_PIPELINE_BIND_POINT_COMPUTE, prog->pipeline[0]);
	push_op(rx, rec, op, &where[0], &where[1], &where[2]);
	cl_dispatch(CL(rec), op->count);
	cl_barrier(CL(rec));
	if (mixed)
		resolve_after(rx, rec, &op->write);
	stale_targets(rx, &op->write);
	return 0;
}

static int record_copy(struct rxvk *rx, struct recording *rec, const struct rxvk_op *op)
{
	int rc;
	end_rendering(rx, rec);
	if ((rc = settle_targets(rx, rec, &op->read[0])) < 0 || (rc = settle_targets(rx, rec, &op->write)) < 0)
		return rc;
	struct where where[3];
	bool mixed = false;
	if ((rc = resolve_op(rx, rec, op, where, &mixed)) < 0)
		return rc;
	cl_copy_buffer(CL(rec), where[0].buffer, where[2].buffer, where[0].offset, where[2].offset,
	               op->write.size_B);
	cl_barrier(CL(rec));
	if (mixed)
		resolve_after(rx, rec, &op->write);
	stale_targets(rx, &op->write);
	return 0;
}

/* The clear value that leaves an image's bytes equal to a 32-bit fill. */
static VkClearColorValue fill_colour(uint32_t v, enum rxvk_format f)
{
	float b[4] = { (v & 0xff) / 255.0f, ((v >> 8) & 0xff) / 255.0f, ((v >> 16) & 0xff) / 255.0f,
	               (v >> 24) / 255.0f };
	VkClearColorValue c;
	if (f == RXVK_FORMAT_BGRA8) { /* memory B, G, R, A */
		c.float32[0] = b[2];
		c.float32[1] = b[1];
		c.float32[2] = b[0];
	} else {
		c.float32[0] = b[0];
		c.float32[1] = b[1];
		c.float32[2] = b[2];
	}
	c.float32[3] = b[3];
	return c;
}

static int record_fill(struct rxvk *rx, struct recording *rec, const struct rxvk_op *op)
{
	int rc;
	end_rendering(rx, rec);
	/* a held frame the fill covers whole is dropped; one it covers in part
	 * is carried out first */
	if ((rc = settle_held(rx, rec, &op->write, true)) < 0)
		return rc;
	/* a target the fill covers whole takes the fill as its frame; one it
	 * covers in part has its pending frame written back first */
	for (unsigned i = 0; i < MAX_TARGETS; i++) {
		struct target *t = &rx->replay->targets[i];
		if (!t->used || t->format == RXVK_FORMAT_DEPTH ||
		    !overlaps(t->addr, t->size_B, op->write.addr, op->write.size_B))
			continue;
		bool covers = op->write.addr <= t->addr && op->write.addr + op->write.size_B >= t->addr + t->size_B;
		if (!covers && t->pending && (rc = target_writeback(rx, rec, t)) < 0)
			return rc;
	}
	struct where where[3];
	bool mixed = false;
	if ((rc = resolve_op(rx, rec, op, where, &mixed)) < 0)
		return rc;
	cl_fill(CL(rec), where[2].buffer, where[2].offset, op->write.size_B, op->params[0]);
	for (unsigned i = 0; i < MAX_TARGETS; i++) {
		struct target *t = &rx->replay->targets[i];
		if (!t->used || t->format == RXVK_FORMAT_DEPTH ||
		    !overlaps(t->addr, t->size_B, op->write.addr, op->write.size_B))
			continue;
		bool covers = op->write.addr <= t->addr && op->write.addr + op->write.size_B >= t->addr + t->size_B;
		if (covers && t->pitch_B == t->width * 4) {
			target_init_layout(rec, t);
			cl_clear_colour(CL(rec), t->image, fill_colour(op->params[0], t->format));
			t->pending = false;
			t->image_valid = true;
		} else {
			t->pending = false;
			t->image_valid = false;
		}
	}
	cl_barrier(CL(rec));
	if (mixed)
		resolve_after(rx, rec, &op->write);
	return 0;
}

static int record_flip(struct rxvk *rx, struct recording *rec, const struct rxvk_op *op)
{
	struct target *t = &rx->replay->targets[rx->replay->current_target];
	bool shown = op->params[0] & RXVK_FLIP_SHOWN;
	int rc;
	end_rendering(rx, rec);
	if (t->pending && (rc = target_let_go(rx, rec, t)) < 0)
		return rc;
	if (!shown)
		rxvk_hold_frame_presented(rx);
	struct present_item item = {
		.frame = ++rx->frame_count,
		.value = rec->part.value,
		.shown = shown,
		.slot = -1,
		.width = t->width,
		.height = t->height,
		.format = t->format,
	};
	if (!shown) {
		item.draws = rx->frame_draws;
		item.rb_wait_ns = __atomic_exchange_n(&rx->frame_rb_wait_ns, 0, __ATOMIC_RELAXED);
		item.memsync_ns = rx->frame_memsync_ns;
		rx->frame_draws = 0;
		rx->frame_memsync_ns = 0;
	}
	if (rxvk_present_wants_pixels(rx)) {
		item.slot = rxvk_present_slot_acquire(rx, t->width, t->height);
		if (item.slot >= 0) {
			const struct present_slot *s = &rx->present.slots[item.slot];
			VkBufferImageCopy region = target_region(t, 0);
			region.bufferRowLength = t->width;
			cl_image_to_buffer(CL(rec), t->image, s->buffer, &region);
			cl_barrier(CL(rec));
		}
	}
	rxvk_present_push(rx, &item);
	if (shown)
		CNT_ADD(rx, frames_shown, 1);
	else
		CNT_ADD(rx, frames_real, 1);
	return 0;
}

static int record(struct rxvk *rx, struct recording *rec, const struct rxvk_op *op)
{
	const struct program *prog = rxvk_program_find(rx, op->program);
	switch (op->kind) {
	case RXVK_OP_SET_TARGET:
		return set_target(rx, rec, op);
	case RXVK_OP_DRAW:
		return record_draw(rx, rec, op, prog);
	case RXVK_OP_DISPATCH:
		return record_dispatch(rx, rec, op, prog);
	case RXVK_OP_COPY:
		return record_copy(rx, rec, op);
	case RXVK_OP_FILL:
		return record_fill(rx, rec, op);
	case RXVK_OP_FLIP:
		return record_flip(rx, rec, op);
	}
	return -EINVAL;
}

/* ---- submissions ---- */

static struct sub_info *sub_slot(struct rxvk *rx, uint64_t sub)
{
	return &rx->subs[sub % SUB_RING];
}

/* Step: op i of the submission into the part being recorded, with the
 * early policy's split before it or marker after it. */
static int record_op(struct rxvk *rx, struct recording *rec, const struct rxvk_op *ops, size_t i)
{
	int rc;
	rec->op_index = (uint32_t)i;
	/* RX_VK_READBACK_EARLY=1: a writer of tracked bytes ends its part
	 * right after it, at least the gap into the part, so writers in a row
	 * end one part; =marker: a marker follows it, in the same part */
	bool writer = ops[i].write.size_B && rxvk_early_writes_tracked_bytes(rx, &ops[i].write);
	bool marks = writer && rxvk_early_marks(rx);
	if (rec->split_pending && !writer && rec->part.ops >= rx->set.cfg.readback_early_gap) {
		if ((rc = part_end(rx, rec)) < 0 || (rc = part_begin(rx, rec)) < 0)
			return rc;
		CNT_ADD(rx, parts_split_early, 1);
	}
	const struct part_job *job_before = rec->part.job;
	size_t notes_before = job_before->writes.n;
	for (int g = 0; g < 3; g++) {
		if (rx->test.gate_op[g] == i + 1) {
			end_rendering(rx, rec);
			cl_gate(CL(rec), rx->test.gate_event[g]);
		}
	}
	if (rx->test.fail_op == i + 1) {
		rxvk_set_error("test hook: recording op %zu fails", i);
		return -EIO;
	}
	if ((rc = record(rx, rec, &ops[i])) < 0)
		return rc;
	rec->part.ops++;
	rec->ops_done++;
	if (marks && (rc = place_marker(rx, rec, rec->part.job == job_before ? notes_before : 0)) < 0)
		return rc;
	if (writer && !marks)
		rec->split_pending = true;
	if (rx->test.hold_after_op == i + 1) {
		/* paused: the parts already recorded are submitted first */
		if (!rx->test.hold_no_drain && (rc = rxvk_recorder_drain(rx)) < 0)
			return rc;
		struct timespec ms = { 0, 1000000 };
		for (int k = 0; k < 30000 && __atomic_load_n(&rx->test.hold_recording, __ATOMIC_ACQUIRE); k++)
			nanosleep(&ms, NULL);
	}
	if (rx->test.op_delay_ns && i >= rx->test.op_delay_from) {
		struct timespec ts = { (time_t)(rx->test.op_delay_ns / 1000000000u),
		                       (long)(rx->test.op_delay_ns % 1000000000u) };
		nanosleep(&ts, NULL);
	}
	return 0;
}

/* Step: the recording ends, on every path.  A part left unfinished by a
 * failure is undone and played empty so its value comes; the rest is
 * submitted; the span closes (readers waiting on it are released at the
 * newest value handed out, which every submitted part reaches). */
static int finish_recording(struct rxvk *rx, struct recording *rec, size_t n_ops, int rc)
{
	if (rec->part.job) {
		rxvk_part_failed(rx, rec->part.job);
		cl_reset(CL(rec));
		rec->part.job->writes.n = 0;
		rec->part.job->reads.n = 0;
		rxvk_recorder_put(rx, rec->part.job);
		rec->part.job = NULL;
	}
	int drc = rxvk_recorder_drain(rx);
	if (rc == 0)
		rc = drc;
	pthread_mutex_lock(&rx->lock);
	sub_slot(rx, rec->sub)->last_value = rx->next_value;
	sub_slot(rx, rec->sub)->ops = rec->ops_done;
	sub_slot(rx, rec->sub)->n_ops = (uint32_t)n_ops;
	pthread_cond_broadcast(&rx->sub_done_recording);
	pthread_mutex_unlock(&rx->lock);
	return rc;
}

int rxvk_submit(struct rxvk *rx, const struct rxvk_op *ops, size_t n_ops, uint64_t *out_submission)
{
	if (!rx || (!ops && n_ops)) {
		rxvk_set_error("rxvk_submit: no renderer or no ops");
		return -EINVAL;
	}
	uint64_t t_start = rxvk_now_ns();
	int rc = validate(rx, ops, n_ops);
	if (rc < 0)
		return rc;

	/* at most SUB_RING submissions in flight: the oldest slot must be done */
	uint64_t sub = rx->sub_count + 1;
	pthread_mutex_lock(&rx->lock);
	struct sub_info old = *sub_slot(rx, sub);
	pthread_mutex_unlock(&rx->lock);
	if (old.id && old.last_value > rxvk_timeline_done(rx) && (rc = wait_value(rx, old.last_value)) < 0)
		return rc;

	struct recording *rec = calloc(1, sizeof *rec);
	if (!rec)
		return -ENOMEM;
	rec->sub = sub;
	pthread_mutex_lock(&rx->lock);
	rx->sub_count = sub;
	*sub_slot(rx, sub) = (struct sub_info){ sub, rx->next_value + 1, 0 };
	pthread_mutex_unlock(&rx->lock);

	if ((rc = part_begin(rx, rec)) == 0) {
		rec->first_value = rec->part.value;
		rc = rxvk_capture(rx, rec->part.job, sub);
	}
	if (rc == 0)
		rc = let_go_stray(rx, rec);
	for (size_t i = 0; i < n_ops && rc == 0; i++) {
		rc = record_op(rx, rec, ops, i);
		if (rc == 0 && i + 1 < n_ops)
			rc = maybe_split(rx, rec);
	}
	if (rc == 0)
		rc = part_end(rx, rec);
	rc = finish_recording(rx, rec, n_ops, rc);
	free(rec->part.wb_pages);
	free(rec->spans.v);
	free(rec->copies.v);
	free(rec->keep.v);
	free(rec);
	CNT_ADD(rx, replay_ns, rxvk_now_ns() - t_start);
	if (rc < 0)
		return rc;
	CNT_ADD(rx, submissions, 1);
	CNT_ADD(rx, ops, n_ops);
	if (out_submission)
		*out_submission = sub;
	return 0;
}

int rxvk_submit_burst(struct rxvk *rx, const struct rxvk_stream_sub *subs, size_t n_subs,
                      uint64_t *out_last)
{
	if (!rx || (!subs && n_subs)) {
		rxvk_set_error("rxvk_submit_burst: no renderer or no submissions");
		return -EINVAL;
	}
	/* validate the whole burst first: the target state carries over from
	 * one submission to the next, so check them as one op list */
	size_t total = 0;
	for (size_t i = 0; i < n_subs; i++)
		total += subs[i].n_ops;
	struct rxvk_op *all = total ? malloc(total * sizeof *all) : NULL;
	if (total && !all)
		return -ENOMEM;
	size_t at = 0;
	for (size_t i = 0; i < n_subs; i++) {
		if (subs[i].n_ops)
			memcpy(all + at, subs[i].ops, subs[i].n_ops * sizeof *all);
		at += subs[i].n_ops;
	}
	int rc = validate(rx, all, total);
	free(all);
	if (rc < 0) {
		char msg[512];
		snprintf(msg, sizeof msg, "%s", rxvk_last_error());
		rxvk_set_error("burst: %s (ops counted across the burst)", msg);
		return rc;
	}
	uint64_t last = 0;
	for (size_t i = 0; i < n_subs; i++)
		if ((rc = rxvk_submit(rx, subs[i].ops, subs[i].n_ops, &last)) < 0)
			return rc;
	if (out_last)
		*out_last = last;
	return 0;
}

int rxvk_finish(struct rxvk *rx)
{
	if (!rx || rx->next_value == 0)
		return 0;
	return wait_value(rx, rx->next_value);
}

int rxvk_replay_init(struct rxvk *rx)
{
	rx->replay = calloc(1, sizeof *rx->replay);
	if (!rx->replay)
		return -ENOMEM;
	rx->replay->current_target = -1;
	return rxvk_recorder_init(rx);
}

void rxvk_replay_finish(struct rxvk *rx)
{
	rxvk_recorder_finish(rx);
	if (!rx->replay)
		return;
	if (rx->device)
		for (unsigned i = 0; i < MAX_TARGETS; i++)
			if (rx->replay->targets[i].used)
				target_free(rx, &rx->replay->targets[i]);
	free(rx->replay);
	rx->replay = NULL;
}
