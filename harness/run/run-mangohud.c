/* run-mangohud: the harness's side of MangoHud's control socket.
 *
 * With `frames = mangohud` the game runs with MangoHud's `control=NAME`
 * option: MangoHud listens on the abstract unix socket NAME and, at each
 * frame it shows, accepts one client, greets it (":MangoHudControlVersion=1;"
 * and its version) and reads ":logging=1;" / ":logging=0;" commands.  When
 * logging stops, it writes (0.6.x) or closes (0.7.x) its CSV and then sends
 * ":LoggingFinished".  The run supervisor (run-game.c) uses the greeting as
 * the game's first frame, starts the log itself, and at the route's end
 * stops it and waits for LoggingFinished before ending the game: that is
 * what makes MangoHud 0.6.8, which writes nothing until logging stops,
 * leave a complete log.  docs/running.md 4.4 lists what is relied on per
 * version.
 *
 * It owns the socket and the parsing of what MangoHud says; when to send
 * what is run-game.c's business.
 */
#include "run-private.h"
#include "util/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

void run_mangohud_init(struct run_mangohud *mh, const char *name)
{
	memset(mh, 0, sizeof *mh);
	mh->fd = -1;
	snprintf(mh->name, sizeof mh->name, "%s", name);
}

void run_mangohud_finish(struct run_mangohud *mh)
{
	if (mh->fd >= 0)
		close(mh->fd);
	mh->fd = -1;
}

/* One connection attempt.  0 when connected (now or before); -EAGAIN while
 * nothing listens yet; another negative errno when the socket fails. */
static int try_connect(struct run_mangohud *mh)
{
	if (mh->fd >= 0)
		return 0;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t n = strlen(mh->name);
	if (n + 1 > sizeof sa.sun_path) {
		close(fd);
		return -ENAMETOOLONG;
	}
	memcpy(sa.sun_path + 1, mh->name, n); /* abstract: a leading NUL */
	socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
	if (connect(fd, (struct sockaddr *)&sa, len) < 0 && errno != EINPROGRESS) {
		int e = errno;
		close(fd);
		return e == ECONNREFUSED || e == ENOENT || e == EAGAIN ? -EAGAIN : -e;
	}
	mh->fd = fd;
	return 0;
}

/* What MangoHud said: the greeting, its version, the end of a log.  Its
 * messages are ":NAME=VALUE;" or ":NAME" (0.6.8 sends a message without a
 * value with no ';'), so names are looked for in the stream as it comes. */
static void take_text(struct run_mangohud *mh)
{
	mh->text[mh->text_len] = 0;
	const char *t = mh->text;
	if (strstr(t, ":MangoHudControlVersion="))
		mh->greeted = true;
	const char *v = strstr(t, ":MangoHudVersion=");
	if (v && !mh->version[0]) {
		v += strlen(":MangoHudVersion=");
		size_t n = strcspn(v, ";:");
		if (v[n]) /* complete */
			snprintf(mh->version, sizeof mh->version, "%.*s", (int)n, v);
	}
	if (strstr(t, ":LoggingFinished"))
		mh->log_finished = true;
	/* keep the last message, which may be cut between two reads */
	const char *last = strrchr(t, ':');
	size_t keep = last ? mh->text_len - (size_t)(last - t) : 0;
	if (keep > sizeof mh->text / 2)
		keep = 0; /* no message of ours is that long */
	memmove(mh->text, mh->text + mh->text_len - keep, keep);
	mh->text_len = keep;
}

int run_mangohud_poll(struct run_mangohud *mh)
{
	int rc = try_connect(mh);
	if (rc < 0)
		return rc == -EAGAIN ? 0 : rc;
	for (;;) {
		size_t room = sizeof mh->text - 1 - mh->text_len;
		ssize_t n = recv(mh->fd, mh->text + mh->text_len, room, 0);
		if (n > 0) {
			mh->text_len += (size_t)n;
			take_text(mh);
			continue;
		}
		if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
			/* the game closed it (it exits, or MangoHud dropped us) */
			mh->closed = true;
			close(mh->fd);
			mh->fd = -1;
			return 0;
		}
		if (errno != EINTR)
			return 0;
	}
}

int run_mangohud_logging(struct run_mangohud *mh, bool on)
{
	if (mh->fd < 0)
		return -ENOTCONN;
	const char *cmd = on ? ":logging=1;" : ":logging=0;";
	size_t n = strlen(cmd);
	ssize_t w = send(mh->fd, cmd, n, MSG_NOSIGNAL);
	if (w < 0)
		return -errno;
	return (size_t)w == n ? 0 : -EIO;
}

int run_mangohud_fd(const struct run_mangohud *mh)
{
	return mh->fd;
}

char *run_newest_csv(const char *dir, off_t *size)
{
	DIR *d = opendir(dir);
	if (!d)
		return NULL;
	char *best = NULL;
	struct timespec newest = { 0, 0 };
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n < 5 || strcmp(e->d_name + n - 4, ".csv") != 0 ||
		    (n >= 12 && strcmp(e->d_name + n - 12, "_summary.csv") == 0))
			continue;
		struct stat st;
		if (fstatat(dirfd(d), e->d_name, &st, 0) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (!best || st.st_mtim.tv_sec > newest.tv_sec ||
		    (st.st_mtim.tv_sec == newest.tv_sec && st.st_mtim.tv_nsec > newest.tv_nsec)) {
			char *path = util_path_join(dir, e->d_name);
			if (!path)
				break;
			free(best);
			best = path;
			newest = st.st_mtim;
			if (size)
				*size = st.st_size;
		}
	}
	closedir(d);
	return best;
}
