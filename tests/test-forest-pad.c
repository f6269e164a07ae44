/* test-forest-pad: rxdeck-forest read from a pad socket, with this test as
 * the pad (a SOCK_SEQPACKET server sending struct input_event frames, as
 * the harness's pad does).  A scripted walk moves the camera exactly as the
 * route says: whole steps of FOREST_WALK_MM per frame along the view
 * direction, a pan turns that direction, A jumps, B talks, and when the pad
 * goes away the game releases everything and reconnects. */
#include "test-forest-util.h"

#include <linux/input.h>
#include <math.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "forest.h"

static int listen_at(const char *path)
{
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
	assert_int_equal(listen(fd, 4), 0);
	return fd;
}

static int accept_within(int lfd, unsigned timeout_s)
{
	struct pollfd p = { lfd, POLLIN, 0 };
	if (poll(&p, 1, (int)timeout_s * 1000) != 1)
		fail_msg("the game did not connect to the pad socket within %u s", timeout_s);
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	assert_true(fd >= 0);
	return fd;
}

/* Sends one frame: the records, then SYN_REPORT, in one message. */
static void send_frame(int fd, const struct input_event *ev, size_t n)
{
	struct input_event buf[32];
	memcpy(buf, ev, n * sizeof *ev);
	buf[n] = (struct input_event){ .type = EV_SYN, .code = SYN_REPORT };
	assert_int_equal(send(fd, buf, (n + 1) * sizeof *buf, MSG_NOSIGNAL), (ssize_t)((n + 1) * sizeof *buf));
}

static void send_full_state(int fd)
{
	static const uint16_t keys[] = { BTN_SOUTH, BTN_EAST, BTN_NORTH, BTN_WEST, BTN_TL, BTN_TR,
	                                 BTN_SELECT, BTN_START, BTN_MODE, BTN_THUMBL, BTN_THUMBR };
	static const uint16_t axes[] = { ABS_X, ABS_Y, ABS_Z, ABS_RX, ABS_RY, ABS_RZ, ABS_HAT0X, ABS_HAT0Y };
	struct input_event ev[20];
	size_t n = 0;
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		ev[n++] = (struct input_event){ .type = EV_KEY, .code = keys[i], .value = 0 };
	for (size_t i = 0; i < sizeof axes / sizeof axes[0]; i++)
		ev[n++] = (struct input_event){ .type = EV_ABS, .code = axes[i], .value = 0 };
	send_frame(fd, ev, n);
}

static void send_one(int fd, uint16_t type, uint16_t code, int32_t value)
{
	struct input_event ev = { .type = type, .code = code, .value = value };
	send_frame(fd, &ev, 1);
}

struct pos {
	uint64_t frame;
	double x, z, y, yaw, pitch;
	unsigned jumps, talks;
};

/* Every `forest: frame N position ...` line of the log, in order. */
static size_t positions(const char *log, struct pos *out, size_t max)
{
	size_t n = 0;
	for (const char *p = log; (p = strstr(p, "forest: frame ")) && n < max; p++) {
		struct pos q;
		if (sscanf(p, "forest: frame %" SCNu64 " position x %lf z %lf y %lf yaw %lf pitch %lf jumps %u talks %u",
		           &q.frame, &q.x, &q.z, &q.y, &q.yaw, &q.pitch, &q.jumps, &q.talks) == 8)
			out[n++] = q;
	}
	return n;
}

static struct pos last_position(struct ft_game *g)
{
	static struct pos v[100000];
	char *log = ft_read(g->log, NULL);
	size_t n = log ? positions(log, v, 100000) : 0;
	free(log);
	if (!n)
		return (struct pos){ 0 };
	return v[n - 1];
}

/* Waits until the game has stepped at least `frames` more frames. */
static struct pos wait_frames(struct ft_game *g, uint64_t frames)
{
	uint64_t start = last_position(g).frame;
	uint64_t t0 = ft_now_ns();
	for (;;) {
		struct pos p = last_position(g);
		if (p.frame >= start + frames)
			return p;
		if (ft_now_ns() - t0 > 60000000000ull)
			fail_msg("the game stepped no %" PRIu64 " frames in 60 s", frames);
		ft_sleep_ms(10);
	}
}

static long mm(double m)
{
	return lround(m * 1000.0);
}

