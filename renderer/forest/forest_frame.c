/* forest_frame: the render thread.  Per frame it waits for the jobs' lists,
 * merges them (far to near) into one of three instance-list buffers in
 * guest memory, keeps at most --in-flight submissions in flight, builds
 * and submits the frame, and kicks the jobs for it:
 *
 *   clear the reflection and main targets, the ground;
 *   --switches blocks of scene draws alternating main / reflection, with
 *   the culling (ring slot, then camera block) once half the draws are in;
 *   characters, the HUD (every --hud-every frames a copy of the jobs'
 *   results out of the camera block's page), the dialog box;
 *   the reflection's mip chain through memory (TEXTURED draws of a smaller
 *   target's guest bytes) and two of its levels on the main target;
 *   RX_FRAMEGEN - 1 generated frames (blends of the last two real frames,
 *   flipped as shown), then the real flip.
 *
 * Also the projection the jobs use, and the prologue submission.  It does
 * not poll anything: the jobs do (forest_jobs.c). */
#include "forest_private.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SKY_RGBA 0xffe6be96u      /* quads: bytes R G B A = 96 be e6 ff */
#define SKY_BGRA_FILL 0xff96bee6u /* the main target (BGRA8): bytes e6 be 96 ff */
#define WATER_FILL 0xff5a3c28u    /* the reflection (RGBA8): bytes 28 3c 5a ff */
#define NEAR_M 0.3f
#define NEAR_SIZE 0.45f           /* half sizes (clip units) over it are not drawn */

static uint32_t fbits(float v)
{
	uint32_t u;
	memcpy(&u, &v, 4);
	return u;
}

static uint32_t mix_colour(uint32_t a, uint32_t b, float t)
{
	uint32_t out = 0xff000000u;
	for (int s = 0; s < 24; s += 8) {
		float x = (float)((a >> s) & 0xff), y = (float)((b >> s) & 0xff);
		out |= (uint32_t)(x + (y - x) * t + 0.5f) << s;
	}
	return out;
}

static uint32_t darken(uint32_t c, unsigned num, unsigned den)
{
	uint32_t out = 0xff000000u;
	for (int s = 0; s < 24; s += 8)
		out |= (((c >> s) & 0xff) * num / den) << s;
	return out;
}

/* Camera-space coordinates: right, up, forward depth. */
static void view_space(const struct forest_camera *cam, float x, float y, float z, float *vx, float *vy,
                       float *vz)
{
	float dx = x - cam->x, dy = y - cam->y, dz = z - cam->z;
	float cy = cosf(cam->yaw), sy = sinf(cam->yaw);
	float right = dx * cy + dz * sy;
	float fwd = dx * sy - dz * cy;
	float cp = cosf(cam->pitch), sp = sinf(cam->pitch);
	*vx = right;
	*vz = fwd * cp + dy * sp;
	*vy = dy * cp - fwd * sp;
}

static float draw_size_m(const float s[4], uint8_t kind)
{
	return kind == FOREST_KIND_TILE ? s[3] * 0.7072f : s[3];
}

void forest_project_main(const struct forest *f, const struct forest_camera *cam, const float s[4],
                         uint32_t colour, uint8_t kind, uint32_t index, uint64_t frame,
                         struct keyed_list *out)
{
	float vx, vy, vz;
	view_space(cam, s[0], s[1], s[2], &vx, &vy, &vz);
	if (vz < NEAR_M)
		return;
	float inv = 1.0f / (vz * f->tan_half);
	float size = draw_size_m(s, kind) * inv;
	float x = vx * inv / f->aspect, y = -vy * inv;
	if (kind == FOREST_KIND_TREE || kind == FOREST_KIND_GRASS)
		x += sinf((float)(frame % 100000) * 0.07f + (float)index * 0.37f) * 0.06f * size;
	if (size > NEAR_SIZE)
		return; /* too near: faded out, as games do, rather than a wall */
	if (fabsf(x) - size > 1.0f || fabsf(y) - size > 1.0f)
		return;
	float t = vz / ((float)f->opt.view_m * 0.9f);
	t = t > 1.0f ? 1.0f : t * t;
	out->v[out->n++] = (struct keyed){ -vz, index, { x, y, size, mix_colour(colour, SKY_RGBA, t) } };
}

