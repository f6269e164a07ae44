/* run-game: one run of a game, supervised (see run.h, "one run").
 *
 * It owns the run's processes and their order: the control FIFO and the
 * pad before the game, the game (fork + execve into its own process group,
 * never a shell), the route player started at the game's first frame, the
 * shot requests, the samplers, the watchdog and the hard limit, and the
 * teardown: the game's process group gone (SIGTERM, then SIGKILL), then
 * the route player, then the pad.  It decides how the run ended (ok,
 * crashed, hung, interrupted) and with which reason; reading the frame log
 * for metrics, the log and the shots is run-collect.c's business.
 *
 * The loop wakes at most every 100 ms (and at once for a route notice), so
 * the harness costs a few system calls a tick while a route plays.  The
 * game's frame log is only stat()ed for progress; it is read only until
 * its first row is found.
 *
 * A silent game that is on its way out (game_ending(): a crash being
 * dumped, its threads exiting) is not called hung at once: it is waited
 * for, so that a crash is reported as the crash it is.
 */
#include "run.h"
#include "run-private.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collect/collect.h"
#include "deck/deck.h"
#include "pad/pad.h"
#include "route/route.h"
#include "util/util.h"

#define TICK_MS 100
#define FIRST_ROW_READ_B (256 * 1024)

void run_game_result_finish(struct run_game_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->shots_asked; i++)
		free(r->shot_names[i]);
	free(r->shot_names);
	free(r->samples);
	r->shot_names = NULL;
	r->samples = NULL;
	r->shots_asked = r->n_samples = 0;
}

/* ---- the game process ------------------------------------------------------ */

static void close_from(int lowfd)
{
#ifdef SYS_close_range
	if (syscall(SYS_close_range, (unsigned)lowfd, ~0U, 0) == 0)
		return;
#endif
	long max = sysconf(_SC_OPEN_MAX);
	if (max < 0 || max > 65536)
		max = 65536;
	for (int fd = lowfd; fd < max; fd++)
		close(fd);
}

/* In the child, between fork and exec: only async-signal-safe calls. */
static void child_exec(const char *const *argv, const char *const *envp, const char *workdir,
                       int null_fd, int out_fd, int err_fd, int report_fd, pid_t parent)
{
	int e;
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127); /* the harness died before the line above */
	sigset_t all;
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	for (int s = 1; s < NSIG; s++)
		signal(s, SIG_DFL); /* SIG_IGN would survive exec */
	/* report_fd may sit on 0..2: move it out of the way first */
	int rfd = fcntl(report_fd, F_DUPFD_CLOEXEC, 3);
	if (rfd < 0 || dup2(null_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0)
		goto fail;
	if (rfd != 3) {
		if (dup3(rfd, 3, O_CLOEXEC) < 0)
			goto fail;
		rfd = 3;
	}
	close_from(4);
	if (workdir && chdir(workdir) < 0)
		goto fail;
	execve(argv[0], (char *const *)argv, (char *const *)envp);
fail:
	e = errno;
	if (write(rfd >= 0 ? rfd : report_fd, &e, sizeof e) < 0) {
		/* nothing left to tell */
	}
	_exit(127);
}

static int exit_status_of(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return -1;
}

/* Up to size - 1 bytes of a small file (a /proc entry), NUL-terminated:
 * the count, or -1. */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n;
	while ((n = read(fd, buf, size - 1)) < 0 && errno == EINTR)
		;
	close(fd);
	if (n >= 0)
		buf[n] = 0;
	return n;
}

/* From a /proc/PID/stat (or .../task/TID/stat) file: the state, the
 * process group and the flags.  False when it cannot be read. */
static bool stat_fields(const char *path, char *state, int *pgrp, unsigned *flags)
{
	char buf[4096];
	ssize_t n = read_small(path, buf, sizeof buf);
	if (n <= 0)
		return false;
	/* "pid (comm) state ppid pgrp session tty_nr tpgid flags ...": comm
	 * may hold anything, so fields count from its last ')' */
	const char *p = memrchr(buf, ')', (size_t)n);
	return p && sscanf(p + 1, " %c %*d %d %*d %*d %*d %u", state, pgrp, flags) == 3;
}

/* Whether a process of group pgid is still there, not a zombie (one left
 * for its new parent to reap has ended). */
