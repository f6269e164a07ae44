/* forest_game: the game's lifetime and its main thread.  It creates the
 * renderer, the world, the guest memory layout, the pad, the control
 * channel, the --window window and the threads; runs the main loop (signals
 * through a signalfd, `shot NAME` lines from the RX_CONTROL FIFO, the pad,
 * the window's close, one simulation step
 * for each frame the render thread asks for, the --seconds deadline); and
 * owns the present callback (frame checksums, screenshots handed to the
 * shot writer thread).  Rendering is forest_frame.c's, polling
 * forest_jobs.c's. */
#include "forest_private.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PAGE_B 4096ull
#define DRAIN_NS 10000000000ull /* waiting for the last frames at a stop */

static uint64_t align_page(uint64_t x)
{
	return (x + PAGE_B - 1) & ~(PAGE_B - 1);
}

uint64_t forest_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void forest_wake_main(struct forest *f)
{
	uint64_t one = 1;
	if (write(f->wake_fd, &one, sizeof one) < 0) {
		/* the counter is full: the main thread has plenty to wake for */
	}
}

void forest_fail(struct forest *f, int rc)
{
	pthread_mutex_lock(&f->lock);
	if (!f->failed)
		f->failed = rc;
	f->stop = true;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
	forest_wake_main(f);
}

bool forest_camera_get(struct forest *f, uint64_t frame, struct forest_camera *out)
{
	pthread_mutex_lock(&f->lock);
	while (!f->stop && f->cam_ready < frame)
		pthread_cond_wait(&f->cond, &f->lock);
	bool ok = f->cam_ready >= frame && f->cams[frame % CAMS].frame == frame;
	if (ok)
		*out = f->cams[frame % CAMS];
	pthread_mutex_unlock(&f->lock);
	return ok;
}

/* ---- guest memory layout ---- */

static int make_layout(struct forest *f)
{
	struct layout *l = &f->lay;
	const struct forest_options *o = &f->opt;
	uint64_t n = f->world->n_instances;
	l->camera_page = 0;
	l->spheres = 16 * PAGE_B;
	l->ring = align_page(l->spheres + n * 16);
	l->ring_result_B = 32 + 4 * n;
	l->ring_slot_B = align_page(l->ring_result_B);
	l->lists = l->ring + RING_SLOTS * l->ring_slot_B;
	l->list_ground_off = QUAD_B;
	l->list_char_off = 2 * QUAD_B;
	l->list_main_off = (l->list_char_off + (uint64_t)f->world->n_characters * CHAR_QUADS * QUAD_B + 255) & ~255ull;
	l->list_refl_off = l->list_main_off + n * QUAD_B;
	l->list_B = align_page(l->list_refl_off + n * QUAD_B);
	l->hud = l->lists + LIST_BUFFERS * l->list_B;
	l->dialog = l->hud + PAGE_B;
	uint64_t frame_B = align_page((uint64_t)o->width * o->height * 4);
	uint64_t at = l->dialog + PAGE_B;
	for (int i = 0; i < 2; i++, at += frame_B)
		l->main[i] = at;
	for (int i = 0; i < 2; i++, at += frame_B)
		l->gen[i] = at;
	l->refl_w = o->width / 2, l->refl_h = o->height / 2;
	l->mip1_w = o->width / 4, l->mip1_h = o->height / 4;
	l->mip2_w = o->width / 8, l->mip2_h = o->height / 8;
	l->refl = at;
	at += align_page((uint64_t)l->refl_w * l->refl_h * 4);
	l->mip1 = at;
	at += align_page((uint64_t)l->mip1_w * l->mip1_h * 4);
	l->mip2 = at;
	at += align_page((uint64_t)l->mip2_w * l->mip2_h * 4);
	l->end_B = at;
	if (l->end_B > rxvk_guest_size(f->rx)) {
		forest_log(f->log,
		           "guest memory of %llu MiB is too small for --size %ux%u and --scale %g (%llu MiB needed); "
		           "raise RX_VK_GUEST_MB",
		           (unsigned long long)(rxvk_guest_size(f->rx) >> 20), o->width, o->height, o->scale,
		           (unsigned long long)((l->end_B + (1 << 20) - 1) >> 20));
		return -ENOMEM;
	}
	return 0;
}

