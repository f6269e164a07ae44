/* test-pad-socket: the socket backend and its protocol (pad.h): the state
 * on connect, frames, timestamps, drop and resync, the neutral frame on
 * destroy and on a spawned child's death, and the socket file's life. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <pthread.h>
#include <stdatomic.h>

#include "test-pad-util.h"

struct fixture {
	char spec[256], path[256];
	struct pad *pad;
	int fd;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	tu_socket_spec("pad-socket", f->spec, sizeof f->spec, f->path, sizeof f->path);
	if (pad_create(f->spec, &f->pad) != 0)
		return -1;
	f->fd = -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	pad_destroy(f->pad);
	if (f->fd >= 0)
		close(f->fd);
	unlink(f->path);
	free(f);
	return 0;
}

/* Connects and takes the first frame (the full state). */
static int connect_game(struct fixture *f, struct input_event *ev)
{
	assert_int_equal(pad_socket_connect(f->path, &f->fd), 0);
	int n = tu_read_frame(f->fd, ev, PAD_FRAME_MAX, 2000, NULL);
	assert_true(n > 0);
	return n;
}

static void test_connect__first_frame_is_the_full_state(void **state)
{
	struct fixture *f = *state;
	struct input_event ev[PAD_FRAME_MAX];
	int64_t before = tu_now_ns();
	int n = connect_game(f, ev);
	assert_int_equal(n, PAD_BUTTON_COUNT + PAD_AXIS_COUNT + 1);
	assert_true(tu_frame_is_neutral(ev, n));
	for (int i = 0; i < n; i++) {
		assert_true(ev[i].type == EV_KEY || ev[i].type == EV_ABS || i == n - 1);
		/* stamped on CLOCK_MONOTONIC when sent */
		assert_true(tu_ev_ns(&ev[i]) >= before - 1000);
		assert_true(tu_ev_ns(&ev[i]) <= tu_now_ns());
	}
	assert_int_equal(pad_socket_client_count(f->pad), 1);
	assert_string_equal(pad_backend(f->pad), "socket");
	assert_string_equal(pad_devnode(f->pad), f->path);
}