static void test_pad_socket__scripted_walk_moves_camera_by_route(void **state)
{
	char sock[100], arg[120];
	ft_path(sock, sizeof sock, "pad");
	snprintf(arg, sizeof arg, "socket:%s", sock);
	int lfd = listen_at(sock);
	const char *args[] = { "--size", "128x72", "--draws", "160", "--job-ms", "0.2", "--log-every", "1",
	                       "--pad", arg, NULL };
	struct ft_game g;
	ft_start(&g, "walk", args, NULL);
	int fd = accept_within(lfd, 60);
	send_full_state(fd);
	free(ft_wait_log(&g, "pad connected: socket", 30));
	wait_frames(&g, 3);

	/* 1: walk forward (yaw 0: towards -z) */
	send_one(fd, EV_ABS, ABS_Y, -32767);
	wait_frames(&g, 8);
	send_one(fd, EV_ABS, ABS_Y, 0);
	struct pos a = wait_frames(&g, 3);
	/* 2: pan right, 3: walk forward again */
	send_one(fd, EV_ABS, ABS_RX, 32767);
	wait_frames(&g, 6);
	send_one(fd, EV_ABS, ABS_RX, 0);
	struct pos b = wait_frames(&g, 3);
	send_one(fd, EV_ABS, ABS_Y, -32767);
	wait_frames(&g, 8);
	send_one(fd, EV_ABS, ABS_Y, 0);
	/* 4: jump and talk */
	struct pos before_jump = wait_frames(&g, 1);
	send_one(fd, EV_KEY, BTN_SOUTH, 1);
	send_one(fd, EV_KEY, BTN_EAST, 1);
	wait_frames(&g, 2);
	send_one(fd, EV_KEY, BTN_SOUTH, 0);
	send_one(fd, EV_KEY, BTN_EAST, 0);
	struct pos c = wait_frames(&g, 40);

	/* 5: the pad goes away with the stick held: released, then reconnected */
	send_one(fd, EV_ABS, ABS_X, 32767);
	wait_frames(&g, 3);
	close(fd);
	free(ft_wait_log(&g, "disconnected (the pad socket was closed)", 30));
	struct pos d = wait_frames(&g, 5);
	struct pos d2 = wait_frames(&g, 5);
	fd = accept_within(lfd, 30);
	send_full_state(fd);
	send_one(fd, EV_ABS, ABS_X, 32767); /* strafe right */
	wait_frames(&g, 8);
	send_one(fd, EV_ABS, ABS_X, 0);
	struct pos e = wait_frames(&g, 3);
	kill(g.pid, SIGTERM);
	assert_int_equal(ft_wait(&g, 60), 0);
	close(fd);
	close(lfd);

	char *log = ft_read(g.log, NULL);
	static struct pos v[100000];
	size_t n = positions(log, v, 100000);
	assert_true(n > 60);
	/* every frame is logged, each step is whole */
	for (size_t i = 1; i < n; i++) {
		assert_int_equal(v[i].frame, v[i - 1].frame + 1);
		long dx = mm(v[i].x) - mm(v[i - 1].x), dz = mm(v[i].z) - mm(v[i - 1].z);
		double step = sqrt((double)(dx * dx + dz * dz));
		if (!(step == 0 || fabs(step - FOREST_WALK_MM) <= 1.5))
			fail_msg("frame %" PRIu64 ": a step of %ld, %ld mm", v[i].frame, dx, dz);
	}
	/* 1: straight ahead: x unchanged, z down by whole steps */
	assert_int_equal(mm(a.x), 0);
	assert_true(mm(a.z) < 0);
	assert_int_equal(mm(a.z) % FOREST_WALK_MM, 0);
	assert_true(-mm(a.z) >= 8 * FOREST_WALK_MM - FOREST_WALK_MM);
	/* 2: a pan does not move, turns right by whole pan steps */
	assert_int_equal(mm(b.x), mm(a.x));
	assert_int_equal(mm(b.z), mm(a.z));
	double step_deg = FOREST_PAN_UNITS * 360.0 / 65536.0;
	double turns = b.yaw / step_deg;
	assert_true(b.yaw > 5 * step_deg - 0.01);
	assert_true(fabs(turns - round(turns)) < 0.01);
	/* 3: the walk goes where the camera looks, each step rounded to mm */
	long units = lround(b.yaw * 65536.0 / 360.0);
	double rad = (double)units * 2.0 * M_PI / 65536.0;
	long fx = lround(FOREST_WALK_MM * sin(rad)), fz = lround(-FOREST_WALK_MM * cos(rad));
	long wx = mm(c.x) - mm(b.x), wz = mm(c.z) - mm(b.z);
	assert_true(fx > 0 && fz < 0);
	long k = wx / fx;
	if (wx % fx || wz != k * fz || k < 7)
		fail_msg("walked %ld, %ld mm looking at %ld units: not whole steps of %ld, %ld", wx, wz, units, fx, fz);
	/* 4: one jump, one talk; the jump went up and came back down */
	assert_int_equal(before_jump.jumps, 0);
	assert_int_equal(c.jumps, 1);
	assert_int_equal(c.talks, 1);
	double top = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i].frame > before_jump.frame && v[i].frame <= c.frame && v[i].y > top)
			top = v[i].y;
	assert_true(top > before_jump.y + 0.5);
	assert_int_equal(mm(c.y), mm(before_jump.y));
	/* 5: released while away (no drift), moving again after reconnecting */
	assert_int_equal(mm(d.x), mm(d2.x));
	assert_int_equal(mm(d.z), mm(d2.z));
	long rx = lround(FOREST_WALK_MM * cos(rad)), rz = lround(FOREST_WALK_MM * sin(rad));
	long sx = mm(e.x) - mm(d2.x), sz = mm(e.z) - mm(d2.z);
	k = sx / rx;
	if (sx % rx || sz != k * rz || k < 7)
		fail_msg("strafed %ld, %ld mm looking at %ld units: not whole steps of %ld, %ld", sx, sz, units, rx, rz);
	const char *first = strstr(log, "pad connected: socket");
	assert_non_null(first);
	assert_non_null(strstr(first + 1, "pad connected: socket"));
	free(log);
	(void)state;
}

int main(int argc, char **argv)
{
	ft_init(argc, argv, "forest-pad");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pad_socket__scripted_walk_moves_camera_by_route),
	};
	return ft_finish(cmocka_run_group_tests(tests, NULL, NULL));
}
