/* forest_jobs: the job threads.  For each frame the render thread kicks,
 * a job sleep-polls the camera block (rxvk_invalidate, read, compare the
 * frame number, sleep --poll-us when it is not there yet), checks what it
 * read against what the frame asked for, reads the per-instance results
 * of two frames back from the ring, projects and sorts its share of the
 * scene (regions r with r % jobs == its index) for the next frame, spends
 * --job-ms of CPU time, and writes its small result (HUD quads) next to the
 * camera block, in the same page.  It does not touch the instance lists in
 * guest memory: the render thread merges the jobs' outputs there. */
#include "forest_private.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int forest_keyed_reserve(struct keyed_list *l, uint32_t n)
{
	if (n <= l->cap)
		return 0;
	struct keyed *v = realloc(l->v, (size_t)n * sizeof *v);
	if (!v)
		return -ENOMEM;
	l->v = v;
	l->cap = n;
	return 0;
}

static int keyed_cmp(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

void forest_keyed_sort(struct keyed *v, uint32_t n)
{
	qsort(v, n, sizeof *v, keyed_cmp);
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint32_t rgba(unsigned r, unsigned g, unsigned b)
{
	return (r & 0xffu) | (g & 0xffu) << 8 | (b & 0xffu) << 16 | 0xffu << 24;
}

static void wrong(struct forest *f, const char *fmt, uint64_t a, uint64_t b, uint64_t c)
{
	pthread_mutex_lock(&f->lock);
	uint64_t n = ++f->wrong_data;
	pthread_mutex_unlock(&f->lock);
	if (n <= 10)
		forest_log(f->log, fmt, (unsigned long long)a, (unsigned long long)b, (unsigned long long)c);
}

static void account(struct job_stats *s, const struct rxvk_wait *w)
{
	s->reads++;
	switch (w->what) {
	case RXVK_WAIT_LATE:
		s->late++;
		break;
	case RXVK_WAIT_PART:
		s->part++;
		break;
	case RXVK_WAIT_SUBMISSION:
		s->whole++;
		break;
	default:
		s->none++;
		break;
	}
	if (w->waited)
		s->wait_ns += w->wait_ns;
}

/*
 * Polls the camera block until it holds frame k (or, when the read was let
 * through by the late rule, frame k - 1 or k).  Returns the frame read, or
 * UINT64_MAX when stopping.  regions_out gets the block's visibility words
 * as read, copied once.
 */
static uint64_t poll_block(struct job *job, uint64_t k, uint32_t *regions_out, bool *late_out,
                           struct job_stats *st)
{
	struct forest *f = job->f;
	const volatile uint32_t *block = (const volatile uint32_t *)(f->guest + f->lay.camera_page);
	struct timespec nap = { 0, (long)f->opt.poll_us * 1000 };
	for (;;) {
		pthread_mutex_lock(&f->lock);
		bool stop = f->stop;
		pthread_mutex_unlock(&f->lock);
		if (stop)
			return UINT64_MAX;
		struct rxvk_wait w;
		int rc = rxvk_invalidate(f->rx, f->lay.camera_page, BLOCK_B, &w);
		if (rc < 0) {
			forest_log(f->log, "job %u: cannot read the camera block: %s", job->index,
			           rxvk_last_error());
			forest_fail(f, rc);
			return UINT64_MAX;
		}
		account(st, &w);
		uint64_t frame = block[0];
		bool late = w.what == RXVK_WAIT_LATE;
		if ((late && frame <= k && frame + 1 >= k) || (!late && frame >= k)) {
			if (frame > k)
				wrong(f, "job: camera block holds frame %llu while frame %llu is the newest asked for (%llu)",
				      frame, k, k);
			for (uint32_t r = 0; r < FOREST_REGIONS; r++)
				regions_out[r] = block[8 + r];
			*late_out = late;
			return frame;
		}
		uint64_t t0 = forest_now_ns();
		nanosleep(&nap, NULL);
		st->polls++;
		st->slept_ns += forest_now_ns() - t0;
	}
}

/* The header of a block or ring slot read after a wait must be exactly what
 * the dispatch was given. */
static void check_header(struct forest *f, const uint32_t *h, uint64_t frame, uint32_t total,
                         const char *what)
{
	pthread_mutex_lock(&f->lock);
	struct forest_camera cam = f->cams[frame % CAMS];
	bool have = f->cam_ready >= frame && cam.frame == frame;
	pthread_mutex_unlock(&f->lock);
	float view = (float)f->opt.view_m;
	uint32_t want[8] = { (uint32_t)frame, total, 0, 0 };
	memcpy(&want[4], &cam.x, 4);
	memcpy(&want[5], &cam.y, 4);
	memcpy(&want[6], &cam.z, 4);
	memcpy(&want[7], &view, 4);
	for (int i = 0; i < 8; i++) {
		if (i >= 4 && !have)
			break;
		if (h[i] != want[i]) {
			char fmt[160];
			snprintf(fmt, sizeof fmt,
			         "job: the %s of frame %%llu holds 0x%%llx in word %d, the dispatch wrote 0x%%llx", what, i);
			wrong(f, fmt, frame, h[i], want[i]);
			return;
		}
	}
}

static void busy(uint64_t until_cpu_ns, volatile uint32_t *sink)
{
	uint32_t x = *sink;
	while (thread_cpu_ns() < until_cpu_ns)
		for (int i = 0; i < 4096; i++)
			x = x * 1664525u + 1013904223u;
	*sink = x;
}

/* Step of a job's frame: the per-instance results of two frames back, long
 * done in every arm, read and checked.  NULL on failure (logged). */
static const uint32_t *read_ring(struct job *job, uint64_t k, struct job_stats *st, int *rc)
{
	struct forest *f = job->f;
	uint64_t rf = k >= 2 ? k - 2 : 0;
	uint64_t slot = f->lay.ring + (rf % RING_SLOTS) * f->lay.ring_slot_B;
	struct rxvk_wait w;
	*rc = rxvk_invalidate(f->rx, slot, f->lay.ring_result_B, &w);
	if (*rc < 0) {
		forest_log(f->log, "job %u: cannot read the culling ring: %s", job->index, rxvk_last_error());
		return NULL;
	}
	account(st, &w);
	const uint32_t *ring = (const uint32_t *)(f->guest + slot);
	check_header(f, ring, rf, f->world->n_instances, "ring slot");
	return ring;
}

/* Step of a job's frame: the camera of frame k + 1, once the main thread
 * has it.  false when the game stops meanwhile. */
static bool wait_camera(struct forest *f, uint64_t k, struct forest_camera *cam)
{
	pthread_mutex_lock(&f->lock);
	while (!f->stop && f->cam_ready < k + 1)
		pthread_cond_wait(&f->cond, &f->lock);
	bool stop = f->stop;
	*cam = f->cams[(k + 1) % CAMS];
	pthread_mutex_unlock(&f->lock);
	return !stop;
}

/* Step of a job's frame: the visible instances of its regions projected
 * and sorted, then CPU burnt up to the job's cost.  0 or a negative errno. */
static int project_regions(struct job *job, uint64_t k, uint64_t used, const uint32_t *regions,
                           const uint32_t *ring, const struct forest_camera *cam, struct job_stats *st)
{
	struct forest *f = job->f;
	uint64_t cpu0 = thread_cpu_ns();
	struct job_out *out = &job->out;
	const struct forest_world *wd = f->world;
	uint32_t need = 0;
	int rc;
	for (uint32_t r = job->index; r < FOREST_REGIONS; r += f->opt.jobs)
		need += wd->region_first[r + 1] - wd->region_first[r];
	if ((rc = forest_keyed_reserve(&out->main, need)) < 0 || (rc = forest_keyed_reserve(&out->refl, need)) < 0)
		return rc;
	out->main.n = 0;
	out->refl.n = 0;
	out->regions_visible = 0;
	out->frame_used = used;
	for (uint32_t r = job->index; r < FOREST_REGIONS; r += f->opt.jobs) {
		if (!(regions[r] & 1))
			continue;
		out->regions_visible++;
		for (uint32_t i = wd->region_first[r]; i < wd->region_first[r + 1]; i++) {
			if (!(ring[8 + i] & 1))
				continue;
			const float *s = &wd->spheres[i * 4];
			forest_project_main(f, cam, s, wd->colour[i], wd->kind[i], i, cam->frame, &out->main);
			forest_project_refl(f, cam, s, wd->colour[i], wd->kind[i], i, &out->refl);
		}
	}
	forest_keyed_sort(out->main.v, out->main.n);
	forest_keyed_sort(out->refl.v, out->refl.n);
	volatile uint32_t sink = (uint32_t)k;
	busy(cpu0 + (uint64_t)(f->opt.job_ms * 1e6), &sink);
	st->cpu_ns = thread_cpu_ns() - cpu0;
	return 0;
}

/* Step of a job's frame: its result, next to the camera block, where the
 * HUD shows it.  0 or a negative errno. */
static int write_result(struct job *job, uint64_t k)
{
	struct forest *f = job->f;
	const struct job_out *out = &job->out;
	struct quad q[4];
	float x0 = -0.97f + 0.1f * (float)job->index;
	unsigned vis = out->regions_visible, nm = out->main.n, nr = out->refl.n;
	for (int i = 0; i < 4; i++)
		q[i] = (struct quad){ x0 + 0.022f * (float)i, -0.93f, 0.009f, 0 };
	q[0].colour = rgba(60 + vis * 6, 200, 60);
	q[1].colour = rgba(nm & 0xff, (nm >> 8) & 0xff, 200);
	q[2].colour = rgba(200, nr & 0xff, (nr >> 8) & 0xff);
	q[3].colour = rgba(255, 255, 128 + (unsigned)(job->index * 8));
	uint64_t at = f->lay.camera_page + JOB_SLOT_OFF_B + (k % 2) * 1024 + job->index * JOB_RESULT_B;
	memcpy(f->guest + at, q, sizeof q);
	int rc = rxvk_cpu_wrote(f->rx, at, sizeof q);
	if (rc < 0)
		forest_log(f->log, "job %u: %s", job->index, rxvk_last_error());
	return rc;
}

/* Step of a job's frame: frame k done, its figures added to the job's. */
static void frame_done(struct job *job, uint64_t k, const struct job_stats *st)
{
	struct forest *f = job->f;
	pthread_mutex_lock(&f->lock);
	job->done = k + 1;
	struct job_stats *t = &job->stats;
	t->frames++;
	t->reads += st->reads;
	t->polls += st->polls;
	t->late += st->late;
	t->part += st->part;
	t->whole += st->whole;
	t->none += st->none;
	t->wait_ns += st->wait_ns;
	t->slept_ns += st->slept_ns;
	t->cpu_ns += st->cpu_ns;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
}

/* A job's frame k: the camera block, the ring, the projection, the result.
 * 0 done, 1 the game stops, or a negative errno. */
static int run_frame(struct job *job, uint64_t k)
{
	struct forest *f = job->f;
	struct job_stats st = { 0 };
	uint32_t regions[FOREST_REGIONS];
	bool late = false;
	uint64_t used = poll_block(job, k, regions, &late, &st);
	if (used == UINT64_MAX)
		return 1;
	if (!late) {
		uint32_t head[8];
		memcpy(head, f->guest + f->lay.camera_page, sizeof head);
		check_header(f, head, k, FOREST_REGIONS, "camera block");
	}
	int rc;
	const uint32_t *ring = read_ring(job, k, &st, &rc);
	if (!ring)
		return rc;
	struct forest_camera cam;
	if (!wait_camera(f, k, &cam))
		return 1;
	if ((rc = project_regions(job, k, used, regions, ring, &cam, &st)) < 0 || (rc = write_result(job, k)) < 0)
		return rc;
	frame_done(job, k, &st);
	return 0;
}

void *forest_job_main(void *arg)
{
	struct job *job = arg;
	struct forest *f = job->f;
	for (;;) {
		pthread_mutex_lock(&f->lock);
		while (!f->stop && f->kick <= job->done)
			pthread_cond_wait(&f->cond, &f->lock);
		bool stop = f->stop;
		uint64_t k = job->done;
		pthread_mutex_unlock(&f->lock);
		if (stop)
			break;
		int rc = run_frame(job, k);
		if (rc < 0) {
			forest_fail(f, rc);
			break;
		}
		if (rc > 0)
			break;
	}
	return NULL;
}