static void test_frame__changes_then_syn_report(void **state)
{
	struct fixture *f = *state;
	struct input_event ev[PAD_FRAME_MAX];
	connect_game(f, ev);
	struct input_event in[] = {
		{ .type = EV_KEY, .code = BTN_SOUTH, .value = 1 },
		{ .type = EV_ABS, .code = ABS_X, .value = -32768 },
		{ .type = EV_ABS, .code = ABS_RZ, .value = 255 },
		{ .type = EV_ABS, .code = ABS_HAT0Y, .value = -1 },
	};
	int64_t before = tu_now_ns();
	assert_int_equal(pad_frame(f->pad, in, 4), 0);
	int n = tu_read_frame(f->fd, ev, PAD_FRAME_MAX, 2000, NULL);
	assert_int_equal(n, 5);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(ev[i].type, in[i].type);
		assert_int_equal(ev[i].code, in[i].code);
		assert_int_equal(ev[i].value, in[i].value);
		assert_int_equal(tu_ev_ns(&ev[i]), tu_ev_ns(&ev[4])); /* one instant */
	}
	assert_int_equal(ev[4].type, EV_SYN);
	assert_int_equal(ev[4].code, SYN_REPORT);
	assert_true(tu_ev_ns(&ev[4]) >= before - 1000);

	int32_t v;
	assert_int_equal(pad_state(f->pad, EV_KEY, BTN_SOUTH, &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(pad_state(f->pad, EV_ABS, ABS_X, &v), 0);
	assert_int_equal(v, -32768);

	/* a second game connecting now sees the held state */
	int fd2;
	assert_int_equal(pad_socket_connect(f->path, &fd2), 0);
	n = tu_read_frame(fd2, ev, PAD_FRAME_MAX, 2000, NULL);
	assert_int_equal(tu_frame_value(ev, n, EV_KEY, BTN_SOUTH), 1);
	assert_int_equal(tu_frame_value(ev, n, EV_ABS, ABS_X), -32768);
	assert_int_equal(tu_frame_value(ev, n, EV_ABS, ABS_RZ), 255);
	assert_int_equal(tu_frame_value(ev, n, EV_KEY, BTN_EAST), 0);
	close(fd2);

	/* the neutral frame releases and centres everything */
	assert_int_equal(pad_neutral(f->pad), 0);
	n = tu_read_frame(f->fd, ev, PAD_FRAME_MAX, 2000, NULL);
	assert_true(tu_frame_is_neutral(ev, n));
}

static void test_frame__rejects_codes_outside_the_layout(void **state)
{
	struct fixture *f = *state;
	struct input_event bad[][1] = {
		{ { .type = EV_KEY, .code = KEY_A, .value = 1 } },
		{ { .type = EV_KEY, .code = BTN_SOUTH, .value = 2 } },
		{ { .type = EV_ABS, .code = ABS_X, .value = 40000 } },
		{ { .type = EV_ABS, .code = ABS_Z, .value = -1 } },
		{ { .type = EV_ABS, .code = ABS_HAT0X, .value = 2 } },
		{ { .type = EV_ABS, .code = ABS_MT_SLOT, .value = 0 } },
		{ { .type = EV_REL, .code = REL_X, .value = 1 } },
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		assert_int_equal(pad_frame(f->pad, bad[i], 1), -EINVAL);
	int32_t v;
	assert_int_equal(pad_state(f->pad, EV_KEY, KEY_A, &v), -EINVAL);
	assert_int_equal(pad_frame(f->pad, NULL, 0), 0);
}

static void test_frame__a_game_that_does_not_read_gets_a_resync(void **state)
{
	struct fixture *f = *state;
	struct input_event ev[PAD_FRAME_MAX];
	connect_game(f, ev);
	/* fill the game's socket without reading */
	int sent = 0;
	for (int i = 0; i < 20000; i++) {
		struct input_event e = { .type = EV_ABS, .code = ABS_RX, .value = i % 2 ? 100 : -100 };
		assert_int_equal(pad_frame(f->pad, &e, 1), 0);
		sent++;
	}
	struct input_event last = { .type = EV_KEY, .code = BTN_WEST, .value = 1 };
	assert_int_equal(pad_frame(f->pad, &last, 1), 0);

	int frames = 0, n;
	bool saw_drop = false;
	/* everything queued reads back as whole frames */
	while ((n = tu_read_frame(f->fd, ev, PAD_FRAME_MAX, 200, NULL)) > 0) {
		assert_int_equal(ev[n - 1].code, SYN_REPORT);
		if (ev[0].type == EV_SYN && ev[0].code == SYN_DROPPED)
			fail_msg("a resync before the game has read anything");
		frames++;
	}
	assert_int_equal(n, -ETIMEDOUT);
	assert_true(frames > 0);
	assert_true(frames < sent); /* some were dropped */
	/* the next frame is the full state, marked as a resync */
	struct input_event e = { .type = EV_ABS, .code = ABS_RX, .value = 7 };
	assert_int_equal(pad_frame(f->pad, &e, 1), 0);
	n = tu_read_frame(f->fd, ev, PAD_FRAME_MAX, 2000, NULL);
	assert_int_equal(n, PAD_FRAME_MAX);
	assert_int_equal(ev[0].type, EV_SYN);
	assert_int_equal(ev[0].code, SYN_DROPPED);
	saw_drop = true;
	assert_int_equal(tu_frame_value(ev, n, EV_KEY, BTN_WEST), 1);
	assert_int_equal(tu_frame_value(ev, n, EV_ABS, ABS_RX), 7);
	/* then changes again */
	e.value = 8;
	assert_int_equal(pad_frame(f->pad, &e, 1), 0);
	n = tu_read_frame(f->fd, ev, PAD_FRAME_MAX, 2000, NULL);
	assert_int_equal(n, 2);
	assert_true(saw_drop);
}

static void test_destroy__neutral_then_end_of_file_and_no_file(void **state)
{
	struct fixture *f = *state;
	struct input_event ev[PAD_FRAME_MAX];
	connect_game(f, ev);
	struct input_event in = { .type = EV_KEY, .code = BTN_EAST, .value = 1 };
	assert_int_equal(pad_frame(f->pad, &in, 1), 0);
	assert_int_equal(tu_read_frame(f->fd, ev, PAD_FRAME_MAX, 2000, NULL), 2);
	pad_destroy(f->pad);
	f->pad = NULL;
	int n = tu_read_frame(f->fd, ev, PAD_FRAME_MAX, 2000, NULL);
	assert_true(tu_frame_is_neutral(ev, n));
	assert_int_equal(tu_frame_value(ev, n, EV_KEY, BTN_EAST), 0);
	assert_int_equal(tu_read_frame(f->fd, ev, PAD_FRAME_MAX, 2000, NULL), 0);
	struct stat st;
	assert_int_equal(stat(f->path, &st), -1);
	int fd;
	assert_int_equal(pad_socket_connect(f->path, &fd), -ENOENT);
}

static int hold_then_wait(struct pad *pad, void *arg)
{
	struct input_event in[] = {
		{ .type = EV_KEY, .code = BTN_SOUTH, .value = 1 },
		{ .type = EV_ABS, .code = ABS_Y, .value = -32768 },
	};
	pad_frame(pad, in, 2);
	int *go = arg;
	/* signal readiness on the kept descriptor, then wait to be killed */
	char b = 'x';
	if (write(go[1], &b, 1) != 1)
		return 3;
	for (;;)
		pause();
}

static void test_spawn__owner_writes_neutral_when_the_child_is_killed(void **state)
{
	struct fixture *f = *state;
	struct input_event ev[PAD_FRAME_MAX];
	connect_game(f, ev);
	int go[2];
	assert_int_equal(pipe(go), 0);
	pid_t pid;
	assert_int_equal(pad_spawn(f->pad, hold_then_wait, go, &go[1], 1, NULL, NULL, &pid), 0);
	/* a second spawn while one runs */
	pid_t pid2;
	assert_int_equal(pad_spawn(f->pad, hold_then_wait, go, &go[1], 1, NULL, NULL, &pid2), -EBUSY);
	char b;
	assert_int_equal(read(go[0], &b, 1), 1);
	int n = tu_read_frame(f->fd, ev, PAD_FRAME_MAX, 2000, NULL);
	assert_int_equal(tu_frame_value(ev, n, EV_KEY, BTN_SOUTH), 1);

	/* a game connecting while the child plays gets the state, then the
	 * child's frames */
	int fd2;
	assert_int_equal(pad_socket_connect(f->path, &fd2), 0);
	n = tu_read_frame(fd2, ev, PAD_FRAME_MAX, 2000, NULL);
	assert_int_equal(tu_frame_value(ev, n, EV_KEY, BTN_SOUTH), 1);
	assert_int_equal(tu_frame_value(ev, n, EV_ABS, ABS_Y), -32768);

	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(pad_wait_child(f->pad, 5000), 0);
	/* with SIGCHLD ignored nobody could say how a child ended */
	signal(SIGCHLD, SIG_IGN);
	assert_int_equal(pad_spawn(f->pad, hold_then_wait, go, &go[1], 1, NULL, NULL, &pid2), -EINVAL);
	signal(SIGCHLD, SIG_DFL);
	n = tu_read_frame(f->fd, ev, PAD_FRAME_MAX, 2000, NULL);
	assert_true(tu_frame_is_neutral(ev, n));
	n = tu_read_frame(fd2, ev, PAD_FRAME_MAX, 2000, NULL);
	assert_true(tu_frame_is_neutral(ev, n));
	int32_t v;
	pad_state(f->pad, EV_KEY, BTN_SOUTH, &v);
	assert_int_equal(v, 0);
	close(fd2);
	close(go[0]);
	close(go[1]);
}

/* ---- a game connecting while a child is spawned ---- */

static int press_a(struct pad *pad, void *arg)
{
	(void)arg;
	struct input_event e = { .type = EV_KEY, .code = BTN_SOUTH, .value = 1 };
	return pad_frame(pad, &e, 1) == 0 ? 0 : 1;
}

struct connector {
	const char *path;
	int fds[PAD_SOCKET_MAX_CLIENTS];
	int n;
	atomic_bool go;
};

/* Connects games back to back, as many as the pad takes. */
static void *connect_many(void *arg)
{
	struct connector *c = arg;
	while (!atomic_load(&c->go))
		;
	while (c->n < PAD_SOCKET_MAX_CLIENTS) {
		int fd;
		if (pad_socket_connect(c->path, &fd) == 0)
			c->fds[c->n++] = fd;
	}
	return NULL;
}

/* A game accepted while a child is being spawned reaches the child once:
 * in the list the fork copies or over the control pair, never both (it
 * would get every frame of the child twice). */
static void test_spawn__a_game_connecting_meanwhile_gets_each_frame_once(void **state)
{
	(void)state;
	for (int round = 0; round < 40; round++) {
		char spec[256], path[256];
		tu_socket_spec("pad-spawn-race", spec, sizeof spec, path, sizeof path);
		struct pad *pad;
		assert_int_equal(pad_create(spec, &pad), 0);
		struct connector c = { .path = path };
		pthread_t t;
		assert_int_equal(pthread_create(&t, NULL, connect_many, &c), 0);
		atomic_store(&c.go, true);
		pid_t pid;
		assert_int_equal(pad_spawn(pad, press_a, NULL, NULL, 0, NULL, NULL, &pid), 0);
		assert_int_equal(pad_wait_child(pad, 5000), 0);
		pthread_join(t, NULL);
		pad_destroy(pad);
		for (int i = 0; i < c.n; i++) {
			struct input_event ev[PAD_FRAME_MAX];
			int n, presses = 0;
			while ((n = tu_read_frame(c.fds[i], ev, PAD_FRAME_MAX, 2000, NULL)) > 0)
				presses += n == 2 && tu_frame_value(ev, n, EV_KEY, BTN_SOUTH) == 1;
			/* end of file, or reset for a game never accepted */
			assert_true(n == 0 || n == -ECONNRESET);
			assert_in_range(presses, 0, 1);
			close(c.fds[i]);
		}
	}
}

static void test_create__socket_file_rules(void **state)
{
	(void)state;
	char spec[256], path[256];
	tu_socket_spec("pad-create", spec, sizeof spec, path, sizeof path);
	struct pad *a = NULL, *b = NULL;
	assert_int_equal(pad_create(spec, &a), 0);
	/* a live pad there */
	assert_int_equal(pad_create(spec, &b), -EADDRINUSE);
	pad_destroy(a);

	/* a stale socket file (its pad was killed) is replaced */
	int s = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	strcpy(sa.sun_path, path);
	assert_int_equal(bind(s, (struct sockaddr *)&sa, sizeof sa), 0);
	close(s);
	assert_int_equal(pad_create(spec, &a), 0);
	pad_destroy(a);

	/* anything else is left alone */
	int fd = open(path, O_CREAT | O_WRONLY, 0600);
	close(fd);
	assert_int_equal(pad_create(spec, &a), -EEXIST);
	unlink(path);

	char longspec[300] = "socket:/tmp/";
	memset(longspec + strlen(longspec), 'x', 200);
	longspec[299] = 0;
	assert_int_equal(pad_create(longspec, &a), -ENAMETOOLONG);
	assert_int_equal(pad_create("socket:", &a), -EINVAL);
	assert_int_equal(pad_create("bluetooth", &a), -EINVAL);
	pad_destroy(NULL);
}

static void test_read__reports_end_and_bad_messages(void **state)
{
	(void)state;
	int sv[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	struct input_event ev[4];
	size_t n;
	assert_int_equal(pad_socket_read(sv[0], ev, 4, &n), -EAGAIN);
	char junk[10] = { 0 };
	assert_int_equal(send(sv[1], junk, sizeof junk, 0), (ssize_t)sizeof junk);
	assert_int_equal(pad_socket_read(sv[0], ev, 4, &n), -EPROTO);
	struct input_event big[8] = { 0 };
	assert_int_equal(send(sv[1], big, sizeof big, 0), (ssize_t)sizeof big);
	assert_int_equal(pad_socket_read(sv[0], ev, 4, &n), -EPROTO);
	close(sv[1]);
	assert_int_equal(pad_socket_read(sv[0], ev, 4, &n), -ENOTCONN);
	close(sv[0]);
	int fd;
	assert_int_equal(pad_socket_connect("/nonexistent/dir/pad", &fd), -ENOENT);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_connect__first_frame_is_the_full_state, setup, teardown),
		cmocka_unit_test_setup_teardown(test_frame__changes_then_syn_report, setup, teardown),
		cmocka_unit_test_setup_teardown(test_frame__rejects_codes_outside_the_layout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_frame__a_game_that_does_not_read_gets_a_resync, setup, teardown),
		cmocka_unit_test_setup_teardown(test_destroy__neutral_then_end_of_file_and_no_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spawn__owner_writes_neutral_when_the_child_is_killed, setup, teardown),
		cmocka_unit_test(test_spawn__a_game_connecting_meanwhile_gets_each_frame_once),
		cmocka_unit_test(test_create__socket_file_rules),
		cmocka_unit_test(test_read__reports_end_and_bad_messages),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
