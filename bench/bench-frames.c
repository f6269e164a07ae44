/* bench-frames: measures the "million-frame run analysed in under 0.5 s"
 * target of DESIGN.md 9.  It writes a realistic renderer frame log of a
 * million frames (about 4.6 hours at 60 fps: jittered frame times, hitches,
 * generated frames, readback waits) and a MangoHud log of a million rows to
 * a temporary folder, then times reading + parsing (collect_frames_load)
 * and the window metrics (run_stats_log, stats_run_metrics_compute), best and median of
 * several repetitions.  Figures go to docs/performance.md with the machine,
 * commit and command.
 *
 * usage: bench-frames [FRAMES] [REPEATS]   (defaults 1000000, 7)
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "stats/stats.h"
#include "collect/collect.h"
#include "run/run.h"

#define TARGET_S 0.5

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* xorshift: the same log on every machine */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static double rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (double)(rng_state >> 11) / 9007199254740992.0;
}

static double frame_ms(void)
{
	double r = rnd();
	double ms = 16.0 + 1.4 * rnd();     /* steady, jittered */
	if (r < 0.02)
		ms += 8 + 20 * rnd();       /* a late frame */
	if (r < 0.0005)
		ms += 100 + 150 * rnd();    /* a hitch over 100 ms */
	return ms;
}

static int write_rxvk(const char *path, long n)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "frame,present_ns,kind,frame_ms,draws,rb_wait_ms,memsync_ms\n");
	int64_t t = 3600LL * 1000000000LL; /* an hour after boot */
	for (long k = 0; k < n; k++) {
		double ms = frame_ms();
		bool shown = k % 4 == 3; /* frame generation: one in four shown */
		t += (int64_t)(ms * 1e6);
		fprintf(f, "%ld,%" PRId64 ",%s,%.3f,%d,%.3f,%.3f\n", k, t, shown ? "shown" : "real", ms,
		        shown ? 0 : 1000 + (int)(500 * rnd()), shown ? 0.0 : 4 * rnd(),
		        shown ? 0.0 : 0.6 * rnd());
	}
	if (fclose(f) != 0)
		return -errno;
	return 0;
}

static int write_mangohud(const char *path, long n)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "os,cpu,gpu,ram,kernel,driver,cpuscheduler\n"
	           "SteamOS Holo,AMD Custom APU 0405,AMD Custom GPU 0405 (RADV VANGOGH),15.6 GB,6.1.52-valve16-1-neptune-61,Mesa 23.1.3,\n"
	           "fps,frametime,cpu_load,gpu_load,cpu_temp,gpu_temp,gpu_core_clock,gpu_mem_clock,gpu_vram_used,gpu_power,ram_used,swap_used,process_rss,elapsed\n");
	int64_t t = 0;
	for (long k = 0; k < n; k++) {
		double ms = frame_ms();
		t += (int64_t)(ms * 1e6);
		fprintf(f, "%.1f,%.4f,%.1f,%d,%d,%d,%d,%d,%.3f,%.1f,%.3f,%.3f,%.3f,%" PRId64 "\n",
		        1000.0 / ms, ms, 20 + 20 * rnd(), 80 + (int)(19 * rnd()), 60 + (int)(15 * rnd()),
		        55 + (int)(12 * rnd()), 1600, 800, 2.3, 9 + 6 * rnd(), 6.4, 0.0, 1.5, t);
	}
	if (fclose(f) != 0)
		return -errno;
	return 0;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int bench(const char *what, const char *path, int repeats)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return -errno;
	double *load = calloc((size_t)repeats, sizeof *load);
	double *metr = calloc((size_t)repeats, sizeof *metr);
	double *tot = calloc((size_t)repeats, sizeof *tot);
	if (!load || !metr || !tot)
		return -ENOMEM;
	size_t frames = 0;
	double p99 = 0, fps = 0;
	for (int r = 0; r < repeats; r++) {
		struct collect_frames *f = NULL;
		struct collect_error err;
		double t0 = now_s();
		int rc = collect_frames_load(path, COLLECT_SOURCE_AUTO, &f, &err);
		double t1 = now_s();
		if (rc != 0) {
			fprintf(stderr, "bench-frames: %s\n", err.msg);
			return rc;
		}
		/* the route's window: everything after the first 30 s */
		struct stats_run_metrics m;
		double last_s = (double)(f->frames[f->n - 1].present_ns - f->frames[0].present_ns) / 1e9;
		struct stats_log log;
		rc = run_stats_log(f, &log);
		if (rc == 0) {
			rc = stats_run_metrics_compute(&log, f->frames[0].present_ns,
			                               (double[]){ 30, last_s }, &m);
			run_stats_log_finish(&log);
		}
		double t2 = now_s();
		if (rc != 0) {
			fprintf(stderr, "bench-frames: cannot compute metrics: %s\n", strerror(-rc));
			return rc;
		}
		frames = f->n;
		p99 = m.p99_ms;
		fps = m.real_fps;
		load[r] = t1 - t0;
		metr[r] = t2 - t1;
		tot[r] = t2 - t0;
		stats_run_metrics_finish(&m);
		collect_frames_destroy(f);
	}
	qsort(load, (size_t)repeats, sizeof *load, cmp);
	qsort(metr, (size_t)repeats, sizeof *metr, cmp);
	qsort(tot, (size_t)repeats, sizeof *tot, cmp);
	int mid = repeats / 2;
	printf("%s: %zu frames, %.1f MB (real fps %.2f, p99 %.2f ms)\n", what, frames,
	       (double)st.st_size / 1e6, fps, p99);
	printf("  read + parse   best %.3f s  median %.3f s\n", load[0], load[mid]);
	printf("  metrics        best %.3f s  median %.3f s\n", metr[0], metr[mid]);
	printf("  total          best %.3f s  median %.3f s  (target < %.1f s: %s)\n", tot[0],
	       tot[mid], TARGET_S, tot[mid] < TARGET_S ? "met" : "NOT met");
	free(load);
	free(metr);
	free(tot);
	return 0;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000000;
	int repeats = argc > 2 ? atoi(argv[2]) : 7;
	if (n < 100 || repeats < 1) {
		fprintf(stderr, "usage: bench-frames [FRAMES >= 100] [REPEATS >= 1]\n");
		return 2;
	}
	char dir[] = "/tmp/bench-frames-XXXXXX";
	if (!mkdtemp(dir)) {
		perror("bench-frames: cannot make a temporary folder");
		return 1;
	}
	char rx[4096], mh[4096];
	snprintf(rx, sizeof rx, "%s/frames.csv", dir);
	snprintf(mh, sizeof mh, "%s/mangohud.csv", dir);
	int rc = write_rxvk(rx, n);
	if (rc == 0)
		rc = write_mangohud(mh, n);
	if (rc == 0)
		rc = bench("renderer frame log", rx, repeats);
	if (rc == 0)
		rc = bench("MangoHud log", mh, repeats);
	unlink(rx);
	unlink(mh);
	rmdir(dir);
	if (rc != 0) {
		fprintf(stderr, "bench-frames: %s\n", strerror(-rc));
		return 1;
	}
	return 0;
}