/* ---- presentation: checksums and screenshots ---- */

/* Hands a presented frame's pixels to the shot writer.  Under f->lock. */
static int queue_shot(struct forest *f, const char *name, const struct rxvk_frame *fr, const uint64_t *sum)
{
	uint64_t size_B = (uint64_t)fr->width * fr->height * 4;
	if (f->n_shot_jobs == f->cap_shot_jobs) {
		size_t cap = f->cap_shot_jobs ? f->cap_shot_jobs * 2 : 4;
		struct shot_job *v = realloc(f->shot_jobs, cap * sizeof *v);
		if (!v)
			return -ENOMEM;
		f->shot_jobs = v;
		f->cap_shot_jobs = cap;
	}
	struct shot_job *j = &f->shot_jobs[f->n_shot_jobs];
	j->pixels = malloc(size_B);
	if (!j->pixels)
		return -ENOMEM;
	memcpy(j->pixels, fr->pixels, size_B);
	j->frame = fr->frame;
	snprintf(j->name, sizeof j->name, "%s", name);
	j->width = fr->width;
	j->height = fr->height;
	j->format = fr->format;
	j->checksum = sum ? *sum : forest_frame_checksum(fr->pixels, fr->width, fr->height, fr->format);
	j->luma = forest_mean_luma(fr->pixels, fr->width, fr->height, fr->format);
	f->n_shot_jobs++;
	return 0;
}

static void present(void *user, const struct rxvk_frame *fr)
{
	struct forest *f = user;
	uint64_t sum = 0;
	bool summed = false;
	if (fr->pixels && !fr->shown && f->checksums) {
		sum = forest_frame_checksum(fr->pixels, fr->width, fr->height, fr->format);
		summed = true;
		fprintf(f->checksums, "%" PRIu64 ",%016" PRIx64 "\n", fr->frame, sum);
		fflush(f->checksums);
	}
	pthread_mutex_lock(&f->lock);
	for (size_t i = 0; i < f->n_shot_waits;) {
		struct shot_wait *s = &f->shot_waits[i];
		if (s->frame != fr->frame) {
			i++;
			continue;
		}
		if (!fr->pixels)
			forest_log(f->log, "shot %s: frame %" PRIu64 " came without pixels", s->name, fr->frame);
		else if (queue_shot(f, s->name, fr, summed ? &sum : NULL) < 0)
			forest_log(f->log, "shot %s: out of memory; dropped", s->name);
		f->shot_waits[i] = f->shot_waits[--f->n_shot_waits];
	}
	f->presented_all++;
	if (!fr->shown)
		f->presented_real++;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
}

static void *writer_main(void *arg)
{
	struct forest *f = arg;
	pthread_mutex_lock(&f->lock);
	for (;;) {
		while (!f->n_shot_jobs && !f->writer_stop)
			pthread_cond_wait(&f->cond, &f->lock);
		if (!f->n_shot_jobs)
			break;
		struct shot_job j = f->shot_jobs[0];
		memmove(f->shot_jobs, f->shot_jobs + 1, (f->n_shot_jobs - 1) * sizeof *f->shot_jobs);
		f->n_shot_jobs--;
		pthread_mutex_unlock(&f->lock);
		char path[4096], err[512];
		if (mkdir(f->opt.shot_dir, 0755) != 0 && errno != EEXIST)
			forest_log(f->log, "cannot create shot directory '%s': %s", f->opt.shot_dir, strerror(errno));
		snprintf(path, sizeof path, "%s/%s.png", f->opt.shot_dir, j.name);
		if (forest_png_write(path, j.pixels, j.width, j.height, j.format, err, sizeof err) < 0)
			forest_log(f->log, "shot %s: %s", j.name, err);
		else
			forest_log(f->log, "shot %s frame %" PRIu64 " luma %.2f checksum %016" PRIx64, j.name, j.frame,
			           j.luma, j.checksum);
		free(j.pixels);
		pthread_mutex_lock(&f->lock);
	}
	pthread_mutex_unlock(&f->lock);
	return NULL;
}

