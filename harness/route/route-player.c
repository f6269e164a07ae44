/* route-player: plays a parsed route into a pad (see route.h).
 *
 * It owns the schedule (the route's events grouped into instants, each a
 * ready pad frame), the playing child process and its timing loop, the
 * notice pipe through which shots and marks reach the owner as they
 * happen, and the lateness figures.  Creating the device, supervising the
 * child and writing the neutral frame when it dies are the pad's
 * (pad_spawn()).
 *
 * Timing: every instant is slept for with clock_nanosleep(TIMER_ABSTIME) on
 * CLOCK_MONOTONIC at t0 + t_ms, computed from t0 each time, so errors never
 * add up however long the route; the child's timer slack is 1 ns.
 */
#include "route.h"
#include "pad/pad.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The child's exit code when a signal stopped it (and it wrote the neutral
 * frame itself). */
#define EXIT_STOPPED 4

struct instant {
	int64_t t_ms;
	uint32_t first_ev, n_ev;   /* into player->evs */
	uint32_t first_pt, n_pt;   /* into player->points */
	int32_t pad_index;         /* its place among instants with pad events, or -1 */
};

/* What the child writes and the owner reads back (MAP_SHARED). */
struct play_shared {
	_Atomic int64_t played;    /* instants with pad events written */
	_Atomic int realtime;      /* the child runs SCHED_FIFO */
	int64_t late_ns[];         /* per such instant, by pad_index */
};

/* One notice through the pipe; written whole (< PIPE_BUF). */
struct notice_rec {
	int32_t type;
	int32_t wstatus;
	uint32_t point;            /* SHOT/MARK: index into player->points */
	int32_t pad;
	int64_t at_ns;
};

struct route_player {
	const struct route *route;
	struct pad *pad;
	struct instant *instants;
	size_t n_instants;
	size_t n_pad_instants;
	struct input_event *evs;
	const struct route_event **points;
	int64_t t0_ns;
	int pipe_rd, pipe_wr;
	int start_rd, start_wr;    /* armed: t0 goes to the waiting child through it */
	struct play_shared *shared;
	size_t shared_B;
	pid_t pid;
	bool started;              /* the child exists (armed or playing) */
	bool t0_sent;
	bool finished;             /* the last notice was taken */
	atomic_bool exited;        /* the child has ended and the neutral frame is written */
	atomic_bool exit_done;     /* on_child_exit() has returned */
	struct notice_rec final;   /* END, STOPPED or DIED, once exited */
};

int route_player_create(const struct route *route, struct pad *pad, struct route_player **out)
{
	if (!route || !pad || !out)
		return -EINVAL;
	struct route_player *p = calloc(1, sizeof *p);
	if (!p)
		return -ENOMEM;
	p->route = route;
	p->pad = pad;
	p->pipe_rd = p->pipe_wr = -1;
	p->start_rd = p->start_wr = -1;
	p->pid = -1;
	atomic_init(&p->exited, false);
	atomic_init(&p->exit_done, false);

	size_t n;
	const struct route_event *ev = route_events(route, &n);
	p->instants = calloc(n + 1, sizeof *p->instants);
	p->evs = calloc(n + 1, sizeof *p->evs);
	p->points = calloc(n + 1, sizeof *p->points);
	int r = -ENOMEM;
	if (!p->instants || !p->evs || !p->points)
		goto fail;
	size_t n_evs = 0, n_pts = 0;
	for (size_t i = 0; i < n;) {
		struct instant *in = &p->instants[p->n_instants++];
		in->t_ms = ev[i].t_ms;
		in->first_ev = (uint32_t)n_evs;
		in->first_pt = (uint32_t)n_pts;
		for (; i < n && ev[i].t_ms == in->t_ms; i++) {
			if (ev[i].type == ROUTE_EVENT_KEY || ev[i].type == ROUTE_EVENT_ABS)
				p->evs[n_evs++] = (struct input_event){
					.type = ev[i].type == ROUTE_EVENT_KEY ? EV_KEY : EV_ABS,
					.code = ev[i].code,
					.value = ev[i].value,
				};
			else
				p->points[n_pts++] = &ev[i];
		}
		in->n_ev = (uint32_t)n_evs - in->first_ev;
		in->n_pt = (uint32_t)n_pts - in->first_pt;
		/* the parser gives each code at most one change per instant */
		if (in->n_ev > PAD_BUTTON_COUNT + PAD_AXIS_COUNT) {
			r = -E2BIG;
			goto fail;
		}
		in->pad_index = in->n_ev ? (int32_t)p->n_pad_instants++ : -1;
	}

	p->shared_B = sizeof *p->shared + (p->n_pad_instants + 1) * sizeof(int64_t);
	void *m = mmap(NULL, p->shared_B, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		r = -errno;
		p->shared = NULL;
		goto fail;
	}
	p->shared = m;
	atomic_init(&p->shared->played, 0);

	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0) {
		r = -errno;
		goto fail;
	}
	p->pipe_rd = fds[0];
	p->pipe_wr = fds[1];
	fcntl(p->pipe_rd, F_SETFL, O_NONBLOCK);
	*out = p;
	return 0;
