/* pad: the backend-independent part of the virtual pad (see pad.h).
 *
 * It owns the layout tables, the shared state and its lock, frame
 * validation, the neutral frame, and the supervision of a spawned child:
 * the watcher thread that forks it, waits for it by pid, and writes the
 * neutral frame when it ends.  How a frame reaches the game is the
 * backends' business (pad-uinput.c, pad-socket.c), which the core reaches
 * only through their struct pad_impl.
 */
#include "pad-private.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const struct pad_button_info pad_buttons[PAD_BUTTON_COUNT] = {
	[PAD_BUTTON_A] = { BTN_SOUTH, "A" },
	[PAD_BUTTON_B] = { BTN_EAST, "B" },
	[PAD_BUTTON_X] = { BTN_NORTH, "X" },
	[PAD_BUTTON_Y] = { BTN_WEST, "Y" },
	[PAD_BUTTON_LB] = { BTN_TL, "LB" },
	[PAD_BUTTON_RB] = { BTN_TR, "RB" },
	[PAD_BUTTON_BACK] = { BTN_SELECT, "BACK" },
	[PAD_BUTTON_START] = { BTN_START, "START" },
	[PAD_BUTTON_GUIDE] = { BTN_MODE, "GUIDE" },
	[PAD_BUTTON_LS] = { BTN_THUMBL, "LS" },
	[PAD_BUTTON_RS] = { BTN_THUMBR, "RS" },
};

const struct pad_axis_info pad_axes[PAD_AXIS_COUNT] = {
	[PAD_AXIS_LX] = { ABS_X, PAD_STICK_MIN, PAD_STICK_MAX },
	[PAD_AXIS_LY] = { ABS_Y, PAD_STICK_MIN, PAD_STICK_MAX },
	[PAD_AXIS_LT] = { ABS_Z, 0, PAD_TRIGGER_MAX },
	[PAD_AXIS_RX] = { ABS_RX, PAD_STICK_MIN, PAD_STICK_MAX },
	[PAD_AXIS_RY] = { ABS_RY, PAD_STICK_MIN, PAD_STICK_MAX },
	[PAD_AXIS_RT] = { ABS_RZ, 0, PAD_TRIGGER_MAX },
	[PAD_AXIS_HATX] = { ABS_HAT0X, -1, 1 },
	[PAD_AXIS_HATY] = { ABS_HAT0Y, -1, 1 },
};

int pad_button_index(uint16_t code)
{
	for (int i = 0; i < PAD_BUTTON_COUNT; i++)
		if (pad_buttons[i].code == code)
			return i;
	return -1;
}

int pad_axis_index(uint16_t code)
{
	for (int i = 0; i < PAD_AXIS_COUNT; i++)
		if (pad_axes[i].code == code)
			return i;
	return -1;
}

void pad_lock(struct pad *pad)
{
	int r = pthread_mutex_lock(&pad->shared->lock);
	/* A child killed inside a frame left the state half-updated; whoever
	 * takes the lock next writes a neutral frame anyway. */
	if (r == EOWNERDEAD)
		pthread_mutex_consistent(&pad->shared->lock);
}

void pad_unlock(struct pad *pad)
{
	pthread_mutex_unlock(&pad->shared->lock);
}

size_t pad_full_state(const struct pad *pad, bool dropped, struct input_event *ev)
{
	size_t n = 0;
	memset(ev, 0, sizeof *ev * PAD_FRAME_MAX);
	if (dropped)
		ev[n++] = (struct input_event){ .type = EV_SYN, .code = SYN_DROPPED };
	for (int i = 0; i < PAD_BUTTON_COUNT; i++)
		ev[n++] = (struct input_event){ .type = EV_KEY, .code = pad_buttons[i].code,
		                                .value = pad->shared->key[i] };
	for (int i = 0; i < PAD_AXIS_COUNT; i++)
		ev[n++] = (struct input_event){ .type = EV_ABS, .code = pad_axes[i].code,
		                                .value = pad->shared->abs[i] };
	ev[n++] = (struct input_event){ .type = EV_SYN, .code = SYN_REPORT };
	return n;
}