static bool group_running(pid_t pgid)
{
	if (kill(-pgid, 0) < 0 && errno == ESRCH)
		return false;
	DIR *d = opendir("/proc");
	if (!d)
		return false;
	bool running = false;
	struct dirent *de;
	while (!running && (de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		char path[sizeof de->d_name + 16], state = 0;
		int pgrp = 0;
		unsigned flags = 0;
		snprintf(path, sizeof path, "/proc/%s/stat", de->d_name);
		if (stat_fields(path, &state, &pgrp, &flags) && pgrp == pgid && state != 'Z' && state != 'X')
			running = true;
	}
	closedir(d);
	return running;
}

/* Ends the game's process group: SIGTERM, up to grace_s for the leader,
 * then SIGKILL for the whole group, and waits until no process of it runs:
 * the leader reaped is not the group gone (a child it left, a sanitizer's
 * tracer task, each killed but still on its way out), and the run promises
 * that nothing of it outlives it.  The wait is bounded (10 s) for a process
 * stuck in the kernel.  Returns the leader's wait status. */
static int end_group(pid_t pid, double grace_s, bool *reaped, int *wstatus)
{
	if (!*reaped) {
		kill(-pid, SIGTERM);
		int64_t deadline = util_now_ns() + (int64_t)(grace_s * 1e9);
		while (util_now_ns() < deadline) {
			pid_t w = waitpid(pid, wstatus, WNOHANG);
			if (w == pid || (w < 0 && errno == ECHILD)) {
				*reaped = true;
				break;
			}
			struct timespec ts = { 0, 20 * 1000000 };
			nanosleep(&ts, NULL);
		}
	}
	/* the leader is gone or ignored SIGTERM: nothing of the group stays */
	kill(-pid, SIGKILL);
	if (!*reaped) {
		while (waitpid(pid, wstatus, 0) < 0 && errno == EINTR)
			;
		*reaped = true;
	}
	int64_t gone_by = util_now_ns() + 10 * (int64_t)1000000000;
	while (group_running(pid) && util_now_ns() < gone_by) {
		struct timespec ts = { 0, 10 * 1000000 };
		nanosleep(&ts, NULL);
		kill(-pid, SIGKILL);
	}
	return *wstatus;
}

/* ---- what the game leaves ----------------------------------------------------- */

/* The last 8 lines of a file (at most size - 1 bytes), for a crash report. */
static void file_tail(const char *path, char *buf, size_t size)
{
	buf[0] = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	off_t end = lseek(fd, 0, SEEK_END);
	off_t from = end > (off_t)size - 1 ? end - (off_t)size + 1 : 0;
	ssize_t n = end > 0 ? pread(fd, buf, size - 1, from) : 0;
	close(fd);
	if (n <= 0)
		return;
	buf[n] = 0;
	size_t len = (size_t)n, start = 0;
	if (from > 0) {
		char *nl = memchr(buf, '\n', len);
		start = nl ? (size_t)(nl - buf) + 1 : len;
	}
	size_t stop = len;
	while (stop > start && buf[stop - 1] == '\n')
		stop--;
	int lines = 0;
	for (size_t i = stop; i > start; i--) {
		if (buf[i - 1] == '\n' && ++lines == 8) {
			start = i;
			break;
		}
	}
	memmove(buf, buf + start, stop - start);
	buf[stop - start] = 0;
}

/* The first row of a renderer frame log, if it has one yet. */
static bool first_row(const char *path, int64_t *present_ns)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	char *buf = malloc(FIRST_ROW_READ_B);
	if (!buf) {
		close(fd);
		return false;
	}
	ssize_t n = pread(fd, buf, FIRST_ROW_READ_B, 0);
	close(fd);
	bool found = false;
	if (n > 0) {
		/* only whole lines: the writer may be mid-row */
		ssize_t end = n;
		while (end > 0 && buf[end - 1] != '\n')
			end--;
		struct collect_frames *f = NULL;
		if (end > 0 && collect_frames_parse(path, buf, (size_t)end, COLLECT_SOURCE_RXVK, &f, NULL) == 0) {
			if (f->n > 0) {
				*present_ns = f->frames[0].present_ns;
				found = true;
			}
			collect_frames_destroy(f);
		}
	}
	free(buf);
	return found;
}

/* ---- the run ---------------------------------------------------------------- */

struct game {
	const struct run_game_spec *spec;
	struct run_game_result *r;
	char *frames_path, *log_path, *shots_dir, *control_path, *out_path, *err_path, *mh_dir;
	int control_fd;
	struct pad *pad;
	struct route_player *player;
	pid_t pid;
	bool reaped;
	int wstatus;
	bool player_over;
	size_t samples_cap;
	/* the loop's state (the steps below) */
	bool route_over;           /* the route player is done, for any reason */
	int64_t route_end_ns;      /* when the route's end came; 0: not yet */
	int64_t stop_sent_ns;      /* SIGTERM (or SIGKILL) sent at the route's end */
	int64_t last_progress_ns;  /* when the frame log last grew */
	off_t last_size;           /* the frame log's size then */
	off_t log_size;            /* its size this tick (-1: none yet) */
	bool log_grew;             /* it grew this tick */
	bool mh_seen;              /* a MangoHud log exists */
	struct run_mangohud mh;    /* MangoHud's control socket in the game */
	int64_t mh_stop_sent_ns;   /* ":logging=0;" sent at the route's end */
	int64_t next_sample_ns, next_tick_ns, limit_ns;
	int64_t ending_since_ns;   /* when the watchdog first found the game ending; 0: never */
	bool shots_all_answered;   /* at the route's end: no shot asked for is still to come */
	int64_t first_shot_ns;     /* when the first shot was asked for; 0: none yet */
	bool *shot_seen;           /* at the route's end: shot_names[i] answered (shots_asked of them) */
	off_t shot_scan_B[2];      /* renderer.log and stderr.log read up to here for shot lines */
};

static void add_sample(struct game *g)
{
	if (!g->spec->deck)
		return;
	struct run_game_result *r = g->r;
	if (r->n_samples == g->samples_cap) {
		size_t cap = g->samples_cap ? g->samples_cap * 2 : 256;
		struct deck_sample *s = realloc(r->samples, cap * sizeof *s);
		if (!s)
			return; /* a sample less; the run goes on */
		r->samples = s;
		g->samples_cap = cap;
	}
	if (deck_sample(g->spec->deck, &r->samples[r->n_samples]) == 0)
		r->n_samples++;
}

/* The DISPLAY the game was given, else the harness's. */
static const char *game_display(const struct run_game_spec *s)
{
	for (const char *const *e = s->envp; e && *e; e++)
		if (strncmp(*e, "DISPLAY=", 8) == 0)
			return *e + 8;
	return getenv("DISPLAY");
}