void forest_project_refl(const struct forest *f, const struct forest_camera *cam, const float s[4],
                         uint32_t colour, uint8_t kind, uint32_t index, struct keyed_list *out)
{
	float dx = s[0] - cam->x, dz = s[2] - cam->z;
	float cy = cosf(cam->yaw), sy = sinf(cam->yaw);
	float e = (float)f->opt.view_m;
	float x = (dx * cy + dz * sy) / e, y = -(dx * sy - dz * cy) / e;
	float size = draw_size_m(s, kind) / e;
	if (fabsf(x) - size > 1.0f || fabsf(y) - size > 1.0f)
		return;
	float key = s[1] + (kind == FOREST_KIND_TILE ? -1000.0f : 0.0f);
	out->v[out->n++] = (struct keyed){ key, index, { x, y, size, darken(colour, 3, 4) } };
}

/* ---- ops ---- */

struct ops {
	struct rxvk_op *v;
	size_t n, cap;
	uint32_t draws_since_cull;
};

static void push(struct ops *o, struct rxvk_op op)
{
	if (o->n < o->cap)
		o->v[o->n++] = op;
}

static void target(struct ops *o, uint64_t addr, uint32_t w, uint32_t h, enum rxvk_format fmt)
{
	push(o, (struct rxvk_op){ .kind = RXVK_OP_SET_TARGET,
	                          .write = { addr, (uint64_t)w * h * 4 },
	                          .params = { w, h, w * 4, fmt } });
}

static void fill(struct ops *o, uint64_t addr, uint64_t size_B, uint32_t value)
{
	push(o, (struct rxvk_op){ .kind = RXVK_OP_FILL, .write = { addr, size_B }, .params = { value } });
}

static void quads(struct ops *o, uint64_t addr, uint32_t count, uint32_t alu)
{
	push(o, (struct rxvk_op){ .kind = RXVK_OP_DRAW, .count = count, .program = RXVK_PROGRAM_INSTANCED,
	                          .read = { { addr, (uint64_t)count * QUAD_B } }, .params = { alu, 0 } });
}

static void textured(struct ops *o, uint64_t a, uint64_t b, uint32_t w, uint32_t h,
                     enum rxvk_format fmt, float weight, uint32_t x, uint32_t y, uint32_t dw, uint32_t dh)
{
	uint64_t size_B = (uint64_t)w * h * 4;
	push(o, (struct rxvk_op){ .kind = RXVK_OP_DRAW, .count = 1, .program = RXVK_PROGRAM_TEXTURED,
	                          .read = { { a, size_B }, { b, b ? size_B : 0 } },
	                          .params = { w, h, w * 4, fmt, fbits(weight), x | y << 16, dw | dh << 16 } });
}

static void cull_ops(struct ops *o, const struct forest *f, const struct forest_camera *cam, uint64_t frame)
{
	const struct layout *l = &f->lay;
	uint32_t n = f->world->n_instances;
	uint32_t p[8] = { n, fbits(cam->x), fbits(cam->y), fbits(cam->z), fbits((float)f->opt.view_m),
	                  f->opt.cull_alu, (uint32_t)frame, 0 };
	struct rxvk_op ring = { .kind = RXVK_OP_DISPATCH, .count = (n + 63) / 64, .program = RXVK_PROGRAM_CULL,
	                        .read = { { l->spheres, (uint64_t)n * 16 } },
	                        .write = { l->ring + (frame % RING_SLOTS) * l->ring_slot_B, l->ring_result_B } };
	memcpy(ring.params, p, sizeof p);
	push(o, ring);
	struct rxvk_op block = { .kind = RXVK_OP_DISPATCH, .count = 1, .program = RXVK_PROGRAM_CULL,
	                         .read = { { l->spheres, FOREST_REGIONS * 16 } },
	                         .write = { l->camera_page, BLOCK_B } };
	memcpy(block.params, p, sizeof p);
	block.params[0] = FOREST_REGIONS;
	block.params[5] = 0;
	push(o, block);
}