static void request_shot(struct forest *f, const char *name)
{
	pthread_mutex_lock(&f->lock);
	unsigned i = f->shots_requested;
	if (i < 16) {
		f->shot_by_number[i] = name == NULL;
		snprintf(f->shot_names[i], sizeof f->shot_names[i], "%s", name ? name : "");
		f->shots_requested++;
	}
	pthread_mutex_unlock(&f->lock);
	if (i >= 16)
		forest_log(f->log, "shot %s: 16 screenshots already wait for the next frame; dropped",
		           name ? name : "(SIGUSR1)");
}

/* ---- the control channel ---- */

static int open_control(struct forest *f)
{
	const char *path = f->opt.control;
	struct stat st;
	if (stat(path, &st) != 0) {
		if (errno != ENOENT || mkfifo(path, 0600) != 0) {
			int rc = -errno;
			forest_log(f->log, "cannot create control FIFO '%s': %s", path, strerror(errno));
			return rc;
		}
	} else if (!S_ISFIFO(st.st_mode)) {
		forest_log(f->log, "control channel '%s' is not a FIFO", path);
		return -EINVAL;
	}
	f->control_fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (f->control_fd < 0) {
		int rc = -errno;
		forest_log(f->log, "cannot open control FIFO '%s': %s", path, strerror(errno));
		return rc;
	}
	/* our own writer: the FIFO never reads end of file when the harness's
	 * writers come and go */
	f->control_keep_fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	return 0;
}

static void control_line(struct forest *f, const char *line, size_t len)
{
	struct forest_control c;
	char err[256];
	f->control_line++;
	if (forest_control_parse(line, len, f->control_line, &c, err, sizeof err) < 0) {
		forest_log(f->log, "control '%s':%s", f->opt.control, err);
		return;
	}
	if (c.kind == FOREST_CONTROL_SHOT)
		request_shot(f, c.name);
}

static void read_control(struct forest *f)
{
	for (;;) {
		size_t room = sizeof f->control_buf - f->control_len;
		ssize_t n = read(f->control_fd, f->control_buf + f->control_len, room);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		f->control_len += (size_t)n;
		size_t start = 0;
		for (size_t i = 0; i < f->control_len; i++)
			if (f->control_buf[i] == '\n') {
				control_line(f, f->control_buf + start, i - start);
				start = i + 1;
			}
		memmove(f->control_buf, f->control_buf + start, f->control_len - start);
		f->control_len -= start;
		if (f->control_len == sizeof f->control_buf) {
			f->control_line++;
			forest_log(f->log, "control '%s':%u:1: line longer than %zu bytes; dropped", f->opt.control,
			           f->control_line, sizeof f->control_buf - 1);
			f->control_len = 0;
		}
	}
}

/* ---- the simulation, stepped on the main thread ---- */

static void step_sims(struct forest *f)
{
	pthread_mutex_lock(&f->lock);
	uint64_t wanted = f->cam_wanted, ready = f->cam_ready;
	pthread_mutex_unlock(&f->lock);
	while (ready < wanted) {
		struct forest_pad_state ps;
		forest_pad_poll(f->pad, forest_now_ns());
		forest_pad_state(f->pad, &ps);
		forest_sim_step(&f->sim, &ps);
		struct forest_camera cam;
		forest_sim_camera(&f->sim, f->world, &cam);
		ready = f->sim.frame;
		pthread_mutex_lock(&f->lock);
		f->cams[ready % CAMS] = cam;
		f->cam_ready = ready;
		pthread_cond_broadcast(&f->cond);
		pthread_mutex_unlock(&f->lock);
		if (f->opt.log_every && ready % f->opt.log_every == 0)
			forest_log(f->log, "frame %" PRIu64 " position x %.3f z %.3f y %.3f yaw %.3f pitch %.3f jumps %u talks %u",
			           ready, (double)f->sim.x_mm / 1000.0, (double)f->sim.z_mm / 1000.0, (double)cam.y,
			           (double)f->sim.yaw * 360.0 / 65536.0, (double)f->sim.pitch * 360.0 / 65536.0,
			           f->sim.jumps, f->sim.talks);
	}
}