/* The game's window read into shots/NAME.png; why not, into shot_notes. */
static void window_shot(struct game *g, const char *name)
{
	struct run_game_result *r = g->r;
	char png[4096], why[300];
	if (snprintf(png, sizeof png, "%s/%s.png", g->shots_dir, name) >= (int)sizeof png)
		return;
	if (run_window_shot(game_display(g->spec), g->pid, png, why, sizeof why) == 0)
		return;
	size_t used = strlen(r->shot_notes);
	snprintf(r->shot_notes + used, sizeof r->shot_notes - used, "shot '%s': %s\n", name, why);
}

/* Asks the game for a shot.  Route files name every shot once (repeats
 * number theirs), so the name is the shot's name in the run. */
static void ask_shot(struct game *g, const char *name)
{
	struct run_game_result *r = g->r;
	char **names = realloc(r->shot_names, (r->shots_asked + 1) * sizeof *names);
	if (!names)
		return;
	r->shot_names = names;
	if (!(names[r->shots_asked] = strdup(name)))
		return;
	r->shots_asked++;
	if (!g->first_shot_ns)
		g->first_shot_ns = util_now_ns();
	char line[ROUTE_MAX_NAME + 24];
	int n = snprintf(line, sizeof line, "shot %s\n", name);
	if (n > 0 && (size_t)n < sizeof line && write(g->control_fd, line, (size_t)n) != n) {
		/* the game does not read its control channel: the collector
		 * reports the shot as missing */
	}
	if (g->spec->window_shots)
		window_shot(g, name);
}

static void set_reason(struct run_game_result *r, enum run_end end, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_reason(struct run_game_result *r, enum run_end end, const char *fmt, ...)
{
	r->end = end;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->reason, sizeof r->reason, fmt, ap);
	va_end(ap);
}

static void describe_exit(char *buf, size_t size, int wstatus)
{
	if (WIFSIGNALED(wstatus)) {
		int sig = WTERMSIG(wstatus);
		snprintf(buf, size, "killed by signal %d (%s)", sig, strsignal(sig));
	} else if (WIFEXITED(wstatus)) {
		snprintf(buf, size, "exited with status %d", WEXITSTATUS(wstatus));
	} else {
		snprintf(buf, size, "ended");
	}
}

static int setup_paths(struct game *g)
{
	const char *d = g->spec->run_dir;
	if (!(g->frames_path = util_path_join(d, "frames.csv")) ||
	    !(g->log_path = util_path_join(d, "renderer.log")) ||
	    !(g->shots_dir = util_path_join(d, "shots")) ||
	    !(g->control_path = util_path_join(d, "control")) ||
	    !(g->out_path = util_path_join(d, "stdout.log")) ||
	    !(g->err_path = util_path_join(d, "stderr.log")) ||
	    !(g->mh_dir = util_path_join(d, "mangohud")))
		return -ENOMEM;
	return 0;
}

/* What a run's game owns on the heap: its paths, the shots' flags. */
static void free_owned(struct game *g)
{
	free(g->shot_seen);
	free(g->frames_path);
	free(g->log_path);
	free(g->shots_dir);
	free(g->control_path);
	free(g->out_path);
	free(g->err_path);
	free(g->mh_dir);
}

/* The env: the spec's, then the run's own paths (which always win). */
static int game_env(struct game *g, const char *pad_place, struct plan_strv *env)
{
	char buf[8192];
	int rc = 0;
	for (const char *const *e = g->spec->envp; e && *e && rc == 0; e++)
		rc = plan_strv_setenv(env, *e);
	struct { const char *k, *v; } own[] = {
		{ "RX_FRAME_LOG", g->frames_path }, { "RX_SHOT_DIR", g->shots_dir },
		{ "RX_LOG", g->log_path }, { "RX_CONTROL", g->control_path },
		{ "RXDECK_PAD", pad_place },
	};
	for (size_t i = 0; i < sizeof own / sizeof own[0] && rc == 0; i++) {
		if (!own[i].v)
			continue;
		if (snprintf(buf, sizeof buf, "%s=%s", own[i].k, own[i].v) >= (int)sizeof buf)
			return -ENAMETOOLONG;
		rc = plan_strv_setenv(env, buf);
	}
	if (rc == 0 && g->spec->mangohud) {
		/* a log row per frame into the run's folder, and the control
		 * socket: the harness starts and stops the log itself (no
		 * autostart_log, no log_duration; run-mangohud.c) */
		rc = plan_strv_setenv(env, "MANGOHUD=1");
		if (rc == 0 && snprintf(buf, sizeof buf,
		                        "MANGOHUD_CONFIG=output_folder=%s,log_interval=0,control=%s",
		                        g->mh_dir, g->mh.name) >= (int)sizeof buf)
			return -ENAMETOOLONG;
		if (rc == 0)
			rc = plan_strv_setenv(env, buf);
	}
	return rc;
}

