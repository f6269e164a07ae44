/* pad-socket: the socket backend of the pad, the pad side of the protocol
 * described in pad.h.  It owns the listening socket and its file, the
 * acceptor thread of the owner (which sends each new game the full state
 * and hands the connection to a running child), and the sending of frames
 * to every connected game, with the drop-and-resync rule for a game that
 * does not read.  The game side is pad-socket-client.c. */
#include "pad-private.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* How long the owner waits for a game to make room for a frame it must get
 * (the first state, the neutral frame) before disconnecting it. */
#define OWNER_SEND_WAIT_MS 200

struct pad_client {
	int fd;
	bool behind; /* a frame was dropped; resend the full state first */
	bool gone;   /* owner side: given up on; the acceptor thread closes it */
};

struct pad_socket {
	struct pad base;
	/* the clients below belong to whichever process holds this copy */
	char *path;
	dev_t path_dev;
	ino_t path_ino;
	int listen_fd;
	struct pad_client clients[PAD_SOCKET_MAX_CLIENTS];
	size_t n_clients;
	int wake[2];              /* tells the acceptor thread to stop */
	pthread_t acceptor;
	bool acceptor_started;
};

static struct pad_socket *socket_of(const struct pad *pad)
{
	return (struct pad_socket *)pad;
}

static int fill_addr(const char *path, struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof *sa);
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof sa->sun_path)
		return -ENAMETOOLONG;
	strcpy(sa->sun_path, path);
	return 0;
}

static void stamp(struct input_event *ev, size_t n)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	for (size_t i = 0; i < n; i++) {
		ev[i].input_event_sec = ts.tv_sec;
		ev[i].input_event_usec = ts.tv_nsec / 1000;
	}
}

static int send_once(int fd, const struct input_event *ev, size_t n)
{
	for (;;) {
		if (send(fd, ev, n * sizeof *ev, MSG_DONTWAIT | MSG_NOSIGNAL) >= 0)
			return 0;
		if (errno != EINTR)
			return -errno;
	}
}

/* The owner's send of a frame a game must not miss. */
static int send_waiting(int fd, const struct input_event *ev, size_t n)
{
	int r = send_once(fd, ev, n);
	if (r != -EAGAIN)
		return r;
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	if (poll(&p, 1, OWNER_SEND_WAIT_MS) <= 0)
		return -EAGAIN;
	return send_once(fd, ev, n);
}

static void remove_client(struct pad_socket *pad, size_t i)
{
	close(pad->clients[i].fd);
	pad->clients[i] = pad->clients[--pad->n_clients];
}

/* Child side: takes the games the owner accepted since the last frame. */
static void take_new_clients(struct pad_socket *pad)
{
	for (;;) {
		char byte;
		struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
		union {
			struct cmsghdr h;
			char buf[CMSG_SPACE(sizeof(int))];
		} c;
		struct msghdr m = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = c.buf, .msg_controllen = sizeof c.buf,
		};
		ssize_t r = recvmsg(pad->base.ctl_fd, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return;
		struct cmsghdr *h = CMSG_FIRSTHDR(&m);
		if (!h || h->cmsg_type != SCM_RIGHTS)
			continue;
		int fd;
		memcpy(&fd, CMSG_DATA(h), sizeof fd);
		if (pad->n_clients < PAD_SOCKET_MAX_CLIENTS)
			pad->clients[pad->n_clients++] = (struct pad_client){ .fd = fd };
		else
			close(fd);
	}
}

static void pass_to_child(struct pad_socket *pad, int fd)
{
	char byte = 'c';
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} c;
	memset(&c, 0, sizeof c);
	struct msghdr m = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = c.buf, .msg_controllen = sizeof c.buf,
	};
	struct cmsghdr *h = CMSG_FIRSTHDR(&m);
	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_RIGHTS;
	h->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(h), &fd, sizeof fd);
	while (sendmsg(pad->base.ctl_fd, &m, MSG_NOSIGNAL) < 0 && errno == EINTR)
		;
}

static void drop_client(struct pad_socket *pad, size_t *i)
{
	if (pad->base.in_child) {
		remove_client(pad, *i);
		return;
	}
	/* the acceptor thread polls this fd and closes it */
	pad->clients[*i].gone = true;
	shutdown(pad->clients[*i].fd, SHUT_RDWR);
	(*i)++;
}