static int make_shared(struct pad *pad)
{
	void *m = mmap(NULL, sizeof *pad->shared, PROT_READ | PROT_WRITE,
	               MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return -errno;
	pad->shared = m;
	memset(pad->shared, 0, sizeof *pad->shared);
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	int r = pthread_mutex_init(&pad->shared->lock, &a);
	pthread_mutexattr_destroy(&a);
	return -r;
}

int pad_init(struct pad *pad, const struct pad_impl *impl)
{
	pad->impl = impl;
	pad->owner_pid = getpid();
	pad->ctl_fd = -1;
	pad->child_ctl = -1;
	pad->owner_ctl = -1;
	pthread_mutex_init(&pad->spawn_lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&pad->spawn_cond, &ca);
	pthread_condattr_destroy(&ca);
	return make_shared(pad);
}

int pad_create(const char *spec, struct pad **out)
{
	if (!spec || !out)
		return -EINVAL;
	if (strcmp(spec, "uinput") == 0)
		return pad_uinput_create(out);
	if (strncmp(spec, "socket:", 7) == 0 && spec[7])
		return pad_socket_create(spec + 7, out);
	if (strcmp(spec, "none") == 0)
		return pad_none_create(out);
	return -EINVAL;
}

static bool child_running(struct pad *pad)
{
	pthread_mutex_lock(&pad->spawn_lock);
	bool running = pad->child_running;
	pthread_mutex_unlock(&pad->spawn_lock);
	return running;
}

void pad_destroy(struct pad *pad)
{
	if (!pad)
		return;
	if (!pad->in_child && pad->shared) {
		if (child_running(pad)) {
			pthread_mutex_lock(&pad->spawn_lock);
			pid_t pid = pad->child_pid;
			pthread_mutex_unlock(&pad->spawn_lock);
			kill(pid, SIGTERM);
			if (pad_wait_child(pad, 1000) == -ETIMEDOUT) {
				kill(pid, SIGKILL);
				pad_wait_child(pad, -1);
			}
		}
		if (pad->impl->is_open(pad))
			pad_neutral(pad);
	}
	if (pad->watcher_started)
		pthread_join(pad->watcher, NULL);
	pad->impl->close(pad);
	if (pad->ctl_fd >= 0)
		close(pad->ctl_fd);
	pad->ctl_fd = -1;
	if (pad->child_ctl >= 0)
		close(pad->child_ctl);
	if (pad->shared) {
		if (!pad->in_child)
			pthread_mutex_destroy(&pad->shared->lock);
		munmap(pad->shared, sizeof *pad->shared);
	}
	pthread_cond_destroy(&pad->spawn_cond);
	pthread_mutex_destroy(&pad->spawn_lock);
	free(pad);
}

const char *pad_backend(const struct pad *pad)
{
	return pad->impl->name;
}

const char *pad_devnode(const struct pad *pad)
{
	return pad->impl->devnode(pad);
}

static int check_event(const struct input_event *e)
{
	if (e->type == EV_KEY) {
		if (pad_button_index(e->code) < 0 || (e->value != 0 && e->value != 1))
			return -EINVAL;
		return 0;
	}
	if (e->type == EV_ABS) {
		int i = pad_axis_index(e->code);
		if (i < 0 || e->value < pad_axes[i].min || e->value > pad_axes[i].max)
			return -EINVAL;
		return 0;
	}
	return -EINVAL;
}

int pad_frame(struct pad *pad, const struct input_event *events, size_t n)
{
	if (n == 0)
		return 0;
	if (n > PAD_FRAME_MAX - 2)
		return -E2BIG;
	struct input_event buf[PAD_FRAME_MAX];
	for (size_t i = 0; i < n; i++) {
		int r = check_event(&events[i]);
		if (r < 0)
			return r;
		buf[i] = (struct input_event){ .type = events[i].type, .code = events[i].code,
		                               .value = events[i].value };
	}
	buf[n] = (struct input_event){ .type = EV_SYN, .code = SYN_REPORT };

	pad_lock(pad);
	for (size_t i = 0; i < n; i++) {
		if (buf[i].type == EV_KEY)
			pad->shared->key[pad_button_index(buf[i].code)] = buf[i].value;
		else
			pad->shared->abs[pad_axis_index(buf[i].code)] = buf[i].value;
	}
	int r = pad->impl->write(pad, buf, n + 1, false);
	pad_unlock(pad);
	return r;
}

int pad_neutral(struct pad *pad)
{
	struct input_event buf[PAD_FRAME_MAX];
	pad_lock(pad);
	memset(pad->shared->key, 0, sizeof pad->shared->key);
	memset(pad->shared->abs, 0, sizeof pad->shared->abs);
	size_t n = pad_full_state(pad, false, buf);
	int r = pad->impl->write(pad, buf, n, true);
	pad_unlock(pad);
	return r;
}

size_t pad_socket_client_count(struct pad *pad)
{
	if (!pad->impl->client_count)
		return 0;
	pad_lock(pad);
	size_t n = pad->impl->client_count(pad);
	pad_unlock(pad);
	return n;
}

int pad_state(struct pad *pad, uint16_t type, uint16_t code, int32_t *value)
{
	int i = type == EV_KEY ? pad_button_index(code) : type == EV_ABS ? pad_axis_index(code) : -1;
	if (i < 0)
		return -EINVAL;
	pad_lock(pad);
	*value = type == EV_KEY ? pad->shared->key[i] : pad->shared->abs[i];
	pad_unlock(pad);
	return 0;
}

/* ---- the spawned child ---- */

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static void close_span(unsigned int lo, unsigned int hi)
{
	if (close_range(lo, hi, 0) == 0)
		return;
	long max = sysconf(_SC_OPEN_MAX);
	if (max < 0 || max > 65536)
		max = 65536;
	for (long fd = lo; fd <= (long)hi && fd < max; fd++)
		close((int)fd);
}

/* Closes every descriptor but those in keep (which it sorts). */
static void close_all_but(int *keep, size_t n)
{
	qsort(keep, n, sizeof *keep, cmp_int);
	unsigned int from = 0;
	for (size_t i = 0; i < n; i++) {
		if (keep[i] < 0 || (unsigned int)keep[i] < from)
			continue;
		if ((unsigned int)keep[i] > from)
			close_span(from, (unsigned int)keep[i] - 1);
		from = (unsigned int)keep[i] + 1;
	}
	close_span(from, ~0u);
}

static void child_main(struct pad *pad)
{
	pad->in_child = true;
	pad->watcher_started = false;
	if (pad->ctl_fd >= 0)
		close(pad->ctl_fd);
	pad->ctl_fd = pad->child_ctl;
	pad->child_ctl = -1;

	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != pad->owner_pid)
		_exit(128 + SIGTERM);

	struct sigaction dfl = { .sa_handler = SIG_DFL };
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			sigaction(s, &dfl, NULL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	if (pad->impl->child_init)
		pad->impl->child_init(pad);

	int keep[16 + PAD_SOCKET_MAX_CLIENTS + 4];
	size_t n = 0;
	keep[n++] = 0;
	keep[n++] = 1;
	keep[n++] = 2;
	if (pad->ctl_fd >= 0)
		keep[n++] = pad->ctl_fd;
	n = pad->impl->child_fds(pad, keep, n);
	for (size_t i = 0; i < pad->n_keep; i++)
		keep[n++] = pad->keep_fds[i];
	close_all_but(keep, n);

	int rc = pad->child_fn(pad, pad->child_arg);
	_exit(rc & 0xff);
}

static void *watcher_main(void *arg)
{
	struct pad *pad = arg;

	/* The fork happens with the state lock held, so the child's copy of the
	 * client list is consistent, and the acceptor starts passing new
	 * clients to the child from the moment it exists: not before, or a
	 * game accepted in between would be both in the copy and passed, and
	 * get every frame twice. */
	int ctl_owner = pad->owner_ctl;
	pad->owner_ctl = -1;
	pad_lock(pad);
	pad->ctl_fd = ctl_owner;
	pid_t pid = fork();
	if (pid == 0)
		child_main(pad); /* does not return */
	if (pid < 0) {
		int err = errno;
		pad->ctl_fd = -1;
		pad_unlock(pad);
		if (ctl_owner >= 0)
			close(ctl_owner);
		pthread_mutex_lock(&pad->spawn_lock);
		close(pad->child_ctl);
		pad->child_ctl = -1;
		pad->spawn_error = -err;
		pad->spawn_reported = true;
		pad->child_running = false;
		pthread_cond_broadcast(&pad->spawn_cond);
		pthread_mutex_unlock(&pad->spawn_lock);
		return NULL;
	}
	pad_unlock(pad);

	pthread_mutex_lock(&pad->spawn_lock);
	if (pad->child_ctl >= 0)
		close(pad->child_ctl);
	pad->child_ctl = -1;
	pad->child_pid = pid;
	pad->spawn_error = 0;
	pad->spawn_reported = true;
	pthread_cond_broadcast(&pad->spawn_cond);
	pthread_mutex_unlock(&pad->spawn_lock);

	int status = 0;
	int r;
	while ((r = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	if (r < 0) {
		/* someone else reaped it (SIGCHLD ignored since, or a waitpid(-1)
		 * elsewhere): wait until it is gone, its end unknown */
		while (kill(pid, 0) == 0 || errno == EPERM)
			usleep(10000);
		status = W_EXITCODE(255, 0);
	}

	pad_lock(pad);
	if (pad->ctl_fd >= 0) {
		close(pad->ctl_fd);
		pad->ctl_fd = -1;
	}
	pad_unlock(pad);
	pad_neutral(pad);
	if (pad->on_exit)
		pad->on_exit(pad->exit_ctx, status);

	pthread_mutex_lock(&pad->spawn_lock);
	pad->child_running = false;
	pthread_cond_broadcast(&pad->spawn_cond);
	pthread_mutex_unlock(&pad->spawn_lock);
	return NULL;
}

int pad_spawn(struct pad *pad, int (*fn)(struct pad *pad, void *arg), void *arg,
              const int *keep_fds, size_t n_keep,
              void (*on_exit)(void *ctx, int wstatus), void *ctx, pid_t *pid)
{
	if (!pad || !fn || !pid || pad->in_child || n_keep > 16)
		return -EINVAL;
	/* with SIGCHLD ignored the child would be reaped by the kernel, and
	 * the pad could not tell how it ended */
	struct sigaction chld;
	if (sigaction(SIGCHLD, NULL, &chld) == 0 && chld.sa_handler == SIG_IGN)
		return -EINVAL;
	pthread_mutex_lock(&pad->spawn_lock);
	if (pad->child_running) {
		pthread_mutex_unlock(&pad->spawn_lock);
		return -EBUSY;
	}
	pthread_mutex_unlock(&pad->spawn_lock);
	if (pad->watcher_started) {
		pthread_join(pad->watcher, NULL);
		pad->watcher_started = false;
	}

	int pair[2] = { -1, -1 };
	if (pad->impl->passes_clients &&
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0)
		return -errno;

	pthread_mutex_lock(&pad->spawn_lock);
	pad->child_fn = fn;
	pad->child_arg = arg;
	if (n_keep > 0) /* keep_fds may be NULL when there is none */
		memcpy(pad->keep_fds, keep_fds, n_keep * sizeof *keep_fds);
	pad->n_keep = n_keep;
	pad->on_exit = on_exit;
	pad->exit_ctx = ctx;
	pad->child_ctl = pair[1];
	pad->owner_ctl = pair[0];
	pad->child_running = true;
	pad->spawn_reported = false;
	pthread_mutex_unlock(&pad->spawn_lock);

	/* The watcher (and so the child) starts with every signal blocked:
	 * the owner's handlers run on its own threads. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int r = pthread_create(&pad->watcher, NULL, watcher_main, pad);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r != 0) {
		pad->owner_ctl = -1;
		if (pair[0] >= 0)
			close(pair[0]);
		pthread_mutex_lock(&pad->spawn_lock);
		if (pad->child_ctl >= 0)
			close(pad->child_ctl);
		pad->child_ctl = -1;
		pad->child_running = false;
		pthread_mutex_unlock(&pad->spawn_lock);
		return -r;
	}
	pad->watcher_started = true;

	pthread_mutex_lock(&pad->spawn_lock);
	while (!pad->spawn_reported)
		pthread_cond_wait(&pad->spawn_cond, &pad->spawn_lock);
	r = pad->spawn_error;
	pid_t child = pad->child_pid;
	pthread_mutex_unlock(&pad->spawn_lock);
	if (r < 0)
		return r;
	*pid = child;
	return 0;
}

int pad_wait_child(struct pad *pad, int timeout_ms)
{
	struct timespec until;
	clock_gettime(CLOCK_MONOTONIC, &until);
	if (timeout_ms > 0) {
		until.tv_sec += timeout_ms / 1000;
		until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
	}
	int r = 0;
	pthread_mutex_lock(&pad->spawn_lock);
	while (pad->child_running) {
		if (timeout_ms < 0) {
			pthread_cond_wait(&pad->spawn_cond, &pad->spawn_lock);
		} else if (pthread_cond_timedwait(&pad->spawn_cond, &pad->spawn_lock, &until) ==
		           ETIMEDOUT) {
			r = pad->child_running ? -ETIMEDOUT : 0;
			break;
		}
	}
	pthread_mutex_unlock(&pad->spawn_lock);
	return r;
}