/* ---- the lists ---- */

static uint64_t list_base(const struct forest *f, uint64_t frame)
{
	return f->lay.lists + (frame % LIST_BUFFERS) * f->lay.list_B;
}

/* Merges the jobs' sorted lists into guest memory at dst; returns the count. */
static uint32_t merge(struct forest *f, bool refl, struct quad *dst)
{
	uint32_t pos[MAX_JOBS] = { 0 }, n = 0;
	for (;;) {
		int best = -1;
		const struct keyed *bk = NULL;
		for (unsigned j = 0; j < f->opt.jobs; j++) {
			const struct keyed_list *l = refl ? &f->jobs[j].out.refl : &f->jobs[j].out.main;
			if (pos[j] >= l->n)
				continue;
			const struct keyed *k = &l->v[pos[j]];
			if (!bk || k->key < bk->key || (k->key == bk->key && k->index < bk->index)) {
				bk = k;
				best = (int)j;
			}
		}
		if (best < 0)
			return n;
		dst[n++] = bk->q;
		pos[best]++;
	}
}

struct char_quads {
	float depth;
	uint32_t index;
	struct quad q[CHAR_QUADS];
};

static int char_cmp(const void *a, const void *b)
{
	const struct char_quads *x = a, *y = b;
	if (x->depth != y->depth)
		return x->depth > y->depth ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Characters (three quads each, far to near) and the ground quad. */
static void write_characters(struct forest *f, const struct forest_camera *cam, uint64_t base,
                             struct char_quads *tmp)
{
	const struct forest_world *w = f->world;
	for (uint32_t c = 0; c < w->n_characters; c++) {
		float p[3];
		forest_world_character(w, c, cam->frame, p);
		struct char_quads *cq = &tmp[c];
		cq->index = c;
		float vx, vy, vz;
		view_space(cam, p[0], p[1] + 0.9f, p[2], &vx, &vy, &vz);
		cq->depth = vz;
		if (vz < NEAR_M) {
			for (unsigned i = 0; i < CHAR_QUADS; i++)
				cq->q[i] = (struct quad){ 4.0f, 4.0f, 0.0f, 0 };
			continue;
		}
		float inv = 1.0f / (vz * f->tan_half);
		float x = vx * inv / f->aspect, y = -vy * inv;
		float bob = sinf((float)(cam->frame % 100000) * 0.3f + (float)c) * 0.05f * inv;
		cq->q[0] = (struct quad){ x, y + 0.85f * inv, 0.5f * inv, 0xff203020u };
		cq->q[1] = (struct quad){ x, y - bob, 0.45f * inv, w->character_colour[c] };
		cq->q[2] = (struct quad){ x, y - 0.75f * inv - bob, 0.25f * inv, 0xff9cc0f0u };
		if (cq->q[0].size > NEAR_SIZE) /* too near: faded out like the scene */
			for (unsigned i = 0; i < CHAR_QUADS; i++)
				cq->q[i] = (struct quad){ 4.0f, 4.0f, 0.0f, 0 };
	}
	qsort(tmp, w->n_characters, sizeof *tmp, char_cmp);
	struct quad *dst = (struct quad *)(f->guest + base + f->lay.list_char_off);
	for (uint32_t c = 0; c < w->n_characters; c++)
		memcpy(&dst[c * CHAR_QUADS], tmp[c].q, sizeof tmp[c].q);
	/* the ground: from the horizon down */
	float horizon = -tanf(cam->pitch) / f->tan_half;
	struct quad *g = (struct quad *)(f->guest + base + f->lay.list_ground_off);
	*g = (struct quad){ 0.0f, horizon + 2.0f, 2.0f, 0xff3a5a46u };
}

/* ---- building a frame ---- */

struct frame_lists {
	uint64_t base;
	uint32_t n_main, n_refl;
};

static int write_lists(struct forest *f, uint64_t frame, const struct forest_camera *cam,
                       struct char_quads *tmp, struct frame_lists *out)
{
	const struct layout *l = &f->lay;
	uint64_t base = list_base(f, frame);
	uint32_t nm = merge(f, false, (struct quad *)(f->guest + base + l->list_main_off));
	uint32_t nr = merge(f, true, (struct quad *)(f->guest + base + l->list_refl_off));
	write_characters(f, cam, base, tmp);
	int rc;
	if ((rc = rxvk_cpu_wrote(f->rx, base, l->list_main_off + (uint64_t)nm * QUAD_B)) < 0 ||
	    (rc = rxvk_cpu_wrote(f->rx, base + l->list_refl_off, (uint64_t)nr * QUAD_B)) < 0)
		return rc;
	*out = (struct frame_lists){ base, nm, nr };
	return 0;
}

/* Scene draws over a list: draw i of n covers [i * len / n, (i + 1) * len / n);
 * an empty share draws the null quad at the buffer's start. */
static void scene_draws(struct ops *o, uint64_t base, uint64_t off, uint32_t len, uint32_t first,
                        uint32_t last, uint32_t n, uint32_t alu)
{
	for (uint32_t i = first; i < last; i++) {
		uint32_t lo = (uint32_t)((uint64_t)i * len / n), hi = (uint32_t)((uint64_t)(i + 1) * len / n);
		if (hi > lo)
			quads(o, base + off + (uint64_t)lo * QUAD_B, hi - lo, alu);
		else
			quads(o, base, 1, alu);
	}
}

static void build(struct forest *f, uint64_t frame, const struct forest_camera *cam,
                  const struct frame_lists *lists, struct ops *o)
{
	const struct layout *l = &f->lay;
	const struct forest_options *opt = &f->opt;
	uint32_t W = opt->width, H = opt->height;
	uint64_t cur = l->main[frame % 2], prev = l->main[(frame + 1) % 2];
	uint32_t chars = f->world->n_characters;
	uint32_t scene = opt->draws > chars + 2 + 32 ? opt->draws - chars - 2 : 32;
	uint32_t dm = scene * 3 / 4, dr = scene - dm, blocks = opt->switches / 2;
	uint64_t base = lists->base;

	target(o, l->refl, l->refl_w, l->refl_h, RXVK_FORMAT_RGBA8);
	fill(o, l->refl, (uint64_t)l->refl_w * l->refl_h * 4, WATER_FILL);
	target(o, cur, W, H, RXVK_FORMAT_BGRA8);
	fill(o, cur, (uint64_t)W * H * 4, SKY_BGRA_FILL);
	quads(o, base + l->list_ground_off, 1, 0);
	bool culled = false;
	for (uint32_t b = 0; b < blocks; b++) {
		uint32_t m0 = b * dm / blocks, m1 = (b + 1) * dm / blocks;
		uint32_t r0 = b * dr / blocks, r1 = (b + 1) * dr / blocks;
		uint32_t before = m0 + r0;
		if (!culled && before + (m1 - m0) >= scene / 2) {
			/* half way through the frame's scene draws */
			uint32_t half = scene / 2 > before ? scene / 2 - before : 0;
			scene_draws(o, base, l->list_main_off, lists->n_main, m0, m0 + half, dm, opt->alu);
			cull_ops(o, f, cam, frame);
			culled = true;
			scene_draws(o, base, l->list_main_off, lists->n_main, m0 + half, m1, dm, opt->alu);
		} else {
			scene_draws(o, base, l->list_main_off, lists->n_main, m0, m1, dm, opt->alu);
		}
		target(o, l->refl, l->refl_w, l->refl_h, RXVK_FORMAT_RGBA8);
		scene_draws(o, base, l->list_refl_off, lists->n_refl, r0, r1, dr, opt->alu / 2);
		target(o, cur, W, H, RXVK_FORMAT_BGRA8);
	}
	for (uint32_t c = 0; c < chars; c++)
		quads(o, base + l->list_char_off + (uint64_t)c * CHAR_QUADS * QUAD_B, CHAR_QUADS, opt->alu);
	uint64_t hud_B = (uint64_t)opt->jobs * JOB_RESULT_B;
	if (frame % opt->hud_every == 0)
		push(o, (struct rxvk_op){ .kind = RXVK_OP_COPY,
		                          .read = { { l->camera_page + JOB_SLOT_OFF_B + ((frame - 1) % 2) * 1024, hud_B } },
		                          .write = { l->hud, hud_B } });
	quads(o, l->hud, opt->jobs * 4, 0);
	if (cam->talking)
		quads(o, l->dialog, DIALOG_QUADS, 0);

	/* the reflection's mip chain, each level drawn from the previous one's guest bytes */
	target(o, l->mip1, l->mip1_w, l->mip1_h, RXVK_FORMAT_RGBA8);
	textured(o, l->refl, 0, l->refl_w, l->refl_h, RXVK_FORMAT_RGBA8, 0, 0, 0, 0, 0);
	target(o, l->mip2, l->mip2_w, l->mip2_h, RXVK_FORMAT_RGBA8);
	textured(o, l->mip1, 0, l->mip1_w, l->mip1_h, RXVK_FORMAT_RGBA8, 0, 0, 0, 0, 0);
	target(o, cur, W, H, RXVK_FORMAT_BGRA8);
	textured(o, l->mip1, 0, l->mip1_w, l->mip1_h, RXVK_FORMAT_RGBA8, 0, W - l->mip1_w - 8, 8,
	         l->mip1_w, l->mip1_h);
	textured(o, l->mip2, 0, l->mip2_w, l->mip2_h, RXVK_FORMAT_RGBA8, 0, 8, H - l->mip2_h - 8,
	         l->mip2_w, l->mip2_h);

	/* generated frames between the previous real frame and this one */
	for (uint32_t g = 1; g < opt->framegen; g++) {
		target(o, l->gen[g - 1], W, H, RXVK_FORMAT_BGRA8);
		textured(o, frame > 1 ? prev : cur, cur, W, H, RXVK_FORMAT_BGRA8,
		         (float)g / (float)opt->framegen, 0, 0, 0, 0);
		push(o, (struct rxvk_op){ .kind = RXVK_OP_FLIP, .params = { RXVK_FLIP_SHOWN } });
	}
	if (opt->framegen > 1)
		target(o, cur, W, H, RXVK_FORMAT_BGRA8);
	push(o, (struct rxvk_op){ .kind = RXVK_OP_FLIP });
}

/* ---- the prologue: static data, and the culling of frame 0 ---- */

int forest_prologue(struct forest *f)
{
	const struct layout *l = &f->lay;
	const struct forest_world *w = f->world;
	int rc;
	memcpy(f->guest + l->spheres, w->spheres, (size_t)w->n_instances * 16);
	if ((rc = rxvk_cpu_wrote(f->rx, l->spheres, (uint64_t)w->n_instances * 16)) < 0)
		return rc;
	/* the null quad of every list buffer */
	for (unsigned b = 0; b < LIST_BUFFERS; b++) {
		struct quad nul = { 4.0f, 4.0f, 0.0f, 0 };
		memcpy(f->guest + l->lists + b * l->list_B, &nul, sizeof nul);
		if ((rc = rxvk_cpu_wrote(f->rx, l->lists + b * l->list_B, sizeof nul)) < 0)
			return rc;
	}
	struct quad dialog[DIALOG_QUADS] = {
		{ 0.0f, 0.78f, 0.2f, 0xff302018u },
		{ -0.55f, 0.78f, 0.2f, 0xff302018u },
		{ 0.55f, 0.78f, 0.2f, 0xff302018u },
		{ -0.62f, 0.72f, 0.05f, 0xff60d0f0u },
	};
	memcpy(f->guest + l->dialog, dialog, sizeof dialog);
	if ((rc = rxvk_cpu_wrote(f->rx, l->dialog, sizeof dialog)) < 0)
		return rc;
	struct rxvk_op v[4];
	struct ops o = { .v = v, .cap = 4 };
	cull_ops(&o, f, &f->cams[0], 0);
	uint64_t sub;
	if ((rc = rxvk_submit(f->rx, o.v, o.n, &sub)) < 0) {
		forest_log(f->log, "cannot submit the prologue: %s", rxvk_last_error());
		return rc;
	}
	if (sub != 1) {
		forest_log(f->log, "the prologue is submission %llu, not 1", (unsigned long long)sub);
		return -EPROTO;
	}
	/* the game waits for its first culling result before it starts, as a
	 * read: a wait for pages written in place is also what wakes the
	 * early policy, whose first writes in the mirror come later */
	struct rxvk_wait first;
	if ((rc = rxvk_invalidate(f->rx, l->camera_page, BLOCK_B, &first)) < 0)
		return rc;
	return first.what == RXVK_WAIT_LATE ? rxvk_finish(f->rx) : 0;
}

/* ---- the render thread ---- */

static bool jobs_done(const struct forest *f, uint64_t frames)
{
	for (unsigned j = 0; j < f->opt.jobs; j++)
		if (f->jobs[j].done < frames)
			return false;
	return true;
}

static void log_job_stats(struct forest *f, uint64_t frame)
{
	struct job_stats s = { 0 };
	pthread_mutex_lock(&f->lock);
	for (unsigned j = 0; j < f->opt.jobs; j++) {
		const struct job_stats *t = &f->jobs[j].stats;
		s.frames += t->frames, s.reads += t->reads, s.polls += t->polls, s.late += t->late;
		s.part += t->part, s.whole += t->whole, s.none += t->none;
		s.wait_ns += t->wait_ns, s.slept_ns += t->slept_ns, s.cpu_ns += t->cpu_ns;
	}
	pthread_mutex_unlock(&f->lock);
	struct job_stats *b = &f->stats_base;
	uint64_t frames = frame - f->last_stats_frame;
	if (!frames)
		return;
	double per = 1.0 / (double)frames;
	forest_log(f->log,
	           "jobs: frames %llu-%llu: waited %.2f ms a frame (reads: %llu whole submission, %llu writer's part, %llu late, %llu at once), "
	           "%.1f polls a frame sleeping %.2f ms, %.2f ms CPU a frame",
	           (unsigned long long)f->last_stats_frame + 1, (unsigned long long)frame,
	           (double)(s.wait_ns - b->wait_ns) / 1e6 * per, (unsigned long long)(s.whole - b->whole),
	           (unsigned long long)(s.part - b->part), (unsigned long long)(s.late - b->late),
	           (unsigned long long)(s.none - b->none), (double)(s.polls - b->polls) * per,
	           (double)(s.slept_ns - b->slept_ns) / 1e6 * per, (double)(s.cpu_ns - b->cpu_ns) / 1e6 * per);
	*b = s;
	f->last_stats_frame = frame;
}

static int render_frame(struct forest *f, uint64_t frame, struct ops *o, struct char_quads *tmp)
{
	struct forest_camera cam;
	pthread_mutex_lock(&f->lock);
	while (!f->stop && !jobs_done(f, frame))
		pthread_cond_wait(&f->cond, &f->lock);
	if (f->cam_wanted < frame + 1)
		f->cam_wanted = frame + 1;
	bool stop = f->stop;
	pthread_mutex_unlock(&f->lock);
	if (stop)
		return 1;
	forest_wake_main(f);
	if (!forest_camera_get(f, frame, &cam))
		return 1;

	struct frame_lists lists;
	int rc = write_lists(f, frame, &cam, tmp, &lists);
	if (rc < 0) {
		forest_log(f->log, "cannot write the lists of frame %llu: %s", (unsigned long long)frame,
		           rxvk_last_error());
		return rc;
	}
	pthread_mutex_lock(&f->lock);
	/* at most --in-flight submissions: the one --in-flight back is presented */
	while (!f->stop && f->presented_real + f->opt.in_flight < frame)
		pthread_cond_wait(&f->cond, &f->lock);
	stop = f->stop;
	pthread_mutex_unlock(&f->lock);
	if (stop)
		return 1;

	o->n = 0;
	build(f, frame, &cam, &lists, o);
	if (o->n == o->cap) {
		forest_log(f->log, "frame %llu needs more than %zu ops", (unsigned long long)frame, o->cap);
		return -E2BIG;
	}
	pthread_mutex_lock(&f->lock);
	if (f->shots_requested) {
		rxvk_request_pixels(f->rx);
		for (unsigned i = 0; i < f->shots_requested; i++) {
			if (f->n_shot_waits == f->cap_shot_waits) {
				size_t cap = f->cap_shot_waits ? f->cap_shot_waits * 2 : 16;
				struct shot_wait *v = realloc(f->shot_waits, cap * sizeof *v);
				if (!v)
					break;
				f->shot_waits = v;
				f->cap_shot_waits = cap;
			}
			struct shot_wait *s = &f->shot_waits[f->n_shot_waits++];
			s->frame = f->flips + 1;
			if (f->shot_by_number[i])
				snprintf(s->name, sizeof s->name, "%llu", (unsigned long long)s->frame);
			else
				memcpy(s->name, f->shot_names[i], sizeof s->name);
		}
		f->shots_requested = 0;
	}
	pthread_mutex_unlock(&f->lock);
	uint64_t sub;
	if ((rc = rxvk_submit(f->rx, o->v, o->n, &sub)) < 0) {
		forest_log(f->log, "cannot submit frame %llu: %s", (unsigned long long)frame, rxvk_last_error());
		return rc;
	}
	if (sub != frame + 1) {
		forest_log(f->log, "frame %llu went out as submission %llu, not %llu", (unsigned long long)frame,
		           (unsigned long long)sub, (unsigned long long)frame + 1);
		return -EPROTO;
	}
	/* the jobs start polling once the whole submission is out: from then
	 * on it is the newest, the one whose camera block they wait for */
	pthread_mutex_lock(&f->lock);
	f->flips += f->opt.framegen;
	f->frames_submitted = frame;
	f->kick = frame + 1;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
	if (f->opt.log_every && frame % f->opt.log_every == 0)
		log_job_stats(f, frame);
	return 0;
}

void *forest_render_main(void *arg)
{
	struct forest *f = arg;
	size_t cap = (size_t)f->opt.draws + f->world->n_characters + 4 * f->opt.switches + 64;
	struct ops o = { .v = calloc(cap, sizeof(struct rxvk_op)), .cap = cap };
	struct char_quads *tmp = calloc(f->world->n_characters, sizeof *tmp);
	int rc = 0;
	if (!o.v || !tmp)
		rc = -ENOMEM;
	for (uint64_t frame = 1; rc == 0; frame++) {
		rc = render_frame(f, frame, &o, tmp);
		if (rc == 0 && f->opt.frames && frame >= f->opt.frames)
			rc = 1;
	}
	if (rc < 0)
		forest_fail(f, rc);
	free(o.v);
	free(tmp);
	pthread_mutex_lock(&f->lock);
	f->render_exited = true;
	f->stop = true;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
	forest_wake_main(f);
	return NULL;
}