static int socket_write(struct pad *base, struct input_event *ev, size_t n, bool must)
{
	struct pad_socket *pad = socket_of(base);
	if (base->in_child)
		take_new_clients(pad);
	stamp(ev, n);
	struct input_event full[PAD_FRAME_MAX];
	size_t n_full = 0;
	for (size_t i = 0; i < pad->n_clients;) {
		struct pad_client *c = &pad->clients[i];
		if (c->gone) {
			i++;
			continue;
		}
		const struct input_event *f = ev;
		size_t nf = n;
		if (c->behind) {
			/* it missed frames: the full state instead, marked as such */
			if (n_full == 0) {
				n_full = pad_full_state(base, true, full);
				stamp(full, n_full);
			}
			f = full;
			nf = n_full;
		}
		int r = must ? send_waiting(c->fd, f, nf) : send_once(c->fd, f, nf);
		if (r == 0) {
			c->behind = false;
		} else if (r == -EAGAIN && !must) {
			c->behind = true;
		} else {
			drop_client(pad, &i);
			continue;
		}
		i++;
	}
	return 0;
}

static void accept_client(struct pad_socket *pad)
{
	int fd = accept4(pad->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;
	int sndbuf = 1 << 20;
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
	pad_lock(&pad->base);
	if (pad->n_clients >= PAD_SOCKET_MAX_CLIENTS) {
		pad_unlock(&pad->base);
		close(fd);
		return;
	}
	struct input_event full[PAD_FRAME_MAX];
	size_t n = pad_full_state(&pad->base, false, full);
	stamp(full, n);
	if (send_waiting(fd, full, n) != 0) {
		pad_unlock(&pad->base);
		close(fd);
		return;
	}
	pad->clients[pad->n_clients++] = (struct pad_client){ .fd = fd };
	if (pad->base.ctl_fd >= 0)
		pass_to_child(pad, fd);
	pad_unlock(&pad->base);
}

static void *acceptor_main(void *arg)
{
	struct pad_socket *pad = arg;
	struct pollfd p[2 + PAD_SOCKET_MAX_CLIENTS];
	int fds[PAD_SOCKET_MAX_CLIENTS];
	for (;;) {
		size_t n = 0;
		p[n++] = (struct pollfd){ .fd = pad->wake[0], .events = POLLIN };
		p[n++] = (struct pollfd){ .fd = pad->listen_fd, .events = POLLIN };
		pad_lock(&pad->base);
		size_t nc = pad->n_clients;
		for (size_t i = 0; i < nc; i++) {
			fds[i] = pad->clients[i].fd;
			/* a client that is gone is closed on this pass */
			p[n++] = (struct pollfd){ .fd = fds[i], .events = POLLIN | POLLRDHUP };
		}
		pad_unlock(&pad->base);
		if (poll(p, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			return NULL;
		}
		if (p[0].revents)
			return NULL;
		if (p[1].revents & POLLIN)
			accept_client(pad);
		for (size_t i = 0; i < nc; i++) {
			short re = p[2 + i].revents;
			if (!re)
				continue;
			bool closed = (re & (POLLHUP | POLLERR | POLLRDHUP | POLLNVAL)) != 0;
			if (!closed && (re & POLLIN)) {
				/* games never write; drain and watch for end of file */
				char junk[256];
				ssize_t r = recv(fds[i], junk, sizeof junk, MSG_DONTWAIT);
				closed = r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR);
			}
			pad_lock(&pad->base);
			for (size_t k = 0; k < pad->n_clients; k++) {
				if (pad->clients[k].fd != fds[i])
					continue;
				if (closed || pad->clients[k].gone)
					remove_client(pad, k);
				break;
			}
			pad_unlock(&pad->base);
		}
	}
}

/* Replaces a socket file that no pad listens on any more; refuses a live
 * one and anything that is not a socket. */
static int clear_path(const char *path, const struct sockaddr_un *sa)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode))
		return -EEXIST;
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	int r = connect(fd, (const struct sockaddr *)sa, sizeof *sa);
	int err = errno;
	close(fd);
	if (r == 0)
		return -EADDRINUSE;
	if (err != ECONNREFUSED && err != EPROTOTYPE)
		return -err;
	if (err == EPROTOTYPE)
		return -EADDRINUSE; /* a live socket of another type */
	return unlink(path) == 0 ? 0 : -errno;
}