fail:
	route_player_destroy(p);
	return r;
}

/* ---- the playing child ----
 *
 * The signal handler's state: a stop request, and whether the loop is
 * asleep (then the handler jumps out of the sleep, which holds no lock). */
static volatile sig_atomic_t stop_requested;
static volatile sig_atomic_t asleep;
static sigjmp_buf wake_jmp;

static void on_stop_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
	if (asleep) {
		asleep = 0;
		siglongjmp(wake_jmp, 1);
	}
}

static void send_notice(int fd, const struct notice_rec *n)
{
	/* a full pipe (an owner not reading) loses the notice, never blocks */
	while (write(fd, n, sizeof *n) < 0 && errno == EINTR)
		;
}

static int play_main(struct pad *pad, void *arg)
{
	struct route_player *p = arg;
	prctl(PR_SET_TIMERSLACK, 1UL);
	/* real-time priority where the user may have it (root, CAP_SYS_NICE,
	 * RLIMIT_RTPRIO): the process sleeps nearly always, and wakes on time
	 * even when the game keeps every core busy */
	struct sched_param sp = { .sched_priority = ROUTE_PLAYER_RT_PRIORITY };
	atomic_store(&p->shared->realtime, sched_setscheduler(0, SCHED_FIFO, &sp) == 0);
	fcntl(p->pipe_wr, F_SETFL, O_NONBLOCK);
	util_stop_signals(on_stop_signal, 0);

	volatile size_t i = 0;
	if (sigsetjmp(wake_jmp, 1) == 0) {
		if (p->start_rd >= 0) {
			/* armed ahead of t0: wait for it; end of file means never */
			int64_t t0 = 0;
			ssize_t r;
			asleep = 1;
			if (stop_requested)
				r = 0;
			else
				while ((r = read(p->start_rd, &t0, sizeof t0)) < 0 && errno == EINTR)
					;
			asleep = 0;
			if (r != (ssize_t)sizeof t0)
				i = p->n_instants;
			p->t0_ns = t0;
		}
		for (; i < p->n_instants && !stop_requested; i++) {
			const struct instant *in = &p->instants[i];
			int64_t target_ns = p->t0_ns + in->t_ms * 1000000LL;
			struct timespec ts = { .tv_sec = target_ns / 1000000000LL,
			                       .tv_nsec = target_ns % 1000000000LL };
			asleep = 1;
			if (stop_requested) {
				asleep = 0;
				break;
			}
			while (target_ns > 0 &&
			       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
				;
			asleep = 0;
			int64_t at_ns;
			if (in->n_ev) {
				pad_frame(pad, &p->evs[in->first_ev], in->n_ev);
				at_ns = util_now_ns();
				p->shared->late_ns[in->pad_index] = at_ns - target_ns;
				atomic_store(&p->shared->played, (int64_t)in->pad_index + 1);
			} else {
				at_ns = util_now_ns();
			}
			for (uint32_t k = 0; k < in->n_pt; k++) {
				const struct route_event *e = p->points[in->first_pt + k];
				struct notice_rec n = {
					.type = e->type == ROUTE_EVENT_SHOT ? ROUTE_NOTICE_SHOT : ROUTE_NOTICE_MARK,
					.point = in->first_pt + k,
					.at_ns = at_ns,
				};
				send_notice(p->pipe_wr, &n);
			}
		}
	}
	sigset_t stop;
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGHUP);
	sigprocmask(SIG_BLOCK, &stop, NULL);
	pad_neutral(pad);
	return stop_requested ? EXIT_STOPPED : 0;
}

