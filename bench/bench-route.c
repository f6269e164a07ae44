/* bench-route: what playing a route costs and how close to schedule its
 * events land, for the targets of DESIGN.md 9 (the harness under 0.5% of
 * one core while a route plays; events within 1 ms of schedule at p99).
 *
 *   bench-route [ROUTE] [--busy] [--check]   (default routes/smoke.route)
 *
 * The route is played through the socket pad into a receiver thread that
 * stands in for the game.  Reported: the player's lateness against schedule
 * (p50/p99/max, as the player measures its writes), the delivery delay to
 * the receiver (arrival minus the frame's send stamp), and the CPU time of
 * the playing process plus the thread that owns the pad and takes the
 * route's notices, as a share of one core over the route's duration.
 * --busy keeps the other core spinning, as a game would.  --check exits 1
 * when the player's p99 lateness is 1 ms or more (the target; the test
 * route-player checks order and never-early only, as lateness measures the
 * machine more than the player). */
#include "pad/pad.h"
#include "route/route.h"
#include "util/util.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double cpu_s(int who)
{
	struct rusage ru;
	getrusage(who, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       (double)ru.ru_stime.tv_usec / 1e6;
}

struct receiver {
	const char *path;
	atomic_int stop;
	int64_t *delay_ns;
	size_t n, cap;
	size_t frames;
};

static void *receive(void *arg)
{
	struct receiver *r = arg;
	int fd = -1;
	while (!atomic_load(&r->stop) && pad_socket_connect(r->path, &fd) != 0)
		usleep(1000);
	while (!atomic_load(&r->stop) && fd >= 0) {
		struct input_event ev[PAD_FRAME_MAX];
		size_t n;
		int rc = pad_socket_read(fd, ev, PAD_FRAME_MAX, &n);
		if (rc == -EAGAIN) {
			usleep(200);
			continue;
		}
		if (rc < 0)
			break;
		int64_t at = util_now_ns();
		int64_t sent = (int64_t)ev[n - 1].input_event_sec * 1000000000 +
		               (int64_t)ev[n - 1].input_event_usec * 1000;
		if (r->n == r->cap) {
			r->cap = r->cap ? r->cap * 2 : 1024;
			r->delay_ns = realloc(r->delay_ns, r->cap * sizeof *r->delay_ns);
		}
		r->delay_ns[r->n++] = at - sent;
		r->frames++;
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

static atomic_int spin_stop;
static void *spin(void *arg)
{
	volatile unsigned long x = 0;
	while (!atomic_load(&spin_stop))
		x++;
	(void)arg;
	return NULL;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	const char *path = "routes/smoke.route";
	bool busy = false, check = false;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--busy") == 0)
			busy = true;
		else if (strcmp(argv[i], "--check") == 0)
			check = true;
		else
			path = argv[i];
	}
	struct route *route;
	struct util_diag err;
	if (route_load(path, &route, &err) < 0) {
		util_diag_print(&err, stderr);
		return 1;
	}
	char sock[64];
	snprintf(sock, sizeof sock, "/tmp/bench-route-%d.sock", (int)getpid());
	char spec[80];
	snprintf(spec, sizeof spec, "socket:%s", sock);
	struct pad *pad;
	if (pad_create(spec, &pad) < 0) {
		fprintf(stderr, "bench-route: cannot create the pad at '%s'\n", sock);
		return 1;
	}
	struct receiver r = { .path = sock };
	pthread_t rt, st;
	pthread_create(&rt, NULL, receive, &r);
	if (busy)
		pthread_create(&st, NULL, spin, NULL);
	while (pad_socket_client_count(pad) == 0)
		usleep(1000);

	struct route_player *pl;
	if (route_player_create(route, pad, &pl) < 0 || route_player_arm(pl) < 0) {
		fprintf(stderr, "bench-route: cannot start the player\n");
		return 1;
	}
	double self0 = cpu_s(RUSAGE_THREAD), child0 = cpu_s(RUSAGE_CHILDREN);
	int64_t t0 = util_now_ns() + 20000000;
	route_player_start(pl, t0);
	struct route_notice n;
	size_t shots = 0;
	for (;;) {
		int rc = route_player_wait(pl, 1000, &n);
		if (rc == -ETIMEDOUT)
			continue;
		if (rc < 0)
			break;
		if (n.type == ROUTE_NOTICE_SHOT)
			shots++;
		if (n.type != ROUTE_NOTICE_SHOT && n.type != ROUTE_NOTICE_MARK)
			break;
	}
	struct route_player_stats stats;
	route_player_stats(pl, &stats);
	route_player_destroy(pl);
	double played_s = (double)(util_now_ns() - t0) / 1e9;
	double self1 = cpu_s(RUSAGE_THREAD), child1 = cpu_s(RUSAGE_CHILDREN);
	atomic_store(&r.stop, 1);
	atomic_store(&spin_stop, 1);
	pthread_join(rt, NULL);
	if (busy)
		pthread_join(st, NULL);
	pad_destroy(pad);

	qsort(r.delay_ns, r.n, sizeof *r.delay_ns, cmp_i64);
	int64_t d50 = r.n ? r.delay_ns[(r.n - 1) / 2] : 0;
	int64_t d99 = r.n ? r.delay_ns[(size_t)((double)(r.n - 1) * 0.99)] : 0;
	double cpu = (self1 - self0) + (child1 - child0);
	printf("route: %s, %zu instants played of %zu, %zu shots, %.2f s%s%s\n", route_name(route),
	       stats.played, stats.instants, shots, played_s, busy ? ", other core busy" : "",
	       stats.realtime ? ", player SCHED_FIFO" : ", player at normal priority");
	printf("| measure | value |\n|---|---|\n");
	printf("| player lateness against schedule p50 / p99 / max | %.3f / %.3f / %.3f ms |\n",
	       stats.late_p50_ns / 1e6, stats.late_p99_ns / 1e6, stats.late_max_ns / 1e6);
	printf("| delivery to the game, p50 / p99 (%zu frames) | %.3f / %.3f ms |\n", r.frames, d50 / 1e6,
	       d99 / 1e6);
	printf("| CPU of the player and the pad's owner | %.3f s over %.2f s: %.3f%% of one core |\n", cpu,
	       played_s, cpu / played_s * 100);
	free(r.delay_ns);
	route_free(route);
	if (check && stats.late_p99_ns >= 1000000) {
		fprintf(stderr, "bench-route: p99 lateness %.3f ms, not under the 1 ms target\n",
		        stats.late_p99_ns / 1e6);
		return 1;
	}
	return 0;
}