/* ---- lifetime ---- */

int forest_create(const struct forest_options *o, struct forest **out)
{
	struct forest *f = calloc(1, sizeof *f);
	if (!f)
		return -ENOMEM;
	f->opt = *o;
	f->wake_fd = f->signal_fd = f->control_fd = f->control_keep_fd = -1;
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->cond, NULL);
	int rc;
	if (o->window) {
		char err[512];
		if ((rc = forest_window_create(o->width, o->height, err, sizeof err, &f->window)) < 0) {
			forest_log(NULL, "%s", err);
			goto fail;
		}
	}
	rc = rxvk_create(&(struct rxvk_config){ .window_xcb = o->window }, &f->rx);
	if (rc < 0) {
		forest_log(NULL, "cannot start the renderer: %s", rxvk_last_error());
		goto fail;
	}
	if (f->window && (rc = rxvk_window_attach_xcb(f->rx, forest_window_connection(f->window),
	                                              forest_window_id(f->window))) < 0) {
		forest_log(NULL, "cannot show frames in the window: %s", rxvk_last_error());
		goto fail;
	}
	struct rxvk_config cfg;
	rxvk_config_get(f->rx, &cfg);
	if ((rc = forest_log_create(cfg.log_path, &f->log)) < 0) {
		forest_log(NULL, "cannot open log '%s': %s", cfg.log_path, strerror(-rc));
		goto fail;
	}
	f->guest = rxvk_guest(f->rx);
	if ((rc = forest_world_create(o->seed, o->scale, &f->world)) < 0) {
		forest_log(f->log, "cannot build the world: %s", strerror(-rc));
		goto fail;
	}
	if ((rc = make_layout(f)) < 0)
		goto fail;
	f->aspect = (float)o->width / (float)o->height;
	f->tan_half = tanf(35.0f * (float)M_PI / 180.0f);
	if (o->checksums && !(f->checksums = fopen(o->checksums, "w"))) {
		rc = -errno;
		forest_log(f->log, "cannot create checksum file '%s': %s", o->checksums, strerror(errno));
		goto fail;
	}
	if (f->checksums)
		fputs("frame,checksum\n", f->checksums);
	if ((rc = forest_pad_create(o->pad, f->log, &f->pad)) < 0) {
		forest_log(f->log, "bad pad '%s'", o->pad);
		goto fail;
	}
	if (o->control && (rc = open_control(f)) < 0)
		goto fail;
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	f->signal_fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	f->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (f->signal_fd < 0 || f->wake_fd < 0) {
		rc = -errno;
		forest_log(f->log, "cannot make the main loop's descriptors: %s", strerror(errno));
		goto fail;
	}
	struct rxvk_device_info dev;
	rxvk_device_info_get(f->rx, &dev);
	forest_log(f->log,
	           "settings: seed %" PRIu64 " size %ux%u draws %u scale %g alu %u cull-alu %u jobs %u job-ms %g "
	           "poll-us %u switches %u hud-every %u in-flight %u view %g framegen %u pad %s; "
	           "%u instances, %u characters; device '%s'",
	           o->seed, o->width, o->height, o->draws, o->scale, o->alu, o->cull_alu, o->jobs, o->job_ms,
	           o->poll_us, o->switches, o->hud_every, o->in_flight, o->view_m, o->framegen, o->pad,
	           f->world->n_instances, f->world->n_characters, dev.name);
	forest_sim_init(&f->sim);
	forest_sim_camera(&f->sim, f->world, &f->cams[0]);
	f->cam_ready = 0;
	f->cam_wanted = 1;
	rxvk_set_present_callback(f->rx, present, f, f->checksums != NULL);
	*out = f;
	return 0;
