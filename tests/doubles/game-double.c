/* game-double: a stand-in game for the run supervisor's tests.  It speaks
 * the renderer's side of the harness's contract without a GPU: a frame log
 * (RX_FRAME_LOG) with one row per frame, renderer-style log lines in RX_LOG
 * with "[seconds.micros] " prefixes, shots asked for through the RX_CONTROL
 * FIFO (a log line, and a PNG with --png), and an exit status of 0 on
 * SIGTERM.  Options make it misbehave on purpose:
 *
 *   --fps N            frames a second (default 60)
 *   --hang-after S     stop making frames after S seconds and sleep
 *   --crash-after S    abort() after S seconds
 *   --crash-slowly D   with --crash-after: take D seconds to die, as a
 *                      crash whose core is being dumped does: the main
 *                      thread exits (the leader a zombie, no more frames)
 *                      and a second thread abort()s D seconds later
 *   --crash-pending D  with --crash-after: SIGSEGV raised while blocked,
 *                      left pending D seconds (no frames), then unblocked:
 *                      a crash signal sent but not yet taken
 *   --crash-after-shot S  abort() S seconds after the first shot asked for
 *                      (a crash at a point of the route: after its last
 *                      event, when the route asks for a shot last)
 *   --exit-after S     exit(--exit-code) after S seconds
 *   --exit-code N      (default 0)
 *   --ignore-term      ignore SIGTERM (the harness must SIGKILL it)
 *   --grandchild       leave a sleeping child process in the group
 *   --no-frames        never write a frame row (only the header)
 *   --fill-disk-after S  after S seconds, fill the file system of the
 *                      working folder (a file "filler" written until a
 *                      write fails), then go on as a game whose writes fail
 *   --png              also write shots as PNG files
 *   --shot-delay S     take each shot S seconds after it was asked for (a
 *                      game too busy to take it at once)
 *   --pad X            accepted and ignored, as the demo game takes it
 *   --mangohud V       play MangoHud V (0.6 or 0.7) in the game, as
 *                      MANGOHUD_CONFIG asks (output_folder, control): its
 *                      control socket, greeting at the first frame, a log
 *                      started and stopped by ":logging=1;"/":logging=0;",
 *                      written whole at the stop (0.6) or a row at a time
 *                      (0.7), then ":LoggingFinished"; no other frame log.
 *                      Frames are a schedule, kept however late the double
 *                      runs (a busy machine): a stop read while it catches
 *                      up a stall ends the log after the frames due by then
 *   --mangohud-no-csv  with --mangohud: never write the CSV
 *
 * DOUBLE_FPS sets the frames a second as --fps does (a plan's arm sets it
 * through env); a list "60,40" with DOUBLE_FPS_COUNTER naming a file takes
 * the entry the number in that file points at (0 when there is none) and
 * writes the next number, so starts one after another cycle through it;
 * it says "game-double: counter N: F fps" on stderr, so a test can check
 * which entry each start took.
 *
 * Frames come from a frame clock of its own, not from when the process
 * happened to get the CPU: frame k is presented at the start plus the sum
 * of the first k frame times, each the period times 1 +- 2 % (a generator
 * seeded by the process id).  Every frame whose present time has come is
 * written, so a game starved by a busy machine catches up at its next
 * wake-up, and at SIGTERM it writes the frames up to that moment before it
 * exits: its log covers the route however loaded the machine is, as the
 * demo game's log does when its frames are merely late.
 *
 * The readback wait it reports per frame is 4 ms, 1 ms with
 * RX_VK_READBACK_EARLY=1, 0 with RX_VK_READBACK_LATE=newest; the luma of its
 * shots is DOUBLE_LUMA (default 100). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <png.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static FILE *rxlog;

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void logf_(const char *fmt, ...)
{
	if (!rxlog)
		return;
	int64_t t = now_ns();
	fprintf(rxlog, "[%" PRId64 ".%06" PRId64 "] ", t / 1000000000, t / 1000 % 1000000);
	va_list ap;
	va_start(ap, fmt);
	vfprintf(rxlog, fmt, ap);
	va_end(ap);
	fputc('\n', rxlog);
	fflush(rxlog);
}

static void write_png(const char *dir, const char *name, int luma)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s.png", dir, name);
	png_image img;
	memset(&img, 0, sizeof img);
	img.version = PNG_IMAGE_VERSION;
	img.width = 8;
	img.height = 8;
	img.format = PNG_FORMAT_RGBA;
	uint8_t px[8 * 8 * 4];
	for (int i = 0; i < 64; i++) {
		px[i * 4] = px[i * 4 + 1] = px[i * 4 + 2] = (uint8_t)luma;
		px[i * 4 + 3] = 255;
	}
	png_image_write_to_file(&img, path, 0, px, 0, NULL);
}

/* Another writer fills the disk: "filler" in the working folder until a
 * write fails, as the demo game's stdio reports its own failures. */