static int start_game(struct game *g, const char *pad_place, char *errmsg, size_t size)
{
	const struct run_game_spec *s = g->spec;
	struct plan_strv env = { 0 }, argv = { 0 };
	int rc = game_env(g, pad_place, &env);
	for (const char *const *a = s->argv; rc == 0 && *a; a++)
		rc = plan_strv_push(&argv, *a);
	if (rc == 0 && s->pad_option && pad_place) {
		rc = plan_strv_push(&argv, s->pad_option);
		if (rc == 0)
			rc = plan_strv_push(&argv, pad_place);
	}
	int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	int out_fd = open(g->out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int err_fd = open(g->err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int pipefd[2] = { -1, -1 };
	if (rc == 0 && (null_fd < 0 || out_fd < 0 || err_fd < 0))
		rc = run_errf(errmsg, size, -errno, "cannot create the run's output files in '%s': %s",
		              s->run_dir, strerror(errno));
	if (rc == 0 && pipe2(pipefd, O_CLOEXEC) < 0)
		rc = run_errf(errmsg, size, -errno, "cannot make a pipe: %s", strerror(errno));
	if (rc == 0) {
		const char *workdir = s->workdir ? s->workdir : s->run_dir;
		pid_t parent = getpid();
		g->r->start_unix_ms = util_unix_ms();
		g->r->spawn_ns = util_now_ns();
		pid_t pid = fork();
		if (pid < 0) {
			rc = run_errf(errmsg, size, -errno, "cannot start the game: %s", strerror(errno));
		} else if (pid == 0) {
			close(pipefd[0]);
			child_exec((const char *const *)argv.v, (const char *const *)env.v, workdir, null_fd,
			           out_fd, err_fd, pipefd[1], parent);
		} else {
			setpgid(pid, pid); /* also here: no window where the group does not exist */
			g->pid = pid;
			close(pipefd[1]);
			pipefd[1] = -1;
			int e = 0;
			ssize_t n;
			while ((n = read(pipefd[0], &e, sizeof e)) < 0 && errno == EINTR)
				;
			if (n == (ssize_t)sizeof e) {
				int ws = 0;
				while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
					;
				g->reaped = true;
				g->wstatus = ws;
				g->r->exit_status = exit_status_of(ws);
				set_reason(g->r, RUN_END_CRASHED, "crashed: cannot start '%s': %s", argv.v[0],
				           strerror(e));
			}
		}
	}
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	if (null_fd >= 0)
		close(null_fd);
	if (out_fd >= 0)
		close(out_fd);
	if (err_fd >= 0)
		close(err_fd);
	plan_strv_finish(&env);
	plan_strv_finish(&argv);
	return rc;
}

/* Takes every waiting route notice. */
static void take_notices(struct game *g)
{
	struct route_notice n;
	int rc;
	while ((rc = route_player_next(g->player, &n)) == 0) {
		switch (n.type) {
		case ROUTE_NOTICE_SHOT:
			ask_shot(g, n.name);
			break;
		case ROUTE_NOTICE_END:
			g->r->route_done = true;
			g->route_over = true;
			g->player_over = true;
			break;
		case ROUTE_NOTICE_STOPPED:
		case ROUTE_NOTICE_DIED:
			g->route_over = true;
			g->player_over = true;
			if (g->r->end == RUN_END_OK && !g->r->reason[0]) {
				char how[96];
				describe_exit(how, sizeof how, n.wstatus);
				set_reason(g->r, RUN_END_FAILED, "failed: the route player %s before the route's end",
				           how);
			}
			break;
		default:
			break;
		}
	}
	if (rc == -ENODATA && g->r->t0_ns)
		g->player_over = true;
}

/* ---- the loop's steps ----------------------------------------------------------
 *
 * One tick of the supervision loop is the list of steps in run_game(), in
 * that order; a step that returns STEP_END ends the loop, with the run's end
 * and reason already set where one applies. */

enum step { STEP_NEXT, STEP_END };

/* The game: reaped when it has exited, and why that ends the run. */
static enum step step_reap(struct game *g, int64_t now)
{
	const struct run_game_spec *s = g->spec;
	struct run_game_result *r = g->r;
	pid_t w = waitpid(g->pid, &g->wstatus, WNOHANG);
	if (w != g->pid)
		return STEP_NEXT;
	g->reaped = true;
	r->exit_status = exit_status_of(g->wstatus);
	if (g->stop_sent_ns && r->end == RUN_END_OK && g->ending_since_ns && WIFSIGNALED(g->wstatus) &&
	    WTERMSIG(g->wstatus) != SIGTERM && WTERMSIG(g->wstatus) != SIGKILL) {
		/* it was on its way out before the route's end stopped it (the
		 * watchdog's wait), and died of its own signal: a crash */
		char how[96];
		describe_exit(how, sizeof how, g->wstatus);
		set_reason(r, RUN_END_CRASHED,
		           "crashed: %s (its last frame at %.1f s into the route; it took %.1f s to end), "
		           "before the route's end (%.0f s)",
		           how, (double)(g->last_progress_ns - r->t0_ns) / 1e9,
		           (double)(now - g->last_progress_ns) / 1e9, (double)route_duration_ms(s->route) / 1e3);
		return STEP_END;
	}
	if (g->stop_sent_ns || r->end != RUN_END_OK)
		return STEP_END; /* we stopped it */
	if (r->t0_ns)
		take_notices(g);
	/* the route's end is its duration, not its last event: a game gone
	 * between the two has not played it to its end; and a game killed by
	 * a signal nobody here sent has crashed, whenever that was */
	int64_t end_ns = r->t0_ns + route_duration_ms(s->route) * 1000000;
	bool after_end = r->route_done && now >= end_ns;
	if (after_end && !WIFSIGNALED(g->wstatus))
		return STEP_END; /* it ended on its own after the route: a normal end */
	char how[96];
	describe_exit(how, sizeof how, g->wstatus);
	if (!r->first_frame_ns && !r->t0_ns)
		set_reason(r, RUN_END_CRASHED, "crashed: %s before its first frame", how);
	else if (!r->t0_ns)
		set_reason(r, RUN_END_CRASHED, "crashed: %s before the route started", how);
	else
		set_reason(r, RUN_END_CRASHED, "crashed: %s at %.1f s into the route, %s its end (%.0f s)",
		           how, (double)(now - r->t0_ns) / 1e9, after_end ? "after" : "before",
		           (double)route_duration_ms(s->route) / 1e3);
	return STEP_END;
}

/* The harness is asked to stop. */
static enum step step_stop_asked(struct game *g)
{
	if (!g->spec->stop || !*g->spec->stop)
		return STEP_NEXT;
	set_reason(g->r, RUN_END_INTERRUPTED, "interrupted: the harness was stopped");
	return STEP_END;
}

/* Progress of the frame log: its size, and when it last grew. */
static void step_progress(struct game *g, int64_t now)
{
	struct stat st;
	off_t size = -1;
	if (g->spec->mangohud) {
		if (run_mangohud_poll(&g->mh) < 0)
			run_mangohud_finish(&g->mh); /* tried again next tick */
		char *csv = run_newest_csv(g->mh_dir, &size);
		if (csv)
			g->mh_seen = true;
		else
			size = -1;
		free(csv);
	} else if (stat(g->frames_path, &st) == 0) {
		size = st.st_size;
	}
	g->log_size = size;
	g->log_grew = size > g->last_size;
	if (g->log_grew) {
		g->last_progress_ns = now;
		g->last_size = size;
	}
}

/* The game's first frame: the route's t0, and the route player started. */
static enum step step_first_frame(struct game *g, int64_t now)
{
	const struct run_game_spec *s = g->spec;
	struct run_game_result *r = g->r;
	if (r->first_frame_ns)
		return STEP_NEXT;
	int64_t present = 0;
	bool first = false;
	if (s->mangohud) {
		/* MangoHud greets us at the first frame it shows */
		first = g->mh.greeted;
		present = now;
	} else if (g->log_size > 0 && g->log_grew) {
		first = first_row(g->frames_path, &present);
	}
	if (!first)
		return STEP_NEXT;
	r->first_frame_ns = now;
	int64_t t0 = present + (int64_t)(s->start_delay_s * 1e9);
	if (t0 < now)
		t0 = now;
	r->t0_ns = t0;
	if (s->mangohud) {
		/* the log starts now (at the game's next frame): its clock's 0
		 * is now, within a frame */
		int rc = run_mangohud_logging(&g->mh, true);
		if (rc < 0) {
			set_reason(r, RUN_END_FAILED, "failed: cannot start MangoHud's log: %s",
			           strerror(-rc));
			return STEP_END;
		}
		r->t0_log_ns = t0 - util_now_ns();
	}
	g->last_progress_ns = now;
	int rc = route_player_start(g->player, t0);
	if (rc < 0) {
		set_reason(r, RUN_END_FAILED, "failed: cannot start the route player: %s", strerror(-rc));
		return STEP_END;
	}
	g->next_sample_ns = t0;
	return STEP_NEXT;
}

/* At the route's end, MangoHud's log is written (it said LoggingFinished),
 * or will not be: no MangoHud to ask, it closed the socket, or it took
 * longer than stop_timeout. */
static bool mangohud_log_done(struct game *g, int64_t now)
{
	if (!g->mh_stop_sent_ns)
		return true;
	if (g->mh.log_finished || g->mh.closed)
		return true;
	return now - g->mh_stop_sent_ns > (int64_t)(g->spec->stop_timeout_s * 1e9);
}

/* Whether the game answered the shot asked for as name: its PNG is in
 * the shots folder, or a log of the game has its "shot NAME frame" line
 * (or "shot NAME:", a shot it could not write). */
static bool shot_answered(const struct game *g, const char *name, const char *const texts[2])
{
	char path[PATH_MAX];
	struct stat st;
	if (snprintf(path, sizeof path, "%s/%s.png", g->shots_dir, name) < (int)sizeof path &&
	    stat(path, &st) == 0)
		return true;
	char frame[ROUTE_MAX_NAME + 16], failed[ROUTE_MAX_NAME + 16];
	snprintf(frame, sizeof frame, "shot %s frame ", name);
	snprintf(failed, sizeof failed, "shot %s:", name);
	for (int i = 0; i < 2; i++)
		if (texts[i] && (strstr(texts[i], frame) || strstr(texts[i], failed)))
			return true;
	return false;
}

/* The whole lines appended to path since *off_B, NUL-terminated (the caller
 * frees them), *off_B moved past them; a line still being written is left
 * for the next call.  NULL when there is nothing new (or the file cannot be
 * read).  At most 64 MiB a call, as a log read whole was before. */
static char *read_new_lines(const char *path, off_t *off_B)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	char *buf = NULL;
	if (fstat(fd, &st) < 0 || st.st_size <= *off_B)
		goto out;
	size_t want = (size_t)(st.st_size - *off_B);
	if (want > (64u << 20))
		want = 64u << 20;
	if (!(buf = malloc(want + 1)))
		goto out;
	ssize_t got = pread(fd, buf, want, *off_B);
	size_t keep = got > 0 ? (size_t)got : 0;
	while (keep > 0 && buf[keep - 1] != '\n')
		keep--;
	if (keep == 0) {
		free(buf);
		buf = NULL;
		goto out;
	}
	buf[keep] = '\0';
	*off_B += (off_t)keep;
out:
	close(fd);
	return buf;
}

/* At the route's end: are the shots asked for all answered, so that the
 * game can be stopped?  Yes when none were asked, when the harness reads
 * the window itself (window_shots: taken as asked), when the game answered
 * none of them although the first was asked for a stop timeout ago or more
 * (it does not take shots: nothing to wait for), or after the stop
 * timeout.  Else the game, busy, is still to take one (the route's last
 * shot on a loaded machine; or every one, a game so slow that its first
 * answer comes after the route's end: at 0.5 fps under ASan the smoke
 * route's first shot, asked at 3 s, was answered at 7.3 s): it keeps
 * running until it has.  Called every tick while that lasts: a shot found
 * answered stays so, and each call reads only the lines the game's logs
 * gained. */
static bool shots_answered(struct game *g, int64_t now)
{
	const struct run_game_result *r = g->r;
	if (g->shots_all_answered || !r->shots_asked || g->spec->window_shots ||
	    now - g->route_end_ns > (int64_t)(g->spec->stop_timeout_s * 1e9))
		return true;
	if (!g->shot_seen && !(g->shot_seen = calloc(r->shots_asked, sizeof *g->shot_seen)))
		return true; /* out of memory: the game is not kept waiting for it */
	char *texts[2] = { read_new_lines(g->log_path, &g->shot_scan_B[0]),
		           read_new_lines(g->err_path, &g->shot_scan_B[1]) };
	size_t answered = 0;
	for (size_t i = 0; i < r->shots_asked; i++) {
		if (!g->shot_seen[i])
			g->shot_seen[i] = shot_answered(g, r->shot_names[i], (const char *const *)texts);
		answered += g->shot_seen[i];
	}
	free(texts[0]);
	free(texts[1]);
	bool none_taken = answered == 0 &&
	                  now - g->first_shot_ns >= (int64_t)(g->spec->stop_timeout_s * 1e9);
	g->shots_all_answered = answered == r->shots_asked || none_taken;
	return g->shots_all_answered;
}

/* The route: its notices, and the game stopped at its end (MangoHud's log
 * written first, the shots asked for taken). */
static enum step step_route(struct game *g, int64_t now)
{
	const struct run_game_spec *s = g->spec;
	struct run_game_result *r = g->r;
	if (r->t0_ns)
		take_notices(g);
	if (r->end != RUN_END_OK)
		return STEP_END;
	/* the route's end is its duration, which may come after its last
	 * event: the window must be covered */
	if (g->route_over && !g->route_end_ns && r->route_done &&
	    now < r->t0_ns + route_duration_ms(s->route) * 1000000) {
		/* wait */
	} else if (g->route_over && !g->route_end_ns) {
		g->route_end_ns = now;
		add_sample(g);
		if (s->mangohud && run_mangohud_logging(&g->mh, false) == 0)
			g->mh_stop_sent_ns = now; /* the game ends once the log is written */
	}
	if (g->route_end_ns && !g->stop_sent_ns && mangohud_log_done(g, now) && shots_answered(g, now)) {
		/* the normal end: SIGTERM, the game flushes and exits */
		kill(-g->pid, SIGTERM);
		g->stop_sent_ns = now;
	}
	if (g->stop_sent_ns && now - g->stop_sent_ns > (int64_t)(s->stop_timeout_s * 1e9)) {
		kill(-g->pid, SIGKILL);
		g->stop_sent_ns = now; /* and wait for it */
	}
	return STEP_NEXT;
}

/* The samplers, every second while the route plays. */
static void step_samples(struct game *g, int64_t now)
{
	if (!g->r->t0_ns || g->route_over || now < g->next_sample_ns)
		return;
	add_sample(g);
	g->next_sample_ns += 1000000000;
	if (g->next_sample_ns < now)
		g->next_sample_ns = now + 1000000000;
}

static enum step step_hard_limit(struct game *g)
{
	set_reason(g->r, RUN_END_HUNG, "hung: still running at the hard limit of %.0f s",
	           g->spec->hard_limit_s);
	return STEP_END;
}

/*
 * Whether the game is on its way out although it has not been reaped yet: a
 * thread of it exiting (PF_EXITING, 0x00000004 in include/linux/sched.h, in
 * the flags field of /proc/PID/task/TID/stat, proc(5)), a zombie or dead
 * thread (state Z or X; a leader stays a zombie until its last thread has
 * gone), or a crash signal pending and not yet taken (SIGKILL, SIGSEGV,
 * SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP or SIGSYS in SigPnd or ShdPnd
 * of .../status, bit N-1 for signal N: sent, or raised again by a handler
 * that chains to the default, its threads not yet scheduled to act on it).
 * A crash is like that for a while: every thread must run to exit, and a
 * core dump (SteamOS pipes them to systemd-coredump) keeps the process
 * until it is written, seconds for a game's address space.  While the
 * kernel dumps (do_coredump: coredump_wait, then the dump, whatever
 * RLIMIT_CORE says) the crash signal is taken and the other threads wait
 * in coredump_task_exit before they are marked exiting: nothing above
 * shows then, but "CoreDumping:\t1" in .../status does (Linux 4.15,
 * fs/proc/array.c, task_core_dumping()), and counts too.  A signal a
 * game handles and lives through only delays the watchdog by its grace.
 * False when it cannot tell.
 */
static bool game_ending(pid_t pid)
{
	char dir[64];
	snprintf(dir, sizeof dir, "/proc/%d/task", (int)pid);
	DIR *d = opendir(dir);
	if (!d)
		return false;
	const unsigned long long crash_signals =
		1ULL << (SIGKILL - 1) | 1ULL << (SIGSEGV - 1) | 1ULL << (SIGBUS - 1) |
		1ULL << (SIGILL - 1) | 1ULL << (SIGFPE - 1) | 1ULL << (SIGABRT - 1) |
		1ULL << (SIGTRAP - 1) | 1ULL << (SIGSYS - 1);
	bool ending = false;
	struct dirent *de;
	while (!ending && (de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		char path[sizeof dir + sizeof de->d_name + 16], buf[4096];
		snprintf(path, sizeof path, "%s/%s/stat", dir, de->d_name);
		char state = 0;
		int pgrp = 0;
		unsigned flags = 0;
		if (!stat_fields(path, &state, &pgrp, &flags))
			continue;
		if (state == 'Z' || state == 'X' || (flags & 0x00000004u)) /* PF_EXITING */
			ending = true;
		snprintf(path, sizeof path, "%s/%s/status", dir, de->d_name);
		ssize_t n = ending ? 0 : read_small(path, buf, sizeof buf);
		for (int k = 0; k < 2 && n > 0 && !ending; k++) {
			const char *key = k ? "\nShdPnd:" : "\nSigPnd:";
			const char *pnd = memmem(buf, (size_t)n, key, 8);
			unsigned long long mask = 0;
			if (pnd && sscanf(pnd + 8, " %llx", &mask) == 1 && (mask & crash_signals))
				ending = true;
		}
		if (n > 0 && !ending && memmem(buf, (size_t)n, "\nCoreDumping:\t1", 15))
			ending = true;
	}
	closedir(d);
	return ending;
}

/* The watchdog and the hard limit. */
static enum step step_watchdog(struct game *g, int64_t now)
{
	const struct run_game_spec *s = g->spec;
	struct run_game_result *r = g->r;
	bool no_first = !r->first_frame_ns && now - r->spawn_ns > (int64_t)(s->start_timeout_s * 1e9);
	bool watch = s->mangohud ? g->mh_seen && !g->mh_stop_sent_ns : r->first_frame_ns != 0;
	bool no_new = watch && now - g->last_progress_ns > (int64_t)(s->watchdog_s * 1e9);
	if (!g->stop_sent_ns && (no_first || no_new) && game_ending(g->pid)) {
		/* a game on its way out (a crash being dumped) is waited for, up
		 * to the longer of the watchdog and the stop timeout, so that it
		 * ends as what it is: reaped, with its own exit status */
		double grace_s = s->watchdog_s > s->stop_timeout_s ? s->watchdog_s : s->stop_timeout_s;
		if (!g->ending_since_ns)
			g->ending_since_ns = now;
		if (now - g->ending_since_ns <= (int64_t)(grace_s * 1e9))
			return now > g->limit_ns ? step_hard_limit(g) : STEP_NEXT;
	}
	if (!g->stop_sent_ns && no_first) {
		if (s->mangohud)
			set_reason(r, RUN_END_HUNG,
			           "hung: no first frame within %.0f s of the start (MangoHud did not "
			           "answer on its control socket '%s'%s)",
			           s->start_timeout_s, g->mh.name,
			           g->mh.fd >= 0 ? "" : ": is MangoHud loaded? OpenGL programs need launcher = mangohud");
		else
			set_reason(r, RUN_END_HUNG, "hung: no first frame within %.0f s of the start",
			           s->start_timeout_s);
		return STEP_END;
	}
	if (!g->stop_sent_ns && no_new) {
		if (r->t0_ns)
			set_reason(r, RUN_END_HUNG, "hung: no new frame for %.0f s, at %.1f s into the route",
			           s->watchdog_s, (double)(now - r->t0_ns) / 1e9);
		else
			set_reason(r, RUN_END_HUNG, "hung: no new frame for %.0f s", s->watchdog_s);
		return STEP_END;
	}
	if (now > g->limit_ns)
		return step_hard_limit(g);
	return STEP_NEXT;
}

/* The caller's tick, once a second. */
static void step_tick(struct game *g, int64_t now)
{
	const struct run_game_spec *s = g->spec;
	if (!s->on_tick || now < g->next_tick_ns)
		return;
	s->on_tick(s->tick_ctx, g->r->t0_ns ? (double)(now - g->r->t0_ns) / 1e9 : -1.0);
	g->next_tick_ns += 1000000000;
}

/* Sleeps until the next tick, or a route notice. */
static enum step step_sleep(struct game *g)
{
	struct pollfd pfd[2] = {
		{ .fd = g->r->t0_ns && !g->player_over ? route_player_fd(g->player) : -1, .events = POLLIN },
		{ .fd = run_mangohud_fd(&g->mh), .events = POLLIN }, /* LoggingFinished at once */
	};
	if (poll(pfd, 2, TICK_MS) < 0 && errno != EINTR)
		return STEP_END;
	return STEP_NEXT;
}

/* ---- set-up and teardown --------------------------------------------------------- */

/* The run's folders and its control FIFO, from nothing. */
static int make_places(struct game *g, char *errmsg, size_t errmsg_size)
{
	int rc = setup_paths(g);
	if (rc < 0)
		return rc;
	if ((rc = util_mkdir_p(g->shots_dir, 0700)) < 0 ||
	    (g->spec->mangohud && (rc = util_mkdir_p(g->mh_dir, 0700)) < 0))
		return run_errf(errmsg, errmsg_size, rc, "cannot make folder '%s': %s", g->shots_dir,
		                strerror(-rc));
	unlink(g->control_path);
	unlink(g->frames_path); /* a run played again starts from nothing */
	unlink(g->log_path);
	if (mkfifo(g->control_path, 0600) < 0)
		return run_errf(errmsg, errmsg_size, -errno, "cannot make the control FIFO '%s': %s",
		                g->control_path, strerror(errno));
	/* read-write: opening never waits for the game, and a game that reads
	 * late still finds what was written */
	g->control_fd = open(g->control_path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (g->control_fd < 0)
		return run_errf(errmsg, errmsg_size, -errno, "cannot open the control FIFO '%s': %s",
		                g->control_path, strerror(errno));
	return 0;
}

/* The pad and the route player armed on it; pad_place is where the game
 * finds the pad ("" for none it needs told). */
static int make_pad(struct game *g, char *pad_place, size_t place_size, char *errmsg,
                    size_t errmsg_size)
{
	const struct run_game_spec *s = g->spec;
	int rc = pad_create(s->pad_spec, &g->pad);
	if (rc < 0)
		return run_errf(errmsg, errmsg_size, rc, "cannot create the pad '%s': %s", s->pad_spec,
		                strerror(-rc));
	if (strncmp(s->pad_spec, "socket:", 7) == 0)
		snprintf(pad_place, place_size, "%s", s->pad_spec);
	else if (pad_devnode(g->pad))
		snprintf(pad_place, place_size, "%s", pad_devnode(g->pad));
	if ((rc = route_player_create(s->route, g->pad, &g->player)) < 0 ||
	    (rc = route_player_arm(g->player)) < 0)
		return run_errf(errmsg, errmsg_size, rc, "cannot prepare the route player: %s",
		                strerror(-rc));
	return 0;
}

/* The normal teardown: the game's group goes first, then the player, then
 * the pad. */
static void teardown(struct game *g)
{
	const struct run_game_spec *s = g->spec;
	struct run_game_result *r = g->r;
	if (g->pid > 0) {
		double grace = s->stop_timeout_s > 0 ? s->stop_timeout_s : 10;
		if (r->end == RUN_END_HUNG && grace > 3)
			grace = 3; /* a hung game gets little time */
		end_group(g->pid, grace, &g->reaped, &g->wstatus);
		if (r->exit_status < 0)
			r->exit_status = exit_status_of(g->wstatus);
	}
	r->end_ns = util_now_ns();
	r->end_unix_ms = util_unix_ms();
	if (g->player) {
		route_player_stop(g->player);
		struct route_player_stats ps;
		if (route_player_stats(g->player, &ps) == 0) {
			r->late_p99_ns = ps.late_p99_ns;
			r->late_max_ns = ps.late_max_ns;
		}
		route_player_destroy(g->player);
		g->player = NULL;
	}
	pad_destroy(g->pad);
	g->pad = NULL;
	add_sample(g); /* after: the swap counters' end */
	if (r->end == RUN_END_CRASHED || r->end == RUN_END_HUNG)
		file_tail(g->err_path, r->log_tail, sizeof r->log_tail);
	if (g->control_fd >= 0)
		close(g->control_fd);
	unlink(g->control_path);
	snprintf(r->mangohud_version, sizeof r->mangohud_version, "%s", g->mh.version);
	run_mangohud_finish(&g->mh);
	free_owned(g);
}

/* The teardown when the run could not be set up. */
static void abandon(struct game *g)
{
	if (g->pid > 0)
		end_group(g->pid, 1, &g->reaped, &g->wstatus);
	route_player_destroy(g->player);
	pad_destroy(g->pad);
	if (g->control_fd >= 0)
		close(g->control_fd);
	if (g->control_path)
		unlink(g->control_path);
	run_mangohud_finish(&g->mh);
	free_owned(g);
	run_game_result_finish(g->r);
}

int run_game(const struct run_game_spec *s, struct run_game_result *out, char *errmsg,
             size_t errmsg_size)
{
	struct run_game_result r = { .exit_status = -1 };
	struct game g = { .spec = s, .r = &r, .control_fd = -1, .pid = -1 };
	char pad_place[512] = "";
	char mh_name[64];
	/* unique on the host while it runs: the harness's pid and the time */
	snprintf(mh_name, sizeof mh_name, "rxdeck-mangohud-%d-%" PRId64, (int)getpid(), util_now_ns());
	run_mangohud_init(&g.mh, mh_name);
	int rc = make_places(&g, errmsg, errmsg_size);
	if (rc < 0)
		goto fail;

	add_sample(&g); /* before: the swap counters' start */

	rc = make_pad(&g, pad_place, sizeof pad_place, errmsg, errmsg_size);
	if (rc < 0)
		goto fail;
	rc = start_game(&g, pad_place[0] ? pad_place : NULL, errmsg, errmsg_size);
	if (rc < 0)
		goto fail;

	g.last_progress_ns = r.spawn_ns;
	g.last_size = -1;
	g.next_tick_ns = r.spawn_ns + 1000000000;
	g.limit_ns = r.spawn_ns + (int64_t)(s->hard_limit_s * 1e9);
	while (!g.reaped) {
		int64_t now = util_now_ns();
		if (step_reap(&g, now) == STEP_END || step_stop_asked(&g) == STEP_END)
			break;
		step_progress(&g, now);
		if (step_first_frame(&g, now) == STEP_END || step_route(&g, now) == STEP_END)
			break;
		step_samples(&g, now);
		if (step_watchdog(&g, now) == STEP_END)
			break;
		step_tick(&g, now);
		if (step_sleep(&g) == STEP_END)
			break;
	}

	teardown(&g);
	*out = r;
	return 0;

fail:
	abandon(&g);
	if (errmsg && errmsg_size && !errmsg[0])
		run_errf(errmsg, errmsg_size, 0, "cannot set the run up: %s", strerror(-rc));
	return rc < 0 ? rc : -EIO;
}