fail:
	forest_destroy(f);
	return rc;
}

static void stop_threads(struct forest *f)
{
	pthread_mutex_lock(&f->lock);
	f->stop = true;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
	if (f->render_started)
		pthread_join(f->render_thread, NULL);
	f->render_started = false;
	pthread_mutex_lock(&f->lock);
	f->render_exited = true;
	pthread_mutex_unlock(&f->lock);
	for (unsigned j = 0; j < f->opt.jobs; j++)
		if (f->jobs[j].started) {
			pthread_join(f->jobs[j].thread, NULL);
			f->jobs[j].started = false;
		}
}

/* After the last submission: every recorded flip presented (so every
 * screenshot is handed over), then the writer finishes its queue. */
static void drain(struct forest *f)
{
	if (f->rx)
		rxvk_finish(f->rx);
	uint64_t until = forest_now_ns() + DRAIN_NS;
	pthread_mutex_lock(&f->lock);
	while (f->presented_all < f->flips && forest_now_ns() < until) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 50000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&f->cond, &f->lock, &ts);
	}
	f->writer_stop = true; /* the writer ends once its queue is empty */
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
}

static void main_loop(struct forest *f)
{
	uint64_t deadline = f->opt.seconds > 0 ? f->start_ns + (uint64_t)(f->opt.seconds * 1e9) : 0;
	bool window_closed = false;
	for (;;) {
		pthread_mutex_lock(&f->lock);
		bool exited = f->render_exited;
		pthread_mutex_unlock(&f->lock);
		if (exited)
			return;
		struct pollfd fds[5] = {
			{ f->signal_fd, POLLIN, 0 },
			{ f->wake_fd, POLLIN, 0 },
			{ f->control_fd, POLLIN, 0 },
			{ forest_pad_fd(f->pad), POLLIN, 0 },
			{ forest_window_fd(f->window), POLLIN, 0 },
		};
		uint64_t now = forest_now_ns();
		int timeout_ms = 250;
		if (deadline) {
			if (now >= deadline) {
				forest_log(f->log, "--seconds %g reached; stopping", f->opt.seconds);
				pthread_mutex_lock(&f->lock);
				f->stop = true;
				pthread_cond_broadcast(&f->cond);
				pthread_mutex_unlock(&f->lock);
				deadline = 0;
				continue;
			}
			uint64_t left_ms = (deadline - now) / 1000000 + 1;
			if (left_ms < (uint64_t)timeout_ms)
				timeout_ms = (int)left_ms;
		}
		if (poll(fds, 5, timeout_ms) < 0 && errno != EINTR)
			return;
		struct signalfd_siginfo si;
		while (read(f->signal_fd, &si, sizeof si) == sizeof si) {
			if (si.ssi_signo == SIGUSR1) {
				request_shot(f, NULL);
				continue;
			}
			forest_log(f->log, "%s: stopping", si.ssi_signo == SIGINT ? "SIGINT" : "SIGTERM");
			pthread_mutex_lock(&f->lock);
			f->stop = true;
			pthread_cond_broadcast(&f->cond);
			pthread_mutex_unlock(&f->lock);
		}
		if (f->window && !window_closed && forest_window_events(f->window)) {
			window_closed = true;
			forest_log(f->log, "window closed: stopping");
			pthread_mutex_lock(&f->lock);
			f->stop = true;
			pthread_cond_broadcast(&f->cond);
			pthread_mutex_unlock(&f->lock);
		}
		uint64_t count;
		if (read(f->wake_fd, &count, sizeof count) < 0) {
			/* nothing was signalled */
		}
		if (f->control_fd >= 0)
			read_control(f);
		forest_pad_poll(f->pad, forest_now_ns());
		step_sims(f);
	}
}