/* On the pad's thread, after the owner's neutral frame.  The last notice
 * is kept here rather than queued, so a pipe the owner has let fill up
 * cannot lose it; a record of type 0 only wakes a reader. */
static void on_child_exit(void *ctx, int wstatus)
{
	struct route_player *p = ctx;
	struct notice_rec n = { .wstatus = wstatus, .at_ns = util_now_ns() };
	if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0)
		n.type = ROUTE_NOTICE_END;
	else if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == EXIT_STOPPED)
		n.type = ROUTE_NOTICE_STOPPED;
	else
		n.type = ROUTE_NOTICE_DIED;
	p->final = n;
	atomic_store(&p->exited, true);
	int fl = fcntl(p->pipe_wr, F_GETFL);
	if (fl >= 0 && !(fl & O_NONBLOCK))
		fcntl(p->pipe_wr, F_SETFL, fl | O_NONBLOCK);
	struct notice_rec wake = { .type = 0 };
	send_notice(p->pipe_wr, &wake);
	atomic_store(&p->exit_done, true);
}

static int spawn(struct route_player *p)
{
	int keep[2] = { p->pipe_wr, p->start_rd };
	pid_t pid;
	int r = pad_spawn(p->pad, play_main, p, keep, p->start_rd >= 0 ? 2 : 1, on_child_exit, p,
	                  &pid);
	if (r < 0)
		return r;
	p->pid = pid;
	p->started = true;
	return 0;
}