static void fill_disk(void)
{
	int fd = open("filler", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	static char block[65536];
	while (write(fd, block, sizeof block) > 0)
		;
	while (write(fd, block, 512) > 0)
		;
	close(fd);
	fprintf(stderr, "game-double: Write Error\n");
}

/* ---- MangoHud, as the game would carry it (0.6.8 and 0.7.x logging.cpp) ---- */

struct mango {
	int version;          /* 6 or 7: 0.6.x or 0.7.x */
	bool no_csv;
	char folder[2048];
	int listen_fd, client_fd;
	bool logging;
	bool stop_asked;      /* ":logging=0;" read: the log stops after the frames due */
	int64_t log_start_ns;
	char *rows;           /* 0.6: the rows kept until the stop */
	size_t rows_len;
	FILE *csv;            /* 0.7: the file, a row at a time */
	char csv_path[4096];
};

static void mango_config(struct mango *m)
{
	const char *cfg = getenv("MANGOHUD_CONFIG");
	char name[256] = "";
	for (const char *k = cfg; k && *k;) {
		size_t n = strcspn(k, ",");
		if (strncmp(k, "output_folder=", 14) == 0)
			snprintf(m->folder, sizeof m->folder, "%.*s", (int)(n - 14), k + 14);
		else if (strncmp(k, "control=", 8) == 0)
			snprintf(name, sizeof name, "%.*s", (int)(n - 8), k + 8);
		k += n + (k[n] == ',');
	}
	m->listen_fd = m->client_fd = -1;
	if (!name[0])
		return;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t n = strlen(name);
	memcpy(sa.sun_path + 1, name, n);
	m->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (bind(m->listen_fd, (struct sockaddr *)&sa,
	         (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)) < 0 ||
	    listen(m->listen_fd, 1) < 0)
		fprintf(stderr, "game-double: MangoHud cannot listen on '%s'\n", name);
}

static void mango_send(struct mango *m, const char *text)
{
	if (m->client_fd >= 0 && send(m->client_fd, text, strlen(text), MSG_NOSIGNAL) < 0) {
		/* the harness went */
	}
}

static void mango_start(struct mango *m)
{
	if (m->logging)
		return;
	m->logging = true;
	m->log_start_ns = now_ns();
	snprintf(m->csv_path, sizeof m->csv_path, "%s/game-double_%" PRId64 ".csv", m->folder,
	         m->log_start_ns);
}

static const char mango_header[] = "os,cpu,gpu,ram,kernel,driver,cpuscheduler\n"
                                   "Debian,cpu,double,8GB,6.1,double,\n"
                                   "fps,frametime,cpu_load,gpu_load,elapsed\n";

static void mango_stop(struct mango *m)
{
	if (!m->logging)
		return;
	m->logging = false;
	if (m->version == 6 && !m->no_csv) {
		FILE *f = fopen(m->csv_path, "w");
		if (f) {
			fputs(mango_header, f);
			if (m->rows_len)
				fwrite(m->rows, 1, m->rows_len, f);
			fclose(f);
		}
	}
	if (m->csv)
		fclose(m->csv);
	m->csv = NULL;
	free(m->rows);
	m->rows = NULL;
	m->rows_len = 0;
	mango_send(m, ":LoggingFinished"); /* 0.6.8 sends it without a ';' */
}

/* At each frame: a client accepted and greeted, its commands, a row. */
static void mango_frame(struct mango *m, int64_t t, double frame_ms)
{
	if (m->listen_fd < 0)
		return;
	if (m->client_fd < 0) {
		m->client_fd = accept4(m->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (m->client_fd >= 0)
			mango_send(m, m->version == 6 ? ":MangoHudControlVersion=1;:DeviceName:MangoHudVersion=MangoHud v0.6.8-double;"
			                              : ":MangoHudControlVersion=1;:DeviceName:MangoHudVersion=MangoHud v0.7.2-double;");
	}
	char buf[256];
	ssize_t n = m->client_fd >= 0 ? recv(m->client_fd, buf, sizeof buf - 1, 0) : -1;
	if (n > 0) {
		buf[n] = 0;
		if (strstr(buf, ":logging=1;"))
			mango_start(m);
		if (strstr(buf, ":logging=0;"))
			m->stop_asked = true;
	} else if (n == 0) {
		close(m->client_fd);
		m->client_fd = -1;
	}
	if (!m->logging)
		return;
	char row[128];
	int len = snprintf(row, sizeof row, "%.1f,%.0f,10,20,%" PRId64 "\n", 1000.0 / frame_ms,
	                   frame_ms * (m->version == 6 ? 1000.0 : 1.0), t - m->log_start_ns);
	if (m->version == 6) {
		char *r = realloc(m->rows, m->rows_len + (size_t)len);
		if (r) {
			memcpy(r + m->rows_len, row, (size_t)len);
			m->rows = r;
			m->rows_len += (size_t)len;
		}
	} else if (!m->no_csv) {
		if (!m->csv && (m->csv = fopen(m->csv_path, "w")))
			fputs(mango_header, m->csv);
		if (m->csv) {
			fputs(row, m->csv);
			fflush(m->csv);
		}
	}
}

/* DOUBLE_FPS (and DOUBLE_FPS_COUNTER), as the header says; else fps. */
static double fps_from_env(double fps)
{
	const char *list = getenv("DOUBLE_FPS");
	if (!list || !*list)
		return fps;
	const char *counter = getenv("DOUBLE_FPS_COUNTER");
	long at = 0;
	if (counter) {
		FILE *f = fopen(counter, "r");
		if (f) {
			if (fscanf(f, "%ld", &at) != 1)
				at = 0;
			fclose(f);
		}
		f = fopen(counter, "w");
		if (f) {
			fprintf(f, "%ld\n", at + 1);
			fclose(f);
		}
	}
	size_t n = 1;
	for (const char *c = list; *c; c++)
		n += *c == ',';
	const char *entry = list;
	for (long i = at % (long)n; i > 0; i--)
		entry = strchr(entry, ',') + 1;
	double v = atof(entry);
	if (counter)
		fprintf(stderr, "game-double: counter %ld: %g fps\n", at, v > 0 ? v : fps);
	return v > 0 ? v : fps;
}

/* The game's own frame clock: the next frame's present time, its frame
 * time (the period +- 2 %, from a generator seeded by the process id) and
 * the frames made so far. */
struct frame_clock {
	int64_t next_ns;
	double period_ms, next_ms;
	uint64_t frame;
	uint32_t seed;
};

static double frame_clock_ms(struct frame_clock *fc)
{
	fc->seed = fc->seed * 1664525u + 1013904223u;
	double u = (double)(fc->seed >> 8) / (double)(1u << 24); /* [0, 1) */
	return fc->period_ms * (1.0 + 0.04 * (u - 0.5));
}

static void frame_clock_init(struct frame_clock *fc, double fps)
{
	*fc = (struct frame_clock){ .period_ms = 1000.0 / fps, .seed = (uint32_t)getpid() };
	fc->next_ms = frame_clock_ms(fc);
	fc->next_ns = now_ns();
}

/* Writes every frame whose present time is at or before t: a row in the
 * frame log (when there is one), a row for MangoHud (when it plays it),
 * and every 60th frame the renderer's readback line. */
static void frames_until(struct frame_clock *fc, int64_t t, FILE *frames, struct mango *mango,
                         double rb)
{
	while (fc->next_ns <= t) {
		double ms = fc->next_ms;
		if (mango)
			mango_frame(mango, fc->next_ns, ms);
		if (frames)
			fprintf(frames, "%" PRIu64 ",%" PRId64 ",real,%.3f,1000,%.3f,0.250\n", fc->frame,
			        fc->next_ns, ms, rb);
		if (++fc->frame % 60 == 0)
			logf_("vk: readbacks: 3000 reads, %d waited %.1f ms each", rb > 0 ? 300 : 0, rb);
		fc->next_ms = frame_clock_ms(fc);
		fc->next_ns += (int64_t)(fc->next_ms * 1e6);
	}
	/* the double's frames are a schedule: a stop read while catching up
	 * frames that came due during a stall takes effect after them, as the
	 * frame log keeps them */
	if (mango && mango->stop_asked) {
		mango->stop_asked = false;
		mango_stop(mango);
	}
	if (frames)
		fflush(frames);
}

/* Sleeps s seconds, whatever signals come meanwhile. */
static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void *abort_later(void *arg)
{
	sleep_s(*(const double *)arg);
	abort();
}

/* --crash-slowly: the main thread leaves, a second thread ends the process
 * by SIGABRT after s seconds. */
static void crash_slowly_in(double s)
{
	static double arg;
	arg = s;
	pthread_t t;
	if (pthread_create(&t, NULL, abort_later, &arg) == 0)
		pthread_exit(NULL);
}

/* --crash-pending: SIGSEGV pending for s seconds, then taken. */
static void crash_pending_for(double s)
{
	sigset_t segv;
	sigemptyset(&segv);
	sigaddset(&segv, SIGSEGV);
	sigprocmask(SIG_BLOCK, &segv, NULL);
	signal(SIGSEGV, SIG_DFL);
	raise(SIGSEGV);
	sleep_s(s);
	sigprocmask(SIG_UNBLOCK, &segv, NULL);
}

/* The options, and their table: each sets one field of struct options. */
struct options {
	double fps, hang_after, crash_after, exit_after, fill_after;
	double crash_slowly, crash_pending, shot_delay, crash_after_shot;
	int exit_code;
	bool ignore_term, grandchild, no_frames, png, mango_no_csv;
	const char *mangohud;  /* "0.6" (version 6) or any other (7); NULL: none */
};

enum opt_kind { OPT_NUMBER, OPT_INT, OPT_FLAG, OPT_TEXT, OPT_IGNORED };

static const struct {
	const char *name;
	enum opt_kind kind;
	size_t off;
} option_table[] = {
	{ "--fps", OPT_NUMBER, offsetof(struct options, fps) },
	{ "--fill-disk-after", OPT_NUMBER, offsetof(struct options, fill_after) },
	{ "--hang-after", OPT_NUMBER, offsetof(struct options, hang_after) },
	{ "--crash-after", OPT_NUMBER, offsetof(struct options, crash_after) },
	{ "--crash-slowly", OPT_NUMBER, offsetof(struct options, crash_slowly) },
	{ "--crash-pending", OPT_NUMBER, offsetof(struct options, crash_pending) },
	{ "--crash-after-shot", OPT_NUMBER, offsetof(struct options, crash_after_shot) },
	{ "--shot-delay", OPT_NUMBER, offsetof(struct options, shot_delay) },
	{ "--exit-after", OPT_NUMBER, offsetof(struct options, exit_after) },
	{ "--exit-code", OPT_INT, offsetof(struct options, exit_code) },
	{ "--pad", OPT_IGNORED, 0 },
	{ "--ignore-term", OPT_FLAG, offsetof(struct options, ignore_term) },
	{ "--grandchild", OPT_FLAG, offsetof(struct options, grandchild) },
	{ "--no-frames", OPT_FLAG, offsetof(struct options, no_frames) },
	{ "--png", OPT_FLAG, offsetof(struct options, png) },
	{ "--mangohud", OPT_TEXT, offsetof(struct options, mangohud) },
	{ "--mangohud-no-csv", OPT_FLAG, offsetof(struct options, mango_no_csv) },
};

/* argv into *o through option_table; 0, or -1 with the message printed. */
static int parse_options(int argc, char **argv, struct options *o)
{
	for (int i = 1; i < argc; i++) {
		size_t k = 0, n = sizeof option_table / sizeof option_table[0];
		while (k < n && strcmp(argv[i], option_table[k].name) != 0)
			k++;
		if (k == n) {
			fprintf(stderr, "game-double: unknown option '%s'\n", argv[i]);
			return -1;
		}
		char *field = (char *)o + option_table[k].off;
		if (option_table[k].kind == OPT_FLAG) {
			*(bool *)field = true;
			continue;
		}
		if (i + 1 >= argc) {
			fprintf(stderr, "game-double: %s needs a value\n", argv[i]);
			return -1;
		}
		const char *v = argv[++i];
		if (option_table[k].kind == OPT_TEXT)
			*(const char **)field = v;
		else if (option_table[k].kind == OPT_INT)
			*(int *)field = atoi(v);
		else if (option_table[k].kind != OPT_IGNORED)
			*(double *)field = atof(v);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct options o = { .fps = 60, .hang_after = -1, .crash_after = -1, .exit_after = -1,
		             .fill_after = -1, .crash_slowly = -1, .crash_pending = -1,
		             .crash_after_shot = -1 };
	if (parse_options(argc, argv, &o) < 0)
		return 2;
	struct mango mango = { .no_csv = o.mango_no_csv };
	if (o.mangohud)
		mango.version = strcmp(o.mangohud, "0.6") == 0 ? 6 : 7;
	struct sigaction sa = { .sa_handler = o.ignore_term ? SIG_IGN : on_term };
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	if (o.grandchild && fork() == 0) {
		for (;;)
			pause();
	}

	o.fps = fps_from_env(o.fps);
	const char *frames_path = getenv("RX_FRAME_LOG");
	const char *log_path = getenv("RX_LOG");
	const char *control = getenv("RX_CONTROL");
	const char *shot_dir = getenv("RX_SHOT_DIR");
	const char *early = getenv("RX_VK_READBACK_EARLY");
	const char *late = getenv("RX_VK_READBACK_LATE");
	const char *luma_s = getenv("DOUBLE_LUMA");
	int luma = luma_s ? atoi(luma_s) : 100;
	double rb = late && strcmp(late, "newest") == 0 ? 0.0 : early && strcmp(early, "1") == 0 ? 1.0 : 4.0;

	if (log_path)
		rxlog = fopen(log_path, "a");
	logf_("vk: device 0: Double GPU (double 1.0), Vulkan 1.3, CPU");
	logf_("vk: switches: RX_VK_READBACK_EARLY=%s (env) RX_VK_READBACK_LATE=%s (env)",
	      early ? early : "0", late ? late : "0");
	fprintf(stderr, "game-double: started\n");
	if (mango.version) {
		mango_config(&mango);
		frames_path = NULL; /* MangoHud measures this game */
	}
	FILE *frames = frames_path ? fopen(frames_path, "w") : NULL;
	if (frames) {
		fprintf(frames, "frame,present_ns,kind,frame_ms,draws,rb_wait_ms,memsync_ms\n");
		fflush(frames);
	}
	int ctl = control ? open(control, O_RDONLY | O_NONBLOCK | O_CLOEXEC) : -1;
	char ctl_buf[512];
	struct {
		char name[128];
		int64_t due_ns;
	} pending[16]; /* shots asked for, taken when due (--shot-delay) */
	size_t n_pending = 0;
	size_t ctl_len = 0;
	int64_t crash_at_ns = 0; /* --crash-after-shot: when */

	struct frame_clock fc;
	frame_clock_init(&fc, o.fps);
	int64_t start = fc.next_ns;
	while (!stop) {
		int64_t t = now_ns();
		double up_s = (double)(t - start) / 1e9;
		if ((o.crash_after >= 0 && up_s >= o.crash_after) || (crash_at_ns && t >= crash_at_ns)) {
			fprintf(stderr, "game-double: crashing on purpose\n");
			if (o.crash_slowly > 0)
				crash_slowly_in(o.crash_slowly);
			if (o.crash_pending > 0)
				crash_pending_for(o.crash_pending);
			abort();
		}
		if (o.exit_after >= 0 && up_s >= o.exit_after) {
			fprintf(stderr, "game-double: exiting with %d\n", o.exit_code);
			if (frames)
				fclose(frames);
			return o.exit_code;
		}
		if (o.fill_after >= 0 && up_s >= o.fill_after) {
			o.fill_after = -1;
			fill_disk();
		}
		if (o.hang_after >= 0 && up_s >= o.hang_after) {
			fprintf(stderr, "game-double: hanging on purpose\n");
			for (;;)
				pause();
		}
		if (ctl >= 0) {
			ssize_t n = read(ctl, ctl_buf + ctl_len, sizeof ctl_buf - 1 - ctl_len);
			if (n > 0)
				ctl_len += (size_t)n;
			char *nl;
			while ((nl = memchr(ctl_buf, '\n', ctl_len))) {
				*nl = 0;
				if (strncmp(ctl_buf, "shot ", 5) == 0 && n_pending < 16) {
					snprintf(pending[n_pending].name, sizeof pending[n_pending].name, "%.127s", ctl_buf + 5);
					pending[n_pending++].due_ns = t + (int64_t)(o.shot_delay * 1e9);
					if (o.crash_after_shot >= 0 && !crash_at_ns)
						crash_at_ns = t + (int64_t)(o.crash_after_shot * 1e9);
				}
				size_t used = (size_t)(nl - ctl_buf) + 1;
				memmove(ctl_buf, nl + 1, ctl_len - used);
				ctl_len -= used;
			}
		}
		while (n_pending && pending[0].due_ns <= t) {
			const char *name = pending[0].name;
			if (o.png && shot_dir)
				write_png(shot_dir, name, luma);
			else
				logf_("forest: shot %s frame %" PRIu64 " luma %d.00 checksum %016x", name, fc.frame,
				      luma, (unsigned)luma * 2654435761u);
			memmove(pending, pending + 1, --n_pending * sizeof *pending);
		}
		frames_until(&fc, t, o.no_frames ? NULL : frames, mango.version && !o.no_frames ? &mango : NULL,
		             rb);
		struct timespec ts = { (time_t)(fc.next_ns / 1000000000), (long)(fc.next_ns % 1000000000) };
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
	/* the frames whose time came before the stop, however late it is */
	frames_until(&fc, now_ns(), o.no_frames ? NULL : frames, mango.version && !o.no_frames ? &mango : NULL,
	             rb);
	fprintf(stderr, "game-double: stopped by SIGTERM after %" PRIu64 " frames\n", fc.frame);
	if (frames)
		fclose(frames);
	return 0;
}
