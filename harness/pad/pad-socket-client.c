/* pad-socket-client: the game side of the pad socket protocol (pad.h):
 * connecting, and reading one frame.  It depends on nothing else in the
 * harness, so a game can build it as it is. */
#include "pad.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int pad_socket_connect(const char *path, int *fd)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	if (!path || !fd)
		return -EINVAL;
	if (strlen(path) >= sizeof sa.sun_path)
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s < 0)
		return -errno;
	/* a non-blocking connect to a Unix socket completes at once or fails
	 * with EAGAIN when the pad's accept queue is full */
	while (connect(s, (struct sockaddr *)&sa, sizeof sa) != 0) {
		if (errno == EINTR)
			continue;
		int r = -errno;
		close(s);
		return r;
	}
	*fd = s;
	return 0;
}

int pad_socket_read(int fd, struct input_event *events, size_t max, size_t *n)
{
	if (!events || !n || max == 0)
		return -EINVAL;
	for (;;) {
		ssize_t r = recv(fd, events, max * sizeof *events, MSG_DONTWAIT | MSG_TRUNC);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return errno == EWOULDBLOCK ? -EAGAIN : -errno;
		}
		if (r == 0)
			return -ENOTCONN;
		if ((size_t)r > max * sizeof *events || r % (ssize_t)sizeof *events != 0)
			return -EPROTO;
		*n = (size_t)r / sizeof *events;
		return 0;
	}
}