int route_player_arm(struct route_player *p)
{
	if (!p)
		return -EINVAL;
	if (p->started)
		return -EBUSY;
	/* a socket rather than a pipe: writing to a dead child is EPIPE, not
	 * a SIGPIPE to the owner */
	int fds[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
		return -errno;
	p->start_rd = fds[0];
	p->start_wr = fds[1];
	int r = spawn(p);
	if (r < 0) {
		close(p->start_rd);
		close(p->start_wr);
		p->start_rd = p->start_wr = -1;
	}
	return r;
}

int route_player_start(struct route_player *p, int64_t t0_ns)
{
	if (!p)
		return -EINVAL;
	if (p->t0_sent || (p->started && p->start_wr < 0))
		return -EBUSY;
	int64_t t0 = t0_ns ? t0_ns : util_now_ns();
	if (!p->started) {
		p->t0_ns = t0;
		int r = spawn(p);
		if (r < 0)
			return r;
		p->t0_sent = true;
		return 0;
	}
	ssize_t w;
	while ((w = send(p->start_wr, &t0, sizeof t0, MSG_NOSIGNAL)) < 0 && errno == EINTR)
		;
	if (w != (ssize_t)sizeof t0)
		return w < 0 ? -errno : -EIO;
	p->t0_sent = true;
	return 0;
}

int route_player_fd(const struct route_player *p)
{
	return p->pipe_rd;
}

int route_player_next(struct route_player *p, struct route_notice *out)
{
	if (!p->started || p->finished)
		return -ENODATA;
	for (;;) {
		/* read before looking at exited: every notice the child wrote is
		 * in the pipe by the time exited is set */
		bool exited = atomic_load(&p->exited);
		struct notice_rec n;
		ssize_t r;
		do
			r = read(p->pipe_rd, &n, sizeof n);
		while (r < 0 && errno == EINTR);
		if (r < 0 && errno != EWOULDBLOCK)
			return -errno;
		if (r < 0) {
			if (!exited)
				return -EAGAIN;
			p->finished = true;
			*out = (struct route_notice){ .type = (enum route_notice_type)p->final.type,
			                              .at_ns = p->final.at_ns,
			                              .wstatus = p->final.wstatus };
			return 0;
		}
		if (r != (ssize_t)sizeof n)
			return -EIO;
		if (n.type != ROUTE_NOTICE_SHOT && n.type != ROUTE_NOTICE_MARK)
			continue; /* a wake-up */
		size_t np;
		route_events(p->route, &np);
		if (n.point >= np)
			return -EIO;
		*out = (struct route_notice){
			.type = (enum route_notice_type)n.type,
			.name = p->points[n.point]->name,
			.t_ms = p->points[n.point]->t_ms,
			.at_ns = n.at_ns,
		};
		return 0;
	}
}

int route_player_wait(struct route_player *p, int timeout_ms, struct route_notice *out)
{
	int64_t until = timeout_ms >= 0 ? util_now_ns() + (int64_t)timeout_ms * 1000000LL : 0;
	for (;;) {
		int r = route_player_next(p, out);
		if (r != -EAGAIN)
			return r;
		int left = -1;
		if (timeout_ms >= 0) {
			int64_t rest = until - util_now_ns();
			if (rest <= 0)
				return -ETIMEDOUT;
			left = (int)((rest + 999999) / 1000000);
		}
		struct pollfd pf = { .fd = p->pipe_rd, .events = POLLIN };
		if (poll(&pf, 1, left) < 0 && errno != EINTR)
			return -errno;
	}
}

int route_player_stop(struct route_player *p)
{
	if (!p || !p->started || atomic_load(&p->exited))
		return 0;
	kill(p->pid, SIGTERM);
	for (int i = 0; i < 100 && !atomic_load(&p->exit_done); i++)
		pad_wait_child(p->pad, 10);
	if (!atomic_load(&p->exited)) {
		kill(p->pid, SIGKILL);
		while (!atomic_load(&p->exit_done))
			pad_wait_child(p->pad, 100);
	}
	return 0;
}

pid_t route_player_pid(const struct route_player *p)
{
	if (!p->started || atomic_load(&p->exited))
		return -1;
	return p->pid;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static int64_t nearest_rank(const int64_t *sorted, size_t n, int pct)
{
	size_t rank = (size_t)(((uint64_t)n * (uint64_t)pct + 99) / 100);
	if (rank < 1)
		rank = 1;
	return sorted[rank - 1];
}

int route_player_stats(const struct route_player *p, struct route_player_stats *out)
{
	if (!p || !out)
		return -EINVAL;
	struct route_player_stats s = { .instants = p->n_pad_instants,
	                                .realtime = atomic_load(&p->shared->realtime) != 0 };
	size_t n = (size_t)atomic_load(&p->shared->played);
	if (n > p->n_pad_instants)
		n = p->n_pad_instants;
	s.played = n;
	if (n > 0) {
		int64_t *v = malloc(n * sizeof *v);
		if (!v)
			return -ENOMEM;
		memcpy(v, p->shared->late_ns, n * sizeof *v);
		qsort(v, n, sizeof *v, cmp_i64);
		s.late_p50_ns = nearest_rank(v, n, 50);
		s.late_p99_ns = nearest_rank(v, n, 99);
		s.late_max_ns = v[n - 1];
		free(v);
	}
	*out = s;
	return 0;
}

void route_player_destroy(struct route_player *p)
{
	if (!p)
		return;
	if (p->started && !p->t0_sent && p->start_wr >= 0) {
		/* armed, never started: end of file tells the child to end */
		close(p->start_wr);
		p->start_wr = -1;
		for (int i = 0; i < 100 && !atomic_load(&p->exit_done); i++)
			pad_wait_child(p->pad, 10);
	}
	route_player_stop(p);
	/* on_child_exit() uses p until it returns */
	while (p->started && !atomic_load(&p->exit_done))
		pad_wait_child(p->pad, 10);
	if (p->pipe_rd >= 0)
		close(p->pipe_rd);
	if (p->pipe_wr >= 0)
		close(p->pipe_wr);
	if (p->start_rd >= 0)
		close(p->start_rd);
	if (p->start_wr >= 0)
		close(p->start_wr);
	if (p->shared)
		munmap(p->shared, p->shared_B);
	free(p->instants);
	free(p->evs);
	free(p->points);
	free(p);
}