static int socket_open(struct pad_socket *pad, const char *path)
{
	struct sockaddr_un sa;
	int r = fill_addr(path, &sa);
	if (r < 0)
		return r;
	pad->path = strdup(path);
	if (!pad->path)
		return -ENOMEM;
	r = clear_path(path, &sa);
	if (r < 0)
		return r;
	pad->listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (pad->listen_fd < 0)
		return -errno;
	if (bind(pad->listen_fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
		r = -errno;
		close(pad->listen_fd);
		pad->listen_fd = -1;
		return r;
	}
	struct stat st;
	if (stat(path, &st) == 0) {
		pad->path_dev = st.st_dev;
		pad->path_ino = st.st_ino;
	}
	if (listen(pad->listen_fd, PAD_SOCKET_MAX_CLIENTS) != 0)
		return -errno;
	if (pipe2(pad->wake, O_CLOEXEC) != 0)
		return -errno;
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_create(&pad->acceptor, NULL, acceptor_main, pad);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r != 0)
		return -r;
	pad->acceptor_started = true;
	return 0;
}

static void socket_child_init(struct pad *base)
{
	struct pad_socket *pad = socket_of(base);
	pad->acceptor_started = false;
	if (pad->listen_fd >= 0)
		close(pad->listen_fd);
	pad->listen_fd = -1;
	for (int i = 0; i < 2; i++) {
		if (pad->wake[i] >= 0)
			close(pad->wake[i]);
		pad->wake[i] = -1;
	}
	/* clients the owner had already given up on are not this child's */
	for (size_t i = 0; i < pad->n_clients;) {
		if (pad->clients[i].gone)
			remove_client(pad, i);
		else
			i++;
	}
}

static void socket_close(struct pad *base)
{
	struct pad_socket *pad = socket_of(base);
	if (pad->acceptor_started) {
		char b = 'q';
		while (write(pad->wake[1], &b, 1) < 0 && errno == EINTR)
			;
		pthread_join(pad->acceptor, NULL);
		pad->acceptor_started = false;
	}
	for (size_t i = 0; i < pad->n_clients; i++)
		close(pad->clients[i].fd);
	pad->n_clients = 0;
	for (int i = 0; i < 2; i++)
		if (pad->wake[i] >= 0)
			close(pad->wake[i]);
	if (pad->listen_fd >= 0) {
		close(pad->listen_fd);
		pad->listen_fd = -1;
		struct stat st;
		/* remove the file only while it is still ours */
		if (!base->in_child && pad->path && stat(pad->path, &st) == 0 &&
		    st.st_dev == pad->path_dev && st.st_ino == pad->path_ino)
			unlink(pad->path);
	}
	free(pad->path);
	pad->path = NULL;
}

static size_t socket_child_fds(const struct pad *base, int *keep, size_t n)
{
	const struct pad_socket *pad = socket_of(base);
	for (size_t i = 0; i < pad->n_clients; i++)
		keep[n++] = pad->clients[i].fd;
	return n;
}

static const char *socket_devnode(const struct pad *pad)
{
	return socket_of(pad)->path;
}

static bool socket_is_open(const struct pad *pad)
{
	return socket_of(pad)->listen_fd >= 0;
}

static size_t socket_client_count(const struct pad *base)
{
	const struct pad_socket *pad = socket_of(base);
	size_t n = 0;
	for (size_t i = 0; i < pad->n_clients; i++)
		n += !pad->clients[i].gone;
	return n;
}

static const struct pad_impl socket_impl = {
	.name = "socket",
	.write = socket_write,
	.close = socket_close,
	.child_init = socket_child_init,
	.child_fds = socket_child_fds,
	.devnode = socket_devnode,
	.is_open = socket_is_open,
	.client_count = socket_client_count,
	.passes_clients = true,
};

int pad_socket_create(const char *path, struct pad **out)
{
	struct pad_socket *pad = calloc(1, sizeof *pad);
	if (!pad)
		return -ENOMEM;
	pad->listen_fd = -1;
	pad->wake[0] = pad->wake[1] = -1;
	int r = pad_init(&pad->base, &socket_impl);
	if (r == 0)
		r = socket_open(pad, path);
	if (r < 0) {
		pad_destroy(&pad->base);
		return r;
	}
	*out = &pad->base;
	return 0;
}