int forest_run(struct forest *f)
{
	int rc = forest_prologue(f);
	if (rc < 0)
		return rc;
	f->start_ns = forest_now_ns();
	pthread_mutex_lock(&f->lock);
	f->cam_wanted = 1;
	f->kick = 1; /* the jobs read frame 0's camera block, the prologue's */
	pthread_mutex_unlock(&f->lock);
	step_sims(f);
	if (pthread_create(&f->writer_thread, NULL, writer_main, f) != 0)
		return -EAGAIN;
	f->writer_started = true;
	for (unsigned j = 0; j < f->opt.jobs; j++) {
		f->jobs[j] = (struct job){ .f = f, .index = j };
		if (pthread_create(&f->jobs[j].thread, NULL, forest_job_main, &f->jobs[j]) != 0) {
			forest_fail(f, -EAGAIN);
			break;
		}
		f->jobs[j].started = true;
	}
	if (!f->failed && pthread_create(&f->render_thread, NULL, forest_render_main, f) == 0)
		f->render_started = true;
	else
		forest_fail(f, -EAGAIN);
	if (f->render_started)
		main_loop(f);
	stop_threads(f);
	drain(f);
	pthread_join(f->writer_thread, NULL);
	f->writer_started = false;

	uint64_t end = forest_now_ns();
	struct rxvk_counters c;
	rxvk_counters_get(f->rx, &c);
	double s = (double)(end - f->start_ns) / 1e9;
	struct job_stats js = { 0 };
	for (unsigned j = 0; j < f->opt.jobs; j++) {
		js.frames += f->jobs[j].stats.frames;
		js.wait_ns += f->jobs[j].stats.wait_ns;
		js.polls += f->jobs[j].stats.polls;
	}
	uint64_t frames = f->frames_submitted;
	forest_log(f->log,
	           "stopped after %" PRIu64 " real frames (%" PRIu64 " presented) in %.2f s, %.1f real fps; "
	           "position x %.3f z %.3f; jobs waited %.2f ms a frame, %.1f polls a frame",
	           frames, f->presented_all, s, s > 0 ? (double)frames / s : 0.0, (double)f->sim.x_mm / 1000.0,
	           (double)f->sim.z_mm / 1000.0, frames ? (double)js.wait_ns / 1e6 / (double)frames : 0.0,
	           frames ? (double)js.polls / (double)frames : 0.0);
	if (f->failed)
		return f->failed;
	if (c.validation_messages) {
		forest_log(f->log, "the validation layer reported %" PRIu64 " messages", c.validation_messages);
		return 1;
	}
	if (f->wrong_data) {
		forest_log(f->log, "%" PRIu64 " readbacks held data their frame's dispatch did not write", f->wrong_data);
		return 1;
	}
	return 0;
}

void forest_destroy(struct forest *f)
{
	if (!f)
		return;
	stop_threads(f);
	if (f->writer_started) {
		drain(f);
		pthread_join(f->writer_thread, NULL);
		f->writer_started = false;
	}
	rxvk_destroy(f->rx); /* presents what is left and flushes the frame log */
	forest_window_destroy(f->window); /* after the renderer's swapchain is gone */
	for (size_t i = 0; i < f->n_shot_jobs; i++)
		free(f->shot_jobs[i].pixels);
	free(f->shot_jobs);
	free(f->shot_waits);
	for (unsigned j = 0; j < MAX_JOBS; j++) {
		free(f->jobs[j].out.main.v);
		free(f->jobs[j].out.refl.v);
	}
	if (f->checksums)
		fclose(f->checksums);
	forest_pad_destroy(f->pad);
	forest_world_destroy(f->world);
	if (f->control_fd >= 0)
		close(f->control_fd);
	if (f->control_keep_fd >= 0)
		close(f->control_keep_fd);
	if (f->signal_fd >= 0)
		close(f->signal_fd);
	if (f->wake_fd >= 0)
		close(f->wake_fd);
	forest_log_destroy(f->log);
	pthread_cond_destroy(&f->cond);
	pthread_mutex_destroy(&f->lock);
	free(f);
}
